/* projector_solve.c - decode camera photos of the projector patterns into
 * (table inches, projector pixel) pairs and fit the map.
 *
 * Per camera pixel: usable when white - black shows enough contrast and the
 * white photo is not saturated; the Gray bits (thresholded at the midpoint
 * of black and white) give the 8-pixel cell, the 6-step phase gives the
 * position within a 32-pixel period, unwrapped with the cell.  A pixel whose
 * phase and Gray code disagree by more than the unwrapping tolerance is
 * dropped.  Camera pixels go to the felt (z = 0) through the pose solved
 * from the rig's anchors.  The homography is fitted by least squares with
 * outliers dropped over a few rounds; then a correction grid of residual
 * offsets is kept if it makes the fit clearly better. */
#include "projector_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vision.h"

void calib_projector_opts_default(calib_projector_opts *o)
{
    o->step_px = 2;
    o->min_contrast = 12;
    o->min_points = 2000;
    o->correction_grid = 1;
    o->grid_step_in = 3;
    o->surfaces = NULL;
    o->nsurfaces = 0;
    o->trim_in = 0.5;
    o->min_surface_points = 200;
}

typedef struct solve__pts {
    double *cam;   /* camera pixels (n*2) */
    double *table; /* table inches (n*2) */
    double *proj;  /* projector pixels (n*2) */
    double *z;     /* height of the surface hit, inches (n; NULL = all felt) */
    int *surf;     /* raised surface hit (n; -1 = the felt) */
    int n, cap;
} solve__pts;

static void solve__pts_free(solve__pts *p)
{
    free(p->cam);
    free(p->table);
    free(p->proj);
    free(p->z);
    free(p->surf);
    memset(p, 0, sizeof *p);
}

static int solve__bits(int side)
{
    int cells = (side + CALIB_PROJECTOR_CELL_PX - 1) / CALIB_PROJECTOR_CELL_PX, bits = 0;
    while ((1 << bits) < cells)
        bits++;
    return bits < 1 ? 1 : bits;
}

/* Pose from the anchors in one photo. */
static tt_status solve__pose(const calib_rig *rig, const tt_image *im, calib_pose *pose, tt_err *err)
{
    vision_detector_opts o;
    vision_detector *det = NULL;
    vision_detections ds = {0};
    tt_status st;
    vision_detector_opts_default(&o);
    calib_rig_detector_opts(rig, &o);
    if ((st = vision_detector_create(&o, &det, err)) == TT_OK && (st = vision_detect(det, im, &ds, err)) == TT_OK)
        st = calib_pose_solve(rig, &ds, pose, err);
    vision_detections_free(&ds);
    vision_detector_destroy(det);
    return st;
}

static double solve__phase(const tt_image *caps, int first, int idx, double *amp)
{
    double s = 0, c = 0;
    for (int k = 0; k < CALIB_PROJECTOR_PHASE_STEPS; k++) {
        double d = 2 * M_PI * k / CALIB_PROJECTOR_PHASE_STEPS;
        double v = caps[first + k].data[idx];
        s += v * sin(d);
        c += v * cos(d);
    }
    *amp = 2.0 / CALIB_PROJECTOR_PHASE_STEPS * hypot(s, c);
    double th = atan2(s, c); /* pattern = cos(2 pi p / P - d) */
    if (th < 0)
        th += 2 * M_PI;
    return th / (2 * M_PI) * CALIB_PROJECTOR_PERIOD_PX;
}

