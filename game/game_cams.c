/* game_cams.c - the rig's cameras in the live game (issue 31): each camera
 * reads its own source in its own capture thread and has its own tracker;
 * a round takes one frame from each.  Files are paired frame by frame; live
 * cameras by time: each gives its newest frame, and a frame older than the
 * newest of the round by more than one frame period sits the round out (its
 * figures are not reported from it).  A camera lost or silent is told,
 * naming it, and polled until it comes back while the others go on. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "game_internal.h"
#include "usbcam.h"

#define GAME__ROUND_MS 50      /* a round waits this long before the game idles */
#define GAME__RETRY_MS 500     /* a lost camera is tried this often */
#define GAME__DEFAULT_FPS 30.0 /* the frame period without the rig's capture fps */
#define GAME__PLACE_FRAMES 10  /* a file's camera of several not placed by then is refused */

/* A file or image glob's full path: its folder resolved ("" if none). */
static void game__source_path(const char *spec, char *out, size_t cap)
{
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(spec, '/');
    out[0] = 0;
    if (realpath(spec, real)) {
        snprintf(out, cap, "%s", real);
        return;
    }
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - spec) : 1, slash ? spec : ".");
    if (realpath(dir, real))
        snprintf(out, cap, "%s/%s", real, slash ? slash + 1 : spec);
}

/* Two sources that are one: the same text, or files (image globs) in the
 * same folder by another way. */
static int game__same_source(const char *a, const char *b)
{
    if (!strcmp(a, b))
        return 1;
    char ra[PATH_MAX + 256], rb[PATH_MAX + 256];
    game__source_path(a, ra, sizeof ra);
    game__source_path(b, rb, sizeof rb);
    return ra[0] && !strcmp(ra, rb);
}

static tt_status game__two_sources(const game__cam *a, const game__cam *b, const char *what, tt_err *err)
{
    return tt_err_set(err, TT_ERR_ARG,
                      "%s and %s are both given the source %s: each camera needs its own source (one camera "
                      "cannot be two); give --source once per camera, in the rig's \"cameras\" order",
                      a->name, b->name, what);
}

/* Which source each camera reads: --source once per camera, or the rig's
 * own; checked: as many as cameras, no two the same. */
static tt_status game__cams_specs(game *g, tt_err *err)
{
    const calib_rig *rig = g->rig;
    int n = g->ncams, ns = g->o.nsources > 0 ? g->o.nsources : g->o.source ? 1 : 0;
    char names[1200] = "";
    size_t used = 0;
    for (int k = 0; k < n; k++) {
        if (n > 1)
            snprintf(g->cams[k].name, sizeof g->cams[k].name, "%s", rig->cameras[k].name);
        else
            snprintf(g->cams[k].name, sizeof g->cams[k].name, "the camera");
        if (used + 200 < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "", rig->cameras[k].name);
    }
    if (ns > 0 && ns != n) {
        if (n == 1)
            return tt_err_set(err, TT_ERR_ARG, "%s has one camera but %d --source were given: give one --source, or "
                              "list the cameras in the rig's \"cameras\"", g->o.rig, ns);
        return tt_err_set(err, TT_ERR_ARG, "%s has %d cameras (%s) but %d --source %s given: give --source once per "
                          "camera, in the rig's order (or none, to read each camera's \"source\" in the rig)",
                          g->o.rig, n, names, ns, ns == 1 ? "was" : "were");
    }
    for (int k = 0; k < n; k++) {
        game__cam *c = &g->cams[k];
        c->spec = ns == 0 ? rig->cameras[k].source : g->o.nsources > 0 ? g->o.sources[k] : g->o.source;
        if (!c->spec || !c->spec[0]) {
            if (n == 1)
                return tt_err_set(err, TT_ERR_ARG, "no --source given: give --source, the camera, video or image "
                                  "sequence to track");
            return tt_err_set(err, TT_ERR_ARG, "no --source given and %s has no \"source\" in %s: give --source once "
                              "per camera, in the rig's order, or a \"source\" to each of the rig's \"cameras\"",
                              c->name, g->o.rig);
        }
        for (int j = 0; j < k; j++)
            if (game__same_source(g->cams[j].spec, c->spec))
                return game__two_sources(&g->cams[j], c, c->spec, err);
    }
    return TT_OK;
}

