/* profile.c - rule-set profiles: JSON -> rules_profile (see
 * rules/profiles/NAME.json and the README for the format). */
#include "rules_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_json.h"

static const char *const rules__required_kinds[] = {"building", "wall",  "hedge", "woods",
                                                    "hill",     "river", "rough", "breastworks"};

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

static int rules__colour_index(const rules_profile *p, const char *name);

/* A list of up to max figure types (v: a JSON array, or NULL) into
 * out[*n...]: "WHAT must list up to MAX figure types". */
static tt_status rules__type_list(const json_t *v, const char *at, const char *what, int max, char (*out)[24], int *n,
                                  tt_err *err)
{
    if (v && (!json_is_array(v) || json_array_size(v) > (size_t)max || json_array_size(v) < 1))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must list up to %d figure types", at, what, max);
    for (size_t k = 0; k < json_array_size(v); k++) {
        const json_t *e = json_array_get(v, k);
        if (!json_is_string(e) || strlen(json_string_value(e)) >= 24)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must list up to %d figure types", at, what, max);
        snprintf(out[(*n)++], 24, "%s", json_string_value(e));
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
static tt_status rules__stats_parse(rules_profile *p, const json_t *stats, const char *where, tt_err *err)
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

static tt_status rules__weapon_parse(const rules_profile *p, const char *name, const json_t *o, const char *where,
                                     rules_weapon *w,
                                     tt_err *err)
{
    char at[256];
    tt_status st;
    snprintf(at, sizeof at, "%s: weapon \"%s\"", where, name);
    if (!json_is_object(o))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", at);
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
    double imod = 0;
    if ((st = rules_json_num(o, "indirect_modifier", at, -20, 20, &imod, err)) ||
        (st = rules__deviation_parse(json_object_get(o, "deviation"), at, &w->dev, err)))
        return st;
    w->indirect_mod = (int)imod;
    if ((st = rules_json_cite(o, at, &w->src, err)) ||
        (w->dev.kind != RULES_DEV_NONE && (st = rules__dev_rule(w->src, w->dev.src, &w->dev_rule, err))))
        return st;
    /* the cover dice a defender gets against it, its bonus dice within a
     * range, the best colour it rolls, the figure types that cannot use it */
    const json_t *cd = json_object_get(o, "cover_dice"), *bw = json_object_get(o, "bonus_dice_within"),
                 *nt = rules_json_value(json_object_get(o, "not_types"));
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
    if ((st = rules__type_list(nt, at, "not_types", 2, w->not_types, &w->nnot_types, err)))
        return st;
    const json_t *g = json_object_get(o, "grape");
    if (g) {
        char gat[300];
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
        if (gm) {
            char mat[340];
            double mm = 0, rof = 0;
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
        }
        w->grape_to_hit = (int)gth;
        w->grape_dice = (int)gd;
        if (w->grape_range_in <= 0)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"range_in\" must be > 0", gat);
    }
    const json_t *b = json_object_get(o, "brackets");
    if (b) {
        if (!json_is_array(b) || json_array_size(b) < 1 || json_array_size(b) > 3)
            return tt_err_set(err, TT_ERR_FORMAT,
                              "%s: \"brackets\" must be a list of 1 to 3 {\"name\",\"max_in\",\"to_hit\"}", at);
        double prev = 0;
        for (size_t i = 0; i < json_array_size(b); i++) {
            const json_t *e = json_array_get(b, i);
            char bat[320];
            const char *bn = NULL;
            snprintf(bat, sizeof bat, "%s: brackets[%zu]", at, i);
            if (!json_is_object(e))
                return tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", bat);
            if ((st = rules_json_str(e, "name", bat, &bn, err)))
                return st;
            if (!bn || (strcmp(bn, "short") && strcmp(bn, "medium") && strcmp(bn, "long")))
                return tt_err_set(err, TT_ERR_FORMAT, "%s: \"name\" must be short, medium or long", bat);
            rules_bracket *br = &w->br[i];
            snprintf(br->name, sizeof br->name, "%s", bn);
            br->max_in = -1;
            double bm = 0;
            if ((st = rules_json_num(e, "max_in", bat, 0, RULES_MAX_IN, &br->max_in, err)) ||
                (st = rules_json_num(e, "modifier", bat, -20, 20, &bm, err)))
                return st;
            br->modifier = (int)bm;
            if (br->max_in < 0 || br->max_in < prev)
                return tt_err_set(err, TT_ERR_FORMAT, "%s: \"max_in\" missing or shorter than the bracket before",
                                  bat);
            prev = br->max_in;
            br->max_fx = rules_fx(br->max_in);
            const json_t *th = rules_json_value(json_object_get(e, "to_hit"));
            if (!th || json_is_null(th))
                br->to_hit = RULES_NULL;
            else if (json_is_integer(th) && json_integer_value(th) >= 1 && json_integer_value(th) <= 100)
                br->to_hit = (int)json_integer_value(th);
            else
                return tt_err_set(err, TT_ERR_FORMAT, "%s: \"to_hit\" must be a whole number (the score needed)",
                                  bat);
        }
        w->nbr = (int)json_array_size(b);
    } else {
        snprintf(w->br[0].name, sizeof w->br[0].name, "long");
        w->br[0].max_in = w->range_in;
        w->br[0].max_fx = rules_fx(w->range_in);
        w->br[0].to_hit = RULES_NULL;
        w->nbr = 1;
    }
    return TT_OK;
}

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

static int rules__colour_index(const rules_profile *p, const char *name)
{
    for (int k = 0; name && k < p->ncolours; k++)
        if (!strcmp(p->colour[k], name))
            return k;
    return -1;
}

/* {"TYPE": "colour", ...} (up to max) -> types and colour indices. */
static tt_status rules__colour_map(const rules_profile *p, const json_t *o, const char *at, const char *what, int max,
                                   char (*types)[24], int *cols, int *n, tt_err *err)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)o, key, val)
    {
        const json_t *v = rules_json_value(val);
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        int c = json_is_string(v) ? rules__colour_index(p, json_string_value(v)) : -1;
        if (*n >= max || strlen(key) >= 24 || c < 0)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" maps up to %d figure types to a colour of "
                                                  "to_hit.by_colour",
                              at, what, max);
        snprintf(types[*n], 24, "%s", key);
        cols[(*n)++] = c;
    }
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
static tt_status rules__bonus_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
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

