/* grid.c - a uniform grid over the LOS-blocking terrain edges, so a line of
 * sight tests only the edges near it.
 *
 * Cells are squares of an integer size S (fixed-point units); cell (i, j)
 * is the closed box [x0 + iS, x0 + (i+1)S] x [y0 + jS, y0 + (j+1)S].  An edge
 * is stored in every cell whose closed box it meets, decided exactly (the
 * box overlaps the edge's bounding box and its corners are not all strictly
 * on one side of the edge's line).  A line of sight walks its major axis
 * cell line by cell line (every column between its ends when it is more
 * horizontal than vertical), and in each line takes the rows its y-range
 * covers (at most two, widened by 2 units against rounding): closed boxes
 * covering the whole segment.  The edges are stored twice, by column and by
 * row, so those cells' edges are one contiguous run.  Every edge that
 * shares a point with the segment is thus met, and the exact per-edge
 * predicates decide: the answer never depends on the grid.
 *
 * Before walking, a small cache of recent blockers (per direction sector,
 * for the latest source point) is tried with the same exact test: any edge
 * of a non-skipped piece that the segment crosses properly blocks it, so a
 * cache hit gives the answer the walk would. */
#include "rules_scenario.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>



/* One stored edge a-b: a, b - a and k = cross(b - a, a).  |coordinates|
 * <= 2e8 fit in int32; every product is taken in int64 (|product| < 2^58). */
typedef struct rules_gedge {
    int32_t ax, ay, ex, ey;
    int64_t k;
} rules_gedge;

/* The edges by cell in one cell order: cell (i, j) is number i * nv + j
 * where i is the cell's index on the "major" axis of the layout. */
#ifndef RULES__NDIR
#define RULES__NDIR 256 /* direction sectors of the blocker cache */
#endif

typedef struct rules_glayout {
    uint32_t *start; /* ncells + 1 offsets */
    rules_gedge *edges;
    int32_t *piece;  /* piece of each stored edge */
    uint32_t *eid;   /* distinct edge id of each stored edge (rays) */
} rules_glayout;

struct rules_grid {
    int64_t x0, y0, S;   /* origin and cell size, fixed-point units */
    double cell, inv_cell;
    int nx, ny;
    rules_glayout L[2];  /* [0]: cells by column (x-major lines of sight),
                            [1]: cells by row (y-major ones, rays) */
    int nedges;          /* distinct edges */
    unsigned *stamp;     /* per distinct edge */
    unsigned cur;
    int *slow;           /* pieces to decide exactly, scratch */
    /* Blocker cache: for the latest source point, the edge that last
     * blocked a line of sight in each direction sector.  Lines of sight
     * from one place in nearby directions are often blocked by the same
     * edge; a cached edge is only a candidate, tried with the same exact
     * test before the walk. */
    struct rules_gcache {
        double sx, sy; /* the source point */
        uint32_t gen;
        unsigned uses; /* queries from it so far */
        struct rules_gcand {
            rules_gedge e;
            int32_t piece;
            uint32_t gen;
        } cand[RULES__NDIR];
    } los, rays; /* lines of sight; rays of the visibility polygon */
};

static int rules__grid_blocks(const rules_piece *pc) { return pc->p.blocks_los && !rules_props_deep(&pc->p); }

/* floor(a / S) for the grid's S, without a division: a float guess, fixed
 * up exactly. */
static int64_t rules__cellof(const struct rules_grid *g, int64_t a)
{
    int64_t c = (int64_t)floor((double)a * g->inv_cell);
    while (c * g->S > a)
        c--;
    while ((c + 1) * g->S <= a)
        c++;
    return c;
}

/* Range of cell indices on one axis whose closed extent meets [lo, hi]
 * (lo, hi relative to the grid origin). */
static void rules__cell_range(const struct rules_grid *g, int64_t lo, int64_t hi, int n, int *c0, int *c1)
{
    int64_t a = rules__cellof(g, lo), b = rules__cellof(g, hi);
    if (a * g->S == lo)
        a--; /* lo on a boundary: the cell before touches it too */
    *c0 = a < 0 ? 0 : a >= n ? n : (int)a;
    *c1 = b < 0 ? -1 : b >= n ? n - 1 : (int)b;
}

