/* query.c - JSON queries of the contract -> the query functions -> JSON
 * answers.  Every bad query becomes an error status with a message; the
 * line-based entry point turns it into {"error": "..."}. */
#include "rules_questions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tt_json.h"

static tt_status rules__str(const json_t *q, const char *key, int required, const char **out, tt_err *err)
{
    const json_t *v = json_object_get(q, key);
    *out = NULL;
    if (!v || json_is_null(v)) {
        if (required)
            return tt_err_set(err, TT_ERR_ARG, "missing \"%s\" (a figure id)", key);
        return TT_OK;
    }
    if (!json_is_string(v))
        return tt_err_set(err, TT_ERR_ARG, "\"%s\" must be a string (a figure id)", key);
    *out = json_string_value(v);
    return TT_OK;
}

static tt_status rules__xy(const json_t *q, const char *key, rules_point *p, tt_err *err)
{
    const json_t *v = json_object_get(q, key);
    if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_number(json_array_get(v, 0)) ||
        !json_is_number(json_array_get(v, 1)))
        return tt_err_set(err, TT_ERR_ARG, "\"%s\" must be a point [x, y] in inches", key);
    p->x = json_number_value(json_array_get(v, 0));
    p->y = json_number_value(json_array_get(v, 1));
    if (!isfinite(p->x) || !isfinite(p->y))
        return tt_err_set(err, TT_ERR_ARG, "\"%s\" must be finite", key);
    return TT_OK;
}

/* The "dice" of a deviate query: whole numbers under the known names. */
static tt_status rules__dev_dice(const json_t *o, rules_dev_dice *d, tt_err *err)
{
    static const char *const names[] = {"long_short", "left_right", "long_short_in", "left_right_in",
                                        "clock",      "distance",   "explodes"};
    int *slot[] = {&d->long_short, &d->left_right, &d->long_short_in, &d->left_right_in,
                   &d->clock,      &d->distance,   &d->explodes};
    const char *key;
    const json_t *v;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        *slot[k] = RULES_NULL;
    d->critical = 0;
    if (!o)
        return TT_OK; /* the weapon says which dice it needs */
    if (!json_is_object(o))
        return tt_err_set(err, TT_ERR_ARG, "\"dice\" must be an object such as {\"clock\": 3, \"distance\": 4}");
    json_object_foreach((json_t *)o, key, v)
    {
        size_t k = 0;
        while (k < sizeof names / sizeof *names && strcmp(names[k], key))
            k++;
        if (k == sizeof names / sizeof *names)
            return tt_err_set(err, TT_ERR_ARG, "unknown dice \"%s\" (%s)", key,
                              "long_short, left_right, long_short_in, left_right_in, clock, distance, explodes");
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 1000)
            return tt_err_set(err, TT_ERR_ARG, "\"%s\" must be the whole number the dice showed", key);
        *slot[k] = (int)json_integer_value(v);
    }
    return TT_OK;
}

const rules_query_opts rules_no_opts = {0};

/* A true/false field of the query (`key`, which means `means`) into *out:
 * not a boolean is an error; so is giving it (any value, or only true when
 * only_true) in a ruleset without the rule (has_rule 0), which has no
 * `no_rule` (" ruleset X has no ...: leave out KEY"). */
static tt_status rules__flag(const rules_scenario *sc, const json_t *q, const char *key, const char *means, int has_rule,
                             int only_true, const char *no_rule, int *out, tt_err *err)
{
    const json_t *v = json_object_get(q, key);
    *out = 0;
    if (!v)
        return TT_OK;
    if (!json_is_boolean(v))
        return tt_err_set(err, TT_ERR_ARG, "\"%s\" must be true or false (%s)", key, means);
    if (!has_rule && (!only_true || json_is_true(v)))
        return tt_err_set(err, TT_ERR_ARG, "ruleset %s has no %s: leave out \"%s\"", sc->prof->name, no_rule, key);
    *out = json_is_true(v);
    return TT_OK;
}

/* "target_revealed": the target has given away where it hides (it fired,
 * or was located), so terrain that hides it until then does not: only
 * where the ruleset's terrain hides troops that way. */
static tt_status rules__revealed(const rules_scenario *sc, const json_t *q, rules_query_opts *o, tt_err *err)
{
    int any = 0;
    for (size_t k = 0; k < sc->prof->nkinds && !any; k++)
        any = sc->prof->kinds[k].props.revealable;
    for (size_t k = 0; k < sc->npieces && !any; k++)
        any = sc->pieces[k].p.revealable;
    return rules__flag(sc, q, "target_revealed", "the target fired, or was located, this turn", any, 0,
                       "terrain that hides troops until they are revealed", &o->target_revealed, err);
}

