/* overlay_draw.c - primitives in table inches -> cairo paths in target
 * pixels.
 *
 * Fills: the boundary (curves densified to within 0.003" of the true curve,
 * straight edges cut every inch so a lens or correction grid can bend them)
 * is mapped point by point.  Outlines: the stroke is built as a shape in
 * table inches - an offset band of the given width along each smooth run,
 * with a disc at every sharp corner and at open ends - mapped the same way
 * and filled with the non-zero rule (all pieces share one orientation, so
 * overlaps merge instead of doubling the light).  Text goes through the
 * local affine of the map at its anchor.
 *
 * Speed (bench_overlay): outlines and fills go straight into the target's
 * pixels through overlay's own rasterisers when the target is a plain
 * ARGB32/RGB24 image surface (always, for the projector image): outlines by
 * overlay_cov_polyline (coverage from each pixel's distance to the
 * stroke), fills - range bands, cones, blast templates - by
 * overlay_cov_fill (exact-area scan conversion); both blended "over" as
 * cairo_mask would, to the bit (overlay_stroke.c).  Cairo's scan converter
 * walks every pixel row each edge crosses at several hundred instructions a
 * row; ours light only the pixels of the shape.  Opaque outlines of one
 * colour drawn one after the other share one blend.
 *
 * Labels: the glyph outlines from cairo, filled the same way once and kept
 * with the surface while text and place stay the same (draw__text_cached).
 *
 * The band inside a polygon (clipped to it), tiny circles and any target
 * that is not such an image surface go through cairo: opaque shapes of one colour
 * drawn one after the other are filled together (one cairo_fill; the bands
 * share one orientation, so the union is what separate fills would light);
 * translucent ones are rasterised opaque into an A8 scratch mask and
 * composited once, only the 32x16-pixel blocks of the mask that hold
 * coverage.
 *
 * Large areas (band_in > 0) light only a band inside their edge: a
 * circle's or ring's is a ring; any other shape's is its outline of twice
 * the band's width clipped to the shape. */
#include "overlay_internal.h"
#include "overlay_stroke.h"
#include "overlay_blend.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DRAW__TOL_IN 0.003     /* chord error allowed on curves */
#define DRAW__MAX_SEG_IN 1.0   /* longest straight piece before mapping */
#define DRAW__GROUND_STEP_IN 0.5 /* with a ground: edges sampled this often for a change of height */
#define DRAW__GROUND_TOL_IN 0.01 /* height off a straight slope that makes a cut */
#define DRAW__GROUND_MIN_IN 0.01 /* a step in the ground is found to this length */
#define DRAW__SHARP_COS 0.906  /* cos 25 deg: sharper turns get a round join */
#define DRAW__DISC_SEGS 16
#define DRAW__MASK_FILL 0.5    /* translucent fills go through the mask below this fill ratio */
#define DRAW__BLOCK 32         /* mask blocks composited only where they hold coverage: */
#define DRAW__STRIP 16         /* DRAW__BLOCK pixels wide, DRAW__STRIP rows high */

typedef struct draw__buf {
    double *v; /* x, y pairs */
    int n, cap;
} draw__buf;

typedef struct draw__ctx {
    const overlay_mapper *m;
    cairo_t *cr;
    cairo_t *tgt; /* where draw__emit puts the path: cr or the mask */
    double bx0, by0, bx1, by1; /* pixel bounds of what went to tgt */
    double area;               /* signed pixel area of the loops emitted */
    int loops;                 /* and how many */
    int keep_tgt;              /* the fill must stay on tgt (a clip is set there) */
    draw__buf mapped;
    draw__buf dense, piece, ring; /* scratch */
    draw__buf rects;              /* mask blocks composited: (x0, y0), (x1, y1) */
    int oom;
    /* opaque outlines waiting for one cairo_fill (same colour) */
    int pending;
    double pend_rgba[4];
    /* translucent fills: A8 mask the size of the target (lazily made;
     * mask_ok = 0 when the target is not a plain image surface) */
    int mask_ok, mask_w, mask_h;
    unsigned char *mask_data;   /* zero between fills where clean (below) */
    unsigned char *mask_blocks; /* per DRAW__BLOCK columns: coverage seen */
    int *clean_lo, *clean_hi;   /* per row: mask known zero from lo to hi */
    cairo_surface_t *mask;
    cairo_t *mask_cr;
    /* outlines through our own rasteriser (overlay_stroke.c) straight into
     * the target's pixels: rast_ok = 1 when the target allows it (image
     * surface, ARGB32 or RGB24, pixels = user space, no clip; -1 unknown);
     * raster = 1 while a primitive's outline goes there; cov_pending = the
     * coverage holds outlines of colour cov_rgb at cov_alpha not yet blended */
    int rast_ok, raster, cov_pending;
    overlay_cov *cov; /* kept on the target surface (user data) between frames */
    double cov_rgb[3], cov_alpha;
    cairo_surface_t *img;
    draw__buf rq, rpx, rhw; /* scratch: points to map, mapped, half widths */
    int untracked; /* cairo drew on the target (not noted in the coverage's tiles) */
    int straight;  /* the map takes straight lines to straight lines */
    const overlay_mapper *g; /* the mapper when it has a ground (map3), else NULL */
    draw__buf rz;            /* scratch: x, y, height triples for map3 */
} draw__ctx;

static int draw__reserve(draw__ctx *c, draw__buf *b, int n)
{
    if (n <= b->cap)
        return 1;
    int cap = b->cap ? b->cap : 256;
    while (cap < n)
        cap *= 2;
    double *v = realloc(b->v, (size_t)cap * 2 * sizeof *v);
    if (!v) {
        c->oom = 1;
        return 0;
    }
    b->v = v;
    b->cap = cap;
    return 1;
}

static void draw__push(draw__ctx *c, draw__buf *b, double x, double y)
{
    if (!draw__reserve(c, b, b->n + 1))
        return;
    b->v[2 * b->n] = x;
    b->v[2 * b->n + 1] = y;
    b->n++;
}

/* Map a loop of table points and add it to cairo's path as a closed
 * subpath (skipped whole if any point cannot be mapped). */
static void draw__emit(draw__ctx *c, const double *pts, int n, int closed)
{
    if (n < 2 || !draw__reserve(c, &c->mapped, n))
        return;
    double *px = c->mapped.v;
    c->m->map(c->m->user, pts, n, px);
    double x0 = px[0], x1 = px[0], y0 = px[1], y1 = px[1], area = 0;
    for (int i = 0; i < n; i++) {
        double x = px[2 * i], y = px[2 * i + 1];
        if (!(fabs(x) <= 1e6) || !(fabs(y) <= 1e6)) /* also NaN */
            return;
        const double *q = px + 2 * ((i + 1) % n);
        area += x * q[1] - q[0] * y;
        x0 = x < x0 ? x : x0;
        x1 = x > x1 ? x : x1;
        y0 = y < y0 ? y : y0;
        y1 = y > y1 ? y : y1;
    }
    c->bx0 = fmin(c->bx0, x0);
    c->by0 = fmin(c->by0, y0);
    c->bx1 = fmax(c->bx1, x1);
    c->by1 = fmax(c->by1, y1);
    c->area += 0.5 * area;
    c->loops++;
    cairo_t *t = c->tgt;
    cairo_move_to(t, px[0], px[1]);
    for (int i = 1; i < n; i++)
        cairo_line_to(t, px[2 * i], px[2 * i + 1]);
    if (closed)
        cairo_close_path(t);
}

static int draw__arc_segments(double r, double sweep_rad)
{
    double step = r > DRAW__TOL_IN ? 2 * acos(1 - DRAW__TOL_IN / r) : M_PI / 4;
    if (step > M_PI / 8)
        step = M_PI / 8;
    int n = (int)ceil(fabs(sweep_rad) / step);
    return n < 2 ? 2 : n > 4096 ? 4096 : n;
}

/* Points of an arc from a0 to a1 (radians; either direction), both ends
 * included. */
