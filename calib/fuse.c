/* fuse.c - see fuse.h. */
#include "fuse.h"

#include "phantom.h"
#include "scale.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUSE__NO_ERR_IN 0.1 /* what two sightings without an err95_in may differ by */

typedef struct fuse__sight {
    const calib_figure *f;
    int cam;
    double w;
} fuse__sight;

double calib_fuse_weight(const calib_figure *f)
{
    if (f->err95_in > 0 && isfinite(f->err95_in))
        return 1 / (f->err95_in * f->err95_in);
    if (f->px_per_cell > 0 && isfinite(f->px_per_cell))
        return f->px_per_cell * f->px_per_cell;
    return 0;
}

static int fuse__cmp(const void *a, const void *b)
{
    const fuse__sight *x = a, *y = b;
    int c = strcmp(x->f->family, y->f->family);
    if (c)
        return c;
    if (x->f->id != y->f->id)
        return x->f->id < y->f->id ? -1 : 1;
    return x->cam - y->cam;
}

void calib_fuse_result_free(calib_fuse_result *r)
{
    if (!r)
        return;
    free(r->figs);
    free(r->seen_by);
    free(r->best_cam);
    free(r->conflicts);
    memset(r, 0, sizeof *r);
}

/* The pairs of cameras in s[0..m-1] that see it too far apart. */
static tt_status fuse__conflicts(const fuse__sight *s, int m, calib_fuse_result *r, int *cap, tt_err *err)
{
    for (int a = 0; a < m; a++)
        for (int b = a + 1; b < m; b++) {
            if (s[a].cam == s[b].cam)
                continue;
            double ea = s[a].f->err95_in, eb = s[b].f->err95_in;
            double allowed = ea > 0 && eb > 0 ? CALIB_FUSE_SIGMAS * hypot(ea, eb) : FUSE__NO_ERR_IN;
            double apart = hypot(s[a].f->x - s[b].f->x, s[a].f->y - s[b].f->y);
            if (!(apart > allowed))
                continue;
            if (r->nconflicts == *cap) {
                int nc = *cap ? 2 * *cap : 8;
                calib_fuse_conflict *p = realloc(r->conflicts, (size_t)nc * sizeof *p);
                if (!p)
                    return tt_err_set(err, TT_ERR_NOMEM, "out of memory fusing the cameras' figures");
                r->conflicts = p;
                *cap = nc;
            }
            calib_fuse_conflict *c = &r->conflicts[r->nconflicts++];
            memcpy(c->family, s[a].f->family, sizeof c->family);
            c->id = s[a].f->id;
            c->cam_a = s[a].cam;
            c->cam_b = s[b].cam;
            c->apart_in = apart;
            c->allowed_in = allowed;
        }
    return TT_OK;
}

/* One figure from its m sightings. */
static void fuse__one(const fuse__sight *s, int m, calib_figure *out, unsigned *seen, int *best_cam)
{
    int best = 0;
    double sw = 0, x = 0, y = 0, z = 0, g = 0, meas = 0, fs = 0, fc = 0;
    for (int i = 0; i < m; i++) {
        double w = s[i].w > 0 ? s[i].w : 1e-12; /* no weight at all: an equal say */
        const calib_figure *f = s[i].f;
        if (s[i].w > s[best].w)
            best = i;
        sw += w;
        x += w * f->x;
        y += w * f->y;
        z += w * f->z_in;
        g += w * f->ground_in;
        meas += w * f->measured_in;
        fs += w * sin(f->facing_deg * M_PI / 180);
        fc += w * cos(f->facing_deg * M_PI / 180);
        *seen |= 1u << s[i].cam;
    }
    *out = *s[best].f;
    *best_cam = s[best].cam;
    if (m == 1)
        return;
    out->x = x / sw;
    out->y = y / sw;
    out->z_in = z / sw;
    out->ground_in = g / sw;
    out->measured_in = meas / sw;
    double fd = atan2(fs, fc) * 180 / M_PI;
    out->facing_deg = fd <= -180 ? fd + 360 : fd;
    /* independent sightings: each error shrinks as the best one's would
     * with the weight of them all (1 / sqrt(sum of 1 / err95^2)) */
    double shrink = s[best].w > 0 ? sqrt(s[best].w / sw) : 1 / sqrt((double)m);
    out->err95_in *= shrink;
    out->z_err95_in *= shrink;
    out->facing_err95_deg *= shrink;
    out->xy_err95_flat_in *= shrink;
}

