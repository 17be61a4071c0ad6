/* table_scene.c - the game's table: the scenario, asking the rules, drawing the answers. */
#ifdef TT_HAVE_RULES
#include "table_scene.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "tt_json.h"

typedef struct table__figure {
    char *id, *unit, *weapon;
    double x, y, facing_deg;
    double radius_in; /* circle around the base: round radius or half diagonal */
} table__figure;

typedef struct table__piece {
    double *xy; /* points, owned */
    int n, closed, shields;
} table__piece;

typedef struct table__bracket {
    char name[16];
    double max_in;
} table__bracket;

struct table_scene {
    rules_scenario *sc;
    json_t *profile; /* ruleset profile (owned) */
    table__figure *figs;
    int nfigs;
    table__piece *pieces;
    int npieces;
    int cite; /* draw each answer's rule under the asker */
};

void table_scene_set_cite(table_scene *s, int on)
{
    if (s)
        s->cite = on != 0;
}

tt_status table_scene_place(table_scene *s, int tag_id, double x, double y, double facing_deg,
                              const char **figure_id, tt_err *err)
{
    const char *id = rules_scenario_tag_figure(s->sc, tag_id);
    if (figure_id)
        *figure_id = id;
    if (!id)
        return TT_OK;
    tt_status st = rules_scenario_place(s->sc, id, x, y, facing_deg, err);
    if (st != TT_OK)
        return st;
    for (int i = 0; i < s->nfigs; i++)
        if (!strcmp(s->figs[i].id, id)) {
            s->figs[i].x = x;
            s->figs[i].y = y;
            s->figs[i].facing_deg = facing_deg;
            if (figure_id)
                *figure_id = s->figs[i].id;
        }
    return TT_OK;
}

tt_status table_scene_mask_figures(const table_scene *s, double tag_size_in, double base_height_in,
                                     overlay_list *l, tt_err *err)
{
    tt_status st = TT_OK;
    for (int i = 0; s && i < s->nfigs && st == TT_OK; i++) {
        const table__figure *f = &s->figs[i];
        double z = rules_scenario_ground_in(s->sc, f->x, f->y) + base_height_in;
        st = overlay_add_tag_mask(l, f->x, f->y, f->facing_deg, tag_size_in, z, err);
    }
    return st;
}

double table_scene_ground_in(const void *scene, double x, double y)
{
    const table_scene *s = scene;
    return s ? rules_scenario_ground_in(s->sc, x, y) : 0.0;
}

void table_scene_destroy(table_scene *s)
{
    if (!s)
        return;
    rules_scenario_destroy(s->sc);
    json_decref(s->profile);
    for (int i = 0; i < s->nfigs; i++) {
        free(s->figs[i].id);
        free(s->figs[i].unit);
        free(s->figs[i].weapon);
    }
    free(s->figs);
    for (int i = 0; i < s->npieces; i++)
        free(s->pieces[i].xy);
    free(s->pieces);
    free(s);
}

/* Base size: the figure's own "base", else the profile's default, else a
 * 1" round base. */
static double table__base_radius(const json_t *base)
{
    const json_t *r = json_object_get(base, "round_in"), *rc = json_object_get(base, "rect_in");
    if (json_is_number(r))
        return json_number_value(r) / 2;
    if (json_is_array(rc) && json_array_size(rc) == 2)
        return 0.5 * hypot(json_number_value(json_array_get(rc, 0)), json_number_value(json_array_get(rc, 1)));
    return -1;
}

static int table__points(const json_t *a, table__piece *p)
{
    size_t n = json_array_size(a);
    if (n < 2)
        return 0;
    p->xy = malloc(n * 2 * sizeof *p->xy);
    if (!p->xy)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *pt = json_array_get(a, i);
        p->xy[2 * i] = json_number_value(json_array_get(pt, 0));
        p->xy[2 * i + 1] = json_number_value(json_array_get(pt, 1));
    }
    p->n = (int)n;
    return 1;
}

/* What drawing needs beyond the rules' scenario s->sc (already loaded and
 * validated from root). */
