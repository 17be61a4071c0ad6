/* move.c - the 'move' query: a straight move against the ruleset's
 * allowance after terrain effects. */
#include "rules_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int rules_dice_parse(const char *d, int *n, int *s, int *k)
{
    int used = 0;
    *n = *s = *k = 0;
    if (!d || sscanf(d, "%dd%d%n", n, s, &used) != 2 || *n <= 0 || *s <= 0 || *n > 100 || *s > 1000 ||
        (d[used] && (sscanf(d + used, "+%d", k) != 1 || *k < 0 || *k > 1000)))
        return -1;
    return 0;
}

/* The dice of a movement allowance, "NdS" or "NdS+K". */
static tt_status rules__dice(const rules_allowance *al, int *n, int *s, int *k, tt_err *err)
{
    if (rules_dice_parse(al->dice, n, s, k))
        return tt_err_set(err, TT_ERR_FORMAT, "movement of \"%s\": dice \"%s\" are not of the form 2d6 or 1d6+3",
                          al->type, al->dice);
    return TT_OK;
}

/* The allowance `base` inches leave after the terrain on the way, for a
 * move that is not forward when not_fwd: every factor together, never
 * below the profile's least_factor. */
static double rules__after_terrain(const rules_scenario *sc, const rules_allowance *al, double base, int difficult,
                                   int obstacles, int not_fwd)
{
    const rules_profile *p = sc->prof;
    double allowed = base;
    if (difficult || not_fwd) {
        /* difficult & 2: very difficult going on the way, which sets the pace */
        double f = !difficult          ? 1
                   : (difficult & 2)   ? p->very_difficult_factor
                   : al->difficult_factor >= 0 ? al->difficult_factor
                                               : p->difficult_factor;
        if (not_fwd)
            f *= p->not_forward_factor;
        if (f < p->least_factor)
            f = p->least_factor;
        allowed *= f;
        /* factors are written to 6 places (0.666667): a product within
         * 1e-4 of a whole inch is that inch */
        if (p->difficult_round_up)
            allowed = ceil(allowed - 1e-4);
    }
    if (difficult)
        allowed -= al->difficult_cost_in;
    allowed -= obstacles * p->obstacle_cost_in;
    return allowed < 0 ? 0 : allowed;
}

/* The move a -> b of figure f is not forward: outside the profile's
 * forward arc around f's facing (exact, as firing arcs), or ending turned
 * further than free_turn_deg. */
static int rules__not_forward(const rules_scenario *sc, const rules_figure *f, const rules_allowance *al, rules_pt a,
                              rules_pt b)
{
    const rules_profile *p = sc->prof;
    if (p->not_forward_factor <= 0 || al->any_direction)
        return 0;
    /* ending faced about (the query's facing_deg) */
    if (sc->q_has_facing && p->free_turn_deg > 0 &&
        fabs(remainder(sc->q_facing_deg - f->facing_deg, 360.0)) > p->free_turn_deg + 1e-9)
        return 1;
    if ((a.x == b.x && a.y == b.y) || p->forward_arc_deg >= 360)
        return 0;
    double h = p->forward_arc_deg / 2;
    return !rules_geom_in_wedge(rules_geom_dir(f->facing_deg - h), rules_geom_dir(f->facing_deg + h), rules_sub(b, a));
}

/* A road piece the whole move a -> b runs along (inside it end to end), or -1. */
static int rules__on_road(const rules_scenario *sc, rules_pt a, rules_pt b)
{
    double L = rules_in(1) * hypot((double)(b.x - a.x), (double)(b.y - a.y));
    for (size_t k = 0; k < sc->npieces; k++) {
        const rules_piece *pc = &sc->pieces[k];
        if (pc->closed && pc->p.movement == RULES_MOVE_ROAD && rules_piece_contains(pc, a) &&
            rules_piece_contains(pc, b) && (L == 0 || rules_piece_depth(pc, a, b) >= L - 1e-4))
            return (int)k;
    }
    return -1;
}

