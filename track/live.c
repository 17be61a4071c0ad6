/* live.c - see live.h. */
#include "live.h"

#include "phantom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One camera's view of a figure: its last mapping in that camera. */
typedef struct live__sight {
    double x, y, facing, z;
    int mapped;
    calib_height height;
    double ground;         /* the ground's height under it */
    calib_figure last;     /* its last mapping, with its errors (calib_figure_average) */
    double zsum;           /* measured heights while still */
    int zn;
    vision_tag_state state; /* the camera's tracker's, at its last update */
    int listed;             /* the update (l->stamp) that last listed it in this camera's tracks */
} live__sight;

typedef struct live__fig {
    char family[VISION_FAMILY_LEN];
    int id;
    live__sight cam[CALIB_MAX_CAMERAS];
    int listed;            /* the update that last listed it in any camera's tracks */
    int has_out;           /* out holds where it was last reported */
    track_figure out;
    int best;              /* the camera whose sighting weighs most in out */
    double warned_z;       /* the height last told in a height event */
    int warned;
    vision_tag_state state;
    double settled[2];
    int has_settled;
    double still_ref[2];
    int still;
} live__fig;

/* One camera: its view of the rig and its pose. */
typedef struct live__cam {
    calib_rig *view;
    calib_pose pose;
    int posed, solves;
    int remap;             /* map every figure again (a new ground) */
    int nanchors;          /* distinct anchors seen in its last new frame */
    char anchors[200];     /* their names */
} live__cam;

struct track_live {
    const calib_rig *rig;
    track_live_opts o;
    live__cam cam[CALIB_MAX_CAMERAS];
    int ncams, stamp;
    live__fig *f;
    int nf, capf;
    track_figure *out;
    int capout;
    live__fig **order; /* this update's figures, sorted */
    int nlisted;
    int caporder;
    track_event *ev;
    int nev, capev;
    vision_detections tmp;
    int captmp;
    tt_ground ground;
    int has_ground;
    calib_fuse_conflict *conf;
    int nconf, capconf;
};

void track_live_opts_default(track_live_opts *o)
{
    o->move_threshold_in = 0.1;
    o->still_in = 0.02;
    o->settle_frames = 5;
    o->pose_check_px = 2.5;
    o->no_errors = 0;
}

const char *track_state_name(vision_tag_state s)
{
    return s == VISION_TAG_SEEN ? "seen" : s == VISION_TAG_OCCLUDED ? "occluded" : "lost";
}

const char *track_event_name(track_event_kind k)
{
    return k == TRACK_MOVED ? "moved" : k == TRACK_APPEARED ? "appeared" : k == TRACK_REMOVED ? "removed" : "height";
}

tt_status track_live_create(const calib_rig *rig, const track_live_opts *opts, track_live **out, tt_err *err)
{
    track_live *l = calloc(1, sizeof *l);
    *out = NULL;
    if (!l)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    l->rig = rig;
    l->ncams = rig->ncameras > 1 ? rig->ncameras : 1;
    if (l->ncams > CALIB_MAX_CAMERAS)
        l->ncams = CALIB_MAX_CAMERAS;
    for (int k = 0; k < l->ncams; k++) {
        if (!(l->cam[k].view = malloc(sizeof *l->cam[k].view))) {
            track_live_destroy(l);
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        }
        calib_rig_view(rig, rig->ncameras > 1 ? k : -1, l->cam[k].view);
    }
    if (opts)
        l->o = *opts;
    else
        track_live_opts_default(&l->o);
    *out = l;
    return TT_OK;
}

void track_live_destroy(track_live *l)
{
    if (!l)
        return;
    for (int k = 0; k < CALIB_MAX_CAMERAS; k++)
        free(l->cam[k].view);
    free(l->f);
    free(l->out);
    free(l->order);
    free(l->ev);
    free(l->tmp.items);
    free(l->conf);
    free(l);
}

void track_live_set_ground(track_live *l, const tt_ground *g)
{
    l->has_ground = g && g->height_at;
    if (l->has_ground)
        l->ground = *g;
    for (int k = 0; k < l->ncams; k++)
        l->cam[k].remap = 1;
}

const calib_pose *track_live_pose(const track_live *l)
{
    return track_live_pose_cam(l, 0);
}

int track_live_pose_solves(const track_live *l)
{
    return track_live_pose_solves_cam(l, 0);
}

const calib_pose *track_live_pose_cam(const track_live *l, int k)
{
    return l && k >= 0 && k < l->ncams && l->cam[k].posed ? &l->cam[k].pose : NULL;
}

