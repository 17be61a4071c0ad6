/* bench_overlay.c - time to draw one typical frame (about 50 primitives,
 * 1920x1080, one core): the full overlay_draw (shapes built in inches,
 * mapped point by point, rasterised and blended into the projector image),
 * and beside it in the same run, frame by frame, two baselines: a plain
 * cairo fill of the whole surface, and cairo drawing 50 shapes already
 * mapped to pixels (what a pre-mapped bitmap approach would cost).  Also
 * the same frame with every label moved (labels are kept rendered with the
 * surface while they stay put), the time to map and composite onto a
 * camera frame, and the live frame through a 3D projector with terrain
 * (every mark at the height of the ground under it: issue 20) beside the
 * same frame through the plane map; two projectors sharing the table
 * (issue 31), with and without their light ramped across the overlap,
 * beside one projector drawing it all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "overlay.h"
#include "overlay_internal.h" /* to move the labels of a copy */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* CPU time: steady on a busy machine */
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* A typical frame, styled as table/table_look.c draws the answers:
 * three range bands (each its outer circle and a translucent 0.5" band
 * inside it), a filled grape cone, 12 LOS lines (4 blocked, dashed), a filled
 * clipped blast, a cannonball line, a 24" command radius (outline and a
 * 0.5" band inside it), 20 target rings and 12 to-hit labels - 51
 * primitives. */
static void typical(overlay_list *l)
{
    tt_err err = {0};
    overlay_style band = overlay_style_edge(OVERLAY_ROLE_SHORT, 0.05, OVERLAY_EDGE_ALPHA);
    for (int i = 0; i < 3; i++) {
        band.role = (overlay_role)(OVERLAY_ROLE_SHORT + i);
        overlay_add_circle(l, 12, 24, 4.5 + 4 * i, band, &err);
    }
    overlay_style cone = overlay_style_line(OVERLAY_ROLE_ARC, 0.08);
    cone.fill_alpha = 0.3;
    overlay_add_sector(l, 5, 14, 0, 6.5, -15, 15, cone, &err);
    for (int i = 0; i < 12; i++) {
        overlay_style ln = overlay_style_line(i % 3 ? OVERLAY_ROLE_CLEAR : OVERLAY_ROLE_BLOCKED, 0.08);
        ln.dashed = i % 3 == 0;
        overlay_add_line(l, 10 + i, 23, 40 + 2 * i, 8 + 3 * i, ln, &err);
    }
    overlay_style blast = overlay_style_line(OVERLAY_ROLE_BLAST, 0.08);
    blast.fill_alpha = 0.35;
    double poly[2 * 360];
    for (int k = 0; k < 360; k++) {
        double a = 2 * M_PI * k / 360, r = k < 180 ? 2 : 1.2;
        poly[2 * k] = 33 + r * cos(a);
        poly[2 * k + 1] = 18 + r * sin(a);
    }
    overlay_add_polygon(l, poly, 360, blast, &err);
    overlay_add_line(l, 5, 14, 41, 16, overlay_style_line(OVERLAY_ROLE_BALL, 0.1), &err);
    overlay_style cmd = overlay_style_edge(OVERLAY_ROLE_COMMAND, 0.08, OVERLAY_EDGE_ALPHA);
    overlay_add_circle(l, 4, 30, 24, cmd, &err);
    for (int i = 0; i < 20; i++)
        overlay_add_circle(l, 15 + 2.5 * i, 10 + (i % 5) * 6, 0.7, overlay_style_line(OVERLAY_ROLE_TARGET, 0.08), &err);
    for (int i = 0; i < 12; i++) {
        char t[16];
        snprintf(t, sizeof t, "%d+ %d.%d\"", 4 + i % 3, 6 + i, i);
        overlay_add_text(l, 20 + 3 * i, 40 - i, t, 0.4, 0, OVERLAY_ROLE_NEUTRAL, &err);
    }
}

/* The ground: three flat-topped hills (polygons, vertical sides) under
 * part of the typical frame - the blast, LOS lines and rings cross their
 * edges.  Found as a scenario would: bounding box, then the polygon. */
typedef struct bench__hill {
    double xy[12];
    int n;
    double h, lo[2], hi[2];
} bench__hill;

