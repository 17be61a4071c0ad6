/* game_table.c - GET /api/table.png: the camera's last frame seen from
 * straight above, for tracing terrain (with several cameras, each spot
 * from the camera it lies most inside the frame of).  Every output pixel's centre on the
 * felt is projected into the camera (calib_project, with distortion) and the
 * frame is resampled there (cv::remap).  The projection is the costly part
 * and depends only on the pose and the resolution, so it is kept and reused
 * until either changes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cvwrap.h"
#include "game_internal.h"

void game__table_free(game *g)
{
    for (int k = 0; k < CALIB_MAX_CAMERAS; k++) {
        free(g->picture.map_xy[k]);
        g->picture.map_xy[k] = NULL;
    }
    free(g->picture.pick);
    g->picture.pick = NULL;
}

/* How far inside a w x h frame pixel (u, v) is (< 0: outside). */
static double game__inside(double u, double v, int w, int h)
{
    return fmin(fmin(u, w - 1 - u), fmin(v, h - 1 - v));
}

/* The remaps for (ppi, poses) into g->picture (its lock held): each
 * camera's, and which camera each pixel is read from (the one it lies
 * most inside the frame of). */
static tt_status game__table_map(game *g, int ncams, const calib_pose *poses, const int *have, const int *solves,
                                 const int *fw, const int *fh, double ppi, tt_err *err)
{
    game__picture *p = &g->picture;
    int same = p->pick && p->map_ppi == ppi && p->map_cams == ncams;
    for (int k = 0; k < ncams && same; k++)
        same = (have[k] ? solves[k] : 0) == p->map_solves[k];
    if (same)
        return TT_OK;
    int w = (int)lround(g->rig->width_in * ppi), h = (int)lround(g->rig->depth_in * ppi);
    if (w < 1 || h < 1)
        return tt_err_set(err, TT_ERR_ARG, "ppi %g gives an empty picture", ppi);
    size_t n = (size_t)w * (size_t)h;
    double *xy = malloc(n * 2 * sizeof *xy), *px = malloc(n * 2 * sizeof *px), *best = malloc(n * sizeof *best);
    game__table_free(g);
    p->pick = calloc(n, 1);
    tt_status st = TT_OK;
    if (!xy || !px || !best || !p->pick) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory for a %dx%d table picture", w, h);
        goto done;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * (size_t)w + (size_t)x;
            xy[2 * i] = (x + 0.5) / ppi;
            xy[2 * i + 1] = (y + 0.5) / ppi;
            best[i] = -INFINITY;
        }
    for (int k = 0; k < ncams && st == TT_OK; k++) {
        p->map_solves[k] = have[k] ? solves[k] : 0;
        if (!have[k])
            continue;
        if (!(p->map_xy[k] = malloc(n * 2 * sizeof *p->map_xy[k]))) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory for a %dx%d table picture", w, h);
            break;
        }
        if ((st = calib_project(&track_live_view(g->live, k)->camera, &poses[k], xy, (int)n, 0.0, px, err)) != TT_OK)
            break;
        for (size_t i = 0; i < n; i++) {
            int ok = isfinite(px[2 * i]) && isfinite(px[2 * i + 1]);
            p->map_xy[k][2 * i] = ok ? (float)px[2 * i] : -1e6f; /* not finite: outside, black */
            p->map_xy[k][2 * i + 1] = ok ? (float)px[2 * i + 1] : -1e6f;
            double in = ok ? game__inside(px[2 * i], px[2 * i + 1], fw[k], fh[k]) : -INFINITY;
            if (in > best[i]) {
                best[i] = in;
                p->pick[i] = (unsigned char)k;
            }
        }
    }
    p->map_ppi = ppi;
    p->map_w = w;
    p->map_h = h;
    p->map_cams = ncams;
done:
    if (st != TT_OK)
        game__table_free(g);
    free(xy);
    free(px);
    free(best);
    return st;
}

/* The table from above: each camera's frame remapped, each pixel taken
 * from its camera (picture.mu held). */
static tt_status game__table_top(game *g, int ncams, const tt_image *frames, tt_image *top, tt_err *err)
{
    game__picture *p = &g->picture;
    tt_status st = TT_OK;
    for (int k = 0; k < ncams && st == TT_OK; k++) {
        tt_image one = {0};
        if (!p->map_xy[k])
            continue;
        if ((st = cvw_remap(&frames[k], p->map_xy[k], p->map_w, p->map_h, &one, err)) != TT_OK)
            break;
        if (!top->data) {
            *top = one; /* the first camera's; the others' pixels are copied in */
            continue;
        }
        for (int y = 0; y < p->map_h; y++)
            for (int x = 0; x < p->map_w; x++)
                if (p->pick[(size_t)y * (size_t)p->map_w + (size_t)x] == k)
                    top->data[(size_t)y * top->stride + (size_t)x] = one.data[(size_t)y * one.stride + (size_t)x];
        tt_image_free(&one);
    }
    return st;
}

tt_status game_table_png(game *g, double ppi, unsigned char **png, size_t *len, tt_err *err)
{
    tt_image frames[CALIB_MAX_CAMERAS], top = {0};
    calib_pose poses[CALIB_MAX_CAMERAS];
    int solves[CALIB_MAX_CAMERAS], have[CALIB_MAX_CAMERAS], fw[CALIB_MAX_CAMERAS], fh[CALIB_MAX_CAMERAS], any = 0;
    tt_status st = TT_OK;
    *png = NULL;
    *len = 0;
    if (!(ppi >= 1 && ppi <= 40))
        return tt_err_set(err, TT_ERR_ARG, "ppi must be a number from 1 to 40 (pixels per inch; default 10)");
    memset(frames, 0, sizeof frames);
    pthread_mutex_lock(&g->mu);
    int ncams = g->ncams;
    for (int k = 0; k < ncams; k++) {
        const tt_image *last = &g->figures.last_im[k];
        have[k] = g->figures.have_pose[k] && last->data;
        poses[k] = g->figures.pose[k];
        solves[k] = g->figures.pose_solves[k];
        fw[k] = last->width;
        fh[k] = last->height;
        if (have[k] && st == TT_OK && (st = tt_image_alloc(&frames[k], last->width, last->height, 1, err)) == TT_OK)
            for (int y = 0; y < last->height; y++)
                memcpy(frames[k].data + (size_t)y * frames[k].stride, last->data + (size_t)y * last->stride,
                       (size_t)last->width);
        any |= have[k];
    }
    pthread_mutex_unlock(&g->mu);
    if (st == TT_OK && !any)
        st = tt_err_set(err, TT_ERR_ANCHORS, "no picture of the table yet: the camera must see at least %s anchor "
                        "tags first", ncams > 1 ? "4" : "2");
    if (st == TT_OK) {
        pthread_mutex_lock(&g->picture.mu);
        if ((st = game__table_map(g, ncams, poses, have, solves, fw, fh, ppi, err)) == TT_OK)
            st = game__table_top(g, ncams, frames, &top, err);
        pthread_mutex_unlock(&g->picture.mu);
    }
    for (int k = 0; k < ncams; k++)
        tt_image_free(&frames[k]);
    if (st == TT_OK)
        st = cvw_image_encode_png(&top, png, len, err);
    tt_image_free(&top);
    return st;
}
