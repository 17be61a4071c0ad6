/* cmd_detect.c - 'tabletrack detect': AprilTags in one image, as JSON in
 * OpenCV's pixel convention. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cvwrap.h"
#include "vision.h"

int cmd_detect(int argc, char **argv)
{
    vision_detector_opts o;
    const char *image = NULL;
    tt_err err = {0};
    vision_detector *det = NULL;
    tt_image im = {0};
    vision_detections ds = {0};
    int rc = 1;

    const cli_spec *S = &cli_spec_detect;
    cli_args args;
    const char *name, *val;
    int k;
    vision_detector_opts_default(&o);
    o.auto_scale = 1; /* small tags found: look again at full resolution (vision.h) */
    cli_args_init(&args, S, argc, argv);
    while ((k = cli_args_next(&args, &name, &val)) != CLI_END) {
        if (k == CLI_STOP)
            return args.rc;
        if (k == CLI_POSITIONAL) {
            if (image)
                return cli_spec_usage(S, "only one IMAGE, got '%s' and '%s'", image, val);
            image = val;
        } else if (cli_detector_apply(name, val, &o) < 0) {
            return cli_spec_usage(S, "bad value for %s: '%s'", name, val);
        } else if (!strcmp(name, "--decimate")) {
            o.auto_scale = 0; /* an explicit scale: used as given */
        }
    }
    if (!image)
        return cli_spec_usage(S, "no IMAGE given");

    if (vision_detector_create(&o, &det, &err) != TT_OK || cvw_image_read(image, 1, &im, &err) != TT_OK ||
        vision_detect(det, &im, &ds, &err) != TT_OK) {
        rc = cli_fail("detect", &err);
        goto done;
    }
    printf("{\"image\":[%d,%d],\"detections\":[", im.width, im.height);
    for (int i = 0; i < ds.count; i++) {
        const vision_detection *d = &ds.items[i];
        printf("%s{\"family\":\"%s\",\"id\":%d,\"center\":[%.4f,%.4f],\"corners\":[", i ? "," : "", d->family, d->id,
               d->center[0], d->center[1]);
        for (int k = 0; k < 4; k++)
            printf("%s[%.4f,%.4f]", k ? "," : "", d->corners[k][0], d->corners[k][1]);
        printf("],\"hamming\":%d,\"margin\":%.2f}", d->hamming, d->margin);
    }
    printf("]}\n");
    rc = fflush(stdout) == 0 ? 0 : 1;
done:
    vision_detections_free(&ds);
    tt_image_free(&im);
    vision_detector_destroy(det);
    return rc;
}
