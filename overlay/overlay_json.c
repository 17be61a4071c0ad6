/* overlay_json.c - the primitives of a list as JSON (overlay_list_to_json):
 * what the list would draw, in table inches, for drawings outside C.  The
 * format is docs/api.md's "What an answer looks like". */
#include "overlay_internal.h"

#include <jansson.h>

static const char *const overlay__kind_names[] = {
    [OVERLAY__POLYLINE] = "polyline", [OVERLAY__POLYGON] = "polygon", [OVERLAY__CIRCLE] = "circle",
    [OVERLAY__ARC] = "arc",           [OVERLAY__SECTOR] = "sector",   [OVERLAY__RING] = "ring",
    [OVERLAY__TEXT] = "text",
};

/* The shape of p (its points, centre and radii, or text) into o. */
static int overlay__json_shape(json_t *o, const overlay__prim *p)
{
    int bad = 0;
    if (p->kind == OVERLAY__POLYLINE || p->kind == OVERLAY__POLYGON) {
        json_t *pts = json_array();
        for (int i = 0; pts && i < p->n; i++)
            bad |= json_array_append_new(pts, json_pack("[f,f]", p->xy[2 * i], p->xy[2 * i + 1]));
        return bad | json_object_set_new(o, "points", pts);
    }
    bad |= json_object_set_new(o, "at", json_pack("[f,f]", p->cx, p->cy));
    if (p->kind == OVERLAY__TEXT)
        return bad | json_object_set_new(o, "text", json_string(p->text)) |
               json_object_set_new(o, "size_in", json_real(p->size_in)) |
               json_object_set_new(o, "angle_deg", json_real(p->angle_deg));
    bad |= json_object_set_new(o, "r_in", json_real(p->r1));
    if (p->kind == OVERLAY__SECTOR || p->kind == OVERLAY__RING)
        bad |= json_object_set_new(o, "r0_in", json_real(p->r0));
    if (p->kind == OVERLAY__ARC || p->kind == OVERLAY__SECTOR)
        bad |= json_object_set_new(o, "a0_deg", json_real(p->a0)) | json_object_set_new(o, "a1_deg", json_real(p->a1));
    return bad;
}

/* One primitive: its kind, role and style, then its shape. */
static json_t *overlay__json_prim(const overlay__prim *p)
{
    json_t *o = json_pack("{s:s, s:s}", "kind", overlay__kind_names[p->kind], "role", overlay_role_name(p->st.role));
    if (!o)
        return NULL;
    int bad = 0;
    if (p->kind != OVERLAY__TEXT) {
        bad |= json_object_set_new(o, "width_in", json_real(p->st.width_in));
        if (p->st.dashed)
            bad |= json_object_set_new(o, "dashed", json_true());
        if (p->st.fill_alpha > 0)
            bad |= json_object_set_new(o, "fill_alpha", json_real(p->st.fill_alpha));
        if (p->st.alpha < 1)
            bad |= json_object_set_new(o, "alpha", json_real(p->st.alpha));
        if (p->st.band_in > 0)
            bad |= json_object_set_new(o, "band_in", json_real(p->st.band_in));
    }
    if (p->at_height)
        bad |= json_object_set_new(o, "z_in", json_real(p->z_in));
    bad |= overlay__json_shape(o, p);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

tt_status overlay_list_to_json(const overlay_list *l, json_t **out, tt_err *err)
{
    json_t *a = json_array();
    for (int i = 0; a && l && i < l->n; i++)
        if (json_array_append_new(a, overlay__json_prim(&l->p[i])) != 0) {
            json_decref(a);
            a = NULL;
        }
    for (int i = 0; a && l && i < l->nmask; i++) {
        const overlay__mask *m = &l->mask[i];
        if (json_array_append_new(a, json_pack("{s:s, s:[f,f], s:f, s:f, s:f}", "kind", "tag_mask", "at", m->x, m->y,
                                               "facing_deg", m->facing_deg, "side_in", 2 * m->half_in, "z_in",
                                               m->z_in)) != 0) {
            json_decref(a);
            a = NULL;
        }
    }
    *out = a;
    return a ? TT_OK : tt_err_set(err, TT_ERR_NOMEM, "out of memory");
}
