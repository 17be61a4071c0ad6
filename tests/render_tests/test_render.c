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

#include <jansson.h>

#include "cvwrap.h"
#include "families.h"
#include "render.h"
#ifdef TT_HAVE_CALIB
#include "calib.h"
#endif

/* ---- helpers ---- */

/* The family table shared with detection and printing (vision/families). */
#define NFAMS vision_family_count()

static int fam_index(const char *name)
{
    return vision_family_index(name);
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
    d->fam = vision_family_create(d->fi);
    apriltag_detector_add_family_bits(d->td, d->fam, vision_family_bits_corrected(d->fi));
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
    vision_family_destroy(d->fi, d->fam);
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
    double sum2, max, sx, sy; /* sx, sy: sums of signed errors (bias) */
    double edge_bias;         /* largest |mean outward error| of one edge */
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
            if (getenv("TT_RENDER_TEST_VERBOSE"))
                print_message("    id %d corner %d err (%+.3f, %+.3f)\n", t->id, k, ex, ey);
            st->sum2 += e2;
            st->sx += ex;
            st->sy += ey;
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
    int n = st->n ? st->n : 1;
    print_message("%-40s found %d/%d, corner error RMS %.4f px, max %.4f px, bias (%+.4f, %+.4f) (%d corners)\n",
                  what, st->found, st->expected, sqrt(st->sum2 / n), st->max, st->sx / n, st->sy / n, st->n);
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
        assert_true(sqrt(st.sum2 / st.n) < 0.15);
        assert_true(st.max < 0.4);
        all.sum2 += st.sum2;
        all.sx += st.sx;
        all.sy += st.sy;
        all.n += st.n;
        all.found += st.found;
        all.expected += st.expected;
        all.max = fmax(all.max, st.max);
    }
    report("all rigs", &all);
    assert_true(sqrt(all.sum2 / all.n) < 0.11);
}

/* Pixel at (x, y) normalised to 0 (ink) .. 1 (paper) under light 1. */
static double whiteness(const tt_image *im, int x, int y)
{
    return (im->data[(size_t)y * im->stride + x] - 22.0) / (235.0 - 22.0);
}

/* The renderer alone, without libapriltag: the outer edges of a tag's black
 * border lie where rnd_project puts them.  Along a pixel row (column) that
 * crosses a steep (flat) edge between paper and ink, the box filter makes
 * the summed whiteness equal the paper's width in the window, so the edge
 * position is measured exactly, up to sampling and 8-bit rounding. */
static void measure_edges(const rnd_camera *cam, const rnd_tag *t, int ss, errstat *st)
{
    rnd_scene sc = plain_scene(t, 1);
    sc.supersample = ss;
    tt_image im;
    tt_err err = {0};
    assert_int_equal(rnd_render(&sc, cam, &im, &err), TT_OK);
    double c[4][2], px[4][2], ctr[2];
    rnd_tag_corners(t, c);
    for (int k = 0; k < 4; k++)
        assert_true(rnd_project(cam, c[k][0], c[k][1], t->height_in, px[k]));
    assert_true(rnd_project(cam, t->x, t->y, t->height_in, ctr));
    /* pixels per cell, roughly: the window stays inside border + quiet zone */
    double cell = hypot(px[1][0] - px[0][0], px[1][1] - px[0][1]) / 8;
    int half = (int)floor(cell - 2.5);
    assert_true(half >= 4);
    for (int k = 0; k < 4; k++) {
        const double *A = c[k], *B = c[(k + 1) % 4];
        double du = px[(k + 1) % 4][0] - px[k][0], dv = px[(k + 1) % 4][1] - px[k][1];
        int steep = fabs(dv) > fabs(du); /* then integrate along rows */
        double esum = 0;
        int en = 0;
        /* 30%..70% along the edge: clear of the corners */
        for (double s = 0.3; s <= 0.7; s += 0.4 / 24) {
            double Q[2] = {A[0] + s * (B[0] - A[0]), A[1] + s * (B[1] - A[1])}, q[2];
            assert_true(rnd_project(cam, Q[0], Q[1], t->height_in, q));
            /* the scan line through the nearest pixel centre, and where the
             * (locally straight) edge crosses it */
            double line = round(steep ? q[1] : q[0]);
            double lo = 0, hi = 1, e[2];
            double a0[2], b0[2];
            rnd_project(cam, A[0], A[1], t->height_in, a0);
            rnd_project(cam, B[0], B[1], t->height_in, b0);
            int ax = steep ? 1 : 0;
            int inc = b0[ax] > a0[ax];
            for (int it = 0; it < 60; it++) { /* bisection on the table edge */
                double m = 0.5 * (lo + hi);
                rnd_project(cam, A[0] + m * (B[0] - A[0]), A[1] + m * (B[1] - A[1]), t->height_in, e);
                if ((e[ax] < line) == inc)
                    lo = m;
                else
                    hi = m;
            }
            double pred = steep ? e[0] : e[1];
            /* paper is on the far side from the tag centre */
            int paper_high = steep ? pred > ctr[0] : pred > ctr[1];
            int a = (int)floor(pred) - half, b = (int)floor(pred) + half + 1;
            double sum = 0;
            for (int x = a; x <= b; x++)
                sum += steep ? whiteness(&im, x, (int)line) : whiteness(&im, (int)line, x);
            /* paper spans [a-0.5, edge] (paper low) or [edge, b+0.5] */
            double meas = paper_high ? b + 0.5 - sum : a - 0.5 + sum;
            double d = meas - pred;
            esum += paper_high ? d : -d; /* outward positive */
            en++;
            st->sum2 += d * d;
            st->sx += d;
            st->n++;
            st->max = fmax(st->max, fabs(d));
        }
        st->edge_bias = fmax(st->edge_bias, fabs(esum / en));
    }
    tt_image_free(&im);
}