/* A straight move of figure i to `to` (see rules_move); a charge scales
 * the allowance by `factor` or, fixed_in >= 0, replaces it. */
static tt_status rules__move(rules_scenario *sc, int i, rules_point to, int roll, double factor, double fixed_in,
                             rules_result *out, tt_err *err)
{
    size_t cap = 0;
    tt_status st;
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
    out->rule = al->src;
    double base = al->inches;
    /* the figure's formation: its own allowance for the type, and what it
     * loses in difficult going */
    rules_allowance fal;
    int fm = f->formation;
    if (fm >= 0) {
        for (int k = 0; k < sc->prof->form_nmove[fm] && base >= 0; k++)
            if (!strcmp(sc->prof->form_move_type[fm][k], f->type))
                base = sc->prof->form_move_in[fm][k];
        if (sc->prof->form_difficult_cost[fm] > al->difficult_cost_in) {
            fal = *al;
            fal.difficult_cost_in = sc->prof->form_difficult_cost[fm];
            al = &fal;
        }
    }
    /* a mount's gait: its inches, less the turn to head for the destination
     * (pro rata per 90 degrees), and the least it must go */
    int gi = -1;
    double turn_cost = 0;
    if (sc->q_gait) {
        char names[64] = "";
        for (int g = 0; g < al->ngaits && gi < 0; g++) {
            if (!strcmp(al->gait[g], sc->q_gait))
                gi = g;
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", g ? ", " : "", al->gait[g]);
        }
        if (!al->ngaits)
            return tt_err_set(err, TT_ERR_ARG, "figure type \"%s\" (of \"%s\") has no gaits in ruleset %s: leave out \"gait\"",
                              f->type, f->id, sc->prof->name);
        if (gi < 0)
            return tt_err_set(err, TT_ERR_ARG, "gait \"%s\" is not one of %s", sc->q_gait, names);
        base = al->gait_in[gi];
        double dx = to.x - f->x, dy = to.y - f->y;
        if (dx != 0 || dy != 0)
            turn_cost = al->gait_turn_in[gi] * fabs(remainder(atan2(dy, dx) * (180.0 / M_PI) - f->facing_deg, 360.0)) / 90;
    }
    int dn = 0, ds = 0, dk = 0;
    if (roll >= 0 && al->inches >= 0)
        return tt_err_set(err, TT_ERR_ARG,
                          "figure type \"%s\" (of \"%s\") moves a fixed %g\" in ruleset %s: leave out \"roll\"", f->type,
                          f->id, al->inches, sc->prof->name);
    if (al->inches < 0 && (st = rules__dice(al, &dn, &ds, &dk, err)))
        return st;
    if (roll >= 0) {
        if (roll < dn || roll > dn * ds)
            return tt_err_set(err, TT_ERR_ARG,
                              "a roll of %d is not possible on %dd%d (%d to %d): give what the dice showed", roll, dn, ds,
                              dn, dn * ds);
        base = roll + dk;
    }
    if (fixed_in >= 0) {
        base = fixed_in;
        dn = ds = dk = 0;
    } else if (base >= 0) {
        base *= factor;
    } else {
        dn = (int)(dn * factor); /* a dice charge: the range of allowances, scaled */
        dk = (int)(dk * factor);
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
        /* a slope slows only a move that climbs it: one that starts off it */
        difficult |= pc->p.movement == RULES_MOVE_UPHILL && !rules_piece_contains(pc, a);
        if (pc->p.movement == RULES_MOVE_VERY_DIFFICULT)
            difficult |= sc->prof->very_difficult_factor >= 0 ? 2 : 1;
        impassable |= pc->p.movement == RULES_MOVE_IMPASSABLE;
        obstacles += pc->p.movement == RULES_MOVE_OBSTACLE;
    }
    rules_result_sort_ids(out);
    int not_fwd = rules__not_forward(sc, f, al, a, b);
    /* a whole move along a road, in a formation that may take it: faster,
     * and the road is the exception to terrain penalties */
    if (sc->prof->road_factor > 0 && base >= 0 && fm >= 0 && sc->prof->form_road[fm] && rules__on_road(sc, a, b) >= 0) {
        difficult = obstacles = 0;
        base *= sc->prof->road_factor;
    }
    out->distance_in = rules_in(1) * hypot((double)(b.x - a.x), (double)(b.y - a.y));
    if (impassable) {
        out->allowed_known = 1;
        out->allowed_in = 0;
        out->ok = 0;
    } else if (base < 0) {
        out->allowed_known = 0;
        out->ok = RULES_NULL;
        out->has_allowed_range = 1; /* what the lowest and the highest roll allow */
        out->allowed_range_in[0] = rules__after_terrain(sc, al, dn + dk, difficult, obstacles, not_fwd);
        out->allowed_range_in[1] = rules__after_terrain(sc, al, dn * ds + dk, difficult, obstacles, not_fwd);
    } else {
        double allowed = rules__after_terrain(sc, al, base, difficult, obstacles, not_fwd) - turn_cost;
        if (allowed < 0)
            allowed = 0;
        out->allowed_known = 1;
        out->allowed_in = allowed;
        int64_t A = rules_fx(allowed);
        out->ok = rules_len2(rules_sub(b, a)) <= (rules_i128)A * A;
        if (gi >= 0 && al->gait_min_in[gi] > 0) { /* and at least the gait's least */
            int64_t M = rules_fx(al->gait_min_in[gi]);
            out->has_min = 1;
            out->min_in = al->gait_min_in[gi];
            out->ok &= rules_len2(rules_sub(b, a)) >= (rules_i128)M * M;
        }
    }
    out->line[0] = rules_pt_in(a);
    out->line[1] = rules_pt_in(b);
    return TT_OK;
}