static void draw__arc_pts(draw__ctx *c, draw__buf *b, double cx, double cy, double r, double a0, double a1)
{
    int n = draw__arc_segments(r, a1 - a0);
    if (!draw__reserve(c, b, b->n + n + 1))
        return;
    /* rotate (cos, sin) by the step; re-anchor every 64 points */
    double da = (a1 - a0) / n, cd = cos(da), sd = sin(da), co = 0, si = 0;
    for (int i = 0; i <= n; i++) {
        if (i % 64 == 0) {
            co = cos(a0 + da * i);
            si = sin(a0 + da * i);
        }
        draw__push(c, b, cx + r * co, cy + r * si);
        double t = co * cd - si * sd;
        si = si * cd + co * sd;
        co = t;
    }
    b->v[2 * (b->n - 1)] = cx + r * cos(a1); /* the end exactly */
    b->v[2 * (b->n - 1) + 1] = cy + r * sin(a1);
}

/* Points strictly between a and b (heights ha, hb) where the ground under
 * the segment is not a straight slope: halves until it is, or until the
 * piece is DRAW__GROUND_MIN_IN long (a step: a point each side of it). */
static void draw__ground_split(draw__ctx *c, draw__buf *out, double ax, double ay, double ha, double bx, double by,
                               double hb, int depth)
{
    double mx = 0.5 * (ax + bx), my = 0.5 * (ay + by);
    if (depth > 16 || hypot(bx - ax, by - ay) < DRAW__GROUND_MIN_IN)
        return;
    double hm = tt_ground_height(&c->g->ground, mx, my);
    if (fabs(hm - 0.5 * (ha + hb)) <= DRAW__GROUND_TOL_IN)
        return;
    draw__ground_split(c, out, ax, ay, ha, mx, my, hm, depth + 1);
    draw__push(c, out, mx, my);
    draw__ground_split(c, out, mx, my, hm, bx, by, hb, depth + 1);
}

/* Copy pts into out with straight pieces cut to DRAW__MAX_SEG_IN (not
 * when the map keeps straight lines straight: a projector without a
 * correction grid), cut where the ground under them changes height (with
 * a ground: sampled every DRAW__GROUND_STEP_IN), and
 * repeated points dropped.  closed: the closing edge is cut too (the first
 * point is not repeated). */
static void draw__densify(draw__ctx *c, const double *pts, int n, int closed, draw__buf *out)
{
    out->n = 0;
    int last = closed ? n : n - 1;
    for (int i = 0; i < last; i++) {
        const double *a = pts + 2 * i, *b = pts + 2 * ((i + 1) % n);
        double ex = b[0] - a[0], ey = b[1] - a[1], len = sqrt(ex * ex + ey * ey);
        if (len < 1e-9)
            continue;
        int k = c->straight ? 1 : (int)ceil(len / DRAW__MAX_SEG_IN);
        if (k > 1000)
            k = 1000;
        if (!c->g) {
            for (int j = 0; j < k; j++)
                draw__push(c, out, a[0] + ex * j / k, a[1] + ey * j / k);
            continue;
        }
        /* with a ground: samples every DRAW__GROUND_STEP_IN, each kept
         * where the map bends lines (k) or the ground bends under it */
        int ks = (int)ceil(len / DRAW__GROUND_STEP_IN);
        ks = ks < k ? k : ks > 4000 ? 4000 : ks;
        double px = a[0], py = a[1], ph = tt_ground_height(&c->g->ground, px, py);
        int prev_in = 1; /* the previous sample is in out */
        draw__push(c, out, px, py);
        for (int j = 1; j <= ks; j++) {
            double x = a[0] + ex * j / ks, y = a[1] + ey * j / ks, h = tt_ground_height(&c->g->ground, x, y);
            int before = out->n;
            if (!prev_in) /* a bend here needs both ends of the piece */
                draw__push(c, out, px, py);
            int mid = out->n;
            draw__ground_split(c, out, px, py, ph, x, y, h, 0);
            int bent = out->n > mid || h != ph;
            if (!bent)
                out->n = before;
            prev_in = j < ks && (k > 1 || bent);
            if (prev_in)
                draw__push(c, out, x, y);
            px = x;
            py = y;
            ph = h;
        }
    }
    if (!closed)
        draw__push(c, out, pts[2 * (n - 1)], pts[2 * (n - 1) + 1]);
    else if (out->n == 0 && n > 0)
        draw__push(c, out, pts[0], pts[1]);
}

/* Map points through the mapper; with a ground, triples of points (a
 * point and two near it, for the local Jacobian) all at the height of the
 * ground under the first: the Jacobian of the surface the mark lies on,
 * also at the edge of a hill. */
static void draw__map_triples(draw__ctx *c, const double *in, int ntriples, double *px)
{
    if (!c->g || !draw__reserve(c, &c->rz, (9 * ntriples + 1) / 2)) {
        c->m->map(c->m->user, in, 3 * ntriples, px);
        return;
    }
    double *z = c->rz.v;
    for (int i = 0; i < ntriples; i++) {
        double h = tt_ground_height(&c->g->ground, in[6 * i], in[6 * i + 1]);
        for (int j = 0; j < 3; j++) {
            z[9 * i + 3 * j] = in[6 * i + 2 * j];
            z[9 * i + 3 * j + 1] = in[6 * i + 2 * j + 1];
            z[9 * i + 3 * j + 2] = h;
        }
    }
    c->g->map3(c->g->user, z, 3 * ntriples, px);
}

static void draw__disc(draw__ctx *c, double x, double y, double r)
{
    double d[2 * DRAW__DISC_SEGS];
    for (int i = 0; i < DRAW__DISC_SEGS; i++) {
        double a = 2 * M_PI * i / DRAW__DISC_SEGS;
        d[2 * i] = x + r * cos(a);
        d[2 * i + 1] = y + r * sin(a);
    }
    draw__emit(c, d, DRAW__DISC_SEGS, 1);
}

/* Unit direction of segment i -> i+1 (indices modulo n). */
static void draw__dir(const double *q, int n, int i, double d[2])
{
    const double *a = q + 2 * (i % n), *b = q + 2 * ((i + 1) % n);
    double dx = b[0] - a[0], dy = b[1] - a[1], l = sqrt(dx * dx + dy * dy);
    d[0] = l > 0 ? dx / l : 1;
    d[1] = l > 0 ? dy / l : 0;
}

/* The band of half-width hw along an open run q[0..k-1] (k >= 2): right
 * side forward, left side back - positive orientation like the discs. */
static void draw__band(draw__ctx *c, const double *q, int k, double hw)
{
    draw__buf *r = &c->ring;
    r->n = 0;
    if (!draw__reserve(c, r, 2 * k))
        return;
    for (int side = 0; side < 2; side++)
        for (int t = 0; t < k; t++) {
            int i = side == 0 ? t : k - 1 - t;
            double d0[2], d1[2], tx, ty;
            if (i == 0) {
                draw__dir(q, k, 0, d0);
                tx = d0[0];
                ty = d0[1];
            } else if (i == k - 1) {
                draw__dir(q, k, k - 2, d0);
                tx = d0[0];
                ty = d0[1];
            } else {
                draw__dir(q, k, i - 1, d0);
                draw__dir(q, k, i, d1);
                tx = d0[0] + d1[0];
                ty = d0[1] + d1[1];
                double l = sqrt(tx * tx + ty * ty);
                tx /= l;
                ty /= l;
                double cosh = tx * d1[0] + ty * d1[1]; /* miter */
                double s = cosh > 0.5 ? 1 / cosh : 2;
                tx *= s;
                ty *= s;
            }
            double nx = -ty, ny = tx, sg = side == 0 ? -1 : 1;
            draw__push(c, r, q[2 * i] + sg * hw * nx, q[2 * i + 1] + sg * hw * ny);
        }
    draw__emit(c, r->v, r->n, 1);
}

/* A closed smooth loop's band: the right-side loop forward and the
 * left-side loop backward. */
