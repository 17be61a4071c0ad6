/* render_camera.c - the renderer's camera model: pinhole + OpenCV's
 * radial/tangential distortion (k1 k2 p1 p2 k3), Rodrigues rotations,
 * look-at placement, projection and exact (iterative) undistortion. */
#include "render_internal.h"

#include <math.h>
#include <string.h>

void rnd__rodrigues_to_mat(const double r[3], double R[9])
{
    double th = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    if (th < 1e-300) {
        memset(R, 0, 9 * sizeof R[0]);
        R[0] = R[4] = R[8] = 1;
        return;
    }
    double kx = r[0] / th, ky = r[1] / th, kz = r[2] / th;
    double c = cos(th), s = sin(th), v = 1 - c;
    R[0] = c + kx * kx * v;
    R[1] = kx * ky * v - kz * s;
    R[2] = kx * kz * v + ky * s;
    R[3] = ky * kx * v + kz * s;
    R[4] = c + ky * ky * v;
    R[5] = ky * kz * v - kx * s;
    R[6] = kz * kx * v - ky * s;
    R[7] = kz * ky * v + kx * s;
    R[8] = c + kz * kz * v;
}

void rnd__mat_to_rodrigues(const double R[9], double r[3])
{
    double rx = (R[7] - R[5]) * 0.5, ry = (R[2] - R[6]) * 0.5, rz = (R[3] - R[1]) * 0.5;
    double s = sqrt(rx * rx + ry * ry + rz * rz);
    double c = (R[0] + R[4] + R[8] - 1) * 0.5;
    if (c > 1)
        c = 1;
    if (c < -1)
        c = -1;
    if (s < 1e-5) {
        if (c > 0) {
            /* near identity: first order is exact enough (theta ~ s) */
            r[0] = rx;
            r[1] = ry;
            r[2] = rz;
            return;
        }
        /* theta near pi: axis from the diagonal of (R + I) / 2 */
        double xx = (R[0] + 1) * 0.5, yy = (R[4] + 1) * 0.5, zz = (R[8] + 1) * 0.5;
        double ax = sqrt(xx > 0 ? xx : 0), ay = sqrt(yy > 0 ? yy : 0), az = sqrt(zz > 0 ? zz : 0);
        if (R[1] < 0)
            ay = -ay;
        if (R[2] < 0)
            az = -az;
        if (fabs(ax) < 1e-9 && R[5] < 0)
            az = -az;
        double n = sqrt(ax * ax + ay * ay + az * az);
        double th = acos(c);
        r[0] = ax / n * th;
        r[1] = ay / n * th;
        r[2] = az / n * th;
        return;
    }
    double th = atan2(s, c);
    r[0] = rx / s * th;
    r[1] = ry / s * th;
    r[2] = rz / s * th;
}

void rnd__cam_prepare(const rnd_camera *cam, rnd__cam *c)
{
    memset(c, 0, sizeof *c);
    c->fx = cam->K[0];
    c->skew = cam->K[1];
    c->cx = cam->K[2];
    c->fy = cam->K[4];
    c->cy = cam->K[5];
    c->k1 = cam->dist[0];
    c->k2 = cam->dist[1];
    c->p1 = cam->dist[2];
    c->p2 = cam->dist[3];
    c->k3 = cam->dist[4];
    rnd__rodrigues_to_mat(cam->rvec, c->R);
    memcpy(c->t, cam->tvec, sizeof c->t);
    /* camera centre in the table frame: C = -R^T t */
    for (int i = 0; i < 3; i++)
        c->C[i] = -(c->R[0 + i] * c->t[0] + c->R[3 + i] * c->t[1] + c->R[6 + i] * c->t[2]);
}

void rnd__distort(const rnd__cam *c, double x, double y, double *xd, double *yd)
{
    double r2 = x * x + y * y;
    double k = 1 + r2 * (c->k1 + r2 * (c->k2 + r2 * c->k3));
    *xd = x * k + 2 * c->p1 * x * y + c->p2 * (r2 + 2 * x * x);
    *yd = y * k + c->p1 * (r2 + 2 * y * y) + 2 * c->p2 * x * y;
}

/* One Newton step of the undistortion from (x, y) toward the distorted
 * target (xd, yd); returns the squared step length. */
