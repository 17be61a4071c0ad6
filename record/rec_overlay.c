/* rec_overlay.c - a recorded query and its answer turned into simple
 * drawable primitives in table inches, shared by the HTML page and the
 * video.  Geometry the answer carries (line, centre, radius_in, polygon)
 * wins; otherwise it is rebuilt from the query and where the figures stood
 * when it was asked (e.g. a grape sector on the gun's facing). */
#include "rec_internal.h"
#include "tt_palette.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the answers' colours: the projector's roles (tt_palette.h) */
#define C_YES (tt_palette_role("clear")->hex)
#define C_NO (tt_palette_role("blocked")->hex)
#define C_GRAPE (tt_palette_role("arc")->hex)
#define C_BLAST (tt_palette_role("blast")->hex)
#define C_BALL (tt_palette_role("ball")->hex)
#define C_COMMAND (tt_palette_role("command")->hex)
#define C_VIS (tt_palette_role("clear")->hex)
#define C_HIT (tt_palette_role("target")->hex)
#define C_NEUTRAL (tt_palette_role("neutral")->hex)

/* A shot's colour: its range band where it can be made, else blocked. */
static const char *rec__bracket_colour(const json_t *bracket, int can_fire)
{
    const char *b = json_string_value(bracket);
    if (!can_fire || !b || (strcmp(b, "short") && strcmp(b, "medium") && strcmp(b, "long")))
        return C_NO;
    return tt_palette_role(b)->hex;
}

typedef struct rec__where {
    double x, y, facing;
    int fig;      /* figure index, or -1 for a point / scenario position */
    int ok;
} rec__where;

static int rec__fig_by_name(const rec_game *g, const char *name)
{
    for (size_t i = 0; i < g->nfigs; i++)
        if (g->figs[i].name && !strcmp(g->figs[i].name, name))
            return (int)i;
    char *end;
    long tag = strtol(name, &end, 10);
    if (*name && !*end)
        for (size_t i = 0; i < g->nfigs; i++)
            if (g->figs[i].tag == tag)
                return (int)i;
    return -1;
}

/* Where a query's reference stood at time t: a figure id (tracked, or the
 * scenario's position), a tag number, or a point [x, y]. */
static rec__where rec__locate(const rec_game *g, const json_t *ref, long long t)
{
    rec__where w = {0, 0, 0, -1, 0};
    if (json_is_array(ref) && json_array_size(ref) == 2) {
        w.x = json_number_value(json_array_get(ref, 0));
        w.y = json_number_value(json_array_get(ref, 1));
        w.ok = 1;
        return w;
    }
    const char *name = json_string_value(ref);
    if (!name)
        return w;
    int f = rec__fig_by_name(g, name);
    if (f >= 0) {
        long k = rec__game_state_at(g, f, t);
        if (k < 0) {
            /* asked before the figure's first frame in range: use its first */
            size_t n;
            const long *ix = rec__game_fig_states(g, f, &n);
            k = n ? ix[0] : -1;
        }
        if (k >= 0) {
            w.x = g->states[k].x;
            w.y = g->states[k].y;
            w.facing = g->states[k].facing;
            w.fig = f;
            w.ok = 1;
            return w;
        }
    }
    size_t i;
    json_t *sf;
    json_array_foreach(json_object_get(g->scenario, "figures"), i, sf) {
        const char *id = json_string_value(json_object_get(sf, "id"));
        if (id && !strcmp(id, name)) {
            w.x = json_number_value(json_object_get(sf, "x"));
            w.y = json_number_value(json_object_get(sf, "y"));
            w.facing = json_number_value(json_object_get(sf, "facing_deg"));
            w.ok = 1;
        }
    }
    return w;
}

static int rec__add(json_t *arr, json_t *prim)
{
    return prim ? json_array_append_new(arr, prim) : -1;
}

static int rec__line(json_t *arr, double ax, double ay, double bx, double by, const char *colour, const char *label)
{
    return rec__add(arr, json_pack("{s:s, s:[f,f], s:[f,f], s:s, s:s?}", "type", "line", "a", ax, ay, "b", bx, by,
                                   "colour", colour, "label", label));
}

