/* overlay_fill.c - exact-area anti-aliased polygon fill into the coverage
 * buffer (see overlay_stroke.h, overlay_cov_fill).
 *
 * The signed-area scheme of FreeType's "gray" rasteriser and font-rs: every
 * piece of an edge inside one pixel (rows and columns cut at integers) of
 * height dy (signed by the edge's direction) and mean x offset f inside the
 * pixel gives dy (1 - f) to its own pixel and dy f to the pixel to its
 * right; the running sum of these along a row is the winding number
 * integrated over each pixel - its exact covered area for shapes whose
 * loops do not overlap.
 *
 * Rows are swept top to bottom with an active edge table: each row, every
 * edge crossing it adds its pieces to a row accumulator and notes the
 * columns it touched; the sweep walks those columns in order and writes
 * the runs between them - one value each - without any arithmetic.  So the
 * cost follows the edges' length and the pixels lit, not the shape's
 * bounding box (a band along a large circle has a large, empty box).
 *
 * Rules: non-zero takes min(1, |sum|); even-odd folds the sum modulo 2
 * (FreeType's choice) - both exact where loops do not overlap inside a
 * pixel. */
#include "overlay_stroke.h"
#include "overlay_blend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FILL__HUGE 1e6

typedef struct fill__edge {
    double x0, y0, x1, y1; /* in the loop's own direction */
    double ytop, ybot, dxdy;
} fill__edge;

typedef struct fill__span {
    int lo, hi; /* columns [lo, hi) an edge's pieces touched in this row */
} fill__span;

struct overlay_fill_scratch {
    float *acc;      /* w + 1: one row's contributions, zero between rows */
    unsigned char *cv; /* w: one span's coverage, for blending */
    fill__edge *e;   /* the shape's edges, by ytop */
    fill__edge *e2;  /* (before sorting) */
    int ne, ecap;
    int *cnt;        /* h + 1: edges per starting row, for sorting */
    int *act;        /* active edges */
    fill__span *sp;  /* their columns this row */
    int acap;
};

void overlay_fill_scratch_free(struct overlay_fill_scratch *f)
{
    if (!f)
        return;
    free(f->acc);
    free(f->cv);
    free(f->e);
    free(f->e2);
    free(f->cnt);
    free(f->act);
    free(f->sp);
    free(f);
}

static struct overlay_fill_scratch *fill__scratch(overlay_cov *c)
{
    if (c->fill)
        return c->fill;
    struct overlay_fill_scratch *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->acc = calloc((size_t)c->w + 2, sizeof *f->acc);
    f->cv = malloc((size_t)c->w + 2);
    f->cnt = malloc(((size_t)c->h + 1) * sizeof *f->cnt);
    if (!f->acc || !f->cv || !f->cnt) {
        overlay_fill_scratch_free(f);
        return NULL;
    }
    c->fill = f;
    return f;
}

/* A piece of an edge inside one row, from (xa, ya) to (xb, yb) (x within
 * [0, w]), cut at pixel columns, into acc; widens the span *sp. */
