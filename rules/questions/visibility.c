/* visibility.c - the 'visibility' query: the part of the table a figure can
 * see past LOS-blocking terrain, as a polygon for drawing.
 *
 * Rotational sweep by ray casting: a ray to every terrain corner (and table
 * corner); a visible corner whose edges lie on one side of the ray lets the
 * ray go on to the next obstacle, giving a "shadow" edge.  Rays walk the
 * terrain grid and stop at the first hit, so cluttered tables are quick.
 * Figures do not hide the ground; pieces the viewer stands in do not block.
 * Floating point: the polygon is for drawing; decisions use rules_los. */
#include "rules_questions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rules__vpt {
    double ang, x, y;
    int order;
} rules__vpt;

static int rules__cmp_vpt(const void *x, const void *y)
{
    const rules__vpt *a = x, *b = y;
    if (a->ang != b->ang)
        return a->ang < b->ang ? -1 : 1;
    return a->order - b->order;
}

typedef struct rules__vis {
    rules_scenario *sc;
    const rules_figure *f;
    double px, py, W, D;
    rules__vpt *pts;
    size_t n, cap;
    int reference; /* decide hidden corners by plain ray casts */
    int *skip;     /* pieces that hide nothing from the viewer: those it
                      stands in, and those lower than it stands */
    int nskip;
    int *extra;    /* pieces not in the grid that block this viewer: a tree
                      line it is not close to, a wood it is not in */
    int nextra;
    int *depth;    /* pieces that limit its sight to a depth inside them
                      (los_depth_in): a wood it stands in, or one that only
                      limits the depth (not hiding what is in it) */
    int ndepth;
    unsigned char *exit_stops; /* per depth piece: seen into from outside (located), the
                                  sight ends where the ray leaves it (it blocks lines through it) */
    double *ts;    /* scratch: where a ray meets a depth piece's edges */
} rules__vis;

/* The nearest hit, 1e-9 < t < tmax, of the ray p + t*d with an edge of
 * the extra blockers (edges with an end at `ignore` do not count), as the
 * grid's rays do for the pieces in it; tmax when none. */
static double rules__extra_ray(const rules__vis *v, double dx, double dy, double tmax, rules_pt ignore)
{
    double best = tmax;
    for (int e = 0; e < v->nextra; e++) {
        const rules_piece *pc = &v->sc->pieces[v->extra[e]];
        int ne = pc->closed ? pc->n : pc->n - 1;
        for (int k = 0; k < ne; k++) {
            rules_pt A = pc->v[k], B = pc->v[(k + 1) % pc->n];
            if ((A.x == ignore.x && A.y == ignore.y) || (B.x == ignore.x && B.y == ignore.y))
                continue;
            double ex = (double)(B.x - A.x), ey = (double)(B.y - A.y), den = dx * ey - dy * ex;
            if (den == 0)
                continue;
            double qx = (double)A.x - v->px, qy = (double)A.y - v->py;
            double t = (qx * ey - qy * ex) / den, u = (qx * dy - qy * dx) / den;
            if (t > 1e-9 && t < best && u >= 0 && u <= 1)
                best = t;
        }
    }
    return best;
}

