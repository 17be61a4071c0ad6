/* test_slope.c - sloped hills (a scenario piece's "slope_in", rules/scenario/
 * slope.c): the ground's height and gradient, the footprint, concave
 * polygons, lines of sight over the slope, and the bad input refused. */
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
#include "rules_scenario.h"
#include "tt_ground.h"
#include "tt_json.h"

static const char *const g_dirs[] = {TT_SOURCE_DIR, NULL};

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static double rndu(double lo, double hi)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return lo + (hi - lo) * (double)(g_rng >> 11) / 9007199254740992.0;
}

static tt_status load_text(const char *text, rules_scenario **sc, tt_err *err)
{
    return rules_scenario_parse(text, "scenario", NULL, g_dirs, sc, err);
}

static rules_scenario *load_ok(const char *text)
{
    rules_scenario *sc = NULL;
    tt_err err = {0};
    if (load_text(text, &sc, &err) != TT_OK)
        fail_msg("scenario did not load: %s", err.msg);
    return sc;
}

static void expect_error(const char *text, const char *substr)
{
    rules_scenario *sc = NULL;
    tt_err err = {0};
    tt_status st = load_text(text, &sc, &err);
    assert_null(sc);
    assert_int_not_equal(st, TT_OK);
    if (!strstr(err.msg, substr))
        fail_msg("message \"%s\" does not mention \"%s\"", err.msg, substr);
}

/* A scenario of one piece (its JSON) on a 72 x 48 table, Into the Breach
 * (a hill raises, blocks sight and is open going), plus figures. */
static rules_scenario *one_piece(const char *piece, const char *figures)
{
    char text[8192];
    snprintf(text, sizeof text,
             "{\"ruleset\": \"into-the-breach\", \"table\": {\"width_in\": 72, \"depth_in\": 48}, \"terrain\": [%s], "
             "\"figures\": [%s]}",
             piece, figures ? figures : "");
    return load_ok(text);
}

/* The convex formula of the issue: min(top, min_e top (1 - d_e / RUN)),
 * d_e >= 0 the distance outside edge e's line; 0 where it goes negative. */
static double convex_height(const double *xy, int n, double top, double run, double x, double y)
{
    double h = top;
    for (int k = 0; k < n; k++) {
        double ax = xy[2 * k], ay = xy[2 * k + 1], bx = xy[2 * ((k + 1) % n)], by = xy[2 * ((k + 1) % n) + 1];
        double L = hypot(bx - ax, by - ay), d = ((x - ax) * (by - ay) - (y - ay) * (bx - ax)) / L;
        double he = top * (1 - (d > 0 ? d : 0) / run);
        h = he < h ? he : h;
    }
    return h > 0 ? h : 0;
}

