/* calib.h - rig files, the table pose from anchor tags, and the mapping from
 * camera pixels to table inches (no rules, no drawing).
 *
 * Frames
 * - Table: inches, origin at a table corner, x along the width, y along the
 *   depth, as defined by the rig's anchors.  The 3D table frame is the one
 *   cv::solvePnP recovers from anchor corners at z = 0; the camera's side of
 *   the felt is found from the solved pose, so heights are applied toward
 *   the camera whatever the handedness.
 * - Pixels: OpenCV convention (vision/ has already removed libapriltag's
 *   half-pixel offset).
 *
 * Mapping a base tag: undistort its corners -> rays from the camera centre ->
 * intersect with the plane at its height (the ground under it plus the base
 * height) -> centre = mean of the four corners on that plane (exact for a
 * square); facing from the four edges.  Its own shape (the known tag
 * size) measures that height and its tilt.
 */
#ifndef TT_CALIB_H
#define TT_CALIB_H

#include "cvwrap.h"
#include "tt_ground.h"
#include "tt_status.h"
#include "vision.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct calib_anchor {
    char family[VISION_FAMILY_LEN];
    int id;
    double x, y;    /* centre on the felt, inches */
    double size_in; /* edge of the detected square */
} calib_anchor;

/* One camera of a rig with several ("cameras": [{"camera": "left.yaml",
 * "source": "usb:SERIAL"}, ...], in order). */
#define CALIB_MAX_CAMERAS 8
#define CALIB_SOURCE_LEN 256
typedef struct calib_rig_camera {
    char path[4096];               /* its camera.yaml, resolved against the rig file's folder */
    char name[128];                /* how messages name it: "camera 2 (right.yaml)" */
    char source[CALIB_SOURCE_LEN]; /* "" when the entry gives none */
    cvw_camera camera;
} calib_rig_camera;

typedef struct calib_rig {
    double width_in, depth_in;
    char camera_path[4096]; /* resolved against the rig file's folder; with several cameras, the first's */
    cvw_camera camera;      /* loaded from camera_path */
    calib_rig_camera cameras[CALIB_MAX_CAMERAS]; /* every camera in rig order; the single "camera" form gives 1 */
    int ncameras;
    calib_anchor *anchors;  /* owned by the rig */
    int nanchors;
    char base_families[VISION_MAX_FAMILIES][VISION_FAMILY_LEN];
    int nbase_families;
    double base_size_in;
    double base_height_mm;
    /* Optional "camera_settings" for live capture; -1 / 0 = camera default. */
    struct {
        int width, height; /* resolution to ask for */
        double fps;
        int mjpeg;         /* 1: ask for MJPEG (default 1) */
        int exposure, focus, white_balance, gain; /* -1: leave on auto */
    } capture;
} calib_rig;

/* Load and validate a rig file and the camera.yaml it names.  Malformed JSON
 * is reported with line and column; a missing or wrong field by name.
 * *out is owned by the caller: calib_rig_destroy (accepts NULL). */
tt_status calib_rig_load(const char *path, calib_rig **out, tt_err *err);
void calib_rig_destroy(calib_rig *rig);

/* A shallow copy of rig that is camera k's alone (camera, camera_path and
 * ncameras = 1), for the functions that take one camera.  view shares rig's
 * anchors: never calib_rig_destroy it; it lives no longer than rig. */
void calib_rig_view(const calib_rig *rig, int k, calib_rig *view);

/* One frame (or source) per camera, in rig order: TT_ERR_ARG saying how
 * many cameras the rig has and naming them when nframes differs. */
tt_status calib_rig_check_frames(const calib_rig *rig, int nframes, tt_err *err);

/* Index of the anchor with this family and id, or -1. */
int calib_rig_anchor_index(const calib_rig *rig, const char *family, int id);

/* 1 if a tag of this family and id is a figure's base tag: a base family
 * of the rig and not an anchor. */
int calib_rig_is_base_tag(const calib_rig *rig, const char *family, int id);

/* Detector options covering every family the rig uses (anchors and bases);
 * the family names point into rig, so rig must outlive opts. */
void calib_rig_detector_opts(const calib_rig *rig, vision_detector_opts *opts);

/* Check that an image of width x height fits the rig's camera.yaml. */
tt_status calib_rig_check_image(const calib_rig *rig, int width, int height, tt_err *err);

typedef struct calib_pose {
    double rvec[3], tvec[3]; /* table -> camera (cv::solvePnP convention) */
    double R[9];             /* rotation of rvec, row-major */
    double center[3];        /* camera centre in the table frame */
    double up;               /* +1 or -1: the sign of z on the camera's side */
    int anchors_used;
    double rms_px;           /* reprojection RMS of the anchor corners */
} calib_pose;

