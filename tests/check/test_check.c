/* test_check.c - 'tabletrack check' as a club runs it before a game, on
 * 1080p frames from the test renderer (a webcam 60" over a 72x48 table):
 * 0.88" tags read everywhere (exit 0), 0.69" tags are too small (exit 1,
 * with advice); bad input.  And the detector's limit behind the advice
 * (CALIB_MIN_PX_PER_CELL), measured: libapriltag at full resolution on
 * frames with blur and noise reads every tag at 1.5 px per cell, and far
 * fewer a little below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cvwrap.h"
#include "render.h"
#include "run.h"
#include "vision.h"

/* A 1080p webcam 60" over the table's centre. */
static void webcam(rnd_camera *cam, int w, int h)
{
    rnd_camera_look_at(cam, w, h, 1000.0 * w / 1920, -0.05, 0.01, 36, 24, 60, 36, 24);
}

/* Render a frame with nbases tags of size_in into dir (frame.png, rig.json,
 * camera.yaml); nanchors 0 draws no anchors but the rig keeps 4. */
static void scene(const char *dir, int w, int h, double size_in, int nanchors, unsigned seed)
{
    rnd_camera cam;
    rnd_tag tags[4 + 90];
    tt_err err = {0};
    char p[512];
    webcam(&cam, w, h);
    int n = rnd_standard_tags(tags, 4, 90, size_in, 3, 72, 48, seed);
    rnd_scene sc = {.width_in = 72, .depth_in = 48, .felt_gray = 90, .floor_gray = 40, .tags = tags, .ntags = n,
                    .light_gradient = 0.2, .ambient = 1, .blur_sigma_px = 0.7, .noise_sigma = 2, .supersample = 2,
                    .seed = seed};
    snprintf(p, sizeof p, "%s/camera.yaml", dir);
    assert_int_equal(rnd_write_camera_yaml(&cam, p, &err), TT_OK);
    snprintf(p, sizeof p, "%s/rig.json", dir);
    assert_int_equal(rnd_write_rig(p, "camera.yaml", &sc, 4, size_in, 3, &err), TT_OK);
    if (nanchors == 0) {
        sc.tags = tags + 4;
        sc.ntags = n - 4;
    }
    tt_image im;
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_OK);
    snprintf(p, sizeof p, "%s/frame.png", dir);
    assert_int_equal(cvw_image_write(p, &im, &err), TT_OK);
    tt_image_free(&im);
}

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tt_check_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static json_t *check_json(int want_status, run_result *keep)
{
    char rig[128], frame[128];
    snprintf(rig, sizeof rig, "%s/rig.json", dir);
    snprintf(frame, sizeof frame, "%s/frame.png", dir);
    char *argv[] = {TT_BIN, "check", "--rig", rig, frame, "--json", NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != want_status)
        fail_msg("check exited %d, expected %d: %s", r.status, want_status, r.err);
    json_error_t je;
    json_t *o = json_loads(r.out, 0, &je);
    if (!o)
        fail_msg("check --json printed no JSON: %.300s", r.out);
    if (keep)
        *keep = r;
    else
        run_free(&r);
    return o;
}

static double num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

/* The webcam's prediction at a table point, for the rig's tags. */
static double predicted_ppc(double x, double y, double size_in)
{
    rnd_camera cam;
    webcam(&cam, 1920, 1080);
    const double dx[4] = {-0.5, 0.5, 0.5, -0.5}, dy[4] = {-0.5, -0.5, 0.5, 0.5};
    double px[4][2], c = size_in / 8, a = 0;
    for (int k = 0; k < 4; k++)
        assert_true(rnd_project(&cam, x + dx[k] * c, y + dy[k] * c, 3 / 25.4, px[k]));
    for (int k = 0; k < 4; k++)
        a += px[k][0] * px[(k + 1) % 4][1] - px[(k + 1) % 4][0] * px[k][1];
    return sqrt(fabs(a) / 2);
}