/* The closed segment a-b meets the closed box of cell (i, j); the bounding
 * boxes overlap already (separating axes: x, y and the segment's normal). */
static int rules__edge_meets_cell(const struct rules_grid *g, rules_pt a, rules_pt b, int i, int j)
{
    int64_t X0 = g->x0 + i * g->S, Y0 = g->y0 + j * g->S, X1 = X0 + g->S, Y1 = Y0 + g->S;
    rules_pt c[4] = {{X0, Y0}, {X1, Y0}, {X1, Y1}, {X0, Y1}};
    int npos = 0, nneg = 0;
    for (int k = 0; k < 4; k++) {
        int o = rules_orient(a, b, c[k]);
        npos += o > 0;
        nneg += o < 0;
    }
    return npos < 4 && nneg < 4; /* not strictly on one side */
}

struct rules_grid *rules_grid_create(const rules_scenario *sc)
{
    struct rules_grid *g = calloc(1, sizeof *g);
    uint32_t *fill[2] = {NULL, NULL};
    if (!g)
        return NULL;
    int64_t lx = 0, ly = 0, hx = rules_fx(sc->width_in), hy = rules_fx(sc->depth_in);
    int n = 0;
    for (size_t i = 0; i < sc->npieces; i++) {
        const rules_piece *pc = &sc->pieces[i];
        if (!rules__grid_blocks(pc))
            continue;
        n += pc->closed ? pc->n : pc->n - 1;
        if (pc->lo.x < lx)
            lx = pc->lo.x;
        if (pc->lo.y < ly)
            ly = pc->lo.y;
        if (pc->hi.x > hx)
            hx = pc->hi.x;
        if (pc->hi.y > hy)
            hy = pc->hi.y;
    }
    /* about one edge per cell, at least 1/4", at most 2^20 cells */
    double area = (double)(hx - lx) * (double)(hy - ly);
    double cell = sqrt(area / (n > 0 ? n : 1)) * 0.8;
    if (cell < 2500)
        cell = 2500;
    while (((double)(hx - lx) / cell + 1) * ((double)(hy - ly) / cell + 1) > 1048576.0)
        cell *= 1.5;
    g->S = (int64_t)ceil(cell);
    g->x0 = lx;
    g->y0 = ly;
    g->cell = (double)g->S;
    g->inv_cell = 1.0 / g->cell;
    g->nx = (int)((hx - lx) / g->S) + 1;
    g->ny = (int)((hy - ly) / g->S) + 1;
    g->nedges = n;
    size_t ncell = (size_t)g->nx * g->ny;
    g->stamp = calloc((size_t)n + 1, sizeof *g->stamp);
    g->slow = calloc(sc->npieces + 1, sizeof *g->slow);
    if (!g->stamp || !g->slow)
        goto fail;
    for (int l = 0; l < 2; l++) {
        g->L[l].start = calloc(ncell + 1, sizeof *g->L[l].start);
        fill[l] = calloc(ncell + 1, sizeof *fill[l]);
        if (!g->L[l].start || !fill[l])
            goto fail;
    }
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            for (int l = 0; l < 2; l++) {
                rules_glayout *L = &g->L[l];
                for (size_t c = 0; c < ncell; c++)
                    L->start[c + 1] += L->start[c];
                size_t m = (size_t)L->start[ncell] + 1;
                L->edges = calloc(m, sizeof *L->edges);
                L->piece = calloc(m, sizeof *L->piece);
                L->eid = calloc(m, sizeof *L->eid);
                if (!L->edges || !L->piece || !L->eid)
                    goto fail;
                memcpy(fill[l], L->start, ncell * sizeof *fill[l]);
            }
        uint32_t id = 0;
        for (size_t i = 0; i < sc->npieces; i++) {
            const rules_piece *pc = &sc->pieces[i];
            if (!rules__grid_blocks(pc))
                continue;
            int ne = pc->closed ? pc->n : pc->n - 1;
            for (int k = 0; k < ne; k++, id++) {
                rules_pt a = pc->v[k], b = pc->v[(k + 1) % pc->n];
                int i0, i1, j0, j1;
                rules__cell_range(g, (a.x < b.x ? a.x : b.x) - g->x0, (a.x < b.x ? b.x : a.x) - g->x0, g->nx, &i0,
                                  &i1);
                rules__cell_range(g, (a.y < b.y ? a.y : b.y) - g->y0, (a.y < b.y ? b.y : a.y) - g->y0, g->ny, &j0,
                                  &j1);
                for (int jj = j0; jj <= j1; jj++)
                    for (int ii = i0; ii <= i1; ii++) {
                        if (!rules__edge_meets_cell(g, a, b, ii, jj))
                            continue;
                        size_t c[2] = {(size_t)ii * g->ny + jj, (size_t)jj * g->nx + ii};
                        for (int l = 0; l < 2; l++) {
                            rules_glayout *L = &g->L[l];
                            if (pass == 0) {
                                L->start[c[l] + 1]++;
                                continue;
                            }
                            uint32_t at = fill[l][c[l]]++;
                            rules_gedge e = {(int32_t)a.x, (int32_t)a.y, (int32_t)(b.x - a.x), (int32_t)(b.y - a.y),
                                             (b.x - a.x) * a.y - (b.y - a.y) * a.x};
                            L->edges[at] = e;
                            L->piece[at] = (int32_t)i;
                            L->eid[at] = id;
                        }
                    }
            }
        }
    }
    free(fill[0]);
    free(fill[1]);
    return g;
