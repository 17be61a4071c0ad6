/* calib_err.c - the error model (calib_err.h): each located figure's 95%
 * bounds from what the frame shows of its tag.
 *
 * A tag's edge length in pixels is found with a noise sigma_q: measured
 * on the frame itself (calib_err_frame_fit: most tags stand on their
 * ground, so their heights' scatter about it is that noise), else
 *     sigma_q = ERR_Q / ppc^2 * (1 + max(0, ERR_Q_MARGIN - margin) / ERR_Q_MARGIN)
 * (ppc: pixels per cell).  Its position, the mean of four corners on its
 * plane, scatters with the frame's centre noise (calib_err_frame's
 * centre_px: its level tags' two axes differ by each side's own error,
 * which moves the centre, but not by blur's spread, common to the four
 * sides, which moves only the size), else in proportion to sigma_q,
 * times the inches per pixel there; the rig's pose adds its own residual
 * at that spot; a height error dz moves it by dz * r / (H - z) (r: its
 * distance from the point under the camera); a tilted tag's corners lie at
 * different heights, and its base sits beside the tag along the normal.
 * Its own height is the camera's height above it times the relative error
 * of its apparent size.  The constants were fitted on rendered frames
 * (bench_err --seeds 1 3) and measured on others (docs/limits.md). */
#include "calib_err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* size noise without a frame's measure: ERR_Q / ppc^2, grown where the
 * decision margin is low (blur, noise) */
#define ERR_Q 0.75
#define ERR_Q_MARGIN 100.0
#define ERR_MARGIN_UNKNOWN 40.0
#define ERR_Q_FLOOR 0.01 /* px: no frame measures its tags better */
/* size noise per px of a tag's own parallelogram defect (calib_err_seen):
 * corner noise sigma per coordinate scatters that defect as Rayleigh(sigma),
 * mean 1.25 sigma, and the edge length by 0.71 sigma: 0.71 / 1.25 */
#define ERR_Q_DEFECT 0.57
/* 95% position radius per (size-noise px x inches per px), a level tag */
#define ERR_XY 2.5
/* the same per (the frame's centre-noise px x inches per px): 2.45 if
 * the sides' own errors were all; rendered centres scatter 1.2-2.8 times
 * that much (their median radius, frame by frame on seeds 1-3) */
#define ERR_XY_C 4.0
/* a tilted tag: its position grows by (1 + ERR_XY_TILT tan(tilt)) */
#define ERR_XY_TILT 1.5
/* the pose's share: 95% radius per px of anchor reprojection RMS */
#define ERR_POSE 0.3
/* 95% of its own height per (camera height / tag px) per size-noise px */
#define ERR_Z 2.6
/* the same for a tilted tag measured by its 3D pose */
#define ERR_Z_POSE 5.0
/* 95% facing, radians per (size-noise px / tag px) */
#define ERR_F 2.5
#define ERR_F_TILT 4.0
/* floors: nothing is known better than this */
#define ERR_XY_MIN 0.0005
#define ERR_F_MIN 0.05

double calib_err_corner_px(const calib_err_seen *s)
{
    /* an odd tag's own corners: one misplaced by libapriltag is no noise
     * the frame's other tags show (issue 31: at 2.6 px per cell such tags
     * read 2-5" high, 0.2-1" off) */
    double own = s->odd && isfinite(s->defect_px) && s->defect_px > 0 ? ERR_Q_DEFECT * s->defect_px : 0;
    if (s->frame_sigma_px > 0)
        return fmax(s->frame_sigma_px, own);
    /* a margin of 0 is not known (detections made by hand): a poor tag's */
    double spx = s->s_px > 1 ? s->s_px : 1, m = s->margin > 0 ? s->margin : ERR_MARGIN_UNKNOWN;
    double ppc = spx / 8;
    return fmax(ERR_Q / (ppc * ppc) * (1 + fmax(0, ERR_Q_MARGIN - m) / ERR_Q_MARGIN), own);
}

int calib_err_tilt_odd(const calib_err_seen *s)
{
    double fore = s->s_px * (1 - cos(fmin(fabs(s->tilt_deg), 90) * (M_PI / 180)));
    return fabs(s->tilt_deg) > CALIB_SLOPE_DEG && isfinite(s->defect_px) &&
           !(fore > CALIB_ERR_FORE_DEFECT * s->defect_px);
}

