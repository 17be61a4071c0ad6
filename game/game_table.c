/* game_table.c - GET /api/table.png: the camera's last frame seen from
 * straight above, for tracing terrain.  Every output pixel's centre on the
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
    free(g->picture.map_xy);
    g->picture.map_xy = NULL;
}

/* The remap for (ppi, pose) into g->picture.map_xy (table_mu held). */
static tt_status game__table_map(game *g, const calib_pose *pose, int solves, double ppi, tt_err *err)
{
    if (g->picture.map_xy && g->picture.map_ppi == ppi && g->picture.map_solves == solves)
        return TT_OK;
    int w = (int)lround(g->rig->width_in * ppi), h = (int)lround(g->rig->depth_in * ppi);
    if (w < 1 || h < 1)
        return tt_err_set(err, TT_ERR_ARG, "ppi %g gives an empty picture", ppi);
    size_t n = (size_t)w * (size_t)h;
    double *xy = malloc(n * 2 * sizeof *xy), *px = malloc(n * 2 * sizeof *px);
    float *map = malloc(n * 2 * sizeof *map);
    tt_status st = TT_OK;
    if (!xy || !px || !map) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory for a %dx%d table picture", w, h);
        goto done;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t k = (size_t)y * (size_t)w + (size_t)x;
            xy[2 * k] = (x + 0.5) / ppi;
            xy[2 * k + 1] = (y + 0.5) / ppi;
        }
    if ((st = calib_project(&g->rig->camera, pose, xy, (int)n, 0.0, px, err)) != TT_OK)
        goto done;
    for (size_t k = 0; k < 2 * n; k++)
        map[k] = isfinite(px[k]) ? (float)px[k] : -1e6f; /* not finite: outside, black */
    free(g->picture.map_xy);
    g->picture.map_xy = map;
    map = NULL;
    g->picture.map_ppi = ppi;
    g->picture.map_solves = solves;
    g->picture.map_w = w;
    g->picture.map_h = h;
done:
    free(xy);
    free(px);
    free(map);
    return st;
}

tt_status game_table_png(game *g, double ppi, unsigned char **png, size_t *len, tt_err *err)
{
    tt_image frame = {0}, top = {0};
    calib_pose pose;
    int solves, have;
    tt_status st;
    *png = NULL;
    *len = 0;
    if (!(ppi >= 1 && ppi <= 40))
        return tt_err_set(err, TT_ERR_ARG, "ppi must be a number from 1 to 40 (pixels per inch; default 10)");
    pthread_mutex_lock(&g->mu);
    have = g->figures.have_pose && g->figures.last_im.data;
    pose = g->figures.pose;
    solves = g->figures.pose_solves;
    if (have && (st = tt_image_alloc(&frame, g->figures.last_im.width, g->figures.last_im.height, 1, err)) == TT_OK)
        for (int y = 0; y < frame.height; y++)
            memcpy(frame.data + (size_t)y * frame.stride, g->figures.last_im.data + (size_t)y * g->figures.last_im.stride,
                   (size_t)frame.width);
    else if (have)
        have = -1;
    pthread_mutex_unlock(&g->mu);
    if (have < 0)
        return TT_ERR_NOMEM;
    if (!have)
        return tt_err_set(err, TT_ERR_ANCHORS,
                          "no picture of the table yet: the camera must see at least 2 anchor tags first");
    pthread_mutex_lock(&g->picture.mu);
    if ((st = game__table_map(g, &pose, solves, ppi, err)) == TT_OK)
        st = cvw_remap(&frame, g->picture.map_xy, g->picture.map_w, g->picture.map_h, &top, err);
    pthread_mutex_unlock(&g->picture.mu);
    tt_image_free(&frame);
    if (st == TT_OK)
        st = cvw_image_encode_png(&top, png, len, err);
    tt_image_free(&top);
    return st;
}
