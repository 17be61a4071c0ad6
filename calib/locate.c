/* locate.c - figures in table inches: each base tag mapped through the
 * plane at the height it stands at, and that height checked by the tag's
 * own 3D pose (see calib_locate_ground in calib.h). */
#include "calib.h"
#include "calib_err.h"
#include "calib_tilt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALIB__GROUND_ITERS 6

/* A ground that answers NaN, Inf or below the felt is read as the felt. */
static double calib__ground(const tt_ground *g, double x, double y)
{
    double h = tt_ground_height(g, x, y);
    return isfinite(h) && h > 0 ? h : 0;
}

/* Centre of a tag whose undistorted corners (norm, 8) lie on the plane at
 * tag height h; NaN if a ray misses it. */
static void calib__centre(const calib_pose *pose, const double *norm, double h, double c[2])
{
    double t[8];
    calib_map_normalized(pose, norm, 4, &h, 4, t);
    c[0] = (t[0] + t[2] + t[4] + t[6]) / 4;
    c[1] = (t[1] + t[3] + t[5] + t[7]) / 4;
}

/* Iterate from stand height h: map the tag at h, look the ground up there,
 * map again at that height, until it stays (a fixed point).  A tag at a
 * terrain edge can swing between two heights (mapped high it lands off the
 * piece, low on it): then the height met nearest to `measured`. */
static double calib__fixed_ground(const calib_pose *pose, const double *norm, double base_in, const tt_ground *g,
                                  double h, double measured)
{
    double seen[CALIB__GROUND_ITERS], c[2];
    int n = 0;
    for (; n < CALIB__GROUND_ITERS; n++) {
        seen[n] = h;
        calib__centre(pose, norm, h + base_in, c);
        if (!isfinite(c[0]) || !isfinite(c[1]))
            return h;
        double next = calib__ground(g, c[0], c[1]);
        if (fabs(next - h) < 1e-9)
            return h;
        h = next;
    }
    double best = seen[0];
    for (int i = 1; i < n; i++)
        if (fabs(seen[i] - measured) < fabs(best - measured))
            best = seen[i];
    return best;
}

/* The ground's height under a tag.  More than one height can be
 * consistent (a tag on the felt just beyond a hill's far edge, mapped at
 * the hill's height, lands on the hill): the fixed points reached from the
 * felt and from the tag's measured height, the one nearer the measurement. */
static double calib__settle_ground(const calib_pose *pose, const double *norm, double base_in, const tt_ground *g,
                                   int measured, double stand, double *other)
{
    *other = 0;
    if (!g || !g->height_at)
        return 0;
    double a = calib__fixed_ground(pose, norm, base_in, g, 0, stand);
    *other = a;
    if (!measured || fabs(a - stand) <= 1e-9)
        return a;
    double b = calib__fixed_ground(pose, norm, base_in, g, stand > 0 ? stand : 0, stand);
    int pick_b = fabs(b - stand) < fabs(a - stand);
    *other = pick_b ? a : b;
    return pick_b ? b : a;
}

/* Where the diagonals of quad q (4 points, 8 doubles) cross: the image of
 * a square's centre whatever its pose.  0 if they are parallel. */
static int calib__diagonals(const double q[8], double m[2])
{
    double ax = q[4] - q[0], ay = q[5] - q[1], bx = q[6] - q[2], by = q[7] - q[3];
    double den = ax * by - ay * bx;
    if (!(fabs(den) > 1e-18))
        return 0;
    double t = ((q[2] - q[0]) * by - (q[3] - q[1]) * bx) / den;
    m[0] = q[0] + t * ax;
    m[1] = q[1] + t * ay;
    return isfinite(m[0]) && isfinite(m[1]);
}

/* The highest ground within CALIB_SLOPE_REACH_IN of (x, y): the top of the
 * slope a tilted tag may be on. */
static double calib__ground_near(const tt_ground *g, double x, double y)
{
    double top = calib__ground(g, x, y);
    for (int k = 0; k < 8; k++) {
        double a = k * (M_PI / 4), h = calib__ground(g, x + CALIB_SLOPE_REACH_IN * cos(a), y + CALIB_SLOPE_REACH_IN * sin(a));
        top = h > top ? h : top;
    }
    return top;
}

