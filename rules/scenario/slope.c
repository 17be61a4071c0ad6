/* slope.c - sloped hills: a piece whose kind raises may take "slope_in":
 * RUN.  Its top is its polygon at height_in; each edge's side is a plane
 * falling from the edge to the felt RUN inches outside it.
 *
 * The ground is the straight-skeleton roof of equal pitch over the
 * polygon's outside: edge e's side covers its wedge, the part outside e
 * between the bisectors of e's two corners.  At a convex corner two wedges
 * meet on the bisector and the ground there is the lower of the two planes
 * (a hip, not a rounded corner): for a convex polygon the height is
 *     min(top, min over e of top * (1 - d_e(p) / RUN)),  d_e >= 0
 * (d_e the distance outside e's line).  At a concave corner the bisector
 * runs into the notch and the ground is the higher of the two planes (a
 * valley).  The footprint is the polygon's mitred offset by RUN: corner k
 * moves out along its bisector until both its edges are RUN away.
 *
 * A concave polygon whose notch is too narrow for RUN (two sides would run
 * into each other before reaching the felt: an offset edge turns round, or
 * the footprint crosses itself) is refused at load with what to do: a
 * shorter run, or the hill as convex pieces of the same height, each with
 * its slope (the ground is the highest piece's: the pieces' sides then meet
 * in valleys, as the straight skeleton's do).  Where the footprint is
 * simple and no offset edge turns, the wedges within RUN tile the footprint
 * outside the top, so the ground is a single plane everywhere but on the
 * bisectors.
 *
 * Floating point (inches): the slope is measured, not an exact predicate;
 * decisions on it (lines of sight, uphill moves) allow RULES__SLOPE_EPS. */
#include "rules_scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_json.h"

#define RULES__SLOPE_EPS 1e-6 /* inches: ground this close to a line's height does not rise above it */

/* Corner k of the top in inches. */
static void rules__corner(const rules_piece *pc, int k, double *x, double *y)
{
    k = ((k % pc->n) + pc->n) % pc->n;
    *x = rules_in(pc->top[k].x);
    *y = rules_in(pc->top[k].y);
}

/* Edge k's (top[k] -> top[k+1]) outward unit normal (counter-clockwise
 * polygon: the outside is on the right). */
static void rules__normal(const rules_piece *pc, int k, double *nx, double *ny)
{
    double ax, ay, bx, by;
    rules__corner(pc, k, &ax, &ay);
    rules__corner(pc, k + 1, &bx, &by);
    double L = hypot(bx - ax, by - ay);
    *nx = (by - ay) / L;
    *ny = -(bx - ax) / L;
}

/* Corner k's mitre: the vector m with m . n = 1 for both its edges' normals
 * (so corner + RUN * m is RUN from both edges' lines); 0 when the corner
 * folds back on itself. */
static int rules__mitre(const rules_piece *pc, int k, double *mx, double *my)
{
    double ax, ay, bx, by;
    rules__normal(pc, k - 1, &ax, &ay);
    rules__normal(pc, k, &bx, &by);
    double c = 1 + ax * bx + ay * by;
    if (c < 1e-9)
        return 0;
    *mx = (ax + bx) / c;
    *my = (ay + by) / c;
    return 1;
}

/* Edge k's plane, as the linear functions of a point that must all be >= 0
 * for it to be in the edge's wedge within the run: d >= 0 (outside the
 * edge's line), RUN - d >= 0, and on the edge's side of each corner's
 * bisector.  f[j] = c[j][0] + c[j][1] x + c[j][2] y; d = c[0]. */
static void rules__wedge(const rules_piece *pc, int k, double c[4][3])
{
    double ax, ay, bx, by, nx, ny, m0x = 0, m0y = 0, m1x = 0, m1y = 0;
    rules__corner(pc, k, &ax, &ay);
    rules__corner(pc, k + 1, &bx, &by);
    rules__normal(pc, k, &nx, &ny);
    rules__mitre(pc, k, &m0x, &m0y);
    rules__mitre(pc, k + 1, &m1x, &m1y);
    double R = pc->p.slope_in;
    c[0][0] = -(ax * nx + ay * ny), c[0][1] = nx, c[0][2] = ny;
    c[1][0] = R - c[0][0], c[1][1] = -nx, c[1][2] = -ny;
    /* cross(m0, p - a) has the sign of cross(m0, b - a) on the wedge's side */
    double s0 = m0x * (by - ay) - m0y * (bx - ax) >= 0 ? 1 : -1;
    c[2][0] = s0 * (-m0x * ay + m0y * ax), c[2][1] = s0 * -m0y, c[2][2] = s0 * m0x;
    double s1 = m1x * (ay - by) - m1y * (ax - bx) >= 0 ? 1 : -1;
    c[3][0] = s1 * (-m1x * by + m1y * bx), c[3][1] = s1 * -m1y, c[3][2] = s1 * m1x;
}

