/* tie.c - answers that say when they cannot tell (issue 29): where the
 * scenario's figures carry errors (err95_in, z_err95_in, facing_err95_deg,
 * 95 % bounds), an answer that measures a distance says how sure that
 * distance is (distance_err95_in), and every decision made from measured
 * positions says whether it could come out otherwise within those errors
 * (too_close_to_call).
 *
 * distance_err95_in combines the two figures' bounds as independent:
 * sqrt(e1^2 + e2^2).  A 95 % radius e of an isotropic 2D normal is 2.448
 * sigma; the distance moves by the two errors' components along the line,
 * each normal with sigma e / 2.448, so their difference has sigma
 * sqrt(e1^2 + e2^2) / 2.448, and sqrt(e1^2 + e2^2) bounds it 98.6 % of the
 * time: at least 95 %, and still about 95 % for errors with heavier tails.
 * Adding the radii (e1 + e2) would claim the worst case of both at once.
 * Each e is rules_figure_err_eff: the position's and the facing's (which
 * turns the base, so moves its edges and front) as independent.
 *
 * too_close_to_call asks the same query again with the figures moved to the
 * edges of their errors, and is true when any of those answers decides
 * otherwise: the two ends nearer and further apart by distance_err95_in
 * (range brackets, reaching moves and charges, radii), each end moved
 * across the line to either side by its radius (the lines of sight that
 * graze a corner: the four lines tangent to both error circles), each
 * facing turned either way (arcs, front / flank / rear), each height up or
 * down (lines over hills), and each other figure a template or line may
 * hold moved toward, away from and across it (who is in a blast, a grape
 * cone, a command radius, a ball's path).  The extremes of a straight
 * bracket, a circle and an angle are among these, so a decision that
 * cannot change within the errors is not called close.
 *
 * No rulebook settles a measurement too close to call (searched: all four
 * books for doubt, dispute, tie, equal, exactly, roll off, measure): the
 * answer gives the house line. */
#include "rules_questions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RULES__TIE_SAY "too close to call: roll off"
#define RULES__TIE_RULE                                                                                                \
    "house: no rulebook settles a measurement within its error (all-the-kings-men.md, fixed-bayonet.txt, "             \
    "into-the-breach.txt, thin-red-line.txt searched)"

/* The figures a query names: the figure of that id, else the figures of
 * that unit; how many (at most cap). */
static int rules__group(const rules_scenario *sc, const char *name, int *out, int cap)
{
    int n = 0;
    if (!name)
        return 0;
    int i = rules_scenario_find(sc, name);
    if (i >= 0) {
        out[0] = i;
        return 1;
    }
    for (size_t k = 0; k < sc->nfigs && n < cap; k++)
        if (!strcmp(sc->figs[k].unit, name))
            out[n++] = (int)k;
    return n;
}

static int rules__has(const int *g, int n, int i)
{
    for (int k = 0; k < n; k++)
        if (g[k] == i)
            return 1;
    return 0;
}

/* A group's centre and its largest error bounds (position with facing,
 * height, facing). */
static void rules__group_err(const rules_scenario *sc, const int *g, int n, double *cx, double *cy, double *e,
                             double *z, double *f)
{
    *cx = *cy = *e = *z = *f = 0;
    for (int k = 0; k < n; k++) {
        const rules_figure *fg = &sc->figs[g[k]];
        *cx += fg->x / n;
        *cy += fg->y / n;
        *e = fmax(*e, rules_figure_err_eff(fg));
        *z = fmax(*z, fg->z_err95_in);
        *f = fmax(*f, fg->facing_err95_deg);
    }
}

/* One way to move figures to the edges of their errors. */
typedef struct rules__nudge {
    const int *g;
    int n;
    double dx, dy, dfacing, dz;
} rules__nudge;