/* A tag's height and tilt from its shape, in closed form.  Its corners'
 * rays meet any level plane in the same quad, scaled about the point under
 * the camera in proportion to the camera's height above that plane; a
 * level tag meets the plane at its own height in the printed square
 * itself.  So with q the corners on the plane D0 below the camera and G =
 * (right edge, up edge) their mean edge vectors, the tag is D0 * size / s
 * below the camera, s^2 = trace(G'G) / 2.  A tag tilted by a on a slope is
 * foreshortened across the slope: the eigenvalues of G'G are s^2 and about
 * s^2 cos^2 a, which gives the tilt; a tilted tag's scale is then the
 * larger eigenvalue's.  Exact for a level tag; IPPE_SQUARE (its full 3D
 * pose) measured level tags' heights with 2-3 times the spread on 0.8" tags
 * and flipped to its mirror pose, 30 degrees off, on one tag in ten at
 * 0.1 px of noise.  But a tilted tag's corners stand at different heights,
 * which perspective turns into shape: tilted tags are measured by their
 * pose (calib__pose_height). */
static void calib__measure(const calib_pose *pose, const double q[8], double plane_in, double size_in, double base_in,
                           double *stand, double *tilt_deg)
{
    double rx = (q[2] - q[0] + q[4] - q[6]) / 2, ry = (q[3] - q[1] + q[5] - q[7]) / 2;
    double ux = (q[6] - q[0] + q[4] - q[2]) / 2, uy = (q[7] - q[1] + q[5] - q[3]) / 2;
    double a = rx * rx + ry * ry, c = ux * ux + uy * uy, b = rx * ux + ry * uy;
    double half = (a + c) / 2, disc = sqrt(fmax(0, half * half - (a * c - b * b)));
    double lmax = half + disc, lmin = half - disc;
    double cosa = lmax > 0 ? sqrt(fmax(0, lmin / lmax)) : 1;
    *tilt_deg = acos(fmin(1, cosa)) * (180.0 / M_PI);
    double s = sqrt(*tilt_deg > CALIB_SLOPE_DEG ? lmax : half);
    double cam = pose->up * pose->center[2]; /* camera above the felt */
    *stand = cam - (cam - plane_in) * size_in / s - base_in;
}

/* Stand height and tilt from a tag's 3D pose in the camera frame (R, t:
 * see cvw_square_poses). */
static void calib__pose_height(const calib_pose *pose, const double R[9], const double t[3], double base_in,
                               double *stand, double *tilt_deg, double n[3])
{
    const double *Rp = pose->R;
    double d[3] = {t[0] - pose->tvec[0], t[1] - pose->tvec[1], t[2] - pose->tvec[2]};
    /* table frame = Rp^T (camera - tvec); the tag's up normal is -(its z axis) = -R[:, 2] */
    double z = Rp[2] * d[0] + Rp[5] * d[1] + Rp[8] * d[2];
    double nz = -(Rp[2] * R[2] + Rp[5] * R[5] + Rp[8] * R[8]);
    double c = pose->up * nz, cc = c > 1 ? 1 : c < -1 ? -1 : c;
    /* the base stands base_in below the tag along its normal */
    *stand = pose->up * z - base_in * fabs(cc);
    *tilt_deg = acos(cc) * (180.0 / M_PI);
    double sg = c < 0 ? -1 : 1;
    n[0] = -sg * (Rp[0] * R[2] + Rp[3] * R[5] + Rp[6] * R[8]);
    n[1] = -sg * (Rp[1] * R[2] + Rp[4] * R[5] + Rp[7] * R[8]);
    n[2] = sg * c;
}

/* How far quad q (4 points on a level plane) is from a parallelogram,
 * over its mean side: half the gap between its diagonals' midpoints.  A
 * square tag maps to a parallelogram on any level plane (exactly when it
 * is level, very nearly when a small tag is tilted), so this is its
 * corners' own noise: one corner misplaced by libapriltag (at 2.6 px per
 * cell a tag in thirty or so) shows here as it does in no other measure. */
static double calib__defect(const double q[8])
{
    double gx = (q[0] + q[4] - q[2] - q[6]) / 2, gy = (q[1] + q[5] - q[3] - q[7]) / 2, side = 0;
    for (int k = 0; k < 4; k++)
        side += hypot(q[(2 * k + 2) % 8] - q[2 * k], q[(2 * k + 3) % 8] - q[2 * k + 1]) / 4;
    double d = hypot(gx, gy) / side;
    return isfinite(d) ? d : 0;
}

