/* test_overlay_seam.c - several projectors on one table (issue 31, part 4):
 * each one's share of the light ramps across the overlap and the shares add
 * up to one in light (by the projector's gamma: 2.2, or projector.json's
 * measured "gamma"), each projector draws only what falls in its own
 * picture, tag masks stay dark in every projector; 'overlay' with a
 * --projector and an --out per projector, and the counts that do not
 * match ('overlay' and 'track') refused with a clear error.  The physics
 * (two simulated projectors, a camera): tests/projector/test_projector_seam. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cvwrap.h"
#include "overlay.h"
#include "projector.h"
#include "run.h"

static char dir[64];
static const char *SCEN = TT_SOURCE_DIR "/samples/scenarios/into-the-breach-farm.json";
static const char *RIG = TT_SOURCE_DIR "/samples/table/rig.json";

static const char *tpath(const char *name)
{
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(tpath(name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Two flat projectors, 640x480 at 10 px per inch: A lights x -0.55..63.45,
 * B x 49.45..113.45 (14" of overlap), both y -0.05..47.95. */
static const double H_A[9] = {10, 0, 5, 0, 10, 0.5, 0, 0, 1};
static const double H_B[9] = {10, 0, -495, 0, 10, 0.5, 0, 0, 1};

static calib_projector *flat(const double H[9])
{
    calib_projector *pj = NULL;
    tt_err err = {0};
    assert_int_equal(calib_projector_create(640, 480, H, &pj, &err), TT_OK);
    return pj;
}

/* Brightest channel of surface pixel (u, v). */
static int value(cairo_surface_t *s, int u, int v)
{
    cairo_surface_flush(s);
    uint32_t p = *(const uint32_t *)(const void *)(cairo_image_surface_get_data(s) +
                                                    (size_t)v * cairo_image_surface_get_stride(s) + 4 * (size_t)u);
    int r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
    return r > g ? (r > b ? r : b) : (g > b ? g : b);
}

/* The value projector pj's picture s has at table point (x, y). */
static int value_at(cairo_surface_t *s, const calib_projector *pj, double x, double y)
{
    double xy[2] = {x, y}, px[2];
    calib_projector_map(pj, xy, 1, px);
    int u = (int)lround(px[0]), v = (int)lround(px[1]);
    if (u < 0 || v < 0 || u >= cairo_image_surface_get_width(s) || v >= cairo_image_surface_get_height(s))
        return -1;
    return value(s, u, v);
}

static cairo_surface_t *render(const overlay_list *l, const calib_projector *pj, const overlay_seam *seam)
{
    overlay_mapper m;
    cairo_surface_t *s = NULL;
    tt_err err = {0};
    overlay_mapper_projector(&m, pj);
    m.seam = seam;
    if (overlay_render(l, &m, &s, &err) != TT_OK)
        fail_msg("render: %s", err.msg);
    return s;
}

/* White over the whole table, both projectors with their seams: the shares
 * ramp across the overlap, add up to one in light, and the pixel values
 * are the shares to the power 1/gamma. */
