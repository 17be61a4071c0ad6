/* test_projector_masks.c - the projector never lights a tag (issue 20, part
 * 3), tested as physics: the project's own overlay - blasts over figures,
 * lines of sight across a crowd, a QR code - is projected by the simulated
 * projector onto the table and onto the bases, photographed by a 1080p
 * camera, and read at full resolution.  With the tags masked, every tag
 * found with the projector dark is found again; the masks follow a figure
 * that moved a little since they were placed.  Unit checks: a mask is
 * black under any drawing, turned with its tag, the ring around a figure
 * stays outside it, bad masks are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <qrencode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cvwrap.h"
#include "overlay.h"
#include "table_scene.h"
#include "pjsim.h"
#include "vision.h"

#define NBASES 84
#define SEED 23 /* held out: the masks' size (2.1x) was not chosen on it */

/* The projector's homography on the felt, from the simulated rig's truth. */
static calib_projector *truth_projector(const pjsim *s)
{
    double src[2 * 35], dst[2 * 35], H[9];
    int n = 0;
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 7; i++) {
            double x = 18 + 6.0 * i, y = 12 + 6.0 * j, px[2];
            if (!pjsim_truth(s, x, y, px))
                continue;
            src[2 * n] = x;
            src[2 * n + 1] = y;
            dst[2 * n] = px[0];
            dst[2 * n + 1] = px[1];
            n++;
        }
    tt_err err = {0};
    calib_projector *pj = NULL;
    assert_true(n >= 8);
    assert_int_equal(cvw_find_homography(src, dst, n, H, &err), TT_OK);
    assert_int_equal(calib_projector_create(s->o.pj_w, s->o.pj_h, H, &pj, &err), TT_OK);
    return pj;
}

/* The projector image as the 8-bit pattern the projector shows: its light
 * is the brightest channel. */
static void surface_to_pattern(cairo_surface_t *surf, tt_image *out)
{
    tt_err err = {0};
    int w = cairo_image_surface_get_width(surf), h = cairo_image_surface_get_height(surf);
    int stride = cairo_image_surface_get_stride(surf);
    cairo_surface_flush(surf);
    const unsigned char *d = cairo_image_surface_get_data(surf);
    assert_int_equal(tt_image_alloc(out, w, h, 1, &err), TT_OK);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t p = *(const uint32_t *)(d + (size_t)y * stride + 4 * (size_t)x);
            unsigned r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
            out->data[(size_t)y * out->stride + x] = (uint8_t)(r > g ? (r > b ? r : b) : (g > b ? g : b));
        }
}

/* A QR code as the live game draws its banner: light modules, 6" wide. */
static void add_qr(overlay_list *l, double x0, double y0)
{
    tt_err err = {0};
    QRcode *qr = QRcode_encodeString("http://192.168.1.20:8080/?key=7f3a9c", 0, QR_ECLEVEL_M, QR_MODE_8, 1);
    assert_non_null(qr);
    double mod = 6.0 / (qr->width + 8);
    overlay_style fill = overlay_style_line(OVERLAY_ROLE_NEUTRAL, 0);
    fill.fill_alpha = 1;
    for (int r = -4; r < qr->width + 4; r++)
        for (int c = -4; c < qr->width + 4; c++) {
            int dark = r >= 0 && c >= 0 && r < qr->width && c < qr->width && (qr->data[r * qr->width + c] & 1);
            if (dark)
                continue;
            double xy[8] = {x0 + (c + 4) * mod, y0 + (r + 4) * mod, x0 + (c + 5) * mod, y0 + (r + 4) * mod,
                            x0 + (c + 5) * mod, y0 + (r + 5) * mod, x0 + (c + 4) * mod, y0 + (r + 5) * mod};
            assert_int_equal(overlay_add_polygon(l, xy, 4, fill, &err), TT_OK);
        }
    QRcode_free(qr);
}

