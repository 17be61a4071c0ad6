/* referee_calls.c - casualties counted when a side's phase or activation
 * ends, and the tests and results the book calls from them (the profile's
 * "losses"), with the book's numbers. */
#include "referee_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void referee__turn_start(referee *r)
{
    for (size_t u = 0; u < r->nunits; u++) {
        r->units[u].lost_turn = 0;
        r->units[u].alive_turn_start = r->units[u].of - r->units[u].lost_total;
    }
}

/* Whether unit u has a figure of type t left on the table. */
static int referee__unit_has(const referee *r, size_t u, const char *t)
{
    for (size_t i = 0; i < r->nfigs; i++)
        if (r->figs[i].unit_ix == (int)u && !r->figs[i].dead && r->figs[i].type && !strcmp(r->figs[i].type, t))
            return 1;
    return 0;
}

/* name is one of the list (bare or {"value": [...]}). */
static int referee__listed(const json_t *list, const char *name)
{
    const json_t *v = referee__value(list);
    for (size_t k = 0; name && k < json_array_size(v); k++)
        if (!strcmp(json_string_value(json_array_get(v, k)), name))
            return 1;
    return 0;
}

/* The test a call makes of unit u (needs: the score, or -1 for none). */
static json_t *referee__test(const referee *r, size_t u, const json_t *call, int needs)
{
    const referee__unit *un = &r->units[u];
    json_t *t = json_object(), *mods = json_array(), *asked = json_array();
    if (!t || !mods || !asked)
        goto fail;
    json_object_set_new(t, "dice", json_string(json_string_value(json_object_get(call, "dice"))));
    json_object_set_new(t, "needs", needs > 0 ? json_integer(needs) : json_null());
    const json_t *nb = json_object_get(call, "needs_by_rating");
    if (nb) {
        json_t *copy = json_deep_copy(nb);
        if (copy)
            json_object_del(copy, "src"), json_object_del(copy, "note"), json_object_del(copy, "house");
        json_object_set_new(t, "needs_by_rating", copy);
    }
    if (json_object_get(call, "needs_note"))
        json_object_set(t, "needs_note", json_object_get(call, "needs_note"));
    const json_t *ms = json_object_get(call, "modifiers");
    for (size_t k = 0; k < json_array_size(ms); k++) {
        const json_t *m = json_array_get(ms, k);
        const char *wt = json_string_value(json_object_get(m, "with_type"));
        const char *un_name = json_string_value(json_object_get(m, "unit"));
        int applies = (wt && referee__unit_has(r, u, wt)) || (un_name && !strcmp(un_name, un->name)) ||
                      (json_is_true(json_object_get(m, "below_half")) && 2 * (un->of - un->lost_total) < un->of);
        json_t *o = json_pack("{s:I, s:s}", "value", json_integer_value(json_object_get(m, "value")), "reason",
                              json_string_value(json_object_get(m, "reason")));
        if (!o)
            goto fail;
        if (applies)
            json_array_append_new(mods, o);
        else if (json_is_true(json_object_get(m, "asked")))
            json_array_append_new(asked, o);
        else
            json_decref(o);
    }
    json_object_set_new(t, "modifiers", mods);
    if (json_array_size(asked))
        json_object_set_new(t, "ask", asked); /* the players say whether these apply */
    else
        json_decref(asked);
    return t;
fail:
    json_decref(t), json_decref(mods), json_decref(asked);
    return NULL;
}

static tt_status referee__call_event(json_t *events, const referee__unit *un, const json_t *call, json_t *test,
                                     const char *result, tt_err *err)
{
    json_t *ev = json_object();
    if (!ev || json_object_set_new(ev, "event", json_string("morale")) ||
        json_object_set_new(ev, "unit", json_string(un->name)) ||
        json_object_set(ev, "call", json_object_get(call, "call")) ||
        json_object_set_new(ev, "test", test ? test : json_null()) ||
        json_object_set_new(ev, "result", result ? json_string(result) : json_null()) ||
        json_object_set(ev, "rule", json_object_get(call, "src"))) {
        json_decref(ev);
        ev = NULL;
    }
    return referee__emit(events, ev, err);
}

/* Figures of unit u the collapse counts (not of a type not_counted), and
 * the unit's type for the chart: the type most of them have at the start. */