static tt_status table__scene_build(table_scene *s, const json_t *root, const char *base_dir,
                                  const char *const *data_dirs, tt_err *err)
{
    char ppath[4096];
    const char *ruleset = json_string_value(json_object_get(root, "ruleset"));
    if (ruleset && rules_profile_path(ruleset, base_dir, data_dirs, ppath, sizeof ppath, NULL) == TT_OK)
        tt_json_load_file(ppath, &s->profile, NULL); /* optional: range bands, base defaults */
    double def_r = table__base_radius(json_object_get(s->profile, "base"));
    if (def_r <= 0)
        def_r = 0.5;

    const json_t *figs = json_object_get(root, "figures");
    size_t nf = json_array_size(figs);
    s->figs = calloc(nf ? nf : 1, sizeof *s->figs);
    if (!s->figs)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < nf; i++) {
        const json_t *f = json_array_get(figs, i);
        table__figure *g = &s->figs[s->nfigs];
        const char *id = json_string_value(json_object_get(f, "id"));
        const char *unit = json_string_value(json_object_get(f, "unit"));
        if (!id)
            continue;
        const char *weapon = json_string_value(json_object_get(f, "weapon"));
        g->id = strdup(id);
        g->unit = strdup(unit ? unit : "");
        g->weapon = strdup(weapon ? weapon : "");
        if (!g->id || !g->unit || !g->weapon) {
            free(g->id);
            free(g->unit);
            free(g->weapon);
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        }
        g->x = json_number_value(json_object_get(f, "x"));
        g->y = json_number_value(json_object_get(f, "y"));
        g->facing_deg = json_number_value(json_object_get(f, "facing_deg"));
        g->radius_in = table__base_radius(json_object_get(f, "base"));
        if (g->radius_in <= 0)
            g->radius_in = def_r;
        s->nfigs++;
    }

    const json_t *ter = json_object_get(root, "terrain"), *kinds = json_object_get(s->profile, "terrain");
    size_t nt = json_array_size(ter);
    s->pieces = calloc(nt ? nt : 1, sizeof *s->pieces);
    if (!s->pieces)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < nt; i++) {
        const json_t *t = json_array_get(ter, i);
        const char *kind = json_string_value(json_object_get(t, "kind"));
        const json_t *sh = json_object_get(t, "shields_blast");
        if (!json_is_boolean(sh) && kind)
            sh = json_object_get(json_object_get(kinds, kind), "shields_blast");
        if (!json_is_true(sh))
            continue;
        table__piece *p = &s->pieces[s->npieces];
        const json_t *poly = json_object_get(t, "polygon");
        p->closed = json_is_array(poly);
        if (!table__points(p->closed ? poly : json_object_get(t, "line"), p))
            continue;
        p->shields = 1;
        s->npieces++;
    }
    return TT_OK;
}

tt_status table_scene_load(const char *path, const char *const *data_dirs, table_scene **out, tt_err *err)
{
    table_scene *s = NULL;
    json_t *root = NULL;
    char dirbuf[4096];
    tt_status st;
    *out = NULL;
    s = calloc(1, sizeof *s);
    if (!s)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    /* the rules engine validates everything; read the rest only after */
    if ((st = rules_scenario_load(path, data_dirs, &s->sc, err)) != TT_OK ||
        (st = tt_json_load_file(path, &root, err)) != TT_OK)
        goto fail;
    snprintf(dirbuf, sizeof dirbuf, "%s", path);
    if ((st = table__scene_build(s, root, dirname(dirbuf), data_dirs, err)) != TT_OK)
        goto fail;
    json_decref(root);
    *out = s;
    return TT_OK;
fail:
    json_decref(root);
    table_scene_destroy(s);
    return st;
}

tt_status table_scene_parse(const char *text, const char *where, const char *base_dir,
                              const char *const *data_dirs, table_scene **out, tt_err *err)
{
    table_scene *s = NULL;
    json_t *root = NULL;
    tt_status st;
    *out = NULL;
    s = calloc(1, sizeof *s);
    if (!s)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if ((st = rules_scenario_parse(text, where, base_dir, data_dirs, &s->sc, err)) != TT_OK ||
        (st = tt_json_parse(text, where, &root, err)) != TT_OK ||
        (st = table__scene_build(s, root, base_dir, data_dirs, err)) != TT_OK) {
        json_decref(root);
        table_scene_destroy(s);
        return st;
    }
    json_decref(root);
    *out = s;
    return TT_OK;
}

static const table__figure *table__fig(const table_scene *s, const char *id)
{
    for (int i = 0; id && i < s->nfigs; i++)
        if (!strcmp(s->figs[i].id, id))
            return &s->figs[i];
    return NULL;
}