static void draw__band_closed(draw__ctx *c, const double *q, int k, double hw)
{
    draw__buf *r = &c->ring;
    for (int side = 0; side < 2; side++) {
        r->n = 0;
        if (!draw__reserve(c, r, k))
            return;
        for (int t = 0; t < k; t++) {
            int i = side == 0 ? t : k - 1 - t;
            double d0[2], d1[2];
            draw__dir(q, k, i + k - 1, d0);
            draw__dir(q, k, i, d1);
            double tx = d0[0] + d1[0], ty = d0[1] + d1[1], l = sqrt(tx * tx + ty * ty);
            if (l < 1e-12) {
                tx = d1[0];
                ty = d1[1];
            } else {
                tx /= l;
                ty /= l;
                double cosh = tx * d1[0] + ty * d1[1];
                double s = cosh > 0.5 ? 1 / cosh : 2;
                tx *= s;
                ty *= s;
            }
            double sg = side == 0 ? -1 : 1;
            draw__push(c, r, q[2 * i] + sg * hw * -ty, q[2 * i + 1] + sg * hw * tx);
        }
        draw__emit(c, r->v, r->n, 1);
    }
}

static int draw__sharp(const double *q, int n, int i, int closed)
{
    if (!closed && (i == 0 || i == n - 1))
        return 0;
    double d0[2], d1[2];
    draw__dir(q, n, i + n - 1, d0);
    draw__dir(q, n, i, d1);
    return d0[0] * d1[0] + d0[1] * d1[1] < DRAW__SHARP_COS;
}

/* A run of dense table points (a dash, an open line or a closed loop) to
 * the coverage: each point mapped, with its half width in pixels across
 * the mapped line from the local Jacobian J of the map (a width hw in
 * inches across direction d is hw |det J| / |J d| pixels across J d). */
static void draw__raster_run(draw__ctx *c, const double *q, int k, int closed, double hw, int caps)
{
    const double e = 0.01; /* inches, for the Jacobian */
    if (k < 2 || !draw__reserve(c, &c->rq, 3 * k) || !draw__reserve(c, &c->rpx, 3 * k) ||
        !draw__reserve(c, &c->rhw, k))
        return;
    double *in = c->rq.v, *px = c->rpx.v, *hwp = c->rhw.v;
    for (int i = 0; i < k; i++) {
        double x = q[2 * i], y = q[2 * i + 1];
        double *o = in + 6 * i;
        o[0] = x;
        o[1] = y;
        o[2] = x + e;
        o[3] = y;
        o[4] = x;
        o[5] = y + e;
    }
    draw__map_triples(c, in, k, px);
    for (int i = 0; i < k; i++) {
        /* tangent in inches: across the neighbours (one-sided at open ends) */
        int i0 = i > 0 ? i - 1 : closed ? k - 1 : 0, i1 = i < k - 1 ? i + 1 : closed ? 0 : k - 1;
        double dx = q[2 * i1] - q[2 * i0], dy = q[2 * i1 + 1] - q[2 * i0 + 1], dl = sqrt(dx * dx + dy * dy);
        if (!(dl > 1e-12)) {
            dx = q[2 * i1] - q[2 * i];
            dy = q[2 * i1 + 1] - q[2 * i + 1];
            dl = sqrt(dx * dx + dy * dy);
        }
        const double *o = px + 6 * i;
        double jxx = (o[2] - o[0]) / e, jyx = (o[3] - o[1]) / e, jxy = (o[4] - o[0]) / e, jyy = (o[5] - o[1]) / e;
        double det = fabs(jxx * jyy - jxy * jyx), h = NAN;
        if (dl > 1e-12) {
            dx /= dl;
            dy /= dl;
            double tx = jxx * dx + jxy * dy, ty = jyx * dx + jyy * dy, tl = sqrt(tx * tx + ty * ty);
            if (tl > 1e-12)
                h = hw * det / tl; /* NaN stays NaN: the segment is skipped */
        }
        hwp[i] = h;
    }
    for (int i = 0; i < k; i++) { /* compact to x, y pairs (in place: 2i <= 6i) */
        px[2 * i] = px[6 * i];
        px[2 * i + 1] = px[6 * i + 1];
    }
    overlay_cov_polyline(c->cov, px, hwp, k, closed, caps);
    c->cov_pending = 1;
}

/* Stroke one open piece (already dense): bands between sharp corners,
 * discs at sharp corners and, if caps, at the ends. */
static void draw__stroke_open(draw__ctx *c, const double *q, int n, double hw, int caps)
{
    if (n < 2)
        return;
    if (c->raster) {
        draw__raster_run(c, q, n, 0, hw, caps ? OVERLAY_CAP_ROUND_START | OVERLAY_CAP_ROUND_END : 0);
        return;
    }
    int start = 0;
    for (int i = 1; i < n; i++) {
        if (i == n - 1 || draw__sharp(q, n, i, 0)) {
            draw__band(c, q + 2 * start, i - start + 1, hw);
            if (i < n - 1)
                draw__disc(c, q[2 * i], q[2 * i + 1], hw);
            start = i;
        }
    }
    if (caps) {
        draw__disc(c, q[0], q[1], hw);
        draw__disc(c, q[2 * (n - 1)], q[2 * (n - 1) + 1], hw);
    }
}

/* Split a dense path into dashes and stroke each. */
static void draw__stroke_dashed(draw__ctx *c, const double *q, int n, int closed, double hw)
{
    double dash = fmax(0.4, 8 * hw), gap = 0.6 * dash, pos = 0;
    int on = 1;
    draw__buf *p = &c->piece;
    p->n = 0;
    draw__push(c, p, q[0], q[1]);
    int segs = closed ? n : n - 1;
    for (int i = 0; i < segs; i++) {
        const double *a = q + 2 * i, *b = q + 2 * ((i + 1) % n);
        double len = hypot(b[0] - a[0], b[1] - a[1]), t = 0;
        while (len - t > 1e-12) {
            double left = (on ? dash : gap) - pos, adv = fmin(left, len - t);
            t += adv;
            pos += adv;
            double x = a[0] + (b[0] - a[0]) * t / len, y = a[1] + (b[1] - a[1]) * t / len;
            if (on)
                draw__push(c, p, x, y);
            if (pos >= (on ? dash : gap) - 1e-12) {
                if (on) {
                    /* the piece buffer is reused: copy out before stroking */
                    draw__stroke_open(c, p->v, p->n, hw, 0);
                }
                on = !on;
                pos = 0;
                p->n = 0;
                if (on)
                    draw__push(c, p, x, y);
            }
        }
    }
    if (on && p->n >= 2)
        draw__stroke_open(c, p->v, p->n, hw, 0);
}

/* Stroke a path (table inches, not yet dense) of width w. */
static void draw__stroke(draw__ctx *c, const double *pts, int n, int closed, double w, int dashed)
{
    double hw = 0.5 * w;
    draw__densify(c, pts, n, closed, &c->dense);
    const double *q = c->dense.v;
    int k = c->dense.n;
    if (k < 2 || c->oom)
        return;
    if (dashed) {
        draw__stroke_dashed(c, q, k, closed, hw);
        return;
    }
    if (!closed) {
        draw__stroke_open(c, q, k, hw, 1);
        return;
    }
    if (c->raster) {
        draw__raster_run(c, q, k, 1, hw, 0); /* round joins all round */
        return;
    }
    int first = -1;
    for (int i = 0; i < k && first < 0; i++)
        if (draw__sharp(q, k, i, 1))
            first = i;
    if (first < 0) {
        draw__band_closed(c, q, k, hw);
        return;
    }
    /* open the loop at a sharp corner, repeat that corner at the end */
    draw__buf *p = &c->piece;
    p->n = 0;
    if (!draw__reserve(c, p, k + 1))
        return;
    for (int i = 0; i <= k; i++)
        draw__push(c, p, q[2 * ((first + i) % k)], q[2 * ((first + i) % k) + 1]);
    draw__stroke_open(c, p->v, p->n, hw, 0);
    draw__disc(c, q[2 * first], q[2 * first + 1], hw);
}