/* Decode one axis at camera pixel idx; returns 0 if unusable. */
static int solve__axis(const tt_image *caps, int gray_first, int bits, int phase_first, int idx, double mid,
                       double contrast, int side, double *out)
{
    unsigned g = 0;
    for (int b = 0; b < bits; b++)
        g = (g << 1) | (caps[gray_first + b].data[idx] > mid ? 1u : 0u);
    unsigned cell = g;
    for (unsigned sh = 1; sh < 32; sh <<= 1)
        cell ^= cell >> sh;
    double coarse = cell * (double)CALIB_PROJECTOR_CELL_PX + (CALIB_PROJECTOR_CELL_PX - 1) * 0.5;
    double amp, frac = solve__phase(caps, phase_first, idx, &amp);
    if (amp < 0.18 * contrast || amp < 3)
        return 0;
    const double P = CALIB_PROJECTOR_PERIOD_PX;
    double p = frac + P * round((coarse - frac) / P);
    if (fabs(p - coarse) > CALIB_PROJECTOR_CELL_PX * 1.5)
        return 0;
    if (p < -0.5 || p > side - 0.5)
        return 0;
    *out = p;
    return 1;
}

static void solve__apply_h(const double H[9], double x, double y, double *u, double *v)
{
    double w = H[6] * x + H[7] * y + H[8];
    *u = (H[0] * x + H[1] * y + H[2]) / w;
    *v = (H[3] * x + H[4] * y + H[5]) / w;
}

/* The points marked in inl, table side into src and projector side into
 * dst (x y pairs); returns how many. */
static int solve__inliers(const solve__pts *p, const unsigned char *inl, double *src, double *dst)
{
    int m = 0;
    for (int i = 0; i < p->n; i++)
        if (inl[i]) {
            memcpy(src + 2 * m, p->table + 2 * i, 2 * sizeof *src);
            memcpy(dst + 2 * m, p->proj + 2 * i, 2 * sizeof *dst);
            m++;
        }
    return m;
}

/* Robust least-squares homography table -> projector.  inl[i] = 1 for the
 * points kept. */
static tt_status solve__fit(const solve__pts *p, double H[9], unsigned char *inl, int *ninl, tt_err *err)
{
    int n = p->n, m;
    double *src = malloc((size_t)n * 2 * sizeof *src), *dst = malloc((size_t)n * 2 * sizeof *dst);
    double *res = malloc((size_t)n * sizeof *res), *tmp = malloc((size_t)n * sizeof *tmp);
    tt_status st = TT_OK;
    if (!src || !dst || !res || !tmp) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    memset(inl, 1, (size_t)n);
    for (int round_ = 0; round_ < CALIB_PROJECTOR__ROUNDS; round_++) {
        m = solve__inliers(p, inl, src, dst);
        if ((st = cvw_find_homography(src, dst, m, H, err)) != TT_OK)
            goto done;
        for (int i = 0; i < n; i++) {
            double u, v;
            solve__apply_h(H, p->table[2 * i], p->table[2 * i + 1], &u, &v);
            res[i] = hypot(u - p->proj[2 * i], v - p->proj[2 * i + 1]);
            if (!isfinite(res[i]))
                res[i] = 1e9;
        }
        if ((st = calib_projector__keep(res, tmp, n, round_, 8, inl, ninl, err)) != TT_OK)
            goto done;
    }
    /* final fit on the final inliers */
    m = solve__inliers(p, inl, src, dst);
    st = cvw_find_homography(src, dst, m, H, err);
done:
    free(src);
    free(dst);
    free(res);
    free(tmp);
    return st;
}

/* Residuals of the map over the inliers: RMS in projector px, RMS in table
 * inches (measured projector pixel taken back through the inverse map),
 * largest in px. */