tt_status rules_slope_parse(const json_t *o, const char *at, const char *ruleset, rules_piece *pc, tt_err *err)
{
    const json_t *sv = json_object_get(o, "slope_in");
    if (!sv)
        return TT_OK;
    const json_t *v = rules_json_value(sv);
    if (!json_is_number(v))
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: \"slope_in\" must be a number: the inches its sides run out from the polygon to the "
                          "felt (e.g. 3)",
                          at);
    double R = json_number_value(v);
    if (!isfinite(R) || R < 0)
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: \"slope_in\" is %g: the run of a hill's sides cannot be negative; give the inches "
                          "from the top's edge out to where the side meets the felt",
                          at, R);
    if (R > RULES_MAX_SLOPE_IN)
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: \"slope_in\" is %g, more than the %g\" a hill's side can run out: is it in "
                          "millimetres? Give it in inches",
                          at, R, RULES_MAX_SLOPE_IN);
    if (!pc->p.raises)
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: kind \"%s\" does not raise what stands on it in ruleset %s, so it has no sides to "
                          "slope: remove \"slope_in\", or use a kind that raises (hill, building)",
                          at, pc->kind, ruleset);
    if (!pc->closed)
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: a \"line\" has no area to slope from: give the hill's top as a \"polygon\"", at);
    if (!(pc->p.height_in > 0))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"slope_in\" needs a \"height_in\" above 0 for the sides to fall "
                                              "from",
                          at);
    if (R == 0)
        return TT_OK; /* vertical sides, as without it */
    pc->p.slope_in = R;
    pc->top = malloc((size_t)pc->n * sizeof *pc->top);
    rules_pt *foot = malloc((size_t)pc->n * sizeof *foot);
    if (!pc->top || !foot) {
        free(foot);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    memcpy(pc->top, pc->v, (size_t)pc->n * sizeof *pc->top);
    for (int k = 0; k < pc->n; k++) {
        double x, y, mx, my;
        rules__corner(pc, k, &x, &y);
        if (!rules__mitre(pc, k, &mx, &my)) {
            free(foot);
            return tt_err_set(err, TT_ERR_FORMAT,
                              "%s: corner %d (%g, %g) turns straight back on itself: a slope cannot fall from it; "
                              "remove the spike from the polygon",
                              at, k + 1, x, y);
        }
        double fx = x + R * mx, fy = y + R * my;
        if (fabs(fx) > RULES_MAX_IN || fabs(fy) > RULES_MAX_IN) {
            free(foot);
            return tt_err_set(err, TT_ERR_FORMAT,
                              "%s: corner %d (%g, %g) is so sharp that its slope would run out to (%g, %g), off the "
                              "table: blunt the corner or use a shorter \"slope_in\"",
                              at, k + 1, x, y, fx, fy);
        }
        foot[k].x = rules_fx(fx);
        foot[k].y = rules_fx(fy);
    }
    /* no side runs into another before the felt: every offset edge keeps
     * its direction, and the footprint is simple */
    int bad = -1, e1 = 0, e2 = 0;
    for (int k = 0; k < pc->n && bad < 0; k++) {
        rules_pt a = pc->top[k], b = pc->top[(k + 1) % pc->n], fa = foot[k], fb = foot[(k + 1) % pc->n];
        double dot = (double)(b.x - a.x) * (double)(fb.x - fa.x) + (double)(b.y - a.y) * (double)(fb.y - fa.y);
        if (!(dot > 0))
            bad = k;
    }
    int simple = bad < 0 ? rules_poly_simple_grid(foot, pc->n, &e1, &e2) : 1;
    if (simple < 0) {
        free(foot);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    if (bad >= 0 || !simple) {
        int k = bad >= 0 ? bad : e1;
        double x, y;
        rules__corner(pc, k, &x, &y);
        free(foot);
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: with \"slope_in\" %g the sides near corner %d (%g, %g) would run into each other "
                          "before they reach the felt (a notch narrower than the slopes): use a shorter "
                          "\"slope_in\", or give the hill as convex pieces of the same height, each with its slope",
                          at, R, k + 1, x, y);
    }
    memcpy(pc->v, foot, (size_t)pc->n * sizeof *foot);
    free(foot);
    return TT_OK;
}

