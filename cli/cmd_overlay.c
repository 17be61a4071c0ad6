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
#include "table_look.h"
#include "table_scene.h"
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

/* What the command line asked for: pjpath[i] is drawn into out[i]. */
typedef struct overlay__args {
    const char *rigpath, *scenario, *on_camera, *display;
    const char *pjpath[OVERLAY_MAX_PROJECTORS], *out[OVERLAY_MAX_PROJECTORS];
    const char *queries[MAX_QUERIES];
    int npj, nout, nq, window, hold_ms, cite;
} overlay__args;

/* The options into o; -1 when they are good, else the exit code. */
static int overlay__parse(int argc, char **argv, overlay__args *o)
{
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
            o->window = 1;
            o->display = v;
        } else if (!strcmp(a, "--rig"))
            o->rigpath = v;
        else if (!strcmp(a, "--projector")) {
            if (o->npj >= OVERLAY_MAX_PROJECTORS)
                return cli_spec_usage(S, "at most %d --projector", OVERLAY_MAX_PROJECTORS);
            o->pjpath[o->npj++] = v;
        } else if (!strcmp(a, "--scenario"))
            o->scenario = v;
        else if (!strcmp(a, "--out")) {
            if (o->nout >= OVERLAY_MAX_PROJECTORS)
                return cli_spec_usage(S, "at most %d --out (one per --projector)", OVERLAY_MAX_PROJECTORS);
            o->out[o->nout++] = v;
        }
        else if (!strcmp(a, "--on-camera"))
            o->on_camera = v;
        else if (!strcmp(a, "--cite"))
            o->cite = 1;
        else if (!strcmp(a, "--hold-ms")) {
            if (!cli_int(v, 0, 86400000, &o->hold_ms))
                return cli_spec_usage(S, "--hold-ms must be milliseconds (got '%s')", v);
        } else {
            if (o->nq >= MAX_QUERIES)
                return cli_spec_usage(S, "at most %d queries", MAX_QUERIES);
            o->queries[o->nq++] = v;
        }
    }
    if (!o->rigpath)
        return cli_spec_usage(S, "no --rig given");
    if (!o->scenario)
        return cli_spec_usage(S, "no --scenario given (the scenario file the queries are about)");
    if (o->nq == 0)
        return cli_spec_usage(S, "no --query given (e.g. --query '{\"q\":\"grape\",\"from\":\"gun1\"}')");
    if (o->on_camera && o->window)
        return cli_spec_usage(S, "--window shows the projector image; it does not go with --on-camera");
    if (!o->on_camera && !o->npj)
        return cli_spec_usage(S, "no --projector given (projector.json from 'tabletrack calib projector')");
    if (!o->nout && !o->window)
        return cli_spec_usage(S, "say where the image goes: --out FILE.png and/or --window [DISPLAY]");
    if (o->on_camera && !o->nout)
        return cli_spec_usage(S, "--on-camera needs --out view.png");
    if (o->on_camera && (o->npj > 1 || o->nout > 1))
        return cli_spec_usage(S, "--on-camera draws one picture, over the camera frame: give one --out (and at "
                                 "most one --projector)");
    if (o->npj > 1 && o->window)
        return cli_spec_usage(S, "--window shows one projector's image; with %d --projector, write each one's "
                                 "with its own --out",
                              o->npj);
    if (!o->on_camera && o->nout > 0 && o->nout != o->npj)
        return cli_spec_usage(S, "%d --out for %d --projector: give one --out per projector, in the same order "
                                 "(--projector P1 --out P1.png --projector P2 --out P2.png)",
                              o->nout, o->npj);
    return -1;
}

#ifdef TT_HAVE_RULES
/* The queries as JSON objects (qs: o->nq of them, the caller's). */
static tt_status overlay__queries(const overlay__args *o, json_t **qs, tt_err *err)
{
    for (int i = 0; i < o->nq; i++) {
        char what[32];
        tt_status st;
        snprintf(what, sizeof what, "--query %d", i + 1);
        if ((st = tt_json_parse(o->queries[i], what, &qs[i], err)) != TT_OK)
            return st;
        if (!json_is_object(qs[i]))
            return tt_err_set(err, TT_ERR_FORMAT,
                              "--query %d must be a JSON object like {\"q\":\"los\",\"from\":\"a\",\"to\":\"b\"}", i + 1);
    }
    return TT_OK;
}

/* Every question asked and drawn into l, its answer printed: nothing is
 * written if any query is bad. */
static tt_status overlay__answers(int nq, json_t *const *qs, table_scene *sc, overlay_list *l, tt_err *err)
{
    for (int i = 0; i < nq; i++) {
        const table_answer *ans;
        tt_status st;
        if ((st = table_scene_ask(sc, qs[i], &ans, err)) != TT_OK || (st = table_look_add(sc, ans, l, err)) != TT_OK) {
            tt_err_prefix(err, "--query %d", i + 1);
            return st;
        }
        char *s = json_dumps(table_answer_json(ans), TT_JSON_ANSWER_FLAGS);
        if (s)
            printf("%s\n", s);
        free(s);
    }
    return TT_OK;
}

/* The drawing: on the camera's frame, or projector pj's image (its share
 * of the light where it overlaps others: seam, or NULL). */