static void test_check_good(void **state)
{
    (void)state;
    scene(dir, 1920, 1080, 1.0, 4, 31);
    json_t *o = check_json(0, NULL);
    assert_true(json_is_true(json_object_get(o, "ok")));
    assert_int_equal((int)num(o, "anchors_seen"), 4);
    assert_true(num(o, "reprojection_rms_px") < 0.5);
    double mn = num(o, "min_px_per_cell");
    const json_t *at = json_object_get(o, "min_at");
    assert_int_equal(json_array_size(at), 2);
    double ax = json_number_value(json_array_get(at, 0)), ay = json_number_value(json_array_get(at, 1));
    /* the worst spot is a corner of the table, as the renderer's camera has it */
    assert_true((ax == 0 || ax == 72) && (ay == 0 || ay == 48));
    assert_true(fabs(mn - predicted_ppc(ax, ay, 1.0)) < 0.02);
    assert_true(mn >= CALIB_MIN_PX_PER_CELL);
    assert_int_equal(json_array_size(json_object_get(o, "advice")), 0);
    /* every figure tag seen, each measured near what the camera predicts */
    const json_t *figs = json_object_get(o, "figures");
    double worst = 0;
    assert_true(json_array_size(figs) >= 88);
    for (size_t i = 0; i < json_array_size(figs); i++) {
        const json_t *f = json_array_get(figs, i);
        double p = predicted_ppc(num(f, "x"), num(f, "y"), 1.0);
        worst = fmax(worst, fabs(num(f, "px_per_cell") - p));
        assert_true(num(f, "px_per_cell") >= mn - 0.01);
    }
    /* a 16 px tag's corners are good to ~0.15 px under blur and noise: its
     * edges (0.3 px) give px per cell to about 0.04 */
    print_message("%zu figure tags: px per cell within %.3f of the camera's prediction\n", json_array_size(figs),
                  worst);
    assert_true(worst < 0.06);
    assert_true(fabs(num(o, "smallest_tag_in") - 1.0 * CALIB_MIN_PX_PER_CELL / mn) < 0.01);
    json_decref(o);
}

static void test_check_small(void **state)
{
    (void)state;
    scene(dir, 1920, 1080, 0.69, 4, 32);
    run_result r;
    json_t *o = check_json(1, &r); /* not every spot readable: exit 1, the report still printed */
    assert_true(json_is_false(json_object_get(o, "ok")));
    double mn = num(o, "min_px_per_cell");
    assert_true(mn < CALIB_MIN_PX_PER_CELL);
    const json_t *adv = json_object_get(o, "advice");
    assert_int_equal(json_array_size(adv), 4);
    int cam4k = 0, lower = 0, larger = 0, split = 0;
    for (size_t i = 0; i < json_array_size(adv); i++) {
        const char *a = json_string_value(json_array_get(adv, i));
        cam4k |= strstr(a, "4K camera") != NULL;
        lower |= strstr(a, "lower") != NULL;
        larger |= strstr(a, "larger tags") != NULL;
        split |= strstr(a, "two cameras") != NULL;
        if (strstr(a, "larger tags")) {
            /* the size that would do: read everywhere at the limit */
            double s = atof(strstr(a, "size_in ") + 8);
            assert_true(s >= 0.69 * CALIB_MIN_PX_PER_CELL / mn - 1e-9 && s < 0.69 * CALIB_MIN_PX_PER_CELL / mn + 0.06);
        }
    }
    assert_true(cam4k && lower && larger && split);
    json_decref(o);
    run_free(&r);
    /* in words */
    char rig[128], frame[128];
    snprintf(rig, sizeof rig, "%s/rig.json", dir);
    snprintf(frame, sizeof frame, "%s/frame.png", dir);
    char *argv[] = {TT_BIN, "check", "--rig", rig, frame, NULL};
    r = run_cmd(argv, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "NOT READY"));
    assert_non_null(strstr(r.out, "print larger tags"));
    run_free(&r);
}

static void expect_error(char *const argv[], const char *needle)
{
    run_result r = run_cmd(argv, NULL);
    if (r.status != 1 || r.out[0] || !strstr(r.err, needle))
        fail_msg("expected exit 1, no stdout and '%s' on stderr; got %d, '%.200s', '%.300s'", needle, r.status, r.out,
                 r.err);
    run_free(&r);
}

