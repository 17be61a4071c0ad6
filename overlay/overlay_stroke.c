/* overlay_stroke.c - anti-aliased thin strokes straight into pixel data
 * (see overlay_stroke.h). */
#include "overlay_stroke.h"
#include "overlay_blend.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STROKE__HUGE 1e6
#define STROKE__CHUNK_BITS 4 /* the dirty map marks chunks of 16 pixels of a row */
#define STROKE__CHUNK (1 << STROKE__CHUNK_BITS)

static void stroke__lut_ready(void);

int overlay_cov_init(overlay_cov *c, int w, int h)
{
    stroke__lut_ready();
    memset(c, 0, sizeof *c);
    if (w < 1 || h < 1)
        return 0;
    int nw = (w + 64 * STROKE__CHUNK - 1) / (64 * STROKE__CHUNK);
    c->a = calloc((size_t)w * h, 1);
    c->dirty = calloc((size_t)h * nw, sizeof *c->dirty);
    c->tw = (w + OVERLAY_TILE - 1) / OVERLAY_TILE;
    c->th = (h + OVERLAY_TILE - 1) / OVERLAY_TILE;
    c->tiles = calloc((size_t)c->tw * c->th, 1);
    if (!c->a || !c->dirty || !c->tiles) {
        overlay_cov_free(c);
        return 0;
    }
    c->nw = nw;
    c->w = w;
    c->h = h;
    c->y0 = h;
    c->y1 = 0;
    return 1;
}

void overlay_cov_free(overlay_cov *c)
{
    overlay_fill_scratch_free(c->fill);
    free(c->tiles);
    free(c->a);
    free(c->dirty);
    memset(c, 0, sizeof *c);
}

int overlay_cov_pending(const overlay_cov *c)
{
    return c->y0 < c->y1;
}

/* One segment's geometry, in pixels. */
typedef struct stroke__seg {
    double ax, ay, ux, uy, len; /* start, unit direction, length */
    double ha, hb, dh;          /* half widths at the ends, slope per pixel along */
    int round_a, round_b;       /* round cap/join at the start / end (else butt) */
    int ext_a, ext_b;           /* the walk reaches past the start / end (else a neighbour covers it) */
} stroke__seg;

static inline double stroke__min(double a, double b)
{
    return a < b ? a : b;
}

static inline double stroke__max(double a, double b)
{
    return a > b ? a : b;
}

/* A pixel (unit square) seen across a direction at angle phi spreads over
 * a trapezoid: the sum of two boxes |cos phi| and |sin phi| wide.  Its
 * cumulative distribution F gives the exact share of the pixel on one
 * side of a straight edge at offset x from the pixel's centre. */
typedef struct stroke__trap {
    double h, g, inv2ab, inva; /* half widths of the support and the flat top; 1 / 2ab, 1 / a */
} stroke__trap;

static void stroke__trap_init(stroke__trap *tr, double ux, double uy)
{
    double a = fabs(ux), b = fabs(uy);
    if (b > a) {
        double t = a;
        a = b;
        b = t;
    }
    tr->h = 0.5 * (a + b);
    tr->g = 0.5 * (a - b);
    tr->inv2ab = b > 1e-9 ? 1 / (2 * a * b) : 0;
    tr->inva = 1 / a;
}

static inline double stroke__cdf(const stroke__trap *tr, double x)
{
    if (x <= -tr->h)
        return 0;
    if (x >= tr->h)
        return 1;
    if (x < -tr->g) {
        double u = x + tr->h;
        return u * u * tr->inv2ab;
    }
    if (x > tr->g) {
        double u = tr->h - x;
        return 1 - u * u * tr->inv2ab;
    }
    return 0.5 + x * tr->inva;
}

/* Coverage tables: stroke__cdf * 255, rounded, for STROKE__LUT_ANG + 1
 * pixel footprints (the ratio b / a of the trapezoid's two boxes in steps
 * of 1 / STROKE__LUT_ANG) at STROKE__LUT_N offsets across [-h, h] - a
 * table lookup instead of the branches and the arithmetic, for the pixels
 * along a segment's sides (not its ends).  Off by at most about 1.5 of 255
 * from the exact value. */
