/* overlay_fill.c - exact-area anti-aliased polygon fill into the coverage
 * buffer (see overlay_stroke.h, overlay_cov_fill).
 *
 * The signed-area scheme of FreeType's "gray" rasteriser and font-rs: every
 * piece of an edge inside one pixel (rows and columns cut at integers) of
 * height dy (signed by the edge's direction) and mean x offset f inside the
 * pixel gives dy (1 - f) to its own pixel and dy f to the pixel to its
 * right; the running sum of these along a row is the winding number
 * integrated over each pixel - its exact covered area for shapes whose
 * loops do not overlap.  Only the cells the edges touch are stored (a
 * list per row); the runs between them have one value each and are written
 * without any arithmetic.  So the cost follows the edges' length and the
 * pixels lit, not the shape's bounding box.
 *
 * Rules: non-zero takes min(1, |sum|); even-odd folds the sum modulo 2
 * (FreeType's choice) - both exact where loops do not overlap inside a
 * pixel. */
#include "overlay_stroke.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FILL__HUGE 1e6

typedef struct fill__cell {
    int x, next; /* pixel column; next cell of the row (-1 = none) */
    double d;    /* contribution to the running sum from this pixel on */
} fill__cell;

struct overlay_fill_scratch {
    int *head;        /* per row: first cell, -1 = none */
    fill__cell *cell; /* all cells */
    int n, cap;
    int *rows; /* rows that have cells, in the order first touched */
    int nrows;
    fill__cell *sorted; /* one row's cells, sorted */
    int scap;
    int oom;
};

void overlay_fill_scratch_free(struct overlay_fill_scratch *f)
{
    if (!f)
        return;
    free(f->head);
    free(f->cell);
    free(f->rows);
    free(f->sorted);
    free(f);
}

static struct overlay_fill_scratch *fill__scratch(overlay_cov *c)
{
    if (c->fill)
        return c->fill;
    struct overlay_fill_scratch *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->head = malloc((size_t)c->h * sizeof *f->head);
    f->rows = malloc((size_t)c->h * sizeof *f->rows);
    if (!f->head || !f->rows) {
        overlay_fill_scratch_free(f);
        return NULL;
    }
    for (int y = 0; y < c->h; y++)
        f->head[y] = -1;
    c->fill = f;
    return f;
}

static void fill__add(struct overlay_fill_scratch *f, int y, int x, double d)
{
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 4096;
        fill__cell *cl = realloc(f->cell, (size_t)cap * sizeof *cl);
        if (!cl) {
            f->oom = 1;
            return;
        }
        f->cell = cl;
        f->cap = cap;
    }
    if (f->head[y] < 0)
        f->rows[f->nrows++] = y;
    fill__cell *e = &f->cell[f->n];
    e->x = x;
    e->d = d;
    e->next = f->head[y];
    f->head[y] = f->n++;
}

/* A piece of an edge inside row y, from (xa, ya) to (xb, yb) (ya, yb in
 * [y, y + 1], x already clamped to [0, w]), cut at pixel columns. */
static void fill__row_piece(struct overlay_fill_scratch *f, int w, int y, double xa, double ya, double xb, double yb)
{
    double dy = yb - ya;
    if (dy == 0)
        return;
    int ca = (int)xa, cb = (int)xb;
    if (ca == cb || (xa == xb)) {
        if (ca >= w)
            return; /* at the right border: lights nothing */
        double fx = 0.5 * (xa + xb) - ca;
        fill__add(f, y, ca, dy * (1 - fx));
        if (ca + 1 < w)
            fill__add(f, y, ca + 1, dy * fx);
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
    for (;;) {
        double xe = sx > 0 ? col + 1 : col; /* the column's far side */
        int last = sx > 0 ? xb <= xe : xb >= xe;
        double x1 = last ? xb : xe, y1 = last ? yb : ya + (x1 - xa) * dydx;
        double d = y1 - y0;
        if (d != 0 && col >= 0 && col < w) {
            double fx = 0.5 * (x0 + x1) - col;
            fill__add(f, y, col, d * (1 - fx));
            if (col + 1 < w)
                fill__add(f, y, col + 1, d * fx);
        }
        if (last)
            break;
        x0 = x1;
        y0 = y1;
        col += (int)sx;
    }
}

/* A piece within row y cut where it crosses x = 0 and x = w: what lies
 * left of the surface still counts for the winding (a vertical piece at
 * x = 0 over the same rows); what lies right of it lights nothing. */
static void fill__clip_piece(struct overlay_fill_scratch *f, int w, int y, double xa, double ya, double xb, double yb)
{
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
        fill__row_piece(f, w, y, x0, py[i], x1, py[i + 1]);
    }
}

