/* overlay_paint.c - where the drawing's paths land, in painting order.
 *
 * Speed (bench_overlay): outlines and fills go straight into the target's
 * pixels through overlay's own rasterisers when the target is a plain
 * ARGB32/RGB24 image surface (always, for the projector image): outlines by
 * overlay_cov_polyline (coverage from each pixel's distance to the
 * stroke), fills - range bands, cones, blast templates - by
 * overlay_cov_fill (exact-area scan conversion); both blended "over" as
 * cairo_mask would, to the bit (overlay_stroke.c).  Cairo's scan converter
 * walks every pixel row each edge crosses at several hundred instructions a
 * row; ours light only the pixels of the shape.  Opaque outlines of one
 * colour drawn one after the other share one blend.
 *
 * The band inside a polygon (clipped to it), tiny circles and any target
 * that is not such an image surface go through cairo: opaque shapes of one
 * colour drawn one after the other are filled together (one cairo_fill; the bands
 * share one orientation, so the union is what separate fills would light);
 * translucent ones are rasterised opaque into an A8 scratch mask and
 * composited once, only the 32x16-pixel blocks of the mask that hold
 * coverage.
 *
 * Large areas (band_in > 0) light only a band inside their edge: a
 * circle's or ring's is a ring; any other shape's is its outline of twice
 * the band's width clipped to the shape. */
#include "overlay_draw.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PAINT__MASK_FILL 0.5    /* translucent fills go through the mask below this fill ratio */
#define PAINT__BLOCK 32         /* mask blocks composited only where they hold coverage: */
#define PAINT__STRIP 16         /* PAINT__BLOCK pixels wide, PAINT__STRIP rows high */

/* Fill what is pending (opaque outlines and text of one colour). */
void overlay__paint_flush(overlay__drawing *c)
{
    if (!c->pending)
        return;
    c->pending = 0;
    c->untracked = 1;
    cairo_set_fill_rule(c->cr, CAIRO_FILL_RULE_WINDING);
    cairo_set_source_rgb(c->cr, c->pend_rgba[0], c->pend_rgba[1], c->pend_rgba[2]);
    cairo_fill(c->cr);
}

static cairo_user_data_key_t paint__cov_key;

static void paint__cov_destroy(void *p)
{
    overlay_cov_free(p);
    free(p);
}

/* Can outlines go straight into the target's pixels?  Only when cr draws
 * onto an ARGB32 or RGB24 image surface in its pixels (identity matrix, no
 * device offset or scale) with no clip.  The coverage buffer is made then. */
int overlay__paint_rast_ready(overlay__drawing *c)
{
    if (c->rast_ok >= 0)
        return c->rast_ok;
    c->rast_ok = 0;
    cairo_surface_t *t = cairo_get_group_target(c->cr);
    if (cairo_surface_get_type(t) != CAIRO_SURFACE_TYPE_IMAGE)
        return 0;
    cairo_format_t f = cairo_image_surface_get_format(t);
    cairo_matrix_t mx;
    double ox, oy, sx, sy;
    cairo_get_matrix(c->cr, &mx);
    cairo_surface_get_device_offset(t, &ox, &oy);
    cairo_surface_get_device_scale(t, &sx, &sy);
    if ((f != CAIRO_FORMAT_ARGB32 && f != CAIRO_FORMAT_RGB24) || ox != 0 || oy != 0 || sx != 1 || sy != 1 ||
        mx.xx != 1 || mx.yy != 1 || mx.xy != 0 || mx.yx != 0 || mx.x0 != 0 || mx.y0 != 0)
        return 0;
    int w = cairo_image_surface_get_width(t), h = cairo_image_surface_get_height(t);
    /* no clip: the clip is the whole surface (one rectangle) */
    cairo_rectangle_list_t *rl = cairo_copy_clip_rectangle_list(c->cr);
    int unclipped = rl && rl->status == CAIRO_STATUS_SUCCESS && rl->num_rectangles == 1 && rl->rectangles[0].x <= 0 &&
                    rl->rectangles[0].y <= 0 && rl->rectangles[0].x + rl->rectangles[0].width >= w &&
                    rl->rectangles[0].y + rl->rectangles[0].height >= h;
    cairo_rectangle_list_destroy(rl);
    if (!unclipped || !cairo_image_surface_get_data(t))
        return 0;
    /* the coverage buffer (w x h bytes, zero between uses) is kept with
     * the surface for the next frame: allocating and touching it afresh
     * each frame costs more than the strokes */
    overlay_cov *cov = cairo_surface_get_user_data(t, &paint__cov_key);
    if (!cov || cov->w != w || cov->h != h) {
        cov = malloc(sizeof *cov);
        if (!cov || !overlay_cov_init(cov, w, h)) {
            free(cov);
            c->oom = 1;
            return 0;
        }
        if (cairo_surface_set_user_data(t, &paint__cov_key, cov, paint__cov_destroy) != CAIRO_STATUS_SUCCESS) {
            paint__cov_destroy(cov);
            c->oom = 1;
            return 0;
        }
    }
    c->cov = cov;
    c->img = t;
    c->rast_ok = 1;
    return 1;
}

