/* test_hostile_calib.c - hostile camera files, rigs and poses (issue 15,
 * items 1, 2, 5 and 6): each is refused with an error naming the file or the
 * anchors, never a crash, a NaN or a nonsense position with exit 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib.h"
#include "cvwrap.h"
#include "rec.h"
#include "hostile_util.h"
#include "run.h"

static const char *GOOD_K = "camera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
                            "   data: [ 2900., 0., 1919.5, 0., 2900., 1079.5, 0., 0., 1. ]\n";

/* A camera file: the size lines, then `rest`. */
static void put_camera(const char *name, const char *rest)
{
    char text[4096];
    snprintf(text, sizeof text, "%%YAML:1.0\n---\nimage_width: 3840\nimage_height: 2160\n%s", rest);
    hu_put(name, text);
}

/* cvw_camera_read refuses the file with TT_ERR_FORMAT, naming it and saying
 * `what`. */
static void expect_refused(const char *name, const char *what)
{
    cvw_camera cam;
    tt_err err = {0};
    tt_status st = cvw_camera_read(hu_at(name), &cam, &err);
    if (st != TT_ERR_FORMAT || !strstr(err.msg, hu_at(name)) || !strstr(err.msg, what))
        fail_msg("%s: expected TT_ERR_FORMAT naming the file and saying '%s'; got %d '%s'", name, what, (int)st,
                 err.msg);
}

/* Two "---" document markers made OpenCV's reader loop for ever (found by
 * fuzz_camera_yaml); refused before OpenCV sees the file, at once. */
static void test_camera_second_document(void **state)
{
    (void)state;
    hu_put("twodocs.yaml", "%YAML:1.0\n----ae_width: AML:1.0\n----ae_width: 191919\nima");
    expect_refused("twodocs.yaml", "line 2: '---' must stand alone");
    put_camera("twodocs2.yaml", "---\nimage_width: 3840\n");
    expect_refused("twodocs2.yaml", "a second YAML document");
    hu_put("dashline.yaml", "%YAML:1.0\n----ae_width.-\n--a-e0_w\xff\xff\xff\xff\xff\xff\xff\xff" "1919\ni\n\n");
    expect_refused("dashline.yaml", "line 2: '---' must stand alone");
    hu_put("dashline2.yaml", "%YAML:1.0\n---\n--a-e0_w 1919\ni\n\n");
    expect_refused("dashline2.yaml", "line 3 starts with '-'");
}

static void test_camera_deeply_nested(void **state)
{
    (void)state;
    /* ~100,000 nested '[' crashed OpenCV's YAML reader (SIGSEGV). */
    size_t n = 100000;
    char *text = malloc(2 * n + 200);
    assert_non_null(text);
    int k = sprintf(text, "%%YAML:1.0\nimage_width: 10\nimage_height: 10\ncamera_matrix: ");
    memset(text + k, '[', n);
    memset(text + k + n, ']', n);
    strcpy(text + k + 2 * n, "\n");
    hu_put("deep.yaml", text);
    expect_refused("deep.yaml", "nested more than 16 deep");
    /* The same through the command line: exit 1, the file named, no crash. */
    hu_put("rig.json", "{\"table\": {\"width_in\": 72, \"depth_in\": 48}, \"camera\": \"deep.yaml\", "
                    "\"bases\": {\"families\": [\"tag36h11\"], \"size_in\": 0.8, \"height_mm\": 3}, \"anchors\": ["
                    "{\"id\": 0, \"x\": 2.5, \"y\": 2.5, \"size_in\": 2.4},"
                    "{\"id\": 1, \"x\": 69.5, \"y\": 2.5, \"size_in\": 2.4}]}");
    char *argv[] = {TT_BIN, "locate", "--rig", (char *)hu_at("rig.json"), TT_SAMPLES "/table/frame.png", NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 1 || !strstr(r.err, "deep.yaml") || !strstr(r.err, "nested"))
        fail_msg("locate with a deeply nested camera.yaml: exit %d, stderr '%.300s'", r.status, r.err);
    run_free(&r);

    /* Block nesting by indentation and by "- - - -" prefixes. */
    char *blk = malloc(1 << 20);
    assert_non_null(blk);
    int len = sprintf(blk, "%%YAML:1.0\nimage_width: 10\n");
    for (int d = 0; d < 200; d++)
        len += sprintf(blk + len, "%*sk%d:\n", d, "", d);
    hu_put("indent.yaml", blk);
    expect_refused("indent.yaml", "nested more than 64 columns deep");
    len = sprintf(blk, "%%YAML:1.0\nx: \n");
    for (int d = 0; d < 100000; d++)
        len += sprintf(blk + len, "- ");
    strcpy(blk + len, "1\n");
    hu_put("dashes.yaml", blk);
    expect_refused("dashes.yaml", "nested more than 64 columns deep");
    free(blk);
    free(text);
}

