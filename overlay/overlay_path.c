/* overlay_path.c - primitives in table inches -> loops and stroke shapes,
 * mapped to target pixels point by point.
 *
 * Fills: the boundary (curves densified to within 0.003" of the true curve,
 * straight edges cut every inch so a lens or correction grid can bend them,
 * and where the ground under them changes height) is mapped point by point.
 * Outlines: the stroke is built as a shape in table inches - an offset band
 * of the given width along each smooth run, with a disc at every sharp
 * corner and at open ends - mapped the same way and filled with the
 * non-zero rule (all pieces share one orientation, so overlaps merge
 * instead of doubling the light).  While c->raster, an outline goes to
 * overlay's own rasteriser instead (overlay_cov_polyline, overlay_stroke.c):
 * each run of dense points mapped, with its half width in pixels from the
 * local Jacobian of the map. */
#include "overlay_draw.h"

#include <math.h>
#include <stdlib.h>

#define PATH__TOL_IN 0.003     /* chord error allowed on curves */
#define PATH__MAX_SEG_IN 1.0   /* longest straight piece before mapping */
#define PATH__GROUND_STEP_IN 0.5 /* with a ground: edges sampled this often for a change of height */
#define PATH__GROUND_TOL_IN 0.01 /* height off a straight slope that makes a cut */
#define PATH__GROUND_MIN_IN 0.01 /* a step in the ground is found to this length */
#define PATH__SHARP_COS 0.906  /* cos 25 deg: sharper turns get a round join */
#define PATH__DISC_SEGS 16

int overlay__buf_reserve(overlay__drawing *c, overlay__buf *b, int n)
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

void overlay__buf_push(overlay__drawing *c, overlay__buf *b, double x, double y)
{
    if (!overlay__buf_reserve(c, b, b->n + 1))
        return;
    b->v[2 * b->n] = x;
    b->v[2 * b->n + 1] = y;
    b->n++;
}

/* Map a loop of table points and add it to cairo's path as a closed
 * subpath (skipped whole if any point cannot be mapped). */
