/* cmd_track.c - 'tabletrack track': live tracking from a camera, a video or
 * an image sequence.  Wires: source -> (capture thread) -> vision tracker ->
 * live table in inches -> events / TUIO / stats. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calib.h"
#include "cli.h"
#include "live.h"
#include "rec.h"
#include "tt_json.h"
#include "source.h"
#include "track_overlay.h"
#include "tracker.h"
#include "tuio.h"
#include "usbcam.h"

static const char *USAGE =
    "tabletrack track --rig RIG --source SRC [--scenario S] [--projector P] [--window [DISPLAY]]\n"
    "                 [--query Q]... [--queries FILE] [--overlay-dir DIR] [--events FILE|-] [--stats] [--preload]\n"
    "                 [--tuio HOST:PORT] [--record GAME.sqlite] [--max-frames N] [--grace FRAMES]\n"
    "                 [--threads N]\n"
    "  SRC: /dev/videoN, usb:SERIAL, a video file, or an image glob such as 'frames/*.png'";

static volatile sig_atomic_t track__stop;

static void track__on_signal(int sig)
{
    (void)sig;
    track__stop = 1;
}

static double track__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- capture thread: overlaps decoding/capture with tracking ---- */

#define TRACK__SLOTS 3

typedef struct track__slot {
    tt_image im;
    double t_ms, arrived;
    vision_frame_status status;
} track__slot;

typedef struct track__capture {
    vision_source *src;
    int live; /* camera: drop old frames rather than fall behind */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    track__slot slot[TRACK__SLOTS];
    int head, count; /* ring of filled slots */
    int done;        /* producer finished (END or error) */
    tt_status st;
    tt_err err;
    int quit;
} track__capture;

static void *track__capture_main(void *arg)
{
    track__capture *c = arg;
    for (;;) {
        const tt_image *f = NULL;
        double t = 0;
        vision_frame_status fs;
        tt_err e = {0};
        tt_status st = vision_source_next(c->src, &f, &t, &fs, &e);
        double arrived = track__now_ms();
        pthread_mutex_lock(&c->mu);
        if (st != TT_OK || c->quit) {
            c->st = st;
            c->err = e;
            c->done = 1;
            pthread_cond_broadcast(&c->cv);
            pthread_mutex_unlock(&c->mu);
            return NULL;
        }
        while (c->count == TRACK__SLOTS && !c->live && !c->quit)
            pthread_cond_wait(&c->cv, &c->mu);
        if (c->quit) {
            c->done = 1;
            pthread_cond_broadcast(&c->cv);
            pthread_mutex_unlock(&c->mu);
            return NULL;
        }
        if (c->count == TRACK__SLOTS) { /* live: drop the oldest */
            c->head = (c->head + 1) % TRACK__SLOTS;
            c->count--;
        }
        track__slot *s = &c->slot[(c->head + c->count) % TRACK__SLOTS];
        s->status = fs;
        s->t_ms = t;
        s->arrived = arrived;
        if (fs == VISION_FRAME) {
            if (!s->im.data || s->im.width != f->width || s->im.height != f->height) {
                tt_image_free(&s->im);
                if (tt_image_alloc(&s->im, f->width, f->height, 1, &c->err) != TT_OK) {
                    c->st = TT_ERR_NOMEM;
                    c->done = 1;
                    pthread_cond_broadcast(&c->cv);
                    pthread_mutex_unlock(&c->mu);
                    return NULL;
                }
            }
            for (int y = 0; y < f->height; y++)
                memcpy(s->im.data + (size_t)y * s->im.stride, f->data + (size_t)y * f->stride, (size_t)f->width);
        }
        c->count++;
        pthread_cond_broadcast(&c->cv);
        int end = fs == VISION_END || fs == VISION_LOST;
        if (end)
            c->done = 1;
        pthread_mutex_unlock(&c->mu);
        if (end)
            return NULL;
    }
}

/* ---- output ---- */