static void test_edges_exact_without_libapriltag(void **state)
{
    (void)state;
    const struct {
        double k1, k2, tilt_deg, facing, h;
        int ss;
    } cases[] = {
        {0, 0, 0, -80, 0, 3},        {0, 0, 0, -80, 0, 8},         {-0.08, 0.02, 15, -97, 0.118, 3},
        {-0.08, 0.02, 15, -97, 0.118, 8}, {-0.25, 0.08, 30, 170, 0, 8}, {0.1, 0, 40, 4, 0.5, 8},
    };
    errstat all = {0};
    int ok = 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rnd_camera cam;
        double tilt = cases[i].tilt_deg * M_PI / 180;
        rnd_camera_look_at(&cam, 640, 480, 600, cases[i].k1, cases[i].k2, 36, 24 - 14 * tan(tilt), 14, 36, 24);
        /* off-centre, where distortion bends lines */
        rnd_tag t = mk_tag("tag36h11", 5, 38.5, 25.5, cases[i].h, 2.6, cases[i].facing, 0);
        errstat st = {0};
        measure_edges(&cam, &t, cases[i].ss, &st);
        char what[96];
        snprintf(what, sizeof what, "edges: k1 %.2f tilt %.0f ss %d", cases[i].k1, cases[i].tilt_deg, cases[i].ss);
        report(what, &st);
        print_message("    largest mean outward error of one edge: %.4f px\n", st.edge_bias);
        /* geometry: no edge is displaced on average (a wrong size, offset or
         * distortion would show here) */
        ok = ok && st.edge_bias < (cases[i].ss >= 8 ? 0.008 : 0.02);
        /* sampling: each pixel's coverage is quantised to about 1/ss^2;
         * 8-bit rounding adds ~0.005 px */
        ok = ok && sqrt(st.sum2 / st.n) < (cases[i].ss >= 8 ? 0.025 : 0.07) &&
             st.max < (cases[i].ss >= 8 ? 0.07 : 0.2);
        all.sum2 += st.sum2;
        all.n += st.n;
        all.max = fmax(all.max, st.max);
    }
    report("edges: all", &all);
    assert_true(ok);
}

/* Every family libapriltag 3.3 ships renders so that it decodes with the
 * right id and exact corners (the Standard/Circle/Custom families have a
 * reversed border and data bits outside it). */
static void test_every_family(void **state)
{
    (void)state;
    rnd_camera cam;
    rnd_camera_look_at(&cam, 800, 600, 650, -0.08, 0.02, 36, 24 - 22 * tan(15 * M_PI / 180), 22, 36, 24);
    errstat all = {0};
    for (int f = 0; f < NFAMS; f++) {
        int ncodes = rnd_family_ncodes(vision_family_name(f));
        assert_true(ncodes > 0);
        rnd_tag tags[4];
        for (int i = 0; i < 4; i++) {
            int id = (int)((i * 7919L + 3) % ncodes);
            tags[i] = mk_tag(vision_family_name(f), id, 36 + (i % 2 ? 4.5 : -4.5), 24 + (i / 2 ? 3.5 : -3.5),
                             i == 3 ? 0.118 : 0, 2.0, -90 + 47.0 * i + 11 * f, i == 3 ? 1.5 : 0);
        }
        rnd_scene sc = plain_scene(tags, 4);
        errstat st = {0};
        check_corners(&sc, &cam, vision_family_name(f), &st);
        report(vision_family_name(f), &st);
        assert_int_equal(st.expected, 4);
        assert_int_equal(st.found, 4);
        assert_true(sqrt(st.sum2 / st.n) < 0.15);
        assert_true(st.max < 0.4);
        all.sum2 += st.sum2;
        all.n += st.n;
        all.max = fmax(all.max, st.max);
        all.found += st.found;
        all.expected += st.expected;
    }
    report("all families", &all);
    assert_true(sqrt(all.sum2 / all.n) < 0.11);
}

/* The facing recovered from the detected corners (top edge midpoint minus
 * centre, mapped back to the table at the tag's height) is the truth. */
static void test_facing_from_detection(void **state)
{
    (void)state;
    rnd_camera cam;
    rnd_camera_look_at(&cam, 960, 720, 800, -0.08, 0.02, 36, 24 - 24 * tan(12 * M_PI / 180), 24, 36, 24);
    rnd_tag tags[16];
    for (int i = 0; i < 16; i++)
        tags[i] = mk_tag("tag36h11", 300 + i, 36 - 9 + 6 * (i % 4), 24 - 6 + 4 * (i / 4), 0.118, 1.2,
                         -180 + 22.5 * i + 3.1, 0.8);
    rnd_scene sc = plain_scene(tags, 16);
    tt_image im;
    tt_err err = {0};
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_OK);
    det d;
    det_run(&d, "tag36h11", &im);
    double maxe = 0;
    for (int i = 0; i < 16; i++) {
        apriltag_detection_t *a = det_find(&d, tags[i].id);
        assert_non_null(a);
        /* corners back on the table: facing = bottom-edge midpoint to
         * top-edge midpoint (p0 p1 bottom, p2 p3 top) */
        double q[4][2], c[2];
        for (int k = 0; k < 4; k++)
            assert_true(rnd_unproject(&cam, a->p[k][0] - 0.5, a->p[k][1] - 0.5, tags[i].height_in, q[k]));
        for (int k = 0; k < 2; k++)
            c[k] = (q[0][k] + q[1][k] + q[2][k] + q[3][k]) * 0.25;
        double f = atan2(q[2][1] + q[3][1] - q[0][1] - q[1][1], q[2][0] + q[3][0] - q[0][0] - q[1][0]) * 180 / M_PI;
        double e = fabs(remainder(f - tags[i].facing_deg, 360));
        maxe = fmax(maxe, e);
        /* the centre too: within 0.005" */
        assert_true(hypot(c[0] - tags[i].x, c[1] - tags[i].y) < 0.005);
    }
    print_message("facing from detected corners: max error %.3f deg\n", maxe);
    assert_true(maxe < 0.5);
    det_free(&d);
    tt_image_free(&im);
}