/* Fill what is pending (opaque outlines and text of one colour). */
static void draw__flush(draw__ctx *c)
{
    if (!c->pending)
        return;
    c->pending = 0;
    c->untracked = 1;
    cairo_set_fill_rule(c->cr, CAIRO_FILL_RULE_WINDING);
    cairo_set_source_rgb(c->cr, c->pend_rgba[0], c->pend_rgba[1], c->pend_rgba[2]);
    cairo_fill(c->cr);
}

static cairo_user_data_key_t draw__cov_key;

static void draw__cov_destroy(void *p)
{
    overlay_cov_free(p);
    free(p);
}

/* Can outlines go straight into the target's pixels?  Only when cr draws
 * onto an ARGB32 or RGB24 image surface in its pixels (identity matrix, no
 * device offset or scale) with no clip.  The coverage buffer is made then. */
static int draw__rast_ready(draw__ctx *c)
{
    if (c->rast_ok >= 0)
        return c->rast_ok;
    c->rast_ok = 0;
    cairo_surface_t *t = cairo_get_group_target(c->cr);
    if (cairo_surface_get_type(t) != CAIRO_SURFACE_TYPE_IMAGE)
        return 0;
    cairo_format_t f = cairo_image_surface_get_format(t);
    cairo_matrix_t mx;
    double ox, oy, sx, sy;
    cairo_get_matrix(c->cr, &mx);
    cairo_surface_get_device_offset(t, &ox, &oy);
    cairo_surface_get_device_scale(t, &sx, &sy);
    if ((f != CAIRO_FORMAT_ARGB32 && f != CAIRO_FORMAT_RGB24) || ox != 0 || oy != 0 || sx != 1 || sy != 1 ||
        mx.xx != 1 || mx.yy != 1 || mx.xy != 0 || mx.yx != 0 || mx.x0 != 0 || mx.y0 != 0)
        return 0;
    int w = cairo_image_surface_get_width(t), h = cairo_image_surface_get_height(t);
    /* no clip: the clip is the whole surface (one rectangle) */
    cairo_rectangle_list_t *rl = cairo_copy_clip_rectangle_list(c->cr);
    int unclipped = rl && rl->status == CAIRO_STATUS_SUCCESS && rl->num_rectangles == 1 && rl->rectangles[0].x <= 0 &&
                    rl->rectangles[0].y <= 0 && rl->rectangles[0].x + rl->rectangles[0].width >= w &&
                    rl->rectangles[0].y + rl->rectangles[0].height >= h;
    cairo_rectangle_list_destroy(rl);
    if (!unclipped || !cairo_image_surface_get_data(t))
        return 0;
    /* the coverage buffer (w x h bytes, zero between uses) is kept with
     * the surface for the next frame: allocating and touching it afresh
     * each frame costs more than the strokes */
    overlay_cov *cov = cairo_surface_get_user_data(t, &draw__cov_key);
    if (!cov || cov->w != w || cov->h != h) {
        cov = malloc(sizeof *cov);
        if (!cov || !overlay_cov_init(cov, w, h)) {
            free(cov);
            c->oom = 1;
            return 0;
        }
        if (cairo_surface_set_user_data(t, &draw__cov_key, cov, draw__cov_destroy) != CAIRO_STATUS_SUCCESS) {
            draw__cov_destroy(cov);
            c->oom = 1;
            return 0;
        }
    }
    c->cov = cov;
    c->img = t;
    c->rast_ok = 1;
    return 1;
}

/* Blend the outlines waiting in the coverage into the target. */
static void draw__rast_flush(draw__ctx *c)
{
    if (!c->cov_pending)
        return;
    c->cov_pending = 0;
    if (!overlay_cov_pending(c->cov))
        return;
    int box[4];
    cairo_surface_flush(c->img);
    overlay_cov_blend(c->cov, cairo_image_surface_get_data(c->img), cairo_image_surface_get_stride(c->img), c->cov_rgb,
                      c->cov_alpha, box);
    if (box[2] > box[0] && box[3] > box[1])
        cairo_surface_mark_dirty_rectangle(c->img, box[0], box[1], box[2] - box[0], box[3] - box[1]);
}

/* Outline of colour role at alpha into the coverage: what waits there in
 * another colour or opacity is blended first, and cairo's pending fill is
 * filled first (painting order). */
static void draw__rast_begin(draw__ctx *c, overlay_role role, double alpha)
{
    double rgb[3];
    overlay_role_rgb(role, rgb);
    draw__flush(c);
    if (c->cov_pending && (alpha < 1 || c->cov_alpha != alpha || memcmp(rgb, c->cov_rgb, sizeof rgb) != 0))
        draw__rast_flush(c);
    memcpy(c->cov_rgb, rgb, sizeof rgb);
    c->cov_alpha = alpha;
    c->raster = 1;
}

/* End of one primitive's outline: translucent ones are blended now (each
 * primitive its own union, as with cairo); opaque ones of one colour wait
 * for the next (one union, one blend). */
static void draw__rast_end(draw__ctx *c, double alpha)
{
    c->raster = 0;
    if (alpha < 1)
        draw__rast_flush(c);
}

/* The A8 mask for translucent fills, made on first use.  Only when cr
 * draws straight onto an image surface in its pixels (identity matrix, no
 * device offset): then mask pixels are target pixels. */
static int draw__mask_ready(draw__ctx *c)
{
    if (c->mask_ok >= 0)
        return c->mask_ok;
    c->mask_ok = 0;
    cairo_surface_t *t = cairo_get_group_target(c->cr);
    cairo_matrix_t mx;
    double ox, oy;
    cairo_get_matrix(c->cr, &mx);
    cairo_surface_get_device_offset(t, &ox, &oy);
    if (cairo_surface_get_type(t) != CAIRO_SURFACE_TYPE_IMAGE || ox != 0 || oy != 0 || mx.xx != 1 || mx.yy != 1 ||
        mx.xy != 0 || mx.yx != 0 || mx.x0 != 0 || mx.y0 != 0)
        return 0;
    int w = cairo_image_surface_get_width(t), h = cairo_image_surface_get_height(t);
    int stride = cairo_format_stride_for_width(CAIRO_FORMAT_A8, w);
    if (w < 1 || h < 1 || stride < 1)
        return 0;
    /* not cleared: see draw__mask_clean */
    c->mask_data = malloc((size_t)stride * (size_t)h);
    c->mask_blocks = malloc((size_t)(w / DRAW__BLOCK + 2));
    c->clean_lo = calloc((size_t)h, 2 * sizeof *c->clean_lo);
    if (!c->mask_data || !c->mask_blocks || !c->clean_lo) {
        c->oom = 1;
        return 0;
    }
    c->mask = cairo_image_surface_create_for_data(c->mask_data, CAIRO_FORMAT_A8, w, h, stride);
    c->mask_cr = cairo_create(c->mask);
    if (cairo_status(c->mask_cr) != CAIRO_STATUS_SUCCESS)
        return 0;
    cairo_set_antialias(c->mask_cr, CAIRO_ANTIALIAS_FAST);
    cairo_set_source_rgb(c->mask_cr, 1, 1, 1);
    c->clean_hi = c->clean_lo + h;
    c->mask_w = w;
    c->mask_h = h;
    c->mask_ok = 1;
    return 1;
}

/* Make the mask zero in the box x0..x1, y0..y1.  Each row keeps the span
 * known to be zero (clean_lo..clean_hi: cleared once, and every fill
 * clears what it lit), so only what no fill has used yet is cleared. */
static void draw__mask_clean(draw__ctx *c, int x0, int y0, int x1, int y1)
{
    int stride = cairo_image_surface_get_stride(c->mask);
    for (int y = y0; y < y1; y++) {
        unsigned char *row = c->mask_data + (size_t)y * stride;
        int lo = c->clean_lo[y], hi = c->clean_hi[y];
        if (lo >= hi) {
            memset(row + x0, 0, (size_t)(x1 - x0));
            lo = x0;
            hi = x1;
        } else {
            if (x0 < lo) {
                memset(row + x0, 0, (size_t)(lo - x0));
                lo = x0;
            }
            if (x1 > hi) {
                memset(row + hi, 0, (size_t)(x1 - hi));
                hi = x1;
            }
        }
        c->clean_lo[y] = lo;
        c->clean_hi[y] = hi;
    }
}

