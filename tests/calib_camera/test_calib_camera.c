/* test_calib_camera.c - board files, camera calibration from known
 * correspondences, 'tabletrack calib camera' bad input and (when the
 * synthetic renderer is built) an end-to-end run on rendered photos of the
 * board. */
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
#include <time.h>
#include <unistd.h>

#include "board.h"
#include "camera_calib.h"
#include "cvwrap.h"
#include "print.h"
#include "run.h"
#ifdef TT_HAVE_RENDER
#include "render.h"
#endif

/* ---- helpers ---- */

static char g_dir[256];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/tt_calib_camera_XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *path_in(const char *name)
{
    static char buf[64][512];
    static int k;
    k = (k + 1) % 64;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, name);
    return buf[k];
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static const calib_board k_board = {"tag36h11", 5, 7, 0.9, 0.3, 0};

/* Deterministic Gaussian noise (Box-Muller over xorshift). */
static uint64_t g_rng = 88172645463325252ULL;
static double urand(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return ((g_rng >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2 * log(urand())) * cos(2 * M_PI * urand());
}

/* ---- board files ---- */

static void test_board_load_ok(void **state)
{
    (void)state;
    calib_board b;
    tt_err err = {0};
    write_file(path_in("b1.json"), "{\"rows\":5,\"columns\":7,\"tag_size_in\":1.2,\"spacing_in\":0.4}");
    assert_int_equal(calib_board_load(path_in("b1.json"), &b, &err), TT_OK);
    assert_string_equal(b.family, "tag36h11"); /* default */
    assert_int_equal(b.first_id, 0);           /* default */
    assert_int_equal(calib_board_ntags(&b), 35);
    write_file(path_in("b2.json"), "{\"family\":\"tag25h9\",\"rows\":2,\"columns\":3,\"tag_size_in\":1,"
                                   "\"spacing_in\":0.5,\"first_id\":20}");
    assert_int_equal(calib_board_load(path_in("b2.json"), &b, &err), TT_OK);
    assert_int_equal(calib_board_tag_index(&b, 19), -1);
    assert_int_equal(calib_board_tag_index(&b, 20), 0);
    assert_int_equal(calib_board_tag_index(&b, 25), 5);
    assert_int_equal(calib_board_tag_index(&b, 26), -1);
    /* the shipped sample */
    assert_int_equal(calib_board_load(TT_SOURCE_DIR "/samples/board.json", &b, &err), TT_OK);
}

static void expect_board_error(const char *name, const char *text, tt_status want, const char *needle)
{
    calib_board b;
    tt_err err = {0};
    write_file(path_in(name), text);
    tt_status st = calib_board_load(path_in(name), &b, &err);
    if (st != want || !strstr(err.msg, needle))
        fail_msg("board %s: status %d, message '%s' (wanted %d with '%s')", text, st, err.msg, want, needle);
}

static void test_board_load_errors(void **state)
{
    (void)state;
    calib_board b;
    tt_err err = {0};
    assert_int_equal(calib_board_load(path_in("none.json"), &b, &err), TT_ERR_IO);
    assert_non_null(strstr(err.msg, "none.json"));
    expect_board_error("m1.json", "{\"rows\":5,\n \"columns\":7,,}", TT_ERR_FORMAT, "line 2, column");
    expect_board_error("m2.json", "{\"columns\":7,\"tag_size_in\":1,\"spacing_in\":0.3}", TT_ERR_FORMAT,
                       "missing \"rows\"");
    expect_board_error("m3.json", "{\"rows\":5,\"columns\":7,\"spacing_in\":0.3}", TT_ERR_FORMAT,
                       "missing \"tag_size_in\"");
    expect_board_error("m4.json", "{\"rows\":5.5,\"columns\":7,\"tag_size_in\":1,\"spacing_in\":0.3}", TT_ERR_FORMAT,
                       "\"rows\" must be a whole number");
    expect_board_error("m5.json", "{\"family\":\"tag99h1\",\"rows\":5,\"columns\":7,\"tag_size_in\":1,\"spacing_in\":0.3}",
                       TT_ERR_UNKNOWN, "unknown tag family 'tag99h1'");
    expect_board_error("m6.json", "{\"rows\":0,\"columns\":7,\"tag_size_in\":1,\"spacing_in\":0.3}", TT_ERR_FORMAT,
                       "at least 1");
    expect_board_error("m7.json", "{\"rows\":5,\"columns\":7,\"tag_size_in\":-1,\"spacing_in\":0.3}", TT_ERR_FORMAT,
                       "\"tag_size_in\" must be a positive");
    expect_board_error("m8.json", "{\"rows\":5,\"columns\":7,\"tag_size_in\":1,\"spacing_in\":0.1}", TT_ERR_FORMAT,
                       "at least 0.25 in");
    expect_board_error("m9.json",
                       "{\"family\":\"tag16h5\",\"rows\":5,\"columns\":7,\"tag_size_in\":1,\"spacing_in\":0.5}",
                       TT_ERR_FORMAT, "tag16h5, which has 30 ids");
    expect_board_error("m10.json", "[1,2]", TT_ERR_FORMAT, "must be a JSON object");
}

static void test_board_geometry(void **state)
{
    (void)state;
    double c[4][3];
    /* tag 8 = row 1, column 1 of the 7-column board: pitch 1.2 */
    calib_board_tag_corners(&k_board, 8, c);
    const double want[4][2] = {{1.2, 2.1}, {2.1, 2.1}, {2.1, 1.2}, {1.2, 1.2}}; /* BL BR TR TL, y down */
    for (int k = 0; k < 4; k++) {
        assert_float_equal(c[k][0], want[k][0], 1e-12);
        assert_float_equal(c[k][1], want[k][1], 1e-12);
        assert_float_equal(c[k][2], 0.0, 0);
    }
    double w, h;
    calib_board_extent(&k_board, &w, &h);
    assert_float_equal(w, 7 * 0.9 + 6 * 0.3, 1e-12);
    assert_float_equal(h, 5 * 0.9 + 4 * 0.3, 1e-12);
}

/* ---- calibration from known correspondences ---- */

static const cvw_camera k_truth = {1280, 720, {1000, 0, 641.5, 0, 1004, 358.25, 0, 0, 1}, {-0.12, 0.05, 0, 0, 0}, 5};

/* Project the board for one pose; tags with a corner outside the
 * 1280x720 frame are left out, as a camera would not see them whole. */
static void project_view(const double rvec[3], const double tvec[3], double noise, int *ids, double (*corners)[4][2],
                         int *n)
{
    *n = 0;
    for (int t = 0; t < calib_board_ntags(&k_board); t++) {
        double obj[4][3], px[4][2];
        int inside = 1;
        calib_board_tag_corners(&k_board, t, obj);
        assert_int_equal(cvw_project_points(&k_truth, &obj[0][0], 4, rvec, tvec, &px[0][0], NULL), TT_OK);
        for (int k = 0; k < 4; k++)
            inside &= px[k][0] >= 0 && px[k][0] <= 1279 && px[k][1] >= 0 && px[k][1] <= 719;
        if (!inside)
            continue;
        ids[*n] = k_board.first_id + t;
        for (int k = 0; k < 4; k++) {
            corners[*n][k][0] = px[k][0] + noise * gauss();
            corners[*n][k][1] = px[k][1] + noise * gauss();
        }
        (*n)++;
    }
}

/* Board poses: the board (8.1 x 5.7 in) 9-12 in from the camera, tilted
 * 0-40 degrees about different axes. */
static const double k_poses[][6] = {
    {0.00, 0.00, 0.00, -4.05, -2.85, 11.0},  {0.55, 0.00, 0.00, -4.05, -2.85, 12.0},
    {-0.55, 0.05, 0.00, -4.05, -2.85, 12.0}, {0.00, 0.60, 0.10, -4.05, -2.85, 13.5},
    {0.05, -0.60, -0.1, -4.05, -2.85, 13.5}, {0.35, 0.40, 0.30, -4.05, -2.85, 13.5},
    {-0.40, -0.35, 0.2, -3.80, -2.60, 13.0},
};
#define NPOSES ((int)(sizeof k_poses / sizeof k_poses[0]))

static void test_recovers_intrinsics_from_projected_points(void **state)
{
    (void)state;
    calib_camera *cc = NULL;
    tt_err err = {0};
    int ids[64], n, npts = 0;
    double corners[64][4][2];
    assert_int_equal(calib_camera_create(&k_board, NULL, &cc, &err), TT_OK);
    for (int v = 0; v < NPOSES; v++) {
        char name[32];
        project_view(k_poses[v], k_poses[v] + 3, 0.1, ids, corners, &n);
        if (n < 28)
            fail_msg("pose %d: only %d of 35 tags in the frame", v, n);
        npts += 4 * n;
        snprintf(name, sizeof name, "pose%d", v);
        assert_int_equal(calib_camera_add_points(cc, name, 1280, 720, ids, (const double(*)[4][2])corners, n, &err),
                         TT_OK);
    }
    cvw_camera cam;
    calib_camera_result res;
    if (calib_camera_solve(cc, &cam, &res, &err) != TT_OK)
        fail_msg("solve: %s", err.msg);
    printf("# projected points, noise 0.1 px: fx %.3f (%.0f) fy %.3f (%.0f) cx %.3f (%.2f) cy %.3f (%.2f) "
           "k1 %.4f (%.2f) k2 %.4f (%.2f) rms %.4f px, max tilt %.1f deg\n",
           cam.K[0], k_truth.K[0], cam.K[4], k_truth.K[4], cam.K[2], k_truth.K[2], cam.K[5], k_truth.K[5],
           cam.dist[0], k_truth.dist[0], cam.dist[1], k_truth.dist[1], res.rms_px, res.max_tilt_deg);
    assert_int_equal(res.nused, NPOSES);
    assert_int_equal(res.npoints, npts);
    assert_true(fabs(cam.K[0] - k_truth.K[0]) < 0.002 * k_truth.K[0]);
    assert_true(fabs(cam.K[4] - k_truth.K[4]) < 0.002 * k_truth.K[4]);
    assert_true(fabs(cam.K[2] - k_truth.K[2]) < 1.0);
    assert_true(fabs(cam.K[5] - k_truth.K[5]) < 1.0);
    assert_true(fabs(cam.dist[0] - k_truth.dist[0]) < 0.01);
    assert_true(res.rms_px > 0.05 && res.rms_px < 0.2); /* ~ the noise */
    assert_true(res.max_tilt_deg > 25);
    for (int v = 0; v < NPOSES; v++) {
        const calib_camera_view *vi = calib_camera_view_info(cc, v);
        assert_true(vi->used);
        assert_true(vi->rms_px > 0 && vi->rms_px < 0.25);
        assert_true(vi->ntags >= 28);
    }
    calib_camera_destroy(cc);
}

static void test_skips_and_too_few_views(void **state)
{
    (void)state;
    calib_camera *cc = NULL;
    calib_camera_opts opts;
    tt_err err = {0};
    int ids[64], n;
    double corners[64][4][2];
    cvw_camera cam;
    calib_camera_result res;

    calib_camera_opts_default(&opts);
    opts.min_tags_per_image = 6;
    assert_int_equal(calib_camera_create(&k_board, &opts, &cc, &err), TT_OK);
    assert_int_equal(calib_camera_solve(cc, &cam, &res, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "no images"));

    /* 1: good.  2: only 5 tags.  3: a different image size.  4: one row.
     * 5: good, plus tag 3 twice and tags that are not on the board. */
    project_view(k_poses[1], k_poses[1] + 3, 0, ids, corners, &n);
    assert_int_equal(calib_camera_add_points(cc, "good1.png", 1280, 720, ids, (const double(*)[4][2])corners, n, &err),
                     TT_OK);
    assert_int_equal(calib_camera_add_points(cc, "few.png", 1280, 720, ids, (const double(*)[4][2])corners, 5, &err),
                     TT_OK);
    assert_int_equal(calib_camera_add_points(cc, "small.png", 640, 360, ids, (const double(*)[4][2])corners, n, &err),
                     TT_OK);
    assert_int_equal(calib_camera_add_points(cc, "row.png", 1280, 720, ids, (const double(*)[4][2])corners, 7, &err),
                     TT_OK);
    project_view(k_poses[2], k_poses[2] + 3, 0, ids, corners, &n);
    ids[0] = 3;     /* duplicate of tag 3: both dropped */
    ids[1] = 400;   /* not on the board */
    assert_int_equal(calib_camera_add_points(cc, "good2.png", 1280, 720, ids, (const double(*)[4][2])corners, n, &err),
                     TT_OK);
    assert_int_equal(calib_camera_view_info(cc, 4)->ntags, 32);
    assert_int_equal(calib_camera_view_info(cc, 4)->nother, 1);

    assert_int_equal(calib_camera_solve(cc, &cam, &res, &err), TT_ERR_ARG);
    printf("# %s\n", err.msg);
    assert_non_null(strstr(err.msg, "only 2 usable images of 5; need at least 3 images with 6 or more board tags"));
    assert_non_null(strstr(err.msg, "few.png: only 5 board tags found; need 6"));
    assert_non_null(strstr(err.msg, "small.png: image is 640x360 but the other images are 1280x720"));
    assert_non_null(strstr(err.msg, "row.png: the 7 board tags found all lie in one row"));

    /* A third good view makes it solvable; the skipped ones stay skipped. */
    project_view(k_poses[3], k_poses[3] + 3, 0, ids, corners, &n);
    assert_int_equal(calib_camera_add_points(cc, "good3.png", 1280, 720, ids, (const double(*)[4][2])corners, n, &err),
                     TT_OK);
    if (calib_camera_solve(cc, &cam, &res, &err) != TT_OK)
        fail_msg("solve: %s", err.msg);
    assert_int_equal(res.nused, 3);
    assert_int_equal(cam.width, 1280);
    assert_false(calib_camera_view_info(cc, 1)->used);
    assert_false(calib_camera_view_info(cc, 2)->used);
    assert_true(calib_camera_view_info(cc, 5)->used);
    assert_true(fabs(cam.K[0] - k_truth.K[0]) < 0.01 * k_truth.K[0]);
    calib_camera_destroy(cc);
    calib_camera_destroy(NULL);
}

/* ---- the command line: bad input ---- */

static run_result run_calib(const char *board, const char *out, const char *img1, const char *img2, const char *img3)
{
    char *argv[] = {TT_BIN, "calib", "camera", "--board", (char *)board, "--out", (char *)out,
                    (char *)img1, (char *)img2, (char *)img3, NULL};
    return run_cmd(argv, NULL);
}

static void expect_fail(run_result *r, const char *out, const char *needle)
{
    if (r->status != 1 || !strstr(r->err, needle) || exists(out))
        fail_msg("exit %d, stderr '%s', %s exists: %d (wanted exit 1 with '%s' and no file)", r->status, r->err, out,
                 exists(out), needle);
    run_free(r);
}

static void test_cli_bad_input(void **state)
{
    (void)state;
    const char *board = path_in("board.json"), *out = path_in("camera.yaml");
    write_file(board, "{\"family\":\"tag36h11\",\"rows\":5,\"columns\":7,\"tag_size_in\":0.9,\"spacing_in\":0.3}");
    /* "Photos" that show only two board tags: a printed tag sheet, rendered. */
    print_tags_opts po = {"tag36h11", 3, 4, 1.0, {PRINT_BASE_NONE, 0, 0}, PRINT_PAPER_LETTER, 0};
    print_doc *doc = NULL;
    tt_image two = {0};
    assert_int_equal(print_doc_tags(&po, &doc, NULL), TT_OK);
    assert_int_equal(print_doc_render(doc, 0, 60, &two, NULL), TT_OK);
    print_doc_destroy(doc);
    const char *b1 = path_in("two1.png"), *b2 = path_in("two2.png"), *b3 = path_in("two3.png");
    assert_int_equal(cvw_image_write(b1, &two, NULL), TT_OK);
    assert_int_equal(cvw_image_write(b2, &two, NULL), TT_OK);
    assert_int_equal(cvw_image_write(b3, &two, NULL), TT_OK);
    tt_image_free(&two);
    write_file(path_in("corrupt.png"), "this is not a PNG file\n");

    run_result r = run_calib(board, out, b1, path_in("missing.png"), b3);
    expect_fail(&r, out, "missing.png");
    r = run_calib(board, out, b1, path_in("corrupt.png"), b3);
    expect_fail(&r, out, "corrupt.png is not a readable image");
    r = run_calib(board, out, b1, b2, b3);
    expect_fail(&r, out, "only 0 usable images of 3; need at least 3 images with 8 or more board tags each");
    r = run_calib(board, out, b1, b2, b3);
    assert_non_null(strstr(r.err, "warning: skipping"));
    assert_non_null(strstr(r.err, "two2.png: only 2 board tags found; need 8: is the board in focus"));
    run_free(&r);

    write_file(path_in("bad.json"), "{\"rows\": 5,\n\"columns\": 7\n\"tag_size_in\": 1}");
    r = run_calib(path_in("bad.json"), out, b1, b2, b3);
    expect_fail(&r, out, "bad.json: line 3, column");
    write_file(path_in("nofam.json"), "{\"family\":\"tag99\",\"rows\":5,\"columns\":7,\"tag_size_in\":1,\"spacing_in\":0.3}");
    r = run_calib(path_in("nofam.json"), out, b1, b2, b3);
    expect_fail(&r, out, "unknown tag family 'tag99'");
    r = run_calib(path_in("no-such-board.json"), out, b1, b2, b3);
    expect_fail(&r, out, "no-such-board.json");
    const char *nodir = path_in("no/such/dir/camera.yaml");
    r = run_calib(board, nodir, b1, b2, b3);
    expect_fail(&r, nodir, "the folder");

    char *argv2[] = {TT_BIN, "calib", "lens", NULL};
    r = run_cmd(argv2, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown calibration 'lens' (use 'camera' or 'projector')"));
    run_free(&r);
    char *argv3[] = {TT_BIN, "calib", "camera", "--board", (char *)board, (char *)b1, NULL};
    r = run_cmd(argv3, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "no --out"));
    run_free(&r);
}

#ifdef TT_HAVE_RENDER
/* ---- end to end: rendered photos of the board through the real CLI ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define E2E_W 1280
#define E2E_H 720

static void test_e2e_rendered_board(void **state)
{
    (void)state;
    /* The board lies on a sheet of paper (the "table" of the scene),
     * origin of the board frame at (1, 1) on the sheet. */
    const double ox = 1.0, oy = 1.0;
    int nt = calib_board_ntags(&k_board);
    rnd_tag tags[35];
    for (int t = 0; t < nt; t++) {
        double c[4][3];
        calib_board_tag_corners(&k_board, t, c);
        memset(&tags[t], 0, sizeof tags[t]);
        snprintf(tags[t].family, sizeof tags[t].family, "%s", k_board.family);
        tags[t].id = k_board.first_id + t;
        tags[t].x = ox + (c[0][0] + c[2][0]) / 2;
        tags[t].y = oy + (c[0][1] + c[2][1]) / 2;
        tags[t].size_in = k_board.tag_size_in;
        tags[t].facing_deg = -90; /* printed top edge toward the top of the page (-y) */
        /* The renderer's corners must be the board model's corners. */
        double rc[4][2];
        rnd_tag_corners(&tags[t], rc);
        for (int k = 0; k < 4; k++) {
            assert_float_equal(rc[k][0], ox + c[k][0], 1e-9);
            assert_float_equal(rc[k][1], oy + c[k][1], 1e-9);
        }
    }
    rnd_scene sc;
    memset(&sc, 0, sizeof sc);
    sc.width_in = 10.1;
    sc.depth_in = 7.7;
    sc.felt_gray = 235; /* white paper */
    sc.floor_gray = 70;
    sc.tags = tags;
    sc.ntags = nt;
    sc.light_gradient = 0.15;
    sc.ambient = 1.0;
    sc.blur_sigma_px = 0.7;
    sc.noise_sigma = 2.0;
    sc.supersample = 2; /* 3 is slower under ASan for no gain in this test */

    /* Camera: f 1100 px, k1 -0.10, k2 0.03; board centre (5.05, 3.85). */
    const double cxb = ox + 4.05, cyb = oy + 2.85;
    const double eyes[][3] = {{0, 0, 11.5}, {6.5, 0, 10}, {-6.5, 0.5, 10}, {0, 6, 10},
                              {0.5, -6, 10}, {4.5, 4.5, 10.5}};
    int nviews = (int)(sizeof eyes / sizeof eyes[0]);
    rnd_camera cam;
    char *argv[32];
    int na = 0;
    argv[na++] = TT_BIN;
    argv[na++] = "calib";
    argv[na++] = "camera";
    argv[na++] = "--board";
    argv[na++] = (char *)path_in("e2e_board.json");
    argv[na++] = "--out";
    argv[na++] = (char *)path_in("e2e_camera.yaml");
    write_file(path_in("e2e_board.json"),
               "{\"family\":\"tag36h11\",\"rows\":5,\"columns\":7,\"tag_size_in\":0.9,\"spacing_in\":0.3,"
               "\"first_id\":0}");
    static char names[8][512];
    double t0 = now_s();
    for (int v = 0; v <= nviews; v++) {
        tt_image im = {0};
        tt_err err = {0};
        int w = v < nviews ? E2E_W : 640, h = v < nviews ? E2E_H : 360;
        const double *e = eyes[v < nviews ? v : 0];
        rnd_camera_look_at(&cam, w, h, v < nviews ? 1100 : 550, -0.10, 0.03, cxb + e[0], cyb + e[1], e[2], cxb,
                           cyb);
        if (rnd_render(&sc, &cam, &im, &err) != TT_OK)
            fail_msg("render: %s", err.msg);
        snprintf(names[v], sizeof names[v], "%s/view%d%s.png", g_dir, v, v < nviews ? "" : "_small");
        assert_int_equal(cvw_image_write(names[v], &im, &err), TT_OK);
        tt_image_free(&im);
        argv[na++] = names[v];
    }
    argv[na] = NULL;
    rnd_camera_look_at(&cam, E2E_W, E2E_H, 1100, -0.10, 0.03, cxb, cyb, 11.5, cxb, cyb);

    double t1 = now_s();
    run_result r = run_cmd(argv, NULL);
    double t2 = now_s();
    printf("# rendering %d views: %.1f s; tabletrack calib camera: %.1f s\n", nviews + 1, t1 - t0, t2 - t1);
    printf("# tabletrack calib camera on %d rendered views + 1 smaller one:\n%s%s", nviews, r.out ? r.out : "",
           r.err ? r.err : "");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "view6_small.png: image is 640x360 but the other images are 1280x720"));
    const char *rms_at = strstr(r.out, "RMS reprojection error: ");
    assert_non_null(rms_at);
    double rms = atof(rms_at + strlen("RMS reprojection error: "));
    assert_true(rms > 0 && rms < 0.3); /* rendered with blur 0.7 px and noise 2 gray levels */
    run_free(&r);

    cvw_camera got;
    tt_err err = {0};
    if (cvw_camera_read(path_in("e2e_camera.yaml"), &got, &err) != TT_OK)
        fail_msg("%s", err.msg);
    printf("# recovered fx %.2f fy %.2f cx %.2f cy %.2f k1 %.4f k2 %.4f; true fx %.2f fy %.2f cx %.2f cy %.2f k1 %.4f "
           "k2 %.4f\n",
           got.K[0], got.K[4], got.K[2], got.K[5], got.dist[0], got.dist[1], cam.K[0], cam.K[4], cam.K[2], cam.K[5],
           cam.dist[0], cam.dist[1]);
    assert_int_equal(got.width, E2E_W);
    assert_int_equal(got.height, E2E_H);
    /* Tolerances: focal lengths within 0.5%, principal point within 4 px. */
    assert_true(fabs(got.K[0] - cam.K[0]) < 0.005 * cam.K[0]);
    assert_true(fabs(got.K[4] - cam.K[4]) < 0.005 * cam.K[4]);
    assert_true(fabs(got.K[2] - cam.K[2]) < 4.0);
    assert_true(fabs(got.K[5] - cam.K[5]) < 4.0);
    assert_true(fabs(got.dist[0] - cam.dist[0]) < 0.03);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_board_load_ok),
        cmocka_unit_test(test_board_load_errors),
        cmocka_unit_test(test_board_geometry),
        cmocka_unit_test(test_recovers_intrinsics_from_projected_points),
        cmocka_unit_test(test_skips_and_too_few_views),
        cmocka_unit_test(test_cli_bad_input),
#ifdef TT_HAVE_RENDER
        cmocka_unit_test(test_e2e_rendered_board),
#endif
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