static void test_check_bad_input(void **state)
{
    (void)state;
    char rig[128], frame[128], other[128], junk[128];
    snprintf(rig, sizeof rig, "%s/rig.json", dir);
    snprintf(frame, sizeof frame, "%s/frame.png", dir);
    snprintf(other, sizeof other, "%s/small.png", dir);
    snprintf(junk, sizeof junk, "%s/junk.png", dir);
    /* a frame with no anchors in it */
    scene(dir, 1920, 1080, 0.88, 0, 33);
    char *a1[] = {TT_BIN, "check", "--rig", rig, frame, "--json", NULL};
    expect_error(a1, "anchor");
    /* a frame of another resolution than the rig's camera */
    tt_image im;
    tt_err err = {0};
    assert_int_equal(tt_image_alloc(&im, 1280, 720, 1, &err), TT_OK);
    memset(im.data, 90, (size_t)im.stride * im.height);
    assert_int_equal(cvw_image_write(other, &im, &err), TT_OK);
    tt_image_free(&im);
    char *a2[] = {TT_BIN, "check", "--rig", rig, other, NULL};
    expect_error(a2, "1280");
    /* an unreadable image */
    FILE *f = fopen(junk, "w");
    assert_non_null(f);
    fputs("not a picture\n", f);
    fclose(f);
    char *a3[] = {TT_BIN, "check", "--rig", rig, junk, NULL};
    expect_error(a3, "junk.png");
    /* no image: a usage error */
    char *a4[] = {TT_BIN, "check", "--rig", rig, NULL};
    run_result r = run_cmd(a4, NULL);
    assert_int_equal(r.status, 2);
    run_free(&r);
}

/* The camera and picture a limit is measured under: the 1080p webcam (blur
 * 0.7 px, noise 2, light falloff 0.2) or a 4K camera at the same spot with
 * bench_locate's hard frames' picture (blur 1 px, noise 4, falloff 0.5). */
typedef struct sweep_cam {
    int width;
    double blur, noise, gradient;
} sweep_cam;
static const sweep_cam CAM_1080P = {1920, 0.7, 2, 0.2}, CAM_4K_HARD = {3840, 1.0, 4, 0.5};

/* The detector's limit: frames of 90 tags each, sized for a given px per
 * cell at the table's centre; libapriltag at full resolution (decimate 1),
 * as locate's second look and check use it, or the half-size search with
 * its second look (decimate 2). */
static double recall_at_cam(const sweep_cam *sc_cam, double ppc, unsigned seed, double decimate)
{
    rnd_camera cam;
    double k = sc_cam->width / 1920.0; /* px per cell scales with the frame's width (webcam()) */
    webcam(&cam, sc_cam->width, sc_cam->width * 9 / 16);
    double size = ppc / (k * predicted_ppc(36, 24, 1.0)); /* ppc scales with the tag */
    rnd_tag tags[90];
    int n = rnd_standard_tags(tags, 0, 90, size, 3, 72, 48, seed);
    rnd_scene sc = {.width_in = 72, .depth_in = 48, .felt_gray = 90, .floor_gray = 40, .tags = tags, .ntags = n,
                    .light_gradient = sc_cam->gradient, .ambient = 1, .blur_sigma_px = sc_cam->blur,
                    .noise_sigma = sc_cam->noise, .supersample = 2, .seed = seed};
    tt_image im;
    tt_err err = {0};
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_OK);
    vision_detector_opts o;
    vision_detector *det = NULL;
    vision_detections ds = {0};
    vision_detector_opts_default(&o);
    o.decimate = decimate;
    assert_int_equal(vision_detector_create(&o, &det, &err), TT_OK);
    assert_int_equal(vision_detect(det, &im, &ds, &err), TT_OK);
    int found = 0, expected = 0;
    for (int i = 0; i < n; i++) {
        /* only tags at this scale within 5% (the table's edges are smaller) */
        if (fabs(k * predicted_ppc(tags[i].x, tags[i].y, size) / ppc - 1) > 0.05 ||
            !rnd_tag_unoccluded(&sc, &cam, &tags[i]))
            continue;
        expected++;
        for (int j = 0; j < ds.count; j++)
            found += ds.items[j].id == tags[i].id;
    }
    vision_detections_free(&ds);
    vision_detector_destroy(det);
    tt_image_free(&im);
    assert_true(expected >= 40);
    return (double)found / expected;
}