static const bench__hill bench__hills[3] = {
    {{28, 12, 40, 13, 39, 24, 30, 25, 27, 19}, 5, 3.0, {27, 12}, {40, 25}},
    {{45, 20, 55, 20, 55, 30, 45, 30}, 4, 2.0, {45, 20}, {55, 30}},
    {{10, 35, 20, 33, 24, 42, 12, 44, 9, 40}, 5, 2.0, {9, 33}, {24, 44}},
};

static double bench__ground(const void *user, double x, double y)
{
    (void)user;
    double best = 0;
    for (int k = 0; k < 3; k++) {
        const bench__hill *hl = &bench__hills[k];
        if (x < hl->lo[0] || y < hl->lo[1] || x > hl->hi[0] || y > hl->hi[1] || hl->h <= best)
            continue;
        int in = 0;
        for (int i = 0, j = hl->n - 1; i < hl->n; j = i++) {
            double xi = hl->xy[2 * i], yi = hl->xy[2 * i + 1], xj = hl->xy[2 * j], yj = hl->xy[2 * j + 1];
            if ((yi > y) != (yj > y) && x < xj + (y - yj) * (xi - xj) / (yi - yj))
                in = !in;
        }
        if (in)
            best = hl->h;
    }
    return best;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Per-frame times (seconds) -> mean, and the 10th, 50th, 90th percentiles. */
typedef struct stats {
    double mean, p10, median, p90;
} stats;

static stats summarise(double *t, int n)
{
    stats s = {0, 0, 0, 0};
    for (int i = 0; i < n; i++)
        s.mean += t[i] / n;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    s.p10 = t[n / 10];
    s.median = t[n / 2];
    s.p90 = t[(n * 9) / 10];
    return s;
}

static void clear(cairo_t *cr)
{
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_paint(cr);
}

/* The live frame with every figure's tag masked (120 figures, issue 20)
 * against the same frame unmasked, in alternating turns of the same run. */
static void bench_masks(const overlay_mapper *m, int N)
{
    tt_err err = {0};
    overlay_list *bare = NULL, *masked = NULL;
    if (overlay_list_create(&bare, &err) != TT_OK || overlay_list_create(&masked, &err) != TT_OK)
        return;
    typical(bare);
    typical(masked);
    for (int i = 0; i < 120; i++)
        overlay_add_tag_mask(masked, 3 + 5.5 * (i % 12), 3 + 4.2 * (i / 12), 7.0 * i, 0.8, 0.118, &err);
    cairo_surface_t *s0 = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
    cairo_surface_t *s1 = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
    double *t0s = calloc((size_t)N, sizeof(double)), *t1s = calloc((size_t)N, sizeof(double));
    if (!t0s || !t1s)
        return;
    for (int i = 0; i < 5; i++) {
        overlay_render_into(bare, m, s0, &err);
        overlay_render_into(masked, m, s1, &err);
    }
    for (int i0 = 0; i0 < N; i0 += 10)
        for (int pass = 0; pass < 2; pass++)
            for (int i = i0; i < i0 + 10 && i < N; i++) {
                double t0 = now();
                overlay_render_into(pass ? masked : bare, m, pass ? s1 : s0, &err);
                (pass ? t1s : t0s)[i] = now() - t0;
            }
    stats a = summarise(t0s, N), b = summarise(t1s, N);
    printf("  the live frame with 120 tags masked (2.1x, turned):       %.3f ms  (unmasked %.3f ms, ratio %.2f)\n",
           b.median * 1e3, a.median * 1e3, b.median / a.median);
    free(t0s);
    free(t1s);
    cairo_surface_destroy(s0);
    cairo_surface_destroy(s1);
    overlay_list_destroy(bare);
    overlay_list_destroy(masked);
}

/* Table -> pixels of H after x -> 1.6 (x - x0): a projector over a part of
 * the table 1/1.6 as wide, from x0. */
static calib_projector *bench__part(const double H[9], double x0)
{
    double Hp[9];
    for (int r = 0; r < 3; r++) {
        Hp[3 * r] = 1.6 * H[3 * r];
        Hp[3 * r + 1] = H[3 * r + 1];
        Hp[3 * r + 2] = H[3 * r + 2] - 1.6 * x0 * H[3 * r];
    }
    calib_projector *pj = NULL;
    tt_err err = {0};
    return calib_projector_create(1920, 1080, Hp, &pj, &err) == TT_OK ? pj : NULL;
}

/* Two projectors sharing the table (issue 31): A over its left part, B over
 * its right, overlapping by about 18"; the live frame drawn by both, with
 * their light ramped across the overlap (overlay_seam) and without, against
 * one projector (m) drawing it all, in alternating turns of the same run. */
static void bench_projectors(const double H[9], const overlay_mapper *m, const overlay_list *l, int N)
{
    tt_err err = {0};
    calib_projector *pa = bench__part(H, 0), *pb = bench__part(H, 27);
    const calib_projector *pjs[2] = {pa, pb};
    overlay_seam *seam[2] = {NULL, NULL};
    if (!pa || !pb)
        return;
    double t0 = now();
    for (int k = 0; k < 2; k++)
        if (overlay_seam_create(pjs, 2, k, &seam[k], &err) != TT_OK)
            return;
    double t_seam = (now() - t0) / 2;
    overlay_mapper mp[2], mr[2];
    cairo_surface_t *one = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080), *sp[2], *sr[2];
    for (int k = 0; k < 2; k++) {
        overlay_mapper_projector(&mp[k], pjs[k]);
        mr[k] = mp[k];
        mr[k].seam = seam[k];
        sp[k] = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
        sr[k] = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
    }
    double *t[3];
    for (int j = 0; j < 3; j++)
        if (!(t[j] = calloc((size_t)N, sizeof(double))))
            return;
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 2; k++) {
            overlay_render_into(l, m, one, &err);
            overlay_render_into(l, &mp[k], sp[k], &err);
            overlay_render_into(l, &mr[k], sr[k], &err);
        }
    for (int i0 = 0; i0 < N; i0 += 10)
        for (int pass = 0; pass < 3; pass++)
            for (int i = i0; i < i0 + 10 && i < N; i++) {
                t0 = now();
                if (pass == 0)
                    overlay_render_into(l, m, one, &err);
                for (int k = 0; pass > 0 && k < 2; k++)
                    overlay_render_into(l, pass == 1 ? &mp[k] : &mr[k], pass == 1 ? sp[k] : sr[k], &err);
                t[pass][i] = now() - t0;
            }
    stats a = summarise(t[0], N), b = summarise(t[1], N), c = summarise(t[2], N);
    printf("  two projectors sharing the table (18\" overlap), the live frame drawn by both:\n"
           "    with their light ramped across the overlap:             %.3f ms  (p10 %.3f, p90 %.3f)\n"
           "    without the ramp:                                       %.3f ms  (ramp/no-ramp ratio %.2f)\n"
           "    baseline one projector drawing it all:                  %.3f ms  (two ramped/one ratio %.2f, "
           "two/one ratio %.2f)\n"
           "    each projector's ramp, made once at the start:          %.1f ms (%ld pixels dimmed)\n",
           c.median * 1e3, c.p10 * 1e3, c.p90 * 1e3, b.median * 1e3, c.median / b.median, a.median * 1e3,
           c.median / a.median, b.median / a.median, t_seam * 1e3, overlay_seam_dimmed(seam[0]));
    for (int j = 0; j < 3; j++)
        free(t[j]);
    cairo_surface_destroy(one);
    for (int k = 0; k < 2; k++) {
        cairo_surface_destroy(sp[k]);
        cairo_surface_destroy(sr[k]);
        overlay_seam_destroy(seam[k]);
    }
    calib_projector_destroy(pa);
    calib_projector_destroy(pb);
}

