/* game.c - the live game loop (see game.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "game_internal.h"
#include "tt_json.h"
#include "usbcam.h"

int game__stopped(const game *g)
{
    return g->stop_req || (g->stop && *g->stop);
}

void game_request_stop(game *g)
{
    g->stop_req = 1;
}

void game_set_banner(game *g, const char *url)
{
    pthread_mutex_lock(&g->mu);
    free(g->proj.banner);
    g->proj.banner = url ? strdup(url) : NULL;
    g->dirty = 1;
    pthread_mutex_unlock(&g->mu);
}

/* The tracker maps figures at the height of the scenario's raised terrain
 * (the felt without a scenario): set at the start, and again after every
 * new scenario (mu held) so that every figure is mapped again. */
void game__ground(game *g)
{
    tt_ground gr = {game__ground_in, g};
    track_live_set_ground(g->live, &gr);
}

/* Open the recording and start a session holding the rig and scenario. */
static tt_status game__record_open(game *g, tt_err *err)
{
    json_t *rj = NULL;
    char *rig = NULL, *scen = NULL;
    tt_status st;
    if ((st = tt_json_load_file(g->o.rig, &rj, err)) != TT_OK)
        return st;
    /* which cameras the table had: the rig's "cameras", each with the
     * source it was read from; the session's source names them all */
    json_t *cams = json_object_get(rj, "cameras");
    char sources[4096] = "";
    size_t used = 0;
    for (int k = 0; k < g->ncams; k++) {
        if (used < sizeof sources)
            used += (size_t)snprintf(sources + used, sizeof sources - used, "%s%s", k ? "; " : "", g->cams[k].spec);
        if (g->ncams > 1 && json_is_object(json_array_get(cams, (size_t)k)))
            json_object_set_new(json_array_get(cams, (size_t)k), "source", json_string(g->cams[k].spec));
    }
    rig = json_dumps(rj, JSON_COMPACT);
    scen = g->sc.root ? json_dumps(g->sc.root, JSON_COMPACT) : NULL;
    char *projectors = game__projectors_json(g);
    rec_meta meta = {sources, g->o.note ? g->o.note : "tabletrack"};
    if ((st = rec_open(g->o.record, REC_APPEND, &g->recording.recd, err)) == TT_OK &&
        ((st = rec_session_begin(g->recording.recd, rig, scen, &meta, err)) != TT_OK ||
         (st = rec_session_projectors(g->recording.recd, projectors, err)) != TT_OK)) {
        rec_close(g->recording.recd, NULL);
        g->recording.recd = NULL;
    }
    free(rig);
    free(scen);
    free(projectors);
    json_decref(rj);
    return st;
}

#define GAME__CHECK_STOP()                                                                                         \
    do {                                                                                                           \
        if (game__stopped(g)) {                                                                                    \
            st = tt_err_set(err, TT_ERR_ARG, "stopped before the game began");                                   \
            goto fail;                                                                                             \
        }                                                                                                          \
    } while (0)

