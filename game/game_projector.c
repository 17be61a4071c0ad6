/* game_projector.c - the game's projectors, one or several (issue 31): each
 * --projector's map from projector.json, checked against the rig, drawn at
 * the scenario's ground height; with several, each one's share of the light
 * where their pictures overlap (overlay_seam), so the felt is lit evenly;
 * each one's window and picture every frame. */
#include <stdio.h>
#include <string.h>

#include "game_internal.h"

/* (here, not with the scenario in game_query.c: the projectors draw on it,
 * and game_query.c calls game__projector_draw) */
double game__ground_in(const void *user, double x, double y)
{
    const game *g = user;
    return table_scene_ground_in(g->sc.scene, x, y);
}

tt_status game__projector_open(game *g, tt_err *err)
{
    game__projector *p = &g->proj;
    const calib_projector *pjs[GAME_MAX_PROJECTORS];
    tt_ground ground = {game__ground_in, g};
    tt_status st;
    int n = g->o.nprojectors;
    if (n > GAME_MAX_PROJECTORS || n > OVERLAY_MAX_PROJECTORS)
        return tt_err_set(err, TT_ERR_ARG, "at most %d projectors draw on one table (%d given)", GAME_MAX_PROJECTORS,
                          n);
    for (int k = 0; k < n; k++) {
        game__output *o = &p->out[k];
        const char *path = g->o.projectors[k];
        if ((st = calib_projector_load(path, &o->pj, err)) != TT_OK ||
            (st = calib_projector_check_rig(o->pj, g->rig, path, err)) != TT_OK)
            return st;
        p->n = k + 1;
        pjs[k] = o->pj;
        overlay_mapper_projector_ground(&o->map, &o->map_state, o->pj, &ground);
    }
    for (int k = 0; n > 1 && k < n; k++) {
        game__output *o = &p->out[k];
        if ((st = overlay_seam_create(pjs, n, k, &o->seam, err)) != TT_OK)
            return st;
        o->map.seam = o->seam;
        if (!overlay_seam_dimmed(o->seam))
            fprintf(stderr, "tabletrack track: %s overlaps no other projector's picture on the felt\n",
                    g->o.projectors[k]);
    }
    for (int k = 0; k < n; k++) {
        game__output *o = &p->out[k];
        if (!g->o.windows[k])
            continue;
        if ((st = overlay_window_open(g->o.windows[k], o->map.width, o->map.height, &o->win, err)) != TT_OK) {
            if (n > 1)
                tt_err_prefix(err, "the window of projector %d (%s)", k + 1, g->o.projectors[k]);
            return st;
        }
    }
    return TT_OK;
}

void game__projector_close(game *g)
{
    for (int k = 0; k < GAME_MAX_PROJECTORS; k++) {
        game__output *o = &g->proj.out[k];
        overlay_window_close(o->win);
        if (o->surf)
            cairo_surface_destroy(o->surf);
        overlay_seam_destroy(o->seam);
        calib_projector_destroy(o->pj);
        memset(o, 0, sizeof *o);
    }
    g->proj.n = 0;
}

/* Projector k's picture of the list: shown in its window, written to
 * --overlay-dir (overlay_NNNNN.png; with several projectors
 * overlay_NNNNN_pK.png, K from 1). */
static tt_status game__output_draw(game *g, int k, int frame_no, tt_err *err)
{
    game__output *o = &g->proj.out[k];
    tt_status st;
    if (!o->surf) {
        o->surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, o->map.width, o->map.height);
        if (cairo_surface_status(o->surf) != CAIRO_STATUS_SUCCESS) {
            cairo_surface_destroy(o->surf);
            o->surf = NULL;
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory for the %dx%d projector image", o->map.width,
                              o->map.height);
        }
    }
    if ((st = overlay_render_into(g->proj.list, &o->map, o->surf, err)) != TT_OK)
        return st;
    if (o->win && (st = overlay_window_present(o->win, o->surf, err)) != TT_OK)
        return st;
    if (g->o.overlay_dir) {
        char p[4096];
        if (g->proj.n > 1)
            snprintf(p, sizeof p, "%s/overlay_%05d_p%d.png", g->o.overlay_dir, frame_no, k + 1);
        else
            snprintf(p, sizeof p, "%s/overlay_%05d.png", g->o.overlay_dir, frame_no);
        st = overlay_write_png(o->surf, p, err);
    }
    return st;
}

tt_status game__projector_draw(game *g, int frame_no, tt_err *err)
{
    tt_status st = TT_OK;
    for (int k = 0; k < g->proj.n && st == TT_OK; k++)
        st = game__output_draw(g, k, frame_no, err);
    return st;
}

char *game__projectors_json(const game *g)
{
    if (!g->proj.n)
        return NULL;
    json_t *arr = json_array();
    for (int k = 0; arr && k < g->proj.n; k++) {
        const calib_projector *pj = g->proj.out[k].pj;
        int w, h, measured;
        calib_projector_size(pj, &w, &h);
        double gamma = calib_projector_gamma(pj, &measured);
        json_array_append_new(arr, json_pack("{s:s, s:i, s:i, s:s, s:f, s:b}", "file", g->o.projectors[k], "width",
                                             w, "height", h, "model", calib_projector_is_3d(pj) ? "pinhole" : "plane",
                                             "gamma", gamma, "gamma_measured", measured));
    }
    char *text = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
    json_decref(arr);
    return text;
}