/* Solve the camera pose from every corner of every visible anchor.  Needs at
 * least 2 anchors; fewer -> TT_ERR_ANCHORS naming the ids not seen.  An
 * anchor whose corners disagree with the others by more than a few pixels
 * (moved, or a stray tag with an anchor's id) is left out when at least 3
 * remain. */
tt_status calib_pose_solve(const calib_rig *rig, const vision_detections *dets, calib_pose *pose, tt_err *err);
/* The pose is refused (TT_ERR_ANCHORS naming the anchors, worst first) when
 * it is not finite or its reprojection RMS exceeds CALIB_MAX_REPROJ_PX:
 * positions from such a pose would be nonsense. */
#define CALIB_MAX_REPROJ_PX 5.0
#define CALIB_POSE_NAMED 64 /* anchors named in that message at most */

/* Map n pixels (n*2, OpenCV convention) to table inches (n*2) on the plane
 * height_in above the felt.  A pixel whose ray misses the plane (e.g. above
 * the horizon) gets NaN. */
tt_status calib_map_pixels(const cvw_camera *cam, const calib_pose *pose, const double *px, int n, double height_in,
                           double *out, tt_err *err);

/* Table inches (with height) -> pixels, with distortion. */
tt_status calib_project(const cvw_camera *cam, const calib_pose *pose, const double *xy, int n, double height_in,
                        double *px, tt_err *err);

/* Map n points already undistorted to normalised camera coordinates
 * (cvw_undistort_points' output, n*2) to table inches (n*2), point i on the
 * plane heights[i / per] inches above the felt (per = 4: a tag's corners
 * share one height).  A ray that misses its plane gets NaN. */
void calib_map_normalized(const calib_pose *pose, const double *norm, int n, const double *heights, int per,
                          double *out);

/* How a figure's height was chosen (calib_figure.height).  Decided by the
 * errors (calib_err.c): the figure's own height is "off" the ground only
 * when the two differ by more than CALIB_SURE_SIGMAS of their combined
 * error, so a correct rig's noise never makes a warning. */
typedef enum calib_height {
    CALIB_HEIGHT_GROUND = 0, /* the ground's (tt_ground; the felt without one): its own measurement agrees */
    CALIB_HEIGHT_SLOPE,      /* tilted on a slope that no ground declares, beside raised ground: at its
                                measured height */
    CALIB_HEIGHT_OFF,        /* its own height is off the ground beyond both errors (an undeclared hill, a
                                roof, held in the air): at its measured height, or on the felt when
                                it is level, below its declared ground and within its error of the
                                felt (that piece is not where the scenario says); worth a warning */
    CALIB_HEIGHT_BELOW       /* measured below the felt beyond its error: impossible, so on the ground; the
                                rig's anchors or base size_in are wrong: worth a warning */
} calib_height;
#define CALIB_SURE_SIGMAS 4.0    /* "beyond its error" for decisions and warnings (a 99.99% two-sided bound) */
#define CALIB_MAYBE_SIGMAS 2.0   /* between this and CALIB_SURE_SIGMAS: kept on the ground, its height error
                                    stretched to reach its own measurement */
#define CALIB_SLOPE_DEG 20.0
#define CALIB_TILT_MAX_DEG 50.0 /* a tag's pose tilted more than this is not believed (a mirror pose) */
#define CALIB_SLOPE_REACH_IN 3.0 /* a tilted tag is on a slope of any raised ground within this */
#define CALIB_GROUND_Z95_IN 0.005 /* a declared ground's (or the felt's) height, 95%: the base's thickness */
#define CALIB_GROUND_SLOPED 0.05 /* a declared ground whose gradient exceeds this (about 3 degrees) is a slope */

typedef struct calib_figure {
    char family[VISION_FAMILY_LEN];
    int id;
    double x, y;       /* centre of the base on the ground it stands on, inches */
    double facing_deg; /* (-180, 180] */
    int det_index;     /* index into the detections it came from */
    /* Heights above the felt, inches, of what the base stands on (the tag
     * is the rig's base height higher, along the ground's normal on a
     * slope).  Always finite. */
    double z_in;        /* where it was mapped (see height) */
    double ground_in;   /* the ground's height under it (0 without a ground) */
    double measured_in; /* its tag's own 3D pose (rig base size_in) minus the base height;
                           = ground_in when the pose could not be measured */
    double tilt_deg;    /* the tag's normal from vertical (0 when not measured) */
    int measured;       /* 1: measured_in and tilt_deg come from the tag's pose */
    calib_height height;
    /* Errors, each a 95% bound (calib_err.c; docs/limits.md has the model
     * and how it was fitted).  Always finite and > 0. */
    double err95_in;         /* radius around (x, y) holding the truth */
    double z_err95_in;       /* on z_in */
    double facing_err95_deg; /* on facing_deg */
    double measured_err95_in; /* on measured_in (one measurement) */
    double xy_err95_flat_in; /* err95_in's part that is not the height's */
    double xy_per_z;         /* inches the position moves per inch of height error there */
    double px_per_cell;      /* its tag's pixels per cell (the detected square is 8 cells) */
} calib_figure;

