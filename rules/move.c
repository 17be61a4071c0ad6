/* move.c - the 'move' query: a straight move against the ruleset's
 * allowance after terrain effects. */
#include "rules_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The allowance a roll of `dice` ("NdS" or "NdS+K") gives: roll + K, or an
 * error when the dice cannot show `roll`. */
static tt_status rules__rolled(const rules_allowance *al, int roll, double *inches, tt_err *err)
{
    int n = 0, s = 0, k = 0, used = 0;
    if (sscanf(al->dice, "%dd%d%n", &n, &s, &used) != 2 || n <= 0 || s <= 0)
        return tt_err_set(err, TT_ERR_FORMAT, "movement of \"%s\": dice \"%s\" are not of the form 2d6 or 1d6+3",
                          al->type, al->dice);
    if (al->dice[used] && sscanf(al->dice + used, "+%d", &k) != 1)
        return tt_err_set(err, TT_ERR_FORMAT, "movement of \"%s\": dice \"%s\" are not of the form 2d6 or 1d6+3",
                          al->type, al->dice);
    if (roll < n || roll > n * s)
        return tt_err_set(err, TT_ERR_ARG, "a roll of %d is not possible on %dd%d (%d to %d): give what the dice showed",
                          roll, n, s, n, n * s);
    *inches = roll + k;
    return TT_OK;
}

tt_status rules_move(rules_scenario *sc, const char *from, rules_point to, int roll, rules_result *out, tt_err *err)
{
    int i;
    size_t cap = 0;
    tt_status st;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_MOVE;
    if ((st = rules_scenario_figure(sc, from, "from", &i, err)))
        return st;
    const rules_figure *f = &sc->figs[i];
    if (!(to.x >= 0 && to.x <= sc->width_in && to.y >= 0 && to.y <= sc->depth_in))
        return tt_err_set(err, TT_ERR_ARG, "destination (%g, %g) is off the %g x %g table", to.x, to.y, sc->width_in,
                          sc->depth_in);
    const rules_allowance *al = NULL;
    for (size_t k = 0; k < sc->prof->nmoves && !al; k++)
        if (!strcmp(sc->prof->moves[k].type, f->type))
            al = &sc->prof->moves[k];
    if (!al)
        return tt_err_set(err, TT_ERR_UNKNOWN, "ruleset %s has no movement allowance for figure type \"%s\" (of \"%s\")",
                          sc->prof->name, f->type, f->id);
    double base = al->inches;
    if (roll >= 0) {
        if (al->inches >= 0)
            return tt_err_set(err, TT_ERR_ARG,
                              "figure type \"%s\" (of \"%s\") moves a fixed %g\" in ruleset %s: leave out \"roll\"",
                              f->type, f->id, al->inches, sc->prof->name);
        if ((st = rules__rolled(al, roll, &base, err)))
            return st;
    }
    rules_pt a = f->shape.c, b = {rules_fx(to.x), rules_fx(to.y)};
    int difficult = 0, impassable = 0, obstacles = 0;
    for (size_t k = 0; k < sc->npieces; k++) {
        const rules_piece *pc = &sc->pieces[k];
        int in = rules_piece_contains(pc, a) || rules_piece_contains(pc, b) || rules_piece_cuts(pc, a, b);
        if (!in)
            continue;
        if ((st = rules_result_add_id(out, pc->id, &cap, err)))
            return st;
        difficult |= pc->p.movement == RULES_MOVE_DIFFICULT;
        impassable |= pc->p.movement == RULES_MOVE_IMPASSABLE;
        obstacles += pc->p.movement == RULES_MOVE_OBSTACLE;
    }
    rules_result_sort_ids(out);
    out->distance_in = rules_in(1) * hypot((double)(b.x - a.x), (double)(b.y - a.y));
    if (impassable) {
        out->allowed_known = 1;
        out->allowed_in = 0;
        out->ok = 0;
    } else if (base < 0) {
        out->allowed_known = 0;
        out->ok = RULES_NULL;
    } else {
        double factor = al->difficult_factor >= 0 ? al->difficult_factor : sc->prof->difficult_factor;
        double allowed = base;
        if (difficult) {
            allowed *= factor;
            /* factors are written to 6 places (0.666667): a product within
             * 1e-4 of a whole inch is that inch */
            if (sc->prof->difficult_round_up)
                allowed = ceil(allowed - 1e-4);
            allowed -= al->difficult_cost_in;
        }
        allowed -= obstacles * sc->prof->obstacle_cost_in;
        if (allowed < 0)
            allowed = 0;
        out->allowed_known = 1;
        out->allowed_in = allowed;
        int64_t A = rules_fx(allowed);
        out->ok = rules_len2(rules_sub(b, a)) <= (rules_i128)A * A;
    }
    out->line[0] = rules_pt_in(a);
    out->line[1] = rules_pt_in(b);
    return TT_OK;
}