/* A hand over a tag hides it: libapriltag does not find it and
 * rnd_tag_unoccluded says so; tags beside the hand are untouched. */
static void test_occlusion(void **state)
{
    (void)state;
    rnd_camera cam;
    rnd_camera_look_at(&cam, 960, 720, 800, -0.08, 0.02, 36, 20, 26, 36, 24);
    rnd_tag tags[6];
    for (int i = 0; i < 6; i++)
        tags[i] = mk_tag("tag36h11", 40 + i, 30 + 5.5 * (i % 3), 21 + 6 * (i / 3), 0.118, 1.2, -90 + 30 * i, 0.8);
    /* hand 1: a high hand right over tag 40; hand 2: a fingertip over a
     * corner of tag 44's quiet border only (partly hidden, so not
     * "unoccluded", whether or not libapriltag still finds it) */
    double cr[4][2];
    rnd_tag_corners(&tags[4], cr);
    double ox = tags[4].x + (cr[2][0] - tags[4].x) * 1.2, oy = tags[4].y + (cr[2][1] - tags[4].y) * 1.2;
    rnd_occluder occ[2] = {{.x = 30, .y = 21, .height_in = 4, .rx = 1.2, .ry = 2.0, .angle_deg = 20, .gray = 170},
                           {.x = ox, .y = oy, .height_in = 0.3, .rx = 0.12, .ry = 0.12, .gray = 170}};
    rnd_scene sc = plain_scene(tags, 6);
    sc.occluders = occ;
    sc.noccluders = 2;
    tt_image im;
    tt_err err = {0};
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_OK);
    det d;
    det_run(&d, "tag36h11", &im);
    assert_false(rnd_tag_unoccluded(&sc, &cam, &tags[0]));
    assert_null(det_find(&d, 40));
    assert_false(rnd_tag_unoccluded(&sc, &cam, &tags[4]));
    for (int i = 1; i < 6; i++) {
        if (i == 4)
            continue;
        assert_true(rnd_tag_unoccluded(&sc, &cam, &tags[i]));
        assert_non_null(det_find(&d, tags[i].id));
    }
    /* a tag partly outside the frame is not "unoccluded" either */
    rnd_tag edge = mk_tag("tag36h11", 50, 36, 24, 0, 1.2, -90, 0);
    double px[2];
    for (edge.x = 36; edge.x < 100; edge.x += 0.25) {
        assert_true(rnd_project(&cam, edge.x, edge.y, 0, px));
        if (px[0] > cam.width - 10)
            break;
    }
    assert_false(rnd_tag_unoccluded(&sc, &cam, &edge));
    edge.x = 36;
    assert_true(rnd_tag_unoccluded(&sc, &cam, &edge));
    det_free(&d);
    tt_image_free(&im);
}

static void render_noisy(unsigned seed, tt_image *im)
{
    rnd_camera cam;
    rnd_camera_look_at(&cam, 320, 240, 300, -0.08, 0.02, 36, 22, 30, 36, 24);
    rnd_tag t = mk_tag("tag36h11", 1, 36, 24, 0.118, 2, -60, 1.4);
    rnd_scene sc = plain_scene(&t, 1);
    sc.noise_sigma = 3;
    sc.blur_sigma_px = 0.8;
    sc.light_gradient = 0.3;
    sc.seed = seed;
    tt_err err = {0};
    assert_int_equal(rnd_render(&sc, &cam, im, &err), TT_OK);
}

/* Same seed, same image (whatever the thread count); another seed, other
 * noise of the requested strength. */
static void test_noise_deterministic(void **state)
{
    (void)state;
    tt_image a, b, c;
    render_noisy(7, &a);
    setenv("TT_RENDER_THREADS", "1", 1);
    render_noisy(7, &b);
    unsetenv("TT_RENDER_THREADS");
    render_noisy(8, &c);
    assert_memory_equal(a.data, b.data, (size_t)a.stride * a.height);
    double s2 = 0;
    int ndiff = 0;
    for (int i = 0; i < a.width * a.height; i++) {
        double dv = (double)a.data[i] - c.data[i];
        s2 += dv * dv;
        ndiff += dv != 0;
    }
    /* difference of two independent N(0, 3^2): sigma 3*sqrt(2) = 4.24 */
    double sd = sqrt(s2 / (a.width * a.height));
    print_message("noise: seeds 7 vs 8 differ in %d of %d pixels, sd %.2f\n", ndiff, a.width * a.height, sd);
    assert_true(sd > 3.8 && sd < 4.7);
    tt_image_free(&a);
    tt_image_free(&b);
    tt_image_free(&c);
}