/* "target_charging": the target is charging (as a cluster), where the
 * ruleset has a modifier for it. */
static tt_status rules__charging(const rules_scenario *sc, const json_t *q, rules_query_opts *o, tt_err *err)
{
    return rules__flag(sc, q, "target_charging", "the target is charging", sc->prof->has_charging, 0,
                       "modifier for a charging target", &o->target_charging, err);
}

/* "moved" (fire, grape): the firer moved before firing this turn. */
static tt_status rules__moved(const rules_scenario *sc, const json_t *q, rules_query_opts *o, tt_err *err)
{
    return rules__flag(sc, q, "moved", "the firer moved this turn", sc->prof->has_after_moving, 1,
                       "rule for firing after moving", &o->moved, err);
}

/* "weapon" (fire, blast, deviate): a weapon's name, or NULL when absent. */
static tt_status rules__weapon(const json_t *q, const char **out, tt_err *err)
{
    const json_t *w = json_object_get(q, "weapon");
    *out = NULL;
    if (w && !json_is_string(w))
        return tt_err_set(err, TT_ERR_ARG, "\"weapon\" must be a weapon name");
    *out = w ? json_string_value(w) : NULL;
    return TT_OK;
}

/* ---- one reader a kind: the query's fields, then the question ---- */

static tt_status rules__ask_los(rules_scenario *sc, const json_t *q, rules_result *out, tt_err *err)
{
    const char *from, *to;
    rules_query_opts o = {0};
    tt_status st;
    if ((st = rules__str(q, "from", 1, &from, err)) || (st = rules__str(q, "to", 1, &to, err)) ||
        (st = rules__revealed(sc, q, &o, err)))
        return st;
    return rules_ask_los(sc, &o, from, to, out, err);
}

static tt_status rules__ask_fire(rules_scenario *sc, const json_t *q, rules_result *out, tt_err *err)
{
    const char *from, *to, *weapon;
    rules_query_opts o = {0};
    tt_status st;
    if ((st = rules__str(q, "from", 1, &from, err)) || (st = rules__str(q, "to", 1, &to, err)) ||
        (st = rules__weapon(q, &weapon, err)) || (st = rules__moved(sc, q, &o, err)) ||
        (st = rules__revealed(sc, q, &o, err)) || (st = rules__charging(sc, q, &o, err)))
        return st;
    return rules_ask_fire(sc, &o, from, to, weapon, out, err);
}

static tt_status rules__ask_grape(rules_scenario *sc, const json_t *q, rules_result *out, tt_err *err)
{
    const char *from;
    rules_query_opts o = {0};
    tt_status st;
    if ((st = rules__str(q, "from", 1, &from, err)) || (st = rules__moved(sc, q, &o, err)))
        return st;
    return rules_ask_grape(sc, &o, from, out, err);
}

static tt_status rules__ask_ball(rules_scenario *sc, const json_t *q, rules_result *out, tt_err *err)
{
    const char *from;
    rules_point at;
    tt_status st;
    if ((st = rules__str(q, "from", 1, &from, err)))
        return st;
    const json_t *tv = json_object_get(q, "to");
    if (tv && json_is_string(tv))
        return rules_ball(sc, from, json_string_value(tv), NULL, out, err);
    if (json_object_get(q, "at")) {
        if ((st = rules__xy(q, "at", &at, err)))
            return st;
        return rules_ball(sc, from, NULL, &at, out, err);
    }
    if (tv && json_is_array(tv)) {
        if ((st = rules__xy(q, "to", &at, err)))
            return st;
        return rules_ball(sc, from, NULL, &at, out, err);
    }
    return tt_err_set(err, TT_ERR_ARG, "give \"to\" (a figure id) or \"at\" ([x, y]) for the ball");
}

static tt_status rules__ask_blast(rules_scenario *sc, const json_t *q, rules_result *out, tt_err *err)
{
    rules_point at;
    double radius = 0;
    const char *weapon;
    tt_status st;
    if ((st = rules__xy(q, "at", &at, err)))
        return st;
    const json_t *rv = json_object_get(q, "radius_in");
    if (rv) {
        if (!json_is_number(rv) || !(json_number_value(rv) > 0))
            return tt_err_set(err, TT_ERR_ARG, "\"radius_in\" must be a number of inches > 0");
        radius = json_number_value(rv);
    }
    if ((st = rules__weapon(q, &weapon, err)))
        return st;
    return rules_blast(sc, at, radius, weapon, out, err);
}

