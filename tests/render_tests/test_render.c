/* test_render.c - the renderer's geometry is exact: libapriltag, run
 * directly on rendered frames (no blur, no noise), finds corners where
 * rnd_project(rnd_tag_corners) says they are, in libapriltag's order, with
 * the right ids; occlusion, determinism and camera.yaml round-trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <apriltag/apriltag.h>
#include <apriltag/tag16h5.h>
#include <apriltag/tag25h9.h>
#include <apriltag/tag36h10.h>
#include <apriltag/tag36h11.h>
#include <apriltag/tagCircle21h7.h>
#include <apriltag/tagCircle49h12.h>
#include <apriltag/tagCustom48h12.h>
#include <apriltag/tagStandard41h12.h>
#include <apriltag/tagStandard52h13.h>

#include "cvwrap.h"
#include "render.h"

/* ---- helpers ---- */

static const struct {
    const char *name;
    apriltag_family_t *(*create)(void);
    void (*destroy)(apriltag_family_t *);
    int bits;
} fams[] = {
    {"tag36h11", tag36h11_create, tag36h11_destroy, 2},
    {"tag36h10", tag36h10_create, tag36h10_destroy, 2},
    {"tag25h9", tag25h9_create, tag25h9_destroy, 2},
    {"tag16h5", tag16h5_create, tag16h5_destroy, 2},
    {"tagCircle21h7", tagCircle21h7_create, tagCircle21h7_destroy, 2},
    {"tagStandard41h12", tagStandard41h12_create, tagStandard41h12_destroy, 2},
    {"tagCircle49h12", tagCircle49h12_create, tagCircle49h12_destroy, 1},
    {"tagCustom48h12", tagCustom48h12_create, tagCustom48h12_destroy, 1},
    {"tagStandard52h13", tagStandard52h13_create, tagStandard52h13_destroy, 1},
};
#define NFAMS ((int)(sizeof fams / sizeof fams[0]))

static int fam_index(const char *name)
{
    for (int i = 0; i < NFAMS; i++)
        if (!strcmp(fams[i].name, name))
            return i;
    return -1;
}

/* libapriltag, reference settings for exactness: decimate 1, refine edges,
 * no blur. */
typedef struct det {
    apriltag_detector_t *td;
    apriltag_family_t *fam;
    int fi;
    zarray_t *dets;
} det;

static void det_run(det *d, const char *family, const tt_image *im)
{
    d->fi = fam_index(family);
    assert_true(d->fi >= 0);
    d->td = apriltag_detector_create();
    d->fam = fams[d->fi].create();
    apriltag_detector_add_family_bits(d->td, d->fam, fams[d->fi].bits);
    d->td->quad_decimate = 1;
    d->td->quad_sigma = 0;
    d->td->refine_edges = 1;
    d->td->nthreads = 2;
    image_u8_t img = {.width = im->width, .height = im->height, .stride = im->stride, .buf = im->data};
    d->dets = apriltag_detector_detect(d->td, &img);
}

static void det_free(det *d)
{
    apriltag_detections_destroy(d->dets);
    apriltag_detector_destroy(d->td);
    fams[d->fi].destroy(d->fam);
}

static apriltag_detection_t *det_find(det *d, int id)
{
    for (int i = 0; i < zarray_size(d->dets); i++) {
        apriltag_detection_t *a;
        zarray_get(d->dets, i, &a);
        if (a->id == id)
            return a;
    }
    return NULL;
}

static rnd_scene plain_scene(const rnd_tag *tags, int ntags)
{
    rnd_scene sc = {.width_in = 72, .depth_in = 48, .felt_gray = 90, .floor_gray = 40, .tags = tags,
                    .ntags = ntags, .ambient = 1, .supersample = 3, .seed = 1};
    return sc;
}

static rnd_tag mk_tag(const char *family, int id, double x, double y, double h, double size, double facing,
                      double base_r)
{
    rnd_tag t;
    memset(&t, 0, sizeof t);
    snprintf(t.family, sizeof t.family, "%s", family);
    t.id = id;
    t.x = x;
    t.y = y;
    t.height_in = h;
    t.size_in = size;
    t.facing_deg = facing;
    t.base_radius_in = base_r;
    return t;
}

typedef struct errstat {
    double sum2, max;
    int n, found, expected;
} errstat;

/* Render, detect, compare every corner of every tag of `family` in the
 * scene; accumulate squared errors into st. */
static void check_corners(const rnd_scene *sc, const rnd_camera *cam, const char *family, errstat *st)
{
    tt_image im;
    tt_err err = {0};
    assert_int_equal(rnd_render(sc, cam, &im, &err), TT_OK);
    det d;
    det_run(&d, family, &im);
    for (int i = 0; i < sc->ntags; i++) {
        const rnd_tag *t = &sc->tags[i];
        if (strcmp(t->family, family) || !rnd_tag_unoccluded(sc, cam, t))
            continue;
        st->expected++;
        apriltag_detection_t *a = det_find(&d, t->id);
        if (!a) {
            print_message("  %s id %d at (%.2f, %.2f) facing %.1f not found\n", family, t->id, t->x, t->y,
                          t->facing_deg);
            continue;
        }
        st->found++;
        double c[4][2];
        rnd_tag_corners(t, c);
        for (int k = 0; k < 4; k++) {
            double px[2];
            assert_true(rnd_project(cam, c[k][0], c[k][1], t->height_in, px));
            double ex = a->p[k][0] - 0.5 - px[0], ey = a->p[k][1] - 0.5 - px[1];
            double e2 = ex * ex + ey * ey;
            st->sum2 += e2;
            st->n++;
            if (sqrt(e2) > st->max)
                st->max = sqrt(e2);
        }
    }
    det_free(&d);
    tt_image_free(&im);
}

