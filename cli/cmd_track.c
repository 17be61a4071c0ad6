/* cmd_track.c - 'tabletrack track': reads the options and drives the live
 * game (game/) and, with --http, the table server (http/). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "cli.h"
#include "cli_progress.h"
#include "game.h"
#include "hall_publish.h"
#include "http.h"

#define TRACK__MAXQ 32

static volatile sig_atomic_t track__stop, track__abort;

/* The first Ctrl-C ends the game; a second one also gives up sending the
 * rest to the hall's broker. */
static void track__on_signal(int sig)
{
    (void)sig;
    if (track__stop)
        track__abort = 1;
    track__stop = 1;
}

typedef struct track__args {
    game_opts g;
    const char *queries[TRACK__MAXQ + 1];
    const char *sources[CALIB_MAX_CAMERAS];
    int nq, stats, nwindows;
    const char *http, *http_key, *table;
    hall_mqtt_opts mqtt;
    char note[1024];
} track__args;

/* -1: parsed, run; else the exit code. */
static int track__parse(int argc, char **argv, track__args *a)
{
    const char *name, *val;
    cli_args args;
    int k;
    memset(a, 0, sizeof *a);
    a->g.max_frames = -1;
    a->g.grace = 45;
    a->g.threads = 2;
    cli_args_init(&args, &cli_spec_track, argc, argv);
    while ((k = cli_args_next(&args, &name, &val)) != CLI_END) {
        if (k == CLI_STOP)
            return args.rc;
        if (k == CLI_POSITIONAL)
            return cli_spec_usage(&cli_spec_track, "unexpected argument '%s' (quote an image glob: 'frames/*.png')",
                                  val);
        if (cli_mqtt_opt(name, val, &a->mqtt))
            continue;
        int *num = NULL;
        long lo = 0, hi = 1000000000;
        if (!strcmp(name, "--rig"))
            a->g.rig = val;
        else if (!strcmp(name, "--source")) {
            if (a->g.nsources >= CALIB_MAX_CAMERAS)
                return cli_spec_usage(&cli_spec_track, "at most %d --source (one per camera of the rig)",
                                      CALIB_MAX_CAMERAS);
            a->sources[a->g.nsources++] = val;
            a->g.source = a->sources[0];
        }
        else if (!strcmp(name, "--scenario"))
            a->g.scenario = val;
        else if (!strcmp(name, "--projector")) {
            if (a->g.nprojectors >= GAME_MAX_PROJECTORS)
                return cli_spec_usage(&cli_spec_track, "at most %d --projector", GAME_MAX_PROJECTORS);
            a->g.projectors[a->g.nprojectors++] = val;
        } else if (!strcmp(name, "--window")) {
            if (a->nwindows >= GAME_MAX_PROJECTORS)
                return cli_spec_usage(&cli_spec_track, "at most %d --window (one per --projector)",
                                      GAME_MAX_PROJECTORS);
            a->g.windows[a->nwindows++] = val ? val : "";
        } else if (!strcmp(name, "--query")) {
            if (a->nq >= TRACK__MAXQ)
                return cli_spec_usage(&cli_spec_track, "at most %d --query (put more in a --queries file)", TRACK__MAXQ);
            a->queries[a->nq++] = val;
        } else if (!strcmp(name, "--queries"))
            a->g.queries_file = val;
        else if (!strcmp(name, "--phases"))
            a->g.phases_file = val;
        else if (!strcmp(name, "--overlay-dir"))
            a->g.overlay_dir = val;
        else if (!strcmp(name, "--events"))
            a->g.events = val;
        else if (!strcmp(name, "--stats"))
            a->stats = 1;
        else if (!strcmp(name, "--preload"))
            a->g.preload = 1;
        else if (!strcmp(name, "--cite"))
            a->g.cite = 1;
        else if (!strcmp(name, "--tuio"))
            a->g.tuio = val;
        else if (!strcmp(name, "--record"))
            a->g.record = val;
        else if (!strcmp(name, "--max-frames"))
            num = &a->g.max_frames;
        else if (!strcmp(name, "--grace"))
            num = &a->g.grace;
        else if (!strcmp(name, "--threads"))
            num = &a->g.threads, lo = 1, hi = 8;
        else if (!strcmp(name, "--camera-timeout"))
            num = &a->g.camera_timeout_s, lo = 1, hi = 86400;
        else if (!strcmp(name, "--http"))
            a->http = val;
        else if (!strcmp(name, "--http-key"))
            a->http_key = val;
        else if (!strcmp(name, "--table"))
            a->table = val;
        if (num && !cli_int(val, lo, hi, num))
            return cli_spec_usage(&cli_spec_track, "%s needs a whole number from %ld to %ld, got '%s'", name, lo, hi,
                                  val);
    }
    if (!a->g.rig)
        return cli_spec_usage(&cli_spec_track, "no --rig given");
    a->g.sources = a->sources;
    if ((a->nwindows || a->g.overlay_dir) && !a->g.nprojectors)
        return cli_spec_usage(&cli_spec_track, "--window and --overlay-dir draw through --projector projector.json");
    if (a->nwindows && a->nwindows != a->g.nprojectors)
        return cli_spec_usage(&cli_spec_track,
                              "%d --window for %d --projector: give each projector its own --window, in the same "
                              "order (--projector P1 --window :0.1 --projector P2 --window :0.2), or none",
                              a->nwindows, a->g.nprojectors);
    if ((a->nq || a->g.queries_file) && !a->g.nprojectors && !a->http)
        return cli_spec_usage(&cli_spec_track, "--query and --queries draw through --projector projector.json");
    if (a->http_key && !a->http)
        return cli_spec_usage(&cli_spec_track, "--http-key goes with --http [HOST:]PORT");
    if (a->mqtt.broker && !a->table)
        return cli_spec_usage(&cli_spec_track, "--mqtt needs --table NAME: this table's name in the hall");
    if (a->table && !a->mqtt.broker)
        return cli_spec_usage(&cli_spec_track, "--table goes with --mqtt HOST[:PORT]");
    if ((a->mqtt.user || a->mqtt.password_file || a->mqtt.cafile) && !a->mqtt.broker)
        return cli_spec_usage(&cli_spec_track, "--mqtt-user, --mqtt-password-file and --mqtt-cafile go with --mqtt");
    if (a->mqtt.broker && !a->g.record)
        return cli_spec_usage(&cli_spec_track, "--mqtt needs --record GAME.sqlite: the hall's copy is made from the "
                                               "table's own recording");
    if (a->table && !hall_name_ok(a->table))
        return cli_spec_usage(&cli_spec_track, "--table %s: use 1 to 64 letters, digits, '-' or '_'", a->table);
    a->g.queries = a->queries;
    /* with nothing to write, say what the tracker sees, once a second */
    if (!a->g.events && !a->g.tuio && !a->g.record && !a->g.nprojectors && !a->http && !a->stats)
        a->g.status_every_ms = 1000;
    a->g.serve = a->http != NULL;
    a->g.feed = a->http != NULL || a->mqtt.broker != NULL;
    a->g.stop = &track__stop;
    size_t len = (size_t)snprintf(a->note, sizeof a->note, "tabletrack");
    for (int i = 0; i < argc && len < sizeof a->note - 2; i++)
        len += (size_t)snprintf(a->note + len, sizeof a->note - len, " %s", argv[i]);
    a->g.note = a->note;
    return -1;
}

