/* test_projector_seam.c - two projectors on one table (issue 31, part 4),
 * tested on the simulated projector-camera rig: each projector calibrated
 * on its own (`calib projector` once per projector: its patterns shown, the
 * other dark), then a blast drawn across the seam by both, each through its
 * own map and its share of the light (overlay_seam).  The blast lands
 * within 2 px of the truth in each projector; along its middle the summed
 * light, pixel value v counted as (v/255)^2.2, is within 15% of one
 * projector's alone in the overlap (and about twice it without the ramp:
 * the bright seam the ramp removes); the camera sees the felt as evenly
 * lit; the tag masks stay dark in both projectors.  The pictures are
 * written to $TT_SEAM_PNG (a folder) when it is set, to look at. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cvwrap.h"
#include "overlay.h"
#include "pjsim.h"
#include "projector.h"
#include "table_scene.h"

#define CX 36.0 /* the blast, on the seam */
#define CY 24.0
#define R_IN 3.0
#define FIG_X 35.2 /* a figure under the blast, in the overlap */
#define FIG_Y 23.1
#define TAG_IN 0.88

typedef struct rig {
    pjsim *s;
    rnd_tag tags[7];
    calib_projector *pj[2];
    overlay_seam *seam[2];
} rig;

/* Two projectors side by side, 34" apart, each ~44" wide: they overlap by
 * about 10" in the middle of the table (x 31..41). */
static void rig_open(rig *r)
{
    pjsim_options o;
    tt_err err = {0};
    pjsim_options_default(&o);
    o.pj_eye[0] = 19;
    o.pj_target[0] = 19;
    o.nmore = 1;
    o.more[0].eye[0] = 53;
    o.more[0].eye[1] = 30;
    o.more[0].eye[2] = 60;
    o.more[0].target[0] = 53;
    o.more[0].target[1] = 24;
    o.gain = 1.2; /* a bright projector in a dim room, as test_projector_masks */
    o.ambient = 0.45;
    o.seed = 31;
    assert_int_equal(pjsim_create(&o, &r->s, &err), TT_OK);
    /* the rig's 6 anchors and one figure's base, in the overlap */
    memcpy(r->tags, r->s->tags, 6 * sizeof r->tags[0]);
    rnd_tag *f = &r->tags[6];
    memset(f, 0, sizeof *f);
    f->id = 100;
    f->x = FIG_X;
    f->y = FIG_Y;
    f->size_in = TAG_IN;
    f->facing_deg = 30;
    snprintf(f->family, sizeof f->family, "tag36h11");
    f->height_in = 0.12;
    f->base_radius_in = 0.55;
    r->s->scene.tags = r->tags;
    r->s->scene.ntags = 7;
}

static void rig_close(rig *r)
{
    for (int k = 0; k < 2; k++) {
        overlay_seam_destroy(r->seam[k]);
        calib_projector_destroy(r->pj[k]);
    }
    pjsim_destroy(r->s);
}

/* `calib projector` for projector k: its patterns photographed with the
 * other projector dark, solved into its own map. */
static void calibrate(rig *r, int k)
{
    tt_image *caps = NULL;
    int n = 0;
    tt_err err = {0};
    calib_projector_report rep;
    if (pjsim_capture_all_k(r->s, k, &caps, &n, &err) != TT_OK)
        fail_msg("capture: %s", err.msg);
    if (calib_projector_solve(r->s->rig, r->s->o.pj_w, r->s->o.pj_h, caps, n, NULL, &r->pj[k], &rep, &err) != TT_OK)
        fail_msg("projector %d: %s", k + 1, err.msg);
    pjsim_captures_free(caps, n);
    /* the map is this projector's, not the other's: the truth agrees */
    double worst = 0;
    for (double y = 14; y <= 34; y += 4)
        for (double x = k ? 34 : 4; x <= (k ? 68 : 38); x += 4) {
            double t[2], q[2], xy[2] = {x, y};
            assert_true(pjsim_truth_k(r->s, k, x, y, 0, t));
            calib_projector_map(r->pj[k], xy, 1, q);
            worst = fmax(worst, hypot(q[0] - t[0], q[1] - t[1]));
        }
    print_message("projector %d: residual %.3f px rms, lit x %.1f..%.1f y %.1f..%.1f in; worst off the truth %.2f px\n",
                  k + 1, rep.rms_px, rep.covered[0], rep.covered[2], rep.covered[1], rep.covered[3], worst);
    assert_true(worst < 1.0);
}

