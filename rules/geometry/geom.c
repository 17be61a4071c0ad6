/* geom.c - exact predicates on fixed-point points (see rules_geom.h). */
#include "rules_geom.h"

#include <math.h>

static int rules__eq(rules_pt a, rules_pt b) { return a.x == b.x && a.y == b.y; }

int rules_geom_between_closed(rules_pt a, rules_pt b, rules_pt p)
{
    return rules_dot(rules_sub(p, a), rules_sub(b, a)) >= 0 && rules_dot(rules_sub(p, b), rules_sub(a, b)) >= 0;
}

int rules_geom_between_open(rules_pt a, rules_pt b, rules_pt p)
{
    return rules_dot(rules_sub(p, a), rules_sub(b, a)) > 0 && rules_dot(rules_sub(p, b), rules_sub(a, b)) > 0;
}

int rules_geom_cross_proper(rules_pt a, rules_pt b, rules_pt c, rules_pt d)
{
    int o1 = rules_orient(a, b, c), o2 = rules_orient(a, b, d);
    if (o1 * o2 >= 0)
        return 0;
    return rules_orient(c, d, a) * rules_orient(c, d, b) < 0;
}

int rules_geom_seg_touch(rules_pt a, rules_pt b, rules_pt c, rules_pt d)
{
    int o1 = rules_orient(a, b, c), o2 = rules_orient(a, b, d);
    int o3 = rules_orient(c, d, a), o4 = rules_orient(c, d, b);
    if (o1 == 0 && rules_geom_between_closed(a, b, c))
        return 1;
    if (o2 == 0 && rules_geom_between_closed(a, b, d))
        return 1;
    if (o3 == 0 && rules_geom_between_closed(c, d, a))
        return 1;
    if (o4 == 0 && rules_geom_between_closed(c, d, b))
        return 1;
    return o1 * o2 < 0 && o3 * o4 < 0;
}

int rules_geom_point_in_poly(const rules_pt *v, int n, rules_pt p)
{
    int inside = 0;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        rules_pt a = v[j], b = v[i];
        int o = rules_orient(a, b, p);
        if (o == 0 && rules_geom_between_closed(a, b, p))
            return 0;
        if ((a.y > p.y) != (b.y > p.y)) {
            if (b.y > a.y ? o > 0 : o < 0)
                inside = !inside;
        }
    }
    return inside ? 1 : -1;
}

int rules_geom_cone_inside(const rules_pt *v, int n, int k, rules_pt d)
{
    rules_pt V = v[k], U = v[(k + n - 1) % n], W = v[(k + 1) % n];
    rules_pt e1 = rules_sub(W, V), e2 = rules_sub(U, V);
    int64_t c = rules_cross(e1, e2);
    if (c > 0)
        return rules_cross(e1, d) > 0 && rules_cross(d, e2) > 0;
    if (c < 0)
        return !(rules_cross(e2, d) >= 0 && rules_cross(d, e1) >= 0);
    if (rules_dot(e1, e2) < 0)
        return rules_cross(e1, d) > 0;
    return 0;
}

int rules_geom_seg_meets_interior(const rules_pt *v, int n, rules_pt a, rules_pt b)
{
    rules_pt d = rules_sub(b, a), nd = {-d.x, -d.y};
    if (rules_geom_point_in_poly(v, n, a) > 0 || rules_geom_point_in_poly(v, n, b) > 0)
        return 1;
    for (int i = 0; i < n; i++) {
        rules_pt p = v[i], q = v[(i + 1) % n];
        int o1 = rules_orient(a, b, p), o2 = rules_orient(a, b, q);
        if (o1 * o2 < 0) {
            int o3 = rules_orient(p, q, a), o4 = rules_orient(p, q, b);
            if (o3 * o4 < 0)
                return 1;
            /* an end of a-b lies inside this edge: look along a-b */
            rules_pt e = rules_sub(q, p);
            if (o3 == 0 && rules_geom_between_open(p, q, a) && rules_cross(e, d) > 0)
                return 1;
            if (o4 == 0 && rules_geom_between_open(p, q, b) && rules_cross(e, nd) > 0)
                return 1;
        }
        if (o1 == 0 && rules_geom_between_closed(a, b, p)) {
            if (!rules__eq(p, b) && rules_geom_cone_inside(v, n, i, d))
                return 1;
            if (!rules__eq(p, a) && rules_geom_cone_inside(v, n, i, nd))
                return 1;
        }
    }
    return 0;
}

