/* render.c - rnd_render and rnd_tag_unoccluded: per-sample ray casting
 * through the exact inverse of the lens distortion, a per-height grid of
 * tags in table space, box-filtered supersampling, separable Gaussian blur
 * and counter-based (thread-order independent) noise.
 *
 * Surfaces, highest first: occluders and tag levels (all tags of one
 * height share a level with its own grid), each a flat plane z = -height;
 * raised round bases also have a side wall down to the felt; then the felt
 * (z = 0, inside the table) or the floor.  A sample takes the albedo of the
 * texture cell it falls in (no filtering), so edges are exact and the
 * supersampling box filter does the anti-aliasing. */
#include "render_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct rnd__ptag {
    double cx, cy, h;
    double rx, ry;       /* printed "right", table xy */
    double dx, dy;       /* printed "down" */
    double inv_cell;     /* cells per inch */
    double half_cells;   /* total_width / 2 */
    double half_print;   /* half the printed edge, inches */
    double base_r, base_r2;
    double bound;        /* radius of a circle holding tag, base and wall */
    int total;
    const uint8_t *cells; /* NULL when textures were not requested */
    int tilted;           /* on a slope: not in a level, cast against its own plane */
    double r3[3], d3[3], n3[3]; /* a tilted tag's axes and normal, heights up */
} rnd__ptag;

typedef struct rnd__level {
    double h;
    int occ;          /* >= 0: an occluder index; -1: a tag level */
    int has_walls;
    double gx0, gy0, ginv;
    int gnx, gny;
    int *start;       /* gnx*gny + 1 */
    int *items;       /* tag indices */
} rnd__level;

typedef struct rnd__occ {
    double x, y, h, c, s, irx, iry, gray;
} rnd__occ;

typedef struct rnd__box {
    double x0, y0, x1, y1;
} rnd__box;

typedef struct rnd__ctx {
    rnd__cam cam;
    const rnd_scene *sc;
    int width, height;
    rnd__ptag *tags;
    int ntags;
    rnd__occ *occ;
    int nocc;
    rnd__level *levels;
    int nlevels;
    double inv_diag;
    rnd__box *pbox;       /* per terrain piece: its extent with the slope */
    int *tilted;          /* indices of tilted tags */
    int ntilted;
    rnd__box tbox;        /* their extent, and heights */
    double th0, th1;
} rnd__ctx;

enum {
    RND__HIT_NONE,
    RND__HIT_OCC,
    RND__HIT_TAG,
    RND__HIT_BASE,
    RND__HIT_WALL,
    RND__HIT_FELT,
    RND__HIT_FLOOR,
    RND__HIT_TERRAIN
};

typedef struct rnd__hit {
    int kind, index;
    double albedo, x, y, h;
} rnd__hit;

#define RND__MAX_WALL_LEVELS 8

static void rnd__ctx_free(rnd__ctx *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->nlevels; i++) {
        free(c->levels[i].start);
        free(c->levels[i].items);
    }
    free(c->levels);
    free(c->tags);
    free(c->occ);
    free(c->pbox);
    free(c->tilted);
    memset(c, 0, sizeof *c);
}

static int rnd__cmp_level(const void *a, const void *b)
{
    const rnd__level *la = a, *lb = b;
    if (la->h != lb->h)
        return la->h > lb->h ? -1 : 1;
    /* occluders before tags at the same height, then by index (stable) */
    if ((la->occ >= 0) != (lb->occ >= 0))
        return la->occ >= 0 ? -1 : 1;
    return la->occ < lb->occ ? -1 : la->occ > lb->occ;
}

static tt_status rnd__build_grid(rnd__ctx *c, rnd__level *lv, tt_err *err)
{
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY, maxb = 0;
    for (int i = 0; i < c->ntags; i++) {
        const rnd__ptag *t = &c->tags[i];
        if (t->h != lv->h || t->tilted)
            continue;
        x0 = fmin(x0, t->cx - t->bound);
        x1 = fmax(x1, t->cx + t->bound);
        y0 = fmin(y0, t->cy - t->bound);
        y1 = fmax(y1, t->cy + t->bound);
        maxb = fmax(maxb, t->bound);
        if (t->base_r > 0 && t->h > 0)
            lv->has_walls = 1;
    }
    double cell = fmax(2 * maxb, 1e-3);
    double ext = fmax(x1 - x0, y1 - y0);
    if (ext / cell > 1024)
        cell = ext / 1024;
    lv->gx0 = x0;
    lv->gy0 = y0;
    lv->ginv = 1 / cell;
    lv->gnx = (int)floor((x1 - x0) / cell) + 1;
    lv->gny = (int)floor((y1 - y0) / cell) + 1;
    size_t ncell = (size_t)lv->gnx * (size_t)lv->gny;
    lv->start = calloc(ncell + 1, sizeof *lv->start);
    if (!lv->start)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory for the renderer's tag grid");
    /* two passes: count, then fill (CSR) */
    for (int pass = 0; pass < 2; pass++) {
        int *fill = NULL;
        if (pass == 1) {
            for (size_t k = 0; k < ncell; k++)
                lv->start[k + 1] += lv->start[k];
            lv->items = malloc(((size_t)lv->start[ncell] + 1) * sizeof *lv->items);
            fill = calloc(ncell, sizeof *fill);
            if (!lv->items || !fill) {
                free(fill);
                return tt_err_set(err, TT_ERR_NOMEM, "out of memory for the renderer's tag grid");
            }
        }
        for (int i = 0; i < c->ntags; i++) {
            const rnd__ptag *t = &c->tags[i];
            if (t->h != lv->h || t->tilted)
                continue;
            int ia = (int)floor((t->cx - t->bound - x0) * lv->ginv);
            int ib = (int)floor((t->cx + t->bound - x0) * lv->ginv);
            int ja = (int)floor((t->cy - t->bound - y0) * lv->ginv);
            int jb = (int)floor((t->cy + t->bound - y0) * lv->ginv);
            ia = ia < 0 ? 0 : ia;
            ja = ja < 0 ? 0 : ja;
            ib = ib >= lv->gnx ? lv->gnx - 1 : ib;
            jb = jb >= lv->gny ? lv->gny - 1 : jb;
            for (int j = ja; j <= jb; j++)
                for (int k = ia; k <= ib; k++) {
                    size_t cell_i = (size_t)j * lv->gnx + k;
                    if (pass == 0)
                        lv->start[cell_i + 1]++;
                    else
                        lv->items[lv->start[cell_i] + fill[cell_i]++] = i;
                }
        }
        free(fill);
    }
    return TT_OK;
}