static void test_square_hill_heights(void **state)
{
    (void)state;
    rules_scenario *sc = one_piece("{\"id\": \"knoll\", \"kind\": \"hill\", \"height_in\": 2, \"slope_in\": 4, "
                                   "\"polygon\": [[30, 20], [40, 20], [40, 30], [30, 30]]}",
                                   NULL);
    assert_true(fabs(rules_scenario_ground_in(sc, 35, 25) - 2) < 1e-12);   /* the top */
    assert_true(fabs(rules_scenario_ground_in(sc, 40, 25) - 2) < 1e-12);   /* its edge */
    assert_true(fabs(rules_scenario_ground_in(sc, 42, 25) - 1) < 1e-9);    /* half way down */
    assert_true(fabs(rules_scenario_ground_in(sc, 43, 33) - 0.5) < 1e-9);  /* on the hip: 3in out of both edges */
    assert_true(fabs(rules_scenario_ground_in(sc, 43, 31) - 0.5) < 1e-9);  /* beside it: 3in out of the east one */
    assert_true(rules_scenario_ground_in(sc, 44, 25) == 0);                /* the foot */
    assert_true(rules_scenario_ground_in(sc, 44.5, 25) == 0);              /* the felt */
    assert_true(fabs(rules_scenario_ground_in(sc, 43.5, 33.5) - 0.25) < 1e-9); /* 4.9in from the corner: a hip */
    assert_true(rules_scenario_ground_in(sc, 44.05, 34.05) == 0);          /* past the hip's foot, (44, 34) */
    /* the gradient: 0.5 in/in falling east on the east side, 0 on top */
    tt_ground g = {rules_scenario_ground_in, sc};
    double gx, gy;
    tt_ground_gradient(&g, 42, 25, &gx, &gy);
    assert_true(fabs(gx + 0.5) < 1e-9 && fabs(gy) < 1e-9);
    tt_ground_gradient(&g, 35, 25, &gx, &gy);
    assert_true(gx == 0 && gy == 0);
    tt_ground_gradient(&g, 35, 17, &gx, &gy); /* the south side rises northwards */
    assert_true(fabs(gx) < 1e-9 && fabs(gy - 0.5) < 1e-9);
    /* the footprint is grown by 4in on every side, mitred at the corners */
    double h = 0;
    const double *xy = NULL;
    int n = 0;
    assert_true(rules_scenario_raised_piece(sc, 0, NULL, &h, &xy, &n));
    assert_int_equal(n, 4);
    assert_true(xy[0] == 30 && xy[1] == 20); /* the outline given is the top's */
    const rules_piece *pc = &sc->pieces[0];
    assert_int_equal(pc->lo.x, rules_fx(26));
    assert_int_equal(pc->hi.y, rules_fx(34));
    rules_scenario_destroy(sc);
}

/* Random convex polygons: the ground is the formula everywhere. */
static void test_convex_formula(void **state)
{
    (void)state;
    for (int trial = 0; trial < 40; trial++) {
        int n = 3 + trial % 6;
        double ang[8], xy[16], cx = rndu(25, 45), cy = rndu(18, 30), r = rndu(3, 8);
        for (int k = 0; k < n; k++)
            ang[k] = (k + rndu(0.15, 0.85)) * 2 * M_PI / n;
        char poly[512] = "";
        for (int k = 0; k < n; k++) {
            xy[2 * k] = round((cx + r * cos(ang[k])) * 100) / 100;
            xy[2 * k + 1] = round((cy + r * sin(ang[k])) * 100) / 100;
            snprintf(poly + strlen(poly), sizeof poly - strlen(poly), "%s[%g, %g]", k ? ", " : "", xy[2 * k],
                     xy[2 * k + 1]);
        }
        double top = rndu(0.5, 4), run = rndu(0.5, 6);
        char piece[1024];
        snprintf(piece, sizeof piece, "{\"id\": \"h\", \"kind\": \"hill\", \"height_in\": %.17g, \"slope_in\": %.17g, "
                                      "\"polygon\": [%s]}",
                 top, run, poly);
        rules_scenario *sc = one_piece(piece, NULL);
        for (int s = 0; s < 400; s++) {
            double x = rndu(cx - r - run - 2, cx + r + run + 2), y = rndu(cy - r - run - 2, cy + r + run + 2);
            double want = convex_height(xy, n, top, run, x, y), got = rules_scenario_ground_in(sc, x, y);
            if (fabs(want - got) > 1e-6)
                fail_msg("trial %d at (%g, %g): %.9g, the formula %.9g", trial, x, y, got, want);
        }
        rules_scenario_destroy(sc);
    }
}

/* An L: its concave corner makes a valley (the higher of the two sides),
 * not the lower; inside the L is all top. */
