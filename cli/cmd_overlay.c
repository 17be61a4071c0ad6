/* cmd_overlay.c - 'tabletrack overlay': draw rules answers as the projector
 * image (PNG and/or a fullscreen window), or over a camera frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "cli.h"
#include "cvwrap.h"
#include "overlay.h"
#include "projector.h"
#include "tt_json.h"
#include "vision.h"
#ifdef TT_HAVE_RULES
#include "overlay_rules.h"
#endif

#define CMD "overlay"
#define MAX_QUERIES 256

#ifdef TT_HAVE_RULES
/* Camera pose from the anchors in the frame. */
static tt_status overlay__pose(const calib_rig *rig, const tt_image *frame, calib_pose *pose, tt_err *err)
{
    vision_detector_opts o;
    vision_detector *det = NULL;
    vision_detections ds = {0};
    tt_image gray = {0};
    tt_status st = TT_OK;
    const tt_image *g = frame;
    if (frame->channels != 1) {
        if ((st = tt_image_alloc(&gray, frame->width, frame->height, 1, err)) != TT_OK)
            return st;
        for (int y = 0; y < frame->height; y++)
            for (int x = 0; x < frame->width; x++) {
                const uint8_t *p = frame->data + (size_t)y * frame->stride + (size_t)x * frame->channels;
                gray.data[(size_t)y * gray.stride + x] = (uint8_t)((29 * p[0] + 150 * p[1] + 77 * p[2] + 128) >> 8);
            }
        g = &gray;
    }
    vision_detector_opts_default(&o);
    calib_rig_detector_opts(rig, &o);
    if ((st = vision_detector_create(&o, &det, err)) == TT_OK && (st = vision_detect(det, g, &ds, err)) == TT_OK)
        st = calib_pose_solve(rig, &ds, pose, err);
    vision_detections_free(&ds);
    vision_detector_destroy(det);
    tt_image_free(&gray);
    return st;
}
#endif

