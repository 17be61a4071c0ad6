/* rules_geom.h - the geometry layer of rules/ (rules/geometry/): exact
 * predicates on fixed-point points (1/10000 inch in int64), whether a
 * polygon is simple, arcs as sectors, and inches <-> fixed point.  It
 * knows no rules: no profile, scenario, figure, weapon or terrain kind.
 *
 * May call: only itself (and the C library).  scenario/ and questions/
 * call it; from rules.h it takes rules_point alone (inches, for drawing).
 *
 * Every predicate decides with integer arithmetic only (int64
 * determinants, __int128 squared lengths), so the same input always gives
 * the same answer, ties included.
 *
 * Preconditions: |coordinates| <= 4e8 (40,000"), so a determinant of two
 * differences fits in int64.  Polygons are simple and counter-clockwise.
 * Nothing here allocates but rules_poly_simple_grid and rules_arc_polygon.
 */
#ifndef TT_RULES_GEOM_H
#define TT_RULES_GEOM_H

#include <stdint.h>

#include "rules.h"

typedef struct rules_pt {
    int64_t x, y;
} rules_pt;

typedef __int128 rules_i128;

/* A figure's base: a disc (round) or a convex polygon (4 corners, CCW). */
typedef struct rules_shape {
    int round;
    rules_pt c;   /* centre */
    int64_t r;    /* radius when round */
    rules_pt v[4];
    int n;        /* corners when not round */
} rules_shape;

static inline int64_t rules_cross3(rules_pt o, rules_pt a, rules_pt b)
{
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}
static inline int rules_orient(rules_pt o, rules_pt a, rules_pt b)
{
    int64_t c = rules_cross3(o, a, b);
    return (c > 0) - (c < 0);
}
static inline rules_pt rules_sub(rules_pt a, rules_pt b)
{
    rules_pt r = {a.x - b.x, a.y - b.y};
    return r;
}
static inline int64_t rules_cross(rules_pt a, rules_pt b) { return a.x * b.y - a.y * b.x; }
static inline int64_t rules_dot(rules_pt a, rules_pt b) { return a.x * b.x + a.y * b.y; }
static inline rules_i128 rules_len2(rules_pt a) { return (rules_i128)a.x * a.x + (rules_i128)a.y * a.y; }

/* p lies on segment a-b (closed) / strictly between a and b, given that it
 * is collinear with them. */
int rules_geom_between_closed(rules_pt a, rules_pt b, rules_pt p);
int rules_geom_between_open(rules_pt a, rules_pt b, rules_pt p);

/* Segments a-b and c-d cross at one point interior to both (no touching,
 * not collinear). */
int rules_geom_cross_proper(rules_pt a, rules_pt b, rules_pt c, rules_pt d);
/* Closed segments a-b and c-d share at least one point. */
int rules_geom_seg_touch(rules_pt a, rules_pt b, rules_pt c, rules_pt d);

/* 1 strictly inside, 0 on the boundary, -1 outside. */
int rules_geom_point_in_poly(const rules_pt *v, int n, rules_pt p);
/* Direction d from vertex k goes strictly into the polygon's interior. */
int rules_geom_cone_inside(const rules_pt *v, int n, int k, rules_pt d);
/* Segment a-b meets the open interior of the polygon (a != b).  Grazing a
 * vertex or running along an edge does not count. */
int rules_geom_seg_meets_interior(const rules_pt *v, int n, rules_pt a, rules_pt b);
/* Open segment a-b crosses the open polyline v[0..n-1] from one side to the
 * other.  Touching, grazing a vertex or running along an edge does not. */
int rules_geom_seg_crosses_chain(const rules_pt *v, int n, rules_pt a, rules_pt b);
/* Polygon is simple: >= 3 corners, no repeated corner, non-adjacent edges
 * do not touch, adjacent edges only share their corner, nonzero area.
 * On failure *e1, *e2 are the offending edges (or corners). */