tt_status game_create(const game_opts *o, game **out, tt_err *err)
{
    tt_status st;
    *out = NULL;
    game *g = calloc(1, sizeof *g);
    if (!g)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    g->o = *o;
    g->stop = o->stop;
    g->figures.frame_no = -1;
    if (g->o.camera_timeout_s <= 0)
        g->o.camera_timeout_s = GAME_CAMERA_TIMEOUT_S;
    pthread_mutex_init(&g->mu, NULL);
    pthread_mutex_init(&g->picture.mu, NULL);
    pthread_mutex_init(&g->save_mu, NULL);
    game__feed_init(g);
    game__picks_init(&g->picks);

    if ((st = calib_rig_load(o->rig, &g->rig, err)) != TT_OK)
        goto fail;
    GAME__CHECK_STOP();
    /* Served, a scenario file that does not exist yet is made from the
     * table page: a new group starts from a bare rig. */
    if (o->scenario && o->serve && access(o->scenario, F_OK) != 0 && errno == ENOENT)
        fprintf(stderr, "tabletrack track: %s does not exist yet: the table starts empty; set it up on the page "
                        "(Set up, then Save) and it is written there\n", o->scenario);
    else if (o->scenario && (st = game__scenario_load(&g->sc, o->scenario, err)) != TT_OK)
        goto fail;
    table_scene_set_cite(g->sc.scene, o->cite);
    g->scenario_rev = g->sc.root != NULL;
    if ((st = overlay_list_create(&g->proj.list, err)) != TT_OK || (st = overlay_list_create(&g->proj.scratch, err)) != TT_OK)
        goto fail;
    if ((st = game__queries_from_opts(g, err)) != TT_OK || (st = game__referee_open(g, err)) != TT_OK)
        goto fail;
    if ((st = game__cams_open(g, err)) != TT_OK)
        goto fail;
    GAME__CHECK_STOP();
    if ((st = track_live_create(g->rig, NULL, &g->live, err)) != TT_OK)
        goto fail;
    game__ground(g);
    if (o->nprojectors > 0 && (st = game__projector_open(g, err)) != TT_OK)
        goto fail;
    GAME__CHECK_STOP();
    if (o->record && (st = game__record_open(g, err)) != TT_OK)
        goto fail;
    if (o->tuio && (st = track_tuio_create(o->tuio, g->rig->width_in, g->rig->depth_in, &g->tuio, err)) != TT_OK)
        goto fail;
    if (o->events) {
        if (!strcmp(o->events, "-"))
            g->ev = stdout;
        else if (!(g->ev = fopen(o->events, "w"))) {
            st = tt_err_set(err, TT_ERR_IO, "cannot write events file %s: %s", o->events, strerror(errno));
            goto fail;
        }
    }
    *out = g;
    return TT_OK;
fail:
    game_close(g, NULL);
    game_destroy(g);
    return st;
}

/* ---- one frame ---- */

static int game__event_text(char *buf, size_t cap, int frame, const track_event *e)
{
    char from[64] = "null", to[64] = "null";
    if (e->has_from)
        snprintf(from, sizeof from, "[%.4f,%.4f]", e->from[0], e->from[1]);
    if (e->has_to)
        snprintf(to, sizeof to, "[%.4f,%.4f]", e->to[0], e->to[1]);
    if (e->kind == TRACK_HEIGHT)
        return snprintf(buf, cap,
                        "{\"frame\":%d,\"event\":\"height\",\"family\":\"%s\",\"id\":%d,\"z_in\":%.2f,"
                        "\"ground_in\":%.2f,\"to\":%s}",
                        frame, e->family, e->id, e->z_in, e->ground_in, to);
    return snprintf(buf, cap, "{\"frame\":%d,\"event\":\"%s\",\"family\":\"%s\",\"id\":%d,\"from\":%s,\"to\":%s}",
                    frame, track_event_name(e->kind), e->family, e->id, from, to);
}

static void game__write_frame(game *g, int frame, double t_ms, const track_figure *figs, int n,
                              const track_event *evs, int ne)
{
    FILE *ev = g->ev;
    fprintf(ev, "{\"frame\":%d,\"t_ms\":%.1f,\"figures\":[", frame, t_ms);
    for (int i = 0; i < n; i++)
        fprintf(ev,
                "%s{\"family\":\"%s\",\"id\":%d,\"x\":%.4f,\"y\":%.4f,\"z_in\":%.2f,\"facing_deg\":%.2f,"
                "\"err95_in\":%.4f,\"z_err95_in\":%.3f,\"facing_err95_deg\":%.2f,\"state\":\"%s\"}",
                i ? "," : "", figs[i].family, figs[i].id, figs[i].x, figs[i].y, figs[i].z_in, figs[i].facing_deg,
                figs[i].err95_in, figs[i].z_err95_in, figs[i].facing_err95_deg, track_state_name(figs[i].state));
    fprintf(ev, "]}\n");
    for (int i = 0; i < ne; i++) {
        char line[512];
        game__event_text(line, sizeof line, frame, &evs[i]);
        fprintf(ev, "%s\n", line);
    }
}

void game__camera_event(game *g, int cam, const char *state)
{
    char line[512];
    if (g->ncams > 1) {
        json_t *name = json_string(g->cams[cam].name);
        char *nj = name ? json_dumps(name, JSON_ENCODE_ANY) : NULL;
        snprintf(line, sizeof line, "{\"frame\":%d,\"event\":\"camera\",\"state\":\"%s\",\"camera\":%d,\"name\":%s}",
                 g->figures.frame_no, state, cam, nj ? nj : "null");
        free(nj);
        json_decref(name);
    } else
        snprintf(line, sizeof line, "{\"frame\":%d,\"event\":\"camera\",\"state\":\"%s\"}", g->figures.frame_no,
                 state);
    if (g->ev) {
        fprintf(g->ev, "%s\n", line);
        fflush(g->ev);
    }
    if (g->o.feed) {
        char *d = strdup(line);
        if (d)
            game__feed_publish(g, "event", d);
    }
}