/* Camera k's source opened, its controls locked, read ahead with --preload. */
static tt_status game__cam_open(game *g, int k, tt_err *err)
{
    game__cam *c = &g->cams[k];
    const calib_rig *rig = g->rig;
    vision_source_opts so = {rig->capture.width, rig->capture.height, rig->capture.fps, rig->capture.mjpeg};
    tt_status st = vision_source_open(c->spec, &so, &c->src, err);
    if (st != TT_OK) {
        if (g->ncams > 1)
            tt_err_prefix(err, "%s", c->name);
        return st;
    }
    c->is_camera = vision_source_get_kind(c->src) == VISION_SRC_CAMERA;
    c->can_stall = vision_source_can_stall(c->src);
    for (int j = 0; j < k && c->is_camera; j++) { /* usb:SERIAL and /dev/videoN may be one camera */
        const char *a = vision_source_device(g->cams[j].src), *b = vision_source_device(c->src);
        if (a && b && !strcmp(a, b))
            return game__two_sources(&g->cams[j], c, b, err);
    }
    if (c->is_camera) {
        vision_camera_controls cc = {rig->capture.exposure, rig->capture.focus, rig->capture.white_balance,
                                     rig->capture.gain};
        char skipped[128];
        tt_err e2 = {0};
        const char *who = g->ncams > 1 ? c->name : "this camera";
        if (vision_camera_lock(vision_source_device(c->src), &cc, skipped, sizeof skipped, &e2) != TT_OK)
            fprintf(stderr, "tabletrack track: warning: %s%s%s\n", g->ncams > 1 ? c->name : "", g->ncams > 1 ? ": " : "",
                    e2.msg);
        else if (skipped[0])
            fprintf(stderr, "tabletrack track: warning: %s has no manual %s control\n", who, skipped);
    }
    if (g->o.preload && (st = vision_source_preload(c->src, g->o.stop, g->o.progress, g->o.progress_user, err)) != TT_OK)
        return st;
    vision_tracker_opts to;
    vision_tracker_opts_default(&to);
    calib_rig_detector_opts(rig, &to.det);
    to.grace_frames = g->o.grace;
    to.threads = g->o.threads < 1 ? 1 : g->o.threads > 8 ? 8 : g->o.threads;
    return vision_tracker_create(&to, &c->trk, err);
}

tt_status game__cams_open(game *g, tt_err *err)
{
    tt_status st;
    g->ncams = g->rig->ncameras > 1 ? g->rig->ncameras : 1;
    if ((st = game__cams_specs(g, err)) != TT_OK)
        return st;
    for (int k = 0; k < g->ncams; k++) {
        if ((st = game__cam_open(g, k, err)) != TT_OK)
            return st;
        if (game__stopped(g))
            return tt_err_set(err, TT_ERR_ARG, "stopped before the game began");
    }
    return TT_OK;
}

tt_status game__cams_start(game *g, tt_err *err)
{
    tt_status st;
    double now = tt_mono_ms();
    for (int k = 0; k < g->ncams; k++) {
        g->cams[k].last_frame_at = now;
        if (!g->o.preload && (st = game__capture_start(&g->cams[k].cap, g->cams[k].src, g->cams[k].is_camera, err)) != TT_OK)
            return st;
    }
    return TT_OK;
}

int game__cams_lost(const game *g)
{
    for (int k = 0; k < g->ncams; k++)
        if (g->cams[k].lost)
            return 1;
    return 0;
}