double calib_err_measured95(const calib_err_seen *s)
{
    double spx = s->s_px > 1 ? s->s_px : 1;
    /* a tilted tag is measured by its 3D pose, across its foreshortened side too */
    double k = s->by_pose ? ERR_Z_POSE / cos(fmin(fabs(s->tilt_deg), 70) * (M_PI / 180)) : ERR_Z;
    double z = k * fabs(s->cam_above_in) * calib_err_corner_px(s) / spx;
    return isfinite(z) && z > 0.001 ? z : 0.001;
}

void calib_err_fill(calib_figure *f, const calib_err_seen *s)
{
    double c = calib_err_corner_px(s), ipp = isfinite(s->in_per_px) ? fabs(s->in_per_px) : 0;
    double t = tan(fmin(fabs(s->tilt_deg), 60.0) * (M_PI / 180));
    /* the centre's own noise where the frame measured it, else half the
     * size's; an odd tag's misplaced corner moves its centre too, which the
     * frame's other tags do not show (c holds what its own corners show) */
    double cen = s->frame_centre_px > 0 ? ERR_XY_C * s->frame_centre_px : ERR_XY * c;
    if (s->odd)
        cen = fmax(cen, ERR_XY * c);
    double flat = ipp * cen * (s->on_slope ? 1 + ERR_XY_TILT * t : 1);
    double pose = ERR_POSE * ipp * (isfinite(s->pose_rms_px) ? s->pose_rms_px : 0);
    flat = sqrt(flat * flat + pose * pose);
    f->xy_err95_flat_in = flat > ERR_XY_MIN ? flat : ERR_XY_MIN;
    f->xy_per_z = isfinite(s->xy_per_z) ? fabs(s->xy_per_z) : 0;
    double dz = f->z_err95_in * f->xy_per_z;
    f->err95_in = sqrt(f->xy_err95_flat_in * f->xy_err95_flat_in + dz * dz);
    double spx = s->s_px > 1 ? s->s_px : 1;
    double fa = (s->on_slope ? ERR_F_TILT * (1 + t) : 1) * ERR_F * c / spx * (180 / M_PI);
    f->facing_err95_deg = fa > ERR_F_MIN ? fmin(fa, 180) : ERR_F_MIN;
}

static int calib__cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double calib__median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, calib__cmpd);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The frame's centre noise from its level tags' shapes (calib_err_frame's
 * centre_px), d a buffer of nf.  On the plane a level tag's two axes are
 * equal; each side's offset error e (1 sigma, pixels, the four apart)
 * makes them differ by (e1 - e3) - (e2 - e4), sigma 2e, and moves the
 * centre, the mean of opposite sides, by e / sqrt(2) on each axis; a
 * spread common to the four sides (blur) does neither. */
static void calib__centre_fit(const double *tilt, const int *ok, const double *s_px, const double *plane, int nf,
                              double *d, calib_err_frame *fr)
{
    int n = 0;
    for (int i = 0; i < nf; i++) {
        const double *c = &plane[i * 8];
        double a = hypot(c[2] - c[0] + c[4] - c[6], c[3] - c[1] + c[5] - c[7]) / 2;
        double b = hypot(c[6] - c[0] + c[4] - c[2], c[7] - c[1] + c[5] - c[3]) / 2;
        double v = (a - b) / ((a + b) / 2) * s_px[i];
        if (ok[i] && tilt[i] <= CALIB_SLOPE_DEG && s_px[i] > 0 && isfinite(v))
            d[n++] = v;
    }
    if (n < CALIB_ERR_FRAME_MIN)
        return;
    double md = calib__median(d, n);
    for (int i = 0; i < n; i++)
        d[i] = fabs(d[i] - md);
    double sd = calib__median(d, n) * 1.4826;
    /* e = sd / 2, the centre's e / sqrt(2); its own uncertainty as sigma_px's */
    double c = sd / (2 * sqrt(2.0)) * (1 + 1.5 / sqrt((double)n));
    if (isfinite(c)) {
        fr->centre_px = fmax(c, ERR_Q_FLOOR / 2);
        fr->n_centre = n;
    }
}

