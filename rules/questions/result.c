/* result.c - query results: id lists and the JSON of the query contract. */
#include "rules_questions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void rules_result_free(rules_result *r)
{
    if (!r)
        return;
    free((void *)r->ids);
    free((void *)r->fig_in);
    free((void *)r->fig_out);
    free((void *)r->firers);
    free((void *)r->shot_to);
    free((void *)r->shot_bracket);
    free(r->shot_hit);
    free(r->polygon);
    free(r->rule_owned);
    memset(r, 0, sizeof *r);
}

tt_status rules_result_add_id(rules_result *r, const char *id, size_t *cap, tt_err *err)
{
    for (size_t i = 0; i < r->n_ids; i++)
        if (!strcmp(r->ids[i], id))
            return TT_OK; /* lists hold each id once */
    if (r->n_ids == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        const char **ni = realloc((void *)r->ids, nc * sizeof *ni);
        if (!ni)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        r->ids = ni;
        *cap = nc;
    }
    r->ids[r->n_ids++] = id;
    return TT_OK;
}

tt_status rules_result_set_rule(rules_result *r, const char *text, tt_err *err)
{
    char *t = strdup(text);
    if (!t)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    free(r->rule_owned);
    r->rule = r->rule_owned = t;
    return TT_OK;
}

static int rules__cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void rules_result_sort_ids(rules_result *r)
{
    if (r->n_ids > 1)
        qsort((void *)r->ids, r->n_ids, sizeof *r->ids, rules__cmp_str);
}

const char *rules_cover_name(rules_cover c)
{
    return c == RULES_COVER_HARD ? "hard" : c == RULES_COVER_SOFT ? "soft" : "none";
}

static json_t *rules__round(double v, double scale) { return json_real(round(v * scale) / scale); }

static json_t *rules__strs(const char *const *ids, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string(ids[i]))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *rules__ids(const rules_result *r) { return rules__strs(r->ids, r->n_ids); }

