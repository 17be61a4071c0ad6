/* test_overlay_stroke.c - overlay's own stroke rasteriser
 * (overlay/overlay_stroke.c) against cairo stroking the same pixel
 * polylines with the same width, caps and round joins (cairo's default,
 * exact-area anti-aliasing):
 *   - total coverage (sum of alpha) within 2 %,
 *   - every pixel cairo covers >= 90 % we cover >= 50 %,
 *   - no pixel we light is farther than 1 px (8-neighbourhood) from a
 *     pixel cairo lights;
 * for lines at many angles (0-180 deg) and widths (1-8 px), polylines with
 * sharp and smooth joins, closed loops, dashes (butt caps), very short
 * segments, segments partly off the surface; NaN and huge coordinates are
 * skipped without a crash; coverage is left clear after blending. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <cairo.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay_stroke.h"

#define W 200
#define H 120

typedef struct cmp_result {
    double sum_ours, sum_cairo;
    long solid_missed; /* cairo >= 90 %, ours < 50 % */
    long stray;        /* ours lit, no cairo-lit pixel within 1 px */
} cmp_result;

static unsigned char alpha_at(cairo_surface_t *s, int x, int y)
{
    const unsigned char *d = cairo_image_surface_get_data(s) + (size_t)y * cairo_image_surface_get_stride(s);
    uint32_t p;
    memcpy(&p, d + 4 * x, 4);
    return (unsigned char)(p >> 24);
}

/* Ours: white through the coverage onto a transparent surface (alpha =
 * coverage). */
static cairo_surface_t *draw_ours(const double *xy, int n, double w, int closed, int caps)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    overlay_cov cov;
    assert_true(overlay_cov_init(&cov, W, H));
    double *hw = malloc((size_t)(n > 0 ? n : 1) * sizeof *hw);
    assert_non_null(hw);
    for (int i = 0; i < n; i++)
        hw[i] = w / 2;
    overlay_cov_polyline(&cov, xy, hw, n, closed, caps);
    const double white[3] = {1, 1, 1};
    int box[4];
    cairo_surface_flush(s);
    overlay_cov_blend(&cov, cairo_image_surface_get_data(s), cairo_image_surface_get_stride(s), white, 1, box);
    cairo_surface_mark_dirty(s);
    /* the coverage is clear again */
    assert_false(overlay_cov_pending(&cov));
    for (long i = 0; i < (long)W * H; i++)
        if (cov.a[i])
            fail_msg("coverage left at %ld", i);
    overlay_cov_free(&cov);
    free(hw);
    return s;
}

/* Cairo's stroke, drawn 4x larger and averaged over 4x4 blocks: cairo's
 * own anti-aliasing is biased by up to 3 % on 1-px lines (e.g. 92.05 px^2
 * for a 90 x 1 px line at 45 degrees), its 4x-finer drawing by far less. */
#define SS 4
static cairo_surface_t *draw_cairo(const double *xy, int n, double w, int closed, int caps)
{
    cairo_surface_t *big = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, SS * W, SS * H);
    cairo_t *cr = cairo_create(big);
    cairo_scale(cr, SS, SS);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, w);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    /* one cap style per test here (both round or both butt) */
    cairo_set_line_cap(cr, caps ? CAIRO_LINE_CAP_ROUND : CAIRO_LINE_CAP_BUTT);
    cairo_move_to(cr, xy[0], xy[1]);
    for (int i = 1; i < n; i++)
        cairo_line_to(cr, xy[2 * i], xy[2 * i + 1]);
    if (closed)
        cairo_close_path(cr);
    cairo_stroke(cr);
    cairo_destroy(cr);
    cairo_surface_flush(big);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int sum = 0;
            for (int j = 0; j < SS; j++)
                for (int i = 0; i < SS; i++)
                    sum += alpha_at(big, SS * x + i, SS * y + j);
            uint32_t a = (uint32_t)((sum + SS * SS / 2) / (SS * SS));
            uint32_t p = a << 24 | a << 16 | a << 8 | a;
            memcpy(d + (size_t)y * stride + 4 * x, &p, 4);
        }
    cairo_surface_mark_dirty(s);
    cairo_surface_destroy(big);
    return s;
}