static void check_even(calib_projector *a, calib_projector *b, double gamma)
{
    tt_err err = {0};
    const calib_projector *pjs[2] = {a, b};
    overlay_seam *sa = NULL, *sb = NULL;
    assert_int_equal(overlay_seam_create(pjs, 2, 0, &sa, &err), TT_OK);
    assert_int_equal(overlay_seam_create(pjs, 2, 1, &sb, &err), TT_OK);
    /* 14" of overlap at 10 px/in, over 480 rows */
    assert_true(overlay_seam_dimmed(sa) > 130 * 480 && overlay_seam_dimmed(sa) < 150 * 480);
    overlay_list *l = NULL;
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    overlay_style fill = overlay_style_line(OVERLAY_ROLE_NEUTRAL, 0);
    fill.fill_alpha = 1;
    double table[8] = {0, 0, 120, 0, 120, 48, 0, 48};
    assert_int_equal(overlay_add_polygon(l, table, 4, fill, &err), TT_OK);
    cairo_surface_t *ia = render(l, a, sa), *ib = render(l, b, sb);
    double last = 2, worst = 0;
    for (double x = 45; x <= 68; x += 0.25) {
        int va = value_at(ia, a, x, 24), vb = value_at(ib, b, x, 24);
        double la = va < 0 ? 0 : pow(va / 255.0, gamma), lb = vb < 0 ? 0 : pow(vb / 255.0, gamma);
        worst = fmax(worst, fabs(la + lb - 1));
        /* A's share only falls across the overlap, B's only rises */
        assert_true(la <= last + 1e-9);
        last = la;
        if (x < 49)
            assert_int_equal(va, 255);
        if (x > 64)
            assert_int_equal(vb, 255);
    }
    /* the middle of the overlap: half the light each, as pixel values */
    int mid = value_at(ia, a, 56.45, 24);
    print_message("gamma %.1f: light summed across the overlap within %.2f%% of one; A's value in its middle %d\n",
                  gamma, 100 * worst, mid);
    assert_true(worst < 0.02);
    assert_true(abs(mid - (int)lround(255 * pow(0.5, 1 / gamma))) <= 2);
    double xy[2] = {56.45, 24}, px[2];
    calib_projector_map(a, xy, 1, px);
    assert_true(fabs(overlay_seam_share(sa, (int)lround(px[0]), (int)lround(px[1])) - 0.5) < 0.02);
    cairo_surface_destroy(ia);
    cairo_surface_destroy(ib);
    overlay_list_destroy(l);
    overlay_seam_destroy(sa);
    overlay_seam_destroy(sb);
}

static void test_shares_even_in_light(void **state)
{
    (void)state;
    calib_projector *a = flat(H_A), *b = flat(H_B);
    check_even(a, b, 2.2);
    calib_projector_destroy(a);
    calib_projector_destroy(b);
}

/* A measured gamma in projector.json is the one the ramp uses; it is kept
 * when the file is written again; a bad one is refused, naming it. */
static void test_measured_gamma(void **state)
{
    (void)state;
    tt_err err = {0};
    calib_projector *a = NULL, *b = NULL;
    write_text("ga.json", "{\"width\":640,\"height\":480,\"gamma\":1.8,\"table_to_projector\":[[10,0,5],[0,10,0.5],"
                          "[0,0,1]]}");
    write_text("gb.json", "{\"width\":640,\"height\":480,\"gamma\":1.8,\"table_to_projector\":[[10,0,-495],[0,10,0.5],"
                          "[0,0,1]]}");
    assert_int_equal(calib_projector_load(tpath("ga.json"), &a, &err), TT_OK);
    assert_int_equal(calib_projector_load(tpath("gb.json"), &b, &err), TT_OK);
    int measured = 0;
    assert_true(fabs(calib_projector_gamma(a, &measured) - 1.8) < 1e-12);
    assert_int_equal(measured, 1);
    check_even(a, b, 1.8);
    assert_int_equal(calib_projector_save(a, tpath("ga2.json"), &err), TT_OK);
    calib_projector_destroy(a);
    assert_int_equal(calib_projector_load(tpath("ga2.json"), &a, &err), TT_OK);
    assert_true(fabs(calib_projector_gamma(a, NULL) - 1.8) < 1e-9);
    /* not measured: 2.2 */
    calib_projector *c = flat(H_A);
    assert_true(fabs(calib_projector_gamma(c, &measured) - 2.2) < 1e-12);
    assert_int_equal(measured, 0);
    assert_int_equal(calib_projector_set_gamma(c, 0.3), 0);
    calib_projector_destroy(c);
    const char *bad[] = {"0.3", "9", "\"2.2\"", "null"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        calib_projector *pj = NULL;
        snprintf(text, sizeof text,
                 "{\"width\":640,\"height\":480,\"gamma\":%s,\"table_to_projector\":[[10,0,5],[0,10,0.5],[0,0,1]]}",
                 bad[i]);
        write_text("gbad.json", text);
        assert_int_equal(calib_projector_load(tpath("gbad.json"), &pj, &err), TT_ERR_FORMAT);
        assert_non_null(strstr(err.msg, "\"gamma\" must be a number from 1 to 4"));
        assert_null(pj);
    }
    calib_projector_destroy(a);
    calib_projector_destroy(b);
}

