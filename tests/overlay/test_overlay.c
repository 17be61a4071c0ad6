/* test_overlay.c - the drawing layer (geometry under perspective, widths
 * in inches, fills, dashes, text, black background, bad primitives) and
 * 'tabletrack overlay' end to end (projector PNG, camera composite, bad
 * projector.json, unknown figure, bad query) through the real binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cvwrap.h"
#include "overlay.h"
#include "overlay_internal.h" /* test_same_as_reference: the outlines taken out */
#include "projector.h"
#include "run.h"
#include "tt_palette.h"

/* A projector above the table, tilted: a real perspective (keystone). */
static const double H_TILT[9] = {24.0, 2.0, 60.0, 0.8, 22.0, 40.0, 0.0012, 0.0045, 1.0};

static calib_projector *make_pj(void)
{
    calib_projector *pj = NULL;
    tt_err err = {0};
    assert_int_equal(calib_projector_create(1920, 1080, H_TILT, &pj, &err), TT_OK);
    return pj;
}

/* Brightness (max of r, g, b) of the target pixel nearest table point (x, y). */
static int lum_at(cairo_surface_t *s, const calib_projector *pj, double x, double y)
{
    double xy[2] = {x, y}, px[2];
    calib_projector_map(pj, xy, 1, px);
    int u = (int)lround(px[0]), v = (int)lround(px[1]);
    if (u < 0 || v < 0 || u >= cairo_image_surface_get_width(s) || v >= cairo_image_surface_get_height(s))
        return -1;
    const uint32_t *row =
        (const uint32_t *)(const void *)(cairo_image_surface_get_data(s) + (size_t)v * cairo_image_surface_get_stride(s));
    uint32_t p = row[u];
    int r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
    return r > g ? (r > b ? r : b) : (g > b ? g : b);
}

static cairo_surface_t *render(const overlay_list *l, const calib_projector *pj)
{
    overlay_mapper m;
    cairo_surface_t *s = NULL;
    tt_err err = {0};
    overlay_mapper_projector(&m, pj);
    if (overlay_render(l, &m, &s, &err) != TT_OK)
        fail_msg("render: %s", err.msg);
    return s;
}

/* A circle stays a circle on the felt: every sample on the true circle is
 * lit, 0.3" inside and outside are dark - everywhere around it, though the
 * projector sees it as a skewed ellipse. */
static void test_circle_under_perspective(void **state)
{
    (void)state;
    calib_projector *pj = make_pj();
    overlay_list *l = NULL;
    tt_err err = {0};
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    assert_int_equal(overlay_add_circle(l, 30, 20, 6, overlay_style_line(OVERLAY_ROLE_CLEAR, 0.2), &err), TT_OK);
    cairo_surface_t *s = render(l, pj);
    int lit = 0, dark = 0, n = 0;
    for (int k = 0; k < 72; k++) {
        double a = 2 * M_PI * k / 72, c = cos(a), sn = sin(a);
        lit += lum_at(s, pj, 30 + 6 * c, 20 + 6 * sn) > 150;
        dark += lum_at(s, pj, 30 + 5.7 * c, 20 + 5.7 * sn) < 20;
        dark += lum_at(s, pj, 30 + 6.3 * c, 20 + 6.3 * sn) < 20;
        n++;
    }
    assert_int_equal(lit, n);
    assert_int_equal(dark, 2 * n);
    /* background is black (no light) */
    const uint32_t *d = (const uint32_t *)(const void *)cairo_image_surface_get_data(s);
    assert_int_equal(d[0] & 0xffffff, 0);
    cairo_surface_destroy(s);
    overlay_list_destroy(l);
    calib_projector_destroy(pj);
}

/* Under a correction grid (lens distortion) a straight line on the felt is
 * a curve in the projector image: the line is drawn along that curve - lit
 * on the true line all along, dark 0.3" either side - not as one chord;
 * without the grid the same checks hold (there the line stays straight). */
static void test_line_under_grid(void **state)
{
    (void)state;
    for (int grid = 0; grid < 2; grid++) {
        calib_projector *pj = make_pj();
        tt_err err = {0};
        if (grid) {
            /* a bow of up to 12 px across the table (rows: y nodes) */
            enum { NX = 9, NY = 6 };
            double dx[NX * NY], dy[NX * NY];
            for (int j = 0; j < NY; j++)
                for (int i = 0; i < NX; i++) {
                    double u = (i - (NX - 1) / 2.0) / ((NX - 1) / 2.0);
                    dx[j * NX + i] = 0;
                    dy[j * NX + i] = 12 * (1 - u * u);
                }
            assert_int_equal(calib_projector_set_grid(pj, 0, 0, 9, NX, NY, dx, dy, &err), TT_OK);
        }
        overlay_list *l = NULL;
        assert_int_equal(overlay_list_create(&l, &err), TT_OK);
        assert_int_equal(overlay_add_line(l, 4, 20, 68, 20, overlay_style_line(OVERLAY_ROLE_NEUTRAL, 0.15), &err),
                         TT_OK);
        cairo_surface_t *s = render(l, pj);
        int lit = 0, dark = 0, n = 0;
        for (double x = 8; x <= 64; x += 2) {
            lit += lum_at(s, pj, x, 20) > 150;
            dark += lum_at(s, pj, x, 19.7) < 20;
            dark += lum_at(s, pj, x, 20.3) < 20;
            n++;
        }
        print_message("%s: %d of %d on the line lit, %d of %d beside it dark\n", grid ? "grid" : "no grid", lit, n,
                      dark, 2 * n);
        assert_int_equal(lit, n);
        assert_int_equal(dark, 2 * n);
        cairo_surface_destroy(s);
        overlay_list_destroy(l);
        calib_projector_destroy(pj);
    }
}

/* A line's width is in inches: the same 0.25" at both ends of a long line
 * although the projector's scale differs there. */
static void test_width_in_inches(void **state)
{
    (void)state;
    calib_projector *pj = make_pj();
    overlay_list *l = NULL;
    tt_err err = {0};
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    assert_int_equal(overlay_add_line(l, 5, 10, 65, 10, overlay_style_line(OVERLAY_ROLE_NEUTRAL, 0.25), &err), TT_OK);
    cairo_surface_t *s = render(l, pj);
    for (double x = 8; x < 64; x += 7) {
        assert_true(lum_at(s, pj, x, 10 + 0.06) > 180);
        assert_true(lum_at(s, pj, x, 10 - 0.06) > 180);
        assert_true(lum_at(s, pj, x, 10 + 0.3) < 10);
        assert_true(lum_at(s, pj, x, 10 - 0.3) < 10);
    }
    cairo_surface_destroy(s);
    overlay_list_destroy(l);
    calib_projector_destroy(pj);
}

