/* test_rule_cited.c - every answer carries "rule": where in its rulebook
 * it comes from, or "house: ..." where the book does not settle it.
 *
 * For each of the four profiles, a scenario with one figure per weapon and
 * a target in front of it asks every kind of question; each answer (that is
 * not an error) must cite, and the answers that have no weapon or allowance
 * (los, visibility, command, aspect) must cite exactly the profile section
 * they come from. */
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rules.h"
#include "rules_scenario.h"
#include "tt_json.h"

static const char *const g_dirs[] = {TT_SOURCE_DIR, NULL};

/* The citation a profile section should give: its src, or "house: note". */
static char *expected_cite(const json_t *section)
{
    const char *src = json_string_value(json_object_get(section, "src"));
    const char *note = json_string_value(json_object_get(section, "note"));
    char *out = NULL;
    if (src)
        return strdup(src);
    assert_true(json_is_true(json_object_get(section, "house")));
    size_t n = strlen(note ? note : "") + 16;
    out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "house%s%s", note ? ": " : "", note ? note : "");
    return out;
}

/* A citation names a book and a line ("thin-red-line.txt L246"), or is a
 * house value. */
static void assert_cites(const json_t *answer, const char *what)
{
    regex_t re;
    const char *rule = json_string_value(json_object_get(answer, "rule"));
    if (!rule)
        fail_msg("%s: the answer has no \"rule\": %s", what, json_dumps(answer, JSON_COMPACT));
    assert_int_equal(regcomp(&re, "^(house|[a-z-]+\\.(txt|md) L[0-9]+)", REG_EXTENDED | REG_NOSUB), 0);
    int ok = regexec(&re, rule, 0, NULL, 0) == 0;
    regfree(&re);
    if (!ok)
        fail_msg("%s: \"rule\" is \"%s\", not a book and line nor a house value", what, rule);
}

static json_t *ask(rules_scenario *sc, const char *text)
{
    json_t *q = NULL, *a = NULL;
    tt_err err = {0};
    assert_int_equal(tt_json_parse(text, "query", &q, &err), TT_OK);
    if (rules_query_json(sc, q, &a, &err) != TT_OK)
        a = NULL; /* a question this weapon cannot answer (e.g. grape from a musket) */
    json_decref(q);
    return a;
}