fail:
    free(fill[0]);
    free(fill[1]);
    rules_grid_destroy(g);
    return NULL;
}

void rules_grid_destroy(struct rules_grid *g)
{
    if (!g)
        return;
    for (int l = 0; l < 2; l++) {
        free(g->L[l].start);
        free(g->L[l].edges);
        free(g->L[l].piece);
        free(g->L[l].eid);
    }
    free(g->stamp);
    free(g->slow);
    free(g);
}

static int rules__in_list(const int *l, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (l[i] == v)
            return 1;
    return 0;
}

/* ---- blocker cache ------------------------------------------------------ */

/* The direction sector of (dx, dy) seen from src; a new source empties the
 * cache. */
static int rules__sector_of(double dx, double dy)
{
    double t = dy / (fabs(dx) + fabs(dy));
    double pa = dx >= 0 ? t : dy >= 0 ? 2 - t : -2 - t; /* pseudo-angle in (-2, 2] */
    int s = (int)((pa + 2) * (RULES__NDIR / 4.0));
    return s < 0 ? 0 : s >= RULES__NDIR ? RULES__NDIR - 1 : s;
}

static int rules__cache_sector(struct rules_gcache *c, double sx, double sy, double dx, double dy)
{
    if (sx != c->sx || sy != c->sy || c->gen == 0) {
        c->sx = sx;
        c->sy = sy;
        c->uses = 0;
        if (++c->gen == 0) {
            memset(c->cand, 0, sizeof c->cand);
            c->gen = 1;
        }
    }
    c->uses++;
    return rules__sector_of(dx, dy);
}

/* Candidate n (0: the sector's own, 1 and 2: its neighbours'), or NULL. */
static const struct rules_gcand *rules__cache_get(const struct rules_gcache *c, int sector, int n)
{
    const struct rules_gcand *cd = &c->cand[(sector + (n == 0 ? 0 : n == 1 ? 1 : RULES__NDIR - 1)) % RULES__NDIR];
    return cd->gen == c->gen ? cd : NULL;
}

static void rules__cache_put(struct rules_gcache *c, int sector, const rules_gedge *e, int piece)
{
    struct rules_gcand *cd = &c->cand[sector];
    cd->e = *e;
    cd->piece = piece;
    cd->gen = c->gen;
}

/* A blocker found by a walk: also a candidate for the empty sectors its
 * edge spans as seen from the source (it blocks part of them at least) -
 * once the source has been asked about more than once (queries in random
 * order would only pay for it). */