double rules_slope_height(const rules_piece *pc, double x, double y)
{
    if (!pc->closed || !isfinite(x) || !isfinite(y) || fabs(x) > RULES_MAX_IN || fabs(y) > RULES_MAX_IN)
        return 0;
    rules_pt p = {rules_fx(x), rules_fx(y)};
    if (!(pc->p.slope_in > 0))
        return rules_piece_contains(pc, p) ? pc->p.height_in : 0;
    if (p.x < pc->lo.x || p.x > pc->hi.x || p.y < pc->lo.y || p.y > pc->hi.y)
        return 0;
    if (rules_geom_point_in_poly(pc->top, pc->n, p) >= 0)
        return pc->p.height_in;
    double best = 0, H = pc->p.height_in, R = pc->p.slope_in;
    for (int k = 0; k < pc->n; k++) {
        double c[4][3];
        rules__wedge(pc, k, c);
        int in = 1;
        for (int j = 0; j < 4 && in; j++)
            in = c[j][0] + c[j][1] * x + c[j][2] * y >= -1e-12;
        if (!in)
            continue;
        double d = c[0][0] + c[0][1] * x + c[0][2] * y, h = H * (1 - (d > 0 ? d : 0) / R);
        if (h > best)
            best = h;
    }
    return best > H ? H : best;
}

double rules_slope_max_along(const rules_piece *pc, rules_pt a, rules_pt b)
{
    rules_pt lo = {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y}, hi = {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y};
    if (!pc->closed || hi.x < pc->lo.x || lo.x > pc->hi.x || hi.y < pc->lo.y || lo.y > pc->hi.y)
        return 0; /* the segment's box misses the footprint's */
    double ax = rules_in(a.x), ay = rules_in(a.y), bx = rules_in(b.x), by = rules_in(b.y);
    double best = fmax(rules_slope_height(pc, ax, ay), rules_slope_height(pc, bx, by));
    if (!(pc->p.slope_in > 0)) /* flat: its height where the segment meets it */
        return rules_piece_cuts(pc, a, b) ? pc->p.height_in : best;
    double H = pc->p.height_in, R = pc->p.slope_in, dx = bx - ax, dy = by - ay;
    for (int k = 0; k < pc->n; k++) {
        double c[4][3], t0 = 0, t1 = 1;
        rules__wedge(pc, k, c);
        /* clip t in [0, 1] to f_j(a + t (b - a)) >= 0 */
        for (int j = 0; j < 4 && t0 <= t1; j++) {
            double f0 = c[j][0] + c[j][1] * ax + c[j][2] * ay, f1 = c[j][1] * dx + c[j][2] * dy;
            if (f1 == 0) {
                if (f0 < -1e-12)
                    t1 = -1;
            } else if (f1 > 0) {
                t0 = fmax(t0, -f0 / f1);
            } else {
                t1 = fmin(t1, -f0 / f1);
            }
        }
        if (t0 > t1)
            continue;
        for (int e = 0; e < 2; e++) {
            double t = e ? t1 : t0, d = c[0][0] + c[0][1] * (ax + t * dx) + c[0][2] * (ay + t * dy);
            double h = H * (1 - (d > 0 ? d : 0) / R);
            if (h > best)
                best = h;
        }
    }
    return best > H ? H : best;
}

int rules_slope_blocks(const rules_piece *pc, rules_pt a, rules_pt b, double over, int stands_on)
{
    double m = rules_slope_max_along(pc, a, b);
    if (!(m > RULES__SLOPE_EPS))
        return 0; /* grazes its foot at most */
    return stands_on ? m > over + RULES__SLOPE_EPS : m >= over - RULES__SLOPE_EPS;
}

int rules_slope_climbs(const rules_piece *pc, rules_pt a, rules_pt b)
{
    if (!(pc->p.slope_in > 0))
        return !rules_piece_contains(pc, a) && (rules_piece_contains(pc, b) || rules_piece_cuts(pc, a, b));
    return rules_slope_max_along(pc, a, b) > rules_slope_height(pc, rules_in(a.x), rules_in(a.y)) + RULES__SLOPE_EPS;
}

int rules_slope_climbs_from(const rules_piece *pc, rules_pt a)
{
    if (!(pc->p.slope_in > 0))
        return !rules_piece_contains(pc, a);
    return rules_slope_height(pc, rules_in(a.x), rules_in(a.y)) < pc->p.height_in - RULES__SLOPE_EPS;
}

int rules_slope_level(const rules_piece *pc, double h, rules_pt *out)
{
    if (!(pc->p.slope_in > 0) || !(h >= 0) || h >= pc->p.height_in)
        return 0;
    double s = pc->p.slope_in * (1 - h / pc->p.height_in);
    for (int k = 0; k < pc->n; k++) {
        double x, y, mx = 0, my = 0;
        rules__corner(pc, k, &x, &y);
        rules__mitre(pc, k, &mx, &my);
        out[k].x = rules_fx(x + s * mx);
        out[k].y = rules_fx(y + s * my);
    }
    return 1;
}