/* Each projector draws only what falls in its own picture; a blast across
 * the seam shows in both; tag masks stay black in both. */
static void test_own_picture_and_masks(void **state)
{
    (void)state;
    tt_err err = {0};
    calib_projector *a = flat(H_A), *b = flat(H_B);
    const calib_projector *pjs[2] = {a, b};
    overlay_seam *sa = NULL, *sb = NULL;
    assert_int_equal(overlay_seam_create(pjs, 2, 0, &sa, &err), TT_OK);
    assert_int_equal(overlay_seam_create(pjs, 2, 1, &sb, &err), TT_OK);
    overlay_list *l = NULL;
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    overlay_style fill = overlay_style_line(OVERLAY_ROLE_BLAST, 0.08);
    fill.fill_alpha = 1;
    /* in A's picture only */
    assert_int_equal(overlay_add_circle(l, 20, 20, 4, fill, &err), TT_OK);
    cairo_surface_t *ib = render(l, b, sb);
    for (int v = 0; v < 480; v += 2)
        for (int u = 0; u < 640; u += 2)
            assert_int_equal(value(ib, u, v), 0);
    cairo_surface_destroy(ib);
    /* across the seam, with a figure's tag in the overlap */
    assert_int_equal(overlay_add_circle(l, 56, 24, 4, fill, &err), TT_OK);
    assert_int_equal(overlay_add_tag_mask(l, 56.5, 23.5, 20, 1.0, 0.12, &err), TT_OK);
    cairo_surface_t *ia = render(l, a, sa);
    ib = render(l, b, sb);
    assert_true(value_at(ia, a, 20, 20) > 200); /* vermillion, whole: A alone lights it */
    assert_true(value_at(ia, a, 54, 26) > 0 && value_at(ib, b, 54, 26) > 0);
    assert_true(value_at(ia, a, 59, 22) > 0 && value_at(ib, b, 59, 22) > 0);
    for (double dy = -0.6; dy <= 0.6; dy += 0.2)
        for (double dx = -0.6; dx <= 0.6; dx += 0.2) {
            assert_int_equal(value_at(ia, a, 56.5 + dx, 23.5 + dy), 0);
            assert_int_equal(value_at(ib, b, 56.5 + dx, 23.5 + dy), 0);
        }
    cairo_surface_destroy(ia);
    cairo_surface_destroy(ib);
    overlay_list_destroy(l);
    overlay_seam_destroy(sa);
    overlay_seam_destroy(sb);
    calib_projector_destroy(a);
    calib_projector_destroy(b);
}

