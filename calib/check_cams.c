/* check_cams.c - see check_cams.h. */
#include "check_cams.h"

#include "fuse.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void calib_check_cams_free(calib_check_cams_report *r)
{
    if (!r)
        return;
    free(r->cover);
    r->cover = NULL;
}

__attribute__((format(printf, 2, 3))) static void cams__advise(calib_check_cams_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (r->nadvice < CALIB_CHECK_CAMS_ADVICE)
        vsnprintf(r->advice[r->nadvice++], sizeof r->advice[0], fmt, ap);
    va_end(ap);
}

static double cams__area(const double *px)
{
    double a = 0;
    for (int k = 0; k < 4; k++) {
        int j = (k + 1) % 4;
        a += px[2 * k] * px[2 * j + 1] - px[2 * j] * px[2 * k + 1];
    }
    return fabs(a) / 2;
}

/* Camera k over every spot: which it reads (bit k of cover), its pixels per
 * cell where its frame holds the whole printed tag. */
static tt_status cams__camera(const calib_rig *rig, int k, const calib_pose *pose, calib_check_cams_report *r,
                              tt_err *err)
{
    calib_rig view;
    calib_rig_view(rig, k, &view);
    calib_check_camera *c = &r->cams[k];
    double size = rig->base_size_in > 0 ? rig->base_size_in : 1, cell = size / CALIB_CELLS_PER_TAG;
    double half_print = size * 10 / 8 / 2, h = rig->base_height_mm / 25.4;
    size_t n = (size_t)r->nx * (size_t)r->ny;
    double *xy = malloc(sizeof(double) * 16 * n), *px = malloc(sizeof(double) * 16 * n);
    if (!xy || !px) {
        free(xy);
        free(px);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory checking %zu spots of the table", n);
    }
    const double dx[4] = {-1, 1, 1, -1}, dy[4] = {-1, -1, 1, 1};
    for (size_t s = 0; s < n; s++) {
        double x = fmin((double)(s % r->nx) * r->step_in, rig->width_in);
        double y = fmin((double)(s / r->nx) * r->step_in, rig->depth_in);
        for (int q = 0; q < 4; q++) {
            xy[16 * s + 2 * q] = x + dx[q] * cell / 2;
            xy[16 * s + 2 * q + 1] = y + dy[q] * cell / 2;
            xy[16 * s + 8 + 2 * q] = x + dx[q] * half_print;
            xy[16 * s + 8 + 2 * q + 1] = y + dy[q] * half_print;
        }
    }
    tt_status st = calib_project(&view.camera, pose, xy, (int)(8 * n), h, px, err);
    double sum = 0;
    int inframe = 0;
    c->min_px_per_cell = INFINITY;
    c->part[0] = c->part[1] = INFINITY;
    c->part[2] = c->part[3] = -INFINITY;
    for (size_t s = 0; st == TT_OK && s < n; s++) {
        int in = 1;
        for (int q = 4; q < 8; q++) {
            double u = px[16 * s + 2 * q], v = px[16 * s + 2 * q + 1];
            in &= isfinite(u) && isfinite(v) && u >= 0 && v >= 0 && u <= view.camera.width - 1 &&
                  v <= view.camera.height - 1;
        }
        double ppc = sqrt(cams__area(&px[16 * s]));
        if (!in || !isfinite(ppc))
            continue;
        double x = xy[16 * s] + cell / 2, y = xy[16 * s + 1] + cell / 2;
        inframe++;
        sum += ppc;
        if (ppc < c->min_px_per_cell) {
            c->min_px_per_cell = ppc;
            c->min_at[0] = x;
            c->min_at[1] = y;
        }
        c->max_px_per_cell = fmax(c->max_px_per_cell, ppc);
        if (ppc < CALIB_MIN_PX_PER_CELL)
            continue;
        r->cover[s] |= (unsigned char)(1u << k);
        c->spots++;
        c->part[0] = fmin(c->part[0], x);
        c->part[1] = fmin(c->part[1], y);
        c->part[2] = fmax(c->part[2], x);
        c->part[3] = fmax(c->part[3], y);
    }
    free(xy);
    free(px);
    if (st != TT_OK)
        return st;
    if (!inframe) {
        c->min_px_per_cell = 0;
        c->part[0] = c->part[1] = c->part[2] = c->part[3] = 0;
    } else if (!c->spots)
        c->part[0] = c->part[1] = c->part[2] = c->part[3] = 0;
    double ppi = inframe ? sum / inframe * CALIB_CELLS_PER_TAG / size : 0;
    c->reprojection_rms_px = pose->rms_px;
    c->reprojection_rms_in = ppi > 0 ? pose->rms_px / ppi : 0;
    c->camera_height_in = fabs(pose->center[2]);
    return TT_OK;
}

/* The centre of the spots camera k reads. */
static void cams__centroid(const calib_check_cams_report *r, int k, double c[2])
{
    double sx = 0, sy = 0;
    int m = 0;
    for (int j = 0; j < r->ny; j++)
        for (int i = 0; i < r->nx; i++)
            if (r->cover[(size_t)j * r->nx + i] >> k & 1u) {
                sx += i * r->step_in;
                sy += j * r->step_in;
                m++;
            }
    c[0] = m ? sx / m : 0;
    c[1] = m ? sy / m : 0;
}

