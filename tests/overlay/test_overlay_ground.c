/* test_overlay_ground.c - marks drawn at the height of the surface under
 * them (issue 20): through a 3D projector (a pinhole P) and a ground, a
 * blast on a hill lands on the hill's top, a ring around a figure on the
 * hill at the hill's height, and a line of fire from the hill down to the
 * felt follows the ground (on the top, down the hill's wall, on the felt);
 * a plane-only projector or no ground draws as before.  Truth: P itself
 * at the hill's height (hand-checked numbers below). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cvwrap.h"
#include "overlay.h"
#include "projector.h"
#include "run.h"

/* A pinhole 60" over (36, 30) looking straight down, 1750 px focal, 1280x800:
 * u = 640 + 1750 (x - 36) / (60 - h), v = 400 - 1750 (y - 30) / (60 - h). */
static const double P_DOWN[12] = {1750, 0, -640, 640 * 60 - 1750 * 36, 0, -1750, -400, 400 * 60 + 1750 * 30,
                                  0,    0, -1,   60};

/* The hill: 3" high over x 40..60, y 10..30 (vertical sides). */
#define HILL_H 3.0
static double hill_ground(const void *user, double x, double y)
{
    (void)user;
    return x >= 40 && x <= 60 && y >= 10 && y <= 30 ? HILL_H : 0.0;
}

static void truth(double x, double y, double h, double px[2])
{
    px[0] = 640 + 1750 * (x - 36) / (60 - h);
    px[1] = 400 - 1750 * (y - 30) / (60 - h);
}

static cairo_surface_t *draw(const overlay_list *l, const calib_projector *pj, int ground)
{
    overlay_mapper m;
    overlay_projector_map st;
    tt_ground g = {hill_ground, NULL};
    cairo_surface_t *s = NULL;
    tt_err err = {0};
    if (ground)
        overlay_mapper_projector_ground(&m, &st, pj, &g);
    else
        overlay_mapper_projector(&m, pj);
    if (overlay_render(l, &m, &s, &err) != TT_OK)
        fail_msg("render: %s", err.msg);
    return s;
}

static int lum(cairo_surface_t *s, int u, int v)
{
    if (u < 0 || v < 0 || u >= cairo_image_surface_get_width(s) || v >= cairo_image_surface_get_height(s))
        return 0;
    uint32_t p = ((const uint32_t *)(const void *)(cairo_image_surface_get_data(s) +
                                                   (size_t)v * cairo_image_surface_get_stride(s)))[u];
    int r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
    return r > g ? (r > b ? r : b) : (g > b ? g : b);
}

/* Light-weighted centroid of the pixels in a box, in the drawing's pixel
 * coordinates: the overlay draws in cairo's user space, where pixel i
 * spans [i, i + 1] (its centre at i + 0.5). */
static int centroid(cairo_surface_t *s, int u0, int v0, int u1, int v1, double c[2])
{
    double sw = 0, su = 0, sv = 0;
    for (int v = v0; v <= v1; v++)
        for (int u = u0; u <= u1; u++) {
            int w = lum(s, u, v);
            sw += w;
            su += w * (double)u;
            sv += w * (double)v;
        }
    if (sw <= 0)
        return 0;
    c[0] = su / sw + 0.5;
    c[1] = sv / sw + 0.5;
    return 1;
}

/* How far the light-weighted centroid of the box (half side `box`) about
 * the spot t lies from t, in pixels (a failure when the box is dark). */
static double spot_error(cairo_surface_t *s, const double t[2], int box)
{
    double c[2];
    assert_true(centroid(s, (int)t[0] - box, (int)t[1] - box, (int)t[0] + box, (int)t[1] + box, c));
    return hypot(c[0] - t[0], c[1] - t[1]);
}

static calib_projector *pinhole(void)
{
    calib_projector *pj = NULL;
    tt_err err = {0};
    assert_int_equal(calib_projector_create_pinhole(1280, 800, P_DOWN, &pj, &err), TT_OK);
    return pj;
}