static cmp_result compare(const double *xy, int n, double w, int closed, int caps)
{
    cairo_surface_t *a = draw_ours(xy, n, w, closed, caps), *b = draw_cairo(xy, n, w, closed, caps);
    cmp_result r = {0};
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int o = alpha_at(a, x, y), c = alpha_at(b, x, y);
            r.sum_ours += o / 255.0;
            r.sum_cairo += c / 255.0;
            if (c >= 230 && o < 128)
                r.solid_missed++;
            if (o > 0) {
                int near = 0;
                for (int dy = -1; dy <= 1 && !near; dy++)
                    for (int dx = -1; dx <= 1 && !near; dx++) {
                        int u = x + dx, v = y + dy;
                        near = u >= 0 && v >= 0 && u < W && v < H && alpha_at(b, u, v) > 0;
                    }
                r.stray += !near;
            }
        }
    cairo_surface_destroy(a);
    cairo_surface_destroy(b);
    return r;
}

/* The three limits; tol: allowed relative difference of the totals. */
static void expect_like_cairo(const char *what, const double *xy, int n, double w, int closed, int caps, double tol)
{
    cmp_result r = compare(xy, n, w, closed, caps);
    double rel = r.sum_cairo > 0 ? fabs(r.sum_ours - r.sum_cairo) / r.sum_cairo : fabs(r.sum_ours);
    if (rel > tol || r.solid_missed || r.stray)
        fail_msg("%s (width %.2f): coverage %.2f vs cairo %.2f (%.2f %%), %ld solid pixels missed, %ld stray", what,
                 w, r.sum_ours, r.sum_cairo, 100 * rel, r.solid_missed, r.stray);
}

static const double WIDTHS[] = {1, 1.5, 2, 3, 4.5, 6, 8};
#define NW (int)(sizeof WIDTHS / sizeof WIDTHS[0])

/* Straight lines through the middle at angles 0-180 deg, every width,
 * round and butt caps. */
static void test_angles_widths(void **state)
{
    (void)state;
    for (int wi = 0; wi < NW; wi++)
        for (double deg = 0; deg <= 180; deg += 7.5) {
            double a = (deg + 0.37 * wi) * M_PI / 180, c = cos(a), s = sin(a);
            double xy[4] = {100.3 - 45 * c, 60.2 - 45 * s, 100.3 + 45 * c, 60.2 + 45 * s};
            char what[64];
            snprintf(what, sizeof what, "line at %.2f deg, round caps", deg + 0.37 * wi);
            expect_like_cairo(what, xy, 2, WIDTHS[wi], 0, OVERLAY_CAP_ROUND_START | OVERLAY_CAP_ROUND_END, 0.02);
            snprintf(what, sizeof what, "line at %.2f deg, butt caps", deg + 0.37 * wi);
            expect_like_cairo(what, xy, 2, WIDTHS[wi], 0, 0, 0.02);
        }
}

/* Polylines: a zig-zag (sharp joins), a densified circle (smooth joins,
 * closed), an open arc, a polygon with a reversal. */
static void test_polylines(void **state)
{
    (void)state;
    double zig[2 * 7];
    for (int i = 0; i < 7; i++) {
        zig[2 * i] = 20 + 26 * i;
        zig[2 * i + 1] = i % 2 ? 30.4 : 90.7;
    }
    double circ[2 * 90], arc[2 * 40];
    for (int i = 0; i < 90; i++) {
        double a = 2 * M_PI * i / 90;
        circ[2 * i] = 100.2 + 45 * cos(a);
        circ[2 * i + 1] = 60.6 + 45 * sin(a);
    }
    for (int i = 0; i < 40; i++) {
        double a = 0.3 + 2.5 * i / 39;
        arc[2 * i] = 90 + 70 * cos(a);
        arc[2 * i + 1] = 10 + 70 * sin(a);
    }
    double back[8] = {30, 40, 170, 52, 60, 60, 40, 100.5}; /* sharp reversals, closed without crossing itself */
    for (int wi = 0; wi < NW; wi++) {
        double w = WIDTHS[wi];
        expect_like_cairo("zig-zag", zig, 7, w, 0, OVERLAY_CAP_ROUND_START | OVERLAY_CAP_ROUND_END, 0.02);
        expect_like_cairo("closed circle", circ, 90, w, 1, 0, 0.02);
        expect_like_cairo("arc, butt ends", arc, 40, w, 0, 0, 0.02);
        expect_like_cairo("reversals", back, 4, w, 0, OVERLAY_CAP_ROUND_START | OVERLAY_CAP_ROUND_END, 0.02);
        expect_like_cairo("closed reversals", back, 4, w, 1, 0, 0.02);
    }
}