/* Move figure i (saved into *save); 0 when it cannot stand there. */
static int rules__move_fig(rules_scenario *sc, int i, const rules__nudge *m, rules_figure *save)
{
    rules_figure *f = &sc->figs[i];
    tt_err e = {0};
    *save = *f;
    f->x = fmin(fmax(f->x + m->dx, 0), sc->width_in);
    f->y = fmin(fmax(f->y + m->dy, 0), sc->depth_in);
    f->facing_deg += m->dfacing;
    f->inside = NULL;
    f->ninside = 0;
    if (rules_figure_setup(sc, f, &e) != TT_OK) {
        free(f->inside);
        *f = *save;
        return 0;
    }
    /* never below the ground it stands on (rules_figure_setup's elev, the
     * declared terrain under it): a figure on a sloped hill lowered into
     * the slope would have the slope's own ground hide every line from it */
    f->elev += fmax(0, m->dz);
    sc->fg_dirty = 1;
    return 1;
}

static void rules__put_back(rules_scenario *sc, int i, const rules_figure *save)
{
    free(sc->figs[i].inside);
    sc->figs[i] = *save;
    sc->fg_dirty = 1;
}

static int rules__str_differs(const char *a, const char *b)
{
    return (a == NULL) != (b == NULL) || (a && strcmp(a, b));
}

/* Ids in one list and not the other go into `ids` (a JSON set); 1 if any. */
static int rules__list_differs(const char **a, size_t na, const char **b, size_t nb, json_t *ids)
{
    int d = 0;
    for (int pass = 0; pass < 2; pass++) {
        const char **x = pass ? b : a, **y = pass ? a : b;
        size_t nx = pass ? nb : na, ny = pass ? na : nb;
        for (size_t i = 0; i < nx; i++) {
            size_t j = 0;
            while (j < ny && strcmp(x[i], y[j]))
                j++;
            if (j == ny) {
                d = 1;
                if (ids)
                    json_object_set_new(ids, x[i], json_true());
            }
        }
    }
    return d;
}

/* Does b decide otherwise than a? */
static int rules__decides_otherwise(const rules_result *a, const rules_result *b, json_t *ids)
{
    int d = 0;
    switch (a->kind) {
    case RULES_Q_LOS:
        return a->visible != b->visible;
    case RULES_Q_FIRE:
        d = a->visible != b->visible || rules__str_differs(a->bracket, b->bracket) ||
            (a->to_hit == RULES_NULL) != (b->to_hit == RULES_NULL);
        return rules__list_differs(a->ids, a->n_ids, b->ids, b->n_ids, ids) || d;
    case RULES_Q_ASPECT:
        return rules__str_differs(a->aspect, b->aspect);
    case RULES_Q_MOVE:
    case RULES_Q_CHARGE:
        return a->ok != b->ok || rules__str_differs(a->target, b->target);
    default:
        d = rules__list_differs(a->ids, a->n_ids, b->ids, b->n_ids, ids);
        return rules__list_differs(a->fig_in, a->n_fig_in, b->fig_in, b->n_fig_in, ids) || d;
    }
}

/* Ask q again with the figures of each nudge moved; 1 when the answer
 * decides otherwise (or cannot be given there), else 0. */
static int rules__ask_nudged(rules_scenario *sc, const json_t *q, const rules_result *r, const rules__nudge *m, int nm,
                             rules_figure *saves, int *moved, json_t *ids)
{
    int nmoved = 0, differs = 0;
    for (int k = 0; k < nm; k++)
        for (int j = 0; j < m[k].n; j++)
            if (rules__move_fig(sc, m[k].g[j], &m[k], &saves[nmoved]))
                moved[nmoved++] = m[k].g[j];
    rules_result r2;
    tt_err e = {0};
    if (rules_query(sc, q, &r2, &e) != TT_OK)
        differs = r != NULL; /* refused there: answered here (r NULL: refused here too) */
    else {
        differs = r ? rules__decides_otherwise(r, &r2, ids) : 1;
        rules_result_free(&r2);
    }
    while (nmoved-- > 0)
        rules__put_back(sc, moved[nmoved], &saves[nmoved]);
    return differs;
}

static int rules__cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const double *rules__query_point(const json_t *q, const char *key, double *xy)
{
    const json_t *a = json_object_get(q, key);
    if (!json_is_array(a) || json_array_size(a) != 2)
        return NULL;
    xy[0] = json_number_value(json_array_get(a, 0));
    xy[1] = json_number_value(json_array_get(a, 1));
    return xy;
}