/* A filled blast and a figure's ring (an outline) on the hill land on its
 * top: their centres within 0.3 px of P at 3"; a plane map (or no ground)
 * puts them where the felt would be, ~20 px away. */
static void test_blast_and_ring_on_hill(void **state)
{
    (void)state;
    calib_projector *pj = pinhole();
    overlay_list *l = NULL;
    tt_err err = {0};
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    overlay_style blast = overlay_style_line(OVERLAY_ROLE_BLAST, 0.08);
    blast.fill_alpha = 0.5;
    assert_int_equal(overlay_add_circle(l, 52, 18, 1.0, blast, &err), TT_OK);
    assert_int_equal(overlay_add_circle(l, 44, 26, 0.7, overlay_style_line(OVERLAY_ROLE_TARGET, 0.08), &err), TT_OK);
    /* a blast on the felt too */
    assert_int_equal(overlay_add_circle(l, 20, 40, 1.0, blast, &err), TT_OK);
    double tb[2], tr[2], tf[2], fb[2], fr[2];
    truth(52, 18, HILL_H, tb);
    truth(44, 26, HILL_H, tr);
    truth(20, 40, 0, tf);
    truth(52, 18, 0, fb); /* where the felt would be */
    truth(44, 26, 0, fr);
    const int box = 50;
    cairo_surface_t *flat = draw(l, pj, 0), *g = draw(l, pj, 1);
    double c[2];
    assert_true(centroid(g, (int)tb[0] - box, (int)tb[1] - box, (int)tb[0] + box, (int)tb[1] + box, c));
    double eb = hypot(c[0] - tb[0], c[1] - tb[1]);
    assert_true(centroid(g, (int)tr[0] - box, (int)tr[1] - box, (int)tr[0] + box, (int)tr[1] + box, c));
    double er = hypot(c[0] - tr[0], c[1] - tr[1]);
    assert_true(centroid(g, (int)tf[0] - box, (int)tf[1] - box, (int)tf[0] + box, (int)tf[1] + box, c));
    double ef = hypot(c[0] - tf[0], c[1] - tf[1]);
    assert_true(centroid(flat, (int)fb[0] - box, (int)fb[1] - box, (int)fb[0] + box, (int)fb[1] + box, c));
    double eb_flat = hypot(c[0] - tb[0], c[1] - tb[1]), eb_felt = hypot(c[0] - fb[0], c[1] - fb[1]);
    assert_true(centroid(flat, (int)fr[0] - box, (int)fr[1] - box, (int)fr[0] + box, (int)fr[1] + box, c));
    double er_felt = hypot(c[0] - fr[0], c[1] - fr[1]);
    print_message("blast on the hill: %.3f px from its spot (plane: %.2f px); ring %.3f px; blast on the felt %.3f px\n",
                  eb, eb_flat, er, ef);
    assert_true(eb <= 0.3);
    assert_true(er <= 0.3);
    assert_true(ef <= 0.3);
    assert_true(eb_flat > 10);  /* today's drawing misses the hill's top */
    assert_true(eb_felt <= 0.3); /* ... landing where the felt would be */
    assert_true(er_felt <= 0.3);
    /* the ring's outline is as wide on the top as drawn on the felt at
     * that scale: lit 0.7" from the centre on the top, dark 0.3" inside */
    double on[2], in[2];
    truth(44.7, 26, HILL_H, on);
    truth(44.4, 26, HILL_H, in);
    assert_true(lum(g, (int)floor(on[0]), (int)floor(on[1])) > 150);
    assert_int_equal(lum(g, (int)floor(in[0]), (int)floor(in[1])), 0);
    cairo_surface_destroy(flat);
    cairo_surface_destroy(g);
    overlay_list_destroy(l);
    calib_projector_destroy(pj);
}

