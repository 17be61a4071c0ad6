/* test_check_cams.c - 'check' for two cameras over issue 31's 144x72 table
 * (tests/locate/cams_eval.h): frames overlapping by 10" pass, with five
 * anchors each and the overlap's width; frames 4" apart fail with the gap
 * named as a rectangle across the table (and the table's ends they miss)
 * and advice naming the cameras and how far to move; the CLI's --json carries "cameras" and "gaps". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cams_eval.h"
#include "check_cams.h"
#include "run.h"

/* Each camera's anchors and pose as check reads them, and its report. */
static void check_table(const ce_table *t, calib_check_cams_report *r)
{
    vision_detector_opts o;
    vision_detector *det = NULL;
    vision_detections ds[CE_CAMS];
    calib_pose poses[CE_CAMS];
    tt_err err = {0};
    memset(ds, 0, sizeof ds);
    vision_detector_opts_default(&o);
    o.nthreads = 2;
    calib_rig_detector_opts(t->rig, &o);
    assert_int_equal(vision_detector_create(&o, &det, &err), TT_OK);
    for (int k = 0; k < CE_CAMS; k++)
        if (calib_fuse_detect(t->rig, k, det, &t->images[k], 1, &ds[k], &poses[k], &err) != TT_OK)
            fail_msg("camera %d: %s", k + 1, err.msg);
    if (calib_check_cams(t->rig, poses, ds, r, &err) != TT_OK)
        fail_msg("%s", err.msg);
    for (int k = 0; k < CE_CAMS; k++)
        vision_detections_free(&ds[k]);
    vision_detector_destroy(det);
}

static void make(double overlap, int png, unsigned seed, ce_table *t)
{
    ce_options o;
    tt_err err = {0};
    ce_options_default(&o);
    o.nbases = 0;
    o.supersample = 1;
    o.overlap_in = overlap;
    o.split_anchors = 1;
    o.write_png = png;
    o.seed = seed;
    if (ce_table_make(&o, t, &err) != TT_OK)
        fail_msg("%s", err.msg);
}

static void test_overlapping_cameras_pass(void **state)
{
    (void)state;
    ce_table t;
    calib_check_cams_report r;
    make(10, 0, 31061, &t);
    check_table(&t, &r);
    printf("overlap 10\": ok %d, gaps %d, overlap width %.1f\", px per cell %.2f-%.2f / %.2f-%.2f\n", r.ok, r.ngaps,
           r.noverlaps ? r.overlaps[0].width_in : 0, r.cams[0].min_px_per_cell, r.cams[0].max_px_per_cell,
           r.cams[1].min_px_per_cell, r.cams[1].max_px_per_cell);
    assert_true(r.ok);
    assert_int_equal(r.ngaps, 0);
    assert_int_equal(r.nadvice, 0);
    assert_int_equal(r.noverlaps, 1);
    /* the frames overlap by 10"; a spot is read when its whole printed
     * tag (1") is in both */
    assert_true(r.overlaps[0].width_in > 7 && r.overlaps[0].width_in <= 10);
    for (int k = 0; k < CE_CAMS; k++) {
        assert_int_equal(r.cams[k].anchors_seen, 4);
        assert_true(r.cams[k].min_px_per_cell > 2.3 && r.cams[k].max_px_per_cell < 3.2);
        assert_true(r.cams[k].reprojection_rms_px < 0.5);
        assert_true(fabs(r.cams[k].camera_height_in - fabs(t.cams[k].tvec[2])) < 1);
    }
    assert_non_null(strstr(r.cams[0].anchors, "tag36h11 0, 3, 4, 6"));
    assert_true(r.cams[0].part[0] <= 1 && r.cams[0].part[2] > 72 && r.cams[1].part[0] < 72 && r.cams[1].part[2] >= 143);
    int ncols;
    char rows[4000];
    int nrows = calib_check_cams_map(&r, 4, rows, &ncols, sizeof rows);
    assert_int_equal(nrows, 19);
    assert_int_equal(ncols, 37);
    assert_non_null(strchr(rows, '+'));
    assert_null(strchr(rows, '#'));
    calib_check_cams_free(&r);
    ce_table_free(&t);
}