/* A solid line (the dashed default is for sight and reach). */
static int rec__solid(json_t *arr, double ax, double ay, double bx, double by, const char *colour, const char *label)
{
    return rec__add(arr, json_pack("{s:s, s:[f,f], s:[f,f], s:s, s:b, s:s?}", "type", "line", "a", ax, ay, "b", bx, by,
                                   "colour", colour, "solid", 1, "label", label));
}

/* A cross where something landed. */
static int rec__mark(json_t *arr, double x, double y, const char *colour)
{
    return rec__add(arr, json_pack("{s:s, s:[f,f], s:s}", "type", "mark", "at", x, y, "colour", colour));
}

static int rec__label(json_t *arr, double x, double y, const char *text)
{
    return rec__add(arr, json_pack("{s:s, s:[f,f], s:s}", "type", "label", "at", x, y, "text", text));
}

/* A ring around every figure named in list. */
static int rec__rings(json_t *arr, const rec_game *g, const json_t *list, const char *colour)
{
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) {
        const char *name = json_string_value(v);
        int f = name ? rec__fig_by_name(g, name) : -1;
        if (f >= 0 && rec__add(arr, json_pack("{s:s, s:i, s:s}", "type", "ring", "fig", f, "colour", colour)) != 0)
            return -1;
    }
    return 0;
}

/* The answer's own line [[x,y],[x,y]] if it has one. */
static int rec__answer_line(const json_t *a, double l[4])
{
    const json_t *line = json_object_get(a, "line");
    if (json_array_size(line) != 2)
        return 0;
    for (int k = 0; k < 2; k++) {
        const json_t *p = json_array_get(line, (size_t)k);
        if (json_array_size(p) != 2)
            return 0;
        l[2 * k] = json_number_value(json_array_get(p, 0));
        l[2 * k + 1] = json_number_value(json_array_get(p, 1));
    }
    return 1;
}

static int rec__polygon(json_t *arr, const json_t *poly, const char *colour)
{
    if (json_array_size(poly) < 3)
        return 0;
    json_t *pts = json_deep_copy(poly);
    return rec__add(arr, pts ? json_pack("{s:s, s:o, s:s}", "type", "polygon", "pts", pts, "colour", colour) : NULL);
}

static double rec__num(const json_t *o, const char *key, double dflt)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

/* Ruleset radius of a blast weapon when neither query nor answer says. */
static double rec__blast_default(const char *weapon)
{
    if (weapon && !strcmp(weapon, "mortar"))
        return 2.0;
    if (weapon && (!strcmp(weapon, "shell") || !strcmp(weapon, "howitzer")))
        return 3.0;
    return 1.0;
}

/* A unit's fire: every firer's line to the target it fires at (the
 * answer's "shots"), in reach; the targets ringed; the shot's score. */
static int rec__unit_fire(json_t *arr, const rec_game *g, const json_t *a, long long t)
{
    char text[160];
    size_t i;
    json_t *shot;
    const json_t *th = json_object_get(a, "to_hit"), *dice = json_object_get(a, "dice");
    int n = 0;
    if (json_is_integer(dice))
        n = snprintf(text, sizeof text, "%d dice ", (int)json_integer_value(dice));
    if (json_is_integer(th))
        snprintf(text + n, sizeof text - (size_t)n, "%d+", (int)json_integer_value(th));
    else
        snprintf(text + n, sizeof text - (size_t)n, "no shot");
    json_array_foreach(json_object_get(a, "shots"), i, shot) {
        rec__where sf = rec__locate(g, json_object_get(shot, "from"), t);
        rec__where st = rec__locate(g, json_object_get(shot, "to"), t);
        if (sf.ok && st.ok &&
            rec__line(arr, sf.x, sf.y, st.x, st.y, rec__bracket_colour(json_object_get(shot, "bracket"), 1),
                      i ? NULL : text) != 0)
            return -1;
    }
    return rec__rings(arr, g, json_object_get(a, "targets"), C_HIT);
}

/* One recorded answer being drawn: where it goes, the game, the question
 * and answer, when it was asked, and the question's figures then. */
typedef struct rec__ask {
    json_t *arr;
    const rec_game *g;
    const char *kind;
    const json_t *q, *a;
    long long t;
    rec__where from, to;
    double l[4]; /* the answer's line, when has_line */
    int has_line;
} rec__ask;