static double zero_light(double x, double y, double h, void *user)
{
    (void)x, (void)y, (void)h, (void)user;
    return 0;
}

/* Plain felt takes one sample per pixel (a speed-up); with a light
 * callback every pixel is supersampled: the images agree to a gray level.
 * The fast one is kept in *fast when asked for. */
static void assert_plain_tiles_agree(const rnd_scene *scene, const rnd_camera *cam, tt_image *fast_out)
{
    rnd_scene sc = *scene;
    tt_image fast, full;
    tt_err err = {0};
    assert_int_equal(rnd_render(&sc, cam, &fast, &err), TT_OK);
    sc.light = zero_light;
    assert_int_equal(rnd_render(&sc, cam, &full, &err), TT_OK);
    int maxd = 0;
    for (int i = 0; i < fast.width * fast.height; i++)
        maxd = abs(fast.data[i] - full.data[i]) > maxd ? abs(fast.data[i] - full.data[i]) : maxd;
    assert_true(maxd <= 1);
    if (fast_out)
        *fast_out = fast;
    else
        tt_image_free(&fast);
    tt_image_free(&full);
}

/* Plain felt takes one sample per pixel (a speed-up); with a light
 * callback every pixel is supersampled.  Both give the same image. */
static void test_plain_tiles_match_supersampling(void **state)
{
    (void)state;
    rnd_camera cam;
    rnd_camera_look_at(&cam, 640, 400, 330, -0.08, 0.02, 36, 14, 40, 36, 24);
    rnd_tag tags[12];
    int n = rnd_standard_tags(tags, 4, 8, 1.0, 3, 72, 48, 5);
    rnd_occluder occ = {.x = 50, .y = 30, .height_in = 3, .rx = 2, .ry = 3, .angle_deg = 30, .gray = 160};
    rnd_scene sc = plain_scene(tags, n);
    sc.light_gradient = 0.3;
    sc.occluders = &occ;
    sc.noccluders = 1;
    assert_plain_tiles_agree(&sc, &cam, NULL);
}

/* A raised round base shows its side wall to an oblique camera (and its
 * top around the tag); the felt shows where neither is. */
static void test_base_wall(void **state)
{
    (void)state;
    rnd_camera cam;
    rnd_camera_look_at(&cam, 400, 300, 500, 0, 0, 36, 10, 12, 36, 24);
    rnd_tag t = mk_tag("tag36h11", 9, 36, 24, 0.5, 0.8, -90, 0.8);
    rnd_scene sc = plain_scene(&t, 1);
    tt_image im;
    tt_err err = {0};
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_OK);
    double px[2];
    /* mid-height on the side facing the camera (toward -y) */
    assert_true(rnd_project(&cam, 36, 24 - 0.8, 0.25, px));
    assert_int_equal(im.data[(size_t)lrint(px[1]) * im.stride + (size_t)lrint(px[0])], 45);
    /* the base top between the printed tag and the rim, on the +x side */
    assert_true(rnd_project(&cam, 36 + 0.7, 24, 0.5, px));
    assert_int_equal(im.data[(size_t)lrint(px[1]) * im.stride + (size_t)lrint(px[0])], 60);
    /* felt beside the base, clear of it along the view ray */
    assert_true(rnd_project(&cam, 36 + 1.2, 24, 0, px));
    assert_int_equal(im.data[(size_t)lrint(px[1]) * im.stride + (size_t)lrint(px[0])], 90);
    tt_image_free(&im);
}

static double left_half_light(double x, double y, double h, void *user)
{
    (void)y, (void)h;
    return x < *(const double *)user ? 0.5 : 0;
}

/* The light model: albedo x (ambient x (1 - gradient x d) + light()), d the
 * distance from table corner (0, 0) over the diagonal; floor outside. */
static void test_light_model(void **state)
{
    (void)state;
    rnd_camera cam;
    rnd_camera_look_at(&cam, 400, 300, 240, -0.08, 0.02, 36, 20, 80, 36, 24);
    rnd_scene sc = plain_scene(NULL, 0);
    sc.light_gradient = 0.3;
    sc.ambient = 0.9;
    double split = 36;
    sc.light = left_half_light;
    sc.light_user = &split;
    tt_image im;
    tt_err err = {0};
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_OK);
    const double pts[][2] = {{5, 5}, {30, 40}, {40, 10}, {67, 43}, {-6, 24}};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        double px[2];
        assert_true(rnd_project(&cam, pts[i][0], pts[i][1], 0, px));
        int u = (int)lrint(px[0]), v = (int)lrint(px[1]);
        double xy[2];
        assert_true(rnd_unproject(&cam, u, v, 0, xy)); /* the pixel centre's own table point */
        int in = xy[0] >= 0 && xy[0] <= 72 && xy[1] >= 0 && xy[1] <= 48;
        double d = hypot(xy[0], xy[1]) / hypot(72, 48);
        double L = 0.9 * (1 - 0.3 * d) + (xy[0] < split ? 0.5 : 0);
        double want = (in ? 90 : 40) * L;
        int got = im.data[(size_t)v * im.stride + u];
        assert_true(fabs(got - want) <= 1.0);
    }
    /* a thread-safe light on several threads: the same image */
    tt_image im2;
    assert_int_equal(rnd_render_threads(&sc, &cam, 3, &im2, &err), TT_OK);
    assert_memory_equal(im.data, im2.data, (size_t)im.stride * im.height);
    tt_image_free(&im2);
    tt_image_free(&im);
}

