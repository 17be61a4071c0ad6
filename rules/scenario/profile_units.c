/* profile_units.c - what a profile says of figures and units: bases,
 * formations, charges, command, aspect, and the formation a type takes. */
#include "rules_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_parse.h"
#include "rules_json.h"

static tt_status rules__base_parse(const json_t *o, const char *where, int *round, double *w, double *d,
                                   tt_err *err)
{
    const json_t *r = rules_json_value(json_object_get(o, "round_in")),
                 *q = rules_json_value(json_object_get(o, "rect_in"));
    if (r && !q) {
        if (!json_is_number(r) || json_number_value(r) <= 0 || json_number_value(r) > 100)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"round_in\" must be the base diameter in inches (> 0)",
                              where);
        *round = 1;
        *w = *d = json_number_value(r);
        return TT_OK;
    }
    if (q && !r) {
        if (!json_is_array(q) || json_array_size(q) != 2 || !json_is_number(json_array_get(q, 0)) ||
            !json_is_number(json_array_get(q, 1)) || json_number_value(json_array_get(q, 0)) <= 0 ||
            json_number_value(json_array_get(q, 1)) <= 0 || json_number_value(json_array_get(q, 0)) > 100 ||
            json_number_value(json_array_get(q, 1)) > 100)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"rect_in\" must be [width, depth] in inches (> 0)", where);
        *round = 0;
        *w = json_number_value(json_array_get(q, 0));
        *d = json_number_value(json_array_get(q, 1));
        return TT_OK;
    }
    return tt_err_set(err, TT_ERR_FORMAT, "%s: give exactly one of \"round_in\" or \"rect_in\"", where);
}

tt_status rules_base_parse(const json_t *o, const char *where, int *round, double *w, double *d, tt_err *err)
{
    if (!json_is_object(o))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"base\" must be an object", where);
    return rules__base_parse(o, where, round, w, d, err);
}

static int rules__option_index(const rules_profile *p, const char *name)
{
    for (int k = 0; k < p->nopts; k++)
        if (!strcmp(p->opt_name[k], name))
            return k;
    return -1;
}

/* A formation's bonus dice for its attackers: "attacker_bonus_dice": N (a
 * mob) and "front_bonus_dice": {"value": N, "option": NAME} (enfilade). */
static tt_status rules__form_bonus(rules_profile *p, const json_t *val, const char *at, int f, tt_err *err)
{
    double ab = 0, fb = 0;
    const char *opt = NULL;
    tt_status st;
    const json_t *fr = json_object_get(val, "front_bonus_dice");
    if ((st = rules_json_num(val, "attacker_bonus_dice", at, 0, 100, &ab, err)) ||
        (st = rules_json_num(val, "front_bonus_dice", at, 0, 100, &fb, err)) ||
        (json_is_object(fr) && (st = rules_json_str(fr, "option", at, &opt, err))))
        return st;
    p->form_attacker_bonus[f] = (int)ab;
    p->form_front_bonus[f] = (int)fb;
    p->form_front_opt[f] = opt ? rules__option_index(p, opt) : -1;
    if (opt && p->form_front_opt[f] < 0)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: front_bonus_dice: option \"%s\" is not one of the profile's "
                                              "\"options\"",
                          at, opt);
    return TT_OK;
}

/* A list of the profile's formations (v: a JSON array) -> a bit mask
 * (bit f: form_name[f]). */
/* The index of formation `name` in the profile, -1 when it has none. */
static int rules__form_index(const rules_profile *p, const char *name)
{
    for (int k = 0; k < p->nforms; k++)
        if (!strcmp(p->form_name[k], name))
            return k;
    return -1;
}

static tt_status rules__form_mask(const rules_profile *p, const json_t *v, const char *at, const char *what,
                                  unsigned *mask, tt_err *err)
{
    *mask = 0;
    if (!json_is_array(v) || json_array_size(v) < 1)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must list formations of the profile's \"formations\"", at,
                          what);
    for (size_t k = 0; k < json_array_size(v); k++) {
        const char *name = json_string_value(json_array_get(v, k));
        int f = name ? rules__form_index(p, name) : -1;
        if (f < 0)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" item %zu is not a formation of the profile's "
                                                  "\"formations\"",
                              at, what, k + 1);
        *mask |= 1u << f;
    }
    return TT_OK;
}

/* A charge's formations: "formations": [...] (any charger),
 * "formations_by_type": {"TYPE": [...]}, "not_at": {"TYPE": [...]}. */
