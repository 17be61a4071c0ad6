/* table_look_kept.c - which of the referee's events the felt keeps
 * showing (table_look.h, "What the felt keeps"): the live table's and the
 * replay's, written once. */
#include "table_look.h"
#include "table_internal.h"

#include <stdlib.h>
#include <string.h>

struct table_look_kept {
    json_t *checks; /* this phase's checks, in the order they came */
    json_t *places; /* where each check's words stand, [x, y] (placed when it came), or null: parallel to checks */
    json_t *calls;  /* this turn's calls (and those that ended the last turn) */
    json_t *phase;  /* the last phase event, or NULL */
    int calls_turn; /* the turn the calls are of */
};

tt_status table_look_kept_create(table_look_kept **out, tt_err *err)
{
    table_look_kept *k = calloc(1, sizeof *k);
    *out = NULL;
    if (!k || !(k->checks = json_array()) || !(k->places = json_array()) || !(k->calls = json_array())) {
        table_look_kept_destroy(k);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    *out = k;
    return TT_OK;
}

void table_look_kept_destroy(table_look_kept *k)
{
    if (!k)
        return;
    json_decref(k->checks);
    json_decref(k->places);
    json_decref(k->calls);
    json_decref(k->phase);
    free(k);
}

static const char *kept__str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* Check i's place, or NULL (to be placed when drawn). */
static const double *kept__at(const table_look_kept *k, size_t i, double at[2])
{
    const json_t *p = json_array_get(k->places, i);
    if (json_array_size(p) != 2)
        return NULL;
    at[0] = json_number_value(json_array_get(p, 0));
    at[1] = json_number_value(json_array_get(p, 1));
    return at;
}

/* The checks, then the calls, into l, their words' boxes into ws; with
 * looks (two arrays), each event's own primitives appended to looks[0]
 * (the checks') or looks[1] (the calls'). */
static tt_status kept__draw(const table_scene *s, const table_look_kept *k, overlay_list *l, json_t *looks[2],
                            table__words *ws, tt_err *err)
{
    tt_status st = TT_OK;
    const json_t *lists[2] = {k->checks, k->calls};
    for (int a = 0; a < 2; a++)
        for (size_t i = 0; st == TT_OK && i < json_array_size(lists[a]); i++) {
            int first = overlay_list_count(l);
            double at[2];
            json_t *one = NULL;
            st = table__look_event(s, json_array_get(lists[a], i), a ? NULL : kept__at(k, i, at), l, ws, err);
            if (st == TT_OK && looks && (st = overlay_list_range_json(l, first, overlay_list_count(l), &one, err)) == TT_OK &&
                json_array_append_new(looks[a], one))
                st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        }
    return st;
}

/* Where a new check's words go: clear of the figures and of the words the
 * kept events put on the felt now; null without a scene. */
static json_t *kept__place(const table_look_kept *k, const table_scene *s, const json_t *ev)
{
    table__words ws = {NULL, 0, 0};
    overlay_list *l = NULL;
    tt_err e = {0};
    double at[2];
    json_t *place = NULL;
    if (s && overlay_list_create(&l, &e) == TT_OK && kept__draw(s, k, l, NULL, &ws, &e) == TT_OK &&
        table__check_place(s, ev, &ws, at))
        place = json_pack("[f, f]", at[0], at[1]);
    overlay_list_destroy(l);
    free(ws.box);
    return place ? place : json_null();
}

int table_look_kept_take(table_look_kept *k, const table_scene *s, const json_t *events)
{
    size_t before = json_array_size(k->calls); /* calls from earlier batches */
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *ev = json_array_get(events, i);
        const char *name = kept__str(ev, "event"), *id = kept__str(ev, "id");
        if (!name)
            continue;
        if (!strcmp(name, "phase")) {
            json_array_clear(k->checks);
            json_array_clear(k->places);
            json_decref(k->phase);
            k->phase = json_incref(ev);
            int turn = (int)json_integer_value(json_object_get(ev, "turn"));
            if (turn != k->calls_turn) {
                while (before > 0 && json_array_size(k->calls) > 0)
                    json_array_remove(k->calls, 0), before--;
                k->calls_turn = turn;
            }
        } else if (!strcmp(name, "casualties") || !strcmp(name, "morale")) {
            json_array_append(k->calls, ev);
        } else if (id && (!strcmp(name, "move_check") || !strcmp(name, "charge_check") || !strcmp(name, "out_of_turn"))) {
            for (size_t j = 0; j < json_array_size(k->checks); j++) {
                const char *was = kept__str(json_array_get(k->checks, j), "id");
                if (was && !strcmp(was, id)) {
                    json_array_remove(k->checks, j);
                    json_array_remove(k->places, j);
                    break;
                }
            }
            if (!json_is_true(json_object_get(ev, "put_back"))) {
                json_t *place = kept__place(k, s, ev);
                if (json_array_append(k->checks, ev))
                    json_decref(place); /* (out of memory: not kept) */
                else if (json_array_append_new(k->places, place))
                    json_array_remove(k->checks, json_array_size(k->checks) - 1);
            }
        }
    }
    return json_array_size(events) > 0;
}

const json_t *table_look_kept_checks(const table_look_kept *k)
{
    return k->checks;
}

const json_t *table_look_kept_calls(const table_look_kept *k)
{
    return k->calls;
}

const json_t *table_look_kept_phase(const table_look_kept *k)
{
    return k->phase;
}

tt_status table_look_kept_add(const table_scene *s, const table_look_kept *k, overlay_list *l, tt_err *err)
{
    table__words ws = {NULL, 0, 0}; /* (for checks not yet placed) */
    tt_status st = kept__draw(s, k, l, NULL, &ws, err);
    free(ws.box);
    return st;
}

tt_status table_look_kept_looks(const table_scene *s, const table_look_kept *k, json_t **checks, json_t **calls,
                                tt_err *err)
{
    overlay_list *l = NULL;
    table__words ws = {NULL, 0, 0};
    json_t *looks[2] = {json_array(), json_array()};
    tt_status st = looks[0] && looks[1] ? overlay_list_create(&l, err) : tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if (st == TT_OK)
        st = kept__draw(s, k, l, looks, &ws, err);
    overlay_list_destroy(l);
    free(ws.box);
    if (st != TT_OK) {
        json_decref(looks[0]);
        json_decref(looks[1]);
        looks[0] = looks[1] = NULL;
    }
    *checks = looks[0];
    *calls = looks[1];
    return st;
}

tt_status table_look_kept_look(const table_scene *s, const table_look_kept *k, const json_t *ev, json_t **out,
                               tt_err *err)
{
    overlay_list *l = NULL;
    double at[2];
    const double *place = NULL;
    int kept = 0;
    *out = NULL;
    for (size_t i = 0; !kept && i < json_array_size(k->checks); i++)
        if (json_array_get(k->checks, i) == ev)
            kept = 1, place = kept__at(k, i, at);
    for (size_t i = 0; !kept && i < json_array_size(k->calls); i++)
        kept = json_array_get(k->calls, i) == ev;
    if (!kept)
        return TT_OK;
    tt_status st = overlay_list_create(&l, err);
    if (st == TT_OK && (st = table__look_event(s, ev, place, l, NULL, err)) == TT_OK)
        st = overlay_list_to_json(l, out, err);
    overlay_list_destroy(l);
    return st;
}
