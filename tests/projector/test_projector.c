/* test_projector.c - projector calibration: patterns, projector.json, and
 * the solver on a simulated projector-camera rig with a known truth
 * (ambient light, gamma, black level, blur, noise, partial coverage), plus
 * the bad inputs of issue 4. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pjsim.h"
#include "projector.h"

/* ---- patterns --------------------------------------------------------- */

static void test_pattern_names(void **state)
{
    (void)state;
    int n = calib_projector_pattern_count(1920, 1080);
    /* black, white, 8 + 8 Gray bits, 2 x 6 phase steps */
    assert_int_equal(n, 2 + 8 + 8 + 12);
    assert_int_equal(calib_projector_pattern_count(10, 1080), 0);
    for (int i = 0; i < n; i++) {
        calib_projector_pattern info;
        int w, h, k;
        assert_int_equal(calib_projector_pattern_info(1920, 1080, i, &info, NULL), TT_OK);
        assert_true(calib_projector_pattern_parse(info.name, &w, &h, &k));
        assert_int_equal(w, 1920);
        assert_int_equal(h, 1080);
        assert_int_equal(k, i);
    }
    int w, h, k;
    assert_false(calib_projector_pattern_parse("pj-1920x1080-03-white.png", &w, &h, &k));
    assert_false(calib_projector_pattern_parse("photo.png", &w, &h, &k));
    assert_false(calib_projector_pattern_parse("pj-1920x1080-99-black.png", &w, &h, &k));
}

/* Decoding the patterns themselves (a perfect camera at the projector)
 * gives every pixel back exactly: Gray code and phase agree. */
static void test_pattern_self_decode(void **state)
{
    (void)state;
    const int W = 320, H = 200;
    int n = calib_projector_pattern_count(W, H);
    tt_image *pats = calloc((size_t)n, sizeof *pats);
    tt_err err = {0};
    for (int i = 0; i < n; i++)
        assert_int_equal(calib_projector_pattern_render(W, H, i, &pats[i], &err), TT_OK);
    /* white and black are flat */
    assert_int_equal(pats[0].data[77], 0);
    assert_int_equal(pats[1].data[77], 255);
    int bits = 0;
    while ((1 << bits) < (W + 7) / 8)
        bits++;
    for (int x = 0; x < W; x += 7) {
        unsigned g = 0;
        for (int b = 0; b < bits; b++)
            g = (g << 1) | (pats[2 + b].data[5 * pats[2 + b].stride + x] > 127);
        unsigned cell = g;
        for (unsigned sh = 1; sh < 32; sh <<= 1)
            cell ^= cell >> sh;
        assert_int_equal(cell, (unsigned)(x / 8));
    }
    for (int i = 0; i < n; i++)
        tt_image_free(&pats[i]);
    free(pats);
}

/* ---- projector.json --------------------------------------------------- */

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    return p;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_json_roundtrip(void **state)
{
    (void)state;
    double H[9] = {26.5, 0.3, 12, -0.2, 27.1, 40, 1e-4, 2e-4, 1};
    calib_projector *pj = NULL, *back = NULL;
    tt_err err = {0};
    assert_int_equal(calib_projector_create(1920, 1080, H, &pj, &err), TT_OK);
    double dx[6] = {0.1, 0.2, 0.3, -0.1, -0.2, -0.3}, dy[6] = {1, 0, 0, 0, 0, -1};
    assert_int_equal(calib_projector_set_grid(pj, 10, 5, 4, 3, 2, dx, dy, &err), TT_OK);
    calib_projector_set_residual(pj, 0.12, 0.004, 5000);
    assert_int_equal(calib_projector_save(pj, tmp_path("pj.json"), &err), TT_OK);
    if (calib_projector_load(tmp_path("pj.json"), &back, &err) != TT_OK)
        fail_msg("%s", err.msg);
    int w, h;
    calib_projector_size(back, &w, &h);
    assert_int_equal(w, 1920);
    assert_int_equal(h, 1080);
    assert_true(calib_projector_has_grid(back));
    double pts[6] = {10, 5, 13.7, 8.2, 50, 40}, a[6], b[6];
    calib_projector_map(pj, pts, 3, a);
    calib_projector_map(back, pts, 3, b);
    for (int i = 0; i < 6; i++)
        assert_true(fabs(a[i] - b[i]) < 1e-3);
    /* grid node (0,0) adds exactly its offset */
    double base[2], q[2] = {10, 5}, hp[2];
    calib_projector_map(back, q, 1, base);
    double w0 = H[6] * 10 + H[7] * 5 + H[8];
    hp[0] = (H[0] * 10 + H[1] * 5 + H[2]) / w0;
    hp[1] = (H[3] * 10 + H[4] * 5 + H[5]) / w0;
    assert_true(fabs(base[0] - hp[0] - 0.1) < 1e-6);
    assert_true(fabs(base[1] - hp[1] - 1) < 1e-6);
    /* unmap inverts the homography */
    double xy[2];
    calib_projector_destroy(pj);
    pj = NULL;
    assert_int_equal(calib_projector_create(1920, 1080, H, &pj, &err), TT_OK);
    calib_projector_map(pj, pts + 2, 1, a);
    assert_true(calib_projector_unmap(pj, a[0], a[1], xy));
    assert_true(fabs(xy[0] - 13.7) < 1e-9 && fabs(xy[1] - 8.2) < 1e-9);
    calib_projector_destroy(pj);
    calib_projector_destroy(back);
    calib_projector_destroy(NULL);
    remove(tmp_path("pj.json"));
}

