/* grid.c - a uniform grid over the LOS-blocking terrain edges, so a line of
 * sight tests only the edges near it.  Edges are copied into every cell they
 * pass through (conservatively: a cell is visited if the segment's y-range
 * inside the cell's column, widened by a small slack, overlaps it; queries
 * walk cells the same way), so the exact answer never depends on the grid. */
#include "rules_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rules_gedge {
    rules_pt a, b;
    int piece;
    int id;
} rules_gedge;

struct rules_grid {
    double x0, y0, cell; /* fixed-point units */
    double inv_cell;
    int nx, ny;
    uint32_t *start;     /* nx*ny + 1 offsets into edges */
    rules_gedge *edges;
    int nedges;          /* distinct edges */
    unsigned *stamp;     /* per distinct edge */
    unsigned cur;
    int *slow;           /* pieces to decide exactly, scratch */
};

static int rules__grid_blocks(const rules_piece *pc) { return pc->p.blocks_los && pc->p.los_depth_in <= 0; }

static int rules__clampi(double v, int hi)
{
    if (!(v >= 0))
        return 0;
    if (v >= hi)
        return hi - 1;
    return (int)v;
}

/* Visit every cell the segment a-b may touch: columns from a's towards b's,
 * rows likewise.  fn returns nonzero to stop; the walk returns that value. */
typedef int (*rules__cell_fn)(struct rules_grid *g, int cell, void *ctx);

static int rules__walk(struct rules_grid *g, rules_pt a, rules_pt b, rules__cell_fn fn, void *ctx)
{
    double ax = (double)a.x, ay = (double)a.y, bx = (double)b.x, by = (double)b.y;
    double slack = 2.0 + 1e-9 * (fabs(ax) + fabs(ay) + fabs(bx) + fabs(by));
    double inv = g->inv_cell;
    int ca = rules__clampi((ax - g->x0) * inv, g->nx), cb = rules__clampi((bx - g->x0) * inv, g->nx);
    int step = cb >= ca ? 1 : -1, up = ay <= by;
    double dx = bx - ax, slope = dx != 0 ? (by - ay) / dx : 0;
    double lo = ax < bx ? ax : bx, hi = ax < bx ? bx : ax;
    double sl = up ? slack : -slack;
    for (int c = ca;; c += step) {
        double ya, yb;
        if (dx == 0) {
            ya = ay;
            yb = by;
        } else {
            double X0 = g->x0 + c * g->cell, X1 = X0 + g->cell;
            double xa = c == 0 ? lo : (X0 > lo ? X0 : lo);
            double xb = c == g->nx - 1 ? hi : (X1 < hi ? X1 : hi);
            ya = ay + slope * (xa - ax);
            yb = ay + slope * (xb - ax);
            if (up ? ya > yb : ya < yb) {
                double t = ya;
                ya = yb;
                yb = t;
            }
        }
        int ra = rules__clampi((ya - sl - g->y0) * inv, g->ny);
        int rb = rules__clampi((yb + sl - g->y0) * inv, g->ny);
        int rs = rb >= ra ? 1 : -1;
        for (int r = ra;; r += rs) {
            int v = fn(g, r * g->nx + c, ctx);
            if (v)
                return v;
            if (r == rb)
                break;
        }
        if (c == cb)
            break;
    }
    return 0;
}

typedef struct rules__fill {
    int pass; /* 0 count, 1 store */
    uint32_t *fillpos;
    rules_gedge e;
} rules__fill;

static int rules__fill_cell(struct rules_grid *g, int cell, void *ctx)
{
    rules__fill *f = ctx;
    if (f->pass == 0)
        g->start[cell + 1]++;
    else
        g->edges[f->fillpos[cell]++] = f->e;
    return 0;
}