/* rnd_project agrees with OpenCV's projectPoints; rnd_unproject inverts it;
 * camera.yaml reads back through cvw_camera_read exactly. */
static void test_camera_model_matches_opencv(void **state)
{
    (void)state;
    rnd_camera cam;
    rnd_camera_look_at(&cam, 3840, 2160, 2900, -0.08, 0.02, 36, 24 - 84 * tan(8 * M_PI / 180), 84, 36, 24);
    cam.dist[2] = 0.0011;
    cam.dist[3] = -0.0007;
    cam.dist[4] = 0.003;
    cvw_camera cv = {.width = cam.width, .height = cam.height, .ndist = 5};
    memcpy(cv.K, cam.K, sizeof cam.K);
    memcpy(cv.dist, cam.dist, sizeof cam.dist);
    double obj[3 * 40], img[2 * 40];
    for (int i = 0; i < 40; i++) {
        obj[3 * i] = (i % 8) * 10.0 + 0.37;
        obj[3 * i + 1] = (i / 8) * 11.0 + 0.21;
        obj[3 * i + 2] = -(i % 3) * 0.118;
    }
    tt_err err = {0};
    assert_int_equal(cvw_project_points(&cv, obj, 40, cam.rvec, cam.tvec, img, &err), TT_OK);
    double maxe = 0, maxu = 0;
    for (int i = 0; i < 40; i++) {
        double px[2], xy[2];
        assert_true(rnd_project(&cam, obj[3 * i], obj[3 * i + 1], -obj[3 * i + 2], px));
        maxe = fmax(maxe, hypot(px[0] - img[2 * i], px[1] - img[2 * i + 1]));
        assert_true(rnd_unproject(&cam, px[0], px[1], -obj[3 * i + 2], xy));
        maxu = fmax(maxu, hypot(xy[0] - obj[3 * i], xy[1] - obj[3 * i + 1]));
    }
    print_message("rnd_project vs cv::projectPoints: max %.2e px; unproject round trip max %.2e in\n", maxe, maxu);
    assert_true(maxe < 1e-6);
    assert_true(maxu < 1e-9);

    char path[] = "/tmp/tt_render_camXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(rnd_write_camera_yaml(&cam, path, &err), TT_OK);
    cvw_camera back;
    assert_int_equal(cvw_camera_read(path, &back, &err), TT_OK);
    assert_int_equal(back.width, 3840);
    assert_int_equal(back.height, 2160);
    assert_int_equal(back.ndist, 5);
    for (int i = 0; i < 9; i++)
        assert_true(back.K[i] == cam.K[i]);
    for (int i = 0; i < 5; i++)
        assert_true(back.dist[i] == cam.dist[i]);
    unlink(path);
    /* an unwritable place is an error with a message */
    assert_int_equal(rnd_write_camera_yaml(&cam, "/nonexistent-dir/camera.yaml", &err), TT_ERR_IO);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/camera.yaml"));
}

/* The standard rig: anchors where promised, bases apart, facing in range;
 * rig.json carries the contract's fields. */
static void test_standard_rig_and_files(void **state)
{
    (void)state;
    rnd_tag tags[8 + 120];
    int n = rnd_standard_tags(tags, 8, 120, 0.8, 3, 72, 48, 42);
    assert_int_equal(n, 128);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(tags[i].id, i);
        assert_true(tags[i].facing_deg == -90 && tags[i].height_in == 0 && tags[i].size_in == 2.4);
    }
    for (int i = 8; i < n; i++) {
        assert_int_equal(tags[i].id, 100 + i - 8);
        assert_true(tags[i].facing_deg > -180 && tags[i].facing_deg <= 180);
        assert_true(fabs(tags[i].height_in - 3 / 25.4) < 1e-12);
        for (int k = 0; k < i; k++)
            assert_true(hypot(tags[i].x - tags[k].x, tags[i].y - tags[k].y) > 1.4);
    }
    /* same seed, same scene */
    rnd_tag again[8 + 120];
    rnd_standard_tags(again, 8, 120, 0.8, 3, 72, 48, 42);
    assert_memory_equal(tags, again, sizeof tags);

    rnd_scene sc = plain_scene(tags, n);
    char path[] = "/tmp/tt_render_rigXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    tt_err err = {0};
    assert_int_equal(rnd_write_rig(path, "camera.yaml", &sc, 8, 0.8, 3.0, &err), TT_OK);
    FILE *f = fopen(path, "r");
    char buf[8192];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = 0;
    unlink(path);
    assert_non_null(strstr(buf, "\"width_in\": 72"));
    assert_non_null(strstr(buf, "\"depth_in\": 48"));
    assert_non_null(strstr(buf, "\"camera\": \"camera.yaml\""));
    assert_non_null(strstr(buf, "\"anchors\""));
    assert_non_null(strstr(buf, "\"families\""));
    assert_non_null(strstr(buf, "\"height_mm\": 3"));
    assert_null(strstr(buf, "\"id\": 100")); /* bases are not anchors */
}

/* Bad scenes are refused with a message naming the problem. */
static void test_bad_input(void **state)
{
    (void)state;
    rnd_camera cam;
    rnd_camera_look_at(&cam, 64, 48, 60, 0, 0, 36, 24, 30, 36, 24);
    rnd_tag t = mk_tag("tag99h99", 1, 36, 24, 0, 2, 0, 0);
    rnd_scene sc = plain_scene(&t, 1);
    tt_image im;
    tt_err err = {0};
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_ERR_UNKNOWN);
    assert_non_null(strstr(err.msg, "tag99h99"));
    assert_null(im.data);
    t = mk_tag("tag16h5", 30, 36, 24, 0, 2, 0, 0); /* tag16h5 has 30 ids: 0..29 */
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "30"));
    t = mk_tag("tag16h5", 3, 36, 24, 0, 2, 0, 0);
    sc.supersample = 9;
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "supersample"));
    sc.supersample = 1;
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_OK);
    tt_image_free(&im);
}