int cmd_overlay(int argc, char **argv)
{
    const char *rigpath = NULL, *pjpath = NULL, *scenario = NULL, *out = NULL, *on_camera = NULL,
               *display = NULL;
    const char *queries[MAX_QUERIES];
    int nq = 0, window = 0, hold_ms = -1, cite = 0;

    const cli_spec *S = &cli_spec_overlay;
    cli_args args;
    const char *a, *v;
    int k;
    cli_args_init(&args, S, argc, argv);
    while ((k = cli_args_next(&args, &a, &v)) != CLI_END) {
        if (k == CLI_STOP)
            return args.rc;
        if (k == CLI_POSITIONAL)
            return cli_spec_usage(S, "unexpected argument '%s'", v);
        if (!strcmp(a, "--window")) {
            window = 1;
            display = v;
        } else if (!strcmp(a, "--rig"))
            rigpath = v;
        else if (!strcmp(a, "--projector"))
            pjpath = v;
        else if (!strcmp(a, "--scenario"))
            scenario = v;
        else if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--on-camera"))
            on_camera = v;
        else if (!strcmp(a, "--cite"))
            cite = 1;
        else if (!strcmp(a, "--hold-ms")) {
            if (!cli_int(v, 0, 86400000, &hold_ms))
                return cli_spec_usage(S, "--hold-ms must be milliseconds (got '%s')", v);
        } else {
            if (nq >= MAX_QUERIES)
                return cli_spec_usage(S, "at most %d queries", MAX_QUERIES);
            queries[nq++] = v;
        }
    }
    if (!rigpath)
        return cli_spec_usage(S, "no --rig given");
    if (!scenario)
        return cli_spec_usage(S, "no --scenario given (the scenario file the queries are about)");
    if (nq == 0)
        return cli_spec_usage(S, "no --query given (e.g. --query '{\"q\":\"grape\",\"from\":\"gun1\"}')");
    if (on_camera && window)
        return cli_spec_usage(S, "--window shows the projector image; it does not go with --on-camera");
    if (!on_camera && !pjpath)
        return cli_spec_usage(S, "no --projector given (projector.json from 'tabletrack calib projector')");
    if (!out && !window)
        return cli_spec_usage(S, "say where the image goes: --out FILE.png and/or --window [DISPLAY]");
    if (on_camera && !out)
        return cli_spec_usage(S, "--on-camera needs --out view.png");

#ifndef TT_HAVE_RULES
    (void)display;
    (void)hold_ms;
    (void)cite;
    (void)queries;
    fprintf(stderr, "tabletrack overlay: this build has no rules engine (rules/), so there are no answers to draw\n");
    return 1;
#else
    tt_err err = {0};
    calib_rig *rig = NULL;
    calib_projector *pj = NULL;
    overlay_scene *sc = NULL;
    overlay_list *l = NULL;
    json_t *qs[MAX_QUERIES] = {0};
    cairo_surface_t *surf = NULL;
    tt_image frame = {0};
    int rc = 1;
    const char *env = getenv("TABLETRACK_DATA");
    const char *dirs[] = {env && env[0] ? env : TT_SOURCE_DIR, TT_SOURCE_DIR, NULL};

    if (calib_rig_load(rigpath, &rig, &err) != TT_OK)
        goto fail;
    if (pjpath && (calib_projector_load(pjpath, &pj, &err) != TT_OK ||
                   calib_projector_check_rig(pj, rig, pjpath, &err) != TT_OK))
        goto fail;
    for (int i = 0; i < nq; i++) {
        char what[32];
        snprintf(what, sizeof what, "--query %d", i + 1);
        if (tt_json_parse(queries[i], what, &qs[i], &err) != TT_OK)
            goto fail;
        if (!json_is_object(qs[i])) {
            tt_err_set(&err, TT_ERR_FORMAT, "--query %d must be a JSON object like {\"q\":\"los\",\"from\":\"a\",\"to\":\"b\"}",
                       i + 1);
            goto fail;
        }
    }
    if (overlay_scene_load(scenario, dirs, &sc, &err) != TT_OK || overlay_list_create(&l, &err) != TT_OK)
        goto fail;
    overlay_scene_set_cite(sc, cite);
    /* every answer first: nothing is written if any query is bad */
    for (int i = 0; i < nq; i++) {
        json_t *ans = NULL;
        if (overlay_scene_query(sc, qs[i], l, &ans, &err) != TT_OK) {
            tt_err_prefix(&err, "--query %d", i + 1);
            goto fail;
        }
        char *s = json_dumps(ans, TT_JSON_ANSWER_FLAGS);
        if (s)
            printf("%s\n", s);
        free(s);
        json_decref(ans);
    }
    /* the projector's light never falls on a figure's tag */
    if (!on_camera && overlay_scene_mask_figures(sc, rig->base_size_in, rig->base_height_mm / 25.4, l, &err) != TT_OK)
        goto fail;
    overlay_mapper m;
    overlay_camera_map cam_state;
    if (on_camera) {
        calib_pose pose;
        if (cvw_image_read(on_camera, 3, &frame, &err) != TT_OK ||
            calib_rig_check_image(rig, frame.width, frame.height, &err) != TT_OK ||
            overlay__pose(rig, &frame, &pose, &err) != TT_OK) {
            tt_err_prefix(&err, "%s", on_camera);
            goto fail;
        }
        /* each mark at the height of the scenario's ground under it, as
         * the projector draws it */
        tt_ground ground = {overlay_scene_ground_in, sc};
        overlay_mapper_camera_ground(&m, &cam_state, &rig->camera, &pose, &ground);
        if (overlay_render_on_image(l, &m, &frame, &surf, &err) != TT_OK)
            goto fail;
    } else {
        /* each mark at the height of the scenario's ground under it (a
         * projector calibrated in 3D; a plane map draws on the felt) */
        tt_ground ground = {overlay_scene_ground_in, sc};
        overlay_projector_map pj_state;
        overlay_mapper_projector_ground(&m, &pj_state, pj, &ground);
        if (overlay_render(l, &m, &surf, &err) != TT_OK)
            goto fail;
    }
    if (out) {
        if (overlay_write_png(surf, out, &err) != TT_OK)
            goto fail;
        fprintf(stderr, "wrote %s (%dx%d, %d shapes)\n", out, m.width, m.height, overlay_list_count(l));
    }
    fflush(stdout);
    if (window && overlay_window_show(surf, display, hold_ms, &err) != TT_OK)
        goto fail;
    rc = fflush(stdout) == 0 ? 0 : 1;
    goto done;
fail:
    rc = cli_fail(CMD, &err);
done:
    for (int i = 0; i < nq; i++)
        json_decref(qs[i]);
    if (surf)
        cairo_surface_destroy(surf);
    tt_image_free(&frame);
    overlay_list_destroy(l);
    overlay_scene_destroy(sc);
    calib_projector_destroy(pj);
    calib_rig_destroy(rig);
    return rc;
#endif
}
