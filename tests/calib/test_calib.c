/* test_calib.c - rig files, table pose and pixel -> inch mapping on exact
 * synthetic correspondences (projected with OpenCV's own model), and the
 * rig's bad-input errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calib.h"
#include "cvwrap.h"

/* A 4K webcam 85" above a 72x48 table, tilted toward +y. */
static void make_camera(cvw_camera *cam, double pose_r[3], double pose_t[3])
{
    memset(cam, 0, sizeof *cam);
    cam->width = 3840;
    cam->height = 2160;
    double K[9] = {2900, 0, 1919.5, 0, 2900, 1079.5, 0, 0, 1};
    memcpy(cam->K, K, sizeof K);
    cam->dist[0] = -0.08;
    cam->dist[1] = 0.02;
    cam->ndist = 5;
    /* Look-at: table frame x right, y down (from above), z into the felt. */
    double C[3] = {36, 10, -85}, T[3] = {36, 24, 0};
    double f[3] = {T[0] - C[0], T[1] - C[1], T[2] - C[2]};
    double fn = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int i = 0; i < 3; i++)
        f[i] /= fn;
    double y[3] = {0, 1, 0}, d = y[0] * f[0] + y[1] * f[1] + y[2] * f[2];
    for (int i = 0; i < 3; i++)
        y[i] -= d * f[i];
    double yn = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
    for (int i = 0; i < 3; i++)
        y[i] /= yn;
    double x[3] = {y[1] * f[2] - y[2] * f[1], y[2] * f[0] - y[0] * f[2], y[0] * f[1] - y[1] * f[0]};
    double R[9] = {x[0], x[1], x[2], y[0], y[1], y[2], f[0], f[1], f[2]};
    /* Rodrigues from R (small helper: angle-axis). */
    double tr = R[0] + R[4] + R[8], ang = acos(fmax(-1, fmin(1, (tr - 1) / 2)));
    double ax[3] = {R[7] - R[5], R[2] - R[6], R[3] - R[1]}, s = 2 * sin(ang);
    for (int i = 0; i < 3; i++)
        pose_r[i] = ax[i] / s * ang;
    for (int i = 0; i < 3; i++)
        pose_t[i] = -(R[i * 3] * C[0] + R[i * 3 + 1] * C[1] + R[i * 3 + 2] * C[2]);
}

static calib_rig *make_rig(const cvw_camera *cam, double height_mm)
{
    calib_rig *rig = calloc(1, sizeof *rig);
    rig->width_in = 72;
    rig->depth_in = 48;
    rig->camera = *cam;
    rig->nanchors = 6;
    rig->anchors = calloc(6, sizeof *rig->anchors);
    const double ax[6] = {3, 69, 69, 3, 36, 36}, ay[6] = {3, 3, 45, 45, 3, 45};
    for (int i = 0; i < 6; i++) {
        snprintf(rig->anchors[i].family, VISION_FAMILY_LEN, "tag36h11");
        rig->anchors[i].id = i;
        rig->anchors[i].x = ax[i];
        rig->anchors[i].y = ay[i];
        rig->anchors[i].size_in = 2.4;
    }
    snprintf(rig->base_families[0], VISION_FAMILY_LEN, "tag36h11");
    rig->nbase_families = 1;
    rig->base_size_in = 0.8;
    rig->base_height_mm = height_mm;
    return rig;
}

/* Square corners of a tag (libapriltag order) on the table. */
static void tag_corners(double x, double y, double size, double facing_deg, double c[4][2])
{
    double a = facing_deg * M_PI / 180, ux = cos(a), uy = sin(a); /* up */
    double rx = -uy, ry = ux;                                        /* right: up turned +90 */
    const double sr[4] = {-1, 1, 1, -1}, su[4] = {-1, -1, 1, 1};
    for (int k = 0; k < 4; k++) {
        c[k][0] = x + size / 2 * (sr[k] * rx + su[k] * ux);
        c[k][1] = y + size / 2 * (sr[k] * ry + su[k] * uy);
    }
}

static void add_det(vision_detections *ds, const cvw_camera *cam, const double r[3], const double t[3], int id,
                    double x, double y, double z, double size, double facing, double noise, unsigned *seed)
{
    double c[4][2], obj[12], px[8];
    tag_corners(x, y, size, facing, c);
    for (int k = 0; k < 4; k++) {
        obj[3 * k] = c[k][0];
        obj[3 * k + 1] = c[k][1];
        obj[3 * k + 2] = z;
    }
    assert_int_equal(cvw_project_points(cam, obj, 4, r, t, px, NULL), TT_OK);
    vision_detection *d = &ds->items[ds->count++];
    memset(d, 0, sizeof *d);
    snprintf(d->family, sizeof d->family, "tag36h11");
    d->id = id;
    for (int k = 0; k < 4; k++) {
        d->corners[k][0] = px[2 * k] + noise * ((rand_r(seed) / (double)RAND_MAX) - 0.5) * 2;
        d->corners[k][1] = px[2 * k + 1] + noise * ((rand_r(seed) / (double)RAND_MAX) - 0.5) * 2;
    }
}