int cmd_track(int argc, char **argv)
{
    track__args a;
    tt_err err = {0};
    game *g = NULL;
    http_server *srv = NULL;
    hall_table *ht = NULL;
    hall_live *live = NULL;
    int rc = 1;
    int pr = track__parse(argc, argv, &a);
    if (pr >= 0)
        return pr;
    /* Ctrl-C / SIGTERM, at any point: finish the frame, close, exit. */
    cli_on_stop(track__on_signal);

    cli_progress prog;
    cli_progress_start(&prog, "track --preload: reading frames", 0);
    a.g.progress = cli_progress_cb;
    a.g.progress_user = &prog;
    tt_status cst = game_create(&a.g, &g, &err);
    cli_progress_end(&prog);
    if (cst != TT_OK) {
        if (track__stop)
            return 0; /* stopped while starting: nothing was begun */
        return cli_fail("track", &err);
    }
    if (a.http) {
        if (http_server_start(a.http, a.http_key, g, &srv, &err) != TT_OK)
            goto fail;
        fprintf(stderr, "table: %s\n", http_server_url(srv));
        fflush(stderr);
        if (a.g.nprojectors)
            game_set_banner(g, http_server_url(srv));
    }
    if (a.mqtt.broker) {
        if (hall_table_create(&a.mqtt, a.table, a.g.record, 0, 1, &ht, &err) != TT_OK ||
            hall_live_start(g, ht, &live, &err) != TT_OK)
            goto fail;
        fprintf(stderr, "table %s: publishing to %s\n", a.table, a.mqtt.broker);
        fflush(stderr);
    }
    if (game_run(g, &err) != TT_OK)
        goto fail;
    rc = 0;
    goto done;
fail:
    rc = cli_fail("track", &err);
done:
    http_server_stop(srv);
    hall_live_stop(live);
    if (a.stats && (rc == 0 || track__stop)) {
        game_stats s;
        game_get_stats(g, &s);
        printf("{\"frames\":%d,\"fps\":%.2f,\"latency_ms_p50\":%.2f,\"latency_ms_p95\":%.2f,\"tracked_ratio\":%.4f,"
               "\"full_frame_ms\":%.2f,\"corrupt_frames\":%d}\n",
               s.frames, s.fps, s.latency_ms_p50, s.latency_ms_p95, s.tracked_ratio, s.full_frame_ms,
               s.corrupt_frames);
        fflush(stdout);
    }
    if (game_close(g, &err) != TT_OK) {
        if (rc == 0)
            rc = cli_fail("track", &err);
    }
    if (ht) { /* the recording is complete: the hall gets all of it, or we say what it lacks */
        fprintf(stderr, "table %s: sending the rest of the game to the hall (up to %d s; Ctrl-C again to stop)\n",
                a.table, HALL_DRAIN_S);
        if (hall_table_drain(ht, HALL_DRAIN_S, &track__abort, &err) != TT_OK) {
            cli_fail("track", &err);
            rc = 1;
        } else {
            if (hall_table_held(ht))
                fprintf(stderr, "table %s: the hall's broker holds the whole game, and the hall says its copy holds "
                        "all of it\n", a.table);
            else
                fprintf(stderr, "table %s: the broker took the whole game, but no hall has said it holds it (is "
                        "'tabletrack hall' running on this broker?); the recording here holds "
                        "it all\n", a.table);
        }
    }
    hall_table_destroy(ht);
    game_destroy(g);
    return rc;
}
