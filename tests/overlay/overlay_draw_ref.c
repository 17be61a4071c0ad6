/* overlay_draw_ref.c - the drawing before the speed work (one fill per
 * primitive and outline), kept as the reference the new output is compared
 * against pixel by pixel (plus, the plain way, the band inside the edge of
 * overlay_style.band_in).  Was overlay/overlay_draw.c:
 * primitives in table inches -> cairo paths in target
 * pixels.
 *
 * Fills: the boundary (curves densified to within 0.003" of the true curve,
 * straight edges cut every inch so a lens or correction grid can bend them)
 * is mapped point by point.  Outlines: the stroke is built as a shape in
 * table inches - an offset band of the given width along each smooth run,
 * with a disc at every sharp corner and at open ends - mapped the same way
 * and filled with the non-zero rule (all pieces share one orientation, so
 * overlaps merge instead of doubling the light).  Text goes through the
 * local affine of the map at its anchor. */
#include "overlay_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DRAW__TOL_IN 0.003     /* chord error allowed on curves */
#define DRAW__MAX_SEG_IN 1.0   /* longest straight piece before mapping */
#define DRAW__SHARP_COS 0.906  /* cos 25 deg: sharper turns get a round join */
#define DRAW__DISC_SEGS 16

typedef struct draw__buf {
    double *v; /* x, y pairs */
    int n, cap;
} draw__buf;

typedef struct draw__ctx {
    const overlay_mapper *m;
    cairo_t *cr;
    draw__buf mapped;
    draw__buf dense, piece, ring; /* scratch */
    int oom;
    cairo_antialias_t fill_aa; /* fills (and the bands inside edges) and text; outlines stay FAST */
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
    for (int i = 0; i < 2 * n; i++)
        if (!isfinite(px[i]) || fabs(px[i]) > 1e6)
            return;
    cairo_move_to(c->cr, px[0], px[1]);
    for (int i = 1; i < n; i++)
        cairo_line_to(c->cr, px[2 * i], px[2 * i + 1]);
    if (closed)
        cairo_close_path(c->cr);
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
    for (int i = 0; i <= n; i++) {
        double a = a0 + (a1 - a0) * i / n;
        draw__push(c, b, cx + r * cos(a), cy + r * sin(a));
    }
}

/* Copy pts into out with straight pieces cut to DRAW__MAX_SEG_IN and
 * repeated points dropped.  closed: the closing edge is cut too (the first
 * point is not repeated). */
