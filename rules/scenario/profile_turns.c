/* profile_turns.c - a profile's turn structure ("turns") and the calls the
 * book makes from losses ("losses"), checked and kept as JSON for the
 * referee (see docs/rulesets.md, "Turns and phases", for the format). */
#include "rules_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_parse.h"
#include "rules_json.h"

#define RULES__MAX_PHASES 8
#define RULES__MAX_CALLS 8

/* Every section of these carries its citation: "src", or "house": true. */
static tt_status rules__cited(const json_t *o, const char *at, tt_err *err)
{
    if (json_is_string(json_object_get(o, "src")) || json_is_true(json_object_get(o, "house")))
        return TT_OK;
    return tt_err_set(err, TT_ERR_FORMAT, "%s: give its \"src\" (book file and line, e.g. \"thin-red-line.txt L216\") "
                                          "or mark it \"house\": true with a \"note\"", at);
}

/* A list of names (bare or {"value": [...], "src": ...}). */
static tt_status rules__names(const json_t *o, const char *key, const char *at, const char *what, tt_err *err)
{
    const json_t *v = rules_json_value(json_object_get(o, key));
    if (!json_object_get(o, key))
        return TT_OK;
    if (!json_is_array(v) || !json_array_size(v))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must list %s", at, key, what);
    for (size_t i = 0; i < json_array_size(v); i++)
        if (!json_is_string(json_array_get(v, i)) || !*json_string_value(json_array_get(v, i)))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must list %s (names)", at, key, what);
    return TT_OK;
}

/* "2d6", "1d6": dice to roll. */
static int rules__dice_ok(const char *s)
{
    int n = 0, d = 0, k = 0;
    return s && sscanf(s, "%dd%d%n", &n, &d, &k) == 2 && !s[k] && n >= 1 && n <= 10 && (d == 6 || d == 10 || d == 12);
}

static tt_status rules__phases_parse(const rules_profile *p, const json_t *t, const char *where, tt_err *err)
{
    char at[256];
    tt_status st;
    const json_t *ph = json_object_get(t, "phases");
    if (!json_is_array(ph) || !json_array_size(ph) || json_array_size(ph) > RULES__MAX_PHASES)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: turns: \"phases\" must list the turn's phases in the book's order "
                                              "(1 to %d), e.g. [{\"name\": \"movement\", \"sides\": \"each\", "
                                              "\"moves\": true, \"src\": \"book.txt L12\"}]",
                          where, RULES__MAX_PHASES);
    for (size_t i = 0; i < json_array_size(ph); i++) {
        const json_t *e = json_array_get(ph, i);
        const char *name = NULL, *sides = NULL;
        int b = 0;
        snprintf(at, sizeof at, "%s: turns: phase %zu", where, i + 1);
        if (!json_is_object(e))
            return tt_err_set(err, TT_ERR_FORMAT, "%s must be an object with its \"name\"", at);
        if ((st = rules_json_str(e, "name", at, &name, err)) || (st = rules_json_str(e, "sides", at, &sides, err)) ||
            (st = rules_json_bool(e, "moves", at, &b, err)) || (st = rules_json_bool(e, "charges", at, &b, err)))
            return st;
        if (!name || !*name || strlen(name) > 23)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"name\" must be the phase's name (1 to 23 characters)", at);
        snprintf(at, sizeof at, "%s: turns: phase \"%s\"", where, name);
        for (size_t k = 0; k < i; k++)
            if (!strcmp(json_string_value(json_object_get(json_array_get(ph, k), "name")), name))
                return tt_err_set(err, TT_ERR_FORMAT, "%s is named twice: each phase once", at);
        if (!sides || (strcmp(sides, "each") && strcmp(sides, "alternate") && strcmp(sides, "none")))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"sides\" must be \"each\" (each side in turn, the initiative "
                                                  "first), \"alternate\" (the sides take turns activating) or "
                                                  "\"none\" (both at once)", at);
        if (json_is_true(json_object_get(e, "charges")) && !json_is_true(json_object_get(e, "moves")))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: a phase where charges happen is one where figures move: "
                                                  "add \"moves\": true", at);
        if ((st = rules__cited(e, at, err)))
            return st;
    }
    snprintf(at, sizeof at, "%s: turns", where);
    int once = 0;
    if ((st = rules_json_bool(t, "one_move_a_turn", at, &once, err)) ||
        (st = rules__names(t, "immobile_formations", at, "formations of the ruleset", err)))
        return st;
    const json_t *imm = rules_json_value(json_object_get(t, "immobile_formations"));
    for (size_t i = 0; imm && i < json_array_size(imm); i++) {
        const char *f = json_string_value(json_array_get(imm, i));
        int known = 0;
        for (int k = 0; k < p->nforms; k++)
            known |= !strcmp(p->form_name[k], f);
        if (!known)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"immobile_formations\" names \"%s\", not a formation of the "
                                                  "ruleset (its \"formations\")", at, f);
    }
    return rules__cited(t, at, err);
}