static int track__cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void track__write_frame(FILE *ev, int frame, double t_ms, const track_figure *figs, int n,
                               const track_event *evs, int ne)
{
    fprintf(ev, "{\"frame\":%d,\"t_ms\":%.1f,\"figures\":[", frame, t_ms);
    for (int i = 0; i < n; i++)
        fprintf(ev, "%s{\"family\":\"%s\",\"id\":%d,\"x\":%.4f,\"y\":%.4f,\"facing_deg\":%.2f,\"state\":\"%s\"}",
                i ? "," : "", figs[i].family, figs[i].id, figs[i].x, figs[i].y, figs[i].facing_deg,
                track_state_name(figs[i].state));
    fprintf(ev, "]}\n");
    for (int i = 0; i < ne; i++) {
        const track_event *e = &evs[i];
        fprintf(ev, "{\"frame\":%d,\"event\":\"%s\",\"family\":\"%s\",\"id\":%d,\"from\":", frame,
                track_event_name(e->kind), e->family, e->id);
        if (e->has_from)
            fprintf(ev, "[%.4f,%.4f]", e->from[0], e->from[1]);
        else
            fprintf(ev, "null");
        fprintf(ev, ",\"to\":");
        if (e->has_to)
            fprintf(ev, "[%.4f,%.4f]", e->to[0], e->to[1]);
        else
            fprintf(ev, "null");
        fprintf(ev, "}\n");
    }
}

#define TRACK__MAXQ 32

typedef struct track__args {
    const char *rig, *source, *scenario, *projector, *window, *events, *tuio, *overlay_dir, *record, *queries_file;
    const char *queries[TRACK__MAXQ + 1];
    int nq;
    int stats, preload, max_frames, grace, threads, window_set;
} track__args;

static int track__parse(int argc, char **argv, track__args *a)
{
    memset(a, 0, sizeof *a);
    a->max_frames = -1;
    a->grace = 45;
    a->threads = 2;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char **dst = NULL;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            printf("usage: %s\n", USAGE);
            return 0;
        }
        if (!strcmp(o, "--stats")) {
            a->stats = 1;
            continue;
        }
        if (!strcmp(o, "--preload")) {
            a->preload = 1;
            continue;
        }
        if (!strcmp(o, "--window")) {
            a->window_set = 1;
            if (i + 1 < argc && argv[i + 1][0] != '-')
                a->window = argv[++i];
            continue;
        }
        if (!strcmp(o, "--query")) {
            if (i + 1 >= argc || a->nq >= TRACK__MAXQ)
                return cli_usage("track", USAGE, "--query needs a query (at most %d)", TRACK__MAXQ);
            a->queries[a->nq++] = argv[++i];
            continue;
        }
        if (!strcmp(o, "--rig"))
            dst = &a->rig;
        else if (!strcmp(o, "--overlay-dir"))
            dst = &a->overlay_dir;
        else if (!strcmp(o, "--record"))
            dst = &a->record;
        else if (!strcmp(o, "--queries"))
            dst = &a->queries_file;
        else if (!strcmp(o, "--source"))
            dst = &a->source;
        else if (!strcmp(o, "--scenario"))
            dst = &a->scenario;
        else if (!strcmp(o, "--projector"))
            dst = &a->projector;
        else if (!strcmp(o, "--events"))
            dst = &a->events;
        else if (!strcmp(o, "--tuio"))
            dst = &a->tuio;
        else if (!strcmp(o, "--max-frames") || !strcmp(o, "--grace") || !strcmp(o, "--threads")) {
            if (i + 1 >= argc)
                return cli_usage("track", USAGE, "%s needs a number", o);
            int *dst_n = !strcmp(o, "--max-frames") ? &a->max_frames : !strcmp(o, "--grace") ? &a->grace : &a->threads;
            if (!cli_int(argv[++i], 0, 1000000000, dst_n))
                return cli_usage("track", USAGE, "%s needs a whole number, got '%s'", o, argv[i]);
            continue;
        } else
            return cli_usage("track", USAGE, "unknown option %s", o);
        if (i + 1 >= argc)
            return cli_usage("track", USAGE, "%s needs a value", o);
        *dst = argv[++i];
    }
    if (!a->rig)
        return cli_usage("track", USAGE, "no --rig given");
    if (!a->source)
        return cli_usage("track", USAGE, "no --source given");
    return -1; /* parsed: run */
}

/* Open the recording and start a session holding the rig and scenario. */
static tt_status track__record_open(const track__args *a, int argc, char **argv, rec **out, tt_err *err)
{
    json_t *rj = NULL, *sj = NULL;
    char *rig = NULL, *scen = NULL, note[1024] = "tabletrack";
    tt_status st;
    *out = NULL;
    if ((st = tt_json_load_file(a->rig, &rj, err)) != TT_OK)
        goto done;
    if (a->scenario && (st = tt_json_load_file(a->scenario, &sj, err)) != TT_OK)
        goto done;
    rig = json_dumps(rj, JSON_COMPACT);
    scen = sj ? json_dumps(sj, JSON_COMPACT) : NULL;
    size_t len = strlen(note);
    for (int i = 0; i < argc && len < sizeof note - 2; i++)
        len += (size_t)snprintf(note + len, sizeof note - len, " %s", argv[i]);
    rec_meta meta = {a->source, note};
    if ((st = rec_open(a->record, REC_APPEND, out, err)) != TT_OK)
        goto done;
    if ((st = rec_session_begin(*out, rig, scen, &meta, err)) != TT_OK) {
        rec_close(*out, NULL);
        *out = NULL;
    }
done:
    free(rig);
    free(scen);
    json_decref(rj);
    json_decref(sj);
    return st;
}

