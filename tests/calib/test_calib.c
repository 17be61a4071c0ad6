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
    d->margin = 150; /* a clear tag */
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

/* Anchors printed at 2.4" under a rig that says 2" (the README's example
 * held against the sample frame) fit with one scale error: the message
 * names size_in and the size the anchors measure, not a moved anchor.  An
 * anchor that did move is still blamed on its place. */
static void test_anchor_size_named(void **state)
{
    (void)state;
    cvw_camera cam;
    double r[3], t[3];
    make_camera(&cam, r, t);
    calib_rig *rig = make_rig(&cam, 3);
    vision_detections ds = {calloc(8, sizeof(vision_detection)), 0};
    unsigned seed = 3;
    for (int a = 0; a < 4; a++) {
        add_det(&ds, &cam, r, t, a, rig->anchors[a].x, rig->anchors[a].y, 0, 2.4, -90, 0.05, &seed);
        rig->anchors[a].size_in = 2.0;
    }
    rig->nanchors = 4;
    calib_pose pose;
    tt_err err = {0};
    assert_int_equal(calib_pose_solve(rig, &ds, &pose, &err), TT_ERR_ANCHORS);
    print_message("%s\n", err.msg);
    if (!strstr(err.msg, "size_in is wrong: the anchors measure 2.4\" where the rig's size_in says 2\"") ||
        strstr(err.msg, "moved"))
        fail_msg("%s", err.msg);
    /* sizes that differ: the factor, and one anchor's size */
    rig->anchors[1].size_in = 1.0;
    ds.count = 0;
    seed = 3;
    for (int a = 0; a < 4; a++)
        add_det(&ds, &cam, r, t, a, rig->anchors[a].x, rig->anchors[a].y, 0, rig->anchors[a].size_in * 1.25, -90,
                0.05, &seed);
    assert_int_equal(calib_pose_solve(rig, &ds, &pose, &err), TT_ERR_ANCHORS);
    if (!strstr(err.msg, "the anchors measure 1.25 times their size_in (tag36h11 ") ||
        (!strstr(err.msg, ": 2.5\", not 2\")") && !strstr(err.msg, ": 1.25\", not 1\")")))
        fail_msg("%s", err.msg);
    /* the right sizes, one of three anchors (none can be left out) 4" away
     * from where the rig puts it */
    ds.count = 0;
    rig->nanchors = 3;
    for (int a = 0; a < 3; a++) {
        rig->anchors[a].size_in = 2.4;
        add_det(&ds, &cam, r, t, a, rig->anchors[a].x + (a == 2 ? 4 : 0), rig->anchors[a].y, 0, 2.4, -90, 0.05,
                &seed);
    }
    assert_int_equal(calib_pose_solve(rig, &ds, &pose, &err), TT_ERR_ANCHORS);
    if (!strstr(err.msg, "Has an anchor moved, or are its x, y or size_in in the rig file wrong?") ||
        strstr(err.msg, "measure"))
        fail_msg("%s", err.msg);
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

/* ---- heights (issue 20) ---- */

/* A tag of edge size whose centre stands height_in above the felt on
 * ground of gradient (gx, gy) (dh/dx, dh/dy; 0, 0 = level), its printed
 * top toward facing_deg as seen from above: exact corners, projected with
 * OpenCV's own model (3D z = -height). */
static void add_tag3d(vision_detections *ds, const cvw_camera *cam, const double r[3], const double t[3], int id,
                      double x, double y, double height_in, double size, double facing, double gx, double gy)
{
    double n[3] = {-gx, -gy, 1}, nn = sqrt(gx * gx + gy * gy + 1);
    for (int i = 0; i < 3; i++)
        n[i] /= nn;
    double a = facing * M_PI / 180, u[3] = {cos(a), sin(a), 0}, d = u[0] * n[0] + u[1] * n[1];
    for (int i = 0; i < 3; i++)
        u[i] -= d * n[i];
    double un = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int i = 0; i < 3; i++)
        u[i] /= un;
    double rr[3] = {n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2], n[0] * u[1] - n[1] * u[0]};
    const double sr[4] = {-1, 1, 1, -1}, su[4] = {-1, -1, 1, 1};
    double obj[12], px[8];
    for (int k = 0; k < 4; k++) {
        obj[3 * k] = x + size / 2 * (sr[k] * rr[0] + su[k] * u[0]);
        obj[3 * k + 1] = y + size / 2 * (sr[k] * rr[1] + su[k] * u[1]);
        obj[3 * k + 2] = -(height_in + size / 2 * (sr[k] * rr[2] + su[k] * u[2]));
    }
    assert_int_equal(cvw_project_points(cam, obj, 4, r, t, px, NULL), TT_OK);
    vision_detection *dt = &ds->items[ds->count++];
    memset(dt, 0, sizeof *dt);
    snprintf(dt->family, sizeof dt->family, "tag36h11");
    dt->id = id;
    dt->margin = 150; /* a clear tag */
    for (int k = 0; k < 4; k++) {
        dt->corners[k][0] = px[2 * k];
        dt->corners[k][1] = px[2 * k + 1];
    }
}

