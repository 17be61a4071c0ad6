/* bench_track_cams.c - issue 31's held-out table tracked live by two 4K
 * cameras: a 144x72 table, two 3840x2160 cameras overlapping by about 10",
 * 1" tags at 2.6-2.9 px per cell (cams_eval.h), one figure sliding across
 * the seam.  Frames are rendered into memory first, so both sides measure
 * detection and tracking, not decoding.  Printed, each against a baseline
 * from the same run:
 * - throughput: a round of both cameras (each camera's tracker, the live
 *   table fusing both, the hand-off windows; what game/game_cams.c does
 *   per round) against raw apriltag_detector_detect (decimate 2, 2
 *   threads) on one camera's frame: the ratio each camera gets at steady
 *   state (frames after the first), target >= 25x; and one camera alone
 *   tracked the same way (its own one-camera rig), as today;
 * - accuracy on the last frame (everything still): every figure found,
 *   rms error (target 0.01"), the overlap's figures reported once and
 *   their worst error (target 0.005");
 * - the slider: one id throughout, no "removed" or "appeared" after its
 *   first, frames it was not "seen".
 *   bench_track_cams [--frames N] [--seed S] [--threads T] [--cache DIR]
 * (--cache DIR keeps the rendered frames as raw PGM between runs). */
#include <apriltag/apriltag.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cams_eval.h"
#include "live.h"
#include "live_scale.h"
#include "tracker.h"

#define SLIDE_Y 36.0
#define SLIDE_X0 64.0 /* across the overlap (about 67 to 77), under an inch a frame */
#define SLIDE_X1 80.0

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int pgm_read(const char *path, tt_image *im)
{
    FILE *f = fopen(path, "rb");
    int w, h, mx, ok = 0;
    tt_err err = {0};
    if (f && fscanf(f, "P5 %d %d %d", &w, &h, &mx) == 3 && fgetc(f) != EOF && tt_image_alloc(im, w, h, 1, &err) == TT_OK)
        ok = fread(im->data, 1, (size_t)w * (size_t)h, f) == (size_t)w * (size_t)h;
    if (f)
        fclose(f);
    if (!ok)
        tt_image_free(im);
    return ok;
}

static void pgm_write(const char *path, const tt_image *im)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fprintf(f, "P5 %d %d 255\n", im->width, im->height);
    fwrite(im->data, 1, (size_t)im->width * (size_t)im->height, f);
    fclose(f);
}

static double slide_x(int f, int frames)
{
    int f0 = 2, f1 = frames - 4;
    return f <= f0 ? SLIDE_X0 : f >= f1 ? SLIDE_X1 : SLIDE_X0 + (f - f0) * (SLIDE_X1 - SLIDE_X0) / (f1 - f0);
}

typedef struct bench_cams {
    int ncams;
    const calib_rig *rig;
    track_live *live;
    vision_tracker *trk[CE_CAMS];
    track_live_scale scale[CE_CAMS];
} bench_cams;

static int bench_open(bench_cams *b, const calib_rig *rig, int ncams, int threads, tt_err *err)
{
    memset(b, 0, sizeof *b);
    b->ncams = ncams;
    b->rig = rig;
    for (int k = 0; k < ncams; k++) {
        vision_tracker_opts to;
        vision_tracker_opts_default(&to);
        calib_rig_detector_opts(rig, &to.det);
        to.threads = threads;
        track_live_scale_init(&b->scale[k]);
        if (vision_tracker_create(&to, &b->trk[k], err) != TT_OK)
            return -1;
    }
    return track_live_create(rig, NULL, &b->live, err) == TT_OK ? 0 : -1;
}

static void bench_close(bench_cams *b)
{
    track_live_destroy(b->live);
    for (int k = 0; k < b->ncams; k++)
        vision_tracker_destroy(b->trk[k]);
}

/* One round, as game__cams_track does it. */
static int bench_round(bench_cams *b, tt_image *const *frames, int f, const track_figure **figs, int *nf,
                       const track_event **evs, int *ne, tt_err *err)
{
    const vision_track *tr[CE_CAMS];
    int ntr[CE_CAMS], run[CE_CAMS], full[CE_CAMS] = {0}, posed;
    track_live_cam lc[CE_CAMS];
    for (int k = 0; k < b->ncams; k++)
        run[k] = 1;
    for (int pass = 0; pass < 2; pass++) {
        int again_any = 0;
        for (int k = 0; k < b->ncams; k++) {
            vision_tracker_stats vs;
            if (run[k] && vision_tracker_update(b->trk[k], frames[k], f, &tr[k], &ntr[k], &vs, err) != TT_OK)
                return -1;
            if (pass == 0)
                full[k] = vs.full_frame;
            lc[k] = (track_live_cam){tr[k], ntr[k], run[k] ? TRACK_CAM_NEW : TRACK_CAM_SAME};
        }
        if (track_live_update_cams(b->live, f, lc, figs, nf, evs, ne, &posed, err) != TT_OK)
            return -1;
        for (int k = 0; k < b->ncams; k++) {
            int again = 0;
            if (run[k] && track_live_scale_update_cam(&b->scale[k], b->live, k, b->trk[k], frames[k]->width,
                                                      frames[k]->height, &again, err) != TT_OK)
                return -1;
            run[k] = pass == 0 && again && full[k];
            again_any |= run[k];
        }
        if (!again_any)
            break;
    }
    for (int k = 0; k < b->ncams && b->ncams > 1; k++) {
        int rects[4 * VISION_TRACKER_MAX_LOOK];
        int n = track_live_handoff(b->live, k, frames[k]->width, frames[k]->height, rects, VISION_TRACKER_MAX_LOOK);
        vision_tracker_look(b->trk[k], rects, n);
    }
    return 0;
}