typedef struct {
    double x, y, f;
} truth;

/* Exact correspondences: the mapping recovers positions to ~1e-6" and the
 * facing to ~1e-6 degrees, through the base-height plane. */
static void test_locate_exact(void **state)
{
    (void)state;
    cvw_camera cam;
    double r[3], t[3];
    make_camera(&cam, r, t);
    calib_rig *rig = make_rig(&cam, 3.0);
    vision_detections ds = {calloc(200, sizeof(vision_detection)), 0};
    truth tr[100];
    unsigned seed = 7;
    for (int a = 0; a < rig->nanchors; a++)
        add_det(&ds, &cam, r, t, a, rig->anchors[a].x, rig->anchors[a].y, 0, 2.4, -90, 0, &seed);
    for (int i = 0; i < 100; i++) {
        tr[i].x = 6 + 60 * (rand_r(&seed) / (double)RAND_MAX);
        tr[i].y = 6 + 36 * (rand_r(&seed) / (double)RAND_MAX);
        tr[i].f = -179 + 358 * (rand_r(&seed) / (double)RAND_MAX);
        /* z = -height: the camera is on the negative-z side. */
        add_det(&ds, &cam, r, t, 100 + i, tr[i].x, tr[i].y, -3.0 / 25.4, 0.8, tr[i].f, 0, &seed);
    }
    calib_pose pose;
    calib_figure *figs = NULL;
    int n = 0;
    tt_err err = {0};
    assert_int_equal(calib_pose_solve(rig, &ds, &pose, &err), TT_OK);
    assert_int_equal(pose.anchors_used, 6);
    assert_true(pose.rms_px < 1e-6);
    assert_true(pose.up < 0);
    assert_int_equal(calib_locate(rig, &pose, &ds, &figs, &n, &err), TT_OK);
    assert_int_equal(n, 100);
    double worst = 0, worstf = 0;
    for (int i = 0; i < n; i++) {
        int k = figs[i].id - 100;
        assert_true(k >= 0 && k < 100);
        worst = fmax(worst, hypot(figs[i].x - tr[k].x, figs[i].y - tr[k].y));
        double df = fabs(remainder(figs[i].facing_deg - tr[k].f, 360.0));
        worstf = fmax(worstf, df);
        assert_true(figs[i].facing_deg > -180 && figs[i].facing_deg <= 180);
        if (i)
            assert_true(figs[i].id > figs[i - 1].id); /* sorted */
    }
    print_message("exact: worst position %.2e in, worst facing %.2e deg\n", worst, worstf);
    assert_true(worst < 1e-5);
    assert_true(worstf < 1e-4);
    free(figs);

    /* Ignoring the base height (mapping through the felt) is measurably
     * wrong near the table edge: the plane matters. */
    double px[2] = {ds.items[6].corners[0][0], ds.items[6].corners[0][1]}, at0[2], ath[2];
    double big = 0;
    for (int i = 6; i < ds.count; i++) {
        px[0] = ds.items[i].corners[0][0];
        px[1] = ds.items[i].corners[0][1];
        assert_int_equal(calib_map_pixels(&cam, &pose, px, 1, 0, at0, NULL), TT_OK);
        assert_int_equal(calib_map_pixels(&cam, &pose, px, 1, 3.0 / 25.4, ath, NULL), TT_OK);
        big = fmax(big, hypot(at0[0] - ath[0], at0[1] - ath[1]));
    }
    assert_true(big > 0.03);
    free(ds.items);
    calib_rig_destroy(rig);
}