/* Every status_every_ms: what the tracker sees, for a run without outputs. */
static void game__status(game *g, const track_figure *figs, int nf)
{
    double now = tt_mono_ms();
    if (g->stats.status_at == 0)
        g->stats.status_at = g->stats.t_start;
    if (now - g->stats.status_at < g->o.status_every_ms)
        return;
    int n[3] = {0, 0, 0}; /* seen, occluded, lost */
    for (int i = 0; i < nf; i++)
        if (calib_rig_anchor_index(g->rig, figs[i].family, figs[i].id) < 0)
            n[figs[i].state == VISION_TAG_SEEN ? 0 : figs[i].state == VISION_TAG_OCCLUDED ? 1 : 2]++;
    double fps = (g->stats.frames - g->stats.status_frames) * 1000.0 / (now - g->stats.status_at);
    fprintf(stderr, "tabletrack track: frame %d, %.1f fps, %d figures seen, %d occluded, %d lost\n", g->figures.frame_no, fps,
            n[0], n[1], n[2]);
    g->stats.status_at = now;
    g->stats.status_frames = g->stats.frames;
}

static tt_status game__record_frame(game *g, int frame_no, double t_ms, const track_event *evs, int ne)
{
    if (!g->recording.recd || g->recording.rec_failed)
        return TT_OK;
    tt_err e = {0};
    if (g->figures.nfig > g->recording.recf_cap) { /* grows with the figures, kept from frame to frame */
        rec_figure *n = realloc(g->recording.recf, sizeof *n * (size_t)g->figures.nfig);
        if (!n)
            return TT_ERR_NOMEM;
        g->recording.recf = n;
        g->recording.recf_cap = g->figures.nfig;
    }
    rec_figure *rf = g->recording.recf;
    for (int i = 0; i < g->figures.nfig; i++) {
        const track_figure *f = &g->figures.figs[i];
        rf[i] = (rec_figure){f->family, f->id, f->x, f->y, f->facing_deg,
                             f->state == VISION_TAG_SEEN       ? REC_SEEN
                             : f->state == VISION_TAG_OCCLUDED ? REC_OCCLUDED
                                                               : REC_LOST,
                             f->z_in, f->err95_in, f->z_err95_in, f->facing_err95_deg};
    }
    tt_status st = rec_frame(g->recording.recd, frame_no, (long long)t_ms, rf, (size_t)g->figures.nfig, &e);
    for (int i = 0; st == TT_OK && i < ne; i++) {
        if (evs[i].kind == TRACK_HEIGHT) {
            st = rec_event_height(g->recording.recd, frame_no, (long long)t_ms, evs[i].family, evs[i].id,
                                  evs[i].has_to ? evs[i].to : NULL, evs[i].z_in, &e);
            continue;
        }
        rec_event_kind k = evs[i].kind == TRACK_MOVED      ? REC_EV_MOVED
                           : evs[i].kind == TRACK_APPEARED ? REC_EV_APPEARED
                                                           : REC_EV_REMOVED;
        st = rec_event(g->recording.recd, frame_no, (long long)t_ms, k, evs[i].family, evs[i].id,
                       evs[i].has_from ? evs[i].from : NULL, evs[i].has_to ? evs[i].to : NULL, &e);
    }
    if (st != TT_OK)
        game__recorder_failed(g, &e);
    return TT_OK;
}

/* Tags measuring below the felt mean a wrong rig: said once a game, naming
 * up to GAME__WARN_BELOW of them (the words of tabletrack locate's). */
#define GAME__WARN_BELOW 3
static void game__warn_below(game *g, const track_figure *figs, int n)
{
    int below = 0;
    for (int i = 0; i < n && !g->figures.below_warned; i++) {
        if (!(figs[i].below_felt_in > 0))
            continue;
        if (++below > GAME__WARN_BELOW)
            continue;
        calib_figure cf = {.id = figs[i].id, .height = CALIB_HEIGHT_BELOW, .measured_in = -figs[i].below_felt_in};
        char name[32], msg[512];
        snprintf(name, sizeof name, "tag %d", figs[i].id);
        if (calib_height_warning(&cf, name, 0, 0, g->rig->base_size_in, msg, sizeof msg))
            fprintf(stderr, "tabletrack track: %s\n", msg);
    }
    if (below > GAME__WARN_BELOW)
        fprintf(stderr, "tabletrack track: %d more tags measure below the felt\n", below - GAME__WARN_BELOW);
    g->figures.below_warned |= below > 0;
}

