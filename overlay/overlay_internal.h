/* overlay_internal.h - the primitive list shared by overlay's files. */
#ifndef TT_OVERLAY_INTERNAL_H
#define TT_OVERLAY_INTERNAL_H

#include "overlay.h"

typedef enum overlay__kind {
    OVERLAY__POLYLINE,
    OVERLAY__POLYGON,
    OVERLAY__CIRCLE,
    OVERLAY__ARC,
    OVERLAY__SECTOR,
    OVERLAY__RING,
    OVERLAY__TEXT
} overlay__kind;

typedef struct overlay__prim {
    overlay__kind kind;
    overlay_style st;
    double *xy; /* polyline / polygon points, owned */
    int n;
    double cx, cy, r0, r1, a0, a1; /* circle, arc, sector, ring (degrees) */
    char *text;                    /* owned */
    double size_in, angle_deg;
    int at_height;                 /* 1: drawn at z_in above the felt (overlay_set_last_height) */
    double z_in;
} overlay__prim;

/* A tag kept dark (overlay_add_tag_mask): its mask's centre, turn, half
 * side and height. */
typedef struct overlay__mask {
    double x, y, facing_deg, half_in, z_in;
} overlay__mask;

struct overlay_list {
    overlay__prim *p;
    int n, cap;
    overlay__mask *mask;
    int nmask, capmask;
};

/* Paint every mask of l opaque black onto cr (user space: target pixels),
 * after everything else is drawn (overlay_mask.c). */
void overlay__apply_masks(const overlay_list *l, const overlay_mapper *m, cairo_t *cr);

/* 1 when the mapper takes straight lines to straight lines (projector.json
 * without a correction grid; with a ground, where the ground's height
 * changes linearly): straight edges need not be cut before mapping. */
int overlay__mapper_straight(const overlay_mapper *m);

/* n table points (xy, n*2) each at the height of the ground g under it,
 * mapped through map3 (called with map_user, a few points at a time) into
 * px (n*2): the `map` of a mapper with heights. */
void overlay__map_on_ground(const tt_ground *g, void (*map3)(const void *user, const double *xyz, int n, double *px),
                            const void *map_user, const double *xy, int n, double *px);

/* For overlay_render_into: clear to opaque black what the last drawing on
 * this ARGB32 surface lit (everything, when cairo drew part of it); 0 when
 * the surface has no such record (then paint it all). */
int overlay__clear_kept(cairo_surface_t *s);

/* What the last drawing on s lit, as overlay__clear_kept will clear it:
 * *tw x th bytes, one per *tile x *tile pixels, non-zero where lit; NULL
 * when s keeps no such record or everything counts as lit. */
const unsigned char *overlay__lit_tiles(cairo_surface_t *s, int *tw, int *tile);

/* overlay_seam_apply, looking only at the pixels in lit tiles (tiles from
 * overlay__lit_tiles; NULL: every pixel). */
tt_status overlay__seam_apply_lit(const overlay_seam *s, cairo_surface_t *surf, const unsigned char *tiles, int tw,
                                  int tile, tt_err *err);

#endif