/* The label of a sight, shot or aspect line. */
static void rec__sight_label(const rec__ask *c, char *text, size_t n)
{
    const json_t *a = c->a, *vis = json_object_get(a, "visible");
    const char *blocked = json_string_value(json_object_get(a, "blocked_by"));
    if (!strcmp(c->kind, "fire")) {
        const json_t *th = json_object_get(a, "to_hit");
        char hit[16] = "no shot";
        if (json_is_integer(th))
            snprintf(hit, sizeof hit, "%d+", (int)json_integer_value(th));
        const char *cover = json_string_value(json_object_get(a, "cover"));
        const char *bracket = json_string_value(json_object_get(a, "bracket"));
        if (cover && !strcmp(cover, "none"))
            cover = NULL;
        snprintf(text, n, "%.1f\" %s, %s cover, %s", rec__num(a, "distance_in", 0), bracket ? bracket : "?",
                 cover ? cover : "no", hit);
    } else if (!strcmp(c->kind, "aspect")) {
        const char *aspect = json_string_value(json_object_get(a, "aspect"));
        snprintf(text, n, "%s", aspect ? aspect : "?");
    } else {
        snprintf(text, n, "%s%s%s", json_is_true(vis) ? "visible" : "blocked", blocked ? " by " : "",
                 blocked ? blocked : "");
    }
}

/* Line of sight, a shot, an aspect: one line, coloured by the answer. */
static int rec__sight(const rec__ask *c)
{
    char text[160];
    const json_t *a = c->a;
    double l[4] = {c->l[0], c->l[1], c->l[2], c->l[3]};
    if (!strcmp(c->kind, "fire") && json_array_size(json_object_get(a, "shots")) > 0)
        return rec__unit_fire(c->arr, c->g, a, c->t);
    if (!c->has_line) {
        if (!c->from.ok || !c->to.ok)
            return 0;
        l[0] = c->from.x, l[1] = c->from.y, l[2] = c->to.x, l[3] = c->to.y;
    }
    const json_t *vis = json_object_get(a, "visible");
    const char *colour = !strcmp(c->kind, "fire")
                             ? rec__bracket_colour(json_object_get(a, "bracket"), json_is_integer(json_object_get(a, "to_hit")))
                         : json_is_boolean(vis) ? (json_is_true(vis) ? C_YES : C_NO)
                                                : C_NEUTRAL;
    rec__sight_label(c, text, sizeof text);
    return rec__line(c->arr, l[0], l[1], l[2], l[3], colour, text);
}

/* The aim from the firer, the shot's stray from the aim to where it
 * landed, a cross there, and its blast. */
static int rec__deviate(const rec__ask *c)
{
    char text[160];
    const json_t *a = c->a;
    json_t *arr = c->arr;
    rec__where at = rec__locate(c->g, json_object_get(c->q, "at"), c->t);
    const json_t *imp = json_object_get(a, "impact");
    if (!at.ok || json_array_size(imp) != 2)
        return 0;
    double ix = json_number_value(json_array_get(imp, 0)), iy = json_number_value(json_array_get(imp, 1));
    double r = rec__num(a, "radius_in", 0);
    if (c->from.ok && rec__line(arr, c->from.x, c->from.y, at.x, at.y, C_YES, NULL) != 0)
        return -1;
    if (json_is_false(json_object_get(a, "went_off")))
        snprintf(text, sizeof text, "%.1f\" off, no blast", hypot(ix - at.x, iy - at.y));
    else
        snprintf(text, sizeof text, "%.1f\" off, %zu hit", hypot(ix - at.x, iy - at.y),
                 json_array_size(json_object_get(a, "hit")));
    return rec__solid(arr, at.x, at.y, ix, iy, C_BLAST, NULL) || rec__mark(arr, ix, iy, C_BLAST) ||
           (r > 0 && rec__add(arr, json_pack("{s:s, s:[f,f], s:f, s:s}", "type", "circle", "c", ix, iy, "r", r,
                                             "colour", C_BLAST))) ||
           rec__rings(arr, c->g, json_object_get(a, "hit"), C_HIT) ||
           rec__label(arr, ix, iy - (r > 0 ? r : 0.5) - 0.4, text);
}

/* The charger's path: straight at the target's centre until the bases
 * touch, distance_in long (or the answer's own path, a unit's from its
 * front-centre). */