/* ---- raised terrain ---- */

static rnd_piece mk_box(double x0, double y0, double x1, double y1, double h, double slope, uint8_t gray)
{
    rnd_piece p;
    memset(&p, 0, sizeof p);
    const double c[4][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
    memcpy(p.pts, c, sizeof c);
    p.npts = 4;
    p.height_in = h;
    p.slope_in = slope;
    p.gray = gray;
    return p;
}

static int pixel_at(const tt_image *im, const rnd_camera *cam, double x, double y, double h)
{
    double px[2];
    assert_true(rnd_project(cam, x, y, h, px));
    return im->data[(size_t)lrint(px[1]) * im->stride + (size_t)lrint(px[0])];
}

/* The ground's height and gradient, by hand: a 2" box-topped hill whose
 * sides fall to the felt over 4". */
static void test_terrain_height(void **state)
{
    (void)state;
    rnd_piece hill = mk_box(10, 10, 20, 16, 2, 4, 120);
    rnd_scene sc = plain_scene(NULL, 0);
    sc.pieces = &hill;
    sc.npieces = 1;
    double g[2];
    assert_true(rnd_ground_gradient(&sc, 15, 13, g) == 2 && g[0] == 0 && g[1] == 0); /* top */
    /* 1" right of the top's edge: a quarter of the way down the slope */
    assert_true(fabs(rnd_ground_gradient(&sc, 21, 13, g) - 1.5) < 1e-12);
    assert_true(fabs(g[0] + 0.5) < 1e-12 && fabs(g[1]) < 1e-12);
    /* 3" below the top's near edge (y = 10): an eighth of its height */
    assert_true(fabs(rnd_ground_height(&sc, 15, 7) - 0.5) < 1e-12);
    /* diagonally off the corner (20, 16): distance sqrt(2)*2 */
    assert_true(fabs(rnd_ground_height(&sc, 22, 18) - 2 * (1 - sqrt(8) / 4)) < 1e-12);
    assert_true(rnd_ground_height(&sc, 30, 13) == 0);
    /* standing on it: the base on the slope at (21, 13), the tag 0.1"
     * above it along the slope's normal (downhill of it), tilted */
    rnd_tag t = mk_tag("tag36h11", 1, 21, 13, 0, 1, 0, 0);
    rnd_place_on_ground(&sc, &t, 0.1);
    assert_true(fabs(t.height_in - (1.5 + 0.1 / sqrt(1.25))) < 1e-12);
    assert_true(fabs(t.x - (21 + 0.1 * 0.5 / sqrt(1.25))) < 1e-12 && t.y == 13);
    assert_true(t.slope[0] == -0.5 && t.slope[1] == 0);
    double bxy[2];
    rnd_tag_base_xy(&t, 0.1, bxy);
    assert_true(fabs(bxy[0] - 21) < 1e-12 && fabs(bxy[1] - 13) < 1e-12);
    /* its corners lie in the slope's plane, 0.1" above it along the normal */
    double c3[4][3];
    rnd_tag_corners3(&t, c3);
    for (int k = 0; k < 4; k++) {
        double along = (c3[k][0] - t.x) * -0.5; /* the slope's rise from the centre */
        assert_true(fabs(c3[k][2] - (t.height_in + along)) < 1e-12);
        assert_true(fabs(hypot(hypot(c3[k][0] - t.x, c3[k][1] - t.y), c3[k][2] - t.height_in) - sqrt(0.5)) < 1e-12);
    }
}

/* What the camera sees of a building with vertical walls and a hill with
 * sloped sides: tops, walls and slopes in the piece's gray, the felt beside
 * them; the felt behind a wall is hidden; one-sample tiles agree with
 * supersampling around them. */
static void test_terrain_surfaces(void **state)
{
    (void)state;
    rnd_camera cam;
    rnd_camera_look_at(&cam, 640, 400, 330, 0, 0, 36, 4, 40, 36, 24);
    rnd_piece pieces[2] = {mk_box(20, 20, 28, 26, 3, 0, 150), mk_box(44, 20, 52, 26, 2, 3, 120)};
    rnd_scene sc = plain_scene(NULL, 0);
    sc.pieces = pieces;
    sc.npieces = 2;
    tt_image fast;
    assert_plain_tiles_agree(&sc, &cam, &fast);
    assert_int_equal(pixel_at(&fast, &cam, 24, 23, 3), 150);     /* building top */
    assert_int_equal(pixel_at(&fast, &cam, 24, 20, 1.5), 150);   /* its wall facing the camera */
    assert_int_equal(pixel_at(&fast, &cam, 48, 23, 2), 120);     /* hill top */
    assert_int_equal(pixel_at(&fast, &cam, 48, 18.5, 1), 120);   /* half-way down its near slope */
    assert_int_equal(pixel_at(&fast, &cam, 36, 23, 0), 90);      /* felt between them */
    assert_int_equal(pixel_at(&fast, &cam, 24, 17, 0), 90);      /* felt in front of the building */
    /* the felt just behind the building is hidden by it */
    double px[2], xy[2];
    assert_true(rnd_project(&cam, 24, 26.5, 0, px));
    assert_true(rnd_unproject(&cam, px[0], px[1], 3, xy));
    assert_true(xy[1] < 26); /* the ray passes over the roof */
    assert_int_equal(fast.data[(size_t)lrint(px[1]) * fast.stride + (size_t)lrint(px[0])], 150);
    tt_image_free(&fast);
}

static double height_light(double x, double y, double h, void *user)
{
    (void)x, (void)y, (void)user;
    return h > 2.5 ? 0.5 : 0;
}

/* Light falls on the terrain at its height (a projector's light reaches
 * the top of a 3" box, not the felt under it). */
static void test_terrain_light(void **state)
{
    (void)state;
    rnd_camera cam;
    rnd_camera_look_at(&cam, 320, 240, 240, 0, 0, 36, 24, 40, 36, 24);
    rnd_piece box = mk_box(30, 20, 40, 28, 3, 0, 100);
    rnd_scene sc = plain_scene(NULL, 0);
    sc.pieces = &box;
    sc.npieces = 1;
    sc.light = height_light;
    tt_image im;
    tt_err err = {0};
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_OK);
    assert_int_equal(pixel_at(&im, &cam, 35, 24, 3), 150); /* 100 x (1 + 0.5) */
    assert_int_equal(pixel_at(&im, &cam, 45, 24, 0), 90);
    tt_image_free(&im);
}

