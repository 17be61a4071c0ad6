/* pose.c - camera pose from anchor corners and pixel <-> table mapping
 * (figures: locate.c). */
#include "calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Anchor corners on the felt in libapriltag order (bottom-left, bottom-right,
 * top-right, top-left of the printed tag); the printed top edge faces y = 0. */
static void calib__anchor_corners(const calib_anchor *a, double obj[4][3])
{
    double h = a->size_in / 2;
    const double sx[4] = {-1, 1, 1, -1}, sy[4] = {1, 1, -1, -1};
    for (int k = 0; k < 4; k++) {
        obj[k][0] = a->x + sx[k] * h;
        obj[k][1] = a->y + sy[k] * h;
        obj[k][2] = 0;
    }
}

static tt_status calib__solve(const calib_rig *rig, const vision_detections *dets, const int *use, int nuse,
                              calib_pose *pose, double *per_anchor_err, tt_err *err)
{
    int n = nuse * 4;
    double *obj = malloc(sizeof(double) * 3 * (size_t)n), *img = malloc(sizeof(double) * 2 * (size_t)n);
    double *back = malloc(sizeof(double) * 2 * (size_t)n);
    tt_status st = TT_OK;
    if (!obj || !img || !back) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < nuse; i++) {
        const vision_detection *d = &dets->items[use[i]];
        int ai = calib_rig_anchor_index(rig, d->family, d->id);
        double o[4][3];
        calib__anchor_corners(&rig->anchors[ai], o);
        for (int k = 0; k < 4; k++) {
            memcpy(&obj[(i * 4 + k) * 3], o[k], sizeof o[k]);
            img[(i * 4 + k) * 2] = d->corners[k][0];
            img[(i * 4 + k) * 2 + 1] = d->corners[k][1];
        }
    }
    st = cvw_solve_pnp(&rig->camera, obj, img, n, 0, pose->rvec, pose->tvec, &pose->rms_px, err);
    if (st != TT_OK)
        goto done;
    if ((st = cvw_rodrigues(pose->rvec, pose->R, err)) != TT_OK)
        goto done;
    if (per_anchor_err) {
        if ((st = cvw_project_points(&rig->camera, obj, n, pose->rvec, pose->tvec, back, err)) != TT_OK)
            goto done;
        for (int i = 0; i < nuse; i++) {
            double worst = 0;
            for (int k = 0; k < 4; k++) {
                int j = i * 4 + k;
                double e = hypot(back[2 * j] - img[2 * j], back[2 * j + 1] - img[2 * j + 1]);
                worst = e > worst ? e : worst;
            }
            per_anchor_err[i] = worst;
        }
    }
    /* Camera centre C = -R^T t, in the table frame. */
    for (int r = 0; r < 3; r++)
        pose->center[r] = -(pose->R[0 * 3 + r] * pose->tvec[0] + pose->R[1 * 3 + r] * pose->tvec[1] +
                            pose->R[2 * 3 + r] * pose->tvec[2]);
    pose->up = pose->center[2] < 0 ? -1.0 : 1.0;
    pose->anchors_used = nuse;
done:
    free(obj);
    free(img);
    free(back);
    return st;
}

/* The rms of the pose from the anchors `use` when every anchor's size_in is
 * `scale` times the rig's (a copy of the rig; -1 when it gives no pose). */
static double calib__scaled_rms(const calib_rig *rig, calib_rig *tmp, calib_anchor *anchors,
                                const vision_detections *dets, const int *use, int nuse, double scale)
{
    calib_pose p;
    for (int a = 0; a < rig->nanchors; a++)
        anchors[a].size_in = rig->anchors[a].size_in * scale;
    memset(&p, 0, sizeof p);
    if (calib__solve(tmp, dets, use, nuse, &p, NULL, NULL) != TT_OK || !isfinite(p.rms_px))
        return -1;
    return p.rms_px;
}

/* Anchors that fit with one consistent scale error have a wrong size_in
 * (the rig says 2" for tags printed at 2.4"): the factor that makes them
 * fit, searched over 0.25..4 (a coarse log grid, then golden section).
 * Returns 1 with *scale and *rms when that factor fits well and clearly
 * better than the rig's sizes (rms_now). */