/* ---- drawing helpers -------------------------------------------------- */

static tt_status table__ring_figure(overlay_list *l, const table__figure *f, overlay_role role, tt_err *err)
{
    overlay_style st = overlay_style_line(role, TABLE_LINE_IN);
    return overlay_add_circle(l, f->x, f->y, f->radius_in + 0.2, st, err);
}

static tt_status table__ring_ids(const table_scene *s, overlay_list *l, const rules_result *r, overlay_role role,
                               int numbered, tt_err *err)
{
    tt_status st = TT_OK;
    for (size_t i = 0; i < r->n_ids && st == TT_OK; i++) {
        const table__figure *f = table__fig(s, r->ids[i]);
        if (!f)
            continue;
        st = table__ring_figure(l, f, role, err);
        if (st == TT_OK && numbered) {
            char num[24];
            snprintf(num, sizeof num, "%zu", i + 1);
            st = overlay_add_text(l, f->x, f->y - f->radius_in - 0.7, num, TABLE_TEXT_IN * 0.8, 0, role, err);
        }
    }
    return st;
}

/* A label beside point b (the end of a line from a): off to the side of
 * the line, on the side toward y = 0, clear of b's base, so it does not sit
 * on this or other lines through b. */
static tt_status table__label_beyond(overlay_list *l, rules_point a, rules_point b, double clear_in, const char *text,
                                   overlay_role role, tt_err *err)
{
    double dx = b.x - a.x, dy = b.y - a.y, d = hypot(dx, dy);
    if (d < 1e-9) {
        dx = 1;
        dy = 0;
        d = 1;
    }
    double nx = -dy / d, ny = dx / d;
    if (ny > 0) {
        nx = -nx;
        ny = -ny;
    }
    double k = clear_in + 0.45 + 0.5 * TABLE_TEXT_IN;
    /* long labels lean along the line's direction, away from a */
    double along = 0.15 * strlen(text) * TABLE_TEXT_IN * fabs(ny) * 0.5;
    return overlay_add_text(l, b.x + nx * k + dx / d * along, b.y + ny * k + dy / d * along, text, TABLE_TEXT_IN,
                            0, role, err);
}

/* The blast area: for each of many directions from the centre, the radius
 * up to the first edge of a piece that shields blasts. */
static tt_status table__blast_shape(const table_scene *s, overlay_list *l, double cx, double cy, double r,
                                  tt_err *err)
{
    enum { RAYS = 720 };
    double *xy = malloc(RAYS * 2 * sizeof *xy);
    int clipped = 0;
    if (!xy)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (int k = 0; k < RAYS; k++) {
        double a = 2 * M_PI * k / RAYS, dx = cos(a), dy = sin(a), t = r;
        for (int p = 0; p < s->npieces; p++) {
            const table__piece *pc = &s->pieces[p];
            int ne = pc->closed ? pc->n : pc->n - 1;
            for (int e = 0; e < ne; e++) {
                const double *A = pc->xy + 2 * e, *B = pc->xy + 2 * ((e + 1) % pc->n);
                double ex = B[0] - A[0], ey = B[1] - A[1];
                double den = dx * ey - dy * ex;
                if (fabs(den) < 1e-12)
                    continue;
                double wx = A[0] - cx, wy = A[1] - cy;
                double tt = (wx * ey - wy * ex) / den, u = (wx * dy - wy * dx) / den;
                if (tt > 1e-9 && tt < t && u >= 0 && u <= 1) {
                    t = tt;
                    clipped = 1;
                }
            }
        }
        xy[2 * k] = cx + t * dx;
        xy[2 * k + 1] = cy + t * dy;
    }
    overlay_style fill = overlay_style_line(OVERLAY_ROLE_BLAST, TABLE_LINE_IN);
    fill.fill_alpha = 0.35;
    tt_status st = overlay_add_polygon(l, xy, RAYS, fill, err);
    free(xy);
    if (st == TT_OK && clipped) {
        /* the whole template, faint and dashed, to show what was shielded */
        overlay_style ghost = overlay_style_line(OVERLAY_ROLE_BLAST, TABLE_THIN_IN);
        ghost.dashed = 1;
        ghost.alpha = 0.6;
        st = overlay_add_circle(l, cx, cy, r, ghost, err);
    }
    return st;
}

