/* overlay_mask.c - tags kept dark: the projector's light must not fall on
 * the tags the camera reads (Folk Computer masks each tag 2.1x its size).
 * A mask is a square in table inches at its tag's height, mapped corner by
 * corner (a square of two inches is straight enough under any projector
 * map; through the 3D projector when there is one) and painted opaque
 * black over whatever the list drew. */
#include "overlay_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

tt_status overlay_add_tag_mask(overlay_list *l, double x, double y, double facing_deg, double tag_size_in,
                               double z_in, tt_err *err)
{
    if (!l)
        return tt_err_set(err, TT_ERR_ARG, "overlay_add_tag_mask: no list");
    if (!isfinite(x) || !isfinite(y) || !isfinite(facing_deg) || !isfinite(z_in) || !(tag_size_in > 0) ||
        !(tag_size_in < 100) || fabs(x) > 1e6 || fabs(y) > 1e6 || fabs(z_in) > 1e3)
        return tt_err_set(err, TT_ERR_ARG,
                          "a tag mask needs a finite position, facing and height, and a tag size in (0, 100) inches");
    if (l->nmask == l->capmask) {
        int nc = l->capmask ? l->capmask * 2 : 64;
        overlay__mask *m = realloc(l->mask, sizeof *m * (size_t)nc);
        if (!m)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        l->mask = m;
        l->capmask = nc;
    }
    l->mask[l->nmask++] = (overlay__mask){x, y, facing_deg, 0.5 * OVERLAY_TAG_MASK_FACTOR * tag_size_in, z_in};
    return TT_OK;
}

double overlay_tag_ring_in(double tag_size_in)
{
    return (tag_size_in > 0 ? tag_size_in : 0.8) * OVERLAY_TAG_MASK_FACTOR * M_SQRT1_2 + 0.1;
}

int overlay_list_mask_count(const overlay_list *l)
{
    return l ? l->nmask : 0;
}

/* 0 when the image surface t is black all over the box around the 4
 * pixel points (nothing to mask there); 1 when lit or unknown. */
static int mask__lit(cairo_surface_t *t, const double *px)
{
    if (cairo_surface_get_type(t) != CAIRO_SURFACE_TYPE_IMAGE ||
        (cairo_image_surface_get_format(t) != CAIRO_FORMAT_ARGB32 &&
         cairo_image_surface_get_format(t) != CAIRO_FORMAT_RGB24))
        return 1;
    int w = cairo_image_surface_get_width(t), h = cairo_image_surface_get_height(t);
    int stride = cairo_image_surface_get_stride(t);
    const unsigned char *d = cairo_image_surface_get_data(t);
    double x0 = fmin(fmin(px[0], px[2]), fmin(px[4], px[6])), x1 = fmax(fmax(px[0], px[2]), fmax(px[4], px[6]));
    double y0 = fmin(fmin(px[1], px[3]), fmin(px[5], px[7])), y1 = fmax(fmax(px[1], px[3]), fmax(px[5], px[7]));
    int i0 = (int)fmax(floor(x0) - 1, 0), i1 = (int)fmin(ceil(x1) + 1, w - 1);
    int j0 = (int)fmax(floor(y0) - 1, 0), j1 = (int)fmin(ceil(y1) + 1, h - 1);
    if (!d)
        return 1;
    for (int j = j0; j <= j1; j++) {
        const uint32_t *row = (const uint32_t *)(d + (size_t)j * (size_t)stride);
        uint32_t any = 0;
        for (int i = i0; i <= i1; i++)
            any |= row[i];
        if (any & 0xffffffu)
            return 1;
    }
    return 0;
}

/* Paint the convex quad px (4 points, target pixels) opaque black straight
 * into the image surface's rows, grown by a pixel all round so that every
 * pixel it touches is dark; returns 0 when t is not such a surface.  (One
 * cairo_fill per mask cost 1.0-1.2 ms for 120 masks in bench_overlay, a
 * third of the frame; these spans cost a tenth of that.) */
