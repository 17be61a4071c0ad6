/* charge.c - the 'charge' query: which figure of the charging group
 * charges which of the target's, where it makes contact, and the move
 * there against the charge's allowance (move.c), with the melee it starts. */
#include "rules_questions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A charge from figure f at figure g: an error where the book does not
 * allow it (g of f's own side; f of a type that cannot charge). */
static tt_status rules__charge_allowed(const rules_profile *p, const rules_figure *f, const rules_figure *g,
                                       tt_err *err)
{
    if (f->side && g->side && *f->side && !strcmp(f->side, g->side))
        return tt_err_set(err, TT_ERR_ARG,
                          "\"%s\" and \"%s\" are both of side \"%s\": a charge is made at the enemy; name a "
                          "figure or unit of the other side as \"to\"",
                          f->id, g->id, f->side);
    if (rules_type_in(p->charge_not, p->ncharge_not, f->type))
        return tt_err_set(err, TT_ERR_ARG, "figure type \"%s\" (of \"%s\") cannot charge in ruleset %s (%s)", f->type,
                          f->id, p->name,
                          !p->charge_not_src || !strncmp(p->charge_not_src, "house", 5) ? "a house reading"
                                                                                         : p->charge_not_src);
    return TT_OK;
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

/* The point of shape s (a round base or a convex polygon) nearest p: p
 * itself when s holds it. */
static rules_pt rules__nearest(const rules_shape *s, rules_pt p)
{
    if (s->round) {
        double dx = (double)(p.x - s->c.x), dy = (double)(p.y - s->c.y), L = hypot(dx, dy);
        if (L <= (double)s->r)
            return p;
        return (rules_pt){s->c.x + llround(dx * (double)s->r / L), s->c.y + llround(dy * (double)s->r / L)};
    }
    if (rules_geom_point_in_poly(s->v, s->n, p) >= 0) /* inside or on an edge */
        return p;
    rules_pt best = s->v[0];
    double bd = INFINITY;
    for (int k = 0; k < s->n; k++) {
        rules_pt a = s->v[k], b = s->v[(k + 1) % s->n];
        double ex = (double)(b.x - a.x), ey = (double)(b.y - a.y), L2 = ex * ex + ey * ey;
        double t = L2 > 0 ? ((double)(p.x - a.x) * ex + (double)(p.y - a.y) * ey) / L2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        rules_pt q = {a.x + llround(t * ex), a.y + llround(t * ey)};
        double d = hypot((double)(q.x - p.x), (double)(q.y - p.y));
        if (d < bd) {
            bd = d;
            best = q;
        }
    }
    return best;
}

/* How far (fixed-point units) figure f goes straight ahead along its
 * facing before its base touches g's (0: touching already), or -1 where
 * it never does: g lies behind it or beside the path its base sweeps.
 * The distance between the moved base and g is convex in the distance
 * moved, so its least value is found by ternary search and the first
 * contact before it by halving; contact is within 1/1000in (docs/rules.md,
 * "Conventions"). */
static double rules__ahead(const rules_figure *f, const rules_figure *g)
{
    double ux = cos(f->facing_deg * (M_PI / 180.0)), uy = sin(f->facing_deg * (M_PI / 180.0));
    const double touch = 10; /* 1/1000in */
    if (rules_geom_shape_shape_dist(&f->shape, &g->shape) <= touch)
        return 0;
    double lo = 0, hi = hypot((double)(g->shape.c.x - f->shape.c.x), (double)(g->shape.c.y - f->shape.c.y)) +
                        (double)(f->w + f->d + g->w + g->d);
    while (hi - lo > 1) {
        double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        rules_shape s1 = rules_shape_shifted(&f->shape, llround(ux * m1), llround(uy * m1));
        rules_shape s2 = rules_shape_shifted(&f->shape, llround(ux * m2), llround(uy * m2));
        if (rules_geom_shape_shape_dist(&s1, &g->shape) <= rules_geom_shape_shape_dist(&s2, &g->shape))
            hi = m2;
        else
            lo = m1;
    }
    double t = (lo + hi) / 2;
    rules_shape s = rules_shape_shifted(&f->shape, llround(ux * t), llround(uy * t));
    double least = rules_geom_shape_shape_dist(&s, &g->shape);
    if (least > touch)
        return -1;
    /* the first contact, before the closest approach (a base that only
     * grazes g's: where it comes closest) */
    double reach = least > 0 ? least + 1 : 0;
    for (lo = 0, hi = t; hi - lo > 1;) {
        double m = (lo + hi) / 2;
        s = rules_shape_shifted(&f->shape, llround(ux * m), llround(uy * m));
        if (rules_geom_shape_shape_dist(&s, &g->shape) <= reach)
            hi = m;
        else
            lo = m;
    }
    return hi;
}

tt_status rules_charge(rules_scenario *sc, const char *from, const char *to, int roll, rules_result *out, tt_err *err)
{
    return rules_ask_charge(sc, &rules_no_opts, from, to, roll, out, err);
}

tt_status rules_ask_charge(rules_scenario *sc, const rules_query_opts *qo, const char *from, const char *to, int roll,
                           rules_result *out, tt_err *err)
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
     * officer and ensign, a battery's cannon); where the profile says so, a
     * unit's charge runs from its front-centre (probe P) to the nearest of
     * those, its charger the soldier nearest that point */
    int bi = -1, bj = -1, P = -1, ncontact = rules_aim_first(sc, T, nT);
    double best = INFINITY, ahead = -1; /* ahead: a charge straight ahead, how far it goes (fixed point) */
    if (p->charge_from_front && nF > 1) {
        for (int a = 0; a < nF; a++)
            for (int b = 0; b < nT; b++)
                if (F[a] == T[b]) {
                    st = tt_err_set(err, TT_ERR_ARG, "\"%s\" cannot charge itself (\"%s\" is in both)", from,
                                    sc->figs[F[a]].id);
                    goto done;
                }
        P = rules_unit_origin(sc, F, nF, rules_soldier_of(sc, F, nF, F[0]));
        for (int b = 0; b < ncontact; b++) {
            double d = rules_geom_shape_shape_dist(&sc->figs[P].shape, &sc->figs[T[b]].shape);
            if (d < best) {
                best = d;
                bj = T[b];
            }
        }
        best = INFINITY;
        for (int a = 0; a < nF; a++) {
            double d = rules_geom_shape_shape_dist(&sc->figs[P].shape, &sc->figs[F[a]].shape);
            if (rules_group_counts(sc, F, nF, a) && d < best) {
                best = d;
                bi = F[a];
            }
        }
    } else {
        for (int a = 0; a < nF; a++)
            for (int b = 0; b < ncontact; b++) {
                double d =
                    F[a] == T[b] ? INFINITY : rules_geom_shape_shape_dist(&sc->figs[F[a]].shape, &sc->figs[T[b]].shape);
                if (d < best) {
                    best = d;
                    bi = F[a];
                    bj = T[b];
                }
            }
        /* a charge that cannot turn: the pair met soonest straight ahead */
        for (int a = 0; p->charge_straight && a < nF; a++)
            for (int b = 0; b < ncontact; b++) {
                double d = F[a] == T[b] ? -1 : rules__ahead(&sc->figs[F[a]], &sc->figs[T[b]]);
                if (d >= 0 && (ahead < 0 || d < ahead)) {
                    ahead = d;
                    bi = F[a];
                    bj = T[b];
                }
            }
    }
    if (bi < 0 || bj < 0) {
        st = tt_err_set(err, TT_ERR_ARG, "\"%s\" cannot charge itself", from);
        goto done;
    }
    const rules_figure *f = &sc->figs[bi], *g = &sc->figs[bj];
    if ((st = rules__charge_allowed(p, f, g, err)))
        goto done;
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
    rules_point dest;
    if (P >= 0) {
        /* the front-centre straight to the nearest point of the target's base */
        rules_pt o = sc->figs[P].shape.c;
        dest = rules_pt_in(rules__nearest(&g->shape, o));
    } else if (ahead >= 0) { /* straight ahead along its facing until the bases touch */
        double a = f->facing_deg * (M_PI / 180.0);
        dest = (rules_point){rules_in(f->shape.c.x + llround(cos(a) * ahead)),
                             rules_in(f->shape.c.y + llround(sin(a) * ahead))};
    } else {
        /* straight at the target's centre until the bases touch: the
         * shortest such move, found by halving (to 1/10000in) */
        double ux = (double)(g->shape.c.x - f->shape.c.x), uy = (double)(g->shape.c.y - f->shape.c.y);
        double L = hypot(ux, uy), lo = 0, hi = L;
        if (L > 0) {
            ux /= L;
            uy /= L;
            while (hi - lo > 1) {
                double m = (lo + hi) / 2;
                rules_shape s = rules_shape_shifted(&f->shape, llround(ux * m), llround(uy * m));
                if (rules_geom_shape_shape_within(&s, &g->shape, 0))
                    hi = m;
                else
                    lo = m;
            }
        } else {
            hi = 0;
        }
        dest = (rules_point){rules_in(f->shape.c.x + llround(ux * hi)), rules_in(f->shape.c.y + llround(uy * hi))};
    }
    if ((st = rules_move_figure(sc, qo, P >= 0 ? P : bi, dest, roll, p->charge_factor > 0 ? p->charge_factor : 1, fixed,
                          p->charge_src, P >= 0 ? p->charge_from_src : p->charge_straight ? p->charge_straight_src : NULL,
                          out, err)))
        goto done;
    out->kind = RULES_Q_CHARGE;
    out->charger = f->id;
    out->target = g->id;
    if (p->charge_straight && ahead < 0) { /* it would have to turn: the reason is the answer's rule */
        char why[700];
        const char *src = p->charge_straight_src;
        snprintf(why, sizeof why,
                 "%s%s\"%s\" would have to turn to reach \"%s\": a charge cannot turn (house reading: it goes straight "
                 "ahead, and the charger's base swept along its facing must meet the target's)",
                 src ? src : "", src ? ": " : "", f->id, g->id);
        if ((st = rules_result_set_rule(out, why, err)))
            goto done;
        out->ok = 0;
    }
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
