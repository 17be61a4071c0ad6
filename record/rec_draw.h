/* rec_draw.h - private to record/: drawing a game at one moment with
 * cairo (the video frames; the HTML page draws the same with SVG). */
#ifndef TT_REC_DRAW_H
#define TT_REC_DRAW_H

#include <cairo.h>

#include "rec_internal.h"

/* Frame size (even numbers, for video codecs) and pixels per inch for a
 * frame width_px wide. */
void rec__draw_size(const rec_game *g, int width_px, int *w, int *h, double *scale);

/* Draw the view at time t (ms) onto cr (pixels; scale = px per inch). */
void rec__draw(cairo_t *cr, const rec_game *g, long long t, double scale);

/* The view at time t as a new image width_px wide (rec__draw_size) in
 * format fmt, flushed: the caller's (cairo_surface_destroy); NULL when out
 * of memory. */
cairo_surface_t *rec__draw_still(const rec_game *g, long long t, int width_px, cairo_format_t fmt);

#endif