/* Dashes: many short butt-capped pieces along a slanted line, as the
 * drawing splits a dashed path. */
static void test_dashes(void **state)
{
    (void)state;
    for (int wi = 0; wi < NW; wi++) {
        double w = WIDTHS[wi], dash = 4 * w > 6 ? 4 * w : 6;
        for (double t = 0; t + dash < 170; t += 1.6 * dash) {
            double xy[4] = {15 + t, 20 + 0.45 * t, 15 + t + dash, 20 + 0.45 * (t + dash)};
            expect_like_cairo("dash", xy, 2, w, 0, 0, 0.02);
        }
    }
}

/* Very short segments: well under a pixel, and a polyline with repeated
 * points.  A dot's coverage depends on where it sits in its pixels, so the
 * totals get 10 %. */
static void test_short(void **state)
{
    (void)state;
    for (int wi = 0; wi < NW; wi++)
        for (int k = 0; k < 12; k++) {
            double len = 0.05 + 0.25 * k, a = 0.5 * k;
            double xy[4] = {60.3 + 0.1 * k, 50.45, 60.3 + 0.1 * k + len * cos(a), 50.45 + len * sin(a)};
            expect_like_cairo("short, round caps", xy, 2, WIDTHS[wi], 0, OVERLAY_CAP_ROUND_START | OVERLAY_CAP_ROUND_END,
                              0.10);
            if (len >= 1)
                expect_like_cairo("short, butt caps", xy, 2, WIDTHS[wi], 0, 0, 0.10);
        }
    double rep[10] = {40, 40, 40, 40, 80.5, 70, 80.5, 70, 80.5, 70};
    expect_like_cairo("repeated points", rep, 5, 2, 0, OVERLAY_CAP_ROUND_START | OVERLAY_CAP_ROUND_END, 0.02);
}

/* Partly off the surface on every side, and across it from far away. */
static void test_clipped(void **state)
{
    (void)state;
    const double lines[][4] = {{-40, 30, 120, 70},     {150, -30, 60, 150}, {-10.5, -10.5, 210.5, 130.5},
                               {190, 60.5, 260, 60.5}, {-1e5, 50, 1e5, 61}, {100.5, -1e5, 101.7, 1e5}};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        for (int wi = 0; wi < NW; wi++) {
            expect_like_cairo("clipped, round", lines[i], 2, WIDTHS[wi], 0,
                              OVERLAY_CAP_ROUND_START | OVERLAY_CAP_ROUND_END, 0.02);
            expect_like_cairo("clipped, butt", lines[i], 2, WIDTHS[wi], 0, 0, 0.02);
        }
    /* wholly off the surface: nothing */
    double off[4] = {-50, -50, -20, -5};
    cmp_result r = compare(off, 2, 3, 0, OVERLAY_CAP_ROUND_START | OVERLAY_CAP_ROUND_END);
    assert_true(r.sum_ours == 0 && r.sum_cairo == 0);
}

/* NaN and huge coordinates or widths: those segments are skipped, the
 * rest drawn, nothing crashes or writes outside the buffer (ASan). */