static int rules__cmpd(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Where along the ray p + t*d, 0 < t <= tmax, the sight inside one of the
 * depth pieces runs out (more than los_depth_in of the ray lies inside it,
 * as rules_piece_depth measures a line of sight); tmax when it does not. */
static double rules__depth_ray(const rules__vis *v, double dx, double dy, double tmax)
{
    double best = tmax, L = hypot(dx, dy);
    if (L == 0)
        return tmax;
    for (int e = 0; e < v->ndepth; e++) {
        const rules_piece *pc = &v->sc->pieces[v->depth[e]];
        double ex0 = v->px + best * dx, ey0 = v->py + best * dy;
        if (fmax(v->px, ex0) < (double)pc->lo.x || fmin(v->px, ex0) > (double)pc->hi.x ||
            fmax(v->py, ey0) < (double)pc->lo.y || fmin(v->py, ey0) > (double)pc->hi.y)
            continue;
        int nt = 0;
        v->ts[nt++] = 0;
        for (int k = 0; k < pc->n; k++) {
            rules_pt A = pc->v[k], B = pc->v[(k + 1) % pc->n];
            double ex = (double)(B.x - A.x), ey = (double)(B.y - A.y), den = dx * ey - dy * ex;
            if (den == 0)
                continue;
            double qx = (double)A.x - v->px, qy = (double)A.y - v->py;
            double t = (qx * ey - qy * ex) / den, u = (qx * dy - qy * dx) / den;
            if (t > 0 && t < best && u >= 0 && u <= 1)
                v->ts[nt++] = t;
        }
        v->ts[nt++] = best;
        qsort(v->ts, (size_t)nt, sizeof *v->ts, rules__cmpd);
        /* sight left inside, fixed-point units (the line of sight rounds its
         * depth to them: up to half a unit more is still in sight) */
        double room = (double)rules_fx(pc->p.los_depth_in) + 0.5;
        int entered = 0;
        for (int k = 0; k + 1 < nt; k++) {
            double t0 = v->ts[k], t1 = v->ts[k + 1], tm = (t0 + t1) / 2;
            if (t1 <= t0)
                continue;
            rules_pt m = {llround(v->px + tm * dx), llround(v->py + tm * dy)};
            if (rules_geom_point_in_poly(pc->v, pc->n, m) <= 0) {
                if (entered && v->exit_stops[e]) {
                    best = t0;
                    break;
                }
                continue;
            }
            entered = 1;
            if ((t1 - t0) * L > room) {
                best = t0 + room / L;
                break;
            }
            room -= (t1 - t0) * L;
        }
    }
    return best;
}

static int rules__push(rules__vis *v, double x, double y, double ang, int order)
{
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 256;
        rules__vpt *np = realloc(v->pts, nc * sizeof *np);
        if (!np)
            return -1;
        v->pts = np;
        v->cap = nc;
    }
    rules__vpt *p = &v->pts[v->n++];
    p->x = x;
    p->y = y;
    p->ang = ang;
    p->order = order;
    return 0;
}

static double rules__table_exit(const rules__vis *v, double dx, double dy)
{
    double tx = dx > 0 ? (v->W - v->px) / dx : dx < 0 ? -v->px / dx : INFINITY;
    double ty = dy > 0 ? (v->D - v->py) / dy : dy < 0 ? -v->py / dy : INFINITY;
    return tx < ty ? tx : ty;
}

/* Cast towards (vx, vy); nb neighbours of the corner (the other ends of
 * its edges), nnb = 0 for table corners and boundary points. */
static int rules__corner(rules__vis *v, double vx, double vy, rules_pt vfix, const rules_pt *nb, int nnb)
{
    double dx = vx - v->px, dy = vy - v->py;
    if (dx == 0 && dy == 0)
        return 0;
    struct rules_grid *g = v->sc->grid;
    if (v->reference ? rules_grid_ray(g, v->px, v->py, dx, dy, 1.0, vfix, v->skip, v->nskip) < 1 - 1e-9
                     : rules_grid_ray_hidden(g, v->px, v->py, dx, dy, vfix, v->skip, v->nskip))
        return 0; /* hidden */
    if (v->nextra && rules__extra_ray(v, dx, dy, 1.0, vfix) < 1 - 1e-9)
        return 0;
    if (v->ndepth && rules__depth_ray(v, dx, dy, 1.0) < 1 - 1e-9)
        return 0; /* beyond the sight inside a wood */
    double ang = atan2(dy, dx);
    int left = 0, right = 0;
    for (int k = 0; k < nnb; k++) {
        double s = dx * ((double)nb[k].y - vy) - dy * ((double)nb[k].x - vx);
        left |= s > 0;
        right |= s < 0;
    }
    if (nnb == 0 || (left && right) || (!left && !right))
        return rules__push(v, vx, vy, ang, 1);
    double tb = rules__table_exit(v, dx, dy);
    double tf = v->reference ? rules_grid_ray(g, v->px, v->py, dx, dy, tb, vfix, v->skip, v->nskip)
                             : rules_grid_ray_fast(g, v->px, v->py, dx, dy, tb, vfix, v->skip, v->nskip);
    if (v->nextra)
        tf = rules__extra_ray(v, dx, dy, tf, vfix);
    if (v->ndepth)
        tf = rules__depth_ray(v, dx, dy, tf);
    if (tf < 1)
        tf = 1;
    double fx = v->px + tf * dx, fy = v->py + tf * dy;
    /* sweeping counter-clockwise: edges on the left side are met after the
     * ray, so the far point comes first */
    if (left)
        return rules__push(v, fx, fy, ang, 0) || rules__push(v, vx, vy, ang, 1);
    return rules__push(v, vx, vy, ang, 1) || rules__push(v, fx, fy, ang, 2);
}