static void test_camera_oversized(void **state)
{
    (void)state;
    FILE *f = fopen(hu_at("big.yaml"), "w");
    assert_non_null(f);
    fputs("%YAML:1.0\nimage_width: 10\nimage_height: 10\n", f);
    for (int i = 0; i < 40000; i++)
        fprintf(f, "pad%d: 12345678901234567890\n", i);
    assert_int_equal(fclose(f), 0);
    expect_refused("big.yaml", "larger than 1048576 bytes");
    hu_put("nul.yaml", "%YAML:1.0\nimage_width: 10\n");
    f = fopen(hu_at("nul.yaml"), "a");
    fputc(0, f);
    fclose(f);
    expect_refused("nul.yaml", "binary");
}

static void test_camera_matrix_shapes(void **state)
{
    (void)state;
    char rest[2048];
    put_camera("k22.yaml", "camera_matrix: !!opencv-matrix\n   rows: 2\n   cols: 2\n   dt: d\n   data: [ 1., 0., 0., 1. ]\n");
    expect_refused("k22.yaml", "camera_matrix is 2x2; it must be a 3x3 matrix");
    snprintf(rest, sizeof rest, "%sdistortion_coefficients: !!opencv-matrix\n   rows: 3\n   cols: 1\n   dt: d\n"
             "   data: [ -0.08, 0.02, 0. ]\n", GOOD_K);
    put_camera("d3.yaml", rest);
    expect_refused("d3.yaml", "distortion_coefficients has 3 entries");
    snprintf(rest, sizeof rest, "%sdistortion_coefficients: !!opencv-matrix\n   rows: 1\n   cols: 17\n   dt: d\n"
             "   data: [ 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0. ]\n", GOOD_K);
    put_camera("d17.yaml", rest);
    expect_refused("d17.yaml", "distortion_coefficients has 17 entries");
    snprintf(rest, sizeof rest, "%sdistortion_coefficients: !!opencv-matrix\n   rows: 2\n   cols: 7\n   dt: d\n"
             "   data: [ 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0. ]\n", GOOD_K);
    put_camera("d27.yaml", rest);
    expect_refused("d27.yaml", "distortion_coefficients is 2x7; it must be one row or column");
    put_camera("knan.yaml", "camera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
               "   data: [ 2900., 0., .nan, 0., 2900., 1079.5, 0., 0., 1. ]\n");
    expect_refused("knan.yaml", "camera_matrix entry (1, 3) is not a finite number");
    snprintf(rest, sizeof rest, "%sdistortion_coefficients: !!opencv-matrix\n   rows: 5\n   cols: 1\n   dt: d\n"
             "   data: [ -0.08, .inf, 0., 0., 0. ]\n", GOOD_K);
    put_camera("dinf.yaml", rest);
    expect_refused("dinf.yaml", "distortion_coefficients entry (1, 2) is not a finite number");
    put_camera("krow.yaml", "camera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
               "   data: [ 2900., 0., 1919.5, 0., 2900., 1079.5, 0., 5., 1. ]\n");
    expect_refused("krow.yaml", "lower left or last entry");
    hu_put("wbig.yaml", "%YAML:1.0\nimage_width: 99999999\nimage_height: 10\n");
    expect_refused("wbig.yaml", "between 1 and 32768 pixels");
    hu_put("wfrac.yaml", "%YAML:1.0\nimage_width: 10.5\nimage_height: 10\n");
    expect_refused("wfrac.yaml", "whole numbers");
    /* Found by fuzz_camera_yaml: a garbled "rows:" made OpenCV allocate
     * gigabytes (tests/fuzz/corpus/camera_yaml/timeout-rows-dot.yaml). */
    snprintf(rest, sizeof rest, "%sdistortion_coefficients: !!opencv-matrix\n   rows: .\n   cols: 1\n   dt: d\n"
             "   data: [ -0.06, 0.015, 0., 0., 0. ]\n", GOOD_K);
    put_camera("rowsdot.yaml", rest);
    expect_refused("rowsdot.yaml", "distortion_coefficients: rows and cols must be whole numbers from 1 to 64");
    snprintf(rest, sizeof rest, "%sdistortion_coefficients: !!opencv-matrix\n   rows: 5\n   cols: 1\n   dt: d\n"
             "   data: [ -0.06, 0.015 ]\n", GOOD_K);
    put_camera("short.yaml", rest);
    expect_refused("short.yaml", "data must hold rows x cols = 5 numbers");
    put_camera("kstr.yaml", "camera_matrix: hello\n");
    expect_refused("kstr.yaml", "camera_matrix must be an !!opencv-matrix");
    hu_put("nok.yaml", "%YAML:1.0\nimage_width: 10\nimage_height: 10\n");
    expect_refused("nok.yaml", "missing camera_matrix");
    /* The sample camera file still reads. */
    cvw_camera cam;
    tt_err err = {0};
    assert_int_equal(cvw_camera_read(TT_SAMPLES "/table/camera.yaml", &cam, &err), TT_OK);
    assert_int_equal(cam.ndist, 5);
    assert_true(cam.K[0] == 2900.0 && cam.K[8] == 1.0);
}

