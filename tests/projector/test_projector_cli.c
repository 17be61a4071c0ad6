/* test_projector_cli.c - 'tabletrack calib projector' end to end through
 * the real binary: write the patterns, photograph each file with the
 * simulated rig under its own name, solve projector.json; then missing and
 * wrong-size photos (clear message, non-zero exit, no output file). */
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

#include "cvwrap.h"
#include "pjsim.h"
#include "projector.h"
#include "run.h"

#define PW 640
#define PH 400

static char dir[64];
static pjsim *sim;

static const char *tp(const char *name)
{
    static char p[4][300];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static int setup(void **state)
{
    (void)state;
    pjsim_options o;
    tt_err err = {0};
    pjsim_options_default(&o);
    o.pj_w = PW;
    o.pj_h = PH;
    o.pj_f = 1750.0 * PW / 1280;
    o.seed = 9;
    snprintf(dir, sizeof dir, "/tmp/tt_pjcli_XXXXXX");
    if (!mkdtemp(dir) || pjsim_create(&o, &sim, &err) != TT_OK)
        return -1;
    mkdir(tp("caps"), 0777);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (strncmp(dir, "/tmp/tt_pjcli_", 14) == 0 && system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    pjsim_destroy(sim);
    return 0;
}

static void write_file(const char *path, const char *text);

static void test_patterns_and_solve(void **state)
{
    (void)state;
    tt_err err = {0};
    char wbuf[16], hbuf[16];
    snprintf(wbuf, sizeof wbuf, "%d", PW);
    snprintf(hbuf, sizeof hbuf, "%d", PH);
    char *a1[] = {TT_BIN, "calib", "projector", "--rig", sim->rig_path, "--width", wbuf, "--height", hbuf,
                  "--patterns-out", (char *)tp("patterns"), NULL};
    run_result r = run_cmd(a1, NULL);
    if (r.status != 0)
        fail_msg("patterns: exit %d: %s", r.status, r.err);
    run_free(&r);
    int n = calib_projector_pattern_count(PW, PH);
    for (int i = 0; i < n; i++) {
        calib_projector_pattern info;
        char src[400], dst[400];
        tt_image pat = {0}, cap = {0};
        assert_int_equal(calib_projector_pattern_info(PW, PH, i, &info, &err), TT_OK);
        snprintf(src, sizeof src, "%s/patterns/%s", dir, info.name);
        snprintf(dst, sizeof dst, "%s/caps/%s", dir, info.name);
        if (cvw_image_read(src, 1, &pat, &err) != TT_OK)
            fail_msg("%s", err.msg);
        assert_int_equal(pat.width, PW);
        assert_int_equal(pat.height, PH);
        assert_int_equal(pjsim_capture(sim, &pat, &cap, &err), TT_OK);
        assert_int_equal(cvw_image_write(dst, &cap, &err), TT_OK);
        tt_image_free(&pat);
        tt_image_free(&cap);
    }
    char *a2[] = {TT_BIN, "calib", "projector", "--rig", sim->rig_path, "--captures", (char *)tp("caps"), "--out",
                  (char *)tp("projector.json"), NULL};
    r = run_cmd(a2, NULL);
    if (r.status != 0)
        fail_msg("solve: exit %d: %s", r.status, r.err);
    print_message("%s", r.out);
    /* no --scenario: the plane map, and how to calibrate in 3D */
    assert_non_null(strstr(r.out, "model: plane"));
    assert_non_null(strstr(r.out, "will be offset"));
    assert_non_null(strstr(r.out, "--scenario"));
    assert_non_null(strstr(r.out, "(for the 72x48\" table)"));
    double px = -1, in = -1;
    const char *res = strstr(r.out, "residual: ");
    assert_non_null(res);
    assert_int_equal(sscanf(res, "residual: %lf projector px rms (max %*f px), %lf in", &px, &in), 2);
    assert_true(px >= 0 && px <= 0.5);
    assert_true(in >= 0 && in <= 0.03);
    run_free(&r);
    calib_projector *pj = NULL;
    if (calib_projector_load(tp("projector.json"), &pj, &err) != TT_OK)
        fail_msg("%s", err.msg);
    int w, h;
    calib_projector_size(pj, &w, &h);
    assert_int_equal(w, PW);
    assert_int_equal(h, PH);
    /* against the truth at the middle of the lit area */
    double xy[2] = {36, 24}, q[2], t[2];
    calib_projector_map(pj, xy, 1, q);
    assert_true(pjsim_truth(sim, 36, 24, t));
    assert_true(hypot(q[0] - t[0], q[1] - t[1]) < 0.3);
    /* it records the table it was made on ... */
    double tw = 0, td = 0;
    assert_true(calib_projector_table(pj, &tw, &td));
    assert_true(tw == 72 && td == 48);
    /* ... so the same map, said to be for a 36x24 table, is refused over
     * this 72x48 rig, with the reason */
    calib_projector_set_table(pj, 36, 24);
    assert_int_equal(calib_projector_save(pj, tp("pj36.json"), &err), TT_OK);
    calib_projector_destroy(pj);
    write_file(tp("empty.json"), "{\"ruleset\": \"thin-red-line\", \"table\": {\"width_in\": 72, \"depth_in\": 48},"
                                 " \"terrain\": [], \"figures\": [{\"id\": \"a\", \"x\": 10, \"y\": 10}]}\n");
    char *a3[] = {TT_BIN, "overlay", "--rig", sim->rig_path, "--projector", (char *)tp("pj36.json"), "--scenario",
                  (char *)tp("empty.json"), "--query", "{\"q\":\"command\",\"from\":\"a\"}", "--out",
                  (char *)tp("ov36.png"), NULL};
    r = run_cmd(a3, NULL);
    if (r.status != 1 || !strstr(r.err, "was calibrated on a 36x24\" table, but the rig's table is 72x48\""))
        fail_msg("overlay with another table's projector.json: exit %d: %s", r.status, r.err);
    assert_false(exists(tp("ov36.png")));
    run_free(&r);
}

static void expect_fail(const char *needle, const char *out)
{
    char *a[] = {TT_BIN, "calib", "projector", "--rig", sim->rig_path, "--captures", (char *)tp("caps"), "--out",
                 (char *)out, NULL};
    run_result r = run_cmd(a, NULL);
    if (r.status == 0 || !strstr(r.err, needle))
        fail_msg("expected failure with '%s', got exit %d: %s", needle, r.status, r.err);
    print_message("%s", r.err);
    run_free(&r);
    assert_false(exists(out));
}

static void test_bad_captures(void **state)
{
    (void)state;
    tt_err err = {0};
    calib_projector_pattern info;
    char path[400], keep[400];
    assert_int_equal(calib_projector_pattern_info(PW, PH, 7, &info, &err), TT_OK);
    snprintf(path, sizeof path, "%s/caps/%s", dir, info.name);
    snprintf(keep, sizeof keep, "%s/kept.png", dir);
    /* a photo missing */
    assert_int_equal(rename(path, keep), 0);
    expect_fail("missing photo", tp("out1.json"));
    assert_non_null(strstr(path, info.name));
    /* a photo at the wrong size */
    tt_image small = {0};
    assert_int_equal(tt_image_alloc(&small, 640, 480, 1, &err), TT_OK);
    assert_int_equal(cvw_image_write(path, &small, &err), TT_OK);
    tt_image_free(&small);
    expect_fail("640x480", tp("out2.json"));
    assert_int_equal(rename(keep, path), 0);
    /* an empty folder */
    mkdir(tp("empty"), 0777);
    char *a[] = {TT_BIN, "calib", "projector", "--rig", sim->rig_path, "--captures", (char *)tp("empty"), "--out",
                 (char *)tp("out3.json"), NULL};
    run_result r = run_cmd(a, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "no pattern photos"));
    run_free(&r);
    assert_false(exists(tp("out3.json")));
}

/* ---- --scenario: the projector in 3D ---- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* A scenario with the given terrain pieces (JSON array text). */
static void write_scenario(const char *path, const char *terrain)
{
    /* sized to the terrain: a fixed buffer could cut it short (and gcc -O3
     * says so, -Wformat-truncation, in the release build) */
#define SCENARIO_FMT                                                                                                   \
    "{\"title\": \"projector calibration\", \"ruleset\": \"thin-red-line\",\n"                                         \
    " \"table\": {\"width_in\": 72, \"depth_in\": 48},\n \"terrain\": %s,\n \"figures\": []}\n"
    int n = snprintf(NULL, 0, SCENARIO_FMT, terrain);
    assert_true(n > 0);
    char *text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(snprintf(text, (size_t)n + 1, SCENARIO_FMT, terrain), n);
#undef SCENARIO_FMT
    write_file(path, text);
    free(text);
}

/* A piece's polygon as JSON: [[x, y], ...]. */
static void polygon_json(const double *xy, int n, char *out, size_t cap)
{
    size_t k = (size_t)snprintf(out, cap, "[");
    for (int i = 0; i < n && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s[%.4f, %.4f]", i ? ", " : "", xy[2 * i], xy[2 * i + 1]);
    if (k < cap)
        snprintf(out + k, cap - k, "]");
}

static run_result solve_scenario(const pjsim *s, const char *caps, const char *scenario, const char *out)
{
    char *a[] = {TT_BIN, "calib", "projector", "--rig", (char *)s->rig_path, "--captures", (char *)caps, "--scenario",
                 (char *)scenario, "--out", (char *)out, NULL};
    return run_cmd(a, NULL);
}

/* A 3" box declared as a hill in the scenario, lit by the projector: the
 * CLI solves in 3D and its projector.json lands a blast on the box's top
 * within 2 px; a scenario without raised pieces keeps the plane and says
 * so; a declared piece out of the light is named. */
static void test_scenario_3d(void **state)
{
    (void)state;
    pjsim_options o;
    pjsim *s3 = NULL;
    tt_image *caps = NULL;
    int n = 0;
    tt_err err = {0};
    /* a 12" x 8" box, 3" high, with vertical sides; another piece far
     * from the projector's light */
    rnd_piece box = {{{24, 18}, {36, 18}, {36, 26}, {24, 26}}, 4, 3.0, 0, 160}, far_hill;
    pjsim_flat_hill(&far_hill, 64, 42, 4, 3, 2.0);
    pjsim_options_default(&o);
    o.pj_w = PW;
    o.pj_h = PH;
    o.pj_f = 1750.0 * PW / 1280;
    o.seed = 11;
    o.pieces = &box;
    o.npieces = 1;
    assert_int_equal(pjsim_create(&o, &s3, &err), TT_OK);
    assert_int_equal(pjsim_capture_all(s3, &caps, &n, &err), TT_OK);
    mkdir(tp("caps3"), 0777);
    for (int i = 0; i < n; i++) {
        calib_projector_pattern info;
        char dst[400];
        assert_int_equal(calib_projector_pattern_info(PW, PH, i, &info, &err), TT_OK);
        snprintf(dst, sizeof dst, "%s/caps3/%s", dir, info.name);
        assert_int_equal(cvw_image_write(dst, &caps[i], &err), TT_OK);
    }
    pjsim_captures_free(caps, n);
    char poly[2048], far_poly[2048], terrain[8192];
    polygon_json(&box.pts[0][0], box.npts, poly, sizeof poly);
    polygon_json(&far_hill.pts[0][0], far_hill.npts, far_poly, sizeof far_poly);

    /* the box declared: 3D */
    snprintf(terrain, sizeof terrain, "[{\"id\": \"box\", \"kind\": \"hill\", \"height_in\": 3, \"polygon\": %s}]",
             poly);
    write_scenario(tp("box.json"), terrain);
    run_result r = solve_scenario(s3, tp("caps3"), tp("box.json"), tp("pj3.json"));
    if (r.status != 0)
        fail_msg("3D solve: exit %d: %s", r.status, r.err);
    print_message("%s", r.out);
    assert_non_null(strstr(r.out, "model: 3D pinhole"));
    assert_non_null(strstr(r.out, "box (3 in)"));
    assert_null(strstr(r.out, "will be offset"));
    run_free(&r);
    calib_projector *pj = NULL;
    if (calib_projector_load(tp("pj3.json"), &pj, &err) != TT_OK)
        fail_msg("%s", err.msg);
    assert_true(calib_projector_is_3d(pj));
    double top[3] = {30, 22, 3}, felt[3] = {44, 28, 0}, q[2], t[2];
    calib_projector_map3(pj, top, 1, q);
    assert_true(pjsim_truth3(s3, 30, 22, 3, t));
    print_message("blast on the box: %.3f px from the truth\n", hypot(q[0] - t[0], q[1] - t[1]));
    assert_true(hypot(q[0] - t[0], q[1] - t[1]) <= 2.0);
    calib_projector_map3(pj, felt, 1, q);
    assert_true(pjsim_truth3(s3, 44, 28, 0, t));
    assert_true(hypot(q[0] - t[0], q[1] - t[1]) <= 2.0);
    calib_projector_destroy(pj);

    /* a scenario without raised pieces: the plane, and the message */
    write_scenario(tp("flat.json"), "[{\"id\": \"wood\", \"kind\": \"woods\", \"polygon\": [[4, 4], [14, 4], [14, 12], "
                                    "[4, 12]]}]");
    r = solve_scenario(s3, tp("caps3"), tp("flat.json"), tp("pjflat.json"));
    if (r.status != 0)
        fail_msg("flat solve: exit %d: %s", r.status, r.err);
    assert_non_null(strstr(r.out, "model: plane (the felt only): the scenario has no raised pieces"));
    assert_non_null(strstr(r.out, "will be offset"));
    run_free(&r);
    assert_int_equal(calib_projector_load(tp("pjflat.json"), &pj, &err), TT_OK);
    assert_false(calib_projector_is_3d(pj));
    calib_projector_destroy(pj);

    /* a second raised piece out of the projector's light: named */
    snprintf(terrain, sizeof terrain,
             "[{\"id\": \"box\", \"kind\": \"hill\", \"height_in\": 3, \"polygon\": %s},\n"
             " {\"id\": \"far-knoll\", \"kind\": \"hill\", \"height_in\": 2, \"polygon\": %s}]",
             poly, far_poly);
    write_scenario(tp("two.json"), terrain);
    r = solve_scenario(s3, tp("caps3"), tp("two.json"), tp("pjtwo.json"));
    print_message("%s", r.err);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "\"far-knoll\""));
    assert_non_null(strstr(r.err, "not seen lit"));
    run_free(&r);
    assert_false(exists(tp("pjtwo.json")));

    /* --scenario goes with the solve, not with writing patterns */
    char *a[] = {TT_BIN, "calib", "projector", "--rig", sim->rig_path, "--width", "640", "--height", "400",
                 "--patterns-out", (char *)tp("p2"), "--scenario", (char *)tp("box.json"), NULL};
    r = run_cmd(a, NULL);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "--scenario"));
    run_free(&r);
    pjsim_destroy(s3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_patterns_and_solve),
        cmocka_unit_test(test_bad_captures),
        cmocka_unit_test(test_scenario_3d),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