static tt_status rules__ask_command(rules_scenario *sc, const json_t *q, rules_result *out, tt_err *err)
{
    const char *from;
    tt_status st;
    if ((st = rules__str(q, "from", 1, &from, err)))
        return st;
    return rules_command(sc, from, out, err);
}

static tt_status rules__ask_aspect(rules_scenario *sc, const json_t *q, rules_result *out, tt_err *err)
{
    const char *from, *to;
    tt_status st;
    if ((st = rules__str(q, "from", 1, &from, err)) || (st = rules__str(q, "to", 1, &to, err)))
        return st;
    return rules_aspect(sc, from, to, out, err);
}

static tt_status rules__ask_visibility(rules_scenario *sc, const json_t *q, rules_result *out, tt_err *err)
{
    const char *from;
    tt_status st;
    if ((st = rules__str(q, "from", 1, &from, err)))
        return st;
    return rules_visibility(sc, from, out, err);
}

/* The fields move and charge share: "roll" (into *roll, -1 when absent)
 * and "facing_deg" (into o). */
static tt_status rules__move_fields(const rules_scenario *sc, const json_t *q, int *roll, rules_query_opts *o,
                                   tt_err *err)
{
    const json_t *rv = json_object_get(q, "roll");
    *roll = -1;
    if (rv) {
        if (!json_is_integer(rv) || json_integer_value(rv) < 0 || json_integer_value(rv) > 1000)
            return tt_err_set(err, TT_ERR_ARG, "\"roll\" must be the whole number the movement dice showed");
        *roll = (int)json_integer_value(rv);
    }
    /* "facing_deg": where the mover faces at the end of its move */
    const json_t *fv = json_object_get(q, "facing_deg");
    if (fv && (!json_is_number(fv) || !(fabs(json_number_value(fv)) <= 1e6)))
        return tt_err_set(err, TT_ERR_ARG, "\"facing_deg\" must be the facing at the end of the move, in degrees");
    if (fv && !(sc->prof->free_turn_deg > 0 && sc->prof->not_forward_factor > 0))
        return tt_err_set(err, TT_ERR_ARG, "ruleset %s has no rule for the facing at the end of a move: leave out "
                                           "\"facing_deg\"",
                          sc->prof->name);
    o->has_facing = fv != NULL;
    o->facing_deg = fv ? json_number_value(fv) : 0;
    return TT_OK;
}

/* "gait": a mount's walk, canter or gallop (checked against the mover's
 * type); a charge takes none. */
static tt_status rules__gait(const json_t *q, int charge, rules_query_opts *o, tt_err *err)
{
    const json_t *gv = json_object_get(q, "gait");
    if (gv && (!json_is_string(gv) || charge))
        return tt_err_set(err, TT_ERR_ARG, charge ? "a charge takes no \"gait\"" : "\"gait\" must be a gait's name");
    o->gait = gv ? json_string_value(gv) : NULL;
    return TT_OK;
}

static tt_status rules__ask_move(rules_scenario *sc, const json_t *q, rules_result *out, tt_err *err)
{
    const char *from;
    rules_point to;
    int roll;
    rules_query_opts o = {0};
    tt_status st;
    if ((st = rules__str(q, "from", 1, &from, err)) || (st = rules__xy(q, "to", &to, err)) ||
        (st = rules__move_fields(sc, q, &roll, &o, err)) || (st = rules__gait(q, 0, &o, err)))
        return st;
    return rules_ask_move(sc, &o, from, to, roll, out, err);
}

static tt_status rules__ask_charge(rules_scenario *sc, const json_t *q, rules_result *out, tt_err *err)
{
    const char *from, *to;
    int roll;
    rules_query_opts o = {0};
    tt_status st;
    if ((st = rules__str(q, "from", 1, &from, err)) || (st = rules__str(q, "to", 1, &to, err)) ||
        (st = rules__move_fields(sc, q, &roll, &o, err)) || (st = rules__gait(q, 1, &o, err)))
        return st;
    return rules_ask_charge(sc, &o, from, to, roll, out, err);
}

