/* overlay_draw.h - one overlay_draw call's state, shared by the files that
 * draw: overlay_draw.c (each primitive, in list order) calls
 * overlay_path.c (primitives in table inches -> dense loops and stroke
 * shapes, mapped to pixels), overlay_paint.c (where they land: cairo's
 * pending fill, the A8 mask of translucent fills, or overlay's own
 * rasterisers straight into the target's pixels) and overlay_label.c
 * (text).  Calls go one way only: label -> paint -> path.  Internal to
 * overlay/.
 *
 * overlay__drawing is owned by overlay_draw (on its stack, for one call);
 * its buffers are freed there. */
#ifndef TT_OVERLAY_DRAW_H
#define TT_OVERLAY_DRAW_H

#include "overlay_internal.h"
#include "overlay_stroke.h"

/* A growing array of points (owned by the drawing). */
typedef struct overlay__buf {
    double *v; /* x, y pairs */
    int n, cap;
} overlay__buf;

/* One overlay_draw call: the target, the mapper, scratch buffers and what
 * waits to be painted. */
typedef struct overlay__drawing {
    const overlay_mapper *m;
    cairo_t *cr;
    cairo_t *tgt; /* where overlay__path_emit puts the path: cr or the mask */
    double bx0, by0, bx1, by1; /* pixel bounds of what went to tgt */
    double area;               /* signed pixel area of the loops emitted */
    int loops;                 /* and how many */
    int keep_tgt;              /* the fill must stay on tgt (a clip is set there) */
    overlay__buf mapped;
    overlay__buf dense, piece, ring; /* scratch */
    overlay__buf rects;              /* mask blocks composited: (x0, y0), (x1, y1) */
    int oom;
    /* opaque outlines waiting for one cairo_fill (same colour) */
    int pending;
    double pend_rgba[4];
    /* translucent fills: A8 mask the size of the target (lazily made;
     * mask_ok = 0 when the target is not a plain image surface) */
    int mask_ok, mask_w, mask_h;
    unsigned char *mask_data;   /* zero between fills where clean (below) */
    unsigned char *mask_blocks; /* per PAINT__BLOCK columns: coverage seen */
    int *clean_lo, *clean_hi;   /* per row: mask known zero from lo to hi */
    cairo_surface_t *mask;
    cairo_t *mask_cr;
    /* outlines through our own rasteriser (overlay_stroke.c) straight into
     * the target's pixels: rast_ok = 1 when the target allows it (image
     * surface, ARGB32 or RGB24, pixels = user space, no clip; -1 unknown);
     * raster = 1 while a primitive's outline goes there; cov_pending = the
     * coverage holds outlines of colour cov_rgb at cov_alpha not yet blended */
    int rast_ok, raster, cov_pending;
    overlay_cov *cov; /* kept on the target surface (user data) between frames */
    double cov_rgb[3], cov_alpha;
    cairo_surface_t *img;
    overlay__buf rq, rpx, rhw; /* scratch: points to map, mapped, half widths */
    int untracked; /* cairo drew on the target (not noted in the coverage's tiles) */
    int straight;  /* the map takes straight lines to straight lines */
    const overlay_mapper *g; /* the mapper when it has a ground (map3), else NULL */
    overlay__buf rz;            /* scratch: x, y, height triples for map3 */
} overlay__drawing;

/* overlay_path.c: geometry in table inches.  Out of memory sets c->oom. */

/* Room for n points in b (0 when out of memory). */
int overlay__buf_reserve(overlay__drawing *c, overlay__buf *b, int n);
/* Append the point (x, y) to b. */
void overlay__buf_push(overlay__drawing *c, overlay__buf *b, double x, double y);
/* Map a loop of table points and add it to c->tgt's path. */
void overlay__path_emit(overlay__drawing *c, const double *pts, int n, int closed);
/* pts into out, straight pieces cut where the map or the ground bends them. */
void overlay__path_densify(overlay__drawing *c, const double *pts, int n, int closed, overlay__buf *out);
/* Map triples of points (a point and two near it), on the ground if any. */
void overlay__path_map_triples(overlay__drawing *c, const double *in, int ntriples, double *px);
/* A disc of radius r at (x, y) to c->tgt's path. */
void overlay__path_disc(overlay__drawing *c, double x, double y, double r);
/* Stroke a path (table inches) of width w: to the coverage while c->raster,
 * else as a shape to c->tgt's path. */
void overlay__path_stroke(overlay__drawing *c, const double *pts, int n, int closed, double w, int dashed);
/* A round primitive's boundary loops into l1 (and l2 for a ring's inner
 * edge); returns how many. */
int overlay__path_round_loops(overlay__drawing *c, const overlay__prim *p, overlay__buf *l1, overlay__buf *l2);
/* xy without the points the path passes within the curve tolerance anyway. */
void overlay__path_simplify(overlay__drawing *c, const double *xy, int n, overlay__buf *out);

/* overlay_paint.c: where paths land, in painting order. */

/* Fill what waits on cairo (opaque shapes of one colour). */
void overlay__paint_flush(overlay__drawing *c);
/* 1 when outlines and fills can go straight into the target's pixels (the
 * coverage buffer is then made, or the one kept on the surface reused). */
int overlay__paint_rast_ready(overlay__drawing *c);
/* Blend the outlines waiting in the coverage. */
void overlay__paint_rast_flush(overlay__drawing *c);
/* A primitive's outline of colour role at alpha into the coverage ... */
void overlay__paint_rast_begin(overlay__drawing *c, overlay_role role, double alpha);
/* ... and its end. */
void overlay__paint_rast_end(overlay__drawing *c, double alpha);
/* A fill of colour role at alpha through cairo: choose c->tgt ... */
void overlay__paint_begin(overlay__drawing *c, overlay_role role, double alpha);
/* ... and fill what went there (translucent: now; opaque: it waits). */
void overlay__paint_end(overlay__drawing *c, overlay_role role, double alpha, cairo_fill_rule_t rule);
/* The area of a closed primitive (l1, l2: its loops) at its fill_alpha. */
void overlay__paint_fill(overlay__drawing *c, const overlay__prim *p, const overlay__buf *l1, const overlay__buf *l2,
                         int nloops);
/* Cairo drew on surface t: the next overlay__clear_kept clears all of it. */
void overlay__paint_lit_all(cairo_surface_t *t);

/* overlay_label.c: text. */

/* A text primitive, through the label cache when it can be used. */
void overlay__label_draw(overlay__drawing *c, const overlay__prim *p);
/* Drop the cached labels not drawn this frame (at the end of a draw). */
void overlay__label_sweep(overlay__drawing *c);

#endif