static void cams__overlaps(const calib_rig *rig, calib_check_cams_report *r)
{
    for (int a = 0; a < rig->ncameras; a++)
        for (int b = a + 1; b < rig->ncameras; b++) {
            double ca[2], cb[2], lo = INFINITY, hi = -INFINITY;
            cams__centroid(r, a, ca);
            cams__centroid(r, b, cb);
            double ux = cb[0] - ca[0], uy = cb[1] - ca[1], L = hypot(ux, uy);
            ux = L > 0 ? ux / L : 1;
            uy = L > 0 ? uy / L : 0;
            for (int j = 0; j < r->ny; j++)
                for (int i = 0; i < r->nx; i++) {
                    unsigned m = r->cover[(size_t)j * r->nx + i];
                    if ((m >> a & 1u) && (m >> b & 1u)) {
                        double p = i * r->step_in * ux + j * r->step_in * uy;
                        lo = fmin(lo, p);
                        hi = fmax(hi, p);
                    }
                }
            if (hi >= lo)
                r->overlaps[r->noverlaps++] = (calib_check_overlap){a, b, hi - lo};
        }
}

/* Distance from (x, y) to camera k's part of the table (0 inside). */
static double cams__dist(const calib_check_camera *c, double x, double y)
{
    if (!c->spots)
        return INFINITY;
    double dx = fmax(0, fmax(c->part[0] - x, x - c->part[2])), dy = fmax(0, fmax(c->part[1] - y, y - c->part[3]));
    return hypot(dx, dy);
}

static void cams__gap_advice(const calib_rig *rig, calib_check_cams_report *r, const calib_check_gap *g)
{
    double gx = (g->x0 + g->x1) / 2, gy = (g->y0 + g->y1) / 2;
    if (g->cam_a < 0) {
        cams__advise(r, "no camera reads the table from (%.0f, %.0f) to (%.0f, %.0f): check that every camera sees "
                        "the table and that its frame is the right one",
                     g->x0, g->y0, g->x1, g->y1);
        return;
    }
    const char *na = rig->cameras[g->cam_a].name;
    if (g->cam_b >= 0) {
        double ca[2], cb[2];
        cams__centroid(r, g->cam_a, ca);
        cams__centroid(r, g->cam_b, cb);
        double ux = cb[0] - ca[0], uy = cb[1] - ca[1], L = hypot(ux, uy);
        double t = L > 0 ? ((gx - ca[0]) * ux + (gy - ca[1]) * uy) / (L * L) : -1;
        if (t > 0 && t < 1) { /* between the two: bring them together */
            double w = L > 0 ? (fabs(ux) * (g->x1 - g->x0) + fabs(uy) * (g->y1 - g->y0)) / L : g->x1 - g->x0;
            const char *nb = rig->cameras[g->cam_b].name;
            cams__advise(r, "no camera reads a strip %.1f\" wide from (%.0f, %.0f) to (%.0f, %.0f), between %s and "
                            "%s: move %s about %.0f\" toward %s (or turn it that way), or raise both so that their "
                            "frames overlap by a few inches",
                         w, g->x0, g->y0, g->x1, g->y1, na, nb, nb, ceil(w + 2), na);
            return;
        }
    }
    double c[2];
    cams__centroid(r, g->cam_a, c);
    double d = cams__dist(&r->cams[g->cam_a], gx, gy);
    cams__advise(r, "no camera reads the table from (%.0f, %.0f) to (%.0f, %.0f): move %s about %.0f\" toward "
                    "(%.0f, %.0f) (or turn it that way), or raise it to see more",
                 g->x0, g->y0, g->x1, g->y1, na, ceil(d + 1), gx, gy);
}

