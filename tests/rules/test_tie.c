/* test_tie.c - answers that say when they cannot tell (issue 29): figures
 * put exactly on, and just off, each edge a decision turns on (a range
 * bracket, a reaching move, a line grazing a corner, a blast's rim, the
 * front arc), with a given error: too_close_to_call is true within the
 * error and false beyond it; distance_err95_in; exact scenarios answer as
 * before; bad errors refused.  Thin Red Line: distances centre to centre,
 * musket 12" (one bracket, long), foot move 4", 2 x 1.25" bases, the front
 * a 180 degree arc. */
#include <math.h>
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

static const char *const g_dirs[] = {TT_SOURCE_DIR, NULL};

/* A Thin Red Line scenario with a building at 30-34 x 30-34 and figures. */
static rules_scenario *scen(const char *figures)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"ruleset\": \"thin-red-line\", \"table\": {\"width_in\": 72, \"depth_in\": 48}, \"terrain\": "
             "[{\"id\": \"house\", \"kind\": \"building\", \"polygon\": [[30, 30], [34, 30], [34, 34], [30, 34]]}], "
             "\"figures\": [%s]}",
             figures);
    rules_scenario *sc = NULL;
    tt_err err = {0};
    if (rules_scenario_parse(text, "scenario", NULL, g_dirs, &sc, &err) != TT_OK)
        fail_msg("scenario did not load: %s", err.msg);
    return sc;
}

static json_t *ask(rules_scenario *sc, const char *q)
{
    char *line = rules_query_line(sc, q);
    assert_non_null(line);
    json_t *a = json_loads(line, 0, NULL);
    if (!a || json_object_get(a, "error"))
        fail_msg("%s -> %s", q, line);
    free(line);
    return a;
}

/* The answer's too_close_to_call: 1, 0, or -1 when absent. */
static int close_call(const json_t *a)
{
    const json_t *v = json_object_get(a, "too_close_to_call");
    return v ? json_is_true(v) : -1;
}

/* A musket shot at d inches, both figures good to e. */
static json_t *shot(double d, double e)
{
    char figs[512];
    snprintf(figs, sizeof figs,
             "{\"id\": \"f\", \"side\": \"red\", \"type\": \"foot\", \"weapon\": \"musket\", \"x\": 10, \"y\": 20, "
             "\"facing_deg\": 0, \"err95_in\": %g}, {\"id\": \"t\", \"side\": \"blue\", \"type\": \"foot\", \"x\": %.17g, "
             "\"y\": 20, \"facing_deg\": 180, \"err95_in\": %g}",
             e, 10 + d, e);
    rules_scenario *sc = scen(figs);
    json_t *a = ask(sc, "{\"q\": \"fire\", \"from\": \"f\", \"to\": \"t\"}");
    rules_scenario_destroy(sc);
    return a;
}

static void test_range_bracket_edge(void **state)
{
    (void)state;
    const double e = 0.05, E = sqrt(2) * e; /* 0.0707 */
    const struct {
        double d;
        const char *bracket;
        int close;
    } cases[] = {
        {12.0, "long", 1},          /* on the edge: in (12.00 is long), could be out */
        {12.0 - 0.9 * E, "long", 1}, {12.0 + 0.9 * E, "out", 1},  /* within the error of it */
        {12.0 - 1.1 * E, "long", 0}, {12.0 + 1.1 * E, "out", 0},  /* just beyond it */
        {6.0, "long", 0},           /* far from every edge */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_t *a = shot(cases[i].d, e);
        const char *br = json_string_value(json_object_get(a, "bracket"));
        if (!br || strcmp(br, cases[i].bracket) || close_call(a) != cases[i].close)
            fail_msg("at %.4f\": bracket %s too_close_to_call %d, want %s %d", cases[i].d, br ? br : "?", close_call(a),
                     cases[i].bracket, cases[i].close);
        assert_true(fabs(json_number_value(json_object_get(a, "distance_err95_in")) - E) < 1e-4);
        if (cases[i].close) {
            assert_string_equal(json_string_value(json_object_get(a, "tie")), "too close to call: roll off");
            assert_non_null(strstr(json_string_value(json_object_get(a, "tie_rule")), "house"));
        } else {
            assert_null(json_object_get(a, "tie"));
        }
        json_decref(a);
    }
}

