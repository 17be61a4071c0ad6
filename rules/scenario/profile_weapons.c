/* profile_weapons.c - a profile's "weapons": ranges and brackets, arcs,
 * grape, blasts, dice, what firing after moving does, deviation, and the
 * citations each answer about a weapon gives. */
#include "rules_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_parse.h"
#include "rules_json.h"

/* A weapon's "deviation": {"axes": 6, "off_low": 1, "off_high": 6,
 * "distance": "1d6"}, {"clock": 12, "distance": "1d3", "critical": "1d6"}
 * or {"dud": 1, "dud_die": 6} (thrown, it lands where aimed). */
static tt_status rules__deviation_parse(const json_t *o, const char *where, rules_deviation *d, tt_err *err)
{
    char at[300];
    tt_status st;
    double axes = 0, clock = 0, lo = 0, hi = 0, dud = 0, dud_die = 0;
    const char *dist = NULL, *crit = NULL;
    memset(d, 0, sizeof *d);
    if (!o)
        return TT_OK;
    snprintf(at, sizeof at, "%s: deviation", where);
    if (!json_is_object(o))
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s must be an object such as {\"clock\": 12, \"distance\": \"1d6\"}", at);
    if ((st = rules_json_num(o, "axes", at, 0, 100, &axes, err)) ||
        (st = rules_json_num(o, "clock", at, 0, 100, &clock, err)) ||
        (st = rules_json_num(o, "off_low", at, 0, 100, &lo, err)) ||
        (st = rules_json_num(o, "off_high", at, 0, 100, &hi, err)) ||
        (st = rules_json_num(o, "dud", at, 0, 100, &dud, err)) ||
        (st = rules_json_num(o, "dud_die", at, 0, 100, &dud_die, err)) ||
        (st = rules_json_str(o, "distance", at, &dist, err)) || (st = rules_json_str(o, "critical", at, &crit, err)))
        return st;
    d->kind = axes > 0 ? RULES_DEV_AXES : clock > 0 ? RULES_DEV_CLOCK : dud_die > 0 ? RULES_DEV_THROWN : RULES_DEV_NONE;
    if (d->kind == RULES_DEV_NONE || (axes > 0) + (clock > 0) + (dud_die > 0) > 1)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: give one of \"axes\" (sides of the direction dice), \"clock\" "
                                              "(sides of the clock die) or \"dud_die\" (a thrown weapon)",
                          at);
    d->die = (int)(axes > 0 ? axes : clock);
    d->off_low = (int)lo;
    d->off_high = (int)hi;
    d->dud = (int)dud;
    d->dud_die = (int)dud_die;
    if (d->kind == RULES_DEV_AXES && !(d->off_low >= 0 && d->off_low < d->off_high && d->off_high <= d->die))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"off_low\" and \"off_high\" must be scores of the d%d, low below high",
                          at, d->die);
    if (d->kind == RULES_DEV_THROWN && d->dud >= d->dud_die)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"dud\" must be below \"dud_die\"", at);
    if (d->kind != RULES_DEV_THROWN && rules_dice_parse(dist, &d->dn, &d->ds, &d->dk))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"distance\" must be dice like \"1d6\" or \"1d6+3\"", at);
    if (crit && rules_dice_parse(crit, &d->cn, &d->cs, &d->ck))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"critical\" must be dice like \"1d6+3\"", at);
    /* "ammo": {"shot": {"distance": "1d6", "critical": "1d6+3", "default": true},
     * "shell": {"distance": "1d3", "critical": "1d6", "blast_radius_in": 1}} */
    const json_t *am = json_object_get(o, "ammo");
    if (am) {
        const char *key;
        const json_t *e;
        if (d->kind == RULES_DEV_THROWN || !json_is_object(am) || json_object_size(am) < 2 || json_object_size(am) > 3)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"ammo\" must map 2 or 3 kinds of ammunition to their dice, "
                                                  "{\"shot\": {\"distance\": \"1d6\", \"default\": true}, ...} "
                                                  "(not for a thrown weapon)",
                              at);
        d->ammo_def = -1;
        json_object_foreach((json_t *)am, key, e)
        {
            char eat[400];
            const char *ed = NULL, *ec = NULL;
            int k = d->nammo, def = 0;
            double bl = -1;
            snprintf(eat, sizeof eat, "%s: ammo \"%s\"", at, key);
            if (!json_is_object(e) || strlen(key) >= sizeof d->ammo[0] || !key[0])
                return tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"distance\": dice, \"critical\": dice, "
                                                      "\"blast_radius_in\": R, \"default\": B}, its name under 12 letters",
                                  eat);
            if ((st = rules_json_str(e, "distance", eat, &ed, err)) || (st = rules_json_str(e, "critical", eat, &ec, err)) ||
                (st = rules_json_num(e, "blast_radius_in", eat, 0, RULES_MAX_IN, &bl, err)) ||
                (st = rules_json_bool(e, "default", eat, &def, err)))
                return st;
            if (rules_dice_parse(ed, &d->an[k], &d->as[k], &d->ak[k]))
                return tt_err_set(err, TT_ERR_FORMAT, "%s: \"distance\" must be dice like \"1d6\"", eat);
            if (ec && rules_dice_parse(ec, &d->acn[k], &d->acs[k], &d->ack[k]))
                return tt_err_set(err, TT_ERR_FORMAT, "%s: \"critical\" must be dice like \"1d6+3\"", eat);
            snprintf(d->ammo[k], sizeof d->ammo[k], "%s", key);
            d->ablast[k] = bl;
            if (def) {
                if (d->ammo_def >= 0)
                    return tt_err_set(err, TT_ERR_FORMAT, "%s: only one kind of ammunition is the \"default\"", at);
                if (d->an[k] != d->dn || d->as[k] != d->ds || d->ak[k] != d->dk || d->acn[k] != d->cn ||
                    d->acs[k] != d->cs || d->ack[k] != d->ck || bl >= 0)
                    return tt_err_set(err, TT_ERR_FORMAT, "%s: the \"default\" ammunition's dice must be the "
                                                          "deviation's own \"distance\" and \"critical\", and its blast "
                                                          "the weapon's",
                                      eat);
                d->ammo_def = k;
            }
            d->nammo++;
        }
        if (d->ammo_def < 0)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: mark the ammunition it fires unless asked with \"default\": true", at);
    }
    return rules_json_cite(o, at, &d->src, err);
}

