/* cmd_replay.c - 'tabletrack replay': a recorded game as a self-contained
 * HTML page, JSON Lines on stdout, or a top-down video. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rec.h"

static const char *const usage_text =
    "tabletrack replay GAME.sqlite [--html OUT.html] [--json] [--video OUT.mp4|OUT.avi]\n"
    "                  [--session N] [--from T] [--to T] [--fps F] [--speed X] [--width PX]\n"
    "  --html OUT.html  one self-contained page (no network): table, terrain, figures, timeline,\n"
    "                   trails and the questions asked; open it in any browser\n"
    "  --json           the game as JSON Lines on stdout\n"
    "  --video OUT      the same top-down view as video (.avi: Motion-JPEG, .mp4: MPEG-4)\n"
    "  --session N      which recording session (default: the latest)\n"
    "  --from/--to T    time range, in seconds (75, 12.5) or mm:ss (1:15) from the start\n"
    "  --fps F          video frames per second (default 15)\n"
    "  --speed X        video: game seconds per video second (default 1; 10 for a time-lapse)\n"
    "  --width PX       video width in pixels (default 1280)";

static int replay_number(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= lo && d <= hi))
        return cli_usage("replay", usage_text, "%s needs a number from %g to %g, not '%s'", opt, lo, hi, v);
    *out = d;
    return 0;
}

int cmd_replay(int argc, char **argv)
{
    const char *db = NULL, *html = NULL, *video = NULL;
    int json = 0;
    long long session = 0, from = REC_TIME_UNSET, to = REC_TIME_UNSET;
    rec_video_opts vo = {0, 0, 0};
    tt_err err = {0};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: %s\n", usage_text);
            return 0;
        }
        if (!strcmp(a, "--json")) {
            json = 1;
            continue;
        }
        int takes = !strcmp(a, "--html") || !strcmp(a, "--video") || !strcmp(a, "--session") ||
                    !strcmp(a, "--from") || !strcmp(a, "--to") || !strcmp(a, "--fps") || !strcmp(a, "--speed") ||
                    !strcmp(a, "--width");
        if (takes) {
            if (i + 1 >= argc)
                return cli_usage("replay", usage_text, "%s needs a value", a);
            const char *v = argv[++i];
            double d = 0;
            if (!strcmp(a, "--html"))
                html = v;
            else if (!strcmp(a, "--video"))
                video = v;
            else if (!strcmp(a, "--session")) {
                if (replay_number(a, v, 1, 1e15, &d))
                    return 2;
                session = (long long)d;
            } else if (!strcmp(a, "--from") || !strcmp(a, "--to")) {
                long long ms;
                if (rec_parse_time(v, &ms, &err) != TT_OK)
                    return cli_usage("replay", usage_text, "%s: %s", a, err.msg);
                if (!strcmp(a, "--from"))
                    from = ms;
                else
                    to = ms;
            } else if (!strcmp(a, "--fps")) {
                if (replay_number(a, v, 1, 120, &vo.fps))
                    return 2;
            } else if (!strcmp(a, "--speed")) {
                if (replay_number(a, v, 0.01, 10000, &vo.speed))
                    return 2;
            } else {
                if (replay_number(a, v, 64, 7680, &d))
                    return 2;
                vo.width_px = (int)d;
            }
            continue;
        }
        if (a[0] == '-' && a[1])
            return cli_usage("replay", usage_text, "unknown option %s", a);
        if (db)
            return cli_usage("replay", usage_text, "one recording at a time (got %s and %s)", db, a);
        db = a;
    }
    if (!db)
        return cli_usage("replay", usage_text, "which recording? (give GAME.sqlite)");
    if (!html && !json && !video)
        return cli_usage("replay", usage_text, "say what to make: --html OUT.html, --json or --video OUT.mp4");
    if (from != REC_TIME_UNSET && to != REC_TIME_UNSET && from >= to)
        return cli_usage("replay", usage_text, "--from must come before --to");

    rec_game *g = NULL;
    if (rec_game_load(db, session, from, to, &g, &err) != TT_OK)
        return cli_fail("replay", &err);
    int rc = 0;
    if (json && rec_game_write_json(g, stdout, &err) != TT_OK)
        rc = cli_fail("replay", &err);
    if (!rc && html) {
        if (rec_game_write_html(g, html, &err) != TT_OK)
            rc = cli_fail("replay", &err);
        else
            fprintf(stderr, "tabletrack replay: wrote %s (session %lld); open it in a browser\n", html,
                    rec_game_session(g));
    }
    if (!rc && video) {
        if (rec_game_write_video(g, video, &vo, &err) != TT_OK)
            rc = cli_fail("replay", &err);
        else
            fprintf(stderr, "tabletrack replay: wrote %s (session %lld)\n", video, rec_game_session(g));
    }
    rec_game_destroy(g);
    return rc;
}