struct rules_grid *rules_grid_create(const rules_scenario *sc)
{
    struct rules_grid *g = calloc(1, sizeof *g);
    uint32_t *fillpos = NULL;
    if (!g)
        return NULL;
    double lx = 0, ly = 0, hx = rules_fx(sc->width_in), hy = rules_fx(sc->depth_in);
    int n = 0;
    for (size_t i = 0; i < sc->npieces; i++) {
        const rules_piece *pc = &sc->pieces[i];
        if (!rules__grid_blocks(pc))
            continue;
        n += pc->closed ? pc->n : pc->n - 1;
        if (pc->lo.x < lx)
            lx = (double)pc->lo.x;
        if (pc->lo.y < ly)
            ly = (double)pc->lo.y;
        if (pc->hi.x > hx)
            hx = (double)pc->hi.x;
        if (pc->hi.y > hy)
            hy = (double)pc->hi.y;
    }
    /* about one edge per cell, at least 1/4", at most 2^20 cells */
    double area = (hx - lx) * (hy - ly);
    double cell = sqrt(area / (n > 0 ? n : 1)) * 0.8;
    if (cell < 2500)
        cell = 2500;
    while (((hx - lx) / cell + 1) * ((hy - ly) / cell + 1) > 1048576.0)
        cell *= 1.5;
    g->x0 = lx;
    g->y0 = ly;
    g->cell = cell;
    g->inv_cell = 1.0 / cell;
    g->nx = (int)((hx - lx) / cell) + 1;
    g->ny = (int)((hy - ly) / cell) + 1;
    g->nedges = n;
    g->start = calloc((size_t)g->nx * g->ny + 1, sizeof *g->start);
    g->stamp = calloc((size_t)n + 1, sizeof *g->stamp);
    g->slow = calloc(sc->npieces + 1, sizeof *g->slow);
    fillpos = calloc((size_t)g->nx * g->ny + 1, sizeof *fillpos);
    if (!g->start || !g->stamp || !g->slow || !fillpos)
        goto fail;
    rules__fill f = {0};
    for (f.pass = 0; f.pass < 2; f.pass++) {
        if (f.pass == 1) {
            size_t ncell = (size_t)g->nx * g->ny;
            for (size_t c = 0; c < ncell; c++)
                g->start[c + 1] += g->start[c];
            g->edges = calloc((size_t)g->start[ncell] + 1, sizeof *g->edges);
            if (!g->edges)
                goto fail;
            memcpy(fillpos, g->start, ncell * sizeof *fillpos);
            f.fillpos = fillpos;
        }
        int id = 0;
        for (size_t i = 0; i < sc->npieces; i++) {
            const rules_piece *pc = &sc->pieces[i];
            if (!rules__grid_blocks(pc))
                continue;
            int ne = pc->closed ? pc->n : pc->n - 1;
            for (int k = 0; k < ne; k++) {
                f.e.a = pc->v[k];
                f.e.b = pc->v[(k + 1) % pc->n];
                f.e.piece = (int)i;
                f.e.id = id++;
                rules__walk(g, f.e.a, f.e.b, rules__fill_cell, &f);
            }
        }
    }
    free(fillpos);
    return g;
fail:
    free(fillpos);
    rules_grid_destroy(g);
    return NULL;
}

void rules_grid_destroy(struct rules_grid *g)
{
    if (!g)
        return;
    free(g->start);
    free(g->edges);
    free(g->stamp);
    free(g->slow);
    free(g);
}

typedef struct rules__query {
    const rules_scenario *sc;
    rules_pt a, b;
    const int *skip, *skip2;
    int nskip, nskip2;
    int nslow;
} rules__query;

static int rules__skipped(const rules__query *q, int piece)
{
    for (int i = 0; i < q->nskip; i++)
        if (q->skip[i] == piece)
            return 1;
    for (int i = 0; i < q->nskip2; i++)
        if (q->skip2[i] == piece)
            return 1;
    return 0;
}

static int rules__query_cell(struct rules_grid *g, int cell, void *ctx)
{
    rules__query *q = ctx;
    rules_pt a = q->a, b = q->b;
    for (uint32_t k = g->start[cell]; k < g->start[cell + 1]; k++) {
        const rules_gedge *e = &g->edges[k];
        /* an edge in several cells may be tested twice: harmless */
        int o1 = rules_orient(a, b, e->a), o2 = rules_orient(a, b, e->b);
        if (o1 * o2 < 0) {
            if (rules_orient(e->a, e->b, a) * rules_orient(e->a, e->b, b) < 0 && !rules__skipped(q, e->piece))
                return 1;
        } else if ((o1 == 0 && rules_geom_between_closed(a, b, e->a)) ||
                   (o2 == 0 && rules_geom_between_closed(a, b, e->b))) {
            rules_scenario *sc = (rules_scenario *)q->sc;
            if (sc->piece_mark[e->piece] != sc->mark && !rules__skipped(q, e->piece)) {
                sc->piece_mark[e->piece] = sc->mark;
                g->slow[q->nslow++] = e->piece;
            }
        }
    }
    return 0;
}

