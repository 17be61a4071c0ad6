/* bench_render.c - renderer benchmark (not a test): render time of the
 * default 4K scene, and how well libapriltag's corners (decimate 1,
 * refine_edges 1, minus 0.5 px) agree with rnd_project(rnd_tag_corners) on
 * every unoccluded tag of it.
 *
 *   bench_render [--width W --height H --f-px F --blur S --noise S
 *                 --supersample N --hands N --frames N --seed S]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <apriltag/apriltag.h>
#include <apriltag/tag36h11.h>

#include "render.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int width = 3840, height = 2160, ss = 3, hands = 0, frames = 3;
    double f_px = 2900, blur = 0, noise = 0;
    unsigned seed = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--width"))
            width = atoi(v);
        else if (!strcmp(a, "--height"))
            height = atoi(v);
        else if (!strcmp(a, "--f-px"))
            f_px = atof(v);
        else if (!strcmp(a, "--blur"))
            blur = atof(v);
        else if (!strcmp(a, "--noise"))
            noise = atof(v);
        else if (!strcmp(a, "--supersample"))
            ss = atoi(v);
        else if (!strcmp(a, "--hands"))
            hands = atoi(v);
        else if (!strcmp(a, "--frames"))
            frames = atoi(v);
        else if (!strcmp(a, "--seed"))
            seed = (unsigned)atoi(v);
        else {
            fprintf(stderr, "bench_render: unknown option %s\n", a);
            return 2;
        }
    }
    apriltag_family_t *fam = tag36h11_create();
    apriltag_detector_t *td = apriltag_detector_create();
    apriltag_detector_add_family_bits(td, fam, 2);
    td->quad_decimate = 1;
    td->refine_edges = 1;
    td->nthreads = 2;

    size_t cap = (size_t)frames * 128 * 4;
    double *errs = malloc(cap * sizeof *errs);
    size_t nerr = 0;
    double sum2 = 0, tsum = 0, tmin = 1e9, csum = 0;
    int expected = 0, found = 0;
    for (int fr = 0; fr < frames; fr++) {
        rnd_camera cam;
        double tilt = 8 * M_PI / 180;
        rnd_camera_look_at(&cam, width, height, f_px, -0.08, 0.02, 36, 24 - 84 * tan(tilt), 84, 36, 24);
        rnd_tag tags[4 + 120];
        int n = rnd_standard_tags(tags, 4, 120, 0.8, 3, 72, 48, seed + fr);
        rnd_occluder occ[16];
        uint64_t rng = rnd_rng_seed(seed + fr + 1000);
        if (hands > 16)
            hands = 16;
        for (int h = 0; h < hands; h++)
            occ[h] = (rnd_occluder){4 + 64 * rnd_rng_uniform(&rng), 4 + 40 * rnd_rng_uniform(&rng), 3, 1.8, 3.5,
                                    360 * rnd_rng_uniform(&rng), 170};
        rnd_scene sc = {.width_in = 72, .depth_in = 48, .felt_gray = 90, .floor_gray = 40, .tags = tags, .ntags = n,
                        .occluders = occ, .noccluders = hands, .light_gradient = 0.25, .ambient = 1,
                        .blur_sigma_px = blur, .noise_sigma = noise, .supersample = ss, .seed = seed + fr};
        tt_image im;
        tt_err err = {0};
        double t0 = now_s(), c0 = cpu_s();
        if (rnd_render(&sc, &cam, &im, &err) != TT_OK) {
            fprintf(stderr, "bench_render: %s\n", err.msg);
            return 1;
        }
        double dt = now_s() - t0;
        csum += cpu_s() - c0;
        tsum += dt;
        tmin = fmin(tmin, dt);
        image_u8_t img = {.width = im.width, .height = im.height, .stride = im.stride, .buf = im.data};
        zarray_t *dets = apriltag_detector_detect(td, &img);
        for (int t = 0; t < n; t++) {
            if (!rnd_tag_unoccluded(&sc, &cam, &tags[t]))
                continue;
            expected++;
            apriltag_detection_t *a = NULL;
            for (int k = 0; k < zarray_size(dets); k++) {
                apriltag_detection_t *d;
                zarray_get(dets, k, &d);
                if (d->id == tags[t].id)
                    a = d;
            }
            if (!a)
                continue;
            found++;
            double c[4][2];
            rnd_tag_corners(&tags[t], c);
            for (int k = 0; k < 4; k++) {
                double px[2];
                rnd_project(&cam, c[k][0], c[k][1], tags[t].height_in, px);
                double e = hypot(a->p[k][0] - 0.5 - px[0], a->p[k][1] - 0.5 - px[1]);
                sum2 += e * e;
                if (nerr < cap)
                    errs[nerr++] = e;
            }
        }
        apriltag_detections_destroy(dets);
        tt_image_free(&im);
    }
    qsort(errs, nerr, sizeof *errs, cmp_double);
    printf("{\"image\":[%d,%d],\"supersample\":%d,\"blur\":%g,\"noise\":%g,\"frames\":%d,"
           "\"render_s_mean\":%.3f,\"render_s_min\":%.3f,\"render_cpu_s_mean\":%.3f,"
           "\"tags_found\":%d,\"tags_expected\":%d,"
           "\"corner_rms_px\":%.4f,\"corner_p95_px\":%.4f,\"corner_max_px\":%.4f}\n",
           width, height, ss, blur, noise, frames, tsum / frames, tmin, csum / frames, found, expected,
           nerr ? sqrt(sum2 / nerr) : 0.0, nerr ? errs[(size_t)(0.95 * (nerr - 1))] : 0.0,
           nerr ? errs[nerr - 1] : 0.0);
    free(errs);
    apriltag_detector_destroy(td);
    tag36h11_destroy(fam);
    rnd_texture_cache_clear();
    return 0;
}