/* Every detection of a base family that is not an anchor, mapped through
 * the plane at its height: the ground's height under it (found by mapping,
 * looking the ground up and mapping again until it no longer changes) plus
 * the rig's base height; or its own measured height when that disagrees
 * with the ground beyond both errors or the tag is tilted where no slope is
 * declared (see calib_height).  On a declared slope (tt_ground_gradient)
 * the tag stands the base height above the ground along its normal, and
 * the figure is the centre of its base on the slope.  A tag's height comes from its shape and the rig's base
 * size_in: in closed form for a level tag (its corners' rays meet any level
 * plane in a square scaled with the camera's height above it), from its 3D
 * pose (one batched IPPE_SQUARE solve) for the tags that look tilted.
 * ground may be NULL: flat felt.
 * A tag that maps to no finite point within CALIB_MAX_COORD_IN of the table
 * origin (its ray misses the plane) is left out: no NaN or Inf ever leaves
 * calib.  *out (count *n) is allocated (free()) and sorted by family, then
 * id.  An empty table gives *n = 0 and TT_OK. */
#define CALIB_MAX_COORD_IN 100000.0
tt_status calib_locate_ground(const calib_rig *rig, const calib_pose *pose, const vision_detections *dets,
                              const tt_ground *ground, calib_figure **out, int *n, tt_err *err);
/* What calib_locate_ground_opts leaves out. */
typedef struct calib_locate_opts {
    int no_errors; /* 1: no error model, a benchmark's baseline (bench_track): the frame's noise and blur
                      not measured, err95_in, z_err95_in, facing_err95_deg and xy_err95_flat_in 0, a
                      height "off" beyond a fixed 0.75" as before issue 29; never for a player */
} calib_locate_opts;
/* calib_locate_ground with options (o NULL: none, as calib_locate_ground). */
tt_status calib_locate_ground_opts(const calib_rig *rig, const calib_pose *pose, const vision_detections *dets,
                                   const tt_ground *ground, const calib_locate_opts *o, calib_figure **out, int *n,
                                   tt_err *err);
/* The warning a player should read about figure f (CALIB_HEIGHT_OFF or
 * CALIB_HEIGHT_BELOW; else none: returns 0 and buf is ""), naming it `name`
 * (e.g. its scenario figure, or "tag 105"); z_in: the height to state (f's,
 * or an average over frames).  has_ground: a ground (scenario) was given.
 * E.g. 'f12 stands about 2.0" above the felt where the scenario has no
 * raised terrain'. */
int calib_height_warning(const calib_figure *f, const char *name, double z_in, int has_ground, double base_size_in,
                         char *buf, size_t cap);

/* The height errors (see calib_err.c) of figure f after its measured
 * height has been averaged over n >= 1 still measurements: the random part
 * shrinks by sqrt(n).  Updates f's z_err95_in, measured_err95_in and
 * err95_in (the same model calib_locate_ground applies for n = 1). */
void calib_figure_average(calib_figure *f, int n);

/* A wrong bases.size_in in the rig (issue 33): when most of the n figures
 * (at least CALIB_SIZE_MIN of them, measured) stand at about the same
 * height far off the felt, their tags are another size than the rig says.
 * Returns 1 and the size (the edge of the detected square, inches) the
 * tags measure in *size_in; else 0. */
#define CALIB_SIZE_MIN 4
int calib_size_suspect(const calib_rig *rig, const calib_pose *pose, const calib_figure *figs, int n,
                       double *size_in);
/* The message for it, naming size_in and the measured size. */
void calib_size_message(const calib_rig *rig, double measured, char *buf, size_t cap);

/* calib_locate_ground on flat felt. */
tt_status calib_locate(const calib_rig *rig, const calib_pose *pose, const vision_detections *dets,
                       calib_figure **out, int *n, tt_err *err);

/* Facing from a tag's four corners in table inches (libapriltag order):
 * the direction from the centre toward the printed top edge, using all four
 * edges.  Degrees in (-180, 180]. */
double calib_facing_deg(const double corners[4][2]);

#ifdef __cplusplus
}
#endif
#endif