/* Measure every tag: its shape, then one batched pose solve for the ones
 * that look tilted.  stand, tilt, ok, defect (calib__defect): nf each. */
static tt_status calib__measure_all(const calib_rig *rig, const calib_pose *pose, const double *norm, int nf,
                                    double *stand, double *tilt, double *nrm, int *ok, double *defect, tt_err *err)
{
    const double base_in = rig->base_height_mm / 25.4, cam = pose->up * pose->center[2];
    double *buf = malloc(sizeof(double) * 8 * (size_t)nf), *Rs = NULL, *ts = NULL;
    int *idx = malloc(sizeof(int) * (size_t)nf), *pok = NULL, nt = 0;
    tt_status st = TT_OK;
    if (!buf || !idx) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory for %d figures", nf);
        goto done;
    }
    calib_map_normalized(pose, norm, nf * 4, &base_in, nf * 4, buf);
    for (int f = 0; f < nf; f++) {
        calib__measure(pose, &buf[f * 8], base_in, rig->base_size_in, base_in, &stand[f], &tilt[f]);
        defect[f] = calib__defect(&buf[f * 8]);
        nrm[3 * f] = nrm[3 * f + 1] = 0;
        nrm[3 * f + 2] = 1;
        if (tilt[f] > CALIB_SLOPE_DEG)
            idx[nt++] = f;
    }
    if (nt) {
        Rs = malloc(sizeof(double) * 9 * (size_t)nt);
        ts = malloc(sizeof(double) * 3 * (size_t)nt);
        pok = malloc(sizeof(int) * (size_t)nt);
        if (!Rs || !ts || !pok) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory for %d figures", nf);
            goto done;
        }
        for (int k = 0; k < nt; k++)
            memcpy(&buf[k * 8], &norm[idx[k] * 8], sizeof(double) * 8);
        if ((st = cvw_square_poses(buf, nt, rig->base_size_in, Rs, ts, pok, err)) != TT_OK)
            goto done;
        for (int k = 0; k < nt; k++) {
            double h, a, nv[3];
            calib__pose_height(pose, &Rs[k * 9], &ts[k * 3], base_in, &h, &a, nv);
            /* a steeper pose is the mirror ambiguity of a noisy small tag,
             * not a hill: its shape's measure stands */
            if (pok[k] && isfinite(h) && isfinite(a) && isfinite(nv[0]) && isfinite(nv[1]) && isfinite(nv[2]) &&
                a <= CALIB_TILT_MAX_DEG) {
                stand[idx[k]] = h;
                tilt[idx[k]] = a > CALIB_SLOPE_DEG ? a : tilt[idx[k]];
                if (a > CALIB_SLOPE_DEG)
                    memcpy(&nrm[3 * idx[k]], nv, sizeof nv);
            }
        }
    }
    /* a shape that puts the tag at or above the camera is no measurement */
    for (int f = 0; f < nf; f++)
        ok[f] = isfinite(stand[f]) && isfinite(tilt[f]) && stand[f] + base_in < 0.9 * cam;
done:
    free(buf);
    free(idx);
    free(Rs);
    free(ts);
    free(pok);
    return st;
}

tt_status calib_locate(const calib_rig *rig, const calib_pose *pose, const vision_detections *dets,
                       calib_figure **out, int *n, tt_err *err)
{
    return calib_locate_ground(rig, pose, dets, NULL, out, n, err);
}

/* Edge of a tag's detected square in pixels (the longer of its two axes:
 * a tilted tag is foreshortened across the slope only). */
static double calib__side_px(const vision_detection *d)
{
    const double(*c)[2] = d->corners;
    double a = (hypot(c[1][0] - c[0][0], c[1][1] - c[0][1]) + hypot(c[2][0] - c[3][0], c[2][1] - c[3][1])) / 2;
    double b = (hypot(c[3][0] - c[0][0], c[3][1] - c[0][1]) + hypot(c[2][0] - c[1][0], c[2][1] - c[1][1])) / 2;
    return a > b ? a : b;
}

/* The height a figure is placed at, and its error, from its own
 * measurement and the ground (calib_height in calib.h). */
