/* rec_draw.c - the top-down view of a game at one moment, drawn with
 * cairo: table, terrain, trails, query overlays, figures with facing, and
 * the clock.  The same picture as the HTML page (same colours). */
#include "rec_draw.h"

#include "tt_palette.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define REC_TRAIL_MS 15000
#define REC_MARGIN_IN 1.5

static void rec__rgb(cairo_t *cr, const char *hex, double alpha)
{
    unsigned r = 0x9e, g = 0x9e, b = 0x9e;
    if (hex && hex[0] == '#' && strlen(hex) == 7)
        sscanf(hex + 1, "%2x%2x%2x", &r, &g, &b);
    cairo_set_source_rgba(cr, r / 255.0, g / 255.0, b / 255.0, alpha);
}

static const char *rec__fig_colour(const rec_game *g, int fig)
{
    int s = g->figs[fig].side;
    return s >= 0 ? g->sides[s].colour : "#9e9e9e";
}

/* Centred text with a dark outline; size in inches. */
static void rec__text(cairo_t *cr, double x, double y, double size, const char *s)
{
    cairo_text_extents_t e;
    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - e.width / 2 - e.x_bearing, y);
    cairo_text_path(cr, s);
    cairo_set_source_rgba(cr, 0.07, 0.07, 0.07, 0.9);
    cairo_set_line_width(cr, size * 0.16);
    cairo_stroke_preserve(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_fill(cr);
}

static int rec__pos(const rec_game *g, int fig, long long t, const rec__state **out)
{
    long k = rec__game_state_at(g, fig, t);
    if (k < 0)
        return 0;
    *out = &g->states[k];
    return 1;
}

static double rec__jnum(const json_t *a, size_t i)
{
    return json_number_value(json_array_get(a, i));
}

