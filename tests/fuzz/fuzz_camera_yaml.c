/* fuzz_camera_yaml.c - libFuzzer harness: bytes as camera.yaml ->
 * cvw_camera_read (the size and nesting checks, then OpenCV's reader and
 * the matrix checks).  Whatever it accepts must be finite and sane. */
#include <math.h>
#include <stdlib.h>

#include "cvwrap.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fuzz_file("camera.yaml", data, size);
    if (!p)
        return 0;
    cvw_camera cam;
    tt_err err = {0};
    if (cvw_camera_read(p, &cam, &err) == TT_OK) {
        if (cam.width <= 0 || cam.height <= 0 || !(cam.K[0] > 0) || cam.ndist < 0 || cam.ndist > 14)
            abort();
        for (int i = 0; i < 9; i++)
            if (!isfinite(cam.K[i]))
                abort();
        for (int i = 0; i < cam.ndist; i++)
            if (!isfinite(cam.dist[i]))
                abort();
    }
    return 0;
}