/* Line range "Lx" or "Lx-y" at s (after the 'L'): its first and last line;
 * the characters read, 0 when s is not one. */
static int rules__line_range(const char *s, long *a, long *b)
{
    char *e;
    if (*s < '0' || *s > '9')
        return 0;
    *a = *b = strtol(s, &e, 10);
    if (*e == '-' && e[1] >= '0' && e[1] <= '9')
        *b = strtol(e + 1, &e, 10);
    return (int)(e - s);
}

/* Lines a..b lie in a range that cite w (after its book) names. */
static int rules__cite_has(const char *w, long a, long b)
{
    for (const char *q = w; (q = strchr(q, 'L'));) {
        long c, e;
        int m = rules__line_range(++q, &c, &e);
        if (m && c <= a && b <= e)
            return 1;
    }
    return 0;
}

/* A deviate answer's citation: the weapon's, and the deviation's own lines
 * where the weapon's do not already name them (the same book: the lines
 * it lacks appended; another book or a house value: both, "; " between).
 * *out NULL when neither cites. */
static tt_status rules__dev_rule(const char *w, const char *d, char **out, tt_err *err)
{
    *out = NULL;
    if (!w && !d)
        return TT_OK;
    if (!w || !d) {
        *out = strdup(w ? w : d);
        return *out ? TT_OK : tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    size_t bw = strcspn(w, " "), bd = strcspn(d, " "), n = strlen(w) + strlen(d) + 4;
    int same = bw == bd && !strncmp(w, d, bw) && strncmp(w, "house", 5);
    if (!(*out = malloc(n)))
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if (!same) {
        snprintf(*out, n, "%s; %s", w, d);
        return TT_OK;
    }
    size_t used = (size_t)snprintf(*out, n, "%s", w);
    for (const char *p = d + bd; (p = strchr(p, 'L'));) {
        long a, b;
        int m = rules__line_range(++p, &a, &b);
        if (m && !rules__cite_has(w + bw, a, b) && used < n)
            used += (size_t)snprintf(*out + used, n - used, ", L%.*s", m, p);
    }
    return TT_OK;
}

/* A weapon's range, arcs and flags: "range_in" (needed), "indirect",
 * "arc_deg", "pivot_deg", the blast and the minimum range. */
static tt_status rules__weapon_reach(const json_t *o, const char *at, rules_weapon *w, tt_err *err)
{
    tt_status st;
    w->arc_deg = 360;
    w->range_in = -1;
    if ((st = rules_json_num(o, "range_in", at, 0, RULES_MAX_IN, &w->range_in, err)))
        return st;
    if (w->range_in < 0)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: missing \"range_in\" (its longest range in inches)", at);
    if ((st = rules_json_bool(o, "indirect", at, &w->indirect, err)) ||
        (st = rules_json_bool(o, "needs_spotter", at, &w->needs_spotter, err)) ||
        (st = rules_json_num(o, "arc_deg", at, 0, 360, &w->arc_deg, err)) ||
        (st = rules_json_num(o, "pivot_deg", at, 0, 180, &w->pivot_deg, err)) ||
        (st = rules_json_bool(o, "ball", at, &w->ball, err)) ||
        (st = rules_json_bool(o, "fires_over_from_hill", at, &w->fires_over_from_hill, err)) ||
        (st = rules_json_bool(o, "cannot_move_and_fire", at, &w->cannot_move_and_fire, err)) ||
        (st = rules_json_bool(o, "no_to_hit", at, &w->no_to_hit, err)) ||
        (st = rules_json_bool(o, "ignores_firer_type_modifier", at, &w->no_firer_type_mod, err)) ||
        (st = rules_json_num(o, "over_friends_min_in", at, 0, RULES_MAX_IN, &w->over_friends_min_in, err)) ||
        (st = rules_json_num(o, "blast_radius_in", at, 0, RULES_MAX_IN, &w->blast_in, err)) ||
        (st = rules_json_num(o, "blast_to_hit", at, 0, 100, &w->blast_kill, err)) ||
        (st = rules_json_num(o, "min_range_in", at, 0, RULES_MAX_IN, &w->min_range_in, err)))
        return st;
    return TT_OK;
}