static void solve__residuals(const calib_projector *pj, const solve__pts *p, const unsigned char *inl, double *rms_px,
                             double *rms_in, double *max_px)
{
    double s_px = 0, s_in = 0, mx = 0, H[9];
    int m = 0;
    calib_projector_homography(pj, H);
    int grid = calib_projector_has_grid(pj);
    for (int i = 0; i < p->n; i++) {
        if (!inl[i])
            continue;
        double q[2];
        calib_projector_map(pj, p->table + 2 * i, 1, q);
        double du = q[0] - p->proj[2 * i], dv = q[1] - p->proj[2 * i + 1];
        double r2 = du * du + dv * dv;
        s_px += r2;
        if (r2 > mx)
            mx = r2;
        /* inches: the local inverse Jacobian of the map turns the pixel
         * residual into a table displacement */
        double x = p->table[2 * i], y = p->table[2 * i + 1], e = 0.01, a[2], b[2];
        double xa[2] = {x + e, y}, xb[2] = {x, y + e};
        calib_projector_map(pj, xa, 1, a);
        calib_projector_map(pj, xb, 1, b);
        double j00 = (a[0] - q[0]) / e, j10 = (a[1] - q[1]) / e, j01 = (b[0] - q[0]) / e, j11 = (b[1] - q[1]) / e;
        double det = j00 * j11 - j01 * j10;
        (void)grid;
        if (fabs(det) > 1e-12) {
            double tx = (j11 * du - j01 * dv) / det, ty = (-j10 * du + j00 * dv) / det;
            s_in += tx * tx + ty * ty;
        }
        m++;
    }
    *rms_px = m ? sqrt(s_px / m) : 0;
    *rms_in = m ? sqrt(s_in / m) : 0;
    *max_px = sqrt(mx);
}

/* Under a 3D model, each point's table position becomes where its
 * projector pixel's ray (through the fitted P) meets the felt: there the
 * felt map (P at height 0) gives the same pixel, so the residuals and the
 * correction grid - looked up there by calib_projector_map3 - work as on
 * a flat table. */
static void solve__to_felt(const calib_projector *pj, solve__pts *p)
{
    double P[12];
    calib_projector_pinhole(pj, P);
    for (int i = 0; i < p->n; i++) {
        double u, v, xy[2];
        if (p->z[i] == 0 || !calib_projector__apply_p(P, p->table[2 * i], p->table[2 * i + 1], p->z[i], &u, &v) ||
            !calib_projector_unmap(pj, u, v, xy))
            continue;
        p->table[2 * i] = xy[0];
        p->table[2 * i + 1] = xy[1];
    }
}

/* Inliers on raised surfaces: how many, and their RMS in projector px. */
static void solve__raised_rms(const calib_projector *pj, const solve__pts *p, const unsigned char *inl, int *count,
                              double *rms)
{
    double s = 0;
    int m = 0;
    for (int i = 0; i < p->n; i++) {
        if (!inl[i] || p->surf[i] < 0)
            continue;
        double q[2];
        calib_projector_map(pj, p->table + 2 * i, 1, q);
        s += (q[0] - p->proj[2 * i]) * (q[0] - p->proj[2 * i]) + (q[1] - p->proj[2 * i + 1]) * (q[1] - p->proj[2 * i + 1]);
        m++;
    }
    *count = m;
    *rms = m ? sqrt(s / m) : 0;
}

/* Correction grid: residual offsets splatted bilinearly onto nodes over the
 * lit area; empty nodes take their neighbours' mean.  Kept when it lowers
 * the RMS clearly. */