/* argv[1]: frames to time (default 200; fewer under callgrind).
 * argv[2] = "live": only draw that many frames the live tracker's way and
 * print nothing else - for counting instructions, which a noisy machine
 * does not change: run under callgrind with two frame counts and divide
 * the difference of the totals by the difference of the counts. */
int main(int argc, char **argv)
{
    const double H[9] = {24.0, 2.0, 60.0, 0.8, 22.0, 40.0, 0.0012, 0.0045, 1.0};
    calib_projector *pj = NULL;
    overlay_list *l = NULL, *moved = NULL;
    tt_err err = {0};
    if (calib_projector_create(1920, 1080, H, &pj, &err) != TT_OK || overlay_list_create(&l, &err) != TT_OK ||
        overlay_list_create(&moved, &err) != TT_OK)
        return 1;
    typical(l);
    /* the same frame with every label a hundredth of an inch away: drawn
     * in turn with l, no label is ever found rendered already */
    typical(moved);
    for (int i = 0; i < moved->n; i++)
        if (moved->p[i].kind == OVERLAY__TEXT)
            moved->p[i].cx += 0.01;
    overlay_mapper m;
    overlay_mapper_projector(&m, pj);
    /* the 3D projector: the same map on the felt (its P at height 0 is H),
     * a third column for heights (a projector ~80" up), and the hills */
    const double P[12] = {H[0], H[1], -10.0, H[2], H[3], H[4], -12.0, H[5], H[6], H[7], -0.0125, H[8]};
    calib_projector *pj3 = NULL;
    if (calib_projector_create_pinhole(1920, 1080, P, &pj3, &err) != TT_OK)
        return 1;
    overlay_mapper m3;
    overlay_projector_map m3_state;
    tt_ground ground = {bench__ground, NULL};
    overlay_mapper_projector_ground(&m3, &m3_state, pj3, &ground);
    if (!m3.map3)
        return 1;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
    cairo_t *cr = cairo_create(s);
    const int N = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 200;
    double *t_clear = calloc((size_t)N, sizeof(double)), *t_draw = calloc((size_t)N, sizeof(double));
    double *t_pre = calloc((size_t)N, sizeof(double)), *t_fresh = calloc((size_t)N, sizeof(double));
    double *t_live = calloc((size_t)N, sizeof(double)), *t_live3 = calloc((size_t)N, sizeof(double));
    if (!t_clear || !t_draw || !t_pre || !t_fresh || !t_live || !t_live3)
        return 1;
    /* the live tracker's way: its own kept surface, overlay_render_into
     * (clears only what the last frame lit) */
    cairo_surface_t *live = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
    cairo_surface_t *live3 = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
    if (argc > 2 && strcmp(argv[2], "live") == 0) {
        for (int i = 0; i < N; i++)
            if (overlay_render_into(l, &m, live, &err) != TT_OK)
                return 1;
        printf("drew %d frames the live tracker's way\n", N);
        return 0;
    }
    for (int i = 0; i < 5; i++) {
        overlay_render_into(l, &m, live, &err);
        overlay_render_into(l, &m3, live3, &err);
    }

    /* warm-up (font cache, allocations) */
    for (int i = 0; i < 5; i++)
        overlay_draw(l, &m, cr, &err);

    /* the four measurements in turns of B frames each (a frame's caches
     * stay warm within a turn; a slow spell of the machine hits them all
     * alike) */
    const int B = 10;
    for (int i0 = 0; i0 < N; i0 += B) {
        int i1 = i0 + B < N ? i0 + B : N;
        for (int i = i0; i < i1; i++) {
            double t0 = now();
            clear(cr);
            cairo_surface_flush(s);
            t_clear[i] = now() - t0;
        }
        for (int i = i0; i < i1; i++) {
            double t0 = now();
            clear(cr);
            overlay_draw(l, &m, cr, &err);
            cairo_surface_flush(s);
            t_draw[i] = now() - t0;
        }
        /* baseline: cairo's own stroker and filler drawing 50 shapes from
         * pre-mapped pixel points (no inch geometry, width in pixels) */
        for (int i = i0; i < i1; i++) {
            double t0 = now();
            clear(cr);
            cairo_set_line_width(cr, 2.0);
            for (int k = 0; k < 50; k++) {
                double a[2] = {10 + k, 23}, b[2] = {40 + k, 8 + k}, pa[2], pb[2];
                calib_projector_map(pj, a, 1, pa);
                calib_projector_map(pj, b, 1, pb);
                cairo_set_source_rgba(cr, 0.3, 0.7, 0.9, 1);
                if (k % 4 == 0) {
                    cairo_arc(cr, pa[0], pa[1], 40, 0, 2 * M_PI);
                    cairo_set_source_rgba(cr, 0.9, 0.4, 0.0, 0.3);
                    cairo_fill_preserve(cr);
                } else {
                    cairo_move_to(cr, pa[0], pa[1]);
                    cairo_line_to(cr, pb[0], pb[1]);
                }
                cairo_stroke(cr);
            }
            cairo_surface_flush(s);
            t_pre[i] = now() - t0;
        }
        for (int i = i0; i < i1; i++) {
            double t0 = now();
            overlay_render_into(l, &m, live, &err);
            t_live[i] = now() - t0;
        }
        for (int i = i0; i < i1; i++) {
            double t0 = now();
            overlay_render_into(l, &m3, live3, &err);
            t_live3[i] = now() - t0;
        }
        /* every label moved since the last frame: rendered afresh */
        for (int i = i0; i < i1; i++) {
            double t0 = now();
            clear(cr);
            overlay_draw(i % 2 ? l : moved, &m, cr, &err);
            cairo_surface_flush(s);
            t_fresh[i] = now() - t0;
        }
    }
    stats sc = summarise(t_clear, N), sd = summarise(t_draw, N), sp = summarise(t_pre, N),
          sf = summarise(t_fresh, N), sl = summarise(t_live, N), sl3 = summarise(t_live3, N);

    /* map + composite onto a 1920x1080 camera frame */
    tt_image frame = {0};
    tt_image_alloc(&frame, 1920, 1080, 3, &err);
    memset(frame.data, 90, (size_t)frame.stride * frame.height);
    const int NC = N / 4 > 0 ? N / 4 : 1;
    double t0 = now();
    for (int i = 0; i < NC; i++) {
        cairo_surface_t *v = NULL;
        overlay_render_on_image(l, &m, &frame, &v, &err);
        cairo_surface_destroy(v);
    }
    double t_comp = (now() - t0) / NC;

    printf("overlay benchmark: %d primitives, 1920x1080, one core, %d frames, thread CPU time per frame\n",
           overlay_list_count(l), N);
    printf("  (median, with 10th-90th percentiles and the mean: the median frame is what a player sees;\n"
           "   a busy machine shows in the mean and the 90th percentile)\n");
    printf("  draw one frame as the live tracker does (overlay_render_into: clear what the last frame lit, draw):\n"
           "                                                              %.3f ms  (p10 %.3f, p90 %.3f, mean %.3f)\n",
           sl.median * 1e3, sl.p10 * 1e3, sl.p90 * 1e3, sl.mean * 1e3);
    printf("  the same through the 3D projector, marks at the height of 3 hills under them:\n"
           "                                                              %.3f ms  (p10 %.3f, p90 %.3f, mean %.3f)"
           " (3D/plane ratio %.2f)\n",
           sl3.median * 1e3, sl3.p10 * 1e3, sl3.p90 * 1e3, sl3.mean * 1e3, sl3.median / sl.median);
    printf("  draw one frame (clear + shapes in inches -> projector px): %.3f ms  (p10 %.3f, p90 %.3f, mean %.3f)\n",
           sd.median * 1e3, sd.p10 * 1e3, sd.p90 * 1e3, sd.mean * 1e3);
    printf("  the same, every label moved (labels rendered afresh):     %.3f ms  (p10 %.3f, p90 %.3f, mean %.3f)\n",
           sf.median * 1e3, sf.p10 * 1e3, sf.p90 * 1e3, sf.mean * 1e3);
    printf("  baseline plain cairo fill of the surface:                   %.3f ms (draw/fill ratio %.1f)\n",
           sc.median * 1e3, sd.median / sc.median);
    printf("  baseline cairo strokes of pre-mapped pixels (50 shapes):    %.3f ms (draw/pre-mapped ratio %.2f)\n",
           sp.median * 1e3, sd.median / sp.median);
    printf("  map + composite on a 1920x1080 camera frame:                %.3f ms (mean)\n", t_comp * 1e3);
    bench_masks(&m, N);
    bench_projectors(H, &m, l, N);
    free(t_clear);
    free(t_draw);
    free(t_pre);
    free(t_fresh);
    free(t_live);
    free(t_live3);
    cairo_surface_destroy(live);
    cairo_surface_destroy(live3);
    calib_projector_destroy(pj3);
    tt_image_free(&frame);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    overlay_list_destroy(l);
    overlay_list_destroy(moved);
    calib_projector_destroy(pj);
    return 0;
}