/* 0.1 px of corner noise: positions stay well inside 0.01". */
static void test_locate_noisy(void **state)
{
    (void)state;
    cvw_camera cam;
    double r[3], t[3];
    make_camera(&cam, r, t);
    calib_rig *rig = make_rig(&cam, 3.0);
    vision_detections ds = {calloc(200, sizeof(vision_detection)), 0};
    truth tr[120];
    unsigned seed = 11;
    for (int a = 0; a < rig->nanchors; a++)
        add_det(&ds, &cam, r, t, a, rig->anchors[a].x, rig->anchors[a].y, 0, 2.4, -90, 0.1, &seed);
    for (int i = 0; i < 120; i++) {
        tr[i].x = 4 + 64 * (rand_r(&seed) / (double)RAND_MAX);
        tr[i].y = 4 + 40 * (rand_r(&seed) / (double)RAND_MAX);
        tr[i].f = -179 + 358 * (rand_r(&seed) / (double)RAND_MAX);
        add_det(&ds, &cam, r, t, 100 + i, tr[i].x, tr[i].y, -3.0 / 25.4, 0.8, tr[i].f, 0.1, &seed);
    }
    calib_pose pose;
    calib_figure *figs = NULL;
    int n = 0;
    assert_int_equal(calib_pose_solve(rig, &ds, &pose, NULL), TT_OK);
    assert_int_equal(calib_locate(rig, &pose, &ds, &figs, &n, NULL), TT_OK);
    assert_int_equal(n, 120);
    double s2 = 0;
    for (int i = 0; i < n; i++) {
        int k = figs[i].id - 100;
        s2 += pow(figs[i].x - tr[k].x, 2) + pow(figs[i].y - tr[k].y, 2);
    }
    double rms = sqrt(s2 / n);
    print_message("0.1 px noise: position RMS %.4f in\n", rms);
    assert_true(rms < 0.005);
    free(figs);
    free(ds.items);
    calib_rig_destroy(rig);
}

/* A stray tag carrying an anchor's id far from that anchor: left out. */
static void test_anchor_outlier_left_out(void **state)
{
    (void)state;
    cvw_camera cam;
    double r[3], t[3];
    make_camera(&cam, r, t);
    calib_rig *rig = make_rig(&cam, 0);
    vision_detections ds = {calloc(20, sizeof(vision_detection)), 0};
    unsigned seed = 3;
    for (int a = 0; a < rig->nanchors; a++) {
        double x = rig->anchors[a].x + (a == 2 ? -6 : 0); /* anchor 2 was moved 6" */
        add_det(&ds, &cam, r, t, a, x, rig->anchors[a].y, 0, 2.4, -90, 0, &seed);
    }
    add_det(&ds, &cam, r, t, 100, 30, 20, 0, 0.8, 45, 0, &seed);
    calib_pose pose;
    calib_figure *figs = NULL;
    int n = 0;
    assert_int_equal(calib_pose_solve(rig, &ds, &pose, NULL), TT_OK);
    assert_int_equal(pose.anchors_used, 5);
    assert_true(pose.rms_px < 1e-4);
    assert_int_equal(calib_locate(rig, &pose, &ds, &figs, &n, NULL), TT_OK);
    assert_int_equal(n, 1);
    assert_true(hypot(figs[0].x - 30, figs[0].y - 20) < 1e-5);
    assert_true(fabs(figs[0].facing_deg - 45) < 1e-4);
    free(figs);
    free(ds.items);
    calib_rig_destroy(rig);
}

static void test_too_few_anchors_named(void **state)
{
    (void)state;
    cvw_camera cam;
    double r[3], t[3];
    make_camera(&cam, r, t);
    calib_rig *rig = make_rig(&cam, 3);
    vision_detections ds = {calloc(4, sizeof(vision_detection)), 0};
    unsigned seed = 1;
    add_det(&ds, &cam, r, t, 4, rig->anchors[4].x, rig->anchors[4].y, 0, 2.4, -90, 0, &seed);
    add_det(&ds, &cam, r, t, 100, 30, 20, -0.1, 0.8, 0, 0, &seed);
    calib_pose pose;
    tt_err err = {0};
    assert_int_equal(calib_pose_solve(rig, &ds, &pose, &err), TT_ERR_ANCHORS);
    assert_non_null(strstr(err.msg, "only 1 of 6"));
    assert_non_null(strstr(err.msg, "tag36h11 0, tag36h11 1, tag36h11 2, tag36h11 3, tag36h11 5"));
    free(ds.items);
    calib_rig_destroy(rig);
}

static void test_empty_table(void **state)
{
    (void)state;
    cvw_camera cam;
    double r[3], t[3];
    make_camera(&cam, r, t);
    calib_rig *rig = make_rig(&cam, 3);
    vision_detections ds = {calloc(8, sizeof(vision_detection)), 0};
    unsigned seed = 1;
    for (int a = 0; a < 4; a++)
        add_det(&ds, &cam, r, t, a, rig->anchors[a].x, rig->anchors[a].y, 0, 2.4, -90, 0, &seed);
    calib_pose pose;
    calib_figure *figs = (calib_figure *)&seed;
    int n = -1;
    assert_int_equal(calib_pose_solve(rig, &ds, &pose, NULL), TT_OK);
    assert_int_equal(calib_locate(rig, &pose, &ds, &figs, &n, NULL), TT_OK);
    assert_int_equal(n, 0);
    assert_null(figs);
    free(ds.items);
    calib_rig_destroy(rig);
}

