/* test_overlay_fill.c - overlay's exact-area polygon fill
 * (overlay/overlay_fill.c, overlay_cov_fill):
 *   - against an independent reference, each pixel's share of the shape
 *     by clipping the shape's loops to the pixel's square (signed areas
 *     summed), within 1 level of 255: convex and concave polygons, a star,
 *     rings (inner loop reversed, non-zero; same orientation, even-odd),
 *     the projector's view of a banded circle, shapes partly off the
 *     surface, edges on pixel borders;
 *   - a self-intersecting pentagram: non-zero lights its centre, even-odd
 *     leaves it dark, both within cairo's own exact-area fill;
 *   - NaN / huge loops left out, the others drawn; coverage kept by
 *     maximum with what is already there; cleared after blending. */
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

#define W 160
#define H 110

/* Signed area of polygon p (n points) clipped to the half-plane
 * s * (coord k) <= s * lim, written to out; returns the point count. */
static int clip_half(const double *p, int n, int k, double lim, double s, double *out)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const double *a = p + 2 * i, *b = p + 2 * ((i + 1) % n);
        int ina = s * a[k] <= s * lim, inb = s * b[k] <= s * lim;
        if (ina) {
            out[2 * m] = a[0];
            out[2 * m + 1] = a[1];
            m++;
        }
        if (ina != inb) {
            double t = (lim - a[k]) / (b[k] - a[k]);
            out[2 * m] = a[0] + t * (b[0] - a[0]);
            out[2 * m + 1] = a[1] + t * (b[1] - a[1]);
            out[2 * m + k] = lim;
            m++;
        }
    }
    return m;
}

static double area(const double *p, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        const double *a = p + 2 * i, *b = p + 2 * ((i + 1) % n);
        s += a[0] * b[1] - b[0] * a[1];
    }
    return 0.5 * s;
}

/* The reference: |sum of the loops' signed areas inside pixel (x, y)|,
 * each loop's area times sg[l] (-1 for the hole of an even-odd ring drawn
 * the same way round as its outside). */
static double ref_cov(const double *xy, const int *ln, const double *sg, int nl, int x, int y)
{
    double sum = 0;
    const double *p = xy;
    for (int l = 0; l < nl; l++) {
        int n = ln[l];
        double *a = malloc(sizeof(double) * 2 * (2 * n + 8)), *b = malloc(sizeof(double) * 2 * (2 * n + 8));
        int m = clip_half(p, n, 0, x, -1, a);
        m = clip_half(a, m, 0, x + 1, 1, b);
        m = clip_half(b, m, 1, y, -1, a);
        m = clip_half(a, m, 1, y + 1, 1, b);
        if (m >= 3)
            sum += sg[l] * area(b, m);
        free(a);
        free(b);
        p += 2 * n;
    }
    return fabs(sum);
}

/* Fill through overlay_cov_fill and compare every pixel with ref_cov. */
static void check_exact(const char *name, const double *xy, const int *ln, int nl, int even_odd, const double *sg)
{
    const double plus[2] = {1, 1};
    if (!sg)
        sg = plus;
    overlay_cov cov;
    assert_true(overlay_cov_init(&cov, W, H));
    assert_true(overlay_cov_fill(&cov, xy, ln, nl, even_odd));
    int worst = 0;
    double sum_ours = 0, sum_ref = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double r = ref_cov(xy, ln, sg, nl, x, y);
            if (r > 1)
                r = 1;
            int ours = cov.a[y * W + x], want = (int)lround(r * 255);
            int d = abs(ours - want);
            worst = d > worst ? d : worst;
            sum_ours += ours / 255.0;
            sum_ref += r;
            if (d > 1)
                fail_msg("%s: pixel (%d, %d) coverage %d, exact %d", name, x, y, ours, want);
            /* every lit pixel is marked for blending */
            if (ours) {
                int b = x >> 4;
                assert_true(cov.dirty[(size_t)y * cov.nw + (b >> 6)] & ((uint64_t)1 << (b & 63)));
                assert_true(y >= cov.y0 && y < cov.y1);
            }
        }
    print_message("%-28s worst %d level(s), area %.3f (exact %.3f)\n", name, worst, sum_ours, sum_ref);
    assert_true(sum_ref > 0.1);
    overlay_cov_free(&cov);
}

