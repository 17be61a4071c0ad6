/* test_look_referee.c - what the referee's events look like on the felt
 * (table/table_look.c, table_look_event): a move over its allowance is a
 * dashed vermillion path (to the figure's ring) with `5.2" of 4" · 1.2" over`; a fair one a solid
 * sky-blue path with `3.0" of 4"`; one the dice decide says the roll it
 * needs; a put back draws nothing; out of turn rings the figure; a morale
 * call labels its unit above its figures; where the game stands is one
 * small white text in a corner; the checks a phase keeps on the felt
 * (table_look_kept) keep their words apart.  The events are the referee's,
 * as docs/api.md writes them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "table_look.h"
#include "table_scene.h"

#define SCEN TT_SOURCE_DIR "/samples/breach/scenario.json"

static table_scene *load(void)
{
    const char *dirs[] = {TT_SOURCE_DIR, NULL};
    table_scene *s = NULL;
    tt_err err = {0};
    if (table_scene_load(SCEN, dirs, &s, &err) != TT_OK)
        fail_msg("%s", err.msg);
    return s;
}

static json_t *look(const table_scene *s, const char *event)
{
    json_t *ev = json_loads(event, 0, NULL), *out = NULL;
    tt_err err = {0};
    assert_non_null(ev);
    assert_int_equal(table_look_event_json(s, ev, &out, &err), TT_OK);
    json_decref(ev);
    return out;
}

static const char *str(const json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* A primitive's "at" (a circle's centre, a text's middle), coordinate k. */
static double at(const json_t *o, size_t k) { return json_number_value(json_array_get(json_object_get(o, "at"), k)); }

/* The first primitive of `kind`, or NULL. */
static const json_t *find(const json_t *prims, const char *kind)
{
    for (size_t i = 0; i < json_array_size(prims); i++)
        if (!strcmp(str(json_array_get(prims, i), "kind"), kind))
            return json_array_get(prims, i);
    return NULL;
}

static void test_over(void **state)
{
    (void)state;
    table_scene *s = load();
    json_t *p = look(s, "{\"event\":\"move_check\",\"id\":\"gren1\",\"from\":[8,5],\"to\":[13.2,5],\"distance_in\":5.2,"
                        "\"allowed_in\":4,\"ok\":false,\"too_close_to_call\":false,\"rule\":\"thin-red-line.txt L220\"}");
    const json_t *path = json_array_get(p, 0), *label = find(p, "text");
    assert_string_equal(str(path, "kind"), "polyline");
    assert_string_equal(str(path, "role"), "blocked");
    assert_true(json_is_true(json_object_get(path, "dashed")));
    const json_t *pts = json_object_get(path, "points");
    assert_true(fabs(json_number_value(json_array_get(json_array_get(pts, 0), 0)) - 8) < 1e-9);
    /* to gren1's ring, short of where it stands (its tag stays dark) */
    double end = json_number_value(json_array_get(json_array_get(pts, 1), 0));
    assert_true(end < 13.2 - 0.2 && end > 13.2 - 1.5);
    assert_true(fabs(json_number_value(json_array_get(json_array_get(pts, 1), 1)) - 5) < 1e-9);
    assert_non_null(label);
    assert_string_equal(str(label, "role"), "blocked");
    assert_string_equal(str(label, "text"), "5.2\" of 4\" \xc2\xb7 1.2\" over");
    /* beside the path (8..13.2 along y = 5), clear of every figure's base
     * (gren1 stands at 8, 5 in the scene; gren3 at 12, 7.5) */
    assert_true(at(label, 0) > 8 && at(label, 0) < 13.2);
    assert_true(fabs(at(label, 1) - 5) > 0.3 && fabs(at(label, 1) - 5) < 1.5);
    json_decref(p);
    table_scene_destroy(s);
}