static int calib__anchor_scale(const calib_rig *rig, const vision_detections *dets, const int *use, int nuse,
                               double rms_now, double *scale, double *rms)
{
    const int steps = 48;
    const double lo = log(0.25), hi = log(4.0);
    calib_rig *tmp = malloc(sizeof *tmp);
    calib_anchor *anchors = malloc(sizeof *anchors * (size_t)(rig->nanchors > 0 ? rig->nanchors : 1));
    int found = 0;
    if (!tmp || !anchors || nuse < 2)
        goto done;
    *tmp = *rig;
    memcpy(anchors, rig->anchors, sizeof *anchors * (size_t)rig->nanchors);
    tmp->anchors = anchors;
    double best = -1, best_u = 0;
    for (int k = 0; k <= steps; k++) {
        double u = lo + (hi - lo) * k / steps, e = calib__scaled_rms(rig, tmp, anchors, dets, use, nuse, exp(u));
        if (e >= 0 && (best < 0 || e < best)) {
            best = e;
            best_u = u;
        }
    }
    if (best < 0)
        goto done;
    /* golden section on log(scale) around the best grid point */
    double a = best_u - (hi - lo) / steps, b = best_u + (hi - lo) / steps, g = (sqrt(5.0) - 1) / 2;
    for (int it = 0; it < 40; it++) {
        double c = b - g * (b - a), d = a + g * (b - a);
        double ec = calib__scaled_rms(rig, tmp, anchors, dets, use, nuse, exp(c));
        double ed = calib__scaled_rms(rig, tmp, anchors, dets, use, nuse, exp(d));
        if (ec < 0 || ed < 0)
            break;
        if (ec < ed)
            b = d;
        else
            a = c;
    }
    double u = (a + b) / 2, e = calib__scaled_rms(rig, tmp, anchors, dets, use, nuse, exp(u));
    if (e >= 0 && e < best) {
        best = e;
        best_u = u;
    }
    *scale = exp(best_u);
    *rms = best;
    found = best <= CALIB_MAX_REPROJ_PX / 2 && best < rms_now / 3 && fabs(*scale - 1) > 0.02;
done:
    free(anchors);
    free(tmp);
    return found;
}

/* A pose is only used when it is finite and fits its anchors within
 * CALIB_MAX_REPROJ_PX; otherwise the error names the anchors used, worst
 * first, so the player can check the ones that moved or the rig file. */
static tt_status calib__pose_check(const calib_rig *rig, const vision_detections *dets, const int *use, int nuse,
                                   const double *perr, const calib_pose *pose, tt_err *err)
{
    int finite = isfinite(pose->rms_px);
    for (int i = 0; i < 3; i++)
        finite = finite && isfinite(pose->rvec[i]) && isfinite(pose->tvec[i]) && isfinite(pose->center[i]);
    if (finite && pose->rms_px <= CALIB_MAX_REPROJ_PX && fabs(pose->center[2]) > 1e-6)
        return TT_OK;
    char names[512] = "";
    size_t len = 0;
    int done[CALIB_POSE_NAMED] = {0};
    for (int k = 0; k < nuse && k < CALIB_POSE_NAMED && len < sizeof names - 60; k++) {
        int w = -1;
        for (int i = 0; i < nuse && i < CALIB_POSE_NAMED; i++)
            if (!done[i] && (w < 0 || perr[i] > perr[w] || !isfinite(perr[i])))
                w = i;
        done[w] = 1;
        const vision_detection *d = &dets->items[use[w]];
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s %d (%.0f px)", len ? ", " : "", d->family, d->id,
                                perr[w]);
    }
    if (!finite || fabs(pose->center[2]) <= 1e-6)
        return tt_err_set(err, TT_ERR_ANCHORS,
                          "the anchors give no camera pose (anchors %s): are two anchors at the same place in the rig "
                          "file, or is one tag mistaken for another?",
                          names);
    double scale, rms;
    if (calib__anchor_scale(rig, dets, use, nuse, pose->rms_px, &scale, &rms)) {
        /* what the anchors measure, named by the first one used */
        const calib_anchor *a = &rig->anchors[calib_rig_anchor_index(rig, dets->items[use[0]].family,
                                                                     dets->items[use[0]].id)];
        int same = 1;
        for (int i = 1; i < nuse; i++) {
            const vision_detection *d = &dets->items[use[i]];
            same &= rig->anchors[calib_rig_anchor_index(rig, d->family, d->id)].size_in == a->size_in;
        }
        char measured[160];
        if (same)
            snprintf(measured, sizeof measured, "the anchors measure %.3g\" where the rig's size_in says %g\"",
                     a->size_in * scale, a->size_in);
        else
            snprintf(measured, sizeof measured,
                     "the anchors measure %.3g times their size_in (%s %d: %.3g\", not %g\")", scale, a->family,
                     a->id, a->size_in * scale, a->size_in);
        return tt_err_set(err, TT_ERR_ANCHORS,
                          "the anchors do not fit the rig file: reprojection error %.1f px, the limit is %.0f px "
                          "(anchors, worst first: %s). Their size_in is wrong: %s (at that size they fit, %.2f px). "
                          "Set size_in to the edge of the anchors' black square, as 'print tags --size-in' printed it "
                          "(measure one)",
                          pose->rms_px, CALIB_MAX_REPROJ_PX, names, measured, rms);
    }
    return tt_err_set(err, TT_ERR_ANCHORS,
                      "the anchors do not fit the rig file: reprojection error %.1f px, the limit is %.0f px (anchors, "
                      "worst first: %s). Has an anchor moved, or are its x, y or size_in in the rig file wrong?",
                      pose->rms_px, CALIB_MAX_REPROJ_PX, names);
}