/* Ground for the tests: axis-aligned boxes, the highest one under a point. */
typedef struct test_box {
    double x0, y0, x1, y1, h;
} test_box;
typedef struct test_ground {
    const test_box *b;
    int n;
} test_ground;

static double test_ground_at(const void *user, double x, double y)
{
    const test_ground *g = user;
    double h = 0;
    for (int i = 0; i < g->n; i++)
        if (x >= g->b[i].x0 && x <= g->b[i].x1 && y >= g->b[i].y0 && y <= g->b[i].y1 && g->b[i].h > h)
            h = g->b[i].h;
    return h;
}

/* The camera 60" straight above (36, 24), no distortion, f = 2000 px:
 * table -> camera is R = I (camera x, y along the table's; the camera's z
 * into the felt = the table frame's +z, heights being -z), t = -C with
 * C = (36, 24, -60). */
static void overhead(cvw_camera *cam, calib_pose *pose, double r[3], double t[3])
{
    memset(cam, 0, sizeof *cam);
    cam->width = 3840;
    cam->height = 2160;
    double K[9] = {2000, 0, 1919.5, 0, 2000, 1079.5, 0, 0, 1};
    memcpy(cam->K, K, sizeof K);
    cam->ndist = 5;
    memset(pose, 0, sizeof *pose);
    r[0] = r[1] = r[2] = 0;
    t[0] = -36;
    t[1] = -24;
    t[2] = 60;
    memcpy(pose->rvec, r, sizeof pose->rvec);
    memcpy(pose->tvec, t, sizeof pose->tvec);
    pose->R[0] = pose->R[4] = pose->R[8] = 1;
    pose->center[0] = 36;
    pose->center[1] = 24;
    pose->center[2] = -60;
    pose->up = -1;
}

/* Hand-computed parallax.  Camera H = 60" straight above (36, 24); a tag
 * on a 2" hill (base height 0) r = 20" from the point under the camera, at
 * (56, 24).  Its ray meets the felt at r * H / (H - h) = 20 * 60 / 58 =
 * 20.6897", so mapped through the felt it is displaced by
 * h * r / (H - h) = 2 * 20 / 58 = 0.68966" outward.  Declared (a ground of
 * 2" there) it is mapped where it stands; undeclared, its own pose puts it
 * at 2" as well, flagged off the ground. */