/* Blend the outlines waiting in the coverage into the target. */
void overlay__paint_rast_flush(overlay__drawing *c)
{
    if (!c->cov_pending)
        return;
    c->cov_pending = 0;
    if (!overlay_cov_pending(c->cov))
        return;
    int box[4];
    cairo_surface_flush(c->img);
    overlay_cov_blend(c->cov, cairo_image_surface_get_data(c->img), cairo_image_surface_get_stride(c->img), c->cov_rgb,
                      c->cov_alpha, box);
    if (box[2] > box[0] && box[3] > box[1])
        cairo_surface_mark_dirty_rectangle(c->img, box[0], box[1], box[2] - box[0], box[3] - box[1]);
}

/* Outline of colour role at alpha into the coverage: what waits there in
 * another colour or opacity is blended first, and cairo's pending fill is
 * filled first (painting order). */
void overlay__paint_rast_begin(overlay__drawing *c, overlay_role role, double alpha)
{
    double rgb[3];
    overlay_role_rgb(role, rgb);
    overlay__paint_flush(c);
    if (c->cov_pending && (alpha < 1 || c->cov_alpha != alpha || memcmp(rgb, c->cov_rgb, sizeof rgb) != 0))
        overlay__paint_rast_flush(c);
    memcpy(c->cov_rgb, rgb, sizeof rgb);
    c->cov_alpha = alpha;
    c->raster = 1;
}

/* End of one primitive's outline: translucent ones are blended now (each
 * primitive its own union, as with cairo); opaque ones of one colour wait
 * for the next (one union, one blend). */
void overlay__paint_rast_end(overlay__drawing *c, double alpha)
{
    c->raster = 0;
    if (alpha < 1)
        overlay__paint_rast_flush(c);
}

/* The A8 mask for translucent fills, made on first use.  Only when cr
 * draws straight onto an image surface in its pixels (identity matrix, no
 * device offset): then mask pixels are target pixels. */
static int paint__mask_ready(overlay__drawing *c)
{
    if (c->mask_ok >= 0)
        return c->mask_ok;
    c->mask_ok = 0;
    cairo_surface_t *t = cairo_get_group_target(c->cr);
    cairo_matrix_t mx;
    double ox, oy;
    cairo_get_matrix(c->cr, &mx);
    cairo_surface_get_device_offset(t, &ox, &oy);
    if (cairo_surface_get_type(t) != CAIRO_SURFACE_TYPE_IMAGE || ox != 0 || oy != 0 || mx.xx != 1 || mx.yy != 1 ||
        mx.xy != 0 || mx.yx != 0 || mx.x0 != 0 || mx.y0 != 0)
        return 0;
    int w = cairo_image_surface_get_width(t), h = cairo_image_surface_get_height(t);
    int stride = cairo_format_stride_for_width(CAIRO_FORMAT_A8, w);
    if (w < 1 || h < 1 || stride < 1)
        return 0;
    /* not cleared: see paint__mask_clean */
    c->mask_data = malloc((size_t)stride * (size_t)h);
    c->mask_blocks = malloc((size_t)(w / PAINT__BLOCK + 2));
    c->clean_lo = calloc((size_t)h, 2 * sizeof *c->clean_lo);
    if (!c->mask_data || !c->mask_blocks || !c->clean_lo) {
        c->oom = 1;
        return 0;
    }
    c->mask = cairo_image_surface_create_for_data(c->mask_data, CAIRO_FORMAT_A8, w, h, stride);
    c->mask_cr = cairo_create(c->mask);
    if (cairo_status(c->mask_cr) != CAIRO_STATUS_SUCCESS)
        return 0;
    cairo_set_antialias(c->mask_cr, CAIRO_ANTIALIAS_FAST);
    cairo_set_source_rgb(c->mask_cr, 1, 1, 1);
    c->clean_hi = c->clean_lo + h;
    c->mask_w = w;
    c->mask_h = h;
    c->mask_ok = 1;
    return 1;
}