static int rec__charge(const rec__ask *c)
{
    char text[160];
    const json_t *a = c->a;
    rec__where cf = rec__locate(c->g, json_object_get(a, "charger"), c->t);
    rec__where tf = rec__locate(c->g, json_object_get(a, "target"), c->t);
    double d = rec__num(a, "distance_in", -1), L = hypot(tf.x - cf.x, tf.y - cf.y);
    if (!cf.ok || !tf.ok || d < 0 || L <= 0)
        return 0;
    double ex = cf.x + (tf.x - cf.x) * fmin(d / L, 1), ey = cf.y + (tf.y - cf.y) * fmin(d / L, 1);
    const json_t *path = json_object_get(a, "path");
    if (json_array_size(path) == 2 && json_array_size(json_array_get(path, 0)) == 2 &&
        json_array_size(json_array_get(path, 1)) == 2) {
        cf.x = json_number_value(json_array_get(json_array_get(path, 0), 0));
        cf.y = json_number_value(json_array_get(json_array_get(path, 0), 1));
        ex = json_number_value(json_array_get(json_array_get(path, 1), 0));
        ey = json_number_value(json_array_get(json_array_get(path, 1), 1));
    }
    const json_t *ok = json_object_get(a, "ok");
    const char *colour = json_is_boolean(ok) ? (json_is_true(ok) ? C_YES : C_NO) : C_NEUTRAL;
    if (json_is_number(json_object_get(a, "allowed_in")))
        snprintf(text, sizeof text, "charge %.1f\" of %.1f\"", d, rec__num(a, "allowed_in", 0));
    else
        snprintf(text, sizeof text, "charge %.1f\"", d);
    json_t *target = json_pack("[O]", json_object_get(a, "target"));
    int bad = !target || rec__solid(c->arr, cf.x, cf.y, ex, ey, colour, text) || rec__mark(c->arr, ex, ey, colour) ||
              rec__rings(c->arr, c->g, target, C_HIT);
    json_decref(target);
    return bad ? -1 : 0;
}

static int rec__grape(const rec__ask *c)
{
    char text[160];
    const json_t *a = c->a;
    if (!c->from.ok)
        return 0;
    double r = rec__num(a, "radius_in", 6.0), arc = rec__num(a, "arc_deg", 30.0);
    const json_t *ce = json_object_get(a, "centre");
    double cx = json_array_size(ce) == 2 ? json_number_value(json_array_get(ce, 0)) : c->from.x;
    double cy = json_array_size(ce) == 2 ? json_number_value(json_array_get(ce, 1)) : c->from.y;
    if (json_array_size(json_object_get(a, "polygon")) >= 3) {
        if (rec__polygon(c->arr, json_object_get(a, "polygon"), C_GRAPE) != 0)
            return -1;
    } else if (rec__add(c->arr, json_pack("{s:s, s:[f,f], s:f, s:f, s:f, s:s}", "type", "sector", "c", cx, cy, "r", r,
                                          "a0", c->from.facing - arc / 2, "a1", c->from.facing + arc / 2, "colour",
                                          C_GRAPE)) != 0)
        return -1;
    snprintf(text, sizeof text, "grape: %zu hit", json_array_size(json_object_get(a, "targets")));
    return rec__rings(c->arr, c->g, json_object_get(a, "targets"), C_HIT) || rec__label(c->arr, cx, cy - 0.8, text);
}

static int rec__ball(const rec__ask *c)
{
    char text[160];
    double l[4] = {c->l[0], c->l[1], c->l[2], c->l[3]};
    if (!c->has_line) {
        rec__where end = c->to.ok ? c->to : rec__locate(c->g, json_object_get(c->q, "at"), c->t);
        if (!c->from.ok || !end.ok)
            return 0;
        l[0] = c->from.x, l[1] = c->from.y, l[2] = end.x, l[3] = end.y;
    }
    snprintf(text, sizeof text, "ball: %zu touched", json_array_size(json_object_get(c->a, "touched")));
    return rec__line(c->arr, l[0], l[1], l[2], l[3], C_BALL, text) ||
           rec__rings(c->arr, c->g, json_object_get(c->a, "touched"), C_HIT);
}