/* A 3D projector's P survives projector.json; a file in the format from
 * before the 3D model (no "model", no "P") still loads, as a plane map
 * that ignores heights. */
static void test_json_pinhole_and_old_format(void **state)
{
    (void)state;
    /* a pinhole 60" over (36, 30) looking down, 1750 px focal:
     * u = 640 + 1750 (x - 36) / (60 - h), v = 400 - 1750 (y - 30) / (60 - h) */
    double Pm[12] = {1750, 0, -640, 640 * 60 - 1750 * 36, 0, -1750, -400, 400 * 60 + 1750 * 30, 0, 0, -1, 60};
    calib_projector *pj = NULL, *back = NULL;
    tt_err err = {0};
    assert_int_equal(calib_projector_create_pinhole(1280, 800, Pm, &pj, &err), TT_OK);
    assert_true(calib_projector_is_3d(pj));
    double xyz[6] = {36, 30, 3, 50, 20, 3}, q[4];
    calib_projector_map3(pj, xyz, 2, q);
    assert_true(fabs(q[0] - 640) < 1e-9 && fabs(q[1] - 400) < 1e-9);
    assert_true(fabs(q[2] - (640 + 1750 * 14 / 57.0)) < 1e-9 && fabs(q[3] - (400 + 1750 * 10 / 57.0)) < 1e-9);
    /* the felt map is P at height 0 */
    double xy[2] = {50, 20}, f[2], xyz0[3] = {50, 20, 0}, f3[2];
    calib_projector_map(pj, xy, 1, f);
    calib_projector_map3(pj, xyz0, 1, f3);
    assert_true(fabs(f[0] - f3[0]) < 1e-9 && fabs(f[1] - f3[1]) < 1e-9);
    assert_true(fabs(f[0] - (640 + 1750 * 14 / 60.0)) < 1e-9);
    assert_int_equal(calib_projector_save(pj, tmp_path("pj3.json"), &err), TT_OK);
    if (calib_projector_load(tmp_path("pj3.json"), &back, &err) != TT_OK)
        fail_msg("%s", err.msg);
    assert_true(calib_projector_is_3d(back));
    double b[4];
    calib_projector_map3(back, xyz, 2, b);
    for (int i = 0; i < 4; i++)
        assert_true(fabs(b[i] - q[i]) < 1e-6);
    calib_projector_destroy(pj);
    calib_projector_destroy(back);

    /* the old format, as written before issue 20 */
    write_text(tmp_path("old.json"), "{\n \"width\": 1280,\n \"height\": 800,\n \"table_to_projector\": [\n"
                                     "  [29.1, 0.2, -408.0],\n  [0.1, -29.3, 1280.5],\n  [0.0001, 0.0002, 1.0]\n ],\n"
                                     " \"residual_px\": 0.21,\n \"residual_in\": 0.008,\n \"points\": 120000\n}\n");
    if (calib_projector_load(tmp_path("old.json"), &back, &err) != TT_OK)
        fail_msg("old format: %s", err.msg);
    assert_false(calib_projector_is_3d(back));
    assert_false(calib_projector_pinhole(back, Pm));
    double o3[6] = {36, 30, 0, 36, 30, 3}, oq[4];
    calib_projector_map3(back, o3, 2, oq); /* a plane map ignores the height */
    assert_true(fabs(oq[0] - oq[2]) < 1e-12 && fabs(oq[1] - oq[3]) < 1e-12);
    double w0 = 0.0001 * 36 + 0.0002 * 30 + 1;
    assert_true(fabs(oq[0] - (29.1 * 36 + 0.2 * 30 - 408.0) / w0) < 1e-9);
    double rpx;
    calib_projector_residual(back, &rpx, NULL, NULL);
    assert_true(fabs(rpx - 0.21) < 1e-12);
    calib_projector_destroy(back);
    remove(tmp_path("pj3.json"));
    remove(tmp_path("old.json"));
}

