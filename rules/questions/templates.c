/* templates.c - area queries: grape arcs, blasts, command radius. */
#include "rules_questions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tt_status rules_grape(rules_scenario *sc, const char *gun, rules_result *out, tt_err *err)
{
    return rules_ask_grape(sc, &rules_no_opts, gun, out, err);
}

tt_status rules_ask_grape(rules_scenario *sc, const rules_query_opts *qo, const char *gun, rules_result *out,
                          tt_err *err)
{
    int i;
    size_t cap = 0;
    tt_status st;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_GRAPE;
    if ((st = rules_scenario_figure(sc, gun, "from", &i, err)))
        return st;
    const rules_figure *g = &sc->figs[i];
    const rules_weapon *w = g->weapon;
    if (!w || w->grape_range_in <= 0)
        return tt_err_set(err, TT_ERR_ARG, "figure \"%s\" (%s) fires no grape in ruleset %s", gun,
                          w ? w->name : "no weapon", sc->prof->name);
    if (qo->moved && w->cannot_move_and_fire)
        return tt_err_set(err, TT_ERR_ARG, "figure \"%s\" (%s) cannot fire after moving in ruleset %s: leave out \"moved\"",
                          gun, w->name, sc->prof->name);
    if (qo->moved && !w->grape_fire_mods && !w->grape_has_moved_rule)
        return tt_err_set(err, TT_ERR_ARG,
                          "the grape of \"%s\" (%s) has no rule for firing after moving in ruleset %s: leave out \"moved\"",
                          gun, w->name, sc->prof->name);
    out->rule = w->grape_src ? w->grape_src : w->src;
    /* the book's score for grape; each target's own (its modifiers) is in the shots */
    out->to_hit = w->grape_to_hit > 0 ? w->grape_to_hit : RULES_NULL;
    int gd = w->grape_dice;
    if (qo->moved && gd > 0 && !w->grape_has_moved_rule) /* its dice after moving: the weapon's rule */
        gd = rules_moved_dice(sc, qo, w, gd);
    else if (qo->moved && !w->grape_moved_keeps_dice && w->grape_moved_rof > 0 && gd > w->grape_moved_rof)
        gd = w->grape_moved_rof; /* ... or grape's own */
    out->dice = gd > 0 ? gd : RULES_NULL;
    rules_pt apex = sc->prof->centre_measure ? g->shape.c : g->front;
    rules_arc a;
    rules_arc_init(&a, apex, g->facing_deg, w->grape_arc_deg, rules_fx(w->grape_range_in));
    const int *cand;
    int nn = rules_figs_near(sc, apex, a.R, &cand);
    /* the figures in the arc, copied (a line of fire traced below may ask
     * the figure grid again): targets first, then the friends that may
     * stand in the way */
    if (nn < 0)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if (sc->fg_copy_cap < 2 * (size_t)nn + 1) { /* kept for the next query */
        int *c = realloc(sc->fg_copy, (2 * (size_t)nn + 1) * sizeof *c);
        if (!c)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        sc->fg_copy = c;
        sc->fg_copy_cap = 2 * (size_t)nn + 1;
    }
    int *near = sc->fg_copy;
    int nt = 0, nf = 2 * nn;
    for (int m = 0; m < nn; m++) {
        int k = cand[m];
        const rules_figure *fk = &sc->figs[k];
        /* in the arc, and within range by the ruleset's measure (centre to
         * centre where it measures so; the arc's radius reaches the base) */
        if (k == i || !rules_arc_meets(&a, &fk->shape) ||
            (sc->prof->centre_measure && !rules_figure_within(sc, g, fk, a.R)))
            continue;
        int friend = g->side[0] && !strcmp(fk->side, g->side);
        if (friend && w->grape_not_over_friends && strcmp(fk->unit, g->unit))
            near[--nf] = k; /* may stand between the gun and the enemy */
        int bl; /* a figure out of the gun's sight is not a target (left out), nor a friend where it hits the enemy only */
        if (!(friend && w->grape_enemies_only) &&
            (!w->grape_needs_los || rules_fire_decide(sc, qo, i, k, 1, 0, &bl, NULL)))
            near[nt++] = k;
    }
    const char *friend_in_way = NULL;
    for (int m = 0; m < nt; m++) {
        const rules_figure *ft = &sc->figs[near[m]];
        if ((st = rules_result_add_id(out, ft->id, &cap, err)))
            return st;
        if (g->side[0] && !strcmp(ft->side, g->side))
            continue;
        /* a friend of another unit on the line from the gun to an enemy it would hit */
        for (int q = nf; q < 2 * nn; q++) {
            const rules_figure *ff = &sc->figs[near[q]];
            if ((!friend_in_way || strcmp(ff->id, friend_in_way) < 0) &&
                rules_geom_shape_seg_blocks(&ff->shape, apex, ft->shape.c))
                friend_in_way = ff->id;
        }
    }
    if (friend_in_way) { /* the battery cannot fire grape over its friends */
        out->to_hit = RULES_NULL;
        out->blocked_by = friend_in_way;
    }
    rules_result_sort_ids(out);
    /* where grape rolls on every figure, the score each needs with its
     * cover as "fire" counts it; where it takes fire's modifiers, the score
     * each needs after all of them (rules_fire_mods: cover, formation,
     * quality, having moved ...; grape is direct fire at every figure in
     * its arc, so each counts as seen), the rule of dice applied */
    if ((w->grape_roll_each || w->grape_fire_mods) && out->to_hit != RULES_NULL && out->n_ids > 0) {
        out->shot_to = malloc(out->n_ids * sizeof *out->shot_to);
        out->shot_hit = malloc(out->n_ids * sizeof *out->shot_hit);
        if (!out->shot_to || !out->shot_hit)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        /* the pieces that may cover a figure in the arc, found once */
        int nc = rules_cover_cands(sc, apex, a.R, sc->piece_cand);
        int mmod = !qo->moved                ? 0 /* having moved: grape's own modifier, else the weapon's */
                   : w->grape_has_moved_rule ? w->grape_moved_mod
                                             : rules_fire_moved_mod(sc, qo, w, w->grape_dice);
        for (size_t k = 0; k < out->n_ids; k++) {
            int t = -1; /* the target's index: near[] holds every figure added (ids are their figures' own) */
            for (int m = 0; m < nt && t < 0; m++)
                if (sc->figs[near[m]].id == out->ids[k])
                    t = near[m];
            out->shot_to[k] = out->ids[k];
            if (w->grape_fire_mods) {
                rules_modifier mods[RULES_MAX_MODIFIERS];
                int n = 0, piece;
                rules_cover cv = rules_cover_among(sc, i, t, sc->piece_cand, nc, &piece);
                rules_fire_mods(sc, qo, i, t, t, w, 1, piece, cv, mmod, mods, &n, 0);
                out->shot_hit[k] = rules_to_hit(sc->prof, w->grape_to_hit, mods, n);
            } else {
                out->shot_hit[k] = rules_cover_to_hit(sc, i, t, w->grape_to_hit, sc->piece_cand, nc);
            }
        }
        out->n_shots = out->n_ids;
    }
    out->centre = rules_pt_in(apex);
    out->radius_in = w->grape_range_in;
    out->polygon = rules_arc_polygon(apex, g->facing_deg, w->grape_arc_deg, w->grape_range_in, &out->n_polygon);
    if (!out->polygon)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    return TT_OK;
}