static tt_status rnd__ctx_build(rnd__ctx *c, const rnd_scene *sc, const rnd_camera *cam, int textures, tt_err *err)
{
    tt_status st;
    memset(c, 0, sizeof *c);
    c->sc = sc;
    c->width = cam->width;
    c->height = cam->height;
    rnd__cam_prepare(cam, &c->cam);
    double diag = hypot(sc->width_in, sc->depth_in);
    c->inv_diag = diag > 0 ? 1 / diag : 0;
    if (sc->ntags < 0 || sc->noccluders < 0 || (sc->ntags > 0 && !sc->tags) || (sc->noccluders > 0 && !sc->occluders))
        return tt_err_set(err, TT_ERR_ARG, "scene has a negative count or a NULL tags/occluders array");
    if (sc->npieces < 0 || sc->npieces > 1000 || (sc->npieces > 0 && !sc->pieces))
        return tt_err_set(err, TT_ERR_ARG, "scene has a negative or huge piece count, or a NULL pieces array");

    c->ntags = sc->ntags;
    c->tags = calloc(sc->ntags > 0 ? (size_t)sc->ntags : 1, sizeof *c->tags);
    c->nocc = sc->noccluders;
    c->occ = calloc(sc->noccluders > 0 ? (size_t)sc->noccluders : 1, sizeof *c->occ);
    c->levels = calloc((size_t)sc->ntags + (size_t)sc->noccluders + 1, sizeof *c->levels);
    c->pbox = calloc(sc->npieces > 0 ? (size_t)sc->npieces : 1, sizeof *c->pbox);
    c->tilted = calloc(sc->ntags > 0 ? (size_t)sc->ntags : 1, sizeof *c->tilted);
    c->tbox = (rnd__box){INFINITY, INFINITY, -INFINITY, -INFINITY};
    c->th0 = INFINITY;
    c->th1 = -INFINITY;
    if (!c->tags || !c->occ || !c->levels || !c->pbox || !c->tilted) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory preparing the scene");
        goto fail;
    }
    for (int i = 0; i < sc->ntags; i++) {
        const rnd_tag *in = &sc->tags[i];
        rnd__ptag *t = &c->tags[i];
        int tw, wb;
        if (textures) {
            rnd__texture tex;
            if ((st = rnd__texture_get(in->family, in->id, &tex, err)) != TT_OK) {
                tt_err_prefix(err, "scene tag %d", i);
                goto fail;
            }
            tw = tex.total_width;
            wb = tex.width_at_border;
            t->cells = tex.cells;
        } else if (!rnd__family_widths(in->family, &tw, &wb)) {
            st = tt_err_set(err, TT_ERR_UNKNOWN, "scene tag %d: unknown tag family '%s'", i, in->family);
            goto fail;
        }
        if (!(in->size_in > 0 && in->size_in < 1e4) || !(in->height_in >= 0 && in->height_in < 1e4) ||
            !(in->base_radius_in >= 0 && in->base_radius_in < 1e4) || !(fabs(in->x) < 1e6) ||
            !(fabs(in->y) < 1e6) || !isfinite(in->facing_deg)) {
            st = tt_err_set(err, TT_ERR_ARG,
                            "scene tag %d (%s id %d): size_in must be > 0, height_in and base_radius_in >= 0, "
                            "position within a million inches and facing finite",
                            i, in->family, in->id);
            goto fail;
        }
        double f = in->facing_deg * (M_PI / 180);
        double cf = cos(f), sf = sin(f);
        t->cx = in->x;
        t->cy = in->y;
        t->h = in->height_in;
        t->rx = -sf;
        t->ry = cf;
        t->dx = -cf;
        t->dy = -sf;
        t->total = tw;
        t->inv_cell = wb / in->size_in;
        t->half_cells = tw * 0.5;
        t->half_print = in->size_in * tw / wb * 0.5;
        t->base_r = in->base_radius_in;
        t->base_r2 = in->base_radius_in * in->base_radius_in;
        t->bound = fmax(t->half_print * M_SQRT2, t->base_r) + 0.05;
        if (!isfinite(in->slope[0]) || !isfinite(in->slope[1]) || hypot(in->slope[0], in->slope[1]) > 10) {
            st = tt_err_set(err, TT_ERR_ARG, "scene tag %d (%s id %d): slope must be finite and under 10 (84 deg)",
                            i, in->family, in->id);
            goto fail;
        }
        if (in->slope[0] != 0 || in->slope[1] != 0) {
            t->tilted = 1;
            rnd__tag_axes(in, t->r3, t->d3, t->n3);
            c->tilted[c->ntilted++] = i;
            c->tbox.x0 = fmin(c->tbox.x0, t->cx - t->bound);
            c->tbox.x1 = fmax(c->tbox.x1, t->cx + t->bound);
            c->tbox.y0 = fmin(c->tbox.y0, t->cy - t->bound);
            c->tbox.y1 = fmax(c->tbox.y1, t->cy + t->bound);
            c->th0 = fmin(c->th0, t->h - t->bound);
            c->th1 = fmax(c->th1, t->h + t->bound);
        }
    }
    for (int i = 0; i < sc->npieces; i++) {
        const rnd_piece *p = &sc->pieces[i];
        int ok = p->npts >= 3 && p->npts <= RND_PIECE_MAX_PTS && p->height_in > 0 && p->height_in < 1e3 &&
                 p->slope_in >= 0 && p->slope_in < 1e3;
        rnd__box b = {INFINITY, INFINITY, -INFINITY, -INFINITY};
        for (int k = 0; ok && k < p->npts; k++) {
            ok = fabs(p->pts[k][0]) < 1e6 && fabs(p->pts[k][1]) < 1e6;
            b.x0 = fmin(b.x0, p->pts[k][0]);
            b.x1 = fmax(b.x1, p->pts[k][0]);
            b.y0 = fmin(b.y0, p->pts[k][1]);
            b.y1 = fmax(b.y1, p->pts[k][1]);
        }
        if (!ok) {
            st = tt_err_set(err, TT_ERR_ARG,
                            "terrain piece %d: needs 3..%d corners within a million inches, height_in in (0, 1000) "
                            "and slope_in in [0, 1000)",
                            i, RND_PIECE_MAX_PTS);
            goto fail;
        }
        double m = p->slope_in + 1e-6;
        c->pbox[i] = (rnd__box){b.x0 - m, b.y0 - m, b.x1 + m, b.y1 + m};
    }
    for (int i = 0; i < sc->noccluders; i++) {
        const rnd_occluder *o = &sc->occluders[i];
        if (!(o->rx > 0) || !(o->ry > 0) || !(o->height_in >= 0) || !(fabs(o->x) < 1e6) || !(fabs(o->y) < 1e6) ||
            !isfinite(o->angle_deg)) {
            st = tt_err_set(err, TT_ERR_ARG, "occluder %d: rx and ry must be > 0, height_in >= 0, position finite", i);
            goto fail;
        }
        double a = o->angle_deg * (M_PI / 180);
        c->occ[i] = (rnd__occ){o->x, o->y, o->height_in, cos(a), sin(a), 1 / o->rx, 1 / o->ry, o->gray};
        c->levels[c->nlevels++] = (rnd__level){.h = o->height_in, .occ = i};
    }
    /* one level per distinct tag height */
    for (int i = 0; i < c->ntags; i++) {
        int seen = c->tags[i].tilted;
        for (int k = 0; k < c->nlevels && !seen; k++)
            seen = c->levels[k].occ < 0 && c->levels[k].h == c->tags[i].h;
        if (!seen)
            c->levels[c->nlevels++] = (rnd__level){.h = c->tags[i].h, .occ = -1};
    }
    qsort(c->levels, (size_t)c->nlevels, sizeof *c->levels, rnd__cmp_level);
    for (int k = 0; k < c->nlevels; k++)
        if (c->levels[k].occ < 0 && (st = rnd__build_grid(c, &c->levels[k], err)) != TT_OK)
            goto fail;
    return TT_OK;
