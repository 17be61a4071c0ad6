/* cmd_locate.c - 'tabletrack locate': figures on the table, in inches,
 * from one camera image and the rig. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "calib.h"
#include "phantom.h"
#include "scale.h"
#include "cli.h"
#include "cvwrap.h"
#include "rules.h"
#include "vision.h"

#define LOCATE__WARN_BELOW 5 /* below-the-felt warnings named one by one; then a count */

/* The figure's name for messages and "name": the scenario's figure for its
 * tag, else "tag <id>" (name stays NULL). */
static const char *locate__name(const rules_scenario *sc, const calib_figure *f, char *buf, size_t cap)
{
    const char *n = sc ? rules_scenario_tag_figure(sc, f->id) : NULL;
    if (n)
        return n;
    snprintf(buf, cap, "tag %d", f->id);
    return buf;
}

/* Warnings on stderr: figures off the ground, tags measured below the felt. */
static void locate__warn(const calib_rig *rig, const rules_scenario *sc, const calib_figure *figs, int n)
{
    int below = 0;
    for (int i = 0; i < n; i++) {
        char nb[32], msg[512];
        const char *name = locate__name(sc, &figs[i], nb, sizeof nb);
        below += figs[i].height == CALIB_HEIGHT_BELOW;
        if (figs[i].height == CALIB_HEIGHT_BELOW && below > LOCATE__WARN_BELOW)
            continue;
        if (calib_height_warning(&figs[i], name, figs[i].z_in, sc != NULL, rig->base_size_in, msg, sizeof msg))
            fprintf(stderr, "tabletrack locate: %s\n", msg);
    }
    if (below > LOCATE__WARN_BELOW)
        fprintf(stderr, "tabletrack locate: %d more tags measure below the felt\n", below - LOCATE__WARN_BELOW);
}

int cmd_locate(int argc, char **argv)
{
    const char *rigpath = NULL, *image = NULL, *scenario = NULL, *images[CALIB_MAX_CAMERAS + 1] = {NULL};
    int nimages = 0;
    rules_scenario *sc = NULL;
    vision_detector_opts o;
    tt_err err = {0};
    calib_rig *rig = NULL;
    vision_detector *det = NULL;
    tt_image im = {0};
    vision_detections ds = {0};
    calib_pose pose;
    calib_figure *figs = NULL;
    int nfigs = 0, rc = 1, rescale = 1, json = 0;
    const char **names = NULL;

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
            if (nimages == CALIB_MAX_CAMERAS)
                return cli_spec_usage(S, "at most %d IMAGEs (one per camera of the rig), got more", CALIB_MAX_CAMERAS);
            if (!image)
                image = val;
            images[nimages++] = val;
        } else if (!strcmp(name, "--rig")) {
            rigpath = val;
        } else if (!strcmp(name, "--scenario")) {
            scenario = val;
        } else if (!strcmp(name, "--json")) {
            json = 1;
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

    const char *env = getenv("TABLETRACK_DATA");
    const char *dirs[] = {env && env[0] ? env : TT_SOURCE_DIR, TT_SOURCE_DIR, NULL};
    if (calib_rig_load(rigpath, &rig, &err) != TT_OK ||
        (scenario && rules_scenario_load(scenario, dirs, &sc, &err) != TT_OK))
        goto fail;
    if (calib_rig_check_frames(rig, nimages, &err) != TT_OK)
        goto fail;
    if (rig->ncameras > 1) { /* several cameras, one table */
        rc = cli_locate_cams(rig, images, sc, &o, rescale, json);
        goto done;
    }
    tt_ground ground = {rules_scenario_ground_in, sc};
    calib_rig_detector_opts(rig, &o);
    if (cvw_image_read(image, 1, &im, &err) != TT_OK || calib_rig_check_image(rig, im.width, im.height, &err) != TT_OK ||
        vision_detector_create(&o, &det, &err) != TT_OK ||
        calib_detect(rig, det, &im, rescale && o.decimate > 1, &ds, &pose, NULL, &err) != TT_OK ||
        calib_locate_ground(rig, &pose, &ds, sc ? &ground : NULL, &figs, &nfigs, &err) != TT_OK)
        goto fail;
    calib_drop_phantoms(rig, &ds, figs, &nfigs); /* noise decodes, tags off the table */
    double measured_size;
    if (calib_size_suspect(rig, &pose, figs, nfigs, &measured_size)) {
        char msg[TT_ERR_MSG_LEN];
        calib_size_message(rig, measured_size, msg, sizeof msg);
        tt_err_set(&err, TT_ERR_MISMATCH, "%s", msg);
        goto fail;
    }

    locate__warn(rig, sc, figs, nfigs);
    if (!(names = calloc((size_t)nfigs + 1, sizeof *names))) {
        tt_err_set(&err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int i = 0; i < nfigs; i++)
        names[i] = sc ? rules_scenario_tag_figure(sc, figs[i].id) : NULL;
    /* a table to read on a terminal, JSON for a program (or with --json) */
    cli_locate_print(stdout, json || !isatty(fileno(stdout)), figs, names, nfigs, &pose);
    rc = fflush(stdout) == 0 ? 0 : 1;
    goto done;
fail:
    rc = cli_fail("locate", &err);
done:
    free(names);
    free(figs);
    vision_detections_free(&ds);
    tt_image_free(&im);
    vision_detector_destroy(det);
    calib_rig_destroy(rig);
    rules_scenario_destroy(sc);
    return rc;
}