static tt_status solve__grid(calib_projector *pj, const solve__pts *p, const unsigned char *inl,
                             const double bbox[4], double step, tt_err *err)
{
    int nx = (int)ceil((bbox[2] - bbox[0]) / step) + 1, ny = (int)ceil((bbox[3] - bbox[1]) / step) + 1;
    if (nx < 2)
        nx = 2;
    if (ny < 2)
        ny = 2;
    if ((size_t)nx * ny > 1000000)
        return TT_OK;
    size_t nn = (size_t)nx * ny;
    double *sx = calloc(nn, sizeof *sx), *sy = calloc(nn, sizeof *sy), *sw = calloc(nn, sizeof *sw);
    unsigned char *have = calloc(nn, 1);
    tt_status st = TT_OK;
    double H[9];
    if (!sx || !sy || !sw || !have) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    calib_projector_homography(pj, H);
    for (int i = 0; i < p->n; i++) {
        if (!inl[i])
            continue;
        double u, v, x = p->table[2 * i], y = p->table[2 * i + 1];
        solve__apply_h(H, x, y, &u, &v);
        double du = p->proj[2 * i] - u, dv = p->proj[2 * i + 1] - v;
        double gx = (x - bbox[0]) / step, gy = (y - bbox[1]) / step;
        int ix = (int)floor(gx), iy = (int)floor(gy);
        if (ix < 0 || iy < 0 || ix > nx - 2 || iy > ny - 2)
            continue;
        double fx = gx - ix, fy = gy - iy;
        double w[4] = {(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy};
        size_t k[4] = {(size_t)iy * nx + ix, (size_t)iy * nx + ix + 1, (size_t)(iy + 1) * nx + ix,
                       (size_t)(iy + 1) * nx + ix + 1};
        for (int q = 0; q < 4; q++) {
            sx[k[q]] += w[q] * du;
            sy[k[q]] += w[q] * dv;
            sw[k[q]] += w[q];
        }
    }
    int nhave = 0;
    for (size_t k = 0; k < nn; k++) {
        if (sw[k] >= 20) {
            sx[k] /= sw[k];
            sy[k] /= sw[k];
            have[k] = 1;
            nhave++;
        } else {
            sx[k] = sy[k] = 0;
        }
    }
    if (nhave < 4)
        goto done;
    /* fill empty nodes from filled neighbours, a ring at a time */
    for (int pass = 0; pass < nx + ny; pass++) {
        int changed = 0;
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                size_t k = (size_t)j * nx + i;
                if (have[k])
                    continue;
                double ax = 0, ay = 0;
                int c = 0;
                const int d[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
                for (int q = 0; q < 4; q++) {
                    int a = i + d[q][0], b = j + d[q][1];
                    if (a < 0 || b < 0 || a >= nx || b >= ny || have[(size_t)b * nx + a] != 1)
                        continue;
                    ax += sx[(size_t)b * nx + a];
                    ay += sy[(size_t)b * nx + a];
                    c++;
                }
                if (c) {
                    sx[k] = ax / c;
                    sy[k] = ay / c;
                    have[k] = 2;
                    changed = 1;
                }
            }
        for (size_t k = 0; k < nn; k++)
            if (have[k] == 2)
                have[k] = 1;
        if (!changed)
            break;
    }
    st = calib_projector_set_grid(pj, bbox[0], bbox[1], step, nx, ny, sx, sy, err);
done:
    free(sx);
    free(sy);
    free(sw);
    free(have);
    return st;
}

/* Point in polygon (even-odd) and distance to its outline. */
static int solve__inside(const double *xy, int n, double x, double y)
{
    int in = 0;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        double xi = xy[2 * i], yi = xy[2 * i + 1], xj = xy[2 * j], yj = xy[2 * j + 1];
        if ((yi > y) != (yj > y) && x < xj + (y - yj) * (xi - xj) / (yi - yj))
            in = !in;
    }
    return in;
}

static double solve__edge_dist(const double *xy, int n, double x, double y)
{
    double best = INFINITY;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        double ax = xy[2 * j], ay = xy[2 * j + 1], ex = xy[2 * i] - ax, ey = xy[2 * i + 1] - ay;
        double l2 = ex * ex + ey * ey, t = l2 > 0 ? ((x - ax) * ex + (y - ay) * ey) / l2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double d = hypot(x - ax - t * ex, y - ay - t * ey);
        if (d < best)
            best = d;
    }
    return best;
}

/* What each decoded camera pixel sees, from its ray: the top of the
 * highest raised surface whose outline holds the ray's hit at that
 * height, else the felt (p->table holds the felt hits on entry).  A ray
 * whose felt hit is under a surface but whose hit at the top is not on
 * it met a wall; pixels within trim_in of an outline (walls, the
 * projector's shadow, the outline's own error) are dropped. */