static double recall_at(double ppc, unsigned seed, double decimate)
{
    return recall_at_cam(&CAM_1080P, ppc, seed, decimate);
}

static void test_detector_limit(void **state)
{
    (void)state;
    if (getenv("TT_SWEEP"))
        for (double p = 1.3; p < 2.05; p += 0.1)
            print_message("%.2f px per cell: %.1f %% %.1f %%\n", p, 100 * recall_at(p, 51, 1), 100 * recall_at(p, 52, 1));
    double at_limit = fmin(recall_at(CALIB_MIN_PX_PER_CELL, 41, 1), recall_at(CALIB_MIN_PX_PER_CELL, 43, 1));
    double below = recall_at(1.3, 42, 1);
    print_message("libapriltag at full resolution, 1080p, blur 0.7, noise 2: %.1f px per cell read %.1f %%, 1.3 px "
                  "per cell %.1f %%\n",
                  CALIB_MIN_PX_PER_CELL, 100 * at_limit, 100 * below);
    assert_true(at_limit >= 0.995);
    assert_true(below < 0.5);
}

/* The half-size search's limit (VISION_HALF_MIN_PX_PER_CELL, vision.h):
 * where locate and track stop reading at full resolution.  The limit is in
 * px per cell whatever the camera: a 4K camera with the hard frames' blur,
 * noise and light falloff reads every tag at it too, and misses some a
 * little below it (the sweep: 94-99 % at 3.0, 83-90 % at 2.8), so the hard
 * frames' 0.69" tags at 2.4-3.3 px per cell must be read at full
 * resolution although the half-size search happens to read most of them. */
static void test_half_limit(void **state)
{
    (void)state;
    if (getenv("TT_SWEEP"))
        for (double p = 1.8; p < 3.65; p += 0.2)
            print_message("decimate 2, %.2f px per cell: 1080p %.1f %% %.1f %%, 4K hard %.1f %% %.1f %%\n", p,
                          100 * recall_at(p, 51, 2), 100 * recall_at(p, 52, 2),
                          100 * recall_at_cam(&CAM_4K_HARD, p, 51, 2), 100 * recall_at_cam(&CAM_4K_HARD, p, 52, 2));
    double at_limit = fmin(recall_at(VISION_HALF_MIN_PX_PER_CELL, 41, 2), recall_at(VISION_HALF_MIN_PX_PER_CELL, 43, 2));
    double full_limit = recall_at(CALIB_MIN_PX_PER_CELL, 42, 2);
    double at_limit_4k = recall_at_cam(&CAM_4K_HARD, VISION_HALF_MIN_PX_PER_CELL, 41, 2);
    double below_4k = recall_at_cam(&CAM_4K_HARD, 2.6, 42, 2);
    print_message("half-size search, 1080p, blur 0.7, noise 2: %.1f px per cell read %.1f %%, %.1f px per cell "
                  "%.1f %%\n",
                  VISION_HALF_MIN_PX_PER_CELL, 100 * at_limit, CALIB_MIN_PX_PER_CELL, 100 * full_limit);
    print_message("half-size search, 4K, blur 1, noise 4, falloff 0.5: %.1f px per cell read %.1f %%, 2.6 px per "
                  "cell %.1f %%\n",
                  VISION_HALF_MIN_PX_PER_CELL, 100 * at_limit_4k, 100 * below_4k);
    assert_true(at_limit >= 0.995);
    assert_true(full_limit < 0.9); /* full resolution is needed there */
    assert_true(at_limit_4k >= 0.995);
    assert_true(below_4k < 0.995); /* and at 4K too, below the limit */
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_check_good, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_small, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_bad_input, setup, teardown),
        cmocka_unit_test(test_detector_limit),
        cmocka_unit_test(test_half_limit),
    };
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