/* The same camera as P_DOWN (K with f 1750 at (640, 400), no distortion;
 * 60" over (36, 30) looking straight down: x_c = x - 36, y_c = 30 - y,
 * z_c = 60 - h), for overlay --on-camera's mapper. */
static void camera_down(cvw_camera *cam, calib_pose *pose)
{
    memset(cam, 0, sizeof *cam);
    memset(pose, 0, sizeof *pose);
    cam->width = 1280;
    cam->height = 800;
    const double K[9] = {1750, 0, 640, 0, 1750, 400, 0, 0, 1}, R[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1};
    memcpy(cam->K, K, sizeof K);
    memcpy(pose->R, R, sizeof R);
    pose->rvec[0] = M_PI; /* half a turn about x */
    pose->tvec[0] = -36;
    pose->tvec[1] = 30;
    pose->tvec[2] = 60;
    pose->center[0] = 36;
    pose->center[1] = 30;
    pose->center[2] = 60;
    pose->up = 1;
}

/* overlay --on-camera draws each mark at the ground's height too: a blast
 * on the hill lands on the hill's top in the camera's picture (within 0.3
 * px of the camera's projection at 3"), ~20 px from where the felt would
 * put it; without a ground it lands on the felt as before. */
static void test_camera_view_on_hill(void **state)
{
    (void)state;
    cvw_camera cam;
    calib_pose pose;
    camera_down(&cam, &pose);
    overlay_list *l = NULL;
    tt_err err = {0};
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    overlay_style blast = overlay_style_line(OVERLAY_ROLE_BLAST, 0.08);
    blast.fill_alpha = 0.5;
    assert_int_equal(overlay_add_circle(l, 52, 18, 1.0, blast, &err), TT_OK);
    tt_ground g = {hill_ground, NULL};
    cairo_surface_t *s[2];
    for (int k = 0; k < 2; k++) {
        overlay_mapper m;
        overlay_camera_map st;
        overlay_mapper_camera_ground(&m, &st, &cam, &pose, k ? &g : NULL);
        s[k] = NULL;
        if (overlay_render(l, &m, &s[k], &err) != TT_OK)
            fail_msg("render: %s", err.msg);
    }
    double top[2], felt[2];
    truth(52, 18, HILL_H, top);
    truth(52, 18, 0, felt);
    double e_top = spot_error(s[1], top, 50), e_felt = spot_error(s[0], felt, 50);
    double e_miss = hypot(top[0] - felt[0], top[1] - felt[1]) - e_felt; /* at least */
    print_message("on the camera's picture: blast on the hill %.3f px from its spot; without the ground %.3f px "
                  "from the felt's, at least %.1f px from the top's\n",
                  e_top, e_felt, e_miss);
    assert_true(e_top <= 0.3);
    assert_true(e_felt <= 0.3);
    assert_true(e_miss > 10);
    cairo_surface_destroy(s[0]);
    cairo_surface_destroy(s[1]);
    overlay_list_destroy(l);
}

/* A ring drawn at a height of its own (overlay_set_last_height: a figure
 * measured 2" up where no scenario declares a hill) lands at that height
 * through a 3D projector, whole, even beside the declared hill; without
 * the height it lies on the ground under it.  Bad heights are refused. */