/* The project's own blast (table_look) and the figure's tag mask. */
static void build_overlay(overlay_list *l, table_scene **out)
{
    tt_err err = {0};
    char text[512];
    snprintf(text, sizeof text,
             "{\"ruleset\":\"into-the-breach\",\"table\":{\"width_in\":72,\"depth_in\":48},\"figures\":["
             "{\"id\":\"a\",\"side\":\"red\",\"unit\":\"u\",\"type\":\"foot\",\"weapon\":\"musket\",\"x\":%.2f,"
             "\"y\":%.2f,\"facing_deg\":30}]}",
             FIG_X, FIG_Y);
    const char *dirs[] = {TT_SOURCE_DIR, NULL};
    assert_int_equal(table_scene_parse(text, "seam scenario", NULL, dirs, out, &err), TT_OK);
    char q[128];
    json_error_t je;
    snprintf(q, sizeof q, "{\"q\":\"blast\",\"at\":[%.2f,%.2f],\"radius_in\":%.2f}", CX, CY, R_IN);
    json_t *jq = json_loads(q, 0, &je), *ans = NULL;
    assert_non_null(jq);
    assert_int_equal(table_scene_query(*out, jq, l, &ans, &err), TT_OK);
    json_decref(jq);
    json_decref(ans);
    assert_int_equal(overlay_add_tag_mask(l, FIG_X, FIG_Y, 30, TAG_IN, 0.12, &err), TT_OK);
}

/* The picture projector k shows: its brightest channel per pixel (what the
 * simulated projector lights with). */
static void render(rig *r, int k, const overlay_list *l, int seam, tt_image *out)
{
    overlay_mapper m;
    cairo_surface_t *surf = NULL;
    tt_err err = {0};
    overlay_mapper_projector(&m, r->pj[k]);
    m.seam = seam ? r->seam[k] : NULL;
    assert_int_equal(overlay_render(l, &m, &surf, &err), TT_OK);
    const char *dir = getenv("TT_SEAM_PNG");
    if (dir && *dir) {
        char p[512];
        snprintf(p, sizeof p, "%s/seam_p%d%s.png", dir, k + 1, seam ? "" : "_noramp");
        assert_int_equal(overlay_write_png(surf, p, &err), TT_OK);
    }
    int w = cairo_image_surface_get_width(surf), h = cairo_image_surface_get_height(surf);
    int stride = cairo_image_surface_get_stride(surf);
    const unsigned char *d = cairo_image_surface_get_data(surf);
    assert_int_equal(tt_image_alloc(out, w, h, 1, &err), TT_OK);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t p = *(const uint32_t *)(const void *)(d + (size_t)y * stride + 4 * (size_t)x);
            unsigned a = (p >> 16) & 255, b = (p >> 8) & 255, c = p & 255;
            out->data[(size_t)y * out->stride + x] = (uint8_t)(a > b ? (a > c ? a : c) : (b > c ? b : c));
        }
    cairo_surface_destroy(surf);
}

/* Pixel value, bilinear, at projector pixel (u, v); 0 outside. */
static double value_at(const tt_image *im, double u, double v)
{
    if (!(u >= 0 && v >= 0 && u <= im->width - 1 && v <= im->height - 1))
        return 0;
    int i = (int)u, j = (int)v;
    if (i > im->width - 2)
        i = im->width - 2;
    if (j > im->height - 2)
        j = im->height - 2;
    double a = u - i, b = v - j;
    const uint8_t *r0 = im->data + (size_t)j * im->stride, *r1 = r0 + im->stride;
    return (1 - a) * (1 - b) * r0[i] + a * (1 - b) * r0[i + 1] + (1 - a) * b * r1[i] + a * b * r1[i + 1];
}

