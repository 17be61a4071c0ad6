/* live_scale.h - the live table tells the tracker where figure tags are too
 * small for the half-size search: whenever the pose is solved (the first
 * time, or again after the camera moved), calib_fine_rect's rectangle goes
 * to vision_tracker_set_fine, which reads it at full resolution.
 *
 * A track_live_scale is a plain struct owned by the caller (no allocation):
 * zero it with track_live_scale_init before the first frame.
 */
#ifndef TT_TRACK_LIVE_SCALE_H
#define TT_TRACK_LIVE_SCALE_H

#include "live.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct track_live_scale {
    int solves;  /* the live table's pose solves last seen */
    int rect[4]; /* the rectangle last given to the tracker (w = 0: none) */
} track_live_scale;

void track_live_scale_init(track_live_scale *s);

/* After track_live_update on a width x height frame: when the pose was
 * solved since the last call, give the tracker its fine rectangle, and set
 * *search_again (may be NULL) when there is one: on a frame that ran the
 * full-frame detection, the caller then updates the tracker and the live
 * table again with the same frame, so the tags too small for the half-size
 * search are in the first frame's figures too (that frame's figures settle
 * one update early).  Errors: TT_ERR_NOMEM. */
tt_status track_live_scale_update(track_live_scale *s, const calib_rig *rig, const track_live *live,
                                  vision_tracker *trk, int width, int height, int *search_again, tt_err *err);

/* The same for camera k of a live table of several cameras (its pose, its
 * view of the rig), with trk that camera's tracker and s its own. */
tt_status track_live_scale_update_cam(track_live_scale *s, const track_live *live, int k, vision_tracker *trk,
                                      int width, int height, int *search_again, tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