static void test_bad_points(void **state)
{
    (void)state;
    overlay_cov cov;
    assert_true(overlay_cov_init(&cov, W, H));
    double hw[4] = {1, 1, 1, 1};
    double nan_mid[8] = {10, 10, NAN, 50, 60, 60, 90, 60};
    overlay_cov_polyline(&cov, nan_mid, hw, 4, 0, OVERLAY_CAP_ROUND_START | OVERLAY_CAP_ROUND_END);
    /* the segment 60,60 -> 90,60 is there, nothing near 10,10 */
    assert_true(cov.a[60 * W + 75] > 200);
    assert_int_equal(cov.a[10 * W + 10], 0);
    double huge[8] = {1e12, 5, -1e300, 7, INFINITY, 9, 20, -INFINITY};
    overlay_cov_polyline(&cov, huge, hw, 4, 1, 0);
    double bad_hw[4] = {NAN, -1, 1, 1};
    double ok[8] = {10, 100, 50, 100, 90, 100, 130, 100};
    overlay_cov_polyline(&cov, ok, bad_hw, 4, 0, 0); /* only 90 -> 130 has good widths */
    assert_int_equal(cov.a[100 * W + 30], 0);
    assert_int_equal(cov.a[100 * W + 70], 0);
    assert_true(cov.a[100 * W + 110] > 200);
    double huge_hw[2] = {1e300, 1e300};
    overlay_cov_polyline(&cov, ok, huge_hw, 2, 0, 0);
    assert_int_equal(cov.a[100 * W + 30], 0);
    overlay_cov_polyline(&cov, ok, hw, 0, 0, 0);  /* no points */
    overlay_cov_polyline(&cov, ok, hw, 1, 0, 3);  /* one point: a dot */
    assert_true(cov.a[100 * W + 10] > 0);
    unsigned char px[W * H * 4];
    memset(px, 0, sizeof px);
    int box[4];
    const double rgb[3] = {0.9, 0.4, 0};
    overlay_cov_blend(&cov, px, 4 * W, rgb, 0.5, box);
    assert_true(box[0] < box[2] && box[1] < box[3]);
    assert_true(box[0] >= 0 && box[1] >= 0 && box[2] <= W && box[3] <= H);
    assert_false(overlay_cov_pending(&cov));
    for (long i = 0; i < (long)W * H; i++)
        assert_int_equal(cov.a[i], 0);
    /* a fully covered pixel at alpha 0.5: premultiplied half of the colour */
    uint32_t p;
    memcpy(&p, px + 4 * (60 * W + 75), 4);
    assert_int_equal(p >> 24, 128);
    assert_int_equal((p >> 16) & 255, 115);
    assert_int_equal((p >> 8) & 255, 51);
    assert_int_equal(p & 255, 0);
    overlay_cov_free(&cov);
    overlay_cov_free(&cov); /* twice is fine */
}

/* A width varying along the segment (perspective): the total is the
 * trapezoid's area. */
static void test_varying_width(void **state)
{
    (void)state;
    overlay_cov cov;
    assert_true(overlay_cov_init(&cov, W, H));
    double xy[4] = {20.5, 30.2, 180.5, 90.7}, hw[2] = {0.6, 3.0};
    overlay_cov_polyline(&cov, xy, hw, 2, 0, 0);
    double sum = 0;
    for (long i = 0; i < (long)W * H; i++)
        sum += cov.a[i] / 255.0;
    double len = hypot(160, 60.5), area = len * (hw[0] + hw[1]);
    print_message("varying width: coverage %.1f, trapezoid %.1f\n", sum, area);
    assert_true(fabs(sum - area) < 0.02 * area);
    overlay_cov_free(&cov);
}

/* Blending is cairo's to the bit: every pixel equals what cairo_mask_surface
 * gives for the same colour and opacity through an A8 mask holding the same
 * coverage, over the same random premultiplied pixels, at several
 * opacities, on a width that is not a multiple of 16 (the 16-pixel vector
 * path and the one-pixel path at the right edge); coverage is cleared. */
