/* test_referee_util.c - scenarios and event lookups for the referee tests. */
#include "test_referee_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const char *const tr_dirs[] = {TT_SOURCE_DIR, NULL};

rules_scenario *tr_scenario(const char *ruleset, const char *terrain, const char *figures)
{
    char text[16384];
    tt_err err = {0};
    rules_scenario *sc = NULL;
    snprintf(text, sizeof text,
             "{\"ruleset\": \"%s\", \"table\": {\"width_in\": 72, \"depth_in\": 48}, \"terrain\": %s, "
             "\"figures\": %s}",
             ruleset, terrain, figures);
    tt_status st = rules_scenario_parse(text, "test scenario", NULL, tr_dirs, &sc, &err);
    if (st)
        fprintf(stderr, "scenario: %s\n", err.msg);
    assert_int_equal(st, TT_OK);
    return sc;
}

referee *tr_referee(rules_scenario *sc, const char *figures)
{
    referee *r = NULL;
    tt_err err = {0};
    tt_status st = referee_create(sc, &r, &err);
    if (st)
        fprintf(stderr, "referee: %s\n", err.msg);
    assert_int_equal(st, TT_OK);
    json_t *figs = json_loads(figures, 0, NULL), *ev = json_array();
    assert_non_null(figs);
    for (size_t i = 0; i < json_array_size(figs); i++) {
        const json_t *f = json_array_get(figs, i);
        assert_int_equal(referee_settled(r, json_string_value(json_object_get(f, "id")),
                                         json_number_value(json_object_get(f, "x")),
                                         json_number_value(json_object_get(f, "y")),
                                         json_number_value(json_object_get(f, "facing_deg")), 0, ev, &err),
                         TT_OK);
    }
    assert_int_equal(json_array_size(ev), 0); /* no phase yet: nothing is checked */
    json_decref(figs);
    json_decref(ev);
    return r;
}

const json_t *tr_find(const json_t *events, const char *name, const char *who)
{
    for (size_t i = 0; i < json_array_size(events); i++) {
        const json_t *e = json_array_get(events, i);
        const char *id = json_string_value(json_object_get(e, "id"));
        const char *unit = json_string_value(json_object_get(e, "unit"));
        if (strcmp(json_string_value(json_object_get(e, "event")), name))
            continue;
        if (!who || (id && !strcmp(id, who)) || (unit && !strcmp(unit, who)))
            return e;
    }
    return NULL;
}

size_t tr_count(const json_t *events, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(events); i++)
        n += !strcmp(json_string_value(json_object_get(json_array_get(events, i), "event")), name);
    return n;
}

void tr_dump(const char *what, const json_t *events)
{
    char *s = json_dumps(events, JSON_COMPACT);
    fprintf(stderr, "%s: %s\n", what, s ? s : "?");
    free(s);
}