/* A weapon's dice: "dice", "front_ranks" that may fire, "after_moving"
 * ({"to_hit_modifier": N, "keeps_dice": B}) and "dice_within" ({"range_in":
 * R, "dice": N}). */
static tt_status rules__weapon_dice(const json_t *o, const char *at, rules_weapon *w, tt_err *err)
{
    tt_status st;
    const json_t *dw = json_object_get(o, "dice_within");
    double dice = 0, dwin = 0, dwd = 0, ranks = 0;
    if ((st = rules_json_num(o, "dice", at, 0, 100, &dice, err)) ||
        (st = rules_json_num(o, "front_ranks", at, 0, 100, &ranks, err)))
        return st;
    w->front_ranks = (int)ranks;
    const json_t *wm = json_object_get(o, "after_moving");
    if (wm) {
        char mat[300];
        double mm = 0;
        snprintf(mat, sizeof mat, "%s: after_moving", at);
        if (!json_is_object(wm))
            return tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"to_hit_modifier\": N, \"keeps_dice\": B}", mat);
        if ((st = rules_json_num(wm, "to_hit_modifier", mat, -20, 20, &mm, err)) ||
            (st = rules_json_bool(wm, "keeps_dice", mat, &w->moved_keeps_dice, err)))
            return st;
        w->has_moved_rule = 1;
        w->moved_mod = (int)mm;
    }
    if (dw) {
        char dat[300];
        snprintf(dat, sizeof dat, "%s: dice_within", at);
        if (!json_is_object(dw))
            return tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"range_in\": R, \"dice\": N}", dat);
        if ((st = rules_json_num(dw, "range_in", dat, 0, RULES_MAX_IN, &dwin, err)) ||
            (st = rules_json_num(dw, "dice", dat, 0, 100, &dwd, err)))
            return st;
    }
    w->dice = (int)dice;
    w->dice_within_in = dwin;
    w->dice_within = (int)dwd;
    return TT_OK;
}