/* One projector, or two that do not overlap: nothing dimmed.  Bad calls. */
static void test_no_overlap_and_bad_calls(void **state)
{
    (void)state;
    tt_err err = {0};
    const double H_far[9] = {10, 0, -995, 0, 10, 0.5, 0, 0, 1}; /* x 99.45..163.45 */
    calib_projector *a = flat(H_A), *far = flat(H_far);
    const calib_projector *one[1] = {a}, *two[2] = {a, far};
    overlay_seam *s = NULL;
    assert_int_equal(overlay_seam_create(one, 1, 0, &s, &err), TT_OK);
    assert_int_equal(overlay_seam_dimmed(s), 0);
    assert_true(overlay_seam_share(s, 320, 240) == 1.0);
    assert_true(overlay_seam_share(s, 640, 240) == 0.0); /* outside the picture */
    overlay_seam_destroy(s);
    assert_int_equal(overlay_seam_create(two, 2, 1, &s, &err), TT_OK);
    assert_int_equal(overlay_seam_dimmed(s), 0);
    /* a surface of another size */
    cairo_surface_t *small = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 320, 240);
    assert_int_equal(overlay_seam_apply(s, small, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "640x480"));
    cairo_surface_destroy(small);
    overlay_seam_destroy(s);
    s = NULL;
    assert_int_equal(overlay_seam_create(two, 2, 2, &s, &err), TT_ERR_ARG);
    assert_null(s);
    assert_int_equal(overlay_seam_create(two, 0, 0, &s, &err), TT_ERR_ARG);
    const calib_projector *missing[2] = {a, NULL};
    assert_int_equal(overlay_seam_create(missing, 2, 0, &s, &err), TT_ERR_ARG);
    assert_null(s);
    overlay_seam_destroy(NULL);
    calib_projector_destroy(a);
    calib_projector_destroy(far);
}

/* The sample table's two halves: 1920x1080 at 40 px/in along x, A over
 * x 0..48, B over x 24..72 (24" of overlap). */
#define PJ_A "{\"width\":1920,\"height\":1080,\"table_to_projector\":[[40,0,0],[0,22.5,0],[0,0,1]]}"
#define PJ_B "{\"width\":1920,\"height\":1080,\"table_to_projector\":[[40,0,-960],[0,22.5,0],[0,0,1]]}"

static int png_value(const tt_image *im, double u, double v)
{
    const uint8_t *p = im->data + (size_t)lround(v) * im->stride + 3 * (size_t)lround(u);
    return p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]);
}

/* 'overlay' with two projectors: one picture each, the blast across the
 * seam summing in light to what one projector alone draws. */
