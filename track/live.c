/* live.c - see live.h. */
#include "live.h"

#include "phantom.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct live__fig {
    char family[VISION_FAMILY_LEN];
    int id;
    double x, y, facing, z;
    int mapped;
    calib_height height;
    double ground;         /* the ground's height under it */
    calib_figure last;     /* its last mapping, with its errors (calib_figure_average) */
    double zsum;           /* measured heights while still */
    int zn;
    double warned_z;       /* the height last told in a height event */
    int warned;
    vision_tag_state state;
    double settled[2];
    int has_settled;
    double still_ref[2];
    int still;
} live__fig;

struct track_live {
    const calib_rig *rig;
    track_live_opts o;
    calib_pose pose;
    int posed, solves;
    live__fig *f;
    int nf, capf;
    track_figure *out;
    track_event *ev;
    int nev, capev;
    vision_detections tmp;
    int captmp;
    tt_ground ground;
    int has_ground, remap;
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
    free(l->f);
    free(l->out);
    free(l->ev);
    free(l->tmp.items);
    free(l);
}

void track_live_set_ground(track_live *l, const tt_ground *g)
{
    l->has_ground = g && g->height_at;
    if (l->has_ground)
        l->ground = *g;
    l->remap = 1;
}

const calib_pose *track_live_pose(const track_live *l)
{
    return l && l->posed ? &l->pose : NULL;
}

int track_live_pose_solves(const track_live *l)
{
    return l ? l->solves : 0;
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

/* A settled figure whose averaged measured height is off the ground: a
 * "height" event when it settles, and again if that average moves by more
 * than half an inch. */
static tt_status live__height(track_live *l, live__fig *f, const double pos[2], int settled, tt_err *err)
{
    if (settled)
        f->warned = 0;
    if (f->zn == 0 || f->height == CALIB_HEIGHT_BELOW || f->height == CALIB_HEIGHT_SLOPE)
        return TT_OK;
    double z = f->zsum / f->zn;
    /* beyond its averaged error (calib_height): a correct rig's noise is none */
    double sig = f->last.measured_err95_in / 1.96 / sqrt((double)f->zn), gs = CALIB_GROUND_Z95_IN / 1.96;
    if (fabs(z - f->ground) <= CALIB_SURE_SIGMAS * sqrt(sig * sig + gs * gs) ||
        (f->warned && fabs(z - f->warned_z) <= 0.5))
        return TT_OK;
    tt_status st = live__event(l, TRACK_HEIGHT, f, NULL, pos, err);
    if (st != TT_OK)
        return st;
    l->ev[l->nev - 1].z_in = z > 0 ? z : 0;
    l->ev[l->nev - 1].ground_in = f->ground;
    f->warned = 1;
    f->warned_z = z;
    return TT_OK;
}

/* Re-solve the pose if no pose yet, or a fresh anchor disagrees with it. */
static tt_status live__pose(track_live *l, const vision_track *tr, int n, int *resolved, tt_err *err)
{
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
        if (l->posed && t->fresh && !disagree) {
            const calib_anchor *an = &l->rig->anchors[a];
            double h = an->size_in / 2, xy[8] = {an->x - h, an->y + h, an->x + h, an->y + h,
                                                 an->x + h, an->y - h, an->x - h, an->y - h};
            double px[8];
            if (calib_project(&l->rig->camera, &l->pose, xy, 4, 0, px, NULL) == TT_OK)
                for (int k = 0; k < 4; k++)
                    if (hypot(px[2 * k] - t->det.corners[k][0], px[2 * k + 1] - t->det.corners[k][1]) >
                        l->o.pose_check_px)
                        disagree = 1;
        }
    }
    if ((l->posed && !disagree) || nseen < 2)
        return TT_OK;
    calib_pose p;
    tt_err e2 = {0};
    if (calib_pose_solve(l->rig, &l->tmp, &p, &e2) != TT_OK)
        return TT_OK; /* keep the last good pose */
    l->pose = p;
    l->posed = 1;
    l->solves++;
    *resolved = 1;
    return TT_OK;
}

static live__fig *live__fig_get(track_live *l, const vision_detection *d, tt_err *err)
{
    for (int i = 0; i < l->nf; i++)
        if (l->f[i].id == d->id && !strcmp(l->f[i].family, d->family))
            return &l->f[i];
    if (l->nf == l->capf) {
        int nc = l->capf ? l->capf * 2 : 64;
        live__fig *f = realloc(l->f, sizeof *f * (size_t)nc);
        if (!f) {
            tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            return NULL;
        }
        l->f = f;
        l->capf = nc;
    }
    live__fig *f = &l->f[l->nf++];
    memset(f, 0, sizeof *f);
    memcpy(f->family, d->family, sizeof f->family);
    f->id = d->id;
    f->state = VISION_TAG_LOST;
    return f;
}