static overlay_role table__bracket_role(const char *b)
{
    if (!b)
        return OVERLAY_ROLE_BLOCKED;
    if (!strcmp(b, "short"))
        return OVERLAY_ROLE_SHORT;
    if (!strcmp(b, "medium"))
        return OVERLAY_ROLE_MEDIUM;
    if (!strcmp(b, "long"))
        return OVERLAY_ROLE_LONG;
    return OVERLAY_ROLE_BLOCKED;
}

/* Range bands of the shooter's weapon, from the profile's brackets,
 * measured from the base edge. */
static tt_status table__range_bands(const table_scene *s, overlay_list *l, const table__figure *f, const char *weapon,
                                  tt_err *err)
{
    const json_t *w = json_object_get(json_object_get(s->profile, "weapons"), weapon ? weapon : "");
    const json_t *br = json_object_get(w, "brackets");
    double r0 = f->radius_in;
    tt_status st = TT_OK;
    for (size_t i = 0; i < json_array_size(br) && st == TT_OK; i++) {
        const json_t *b = json_array_get(br, i);
        double mx = json_number_value(json_object_get(b, "max_in"));
        const char *name = json_string_value(json_object_get(b, "name"));
        if (!(mx > 0))
            continue;
        double r1 = f->radius_in + mx;
        if (r1 <= r0)
            continue;
        /* each band by its outer circle and a translucent band inside it
         * (its inner edge is the previous band's circle, or the base) */
        overlay_style band = overlay_style_edge(table__bracket_role(name), TABLE_THIN_IN, OVERLAY_EDGE_ALPHA);
        band.band_in = fmin(band.band_in, r1 - r0);
        st = overlay_add_circle(l, f->x, f->y, r1, band, err);
        r0 = r1;
    }
    return st;
}

/* An arrow head at b, pointing along a -> b. */
static tt_status table__arrow_head(overlay_list *l, rules_point a, rules_point b, overlay_style st, tt_err *err)
{
    double dx = b.x - a.x, dy = b.y - a.y, d = hypot(dx, dy);
    if (d < 1e-9)
        return TT_OK;
    dx /= d;
    dy /= d;
    double k = fmin(0.6, d / 2), xy[6] = {b.x - k * (dx - 0.6 * dy), b.y - k * (dy + 0.6 * dx), b.x, b.y,
                                          b.x - k * (dx + 0.6 * dy), b.y - k * (dy - 0.6 * dx)};
    st.dashed = 0;
    return overlay_add_polyline(l, xy, 3, st, err);
}

/* A cross (an X, `r` inches from its centre to each tip) at p. */
static tt_status table__cross(overlay_list *l, rules_point p, double r, overlay_style st, tt_err *err)
{
    tt_status s = overlay_add_line(l, p.x - r, p.y - r, p.x + r, p.y + r, st, err);
    return s == TT_OK ? overlay_add_line(l, p.x - r, p.y + r, p.x + r, p.y - r, st, err) : s;
}

/* A unit's fire: every firer's line to the target it fires at, coloured by
 * that shot's range band; rings on the targets, the nearest numbered. */
static tt_status table__unit_fire(const table_scene *s, overlay_list *l, const rules_result *r, tt_err *err)
{
    tt_status st = TT_OK;
    for (size_t k = 0; k < r->n_firers && st == TT_OK; k++) {
        const table__figure *a = table__fig(s, r->firers[k]), *b = table__fig(s, r->shot_to[k]);
        if (!a || !b)
            continue;
        overlay_style line = overlay_style_line(table__bracket_role(r->shot_bracket[k]), TABLE_LINE_IN);
        st = overlay_add_line(l, a->x, a->y, b->x, b->y, line, err);
    }
    return st == TT_OK ? table__ring_ids(s, l, r, OVERLAY_ROLE_TARGET, r->n_ids > 1, err) : st;
}

static const char *table__str(const json_t *q, const char *k)
{
    return json_string_value(json_object_get(q, k));
}

static const char *table__weapon_of(const json_t *query)
{
    return table__str(query, "weapon");
}

/* The rule an answer cites, short enough for the felt: the book and its
 * first line ("thin-red-line.txt L246"), or "house value", small and white
 * under where the question was asked (the asker's base, else the point). */
