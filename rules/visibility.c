/* visibility.c - the 'visibility' query: the part of the table a figure can
 * see past LOS-blocking terrain, as a polygon for drawing.
 *
 * Rotational sweep by ray casting: a ray to every terrain corner (and table
 * corner); a visible corner whose edges lie on one side of the ray lets the
 * ray go on to the next obstacle, giving a "shadow" edge.  Rays walk the
 * terrain grid and stop at the first hit, so cluttered tables are quick.
 * Figures do not hide the ground; pieces the viewer stands in do not block.
 * Floating point: the polygon is for drawing; decisions use rules_los. */
#include "rules_internal.h"

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
    if (tf < 1)
        tf = 1;
    double fx = v->px + tf * dx, fy = v->py + tf * dy;
    /* sweeping counter-clockwise: edges on the left side are met after the
     * ray, so the far point comes first */
    if (left)
        return rules__push(v, fx, fy, ang, 0) || rules__push(v, vx, vy, ang, 1);
    return rules__push(v, vx, vy, ang, 1) || rules__push(v, fx, fy, ang, 2);
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
    double arc = sc->prof->sight_arc_deg;
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

static tt_status rules__visibility(rules_scenario *sc, const char *from, int reference, rules_result *out,
                                   tt_err *err)
{
    int i;
    tt_status st;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_VISIBILITY;
    if ((st = rules_scenario_figure(sc, from, "from", &i, err)))
        return st;
    rules__vis v = {sc, &sc->figs[i], 0, 0, 0, 0, NULL, 0, 0, reference, NULL, 0, NULL, 0};
    /* a line passes over pieces lower than the higher of its ends: from a
     * viewer standing high, over the pieces lower than it (README,
     * Elevation); ground points are the other ends */
    v.skip = malloc((sc->npieces + (size_t)v.f->ninside + 1) * sizeof *v.skip);
    v.extra = malloc((sc->npieces + 1) * sizeof *v.extra);
    if (!v.skip || !v.extra) {
        free(v.skip);
        free(v.extra);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    for (int k = 0; k < v.f->ninside; k++)
        v.skip[v.nskip++] = v.f->inside[k];
    for (size_t p = 0; v.f->elev > 0 && p < sc->npieces; p++)
        if (sc->pieces[p].p.blocks_los && sc->pieces[p].p.height_in < v.f->elev)
            v.skip[v.nskip++] = (int)p;
    /* pieces the grid leaves out that block this viewer like any other: a
     * line of trees it is not within see_through_within_in of, a wood that
     * hides what is in it (not the viewer's: from outside it blocks every
     * line into or through it) */
    for (size_t p = 0; p < sc->npieces; p++) {
        const rules_piece *pc = &sc->pieces[p];
        if (!pc->p.blocks_los || !rules_props_deep(&pc->p) || rules__skipped(&v, (int)p))
            continue;
        if (pc->p.see_through_within_in > 0
                ? !rules_piece_near_shape(pc, &v.f->shape, rules_fx(pc->p.see_through_within_in))
                : pc->p.hides_inside)
            v.extra[v.nextra++] = (int)p;
    }
    v.px = (double)v.f->shape.c.x;
    v.py = (double)v.f->shape.c.y;
    v.W = (double)rules_fx(sc->width_in);
    v.D = (double)rules_fx(sc->depth_in);
    const double cx[4] = {0, v.W, v.W, 0}, cy[4] = {0, 0, v.D, v.D};
    int bad = 0;
    for (int k = 0; k < 4 && !bad; k++) {
        rules_pt c = {llround(cx[k]), llround(cy[k])};
        bad |= rules__corner(&v, cx[k], cy[k], c, NULL, 0);
    }
    const rules_pt f0 = v.f->shape.c;
    for (size_t p = 0; p < sc->npieces && !bad; p++) {
        const rules_piece *pc = &sc->pieces[p];
        int extra = 0;
        for (int e = 0; e < v.nextra && !extra; e++)
            extra = v.extra[e] == (int)p;
        if (!pc->p.blocks_los || (rules_props_deep(&pc->p) && !extra) || rules__skipped(&v, (int)p))
            continue;
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
            int back = !reference && pc->closed && rules_orient(nb[0], V, f0) > 0 && rules_orient(V, nb[1], f0) > 0;
            if (!back && V.x >= 0 && V.x <= v.W && V.y >= 0 && V.y <= v.D)
                bad |= rules__corner(&v, (double)V.x, (double)V.y, V, nb, nnb);
            /* where an edge leaves the table, the boundary point is a corner */
            if (k + 1 < pc->n || pc->closed) {
                rules_pt B = pc->v[knext];
                if (!reference && V.x > 0 && V.x < v.W && V.y > 0 && V.y < v.D && B.x > 0 && B.x < v.W &&
                    B.y > 0 && B.y < v.D)
                    continue; /* inside the table: crosses no side */
                double ax = (double)V.x, ay = (double)V.y, bx = (double)B.x, by = (double)B.y;
                const double lines[4] = {0, v.W, 0, v.D};
                for (int s = 0; s < 4 && !bad; s++) {
                    int xs = s < 2;
                    double a0 = xs ? ax : ay, b0 = xs ? bx : by, L = lines[s];
                    if ((a0 < L && b0 > L) || (a0 > L && b0 < L)) {
                        double t = (L - a0) / (b0 - a0);
                        double qx = xs ? L : ax + t * (bx - ax), qy = xs ? ay + t * (by - ay) : L;
                        if (qx >= 0 && qx <= v.W && qy >= 0 && qy <= v.D) {
                            rules_pt none = {INT64_MIN, INT64_MIN};
                            bad |= rules__corner(&v, qx, qy, none, NULL, 0);
                        }
                    }
                }
            }
        }
    }
    free(v.skip);
    free(v.extra);
    if (bad) {
        free(v.pts);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    if (v.n > 1) /* nothing seen leaves v.pts NULL: qsort must not get it */
        qsort(v.pts, v.n, sizeof *v.pts, rules__cmp_vpt);
    out->polygon = malloc((v.n + 1) * sizeof *out->polygon);
    if (!out->polygon) {
        free(v.pts);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < v.n; k++) {
        rules_point q = {rules_in(1) * v.pts[k].x, rules_in(1) * v.pts[k].y};
        if (out->n_polygon && fabs(out->polygon[out->n_polygon - 1].x - q.x) < 1e-9 &&
            fabs(out->polygon[out->n_polygon - 1].y - q.y) < 1e-9)
            continue;
        out->polygon[out->n_polygon++] = q;
    }
    free(v.pts);
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