static tt_status solve__surfaces(const calib_rig *rig, const calib_pose *pose, const calib_projector_opts *o,
                                 solve__pts *p, tt_err *err)
{
    size_t nn = (size_t)(p->n > 0 ? p->n : 1);
    double *top = malloc(nn * 2 * sizeof *top), *felt = malloc(nn * 2 * sizeof *felt);
    unsigned char *drop = calloc(nn, 1);
    tt_status st = TT_OK;
    p->z = calloc((size_t)(p->cap > 0 ? p->cap : 1), sizeof *p->z);
    p->surf = malloc((size_t)(p->cap > 0 ? p->cap : 1) * sizeof *p->surf);
    if (!top || !felt || !drop || !p->z || !p->surf) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    memcpy(felt, p->table, (size_t)p->n * 2 * sizeof *felt);
    for (int i = 0; i < p->n; i++)
        p->surf[i] = -1;
    for (int k = 0; k < o->nsurfaces; k++) {
        const calib_projector_surface *sf = &o->surfaces[k];
        if ((st = calib_map_pixels(&rig->camera, pose, p->cam, p->n, sf->height_in, top, err)) != TT_OK)
            goto done;
        for (int i = 0; i < p->n; i++) {
            double tx = top[2 * i], ty = top[2 * i + 1], fx = felt[2 * i], fy = felt[2 * i + 1];
            int on_top = solve__inside(sf->xy, sf->n, tx, ty);
            if (solve__edge_dist(sf->xy, sf->n, tx, ty) <= o->trim_in ||
                (!on_top && (solve__inside(sf->xy, sf->n, fx, fy) ||
                             solve__edge_dist(sf->xy, sf->n, fx, fy) <= o->trim_in))) {
                drop[i] = 1;
            } else if (on_top && sf->height_in > p->z[i]) {
                p->z[i] = sf->height_in;
                p->surf[i] = k;
                p->table[2 * i] = tx;
                p->table[2 * i + 1] = ty;
            }
        }
    }
    int m = 0;
    for (int i = 0; i < p->n; i++) {
        if (drop[i])
            continue;
        memmove(p->cam + 2 * m, p->cam + 2 * i, 2 * sizeof *p->cam);
        memmove(p->table + 2 * m, p->table + 2 * i, 2 * sizeof *p->table);
        memmove(p->proj + 2 * m, p->proj + 2 * i, 2 * sizeof *p->proj);
        p->z[m] = p->z[i];
        p->surf[m] = p->surf[i];
        m++;
    }
    p->n = m;
done:
    free(top);
    free(felt);
    free(drop);
    return st;
}

/* The photos are the ones the projector's size needs, in pattern order,
 * each an 8-bit gray image of the rig's camera size. */
static tt_status solve__check_photos(const calib_rig *rig, int width, int height, const tt_image *caps, int ncaps,
                                     tt_err *err)
{
    int count = calib_projector_pattern_count(width, height);
    calib_projector_pattern info;
    tt_status st;
    if (count == 0)
        return tt_err_set(err, TT_ERR_ARG, "projector size %dx%d is not valid (64..%d pixels each side)", width,
                          height, CALIB_PROJECTOR_MAX_SIDE);
    if (ncaps != count)
        return tt_err_set(err, TT_ERR_ARG, "need %d photos (one per pattern) for a %dx%d projector, got %d", count,
                          width, height, ncaps);
    for (int i = 0; i < count; i++) {
        calib_projector_pattern_info(width, height, i, &info, NULL);
        if (!caps[i].data || caps[i].channels != 1)
            return tt_err_set(err, TT_ERR_ARG, "photo of %s must be an 8-bit gray image", info.name);
        if ((st = calib_rig_check_image(rig, caps[i].width, caps[i].height, err)) != TT_OK) {
            tt_err_prefix(err, "photo %s", info.name);
            return st;
        }
    }
    return TT_OK;
}

/* How visible are the patterns: an error when the black photo is
 * overexposed or too few pixels are lit by the white one. */