static void calib__decide(calib_figure *g, const tt_ground *ground, const calib_pose *pose, const double *q,
                          double base_in, int sloped, int odd, double alt)
{
    const double m95 = g->measured_err95_in, sig = m95 / 1.96;
    const double gsig = CALIB_GROUND_Z95_IN / 1.96, comb = sqrt(sig * sig + gsig * gsig);
    double off = g->measured_in - g->ground_in;
    g->z_in = g->ground_in;
    g->z_err95_in = CALIB_GROUND_Z95_IN;
    g->height = CALIB_HEIGHT_GROUND;
    if (!g->measured)
        return;
    if (g->measured_in < -CALIB_SURE_SIGMAS * sig) {
        g->height = CALIB_HEIGHT_BELOW;
        return;
    }
    /* tilted where the ground is level: on a slope no one declared, if its
     * height says so too (a noisy tag can look tilted on the felt); a slope
     * only raises, so a tag measured below its ground is on no slope.  A
     * declared ground wins within both errors (issue 29): there a tilt
     * alone (at 1080p noise tilts one level tag in forty past 20 degrees)
     * decides nothing, and only names a tag beyond them.  Nor does the
     * tilt of a tag that one misplaced corner could make (odd:
     * calib_err_tilt_odd) */
    const int declared = ground && ground->height_at;
    int tilted = g->tilt_deg > CALIB_SLOPE_DEG && !sloped && !odd;
    int maybe_slope = tilted && !declared;
    if ((maybe_slope && off > CALIB_MAYBE_SIGMAS * comb) || fabs(off) > CALIB_SURE_SIGMAS * comb) {
        /* On a slope a tag may stand anywhere from the felt to the top of
         * the raised ground beside it: not worth a warning. */
        int slope = tilted;
        if (slope && fabs(off) > CALIB_SURE_SIGMAS * comb) {
            double c[2];
            calib__centre(pose, q, g->ground_in + base_in, c);
            slope = isfinite(c[0]) && isfinite(c[1]) &&
                    g->measured_in <= calib__ground_near(ground, c[0], c[1]) + CALIB_SURE_SIGMAS * comb;
        }
        g->height = slope ? CALIB_HEIGHT_SLOPE : CALIB_HEIGHT_OFF;
        g->z_in = g->measured_in > 0 ? g->measured_in : 0;
        g->z_err95_in = m95;
        /* below its declared ground and within its error of the felt: the
         * piece is not where (or not as high as) the scenario says, and a
         * level tag stands on the felt, as on any ground (flagged still,
         * so the scenario is questioned); placed at its own noisy height it
         * would move by that noise's parallax */
        if (!tilted && off < 0 && fabs(g->measured_in) <= CALIB_SURE_SIGMAS * comb) {
            g->z_in = 0;
            g->z_err95_in = CALIB_GROUND_Z95_IN;
            if (fabs(g->measured_in) > CALIB_MAYBE_SIGMAS * comb && g->measured_in + m95 > g->z_err95_in)
                g->z_err95_in = g->measured_in + m95;
        }
        return;
    }
    /* cannot tell: on the ground, its error reaching as high as its own
     * height's error allows (off + m95).  Never lower: nothing stands
     * below the ground under it, so a tag measured below it is on it */
    if ((maybe_slope || fabs(off) > CALIB_MAYBE_SIGMAS * comb) && off + m95 > g->z_err95_in)
        g->z_err95_in = off + m95;
    /* the ground has another height its tag could stand at (just beyond a
     * piece's edge) that its own height cannot rule out */
    if (fabs(alt - g->ground_in) > 1e-9 && fabs(g->measured_in - alt) <= CALIB_SURE_SIGMAS * comb)
        g->z_err95_in = fmax(g->z_err95_in, fabs(alt - g->ground_in) + CALIB_GROUND_Z95_IN);
}

/* Figure g's corners q on the level plane base_in above its z_in: its
 * centre and facing. */
static void calib__place_level(calib_figure *g, const calib_pose *pose, const double *q, double base_in)
{
    double h = g->z_in + base_in, c[8], corners[4][2];
    calib_map_normalized(pose, q, 4, &h, 4, c);
    memcpy(corners, c, sizeof corners);
    g->x = (c[0] + c[2] + c[4] + c[6]) / 4;
    g->y = (c[1] + c[3] + c[5] + c[7]) / 4;
    g->facing_deg = calib_facing_deg(corners);
}

