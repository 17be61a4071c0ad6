/* vision.h - AprilTag detection on camera frames (pixels only: no inches,
 * no rules, no drawing).
 *
 * Corners and centres are in OpenCV's pixel convention: the centre of the
 * first pixel is (0,0).  libapriltag reports (0,0) at the top-left corner of
 * the first pixel, so vision_detect subtracts 0.5 from every coordinate.
 * Corner order is libapriltag's: for an upright printed tag, corners[0] is
 * bottom-left, [1] bottom-right, [2] top-right, [3] top-left, so the printed
 * top edge runs from corners[3] to corners[2].
 */
#ifndef TT_VISION_H
#define TT_VISION_H

#include "families.h"
#include "tt_image.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VISION_MAX_FAMILIES 9
#define VISION_FAMILY_LEN 24

typedef struct vision_detector_opts {
    const char *families[VISION_MAX_FAMILIES]; /* names; none = tag36h11 */
    int nfamilies;
    double decimate;   /* libapriltag quad_decimate; default 2 */
    int refine_edges;  /* 0 or 1; default 1 */
    double sigma;      /* quad_sigma; default 0 */
    int nthreads;      /* default 1 */
    int second_pass;   /* 0 or 1; default 1: when decimate > 1, look again at
                          full resolution where something tag-like was seen
                          but no tag decoded (see vision_detect_rect) */
    int auto_scale;    /* 0 or 1; default 0: when decimate > 1 and the
                          smallest tag found spans fewer than
                          VISION_HALF_MIN_PX_PER_CELL px per cell (or none
                          is found), search the whole window again at full
                          resolution (tabletrack detect without --decimate) */
    int refine_corners; /* 0 or 1; default 1: the corners of every tag of
                           VISION_REFINE_MIN_PX_PER_CELL px per cell or more
                           refined from its edges (vision_refine_corners) */
} vision_detector_opts;

/* The smallest tag the decimate-2 search (with its second pass) reads, in
 * pixels per cell of the tag (a tag36h11's black border spans 8 cells):
 * measured on the test renderer's 1080p frames with blur 0.7 px and noise 2
 * (tests/check test_half_limit; TT_SWEEP=1 prints the sweep): every tag at
 * 3.2, 99-100 % at 3.0, 89-91 % at 2.8, 55 % at 2.4, 19-23 % at 2.0, 8-11 %
 * at 1.8.  Smaller tags need full resolution, which reads down to 1.8
 * (CALIB_MIN_PX_PER_CELL, calib/check.h).  The same sweep at 4K with
 * blur 1 px, noise 4 and a 50 % light falloff gives the same limit (100 %
 * at 3.2, 94-99 % at 3.0, 83-90 % at 2.8): it is in px per cell whatever
 * the camera. */
#define VISION_HALF_MIN_PX_PER_CELL 3.2

/* Fill opts with the defaults above. */
void vision_detector_opts_default(vision_detector_opts *opts);

typedef struct vision_detection {
    char family[VISION_FAMILY_LEN];
    int id;
    int hamming;
    double margin;        /* libapriltag decision_margin */
    double center[2];     /* OpenCV pixel convention */
    double corners[4][2]; /* libapriltag order, OpenCV pixel convention */
} vision_detection;

typedef struct vision_detections {
    vision_detection *items; /* owned; free with vision_detections_free */
    int count;
} vision_detections;

typedef struct vision_detector vision_detector;

/* Family names and lookups (vision_family_known, vision_family_list, ...):
 * families.h.  The large families (tagCircle49h12, tagCustom48h12,
 * tagStandard52h13) are added with 1 corrected bit, the others with 2. */

/* Create a detector.  Unknown family -> TT_ERR_UNKNOWN naming the known
 * ones.  *out is owned by the caller: vision_detector_destroy. */
tt_status vision_detector_create(const vision_detector_opts *opts, vision_detector **out, tt_err *err);
void vision_detector_destroy(vision_detector *det);

/* Detect tags in an 8-bit gray image (channels == 1).  out is filled with
 * a new list (free with vision_detections_free), sorted by family then id. */
tt_status vision_detect(vision_detector *det, const tt_image *gray, vision_detections *out, tt_err *err);
void vision_detections_free(vision_detections *d);

/* Detect only inside the window (x0, y0, w, h) of the frame (no copy: the
 * detector reads a view).  Coordinates come back in full-frame pixels.
 *
 * Second pass (opts.second_pass, decimate > 1): a decimated search misses
 * small tags on blurry, noisy frames (the black border is thinner than
 * two decimated pixels).  So the window is searched for compact regions of
 * strong contrast (cvw_contrast_blobs: a printed tag) of 0.5 to 1.6 times
 * the side of the tags found (8 px to a quarter of the window if none), and
 * each one with no decoded tag over its centre is detected again at full
 * resolution in a window twice its size around it.  Those windows cover at most VISION_SECOND_PASS_MAX_AREA of
 * the window's pixels (largest blobs first), so the pass never costs more
 * than a fraction of a full-resolution search. */
#define VISION_SECOND_PASS_MAX_AREA 0.125

/* What the last vision_detect / vision_detect_rect call's second pass did:
 * windows searched at full resolution, tags it added. */
void vision_detector_second_pass_stats(const vision_detector *det, int *windows, int *found);
tt_status vision_detect_rect(vision_detector *det, const tt_image *gray, int x0, int y0, int w, int h,
                             vision_detections *out, tt_err *err);

/* Search each of the n rectangles rects[4*i .. 4*i+3] (x, y, w, h, pixels;
 * clipped to the frame) at full resolution and add the tags found there
 * to out, which keeps its own copy of a tag found twice (same family and
 * id, centres closer than its side) and stays sorted.  On error out is
 * left as it was. */
tt_status vision_detect_full_res(vision_detector *det, const tt_image *gray, const int *rects, int n,
                                 vision_detections *out, tt_err *err);

/* Pixels per cell of a detection: its mean side over the cells its family
 * spans at the black border (8 for tag36h11); 0 if det does not know the
 * family. */
double vision_detection_px_per_cell(const vision_detector *det, const vision_detection *d);

/* Refine d's corners (and centre) in gray, the frame it was found in:
 * each of its four outer edges found across its middle by the light on
 * either side (a step's integral, whatever the blur, wherever it falls
 * within its pixel), fitted by a line, adjacent lines met.  libapriltag's
 * own edges along the pixel grid can be a tenth of a pixel off
 * (refine.c).  Needs px_per_cell >= VISION_REFINE_MIN_PX_PER_CELL (the
 * window across an edge is 0.3 of a cell each way, inside the black
 * border and the white quiet border).  Returns 1 when refined; 0 leaves d
 * as it was (a small tag, an edge without a clear step, a corner that
 * would move more than half a pixel). */
#define VISION_REFINE_MIN_PX_PER_CELL 5.0
int vision_refine_corners(const tt_image *gray, vision_detection *d, double px_per_cell);

/* The underlying libapriltag detector (apriltag_detector_t *), for
 * benchmarks that compare against raw apriltag_detector_detect. */
void *vision_detector_raw(vision_detector *det);

#ifdef __cplusplus
}
#endif
#endif