static void test_cli_two_projectors(void **state)
{
    (void)state;
    write_text("pa.json", PJ_A);
    write_text("pb.json", PJ_B);
    const char *q = "{\"q\":\"blast\",\"at\":[36,30],\"radius_in\":3}";
    char *two[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("pa.json"), "--out",
                   (char *)tpath("a.png"), "--projector", (char *)tpath("pb.json"), "--out", (char *)tpath("b.png"),
                   "--scenario", (char *)SCEN, "--query", (char *)q, NULL};
    run_result r = run_cmd(two, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    assert_non_null(strstr(r.err, "pixels dimmed where it overlaps another projector"));
    run_free(&r);
    char *one[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("pa.json"), "--out",
                   (char *)tpath("one.png"), "--scenario", (char *)SCEN, "--query", (char *)q, NULL};
    r = run_cmd(one, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    run_free(&r);
    tt_image ia = {0}, ib = {0}, i1 = {0};
    tt_err err = {0};
    assert_int_equal(cvw_image_read(tpath("a.png"), 3, &ia, &err), TT_OK);
    assert_int_equal(cvw_image_read(tpath("b.png"), 3, &ib, &err), TT_OK);
    assert_int_equal(cvw_image_read(tpath("one.png"), 3, &i1, &err), TT_OK);
    int n = 0;
    for (double x = 34; x <= 38; x += 0.5) {
        double y = 30.7; /* the blast's fill, clear of its outline */
        int va = png_value(&ia, 40 * x, 22.5 * y), vb = png_value(&ib, 40 * x - 960, 22.5 * y),
            v1 = png_value(&i1, 40 * x, 22.5 * y);
        double sum = pow(va / 255.0, 2.2) + pow(vb / 255.0, 2.2), alone = pow(v1 / 255.0, 2.2);
        assert_true(v1 > 40);
        assert_true(va > 0 && vb > 0 && va < v1 && vb < v1);
        assert_true(fabs(sum / alone - 1) < 0.15);
        n++;
    }
    assert_int_equal(n, 9);
    tt_image_free(&ia);
    tt_image_free(&ib);
    tt_image_free(&i1);
}

static void expect_usage(char **argv, const char *needle)
{
    run_result r = run_cmd(argv, NULL);
    if (r.status != 2 || !strstr(r.err, needle))
        fail_msg("expected exit 2 saying '%s', got %d: %s", needle, r.status, r.err);
    run_free(&r);
}

/* Counts that do not match: a clear error, nothing written. */
static void test_cli_counts(void **state)
{
    (void)state;
    write_text("pa.json", PJ_A);
    write_text("pb.json", PJ_B);
    const char *q = "{\"q\":\"blast\",\"at\":[36,30],\"radius_in\":3}";
    remove(tpath("x.png"));
    char *a1[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("pa.json"), "--projector",
                  (char *)tpath("pb.json"), "--out", (char *)tpath("x.png"), "--scenario", (char *)SCEN, "--query",
                  (char *)q, NULL};
    expect_usage(a1, "1 --out for 2 --projector: give one --out per projector, in the same order");
    char *a2[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("pa.json"), "--out",
                  (char *)tpath("x.png"), "--out", (char *)tpath("y.png"), "--scenario", (char *)SCEN, "--query",
                  (char *)q, NULL};
    expect_usage(a2, "2 --out for 1 --projector");
    char *a3[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("pa.json"), "--out",
                  (char *)tpath("x.png"), "--projector", (char *)tpath("pb.json"), "--out", (char *)tpath("y.png"),
                  "--window", "--scenario", (char *)SCEN, "--query", (char *)q, NULL};
    expect_usage(a3, "--window shows one projector's image");
    struct stat st;
    assert_int_not_equal(stat(tpath("x.png"), &st), 0);
    assert_int_not_equal(stat(tpath("y.png"), &st), 0);
    char *t1[] = {TT_BIN, "track", "--rig", (char *)RIG, "--source", "frames/*.png", "--projector",
                  (char *)tpath("pa.json"), "--window", ":0.1", "--projector", (char *)tpath("pb.json"), NULL};
    expect_usage(t1, "1 --window for 2 --projector: give each projector its own --window, in the same order");
    char *t2[] = {TT_BIN, "track", "--rig", (char *)RIG, "--source", "frames/*.png", "--projector",
                  (char *)tpath("pa.json"), "--window", ":0.1", "--window", ":0.2", NULL};
    expect_usage(t2, "2 --window for 1 --projector");
    /* a second projector's file that is not there: named */
    char *t3[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("pa.json"), "--out",
                  (char *)tpath("x.png"), "--projector", (char *)tpath("nope.json"), "--out", (char *)tpath("y.png"),
                  "--scenario", (char *)SCEN, "--query", (char *)q, NULL};
    run_result r = run_cmd(t3, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "nope.json"));
    run_free(&r);
    assert_int_not_equal(stat(tpath("x.png"), &st), 0);
    /* a folder given for a projector's file: said so, not read */
    char *t4[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("pa.json"), "--out",
                  (char *)tpath("x.png"), "--projector", dir, "--out", (char *)tpath("y.png"), "--scenario",
                  (char *)SCEN, "--query", (char *)q, NULL};
    r = run_cmd(t4, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "is a folder, not a JSON file"));
    run_free(&r);
    assert_int_not_equal(stat(tpath("x.png"), &st), 0);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/tt_seamtest_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shares_even_in_light),  cmocka_unit_test(test_measured_gamma),
        cmocka_unit_test(test_own_picture_and_masks), cmocka_unit_test(test_no_overlap_and_bad_calls),
        cmocka_unit_test(test_cli_two_projectors),    cmocka_unit_test(test_cli_counts),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    const char *names[] = {"ga.json", "gb.json", "ga2.json", "gbad.json", "pa.json", "pb.json",
                           "a.png",   "b.png",   "one.png",  "x.png",     "y.png"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        remove(tpath(names[i]));
    remove(dir);
    return rc;
}