/* Where figure g stands on the table (x, y, facing; on a declared slope
 * also its ground), from its undistorted corners q and the point m where
 * their diagonals cross: on a declared slope, its base's centre on the
 * slope with the tag base_in above it along the slope's normal; tilted where
 * no slope is declared, the base along its measured normal nv below the
 * tag's centre; else its corners on the level plane at its height.  NaN
 * where a ray misses. */
static void calib__place(calib_figure *g, const calib_pose *pose, const tt_ground *ground, const double *q,
                         const double m[2], const double c0[2], const double *nv, double base_in, int sloped, int odd)
{
    if (sloped && g->height == CALIB_HEIGHT_GROUND) {
        /* a declared slope: the tag stands base_in above it along its
         * normal; the figure is its base's centre on the slope */
        double b[3], nb[3], tc[3], fd;
        if (calib_tilt_on_ground(pose, m, ground, base_in, c0[0], c0[1], b, nb)) {
            double P0[3] = {b[0] + base_in * nb[0], b[1] + base_in * nb[1], b[2] + base_in * nb[2]};
            g->x = b[0];
            g->y = b[1];
            g->z_in = g->ground_in = b[2];
            g->facing_deg = calib_tilt_tag(pose, q, m, P0, nb, tc, &fd) ? fd : NAN;
        } else {
            g->x = g->y = NAN;
        }
    } else if (g->measured && g->tilt_deg > CALIB_SLOPE_DEG && !odd &&
               (g->height == CALIB_HEIGHT_SLOPE || g->height == CALIB_HEIGHT_OFF)) {
        /* tilted where no slope is declared: the tag's centre (where the
         * image's diagonals cross) at its measured height, in the plane
         * of its measured normal; the base along that normal below it */
        double th = g->z_in + base_in * nv[2], P0[3], tc[3], fd;
        calib_map_normalized(pose, m, 1, &th, 1, P0);
        P0[2] = th;
        if (isfinite(P0[0]) && isfinite(P0[1]) && calib_tilt_tag(pose, q, m, P0, nv, tc, &fd)) {
            g->x = tc[0] - base_in * nv[0];
            g->y = tc[1] - base_in * nv[1];
            g->facing_deg = fd;
        } else { /* its tilted plane missed: its corners on the level plane at its height */
            calib__place_level(g, pose, q, base_in);
        }
    } else {
        calib__place_level(g, pose, q, base_in);
    }
}

/* The frame's own scale and noise (calib_err_frame_fit), from its nf tags
 * on their ground (q: their undistorted corners; stand, tilt, ok: their
 * measures); its scale error (blur) taken out of every measured height. */
static tt_status calib__frame(const calib_pose *pose, const double *q, int nf, const tt_ground *ground,
                              double base_in, double cam, double *stand, const double *tilt, const int *ok,
                              const double *spx, calib_err_frame *fr, tt_err *err)
{
    double *gr = malloc(sizeof(double) * (size_t)(nf > 0 ? nf : 1));
    double *pl = malloc(sizeof(double) * 8 * (size_t)(nf > 0 ? nf : 1)); /* corners on one level plane */
    if (!gr || !pl) {
        free(gr);
        free(pl);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory for %d figures", nf);
    }
    for (int f = 0; f < nf; f++) {
        double alt;
        gr[f] = calib__settle_ground(pose, &q[f * 8], base_in, ground, ok[f], stand[f], &alt);
    }
    calib_map_normalized(pose, q, nf * 4, &base_in, nf * 4, pl);
    calib_err_frame_fit(stand, gr, tilt, ok, spx, pl, nf, cam, base_in, fr);
    if (fr->n)
        for (int f = 0; f < nf; f++)
            if (ok[f] && spx[f] > fr->bias_px)
                stand[f] = cam - base_in - (cam - stand[f] - base_in) * spx[f] / (spx[f] - fr->bias_px);
    free(gr);
    free(pl);
    return TT_OK;
}

/* No error model (calib_locate_opts.no_errors): as before issue 29, a
 * height is "off" beyond a fixed 0.75"; every error 0. */
#define CALIB__OLD_OFF_IN 0.75

