/* profile_movement.c - a profile's movement: terrain effects on a move,
 * and each figure type's allowance (inches or dice, gaits, by quality or
 * weapon, the going it cannot enter). */
#include "rules_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_parse.h"
#include "rules_json.h"

const char *const rules_move_cite_key[RULES_MC_N] = {
    "difficult_factor", "very_difficult_factor", "obstacle_cost_in", "not_forward_factor", "free_turn_deg",
    "least_factor",     "road_factor",           "round_up",         "per_inch",           "by_base"};

/* A movement entry's "inches_by_quality" / "inches_by_weapon": {"NAME":
 * inches, ..., "src": ...} into names / inches (up to 4), its citation
 * into *src. */
static tt_status rules__by_map(const json_t *m, const char *at, const char *what, char *names, size_t namesz,
                               double *in, int *n, char **src, tt_err *err)
{
    const char *key;
    json_t *val;
    tt_status st;
    if (!m)
        return TT_OK;
    if (!json_is_object(m))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must map up to 4 names to inches", at, what);
    if ((st = rules_json_cite(m, at, src, err)))
        return st;
    json_object_foreach((json_t *)m, key, val)
    {
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        const json_t *v = rules_json_value(val);
        if (*n >= 4 || strlen(key) >= namesz || !json_is_number(v) || json_number_value(v) < 0 ||
            json_number_value(v) > RULES_MAX_IN)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must map up to 4 names to inches (0 to %g)", at, what,
                              RULES_MAX_IN);
        snprintf(names + (size_t)*n * namesz, namesz, "%s", key);
        in[(*n)++] = json_number_value(v);
    }
    return TT_OK;
}

/* A movement entry's inches by quality and weapon, and the terrain it
 * cannot enter ("impassable_in": ["difficult", "very-difficult"]). */
static tt_status rules__move_extra(const rules_profile *p, const json_t *val, const char *at, rules_allowance *a,
                                   tt_err *err)
{
    tt_status st;
    if ((st = rules__by_map(json_object_get(val, "inches_by_quality"), at, "inches_by_quality", &a->by_q[0][0],
                            sizeof a->by_q[0], a->by_q_in, &a->nby_q, &a->by_q_src, err)) ||
        (st = rules__by_map(json_object_get(val, "inches_by_weapon"), at, "inches_by_weapon", &a->by_w[0][0],
                            sizeof a->by_w[0], a->by_w_in, &a->nby_w, &a->by_w_src, err)))
        return st;
    for (int k = 0; k < a->nby_q; k++) {
        int known = 0;
        for (int q = 0; q < p->nqualities; q++)
            known |= !strcmp(p->quality[q], a->by_q[k]);
        for (int q = 0; q < p->nfq; q++)
            known |= !strcmp(p->fq_name[q], a->by_q[k]);
        for (int q = 0; q < p->ndq; q++)
            known |= !strcmp(p->dq_name[q], a->by_q[k]);
        if (!known)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"inches_by_quality\" names \"%s\", not a quality of the "
                              "ruleset (its \"stats\", \"fire_quality\" or \"defence_quality\")", at, a->by_q[k]);
    }
    for (int k = 0; k < a->nby_w; k++)
        if (!rules_profile_weapon(p, a->by_w[k]))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"inches_by_weapon\" names \"%s\", not a weapon of the "
                              "ruleset", at, a->by_w[k]);
    const json_t *ii = json_object_get(val, "impassable_in"), *iv = rules_json_value(ii);
    if (!ii)
        return TT_OK;
    if (!json_is_array(iv) || json_array_size(iv) < 1)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"impassable_in\" must list terrain movements (difficult, "
                          "very-difficult, obstacle, uphill)", at);
    for (size_t k = 0; k < json_array_size(iv); k++) {
        const json_t *e = json_array_get(iv, k);
        int m = json_is_string(e) ? rules_move_kind_named(json_string_value(e)) : -1;
        if (m < 0 || m == RULES_MOVE_OPEN || m == RULES_MOVE_ROAD || m == RULES_MOVE_IMPASSABLE)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"impassable_in\" must list terrain movements (difficult, "
                              "very-difficult, obstacle, uphill)", at);
        a->impassable_in |= 1u << m;
    }
    return rules_json_cite(ii, at, &a->impassable_src, err);
}

/* "terrain_effects": how going slows a move, and where each effect is cited. */
tt_status rules__terrain_effects_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    tt_status st;
    char at[256];
    const json_t *te = json_object_get(j, "terrain_effects");
    if (te) {
        snprintf(at, sizeof at, "%s: terrain_effects", where);
        if (!json_is_object(te)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", at);
            return st;
        }
        if ((st = rules_json_num(te, "difficult_factor", at, 0, 1, &p->difficult_factor, err)) ||
            (st = rules_json_num(te, "obstacle_cost_in", at, 0, RULES_MAX_IN, &p->obstacle_cost_in, err)) ||
            (st = rules_json_num(te, "very_difficult_factor", at, 0, 1, &p->very_difficult_factor, err)) ||
            (st = rules_json_num(te, "not_forward_factor", at, 0, 1, &p->not_forward_factor, err)) ||
            (st = rules_json_num(te, "forward_arc_deg", at, 0, 180, &p->forward_arc_deg, err)) ||
            (st = rules_json_num(te, "least_factor", at, 0, 1, &p->least_factor, err)) ||
            (st = rules_json_num(te, "road_factor", at, 1, 100, &p->road_factor, err)) ||
            (st = rules_json_num(te, "free_turn_deg", at, 0, 180, &p->free_turn_deg, err)))
            return st;
        if (p->not_forward_factor > 0 && p->forward_arc_deg <= 0) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"not_forward_factor\" needs \"forward_arc_deg\" (the arc, "
                                                "centred on the facing, that counts as forward)",
                            at);
            return st;
        }
        const json_t *ru = rules_json_value(json_object_get(te, "round_up"));
        if (ru && !json_is_boolean(ru)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"round_up\" must be true or false", at);
            return st;
        }
        p->difficult_round_up = ru && json_is_true(ru);
        if ((st = rules_json_bool(te, "per_inch", at, &p->per_inch, err)) ||
            (st = rules_json_bool(te, "by_base", at, &p->by_base, err)))
            return st;
        for (int k = 0; k < RULES_MC_N; k++)
            if ((st = rules_json_cite(json_object_get(te, rules_move_cite_key[k]), at, &p->move_cite[k], err)))
                return st;
    }
    return TT_OK;
}