/* "command": {"action": "rally", "per_figure": true,
 *              "types": {"general": "side", "officer": "unit", ...}} */
static tt_status rules__command_parse(rules_profile *p, const json_t *c, const char *where, tt_err *err)
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
static tt_status rules__aspect_parse(rules_profile *p, const json_t *a, const char *at, tt_err *err)
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
static tt_status rules__fbt_parse(rules_profile *p, const json_t *o, const char *where, tt_err *err)
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

/* Each weapon's fire_src: its own src, then where the score needed comes
 * from when it is the firer's colour (to_hit) and the defender's own roll
 * (defence_roll), each the profile section's citation. */
static tt_status rules__fire_cites(rules_profile *p, const json_t *j, const char *where, tt_err *err)
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
    const json_t *th = json_object_get(j, "to_hit");
    if (th) {
        snprintf(at, sizeof at, "%s: to_hit", where);
        double mx = -1, soft = 1, hard = 2, hits = 0, misses = 0;
        const char *die = NULL;
        if (!json_is_object(th)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", at);
            goto fail;
        }
        if ((st = rules_json_num(th, "max", at, 1, 100, &mx, err)) ||
            (st = rules_json_str(th, "die", at, &die, err)) ||
            (st = rules_json_num(th, "always_hits", at, 0, 100, &hits, err)) ||
            (st = rules_json_num(th, "always_misses", at, 0, 100, &misses, err)))
            goto fail;
        const char *add = NULL; /* the sign of the modifiers: added to the roll, or to the score needed */
        if ((st = rules_json_str(th, "modifiers_add_to", at, &add, err)))
            goto fail;
        if (add && strcmp(add, "roll") && strcmp(add, "score")) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"modifiers_add_to\" must be \"roll\" (+1 makes a hit easier) or "
                                                "\"score\" (+1 makes it harder), not \"%s\"", at, add);
            goto fail;
        }
        p->mods_add_to_score = add && !strcmp(add, "score");
        double chm = 0;
        if ((st = rules_json_num(th, "target_charging_modifier", at, -20, 20, &chm, err)))
            goto fail;
        p->has_charging = json_object_get(th, "target_charging_modifier") != NULL;
        p->charging_mod = (int)chm;
        if (die && strcmp(die, "d6") && strcmp(die, "d12")) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"die\" must be \"d6\" or \"d12\"", at);
            goto fail;
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
                goto fail;
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
                    goto fail;
                if (strlen(ck) >= sizeof p->colour[0] || p->ncolours >= 4) {
                    st = tt_err_set(err, TT_ERR_FORMAT, "%s: colour \"%s\" is too long", at, ck);
                    goto fail;
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
                goto fail;
            }
            if ((st = rules_json_num(cv, "soft", at, -20, 20, &soft, err)) ||
                (st = rules_json_num(cv, "hard", at, -20, 20, &hard, err)))
                goto fail;
        }
        p->to_hit_max = (int)mx;
        p->cover_mod[RULES_COVER_SOFT] = (int)soft;
        p->cover_mod[RULES_COVER_HARD] = (int)hard;
    }
    if ((st = rules__stats_parse(p, json_object_get(j, "stats"), where, err)))
        goto fail;
    const json_t *dd = json_object_get(j, "defence_dice");
    if (dd) {
        double soft = 0, hard = 0;
        snprintf(at, sizeof at, "%s: defence_dice", where);
        if (!json_is_object(dd)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"soft\": N, \"hard\": N}", at);
            goto fail;
        }
        if ((st = rules_json_num(dd, "soft", at, 0, 100, &soft, err)) ||
            (st = rules_json_num(dd, "hard", at, 0, 100, &hard, err)))
            goto fail;
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
                goto fail;
            }
            snprintf(p->dd_type[p->ndd_type], sizeof p->dd_type[0], "%s", tk);
            p->dd_type_n[p->ndd_type++] = (int)json_integer_value(v);
        }
    }
    const json_t *los = json_object_get(j, "los");
    if (los) {
        snprintf(at, sizeof at, "%s: los", where);
        if (!json_is_object(los)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", at);
            goto fail;
        }
        s = NULL;
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
            goto fail;
        if (s && strcmp(s, "centre") && strcmp(s, "front-centre")) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"from\" must be \"centre\" or \"front-centre\"", at);
            goto fail;
        }
        p->fire_from_front = s && !strcmp(s, "front-centre");
        p->through_skirmishers_mod = (int)skmod;
    }
    const json_t *te = json_object_get(j, "terrain_effects");
    if (te) {
        snprintf(at, sizeof at, "%s: terrain_effects", where);
        if (!json_is_object(te)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", at);
            goto fail;
        }
        if ((st = rules_json_num(te, "difficult_factor", at, 0, 1, &p->difficult_factor, err)) ||
            (st = rules_json_num(te, "obstacle_cost_in", at, 0, RULES_MAX_IN, &p->obstacle_cost_in, err)) ||
            (st = rules_json_num(te, "very_difficult_factor", at, 0, 1, &p->very_difficult_factor, err)) ||
            (st = rules_json_num(te, "not_forward_factor", at, 0, 1, &p->not_forward_factor, err)) ||
            (st = rules_json_num(te, "forward_arc_deg", at, 0, 180, &p->forward_arc_deg, err)) ||
            (st = rules_json_num(te, "least_factor", at, 0, 1, &p->least_factor, err)) ||
            (st = rules_json_num(te, "road_factor", at, 1, 100, &p->road_factor, err)) ||
            (st = rules_json_num(te, "free_turn_deg", at, 0, 180, &p->free_turn_deg, err)))
            goto fail;
        if (p->not_forward_factor > 0 && p->forward_arc_deg <= 0) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"not_forward_factor\" needs \"forward_arc_deg\" (the arc, "
                                                "centred on the facing, that counts as forward)",
                            at);
            goto fail;
        }
        const json_t *ru = rules_json_value(json_object_get(te, "round_up"));
        if (ru && !json_is_boolean(ru)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"round_up\" must be true or false", at);
            goto fail;
        }
        p->difficult_round_up = ru && json_is_true(ru);
        if ((st = rules_json_bool(te, "per_inch", at, &p->per_inch, err)) ||
            (st = rules_json_bool(te, "by_base", at, &p->by_base, err)))
            goto fail;
        for (int k = 0; k < RULES_MC_N; k++)
            if ((st = rules_json_cite(json_object_get(te, rules_move_cite_key[k]), at, &p->move_cite[k], err)))
                goto fail;
    }

    /* terrain kinds */
    const json_t *tk = json_object_get(j, "terrain");
    if (!json_is_object(tk)) {
        st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"terrain\" must map each terrain kind to its effects", where);
        goto fail;
    }
    p->kinds = calloc(json_object_size(tk) + 1, sizeof *p->kinds);
    if (!p->kinds) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)tk, key, val)
    {
        rules_terrain_kind *k = &p->kinds[p->nkinds];
        if (!(k->name = strdup(key))) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            goto fail;
        }
        p->nkinds++;
        snprintf(at, sizeof at, "%s: terrain \"%s\"", where, key);
        if ((st = rules_terrain_props_parse(val, at, &k->props, err)))
            goto fail;
    }
    for (size_t i = 0; i < sizeof rules__required_kinds / sizeof *rules__required_kinds; i++)
        if (!rules_profile_kind(p, rules__required_kinds[i])) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: terrain kind \"%s\" is missing (every profile describes "
                                                "building, wall, hedge, woods, hill, river, rough, breastworks)",
                            where, rules__required_kinds[i]);
            goto fail;
        }

    /* weapons */
    const json_t *wp = json_object_get(j, "weapons");
    if (!json_is_object(wp) || json_object_size(wp) == 0) {
        st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"weapons\" must map weapon names to their ranges", where);
        goto fail;
    }
    p->weapons = calloc(json_object_size(wp), sizeof *p->weapons);
    if (!p->weapons) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    json_object_foreach((json_t *)wp, key, val)
    {
        rules_weapon *w = &p->weapons[p->nweapons];
        if (!(w->name = strdup(key))) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            goto fail;
        }
        p->nweapons++;
        if ((st = rules__weapon_parse(p, key, val, where, w, err)))
            goto fail;
    }

    if ((st = rules__bonus_parse(p, j, where, err)))
        goto fail;

    /* the firer's quality: {"veteran": 1, ...}; formations: {"column":
     * {"target_modifier": 1}, "line": {"rof_bonus": 1, "rof_min_wide": 4}} */
    const json_t *fq = json_object_get(j, "fire_quality"), *fm = json_object_get(j, "formations");
    json_object_foreach((json_t *)fq, key, val)
    {
        const json_t *v = rules_json_value(val);
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        if (p->nfq >= 4 || strlen(key) >= sizeof p->fq_name[0] || !json_is_integer(v)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"fire_quality\" maps up to 4 qualities to whole modifiers", where);
            goto fail;
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
            goto fail;
        }
        snprintf(p->ft_name[p->nft], sizeof p->ft_name[0], "%s", key);
        p->ft_mod[p->nft++] = (int)json_integer_value(v);
    }
    json_object_foreach((json_t *)fm, key, val)
    {
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        double tm = 0, rof = 0, wide = 0;
        snprintf(at, sizeof at, "%s: formation \"%s\"", where, key);
        if (p->nforms >= 6 || strlen(key) >= sizeof p->form_name[0] || !json_is_object(val)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: up to 6 formations, each an object", at);
            goto fail;
        }
        if ((st = rules_json_num(val, "target_modifier", at, -20, 20, &tm, err)) ||
            (st = rules_json_num(val, "rof_bonus", at, 0, 20, &rof, err)) ||
            (st = rules_json_num(val, "rof_min_wide", at, 0, 100, &wide, err)))
            goto fail;
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
            goto fail;
        p->form_defence_dice[f] = (int)fdd;
        p->form_attacker_colour[f] = -1;
        for (int c = 0; acol && c < p->ncolours; c++)
            if (!strcmp(p->colour[c], acol))
                p->form_attacker_colour[f] = c;
        if (acol && p->form_attacker_colour[f] < 0) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"attacker_colour\" \"%s\" is not one of to_hit.by_colour", at,
                            acol);
            goto fail;
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
                    goto fail;
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

    /* firing after moving: {"to_hit_modifier": -1, "drops_bonuses": true} */
    const json_t *am = json_object_get(j, "after_moving");
    if (am) {
        double mm = 0;
        snprintf(at, sizeof at, "%s: after_moving", where);
        if (!json_is_object(am)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"to_hit_modifier\": N, \"drops_bonuses\": B}", at);
            goto fail;
        }
        double rof = 0;
        if ((st = rules_json_num(am, "to_hit_modifier", at, -20, 20, &mm, err)) ||
            (st = rules_json_num(am, "rof", at, 0, 100, &rof, err)) ||
            (st = rules_json_bool(am, "only_at_rof", at, &p->moved_mod_only_rof, err)) ||
            (st = rules_json_bool(am, "drops_bonuses", at, &p->moved_drops_bonuses, err)))
            goto fail;
        if (p->moved_mod_only_rof && rof < 1) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"only_at_rof\" needs \"rof\", the dice a figure that moved rolls", at);
            goto fail;
        }
        p->has_after_moving = 1;
        p->moved_mod = (int)mm;
        p->moved_rof = (int)rof;
    }

    /* charges: {"factor": 2} or {"inches": {"foot": 4, ...}}, with src */
    const json_t *ch = json_object_get(j, "charge");
    if (ch) {
        snprintf(at, sizeof at, "%s: charge", where);
        const json_t *ci = json_object_get(ch, "inches");
        if (!json_is_object(ch) || (ci && !json_is_object(ci))) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"factor\": F} or {\"inches\": {\"TYPE\": N, ...}}", at);
            goto fail;
        }
        if ((st = rules_json_num(ch, "factor", at, 0, 100, &p->charge_factor, err)) ||
            (st = rules_json_cite(ch, at, &p->charge_src, err)) || (st = rules__charge_forms(p, ch, at, err)) ||
            (st = rules__type_list(rules_json_value(json_object_get(ch, "not_types")), at, "not_types", 4,
                                   p->charge_not, &p->ncharge_not, err)) ||
            (st = rules_json_cite(json_object_get(ch, "not_types"), at, &p->charge_not_src, err)) ||
            (st = rules_json_bool(ch, "straight_ahead", at, &p->charge_straight, err)) ||
            (st = rules_json_cite(json_object_get(ch, "straight_ahead"), at, &p->charge_straight_src, err)))
            goto fail;
        const char *cfrom = NULL;
        if ((st = rules_json_str(ch, "from", at, &cfrom, err)))
            goto fail;
        if (cfrom && strcmp(cfrom, "front-centre") && strcmp(cfrom, "figures")) {
            st = tt_err_set(err, TT_ERR_FORMAT,
                            "%s: \"from\" must be \"front-centre\" (a unit charges from its front-centre) or "
                            "\"figures\" (from its figure nearest the target)",
                            at);
            goto fail;
        }
        p->charge_from_front = cfrom && !strcmp(cfrom, "front-centre");
        if ((st = rules_json_cite(json_object_get(ch, "from"), at, &p->charge_from_src, err)))
            goto fail;
        json_object_foreach((json_t *)ci, key, val)
        {
            const json_t *v = rules_json_value(val);
            if (p->ncharge >= 8 || strlen(key) >= sizeof p->charge_type[0] || !json_is_number(v) ||
                json_number_value(v) < 0 || json_number_value(v) > RULES_MAX_IN) {
                st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"inches\" maps up to 8 figure types to inches", at);
                goto fail;
            }
            snprintf(p->charge_type[p->ncharge], sizeof p->charge_type[0], "%s", key);
            p->charge_in[p->ncharge++] = json_number_value(v);
        }
    }

    /* movement allowances */
    const json_t *mv = json_object_get(j, "movement");
    if (mv) {
        if (!json_is_object(mv)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"movement\" must map figure types to inches or dice", where);
            goto fail;
        }
        p->moves = calloc(json_object_size(mv) + 1, sizeof *p->moves);
        if (!p->moves) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            goto fail;
        }
        json_object_foreach((json_t *)mv, key, val)
        {
            rules_allowance *a = &p->moves[p->nmoves];
            if (!(a->type = strdup(key))) {
                st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
                goto fail;
            }
            p->nmoves++;
            a->difficult_factor = -1;
            const json_t *mvv = val;
            if (json_is_object(val)) { /* {"inches": N} or {"dice": "2d6"}, with its citation */
                char mat[300];
                snprintf(mat, sizeof mat, "%s: movement \"%s\"", where, key);
                if ((st = rules_json_cite(val, mat, &a->src, err)))
                    goto fail;
                if ((st = rules_json_bool(val, "any_direction", mat, &a->any_direction, err)) ||
                    (st = rules_json_num(val, "difficult_factor", mat, 0, 1, &a->difficult_factor, err)) ||
                    (st = rules_json_num(val, "difficult_cost_in", mat, 0, RULES_MAX_IN, &a->difficult_cost_in, err)) ||
                    (st = rules_json_cite(json_object_get(val, "difficult_cost_in"), mat, &a->difficult_src, err)) ||
                    (!a->difficult_src &&
                     (st = rules_json_cite(json_object_get(val, "difficult_factor"), mat, &a->difficult_src, err))) ||
                    (st = rules__move_extra(p, val, mat, a, err)))
                    goto fail;
                const json_t *in = json_object_get(val, "inches"), *dc = json_object_get(val, "dice");
                mvv = in ? in : dc ? dc : val;
                /* {"gaits": {"walk": {"inches": 7, "turn_in": 0}, "canter": {"inches": 12, "min_in": 7, ...}}} */
                const json_t *gs = json_object_get(val, "gaits");
                if (gs && (!json_is_object(gs) || json_object_size(gs) > 5)) {
                    st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"gaits\" must map up to 4 gaits to {\"inches\": N, "
                                    "\"min_in\": N, \"turn_in\": N}", mat);
                    goto fail;
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
                        goto fail;
                    }
                    a->gait_in[g] = -1;
                    if ((st = rules_json_num(gv, "inches", gat, 0, RULES_MAX_IN, &a->gait_in[g], err)) ||
                        (st = rules_json_num(gv, "min_in", gat, 0, RULES_MAX_IN, &a->gait_min_in[g], err)) ||
                        (st = rules_json_num(gv, "turn_in", gat, 0, RULES_MAX_IN, &a->gait_turn_in[g], err)))
                        goto fail;
                    if (a->gait_in[g] < 0 || a->gait_min_in[g] > a->gait_in[g]) {
                        st = tt_err_set(err, TT_ERR_FORMAT, "%s: give its \"inches\", at least its \"min_in\"", gat);
                        goto fail;
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
                    goto fail;
                }
            } else {
                st = tt_err_set(err, TT_ERR_FORMAT,
                                "%s: movement \"%s\" must be inches (a number), dice (a string like \"1d6+3\") or "
                                "{\"inches\" or \"dice\": ..., \"src\": ...}",
                                where, key);
                goto fail;
            }
        }
    }
    if ((st = rules__fbt_parse(p, json_object_get(j, "formation_by_type"), where, err)) ||
        (st = rules__fire_cites(p, j, where, err)))
        goto fail;
    *out = p;
    for (size_t i = 0; i < p->nkinds; i++) {
        snprintf(at, sizeof at, "%s: terrain \"%s\"", where, p->kinds[i].name);
        if ((st = rules_terrain_names_check(p, &p->kinds[i].props, at, err)))
            goto fail;
    }
    return TT_OK;
