/* refine.c - a tag's corners refined from its four outer edges, each
 * found by the light across it (vision_refine_corners, vision.h).
 *
 * libapriltag refines an edge by sampling the nearest pixel every quarter
 * pixel along its normal and averaging where the difference of two samples
 * two pixels apart is large.  Along the pixel grid that lands off by up to
 * a tenth of a pixel, by where the edge falls within its pixel: the test
 * renderer's anchors (printed square to the table, so square to the
 * frames) came out 0.05-0.12 px off, mostly the same way, and that tilted
 * each camera's pose enough to move every figure 0.003" (docs/limits.md,
 * "Several cameras").
 *
 * Here, across the edge, the profile (bilinear, in steps of a tenth of a
 * pixel) is integrated over [-w, w] and compared with the levels just
 * beyond on each side: a step between levels B and W at e holds
 * B (e + w) + W (w - e).  Any blur that spreads light evenly both ways
 * keeps that integral, so e comes out where the step is, wherever it falls
 * within its pixel.  Each edge's offsets along it are fitted by a line,
 * and adjacent lines meet at the corners. */
#include "vision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VISION__STEP 0.1   /* px along the normal */
#define VISION__W 0.3      /* half-window, cells (the black border is 1 cell, the quiet border 1) */
#define VISION__W_MAX 4.0  /* px */
#define VISION__R 0.15     /* the levels' stretch beyond the window, cells */
#define VISION__FROM 0.15  /* samples along the middle of the edge: away from the corners */
#define VISION__MAX_SAMPLES 64
#define VISION__MIN_CONTRAST 8.0 /* gray levels */
#define VISION__MAX_MOVE 0.5     /* px: a corner refined farther than this was not its edge */

/* The image at (x, y), bilinear; the caller keeps (x, y) one pixel inside. */
static double vision__at(const tt_image *g, double x, double y)
{
    int x0 = (int)floor(x), y0 = (int)floor(y);
    double fx = x - x0, fy = y - y0;
    const unsigned char *p = g->data + (size_t)y0 * (size_t)g->stride + (size_t)x0;
    double top = p[0] + fx * (p[1] - p[0]), bot = p[g->stride] + fx * (p[g->stride + 1] - p[g->stride]);
    return top + fy * (bot - top);
}

/* Mean of the profile from p + d0 n to p + d1 n (trapezoids). */
static double vision__mean(const tt_image *g, const double p[2], const double n[2], double d0, double d1)
{
    int k = (int)ceil((d1 - d0) / VISION__STEP);
    double h = (d1 - d0) / k, s = 0;
    for (int i = 0; i <= k; i++) {
        double d = d0 + i * h, v = vision__at(g, p[0] + d * n[0], p[1] + d * n[1]);
        s += (i == 0 || i == k) ? v / 2 : v;
    }
    return s / k;
}

/* Where the step across p along n lies (offset along n, px), and its
 * contrast (outside minus inside level); 0 when the window leaves the
 * image or the step is not within it. */
static int vision__offset(const tt_image *g, const double p[2], const double n[2], double w, double r, double *e,
                          double *contrast)
{
    double c = 0;
    for (int it = 0; it < 2; it++) {
        double q[2] = {p[0] + c * n[0], p[1] + c * n[1]}, reach = w + r + 1;
        if (!(q[0] - reach >= 0 && q[1] - reach >= 0 && q[0] + reach < g->width - 1 && q[1] + reach < g->height - 1))
            return 0;
        double in = vision__mean(g, q, n, -w - r, -w), out = vision__mean(g, q, n, w, w + r);
        double a = 2 * w * vision__mean(g, q, n, -w, w);
        if (!(fabs(out - in) > 1e-9))
            return 0;
        double off = (w * (in + out) - a) / (out - in);
        if (!(fabs(off) <= w / 2))
            return 0;
        c += off;
        *contrast = out - in;
    }
    *e = c;
    return 1;
}

static int vision__cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Edge a -> b of a tag centred at m, refined: the line through l[0..1]
 * and l[2..3].  0 if too few samples saw a clear step. */
