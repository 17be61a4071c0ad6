/* scale.h - the scale each part of the frame must be read at, from the
 * rig's tag sizes and the camera pose (pixels out: vision/ knows no
 * inches).
 *
 * The half-size search (decimate 2, with its second look) reads a tag down
 * to VISION_HALF_MIN_PX_PER_CELL px per cell; full resolution reads down to
 * CALIB_MIN_PX_PER_CELL (check.h).  So the figure tags (the rig's base
 * size_in) are read at half size where they span at least
 * VISION_HALF_MIN_PX_PER_CELL, and at full resolution in one rectangle of
 * the frame covering every spot of the table (grown by a base beyond its
 * edges) where they span less: all of the table for 1" tags under a 1080p
 * webcam, none of it for 0.8" tags under a 4K camera 80" up.
 *
 * Ownership: nothing is allocated; the caller owns every argument.
 */
#ifndef TT_CALIB_SCALE_H
#define TT_CALIB_SCALE_H

#include "calib.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CALIB_SCALE_STEP_IN 1.0 /* table spots examined: a grid this fine */

/* The rectangle (x, y, w, h, pixels, clipped to width x height) of the
 * frame where figure tags must be read at full resolution; w = h = 0 when
 * the half-size search reads them everywhere.  Errors: TT_ERR_NOMEM. */
tt_status calib_fine_rect(const calib_rig *rig, const calib_pose *pose, int width, int height, int rect[4],
                          tt_err *err);

/* One frame's tags at the scale the rig needs: det's own search (at its
 * decimate, with its second look), the pose from the anchors, then -- with
 * rescale, for a detector at decimate > 1 -- calib_fine_rect searched again
 * at full resolution and merged in.  dets (free with vision_detections_free)
 * and pose are filled; fine_rect (may be NULL) gets the rectangle searched
 * again.  Errors: those of vision_detect and calib_pose_solve. */
tt_status calib_detect(const calib_rig *rig, vision_detector *det, const tt_image *gray, int rescale,
                       vision_detections *dets, calib_pose *pose, int fine_rect[4], tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