/* The dice around a weapon's roll: the cover dice a defender gets against
 * it, its bonus dice within a range, the best colour it rolls and its
 * bonus dice fired standing still. */
static tt_status rules__weapon_roll_dice(const rules_profile *p, const json_t *o, const char *at, rules_weapon *w,
                                         tt_err *err)
{
    tt_status st = TT_OK;
    const json_t *cd = json_object_get(o, "cover_dice"), *bw = json_object_get(o, "bonus_dice_within");
    const char *bc = NULL;
    if (cd) {
        double soft = 0, hard = 0;
        if (!json_is_object(cd) || (st = rules_json_num(cd, "soft", at, 0, 100, &soft, err)) ||
            (st = rules_json_num(cd, "hard", at, 0, 100, &hard, err)))
            return st ? st : tt_err_set(err, TT_ERR_FORMAT, "%s: \"cover_dice\" must be {\"soft\": N, \"hard\": N}", at);
        w->has_cover_dice = 1;
        w->cover_dice[RULES_COVER_SOFT] = (int)soft;
        w->cover_dice[RULES_COVER_HARD] = (int)hard;
    }
    if (bw) {
        double bin = 0, bd = 0;
        if (!json_is_object(bw) || (st = rules_json_num(bw, "range_in", at, 0, RULES_MAX_IN, &bin, err)) ||
            (st = rules_json_num(bw, "dice", at, 0, 100, &bd, err)))
            return st ? st
                      : tt_err_set(err, TT_ERR_FORMAT, "%s: \"bonus_dice_within\" must be {\"range_in\": R, \"dice\": N}",
                                   at);
        w->bonus_within_in = bin;
        w->bonus_within = (int)bd;
    }
    double still = 0;
    if ((st = rules_json_str(o, "best_colour", at, &bc, err)) ||
        (st = rules_json_num(o, "still_bonus_dice", at, 0, 100, &still, err)))
        return st;
    w->still_bonus = (int)still;
    w->best_colour = bc ? rules__colour_index(p, bc) : -1;
    if (bc && w->best_colour < 0)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"best_colour\" \"%s\" is not one of to_hit.by_colour", at, bc);
    return TT_OK;
}

/* The grape's "after_moving": {"rof": N, "to_hit_modifier": N,
 * "keeps_dice": B} (gat: where the grape is, for messages). */
static tt_status rules__grape_moved_parse(const json_t *gm, const char *gat, rules_weapon *w, tt_err *err)
{
    char mat[340];
    double mm = 0, rof = 0;
    tt_status st;
    snprintf(mat, sizeof mat, "%s: after_moving", gat);
    if (!json_is_object(gm))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"rof\": N, \"to_hit_modifier\": N, \"keeps_dice\": B}",
                          mat);
    if ((st = rules_json_num(gm, "to_hit_modifier", mat, -20, 20, &mm, err)) ||
        (st = rules_json_num(gm, "rof", mat, 0, 100, &rof, err)) ||
        (st = rules_json_bool(gm, "keeps_dice", mat, &w->grape_moved_keeps_dice, err)))
        return st;
    if (w->grape_moved_keeps_dice && rof > 0)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: give \"rof\" (the dice after moving) or \"keeps_dice\", not both",
                          mat);
    if (!w->grape_fire_mods && mm)
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: a \"to_hit_modifier\" needs the grape's \"fire_modifiers\" (per-target scores)", mat);
    w->grape_has_moved_rule = 1;
    w->grape_moved_rof = (int)rof;
    w->grape_moved_mod = (int)mm;
    return TT_OK;
}

