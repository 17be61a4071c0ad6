/* test_err.c - issue 29: is each located figure's error honest?  On
 * issue 29's rendered conditions (locate_eval.h, le_options_issue29), with
 * fixed seeds never used to fit the model (calib/calib_err.c was fitted on
 * seeds 1..3; bench_err measures 201..): locate run without a scenario;
 * in each condition (resolution x where the figure stands) the share of
 * figures whose true position lies within err95_in is no worse than a 90%
 * model could plausibly give (1% one-sided), over all it is at most 99.5%,
 * and at 4K every fully visible figure is found.  With the scenario
 * declared, figures on slopes and roofs are within the issue's targets.
 * And on synthetic tags: a frame's centre noise is measured apart from its
 * size noise, which blur inflates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib_err.h"
#include "locate_eval.h"

#define SEED 77u

static const char *where_name[LE_NWHERE] = {"felt", "hill top", "slope", "roof"};

typedef struct cov {
    int expected, found, covered, z_covered;
    double declared_max;
} cov;

static const calib_figure *find(const calib_figure *figs, int n, const rnd_tag *t)
{
    for (int i = 0; i < n; i++)
        if (figs[i].id == t->id && !strcmp(figs[i].family, t->family))
            return &figs[i];
    return NULL;
}

static void run(int k4, int roof, int blur, cov c[LE_NWHERE])
{
    le_options o;
    le_frame f;
    tt_err err = {0};
    le_options_issue29(&o, k4, roof, blur, SEED);
    assert_int_equal(le_frame_make(&o, &f, &err), TT_OK);
    vision_detections ds = {0};
    calib_pose pose;
    calib_figure *figs = NULL, *dfigs = NULL;
    int n = 0, dn = 0;
    tt_ground g = {le_ground_at, &f};
    assert_int_equal(le_detect(&f, &ds, &pose, NULL, &err), TT_OK);
    assert_int_equal(calib_locate_ground(f.rig, &pose, &ds, NULL, &figs, &n, &err), TT_OK);
    assert_int_equal(calib_locate_ground(f.rig, &pose, &ds, &g, &dfigs, &dn, &err), TT_OK);
    for (int t = f.nanchors; t < f.ntags; t++) {
        const rnd_tag *tag = &f.tags[t];
        if (!rnd_tag_unoccluded(&f.scene, &f.cam, tag))
            continue;
        double xy[2];
        le_truth_xy(&f, tag, xy);
        cov *w = &c[le_where(&f, tag, roof)];
        w->expected++;
        const calib_figure *h = find(figs, n, tag), *d = find(dfigs, dn, tag);
        if (!h)
            continue;
        w->found++;
        w->covered += hypot(h->x - xy[0], h->y - xy[1]) <= h->err95_in;
        w->z_covered += fabs(h->z_in - rnd_ground_height(&f.scene, xy[0], xy[1])) <= h->z_err95_in;
        if (d)
            w->declared_max = fmax(w->declared_max, hypot(d->x - xy[0], d->y - xy[1]));
        assert_true(isfinite(h->err95_in) && h->err95_in > 0 && isfinite(h->z_err95_in) && h->z_err95_in > 0 &&
                    isfinite(h->facing_err95_deg) && h->facing_err95_deg > 0);
    }
    free(figs);
    free(dfigs);
    vision_detections_free(&ds);
    le_frame_free(&f);
}

/* the fewest covered of n a 90% model gives with probability 1% or more */
static double plausible_low(int n)
{
    return 0.90 - 2.326 * sqrt(0.09 / n);
}

static int total_n, total_cov;

static void check(const char *res, cov c[LE_NWHERE], int k4, int roof)
{
    for (int w = 0; w < LE_NWHERE; w++) {
        if (!c[w].expected)
            continue;
        double share = c[w].found ? (double)c[w].covered / c[w].found : 1;
        print_message("%s %-8s: %d of %d found, %d covered (%.1f%%; a 90%% model: >= %.1f%%), z %d, declared max "
                      "%.4f\"\n",
                      res, where_name[w], c[w].found, c[w].expected, c[w].covered, 100 * share,
                      100 * plausible_low(c[w].found ? c[w].found : 1), c[w].z_covered, c[w].declared_max);
        if (c[w].found >= 5)
            assert_true(share >= plausible_low(c[w].found));
        if (k4)
            assert_int_equal(c[w].found, c[w].expected);
        /* declared slopes and roofs (issue 29 section 3's targets) */
        if (w == LE_SLOPE && c[w].found)
            assert_true(c[w].declared_max <= (k4 ? 0.05 : 0.15));
        if (w == LE_ROOF && roof && c[w].found)
            assert_true(c[w].declared_max <= (k4 ? 0.02 : 0.05));
        total_n += c[w].found;
        total_cov += c[w].covered;
    }
}