/* Light (in units of the projector's white) projector k gives at table
 * point (x, y) on the felt, from its picture, counted as (v/255)^2.2. */
static double light_at(const rig *r, int k, const tt_image *im, double x, double y)
{
    double t[2];
    if (!pjsim_truth_k(r->s, k, x, y, 0, t))
        return 0;
    return pow(value_at(im, t[0], t[1]) / 255.0, 2.2);
}

/* Where the blast's edge lands in projector k's picture, along the ray at
 * angle a from its centre: the truth's rim against the half-light crossing
 * of the picture.  Returns the distance in pixels (-1: not in the picture
 * or too dim to measure). */
static double rim_error_px(const rig *r, int k, const tt_image *im, double a)
{
    double c[2], e[2];
    double rim = R_IN + 0.04; /* the outline's outer edge (0.08" wide) */
    if (!pjsim_truth_k(r->s, k, CX, CY, 0, c) || !pjsim_truth_k(r->s, k, CX + rim * cos(a), CY + rim * sin(a), 0, e))
        return -1;
    double len = hypot(e[0] - c[0], e[1] - c[1]), ux = (e[0] - c[0]) / len, uy = (e[1] - c[1]) / len;
    double inside = value_at(im, e[0] - 4 * ux, e[1] - 4 * uy);
    if (inside < 20)
        return -1;
    /* from 4 px inside outward, to where the value falls under half */
    double prev = inside, t;
    for (t = -4; t <= 6; t += 0.05) {
        double v = value_at(im, e[0] + t * ux, e[1] + t * uy);
        if (v < inside / 2) {
            double f = (prev - inside / 2) / (prev - v);
            t = t - 0.05 + 0.05 * f;
            break;
        }
        prev = v;
    }
    return fabs(t);
}

/* Mean gray in the camera photo around table point (x, y), 7x7 pixels. */
static double photo_at(const rig *r, const tt_image *ph, double x, double y)
{
    double px[2];
    assert_true(rnd_project(&r->s->cam, x, y, 0, px));
    double sum = 0;
    int n = 0;
    for (int dv = -3; dv <= 3; dv++)
        for (int du = -3; du <= 3; du++) {
            int u = (int)lrint(px[0]) + du, v = (int)lrint(px[1]) + dv;
            if (u >= 0 && v >= 0 && u < ph->width && v < ph->height) {
                sum += ph->data[(size_t)v * ph->stride + u];
                n++;
            }
        }
    return n ? sum / n : 0;
}

