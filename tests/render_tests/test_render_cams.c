/* test_render_cams.c - the renderer's cameras anywhere above the table, and
 * several cameras rendering one scene (issue 31): a camera placed at any
 * eye, looking at any point, turned any way, puts the point looked at on
 * its principal point and the table direction asked for at image "up";
 * rnd_cameras_side_by_side hangs two 4K cameras over a 144x72 table that
 * overlap by the width asked; one scene rendered by both shows a tag in the
 * overlap to each where rnd_project says, and a tag in one half to that
 * camera only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apriltag/apriltag.h>

#include <jansson.h>
#include <unistd.h>

#include "families.h"
#include "render.h"

static void test_camera_anywhere(void **state)
{
    (void)state;
    uint64_t rng = rnd_rng_seed(31);
    for (int n = 0; n < 200; n++) {
        double ex = -50 + 250 * rnd_rng_uniform(&rng), ey = -50 + 170 * rnd_rng_uniform(&rng);
        double eh = 20 + 120 * rnd_rng_uniform(&rng);
        double tx = 144 * rnd_rng_uniform(&rng), ty = 72 * rnd_rng_uniform(&rng);
        double a = 2 * M_PI * rnd_rng_uniform(&rng), ux = cos(a), uy = sin(a);
        rnd_camera cam;
        rnd_camera_look_at_up(&cam, 3840, 2160, 2500, -0.05, 0.01, ex, ey, eh, tx, ty, ux, uy);
        double px[2], up[2], xy[2];
        assert_true(rnd_project(&cam, tx, ty, 0, px));
        assert_true(fabs(px[0] - 1919.5) < 1e-6 && fabs(px[1] - 1079.5) < 1e-6);
        assert_true(rnd_unproject(&cam, 1919.5, 1079.5, 0, xy));
        assert_true(fabs(xy[0] - tx) < 1e-6 && fabs(xy[1] - ty) < 1e-6);
        /* a step from the target toward `up` goes up the image, not sideways
         * (when the view is not along `up` itself) */
        double d = hypot(tx - ex, ty - ey), along = d > 0 ? ((tx - ex) * ux + (ty - ey) * uy) / d : 0;
        if (fabs(along) > 0.95)
            continue;
        assert_true(rnd_project(&cam, tx + 0.5 * ux, ty + 0.5 * uy, 0, up));
        assert_true(up[1] < px[1] - 1e-3);
    }
    /* rnd_camera_look_at is the up = -y case */
    rnd_camera a, b;
    rnd_camera_look_at(&a, 1920, 1080, 1400, -0.08, 0.02, 36, 10, 80, 36, 24);
    rnd_camera_look_at_up(&b, 1920, 1080, 1400, -0.08, 0.02, 36, 10, 80, 36, 24, 0, -1);
    assert_memory_equal(&a, &b, sizeof a);
}

/* pixels per cell of a flat 0.8" tag (1" printed) at (x, y) */
static double ppc_at(const rnd_camera *c, double x, double y)
{
    const double s = 0.1 / 2, d[4][2] = {{-s, -s}, {s, -s}, {s, s}, {-s, s}};
    double p[4][2], a = 0;
    for (int k = 0; k < 4; k++)
        if (!rnd_project(c, x + d[k][0], y + d[k][1], 0, p[k]))
            return 0;
    for (int k = 0; k < 4; k++)
        a += p[k][0] * p[(k + 1) % 4][1] - p[(k + 1) % 4][0] * p[k][1];
    return sqrt(fabs(a) / 2);
}

static int in_frame(const rnd_camera *c, double x, double y)
{
    double p[2];
    return rnd_project(c, x, y, 0, p) && p[0] >= 0 && p[1] >= 0 && p[0] <= c->width - 1 && p[1] <= c->height - 1;
}

static void test_side_by_side(void **state)
{
    (void)state;
    rnd_camera cams[2];
    const double W = 144, D = 72, ov = 10;
    assert_true(rnd_cameras_side_by_side(cams, 2, W, D, ov, 3840, 2160, 2600, -0.05, 0.01));
    /* camera 0 reaches x = 77 all along the table (a little further off
     * the middle: barrel distortion), camera 1 from x = 67 */
    for (double y = 0; y <= D; y += 4) {
        assert_true(in_frame(&cams[0], 0, y) && in_frame(&cams[0], W / 2 + ov / 2 - 0.2, y));
        assert_true(in_frame(&cams[1], W, y) && in_frame(&cams[1], W / 2 - ov / 2 + 0.2, y));
    }
    assert_false(in_frame(&cams[0], W / 2 + ov / 2 + 0.2, D / 2));
    assert_false(in_frame(&cams[1], W / 2 - ov / 2 - 0.2, D / 2));
    double lo = 1e9, hi = 0;
    for (int k = 0; k < 2; k++)
        for (double x = k * W / 2; x <= (k + 1) * W / 2; x += 2)
            for (double y = 0; y <= D; y += 2) {
                double p = ppc_at(&cams[k], x, y);
                lo = fmin(lo, p);
                hi = fmax(hi, p);
            }
    printf("two 4K cameras over 144x72, overlap 10\": %.2f to %.2f px per cell of a 1\" tag (0.8\" detected), "
           "%.0f\" up\n", lo, hi, fabs(cams[0].tvec[2]));
    assert_true(lo > 2.2 && hi < 3.2);
    assert_false(rnd_cameras_side_by_side(cams, 0, W, D, ov, 3840, 2160, 2600, 0, 0));
}