static void rules__cache_put_span(struct rules_gcache *c, int sector, const rules_gedge *e, int piece)
{
    rules__cache_put(c, sector, e, piece);
    if (c->uses < 2)
        return;
    int s1 = rules__sector_of((double)e->ax - c->sx, (double)e->ay - c->sy);
    int s2 = rules__sector_of((double)e->ax + e->ex - c->sx, (double)e->ay + e->ey - c->sy);
    int d = (s2 - s1 + RULES__NDIR) % RULES__NDIR;
    if (d > RULES__NDIR / 2) { /* the short way round, from s2 */
        int t = s1;
        s1 = s2;
        s2 = t;
        d = RULES__NDIR - d;
    }
    for (int k = 0; k <= d; k++) {
        struct rules_gcand *cd = &c->cand[(s1 + k) % RULES__NDIR];
        if (cd->gen != c->gen) {
            cd->e = *e;
            cd->piece = piece;
            cd->gen = c->gen;
        }
    }
}

typedef struct rules__los {
    rules_scenario *sc;
    rules_pt a, b;
    const int *skip, *skip2;
    int nskip, nskip2;
    int nslow;
    double over; /* pieces lower than this are seen over */
} rules__los;

/* A piece the line does not meet: in a skip list, or lower than `over`. */
static inline int rules__skipped(const rules_scenario *sc, int piece, const int *skip, int nskip, const int *skip2,
                                 int nskip2, double over)
{
    return (over > 0 && sc->pieces[piece].p.height_in < over) || rules__in_list(skip, nskip, piece) ||
           rules__in_list(skip2, nskip2, piece);
}

/* The rare case of an edge whose ends are not both strictly on one side of
 * the line a-b (nor a and b both on one side of the edge's line): decide it
 * exactly as rules_piece_cuts would.  1 when the edge blocks. */
static __attribute__((noinline)) int rules__los_rare(struct rules_grid *g, const rules_glayout *L, uint32_t k,
                                                       rules__los *q, int64_t o1, int64_t o2, int64_t o3, int64_t o4)
{
    const rules_gedge *e = &L->edges[k];
    int piece = L->piece[k];
    rules_pt ea = {e->ax, e->ay}, eb = {(int64_t)e->ax + e->ex, (int64_t)e->ay + e->ey};
    if (o1 != 0 && o2 != 0) {
        /* the ends on opposite sides: a proper crossing unless a or b lies
         * on the edge's line */
        return ((o1 > 0) != (o2 > 0)) && o3 != 0 && o4 != 0 && (o3 > 0) != (o4 > 0) &&
               !rules__skipped(q->sc, piece, q->skip, q->nskip, q->skip2, q->nskip2, q->over);
    }
    /* an end of the edge on the segment: the piece is decided exactly */
    if (((o1 == 0 && rules_geom_between_closed(q->a, q->b, ea)) ||
         (o2 == 0 && rules_geom_between_closed(q->a, q->b, eb))) &&
        q->sc->piece_mark[piece] != q->sc->mark &&
        !rules__skipped(q->sc, piece, q->skip, q->nskip, q->skip2, q->nskip2, q->over)) {
        q->sc->piece_mark[piece] = q->sc->mark;
        g->slow[q->nslow++] = piece;
    }
    return 0;
}

static int rules__grid_walk(struct rules_grid *g, const rules_scenario *sc, rules_pt a, rules_pt b, const int *skip,
                            int nskip, const int *skip2, int nskip2, double over, int sector);

