/* camera_calib.h - camera intrinsics from photos of a printed tag board
 * (see board.h).  Collect views with calib_camera_add_image (runs tag
 * detection) or calib_camera_add_points (tag corners already known), then
 * calib_camera_solve.
 *
 * A view is skipped (not an error) when it shows fewer than
 * opts.min_tags_per_image board tags, when its board tags all lie in one
 * row or column, or when its size differs from the size most views have;
 * calib_camera_view_info says why.  Solving fails with TT_ERR_ARG when fewer
 * than opts.min_images views are usable.
 *
 * Ownership: calib_camera_create copies the board and options; the handle
 * owns every view and is freed with calib_camera_destroy (accepts NULL).
 * Pointers from calib_camera_view_info stay valid until the next add or
 * destroy.
 */
#ifndef TT_CALIB_CAMERA_CALIB_H
#define TT_CALIB_CAMERA_CALIB_H

#include "board.h"
#include "cvwrap.h"
#include "tt_image.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct calib_camera_opts {
    int min_tags_per_image; /* default 8 */
    int min_images;         /* default 3 */
    int fix_k3;             /* default 1: k3 = 0 (stable with few views) */
    double decimate;        /* detector quad_decimate, default 2 */
} calib_camera_opts;

void calib_camera_opts_default(calib_camera_opts *opts);

#define CALIB_VIEW_NAME_LEN 256
#define CALIB_VIEW_NOTE_LEN 256

typedef struct calib_camera_view {
    char name[CALIB_VIEW_NAME_LEN]; /* file name or label given when added */
    int width, height;              /* image size */
    int ntags;                      /* board tags used (duplicates dropped) */
    int nother;                     /* tags seen that are not on the board */
    int used;                       /* 1 if it went into the solution */
    double rms_px;                  /* reprojection RMS of this view; -1 if unused */
    double tilt_deg;                /* angle between board normal and optical axis; -1 if unused */
    char note[CALIB_VIEW_NOTE_LEN]; /* why it was skipped; empty if used */
} calib_camera_view;

typedef struct calib_camera_result {
    double rms_px;       /* overall reprojection RMS, pixels */
    int nused;           /* views used */
    int npoints;         /* corner points used */
    double max_tilt_deg; /* largest board tilt among used views */
} calib_camera_result;

typedef struct calib_camera calib_camera;

tt_status calib_camera_create(const calib_board *board, const calib_camera_opts *opts, calib_camera **out,
                              tt_err *err);
void calib_camera_destroy(calib_camera *cc);

/* Detect the board's tags in an 8-bit gray image and add the view.
 * Returns an error only for bad arguments or out of memory; a view with
 * too few tags is recorded as skipped. */
tt_status calib_camera_add_image(calib_camera *cc, const char *name, const tt_image *gray, tt_err *err);

/* Add a view from known tag corners: ids[i] with corners[i] in libapriltag
 * order, OpenCV pixel convention.  Ids not on the board are counted in
 * nother; an id seen twice is dropped (both copies). */
tt_status calib_camera_add_points(calib_camera *cc, const char *name, int width, int height, const int *ids,
                                  const double (*corners)[4][2], int ntags, tt_err *err);

int calib_camera_nviews(const calib_camera *cc);
const calib_camera_view *calib_camera_view_info(const calib_camera *cc, int i);

/* Calibrate from the usable views.  Fills cam (size, K, dist with ndist 5)
 * and res; updates each view's used / rms_px / tilt_deg / note.  Too few
 * usable views -> TT_ERR_ARG with a message naming the minimum and why
 * views were skipped. */
tt_status calib_camera_solve(calib_camera *cc, cvw_camera *cam, calib_camera_result *res, tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