/* Cone (sector), ring band with fill, dashed line, polygon, text. */
static void test_shapes(void **state)
{
    (void)state;
    calib_projector *pj = make_pj();
    overlay_list *l = NULL;
    tt_err err = {0};
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    overlay_style cone = overlay_style_line(OVERLAY_ROLE_ARC, 0.08);
    cone.fill_alpha = 0.4;
    assert_int_equal(overlay_add_sector(l, 10, 30, 0, 8, -15, 15, cone, &err), TT_OK);
    overlay_style band = overlay_style_line(OVERLAY_ROLE_MEDIUM, 0);
    band.fill_alpha = 0.5;
    assert_int_equal(overlay_add_ring(l, 50, 30, 3, 5, band, &err), TT_OK);
    overlay_style dash = overlay_style_line(OVERLAY_ROLE_BLOCKED, 0.1);
    dash.dashed = 1;
    assert_int_equal(overlay_add_line(l, 20, 5, 60, 5, dash, &err), TT_OK);
    double tri[6] = {30, 40, 36, 40, 33, 45};
    overlay_style poly = overlay_style_line(OVERLAY_ROLE_COMMAND, 0.06);
    poly.fill_alpha = 0.3;
    assert_int_equal(overlay_add_polygon(l, tri, 3, poly, &err), TT_OK);
    assert_int_equal(overlay_add_text(l, 40, 20, "5+", 1.0, 0, OVERLAY_ROLE_NEUTRAL, &err), TT_OK);
    assert_int_equal(overlay_add_arc(l, 40, 20, 3, 0, 90, overlay_style_line(OVERLAY_ROLE_CLEAR, 0.1), &err), TT_OK);
    assert_int_equal(overlay_list_count(l), 6);
    cairo_surface_t *s = render(l, pj);
    /* inside the cone, outside it beside the tip */
    assert_true(lum_at(s, pj, 14, 30) > 40);
    assert_true(lum_at(s, pj, 14, 34) < 10);
    /* the band: lit between 3 and 5, dark in the hole and outside */
    assert_true(lum_at(s, pj, 54, 30) > 60);
    assert_true(lum_at(s, pj, 50, 30) < 10);
    assert_true(lum_at(s, pj, 56, 30) < 10);
    /* dashes: both lit and dark samples along the line */
    int on = 0, off = 0;
    for (double x = 21; x < 59; x += 0.05) {
        int v = lum_at(s, pj, x, 5);
        on += v > 100;
        off += v < 10;
    }
    assert_true(on > 100 && off > 100);
    /* polygon filled */
    assert_true(lum_at(s, pj, 33, 42) > 30);
    /* text: some light within its box, none far from it */
    int text_lit = 0;
    for (double y = 19.4; y <= 20.6; y += 0.05)
        for (double x = 39.3; x <= 40.7; x += 0.05)
            text_lit += lum_at(s, pj, x, y) > 150;
    assert_true(text_lit > 20);
    assert_true(lum_at(s, pj, 40, 21.2) < 10);
    /* arc: on it, and not on the missing three quarters */
    assert_true(lum_at(s, pj, 40 + 3 * cos(M_PI / 4), 20 + 3 * sin(M_PI / 4)) > 100);
    assert_true(lum_at(s, pj, 40 - 3 * cos(M_PI / 4), 20 - 3 * sin(M_PI / 4)) < 10);
    cairo_surface_destroy(s);
    overlay_list_destroy(l);
    calib_projector_destroy(pj);
}

/* Large areas marked by their edge (overlay_style_edge): the outline, a
 * translucent band 0.5" wide just inside it, and no light further in
 * (nor outside) - for a circle, a ring (band inside its outer circle
 * only), a polygon and a sector (band inside every edge), translucent
 * and opaque. */
static void test_edge_band(void **state)
{
    (void)state;
    calib_projector *pj = make_pj();
    overlay_list *l = NULL;
    tt_err err = {0};
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    overlay_style edge = overlay_style_edge(OVERLAY_ROLE_COMMAND, 0.2, OVERLAY_EDGE_ALPHA);
    assert_true(edge.band_in == OVERLAY_EDGE_BAND_IN && edge.fill_alpha == OVERLAY_EDGE_ALPHA && edge.alpha == 1);
    assert_int_equal(overlay_add_circle(l, 20, 22, 10, edge, &err), TT_OK);
    overlay_style ring = overlay_style_edge(OVERLAY_ROLE_MEDIUM, 0, 0.5);
    assert_int_equal(overlay_add_ring(l, 50, 30, 3, 6, ring, &err), TT_OK);
    double sq[8] = {40, 5, 50, 5, 50, 15, 40, 15};
    overlay_style poly = overlay_style_edge(OVERLAY_ROLE_CLEAR, 0, 0.5);
    assert_int_equal(overlay_add_polygon(l, sq, 4, poly, &err), TT_OK);
    overlay_style solid = overlay_style_edge(OVERLAY_ROLE_NEUTRAL, 0, 1);
    assert_int_equal(overlay_add_sector(l, 58, 6, 0, 8, 80, 120, solid, &err), TT_OK);
    cairo_surface_t *s = render(l, pj);
    int band = 0, inner = 0, outside = 0, line = 0, n = 0;
    for (int k = 0; k < 72; k++) {
        double a = 2 * M_PI * k / 72, c = cos(a), sn = sin(a);
        int on = lum_at(s, pj, 20 + 10 * c, 22 + 10 * sn), in = lum_at(s, pj, 20 + 9.7 * c, 22 + 9.7 * sn);
        int deep = lum_at(s, pj, 20 + 9.2 * c, 22 + 9.2 * sn), out = lum_at(s, pj, 20 + 10.3 * c, 22 + 10.3 * sn);
        if (on < 0 || deep < 0 || out < 0)
            continue; /* off the projector */
        n++;
        line += on > 150;
        band += in > 30 && in < 120; /* translucent */
        inner += deep < 10;
        outside += out < 10;
    }
    assert_true(n > 30);
    assert_int_equal(line, n);
    assert_int_equal(band, n);
    assert_int_equal(inner, n);
    assert_int_equal(outside, n);
    assert_true(lum_at(s, pj, 20, 22) < 10); /* no light where the figures stand */
    /* ring: band inside the outer circle only; the rest of the ring dark */
    assert_true(lum_at(s, pj, 55.75, 30) > 60);
    assert_true(lum_at(s, pj, 50, 35.75) > 60);
    assert_true(lum_at(s, pj, 54.5, 30) < 10);
    assert_true(lum_at(s, pj, 53.2, 30) < 10);
    assert_true(lum_at(s, pj, 56.3, 30) < 10);
    /* polygon: band inside each edge, dark middle and outside */
    assert_true(lum_at(s, pj, 40.25, 10) > 60);
    assert_true(lum_at(s, pj, 49.75, 10) > 60);
    assert_true(lum_at(s, pj, 45, 5.25) > 60);
    assert_true(lum_at(s, pj, 45, 14.75) > 60);
    assert_true(lum_at(s, pj, 40.25, 5.25) > 60); /* corner */
    assert_true(lum_at(s, pj, 45, 10) < 10);
    assert_true(lum_at(s, pj, 41, 10) < 10);
    assert_true(lum_at(s, pj, 39.7, 10) < 10);
    assert_true(lum_at(s, pj, 45, 15.3) < 10);
    /* opaque sector: full light in the band along the arc and both radii */
    double a = 100 * M_PI / 180;
    assert_true(lum_at(s, pj, 58 + 7.75 * cos(a), 6 + 7.75 * sin(a)) > 200);
    assert_true(lum_at(s, pj, 58 + 5 * cos(a), 6 + 5 * sin(a)) < 10);
    double a0 = 80 * M_PI / 180, a1 = 120 * M_PI / 180, nx = -sin(a0), ny = cos(a0);
    assert_true(lum_at(s, pj, 58 + 5 * cos(a0) + 0.25 * nx, 6 + 5 * sin(a0) + 0.25 * ny) > 200);
    nx = sin(a1);
    ny = -cos(a1);
    assert_true(lum_at(s, pj, 58 + 5 * cos(a1) + 0.25 * nx, 6 + 5 * sin(a1) + 0.25 * ny) > 200);
    assert_true(lum_at(s, pj, 58 + 5 * cos(a1) - 0.3 * nx, 6 + 5 * sin(a1) - 0.3 * ny) < 10);
    cairo_surface_destroy(s);
    /* a band width must be 0..100 in */
    overlay_style bad = overlay_style_edge(OVERLAY_ROLE_CLEAR, 0.1, 0.3);
    bad.band_in = -1;
    assert_int_equal(overlay_add_circle(l, 1, 1, 2, bad, &err), TT_ERR_ARG);
    bad.band_in = NAN;
    assert_int_equal(overlay_add_polygon(l, sq, 4, bad, &err), TT_ERR_ARG);
    overlay_list_destroy(l);
    calib_projector_destroy(pj);
}