/* Draw after a change that came without a frame (a question asked, a new
 * scenario, the source ended): mu held. */
static tt_status game__redraw(game *g, tt_err *err)
{
    g->dirty = 0;
    tt_status st = game__answer_and_draw(g, g->figures.frame_no < 0 ? 0 : g->figures.frame_no, (long long)g->figures.t_ms, err);
    game__publish_state(g, 1);
    return st;
}

static void game__window_events(game *g);

/* One round: the cameras' frames (game__cams_round) tracked, mapped and
 * fused into the figures, then the answers, recording and feed.  Camera
 * 0's frame, when the caller's to give away (the capture thread's copy),
 * is kept for the table picture. */
static tt_status game__frame(game *g, int frame_no, double t_ms, double arrived, int *first, tt_err *err)
{
    tt_status st;
    const track_figure *figs = NULL;
    const track_event *evs = NULL;
    int nf = 0, ne = 0;
    if ((st = game__cams_track(g, frame_no, first, &figs, &nf, &evs, &ne, err)) != TT_OK)
        return st;
    game__warn_below(g, figs, nf);
    if (g->ev)
        game__write_frame(g, frame_no, t_ms, figs, nf, evs, ne);
    if (g->tuio && (st = track_tuio_send(g->tuio, frame_no, t_ms, figs, nf, err)) != TT_OK)
        return st;

    pthread_mutex_lock(&g->mu);
    if (nf > g->figures.figcap) {
        track_figure *n = realloc(g->figures.figs, sizeof *n * (size_t)nf);
        if (!n) {
            pthread_mutex_unlock(&g->mu);
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        }
        g->figures.figs = n;
        g->figures.figcap = nf;
    }
    if (nf)
        memcpy(g->figures.figs, figs, sizeof *figs * (size_t)nf);
    g->figures.nfig = nf;
    g->figures.frame_no = frame_no;
    g->figures.t_ms = t_ms;
    for (int k = 0; k < g->ncams && g->o.feed; k++) { /* keep the frames for the table picture */
        const tt_image *im = g->cams[k].have ? g->cams[k].im : NULL;
        tt_image *last = &g->figures.last_im[k];
        if (!im)
            continue;
        tt_image_free(last);
        if (im == &g->cams[k].slot.im) {
            *last = g->cams[k].slot.im;
            memset(&g->cams[k].slot.im, 0, sizeof g->cams[k].slot.im);
        } else if (tt_image_alloc(last, im->width, im->height, 1, NULL) == TT_OK)
            for (int y = 0; y < im->height; y++)
                memcpy(last->data + (size_t)y * last->stride, im->data + (size_t)y * im->stride, (size_t)im->width);
    }
    for (int k = 0; k < g->ncams; k++) {
        const calib_pose *pose = track_live_pose_cam(g->live, k);
        if (pose) {
            g->figures.pose[k] = *pose;
            g->figures.have_pose[k] = 1;
            g->figures.pose_solves[k] = track_live_pose_solves_cam(g->live, k);
        }
    }
    g->dirty = 0;
    st = game__answer_and_draw(g, frame_no, (long long)t_ms, err);
    if (st == TT_OK)
        st = game__record_frame(g, frame_no, t_ms, evs, ne);
    if (st == TT_OK && g->refr) {
        double r0 = tt_mono_ms();
        st = game__referee_frame(g, frame_no, figs, nf, evs, ne, err);
        g->stats.referee_ms += tt_mono_ms() - r0;
    }
    game__publish_state(g, 0);
    for (int i = 0; g->o.feed && i < ne; i++) {
        char line[512];
        game__event_text(line, sizeof line, frame_no, &evs[i]);
        char *d = strdup(line);
        if (d)
            game__feed_publish(g, "event", d);
    }
    pthread_mutex_unlock(&g->mu);
    if (st != TT_OK)
        return st;
    game__window_events(g);

    for (int i = 0; i < nf; i++) {
        g->stats.seen_sum += figs[i].state == VISION_TAG_SEEN;
        g->stats.known_sum += figs[i].state != VISION_TAG_LOST;
    }
    if (g->stats.frames == g->stats.latcap) {
        int cap = g->stats.latcap ? g->stats.latcap * 2 : 1024;
        double *nl = realloc(g->stats.lat, sizeof *nl * (size_t)cap);
        if (!nl)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        g->stats.lat = nl;
        g->stats.latcap = cap;
    }
    g->stats.lat[g->stats.frames++] = tt_mono_ms() - arrived;
    if (g->o.status_every_ms > 0)
        game__status(g, figs, nf);
    return TT_OK;
}

