/* cmd_locate.c - 'tabletrack locate': figures on the table, in inches,
 * from one camera image and the rig. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "cli.h"
#include "cvwrap.h"
#include "vision.h"

static const char *USAGE = "tabletrack locate --rig RIG [--decimate D] [--refine-edges 0|1] [--threads N] IMAGE";

int cmd_locate(int argc, char **argv)
{
    const char *rigpath = NULL, *image = NULL;
    vision_detector_opts o;
    tt_err err = {0};
    calib_rig *rig = NULL;
    vision_detector *det = NULL;
    tt_image im = {0};
    vision_detections ds = {0};
    calib_pose pose;
    calib_figure *figs = NULL;
    int nfigs = 0, rc = 1;

    vision_detector_opts_default(&o);
    for (int i = 1; i < argc;) {
        const char *bad = NULL;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: %s\n", USAGE);
            return 0;
        }
        if (!strcmp(argv[i], "--rig")) {
            if (i + 1 >= argc)
                return cli_usage("locate", USAGE, "--rig needs a file");
            rigpath = argv[i + 1];
            i += 2;
            continue;
        }
        if (!strcmp(argv[i], "--family"))
            return cli_usage("locate", USAGE, "the rig file names the tag families");
        int k = cli_detector_opt(argc, argv, i, &o, &bad);
        if (k < 0)
            return cli_usage("locate", USAGE, "bad or missing value for %s", bad);
        if (k > 0) {
            i += k;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1])
            return cli_usage("locate", USAGE, "unknown option %s", argv[i]);
        if (image)
            return cli_usage("locate", USAGE, "only one IMAGE, got '%s' and '%s'", image, argv[i]);
        image = argv[i++];
    }
    if (!rigpath)
        return cli_usage("locate", USAGE, "no --rig given");
    if (!image)
        return cli_usage("locate", USAGE, "no IMAGE given");

    if (calib_rig_load(rigpath, &rig, &err) != TT_OK)
        goto fail;
    calib_rig_detector_opts(rig, &o);
    if (cvw_image_read(image, 1, &im, &err) != TT_OK || calib_rig_check_image(rig, im.width, im.height, &err) != TT_OK ||
        vision_detector_create(&o, &det, &err) != TT_OK || vision_detect(det, &im, &ds, &err) != TT_OK ||
        calib_pose_solve(rig, &ds, &pose, &err) != TT_OK || calib_locate(rig, &pose, &ds, &figs, &nfigs, &err) != TT_OK)
        goto fail;

    printf("{\"figures\":[");
    for (int i = 0; i < nfigs; i++)
        printf("%s{\"family\":\"%s\",\"id\":%d,\"x\":%.4f,\"y\":%.4f,\"facing_deg\":%.2f}", i ? "," : "",
               figs[i].family, figs[i].id, figs[i].x, figs[i].y, figs[i].facing_deg);
    printf("],\"anchors_used\":%d,\"reprojection_rms_px\":%.3f}\n", pose.anchors_used, pose.rms_px);
    rc = fflush(stdout) == 0 ? 0 : 1;
    goto done;
fail:
    rc = cli_fail("locate", &err);
done:
    free(figs);
    vision_detections_free(&ds);
    tt_image_free(&im);
    vision_detector_destroy(det);
    calib_rig_destroy(rig);
    return rc;
}
