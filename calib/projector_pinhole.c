/* projector_pinhole.c - the projector as a 3D pinhole: a 3x4 projection
 * fitted to (table point with height, projector pixel) pairs by normalised
 * DLT (the smallest singular vector through cvwrap), reweighted by depth so
 * that it minimises projector-pixel error, with outliers dropped over a few
 * rounds as the plane fit does. */
#include "projector_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cvwrap.h"

static int pinhole__cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

tt_status calib_projector__keep(const double *res, double *tmp, int n, int round_, int need, unsigned char *inl,
                                int *ninl, tt_err *err)
{
    memcpy(tmp, res, (size_t)n * sizeof *tmp);
    qsort(tmp, (size_t)n, sizeof *tmp, pinhole__cmp);
    /* residual magnitudes of 2-D Gaussian noise: median ~ 1.18 sigma */
    double thr = 3.5 * tmp[n / 2] / 1.18 * 1.5;
    if (thr < 1.0)
        thr = 1.0;
    if (round_ == 0 && thr < 4.0)
        thr = 4.0;
    int m = 0;
    for (int i = 0; i < n; i++) {
        inl[i] = res[i] <= thr;
        m += inl[i];
    }
    *ninl = m;
    if (m < need)
        return tt_err_set(err, TT_ERR_MISMATCH,
                          "projector patterns decode inconsistently: is the camera or projector moving?");
    return TT_OK;
}

int calib_projector__apply_p(const double P[12], double x, double y, double h, double *u, double *v)
{
    double w = P[8] * x + P[9] * y + P[10] * h + P[11];
    if (!(w > 1e-12))
        return 0;
    *u = (P[0] * x + P[1] * y + P[2] * h + P[3]) / w;
    *v = (P[4] * x + P[5] * y + P[6] * h + P[7]) / w;
    return 1;
}

