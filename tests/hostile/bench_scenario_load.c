/* bench_scenario_load.c - loading a scenario at its limits (issue 15,
 * item 8).  Prints the time to check one polygon of N corners with the
 * grid against the all-pairs baseline (ratio), and how the load time grows
 * from N/2 to N corners (about 2 when near-linear).
 * Run: cmake --build build --target bench_scenario_load && build/tests/hostile/bench_scenario_load */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rules.h"
#include "rules_scenario.h"
#include "scen_gen.h"

static const char *const dirs[] = {TT_SOURCE, NULL};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double load_s(int corners, int pieces, int figures)
{
    json_t *j = scen_gen(corners, pieces, figures);
    rules_scenario *sc = NULL;
    tt_err err = {0};
    double t0 = now();
    tt_status st = rules_scenario_from_json(j, "bench", NULL, dirs, &sc, &err);
    double t = now() - t0;
    if (st != TT_OK) {
        fprintf(stderr, "bench_scenario_load: %s\n", err.msg);
        exit(1);
    }
    rules_scenario_destroy(sc);
    json_decref(j);
    return t;
}

int main(void)
{
    int n = RULES_MAX_CORNERS;
    rules_pt *v = malloc(sizeof *v * (size_t)n);
    for (int i = 0; i < n; i++) {
        v[i].x = (int64_t)((36 + 20 * cos(2 * M_PI * i / n)) * 10000);
        v[i].y = (int64_t)((24 + 20 * sin(2 * M_PI * i / n)) * 10000);
    }
    int e1, e2;
    double t0 = now();
    int a = rules_geom_poly_simple(v, n, &e1, &e2);
    double t_pairs = now() - t0;
    t0 = now();
    int b = rules_poly_simple_grid(v, n, &e1, &e2);
    double t_grid = now() - t0;
    free(v);
    if (a != 1 || b != 1) {
        fprintf(stderr, "bench_scenario_load: the round wood is not simple?\n");
        return 1;
    }
    printf("{\"bench\":\"poly_simple\",\"corners\":%d,\"all_pairs_ms\":%.2f,\"grid_ms\":%.2f,\"speedup\":%.1f}\n", n,
           t_pairs * 1e3, t_grid * 1e3, t_pairs / t_grid);
    double half = load_s(n / 2, 0, 0), full = load_s(n, 0, 0);
    printf("{\"bench\":\"scenario_load\",\"corners_half_ms\":%.2f,\"corners_full_ms\":%.2f,\"growth\":%.2f}\n",
           half * 1e3, full * 1e3, full / half);
    double lim = load_s(RULES_MAX_CORNERS, RULES_MAX_PIECES - 1, RULES_MAX_FIGURES);
    printf("{\"bench\":\"scenario_load_at_limits\",\"corners\":%d,\"pieces\":%d,\"figures\":%d,\"ms\":%.2f}\n",
           RULES_MAX_CORNERS, RULES_MAX_PIECES, RULES_MAX_FIGURES, lim * 1e3);
    return 0;
}