/* Make the mask zero in the box x0..x1, y0..y1.  Each row keeps the span
 * known to be zero (clean_lo..clean_hi: cleared once, and every fill
 * clears what it lit), so only what no fill has used yet is cleared. */
static void paint__mask_clean(overlay__drawing *c, int x0, int y0, int x1, int y1)
{
    int stride = cairo_image_surface_get_stride(c->mask);
    for (int y = y0; y < y1; y++) {
        unsigned char *row = c->mask_data + (size_t)y * stride;
        int lo = c->clean_lo[y], hi = c->clean_hi[y];
        if (lo >= hi) {
            memset(row + x0, 0, (size_t)(x1 - x0));
            lo = x0;
            hi = x1;
        } else {
            if (x0 < lo) {
                memset(row + x0, 0, (size_t)(lo - x0));
                lo = x0;
            }
            if (x1 > hi) {
                memset(row + hi, 0, (size_t)(x1 - hi));
                hi = x1;
            }
        }
        c->clean_lo[y] = lo;
        c->clean_hi[y] = hi;
    }
}

/* Composite colour rgb at alpha through the mask, box x0..x1, y0..y1 -
 * only the blocks of it that hold coverage (an outline or a band along
 * the edge of a large area leaves most of its box empty, and compositing
 * an empty mask still reads and writes every target pixel) - and clear
 * those blocks again, so the mask stays zero where it is clean. */
static void paint__mask_composite(overlay__drawing *c, const double rgb[3], double alpha, int x0, int y0, int x1,
                                  int y1)
{
    int stride = cairo_image_surface_get_stride(c->mask), nrect = 0;
    c->rects.n = 0;
    int b0 = 0, b1 = (x1 - x0 + PAINT__BLOCK - 1) / PAINT__BLOCK;
    unsigned char *on = c->mask_blocks;
    cairo_new_path(c->cr);
    for (int ys = y0; ys < y1; ys += PAINT__STRIP) {
        int ye = ys + PAINT__STRIP < y1 ? ys + PAINT__STRIP : y1;
        memset(on + b0, 0, (size_t)(b1 - b0));
        for (int y = ys; y < ye; y++) {
            const unsigned char *row = c->mask_data + (size_t)y * stride;
            for (int b = b0; b < b1; b++) {
                if (on[b])
                    continue;
                int xa = x0 + b * PAINT__BLOCK, xb = xa + PAINT__BLOCK < x1 ? xa + PAINT__BLOCK : x1;
                uint64_t any = 0, w;
                int x = xa;
                for (; x + 8 <= xb; x += 8) {
                    memcpy(&w, row + x, 8);
                    any |= w;
                }
                for (; x < xb; x++)
                    any |= row[x];
                on[b] = any != 0;
            }
        }
        for (int b = b0; b < b1;) {
            if (!on[b]) {
                b++;
                continue;
            }
            int e = b;
            while (e < b1 && on[e])
                e++;
            int xa = x0 + b * PAINT__BLOCK, xb = x0 + e * PAINT__BLOCK < x1 ? x0 + e * PAINT__BLOCK : x1;
            cairo_rectangle(c->cr, xa, ys, xb - xa, ye - ys);
            overlay__buf_push(c, &c->rects, xa, ys);
            overlay__buf_push(c, &c->rects, xb, ye);
            nrect++;
            b = e;
        }
    }
    if (nrect == 0 || c->oom) {
        cairo_new_path(c->cr);
        return;
    }
    c->untracked = 1;
    cairo_save(c->cr);
    cairo_clip(c->cr); /* pixel-aligned rectangles: a region */
    cairo_set_source_rgba(c->cr, rgb[0], rgb[1], rgb[2], alpha);
    cairo_mask_surface(c->cr, c->mask, 0, 0);
    cairo_restore(c->cr);
    /* clear what was lit: every block that held coverage */
    for (int i = 0; i + 1 < c->rects.n; i += 2) {
        const double *r = c->rects.v + 2 * i;
        for (int y = (int)r[1]; y < (int)r[3]; y++)
            memset(c->mask_data + (size_t)y * stride + (int)r[0], 0, (size_t)(r[2] - r[0]));
    }
    c->rects.n = 0;
    cairo_surface_mark_dirty_rectangle(c->mask, x0, y0, x1 - x0, y1 - y0);
}

/* Start a fill of colour role/alpha: choose where the path goes.  Opaque
 * fills join the pending one of the same colour; translucent ones go to the
 * mask (or straight to cr when there is none). */
