/* overlay_list.c - the list of primitives and the palette. */
#include "overlay_internal.h"
#include "tt_palette.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The roles' names, in the order of overlay_role; their colours are the
 * shared palette's (tt_palette.h). */
static const char *const overlay__role_names[OVERLAY_ROLE_COUNT] = {
    [OVERLAY_ROLE_NEUTRAL] = "neutral", [OVERLAY_ROLE_CLEAR] = "clear",   [OVERLAY_ROLE_BLOCKED] = "blocked",
    [OVERLAY_ROLE_SHORT] = "short",     [OVERLAY_ROLE_MEDIUM] = "medium", [OVERLAY_ROLE_LONG] = "long",
    [OVERLAY_ROLE_ARC] = "arc",         [OVERLAY_ROLE_BLAST] = "blast",   [OVERLAY_ROLE_BALL] = "ball",
    [OVERLAY_ROLE_COMMAND] = "command", [OVERLAY_ROLE_TARGET] = "target",
};

void overlay_role_rgb(overlay_role role, double rgb[3])
{
    const tt_palette_entry *e = tt_palette_role(overlay_role_name(role));
    rgb[0] = e->r / 255.0;
    rgb[1] = e->g / 255.0;
    rgb[2] = e->b / 255.0;
}

const char *overlay_role_name(overlay_role role)
{
    if ((int)role < 0 || role >= OVERLAY_ROLE_COUNT)
        return "?";
    return overlay__role_names[role];
}

overlay_style overlay_style_line(overlay_role role, double width_in)
{
    overlay_style s = {role, width_in, 0, 0, 1, 0};
    return s;
}

overlay_style overlay_style_edge(overlay_role role, double width_in, double band_alpha)
{
    overlay_style s = {role, width_in, 0, band_alpha, 1, OVERLAY_EDGE_BAND_IN};
    return s;
}

tt_status overlay_list_create(overlay_list **out, tt_err *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? TT_OK : tt_err_set(err, TT_ERR_NOMEM, "out of memory");
}

void overlay_list_clear(overlay_list *l)
{
    if (!l)
        return;
    for (int i = 0; i < l->n; i++) {
        free(l->p[i].xy);
        free(l->p[i].text);
    }
    l->n = 0;
    l->nmask = 0;
}

void overlay_list_destroy(overlay_list *l)
{
    if (!l)
        return;
    overlay_list_clear(l);
    free(l->p);
    free(l->mask);
    free(l);
}

int overlay_list_count(const overlay_list *l)
{
    return l ? l->n : 0;
}

static tt_status overlay__check_style(const overlay_style *st, tt_err *err)
{
    if (!(st->width_in >= 0 && st->width_in < 100) || !(st->fill_alpha >= 0 && st->fill_alpha <= 1) ||
        !(st->alpha >= 0 && st->alpha <= 1) || !(st->band_in >= 0 && st->band_in < 100) || (int)st->role < 0 ||
        st->role >= OVERLAY_ROLE_COUNT)
        return tt_err_set(err, TT_ERR_ARG,
                          "overlay style: width and band must be 0..100 in, opacities 0..1 and the role a known one");
    return TT_OK;
}

static overlay__prim *overlay__push(overlay_list *l, overlay__kind kind, const overlay_style *st, tt_err *err)
{
    if (overlay__check_style(st, err) != TT_OK)
        return NULL;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 32;
        overlay__prim *p = realloc(l->p, (size_t)cap * sizeof *p);
        if (!p) {
            tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            return NULL;
        }
        l->p = p;
        l->cap = cap;
    }
    overlay__prim *p = &l->p[l->n];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->st = *st;
    if (p->st.alpha == 0)
        p->st.alpha = 1;
    return p;
}

tt_status overlay_set_last_height(overlay_list *l, double z_in, tt_err *err)
{
    if (!l || l->n == 0)
        return tt_err_set(err, TT_ERR_ARG, "overlay_set_last_height: the list has no primitive yet");
    if (!isfinite(z_in) || z_in < 0)
        return tt_err_set(err, TT_ERR_ARG, "overlay_set_last_height: height %g is not a height above the felt",
                          z_in);
    l->p[l->n - 1].at_height = 1;
    l->p[l->n - 1].z_in = z_in;
    return TT_OK;
}

static int overlay__finite(int n, const double *v)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