/* Blocked/clear and range colours are distinct; blocked is not told from
 * clear by red/green alone (vermillion vs sky blue differ in lightness and
 * hue for every common colour-vision deficiency). */
static void test_palette(void **state)
{
    (void)state;
    for (int a = 0; a < OVERLAY_ROLE_COUNT; a++) {
        double rgb[3];
        overlay_role_rgb((overlay_role)a, rgb);
        assert_true(rgb[0] + rgb[1] + rgb[2] > 0.9); /* bright enough to project */
        assert_string_not_equal(overlay_role_name((overlay_role)a), "?");
    }
    double c[3], b[3];
    overlay_role_rgb(OVERLAY_ROLE_CLEAR, c);
    overlay_role_rgb(OVERLAY_ROLE_BLOCKED, b);
    assert_true(fabs(c[2] - b[2]) > 0.5); /* blue channel separates them */

    /* one palette: the projector's roles are the shared palette's, whose
     * hex the replay uses, and the pages' copy (web/draw.js ROLE)
     * has the same colour for every role */
    char path[512];
    snprintf(path, sizeof path, "%s/web/draw.js", TT_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char js[1 << 16];
    size_t n = fread(js, 1, sizeof js - 1, f);
    fclose(f);
    js[n] = 0;
    const char *role = strstr(js, "const ROLE = {");
    assert_non_null(role);
    int found = 0;
    for (const tt_palette_entry *e = tt_palette(); e->role; e++, found++) {
        char want[64], hex[8];
        double rgb[3];
        snprintf(hex, sizeof hex, "#%02x%02x%02x", e->r, e->g, e->b);
        assert_string_equal(hex, e->hex);
        snprintf(want, sizeof want, "%s: '%s'", e->role, e->hex);
        if (!strstr(role, want))
            fail_msg("web/draw.js ROLE does not have %s", want);
        for (int a = 0; a < OVERLAY_ROLE_COUNT; a++)
            if (!strcmp(overlay_role_name((overlay_role)a), e->role)) {
                overlay_role_rgb((overlay_role)a, rgb);
                assert_true(fabs(rgb[0] * 255 - e->r) < 1e-9 && fabs(rgb[2] * 255 - e->b) < 1e-9);
            }
    }
    assert_int_equal(found, OVERLAY_ROLE_COUNT);
}

static void test_bad_primitives(void **state)
{
    (void)state;
    overlay_list *l = NULL;
    tt_err err = {0};
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    overlay_style st = overlay_style_line(OVERLAY_ROLE_CLEAR, 0.1);
    assert_int_equal(overlay_add_circle(l, 1, 1, -2, st, &err), TT_ERR_ARG);
    assert_int_equal(overlay_add_line(l, NAN, 1, 2, 2, st, &err), TT_ERR_ARG);
    assert_int_equal(overlay_add_sector(l, 1, 1, 0, 2, 30, 10, st, &err), TT_ERR_ARG);
    double two[4] = {0, 0, 1, 1};
    assert_int_equal(overlay_add_polygon(l, two, 2, st, &err), TT_ERR_ARG);
    st.fill_alpha = 3;
    assert_int_equal(overlay_add_circle(l, 1, 1, 2, st, &err), TT_ERR_ARG);
    assert_int_equal(overlay_add_text(l, 1, 1, "x", 0, 0, OVERLAY_ROLE_NEUTRAL, &err), TT_ERR_ARG);
    assert_int_equal(overlay_list_count(l), 0);
    overlay_list_destroy(l);
    overlay_list_destroy(NULL);
}

/* ---- same picture as the reference drawing ------------------------------ */

/* The drawing before the speed work (tests/overlay/overlay_draw_ref.c). */
tt_status overlay_draw_ref(const overlay_list *l, const overlay_mapper *m, cairo_t *cr, cairo_antialias_t fill_aa,
                          tt_err *err);

/* A frame like the benchmark's, plus translucent outlines and text. */
static void busy_frame(overlay_list *l)
{
    tt_err err = {0};
    overlay_style band = overlay_style_line(OVERLAY_ROLE_SHORT, 0.05);
    band.fill_alpha = 0.12;
    band.alpha = 0.8;
    for (int i = 0; i < 3; i++) {
        band.role = (overlay_role)(OVERLAY_ROLE_SHORT + i);
        assert_int_equal(overlay_add_ring(l, 12, 24, 0.5 + 4 * i, 4.5 + 4 * i, band, &err), TT_OK);
    }
    overlay_style cone = overlay_style_line(OVERLAY_ROLE_ARC, 0.08);
    cone.fill_alpha = 0.3;
    assert_int_equal(overlay_add_sector(l, 5, 14, 0, 6.5, -15, 15, cone, &err), TT_OK);
    for (int i = 0; i < 12; i++) {
        overlay_style ln = overlay_style_line(i % 3 ? OVERLAY_ROLE_CLEAR : OVERLAY_ROLE_BLOCKED, 0.08);
        ln.dashed = i % 3 == 0;
        assert_int_equal(overlay_add_line(l, 10 + i, 23, 40 + 2 * i, 8 + 3 * i, ln, &err), TT_OK);
    }
    overlay_style blast = overlay_style_line(OVERLAY_ROLE_BLAST, 0.08);
    blast.fill_alpha = 0.35;
    double poly[2 * 360];
    for (int k = 0; k < 360; k++) {
        double a = 2 * M_PI * k / 360, r = k < 180 ? 2 : 1.2;
        poly[2 * k] = 33 + r * cos(a);
        poly[2 * k + 1] = 18 + r * sin(a);
    }
    assert_int_equal(overlay_add_polygon(l, poly, 360, blast, &err), TT_OK);
    overlay_style ghost = overlay_style_line(OVERLAY_ROLE_BLAST, 0.06);
    ghost.dashed = 1;
    ghost.alpha = 0.6;
    assert_int_equal(overlay_add_circle(l, 33, 18, 3, ghost, &err), TT_OK);
    overlay_style cmd = overlay_style_line(OVERLAY_ROLE_COMMAND, 0.08);
    cmd.fill_alpha = 0.1;
    assert_int_equal(overlay_add_circle(l, 4, 30, 24, cmd, &err), TT_OK);
    for (int i = 0; i < 20; i++)
        assert_int_equal(overlay_add_circle(l, 15 + 2.5 * i, 10 + (i % 5) * 6, 0.7,
                                            overlay_style_line(OVERLAY_ROLE_TARGET, 0.08), &err),
                         TT_OK);
    for (int i = 0; i < 6; i++) {
        char t[16];
        snprintf(t, sizeof t, "%d+ %d.%d\"", 4 + i % 3, 6 + i, i);
        assert_int_equal(overlay_add_text(l, 20 + 3 * i, 40 - i, t, 0.4, 10 * i, OVERLAY_ROLE_NEUTRAL, &err), TT_OK);
    }
}

/* The benchmark's frame as the adapter now draws it: range bands and the
 * command radius marked by their edge (outline and a band inside), plus a
 * banded ring, a banded polygon (the visible area) and an opaque banded
 * sector. */
static void edge_frame(overlay_list *l)
{
    tt_err err = {0};
    overlay_style band = overlay_style_edge(OVERLAY_ROLE_SHORT, 0.05, OVERLAY_EDGE_ALPHA);
    for (int i = 0; i < 3; i++) {
        band.role = (overlay_role)(OVERLAY_ROLE_SHORT + i);
        assert_int_equal(overlay_add_circle(l, 12, 24, 4.5 + 4 * i, band, &err), TT_OK);
    }
    overlay_style ring = overlay_style_edge(OVERLAY_ROLE_LONG, 0.05, 0.5);
    ring.alpha = 0.8;
    assert_int_equal(overlay_add_ring(l, 45, 30, 2, 5, ring, &err), TT_OK);
    overlay_style cone = overlay_style_line(OVERLAY_ROLE_ARC, 0.08);
    cone.fill_alpha = 0.3;
    assert_int_equal(overlay_add_sector(l, 5, 14, 0, 6.5, -15, 15, cone, &err), TT_OK);
    for (int i = 0; i < 12; i++) {
        overlay_style ln = overlay_style_line(i % 3 ? OVERLAY_ROLE_CLEAR : OVERLAY_ROLE_BLOCKED, 0.08);
        ln.dashed = i % 3 == 0;
        assert_int_equal(overlay_add_line(l, 10 + i, 23, 40 + 2 * i, 8 + 3 * i, ln, &err), TT_OK);
    }
    double vis[12] = {30, 5, 44, 4, 50, 12, 42, 13, 40, 9, 33, 14};
    assert_int_equal(overlay_add_polygon(l, vis, 6, overlay_style_edge(OVERLAY_ROLE_CLEAR, 0.05, 0.3), &err), TT_OK);
    assert_int_equal(overlay_add_sector(l, 58, 30, 1, 8, 200, 250, overlay_style_edge(OVERLAY_ROLE_NEUTRAL, 0, 1), &err),
                     TT_OK);
    assert_int_equal(overlay_add_circle(l, 4, 30, 24, overlay_style_edge(OVERLAY_ROLE_COMMAND, 0.08, OVERLAY_EDGE_ALPHA),
                                        &err),
                     TT_OK);
    for (int i = 0; i < 20; i++)
        assert_int_equal(overlay_add_circle(l, 15 + 2.5 * i, 10 + (i % 5) * 6, 0.7,
                                            overlay_style_line(OVERLAY_ROLE_TARGET, 0.08), &err),
                         TT_OK);
    overlay_style blast = overlay_style_line(OVERLAY_ROLE_BLAST, 0.08);
    blast.fill_alpha = 0.35;
    double poly[2 * 360];
    for (int k = 0; k < 360; k++) {
        double a = 2 * M_PI * k / 360, r = k < 180 ? 2 : 1.2;
        poly[2 * k] = 33 + r * cos(a);
        poly[2 * k + 1] = 18 + r * sin(a);
    }
    assert_int_equal(overlay_add_polygon(l, poly, 360, blast, &err), TT_OK);
    assert_int_equal(overlay_add_line(l, 5, 14, 41, 16, overlay_style_line(OVERLAY_ROLE_BALL, 0.1), &err), TT_OK);
    for (int i = 0; i < 12; i++) {
        char t[16];
        snprintf(t, sizeof t, "%d+ %d.%d\"", 4 + i % 3, 6 + i, i);
        assert_int_equal(overlay_add_text(l, 20 + 3 * i, 40 - i, t, 0.4, 10 * (i % 6), OVERLAY_ROLE_NEUTRAL, &err),
                         TT_OK);
    }
}

/* Per-pixel difference (max over r, g, b) of two same-size surfaces:
 * how many pixels differ by more than 8 and 32 levels, the mean, and how
 * many are lit in a. */
static void compare(cairo_surface_t *a, cairo_surface_t *b, long *over8, long *over32, double *mean, long *lit)
{
    int w = cairo_image_surface_get_width(a), h = cairo_image_surface_get_height(a);
    int sa = cairo_image_surface_get_stride(a), sb = cairo_image_surface_get_stride(b);
    const unsigned char *da = cairo_image_surface_get_data(a), *db = cairo_image_surface_get_data(b);
    double sum = 0;
    *over8 = *over32 = *lit = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const unsigned char *p = da + (size_t)y * sa + 4 * x, *q = db + (size_t)y * sb + 4 * x;
            int d = 0;
            for (int k = 0; k < 3; k++)
                d = abs(p[k] - q[k]) > d ? abs(p[k] - q[k]) : d;
            sum += d;
            *over8 += d > 8;
            *over32 += d > 32;
            *lit += (p[0] | p[1] | p[2]) != 0;
        }
    *mean = sum / ((double)w * h);
}