static int rec__blast(const rec__ask *c)
{
    char text[160];
    const json_t *a = c->a, *q = c->q;
    rec__where at = rec__locate(c->g, json_object_get(q, "at"), c->t);
    const json_t *ce = json_object_get(a, "centre");
    if (json_array_size(ce) == 2) {
        at.x = json_number_value(json_array_get(ce, 0));
        at.y = json_number_value(json_array_get(ce, 1));
        at.ok = 1;
    }
    if (!at.ok)
        return 0;
    const char *weapon = json_string_value(json_object_get(q, "weapon"));
    double r = rec__num(a, "radius_in", rec__num(q, "radius_in", rec__blast_default(weapon)));
    snprintf(text, sizeof text, "%s%s%.1f\" blast: %zu hit", weapon ? weapon : "", weapon ? " " : "", r,
             json_array_size(json_object_get(a, "hit")));
    return rec__add(c->arr, json_pack("{s:s, s:[f,f], s:f, s:s}", "type", "circle", "c", at.x, at.y, "r", r, "colour",
                                      C_BLAST)) ||
           rec__rings(c->arr, c->g, json_object_get(a, "hit"), C_HIT) ||
           rec__label(c->arr, at.x, at.y - r - 0.4, text);
}

static int rec__command(const rec__ask *c)
{
    char text[160];
    if (!c->from.ok)
        return 0;
    double r = rec__num(c->a, "radius_in", 12.0);
    snprintf(text, sizeof text, "command %.0f\": %zu units", r, json_array_size(json_object_get(c->a, "units")));
    return rec__add(c->arr, json_pack("{s:s, s:[f,f], s:f, s:s}", "type", "circle", "c", c->from.x, c->from.y, "r", r,
                                      "colour", C_COMMAND)) ||
           rec__label(c->arr, c->from.x, c->from.y - r - 0.4, text);
}

static int rec__visibility(const rec__ask *c)
{
    return rec__polygon(c->arr, json_object_get(c->a, "polygon"), C_VIS);
}

static int rec__move(const rec__ask *c)
{
    char text[160];
    const rec__where *from = &c->from, *to = &c->to;
    if (!from->ok || !to->ok)
        return 0;
    const json_t *ok = json_object_get(c->a, "ok");
    const char *colour = json_is_boolean(ok) ? (json_is_true(ok) ? C_YES : C_NO) : C_NEUTRAL;
    snprintf(text, sizeof text, "move %.1f\"", rec__num(c->a, "distance_in", hypot(to->x - from->x, to->y - from->y)));
    return rec__line(c->arr, from->x, from->y, to->x, to->y, colour, text);
}

/* Each recorded answer kind's drawing, by the question's "q". */
static const struct {
    const char *kind;
    int (*build)(const rec__ask *c);
} rec__kinds[] = {
    {"los", rec__sight},     {"fire", rec__sight},       {"aspect", rec__sight},   {"deviate", rec__deviate},
    {"charge", rec__charge}, {"grape", rec__grape},      {"ball", rec__ball},      {"blast", rec__blast},
    {"command", rec__command}, {"visibility", rec__visibility}, {"move", rec__move},
};

static int rec__build(json_t *arr, const rec_game *g, const char *kind, const json_t *q, const json_t *a, long long t)
{
    rec__ask c = {arr, g, kind, q, a, t, rec__locate(g, json_object_get(q, "from"), t),
                  rec__locate(g, json_object_get(q, "to"), t), {0, 0, 0, 0}, 0};
    c.has_line = rec__answer_line(a, c.l);
    for (size_t k = 0; k < sizeof rec__kinds / sizeof rec__kinds[0]; k++)
        if (!strcmp(kind, rec__kinds[k].kind))
            return rec__kinds[k].build(&c);
    return 0;
}

json_t *rec__overlay_build(const rec_game *g, const rec__query *q)
{
    json_t *arr = json_array();
    if (!arr)
        return NULL;
    json_t *qj = json_loads(q->query, 0, NULL), *aj = json_loads(q->answer, 0, NULL);
    const char *kind = json_string_value(json_object_get(qj, "q"));
    if (kind && !json_object_get(aj, "error") && rec__build(arr, g, kind, qj, aj, q->t_ms) != 0) {
        json_decref(arr);
        arr = NULL;
    }
    json_decref(qj);
    json_decref(aj);
    return arr;
}