static tt_status solve__visible(const tt_image *caps, const calib_projector_opts *opts, tt_err *err)
{
    const tt_image *B = &caps[0], *W = &caps[1];
    int cw = B->width, ch = B->height;
    long lit = 0, bright = 0, total = (long)cw * ch;
    double sum_black = 0;
    for (int y = 0; y < ch; y++)
        for (int x = 0; x < cw; x++) {
            int b = B->data[(size_t)y * B->stride + x], w = W->data[(size_t)y * W->stride + x];
            sum_black += b;
            bright += b >= 250;
            lit += w - b >= opts->min_contrast;
        }
    if (bright > total / 2)
        return tt_err_set(err, TT_ERR_MISMATCH,
                          "the photo of the black pattern is overexposed (%ld%% of it is white): the room is too "
                          "bright or the camera exposure too long; dim the lights or shorten the exposure",
                          bright * 100 / total);
    if (lit < opts->min_points)
        return tt_err_set(err, TT_ERR_MISMATCH,
                          "the projector's patterns are not visible: the white and black photos differ by %g gray "
                          "levels or more at only %ld pixels; is the projector on and aimed at the table, or is the "
                          "room too bright (mean black %.0f/255)?",
                          opts->min_contrast, lit, sum_black / total);
    return TT_OK;
}

/* The camera pose from the anchors: in the black photo (room light only),
 * or the white one when the room is dark (or it sees more anchors). */
static tt_status solve__camera_pose(const calib_rig *rig, const tt_image *caps, calib_pose *pose, tt_err *err)
{
    calib_pose pose_w;
    tt_err e2 = {0};
    tt_status st = solve__pose(rig, &caps[0], pose, err);
    if (solve__pose(rig, &caps[1], &pose_w, &e2) == TT_OK &&
        (st != TT_OK || pose_w.anchors_used > pose->anchors_used)) {
        *pose = pose_w;
        st = TT_OK;
    }
    if (st != TT_OK)
        tt_err_prefix(err, "photos of the black and white patterns");
    return st;
}

/* Decode every step_px-th camera pixel with enough contrast (not
 * saturated) into its projector pixel: pts gets the camera and projector
 * points (its lists allocated here). */
static tt_status solve__decode(const tt_image *caps, int count, int width, int height,
                               const calib_projector_opts *opts, solve__pts *pts, tt_err *err)
{
    const tt_image *B = &caps[0], *W = &caps[1];
    int cw = B->width, ch = B->height;
    int bx = solve__bits(width), by = solve__bits(height), S = CALIB_PROJECTOR_PHASE_STEPS;
    int gx0 = 2, gy0 = 2 + bx, px0 = 2 + bx + by, py0 = px0 + S;
    pts->cap = (int)(((long)cw / opts->step_px + 1) * ((long)ch / opts->step_px + 1));
    pts->cam = malloc((size_t)pts->cap * 2 * sizeof *pts->cam);
    pts->table = malloc((size_t)pts->cap * 2 * sizeof *pts->table);
    pts->proj = malloc((size_t)pts->cap * 2 * sizeof *pts->proj);
    if (!pts->cam || !pts->table || !pts->proj)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (int i = 0; i < count; i++)
        if (caps[i].stride != B->stride)
            return tt_err_set(err, TT_ERR_ARG, "photos must share one row layout");
    for (int y = opts->step_px / 2; y < ch; y += opts->step_px)
        for (int x = opts->step_px / 2; x < cw; x += opts->step_px) {
            int idx = y * B->stride + x;
            double b = B->data[idx], w = W->data[idx], c = w - b;
            if (c < opts->min_contrast || w >= 254)
                continue;
            double mid = 0.5 * (w + b), u, v;
            if (!solve__axis(caps, gx0, bx, px0, idx, mid, c, width, &u) ||
                !solve__axis(caps, gy0, by, py0, idx, mid, c, height, &v))
                continue;
            pts->cam[2 * pts->n] = x;
            pts->cam[2 * pts->n + 1] = y;
            pts->proj[2 * pts->n] = u;
            pts->proj[2 * pts->n + 1] = v;
            pts->n++;
        }
    return TT_OK;
}

