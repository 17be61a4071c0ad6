/* ball.c - the 'ball' query: a cannonball's flight line over the weapon's
 * full range, every figure it touches in order, stopping at terrain. */
#include "rules_questions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rules__hit {
    double t;
    const char *id;
    int k; /* the figure's index */
} rules__hit;

static int rules__cmp_hit(const void *x, const void *y)
{
    const rules__hit *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return strcmp(a->id, b->id);
}

tt_status rules_ball(rules_scenario *sc, const char *gun, const char *to, const rules_point *at, rules_result *out,
                     tt_err *err)
{
    int i, j = -1;
    tt_status st;
    rules__hit *hits = NULL;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_BALL;
    if ((st = rules_scenario_figure(sc, gun, "from", &i, err)))
        return st;
    const rules_figure *g = &sc->figs[i];
    const rules_weapon *w = g->weapon;
    if (!w || !w->ball)
        return tt_err_set(err, TT_ERR_ARG, "figure \"%s\" (%s) fires no roundshot in ruleset %s", gun,
                          w ? w->name : "no weapon", sc->prof->name);
    out->rule = w->src;
    rules_pt apex = sc->prof->centre_measure ? g->shape.c : g->front, target;
    if (to) {
        if ((st = rules_scenario_figure(sc, to, "to", &j, err)))
            return st;
        if (j == i)
            return tt_err_set(err, TT_ERR_ARG, "gun \"%s\" cannot fire roundshot at itself", gun);
        target = sc->figs[j].shape.c;
        /* a ball aimed at a figure: like any direct fire, only at one the
         * gun sees (aimed at a point, it flies on regardless) */
        int bl = -1;
        if (!w->indirect && !rules_fire_decide(sc, &rules_no_opts, i, j, 1, 1, &bl, NULL)) {
            const char *by = rules_blocker_id(sc, bl);
            return tt_err_set(err, TT_ERR_ARG,
                              "gun \"%s\" cannot see \"%s\"%s%s%s, and roundshot needs a clear line of sight to the "
                              "figure it is fired at (%s); aim at a figure it sees, or at a point with \"at\"",
                              gun, to, by ? " (blocked by \"" : "", by ? by : "", by ? "\")" : "",
                              w->src ? w->src : sc->prof->name);
        }
    } else if (at) {
        if (!(fabs(at->x) <= RULES_MAX_IN && fabs(at->y) <= RULES_MAX_IN))
            return tt_err_set(err, TT_ERR_ARG, "aim point (%g, %g) is not on the table", at->x, at->y);
        target.x = rules_fx(at->x);
        target.y = rules_fx(at->y);
    } else {
        return tt_err_set(err, TT_ERR_ARG, "give \"to\" (a figure) or \"at\" ([x, y]) for the ball");
    }
    rules_pt d = rules_sub(target, apex);
    if (d.x == 0 && d.y == 0)
        return tt_err_set(err, TT_ERR_ARG, "the aim point is the gun's own muzzle: aim somewhere else");
    /* only where the gun may turn to fire (its arc and pivot) */
    rules_arc arc;
    rules_fire_arc(g, w, &arc);
    rules_shape pt = {.round = 1, .c = target, .r = 0};
    if (!arc.full && !rules_arc_meets(&arc, j >= 0 ? &sc->figs[j].shape : &pt)) {
        return rules_arc_refusal(g, w, target, "roundshot", w->src ? w->src : sc->prof->name, err);
    }
    rules_pt end = rules_geom_ray_end(apex, rules_fx(w->range_in), d);
    /* where the flight stops: the first terrain piece that stops balls */
    double stop = 1;
    for (size_t k = 0; k < sc->npieces; k++) {
        const rules_piece *pc = &sc->pieces[k];
        if (!pc->p.stops_ball || rules_piece_contains(pc, apex) || !rules_piece_cuts(pc, apex, end))
            continue;
        double t = rules_piece_entry_t(pc, apex, end);
        if (t < stop)
            stop = t;
    }
    rules_pt sp = end;
    if (stop < 1) {
        sp.x = apex.x + llround(stop * (double)(end.x - apex.x));
        sp.y = apex.y + llround(stop * (double)(end.y - apex.y));
    }
    hits = calloc(sc->nfigs + 1, sizeof *hits);
    if (!hits)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    size_t nh = 0;
    for (size_t k = 0; k < sc->nfigs; k++) {
        const rules_figure *f = &sc->figs[k];
        if ((int)k == i || !rules_geom_shape_seg_touch(&f->shape, apex, sp))
            continue;
        double t = rules_geom_shape_entry_t(&f->shape, apex, end);
        if (t > 1) { /* touching within rounding: order by the centre */
            double dx = (double)(end.x - apex.x), dy = (double)(end.y - apex.y);
            t = ((double)(f->shape.c.x - apex.x) * dx + (double)(f->shape.c.y - apex.y) * dy) / (dx * dx + dy * dy);
        }
        hits[nh].t = t;
        hits[nh].id = f->id;
        hits[nh].k = (int)k;
        nh++;
    }
    qsort(hits, nh, sizeof *hits, rules__cmp_hit);
    out->ids = malloc((nh + 1) * sizeof *out->ids);
    if (!out->ids) {
        free(hits);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < nh; k++)
        out->ids[k] = hits[k].id;
    out->n_ids = nh;
    /* a roll on every figure touched, as for its range bracket, with its
     * cover's modifiers as "fire" has them */
    out->shot_to = malloc((nh + 1) * sizeof *out->shot_to);
    out->shot_bracket = malloc((nh + 1) * sizeof *out->shot_bracket);
    out->shot_hit = malloc((nh + 1) * sizeof *out->shot_hit);
    if (!out->shot_to || !out->shot_bracket || !out->shot_hit) {
        free(hits);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < nh; k++) {
        int m = hits[k].k;
        const rules_bracket *br = NULL;
        for (int b = 0; b < w->nbr && !br; b++)
            if (rules_figure_within(sc, g, &sc->figs[m], w->br[b].max_fx))
                br = &w->br[b];
        out->shot_to[k] = out->ids[k];
        out->shot_bracket[k] = br ? br->name : "out";
        out->shot_hit[k] = br && br->to_hit > 0 ? rules_cover_to_hit(sc, i, m, br->to_hit - br->modifier, NULL, 0) : RULES_NULL;
    }
    out->n_shots = nh;
    free(hits);
    out->line[0] = rules_pt_in(apex);
    out->line[1] = rules_pt_in(sp);
    return TT_OK;
}