int track_live_pose_solves_cam(const track_live *l, int k)
{
    return l && k >= 0 && k < l->ncams ? l->cam[k].solves : 0;
}

const calib_rig *track_live_view(const track_live *l, int k)
{
    return l && k >= 0 && k < l->ncams ? l->cam[k].view : NULL;
}

int track_live_anchors_seen(const track_live *l, int k, char *names, size_t cap)
{
    if (!l || k < 0 || k >= l->ncams) {
        if (names && cap)
            names[0] = 0;
        return 0;
    }
    if (names && cap)
        snprintf(names, cap, "%s", l->cam[k].anchors);
    return l->cam[k].nanchors;
}

int track_live_conflicts(const track_live *l, const calib_fuse_conflict **c)
{
    *c = l->conf;
    return l->nconf;
}

static tt_status live__tmp_reserve(track_live *l, int n, tt_err *err)
{
    if (n <= l->captmp)
        return TT_OK;
    vision_detection *d = realloc(l->tmp.items, sizeof *d * (size_t)n);
    if (!d)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    l->tmp.items = d;
    l->captmp = n;
    return TT_OK;
}

static tt_status live__event(track_live *l, track_event_kind k, const live__fig *f, const double *from,
                             const double *to, tt_err *err)
{
    if (l->nev == l->capev) {
        int nc = l->capev ? l->capev * 2 : 16;
        track_event *e = realloc(l->ev, sizeof *e * (size_t)nc);
        if (!e)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        l->ev = e;
        l->capev = nc;
    }
    track_event *e = &l->ev[l->nev++];
    memset(e, 0, sizeof *e);
    e->kind = k;
    memcpy(e->family, f->family, sizeof e->family);
    e->id = f->id;
    if (from) {
        e->from[0] = from[0];
        e->from[1] = from[1];
        e->has_from = 1;
    }
    if (to) {
        e->to[0] = to[0];
        e->to[1] = to[1];
        e->has_to = 1;
    }
    return TT_OK;
}

/* A settled figure whose averaged measured height (its best camera's) is
 * off the ground: a "height" event when it settles, and again if that
 * average moves by more than half an inch. */
static tt_status live__height(track_live *l, live__fig *f, const double pos[2], int settled, tt_err *err)
{
    const live__sight *s = &f->cam[f->best];
    if (settled)
        f->warned = 0;
    if (s->zn == 0 || s->height == CALIB_HEIGHT_BELOW || s->height == CALIB_HEIGHT_SLOPE)
        return TT_OK;
    double z = s->zsum / s->zn;
    /* beyond its averaged error (calib_height): a correct rig's noise is none */
    double sig = s->last.measured_err95_in / 1.96 / sqrt((double)s->zn), gs = CALIB_GROUND_Z95_IN / 1.96;
    if (fabs(z - s->ground) <= CALIB_SURE_SIGMAS * sqrt(sig * sig + gs * gs) ||
        (f->warned && fabs(z - f->warned_z) <= 0.5))
        return TT_OK;
    tt_status st = live__event(l, TRACK_HEIGHT, f, NULL, pos, err);
    if (st != TT_OK)
        return st;
    l->ev[l->nev - 1].z_in = z > 0 ? z : 0;
    l->ev[l->nev - 1].ground_in = s->ground;
    f->warned = 1;
    f->warned_z = z;
    return TT_OK;
}

/* Camera k: re-solve its pose if it has none yet, or a fresh anchor
 * disagrees with it.  One camera needs 2 anchors; each of several needs
 * CALIB_FUSE_MIN_ANCHORS (as locate and check). */