static int regular(double *xy, double cx, double cy, double r, int n, double rot, int reverse)
{
    for (int i = 0; i < n; i++) {
        double a = rot + (reverse ? -1 : 1) * 2 * M_PI * i / n;
        xy[2 * i] = cx + r * cos(a);
        xy[2 * i + 1] = cy + r * sin(a);
    }
    return n;
}

static void test_exact_area(void **state)
{
    (void)state;
    double xy[2 * 1200];
    int ln[2];
    /* triangle, slanted quadrilateral, tiny triangle inside one pixel */
    double tri[6] = {10.3, 12.7, 70.1, 30.2, 25.6, 80.9};
    ln[0] = 3;
    check_exact("triangle", tri, ln, 1, 0, NULL);
    double quad[8] = {90.5, 10.25, 150.75, 20.5, 140.125, 90.875, 100.3, 60.6};
    ln[0] = 4;
    check_exact("quadrilateral", quad, ln, 1, 0, NULL);
    double tiny[6] = {50.2, 50.2, 50.8, 50.3, 50.4, 50.9};
    ln[0] = 3;
    check_exact("inside one pixel", tiny, ln, 1, 0, NULL);
    /* edges on pixel borders, clockwise */
    double box[8] = {20, 20, 20, 60, 100, 60, 100, 20};
    ln[0] = 4;
    check_exact("on pixel borders", box, ln, 1, 1, NULL);
    /* concave star, not self-intersecting */
    for (int i = 0; i < 20; i++) {
        double a = 2 * M_PI * i / 20, r = i % 2 ? 18.3 : 45.1;
        xy[2 * i] = 80.4 + r * cos(a);
        xy[2 * i + 1] = 55.7 + r * sin(a);
    }
    ln[0] = 20;
    check_exact("concave star", xy, ln, 1, 0, NULL);
    /* ring: inner loop reversed (non-zero), and both loops the same way
     * round (even-odd) */
    ln[0] = regular(xy, 70.3, 50.6, 40.2, 400, 0.1, 0);
    ln[1] = regular(xy + 2 * ln[0], 70.3, 50.6, 31.7, 400, 0.3, 1);
    check_exact("ring, non-zero", xy, ln, 2, 0, NULL);
    regular(xy + 2 * ln[0], 70.3, 50.6, 31.7, 400, 0.3, 0);
    const double hole[2] = {1, -1};
    check_exact("ring, even-odd", xy, ln, 2, 1, hole);
    /* a thin ring as the projector sees a 0.5" band: an ellipse, skewed */
    for (int L = 0; L < 2; L++)
        for (int i = 0; i < 300; i++) {
            double a = (L ? -1 : 1) * 2 * M_PI * i / 300, r = L ? 29.4 : 33.1;
            double u = r * cos(a), v = 0.7 * r * sin(a);
            xy[2 * (L * 300 + i)] = 80 + u + 0.3 * v;
            xy[2 * (L * 300 + i) + 1] = 55 + v;
        }
    ln[0] = ln[1] = 300;
    check_exact("skewed thin ring", xy, ln, 2, 0, NULL);
    /* partly off the surface on every side */
    double big[8] = {-30.5, -20.25, W + 40.5, -10.75, W + 20.25, H + 30.5, -15.5, H + 10.25};
    ln[0] = 4;
    check_exact("off every side", big, ln, 1, 0, NULL);
    double left[6] = {-50, 10.5, 30.5, 50.5, -50, 90.5};
    ln[0] = 3;
    check_exact("mostly off the left", left, ln, 1, 1, NULL);
    double right[6] = {W + 50, 10.5, W - 30.5, 50.5, W + 50, 90.5};
    check_exact("mostly off the right", right, ln, 1, 0, NULL);
}

