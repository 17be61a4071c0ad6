/* overlay_json.c - the primitives of a list as JSON (overlay_list_to_json):
 * what the list would draw, in table inches, for drawings outside C.  The
 * format is docs/api.md's "What an answer looks like": places to 0.01"
 * and angles to 0.1 degree (what a tape and a protractor read), a line's
 * points that stray less than OVERLAY_JSON_TOL_IN from it left out. */
#include "overlay_internal.h"

#include <jansson.h>
#include <math.h>

/* Places to 0.01", as the live state gives the figures' (the same double
 * rounds to the same number in both). */
static json_t *overlay__in(double v)
{
    return json_real(isfinite(v) ? round(v * 100) / 100 + 0.0 : 0);
}

static json_t *overlay__deg(double v)
{
    return json_real(isfinite(v) ? round(v * 10) / 10 + 0.0 : 0);
}

/* Distance of point p from segment a-b. */
static double overlay__off(const double *a, const double *b, const double *p)
{
    double dx = b[0] - a[0], dy = b[1] - a[1], L2 = dx * dx + dy * dy;
    double t = L2 > 0 ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / L2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
}

/* The points of a polyline or polygon, each kept only where leaving it out
 * would move the line by OVERLAY_JSON_TOL_IN or more (a blast's 720-sided
 * outline becomes a few dozen points; every corner stays). */
static json_t *overlay__points(const double *xy, int n)
{
    json_t *pts = json_array();
    int a = 0, bad = 0;
    for (int i = 0; pts && i < n && !bad; i++) {
        if (i > 0 && i < n - 1) {
            int keep = 0;
            for (int k = a + 1; k <= i && !keep; k++)
                keep = overlay__off(xy + 2 * a, xy + 2 * (i + 1), xy + 2 * k) >= OVERLAY_JSON_TOL_IN;
            if (!keep)
                continue;
        }
        bad = json_array_append_new(pts, json_pack("[o,o]", overlay__in(xy[2 * i]), overlay__in(xy[2 * i + 1])));
        a = i;
    }
    if (bad) {
        json_decref(pts);
        return NULL;
    }
    return pts;
}

static const char *const overlay__kind_names[] = {
    [OVERLAY__POLYLINE] = "polyline", [OVERLAY__POLYGON] = "polygon", [OVERLAY__CIRCLE] = "circle",
    [OVERLAY__ARC] = "arc",           [OVERLAY__SECTOR] = "sector",   [OVERLAY__RING] = "ring",
    [OVERLAY__TEXT] = "text",
};

/* The shape of p (its points, centre and radii, or text) into o. */
static int overlay__json_shape(json_t *o, const overlay__prim *p)
{
    int bad = 0;
    if (p->kind == OVERLAY__POLYLINE || p->kind == OVERLAY__POLYGON)
        return json_object_set_new(o, "points", overlay__points(p->xy, p->n));
    bad |= json_object_set_new(o, "at", json_pack("[o,o]", overlay__in(p->cx), overlay__in(p->cy)));
    if (p->kind == OVERLAY__TEXT)
        return bad | json_object_set_new(o, "text", json_string(p->text)) |
               json_object_set_new(o, "size_in", json_real(p->size_in)) |
               json_object_set_new(o, "angle_deg", overlay__deg(p->angle_deg));
    bad |= json_object_set_new(o, "r_in", overlay__in(p->r1));
    if (p->kind == OVERLAY__SECTOR || p->kind == OVERLAY__RING)
        bad |= json_object_set_new(o, "r0_in", overlay__in(p->r0));
    if (p->kind == OVERLAY__ARC || p->kind == OVERLAY__SECTOR)
        bad |= json_object_set_new(o, "a0_deg", overlay__deg(p->a0)) | json_object_set_new(o, "a1_deg", overlay__deg(p->a1));
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

/* Primitives first..last-1 of l into a (NULL when out of memory). */
static json_t *overlay__json_prims(const overlay_list *l, int first, int last, json_t *a)
{
    for (int i = first < 0 ? 0 : first; a && l && i < last && i < l->n; i++)
        if (json_array_append_new(a, overlay__json_prim(&l->p[i])) != 0) {
            json_decref(a);
            a = NULL;
        }
    return a;
}

tt_status overlay_list_range_json(const overlay_list *l, int first, int last, json_t **out, tt_err *err)
{
    *out = overlay__json_prims(l, first, last, json_array());
    return *out ? TT_OK : tt_err_set(err, TT_ERR_NOMEM, "out of memory");
}

tt_status overlay_list_to_json(const overlay_list *l, json_t **out, tt_err *err)
{
    json_t *a = overlay__json_prims(l, 0, l ? l->n : 0, json_array());
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