fail:
    rnd__ctx_free(c);
    return st;
}

static inline int rnd__grid_cell(const rnd__level *lv, double x, double y)
{
    double fx = (x - lv->gx0) * lv->ginv, fy = (y - lv->gy0) * lv->ginv;
    if (!(fx >= 0 && fy >= 0 && fx < lv->gnx && fy < lv->gny))
        return -1;
    return (int)fy * lv->gnx + (int)fx;
}

/* Does the segment a->b (table xy, going down from the level's height to a
 * lower plane) enter the wall of one of the level's bases near cell? */
static int rnd__wall_in_cell(const rnd__ctx *c, const rnd__level *lv, int cell, double ax, double ay, double bx,
                             double by)
{
    if (cell < 0)
        return -1;
    double ex = bx - ax, ey = by - ay, ee = ex * ex + ey * ey;
    for (int k = lv->start[cell]; k < lv->start[cell + 1]; k++) {
        const rnd__ptag *t = &c->tags[lv->items[k]];
        if (t->base_r <= 0)
            continue;
        double px = t->cx - ax, py = t->cy - ay;
        double s = ee > 0 ? (px * ex + py * ey) / ee : 0;
        s = s < 0 ? 0 : s > 1 ? 1 : s;
        double qx = px - s * ex, qy = py - s * ey;
        if (qx * qx + qy * qy < t->base_r2)
            return lv->items[k];
    }
    return -1;
}

/* The tag's texture at tag-local (u, v) (inches along printed right and
 * down from its centre): 1 and the hit's albedo if inside the printed tag,
 * 2 on its base's top outside it, else 0. */
static inline int rnd__tag_texel(const rnd__ptag *t, double u, double v, double *albedo)
{
    if (fabs(u) < t->half_print && fabs(v) < t->half_print) {
        int col = (int)floor(u * t->inv_cell + t->half_cells);
        int row = (int)floor(v * t->inv_cell + t->half_cells);
        col = col < 0 ? 0 : col >= t->total ? t->total - 1 : col;
        row = row < 0 ? 0 : row >= t->total ? t->total - 1 : row;
        *albedo = t->cells && !t->cells[row * t->total + col] ? RND__INK_BLACK : RND__PAPER_WHITE;
        return 1;
    }
    if (t->base_r > 0 && u * u + v * v < t->base_r2) {
        *albedo = RND__BASE_TOP;
        return 2;
    }
    return 0;
}

/* Does the xy segment a-b meet the box? (its bounding box does) */
static inline int rnd__seg_box(double ax, double ay, double bx, double by, const rnd__box *b)
{
    return !(fmax(ax, bx) < b->x0 || fmin(ax, bx) > b->x1 || fmax(ay, by) < b->y0 || fmin(ay, by) > b->y1);
}

/* Where the ray, going down from (ax, ay) at the piece's top height (t = 0)
 * to (bx, by) on the felt (t = 1), first meets the piece: t in [0, 1], or
 * -1.  A vertical side is met where the segment first enters the outline;
 * a slope where the ray's height first falls to the ground's (marched in
 * steps of an eighth of the slope, then bisected). */