int rules_geom_seg_crosses_chain(const rules_pt *v, int n, rules_pt a, rules_pt b)
{
    for (int i = 0; i + 1 < n; i++)
        if (rules_geom_cross_proper(a, b, v[i], v[i + 1]))
            return 1;
    /* The line passes through a run of corners lying on a-b: it crosses when
     * the chain comes from one side and leaves on the other. */
    int k = 0;
    while (k < n) {
        if (rules_orient(a, b, v[k]) != 0) {
            k++;
            continue;
        }
        int i = k;
        while (k < n && rules_orient(a, b, v[k]) == 0)
            k++;
        int j = k - 1;
        if (i == 0 || j == n - 1)
            continue;
        if (rules_orient(a, b, v[i - 1]) * rules_orient(a, b, v[j + 1]) < 0) {
            int all = 1;
            for (int m = i; m <= j && all; m++)
                all = rules_geom_between_open(a, b, v[m]);
            if (all)
                return 1;
        }
    }
    return 0;
}

rules_i128 rules_geom_area2(const rules_pt *v, int n)
{
    rules_i128 s = 0;
    for (int i = 0, j = n - 1; i < n; j = i++)
        s += (rules_i128)v[j].x * v[i].y - (rules_i128)v[i].x * v[j].y;
    return s;
}

int rules_geom_poly_corners_ok(const rules_pt *v, int n, int *e1, int *e2)
{
    *e1 = *e2 = 0;
    if (n < 3)
        return 0;
    for (int i = 0; i < n; i++) {
        rules_pt a = v[i], b = v[(i + 1) % n], c = v[(i + 2) % n];
        if (rules__eq(a, b)) {
            *e1 = i;
            *e2 = (i + 1) % n;
            return 0;
        }
        /* adjacent edges folding back over each other */
        if (rules_orient(a, b, c) == 0 && rules_dot(rules_sub(a, b), rules_sub(c, b)) > 0) {
            *e1 = i;
            *e2 = (i + 1) % n;
            return 0;
        }
    }
    return 1;
}

int rules_geom_poly_simple(const rules_pt *v, int n, int *e1, int *e2)
{
    if (!rules_geom_poly_corners_ok(v, n, e1, e2))
        return 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 2; j < n; j++) {
            if (i == 0 && j == n - 1)
                continue;
            if (rules_geom_seg_touch(v[i], v[(i + 1) % n], v[j], v[(j + 1) % n])) {
                *e1 = i;
                *e2 = j;
                return 0;
            }
        }
    return rules_geom_area2(v, n) != 0;
}

static int rules__point_seg_cmp(rules_pt p, rules_pt a, rules_pt b, int64_t L, int strict)
{
    rules_pt ab = rules_sub(b, a), ap = rules_sub(p, a);
    rules_i128 L2 = (rules_i128)L * L, d2;
    int64_t t = rules_dot(ap, ab);
    rules_i128 ab2 = rules_len2(ab);
    if (t <= 0) {
        d2 = rules_len2(ap);
        return strict ? d2 < L2 : d2 <= L2;
    }
    if ((rules_i128)t >= ab2) {
        d2 = rules_len2(rules_sub(p, b));
        return strict ? d2 < L2 : d2 <= L2;
    }
    rules_i128 c = rules_cross(ab, ap);
    return strict ? c * c < L2 * ab2 : c * c <= L2 * ab2;
}