#define STROKE__LUT_ANG 128
#define STROKE__LUT_N 256
static unsigned char stroke__lut[STROKE__LUT_ANG + 1][STROKE__LUT_N];
static pthread_once_t stroke__lut_once = PTHREAD_ONCE_INIT;

static void stroke__lut_build(void)
{
    for (int k = 0; k <= STROKE__LUT_ANG; k++) {
        double t = (double)k / STROKE__LUT_ANG, a = 1 / sqrt(1 + t * t);
        stroke__trap tr;
        stroke__trap_init(&tr, a, t * a);
        for (int i = 0; i < STROKE__LUT_N; i++) {
            double z = -1 + (i + 0.5) * 2.0 / STROKE__LUT_N;
            stroke__lut[k][i] = (unsigned char)(stroke__cdf(&tr, z * tr.h) * 255 + 0.5);
        }
    }
}

static void stroke__lut_ready(void)
{
    pthread_once(&stroke__lut_once, stroke__lut_build);
}

/* A segment's table and the map from an offset x to its index. */
typedef struct stroke__lutp {
    const unsigned char *t;
    double scale, off;
} stroke__lutp;

static void stroke__lut_init(stroke__lutp *l, const stroke__trap *tr, double ux, double uy)
{
    double a = fabs(ux), b = fabs(uy);
    double ratio = a > b ? (a > 0 ? b / a : 0) : a / b;
    l->t = stroke__lut[(int)(ratio * STROKE__LUT_ANG + 0.5)];
    l->scale = STROKE__LUT_N / (2 * tr->h);
    l->off = tr->h * l->scale;
}

static inline int stroke__lut_v(const stroke__lutp *l, double x)
{
    double u = x * l->scale + l->off;
    if (!(u > 0))
        return 0;
    if (u >= STROKE__LUT_N)
        return 255;
    return l->t[(int)u];
}

static inline double stroke__floor(double x)
{
    double t = (double)(long long)x;
    return t > x ? t - 1 : t;
}

static inline double stroke__ceil(double x)
{
    double t = (double)(long long)x;
    return t < x ? t + 1 : t;
}

/* Rasterise one segment: walk the major axis u (columns of a flat segment,
 * rows of a steep one) and, in each, only the pixels whose centre can be
 * within r = max half width + 0.5 (to 0.71, across a diagonal) of the segment: a run of 2r / cos(angle)
 * pixels across the centre line (the segment's thin parallelogram).  Along
 * u the walk covers the segment with its square ends, and r more at an
 * end marked ext (a polyline's ends, or where the next segment turns
 * sharply or walks another axis); elsewhere the neighbour's walk covers
 * what lies beyond.
 *
 * Coverage of a pixel whose centre is at distance d from the segment: the
 * share of the pixel's footprint across the segment (stroke__cdf) within
 * [-hw, hw] (hw interpolated along) - exact for a straight band - with d
 * to the end point beyond a round end; near or beyond a butt end, times
 * the share of its footprint along the segment within [0, len]. */
/* Note rows m0..m1 of chunk b (b < 0: nothing) in the dirty map.  The rows
 * a flat segment lit in one chunk's columns are contiguous: each column's
 * run touches the next one's. */
static void stroke__mark_rows(overlay_cov *c, int b, int m0, int m1)
{
    if (b < 0 || m0 > m1)
        return;
    uint64_t bit = (uint64_t)1 << (b & 63);
    for (int m = m0; m <= m1; m++)
        c->dirty[(size_t)m * c->nw + (b >> 6)] |= bit;
    if (m0 < c->y0)
        c->y0 = m0;
    if (m1 + 1 > c->y1)
        c->y1 = m1 + 1;
}