/* Tags on a flat-topped hill and tilted on its slopes: libapriltag finds
 * every unoccluded one where rnd_project of its 3D corners says; a tag
 * behind a tall building is hidden. */
static void test_terrain_corners(void **state)
{
    (void)state;
    rnd_camera cam;
    rnd_camera_look_at(&cam, 1280, 960, 1100, -0.08, 0.02, 36, 8, 30, 36, 24);
    rnd_piece pieces[2] = {mk_box(28, 20, 40, 28, 2, 5, 120), mk_box(46, 12, 50, 18, 6, 0, 140)};
    rnd_scene sc = plain_scene(NULL, 0);
    sc.pieces = pieces;
    sc.npieces = 2;
    rnd_tag tags[10];
    const double at[10][2] = {{30, 22}, {34, 24}, {38, 26}, {25.5, 24}, {42.5, 23}, {34, 17.5},
                              {33, 30.5}, {26, 19}, {49.5, 19}, {20, 30}};
    for (int i = 0; i < 10; i++) {
        tags[i] = mk_tag("tag36h11", 60 + i, at[i][0], at[i][1], 0, 1.0, -90 + 37 * i, 0.7);
        rnd_place_on_ground(&sc, &tags[i], 0.118);
    }
    assert_true(tags[3].slope[0] > 0.1 && tags[4].slope[0] < -0.1 && tags[5].slope[1] > 0.1); /* tilted */
    assert_true(tags[0].slope[0] == 0 && tags[0].height_in > 2);                           /* level, on top */
    sc.tags = tags;
    sc.ntags = 10;
    tt_image im;
    tt_err err = {0};
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_OK);
    det d;
    det_run(&d, "tag36h11", &im);
    /* id 68 stands right behind the 6" building, seen from the near side */
    assert_false(rnd_tag_unoccluded(&sc, &cam, &tags[8]));
    assert_null(det_find(&d, 68));
    errstat st = {0};
    for (int i = 0; i < 10; i++) {
        if (i == 8)
            continue;
        assert_true(rnd_tag_unoccluded(&sc, &cam, &tags[i]));
        apriltag_detection_t *a = det_find(&d, tags[i].id);
        assert_non_null(a);
        double c3[4][3];
        rnd_tag_corners3(&tags[i], c3);
        for (int k = 0; k < 4; k++) {
            double px[2];
            assert_true(rnd_project(&cam, c3[k][0], c3[k][1], c3[k][2], px));
            double e = hypot(a->p[k][0] - 0.5 - px[0], a->p[k][1] - 0.5 - px[1]);
            st.sum2 += e * e;
            st.max = fmax(st.max, e);
            st.n++;
        }
    }
    report("tags on a hill and its slopes", &st);
    assert_true(sqrt(st.sum2 / st.n) < 0.15);
    assert_true(st.max < 0.4);
    det_free(&d);
    tt_image_free(&im);
}

/* Bad input: a piece with too few corners, or a height that is not
 * positive, is refused with a message. */
static void test_terrain_bad_input(void **state)
{
    (void)state;
    rnd_camera cam;
    rnd_camera_look_at(&cam, 64, 48, 60, 0, 0, 36, 24, 30, 36, 24);
    rnd_piece p = mk_box(10, 10, 20, 20, 2, 0, 100);
    rnd_scene sc = plain_scene(NULL, 0);
    sc.pieces = &p;
    sc.npieces = 1;
    tt_image im;
    tt_err err = {0};
    p.npts = 2;
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "terrain piece 0"));
    p.npts = 4;
    p.height_in = -1;
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "height_in"));
    p.height_in = NAN;
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_ERR_ARG);
    p.height_in = 2;
    sc.npieces = -1;
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_ERR_ARG);
    sc.npieces = 1;
    assert_int_equal(rnd_render(&sc, &cam, &im, &err), TT_OK);
    tt_image_free(&im);
}

#ifdef TT_RENDER_BIN
/* tt-render writes the four files of the contract; they load with the
 * project's own readers. */