int rules_geom_point_seg_within(rules_pt p, rules_pt a, rules_pt b, int64_t L)
{
    return rules__point_seg_cmp(p, a, b, L, 0);
}

int rules_geom_point_seg_closer(rules_pt p, rules_pt a, rules_pt b, int64_t L)
{
    return rules__point_seg_cmp(p, a, b, L, 1);
}

int rules_geom_shape_point_within(const rules_shape *s, rules_pt p, int64_t L)
{
    if (s->round) {
        rules_i128 R = (rules_i128)L + s->r;
        return rules_len2(rules_sub(p, s->c)) <= R * R;
    }
    if (rules_geom_point_in_poly(s->v, s->n, p) >= 0)
        return 1;
    for (int i = 0; i < s->n; i++)
        if (rules_geom_point_seg_within(p, s->v[i], s->v[(i + 1) % s->n], L))
            return 1;
    return 0;
}

int rules_geom_shape_shape_within(const rules_shape *a, const rules_shape *b, int64_t L)
{
    if (a->round && b->round) {
        rules_i128 R = (rules_i128)L + a->r + b->r;
        return rules_len2(rules_sub(a->c, b->c)) <= R * R;
    }
    if (a->round)
        return rules_geom_shape_point_within(b, a->c, L + a->r);
    if (b->round)
        return rules_geom_shape_point_within(a, b->c, L + b->r);
    /* quick answers, exact: two corners within L; bounding boxes further
     * apart than L along an axis */
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++)
            if (rules_len2(rules_sub(a->v[i], b->v[j])) <= (rules_i128)L * L)
                return 1;
    rules_pt alo = a->v[0], ahi = a->v[0], blo = b->v[0], bhi = b->v[0];
    for (int i = 1; i < a->n; i++) {
        alo.x = a->v[i].x < alo.x ? a->v[i].x : alo.x, alo.y = a->v[i].y < alo.y ? a->v[i].y : alo.y;
        ahi.x = a->v[i].x > ahi.x ? a->v[i].x : ahi.x, ahi.y = a->v[i].y > ahi.y ? a->v[i].y : ahi.y;
    }
    for (int i = 1; i < b->n; i++) {
        blo.x = b->v[i].x < blo.x ? b->v[i].x : blo.x, blo.y = b->v[i].y < blo.y ? b->v[i].y : blo.y;
        bhi.x = b->v[i].x > bhi.x ? b->v[i].x : bhi.x, bhi.y = b->v[i].y > bhi.y ? b->v[i].y : bhi.y;
    }
    if (alo.x - bhi.x > L || blo.x - ahi.x > L || alo.y - bhi.y > L || blo.y - ahi.y > L)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (rules_geom_point_in_poly(b->v, b->n, a->v[i]) >= 0)
            return 1;
    for (int i = 0; i < b->n; i++)
        if (rules_geom_point_in_poly(a->v, a->n, b->v[i]) >= 0)
            return 1;
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++) {
            rules_pt p = a->v[i], q = a->v[(i + 1) % a->n], r = b->v[j], s = b->v[(j + 1) % b->n];
            if (rules_geom_seg_touch(p, q, r, s) || rules_geom_point_seg_within(p, r, s, L) ||
                rules_geom_point_seg_within(r, p, q, L))
                return 1;
        }
    return 0;
}

int rules_geom_shape_seg_touch(const rules_shape *s, rules_pt a, rules_pt b)
{
    if (s->round)
        return rules_geom_point_seg_within(s->c, a, b, s->r);
    if (rules_geom_point_in_poly(s->v, s->n, a) >= 0)
        return 1;
    for (int i = 0; i < s->n; i++)
        if (rules_geom_seg_touch(a, b, s->v[i], s->v[(i + 1) % s->n]))
            return 1;
    return 0;
}

int rules_geom_shape_seg_blocks(const rules_shape *s, rules_pt a, rules_pt b)
{
    if (s->round)
        return rules_geom_point_seg_closer(s->c, a, b, s->r);
    if (rules__eq(a, b))
        return rules_geom_point_in_poly(s->v, s->n, a) > 0;
    return rules_geom_seg_meets_interior(s->v, s->n, a, b);
}