static void test_gap_named(void **state)
{
    (void)state;
    ce_table t;
    calib_check_cams_report r;
    make(-4, 1, 31073, &t); /* each frame stops 2" short of x = 72 */
    check_table(&t, &r);
    /* frames that reach 34" each side of their middles: the strip between
     * them and the table's two ends (x < 2, x > 142) go unread */
    assert_false(r.ok);
    assert_int_equal(r.ngaps, 3);
    assert_int_equal(r.noverlaps, 0);
    const calib_check_gap *mid = NULL;
    for (int g = 0; g < r.ngaps; g++) {
        printf("gap (%.1f, %.1f)-(%.1f, %.1f)\n", r.gaps[g].x0, r.gaps[g].y0, r.gaps[g].x1, r.gaps[g].y1);
        assert_true(r.gaps[g].y0 == 0 && r.gaps[g].y1 == 72);
        if (r.gaps[g].x0 > 60 && r.gaps[g].x1 < 84)
            mid = &r.gaps[g];
        else
            assert_true(r.gaps[g].x1 < 4 || r.gaps[g].x0 > 140);
    }
    assert_non_null(mid);
    /* the strip the frames miss, widened by half the printed tag on each side */
    assert_true(mid->x0 > 68 && mid->x0 < 71);
    assert_true(mid->x1 > 73 && mid->x1 < 76);
    int between = 0, end = 0;
    for (int i = 0; i < r.nadvice; i++) {
        printf("advice: %s\n", r.advice[i]);
        between += strstr(r.advice[i], "between camera 1 (camera0.yaml) and camera 2 (camera1.yaml): move camera 2 "
                                       "(camera1.yaml) about") != NULL;
        end += strstr(r.advice[i], "move camera 1 (camera0.yaml) about") != NULL;
    }
    assert_int_equal(between, 1);
    assert_int_equal(end, 1);
    calib_check_cams_free(&r);

    /* the CLI: exit 1, the gap in --json */
    char *argv[] = {TT_BIN, "check", "--rig", t.rig_path, "--json", t.img_path[0], t.img_path[1], NULL};
    run_result rr = run_cmd(argv, NULL);
    assert_int_equal(rr.status, 1);
    json_t *root = json_loads(rr.out, 0, NULL);
    if (!root)
        fail_msg("not JSON: %s / %s", rr.out, rr.err);
    assert_false(json_is_true(json_object_get(root, "ok")));
    json_t *cams = json_object_get(root, "cameras"), *gaps = json_object_get(root, "gaps");
    assert_int_equal(json_array_size(cams), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(cams, 1), "anchors_seen")), 4);
    assert_int_equal(json_array_size(gaps), 3);
    int named = 0;
    for (size_t g = 0; g < json_array_size(gaps); g++) {
        double x0 = json_number_value(json_object_get(json_array_get(gaps, g), "x0"));
        double x1 = json_number_value(json_object_get(json_array_get(gaps, g), "x1"));
        named += x0 > 68 && x0 < 71 && x1 > 73 && x1 < 76;
    }
    assert_int_equal(named, 1);
    json_decref(root);
    run_free(&rr);
    /* in words: the gap named */
    char *words[] = {TT_BIN, "check", "--rig", t.rig_path, t.img_path[0], t.img_path[1], NULL};
    rr = run_cmd(words, NULL);
    assert_int_equal(rr.status, 1);
    if (!strstr(rr.out, "GAP: no camera reads (") || !strstr(rr.out, "NOT READY"))
        fail_msg("stdout: %s", rr.out);
    run_free(&rr);
    char *one[] = {TT_BIN, "check", "--rig", t.rig_path, t.img_path[0], NULL};
    rr = run_cmd(one, NULL);
    assert_int_not_equal(rr.status, 0);
    assert_non_null(strstr(rr.err, "the rig has 2 cameras"));
    run_free(&rr);
    ce_table_free(&t);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlapping_cameras_pass),
        cmocka_unit_test(test_gap_named),
    };
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    int rc = cmocka_run_group_tests_name("check_cams", tests, NULL, NULL);
    rnd_texture_cache_clear();
    return rc;
}