void calib_err_frame_fit(const double *stand, const double *ground, const double *tilt, const int *ok,
                         const double *s_px, const double *plane, int nf, double cam, double base_in,
                         calib_err_frame *fr)
{
    fr->scale = 1;
    fr->bias_px = 0;
    fr->sigma_px = 0;
    fr->n = 0;
    fr->centre_px = 0;
    fr->n_centre = 0;
    double *r = malloc(sizeof(double) * (size_t)(nf > 0 ? nf : 1));
    double *q = malloc(sizeof(double) * (size_t)(nf > 0 ? nf : 1));
    int n = 0;
    if (!r || !q)
        goto done;
    if (plane)
        calib__centre_fit(tilt, ok, s_px, plane, nf, r, fr);
    for (int i = 0; i < nf; i++) {
        double den = cam - stand[i] - base_in, num = cam - ground[i] - base_in;
        if (ok[i] && tilt[i] <= CALIB_SLOPE_DEG && den > 0 && num > 0 && s_px[i] > 0)
            r[n++] = num / den;
    }
    if (n < CALIB_ERR_FRAME_MIN)
        goto done;
    double scale = calib__median(r, n);
    if (!(fabs(scale - 1) <= CALIB_ERR_SCALE_MAX))
        goto done;
    /* each tag's edge error in pixels: the same few tenths of a pixel
     * whatever its size (blur spreads its border by a fixed width) */
    int m = 0;
    for (int i = 0; i < nf; i++) {
        double den = cam - stand[i] - base_in, num = cam - ground[i] - base_in;
        if (ok[i] && tilt[i] <= CALIB_SLOPE_DEG && den > 0 && num > 0 && s_px[i] > 0)
            q[m++] = s_px[i] * (1 - den / num);
    }
    double mq = calib__median(q, m);
    fr->bias_px = mq;
    for (int i = 0; i < m; i++)
        q[i] = fabs(q[i] - mq);
    double mad = calib__median(q, m) * 1.4826;
    fr->scale = scale;
    fr->n = n;
    /* its own uncertainty: a scatter measured on n tags */
    fr->sigma_px = isfinite(mad) ? fmax(mad * (1 + 1.5 / sqrt((double)n)), ERR_Q_FLOOR) : 0;
done:
    free(r);
    free(q);
}

void calib_figure_average(calib_figure *f, int n)
{
    if (n < 1)
        n = 1;
    double one = f->measured_err95_in;
    if (f->height == CALIB_HEIGHT_OFF || f->height == CALIB_HEIGHT_SLOPE) {
        double z = one / sqrt((double)n);
        f->z_err95_in = z > 0.001 ? z : 0.001;
    }
    double dz = f->z_err95_in * f->xy_per_z;
    f->err95_in = sqrt(f->xy_err95_flat_in * f->xy_err95_flat_in + dz * dz);
}

int calib_size_suspect(const calib_rig *rig, const calib_pose *pose, const calib_figure *figs, int n,
                       double *size_in)
{
    const double base_in = rig->base_height_mm / 25.4, cam = pose->up * pose->center[2];
    double *off = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    double *sz = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    int m = 0, agree = 0, ret = 0;
    *size_in = rig->base_size_in;
    if (!off || !sz)
        goto done;
    for (int i = 0; i < n; i++)
        if (figs[i].measured && figs[i].height != CALIB_HEIGHT_SLOPE)
            off[m++] = figs[i].measured_in - figs[i].ground_in;
    if (m < CALIB_SIZE_MIN)
        goto done;
    qsort(off, (size_t)m, sizeof *off, calib__cmpd);
    double med = off[m / 2];
    if (!(fabs(med) > 1.0))
        goto done;
    int k = 0;
    for (int i = 0; i < n; i++) {
        const calib_figure *f = &figs[i];
        if (!f->measured || f->height == CALIB_HEIGHT_SLOPE)
            continue;
        double o = f->measured_in - f->ground_in;
        if (fabs(o - med) <= 0.25 * fabs(med) + f->measured_err95_in &&
            fabs(o) > CALIB_SURE_SIGMAS / 1.96 * f->measured_err95_in) {
            agree++;
            double den = cam - f->measured_in - base_in;
            if (den > 0)
                sz[k++] = rig->base_size_in * (cam - f->ground_in - base_in) / den;
        }
    }
    if (3 * agree < 2 * m || k == 0)
        goto done;
    qsort(sz, (size_t)k, sizeof *sz, calib__cmpd);
    *size_in = sz[k / 2];
    ret = isfinite(*size_in) && *size_in > 0;
done:
    free(off);
    free(sz);
    return ret;
}

void calib_size_message(const calib_rig *rig, double measured, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "the rig's bases size_in is %.2f\" but the base tags measure %.2f\": set \"size_in\" under \"bases\" in "
             "the rig file to the edge of the printed tags' black square (most tags seem to stand at the same "
             "height off the felt, which a wrong size does)",
             rig->base_size_in, measured);
}