/* A modifier of a called test: {"value": 1, "reason": "officer with unit",
 * and one condition: "with_type": T (a figure of type T left in the unit),
 * "unit": U (the unit is U), "below_half": true (fewer than half its
 * figures left) or "asked": true (the players say: the table cannot see)}. */
static tt_status rules__modifier_parse(const json_t *m, const char *at, tt_err *err)
{
    static const char *const conds[] = {"with_type", "unit", "below_half", "asked"};
    double v = 0;
    const char *reason = NULL;
    tt_status st;
    if (!json_is_object(m))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"value\": 1, \"reason\": \"...\", \"with_type\": T}", at);
    if ((st = rules_json_num(m, "value", at, -12, 12, &v, err)) || (st = rules_json_str(m, "reason", at, &reason, err)))
        return st;
    if (!json_is_integer(json_object_get(m, "value")) || !reason || !*reason || strlen(reason) > 95)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: needs a whole \"value\" (-12 to 12) and its \"reason\" (up to 95 "
                                              "characters)", at);
    int n = 0;
    for (size_t k = 0; k < sizeof conds / sizeof *conds; k++)
        n += json_object_get(m, conds[k]) != NULL;
    if (n != 1)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: give one condition: \"with_type\" (a figure type in the unit), "
                                              "\"unit\" (the unit's name), \"below_half\": true or \"asked\": true "
                                              "(the players say)", at);
    const json_t *wt = json_object_get(m, "with_type"), *u = json_object_get(m, "unit");
    if ((wt && !json_is_string(wt)) || (u && !json_is_string(u)) ||
        (json_object_get(m, "below_half") && !json_is_true(json_object_get(m, "below_half"))) ||
        (json_object_get(m, "asked") && !json_is_true(json_object_get(m, "asked"))))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"with_type\" and \"unit\" are names; \"below_half\" and "
                                              "\"asked\" are true", at);
    return TT_OK;
}

/* One call: when it is made ("after": a phase, or "activation": the end of
 * each side's phase or activation), what triggers it (exactly one of
 * "lost_at", "any_loss", "collapse_at") and what it says. */