/* Which figure tags (ids >= 100) the camera reads, at full resolution. */
static int read_tags(const tt_image *photo, int *found)
{
    vision_detector_opts o;
    vision_detector *det = NULL;
    vision_detections ds = {0};
    tt_err err = {0};
    vision_detector_opts_default(&o);
    o.decimate = 1;
    assert_int_equal(vision_detector_create(&o, &det, &err), TT_OK);
    assert_int_equal(vision_detect(det, photo, &ds, &err), TT_OK);
    int n = 0;
    for (int i = 0; i < ds.count; i++)
        if (ds.items[i].id >= 100 && ds.items[i].id < 100 + NBASES) {
            found[ds.items[i].id - 100] = 1;
            n++;
        }
    vision_detections_free(&ds);
    vision_detector_destroy(det);
    return n;
}

typedef struct rig {
    pjsim *s;
    rnd_tag tags[6 + NBASES];
    int ntags;
    calib_projector *pj;
    overlay_mapper m;
} rig;

static void rig_open(rig *r)
{
    pjsim_options o;
    tt_err err = {0};
    pjsim_options_default(&o);
    o.cam_w = 1920;
    o.cam_h = 1080;
    o.blur = 0.7;
    o.noise = 2;
    o.supersample = 2;
    o.seed = SEED;
    o.gain = 1.2; /* a bright projector in a dim room */
    o.ambient = 0.45;
    assert_int_equal(pjsim_create(&o, &r->s, &err), TT_OK);
    /* the rig's anchors, then the figures' bases: 1.1" bases with 0.88" tags */
    r->ntags = rnd_standard_tags(r->tags, 6, NBASES, 0.88, 3.0, 72, 48, SEED);
    assert_int_equal(r->ntags, 6 + NBASES);
    r->s->scene.tags = r->tags;
    r->s->scene.ntags = r->ntags;
    r->pj = truth_projector(r->s);
    overlay_mapper_projector(&r->m, r->pj);
}

static void rig_close(rig *r)
{
    calib_projector_destroy(r->pj);
    pjsim_destroy(r->s);
}

/* The project's own overlay: blasts on figures and lines of sight across
 * the crowd, through the rules adapter (a scenario with a figure on every
 * base), and a QR code over figures. */
static void build_overlay(rig *r, overlay_list *l, table_scene **scene_out)
{
    tt_err err = {0};
    size_t cap = 64 + 200 * NBASES, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text + len, cap - len,
                            "{\"ruleset\":\"into-the-breach\",\"table\":{\"width_in\":72,\"depth_in\":48},"
                            "\"figures\":[");
    for (int i = 6; i < r->ntags; i++)
        len += (size_t)snprintf(text + len, cap - len,
                                "%s{\"id\":\"f%d\",\"side\":\"%s\",\"unit\":\"u%d\",\"type\":\"foot\",\"weapon\":"
                                "\"musket\",\"x\":%.4f,\"y\":%.4f,\"facing_deg\":%.2f}",
                                i > 6 ? "," : "", r->tags[i].id, r->tags[i].x < 36 ? "red" : "blue", i % 7,
                                r->tags[i].x, r->tags[i].y, r->tags[i].facing_deg);
    snprintf(text + len, cap - len, "]}");
    const char *dirs[] = {TT_SOURCE_DIR, NULL};
    table_scene *sc = NULL;
    assert_int_equal(table_scene_parse(text, "masks scenario", NULL, dirs, &sc, &err), TT_OK);
    free(text);
    /* blasts on the figures in the projector's middle of the table, lines
     * of sight from the left across the crowd to the right */
    int nblast = 0, nlos = 0;
    for (int i = 6; i < r->ntags; i++) {
        const rnd_tag *t = &r->tags[i];
        char q[160];
        json_error_t je;
        if (t->x > 20 && t->x < 52 && t->y > 12 && t->y < 36 && nblast < 14) {
            snprintf(q, sizeof q, "{\"q\":\"blast\",\"at\":[%.3f,%.3f],\"radius_in\":2}", t->x, t->y);
            nblast++;
        } else if (t->x < 30 && nlos < 12) {
            /* to the farthest figure on the other side */
            int far = -1;
            for (int k = 6; k < r->ntags; k++)
                if (r->tags[k].x > 42 && (far < 0 || fabs(r->tags[k].y - t->y) < fabs(r->tags[far].y - t->y)))
                    far = k;
            snprintf(q, sizeof q, "{\"q\":\"los\",\"from\":\"f%d\",\"to\":\"f%d\"}", t->id, r->tags[far].id);
            nlos++;
        } else
            continue;
        json_t *jq = json_loads(q, 0, &je), *ans = NULL;
        assert_non_null(jq);
        assert_int_equal(table_scene_query(sc, jq, l, &ans, &err), TT_OK);
        json_decref(jq);
        json_decref(ans);
    }
    assert_true(nblast >= 8 && nlos >= 8);
    add_qr(l, 30, 18);
    *scene_out = sc;
}