static int mask__spans(cairo_surface_t *t, const double *px)
{
    if (cairo_surface_get_type(t) != CAIRO_SURFACE_TYPE_IMAGE ||
        (cairo_image_surface_get_format(t) != CAIRO_FORMAT_ARGB32 &&
         cairo_image_surface_get_format(t) != CAIRO_FORMAT_RGB24) ||
        !cairo_image_surface_get_data(t))
        return 0;
    int w = cairo_image_surface_get_width(t), h = cairo_image_surface_get_height(t);
    int stride = cairo_image_surface_get_stride(t);
    unsigned char *d = cairo_image_surface_get_data(t);
    double q[8], cx = (px[0] + px[2] + px[4] + px[6]) / 4, cy = (px[1] + px[3] + px[5] + px[7]) / 4;
    double y0 = INFINITY, y1 = -INFINITY;
    for (int k = 0; k < 4; k++) {
        double dx = px[2 * k] - cx, dy = px[2 * k + 1] - cy, r = hypot(dx, dy), g = r > 0 ? (r + 1.5) / r : 1;
        q[2 * k] = cx + dx * g;
        q[2 * k + 1] = cy + dy * g;
        y0 = fmin(y0, q[2 * k + 1]);
        y1 = fmax(y1, q[2 * k + 1]);
    }
    int j0 = (int)fmax(ceil(y0), 0), j1 = (int)fmin(floor(y1), h - 1), bx0 = w, bx1 = -1;
    for (int j = j0; j <= j1; j++) {
        double xa = INFINITY, xb = -INFINITY;
        for (int k = 0; k < 4; k++) {
            double ax = q[2 * k], ay = q[2 * k + 1], bx = q[(2 * k + 2) % 8], by = q[(2 * k + 3) % 8];
            if ((ay <= j && by >= j) || (by <= j && ay >= j)) {
                double x = ay == by ? fmin(ax, bx) : ax + (j - ay) * (bx - ax) / (by - ay);
                double x2 = ay == by ? fmax(ax, bx) : x;
                xa = fmin(xa, x);
                xb = fmax(xb, x2);
            }
        }
        int i0 = (int)fmax(ceil(xa), 0), i1 = (int)fmin(floor(xb), w - 1);
        uint32_t *row = (uint32_t *)(d + (size_t)j * (size_t)stride);
        for (int i = i0; i <= i1; i++)
            row[i] = 0xff000000u;
        if (i0 <= i1) {
            bx0 = i0 < bx0 ? i0 : bx0;
            bx1 = i1 > bx1 ? i1 : bx1;
        }
    }
    if (bx0 <= bx1)
        cairo_surface_mark_dirty_rectangle(t, bx0, j0, bx1 - bx0 + 1, j1 - j0 + 1);
    return 1;
}

void overlay__apply_masks(const overlay_list *l, const overlay_mapper *m, cairo_t *cr)
{
    if (!l->nmask)
        return;
    cairo_surface_t *t = cairo_get_group_target(cr);
    cairo_matrix_t ctm;
    cairo_get_matrix(cr, &ctm);
    double ox = 0, oy = 0;
    cairo_surface_get_device_offset(t, &ox, &oy);
    /* straight into the pixels when user space is the image's own */
    int direct = ctm.xx == 1 && ctm.yy == 1 && ctm.xy == 0 && ctm.yx == 0 && ctm.x0 == 0 && ctm.y0 == 0 && ox == 0 &&
                 oy == 0;
    cairo_surface_flush(t);
    cairo_save(cr);
    /* opaque black OVER anything is black: cairo's fast path (SOURCE with
     * antialiased edges composites through a mask) */
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_FAST);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_new_path(cr);
    for (int i = 0; i < l->nmask; i++) {
        const overlay__mask *k = &l->mask[i];
        double a = k->facing_deg * (M_PI / 180), c = cos(a) * k->half_in, s = sin(a) * k->half_in;
        double xy[8] = {k->x + c - s, k->y + s + c, k->x - c - s, k->y - s + c,
                        k->x - c + s, k->y - s - c, k->x + c + s, k->y + s - c};
        double px[8];
        if (m->map3) { /* at the tag's own height (a figure on a hill) */
            double xyz[12];
            for (int j = 0; j < 4; j++) {
                xyz[3 * j] = xy[2 * j];
                xyz[3 * j + 1] = xy[2 * j + 1];
                xyz[3 * j + 2] = k->z_in;
            }
            m->map3(m->user, xyz, 4, px);
        } else
            m->map(m->user, xy, 4, px);
        int ok = 1;
        for (int j = 0; j < 8; j++)
            ok = ok && isfinite(px[j]) && fabs(px[j]) < 1e6;
        if (!ok || !mask__lit(t, px))
            continue; /* off the projector's image, or nothing lit there */
        if (direct && mask__spans(t, px))
            continue;
        /* one fill per square: cairo scans a path's whole bounding box, and
         * one path of every mask would span the frame */
        cairo_move_to(cr, px[0], px[1]);
        for (int j = 1; j < 4; j++)
            cairo_line_to(cr, px[2 * j], px[2 * j + 1]);
        cairo_close_path(cr);
        cairo_fill(cr);
    }
    cairo_restore(cr);
}