static tt_status live__pose(track_live *l, int k, const vision_track *tr, int n, int *resolved, tt_err *err)
{
    live__cam *c = &l->cam[k];
    int nseen = 0, disagree = 0;
    tt_status st;
    *resolved = 0;
    if ((st = live__tmp_reserve(l, n + 1, err)) != TT_OK)
        return st;
    l->tmp.count = 0;
    for (int i = 0; i < n; i++) {
        const vision_track *t = &tr[i];
        int a = calib_rig_anchor_index(l->rig, t->det.family, t->det.id);
        if (a < 0 || t->state != VISION_TAG_SEEN)
            continue;
        l->tmp.items[l->tmp.count++] = t->det;
        nseen++;
        if (c->posed && t->fresh && !disagree) {
            const calib_anchor *an = &l->rig->anchors[a];
            double h = an->size_in / 2, xy[8] = {an->x - h, an->y + h, an->x + h, an->y + h,
                                                 an->x + h, an->y - h, an->x - h, an->y - h};
            double px[8];
            if (calib_project(&c->view->camera, &c->pose, xy, 4, 0, px, NULL) == TT_OK)
                for (int q = 0; q < 4; q++)
                    if (hypot(px[2 * q] - t->det.corners[q][0], px[2 * q + 1] - t->det.corners[q][1]) >
                        l->o.pose_check_px)
                        disagree = 1;
        }
    }
    if (l->ncams > 1)
        c->nanchors = calib_fuse_anchors_seen(l->rig, &l->tmp, c->anchors, sizeof c->anchors);
    int need = l->ncams > 1 ? CALIB_FUSE_MIN_ANCHORS : 2;
    if ((c->posed && !disagree) || (l->ncams > 1 ? c->nanchors : nseen) < need)
        return TT_OK;
    calib_pose p;
    tt_err e2 = {0};
    if (calib_pose_solve(c->view, &l->tmp, &p, &e2) != TT_OK)
        return TT_OK; /* keep the last good pose */
    c->pose = p;
    c->posed = 1;
    c->solves++;
    *resolved = 1;
    return TT_OK;
}

static live__fig *live__fig_find(track_live *l, const char *family, int id)
{
    for (int i = 0; i < l->nf; i++)
        if (l->f[i].id == id && !strcmp(l->f[i].family, family))
            return &l->f[i];
    return NULL;
}

static live__fig *live__fig_get(track_live *l, const vision_detection *d, tt_err *err)
{
    live__fig *f = live__fig_find(l, d->family, d->id);
    if (f)
        return f;
    if (l->nf == l->capf) {
        int nc = l->capf ? l->capf * 2 : 64;
        live__fig *nf = realloc(l->f, sizeof *nf * (size_t)nc);
        if (!nf) {
            tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            return NULL;
        }
        l->f = nf;
        l->capf = nc;
    }
    f = &l->f[l->nf++];
    memset(f, 0, sizeof *f);
    memcpy(f->family, d->family, sizeof f->family);
    f->id = d->id;
    f->state = VISION_TAG_LOST;
    for (int k = 0; k < CALIB_MAX_CAMERAS; k++)
        f->cam[k].state = VISION_TAG_LOST;
    return f;
}

/* Camera k's new frame: its pose, then the base tags it measured this
 * frame (all of them after a new pose or ground) mapped in one batch into
 * each figure's sighting k. */
static tt_status live__map_cam(track_live *l, int k, const vision_track *tr, int n, int is_new, tt_err *err)
{
    live__cam *c = &l->cam[k];
    int resolved = 0;
    tt_status st;
    if (is_new && (st = live__pose(l, k, tr, n, &resolved, err)) != TT_OK)
        return st;
    if (!c->posed)
        return TT_OK;
    if ((st = live__tmp_reserve(l, n + 1, err)) != TT_OK)
        return st;
    l->tmp.count = 0;
    for (int i = 0; i < n; i++) {
        if (!calib_rig_is_base_tag(l->rig, tr[i].det.family, tr[i].det.id))
            continue;
        live__fig *f = live__fig_get(l, &tr[i].det, err);
        if (!f)
            return TT_ERR_NOMEM;
        if ((is_new && (tr[i].fresh || resolved || c->remap)) || !f->cam[k].mapped)
            l->tmp.items[l->tmp.count++] = tr[i].det;
    }
    if (is_new)
        c->remap = 0;
    calib_figure *cf = NULL;
    int ncf = 0;
    calib_locate_opts lo = {l->o.no_errors};
    if (l->tmp.count && (st = calib_locate_ground_opts(c->view, &c->pose, &l->tmp, l->has_ground ? &l->ground : NULL,
                                                       &lo, &cf, &ncf, err)) != TT_OK)
        return st;
    double measured_size;
    if (calib_size_suspect(c->view, &c->pose, cf, ncf, &measured_size)) {
        /* a wrong bases.size_in: every position would be off; said once, not blamed on hills */
        char msg[TT_ERR_MSG_LEN];
        calib_size_message(l->rig, measured_size, msg, sizeof msg);
        free(cf);
        return tt_err_set(err, TT_ERR_MISMATCH, "%s", msg);
    }
    for (int i = 0; i < ncf; i++) {
        live__fig *f = live__fig_get(l, &l->tmp.items[cf[i].det_index], err);
        if (!f) {
            free(cf);
            return TT_ERR_NOMEM;
        }
        if (!isfinite(cf[i].x) || !isfinite(cf[i].y) ||
            calib_phantom(c->view, &l->tmp.items[cf[i].det_index], cf[i].x, cf[i].y) != CALIB_NOT_PHANTOM)
            continue; /* a phantom is no figure: never mapped, never out */
        live__sight *s = &f->cam[k];
        /* a fresh measurement where it stood still joins the average */
        if (!s->mapped || hypot(cf[i].x - s->x, cf[i].y - s->y) > l->o.still_in) {
            s->zsum = 0;
            s->zn = 0;
        }
        if (cf[i].measured) {
            s->zsum += cf[i].measured_in;
            s->zn++;
        }
        s->x = cf[i].x;
        s->y = cf[i].y;
        s->facing = cf[i].facing_deg;
        s->z = cf[i].z_in;
        s->height = cf[i].height;
        s->ground = cf[i].ground_in;
        s->last = cf[i];
        s->mapped = 1;
    }
    free(cf);
    return TT_OK;
}