/* Composite colour rgb at alpha through the mask, box x0..x1, y0..y1 -
 * only the blocks of it that hold coverage (an outline or a band along
 * the edge of a large area leaves most of its box empty, and compositing
 * an empty mask still reads and writes every target pixel) - and clear
 * those blocks again, so the mask stays zero where it is clean. */
static void draw__mask_composite(draw__ctx *c, const double rgb[3], double alpha, int x0, int y0, int x1, int y1)
{
    int stride = cairo_image_surface_get_stride(c->mask), nrect = 0;
    c->rects.n = 0;
    int b0 = 0, b1 = (x1 - x0 + DRAW__BLOCK - 1) / DRAW__BLOCK;
    unsigned char *on = c->mask_blocks;
    cairo_new_path(c->cr);
    for (int ys = y0; ys < y1; ys += DRAW__STRIP) {
        int ye = ys + DRAW__STRIP < y1 ? ys + DRAW__STRIP : y1;
        memset(on + b0, 0, (size_t)(b1 - b0));
        for (int y = ys; y < ye; y++) {
            const unsigned char *row = c->mask_data + (size_t)y * stride;
            for (int b = b0; b < b1; b++) {
                if (on[b])
                    continue;
                int xa = x0 + b * DRAW__BLOCK, xb = xa + DRAW__BLOCK < x1 ? xa + DRAW__BLOCK : x1;
                uint64_t any = 0, w;
                int x = xa;
                for (; x + 8 <= xb; x += 8) {
                    memcpy(&w, row + x, 8);
                    any |= w;
                }
                for (; x < xb; x++)
                    any |= row[x];
                on[b] = any != 0;
            }
        }
        for (int b = b0; b < b1;) {
            if (!on[b]) {
                b++;
                continue;
            }
            int e = b;
            while (e < b1 && on[e])
                e++;
            int xa = x0 + b * DRAW__BLOCK, xb = x0 + e * DRAW__BLOCK < x1 ? x0 + e * DRAW__BLOCK : x1;
            cairo_rectangle(c->cr, xa, ys, xb - xa, ye - ys);
            draw__push(c, &c->rects, xa, ys);
            draw__push(c, &c->rects, xb, ye);
            nrect++;
            b = e;
        }
    }
    if (nrect == 0 || c->oom) {
        cairo_new_path(c->cr);
        return;
    }
    c->untracked = 1;
    cairo_save(c->cr);
    cairo_clip(c->cr); /* pixel-aligned rectangles: a region */
    cairo_set_source_rgba(c->cr, rgb[0], rgb[1], rgb[2], alpha);
    cairo_mask_surface(c->cr, c->mask, 0, 0);
    cairo_restore(c->cr);
    /* clear what was lit: every block that held coverage */
    for (int i = 0; i + 1 < c->rects.n; i += 2) {
        const double *r = c->rects.v + 2 * i;
        for (int y = (int)r[1]; y < (int)r[3]; y++)
            memset(c->mask_data + (size_t)y * stride + (int)r[0], 0, (size_t)(r[2] - r[0]));
    }
    c->rects.n = 0;
    cairo_surface_mark_dirty_rectangle(c->mask, x0, y0, x1 - x0, y1 - y0);
}

/* Start a fill of colour role/alpha: choose where the path goes.  Opaque
 * fills join the pending one of the same colour; translucent ones go to the
 * mask (or straight to cr when there is none). */
static void draw__begin(draw__ctx *c, overlay_role role, double alpha)
{
    draw__rast_flush(c); /* painting order */
    double rgb[3];
    overlay_role_rgb(role, rgb);
    c->bx0 = c->by0 = INFINITY;
    c->bx1 = c->by1 = -INFINITY;
    c->area = 0;
    c->loops = 0;
    if (alpha >= 1) {
        if (c->pending &&
            (c->pend_rgba[0] != rgb[0] || c->pend_rgba[1] != rgb[1] || c->pend_rgba[2] != rgb[2]))
            draw__flush(c);
        c->pending = 1;
        memcpy(c->pend_rgba, rgb, sizeof rgb);
        c->pend_rgba[3] = 1;
        c->tgt = c->cr;
        return;
    }
    draw__flush(c);
    c->tgt = draw__mask_ready(c) ? c->mask_cr : c->cr;
    cairo_new_path(c->tgt);
}

/* Finish a translucent fill started by draw__begin. */
static void draw__end(draw__ctx *c, overlay_role role, double alpha, cairo_fill_rule_t rule)
{
    if (alpha >= 1)
        return; /* stays pending */
    double rgb[3];
    overlay_role_rgb(role, rgb);
    /* the bounding box, one pixel of margin for anti-aliasing, on the mask */
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    if (c->tgt != c->cr) {
        x0 = (int)fmax(0, floor(c->bx0) - 1);
        y0 = (int)fmax(0, floor(c->by0) - 1);
        x1 = (int)fmin(c->mask_w, ceil(c->bx1) + 2);
        y1 = (int)fmin(c->mask_h, ceil(c->by1) + 2);
        if (!(c->bx0 <= c->bx1) || x1 <= x0 || y1 <= y0) {
            cairo_new_path(c->mask_cr);
            return;
        }
        /* one loop that fills most of its box (a disc, a cone): cairo's own
         * spans are cheaper than clearing and compositing the whole box */
        if (!c->keep_tgt && c->loops < 2 && fabs(c->area) > DRAW__MASK_FILL * (double)(x1 - x0) * (y1 - y0)) {
            cairo_path_t *path = cairo_copy_path(c->mask_cr);
            cairo_new_path(c->mask_cr);
            if (!path || path->status != CAIRO_STATUS_SUCCESS) {
                cairo_path_destroy(path);
                c->oom = 1;
                return;
            }
            cairo_new_path(c->cr);
            cairo_append_path(c->cr, path);
            cairo_path_destroy(path);
            c->tgt = c->cr;
        }
    }
    if (c->tgt == c->cr) {
        c->untracked = 1;
        cairo_set_fill_rule(c->cr, rule);
        cairo_set_source_rgba(c->cr, rgb[0], rgb[1], rgb[2], alpha);
        cairo_fill(c->cr);
        return;
    }
    cairo_surface_flush(c->mask);
    draw__mask_clean(c, x0, y0, x1, y1);
    cairo_surface_mark_dirty_rectangle(c->mask, x0, y0, x1 - x0, y1 - y0);
    cairo_set_fill_rule(c->mask_cr, rule);
    cairo_fill(c->mask_cr);
    cairo_surface_flush(c->mask);
    draw__mask_composite(c, rgb, alpha, x0, y0, x1, y1);
}

/* The boundaries of a round primitive, as loops in c->dense (loop 1) and
 * c->piece (loop 2, ring only).  Returns the number of loops. */
static int draw__round_loops(draw__ctx *c, const overlay__prim *p, draw__buf *l1, draw__buf *l2)
{
    double a0 = p->a0 * M_PI / 180, a1 = p->a1 * M_PI / 180;
    l1->n = l2->n = 0;
    switch (p->kind) {
    case OVERLAY__CIRCLE:
        draw__arc_pts(c, l1, p->cx, p->cy, p->r1, 0, 2 * M_PI);
        l1->n--; /* the last point repeats the first */
        return 1;
    case OVERLAY__RING:
        draw__arc_pts(c, l1, p->cx, p->cy, p->r1, 0, 2 * M_PI);
        l1->n--;
        if (p->r0 > 0) {
            draw__arc_pts(c, l2, p->cx, p->cy, p->r0, 2 * M_PI, 0);
            l2->n--;
            return 2;
        }
        return 1;
    case OVERLAY__SECTOR:
        draw__arc_pts(c, l1, p->cx, p->cy, p->r1, a0, a1);
        if (p->r0 > 0)
            draw__arc_pts(c, l1, p->cx, p->cy, p->r0, a1, a0);
        else if (p->a1 - p->a0 < 360)
            draw__push(c, l1, p->cx, p->cy);
        return 1;
    case OVERLAY__ARC:
        draw__arc_pts(c, l1, p->cx, p->cy, p->r1, a0, a1);
        return 1;
    default:
        return 0;
    }
}