void overlay__paint_begin(overlay__drawing *c, overlay_role role, double alpha)
{
    overlay__paint_rast_flush(c); /* painting order */
    double rgb[3];
    overlay_role_rgb(role, rgb);
    c->bx0 = c->by0 = INFINITY;
    c->bx1 = c->by1 = -INFINITY;
    c->area = 0;
    c->loops = 0;
    if (alpha >= 1) {
        if (c->pending &&
            (c->pend_rgba[0] != rgb[0] || c->pend_rgba[1] != rgb[1] || c->pend_rgba[2] != rgb[2]))
            overlay__paint_flush(c);
        c->pending = 1;
        memcpy(c->pend_rgba, rgb, sizeof rgb);
        c->pend_rgba[3] = 1;
        c->tgt = c->cr;
        return;
    }
    overlay__paint_flush(c);
    c->tgt = paint__mask_ready(c) ? c->mask_cr : c->cr;
    cairo_new_path(c->tgt);
}

/* Finish a translucent fill started by overlay__paint_begin. */
void overlay__paint_end(overlay__drawing *c, overlay_role role, double alpha, cairo_fill_rule_t rule)
{
    if (alpha >= 1)
        return; /* stays pending */
    double rgb[3];
    overlay_role_rgb(role, rgb);
    /* the bounding box, one pixel of margin for anti-aliasing, on the mask */
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    if (c->tgt != c->cr) {
        x0 = (int)fmax(0, floor(c->bx0) - 1);
        y0 = (int)fmax(0, floor(c->by0) - 1);
        x1 = (int)fmin(c->mask_w, ceil(c->bx1) + 2);
        y1 = (int)fmin(c->mask_h, ceil(c->by1) + 2);
        if (!(c->bx0 <= c->bx1) || x1 <= x0 || y1 <= y0) {
            cairo_new_path(c->mask_cr);
            return;
        }
        /* one loop that fills most of its box (a disc, a cone): cairo's own
         * spans are cheaper than clearing and compositing the whole box */
        if (!c->keep_tgt && c->loops < 2 && fabs(c->area) > PAINT__MASK_FILL * (double)(x1 - x0) * (y1 - y0)) {
            cairo_path_t *path = cairo_copy_path(c->mask_cr);
            cairo_new_path(c->mask_cr);
            if (!path || path->status != CAIRO_STATUS_SUCCESS) {
                cairo_path_destroy(path);
                c->oom = 1;
                return;
            }
            cairo_new_path(c->cr);
            cairo_append_path(c->cr, path);
            cairo_path_destroy(path);
            c->tgt = c->cr;
        }
    }
    if (c->tgt == c->cr) {
        c->untracked = 1;
        cairo_set_fill_rule(c->cr, rule);
        cairo_set_source_rgba(c->cr, rgb[0], rgb[1], rgb[2], alpha);
        cairo_fill(c->cr);
        return;
    }
    cairo_surface_flush(c->mask);
    paint__mask_clean(c, x0, y0, x1, y1);
    cairo_surface_mark_dirty_rectangle(c->mask, x0, y0, x1 - x0, y1 - y0);
    cairo_set_fill_rule(c->mask_cr, rule);
    cairo_fill(c->mask_cr);
    cairo_surface_flush(c->mask);
    paint__mask_composite(c, rgb, alpha, x0, y0, x1, y1);
}

/* A fill (one loop, or two with the even-odd rule) through our own
 * exact-area scan conversion, blended into the target as it is swept:
 * cairo's scan converter walks every row each edge crosses at several
 * hundred instructions a row, and a band along a large circle has two long
 * edges. */
static void paint__fill_cov(overlay__drawing *c, const overlay_style *st, const overlay__buf *l1,
                            const overlay__buf *l2)
{
    int ln[2] = {0, 0}, nl = 0, total = 0;
    overlay__paint_flush(c);      /* painting order: cairo's pending fill, */
    overlay__paint_rast_flush(c); /* then the outlines waiting in the coverage */
    for (int k = 0; k < 2; k++) {
        const overlay__buf *l = k ? l2 : l1;
        if (!l)
            break;
        overlay__path_densify(c, l->v, l->n, 1, &c->dense);
        if (c->oom || !overlay__buf_reserve(c, &c->rpx, total + c->dense.n))
            return;
        c->m->map(c->m->user, c->dense.v, c->dense.n, c->rpx.v + 2 * total);
        ln[nl++] = c->dense.n;
        total += c->dense.n;
    }
    /* one shape: blended as it is swept, no coverage buffer in between */
    double rgb[3];
    int box[4];
    overlay_role_rgb(st->role, rgb);
    cairo_surface_flush(c->img);
    if (!overlay_fill_blend(c->cov, c->rpx.v, ln, nl, 1, cairo_image_surface_get_data(c->img),
                            cairo_image_surface_get_stride(c->img), rgb, st->fill_alpha, box))
        c->oom = 1;
    if (box[2] > box[0] && box[3] > box[1])
        cairo_surface_mark_dirty_rectangle(c->img, box[0], box[1], box[2] - box[0], box[3] - box[1]);
}

