/* overlay_output.c - projector images, camera composites and PNG files. */
#include "overlay.h"
#include "overlay_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tt_tmpfile.h"
#include <unistd.h>

static tt_status output__check(cairo_surface_t *s, tt_err *err)
{
    cairo_status_t cs = cairo_surface_status(s);
    if (cs != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return tt_err_set(err, TT_ERR_NOMEM, "cannot make the overlay image: %s", cairo_status_to_string(cs));
    }
    return TT_OK;
}

tt_status overlay_render_into(const overlay_list *l, const overlay_mapper *m, cairo_surface_t *s, tt_err *err)
{
    if (!m || m->width < 1 || m->height < 1)
        return tt_err_set(err, TT_ERR_ARG, "overlay: the target image size is not set");
    if (!s || cairo_surface_status(s) != CAIRO_STATUS_SUCCESS || cairo_surface_get_type(s) != CAIRO_SURFACE_TYPE_IMAGE ||
        cairo_image_surface_get_width(s) != m->width || cairo_image_surface_get_height(s) != m->height)
        return tt_err_set(err, TT_ERR_ARG, "overlay: the target is not a %dx%d image", m->width, m->height);
    cairo_t *cr = cairo_create(s);
    /* black: no light - only where the last frame lit, when that is known */
    if (!overlay__clear_kept(s)) {
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_paint(cr);
    }
    tt_status st = overlay_draw(l, m, cr, err);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    if (st == TT_OK && m->seam) { /* its share where projectors overlap, where this frame lit */
        int tw = 0, tile = 0;
        const unsigned char *tiles = overlay__lit_tiles(s, &tw, &tile);
        st = overlay__seam_apply_lit(m->seam, s, tiles, tw, tile, err);
    }
    return st;
}

tt_status overlay_render(const overlay_list *l, const overlay_mapper *m, cairo_surface_t **out, tt_err *err)
{
    *out = NULL;
    if (!m || m->width < 1 || m->height < 1)
        return tt_err_set(err, TT_ERR_ARG, "overlay: the target image size is not set");
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, m->width, m->height);
    tt_status st = output__check(s, err);
    if (st != TT_OK)
        return st;
    st = overlay_render_into(l, m, s, err);
    if (st != TT_OK) {
        cairo_surface_destroy(s);
        return st;
    }
    *out = s;
    return TT_OK;
}

tt_status overlay_render_on_image(const overlay_list *l, const overlay_mapper *m, const tt_image *frame,
                                  cairo_surface_t **out, tt_err *err)
{
    cairo_surface_t *s = NULL;
    cairo_t *cr = NULL;
    tt_status st;
    *out = NULL;
    if (!frame || !frame->data || (frame->channels != 1 && frame->channels != 3 && frame->channels != 4))
        return tt_err_set(err, TT_ERR_ARG, "overlay: the camera frame must be gray, BGR or BGRA");
    if (frame->width != m->width || frame->height != m->height)
        return tt_err_set(err, TT_ERR_MISMATCH, "the camera frame is %dx%d but the camera was calibrated at %dx%d",
                          frame->width, frame->height, m->width, m->height);
    s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, frame->width, frame->height);
    if ((st = output__check(s, err)) != TT_OK)
        return st;
    cairo_surface_flush(s);
    unsigned char *d = cairo_image_surface_get_data(s);
    int ds = cairo_image_surface_get_stride(s);
    for (int y = 0; y < frame->height; y++) {
        const uint8_t *src = frame->data + (size_t)y * frame->stride;
        uint32_t *dst = (uint32_t *)(void *)(d + (size_t)y * ds);
        for (int x = 0; x < frame->width; x++) {
            uint32_t b, g, r;
            if (frame->channels == 1) {
                b = g = r = src[x];
            } else {
                b = src[x * frame->channels];
                g = src[x * frame->channels + 1];
                r = src[x * frame->channels + 2];
            }
            dst[x] = 0xff000000u | (r << 16) | (g << 8) | b;
        }
    }
    cairo_surface_mark_dirty(s);
    cr = cairo_create(s);
    st = overlay_draw(l, m, cr, err);
    cairo_destroy(cr);
    if (st != TT_OK) {
        cairo_surface_destroy(s);
        return st;
    }
    cairo_surface_flush(s);
    *out = s;
    return TT_OK;
}

tt_status overlay_write_png(cairo_surface_t *s, const char *path, tt_err *err)
{
    char *tmp = NULL;
    tt_status st = tt_tmp_create(path, &tmp, err);
    if (st != TT_OK)
        return st;
    cairo_status_t cs = cairo_surface_write_to_png(s, tmp);
    if (cs != CAIRO_STATUS_SUCCESS) {
        tt_tmp_discard(tmp);
        return tt_err_set(err, TT_ERR_IO, "cannot write %s: %s (is the folder there and writable?)", path,
                          cairo_status_to_string(cs));
    }
    return tt_tmp_commit(tmp, path, err);
}
