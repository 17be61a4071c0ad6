/* overlay_seam.c - several projectors on one table: each one's light ramps
 * across the parts of the felt it shares with others, so the sum is even
 * (overlay.h, "several projectors on one table").
 *
 * For every pixel of the projector: the table point it lights (its map's
 * homography, inverted), how far that point lies inside each projector's
 * picture (in inches: pixels to the picture's nearest edge over the map's
 * pixels per inch there), and the projector's share of the light,
 * d_which / sum d.  Kept per row as the span of pixels with a share under
 * one and each one's factor on pixel values, share^(1/gamma). */
#include "overlay.h"
#include "overlay_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SEAM__STEP_IN 0.05 /* the step the map's pixels per inch are measured over */
#define SEAM__ONE 65535u   /* a factor of one */

struct overlay_seam {
    int w, h;
    double gamma;
    long dimmed;
    int *x0, *x1;   /* per row: the pixels [x0, x1) hold factors (x0 == x1: none) */
    size_t *off;    /* per row: where its factors start in f */
    uint16_t *f;    /* factor on pixel values, SEAM__ONE = 1 */
};

/* How far (x, y) on the felt lies inside pj's picture, inches; 0 outside. */
static double seam__inside_in(const calib_projector *pj, double x, double y)
{
    double q[6] = {x, y, x + SEAM__STEP_IN, y, x, y + SEAM__STEP_IN}, px[6];
    int w, h;
    calib_projector_map(pj, q, 3, px);
    calib_projector_size(pj, &w, &h);
    for (int k = 0; k < 6; k++)
        if (!isfinite(px[k]))
            return 0;
    double d = fmin(fmin(px[0] + 0.5, w - 0.5 - px[0]), fmin(px[1] + 0.5, h - 0.5 - px[1]));
    if (!(d > 0))
        return 0;
    /* pixels per inch: the area the map makes of a square inch, square-rooted */
    double ax = px[2] - px[0], ay = px[3] - px[1], bx = px[4] - px[0], by = px[5] - px[1];
    double ppi = sqrt(fabs(ax * by - ay * bx)) / SEAM__STEP_IN;
    return ppi > 0 ? d / ppi : 0;
}

/* The share of the light projector `which` gives at (x, y): 1 where no
 * other projector lights it. */
static double seam__share(const calib_projector *const *pjs, int n, int which, double x, double y)
{
    double mine = -1, sum = 0;
    for (int k = 0; k < n; k++) {
        if (k == which)
            continue;
        double px[2], q[2] = {x, y};
        int w, h;
        calib_projector_map(pjs[k], q, 1, px);
        calib_projector_size(pjs[k], &w, &h);
        if (!(px[0] > -0.5 && px[1] > -0.5 && px[0] < w - 0.5 && px[1] < h - 0.5))
            continue; /* not in k's picture: cheap to tell, most pixels */
        if (mine < 0)
            mine = seam__inside_in(pjs[which], x, y);
        sum += seam__inside_in(pjs[k], x, y);
    }
    if (mine < 0 || !(sum > 0))
        return 1;
    return mine / (mine + sum);
}

void overlay_seam_destroy(overlay_seam *s)
{
    if (!s)
        return;
    free(s->x0);
    free(s->x1);
    free(s->off);
    free(s->f);
    free(s);
}

/* One row's shares into row (w of them); the span dimmed in *a, *b. */
static void seam__row(const calib_projector *const *pjs, int n, int which, int w, int v, double *row, int *a, int *b)
{
    *a = w;
    *b = 0;
    for (int u = 0; u < w; u++) {
        double xy[2];
        row[u] = 1;
        if (calib_projector_unmap(pjs[which], u, v, xy))
            row[u] = seam__share(pjs, n, which, xy[0], xy[1]);
        if (row[u] < 1) {
            if (u < *a)
                *a = u;
            *b = u + 1;
        }
    }
}