/* One segment's walk (stroke__segment): what every run of it needs,
 * fixed for the segment. */
typedef struct stroke__walk {
    const stroke__seg *s;
    stroke__trap tr;
    stroke__lutp lut;
    int steep;                /* walks rows (else columns) */
    double au, av, du, dv;    /* the start and the direction in (u, v) */
    double slope, inv_du, R;  /* dv / du, 1 / du, r / |du|: the run's reach across v */
    double L, blu, blv;       /* the length, and the end's offset from the start in (u, v) */
    int butt;                 /* an end is butt */
    double tlo, thi;          /* along the segment: where butt ends cut it */
    double ra, rb;            /* the round ends' radii */
    double t_in0, t_in1;      /* runs with t in [t_in0, t_in1] are inside: no end, no butt share */
    int thick;                /* half widths at least the footprint's reach */
    double q;                 /* wholly inside a thick stroke: |sd| <= q */
    size_t stepv;             /* a step along v in the coverage buffer */
    int nv;                   /* pixels along v */
} stroke__walk;

/* Set up the walk of segment s: its columns (or rows) k0..k1 into *k0,
 * *k1; 0 when it lights none. */
static int stroke__walk_init(stroke__walk *w, const overlay_cov *c, const stroke__seg *s, int *k0, int *k1)
{
    w->s = s;
    stroke__trap_init(&w->tr, s->ux, s->uy);
    stroke__lut_init(&w->lut, &w->tr, s->ux, s->uy);
    /* a pixel's footprint reaches tr.h (0.5 to 0.71) from its centre */
    double r = stroke__max(s->ha, s->hb) + w->tr.h;
    int steep = w->steep = fabs(s->uy) > fabs(s->ux);
    double au = w->au = steep ? s->ay : s->ax;
    w->av = steep ? s->ax : s->ay;
    double du = w->du = steep ? s->uy : s->ux, dv = w->dv = steep ? s->ux : s->uy;
    double bu = au + du * s->len;
    int nu = steep ? c->h : c->w;
    w->nv = steep ? c->w : c->h;
    /* past an end: r where marked ext; else r |sin| - the segment's square
     * end reaches that far along u when the segment is slanted */
    double eu = r * fabs(dv), ea = s->ext_a ? r : eu, eb = s->ext_b ? r : eu;
    double umin = du >= 0 ? au - ea : bu - eb, umax = du >= 0 ? bu + eb : au + ea;
    /* pixel centres k + 0.5 in [umin, umax] */
    if (!(umin >= -2 * STROKE__HUGE && umax <= 2 * STROKE__HUGE))
        return 0;
    double kk0 = stroke__ceil(umin - 0.5), kk1 = stroke__floor(umax - 0.5);
    if (kk0 < 0)
        kk0 = 0;
    if (kk1 > nu - 1)
        kk1 = nu - 1;
    if (kk0 > kk1)
        return 0;
    *k0 = (int)kk0;
    *k1 = (int)kk1;
    w->slope = dv / du;
    w->inv_du = 1 / du; /* |du| >= 1/sqrt(2) */
    w->R = r / fabs(du);
    w->L = s->len;
    w->blu = du * w->L;
    w->blv = dv * w->L;
    w->butt = !s->round_a || !s->round_b;
    w->tlo = s->round_a ? -INFINITY : 0;
    w->thi = s->round_b ? INFINITY : w->L;
    /* round ends: a footprint of variance 1/12 (any direction) spread over
     * a disc's curved edge would add pi/12 px^2 to a disc of any radius
     * r; a radius of sqrt(r^2 - 1/12) gives the disc its true area */
    w->ra = s->ha * s->ha > 1.0 / 12 ? sqrt(s->ha * s->ha - 1.0 / 12) : 0;
    w->rb = s->hb * s->hb > 1.0 / 12 ? sqrt(s->hb * s->hb - 1.0 / 12) : 0;
    w->t_in0 = s->round_a ? 0 : w->tr.h;
    w->t_in1 = s->round_b ? w->L : w->L - w->tr.h;
    /* half widths at least the footprint's reach: the far edge never
     * touches a pixel whose centre is inside the stroke */
    w->thick = stroke__min(s->ha, s->hb) >= w->tr.h;
    w->stepv = steep ? 1 : (size_t)c->w;
    /* a hair narrower than the exact bound, so the edge pixels keep the
     * exact test */
    w->q = stroke__min(s->ha, s->hb) - w->tr.h - 1e-9;
    return 1;
}