tt_status rules_move(rules_scenario *sc, const char *from, rules_point to, int roll, rules_result *out, tt_err *err)
{
    int i;
    tt_status st;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_MOVE;
    if ((st = rules_scenario_figure(sc, from, "from", &i, err)))
        return st;
    return rules__move(sc, i, to, roll, 1, -1, out, err);
}

/* The base s moved by (dx, dy) fixed-point units. */
static rules_shape rules__shifted(const rules_shape *s, int64_t dx, int64_t dy)
{
    rules_shape t = *s;
    t.c.x += dx;
    t.c.y += dy;
    for (int k = 0; k < t.n; k++) {
        t.v[k].x += dx;
        t.v[k].y += dy;
    }
    return t;
}

/* The formation rules of a charge: the charger's formation is one it may
 * charge in (its type's list, else the ruleset's), and the target's is not
 * one its type may not charge (light cavalry at a square). */
static tt_status rules__charge_formation(const rules_scenario *sc, const rules_figure *f, const rules_figure *g,
                                         tt_err *err)
{
    const rules_profile *p = sc->prof;
    unsigned may = p->charge_forms;
    for (int k = 0; k < p->ncharge_ft; k++)
        if (!strcmp(p->charge_ft_type[k], f->type))
            may = p->charge_ft_forms[k];
    if (may && f->formation >= 0 && !(may >> f->formation & 1u)) {
        char list[128] = "";
        for (int m = 0; m < p->nforms; m++)
            if (may >> m & 1u)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? " or " : "", p->form_name[m]);
        return tt_err_set(err, TT_ERR_ARG, "figure \"%s\" (%s) is in %s and cannot charge in ruleset %s: it must be in %s",
                          f->id, f->type, p->form_name[f->formation], p->name, list);
    }
    for (int k = 0; k < p->ncharge_nt; k++)
        if (!strcmp(p->charge_nt_type[k], f->type) && g->formation >= 0 && (p->charge_nt_forms[k] >> g->formation & 1u))
            return tt_err_set(err, TT_ERR_ARG, "figure \"%s\" (%s) cannot charge \"%s\", in %s, in ruleset %s", f->id,
                              f->type, g->id, p->form_name[g->formation], p->name);
    return TT_OK;
}