/* The visible length along the unit ray at angle `ang` (fixed-point
 * units): the first blocker, the end of the sight inside a depth piece, or
 * the table's edge; *x, *y: the point there. */
static double rules__ray_at(rules__vis *v, double ang, double *x, double *y)
{
    double dx = cos(ang), dy = sin(ang);
    rules_pt none = {INT64_MIN, INT64_MIN};
    double tb = rules__table_exit(v, dx, dy);
    if (!(tb > 0))
        tb = 0;
    double tf = tb > 0 ? (v->reference ? rules_grid_ray(v->sc->grid, v->px, v->py, dx, dy, tb, none, v->skip, v->nskip)
                                       : rules_grid_ray_fast(v->sc->grid, v->px, v->py, dx, dy, tb, none, v->skip, v->nskip))
                       : 0;
    if (v->nextra && tf > 0)
        tf = rules__extra_ray(v, dx, dy, tf, none);
    if (tf > 0)
        tf = rules__depth_ray(v, dx, dy, tf);
    *x = v->px + tf * dx;
    *y = v->py + tf * dy;
    return tf;
}

#define RULES__VIS_TOL 10.0 /* fixed-point units (0.001"): how far a chord may stray from the curve */

/* Between rays at angles a0 and a1 (points p0, p1 already pushed), more
 * rays while the one between them lands off the chord p0-p1 by more than
 * the tolerance: a curve (the end of a wood's sight) drawn to 0.001", a
 * jump (where that end meets an edge) narrowed to it. */
static int rules__refine(rules__vis *v, double a0, double x0, double y0, double a1, double x1, double y1, int depth)
{
    double am = (a0 + a1) / 2, xm, ym;
    if (depth > 20 || a1 - a0 < 1e-9)
        return 0;
    rules__ray_at(v, am, &xm, &ym);
    double cx = x1 - x0, cy = y1 - y0, c2 = cx * cx + cy * cy;
    double t = c2 > 0 ? ((xm - x0) * cx + (ym - y0) * cy) / c2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double off = hypot(xm - x0 - t * cx, ym - y0 - t * cy);
    /* a jump (the middle ray as long as one end's, not between them) is
     * narrowed until the rays at its two sides are that close at its far end */
    double r0 = hypot(x0 - v->px, y0 - v->py), r1 = hypot(x1 - v->px, y1 - v->py), rm = hypot(xm - v->px, ym - v->py);
    int jump = fabs(r1 - r0) > 2 * RULES__VIS_TOL && fmin(fabs(rm - r0), fabs(rm - r1)) < fabs(r1 - r0) / 4 &&
               (a1 - a0) * fmax(r0, r1) > RULES__VIS_TOL;
    if (off <= RULES__VIS_TOL && !jump)
        return 0;
    return rules__push(v, xm, ym, atan2(sin(am), cos(am)), 1) || rules__refine(v, a0, x0, y0, am, xm, ym, depth + 1) ||
           rules__refine(v, am, xm, ym, a1, x1, y1, depth + 1);
}