static double rnd__piece_meet(const rnd_piece *p, double ax, double ay, double bx, double by)
{
    if (rnd__poly_inside(p->pts, p->npts, ax, ay))
        return 0;
    double ex = bx - ax, ey = by - ay, g[2];
    if (!(p->slope_in > 0)) {
        double best = -1;
        for (int i = 0, j = p->npts - 1; i < p->npts; j = i++) {
            double px = p->pts[j][0], py = p->pts[j][1], qx = p->pts[i][0] - px, qy = p->pts[i][1] - py;
            double den = ex * qy - ey * qx;
            if (den == 0)
                continue;
            double t = ((px - ax) * qy - (py - ay) * qx) / den, u = ((px - ax) * ey - (py - ay) * ex) / den;
            if (t >= 0 && t <= 1 && u >= 0 && u <= 1 && (best < 0 || t < best))
                best = t;
        }
        return best;
    }
    double H = p->height_in, len = hypot(ex, ey);
    int n = 4 + (int)fmin(ceil(len * 8 / p->slope_in), 512);
    double t0 = 0;
    for (int k = 1; k <= n; k++) {
        double t1 = (double)k / n;
        if ((1 - t1) * H > rnd__piece_height(p, ax + t1 * ex, ay + t1 * ey, g))
            t0 = t1;
        else {
            for (int it = 0; it < 48; it++) {
                double tm = 0.5 * (t0 + t1);
                if ((1 - tm) * H > rnd__piece_height(p, ax + tm * ex, ay + tm * ey, g))
                    t0 = tm;
                else
                    t1 = tm;
            }
            return t1;
        }
    }
    return -1;
}

/* The first surface of raised terrain or of a tilted tag along the ray
 * C + s d: 1 with hit filled (hit->h its height), or 0. */
static int rnd__cast_raised(const rnd__ctx *c, const double d[3], rnd__hit *hit)
{
    const double *C = c->cam.C;
    const rnd_scene *sc = c->sc;
    double best = -1;
    for (int i = 0; i < sc->npieces; i++) {
        const rnd_piece *p = &sc->pieces[i];
        double H = p->height_in;
        if (H <= best)
            continue; /* nothing on it can be met before the best */
        double sa = (-H - C[2]) / d[2], sb = -C[2] / d[2];
        if (!(sa > 0))
            continue;
        double ax = C[0] + sa * d[0], ay = C[1] + sa * d[1], bx = C[0] + sb * d[0], by = C[1] + sb * d[1];
        if (!rnd__seg_box(ax, ay, bx, by, &c->pbox[i]))
            continue;
        double t = rnd__piece_meet(p, ax, ay, bx, by);
        if (t >= 0 && H * (1 - t) > best) {
            best = H * (1 - t);
            hit->kind = RND__HIT_TERRAIN;
            hit->index = i;
            hit->albedo = p->gray;
            hit->x = ax + t * (bx - ax);
            hit->y = ay + t * (by - ay);
            hit->h = best;
        }
    }
    if (c->ntilted) {
        double sa = (-c->th1 - C[2]) / d[2], sb = (-c->th0 - C[2]) / d[2];
        if (sa > 0 && rnd__seg_box(C[0] + sa * d[0], C[1] + sa * d[1], C[0] + sb * d[0], C[1] + sb * d[1], &c->tbox)) {
            double Cu[3] = {C[0], C[1], -C[2]}, du[3] = {d[0], d[1], -d[2]}; /* heights up */
            for (int k = 0; k < c->ntilted; k++) {
                const rnd__ptag *t = &c->tags[c->tilted[k]];
                const double *n = t->n3;
                double nd = n[0] * du[0] + n[1] * du[1] + n[2] * du[2];
                if (nd == 0)
                    continue;
                double s = (n[0] * (t->cx - Cu[0]) + n[1] * (t->cy - Cu[1]) + n[2] * (t->h - Cu[2])) / nd;
                double q[3] = {Cu[0] + s * du[0] - t->cx, Cu[1] + s * du[1] - t->cy, Cu[2] + s * du[2] - t->h};
                double h = t->h + q[2], albedo;
                if (!(s > 0) || h <= best)
                    continue;
                int in = rnd__tag_texel(t, q[0] * t->r3[0] + q[1] * t->r3[1] + q[2] * t->r3[2],
                                        q[0] * t->d3[0] + q[1] * t->d3[1] + q[2] * t->d3[2], &albedo);
                if (!in)
                    continue;
                best = h;
                hit->kind = in == 1 ? RND__HIT_TAG : RND__HIT_BASE;
                hit->index = c->tilted[k];
                hit->albedo = albedo;
                hit->x = t->cx + q[0];
                hit->y = t->cy + q[1];
                hit->h = h;
            }
        }
    }
    return best >= 0;
}

/* Cast the ray C + s d (s > 0).  Only surfaces strictly above min_h are
 * considered when min_h >= 0 (then a miss returns RND__HIT_NONE); with
 * min_h < 0 the felt / floor end every ray. */