/* A run of n pixels from p (t, sd at its first) that lies along a thick
 * segment, away from butt ends: coverage across only.  Pixels j with
 * |sd| <= min half width - tr.h are wholly inside (coverage 255): [ja, jb)
 * of the run, found from sd(j) = sd - du j. */
static void stroke__run_thick(const stroke__walk *w, unsigned char *p, int n, double t, double sd)
{
    const stroke__lutp lut = w->lut;
    const double ha = w->s->ha, dh = w->s->dh, dv = w->dv, du = w->du, q = w->q;
    const size_t stepv = w->stepv;
    int ja = n, jb = n;
    if (q > 0) {
        double x0 = (sd - q) * w->inv_du, x1 = (sd + q) * w->inv_du;
        double jl = stroke__ceil(stroke__min(x0, x1)), jh = stroke__floor(stroke__max(x0, x1));
        if (jl < 0)
            jl = 0;
        if (jh > n - 1)
            jh = n - 1;
        if (jl <= jh) {
            ja = (int)jl;
            jb = (int)jh + 1;
        }
    }
    int j = 0;
    for (; j < ja; j++, t += dv, sd -= du, p += stepv) {
        int v = stroke__lut_v(&lut, ha + dh * t - fabs(sd));
        if (v > *p)
            *p = (unsigned char)v;
    }
    if (ja < jb) { /* the inside: full coverage, no test */
        int run = jb - ja;
        if (stepv == 1)
            memset(p, 255, (size_t)run);
        else
            for (int i = 0; i < run; i++)
                p[(size_t)i * stepv] = 255;
        j = jb;
        t += dv * run;
        sd -= du * run;
        p += stepv * (size_t)run;
    }
    for (; j < n; j++, t += dv, sd -= du, p += stepv) {
        int v = stroke__lut_v(&lut, ha + dh * t - fabs(sd));
        if (v > *p)
            *p = (unsigned char)v;
    }
}

/* The same along a thin segment: both edges may cut a pixel. */
static void stroke__run_thin(const stroke__walk *w, unsigned char *p, int n, double t, double sd)
{
    const stroke__lutp lut = w->lut;
    const double ha = w->s->ha, dh = w->s->dh, dv = w->dv, du = w->du;
    const size_t stepv = w->stepv;
    for (int m = 0; m < n; m++, t += dv, sd -= du, p += stepv) {
        double hw = ha + dh * t, d = fabs(sd);
        int v = stroke__lut_v(&lut, hw - d) - stroke__lut_v(&lut, -hw - d);
        if (v > *p)
            *p = (unsigned char)v;
    }
}

/* A run im0..im1 near or past an end (pu, pv: its first pixel's centre
 * from the start; t, sd: along and across there): the exact coverage, with
 * the distance to the end point beyond a round end and the share along
 * the segment near a butt end.  The pixels lit into *lit0..*lit1 (-1:
 * none). */