static void test_fair_dice_put_back(void **state)
{
    (void)state;
    table_scene *s = load();
    json_t *p = look(s, "{\"event\":\"move_check\",\"id\":\"gren3\",\"from\":[12,7.5],\"to\":[15,7.5],\"distance_in\":3,"
                        "\"allowed_in\":4,\"ok\":true,\"too_close_to_call\":false,\"rule\":\"r\"}");
    const json_t *path = json_array_get(p, 0);
    assert_string_equal(str(path, "role"), "clear");
    assert_false(json_is_true(json_object_get(path, "dashed")));
    assert_string_equal(str(find(p, "text"), "text"), "3.0\" of 4\"");
    json_decref(p);
    p = look(s, "{\"event\":\"move_check\",\"id\":\"gren1\",\"from\":[8,5],\"to\":[13,6],\"distance_in\":5.22,"
                "\"allowed_in\":null,\"ok\":null,\"allowed_range_in\":[4,9],\"needs_roll\":3,\"too_close_to_call\":false,"
                "\"rule\":\"into-the-breach.txt L74\"}");
    assert_string_equal(str(json_array_get(p, 0), "role"), "neutral");
    assert_string_equal(str(find(p, "text"), "text"), "5.2\" of 4-9\": roll 3+");
    json_decref(p);
    p = look(s, "{\"event\":\"move_check\",\"id\":\"gren1\",\"from\":[8,5],\"to\":[8.1,5],\"distance_in\":0.1,"
                "\"allowed_in\":null,\"ok\":true,\"too_close_to_call\":false,\"put_back\":true,\"rule\":\"r\"}");
    assert_int_equal((int)json_array_size(p), 0);
    json_decref(p);
    /* too close to call: yellow and dashed, and said */
    p = look(s, "{\"event\":\"move_check\",\"id\":\"gren1\",\"from\":[8,5],\"to\":[12,5],\"distance_in\":4.02,"
                "\"allowed_in\":4,\"ok\":false,\"too_close_to_call\":true,\"rule\":\"r\"}");
    assert_string_equal(str(json_array_get(p, 0), "role"), "medium");
    assert_true(json_is_true(json_object_get(json_array_get(p, 0), "dashed")));
    assert_non_null(strstr(str(find(p, "text"), "text"), "too close to call"));
    json_decref(p);
    /* a malformed event (no "to") draws nothing rather than a wrong path */
    p = look(s, "{\"event\":\"move_check\",\"id\":\"gren1\",\"from\":[8,5],\"distance_in\":4}");
    assert_int_equal((int)json_array_size(p), 0);
    json_decref(p);
    table_scene_destroy(s);
}

static void test_out_of_turn_and_call(void **state)
{
    (void)state;
    table_scene *s = load();
    /* gren2 stands at (8, 18.5) in the scenario */
    json_t *p = look(s, "{\"event\":\"out_of_turn\",\"id\":\"gren2\",\"rule\":\"it is french's actions\"}");
    const json_t *ring = find(p, "circle"), *label = find(p, "text");
    assert_non_null(ring);
    assert_string_equal(str(ring, "role"), "blocked");
    assert_true(fabs(at(ring, 0) - 8) < 1e-9);
    assert_string_equal(str(label, "text"), "out of turn");
    json_decref(p);
    /* la-sarre: fus1-4 at x 22, 21.5, 21.5, 24 (mean 22.25), the highest at y 9 */
    p = look(s, "{\"event\":\"morale\",\"unit\":\"la-sarre\",\"call\":\"morale\",\"test\":{\"dice\":\"2d6\",\"needs\":6,"
                "\"modifiers\":[{\"value\":1,\"reason\":\"officer with unit\"}]},\"result\":null,"
                "\"rule\":\"into-the-breach.txt L8-16\"}");
    assert_int_equal((int)json_array_size(p), 1);
    label = json_array_get(p, 0);
    assert_string_equal(str(label, "text"), "la-sarre: morale 2d6 6+ (+1)");
    assert_string_equal(str(label, "role"), "target");
    assert_true(fabs(at(label, 0) - 22.25) < 1e-9);
    assert_true(at(label, 1) < 9);
    json_decref(p);
    p = look(s, "{\"event\":\"morale\",\"unit\":\"la-sarre\",\"call\":\"collapse\",\"test\":null,\"result\":\"collapses\","
                "\"rule\":\"r\"}");
    assert_string_equal(str(json_array_get(p, 0), "text"), "la-sarre: collapse, collapses");
    assert_string_equal(str(json_array_get(p, 0), "role"), "blocked");
    json_decref(p);
    /* casualties alone are told on the phone, not drawn */
    p = look(s, "{\"event\":\"casualties\",\"unit\":\"la-sarre\",\"lost\":1,\"of\":4,\"since_turn_start\":1}");
    assert_int_equal((int)json_array_size(p), 0);
    json_decref(p);
    table_scene_destroy(s);
}

static void test_phase(void **state)
{
    (void)state;
    overlay_list *l = NULL;
    tt_err err = {0};
    json_t *out = NULL, *ph = json_loads("{\"turn\":3,\"phase\":\"movement\",\"side\":\"british\"}", 0, NULL);
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    assert_int_equal(table_look_phase(ph, 30, 0.6, l, &err), TT_OK);
    assert_int_equal(table_look_phase(json_null(), 30, 0.6, l, &err), TT_OK); /* none: nothing */
    assert_int_equal(overlay_list_to_json(l, &out, &err), TT_OK);
    assert_int_equal((int)json_array_size(out), 1);
    const json_t *t = json_array_get(out, 0);
    assert_string_equal(str(t, "text"), "Turn 3 \xc2\xb7 British \xc2\xb7 movement");
    assert_string_equal(str(t, "role"), "neutral");
    double x = at(t, 0);
    assert_true(x < 30 && x > 20); /* its right end at 30 */
    assert_true(fabs(json_number_value(json_object_get(t, "size_in")) - TABLE_PHASE_TEXT_IN) < 1e-9);
    json_decref(out);
    json_decref(ph);
    overlay_list_destroy(l);
}