static inline int rules__grid_blocked(struct rules_grid *g, const rules_scenario *sc, rules_pt a, rules_pt b,
                                      const int *skip, int nskip, const int *skip2, int nskip2, double over)
{
    if (g->nedges == 0 || (a.x == b.x && a.y == b.y))
        return 0;
    const int64_t dx = b.x - a.x, dy = b.y - a.y, C = dx * a.y - dy * a.x;
    /* The blocker cache: this direction sector's candidate, then its
     * neighbours' (an edge seen from nearby often spans several sectors). */
    int sector = rules__cache_sector(&g->los, (double)a.x, (double)a.y, (double)dx, (double)dy);
    for (int n = 0; n < 3; n++) {
        const struct rules_gcand *cd = rules__cache_get(&g->los, sector, n);
        if (!cd)
            continue;
        const rules_gedge *e = &cd->e;
        int64_t D = dx * e->ey - dy * e->ex;
        int64_t o1 = dx * e->ay - dy * e->ax - C, o2 = o1 + D;
        int64_t o3 = (int64_t)e->ex * a.y - (int64_t)e->ey * a.x - e->k, o4 = o3 - D;
        if (((o1 ^ o2) & (o3 ^ o4)) < 0 && o1 != 0 && o2 != 0 && o3 != 0 && o4 != 0 &&
            !rules__skipped(sc, cd->piece, skip, nskip, skip2, nskip2, over))
            return 1; /* a proper crossing, as the walk would find */
    }
    return rules__grid_walk(g, sc, a, b, skip, nskip, skip2, nskip2, over, sector);
}

int rules_grid_blocked(struct rules_grid *g, const rules_scenario *sc, rules_pt a, rules_pt b, const int *skip,
                       int nskip, const int *skip2, int nskip2, double over)
{
    return rules__grid_blocked(g, sc, a, b, skip, nskip, skip2, nskip2, over);
}

int rules_grid_los_figures(rules_scenario *sc, int i, int j)
{
    const rules_figure *fi = &sc->figs[i], *fj = &sc->figs[j];
    rules_pt a = rules_fire_origin(sc, fi), b = fj->shape.c;
    if (i == j || (a.x == b.x && a.y == b.y))
        return 1;
    return !rules__grid_blocked(sc->grid, sc, a, b, fi->inside, fi->ninside, fj->inside, fj->ninside,
                                rules_sight_over(fi, fj));
}

/* Walk the major axis u line by line (columns when |dx| >= |dy|); in each
 * line the segment spans a v-range of at most one cell, so the cells to
 * test (one or two, with a slack of 2 units for rounding) are consecutive
 * in the layout: one run of edges per line.  Kept out of line so that a
 * cache hit stays cheap. */