/* Every primitive without its outline (width_in = 0): fills, bands and
 * text only. */
static void strip_outlines(overlay_list *l)
{
    for (int i = 0; i < l->n; i++)
        l->p[i].st.width_in = 0;
}

/* The faster drawing (merged opaque fills, translucent fills through a
 * mask) lights the same pixels as the reference: differences only where
 * anti-aliased edges of one colour overlap, a few pixels in a thousand.
 *
 * Outlines are NOT compared here any more: overlay_draw now draws them
 * (lines, dashes, the outlines of circles, arcs, rings and polygons) with
 * its own rasteriser (overlay/overlay_stroke.c), on purpose - cairo's scan
 * conversion of thin strokes was most of a frame's time - so its
 * anti-aliased edges differ from the reference's cairo fills by design.
 * Both frames are compared with their outlines taken out (fills, the
 * bands inside large areas, text), with the same per-pixel limits as
 * before; the outlines are checked against cairo's own strokes of the same
 * pixel polylines, pixel by pixel, by test_overlay_stroke.c.
 *
 * Fills (bands, cones, blasts, full fills) are now drawn by overlay's
 * exact-area scan conversion (overlay/overlay_fill.c), so the reference
 * draws its fills with cairo's own exact-area anti-aliasing
 * (CAIRO_ANTIALIAS_DEFAULT) instead of the 4x4-sampled FAST it used for
 * speed; text stays FAST in both.  The limits are the same as before. */