/* "movement": each figure type's allowance. */
tt_status rules__movement_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    tt_status st;
    const char *key;
    json_t *val;
    const json_t *mv = json_object_get(j, "movement");
    if (mv) {
        if (!json_is_object(mv)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"movement\" must map figure types to inches or dice", where);
            return st;
        }
        p->moves = calloc(json_object_size(mv) + 1, sizeof *p->moves);
        if (!p->moves) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            return st;
        }
        json_object_foreach((json_t *)mv, key, val)
        {
            rules_allowance *a = &p->moves[p->nmoves];
            if (!(a->type = strdup(key))) {
                st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
                return st;
            }
            p->nmoves++;
            a->difficult_factor = -1;
            const json_t *mvv = val;
            if (json_is_object(val)) { /* {"inches": N} or {"dice": "2d6"}, with its citation */
                char mat[300];
                snprintf(mat, sizeof mat, "%s: movement \"%s\"", where, key);
                if ((st = rules_json_cite(val, mat, &a->src, err)))
                    return st;
                if ((st = rules_json_bool(val, "any_direction", mat, &a->any_direction, err)) ||
                    (st = rules_json_num(val, "difficult_factor", mat, 0, 1, &a->difficult_factor, err)) ||
                    (st = rules_json_num(val, "difficult_cost_in", mat, 0, RULES_MAX_IN, &a->difficult_cost_in, err)) ||
                    (st = rules_json_cite(json_object_get(val, "difficult_cost_in"), mat, &a->difficult_src, err)) ||
                    (!a->difficult_src &&
                     (st = rules_json_cite(json_object_get(val, "difficult_factor"), mat, &a->difficult_src, err))) ||
                    (st = rules__move_extra(p, val, mat, a, err)))
                    return st;
                const json_t *in = json_object_get(val, "inches"), *dc = json_object_get(val, "dice");
                mvv = in ? in : dc ? dc : val;
                /* {"gaits": {"walk": {"inches": 7, "turn_in": 0}, "canter": {"inches": 12, "min_in": 7, ...}}} */
                const json_t *gs = json_object_get(val, "gaits");
                if (gs && (!json_is_object(gs) || json_object_size(gs) > 5)) {
                    st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"gaits\" must map up to 4 gaits to {\"inches\": N, "
                                    "\"min_in\": N, \"turn_in\": N}", mat);
                    return st;
                }
                const char *gk;
                json_t *gv;
                json_object_foreach((json_t *)gs, gk, gv)
                {
                    if (!strcmp(gk, "src") || !strcmp(gk, "house") || !strcmp(gk, "note"))
                        continue;
                    char gat[400];
                    int g = a->ngaits;
                    snprintf(gat, sizeof gat, "%s: gait \"%s\"", mat, gk);
                    if (g == 4 || !json_is_object(gv) || strlen(gk) >= sizeof a->gait[0]) {
                        st = tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"inches\": N, \"min_in\": N, \"turn_in\": N} "
                                        "(up to 4 gaits, names under 12 letters)", gat);
                        return st;
                    }
                    a->gait_in[g] = -1;
                    if ((st = rules_json_num(gv, "inches", gat, 0, RULES_MAX_IN, &a->gait_in[g], err)) ||
                        (st = rules_json_num(gv, "min_in", gat, 0, RULES_MAX_IN, &a->gait_min_in[g], err)) ||
                        (st = rules_json_num(gv, "turn_in", gat, 0, RULES_MAX_IN, &a->gait_turn_in[g], err)))
                        return st;
                    if (a->gait_in[g] < 0 || a->gait_min_in[g] > a->gait_in[g]) {
                        st = tt_err_set(err, TT_ERR_FORMAT, "%s: give its \"inches\", at least its \"min_in\"", gat);
                        return st;
                    }
                    snprintf(a->gait[g], sizeof a->gait[g], "%s", gk);
                    a->ngaits++;
                }
            }
            if (json_is_number(mvv) && json_number_value(mvv) >= 0 && json_number_value(mvv) <= RULES_MAX_IN) {
                a->inches = json_number_value(mvv);
            } else if (json_is_string(mvv)) {
                a->inches = -1;
                if (!(a->dice = strdup(json_string_value(mvv)))) {
                    st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
                    return st;
                }
            } else {
                st = tt_err_set(err, TT_ERR_FORMAT,
                                "%s: movement \"%s\" must be inches (a number), dice (a string like \"1d6+3\") or "
                                "{\"inches\" or \"dice\": ..., \"src\": ...}",
                                where, key);
                return st;
            }
        }
    }
    return TT_OK;
}