static int photo_reads(rig *r, const tt_image *pattern, int *found)
{
    tt_image photo = {0};
    tt_err err = {0};
    assert_int_equal(pjsim_capture(r->s, pattern, &photo, &err), TT_OK);
    int n = read_tags(&photo, found);
    tt_image_free(&photo);
    return n;
}

static int projected_reads(rig *r, overlay_list *l, int *found, int *lit_tags)
{
    cairo_surface_t *surf = NULL;
    tt_err err = {0};
    tt_image pat = {0};
    assert_int_equal(overlay_render(l, &r->m, &surf, &err), TT_OK);
    surface_to_pattern(surf, &pat);
    cairo_surface_destroy(surf);
    /* how many figure tags the pattern lights at all (at their centres'
     * corners of the black border) */
    *lit_tags = 0;
    for (int i = 6; i < r->ntags; i++) {
        double c[4][2];
        int lit = 0;
        rnd_tag_corners(&r->tags[i], c);
        for (int k = 0; k < 4; k++) {
            double xy[2] = {c[k][0], c[k][1]}, px[2];
            calib_projector_map(r->pj, xy, 1, px);
            int u = (int)lrint(px[0]), v = (int)lrint(px[1]);
            if (u >= 0 && v >= 0 && u < pat.width && v < pat.height && pat.data[(size_t)v * pat.stride + u] > 40)
                lit = 1;
        }
        *lit_tags += lit;
    }
    int n = photo_reads(r, &pat, found);
    tt_image_free(&pat);
    return n;
}

/* The physics: dark, lit without masks, lit with masks (placed where the
 * figures stood a moment ago: up to 0.25" away). */
static void test_masks_keep_every_tag(void **state)
{
    (void)state;
    rig r;
    rig_open(&r);
    overlay_list *l = NULL;
    table_scene *sc = NULL;
    tt_err err = {0};
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    build_overlay(&r, l, &sc);

    int dark[NBASES] = {0}, bare[NBASES] = {0}, masked[NBASES] = {0}, lit_bare = 0, lit_masked = 0;
    int ndark = photo_reads(&r, NULL, dark);
    int nbare = projected_reads(&r, l, bare, &lit_bare);
    /* the live game's masks: where each tag was seen last frame */
    uint64_t rng = rnd_rng_seed(SEED);
    for (int i = 6; i < r.ntags; i++) {
        double a = 2 * M_PI * rnd_rng_uniform(&rng), d = 0.25 * rnd_rng_uniform(&rng);
        assert_int_equal(overlay_add_tag_mask(l, r.tags[i].x + d * cos(a), r.tags[i].y + d * sin(a),
                                              r.tags[i].facing_deg + 20 * (rnd_rng_uniform(&rng) - 0.5), 0.88,
                                              r.tags[i].height_in, &err),
                         TT_OK);
    }
    for (int a = 0; a < 6; a++)
        assert_int_equal(overlay_add_tag_mask(l, r.tags[a].x, r.tags[a].y, -90, r.tags[a].size_in, 0, &err), TT_OK);
    assert_int_equal(overlay_list_mask_count(l), r.ntags);
    int nmasked = projected_reads(&r, l, masked, &lit_masked);
    print_message("1080p, %d figures, %d-shape overlay: dark %d read; lit unmasked %d read (%d tags lit); "
                  "lit masked %d read (%d tags lit)\n",
                  NBASES, overlay_list_count(l), ndark, nbare, lit_bare, nmasked, lit_masked);
    /* the overlay does fall on the tags when unmasked, and never when masked */
    assert_true(lit_bare >= 10);
    assert_int_equal(lit_masked, 0);
    assert_true(ndark >= NBASES - 2);
    for (int i = 0; i < NBASES; i++)
        if (dark[i] && !masked[i])
            fail_msg("tag %d is read with the projector dark but not under the masked overlay", 100 + i);
    overlay_list_destroy(l);
    table_scene_destroy(sc);
    rig_close(&r);
}