/* Keys in the projector window: Esc twice ends the game (a bumped key
 * must not), F full screen on/off, H hide the drawing; closing the window
 * leaves the game going without it. */
static void game__window_events(game *g)
{
    for (int k = 0; k < g->proj.n; k++) {
        overlay_window **win = &g->proj.out[k].win;
        overlay_window_event we;
        while (*win && (we = overlay_window_poll(*win)) != OVERLAY_WIN_NONE) {
            if (we == OVERLAY_WIN_CLOSED) {
                if (g->proj.n > 1)
                    fprintf(stderr, "tabletrack track: projector %d's window (%s) was closed; the game goes on "
                                    "without it (stop with Ctrl-C)\n", k + 1, g->o.projectors[k]);
                else
                    fprintf(stderr, "tabletrack track: the projector window was closed; the game goes on without "
                                    "it (stop with Ctrl-C)\n");
                overlay_window_close(*win);
                *win = NULL;
            } else if (we == OVERLAY_WIN_ESC) {
                double now = tt_mono_ms();
                if (g->proj.esc_at > 0 && now - g->proj.esc_at <= 2000) {
                    fprintf(stderr, "tabletrack track: Esc pressed twice: ending the game\n");
                    game_request_stop(g);
                } else
                    fprintf(stderr, "tabletrack track: press Esc again within 2 seconds to end the game\n");
                g->proj.esc_at = now;
            } else if (we == OVERLAY_WIN_KEY_F)
                overlay_window_toggle_fullscreen(*win);
            else if (we == OVERLAY_WIN_KEY_H) {
                pthread_mutex_lock(&g->mu);
                g->proj.hidden = !g->proj.hidden;
                g->dirty = 1;
                pthread_mutex_unlock(&g->mu);
            }
        }
    }
}

tt_status game__idle(game *g, tt_err *err)
{
    tt_status st = TT_OK;
    game__window_events(g);
    pthread_mutex_lock(&g->mu);
    if (game__picks_expire(&g->picks))
        g->dirty = 1;
    if (g->dirty)
        st = game__redraw(g, err);
    else
        game__feed_flush(g);
    pthread_mutex_unlock(&g->mu);
    return st;
}

void game__set_camera(game *g, int state)
{
    pthread_mutex_lock(&g->mu);
    g->figures.camera_state = state;
    g->dirty = 1;
    pthread_mutex_unlock(&g->mu);
}

tt_status game_run(game *g, tt_err *err)
{
    tt_status st = TT_OK;
    int first = 1, frame_no = 0, source_ended = 0;
    if ((st = game__cams_start(g, err)) != TT_OK)
        return st;
    g->stats.t_start = tt_mono_ms();
    for (;;) {
        if (game__stopped(g) || (g->o.max_frames >= 0 && g->stats.frames >= g->o.max_frames))
            break;
        game__round r = game__cams_round(g, &st, err);
        if (r == GAME__ROUND_ERROR)
            goto out;
        if (r == GAME__ROUND_END) {
            source_ended = 1;
            break;
        }
        if (r == GAME__ROUND_IDLE) {
            if ((st = game__idle(g, err)) != TT_OK)
                goto out;
            continue;
        }
        if (r == GAME__ROUND_SKIP) {
            game__cams_release(g);
            frame_no++;
            continue;
        }
        /* Latency runs from the moment a camera delivered the frame; a file
         * is read ahead of time, so from when it is taken up.  The round's
         * time is its newest frame's. */
        double arrived = tt_mono_ms(), t_ms = 0;
        for (int k = 0, n = 0, nlive = 0; k < g->ncams; k++) {
            const game__cam *c = &g->cams[k];
            if (!c->have)
                continue;
            if (c->is_camera && (!nlive++ || c->slot.arrived < arrived))
                arrived = c->slot.arrived;
            if (!n++ || c->slot.t_ms > t_ms)
                t_ms = c->slot.t_ms;
        }
        st = game__frame(g, frame_no, t_ms, arrived, &first, err);
        game__cams_release(g);
        if (st != TT_OK)
            goto out;
        frame_no++;
    }
    g->stats.wall_ms = tt_mono_ms() - g->stats.t_start;
    if (source_ended && (st = game__cams_ended_unplaced(g, err)) != TT_OK)
        goto out;
    /* The source ended: with a server, the table stays up with the last
     * state until the game is stopped. */
    if (source_ended && g->o.serve) {
        game__set_camera(g, 2);
        if (g->ev)
            fflush(g->ev);
        while (!game__stopped(g)) {
            if ((st = game__idle(g, err)) != TT_OK)
                goto out;
            usleep(20000);
        }
    }
out:
    if (!g->stats.wall_ms)
        g->stats.wall_ms = tt_mono_ms() - g->stats.t_start;
    game__feed_end(g);
    game__cams_stop(g);
    return st;
}