static tt_status table__cite(overlay_list *l, const rules_result *r, const table__figure *ff, rules_point at, int has_at,
                           tt_err *err)
{
    char text[64];
    size_t n = strcspn(r->rule, " ");
    if (!strncmp(r->rule, "house", 5))
        snprintf(text, sizeof text, "house value");
    else if (r->rule[n] == ' ' && r->rule[n + 1] == 'L') /* "book.txt L12-14, L20 (...)": book and first line */
        snprintf(text, sizeof text, "%.*s", (int)(n + 1 + strcspn(r->rule + n + 1, " ,(")), r->rule);
    else
        snprintf(text, sizeof text, "%s", r->rule);
    double x = ff ? ff->x : has_at ? at.x : r->centre.x, y = ff ? ff->y + ff->radius_in : has_at ? at.y : r->centre.y;
    double size = 0.7 * TABLE_TEXT_IN;
    return overlay_add_text(l, x, y + 0.25 + size, text, size, 0, OVERLAY_ROLE_NEUTRAL, err);
}

tt_status table_scene_query(table_scene *s, const json_t *query, overlay_list *l, json_t **answer, tt_err *err)
{
    rules_result r;
    tt_status st;
    if (answer)
        *answer = NULL;
    /* the rules engine checks the query and gives its answer, with the
     * geometry to draw */
    if ((st = rules_query(s->sc, query, &r, err)) != TT_OK)
        return st;
    const char *q = table__str(query, "q"), *from = table__str(query, "from"), *to = table__str(query, "to");
    const json_t *at = json_object_get(query, "at");
    rules_point atp = {json_number_value(json_array_get(at, 0)), json_number_value(json_array_get(at, 1))};
    const table__figure *ff = table__fig(s, from), *tf = table__fig(s, to);
    overlay_style line = overlay_style_line(OVERLAY_ROLE_CLEAR, TABLE_LINE_IN);
    char text[96];

    if (!strcmp(q, "los")) {
        line.role = r.visible ? OVERLAY_ROLE_CLEAR : OVERLAY_ROLE_BLOCKED;
        line.dashed = !r.visible;
        st = overlay_add_line(l, r.line[0].x, r.line[0].y, r.line[1].x, r.line[1].y, line, err);
        if (st == TT_OK && !r.visible && r.blocked_by) {
            snprintf(text, sizeof text, "blocked: %s", r.blocked_by);
            st = table__label_beyond(l, r.line[0], r.line[1], tf ? tf->radius_in : 0.5, text, OVERLAY_ROLE_BLOCKED,
                                   err);
        }
    } else if (!strcmp(q, "fire")) {
        const char *weapon = table__weapon_of(query);
        if (ff && (st = table__range_bands(s, l, ff, weapon ? weapon : ff->weapon, err)) != TT_OK)
            goto done;
        if (r.unit && r.n_firers && (st = table__unit_fire(s, l, &r, err)) != TT_OK)
            goto done;
        int ok = r.visible && r.to_hit != RULES_NULL && r.bracket && strcmp(r.bracket, "out");
        line.role = ok ? table__bracket_role(r.bracket) : OVERLAY_ROLE_BLOCKED;
        line.dashed = !ok;
        /* the nearest shot's line (a unit's shots are all drawn above) */
        if (!(r.unit && r.n_firers) &&
            (st = overlay_add_line(l, r.line[0].x, r.line[0].y, r.line[1].x, r.line[1].y, line, err)) != TT_OK)
            goto done;
        if (r.to_hit != RULES_NULL && r.unit && r.dice > 0)
            snprintf(text, sizeof text, "%d dice %d+  %.1f\"", r.dice, r.to_hit, r.distance_in);
        else if (r.to_hit != RULES_NULL)
            snprintf(text, sizeof text, "%d+  %.1f\"", r.to_hit, r.distance_in);
        else
            snprintf(text, sizeof text, "%s  %.1f\"", !r.visible ? "no LOS" : "no shot", r.distance_in);
        /* a unit's label also clears the targets' numbers */
        st = table__label_beyond(l, r.line[0], r.line[1], (tf ? tf->radius_in : 0.5) + (r.unit ? 0.7 : 0), text,
                               line.role, err);
    } else if (!strcmp(q, "grape")) {
        overlay_style cone = overlay_style_line(OVERLAY_ROLE_ARC, TABLE_LINE_IN);
        cone.fill_alpha = 0.3;
        if (r.n_polygon >= 3)
            st = overlay_add_polygon(l, &r.polygon[0].x, (int)r.n_polygon, cone, err);
        if (st == TT_OK)
            st = table__ring_ids(s, l, &r, OVERLAY_ROLE_TARGET, 0, err);
    } else if (!strcmp(q, "ball")) {
        line.role = OVERLAY_ROLE_BALL;
        line.width_in = 0.1;
        if ((st = overlay_add_line(l, r.line[0].x, r.line[0].y, r.line[1].x, r.line[1].y, line, err)) == TT_OK)
            st = table__ring_ids(s, l, &r, OVERLAY_ROLE_TARGET, 1, err);
    } else if (!strcmp(q, "blast")) {
        if ((st = table__blast_shape(s, l, r.centre.x, r.centre.y, r.radius_in, err)) == TT_OK)
            st = table__ring_ids(s, l, &r, OVERLAY_ROLE_TARGET, 0, err);
    } else if (!strcmp(q, "command")) {
        overlay_style c = overlay_style_edge(OVERLAY_ROLE_COMMAND, TABLE_LINE_IN, OVERLAY_EDGE_ALPHA);
        if ((st = overlay_add_circle(l, r.centre.x, r.centre.y, r.radius_in, c, err)) != TT_OK)
            goto done;
        /* where the ruleset counts each figure, only those within the
         * radius; else every figure of the units in command */
        for (int k = 0; k < s->nfigs && st == TT_OK; k++) {
            int ring = 0;
            for (size_t i = 0; r.per_figure && i < r.n_fig_in && !ring; i++)
                ring = !strcmp(s->figs[k].id, r.fig_in[i]);
            for (size_t i = 0; !r.per_figure && i < r.n_ids && !ring; i++)
                ring = !strcmp(s->figs[k].unit, r.ids[i]) && strcmp(s->figs[k].id, from);
            if (ring)
                st = table__ring_figure(l, &s->figs[k], OVERLAY_ROLE_COMMAND, err);
        }
    } else if (!strcmp(q, "aspect")) {
        line.role = OVERLAY_ROLE_NEUTRAL;
        line.width_in = TABLE_THIN_IN;
        if ((st = overlay_add_line(l, r.line[0].x, r.line[0].y, r.line[1].x, r.line[1].y, line, err)) == TT_OK &&
            r.aspect)
            st = table__label_beyond(l, r.line[0], r.line[1], tf ? tf->radius_in : 0.5, r.aspect,
                                   OVERLAY_ROLE_NEUTRAL, err);
    } else if (!strcmp(q, "visibility")) {
        overlay_style v = overlay_style_edge(OVERLAY_ROLE_CLEAR, TABLE_THIN_IN, OVERLAY_EDGE_ALPHA);
        if (r.n_polygon >= 3)
            st = overlay_add_polygon(l, &r.polygon[0].x, (int)r.n_polygon, v, err);
    } else if (!strcmp(q, "deviate")) {
        /* the aim (thin, dashed), how far the shot strayed (solid), a cross
         * where it landed, and its blast there (clipped by what shields) */
        overlay_style aim = overlay_style_line(OVERLAY_ROLE_CLEAR, TABLE_THIN_IN);
        aim.dashed = 1;
        overlay_style miss = overlay_style_line(OVERLAY_ROLE_BLAST, TABLE_LINE_IN);
        if (ff && (st = overlay_add_line(l, ff->x, ff->y, atp.x, atp.y, aim, err)) != TT_OK)
            goto done;
        if ((st = table__cross(l, atp, 0.3, aim, err)) != TT_OK ||
            (st = overlay_add_line(l, r.line[0].x, r.line[0].y, r.line[1].x, r.line[1].y, miss, err)) != TT_OK ||
            (st = table__cross(l, r.centre, 0.45, miss, err)) != TT_OK)
            goto done;
        if (r.ok && r.radius_in > 0 && (st = table__blast_shape(s, l, r.centre.x, r.centre.y, r.radius_in, err)) != TT_OK)
            goto done;
        if ((st = table__ring_ids(s, l, &r, OVERLAY_ROLE_TARGET, 0, err)) != TT_OK)
            goto done;
        double off = hypot(r.line[1].x - r.line[0].x, r.line[1].y - r.line[0].y);
        if (!r.ok)
            snprintf(text, sizeof text, "%.1f\" off, no blast", off);
        else
            snprintf(text, sizeof text, "%.1f\" off, %zu hit", off, r.n_ids);
        st = table__label_beyond(l, ff ? (rules_point){ff->x, ff->y} : r.line[0], r.centre,
                               r.ok && r.radius_in > 0 ? r.radius_in : 0.5, text, OVERLAY_ROLE_BLAST, err);
    } else if (!strcmp(q, "charge")) {
        /* the charger's path to base contact, an arrow head, its base where
         * it would touch, and the target ringed */
        const table__figure *cf = table__fig(s, r.charger), *gf = table__fig(s, r.target);
        line.role = r.ok == 1 ? OVERLAY_ROLE_CLEAR : r.ok == 0 ? OVERLAY_ROLE_BLOCKED : OVERLAY_ROLE_NEUTRAL;
        line.dashed = r.ok == 0;
        if ((st = overlay_add_line(l, r.line[0].x, r.line[0].y, r.line[1].x, r.line[1].y, line, err)) != TT_OK ||
            (st = table__arrow_head(l, r.line[0], r.line[1], line, err)) != TT_OK)
            goto done;
        if (r.ok == 0 && r.allowed_known && r.allowed_in > 0 && r.distance_in > r.allowed_in) {
            /* short: the part the allowance covers, solid, and a bar where it ends (a charge
             * refused within reach, one that would have to turn, has none: its rule says why) */
            double f = r.allowed_in / r.distance_in, dx = r.line[1].x - r.line[0].x, dy = r.line[1].y - r.line[0].y;
            rules_point e = {r.line[0].x + f * dx, r.line[0].y + f * dy};
            double nx = -dy / r.distance_in * 0.5, ny = dx / r.distance_in * 0.5;
            overlay_style reach = overlay_style_line(OVERLAY_ROLE_CLEAR, TABLE_LINE_IN);
            if ((st = overlay_add_line(l, r.line[0].x, r.line[0].y, e.x, e.y, reach, err)) != TT_OK ||
                (st = overlay_add_line(l, e.x - nx, e.y - ny, e.x + nx, e.y + ny, reach, err)) != TT_OK)
                goto done;
        }
        overlay_style ghost = overlay_style_line(line.role, TABLE_THIN_IN);
        ghost.dashed = 1;
        if (cf && (st = overlay_add_circle(l, r.line[1].x, r.line[1].y, cf->radius_in, ghost, err)) != TT_OK)
            goto done;
        if (gf && (st = table__ring_figure(l, gf, OVERLAY_ROLE_TARGET, err)) != TT_OK)
            goto done;
        if (r.allowed_known)
            snprintf(text, sizeof text, "charge %.1f\" of %.1f\"", r.distance_in, r.allowed_in);
        else if (r.has_allowed_range)
            snprintf(text, sizeof text, "charge %.1f\" (%.0f-%.0f\")", r.distance_in, r.allowed_range_in[0],
                     r.allowed_range_in[1]);
        else
            snprintf(text, sizeof text, "charge %.1f\"", r.distance_in);
        st = table__label_beyond(l, r.line[0], r.line[1], gf ? gf->radius_in : 0.5, text, line.role, err);
    } else if (!strcmp(q, "move")) {
        line.role = r.ok == 0 ? OVERLAY_ROLE_BLOCKED : OVERLAY_ROLE_NEUTRAL;
        line.dashed = r.ok == 0;
        if ((st = overlay_add_line(l, r.line[0].x, r.line[0].y, r.line[1].x, r.line[1].y, line, err)) != TT_OK)
            goto done;
        if (r.allowed_known)
            snprintf(text, sizeof text, "%.1f\" of %.1f\"", r.distance_in, r.allowed_in);
        else
            snprintf(text, sizeof text, "%.1f\"", r.distance_in);
        st = table__label_beyond(l, r.line[0], r.line[1], 0.5, text, line.role, err);
    }
    if (st == TT_OK && s->cite && r.rule)
        st = table__cite(l, &r, ff, atp, at != NULL, err);
    if (st == TT_OK && answer && !(*answer = rules_result_to_json(&r)))
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
done:
    rules_result_free(&r);
    return st;
}
#else
/* rules/ is not in this build: nothing to adapt. */
typedef int table_scene_not_built;
#endif