fail:
    rules_profile_destroy(p);
    return st;
}

void rules_profile_destroy(rules_profile *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nkinds; i++)
        free(p->kinds[i].name);
    for (size_t i = 0; i < p->nweapons; i++) {
        free(p->weapons[i].name);
        free(p->weapons[i].src);
        free(p->weapons[i].fire_src);
        free(p->weapons[i].grape_src);
        free(p->weapons[i].dev.src);
        free(p->weapons[i].dev_rule);
    }
    for (size_t i = 0; i < p->nmoves; i++) {
        free(p->moves[i].type);
        free(p->moves[i].dice);
        free(p->moves[i].src);
        free(p->moves[i].by_q_src);
        free(p->moves[i].by_w_src);
        free(p->moves[i].impassable_src);
        free(p->moves[i].difficult_src);
    }
    free(p->kinds);
    free(p->weapons);
    free(p->moves);
    free(p->charge_src);
    free(p->charge_not_src);
    free(p->charge_from_src), free(p->charge_straight_src);
    for (int k = 0; k < RULES_MC_N; k++)
        free(p->move_cite[k]);
    for (int k = 0; k < 6; k++)
        free(p->form_difficult_src[k]), free(p->form_inches_src[k]), free(p->form_not_target_src[k]);
    free(p->los_src), free(p->no_target_src);
    free(p->command_src);
    free(p->aspect_src);
    free(p->name);
    free(p);
}