tt_status calib_fuse(const calib_figure *const *figs, const int *nfigs, int ncams, calib_fuse_result *r,
                     tt_err *err)
{
    memset(r, 0, sizeof *r);
    if (!figs || !nfigs || ncams < 1 || ncams > CALIB_MAX_CAMERAS)
        return tt_err_set(err, TT_ERR_ARG, "calib_fuse: 1 to %d cameras' figures needed", CALIB_MAX_CAMERAS);
    int total = 0;
    for (int k = 0; k < ncams; k++) {
        if (nfigs[k] < 0 || (nfigs[k] > 0 && !figs[k]))
            return tt_err_set(err, TT_ERR_ARG, "calib_fuse: camera %d's figures are missing", k + 1);
        total += nfigs[k];
    }
    fuse__sight *s = calloc((size_t)total + 1, sizeof *s);
    r->figs = calloc((size_t)total + 1, sizeof *r->figs);
    r->seen_by = calloc((size_t)total + 1, sizeof *r->seen_by);
    r->best_cam = calloc((size_t)total + 1, sizeof *r->best_cam);
    if (!s || !r->figs || !r->seen_by || !r->best_cam) {
        free(s);
        calib_fuse_result_free(r);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory fusing %d figures", total);
    }
    int m = 0, cap = 0;
    for (int k = 0; k < ncams; k++)
        for (int i = 0; i < nfigs[k]; i++)
            s[m++] = (fuse__sight){&figs[k][i], k, calib_fuse_weight(&figs[k][i])};
    qsort(s, (size_t)m, sizeof *s, fuse__cmp);
    tt_status st = TT_OK;
    for (int i = 0; i < m && st == TT_OK;) {
        int j = i + 1;
        while (j < m && s[j].f->id == s[i].f->id && !strcmp(s[j].f->family, s[i].f->family))
            j++;
        fuse__one(&s[i], j - i, &r->figs[r->n], &r->seen_by[r->n], &r->best_cam[r->n]);
        r->n++;
        st = fuse__conflicts(&s[i], j - i, r, &cap, err);
        i = j;
    }
    free(s);
    if (st != TT_OK)
        calib_fuse_result_free(r);
    return st;
}

void calib_fuse_conflict_message(const calib_rig *rig, const calib_fuse_conflict *c, char *buf, size_t cap)
{
    const char *a = c->cam_a < rig->ncameras ? rig->cameras[c->cam_a].name : "a camera";
    const char *b = c->cam_b < rig->ncameras ? rig->cameras[c->cam_b].name : "another camera";
    snprintf(buf, cap,
             "%s and %s see %s %d %.2f\" apart, more than their errors allow (%.3f\"): %s or %s has moved since its "
             "anchors were placed, or an anchor has; re-run 'tabletrack check' with a frame from each camera",
             a, b, c->family, c->id, c->apart_in, c->allowed_in, a, b);
}