/* Is a piece (among the candidates) between the blast point p and the
 * figure's centre? */
static int rules__shielded(const rules_scenario *sc, const int *cand, int nc, rules_pt p, const rules_figure *f)
{
    rules_pt c = f->shape.c;
    rules_pt lo = {p.x < c.x ? p.x : c.x, p.y < c.y ? p.y : c.y}, hi = {p.x > c.x ? p.x : c.x, p.y > c.y ? p.y : c.y};
    for (int m = 0; m < nc; m++) {
        const rules_pbox *bx = &sc->pbox[cand[m]];
        if (hi.x < bx->lo.x || lo.x > bx->hi.x || hi.y < bx->lo.y || lo.y > bx->hi.y)
            continue;
        const rules_piece *pc = &sc->pieces[cand[m]];
        if (rules_piece_contains(pc, p) || rules_piece_contains(pc, c))
            continue;
        if (rules_piece_cuts(pc, p, c))
            return 1;
    }
    return 0;
}

tt_status rules_blast(rules_scenario *sc, rules_point at, double radius_in, const char *weapon, rules_result *out,
                      tt_err *err)
{
    size_t cap = 0;
    tt_status st;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_BLAST;
    if (!(fabs(at.x) <= RULES_MAX_IN && fabs(at.y) <= RULES_MAX_IN))
        return tt_err_set(err, TT_ERR_ARG, "blast point (%g, %g) is not on the table", at.x, at.y);
    if (!(radius_in > 0)) {
        const rules_weapon *w = weapon ? rules_profile_weapon(sc->prof, weapon) : NULL;
        if (!weapon)
            return tt_err_set(err, TT_ERR_ARG, "give \"radius_in\" (inches) or \"weapon\" for the blast");
        if (!w) {
            char names[512];
            rules_profile_weapon_names(sc->prof, names, sizeof names);
            return tt_err_set(err, TT_ERR_UNKNOWN, "unknown weapon \"%s\" in ruleset %s (known: %s)", weapon,
                              sc->prof->name, names);
        }
        if (w->blast_in <= 0)
            return tt_err_set(err, TT_ERR_ARG, "weapon \"%s\" has no blast in ruleset %s", weapon, sc->prof->name);
        radius_in = w->blast_in;
        out->rule = w->src;
        out->to_hit = (int)w->blast_kill; /* the score that kills each figure in it, 0: not given */
    }
    if (radius_in > RULES_MAX_IN)
        return tt_err_set(err, TT_ERR_ARG, "blast radius %g\" is larger than any table", radius_in);
    rules_pt p = {rules_fx(at.x), rules_fx(at.y)};
    int64_t R = rules_fx(radius_in);
    rules_arc a;
    rules_arc_init(&a, p, 0, 360, R);
    const int *near;
    int nn = rules_figs_near(sc, p, R, &near);
    if (nn < 0)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    /* shielding pieces that reach into the blast's box, found once */
    int nsh = 0, *sh = NULL;
    for (int m = 0; m < nn; m++) {
        const rules_figure *f = &sc->figs[near[m]];
        if (!rules_arc_meets(&a, &f->shape))
            continue;
        if (!sh) {
            int64_t M = R + sc->fg_ext;
            sh = sc->piece_cand;
            for (size_t k = 0; k < sc->npieces; k++) {
                const rules_pbox *bx = &sc->pbox[k];
                if (bx->shields_blast && bx->hi.x >= p.x - M && bx->lo.x <= p.x + M && bx->hi.y >= p.y - M &&
                    bx->lo.y <= p.y + M)
                    sh[nsh++] = (int)k;
            }
        }
        if (!rules__shielded(sc, sh, nsh, p, f) && (st = rules_result_add_id(out, f->id, &cap, err)))
            return st;
    }
    rules_result_sort_ids(out);
    out->centre = rules_pt_in(p);
    out->radius_in = rules_in(R);
    return TT_OK;
}