static void test_ring_at_own_height(void **state)
{
    (void)state;
    calib_projector *pj = pinhole();
    overlay_list *l = NULL;
    tt_err err = {0};
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    assert_int_equal(overlay_set_last_height(l, 1, &err), TT_ERR_ARG); /* nothing added yet */
    overlay_style ring = overlay_style_line(OVERLAY_ROLE_TARGET, 0.08);
    assert_int_equal(overlay_add_circle(l, 20, 40, 0.7, ring, &err), TT_OK);
    assert_int_equal(overlay_set_last_height(l, NAN, &err), TT_ERR_ARG);
    assert_int_equal(overlay_set_last_height(l, -0.5, &err), TT_ERR_ARG);
    assert_int_equal(overlay_set_last_height(l, 2.0, &err), TT_OK);
    /* half on the hill (x 40..60), half on the felt: at 2" whole */
    assert_int_equal(overlay_add_circle(l, 40, 20, 0.7, ring, &err), TT_OK);
    assert_int_equal(overlay_set_last_height(l, 2.0, &err), TT_OK);
    cairo_surface_t *g = draw(l, pj, 1);
    double t[2], felt[2];
    truth(20, 40, 2.0, t);
    truth(20, 40, 0, felt);
    double e = spot_error(g, t, 50), miss = hypot(t[0] - felt[0], t[1] - felt[1]) - e; /* at least */
    truth(40, 20, 2.0, t);
    double e_edge = spot_error(g, t, 50);
    print_message("a ring at its own 2\": %.3f px from its spot (at least %.1f px from the felt's); across the hill's edge "
                  "%.3f px\n",
                  e, miss, e_edge);
    assert_true(e <= 0.3);
    assert_true(miss > 5);
    assert_true(e_edge <= 0.3);
    cairo_surface_destroy(g);
    overlay_list_destroy(l);
    calib_projector_destroy(pj);
}

/* A line of fire from the hill's top (52, 20) down to the felt (52, 44):
 * along its length each row of pixels is lit where P puts the line at the
 * ground's height there (the top up to y = 30, the felt beyond), and the
 * hill's wall joins them; a straight chord between the ends would miss the
 * line on the hill by up to ~20 px. */
static void test_line_follows_ground(void **state)
{
    (void)state;
    calib_projector *pj = pinhole();
    overlay_list *l = NULL;
    tt_err err = {0};
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    assert_int_equal(overlay_add_line(l, 52, 20, 52, 44, overlay_style_line(OVERLAY_ROLE_CLEAR, 0.1), &err), TT_OK);
    cairo_surface_t *g = draw(l, pj, 1), *flat = draw(l, pj, 0);
    double worst = 0, worst_flat = 0;
    int rows = 0;
    for (double y = 21; y <= 43; y += 0.5) {
        if (fabs(y - 30) < 0.6)
            continue; /* at the wall */
        double h = y <= 30 ? HILL_H : 0, t[2], c[2];
        truth(52, y, h, t);
        int v = (int)lround(t[1]);
        assert_true(centroid(g, (int)t[0] - 40, v, (int)t[0] + 40, v, c));
        worst = fmax(worst, fabs(c[0] - t[0]));
        if (centroid(flat, (int)t[0] - 40, v, (int)t[0] + 40, v, c))
            worst_flat = fmax(worst_flat, fabs(c[0] - t[0]));
        else
            worst_flat = fmax(worst_flat, 40);
        rows++;
    }
    /* down the wall: x = 52, y = 30, from 3" to the felt, all lit */
    int wall_lit = 0;
    for (double h = 0.25; h <= 2.75; h += 0.25) {
        double t[2];
        truth(52, 30, h, t);
        wall_lit += lum(g, (int)floor(t[0]), (int)floor(t[1])) > 100;
    }
    print_message("line from the hill to the felt: %d rows, worst %.3f px off the ground (plane: %.2f px); wall %d/11 "
                  "lit\n",
                  rows, worst, worst_flat, wall_lit);
    assert_true(rows >= 40);
    assert_true(worst <= 0.3);
    assert_true(worst_flat > 10);
    assert_int_equal(wall_lit, 11);
    cairo_surface_destroy(g);
    cairo_surface_destroy(flat);
    overlay_list_destroy(l);
    calib_projector_destroy(pj);
}

/* A plane-only projector or a NULL ground gives the felt mapper: the same
 * pixels as overlay_mapper_projector. */