/* The live table's way: rules_query, rules_result_to_json, then
 * rules_answer_how_sure adds the same as rules_query_json. */
static void test_how_sure_api(void **state)
{
    (void)state;
    rules_scenario *sc = scen("{\"id\": \"f\", \"side\": \"red\", \"type\": \"foot\", \"weapon\": \"musket\", "
                              "\"x\": 10, \"y\": 20, \"facing_deg\": 0, \"err95_in\": 0.05}, {\"id\": \"t\", \"side\": "
                              "\"blue\", \"type\": \"foot\", \"x\": 22, \"y\": 20, \"facing_deg\": 180, \"err95_in\": 0.05}");
    json_t *q = json_loads("{\"q\": \"fire\", \"from\": \"f\", \"to\": \"t\"}", 0, NULL);
    rules_result r;
    tt_err err = {0};
    assert_int_equal(rules_query(sc, q, &r, &err), TT_OK);
    json_t *a = rules_result_to_json(&r);
    assert_null(json_object_get(a, "too_close_to_call"));
    assert_int_equal(rules_answer_how_sure(sc, q, &r, a, &err), TT_OK);
    assert_int_equal(close_call(a), 1);
    json_t *b = ask(sc, "{\"q\": \"fire\", \"from\": \"f\", \"to\": \"t\"}");
    assert_true(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    json_decref(q);
    rules_result_free(&r);
    rules_scenario_destroy(sc);
}

/* Without errors an answer is exact, as before: no new fields. */
static void test_exact_stays_exact(void **state)
{
    (void)state;
    json_t *a = shot(12.0, 0);
    assert_string_equal(json_string_value(json_object_get(a, "bracket")), "long");
    assert_null(json_object_get(a, "too_close_to_call"));
    assert_null(json_object_get(a, "distance_err95_in"));
    json_decref(a);
}

/* A foot move of 4": a destination exactly 4" away reaches, and is too
 * close to call with the mover good to 0.1"; 0.15" either side is not. */
static void test_move_reach_edge(void **state)
{
    (void)state;
    rules_scenario *sc = scen("{\"id\": \"m\", \"side\": \"red\", \"type\": \"foot\", \"x\": 10, \"y\": 10, "
                              "\"facing_deg\": 0, \"err95_in\": 0.1}");
    const struct {
        double to;
        int ok, close;
    } cases[] = {{14.0, 1, 1}, {14.05, 0, 1}, {13.95, 1, 1}, {14.15, 0, 0}, {13.85, 1, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char q[128];
        snprintf(q, sizeof q, "{\"q\": \"move\", \"from\": \"m\", \"to\": [%.17g, 10]}", cases[i].to);
        json_t *a = ask(sc, q);
        if (json_is_true(json_object_get(a, "ok")) != cases[i].ok || close_call(a) != cases[i].close)
            fail_msg("move to %g: ok %d too_close_to_call %d", cases[i].to, json_is_true(json_object_get(a, "ok")),
                     close_call(a));
        assert_true(fabs(json_number_value(json_object_get(a, "distance_err95_in")) - 0.1) < 1e-9);
        json_decref(a);
    }
    rules_scenario_destroy(sc);
}

/* A line of sight passing a building's corner 0.05" clear is too close to
 * call with figures good to 0.1"; 0.3" clear is not; through it is
 * blocked, and 0.05" inside is blocked but too close. */
static void test_los_grazing_corner(void **state)
{
    (void)state;
    const struct {
        double y;
        int visible, close;
    } cases[] = {{29.95, 1, 1}, {29.7, 1, 0}, {30.05, 0, 1}, {31.0, 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char figs[512];
        snprintf(figs, sizeof figs,
                 "{\"id\": \"a\", \"side\": \"red\", \"type\": \"foot\", \"x\": 20, \"y\": %.17g, \"facing_deg\": 0, "
                 "\"err95_in\": 0.1}, {\"id\": \"b\", \"side\": \"blue\", \"type\": \"foot\", \"x\": 44, \"y\": %.17g, "
                 "\"facing_deg\": 180, \"err95_in\": 0.1}",
                 cases[i].y, cases[i].y);
        rules_scenario *sc = scen(figs);
        json_t *a = ask(sc, "{\"q\": \"los\", \"from\": \"a\", \"to\": \"b\"}");
        if (json_is_true(json_object_get(a, "visible")) != cases[i].visible || close_call(a) != cases[i].close)
            fail_msg("line at y %g: visible %d too_close_to_call %d", cases[i].y,
                     json_is_true(json_object_get(a, "visible")), close_call(a));
        json_decref(a);
        rules_scenario_destroy(sc);
    }
}

/* A blast's rim 0.05" short of a base good to 0.1": that figure is named
 * too close; the rim 0.5" short is not. */
static void test_blast_rim(void **state)
{
    (void)state;
    rules_scenario *sc = scen("{\"id\": \"b1\", \"side\": \"blue\", \"type\": \"foot\", \"x\": 50, \"y\": 10, "
                              "\"facing_deg\": 0, \"err95_in\": 0.1}, {\"id\": \"b2\", \"side\": \"blue\", \"type\": "
                              "\"foot\", \"x\": 60, \"y\": 10, \"facing_deg\": 0, \"err95_in\": 0.1}");
    /* b1's base reaches y 11 (2" wide across its facing): the rim at 12.95 */
    json_t *a = ask(sc, "{\"q\": \"blast\", \"at\": [50, 13], \"radius_in\": 1.95}");
    assert_int_equal(json_array_size(json_object_get(a, "hit")), 0);
    assert_int_equal(close_call(a), 1);
    const json_t *ids = json_object_get(a, "too_close_ids");
    assert_int_equal(json_array_size(ids), 1);
    assert_string_equal(json_string_value(json_array_get(ids, 0)), "b1");
    json_decref(a);
    a = ask(sc, "{\"q\": \"blast\", \"at\": [50, 13], \"radius_in\": 1.5}");
    assert_int_equal(close_call(a), 0);
    json_decref(a);
    rules_scenario_destroy(sc);
}

/* Front or flank: an attacker square beside the target's facing (on the
 * edge of its 180 degree front) is too close with the target's facing good
 * to 5 degrees; one 20 degrees into the front is not. */
static void test_aspect_edge(void **state)
{
    (void)state;
    const struct {
        double x, y;
        const char *aspect;
        int close;
    } cases[] = {{40, 44, NULL, 1}, {40 + 24 * sin(20 * M_PI / 180), 20 + 24 * cos(20 * M_PI / 180), "front", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char figs[512];
        snprintf(figs, sizeof figs,
                 "{\"id\": \"a\", \"side\": \"red\", \"type\": \"foot\", \"x\": %.17g, \"y\": %.17g, \"facing_deg\": "
                 "-90}, {\"id\": \"t\", \"side\": \"blue\", \"type\": \"foot\", \"x\": 40, \"y\": 20, \"facing_deg\": 0, "
                 "\"facing_err95_deg\": 5}",
                 cases[i].x, cases[i].y);
        rules_scenario *sc = scen(figs);
        json_t *a = ask(sc, "{\"q\": \"aspect\", \"from\": \"a\", \"to\": \"t\"}");
        const char *asp = json_string_value(json_object_get(a, "aspect"));
        if ((cases[i].aspect && strcmp(asp, cases[i].aspect)) || close_call(a) != cases[i].close)
            fail_msg("attacker at (%g, %g): %s too_close_to_call %d", cases[i].x, cases[i].y, asp, close_call(a));
        json_decref(a);
        rules_scenario_destroy(sc);
    }
}

/* The decision of a query as one number: figure `id` in the list `key`
 * (1 or 0), or the answer's "ok" where key is NULL. */
static int decision(rules_scenario *sc, const char *q, const char *key, const char *id, int *close)
{
    json_t *a = ask(sc, q);
    int d = 0;
    if (key && !strcmp(key, "bracket")) {
        const char *b = json_string_value(json_object_get(a, "bracket"));
        d = b && !strcmp(b, id);
    } else if (key) {
        const json_t *l = json_object_get(a, key);
        for (size_t i = 0; i < json_array_size(l); i++)
            d |= !strcmp(json_string_value(json_array_get(l, i)), id);
    } else {
        d = json_is_true(json_object_get(a, "ok"));
    }
    *close = close_call(a);
    json_decref(a);
    return d;
}

/* figs: the figures, with %.17g for the moving figure's x, %g for its
 * err95_in and optionally %g for its facing_err95_deg (40 e degrees).  The edge x* where the exact answer flips is found by
 * bisection; then with the figure good to e, the answer at x* +- 0.5 e is
 * too close to call and at x* +- 1.5 e is not, deciding as the exact one. */
static rules_scenario *scen_in(const char *ruleset, const char *figures)
{
    if (!strcmp(ruleset, "thin-red-line"))
        return scen(figures);
    char text[4096];
    snprintf(text, sizeof text, "{\"ruleset\": \"%s\", \"table\": {\"width_in\": 72, \"depth_in\": 48}, \"figures\": [%s]}",
             ruleset, figures);
    rules_scenario *sc = NULL;
    tt_err err = {0};
    if (rules_scenario_parse(text, "scenario", NULL, g_dirs, &sc, &err) != TT_OK)
        fail_msg("scenario did not load: %s", err.msg);
    return sc;
}

static void edge_case_in(const char *ruleset, const char *figs, const char *q, const char *key, const char *id,
                         double x_in, double x_out, double e)
{
    char buf[1024];
    int close;
    for (int end = 0; end < 2; end++) { /* x_in decides in, x_out out */
        snprintf(buf, sizeof buf, figs, end ? x_out : x_in, 0.0, 0.0);
        rules_scenario *sc = scen_in(ruleset, buf);
        assert_int_equal(decision(sc, q, key, id, &close), !end);
        rules_scenario_destroy(sc);
    }
    for (int it = 0; it < 40; it++) {
        double xm = (x_in + x_out) / 2;
        snprintf(buf, sizeof buf, figs, xm, 0.0, 0.0);
        rules_scenario *sc = scen_in(ruleset, buf);
        int d = decision(sc, q, key, id, &close);
        assert_int_equal(close, -1); /* exact: no call made */
        rules_scenario_destroy(sc);
        *(d ? &x_in : &x_out) = xm;
    }
    const double k[4] = {-1.5, -0.5, 0.5, 1.5};
    for (int i = 0; i < 4; i++) {
        double x = x_in + k[i] * e * (x_out > x_in ? 1 : -1); /* negative: inside */
        snprintf(buf, sizeof buf, figs, x, e, 40 * e); /* a facing format, if any: 40 e degrees */
        rules_scenario *sc = scen_in(ruleset, buf);
        int d = decision(sc, q, key, id, &close);
        int want_close = fabs(k[i]) < 1;
        if (close != want_close || d != (k[i] < 0))
            fail_msg("%s: %s at %+.1f e from the edge (x %.5f): in %d too_close_to_call %d", q, id, k[i], x, d, close);
        rules_scenario_destroy(sc);
    }
    print_message("%s: edge at %.5f; too close within %.2f\" of it, not beyond\n", q, x_in, e);
}

static void edge_case(const char *figs, const char *q, const char *key, const char *id, double x_in, double x_out,
                      double e)
{
    edge_case_in("thin-red-line", figs, q, key, id, x_in, x_out, e);
}

/* A grape cone's range and side, a command radius, a charge that reaches:
 * on and off each edge with the figure good to 0.1". */
static void test_cone_radius_charge(void **state)
{
    (void)state;
    /* grape 12" in a 90 degree arc from the gun facing +x: a stand ahead */
    edge_case("{\"id\": \"gun\", \"side\": \"red\", \"type\": \"artillery\", \"weapon\": \"light-artillery\", "
              "\"x\": 10, \"y\": 20, \"facing_deg\": 0}, {\"id\": \"g1\", \"side\": \"blue\", \"type\": \"foot\", "
              "\"x\": %.17g, \"y\": 20, \"facing_deg\": 180, \"err95_in\": %g}",
              "{\"q\": \"grape\", \"from\": \"gun\"}", "targets", "g1", 15, 30, 0.1);
    /* ... and across the cone's side: a stand 8\" ahead moved sideways */
    edge_case("{\"id\": \"gun\", \"side\": \"red\", \"type\": \"artillery\", \"weapon\": \"light-artillery\", "
              "\"x\": 10, \"y\": 20, \"facing_deg\": 90}, {\"id\": \"g1\", \"side\": \"blue\", \"type\": \"foot\", "
              "\"x\": %.17g, \"y\": 28, \"facing_deg\": 0, \"err95_in\": %g}",
              "{\"q\": \"grape\", \"from\": \"gun\"}", "targets", "g1", 10, 25, 0.1);
    /* the general's 8\" command radius */
    edge_case("{\"id\": \"gen\", \"side\": \"red\", \"type\": \"general\", \"x\": 10, \"y\": 20, "
              "\"facing_deg\": 0}, {\"id\": \"c1\", \"side\": \"red\", \"unit\": \"1st\", \"type\": \"foot\", "
              "\"x\": %.17g, \"y\": 20, \"facing_deg\": 0, \"err95_in\": %g}",
              "{\"q\": \"command\", \"from\": \"gen\"}", "units", "1st", 12, 30, 0.1);
    /* a foot charge of 4\" that reaches the target's base */
    edge_case("{\"id\": \"ch\", \"side\": \"red\", \"type\": \"foot\", \"formation\": \"line\", \"x\": 10, "
              "\"y\": 20, \"facing_deg\": 0}, {\"id\": \"tg\", \"side\": \"blue\", \"type\": \"foot\", \"x\": "
              "%.17g, \"y\": 20, \"facing_deg\": 180, \"err95_in\": %g}",
              "{\"q\": \"charge\", \"from\": \"ch\", \"to\": \"tg\"}", NULL, NULL, 12, 20, 0.1);
}

/* Into the Breach! musket brackets short 4", medium 8", long 12" (base
 * edge to base edge): each edge with the target good to 0.05" (and its
 * facing to 2 degrees). */
static void test_every_bracket_edge(void **state)
{
    (void)state;
    const char *figs = "{\"id\": \"f\", \"side\": \"red\", \"weapon\": \"musket\", \"x\": 10, \"y\": 20, "
                       "\"facing_deg\": 0}, {\"id\": \"t\", \"side\": \"blue\", \"x\": %.17g, \"y\": 20, "
                       "\"facing_deg\": 180, \"err95_in\": %g, \"facing_err95_deg\": %g}";
    const struct {
        const char *bracket;
        double in, out;
    } edges[] = {{"short", 12, 16}, {"medium", 16, 20}, {"long", 20, 25}};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
        edge_case_in("into-the-breach", figs, "{\"q\": \"fire\", \"from\": \"f\", \"to\": \"t\"}", "bracket",
                     edges[i].bracket, edges[i].in, edges[i].out, 0.05);
    }
}

/* A cannonball's path (Into the Breach!, every figure it touches): a
 * figure beside the line moved across it, good to 0.05". */
static void test_ball_path_edge(void **state)
{
    (void)state;
    edge_case_in("into-the-breach",
                 "{\"id\": \"gun\", \"side\": \"red\", \"weapon\": \"artillery\", \"x\": 10, \"y\": 20, "
                 "\"facing_deg\": 0}, {\"id\": \"b1\", \"side\": \"blue\", \"x\": 25, \"y\": %.17g, \"facing_deg\": 0, "
                 "\"err95_in\": %g}",
                 "{\"q\": \"ball\", \"from\": \"gun\", \"at\": [40, 20]}", "touched", "b1", 20.2, 21.5, 0.05);
}

/* A unit's fire at a unit: one target stand moved out of musket range
 * (12", centre to centre) of the nearest firer, good to 0.1". */
static void test_unit_fire_edge(void **state)
{
    (void)state;
    edge_case("{\"id\": \"r1\", \"side\": \"red\", \"unit\": \"reds\", \"type\": \"foot\", \"weapon\": \"musket\", "
              "\"formation\": \"line\", \"x\": 10, \"y\": 20, \"facing_deg\": 0}, {\"id\": \"r2\", \"side\": \"red\", "
              "\"unit\": \"reds\", \"type\": \"foot\", \"weapon\": \"musket\", \"formation\": \"line\", \"x\": 10, "
              "\"y\": 22, \"facing_deg\": 0}, {\"id\": \"b1\", \"side\": \"blue\", \"unit\": \"blues\", \"type\": "
              "\"foot\", \"x\": 18, \"y\": 20, \"facing_deg\": 180}, {\"id\": \"b2\", \"side\": \"blue\", \"unit\": "
              "\"blues\", \"type\": \"foot\", \"x\": %.17g, \"y\": 22, \"facing_deg\": 180, \"err95_in\": %g}",
              "{\"q\": \"fire\", \"from\": \"reds\", \"to\": \"blues\"}", "targets", "b2", 19, 26, 0.1);
}

/* A refusal that the errors could undo: Into the Breach! guns fire
 * roundshot within 30 degrees of their facing (L84-85); aimed 32.5 degrees
 * off with the facing good to 2 degrees the refusal says it is too close
 * to call, 34 degrees off it does not, and exactly known it never does. */
static void test_refusal_within_errors(void **state)
{
    (void)state;
    const struct {
        double deg, ferr;
        int close;
    } cases[] = {{32.5, 2, 1}, {34, 2, 0}, {32.5, 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024];
        double a = cases[i].deg * M_PI / 180;
        snprintf(text, sizeof text,
                 "{\"ruleset\": \"into-the-breach\", \"table\": {\"width_in\": 72, \"depth_in\": 48}, \"figures\": "
                 "[{\"id\": \"gun\", \"side\": \"red\", \"weapon\": \"artillery\", \"x\": 10, \"y\": 20, "
                 "\"facing_deg\": 0, \"facing_err95_deg\": %g}, {\"id\": \"c\", \"side\": \"blue\", \"x\": %.17g, "
                 "\"y\": %.17g, \"facing_deg\": 0}]}",
                 cases[i].ferr, 10 + 15 * cos(a), 20 + 15 * sin(a));
        rules_scenario *sc = NULL;
        tt_err err = {0};
        assert_int_equal(rules_scenario_parse(text, "scenario", NULL, g_dirs, &sc, &err), TT_OK);
        char *line = rules_query_line(sc, "{\"q\": \"ball\", \"from\": \"gun\", \"to\": \"c\"}");
        assert_non_null(line);
        assert_non_null(strstr(line, "\"error\""));
        assert_non_null(strstr(line, "cannot fire roundshot that way"));
        if ((strstr(line, "too close to call") != NULL) != cases[i].close)
            fail_msg("%g degrees off, facing good to %g: %s", cases[i].deg, cases[i].ferr, line);
        free(line);
        rules_scenario_destroy(sc);
    }
}

/* Heights: from a 2" hill over another 2" hill a line is blocked (a piece
 * as high as the line blocks it); with the viewer's height good to 0.1" it
 * could pass over: too close to call.  Exactly known, it is not. */
static void test_height_error(void **state)
{
    (void)state;
    for (int z = 0; z < 2; z++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"ruleset\": \"thin-red-line\", \"table\": {\"width_in\": 72, \"depth_in\": 48}, \"terrain\": "
                 "[{\"id\": \"a\", \"kind\": \"hill\", \"polygon\": [[5, 15], [15, 15], [15, 25], [5, 25]]}, "
                 "{\"id\": \"b\", \"kind\": \"hill\", \"polygon\": [[25, 15], [35, 15], [35, 25], [25, 25]]}], "
                 "\"figures\": [{\"id\": \"v\", \"side\": \"red\", \"type\": \"foot\", \"x\": 10, \"y\": 20, "
                 "\"facing_deg\": 0, \"z_err95_in\": %g, \"err95_in\": 0.01}, {\"id\": \"w\", \"side\": \"blue\", "
                 "\"type\": \"foot\", \"x\": 45, \"y\": 20, \"facing_deg\": 180}]}",
                 z ? 0.1 : 0.0);
        rules_scenario *sc = NULL;
        tt_err err = {0};
        assert_int_equal(rules_scenario_parse(text, "scenario", NULL, g_dirs, &sc, &err), TT_OK);
        json_t *a = ask(sc, "{\"q\": \"los\", \"from\": \"v\", \"to\": \"w\"}");
        assert_false(json_is_true(json_object_get(a, "visible")));
        assert_string_equal(json_string_value(json_object_get(a, "blocked_by")), "b");
        assert_int_equal(close_call(a), z);
        json_decref(a);
        rules_scenario_destroy(sc);
    }
}

static void test_bad_errors(void **state)
{
    (void)state;
    const struct {
        const char *field, *says;
    } cases[] = {
        {"\"err95_in\": -0.1", "cannot be negative"},   {"\"err95_in\": \"NaN\"", "must be a number"},
        {"\"err95_in\": 1e300", "wrong unit"},           {"\"z_err95_in\": 30", "wrong unit"},
        {"\"facing_err95_deg\": -3", "cannot be negative"}, {"\"facing_err95_deg\": 400", "wrong unit"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"ruleset\": \"thin-red-line\", \"table\": {\"width_in\": 72, \"depth_in\": 48}, \"figures\": "
                 "[{\"id\": \"f\", \"x\": 10, \"y\": 10, %s}]}",
                 cases[i].field);
        rules_scenario *sc = NULL;
        tt_err err = {0};
        assert_int_not_equal(rules_scenario_parse(text, "scenario", NULL, g_dirs, &sc, &err), TT_OK);
        assert_null(sc);
        if (!strstr(err.msg, cases[i].says))
            fail_msg("\"%s\" does not say \"%s\"", err.msg, cases[i].says);
    }
    /* handed in live: NaN and negative refused, the figure unchanged */
    rules_scenario *sc = scen("{\"id\": \"f\", \"x\": 10, \"y\": 10}");
    tt_err err = {0};
    assert_int_not_equal(rules_scenario_set_errors(sc, "f", NAN, 0, 0, &err), TT_OK);
    assert_non_null(strstr(err.msg, "not a number"));
    assert_int_not_equal(rules_scenario_set_errors(sc, "f", 0.1, -1, 0, &err), TT_OK);
    assert_int_equal(rules_scenario_set_errors(sc, "f", 0.1, 0.2, 3, &err), TT_OK);
    rules_scenario_destroy(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range_bracket_edge), cmocka_unit_test(test_exact_stays_exact),
        cmocka_unit_test(test_how_sure_api),
        cmocka_unit_test(test_move_reach_edge),    cmocka_unit_test(test_los_grazing_corner),
        cmocka_unit_test(test_blast_rim),          cmocka_unit_test(test_aspect_edge),
        cmocka_unit_test(test_cone_radius_charge), cmocka_unit_test(test_every_bracket_edge),
        cmocka_unit_test(test_height_error),       cmocka_unit_test(test_ball_path_edge),
        cmocka_unit_test(test_unit_fire_edge),     cmocka_unit_test(test_refusal_within_errors),
        cmocka_unit_test(test_bad_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
