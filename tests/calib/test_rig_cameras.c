/* test_rig_cameras.c - a rig with several cameras (issue 31): "cameras":
 * [{"camera": "left.yaml", "source": "usb:A"}, ...] loads in order, each
 * with its own source; the single "camera" form still loads; both forms at
 * once, an empty list, an entry without "camera" and two cameras given one
 * source are refused, saying what to do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib.h"
#include "rig_text.h"

static char tmpdir[256];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tt_rig_cams_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    char p[600];
    snprintf(p, sizeof p, "%s/rig.json", tmpdir);
    unlink(p);
    return rmdir(tmpdir);
}

#define CAM TT_SAMPLE_CAMERA
#define RIG_TABLE "{\"table\": {\"width_in\": 144, \"depth_in\": 72},\n"
#define RIG_REST                                                                                                       \
    " \"anchors\": [{\"id\": 0, \"x\": 2.5, \"y\": 2.5, \"size_in\": 2.4},\n"                                          \
    "             {\"id\": 1, \"x\": 141.5, \"y\": 2.5, \"size_in\": 2.4},\n"                                          \
    "             {\"id\": 2, \"x\": 72, \"y\": 69.5, \"size_in\": 2.4}],\n"                                           \
    " \"bases\": {\"size_in\": 0.8, \"height_mm\": 3.0}}\n"

static tt_status load_text(const char *text, calib_rig **rig, tt_err *err)
{
    return rig_text_load(tmpdir, text, rig, err);
}

static void refused(const char *text, const char *want1, const char *want2)
{
    tt_err err = {0};
    assert_int_not_equal(rig_text_refused(tmpdir, text, want1, want2, &err), TT_OK);
}

static void test_two_cameras_in_order(void **state)
{
    (void)state;
    calib_rig *rig = NULL;
    tt_err err = {0};
    const char *text = RIG_TABLE " \"cameras\": [{\"camera\": \"" CAM "\", \"source\": \"usb:LEFT1\"},\n"
                                 "              {\"camera\": \"" CAM "\", \"source\": \"usb:RIGHT2\"}],\n" RIG_REST;
    if (load_text(text, &rig, &err) != TT_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(rig->ncameras, 2);
    assert_string_equal(rig->cameras[0].source, "usb:LEFT1");
    assert_string_equal(rig->cameras[1].source, "usb:RIGHT2");
    assert_non_null(strstr(rig->cameras[1].name, "camera 2"));
    assert_true(rig->cameras[1].camera.width > 0);
    assert_int_equal(rig->camera.width, rig->cameras[0].camera.width);

    calib_rig view;
    calib_rig_view(rig, 1, &view);
    assert_int_equal(view.ncameras, 1);
    assert_string_equal(view.cameras[0].source, "usb:RIGHT2");
    assert_ptr_equal(view.anchors, rig->anchors);
    calib_rig_destroy(rig);
}

static void test_single_camera_form(void **state)
{
    (void)state;
    calib_rig *rig = NULL;
    tt_err err = {0};
    if (load_text(RIG_TABLE " \"camera\": \"" CAM "\",\n" RIG_REST, &rig, &err) != TT_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(rig->ncameras, 1);
    assert_string_equal(rig->cameras[0].path, rig->camera_path);
    assert_string_equal(rig->cameras[0].source, "");
    calib_rig_destroy(rig);
}

static void test_bad_cameras(void **state)
{
    (void)state;
    refused(RIG_TABLE " \"cameras\": [{\"camera\": \"" CAM "\", \"source\": \"usb:SAME\"},\n"
                      "              {\"camera\": \"" CAM "\", \"source\": \"usb:SAME\"}],\n" RIG_REST,
            "camera 1 (" CAM ") and camera 2 (" CAM ") are both given the source \"usb:SAME\"",
            "each camera needs its own source");
    refused(RIG_TABLE " \"camera\": \"" CAM "\", \"cameras\": [{\"camera\": \"" CAM "\"}],\n" RIG_REST,
            "either \"camera\" (one camera) or \"cameras\" (several)", NULL);
    refused(RIG_TABLE " \"cameras\": [],\n" RIG_REST, "\"cameras\" must be a list of 1 to", NULL);
    refused(RIG_TABLE " \"cameras\": [{\"source\": \"usb:A\"}],\n" RIG_REST, "cameras[0]: missing \"camera\"", NULL);
    refused(RIG_TABLE " \"cameras\": [{\"camera\": \"" CAM "\", \"sorce\": \"usb:A\"}],\n" RIG_REST,
            "unknown key \"sorce\"", "did you mean \"source\"?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_two_cameras_in_order, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_single_camera_form, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_bad_cameras, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests_name("calib_rig_cameras", tests, NULL, NULL);
}