int cmd_track(int argc, char **argv)
{
    track__args a;
    tt_err err = {0};
    calib_rig *rig = NULL;
    vision_source *src = NULL;
    vision_tracker *trk = NULL;
    track_live *live = NULL;
    track_tuio *tuio = NULL;
    track_overlay *ov = NULL;
    rec *recd = NULL;
    rec_figure *recf = NULL;
    int recf_cap = 0;
    FILE *ev = NULL;
    track__capture cap;
    pthread_t capth;
    int cap_started = 0, rc = 1, frames = 0, lost_reported = 0;
    double *lat = NULL, full_ms = 0, t_start = 0;
    long seen_sum = 0, known_sum = 0;
    const track_figure *last_figs = NULL;
    int last_nf = 0;
    int latcap = 0;

    memset(&cap, 0, sizeof cap);
    int pr = track__parse(argc, argv, &a);
    if (pr >= 0)
        return pr;
    /* Ctrl-C / SIGTERM: finish the frame, flush, exit cleanly. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = track__on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if ((a.window_set || a.overlay_dir || a.nq || a.queries_file) && !a.projector)
        return cli_usage("track", USAGE,
                         "--window, --overlay-dir, --query and --queries draw through --projector projector.json");

    if (calib_rig_load(a.rig, &rig, &err) != TT_OK)
        goto fail;
    vision_source_opts so = {rig->capture.width, rig->capture.height, rig->capture.fps, rig->capture.mjpeg};
    if (vision_source_open(a.source, &so, &src, &err) != TT_OK)
        goto fail;
    if (vision_source_get_kind(src) == VISION_SRC_CAMERA) {
        vision_camera_controls cc = {rig->capture.exposure, rig->capture.focus, rig->capture.white_balance,
                                     rig->capture.gain};
        char skipped[128];
        if (vision_camera_lock(vision_source_device(src), &cc, skipped, sizeof skipped, &err) != TT_OK)
            fprintf(stderr, "tabletrack track: warning: %s\n", err.msg);
        else if (skipped[0])
            fprintf(stderr, "tabletrack track: warning: this camera has no manual %s control\n", skipped);
    }
    if (a.preload && vision_source_preload(src, &err) != TT_OK)
        goto fail;

    vision_tracker_opts to;
    vision_tracker_opts_default(&to);
    calib_rig_detector_opts(rig, &to.det);
    to.grace_frames = a.grace;
    to.threads = a.threads < 1 ? 1 : a.threads > 8 ? 8 : a.threads;
    if (vision_tracker_create(&to, &trk, &err) != TT_OK || track_live_create(rig, NULL, &live, &err) != TT_OK)
        goto fail;
    if (a.projector) {
        track_overlay_opts oo = {a.scenario, a.projector, a.window_set ? (a.window ? a.window : "") : NULL,
                                 a.overlay_dir, a.queries, a.queries_file, rig->base_size_in * 0.75, rig->width_in,
                                 rig->depth_in};
        if (track_overlay_create(&oo, &ov, &err) != TT_OK)
            goto fail;
    }
    if (a.record && track__record_open(&a, argc, argv, &recd, &err) != TT_OK)
        goto fail;
    if (a.tuio && track_tuio_create(a.tuio, rig->width_in, rig->depth_in, &tuio, &err) != TT_OK)
        goto fail;
    if (a.events) {
        if (!strcmp(a.events, "-"))
            ev = stdout;
        else if (!(ev = fopen(a.events, "w"))) {
            tt_err_set(&err, TT_ERR_IO, "cannot write events file %s: %s", a.events, strerror(errno));
            goto fail;
        }
    }

    int threaded = !a.preload;
    if (threaded) {
        cap.src = src;
        cap.live = vision_source_get_kind(src) == VISION_SRC_CAMERA;
        pthread_mutex_init(&cap.mu, NULL);
        pthread_cond_init(&cap.cv, NULL);
        if (pthread_create(&capth, NULL, track__capture_main, &cap) != 0) {
            tt_err_set(&err, TT_ERR_INTERNAL, "cannot start the capture thread");
            goto fail;
        }
        cap_started = 1;
    }

    t_start = track__now_ms();
    int frame_no = 0;
    for (;;) {
        const tt_image *f = NULL;
        double t_ms = 0, arrived;
        vision_frame_status fs;
        track__slot taken;
        if (track__stop || (a.max_frames >= 0 && frames >= a.max_frames))
            break;
        if (threaded) {
            pthread_mutex_lock(&cap.mu);
            while (cap.count == 0 && !cap.done && !track__stop) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_nsec += 100000000;
                if (ts.tv_nsec >= 1000000000) {
                    ts.tv_sec++;
                    ts.tv_nsec -= 1000000000;
                }
                pthread_cond_timedwait(&cap.cv, &cap.mu, &ts);
            }
            if (cap.count == 0) {
                int done = cap.done;
                tt_status cst = cap.st;
                tt_err cerr = cap.err;
                pthread_mutex_unlock(&cap.mu);
                if (track__stop)
                    break;
                if (done && cst != TT_OK) {
                    err = cerr;
                    goto fail;
                }
                if (done)
                    break;
                continue;
            }
            /* Take the slot; swap its image out so the producer refills a
             * different buffer. */
            track__slot *s = &cap.slot[cap.head];
            taken = *s;
            memset(&s->im, 0, sizeof s->im);
            cap.head = (cap.head + 1) % TRACK__SLOTS;
            cap.count--;
            pthread_cond_broadcast(&cap.cv);
            pthread_mutex_unlock(&cap.mu);
            fs = taken.status;
            t_ms = taken.t_ms;
            /* Latency runs from the moment a camera delivered the frame; a
             * file is read ahead of time, so from when it is taken up. */
            arrived = cap.live ? taken.arrived : track__now_ms();
            f = &taken.im;
        } else {
            memset(&taken, 0, sizeof taken);
            if (vision_source_next(src, &f, &t_ms, &fs, &err) != TT_OK)
                goto fail;
            arrived = track__now_ms();
        }

        if (fs == VISION_END) {
            tt_image_free(&taken.im);
            break;
        }
        if (fs == VISION_CORRUPT) {
            tt_image_free(&taken.im);
            frame_no++;
            continue;
        }
        if (fs == VISION_LOST) {
            tt_image_free(&taken.im);
            if (!lost_reported)
                fprintf(stderr, "tabletrack track: camera lost: keeping the game; waiting for it to come back\n");
            lost_reported = 1;
            if (ov && track_overlay_frame(ov, frame_no, last_figs, last_nf, 1, recd, (long long)t_ms, &err) != TT_OK)
                goto fail;
            /* Poll for the camera every half second; the game state is kept. */
            while (!track__stop) {
                tt_err e2 = {0};
                if (vision_source_reconnect(src, &e2) == TT_OK)
                    break;
                usleep(500000);
            }
            if (track__stop)
                break;
            fprintf(stderr, "tabletrack track: camera back\n");
            lost_reported = 0;
            if (threaded) {
                pthread_join(capth, NULL);
                cap.done = 0;
                cap.count = 0;
                cap.head = 0;
                if (pthread_create(&capth, NULL, track__capture_main, &cap) != 0) {
                    cap_started = 0;
                    tt_err_set(&err, TT_ERR_INTERNAL, "cannot restart the capture thread");
                    goto fail;
                }
            }
            continue;
        }
        if (calib_rig_check_image(rig, f->width, f->height, &err) != TT_OK) {
            tt_image_free(&taken.im);
            tt_err_prefix(&err, "frame %d", frame_no);
            goto fail;
        }

        const vision_track *tracks;
        int ntr;
        vision_tracker_stats vst;
        double t0 = track__now_ms();
        tt_status st = vision_tracker_update(trk, f, frame_no, &tracks, &ntr, &vst, &err);
        if (st == TT_OK && vst.full_frame && full_ms == 0)
            full_ms = track__now_ms() - t0;
        const track_figure *figs = NULL;
        const track_event *evs = NULL;
        int nf = 0, ne = 0, posed = 0;
        if (st == TT_OK)
            st = track_live_update(live, frame_no, tracks, ntr, &figs, &nf, &evs, &ne, &posed, &err);
        tt_image_free(&taken.im);
        if (st != TT_OK)
            goto fail;
        if (!posed && frames == 0)
            fprintf(stderr, "tabletrack track: waiting for at least 2 anchor tags to be visible\n");
        if (ev)
            track__write_frame(ev, frame_no, t_ms, figs, nf, evs, ne);
        if (tuio && track_tuio_send(tuio, frame_no, figs, nf, &err) != TT_OK)
            goto fail;
        if (ov && track_overlay_frame(ov, frame_no, figs, nf, 0, recd, (long long)t_ms, &err) != TT_OK)
            goto fail;
        if (recd) {
            if (nf > recf_cap) {
                rec_figure *nr = realloc(recf, sizeof *nr * (size_t)nf);
                if (!nr) {
                    tt_err_set(&err, TT_ERR_NOMEM, "out of memory");
                    goto fail;
                }
                recf = nr;
                recf_cap = nf;
            }
            for (int i = 0; i < nf; i++) {
                recf[i].family = figs[i].family;
                recf[i].id = figs[i].id;
                recf[i].x = figs[i].x;
                recf[i].y = figs[i].y;
                recf[i].facing_deg = figs[i].facing_deg;
                recf[i].state = figs[i].state == VISION_TAG_SEEN       ? REC_SEEN
                                : figs[i].state == VISION_TAG_OCCLUDED ? REC_OCCLUDED
                                                                       : REC_LOST;
            }
            if (rec_frame(recd, frame_no, (long long)t_ms, recf, (size_t)nf, &err) != TT_OK)
                goto fail;
            for (int i = 0; i < ne; i++) {
                rec_event_kind k = evs[i].kind == TRACK_MOVED      ? REC_EV_MOVED
                                   : evs[i].kind == TRACK_APPEARED ? REC_EV_APPEARED
                                                                   : REC_EV_REMOVED;
                if (rec_event(recd, frame_no, (long long)t_ms, k, evs[i].family, evs[i].id,
                              evs[i].has_from ? evs[i].from : NULL, evs[i].has_to ? evs[i].to : NULL, &err) != TT_OK)
                    goto fail;
            }
        }
        last_figs = figs;
        last_nf = nf;
        for (int i = 0; i < nf; i++) {
            seen_sum += figs[i].state == VISION_TAG_SEEN;
            known_sum += figs[i].state != VISION_TAG_LOST;
        }
        if (frames == latcap) {
            latcap = latcap ? latcap * 2 : 1024;
            double *nl = realloc(lat, sizeof *nl * (size_t)latcap);
            if (!nl) {
                tt_err_set(&err, TT_ERR_NOMEM, "out of memory");
                goto fail;
            }
            lat = nl;
        }
        lat[frames++] = track__now_ms() - arrived;
        frame_no++;
    }
    rc = 0;
    goto done;