/* A self-intersecting pentagram: the rules differ in its centre. */
static void test_pentagram(void **state)
{
    (void)state;
    double xy[10];
    for (int i = 0; i < 5; i++) {
        double a = -M_PI / 2 + 4 * M_PI * i / 5;
        xy[2 * i] = 80.3 + 50 * cos(a);
        xy[2 * i + 1] = 58.2 + 50 * sin(a);
    }
    int n = 5;
    for (int eo = 0; eo < 2; eo++) {
        overlay_cov cov;
        assert_true(overlay_cov_init(&cov, W, H));
        assert_true(overlay_cov_fill(&cov, xy, &n, 1, eo));
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_A8, W, H);
        cairo_t *cr = cairo_create(s);
        cairo_set_fill_rule(cr, eo ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING);
        cairo_move_to(cr, xy[0], xy[1]);
        for (int i = 1; i < 5; i++)
            cairo_line_to(cr, xy[2 * i], xy[2 * i + 1]);
        cairo_close_path(cr);
        cairo_fill(cr);
        cairo_surface_flush(s);
        const unsigned char *d = cairo_image_surface_get_data(s);
        int stride = cairo_image_surface_get_stride(s), worst = 0;
        double so = 0, sc = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int a = cov.a[y * W + x], b = d[y * stride + x];
                /* the five points where the edges cross: there the
                 * pixel's integral of the winding number (ours) is not
                 * min(1, |winding|) integrated (cairo's) */
                int near = 0;
                for (int k = 0; k < 5; k++) {
                    double a5 = -M_PI / 2 + M_PI / 5 + 2 * M_PI * k / 5, r5 = 50 * cos(2 * M_PI / 5) / cos(M_PI / 5);
                    near |= hypot(x + 0.5 - (80.3 + r5 * cos(a5)), y + 0.5 - (58.2 + r5 * sin(a5))) < 1.5;
                }
                if (near)
                    continue;
                worst = abs(a - b) > worst ? abs(a - b) : worst;
                so += a;
                sc += b;
            }
        print_message("pentagram %s: centre %d, worst difference from cairo %d (away from the crossings), area ratio "
                      "%.4f\n",
                      eo ? "even-odd" : "non-zero", cov.a[58 * W + 80], worst, so / sc);
        assert_int_equal(cov.a[58 * W + 80], eo ? 0 : 255);
        assert_true(worst <= 24); /* cairo samples 15 rows per pixel */
        assert_true(fabs(so / sc - 1) < 0.005);
        cairo_destroy(cr);
        cairo_surface_destroy(s);
        overlay_cov_free(&cov);
    }
}

static void test_bad_and_max(void **state)
{
    (void)state;
    overlay_cov cov;
    assert_true(overlay_cov_init(&cov, W, H));
    /* loop 1 has a NaN, loop 2 is huge, loop 3 has 2 points, loop 4 is fine */
    double xy[2 * 13] = {10, 10, NAN, 10, 30, 40,         /* 3 */
                         1e12, 0, 5, 1e300, 9, 9,         /* 3 */
                         50, 50, 60, 60,                  /* 2 */
                         100, 20, 140, 20, 140, 60, 100, 60, 110, 40}; /* 5 */
    int ln[4] = {3, 3, 2, 5};
    assert_true(overlay_cov_fill(&cov, xy, ln, 4, 0));
    assert_int_equal(cov.a[15 * W + 15], 0);
    assert_int_equal(cov.a[55 * W + 55], 0);
    assert_int_equal(cov.a[40 * W + 130], 255);
    /* a second, fainter overlapping fill keeps the larger coverage; an
     * empty call changes nothing */
    double half[8] = {120.5, 10, 150.5, 10, 150.5, 70, 120.5, 70};
    int n4 = 4;
    assert_true(overlay_cov_fill(&cov, half, &n4, 1, 0));
    assert_true(overlay_cov_fill(&cov, half, &n4, 0, 0));
    assert_int_equal(cov.a[40 * W + 130], 255);
    assert_int_equal(cov.a[15 * W + 150], 128); /* the half-covered column */
    assert_int_equal(cov.a[65 * W + 145], 255);
    unsigned char px[W * H * 4];
    memset(px, 0, sizeof px);
    int box[4];
    const double white[3] = {1, 1, 1};
    overlay_cov_blend(&cov, px, 4 * W, white, 1, box);
    assert_true(box[0] <= 100 && box[2] >= 151 && box[1] <= 10 && box[3] >= 70);
    assert_int_equal(px[4 * (40 * W + 130)], 255);
    for (long i = 0; i < (long)W * H; i++)
        assert_int_equal(cov.a[i], 0);
    overlay_cov_free(&cov);
}