/* Camera k is lost (VISION_LOST) or silent: say so, keep the game. */
static void game__cam_lost(game *g, int k, int silent, double quiet)
{
    game__cam *c = &g->cams[k];
    if (silent)
        fprintf(stderr, "tabletrack track: no frame from %s for %.0f ms: camera lost%s\n",
                g->ncams > 1 ? c->name : "the camera", quiet, g->ncams > 1 ? "; the other cameras go on" : "");
    else if (g->ncams > 1)
        fprintf(stderr, "tabletrack track: %s lost: the other cameras go on; waiting for it to come back\n", c->name);
    else
        fprintf(stderr, "tabletrack track: camera lost: keeping the game; waiting for it to come back\n");
    c->lost = 1;
    c->silent = silent;
    c->lost_at = silent ? c->last_frame_at + quiet : tt_mono_ms();
    c->retry_at = 0;
    c->gone_told = 0;
    game__set_camera(g, 1);
    game__camera_event(g, k, "lost");
    if (g->recording.recd && !g->recording.rec_failed) {
        tt_err e = {0};
        if (rec_flush(g->recording.recd, &e) != TT_OK)
            game__recorder_failed(g, &e);
    }
}

static void game__cam_back(game *g, int k)
{
    game__cam *c = &g->cams[k];
    if (g->ncams > 1)
        fprintf(stderr, "tabletrack track: %s back\n", c->name);
    else
        fprintf(stderr, "tabletrack track: camera back\n");
    c->lost = c->silent = 0;
    if (!game__cams_lost(g))
        game__set_camera(g, 0);
    game__camera_event(g, k, "back");
}

/* Lost cameras: tried again every GAME__RETRY_MS (a silent one's thread
 * still reads); gone longer than --camera-timeout: told once, and when
 * every camera is gone or ended, the game ends as Ctrl-C would. */
static tt_status game__cams_poll_lost(game *g, tt_err *err)
{
    double now = tt_mono_ms(), limit = g->o.camera_timeout_s * 1000.0;
    int gone = 0, alive = 0;
    for (int k = 0; k < g->ncams; k++) {
        game__cam *c = &g->cams[k];
        if (c->ended)
            continue;
        if (!c->lost) {
            alive++;
            continue;
        }
        if (!c->silent && now >= c->retry_at) {
            tt_err e2 = {0};
            c->retry_at = now + GAME__RETRY_MS;
            if (vision_source_reconnect(c->src, &e2) == TT_OK) {
                game__cam_back(g, k);
                c->last_frame_at = tt_mono_ms();
                tt_status st = g->o.preload ? TT_OK : game__capture_restart(&c->cap, err);
                if (st != TT_OK)
                    return st;
                alive++;
                continue;
            }
        }
        if (now - c->lost_at < limit) {
            alive++;
            continue;
        }
        gone++;
        if (!c->gone_told && g->ncams > 1)
            fprintf(stderr, "tabletrack track: %s has been gone for %d s (--camera-timeout)%s\n", c->name,
                    g->o.camera_timeout_s, alive || k + 1 < g->ncams ? ": the other cameras go on" : "");
        c->gone_told = 1;
    }
    if (gone && !alive) {
        if (g->ncams > 1)
            fprintf(stderr, "tabletrack track: every camera has been gone for %d s (--camera-timeout): ending the "
                            "game\n", g->o.camera_timeout_s);
        else
            fprintf(stderr, "tabletrack track: the camera has been gone for %d s (--camera-timeout): ending the game\n",
                    g->o.camera_timeout_s);
        game_request_stop(g);
    }
    return TT_OK;
}

/* One slot from camera k (threaded, or read here with --preload): 1 a
 * frame, 0 nothing yet, -1 an error (*st). */
