/* track_overlay.c - see track_overlay.h. */
#include "track_overlay.h"

#include <cairo.h>
#include <jansson.h>
#include <limits.h>
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
    char **qtext;       /* per query: its JSON text (owned) */
    int *qfrom, *quntil; /* frames a query is shown (0, INT_MAX for --query) */
    char **last_answer; /* per query: the answer last recorded */
    int nq;
    overlay_list *list;
    overlay_window *win;
    int width, height;
    cairo_surface_t *surf; /* the projector image, kept from frame to frame */
};

/* Add one query shown from frame `from` to `until`. */
static tt_status track_overlay__add(track_overlay *t, json_t *q, int from, int until, tt_err *err)
{
    int n = t->nq + 1;
    json_t **qs = realloc(t->queries, sizeof *qs * (size_t)n);
    if (qs)
        t->queries = qs;
    char **tx = realloc(t->qtext, sizeof *tx * (size_t)n);
    if (tx)
        t->qtext = tx;
    int *qf = realloc(t->qfrom, sizeof *qf * (size_t)n);
    if (qf)
        t->qfrom = qf;
    int *qu = realloc(t->quntil, sizeof *qu * (size_t)n);
    if (qu)
        t->quntil = qu;
    char **la = realloc(t->last_answer, sizeof *la * (size_t)n);
    if (la)
        t->last_answer = la;
    char *text = json_dumps(q, JSON_COMPACT);
    if (!qs || !tx || !qf || !qu || !la || !text) {
        free(text);
        json_decref(q);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    t->queries[t->nq] = q;
    t->qtext[t->nq] = text;
    t->qfrom[t->nq] = from;
    t->quntil[t->nq] = until;
    t->last_answer[t->nq] = NULL;
    t->nq = n;
    return TT_OK;
}

/* --query strings (every frame) and the --queries file (frame windows). */
static tt_status track_overlay__queries(track_overlay *t, const track_overlay_opts *o, tt_err *err)
{
    tt_status st;
    for (const char *const *q = o->queries; q && *q; q++) {
        json_t *j = NULL;
        if ((st = tt_json_parse(*q, "--query", &j, err)) != TT_OK)
            return st;
        if ((st = track_overlay__add(t, j, 0, INT_MAX, err)) != TT_OK)
            return st;
    }
    if (o->queries_file) {
        FILE *f = fopen(o->queries_file, "r");
        char *line = NULL;
        size_t cap = 0;
        int lineno = 0;
        if (!f)
            return tt_err_set(err, TT_ERR_IO, "cannot open queries file %s (check the path)", o->queries_file);
        st = TT_OK;
        while (st == TT_OK && getline(&line, &cap, f) > 0) {
            char where[512];
            json_t *j = NULL;
            lineno++;
            if (strspn(line, " \t\r\n") == strlen(line))
                continue;
            snprintf(where, sizeof where, "%s: line %d", o->queries_file, lineno);
            if ((st = tt_json_parse(line, where, &j, err)) != TT_OK)
                break;
            json_t *fr = json_object_get(j, "frame"), *un = json_object_get(j, "until");
            if (!json_is_object(j) || !json_is_integer(fr) || (un && !json_is_integer(un))) {
                json_decref(j);
                st = tt_err_set(err, TT_ERR_FORMAT,
                                "%s: each line is a query with \"frame\" (first frame) and optional \"until\"", where);
                break;
            }
            int from = (int)json_integer_value(fr), until = un ? (int)json_integer_value(un) : INT_MAX;
            json_object_del(j, "frame");
            json_object_del(j, "until");
            st = track_overlay__add(t, j, from, until, err);
        }
        free(line);
        fclose(f);
        if (st != TT_OK)
            return st;
    }
    if (t->nq && !t->scene)
        return tt_err_set(err, TT_ERR_ARG, "--query needs --scenario (the figures and ruleset the question is about)");
    return TT_OK;
}

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
    if ((st = track_overlay__queries(t, o, err)) != TT_OK)
        goto fail;
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
    cairo_surface_destroy(t->surf);
    for (int i = 0; i < t->nq; i++) {
        json_decref(t->queries[i]);
        free(t->qtext[i]);
        free(t->last_answer[i]);
    }
    free(t->queries);
    free(t->qtext);
    free(t->qfrom);
    free(t->quntil);
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
        if (frame_no < t->qfrom[i] || frame_no > t->quntil[i])
            continue;
        /* A question about a figure that is off the table right now draws
         * nothing this frame; it is not an error for the game. */
        if (overlay_scene_query(t->scene, t->queries[i], t->list, recorder ? &ans : NULL, &e2) != TT_OK && recorder)
            ans = json_pack("{s:s}", "error", e2.msg);
        if (recorder && ans) {
            char *txt = json_dumps(ans, JSON_COMPACT);
            if (txt && (!t->last_answer[i] || strcmp(txt, t->last_answer[i]))) {
                if ((st = rec_query(recorder, frame_no, t_ms, t->qtext[i], txt, err)) != TT_OK) {
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
    if (!t->surf) {
        t->surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, t->map.width, t->map.height);
        if (cairo_surface_status(t->surf) != CAIRO_STATUS_SUCCESS) {
            cairo_surface_destroy(t->surf);
            t->surf = NULL;
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory for the %dx%d projector image", t->map.width,
                              t->map.height);
        }
    }
    if ((st = overlay_render_into(t->list, &t->map, t->surf, err)) != TT_OK)
        return st;
    s = cairo_surface_reference(t->surf);
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