static tt_status overlay__points(overlay_list *l, overlay__kind kind, const double *xy, int n, int min,
                                 overlay_style st, tt_err *err)
{
    if (!l || !xy || n < min || !overlay__finite(2 * n, xy))
        return tt_err_set(err, TT_ERR_ARG, "overlay: a %s needs %d or more finite points",
                          kind == OVERLAY__POLYGON ? "polygon" : "line", min);
    double *c = malloc((size_t)n * 2 * sizeof *c);
    if (!c)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    memcpy(c, xy, (size_t)n * 2 * sizeof *c);
    overlay__prim *p = overlay__push(l, kind, &st, err);
    if (!p) {
        free(c);
        return err ? err->status : TT_ERR_ARG;
    }
    p->xy = c;
    p->n = n;
    l->n++;
    return TT_OK;
}

tt_status overlay_add_line(overlay_list *l, double x0, double y0, double x1, double y1, overlay_style st, tt_err *err)
{
    double xy[4] = {x0, y0, x1, y1};
    return overlay__points(l, OVERLAY__POLYLINE, xy, 2, 2, st, err);
}

tt_status overlay_add_polyline(overlay_list *l, const double *xy, int n, overlay_style st, tt_err *err)
{
    return overlay__points(l, OVERLAY__POLYLINE, xy, n, 2, st, err);
}

tt_status overlay_add_polygon(overlay_list *l, const double *xy, int n, overlay_style st, tt_err *err)
{
    return overlay__points(l, OVERLAY__POLYGON, xy, n, 3, st, err);
}

static tt_status overlay__round(overlay_list *l, overlay__kind kind, double cx, double cy, double r0, double r1,
                                double a0, double a1, overlay_style st, tt_err *err)
{
    double v[6] = {cx, cy, r0, r1, a0, a1};
    if (!l || !overlay__finite(6, v) || r0 < 0 || r1 <= 0 || r0 > r1 || r1 > 1e4)
        return tt_err_set(err, TT_ERR_ARG, "overlay: radii must be finite, positive and in order (got %g, %g)", r0,
                          r1);
    if ((kind == OVERLAY__ARC || kind == OVERLAY__SECTOR) && !(a1 > a0 && a1 - a0 <= 360))
        return tt_err_set(err, TT_ERR_ARG, "overlay: an arc goes counter-clockwise from a0 to a1 (got %g..%g deg)",
                          a0, a1);
    overlay__prim *p = overlay__push(l, kind, &st, err);
    if (!p)
        return err ? err->status : TT_ERR_ARG;
    p->cx = cx;
    p->cy = cy;
    p->r0 = r0;
    p->r1 = r1;
    p->a0 = a0;
    p->a1 = a1;
    l->n++;
    return TT_OK;
}

tt_status overlay_add_circle(overlay_list *l, double cx, double cy, double r, overlay_style st, tt_err *err)
{
    return overlay__round(l, OVERLAY__CIRCLE, cx, cy, 0, r, 0, 360, st, err);
}

tt_status overlay_add_arc(overlay_list *l, double cx, double cy, double r, double a0_deg, double a1_deg,
                          overlay_style st, tt_err *err)
{
    return overlay__round(l, OVERLAY__ARC, cx, cy, 0, r, a0_deg, a1_deg, st, err);
}

tt_status overlay_add_sector(overlay_list *l, double cx, double cy, double r0, double r1, double a0_deg,
                             double a1_deg, overlay_style st, tt_err *err)
{
    return overlay__round(l, OVERLAY__SECTOR, cx, cy, r0, r1, a0_deg, a1_deg, st, err);
}

tt_status overlay_add_ring(overlay_list *l, double cx, double cy, double r0, double r1, overlay_style st,
                           tt_err *err)
{
    return overlay__round(l, OVERLAY__RING, cx, cy, r0, r1, 0, 360, st, err);
}

tt_status overlay_add_text(overlay_list *l, double x, double y, const char *text, double size_in, double angle_deg,
                           overlay_role role, tt_err *err)
{
    double v[4] = {x, y, size_in, angle_deg};
    if (!l || !text || !overlay__finite(4, v) || !(size_in > 0 && size_in < 100))
        return tt_err_set(err, TT_ERR_ARG, "overlay: text needs a position and a size in inches (0..100)");
    char *t = strdup(text);
    if (!t)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    overlay_style st = overlay_style_line(role, 0);
    overlay__prim *p = overlay__push(l, OVERLAY__TEXT, &st, err);
    if (!p) {
        free(t);
        return err ? err->status : TT_ERR_ARG;
    }
    p->cx = x;
    p->cy = y;
    p->text = t;
    p->size_in = size_in;
    p->angle_deg = angle_deg;
    l->n++;
    return TT_OK;
}