static void stroke__run_ends(const stroke__walk *w, unsigned char *p, int im0, int im1, double pu, double pv, double t,
                             double sd, int *lit0, int *lit1)
{
    /* the walk's fields in locals: a store through p (a char) could be
     * any of them, so the compiler would read each again every pixel */
    const stroke__seg *s = w->s;
    const double dv = w->dv, du = w->du, L = w->L, blu = w->blu, blv = w->blv, ra = w->ra, rb = w->rb;
    const double ha = s->ha, hb = s->hb, dh = s->dh, tlo = w->tlo, thi = w->thi;
    const int round_a = s->round_a, round_b = s->round_b, butt = w->butt;
    const size_t stepv = w->stepv;
    const stroke__trap tr = w->tr;
    int l0 = -1, l1 = -1;
    for (int m = im0; m <= im1; m++, t += dv, sd -= du, pv += 1, p += stepv) {
        double d = fabs(sd), hw;
        if (t < 0) {
            hw = ha;
            if (round_a) {
                d = sqrt(pu * pu + pv * pv);
                hw = ra;
            }
        } else if (t > L) {
            hw = hb;
            if (round_b) {
                d = sqrt((pu - blu) * (pu - blu) + (pv - blv) * (pv - blv));
                hw = rb;
            }
        } else {
            hw = ha + dh * t;
        }
        double cov = stroke__cdf(&tr, hw - d) - stroke__cdf(&tr, -hw - d);
        if (cov <= 0)
            continue;
        if (butt) {
            double f = stroke__cdf(&tr, thi - t) - stroke__cdf(&tr, tlo - t);
            if (f <= 0)
                continue;
            cov *= f;
        }
        int v = (int)(cov * 255 + 0.5);
        if (v > *p)
            *p = (unsigned char)v;
        if (l0 < 0)
            l0 = m;
        l1 = m;
    }
    *lit0 = l0;
    *lit1 = l1;
}

/* Note in the dirty map that row k of a steep segment lit columns
 * lit0..lit1. */
static void stroke__mark_steep(overlay_cov *c, int k, int lit0, int lit1)
{
    uint64_t *dr = c->dirty + (size_t)k * c->nw;
    for (int b = lit0 >> STROKE__CHUNK_BITS; b <= lit1 >> STROKE__CHUNK_BITS; b++)
        dr[b >> 6] |= (uint64_t)1 << (b & 63);
    if (k < c->y0)
        c->y0 = k;
    if (k + 1 > c->y1)
        c->y1 = k + 1;
}

/* A flat segment walks columns: the rows its columns lit within one
 * 16-pixel chunk of the dirty map are noted once per chunk (rows lo..hi
 * of chunk b; b < 0: none yet). */
typedef struct stroke__rows {
    int b, lo, hi;
} stroke__rows;

static void stroke__rows_add(overlay_cov *c, stroke__rows *r, int k, int lit0, int lit1)
{
    int b = k >> STROKE__CHUNK_BITS;
    if (b != r->b) {
        stroke__mark_rows(c, r->b, r->lo, r->hi);
        r->b = b;
        r->lo = lit0;
        r->hi = lit1;
    } else {
        r->lo = lit0 < r->lo ? lit0 : r->lo;
        r->hi = lit1 > r->hi ? lit1 : r->hi;
    }
}

static void stroke__segment(overlay_cov *c, const stroke__seg *s)
{
    stroke__walk w;
    int k0, k1;
    if (!stroke__walk_init(&w, c, s, &k0, &k1))
        return;
    stroke__rows rows = {-1, 0, -1};
    for (int k = k0; k <= k1; k++) {
        double pu = k + 0.5 - w.au, vc = w.av + pu * w.slope;
        double lo = vc - w.R - 0.5, hi = vc + w.R - 0.5; /* centres m + 0.5 within R of vc */
        if (hi < 0 || lo > w.nv - 1)
            continue;
        int im0 = lo <= 0 ? 0 : (int)lo + ((double)(int)lo < lo); /* ceil */
        int im1 = hi >= w.nv - 1 ? w.nv - 1 : (int)hi;              /* floor */
        if (im0 > im1)
            continue;
        double pv = im0 + 0.5 - w.av;
        double t = pu * w.du + pv * w.dv, sd = pu * w.dv - pv * w.du;
        unsigned char *p = w.steep ? c->a + (size_t)k * c->w + im0 : c->a + (size_t)im0 * c->w + k;
        int lit0 = im0, lit1 = im1;
        double t1 = t + (im1 - im0) * w.dv;
        if (stroke__min(t, t1) >= w.t_in0 && stroke__max(t, t1) <= w.t_in1) {
            /* the whole run lies along the segment, away from butt ends */
            if (w.thick)
                stroke__run_thick(&w, p, im1 - im0 + 1, t, sd);
            else
                stroke__run_thin(&w, p, im1 - im0 + 1, t, sd);
        } else {
            stroke__run_ends(&w, p, im0, im1, pu, pv, t, sd, &lit0, &lit1);
            if (lit0 < 0)
                continue;
        }
        if (w.steep) /* mark the chunks touched */
            stroke__mark_steep(c, k, lit0, lit1);
        else
            stroke__rows_add(c, &rows, k, lit0, lit1);
    }
    if (!w.steep)
        stroke__mark_rows(c, rows.b, rows.lo, rows.hi);
}