static void test_same_as_reference(void **state)
{
    (void)state;
    calib_projector *pj = make_pj();
    overlay_list *l = NULL;
    tt_err err = {0};
    overlay_mapper m;
    overlay_mapper_projector(&m, pj);
    /* the old frame (full fills), then the large areas marked by their edge */
    for (int frame = 0; frame < 2; frame++)
    for (int on_gray = 0; on_gray < 2; on_gray++) {
        if (on_gray == 0) {
            overlay_list_destroy(l);
            assert_int_equal(overlay_list_create(&l, &err), TT_OK);
            if (frame == 0)
                busy_frame(l);
            else
                edge_frame(l);
            strip_outlines(l);
        }
        cairo_surface_t *s[2];
        for (int k = 0; k < 2; k++) {
            s[k] = cairo_image_surface_create(on_gray ? CAIRO_FORMAT_RGB24 : CAIRO_FORMAT_ARGB32, 1920, 1080);
            cairo_t *cr = cairo_create(s[k]);
            cairo_set_source_rgb(cr, on_gray ? 0.35 : 0, on_gray ? 0.4 : 0, on_gray ? 0.3 : 0);
            cairo_paint(cr);
            assert_int_equal(k ? overlay_draw(l, &m, cr, &err) : overlay_draw_ref(l, &m, cr, CAIRO_ANTIALIAS_DEFAULT, &err), TT_OK);
            cairo_destroy(cr);
            cairo_surface_flush(s[k]);
        }
        long over8, over32, lit;
        double mean;
        compare(s[0], s[1], &over8, &over32, &mean, &lit);
        print_message("%s frame on %s: %ld pixels differ by more than 8 levels, %ld by more than 32, mean %.4f, "
                      "%ld lit\n",
                      frame ? "edge" : "busy", on_gray ? "gray" : "black", over8, over32, mean, lit);
        assert_true(lit > (frame ? 50000 : 100000)); /* without outlines the edge frame lights ~80000 */
        assert_true(over8 <= 1500);
        assert_true(over32 <= 500);
        assert_true(mean < 0.05);
        cairo_surface_destroy(s[0]);
        cairo_surface_destroy(s[1]);
    }
    overlay_list_destroy(l);
    calib_projector_destroy(pj);
}

/* Labels are rendered once and kept with the surface: drawing the same
 * frame again onto the same surface gives the same pixels, bit for bit, as
 * drawing it onto a fresh one; a label moved by a hundredth of an inch, a
 * new text, another colour are drawn anew (again as on a fresh surface);
 * frames of different labels one after another stay right. */
static cairo_surface_t *draw_on(cairo_surface_t *s, const overlay_list *l, const overlay_mapper *m)
{
    tt_err err = {0};
    if (!s)
        s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_paint(cr);
    assert_int_equal(overlay_draw(l, m, cr, &err), TT_OK);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    return s;
}

static long differing(cairo_surface_t *a, cairo_surface_t *b)
{
    long n = 0;
    int h = cairo_image_surface_get_height(a), stride = cairo_image_surface_get_stride(a);
    const unsigned char *da = cairo_image_surface_get_data(a), *db = cairo_image_surface_get_data(b);
    for (int y = 0; y < h; y++)
        n += memcmp(da + (size_t)y * stride, db + (size_t)y * stride, (size_t)stride) != 0;
    return n;
}

static void test_label_cache(void **state)
{
    (void)state;
    calib_projector *pj = make_pj();
    overlay_mapper m;
    overlay_mapper_projector(&m, pj);
    tt_err err = {0};
    overlay_list *l[4];
    for (int k = 0; k < 4; k++) {
        assert_int_equal(overlay_list_create(&l[k], &err), TT_OK);
        edge_frame(l[k]);
    }
    /* 1: the first label a hundredth of an inch to the right; 2: another
     * text; 3: another colour and opacity */
    for (int i = 0; i < l[1]->n; i++)
        if (l[1]->p[i].kind == OVERLAY__TEXT) {
            l[1]->p[i].cx += 0.01;
            break;
        }
    for (int i = 0; i < l[2]->n; i++)
        if (l[2]->p[i].kind == OVERLAY__TEXT)
            l[2]->p[i].text[0] = '9';
    for (int i = 0; i < l[3]->n; i++)
        if (l[3]->p[i].kind == OVERLAY__TEXT) {
            l[3]->p[i].st.role = OVERLAY_ROLE_BLAST;
            l[3]->p[i].st.alpha = 0.6;
        }
    cairo_surface_t *kept = NULL;
    const int order[9] = {0, 0, 1, 0, 2, 2, 3, 1, 0};
    for (int f = 0; f < 9; f++) {
        const overlay_list *cur = l[order[f]];
        kept = draw_on(kept, cur, &m);
        cairo_surface_t *fresh = draw_on(NULL, cur, &m);
        long d = differing(kept, fresh);
        if (d)
            fail_msg("frame %d (list %d): %ld rows differ from a fresh surface", f, order[f], d);
        if (f > 0 && order[f] != order[f - 1]) {
            /* and the change is there */
            cairo_surface_t *prev = draw_on(NULL, l[order[f - 1]], &m);
            assert_true(differing(prev, fresh) > 0);
            cairo_surface_destroy(prev);
        }
        cairo_surface_destroy(fresh);
    }
    cairo_surface_destroy(kept);
    for (int k = 0; k < 4; k++)
        overlay_list_destroy(l[k]);
    calib_projector_destroy(pj);
}

/* overlay_render_into: the same picture as overlay_render on a kept
 * surface (cleared first); a surface of the wrong size is refused with a
 * message and left to its owner. */
static void test_render_into(void **state)
{
    (void)state;
    calib_projector *pj = make_pj();
    overlay_mapper m;
    overlay_mapper_projector(&m, pj);
    tt_err err = {0};
    overlay_list *l = NULL;
    assert_int_equal(overlay_list_create(&l, &err), TT_OK);
    edge_frame(l);
    cairo_surface_t *ref = render(l, pj);
    cairo_surface_t *kept = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
    cairo_t *cr = cairo_create(kept);
    cairo_set_source_rgb(cr, 1, 1, 1); /* something to clear */
    cairo_paint(cr);
    cairo_destroy(cr);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(overlay_render_into(l, &m, kept, &err), TT_OK);
        assert_int_equal(differing(kept, ref), 0);
    }
    cairo_surface_t *small = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 640, 480);
    assert_int_equal(overlay_render_into(l, &m, small, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "1920x1080"));
    assert_int_equal(cairo_surface_status(small), CAIRO_STATUS_SUCCESS);
    assert_int_equal(overlay_render_into(l, &m, NULL, &err), TT_ERR_ARG);
    cairo_surface_destroy(small);
    cairo_surface_destroy(kept);
    cairo_surface_destroy(ref);
    overlay_list_destroy(l);
    calib_projector_destroy(pj);
}

