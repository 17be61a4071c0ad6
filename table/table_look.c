/* table_look.c - what each answer looks like (see table_look.h): one
 * answer of the rules -> primitives in table inches with their roles.
 * Every answer kind is described here once, for every picture that shows
 * answers: the projector's frames, the on-camera view, and (as JSON,
 * table_look_json) whatever else draws them. */
#include "table_look.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"

/* ---- drawing helpers -------------------------------------------------- */

static tt_status look__ring_figure(overlay_list *l, const table__figure *f, overlay_role role, tt_err *err)
{
    overlay_style st = overlay_style_line(role, TABLE_LINE_IN);
    return overlay_add_circle(l, f->x, f->y, f->radius_in + 0.2, st, err);
}

static tt_status look__ring_ids(const table_scene *s, overlay_list *l, const rules_result *r, overlay_role role,
                               int numbered, tt_err *err)
{
    tt_status st = TT_OK;
    for (size_t i = 0; i < r->n_ids && st == TT_OK; i++) {
        const table__figure *f = table__fig(s, r->ids[i]);
        if (!f)
            continue;
        st = look__ring_figure(l, f, role, err);
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
static tt_status look__label_beyond(overlay_list *l, rules_point a, rules_point b, double clear_in, const char *text,
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
static tt_status look__blast_shape(const table_scene *s, overlay_list *l, double cx, double cy, double r,
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

static overlay_role look__bracket_role(const char *b)
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
static tt_status look__range_bands(const table_scene *s, overlay_list *l, const table__figure *f, const char *weapon,
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
        overlay_style band = overlay_style_edge(look__bracket_role(name), TABLE_THIN_IN, OVERLAY_EDGE_ALPHA);
        band.band_in = fmin(band.band_in, r1 - r0);
        st = overlay_add_circle(l, f->x, f->y, r1, band, err);
        r0 = r1;
    }
    return st;
}

/* An arrow head at b, pointing along a -> b. */
static tt_status look__arrow_head(overlay_list *l, rules_point a, rules_point b, overlay_style st, tt_err *err)
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
static tt_status look__cross(overlay_list *l, rules_point p, double r, overlay_style st, tt_err *err)
{
    tt_status s = overlay_add_line(l, p.x - r, p.y - r, p.x + r, p.y + r, st, err);
    return s == TT_OK ? overlay_add_line(l, p.x - r, p.y + r, p.x + r, p.y - r, st, err) : s;
}

/* A unit's fire: every firer's line to the target it fires at, coloured by
 * that shot's range band; rings on the targets, the nearest numbered. */
static tt_status look__unit_fire(const table_scene *s, overlay_list *l, const rules_result *r, tt_err *err)
{
    tt_status st = TT_OK;
    for (size_t k = 0; k < r->n_firers && st == TT_OK; k++) {
        const table__figure *a = table__fig(s, r->firers[k]), *b = table__fig(s, r->shot_to[k]);
        if (!a || !b)
            continue;
        overlay_style line = overlay_style_line(look__bracket_role(r->shot_bracket[k]), TABLE_LINE_IN);
        st = overlay_add_line(l, a->x, a->y, b->x, b->y, line, err);
    }
    return st == TT_OK ? look__ring_ids(s, l, r, OVERLAY_ROLE_TARGET, r->n_ids > 1, err) : st;
}

static const char *look__str(const json_t *q, const char *k)
{
    return json_string_value(json_object_get(q, k));
}

static const char *look__weapon_of(const json_t *query)
{
    return look__str(query, "weapon");
}

/* The rule an answer cites, short enough for the felt: the book and its
 * first line ("thin-red-line.txt L246"), or "house value", small and white
 * under where the question was asked (the asker's base, else the point). */
static tt_status look__cite(overlay_list *l, const rules_result *r, const table__figure *ff, rules_point at, int has_at,
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

/* ---- one function an answer kind -------------------------------------- */

/* What every kind's drawing reads: the answer, the question, the figures
 * it names, where it was asked. */
typedef struct look__ctx {
    const table_scene *s;
    const rules_result *r;
    const json_t *query;
    const table__figure *ff, *tf; /* the question's "from" and "to" figures, or NULL */
    rules_point at;               /* the question's "at" point */
    int has_at;
    overlay_list *l;
    tt_err *err;
} look__ctx;

/* The answer's line (line[0] -> line[1]) in style st. */
static tt_status look__answer_line(const look__ctx *c, overlay_style st)
{
    const rules_result *r = c->r;
    return overlay_add_line(c->l, r->line[0].x, r->line[0].y, r->line[1].x, r->line[1].y, st, c->err);
}

static tt_status look__los(const look__ctx *c)
{
    const rules_result *r = c->r;
    char text[96];
    overlay_style line = overlay_style_line(r->visible ? OVERLAY_ROLE_CLEAR : OVERLAY_ROLE_BLOCKED, TABLE_LINE_IN);
    line.dashed = !r->visible;
    tt_status st = look__answer_line(c, line);
    if (st == TT_OK && !r->visible && r->blocked_by) {
        snprintf(text, sizeof text, "blocked: %s", r->blocked_by);
        st = look__label_beyond(c->l, r->line[0], r->line[1], c->tf ? c->tf->radius_in : 0.5, text,
                                OVERLAY_ROLE_BLOCKED, c->err);
    }
    return st;
}

static tt_status look__fire(const look__ctx *c)
{
    const rules_result *r = c->r;
    const char *weapon = look__weapon_of(c->query);
    char text[96];
    tt_status st;
    if (c->ff && (st = look__range_bands(c->s, c->l, c->ff, weapon ? weapon : c->ff->weapon, c->err)) != TT_OK)
        return st;
    if (r->unit && r->n_firers && (st = look__unit_fire(c->s, c->l, r, c->err)) != TT_OK)
        return st;
    int ok = r->visible && r->to_hit != RULES_NULL && r->bracket && strcmp(r->bracket, "out");
    overlay_style line = overlay_style_line(ok ? look__bracket_role(r->bracket) : OVERLAY_ROLE_BLOCKED, TABLE_LINE_IN);
    line.dashed = !ok;
    /* the nearest shot's line (a unit's shots are all drawn above) */
    if (!(r->unit && r->n_firers) && (st = look__answer_line(c, line)) != TT_OK)
        return st;
    if (r->to_hit != RULES_NULL && r->unit && r->dice > 0)
        snprintf(text, sizeof text, "%d dice %d+  %.1f\"", r->dice, r->to_hit, r->distance_in);
    else if (r->to_hit != RULES_NULL)
        snprintf(text, sizeof text, "%d+  %.1f\"", r->to_hit, r->distance_in);
    else
        snprintf(text, sizeof text, "%s  %.1f\"", !r->visible ? "no LOS" : "no shot", r->distance_in);
    /* a unit's label also clears the targets' numbers */
    return look__label_beyond(c->l, r->line[0], r->line[1], (c->tf ? c->tf->radius_in : 0.5) + (r->unit ? 0.7 : 0),
                              text, line.role, c->err);
}

static tt_status look__grape(const look__ctx *c)
{
    const rules_result *r = c->r;
    overlay_style cone = overlay_style_line(OVERLAY_ROLE_ARC, TABLE_LINE_IN);
    cone.fill_alpha = 0.3;
    tt_status st = TT_OK;
    if (r->n_polygon >= 3)
        st = overlay_add_polygon(c->l, &r->polygon[0].x, (int)r->n_polygon, cone, c->err);
    return st == TT_OK ? look__ring_ids(c->s, c->l, r, OVERLAY_ROLE_TARGET, 0, c->err) : st;
}

static tt_status look__ball(const look__ctx *c)
{
    overlay_style line = overlay_style_line(OVERLAY_ROLE_BALL, 0.1);
    tt_status st = look__answer_line(c, line);
    return st == TT_OK ? look__ring_ids(c->s, c->l, c->r, OVERLAY_ROLE_TARGET, 1, c->err) : st;
}

static tt_status look__blast(const look__ctx *c)
{
    const rules_result *r = c->r;
    tt_status st = look__blast_shape(c->s, c->l, r->centre.x, r->centre.y, r->radius_in, c->err);
    return st == TT_OK ? look__ring_ids(c->s, c->l, r, OVERLAY_ROLE_TARGET, 0, c->err) : st;
}

static tt_status look__command(const look__ctx *c)
{
    const rules_result *r = c->r;
    const table_scene *s = c->s;
    const char *from = look__str(c->query, "from");
    overlay_style edge = overlay_style_edge(OVERLAY_ROLE_COMMAND, TABLE_LINE_IN, OVERLAY_EDGE_ALPHA);
    tt_status st = overlay_add_circle(c->l, r->centre.x, r->centre.y, r->radius_in, edge, c->err);
    /* where the ruleset counts each figure, only those within the radius;
     * else every figure of the units in command */
    for (int k = 0; k < s->nfigs && st == TT_OK; k++) {
        int ring = 0;
        for (size_t i = 0; r->per_figure && i < r->n_fig_in && !ring; i++)
            ring = !strcmp(s->figs[k].id, r->fig_in[i]);
        for (size_t i = 0; !r->per_figure && i < r->n_ids && !ring; i++)
            ring = !strcmp(s->figs[k].unit, r->ids[i]) && strcmp(s->figs[k].id, from);
        if (ring)
            st = look__ring_figure(c->l, &s->figs[k], OVERLAY_ROLE_COMMAND, c->err);
    }
    return st;
}

static tt_status look__aspect(const look__ctx *c)
{
    const rules_result *r = c->r;
    tt_status st = look__answer_line(c, overlay_style_line(OVERLAY_ROLE_NEUTRAL, TABLE_THIN_IN));
    if (st == TT_OK && r->aspect)
        st = look__label_beyond(c->l, r->line[0], r->line[1], c->tf ? c->tf->radius_in : 0.5, r->aspect,
                                OVERLAY_ROLE_NEUTRAL, c->err);
    return st;
}

static tt_status look__visibility(const look__ctx *c)
{
    const rules_result *r = c->r;
    overlay_style v = overlay_style_edge(OVERLAY_ROLE_CLEAR, TABLE_THIN_IN, OVERLAY_EDGE_ALPHA);
    return r->n_polygon >= 3 ? overlay_add_polygon(c->l, &r->polygon[0].x, (int)r->n_polygon, v, c->err) : TT_OK;
}

/* The aim (thin, dashed), how far the shot strayed (solid), a cross where
 * it landed, and its blast there (clipped by what shields). */
static tt_status look__deviate(const look__ctx *c)
{
    const rules_result *r = c->r;
    char text[96];
    tt_status st;
    overlay_style aim = overlay_style_line(OVERLAY_ROLE_CLEAR, TABLE_THIN_IN);
    aim.dashed = 1;
    overlay_style miss = overlay_style_line(OVERLAY_ROLE_BLAST, TABLE_LINE_IN);
    if (c->ff && (st = overlay_add_line(c->l, c->ff->x, c->ff->y, c->at.x, c->at.y, aim, c->err)) != TT_OK)
        return st;
    if ((st = look__cross(c->l, c->at, 0.3, aim, c->err)) != TT_OK || (st = look__answer_line(c, miss)) != TT_OK ||
        (st = look__cross(c->l, r->centre, 0.45, miss, c->err)) != TT_OK)
        return st;
    if (r->ok && r->radius_in > 0 &&
        (st = look__blast_shape(c->s, c->l, r->centre.x, r->centre.y, r->radius_in, c->err)) != TT_OK)
        return st;
    if ((st = look__ring_ids(c->s, c->l, r, OVERLAY_ROLE_TARGET, 0, c->err)) != TT_OK)
        return st;
    double off = hypot(r->line[1].x - r->line[0].x, r->line[1].y - r->line[0].y);
    if (!r->ok)
        snprintf(text, sizeof text, "%.1f\" off, no blast", off);
    else
        snprintf(text, sizeof text, "%.1f\" off, %zu hit", off, r->n_ids);
    return look__label_beyond(c->l, c->ff ? (rules_point){c->ff->x, c->ff->y} : r->line[0], r->centre,
                              r->ok && r->radius_in > 0 ? r->radius_in : 0.5, text, OVERLAY_ROLE_BLAST, c->err);
}

/* A charge that falls short: the part the allowance covers, solid, and a
 * bar where it ends (a charge refused within reach, one that would have to
 * turn, has none: its rule says why). */
static tt_status look__charge_reach(const look__ctx *c)
{
    const rules_result *r = c->r;
    double f = r->allowed_in / r->distance_in, dx = r->line[1].x - r->line[0].x, dy = r->line[1].y - r->line[0].y;
    rules_point e = {r->line[0].x + f * dx, r->line[0].y + f * dy};
    double nx = -dy / r->distance_in * 0.5, ny = dx / r->distance_in * 0.5;
    overlay_style reach = overlay_style_line(OVERLAY_ROLE_CLEAR, TABLE_LINE_IN);
    tt_status st = overlay_add_line(c->l, r->line[0].x, r->line[0].y, e.x, e.y, reach, c->err);
    return st == TT_OK ? overlay_add_line(c->l, e.x - nx, e.y - ny, e.x + nx, e.y + ny, reach, c->err) : st;
}

/* The charger's path to base contact, an arrow head, its base where it
 * would touch, and the target ringed. */
static tt_status look__charge(const look__ctx *c)
{
    const rules_result *r = c->r;
    const table__figure *cf = table__fig(c->s, r->charger), *gf = table__fig(c->s, r->target);
    char text[96];
    tt_status st;
    overlay_role role = r->ok == 1 ? OVERLAY_ROLE_CLEAR : r->ok == 0 ? OVERLAY_ROLE_BLOCKED : OVERLAY_ROLE_NEUTRAL;
    overlay_style line = overlay_style_line(role, TABLE_LINE_IN);
    line.dashed = r->ok == 0;
    if ((st = look__answer_line(c, line)) != TT_OK ||
        (st = look__arrow_head(c->l, r->line[0], r->line[1], line, c->err)) != TT_OK)
        return st;
    if (r->ok == 0 && r->allowed_known && r->allowed_in > 0 && r->distance_in > r->allowed_in &&
        (st = look__charge_reach(c)) != TT_OK)
        return st;
    overlay_style ghost = overlay_style_line(role, TABLE_THIN_IN);
    ghost.dashed = 1;
    if (cf && (st = overlay_add_circle(c->l, r->line[1].x, r->line[1].y, cf->radius_in, ghost, c->err)) != TT_OK)
        return st;
    if (gf && (st = look__ring_figure(c->l, gf, OVERLAY_ROLE_TARGET, c->err)) != TT_OK)
        return st;
    if (r->allowed_known)
        snprintf(text, sizeof text, "charge %.1f\" of %.1f\"", r->distance_in, r->allowed_in);
    else if (r->has_allowed_range)
        snprintf(text, sizeof text, "charge %.1f\" (%.0f-%.0f\")", r->distance_in, r->allowed_range_in[0],
                 r->allowed_range_in[1]);
    else
        snprintf(text, sizeof text, "charge %.1f\"", r->distance_in);
    return look__label_beyond(c->l, r->line[0], r->line[1], gf ? gf->radius_in : 0.5, text, role, c->err);
}

static tt_status look__move(const look__ctx *c)
{
    const rules_result *r = c->r;
    char text[96];
    overlay_style line = overlay_style_line(r->ok == 0 ? OVERLAY_ROLE_BLOCKED : OVERLAY_ROLE_NEUTRAL, TABLE_LINE_IN);
    line.dashed = r->ok == 0;
    tt_status st = look__answer_line(c, line);
    if (st != TT_OK)
        return st;
    if (r->allowed_known)
        snprintf(text, sizeof text, "%.1f\" of %.1f\"", r->distance_in, r->allowed_in);
    else
        snprintf(text, sizeof text, "%.1f\"", r->distance_in);
    return look__label_beyond(c->l, r->line[0], r->line[1], 0.5, text, line.role, c->err);
}

/* Each answer kind's look, by the question's "q". */
static const struct {
    const char *q;
    tt_status (*draw)(const look__ctx *c);
} look__kinds[] = {
    {"los", look__los},       {"fire", look__fire},       {"grape", look__grape},
    {"ball", look__ball},     {"blast", look__blast},     {"command", look__command},
    {"aspect", look__aspect}, {"visibility", look__visibility}, {"deviate", look__deviate},
    {"charge", look__charge}, {"move", look__move},
};

tt_status table_look_add(const table_scene *s, const table_answer *a, overlay_list *l, tt_err *err)
{
    const json_t *at = json_object_get(a->query, "at");
    look__ctx c = {s,
                   &a->r,
                   a->query,
                   table__fig(s, look__str(a->query, "from")),
                   table__fig(s, look__str(a->query, "to")),
                   {json_number_value(json_array_get(at, 0)), json_number_value(json_array_get(at, 1))},
                   at != NULL,
                   l,
                   err};
    const char *q = look__str(a->query, "q");
    tt_status st = TT_OK;
    for (size_t k = 0; q && k < sizeof look__kinds / sizeof look__kinds[0]; k++)
        if (!strcmp(q, look__kinds[k].q)) {
            st = look__kinds[k].draw(&c);
            break;
        }
    if (st == TT_OK && s->cite && a->r.rule)
        st = look__cite(l, &a->r, c.ff, c.at, c.has_at, err);
    return st;
}

tt_status table_look_json(const table_scene *s, const table_answer *a, json_t **out, tt_err *err)
{
    overlay_list *l = NULL;
    tt_status st;
    *out = NULL;
    if ((st = overlay_list_create(&l, err)) == TT_OK && (st = table_look_add(s, a, l, err)) == TT_OK)
        st = overlay_list_to_json(l, out, err);
    overlay_list_destroy(l);
    return st;
}

/* ---- the referee's events (docs/playing.md, "The referee") ------------- */

static double look__num(const json_t *o, const char *k, int *ok)
{
    const json_t *v = json_object_get(o, k);
    if (!json_is_number(v) || !isfinite(json_number_value(v))) {
        *ok = 0;
        return 0;
    }
    return json_number_value(v);
}

static rules_point look__xy(const json_t *o, const char *k, int *ok)
{
    const json_t *a = json_object_get(o, k);
    int good = json_array_size(a) == 2;
    rules_point p = {0, 0};
    if (good) {
        good = json_is_number(json_array_get(a, 0)) && json_is_number(json_array_get(a, 1));
        p.x = json_number_value(json_array_get(a, 0));
        p.y = json_number_value(json_array_get(a, 1));
        good = good && isfinite(p.x) && isfinite(p.y);
    }
    if (!good)
        *ok = 0;
    return p;
}

/* An allowance in inches as a book writes it: 4" whole, 4.5" not. */
static const char *look__allowance(double v, char *buf, size_t n)
{
    snprintf(buf, n, fabs(v - round(v)) < 0.05 ? "%.0f" : "%.1f", v);
    return buf;
}

void table_look_check_words(const json_t *ev, char *buf, size_t n)
{
    char al[32];
    int ok = 1;
    double d = look__num(ev, "distance_in", &ok), a = look__num(ev, "allowed_in", &ok);
    const json_t *range = json_object_get(ev, "allowed_range_in"), *need = json_object_get(ev, "needs_roll");
    const char *charge = !strcmp(look__str(ev, "event") ? look__str(ev, "event") : "", "charge_check") ? "charge " : "";
    const char *close = json_is_true(json_object_get(ev, "too_close_to_call")) ? " \xc2\xb7 too close to call" : "";
    if (!isfinite(d))
        d = 0;
    if (ok && json_is_false(json_object_get(ev, "ok")) && d > a)
        snprintf(buf, n, "%s%.1f\" of %s\" \xc2\xb7 %.1f\" over%s", charge, d, look__allowance(a, al, sizeof al),
                 d - a, close);
    else if (ok)
        snprintf(buf, n, "%s%.1f\" of %s\"%s", charge, d, look__allowance(a, al, sizeof al), close);
    else if (json_array_size(range) == 2 && json_is_integer(need))
        snprintf(buf, n, "%s%.1f\" of %g-%g\": roll %d+%s", charge, d, json_number_value(json_array_get(range, 0)),
                 json_number_value(json_array_get(range, 1)), (int)json_integer_value(need), close);
    else if (json_array_size(range) == 2)
        snprintf(buf, n, "%s%.1f\" of %g-%g\"%s%s", charge, d, json_number_value(json_array_get(range, 0)),
                 json_number_value(json_array_get(range, 1)), json_is_false(json_object_get(ev, "ok")) ? " \xc2\xb7 over" : "",
                 close);
    else
        snprintf(buf, n, "%s%.1f\"%s", charge, d, close);
}

/* How far the text box centred on (x, y) (w by h inches) stays from every
 * figure's base in the scene (negative: it overlaps one). */
static double look__clearance(const table_scene *s, double x, double y, double w, double h)
{
    double best = INFINITY;
    for (int k = 0; k < s->nfigs; k++) {
        const table__figure *f = &s->figs[k];
        double dx = fmax(0, fabs(f->x - x) - w / 2), dy = fmax(0, fabs(f->y - y) - h / 2);
        best = fmin(best, sqrt(dx * dx + dy * dy) - f->radius_in - 0.7); /* and its tag's dark square, ringed */
    }
    return best;
}

/* The box of words text at cap height size: w by h inches (DejaVu Sans,
 * about 0.9 cap heights a character; a UTF-8 character counts once). */
static void look__words_size(const char *text, double size, double *w, double *h)
{
    *w = 0;
    *h = size * 1.4;
    for (const char *c = text; *c; c++)
        *w += ((unsigned char)*c & 0xc0) == 0x80 ? 0 : 0.9 * size;
}

/* How far the box centred on (x, y), w by h, stays from the words in ws
 * (negative: it overlaps them; none: INFINITY). */
static double look__words_clearance(const table__words *ws, double x, double y, double w, double h)
{
    double best = INFINITY;
    for (int i = 0; ws && i < ws->n; i++) {
        const double *b = ws->box + 4 * i;
        double ox = fabs(b[0] - x) - (b[2] + w) / 2, oy = fabs(b[1] - y) - (b[3] + h) / 2;
        double dx = fmax(0, ox), dy = fmax(0, oy);
        best = fmin(best, ox < 0 && oy < 0 ? fmax(ox, oy) : sqrt(dx * dx + dy * dy));
    }
    return best;
}

/* The words text put at (x, y) (centred) in l, and their box in ws. */
static tt_status look__words_add(overlay_list *l, table__words *ws, double x, double y, const char *text,
                                 overlay_role role, tt_err *err)
{
    if (ws && ws->n == ws->cap) {
        int cap = ws->cap ? 2 * ws->cap : 16;
        double *nb = realloc(ws->box, sizeof *nb * 4 * (size_t)cap);
        if (nb)
            ws->box = nb, ws->cap = cap;
    }
    if (ws && ws->n < ws->cap) {
        double *b = ws->box + 4 * ws->n++;
        b[0] = x, b[1] = y;
        look__words_size(text, TABLE_TEXT_IN, &b[2], &b[3]);
    }
    return overlay_add_text(l, x, y, text, TABLE_TEXT_IN, 0, role, err);
}

/* Where words text go beside the path a -> b (their centre, *x, *y):
 * where they stand clearest of the figures (the tags' dark squares would
 * cut them) and of the words in ws: at its middle or nearer either end, on
 * either side, beside it or a little farther. */
static void look__label_place(const table_scene *s, const table__words *ws, rules_point a, rules_point b,
                              const char *text, double *bx, double *by)
{
    static const double along[] = {0.5, 0.35, 0.65, 0.2, 0.8};
    double dx = b.x - a.x, dy = b.y - a.y, d = hypot(dx, dy), w, h;
    look__words_size(text, TABLE_TEXT_IN, &w, &h);
    if (d < 1e-9)
        dx = 1, dy = 0, d = 1;
    double nx = -dy / d, ny = dx / d, best = -INFINITY;
    *bx = *by = 0;
    /* off the path by half the box across it, and a little more */
    double off = 0.3 + 0.5 * (fabs(nx) * w + fabs(ny) * h);
    for (int far = 0; far < 2; far++) /* beside it, then a little farther */
        for (size_t i = 0; i < sizeof along / sizeof *along; i++)
            for (int side = -1; side <= 1; side += 2) {
                double o = side * (off + far * 0.8);
                double x = a.x + along[i] * (b.x - a.x) + o * nx, y = a.y + along[i] * (b.y - a.y) + o * ny;
                /* (words need less room from words than from a tag) */
                double c = fmin(look__clearance(s, x, y, w, h), look__words_clearance(ws, x, y, w, h) - 0.15) -
                           0.01 * i - 0.3 * far; /* ties: nearer the middle */
                if (c > best)
                    best = c, *bx = x, *by = y;
            }
}

/* A check's path (from, to) and its words; 0 when it draws nothing (a
 * put back, no path). */
static int look__check_words(const json_t *ev, rules_point *a, rules_point *b, char *text, size_t n)
{
    int ok = 1;
    *a = look__xy(ev, "from", &ok), *b = look__xy(ev, "to", &ok);
    if (!ok || json_is_true(json_object_get(ev, "put_back")))
        return 0;
    table_look_check_words(ev, text, n);
    return 1;
}

int table__check_place(const table_scene *s, const json_t *ev, const table__words *ws, double at[2])
{
    rules_point a, b;
    char text[160];
    const char *e = look__str(ev, "event");
    if (!e || (strcmp(e, "move_check") && strcmp(e, "charge_check")) || !look__check_words(ev, &a, &b, text, sizeof text))
        return 0;
    look__label_place(s, ws, a, b, text, &at[0], &at[1]);
    return 1;
}

/* A move or charge checked: the path from where the figure stood when
 * the phase began to where it settled, and the words (at `at`, or where
 * look__label_place puts them); over: blocked (vermillion) and dashed;
 * too close to call: yellow, dashed; dice to roll: white; fair: sky
 * blue. */
static tt_status look__check(const table_scene *s, const json_t *ev, const double *at, overlay_list *l,
                             table__words *ws, tt_err *err)
{
    rules_point a, b;
    char text[160];
    if (!look__check_words(ev, &a, &b, text, sizeof text))
        return TT_OK;
    const json_t *okv = json_object_get(ev, "ok");
    int close = json_is_true(json_object_get(ev, "too_close_to_call"));
    overlay_role role = close ? OVERLAY_ROLE_MEDIUM
                        : json_is_false(okv) ? OVERLAY_ROLE_BLOCKED
                        : json_is_true(okv)  ? OVERLAY_ROLE_CLEAR
                                             : OVERLAY_ROLE_NEUTRAL;
    overlay_style line = overlay_style_line(role, TABLE_LINE_IN);
    line.dashed = close || json_is_false(okv);
    /* the path ends at the figure's ring (the tag's dark square would
     * swallow an arrow at its centre); the words beside it, clear of the
     * figures */
    const table__figure *f = table__fig(s, look__str(ev, "id"));
    double d = hypot(b.x - a.x, b.y - a.y), stop = fmin(f ? f->radius_in + 0.2 : 0.7, d / 2);
    rules_point e = b;
    if (d > 1e-9)
        e.x -= (b.x - a.x) / d * stop, e.y -= (b.y - a.y) / d * stop;
    tt_status st = overlay_add_line(l, a.x, a.y, e.x, e.y, line, err);
    if (st == TT_OK)
        st = look__arrow_head(l, a, e, line, err);
    double x, y;
    if (at)
        x = at[0], y = at[1];
    else
        look__label_place(s, ws, a, b, text, &x, &y);
    return st == TT_OK ? look__words_add(l, ws, x, y, text, role, err) : st;
}

/* A figure that moved when it may not: ringed, "out of turn". */
static tt_status look__out_of_turn(const table_scene *s, const json_t *ev, overlay_list *l, table__words *ws,
                                   tt_err *err)
{
    const table__figure *f = table__fig(s, look__str(ev, "id"));
    if (!f)
        return TT_OK;
    overlay_style ring = overlay_style_line(OVERLAY_ROLE_BLOCKED, TABLE_LINE_IN);
    ring.dashed = 1;
    tt_status st = overlay_add_circle(l, f->x, f->y, f->radius_in + 0.3, ring, err);
    return st == TT_OK ? look__words_add(l, ws, f->x, f->y - f->radius_in - 0.6, "out of turn", OVERLAY_ROLE_BLOCKED,
                                         err)
                       : st;
}

void table_look_call_words(const json_t *ev, char *buf, size_t n)
{
    const char *unit = look__str(ev, "unit"), *call = look__str(ev, "call"), *result = look__str(ev, "result");
    const json_t *t = json_object_get(ev, "test");
    char test[96] = "";
    if (json_is_object(t)) {
        const json_t *needs = json_object_get(t, "needs");
        int mods = 0;
        const json_t *ms = json_object_get(t, "modifiers");
        for (size_t k = 0; k < json_array_size(ms); k++)
            mods += (int)json_integer_value(json_object_get(json_array_get(ms, k), "value"));
        if (json_is_integer(needs))
            snprintf(test, sizeof test, " %s %d+", look__str(t, "dice") ? look__str(t, "dice") : "",
                     (int)json_integer_value(needs));
        else
            snprintf(test, sizeof test, " %s", look__str(t, "dice") ? look__str(t, "dice") : "");
        if (mods) {
            size_t k = strlen(test);
            snprintf(test + k, sizeof test - k, " (%+d)", mods);
        }
    }
    if (!strcmp(look__str(ev, "event") ? look__str(ev, "event") : "", "casualties"))
        snprintf(buf, n, "%s: lost %d of %d", unit ? unit : "?", (int)json_integer_value(json_object_get(ev, "lost")),
                 (int)json_integer_value(json_object_get(ev, "of")));
    else
        snprintf(buf, n, "%s: %s%s%s%s", unit ? unit : "?", call ? call : "test", test, result ? ", " : "",
                 result ? result : "");
}

/* A call of the book from losses: the unit labelled above its figures
 * (where the scene stands them), yellow to roll, vermillion for a result. */
static tt_status look__call(const table_scene *s, const json_t *ev, overlay_list *l, table__words *ws, tt_err *err)
{
    const char *unit = look__str(ev, "unit");
    double sx = 0, top = INFINITY;
    int n = 0;
    for (int k = 0; unit && k < s->nfigs; k++)
        if (s->figs[k].unit && !strcmp(s->figs[k].unit, unit)) {
            sx += s->figs[k].x;
            top = fmin(top, s->figs[k].y - s->figs[k].radius_in);
            n++;
        }
    if (!n)
        return TT_OK;
    char text[200];
    table_look_call_words(ev, text, sizeof text);
    overlay_role role = look__str(ev, "result") ? OVERLAY_ROLE_BLOCKED : OVERLAY_ROLE_TARGET;
    return look__words_add(l, ws, sx / n, top - 0.5 - TABLE_TEXT_IN, text, role, err);
}

tt_status table__look_event(const table_scene *s, const json_t *ev, const double *at, overlay_list *l, table__words *ws,
                            tt_err *err)
{
    const char *e = look__str(ev, "event");
    if (!e)
        return TT_OK;
    if (!strcmp(e, "move_check") || !strcmp(e, "charge_check"))
        return look__check(s, ev, at, l, ws, err);
    if (!strcmp(e, "out_of_turn"))
        return look__out_of_turn(s, ev, l, ws, err);
    if (!strcmp(e, "morale"))
        return look__call(s, ev, l, ws, err);
    return TT_OK;
}

tt_status table_look_event(const table_scene *s, const json_t *ev, overlay_list *l, tt_err *err)
{
    return table__look_event(s, ev, NULL, l, NULL, err);
}

tt_status table_look_event_json(const table_scene *s, const json_t *ev, json_t **out, tt_err *err)
{
    overlay_list *l = NULL;
    tt_status st;
    *out = NULL;
    if ((st = overlay_list_create(&l, err)) == TT_OK && (st = table_look_event(s, ev, l, err)) == TT_OK)
        st = overlay_list_to_json(l, out, err);
    overlay_list_destroy(l);
    return st;
}

void table_look_phase_words(const json_t *phase, char *buf, size_t n)
{
    const char *p = look__str(phase, "phase"), *side = look__str(phase, "side");
    if (!p) {
        snprintf(buf, n, "%s", "");
        return;
    }
    if (side)
        snprintf(buf, n, "Turn %d \xc2\xb7 %c%s \xc2\xb7 %s", (int)json_integer_value(json_object_get(phase, "turn")),
                 side[0] >= 'a' && side[0] <= 'z' ? side[0] - 'a' + 'A' : side[0], side[0] ? side + 1 : "", p);
    else
        snprintf(buf, n, "Turn %d \xc2\xb7 %s", (int)json_integer_value(json_object_get(phase, "turn")), p);
}

tt_status table_look_phase(const json_t *phase, double x_right, double y, overlay_list *l, tt_err *err)
{
    char text[160];
    table_look_phase_words(phase, text, sizeof text);
    if (!text[0])
        return TT_OK;
    /* centred text: its middle half its width left of the right end */
    double w, h;
    look__words_size(text, TABLE_PHASE_TEXT_IN, &w, &h);
    return overlay_add_text(l, x_right - w / 2, y, text, TABLE_PHASE_TEXT_IN, 0, OVERLAY_ROLE_NEUTRAL, err);
}