/* projector.json records the table it was calibrated on; a map made for
 * another table is refused with both sizes; a file without the record (as
 * written before it was kept) is used as it is. */
static void test_json_table(void **state)
{
    (void)state;
    double H[9] = {30, 0, -120.5, 0, 30, -180.5, 0, 0, 1};
    calib_projector *pj = NULL, *back = NULL;
    tt_err err = {0};
    double w = 0, d = 0;
    calib_rig rig;
    memset(&rig, 0, sizeof rig);
    assert_int_equal(calib_projector_create(1920, 1080, H, &pj, &err), TT_OK);
    assert_false(calib_projector_table(pj, &w, &d));
    calib_projector_set_table(pj, 36, 24);
    assert_int_equal(calib_projector_save(pj, tmp_path("pjt.json"), &err), TT_OK);
    if (calib_projector_load(tmp_path("pjt.json"), &back, &err) != TT_OK)
        fail_msg("%s", err.msg);
    assert_true(calib_projector_table(back, &w, &d));
    assert_true(w == 36 && d == 24);
    rig.width_in = 36.2;
    rig.depth_in = 24;
    assert_int_equal(calib_projector_check_rig(back, &rig, "pjt.json", &err), TT_OK);
    rig.width_in = 72;
    rig.depth_in = 48;
    assert_int_equal(calib_projector_check_rig(back, &rig, "pjt.json", &err), TT_ERR_MISMATCH);
    if (!strstr(err.msg, "pjt.json was calibrated on a 36x24\" table, but the rig's table is 72x48\"") ||
        !strstr(err.msg, "calib projector"))
        fail_msg("%s", err.msg);
    calib_projector_destroy(back);
    /* no record: loads and is used as today */
    write_text(tmp_path("old.json"), "{\"width\": 1920, \"height\": 1080, "
                                     "\"table_to_projector\": [[30, 0, -120.5], [0, 30, -180.5], [0, 0, 1]]}\n");
    if (calib_projector_load(tmp_path("old.json"), &back, &err) != TT_OK)
        fail_msg("%s", err.msg);
    assert_false(calib_projector_table(back, &w, &d));
    assert_int_equal(calib_projector_check_rig(back, &rig, "old.json", &err), TT_OK);
    calib_projector_destroy(back);
    /* the shipped samples record theirs */
    const char *samples[2] = {TT_SOURCE_DIR "/samples/projector/projector.json",
                              TT_SOURCE_DIR "/samples/breach/projector.json"};
    const double want[2][2] = {{72, 48}, {36, 24}};
    for (int i = 0; i < 2; i++) {
        if (calib_projector_load(samples[i], &back, &err) != TT_OK)
            fail_msg("%s", err.msg);
        assert_true(calib_projector_table(back, &w, &d));
        assert_true(w == want[i][0] && d == want[i][1]);
        calib_projector_destroy(back);
    }
    calib_projector_destroy(pj);
    remove(tmp_path("pjt.json"));
    remove(tmp_path("old.json"));
}

static void expect_load_error(const char *text, tt_status want, const char *needle)
{
    calib_projector *pj = NULL;
    tt_err err = {0};
    write_text(tmp_path("bad.json"), text);
    tt_status st = calib_projector_load(tmp_path("bad.json"), &pj, &err);
    assert_null(pj);
    if (st != want || !strstr(err.msg, needle))
        fail_msg("expected status %d with '%s', got %d: %s", want, needle, st, err.msg);
    remove(tmp_path("bad.json"));
}