/* A kept surface through a game: each frame drawn by overlay_render_into
 * (which clears only what the last frame lit, or everything after cairo
 * drew part of it) equals the same frame drawn on a fresh surface, bit for
 * bit - frames that move, vanish, come back, hold cairo-drawn parts (a
 * band clipped to a polygon, a tiny circle) and labels only. */
static void shift_list(overlay_list *l, double dx, double dy)
{
    for (int i = 0; i < l->n; i++) {
        overlay__prim *p = &l->p[i];
        p->cx += dx;
        p->cy += dy;
        for (int k = 0; k < p->n; k++) {
            p->xy[2 * k] += dx;
            p->xy[2 * k + 1] += dy;
        }
    }
}

static void test_render_into_sequence(void **state)
{
    (void)state;
    calib_projector *pj = make_pj();
    overlay_mapper m;
    overlay_mapper_projector(&m, pj);
    tt_err err = {0};
    enum { NL = 8 };
    overlay_list *l[NL];
    for (int k = 0; k < NL; k++)
        assert_int_equal(overlay_list_create(&l[k], &err), TT_OK);
    edge_frame(l[0]);
    edge_frame(l[1]);
    shift_list(l[1], 1.3, -0.7); /* everything moved */
    /* l[2] empty */
    busy_frame(l[3]);
    double vis[8] = {30, 5, 44, 4, 50, 12, 33, 14};
    assert_int_equal(overlay_add_polygon(l[4], vis, 4, overlay_style_edge(OVERLAY_ROLE_CLEAR, 0.05, 0.3), &err), TT_OK);
    assert_int_equal(overlay_add_circle(l[4], 20, 20, 0.01, overlay_style_line(OVERLAY_ROLE_TARGET, 0.1), &err), TT_OK);
    assert_int_equal(overlay_add_text(l[5], 30, 20, "6+ 12.3\"", 0.5, 20, OVERLAY_ROLE_NEUTRAL, &err), TT_OK);
    edge_frame(l[6]);
    shift_list(l[6], -0.01, 0.02);
    /* a tiny circle alone: a disc filled by cairo */
    assert_int_equal(overlay_add_circle(l[7], 40, 30, 0.01, overlay_style_line(OVERLAY_ROLE_TARGET, 0.1), &err), TT_OK);
    const int order[14] = {0, 1, 0, 2, 0, 3, 0, 4, 5, 6, 4, 1, 7, 2};
    cairo_surface_t *kept = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
    for (int f = 0; f < 14; f++) {
        assert_int_equal(overlay_render_into(l[order[f]], &m, kept, &err), TT_OK);
        cairo_surface_t *fresh = render(l[order[f]], pj);
        long d = differing(kept, fresh);
        if (d)
            fail_msg("frame %d (list %d): %ld rows differ from a fresh surface", f, order[f], d);
        cairo_surface_destroy(fresh);
    }
    cairo_surface_destroy(kept);
    for (int k = 0; k < NL; k++)
        overlay_list_destroy(l[k]);
    calib_projector_destroy(pj);
}

/* ---- the CLI ---------------------------------------------------------- */

static char dir[64];
static const char *SCEN = TT_SOURCE_DIR "/samples/scenarios/into-the-breach-farm.json";
static const char *RIG = TT_SOURCE_DIR "/samples/table/rig.json";