/* Rays over the angles [a0, a1] (radians, a0 < a1) every few degrees and at
 * the given extra angles, refined, for the curved end of the sight in a
 * depth piece of depth D inches. */
static int rules__sweep(rules__vis *v, double a0, double a1, double D, const double *extra, int nextra)
{
    double step = sqrt(8 * RULES__VIS_TOL / (double)rules_fx(D)); /* a chord of a circle of radius D */
    if (step > 3 * M_PI / 180)
        step = 3 * M_PI / 180;
    int n = (int)ceil((a1 - a0) / step);
    double *as = malloc(((size_t)n + 2 + (size_t)nextra) * sizeof *as);
    if (!as)
        return -1;
    int na = 0;
    for (int k = 0; k <= n; k++)
        as[na++] = a0 + (a1 - a0) * k / (n ? n : 1);
    for (int k = 0; k < nextra; k++)
        if (extra[k] > a0 && extra[k] < a1)
            as[na++] = extra[k];
    qsort(as, (size_t)na, sizeof *as, rules__cmpd);
    double px = 0, py = 0, pa = 0;
    int bad = 0;
    for (int k = 0; k < na && !bad; k++) {
        double x, y;
        if (k && as[k] - pa < 1e-12)
            continue;
        rules__ray_at(v, as[k], &x, &y);
        bad |= rules__push(v, x, y, atan2(sin(as[k]), cos(as[k])), 1);
        if (k)
            bad |= rules__refine(v, pa, px, py, as[k], x, y, 0);
        pa = as[k], px = x, py = y;
    }
    free(as);
    return bad;
}

/* The depth pieces' rays: over the whole sight (cut to the sight arc) for
 * a piece the viewer stands in, over the angles a piece spans for one it
 * does not; and on each side of every corner of those pieces. */
static int rules__depth_rays(rules__vis *v)
{
    const rules_figure *f = v->f;
    double arc = rules_sight_arc(v->sc->prof, f), fa = f->facing_deg * (M_PI / 180.0);
    double lo = -M_PI, hi = M_PI;
    if (arc > 0 && arc < 360)
        lo = fa - arc / 2 * (M_PI / 180.0), hi = fa + arc / 2 * (M_PI / 180.0);
    int bad = 0;
    for (int e = 0; e < v->ndepth && !bad; e++) {
        const rules_piece *pc = &v->sc->pieces[v->depth[e]];
        double *ex = malloc((size_t)pc->n * 11 * sizeof *ex);
        if (!ex)
            return -1;
        int inside = 0, nex = 0;
        for (int k = 0; k < f->ninside; k++)
            inside |= f->inside[k] == v->depth[e];
        /* the corners' angles, unwrapped along the outline (from outside
         * the outline turns less than a full circle) */
        double a = 0, amin = 0, amax = 0, base = 0;
        for (int k = 0; k < pc->n; k++) {
            double ak = atan2((double)pc->v[k].y - v->py, (double)pc->v[k].x - v->px);
            if (k == 0)
                a = base = ak;
            else {
                double d = ak - atan2(sin(a), cos(a));
                d = atan2(sin(d), cos(d));
                a += d;
            }
            amin = fmin(amin, a - base), amax = fmax(amax, a - base);
            ex[nex++] = a - 1e-7, ex[nex++] = a + 1e-7;
        }
        double a0 = inside ? lo : base + amin - 1e-7, a1 = inside ? hi : base + amax + 1e-7;
        /* on each edge, where the ray out is shortest (the foot of the
         * perpendicular) and where it is as long as the sight inside: the
         * end of the sight may touch the edge there, between two rays */
        double R = (double)rules_fx(pc->p.los_depth_in) + 0.5;
        for (int k = 0; k < pc->n; k++) {
            double ax = (double)pc->v[k].x - v->px, ay = (double)pc->v[k].y - v->py;
            double ex0 = (double)pc->v[(k + 1) % pc->n].x - v->px - ax, ey0 = (double)pc->v[(k + 1) % pc->n].y - v->py - ay;
            double E2 = ex0 * ex0 + ey0 * ey0, b = ax * ex0 + ay * ey0, c = ax * ax + ay * ay - R * R;
            if (E2 <= 0)
                continue;
            double us[3] = {-b / E2, -1, -1}, disc = b * b - E2 * c;
            if (disc >= 0)
                us[1] = (-b - sqrt(disc)) / E2, us[2] = (-b + sqrt(disc)) / E2;
            for (int m = 0; m < 3; m++)
                if (us[m] > 0 && us[m] < 1) {
                    double ang = atan2(ay + us[m] * ey0, ax + us[m] * ex0);
                    for (int d = -1; d <= 1; d++)
                        ex[nex++] = ang + d * 1e-7;
                }
        }
        /* every angle into the sweep's turn */
        double mid = (a0 + a1) / 2;
        for (int k = 0; k < nex; k++)
            ex[k] = mid - M_PI + fmod(fmod(ex[k] - (mid - M_PI), 2 * M_PI) + 2 * M_PI, 2 * M_PI);
        bad = rules__sweep(v, a0, a1, pc->p.los_depth_in, ex, nex);
        free(ex);
    }
    return bad;
}