static void test_tt_render_cli(void **state)
{
    (void)state;
    char dir[] = "/tmp/tt_render_cliXXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[8192], path[4096];
    snprintf(cmd, sizeof cmd,
             "'%s' --out '%s' --width 640 --height 360 --f-px 483 --bases 20 --hands 2 --seed 3 --supersample 2 "
             "--quiet",
             TT_RENDER_BIN, dir);
    assert_int_equal(system(cmd), 0);

    tt_image im;
    tt_err err = {0};
    snprintf(path, sizeof path, "%s/frame.png", dir);
    assert_int_equal(cvw_image_read(path, 1, &im, &err), TT_OK);
    assert_int_equal(im.width, 640);
    assert_int_equal(im.height, 360);
    tt_image_free(&im);

    snprintf(path, sizeof path, "%s/truth.json", dir);
    json_error_t jerr;
    json_t *truth = json_load_file(path, 0, &jerr);
    assert_non_null(truth);
    json_t *figs = json_object_get(truth, "figures");
    assert_int_equal(json_array_size(figs), 20);
    for (size_t i = 0; i < json_array_size(figs); i++) {
        json_t *f = json_array_get(figs, i);
        assert_true(json_is_string(json_object_get(f, "family")));
        assert_true(json_is_integer(json_object_get(f, "id")));
        assert_true(json_is_number(json_object_get(f, "x")));
        assert_true(json_is_number(json_object_get(f, "y")));
        assert_true(json_is_number(json_object_get(f, "facing_deg")));
        assert_true(json_is_boolean(json_object_get(f, "unoccluded")));
    }
    json_decref(truth);

    snprintf(path, sizeof path, "%s/camera.yaml", dir);
    cvw_camera cv;
    assert_int_equal(cvw_camera_read(path, &cv, &err), TT_OK);
    assert_int_equal(cv.width, 640);
    assert_true(cv.K[0] == 483);
#ifdef TT_HAVE_CALIB
    calib_rig *rig = NULL;
    snprintf(path, sizeof path, "%s/rig.json", dir);
    assert_int_equal(calib_rig_load(path, &rig, &err), TT_OK);
    assert_int_equal(rig->nanchors, 4);
    assert_true(rig->width_in == 72 && rig->depth_in == 48);
    assert_true(rig->base_size_in == 0.8 && rig->base_height_mm == 3);
    assert_int_equal(rig->camera.width, 640);
    calib_rig_destroy(rig);
#endif
    /* a bad option is refused with a non-zero exit */
    snprintf(cmd, sizeof cmd, "'%s' --out '%s' --bogus 2>/dev/null", TT_RENDER_BIN, dir);
    assert_int_not_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s' --out '%s' --hill 10,10,5,20,2 2>/dev/null", TT_RENDER_BIN, dir);
    assert_int_not_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s' --out '%s' --building 10,10,20,20,2,3 2>/dev/null", TT_RENDER_BIN, dir);
    assert_int_not_equal(system(cmd), 0);
    /* hills and a building: bases on them stand on them, tilted on a slope;
     * truth.json lists the terrain */
    snprintf(cmd, sizeof cmd,
             "'%s' --out '%s' --width 480 --height 320 --f-px 330 --bases 60 --seed 4 --supersample 1 --quiet "
             "--hill 6,6,30,20,2 --hill 40,24,60,40,1.5,4 --building 34,4,40,10,3",
             TT_RENDER_BIN, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/truth.json", dir);
    truth = json_load_file(path, 0, &jerr);
    assert_non_null(truth);
    assert_int_equal(json_array_size(json_object_get(truth, "terrain")), 3);
    figs = json_object_get(truth, "figures");
    int on_top = 0, tilted = 0;
    for (size_t i = 0; i < json_array_size(figs); i++) {
        json_t *f = json_array_get(figs, i);
        double x = json_number_value(json_object_get(f, "x")), y = json_number_value(json_object_get(f, "y"));
        double h = json_number_value(json_object_get(f, "height_in"));
        if (x > 6 && x < 30 && y > 6 && y < 20) {
            assert_true(fabs(h - (2 + 3 / 25.4)) < 1e-9);
            on_top++;
        }
        if (json_object_get(f, "tilt_deg")) {
            assert_true(x > 36 && x < 64 && y > 20 && y < 44);
            tilted++;
        }
    }
    assert_true(on_top > 3 && tilted > 0);
    json_decref(truth);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}
#endif

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corner_order_upright),
        cmocka_unit_test(test_edges_exact_without_libapriltag),
        cmocka_unit_test(test_corners_exact),
        cmocka_unit_test(test_every_family),
        cmocka_unit_test(test_facing_from_detection),
        cmocka_unit_test(test_occlusion),
        cmocka_unit_test(test_noise_deterministic),
        cmocka_unit_test(test_plain_tiles_match_supersampling),
        cmocka_unit_test(test_light_model),
        cmocka_unit_test(test_base_wall),
        cmocka_unit_test(test_camera_model_matches_opencv),
        cmocka_unit_test(test_standard_rig_and_files),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_terrain_height),
        cmocka_unit_test(test_terrain_surfaces),
        cmocka_unit_test(test_terrain_light),
        cmocka_unit_test(test_terrain_corners),
        cmocka_unit_test(test_terrain_bad_input),
#ifdef TT_RENDER_BIN
        cmocka_unit_test(test_tt_render_cli),
#endif
    };
    /* ctest runs one test per process: the argument is a cmocka filter */
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    int rc = cmocka_run_group_tests_name("render", tests, NULL, NULL);
    rnd_texture_cache_clear();
    return rc;
}
