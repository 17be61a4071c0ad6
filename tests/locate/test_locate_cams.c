/* test_locate_cams.c - locate with two cameras over one table (issue 31),
 * on issue 31's held-out table (cams_eval.h, seeds not used elsewhere):
 * every figure on both halves found, each reported once, the overlap's
 * figures within 0.005" rms of the truth, and the issue's targets: 0.01"
 * rms over all, each in the overlap within 0.005"; a camera seeing three
 * anchors is refused naming it and them; the CLI takes one frame per
 * camera in rig order, says so when the count differs, and prints
 * "cameras" and each figure's "seen_by". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cams_eval.h"
#include "run.h"

static void test_two_halves_targets(void **state)
{
    (void)state;
    const unsigned seeds[] = {31029, 31017};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        ce_score sc;
        calib_pose poses[CE_CAMS];
        tt_err err = {0};
        if (ce_score_seed(seeds[s], poses, &sc, &err) != TT_OK)
            fail_msg("seed %u: %s", seeds[s], err.msg);
        printf("seed %u: found %d of %d, spurious %d, twice %d; rms %.4f\" max %.4f\" (target 0.01\" rms: %s); "
               "overlap %d figures, rms %.4f\" max %.4f\" (target 0.005\" each: %s); poses %.3f / %.3f px from "
               "%d / %d anchors\n",
               seeds[s], sc.found, sc.expected, sc.spurious, sc.twice, sc.rms, sc.max,
               sc.rms < 0.01 ? "met" : "NOT met", sc.overlap, sc.overlap_rms, sc.overlap_max,
               sc.overlap_max < 0.005 ? "met" : "NOT met", poses[0].rms_px, poses[1].rms_px, poses[0].anchors_used,
               poses[1].anchors_used);
        /* what fusion itself owes: every figure found, none twice, none
         * made up, and the overlap's figures (seen by both, fused) within
         * 0.005" rms; and the issue's targets, met since the anchors'
         * corners are refined (vision_refine_corners) and a tilt one
         * misplaced corner makes decides no height (calib_err_tilt_odd):
         * docs/limits.md, "Several cameras". */
        assert_true(sc.expected >= 70);
        assert_int_equal(sc.found, sc.expected);
        assert_int_equal(sc.spurious, 0);
        assert_int_equal(sc.twice, 0);
        assert_true(sc.overlap >= 3);
        assert_true(sc.overlap_rms < 0.005);
        assert_true(sc.rms < 0.01);
        assert_true(sc.overlap_max < 0.005);
    }
}

static void test_camera_with_three_anchors(void **state)
{
    (void)state;
    ce_options o;
    ce_table t;
    calib_pose poses[CE_CAMS];
    tt_err err = {0};
    ce_options_default(&o);
    o.nbases = 0;
    o.supersample = 1;
    o.nanchors = 5; /* no anchor at the far edge's middle: each camera sees 3 */
    o.seed = 31041;
    if (ce_table_make(&o, &t, &err) != TT_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(ce_locate(&t, NULL, poses, NULL, &err), TT_ERR_ANCHORS);
    if (!strstr(err.msg, "camera 1 (camera0.yaml) sees only 3 anchors (tag36h11 0, 3, 4)") ||
        !strstr(err.msg, "at least 4 anchors"))
        fail_msg("message: %s", err.msg);
    ce_table_free(&t);
}

static void test_cli(void **state)
{
    (void)state;
    ce_options o;
    ce_table t;
    tt_err err = {0};
    ce_options_default(&o);
    o.nbases = 24;
    o.seed = 31053;
    o.write_png = 1;
    if (ce_table_make(&o, &t, &err) != TT_OK)
        fail_msg("%s", err.msg);
    char *argv[] = {TT_BIN, "locate", "--rig", t.rig_path, t.img_path[0], t.img_path[1], NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("locate failed: %s", r.err);
    json_t *root = json_loads(r.out, 0, NULL);
    assert_non_null(root);
    json_t *cams = json_object_get(root, "cameras"), *figs = json_object_get(root, "figures");
    assert_int_equal(json_array_size(cams), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(cams, 1), "source")), "usb:RIGHT");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(cams, 0), "anchors_used")), 5);
    int both = 0;
    for (size_t i = 0; i < json_array_size(figs); i++) {
        json_t *g = json_array_get(figs, i);
        int id = (int)json_integer_value(json_object_get(g, "id"));
        for (size_t j = 0; j < i; j++)
            assert_int_not_equal(id, (int)json_integer_value(json_object_get(json_array_get(figs, j), "id")));
        const rnd_tag *tag = NULL;
        for (int k = t.nanchors; k < t.ntags; k++)
            if (t.tags[k].id == id)
                tag = &t.tags[k];
        assert_non_null(tag);
        double x = json_number_value(json_object_get(g, "x")), y = json_number_value(json_object_get(g, "y"));
        assert_true(hypot(x - tag->x, y - tag->y) < 0.03);
        both += json_array_size(json_object_get(g, "seen_by")) == 2;
    }
    assert_int_equal((int)json_array_size(figs), o.nbases);
    printf("CLI: %zu figures, %d seen by both cameras\n", json_array_size(figs), both);
    json_decref(root);
    run_free(&r);

    /* one frame for two cameras; three frames */
    char *one[] = {TT_BIN, "locate", "--rig", t.rig_path, t.img_path[0], NULL};
    r = run_cmd(one, NULL);
    assert_int_not_equal(r.status, 0);
    if (!strstr(r.err, "the rig has 2 cameras (camera 1 (camera0.yaml), camera 2 (camera1.yaml)) but 1 frame was "
                       "given: give one frame per camera, in the rig's order"))
        fail_msg("stderr: %s", r.err);
    run_free(&r);
    char *three[] = {TT_BIN, "locate", "--rig", t.rig_path, t.img_path[0], t.img_path[1], t.img_path[1], NULL};
    r = run_cmd(three, NULL);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "but 3 frames were given"));
    run_free(&r);
    ce_table_free(&t);
}

