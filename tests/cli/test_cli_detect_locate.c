/* test_cli_detect_locate.c - the 'detect' and 'locate' commands as a user
 * runs them: output contracts and bad input (clear message on stderr,
 * non-zero exit, nothing on stdout). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cvwrap.h"
#include "run.h"

#define REAL TT_REAL_DIR "/34085369442_304b6bafd9_c.jpg"

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tt_cli_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *path_of(const char *name)
{
    static char p[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
    return p[k];
}

static void expect_failure(run_result *r, const char *needle)
{
    if (r->status != 1 || r->out[0] != '\0' || !strstr(r->err, needle))
        fail_msg("expected exit 1, empty stdout and '%s' on stderr; got exit %d, stdout '%.200s', stderr '%.300s'",
                 needle, r->status, r->out, r->err);
    run_free(r);
}

static void test_detect_contract(void **state)
{
    (void)state;
    char *argv[] = {TT_BIN, "detect", "--decimate", "1", "--refine-edges", "0", REAL, NULL};
    run_result r = run_cmd(argv, NULL);
    assert_int_equal(r.status, 0);
    json_error_t je;
    json_t *root = json_loads(r.out, 0, &je);
    assert_non_null(root);
    json_t *im = json_object_get(root, "image");
    assert_int_equal(json_array_size(im), 2);
    assert_int_equal(json_integer_value(json_array_get(im, 0)), 799);
    assert_int_equal(json_integer_value(json_array_get(im, 1)), 533);
    json_t *ds = json_object_get(root, "detections");
    assert_int_equal(json_array_size(ds), 25);
    for (size_t i = 0; i < json_array_size(ds); i++) {
        json_t *d = json_array_get(ds, i);
        assert_string_equal(json_string_value(json_object_get(d, "family")), "tag36h11");
        assert_true(json_is_integer(json_object_get(d, "id")));
        assert_int_equal(json_array_size(json_object_get(d, "center")), 2);
        json_t *c = json_object_get(d, "corners");
        assert_int_equal(json_array_size(c), 4);
        for (size_t k = 0; k < 4; k++)
            assert_int_equal(json_array_size(json_array_get(c, k)), 2);
        assert_true(json_is_integer(json_object_get(d, "hamming")));
        assert_true(json_is_number(json_object_get(d, "margin")));
    }
    json_decref(root);
    run_free(&r);
}

static void test_detect_bad_input(void **state)
{
    (void)state;
    char *a1[] = {TT_BIN, "detect", "/no/such/frame.png", NULL};
    run_result r = run_cmd(a1, NULL);
    expect_failure(&r, "/no/such/frame.png");

    write_file("corrupt.jpg", "\xff\xd8\xff\xe0 this is not really a jpeg");
    char *a2[] = {TT_BIN, "detect", path_of("corrupt.jpg"), NULL};
    r = run_cmd(a2, NULL);
    expect_failure(&r, "not a readable image");

    char *a3[] = {TT_BIN, "detect", "--family", "tag36h99", REAL, NULL};
    r = run_cmd(a3, NULL);
    expect_failure(&r, "unknown tag family 'tag36h99'");

    char *a4[] = {TT_BIN, "detect", "--decimate", "zero", REAL, NULL};
    r = run_cmd(a4, NULL);
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    run_free(&r);
}

/* A 799x533 camera.yaml for the real photo and a rig around it. */
static void write_rig(const char *anchor_ids_json)
{
    cvw_camera cam = {0};
    cam.width = 799;
    cam.height = 533;
    double K[9] = {700, 0, 399, 0, 700, 266, 0, 0, 1};
    memcpy(cam.K, K, sizeof K);
    cam.ndist = 5;
    assert_int_equal(cvw_camera_write(path_of("camera.yaml"), &cam, -1, NULL), TT_OK);
    char rig[2048];
    snprintf(rig, sizeof rig,
             "{\"table\": {\"width_in\": 72, \"depth_in\": 48},\n \"camera\": \"camera.yaml\",\n \"anchors\": %s,\n"
             " \"bases\": {\"families\": [\"tag36h11\"], \"size_in\": 0.8, \"height_mm\": 3.0}}\n",
             anchor_ids_json);
    write_file("rig.json", rig);
}

static void test_locate_bad_input(void **state)
{
    (void)state;
    write_rig("[{\"id\": 20, \"x\": 2.5, \"y\": 2.5, \"size_in\": 2.4}, {\"id\": 21, \"x\": 60, \"y\": 2.5, \"size_in\": 2.4},"
              " {\"id\": 22, \"x\": 60, \"y\": 40, \"size_in\": 2.4}]");
    /* The real photo holds only tag 0s: none of the anchors is visible. */
    char *a1[] = {TT_BIN, "locate", "--rig", path_of("rig.json"), REAL, NULL};
    run_result r = run_cmd(a1, NULL);
    expect_failure(&r, "not seen: tag36h11 20, tag36h11 21, tag36h11 22");

    /* Malformed JSON: line and column. */
    write_file("bad.json", "{\"table\": {\"width_in\": 72,\n \"depth_in\": }}");
    char *a2[] = {TT_BIN, "locate", "--rig", path_of("bad.json"), REAL, NULL};
    r = run_cmd(a2, NULL);
    expect_failure(&r, "line 2, column");

    /* Missing field. */
    write_file("nofield.json", "{\"table\": {\"width_in\": 72, \"depth_in\": 48}, \"camera\": \"camera.yaml\"}");
    char *a3[] = {TT_BIN, "locate", "--rig", path_of("nofield.json"), REAL, NULL};
    r = run_cmd(a3, NULL);
    expect_failure(&r, "missing \"anchors\"");

    /* camera.yaml for another resolution. */
    cvw_camera cam = {0};
    cam.width = 1920;
    cam.height = 1080;
    double K[9] = {1400, 0, 960, 0, 1400, 540, 0, 0, 1};
    memcpy(cam.K, K, sizeof K);
    cam.ndist = 5;
    assert_int_equal(cvw_camera_write(path_of("camera.yaml"), &cam, -1, NULL), TT_OK);
    r = run_cmd(a1, NULL);
    expect_failure(&r, "the image is 799x533 but");

    /* Missing image. */
    char *a4[] = {TT_BIN, "locate", "--rig", path_of("rig.json"), path_of("nothere.png"), NULL};
    r = run_cmd(a4, NULL);
    expect_failure(&r, "nothere.png");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect_contract),
        cmocka_unit_test_setup_teardown(test_detect_bad_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_locate_bad_input, setup, teardown),
    };
    return cmocka_run_group_tests_name("cli_detect_locate", tests, NULL, NULL);
}