static int rules__skipped(const rules__vis *v, int piece)
{
    for (int i = 0; i < v->nskip; i++)
        if (v->skip[i] == piece)
            return 1;
    return 0;
}

/* Keep the part of polygon p (n points) where (q - c) . nrm >= 0: one
 * Sutherland-Hodgman step (the clip region is convex); q gets up to 2n. */
static size_t rules__clip_half(const rules_point *p, size_t n, rules_point c, double nx, double ny, rules_point *q)
{
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        rules_point a = p[k], b = p[(k + 1) % n];
        double da = (a.x - c.x) * nx + (a.y - c.y) * ny, db = (b.x - c.x) * nx + (b.y - c.y) * ny;
        if (da >= 0)
            q[m++] = a;
        if ((da >= 0) != (db >= 0)) {
            double t = da / (da - db);
            q[m++] = (rules_point){a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)};
        }
    }
    return m;
}

/* The visible area cut to the figure's sight arc (the profile's
 * los.sight_arc_deg, up to 180: a wedge, convex, so the polygon is clipped
 * by its two sides; a wider arc is not cut). */
static tt_status rules__sight_arc(const rules_scenario *sc, const rules_figure *f, rules_result *out, tt_err *err)
{
    double arc = rules_sight_arc(sc->prof, f);
    if (!(arc > 0 && arc <= 180) || out->n_polygon < 3)
        return TT_OK;
    rules_point *a = malloc(4 * out->n_polygon * sizeof *a), *b = malloc(4 * out->n_polygon * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    rules_point c = rules_pt_in(f->shape.c);
    double h = arc / 2 * (M_PI / 180.0), fa = f->facing_deg * (M_PI / 180.0);
    /* each side of the wedge: its inward normal */
    size_t n = rules__clip_half(out->polygon, out->n_polygon, c, -sin(fa - h), cos(fa - h), a);
    n = rules__clip_half(a, n, c, sin(fa + h), -cos(fa + h), b);
    free(out->polygon);
    free(a);
    out->polygon = b;
    out->n_polygon = n;
    return TT_OK;
}

/* Piece p blocks this viewer's sight by its edges (in the grid, or one of
 * the extra blockers), not skipped. */
static int rules__blocks_here(const rules__vis *v, int p)
{
    const rules_piece *pc = &v->sc->pieces[p];
    if (!pc->p.blocks_los || rules__skipped(v, p))
        return 0;
    if (!rules_props_deep(&pc->p))
        return 1;
    for (int e = 0; e < v->nextra; e++)
        if (v->extra[e] == p)
            return 1;
    return 0;
}

static void rules__vis_free(rules__vis *v)
{
    free(v->skip);
    free(v->extra);
    free(v->depth);
    free(v->ts);
    free(v->exit_stops);
    v->skip = v->extra = v->depth = NULL;
    v->ts = NULL;
    v->exit_stops = NULL;
}

/* The lists of pieces for the viewer (room for every piece) and the ray's
 * scratch; -1 out of memory (nothing left allocated). */
static int rules__vis_alloc(rules__vis *v)
{
    const rules_scenario *sc = v->sc;
    v->skip = malloc((sc->npieces + (size_t)v->f->ninside + 1) * sizeof *v->skip);
    v->extra = malloc((sc->npieces + 1) * sizeof *v->extra);
    v->depth = malloc((sc->npieces + 1) * sizeof *v->depth);
    int maxn = 0;
    for (size_t p = 0; p < sc->npieces; p++)
        maxn = sc->pieces[p].n > maxn ? sc->pieces[p].n : maxn;
    v->ts = malloc(((size_t)maxn + 2) * sizeof *v->ts);
    v->exit_stops = malloc(sc->npieces + 1);
    if (!v->skip || !v->extra || !v->depth || !v->ts || !v->exit_stops) {
        rules__vis_free(v);
        return -1;
    }
    return 0;
}

/* Sort the pieces for viewer i: those that hide nothing from it (skip),
 * those the grid leaves out that block it like any other (extra), and
 * those its sight runs out in at a depth (depth). */
static void rules__vis_blockers(rules__vis *v, int i)
{
    const rules_scenario *sc = v->sc;
    const rules_figure *f = v->f;
    /* a line passes over pieces lower than the higher of its ends: from a
     * viewer standing high, over the pieces lower than it (docs/rules.md,
     * "Conventions", elevation); ground points are the other ends */
    for (int k = 0; k < f->ninside; k++)
        v->skip[v->nskip++] = f->inside[k];
    for (size_t p = 0; f->elev > 0 && p < sc->npieces; p++)
        if (sc->pieces[p].p.blocks_los && sc->pieces[p].p.height_in < f->elev)
            v->skip[v->nskip++] = (int)p;
    /* pieces the grid leaves out that block this viewer like any other: a
     * line of trees it is not within see_through_within_in of, a wood that
     * hides what is in it (not the viewer's: from outside it blocks every
     * line into or through it), a piece that also hides what is behind it;
     * and the pieces whose sight runs out at a depth inside them: the
     * viewer's wood, and those that only limit the depth */
    for (size_t p = 0; p < sc->npieces; p++) {
        const rules_piece *pc = &sc->pieces[p];
        if (!pc->p.blocks_los || !rules_props_deep(&pc->p) || (f->elev > 0 && pc->p.height_in < f->elev))
            continue;
        int in = 0;
        for (int k = 0; k < f->ninside; k++)
            in |= f->inside[k] == (int)p;
        if (pc->p.see_through_within_in > 0) {
            if (!in && !rules_piece_near_shape(pc, &f->shape, rules_fx(pc->p.see_through_within_in)))
                v->extra[v->nextra++] = (int)p;
        } else if (pc->p.los_depth_in > 0) {
            /* a viewer whose side located what it hides sees into it */
            int located = rules_piece_located(sc, i, pc);
            if (pc->p.hides_inside && !in && !located)
                v->extra[v->nextra++] = (int)p;
            else if (pc->closed) { /* (a line has no depth to see into) */
                v->exit_stops[v->ndepth] = pc->p.hides_inside && !in;
                v->depth[v->ndepth++] = (int)p;
            }
        } else if (!in) {
            v->extra[v->nextra++] = (int)p;
        }
    }
}

/* Where two blocking pieces' edges cross, the outline turns from one to
 * the other: a corner when both block this viewer.  Nonzero: out of
 * memory. */
static int rules__vis_crossings(rules__vis *v)
{
    const rules_scenario *sc = v->sc;
    int bad = 0;
    for (size_t k = 0; k < sc->nxing && !bad; k++) {
        double x = sc->xing[2 * k], y = sc->xing[2 * k + 1];
        const int *xp = &sc->xing_pc[4 * k];
        int facing = 1;
        for (int e = 0; e < 2 && facing; e++) {
            /* seen from inside an area's edge, the line to the point runs
             * inside the area just before it: hidden */
            const rules_piece *pc = &sc->pieces[xp[2 * e]];
            facing = !pc->closed || rules_orient(pc->v[xp[2 * e + 1]], pc->v[(xp[2 * e + 1] + 1) % pc->n], v->f->shape.c) < 0;
        }
        if (!facing || x < 0 || x > v->W || y < 0 || y > v->D || !rules__blocks_here(v, xp[0]) ||
            !rules__blocks_here(v, xp[2]))
            continue;
        rules_pt none = {INT64_MIN, INT64_MIN};
        bad |= rules__corner(v, x, y, none, NULL, 0);
    }
    return bad;
}

/* Where the edge V -> B leaves the table, the boundary point is a corner.
 * Nonzero: out of memory. */
static int rules__vis_table_exits(rules__vis *v, rules_pt V, rules_pt B)
{
    if (!v->reference && V.x > 0 && V.x < v->W && V.y > 0 && V.y < v->D && B.x > 0 && B.x < v->W && B.y > 0 &&
        B.y < v->D)
        return 0; /* inside the table: crosses no side */
    double ax = (double)V.x, ay = (double)V.y, bx = (double)B.x, by = (double)B.y;
    const double lines[4] = {0, v->W, 0, v->D};
    int bad = 0;
    for (int s = 0; s < 4 && !bad; s++) {
        int xs = s < 2;
        double a0 = xs ? ax : ay, b0 = xs ? bx : by, L = lines[s];
        if ((a0 < L && b0 > L) || (a0 > L && b0 < L)) {
            double t = (L - a0) / (b0 - a0);
            double qx = xs ? L : ax + t * (bx - ax), qy = xs ? ay + t * (by - ay) : L;
            if (qx >= 0 && qx <= v->W && qy >= 0 && qy <= v->D) {
                rules_pt none = {INT64_MIN, INT64_MIN};
                bad |= rules__corner(v, qx, qy, none, NULL, 0);
            }
        }
    }
    return bad;
}

/* The corners of piece pc (a blocker for this viewer): each of its
 * vertices on the table that does not face away, and where its edges
 * leave the table.  Nonzero: out of memory. */
static int rules__vis_piece_corners(rules__vis *v, const rules_piece *pc)
{
    const rules_pt f0 = v->f->shape.c;
    int bad = 0;
    for (int k = 0; k < pc->n && !bad; k++) {
        rules_pt V = pc->v[k], nb[2];
        int nnb = 0, kprev = k == 0 ? pc->n - 1 : k - 1, knext = k + 1 == pc->n ? 0 : k + 1;
        if (pc->closed || k > 0)
            nb[nnb++] = pc->v[kprev];
        if (pc->closed || k + 1 < pc->n)
            nb[nnb++] = pc->v[knext];
        /* a corner whose two edges both face away from the viewer is
         * hidden by its own piece (the line to it runs inside the
         * piece just before it; the viewer is outside) */
        int back = !v->reference && pc->closed && rules_orient(nb[0], V, f0) > 0 && rules_orient(V, nb[1], f0) > 0;
        if (!back && V.x >= 0 && V.x <= v->W && V.y >= 0 && V.y <= v->D)
            bad |= rules__corner(v, (double)V.x, (double)V.y, V, nb, nnb);
        if (!bad && (k + 1 < pc->n || pc->closed))
            bad |= rules__vis_table_exits(v, V, pc->v[knext]);
    }
    return bad;
}

/* The corners of every piece that blocks this viewer by its edges.
 * Nonzero: out of memory. */
static int rules__vis_pieces(rules__vis *v)
{
    const rules_scenario *sc = v->sc;
    int bad = 0;
    for (size_t p = 0; p < sc->npieces && !bad; p++) {
        const rules_piece *pc = &sc->pieces[p];
        int extra = 0;
        for (int e = 0; e < v->nextra && !extra; e++)
            extra = v->extra[e] == (int)p;
        if (!pc->p.blocks_los || (rules_props_deep(&pc->p) && !extra) || rules__skipped(v, (int)p))
            continue;
        bad |= rules__vis_piece_corners(v, pc);
    }
    return bad;
}

/* The points swept, in order of angle, as the answer's polygon (points
 * within 1e-9in of the one before dropped); v->pts freed. */
static tt_status rules__vis_polygon(rules__vis *v, rules_result *out, tt_err *err)
{
    if (v->n > 1) /* nothing seen leaves v->pts NULL: qsort must not get it */
        qsort(v->pts, v->n, sizeof *v->pts, rules__cmp_vpt);
    out->polygon = malloc((v->n + 1) * sizeof *out->polygon);
    if (!out->polygon) {
        free(v->pts);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < v->n; k++) {
        rules_point q = {rules_in(1) * v->pts[k].x, rules_in(1) * v->pts[k].y};
        if (out->n_polygon && fabs(out->polygon[out->n_polygon - 1].x - q.x) < 1e-9 &&
            fabs(out->polygon[out->n_polygon - 1].y - q.y) < 1e-9)
            continue;
        out->polygon[out->n_polygon++] = q;
    }
    free(v->pts);
    return TT_OK;
}

static tt_status rules__visibility(rules_scenario *sc, const char *from, int reference, rules_result *out,
                                   tt_err *err)
{
    int i;
    tt_status st;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_VISIBILITY;
    if ((st = rules_scenario_figure(sc, from, "from", &i, err)))
        return st;
    rules__vis v = {sc, &sc->figs[i], 0, 0, 0, 0, NULL, 0, 0, reference, NULL, 0, NULL, 0, NULL, 0, NULL, NULL};
    if (rules__vis_alloc(&v))
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    rules__vis_blockers(&v, i);
    int bad = 0; /* sloped hills: their part above the viewer blocks (slope_sight.c) */
    rules_pt **slopes = rules_slope_sight_begin(sc, v.f, v.skip, &v.nskip, v.extra, &v.nextra, &bad);
    v.px = (double)v.f->shape.c.x;
    v.py = (double)v.f->shape.c.y;
    v.W = (double)rules_fx(sc->width_in);
    v.D = (double)rules_fx(sc->depth_in);
    const double cx[4] = {0, v.W, v.W, 0}, cy[4] = {0, 0, v.D, v.D};
    for (int k = 0; k < 4 && !bad; k++) { /* the table's corners */
        rules_pt c = {llround(cx[k]), llround(cy[k])};
        bad |= rules__corner(&v, cx[k], cy[k], c, NULL, 0);
    }
    if (v.ndepth)
        bad |= rules__depth_rays(&v);
    if (!bad)
        bad |= rules__vis_crossings(&v);
    if (!bad)
        bad |= rules__vis_pieces(&v);
    rules_slope_sight_end(sc, slopes);
    rules__vis_free(&v);
    if (bad) {
        free(v.pts);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    if ((st = rules__vis_polygon(&v, out, err)))
        return st;
    out->centre = rules_pt_in(v.f->shape.c);
    return rules__sight_arc(sc, v.f, out, err);
}

tt_status rules_visibility(rules_scenario *sc, const char *from, rules_result *out, tt_err *err)
{
    return rules__visibility(sc, from, 0, out, err);
}

tt_status rules_visibility_reference(rules_scenario *sc, const char *from, rules_result *out, tt_err *err)
{
    return rules__visibility(sc, from, 1, out, err);
}