/* A lone point with a round cap: a disc. */
static void stroke__dot(overlay_cov *c, double x, double y, double hw)
{
    stroke__seg s = {x, y, 1, 0, 0, hw, hw, 0, 1, 1, 1, 1};
    stroke__segment(c, &s);
}

static int stroke__ok(double x, double y, double hw)
{
    return fabs(x) <= STROKE__HUGE && fabs(y) <= STROKE__HUGE && hw >= 0 && hw <= STROKE__HUGE; /* NaN fails */
}

/* Direction of segment i -> j (unit, in d) when both ends are usable and
 * apart; 0 otherwise. */
static int stroke__dir(const double *xy, const double *hw, int i, int j, double d[3])
{
    double ax = xy[2 * i], ay = xy[2 * i + 1], bx = xy[2 * j], by = xy[2 * j + 1];
    if (!stroke__ok(ax, ay, hw[i]) || !stroke__ok(bx, by, hw[j]))
        return 0;
    double dx = bx - ax, dy = by - ay, len = sqrt(dx * dx + dy * dy);
    if (!(len > 1e-9))
        return 0;
    d[0] = dx / len;
    d[1] = dy / len;
    d[2] = len;
    return 1;
}

/* Do two consecutive segments' walks meet without a gap: the same major
 * axis, the same way along it, and a smooth turn (under ~25 degrees)? */
static int stroke__meet(const double a[3], const double b[3])
{
    int sa = fabs(a[1]) > fabs(a[0]), sb = fabs(b[1]) > fabs(b[0]);
    if (sa != sb)
        return 0;
    double ua = sa ? a[1] : a[0], ub = sb ? b[1] : b[0];
    return (ua > 0) == (ub > 0) && a[0] * b[0] + a[1] * b[1] > 0.9;
}

void overlay_cov_polyline(overlay_cov *c, const double *xy, const double *hw, int n, int closed, int caps)
{
    if (!c->a || n < 1)
        return;
    int segs = closed ? n : n - 1, drawn = 0;
    double prev[3], cur[3], next[3];
    int has_prev = closed && segs > 0 && stroke__dir(xy, hw, n - 1, 0, prev);
    int has_cur = segs > 0 && stroke__dir(xy, hw, 0, 1 % n, cur);
    for (int i = 0; i < segs; i++) {
        int j = (i + 1) % n;
        int ni = i + 1 < segs ? i + 1 : closed ? 0 : -1;
        int has_next = ni >= 0 && stroke__dir(xy, hw, ni, (ni + 1) % n, next);
        if (has_cur) {
            int ra = closed || i > 0 || (caps & OVERLAY_CAP_ROUND_START);
            int rb = closed || i < segs - 1 || (caps & OVERLAY_CAP_ROUND_END);
            double len = cur[2];
            stroke__seg s = {xy[2 * i], xy[2 * i + 1], cur[0], cur[1], len, hw[i], hw[j], (hw[j] - hw[i]) / len,
                             ra, rb, !(has_prev && stroke__meet(prev, cur)), !(has_next && stroke__meet(cur, next))};
            stroke__segment(c, &s);
            drawn++;
        }
        memcpy(prev, cur, sizeof prev);
        has_prev = has_cur;
        memcpy(cur, next, sizeof cur);
        has_cur = has_next;
    }
    /* a polyline of one point (or all repeats) with round caps: a dot */
    if (!drawn && !closed && caps == (OVERLAY_CAP_ROUND_START | OVERLAY_CAP_ROUND_END) &&
        stroke__ok(xy[0], xy[1], hw[0]))
        stroke__dot(c, xy[0], xy[1], hw[0]);
}


