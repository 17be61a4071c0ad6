/* cmd_locate_cams.c - 'tabletrack locate --rig RIG A.png B.png' with a rig
 * of several cameras (issue 31): each frame's camera placed by the anchors
 * it sees, the figures of all fused into one table (calib/fuse.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "calib.h"
#include "cli.h"
#include "cvwrap.h"
#include "fuse.h"
#include "rules.h"
#include "vision.h"

#define LOCATE__CONFLICTS_NAMED 3 /* disagreeing figures named one by one; then a count */

/* cli_locate_print's JSON, with "cameras" (each camera's pose and its own
 * count) and each figure's "seen_by" (camera indices, rig order). */
static int locate__cams_json(FILE *out, const calib_rig *rig, const calib_fuse_result *r, const char *const *names,
                             const calib_pose *poses, const int *nseen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return 0;
    cli_locate_print(mem, 1, r->figs, names, r->n, &poses[0]);
    fclose(mem);
    json_t *root = json_loads(buf, 0, NULL), *figs = json_object_get(root, "figures"), *cams = json_array();
    free(buf);
    for (size_t i = 0; figs && i < json_array_size(figs) && (int)i < r->n; i++) {
        json_t *seen = json_array();
        for (int k = 0; k < rig->ncameras; k++)
            if (r->seen_by[i] >> k & 1u)
                json_array_append_new(seen, json_integer(k));
        json_object_set_new(json_array_get(figs, i), "seen_by", seen);
    }
    for (int k = 0; k < rig->ncameras; k++)
        json_array_append_new(cams, json_pack("{s:s, s:s, s:i, s:f, s:i}", "camera", rig->cameras[k].name, "source",
                                              rig->cameras[k].source, "anchors_used", poses[k].anchors_used,
                                              "reprojection_rms_px", poses[k].rms_px, "figures", nseen[k]));
    json_object_set_new(root, "cameras", cams);
    char *s = root ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9)) : NULL;
    json_decref(root);
    if (!s)
        return 0;
    fprintf(out, "%s\n", s);
    free(s);
    return 1;
}

int cli_locate_cams(const calib_rig *rig, const char *const *images, const rules_scenario *sc,
                    vision_detector_opts *o, int rescale, int json)
{
    tt_err err = {0};
    vision_detector *det = NULL;
    tt_image im = {0};
    vision_detections ds[CALIB_MAX_CAMERAS];
    calib_pose poses[CALIB_MAX_CAMERAS];
    calib_fuse_result r = {0};
    const char **names = NULL;
    int nseen[CALIB_MAX_CAMERAS] = {0}, rc = 1;
    memset(ds, 0, sizeof ds);
    calib_rig_detector_opts(rig, o);
    tt_ground ground = {rules_scenario_ground_in, sc};
    if (vision_detector_create(o, &det, &err) != TT_OK)
        goto fail;
    for (int k = 0; k < rig->ncameras; k++) {
        if (cvw_image_read(images[k], 1, &im, &err) != TT_OK ||
            calib_fuse_detect(rig, k, det, &im, rescale && o->decimate > 1, &ds[k], &poses[k], &err) != TT_OK)
            goto fail;
        tt_image_free(&im);
    }
    if (calib_fuse_locate(rig, ds, poses, sc ? &ground : NULL, &r, nseen, &err) != TT_OK)
        goto fail;
    for (int i = 0; i < r.nconflicts && i < LOCATE__CONFLICTS_NAMED; i++) {
        char msg[800];
        calib_fuse_conflict_message(rig, &r.conflicts[i], msg, sizeof msg);
        fprintf(stderr, "tabletrack locate: warning: %s\n", msg);
    }
    if (r.nconflicts > LOCATE__CONFLICTS_NAMED)
        fprintf(stderr, "tabletrack locate: warning: and %d more figure%s seen apart by two cameras\n",
                r.nconflicts - LOCATE__CONFLICTS_NAMED, r.nconflicts - LOCATE__CONFLICTS_NAMED == 1 ? "" : "s");
    if (!(names = calloc((size_t)r.n + 1, sizeof *names))) {
        tt_err_set(&err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int i = 0; i < r.n; i++)
        names[i] = sc ? rules_scenario_tag_figure(sc, r.figs[i].id) : NULL;
    if (json || !isatty(fileno(stdout))) {
        if (!locate__cams_json(stdout, rig, &r, names, poses, nseen)) {
            tt_err_set(&err, TT_ERR_NOMEM, "out of memory printing the figures");
            goto fail;
        }
    } else {
        cli_locate_print(stdout, 0, r.figs, names, r.n, &poses[0]);
        for (int k = 0; k < rig->ncameras; k++)
            printf("%s: %d figures, pose from %d anchors, %.3f px reprojection error\n", rig->cameras[k].name,
                   nseen[k], poses[k].anchors_used, poses[k].rms_px);
    }
    rc = fflush(stdout) == 0 ? 0 : 1;
    goto done;
fail:
    rc = cli_fail("locate", &err);
done:
    free(names);
    calib_fuse_result_free(&r);
    for (int k = 0; k < CALIB_MAX_CAMERAS; k++)
        vision_detections_free(&ds[k]);
    tt_image_free(&im);
    vision_detector_destroy(det);
    return rc;
}