static int rules__cmp_id(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The figure types that command in the ruleset, "a, b or c", into buf. */
static void rules__cmd_types(const rules_profile *pr, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < pr->ncmd_types && used < n; k++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", k == 0 ? "" : k == pr->ncmd_types - 1 ? " and " : ", ",
                                 pr->cmd_type[k]);
}

tt_status rules_command(rules_scenario *sc, const char *general, rules_result *out, tt_err *err)
{
    int i;
    size_t cap = 0;
    tt_status st;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_COMMAND;
    if ((st = rules_scenario_figure(sc, general, "from", &i, err)))
        return st;
    const rules_profile *pr = sc->prof;
    if (pr->command_in <= 0)
        return tt_err_set(err, TT_ERR_ARG, "ruleset %s has no command radius (add \"command_radius_in\" to it)",
                          pr->name);
    const rules_figure *g = &sc->figs[i];
    /* which units it commands: any of its side, unless the ruleset names
     * the types that command and this type commands only its own unit */
    int side_wide = 1;
    if (pr->ncmd_types > 0) {
        int t = -1;
        for (int k = 0; k < pr->ncmd_types && t < 0; k++)
            if (!strcmp(pr->cmd_type[k], g->type))
                t = k;
        if (t < 0) {
            char types[RULES_MAX_CMD_TYPES * 26];
            rules__cmd_types(pr, types, sizeof types);
            return tt_err_set(err, TT_ERR_ARG,
                              "figure \"%s\" (%s) cannot %s: only %s figures command in ruleset %s; ask from one of them",
                              general, g->type, pr->cmd_action, types, pr->name);
        }
        side_wide = pr->cmd_side[t];
    }
    out->per_figure = pr->cmd_per_figure;
    if (out->per_figure) {
        out->fig_in = malloc(sc->nfigs * sizeof *out->fig_in);
        out->fig_out = malloc(sc->nfigs * sizeof *out->fig_out);
        if (!out->fig_in || !out->fig_out)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    int64_t R = rules_fx(pr->command_in);
    for (size_t k = 0; k < sc->nfigs; k++) {
        const rules_figure *f = &sc->figs[k];
        if ((int)k == i || strcmp(f->side, g->side) || (!side_wide && strcmp(f->unit, g->unit)))
            continue;
        int in = rules_figure_within(sc, g, f, R);
        if (in && (st = rules_result_add_id(out, f->unit, &cap, err)))
            return st;
        if (out->per_figure) {
            if (in)
                out->fig_in[out->n_fig_in++] = f->id;
            else
                out->fig_out[out->n_fig_out++] = f->id;
        }
    }
    rules_result_sort_ids(out);
    if (out->n_fig_in > 1)
        qsort((void *)out->fig_in, out->n_fig_in, sizeof *out->fig_in, rules__cmp_id);
    if (out->n_fig_out > 1)
        qsort((void *)out->fig_out, out->n_fig_out, sizeof *out->fig_out, rules__cmp_id);
    out->centre = rules_pt_in(g->shape.c);
    out->radius_in = pr->command_in + (pr->centre_measure || !g->shape.round ? 0 : g->w_in / 2);
    return TT_OK;
}