static double rnd__newton(const rnd__cam *c, double xd, double yd, double *x, double *y)
{
    double X = *x, Y = *y;
    double r2 = X * X + Y * Y;
    double k = 1 + r2 * (c->k1 + r2 * (c->k2 + r2 * c->k3));
    double dk = c->k1 + r2 * (2 * c->k2 + 3 * c->k3 * r2); /* dk / d(r2) */
    double fx = X * k + 2 * c->p1 * X * Y + c->p2 * (r2 + 2 * X * X) - xd;
    double fy = Y * k + c->p1 * (r2 + 2 * Y * Y) + 2 * c->p2 * X * Y - yd;
    double a = k + 2 * X * X * dk + 2 * c->p1 * Y + 6 * c->p2 * X;
    double b = 2 * X * Y * dk + 2 * c->p1 * X + 2 * c->p2 * Y;
    double cc = 2 * X * Y * dk + 2 * c->p1 * X + 2 * c->p2 * Y;
    double d = k + 2 * Y * Y * dk + 6 * c->p1 * Y + 2 * c->p2 * X;
    double det = a * d - b * cc;
    if (det == 0)
        det = 1e-300;
    double sx = (d * fx - b * fy) / det, sy = (a * fy - cc * fx) / det;
    *x = X - sx;
    *y = Y - sy;
    return sx * sx + sy * sy;
}

/* Newton converges quadratically: once a step is below 1e-7 the remaining
 * error is ~1e-14 (normalised units), far below 1e-10 px. */
#define RND__STEP2_DONE (1e-7 * 1e-7)

void rnd__undistort(const rnd__cam *c, double xd, double yd, double *x, double *y)
{
    if (c->k1 == 0 && c->k2 == 0 && c->k3 == 0 && c->p1 == 0 && c->p2 == 0) {
        *x = xd;
        *y = yd;
        return;
    }
    double X = xd, Y = yd;
    for (int it = 0; it < 50; it++)
        if (rnd__newton(c, xd, yd, &X, &Y) < RND__STEP2_DONE)
            break;
    *x = X;
    *y = Y;
}

void rnd__undistort_from(const rnd__cam *c, double xd, double yd, double *x, double *y)
{
    if (c->k1 == 0 && c->k2 == 0 && c->k3 == 0 && c->p1 == 0 && c->p2 == 0) {
        *x = xd;
        *y = yd;
        return;
    }
    double X = *x, Y = *y;
    int it;
    for (it = 0; it < 8; it++)
        if (rnd__newton(c, xd, yd, &X, &Y) < RND__STEP2_DONE)
            break;
    if (it == 8 || !isfinite(X) || !isfinite(Y)) { /* poor start: from scratch */
        rnd__undistort(c, xd, yd, x, y);
        return;
    }
    *x = X;
    *y = Y;
}

void rnd__pixel_to_normalised(const rnd__cam *c, double u, double v, double *xd, double *yd)
{
    *yd = (v - c->cy) / c->fy;
    *xd = (u - c->cx - c->skew * *yd) / c->fx;
}

void rnd__ray_dir(const rnd__cam *c, double x, double y, double d[3])
{
    /* d = R^T (x, y, 1) */
    d[0] = c->R[0] * x + c->R[3] * y + c->R[6];
    d[1] = c->R[1] * x + c->R[4] * y + c->R[7];
    d[2] = c->R[2] * x + c->R[5] * y + c->R[8];
}

int rnd__project_prepared(const rnd__cam *c, double x, double y, double height_in, double px[2])
{
    double P[3] = {x, y, -height_in};
    double Pc[3];
    for (int i = 0; i < 3; i++)
        Pc[i] = c->R[3 * i] * P[0] + c->R[3 * i + 1] * P[1] + c->R[3 * i + 2] * P[2] + c->t[i];
    if (!(Pc[2] > 0))
        return 0;
    double xn = Pc[0] / Pc[2], yn = Pc[1] / Pc[2], xd, yd;
    rnd__distort(c, xn, yn, &xd, &yd);
    px[0] = c->fx * xd + c->skew * yd + c->cx;
    px[1] = c->fy * yd + c->cy;
    return 1;
}

int rnd_project(const rnd_camera *cam, double x, double y, double height_in, double px[2])
{
    rnd__cam c;
    rnd__cam_prepare(cam, &c);
    return rnd__project_prepared(&c, x, y, height_in, px);
}

