/* test_refine.c - vision_refine_corners on rendered tags (tests/render):
 * a tag square to the frame, moved through a pixel in eighths, keeps every
 * refined corner within 0.03 px of the truth (libapriltag's own, printed
 * beside, is off by up to a tenth of a pixel there, by where its edges fall
 * within their pixels); a turned tag and a noisy frame stay within their
 * bounds; a small tag, a flat patch and a tag at the frame's edge are left
 * as they were. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render.h"
#include "vision.h"

#define W 640
#define H 480

/* One tag of size_in at (x, y) turned facing_deg, seen straight down from
 * 30" with f_px; its detection (refine on or off) against the truth: the
 * mean of its corners' offsets (*shift, px) and its worst corner (*worst). */
static void one_tag(double x, double y, double facing_deg, double size_in, double f_px, double noise, int refine,
                    double *shift, double *worst, double *ppc)
{
    rnd_tag tag;
    memset(&tag, 0, sizeof tag);
    snprintf(tag.family, sizeof tag.family, "tag36h11");
    tag.id = 7;
    tag.x = x;
    tag.y = y;
    tag.size_in = size_in;
    tag.facing_deg = facing_deg;
    rnd_camera cam;
    rnd_camera_look_at(&cam, W, H, f_px, 0, 0, 12, 12, 30, 12, 12);
    rnd_scene sc = {.width_in = 24, .depth_in = 24, .felt_gray = 90, .floor_gray = 40, .tags = &tag, .ntags = 1,
                    .ambient = 1, .blur_sigma_px = 0.6, .noise_sigma = noise, .supersample = 4, .seed = 5};
    tt_image im = {0};
    tt_err err = {0};
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_OK);
    vision_detector_opts o;
    vision_detector *det = NULL;
    vision_detector_opts_default(&o);
    o.refine_corners = refine;
    assert_int_equal(vision_detector_create(&o, &det, &err), TT_OK);
    vision_detections ds = {0};
    assert_int_equal(vision_detect(det, &im, &ds, &err), TT_OK);
    assert_int_equal(ds.count, 1);
    *ppc = vision_detection_px_per_cell(det, &ds.items[0]);
    double c[4][2], m[2] = {0, 0};
    rnd_tag_corners(&tag, c);
    *worst = 0;
    for (int k = 0; k < 4; k++) {
        double p[2];
        assert_true(rnd_project(&cam, c[k][0], c[k][1], 0, p));
        double dx = ds.items[0].corners[k][0] - p[0], dy = ds.items[0].corners[k][1] - p[1];
        m[0] += dx / 4;
        m[1] += dy / 4;
        *worst = fmax(*worst, hypot(dx, dy));
    }
    *shift = hypot(m[0], m[1]);
    vision_detections_free(&ds);
    vision_detector_destroy(det);
    tt_image_free(&im);
}

static void test_square_to_the_frame(void **state)
{
    (void)state;
    const double f = 800, in_per_px = 30.0 / f; /* 2.4" tags: 64 px, 8 px per cell */
    double raw_worst = 0, ref_worst = 0, ref_shift = 0, ppc = 0;
    for (int k = 0; k < 8; k++) {
        double x = 12 + k / 8.0 * in_per_px, y = 12 + ((3 * k) % 8) / 8.0 * in_per_px, s, w;
        one_tag(x, y, -90, 2.4, f, 0, 0, &s, &w, &ppc);
        raw_worst = fmax(raw_worst, w);
        one_tag(x, y, -90, 2.4, f, 0, 1, &s, &w, &ppc);
        ref_worst = fmax(ref_worst, w);
        ref_shift = fmax(ref_shift, s);
    }
    printf("a tag square to the frame at %.1f px per cell, through a pixel in eighths: worst corner %.4f px "
           "refined (its centre %.4f px), %.4f px as libapriltag gives it\n",
           ppc, ref_worst, ref_shift, raw_worst);
    assert_true(ppc > 7.5 && ppc < 8.5);
    assert_true(ref_worst < 0.03);
    assert_true(ref_shift < 0.02);
}

static void test_turned_and_noisy(void **state)
{
    (void)state;
    double s, w, ppc, worst = 0;
    const double facing[] = {-60, -17, 33};
    for (size_t i = 0; i < sizeof facing / sizeof facing[0]; i++) {
        one_tag(12.013, 11.991, facing[i], 2.4, 800, 0, 1, &s, &w, &ppc);
        worst = fmax(worst, w);
    }
    printf("turned tags: worst corner %.4f px refined\n", worst);
    assert_true(worst < 0.05);
    one_tag(12.013, 11.991, -90, 2.4, 800, 4, 1, &s, &w, &ppc); /* noise 4 gray levels */
    printf("noise 4: worst corner %.4f px refined, centre %.4f px\n", w, s);
    assert_true(w < 0.1);
    assert_true(s < 0.05);
}

static void test_left_as_they_were(void **state)
{
    (void)state;
    vision_detection d, d0;
    memset(&d, 0, sizeof d);
    const double c[4][2] = {{20, 60}, {60, 60}, {60, 20}, {20, 20}};
    memcpy(d.corners, c, sizeof c);
    d.center[0] = d.center[1] = 40;
    d0 = d;
    unsigned char px[100 * 100];
    memset(px, 128, sizeof px);
    tt_image flat = {.width = 100, .height = 100, .channels = 1, .stride = 100, .data = px};
    /* no step anywhere */
    assert_int_equal(vision_refine_corners(&flat, &d, 5), 0);
    assert_memory_equal(&d, &d0, sizeof d);
    /* too small to refine */
    assert_int_equal(vision_refine_corners(&flat, &d, VISION_REFINE_MIN_PX_PER_CELL - 0.1), 0);
    assert_memory_equal(&d, &d0, sizeof d);
    /* a dark square on white whose edges run off the frame's top-left */
    memset(px, 230, sizeof px);
    for (int y = 0; y < 60; y++)
        memset(px + y * 100, 20, 60);
    const double off[4][2] = {{0, 59.5}, {59.5, 59.5}, {59.5, 0}, {0, 0}};
    memcpy(d.corners, off, sizeof off);
    d0 = d;
    assert_int_equal(vision_refine_corners(&flat, &d, 7.4), 0);
    assert_memory_equal(&d, &d0, sizeof d);
    /* and a gray image of the wrong kind */
    tt_image rgb = flat;
    rgb.channels = 3;
    assert_int_equal(vision_refine_corners(&rgb, &d, 7.4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_square_to_the_frame),
        cmocka_unit_test(test_turned_and_noisy),
        cmocka_unit_test(test_left_as_they_were),
    };
    return cmocka_run_group_tests_name("vision_refine", tests, NULL, NULL);
}
