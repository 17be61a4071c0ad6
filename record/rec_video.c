/* rec_video.c - the replay as a video file: cairo frames through the
 * OpenCV VideoWriter wrapper (cvwrap_video.h). */
#include "rec_draw.h"

#include <math.h>

#include "cvwrap_video.h"

tt_status rec_game_write_video(const rec_game *g, const char *path, const rec_video_opts *opt, tt_err *err)
{
    rec_video_opts o = {1280, 15.0, 1.0, NULL, NULL};
    if (opt) {
        o.progress = opt->progress;
        o.progress_user = opt->progress_user;
        if (opt->width_px)
            o.width_px = opt->width_px;
        if (opt->fps > 0)
            o.fps = opt->fps;
        if (opt->speed > 0)
            o.speed = opt->speed;
    }
    if (o.width_px < 64 || o.width_px > 7680 || o.fps > 120 || o.speed > 10000)
        return tt_err_set(err, TT_ERR_ARG, "video: width 64..7680 px, fps up to 120, speed up to 10000");
    int w, h;
    double scale;
    rec__draw_size(g, o.width_px, &w, &h, &scale);
    double step = 1000.0 / o.fps * o.speed;
    double span = (double)(g->t1 - g->t0);
    long nframes = (long)floor(span / step) + 1;
    if (nframes > 2000000)
        return tt_err_set(err, TT_ERR_ARG, "video: %ld frames is too long; raise --speed or narrow --from/--to", nframes);

    cvw_video_writer *vw = NULL;
    cairo_surface_t *surf = NULL;
    cairo_t *cr = NULL;
    tt_status s = cvw_video_writer_open(path, w, h, o.fps, &vw, err);
    if (s != TT_OK)
        return s;
    surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cr = cairo_create(surf);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        s = tt_err_set(err, TT_ERR_NOMEM, "video: cannot make a %dx%d drawing surface", w, h);
        goto fail;
    }
    for (long i = 0; i < nframes; i++) {
        long long t = g->t0 + (long long)llround((double)i * step);
        if (t > g->t1)
            t = g->t1;
        rec__draw(cr, g, t, scale);
        cairo_surface_flush(surf);
        tt_image im = {w, h, 4, cairo_image_surface_get_stride(surf), cairo_image_surface_get_data(surf)};
        if ((s = cvw_video_writer_write(vw, &im, err)) != TT_OK)
            goto fail;
        if (o.progress)
            o.progress(o.progress_user, i + 1, nframes);
    }
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    return cvw_video_writer_close(vw, err);
fail:
    cvw_video_writer_abort(vw);
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    return s;
}