tt_status calib_projector__dlt(const double *xy, const double *h, const double *proj, const unsigned char *inl,
                               int n, double P[12], tt_err *err)
{
    /* normalise: each 3D axis to zero mean and unit spread, the pixels to
     * zero mean and mean distance sqrt 2 */
    double m3[3] = {0}, s3[3] = {0}, m2[2] = {0}, s2 = 0;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (inl[i]) {
            m3[0] += xy[2 * i];
            m3[1] += xy[2 * i + 1];
            m3[2] += h[i];
            m2[0] += proj[2 * i];
            m2[1] += proj[2 * i + 1];
            m++;
        }
    if (m < 12)
        return tt_err_set(err, TT_ERR_MISMATCH, "too few projector points for a 3D fit (%d)", m);
    for (int k = 0; k < 3; k++)
        m3[k] /= m;
    m2[0] /= m;
    m2[1] /= m;
    for (int i = 0; i < n; i++)
        if (inl[i]) {
            double d[3] = {xy[2 * i] - m3[0], xy[2 * i + 1] - m3[1], h[i] - m3[2]};
            for (int k = 0; k < 3; k++)
                s3[k] += d[k] * d[k];
            s2 += hypot(proj[2 * i] - m2[0], proj[2 * i + 1] - m2[1]);
        }
    for (int k = 0; k < 3; k++) {
        s3[k] = sqrt(s3[k] / m);
        if (!(s3[k] > 1e-9))
            return tt_err_set(err, TT_ERR_MISMATCH,
                              "the projector points lie on one plane: a 3D fit needs points on the felt and on a "
                              "raised surface");
        s3[k] = 1 / s3[k];
    }
    s2 = s2 > 0 ? sqrt(2.0) * m / s2 : 1;

    double Pn[12] = {0}, wgt_P[12] = {0};
    int have_w = 0;
    for (int iter = 0; iter < 4; iter++) {
        double AtA[144] = {0};
        for (int i = 0; i < n; i++) {
            if (!inl[i])
                continue;
            double X[4] = {(xy[2 * i] - m3[0]) * s3[0], (xy[2 * i + 1] - m3[1]) * s3[1], (h[i] - m3[2]) * s3[2], 1};
            double u = (proj[2 * i] - m2[0]) * s2, v = (proj[2 * i + 1] - m2[1]) * s2, wt = 1;
            if (have_w) {
                double w = wgt_P[8] * X[0] + wgt_P[9] * X[1] + wgt_P[10] * X[2] + wgt_P[11];
                wt = fabs(w) > 1e-12 ? 1 / (w * w) : 0;
            }
            double r1[12] = {X[0], X[1], X[2], 1, 0, 0, 0, 0, -u * X[0], -u * X[1], -u * X[2], -u};
            double r2[12] = {0, 0, 0, 0, X[0], X[1], X[2], 1, -v * X[0], -v * X[1], -v * X[2], -v};
            for (int a = 0; a < 12; a++)
                for (int b = a; b < 12; b++)
                    AtA[a * 12 + b] += wt * (r1[a] * r1[b] + r2[a] * r2[b]);
        }
        for (int a = 0; a < 12; a++)
            for (int b = 0; b < a; b++)
                AtA[a * 12 + b] = AtA[b * 12 + a];
        tt_status st = cvw_null_vector(AtA, 12, 12, Pn, err);
        if (st != TT_OK)
            return st;
        memcpy(wgt_P, Pn, sizeof wgt_P);
        have_w = 1;
    }
    /* undo the normalisation: P = T2^-1 Pn T3 */
    double T3[16] = {s3[0], 0, 0, -s3[0] * m3[0], 0, s3[1], 0, -s3[1] * m3[1], 0, 0, s3[2], -s3[2] * m3[2], 0, 0, 0, 1};
    double T2i[9] = {1 / s2, 0, m2[0], 0, 1 / s2, m2[1], 0, 0, 1}, A[12];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) {
            double acc = 0;
            for (int k = 0; k < 4; k++)
                acc += Pn[r * 4 + k] * T3[k * 4 + c];
            A[r * 4 + c] = acc;
        }
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            P[r * 4 + c] = T2i[r * 3] * A[c] + T2i[r * 3 + 1] * A[4 + c] + T2i[r * 3 + 2] * A[8 + c];
    /* sign: points in front have positive depth; scale: P[11] = 1 when it can */
    double wm = P[8] * m3[0] + P[9] * m3[1] + P[10] * m3[2] + P[11];
    double sc = fabs(P[11]) > 1e-12 * fabs(wm) ? P[11] : wm;
    if (wm * sc < 0)
        sc = -sc;
    for (int k = 0; k < 12; k++) {
        P[k] /= sc;
        if (!isfinite(P[k]))
            return tt_err_set(err, TT_ERR_MISMATCH, "the 3D projector fit failed (degenerate points)");
    }
    return TT_OK;
}

tt_status calib_projector__fit_pinhole(const double *xy, const double *h, const double *proj, int n, double P[12],
                                       unsigned char *inl, int *ninl, tt_err *err)
{
    double *res = malloc((size_t)(n > 0 ? n : 1) * sizeof *res), *tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof *tmp);
    tt_status st = TT_OK;
    if (!res || !tmp) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    memset(inl, 1, (size_t)n);
    for (int round_ = 0; round_ < CALIB_PROJECTOR__ROUNDS; round_++) {
        if ((st = calib_projector__dlt(xy, h, proj, inl, n, P, err)) != TT_OK)
            goto done;
        for (int i = 0; i < n; i++) {
            double u, v;
            res[i] = calib_projector__apply_p(P, xy[2 * i], xy[2 * i + 1], h[i], &u, &v)
                         ? hypot(u - proj[2 * i], v - proj[2 * i + 1])
                         : 1e9;
            if (!isfinite(res[i]))
                res[i] = 1e9;
        }
        if ((st = calib_projector__keep(res, tmp, n, round_, 12, inl, ninl, err)) != TT_OK)
            goto done;
    }
    st = calib_projector__dlt(xy, h, proj, inl, n, P, err);
done:
    free(res);
    free(tmp);
    return st;
}