int rules_geom_in_wedge(rules_pt lo, rules_pt hi, rules_pt q)
{
    return rules_cross(lo, q) >= 0 && rules_cross(q, hi) >= 0;
}

rules_pt rules_geom_ray_end(rules_pt p, int64_t R, rules_pt d)
{
    double len = sqrt((double)d.x * d.x + (double)d.y * d.y);
    rules_pt e = {p.x + llround((double)R * d.x / len), p.y + llround((double)R * d.y / len)};
    return e;
}

/* The foot of the perpendicular from p to edge a-b lies strictly inside the
 * edge, in the wedge, and within R of p. */
static int rules__edge_foot_in_sector(rules_pt a, rules_pt b, rules_pt p, int64_t R, rules_pt lo, rules_pt hi)
{
    rules_pt ab = rules_sub(b, a), ap = rules_sub(p, a);
    rules_i128 den = rules_len2(ab), num = rules_dot(ap, ab);
    if (num <= 0 || num >= den)
        return 0;
    rules_i128 c = rules_cross(ab, ap);
    if (c * c > (rules_i128)R * R * den)
        return 0;
    /* F - p = ((a - p) * den + num * ab) / den, den > 0 */
    rules_i128 fx = (rules_i128)(a.x - p.x) * den + num * ab.x;
    rules_i128 fy = (rules_i128)(a.y - p.y) * den + num * ab.y;
    rules_i128 c1 = (rules_i128)lo.x * fy - (rules_i128)lo.y * fx;
    rules_i128 c2 = fx * hi.y - fy * hi.x;
    return c1 >= 0 && c2 >= 0;
}

int rules_geom_shape_meets_sector(const rules_shape *s, rules_pt p, int64_t R, rules_pt lo, rules_pt hi, rules_pt elo,
                                  rules_pt ehi)
{
    if (s->round) {
        rules_pt q = rules_sub(s->c, p);
        if (rules_geom_in_wedge(lo, hi, q)) {
            rules_i128 RR = (rules_i128)R + s->r;
            return rules_len2(q) <= RR * RR;
        }
        return rules_geom_point_seg_within(s->c, p, elo, s->r) || rules_geom_point_seg_within(s->c, p, ehi, s->r);
    }
    for (int i = 0; i < s->n; i++) {
        rules_pt q = rules_sub(s->v[i], p);
        if (rules_geom_in_wedge(lo, hi, q) && rules_len2(q) <= (rules_i128)R * R)
            return 1;
    }
    if (rules_geom_point_in_poly(s->v, s->n, p) >= 0)
        return 1;
    for (int i = 0; i < s->n; i++) {
        rules_pt a = s->v[i], b = s->v[(i + 1) % s->n];
        if (rules_geom_seg_touch(a, b, p, elo) || rules_geom_seg_touch(a, b, p, ehi) ||
            rules__edge_foot_in_sector(a, b, p, R, lo, hi))
            return 1;
    }
    return 0;
}

/* The offset from segment a-b's nearest point to p, in *dx, *dy; its
 * squared length is returned. */
static double rules__pseg_off(rules_pt p, rules_pt a, rules_pt b, double *dx, double *dy)
{
    double abx = (double)(b.x - a.x), aby = (double)(b.y - a.y);
    double apx = (double)(p.x - a.x), apy = (double)(p.y - a.y);
    double l2 = abx * abx + aby * aby, t = l2 > 0 ? (apx * abx + apy * aby) / l2 : 0;
    if (t < 0)
        t = 0;
    if (t > 1)
        t = 1;
    *dx = apx - t * abx;
    *dy = apy - t * aby;
    return *dx * *dx + *dy * *dy;
}

static double rules__pseg_dist(rules_pt p, rules_pt a, rules_pt b)
{
    double dx, dy;
    rules__pseg_off(p, a, b, &dx, &dy);
    return hypot(dx, dy);
}

