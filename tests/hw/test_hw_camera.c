/* test_hw_camera.c - needs a real USB camera: lists it, opens it by serial,
 * locks its controls and reads frames.  Exits 77 (skipped) when there is
 * no camera, so it is safe everywhere; labelled "hw". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "usbcam.h"

int main(void)
{
    vision_usb_camera *cams = NULL;
    int n = 0;
    tt_err err = {0};
    if (vision_usb_cameras(&cams, &n, &err) != TT_OK || n == 0) {
        printf("no USB camera: skipped (%s)\n", err.msg[0] ? err.msg : "none plugged in");
        free(cams);
        return 77;
    }
    const vision_usb_camera *c = NULL;
    for (int i = 0; i < n && !c; i++)
        if (cams[i].dev[0])
            c = &cams[i];
    if (!c) {
        printf("USB camera without a /dev/video node: skipped\n");
        free(cams);
        return 77;
    }
    char spec[200];
    if (c->serial[0])
        snprintf(spec, sizeof spec, "usb:%s", c->serial);
    else
        snprintf(spec, sizeof spec, "%s", c->dev);
    vision_source *src = NULL;
    vision_source_opts o = {0, 0, 0, 1};
    if (vision_source_open(spec, &o, &src, &err) != TT_OK) {
        fprintf(stderr, "FAIL: cannot open %s: %s\n", spec, err.msg);
        free(cams);
        return 1;
    }
    vision_camera_controls ctl = {-1, -1, -1, -1};
    char skipped[128];
    if (vision_camera_lock(vision_source_device(src), &ctl, skipped, sizeof skipped, &err) != TT_OK) {
        fprintf(stderr, "FAIL: controls: %s\n", err.msg);
        return 1;
    }
    int frames = 0;
    for (int i = 0; i < 30; i++) {
        const tt_image *f;
        double t;
        vision_frame_status fs;
        if (vision_source_next(src, &f, &t, &fs, &err) != TT_OK) {
            fprintf(stderr, "FAIL: %s\n", err.msg);
            return 1;
        }
        if (fs == VISION_FRAME) {
            if (f->width <= 0 || f->height <= 0) {
                fprintf(stderr, "FAIL: empty frame\n");
                return 1;
            }
            frames++;
        }
    }
    vision_source_destroy(src);
    free(cams);
    printf("%d frames from %s\n", frames, spec);
    return frames > 0 ? 0 : 1;
}
