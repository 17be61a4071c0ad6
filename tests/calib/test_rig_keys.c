/* test_rig_keys.c - a rig file refuses keys it does not know, naming the
 * key, where it stands and the key meant ("camera_setings" used to be
 * ignored with exit 0, so the exposure was never locked; "widht_in" was
 * reported as a missing width_in).  Every known key still loads. */
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
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tt_rig_keys_XXXXXX");
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

/* The sample table's camera (in the repository), so a rig that passes the
 * key check also loads whole. */
#define RIG_HEAD "{\"table\": {\"width_in\": 72, \"depth_in\": 48},\n \"camera\": \"" TT_SAMPLE_CAMERA "\",\n"
#define RIG_ANCHORS                                                                                                    \
    " \"anchors\": [{\"family\": \"tag36h11\", \"id\": 0, \"x\": 2.5, \"y\": 2.5, \"size_in\": 2.4},\n"                \
    "             {\"family\": \"tag36h11\", \"id\": 1, \"x\": 69.5, \"y\": 2.5, \"size_in\": 2.4}],\n"
#define RIG_BASES " \"bases\": {\"families\": [\"tag36h11\"], \"size_in\": 0.8, \"height_mm\": 3.0}"

static tt_status load_text(const char *text, calib_rig **rig, tt_err *err)
{
    return rig_text_load(tmpdir, text, rig, err);
}

static void refused(const char *text, const char *want1, const char *want2)
{
    tt_err err = {0};
    assert_int_equal(rig_text_refused(tmpdir, text, want1, want2, &err), TT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "rig.json: unknown key"));
}

static void test_rig_every_key_loads(void **state)
{
    (void)state;
    calib_rig *rig = NULL;
    tt_err err = {0};
    const char *text = RIG_HEAD RIG_ANCHORS RIG_BASES ",\n"
                       " \"camera_settings\": {\"width\": 3840, \"height\": 2160, \"fps\": 30, \"mjpeg\": true,\n"
                       "  \"exposure\": 156, \"focus\": 0, \"white_balance\": 4600, \"gain\": 2}}\n";
    if (load_text(text, &rig, &err) != TT_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(rig->capture.exposure, 156);
    assert_int_equal(rig->capture.white_balance, 4600);
    assert_int_equal(rig->capture.gain, 2);
    calib_rig_destroy(rig);
}

static void test_rig_top_level_typo(void **state)
{
    (void)state;
    refused(RIG_HEAD RIG_ANCHORS RIG_BASES ",\n \"camera_setings\": {\"exposure\": 156}}\n",
            "unknown key \"camera_setings\" in rig (line 6, column 2)", "did you mean \"camera_settings\"?");
}

static void test_rig_table_typo(void **state)
{
    (void)state;
    /* not "missing width_in": the key is there, misspelt */
    refused("{\"table\": {\"widht_in\": 72, \"depth_in\": 48},\n \"camera\": \"camera.yaml\",\n" RIG_ANCHORS RIG_BASES
            "}\n",
            "unknown key \"widht_in\" in table (line 1, column 12)", "did you mean \"width_in\"?");
}

static void test_rig_nested_typos(void **state)
{
    (void)state;
    refused(RIG_HEAD
            " \"anchors\": [{\"family\": \"tag36h11\", \"id\": 0, \"x\": 2.5, \"y\": 2.5, \"size_in\": 2.4},\n"
            "             {\"family\": \"tag36h11\", \"id\": 1, \"x\": 69.5, \"y\": 2.5, \"sise_in\": 2.4}],\n"
            RIG_BASES "}\n",
            "unknown key \"sise_in\" in anchor (line 4, column", "did you mean \"size_in\"?");
    refused(RIG_HEAD RIG_ANCHORS " \"bases\": {\"families\": [\"tag36h11\"], \"size_in\": 0.8, \"hieght_mm\": 3.0}}\n",
            "unknown key \"hieght_mm\" in bases (line 5, column", "did you mean \"height_mm\"?");
    refused(RIG_HEAD RIG_ANCHORS RIG_BASES ",\n \"camera_settings\": {\"exposre\": 156}}\n",
            "unknown key \"exposre\" in camera_settings (line 6, column 22)", "did you mean \"exposure\"?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rig_every_key_loads, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rig_top_level_typo, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rig_table_typo, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rig_nested_typos, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests_name("calib_rig_keys", tests, NULL, NULL);
}
