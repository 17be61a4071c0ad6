/* profile_fire.c - a profile's tables for fire: the score needed (to_hit,
 * by range, colour or the target's stat line), cover, defence and bonus
 * dice, melee, the firer's quality and type, firing after moving, and the
 * citations of a fire answer. */
#include "rules_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_parse.h"
#include "rules_json.h"

/* "to_hit": the die, the most a roll may need, the sign of modifiers,
 * the score by colour, cover modifiers. */
tt_status rules__to_hit_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    tt_status st;
    char at[256];
    const json_t *th = json_object_get(j, "to_hit");
    if (th) {
        snprintf(at, sizeof at, "%s: to_hit", where);
        double mx = -1, soft = 1, hard = 2, hits = 0, misses = 0;
        const char *die = NULL;
        if (!json_is_object(th)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", at);
            return st;
        }
        if ((st = rules_json_num(th, "max", at, 1, 100, &mx, err)) ||
            (st = rules_json_str(th, "die", at, &die, err)) ||
            (st = rules_json_num(th, "always_hits", at, 0, 100, &hits, err)) ||
            (st = rules_json_num(th, "always_misses", at, 0, 100, &misses, err)))
            return st;
        const char *add = NULL; /* the sign of the modifiers: added to the roll, or to the score needed */
        if ((st = rules_json_str(th, "modifiers_add_to", at, &add, err)))
            return st;
        if (add && strcmp(add, "roll") && strcmp(add, "score")) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"modifiers_add_to\" must be \"roll\" (+1 makes a hit easier) or "
                                                "\"score\" (+1 makes it harder), not \"%s\"", at, add);
            return st;
        }
        p->mods_add_to_score = add && !strcmp(add, "score");
        double chm = 0;
        if ((st = rules_json_num(th, "target_charging_modifier", at, -20, 20, &chm, err)))
            return st;
        p->has_charging = json_object_get(th, "target_charging_modifier") != NULL;
        p->charging_mod = (int)chm;
        if (die && strcmp(die, "d6") && strcmp(die, "d12")) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"die\" must be \"d6\" or \"d12\"", at);
            return st;
        }
        if (die)
            snprintf(p->die, sizeof p->die, "%s", die);
        if (mx < 0)
            mx = !strcmp(p->die, "d12") ? 12 : 6;
        const json_t *bc = json_object_get(th, "by_colour");
        if (bc) {
            const char *ck;
            json_t *cv;
            if (!json_is_object(bc) || json_object_size(bc) < 1 || json_object_size(bc) > 4) {
                st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"by_colour\" must map 1 to 4 colours to the score needed",
                                at);
                return st;
            }
            json_object_foreach((json_t *)bc, ck, cv)
            {
                double sc = -1;
                if (!strcmp(ck, "src") || !strcmp(ck, "house") || !strcmp(ck, "note"))
                    continue;
                const json_t *one = json_pack("{s:O}", "v", cv);
                st = rules_json_num(one, "v", at, 1, 100, &sc, err);
                json_decref((json_t *)one);
                if (st)
                    return st;
                if (strlen(ck) >= sizeof p->colour[0] || p->ncolours >= 4) {
                    st = tt_err_set(err, TT_ERR_FORMAT, "%s: colour \"%s\" is too long", at, ck);
                    return st;
                }
                snprintf(p->colour[p->ncolours], sizeof p->colour[0], "%s", ck);
                p->colour_to_hit[p->ncolours++] = (int)sc;
            }
        }
        p->always_hits = (int)hits;
        p->always_misses = (int)misses;
        const json_t *cv = json_object_get(th, "cover");
        if (cv) {
            snprintf(at, sizeof at, "%s: to_hit: cover", where);
            if (!json_is_object(cv)) {
                st = tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", at);
                return st;
            }
            if ((st = rules_json_num(cv, "soft", at, -20, 20, &soft, err)) ||
                (st = rules_json_num(cv, "hard", at, -20, 20, &hard, err)))
                return st;
        }
        p->to_hit_max = (int)mx;
        p->cover_mod[RULES_COVER_SOFT] = (int)soft;
        p->cover_mod[RULES_COVER_HARD] = (int)hard;
    }
    return TT_OK;
}