static void test_concave_valley(void **state)
{
    (void)state;
    rules_scenario *sc = one_piece("{\"id\": \"ell\", \"kind\": \"hill\", \"height_in\": 2, \"slope_in\": 4, "
                                   "\"polygon\": [[10, 10], [20, 10], [20, 14], [14, 14], [14, 20], [10, 20]]}",
                                   NULL);
    /* in the notch, 1in from the arm's edge and 2in from the other: 1.5 */
    assert_true(fabs(rules_scenario_ground_in(sc, 16, 15) - 1.5) < 1e-9);
    assert_true(fabs(rules_scenario_ground_in(sc, 15, 16) - 1.5) < 1e-9);
    assert_true(fabs(rules_scenario_ground_in(sc, 16, 16) - 1.0) < 1e-9); /* on the valley */
    assert_true(fabs(rules_scenario_ground_in(sc, 11, 19) - 2) < 1e-12);  /* inside the L */
    assert_true(fabs(rules_scenario_ground_in(sc, 19, 11) - 2) < 1e-12);
    assert_true(fabs(rules_scenario_ground_in(sc, 22, 12) - 1) < 1e-9);   /* an outer side */
    assert_true(fabs(rules_scenario_ground_in(sc, 23, 17) - 0.5) < 1e-9); /* the outer hip at (20, 14) */
    assert_true(rules_scenario_ground_in(sc, 18.01, 18.01) == 0);         /* past the valley's foot (18, 18) */
    /* continuous: neighbouring points differ by at most the slope's pitch */
    for (int i = 0; i < 2000; i++) {
        double x = rndu(5, 25), y = rndu(5, 25), dx = rndu(-0.01, 0.01), dy = rndu(-0.01, 0.01);
        double d = fabs(rules_scenario_ground_in(sc, x, y) - rules_scenario_ground_in(sc, x + dx, y + dy));
        if (d > 0.5 * hypot(dx, dy) + 1e-6)
            fail_msg("a step of %g at (%g, %g)", d, x, y);
    }
    rules_scenario_destroy(sc);
}

static void test_bad_slopes(void **state)
{
    (void)state;
    const char *head = "{\"ruleset\": \"into-the-breach\", \"table\": {\"width_in\": 72, \"depth_in\": 48}, "
                       "\"terrain\": [";
    const struct {
        const char *piece, *says;
    } cases[] = {
        {"{\"id\": \"h\", \"kind\": \"hill\", \"slope_in\": -1, \"polygon\": [[1,1],[5,1],[5,5]]}", "cannot be negative"},
        {"{\"id\": \"h\", \"kind\": \"hill\", \"slope_in\": \"NaN\", \"polygon\": [[1,1],[5,1],[5,5]]}",
         "\"slope_in\" must be a number"},
        {"{\"id\": \"h\", \"kind\": \"hill\", \"slope_in\": 1e308, \"polygon\": [[1,1],[5,1],[5,5]]}", "millimetres"},
        {"{\"id\": \"h\", \"kind\": \"hill\", \"slope_in\": 60, \"polygon\": [[1,1],[5,1],[5,5]]}", "millimetres"},
        {"{\"id\": \"w\", \"kind\": \"woods\", \"slope_in\": 2, \"polygon\": [[1,1],[5,1],[5,5]]}",
         "kind \"woods\" does not raise"},
        {"{\"id\": \"w\", \"kind\": \"wall\", \"slope_in\": 2, \"line\": [[1,1],[5,1]]}", "does not raise"},
        /* a U whose 2in notch cannot take 4in slopes from both sides */
        {"{\"id\": \"u\", \"kind\": \"hill\", \"slope_in\": 4, \"polygon\": [[10,10],[20,10],[20,20],[16,20],[16,12],"
         "[14,12],[14,20],[10,20]]}",
         "run into each other"},
        /* a needle: its corner's slope would run far off the table */
        {"{\"id\": \"n\", \"kind\": \"hill\", \"slope_in\": 40, \"polygon\": [[10,10],[60,10.05],[10,10.1]]}",
         "off the table"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024];
        snprintf(text, sizeof text, "%s%s]}", head, cases[i].piece);
        expect_error(text, cases[i].says);
    }
    /* the same U with a run its notch allows loads; 0 is vertical sides */
    char text[1024];
    snprintf(text, sizeof text, "%s%s]}", head,
             "{\"id\": \"u\", \"kind\": \"hill\", \"slope_in\": 0.9, \"polygon\": [[10,10],[20,10],[20,20],[16,20],"
             "[16,12],[14,12],[14,20],[10,20]]}");
    rules_scenario *sc = load_ok(text);
    assert_true(fabs(rules_scenario_ground_in(sc, 15, 19) - 2 * (1 - 0.9 / 0.9)) < 1e-9 ||
                rules_scenario_ground_in(sc, 15, 19) < 2); /* the notch's floor between the arms */
    assert_true(fabs(rules_scenario_ground_in(sc, 14.45, 19) - 2 * (1 - 0.45 / 0.9)) < 1e-9);
    rules_scenario_destroy(sc);
    snprintf(text, sizeof text, "%s%s]}", head,
             "{\"id\": \"h\", \"kind\": \"hill\", \"slope_in\": 0, \"polygon\": [[10,10],[20,10],[20,20]]}");
    sc = load_ok(text);
    assert_true(rules_scenario_ground_in(sc, 20.5, 15) == 0 && rules_scenario_ground_in(sc, 19.9, 15) == 2);
    rules_scenario_destroy(sc);
}

