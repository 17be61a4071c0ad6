/* calib_err.h - calib's private error model: how far a located figure may
 * be from the truth, from what the frame shows of its tag (calib_err.c;
 * docs/limits.md, "How sure is a position", has the constants' fitting). */
#ifndef TT_CALIB_ERR_H
#define TT_CALIB_ERR_H

#include "calib.h"

/* What the frame shows of one tag. */
typedef struct calib_err_seen {
    double s_px;         /* its detected square's edge, pixels (the longer axis of a tilted one) */
    double margin;       /* libapriltag's decision margin */
    double tilt_deg;     /* measured tilt (0 when level) */
    double in_per_px;    /* table inches per pixel at the tag */
    double cam_above_in; /* the camera's height above the tag */
    double xy_per_z;     /* inches the position moves per inch of height error */
    double pose_rms_px;  /* the rig pose's reprojection RMS */
    int by_pose;         /* its height measured by its 3D pose (a tilted tag) */
    int on_slope;        /* on a slope (declared, or its tilt) */
} calib_err_seen;

/* The corner noise (1 sigma, pixels) the model expects of this tag. */
double calib_err_corner_px(const calib_err_seen *s);
/* 95% bound on a tag's own measured height, one measurement. */
double calib_err_measured95(const calib_err_seen *s);
/* Fill f's err95_in, facing_err95_deg, xy_err95_flat_in, xy_per_z, given
 * f->z_err95_in already decided. */
void calib_err_fill(calib_figure *f, const calib_err_seen *s);

#endif