/* One edge (pixels), cut at pixel rows. */
static void fill__edge(struct overlay_fill_scratch *f, int w, int h, double x0, double y0, double x1, double y1)
{
    if (y0 == y1)
        return;
    double ylo = y0 < y1 ? y0 : y1, yhi = y0 < y1 ? y1 : y0;
    if (yhi <= 0 || ylo >= h)
        return;
    double dxdy = (x1 - x0) / (y1 - y0);
    int r0 = ylo < 0 ? 0 : (int)ylo, r1 = yhi > h ? h - 1 : (int)ceil(yhi) - 1;
    int up = y1 < y0;
    for (int r = up ? r1 : r0; up ? r >= r0 : r <= r1; r += up ? -1 : 1) {
        /* the edge's part within row r, in the edge's own direction */
        double ya = up ? fmin(y0, r + 1) : fmax(y0, r), yb = up ? fmax(y1, r) : fmin(y1, r + 1);
        if (ya == yb)
            continue;
        double xa = x0 + (ya - y0) * dxdy, xb = x0 + (yb - y0) * dxdy;
        fill__clip_piece(f, w, r, xa, ya, xb, yb);
    }
}

static int fill__cmp(const void *a, const void *b)
{
    int xa = ((const fill__cell *)a)->x, xb = ((const fill__cell *)b)->x;
    return (xa > xb) - (xa < xb);
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
    if (even_odd) {
        a = fmod(a, 2);
        if (a > 1)
            a = 2 - a;
    } else if (a > 1) {
        a = 1;
    }
    return (unsigned char)(a * 255 + 0.5);
}

int overlay_cov_fill(overlay_cov *c, const double *xy, const int *loop_n, int nloops, int even_odd)
{
    if (!c->a)
        return 0;
    struct overlay_fill_scratch *f = fill__scratch(c);
    if (!f)
        return 0;
    f->n = 0;
    f->nrows = 0;
    f->oom = 0;
    const double *p = xy;
    for (int l = 0; l < nloops; l++) {
        int n = loop_n[l];
        int ok = n >= 3;
        for (int i = 0; i < n && ok; i++)
            ok = fabs(p[2 * i]) <= FILL__HUGE && fabs(p[2 * i + 1]) <= FILL__HUGE; /* NaN fails */
        if (ok)
            for (int i = 0; i < n; i++) {
                const double *a = p + 2 * i, *b = p + 2 * ((i + 1) % n);
                fill__edge(f, c->w, c->h, a[0], a[1], b[0], b[1]);
            }
        p += 2 * (n > 0 ? n : 0);
    }
    /* sweep each row: cells sorted by x, runs between them one value */
    for (int k = 0; k < f->nrows; k++) {
        int y = f->rows[k], m = 0;
        for (int e = f->head[y]; e >= 0; e = f->cell[e].next)
            m++;
        if (!f->oom && m > f->scap) {
            fill__cell *s = realloc(f->sorted, (size_t)m * sizeof *s);
            if (s) {
                f->sorted = s;
                f->scap = m;
            } else {
                f->oom = 1;
            }
        }
        if (f->oom) {
            f->head[y] = -1;
            continue;
        }
        m = 0;
        for (int e = f->head[y]; e >= 0; e = f->cell[e].next)
            f->sorted[m++] = f->cell[e];
        f->head[y] = -1;
        fill__cell *s = f->sorted;
        if (m < 16) { /* insertion sort: a few crossings per row */
            for (int i = 1; i < m; i++) {
                fill__cell t = s[i];
                int j = i - 1;
                while (j >= 0 && s[j].x > t.x) {
                    s[j + 1] = s[j];
                    j--;
                }
                s[j + 1] = t;
            }
        } else {
            qsort(s, (size_t)m, sizeof *s, fill__cmp);
        }
        unsigned char *row = c->a + (size_t)y * c->w;
        double sum = 0;
        int lit0 = c->w, lit1 = 0;
        for (int i = 0; i < m;) {
            int x = s[i].x;
            while (i < m && s[i].x == x)
                sum += s[i++].d;
            unsigned char v = fill__value(sum, even_odd);
            int xe = i < m ? s[i].x : c->w; /* the run x .. xe - 1 has this value */
            if (v == 0 || xe <= x)
                continue;
            for (int u = x; u < xe; u++)
                if (v > row[u])
                    row[u] = v;
            lit0 = x < lit0 ? x : lit0;
            lit1 = xe > lit1 ? xe : lit1;
        }
        if (lit0 < lit1) {
            fill__mark(c, y, lit0, lit1);
            if (y < c->y0)
                c->y0 = y;
            if (y + 1 > c->y1)
                c->y1 = y + 1;
        }
    }
    return !f->oom;
}