tt_status rules_charge(rules_scenario *sc, const char *from, const char *to, int roll, rules_result *out, tt_err *err)
{
    int *F = NULL, *T = NULL, nF = 0, nT = 0;
    tt_status st;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_CHARGE;
    const rules_profile *p = sc->prof;
    if (p->charge_factor <= 0 && p->ncharge == 0)
        return tt_err_set(err, TT_ERR_ARG, "ruleset %s has no charge rule in its profile", p->name);
    if ((st = rules_figures_of(sc, from, "from", &F, &nF, err)) || (st = rules_figures_of(sc, to, "to", &T, &nT, err)))
        goto done;
    /* the charger and the target: the closest pair of the two, the target
     * among the figures contact must be made with (a skirmisher unit's
     * officer and ensign, a battery's cannon) */
    int bi = -1, bj = -1, ncontact = rules_aim_first(sc, T, nT);
    double best = INFINITY;
    for (int a = 0; a < nF; a++)
        for (int b = 0; b < ncontact; b++) {
            double d = F[a] == T[b] ? INFINITY : rules_geom_shape_shape_dist(&sc->figs[F[a]].shape, &sc->figs[T[b]].shape);
            if (d < best) {
                best = d;
                bi = F[a];
                bj = T[b];
            }
        }
    if (bi < 0) {
        st = tt_err_set(err, TT_ERR_ARG, "\"%s\" cannot charge itself", from);
        goto done;
    }
    const rules_figure *f = &sc->figs[bi], *g = &sc->figs[bj];
    double fixed = -1;
    if (p->ncharge > 0) {
        for (int k = 0; k < p->ncharge && fixed < 0; k++)
            if (!strcmp(p->charge_type[k], f->type))
                fixed = p->charge_in[k];
        if (fixed < 0) {
            st = tt_err_set(err, TT_ERR_ARG, "figure type \"%s\" (of \"%s\") cannot charge in ruleset %s", f->type,
                            f->id, p->name);
            goto done;
        }
    }
    if ((st = rules__charge_formation(sc, f, g, err)))
        goto done;
    /* straight at the target's centre until the bases touch: the shortest
     * such move, found by halving (to 1/10000in) */
    double ux = (double)(g->shape.c.x - f->shape.c.x), uy = (double)(g->shape.c.y - f->shape.c.y);
    double L = hypot(ux, uy), lo = 0, hi = L;
    if (L > 0) {
        ux /= L;
        uy /= L;
        while (hi - lo > 1) {
            double m = (lo + hi) / 2;
            rules_shape s = rules__shifted(&f->shape, llround(ux * m), llround(uy * m));
            if (rules_geom_shape_shape_within(&s, &g->shape, 0))
                hi = m;
            else
                lo = m;
        }
    } else {
        hi = 0;
    }
    rules_point dest = {rules_in(f->shape.c.x + llround(ux * hi)), rules_in(f->shape.c.y + llround(uy * hi))};
    if ((st = rules__move(sc, bi, dest, roll, p->charge_factor > 0 ? p->charge_factor : 1, fixed, out, err)))
        goto done;
    out->kind = RULES_Q_CHARGE;
    out->charger = f->id;
    out->target = g->id;
    if (p->charge_src)
        out->rule = p->charge_src;
    /* the melee it starts, where the book gives its dice: none when it
     * does not reach */
    if ((st = rules_melee_dice(sc, F, nF, T, nT, bi, bj, out, err)))
        goto done;
    if (out->has_defence_dice && out->ok != 1)
        out->dice = out->to_hit = out->defender_dice = out->defender_to_hit = RULES_NULL;
done:
    if (st)
        rules_result_free(out);
    free(F);
    free(T);
    return st;
}