static void fill__row_piece(float *acc, int w, double xa, double ya, double xb, double yb, fill__span *sp)
{
    double dy = yb - ya;
    if (dy == 0)
        return;
    int ca = (int)xa, cb = (int)xb;
    if (ca == cb || xa == xb) {
        if (ca >= w)
            return; /* at the right border: lights nothing */
        double fx = 0.5 * (xa + xb) - ca;
        acc[ca] += (float)(dy * (1 - fx));
        acc[ca + 1] += (float)(dy * fx); /* acc has w + 1 cells */
        if (ca < sp->lo)
            sp->lo = ca;
        if (ca + 2 > sp->hi)
            sp->hi = ca + 2;
        return;
    }
    /* cut at each integer x between xa and xb */
    double sx = xb > xa ? 1 : -1, dydx = dy / (xb - xa);
    double x0 = xa, y0 = ya;
    int col = ca;
    /* moving left from an exact integer start: the first piece is in the
     * column to the left */
    if (sx < 0 && (double)ca == xa)
        col = ca - 1;
    int cmin = col, cmax = col;
    for (;;) {
        double xe = sx > 0 ? col + 1 : col; /* the column's far side */
        int last = sx > 0 ? xb <= xe : xb >= xe;
        double x1 = last ? xb : xe, y1 = last ? yb : ya + (x1 - xa) * dydx;
        double d = y1 - y0;
        if (col >= 0 && col < w) {
            double fx = 0.5 * (x0 + x1) - col;
            acc[col] += (float)(d * (1 - fx));
            acc[col + 1] += (float)(d * fx);
            cmin = col < cmin ? col : cmin;
            cmax = col > cmax ? col : cmax;
        }
        if (last)
            break;
        x0 = x1;
        y0 = y1;
        col += (int)sx;
    }
    if (cmin < 0)
        cmin = 0;
    if (cmax > w - 1)
        cmax = w - 1;
    if (cmin < sp->lo)
        sp->lo = cmin;
    if (cmax + 2 > sp->hi)
        sp->hi = cmax + 2;
}

/* A piece within row y cut where it crosses x = 0 and x = w: what lies
 * left of the surface still counts for the winding (a vertical piece at
 * x = 0 over the same rows); what lies right of it lights nothing. */
static void fill__clip_piece(float *acc, int w, double xa, double ya, double xb, double yb, fill__span *sp)
{
    if (xa >= 0 && xb >= 0 && xa <= w && xb <= w) { /* nearly always */
        fill__row_piece(acc, w, xa, ya, xb, yb, sp);
        return;
    }
    double cut[2] = {0, (double)w};
    double px[4] = {xa, 0, 0, xb}, py[4] = {ya, 0, 0, yb};
    int n = 1;
    /* the crossings in the piece's own order */
    double t[2];
    int nt = 0;
    for (int k = 0; k < 2; k++)
        if ((xa - cut[k]) * (xb - cut[k]) < 0)
            t[nt++] = (cut[k] - xa) / (xb - xa);
    if (nt == 2 && t[0] > t[1]) {
        double s = t[0];
        t[0] = t[1];
        t[1] = s;
    }
    for (int k = 0; k < nt; k++) {
        px[n] = xa + t[k] * (xb - xa);
        py[n] = ya + t[k] * (yb - ya);
        n++;
    }
    px[n] = xb;
    py[n] = yb;
    for (int i = 0; i < n; i++) {
        double x0 = px[i], x1 = px[i + 1], mid = 0.5 * (x0 + x1);
        if (mid >= w)
            continue;
        if (mid <= 0)
            x0 = x1 = 0;
        x0 = x0 < 0 ? 0 : x0 > w ? w : x0; /* rounding at the cut */
        x1 = x1 < 0 ? 0 : x1 > w ? w : x1;
        fill__row_piece(acc, w, x0, py[i], x1, py[i + 1], sp);
    }
}

static inline void fill__mark(overlay_cov *c, int y, int x0, int x1)
{
    uint64_t *dr = c->dirty + (size_t)y * c->nw;
    for (int b = x0 >> 4; b <= (x1 - 1) >> 4; b++)
        dr[b >> 6] |= (uint64_t)1 << (b & 63);
}

static inline unsigned char fill__value(double s, int even_odd)
{
    double a = fabs(s);
    if (a > 1 + 1e-6) { /* only where loops overlap (not float rounding) */
        if (even_odd) {
            a = fmod(a, 2);
            if (a > 1)
                a = 2 - a;
        } else {
            a = 1;
        }
    }
    return (unsigned char)(a >= 1 ? 255 : a * 255 + 0.5);
}

/* Where the sweep puts a row's coverage: the coverage buffer (kept by
 * maximum, blended later), or blended straight into 32-bit pixels. */
typedef struct fill__sink {
    uint32_t *data; /* NULL: into the coverage */
    int stride;     /* in pixels */
    uint32_t src;   /* premultiplied colour */
    int box[4];
} fill__sink;

