/* overlay_stroke.h - overlay's own anti-aliased rasteriser for thin strokes
 * (lines, dashes, the outlines of circles, arcs, rings and polygons), in
 * target pixels.  Internal to overlay/ (and its tests).
 *
 * Cairo's scan converter costs about 600 instructions for every pixel row
 * an edge crosses; a stroke 1-3 px wide lights only a few pixels per row,
 * so we compute their coverage directly: for each segment of a polyline,
 * only the pixels of its thin parallelogram (rows or columns across it, not
 * its bounding box) get coverage from their centre's distance d to the
 * segment - the overlap of the pixel's [d - 0.5, d + 0.5] with the
 * stroke's [-w/2, w/2] (a 1-D box filter; clamp(0.5 + w/2 - d, 0, 1) for
 * w >= 1).  Round joins and round caps come from the distance to the
 * segment's ends; a butt cap multiplies by the pixel's overlap along the
 * segment.  Within one accumulation (a primitive, or consecutive opaque
 * strokes of one colour) a pixel keeps the largest coverage any segment
 * gave it, so joins and crossings are not lit twice; the accumulation is
 * then blended once, "over", into premultiplied ARGB32 (or RGB24) data.
 *
 * The width may vary along a segment (hw given per point): a width in
 * inches seen under the projector's perspective. */
#ifndef TT_OVERLAY_STROKE_H
#define TT_OVERLAY_STROKE_H

#include <stdint.h>
#include <string.h>

typedef struct overlay_cov {
    int w, h;
    unsigned char *a; /* w * h coverage 0..255; zero outside the marked chunks */
    uint64_t *dirty;  /* per row, nw words: bit k = pixels 16k..16k+15 may hold coverage */
    int nw;
    int y0, y1; /* rows [y0, y1) that may hold coverage */
    struct overlay_fill_scratch *fill; /* overlay_cov_fill's scratch, made on first use */
    /* what the blends and fills lit since the last overlay_cov_clear_lit:
     * one byte per OVERLAY_TILE x OVERLAY_TILE pixels; lit_all = 1 when
     * something else drew too (then everything counts as lit) */
    unsigned char *tiles;
    int tw, th, lit_all;
} overlay_cov;

#define OVERLAY_TILE_BITS 5
#define OVERLAY_TILE (1 << OVERLAY_TILE_BITS)

/* Note pixels [x0, x1) x [y0, y1) as lit (clipped to the target). */
static inline void overlay_cov_mark(overlay_cov *c, int x0, int y0, int x1, int y1)
{
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > c->w ? c->w : x1;
    y1 = y1 > c->h ? c->h : y1;
    if (x0 >= x1 || y0 >= y1 || !c->tiles)
        return;
    for (int ty = y0 >> OVERLAY_TILE_BITS; ty <= (y1 - 1) >> OVERLAY_TILE_BITS; ty++)
        memset(c->tiles + (size_t)ty * c->tw + (x0 >> OVERLAY_TILE_BITS), 1,
               (size_t)(((x1 - 1) >> OVERLAY_TILE_BITS) - (x0 >> OVERLAY_TILE_BITS) + 1));
}

/* The same for pixels [x0, x1) of row y, already within the target. */
static inline void overlay_cov_mark_row(overlay_cov *c, int y, int x0, int x1)
{
    if (!c->tiles || x0 >= x1)
        return;
    unsigned char *t = c->tiles + (size_t)(y >> OVERLAY_TILE_BITS) * c->tw;
    for (int i = x0 >> OVERLAY_TILE_BITS; i <= (x1 - 1) >> OVERLAY_TILE_BITS; i++)
        t[i] = 1;
}

/* Set every pixel noted as lit (all of them when lit_all) to `value` in
 * 32-bit pixels data (w x h, stride bytes per row) and forget the notes. */
void overlay_cov_clear_lit(overlay_cov *c, unsigned char *data, int stride, uint32_t value);

/* Coverage buffer for a w x h target.  Returns 0 when out of memory (or
 * w, h < 1); overlay_cov_free is safe on a zeroed or failed one. */
int overlay_cov_init(overlay_cov *c, int w, int h);
void overlay_cov_free(overlay_cov *c);

#define OVERLAY_CAP_ROUND_START 1
#define OVERLAY_CAP_ROUND_END 2

/* Add the stroke of a polyline: n points xy (pixels, x y pairs), half
 * widths hw[i] (pixels) at each point, joins round.  closed: the last point
 * joins the first (no caps).  Otherwise caps (OVERLAY_CAP_ROUND_*) choose a
 * round cap at either end; a missing bit is a butt cap.  Segments with a
 * non-finite or huge (> 1e6) coordinate or width are skipped; what falls
 * off the target is clipped. */
void overlay_cov_polyline(overlay_cov *c, const double *xy, const double *hw, int n, int closed, int caps);

/* Add the exact-area anti-aliased fill of a shape: nloops closed loops,
 * loop_n[l] points each, one after the other in xy (pixels, x y pairs),
 * even_odd = 1 for the even-odd rule, 0 for non-zero.  A loop with a
 * non-finite or huge (> 1e6) coordinate is left out; what falls off the
 * target is clipped.  The coverage of a pixel is the share of its area
 * inside the shape (exact where loops do not cross inside that pixel).
 * Returns 0 when out of memory (part of the shape may be missing). */
int overlay_cov_fill(overlay_cov *c, const double *xy, const int *loop_n, int nloops, int even_odd);
void overlay_fill_scratch_free(struct overlay_fill_scratch *f);

/* The same fill blended straight into 32-bit premultiplied pixels (cairo
 * ARGB32 or RGB24 data of the coverage's size, stride bytes per row):
 * colour rgb at opacity alpha, "over", exactly as overlay_cov_blend would
 * after overlay_cov_fill; the coverage buffer is not used (only c's
 * scratch).  box (x0, y0, x1, y1; x1 <= x0 when nothing) receives the
 * pixels that may have changed. */
int overlay_fill_blend(overlay_cov *c, const double *xy, const int *loop_n, int nloops, int even_odd,
                       unsigned char *data, int stride, const double rgb[3], double alpha, int box[4]);

/* Blend colour rgb (0..1, opaque colour) at opacity alpha through the
 * coverage, "over", into 32-bit premultiplied pixels (cairo ARGB32 or
 * RGB24 data, w x h, stride bytes per row), then clear the coverage.
 * box (x0, y0, x1, y1; x1 <= x0 when nothing) receives the pixels that may
 * have changed. */
void overlay_cov_blend(overlay_cov *c, unsigned char *data, int stride, const double rgb[3], double alpha, int box[4]);

/* 1 when the accumulation holds any coverage. */
int overlay_cov_pending(const overlay_cov *c);

#endif
