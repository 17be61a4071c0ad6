/* cmd_detect.c - 'tabletrack detect': AprilTags in one image, as JSON in
 * OpenCV's pixel convention. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cvwrap.h"
#include "vision.h"

static const char *USAGE =
    "tabletrack detect [--family NAME]... [--decimate D] [--refine-edges 0|1] [--threads N] IMAGE";

int cmd_detect(int argc, char **argv)
{
    vision_detector_opts o;
    const char *image = NULL;
    tt_err err = {0};
    vision_detector *det = NULL;
    tt_image im = {0};
    vision_detections ds = {0};
    int rc = 1;

    vision_detector_opts_default(&o);
    for (int i = 1; i < argc;) {
        const char *bad = NULL;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: %s\n", USAGE);
            return 0;
        }
        int k = cli_detector_opt(argc, argv, i, &o, &bad);
        if (k < 0)
            return cli_usage("detect", USAGE, "bad or missing value for %s", bad);
        if (k > 0) {
            i += k;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1])
            return cli_usage("detect", USAGE, "unknown option %s", argv[i]);
        if (image)
            return cli_usage("detect", USAGE, "only one IMAGE, got '%s' and '%s'", image, argv[i]);
        image = argv[i++];
    }
    if (!image)
        return cli_usage("detect", USAGE, "no IMAGE given");

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