static void test_plane_or_no_ground(void **state)
{
    (void)state;
    calib_projector *pj = pinhole(), *plane = NULL;
    tt_err err = {0};
    double H[9];
    calib_projector_homography(pj, H);
    assert_int_equal(calib_projector_create(1280, 800, H, &plane, &err), TT_OK);
    overlay_mapper a, b;
    overlay_projector_map st;
    tt_ground g = {hill_ground, NULL};
    overlay_mapper_projector_ground(&a, &st, plane, &g);
    overlay_mapper_projector(&b, plane);
    assert_ptr_equal(a.map, b.map);
    assert_null(a.map3);
    overlay_mapper_projector_ground(&a, &st, pj, NULL);
    assert_null(a.map3);
    double xy[2] = {52, 18}, pa[2], t[2];
    a.map(a.user, xy, 1, pa);
    truth(52, 18, 0, t);
    assert_true(hypot(pa[0] - t[0], pa[1] - t[1]) < 1e-9);
    overlay_mapper_projector_ground(&a, &st, pj, &g);
    assert_non_null(a.map3);
    a.map(a.user, xy, 1, pa);
    truth(52, 18, HILL_H, t);
    assert_true(hypot(pa[0] - t[0], pa[1] - t[1]) < 1e-9);
    calib_projector_destroy(pj);
    calib_projector_destroy(plane);
}

/* 'tabletrack overlay --scenario scen --projector pj' with a blast of 1"
 * at (x, y) into png: how far the light-weighted centroid of its pixels
 * lies from P's spot for (x, y) at height h. */