/* One stat line {"ds": N} at `at` into *ds (a figure's speed is its
 * movement entry's, "inches_by_quality"). */
static tt_status rules__stat_line(const json_t *o, const char *at, int *ds, tt_err *err)
{
    double d = -1;
    tt_status st = TT_OK;
    if (json_is_object(o) && (st = rules_json_num(o, "ds", at, 0, 20, &d, err)))
        return st;
    if (d < 0)
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"ds\": N}", at);
    *ds = (int)d;
    return TT_OK;
}

/* The stat lines: {"type": {"quality": {"ds": N}, ...}, ...}, or
 * {"type": {"ds": N}} for every quality (artillery); every type must give
 * every quality some other type names. */
tt_status rules__stats_parse(rules_profile *p, const json_t *stats, const char *where, tt_err *err)
{
    const char *tk, *qk;
    json_t *tv, *qv;
    char at[256];
    int all[4] = {0}, given[4][4] = {{0}};
    tt_status st;
    if (!stats)
        return TT_OK;
    snprintf(at, sizeof at, "%s: stats", where);
    if (!json_is_object(stats))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must map figure types to qualities and their DS", at);
    p->by_target = 1;
    json_object_foreach((json_t *)stats, tk, tv)
    {
        if (!strcmp(tk, "src") || !strcmp(tk, "house") || !strcmp(tk, "note"))
            continue;
        if (!json_is_object(tv) || p->ntypes >= 4 || strlen(tk) >= sizeof p->stat_type[0])
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must map qualities to {\"ds\": N} (at most 4 types)", at,
                              tk);
        int t = p->ntypes++;
        char qat[300];
        snprintf(p->stat_type[t], sizeof p->stat_type[0], "%s", tk);
        if (json_object_get(tv, "ds")) { /* one line for every quality */
            snprintf(qat, sizeof qat, "%s: %s", at, tk);
            if ((st = rules__stat_line(tv, qat, &p->ds[t][0], err)))
                return st;
            all[t] = 1;
            continue;
        }
        json_object_foreach(tv, qk, qv)
        {
            if (!strcmp(qk, "src") || !strcmp(qk, "house") || !strcmp(qk, "note"))
                continue;
            int q = 0;
            while (q < p->nqualities && strcmp(p->quality[q], qk))
                q++;
            if (q == p->nqualities) {
                if (q >= 4 || strlen(qk) >= sizeof p->quality[0])
                    return tt_err_set(err, TT_ERR_FORMAT, "%s: at most 4 qualities", at);
                snprintf(p->quality[q], sizeof p->quality[0], "%s", qk);
                p->nqualities++;
            }
            snprintf(qat, sizeof qat, "%s: %s %s", at, tk, qk);
            if ((st = rules__stat_line(qv, qat, &p->ds[t][q], err)))
                return st;
            given[t][q] = 1;
        }
    }
    for (int t = 0; t < p->ntypes; t++)
        for (int q = 0; q < p->nqualities; q++) {
            if (all[t])
                p->ds[t][q] = p->ds[t][0];
            else if (!given[t][q])
                return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" gives no line for quality \"%s\": add it", at,
                                  p->stat_type[t], p->quality[q]);
        }
    return TT_OK;
}

/* "defence_dice": the dice cover gives the defender, and by its type. */
tt_status rules__defence_dice_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    tt_status st;
    char at[256];
    const json_t *dd = json_object_get(j, "defence_dice");
    if (dd) {
        double soft = 0, hard = 0;
        snprintf(at, sizeof at, "%s: defence_dice", where);
        if (!json_is_object(dd)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"soft\": N, \"hard\": N}", at);
            return st;
        }
        if ((st = rules_json_num(dd, "soft", at, 0, 100, &soft, err)) ||
            (st = rules_json_num(dd, "hard", at, 0, 100, &hard, err)))
            return st;
        p->defence_dice[RULES_COVER_SOFT] = (int)soft;
        p->defence_dice[RULES_COVER_HARD] = (int)hard;
        p->defence_dice[RULES_COVER_NONE] = -1; /* marks a ruleset with defence dice */
        const char *tk;
        const json_t *tv;
        json_object_foreach(json_object_get(dd, "by_type"), tk, tv)
        {
            const json_t *v = rules_json_value(tv);
            if (!strcmp(tk, "src") || !strcmp(tk, "house") || !strcmp(tk, "note"))
                continue;
            if (p->ndd_type >= 4 || strlen(tk) >= sizeof p->dd_type[0] || !json_is_integer(v) ||
                json_integer_value(v) < 0 || json_integer_value(v) > 100) {
                st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"by_type\" maps up to 4 figure types to whole dice", at);
                return st;
            }
            snprintf(p->dd_type[p->ndd_type], sizeof p->dd_type[0], "%s", tk);
            p->dd_type_n[p->ndd_type++] = (int)json_integer_value(v);
        }
    }
    return TT_OK;
}

