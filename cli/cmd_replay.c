/* cmd_replay.c - 'tabletrack replay': a recorded game as a self-contained
 * HTML page, JSON Lines on stdout, or a top-down video. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"
#include "hall_publish.h"
#include "rec.h"

static int replay_number(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= lo && d <= hi))
        return cli_spec_usage(&cli_spec_replay, "%s needs a number from %g to %g, not '%s'", opt, lo, hi, v);
    *out = d;
    return 0;
}

static volatile sig_atomic_t replay__stop;

static void replay__on_signal(int sig)
{
    (void)sig;
    replay__stop = 1;
}

/* replay --mqtt: the game published to a hall's broker as its table would. */
static int replay_mqtt(const hall_mqtt_opts *mo, const char *table, const char *db, long long session, double speed)
{
    cli_on_stop(replay__on_signal);
    tt_err err = {0};
    fprintf(stderr, "tabletrack replay: publishing %s as table %s to %s at %gx\n", db, table, mo->broker, speed);
    int held = 0;
    if (hall_replay_run(mo, table, db, session, speed, &replay__stop, &held, &err) != TT_OK)
        return cli_fail("replay", &err);
    if (held)
        fprintf(stderr, "tabletrack replay: the hall's broker holds the whole game, and the hall says its copy holds "
                "all of it\n");
    else
        fprintf(stderr, "tabletrack replay: the broker took the whole game, but no hall has said it holds it (is "
                "'tabletrack hall' running on this broker?); the recording here holds it all\n");
    return 0;
}

int cmd_replay(int argc, char **argv)
{
    const char *db = NULL, *html = NULL, *video = NULL, *table = NULL;
    hall_mqtt_opts mo = {0};
    int json = 0;
    long long session = 0, from = REC_TIME_UNSET, to = REC_TIME_UNSET;
    rec_video_opts vo = {0, 0, 0, NULL, NULL};
    cli_progress prog;
    tt_err err = {0};

    const cli_spec *S = &cli_spec_replay;
    cli_args args;
    const char *a, *v;
    int k;
    cli_args_init(&args, S, argc, argv);
    while ((k = cli_args_next(&args, &a, &v)) != CLI_END) {
        if (k == CLI_STOP)
            return args.rc;
        if (k == CLI_POSITIONAL) {
            if (db)
                return cli_spec_usage(S, "one recording at a time (got %s and %s)", db, v);
            db = v;
            continue;
        }
        double d = 0;
        if (cli_mqtt_opt(a, v, &mo))
            continue;
        if (!strcmp(a, "--table"))
            table = v;
        else if (!strcmp(a, "--json"))
            json = 1;
        else if (!strcmp(a, "--html"))
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
                return cli_spec_usage(S, "%s: %s", a, err.msg);
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
    }
    if (!db)
        return cli_spec_usage(S, "which recording? (give GAME.sqlite)");
    if (mo.broker || table) {
        if (!mo.broker || !table)
            return cli_spec_usage(S, "--mqtt HOST[:PORT] and --table NAME go together");
        if (!hall_name_ok(table))
            return cli_spec_usage(S, "--table %s: use 1 to 64 letters, digits, '-' or '_'", table);
        if (from != REC_TIME_UNSET || to != REC_TIME_UNSET)
            return cli_spec_usage(S, "--mqtt publishes the whole session (no --from or --to)");
        return replay_mqtt(&mo, table, db, session, vo.speed > 0 ? vo.speed : 1.0);
    }
    if (mo.user || mo.password_file || mo.cafile)
        return cli_spec_usage(S, "--mqtt-user, --mqtt-password-file and --mqtt-cafile go with --mqtt");
    if (!html && !json && !video)
        return cli_spec_usage(S, "say what to make: --html OUT.html, --json or --video OUT.mp4");
    if (from != REC_TIME_UNSET && to != REC_TIME_UNSET && from >= to)
        return cli_spec_usage(S, "--from must come before --to");

    rec_game *g = NULL;
    if (rec_game_load(db, session, from, to, &g, &err) != TT_OK)
        return cli_fail("replay", &err);
    int rc = 0;
    if (rec_game_truncated_frame(g) >= 0)
        fprintf(stderr,
                "tabletrack replay: %s (session %lld) is truncated at frame %lld: the recording did not end cleanly "
                "(disk full, crash or power loss); it replays up to there\n",
                db, rec_game_session(g), rec_game_truncated_frame(g));
    /* the answers the page and the video cannot draw, and why */
    if (html || video)
        rec_game_write_notes(g, stderr, "tabletrack replay: ");
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
        cli_progress_start(&prog, "replay: video frames", 0);
        vo.progress = cli_progress_cb;
        vo.progress_user = &prog;
        tt_status vs = rec_game_write_video(g, video, &vo, &err);
        cli_progress_end(&prog);
        if (vs != TT_OK)
            rc = cli_fail("replay", &err);
        else
            fprintf(stderr, "tabletrack replay: wrote %s (session %lld)\n", video, rec_game_session(g));
    }
    rec_game_destroy(g);
    return rc;
}
