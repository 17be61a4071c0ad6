/* test_referee_books.c - each book's turn structure and the calls losses
 * trigger, as its profile loads them, each checked against the lines of the
 * book it cites (the rulebooks are in the repository's history, not read
 * here); and the loader's errors for a bad "turns" or "losses". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rules_scenario.h"
#include "test_referee_util.h"

#define ONE "[{\"id\": \"a\", \"side\": \"s1\", \"unit\": \"u\", \"type\": \"foot\", \"x\": 10, \"y\": 10}]"

static const json_t *turns_of(rules_scenario *sc) { return rules_scenario_turns(sc); }

static void assert_phases(const json_t *turns, const char *const *names, const char *const *sides)
{
    const json_t *ph = json_object_get(turns, "phases");
    size_t n = 0;
    while (names[n])
        n++;
    assert_int_equal(json_array_size(ph), n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(json_string_value(json_object_get(json_array_get(ph, i), "name")), names[i]);
        assert_string_equal(json_string_value(json_object_get(json_array_get(ph, i), "sides")), sides[i]);
    }
}

static const json_t *call_named(rules_scenario *sc, const char *name)
{
    const json_t *l = rules_scenario_losses(sc);
    for (size_t i = 0; i < json_array_size(l); i++)
        if (!strcmp(json_string_value(json_object_get(json_array_get(l, i), "call")), name))
            return json_array_get(l, i);
    return NULL;
}

static void assert_cites(const json_t *o, const char *needle)
{
    const char *src = json_string_value(json_object_get(o, "src"));
    assert_non_null(src);
    if (!strstr(src, needle))
        fprintf(stderr, "\"%s\" does not cite %s\n", src, needle);
    assert_non_null(strstr(src, needle));
}

/* The Thin Red Line, L216: initiative, then Movement, Shooting and Assault,
 * each side in turn; L220: a square is immobile; L246-248: a motivation
 * test for a unit that lost stands to shooting, disorientated at 50% since
 * the turn began; L266: the roll by quality. */
static void test_trl_turns(void **state)
{
    (void)state;
    rules_scenario *sc = tr_scenario("thin-red-line", "[]", ONE);
    const json_t *t = turns_of(sc);
    static const char *const names[] = {"movement", "shooting", "assault", NULL};
    static const char *const sides[] = {"each", "each", "each"};
    assert_phases(t, names, sides);
    assert_cites(t, "thin-red-line.txt L216");
    assert_true(json_is_true(json_object_get(json_array_get(json_object_get(t, "phases"), 2), "charges")));
    assert_false(json_is_true(json_object_get(json_array_get(json_object_get(t, "phases"), 1), "moves")));
    assert_cites(json_object_get(t, "immobile_formations"), "thin-red-line.txt L220");
    const json_t *c = call_named(sc, "motivation");
    assert_non_null(c);
    assert_string_equal(json_string_value(json_object_get(c, "after")), "shooting");
    assert_cites(c, "thin-red-line.txt L246");
    assert_cites(c, "L248");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "needs_by_rating"), "steady")), 4);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "needs_by_rating"), "unsteady")), 5);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "needs_by_rating"), "fearless")), 3);
    assert_cites(json_object_get(c, "needs_by_rating"), "thin-red-line.txt L266");
    const json_t *rs = json_object_get(c, "result_lost_since_turn");
    assert_true(json_number_value(json_object_get(rs, "fraction")) == 0.5);
    assert_string_equal(json_string_value(json_object_get(rs, "result")), "disorientated");
    assert_cites(rs, "thin-red-line.txt L248");
    rules_scenario_destroy(sc);
}

/* Into the Breach!, L63-70: one action a figure a turn, the sides
 * alternating, morale when all have acted; L8-16: 25% lost 2d6 6+, 50% 8+,
 * each later turn with losses 10+; +1 officer, standard-bearer, grenadiers,
 * breastworks. */