static void rnd__cast(const rnd__ctx *c, const double d[3], double min_h, rnd__hit *hit)
{
    const double *C = c->cam.C;
    struct {
        const rnd__level *lv;
        double x, y;
        int cell;
    } walls[RND__MAX_WALL_LEVELS];
    int nwalls = 0;
    hit->kind = RND__HIT_NONE;
    hit->index = -1;
    hit->albedo = hit->x = hit->y = hit->h = 0;
    if (!(d[2] > 0)) /* looking up or level: nothing but the dark */
        return;
    double inv_dz = 1 / d[2];
    rnd__hit raised;
    int has_raised = (c->sc->npieces || c->ntilted) && rnd__cast_raised(c, d, &raised);
    for (int li = 0; li <= c->nlevels; li++) {
        const rnd__level *lv = li < c->nlevels ? &c->levels[li] : NULL;
        double h = lv ? lv->h : 0;
        int at_raised = has_raised && raised.h > h; /* met before this level */
        if (at_raised)
            h = raised.h, lv = NULL;
        if (min_h >= 0 && h <= min_h)
            h = min_h, lv = NULL, at_raised = 0; /* stop at the plane of interest */
        double s = (-h - C[2]) * inv_dz;
        if (!(s > 0)) /* plane above the camera */
            continue;
        double x = C[0] + s * d[0], y = C[1] + s * d[1];
        /* walls of higher bases between their top and this plane */
        for (int w = 0; w < nwalls; w++) {
            int ti = rnd__wall_in_cell(c, walls[w].lv, walls[w].cell, walls[w].x, walls[w].y, x, y);
            if (ti < 0)
                ti = rnd__wall_in_cell(c, walls[w].lv, rnd__grid_cell(walls[w].lv, x, y), walls[w].x, walls[w].y, x,
                                       y);
            if (ti >= 0) {
                hit->kind = RND__HIT_WALL;
                hit->index = ti;
                hit->albedo = RND__BASE_WALL;
                hit->x = x;
                hit->y = y;
                hit->h = c->tags[ti].h * 0.5;
                return;
            }
        }
        if (!lv) {
            if (at_raised) {
                *hit = raised;
                return;
            }
            if (min_h >= 0)
                return; /* nothing above min_h */
            const rnd_scene *sc = c->sc;
            int in = x >= 0 && y >= 0 && x <= sc->width_in && y <= sc->depth_in;
            hit->kind = in ? RND__HIT_FELT : RND__HIT_FLOOR;
            hit->albedo = in ? sc->felt_gray : sc->floor_gray;
            hit->x = x;
            hit->y = y;
            hit->h = 0;
            return;
        }
        if (lv->occ >= 0) {
            const rnd__occ *o = &c->occ[lv->occ];
            double lx = x - o->x, ly = y - o->y;
            double a = (lx * o->c + ly * o->s) * o->irx, b = (-lx * o->s + ly * o->c) * o->iry;
            if (a * a + b * b <= 1) {
                hit->kind = RND__HIT_OCC;
                hit->index = lv->occ;
                hit->albedo = o->gray;
                hit->x = x;
                hit->y = y;
                hit->h = o->h;
                return;
            }
            continue;
        }
        int cell = rnd__grid_cell(lv, x, y);
        if (cell >= 0) {
            int base = -1;
            for (int k = lv->start[cell]; k < lv->start[cell + 1]; k++) {
                int ti = lv->items[k];
                const rnd__ptag *t = &c->tags[ti];
                double lx = x - t->cx, ly = y - t->cy, albedo;
                double u = lx * t->rx + ly * t->ry, v = lx * t->dx + ly * t->dy;
                int in = rnd__tag_texel(t, u, v, &albedo);
                if (in == 1) {
                    hit->kind = RND__HIT_TAG;
                    hit->index = ti;
                    hit->albedo = albedo;
                    hit->x = x;
                    hit->y = y;
                    hit->h = h;
                    return;
                }
                if (base < 0 && in == 2)
                    base = ti;
            }
            if (base >= 0) {
                hit->kind = RND__HIT_BASE;
                hit->index = base;
                hit->albedo = RND__BASE_TOP;
                hit->x = x;
                hit->y = y;
                hit->h = h;
                return;
            }
        }
        if (lv->has_walls && h > 0 && nwalls < RND__MAX_WALL_LEVELS) {
            walls[nwalls].lv = lv;
            walls[nwalls].x = x;
            walls[nwalls].y = y;
            walls[nwalls].cell = cell;
            nwalls++;
        }
    }
    /* unreachable when min_h < 0 (the felt ends the loop) */
}

static inline double rnd__shade(const rnd__ctx *c, const rnd__hit *hit)
{
    const rnd_scene *sc = c->sc;
    if (hit->albedo <= 0)
        return 0;
    double dist = sqrt(hit->x * hit->x + hit->y * hit->y) * c->inv_diag;
    double L = sc->ambient * (1 - sc->light_gradient * dist);
    if (L < 0)
        L = 0;
    if (sc->light)
        L += sc->light(hit->x, hit->y, hit->h, sc->light_user);
    return hit->albedo * L;
}

/* ---- parallel rows ---- */

typedef struct rnd__job {
    const rnd__ctx *c;
    float *acc;     /* width*height, averaged shade */
    float *tmp;     /* blur scratch */
    const double *kernel;
    int radius;
    tt_image *out;
    atomic_int next;
    int stage;
} rnd__job;

#define RND__ROWS_PER_CHUNK 8

/* Undistortion along a line of samples, each started from the linear
 * extrapolation of the two before it (one Newton step usually suffices). */
typedef struct rnd__walker {
    double x, y, xp, yp;
    int have;
} rnd__walker;

static inline void rnd__walk(const rnd__cam *cam, rnd__walker *w, double u, double v, double d[3])
{
    double xd, yd;
    rnd__pixel_to_normalised(cam, u, v, &xd, &yd);
    if (w->have == 0) {
        rnd__undistort(cam, xd, yd, &w->x, &w->y);
        w->xp = w->x;
        w->yp = w->y;
        w->have = 1;
    } else {
        double nx = w->have > 1 ? 2 * w->x - w->xp : w->x, ny = w->have > 1 ? 2 * w->y - w->yp : w->y;
        w->xp = w->x;
        w->yp = w->y;
        w->x = nx;
        w->y = ny;
        rnd__undistort_from(cam, xd, yd, &w->x, &w->y);
        w->have = 2;
    }
    rnd__ray_dir(cam, w->x, w->y, d);
}

static int rnd__box_circle(const rnd__box *b, double cx, double cy, double r)
{
    double dx = cx < b->x0 ? b->x0 - cx : cx > b->x1 ? cx - b->x1 : 0;
    double dy = cy < b->y0 ? b->y0 - cy : cy > b->y1 ? cy - b->y1 : 0;
    return dx * dx + dy * dy <= r * r;
}

/* Footprint (table xy bounding box, with a margin) of the pixel rectangle
 * [u0,u1]x[v0,v1] on the plane z = -h.  0 if some ray misses the plane. */