static void test_blend_exact(void **state)
{
    (void)state;
    enum { BW = 203, BH = 37 };
    overlay_cov cov;
    assert_true(overlay_cov_init(&cov, BW, BH));
    const double alphas[5] = {1, 0.3, 0.5, 0.02, 0.35};
    const double rgbs[5][3] = {{0.8, 0.47, 0.65}, {0.9, 0.6, 0}, {0, 0.45, 0.7}, {1, 1, 1}, {0.835, 0.369, 0}};
    unsigned seed = 12345;
    cairo_surface_t *ours = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, BW, BH);
    cairo_surface_t *theirs = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, BW, BH);
    cairo_surface_t *mask = cairo_image_surface_create(CAIRO_FORMAT_A8, BW, BH);
    int so = cairo_image_surface_get_stride(ours), sm = cairo_image_surface_get_stride(mask);
    for (int ai = 0; ai < 5; ai++) {
        unsigned char *po = cairo_image_surface_get_data(ours), *pt = cairo_image_surface_get_data(theirs);
        for (int y = 0; y < BH; y++)
            for (int x = 0; x < BW; x++) {
                seed = seed * 1103515245u + 12345u;
                unsigned r = seed >> 8, A = r & 255, k = (r >> 8) & 255;
                /* premultiplied: colour channels <= alpha; a few opaque */
                if (k < 40)
                    A = 255;
                unsigned cr = (r >> 16) % (A + 1), cg = (k * 7) % (A + 1), cb = (k * 13) % (A + 1);
                uint32_t p = A << 24 | cr << 16 | cg << 8 | cb;
                memcpy(po + (size_t)y * so + 4 * x, &p, 4);
                memcpy(pt + (size_t)y * so + 4 * x, &p, 4);
            }
        cairo_surface_mark_dirty(ours);
        cairo_surface_mark_dirty(theirs);
        /* coverage through the API: strokes of varying width light a
         * mixture of partial and full pixels */
        for (int y = 2; y < BH - 2; y += 5) {
            double xy[4] = {3.3 + y, y + 0.37, BW - 4.1, y + 0.37 + 0.1 * y}, hw[2] = {0.4 + 0.1 * y, 1.2};
            overlay_cov_polyline(&cov, xy, hw, 2, 0, OVERLAY_CAP_ROUND_START);
        }
        unsigned char *pm = cairo_image_surface_get_data(mask);
        long lit = 0;
        for (int y = 0; y < BH; y++)
            for (int x = 0; x < BW; x++) {
                pm[(size_t)y * sm + x] = cov.a[y * BW + x];
                lit += cov.a[y * BW + x] != 0;
            }
        cairo_surface_mark_dirty(mask);
        assert_true(lit > 500);
        int box[4];
        cairo_surface_flush(ours);
        overlay_cov_blend(&cov, cairo_image_surface_get_data(ours), so, rgbs[ai], alphas[ai], box);
        cairo_t *cr = cairo_create(theirs);
        cairo_set_source_rgba(cr, rgbs[ai][0], rgbs[ai][1], rgbs[ai][2], alphas[ai]);
        cairo_mask_surface(cr, mask, 0, 0);
        cairo_destroy(cr);
        cairo_surface_flush(theirs);
        for (int y = 0; y < BH; y++)
            for (int x = 0; x < BW; x++) {
                uint32_t a, b;
                memcpy(&a, po + (size_t)y * so + 4 * x, 4);
                memcpy(&b, pt + (size_t)y * so + 4 * x, 4);
                if (a != b)
                    fail_msg("alpha %.2f pixel (%d, %d): coverage %u: ours %08x, cairo %08x", alphas[ai], x, y,
                             pm[(size_t)y * sm + x], a, b);
            }
        for (int i = 0; i < BW * BH; i++)
            assert_int_equal(cov.a[i], 0);
    }
    cairo_surface_destroy(ours);
    cairo_surface_destroy(theirs);
    cairo_surface_destroy(mask);
    overlay_cov_free(&cov);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_angles_widths), cmocka_unit_test(test_polylines), cmocka_unit_test(test_dashes),
        cmocka_unit_test(test_short),         cmocka_unit_test(test_clipped),   cmocka_unit_test(test_bad_points),
        cmocka_unit_test(test_varying_width), cmocka_unit_test(test_blend_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