static void test_json_errors(void **state)
{
    (void)state;
    expect_load_error("{\"width\": 1920,\n \"height\": 1080,\n \"table_to_projector\": [[1,0,0],[0,1,0],[0,0,1]\n}",
                      TT_ERR_FORMAT, "line 4");
    expect_load_error("{\"width\": 1920, \"height\": 1080}", TT_ERR_FORMAT, "table_to_projector");
    expect_load_error("{\"width\": -3, \"height\": 1080, \"table_to_projector\": [[1,0,0],[0,1,0],[0,0,1]]}",
                      TT_ERR_FORMAT, "width");
    expect_load_error("{\"width\": 1920, \"height\": 1080, \"table_to_projector\": [[1,0,0],[0,1,0]]}", TT_ERR_FORMAT,
                      "3 rows");
    expect_load_error("{\"width\": 1920, \"height\": 1080, \"table_to_projector\": [[1,2,3],[2,4,6],[0,0,1]]}",
                      TT_ERR_FORMAT, "singular");
    expect_load_error("{\"width\": 1920, \"height\": 1080, \"table_to_projector\": [[1,0,0],[0,1,0],[0,0,1]],"
                      " \"correction\": {\"x0\": 0, \"y0\": 0, \"step_in\": 2, \"nx\": 2, \"ny\": 2, \"dx\": [[0,0]],"
                      " \"dy\": [[0,0],[0,0]]}}",
                      TT_ERR_FORMAT, "correction.dx");
    expect_load_error("{\"width\": 1920, \"height\": 1080, \"model\": \"pinhole\", "
                      "\"table_to_projector\": [[1,0,0],[0,1,0],[0,0,1]]}",
                      TT_ERR_FORMAT, "\"P\"");
    expect_load_error("{\"width\": 1920, \"height\": 1080, \"model\": \"pinhole\", "
                      "\"P\": [[1,0,0,0],[0,1,0,0]]}",
                      TT_ERR_FORMAT, "3 rows of 4");
    expect_load_error("{\"width\": 1920, \"height\": 1080, \"model\": \"cubist\", "
                      "\"table_to_projector\": [[1,0,0],[0,1,0],[0,0,1]]}",
                      TT_ERR_FORMAT, "model");
    expect_load_error("{\"width\": 1920, \"height\": 1080, \"table\": {\"width_in\": 72}, "
                      "\"table_to_projector\": [[1,0,0],[0,1,0],[0,0,1]]}",
                      TT_ERR_FORMAT, "table: missing \"depth_in\"");
    expect_load_error("{\"width\": 1920, \"height\": 1080, \"table\": [72, 48], "
                      "\"table_to_projector\": [[1,0,0],[0,1,0],[0,0,1]]}",
                      TT_ERR_FORMAT, "the table the projector was calibrated on");
    calib_projector *pj = NULL;
    tt_err err = {0};
    assert_int_equal(calib_projector_load(tmp_path("missing.json"), &pj, &err), TT_ERR_IO);
}

/* ---- the simulated rig ------------------------------------------------ */

typedef struct accuracy {
    double rms_px, max_px, rms_in, max_in;
    int n;
} accuracy;

/* Compare the solved map with the truth over the lit part of the table. */
static accuracy compare_truth(const pjsim *s, const calib_projector *pj)
{
    accuracy a = {0};
    double s_px = 0, s_in = 0;
    for (double y = 1; y < 47; y += 0.5)
        for (double x = 1; x < 71; x += 0.5) {
            double t[2], q[2], xy[2] = {x, y};
            if (!pjsim_truth(s, x, y, t) || t[0] < 2 || t[1] < 2 || t[0] > s->o.pj_w - 3 || t[1] > s->o.pj_h - 3)
                continue;
            calib_projector_map(pj, xy, 1, q);
            double d = hypot(q[0] - t[0], q[1] - t[1]);
            /* inches: local scale of the true map */
            double t2[2], t3[2];
            pjsim_truth(s, x + 0.01, y, t2);
            pjsim_truth(s, x, y + 0.01, t3);
            double j00 = (t2[0] - t[0]) / 0.01, j10 = (t2[1] - t[1]) / 0.01, j01 = (t3[0] - t[0]) / 0.01,
                   j11 = (t3[1] - t[1]) / 0.01, det = j00 * j11 - j01 * j10;
            double du = q[0] - t[0], dv = q[1] - t[1];
            double ex = (j11 * du - j01 * dv) / det, ey = (-j10 * du + j00 * dv) / det, din = hypot(ex, ey);
            s_px += d * d;
            s_in += din * din;
            a.max_px = fmax(a.max_px, d);
            a.max_in = fmax(a.max_in, din);
            a.n++;
        }
    a.rms_px = a.n ? sqrt(s_px / a.n) : 0;
    a.rms_in = a.n ? sqrt(s_in / a.n) : 0;
    return a;
}

