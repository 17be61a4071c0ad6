/* overlay.h - drawing answers on the felt: primitives in table inches, mapped
 * to projector (or camera) pixels geometry-first, drawn anti-aliased with
 * cairo.  No detection, no rules internals.
 *
 * Every shape is built in table inches - strokes as outlines of the given
 * width, curves densified - and only then mapped point by point, so widths,
 * circles and arcs stay true under the projector's perspective, its
 * correction grid, or a camera's lens distortion.  Text is drawn through the
 * local affine of the map at its anchor, sized in inches.
 *
 * Colours are roles from the Okabe-Ito colour-blind-safe palette (see
 * overlay_role_rgb); black is "no light", so a projector image has a black
 * background.
 *
 * Ownership: overlay_list is an opaque handle (overlay_list_create /
 * overlay_list_destroy, accepts NULL); adding copies the points and text.
 * A mapper borrows what it maps through (projector map, camera): they must
 * outlive it.
 */
#ifndef TT_OVERLAY_H
#define TT_OVERLAY_H

#include <cairo.h>
#include <jansson.h>

#include "calib.h"
#include "projector.h"
#include "tt_ground.h"
#include "tt_image.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum overlay_role {
    OVERLAY_ROLE_NEUTRAL, /* white: labels, plain outlines */
    OVERLAY_ROLE_CLEAR,   /* sky blue: clear line of sight */
    OVERLAY_ROLE_BLOCKED, /* vermillion (drawn dashed by the adapter): blocked */
    OVERLAY_ROLE_SHORT,   /* bluish green: short range band */
    OVERLAY_ROLE_MEDIUM,  /* yellow: medium range band */
    OVERLAY_ROLE_LONG,    /* orange: long range band */
    OVERLAY_ROLE_ARC,     /* orange: grape cone, firing arc */
    OVERLAY_ROLE_BLAST,   /* vermillion: blast template */
    OVERLAY_ROLE_BALL,    /* yellow: cannonball line */
    OVERLAY_ROLE_COMMAND, /* reddish purple: command radius */
    OVERLAY_ROLE_TARGET,  /* yellow: figures caught, hit or touched */
    OVERLAY_ROLE_COUNT
} overlay_role;

/* Colour of a role, components 0..1. */
void overlay_role_rgb(overlay_role role, double rgb[3]);
const char *overlay_role_name(overlay_role role);

typedef struct overlay_style {
    overlay_role role;
    double width_in;   /* outline width, inches; 0 = no outline */
    int dashed;        /* 1 = dashes (length ~ 0.4", or 4 widths if wider) */
    double fill_alpha; /* 0 = no fill; up to 1 */
    double alpha;      /* outline opacity, 0..1 (0 is taken as 1) */
    double band_in;    /* 0 = fill the whole area; > 0 = fill (at fill_alpha) only
                        * a band this wide, inches, just inside the edge: inside
                        * a circle's circle, a ring's outer circle (its inner
                        * circle is the next band's outer edge), every edge of
                        * a polygon or sector */
} overlay_style;

/* A style with role, width, no dashes, no fill, full opacity. */
overlay_style overlay_style_line(overlay_role role, double width_in);

/* Large areas (command radius, range bands, visible area) are marked by
 * their edge, not flooded: projected light on the felt washes out the
 * figures standing in it.  An outline of width_in and a translucent band
 * OVERLAY_EDGE_BAND_IN wide just inside it, at band_alpha.  Small areas
 * (blast templates, grape cones) stay filled. */
#define OVERLAY_EDGE_BAND_IN 0.5
#define OVERLAY_EDGE_ALPHA 0.3 /* the band's opacity as the adapter draws it */
overlay_style overlay_style_edge(overlay_role role, double width_in, double band_alpha);

typedef struct overlay_list overlay_list;

tt_status overlay_list_create(overlay_list **out, tt_err *err);
void overlay_list_destroy(overlay_list *l);
int overlay_list_count(const overlay_list *l);
void overlay_list_clear(overlay_list *l);

/* Shapes, all in table inches; angles in degrees in the table frame
 * (atan2(dy, dx), as facings).  Each returns TT_ERR_ARG on bad geometry
 * (non-finite values, negative radii, fewer than 2 or 3 points) and
 * TT_ERR_NOMEM. */
tt_status overlay_add_line(overlay_list *l, double x0, double y0, double x1, double y1, overlay_style st,
                           tt_err *err);