/* [{"value": -1, "reason": "..."}, ...]; NULL when out of memory */
static json_t *rules__mods(const rules_modifier *m, int n)
{
    json_t *a = json_array();
    for (int k = 0; a && k < n; k++)
        if (json_array_append_new(a, json_pack("{s:i,s:s}", "value", m[k].value, "reason", m[k].reason))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *rules__int_or_null(int v) { return v == RULES_NULL ? json_null() : json_integer(v); }

json_t *rules_result_to_json(const rules_result *r)
{
    json_t *o = json_object(), *v;
    if (!o)
        return NULL;
    int bad = 0;
    switch (r->kind) {
    case RULES_Q_LOS:
        bad |= json_object_set_new(o, "visible", json_boolean(r->visible));
        bad |= json_object_set_new(o, "blocked_by", r->blocked_by ? json_string(r->blocked_by) : json_null());
        break;
    case RULES_Q_FIRE:
        bad |= json_object_set_new(o, "distance_in", rules__round(r->distance_in, 100));
        bad |= json_object_set_new(o, "bracket", json_string(r->bracket));
        bad |= json_object_set_new(o, "visible", json_boolean(r->visible));
        bad |= json_object_set_new(o, "cover", json_string(r->cover));
        bad |= json_object_set_new(o, "to_hit", r->to_hit == RULES_NULL ? json_null() : json_integer(r->to_hit));
        bad |= json_object_set_new(o, "die", json_string(r->die ? r->die : "d6"));
        bad |= json_object_set_new(o, "dice", r->dice >= 0 && (r->dice > 0 || r->unit) ? json_integer(r->dice) : json_null());
        if (r->blocked_by) /* a friend the weapon cannot fire over */
            bad |= json_object_set_new(o, "blocked_by", json_string(r->blocked_by));
        if (r->unit) {
            v = json_array();
            bad |= !v;
            for (size_t k = 0; v && k < r->n_firers; k++)
                bad |= json_array_append_new(v, json_string(r->firers[k]));
            bad |= json_object_set_new(o, "firers", v);
            v = rules__ids(r);
            bad |= !v;
            bad |= json_object_set_new(o, "targets", v);
            v = json_array();
            bad |= !v;
            for (size_t k = 0; v && k < r->n_firers; k++)
                bad |= json_array_append_new(v, json_pack("{s:s,s:s,s:s}", "from", r->firers[k], "to", r->shot_to[k],
                                                          "bracket", r->shot_bracket[k]));
            bad |= json_object_set_new(o, "shots", v);
        }
        bad |= json_object_set_new(o, "modifiers", rules__mods(r->modifiers, r->n_modifiers));
        if (r->has_defence_dice) {
            bad |= json_object_set_new(o, "bonus_dice", rules__mods(r->bonus_dice, r->n_bonus_dice));
            bad |= json_object_set_new(o, "defence_dice", rules__mods(r->defence_dice, r->n_defence_dice));
            bad |= json_object_set_new(o, "defender_dice", rules__int_or_null(r->defender_dice));
            bad |= json_object_set_new(o, "defender_to_hit", rules__int_or_null(r->defender_to_hit));
        }
        break;
    case RULES_Q_GRAPE:
    case RULES_Q_BALL:
    case RULES_Q_BLAST:
    case RULES_Q_COMMAND:
        v = rules__ids(r);
        bad |= !v;
        if (r->kind == RULES_Q_GRAPE && (r->to_hit > 0 || r->blocked_by)) /* where the book gives grape its own score */
            bad |= json_object_set_new(o, "to_hit", r->to_hit > 0 ? json_integer(r->to_hit) : json_null());
        if (r->kind == RULES_Q_BLAST && r->to_hit > 0) /* a weapon's blast that kills on a roll */
            bad |= json_object_set_new(o, "to_hit", json_integer(r->to_hit));
        if (r->kind == RULES_Q_GRAPE && r->blocked_by)
            bad |= json_object_set_new(o, "blocked_by", json_string(r->blocked_by));
        if (r->kind == RULES_Q_GRAPE && r->dice > 0)
            bad |= json_object_set_new(o, "dice", json_integer(r->dice));
        if (r->kind == RULES_Q_BALL || r->n_shots) { /* the roll on each figure touched (ball) or hit (grape) */
            json_t *sh = json_array();
            bad |= !sh;
            for (size_t k = 0; sh && k < r->n_shots; k++)
                bad |= json_array_append_new(sh, r->shot_bracket
                                                     ? json_pack("{s:s,s:s,s:o}", "to", r->shot_to[k], "bracket",
                                                                 r->shot_bracket[k], "to_hit",
                                                                 rules__int_or_null(r->shot_hit[k]))
                                                     : json_pack("{s:s,s:o}", "to", r->shot_to[k], "to_hit",
                                                                 rules__int_or_null(r->shot_hit[k])));
            bad |= json_object_set_new(o, "shots", sh);
        }
        bad |= json_object_set_new(o,
                                   r->kind == RULES_Q_GRAPE  ? "targets"
                                   : r->kind == RULES_Q_BALL ? "touched"
                                   : r->kind == RULES_Q_BLAST ? "hit"
                                                              : "units",
                                   v);
        if (r->kind == RULES_Q_COMMAND && r->per_figure) { /* each figure within or beyond the radius */
            bad |= json_object_set_new(o, "figures_in", rules__strs(r->fig_in, r->n_fig_in));
            bad |= json_object_set_new(o, "figures_out", rules__strs(r->fig_out, r->n_fig_out));
        }
        break;
    case RULES_Q_ASPECT:
        bad |= json_object_set_new(o, "aspect", json_string(r->aspect));
        break;
    case RULES_Q_VISIBILITY:
        v = json_array();
        bad |= !v;
        for (size_t i = 0; v && i < r->n_polygon; i++)
            bad |= json_array_append_new(v, json_pack("[oo]", rules__round(r->polygon[i].x, 1e4),
                                                      rules__round(r->polygon[i].y, 1e4)));
        bad |= json_object_set_new(o, "polygon", v);
        break;
    case RULES_Q_DEVIATE:
        bad |= json_object_set_new(o, "impact",
                                   json_pack("[oo]", rules__round(r->centre.x, 100), rules__round(r->centre.y, 100)));
        v = rules__ids(r);
        bad |= !v;
        bad |= json_object_set_new(o, "hit", v);
        bad |= json_object_set_new(o, "went_off", json_boolean(r->ok));
        if (r->radius_in > 0) /* the blast's radius, where it went off */
            bad |= json_object_set_new(o, "radius_in", rules__round(r->radius_in, 100));
        if (r->radius_in > 0 && r->to_hit > 0) /* the score that kills each figure in it, where the book gives one */
            bad |= json_object_set_new(o, "to_hit", json_integer(r->to_hit));
        if (r->ammo) /* the kind of ammunition fired, where the weapon has several */
            bad |= json_object_set_new(o, "ammo", json_string(r->ammo));
        break;
    case RULES_Q_MOVE:
    case RULES_Q_CHARGE:
        if (r->kind == RULES_Q_CHARGE) {
            bad |= json_object_set_new(o, "charger", json_string(r->charger));
            bad |= json_object_set_new(o, "target", json_string(r->target));
            /* the charge's path, for drawing: from the charger's centre (a
             * unit's front-centre) to where it meets the target */
            bad |= json_object_set_new(o, "path",
                                       json_pack("[[oo][oo]]", rules__round(r->line[0].x, 100),
                                                 rules__round(r->line[0].y, 100), rules__round(r->line[1].x, 100),
                                                 rules__round(r->line[1].y, 100)));
        }
        bad |= json_object_set_new(o, "distance_in", rules__round(r->distance_in, 100));
        bad |= json_object_set_new(o, "allowed_in",
                                   r->allowed_known ? rules__round(r->allowed_in, 100) : json_null());
        bad |= json_object_set_new(o, "ok", r->ok == RULES_NULL ? json_null() : json_boolean(r->ok));
        if (r->has_min)
            bad |= json_object_set_new(o, "min_in", rules__round(r->min_in, 100));
        if (r->has_allowed_range)
            bad |= json_object_set_new(o, "allowed_range_in",
                                       json_pack("[oo]", rules__round(r->allowed_range_in[0], 100),
                                                 rules__round(r->allowed_range_in[1], 100)));
        v = rules__ids(r);
        bad |= !v;
        bad |= json_object_set_new(o, "crossed", v);
        if (r->kind == RULES_Q_CHARGE && r->has_defence_dice) { /* the melee it starts */
            bad |= json_object_set_new(o, "dice", rules__int_or_null(r->dice));
            bad |= json_object_set_new(o, "to_hit", rules__int_or_null(r->to_hit));
            bad |= json_object_set_new(o, "bonus_dice", rules__mods(r->bonus_dice, r->n_bonus_dice));
            bad |= json_object_set_new(o, "defence_dice", rules__mods(r->defence_dice, r->n_defence_dice));
            bad |= json_object_set_new(o, "defender_dice", rules__int_or_null(r->defender_dice));
            bad |= json_object_set_new(o, "defender_to_hit", rules__int_or_null(r->defender_to_hit));
        }
        break;
    }
    if (r->rule)
        bad |= json_object_set_new(o, "rule", json_string(r->rule));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