const rules_weapon *rules_profile_weapon(const rules_profile *p, const char *name)
{
    for (size_t i = 0; i < p->nweapons; i++)
        if (!strcmp(p->weapons[i].name, name))
            return &p->weapons[i];
    return NULL;
}

const rules_terrain_kind *rules_profile_kind(const rules_profile *p, const char *name)
{
    for (size_t i = 0; i < p->nkinds; i++)
        if (!strcmp(p->kinds[i].name, name))
            return &p->kinds[i];
    return NULL;
}

void rules_profile_weapon_names(const rules_profile *p, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < p->nweapons && used + 1 < n; i++) {
        int k = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", p->weapons[i].name);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

int rules_type_in(const char (*names)[24], int n, const char *type)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(names[k], type))
            return 1;
    return 0;
}

/* A soldier: not of the defence roll's not_types (officers, ensigns). */
int rules_is_soldier(const rules_profile *p, const char *type)
{
    return !rules_type_in(p->defence_roll_not, p->ndefence_roll_not, type);
}

int rules_dice_parse(const char *d, int *n, int *s, int *k)
{
    int used = 0;
    *n = *s = *k = 0;
    if (!d || sscanf(d, "%dd%d%n", n, s, &used) != 2 || *n <= 0 || *s <= 0 || *n > 100 || *s > 1000 ||
        (d[used] && (sscanf(d + used, "+%d", k) != 1 || *k < 0 || *k > 1000)))
        return -1;
    return 0;
}
