/* check.h - holding a rig against a real frame before a game: the anchors
 * seen and the pose's error, how many pixels each cell of a tag spans at
 * every spot of the table, the smallest tag this camera reads everywhere,
 * and advice in words where some spot is below the detector's limit.
 *
 * A cell is the rig's base size_in / 8: the tag's black border spans 8
 * cells (tag36h11).  The limit, CALIB_MIN_PX_PER_CELL, is libapriltag's at
 * full resolution as measured on the test renderer's 1080p frames with blur
 * 0.7 px and noise 2 (tests/check, test_detector_limit; TT_SWEEP=1 prints
 * the sweep): every tag read at 1.8 px per cell, 99-100 % at 1.7, 88-92 % at
 * 1.6, 61-62 % at 1.5 and under 10 % at 1.3.
 *
 * Ownership: calib_check_report's figures array belongs to the report
 * (calib_check_report_free).
 */
#ifndef TT_CALIB_CHECK_H
#define TT_CALIB_CHECK_H

#include "calib.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CALIB_MIN_PX_PER_CELL 1.8
#define CALIB_CELLS_PER_TAG 8.0
#define CALIB_CHECK_STEP_IN 1.0 /* table spots examined: a grid this fine */
#define CALIB_CHECK_ADVICE 4

typedef struct calib_check_figure {
    char family[VISION_FAMILY_LEN];
    int id;
    double x, y;        /* on the base-height plane, inches */
    double px_per_cell; /* measured from its corners */
} calib_check_figure;

typedef struct calib_check_report {
    int ok;                   /* every spot of the table readable */
    int anchors_seen, anchors_total;
    double reprojection_rms_px, reprojection_rms_in;
    double min_px_per_cell;   /* the table's worst spot, for the rig's tag size */
    double min_at[2];         /* where it is, inches */
    double max_px_per_cell;   /* its best spot */
    double smallest_tag_in;   /* the smallest size_in read everywhere */
    double camera_height_in;  /* above the felt */
    calib_check_figure *figures; /* the figure tags seen, owned */
    int nfigures;
    int figures_min;          /* index of the smallest among them, or -1 */
    int phantoms;             /* detections that are no figure (calib/phantom.h), left out of figures */
    char advice[CALIB_CHECK_ADVICE][320];
    int nadvice;
} calib_check_report;

/* Fill r from a frame's detections (at full resolution, for the truest
 * count) and its solved pose.  Errors: TT_ERR_NOMEM. */
tt_status calib_check(const calib_rig *rig, const calib_pose *pose, const vision_detections *dets,
                      calib_check_report *r, tt_err *err);
void calib_check_report_free(calib_check_report *r);
/* The same over ground that is not flat felt (tt_ground, e.g. a scenario's
 * hills, NULL: flat): a spot's tag lies on the ground there, on a slope
 * tilted in the side's plane (it spans fewer pixels than flat). */
tt_status calib_check_ground(const calib_rig *rig, const calib_pose *pose, const vision_detections *dets,
                             const tt_ground *ground, calib_check_report *r, tt_err *err);

/* Pixels a cell of a tag of size_in spans at table point (x, y), lying flat
 * at height_in: the square root of the projected area of the cell. */
double calib_px_per_cell(const calib_rig *rig, const calib_pose *pose, double x, double y, double height_in,
                         double size_in);
/* The same for a cell lying on the ground at (x, y), base_h above it along
 * the ground's normal: on a slope in the side's plane (tilted), not flat. */
double calib_px_per_cell_on(const calib_rig *rig, const calib_pose *pose, const tt_ground *ground, double x,
                            double y, double base_h, double size_in);

#ifdef __cplusplus
}
#endif
#endif
