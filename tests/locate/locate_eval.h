/* locate_eval.h - shared by the locate accuracy test and its benchmark:
 * make a rendered table with known truth, run the locate path, and score
 * it (recall, position and facing errors, and the plain 4-anchor homography
 * baseline for comparison). */
#ifndef TT_LOCATE_EVAL_H
#define TT_LOCATE_EVAL_H

#include "calib.h"
#include "render.h"

typedef struct le_frame {
    rnd_scene scene;
    rnd_camera cam;
    rnd_tag *tags;        /* owned: anchors first, then bases */
    int nanchors, ntags;
    rnd_occluder occ[8];
    tt_image image;       /* owned */
    calib_rig *rig;       /* owned; written to dir and loaded back */
    char dir[256];        /* temporary folder holding rig.json, camera.yaml */
    double hill_in, hill[4]; /* from le_options */
    rnd_piece piece;         /* the hill, when hill_in > 0 */
    double base_height_in;
} le_frame;

/* A figure's true position: its base's centre on the ground (a tag on a
 * slope stands beside it, along the slope's normal). */
void le_truth_xy(const le_frame *f, const rnd_tag *tag, double xy[2]);

/* 1 if table point (x, y) is on the frame's hill's flat top. */
int le_on_hill(const le_frame *f, double x, double y);
/* The hill as a scenario declares it (the renderer's ground: its top, and
 * its slopes when it has them), as a tt_ground callback (user: the
 * le_frame). */
double le_ground_at(const void *frame, double x, double y);

typedef struct le_options {
    int width, height;
    int nbases;
    double base_size_in, base_height_mm;
    int hands;            /* occluders over the table */
    double blur, noise, gradient;
    unsigned seed;
    /* Issue 20's table: the camera 60" straight above the table's centre
     * (f = 2600 px at 3840 wide) instead of issue 2's tilted one 80" up. */
    int overhead60;
    /* A hill of hill_in (0 = none) whose flat top is the rectangle hill[0..3]
     * (x0, y0, x1, y1), drawn by the renderer; its sides vertical, or
     * sloping to the felt over hill_slope_in.  Every base stands on the
     * ground under it (tilted on a slope); bases whose round base would
     * straddle an edge of the top or of the slope are left out. */
    double hill_in;
    double hill[4];
    double hill_slope_in;
} le_options;

/* The issue's rig: 3840x2160, ~35 px/inch, 120 bases of 0.8" at 3 mm. */
void le_options_default(le_options *o);
/* Issue 13's blurry frames: the default rig with blur 1 px, noise 4. */
void le_options_blurry(le_options *o);
/* Hard frames: blurry, with 0.69" tags (the largest tag36h11 on a 25 mm
 * round base, the README's smallest) and 50 % light falloff. */
void le_options_hard(le_options *o);
/* Issue 20's hill table: overhead60, a 2" hill over (40, 18)-(67, 43.5)
 * in a corner, about 17 of the 120 bases on it. */
void le_options_hill(le_options *o);

/* Issue 22's club webcam: 1920x1080 (~17.5 px/inch at the table's centre),
 * 90 bases with 1.1" tags (size_in 0.88: 1.7 to 2.1 px per cell), blur
 * 0.7 px, noise 2, 20 % light falloff. */
void le_options_1080p(le_options *o);

/* Issue 29's conditions: the camera 60" above the table; 4K with 0.8"
 * tags (k4 = 1) or 1080p with 1.1" tags; a 2" hill in a corner whose sides
 * slope at 27-37 degrees (from the seed), or (roof = 1) a building with a
 * flat 4" roof and vertical walls in its place; blur = 1: blurrier and
 * noisier than the rig's usual (1.3 px at 4K, 1.0 px at 1080p, noise 4). */
void le_options_issue29(le_options *o, int k4, int roof, int blur, unsigned seed);

/* Where a figure of issue 29's frames stands. */
enum { LE_FELT, LE_TOP, LE_SLOPE, LE_ROOF, LE_NWHERE };
int le_where(const le_frame *f, const rnd_tag *tag, int roof);

tt_status le_frame_make(const le_options *o, le_frame *f, tt_err *err);
void le_frame_free(le_frame *f);

typedef struct le_score {
    int expected;        /* unoccluded base tags */
    int found;           /* of those, reported by locate */
    int spurious;        /* figures reported that are not in the scene */
    double rms, p95, max;        /* position error, inches */
    double facing_p95, facing_max; /* degrees */
    double homography_rms;       /* plain 4-anchor homography, z = 0, distorted pixels */
    /* the figures on the hill's top (found among those expected) */
    int hill_expected, hill_found;
    double hill_rms, hill_max;
    int hill_off;    /* of those, flagged CALIB_HEIGHT_OFF (worth a warning) */
    int felt_off;    /* figures on the felt flagged off the ground or below it */
    /* the figures on its slopes (found among those expected) */
    int slope_expected, slope_found, slope_tilted; /* tilted: flagged CALIB_HEIGHT_SLOPE */
    double slope_rms, slope_max;
    double z_max;    /* worst |z_in - truth| over every figure found (truth: the renderer's ground) */
} le_score;

/* The frame's tags read as locate reads them (calib_detect: the rig's
 * detector on 2 threads, with rescale), its pose, and the rectangle read
 * again at full resolution (rect may be NULL).  ds: vision_detections_free. */
tt_status le_detect(const le_frame *f, vision_detections *ds, calib_pose *pose, int rect[4], tt_err *err);

/* Score locate's figures (figs, n) against the frame's truth. */
void le_score_figures(const le_frame *f, const calib_figure *figs, int n, const calib_pose *pose,
                      const vision_detections *dets, le_score *s);

#endif