/* "melee": {"attacker_colour": C, "dice": {"ATT": {"DEF": N}}, "defender_dice": N,
 * "defender_colour_by_type": {"TYPE": C}} */
static tt_status rules__melee_parse(rules_profile *p, const json_t *m, const char *where, tt_err *err)
{
    char at[300];
    tt_status st;
    const char *ac = NULL, *key, *k2;
    json_t *val, *v2;
    double dd = 1;
    if (!m)
        return TT_OK;
    snprintf(at, sizeof at, "%s: melee", where);
    if (!json_is_object(m) || !json_is_object(json_object_get(m, "dice")))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"dice\": {\"ATTACKER TYPE\": {\"DEFENDER TYPE\": N}}, ...}",
                          at);
    if ((st = rules_json_str(m, "attacker_colour", at, &ac, err)) ||
        (st = rules_json_num(m, "defender_dice", at, 0, 100, &dd, err)))
        return st;
    p->melee_colour = ac ? rules__colour_index(p, ac) : -1;
    if (ac && p->melee_colour < 0)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"attacker_colour\" \"%s\" is not one of to_hit.by_colour", at, ac);
    p->melee_def_dice = (int)dd;
    json_object_foreach(json_object_get(m, "dice"), key, val)
    {
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        int a = p->nmelee_att;
        if (a >= 4 || strlen(key) >= sizeof p->melee_att[0] || !json_is_object(val))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"dice\" maps up to 4 attacker types to {\"DEFENDER TYPE\": N}",
                              at);
        snprintf(p->melee_att[p->nmelee_att++], sizeof p->melee_att[0], "%s", key);
        json_object_foreach(val, k2, v2)
        {
            const json_t *v = rules_json_value(v2);
            if (!strcmp(k2, "src") || !strcmp(k2, "house") || !strcmp(k2, "note"))
                continue;
            if (p->melee_ndef[a] >= 6 || strlen(k2) >= sizeof p->melee_def[0][0] || !json_is_integer(v) ||
                json_integer_value(v) < 1 || json_integer_value(v) > 100)
                return tt_err_set(err, TT_ERR_FORMAT, "%s: dice of \"%s\" map up to 6 defender types to whole dice",
                                  at, key);
            snprintf(p->melee_def[a][p->melee_ndef[a]], sizeof p->melee_def[0][0], "%s", k2);
            p->melee_dice[a][p->melee_ndef[a]++] = (int)json_integer_value(v);
        }
    }
    if ((st = rules__colour_map(p, json_object_get(m, "defender_colour_by_type"), at, "defender_colour_by_type", 6,
                                p->melee_dcol_type, p->melee_dcol, &p->nmelee_dcol, err)))
        return st;
    p->has_melee = 1;
    return TT_OK;
}

/* "options" (optional rules a scenario switches on), "bonus_dice" (flank,
 * rear, high ground) and "defence_roll" (the defender's own dice). */