static apriltag_detection_t *find(zarray_t *dets, int id)
{
    for (int i = 0; i < zarray_size(dets); i++) {
        apriltag_detection_t *a;
        zarray_get(dets, i, &a);
        if (a->id == id)
            return a;
    }
    return NULL;
}

static void test_two_cameras_one_scene(void **state)
{
    (void)state;
    rnd_camera cams[2];
    const double W = 144, D = 72;
    /* 1280x720 cameras (fast to render) and 3" tags: about 3 px per cell */
    assert_true(rnd_cameras_side_by_side(cams, 2, W, D, 10, 1280, 720, 900, -0.05, 0.01));
    rnd_tag tags[3];
    memset(tags, 0, sizeof tags);
    const double pos[3][2] = {{72, 36}, {30, 20}, {120, 50}};
    for (int i = 0; i < 3; i++) {
        snprintf(tags[i].family, sizeof tags[i].family, "tag36h11");
        tags[i].id = 5 + i;
        tags[i].x = pos[i][0];
        tags[i].y = pos[i][1];
        tags[i].size_in = 3;
        tags[i].facing_deg = 30 * i;
    }
    rnd_scene sc = {.width_in = W, .depth_in = D, .felt_gray = 90, .floor_gray = 40, .tags = tags, .ntags = 3,
                    .ambient = 1, .supersample = 3};
    int fi = vision_family_index("tag36h11");
    for (int k = 0; k < 2; k++) {
        tt_image im = {0};
        tt_err err = {0};
        assert_int_equal(rnd_render(&sc, &cams[k], &im, &err), TT_OK);
        apriltag_detector_t *td = apriltag_detector_create();
        apriltag_family_t *fam = vision_family_create(fi);
        apriltag_detector_add_family_bits(td, fam, vision_family_bits_corrected(fi));
        td->quad_decimate = 1;
        td->refine_edges = 1;
        image_u8_t img = {.width = im.width, .height = im.height, .stride = im.stride, .buf = im.data};
        zarray_t *dets = apriltag_detector_detect(td, &img);
        /* the overlap's tag in both, where it projects; each half's in its own */
        for (int i = 0; i < 3; i++) {
            apriltag_detection_t *a = find(dets, tags[i].id);
            int want = i == 0 || i == 1 + k;
            assert_int_equal(a != NULL, want);
            if (!a)
                continue;
            double c[4][2], p[2];
            rnd_tag_corners(&tags[i], c);
            for (int q = 0; q < 4; q++) {
                assert_true(rnd_project(&cams[k], c[q][0], c[q][1], 0, p));
                assert_true(hypot(a->p[q][0] - 0.5 - p[0], a->p[q][1] - 0.5 - p[1]) < 0.5);
            }
        }
        apriltag_detections_destroy(dets);
        apriltag_detector_destroy(td);
        vision_family_destroy(fi, fam);
        tt_image_free(&im);
    }
}

/* tt-render --table 144,72 --cameras 2: a frame, camera.yaml and truth per
 * camera and one rig.json listing both in order. */
static void test_tt_render_cameras(void **state)
{
    (void)state;
    char dir[] = "/tmp/tt_render_cams_XXXXXX", cmd[1200], p[600];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "%s --out %s --table 144,72 --cameras 2 --overlap 10 --anchors 8 --bases 4 --width 320 --height 180 "
             "--f-px 230 --supersample 1 --quiet",
             TT_RENDER_BIN, dir);
    assert_int_equal(system(cmd), 0);
    const char *files[] = {"frame0.png", "frame1.png", "camera0.yaml", "camera1.yaml", "truth0.json", "truth1.json",
                           "rig.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        assert_int_equal(access(p, R_OK), 0);
    }
    snprintf(p, sizeof p, "%s/rig.json", dir);
    json_t *rig = json_load_file(p, 0, NULL), *cams = json_object_get(rig, "cameras");
    assert_int_equal(json_array_size(cams), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(cams, 1), "camera")), "camera1.yaml");
    assert_null(json_object_get(rig, "camera"));
    assert_true(json_number_value(json_object_get(json_object_get(rig, "table"), "width_in")) == 144);
    json_decref(rig);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        remove(p);
    }
    rmdir(dir);
    /* frames that cannot meet anything: refused */
    snprintf(cmd, sizeof cmd, "%s --out %s --cameras 2 --overlap -80 --quiet 2>/dev/null", TT_RENDER_BIN, dir);
    assert_int_not_equal(system(cmd), 0);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_camera_anywhere),
        cmocka_unit_test(test_side_by_side),
        cmocka_unit_test(test_two_cameras_one_scene),
        cmocka_unit_test(test_tt_render_cameras),
    };
    int rc = cmocka_run_group_tests_name("render_cams", tests, NULL, NULL);
    rnd_texture_cache_clear();
    return rc;
}