static int game__cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void game_get_stats(game *g, game_stats *s)
{
    memset(s, 0, sizeof *s);
    s->frames = g->stats.frames;
    if (g->stats.frames > 1)
        qsort(g->stats.lat, (size_t)g->stats.frames, sizeof *g->stats.lat, game__cmpd);
    if (g->stats.frames) {
        s->latency_ms_p50 = g->stats.lat[g->stats.frames / 2];
        s->latency_ms_p95 = g->stats.lat[(int)ceil(0.95 * g->stats.frames) - 1];
    }
    s->fps = g->stats.wall_ms > 0 ? g->stats.frames * 1000.0 / g->stats.wall_ms : 0;
    s->tracked_ratio = g->stats.known_sum ? (double)g->stats.seen_sum / g->stats.known_sum : 0;
    s->full_frame_ms = g->stats.full_ms;
    s->wall_ms = g->stats.wall_ms;
    s->referee_ms = g->stats.referee_ms;
    for (int k = 0; k < g->ncams; k++)
        s->corrupt_frames += g->cams[k].src ? vision_source_corrupt_count(g->cams[k].src) : 0;
}

tt_status game_close(game *g, tt_err *err)
{
    tt_status st = TT_OK;
    if (!g)
        return TT_OK;
    if (g->ev) {
        if (fflush(g->ev) != 0 && st == TT_OK)
            st = tt_err_set(err, TT_ERR_IO, "cannot write the events file %s: %s", g->o.events, strerror(errno));
        if (g->ev != stdout)
            fclose(g->ev);
        g->ev = NULL;
    }
    if (g->recording.recd) {
        tt_err e2 = {0};
        if (rec_close(g->recording.recd, &e2) != TT_OK && st == TT_OK)
            st = tt_err_set(err, TT_ERR_IO, "%s", e2.msg);
        g->recording.recd = NULL;
    }
    if (g->recording.rec_failed && st == TT_OK)
        st = tt_err_set(err, TT_ERR_IO, "the recording %s stopped during the game: %s", g->o.record, g->recording.rec_err.msg);
    return st;
}

void game_destroy(game *g)
{
    if (!g)
        return;
    game__cams_stop(g);
    if (g->ev && g->ev != stdout)
        fclose(g->ev);
    if (g->recording.recd)
        rec_close(g->recording.recd, NULL);
    game__queries_free(g);
    game__referee_close(g);
    game__picks_free(&g->picks);
    game__scenario_free(&g->sc);
    game__projector_close(g);
    overlay_list_destroy(g->proj.list);
    overlay_list_destroy(g->proj.scratch);
    track_tuio_destroy(g->tuio);
    track_live_destroy(g->live);
    game__cams_destroy(g);
    calib_rig_destroy(g->rig);
    for (int k = 0; k < CALIB_MAX_CAMERAS; k++)
        tt_image_free(&g->figures.last_im[k]);
    game__table_free(g);
    game__feed_free(g);
    free(g->figures.figs);
    free(g->recording.recf);
    free(g->stats.lat);
    free(g->proj.banner);
    pthread_mutex_destroy(&g->picture.mu);
    pthread_mutex_destroy(&g->save_mu);
    pthread_mutex_destroy(&g->mu);
    free(g);
}
