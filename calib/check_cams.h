/* check_cams.h - 'check' for a rig of several cameras (issue 31): per
 * camera, the anchors it sees, its pose error and its pixels per cell over
 * its part of the table; for the table, a coverage map (which cameras read
 * each spot at the detector's limit, CALIB_MIN_PX_PER_CELL, with the whole
 * printed tag in the frame), every spot no camera reads gathered into
 * rectangles (gaps), the width of each overlap, and advice in words: which
 * camera to move, turn or lower, and by how much.  A gap fails the check.
 *
 * Ownership: the report's coverage map belongs to it
 * (calib_check_cams_free, accepts NULL).
 */
#ifndef TT_CALIB_CHECK_CAMS_H
#define TT_CALIB_CHECK_CAMS_H

#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CALIB_CHECK_MAX_GAPS 16
#define CALIB_CHECK_CAMS_ADVICE 8

typedef struct calib_check_camera {
    int anchors_seen;
    char anchors[400];        /* the anchors it sees, "tag36h11 0, 3, 4" */
    double reprojection_rms_px, reprojection_rms_in;
    double min_px_per_cell, max_px_per_cell; /* over the spots in its frame */
    double min_at[2];
    double camera_height_in;
    double part[4];           /* x0, y0, x1, y1: the spots it reads, inches */
    int spots;                /* how many it reads */
} calib_check_camera;

typedef struct calib_check_gap {
    double x0, y0, x1, y1; /* a rectangle in table inches around spots no camera reads */
    int cam_a, cam_b;      /* the cameras nearest it (cam_b -1 when only one is near) */
} calib_check_gap;

typedef struct calib_check_overlap {
    int cam_a, cam_b;
    double width_in; /* across the overlap, along the line between the two cameras' parts */
} calib_check_overlap;

typedef struct calib_check_cams_report {
    int ok; /* no gap */
    int ncams;
    calib_check_camera cams[CALIB_MAX_CAMERAS];
    calib_check_gap gaps[CALIB_CHECK_MAX_GAPS];
    int ngaps, more_gaps; /* more_gaps: gaps beyond CALIB_CHECK_MAX_GAPS, not listed */
    calib_check_overlap overlaps[CALIB_MAX_CAMERAS * (CALIB_MAX_CAMERAS - 1) / 2];
    int noverlaps;
    unsigned char *cover; /* nx * ny spots, row-major from (0, 0): bit k set when camera k reads it */
    int nx, ny;
    double step_in;
    char advice[CALIB_CHECK_CAMS_ADVICE][400];
    int nadvice;
} calib_check_cams_report;

/* Check a rig of rig->ncameras cameras from each one's detections dets[k]
 * (full resolution) and pose poses[k].  Errors: TT_ERR_NOMEM. */
tt_status calib_check_cams(const calib_rig *rig, const calib_pose *poses, const vision_detections *dets,
                           calib_check_cams_report *r, tt_err *err);
void calib_check_cams_free(calib_check_cams_report *r);

/* The coverage map in characters, one per cell_in x cell_in square (rows
 * from y = 0): '1'..'8' the one camera that reads it, '+' two or more,
 * '#' none (part of a gap).  Writes rows of ncols characters each,
 * NUL-terminated, into rows (room for nrows * (ncols + 1)); returns the
 * number of rows. */
int calib_check_cams_map(const calib_check_cams_report *r, double cell_in, char *rows, int *ncols, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