static tt_status rules__charge_forms(rules_profile *p, const json_t *ch, const char *at, tt_err *err)
{
    tt_status st;
    const json_t *fl = json_object_get(ch, "formations");
    if (fl && (st = rules__form_mask(p, rules_json_value(fl), at, "formations", &p->charge_forms, err)))
        return st;
    for (int m = 0; m < 2; m++) {
        const char *what = m ? "not_at" : "formations_by_type", *key;
        json_t *val;
        json_object_foreach(json_object_get(ch, what), key, val)
        {
            if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
                continue;
            int *n = m ? &p->ncharge_nt : &p->ncharge_ft;
            if (*n >= 4 || strlen(key) >= 24)
                return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" maps up to 4 figure types to formations", at, what);
            if ((st = rules__form_mask(p, rules_json_value(val), at, what,
                                       m ? &p->charge_nt_forms[*n] : &p->charge_ft_forms[*n], err)))
                return st;
            snprintf(m ? p->charge_nt_type[*n] : p->charge_ft_type[*n], 24, "%s", key);
            (*n)++;
        }
    }
    return TT_OK;
}

/* Formations: {"column": {"target_modifier": 1}, "line": {"rof_bonus": 1,
 * "rof_min_wide": 4}}. */
tt_status rules__formations_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    tt_status st;
    char at[256];
    const char *key;
    json_t *val;
    const json_t *fm = json_object_get(j, "formations");
    json_object_foreach((json_t *)fm, key, val)
    {
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        double tm = 0, rof = 0, wide = 0;
        snprintf(at, sizeof at, "%s: formation \"%s\"", where, key);
        if (p->nforms >= 6 || strlen(key) >= sizeof p->form_name[0] || !json_is_object(val)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: up to 6 formations, each an object", at);
            return st;
        }
        if ((st = rules_json_num(val, "target_modifier", at, -20, 20, &tm, err)) ||
            (st = rules_json_num(val, "rof_bonus", at, 0, 20, &rof, err)) ||
            (st = rules_json_num(val, "rof_min_wide", at, 0, 100, &wide, err)))
            return st;
        int f = p->nforms;
        double fdd = 0;
        const char *acol = NULL;
        if ((st = rules_json_num(val, "difficult_cost_in", at, 0, RULES_MAX_IN, &p->form_difficult_cost[f], err)) ||
            (st = rules_json_cite(json_object_get(val, "difficult_cost_in"), at, &p->form_difficult_src[f], err)) ||
            (st = rules_json_cite(json_object_get(val, "inches"), at, &p->form_inches_src[f], err)) ||
            (st = rules_json_num(val, "defence_dice", at, 0, 100, &fdd, err)) ||
            (st = rules_json_str(val, "attacker_colour", at, &acol, err)) ||
            (st = rules_json_bool(val, "cannot_fire", at, &p->form_no_fire[f], err)) ||
            (st = rules_json_bool(val, "not_target", at, &p->form_not_target[f], err)) ||
            (st = rules_json_cite(json_object_get(val, "not_target"), at, &p->form_not_target_src[f], err)) ||
            (st = rules_json_bool(val, "no_flank", at, &p->form_no_flank[f], err)) ||
            (st = rules_json_bool(val, "road", at, &p->form_road[f], err)) ||
            (st = rules__form_bonus(p, val, at, f, err)) ||
            (st = rules__colour_map(p, json_object_get(val, "melee_attacker_colour"), at, "melee_attacker_colour", 2,
                                    p->form_mcol_type[f], p->form_mcol[f], &p->form_nmcol[f], err)))
            return st;
        p->form_defence_dice[f] = (int)fdd;
        p->form_attacker_colour[f] = -1;
        for (int c = 0; acol && c < p->ncolours; c++)
            if (!strcmp(p->colour[c], acol))
                p->form_attacker_colour[f] = c;
        if (acol && p->form_attacker_colour[f] < 0) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"attacker_colour\" \"%s\" is not one of to_hit.by_colour", at,
                            acol);
            return st;
        }
        /* {"light": 8}: by figure type, up to 4 */
        const char *mk[2] = {"rof_min_wide_by_type", "inches"};
        for (int m = 0; m < 2; m++) {
            const char *tk;
            const json_t *tv;
            json_object_foreach(json_object_get(val, mk[m]), tk, tv)
            {
                const json_t *v = rules_json_value(tv);
                int *n = m ? &p->form_nmove[f] : &p->form_nwide[f];
                if (!strcmp(tk, "src") || !strcmp(tk, "house") || !strcmp(tk, "note"))
                    continue;
                if (*n >= RULES_MAX_FORM_TYPES || strlen(tk) >= sizeof p->form_move_type[0][0] || !json_is_number(v) ||
                    json_number_value(v) < 0 || json_number_value(v) > (m ? RULES_MAX_IN : 100)) {
                    st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" maps up to %d figure types to %s", at, mk[m],
                                    RULES_MAX_FORM_TYPES, m ? "inches" : "a number of stands");
                    return st;
                }
                if (m) {
                    snprintf(p->form_move_type[f][*n], sizeof p->form_move_type[0][0], "%s", tk);
                    p->form_move_in[f][(*n)++] = json_number_value(v);
                } else {
                    snprintf(p->form_wide_type[f][*n], sizeof p->form_wide_type[0][0], "%s", tk);
                    p->form_wide_n[f][(*n)++] = (int)json_number_value(v);
                }
            }
        }
        snprintf(p->form_name[p->nforms], sizeof p->form_name[0], "%s", key);
        p->form_target_mod[p->nforms] = (int)tm;
        p->form_rof[p->nforms] = (int)rof;
        p->form_rof_wide[p->nforms++] = (int)wide;
    }
    return TT_OK;
}

