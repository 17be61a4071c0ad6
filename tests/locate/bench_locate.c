/* bench_locate.c - how much does mapping to inches cost on top of tag
 * detection?  For the same rendered 3840x2160 frames in one run: raw
 * apriltag_detector_detect time, full locate time (detect + pose + mapping),
 * their ratio, recall and errors; then the same on blurry, noisy frames
 * (blur 1 px, noise sigma 4; issue 13 section 2).  Usage:
 *   bench_locate [--frames N] [--repeat R] [--decimate D] [--threads T] */
#include <apriltag/apriltag.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locate_eval.h"
#include "vision.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One set of frames: blur < 0 keeps the default rendering. */
static int run_set(const char *label, int frames, int repeat, double decimate, int threads, double blur, double noise)
{
    printf("%s\n", label);
    printf("%-6s %10s %10s %7s %8s %9s %9s %10s %12s\n", "frame", "raw_ms", "locate_ms", "ratio", "recall",
           "rms_in", "p95_in", "face95_deg", "homog_rms_in");
    double sum_raw = 0, sum_loc = 0;
    int tot_exp = 0, tot_found = 0;
    double worst_rms = 0, worst_p95 = 0, worst_f95 = 0;
    for (int fi = 0; fi < frames; fi++) {
        le_options o;
        le_frame f;
        tt_err err = {0};
        le_options_default(&o);
        o.seed = 100 + (unsigned)fi;
        if (blur >= 0) {
            o.blur = blur;
            o.noise = noise;
        }
        if (le_frame_make(&o, &f, &err) != TT_OK) {
            fprintf(stderr, "render failed: %s\n", err.msg);
            return -1;
        }
        vision_detector_opts vo;
        vision_detector *det = NULL;
        vision_detector_opts_default(&vo);
        calib_rig_detector_opts(f.rig, &vo);
        vo.decimate = decimate;
        vo.nthreads = threads;
        if (vision_detector_create(&vo, &det, &err) != TT_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return -1;
        }
        apriltag_detector_t *td = vision_detector_raw(det);
        image_u8_t im = {f.image.width, f.image.height, f.image.stride, f.image.data};
        double *traw = calloc((size_t)repeat, sizeof *traw), *tloc = calloc((size_t)repeat, sizeof *tloc);
        le_score s = {0};
        for (int r = 0; r < repeat; r++) {
            /* Interleave baseline and locate so machine noise hits both. */
            double t0 = now_ms();
            zarray_t *z = apriltag_detector_detect(td, &im);
            traw[r] = now_ms() - t0;
            apriltag_detections_destroy(z);

            vision_detections ds = {0};
            calib_pose pose;
            calib_figure *figs = NULL;
            int n = 0;
            t0 = now_ms();
            if (vision_detect(det, &f.image, &ds, &err) != TT_OK || calib_pose_solve(f.rig, &ds, &pose, &err) != TT_OK ||
                calib_locate(f.rig, &pose, &ds, &figs, &n, &err) != TT_OK) {
                fprintf(stderr, "locate failed: %s\n", err.msg);
                return -1;
            }
            tloc[r] = now_ms() - t0;
            if (r == 0)
                le_score_figures(&f, figs, n, &pose, &ds, &s);
            free(figs);
            vision_detections_free(&ds);
        }
        qsort(traw, (size_t)repeat, sizeof *traw, cmpd);
        qsort(tloc, (size_t)repeat, sizeof *tloc, cmpd);
        double mr = traw[repeat / 2], ml = tloc[repeat / 2];
        printf("%-6d %10.1f %10.1f %7.3f %4d/%-3d %9.4f %9.4f %10.3f %12.3f\n", fi, mr, ml, ml / mr, s.found,
               s.expected, s.rms, s.p95, s.facing_p95, s.homography_rms);
        sum_raw += mr;
        sum_loc += ml;
        tot_exp += s.expected;
        tot_found += s.found;
        worst_rms = fmax(worst_rms, s.rms);
        worst_p95 = fmax(worst_p95, s.p95);
        worst_f95 = fmax(worst_f95, s.facing_p95);
        free(traw);
        free(tloc);
        vision_detector_destroy(det);
        le_frame_free(&f);
    }
    printf("total %s: raw %.1f ms/frame, locate %.1f ms/frame, ratio %.3f (target <= %s), recall %d/%d = %.2f%%%s, "
           "worst rms %.4f in (<= 0.01), worst p95 %.4f in (<= 0.02), worst facing p95 %.3f deg (<= 0.5)\n",
           label, sum_raw / frames, sum_loc / frames, sum_loc / sum_raw, blur >= 0 ? "1.5" : "1.2", tot_found, tot_exp,
           100.0 * tot_found / (tot_exp ? tot_exp : 1), blur >= 0 ? " (target >= 99.5%)" : "", worst_rms, worst_p95,
           worst_f95);
    return 0;
}

int main(int argc, char **argv)
{
    int frames = 3, repeat = 5, threads = 1;
    double decimate = 2;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--frames"))
            frames = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--repeat"))
            repeat = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--decimate"))
            decimate = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
    }
    if (frames < 1 || repeat < 1 || threads < 1) {
        fprintf(stderr, "usage: bench_locate [--frames N] [--repeat R] [--decimate D] [--threads T]\n");
        return 2;
    }
    printf("bench_locate: %d rendered 3840x2160 frames, 120 bases of 0.8\" at 3 mm, decimate %g, %d thread(s), "
           "median of %d runs\n",
           frames, decimate, threads, repeat);
    if (run_set("default frames (blur 0.8 px, noise 2)", frames, repeat, decimate, threads, -1, 0) != 0)
        return 1;
    /* issue 13 §2: blurry, noisy 4K frames */
    if (run_set("blurry frames (blur 1 px, noise 4)", frames, repeat, decimate, threads, 1.0, 4.0) != 0)
        return 1;
    return 0;
}
