/* test_fixture.c - data-driven rules tests: one fixture file (argv[1]) holds
 * a scenario and cases {"why", "query", "expect"}; each case is one cmocka
 * test.  Only the members named in "expect" are compared, exactly (answers
 * are rounded to 0.01" by the contract); "error" compares the message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rules.h"
#include "tt_json.h"

static rules_scenario *g_sc;

static void run_case(void **state)
{
    const json_t *c = *state;
    const json_t *q = json_object_get(c, "query"), *expect = json_object_get(c, "expect");
    json_t *answer = NULL;
    tt_err err = {0};
    assert_non_null(q);
    assert_true(json_is_object(expect));
    tt_status st = rules_query_json(g_sc, q, &answer, &err);
    const json_t *want_err = json_object_get(expect, "error");
    if (want_err) {
        assert_int_not_equal(st, TT_OK);
        assert_string_equal(err.msg, json_string_value(want_err));
        return;
    }
    if (st != TT_OK)
        fail_msg("query failed: %s", err.msg);
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)expect, key, val)
    {
        const json_t *got = json_object_get(answer, key);
        if (!got || !json_equal(got, val)) {
            char *g = json_dumps(answer, JSON_COMPACT | JSON_REAL_PRECISION(10));
            char *w = json_dumps(val, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
            print_error("\"%s\": want %s, got %s\n", key, w, g);
            free(g);
            free(w);
            json_decref(answer);
            fail();
        }
    }
    json_decref(answer);
}

int main(int argc, char **argv)
{
    json_t *fx = NULL;
    tt_err err = {0};
    if (argc != 2) {
        fprintf(stderr, "usage: test_rules_fixture FIXTURE.json\n");
        return 2;
    }
    if (tt_json_load_file(argv[1], &fx, &err) != TT_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    const char *dirs[] = {TT_SOURCE_DIR, NULL};
    if (rules_scenario_from_json(json_object_get(fx, "scenario"), argv[1], NULL, dirs, &g_sc, &err) != TT_OK) {
        fprintf(stderr, "%s\n", err.msg);
        json_decref(fx);
        return 1;
    }
    const json_t *cases = json_object_get(fx, "cases");
    size_t n = json_array_size(cases);
    struct CMUnitTest *tests = calloc(n + 1, sizeof *tests);
    char **names = calloc(n + 1, sizeof *names);
    if (!tests || !names || n == 0)
        return 1;
    for (size_t i = 0; i < n; i++) {
        const json_t *c = json_array_get(cases, i);
        const char *why = json_string_value(json_object_get(c, "why"));
        names[i] = malloc(strlen(why ? why : "case") + 16);
        if (!names[i])
            return 1;
        sprintf(names[i], "%zu: %s", i + 1, why ? why : "case");
        tests[i].name = names[i];
        tests[i].test_func = run_case;
        tests[i].initial_state = (void *)c;
    }
    const char *base = strrchr(argv[1], '/');
    int rc = _cmocka_run_group_tests(base ? base + 1 : argv[1], tests, n, NULL, NULL);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(tests);
    rules_scenario_destroy(g_sc);
    json_decref(fx);
    return rc;
}