static tt_status rules__ask_deviate(rules_scenario *sc, const json_t *q, rules_result *out, tt_err *err)
{
    const char *from, *weapon;
    rules_point at;
    rules_dev_dice d;
    tt_status st;
    if ((st = rules__str(q, "from", 1, &from, err)) || (st = rules__xy(q, "at", &at, err)) ||
        (st = rules__dev_dice(json_object_get(q, "dice"), &d, err)) || (st = rules__weapon(q, &weapon, err)))
        return st;
    const json_t *cv = json_object_get(q, "critical");
    if (cv && !json_is_boolean(cv))
        return tt_err_set(err, TT_ERR_ARG, "\"critical\" must be true or false (a critical miss)");
    d.critical = cv && json_is_true(cv);
    const json_t *av = json_object_get(q, "ammo");
    if (av && !json_is_string(av))
        return tt_err_set(err, TT_ERR_ARG, "\"ammo\" must be the name of a kind of ammunition, such as \"shell\"");
    d.ammo = av ? json_string_value(av) : NULL;
    return rules_deviate(sc, from, weapon, at, &d, out, err);
}

/* ---- the kinds: rules.h's RULES_QUERY_KINDS, each with its reader ---- */

typedef struct rules__kind {
    const char *name; /* the query's "q" */
    tt_status (*ask)(rules_scenario *sc, const json_t *q, rules_result *out, tt_err *err);
} rules__kind;

static const rules__kind rules__kinds[] = {
#define RULES__KIND_ROW(KIND, name, help) {#name, rules__ask_##name},
    RULES_QUERY_KINDS(RULES__KIND_ROW)
#undef RULES__KIND_ROW
};

/* Every kind's name, for messages: "los, fire, ..., charge" (from
 * rules__kind_names + 2). */
#define RULES__KIND_NAME(KIND, name, help) ", " #name
static const char rules__kind_names[] = RULES_QUERY_KINDS(RULES__KIND_NAME);
#undef RULES__KIND_NAME

tt_status rules_query(rules_scenario *sc, const json_t *q, rules_result *out, tt_err *err)
{
    memset(out, 0, sizeof *out);
    if (!sc)
        return tt_err_set(err, TT_ERR_ARG, "no scenario loaded");
    if (!json_is_object(q))
        return tt_err_set(err, TT_ERR_ARG, "a query must be a JSON object like {\"q\":\"los\",\"from\":\"A\",\"to\":\"B\"}");
    const json_t *qv = json_object_get(q, "q");
    if (!json_is_string(qv))
        return tt_err_set(err, TT_ERR_ARG, "missing \"q\" (%s)", rules__kind_names + 2);
    const char *k = json_string_value(qv);
    const rules__kind *kind = NULL;
    for (size_t m = 0; m < sizeof rules__kinds / sizeof *rules__kinds && !kind; m++)
        if (!strcmp(k, rules__kinds[m].name))
            kind = &rules__kinds[m];
    if (!kind)
        return tt_err_set(err, TT_ERR_ARG, "unknown query \"%s\" (%s)", k, rules__kind_names + 2);
    tt_status st = kind->ask(sc, q, out, err);
    if (st)
        rules_result_free(out);
    else if (!out->rule) /* the answers with no weapon or allowance cite the profile's section */
        out->rule = out->kind == RULES_Q_COMMAND  ? sc->prof->command_src
                    : out->kind == RULES_Q_ASPECT ? sc->prof->aspect_src
                    : out->kind == RULES_Q_LOS || out->kind == RULES_Q_VISIBILITY ? sc->prof->los_src
                                                                                   : NULL;
    return st;
}

tt_status rules_query_json(rules_scenario *sc, const json_t *q, json_t **answer, tt_err *err)
{
    rules_result r;
    tt_status st;
    *answer = NULL;
    if ((st = rules_query(sc, q, &r, err))) {
        rules_tie_refusal(sc, q, err); /* tie.c: refused, but could be allowed within the errors? */
        return st;
    }
    *answer = rules_result_to_json(&r);
    st = *answer ? rules_tie_annotate(sc, q, &r, *answer, err) : TT_OK; /* tie.c: how sure it is */
    rules_result_free(&r);
    if (!*answer)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if (st) {
        json_decref(*answer);
        *answer = NULL;
    }
    return st;
}

char *rules_query_line(rules_scenario *sc, const char *line)
{
    json_t *q = NULL, *a = NULL;
    tt_err err = {0};
    char *s;
    if (tt_json_parse(line, "query", &q, &err) == TT_OK)
        rules_query_json(sc, q, &a, &err);
    json_decref(q);
    if (!a) {
        a = json_pack("{ss}", "error", err.msg[0] ? err.msg : "out of memory");
        if (!a)
            return NULL;
    }
    s = json_dumps(a, TT_JSON_ANSWER_FLAGS);
    json_decref(a);
    return s;
}