static void solve_sim(const pjsim_options *o, calib_projector **pj, calib_projector_report *rep, accuracy *acc,
                      const char *label)
{
    pjsim *s = NULL;
    tt_image *caps = NULL;
    int n = 0;
    tt_err err = {0};
    if (pjsim_create(o, &s, &err) != TT_OK)
        fail_msg("sim: %s", err.msg);
    if (pjsim_capture_all(s, &caps, &n, &err) != TT_OK)
        fail_msg("capture: %s", err.msg);
    if (calib_projector_solve(s->rig, o->pj_w, o->pj_h, caps, n, NULL, pj, rep, &err) != TT_OK)
        fail_msg("solve (%s): %s", label, err.msg);
    /* the simulator's fast projection is the renderer's */
    double a[2], b[2];
    assert_true(pjsim_truth(s, 20.5, 30.25, a) && rnd_project(&s->proj, 20.5, 30.25, 0, b));
    assert_true(fabs(a[0] - b[0]) < 1e-6 && fabs(a[1] - b[1]) < 1e-6);
    *acc = compare_truth(s, *pj);
    print_message("%s: residual %.3f px RMS (%.4f in), max %.2f px, %d of %d pixels, anchors %d, grid %s "
                  "(homography alone %.3f px); lit x %.1f..%.1f y %.1f..%.1f in | truth: rms %.3f px max %.3f px, "
                  "rms %.4f in max %.4f in\n",
                  label, rep->rms_px, rep->rms_in, rep->max_px, rep->inliers, rep->decoded, rep->anchors_used,
                  rep->grid_used ? "yes" : "no", rep->rms_px_homography, rep->covered[0], rep->covered[2],
                  rep->covered[1], rep->covered[3], acc->rms_px, acc->max_px, acc->rms_in, acc->max_in);
    pjsim_captures_free(caps, n);
    pjsim_destroy(s);
}

/* Issue 4's target on the standard simulated rig: residual <= 0.5
 * projector px and <= 0.03" on the table, and the same against the truth. */
static void test_solve_sim(void **state)
{
    (void)state;
    pjsim_options o;
    calib_projector *pj = NULL;
    calib_projector_report rep;
    accuracy acc;
    pjsim_options_default(&o);
    solve_sim(&o, &pj, &rep, &acc, "standard rig");
    assert_true(rep.rms_px <= 0.5);
    assert_true(rep.rms_in <= 0.03);
    assert_true(acc.n > 1000);
    assert_true(acc.rms_px <= 0.5);
    assert_true(acc.rms_in <= 0.03);
    assert_true(acc.max_in <= 0.06);
    /* the projector covers only the middle of the table */
    assert_true(rep.covered[0] > 5 && rep.covered[2] < 67);
    calib_projector_destroy(pj);
}

/* A projector lens with barrel distortion: the homography alone cannot
 * follow it; the correction grid brings the fit back under the target. */
static void test_solve_sim_lens(void **state)
{
    (void)state;
    pjsim_options o;
    calib_projector *pj = NULL;
    calib_projector_report rep;
    accuracy acc;
    pjsim_options_default(&o);
    o.pj_k1 = -0.06;
    o.seed = 5;
    o.ambient = 0.8;
    o.gamma = 2.6;
    o.black_level = 0.08;
    solve_sim(&o, &pj, &rep, &acc, "lens distortion");
    assert_true(rep.grid_used);
    assert_true(rep.rms_px_homography > rep.rms_px);
    assert_true(calib_projector_has_grid(pj));
    assert_true(rep.rms_px <= 0.5);
    assert_true(acc.rms_px <= 0.5);
    assert_true(acc.rms_in <= 0.03);
    calib_projector_destroy(pj);
}

/* ---- the projector in 3D (issue 20) ----------------------------------- */

/* A flat-topped hill with vertical sides (the renderer's terrain), lit by
 * the projector on its top and sides, and its top's outline as a scenario
 * would declare it. */
typedef struct raised {
    rnd_piece piece;
    calib_projector_surface surf;
} raised;

static void raised_make(raised *r, const char *id, double x, double y, double rx, double ry, double h)
{
    memset(r, 0, sizeof *r);
    pjsim_flat_hill(&r->piece, x, y, rx, ry, h);
    r->surf.id = id;
    r->surf.xy = &r->piece.pts[0][0];
    r->surf.n = r->piece.npts;
    r->surf.height_in = h;
}

/* The distance, projector px, between where the map puts (x, y, h) and
 * where the simulated projector's own pinhole puts it. */