void overlay__path_emit(overlay__drawing *c, const double *pts, int n, int closed)
{
    if (n < 2 || !overlay__buf_reserve(c, &c->mapped, n))
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

static int path__arc_segments(double r, double sweep_rad)
{
    double step = r > PATH__TOL_IN ? 2 * acos(1 - PATH__TOL_IN / r) : M_PI / 4;
    if (step > M_PI / 8)
        step = M_PI / 8;
    int n = (int)ceil(fabs(sweep_rad) / step);
    return n < 2 ? 2 : n > 4096 ? 4096 : n;
}

/* Points of an arc from a0 to a1 (radians; either direction), both ends
 * included. */
static void path__arc_pts(overlay__drawing *c, overlay__buf *b, double cx, double cy, double r, double a0, double a1)
{
    int n = path__arc_segments(r, a1 - a0);
    if (!overlay__buf_reserve(c, b, b->n + n + 1))
        return;
    /* rotate (cos, sin) by the step; re-anchor every 64 points */
    double da = (a1 - a0) / n, cd = cos(da), sd = sin(da), co = 0, si = 0;
    for (int i = 0; i <= n; i++) {
        if (i % 64 == 0) {
            co = cos(a0 + da * i);
            si = sin(a0 + da * i);
        }
        overlay__buf_push(c, b, cx + r * co, cy + r * si);
        double t = co * cd - si * sd;
        si = si * cd + co * sd;
        co = t;
    }
    b->v[2 * (b->n - 1)] = cx + r * cos(a1); /* the end exactly */
    b->v[2 * (b->n - 1) + 1] = cy + r * sin(a1);
}

/* Points strictly between a and b (heights ha, hb) where the ground under
 * the segment is not a straight slope: halves until it is, or until the
 * piece is PATH__GROUND_MIN_IN long (a step: a point each side of it). */
static void path__ground_split(overlay__drawing *c, overlay__buf *out, double ax, double ay, double ha, double bx,
                               double by, double hb, int depth)
{
    double mx = 0.5 * (ax + bx), my = 0.5 * (ay + by);
    if (depth > 16 || hypot(bx - ax, by - ay) < PATH__GROUND_MIN_IN)
        return;
    double hm = tt_ground_height(&c->g->ground, mx, my);
    if (fabs(hm - 0.5 * (ha + hb)) <= PATH__GROUND_TOL_IN)
        return;
    path__ground_split(c, out, ax, ay, ha, mx, my, hm, depth + 1);
    overlay__buf_push(c, out, mx, my);
    path__ground_split(c, out, mx, my, hm, bx, by, hb, depth + 1);
}

/* Copy pts into out with straight pieces cut to PATH__MAX_SEG_IN (not
 * when the map keeps straight lines straight: a projector without a
 * correction grid), cut where the ground under them changes height (with
 * a ground: sampled every PATH__GROUND_STEP_IN), and
 * repeated points dropped.  closed: the closing edge is cut too (the first
 * point is not repeated). */
void overlay__path_densify(overlay__drawing *c, const double *pts, int n, int closed, overlay__buf *out)
{
    out->n = 0;
    int last = closed ? n : n - 1;
    for (int i = 0; i < last; i++) {
        const double *a = pts + 2 * i, *b = pts + 2 * ((i + 1) % n);
        double ex = b[0] - a[0], ey = b[1] - a[1], len = sqrt(ex * ex + ey * ey);
        if (len < 1e-9)
            continue;
        int k = c->straight ? 1 : (int)ceil(len / PATH__MAX_SEG_IN);
        if (k > 1000)
            k = 1000;
        if (!c->g) {
            for (int j = 0; j < k; j++)
                overlay__buf_push(c, out, a[0] + ex * j / k, a[1] + ey * j / k);
            continue;
        }
        /* with a ground: samples every PATH__GROUND_STEP_IN, each kept
         * where the map bends lines (k) or the ground bends under it */
        int ks = (int)ceil(len / PATH__GROUND_STEP_IN);
        ks = ks < k ? k : ks > 4000 ? 4000 : ks;
        double px = a[0], py = a[1], ph = tt_ground_height(&c->g->ground, px, py);
        int prev_in = 1; /* the previous sample is in out */
        overlay__buf_push(c, out, px, py);
        for (int j = 1; j <= ks; j++) {
            double x = a[0] + ex * j / ks, y = a[1] + ey * j / ks, h = tt_ground_height(&c->g->ground, x, y);
            int before = out->n;
            if (!prev_in) /* a bend here needs both ends of the piece */
                overlay__buf_push(c, out, px, py);
            int mid = out->n;
            path__ground_split(c, out, px, py, ph, x, y, h, 0);
            int bent = out->n > mid || h != ph;
            if (!bent)
                out->n = before;
            prev_in = j < ks && (k > 1 || bent);
            if (prev_in)
                overlay__buf_push(c, out, x, y);
            px = x;
            py = y;
            ph = h;
        }
    }
    if (!closed)
        overlay__buf_push(c, out, pts[2 * (n - 1)], pts[2 * (n - 1) + 1]);
    else if (out->n == 0 && n > 0)
        overlay__buf_push(c, out, pts[0], pts[1]);
}

/* Map points through the mapper; with a ground, triples of points (a
 * point and two near it, for the local Jacobian) all at the height of the
 * ground under the first: the Jacobian of the surface the mark lies on,
 * also at the edge of a hill. */
void overlay__path_map_triples(overlay__drawing *c, const double *in, int ntriples, double *px)
{
    if (!c->g || !overlay__buf_reserve(c, &c->rz, (9 * ntriples + 1) / 2)) {
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

void overlay__path_disc(overlay__drawing *c, double x, double y, double r)
{
    double d[2 * PATH__DISC_SEGS];
    for (int i = 0; i < PATH__DISC_SEGS; i++) {
        double a = 2 * M_PI * i / PATH__DISC_SEGS;
        d[2 * i] = x + r * cos(a);
        d[2 * i + 1] = y + r * sin(a);
    }
    overlay__path_emit(c, d, PATH__DISC_SEGS, 1);
}

/* Unit direction of segment i -> i+1 (indices modulo n). */
static void path__dir(const double *q, int n, int i, double d[2])
{
    const double *a = q + 2 * (i % n), *b = q + 2 * ((i + 1) % n);
    double dx = b[0] - a[0], dy = b[1] - a[1], l = sqrt(dx * dx + dy * dy);
    d[0] = l > 0 ? dx / l : 1;
    d[1] = l > 0 ? dy / l : 0;
}

/* The band of half-width hw along an open run q[0..k-1] (k >= 2): right
 * side forward, left side back - positive orientation like the discs. */
static void path__band(overlay__drawing *c, const double *q, int k, double hw)
{
    overlay__buf *r = &c->ring;
    r->n = 0;
    if (!overlay__buf_reserve(c, r, 2 * k))
        return;
    for (int side = 0; side < 2; side++)
        for (int t = 0; t < k; t++) {
            int i = side == 0 ? t : k - 1 - t;
            double d0[2], d1[2], tx, ty;
            if (i == 0) {
                path__dir(q, k, 0, d0);
                tx = d0[0];
                ty = d0[1];
            } else if (i == k - 1) {
                path__dir(q, k, k - 2, d0);
                tx = d0[0];
                ty = d0[1];
            } else {
                path__dir(q, k, i - 1, d0);
                path__dir(q, k, i, d1);
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
            overlay__buf_push(c, r, q[2 * i] + sg * hw * nx, q[2 * i + 1] + sg * hw * ny);
        }
    overlay__path_emit(c, r->v, r->n, 1);
}

/* A closed smooth loop's band: the right-side loop forward and the
 * left-side loop backward. */
static void path__band_closed(overlay__drawing *c, const double *q, int k, double hw)
{
    overlay__buf *r = &c->ring;
    for (int side = 0; side < 2; side++) {
        r->n = 0;
        if (!overlay__buf_reserve(c, r, k))
            return;
        for (int t = 0; t < k; t++) {
            int i = side == 0 ? t : k - 1 - t;
            double d0[2], d1[2];
            path__dir(q, k, i + k - 1, d0);
            path__dir(q, k, i, d1);
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
            overlay__buf_push(c, r, q[2 * i] + sg * hw * -ty, q[2 * i + 1] + sg * hw * tx);
        }
        overlay__path_emit(c, r->v, r->n, 1);
    }
}

static int path__sharp(const double *q, int n, int i, int closed)
{
    if (!closed && (i == 0 || i == n - 1))
        return 0;
    double d0[2], d1[2];
    path__dir(q, n, i + n - 1, d0);
    path__dir(q, n, i, d1);
    return d0[0] * d1[0] + d0[1] * d1[1] < PATH__SHARP_COS;
}

/* A run of dense table points (a dash, an open line or a closed loop) to
 * the coverage: each point mapped, with its half width in pixels across
 * the mapped line from the local Jacobian J of the map (a width hw in
 * inches across direction d is hw |det J| / |J d| pixels across J d). */
static void path__raster_run(overlay__drawing *c, const double *q, int k, int closed, double hw, int caps)
{
    const double e = 0.01; /* inches, for the Jacobian */
    if (k < 2 || !overlay__buf_reserve(c, &c->rq, 3 * k) || !overlay__buf_reserve(c, &c->rpx, 3 * k) ||
        !overlay__buf_reserve(c, &c->rhw, k))
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
    overlay__path_map_triples(c, in, k, px);
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
static void path__stroke_open(overlay__drawing *c, const double *q, int n, double hw, int caps)
{
    if (n < 2)
        return;
    if (c->raster) {
        path__raster_run(c, q, n, 0, hw, caps ? OVERLAY_CAP_ROUND_START | OVERLAY_CAP_ROUND_END : 0);
        return;
    }
    int start = 0;
    for (int i = 1; i < n; i++) {
        if (i == n - 1 || path__sharp(q, n, i, 0)) {
            path__band(c, q + 2 * start, i - start + 1, hw);
            if (i < n - 1)
                overlay__path_disc(c, q[2 * i], q[2 * i + 1], hw);
            start = i;
        }
    }
    if (caps) {
        overlay__path_disc(c, q[0], q[1], hw);
        overlay__path_disc(c, q[2 * (n - 1)], q[2 * (n - 1) + 1], hw);
    }
}

/* Split a dense path into dashes and stroke each. */
static void path__stroke_dashed(overlay__drawing *c, const double *q, int n, int closed, double hw)
{
    double dash = fmax(0.4, 8 * hw), gap = 0.6 * dash, pos = 0;
    int on = 1;
    overlay__buf *p = &c->piece;
    p->n = 0;
    overlay__buf_push(c, p, q[0], q[1]);
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
                overlay__buf_push(c, p, x, y);
            if (pos >= (on ? dash : gap) - 1e-12) {
                if (on) {
                    /* the piece buffer is reused: copy out before stroking */
                    path__stroke_open(c, p->v, p->n, hw, 0);
                }
                on = !on;
                pos = 0;
                p->n = 0;
                if (on)
                    overlay__buf_push(c, p, x, y);
            }
        }
    }
    if (on && p->n >= 2)
        path__stroke_open(c, p->v, p->n, hw, 0);
}

/* Stroke a path (table inches, not yet dense) of width w. */
void overlay__path_stroke(overlay__drawing *c, const double *pts, int n, int closed, double w, int dashed)
{
    double hw = 0.5 * w;
    overlay__path_densify(c, pts, n, closed, &c->dense);
    const double *q = c->dense.v;
    int k = c->dense.n;
    if (k < 2 || c->oom)
        return;
    if (dashed) {
        path__stroke_dashed(c, q, k, closed, hw);
        return;
    }
    if (!closed) {
        path__stroke_open(c, q, k, hw, 1);
        return;
    }
    if (c->raster) {
        path__raster_run(c, q, k, 1, hw, 0); /* round joins all round */
        return;
    }
    int first = -1;
    for (int i = 0; i < k && first < 0; i++)
        if (path__sharp(q, k, i, 1))
            first = i;
    if (first < 0) {
        path__band_closed(c, q, k, hw);
        return;
    }
    /* open the loop at a sharp corner, repeat that corner at the end */
    overlay__buf *p = &c->piece;
    p->n = 0;
    if (!overlay__buf_reserve(c, p, k + 1))
        return;
    for (int i = 0; i <= k; i++)
        overlay__buf_push(c, p, q[2 * ((first + i) % k)], q[2 * ((first + i) % k) + 1]);
    path__stroke_open(c, p->v, p->n, hw, 0);
    overlay__path_disc(c, q[2 * first], q[2 * first + 1], hw);
}

/* The boundaries of a round primitive, as loops in c->dense (loop 1) and
 * c->piece (loop 2, ring only).  Returns the number of loops. */
int overlay__path_round_loops(overlay__drawing *c, const overlay__prim *p, overlay__buf *l1, overlay__buf *l2)
{
    double a0 = p->a0 * M_PI / 180, a1 = p->a1 * M_PI / 180;
    l1->n = l2->n = 0;
    switch (p->kind) {
    case OVERLAY__CIRCLE:
        path__arc_pts(c, l1, p->cx, p->cy, p->r1, 0, 2 * M_PI);
        l1->n--; /* the last point repeats the first */
        return 1;
    case OVERLAY__RING:
        path__arc_pts(c, l1, p->cx, p->cy, p->r1, 0, 2 * M_PI);
        l1->n--;
        if (p->r0 > 0) {
            path__arc_pts(c, l2, p->cx, p->cy, p->r0, 2 * M_PI, 0);
            l2->n--;
            return 2;
        }
        return 1;
    case OVERLAY__SECTOR:
        path__arc_pts(c, l1, p->cx, p->cy, p->r1, a0, a1);
        if (p->r0 > 0)
            path__arc_pts(c, l1, p->cx, p->cy, p->r0, a1, a0);
        else if (p->a1 - p->a0 < 360)
            overlay__buf_push(c, l1, p->cx, p->cy);
        return 1;
    case OVERLAY__ARC:
        path__arc_pts(c, l1, p->cx, p->cy, p->r1, a0, a1);
        return 1;
    default:
        return 0;
    }
}

/* Copy a polyline or polygon (table inches), leaving out points the path
 * passes within PATH__TOL_IN of anyway - the same allowance curves get: a
 * blast template clipped by walls arrives as hundreds of points a small
 * fraction of a pixel apart, and every piece costs the same to draw
 * whatever its length.  Greedy: from each kept point, reach as far as
 * every point skipped stays within the allowance of the chord. */
void overlay__path_simplify(overlay__drawing *c, const double *xy, int n, overlay__buf *out)
{
    out->n = 0;
    if (!overlay__buf_reserve(c, out, n))
        return;
    overlay__buf_push(c, out, xy[0], xy[1]);
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
                ok = t >= 0 && t <= 1 && ex * ex + ey * ey <= PATH__TOL_IN * PATH__TOL_IN;
            }
            if (!ok)
                break;
            j++;
        }
        overlay__buf_push(c, out, xy[2 * j], xy[2 * j + 1]);
        a = j;
    }
}