static double rec__key(const json_t *p, const char *key, double dflt)
{
    const json_t *v = json_object_get(p, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

/* ---- painting the answers' primitives (table_look_json's) ----------------
 * What an answer looks like is table/table_look.c's; here is only how the
 * replay paints a primitive: in its role's colour (tt_palette, as on the
 * felt), strokes and text REC_LOOK_SCALE times the felt's (0.18" lines,
 * 0.9" text: a replay frame is small), dashes of 0.6" and 0.3", and text
 * white on a dark outline whatever its role (read on the felt's green, as
 * the replay's labels always were). */
#define REC_LOOK_SCALE 2.25

static void rec__role_rgb(cairo_t *cr, const json_t *p, double alpha)
{
    rec__rgb(cr, tt_palette_role(json_string_value(json_object_get(p, "role")))->hex, alpha);
}

/* The primitive's outline as a path; 0 when it has none to draw. */
static int rec__look_path(cairo_t *cr, const char *kind, const json_t *p)
{
    const json_t *at = json_object_get(p, "at"), *pts = json_object_get(p, "points");
    double cx = rec__jnum(at, 0), cy = rec__jnum(at, 1), r = rec__key(p, "r_in", 0), r0 = rec__key(p, "r0_in", 0);
    double a0 = rec__key(p, "a0_deg", 0) * M_PI / 180, a1 = rec__key(p, "a1_deg", 0) * M_PI / 180;
    size_t i;
    json_t *q;
    cairo_new_path(cr);
    if (!strcmp(kind, "polyline") || !strcmp(kind, "polygon")) {
        json_array_foreach(pts, i, q) cairo_line_to(cr, rec__jnum(q, 0), rec__jnum(q, 1));
        if (!strcmp(kind, "polygon"))
            cairo_close_path(cr);
        return json_array_size(pts) >= 2;
    }
    if (!strcmp(kind, "circle") || !strcmp(kind, "ring")) {
        cairo_arc(cr, cx, cy, r, 0, 2 * M_PI);
        if (!strcmp(kind, "ring") && r0 > 0) {
            cairo_new_sub_path(cr);
            cairo_arc_negative(cr, cx, cy, r0, 2 * M_PI, 0);
        }
        cairo_close_path(cr);
    } else if (!strcmp(kind, "arc")) {
        cairo_arc(cr, cx, cy, r, a0, a1);
    } else if (!strcmp(kind, "sector")) {
        if (r0 > 0)
            cairo_arc_negative(cr, cx, cy, r0, a1, a0);
        else
            cairo_move_to(cr, cx, cy);
        cairo_arc(cr, cx, cy, r, a0, a1);
        cairo_close_path(cr);
    } else {
        return 0;
    }
    return 1;
}

/* Text centred on its point, its cap height size_in x REC_LOOK_SCALE. */
static void rec__look_text(cairo_t *cr, const json_t *p)
{
    const json_t *at = json_object_get(p, "at");
    const char *text = json_string_value(json_object_get(p, "text"));
    if (!text)
        return;
    double size = rec__key(p, "size_in", 0.4) * REC_LOOK_SCALE;
    cairo_text_extents_t e, cap;
    cairo_save(cr);
    cairo_translate(cr, rec__jnum(at, 0), rec__jnum(at, 1));
    cairo_rotate(cr, rec__key(p, "angle_deg", 0) * M_PI / 180);
    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, text, &e);
    cairo_text_extents(cr, "H", &cap);
    cairo_new_path(cr);
    cairo_move_to(cr, -e.width / 2 - e.x_bearing, -cap.y_bearing / 2);
    cairo_text_path(cr, text);
    cairo_set_source_rgba(cr, 0.07, 0.07, 0.07, 0.9);
    cairo_set_line_width(cr, size * 0.16);
    cairo_stroke_preserve(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_fill(cr);
    cairo_restore(cr);
}

static void rec__prim(cairo_t *cr, const json_t *p)
{
    const char *kind = json_string_value(json_object_get(p, "kind"));
    if (!kind)
        return;
    if (!strcmp(kind, "text")) {
        rec__look_text(cr, p);
        return;
    }
    double fill = rec__key(p, "fill_alpha", 0), band = rec__key(p, "band_in", 0);
    double width = rec__key(p, "width_in", 0) * REC_LOOK_SCALE, alpha = rec__key(p, "alpha", 1);
    if (!rec__look_path(cr, kind, p))
        return;
    cairo_save(cr);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    if (fill > 0 && strcmp(kind, "polyline") && strcmp(kind, "arc")) {
        rec__role_rgb(cr, p, fill);
        if (band > 0) { /* only a band inside the edge: the edge twice as wide, clipped to the inside */
            cairo_save(cr);
            cairo_clip_preserve(cr);
            cairo_set_line_width(cr, 2 * band);
            cairo_stroke_preserve(cr);
            cairo_restore(cr);
        } else {
            cairo_fill_preserve(cr);
        }
    }
    if (width > 0) {
        double dash[] = {0.6, 0.3};
        if (json_is_true(json_object_get(p, "dashed")))
            cairo_set_dash(cr, dash, 2, 0);
        rec__role_rgb(cr, p, alpha > 0 ? alpha : 1);
        cairo_set_line_width(cr, width);
        cairo_stroke(cr);
    }
    cairo_new_path(cr);
    cairo_restore(cr);
}

static void rec__static(cairo_t *cr, const rec_game *g, long long t)
{
    double W = g->table_w, H = g->table_d;
    cairo_set_source_rgb(cr, 0x1d / 255.0, 0x1f / 255.0, 0x21 / 255.0);
    cairo_paint(cr);
    cairo_rectangle(cr, 0, 0, W, H);
    rec__rgb(cr, "#4b7a3b", 1);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
    cairo_set_line_width(cr, 0.2);
    cairo_stroke(cr);
    cairo_set_source_rgba(cr, 1, 1, 1, 0.13);
    cairo_set_line_width(cr, 0.04);
    for (double x = 6; x < W; x += 6) {
        cairo_move_to(cr, x, 0);
        cairo_line_to(cr, x, H);
    }
    for (double y = 6; y < H; y += 6) {
        cairo_move_to(cr, 0, y);
        cairo_line_to(cr, W, y);
    }
    cairo_stroke(cr);
    size_t nterrain;
    const rec__terrain *terrain = rec__game_terrain_at(g, t, &nterrain);
    for (size_t i = 0; i < nterrain; i++) {
        const rec__terrain *tr = &terrain[i];
        double cx = 0, cy = 0;
        cairo_new_path(cr);
        for (size_t k = 0; k < tr->n; k++) {
            cairo_line_to(cr, tr->pts[2 * k], tr->pts[2 * k + 1]);
            cx += tr->pts[2 * k];
            cy += tr->pts[2 * k + 1];
        }
        if (tr->closed) {
            cairo_close_path(cr);
            rec__rgb(cr, rec__terrain_colour(tr->kind), 0.8);
            cairo_fill_preserve(cr);
            cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            cairo_set_line_width(cr, 0.08);
            cairo_stroke(cr);
        } else {
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
            rec__rgb(cr, rec__terrain_colour(tr->kind), 1);
            cairo_set_line_width(cr, 0.5);
            cairo_stroke(cr);
        }
        rec__text(cr, cx / (double)tr->n, cy / (double)tr->n + 0.4, 1.1, tr->id[0] ? tr->id : tr->kind);
    }
}

static void rec__trails(cairo_t *cr, const rec_game *g, long long t)
{
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_width(cr, 0.22);
    for (size_t f = 0; f < g->nfigs; f++) {
        size_t n;
        const long *ix = rec__game_fig_states(g, (int)f, &n);
        long k = rec__game_state_at(g, (int)f, t);
        if (k < 0)
            continue;
        /* position of k in ix */
        size_t lo = 0, hi = n;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (ix[mid] <= k)
                lo = mid;
            else
                hi = mid;
        }
        long j = (long)lo;
        int pts = 0;
        cairo_new_path(cr);
        for (; j >= 0 && g->states[ix[j]].t_ms >= t - REC_TRAIL_MS; j--, pts++)
            cairo_line_to(cr, g->states[ix[j]].x, g->states[ix[j]].y);
        if (j >= 0 && pts) {
            cairo_line_to(cr, g->states[ix[j]].x, g->states[ix[j]].y);
            pts++;
        }
        if (pts > 1) {
            rec__rgb(cr, rec__fig_colour(g, (int)f), 0.6);
            cairo_stroke(cr);
        }
        cairo_new_path(cr);
    }
}

static void rec__figures(cairo_t *cr, const rec_game *g, long long t)
{
    static const double alpha[] = {1.0, 0.6, 0.25};
    for (size_t f = 0; f < g->nfigs; f++) {
        const rec__state *s;
        if (!rec__pos(g, (int)f, t, &s))
            continue;
        const rec__fig *fg = &g->figs[f];
        double a = alpha[s->state], th = s->facing * M_PI / 180;
        cairo_push_group(cr);
        cairo_new_path(cr);
        cairo_arc(cr, s->x, s->y, fg->radius, 0, 2 * M_PI);
        rec__rgb(cr, rec__fig_colour(g, (int)f), 1);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 0.07, 0.07, 0.07);
        cairo_set_line_width(cr, 0.07);
        cairo_stroke(cr);
        cairo_move_to(cr, s->x, s->y);
        cairo_line_to(cr, s->x + (fg->radius + 0.35) * cos(th), s->y + (fg->radius + 0.35) * sin(th));
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_set_line_width(cr, 0.14);
        cairo_stroke(cr);
        char label[64];
        if (fg->name)
            snprintf(label, sizeof label, "%s", fg->name);
        else
            snprintf(label, sizeof label, "%s:%d", fg->family, fg->tag);
        rec__text(cr, s->x, s->y + fg->radius + 0.8, 0.75, label);
        cairo_pop_group_to_source(cr);
        cairo_paint_with_alpha(cr, a);
    }
}

