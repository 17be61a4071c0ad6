/* test_check_slope.c - check's pixels per cell on a hill's slope: a tag on
 * the slope lies in the side's plane, so a camera straight above sees its
 * cell foreshortened by cos(tilt) (area), and nearer by its height. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"

#define TOP 2.0   /* the ramp's top, inches */
#define RUN 3.464 /* its run: a 30 degree side (tan 30 = 2 / 3.464) */

/* A ramp rising eastwards from x = 30 to x = 30 + RUN, then a flat top. */
static double ramp(const void *user, double x, double y)
{
    (void)user;
    (void)y;
    return x <= 30 ? 0 : x >= 30 + RUN ? TOP : TOP * (x - 30) / RUN;
}

/* A pinhole camera, no distortion, f px, straight down from (36, 24, 60). */
static void camera(calib_rig *rig, calib_pose *pose, double f)
{
    memset(rig, 0, sizeof *rig);
    memset(pose, 0, sizeof *pose);
    rig->width_in = 72;
    rig->depth_in = 48;
    rig->camera.width = 1920;
    rig->camera.height = 1080;
    const double K[9] = {f, 0, 960, 0, f, 540, 0, 0, 1};
    memcpy(rig->camera.K, K, sizeof K);
    pose->rvec[0] = M_PI; /* R = diag(1, -1, -1): looking down */
    pose->tvec[0] = -36;
    pose->tvec[1] = 24;
    pose->tvec[2] = 60;
    pose->up = 1;
}

static void test_px_per_cell_on_slope(void **state)
{
    (void)state;
    calib_rig rig;
    calib_pose pose;
    const double f = 1400, size = 1.0, base = 0.1, cell = size / CALIB_CELLS_PER_TAG;
    camera(&rig, &pose, f);
    tt_ground g = {ramp, NULL};
    /* on the felt the tilted cell is the flat one */
    double flat = calib_px_per_cell(&rig, &pose, 20, 24, base, size);
    assert_true(fabs(calib_px_per_cell_on(&rig, &pose, &g, 20, 24, base, size) - flat) < 1e-9);
    assert_true(fabs(flat - f * cell / (60 - base)) < 1e-4);
    /* half way up the side, (31.732, 24): 1" up, tilted 30 degrees; the
     * base raises the tag along the side's normal */
    double x = 30 + RUN / 2, t = atan(TOP / RUN), z = 1 + base * cos(t), cx = x - base * sin(t);
    /* a small patch's pixels: f^2 A cos(a) / (d^2 cos^3(th)), a between its
     * normal and the line to the camera, th that line off the camera's axis */
    double dx = 36 - cx, dz = 60 - z, d = hypot(dx, dz), ca = (-sin(t) * dx + cos(t) * dz) / d, ct = dz / d;
    double want = sqrt(f * f * cell * cell * ca / (d * d * ct * ct * ct));
    double got = calib_px_per_cell_on(&rig, &pose, &g, x, 24, base, size);
    print_message("30 degree side: %.4f px per cell (flat at that height %.4f, on the felt %.4f)\n", got,
                  f * cell / (60 - z), flat);
    assert_true(fabs(got - want) / want < 2e-3);
    assert_true(got < f * cell / (60 - z) * 0.95); /* fewer than a flat tag at that height */
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_px_per_cell_on_slope)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
