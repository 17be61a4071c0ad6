/* cvwrap.h - the thin C interface to OpenCV.  The only C++ in tabletrack is
 * cvwrap.cpp; every function here catches every exception and turns it into
 * a tt_status with a message.  No OpenCV type appears in this header.
 *
 * Conventions: pixel coordinates are OpenCV's (centre of pixel (0,0) is at
 * (0,0)).  Camera matrices are row-major double[9].  Distortion vectors use
 * OpenCV's order (k1 k2 p1 p2 [k3 [k4 k5 k6 [s1..s4 [tx ty]]]]), with up to
 * CVW_MAX_DIST entries; `ndist` says how many are in use (0, 4, 5, 8, 12, 14).
 * Rotation vectors are Rodrigues vectors; (rvec, tvec) maps object points
 * into the camera frame as in cv::solvePnP.
 */
#ifndef CVWRAP_H
#define CVWRAP_H

#include "tt_image.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CVW_MAX_DIST 14

typedef struct cvw_camera {
    int width, height;           /* image size the intrinsics belong to */
    double K[9];                 /* camera matrix, row-major */
    double dist[CVW_MAX_DIST];   /* distortion coefficients */
    int ndist;
} cvw_camera;

/* Read an image file (PNG, JPEG, PGM, ...).  channels: 1 = gray, 3 = BGR.
 * The image is allocated into *out (free with tt_image_free).
 * Missing file -> TT_ERR_IO; undecodable -> TT_ERR_FORMAT. */
tt_status cvw_image_read(const char *path, int channels, tt_image *out, tt_err *err);

/* Decode an image held in memory (same rules as cvw_image_read). */
tt_status cvw_image_decode(const void *buf, size_t len, int channels, tt_image *out, tt_err *err);

/* Write an image; the format follows the file extension (.png, .jpg, .pgm).
 * Written to a temporary file and renamed, so nothing half-written remains. */
tt_status cvw_image_write(const char *path, const tt_image *im, tt_err *err);

/* Encode an image as PNG into *buf (malloc'd, the caller frees) of *len bytes. */
tt_status cvw_image_encode_png(const tt_image *im, unsigned char **buf, size_t *len, tt_err *err);

/* out(x, y) = in(map[2(yw+x)], map[2(yw+x)+1]), bilinear; black outside in.
 * map holds w*h (x, y) pairs of floats; out is allocated (tt_image_free). */
tt_status cvw_remap(const tt_image *in, const float *map, int w, int h, tt_image *out, tt_err *err);

/* Read / write OpenCV FileStorage YAML with image_width, image_height,
 * camera_matrix and distortion_coefficients (the layout of OpenCV's
 * calibration sample).  write adds avg_reprojection_error when rms >= 0. */
/* Reading refuses, with an error naming the file, a file over
 * CVW_CAMERA_MAX_BYTES, lists nested deeper than CVW_CAMERA_MAX_DEPTH or
 * indented deeper than CVW_CAMERA_MAX_INDENT columns (before OpenCV's
 * parser sees it), sides over CVW_CAMERA_MAX_SIDE px, and any matrix of the
 * wrong shape or with an entry that is not a finite number. */
#define CVW_CAMERA_MAX_BYTES (1 << 20)
#define CVW_CAMERA_MAX_DEPTH 16
#define CVW_CAMERA_MAX_INDENT 64
#define CVW_CAMERA_MAX_SIDE 32768
tt_status cvw_camera_read(const char *path, cvw_camera *cam, tt_err *err);
tt_status cvw_camera_write(const char *path, const cvw_camera *cam, double rms, tt_err *err);

/* Undistort n pixel points to normalised camera coordinates (x/z, y/z).
 * in and out are n*2 doubles and may alias. */
tt_status cvw_undistort_points(const cvw_camera *cam, const double *in, int n, double *out, tt_err *err);

/* Project n object points (n*3) into pixels (n*2) with distortion. */
tt_status cvw_project_points(const cvw_camera *cam, const double *obj, int n, const double rvec[3],
                             const double tvec[3], double *out, tt_err *err);

/* Camera pose from n >= 4 object/image correspondences.  If use_guess is
 * non-zero, rvec/tvec hold the starting pose.  Refined with Levenberg-
 * Marquardt; *rms receives the reprojection RMS in pixels (may be NULL). */
tt_status cvw_solve_pnp(const cvw_camera *cam, const double *obj, const double *img, int n, int use_guess,
                        double rvec[3], double tvec[3], double *rms, tt_err *err);

/* Rodrigues vector -> row-major 3x3 rotation matrix. */
tt_status cvw_rodrigues(const double rvec[3], double R[9], tt_err *err);

/* Calibrate intrinsics from nviews views.  counts[v] points in view v; obj is
 * sum(counts)*3 doubles, img sum(counts)*2.  cam->width/height must be set;
 * flags_fix_k3 non-zero keeps k3 = 0 (recommended with few views).
 * Fills cam->K, cam->dist (ndist = 5); *rms = overall reprojection RMS px.
 * per_view_rms (nviews doubles) may be NULL. */
tt_status cvw_calibrate_camera(cvw_camera *cam, int nviews, const int *counts, const double *obj,
                               const double *img, int flags_fix_k3, double *rms, double *per_view_rms,
                               tt_err *err);

/* Least-squares homography dst ~ H * src from n >= 4 point pairs (src, dst:
 * n*2 doubles each), normalised DLT refined with Levenberg-Marquardt (no
 * outlier rejection: callers drop outliers and refit).  H is row-major,
 * scaled so H[8] = 1.  Degenerate input (e.g. collinear points) ->
 * TT_ERR_CV. */
tt_status cvw_find_homography(const double *src, const double *dst, int n, double H[9], tt_err *err);

/* The unit vector x (cols doubles) minimising |A x| for a rows x cols
 * row-major matrix A (rows >= cols): its right singular vector of the
 * smallest singular value (a DLT's solution).  TT_ERR_CV if the SVD fails. */
tt_status cvw_null_vector(const double *A, int rows, int cols, double *x, tt_err *err);

/* Compact regions of strong local contrast in an 8-bit gray image (channels
 * 1; may be a view into a larger frame through its stride): the image is
 * halved (area average), pixels whose 3x3 neighbourhood spans at least
 * `level` gray levels (morphological gradient) are marked, grown by one
 * pixel, holes up to (max_side / 2)^2 filled, thin lines (under 5 px: a
 * table edge) opened away, and the outer
 * contours of the regions (also those inside another
 * region's hole) kept whose bounding box has both sides in
 * [min_side, max_side] pixels of the input, an aspect ratio up to 3 and a
 * contour area of at least 40 % of the box: a printed tag (paper, black
 * border and data cells) looks like that; plain felt does not.  Boxes (x, y,
 * w, h in the input's pixels) go into boxes[4 * i], at most max_boxes; *n is
 * the number found (may exceed max_boxes). */
tt_status cvw_contrast_blobs(const tt_image *gray, int min_side, int max_side, int level, int *boxes, int max_boxes,
                             int *n, tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
