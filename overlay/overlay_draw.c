/* overlay_draw.c - primitives in table inches -> the target's pixels, one
 * after the other in list order; the tag masks last.
 *
 * Fills and outlines are built in table inches and mapped point by point
 * (overlay_path.c); they land in the target through overlay's own
 * rasterisers or through cairo (overlay_paint.c); text goes through the
 * local affine of the map at its anchor (overlay_label.c).  The state of
 * one call, and how the files call each other: overlay_draw.h. */
#include "overlay_draw.h"

#include <stdlib.h>
#include <string.h>

/* A primitive drawn whole at one height (overlay_set_last_height): the
 * drawing's mapper with a flat ground at that height. */
typedef struct draw__level {
    const overlay_mapper *base;
    double z_in;
} draw__level;

static double draw__level_ground(const void *user, double x, double y)
{
    (void)x;
    (void)y;
    return ((const draw__level *)user)->z_in;
}

static void draw__level_map3(const void *user, const double *xyz, int n, double *px)
{
    const draw__level *lv = user;
    lv->base->map3(lv->base->user, xyz, n, px);
}

static void draw__level_map(const void *user, const double *xy, int n, double *px)
{
    const draw__level *lv = user;
    const tt_ground level = {draw__level_ground, lv};
    overlay__map_on_ground(&level, lv->base->map3, lv->base->user, xy, n, px);
}

static void draw__prim_shape(overlay__drawing *c, const overlay__prim *p);

static void draw__prim(overlay__drawing *c, const overlay__prim *p)
{
    if (!p->at_height || !c->g) {
        draw__prim_shape(c, p);
        return;
    }
    draw__level lv = {c->g, p->z_in};
    overlay_mapper level = *c->g;
    level.map = draw__level_map;
    level.map3 = draw__level_map3;
    level.user = &lv;
    level.ground = (tt_ground){draw__level_ground, &lv};
    const overlay_mapper *m = c->m, *g = c->g;
    c->m = c->g = &level;
    draw__prim_shape(c, p);
    c->m = m;
    c->g = g;
}

static void draw__prim_shape(overlay__drawing *c, const overlay__prim *p)
{
    const overlay_style *st = &p->st;
    if (p->kind == OVERLAY__TEXT) {
        overlay__label_draw(c, p);
        return;
    }
    overlay__buf l1 = {0}, l2 = {0};
    int closed = p->kind != OVERLAY__POLYLINE && p->kind != OVERLAY__ARC;
    int nloops;
    if (p->kind == OVERLAY__POLYLINE || p->kind == OVERLAY__POLYGON) {
        nloops = 1;
        overlay__path_simplify(c, p->xy, p->n, &l1);
    } else {
        nloops = overlay__path_round_loops(c, p, &l1, &l2);
    }
    if (c->oom)
        goto done;
    if (st->fill_alpha > 0 && closed)
        overlay__paint_fill(c, p, &l1, &l2, nloops);
    int tiny = (p->kind == OVERLAY__CIRCLE || p->kind == OVERLAY__RING) && p->r1 <= st->width_in / 2;
    if (st->width_in > 0 && !tiny && overlay__paint_rast_ready(c)) {
        overlay__paint_rast_begin(c, st->role, st->alpha);
        overlay__path_stroke(c, l1.v, l1.n, closed, st->width_in, st->dashed);
        if (nloops == 2)
            overlay__path_stroke(c, l2.v, l2.n, 1, st->width_in, st->dashed);
        overlay__paint_rast_end(c, st->alpha);
    } else if (st->width_in > 0) {
        overlay__paint_begin(c, st->role, st->alpha);
        if ((p->kind == OVERLAY__CIRCLE || p->kind == OVERLAY__RING) && p->r1 <= st->width_in / 2) {
            overlay__path_disc(c, p->cx, p->cy, p->r1 + st->width_in / 2);
        } else {
            overlay__path_stroke(c, l1.v, l1.n, closed, st->width_in, st->dashed);
            if (nloops == 2)
                overlay__path_stroke(c, l2.v, l2.n, 1, st->width_in, st->dashed);
        }
        overlay__paint_end(c, st->role, st->alpha, CAIRO_FILL_RULE_WINDING);
    }
done:
    free(l1.v);
    free(l2.v);
}

tt_status overlay_draw(const overlay_list *l, const overlay_mapper *m, cairo_t *cr, tt_err *err)
{
    overlay__drawing c;
    if (!l || !m || !m->map || !cr)
        return tt_err_set(err, TT_ERR_ARG, "overlay_draw: list, mapper and cairo context are required");
    memset(&c, 0, sizeof c);
    c.m = m;
    c.cr = cr;
    c.tgt = cr;
    c.mask_ok = -1;
    c.rast_ok = -1;
    c.straight = overlay__mapper_straight(m);
    c.g = m->map3 && m->ground.height_at ? m : NULL;
    cairo_save(cr);
    cairo_new_path(cr);
    /* what cairo still draws (targets that are not plain image surfaces,
     * tiny circles): 4x4 supersampled coverage, smooth at projector scale
     * and ~2x faster than cairo's default rasteriser */
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_FAST);
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    for (int i = 0; i < l->n && !c.oom; i++)
        draw__prim(&c, &l->p[i]);
    overlay__paint_rast_flush(&c); /* always: the coverage must be left clear */
    overlay__label_sweep(&c);
    if (!c.oom)
        overlay__paint_flush(&c);
    if (!c.oom)
        overlay__apply_masks(l, m, cr); /* last: the tags stay dark */
    if (c.untracked || c.oom) /* the next overlay__clear_kept clears everything */
        overlay__paint_lit_all(cairo_get_group_target(cr));
    cairo_new_path(cr);
    cairo_restore(cr);
    cairo_status_t mask_st = c.mask_cr ? cairo_status(c.mask_cr) : CAIRO_STATUS_SUCCESS;
    cairo_destroy(c.mask_cr);
    cairo_surface_destroy(c.mask);
    free(c.mask_data);
    free(c.mask_blocks);
    free(c.clean_lo);
    free(c.rects.v);
    free(c.mapped.v);
    free(c.dense.v);
    free(c.piece.v);
    free(c.ring.v);
    free(c.rq.v);
    free(c.rpx.v);
    free(c.rhw.v);
    free(c.rz.v);
    if (c.oom)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory while drawing the overlay");
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        return tt_err_set(err, TT_ERR_INTERNAL, "cairo: %s", cairo_status_to_string(cairo_status(cr)));
    if (mask_st != CAIRO_STATUS_SUCCESS)
        return tt_err_set(err, TT_ERR_INTERNAL, "cairo: %s", cairo_status_to_string(mask_st));
    return TT_OK;
}