fail:
    rc = cli_fail("track", &err);
done:
    if (cap_started) {
        pthread_mutex_lock(&cap.mu);
        cap.quit = 1;
        pthread_cond_broadcast(&cap.cv);
        pthread_mutex_unlock(&cap.mu);
        pthread_join(capth, NULL);
        for (int i = 0; i < TRACK__SLOTS; i++)
            tt_image_free(&cap.slot[i].im);
    }
    if (ev) {
        fflush(ev);
        if (ev != stdout)
            fclose(ev);
    }
    if (a.stats && (rc == 0 || track__stop)) {
        double wall = track__now_ms() - t_start;
        double none = 0;
        if (frames > 1)
            qsort(lat, (size_t)frames, sizeof *lat, track__cmpd);
        const double *L = frames ? lat : &none;
        int n1 = frames ? frames : 1;
        printf("{\"frames\":%d,\"fps\":%.2f,\"latency_ms_p50\":%.2f,\"latency_ms_p95\":%.2f,\"tracked_ratio\":%.4f,"
               "\"full_frame_ms\":%.2f,\"corrupt_frames\":%d}\n",
               frames, frames * 1000.0 / wall, L[n1 / 2], L[(int)ceil(0.95 * n1) - 1],
               known_sum ? (double)seen_sum / known_sum : 0.0, full_ms, vision_source_corrupt_count(src));
        fflush(stdout);
    }
    if (recd) {
        tt_err e2 = {0};
        if (rec_close(recd, &e2) != TT_OK) {
            fprintf(stderr, "tabletrack track: %s\n", e2.msg);
            rc = 1;
        }
    }
    free(recf);
    free(lat);
    track_tuio_destroy(tuio);
    track_overlay_destroy(ov);
    track_live_destroy(live);
    vision_tracker_destroy(trk);
    vision_source_destroy(src);
    calib_rig_destroy(rig);
    return rc;
}
