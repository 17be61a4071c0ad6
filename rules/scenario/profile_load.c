/* profile_load.c - rule-set profiles: JSON -> rules_profile (see
 * rules/profiles/NAME.json and docs/rules.md, "Ruleset profiles", for the format).  The sections
 * are read in this order (a later one may name what an earlier one
 * defined) by profile_fire.c, profile_weapons.c, profile_units.c,
 * profile_movement.c and profile_turns.c. */
#include "rules_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_parse.h"
#include "rules_json.h"

static const char *const rules__required_kinds[] = {"building", "wall",  "hedge", "woods",
                                                    "hill",     "river", "rough", "breastworks"};

/* "los": what blocks sight and fire, and where lines of fire start. */
static tt_status rules__los_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    tt_status st;
    char at[256];
    const json_t *los = json_object_get(j, "los");
    if (los) {
        snprintf(at, sizeof at, "%s: los", where);
        if (!json_is_object(los)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", at);
            return st;
        }
        const char *s = NULL;
        double skmod = 0;
        if ((st = rules_json_bool(los, "figures_block", at, &p->figures_block, err)) ||
            (st = rules_json_bool(los, "own_skirmishers_block", at, &p->own_skirmishers_block, err)) ||
            (st = rules_json_bool(los, "own_unit_blocks_fire", at, &p->own_unit_blocks_fire, err)) ||
            (st = rules_json_bool(los, "friends_block_sight", at, &p->friends_block_sight, err)) ||
            (st = rules_json_bool(los, "over_lower_figures", at, &p->over_lower_figures, err)) ||
            (st = rules_json_num(los, "sight_arc_deg", at, 0, 360, &p->sight_arc_deg, err)) ||
            (st = rules_json_num(los, "through_own_skirmishers_modifier", at, -20, 20, &skmod, err)) ||
            (st = rules_json_num(los, "artillery_on_hill_fires_over_in", at, 0, RULES_MAX_IN, &p->hill_overfire_in,
                                 err)) ||
            (st = rules_json_str(los, "from", at, &s, err)))
            return st;
        if (s && strcmp(s, "centre") && strcmp(s, "front-centre")) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"from\" must be \"centre\" or \"front-centre\"", at);
            return st;
        }
        p->fire_from_front = s && !strcmp(s, "front-centre");
        p->through_skirmishers_mod = (int)skmod;
    }
    return TT_OK;
}

/* "terrain": each terrain kind's effects; every required kind present. */
static tt_status rules__kinds_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    tt_status st;
    char at[256];
    const json_t *tk = json_object_get(j, "terrain");
    if (!json_is_object(tk)) {
        st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"terrain\" must map each terrain kind to its effects", where);
        return st;
    }
    p->kinds = calloc(json_object_size(tk) + 1, sizeof *p->kinds);
    if (!p->kinds) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        return st;
    }
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)tk, key, val)
    {
        rules_terrain_kind *k = &p->kinds[p->nkinds];
        if (!(k->name = strdup(key))) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            return st;
        }
        p->nkinds++;
        snprintf(at, sizeof at, "%s: terrain \"%s\"", where, key);
        if ((st = rules_terrain_props_parse(val, at, &k->props, err)))
            return st;
    }
    for (size_t i = 0; i < sizeof rules__required_kinds / sizeof *rules__required_kinds; i++)
        if (!rules_profile_kind(p, rules__required_kinds[i])) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: terrain kind \"%s\" is missing (every profile describes "
                                                "building, wall, hedge, woods, hill, river, rough, breastworks)",
                            where, rules__required_kinds[i]);
            return st;
        }
    return TT_OK;
}