int calib_fuse_anchors_seen(const calib_rig *rig, const vision_detections *dets, char *names, size_t cap)
{
    int n = 0;
    size_t used = 0;
    char *seen = calloc((size_t)rig->nanchors + 1, 1);
    if (names && cap)
        names[0] = 0;
    if (!seen)
        return 0;
    for (int i = 0; dets && i < dets->count; i++) {
        int a = calib_rig_anchor_index(rig, dets->items[i].family, dets->items[i].id);
        if (a >= 0 && !seen[a]) {
            seen[a] = 1;
            n++;
        }
    }
    const char *fam = NULL;
    for (int a = 0; a < rig->nanchors && names && used + 40 < cap; a++) {
        if (!seen[a])
            continue;
        int same = fam && !strcmp(fam, rig->anchors[a].family);
        used += (size_t)snprintf(names + used, cap - used, "%s%s%s%d", used ? ", " : "",
                                 same ? "" : rig->anchors[a].family, same ? "" : " ", rig->anchors[a].id);
        fam = rig->anchors[a].family;
    }
    free(seen);
    return n;
}

tt_status calib_fuse_detect(const calib_rig *rig, int k, vision_detector *det, const tt_image *gray, int rescale,
                            vision_detections *dets, calib_pose *pose, tt_err *err)
{
    calib_rig *view = malloc(sizeof *view);
    if (!view)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    calib_rig_view(rig, k, view);
    const char *name = rig->cameras[k < rig->ncameras ? k : 0].name;
    tt_status st = calib_rig_check_image(view, gray->width, gray->height, err);
    if (st != TT_OK) {
        if (rig->ncameras > 1)
            tt_err_prefix(err, "%s", name);
        free(view);
        return st;
    }
    st = calib_detect(view, det, gray, rescale, dets, pose, NULL, err);
    if (rig->ncameras > 1 && (st == TT_OK || st == TT_ERR_ANCHORS)) {
        char names[400];
        tt_err first = {0};
        if (err)
            first = *err;
        tt_status solved = st;
        if (st != TT_OK) /* the anchors it does see, to name them */
            st = vision_detect(det, gray, dets, err);
        int n = st == TT_OK ? calib_fuse_anchors_seen(rig, dets, names, sizeof names) : 0;
        if (st == TT_OK && n < CALIB_FUSE_MIN_ANCHORS) {
            char seen[480];
            vision_detections_free(dets);
            if (n == 0)
                snprintf(seen, sizeof seen, "no anchors");
            else
                snprintf(seen, sizeof seen, "only %d anchor%s (%s)", n, n == 1 ? "" : "s", names);
            st = tt_err_set(err, TT_ERR_ANCHORS,
                            "%s sees %s: each of several cameras needs at least %d anchors in its view to be placed "
                            "on the table; add anchors in its part of the table (and to the rig's \"anchors\") or "
                            "turn it to see more",
                            name, seen, CALIB_FUSE_MIN_ANCHORS);
        } else if (solved != TT_OK) { /* enough anchors, but no pose from them: as calib_detect said */
            vision_detections_free(dets);
            if (err)
                *err = first;
            tt_err_prefix(err, "%s", name);
            st = solved;
        }
    }
    free(view);
    return st;
}

tt_status calib_fuse_locate(const calib_rig *rig, const vision_detections *dets, const calib_pose *poses,
                            const tt_ground *ground, calib_fuse_result *r, int *nseen, tt_err *err)
{
    int ncams = rig->ncameras > 0 ? rig->ncameras : 1, n[CALIB_MAX_CAMERAS] = {0};
    calib_figure *figs[CALIB_MAX_CAMERAS] = {NULL};
    calib_rig *view = malloc(sizeof *view);
    tt_status st = view ? TT_OK : tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    memset(r, 0, sizeof *r);
    for (int k = 0; k < ncams && st == TT_OK; k++) {
        calib_rig_view(rig, k, view);
        st = calib_locate_ground(view, &poses[k], &dets[k], ground, &figs[k], &n[k], err);
        if (st == TT_OK)
            calib_drop_phantoms(view, &dets[k], figs[k], &n[k]);
        if (nseen)
            nseen[k] = n[k];
    }
    if (st == TT_OK)
        st = calib_fuse((const calib_figure *const *)figs, n, ncams, r, err);
    for (int k = 0; k < ncams; k++)
        free(figs[k]);
    free(view);
    return st;
}