/* Charges: {"factor": 2} or {"inches": {"foot": 4, ...}}, with src. */
tt_status rules__charge_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    tt_status st;
    char at[256];
    const char *key;
    json_t *val;
    const json_t *ch = json_object_get(j, "charge");
    if (ch) {
        snprintf(at, sizeof at, "%s: charge", where);
        const json_t *ci = json_object_get(ch, "inches");
        if (!json_is_object(ch) || (ci && !json_is_object(ci))) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"factor\": F} or {\"inches\": {\"TYPE\": N, ...}}", at);
            return st;
        }
        if ((st = rules_json_num(ch, "factor", at, 0, 100, &p->charge_factor, err)) ||
            (st = rules_json_cite(ch, at, &p->charge_src, err)) || (st = rules__charge_forms(p, ch, at, err)) ||
            (st = rules__type_list(rules_json_value(json_object_get(ch, "not_types")), at, "not_types", 4,
                                   p->charge_not, &p->ncharge_not, err)) ||
            (st = rules_json_cite(json_object_get(ch, "not_types"), at, &p->charge_not_src, err)) ||
            (st = rules_json_bool(ch, "straight_ahead", at, &p->charge_straight, err)) ||
            (st = rules_json_cite(json_object_get(ch, "straight_ahead"), at, &p->charge_straight_src, err)))
            return st;
        const char *cfrom = NULL;
        if ((st = rules_json_str(ch, "from", at, &cfrom, err)))
            return st;
        if (cfrom && strcmp(cfrom, "front-centre") && strcmp(cfrom, "figures")) {
            st = tt_err_set(err, TT_ERR_FORMAT,
                            "%s: \"from\" must be \"front-centre\" (a unit charges from its front-centre) or "
                            "\"figures\" (from its figure nearest the target)",
                            at);
            return st;
        }
        p->charge_from_front = cfrom && !strcmp(cfrom, "front-centre");
        if ((st = rules_json_cite(json_object_get(ch, "from"), at, &p->charge_from_src, err)))
            return st;
        json_object_foreach((json_t *)ci, key, val)
        {
            const json_t *v = rules_json_value(val);
            if (p->ncharge >= 8 || strlen(key) >= sizeof p->charge_type[0] || !json_is_number(v) ||
                json_number_value(v) < 0 || json_number_value(v) > RULES_MAX_IN) {
                st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"inches\" maps up to 8 figure types to inches", at);
                return st;
            }
            snprintf(p->charge_type[p->ncharge], sizeof p->charge_type[0], "%s", key);
            p->charge_in[p->ncharge++] = json_number_value(v);
        }
    }
    return TT_OK;
}

/* "command": {"action": "rally", "per_figure": true,
 *              "types": {"general": "side", "officer": "unit", ...}} */