static int rnd__footprint(const rnd__ctx *c, const double rays[9][3], double h, rnd__box *b)
{
    const double *C = c->cam.C;
    b->x0 = b->y0 = INFINITY;
    b->x1 = b->y1 = -INFINITY;
    for (int k = 0; k < 9; k++) {
        const double *d = rays[k];
        if (!(d[2] > 0))
            return 0;
        double s = (-h - C[2]) / d[2];
        if (!(s > 0))
            return 0;
        double x = C[0] + s * d[0], y = C[1] + s * d[1];
        b->x0 = fmin(b->x0, x);
        b->x1 = fmax(b->x1, x);
        b->y0 = fmin(b->y0, y);
        b->y1 = fmax(b->y1, y);
    }
    double m = 0.02 + 0.05 * fmax(b->x1 - b->x0, b->y1 - b->y0);
    b->x0 -= m;
    b->y0 -= m;
    b->x1 += m;
    b->y1 += m;
    return 1;
}

/* 1 if every sample of the pixel rectangle sees plain felt (or plain floor)
 * under smooth light, so one sample per pixel gives the box-filtered value
 * (the light is linear to ~1e-6 gray levels across a pixel). */
static int rnd__tile_plain(const rnd__ctx *c, double u0, double v0, double u1, double v1, double *albedo)
{
    if (c->sc->light)
        return 0;
    double rays[9][3];
    for (int k = 0; k < 9; k++) {
        double u = u0 + (u1 - u0) * (k % 3) * 0.5, v = v0 + (v1 - v0) * (k / 3) * 0.5, xd, yd, x, y;
        rnd__pixel_to_normalised(&c->cam, u, v, &xd, &yd);
        rnd__undistort(&c->cam, xd, yd, &x, &y);
        rnd__ray_dir(&c->cam, x, y, rays[k]);
    }
    rnd__box felt, b;
    if (!rnd__footprint(c, rays, 0, &felt))
        return 0;
    const rnd_scene *sc = c->sc;
    int inside = felt.x0 > 0 && felt.y0 > 0 && felt.x1 < sc->width_in && felt.y1 < sc->depth_in;
    int outside = felt.x1 < 0 || felt.y1 < 0 || felt.x0 > sc->width_in || felt.y0 > sc->depth_in;
    if (!inside && !outside)
        return 0;
    *albedo = inside ? sc->felt_gray : sc->floor_gray;
    for (int i = 0; i < sc->npieces + (c->ntilted > 0); i++) {
        /* a piece (or the tilted tags) between its top and the felt */
        const rnd__box *pb = i < sc->npieces ? &c->pbox[i] : &c->tbox;
        double top = i < sc->npieces ? sc->pieces[i].height_in : c->th1;
        if (!rnd__footprint(c, rays, top, &b))
            return 0;
        if (!(fmax(b.x1, felt.x1) < pb->x0 || fmin(b.x0, felt.x0) > pb->x1 || fmax(b.y1, felt.y1) < pb->y0 ||
              fmin(b.y0, felt.y0) > pb->y1))
            return 0;
    }
    for (int li = 0; li < c->nlevels; li++) {
        const rnd__level *lv = &c->levels[li];
        if (!rnd__footprint(c, rays, lv->h, &b))
            return 0;
        if (lv->occ >= 0) {
            const rnd__occ *o = &c->occ[lv->occ];
            if (rnd__box_circle(&b, o->x, o->y, fmax(1 / o->irx, 1 / o->iry)))
                return 0;
            continue;
        }
        if (lv->has_walls) { /* a wall spans from the level down to the felt */
            b.x0 = fmin(b.x0, felt.x0);
            b.y0 = fmin(b.y0, felt.y0);
            b.x1 = fmax(b.x1, felt.x1);
            b.y1 = fmax(b.y1, felt.y1);
        }
        /* clamp in floating point: grazing rays give huge footprints */
        double fa = fmax(floor((b.x0 - lv->gx0) * lv->ginv), 0);
        double fb = fmin(floor((b.x1 - lv->gx0) * lv->ginv), lv->gnx - 1);
        double ga = fmax(floor((b.y0 - lv->gy0) * lv->ginv), 0);
        double gb = fmin(floor((b.y1 - lv->gy0) * lv->ginv), lv->gny - 1);
        if (!(fa <= fb && ga <= gb)) /* also catches NaN */
            continue;
        int ia = (int)fa, ib = (int)fb, ja = (int)ga, jb = (int)gb;
        for (int j = ja; j <= jb; j++)
            for (int i = ia; i <= ib; i++) {
                int cell = j * lv->gnx + i;
                for (int k = lv->start[cell]; k < lv->start[cell + 1]; k++) {
                    const rnd__ptag *t = &c->tags[lv->items[k]];
                    if (rnd__box_circle(&b, t->cx, t->cy, t->bound))
                        return 0;
                }
            }
    }
    return 1;
}

#define RND__TILE 8

