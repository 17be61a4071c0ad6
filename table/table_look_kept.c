/* table_look_kept.c - which of the referee's events the felt keeps
 * showing (table_look.h, "What the felt keeps"): the live table's and the
 * replay's, written once. */
#include "table_look.h"

#include <stdlib.h>
#include <string.h>

struct table_look_kept {
    json_t *checks; /* this phase's checks, in the order they came */
    json_t *calls;  /* this turn's calls (and those that ended the last turn) */
    json_t *phase;  /* the last phase event, or NULL */
    int calls_turn; /* the turn the calls are of */
};

tt_status table_look_kept_create(table_look_kept **out, tt_err *err)
{
    table_look_kept *k = calloc(1, sizeof *k);
    *out = NULL;
    if (!k || !(k->checks = json_array()) || !(k->calls = json_array())) {
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
    json_decref(k->calls);
    json_decref(k->phase);
    free(k);
}

static const char *kept__str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

int table_look_kept_take(table_look_kept *k, const json_t *events)
{
    size_t before = json_array_size(k->calls); /* calls from earlier batches */
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *ev = json_array_get(events, i);
        const char *name = kept__str(ev, "event"), *id = kept__str(ev, "id");
        if (!name)
            continue;
        if (!strcmp(name, "phase")) {
            json_array_clear(k->checks);
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
                    break;
                }
            }
            if (!json_is_true(json_object_get(ev, "put_back")))
                json_array_append(k->checks, ev);
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
    tt_status st = TT_OK;
    for (size_t i = 0; st == TT_OK && i < json_array_size(k->checks); i++)
        st = table_look_event(s, json_array_get(k->checks, i), l, err);
    for (size_t i = 0; st == TT_OK && i < json_array_size(k->calls); i++)
        st = table_look_event(s, json_array_get(k->calls, i), l, err);
    return st;
}