static const rnd_tag *truth_of(const ce_table *t, int id)
{
    for (int i = t->nanchors; i < t->ntags; i++)
        if (t->tags[i].id == id)
            return &t->tags[i];
    return NULL;
}

int main(int argc, char **argv)
{
    int frames = 24, threads = 2;
    unsigned seed = 31029;
    const char *cache = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--frames"))
            frames = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cache"))
            cache = argv[i + 1];
    }
    if (frames < 12 || threads < 1 || threads > 8) {
        fprintf(stderr, "usage: bench_track_cams [--frames N>=12] [--seed S] [--threads 1-8]\n");
        return 2;
    }
    tt_err err = {0};
    ce_options o;
    ce_table t;
    ce_options_default(&o);
    o.seed = seed;
    printf("bench_track_cams: rendering %d frames of two 3840x2160 cameras over a 144x72 table (seed %u)...\n",
           frames, seed);
    fflush(stdout);
    double tr0 = now_ms();
    if (ce_table_make(&o, &t, &err) != TT_OK) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return 1;
    }
    /* the slider: the last base, on a path cleared of the others */
    int m = t.nanchors;
    for (int i = t.nanchors; i < t.ntags - 1; i++)
        if (fabs(t.tags[i].y - SLIDE_Y) > 2.5 || t.tags[i].x < SLIDE_X0 - 2.5 || t.tags[i].x > SLIDE_X1 + 2.5)
            t.tags[m++] = t.tags[i];
    t.tags[m] = t.tags[t.ntags - 1];
    rnd_tag *slider = &t.tags[m];
    slider->y = SLIDE_Y;
    t.ntags = m + 1;
    t.scene.ntags = t.ntags;
    tt_image *fr[CE_CAMS];
    for (int k = 0; k < CE_CAMS; k++)
        fr[k] = calloc((size_t)frames, sizeof *fr[k]);
    for (int f = 0; f < frames; f++) {
        slider->x = slide_x(f, frames);
        for (int k = 0; k < CE_CAMS; k++) {
            char cp[600];
            if (cache)
                snprintf(cp, sizeof cp, "%s/cams_s%u_n%d_f%04d_c%d.pgm", cache, seed, frames, f, k);
            if (cache && pgm_read(cp, &fr[k][f]))
                continue;
            t.scene.seed = seed * 1000u + (unsigned)(2 * f + k);
            if (rnd_render_threads(&t.scene, &t.cams[k], 0, &fr[k][f], &err) != TT_OK) {
                fprintf(stderr, "render: %s\n", err.msg);
                return 1;
            }
            if (cache)
                pgm_write(cp, &fr[k][f]);
        }
    }
    printf("rendered in %.1f s\n", (now_ms() - tr0) / 1000);

    /* Baseline: raw libapriltag on each camera's frames. */
    vision_detector_opts vo;
    vision_detector *vd = NULL;
    vision_detector_opts_default(&vo);
    calib_rig_detector_opts(t.rig, &vo);
    vo.decimate = 2;
    vo.nthreads = 2;
    if (vision_detector_create(&vo, &vd, &err) != TT_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double raw_total = 0;
    for (int f = 0; f < frames; f++)
        for (int k = 0; k < CE_CAMS; k++) {
            image_u8_t im = {fr[k][f].width, fr[k][f].height, fr[k][f].stride, fr[k][f].data};
            double t0 = now_ms();
            zarray_t *z = apriltag_detector_detect(vision_detector_raw(vd), &im);
            raw_total += now_ms() - t0;
            apriltag_detections_destroy(z);
        }
    double raw_per = raw_total / (frames * CE_CAMS);

    /* One camera alone (camera 1's one-camera rig), as today. */
    calib_rig one;
    calib_rig_view(t.rig, 0, &one);
    bench_cams b1, b2;
    double one_total = 0, two_total = 0;
    const track_figure *figs;
    const track_event *evs;
    int nf, ne;
    if (bench_open(&b1, &one, 1, threads, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    for (int f = 0; f < frames; f++) {
        tt_image *one_frame[1] = {&fr[0][f]};
        double t0 = now_ms();
        if (bench_round(&b1, one_frame, f, &figs, &nf, &evs, &ne, &err) != 0) {
            fprintf(stderr, "one camera, frame %d: %s\n", f, err.msg);
            return 1;
        }
        if (f > 0)
            one_total += now_ms() - t0;
    }
    bench_close(&b1);

    /* Both cameras, one table. */
    if (bench_open(&b2, t.rig, CE_CAMS, threads, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    int slider_appeared = 0, slider_removed = 0, removed = 0, not_seen = 0, twice = 0;
    double slide_worst = 0;
    for (int f = 0; f < frames; f++) {
        tt_image *both[CE_CAMS] = {&fr[0][f], &fr[1][f]};
        double t0 = now_ms();
        if (bench_round(&b2, both, f, &figs, &nf, &evs, &ne, &err) != 0) {
            fprintf(stderr, "two cameras, frame %d: %s\n", f, err.msg);
            return 1;
        }
        if (f > 0)
            two_total += now_ms() - t0;
        for (int e = 0; e < ne; e++) {
            removed += evs[e].kind == TRACK_REMOVED;
            slider_removed += evs[e].kind == TRACK_REMOVED && evs[e].id == slider->id;
            slider_appeared += evs[e].kind == TRACK_APPEARED && evs[e].id == slider->id;
        }
        int n_slider = 0;
        for (int i = 0; i < nf; i++) {
            if (figs[i].id != slider->id)
                continue;
            n_slider++;
            if (figs[i].state != VISION_TAG_SEEN)
                not_seen++;
            else
                slide_worst = fmax(slide_worst, hypot(figs[i].x - slide_x(f, frames), figs[i].y - SLIDE_Y));
        }
        twice += n_slider > 1;
        not_seen += f > 0 && n_slider == 0;
    }
    /* The last frame: every figure against the truth. */
    slider->x = slide_x(frames - 1, frames);
    int expected = 0, found = 0, overlap = 0, spurious = 0;
    double sum = 0, omax = 0, osum = 0, emax = 0;
    for (int i = 0; i < nf; i++) {
        const rnd_tag *g = truth_of(&t, figs[i].id);
        if (!g) {
            spurious++;
            continue;
        }
        double e = hypot(figs[i].x - g->x, figs[i].y - g->y);
        sum += e * e;
        emax = fmax(emax, e);
        if (figs[i].seen_by == 3u) {
            overlap++;
            osum += e * e;
            omax = fmax(omax, e);
        }
        if (e > 0.01 && getenv("CE_DEBUG"))
            printf("  off: id %d at (%.2f, %.2f) by %.4f\" (seen by %u, err95 %.4f, z %.3f)\n", g->id, g->x, g->y, e,
                   figs[i].seen_by, figs[i].err95_in, figs[i].z_in);
    }
    for (int i = t.nanchors; i < t.ntags; i++) {
        int vis = rnd_tag_unoccluded(&t.scene, &t.cams[0], &t.tags[i]) ||
                  rnd_tag_unoccluded(&t.scene, &t.cams[1], &t.tags[i]);
        expected += vis;
        for (int j = 0; j < nf && vis; j++)
            if (figs[j].id == t.tags[i].id && figs[j].state == VISION_TAG_SEEN) {
                found++;
                break;
            }
    }
    int steady = frames - 1;
    double one_per = one_total / steady, two_per = two_total / steady;
    printf("raw apriltag_detector_detect (decimate 2, 2 threads), one 4K frame: %.1f ms\n", raw_per);
    printf("one camera tracked alone (baseline, as today): %.2f ms/frame, ratio %.1fx raw\n", one_per,
           raw_per / one_per);
    printf("two cameras tracked as one table (%d tracker threads each): %.2f ms a round = %.1f fps for each camera; "
           "each camera %.1fx raw (target >= 25x); a round costs %.2fx one camera alone\n",
           threads, two_per, 1000 / two_per, raw_per / two_per, two_per / one_per);
    printf("last frame: %d of %d figures found, %d spurious; rms %.4f\" (target 0.01\": %s), worst %.4f\"; %d in the "
           "overlap seen by both, reported once: rms %.4f\", worst %.4f\" (target 0.005\": %s)\n",
           found, expected, spurious, sqrt(sum / (nf ? nf : 1)), sqrt(sum / (nf ? nf : 1)) < 0.01 ? "met" : "NOT met",
           emax, overlap, sqrt(osum / (overlap ? overlap : 1)), omax, omax < 0.005 ? "met" : "NOT met");
    printf("slider across the seam (x %.0f to %.0f): appeared %d, removed %d (any figure: %d), frames not seen %d, "
           "twice in a frame %d, worst %.4f\" off while seen\n",
           SLIDE_X0, SLIDE_X1, slider_appeared, slider_removed, removed, not_seen, twice, slide_worst);
    bench_close(&b2);
    vision_detector_destroy(vd);
    for (int k = 0; k < CE_CAMS; k++) {
        for (int f = 0; f < frames; f++)
            tt_image_free(&fr[k][f]);
        free(fr[k]);
    }
    ce_table_free(&t);
    return 0;
}