static void test_two_projectors_blend(void **state)
{
    (void)state;
    rig r = {0};
    tt_err err = {0};
    rig_open(&r);
    calibrate(&r, 0);
    calibrate(&r, 1);
    const calib_projector *pjs[2] = {r.pj[0], r.pj[1]};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(overlay_seam_create(pjs, 2, k, &r.seam[k], &err), TT_OK);
        assert_true(overlay_seam_dimmed(r.seam[k]) > 0);
    }
    overlay_list *l = NULL;
    table_scene *sc = NULL;
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    build_overlay(l, &sc);

    tt_image both[2] = {{0}}, bare[2] = {{0}};
    for (int k = 0; k < 2; k++) {
        render(&r, k, l, 1, &both[k]);
        render(&r, k, l, 0, &bare[k]);
    }

    /* 1. the blast lands within 2 px of the truth in each projector */
    for (int k = 0; k < 2; k++) {
        double worst = 0;
        int n = 0;
        for (int i = 0; i < 24; i++) {
            double e = rim_error_px(&r, k, &both[k], 2 * M_PI * i / 24);
            if (e < 0)
                continue;
            worst = fmax(worst, e);
            n++;
        }
        print_message("projector %d: the blast's edge at %d angles, worst %.2f px off the truth\n", k + 1, n, worst);
        assert_true(n >= 12);
        assert_true(worst <= 2.0);
    }

    /* 2. along its middle, in the overlap, the summed light is within 15% of
     * one projector's alone (projector 1 drawing it with no other: its
     * picture without the ramp); without the ramp the seam is bright */
    double worst = 0, seam_bright = 0;
    int n = 0;
    for (double x = CX - R_IN + 0.3; x <= CX + R_IN - 0.3; x += 0.1) {
        if (hypot(x - FIG_X, CY - FIG_Y) < 1.6)
            continue; /* the figure's tag mask is dark in every projector */
        double one = light_at(&r, 0, &bare[0], x, CY);
        double sum = light_at(&r, 0, &both[0], x, CY) + light_at(&r, 1, &both[1], x, CY);
        double twice = light_at(&r, 0, &bare[0], x, CY) + light_at(&r, 1, &bare[1], x, CY);
        double s0 = overlay_seam_share(r.seam[0], 0, 0); /* a pixel far from the seam */
        assert_true(s0 == 1.0);
        assert_true(one > 0.03);
        worst = fmax(worst, fabs(sum / one - 1));
        seam_bright = fmax(seam_bright, twice / one);
        n++;
    }
    print_message("summed light along the blast's middle, %d points in the overlap: worst %.1f%% off one "
                  "projector's alone (without the ramp: up to %.2fx)\n",
                  n, 100 * worst, seam_bright);
    assert_true(n >= 20); /* 5.4" of blast at 0.1", less the figure's mask */
    assert_true(worst <= 0.15);
    assert_true(seam_bright > 1.6);

    /* 3. the camera sees it: the felt's light added by the blast, both
     * projectors with their ramps against projector 1 alone */
    tt_image dark = {0}, ph_one = {0}, ph_both = {0};
    const tt_image *none[2] = {NULL, NULL}, *one_only[2] = {&bare[0], NULL}, *pair[2] = {&both[0], &both[1]};
    assert_int_equal(pjsim_capture_n(r.s, none, &dark, &err), TT_OK);
    assert_int_equal(pjsim_capture_n(r.s, one_only, &ph_one, &err), TT_OK);
    assert_int_equal(pjsim_capture_n(r.s, pair, &ph_both, &err), TT_OK);
    const char *pngdir = getenv("TT_SEAM_PNG");
    if (pngdir && *pngdir) {
        const tt_image *ph[3] = {&dark, &ph_one, &ph_both};
        const char *name[3] = {"dark", "one", "both"};
        for (int i = 0; i < 3; i++) {
            char p[512];
            snprintf(p, sizeof p, "%s/seam_camera_%s.png", pngdir, name[i]);
            assert_int_equal(cvw_image_write(p, ph[i], &err), TT_OK);
        }
    }
    double a1 = 0, a2 = 0, cworst = 0;
    for (double x = CX - 2; x <= CX + 2.01; x += 1) {
        double y = CY + 1.2; /* clear of the figure's base */
        double d0 = photo_at(&r, &dark, x, y), d1 = photo_at(&r, &ph_one, x, y) - d0,
               d2 = photo_at(&r, &ph_both, x, y) - d0;
        a1 += d1;
        a2 += d2;
        cworst = fmax(cworst, fabs(d2 / d1 - 1));
    }
    print_message("camera: the blast adds %.1f gray levels with projector 1 alone, %.1f with both ramped (worst "
                  "point %.0f%% off)\n",
                  a1 / 5, a2 / 5, 100 * cworst);
    assert_true(a1 / 5 > 4);
    assert_true(fabs(a2 / a1 - 1) <= 0.15);

    /* 4. the figure's tag stays dark in both projectors */
    rnd_tag *f = &r.tags[6];
    double cr[4][2];
    rnd_tag_corners(f, cr);
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 4; c++) {
            double t[2];
            assert_true(pjsim_truth_k(r.s, k, cr[c][0], cr[c][1], f->height_in, t));
            assert_true(value_at(&both[k], t[0], t[1]) < 1);
        }
    tt_image *imgs[] = {&both[0], &both[1], &bare[0], &bare[1], &dark, &ph_one, &ph_both};
    for (size_t i = 0; i < sizeof imgs / sizeof imgs[0]; i++)
        tt_image_free(imgs[i]);
    overlay_list_destroy(l);
    table_scene_destroy(sc);
    rig_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_projectors_blend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
