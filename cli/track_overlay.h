/* track_overlay.h - the live overlay of 'tabletrack track': each frame, the
 * figures where they stand (a ring and a facing tick, dashed while hidden),
 * the answers to the --query questions asked again with the figures' live
 * positions, and "camera lost" while the camera is away; drawn through
 * projector.json into a projector window and/or PNG frames.
 *
 * Owned by the caller: track_overlay_destroy (accepts NULL). */
#ifndef TT_TRACK_OVERLAY_H
#define TT_TRACK_OVERLAY_H

#include "live.h"
#include "rec.h"
#include "tt_status.h"

typedef struct track_overlay track_overlay;

typedef struct track_overlay_opts {
    const char *scenario;    /* may be NULL: figures only, no queries */
    const char *projector;   /* projector.json (required) */
    const char *window;      /* non-NULL: open a fullscreen window ("" = $DISPLAY) */
    const char *png_dir;     /* non-NULL: write overlay_NNNNN.png per frame */
    const char *const *queries; /* NULL-terminated query JSON strings (every frame) */
    const char *queries_file;   /* JSON Lines: queries with "frame" (first) and
                                   optional "until" (last frame shown) */
    double base_radius_in;   /* ring radius around each figure, inches */
    double table_w, table_d; /* table size (for the camera-lost notice) */
} track_overlay_opts;

tt_status track_overlay_create(const track_overlay_opts *o, track_overlay **out, tt_err *err);
void track_overlay_destroy(track_overlay *t);

/* Draw one frame.  camera_lost non-zero adds the "camera lost" notice.
 * With a recorder, each --query answer is recorded when it changes. */
tt_status track_overlay_frame(track_overlay *t, int frame_no, const track_figure *figs, int n, int camera_lost,
                              rec *recorder, long long t_ms, tt_err *err);

#endif