static void test_itb_turns(void **state)
{
    (void)state;
    rules_scenario *sc = tr_scenario("into-the-breach", "[]", ONE);
    const json_t *t = turns_of(sc);
    static const char *const names[] = {"actions", "morale", NULL};
    static const char *const sides[] = {"alternate", "none"};
    assert_phases(t, names, sides);
    assert_cites(t, "into-the-breach.txt L63-70");
    assert_true(json_is_true(json_object_get(json_object_get(t, "one_move_a_turn"), "value")));
    assert_cites(json_object_get(t, "one_move_a_turn"), "into-the-breach.txt L65");
    const json_t *c = call_named(sc, "morale");
    assert_non_null(c);
    assert_string_equal(json_string_value(json_object_get(c, "after")), "actions");
    assert_string_equal(json_string_value(json_object_get(c, "dice")), "2d6");
    assert_true(json_number_value(json_array_get(json_object_get(c, "lost_at"), 0)) == 0.25);
    assert_true(json_number_value(json_array_get(json_object_get(c, "lost_at"), 1)) == 0.5);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(c, "needs"), 0)), 6);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(c, "needs"), 1)), 8);
    assert_int_equal(json_integer_value(json_object_get(c, "then_needs")), 10);
    assert_int_equal(json_array_size(json_object_get(c, "modifiers")), 4);
    assert_cites(c, "into-the-breach.txt L8-16");
    assert_cites(json_array_get(json_object_get(c, "modifiers"), 0), "into-the-breach.txt L14");
    assert_cites(json_array_get(json_object_get(c, "modifiers"), 3), "into-the-breach.txt L15");
    rules_scenario_destroy(sc);
}

/* Fixed Bay'net, L24-30: units activated one each in turn, then Glory
 * Tests; L161-188: a unit at 50% or less takes a GL test. */
static void test_fb_turns(void **state)
{
    (void)state;
    rules_scenario *sc = tr_scenario("fixed-bayonet", "[]", ONE);
    const json_t *t = turns_of(sc);
    static const char *const names[] = {"actions", "glory", NULL};
    static const char *const sides[] = {"alternate", "none"};
    assert_phases(t, names, sides);
    assert_cites(t, "fixed-bayonet.txt L28-30");
    const json_t *c = call_named(sc, "glory");
    assert_non_null(c);
    assert_true(json_number_value(json_array_get(json_object_get(c, "lost_at"), 0)) == 0.5);
    assert_string_equal(json_string_value(json_object_get(c, "dice")), "1d6");
    assert_cites(c, "fixed-bayonet.txt L161-168");
    rules_scenario_destroy(sc);
}

/* All the King's Men, L270-366: card activations, each downgrading resolve,
 * the turn over when the deck runs out; L533: casualties downgrade resolve;
 * L691-703: a unit reduced to its chart's number collapses. */
static void test_atkm_turns(void **state)
{
    (void)state;
    rules_scenario *sc = tr_scenario("all-the-kings-men", "[]", ONE);
    const json_t *t = turns_of(sc);
    static const char *const names[] = {"activations", NULL};
    static const char *const sides[] = {"alternate"};
    assert_phases(t, names, sides);
    assert_cites(t, "all-the-kings-men.md L270-274");
    assert_cites(t, "L290");
    const json_t *c = call_named(sc, "resolve");
    assert_non_null(c);
    assert_string_equal(json_string_value(json_object_get(c, "after")), "activation");
    assert_cites(c, "all-the-kings-men.md L358, L533");
    c = call_named(sc, "collapse");
    assert_non_null(c);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "collapse_at"), "foot")), 4);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "collapse_at"), "horse")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "collapse_at"), "skirmisher")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "collapse_at"), "artillery")), 1);
    assert_cites(c, "all-the-kings-men.md L691");
    assert_cites(json_object_get(c, "collapse_at"), "L693-701");
    rules_scenario_destroy(sc);
}

/* The Thin Red Line's profile with its "turns" or "losses" replaced by
 * `json`: the loader's message, which must hold every needle. */
static void assert_profile_error(const char *key, const char *json, const char *const *needles)
{
    json_error_t je;
    json_t *p = json_load_file(TT_SOURCE_DIR "/rules/profiles/thin-red-line.json", 0, &je);
    assert_non_null(p);
    json_t *v = json_loads(json, 0, &je);
    assert_non_null(v);
    json_object_set_new(p, key, v);
    rules_profile *prof = NULL;
    tt_err err = {0};
    tt_status st = rules_profile_from_json(p, "thin-red-line.json", &prof, &err);
    assert_int_equal(st, TT_ERR_FORMAT);
    assert_null(prof);
    for (size_t i = 0; needles[i]; i++) {
        if (!strstr(err.msg, needles[i]))
            fprintf(stderr, "message \"%s\" lacks \"%s\"\n", err.msg, needles[i]);
        assert_non_null(strstr(err.msg, needles[i]));
    }
    json_decref(p);
}