/* Sighting k as a figure: its place, its height averaged while still, its
 * errors shrunk by that average (with the error model on). */
static calib_figure live__sight_figure(const live__sight *s, int no_errors)
{
    calib_figure e = s->last;
    if (!no_errors)
        calib_figure_average(&e, s->zn);
    e.x = s->x;
    e.y = s->y;
    e.facing_deg = s->facing;
    /* off its ground at its own height: that height averaged (not one
     * below its declared ground and placed on the felt, calib_locate) */
    e.z_in = s->height == CALIB_HEIGHT_OFF && s->z > 0 && s->zn > 0 && s->zsum > 0 ? s->zsum / s->zn : s->z;
    return e;
}

static tt_status live__conflicts_add(track_live *l, const calib_fuse_result *r, tt_err *err)
{
    for (int i = 0; i < r->nconflicts; i++) {
        if (l->nconf == l->capconf) {
            int nc = l->capconf ? 2 * l->capconf : 8;
            calib_fuse_conflict *p = realloc(l->conf, sizeof *p * (size_t)nc);
            if (!p)
                return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            l->conf = p;
            l->capconf = nc;
        }
        l->conf[l->nconf++] = r->conflicts[i];
    }
    return TT_OK;
}

/* Where figure f is now and how sure, from the cameras in use (bit k of
 * use): one sighting as it is, several fused (calib_fuse). */
static tt_status live__place(track_live *l, live__fig *f, unsigned use, tt_err *err)
{
    calib_figure e[CALIB_MAX_CAMERAS];
    const calib_figure *figs[CALIB_MAX_CAMERAS];
    int nfigs[CALIB_MAX_CAMERAS], m = 0, only = 0;
    for (int k = 0; k < l->ncams; k++) {
        nfigs[k] = use >> k & 1u;
        figs[k] = nfigs[k] ? &e[k] : NULL;
        if (nfigs[k]) {
            e[k] = live__sight_figure(&f->cam[k], l->o.no_errors);
            m++;
            only = k;
        }
    }
    if (!m) /* no camera in use: nothing to place (live__fuse_fig keeps it where it was) */
        return TT_OK;
    calib_figure fused = e[only];
    f->best = only;
    calib_fuse_result r = {0};
    if (m > 1) {
        tt_status st = calib_fuse(figs, nfigs, l->ncams, &r, err);
        if (st == TT_OK && r.n == 1) {
            fused = r.figs[0];
            f->best = r.best_cam[0];
            /* a still figure only: a moving one may be seen at two moments */
            if (f->still >= l->o.settle_frames)
                st = live__conflicts_add(l, &r, err);
        }
        calib_fuse_result_free(&r);
        if (st != TT_OK)
            return st;
    }
    const live__sight *b = &f->cam[f->best];
    track_figure *o = &f->out;
    memcpy(o->family, f->family, sizeof o->family);
    o->id = f->id;
    o->x = fused.x;
    o->y = fused.y;
    o->facing_deg = fused.facing_deg;
    o->z_in = fused.z_in;
    o->err95_in = fused.err95_in;
    o->z_err95_in = fused.z_err95_in;
    o->facing_err95_deg = fused.facing_err95_deg;
    o->below_felt_in = b->height == CALIB_HEIGHT_BELOW && b->zn > 0 ? fmax(0, -b->zsum / b->zn) : 0;
    o->seen_by = use;
    f->has_out = 1;
    return TT_OK;
}