/* A weapon's "grape": {"range_in": R, "arc_deg": A, ...} (g not NULL). */
static tt_status rules__grape_parse(const json_t *g, const char *at, rules_weapon *w, tt_err *err)
{
    char gat[300];
    tt_status st;
    snprintf(gat, sizeof gat, "%s: grape", at);
    if (!json_is_object(g))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be an object {\"range_in\":R,\"arc_deg\":A}", gat);
    w->grape_arc_deg = 360;
    double gth = 0, gd = 0;
    if ((st = rules_json_num(g, "range_in", gat, 0, RULES_MAX_IN, &w->grape_range_in, err)) ||
        (st = rules_json_num(g, "arc_deg", gat, 0, 360, &w->grape_arc_deg, err)) ||
        (st = rules_json_num(g, "to_hit", gat, 0, 20, &gth, err)) ||
        (st = rules_json_num(g, "dice", gat, 0, 100, &gd, err)) ||
        (st = rules_json_bool(g, "not_over_friends", gat, &w->grape_not_over_friends, err)) ||
        (st = rules_json_bool(g, "enemies_only", gat, &w->grape_enemies_only, err)) ||
        (st = rules_json_bool(g, "needs_los", gat, &w->grape_needs_los, err)) ||
        (st = rules_json_bool(g, "roll_each", gat, &w->grape_roll_each, err)) ||
        (st = rules_json_bool(g, "fire_modifiers", gat, &w->grape_fire_mods, err)) ||
        (st = rules_json_cite(g, gat, &w->grape_src, err)))
        return st;
    if (w->grape_fire_mods && gth <= 0)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"fire_modifiers\" needs \"to_hit\", the score the modifiers change", gat);
    const json_t *gm = json_object_get(g, "after_moving");
    if (gm && (st = rules__grape_moved_parse(gm, gat, w, err)))
        return st;
    w->grape_to_hit = (int)gth;
    w->grape_dice = (int)gd;
    if (w->grape_range_in <= 0)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"range_in\" must be > 0", gat);
    return TT_OK;
}

/* One of a weapon's "brackets": {"name": "short", "max_in": M, "to_hit":
 * N, "modifier": N}, no shorter than the one before (*prev). */
static tt_status rules__bracket_parse(const json_t *e, const char *bat, double *prev, rules_bracket *br, tt_err *err)
{
    const char *bn = NULL;
    tt_status st;
    if (!json_is_object(e))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", bat);
    if ((st = rules_json_str(e, "name", bat, &bn, err)))
        return st;
    if (!bn || (strcmp(bn, "short") && strcmp(bn, "medium") && strcmp(bn, "long")))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"name\" must be short, medium or long", bat);
    snprintf(br->name, sizeof br->name, "%s", bn);
    br->max_in = -1;
    double bm = 0;
    if ((st = rules_json_num(e, "max_in", bat, 0, RULES_MAX_IN, &br->max_in, err)) ||
        (st = rules_json_num(e, "modifier", bat, -20, 20, &bm, err)))
        return st;
    br->modifier = (int)bm;
    if (br->max_in < 0 || br->max_in < *prev)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"max_in\" missing or shorter than the bracket before", bat);
    *prev = br->max_in;
    br->max_fx = rules_fx(br->max_in);
    const json_t *th = rules_json_value(json_object_get(e, "to_hit"));
    if (!th || json_is_null(th))
        br->to_hit = RULES_NULL;
    else if (json_is_integer(th) && json_integer_value(th) >= 1 && json_integer_value(th) <= 100)
        br->to_hit = (int)json_integer_value(th);
    else
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"to_hit\" must be a whole number (the score needed)", bat);
    return TT_OK;
}

