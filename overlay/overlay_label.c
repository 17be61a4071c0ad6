/* overlay_label.c - text primitives: the glyph outlines from cairo, through
 * the local affine of the map at the text's anchor.
 *
 * Labels: the glyph outlines, filled the same way as every other fill
 * (overlay_cov_fill) once and kept with the surface while text and place
 * stay the same (label__cached); on a target that is not a plain image
 * surface, or when the cache is full, cairo fills them (overlay__paint_begin,
 * overlay__paint_end). */
#include "overlay_draw.h"
#include "overlay_blend.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The labels' font face, made once and kept (a face selected by name is
 * looked up through fontconfig whenever it is made anew). */
static cairo_font_face_t *label__face(void)
{
    static cairo_font_face_t *face;
    cairo_font_face_t *f = __atomic_load_n(&face, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    f = cairo_toy_font_face_create("DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_font_face_t *expected = NULL;
    if (!__atomic_compare_exchange_n(&face, &expected, f, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        cairo_font_face_destroy(f); /* another thread made it first */
        f = expected;
    }
    return f;
}

/* Labels drawn straight into the target keep their coverage, rendered
 * once, with the surface (user data) for the next frames: a label whose
 * text and place (the whole pixel matrix: size, angle, perspective,
 * position to a fraction of a pixel) are the same as a kept one is only
 * blended again.  Labels not drawn in a frame are dropped at the end of it.
 * The coverage is the exact-area fill (overlay_cov_fill) of the glyph
 * outlines cairo gives. */
typedef struct label__entry {
    char *text;
    double m[6]; /* pixel matrix (cairo_matrix_t: xx yx xy yy x0 y0) */
    double size;
    int x0, y0, w, h; /* the coverage's box in target pixels */
    unsigned char *a; /* w * h */
    unsigned frame;   /* last drawn */
} label__entry;

#define LABEL__MAX 256

typedef struct label__cache {
    label__entry *l;
    int n, cap;
    unsigned frame;
} label__cache;

static cairo_user_data_key_t label__key;

static void label__cache_destroy(void *p)
{
    label__cache *ls = p;
    for (int i = 0; i < ls->n; i++) {
        free(ls->l[i].text);
        free(ls->l[i].a);
    }
    free(ls->l);
    free(ls);
}

static label__cache *label__cache_get(overlay__drawing *c)
{
    label__cache *ls = cairo_surface_get_user_data(c->img, &label__key);
    if (ls)
        return ls;
    ls = calloc(1, sizeof *ls);
    if (!ls || cairo_surface_set_user_data(c->img, &label__key, ls, label__cache_destroy) != CAIRO_STATUS_SUCCESS) {
        free(ls);
        return NULL;
    }
    return ls;
}

/* Drop what was not drawn this frame (called at the end of a draw). */
void overlay__label_sweep(overlay__drawing *c)
{
    if (!c->img || c->rast_ok != 1)
        return;
    label__cache *ls = cairo_surface_get_user_data(c->img, &label__key);
    if (!ls)
        return;
    int k = 0;
    for (int i = 0; i < ls->n; i++) {
        if (ls->l[i].frame == ls->frame) {
            ls->l[k++] = ls->l[i];
        } else {
            free(ls->l[i].text);
            free(ls->l[i].a);
        }
    }
    ls->n = k;
    ls->frame++;
}

/* Render a label's coverage into e: the glyph outlines from cairo,
 * flattened (within 0.1 pixel), filled by overlay_cov_fill (exact area,
 * non-zero) into a buffer of the label's box (its ink plus 2 pixels).
 * t: the drawing's context, its matrix the identity (cairo leaves out
 * glyphs that fall outside the target).
 * Returns 1, 0 when there is nothing to draw, -1 when out of memory. */
static int label__render(label__entry *e, const overlay__prim *p, const cairo_matrix_t *mtx, cairo_t *t)
{
    cairo_save(t);
    cairo_identity_matrix(t);
    cairo_new_path(t);
    cairo_transform(t, mtx);
    cairo_set_font_face(t, label__face());
    cairo_set_font_size(t, p->size_in / 0.73); /* DejaVu Sans: cap height 0.73 em */
    cairo_text_extents_t ext;
    cairo_text_extents(t, p->text, &ext);
    cairo_move_to(t, -(ext.x_bearing + ext.width / 2), -(ext.y_bearing + ext.height / 2));
    cairo_text_path(t, p->text);
    cairo_restore(t); /* the path stays, in pixels */
    cairo_path_t *path = cairo_copy_path_flat(t);
    cairo_new_path(t);
    if (!path || path->status != CAIRO_STATUS_SUCCESS) {
        cairo_path_destroy(path);
        return -1;
    }
    /* the loops, one after the other, and the box */
    int npts = 0, nloops = 0;
    for (int i = 0; i < path->num_data; i += path->data[i].header.length) {
        cairo_path_data_type_t ty = path->data[i].header.type;
        npts += ty == CAIRO_PATH_MOVE_TO || ty == CAIRO_PATH_LINE_TO;
        nloops += ty == CAIRO_PATH_MOVE_TO;
    }
    double *xy = malloc(sizeof(double) * 2 * (size_t)(npts + 1));
    int *ln = calloc((size_t)nloops + 1, sizeof *ln);
    int rc = -1;
    if (!xy || !ln)
        goto out;
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    int k = 0, l = -1;
    for (int i = 0; i < path->num_data; i += path->data[i].header.length) {
        cairo_path_data_type_t ty = path->data[i].header.type;
        if (ty != CAIRO_PATH_MOVE_TO && ty != CAIRO_PATH_LINE_TO)
            continue;
        if (ty == CAIRO_PATH_MOVE_TO)
            l++;
        double x = path->data[i + 1].point.x, y = path->data[i + 1].point.y;
        xy[2 * k] = x;
        xy[2 * k + 1] = y;
        k++;
        ln[l]++;
        x0 = fmin(x0, x);
        x1 = fmax(x1, x);
        y0 = fmin(y0, y);
        y1 = fmax(y1, y);
    }
    rc = 0;
    if (k == 0 || !(x1 - x0 < 8192 && y1 - y0 < 8192) || !(fabs(x0) < 1e6 && fabs(y0) < 1e6))
        goto out; /* nothing, huge or not finite: nothing to draw */
    e->x0 = (int)floor(x0) - 2;
    e->y0 = (int)floor(y0) - 2;
    e->w = (int)ceil(x1) + 2 - e->x0;
    e->h = (int)ceil(y1) + 2 - e->y0;
    for (int i = 0; i < k; i++) {
        xy[2 * i] -= e->x0;
        xy[2 * i + 1] -= e->y0;
    }
    overlay_cov cov;
    rc = -1;
    if (!overlay_cov_init(&cov, e->w, e->h))
        goto out;
    if (overlay_cov_fill(&cov, xy, ln, l + 1, 0)) {
        e->a = cov.a; /* w * h coverage, rows of w: the label's own */
        cov.a = NULL;
        rc = 1;
    }
    overlay_cov_free(&cov);
out:
    free(xy);
    free(ln);
    cairo_path_destroy(path);
    return rc;
}

/* A label through the cache, blended into the target.  Returns 0 when the
 * cache cannot be used (then cairo draws it the old way). */
static int label__cached(overlay__drawing *c, const overlay__prim *p, const cairo_matrix_t *mtx)
{
    if (!overlay__paint_rast_ready(c))
        return 0;
    label__cache *ls = label__cache_get(c);
    if (!ls)
        return 0;
    const double key[6] = {mtx->xx, mtx->yx, mtx->xy, mtx->yy, mtx->x0, mtx->y0};
    label__entry *e = NULL;
    for (int i = 0; i < ls->n && !e; i++)
        if (ls->l[i].size == p->size_in && memcmp(ls->l[i].m, key, sizeof key) == 0 && !strcmp(ls->l[i].text, p->text))
            e = &ls->l[i];
    if (!e) {
        if (ls->n >= LABEL__MAX)
            return 0;
        if (ls->n == ls->cap) {
            int cap = ls->cap ? 2 * ls->cap : 16;
            label__entry *nl = realloc(ls->l, (size_t)cap * sizeof *nl);
            if (!nl)
                return 0;
            ls->l = nl;
            ls->cap = cap;
        }
        label__entry ne = {0};
        ne.text = strdup(p->text);
        memcpy(ne.m, key, sizeof key);
        ne.size = p->size_in;
        overlay__paint_flush(c); /* the path is built on cr: nothing may wait there */
        int r = ne.text ? label__render(&ne, p, mtx, c->cr) : -1;
        if (r <= 0) {
            free(ne.text);
            free(ne.a);
            if (r < 0)
                c->oom = 1;
            return 1; /* nothing to draw (or out of memory) */
        }
        ls->l[ls->n] = ne;
        e = &ls->l[ls->n++];
    }
    e->frame = ls->frame;
    /* painting order: what waits in cairo and in the coverage goes first */
    overlay__paint_flush(c);
    overlay__paint_rast_flush(c);
    double rgb[3];
    overlay_role_rgb(p->st.role, rgb);
    uint32_t src = overlay__premul(rgb, p->st.alpha > 0 ? p->st.alpha : 1);
    int W = cairo_image_surface_get_width(c->img), H = cairo_image_surface_get_height(c->img);
    int xa = e->x0 < 0 ? 0 : e->x0, xb = e->x0 + e->w > W ? W : e->x0 + e->w;
    int ya = e->y0 < 0 ? 0 : e->y0, yb = e->y0 + e->h > H ? H : e->y0 + e->h;
    if (xa >= xb || ya >= yb)
        return 1;
    cairo_surface_flush(c->img);
    unsigned char *data = cairo_image_surface_get_data(c->img);
    int stride = cairo_image_surface_get_stride(c->img);
    for (int y = ya; y < yb; y++)
        overlay__blend_span((uint32_t *)(void *)(data + (size_t)y * stride) + xa,
                            e->a + (size_t)(y - e->y0) * e->w + (xa - e->x0), xb - xa, src);
    cairo_surface_mark_dirty_rectangle(c->img, xa, ya, xb - xa, yb - ya);
    overlay_cov_mark(c->cov, xa, ya, xb, yb);
    return 1;
}

void overlay__label_draw(overlay__drawing *c, const overlay__prim *p)
{
    const double e = 0.05;
    double pts[6] = {p->cx, p->cy, p->cx + e, p->cy, p->cx, p->cy + e}, px[6];
    overlay__path_map_triples(c, pts, 1, px);
    for (int i = 0; i < 6; i++)
        if (!isfinite(px[i]))
            return;
    double J[4] = {(px[2] - px[0]) / e, (px[4] - px[0]) / e, (px[3] - px[1]) / e, (px[5] - px[1]) / e};
    double a = p->angle_deg * M_PI / 180, bx = cos(a), by = sin(a), dx = -sin(a), dy = cos(a);
    cairo_matrix_t mtx;
    cairo_matrix_init(&mtx, J[0] * bx + J[1] * by, J[2] * bx + J[3] * by, J[0] * dx + J[1] * dy,
                      J[2] * dx + J[3] * dy, px[0], px[1]);
    if (fabs(mtx.xx * mtx.yy - mtx.xy * mtx.yx) < 1e-9)
        return;
    if (label__cached(c, p, &mtx))
        return;
    overlay__paint_begin(c, p->st.role, p->st.alpha);
    cairo_t *t = c->tgt;
    cairo_save(t);
    cairo_transform(t, &mtx);
    cairo_set_font_face(t, label__face());
    cairo_set_font_size(t, p->size_in / 0.73); /* DejaVu Sans: cap height 0.73 em */
    cairo_text_extents_t ext;
    cairo_text_extents(t, p->text, &ext);
    /* bounds (for the mask) from the text's box */
    double bxs[4] = {ext.x_bearing, ext.x_bearing + ext.width, ext.x_bearing + ext.width, ext.x_bearing};
    double bys[4] = {ext.y_bearing, ext.y_bearing, ext.y_bearing + ext.height, ext.y_bearing + ext.height};
    double ox = -(ext.x_bearing + ext.width / 2), oy = -(ext.y_bearing + ext.height / 2);
    for (int k = 0; k < 4; k++) {
        double ux = bxs[k] + ox, uy = bys[k] + oy;
        cairo_matrix_transform_point(&mtx, &ux, &uy);
        c->bx0 = fmin(c->bx0, ux);
        c->bx1 = fmax(c->bx1, ux);
        c->by0 = fmin(c->by0, uy);
        c->by1 = fmax(c->by1, uy);
    }
    c->bx0 -= 2; /* margin: glyph outlines against their ink extents */
    c->by0 -= 2;
    c->bx1 += 2;
    c->by1 += 2;
    c->loops += 2;
    cairo_move_to(t, ox, oy);
    cairo_text_path(t, p->text);
    cairo_restore(t); /* the path stays, in pixels */
    overlay__paint_end(c, p->st.role, p->st.alpha, CAIRO_FILL_RULE_WINDING);
}
