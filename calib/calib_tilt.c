/* calib_tilt.c - see calib_tilt.h. */
#include "calib_tilt.h"

#include <math.h>
#include <string.h>

#define CALIB__TILT_ITERS 12

void calib_tilt_ray(const calib_pose *pose, const double m[2], double C[3], double D[3])
{
    const double *R = pose->R;
    C[0] = pose->center[0];
    C[1] = pose->center[1];
    C[2] = pose->up * pose->center[2];
    D[0] = R[0] * m[0] + R[3] * m[1] + R[6];
    D[1] = R[1] * m[0] + R[4] * m[1] + R[7];
    D[2] = pose->up * (R[2] * m[0] + R[5] * m[1] + R[8]);
}

void calib_tilt_normal(const tt_ground *g, double x, double y, double n[3])
{
    double gx = 0, gy = 0;
    tt_ground_gradient(g, x, y, &gx, &gy);
    if (!isfinite(gx) || !isfinite(gy))
        gx = gy = 0;
    double L = sqrt(1 + gx * gx + gy * gy);
    n[0] = -gx / L;
    n[1] = -gy / L;
    n[2] = 1 / L;
}

/* Where the ray through m meets the plane (P0, n); 0 if it misses. */
static int calib__plane(const calib_pose *pose, const double m[2], const double P0[3], const double n[3], double P[3])
{
    double C[3], D[3];
    calib_tilt_ray(pose, m, C, D);
    double den = D[0] * n[0] + D[1] * n[1] + D[2] * n[2];
    double t = ((P0[0] - C[0]) * n[0] + (P0[1] - C[1]) * n[1] + (P0[2] - C[2]) * n[2]) / den;
    if (!(t > 0) || !isfinite(t))
        return 0;
    for (int i = 0; i < 3; i++)
        P[i] = C[i] + t * D[i];
    return 1;
}

int calib_tilt_tag(const calib_pose *pose, const double q[8], const double m[2], const double P0[3],
                   const double n[3], double c[3], double *facing_deg)
{
    double P[4][3], flat[4][2];
    if (!calib__plane(pose, m, P0, n, c))
        return 0;
    /* turn the plane level about its horizontal line through c: the
     * rotation taking n to up, about k = n x up (Rodrigues) */
    double kx = n[1], ky = -n[0], s = hypot(kx, ky), co = n[2];
    if (s > 1e-12) {
        kx /= s;
        ky /= s;
    }
    for (int k = 0; k < 4; k++) {
        if (!calib__plane(pose, &q[2 * k], P0, n, P[k]))
            return 0;
        double v[3] = {P[k][0] - c[0], P[k][1] - c[1], P[k][2] - c[2]};
        if (s > 1e-12) {
            double kv = kx * v[0] + ky * v[1];
            double kxv[3] = {ky * v[2], -kx * v[2], kx * v[1] - ky * v[0]};
            for (int i = 0; i < 3; i++)
                v[i] = v[i] * co + kxv[i] * s + (i < 2 ? (i ? ky : kx) : 0) * kv * (1 - co);
        }
        flat[k][0] = c[0] + v[0];
        flat[k][1] = c[1] + v[1];
    }
    *facing_deg = calib_facing_deg(flat);
    return isfinite(*facing_deg);
}

int calib_tilt_on_ground(const calib_pose *pose, const double m[2], const tt_ground *g, double base_in, double x0,
                         double y0, double b[3], double n[3])
{
    double bx = x0, by = y0;
    for (int it = 0; it < CALIB__TILT_ITERS; it++) {
        double h = tt_ground_height(g, bx, by), P0[3], P[3];
        h = isfinite(h) && h > 0 ? h : 0;
        calib_tilt_normal(g, bx, by, n);
        for (int i = 0; i < 3; i++)
            P0[i] = (i == 0 ? bx : i == 1 ? by : h) + base_in * n[i];
        if (!calib__plane(pose, m, P0, n, P))
            return 0;
        double nx = P[0] - base_in * n[0], ny = P[1] - base_in * n[1];
        double moved = hypot(nx - bx, ny - by);
        bx = nx;
        by = ny;
        if (moved < 1e-9)
            break;
    }
    double h = tt_ground_height(g, bx, by);
    b[0] = bx;
    b[1] = by;
    b[2] = isfinite(h) && h > 0 ? h : 0;
    calib_tilt_normal(g, bx, by, n);
    return isfinite(bx) && isfinite(by);
}
