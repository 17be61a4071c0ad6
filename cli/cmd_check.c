/* cmd_check.c - 'tabletrack check': hold the rig against a real frame from
 * the camera before a game (calib/check.h): anchors, pose error, pixels per
 * cell over the table, the smallest tag read everywhere, advice. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "cli.h"
#include "cvwrap.h"
#include "vision.h"

static void check__print_json(const calib_check_report *r)
{
    json_t *figs = json_array(), *adv = json_array();
    for (int i = 0; i < r->nfigures; i++) {
        const calib_check_figure *f = &r->figures[i];
        json_array_append_new(figs, json_pack("{s:s, s:i, s:f, s:f, s:f}", "family", f->family, "id", f->id, "x",
                                              round(f->x * 1e3) / 1e3, "y", round(f->y * 1e3) / 1e3, "px_per_cell",
                                              round(f->px_per_cell * 100) / 100));
    }
    for (int i = 0; i < r->nadvice; i++)
        json_array_append_new(adv, json_string(r->advice[i]));
    json_t *o = json_pack("{s:b, s:i, s:i, s:f, s:f, s:f, s:[f,f], s:f, s:f, s:f, s:f, s:o, s:i, s:o}", "ok", r->ok,
                          "anchors_seen", r->anchors_seen, "anchors_total", r->anchors_total, "reprojection_rms_px",
                          round(r->reprojection_rms_px * 1e3) / 1e3, "reprojection_rms_in",
                          round(r->reprojection_rms_in * 1e4) / 1e4, "min_px_per_cell",
                          round(r->min_px_per_cell * 100) / 100, "min_at", round(r->min_at[0] * 100) / 100,
                          round(r->min_at[1] * 100) / 100, "max_px_per_cell", round(r->max_px_per_cell * 100) / 100,
                          "limit_px_per_cell", CALIB_MIN_PX_PER_CELL, "smallest_tag_in",
                          round(r->smallest_tag_in * 100) / 100, "camera_height_in",
                          round(r->camera_height_in * 10) / 10, "figures", figs, "phantoms", r->phantoms, "advice", adv);
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
    printf("%s\n", s ? s : "{\"ok\":false,\"advice\":[\"out of memory\"]}");
    free(s);
    json_decref(o);
}

static void check__print_words(const calib_check_report *r, double size_in)
{
    printf("anchors: %d of %d seen; pose error %.2f px (%.3f\")\n", r->anchors_seen, r->anchors_total,
           r->reprojection_rms_px, r->reprojection_rms_in);
    printf("camera: %.0f\" above the felt\n", r->camera_height_in);
    printf("tags of %.2f\" (the rig's size_in): %.2f to %.2f px per cell over the table; the detector reads %.1f "
           "and more\n",
           size_in, r->min_px_per_cell, r->max_px_per_cell, CALIB_MIN_PX_PER_CELL);
    printf("worst spot: (%.1f, %.1f)\n", r->min_at[0], r->min_at[1]);
    if (r->figures_min >= 0) {
        const calib_check_figure *f = &r->figures[r->figures_min];
        printf("figure tags seen: %d; smallest %.2f px per cell: %s %d at (%.1f, %.1f)\n", r->nfigures,
               f->px_per_cell, f->family, f->id, f->x, f->y);
    } else
        printf("figure tags seen: none\n");
    if (r->phantoms)
        printf("not figures: %d detection(s) too weak to trust or beyond the table's edge (ignored)\n", r->phantoms);
    printf("smallest tag read everywhere on this table: %.2f\"\n", r->smallest_tag_in);
    if (r->ok)
        printf("ready: every spot of the table is readable\n");
    else {
        printf("NOT READY: tags near (%.0f, %.0f) are too small for this camera (%.2f px per cell, %.1f needed):\n",
               r->min_at[0], r->min_at[1], r->min_px_per_cell, CALIB_MIN_PX_PER_CELL);
        for (int i = 0; i < r->nadvice; i++)
            printf("  - %s\n", r->advice[i]);
    }
}

int cmd_check(int argc, char **argv)
{
    const char *rigpath = NULL, *image = NULL, *images[CALIB_MAX_CAMERAS + 1] = {NULL};
    int nimages = 0;
    int json = 0, rc = 1;
    tt_err err = {0};
    calib_rig *rig = NULL;
    vision_detector *det = NULL;
    vision_detector_opts o;
    tt_image im = {0};
    vision_detections ds = {0};
    calib_pose pose;
    calib_check_report r = {0};

    const cli_spec *S = &cli_spec_check;
    cli_args args;
    const char *name, *val;
    int k;
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
        } else if (!strcmp(name, "--json")) {
            json = 1;
        }
    }
    if (!rigpath)
        return cli_spec_usage(S, "no --rig given (the rig file: table, anchors, camera.yaml)");
    if (!image)
        return cli_spec_usage(S, "no IMAGE given (a frame from the camera, as it will watch the game)");

    /* full resolution: the truest count of what this camera can read */
    vision_detector_opts_default(&o);
    o.decimate = 1;
    if (calib_rig_load(rigpath, &rig, &err) != TT_OK || calib_rig_check_frames(rig, nimages, &err) != TT_OK)
        goto fail;
    if (rig->ncameras > 1) { /* several cameras, one table */
        rc = cli_check_cams(rig, images, json);
        goto done;
    }
    calib_rig_detector_opts(rig, &o);
    if (cvw_image_read(image, 1, &im, &err) != TT_OK || calib_rig_check_image(rig, im.width, im.height, &err) != TT_OK ||
        vision_detector_create(&o, &det, &err) != TT_OK || vision_detect(det, &im, &ds, &err) != TT_OK ||
        calib_pose_solve(rig, &ds, &pose, &err) != TT_OK || calib_check(rig, &pose, &ds, &r, &err) != TT_OK)
        goto fail;
    if (json)
        check__print_json(&r);
    else
        check__print_words(&r, rig->base_size_in);
    rc = fflush(stdout) == 0 && r.ok ? 0 : 1;
    goto done;
fail:
    rc = cli_fail("check", &err);
done:
    calib_check_report_free(&r);
    vision_detections_free(&ds);
    tt_image_free(&im);
    vision_detector_destroy(det);
    calib_rig_destroy(rig);
    return rc;
}
