/* cmd_locate.c - 'tabletrack locate': figures on the table, in inches,
 * from one camera image and the rig. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "phantom.h"
#include "scale.h"
#include "cli.h"
#include "cvwrap.h"
#include "vision.h"

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
    int nfigs = 0, rc = 1, rescale = 1;

    const cli_spec *S = &cli_spec_locate;
    cli_args args;
    const char *name, *val;
    int k;
    vision_detector_opts_default(&o);
    cli_args_init(&args, S, argc, argv);
    while ((k = cli_args_next(&args, &name, &val)) != CLI_END) {
        if (k == CLI_STOP)
            return args.rc;
        if (k == CLI_POSITIONAL) {
            if (image)
                return cli_spec_usage(S, "only one IMAGE, got '%s' and '%s'", image, val);
            image = val;
        } else if (!strcmp(name, "--rig")) {
            rigpath = val;
        } else if (cli_detector_apply(name, val, &o) < 0) {
            return cli_spec_usage(S, "bad value for %s: '%s'", name, val);
        } else if (!strcmp(name, "--decimate")) {
            rescale = 0; /* an explicit scale: used as given */
        }
    }
    if (!rigpath)
        return cli_spec_usage(S, "no --rig given (the rig file: table, anchors, camera.yaml)");
    if (!image)
        return cli_spec_usage(S, "no IMAGE given");

    if (calib_rig_load(rigpath, &rig, &err) != TT_OK)
        goto fail;
    calib_rig_detector_opts(rig, &o);
    if (cvw_image_read(image, 1, &im, &err) != TT_OK || calib_rig_check_image(rig, im.width, im.height, &err) != TT_OK ||
        vision_detector_create(&o, &det, &err) != TT_OK ||
        calib_detect(rig, det, &im, rescale && o.decimate > 1, &ds, &pose, NULL, &err) != TT_OK ||
        calib_locate(rig, &pose, &ds, &figs, &nfigs, &err) != TT_OK)
        goto fail;
    calib_drop_phantoms(rig, &ds, figs, &nfigs); /* noise decodes, tags off the table */

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