static void draw__densify(draw__ctx *c, const double *pts, int n, int closed, draw__buf *out)
{
    out->n = 0;
    int last = closed ? n : n - 1;
    for (int i = 0; i < last; i++) {
        const double *a = pts + 2 * i, *b = pts + 2 * ((i + 1) % n);
        double len = hypot(b[0] - a[0], b[1] - a[1]);
        if (len < 1e-9)
            continue;
        int k = (int)ceil(len / DRAW__MAX_SEG_IN);
        if (k > 1000)
            k = 1000;
        for (int j = 0; j < k; j++)
            draw__push(c, out, a[0] + (b[0] - a[0]) * j / k, a[1] + (b[1] - a[1]) * j / k);
    }
    if (!closed)
        draw__push(c, out, pts[2 * (n - 1)], pts[2 * (n - 1) + 1]);
    else if (out->n == 0 && n > 0)
        draw__push(c, out, pts[0], pts[1]);
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
    double dx = b[0] - a[0], dy = b[1] - a[1], l = hypot(dx, dy);
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
                double l = hypot(tx, ty);
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
            double tx = d0[0] + d1[0], ty = d0[1] + d1[1], l = hypot(tx, ty);
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

/* Stroke one open piece (already dense): bands between sharp corners,
 * discs at sharp corners and, if caps, at the ends. */
static void draw__stroke_open(draw__ctx *c, const double *q, int n, double hw, int caps)
{
    if (n < 2)
        return;
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

static void draw__set_color(cairo_t *cr, overlay_role role, double alpha)
{
    double rgb[3];
    overlay_role_rgb(role, rgb);
    cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], alpha);
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

static void draw__text(draw__ctx *c, const overlay__prim *p)
{
    const double e = 0.05;
    double pts[6] = {p->cx, p->cy, p->cx + e, p->cy, p->cx, p->cy + e}, px[6];
    c->m->map(c->m->user, pts, 3, px);
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
    cairo_save(c->cr);
    cairo_transform(c->cr, &mtx);
    cairo_select_font_face(c->cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(c->cr, p->size_in / 0.73); /* DejaVu Sans: cap height 0.73 em */
    cairo_text_extents_t ext;
    cairo_text_extents(c->cr, p->text, &ext);
    cairo_move_to(c->cr, -(ext.x_bearing + ext.width / 2), -(ext.y_bearing + ext.height / 2));
    cairo_text_path(c->cr, p->text);
    cairo_restore(c->cr);
    draw__set_color(c->cr, p->st.role, p->st.alpha);
    cairo_set_antialias(c->cr, c->fill_aa);
    cairo_fill(c->cr);
    cairo_set_antialias(c->cr, CAIRO_ANTIALIAS_FAST);
}

static void draw__prim(draw__ctx *c, const overlay__prim *p)
{
    cairo_t *cr = c->cr;
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
        draw__reserve(c, &l1, p->n);
        for (int i = 0; i < p->n; i++)
            draw__push(c, &l1, p->xy[2 * i], p->xy[2 * i + 1]);
    } else {
        nloops = draw__round_loops(c, p, &l1, &l2);
    }
    if (c->oom)
        goto done;
    cairo_set_antialias(cr, c->fill_aa);
    if (st->fill_alpha > 0 && closed && st->band_in > 0) {
        /* the band inside the edge (added with overlay_style.band_in): the
         * plain way - a ring for round shapes, else the outline of twice the
         * band's width clipped to the shape - one fill each */
        cairo_new_path(cr);
        if (p->kind == OVERLAY__CIRCLE || p->kind == OVERLAY__RING) {
            overlay__prim q = *p;
            draw__buf b1 = {0}, b2 = {0};
            q.kind = OVERLAY__RING;
            q.r0 = fmax(p->r0, p->r1 - st->band_in);
            int nb = draw__round_loops(c, &q, &b1, &b2);
            draw__densify(c, b1.v, b1.n, 1, &c->dense);
            draw__emit(c, c->dense.v, c->dense.n, 1);
            if (nb == 2) {
                draw__densify(c, b2.v, b2.n, 1, &c->dense);
                draw__emit(c, c->dense.v, c->dense.n, 1);
            }
            free(b1.v);
            free(b2.v);
            cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD);
            draw__set_color(cr, st->role, st->fill_alpha);
            cairo_fill(cr);
        } else {
            cairo_save(cr);
            draw__densify(c, l1.v, l1.n, 1, &c->dense);
            draw__emit(c, c->dense.v, c->dense.n, 1);
            cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD);
            cairo_clip(cr);
            draw__stroke(c, l1.v, l1.n, 1, 2 * st->band_in, 0);
            cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING);
            draw__set_color(cr, st->role, st->fill_alpha);
            cairo_fill(cr);
            cairo_restore(cr);
        }
    } else if (st->fill_alpha > 0 && closed) {
        cairo_new_path(cr);
        draw__densify(c, l1.v, l1.n, 1, &c->dense);
        draw__emit(c, c->dense.v, c->dense.n, 1);
        if (nloops == 2) {
            draw__densify(c, l2.v, l2.n, 1, &c->dense);
            draw__emit(c, c->dense.v, c->dense.n, 1);
        }
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD);
        draw__set_color(cr, st->role, st->fill_alpha);
        cairo_fill(cr);
    }
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_FAST);
    if (st->width_in > 0) {
        cairo_new_path(cr);
        if ((p->kind == OVERLAY__CIRCLE || p->kind == OVERLAY__RING) && p->r1 <= st->width_in / 2) {
            draw__disc(c, p->cx, p->cy, p->r1 + st->width_in / 2);
        } else {
            draw__stroke(c, l1.v, l1.n, closed, st->width_in, st->dashed);
            if (nloops == 2)
                draw__stroke(c, l2.v, l2.n, 1, st->width_in, st->dashed);
        }
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING);
        draw__set_color(cr, st->role, st->alpha);
        cairo_fill(cr);
    }
done:
    free(l1.v);
    free(l2.v);
}

tt_status overlay_draw_ref(const overlay_list *l, const overlay_mapper *m, cairo_t *cr, cairo_antialias_t fill_aa,
                          tt_err *err)
{
    draw__ctx c;
    if (!l || !m || !m->map || !cr)
        return tt_err_set(err, TT_ERR_ARG, "overlay_draw: list, mapper and cairo context are required");
    memset(&c, 0, sizeof c);
    c.m = m;
    c.cr = cr;
    cairo_save(cr);
    /* 4x4 supersampled coverage: smooth at projector scale, ~2x faster
     * than cairo's default 256-level rasteriser */
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_FAST);
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    c.fill_aa = fill_aa;
    for (int i = 0; i < l->n && !c.oom; i++)
        draw__prim(&c, &l->p[i]);
    cairo_restore(cr);
    free(c.mapped.v);
    free(c.dense.v);
    free(c.piece.v);
    free(c.ring.v);
    if (c.oom)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory while drawing the overlay");
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        return tt_err_set(err, TT_ERR_INTERNAL, "cairo: %s", cairo_status_to_string(cairo_status(cr)));
    return TT_OK;
}