static void test_height_parallax_by_hand(void **state)
{
    (void)state;
    cvw_camera cam;
    calib_pose pose;
    double r[3], t[3];
    overhead(&cam, &pose, r, t);
    calib_rig *rig = make_rig(&cam, 0);
    vision_detections ds = {calloc(4, sizeof(vision_detection)), 0};
    add_tag3d(&ds, &cam, r, t, 100, 56, 24, 2.0, 0.8, 30, 0, 0);
    /* through the felt: 0.68966" outward along +x */
    double c[2] = {ds.items[0].corners[0][0], ds.items[0].corners[0][1]}, sum[2] = {0, 0};
    for (int k = 0; k < 4; k++) {
        double px[2] = {ds.items[0].corners[k][0], ds.items[0].corners[k][1]}, at[2];
        assert_int_equal(calib_map_pixels(&cam, &pose, px, 1, 0, at, NULL), TT_OK);
        sum[0] += at[0] / 4;
        sum[1] += at[1] / 4;
    }
    (void)c;
    assert_true(fabs(sum[0] - 56 - 0.689655) < 1e-5);
    assert_true(fabs(sum[1] - 24) < 1e-6);

    calib_figure *figs = NULL;
    int n = 0;
    test_box hill = {50, 18, 62, 30, 2.0};
    test_ground tg = {&hill, 1};
    tt_ground g = {test_ground_at, &tg};
    assert_int_equal(calib_locate_ground(rig, &pose, &ds, &g, &figs, &n, NULL), TT_OK);
    assert_int_equal(n, 1);
    assert_true(hypot(figs[0].x - 56, figs[0].y - 24) < 1e-6);
    assert_true(fabs(figs[0].z_in - 2) < 1e-12 && fabs(figs[0].ground_in - 2) < 1e-12);
    assert_int_equal(figs[0].height, CALIB_HEIGHT_GROUND);
    assert_true(figs[0].measured && fabs(figs[0].measured_in - 2) < 1e-3 && figs[0].tilt_deg < 0.1);
    assert_true(fabs(remainder(figs[0].facing_deg - 30, 360)) < 1e-4);
    free(figs);

    /* undeclared: the felt everywhere; its own height, flagged */
    assert_int_equal(calib_locate_ground(rig, &pose, &ds, NULL, &figs, &n, NULL), TT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(figs[0].height, CALIB_HEIGHT_OFF);
    assert_true(fabs(figs[0].z_in - 2) < 1e-3 && figs[0].ground_in == 0);
    /* a height error dz moves it by dz * r / (H - h): 1e-3 * 20 / 58 < 4e-4 */
    assert_true(hypot(figs[0].x - 56, figs[0].y - 24) < 4e-4);
    free(figs);
    free(ds.items);
    calib_rig_destroy(rig);
}

/* Property: on random tables of raised boxes, tags standing on whatever is
 * under them (plus a 3 mm base), seen by the tilted, distorted camera: the
 * mapping finds each one's height and place as a brute-force search does
 * (the truth it was made from: the one height h whose mapped point has
 * ground h under it, checked on a 0.01" grid of candidate heights). */
static void test_height_property(void **state)
{
    (void)state;
    cvw_camera cam;
    double r[3], t[3];
    make_camera(&cam, r, t);
    calib_rig *rig = make_rig(&cam, 3.0);
    const double base = 3.0 / 25.4;
    unsigned seed = 2026;
    for (int round = 0; round < 20; round++) {
        test_box boxes[4];
        int nb = 1 + rand_r(&seed) % 4;
        for (int i = 0; i < nb; i++) {
            double x0 = 8 + 50 * (rand_r(&seed) / (double)RAND_MAX), y0 = 8 + 26 * (rand_r(&seed) / (double)RAND_MAX);
            boxes[i] = (test_box){x0, y0, x0 + 4 + 8 * (rand_r(&seed) / (double)RAND_MAX),
                                  y0 + 4 + 6 * (rand_r(&seed) / (double)RAND_MAX),
                                  0.5 + 5.5 * (rand_r(&seed) / (double)RAND_MAX)};
        }
        test_ground tg = {boxes, nb};
        tt_ground g = {test_ground_at, &tg};
        vision_detections ds = {calloc(40, sizeof(vision_detection)), 0};
        for (int a = 0; a < rig->nanchors; a++)
            add_det(&ds, &cam, r, t, a, rig->anchors[a].x, rig->anchors[a].y, 0, 2.4, -90, 0, &seed);
        double tx[30], ty[30], th[30];
        for (int i = 0; i < 30; i++) {
            /* keep 0.5" off every box edge: a base straddling an edge stands on neither */
            int clear;
            do {
                tx[i] = 6 + 60 * (rand_r(&seed) / (double)RAND_MAX);
                ty[i] = 6 + 36 * (rand_r(&seed) / (double)RAND_MAX);
                clear = 1;
                for (int b = 0; b < nb; b++)
                    for (int e = 0; e < 4; e++) {
                        double v = e == 0 ? tx[i] - boxes[b].x0 : e == 1 ? tx[i] - boxes[b].x1
                                 : e == 2 ? ty[i] - boxes[b].y0 : ty[i] - boxes[b].y1;
                        int along = e < 2 ? ty[i] > boxes[b].y0 - 0.5 && ty[i] < boxes[b].y1 + 0.5
                                          : tx[i] > boxes[b].x0 - 0.5 && tx[i] < boxes[b].x1 + 0.5;
                        clear &= !(along && fabs(v) < 0.5);
                    }
            } while (!clear);
            th[i] = test_ground_at(&tg, tx[i], ty[i]);
            add_tag3d(&ds, &cam, r, t, 100 + i, tx[i], ty[i], th[i] + base, 0.8, 360 * (rand_r(&seed) / (double)RAND_MAX), 0, 0);
        }
        calib_pose pose;
        calib_figure *figs = NULL;
        int n = 0;
        assert_int_equal(calib_pose_solve(rig, &ds, &pose, NULL), TT_OK);
        assert_int_equal(calib_locate_ground(rig, &pose, &ds, &g, &figs, &n, NULL), TT_OK);
        assert_int_equal(n, 30);
        for (int i = 0; i < n; i++) {
            int k = figs[i].id - 100;
            /* brute force: the candidate heights whose mapped centre has that ground under it */
            const vision_detection *d = &ds.items[figs[i].det_index];
            int found = 0;
            double hb = -1, near = 1e9;
            for (int s = 0; s <= 700; s++) {
                double h = s * 0.01, px[8], at[8];
                memcpy(px, d->corners, sizeof px);
                assert_int_equal(calib_map_pixels(&cam, &pose, px, 4, h + base, at, NULL), TT_OK);
                double cx = (at[0] + at[2] + at[4] + at[6]) / 4, cy = (at[1] + at[3] + at[5] + at[7]) / 4;
                if (fabs(test_ground_at(&tg, cx, cy) - h) < 0.006) {
                    found += hb < 0 || h - hb > 0.1; /* a new run of candidates */
                    hb = h;
                    near = fmin(near, fabs(h - th[k]));
                }
            }
            /* one or two consistent heights (a tag just beyond a box's
             * far edge, mapped at the box's height, lands on it): the
             * truth is one of them, and is the one found */
            assert_true(found == 1 || found == 2);
            assert_true(near < 0.006);
            assert_true(fabs(figs[i].z_in - th[k]) < 1e-9);
            assert_int_equal(figs[i].height, CALIB_HEIGHT_GROUND);
            assert_true(hypot(figs[i].x - tx[k], figs[i].y - ty[k]) < 1e-5);
            assert_true(fabs(figs[i].measured_in - th[k]) < 0.01);
        }
        free(figs);
        free(ds.items);
    }
    calib_rig_destroy(rig);
}

/* The heights tests' table: make_camera's camera, a rig of 3 mm bases,
 * room for cap detections in *ds and every anchor detected exactly. */
static calib_rig *height_table(cvw_camera *cam, double r[3], double t[3], vision_detections *ds, int cap)
{
    make_camera(cam, r, t);
    calib_rig *rig = make_rig(cam, 3.0);
    ds->items = calloc((size_t)cap, sizeof(vision_detection));
    ds->count = 0;
    unsigned seed = 5;
    for (int a = 0; a < rig->nanchors; a++)
        add_det(ds, cam, r, t, a, rig->anchors[a].x, rig->anchors[a].y, 0, 2.4, -90, 0, &seed);
    return rig;
}

/* ds located (the pose solved from its anchors) on the ground of one box,
 * or the felt alone when box is NULL: *n figures (caller frees). */
static calib_figure *locate_on(const calib_rig *rig, const vision_detections *ds, const test_box *box, int *n)
{
    test_ground tg = {box, 1};
    tt_ground g = {test_ground_at, &tg};
    calib_pose pose;
    calib_figure *figs = NULL;
    assert_int_equal(calib_pose_solve(rig, ds, &pose, NULL), TT_OK);
    assert_int_equal(calib_locate_ground(rig, &pose, ds, box ? &g : NULL, &figs, n, NULL), TT_OK);
    return figs;
}

/* A figure held in the air, one on an undeclared roof, one on a slope, one
 * whose tag is smaller than the rig says (measured below the felt). */
static void test_height_flags(void **state)
{
    (void)state;
    cvw_camera cam;
    double r[3], t[3];
    vision_detections ds;
    calib_rig *rig = height_table(&cam, r, t, &ds, 40);
    const double base = 3.0 / 25.4;
    add_tag3d(&ds, &cam, r, t, 100, 20, 30, 6 + base, 0.8, 10, 0, 0);     /* held 6" up */
    add_tag3d(&ds, &cam, r, t, 101, 50, 12, 0.5 + base, 0.8, 10, 0, 0);   /* 0.5" up */
    add_tag3d(&ds, &cam, r, t, 102, 60, 36, 1.0 + base, 0.8, 70, 0.7, 0); /* a 35 degree slope, 1" up */
    add_tag3d(&ds, &cam, r, t, 103, 30, 20, base, 0.7, -40, 0, 0);        /* printed 0.7", the rig says 0.8" */
    test_box hill = {62, 30, 70, 42, 2.0}; /* the slope's top is 2" beside it */
    int n = 0;
    /* Four figures alone: the frame cannot measure its own noise, so the
     * model's errors (a 0.8" tag 85" away) decide */
    calib_figure *figs = locate_on(rig, &ds, &hill, &n);
    assert_int_equal(n, 4);
    assert_int_equal(figs[0].height, CALIB_HEIGHT_OFF);
    assert_true(fabs(figs[0].z_in - 6) < 0.01 && hypot(figs[0].x - 20, figs[0].y - 30) < 0.01);
    /* 0.5" up is within what its error allows, so on the felt; but it
     * cannot tell: its height's error reaches its own measurement, and its
     * position's grows with it */
    assert_true(figs[1].measured_err95_in * CALIB_SURE_SIGMAS / 1.96 > 0.5);
    assert_int_equal(figs[1].height, CALIB_HEIGHT_GROUND);
    assert_true(figs[1].z_in == 0 && fabs(figs[1].measured_in - 0.5) < 0.01);
    assert_true(figs[1].z_err95_in >= 0.5 && figs[1].err95_in > figs[1].xy_err95_flat_in);
    assert_int_equal(figs[3].height, CALIB_HEIGHT_BELOW);
    free(figs);

    /* With a dozen more on the felt the frame measures its own noise (none
     * here: exact corners): every flag is sure */
    for (int i = 0; i < 12; i++)
        add_tag3d(&ds, &cam, r, t, 110 + i, 10 + 5 * i, 8 + 2.5 * (i % 4), base, 0.8, 15 * i, 0, 0);
    figs = locate_on(rig, &ds, &hill, &n);
    assert_int_equal(n, 16);
    assert_int_equal(figs[0].height, CALIB_HEIGHT_OFF);
    assert_int_equal(figs[1].height, CALIB_HEIGHT_OFF);
    assert_true(fabs(figs[1].z_in - 0.5) < 0.01 && fabs(figs[1].z_err95_in - figs[1].measured_err95_in) < 1e-12);
    assert_int_equal(figs[2].height, CALIB_HEIGHT_SLOPE);
    assert_true(fabs(figs[2].tilt_deg - atan(0.7) * 180 / M_PI) < 0.5);
    /* the figure is its base's centre: below the tag along the slope's normal */
    double L = sqrt(1 + 0.49), bx = 60 - base * -0.7 / L, bz = 1 + base - base / L;
    assert_true(fabs(figs[2].z_in - bz) < 0.01 && hypot(figs[2].x - bx, figs[2].y - 36) < 0.01);
    assert_int_equal(figs[3].height, CALIB_HEIGHT_BELOW);
    assert_true(figs[3].measured_in < -CALIB_SURE_SIGMAS * figs[3].measured_err95_in / 1.96 && figs[3].z_in == 0);
    for (int i = 0; i < n; i++) {
        assert_true(isfinite(figs[i].x) && isfinite(figs[i].y) && isfinite(figs[i].z_in) &&
                    isfinite(figs[i].measured_in) && isfinite(figs[i].tilt_deg));
        assert_true(figs[i].err95_in > 0 && figs[i].z_err95_in > 0 && figs[i].facing_err95_deg > 0);
        if (i >= 4) /* on the felt: on the ground, sure, and covering the truth */
            assert_true(figs[i].height == CALIB_HEIGHT_GROUND && figs[i].err95_in < 0.01 &&
                        hypot(figs[i].x - (10 + 5 * (i - 4)), figs[i].y - (8 + 2.5 * ((i - 4) % 4))) <
                            figs[i].err95_in);
    }
    free(figs);
    /* the slope without raised ground within reach: off the ground */
    figs = locate_on(rig, &ds, NULL, &n);
    assert_int_equal(figs[2].height, CALIB_HEIGHT_OFF);
    free(figs);
    free(ds.items);
    calib_rig_destroy(rig);
}

/* A figure on the felt where the scenario declares a 2" box (the piece is
 * smaller, or elsewhere), its tag printed 0.3% large so its own height reads
 * high but within its error of the felt: flagged off its ground, and placed
 * on the felt where it stands, not at its own noisy height (which would move
 * it by that height's parallax). */
static void test_height_below_declared_on_felt(void **state)
{
    (void)state;
    cvw_camera cam;
    double r[3], t[3];
    vision_detections ds;
    calib_rig *rig = height_table(&cam, r, t, &ds, 8);
    const double base = 3.0 / 25.4;
    add_tag3d(&ds, &cam, r, t, 100, 64, 34, base, 0.8 * 1.003, 25, 0, 0);
    test_box box = {58, 28, 70, 40, 2.0};
    int n = 0;
    calib_figure *figs = locate_on(rig, &ds, &box, &n);
    assert_int_equal(n, 1);
    assert_int_equal(figs[0].height, CALIB_HEIGHT_OFF);
    assert_true(fabs(figs[0].ground_in - 2) < 1e-12);
    /* its own height reads high, within its error of the felt; at that
     * height it would be more than 0.01" from where it stands */
    double sig = figs[0].measured_err95_in / 1.96;
    assert_true(figs[0].measured_in > 0.1 && figs[0].measured_in < CALIB_SURE_SIGMAS * sig);
    assert_true(figs[0].measured_in * figs[0].xy_per_z > 0.01);
    assert_true(figs[0].z_in == 0 && hypot(figs[0].x - 64, figs[0].y - 34) < 0.002);
    assert_true(figs[0].z_err95_in >= CALIB_GROUND_Z95_IN && hypot(figs[0].x - 64, figs[0].y - 34) < figs[0].err95_in);
    char w[256];
    assert_true(calib_height_warning(&figs[0], "Gren 1", figs[0].z_in, 1, 0.8, w, sizeof w));
    assert_non_null(strstr(w, "is that piece where the scenario puts it"));
    free(figs);
    free(ds.items);
    calib_rig_destroy(rig);
}

/* Nothing stands below the ground under it: a tag measured below it
 * within its error is on it, its height's error the ground's, not
 * stretched down to its own measurement.  And a declared level ground wins
 * over a tag that looks tilted within both errors; without one the tag may
 * be on a slope nobody declared, and its error says so.  (Issue 29: at
 * 1080p such felt figures carried err95_in of 0.3-1.2" while within 0.03"
 * of the truth, and made every shot with them too close to call.) */
static void test_height_error_not_stretched(void **state)
{
    (void)state;
    cvw_camera cam;
    double r[3], t[3];
    vision_detections ds;
    calib_rig *rig = height_table(&cam, r, t, &ds, 40);
    const double base = 3.0 / 25.4;
    add_tag3d(&ds, &cam, r, t, 100, 20, 30, base, 0.792, 10, 0, 0);        /* on the felt, measures below it */
    add_tag3d(&ds, &cam, r, t, 101, 30, 14, base + 0.03, 0.8, 40, 0.47, 0); /* tilted 25 degrees, on the felt */
    test_box hill = {62, 30, 70, 42, 2.0};
    int n = 0;
    for (int declared = 0; declared < 2; declared++) {
        calib_figure *figs = locate_on(rig, &ds, declared ? &hill : NULL, &n);
        assert_int_equal(n, 2);
        const calib_figure *b = &figs[0], *s = &figs[1];
        print_message("%s: below %.3f\" +- %.3f: z_err95 %.4f err95 %.4f; tilted %.1f deg %.3f\" +- %.3f: z_err95 "
                      "%.4f err95 %.4f\n",
                      declared ? "declared" : "no ground", b->measured_in, b->measured_err95_in, b->z_err95_in,
                      b->err95_in, s->tilt_deg, s->measured_in, s->measured_err95_in, s->z_err95_in, s->err95_in);
        /* within its error (not "below the felt"), so on the felt, as sure as the felt */
        assert_true(-b->measured_in > CALIB_MAYBE_SIGMAS * b->measured_err95_in / 1.96 &&
                    -b->measured_in < CALIB_SURE_SIGMAS * b->measured_err95_in / 1.96);
        assert_int_equal(b->height, CALIB_HEIGHT_GROUND);
        assert_true(b->z_in == 0 && b->z_err95_in == CALIB_GROUND_Z95_IN);
        assert_true(fabs(b->err95_in - hypot(b->xy_err95_flat_in, CALIB_GROUND_Z95_IN * b->xy_per_z)) < 1e-12);
        assert_true(hypot(b->x - 20, b->y - 30) < 0.01);
        assert_true(s->tilt_deg > CALIB_SLOPE_DEG && s->height == CALIB_HEIGHT_GROUND);
        if (declared) /* the scenario says level felt: it wins */
            assert_true(s->z_err95_in == CALIB_GROUND_Z95_IN &&
                        fabs(s->err95_in - hypot(s->xy_err95_flat_in, CALIB_GROUND_Z95_IN * s->xy_per_z)) < 1e-12);
        else /* it may stand on a slope no one declared, as high as its own height's error reaches */
            assert_true(s->z_err95_in >= s->measured_in + s->measured_err95_in - 1e-12 && s->z_err95_in > 0.1);
        free(figs);
    }
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
    char *p = strstr(text, "\"size_in\": 0.8, ");
    memmove(p, p + 16, strlen(p + 16) + 1); /* left out (a misspelt key: test_rig_keys.c) */
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
        cmocka_unit_test(test_anchor_size_named),
        cmocka_unit_test(test_empty_table),
        cmocka_unit_test(test_height_parallax_by_hand),
        cmocka_unit_test(test_height_property),
        cmocka_unit_test(test_height_flags),
        cmocka_unit_test(test_height_below_declared_on_felt),
        cmocka_unit_test(test_height_error_not_stretched),
        cmocka_unit_test_setup_teardown(test_rig_good, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rig_malformed_line_column, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rig_missing_field, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rig_unknown_family_and_camera, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests_name("calib", tests, NULL, NULL);
}