tt_status rules__bonus_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    char at[300];
    tt_status st;
    const char *key;
    json_t *val;
    const json_t *opts = json_object_get(j, "options");
    if (opts && !json_is_object(opts))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"options\" must map each optional rule's name to its citation",
                          where);
    json_object_foreach((json_t *)opts, key, val)
    {
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        if (p->nopts >= RULES_MAX_OPTIONS || strlen(key) >= sizeof p->opt_name[0])
            return tt_err_set(err, TT_ERR_FORMAT, "%s: options: at most %d, each name shorter than %zu letters", where,
                              RULES_MAX_OPTIONS, sizeof p->opt_name[0]);
        snprintf(p->opt_name[p->nopts++], sizeof p->opt_name[0], "%s", key);
    }
    const json_t *bd = json_object_get(j, "bonus_dice");
    if (bd) {
        double fl = 0, re = 0, hi = 0;
        snprintf(at, sizeof at, "%s: bonus_dice", where);
        if (!json_is_object(bd))
            return tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"flank\": N, \"rear\": N, \"high_ground\": N}", at);
        if ((st = rules_json_num(bd, "flank", at, 0, 100, &fl, err)) ||
            (st = rules_json_num(bd, "rear", at, 0, 100, &re, err)) ||
            (st = rules_json_num(bd, "high_ground", at, 0, 100, &hi, err)) ||
            (st = rules_json_bool(bd, "not_against_skirmishers", at, &p->bonus_not_skirmishers, err)))
            return st;
        p->bonus_flank = (int)fl;
        p->bonus_rear = (int)re;
        p->bonus_high = (int)hi;
    }
    const json_t *dr = json_object_get(j, "defence_roll");
    if (dr) {
        double dice = 1;
        snprintf(at, sizeof at, "%s: defence_roll", where);
        if (!json_is_object(dr))
            return tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"dice\": N, \"not_types\": [...]}", at);
        if ((st = rules_json_num(dr, "dice", at, 0, 100, &dice, err)))
            return st;
        if ((st = rules__type_list(rules_json_value(json_object_get(dr, "not_types")), at, "not_types", 6,
                                   p->defence_roll_not, &p->ndefence_roll_not, err)))
            return st;
        p->has_defence_roll = 1;
        p->defence_roll_dice = (int)dice;
    }
    /* {"elite": -1, "militia": 1}: colours the defence roll shifts */
    json_object_foreach(json_object_get(j, "defence_quality"), key, val)
    {
        const json_t *v = rules_json_value(val);
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        if (p->ndq >= 4 || strlen(key) >= sizeof p->dq_name[0] || !json_is_integer(v) || json_integer_value(v) < -3 ||
            json_integer_value(v) > 3)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"defence_quality\" maps up to 4 qualities to a shift of -3 to "
                                                  "3 colours (better -1, worse +1)",
                              where);
        snprintf(p->dq_name[p->ndq], sizeof p->dq_name[0], "%s", key);
        p->dq_shift[p->ndq++] = (int)json_integer_value(v);
    }
    /* "aim_at": {"skirmisher": ["officer", "ensign"], ...} */
    json_object_foreach(json_object_get(j, "aim_at"), key, val)
    {
        const json_t *v = rules_json_value(val);
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        if (p->naim >= 4 || strlen(key) >= sizeof p->aim_type[0] || !json_is_array(v))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"aim_at\" maps up to 4 figure types to a list of 1 to 3 types "
                                                  "(the figures an attack on such a unit aims at)",
                              where);
        snprintf(at, sizeof at, "%s: aim_at", where);
        if ((st = rules__type_list(v, at, key, 3, p->aim_at[p->naim], &p->naim_at[p->naim], err)))
            return st;
        snprintf(p->aim_type[p->naim++], sizeof p->aim_type[0], "%s", key);
    }
    if ((st = rules__type_list(rules_json_value(json_object_get(j, "skirmisher_types")), where, "skirmisher_types", 2,
                               p->skirm_types, &p->nskirm_types, err)) ||
        (st = rules__type_list(rules_json_value(json_object_get(j, "cannot_fire_types")), where, "cannot_fire_types", 2,
                               p->no_fire_types, &p->nno_fire_types, err)) ||
        (st = rules__type_list(rules_json_value(json_object_get(j, "not_target_types")), where, "not_target_types", 2,
                               p->no_target_types, &p->nno_target_types, err)) ||
        (st = rules_json_cite(json_object_get(j, "not_target_types"), where, &p->no_target_src, err)) ||
        (st = rules__type_list(rules_json_value(json_object_get(j, "unmodified_fire_types")), where,
                               "unmodified_fire_types", 4, p->plain_fire_types, &p->nplain_fire_types, err)))
        return st;
    return rules__melee_parse(p, json_object_get(j, "melee"), where, err);
}