/* Pairs of words in prims whose boxes overlap (DejaVu Sans: about 0.9 of
 * the size a character wide, 1.4 high). */
static int words_overlapping(const json_t *prims)
{
    double box[64][4];
    int n = 0, over = 0;
    for (size_t i = 0; i < json_array_size(prims) && n < 64; i++) {
        const json_t *p = json_array_get(prims, i);
        if (strcmp(str(p, "kind"), "text"))
            continue;
        double size = json_number_value(json_object_get(p, "size_in")), w = 0;
        for (const char *c = str(p, "text"); *c; c++)
            w += ((unsigned char)*c & 0xc0) == 0x80 ? 0 : 0.9 * size;
        box[n][0] = at(p, 0), box[n][1] = at(p, 1), box[n][2] = w, box[n][3] = 1.4 * size;
        for (int j = 0; j < n; j++)
            over += fabs(box[j][0] - box[n][0]) < (box[j][2] + w) / 2 && fabs(box[j][1] - box[n][1]) < (box[j][3] + box[n][3]) / 2;
        n++;
    }
    return over;
}

/* A unit's five moves side by side, 1" apart, as the felt keeps them
 * (table_look_kept): each one's words clear of the others'; drawn each on
 * its own they lie on each other.  The kept checks, calls and phase. */
static void test_kept_words_apart(void **state)
{
    (void)state;
    table_scene *s = load();
    table_look_kept *k = NULL;
    tt_err err = {0};
    assert_int_equal(table_look_kept_create(&k, &err), TT_OK);
    json_t *batch = json_array(), *alone = json_array();
    json_array_append_new(batch, json_pack("{s:s, s:i, s:s, s:s}", "event", "phase", "turn", 1, "phase", "movement",
                                           "side", "british"));
    for (int i = 0; i < 5; i++) {
        char ev[400];
        snprintf(ev, sizeof ev, "{\"event\":\"move_check\",\"id\":\"u%d\",\"from\":[%d,2],\"to\":[%d,7],\"distance_in\":5,"
                 "\"allowed_in\":6,\"ok\":true,\"too_close_to_call\":false}", i, 27 + i, 27 + i);
        json_array_append_new(batch, json_loads(ev, 0, NULL));
        json_t *one = look(s, ev);
        json_array_extend(alone, one);
        json_decref(one);
    }
    assert_int_equal(table_look_kept_take(k, s, batch), 1);
    assert_int_equal(json_array_size(table_look_kept_checks(k)), 5);
    assert_string_equal(str(table_look_kept_phase(k), "phase"), "movement");
    overlay_list *l = NULL;
    json_t *kept = NULL;
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    assert_int_equal(table_look_kept_add(s, k, l, &err), TT_OK);
    assert_int_equal(overlay_list_to_json(l, &kept, &err), TT_OK);
    int together = words_overlapping(kept), apart = words_overlapping(alone);
    print_message("five moves side by side: %d pairs of words overlap as kept, %d drawn each alone\n", together, apart);
    assert_true(apart > 0);
    assert_int_equal(together, 0);
    /* the same paths either way: only the words moved */
    assert_int_equal(json_array_size(kept), json_array_size(alone));
    /* each check's own look (/api/state's "look") is its part of the felt's */
    json_t *checks = NULL, *calls = NULL, *joined = json_array();
    assert_int_equal(table_look_kept_looks(s, k, &checks, &calls, &err), TT_OK);
    assert_int_equal(json_array_size(checks), 5);
    assert_int_equal(json_array_size(calls), 0);
    for (size_t i = 0; i < json_array_size(checks); i++)
        json_array_extend(joined, json_array_get(checks, i));
    assert_true(json_equal(joined, kept));
    json_decref(joined);
    json_decref(checks);
    json_decref(calls);
    /* a new phase clears the checks; a put back clears its figure's */
    json_t *next = json_pack("[{s:s, s:i, s:s, s:s}]", "event", "phase", "turn", 1, "phase", "shooting", "side", "british");
    table_look_kept_take(k, s, next);
    assert_int_equal(json_array_size(table_look_kept_checks(k)), 0);
    json_decref(next);
    json_decref(kept);
    json_decref(alone);
    json_decref(batch);
    overlay_list_destroy(l);
    table_look_kept_destroy(k);
    table_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_over),
        cmocka_unit_test(test_fair_dice_put_back),
        cmocka_unit_test(test_out_of_turn_and_call),
        cmocka_unit_test(test_phase),
        cmocka_unit_test(test_kept_words_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