static uint32_t pixel(cairo_surface_t *s, double x, double y)
{
    int u = (int)lrint(x), v = (int)lrint(y);
    cairo_surface_flush(s);
    return *(const uint32_t *)(cairo_image_surface_get_data(s) + (size_t)v * cairo_image_surface_get_stride(s) +
                               4 * (size_t)u) &
           0xffffffu;
}

/* A mask is black whatever is drawn over it, turned with its tag; beyond
 * it the drawing shows; the ring around a figure is outside it. */
static void test_mask_geometry(void **state)
{
    (void)state;
    tt_err err = {0};
    /* 20 projector px per inch, no perspective */
    double H[9] = {20, 0, 10, 0, 20, 10, 0, 0, 1};
    calib_projector *pj = NULL;
    overlay_list *l = NULL;
    cairo_surface_t *s = NULL;
    overlay_mapper m;
    assert_int_equal(calib_projector_create(640, 480, H, &pj, &err), TT_OK);
    overlay_mapper_projector(&m, pj);
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    overlay_style fill = overlay_style_line(OVERLAY_ROLE_BLAST, 0.05);
    fill.fill_alpha = 1;
    assert_int_equal(overlay_add_circle(l, 10, 10, 5, fill, &err), TT_OK);
    /* a 1" tag turned 45 degrees: mask half-side 1.05", corners 1.485" out
     * along the axes */
    assert_int_equal(overlay_add_tag_mask(l, 10, 10, 45, 1.0, 0.1, &err), TT_OK);
    assert_int_equal(overlay_add_circle(l, 10, 10, overlay_tag_ring_in(1.0), overlay_style_line(OVERLAY_ROLE_NEUTRAL, 0.05),
                                        &err),
                     TT_OK);
    assert_int_equal(overlay_render(l, &m, &s, &err), TT_OK);
    /* inside the turned square: along x to 1.4" (the diamond's tip at 1.485") */
    for (double d = 0; d <= 1.4; d += 0.1)
        assert_int_equal(pixel(s, 10 + 20 * (10 + d), 10 + 20 * 10), 0);
    /* at (10.9, 10.9) the turned square is already left (|x|+|y| = 1.8 > 1.485) */
    assert_int_not_equal(pixel(s, 10 + 20 * 10.9, 10 + 20 * 10.9), 0);
    /* the ring shows all round: where it crosses the axes and diagonals */
    double rr = overlay_tag_ring_in(1.0);
    assert_true(rr > 1.485 + 0.025);
    for (int k = 0; k < 8; k++) {
        double a = k * M_PI / 4;
        assert_int_not_equal(pixel(s, 10 + 20 * (10 + rr * cos(a)), 10 + 20 * (10 + rr * sin(a))), 0);
    }
    cairo_surface_destroy(s);
    /* cleared lists drop their masks */
    overlay_list_clear(l);
    assert_int_equal(overlay_list_mask_count(l), 0);
    /* bad masks */
    assert_int_equal(overlay_add_tag_mask(l, NAN, 10, 0, 1, 0, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "tag mask"));
    assert_int_equal(overlay_add_tag_mask(l, 10, 10, 0, 0, 0, &err), TT_ERR_ARG);
    assert_int_equal(overlay_add_tag_mask(l, 10, 10, INFINITY, 1, 0, &err), TT_ERR_ARG);
    assert_int_equal(overlay_add_tag_mask(l, 10, 10, 0, 1, NAN, &err), TT_ERR_ARG);
    assert_int_equal(overlay_list_mask_count(l), 0);
    overlay_list_destroy(l);
    calib_projector_destroy(pj);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mask_geometry),
        cmocka_unit_test(test_masks_keep_every_tag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