/* Figures stand at the slope's height; lines of sight by the grid and by
 * every piece agree over a sloped hill, and follow its ground. */
static void test_slope_sight(void **state)
{
    (void)state;
    rules_scenario *sc = one_piece("{\"id\": \"knoll\", \"kind\": \"hill\", \"height_in\": 2, \"slope_in\": 4, "
                                   "\"polygon\": [[30, 20], [40, 20], [40, 30], [30, 30]]}",
                                   "{\"id\": \"a\", \"x\": 20, \"y\": 25}, {\"id\": \"b\", \"x\": 42, \"y\": 25},"
                                   "{\"id\": \"c\", \"x\": 28, \"y\": 25}, {\"id\": \"d\", \"x\": 35, \"y\": 25},"
                                   "{\"id\": \"e\", \"x\": 50, \"y\": 25}");
    assert_true(fabs(sc->figs[1].elev - 1) < 1e-9);
    assert_true(fabs(sc->figs[2].elev - 1) < 1e-9);
    assert_true(sc->figs[3].elev == 2);
    assert_true(sc->figs[1].on_hill && !sc->figs[0].on_hill);
    assert_false(rules_los_index(sc, 0, 1)); /* a on the felt, b on the far side 1in up */
    assert_true(rules_los_index(sc, 0, 2));  /* c on the near side */
    assert_true(rules_los_index(sc, 0, 3));  /* d on the top */
    assert_true(rules_los_index(sc, 3, 4));  /* from the top over the far side */
    assert_false(rules_los_index(sc, 2, 4)); /* from the near side over the top */
    assert_true(rules_los_index(sc, 1, 4));  /* from the far side down to the felt */
    /* random figures: the grid's answer is every piece's */
    tt_err err = {0};
    for (int t = 0; t < 300; t++) {
        for (int k = 0; k < 5; k++)
            assert_int_equal(rules_scenario_place(sc, rules_scenario_figure_id(sc, (size_t)k), rndu(15, 55),
                                                  rndu(10, 40), 0, &err),
                             TT_OK);
        for (size_t i = 0; i < 5; i++)
            for (size_t j = 0; j < 5; j++)
                assert_int_equal(rules_los_index(sc, i, j), rules_los_index_bruteforce(sc, i, j));
    }
    rules_scenario_destroy(sc);
}