static void rnd__render_rows(const rnd__ctx *c, float *acc, int j0, int j1)
{
    const rnd__cam *cam = &c->cam;
    int W = c->width, ss = c->sc->supersample < 1 ? 1 : c->sc->supersample;
    double inv_ss = 1.0 / ss, norm = 1.0 / (ss * ss);
    for (int i0 = 0; i0 < W; i0 += RND__TILE) {
        int i1 = i0 + RND__TILE > W ? W : i0 + RND__TILE;
        double albedo = 0;
        int plain = rnd__tile_plain(c, i0 - 0.5, j0 - 0.5, i1 - 0.5, j1 - 0.5, &albedo);
        for (int j = j0; j < j1; j++) {
            float *row = acc + (size_t)j * W;
            if (plain) { /* only felt (or floor): straight to z = 0 */
                rnd__walker w = {0};
                rnd__hit hit = {.kind = RND__HIT_FELT, .albedo = albedo};
                for (int i = i0; i < i1; i++) {
                    double d[3];
                    rnd__walk(cam, &w, i, j, d);
                    double s = -cam->C[2] / d[2];
                    hit.x = cam->C[0] + s * d[0];
                    hit.y = cam->C[1] + s * d[1];
                    row[i] = (float)rnd__shade(c, &hit);
                }
                continue;
            }
            for (int i = i0; i < i1; i++)
                row[i] = 0;
            /* ss x ss strata, each sample offset within its stratum so that
             * all ss^2 samples have distinct x and distinct y ("n-rooks"):
             * an edge parallel to the pixel grid is then resolved to
             * 1/ss^2 px, not 1/ss. */
            for (int sy = 0; sy < ss; sy++) {
                rnd__walker w = {0};
                for (int i = i0; i < i1; i++) {
                    double sum = 0;
                    for (int sx = 0; sx < ss; sx++) {
                        double d[3];
                        rnd__hit hit;
                        double u = i - 0.5 + (sx + (sy + 0.5) * inv_ss) * inv_ss;
                        double v = j - 0.5 + (sy + (sx + 0.5) * inv_ss) * inv_ss;
                        rnd__walk(cam, &w, u, v, d);
                        rnd__cast(c, d, -1, &hit);
                        sum += rnd__shade(c, &hit);
                    }
                    row[i] += (float)(sum * norm);
                }
            }
        }
    }
}

static uint64_t rnd__mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A standard normal deviate that depends only on (seed, index). */
static double rnd__gauss(unsigned seed, uint64_t index)
{
    uint64_t a = rnd__mix64(((uint64_t)seed << 32) ^ rnd__mix64(index));
    uint64_t b = rnd__mix64(a);
    double u1 = ((a >> 11) + 1.0) * (1.0 / 9007199254740993.0); /* (0, 1] */
    double u2 = (b >> 11) * (1.0 / 9007199254740992.0);
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static void rnd__stage_rows(rnd__job *jb, int j0, int j1)
{
    const rnd__ctx *c = jb->c;
    int W = c->width, H = c->height, r = jb->radius;
    const double *k = jb->kernel;
    switch (jb->stage) {
    case 0:
        rnd__render_rows(c, jb->acc, j0, j1);
        break;
    case 1: /* horizontal blur acc -> tmp */
        for (int j = j0; j < j1; j++) {
            const float *src = jb->acc + (size_t)j * W;
            float *dst = jb->tmp + (size_t)j * W;
            for (int i = 0; i < W; i++) {
                double s = 0;
                for (int t = -r; t <= r; t++) {
                    int ii = i + t;
                    ii = ii < 0 ? 0 : ii >= W ? W - 1 : ii;
                    s += k[t + r] * src[ii];
                }
                dst[i] = (float)s;
            }
        }
        break;
    case 2: /* vertical blur tmp -> acc */
        for (int j = j0; j < j1; j++) {
            float *dst = jb->acc + (size_t)j * W;
            for (int i = 0; i < W; i++) {
                double s = 0;
                for (int t = -r; t <= r; t++) {
                    int jj = j + t;
                    jj = jj < 0 ? 0 : jj >= H ? H - 1 : jj;
                    s += k[t + r] * jb->tmp[(size_t)jj * W + i];
                }
                dst[i] = (float)s;
            }
        }
        break;
    case 3: { /* noise, quantise */
        double sigma = c->sc->noise_sigma;
        for (int j = j0; j < j1; j++) {
            const float *src = jb->acc + (size_t)j * W;
            uint8_t *dst = jb->out->data + (size_t)j * jb->out->stride;
            for (int i = 0; i < W; i++) {
                double v = src[i];
                if (sigma > 0)
                    v += sigma * rnd__gauss(c->sc->seed, (uint64_t)j * (uint64_t)W + (uint64_t)i);
                long q = lrint(v);
                dst[i] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
            }
        }
        break;
    }
    }
}

static void *rnd__worker(void *arg)
{
    rnd__job *jb = arg;
    int H = jb->c->height;
    for (;;) {
        int j0 = atomic_fetch_add(&jb->next, RND__ROWS_PER_CHUNK);
        if (j0 >= H)
            break;
        int j1 = j0 + RND__ROWS_PER_CHUNK > H ? H : j0 + RND__ROWS_PER_CHUNK;
        rnd__stage_rows(jb, j0, j1);
    }
    return NULL;
}

/* want: threads asked for (<= 0: all cores), or -1 for rnd_render's rule */
static int rnd__nthreads(const rnd_scene *sc, int want)
{
    if (want == -1 && sc->light) /* the callback is not promised to be thread-safe */
        return 1;
    if (want > 0)
        return want > 16 ? 16 : want;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    const char *env = getenv("TT_RENDER_THREADS");
    if (env && atoi(env) > 0)
        n = atoi(env);
    return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

static void rnd__run_stage(rnd__job *jb, int stage, int nthreads)
{
    pthread_t th[16];
    int started = 0;
    jb->stage = stage;
    atomic_store(&jb->next, 0);
    for (int t = 1; t < nthreads; t++)
        if (pthread_create(&th[started], NULL, rnd__worker, jb) == 0)
            started++;
    rnd__worker(jb);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
}

static tt_status rnd__render(const rnd_scene *scene, const rnd_camera *cam, int want_threads, tt_image *out,
                             tt_err *err)
{
    rnd__ctx c;
    tt_status st;
    float *acc = NULL, *tmp = NULL;
    double *kernel = NULL;
    if (out)
        memset(out, 0, sizeof *out);
    if (!scene || !cam || !out)
        return tt_err_set(err, TT_ERR_ARG, "rnd_render: scene, camera and output image are required");
    if (cam->width <= 0 || cam->height <= 0 || cam->width > 65536 || cam->height > 65536)
        return tt_err_set(err, TT_ERR_ARG, "camera image size %dx%d is not valid", cam->width, cam->height);
    if (!(cam->K[0] > 0 && cam->K[4] > 0))
        return tt_err_set(err, TT_ERR_ARG, "camera focal lengths must be positive (K[0], K[4])");
    if (scene->supersample > 8 || scene->supersample < 0)
        return tt_err_set(err, TT_ERR_ARG, "supersample %d out of range (1..8; 3 is good)", scene->supersample);
    if (!(scene->blur_sigma_px >= 0 && scene->blur_sigma_px <= 50) || !(scene->noise_sigma >= 0))
        return tt_err_set(err, TT_ERR_ARG, "blur sigma must be 0..50 px and noise sigma >= 0");
    if ((st = rnd__ctx_build(&c, scene, cam, 1, err)) != TT_OK)
        return st;
    size_t npix = (size_t)cam->width * (size_t)cam->height;
    acc = malloc(npix * sizeof *acc);
    if (!acc) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory for a %dx%d render", cam->width, cam->height);
        goto fail;
    }
    if ((st = tt_image_alloc(out, cam->width, cam->height, 1, err)) != TT_OK)
        goto fail;

    rnd__job jb;
    memset(&jb, 0, sizeof jb);
    jb.c = &c;
    jb.acc = acc;
    jb.out = out;
    int nth = rnd__nthreads(scene, want_threads);
    rnd__run_stage(&jb, 0, nth);

    if (scene->blur_sigma_px > 0) {
        int r = (int)ceil(4 * scene->blur_sigma_px);
        tmp = malloc(npix * sizeof *tmp);
        kernel = malloc((size_t)(2 * r + 1) * sizeof *kernel);
        if (!tmp || !kernel) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory for the blur of a %dx%d render", cam->width,
                            cam->height);
            goto fail;
        }
        double sum = 0;
        for (int t = -r; t <= r; t++)
            sum += kernel[t + r] = exp(-0.5 * t * t / (scene->blur_sigma_px * scene->blur_sigma_px));
        for (int t = 0; t <= 2 * r; t++)
            kernel[t] /= sum;
        jb.tmp = tmp;
        jb.kernel = kernel;
        jb.radius = r;
        rnd__run_stage(&jb, 1, nth);
        rnd__run_stage(&jb, 2, nth);
    }
    rnd__run_stage(&jb, 3, nth);
    free(acc);
    free(tmp);
    free(kernel);
    rnd__ctx_free(&c);
    return TT_OK;