/* Coverage v (> 0) for pixels x0..x1-1 of row y. */
static inline void fill__run(overlay_cov *c, fill__sink *k, int y, int x0, int x1, unsigned char v)
{
    if (k->data) {
        overlay__blend_run(k->data + (size_t)y * k->stride + x0, x1 - x0, v, k->src);
        overlay_cov_mark_row(c, y, x0, x1);
        return;
    }
    unsigned char *row = c->a + (size_t)y * c->w;
    for (int u = x0; u < x1; u++)
        if (v > row[u])
            row[u] = v;
}

/* One more edge in f's list (grown as needed); 0 out of memory. */
static int fill__edge_add(struct overlay_fill_scratch *f, fill__edge e)
{
    if (f->ne == f->ecap) {
        int cap = f->ecap ? 2 * f->ecap : 1024;
        fill__edge *e1 = realloc(f->e, (size_t)cap * sizeof *e1);
        if (e1)
            f->e = e1;
        fill__edge *e2 = e1 ? realloc(f->e2, (size_t)cap * sizeof *e2) : NULL;
        if (e2)
            f->e2 = e2;
        if (!e1 || !e2)
            return 0;
        f->ecap = cap;
    }
    f->e[f->ne++] = e;
    return 1;
}

/* The edges of the loops that cross a row of a target h rows high (a loop
 * of fewer than 3 points, or with a point not finite or far off, is
 * left out) into f->e; 0 out of memory. */
static int fill__edges(struct overlay_fill_scratch *f, const double *xy, const int *loop_n, int nloops, int h)
{
    f->ne = 0;
    const double *p = xy;
    for (int l = 0; l < nloops; l++) {
        int n = loop_n[l];
        int ok = n >= 3;
        for (int i = 0; i < n && ok; i++)
            ok = fabs(p[2 * i]) <= FILL__HUGE && fabs(p[2 * i + 1]) <= FILL__HUGE; /* NaN fails */
        for (int i = 0; ok && i < n; i++) {
            const double *a = p + 2 * i, *b = p + 2 * ((i + 1) % n);
            double yt = a[1] < b[1] ? a[1] : b[1], yb = a[1] < b[1] ? b[1] : a[1];
            if (a[1] == b[1] || yb <= 0 || yt >= h)
                continue;
            if (!fill__edge_add(f, (fill__edge){a[0], a[1], b[0], b[1], yt, yb, (b[0] - a[0]) / (b[1] - a[1])}))
                return 0;
        }
        p += 2 * (n > 0 ? n : 0);
    }
    return 1;
}

/* The edges (f->ne > 0) by the row each starts in, into f->e2 (a counting
 * sort), with room for them all in the active list; 0 out of memory. */
static int fill__sort_edges(struct overlay_fill_scratch *f, int h)
{
    if (f->ne > f->acap) {
        int *act = realloc(f->act, (size_t)f->ne * sizeof *act);
        if (act)
            f->act = act;
        fill__span *sp = act ? realloc(f->sp, (size_t)f->ne * sizeof *sp) : NULL;
        if (sp)
            f->sp = sp;
        if (!act || !sp)
            return 0;
        f->acap = f->ne;
    }
    memset(f->cnt, 0, ((size_t)h + 1) * sizeof *f->cnt);
    for (int i = 0; i < f->ne; i++)
        f->cnt[(f->e[i].ytop <= 0 ? 0 : (int)f->e[i].ytop) + 1]++;
    for (int y = 0; y < h; y++)
        f->cnt[y + 1] += f->cnt[y];
    for (int i = 0; i < f->ne; i++)
        f->e2[f->cnt[f->e[i].ytop <= 0 ? 0 : (int)f->e[i].ytop]++] = f->e[i];
    return 1;
}

/* Each of the nact active edges' piece in row y (w columns), its area
 * into f->acc and its columns into f->sp, then the spans in column order
 * (insertion sort: a few, nearly sorted). */
