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
} le_frame;

typedef struct le_options {
    int width, height;
    int nbases;
    double base_size_in, base_height_mm;
    int hands;            /* occluders over the table */
    double blur, noise, gradient;
    unsigned seed;
} le_options;

/* The issue's rig: 3840x2160, ~35 px/inch, 120 bases of 0.8" at 3 mm. */
void le_options_default(le_options *o);
/* Issue 13's blurry frames: the default rig with blur 1 px, noise 4. */
void le_options_blurry(le_options *o);
/* Hard frames: blurry, with 0.69" tags (the largest tag36h11 on a 25 mm
 * round base, the README's smallest) and 50 % light falloff. */
void le_options_hard(le_options *o);

/* Issue 22's club webcam: 1920x1080 (~17.5 px/inch at the table's centre),
 * 90 bases with 1.1" tags (size_in 0.88: 1.7 to 2.1 px per cell), blur
 * 0.7 px, noise 2, 20 % light falloff. */
void le_options_1080p(le_options *o);

tt_status le_frame_make(const le_options *o, le_frame *f, tt_err *err);
void le_frame_free(le_frame *f);

typedef struct le_score {
    int expected;        /* unoccluded base tags */
    int found;           /* of those, reported by locate */
    int spurious;        /* figures reported that are not in the scene */
    double rms, p95, max;        /* position error, inches */
    double facing_p95, facing_max; /* degrees */
    double homography_rms;       /* plain 4-anchor homography, z = 0, distorted pixels */
} le_score;

/* The frame's tags read as locate reads them (calib_detect: the rig's
 * detector on 2 threads, with rescale), its pose, and the rectangle read
 * again at full resolution (rect may be NULL).  ds: vision_detections_free. */
tt_status le_detect(const le_frame *f, vision_detections *ds, calib_pose *pose, int rect[4], tt_err *err);

/* Score locate's figures (figs, n) against the frame's truth. */
void le_score_figures(const le_frame *f, const calib_figure *figs, int n, const calib_pose *pose,
                      const vision_detections *dets, le_score *s);

#endif