fail:
    free(acc);
    free(tmp);
    free(kernel);
    tt_image_free(out);
    rnd__ctx_free(&c);
    return st;
}

tt_status rnd_render(const rnd_scene *scene, const rnd_camera *cam, tt_image *out, tt_err *err)
{
    return rnd__render(scene, cam, -1, out, err);
}

tt_status rnd_render_threads(const rnd_scene *scene, const rnd_camera *cam, int nthreads, tt_image *out,
                             tt_err *err)
{
    return rnd__render(scene, cam, nthreads <= 0 ? 0 : nthreads, out, err);
}

int rnd_tag_unoccluded(const rnd_scene *scene, const rnd_camera *cam, const rnd_tag *tag)
{
    rnd__ctx c;
    if (!scene || !cam || !tag)
        return 0;
    if (rnd__ctx_build(&c, scene, cam, 0, NULL) != TT_OK)
        return 0;
    int tw, wb, ok = 1;
    if (!rnd__family_widths(tag->family, &tw, &wb) || !(tag->size_in > 0)) {
        rnd__ctx_free(&c);
        return 0;
    }
    double half = tag->size_in * tw / wb * 0.5 * (1 - 1e-9);
    double r[3], dn[3], nrm[3];
    rnd__tag_axes(tag, r, dn, nrm);
    int tilted = tag->slope[0] != 0 || tag->slope[1] != 0;
    const int n = 25;
    for (int a = 0; a < n && ok; a++)
        for (int b = 0; b < n && ok; b++) {
            double u = -half + 2 * half * a / (n - 1), v = -half + 2 * half * b / (n - 1);
            double x = tag->x + u * r[0] + v * dn[0], y = tag->y + u * r[1] + v * dn[1];
            double h = tag->height_in + u * r[2] + v * dn[2], px[2];
            if (!rnd__project_prepared(&c.cam, x, y, h, px) || !(px[0] >= -0.5) || !(px[0] < cam->width - 0.5) ||
                !(px[1] >= -0.5) || !(px[1] < cam->height - 0.5)) {
                ok = 0;
                break;
            }
            double d[3] = {x - c.cam.C[0], y - c.cam.C[1], -h - c.cam.C[2]};
            rnd__hit hit;
            /* a level tag: nothing above its plane; a tilted one: nothing
             * met before the point itself (the tag is in the scene) */
            rnd__cast(&c, d, tilted ? -1 : tag->height_in, &hit);
            if (tilted ? hit.h > h + 1e-7 : hit.kind != RND__HIT_NONE)
                ok = 0;
        }
    rnd__ctx_free(&c);
    return ok;
}

void rnd_tag_corners(const rnd_tag *tag, double corners[4][2])
{
    if (tag->slope[0] != 0 || tag->slope[1] != 0) {
        double c3[4][3];
        rnd_tag_corners3(tag, c3);
        for (int k = 0; k < 4; k++) {
            corners[k][0] = c3[k][0];
            corners[k][1] = c3[k][1];
        }
        return;
    }
    /* tag-local (right, down) offsets in half sizes: bottom-left,
     * bottom-right, top-right, top-left of the printed tag */
    static const double uv[4][2] = {{-1, 1}, {1, 1}, {1, -1}, {-1, -1}};
    double f = tag->facing_deg * (M_PI / 180), hs = tag->size_in * 0.5;
    double rx = -sin(f), ry = cos(f), dx = -cos(f), dy = -sin(f);
    for (int k = 0; k < 4; k++) {
        corners[k][0] = tag->x + hs * (uv[k][0] * rx + uv[k][1] * dx);
        corners[k][1] = tag->y + hs * (uv[k][0] * ry + uv[k][1] * dy);
    }
}