static void rec__clock(cairo_t *cr, const rec_game *g, long long t, double scale)
{
    long long ms = t - g->rec_t0, all = g->t1 - g->rec_t0;
    char buf[96];
    snprintf(buf, sizeof buf, "%lld:%02lld / %lld:%02lld   session %lld", ms / 60000, ms / 1000 % 60, all / 60000,
             all / 1000 % 60, g->session);
    cairo_save(cr);
    cairo_identity_matrix(cr);
    cairo_set_font_size(cr, 14.0 * scale / 16.0 + 6);
    cairo_move_to(cr, 8, 4 + 14.0 * scale / 16.0 + 6);
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_show_text(cr, buf);
    cairo_restore(cr);
}

void rec__draw_size(const rec_game *g, int width_px, int *w, int *h, double *scale)
{
    double sc = width_px / (g->table_w + 2 * REC_MARGIN_IN);
    *w = width_px & ~1;
    *h = (int)lround((g->table_d + 2 * REC_MARGIN_IN) * sc) & ~1;
    *scale = sc;
}

void rec__draw(cairo_t *cr, const rec_game *g, long long t, double scale)
{
    cairo_save(cr);
    cairo_scale(cr, scale, scale);
    cairo_translate(cr, REC_MARGIN_IN, REC_MARGIN_IN);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    rec__static(cr, g, t);
    rec__trails(cr, g, t);
    for (size_t i = 0; i < g->nqueries; i++) {
        const rec__query *q = &g->queries[i];
        if (q->t_ms <= t && t < q->t_ms + REC_OVERLAY_MS) {
            size_t k;
            json_t *p;
            json_array_foreach(q->overlay, k, p) rec__prim(cr, p);
        }
    }
    /* the referee's checks and calls, and where the game stands, as the felt showed them */
    const rec__ref *felt = rec__felt_at(g, t);
    const json_t *p;
    size_t k;
    for (int i = 0; felt && i < felt->nkept; i++)
        json_array_foreach(g->refs[felt->kept[i]].look, k, p) rec__prim(cr, p);
    json_array_foreach(felt && felt->phase_at >= 0 ? g->refs[felt->phase_at].corner : NULL, k, p) rec__prim(cr, p);
    rec__figures(cr, g, t);
    cairo_restore(cr);
    rec__clock(cr, g, t, scale);
}

cairo_surface_t *rec__draw_still(const rec_game *g, long long t, int width_px, cairo_format_t fmt)
{
    int w, h;
    double scale;
    rec__draw_size(g, width_px, &w, &h, &scale);
    cairo_surface_t *s = cairo_image_surface_create(fmt, w, h);
    cairo_t *cr = cairo_create(s);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        cairo_destroy(cr);
        cairo_surface_destroy(s);
        return NULL;
    }
    rec__draw(cr, g, t, scale);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    return s;
}