static double err3(const pjsim *s, const calib_projector *pj, double x, double y, double h)
{
    double xyz[3] = {x, y, h}, q[2], t[2];
    calib_projector_map3(pj, xyz, 1, q);
    assert_true(pjsim_truth3(s, x, y, h, t));
    return hypot(q[0] - t[0], q[1] - t[1]);
}

typedef struct setup3 {
    const char *label;
    unsigned seed;
    double eye[3], target[2];
    double hill[2]; /* centre of the 3" top */
    double felt[2]; /* a spot on the felt */
    double k1;      /* projector lens distortion */
} setup3;

/* Solve one rig twice from the same photos: plane only (today) and with
 * the raised top declared (3D).  Blast spots on the hill's top and on the
 * felt against the truth; then the 3D model against its own calibration
 * captures at random points on the felt and on the top. */
static void run_setup3(const setup3 *su, int property)
{
    pjsim_options o;
    pjsim *s = NULL;
    tt_image *caps = NULL;
    int n = 0;
    tt_err err = {0};
    raised hill;
    raised_make(&hill, "hill-1", su->hill[0], su->hill[1], 6, 4.5, 3.0);
    pjsim_options_default(&o);
    o.seed = su->seed;
    memcpy(o.pj_eye, su->eye, sizeof o.pj_eye);
    memcpy(o.pj_target, su->target, sizeof o.pj_target);
    o.pj_k1 = su->k1;
    o.pieces = &hill.piece;
    o.npieces = 1;
    if (pjsim_create(&o, &s, &err) != TT_OK || pjsim_capture_all(s, &caps, &n, &err) != TT_OK)
        fail_msg("sim: %s", err.msg);
    calib_projector *flat = NULL, *pj = NULL;
    calib_projector_report rf, r3;
    calib_projector_opts opts;
    calib_projector_opts_default(&opts);
    if (calib_projector_solve(s->rig, o.pj_w, o.pj_h, caps, n, &opts, &flat, &rf, &err) != TT_OK)
        fail_msg("plane solve (%s): %s", su->label, err.msg);
    opts.surfaces = &hill.surf;
    opts.nsurfaces = 1;
    if (calib_projector_solve(s->rig, o.pj_w, o.pj_h, caps, n, &opts, &pj, &r3, &err) != TT_OK)
        fail_msg("3D solve (%s): %s", su->label, err.msg);
    assert_false(rf.pinhole);
    assert_false(calib_projector_is_3d(flat));
    assert_true(r3.pinhole);
    assert_true(calib_projector_is_3d(pj));
    assert_true(r3.raised >= opts.min_surface_points);
    double hill_before = err3(s, flat, su->hill[0], su->hill[1], 3.0);
    double felt_before = err3(s, flat, su->felt[0], su->felt[1], 0.0);
    double hill_after = err3(s, pj, su->hill[0], su->hill[1], 3.0);
    double felt_after = err3(s, pj, su->felt[0], su->felt[1], 0.0);
    if (su->k1 != 0)
        assert_true(r3.grid_used);
    print_message("%s: blast on the 3\" hill %.2f px off (plane) -> %.2f px (3D); on the felt %.2f -> %.2f px; "
                  "fit %.3f px rms, %d of them on the top (%.3f px rms), grid %s\n",
                  su->label, hill_before, hill_after, felt_before, felt_after, r3.rms_px, r3.raised, r3.rms_px_raised,
                  r3.grid_used ? "yes" : "no");
    assert_true(hill_before > 5);   /* the plane map misses the hill's top */
    assert_true(hill_after <= 2.0); /* issue 20's target */
    assert_true(felt_after <= 2.0);
    assert_true(r3.rms_px <= 0.5);
    if (property) {
        /* property: the 3D model against the captures it was solved from,
         * at random points of the lit felt and of the top (0.5" inside it) */
        uint64_t rng = rnd_rng_seed(su->seed + 100);
        double s2 = 0, mx = 0;
        int m = 0;
        for (int tries = 0; m < 400 && tries < 100000; tries++) {
            int on_top = tries % 2;
            double x, y, h = on_top ? 3.0 : 0.0, t[2];
            if (on_top) {
                double a = 2 * M_PI * rnd_rng_uniform(&rng), r = sqrt(rnd_rng_uniform(&rng));
                x = su->hill[0] + (6 - 0.7) * r * cos(a);
                y = su->hill[1] + (4.5 - 0.7) * r * sin(a);
            } else {
                x = 2 + 68 * rnd_rng_uniform(&rng);
                y = 2 + 44 * rnd_rng_uniform(&rng);
                if (hypot((x - su->hill[0]) / 8, (y - su->hill[1]) / 6.5) < 1)
                    continue; /* under or beside the hill: not lit */
            }
            if (!pjsim_truth3(s, x, y, h, t) || t[0] < 4 || t[1] < 4 || t[0] > o.pj_w - 5 || t[1] > o.pj_h - 5)
                continue;
            double e = err3(s, pj, x, y, h);
            s2 += e * e;
            mx = fmax(mx, e);
            m++;
        }
        print_message("%s: 3D model vs truth at %d random points on felt and top: %.3f px rms, %.3f px max\n",
                      su->label, m, sqrt(s2 / m), mx);
        assert_true(m >= 300);
        assert_true(sqrt(s2 / m) <= 0.5);
        assert_true(mx <= 2.0);
    }
    calib_projector_destroy(flat);
    calib_projector_destroy(pj);
    pjsim_captures_free(caps, n);
    pjsim_destroy(s);
}