static const char *tpath(const char *name)
{
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static void write_pj(const char *name, const char *text)
{
    FILE *f = fopen(tpath(name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static void test_cli_projector_png(void **state)
{
    (void)state;
    write_pj("pj.json", "{\"width\":1920,\"height\":1080,\"table_to_projector\":[[24.0,2.0,60.0],[0.8,22.0,40.0],"
                        "[0.0012,0.0045,1.0]]}");
    char *argv[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("pj.json"), "--scenario",
                    (char *)SCEN, "--query", "{\"q\":\"grape\",\"from\":\"gun1\"}", "--query",
                    "{\"q\":\"fire\",\"from\":\"m1\",\"to\":\"f1\"}", "--query",
                    "{\"q\":\"los\",\"from\":\"m1\",\"to\":\"f3\"}", "--query",
                    "{\"q\":\"blast\",\"at\":[19,14],\"radius_in\":3}", "--out", (char *)tpath("ov.png"), NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    /* one answer line per query, as 'tabletrack rules' gives them */
    assert_non_null(strstr(r.out, "\"to_hit\":5"));
    assert_non_null(strstr(r.out, "\"blocked_by\":\"house\""));
    run_free(&r);
    tt_image im = {0};
    tt_err err = {0};
    assert_int_equal(cvw_image_read(tpath("ov.png"), 3, &im, &err), TT_OK);
    assert_int_equal(im.width, 1920);
    assert_int_equal(im.height, 1080);
    /* the fire line m1 (10,23) -> f1 (17,23) is medium range: yellow */
    calib_projector *pj = NULL;
    assert_int_equal(calib_projector_load(tpath("pj.json"), &pj, &err), TT_OK);
    double xy[2] = {13, 23}, px[2];
    calib_projector_map(pj, xy, 1, px);
    const uint8_t *p = im.data + (size_t)lround(px[1]) * im.stride + 3 * lround(px[0]);
    assert_true(p[2] > 200 && p[1] > 200 && p[0] < 120); /* BGR: yellow */
    assert_int_equal(im.data[0], 0); /* black corner */
    calib_projector_destroy(pj);
    tt_image_free(&im);
}

/* The brightest pixel (by red + green + blue) within 1 pixel of table point
 * (x, y) on a flat 22.5 px/in projector (origin 150 px right): BGR. */
static const uint8_t *px_near(const tt_image *im, double x, double y)
{
    int u0 = (int)lround(150 + 22.5 * x), v0 = (int)lround(22.5 * y);
    const uint8_t *best = NULL;
    for (int v = v0 - 1; v <= v0 + 1; v++)
        for (int u = u0 - 1; u <= u0 + 1; u++) {
            const uint8_t *p = im->data + (size_t)v * im->stride + 3 * (size_t)u;
            if (!best || p[0] + p[1] + p[2] > best[0] + best[1] + best[2])
                best = p;
        }
    return best;
}
#define IS_VERMILLION(p) ((p)[2] > 170 && (p)[1] < 130 && (p)[0] < 60)
#define IS_SKY(p) ((p)[0] > 180 && (p)[1] > 140 && (p)[2] < 120)
#define IS_YELLOW(p) ((p)[2] > 200 && (p)[1] > 200 && (p)[0] < 120)

/* deviate, charge and a unit's fire drawn: the shot's impact, its path from
 * the aim and its blast; the charge's reach and where it falls short; every
 * firer's line. */
static void test_cli_deviate_charge_unit(void **state)
{
    (void)state;
    write_pj("flat.json", "{\"width\":1920,\"height\":1080,\"table_to_projector\":[[22.5,0,150],[0,22.5,0],[0,0,1]]}");
    char *argv[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("flat.json"), "--scenario",
                    (char *)SCEN, "--query",
                    "{\"q\":\"deviate\",\"from\":\"mortar1\",\"at\":[45,20],\"dice\":{\"long_short\":6,"
                    "\"long_short_in\":3,\"left_right\":1,\"left_right_in\":2}}",
                    "--query", "{\"q\":\"charge\",\"from\":\"m1\",\"to\":\"f2\",\"roll\":3}", "--query",
                    "{\"q\":\"fire\",\"from\":\"grenadiers\",\"to\":\"voltigeurs\"}", "--out", (char *)tpath("dcu.png"),
                    NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    /* the answers the drawing follows */
    assert_non_null(strstr(r.out, "\"impact\":[43.6")); /* 3" long, 2" to the firer's left (+x +y here) */
    assert_non_null(strstr(r.out, "\"allowed_in\":4.0,\"ok\":false"));
    assert_non_null(strstr(r.out, "{\"from\":\"m2\",\"to\":\"f1\",\"bracket\":\"medium\"}"));
    run_free(&r);
    tt_image im = {0};
    tt_err err = {0};
    assert_int_equal(cvw_image_read(tpath("dcu.png"), 3, &im, &err), TT_OK);
    /* deviate: the impact's cross, the solid line from the aim to it, the
     * blast's ring (2" mortar) around it, its translucent fill between */
    assert_true(IS_VERMILLION(px_near(&im, 43.61, 23.33)));
    assert_true(IS_VERMILLION(px_near(&im, 44.305, 21.665)));
    assert_true(IS_VERMILLION(px_near(&im, 43.61, 25.33)));
    assert_true(IS_VERMILLION(px_near(&im, 41.61, 23.33)));
    const uint8_t *fill = px_near(&im, 42.8, 24.53);
    assert_true(fill[2] > 30 && fill[2] < 140 && fill[0] < 30);
    /* the aim line from the mortar (dashed: some of its samples lit, sky blue) */
    int aim_lit = 0;
    for (int k = 1; k < 20; k++)
        aim_lit += IS_SKY(px_near(&im, 60 - 15 * k / 20.0, 10 + 10 * k / 20.0));
    assert_true(aim_lit >= 5);
    /* charge m1 -> f2 (13.2", 4" allowed): the first 4" solid sky blue,
     * the rest dashed vermillion */
    double ux = 11.0 / hypot(11, 9), uy = -9.0 / hypot(11, 9);
    assert_true(IS_SKY(px_near(&im, 10 + 2 * ux, 23 + 2 * uy)));
    int short_lit = 0;
    for (int k = 0; k < 20; k++)
        short_lit += IS_VERMILLION(px_near(&im, 10 + (6 + 0.3 * k) * ux, 23 + (6 + 0.3 * k) * uy));
    assert_true(short_lit >= 5);
    assert_false(IS_SKY(px_near(&im, 10 + 8 * ux, 23 + 8 * uy)));
    /* the unit's fire: both firers' lines (medium range: yellow) */
    assert_true(IS_YELLOW(px_near(&im, 13.5, 23.0)));
    assert_true(IS_YELLOW(px_near(&im, 13.5, 24.0)));
    /* and nothing between them */
    assert_int_equal(px_near(&im, 12.0, 23.6)[2], 0);
    tt_image_free(&im);
}

/* The answers overlay prints are the rules engine's, to the 0.01" it rounds
 * to: 2.63 prints as 2.63, not as the double's 2.6299999999999999. */
static void test_cli_answer_digits(void **state)
{
    (void)state;
    write_pj("flat.json", "{\"width\":1920,\"height\":1080,\"table_to_projector\":[[22.5,0,150],[0,22.5,0],[0,0,1]]}");
    write_pj("fb363.json", "{\"ruleset\":\"fixed-bayonet\",\"table\":{\"width_in\":72,\"depth_in\":48},\"terrain\":[],"
                           "\"figures\":[{\"id\":\"c\",\"side\":\"a\",\"x\":13.63,\"y\":20,\"facing_deg\":0},"
                           "{\"id\":\"t\",\"side\":\"b\",\"x\":10,\"y\":20,\"facing_deg\":0}]}");
    char *argv[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("flat.json"), "--scenario",
                    (char *)tpath("fb363.json"), "--query", "{\"q\":\"charge\",\"from\":\"c\",\"to\":\"t\"}",
                    "--out", (char *)tpath("digits.png"), NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    assert_non_null(strstr(r.out, "\"distance_in\":2.63,")); /* to contact: 3.63 less the bases */
    assert_null(strstr(r.out, "99999"));
    run_free(&r);
}

/* A charge refused within its reach (Fixed Bay'net, L77: a target behind
 * would need a turn) is drawn dashed to the target and no further: no solid
 * reach running on past it and no bar where the allowance would end. */
static void test_cli_charge_refused_in_reach(void **state)
{
    (void)state;
    write_pj("flat.json", "{\"width\":1920,\"height\":1080,\"table_to_projector\":[[22.5,0,150],[0,22.5,0],[0,0,1]]}");
    write_pj("fb.json", "{\"ruleset\":\"fixed-bayonet\",\"table\":{\"width_in\":72,\"depth_in\":48},\"terrain\":[],"
                        "\"figures\":[{\"id\":\"c\",\"side\":\"a\",\"x\":14,\"y\":20,\"facing_deg\":0},"
                        "{\"id\":\"t\",\"side\":\"b\",\"x\":10,\"y\":20,\"facing_deg\":0}]}");
    char *argv[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("flat.json"), "--scenario",
                    (char *)tpath("fb.json"), "--query", "{\"q\":\"charge\",\"from\":\"c\",\"to\":\"t\"}", "--out",
                    (char *)tpath("refused.png"), NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    assert_non_null(strstr(r.out, "\"distance_in\":3.0,\"allowed_in\":10.0,\"ok\":false"));
    run_free(&r);
    tt_image im = {0};
    tt_err err = {0};
    assert_int_equal(cvw_image_read(tpath("refused.png"), 3, &im, &err), TT_OK);
    int dashed = 0; /* the path, 14 -> 11, dashed vermillion */
    for (int k = 0; k < 20; k++)
        dashed += IS_VERMILLION(px_near(&im, 13.6 - 0.12 * k, 20));
    assert_true(dashed >= 5);
    for (double x = 4.5; x <= 8.5; x += 0.5) /* beyond the target, where 10in of reach would run on */
        assert_false(IS_SKY(px_near(&im, x, 20)));
    tt_image_free(&im);
}

/* White pixels (a label's text) in the table box [x0,x1] x [y0,y1] on the
 * flat projector of px_near. */
static int white_in(const tt_image *im, double x0, double y0, double x1, double y1)
{
    int n = 0;
    for (int v = (int)(22.5 * y0); v <= (int)(22.5 * y1); v++)
        for (int u = (int)(150 + 22.5 * x0); u <= (int)(150 + 22.5 * x1); u++) {
            const uint8_t *p = im->data + (size_t)v * im->stride + 3 * (size_t)u;
            n += p[0] > 200 && p[1] > 200 && p[2] > 200;
        }
    return n;
}

/* --cite: under the asker, the rule its answer comes from, in white; none
 * without it. */
static void test_cli_cite(void **state)
{
    (void)state;
    write_pj("flat.json", "{\"width\":1920,\"height\":1080,\"table_to_projector\":[[22.5,0,150],[0,22.5,0],[0,0,1]]}");
    int white[2];
    for (int k = 0; k < 2; k++) {
        char *argv[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("flat.json"),
                        "--scenario", (char *)SCEN, "--query", "{\"q\":\"fire\",\"from\":\"m1\",\"to\":\"f1\"}",
                        "--out", (char *)tpath(k ? "cite.png" : "plain.png"), k ? "--cite" : NULL, NULL};
        run_result r = run_cmd(argv, NULL);
        if (r.status != 0)
            fail_msg("exit %d: %s", r.status, r.err);
        assert_non_null(strstr(r.out, "\"rule\":\"into-the-breach.txt L79-82\""));
        run_free(&r);
        tt_image im = {0};
        tt_err err = {0};
        assert_int_equal(cvw_image_read(tpath(k ? "cite.png" : "plain.png"), 3, &im, &err), TT_OK);
        /* m1 stands at (10, 23) on a 1" base: the citation's line is below it */
        white[k] = white_in(&im, 7, 23.55, 13, 24.4);
        tt_image_free(&im);
    }
    if (!(white[0] < 5 && white[1] > 60))
        fail_msg("white pixels under m1: %d without --cite, %d with it", white[0], white[1]);
}

static void test_cli_on_camera(void **state)
{
    (void)state;
    char *argv[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--scenario", (char *)SCEN, "--query",
                    "{\"q\":\"command\",\"from\":\"gen\"}", "--query", "{\"q\":\"ball\",\"from\":\"gun1\",\"to\":\"f2\"}",
                    "--on-camera", TT_SOURCE_DIR "/samples/table/frame.png", "--out", (char *)tpath("view.png"), NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    run_free(&r);
    tt_image view = {0}, frame = {0};
    tt_err err = {0};
    assert_int_equal(cvw_image_read(tpath("view.png"), 3, &view, &err), TT_OK);
    assert_int_equal(cvw_image_read(TT_SOURCE_DIR "/samples/table/frame.png", 3, &frame, &err), TT_OK);
    assert_int_equal(view.width, frame.width);
    assert_int_equal(view.height, frame.height);
    /* the composite keeps the frame and adds colour: count coloured pixels */
    long coloured = 0, same = 0;
    for (int y = 0; y < view.height; y += 4)
        for (int x = 0; x < view.width; x += 4) {
            const uint8_t *a = view.data + (size_t)y * view.stride + 3 * x, *b = frame.data + (size_t)y * frame.stride + 3 * x;
            coloured += abs(a[2] - a[0]) > 60;
            same += a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
        }
    assert_true(coloured > 150);
    assert_true(same > (long)(view.width / 4) * (view.height / 4) / 2);
    tt_image_free(&view);
    tt_image_free(&frame);
}

static void expect_fail(char **argv, const char *needle, const char *out_file)
{
    run_result r = run_cmd(argv, NULL);
    if (r.status == 0 || !strstr(r.err, needle))
        fail_msg("expected failure with '%s', got exit %d: %s", needle, r.status, r.err);
    print_message("%s", r.err);
    run_free(&r);
    assert_false(exists(out_file));
}

static void test_cli_bad_input(void **state)
{
    (void)state;
    write_pj("broken.json", "{\"width\": 1920,\n \"height\": 1080,\n \"table_to_projector\": [[1,0,0],[0,1,0]\n");
    write_pj("pj.json", "{\"width\":1920,\"height\":1080,\"table_to_projector\":[[24.0,2.0,60.0],[0.8,22.0,40.0],"
                        "[0.0012,0.0045,1.0]]}");
    const char *out = tpath("bad.png");
    /* projector.json that does not parse: file, line and column */
    char *a1[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("broken.json"), "--scenario",
                  (char *)SCEN, "--query", "{\"q\":\"grape\",\"from\":\"gun1\"}", "--out", (char *)out, NULL};
    expect_fail(a1, "line 4", out);
    /* a figure that is not in the scenario */
    char *a2[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("pj.json"), "--scenario",
                  (char *)SCEN, "--query", "{\"q\":\"grape\",\"from\":\"gun1\"}", "--query",
                  "{\"q\":\"fire\",\"from\":\"m1\",\"to\":\"ghost\"}", "--out", (char *)out, NULL};
    expect_fail(a2, "ghost", out);
    /* a query that is not JSON */
    char *a3[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("pj.json"), "--scenario",
                  (char *)SCEN, "--query", "{\"q\":\"grape\",", "--out", (char *)out, NULL};
    expect_fail(a3, "--query 1: line 1", out);
    /* missing projector.json */
    char *a4[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("nope.json"), "--scenario",
                  (char *)SCEN, "--query", "{\"q\":\"grape\",\"from\":\"gun1\"}", "--out", (char *)out, NULL};
    expect_fail(a4, "nope.json", out);
    /* usage: nowhere to put the image */
    char *a5[] = {TT_BIN, "overlay", "--rig", (char *)RIG, "--projector", (char *)tpath("pj.json"), "--scenario",
                  (char *)SCEN, "--query", "{\"q\":\"grape\",\"from\":\"gun1\"}", NULL};
    run_result r = run_cmd(a5, NULL);
    assert_int_equal(r.status, 2);
    run_free(&r);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/tt_ovtest_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_circle_under_perspective), cmocka_unit_test(test_width_in_inches),
        cmocka_unit_test(test_shapes),                   cmocka_unit_test(test_palette),
        cmocka_unit_test(test_cli_cite),
        cmocka_unit_test(test_bad_primitives),           cmocka_unit_test(test_same_as_reference),
        cmocka_unit_test(test_edge_band),
        cmocka_unit_test(test_label_cache),
        cmocka_unit_test(test_render_into),
        cmocka_unit_test(test_line_under_grid),
        cmocka_unit_test(test_render_into_sequence),
        cmocka_unit_test(test_cli_projector_png),
        cmocka_unit_test(test_cli_deviate_charge_unit),
        cmocka_unit_test(test_cli_charge_refused_in_reach), cmocka_unit_test(test_cli_answer_digits),
        cmocka_unit_test(test_cli_on_camera),            cmocka_unit_test(test_cli_bad_input),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    const char *names[] = {"pj.json", "broken.json", "ov.png", "view.png", "flat.json", "dcu.png"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        remove(tpath(names[i]));
    remove(dir);
    return rc;
}