int rules_geom_poly_simple(const rules_pt *v, int n, int *e1, int *e2);
/* The linear part of that test: >= 3 corners, no corner repeated by the
 * next, no adjacent edges folding back over each other. */
int rules_geom_poly_corners_ok(const rules_pt *v, int n, int *e1, int *e2);
/* Twice the signed area (positive when counter-clockwise). */
rules_i128 rules_geom_area2(const rules_pt *v, int n);

/* Distance from p to segment a-b is <= L (L >= 0). */
int rules_geom_point_seg_within(rules_pt p, rules_pt a, rules_pt b, int64_t L);
/* ... is < L strictly. */
int rules_geom_point_seg_closer(rules_pt p, rules_pt a, rules_pt b, int64_t L);

/* Some point of the base is within L of p. */
int rules_geom_shape_point_within(const rules_shape *s, rules_pt p, int64_t L);
/* Some point of a is within L of some point of b. */
int rules_geom_shape_shape_within(const rules_shape *a, const rules_shape *b, int64_t L);
/* The closed segment a-b touches the base (any contact). */
int rules_geom_shape_seg_touch(const rules_shape *s, rules_pt a, rules_pt b);
/* The segment a-b passes through the open interior of the base. */
int rules_geom_shape_seg_blocks(const rules_shape *s, rules_pt a, rules_pt b);
/* The base meets the closed sector with apex p, radius R, spanning
 * counter-clockwise from direction lo to direction hi (at most 180
 * degrees; lo, hi are integer direction vectors); elo, ehi are the ends of
 * its straight sides (rules_geom_ray_end). */
int rules_geom_shape_meets_sector(const rules_shape *s, rules_pt p, int64_t R, rules_pt lo, rules_pt hi, rules_pt elo,
                                  rules_pt ehi);
/* p + R * d / |d|, rounded. */
rules_pt rules_geom_ray_end(rules_pt p, int64_t R, rules_pt d);
/* Point q (relative to the apex) lies in the closed wedge lo..hi. */
int rules_geom_in_wedge(rules_pt lo, rules_pt hi, rules_pt q);

/* Inexact helpers for output and ordering (double, inches not needed). */
double rules_geom_shape_shape_dist(const rules_shape *a, const rules_shape *b); /* fixed-point units */
double rules_geom_shape_entry_t(const rules_shape *s, rules_pt a, rules_pt b);  /* first contact, 2 if none */
/* Integer direction vector of magnitude ~2^20 for an angle in degrees. */
rules_pt rules_geom_dir(double deg);

/* Inches to fixed point (rounded) and back. */
int64_t rules_fx(double in);
double rules_in(int64_t fx);
rules_point rules_pt_in(rules_pt p);

#define RULES_MAX_IN 20000.0 /* largest |coordinate| or range accepted, inches */

/* rules_geom_poly_simple's answer (the same offending edges), found with a
 * uniform grid so a polygon of RULES_MAX_CORNERS corners is checked in
 * near-linear time.  -1 when out of memory. */
int rules_poly_simple_grid(const rules_pt *v, int n, int *e1, int *e2);

/* ---- arc.c: firing arcs as sectors ---- */
/* An arc of total width arc_deg (>= 360: a full circle) centred on
 * facing_deg, apex p, radius R, split into sectors of <= 180 degrees. */
typedef struct rules_arc {
    rules_pt p;
    int64_t R;
    int full, nsec;
    rules_pt lo[2], hi[2], elo[2], ehi[2];
} rules_arc;
void rules_arc_init(rules_arc *a, rules_pt p, double facing_deg, double arc_deg, int64_t R);
/* Some part of the base lies in the arc. */
int rules_arc_meets(const rules_arc *a, const rules_shape *s);
/* The arc as a polygon for drawing (malloc'd, n points). */
rules_point *rules_arc_polygon(rules_pt p, double facing_deg, double arc_deg, double R_in, size_t *n);

#endif