/* A rig around samples/table/frame.png with the given anchors (JSON list). */
static void put_rig(const char *anchors)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp '%s/table/camera.yaml' '%s/camera.yaml'", TT_SAMPLES, hu_dir);
    assert_int_equal(system(cmd), 0);
    char text[2048];
    snprintf(text, sizeof text,
             "{\"table\": {\"width_in\": 72, \"depth_in\": 48}, \"camera\": \"camera.yaml\",\n"
             " \"bases\": {\"families\": [\"tag36h11\"], \"size_in\": 0.8, \"height_mm\": 3}, \"anchors\": %s}", anchors);
    hu_put("rig.json", text);
}

static run_result locate(void)
{
    char *argv[] = {TT_BIN, "locate", "--rig", (char *)hu_at("rig.json"), TT_SAMPLES "/table/frame.png", NULL};
    return run_cmd(argv, NULL);
}

static void expect_locate_error(const char *needle1, const char *needle2)
{
    run_result r = locate();
    if (r.status != 1 || r.out[0] || !strstr(r.err, needle1) || !strstr(r.err, needle2))
        fail_msg("expected exit 1, no output, '%s' and '%s' on stderr; got exit %d, stdout '%.300s', stderr '%.400s'",
                 needle1, needle2, r.status, r.out, r.err);
    run_free(&r);
}

static void test_anchors_coincide(void **state)
{
    (void)state;
    /* Two anchors at the same place printed "x": nan with exit 0. */
    put_rig("[{\"id\": 0, \"x\": 2.5, \"y\": 2.5, \"size_in\": 2.4}, {\"id\": 1, \"x\": 2.5, \"y\": 2.5, \"size_in\": 2.4},"
            "{\"id\": 2, \"x\": 69.5, \"y\": 45.5, \"size_in\": 2.4}]");
    expect_locate_error("anchors tag36h11 0 at (2.5, 2.5) and tag36h11 1 at (2.5, 2.5) overlap", "rig.json");
}

static void test_anchors_collinear(void **state)
{
    (void)state;
    put_rig("[{\"id\": 0, \"x\": 2.5, \"y\": 2.5, \"size_in\": 2.4}, {\"id\": 1, \"x\": 69.5, \"y\": 2.5, \"size_in\": 2.4},"
            "{\"id\": 2, \"x\": 36, \"y\": 2.5, \"size_in\": 2.4}]");
    expect_locate_error("anchors tag36h11 0, tag36h11 1, tag36h11 2 all lie on one line", "rig.json");
}

