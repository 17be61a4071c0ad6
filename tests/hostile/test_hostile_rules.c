/* test_hostile_rules.c - scenario limits (issue 15, item 8): a polygon,
 * terrain list or figure list over its documented limit is refused with a
 * clear error; up to the limits a scenario loads (the simplicity test in
 * near-linear time, the same answer as the all-pairs test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "rules_scenario.h"
#include "scen_gen.h"

static const char *const dirs[] = {TT_SOURCE, NULL};

static tt_status load(json_t *j, tt_err *err)
{
    rules_scenario *sc = NULL;
    tt_status st = rules_scenario_from_json(j, "big.json", NULL, dirs, &sc, err);
    rules_scenario_destroy(sc);
    json_decref(j);
    return st;
}

static void expect_refused(json_t *j, const char *what)
{
    tt_err err = {0};
    tt_status st = load(j, &err);
    if (st != TT_ERR_FORMAT || !strstr(err.msg, what))
        fail_msg("expected TT_ERR_FORMAT with '%s', got %d '%s'", what, (int)st, err.msg);
}

static void test_limits(void **state)
{
    (void)state;
    tt_err err = {0};
    /* At every limit at once: loads. */
    assert_int_equal(load(scen_gen(RULES_MAX_CORNERS, RULES_MAX_PIECES - 1, RULES_MAX_FIGURES), &err), TT_OK);
    expect_refused(scen_gen(RULES_MAX_CORNERS + 1, 0, 0),
                   "terrain \"wood\": \"polygon\" has 10001 corners; at most 10000 are allowed");
    expect_refused(scen_gen(0, RULES_MAX_PIECES + 1, 0), "2001 terrain pieces; at most 2000 are allowed");
    expect_refused(scen_gen(0, 0, RULES_MAX_FIGURES + 1), "2001 figures; at most 2000 are allowed");
    /* The 100,000-corner polygon that took 43 s is refused at once. */
    expect_refused(scen_gen(100000, 0, 0), "has 100000 corners");
}

static void test_duplicate_ids_still_found(void **state)
{
    (void)state;
    json_t *j = scen_gen(0, 300, 0);
    json_t *last = json_array_get(json_object_get(j, "terrain"), 299);
    json_object_set_new(last, "id", json_string("house17"));
    expect_refused(j, "terrain \"house17\": the id is used twice");
    j = scen_gen(0, 0, 300);
    json_object_set_new(json_array_get(json_object_get(j, "figures"), 250), "id", json_string("fig3"));
    expect_refused(j, "figure \"fig3\": the id is used twice");
}

/* The grid test gives exactly the all-pairs answer, offending edges
 * included, on random polygons: star-shaped (simple), the same with two
 * corners swapped (mostly self-intersecting), a repeated corner, and a
 * spike through the far side. */
static void test_grid_matches_all_pairs(void **state)
{
    (void)state;
    unsigned seed = 15;
    int simple = 0, not_simple = 0;
    for (int round = 0; round < 400; round++) {
        int n = 65 + rand_r(&seed) % 400;
        rules_pt *v = malloc(sizeof *v * (size_t)n);
        assert_non_null(v);
        for (int i = 0; i < n; i++) {
            double r = 10 + (rand_r(&seed) % 1000) / 100.0, a = 2 * M_PI * i / n;
            v[i].x = (int64_t)((36 + r * cos(a)) * 10000);
            v[i].y = (int64_t)((24 + r * sin(a)) * 10000);
        }
        int kind = round % 4;
        if (kind == 1) {
            int a = rand_r(&seed) % n, b = rand_r(&seed) % n;
            rules_pt t = v[a];
            v[a] = v[b];
            v[b] = t;
        } else if (kind == 2) {
            v[rand_r(&seed) % n] = v[rand_r(&seed) % n];
        } else if (kind == 3) {
            int a = rand_r(&seed) % n;
            v[a].x = 2 * 36 * 10000 - v[a].x;
            v[a].y = 2 * 24 * 10000 - v[a].y;
        }
        int a1, a2, g1, g2;
        int want = rules_geom_poly_simple(v, n, &a1, &a2), got = rules_poly_simple_grid(v, n, &g1, &g2);
        assert_int_equal(got, want);
        if (!want) {
            assert_int_equal(g1, a1);
            assert_int_equal(g2, a2);
        }
        simple += want;
        not_simple += !want;
        free(v);
    }
    assert_true(simple > 50 && not_simple > 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_duplicate_ids_still_found),
        cmocka_unit_test(test_grid_matches_all_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