static void report(const char *what, const errstat *st)
{
    print_message("%-40s found %d/%d, corner error RMS %.4f px, max %.4f px (%d corners)\n", what, st->found,
                  st->expected, st->n ? sqrt(st->sum2 / st->n) : 0.0, st->max, st->n);
}

/* ---- tests ---- */

/* libapriltag's corner order, seen empirically: a tag printed upright in
 * the image (top edge toward image top) has p[0] bottom-left, p[1]
 * bottom-right, p[2] top-right, p[3] top-left -- rnd_tag_corners' order. */
static void test_corner_order_upright(void **state)
{
    (void)state;
    rnd_camera cam;
    /* straight down: image x = table x, image y = table y */
    rnd_camera_look_at(&cam, 640, 480, 500, 0, 0, 36, 24, 20, 36, 24);
    rnd_tag t = mk_tag("tag36h11", 7, 36, 24, 0, 3, -90, 0);
    rnd_scene sc = plain_scene(&t, 1);
    tt_image im;
    tt_err err = {0};
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_OK);
    det d;
    det_run(&d, "tag36h11", &im);
    apriltag_detection_t *a = det_find(&d, 7);
    assert_non_null(a);
    double cx = a->c[0], cy = a->c[1];
    /* image y grows downward */
    assert_true(a->p[0][0] < cx && a->p[0][1] > cy); /* bottom-left */
    assert_true(a->p[1][0] > cx && a->p[1][1] > cy); /* bottom-right */
    assert_true(a->p[2][0] > cx && a->p[2][1] < cy); /* top-right */
    assert_true(a->p[3][0] < cx && a->p[3][1] < cy); /* top-left */
    /* facing -90: the top edge is toward table y = 0, i.e. the image top */
    double c[4][2];
    rnd_tag_corners(&t, c);
    assert_true(c[2][1] < t.y && c[3][1] < t.y);
    det_free(&d);
    tt_image_free(&im);
}

/* Many tags, several camera poses and distortions: detected corners
 * (minus libapriltag's half pixel) match the projected truth. */
static void test_corners_exact(void **state)
{
    (void)state;
    const struct {
        double k1, k2, p1, p2, tilt_deg, eye_h;
    } rigs[] = {
        {0, 0, 0, 0, 0, 24},          {-0.08, 0.02, 0, 0, 10, 24},  {-0.25, 0.08, 0, 0, 25, 22},
        {0.05, -0.01, 0.002, -0.0015, 35, 20}, {-0.08, 0.02, 0, 0, 45, 16},
    };
    errstat all = {0};
    for (size_t r = 0; r < sizeof rigs / sizeof rigs[0]; r++) {
        rnd_camera cam;
        double tilt = rigs[r].tilt_deg * M_PI / 180;
        rnd_camera_look_at(&cam, 960, 720, 700, rigs[r].k1, rigs[r].k2, 36, 24 - rigs[r].eye_h * tan(tilt),
                           rigs[r].eye_h, 36, 24);
        cam.dist[2] = rigs[r].p1;
        cam.dist[3] = rigs[r].p2;
        rnd_tag tags[12];
        int n = 0;
        /* a ring of tags at varied facings, some on raised bases, some near
         * the frame's edges where distortion is strongest */
        for (int i = 0; i < 12; i++) {
            double ang = i * 2 * M_PI / 12;
            double rad = i % 2 ? 10.0 : 5.0;
            double h = i % 3 == 0 ? 0 : 0.118;
            tags[n] = mk_tag("tag36h11", 20 + i, 36 + 1.35 * rad * cos(ang), 24 + rad * sin(ang), h, 1.4,
                             -180 + 360.0 * i / 12 + 7.3 * r + 13, h > 0 ? 0.95 : 0);
            n++;
        }
        rnd_scene sc = plain_scene(tags, n);
        errstat st = {0};
        check_corners(&sc, &cam, "tag36h11", &st);
        char what[128];
        snprintf(what, sizeof what, "k1 %.2f k2 %.2f p %.4f/%.4f tilt %.0f", rigs[r].k1, rigs[r].k2, rigs[r].p1,
                 rigs[r].p2, rigs[r].tilt_deg);
        report(what, &st);
        assert_int_equal(st.found, st.expected);
        assert_true(st.expected >= 9);
        assert_true(sqrt(st.sum2 / st.n) < 0.12);
        assert_true(st.max < 0.35);
        all.sum2 += st.sum2;
        all.n += st.n;
        all.found += st.found;
        all.expected += st.expected;
        all.max = fmax(all.max, st.max);
    }
    report("all rigs", &all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corner_order_upright),
        cmocka_unit_test(test_corners_exact),
    };
    int rc = cmocka_run_group_tests_name("render", tests, NULL, NULL);
    rnd_texture_cache_clear();
    return rc;
}