static tt_status rules__call_parse(const json_t *c, const json_t *phases, const char *at, tt_err *err)
{
    tt_status st;
    const char *call = NULL, *after = NULL, *dice = NULL, *result = NULL;
    int b = 0;
    char sub[320];
    if (!json_is_object(c))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be an object: {\"call\": \"morale\", \"after\": PHASE, ...}", at);
    if ((st = rules_json_str(c, "call", at, &call, err)) || (st = rules_json_str(c, "after", at, &after, err)) ||
        (st = rules_json_str(c, "dice", at, &dice, err)) || (st = rules_json_str(c, "result", at, &result, err)) ||
        (st = rules_json_bool(c, "any_loss", at, &b, err)))
        return st;
    if (!call || !*call)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"call\" must name what is called (\"morale\", \"motivation\", "
                                              "\"resolve\", \"collapse\", \"glory\")", at);
    int known = after && !strcmp(after, "activation");
    for (size_t k = 0; after && k < json_array_size(phases); k++)
        known |= !strcmp(json_string_value(json_object_get(json_array_get(phases, k), "name")), after);
    if (!known) {
        char names[200] = "";
        for (size_t k = 0; k < json_array_size(phases); k++) {
            size_t l = strlen(names);
            snprintf(names + l, sizeof names - l, "%s\"%s\"", k ? ", " : "",
                     json_string_value(json_object_get(json_array_get(phases, k), "name")));
        }
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"after\" must name the phase whose end makes the call (%s) or "
                                              "\"activation\" (the end of each side's phase or activation)", at, names);
    }
    if (dice && !rules__dice_ok(dice))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"dice\" must be dice such as \"2d6\" or \"1d6\"", at);
    const json_t *la = json_object_get(c, "lost_at"), *nd = json_object_get(c, "needs"),
                 *ca = json_object_get(c, "collapse_at");
    int triggers = (la != NULL) + json_is_true(json_object_get(c, "any_loss")) + (ca != NULL);
    if (triggers != 1)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: give one trigger: \"lost_at\" (fractions of the unit lost), "
                                              "\"any_loss\": true or \"collapse_at\" (figures left, by type)", at);
    if (la) {
        int noted = json_is_string(json_object_get(c, "needs_note")) && !nd;
        if (!json_is_array(la) || !json_array_size(la) || json_array_size(la) > 4 ||
            (!noted && (!json_is_array(nd) || json_array_size(nd) != json_array_size(la))))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"lost_at\" lists up to 4 fractions of the unit lost, rising "
                                                  "(e.g. [0.25, 0.5]), and \"needs\" the score each test needs (or a \"needs_note\" saying what "
                                                  "it needs where the table cannot know)", at);
        double prev = 0;
        for (size_t k = 0; k < json_array_size(la); k++) {
            const json_t *f = json_array_get(la, k), *n = noted ? NULL : json_array_get(nd, k);
            if (!json_is_number(f) || json_number_value(f) <= prev || json_number_value(f) > 1 ||
                (!noted && (!json_is_integer(n) || json_integer_value(n) < 1 || json_integer_value(n) > 120)))
                return tt_err_set(err, TT_ERR_FORMAT, "%s: \"lost_at\" must rise within (0, 1] and each \"needs\" be "
                                                      "a whole score", at);
            prev = json_number_value(f);
        }
        const json_t *tn = json_object_get(c, "then_needs");
        if (tn && (!json_is_integer(tn) || json_integer_value(tn) < 1 || json_integer_value(tn) > 120))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"then_needs\" must be a whole score", at);
    } else if (nd && (!json_is_integer(nd) || json_integer_value(nd) < 1 || json_integer_value(nd) > 120)) {
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"needs\" must be a whole score", at);
    }
    if (ca) {
        const char *k;
        json_t *v;
        if (!json_is_object(ca) || !json_object_size(ca))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"collapse_at\" must map figure types to the figures left at "
                                                  "which the unit collapses, e.g. {\"foot\": 4}", at);
        json_object_foreach((json_t *)ca, k, v)
        {
            if (!strcmp(k, "src") || !strcmp(k, "note") || !strcmp(k, "house"))
                continue;
            if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 1000)
                return tt_err_set(err, TT_ERR_FORMAT, "%s: \"collapse_at\" \"%s\" must be a whole number of figures", at,
                                  k);
        }
        if (!result)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: a collapse needs its \"result\" (what happens to the unit)", at);
        if ((st = rules__names(c, "not_counted", at, "figure types", err)))
            return st;
    }
    const json_t *nb = json_object_get(c, "needs_by_rating");
    if (nb) {
        const char *k;
        json_t *v;
        if (!json_is_object(nb) || !json_object_size(nb))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"needs_by_rating\" must map ratings to scores", at);
        json_object_foreach((json_t *)nb, k, v)
        {
            if (!strcmp(k, "src") || !strcmp(k, "note") || !strcmp(k, "house"))
                continue;
            if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 120)
                return tt_err_set(err, TT_ERR_FORMAT, "%s: \"needs_by_rating\" \"%s\" must be a whole score", at, k);
        }
    }
    if ((nd || nb || json_object_get(c, "needs_note")) && !dice)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: a test needs its \"dice\" (e.g. \"2d6\")", at);
    const json_t *rs = json_object_get(c, "result_lost_since_turn");
    if (rs) {
        double f = 0;
        const char *r = NULL;
        snprintf(sub, sizeof sub, "%s: result_lost_since_turn", at);
        if (!json_is_object(rs) || (st = rules_json_num(rs, "fraction", sub, 0.01, 1, &f, err)) ||
            (st = rules_json_str(rs, "result", sub, &r, err)) || !f || !r)
            return st ? st : tt_err_set(err, TT_ERR_FORMAT, "%s must be {\"fraction\": 0.5, \"result\": \"...\"}", sub);
    }
    const json_t *mods = json_object_get(c, "modifiers");
    if (mods && (!json_is_array(mods) || json_array_size(mods) > RULES_MAX_MODIFIERS))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"modifiers\" must list up to %d modifiers", at, RULES_MAX_MODIFIERS);
    for (size_t k = 0; mods && k < json_array_size(mods); k++) {
        snprintf(sub, sizeof sub, "%s: modifier %zu", at, k + 1);
        if ((st = rules__modifier_parse(json_array_get(mods, k), sub, err)))
            return st;
    }
    return rules__cited(c, at, err);
}

tt_status rules__turns_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err)
{
    tt_status st;
    char at[256];
    const json_t *t = json_object_get(j, "turns"), *l = json_object_get(j, "losses");
    if (!t && l)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"losses\" needs \"turns\" (the phases its calls follow)", where);
    if (!t)
        return TT_OK;
    if (!json_is_object(t))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"turns\" must be an object with the turn's \"phases\"", where);
    if ((st = rules__phases_parse(p, t, where, err)))
        return st;
    if (l && (!json_is_array(l) || json_array_size(l) > RULES__MAX_CALLS))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"losses\" must list up to %d calls the book makes from losses",
                          where, RULES__MAX_CALLS);
    for (size_t i = 0; l && i < json_array_size(l); i++) {
        snprintf(at, sizeof at, "%s: losses: call %zu", where, i + 1);
        if ((st = rules__call_parse(json_array_get(l, i), json_object_get(t, "phases"), at, err)))
            return st;
    }
    if (!(p->turns = json_deep_copy(t)) || (l && !(p->losses = json_deep_copy(l))))
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    return TT_OK;
}

const json_t *rules_scenario_turns(const rules_scenario *sc) { return sc ? sc->prof->turns : NULL; }
const json_t *rules_scenario_losses(const rules_scenario *sc) { return sc ? sc->prof->losses : NULL; }