/* Figure f's state from the cameras with a frame this update (the best
 * any gives it, from the cameras that map it) and its place from those
 * cameras; 0 when it has nothing to report yet. */
static tt_status live__fuse_fig(track_live *l, live__fig *f, const track_live_cam *cams, int *report, tt_err *err)
{
    unsigned use = 0;
    vision_tag_state best = VISION_TAG_LOST;
    int any = 0;
    *report = 0;
    for (int k = 0; k < l->ncams; k++) {
        const live__sight *s = &f->cam[k];
        if (cams[k].frame == TRACK_CAM_NONE || s->listed != l->stamp || !s->mapped)
            continue;
        /* the tracker's states order seen < occluded < lost */
        if (!any || s->state < best) {
            best = s->state;
            use = 0;
        }
        if (s->state == best)
            use |= 1u << k;
        any = 1;
    }
    if (!any) { /* only cameras without a frame now know it: kept where it was */
        if (!f->has_out)
            return TT_OK;
        f->out.state = f->state == VISION_TAG_LOST ? VISION_TAG_LOST : VISION_TAG_OCCLUDED;
        f->out.seen_by = 0;
        *report = 1;
        return TT_OK;
    }
    tt_status st = live__place(l, f, use, err);
    f->out.state = best;
    *report = st == TT_OK;
    return st;
}

/* The events of figure f, now in state s at pos. */
static tt_status live__events(track_live *l, live__fig *f, vision_tag_state s, const double pos[2], tt_err *err)
{
    tt_status st;
    vision_tag_state prev = f->state;
    f->state = s;
    if (f->state == VISION_TAG_LOST) {
        if (prev != VISION_TAG_LOST && f->has_settled &&
            (st = live__event(l, TRACK_REMOVED, f, f->settled, NULL, err)) != TT_OK)
            return st;
        f->has_settled = 0;
        f->still = 0;
        return TT_OK;
    }
    if (f->state != VISION_TAG_SEEN)
        return TT_OK;
    if (f->still > 0 && hypot(pos[0] - f->still_ref[0], pos[1] - f->still_ref[1]) <= l->o.still_in) {
        f->still++;
    } else {
        f->still = 1;
        f->still_ref[0] = pos[0];
        f->still_ref[1] = pos[1];
    }
    if (f->still < l->o.settle_frames)
        return TT_OK;
    int settled = 0;
    if (!f->has_settled) {
        if ((st = live__event(l, TRACK_APPEARED, f, NULL, pos, err)) != TT_OK)
            return st;
        f->settled[0] = pos[0];
        f->settled[1] = pos[1];
        f->has_settled = 1;
        settled = 1;
    } else if (hypot(pos[0] - f->settled[0], pos[1] - f->settled[1]) > l->o.move_threshold_in) {
        if ((st = live__event(l, TRACK_MOVED, f, f->settled, pos, err)) != TT_OK)
            return st;
        f->settled[0] = pos[0];
        f->settled[1] = pos[1];
        settled = 1;
    }
    return live__height(l, f, pos, settled, err);
}