tt_status rules__command_parse(rules_profile *p, const json_t *c, const char *where, tt_err *err)
{
    char at[300];
    const char *action = NULL, *key;
    const json_t *val;
    tt_status st;
    if (!c)
        return TT_OK;
    snprintf(at, sizeof at, "%s: command", where);
    if (!json_is_object(c))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"types\": {\"general\": \"side\", \"officer\": \"unit\"}, "
                                              "\"per_figure\": true, \"action\": \"rally\"}", at);
    if ((st = rules_json_str(c, "action", at, &action, err)) ||
        (st = rules_json_bool(c, "per_figure", at, &p->cmd_per_figure, err)))
        return st;
    if (action && (!*action || strlen(action) >= sizeof p->cmd_action))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"action\" must be a short verb such as \"rally\" (up to %zu letters)",
                          at, sizeof p->cmd_action - 1);
    snprintf(p->cmd_action, sizeof p->cmd_action, "%s", action ? action : "command");
    const json_t *types = json_object_get(c, "types");
    if (types && !json_is_object(types))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"types\" must map figure types to \"side\" (any unit of its side) "
                                              "or \"unit\" (its own unit)", at);
    json_object_foreach((json_t *)types, key, val)
    {
        const json_t *v = rules_json_value(val);
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        const char *s = json_string_value(v);
        if (p->ncmd_types >= RULES_MAX_CMD_TYPES || strlen(key) >= sizeof p->cmd_type[0] || !s ||
            (strcmp(s, "side") && strcmp(s, "unit")))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"types\" maps up to %d figure types to \"side\" (any unit of "
                                                  "its side) or \"unit\" (its own unit); \"%s\" is not so",
                              at, RULES_MAX_CMD_TYPES, key);
        snprintf(p->cmd_type[p->ncmd_types], sizeof p->cmd_type[0], "%s", key);
        p->cmd_side[p->ncmd_types++] = !strcmp(s, "side");
    }
    if (p->command_in <= 0)
        return tt_err_set(err, TT_ERR_FORMAT, "%s needs \"command_radius_in\" (the radius the command reaches)", at);
    return TT_OK;
}

/* "aspect": {"mode": "arc", "front_arc_deg": 180, "rear_arc_deg": 180}
 * (no mode: by the side of the base the line crosses). */
tt_status rules__aspect_parse(rules_profile *p, const json_t *a, const char *at, tt_err *err)
{
    const char *mode = NULL;
    tt_status st;
    if (!json_is_object(a))
        return TT_OK;
    if ((st = rules_json_str(a, "mode", at, &mode, err)))
        return st;
    if (mode && strcmp(mode, "arc") && strcmp(mode, "base"))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"mode\" must be \"arc\" (by the angle from the target's "
                                              "facing) or \"base\" (by the side of its base the line crosses)",
                          at);
    p->aspect_arc = mode && !strcmp(mode, "arc");
    p->aspect_front_deg = 180;
    p->aspect_rear_deg = 0;
    if ((st = rules_json_num(a, "front_arc_deg", at, 0, 360, &p->aspect_front_deg, err)) ||
        (st = rules_json_num(a, "rear_arc_deg", at, 0, 360, &p->aspect_rear_deg, err)))
        return st;
    if (!p->aspect_arc && (json_object_get(a, "front_arc_deg") || json_object_get(a, "rear_arc_deg")))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"front_arc_deg\" and \"rear_arc_deg\" need \"mode\": \"arc\"",
                          at);
    if (p->aspect_front_deg + p->aspect_rear_deg > 360)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"front_arc_deg\" and \"rear_arc_deg\" overlap (together more "
                                              "than 360)",
                          at);
    return TT_OK;
}

/* "formation_by_type": {"skirmisher": {"default": "loose", "only": ["loose",
 * "mob"]}, ...}: a type's formation where the scenario gives none, and the
 * only formations it may take (the formations must be the profile's). */
tt_status rules__fbt_parse(rules_profile *p, const json_t *o, const char *where, tt_err *err)
{
    const char *key;
    json_t *val;
    if (o && !json_is_object(o))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"formation_by_type\" must map figure types to {\"default\": "
                                              "FORMATION, \"only\": [FORMATIONS]}",
                          where);
    json_object_foreach((json_t *)o, key, val)
    {
        char at[300];
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        snprintf(at, sizeof at, "%s: formation_by_type \"%s\"", where, key);
        if (p->nfbt >= 6 || strlen(key) >= sizeof p->fbt_type[0] || !json_is_object(val))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: up to 6 figure types, each {\"default\": FORMATION, \"only\": "
                                                  "[FORMATIONS]}",
                              at);
        int n = p->nfbt;
        const char *def = NULL;
        tt_status st;
        if ((st = rules_json_str(val, "default", at, &def, err)))
            return st;
        p->fbt_default[n] = -1;
        p->fbt_only[n] = 0;
        if (def && (p->fbt_default[n] = rules__form_index(p, def)) < 0)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"default\" \"%s\" is not one of the profile's \"formations\"",
                              at, def);
        const json_t *only = rules_json_value(json_object_get(val, "only"));
        if (only && (st = rules__form_mask(p, only, at, "only", &p->fbt_only[n], err)))
            return st;
        if (p->fbt_default[n] >= 0 && p->fbt_only[n] && !(p->fbt_only[n] >> p->fbt_default[n] & 1u))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: the \"default\" must be one of \"only\"", at);
        snprintf(p->fbt_type[p->nfbt++], sizeof p->fbt_type[0], "%s", key);
    }
    return TT_OK;
}