static __attribute__((noinline)) int rules__grid_walk(struct rules_grid *g, const rules_scenario *sc, rules_pt a,
                                                        rules_pt b, const int *skip, int nskip, const int *skip2,
                                                        int nskip2, double over, int sector)
{
    const int64_t dx = b.x - a.x, dy = b.y - a.y, C = dx * a.y - dy * a.x;
    rules_scenario *msc = (rules_scenario *)sc;
    if (++msc->mark == 0) {
        memset(msc->piece_mark, 0, sc->npieces * sizeof *msc->piece_mark);
        msc->mark = 1;
    }
    rules__los q = {msc, a, b, skip, skip2, nskip, nskip2, 0, over};
    const int xmaj = llabs(dx) >= llabs(dy);
    const rules_glayout *L = &g->L[xmaj ? 0 : 1];
    const int nu = xmaj ? g->nx : g->ny, nv = xmaj ? g->ny : g->nx;
    const int64_t au = xmaj ? a.x - g->x0 : a.y - g->y0, av = xmaj ? a.y - g->y0 : a.x - g->x0;
    const int64_t bu = xmaj ? b.x - g->x0 : b.y - g->y0, bv = xmaj ? b.y - g->y0 : b.x - g->x0;
    const int64_t S = g->S;
    int64_t ca = rules__cellof(g, au), cb = rules__cellof(g, bu);
    if ((ca < 0 && cb < 0) || (ca >= nu && cb >= nu))
        return 0;
    const int64_t step = cb >= ca ? 1 : -1;
    const double k = (double)(bv - av) / (double)(bu - au), inv = g->inv_cell, fav = (double)av;
    /* v where the segment enters the line: at a, or at the grid's edge */
    double vin = fav;
    if (ca < 0 || ca >= nu) {
        ca = ca < 0 ? 0 : nu - 1;
        vin = fav + k * (double)((step > 0 ? ca : ca + 1) * S - au);
    }
    cb = cb < 0 ? 0 : cb >= nu ? nu - 1 : cb;
    /* u of the boundary where the segment leaves line c, relative to a */
    double uout = (double)((step > 0 ? ca + 1 : ca) * S - au), du = (double)(step * S);
    const uint32_t *start = L->start + ca * nv;
    const ptrdiff_t sstep = step * nv;
    const rules_gedge *E = L->edges;
    for (int64_t n = (cb - ca) * step; n >= 0; n--) {
        double vout = n == 0 ? (double)bv : fav + k * uout;
        double vlo = (vin < vout ? vin : vout) - 2.0, vhi = (vin < vout ? vout : vin) + 2.0;
        /* rows, clamped: at least one cell, extra cells are harmless */
        int r0 = (int)(vlo * inv), r1 = (int)(vhi * inv);
        r0 = r0 < 0 ? 0 : r0;
        r0 = r0 >= nv ? nv - 1 : r0;
        r1 = r1 < 0 ? 0 : r1;
        r1 = r1 >= nv ? nv - 1 : r1;
        for (uint32_t i = start[r0], end = start[r1 + 1]; i < end; i++) {
            const rules_gedge *e = &E[i];
            /* o1, o2: the edge's ends against the line a-b (rules_orient(a,
             * b, .)); o3, o4: a and b against the edge's line */
            int64_t D = dx * e->ey - dy * e->ex;
            int64_t o1 = dx * e->ay - dy * e->ax - C, o2 = o1 + D;
            int64_t o3 = (int64_t)e->ex * a.y - (int64_t)e->ey * a.x - e->k, o4 = o3 - D;
            if ((((o1 ^ o2) & (o3 ^ o4)) < 0 || o1 == 0 || o2 == 0) && rules__los_rare(g, L, i, &q, o1, o2, o3, o4)) {
                rules__cache_put_span(&g->los, sector, e, L->piece[i]);
                return 1;
            }
        }
        start += sstep;
        uout += du;
        vin = vout;
    }
    for (int i = 0; i < q.nslow; i++)
        if (rules_piece_cuts(&sc->pieces[g->slow[i]], a, b))
            return 1;
    return 0;
}

/* ---- rays (inexact, for drawing) ---------------------------------------- */

static int rules__clampi(double v, int hi)
{
    if (!(v >= 0))
        return 0;
    if (v >= hi)
        return hi - 1;
    return (int)v;
}

/* Visit every cell the segment a-b may touch: columns from a's towards b's,
 * rows likewise, widened by a small slack.  fn returns nonzero to stop; the
 * walk returns that value. */
typedef int (*rules__cell_fn)(struct rules_grid *g, int cell, void *ctx);

