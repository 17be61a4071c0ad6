/* test_table.c - the game's table (table/): the rules are asked once per
 * question until a figure moves, a bad question is refused and kept out,
 * and an answer's look comes out as the JSON primitives docs/api.md
 * describes ("What an answer looks like"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "table_look.h"
#include "table_scene.h"

#define SCEN TT_SOURCE_DIR "/samples/scenarios/into-the-breach-farm.json"

static table_scene *load(void)
{
    const char *dirs[] = {TT_SOURCE_DIR, NULL};
    table_scene *s = NULL;
    tt_err err = {0};
    if (table_scene_load(SCEN, dirs, &s, &err) != TT_OK)
        fail_msg("%s", err.msg);
    return s;
}

static json_t *q(const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    assert_non_null(j);
    return j;
}

static double distance_of(const table_answer *a)
{
    return json_number_value(json_object_get(table_answer_json(a), "distance_in"));
}

static void test_asked_once_until_a_move(void **state)
{
    (void)state;
    table_scene *s = load();
    tt_err err = {0};
    json_t *fire = q("{\"q\":\"fire\",\"from\":\"m1\",\"to\":\"f1\"}"), *same = q("{\"to\":\"f1\",\"q\":\"fire\",\"from\":\"m1\"}");
    json_t *los = q("{\"q\":\"los\",\"from\":\"m1\",\"to\":\"f1\"}");
    const table_answer *a1, *a2, *a3, *b;
    assert_int_equal(table_scene_ask(s, fire, &a1, &err), TT_OK);
    double d1 = distance_of(a1);
    assert_true(d1 > 0);
    /* the same question (keys in any order): the answer kept, not asked again */
    assert_int_equal(table_scene_ask(s, same, &a2, &err), TT_OK);
    assert_ptr_equal(a1, a2);
    /* another question is another answer */
    assert_int_equal(table_scene_ask(s, los, &b, &err), TT_OK);
    assert_ptr_not_equal(a1, b);
    /* f1 (tag 40) placed where it stands (17, 23) facing 180: still the answer kept */
    const char *id = NULL;
    assert_int_equal(table_scene_place(s, 40, 17, 23, 180, &id, &err), TT_OK);
    assert_string_equal(id, "f1");
    assert_int_equal(table_scene_ask(s, fire, &a2, &err), TT_OK);
    assert_ptr_equal(a1, a2);
    /* f1 moves 3" away from m1: asked again, and the answer says so */
    assert_int_equal(table_scene_place(s, 40, 20, 23, 180, &id, &err), TT_OK);
    assert_int_equal(table_scene_ask(s, fire, &a3, &err), TT_OK);
    /* (both distances are printed to hundredths) */
    assert_true(fabs(distance_of(a3) - (d1 + 3)) < 0.0101);
    json_decref(fire);
    json_decref(same);
    json_decref(los);
    table_scene_destroy(s);
}

static void test_bad_question(void **state)
{
    (void)state;
    table_scene *s = load();
    tt_err err = {0};
    const table_answer *a = (const table_answer *)&err;
    json_t *bad = q("{\"q\":\"fire\",\"from\":\"m1\",\"to\":\"nobody\"}");
    assert_int_not_equal(table_scene_ask(s, bad, &a, &err), TT_OK);
    assert_null(a);
    assert_non_null(strstr(err.msg, "nobody"));
    /* asked again: refused again (a refusal is not kept as an answer) */
    tt_err err2 = {0};
    assert_int_not_equal(table_scene_ask(s, bad, &a, &err2), TT_OK);
    assert_string_equal(err.msg, err2.msg);
    json_decref(bad);
    table_scene_destroy(s);
}

/* A blocked line of sight: a dashed "blocked" line along the answer's
 * line, and its label, as JSON. */