/* The spots no camera reads, gathered into rectangles (4-connected). */
static tt_status cams__gaps(const calib_rig *rig, calib_check_cams_report *r, tt_err *err)
{
    size_t n = (size_t)r->nx * r->ny;
    int *stack = malloc(sizeof(int) * n);
    unsigned char *seen = calloc(n, 1);
    if (!stack || !seen) {
        free(stack);
        free(seen);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory finding the gaps");
    }
    for (size_t s0 = 0; s0 < n; s0++) {
        if (r->cover[s0] || seen[s0])
            continue;
        int top = 0, i0 = r->nx, j0 = r->ny, i1 = -1, j1 = -1;
        stack[top++] = (int)s0;
        seen[s0] = 1;
        while (top) {
            int s = stack[--top], i = s % r->nx, j = s / r->nx;
            i0 = i < i0 ? i : i0;
            j0 = j < j0 ? j : j0;
            i1 = i > i1 ? i : i1;
            j1 = j > j1 ? j : j1;
            const int ni[4] = {i - 1, i + 1, i, i}, nj[4] = {j, j, j - 1, j + 1};
            for (int q = 0; q < 4; q++) {
                if (ni[q] < 0 || nj[q] < 0 || ni[q] >= r->nx || nj[q] >= r->ny)
                    continue;
                int t = nj[q] * r->nx + ni[q];
                if (!r->cover[t] && !seen[t]) {
                    seen[t] = 1;
                    stack[top++] = t;
                }
            }
        }
        if (r->ngaps == CALIB_CHECK_MAX_GAPS) {
            r->more_gaps++;
            continue;
        }
        calib_check_gap *g = &r->gaps[r->ngaps++];
        double hs = r->step_in / 2;
        g->x0 = fmax(0, i0 * r->step_in - hs);
        g->y0 = fmax(0, j0 * r->step_in - hs);
        g->x1 = fmin(rig->width_in, i1 * r->step_in + hs);
        g->y1 = fmin(rig->depth_in, j1 * r->step_in + hs);
        /* the two cameras nearest it */
        double gx = (g->x0 + g->x1) / 2, gy = (g->y0 + g->y1) / 2, da = INFINITY, db = INFINITY;
        g->cam_a = g->cam_b = -1;
        for (int k = 0; k < rig->ncameras; k++) {
            double d = cams__dist(&r->cams[k], gx, gy);
            if (d < da) {
                db = da;
                g->cam_b = g->cam_a;
                da = d;
                g->cam_a = k;
            } else if (d < db) {
                db = d;
                g->cam_b = k;
            }
        }
        if (!isfinite(db))
            g->cam_b = -1;
        if (!isfinite(da))
            g->cam_a = -1;
    }
    free(stack);
    free(seen);
    return TT_OK;
}

tt_status calib_check_cams(const calib_rig *rig, const calib_pose *poses, const vision_detections *dets,
                           calib_check_cams_report *r, tt_err *err)
{
    memset(r, 0, sizeof *r);
    r->ncams = rig->ncameras > 0 ? rig->ncameras : 1;
    r->step_in = CALIB_CHECK_STEP_IN;
    r->nx = (int)floor(rig->width_in / r->step_in) + 1;
    r->ny = (int)floor(rig->depth_in / r->step_in) + 1;
    r->cover = calloc((size_t)r->nx * r->ny, 1);
    if (!r->cover)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory checking the table");
    tt_status st = TT_OK;
    for (int k = 0; k < r->ncams && st == TT_OK; k++) {
        r->cams[k].anchors_seen = calib_fuse_anchors_seen(rig, &dets[k], r->cams[k].anchors, sizeof r->cams[k].anchors);
        st = cams__camera(rig, k, &poses[k], r, err);
    }
    if (st == TT_OK)
        st = cams__gaps(rig, r, err);
    if (st != TT_OK) {
        calib_check_cams_free(r);
        return st;
    }
    cams__overlaps(rig, r);
    r->ok = r->ngaps == 0;
    for (int g = 0; g < r->ngaps && g < 4; g++)
        cams__gap_advice(rig, r, &r->gaps[g]);
    for (int k = 0; k < r->ncams; k++) {
        const calib_check_camera *c = &r->cams[k];
        if (c->min_px_per_cell > 0 && c->min_px_per_cell < CALIB_MIN_PX_PER_CELL)
            cams__advise(r, "lower %s to about %.0f\" above the felt instead of %.0f\" (its tags near (%.0f, %.0f) "
                            "read %.2f px per cell, %.1f needed), or print larger tags",
                         rig->cameras[k].name, floor(c->camera_height_in * c->min_px_per_cell / CALIB_MIN_PX_PER_CELL),
                         c->camera_height_in, c->min_at[0], c->min_at[1], c->min_px_per_cell, CALIB_MIN_PX_PER_CELL);
    }
    return TT_OK;
}

int calib_check_cams_map(const calib_check_cams_report *r, double cell_in, char *rows, int *ncols, size_t cap)
{
    int per = (int)fmax(1, round(cell_in / r->step_in));
    int cols = (r->nx + per - 1) / per, nrows = (r->ny + per - 1) / per;
    *ncols = cols;
    if ((size_t)nrows * (size_t)(cols + 1) > cap)
        return 0;
    for (int R = 0; R < nrows; R++) {
        for (int C = 0; C < cols; C++) {
            int none = 0, multi = 0, cam = -1, mixed = 0;
            for (int j = R * per; j < (R + 1) * per && j < r->ny; j++)
                for (int i = C * per; i < (C + 1) * per && i < r->nx; i++) {
                    unsigned m = r->cover[(size_t)j * r->nx + i];
                    if (!m) {
                        none = 1;
                        continue;
                    }
                    if (m & (m - 1)) {
                        multi = 1;
                        continue;
                    }
                    int k = __builtin_ctz(m);
                    mixed |= cam >= 0 && cam != k;
                    cam = k;
                }
            rows[R * (cols + 1) + C] = none ? '#' : multi || mixed ? '+' : (char)('1' + cam);
        }
        rows[R * (cols + 1) + cols] = 0;
    }
    return nrows;
}