int rnd_unproject(const rnd_camera *cam, double u, double v, double height_in, double xy[2])
{
    rnd__cam c;
    double xd, yd, x, y, d[3];
    rnd__cam_prepare(cam, &c);
    rnd__pixel_to_normalised(&c, u, v, &xd, &yd);
    rnd__undistort(&c, xd, yd, &x, &y);
    rnd__ray_dir(&c, x, y, d);
    if (d[2] == 0)
        return 0;
    double s = (-height_in - c.C[2]) / d[2];
    if (!(s > 0))
        return 0;
    xy[0] = c.C[0] + s * d[0];
    xy[1] = c.C[1] + s * d[1];
    return 1;
}

static void rnd__normalize(double v[3])
{
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n > 0)
        for (int i = 0; i < 3; i++)
            v[i] /= n;
}

void rnd_camera_look_at(rnd_camera *cam, int width, int height, double f_px, double k1, double k2, double eye_x,
                        double eye_y, double eye_height_in, double tx, double ty)
{
    rnd_camera_look_at_up(cam, width, height, f_px, k1, k2, eye_x, eye_y, eye_height_in, tx, ty, 0, -1);
}

void rnd_camera_look_at_up(rnd_camera *cam, int width, int height, double f_px, double k1, double k2, double eye_x,
                           double eye_y, double eye_height_in, double tx, double ty, double up_x, double up_y)
{
    memset(cam, 0, sizeof *cam);
    cam->width = width;
    cam->height = height;
    cam->K[0] = f_px;
    cam->K[2] = (width - 1) * 0.5;
    cam->K[4] = f_px;
    cam->K[5] = (height - 1) * 0.5;
    cam->K[8] = 1;
    cam->dist[0] = k1;
    cam->dist[1] = k2;

    double C[3] = {eye_x, eye_y, -eye_height_in};
    double z[3] = {tx - C[0], ty - C[1], 0 - C[2]};
    rnd__normalize(z);
    /* image down (camera +y) as close as possible to the table direction
     * -up, so image up points toward (up_x, up_y) */
    double hint[3] = {-up_x, -up_y, 0};
    double dot = hint[0] * z[0] + hint[1] * z[1] + hint[2] * z[2];
    double y[3] = {hint[0] - dot * z[0], hint[1] - dot * z[1], hint[2] - dot * z[2]};
    if (sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]) < 1e-9) { /* looking along up: pick -z table (up) */
        double h2[3] = {0, 0, -1};
        dot = h2[2] * z[2];
        for (int i = 0; i < 3; i++)
            y[i] = h2[i] - dot * z[i];
    }
    rnd__normalize(y);
    double x[3] = {y[1] * z[2] - y[2] * z[1], y[2] * z[0] - y[0] * z[2], y[0] * z[1] - y[1] * z[0]};
    double R[9] = {x[0], x[1], x[2], y[0], y[1], y[2], z[0], z[1], z[2]};
    rnd__mat_to_rodrigues(R, cam->rvec);
    /* use the rotation that rvec encodes, so tvec is consistent with it */
    double Rr[9];
    rnd__rodrigues_to_mat(cam->rvec, Rr);
    for (int i = 0; i < 3; i++)
        cam->tvec[i] = -(Rr[3 * i] * C[0] + Rr[3 * i + 1] * C[1] + Rr[3 * i + 2] * C[2]);
}

int rnd_cameras_side_by_side(rnd_camera *cams, int ncams, double width_in, double depth_in, double overlap_in,
                             int width, int height, double f_px, double k1, double k2)
{
    if (!cams || ncams < 1 || !(width_in > 0) || !(depth_in > 0) || !(width_in / (ncams > 0 ? ncams : 1) + overlap_in > 0) || width < 16 || height < 16 ||
        !(f_px > 0))
        return 0;
    double half = width_in / ncams / 2 + overlap_in / 2; /* each camera's half-reach along x */
    for (int k = 0; k < ncams; k++) {
        double xc = width_in * (k + 0.5) / ncams, yc = depth_in / 2, xy[2];
        /* the image's short side along x: where its top edge's middle lands
         * from 100" up sets the height that reaches `half` */
        rnd_camera_look_at_up(&cams[k], width, height, f_px, k1, k2, xc, yc, 100, xc, yc, -1, 0);
        if (!rnd_unproject(&cams[k], (width - 1) * 0.5, -0.5, 0, xy) || !(fabs(xy[0] - xc) > 0))
            return 0;
        double h = 100 * half / fabs(xy[0] - xc);
        rnd_camera_look_at_up(&cams[k], width, height, f_px, k1, k2, xc, yc, h, xc, yc, -1, 0);
    }
    return 1;
}
