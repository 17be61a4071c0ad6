/* test_fuse.c - several cameras' figures fused into one table (issue 31),
 * as properties over random sightings: the same figure seen twice gives
 * one figure, between the two sightings, nearer the surer one, with a
 * smaller err95_in than either; with no err95_in the weight is px per cell
 * squared; sightings that disagree beyond their errors are a conflict
 * naming both cameras; a figure seen once passes unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse.h"

static uint64_t rng = 88172645463325252ull;
static double uni(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (rng >> 11) * (1.0 / 9007199254740992.0);
}

static calib_figure fig(int id, double x, double y, double facing, double err95, double ppc)
{
    calib_figure f;
    memset(&f, 0, sizeof f);
    snprintf(f.family, sizeof f.family, "tag36h11");
    f.id = id;
    f.x = x;
    f.y = y;
    f.facing_deg = facing;
    f.err95_in = err95;
    f.z_err95_in = err95;
    f.px_per_cell = ppc;
    return f;
}

static void test_twice_is_once_between(void **state)
{
    (void)state;
    for (int t = 0; t < 2000; t++) {
        double x = 144 * uni(), y = 72 * uni(), ea = 0.002 + 0.02 * uni(), eb = 0.002 + 0.02 * uni();
        double a = 2 * M_PI * uni(), d = 0.8 * hypot(ea, eb) * uni(); /* within their errors */
        calib_figure A = fig(100 + t % 7, x, y, 10, ea, 2.7), B = fig(A.id, x + d * cos(a), y + d * sin(a), 12, eb, 2.7);
        const calib_figure *figs[2] = {&A, &B};
        int n[2] = {1, 1};
        calib_fuse_result r;
        assert_int_equal(calib_fuse(figs, n, 2, &r, NULL), TT_OK);
        assert_int_equal(r.n, 1);
        assert_int_equal(r.nconflicts, 0);
        assert_int_equal(r.seen_by[0], 3u);
        assert_int_equal(r.best_cam[0], ea <= eb ? 0 : 1);
        /* on the segment between them, at the weight's share from A */
        double fx = r.figs[0].x - A.x, fy = r.figs[0].y - A.y, sx = B.x - A.x, sy = B.y - A.y;
        double want = (1 / (eb * eb)) / (1 / (ea * ea) + 1 / (eb * eb)); /* B's share */
        assert_true(want > 0 && want < 1);
        assert_true(hypot(fx - want * sx, fy - want * sy) < 1e-9);
        /* err95 shrinks: 1 / sqrt(1/ea^2 + 1/eb^2) */
        assert_true(fabs(r.figs[0].err95_in - 1 / sqrt(1 / (ea * ea) + 1 / (eb * eb))) < 1e-12);
        assert_true(r.figs[0].err95_in < fmin(ea, eb));
        assert_true(r.figs[0].facing_deg > 10 - 1e-9 && r.figs[0].facing_deg < 12 + 1e-9);
        calib_fuse_result_free(&r);
    }
}

static void test_weight_by_px_per_cell_without_err95(void **state)
{
    (void)state;
    calib_figure A = fig(5, 10, 10, 0, 0, 3), B = fig(5, 10.03, 10, 0, 0, 1.5);
    const calib_figure *figs[2] = {&A, &B};
    int n[2] = {1, 1};
    calib_fuse_result r;
    assert_int_equal(calib_fuse(figs, n, 2, &r, NULL), TT_OK);
    assert_int_equal(r.n, 1);
    /* weights 9 and 2.25: 4/5 of the way to A */
    assert_true(fabs(r.figs[0].x - (10 + 0.03 * 2.25 / 11.25)) < 1e-12);
    assert_int_equal(r.best_cam[0], 0);
    calib_fuse_result_free(&r);
}

static void test_disagreement_is_a_conflict(void **state)
{
    (void)state;
    calib_figure A[2] = {fig(7, 70, 30, 0, 0.01, 2.7), fig(9, 71, 40, 0, 0.01, 2.7)};
    calib_figure B[2] = {fig(7, 70.2, 30, 0, 0.01, 2.7), fig(9, 71.001, 40, 0, 0.01, 2.7)};
    const calib_figure *figs[2] = {A, B};
    int n[2] = {2, 2};
    calib_fuse_result r;
    assert_int_equal(calib_fuse(figs, n, 2, &r, NULL), TT_OK);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.nconflicts, 1);
    assert_int_equal(r.conflicts[0].id, 7);
    assert_int_equal(r.conflicts[0].cam_a, 0);
    assert_int_equal(r.conflicts[0].cam_b, 1);
    assert_true(fabs(r.conflicts[0].apart_in - 0.2) < 1e-9);
    calib_rig rig;
    memset(&rig, 0, sizeof rig);
    rig.ncameras = 2;
    snprintf(rig.cameras[0].name, sizeof rig.cameras[0].name, "camera 1 (left.yaml)");
    snprintf(rig.cameras[1].name, sizeof rig.cameras[1].name, "camera 2 (right.yaml)");
    char msg[600];
    calib_fuse_conflict_message(&rig, &r.conflicts[0], msg, sizeof msg);
    assert_non_null(strstr(msg, "camera 1 (left.yaml)"));
    assert_non_null(strstr(msg, "camera 2 (right.yaml)"));
    assert_non_null(strstr(msg, "tabletrack check"));
    assert_non_null(strstr(msg, "tag36h11 7"));
    calib_fuse_result_free(&r);
}

static void test_seen_once_unchanged_and_sorted(void **state)
{
    (void)state;
    calib_figure A[2] = {fig(30, 5, 5, 45, 0.01, 2.7), fig(10, 6, 6, -90, 0.01, 2.7)};
    calib_figure B[2] = {fig(20, 100, 5, 179, 0.01, 2.7), fig(21, 101, 5, -179.5, 0.01, 2.7)};
    calib_figure C[1] = {fig(21, 101, 5, 179.5, 0.01, 2.7)};
    const calib_figure *figs[3] = {A, B, C};
    int n[3] = {2, 2, 1};
    calib_fuse_result r;
    assert_int_equal(calib_fuse(figs, n, 3, &r, NULL), TT_OK);
    assert_int_equal(r.n, 4);
    assert_int_equal(r.figs[0].id, 10);
    assert_int_equal(r.figs[3].id, 30);
    assert_memory_equal(&r.figs[0], &A[1], sizeof A[1]);
    assert_int_equal(r.seen_by[0], 1u);
    assert_int_equal(r.seen_by[1], 2u);
    assert_int_equal(r.seen_by[2], 6u);
    /* facings either side of 180 fuse to 180, not to 0 */
    assert_true(fabs(fabs(r.figs[2].facing_deg) - 180) < 1e-9);
    calib_fuse_result_free(&r);
    /* bad input */
    tt_err err = {0};
    assert_int_equal(calib_fuse(figs, n, 0, &r, &err), TT_ERR_ARG);
    int bad[3] = {2, 1, 0};
    const calib_figure *none[3] = {A, NULL, C};
    assert_int_equal(calib_fuse(none, bad, 3, &r, &err), TT_ERR_ARG);
    calib_fuse_result_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_twice_is_once_between),
        cmocka_unit_test(test_weight_by_px_per_cell_without_err95),
        cmocka_unit_test(test_disagreement_is_a_conflict),
        cmocka_unit_test(test_seen_once_unchanged_and_sorted),
    };
    return cmocka_run_group_tests_name("fuse", tests, NULL, NULL);
}