static void fill__row_spans(struct overlay_fill_scratch *f, int nact, int y, int w)
{
    const fill__edge *E = f->e2;
    for (int i = 0; i < nact; i++) {
        const fill__edge *e = &E[f->act[i]];
        fill__span *sp = &f->sp[i];
        sp->lo = w + 1;
        sp->hi = -1;
        double ya, yb;
        if (e->y1 > e->y0) {
            ya = e->y0 > y ? e->y0 : y;
            yb = e->y1 < y + 1 ? e->y1 : y + 1;
        } else {
            ya = e->y0 < y + 1 ? e->y0 : y + 1;
            yb = e->y1 > y ? e->y1 : y;
        }
        if (ya == yb)
            continue;
        double xa = e->x0 + (ya - e->y0) * e->dxdy, xb = e->x0 + (yb - e->y0) * e->dxdy;
        fill__clip_piece(f->acc, w, xa, ya, xb, yb, sp);
    }
    fill__span *sp = f->sp;
    for (int i = 1; i < nact; i++) {
        fill__span t = sp[i];
        int j = i - 1;
        while (j >= 0 && sp[j].lo > t.lo) {
            sp[j + 1] = sp[j];
            j--;
        }
        sp[j + 1] = t;
    }
}

/* The columns of row y lit so far: [lo, hi). */
typedef struct fill__lit {
    int lo, hi;
} fill__lit;

static inline void fill__lit_add(fill__lit *l, int x0, int x1)
{
    l->lo = x0 < l->lo ? x0 : l->lo;
    l->hi = x1 > l->hi ? x1 : l->hi;
}

/* Columns lo..hi-1 of row y inside a span, summed into *sum from f->acc
 * (cleared), blended into the sink's pixels through a scratch row, four
 * pixels at a time. */
static void fill__span_blend(overlay_cov *c, struct overlay_fill_scratch *f, fill__sink *k, int y, int lo, int hi,
                             int even_odd, double *sum, fill__lit *lit)
{
    uint32_t *px = k->data + (size_t)y * k->stride;
    float *acc = f->acc;
    overlay_cov_mark_row(c, y, lo, hi);
    unsigned char *cv = f->cv;
    int any = 0;
    double s = *sum;
    for (int u = lo; u < hi; u++) {
        s += acc[u];
        acc[u] = 0;
        cv[u - lo] = fill__value(s, even_odd);
        any |= cv[u - lo];
    }
    *sum = s;
    if (any) {
        overlay__blend_span(px + lo, cv, hi - lo, k->src);
        fill__lit_add(lit, lo, hi);
    }
}

/* The same into the coverage buffer, kept by maximum. */
static void fill__span_cov(overlay_cov *c, struct overlay_fill_scratch *f, int y, int lo, int hi, int even_odd,
                           double *sum, fill__lit *lit)
{
    unsigned char *row = c->a + (size_t)y * c->w;
    float *acc = f->acc;
    double s = *sum;
    int l0 = -1, l1 = -1; /* in locals: a store into row (a char) could be *lit */
    for (int u = lo; u < hi; u++) {
        s += acc[u];
        acc[u] = 0;
        unsigned char vu = fill__value(s, even_odd);
        if (vu) {
            if (vu > row[u])
                row[u] = vu;
            if (l0 < 0)
                l0 = u;
            l1 = u;
        }
    }
    *sum = s;
    if (l0 >= 0)
        fill__lit_add(lit, l0, l1 + 1);
}

/* Sweep row y: inside a span every column is summed; between spans the
 * sum holds, one value for the whole run.  The columns lit into *lit. */