static void test_profile_errors(void **state)
{
    (void)state;
    const char *const sides[] = {"\"sides\" must be \"each\"", "\"alternate\"", "\"none\"", NULL};
    assert_profile_error("turns", "{\"phases\": [{\"name\": \"move\", \"sides\": \"both\", \"src\": \"b L1\"}], "
                                  "\"src\": \"b L1\"}", sides);
    const char *const twice[] = {"phase \"move\" is named twice", NULL};
    assert_profile_error("turns", "{\"phases\": [{\"name\": \"move\", \"sides\": \"each\", \"src\": \"b L1\"}, "
                                  "{\"name\": \"move\", \"sides\": \"each\", \"src\": \"b L1\"}], \"src\": \"b L1\"}", twice);
    const char *const uncited[] = {"phase \"move\"", "give its \"src\"", NULL};
    assert_profile_error("turns", "{\"phases\": [{\"name\": \"move\", \"sides\": \"each\"}], \"src\": \"b L1\"}",
                         uncited);
    const char *const form[] = {"\"immobile_formations\" names \"wedge\"", "not a formation", NULL};
    assert_profile_error("turns", "{\"phases\": [{\"name\": \"move\", \"sides\": \"each\", \"moves\": true, "
                                  "\"src\": \"b L1\"}], \"immobile_formations\": [\"wedge\"], \"src\": \"b L1\"}", form);
    const char *const charge[] = {"add \"moves\": true", NULL};
    assert_profile_error("turns", "{\"phases\": [{\"name\": \"melee\", \"sides\": \"each\", \"charges\": true, "
                                  "\"src\": \"b L1\"}], \"src\": \"b L1\"}", charge);
    const char *const after[] = {"\"after\" must name the phase", "\"movement\", \"shooting\", \"assault\"",
                                 "\"activation\"", NULL};
    assert_profile_error("losses", "[{\"call\": \"morale\", \"after\": \"melee\", \"any_loss\": true, "
                                   "\"src\": \"b L1\"}]", after);
    const char *const rising[] = {"\"lost_at\" must rise", NULL};
    assert_profile_error("losses", "[{\"call\": \"morale\", \"after\": \"shooting\", \"dice\": \"2d6\", "
                                   "\"lost_at\": [0.5, 0.25], \"needs\": [6, 8], \"src\": \"b L1\"}]", rising);
    const char *const one[] = {"give one trigger", NULL};
    assert_profile_error("losses", "[{\"call\": \"morale\", \"after\": \"shooting\", \"dice\": \"2d6\", "
                                   "\"any_loss\": true, \"lost_at\": [0.5], \"needs\": [6], \"src\": \"b L1\"}]", one);
    const char *const dice[] = {"\"dice\" must be dice", NULL};
    assert_profile_error("losses", "[{\"call\": \"morale\", \"after\": \"shooting\", \"dice\": \"two\", "
                                   "\"any_loss\": true, \"src\": \"b L1\"}]", dice);
    const char *const cond[] = {"modifier 1", "give one condition", NULL};
    assert_profile_error("losses", "[{\"call\": \"morale\", \"after\": \"shooting\", \"dice\": \"2d6\", "
                                   "\"any_loss\": true, \"modifiers\": [{\"value\": 1, \"reason\": \"brave\"}], "
                                   "\"src\": \"b L1\"}]", cond);
}

/* A phase without its name is refused, naming the phase by its place. */
static void test_profile_missing_name(void **state)
{
    (void)state;
    const char *const unnamed[] = {"turns: phase 2", "\"name\" must be the phase's name", NULL};
    assert_profile_error("turns", "{\"phases\": [{\"name\": \"move\", \"sides\": \"each\", \"src\": \"b L1\"}, "
                                  "{\"sides\": \"each\", \"src\": \"b L1\"}], \"src\": \"b L1\"}", unnamed);
    const char *const none[] = {"\"phases\" must list the turn's phases", NULL};
    assert_profile_error("turns", "{\"phases\": [], \"src\": \"b L1\"}", none);
}

int referee_book_tests(void);
int referee_book_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trl_turns),     cmocka_unit_test(test_itb_turns),
        cmocka_unit_test(test_fb_turns),      cmocka_unit_test(test_atkm_turns),
        cmocka_unit_test(test_profile_errors), cmocka_unit_test(test_profile_missing_name),
    };
    return cmocka_run_group_tests_name("referee: the books' turns and calls", tests, NULL, NULL);
}