tt_status rules_profile_from_json(const json_t *j, const char *where, rules_profile **out, tt_err *err)
{
    rules_profile *p = NULL;
    const char *s = NULL;
    tt_status st;
    char at[256];
    *out = NULL;
    if (!json_is_object(j))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: a ruleset profile must be a JSON object", where);
    p = calloc(1, sizeof *p);
    if (!p)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    p->friends_block_sight = 1;
    if ((st = rules_json_str(j, "ruleset", where, &s, err)))
        goto fail;
    if (!s) {
        st = tt_err_set(err, TT_ERR_FORMAT, "%s: missing \"ruleset\" (the rule system's name)", where);
        goto fail;
    }
    if (!(p->name = strdup(s))) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    s = NULL;
    if ((st = rules_json_str(j, "measure", where, &s, err)))
        goto fail;
    if (s && strcmp(s, "base-edge") && strcmp(s, "centre-to-centre")) {
        st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"measure\" must be \"base-edge\" or \"centre-to-centre\"", where);
        goto fail;
    }
    p->centre_measure = s && !strcmp(s, "centre-to-centre");
    p->cover_within_in = 1.0;
    p->to_hit_max = 6;
    snprintf(p->die, sizeof p->die, "d6");
    p->cover_mod[RULES_COVER_SOFT] = 1;
    p->cover_mod[RULES_COVER_HARD] = 2;
    p->base_round = 1;
    p->base_w_in = p->base_d_in = 1.0;
    p->difficult_factor = 0.5;
    p->very_difficult_factor = -1;
    if ((st = rules_json_num(j, "cover_within_in", where, 0, RULES_MAX_IN, &p->cover_within_in, err)) ||
        (st = rules_json_num(j, "cover_near_firer_in", where, 0, RULES_MAX_IN, &p->cover_near_firer_in, err)) ||
        (st = rules_json_num(j, "command_radius_in", where, 0, RULES_MAX_IN, &p->command_in, err)))
        goto fail;
    const json_t *uf = json_object_get(j, "unit_fire");
    if (uf) {
        const char *from = NULL;
        snprintf(at, sizeof at, "%s: unit_fire", where);
        if (!json_is_object(uf)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"from\": \"front-centre\", \"centre_seen\": true}", at);
            goto fail;
        }
        if ((st = rules_json_str(uf, "from", at, &from, err)) ||
            (st = rules_json_bool(uf, "centre_seen", at, &p->centre_seen, err)))
            goto fail;
        if (from && strcmp(from, "front-centre") && strcmp(from, "figures")) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"from\" must be \"front-centre\" (the unit's) or \"figures\" "
                                                "(each firing figure's own)", at);
            goto fail;
        }
        p->unit_from_front = from && !strcmp(from, "front-centre");
    }
    /* the citations of the answers that have no weapon or allowance */
    snprintf(at, sizeof at, "%s: los", where);
    if ((st = rules_json_cite(json_object_get(j, "los"), at, &p->los_src, err)))
        goto fail;
    snprintf(at, sizeof at, "%s: command_radius_in", where);
    if ((st = rules_json_cite(json_object_get(j, "command_radius_in"), at, &p->command_src, err)))
        goto fail;
    if ((st = rules__command_parse(p, json_object_get(j, "command"), where, err)))
        goto fail;
    snprintf(at, sizeof at, "%s: aspect", where);
    if ((st = rules_json_cite(json_object_get(j, "aspect"), at, &p->aspect_src, err)) ||
        (st = rules__aspect_parse(p, json_object_get(j, "aspect"), at, err)))
        goto fail;
    const json_t *cfa = json_object_get(j, "cover_from_above");
    if (cfa) {
        double acv = 0, beyond = 0;
        snprintf(at, sizeof at, "%s: cover_from_above", where);
        if (!json_is_object(cfa)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"cv\": N, \"beyond_in\": D}", at);
            goto fail;
        }
        if ((st = rules_json_num(cfa, "cv", at, 0, 20, &acv, err)) ||
            (st = rules_json_num(cfa, "beyond_in", at, 0, RULES_MAX_IN, &beyond, err)))
            goto fail;
        p->above_cv = (int)acv;
        p->above_beyond_in = beyond;
    }
    const json_t *b = json_object_get(j, "base");
    if (b) {
        snprintf(at, sizeof at, "%s: base", where);
        if ((st = rules_base_parse(b, at, &p->base_round, &p->base_w_in, &p->base_d_in, err)))
            goto fail;
    }
    /* the sections, in this order: a later one may name what an earlier
     * one defined (colours, weapons, formations, qualities) */
    if ((st = rules__to_hit_parse(p, j, where, err)) ||
        (st = rules__stats_parse(p, json_object_get(j, "stats"), where, err)) ||
        (st = rules__defence_dice_parse(p, j, where, err)) || (st = rules__los_parse(p, j, where, err)) ||
        (st = rules__terrain_effects_parse(p, j, where, err)) || (st = rules__kinds_parse(p, j, where, err)) ||
        (st = rules__weapons_parse(p, j, where, err)) || (st = rules__bonus_parse(p, j, where, err)) ||
        (st = rules__firer_mods_parse(p, j, where, err)) || (st = rules__formations_parse(p, j, where, err)) ||
        (st = rules__after_moving_parse(p, j, where, err)) || (st = rules__charge_parse(p, j, where, err)) ||
        (st = rules__movement_parse(p, j, where, err)) ||
        (st = rules__fbt_parse(p, json_object_get(j, "formation_by_type"), where, err)) ||
        (st = rules__fire_cites(p, j, where, err)) || (st = rules__turns_parse(p, j, where, err)))
        goto fail;
    for (size_t i = 0; i < p->nkinds; i++) {
        snprintf(at, sizeof at, "%s: terrain \"%s\"", where, p->kinds[i].name);
        if ((st = rules_terrain_names_check(p, &p->kinds[i].props, at, err)))
            goto fail;
    }
    *out = p; /* only a whole profile: on an error *out stays NULL */
    return TT_OK;
fail:
    rules_profile_destroy(p);
    return st;
}