static int game__cam_take(game *g, int k, int wait_ms, tt_status *st, tt_err *err)
{
    game__cam *c = &g->cams[k];
    game__slot s;
    memset(&s, 0, sizeof s);
    if (g->o.preload) {
        const tt_image *im = NULL;
        if ((*st = vision_source_next(c->src, &im, &s.t_ms, &s.status, err)) != TT_OK)
            return -1;
        s.arrived = tt_mono_ms();
        c->im = im;
    } else {
        tt_status cst = TT_OK;
        tt_err cerr = {0};
        int r = g->ncams > 1 && c->is_camera ? game__capture_take_newest(&c->cap, wait_ms, &s, &cst, &cerr)
                                             : game__capture_take(&c->cap, wait_ms, &s, &cst, &cerr);
        if (r < 0 && cst != TT_OK) {
            *err = cerr;
            *st = cst;
            if (g->ncams > 1)
                tt_err_prefix(err, "%s", c->name);
            return -1;
        }
        if (r < 0)
            s.status = VISION_END;
        else if (r == 0)
            return 0;
        c->slot = s;
        c->im = &c->slot.im;
    }
    if (s.status == VISION_FRAME) {
        c->have = 1;
        c->slot.t_ms = s.t_ms;
        c->slot.arrived = s.arrived;
        c->frames++;
        c->last_frame_at = tt_mono_ms();
        if (c->lost)
            game__cam_back(g, k);
        return 1;
    }
    tt_image_free(&c->slot.im);
    c->im = NULL;
    if (s.status == VISION_END)
        c->ended = 1;
    else if (s.status == VISION_LOST && !c->lost)
        game__cam_lost(g, k, 0, 0);
    else if (s.status == VISION_CORRUPT)
        c->skip = 1;
    return 0;
}

/* Whether camera k may give a frame this round: not yet, not ended, and not
 * lost (a silent one's thread still reads: its frames say it is back). */
static int game__cam_takes(const game *g, int k)
{
    const game__cam *c = &g->cams[k];
    return !c->have && !c->skip && !c->ended && (!c->lost || c->silent);
}

/* Whether camera k is still awaited this round. */
static int game__cam_waiting(const game *g, int k)
{
    return game__cam_takes(g, k) && !g->cams[k].lost;
}

/* Cameras quiet too long are lost (they may take longer for their first
 * frame: opening, exposure). */
static void game__cams_silence(game *g)
{
    for (int k = 0; k < g->ncams; k++) {
        game__cam *c = &g->cams[k];
        double quiet = c->frames ? GAME_CAMERA_SILENT_MS : GAME_CAMERA_FIRST_MS;
        if (c->can_stall && game__cam_waiting(g, k) && tt_mono_ms() - c->last_frame_at > quiet)
            game__cam_lost(g, k, 1, quiet);
    }
}

/* Live cameras: a frame older than the round's newest by more than one
 * frame period sits the round out (vision_frames_pair). */
static void game__cams_pair(game *g)
{
    double period = 1000.0 / (g->rig->capture.fps > 0 ? g->rig->capture.fps : GAME__DEFAULT_FPS);
    double t[CALIB_MAX_CAMERAS];
    int have[CALIB_MAX_CAMERAS], use[CALIB_MAX_CAMERAS];
    if (g->ncams < 2)
        return;
    for (int k = 0; k < g->ncams; k++) {
        have[k] = g->cams[k].have && g->cams[k].is_camera;
        t[k] = g->cams[k].slot.arrived;
    }
    vision_frames_pair(t, have, g->ncams, period, use);
    for (int k = 0; k < g->ncams; k++)
        if (have[k] && !use[k]) {
            g->cams[k].have = 0;
            tt_image_free(&g->cams[k].slot.im);
        }
}

game__round game__cams_round(game *g, tt_status *st, tt_err *err)
{
    double t0 = tt_mono_ms(), first_at = 0, period = 1000.0 / (g->rig->capture.fps > 0 ? g->rig->capture.fps : GAME__DEFAULT_FPS);
    *st = TT_OK;
    for (;;) {
        int waiting = 0, have = 0, live_waiting = 0, corrupt = 0;
        for (int k = 0; k < g->ncams; k++) {
            if (game__cam_takes(g, k) && game__cam_take(g, k, 0, st, err) < 0)
                return GAME__ROUND_ERROR;
            waiting += game__cam_waiting(g, k);
            live_waiting += game__cam_waiting(g, k) && g->cams[k].is_camera;
            have += g->cams[k].have;
            corrupt += g->cams[k].skip;
        }
        if (have && !first_at)
            first_at = tt_mono_ms();
        /* every camera in, or the live ones late by a frame period go without */
        if (have && (!waiting || (waiting == live_waiting && tt_mono_ms() - first_at > period))) {
            game__cams_pair(g);
            return GAME__ROUND_FRAMES;
        }
        if (corrupt && !have && !waiting)
            return GAME__ROUND_SKIP;
        /* every source ended, or the rest are lost: the game's source ended */
        int ended = 0, alive = 0;
        for (int k = 0; k < g->ncams; k++) {
            ended += g->cams[k].ended;
            alive += !g->cams[k].ended && !g->cams[k].lost;
        }
        if (ended && !alive)
            return GAME__ROUND_END;
        game__cams_silence(g);
        if ((*st = game__cams_poll_lost(g, err)) != TT_OK)
            return GAME__ROUND_ERROR;
        if (game__stopped(g) || tt_mono_ms() - t0 >= GAME__ROUND_MS)
            return GAME__ROUND_IDLE;
        /* wait on the first camera still awaited (files: until it comes) */
        int w = -1;
        for (int k = 0; k < g->ncams && w < 0; k++)
            if (game__cam_takes(g, k))
                w = k;
        if (w < 0 || g->o.preload)
            usleep(5000);
        else if (game__cam_take(g, w, g->ncams > 1 ? 5 : GAME__ROUND_MS, st, err) < 0)
            return GAME__ROUND_ERROR;
    }
}