tt_status overlay_add_polyline(overlay_list *l, const double *xy, int n, overlay_style st, tt_err *err);
tt_status overlay_add_polygon(overlay_list *l, const double *xy, int n, overlay_style st, tt_err *err);
tt_status overlay_add_circle(overlay_list *l, double cx, double cy, double r, overlay_style st, tt_err *err);
/* The arc of a circle only (no radii), from a0 to a1 counter-clockwise in
 * table angles (a1 > a0; a1 - a0 <= 360). */
tt_status overlay_add_arc(overlay_list *l, double cx, double cy, double r, double a0_deg, double a1_deg,
                          overlay_style st, tt_err *err);
/* A cone / pie slice: centre, two radii and the arc between (r0 > 0 cuts
 * the tip off: an annular sector). */
tt_status overlay_add_sector(overlay_list *l, double cx, double cy, double r0, double r1, double a0_deg,
                             double a1_deg, overlay_style st, tt_err *err);
/* A band between two radii (range band). */
tt_status overlay_add_ring(overlay_list *l, double cx, double cy, double r0, double r1, overlay_style st,
                           tt_err *err);
/* Text centred on (x, y), cap height size_in inches, baseline along
 * angle_deg (0: along +x, glyphs upright for a player at the y = depth
 * edge looking toward y = 0). */
tt_status overlay_add_text(overlay_list *l, double x, double y, const char *text, double size_in, double angle_deg,
                           overlay_role role, tt_err *err);

/* Draw the primitive added last at z_in inches above the felt, whole,
 * rather than on the ground under each of its points: a figure's ring at
 * the height the figure was measured at (on a hill no scenario declares).
 * Only a mapper with heights (map3) uses it.  TT_ERR_ARG on an empty list
 * or a height that is not finite or below the felt. */
tt_status overlay_set_last_height(overlay_list *l, double z_in, tt_err *err);

/* Keep a tag dark: nothing the list draws lights a square of side
 * OVERLAY_TAG_MASK_FACTOR x tag_size_in (the tag's black border, the rig's
 * base size_in) centred on (x, y) and turned to facing_deg, at z_in above
 * the felt: the projector's light must not fall on the tags the camera
 * reads.  Masks are painted black after every primitive, whatever the
 * order they were added in; overlay_list_clear drops them too. */
#define OVERLAY_TAG_MASK_FACTOR 2.1
tt_status overlay_add_tag_mask(overlay_list *l, double x, double y, double facing_deg, double tag_size_in,
                               double z_in, tt_err *err);
int overlay_list_mask_count(const overlay_list *l);
/* The list's primitives as a JSON array, in drawing order, then its tag
 * masks (docs/api.md, "What an answer looks like"): each an object with
 * "kind" (polyline, polygon, circle, arc, sector, ring, text, tag_mask),
 * "role" and its style and shape in table inches (places to 0.01", angles
 * to 0.1 degree; a line's points that stray less than OVERLAY_JSON_TOL_IN
 * from it are left out).  *out is the caller's. */
#define OVERLAY_JSON_TOL_IN 0.005
tt_status overlay_list_to_json(const overlay_list *l, json_t **out, tt_err *err);
/* The same for primitives first to last - 1 only (those one answer added),
 * without the masks. */
tt_status overlay_list_range_json(const overlay_list *l, int first, int last, json_t **out, tt_err *err);

/* The radius of a ring drawn around a tag of tag_size_in that its mask
 * never hides (half the mask's diagonal and a line's width). */
double overlay_tag_ring_in(double tag_size_in);

/* ---- mapping to pixels ------------------------------------------------ */

typedef struct overlay_mapper {
    /* table inches (n*2) -> pixels (n*2); NaN where the point cannot be
     * mapped (those pieces are skipped). */
    void (*map)(const void *user, const double *xy, int n, double *px);
    const void *user;
    int width, height; /* target image size */
    /* Optional (NULL: every mark on the felt): table points with heights
     * (n*3: x, y, height_in) -> pixels, and the ground under each point.
     * Then `map` is map3 at the ground's height, the drawing cuts edges
     * where the ground changes height (a line from a hill to the felt
     * follows it) and sizes strokes and text at their own height. */
    void (*map3)(const void *user, const double *xyz, int n, double *px);
    tt_ground ground;
} overlay_mapper;

/* Through projector.json's map (projector pixels), on the felt. */
void overlay_mapper_projector(overlay_mapper *m, const calib_projector *pj);