/* Keep the points on the table. */
static void solve__keep_on_table(const calib_rig *rig, solve__pts *pts)
{
    int m = 0;
    for (int i = 0; i < pts->n; i++) {
        double x = pts->table[2 * i], y = pts->table[2 * i + 1];
        if (!(x >= 0 && y >= 0 && x <= rig->width_in && y <= rig->depth_in))
            continue;
        memmove(pts->table + 2 * m, pts->table + 2 * i, 2 * sizeof *pts->table);
        memmove(pts->proj + 2 * m, pts->proj + 2 * i, 2 * sizeof *pts->proj);
        memmove(pts->cam + 2 * m, pts->cam + 2 * i, 2 * sizeof *pts->cam);
        if (pts->z) {
            pts->z[m] = pts->z[i];
            pts->surf[m] = pts->surf[i];
        }
        m++;
    }
    pts->n = m;
}

/* Enough points on the table, and on the top of each raised surface. */
static tt_status solve__enough(const calib_projector_opts *opts, const solve__pts *pts, tt_err *err)
{
    if (pts->n < opts->min_points)
        return tt_err_set(err, TT_ERR_MISMATCH,
                          "the projector's patterns are not readable on the table (%d usable camera pixels, need %d): "
                          "is the projector on, focused and aimed at the table, and the room not too bright? Are the "
                          "photos in pattern order (each under its pattern's file name)?",
                          pts->n, opts->min_points);
    for (int k = 0; k < opts->nsurfaces; k++) {
        const calib_projector_surface *sf = &opts->surfaces[k];
        int on = 0;
        for (int i = 0; i < pts->n; i++)
            on += pts->surf[i] == k;
        if (on < opts->min_surface_points)
            return tt_err_set(err, TT_ERR_MISMATCH,
                              "raised piece \"%s\" (%.2g\" high) is not seen lit in the photos: %d camera pixels "
                              "decoded on its top, need %d; is it under the projector's light and in the camera's "
                              "view, and does its outline in the scenario match where it stands?",
                              sf->id ? sf->id : "?", sf->height_in, on, opts->min_surface_points);
    }
    return TT_OK;
}

/* The fitted map: a pinhole (P) over raised surfaces, else a homography
 * (H). */
typedef struct solve__model {
    int pinhole;
    double H[9], P[12];
} solve__model;

static tt_status solve__create(int width, int height, const solve__model *m, calib_projector **pj, tt_err *err)
{
    return m->pinhole ? calib_projector_create_pinhole(width, height, m->P, pj, err)
                      : calib_projector_create(width, height, m->H, pj, err);
}

/* Fit the model to the points (inl: 1 for the inliers kept), with enough
 * of them agreeing. */
static tt_status solve__fit_model(const calib_projector_opts *opts, solve__pts *pts, solve__model *m,
                                  unsigned char *inl, calib_projector_report *rep, tt_err *err)
{
    tt_status st;
    m->pinhole = opts->nsurfaces > 0;
    if (m->pinhole) {
        if ((st = calib_projector__fit_pinhole(pts->table, pts->z, pts->proj, pts->n, m->P, inl, &rep->inliers,
                                               err)) != TT_OK)
            return st;
        rep->pinhole = 1;
    } else if ((st = solve__fit(pts, m->H, inl, &rep->inliers, err)) != TT_OK)
        return st;
    if (rep->inliers < opts->min_points)
        return tt_err_set(err, TT_ERR_MISMATCH,
                          "only %d of %d decoded pixels agree on one projector position: is the mat flat and did the "
                          "camera or projector move between photos?",
                          rep->inliers, pts->n);
    return TT_OK;
}

/* The part of the table the inliers cover: x0, y0, x1, y1 inches. */
static void solve__covered(const solve__pts *pts, const unsigned char *inl, double covered[4])
{
    covered[0] = covered[1] = 1e300;
    covered[2] = covered[3] = -1e300;
    for (int i = 0; i < pts->n; i++) {
        if (!inl[i])
            continue;
        double x = pts->table[2 * i], y = pts->table[2 * i + 1];
        covered[0] = fmin(covered[0], x);
        covered[1] = fmin(covered[1], y);
        covered[2] = fmax(covered[2], x);
        covered[3] = fmax(covered[3], y);
    }
}

/* A correction grid of residual offsets on the model, kept (in *pj, with
 * its residuals in rep) where it makes the fit clearly better. */