/* The labels' font face, made once and kept (a face selected by name is
 * looked up through fontconfig whenever it is made anew). */
static cairo_font_face_t *draw__face(void)
{
    static cairo_font_face_t *face;
    cairo_font_face_t *f = __atomic_load_n(&face, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    f = cairo_toy_font_face_create("DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_font_face_t *expected = NULL;
    if (!__atomic_compare_exchange_n(&face, &expected, f, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        cairo_font_face_destroy(f); /* another thread made it first */
        f = expected;
    }
    return f;
}

/* Labels drawn straight into the target keep their coverage, rendered
 * once, with the surface (user data) for the next frames: a label whose
 * text and place (the whole pixel matrix: size, angle, perspective,
 * position to a fraction of a pixel) are the same as a kept one is only
 * blended again.  Labels not drawn in a frame are dropped at the end of it.
 * The coverage is the exact-area fill (overlay_cov_fill) of the glyph
 * outlines cairo gives. */
typedef struct draw__label {
    char *text;
    double m[6]; /* pixel matrix (cairo_matrix_t: xx yx xy yy x0 y0) */
    double size;
    int x0, y0, w, h; /* the coverage's box in target pixels */
    unsigned char *a; /* w * h */
    unsigned frame;   /* last drawn */
} draw__label;

#define DRAW__LABELS_MAX 256

typedef struct draw__labels {
    draw__label *l;
    int n, cap;
    unsigned frame;
} draw__labels;

static cairo_user_data_key_t draw__labels_key;

static void draw__labels_destroy(void *p)
{
    draw__labels *ls = p;
    for (int i = 0; i < ls->n; i++) {
        free(ls->l[i].text);
        free(ls->l[i].a);
    }
    free(ls->l);
    free(ls);
}

static draw__labels *draw__labels_get(draw__ctx *c)
{
    draw__labels *ls = cairo_surface_get_user_data(c->img, &draw__labels_key);
    if (ls)
        return ls;
    ls = calloc(1, sizeof *ls);
    if (!ls || cairo_surface_set_user_data(c->img, &draw__labels_key, ls, draw__labels_destroy) != CAIRO_STATUS_SUCCESS) {
        free(ls);
        return NULL;
    }
    return ls;
}

/* Drop what was not drawn this frame (called at the end of a draw). */
static void draw__labels_sweep(draw__ctx *c)
{
    if (!c->img || c->rast_ok != 1)
        return;
    draw__labels *ls = cairo_surface_get_user_data(c->img, &draw__labels_key);
    if (!ls)
        return;
    int k = 0;
    for (int i = 0; i < ls->n; i++) {
        if (ls->l[i].frame == ls->frame) {
            ls->l[k++] = ls->l[i];
        } else {
            free(ls->l[i].text);
            free(ls->l[i].a);
        }
    }
    ls->n = k;
    ls->frame++;
}

/* Render a label's coverage into e: the glyph outlines from cairo,
 * flattened (within 0.1 pixel), filled by overlay_cov_fill (exact area,
 * non-zero) into a buffer of the label's box (its ink plus 2 pixels).
 * t: the drawing's context, its matrix the identity (cairo leaves out
 * glyphs that fall outside the target).
 * Returns 1, 0 when there is nothing to draw, -1 when out of memory. */
static int draw__label_render(draw__label *e, const overlay__prim *p, const cairo_matrix_t *mtx, cairo_t *t)
{
    cairo_save(t);
    cairo_identity_matrix(t);
    cairo_new_path(t);
    cairo_transform(t, mtx);
    cairo_set_font_face(t, draw__face());
    cairo_set_font_size(t, p->size_in / 0.73); /* DejaVu Sans: cap height 0.73 em */
    cairo_text_extents_t ext;
    cairo_text_extents(t, p->text, &ext);
    cairo_move_to(t, -(ext.x_bearing + ext.width / 2), -(ext.y_bearing + ext.height / 2));
    cairo_text_path(t, p->text);
    cairo_restore(t); /* the path stays, in pixels */
    cairo_path_t *path = cairo_copy_path_flat(t);
    cairo_new_path(t);
    if (!path || path->status != CAIRO_STATUS_SUCCESS) {
        cairo_path_destroy(path);
        return -1;
    }
    /* the loops, one after the other, and the box */
    int npts = 0, nloops = 0;
    for (int i = 0; i < path->num_data; i += path->data[i].header.length) {
        cairo_path_data_type_t ty = path->data[i].header.type;
        npts += ty == CAIRO_PATH_MOVE_TO || ty == CAIRO_PATH_LINE_TO;
        nloops += ty == CAIRO_PATH_MOVE_TO;
    }
    double *xy = malloc(sizeof(double) * 2 * (size_t)(npts + 1));
    int *ln = calloc((size_t)nloops + 1, sizeof *ln);
    int rc = -1;
    if (!xy || !ln)
        goto out;
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    int k = 0, l = -1;
    for (int i = 0; i < path->num_data; i += path->data[i].header.length) {
        cairo_path_data_type_t ty = path->data[i].header.type;
        if (ty != CAIRO_PATH_MOVE_TO && ty != CAIRO_PATH_LINE_TO)
            continue;
        if (ty == CAIRO_PATH_MOVE_TO)
            l++;
        double x = path->data[i + 1].point.x, y = path->data[i + 1].point.y;
        xy[2 * k] = x;
        xy[2 * k + 1] = y;
        k++;
        ln[l]++;
        x0 = fmin(x0, x);
        x1 = fmax(x1, x);
        y0 = fmin(y0, y);
        y1 = fmax(y1, y);
    }
    rc = 0;
    if (k == 0 || !(x1 - x0 < 8192 && y1 - y0 < 8192) || !(fabs(x0) < 1e6 && fabs(y0) < 1e6))
        goto out; /* nothing, huge or not finite: nothing to draw */
    e->x0 = (int)floor(x0) - 2;
    e->y0 = (int)floor(y0) - 2;
    e->w = (int)ceil(x1) + 2 - e->x0;
    e->h = (int)ceil(y1) + 2 - e->y0;
    for (int i = 0; i < k; i++) {
        xy[2 * i] -= e->x0;
        xy[2 * i + 1] -= e->y0;
    }
    overlay_cov cov;
    rc = -1;
    if (!overlay_cov_init(&cov, e->w, e->h))
        goto out;
    if (overlay_cov_fill(&cov, xy, ln, l + 1, 0)) {
        e->a = cov.a; /* w * h coverage, rows of w: the label's own */
        cov.a = NULL;
        rc = 1;
    }
    overlay_cov_free(&cov);
out:
    free(xy);
    free(ln);
    cairo_path_destroy(path);
    return rc;
}

/* A label through the cache, blended into the target.  Returns 0 when the
 * cache cannot be used (then cairo draws it the old way). */
static int draw__text_cached(draw__ctx *c, const overlay__prim *p, const cairo_matrix_t *mtx)
{
    if (!draw__rast_ready(c))
        return 0;
    draw__labels *ls = draw__labels_get(c);
    if (!ls)
        return 0;
    const double key[6] = {mtx->xx, mtx->yx, mtx->xy, mtx->yy, mtx->x0, mtx->y0};
    draw__label *e = NULL;
    for (int i = 0; i < ls->n && !e; i++)
        if (ls->l[i].size == p->size_in && memcmp(ls->l[i].m, key, sizeof key) == 0 && !strcmp(ls->l[i].text, p->text))
            e = &ls->l[i];
    if (!e) {
        if (ls->n >= DRAW__LABELS_MAX)
            return 0;
        if (ls->n == ls->cap) {
            int cap = ls->cap ? 2 * ls->cap : 16;
            draw__label *nl = realloc(ls->l, (size_t)cap * sizeof *nl);
            if (!nl)
                return 0;
            ls->l = nl;
            ls->cap = cap;
        }
        draw__label ne = {0};
        ne.text = strdup(p->text);
        memcpy(ne.m, key, sizeof key);
        ne.size = p->size_in;
        draw__flush(c); /* the path is built on cr: nothing may wait there */
        int r = ne.text ? draw__label_render(&ne, p, mtx, c->cr) : -1;
        if (r <= 0) {
            free(ne.text);
            free(ne.a);
            if (r < 0)
                c->oom = 1;
            return 1; /* nothing to draw (or out of memory) */
        }
        ls->l[ls->n] = ne;
        e = &ls->l[ls->n++];
    }
    e->frame = ls->frame;
    /* painting order: what waits in cairo and in the coverage goes first */
    draw__flush(c);
    draw__rast_flush(c);
    double rgb[3];
    overlay_role_rgb(p->st.role, rgb);
    uint32_t src = overlay__premul(rgb, p->st.alpha > 0 ? p->st.alpha : 1);
    int W = cairo_image_surface_get_width(c->img), H = cairo_image_surface_get_height(c->img);
    int xa = e->x0 < 0 ? 0 : e->x0, xb = e->x0 + e->w > W ? W : e->x0 + e->w;
    int ya = e->y0 < 0 ? 0 : e->y0, yb = e->y0 + e->h > H ? H : e->y0 + e->h;
    if (xa >= xb || ya >= yb)
        return 1;
    cairo_surface_flush(c->img);
    unsigned char *data = cairo_image_surface_get_data(c->img);
    int stride = cairo_image_surface_get_stride(c->img);
    for (int y = ya; y < yb; y++)
        overlay__blend_span((uint32_t *)(void *)(data + (size_t)y * stride) + xa,
                            e->a + (size_t)(y - e->y0) * e->w + (xa - e->x0), xb - xa, src);
    cairo_surface_mark_dirty_rectangle(c->img, xa, ya, xb - xa, yb - ya);
    overlay_cov_mark(c->cov, xa, ya, xb, yb);
    return 1;
}

static void draw__text(draw__ctx *c, const overlay__prim *p)
{
    const double e = 0.05;
    double pts[6] = {p->cx, p->cy, p->cx + e, p->cy, p->cx, p->cy + e}, px[6];
    draw__map_triples(c, pts, 1, px);
    for (int i = 0; i < 6; i++)
        if (!isfinite(px[i]))
            return;
    double J[4] = {(px[2] - px[0]) / e, (px[4] - px[0]) / e, (px[3] - px[1]) / e, (px[5] - px[1]) / e};
    double a = p->angle_deg * M_PI / 180, bx = cos(a), by = sin(a), dx = -sin(a), dy = cos(a);
    cairo_matrix_t mtx;
    cairo_matrix_init(&mtx, J[0] * bx + J[1] * by, J[2] * bx + J[3] * by, J[0] * dx + J[1] * dy,
                      J[2] * dx + J[3] * dy, px[0], px[1]);
    if (fabs(mtx.xx * mtx.yy - mtx.xy * mtx.yx) < 1e-9)
        return;
    if (draw__text_cached(c, p, &mtx))
        return;
    draw__begin(c, p->st.role, p->st.alpha);
    cairo_t *t = c->tgt;
    cairo_save(t);
    cairo_transform(t, &mtx);
    cairo_set_font_face(t, draw__face());
    cairo_set_font_size(t, p->size_in / 0.73); /* DejaVu Sans: cap height 0.73 em */
    cairo_text_extents_t ext;
    cairo_text_extents(t, p->text, &ext);
    /* bounds (for the mask) from the text's box */
    double bxs[4] = {ext.x_bearing, ext.x_bearing + ext.width, ext.x_bearing + ext.width, ext.x_bearing};
    double bys[4] = {ext.y_bearing, ext.y_bearing, ext.y_bearing + ext.height, ext.y_bearing + ext.height};
    double ox = -(ext.x_bearing + ext.width / 2), oy = -(ext.y_bearing + ext.height / 2);
    for (int k = 0; k < 4; k++) {
        double ux = bxs[k] + ox, uy = bys[k] + oy;
        cairo_matrix_transform_point(&mtx, &ux, &uy);
        c->bx0 = fmin(c->bx0, ux);
        c->bx1 = fmax(c->bx1, ux);
        c->by0 = fmin(c->by0, uy);
        c->by1 = fmax(c->by1, uy);
    }
    c->bx0 -= 2; /* margin: glyph outlines against their ink extents */
    c->by0 -= 2;
    c->bx1 += 2;
    c->by1 += 2;
    c->loops += 2;
    cairo_move_to(t, ox, oy);
    cairo_text_path(t, p->text);
    cairo_restore(t); /* the path stays, in pixels */
    draw__end(c, p->st.role, p->st.alpha, CAIRO_FILL_RULE_WINDING);
}

/* A fill (one loop, or two with the even-odd rule) through our own
 * exact-area scan conversion, blended into the target as it is swept: cairo's scan converter walks every row each edge crosses at
 * several hundred instructions a row, and a band along a large circle has
 * two long edges. */
static void draw__fill_cov(draw__ctx *c, const overlay_style *st, const draw__buf *l1, const draw__buf *l2)
{
    int ln[2] = {0, 0}, nl = 0, total = 0;
    draw__flush(c);      /* painting order: cairo's pending fill, */
    draw__rast_flush(c); /* then the outlines waiting in the coverage */
    for (int k = 0; k < 2; k++) {
        const draw__buf *l = k ? l2 : l1;
        if (!l)
            break;
        draw__densify(c, l->v, l->n, 1, &c->dense);
        if (c->oom || !draw__reserve(c, &c->rpx, total + c->dense.n))
            return;
        c->m->map(c->m->user, c->dense.v, c->dense.n, c->rpx.v + 2 * total);
        ln[nl++] = c->dense.n;
        total += c->dense.n;
    }
    /* one shape: blended as it is swept, no coverage buffer in between */
    double rgb[3];
    int box[4];
    overlay_role_rgb(st->role, rgb);
    cairo_surface_flush(c->img);
    if (!overlay_fill_blend(c->cov, c->rpx.v, ln, nl, 1, cairo_image_surface_get_data(c->img),
                            cairo_image_surface_get_stride(c->img), rgb, st->fill_alpha, box))
        c->oom = 1;
    if (box[2] > box[0] && box[3] > box[1])
        cairo_surface_mark_dirty_rectangle(c->img, box[0], box[1], box[2] - box[0], box[3] - box[1]);
}

/* The area of a closed primitive at fill_alpha: all of it, or with
 * band_in only the band just inside its edge.  A circle's or ring's band is
 * the ring from r1 - band_in to r1 (not below r0); any other shape's is its
 * outline of width 2 * band_in clipped to the shape itself. */
static void draw__fill(draw__ctx *c, const overlay__prim *p, const draw__buf *l1, const draw__buf *l2, int nloops)
{
    const overlay_style *st = &p->st;
    int round = p->kind == OVERLAY__CIRCLE || p->kind == OVERLAY__RING;
    draw__buf b1 = {0}, b2 = {0};
    if (st->band_in > 0 && round) {
        overlay__prim q = *p;
        q.kind = OVERLAY__RING;
        q.r0 = fmax(p->r0, p->r1 - st->band_in);
        nloops = draw__round_loops(c, &q, &b1, &b2);
        l1 = &b1;
        l2 = &b2;
    }
    int clip = st->band_in > 0 && !round;
    if (!clip && draw__rast_ready(c)) {
        draw__fill_cov(c, st, l1, nloops == 2 ? l2 : NULL);
        free(b1.v);
        free(b2.v);
        return;
    }
    if (clip)
        draw__flush(c); /* the clip must not take pending shapes with it */
    draw__begin(c, st->role, st->fill_alpha);
    draw__densify(c, l1->v, l1->n, 1, &c->dense);
    draw__emit(c, c->dense.v, c->dense.n, 1);
    if (nloops == 2) {
        draw__densify(c, l2->v, l2->n, 1, &c->dense);
        draw__emit(c, c->dense.v, c->dense.n, 1);
    }
    if (clip) {
        cairo_t *t = c->tgt;
        cairo_save(t);
        /* exact-area coverage, as every other fill gets from
         * overlay_cov_fill */
        cairo_set_antialias(t, CAIRO_ANTIALIAS_DEFAULT);
        cairo_set_fill_rule(t, CAIRO_FILL_RULE_EVEN_ODD);
        cairo_clip(t); /* the shape; the box stays the shape's */
        c->keep_tgt = 1;
        draw__stroke(c, l1->v, l1->n, 1, 2 * st->band_in, 0);
        draw__end(c, st->role, st->fill_alpha, CAIRO_FILL_RULE_WINDING);
        draw__flush(c); /* opaque: fill now, inside the clip */
        c->keep_tgt = 0;
        cairo_restore(t);
    } else {
        draw__end(c, st->role, st->fill_alpha, CAIRO_FILL_RULE_EVEN_ODD);
    }
    free(b1.v);
    free(b2.v);
}

/* Copy a polyline or polygon (table inches), leaving out points the path
 * passes within DRAW__TOL_IN of anyway - the same allowance curves get: a
 * blast template clipped by walls arrives as hundreds of points a small
 * fraction of a pixel apart, and every piece costs the same to draw
 * whatever its length.  Greedy: from each kept point, reach as far as
 * every point skipped stays within the allowance of the chord. */
static void draw__simplify(draw__ctx *c, const double *xy, int n, draw__buf *out)
{
    out->n = 0;
    if (!draw__reserve(c, out, n))
        return;
    draw__push(c, out, xy[0], xy[1]);
    int a = 0;
    while (a < n - 1) {
        int j = a + 1;
        while (j + 1 < n) {
            /* can the chord a -> j + 1 replace the points between? */
            const double *pa = xy + 2 * a, *pb = xy + 2 * (j + 1);
            double dx = pb[0] - pa[0], dy = pb[1] - pa[1], l2 = dx * dx + dy * dy;
            int ok = l2 > 0;
            for (int k = a + 1; k <= j && ok; k++) {
                const double *q = xy + 2 * k;
                double t = ((q[0] - pa[0]) * dx + (q[1] - pa[1]) * dy) / l2;
                double ex = pa[0] + t * dx - q[0], ey = pa[1] + t * dy - q[1];
                ok = t >= 0 && t <= 1 && ex * ex + ey * ey <= DRAW__TOL_IN * DRAW__TOL_IN;
            }
            if (!ok)
                break;
            j++;
        }
        draw__push(c, out, xy[2 * j], xy[2 * j + 1]);
        a = j;
    }
}

static void draw__prim(draw__ctx *c, const overlay__prim *p)
{
    const overlay_style *st = &p->st;
    if (p->kind == OVERLAY__TEXT) {
        draw__text(c, p);
        return;
    }
    draw__buf l1 = {0}, l2 = {0};
    int closed = p->kind != OVERLAY__POLYLINE && p->kind != OVERLAY__ARC;
    int nloops;
    if (p->kind == OVERLAY__POLYLINE || p->kind == OVERLAY__POLYGON) {
        nloops = 1;
        draw__simplify(c, p->xy, p->n, &l1);
    } else {
        nloops = draw__round_loops(c, p, &l1, &l2);
    }
    if (c->oom)
        goto done;
    if (st->fill_alpha > 0 && closed)
        draw__fill(c, p, &l1, &l2, nloops);
    int tiny = (p->kind == OVERLAY__CIRCLE || p->kind == OVERLAY__RING) && p->r1 <= st->width_in / 2;
    if (st->width_in > 0 && !tiny && draw__rast_ready(c)) {
        draw__rast_begin(c, st->role, st->alpha);
        draw__stroke(c, l1.v, l1.n, closed, st->width_in, st->dashed);
        if (nloops == 2)
            draw__stroke(c, l2.v, l2.n, 1, st->width_in, st->dashed);
        draw__rast_end(c, st->alpha);
    } else if (st->width_in > 0) {
        draw__begin(c, st->role, st->alpha);
        if ((p->kind == OVERLAY__CIRCLE || p->kind == OVERLAY__RING) && p->r1 <= st->width_in / 2) {
            draw__disc(c, p->cx, p->cy, p->r1 + st->width_in / 2);
        } else {
            draw__stroke(c, l1.v, l1.n, closed, st->width_in, st->dashed);
            if (nloops == 2)
                draw__stroke(c, l2.v, l2.n, 1, st->width_in, st->dashed);
        }
        draw__end(c, st->role, st->alpha, CAIRO_FILL_RULE_WINDING);
    }
done:
    free(l1.v);
    free(l2.v);
}

tt_status overlay_draw(const overlay_list *l, const overlay_mapper *m, cairo_t *cr, tt_err *err)
{
    draw__ctx c;
    if (!l || !m || !m->map || !cr)
        return tt_err_set(err, TT_ERR_ARG, "overlay_draw: list, mapper and cairo context are required");
    memset(&c, 0, sizeof c);
    c.m = m;
    c.cr = cr;
    c.tgt = cr;
    c.mask_ok = -1;
    c.rast_ok = -1;
    c.straight = overlay__mapper_straight(m);
    c.g = m->map3 && m->ground.height_at ? m : NULL;
    cairo_save(cr);
    cairo_new_path(cr);
    /* what cairo still draws (targets that are not plain image surfaces,
     * tiny circles): 4x4 supersampled coverage, smooth at projector scale
     * and ~2x faster than cairo's default rasteriser */
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_FAST);
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    for (int i = 0; i < l->n && !c.oom; i++)
        draw__prim(&c, &l->p[i]);
    draw__rast_flush(&c); /* always: the coverage must be left clear */
    draw__labels_sweep(&c);
    if (!c.oom)
        draw__flush(&c);
    if (!c.oom)
        overlay__apply_masks(l, m, cr); /* last: the tags stay dark */
    if (c.untracked || c.oom) { /* the next overlay__clear_kept clears everything */
        cairo_surface_t *t = cairo_get_group_target(cr);
        overlay_cov *kept = cairo_surface_get_user_data(t, &draw__cov_key);
        if (kept)
            kept->lit_all = 1;
    }
    cairo_new_path(cr);
    cairo_restore(cr);
    cairo_status_t mask_st = c.mask_cr ? cairo_status(c.mask_cr) : CAIRO_STATUS_SUCCESS;
    cairo_destroy(c.mask_cr);
    cairo_surface_destroy(c.mask);
    free(c.mask_data);
    free(c.mask_blocks);
    free(c.clean_lo);
    free(c.rects.v);
    free(c.mapped.v);
    free(c.dense.v);
    free(c.piece.v);
    free(c.ring.v);
    free(c.rq.v);
    free(c.rpx.v);
    free(c.rhw.v);
    free(c.rz.v);
    if (c.oom)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory while drawing the overlay");
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        return tt_err_set(err, TT_ERR_INTERNAL, "cairo: %s", cairo_status_to_string(cairo_status(cr)));
    if (mask_st != CAIRO_STATUS_SUCCESS)
        return tt_err_set(err, TT_ERR_INTERNAL, "cairo: %s", cairo_status_to_string(mask_st));
    return TT_OK;
}

int overlay__clear_kept(cairo_surface_t *s)
{
    overlay_cov *cov = cairo_surface_get_user_data(s, &draw__cov_key);
    if (!cov || cairo_surface_get_type(s) != CAIRO_SURFACE_TYPE_IMAGE ||
        cairo_image_surface_get_format(s) != CAIRO_FORMAT_ARGB32 || cairo_image_surface_get_width(s) != cov->w ||
        cairo_image_surface_get_height(s) != cov->h)
        return 0;
    cairo_surface_flush(s);
    overlay_cov_clear_lit(cov, cairo_image_surface_get_data(s), cairo_image_surface_get_stride(s), 0xff000000u);
    cairo_surface_mark_dirty(s);
    return 1;
}