static double cli_blast_error(const char *scen, const char *pj, const char *png, double x, double y, double h)
{
    char q[96];
    tt_err err = {0};
    snprintf(q, sizeof q, "{\"q\":\"blast\",\"at\":[%g,%g],\"radius_in\":1}", x, y);
    char *argv[] = {TT_BIN, "overlay", "--rig", TT_SOURCE_DIR "/samples/table/rig.json", "--projector", (char *)pj,
                    "--scenario", (char *)scen, "--query", q, "--out", (char *)png, NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("overlay: exit %d: %s", r.status, r.err);
    run_free(&r);
    tt_image im = {0};
    assert_int_equal(cvw_image_read(png, 1, &im, &err), TT_OK);
    double t[2], sw = 0, su = 0, sv = 0;
    truth(x, y, h, t);
    assert_true(t[0] > 60 && t[1] > 60 && t[0] < im.width - 60 && t[1] < im.height - 60);
    for (int v = (int)t[1] - 50; v <= (int)t[1] + 50; v++)
        for (int u = (int)t[0] - 50; u <= (int)t[0] + 50; u++) {
            double w = im.data[(size_t)v * im.stride + u];
            sw += w;
            su += w * u;
            sv += w * v;
        }
    assert_true(sw > 0);
    tt_image_free(&im);
    remove(png);
    return hypot(su / sw + 0.5 - t[0], sv / sw + 0.5 - t[1]);
}

/* 'tabletrack overlay' wires the scenario's ground in: a blast query on
 * the scenario's 3" hill lands on its top through a 3D projector.json, and
 * where the felt would be through a plane one (the old format). */
static void test_cli_blast_on_hill(void **state)
{
    (void)state;
    char dir[64], scen[128], pj3[128], pjp[128], png[128];
    snprintf(dir, sizeof dir, "/tmp/tt_ovground_XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(scen, sizeof scen, "%s/hill.json", dir);
    snprintf(pj3, sizeof pj3, "%s/pj3.json", dir);
    snprintf(pjp, sizeof pjp, "%s/pjplane.json", dir);
    snprintf(png, sizeof png, "%s/ov.png", dir);
    FILE *f = fopen(scen, "w");
    assert_non_null(f);
    fputs("{\"ruleset\": \"thin-red-line\", \"table\": {\"width_in\": 72, \"depth_in\": 48},\n"
          " \"terrain\": [{\"id\": \"big-hill\", \"kind\": \"hill\", \"height_in\": 3,\n"
          "   \"polygon\": [[40, 10], [60, 10], [60, 30], [40, 30]]}],\n \"figures\": []}\n",
          f);
    assert_int_equal(fclose(f), 0);
    calib_projector *pj = pinhole(), *plane = NULL;
    tt_err err = {0};
    assert_int_equal(calib_projector_save(pj, pj3, &err), TT_OK);
    double H[9];
    calib_projector_homography(pj, H);
    f = fopen(pjp, "w");
    assert_non_null(f);
    fprintf(f, "{\"width\": 1280, \"height\": 800, \"table_to_projector\": [[%.17g, %.17g, %.17g], [%.17g, %.17g, "
               "%.17g], [%.17g, %.17g, %.17g]]}\n",
            H[0], H[1], H[2], H[3], H[4], H[5], H[6], H[7], H[8]);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(calib_projector_load(pjp, &plane, &err), TT_OK);
    assert_false(calib_projector_is_3d(plane));
    for (int k = 0; k < 2; k++) {
        double e = cli_blast_error(scen, k ? pjp : pj3, png, 46, 24, k ? 0 : HILL_H);
        print_message("tabletrack overlay, %s projector: the blast on the hill %.3f px from %s\n", k ? "plane" : "3D",
                      e, k ? "where the felt would be" : "its spot on the top");
        assert_true(e <= 0.5);
    }
    calib_projector_destroy(pj);
    calib_projector_destroy(plane);
    remove(scen);
    remove(pj3);
    remove(pjp);
    remove(dir);
}

/* A blast on a hill's sloped side (the scenario's "slope_in") lands on the
 * slope at its height there: the top 20-32 x 14-26 is 3" high and its sides
 * run out 4", so 2" west of the top's edge the ground is 1.5" high (15 px
 * from where the felt, or a hill with vertical sides, would put it). */
static void test_cli_blast_on_slope(void **state)
{
    (void)state;
    char dir[64], scen[128], pj3[128], png[128];
    snprintf(dir, sizeof dir, "/tmp/tt_ovslope_XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(scen, sizeof scen, "%s/slope.json", dir);
    snprintf(pj3, sizeof pj3, "%s/pj3.json", dir);
    snprintf(png, sizeof png, "%s/ov.png", dir);
    FILE *f = fopen(scen, "w");
    assert_non_null(f);
    fputs("{\"ruleset\": \"thin-red-line\", \"table\": {\"width_in\": 72, \"depth_in\": 48},\n"
          " \"terrain\": [{\"id\": \"ridge\", \"kind\": \"hill\", \"height_in\": 3, \"slope_in\": 4,\n"
          "   \"polygon\": [[20, 14], [32, 14], [32, 26], [20, 26]]}],\n \"figures\": []}\n",
          f);
    assert_int_equal(fclose(f), 0);
    calib_projector *pj = pinhole();
    tt_err err = {0};
    assert_int_equal(calib_projector_save(pj, pj3, &err), TT_OK);
    double e = cli_blast_error(scen, pj3, png, 18, 20, 1.5), e_felt = cli_blast_error(scen, pj3, png, 18, 20, 0);
    print_message("a blast on the slope, 1.5\" up: %.3f px from its spot (%.1f px from the felt's)\n", e, e_felt);
    assert_true(e <= 0.5);
    assert_true(e_felt > 10);
    calib_projector_destroy(pj);
    remove(scen);
    remove(pj3);
    remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blast_and_ring_on_hill),
        cmocka_unit_test(test_camera_view_on_hill),
        cmocka_unit_test(test_ring_at_own_height),
        cmocka_unit_test(test_cli_blast_on_slope),
        cmocka_unit_test(test_line_follows_ground),
        cmocka_unit_test(test_plane_or_no_ground),
        cmocka_unit_test(test_cli_blast_on_hill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
