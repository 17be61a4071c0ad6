/* bench_err.c - is each located figure's error honest?  Issue 29's
 * conditions, rendered: the camera 60" above a 72x48 table; 4K with 0.8"
 * tags or 1080p with 1.1" tags; a 2" hill whose sides slope at 27-37
 * degrees and a building with a flat 4" roof; sharp and blurry.  For each
 * condition (resolution x blur x where the figure stands: felt, hill top,
 * slope, roof) it prints
 *   - coverage: the share of figures whose true position (its base's
 *     centre) lies within err95_in, with locate run WITHOUT a scenario;
 *   - the median err95_in beside the actual errors' 95th percentile;
 *   - the same coverage for z_err95_in and facing_err95_deg;
 *   - with the scenario declared: the actual errors' p95 and max, against
 *     the issue's targets for declared slopes and roofs;
 * then coverage over all figures and the cost of the model.  Seeds
 * 1..3 were used to fit the constants (calib/calib_err.c); the default run
 * measures seeds 201..(200+N), never used for fitting.  Usage:
 *   bench_err [--seeds FIRST COUNT] [--res 4k|1080p|both] [--dump FILE]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locate_eval.h"

enum { RES_4K, RES_1080, NRES };
enum { BL_SHARP, BL_BLUR, NBLUR };
enum { CL_FELT, CL_TOP, CL_SLOPE, CL_ROOF, NCLASS };
static const char *res_name[NRES] = {"4K", "1080p"};
static const char *blur_name[NBLUR] = {"sharp", "blur"};
static const char *class_name[NCLASS] = {"felt", "hill top", "slope", "roof"};

#define MAXV 20000
typedef struct acc {
    int expected, found, covered, z_cov, f_cov;
    int nd;
    double e95[MAXV], err[MAXV], derr[MAXV];
} acc;

static acc A[NRES][NBLUR][NCLASS];

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(const double *v, int n, double q)
{
    if (n == 0)
        return NAN;
    double *c = malloc(sizeof(double) * (size_t)n);
    memcpy(c, v, sizeof(double) * (size_t)n);
    qsort(c, (size_t)n, sizeof *c, cmpd);
    int k = (int)ceil(q * n) - 1;
    double r = c[k < 0 ? 0 : k];
    free(c);
    return r;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double t_locate, t_detect;

static const calib_figure *find(const calib_figure *figs, int n, const rnd_tag *t)
{
    for (int i = 0; i < n; i++)
        if (figs[i].id == t->id && !strcmp(figs[i].family, t->family))
            return &figs[i];
    return NULL;
}

static int run_frame(int res, int blur, int roof, unsigned seed, FILE *dump)
{
    le_options o;
    le_frame f;
    tt_err err = {0};
    le_options_issue29(&o, res == RES_4K, roof, blur == BL_BLUR, seed);
    if (le_frame_make(&o, &f, &err) != TT_OK) {
        fprintf(stderr, "render failed: %s\n", err.msg);
        return -1;
    }
    vision_detections ds = {0};
    calib_pose pose;
    calib_figure *figs = NULL, *dfigs = NULL;
    int n = 0, dn = 0;
    tt_ground g = {le_ground_at, &f};
    double t0 = now_ms();
    if (le_detect(&f, &ds, &pose, NULL, &err) != TT_OK) {
        fprintf(stderr, "detect failed: %s\n", err.msg);
        le_frame_free(&f);
        return -1;
    }
    double t1 = now_ms();
    if (calib_locate_ground(f.rig, &pose, &ds, NULL, &figs, &n, &err) != TT_OK ||
        calib_locate_ground(f.rig, &pose, &ds, &g, &dfigs, &dn, &err) != TT_OK) {
        fprintf(stderr, "locate failed: %s\n", err.msg);
        return -1;
    }
    double t2 = now_ms();
    t_detect += t1 - t0;
    t_locate += (t2 - t1) / 2;
    for (int t = f.nanchors; t < f.ntags; t++) {
        const rnd_tag *tag = &f.tags[t];
        if (!rnd_tag_unoccluded(&f.scene, &f.cam, tag))
            continue;
        double xy[2];
        le_truth_xy(&f, tag, xy);
        double zt = rnd_ground_height(&f.scene, xy[0], xy[1]);
        int cl = le_where(&f, tag, roof);
        acc *a = &A[res][blur][cl];
        a->expected++;
        const calib_figure *h = find(figs, n, tag), *d = find(dfigs, dn, tag);
        if (!h)
            continue;
        double e = hypot(h->x - xy[0], h->y - xy[1]);
        double fe = fabs(remainder(h->facing_deg - tag->facing_deg, 360.0));
        a->found++;
        a->covered += e <= h->err95_in;
        a->z_cov += fabs(h->z_in - zt) <= h->z_err95_in;
        a->f_cov += fe <= h->facing_err95_deg;
        if (a->nd < MAXV) {
            a->e95[a->nd] = h->err95_in;
            a->err[a->nd] = e;
            a->derr[a->nd] = d ? hypot(d->x - xy[0], d->y - xy[1]) : NAN;
            a->nd++;
        }
        if (dump)
            fprintf(dump,
                    "%s,%s,%s,%u,%d,%.3f,%.1f,%.2f,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f\n",
                    res_name[res], blur_name[blur], class_name[cl], seed, tag->id, h->px_per_cell,
                    ds.items[h->det_index].margin, h->tilt_deg, (int)h->height, h->xy_per_z, e, h->err95_in,
                    h->xy_err95_flat_in, fabs(h->z_in - zt), h->z_err95_in, fe, h->facing_err95_deg,
                    h->measured_in - zt, h->measured_err95_in, d ? hypot(d->x - xy[0], d->y - xy[1]) : -1,
                    pose.rms_px);
    }
    free(figs);
    free(dfigs);
    vision_detections_free(&ds);
    le_frame_free(&f);
    return 0;
}

/* The fewest covered of n that a model covering 90% gives with
 * probability 1% (normal approximation). */