/* The firer's quality: {"veteran": 1, ...}, and its type: {"horse": 1}
 * (on horseback), as to-hit modifiers. */
tt_status rules__firer_mods_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    tt_status st;
    const char *key;
    json_t *val;
    const json_t *fq = json_object_get(j, "fire_quality");
    json_object_foreach((json_t *)fq, key, val)
    {
        const json_t *v = rules_json_value(val);
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        if (p->nfq >= 4 || strlen(key) >= sizeof p->fq_name[0] || !json_is_integer(v)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"fire_quality\" maps up to 4 qualities to whole modifiers", where);
            return st;
        }
        snprintf(p->fq_name[p->nfq], sizeof p->fq_name[0], "%s", key);
        p->fq_mod[p->nfq++] = (int)json_integer_value(v);
    }
    /* the firer's type: {"horse": 1} (on horseback), in the ruleset's sign */
    json_object_foreach(json_object_get(j, "firer_type_modifier"), key, val)
    {
        const json_t *v = rules_json_value(val);
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        if (p->nft >= 4 || strlen(key) >= sizeof p->ft_name[0] || !json_is_integer(v)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"firer_type_modifier\" maps up to 4 figure types to whole modifiers",
                            where);
            return st;
        }
        snprintf(p->ft_name[p->nft], sizeof p->ft_name[0], "%s", key);
        p->ft_mod[p->nft++] = (int)json_integer_value(v);
    }
    return TT_OK;
}

/* Firing after moving: {"to_hit_modifier": -1, "drops_bonuses": true}. */
tt_status rules__after_moving_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    tt_status st;
    char at[256];
    const json_t *am = json_object_get(j, "after_moving");
    if (am) {
        double mm = 0;
        snprintf(at, sizeof at, "%s: after_moving", where);
        if (!json_is_object(am)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"to_hit_modifier\": N, \"drops_bonuses\": B}", at);
            return st;
        }
        double rof = 0;
        if ((st = rules_json_num(am, "to_hit_modifier", at, -20, 20, &mm, err)) ||
            (st = rules_json_num(am, "rof", at, 0, 100, &rof, err)) ||
            (st = rules_json_bool(am, "only_at_rof", at, &p->moved_mod_only_rof, err)) ||
            (st = rules_json_bool(am, "drops_bonuses", at, &p->moved_drops_bonuses, err)))
            return st;
        if (p->moved_mod_only_rof && rof < 1) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"only_at_rof\" needs \"rof\", the dice a figure that moved rolls", at);
            return st;
        }
        p->has_after_moving = 1;
        p->moved_mod = (int)mm;
        p->moved_rof = (int)rof;
    }
    return TT_OK;
}

/* Each weapon's fire_src: its own src, then where the score needed comes
 * from when it is the firer's colour (to_hit) and the defender's own roll
 * (defence_roll), each the profile section's citation. */
tt_status rules__fire_cites(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    char *th = NULL, *dr = NULL;
    tt_status st;
    if ((p->ncolours && (st = rules_json_cite(json_object_get(j, "to_hit"), where, &th, err))) ||
        (p->has_defence_roll && (st = rules_json_cite(json_object_get(j, "defence_roll"), where, &dr, err)))) {
        free(th);
        return st;
    }
    st = TT_OK;
    for (size_t i = 0; (th || dr) && i < p->nweapons && !st; i++) {
        rules_weapon *w = &p->weapons[i];
        if (!w->src)
            continue;
        size_t n = strlen(w->src) + (th ? strlen(th) + 2 : 0) + (dr ? strlen(dr) + 2 : 0) + 1;
        if (!(w->fire_src = malloc(n)))
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        else
            snprintf(w->fire_src, n, "%s%s%s%s%s", w->src, th ? "; " : "", th ? th : "", dr ? "; " : "", dr ? dr : "");
    }
    free(th);
    free(dr);
    return st;
}
