/* calib_tilt.h - calib's private geometry for tags that tilt with the
 * ground: rays, the tag's own plane, and a figure's base on a declared
 * slope (calib_tilt.c).  Points are (x, y, height above the felt). */
#ifndef TT_CALIB_TILT_H
#define TT_CALIB_TILT_H

#include "calib.h"

/* The ray through normalised point m: from C (the camera) along D. */
void calib_tilt_ray(const calib_pose *pose, const double m[2], double C[3], double D[3]);

/* The ground's upward unit normal at (x, y). */
void calib_tilt_normal(const tt_ground *g, double x, double y, double n[3]);

/* A tag whose corners q (4 normalised points) and centre m lie in the
 * plane through P0 with upward normal n: its centre in 3D (c), and its
 * facing as if the plane were turned level about its horizontal line
 * (the facing printed on the base, whatever the slope).  0 if a ray
 * misses the plane. */
int calib_tilt_tag(const calib_pose *pose, const double q[8], const double m[2], const double P0[3],
                   const double n[3], double c[3], double *facing_deg);

/* A tag base_in above a declared ground along its normal, seen at
 * normalised centre m: its base's centre on the ground (b: x, y, ground
 * height) and the normal there (n), found from (x0, y0).  0 if the ray
 * misses. */
int calib_tilt_on_ground(const calib_pose *pose, const double m[2], const tt_ground *g, double base_in, double x0,
                         double y0, double b[3], double n[3]);

#endif
