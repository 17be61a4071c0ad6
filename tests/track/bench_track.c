/* bench_track.c - live tracking throughput on rendered 3840x2160 sequences
 * where a few figures move, one is taken away and a hand passes over the
 * anchors, against raw apriltag_detector_detect (decimate 2, 2 threads) on
 * the same frames in the same run.  Frames are rendered into memory first,
 * so both sides measure detection/tracking, not decoding.
 *   bench_track [--frames N] [--threads T] [--cache DIR] */
#include <apriltag/apriltag.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live.h"
#include "seq.h"
#include "tracker.h"

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

int main(int argc, char **argv)
{
    seq_options o;
    seq s;
    tt_err err = {0};
    int threads = 2;
    const char *cache = NULL;
    seq_options_4k(&o);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--frames"))
            o.frames = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cache"))
            cache = argv[i + 1];
        else if (!strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
    }
    if (o.frames < 8 || threads < 1) {
        fprintf(stderr, "usage: bench_track [--frames N>=8] [--threads T]\n");
        return 2;
    }
    char dir[] = "/tmp/tt_bench_track_XXXXXX";
    if (!mkdtemp(dir) || seq_init(&o, &s, &err) != TT_OK || seq_write_rig(&s, dir, &err) != TT_OK) {
        fprintf(stderr, "setup failed: %s\n", err.msg);
        return 1;
    }
    char rigp[128];
    snprintf(rigp, sizeof rigp, "%s/rig.json", dir);
    calib_rig *rig = NULL;
    if (calib_rig_load(rigp, &rig, &err) != TT_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    printf("bench_track: rendering %d frames of 3840x2160 (%d bases of %.1f\", %d sliding, 1 taken away, a hand over "
           "an anchor)...\n",
           o.frames, o.nbases, o.base_size_in, o.moving);
    fflush(stdout);
    tt_image *fr = calloc((size_t)o.frames, sizeof *fr);
    double tr0 = now_ms();
    for (int f = 0; f < o.frames; f++) {
        /* --cache DIR keeps rendered frames as raw PGM between runs. */
        char cp[512];
        FILE *cf = NULL;
        if (cache) {
            snprintf(cp, sizeof cp, "%s/seq%d_frame_%04d.pgm", cache, o.frames, f); /* per sequence length */
            cf = fopen(cp, "rb");
        }
        if (cf) {
            int w, h, mx;
            if (fscanf(cf, "P5 %d %d %d", &w, &h, &mx) == 3 && fgetc(cf) != EOF &&
                tt_image_alloc(&fr[f], w, h, 1, &err) == TT_OK &&
                fread(fr[f].data, 1, (size_t)w * h, cf) == (size_t)w * h) {
                fclose(cf);
                continue;
            }
            fclose(cf);
            tt_image_free(&fr[f]);
        }
        if (seq_render(&s, f, &fr[f], &err) != TT_OK) {
            fprintf(stderr, "render: %s\n", err.msg);
            return 1;
        }
        if (cache && (cf = fopen(cp, "wb"))) {
            fprintf(cf, "P5 %d %d 255\n", fr[f].width, fr[f].height);
            fwrite(fr[f].data, 1, (size_t)fr[f].width * fr[f].height, cf);
            fclose(cf);
        }
    }
    printf("rendered in %.1f s\n", (now_ms() - tr0) / 1000);

    /* Baseline: raw libapriltag, decimate 2, 2 threads, same families. */
    vision_detector_opts vo;
    vision_detector *vd = NULL;
    vision_detector_opts_default(&vo);
    calib_rig_detector_opts(rig, &vo);
    vo.decimate = 2;
    vo.nthreads = 2;
    vision_detector_create(&vo, &vd, &err);
    apriltag_detector_t *td = vision_detector_raw(vd);
    double raw_total = 0;
    for (int f = 0; f < o.frames; f++) {
        image_u8_t im = {fr[f].width, fr[f].height, fr[f].stride, fr[f].data};
        double t0 = now_ms();
        zarray_t *z = apriltag_detector_detect(td, &im);
        raw_total += now_ms() - t0;
        apriltag_detections_destroy(z);
    }

    /* Tracker + live table. */
    vision_tracker_opts to;
    vision_tracker *trk = NULL;
    track_live *live = NULL;
    vision_tracker_opts_default(&to);
    calib_rig_detector_opts(rig, &to.det);
    to.threads = threads;
    if (vision_tracker_create(&to, &trk, &err) != TT_OK || track_live_create(rig, NULL, &live, &err) != TT_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double *lat = calloc((size_t)o.frames, sizeof *lat), trk_total = 0, full_ms = 0;
    long visible = 0, reported = 0, worst_frame_missing = 0;
    double min_frame_recall = 1, e2 = 0;
    long ne = 0;
    rnd_tag *tags = malloc(sizeof *tags * (size_t)s.ntags);
    /* Still-table jitter: per still figure, running sums of x, y. */
    int nstill = s.ntags - s.nanchors;
    double *sx = calloc((size_t)nstill, sizeof *sx), *sy = calloc((size_t)nstill, sizeof *sy);
    double *sxx = calloc((size_t)nstill, sizeof *sxx), *syy = calloc((size_t)nstill, sizeof *syy);
    int *sn = calloc((size_t)nstill, sizeof *sn);
    for (int f = 0; f < o.frames; f++) {
        const vision_track *tr;
        int n, nf, nev, posed;
        const track_figure *figs;
        const track_event *evs;
        vision_tracker_stats vs;
        double t0 = now_ms();
        if (vision_tracker_update(trk, &fr[f], f, &tr, &n, &vs, &err) != TT_OK ||
            track_live_update(live, f, tr, n, &figs, &nf, &evs, &nev, &posed, &err) != TT_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        lat[f] = now_ms() - t0;
        if (vs.full_frame)
            full_ms = lat[f];
        else
            trk_total += lat[f];
        /* Truth: every base tag the camera sees whole in this frame. */
        rnd_occluder occ[4];
        int nocc;
        int nt = seq_frame(&s, f, tags, occ, &nocc);
        rnd_scene sc = s.scene;
        sc.tags = tags;
        sc.ntags = nt;
        sc.occluders = occ;
        sc.noccluders = nocc;
        long fv = 0, fr_ok = 0;
        for (int k = s.nanchors; k < nt; k++) {
            if (!rnd_tag_unoccluded(&sc, &s.cam, &tags[k]))
                continue;
            fv++;
            for (int i = 0; i < nf; i++)
                if (figs[i].id == tags[k].id && figs[i].state == VISION_TAG_SEEN) {
                    double e = hypot(figs[i].x - tags[k].x, figs[i].y - tags[k].y);
                    if (e < 0.05)
                        fr_ok++;
                    e2 += e * e;
                    ne++;
                }
        }
        for (int i = 0; i < nf; i++) {
            int k = figs[i].id - 100; /* base ids start at 100 */
            if (k < o.moving + o.taken_away || k >= nstill || figs[i].state != VISION_TAG_SEEN)
                continue;
            sx[k] += figs[i].x;
            sy[k] += figs[i].y;
            sxx[k] += figs[i].x * figs[i].x;
            syy[k] += figs[i].y * figs[i].y;
            sn[k]++;
        }
        visible += fv;
        reported += fr_ok;
        if (fv && (double)fr_ok / fv < min_frame_recall)
            min_frame_recall = (double)fr_ok / fv;
        if (fv - fr_ok > worst_frame_missing)
            worst_frame_missing = fv - fr_ok;
    }
    int nt_frames = o.frames - 1; /* the first frame is the one full detection */
    double raw_per = raw_total / o.frames, trk_per = trk_total / nt_frames;
    qsort(lat + 1, (size_t)nt_frames, sizeof *lat, cmpd);
    printf("raw apriltag_detector_detect (decimate 2, 2 threads): %.1f ms/frame = %.1f fps\n", raw_per,
           1000 / raw_per);
    printf("tracker + mapping (%d threads):                        %.1f ms/frame = %.1f fps "
           "(first frame, full detection: %.1f ms)\n",
           threads, trk_per, 1000 / trk_per, full_ms);
    printf("throughput ratio tracker/raw: %.2fx (target >= 4x); fps target >= 30\n", raw_per / trk_per);
    printf("processing latency p50 %.1f ms, p95 %.1f ms (target p95 <= 50 ms incl. capture queue)\n",
           lat[1 + nt_frames / 2], lat[1 + (int)ceil(0.95 * nt_frames) - 1]);
    printf("visible tags reported within 0.05\": %ld/%ld = %.3f%%, worst frame %.3f%% (target >= 99.5%%), "
           "position rms %.4f in\n",
           reported, visible, 100.0 * reported / visible, 100 * min_frame_recall, sqrt(e2 / (ne ? ne : 1)));
    double worst_sd = 0;
    int nsd = 0;
    for (int k = 0; k < nstill; k++) {
        if (sn[k] < o.frames / 2)
            continue;
        double vx = sxx[k] / sn[k] - (sx[k] / sn[k]) * (sx[k] / sn[k]);
        double vy = syy[k] / sn[k] - (sy[k] / sn[k]) * (sy[k] / sn[k]);
        worst_sd = fmax(worst_sd, sqrt(fmax(0, vx) + fmax(0, vy)));
        nsd++;
    }
    printf("still figures: worst position standard deviation %.5f in over the run (%d figures; target <= 0.005)\n",
           worst_sd, nsd);
    free(sx);
    free(sy);
    free(sxx);
    free(syy);
    free(sn);
    free(tags);
    free(lat);
    for (int f = 0; f < o.frames; f++)
        tt_image_free(&fr[f]);
    free(fr);
    track_live_destroy(live);
    vision_tracker_destroy(trk);
    vision_detector_destroy(vd);
    calib_rig_destroy(rig);
    seq_free(&s);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