tt_status calib_locate_ground(const calib_rig *rig, const calib_pose *pose, const vision_detections *dets,
                              const tt_ground *ground, calib_figure **out, int *n, tt_err *err)
{
    return calib_locate_ground_opts(rig, pose, dets, ground, NULL, out, n, err);
}

tt_status calib_locate_ground_opts(const calib_rig *rig, const calib_pose *pose, const vision_detections *dets,
                                   const tt_ground *ground, const calib_locate_opts *o, calib_figure **out, int *n,
                                   tt_err *err)
{
    int nf = 0, *ok = NULL;
    double *norm = NULL, *stand = NULL, *tilt = NULL, *nrm = NULL, *spx = NULL, *defect = NULL;
    const int model = !(o && o->no_errors);
    calib_figure *figs = NULL;
    tt_status st = TT_OK;
    const double base_in = rig->base_height_mm / 25.4, cam = pose->up * pose->center[2];
    const int has_ground = ground && ground->height_at;

    *out = NULL;
    *n = 0;
    for (int i = 0; i < dets->count; i++)
        if (calib_rig_is_base_tag(rig, dets->items[i].family, dets->items[i].id))
            nf++;
    if (nf == 0)
        return TT_OK;
    figs = calloc((size_t)nf, sizeof *figs);
    norm = malloc(sizeof(double) * 8 * (size_t)nf);
    stand = malloc(sizeof(double) * (size_t)nf);
    tilt = malloc(sizeof(double) * (size_t)nf);
    nrm = malloc(sizeof(double) * 3 * (size_t)nf);
    ok = malloc(sizeof(int) * (size_t)nf);
    spx = malloc(sizeof(double) * (size_t)nf);
    defect = malloc(sizeof(double) * (size_t)nf);
    if (!figs || !norm || !stand || !tilt || !nrm || !ok || !spx || !defect) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory for %d figures", nf);
        goto done;
    }
    nf = 0;
    for (int i = 0; i < dets->count; i++) {
        const vision_detection *d = &dets->items[i];
        if (!calib_rig_is_base_tag(rig, d->family, d->id))
            continue;
        snprintf(figs[nf].family, sizeof figs[nf].family, "%s", d->family);
        figs[nf].id = d->id;
        figs[nf].det_index = i;
        memcpy(&norm[nf * 8], d->corners, sizeof d->corners);
        nf++;
    }
    /* One batched undistortion for every corner of every figure. */
    if ((st = cvw_undistort_points(&rig->camera, norm, nf * 4, norm, err)) != TT_OK ||
        (st = calib__measure_all(rig, pose, norm, nf, stand, tilt, nrm, ok, defect, err)) != TT_OK)
        goto done;
    for (int f = 0; f < nf; f++)
        spx[f] = calib__side_px(&dets->items[figs[f].det_index]);
    calib_err_frame fr = {1, 0, 0, 0, 0, 0};
    if (model && (st = calib__frame(pose, norm, nf, ground, base_in, cam, stand, tilt, ok, spx, &fr, err)) != TT_OK)
        goto done;
    int kept = 0;
    for (int f = 0; f < nf; f++) {
        calib_figure g = figs[f];
        const double *q = &norm[f * 8];
        const vision_detection *d = &dets->items[g.det_index];
        g.measured = ok[f];
        double alt;
        g.ground_in = calib__settle_ground(pose, q, base_in, ground, g.measured, stand[f], &alt);
        g.measured_in = g.measured ? stand[f] : g.ground_in;
        g.tilt_deg = g.measured ? tilt[f] : 0;

        /* what the frame shows of it */
        double c0[2], m[2], cdir[3], ray0[3];
        calib__centre(pose, q, g.ground_in + base_in, c0);
        int have_m = calib__diagonals(q, m);
        if (!have_m) {
            m[0] = (q[0] + q[2] + q[4] + q[6]) / 4;
            m[1] = (q[1] + q[3] + q[5] + q[7]) / 4;
        }
        double gn[3] = {0, 0, 1};
        if (has_ground && isfinite(c0[0]) && isfinite(c0[1]))
            calib_tilt_normal(ground, c0[0], c0[1], gn);
        const int sloped = gn[2] < 1 / sqrt(1 + CALIB_GROUND_SLOPED * CALIB_GROUND_SLOPED);
        calib_tilt_ray(pose, m, ray0, cdir);
        calib_err_seen seen = {.s_px = spx[f],
                               .frame_sigma_px = fr.sigma_px,
                               .frame_centre_px = fr.centre_px,
                               .defect_px = defect[f] * spx[f],
                               .margin = d->margin,
                               .tilt_deg = g.tilt_deg,
                               .pose_rms_px = pose->rms_px,
                               .by_pose = g.measured && g.tilt_deg > CALIB_SLOPE_DEG,
                               .on_slope = sloped || (g.measured && g.tilt_deg > CALIB_SLOPE_DEG)};
        seen.cam_above_in = cam - (g.measured_in + base_in);
        if (!(seen.cam_above_in > 0))
            seen.cam_above_in = cam - g.ground_in - base_in;
        g.px_per_cell = spx[f] / 8;
        /* a tilt its own misplaced corner could make is no slope, and its
         * pose's height is that corner's (calib_err_tilt_odd) */
        const int odd = model && calib_err_tilt_odd(&seen);
        seen.odd = odd;
        seen.on_slope = sloped || (!odd && seen.on_slope);
        g.measured_err95_in = model ? calib_err_measured95(&seen) : CALIB__OLD_OFF_IN * 1.96 / CALIB_SURE_SIGMAS;
        calib__decide(&g, ground, pose, q, base_in, sloped, odd, alt);

        calib__place(&g, pose, ground, q, m, c0, &nrm[3 * f], base_in, sloped, odd);
        /* inches per pixel at the tag, and how far a height error moves it */
        double above = cam - g.z_in - base_in, rr = hypot(g.x - ray0[0], g.y - ray0[1]);
        seen.in_per_px = spx[f] > 0 ? rig->base_size_in / spx[f] : 0;
        seen.xy_per_z = above > 0 ? rr / above : 0;
        if (model)
            calib_err_fill(&g, &seen);
        else
            g.z_err95_in = 0;
        /* A tag whose rays miss its plane (NaN) is no figure on the table:
         * dropped, so no NaN or Inf ever leaves calib. */
        if (isfinite(g.x) && isfinite(g.y) && isfinite(g.facing_deg) && fabs(g.x) < CALIB_MAX_COORD_IN &&
            fabs(g.y) < CALIB_MAX_COORD_IN && isfinite(g.z_in) && isfinite(g.measured_in) && isfinite(g.err95_in) &&
            isfinite(g.z_err95_in) && isfinite(g.facing_err95_deg))
            figs[kept++] = g;
    }
    *out = figs;
    *n = kept;
    figs = NULL;