static double rules__point_shape_dist(const rules_shape *s, rules_pt p)
{
    if (s->round) {
        double d = hypot((double)(p.x - s->c.x), (double)(p.y - s->c.y)) - (double)s->r;
        return d > 0 ? d : 0;
    }
    if (rules_geom_point_in_poly(s->v, s->n, p) >= 0)
        return 0;
    double best = INFINITY;
    for (int i = 0; i < s->n; i++) {
        double d = rules__pseg_dist(p, s->v[i], s->v[(i + 1) % s->n]);
        if (d < best)
            best = d;
    }
    return best;
}

double rules_geom_shape_shape_dist(const rules_shape *a, const rules_shape *b)
{
    if (rules_geom_shape_shape_within(a, b, 0))
        return 0;
    if (a->round && b->round)
        return hypot((double)(a->c.x - b->c.x), (double)(a->c.y - b->c.y)) - (double)a->r - (double)b->r;
    if (a->round || b->round) {
        const rules_shape *c = a->round ? a : b, *o = a->round ? b : a;
        double d = rules__point_shape_dist(o, c->c) - (double)c->r;
        return d > 0 ? d : 0;
    }
    /* the nearest corner-to-edge offset, compared squared; one hypot */
    double best = INFINITY, bx = INFINITY, by = 0, dx, dy;
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++) {
            double d1 = rules__pseg_off(a->v[i], b->v[j], b->v[(j + 1) % b->n], &dx, &dy);
            if (d1 < best)
                best = d1, bx = dx, by = dy;
            double d2 = rules__pseg_off(b->v[j], a->v[i], a->v[(i + 1) % a->n], &dx, &dy);
            if (d2 < best)
                best = d2, bx = dx, by = dy;
        }
    return hypot(bx, by);
}

double rules_geom_shape_entry_t(const rules_shape *s, rules_pt a, rules_pt b)
{
    double dx = (double)(b.x - a.x), dy = (double)(b.y - a.y);
    if (s->round) {
        double fx = (double)(a.x - s->c.x), fy = (double)(a.y - s->c.y), r = (double)s->r;
        double A = dx * dx + dy * dy, B = 2 * (fx * dx + fy * dy), C = fx * fx + fy * fy - r * r;
        if (C <= 0)
            return 0;
        if (A <= 0)
            return 2;
        double disc = B * B - 4 * A * C;
        if (disc < 0)
            disc = 0; /* tangent within rounding: the exact test decided */
        double t = (-B - sqrt(disc)) / (2 * A);
        return t < 0 ? 0 : t;
    }
    if (rules_geom_point_in_poly(s->v, s->n, a) >= 0)
        return 0;
    double best = 2;
    for (int i = 0; i < s->n; i++) {
        rules_pt p = s->v[i], q = s->v[(i + 1) % s->n];
        double ex = (double)(q.x - p.x), ey = (double)(q.y - p.y);
        double den = dx * ey - dy * ex;
        if (den == 0)
            continue;
        double t = ((double)(p.x - a.x) * ey - (double)(p.y - a.y) * ex) / den;
        double u = ((double)(p.x - a.x) * dy - (double)(p.y - a.y) * dx) / den;
        if (t >= 0 && t <= 1 && u >= 0 && u <= 1 && t < best)
            best = t;
    }
    return best;
}

rules_pt rules_geom_dir(double deg)
{
    double r = deg * (M_PI / 180.0);
    rules_pt d = {llround(cos(r) * 1048576.0), llround(sin(r) * 1048576.0)};
    return d;
}

/* Fixed point (1/10000 inch) and inches. */
int64_t rules_fx(double in) { return llround(in * 10000.0); }
double rules_in(int64_t fx) { return (double)fx / 10000.0; }
rules_point rules_pt_in(rules_pt p)
{
    rules_point r = {rules_in(p.x), rules_in(p.y)};
    return r;
}