/* (x, y) inside the polygon of n corners (inches), by crossings. */
static int in_poly(const rules_point *p, size_t n, double x, double y)
{
    int in = 0;
    for (size_t i = 0, j = n - 1; i < n; j = i++)
        if ((p[i].y > y) != (p[j].y > y) && x < (p[j].x - p[i].x) * (y - p[i].y) / (p[j].y - p[i].y) + p[i].x)
            in = !in;
    return in;
}

/* The visibility polygon over a sloped hill agrees with lines of sight:
 * from its side 1" up a viewer sees down its own side and over the felt
 * behind it, not over the top; from the felt, not past the hill; from the
 * top, everywhere. Ground points off the hill, checked against a line of
 * sight to a figure standing there. */
static void test_slope_visibility(void **state)
{
    (void)state;
    rules_scenario *sc = one_piece("{\"id\": \"knoll\", \"kind\": \"hill\", \"height_in\": 2, \"slope_in\": 4, "
                                   "\"polygon\": [[30, 20], [40, 20], [40, 30], [30, 30]]}",
                                   "{\"id\": \"v\", \"x\": 42, \"y\": 25}, {\"id\": \"p\", \"x\": 1, \"y\": 1}");
    const double viewers[3][2] = {{42, 25}, {20, 25}, {35, 25}};
    tt_err err = {0};
    int checked = 0;
    for (int w = 0; w < 3; w++) {
        assert_int_equal(rules_scenario_place(sc, "v", viewers[w][0], viewers[w][1], 0, &err), TT_OK);
        rules_result r;
        assert_int_equal(rules_visibility(sc, "v", &r, &err), TT_OK);
        assert_true(r.n_polygon >= 3);
        for (int i = 0; i < 3000; i++) {
            double x = rndu(1, 71), y = rndu(1, 47);
            if (rules_scenario_ground_in(sc, x, y) > 0)
                continue;
            assert_int_equal(rules_scenario_place(sc, "p", x, y, 0, &err), TT_OK);
            int los = rules_los_index(sc, 0, 1), vis = in_poly(r.polygon, r.n_polygon, x, y);
            /* near the outline either may hold: the polygon is for drawing */
            double near = 1e9;
            for (size_t k = 0; k < r.n_polygon; k++) {
                const rules_point *a = &r.polygon[k], *b = &r.polygon[(k + 1) % r.n_polygon];
                double ex = b->x - a->x, ey = b->y - a->y, L2 = ex * ex + ey * ey;
                double t = L2 > 0 ? ((x - a->x) * ex + (y - a->y) * ey) / L2 : 0;
                t = t < 0 ? 0 : t > 1 ? 1 : t;
                near = fmin(near, hypot(x - a->x - t * ex, y - a->y - t * ey));
            }
            if (near < 0.6) /* a figure's base (ITB: 1" round) straddles it */
                continue;
            if (los != vis)
                fail_msg("viewer (%g, %g), point (%g, %g): line of sight %d, polygon %d", viewers[w][0], viewers[w][1], x,
                         y, los, vis);
            checked++;
        }
        /* the named cases */
        if (w == 0) {
            assert_true(in_poly(r.polygon, r.n_polygon, 60, 25));  /* the felt behind it, downhill */
            assert_false(in_poly(r.polygon, r.n_polygon, 15, 25)); /* beyond the top */
        } else if (w == 1) {
            assert_false(in_poly(r.polygon, r.n_polygon, 60, 25));
        } else {
            assert_true(in_poly(r.polygon, r.n_polygon, 60, 25) && in_poly(r.polygon, r.n_polygon, 10, 25));
        }
        rules_result_free(&r);
    }
    print_message("%d ground points: the visibility polygon and the line of sight agree\n", checked);
    assert_true(checked > 3000);
    rules_scenario_destroy(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_square_hill_heights), cmocka_unit_test(test_convex_formula),
        cmocka_unit_test(test_concave_valley),      cmocka_unit_test(test_bad_slopes),
        cmocka_unit_test(test_slope_sight),        cmocka_unit_test(test_slope_visibility),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
