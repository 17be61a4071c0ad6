/* cmd_check_cams.c - 'tabletrack check --rig RIG A.png B.png' with a rig of
 * several cameras (issue 31): each camera's anchors, pose error and pixels
 * per cell over its part of the table, the coverage map, the gaps and the
 * overlaps, advice in words (calib/check_cams.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check_cams.h"
#include "cli.h"
#include "cvwrap.h"
#include "fuse.h"
#include "vision.h"

#define CHECK__MAP_CELL_IN 4.0 /* the coverage map's squares */

static double check__r(double v, double scale)
{
    return round(v * scale) / scale;
}

static json_t *check__cams_json(const calib_rig *rig, const calib_check_cams_report *r)
{
    json_t *cams = json_array(), *gaps = json_array(), *ovs = json_array(), *adv = json_array(), *map = json_array();
    for (int k = 0; k < r->ncams; k++) {
        const calib_check_camera *c = &r->cams[k];
        json_array_append_new(
            cams, json_pack("{s:s, s:s, s:i, s:s, s:i, s:f, s:f, s:f, s:f, s:[f,f], s:f, s:i, s:{s:f, s:f, s:f, s:f}}",
                            "camera", rig->cameras[k].name, "source", rig->cameras[k].source, "anchors_seen",
                            c->anchors_seen, "anchors", c->anchors, "anchors_total", rig->nanchors,
                            "reprojection_rms_px", check__r(c->reprojection_rms_px, 1e3), "reprojection_rms_in",
                            check__r(c->reprojection_rms_in, 1e4), "min_px_per_cell",
                            check__r(c->min_px_per_cell, 100), "max_px_per_cell", check__r(c->max_px_per_cell, 100),
                            "min_at", check__r(c->min_at[0], 100), check__r(c->min_at[1], 100), "camera_height_in",
                            check__r(c->camera_height_in, 10), "spots_read", c->spots, "part", "x0", c->part[0], "y0",
                            c->part[1], "x1", c->part[2], "y1", c->part[3]));
    }
    for (int g = 0; g < r->ngaps; g++)
        json_array_append_new(gaps, json_pack("{s:f, s:f, s:f, s:f}", "x0", r->gaps[g].x0, "y0", r->gaps[g].y0, "x1",
                                              r->gaps[g].x1, "y1", r->gaps[g].y1));
    for (int o = 0; o < r->noverlaps; o++)
        json_array_append_new(ovs, json_pack("{s:[i,i], s:f}", "cameras", r->overlaps[o].cam_a, r->overlaps[o].cam_b,
                                             "width_in", r->overlaps[o].width_in));
    for (int i = 0; i < r->nadvice; i++)
        json_array_append_new(adv, json_string(r->advice[i]));
    char rows[20000];
    int ncols = 0, nrows = calib_check_cams_map(r, CHECK__MAP_CELL_IN, rows, &ncols, sizeof rows);
    for (int R = 0; R < nrows; R++)
        json_array_append_new(map, json_string(&rows[R * (ncols + 1)]));
    return json_pack("{s:b, s:o, s:o, s:i, s:o, s:f, s:{s:f, s:o}, s:o}", "ok", r->ok, "cameras", cams, "gaps", gaps,
                     "more_gaps", r->more_gaps, "overlaps", ovs, "limit_px_per_cell", CALIB_MIN_PX_PER_CELL,
                     "coverage", "cell_in", CHECK__MAP_CELL_IN, "rows", map, "advice", adv);
}

static void check__cams_words(const calib_rig *rig, const calib_check_cams_report *r)
{
    for (int k = 0; k < r->ncams; k++) {
        const calib_check_camera *c = &r->cams[k];
        printf("%s: anchors %s (%d of %d); pose error %.2f px (%.3f\"); %.0f\" above the felt\n",
               rig->cameras[k].name, c->anchors_seen ? c->anchors : "none", c->anchors_seen, rig->nanchors, c->reprojection_rms_px,
               c->reprojection_rms_in, c->camera_height_in);
        if (c->spots)
            printf("  reads (%.0f, %.0f) to (%.0f, %.0f): %.2f to %.2f px per cell (worst at (%.0f, %.0f))\n",
                   c->part[0], c->part[1], c->part[2], c->part[3], c->min_px_per_cell, c->max_px_per_cell,
                   c->min_at[0], c->min_at[1]);
        else
            printf("  reads no spot of the table at %.1f px per cell\n", CALIB_MIN_PX_PER_CELL);
    }
    for (int o = 0; o < r->noverlaps; o++)
        printf("overlap of %s and %s: %.0f\" wide\n", rig->cameras[r->overlaps[o].cam_a].name,
               rig->cameras[r->overlaps[o].cam_b].name, r->overlaps[o].width_in);
    char rows[20000];
    int ncols = 0, nrows = calib_check_cams_map(r, CHECK__MAP_CELL_IN, rows, &ncols, sizeof rows);
    printf("coverage (one character per %.0f\" square, y = 0 at the top; 1, 2: that camera; +: both; #: none):\n",
           CHECK__MAP_CELL_IN);
    for (int R = 0; R < nrows; R++)
        printf("  %s\n", &rows[R * (ncols + 1)]);
    for (int g = 0; g < r->ngaps; g++)
        printf("GAP: no camera reads (%.1f, %.1f) to (%.1f, %.1f)\n", r->gaps[g].x0, r->gaps[g].y0, r->gaps[g].x1,
               r->gaps[g].y1);
    if (r->more_gaps)
        printf("GAP: and %d more\n", r->more_gaps);
    printf(r->ok ? "ready: every spot of the table is read by a camera\n" : "NOT READY:\n");
    for (int i = 0; i < r->nadvice; i++)
        printf("  - %s\n", r->advice[i]);
}

int cli_check_cams(const calib_rig *rig, const char *const *images, int json)
{
    tt_err err = {0};
    vision_detector *det = NULL;
    vision_detector_opts o;
    tt_image im = {0};
    vision_detections ds[CALIB_MAX_CAMERAS];
    calib_pose poses[CALIB_MAX_CAMERAS];
    calib_check_cams_report r = {0};
    int rc = 1;
    memset(ds, 0, sizeof ds);
    /* full resolution: the truest count of what each camera can read */
    vision_detector_opts_default(&o);
    o.decimate = 1;
    calib_rig_detector_opts(rig, &o);
    if (vision_detector_create(&o, &det, &err) != TT_OK)
        goto fail;
    for (int k = 0; k < rig->ncameras; k++) {
        if (cvw_image_read(images[k], 1, &im, &err) != TT_OK ||
            calib_fuse_detect(rig, k, det, &im, 0, &ds[k], &poses[k], &err) != TT_OK)
            goto fail;
        tt_image_free(&im);
    }
    if (calib_check_cams(rig, poses, ds, &r, &err) != TT_OK)
        goto fail;
    if (json) {
        json_t *o2 = check__cams_json(rig, &r);
        char *s = o2 ? json_dumps(o2, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9)) : NULL;
        printf("%s\n", s ? s : "{\"ok\":false,\"advice\":[\"out of memory\"]}");
        free(s);
        json_decref(o2);
    } else
        check__cams_words(rig, &r);
    rc = fflush(stdout) == 0 && r.ok ? 0 : 1;
    goto done;
fail:
    rc = cli_fail("check", &err);
done:
    calib_check_cams_free(&r);
    for (int k = 0; k < CALIB_MAX_CAMERAS; k++)
        vision_detections_free(&ds[k]);
    tt_image_free(&im);
    vision_detector_destroy(det);
    return rc;
}