static int live__cmp_fig(const void *a, const void *b)
{
    const live__fig *x = *(live__fig *const *)a, *y = *(live__fig *const *)b;
    int c = strcmp(x->family, y->family);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* The figures any camera lists, in (family, id) order, into l->order. */
static tt_status live__listed(track_live *l, const track_live_cam *cams, int *nlisted, tt_err *err)
{
    for (int k = 0; k < l->ncams; k++)
        for (int i = 0; i < cams[k].n && cams[k].tracks; i++) {
            const vision_track *t = &cams[k].tracks[i];
            if (!calib_rig_is_base_tag(l->rig, t->det.family, t->det.id))
                continue;
            live__fig *f = live__fig_get(l, &t->det, err);
            if (!f)
                return TT_ERR_NOMEM;
            f->listed = l->stamp;
            if (cams[k].frame != TRACK_CAM_NONE) {
                f->cam[k].listed = l->stamp;
                f->cam[k].state = t->state;
            }
        }
    if (l->nf > l->caporder) {
        live__fig **o = realloc(l->order, sizeof *o * (size_t)l->nf);
        if (!o)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        l->order = o;
        l->caporder = l->nf;
    }
    int m = 0;
    for (int i = 0; i < l->nf; i++)
        if (l->f[i].listed == l->stamp)
            l->order[m++] = &l->f[i];
    if (m > 1) /* the tracker's order */
        qsort(l->order, (size_t)m, sizeof *l->order, live__cmp_fig);
    *nlisted = m;
    l->nlisted = m;
    return TT_OK;
}

tt_status track_live_update_cams(track_live *l, int frame_no, const track_live_cam *cams, const track_figure **figs,
                                 int *nfig, const track_event **events, int *nevents, int *posed, tt_err *err)
{
    tt_status st;
    (void)frame_no;
    *figs = NULL;
    *nfig = 0;
    *events = NULL;
    *nevents = 0;
    *posed = 0;
    l->nev = 0;
    l->nconf = 0;
    l->stamp++;
    for (int k = 0; k < l->ncams; k++) {
        if (cams[k].frame != TRACK_CAM_NONE &&
            (st = live__map_cam(l, k, cams[k].tracks, cams[k].n, cams[k].frame == TRACK_CAM_NEW, err)) != TT_OK)
            return st;
        *posed |= l->cam[k].posed;
    }
    if (!*posed)
        return TT_OK;
    int m = 0;
    if ((st = live__listed(l, cams, &m, err)) != TT_OK)
        return st;
    if (m > l->capout) {
        track_figure *o = realloc(l->out, sizeof *o * (size_t)m);
        if (!o)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        l->out = o;
        l->capout = m;
    }
    int no = 0;
    for (int i = 0; i < m; i++) {
        live__fig *f = l->order[i];
        int report = 0;
        if ((st = live__fuse_fig(l, f, cams, &report, err)) != TT_OK)
            return st;
        if (!report)
            continue;
        double pos[2] = {f->out.x, f->out.y};
        if ((st = live__events(l, f, f->out.state, pos, err)) != TT_OK)
            return st;
        l->out[no++] = f->out;
    }
    *figs = l->out;
    *nfig = no;
    *events = l->ev;
    *nevents = l->nev;
    return TT_OK;
}

tt_status track_live_update(track_live *l, int frame_no, const vision_track *tr, int n, const track_figure **figs,
                            int *nfig, const track_event **events, int *nevents, int *posed, tt_err *err)
{
    track_live_cam cams[CALIB_MAX_CAMERAS];
    memset(cams, 0, sizeof cams);
    cams[0] = (track_live_cam){tr, n, TRACK_CAM_NEW};
    for (int k = 1; k < l->ncams; k++)
        cams[k].frame = TRACK_CAM_NONE;
    return track_live_update_cams(l, frame_no, cams, figs, nfig, events, nevents, posed, err);
}

int track_live_handoff(const track_live *l, int k, int width, int height, int *rects, int max)
{
    const live__cam *c = k >= 0 && k < l->ncams ? &l->cam[k] : NULL;
    int n = 0;
    if (!c || !c->posed || l->ncams < 2)
        return 0;
    /* a square four times the tag's size around it (it moves on before the
     * next frame) */
    double s = 2 * (l->rig->base_size_in > 0 ? l->rig->base_size_in : 1), lift = l->rig->base_height_mm / 25.4;
    for (int i = 0; i < l->nlisted && n < max; i++) {
        const live__fig *f = l->order[i];
        const track_figure *o = &f->out;
        if (!f->has_out || o->state != VISION_TAG_SEEN || (o->seen_by >> k & 1u) || f->still >= l->o.settle_frames)
            continue;
        double xy[8] = {o->x - s, o->y - s, o->x + s, o->y - s, o->x + s, o->y + s, o->x - s, o->y + s}, px[8];
        if (calib_project(&c->view->camera, &c->pose, xy, 4, o->z_in + lift, px, NULL) != TT_OK)
            continue;
        double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
        for (int q = 0; q < 4; q++) {
            x0 = fmin(x0, px[2 * q]);
            x1 = fmax(x1, px[2 * q]);
            y0 = fmin(y0, px[2 * q + 1]);
            y1 = fmax(y1, px[2 * q + 1]);
        }
        /* the tag whole inside the frame (the square's middle quarter) */
        double mx = (x1 - x0) * 3 / 8, my = (y1 - y0) * 3 / 8;
        if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1) || x0 + mx < 0 || y0 + my < 0 ||
            x1 - mx > width - 1 || y1 - my > height - 1)
            continue;
        rects[4 * n] = (int)floor(x0);
        rects[4 * n + 1] = (int)floor(y0);
        rects[4 * n + 2] = (int)ceil(x1 - x0) + 1;
        rects[4 * n + 3] = (int)ceil(y1 - y0) + 1;
        n++;
    }
    return n;
}