static int vision__edge(const tt_image *g, const double a[2], const double b[2], const double m[2], double cell,
                        double l[4])
{
    double t[2] = {b[0] - a[0], b[1] - a[1]}, len = hypot(t[0], t[1]);
    if (!(len > 4))
        return 0;
    double n[2] = {t[1] / len, -t[0] / len};
    double mid[2] = {(a[0] + b[0]) / 2 - m[0], (a[1] + b[1]) / 2 - m[1]};
    if (n[0] * mid[0] + n[1] * mid[1] < 0) { /* outward */
        n[0] = -n[0];
        n[1] = -n[1];
    }
    double w = fmin(VISION__W * cell, VISION__W_MAX), r = fmax(VISION__R * cell, 0.5);
    int ns = (int)fmin(VISION__MAX_SAMPLES, ceil(len * (1 - 2 * VISION__FROM))), k = 0;
    double al[VISION__MAX_SAMPLES], e[VISION__MAX_SAMPLES], ct[VISION__MAX_SAMPLES], tmp[VISION__MAX_SAMPLES];
    for (int i = 0; i < ns; i++) {
        double s = VISION__FROM + (1 - 2 * VISION__FROM) * (i + 0.5) / ns;
        double p[2] = {a[0] + s * t[0], a[1] + s * t[1]};
        if (vision__offset(g, p, n, w, r, &e[k], &ct[k])) {
            al[k] = s;
            k++;
        }
    }
    if (k < 6 || 2 * k < ns)
        return 0;
    /* a clear step, the edge's own polarity: not a data cell beside it */
    memcpy(tmp, ct, sizeof(double) * (size_t)k);
    qsort(tmp, (size_t)k, sizeof *tmp, vision__cmpd);
    double med = tmp[k / 2];
    int j = 0;
    for (int i = 0; i < k; i++)
        if (ct[i] * med > 0 && fabs(ct[i]) >= fmax(VISION__MIN_CONTRAST, 0.5 * fabs(med))) {
            al[j] = al[i];
            e[j++] = e[i];
        }
    if (fabs(med) < VISION__MIN_CONTRAST || j < 6 || 2 * j < ns)
        return 0;
    /* e = c0 + c1 s, twice: the second without the samples far off the first */
    double c0 = 0, c1 = 0;
    int use[VISION__MAX_SAMPLES];
    for (int i = 0; i < j; i++)
        use[i] = 1;
    for (int pass = 0; pass < 2; pass++) {
        double S = 0, Ss = 0, Sss = 0, Se = 0, Sse = 0;
        for (int i = 0; i < j; i++)
            if (use[i]) {
                S += 1;
                Ss += al[i];
                Sss += al[i] * al[i];
                Se += e[i];
                Sse += al[i] * e[i];
            }
        double den = S * Sss - Ss * Ss;
        if (S < 6 || !(fabs(den) > 1e-12))
            return 0;
        c1 = (S * Sse - Ss * Se) / den;
        c0 = (Se - c1 * Ss) / S;
        for (int i = 0; i < j; i++)
            tmp[i] = fabs(e[i] - c0 - c1 * al[i]);
        memcpy(ct, tmp, sizeof(double) * (size_t)j);
        qsort(ct, (size_t)j, sizeof *ct, vision__cmpd);
        double cut = fmax(0.1, 3 * 1.4826 * ct[j / 2]);
        for (int i = 0; i < j; i++)
            use[i] = tmp[i] <= cut;
    }
    l[0] = a[0] + c0 * n[0];
    l[1] = a[1] + c0 * n[1];
    l[2] = b[0] + (c0 + c1) * n[0];
    l[3] = b[1] + (c0 + c1) * n[1];
    return isfinite(l[0]) && isfinite(l[1]) && isfinite(l[2]) && isfinite(l[3]);
}

/* Where lines p (p0 -> p1) and q meet. */
static int vision__meet(const double p[4], const double q[4], double x[2])
{
    double dx = p[2] - p[0], dy = p[3] - p[1], ex = q[2] - q[0], ey = q[3] - q[1];
    double den = dx * ey - dy * ex;
    if (!(fabs(den) > 1e-12))
        return 0;
    double s = ((q[0] - p[0]) * ey - (q[1] - p[1]) * ex) / den;
    x[0] = p[0] + s * dx;
    x[1] = p[1] + s * dy;
    return isfinite(x[0]) && isfinite(x[1]);
}

int vision_refine_corners(const tt_image *gray, vision_detection *d, double px_per_cell)
{
    if (!gray || !gray->data || gray->channels != 1 || !(px_per_cell >= VISION_REFINE_MIN_PX_PER_CELL))
        return 0;
    double m[2] = {0, 0}, lines[4][4], c[4][2];
    for (int k = 0; k < 4; k++) {
        m[0] += d->corners[k][0] / 4;
        m[1] += d->corners[k][1] / 4;
    }
    for (int k = 0; k < 4; k++)
        if (!vision__edge(gray, d->corners[k], d->corners[(k + 1) % 4], m, px_per_cell, lines[k]))
            return 0;
    for (int k = 0; k < 4; k++) /* corner k: where edge k-1 meets edge k */
        if (!vision__meet(lines[(k + 3) % 4], lines[k], c[k]) ||
            hypot(c[k][0] - d->corners[k][0], c[k][1] - d->corners[k][1]) > VISION__MAX_MOVE)
            return 0;
    /* the centre: where the diagonals cross (a square's centre in any view) */
    double diag0[4] = {c[0][0], c[0][1], c[2][0], c[2][1]}, diag1[4] = {c[1][0], c[1][1], c[3][0], c[3][1]}, ctr[2];
    if (!vision__meet(diag0, diag1, ctr))
        return 0;
    memcpy(d->corners, c, sizeof c);
    d->center[0] = ctr[0];
    d->center[1] = ctr[1];
    return 1;
}