/* Through projector.json's map with every mark at the height of the ground
 * under it (a blast on a hill lands on the hill's top; a figure's ring at
 * the height it stands at).  A plane-only projector (calibrated without a
 * raised piece), or a NULL ground, gives overlay_mapper_projector's
 * mapper.  `state` is caller storage that must outlive the mapper; the
 * ground's `user` likewise. */
typedef struct overlay_projector_map {
    const calib_projector *pj;
    tt_ground ground;
} overlay_projector_map;
void overlay_mapper_projector_ground(overlay_mapper *m, overlay_projector_map *state, const calib_projector *pj,
                                     const tt_ground *ground);

/* Through a camera and its pose (camera pixels, with lens distortion), at
 * height 0.  `state` is caller storage that must outlive the mapper. */
typedef struct overlay_camera_map {
    const cvw_camera *cam;
    calib_pose pose;
    tt_ground ground;
} overlay_camera_map;
void overlay_mapper_camera(overlay_mapper *m, overlay_camera_map *state, const cvw_camera *cam,
                           const calib_pose *pose);
/* The same with every mark at the height of the ground under it (a blast
 * on a hill drawn on the hill's top in the camera's picture); a NULL ground
 * is overlay_mapper_camera.  The ground's `user` must outlive the mapper. */
void overlay_mapper_camera_ground(overlay_mapper *m, overlay_camera_map *state, const cvw_camera *cam,
                                  const calib_pose *pose, const tt_ground *ground);

/* ---- drawing ---------------------------------------------------------- */

/* Draw every primitive (in order) onto cr, whose user space is the target
 * pixels.  cr's state is saved and restored. */
tt_status overlay_draw(const overlay_list *l, const overlay_mapper *m, cairo_t *cr, tt_err *err);

/* A new W x H ARGB32 surface, black, with the overlay drawn (the projector
 * image).  *out owned by the caller: cairo_surface_destroy. */
tt_status overlay_render(const overlay_list *l, const overlay_mapper *m, cairo_surface_t **out, tt_err *err);

/* The same into an existing W x H ARGB32 image surface (cleared to black
 * first).  For live use: a surface kept from frame to frame keeps what the
 * drawing keeps with it (scratch buffers, labels already rendered, which
 * pixels it lit), so each frame costs only its drawing and clearing what
 * the last one lit.  Draw on such a surface only through this function
 * (reading it - a window, a PNG - is fine). */
tt_status overlay_render_into(const overlay_list *l, const overlay_mapper *m, cairo_surface_t *s, tt_err *err);

/* The overlay drawn over a camera frame (8-bit gray or BGR, as read by
 * cvw_image_read), for a monitor or stream.  *out: RGB24 surface. */
tt_status overlay_render_on_image(const overlay_list *l, const overlay_mapper *m, const tt_image *frame,
                                  cairo_surface_t **out, tt_err *err);

/* Write a surface as PNG, atomically (temporary file + rename). */
tt_status overlay_write_png(cairo_surface_t *s, const char *path, tt_err *err);

/* Show a surface fullscreen with SDL2 on display `display` (an X display
 * name like ":1"; NULL = $DISPLAY) until a key is pressed, the window is
 * closed, or hold_ms milliseconds pass (hold_ms < 0: no time limit). */
tt_status overlay_window_show(cairo_surface_t *s, const char *display, int hold_ms, tt_err *err);

/* A fullscreen window that stays open for live use: present a new surface
 * per frame; overlay_window_poll says what the user did in it (keys, closed).
 * overlay_window_close accepts NULL. */
typedef struct overlay_window overlay_window;
tt_status overlay_window_open(const char *display, int width, int height, overlay_window **out, tt_err *err);
tt_status overlay_window_present(overlay_window *w, cairo_surface_t *s, tt_err *err);
void overlay_window_close(overlay_window *w);

/* What happened in the window since the last call (one event per call;
 * call until OVERLAY_WIN_NONE).  CLOSED: the window manager closed it. */
typedef enum overlay_window_event {
    OVERLAY_WIN_NONE = 0,
    OVERLAY_WIN_CLOSED,
    OVERLAY_WIN_ESC,
    OVERLAY_WIN_KEY_F,
    OVERLAY_WIN_KEY_H,
    OVERLAY_WIN_KEY_OTHER
} overlay_window_event;
overlay_window_event overlay_window_poll(overlay_window *w);
void overlay_window_toggle_fullscreen(overlay_window *w);

#ifdef __cplusplus
}
#endif
#endif
