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
    double frame_sigma_px; /* the frame's own size noise (calib_err_frame), 0: not known */
    double frame_centre_px; /* the frame's own centre noise (calib_err_frame), 0: not known */
    double defect_px;      /* its own corners' distance from a parallelogram (half the gap between its
                              diagonals' midpoints on a level plane), pixels; 0: not known */
    int odd;               /* its tilt is one misplaced corner's (calib_err_tilt_odd): its size noise is
                              what its corners show (defect_px), when more than the frame's */
} calib_err_seen;

/* What a frame's tags together show: most stand on their ground, so the
 * scatter of their measured heights about it gives the frame's noise, and
 * their common offset the frame's scale error (blur makes every tag look a
 * little larger, so lower: -0.3" at 4K with 1.3 px of blur, -1.7" at 1080p). */
typedef struct calib_err_frame {
    double scale;    /* the tags' true size over the rig's, as their median says (1: none) */
    double bias_px;  /* how much longer every tag's edge looks than it is, pixels (blur) */
    double sigma_px; /* 1 sigma of a tag's edge length, pixels, from their scatter (0: too few) */
    int n;           /* level tags it was measured on */
    /* 1 sigma of a tag's centre, each axis, pixels, from the level tags'
     * shapes (0: too few).  Blur spreads a tag's four sides outwards
     * together, by an amount that varies from tag to tag with its light:
     * that moves its size (sigma_px) but not its centre.  What moves the
     * centre is each side found apart from the others, and that shows in a
     * level tag's two axes differing in length (they are equal on the
     * table's plane), which the common spread leaves alone. */
    double centre_px;
    int n_centre;    /* level tags centre_px was measured on */
} calib_err_frame;
#define CALIB_ERR_FRAME_MIN 10     /* level tags needed to measure a frame */
#define CALIB_ERR_SCALE_MAX 0.06   /* a larger scale error is the rig's size_in, not blur: not corrected */

/* Measure the frame from nf tags: stand[i] their measured heights, ground[i]
 * the ground's under them, tilt, ok (measured), s_px (edge in pixels),
 * plane (8 each: their corners mapped on one level plane, any height). */
void calib_err_frame_fit(const double *stand, const double *ground, const double *tilt, const int *ok,
                         const double *s_px, const double *plane, int nf, double cam, double base_in,
                         calib_err_frame *fr);

/* The size noise (1 sigma of its edge length, pixels) the model expects
 * of this tag: the frame's own when measured, else from its pixels per
 * cell and decision margin; for an odd tag never less than its own
 * corners show (defect_px). */
double calib_err_corner_px(const calib_err_seen *s);
/* 1 when the tag looks tilted (tilt_deg > CALIB_SLOPE_DEG) by no more
 * than one misplaced corner could make it: its foreshortening, s_px (1 -
 * cos tilt), at most CALIB_ERR_FORE_DEFECT times its corners' distance from
 * a parallelogram (defect_px).  A corner misplaced by d px moves the
 * diagonals' midpoints d/2 apart and foreshortens a level tag by about d:
 * at 2.6 px per cell (issue 31) such tags, level on the felt and read 20-49
 * degrees tilted, had ratios of 1 to 3 (and 4.6 for one its pose put at
 * 0.7", kept on the felt anyway); tags really on 32-58 degree slopes 11 to
 * 90 on issue 29's sharp frames, lower on its blurry 1080p ones (8 put a
 * third of those on the felt). */
#define CALIB_ERR_FORE_DEFECT 4.0
int calib_err_tilt_odd(const calib_err_seen *s);
/* 95% bound on a tag's own measured height, one measurement. */
double calib_err_measured95(const calib_err_seen *s);
/* Fill f's err95_in, facing_err95_deg, xy_err95_flat_in, xy_per_z, given
 * f->z_err95_in already decided. */
void calib_err_fill(calib_figure *f, const calib_err_seen *s);

#endif