/* The area of a closed primitive at fill_alpha: all of it, or with
 * band_in only the band just inside its edge.  A circle's or ring's band is
 * the ring from r1 - band_in to r1 (not below r0); any other shape's is its
 * outline of width 2 * band_in clipped to the shape itself. */
void overlay__paint_fill(overlay__drawing *c, const overlay__prim *p, const overlay__buf *l1, const overlay__buf *l2,
                         int nloops)
{
    const overlay_style *st = &p->st;
    int round = p->kind == OVERLAY__CIRCLE || p->kind == OVERLAY__RING;
    overlay__buf b1 = {0}, b2 = {0};
    if (st->band_in > 0 && round) {
        overlay__prim q = *p;
        q.kind = OVERLAY__RING;
        q.r0 = fmax(p->r0, p->r1 - st->band_in);
        nloops = overlay__path_round_loops(c, &q, &b1, &b2);
        l1 = &b1;
        l2 = &b2;
    }
    int clip = st->band_in > 0 && !round;
    if (!clip && overlay__paint_rast_ready(c)) {
        paint__fill_cov(c, st, l1, nloops == 2 ? l2 : NULL);
        free(b1.v);
        free(b2.v);
        return;
    }
    if (clip)
        overlay__paint_flush(c); /* the clip must not take pending shapes with it */
    overlay__paint_begin(c, st->role, st->fill_alpha);
    overlay__path_densify(c, l1->v, l1->n, 1, &c->dense);
    overlay__path_emit(c, c->dense.v, c->dense.n, 1);
    if (nloops == 2) {
        overlay__path_densify(c, l2->v, l2->n, 1, &c->dense);
        overlay__path_emit(c, c->dense.v, c->dense.n, 1);
    }
    if (clip) {
        cairo_t *t = c->tgt;
        cairo_save(t);
        /* exact-area coverage, as every other fill gets from
         * overlay_cov_fill */
        cairo_set_antialias(t, CAIRO_ANTIALIAS_DEFAULT);
        cairo_set_fill_rule(t, CAIRO_FILL_RULE_EVEN_ODD);
        cairo_clip(t); /* the shape; the box stays the shape's */
        c->keep_tgt = 1;
        overlay__path_stroke(c, l1->v, l1->n, 1, 2 * st->band_in, 0);
        overlay__paint_end(c, st->role, st->fill_alpha, CAIRO_FILL_RULE_WINDING);
        overlay__paint_flush(c); /* opaque: fill now, inside the clip */
        c->keep_tgt = 0;
        cairo_restore(t);
    } else {
        overlay__paint_end(c, st->role, st->fill_alpha, CAIRO_FILL_RULE_EVEN_ODD);
    }
    free(b1.v);
    free(b2.v);
}

void overlay__paint_lit_all(cairo_surface_t *t)
{
    overlay_cov *kept = cairo_surface_get_user_data(t, &paint__cov_key);
    if (kept)
        kept->lit_all = 1;
}

const unsigned char *overlay__lit_tiles(cairo_surface_t *s, int *tw, int *tile)
{
    const overlay_cov *cov = cairo_surface_get_user_data(s, &paint__cov_key);
    if (!cov || !cov->tiles || cov->lit_all || cov->w != cairo_image_surface_get_width(s) ||
        cov->h != cairo_image_surface_get_height(s))
        return NULL;
    *tw = cov->tw;
    *tile = OVERLAY_TILE;
    return cov->tiles;
}

int overlay__clear_kept(cairo_surface_t *s)
{
    overlay_cov *cov = cairo_surface_get_user_data(s, &paint__cov_key);
    if (!cov || cairo_surface_get_type(s) != CAIRO_SURFACE_TYPE_IMAGE ||
        cairo_image_surface_get_format(s) != CAIRO_FORMAT_ARGB32 || cairo_image_surface_get_width(s) != cov->w ||
        cairo_image_surface_get_height(s) != cov->h)
        return 0;
    cairo_surface_flush(s);
    overlay_cov_clear_lit(cov, cairo_image_surface_get_data(s), cairo_image_surface_get_stride(s), 0xff000000u);
    cairo_surface_mark_dirty(s);
    return 1;
}
