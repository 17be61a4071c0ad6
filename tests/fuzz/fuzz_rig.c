/* fuzz_rig.c - libFuzzer harness: bytes as rig.json -> calib_rig_load,
 * beside a valid camera.yaml (so rigs that name it get past the camera). */
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "fuzz_util.h"

static const char CAMERA[] = "%YAML:1.0\n---\nimage_width: 3840\nimage_height: 2160\n"
                             "camera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
                             "   data: [ 2900., 0., 1919.5, 0., 2900., 1079.5, 0., 0., 1. ]\n"
                             "distortion_coefficients: !!opencv-matrix\n   rows: 5\n   cols: 1\n   dt: d\n"
                             "   data: [ -0.08, 0.02, 0., 0., 0. ]\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int init;
    if (!init) {
        if (!fuzz_file("camera.yaml", (const uint8_t *)CAMERA, strlen(CAMERA)))
            abort();
        init = 1;
    }
    const char *p = fuzz_file("rig.json", data, size);
    if (!p)
        return 0;
    calib_rig *rig = NULL;
    tt_err err = {0};
    if (calib_rig_load(p, &rig, &err) == TT_OK && (rig->nanchors < 2 || !(rig->width_in > 0)))
        abort();
    calib_rig_destroy(rig);
    return 0;
}