/* Could q come out otherwise with the figures at the edges of their
 * errors?  r: its answer, or NULL for a query refused (then: would it be
 * answered).  *dist_err: distance_err95_in.  -1 out of memory. */
static int rules__otherwise(rules_scenario *sc, const json_t *q, const rules_result *r, json_t *ids, double *dist_err)
{
    size_t cap = sc->nfigs + 1;
    int *ga = malloc(cap * sizeof *ga), *gb = malloc(cap * sizeof *gb), *moved = malloc(2 * cap * sizeof *moved);
    rules_figure *saves = malloc(2 * cap * sizeof *saves);
    if (!ga || !gb || !moved || !saves) {
        free(ga), free(gb), free(moved), free(saves);
        return -1;
    }
    const json_t *fv = json_object_get(q, "from"), *tv = json_object_get(q, "to");
    int na = rules__group(sc, json_is_string(fv) ? json_string_value(fv) : NULL, ga, (int)cap);
    int nb = rules__group(sc, json_is_string(tv) ? json_string_value(tv) : NULL, gb, (int)cap);
    double ax, ay, ea, za, fa, bx, by, eb, zb, fb, pt[2];
    rules__group_err(sc, ga, na, &ax, &ay, &ea, &za, &fa);
    rules__group_err(sc, gb, nb, &bx, &by, &eb, &zb, &fb);
    if (!nb && (rules__query_point(q, "to", pt) || rules__query_point(q, "at", pt)))
        bx = pt[0], by = pt[1]; /* a move's end, a ball's aim: exact */
    if (!na && rules__query_point(q, "at", pt))
        ax = pt[0], ay = pt[1]; /* a blast's centre */
    double E = hypot(ea, eb);
    *dist_err = E;
    int otherwise = 0;
    double ux = bx - ax, uy = by - ay, L = hypot(ux, uy);
    ux = L > 0 ? ux / L : 1, uy = L > 0 ? uy / L : 0;
    /* the two ends: nearer and further by E, across the line either side */
    double a = E > 0 ? ea * ea / E : 0, b = E > 0 ? eb * eb / E : 0;
    for (int s = -1; s <= 1 && E > 0; s += 2) {
        rules__nudge m[2] = {{ga, na, s * ux * a, s * uy * a, 0, 0}, {gb, nb, -s * ux * b, -s * uy * b, 0, 0}};
        otherwise |= rules__ask_nudged(sc, q, r, m, 2, saves, moved, ids);
    }
    for (int sa = -1; sa <= 1; sa += 2)
        for (int sb = -1; sb <= 1 && E > 0; sb += 2) {
            rules__nudge m[2] = {{ga, na, -uy * sa * ea, ux * sa * ea, 0, 0}, {gb, nb, -uy * sb * eb, ux * sb * eb, 0, 0}};
            otherwise |= rules__ask_nudged(sc, q, r, m, 2, saves, moved, ids);
        }
    /* each facing either way, each height up or down */
    for (int s = -1; s <= 1; s += 2) {
        const rules__nudge m[4] = {{ga, na, 0, 0, s * fa, 0}, {gb, nb, 0, 0, s * fb, 0},
                                   {ga, na, 0, 0, 0, s * za}, {gb, nb, 0, 0, 0, s * zb}};
        const double mag[4] = {fa, fb, za, zb};
        for (int k = 0; k < 4; k++)
            if (mag[k] > 0)
                otherwise |= rules__ask_nudged(sc, q, r, &m[k], 1, saves, moved, ids);
    }
    /* the other figures a template or a line may hold (a unit's fire: each
     * of its figures and its target's), each on its own: toward, away from
     * and across the template's centre (a line's start) */
    int unit_fire = r && r->kind == RULES_Q_FIRE && r->unit;
    if (r && (r->kind == RULES_Q_GRAPE || r->kind == RULES_Q_BLAST || r->kind == RULES_Q_COMMAND ||
              r->kind == RULES_Q_BALL || unit_fire)) {
        int line = r->kind == RULES_Q_BALL || unit_fire;
        double cx = line ? ax : r->centre.x, cy = line ? ay : r->centre.y;
        for (size_t k = 0; k < sc->nfigs; k++) {
            const rules_figure *f = &sc->figs[k];
            double e = rules_figure_err_eff(f), dx = f->x - cx, dy = f->y - cy, d = hypot(dx, dy);
            int grouped = rules__has(ga, na, (int)k) || rules__has(gb, nb, (int)k);
            if (!(e > 0) || grouped != unit_fire)
                continue;
            double reach = hypot(f->w_in, f->d_in) + e + 1;
            if (r->kind == RULES_Q_BALL) { /* near the flight: its distance from the line's path */
                double lx = r->line[1].x - r->line[0].x, ly = r->line[1].y - r->line[0].y, L2 = lx * lx + ly * ly;
                double t = L2 > 0 ? ((f->x - r->line[0].x) * lx + (f->y - r->line[0].y) * ly) / L2 : 0;
                t = t < 0 ? 0 : t > 1 ? 1 : t;
                if (hypot(f->x - r->line[0].x - t * lx, f->y - r->line[0].y - t * ly) > reach)
                    continue;
            } else if (!unit_fire && d > r->radius_in + reach) {
                continue;
            }
            dx = d > 0 ? dx / d : 1, dy = d > 0 ? dy / d : 0;
            int g = (int)k;
            const rules__nudge m[4] = {{&g, 1, dx * e, dy * e, 0, 0}, {&g, 1, -dx * e, -dy * e, 0, 0},
                                       {&g, 1, -dy * e, dx * e, 0, 0}, {&g, 1, dy * e, -dx * e, 0, 0}};
            for (int j = 0; j < 4; j++)
                otherwise |= rules__ask_nudged(sc, q, r, &m[j], 1, saves, moved, ids);
        }
    }
    free(ga), free(gb), free(moved), free(saves);
    return otherwise;
}