/* A weapon's range brackets ("brackets", 1 to 3), else one "long" bracket
 * out to its range, with no score of its own. */
static tt_status rules__brackets_parse(const json_t *o, const char *at, rules_weapon *w, tt_err *err)
{
    const json_t *b = json_object_get(o, "brackets");
    tt_status st;
    if (!b) {
        snprintf(w->br[0].name, sizeof w->br[0].name, "long");
        w->br[0].max_in = w->range_in;
        w->br[0].max_fx = rules_fx(w->range_in);
        w->br[0].to_hit = RULES_NULL;
        w->nbr = 1;
        return TT_OK;
    }
    if (!json_is_array(b) || json_array_size(b) < 1 || json_array_size(b) > 3)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"brackets\" must be a list of 1 to 3 {\"name\",\"max_in\",\"to_hit\"}",
                          at);
    double prev = 0;
    for (size_t i = 0; i < json_array_size(b); i++) {
        char bat[320];
        snprintf(bat, sizeof bat, "%s: brackets[%zu]", at, i);
        if ((st = rules__bracket_parse(json_array_get(b, i), bat, &prev, &w->br[i], err)))
            return st;
    }
    w->nbr = (int)json_array_size(b);
    return TT_OK;
}

static tt_status rules__weapon_parse(const rules_profile *p, const char *name, const json_t *o, const char *where,
                                     rules_weapon *w, tt_err *err)
{
    char at[256];
    tt_status st;
    snprintf(at, sizeof at, "%s: weapon \"%s\"", where, name);
    if (!json_is_object(o))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", at);
    if ((st = rules__weapon_reach(o, at, w, err)) || (st = rules__weapon_dice(o, at, w, err)))
        return st;
    double imod = 0;
    if ((st = rules_json_num(o, "indirect_modifier", at, -20, 20, &imod, err)) ||
        (st = rules__deviation_parse(json_object_get(o, "deviation"), at, &w->dev, err)))
        return st;
    w->indirect_mod = (int)imod;
    if ((st = rules_json_cite(o, at, &w->src, err)) ||
        (w->dev.kind != RULES_DEV_NONE && (st = rules__dev_rule(w->src, w->dev.src, &w->dev_rule, err))))
        return st;
    /* the figure types that cannot use it */
    const json_t *nt = rules_json_value(json_object_get(o, "not_types"));
    if ((st = rules__weapon_roll_dice(p, o, at, w, err)) ||
        (st = rules__type_list(nt, at, "not_types", 2, w->not_types, &w->nnot_types, err)))
        return st;
    const json_t *g = json_object_get(o, "grape");
    if (g && (st = rules__grape_parse(g, at, w, err)))
        return st;
    return rules__brackets_parse(o, at, w, err);
}

/* "weapons": each weapon by name (at least one). */
tt_status rules__weapons_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    tt_status st;
    const char *key;
    json_t *val;
    const json_t *wp = json_object_get(j, "weapons");
    if (!json_is_object(wp) || json_object_size(wp) == 0) {
        st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"weapons\" must map weapon names to their ranges", where);
        return st;
    }
    p->weapons = calloc(json_object_size(wp), sizeof *p->weapons);
    if (!p->weapons) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        return st;
    }
    json_object_foreach((json_t *)wp, key, val)
    {
        rules_weapon *w = &p->weapons[p->nweapons];
        if (!(w->name = strdup(key))) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            return st;
        }
        p->nweapons++;
        if ((st = rules__weapon_parse(p, key, val, where, w, err)))
            return st;
    }
    return TT_OK;
}