/* A rig whose anchors in camera 2's part are written 1.5" off (as if
 * they, or the camera, had moved since): the overlap's figures are seen
 * apart by the two cameras, and locate warns naming both and asks for
 * check; with the true rig it warns of nothing.  tt-render's small frames
 * (1280x720, 2.4" tags) keep it quick. */
static void test_cli_disagreement(void **state)
{
    (void)state;
    char dir[] = "/tmp/tt_cams_moved_XXXXXX", cmd[1200], rig[600], moved[600], f0[600], f1[600];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "%s --out %s --table 144,72 --cameras 2 --overlap 10 --anchors 8 --bases 30 --width 1280 --height 720 "
             "--f-px 900 --base-size 2.4 --supersample 2 --seed 31087 --quiet",
             TT_RENDER_BIN, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(rig, sizeof rig, "%s/rig.json", dir);
    snprintf(moved, sizeof moved, "%s/moved.json", dir);
    snprintf(f0, sizeof f0, "%s/frame0.png", dir);
    snprintf(f1, sizeof f1, "%s/frame1.png", dir);
    json_t *root = json_load_file(rig, 0, NULL), *anchors = json_object_get(root, "anchors");
    assert_non_null(anchors);
    for (size_t i = 0; i < json_array_size(anchors); i++) {
        json_t *a = json_array_get(anchors, i), *x = json_object_get(a, "x");
        if (json_number_value(x) > 100)
            json_object_set_new(a, "x", json_real(json_number_value(x) - 1.5));
    }
    assert_int_equal(json_dump_file(root, moved, 0), 0);
    json_decref(root);

    char *good[] = {TT_BIN, "locate", "--rig", rig, f0, f1, NULL};
    run_result r = run_cmd(good, NULL);
    if (r.status != 0 || strstr(r.err, "warning"))
        fail_msg("true rig: status %d, stderr: %s", r.status, r.err);
    run_free(&r);
    char *bad[] = {TT_BIN, "locate", "--rig", moved, f0, f1, NULL};
    r = run_cmd(bad, NULL);
    assert_int_equal(r.status, 0);
    if (!strstr(r.err, "warning: camera 1 (camera0.yaml) and camera 2 (camera1.yaml) see tag36h11 ") ||
        !strstr(r.err, "re-run 'tabletrack check'"))
        fail_msg("stderr: %s", r.err);
    /* named three at most, then counted */
    int lines = 0;
    for (const char *c = r.err; (c = strstr(c, "see tag36h11 ")); c++)
        lines++;
    assert_true(lines >= 1 && lines <= 3);
    run_free(&r);
    /* track with the two cameras (each frame six times, so that the
     * figures settle): the true rig tracks without a warning; the moved one
     * warns once for the pair, naming both cameras, and asks for check */
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "%s/c%d", dir, k);
        assert_int_equal(mkdir(cmd, 0755), 0);
        for (int i = 0; i < 6; i++) {
            char dst[700];
            snprintf(dst, sizeof dst, "%s/c%d/f%d.png", dir, k, i);
            assert_int_equal(link(k ? f1 : f0, dst), 0);
        }
    }
    char s0[700], s1[700];
    snprintf(s0, sizeof s0, "%s/c0/*.png", dir);
    snprintf(s1, sizeof s1, "%s/c1/*.png", dir);
    char *track[] = {TT_BIN, "track", "--rig", rig, "--source", s0, "--source", s1, "--stats", NULL};
    r = run_cmd(track, NULL);
    if (r.status != 0 || strstr(r.err, "warning"))
        fail_msg("track, true rig: status %d, stderr: %s", r.status, r.err);
    run_free(&r);
    track[3] = moved;
    r = run_cmd(track, NULL);
    if (r.status != 0 || !strstr(r.err, "warning: camera 1 (camera0.yaml) and camera 2 (camera1.yaml) see tag36h11 ") ||
        !strstr(r.err, "re-run 'tabletrack check'"))
        fail_msg("track, moved rig: status %d, stderr: %s", r.status, r.err);
    lines = 0;
    for (const char *c = r.err; (c = strstr(c, "see tag36h11 ")); c++)
        lines++;
    assert_int_equal(lines, 1);
    run_free(&r);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 6; i++) {
            snprintf(cmd, sizeof cmd, "%s/c%d/f%d.png", dir, k, i);
            remove(cmd);
        }
        snprintf(cmd, sizeof cmd, "%s/c%d", dir, k);
        rmdir(cmd);
    }
    const char *files[] = {"rig.json", "moved.json", "frame0.png", "frame1.png", "camera0.yaml", "camera1.yaml",
                           "truth0.json", "truth1.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s/%s", dir, files[i]);
        remove(cmd);
    }
    rmdir(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_disagreement),
        cmocka_unit_test(test_two_halves_targets),
        cmocka_unit_test(test_camera_with_three_anchors),
        cmocka_unit_test(test_cli),
    };
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    int rc = cmocka_run_group_tests_name("locate_cams", tests, NULL, NULL);
    rnd_texture_cache_clear();
    return rc;
}