static void test_coverage_4k(void **state)
{
    (void)state;
    cov hill[LE_NWHERE] = {0}, roof[LE_NWHERE] = {0};
    run(1, 0, 0, hill);
    check("4K hill", hill, 1, 0);
    run(1, 1, 0, roof);
    check("4K roof", roof, 1, 1);
}

static void test_coverage_1080p(void **state)
{
    (void)state;
    cov hill[LE_NWHERE] = {0}, roof[LE_NWHERE] = {0}, blur[LE_NWHERE] = {0};
    run(0, 0, 0, hill);
    check("1080p hill", hill, 0, 0);
    run(0, 1, 0, roof);
    check("1080p roof", roof, 0, 1);
    run(0, 0, 1, blur);
    check("1080p blurry hill", blur, 0, 0);
}

/* over all figures together: honest, not padded to certainty */
static void test_coverage_overall(void **state)
{
    (void)state;
    print_message("all: %d of %d covered (%.1f%%)\n", total_cov, total_n, 100.0 * total_cov / total_n);
    assert_true(total_n > 300);
    assert_true(total_cov >= plausible_low(total_n) * total_n && total_cov <= 0.995 * total_n);
}

/* A normal deviate (Box-Muller) from the renderer's generator. */
static double gauss(uint64_t *rs)
{
    double u = rnd_rng_uniform(rs), v = rnd_rng_uniform(rs);
    return sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(2 * M_PI * v);
}

#define SYN_N 1000
#define SYN_PX 42.5 /* pixels per inch: 0.8" tags of 34 px, as at 4K */

/* SYN_N level 0.8" tags on the felt, 60" below the camera, each side found
 * sigma_e px off on its own, all four spread outwards together by up to
 * `spread` px (blur, more or less with each tag's light).  Fits the frame
 * and returns the centres' actual scatter, each axis, px. */
static double synthetic_frame(double sigma_e, double spread, calib_err_frame *fr)
{
    static double stand[SYN_N], ground[SYN_N], tilt[SYN_N], spx[SYN_N], plane[SYN_N * 8];
    static int ok[SYN_N];
    const double cam = 60, base_in = 0.12, s = 0.8 * SYN_PX;
    uint64_t rs = rnd_rng_seed(2901u);
    double ss = 0;
    for (int i = 0; i < SYN_N; i++) {
        double cx = 72 * rnd_rng_uniform(&rs) * SYN_PX, cy = 48 * rnd_rng_uniform(&rs) * SYN_PX;
        double b = spread * rnd_rng_uniform(&rs);
        double l = cx - s / 2 - b + sigma_e * gauss(&rs), r = cx + s / 2 + b + sigma_e * gauss(&rs);
        double lo = cy - s / 2 - b + sigma_e * gauss(&rs), hi = cy + s / 2 + b + sigma_e * gauss(&rs);
        double c[8] = {l, lo, r, lo, r, hi, l, hi};
        for (int k = 0; k < 8; k++)
            plane[i * 8 + k] = c[k] / SYN_PX;
        double ex = (l + r) / 2 - cx, ey = (lo + hi) / 2 - cy;
        ss += ex * ex + ey * ey;
        spx[i] = ((r - l) + (hi - lo)) / 2;
        /* its height from its size, as calib measures it */
        stand[i] = cam - (cam - base_in) * s / spx[i] - base_in;
        ground[i] = tilt[i] = 0;
        ok[i] = 1;
    }
    calib_err_frame_fit(stand, ground, tilt, ok, spx, plane, SYN_N, cam, base_in, fr);
    return sqrt(ss / (2 * SYN_N));
}

/* The centre's noise is measured apart from the size's: blur's spread,
 * varying from tag to tag, makes the sizes (and so the heights) scatter
 * but leaves the centres, and the centre noise measured, where they were;
 * the position bound follows the centre's noise. */
static void test_centre_noise_apart_from_size(void **state)
{
    (void)state;
    calib_err_frame sharp, blur;
    double real_sharp = synthetic_frame(0.05, 0, &sharp), real_blur = synthetic_frame(0.05, 0.6, &blur);
    print_message("centre: actual %.4f / %.4f px, measured %.4f / %.4f px; size %.4f / %.4f px\n", real_sharp,
                  real_blur, sharp.centre_px, blur.centre_px, sharp.sigma_px, blur.sigma_px);
    assert_int_equal(sharp.n_centre, SYN_N);
    /* measured, with its own uncertainty (1 + 1.5 / sqrt(n)) on top */
    assert_true(sharp.centre_px >= 0.95 * real_sharp && sharp.centre_px <= 1.2 * real_sharp);
    assert_true(blur.centre_px >= 0.95 * real_blur && blur.centre_px <= 1.2 * real_blur);
    assert_true(fabs(blur.centre_px - sharp.centre_px) <= 0.1 * sharp.centre_px);
    assert_true(blur.sigma_px > 3 * sharp.sigma_px);
    /* the position bound: from the centre's noise, the same with the spread */
    calib_err_seen seen = {.s_px = 34, .margin = 150, .in_per_px = 1 / SYN_PX, .cam_above_in = 59.9};
    calib_figure a = {0}, b = {0};
    seen.frame_sigma_px = sharp.sigma_px;
    seen.frame_centre_px = sharp.centre_px;
    calib_err_fill(&a, &seen);
    seen.frame_sigma_px = blur.sigma_px;
    seen.frame_centre_px = blur.centre_px;
    calib_err_fill(&b, &seen);
    assert_true(fabs(b.err95_in - a.err95_in) <= 0.1 * a.err95_in);
    /* and it holds the centres: 95% of a 2-D normal lies within 2.45 sigma */
    assert_true(a.err95_in >= 2.45 * real_sharp / SYN_PX);
    /* too few level tags: nothing measured, the size's noise stands in */
    calib_err_frame few;
    double st = 0, gr = 0, ti = 0, sp = 34, pl[8] = {0, 0, 0.8, 0, 0.8, 0.8, 0, 0.8};
    int k = 1;
    calib_err_frame_fit(&st, &gr, &ti, &k, &sp, pl, 1, 60, 0.12, &few);
    assert_true(few.centre_px == 0 && few.n_centre == 0);
}