void overlay_cov_blend(overlay_cov *c, unsigned char *data, int stride, const double rgb[3], double alpha, int box[4])
{
    box[0] = c->w;
    box[1] = c->h;
    box[2] = box[3] = 0;
    if (!c->a || c->y0 >= c->y1)
        return;
    uint32_t src = overlay__premul(rgb, alpha);
    for (int y = c->y0; y < c->y1; y++) {
        unsigned char *cv = c->a + (size_t)y * c->w;
        uint32_t *row = (uint32_t *)(void *)(data + (size_t)y * stride);
        uint64_t *dr = c->dirty + (size_t)y * c->nw;
        for (int wi = 0; wi < c->nw; wi++) {
            uint64_t bits = dr[wi];
            dr[wi] = 0;
            while (bits) {
                int b = wi * 64 + __builtin_ctzll(bits);
                bits &= bits - 1;
                /* one marked chunk: blended and its coverage cleared */
                int x0 = b * STROKE__CHUNK, x1 = x0 + STROKE__CHUNK < c->w ? x0 + STROKE__CHUNK : c->w;
                overlay__blend_span(row + x0, cv + x0, x1 - x0, src);
                if (x1 - x0 == STROKE__CHUNK)
                    memset(cv + x0, 0, STROKE__CHUNK); /* constant size: two stores, no call */
                else
                    memset(cv + x0, 0, (size_t)(x1 - x0));
                if (c->tiles)
                    c->tiles[(size_t)(y >> OVERLAY_TILE_BITS) * c->tw + (x0 >> OVERLAY_TILE_BITS)] = 1;
                box[0] = x0 < box[0] ? x0 : box[0];
                box[2] = x1 > box[2] ? x1 : box[2];
                box[1] = y < box[1] ? y : box[1];
                box[3] = y + 1;
            }
        }
    }
    c->y0 = c->h;
    c->y1 = 0;
}

void overlay_cov_clear_lit(overlay_cov *c, unsigned char *data, int stride, uint32_t value)
{
    if (!c->tiles)
        return;
    for (int ty = 0; ty < c->th; ty++) {
        unsigned char *tr = c->tiles + (size_t)ty * c->tw;
        int y0 = ty * OVERLAY_TILE, y1 = y0 + OVERLAY_TILE < c->h ? y0 + OVERLAY_TILE : c->h;
        for (int tx = 0; tx < c->tw;) {
            if (!c->lit_all && !tr[tx]) {
                tx++;
                continue;
            }
            int te = tx; /* a run of lit tiles: one span per row */
            while (te < c->tw && (c->lit_all || tr[te]))
                te++;
            int x0 = tx * OVERLAY_TILE, x1 = te * OVERLAY_TILE < c->w ? te * OVERLAY_TILE : c->w;
            for (int y = y0; y < y1; y++) {
                uint32_t *row = (uint32_t *)(void *)(data + (size_t)y * stride);
                int x = x0;
#ifdef __SSE2__
                const __m128i v4 = _mm_set1_epi32((int)value);
                for (; x + 4 <= x1; x += 4)
                    _mm_storeu_si128((__m128i *)(void *)(row + x), v4);
#endif
                for (; x < x1; x++)
                    row[x] = value;
            }
            memset(tr + tx, 0, (size_t)(te - tx));
            tx = te;
        }
    }
    c->lit_all = 0;
}