tt_status track_live_update(track_live *l, int frame_no, const vision_track *tr, int n, const track_figure **figs,
                            int *nfig, const track_event **events, int *nevents, int *posed, tt_err *err)
{
    int resolved = 0;
    tt_status st;
    (void)frame_no;
    *figs = NULL;
    *nfig = 0;
    *events = NULL;
    *nevents = 0;
    l->nev = 0;
    if ((st = live__pose(l, tr, n, &resolved, err)) != TT_OK)
        return st;
    *posed = l->posed;
    if (!l->posed)
        return TT_OK;

    /* Map the base tags that were measured this frame (all of them after a
     * new pose), in one batch. */
    if ((st = live__tmp_reserve(l, n + 1, err)) != TT_OK)
        return st;
    l->tmp.count = 0;
    for (int i = 0; i < n; i++) {
        if (!calib_rig_is_base_tag(l->rig, tr[i].det.family, tr[i].det.id))
            continue;
        live__fig *f = live__fig_get(l, &tr[i].det, err);
        if (!f)
            return TT_ERR_NOMEM;
        if (tr[i].fresh || resolved || l->remap || !f->mapped)
            l->tmp.items[l->tmp.count++] = tr[i].det;
    }
    l->remap = 0;
    calib_figure *cf = NULL;
    int ncf = 0;
    calib_locate_opts lo = {l->o.no_errors};
    if (l->tmp.count && (st = calib_locate_ground_opts(l->rig, &l->pose, &l->tmp, l->has_ground ? &l->ground : NULL,
                                                       &lo, &cf, &ncf, err)) != TT_OK)
        return st;
    double measured_size;
    if (calib_size_suspect(l->rig, &l->pose, cf, ncf, &measured_size)) {
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
            calib_phantom(l->rig, &l->tmp.items[cf[i].det_index], cf[i].x, cf[i].y) != CALIB_NOT_PHANTOM)
            continue; /* a phantom is no figure: never mapped, never out */
        /* a fresh measurement where it stood still joins the average */
        if (!f->mapped || hypot(cf[i].x - f->x, cf[i].y - f->y) > l->o.still_in) {
            f->zsum = 0;
            f->zn = 0;
        }
        if (cf[i].measured) {
            f->zsum += cf[i].measured_in;
            f->zn++;
        }
        f->x = cf[i].x;
        f->y = cf[i].y;
        f->facing = cf[i].facing_deg;
        f->z = cf[i].z_in;
        f->height = cf[i].height;
        f->ground = cf[i].ground_in;
        f->last = cf[i];
        f->mapped = 1;
    }
    free(cf);

    /* States and events, in the tracker's (family, id) order. */
    track_figure *out = realloc(l->out, sizeof *out * (size_t)(n ? n : 1));
    if (!out)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    l->out = out;
    int no = 0;
    for (int i = 0; i < n; i++) {
        if (!calib_rig_is_base_tag(l->rig, tr[i].det.family, tr[i].det.id))
            continue;
        live__fig *f = live__fig_get(l, &tr[i].det, err);
        if (!f)
            return TT_ERR_NOMEM;
        if (!f->mapped)
            continue;
        vision_tag_state prev = f->state;
        f->state = tr[i].state;
        double pos[2] = {f->x, f->y};
        if (f->state == VISION_TAG_LOST) {
            if (prev != VISION_TAG_LOST && f->has_settled &&
                (st = live__event(l, TRACK_REMOVED, f, f->settled, NULL, err)) != TT_OK)
                return st;
            f->has_settled = 0;
            f->still = 0;
        } else if (f->state == VISION_TAG_SEEN) {
            if (f->still > 0 && hypot(pos[0] - f->still_ref[0], pos[1] - f->still_ref[1]) <= l->o.still_in) {
                f->still++;
            } else {
                f->still = 1;
                f->still_ref[0] = pos[0];
                f->still_ref[1] = pos[1];
            }
            if (f->still >= l->o.settle_frames) {
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
                if ((st = live__height(l, f, pos, settled, err)) != TT_OK)
                    return st;
            }
        }
        track_figure *o = &out[no++];
        memcpy(o->family, f->family, sizeof o->family);
        o->id = f->id;
        o->x = f->x;
        o->y = f->y;
        o->facing_deg = f->facing;
        o->z_in = f->height == CALIB_HEIGHT_OFF && f->zn > 0 && f->zsum > 0 ? f->zsum / f->zn : f->z;
        /* standing still, its averaged height is surer: so is its place */
        calib_figure e = f->last;
        if (!l->o.no_errors)
            calib_figure_average(&e, f->zn);
        o->err95_in = e.err95_in;
        o->z_err95_in = e.z_err95_in;
        o->facing_err95_deg = e.facing_err95_deg;
        o->state = f->state;
        o->below_felt_in = f->height == CALIB_HEIGHT_BELOW && f->zn > 0 ? fmax(0, -f->zsum / f->zn) : 0;
    }
    *figs = out;
    *nfig = no;
    *events = l->ev;
    *nevents = l->nev;
    return TT_OK;
}