static void test_anchors_do_not_fit(void **state)
{
    (void)state;
    /* Anchor 2 is really at (69.5, 45.5): the rig says (50, 20).  This
     * printed positions with "reprojection_rms_px": hundreds, exit 0. */
    put_rig("[{\"id\": 0, \"x\": 2.5, \"y\": 2.5, \"size_in\": 2.4}, {\"id\": 1, \"x\": 69.5, \"y\": 2.5, \"size_in\": 2.4},"
            "{\"id\": 2, \"x\": 50, \"y\": 20, \"size_in\": 2.4}]");
    expect_locate_error("the anchors do not fit the rig file", "the limit is 5 px");
    run_result r = locate();
    assert_non_null(strstr(r.err, "tag36h11 2 ("));
    run_free(&r);
    /* The right rig locates, within the limit. */
    put_rig("[{\"id\": 0, \"x\": 2.5, \"y\": 2.5, \"size_in\": 2.4}, {\"id\": 1, \"x\": 69.5, \"y\": 2.5, \"size_in\": 2.4},"
            "{\"id\": 2, \"x\": 69.5, \"y\": 45.5, \"size_in\": 2.4}]");
    r = locate();
    if (r.status != 0 || !strstr(r.out, "\"figures\":[{") || strstr(r.out, "nan") || strstr(r.out, "inf"))
        fail_msg("locate with a good rig: exit %d, stdout '%.200s', stderr '%.300s'", r.status, r.out, r.err);
    run_free(&r);
}

/* The recorder refuses any position that is not finite or absurdly far,
 * so no recording (and no replay page) ever holds one. */
static void test_record_refuses_infinite(void **state)
{
    (void)state;
    rec *r = NULL;
    tt_err err = {0};
    assert_int_equal(rec_open(hu_at("game.ttrec"), REC_CREATE_NEW, &r, &err), TT_OK);
    assert_int_equal(rec_session_begin(r, "{}", NULL, NULL, &err), TT_OK);
    rec_figure f = {"tag36h11", 7, 10, 10, 0, REC_SEEN, 0, 0, 0, 0};
    assert_int_equal(rec_frame(r, 1, 0, &f, 1, &err), TT_OK);
    const double bad[] = {INFINITY, -INFINITY, NAN, 1e300, -2e5};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f.x = bad[i];
        assert_int_equal(rec_frame(r, 2, 10, &f, 1, &err), TT_ERR_ARG);
        assert_non_null(strstr(err.msg, "figure 7"));
        f.x = 10;
        f.y = bad[i];
        assert_int_equal(rec_frame(r, 2, 10, &f, 1, &err), TT_ERR_ARG);
        f.y = 10;
        double from[2] = {10, 10}, to[2] = {bad[i], 10};
        assert_int_equal(rec_event(r, 2, 10, REC_EV_MOVED, "tag36h11", 7, from, to, &err), TT_ERR_ARG);
        assert_int_equal(rec_event(r, 2, 10, REC_EV_MOVED, "tag36h11", 7, to, from, &err), TT_ERR_ARG);
    }
    double from[2] = {10, 10}, to[2] = {12, 10};
    assert_int_equal(rec_event(r, 2, 10, REC_EV_MOVED, "tag36h11", 7, from, to, &err), TT_OK);
    assert_int_equal(rec_close(r, &err), TT_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_camera_second_document),
        cmocka_unit_test(test_camera_deeply_nested), cmocka_unit_test(test_camera_oversized),
        cmocka_unit_test(test_camera_matrix_shapes), cmocka_unit_test(test_anchors_coincide),
        cmocka_unit_test(test_anchors_collinear),    cmocka_unit_test(test_anchors_do_not_fit),
        cmocka_unit_test(test_record_refuses_infinite),
    };
    return cmocka_run_group_tests(tests, hu_setup, hu_teardown);
}