static tt_status overlay__render(const overlay__args *o, const calib_rig *rig, const calib_projector *pj,
                                 const overlay_seam *seam, const table_scene *sc, const overlay_list *l,
                                 overlay_mapper *m, tt_image *frame, cairo_surface_t **surf, tt_err *err)
{
    /* each mark at the height of the scenario's ground under it, as the
     * projector draws it (a projector calibrated in 3D; a plane map draws
     * on the felt) */
    tt_ground ground = {table_scene_ground_in, sc};
    if (o->on_camera) {
        calib_pose pose;
        overlay_camera_map cam_state;
        tt_status st;
        if ((st = cvw_image_read(o->on_camera, 3, frame, err)) != TT_OK ||
            (st = calib_rig_check_image(rig, frame->width, frame->height, err)) != TT_OK ||
            (st = overlay__pose(rig, frame, &pose, err)) != TT_OK) {
            tt_err_prefix(err, "%s", o->on_camera);
            return st;
        }
        overlay_mapper_camera_ground(m, &cam_state, &rig->camera, &pose, &ground);
        return overlay_render_on_image(l, m, frame, surf, err);
    }
    overlay_projector_map pj_state;
    overlay_mapper_projector_ground(m, &pj_state, pj, &ground);
    m->seam = seam;
    return overlay_render(l, m, surf, err);
}

/* Every projector's map, checked against the rig, and with several their
 * seams (pj[i], seam[i]: npj of them, the caller's). */
static tt_status overlay__projectors(const overlay__args *o, const calib_rig *rig, calib_projector **pj,
                                     overlay_seam **seam, tt_err *err)
{
    tt_status st;
    for (int i = 0; i < o->npj; i++)
        if ((st = calib_projector_load(o->pjpath[i], &pj[i], err)) != TT_OK ||
            (st = calib_projector_check_rig(pj[i], rig, o->pjpath[i], err)) != TT_OK)
            return st;
    for (int i = 0; o->npj > 1 && i < o->npj; i++)
        if ((st = overlay_seam_create((const calib_projector *const *)pj, o->npj, i, &seam[i], err)) != TT_OK)
            return st;
    return TT_OK;
}

static int overlay__run(const overlay__args *o)
{
    tt_err err = {0};
    calib_rig *rig = NULL;
    calib_projector *pj[OVERLAY_MAX_PROJECTORS] = {0};
    overlay_seam *seam[OVERLAY_MAX_PROJECTORS] = {0};
    table_scene *sc = NULL;
    overlay_list *l = NULL;
    json_t *qs[MAX_QUERIES] = {0};
    cairo_surface_t *surf[OVERLAY_MAX_PROJECTORS] = {0};
    tt_image frame = {0};
    overlay_mapper m;
    int rc = 1, npic = o->npj > 1 ? o->npj : 1;
    const char *env = getenv("TABLETRACK_DATA");
    const char *dirs[] = {env && env[0] ? env : TT_SOURCE_DIR, TT_SOURCE_DIR, NULL};

    if (calib_rig_load(o->rigpath, &rig, &err) != TT_OK || overlay__projectors(o, rig, pj, seam, &err) != TT_OK ||
        overlay__queries(o, qs, &err) != TT_OK)
        goto fail;
    if (table_scene_load(o->scenario, dirs, &sc, &err) != TT_OK || overlay_list_create(&l, &err) != TT_OK)
        goto fail;
    table_scene_set_cite(sc, o->cite);
    if (overlay__answers(o->nq, qs, sc, l, &err) != TT_OK)
        goto fail;
    /* the projector's light never falls on a figure's tag */
    if (!o->on_camera && table_scene_mask_figures(sc, rig->base_size_in, rig->base_height_mm / 25.4, l, &err) != TT_OK)
        goto fail;
    /* every picture drawn before any is written */
    for (int i = 0; i < npic; i++)
        if (overlay__render(o, rig, pj[i], seam[i], sc, l, &m, &frame, &surf[i], &err) != TT_OK)
            goto fail;
    for (int i = 0; i < o->nout; i++) {
        if (overlay_write_png(surf[i], o->out[i], &err) != TT_OK)
            goto fail;
        fprintf(stderr, "wrote %s (%dx%d, %d shapes", o->out[i], cairo_image_surface_get_width(surf[i]),
                cairo_image_surface_get_height(surf[i]), overlay_list_count(l));
        if (seam[i])
            fprintf(stderr, "; %ld pixels dimmed where it overlaps another projector", overlay_seam_dimmed(seam[i]));
        fprintf(stderr, ")\n");
    }
    fflush(stdout);
    if (o->window && overlay_window_show(surf[0], o->display, o->hold_ms, &err) != TT_OK)
        goto fail;
    rc = fflush(stdout) == 0 ? 0 : 1;
    goto done;
fail:
    rc = cli_fail(CMD, &err);
done:
    for (int i = 0; i < o->nq; i++)
        json_decref(qs[i]);
    for (int i = 0; i < OVERLAY_MAX_PROJECTORS; i++) {
        if (surf[i])
            cairo_surface_destroy(surf[i]);
        overlay_seam_destroy(seam[i]);
        calib_projector_destroy(pj[i]);
    }
    tt_image_free(&frame);
    overlay_list_destroy(l);
    table_scene_destroy(sc);
    calib_rig_destroy(rig);
    return rc;
}
#endif

int cmd_overlay(int argc, char **argv)
{
    overlay__args o = {0};
    o.hold_ms = -1;
    int rc = overlay__parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
#ifndef TT_HAVE_RULES
    fprintf(stderr, "tabletrack overlay: this build has no rules engine (rules/), so there are no answers to draw\n");
    return 1;
#else
    return overlay__run(&o);
#endif
}
