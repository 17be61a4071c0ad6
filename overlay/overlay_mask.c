/* overlay_mask.c - tags kept dark: the projector's light must not fall on
 * the tags the camera reads (Folk Computer masks each tag 2.1x its size).
 * A mask is a square in table inches, mapped corner by corner (a square of
 * two inches is straight enough under any projector map) and painted
 * opaque black over whatever the list drew. */
#include "overlay_internal.h"

#include <math.h>
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

void overlay__apply_masks(const overlay_list *l, const overlay_mapper *m, cairo_t *cr)
{
    if (!l->nmask)
        return;
    cairo_save(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_set_source_rgba(cr, 0, 0, 0, 1);
    cairo_new_path(cr);
    for (int i = 0; i < l->nmask; i++) {
        const overlay__mask *k = &l->mask[i];
        double a = k->facing_deg * (M_PI / 180), c = cos(a) * k->half_in, s = sin(a) * k->half_in;
        double xy[8] = {k->x + c - s, k->y + s + c, k->x - c - s, k->y - s + c,
                        k->x - c + s, k->y - s - c, k->x + c + s, k->y + s - c};
        double px[8];
        m->map(m->user, xy, 4, px);
        int ok = 1;
        for (int j = 0; j < 8; j++)
            ok = ok && isfinite(px[j]);
        if (!ok)
            continue; /* off the projector's image */
        cairo_move_to(cr, px[0], px[1]);
        for (int j = 1; j < 4; j++)
            cairo_line_to(cr, px[2 * j], px[2 * j + 1]);
        cairo_close_path(cr);
    }
    /* each square on its own: overlapping masks stay black (winding) */
    cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING);
    cairo_fill(cr);
    cairo_restore(cr);
}