/* The standard rig with a 3" top declared, and a held-out one: another
 * seed, the projector above the near edge, the hill elsewhere. */
static void test_solve_3d(void **state)
{
    (void)state;
    const setup3 a = {"standard rig", 1, {36, 30, 60}, {36, 24}, {28, 21}, {46, 28}, 0};
    run_setup3(&a, 1);
}

static void test_solve_3d_held_out(void **state)
{
    (void)state;
    const setup3 b = {"held out: projector over the near edge", 7, {40, 52, 58}, {35, 22}, {44, 17}, {27, 30}, 0};
    run_setup3(&b, 1);
}

/* A projector lens with barrel distortion under the 3D model: the
 * correction grid (looked up where each projector pixel's ray meets the
 * felt) follows the lens on the hill's top as on the felt. */
static void test_solve_3d_lens(void **state)
{
    (void)state;
    const setup3 c = {"3D with lens distortion", 5, {36, 30, 60}, {36, 24}, {44, 27}, {24, 18}, -0.06};
    run_setup3(&c, 0);
}

/* A raised piece declared but not lit (outside the projector's light):
 * the error names it. */
static void test_surface_not_lit(void **state)
{
    (void)state;
    pjsim_options o;
    pjsim *s = NULL;
    tt_image *caps = NULL;
    int n = 0;
    tt_err err = {0};
    raised lit, dark;
    raised_make(&lit, "knoll", 30, 22, 5, 4, 3.0);
    raised_make(&dark, "far-hill", 66, 42, 4, 3, 2.0);
    rnd_piece pieces[2] = {lit.piece, dark.piece};
    calib_projector_surface surf[2] = {lit.surf, dark.surf};
    surf[0].xy = &pieces[0].pts[0][0];
    surf[1].xy = &pieces[1].pts[0][0];
    pjsim_options_default(&o);
    o.pj_w = 640;
    o.pj_h = 400;
    o.pj_f = 1750.0 / 2;
    o.pieces = pieces;
    o.npieces = 2;
    assert_int_equal(pjsim_create(&o, &s, &err), TT_OK);
    assert_int_equal(pjsim_capture_all(s, &caps, &n, &err), TT_OK);
    calib_projector_opts opts;
    calib_projector *pj = NULL;
    calib_projector_opts_default(&opts);
    opts.surfaces = surf;
    opts.nsurfaces = 2;
    tt_status st = calib_projector_solve(s->rig, o.pj_w, o.pj_h, caps, n, &opts, &pj, NULL, &err);
    print_message("not lit: %s\n", err.msg);
    assert_int_equal(st, TT_ERR_MISMATCH);
    assert_null(pj);
    assert_non_null(strstr(err.msg, "\"far-hill\""));
    assert_non_null(strstr(err.msg, "not seen lit"));
    assert_null(strstr(err.msg, "knoll"));
    /* the lit one alone solves in 3D (the far one still stands there) */
    opts.nsurfaces = 1;
    if (calib_projector_solve(s->rig, o.pj_w, o.pj_h, caps, n, &opts, &pj, NULL, &err) != TT_OK)
        fail_msg("%s", err.msg);
    assert_true(calib_projector_is_3d(pj));
    calib_projector_destroy(pj);
    pjsim_captures_free(caps, n);
    pjsim_destroy(s);
}