static double plausible_low(int n)
{
    return n ? 0.90 - 2.326 * sqrt(0.09 / n) : 0;
}

int main(int argc, char **argv)
{
    unsigned first = 201, count = 3;
    int only = -1;
    FILE *dump = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seeds") && i + 2 < argc) {
            first = (unsigned)atoi(argv[++i]);
            count = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--res") && i + 1 < argc) {
            i++;
            only = !strcmp(argv[i], "4k") ? RES_4K : !strcmp(argv[i], "1080p") ? RES_1080 : -1;
        } else if (!strcmp(argv[i], "--dump") && i + 1 < argc) {
            dump = fopen(argv[++i], "w");
            if (!dump) {
                fprintf(stderr, "cannot write %s\n", argv[i]);
                return 2;
            }
            fprintf(dump, "res,blur,class,seed,id,ppc,margin,tilt,height,xy_per_z,err,err95,flat95,zerr,zerr95,"
                          "ferr,ferr95,dmeas,meas95,declared_err,pose_rms\n");
        } else {
            fprintf(stderr, "usage: bench_err [--seeds FIRST COUNT] [--res 4k|1080p] [--dump FILE]\n");
            return 2;
        }
    }
    printf("bench_err: seeds %u..%u (the model was fitted on seeds 1..3)\n", first, first + count - 1);
    for (unsigned s = first; s < first + count; s++)
        for (int res = 0; res < NRES; res++)
            for (int blur = 0; blur < NBLUR; blur++)
                for (int roof = 0; roof < 2; roof++)
                    if ((only < 0 || only == res) && run_frame(res, blur, roof, s, dump) != 0)
                        return 1;
    if (dump)
        fclose(dump);
    printf("%-6s %-5s %-8s %5s %5s %8s %6s %9s %9s %6s %6s %9s %9s %s\n", "res", "blur", "where", "seen", "found",
           "coverage", "90%ok", "med_e95", "p95_err", "z_cov", "f_cov", "decl_p95", "decl_max", "checks");
    int tn = 0, tc = 0, bad = 0;
    for (int res = 0; res < NRES; res++)
        for (int blur = 0; blur < NBLUR; blur++)
            for (int cl = 0; cl < NCLASS; cl++) {
                acc *a = &A[res][blur][cl];
                if (!a->expected)
                    continue;
                double cov = a->found ? (double)a->covered / a->found : NAN;
                double med = pct(a->e95, a->nd, 0.5), p95 = pct(a->err, a->nd, 0.95);
                int ok90 = cov >= plausible_low(a->found);
                int padded = med > 2 * p95;
                double dp95 = pct(a->derr, a->nd, 0.95), dmax = pct(a->derr, a->nd, 1.0);
                double tgt = cl == CL_SLOPE ? (res == RES_4K ? 0.05 : 0.15) : cl == CL_ROOF ? (res == RES_4K ? 0.02 : 0.05) : 0;
                char checks[160] = "";
                if (!ok90)
                    strcat(checks, " UNDER-COVERED");
                if (padded)
                    strcat(checks, " PADDED(med>2xp95)");
                if (tgt > 0 && dmax > tgt)
                    snprintf(checks + strlen(checks), sizeof checks - strlen(checks), " declared max > %.2f", tgt);
                if (res == RES_4K && cl == CL_FELT && blur == BL_SHARP && med > 0.01)
                    strcat(checks, " felt-4K median > 0.01");
                if (res == RES_4K && a->found < a->expected)
                    strcat(checks, " MISSED");
                bad += !ok90 || padded;
                printf("%-6s %-5s %-8s %5d %5d %7.1f%% %6s %9.4f %9.4f %5.1f%% %5.1f%% %9.4f %9.4f%s\n", res_name[res],
                       blur_name[blur], class_name[cl], a->expected, a->found, 100 * cov, ok90 ? "yes" : "NO", med,
                       p95, a->found ? 100.0 * a->z_cov / a->found : 0, a->found ? 100.0 * a->f_cov / a->found : 0,
                       dp95, dmax, checks[0] ? checks : " ok");
                tn += a->found;
                tc += a->covered;
            }
    printf("all figures: %d found, coverage %.1f%% (target 90%%-99.5%%)\n", tn, tn ? 100.0 * tc / tn : 0);
    printf("locate (mapping + errors) %.1f ms per frame beside detection %.1f ms: %.2f%% of it\n",
           t_locate / (count * 8.0), t_detect / (count * 8.0), 100 * t_locate / (t_detect > 0 ? t_detect : 1));
    (void)bad;
    return 0;
}