static void check_ruleset(const char *name)
{
    char path[512], text[16384], qtext[512];
    tt_err err = {0};
    json_t *prof = NULL;
    snprintf(path, sizeof path, "%s/rules/profiles/%s.json", TT_SOURCE_DIR, name);
    assert_int_equal(tt_json_load_file(path, &prof, &err), TT_OK);
    const json_t *weapons = json_object_get(prof, "weapons");
    assert_true(json_object_size(weapons) > 0);

    /* one figure per weapon, in a column, each with a target 5" in front
     * (facing 0 points along +x) and a friend beside it */
    int n = snprintf(text, sizeof text, "{\"ruleset\":\"%s\",\"table\":{\"width_in\":72,\"depth_in\":200},"
                                        "\"figures\":[",
                     name);
    const char *wname;
    const json_t *w;
    int k = 0;
    json_object_foreach((json_t *)weapons, wname, w)
    {
        double y = 4 + 8.0 * k++;
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "%s{\"id\":\"f-%s\",\"side\":\"a\",\"unit\":\"u-%s\",\"weapon\":\"%s\",\"x\":10,\"y\":%g,"
                      "\"facing_deg\":0},"
                      "{\"id\":\"t-%s\",\"side\":\"b\",\"unit\":\"v-%s\",\"x\":15,\"y\":%g,\"facing_deg\":180},"
                      "{\"id\":\"p-%s\",\"side\":\"a\",\"unit\":\"w-%s\",\"x\":10,\"y\":%g}",
                      k > 1 ? "," : "", wname, wname, wname, y, wname, wname, y, wname, wname, y + 3);
        assert_true(n < (int)sizeof text);
    }
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    json_t *j = NULL;
    rules_scenario *sc = NULL;
    assert_int_equal(tt_json_parse(text, "scenario", &j, &err), TT_OK);
    if (rules_scenario_from_json(j, "scenario", NULL, g_dirs, &sc, &err) != TT_OK)
        fail_msg("%s: %s", name, err.msg);
    json_decref(j);

    char *want_los = expected_cite(json_object_get(prof, "los"));
    char *want_cmd = expected_cite(json_object_get(prof, "command_radius_in"));
    char *want_asp = expected_cite(json_object_get(prof, "aspect"));
    int answered = 0;
    json_object_foreach((json_t *)weapons, wname, w)
    {
        static const char *const fmt[] = {
            "{\"q\":\"fire\",\"from\":\"f-%s\",\"to\":\"t-%s\"}",   "{\"q\":\"grape\",\"from\":\"f-%s\"}",
            "{\"q\":\"ball\",\"from\":\"f-%s\",\"to\":\"t-%s\"}",   "{\"q\":\"blast\",\"at\":[15,4],\"weapon\":\"%s\"}",
            "{\"q\":\"move\",\"from\":\"f-%s\",\"to\":[12,4]}",      "{\"q\":\"charge\",\"from\":\"f-%s\",\"to\":\"t-%s\"}",
            "{\"q\":\"los\",\"from\":\"f-%s\",\"to\":\"t-%s\"}",     "{\"q\":\"visibility\",\"from\":\"f-%s\"}",
            "{\"q\":\"command\",\"from\":\"f-%s\"}",                "{\"q\":\"aspect\",\"from\":\"f-%s\",\"to\":\"t-%s\"}",
        };
        for (size_t i = 0; i < sizeof fmt / sizeof *fmt; i++) {
            snprintf(qtext, sizeof qtext, fmt[i], wname, wname);
            json_t *a = ask(sc, qtext);
            if (!a)
                continue;
            char what[600];
            snprintf(what, sizeof what, "%s: %s", name, qtext);
            assert_cites(a, what);
            const char *rule = json_string_value(json_object_get(a, "rule"));
            const char *want = i == 6 || i == 7 ? want_los : i == 8 ? want_cmd : i == 9 ? want_asp : NULL;
            if (want && strcmp(rule, want))
                fail_msg("%s: \"rule\" is \"%s\", the profile says \"%s\"", what, rule, want);
            /* a weapon's answers cite the weapon, where the answer is the weapon's */
            const json_t *wsrc = json_object_get(w, "src");
            if (i == 3 && json_is_string(wsrc) && strcmp(rule, json_string_value(wsrc)))
                fail_msg("%s: \"rule\" is \"%s\", the weapon says \"%s\"", what, rule, json_string_value(wsrc));
            /* a shot: the weapon first, then where the score needed is the firer's colour (to_hit) and
             * where the defender rolls (defence_roll), the profile's lines for those */
            if (i == 0 && json_is_string(wsrc)) {
                size_t n = strlen(json_string_value(wsrc));
                if (strncmp(rule, json_string_value(wsrc), n) || (rule[n] && strncmp(rule + n, "; ", 2)))
                    fail_msg("%s: \"rule\" is \"%s\", the weapon says \"%s\"", what, rule, json_string_value(wsrc));
                const json_t *th = json_object_get(prof, "to_hit"), *dr = json_object_get(prof, "defence_roll");
                const char *ths = json_string_value(json_object_get(th, "src"));
                const char *drs = json_string_value(json_object_get(dr, "src"));
                if (json_object_get(th, "by_colour") && ths && !strstr(rule + n, ths))
                    fail_msg("%s: \"rule\" \"%s\" does not cite to_hit's \"%s\"", what, rule, ths);
                if (drs && !strstr(rule + n, drs))
                    fail_msg("%s: \"rule\" \"%s\" does not cite defence_roll's \"%s\"", what, rule, drs);
                if (!(json_object_get(th, "by_colour") && ths) && !drs && rule[n])
                    fail_msg("%s: \"rule\" \"%s\" cites more than the weapon", what, rule);
            }
            answered++;
            json_decref(a);
        }
    }
    /* every weapon answers los, visibility, command, aspect, move at least */
    assert_true(answered >= 5 * (int)json_object_size(weapons));
    free(want_los);
    free(want_cmd);
    free(want_asp);
    rules_scenario_destroy(sc);
    json_decref(prof);
}

static void test_itb(void **state)
{
    (void)state;
    check_ruleset("into-the-breach");
}
static void test_trl(void **state)
{
    (void)state;
    check_ruleset("thin-red-line");
}
static void test_fb(void **state)
{
    (void)state;
    check_ruleset("fixed-bayonet");
}
static void test_atkm(void **state)
{
    (void)state;
    check_ruleset("all-the-kings-men");
}

/* A profile's citation must be a string (src, note) and a boolean (house). */
static void test_bad_citation(void **state)
{
    (void)state;
    static const char *const bad[] = {"{\"src\": 12}", "{\"house\": \"yes\"}", "{\"house\": true, \"note\": 3}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char path[512];
        tt_err err = {0};
        json_t *prof = NULL, *sec = NULL;
        snprintf(path, sizeof path, "%s/rules/profiles/into-the-breach.json", TT_SOURCE_DIR);
        assert_int_equal(tt_json_load_file(path, &prof, &err), TT_OK);
        assert_int_equal(tt_json_parse(bad[i], "aspect", &sec, &err), TT_OK);
        json_object_set_new(prof, "aspect", sec);
        rules_profile *p = NULL;
        tt_status st = rules_profile_from_json(prof, "into-the-breach.json", &p, &err);
        assert_int_not_equal(st, TT_OK);
        assert_non_null(strstr(err.msg, "aspect"));
        assert_null(p);
        rules_profile_destroy(p);
        json_decref(prof);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_itb), cmocka_unit_test(test_trl),         cmocka_unit_test(test_fb),
        cmocka_unit_test(test_atkm), cmocka_unit_test(test_bad_citation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