int rules_grid_blocked(struct rules_grid *g, const rules_scenario *sc, rules_pt a, rules_pt b, const int *skip,
                       int nskip, const int *skip2, int nskip2)
{
    if (g->nedges == 0 || (a.x == b.x && a.y == b.y))
        return 0;
    if (++g->cur == 0) {
        memset(g->stamp, 0, (size_t)g->nedges * sizeof *g->stamp);
        g->cur = 1;
    }
    rules_scenario *msc = (rules_scenario *)sc;
    if (++msc->mark == 0) {
        memset(msc->piece_mark, 0, sc->npieces * sizeof *msc->piece_mark);
        msc->mark = 1;
    }
    rules__query q = {sc, a, b, skip, skip2, nskip, nskip2, 0};
    if (rules__walk(g, a, b, rules__query_cell, &q))
        return 1;
    for (int i = 0; i < q.nslow; i++)
        if (rules_piece_cuts(&sc->pieces[g->slow[i]], a, b))
            return 1;
    return 0;
}

typedef struct rules__ray {
    double px, py, dx, dy, tmax, best;
    rules_pt ignore;
    const int *skip;
    int nskip;
    int col;
    double col_exit;
} rules__ray;

static int rules__ray_cell(struct rules_grid *g, int cell, void *ctx)
{
    rules__ray *r = ctx;
    int col = cell % g->nx;
    if (col != r->col) {
        if (r->col >= 0 && r->best <= r->col_exit)
            return 1; /* every later hit lies further along */
        r->col = col;
        double X0 = g->x0 + col * g->cell, X1 = X0 + g->cell;
        if (r->dx == 0 || (r->dx > 0 && col == g->nx - 1) || (r->dx < 0 && col == 0))
            r->col_exit = INFINITY; /* the ray stays in this column */
        else
            r->col_exit = ((r->dx > 0 ? X1 : X0) - r->px) / r->dx;
    }
    for (uint32_t k = g->start[cell]; k < g->start[cell + 1]; k++) {
        const rules_gedge *e = &g->edges[k];
        if (g->stamp[e->id] == g->cur)
            continue;
        g->stamp[e->id] = g->cur;
        if ((e->a.x == r->ignore.x && e->a.y == r->ignore.y) || (e->b.x == r->ignore.x && e->b.y == r->ignore.y))
            continue;
        double ex = (double)(e->b.x - e->a.x), ey = (double)(e->b.y - e->a.y);
        double den = r->dx * ey - r->dy * ex;
        if (den == 0)
            continue;
        double qx = (double)e->a.x - r->px, qy = (double)e->a.y - r->py;
        double t = (qx * ey - qy * ex) / den, u = (qx * r->dy - qy * r->dx) / den;
        if (t > 1e-9 && t < r->best && u >= 0 && u <= 1) {
            int skipped = 0;
            for (int s = 0; s < r->nskip; s++)
                skipped |= r->skip[s] == e->piece;
            if (!skipped)
                r->best = t;
        }
    }
    return 0;
}

double rules_grid_ray(struct rules_grid *g, double px, double py, double dx, double dy, double tmax, rules_pt ignore,
                      const int *skip, int nskip)
{
    if (g->nedges == 0)
        return tmax;
    if (++g->cur == 0) {
        memset(g->stamp, 0, (size_t)g->nedges * sizeof *g->stamp);
        g->cur = 1;
    }
    rules__ray r = {px, py, dx, dy, tmax, tmax, ignore, skip, nskip, -1, 0};
    rules_pt a = {llround(px), llround(py)}, b = {llround(px + dx * tmax), llround(py + dy * tmax)};
    rules__walk(g, a, b, rules__ray_cell, &r);
    return r.best;
}