static int rules__walk(struct rules_grid *g, rules_pt a, rules_pt b, rules__cell_fn fn, void *ctx)
{
    double ax = (double)a.x, ay = (double)a.y, bx = (double)b.x, by = (double)b.y;
    double slack = 2.0 + 1e-9 * (fabs(ax) + fabs(ay) + fabs(bx) + fabs(by));
    double inv = g->inv_cell, gx0 = (double)g->x0, gy0 = (double)g->y0;
    int ca = rules__clampi((ax - gx0) * inv, g->nx), cb = rules__clampi((bx - gx0) * inv, g->nx);
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
            double X0 = gx0 + c * g->cell, X1 = X0 + g->cell;
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
        int ra = rules__clampi((ya - sl - gy0) * inv, g->ny);
        int rb = rules__clampi((yb + sl - gy0) * inv, g->ny);
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

typedef struct rules__ray {
    double px, py, dx, dy, tmax, best;
    rules_pt ignore;
    const int *skip;
    int nskip;
    int col;
    double col_exit;
    double any_below; /* > 0: stop at the first hit before this t */
    const rules_gedge *hit_e;
    int hit_piece;
} rules__ray;

/* The ray meets the edge at t, 1e-9 < t < best (edges with an end at
 * `ignore` and skipped pieces do not count). */
static inline int rules__ray_hits(const rules__ray *r, const rules_gedge *e, int piece, double *tout)
{
    if ((e->ax == r->ignore.x && e->ay == r->ignore.y) ||
        ((int64_t)e->ax + e->ex == r->ignore.x && (int64_t)e->ay + e->ey == r->ignore.y))
        return 0;
    double ex = (double)e->ex, ey = (double)e->ey;
    double den = r->dx * ey - r->dy * ex;
    if (den == 0)
        return 0;
    double qx = (double)e->ax - r->px, qy = (double)e->ay - r->py;
    double tn = qx * ey - qy * ex, un = qx * r->dy - qy * r->dx;
    /* t = tn / den <= 0 or u = un / den < 0: the quotients' signs, known
     * without dividing (the same decision as the division's) */
    if ((den > 0 ? !(tn > 0) || un < 0 : !(tn < 0) || un > 0))
        return 0;
    double t = tn / den, u = un / den;
    if (t > 1e-9 && t < r->best && u >= 0 && u <= 1 && !rules__in_list(r->skip, r->nskip, piece)) {
        *tout = t;
        return 1;
    }
    return 0;
}

static int rules__ray_cell(struct rules_grid *g, int cell, void *ctx)
{
    rules__ray *r = ctx;
    int col = cell % g->nx;
    if (col != r->col) {
        if (r->col >= 0 && r->best <= r->col_exit)
            return 1; /* every later hit lies further along */
        r->col = col;
        double X0 = (double)g->x0 + col * g->cell, X1 = X0 + g->cell;
        if (r->dx == 0 || (r->dx > 0 && col == g->nx - 1) || (r->dx < 0 && col == 0))
            r->col_exit = INFINITY; /* the ray stays in this column */
        else
            r->col_exit = ((r->dx > 0 ? X1 : X0) - r->px) / r->dx;
    }
    const rules_glayout *L = &g->L[1];
    for (uint32_t k = L->start[cell]; k < L->start[cell + 1]; k++) {
        const rules_gedge *e = &L->edges[k];
        if (g->stamp[L->eid[k]] == g->cur)
            continue;
        g->stamp[L->eid[k]] = g->cur;
        double t;
        if (rules__ray_hits(r, e, L->piece[k], &t)) {
            r->best = t;
            if (t < r->any_below) {
                r->hit_e = e;
                r->hit_piece = L->piece[k];
                return 1;
            }
        }
    }
    return 0;
}

/* The reference walk: rules__walk's cells, one callback per cell. */
static void rules__ray_walk_ref(struct rules_grid *g, rules__ray *r)
{
    if (++g->cur == 0) {
        memset(g->stamp, 0, (size_t)g->nedges * sizeof *g->stamp);
        g->cur = 1;
    }
    rules_pt a = {llround(r->px), llround(r->py)};
    rules_pt b = {llround(r->px + r->dx * r->tmax), llround(r->py + r->dy * r->tmax)};
    rules__walk(g, a, b, rules__ray_cell, r);
}

/* The same search by runs of cells, as rules_grid_blocked walks: the major
 * axis line by line, the rows (columns) the ray's range covers in each,
 * widened by 2 units; in nearest-hit mode it stops after the line where
 * the best hit so far lies before the line's far side, in any-hit mode at
 * the first hit before any_below.  An edge met twice is harmless. */
static void rules__ray_walk(struct rules_grid *g, rules__ray *r)
{
    double ax = r->px, ay = r->py, bx = r->px + r->dx * r->tmax, by = r->py + r->dy * r->tmax;
    int xmaj = fabs(bx - ax) >= fabs(by - ay);
    const rules_glayout *L = &g->L[xmaj ? 0 : 1];
    const int nu = xmaj ? g->nx : g->ny, nv = xmaj ? g->ny : g->nx;
    const double gu = (double)(xmaj ? g->x0 : g->y0), gv = (double)(xmaj ? g->y0 : g->x0);
    const double au = (xmaj ? ax : ay) - gu, av = (xmaj ? ay : ax) - gv;
    const double bu = (xmaj ? bx : by) - gu, bv = (xmaj ? by : bx) - gv;
    const double du = xmaj ? r->dx : r->dy; /* u grows by du per unit of t */
    const double S = g->cell, inv = g->inv_cell;
    double fca = floor(au * inv), fcb = floor(bu * inv);
    if ((fca < 0 && fcb < 0) || (fca >= nu && fcb >= nu))
        return;
    int64_t ca = fca < 0 ? -1 : fca >= nu ? nu : (int64_t)fca, cb = fcb < 0 ? 0 : fcb >= nu ? nu - 1 : (int64_t)fcb;
    const int64_t step = cb > ca || (cb == ca && bu >= au) ? 1 : -1;
    const double k = bu != au ? (bv - av) / (bu - au) : 0;
    double vin = av;
    if (ca < 0 || ca >= nu) {
        ca = ca < 0 ? 0 : nu - 1;
        vin = av + k * ((double)(step > 0 ? ca : ca + 1) * S - au);
    }
    const uint32_t *start = L->start + ca * nv;
    for (int64_t n = (cb - ca) * step;; n--) {
        double uexit = (double)(step > 0 ? ca + 1 : ca) * S;
        double vout = n == 0 ? bv : av + k * (uexit - au);
        double vlo = (vin < vout ? vin : vout) - 2.0, vhi = (vin < vout ? vout : vin) + 2.0;
        double f0 = vlo * inv, f1 = vhi * inv, top = nv - 1;
        int r0 = f0 <= 0 ? 0 : f0 >= top ? nv - 1 : (int)f0;
        int r1 = f1 <= 0 ? 0 : f1 >= top ? nv - 1 : (int)f1;
        for (uint32_t i = start[r0], end = start[r1 + 1]; i < end; i++) {
            double t;
            if (rules__ray_hits(r, &L->edges[i], L->piece[i], &t)) {
                r->best = t;
                if (t < r->any_below) {
                    r->hit_e = &L->edges[i];
                    r->hit_piece = L->piece[i];
                    return;
                }
            }
        }
        if (n <= 0)
            return;
        if (du != 0 && r->best <= (uexit - au) / du)
            return; /* every later hit lies further along */
        start += step * nv;
        ca += step;
        vin = vout;
    }
}

double rules_grid_ray(struct rules_grid *g, double px, double py, double dx, double dy, double tmax, rules_pt ignore,
                      const int *skip, int nskip)
{
    if (g->nedges == 0)
        return tmax;
    rules__ray r = {px, py, dx, dy, tmax, tmax, ignore, skip, nskip, -1, 0, 0, NULL, 0};
    rules__ray_walk_ref(g, &r);
    return r.best;
}

double rules_grid_ray_fast(struct rules_grid *g, double px, double py, double dx, double dy, double tmax,
                           rules_pt ignore, const int *skip, int nskip)
{
    if (g->nedges == 0)
        return tmax;
    rules__ray r = {px, py, dx, dy, tmax, tmax, ignore, skip, nskip, -1, 0, 0, NULL, 0};
    rules__ray_walk(g, &r);
    return r.best;
}

int rules_grid_ray_hidden(struct rules_grid *g, double px, double py, double dx, double dy, rules_pt ignore,
                          const int *skip, int nskip)
{
    if (g->nedges == 0)
        return 0;
    rules__ray r = {px, py, dx, dy, 1.0, 1.0, ignore, skip, nskip, -1, 0, 1 - 1e-9, NULL, 0};
    int sector = rules__cache_sector(&g->rays, px, py, dx, dy);
    double t;
    for (int n = 0; n < 3; n++) {
        const struct rules_gcand *cd = rules__cache_get(&g->rays, sector, n);
        if (cd && rules__ray_hits(&r, &cd->e, cd->piece, &t) && t < r.any_below)
            return 1; /* a hit the walk would find */
    }
    rules__ray_walk(g, &r);
    if (!r.hit_e)
        return 0;
    rules__cache_put_span(&g->rays, sector, r.hit_e, r.hit_piece);
    return 1;
}