/* ---- rig files ---- */

static char tmpdir[256];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tt_calib_XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    cvw_camera cam;
    double r[3], t[3];
    make_camera(&cam, r, t);
    char p[512];
    snprintf(p, sizeof p, "%s/camera.yaml", tmpdir);
    return cvw_camera_write(p, &cam, 0.2, NULL) == TT_OK ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static tt_status load_text(const char *text, calib_rig **rig, tt_err *err)
{
    char p[512];
    snprintf(p, sizeof p, "%s/rig.json", tmpdir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return calib_rig_load(p, rig, err);
}

#define GOOD_RIG                                                                                                       \
    "{\"table\": {\"width_in\": 72, \"depth_in\": 48},\n"                                                              \
    " \"camera\": \"camera.yaml\",\n"                                                                                  \
    " \"anchors\": [{\"family\": \"tag36h11\", \"id\": 0, \"x\": 2.5, \"y\": 2.5, \"size_in\": 2.4},\n"                \
    "             {\"family\": \"tag36h11\", \"id\": 1, \"x\": 69.5, \"y\": 2.5, \"size_in\": 2.4}],\n"                \
    " \"bases\": {\"families\": [\"tag36h11\"], \"size_in\": 0.8, \"height_mm\": 3.0}}\n"

static void test_rig_good(void **state)
{
    (void)state;
    calib_rig *rig = NULL;
    tt_err err = {0};
    assert_int_equal(load_text(GOOD_RIG, &rig, &err), TT_OK);
    assert_int_equal(rig->nanchors, 2);
    assert_int_equal(rig->camera.width, 3840);
    assert_true(fabs(rig->camera.K[0] - 2900) < 1e-9);
    assert_true(fabs(rig->camera.dist[0] + 0.08) < 1e-12);
    assert_true(fabs(rig->base_height_mm - 3) < 1e-12);
    assert_int_equal(calib_rig_check_image(rig, 3840, 2160, NULL), TT_OK);
    assert_int_equal(calib_rig_check_image(rig, 1920, 1080, &err), TT_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "1920x1080"));
    assert_non_null(strstr(err.msg, "3840x2160"));
    calib_rig_destroy(rig);
}

static void test_rig_malformed_line_column(void **state)
{
    (void)state;
    calib_rig *rig = NULL;
    tt_err err = {0};
    /* Missing comma at the end of line 2. */
    assert_int_equal(load_text("{\"table\": {\"width_in\": 72, \"depth_in\": 48}\n \"camera\": \"camera.yaml\"}", &rig,
                               &err),
                     TT_ERR_FORMAT);
    assert_null(rig);
    assert_non_null(strstr(err.msg, "line 2, column"));
}

static void test_rig_missing_field(void **state)
{
    (void)state;
    calib_rig *rig = NULL;
    tt_err err = {0};
    char *text = strdup(GOOD_RIG);
    char *p = strstr(text, "\"size_in\": 0.8");
    memcpy(p, "\"sizeXin\"", 9); /* misspelt */
    assert_int_equal(load_text(text, &rig, &err), TT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "bases: missing \"size_in\""));
    free(text);
    assert_int_equal(load_text("{\"camera\": \"camera.yaml\"}", &rig, &err), TT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "missing \"table\""));
}

static void test_rig_unknown_family_and_camera(void **state)
{
    (void)state;
    calib_rig *rig = NULL;
    tt_err err = {0};
    char *text = strdup(GOOD_RIG);
    char *p = strstr(text, "tag36h11\", \"id\": 1");
    memcpy(p, "tag99h99", 8);
    assert_int_equal(load_text(text, &rig, &err), TT_ERR_UNKNOWN);
    assert_non_null(strstr(err.msg, "anchors[1]"));
    assert_non_null(strstr(err.msg, "tag99h99"));
    free(text);
    text = strdup(GOOD_RIG);
    p = strstr(text, "camera.yaml");
    memcpy(p, "cxmera", 6);
    assert_int_equal(load_text(text, &rig, &err), TT_ERR_IO);
    assert_non_null(strstr(err.msg, "cxmera.yaml"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_locate_exact),
        cmocka_unit_test(test_locate_noisy),
        cmocka_unit_test(test_anchor_outlier_left_out),
        cmocka_unit_test(test_too_few_anchors_named),
        cmocka_unit_test(test_empty_table),
        cmocka_unit_test_setup_teardown(test_rig_good, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rig_malformed_line_column, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rig_missing_field, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rig_unknown_family_and_camera, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests_name("calib", tests, NULL, NULL);
}