/* A corner libapriltag misplaced (issue 31: at 2.6 px per cell one tag in
 * thirty or so has one 1-3 px off) foreshortens the tag as a slope would
 * and changes its apparent size: its own corners say so (their distance
 * from a parallelogram), so its tilt and its pose's height decide nothing
 * (calib_err_tilt_odd).  Each of ten figures on the felt, one corner moved
 * 4.5 px toward its centre, stays on the felt with no warning, its
 * position within its err95_in; the figures not touched are decided as
 * before. */
static void test_misplaced_corner(void **state)
{
    (void)state;
    le_options o;
    le_frame f;
    tt_err err = {0};
    le_options_issue29(&o, 1, 0, 0, SEED);
    assert_int_equal(le_frame_make(&o, &f, &err), TT_OK);
    vision_detections ds = {0};
    calib_pose pose;
    calib_figure *before = NULL, *after = NULL;
    int nb = 0, na = 0, moved = 0;
    assert_int_equal(le_detect(&f, &ds, &pose, NULL, &err), TT_OK);
    assert_int_equal(calib_locate_ground(f.rig, &pose, &ds, NULL, &before, &nb, &err), TT_OK);
    int touched[16];
    for (int i = 0; i < nb && moved < 10; i++) {
        int t = f.nanchors;
        while (t < f.ntags && f.tags[t].id != before[i].id)
            t++;
        if (t == f.ntags || le_where(&f, &f.tags[t], 0) != LE_FELT || before[i].height != CALIB_HEIGHT_GROUND)
            continue;
        vision_detection *d = &ds.items[before[i].det_index];
        double dx = d->center[0] - d->corners[3][0], dy = d->center[1] - d->corners[3][1], len = hypot(dx, dy);
        d->corners[3][0] += 4.5 * dx / len; /* toward its centre: it reads about 25 degrees tilted */
        d->corners[3][1] += 4.5 * dy / len;
        touched[moved++] = before[i].id;
    }
    assert_int_equal(moved, 10);
    assert_int_equal(calib_locate_ground(f.rig, &pose, &ds, NULL, &after, &na, &err), TT_OK);
    assert_int_equal(na, nb);
    for (int i = 0; i < na; i++) {
        int hit = 0;
        for (int k = 0; k < moved; k++)
            hit |= touched[k] == after[i].id;
        if (!hit) {
            assert_int_equal(after[i].height, before[i].height);
            continue;
        }
        const rnd_tag *tag = NULL;
        for (int t = f.nanchors; t < f.ntags; t++)
            if (f.tags[t].id == after[i].id)
                tag = &f.tags[t];
        double xy[2], e;
        char msg[256];
        le_truth_xy(&f, tag, xy);
        e = hypot(after[i].x - xy[0], after[i].y - xy[1]);
        print_message("id %d, a corner moved: measured %.2f\" +- %.2f\", tilt %.1f deg, on the %s, %.4f\" off "
                      "(err95 %.4f\")\n",
                      after[i].id, after[i].measured_in, after[i].measured_err95_in, after[i].tilt_deg,
                      after[i].height == CALIB_HEIGHT_GROUND ? "felt" : "WRONG height", e, after[i].err95_in);
        assert_int_equal(after[i].height, CALIB_HEIGHT_GROUND);
        assert_true(after[i].z_in == 0);
        assert_int_equal(calib_height_warning(&after[i], "it", after[i].z_in, 0, 0.8, msg, sizeof msg), 0);
        assert_true(e <= after[i].err95_in);
        assert_true(e < 0.05);
    }
    free(before);
    free(after);
    vision_detections_free(&ds);
    le_frame_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_centre_noise_apart_from_size),
        cmocka_unit_test(test_coverage_4k),
        cmocka_unit_test(test_coverage_1080p),
        cmocka_unit_test(test_coverage_overall),
        cmocka_unit_test(test_misplaced_corner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