tt_status rules_tie_annotate(rules_scenario *sc, const json_t *q, const rules_result *r, json_t *ans, tt_err *err)
{
    if (!sc->has_errors || r->kind == RULES_Q_VISIBILITY || r->kind == RULES_Q_DEVIATE)
        return TT_OK;
    json_t *ids = json_object();
    double E = 0;
    int otherwise = ids ? rules__otherwise(sc, q, r, ids, &E) : -1;
    if (otherwise < 0) {
        json_decref(ids);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    if (r->kind == RULES_Q_FIRE || r->kind == RULES_Q_MOVE || r->kind == RULES_Q_CHARGE)
        json_object_set_new(ans, "distance_err95_in", json_real(round(E * 10000) / 10000));
    json_object_set_new(ans, "too_close_to_call", json_boolean(otherwise));
    if (otherwise) {
        json_object_set_new(ans, "tie", json_string(RULES__TIE_SAY));
        json_object_set_new(ans, "tie_rule", json_string(RULES__TIE_RULE));
        size_t n = 0, nids = json_object_size(ids);
        const char **names = nids ? malloc(nids * sizeof *names) : NULL;
        const char *key;
        json_t *v;
        json_object_foreach(ids, key, v)
        {
            if (names)
                names[n++] = key;
        }
        if (n) { /* the figures whose place in the answer could change, sorted */
            qsort((void *)names, n, sizeof *names, rules__cmp_str);
            json_t *list = json_array();
            for (size_t k = 0; k < n; k++)
                json_array_append_new(list, json_string(names[k]));
            json_object_set_new(ans, "too_close_ids", list);
        }
        free((void *)names);
    }
    json_decref(ids);
    return TT_OK;
}

tt_status rules_answer_how_sure(rules_scenario *sc, const json_t *query, const rules_result *r, json_t *answer,
                                tt_err *err)
{
    return sc && query && r && answer ? rules_tie_annotate(sc, query, r, answer, err) : TT_OK;
}

void rules_tie_refusal(rules_scenario *sc, const json_t *q, tt_err *err)
{
    double E = 0;
    if (!sc || !sc->has_errors || err->status != TT_ERR_ARG)
        return;
    tt_err keep = *err;
    if (rules__otherwise(sc, q, NULL, NULL, &E) == 1) {
        *err = keep;
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n, " (" RULES__TIE_SAY ": within the figures' errors it could be "
                                                     "allowed; house)");
    } else {
        *err = keep;
    }
}
