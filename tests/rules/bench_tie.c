/* bench_tie.c - how often answers say "too close to call" and whether they
 * say it when they should (issue 29's targets, on simulated located
 * positions; not a test: make benchmarks / --target bench_tie).
 *
 * Into the Breach! muskets (brackets 4 / 8 / 12", base edge to edge) on a
 * table with buildings.  For each shot: true positions and facings at
 * random; located ones drawn around them from the error model the answers
 * assume (isotropic normal, 95 % radius err95_in: sigma = err95 / 2.448;
 * facing sigma = facing_err95_deg / 1.96); the true answer from the true
 * positions, exact; the located answer from the located ones with their
 * errors.  Printed, per error level:
 *   flips: located bracket or sight differs from the true one;
 *   missed: a flip not called too close (target: none);
 *   far calls: too_close_to_call on shots whose true distance is more than
 *     3 x the 95th percentile distance error from every bracket edge
 *     (target: <= 1 %);
 *   the time per fire query with errors, against the same queries exact.
 * Usage: bench_tie [SHOTS [open]]; "open": no buildings (bracket calls
 * only, no lines of sight grazing a corner). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules.h"
#include "tt_json.h"

static const char *const g_dirs[] = {TT_SOURCE_DIR, NULL};

static uint64_t g_rng = 0x853C49E6748FEA9Bull;
static double rndu(void)
{
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(g_rng >> 11) / 9007199254740992.0;
}
static double gauss(void)
{
    double u = rndu(), v = rndu();
    return sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(2 * M_PI * v);
}
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *SCEN_OPEN =
    "{\"ruleset\": \"into-the-breach\", \"table\": {\"width_in\": 72, \"depth_in\": 48}, "
    "\"figures\": [{\"id\": \"f\", \"side\": \"red\", \"weapon\": \"musket\", \"x\": 10, \"y\": 10},"
    "{\"id\": \"t\", \"side\": \"blue\", \"x\": 20, \"y\": 20}]}";
static const char *SCEN =
    "{\"ruleset\": \"into-the-breach\", \"table\": {\"width_in\": 72, \"depth_in\": 48}, \"terrain\": ["
    "{\"id\": \"b1\", \"kind\": \"building\", \"polygon\": [[20, 10], [26, 10], [26, 16], [20, 16]]},"
    "{\"id\": \"b2\", \"kind\": \"building\", \"polygon\": [[40, 30], [44, 30], [44, 38], [40, 38]]},"
    "{\"id\": \"b3\", \"kind\": \"building\", \"polygon\": [[50, 8], [58, 8], [58, 12], [50, 12]]}],"
    "\"figures\": [{\"id\": \"f\", \"side\": \"red\", \"weapon\": \"musket\", \"x\": 10, \"y\": 10},"
    "{\"id\": \"t\", \"side\": \"blue\", \"x\": 20, \"y\": 20}]}";

typedef struct {
    char bracket[8];
    int visible, close, ok;
    double d;
} shot;

static shot ask(rules_scenario *sc)
{
    shot s = {"", 0, -1, 0, 0};
    char *line = rules_query_line(sc, "{\"q\":\"fire\",\"from\":\"f\",\"to\":\"t\"}");
    json_t *a = line ? json_loads(line, 0, NULL) : NULL;
    free(line);
    if (a && !json_object_get(a, "error")) {
        s.ok = 1;
        snprintf(s.bracket, sizeof s.bracket, "%s", json_string_value(json_object_get(a, "bracket")));
        s.visible = json_is_true(json_object_get(a, "visible"));
        const json_t *c = json_object_get(a, "too_close_to_call");
        s.close = c ? json_is_true(c) : -1;
        s.d = json_number_value(json_object_get(a, "distance_in"));
    }
    json_decref(a);
    return s;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    const char *text = argc > 2 && !strcmp(argv[2], "open") ? SCEN_OPEN : SCEN; /* "open": no buildings */
    const double levels[3][2] = {{0.01, 1}, {0.05, 3}, {0.15, 6}}; /* err95_in, facing_err95_deg */
    tt_err err = {0};
    for (int L = 0; L < 3; L++) {
        rules_scenario *truth = NULL, *meas = NULL;
        if (rules_scenario_parse(text, "bench", NULL, g_dirs, &truth, &err) ||
            rules_scenario_parse(text, "bench", NULL, g_dirs, &meas, &err)) {
            fprintf(stderr, "bench_tie: %s\n", err.msg);
            return 1;
        }
        double e = levels[L][0], fe = levels[L][1];
        rules_scenario_set_errors(meas, "f", e, 0, fe, &err);
        rules_scenario_set_errors(meas, "t", e, 0, fe, &err);
        double *derr = calloc((size_t)n, sizeof *derr), *dtrue = calloc((size_t)n, sizeof *dtrue);
        int *close = calloc((size_t)n, sizeof *close), *flip = calloc((size_t)n, sizeof *flip), m = 0;
        double t_err = 0, t_exact = 0;
        for (int k = 0; k < n * 4 && m < n; k++) {
            double fx = 2 + 68 * rndu(), fy = 2 + 44 * rndu(), ang = 2 * M_PI * rndu(), d = 1 + 14 * rndu();
            double tx = fx + d * cos(ang), ty = fy + d * sin(ang);
            double ff = ang * 180 / M_PI + 40 * (rndu() - 0.5), tf = 360 * rndu();
            if (tx < 1 || tx > 71 || ty < 1 || ty > 47)
                continue;
            if (rules_scenario_place(truth, "f", fx, fy, ff, &err) || rules_scenario_place(truth, "t", tx, ty, tf, &err))
                continue;
            const double s = e / 2.448, sf = fe / 1.96;
            if (rules_scenario_place(meas, "f", fmin(fmax(fx + s * gauss(), 0), 72), fmin(fmax(fy + s * gauss(), 0), 48),
                                     ff + sf * gauss(), &err) ||
                rules_scenario_place(meas, "t", fmin(fmax(tx + s * gauss(), 0), 72), fmin(fmax(ty + s * gauss(), 0), 48),
                                     tf + sf * gauss(), &err))
                continue;
            double t0 = now();
            shot a = ask(truth);
            double t1 = now();
            shot b = ask(meas);
            double t2 = now();
            if (!a.ok || !b.ok)
                continue; /* out of arc in one of them: an error, no answer */
            t_exact += t1 - t0;
            t_err += t2 - t1;
            dtrue[m] = a.d;
            derr[m] = fabs(b.d - a.d);
            flip[m] = strcmp(a.bracket, b.bracket) || a.visible != b.visible;
            close[m] = b.close;
            m++;
        }
        double *sorted = malloc((size_t)m * sizeof *sorted);
        memcpy(sorted, derr, (size_t)m * sizeof *sorted);
        qsort(sorted, (size_t)m, sizeof *sorted, cmpd);
        double p95 = m ? sorted[(int)(0.95 * (m - 1))] : 0;
        int flips = 0, missed = 0, far = 0, far_close = 0, calls = 0;
        for (int i = 0; i < m; i++) {
            flips += flip[i];
            missed += flip[i] && close[i] != 1;
            calls += close[i] == 1;
            const double edges[3] = {4, 8, 12};
            int is_far = 1;
            for (int j = 0; j < 3; j++)
                is_far &= fabs(dtrue[i] - edges[j]) > 3 * p95;
            far += is_far;
            far_close += is_far && close[i] == 1;
        }
        printf("err95_in %.2f\", facing %.0f deg: %d shots; distance error p95 %.4f\"; flips %d, missed %d (target 0); "
               "too close %d (%.1f %%); far from every edge %d, called too close %d (%.2f %%, target <= 1 %%); "
               "%.1f us a query with errors, %.1f us exact (x%.1f)\n",
               e, fe, m, p95, flips, missed, calls, 100.0 * calls / (m ? m : 1), far, far_close,
               100.0 * far_close / (far ? far : 1), 1e6 * t_err / (m ? m : 1), 1e6 * t_exact / (m ? m : 1),
               t_exact > 0 ? t_err / t_exact : 0);
        free(sorted), free(derr), free(dtrue), free(close), free(flip);
        rules_scenario_destroy(truth);
        rules_scenario_destroy(meas);
    }
    return 0;
}