static int referee__collapse_count(const referee *r, size_t u, const json_t *call, const char **type)
{
    int left = 0, best = 0;
    *type = NULL;
    for (size_t i = 0; i < r->nfigs; i++) {
        const referee__fig *f = &r->figs[i];
        if (f->unit_ix != (int)u || !f->type || referee__listed(json_object_get(call, "not_counted"), f->type))
            continue;
        left += !f->dead;
        int same = 0;
        for (size_t j = 0; j < r->nfigs; j++)
            same += r->figs[j].unit_ix == (int)u && r->figs[j].type && !strcmp(r->figs[j].type, f->type);
        if (same > best)
            best = same, *type = f->type;
    }
    return left;
}

/* Call `call` for unit u at the end of a window that lost `lost` of its
 * figures. */
static tt_status referee__call(referee *r, size_t u, const json_t *call, int lost, json_t *events, tt_err *err)
{
    referee__unit *un = &r->units[u];
    const json_t *la = json_object_get(call, "lost_at");
    const char *result = json_string_value(json_object_get(call, "result"));
    const json_t *rs = json_object_get(call, "result_lost_since_turn");
    if (rs && un->alive_turn_start > 0 &&
        un->lost_turn >= json_number_value(json_object_get(rs, "fraction")) * un->alive_turn_start - 1e-9)
        result = json_string_value(json_object_get(rs, "result"));
    if (json_is_true(json_object_get(call, "any_loss"))) {
        if (!lost)
            return TT_OK;
        const json_t *nd = json_object_get(call, "needs");
        json_t *test = json_object_get(call, "dice") ? referee__test(r, u, call, nd ? (int)json_integer_value(nd) : -1)
                                                     : NULL;
        if (json_object_get(call, "dice") && !test)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        return referee__call_event(events, un, call, test, result, err);
    }
    if (la) {
        const json_t *nd = json_object_get(call, "needs");
        int level = un->called_level, n = (int)json_array_size(la);
        while (level < n && un->lost_total >= json_number_value(json_array_get(la, (size_t)level)) * un->of - 1e-9)
            level++;
        int needs = -1;
        if (level > un->called_level) {
            needs = json_is_array(nd) ? (int)json_integer_value(json_array_get(nd, (size_t)level - 1)) : -1;
            un->called_level = level;
            un->called_turn = r->turn;
        } else if (level == n && lost && un->called_turn != r->turn && json_object_get(call, "then_needs")) {
            needs = (int)json_integer_value(json_object_get(call, "then_needs"));
        } else {
            return TT_OK;
        }
        json_t *test = referee__test(r, u, call, needs);
        if (!test)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        return referee__call_event(events, un, call, test, result, err);
    }
    const json_t *ca = json_object_get(call, "collapse_at");
    const char *type = NULL;
    int left = referee__collapse_count(r, u, call, &type);
    const json_t *at = type ? json_object_get(ca, type) : NULL;
    if (!lost || un->collapsed || !json_is_integer(at) || left > json_integer_value(at))
        return TT_OK;
    un->collapsed = 1;
    return referee__call_event(events, un, call, NULL, result, err);
}

tt_status referee__step_end(referee *r, int phase_ends, json_t *events, tt_err *err)
{
    tt_status st;
    for (size_t i = 0; i < r->nfigs; i++) {
        referee__fig *f = &r->figs[i];
        if (!f->gone_step || f->present || f->dead)
            continue;
        f->dead = 1;
        f->gone_step = 0;
        if (f->unit_ix >= 0) {
            referee__unit *un = &r->units[f->unit_ix];
            un->lost_step++, un->lost_turn++, un->lost_phase++, un->lost_total++;
        }
    }
    for (size_t u = 0; u < r->nunits; u++) {
        const referee__unit *un = &r->units[u];
        if (!un->lost_step)
            continue;
        json_t *ev = json_pack("{s:s, s:s, s:i, s:i, s:i}", "event", "casualties", "unit", un->name, "lost",
                               un->lost_step, "of", un->of, "since_turn_start", un->lost_turn);
        if ((st = referee__emit(events, ev, err)))
            return st;
    }
    const char *phase = referee__phase_str(r, r->phase, "name");
    for (size_t c = 0; c < json_array_size(r->losses); c++) {
        const json_t *call = json_array_get(r->losses, c);
        const char *after = json_string_value(json_object_get(call, "after"));
        int activation = !strcmp(after, "activation");
        if (!activation && !(phase_ends && !strcmp(after, phase)))
            continue;
        for (size_t u = 0; u < r->nunits; u++)
            if ((st = referee__call(r, u, call, activation ? r->units[u].lost_step : r->units[u].lost_phase, events,
                                    err)))
                return st;
    }
    return TT_OK;
}
