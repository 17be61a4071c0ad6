/* track_overlay.c - see track_overlay.h. */
#include "track_overlay.h"

#include <cairo.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay.h"
#include "overlay_rules.h"
#include "projector.h"
#include "tt_json.h"

struct track_overlay {
    track_overlay_opts o;
    calib_projector *pj;
    overlay_mapper map;
    overlay_scene *scene;
    json_t **queries;
    char **last_answer; /* per query: the answer last recorded */
    int nq;
    overlay_list *list;
    overlay_window *win;
    int width, height;
};

tt_status track_overlay_create(const track_overlay_opts *o, track_overlay **out, tt_err *err)
{
    track_overlay *t = NULL;
    tt_status st;
    *out = NULL;
    if (!o->projector)
        return tt_err_set(err, TT_ERR_ARG,
                          "the live overlay needs --projector projector.json (make one with 'tabletrack calib projector')");
    t = calloc(1, sizeof *t);
    if (!t)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    t->o = *o;
    if ((st = calib_projector_load(o->projector, &t->pj, err)) != TT_OK)
        goto fail;
    calib_projector_size(t->pj, &t->width, &t->height);
    overlay_mapper_projector(&t->map, t->pj);
    if ((st = overlay_list_create(&t->list, err)) != TT_OK)
        goto fail;
    if (o->scenario) {
        const char *env = getenv("TABLETRACK_DATA");
        const char *dirs[] = {env && env[0] ? env : TT_SOURCE_DIR, TT_SOURCE_DIR, NULL};
        if ((st = overlay_scene_load(o->scenario, dirs, &t->scene, err)) != TT_OK)
            goto fail;
    }
    for (const char *const *q = o->queries; q && *q; q++)
        t->nq++;
    if (t->nq) {
        if (!t->scene) {
            st = tt_err_set(err, TT_ERR_ARG, "--query needs --scenario (the figures and ruleset the question is about)");
            goto fail;
        }
        t->queries = calloc((size_t)t->nq, sizeof *t->queries);
        t->last_answer = calloc((size_t)t->nq, sizeof *t->last_answer);
        if (!t->queries || !t->last_answer) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            goto fail;
        }
        for (int i = 0; i < t->nq; i++)
            if ((st = tt_json_parse(o->queries[i], "--query", &t->queries[i], err)) != TT_OK)
                goto fail;
    }
    if (o->window && (st = overlay_window_open(o->window, t->width, t->height, &t->win, err)) != TT_OK)
        goto fail;
    *out = t;
    return TT_OK;
fail:
    track_overlay_destroy(t);
    return st;
}

void track_overlay_destroy(track_overlay *t)
{
    if (!t)
        return;
    overlay_window_close(t->win);
    for (int i = 0; t->queries && i < t->nq; i++)
        json_decref(t->queries[i]);
    for (int i = 0; t->last_answer && i < t->nq; i++)
        free(t->last_answer[i]);
    free(t->queries);
    free(t->last_answer);
    overlay_list_destroy(t->list);
    overlay_scene_destroy(t->scene);
    calib_projector_destroy(t->pj);
    free(t);
}

tt_status track_overlay_frame(track_overlay *t, int frame_no, const track_figure *figs, int n, int camera_lost,
                              rec *recorder, long long t_ms, tt_err *err)
{
    tt_status st = TT_OK;
    cairo_surface_t *s = NULL;
    overlay_list_clear(t->list);
    /* Figures where they stand: move the scenario's figures first so the
     * questions are answered for the table as it is now. */
    for (int i = 0; i < n; i++) {
        const track_figure *f = &figs[i];
        if (f->state == VISION_TAG_LOST)
            continue;
        if (t->scene) {
            tt_err e2 = {0};
            (void)overlay_scene_place(t->scene, f->id, f->x, f->y, f->facing_deg, NULL, &e2);
        }
        overlay_style ring = overlay_style_line(OVERLAY_ROLE_NEUTRAL, 0.05);
        ring.dashed = f->state == VISION_TAG_OCCLUDED;
        double r = t->o.base_radius_in > 0 ? t->o.base_radius_in : 0.6, a = f->facing_deg * M_PI / 180;
        if ((st = overlay_add_circle(t->list, f->x, f->y, r, ring, err)) != TT_OK ||
            (st = overlay_add_line(t->list, f->x + r * cos(a), f->y + r * sin(a), f->x + (r + 0.4) * cos(a),
                                   f->y + (r + 0.4) * sin(a), overlay_style_line(OVERLAY_ROLE_NEUTRAL, 0.06), err)) !=
                TT_OK)
            return st;
    }
    for (int i = 0; i < t->nq; i++) {
        tt_err e2 = {0};
        json_t *ans = NULL;
        /* A question about a figure that is off the table right now draws
         * nothing this frame; it is not an error for the game. */
        if (overlay_scene_query(t->scene, t->queries[i], t->list, recorder ? &ans : NULL, &e2) != TT_OK && recorder)
            ans = json_pack("{s:s}", "error", e2.msg);
        if (recorder && ans) {
            char *txt = json_dumps(ans, JSON_COMPACT);
            if (txt && (!t->last_answer[i] || strcmp(txt, t->last_answer[i]))) {
                if ((st = rec_query(recorder, t_ms, t->o.queries[i], txt, err)) != TT_OK) {
                    free(txt);
                    json_decref(ans);
                    return st;
                }
                free(t->last_answer[i]);
                t->last_answer[i] = txt;
                txt = NULL;
            }
            free(txt);
        }
        json_decref(ans);
    }
    if (camera_lost) {
        double cx = t->o.table_w / 2, cy = t->o.table_d / 2;
        if ((st = overlay_add_text(t->list, cx, cy, "CAMERA LOST - reconnecting", 1.2, 0, OVERLAY_ROLE_BLOCKED,
                                   err)) != TT_OK)
            return st;
    }
    if ((st = overlay_render(t->list, &t->map, &s, err)) != TT_OK)
        return st;
    if (t->win && (st = overlay_window_present(t->win, s, err)) != TT_OK)
        goto done;
    if (t->o.png_dir) {
        char p[4096];
        snprintf(p, sizeof p, "%s/overlay_%05d.png", t->o.png_dir, frame_no);
        st = overlay_write_png(s, p, err);
    }
done:
    cairo_surface_destroy(s);
    return st;
}