static void fill__row_sweep(overlay_cov *c, struct overlay_fill_scratch *f, fill__sink *k, int y, int nact,
                            int even_odd, fill__lit *lit)
{
    const int w = c->w;
    const fill__span *sp = f->sp;
    double sum = 0;
    int x = 0;
    for (int i = 0; i < nact; i++) {
        if (sp[i].hi <= sp[i].lo)
            continue; /* touched nothing */
        int lo = sp[i].lo > x ? sp[i].lo : x, hi = sp[i].hi > w ? w : sp[i].hi;
        /* the run before the span */
        unsigned char v = fill__value(sum, even_odd);
        if (v && lo > x) {
            fill__run(c, k, y, x, lo, v);
            fill__lit_add(lit, x, lo);
        }
        if (k->data && lo < hi)
            fill__span_blend(c, f, k, y, lo, hi, even_odd, &sum, lit);
        else
            fill__span_cov(c, f, y, lo, hi, even_odd, &sum, lit);
        x = hi > x ? hi : x;
    }
    f->acc[w] = 0; /* what fell at the right border */
    unsigned char v = fill__value(sum, even_odd);
    if (v && x < w) { /* the shape goes on past the right border */
        fill__run(c, k, y, x, w, v);
        lit->lo = x < lit->lo ? x : lit->lo;
        lit->hi = w;
    }
}

/* Note the columns row y lit: in the sink's box, or the dirty map. */
static void fill__row_done(overlay_cov *c, fill__sink *k, int y, const fill__lit *lit)
{
    if (lit->lo >= lit->hi)
        return;
    if (k->data) {
        k->box[0] = lit->lo < k->box[0] ? lit->lo : k->box[0];
        k->box[2] = lit->hi > k->box[2] ? lit->hi : k->box[2];
        k->box[1] = y < k->box[1] ? y : k->box[1];
        k->box[3] = y + 1;
    } else {
        fill__mark(c, y, lit->lo, lit->hi);
        if (y < c->y0)
            c->y0 = y;
        if (y + 1 > c->y1)
            c->y1 = y + 1;
    }
}

static int fill__sweep(overlay_cov *c, const double *xy, const int *loop_n, int nloops, int even_odd, fill__sink *k)
{
    struct overlay_fill_scratch *f = fill__scratch(c);
    if (!f || !fill__edges(f, xy, loop_n, nloops, c->h))
        return 0;
    if (f->ne == 0)
        return 1;
    if (!fill__sort_edges(f, c->h))
        return 0;
    const fill__edge *E = f->e2;
    int next = 0, nact = 0;
    for (int y = E[0].ytop < 0 ? 0 : (int)E[0].ytop; y < c->h; y++) {
        /* edges that start above the row's bottom join; those that end at
         * or above its top leave */
        while (next < f->ne && E[next].ytop < y + 1)
            f->act[nact++] = next++;
        int m = 0;
        for (int i = 0; i < nact; i++)
            if (E[f->act[i]].ybot > y)
                f->act[m++] = f->act[i];
        nact = m;
        if (nact == 0) {
            if (next == f->ne)
                break;
            int ny = (int)E[next].ytop; /* skip the empty rows */
            y = (ny > y ? ny : y + 1) - 1;
            continue;
        }
        fill__row_spans(f, nact, y, c->w);
        fill__lit lit = {c->w, 0};
        fill__row_sweep(c, f, k, y, nact, even_odd, &lit);
        fill__row_done(c, k, y, &lit);
    }
    return 1;
}

int overlay_cov_fill(overlay_cov *c, const double *xy, const int *loop_n, int nloops, int even_odd)
{
    fill__sink k = {0};
    return c->a ? fill__sweep(c, xy, loop_n, nloops, even_odd, &k) : 0;
}

int overlay_fill_blend(overlay_cov *c, const double *xy, const int *loop_n, int nloops, int even_odd,
                       unsigned char *data, int stride, const double rgb[3], double alpha, int box[4])
{
    fill__sink k = {(uint32_t *)(void *)data, stride / 4, overlay__premul(rgb, alpha), {c->w, c->h, 0, 0}};
    int ok = c->a ? fill__sweep(c, xy, loop_n, nloops, even_odd, &k) : 0;
    memcpy(box, k.box, sizeof k.box);
    return ok;
}