static void test_look_json(void **state)
{
    (void)state;
    table_scene *s = load();
    tt_err err = {0};
    json_t *los = q("{\"q\":\"los\",\"from\":\"m1\",\"to\":\"f3\"}");
    const table_answer *a;
    assert_int_equal(table_scene_ask(s, los, &a, &err), TT_OK);
    const json_t *ans = table_answer_json(a);
    assert_true(json_is_false(json_object_get(ans, "visible")));
    json_t *look = NULL;
    assert_int_equal(table_look_json(s, a, &look, &err), TT_OK);
    assert_int_equal((int)json_array_size(look), 2);
    const json_t *line = json_array_get(look, 0), *label = json_array_get(look, 1);
    assert_string_equal(json_string_value(json_object_get(line, "kind")), "polyline");
    assert_string_equal(json_string_value(json_object_get(line, "role")), "blocked");
    assert_true(json_is_true(json_object_get(line, "dashed")));
    assert_true(fabs(json_number_value(json_object_get(line, "width_in")) - TABLE_LINE_IN) < 1e-12);
    /* from m1's centre (10, 23) to f3's (45, 23): lines run from the centre of the base */
    const json_t *pts = json_object_get(line, "points");
    const double want[2][2] = {{10, 23}, {45, 23}};
    assert_int_equal((int)json_array_size(pts), 2);
    for (size_t i = 0; i < 2; i++)
        for (size_t k = 0; k < 2; k++)
            assert_true(fabs(json_number_value(json_array_get(json_array_get(pts, i), k)) - want[i][k]) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(label, "kind")), "text");
    assert_string_equal(json_string_value(json_object_get(label, "role")), "blocked");
    const char *blocked_by = json_string_value(json_object_get(ans, "blocked_by"));
    assert_non_null(blocked_by);
    assert_non_null(strstr(json_string_value(json_object_get(label, "text")), blocked_by));
    assert_null(json_object_get(label, "width_in"));
    json_decref(look);

    /* the same answer drawn into a list: as many primitives */
    overlay_list *l = NULL;
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    assert_int_equal(table_look_add(s, a, l, &err), TT_OK);
    assert_int_equal(overlay_list_count(l), 2);
    /* and the figures' tag masks, last */
    assert_int_equal(table_scene_mask_figures(s, 1.0, 0.1, l, &err), TT_OK);
    assert_int_equal(overlay_list_to_json(l, &look, &err), TT_OK);
    assert_int_equal((int)json_array_size(look), 2 + 8);
    const json_t *m = json_array_get(look, 2);
    assert_string_equal(json_string_value(json_object_get(m, "kind")), "tag_mask");
    assert_true(fabs(json_number_value(json_object_get(m, "side_in")) - OVERLAY_TAG_MASK_FACTOR) < 1e-9);
    json_decref(look);
    overlay_list_destroy(l);
    json_decref(los);
    table_scene_destroy(s);
}

/* A blast's outline as JSON: the 720 rays of the template drawn on the
 * felt come as a few dozen points (those within OVERLAY_JSON_TOL_IN of the
 * line left out), each a place to 0.01" on the template's edge, no two so
 * far apart that the chord between them strays from the circle. */
static void test_look_json_blast(void **state)
{
    (void)state;
    table_scene *s = load();
    tt_err err = {0};
    json_t *blast = q("{\"q\":\"blast\",\"at\":[10,35],\"radius_in\":3}");
    const table_answer *a;
    assert_int_equal(table_scene_ask(s, blast, &a, &err), TT_OK);
    json_t *look = NULL;
    assert_int_equal(table_look_json(s, a, &look, &err), TT_OK);
    const json_t *poly = json_array_get(look, 0), *pts = json_object_get(poly, "points");
    assert_string_equal(json_string_value(json_object_get(poly, "kind")), "polygon");
    assert_string_equal(json_string_value(json_object_get(poly, "role")), "blast");
    size_t n = json_array_size(pts);
    assert_true(n >= 16 && n <= 100);
    double prev = NAN, first = NAN, gap = 0;
    for (size_t i = 0; i < n; i++) {
        double x = json_number_value(json_array_get(json_array_get(pts, i), 0));
        double y = json_number_value(json_array_get(json_array_get(pts, i), 1));
        assert_true(fabs(x * 100 - round(x * 100)) < 1e-6 && fabs(y * 100 - round(y * 100)) < 1e-6);
        assert_true(fabs(hypot(x - 10, y - 35) - 3) < 0.008);
        double ang = atan2(y - 35, x - 10);
        if (i == 0)
            first = ang;
        else
            gap = fmax(gap, fmod(ang - prev + 4 * M_PI, 2 * M_PI));
        prev = ang;
    }
    gap = fmax(gap, fmod(first - prev + 4 * M_PI, 2 * M_PI));
    /* a chord of angle gap strays 3 (1 - cos(gap / 2)) from the circle */
    assert_true(3 * (1 - cos(gap / 2)) < OVERLAY_JSON_TOL_IN + 0.002);
    json_decref(look);
    json_decref(blast);
    table_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_asked_once_until_a_move),
        cmocka_unit_test(test_bad_question),
        cmocka_unit_test(test_look_json),
        cmocka_unit_test(test_look_json_blast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