tt_status calib_pose_solve(const calib_rig *rig, const vision_detections *dets, calib_pose *pose, tt_err *err)
{
    int *use = NULL, nuse = 0;
    double *perr = NULL;
    tt_status st = TT_OK;
    memset(pose, 0, sizeof *pose);

    use = calloc((size_t)rig->nanchors + 1, sizeof *use);
    perr = calloc((size_t)rig->nanchors + 1, sizeof *perr);
    if (!use || !perr) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* Each anchor seen exactly once; a duplicate id makes both suspect. */
    for (int a = 0; a < rig->nanchors; a++) {
        int found = -1, count = 0;
        for (int i = 0; i < dets->count; i++)
            if (dets->items[i].id == rig->anchors[a].id && !strcmp(dets->items[i].family, rig->anchors[a].family)) {
                found = i;
                count++;
            }
        if (count == 1)
            use[nuse++] = found;
    }
    if (nuse < 2) {
        char missing[512] = "";
        size_t len = 0;
        for (int a = 0; a < rig->nanchors && len < sizeof missing - 40; a++) {
            int seen = 0;
            for (int i = 0; i < nuse; i++)
                seen |= dets->items[use[i]].id == rig->anchors[a].id &&
                        !strcmp(dets->items[use[i]].family, rig->anchors[a].family);
            if (!seen)
                len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%s %d", len ? ", " : "",
                                        rig->anchors[a].family, rig->anchors[a].id);
        }
        st = tt_err_set(err, TT_ERR_ANCHORS,
                        "only %d of %d anchor tags visible; not seen: %s. At least 2 are needed: are they covered, "
                        "out of the camera's view or too small?",
                        nuse, rig->nanchors, missing);
        goto done;
    }
    if ((st = calib__solve(rig, dets, use, nuse, pose, perr, err)) != TT_OK)
        goto done;
    /* Leave out one anchor at a time that disagrees with the rest (moved or a
     * stray tag with its id), while at least 3 remain. */
    while (nuse > 3) {
        int worst = 0;
        for (int i = 1; i < nuse; i++)
            if (perr[i] > perr[worst])
                worst = i;
        if (perr[worst] < 3.0)
            break;
        use[worst] = use[--nuse];
        if ((st = calib__solve(rig, dets, use, nuse, pose, perr, err)) != TT_OK)
            goto done;
    }
    if (st == TT_OK)
        st = calib__pose_check(rig, dets, use, nuse, perr, pose, err);
done:
    free(use);
    free(perr);
    return st;
}

void calib_map_normalized(const calib_pose *pose, const double *norm, int n, const double *heights, int per,
                          double *out)
{
    const double *R = pose->R, *C = pose->center;
    for (int i = 0; i < n; i++) {
        double xn = norm[2 * i], yn = norm[2 * i + 1];
        /* Ray direction in the table frame: R^T (xn, yn, 1). */
        double dx = R[0] * xn + R[3] * yn + R[6];
        double dy = R[1] * xn + R[4] * yn + R[7];
        double dz = R[2] * xn + R[5] * yn + R[8];
        double s = (pose->up * heights[i / per] - C[2]) / dz;
        if (!(s > 0) || !isfinite(s)) {
            out[2 * i] = out[2 * i + 1] = NAN;
            continue;
        }
        out[2 * i] = C[0] + s * dx;
        out[2 * i + 1] = C[1] + s * dy;
    }
}

tt_status calib_map_pixels(const cvw_camera *cam, const calib_pose *pose, const double *px, int n, double height_in,
                           double *out, tt_err *err)
{
    tt_status st = cvw_undistort_points(cam, px, n, out, err);
    if (st != TT_OK)
        return st;
    calib_map_normalized(pose, out, n, &height_in, n > 0 ? n : 1, out);
    return TT_OK;
}

tt_status calib_project(const cvw_camera *cam, const calib_pose *pose, const double *xy, int n, double height_in,
                        double *px, tt_err *err)
{
    double *obj = malloc(sizeof(double) * 3 * (size_t)(n > 0 ? n : 1));
    if (!obj)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        obj[3 * i] = xy[2 * i];
        obj[3 * i + 1] = xy[2 * i + 1];
        obj[3 * i + 2] = pose->up * height_in;
    }
    tt_status st = cvw_project_points(cam, obj, n, pose->rvec, pose->tvec, px, err);
    free(obj);
    return st;
}

double calib_facing_deg(const double c[4][2])
{
    /* up: bottom -> top edges; right: left -> right edges, turned to "up"
     * (in print coordinates right = (1,0), up = (0,-1): up = (r.y, -r.x)). */
    double ux = (c[3][0] - c[0][0]) + (c[2][0] - c[1][0]);
    double uy = (c[3][1] - c[0][1]) + (c[2][1] - c[1][1]);
    double rx = (c[1][0] - c[0][0]) + (c[2][0] - c[3][0]);
    double ry = (c[1][1] - c[0][1]) + (c[2][1] - c[3][1]);
    double deg = atan2(uy - rx, ux + ry) * (180.0 / M_PI);
    if (deg <= -180.0)
        deg += 360.0;
    return deg;
}