done:
    free(norm);
    free(stand);
    free(tilt);
    free(nrm);
    free(spx);
    free(defect);
    free(ok);
    free(figs);
    return st;
}

int calib_height_warning(const calib_figure *f, const char *name, double z_in, int has_ground, double base_size_in,
                         char *buf, size_t cap)
{
    buf[0] = '\0';
    if (f->height == CALIB_HEIGHT_BELOW)
        return snprintf(buf, cap,
                        "%s measures %.1f\" below the felt, which cannot be: check the rig's anchor positions and its "
                        "bases' size_in (%.2f\") against the printed tags",
                        name, -f->measured_in, base_size_in) > 0;
    if (f->height != CALIB_HEIGHT_OFF)
        return 0;
    if (f->ground_in <= 0 && has_ground)
        return snprintf(buf, cap, "%s stands about %.1f\" above the felt where the scenario has no raised terrain",
                        name, z_in) > 0;
    if (f->ground_in <= 0)
        return snprintf(buf, cap,
                        "%s stands about %.1f\" above the felt, and no scenario declares raised terrain (give "
                        "--scenario with its hills and buildings)",
                        name, z_in) > 0;
    if (z_in > f->ground_in)
        return snprintf(buf, cap,
                        "%s stands about %.1f\" above the felt where the scenario's terrain is %.1f\" high (on a roof, "
                        "or held in the air?)",
                        name, z_in, f->ground_in) > 0;
    return snprintf(buf, cap,
                    "%s stands about %.1f\" above the felt where the scenario's terrain is %.1f\" high: is that piece "
                    "where the scenario puts it, and that high?",
                    name, z_in, f->ground_in) > 0;
}
