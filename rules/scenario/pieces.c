/* pieces.c - where a segment or a base meets one terrain piece: exact
 * (contains, cuts, near a base) and inexact (the depth and the parts of a
 * line inside it, where a line first meets it). */
#include "rules_scenario.h"

#include <math.h>
#include <stdlib.h>

int rules_piece_contains(const rules_piece *pc, rules_pt p)
{
    if (!pc->closed || p.x < pc->lo.x || p.x > pc->hi.x || p.y < pc->lo.y || p.y > pc->hi.y)
        return 0;
    return rules_geom_point_in_poly(pc->v, pc->n, p) >= 0;
}

int rules_piece_cuts(const rules_piece *pc, rules_pt a, rules_pt b)
{
    rules_pt lo = {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y};
    rules_pt hi = {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y};
    if (hi.x < pc->lo.x || lo.x > pc->hi.x || hi.y < pc->lo.y || lo.y > pc->hi.y)
        return 0;
    if (a.x == b.x && a.y == b.y)
        return pc->closed && rules_geom_point_in_poly(pc->v, pc->n, a) > 0;
    if (pc->closed)
        return rules_geom_seg_meets_interior(pc->v, pc->n, a, b);
    return rules_geom_seg_crosses_chain(pc->v, pc->n, a, b);
}

static int rules__cmpd(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Parameters along a-b where it meets the piece's boundary (unsorted). */
static int rules__boundary_ts(const rules_piece *pc, rules_pt a, rules_pt b, double *ts, int cap)
{
    int nt = 0;
    double dx = (double)(b.x - a.x), dy = (double)(b.y - a.y), L2 = dx * dx + dy * dy;
    int ne = pc->closed ? pc->n : pc->n - 1;
    for (int i = 0; i < pc->n && nt < cap; i++) {
        rules_pt v = pc->v[i];
        if (rules_orient(a, b, v) == 0 && rules_geom_between_closed(a, b, v))
            ts[nt++] = ((double)(v.x - a.x) * dx + (double)(v.y - a.y) * dy) / L2;
    }
    for (int i = 0; i < ne && nt < cap; i++) {
        rules_pt p = pc->v[i], q = pc->v[(i + 1) % pc->n];
        if (rules_geom_cross_proper(a, b, p, q)) {
            double ex = (double)(q.x - p.x), ey = (double)(q.y - p.y);
            double den = dx * ey - dy * ex;
            ts[nt++] = ((double)(p.x - a.x) * ey - (double)(p.y - a.y) * ex) / den;
        }
    }
    return nt;
}

double rules_piece_depth(const rules_piece *pc, rules_pt a, rules_pt b)
{
    double *sp;
    int ns = rules_piece_spans(pc, a, b, &sp);
    if (ns < 0)
        return INFINITY; /* out of memory: err on the side of blocked */
    double len = hypot((double)(b.x - a.x), (double)(b.y - a.y)), in = 0;
    for (int k = 0; k < ns; k++)
        in += (sp[2 * k + 1] - sp[2 * k]) * len;
    free(ns ? sp : NULL);
    return rules_in((int64_t)llround(in));
}

int rules_piece_spans(const rules_piece *pc, rules_pt a, rules_pt b, double **spans)
{
    *spans = NULL;
    if (!pc->closed || (a.x == b.x && a.y == b.y))
        return 0;
    double *ts = malloc(((size_t)pc->n * 2 + 2) * sizeof *ts), *out = malloc(((size_t)pc->n * 2 + 2) * sizeof *out);
    if (!ts || !out) {
        free(ts);
        free(out);
        return -1;
    }
    int nt = rules__boundary_ts(pc, a, b, ts, pc->n * 2), ns = 0;
    ts[nt++] = 0;
    ts[nt++] = 1;
    qsort(ts, (size_t)nt, sizeof *ts, rules__cmpd);
    for (int i = 0; i + 1 < nt; i++) {
        double t0 = ts[i] < 0 ? 0 : ts[i], t1 = ts[i + 1] > 1 ? 1 : ts[i + 1];
        if (t1 <= t0)
            continue;
        double tm = (t0 + t1) / 2;
        rules_pt m = {llround((double)a.x + tm * (double)(b.x - a.x)), llround((double)a.y + tm * (double)(b.y - a.y))};
        if (rules_geom_point_in_poly(pc->v, pc->n, m) <= 0)
            continue;
        if (ns > 0 && out[2 * ns - 1] == t0) /* one span across a corner touching the path */
            out[2 * ns - 1] = t1;
        else {
            out[2 * ns] = t0;
            out[2 * ns + 1] = t1;
            ns++;
        }
    }
    free(ts);
    if (!ns)
        free(out);
    else
        *spans = out;
    return ns;
}

double rules_piece_entry_t(const rules_piece *pc, rules_pt a, rules_pt b)
{
    if (pc->closed && rules_geom_point_in_poly(pc->v, pc->n, a) >= 0)
        return 0;
    if (a.x == b.x && a.y == b.y)
        return 2;
    double best = 2;
    int ne = pc->closed ? pc->n : pc->n - 1;
    double dx = (double)(b.x - a.x), dy = (double)(b.y - a.y), L2 = dx * dx + dy * dy;
    for (int i = 0; i < pc->n; i++) {
        rules_pt v = pc->v[i];
        if (rules_orient(a, b, v) == 0 && rules_geom_between_closed(a, b, v)) {
            double t = ((double)(v.x - a.x) * dx + (double)(v.y - a.y) * dy) / L2;
            if (t < best)
                best = t;
        }
    }
    for (int i = 0; i < ne; i++) {
        rules_pt p = pc->v[i], q = pc->v[(i + 1) % pc->n];
        if (rules_geom_cross_proper(a, b, p, q)) {
            double ex = (double)(q.x - p.x), ey = (double)(q.y - p.y);
            double t = ((double)(p.x - a.x) * ey - (double)(p.y - a.y) * ex) / (dx * ey - dy * ex);
            if (t < best)
                best = t;
        }
    }
    return best;
}

int rules_piece_near_shape(const rules_piece *pc, const rules_shape *s, int64_t L)
{
    if (pc->closed && rules_geom_point_in_poly(pc->v, pc->n, s->c) >= 0)
        return 1;
    int ne = pc->closed ? pc->n : pc->n - 1;
    for (int e = 0; e < ne; e++) {
        rules_pt p = pc->v[e], q = pc->v[(e + 1) % pc->n];
        if (rules_geom_shape_seg_blocks(s, p, q) || rules_geom_shape_point_within(s, p, L))
            return 1;
        if (s->round ? rules_geom_point_seg_within(s->c, p, q, L + s->r) : 0)
            return 1;
        for (int k = 0; !s->round && k < s->n; k++)
            if (rules_geom_point_seg_within(s->v[k], p, q, L))
                return 1;
    }
    return !ne && rules_geom_shape_point_within(s, pc->v[0], L);
}