/* ---- bad input -------------------------------------------------------- */

static tt_status solve_bad(const pjsim_options *o, tt_err *err)
{
    pjsim *s = NULL;
    tt_image *caps = NULL;
    int n = 0;
    calib_projector *pj = NULL;
    assert_int_equal(pjsim_create(o, &s, err), TT_OK);
    assert_int_equal(pjsim_capture_all(s, &caps, &n, err), TT_OK);
    tt_status st = calib_projector_solve(s->rig, o->pj_w, o->pj_h, caps, n, NULL, &pj, NULL, err);
    assert_null(pj);
    pjsim_captures_free(caps, n);
    pjsim_destroy(s);
    return st;
}

static void test_projector_off(void **state)
{
    (void)state;
    pjsim_options o;
    tt_err err = {0};
    pjsim_options_default(&o);
    o.projector_off = 1;
    o.pj_w = 320; /* small: fewer photos */
    o.pj_h = 200;
    o.pj_f = 1750 / 4.0;
    o.supersample = 1;
    tt_status st = solve_bad(&o, &err);
    print_message("projector off: %s\n", err.msg);
    assert_int_equal(st, TT_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "not visible"));
}

static void test_room_too_bright(void **state)
{
    (void)state;
    pjsim_options o;
    tt_err err = {0};
    pjsim_options_default(&o);
    o.ambient = 12;
    o.pj_w = 320;
    o.pj_h = 200;
    o.pj_f = 1750 / 4.0;
    o.supersample = 1;
    tt_status st = solve_bad(&o, &err);
    print_message("room too bright: %s\n", err.msg);
    assert_int_not_equal(st, TT_OK);
    assert_true(strstr(err.msg, "too bright") || strstr(err.msg, "overexposed"));
}

/* A projector aimed off the table: the light falls on the floor. */
static void test_projector_off_table(void **state)
{
    (void)state;
    pjsim_options o;
    tt_err err = {0};
    pjsim_options_default(&o);
    o.pj_w = 320;
    o.pj_h = 200;
    o.pj_f = 1750 / 4.0;
    o.supersample = 1;
    o.pj_eye[0] = 150;
    o.pj_target[0] = 150;
    tt_status st = solve_bad(&o, &err);
    print_message("projector off the table: %s\n", err.msg);
    assert_int_equal(st, TT_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "not"));
}

static void test_wrong_captures(void **state)
{
    (void)state;
    pjsim_options o;
    pjsim *s = NULL;
    tt_err err = {0};
    calib_projector *pj = NULL;
    pjsim_options_default(&o);
    assert_int_equal(pjsim_create(&o, &s, &err), TT_OK);
    int n = calib_projector_pattern_count(320, 200);
    tt_image *caps = calloc((size_t)n, sizeof *caps);
    for (int i = 0; i < n; i++)
        assert_int_equal(tt_image_alloc(&caps[i], 1280, 960, 1, &err), TT_OK);
    /* too few */
    assert_int_equal(calib_projector_solve(s->rig, 320, 200, caps, n - 1, NULL, &pj, NULL, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "one per pattern"));
    /* one photo of the wrong size */
    tt_image_free(&caps[5]);
    assert_int_equal(tt_image_alloc(&caps[5], 640, 480, 1, &err), TT_OK);
    tt_status st = calib_projector_solve(s->rig, 320, 200, caps, n, NULL, &pj, NULL, &err);
    print_message("wrong size: %s\n", err.msg);
    assert_int_equal(st, TT_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "pj-320x200-05"));
    assert_null(pj);
    pjsim_captures_free(caps, n);
    pjsim_destroy(s);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tt_pjtest_XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pattern_names),       cmocka_unit_test(test_pattern_self_decode),
        cmocka_unit_test(test_json_roundtrip),      cmocka_unit_test(test_json_errors),
        cmocka_unit_test(test_json_table),
        cmocka_unit_test(test_solve_sim),           cmocka_unit_test(test_solve_sim_lens),
        cmocka_unit_test(test_projector_off),       cmocka_unit_test(test_room_too_bright),
        cmocka_unit_test(test_projector_off_table), cmocka_unit_test(test_wrong_captures),
        cmocka_unit_test(test_json_pinhole_and_old_format), cmocka_unit_test(test_solve_3d),
        cmocka_unit_test(test_solve_3d_held_out),   cmocka_unit_test(test_solve_3d_lens),
        cmocka_unit_test(test_surface_not_lit),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    remove(tmpdir);
    return rc;
}