tt_status overlay_seam_create(const calib_projector *const *pjs, int n, int which, overlay_seam **out, tt_err *err)
{
    *out = NULL;
    if (!pjs || n < 1 || which < 0 || which >= n)
        return tt_err_set(err, TT_ERR_ARG, "overlay_seam: projector %d of %d", which + 1, n);
    for (int k = 0; k < n; k++)
        if (!pjs[k])
            return tt_err_set(err, TT_ERR_ARG, "overlay_seam: projector %d is missing", k + 1);
    overlay_seam *s = calloc(1, sizeof *s);
    double *row = NULL;
    if (!s)
        goto oom;
    calib_projector_size(pjs[which], &s->w, &s->h);
    s->gamma = calib_projector_gamma(pjs[which], NULL);
    s->x0 = calloc((size_t)s->h, sizeof *s->x0);
    s->x1 = calloc((size_t)s->h, sizeof *s->x1);
    s->off = calloc((size_t)s->h + 1, sizeof *s->off);
    row = malloc((size_t)s->w * sizeof *row);
    if (!s->x0 || !s->x1 || !s->off || !row)
        goto oom;
    size_t cap = 0;
    for (int v = 0; v < s->h; v++) {
        int a, b;
        seam__row(pjs, n, which, s->w, v, row, &a, &b);
        s->off[v] = v ? s->off[v - 1] + (size_t)(s->x1[v - 1] - s->x0[v - 1]) : 0;
        s->x0[v] = a < b ? a : 0;
        s->x1[v] = a < b ? b : 0;
        size_t need = s->off[v] + (size_t)(s->x1[v] - s->x0[v]);
        if (need > cap) {
            size_t ncap = cap ? cap * 2 : (size_t)s->w * 16;
            while (ncap < need)
                ncap *= 2;
            uint16_t *nf = realloc(s->f, ncap * sizeof *nf);
            if (!nf)
                goto oom;
            s->f = nf;
            cap = ncap;
        }
        for (int u = s->x0[v]; u < s->x1[v]; u++) {
            double f = pow(fmax(0, fmin(1, row[u])), 1 / s->gamma);
            s->f[s->off[v] + (size_t)(u - s->x0[v])] = (uint16_t)lrint(f * SEAM__ONE);
            s->dimmed += row[u] < 1;
        }
    }
    free(row);
    *out = s;
    return TT_OK;
oom:
    free(row);
    overlay_seam_destroy(s);
    return tt_err_set(err, TT_ERR_NOMEM, "out of memory for the projectors' seams");
}

long overlay_seam_dimmed(const overlay_seam *s)
{
    return s ? s->dimmed : 0;
}

double overlay_seam_share(const overlay_seam *s, int u, int v)
{
    if (!s || u < 0 || v < 0 || u >= s->w || v >= s->h)
        return 0;
    if (u < s->x0[v] || u >= s->x1[v])
        return 1;
    return pow(s->f[s->off[v] + (size_t)(u - s->x0[v])] / (double)SEAM__ONE, s->gamma);
}

/* Pixels [a, b) of row v dimmed by their factors (black ones skipped,
 * two at a time: most of a projector's picture is black). */
static void seam__span(const overlay_seam *s, uint32_t *px, int v, int a, int b)
{
    if (a < s->x0[v])
        a = s->x0[v];
    if (b > s->x1[v])
        b = s->x1[v];
    const uint16_t *f = s->f + s->off[v] - s->x0[v];
    for (int u = a; u < b; u++) {
        if (u + 1 < b && !((px[u] | px[u + 1]) & 0xffffffu)) {
            u++;
            continue;
        }
        uint32_t p = px[u];
        if (!(p & 0xffffffu))
            continue;
        uint32_t k = f[u];
        uint32_t r = (((p >> 16) & 255u) * k + 32768u) >> 16, g = (((p >> 8) & 255u) * k + 32768u) >> 16,
                 bl = ((p & 255u) * k + 32768u) >> 16;
        px[u] = (p & 0xff000000u) | r << 16 | g << 8 | bl;
    }
}

tt_status overlay__seam_apply_lit(const overlay_seam *s, cairo_surface_t *surf, const unsigned char *tiles, int tw,
                                  int tile, tt_err *err)
{
    if (!s)
        return TT_OK;
    if (!surf || cairo_surface_get_type(surf) != CAIRO_SURFACE_TYPE_IMAGE ||
        (cairo_image_surface_get_format(surf) != CAIRO_FORMAT_ARGB32 &&
         cairo_image_surface_get_format(surf) != CAIRO_FORMAT_RGB24) ||
        cairo_image_surface_get_width(surf) != s->w || cairo_image_surface_get_height(surf) != s->h)
        return tt_err_set(err, TT_ERR_ARG, "overlay: the projector's seam is for a %dx%d image", s->w, s->h);
    if (!s->dimmed)
        return TT_OK;
    cairo_surface_flush(surf);
    unsigned char *d = cairo_image_surface_get_data(surf);
    int stride = cairo_image_surface_get_stride(surf);
    for (int v = 0; v < s->h; v++) {
        uint32_t *px = (uint32_t *)(void *)(d + (size_t)v * stride);
        if (s->x0[v] >= s->x1[v])
            continue;
        if (!tiles) {
            seam__span(s, px, v, s->x0[v], s->x1[v]);
            continue;
        }
        const unsigned char *tr = tiles + (size_t)(v / tile) * tw;
        for (int tx = s->x0[v] / tile; tx * tile < s->x1[v] && tx < tw;) {
            if (!tr[tx]) {
                tx++;
                continue;
            }
            int te = tx; /* a run of lit tiles */
            while (te < tw && tr[te])
                te++;
            seam__span(s, px, v, tx * tile, te * tile);
            tx = te;
        }
    }
    cairo_surface_mark_dirty(surf);
    return TT_OK;
}

tt_status overlay_seam_apply(const overlay_seam *s, cairo_surface_t *surf, tt_err *err)
{
    return overlay__seam_apply_lit(s, surf, NULL, 0, 0, err);
}