void game__cams_release(game *g)
{
    for (int k = 0; k < g->ncams; k++) {
        tt_image_free(&g->cams[k].slot.im);
        g->cams[k].have = g->cams[k].skip = 0;
        g->cams[k].im = NULL;
    }
}

void game__cams_stop(game *g)
{
    for (int k = 0; k < g->ncams; k++)
        if (g->cams[k].cap.started)
            game__capture_stop(&g->cams[k].cap);
}

void game__cams_destroy(game *g)
{
    game__cams_stop(g);
    for (int k = 0; k < CALIB_MAX_CAMERAS; k++) {
        tt_image_free(&g->cams[k].slot.im);
        vision_tracker_destroy(g->cams[k].trk);
        vision_source_destroy(g->cams[k].src);
        g->cams[k].trk = NULL;
        g->cams[k].src = NULL;
    }
}

/* Camera k's frame against its camera.yaml, and its trackers' pass. */
static tt_status game__cam_update(game *g, int k, int frame_no, int *full, tt_err *err)
{
    game__cam *c = &g->cams[k];
    vision_tracker_stats vst;
    tt_status st = calib_rig_check_image(track_live_view(g->live, k), c->im->width, c->im->height, err);
    if (st == TT_OK && (st = vision_tracker_update(c->trk, c->im, frame_no, &c->tracks, &c->ntr, &vst, err)) == TT_OK) {
        *full = vst.full_frame;
        return TT_OK;
    }
    if (g->ncams > 1)
        tt_err_prefix(err, "%s", c->name);
    tt_err_prefix(err, "frame %d", frame_no);
    return st;
}

/* A camera of several not placed on the table: told once, naming the
 * anchors it sees; a file that has not placed it in GAME__PLACE_FRAMES
 * frames is refused (nothing of its part of the table could be read). */
static tt_status game__cams_placed(game *g, int *first, tt_err *err)
{
    for (int k = 0; k < g->ncams; k++) {
        game__cam *c = &g->cams[k];
        if (!c->have || track_live_pose_cam(g->live, k))
            continue;
        if (g->ncams == 1) {
            if (*first)
                fprintf(stderr, "tabletrack track: waiting for at least 2 anchor tags to be visible\n");
            continue;
        }
        char names[200], msg[TT_ERR_MSG_LEN];
        int n = track_live_anchors_seen(g->live, k, names, sizeof names);
        char seen[260];
        if (n == 0)
            snprintf(seen, sizeof seen, "no anchors");
        else
            snprintf(seen, sizeof seen, "only %d anchor%s (%s)", n, n == 1 ? "" : "s", names);
        snprintf(msg, sizeof msg,
                 "%s sees %s: each of several cameras needs at least %d anchors in its view to be placed on the "
                 "table; add anchors in its part of the table (and to the rig's \"anchors\") or turn it to see more",
                 c->name, seen, CALIB_FUSE_MIN_ANCHORS);
        if (!c->is_camera && c->frames >= GAME__PLACE_FRAMES)
            return tt_err_set(err, TT_ERR_ANCHORS, "%s", msg);
        if (!c->place_told && c->is_camera)
            fprintf(stderr, "tabletrack track: warning: %s; its part of the table waits for them\n", msg);
        c->place_told = 1;
    }
    *first = 0;
    return TT_OK;
}