/* Filling straight into the pixels (overlay_fill_blend) gives the same
 * pixels, bit for bit, as filling the coverage and blending it
 * (overlay_cov_fill + overlay_cov_blend), for shapes inside, across and
 * off the borders, both rules, several colours and opacities, over random
 * premultiplied pixels; the box holds every changed pixel. */
static void test_blend_direct(void **state)
{
    (void)state;
    static uint32_t a[W * H], b[W * H], before[W * H];
    double xy[2 * 800];
    int ln[2];
    unsigned seed = 99;
    const double alphas[4] = {0.3, 1, 0.5, 0.07};
    const double rgbs[4][3] = {{0.9, 0.6, 0}, {0, 0.62, 0.45}, {1, 1, 1}, {0.8, 0.47, 0.65}};
    overlay_cov cov;
    assert_true(overlay_cov_init(&cov, W, H));
    for (int shape = 0; shape < 4; shape++) {
        int nl = 1, eo = shape % 2;
        if (shape == 0) { /* a thin ring, inner loop reversed */
            ln[0] = regular(xy, 80.3, 55.1, 40.7, 300, 0.05, 0);
            ln[1] = regular(xy + 2 * ln[0], 80.3, 55.1, 33.2, 300, 0.2, 1);
            nl = 2;
        } else if (shape == 1) { /* a ring across the left border, even-odd */
            ln[0] = regular(xy, 10.5, 60.2, 45.3, 300, 0, 0);
            ln[1] = regular(xy + 2 * ln[0], 10.5, 60.2, 30.1, 300, 0, 0);
            nl = 2;
        } else if (shape == 2) { /* a cone reaching past the right border */
            xy[0] = 100.2;
            xy[1] = 40.7;
            for (int i = 0; i <= 40; i++) {
                double t = -0.4 + 0.8 * i / 40;
                xy[2 + 2 * i] = 100.2 + 120 * cos(t);
                xy[3 + 2 * i] = 40.7 + 120 * sin(t);
            }
            ln[0] = 42;
        } else { /* a star, even-odd */
            for (int i = 0; i < 20; i++) {
                double t = 2 * M_PI * i / 20, r = i % 2 ? 18.3 : 45.1;
                xy[2 * i] = 80.4 + r * cos(t);
                xy[2 * i + 1] = 55.7 + r * sin(t);
            }
            ln[0] = 20;
        }
        for (int i = 0; i < W * H; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = seed >> 8, A = r & 255;
            if ((r >> 20) % 5 == 0)
                A = 255;
            uint32_t p = A << 24 | ((r >> 8) % (A + 1)) << 16 | ((r >> 12) % (A + 1)) << 8 | ((r >> 16) % (A + 1));
            a[i] = b[i] = before[i] = p;
        }
        int box_a[4], box_b[4];
        assert_true(overlay_cov_fill(&cov, xy, ln, nl, eo));
        overlay_cov_blend(&cov, (unsigned char *)a, 4 * W, rgbs[shape], alphas[shape], box_a);
        assert_true(overlay_fill_blend(&cov, xy, ln, nl, eo, (unsigned char *)b, 4 * W, rgbs[shape], alphas[shape],
                                       box_b));
        long changed = 0;
        for (int i = 0; i < W * H; i++) {
            if (a[i] != b[i])
                fail_msg("shape %d pixel (%d, %d): fill + blend %08x, direct %08x", shape, i % W, i / W, a[i], b[i]);
            if (b[i] != before[i]) {
                changed++;
                int x = i % W, y = i / W;
                assert_true(x >= box_b[0] && x < box_b[2] && y >= box_b[1] && y < box_b[3]);
            }
        }
        print_message("shape %d: %ld pixels changed, box %d,%d - %d,%d\n", shape, changed, box_b[0], box_b[1],
                      box_b[2], box_b[3]);
        assert_true(changed > 500);
        for (int i = 0; i < W * H; i++)
            assert_int_equal(cov.a[i], 0); /* the direct fill leaves the coverage alone */
    }
    overlay_cov_free(&cov);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_area),
        cmocka_unit_test(test_pentagram),
        cmocka_unit_test(test_bad_and_max),
        cmocka_unit_test(test_blend_direct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