static tt_status solve__try_grid(int width, int height, const solve__model *m, const calib_projector_opts *opts,
                                 const solve__pts *pts, const unsigned char *inl, calib_projector **pj,
                                 calib_projector_report *rep, tt_err *err)
{
    calib_projector *pj_grid = NULL;
    tt_status st;
    if ((st = solve__create(width, height, m, &pj_grid, err)) != TT_OK ||
        (st = solve__grid(pj_grid, pts, inl, rep->covered, opts->grid_step_in, err)) != TT_OK) {
        calib_projector_destroy(pj_grid);
        return st;
    }
    if (calib_projector_has_grid(pj_grid)) {
        double g_px, g_in, g_max;
        solve__residuals(pj_grid, pts, inl, &g_px, &g_in, &g_max);
        if (g_px < 0.85 * rep->rms_px && g_px < rep->rms_px - 0.03) {
            calib_projector_destroy(*pj);
            *pj = pj_grid;
            pj_grid = NULL;
            rep->rms_px = g_px;
            rep->rms_in = g_in;
            rep->max_px = g_max;
            rep->grid_used = 1;
        }
    }
    calib_projector_destroy(pj_grid);
    return TT_OK;
}

tt_status calib_projector_solve(const calib_rig *rig, int width, int height, const tt_image *caps, int ncaps,
                                const calib_projector_opts *opts_in, calib_projector **out,
                                calib_projector_report *report, tt_err *err)
{
    calib_projector_opts opts;
    calib_projector_report rep;
    calib_projector *pj = NULL;
    calib_pose pose;
    solve__pts pts = {0};
    solve__model model;
    unsigned char *inl = NULL;
    tt_status st;

    *out = NULL;
    memset(&rep, 0, sizeof rep);
    if (opts_in)
        opts = *opts_in;
    else
        calib_projector_opts_default(&opts);
    if (opts.step_px < 1)
        opts.step_px = 1;
    if ((st = solve__check_photos(rig, width, height, caps, ncaps, err)) != TT_OK ||
        (st = solve__visible(caps, &opts, err)) != TT_OK || (st = solve__camera_pose(rig, caps, &pose, err)) != TT_OK)
        return st;
    rep.anchors_used = pose.anchors_used;
    rep.pose_rms_px = pose.rms_px;

    if ((st = solve__decode(caps, ncaps, width, height, &opts, &pts, err)) != TT_OK)
        goto fail;
    rep.decoded = pts.n;
    if ((st = calib_map_pixels(&rig->camera, &pose, pts.cam, pts.n, 0.0, pts.table, err)) != TT_OK)
        goto fail;
    if (opts.nsurfaces > 0 && (st = solve__surfaces(rig, &pose, &opts, &pts, err)) != TT_OK)
        goto fail;
    solve__keep_on_table(rig, &pts);
    if ((st = solve__enough(&opts, &pts, err)) != TT_OK)
        goto fail;
    if (!(inl = malloc((size_t)pts.n))) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if ((st = solve__fit_model(&opts, &pts, &model, inl, &rep, err)) != TT_OK ||
        (st = solve__create(width, height, &model, &pj, err)) != TT_OK)
        goto fail;
    solve__covered(&pts, inl, rep.covered);
    if (rep.pinhole)
        solve__to_felt(pj, &pts);
    solve__residuals(pj, &pts, inl, &rep.rms_px, &rep.rms_in, &rep.max_px);
    rep.rms_px_homography = rep.rms_px;
    if (opts.correction_grid && opts.grid_step_in > 0 &&
        (st = solve__try_grid(width, height, &model, &opts, &pts, inl, &pj, &rep, err)) != TT_OK)
        goto fail;
    if (rep.pinhole)
        solve__raised_rms(pj, &pts, inl, &rep.raised, &rep.rms_px_raised);
    calib_projector_set_residual(pj, rep.rms_px, rep.rms_in, rep.inliers);
    *out = pj;
    pj = NULL;
    if (report)
        *report = rep;
fail:
    calib_projector_destroy(pj);
    solve__pts_free(&pts);
    free(inl);
    return st;
}