tt_status game__cams_ended_unplaced(game *g, tt_err *err)
{
    for (int k = 0; k < g->ncams && g->ncams > 1; k++) {
        game__cam *c = &g->cams[k];
        if (c->frames > 0 && !c->is_camera && !track_live_pose_cam(g->live, k)) {
            c->have = 1; /* as if its last frame came: the same words */
            c->frames = GAME__PLACE_FRAMES;
            int first = 0;
            tt_status st = game__cams_placed(g, &first, err);
            c->have = 0;
            if (st != TT_OK)
                return st;
        }
    }
    return TT_OK;
}

/* Still figures two cameras see apart beyond their errors: a camera or an
 * anchor has moved; told once per pair of cameras. */
static void game__cams_conflicts(game *g)
{
    const calib_fuse_conflict *cf;
    int n = track_live_conflicts(g->live, &cf);
    for (int i = 0; i < n; i++) {
        unsigned char *told = &g->conflict_told[cf[i].cam_a][cf[i].cam_b];
        if (*told)
            continue;
        char msg[800];
        calib_fuse_conflict_message(g->rig, &cf[i], msg, sizeof msg);
        fprintf(stderr, "tabletrack track: warning: %s\n", msg);
        *told = 1;
    }
}

tt_status game__cams_track(game *g, int frame_no, int *first, const track_figure **figs, int *nf,
                           const track_event **evs, int *ne, tt_err *err)
{
    track_live_cam lc[CALIB_MAX_CAMERAS];
    int run[CALIB_MAX_CAMERAS], full[CALIB_MAX_CAMERAS] = {0}, posed = 0, any_full = 0;
    double t0 = tt_mono_ms();
    tt_status st;
    for (int k = 0; k < g->ncams; k++)
        run[k] = g->cams[k].have;
    for (int pass = 0; pass < 2; pass++) {
        int again_any = 0;
        for (int k = 0; k < g->ncams; k++) {
            int f = 0;
            if (run[k] && (st = game__cam_update(g, k, frame_no, &f, err)) != TT_OK)
                return st;
            if (pass == 0)
                full[k] = f;
            any_full |= f;
            lc[k] = (track_live_cam){g->cams[k].tracks, g->cams[k].ntr,
                                     run[k] ? TRACK_CAM_NEW : g->cams[k].have ? TRACK_CAM_SAME : TRACK_CAM_NONE};
        }
        /* the ground reads the scenario, which a viewer may replace meanwhile */
        pthread_mutex_lock(&g->mu);
        st = track_live_update_cams(g->live, frame_no, lc, figs, nf, evs, ne, &posed, err);
        pthread_mutex_unlock(&g->mu);
        if (st != TT_OK)
            return st;
        for (int k = 0; k < g->ncams; k++) {
            int again = 0;
            if (run[k] && (st = track_live_scale_update_cam(&g->cams[k].scale, g->live, k, g->cams[k].trk,
                                                            g->cams[k].im->width, g->cams[k].im->height, &again,
                                                            err)) != TT_OK)
                return st;
            run[k] = pass == 0 && again && full[k];
            again_any |= run[k];
        }
        if (!again_any)
            break;
    }
    for (int k = 0; k < g->ncams && g->ncams > 1; k++) { /* figures sliding into a camera's view */
        int rects[4 * VISION_TRACKER_MAX_LOOK];
        if (!g->cams[k].have)
            continue;
        int n = track_live_handoff(g->live, k, g->cams[k].im->width, g->cams[k].im->height, rects,
                                   VISION_TRACKER_MAX_LOOK);
        vision_tracker_look(g->cams[k].trk, rects, n);
    }
    if (any_full && g->stats.full_ms == 0)
        g->stats.full_ms = tt_mono_ms() - t0;
    game__cams_conflicts(g);
    return game__cams_placed(g, first, err);
}
