/* bench_rules.c - rules engine speed on one core, with the brute-force
 * baseline measured in the same run (not a test: make bench / --target
 * benchmarks).  500 figures, 2,000 terrain edges on a 72 x 48 table:
 *   all 124,750 pairwise LOS checks   target <= 15 ms
 *     (elevation on: hills raise the figures on them over lower pieces)
 *   one blast / grape query           target <= 5 us
 *     (and a Thin Red Line gun's grape at 16 stands, each scored after
 *     the modifiers fire counts: formation, quality, cover; same target)
 *   one visibility polygon            target <= 0.3 ms
 * and a 24-stand Thin Red Line battalion firing at another (the 'fire'
 * query naming units), against 24 x 24 one-figure fire queries:
 *                                     target <= 50 us
 * "bench_rules slopes": the LOS rows with the hills' sides sloped (1in). */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules.h"

static uint64_t g_rng = 12345;
static double rndu(double lo, double hi)
{
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(g_rng >> 11) / 9007199254740992.0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Two battalions of 24 stands (12 wide, 2 deep) 8in apart, 200 other
 * stands and 200 buildings away from them, under The Thin Red Line (stands
 * block fire, the rear rank cannot fire through the front one: 12 firers)
 * or All the King's Men (the front two ranks fire: 24 firers; the answer
 * adds the bonus dice and the defender's roll). */
static int bench_unit_fire(const char *const *dirs, const char *ruleset, const char *weapon, size_t want_firers,
                           size_t want_targets)
{
    json_t *root = json_pack("{s:s, s:{s:i, s:i}}", "ruleset", ruleset, "table", "width_in", 72, "depth_in", 48);
    json_t *ter = json_array(), *figs = json_array();
    for (int i = 0; i < 200; i++) {
        char id[16];
        double x = rndu(1, 69), y = rndu(36, 46), w = rndu(0.3, 1.5), h = rndu(0.3, 1.5);
        snprintf(id, sizeof id, "b%d", i);
        json_array_append_new(ter, json_pack("{s:s, s:s, s:[[f,f],[f,f],[f,f],[f,f]]}", "id", id, "kind", "building",
                                             "polygon", x, y, x + w, y, x + w, y + h, x, y + h));
    }
    for (int u = 0; u < 2; u++)
        for (int k = 0; k < 24; k++) {
            char id[16];
            snprintf(id, sizeof id, "%c%d", u ? 'e' : 'a', k);
            double x = 12 + 2 * (k % 12), y = u ? 28 + 1.25 * (k / 12) : 20 - 1.25 * (k / 12);
            json_array_append_new(figs, json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f}", "id", id, "side", u ? "red" : "blue",
                                                  "unit", u ? "enemy" : "ours", "weapon", weapon, "x", x, "y", y,
                                                  "facing_deg", u ? 270.0 : 90.0));
        }
    for (int i = 0; i < 200; i++) {
        char id[16];
        snprintf(id, sizeof id, "o%d", i);
        json_array_append_new(figs, json_pack("{s:s, s:s, s:f, s:f}", "id", id, "side", i % 2 ? "red" : "blue", "x",
                                              rndu(1, 71), "y", rndu(1, 11)));
    }
    json_object_set_new(root, "terrain", ter);
    json_object_set_new(root, "figures", figs);
    rules_scenario *sc = NULL;
    tt_err err = {0};
    if (rules_scenario_from_json(root, "bench-units", NULL, dirs, &sc, &err) != TT_OK) {
        fprintf(stderr, "bench_rules: %s\n", err.msg);
        json_decref(root);
        return 1;
    }
    json_decref(root);
    rules_result r;
    int reps = 2000, dice = 0;
    size_t firers = 0, targets = 0;
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        for (int k = 0; k < reps; k++) {
            if (rules_fire(sc, "ours", "enemy", NULL, &r, &err)) {
                fprintf(stderr, "bench_rules: %s\n", err.msg);
                return 1;
            }
            dice = r.dice;
            firers = r.n_firers;
            targets = r.n_ids;
            rules_result_free(&r);
        }
        double dt = (now() - t0) / reps;
        if (dt < best)
            best = dt;
    }
    /* baseline: every stand asked at every stand, one query each */
    double t0 = now();
    int base_reps = 20, can = 0;
    for (int k = 0; k < base_reps; k++) {
        can = 0;
        for (int a = 0; a < 24; a++)
            for (int e = 0; e < 24; e++) {
                char fa[8], fe[8];
                snprintf(fa, sizeof fa, "a%d", a);
                snprintf(fe, sizeof fe, "e%d", e);
                rules_fire(sc, fa, fe, NULL, &r, &err);
                can += r.to_hit != -1;
                rules_result_free(&r);
            }
    }
    double base = (now() - t0) / base_reps;
    printf("unit fire, 24 at 24:     %8.2f us  (%s: %zu firers, %zu targets, %d dice)  24x24 figure queries %8.1f us  "
           "ratio %.0fx  target <= 50 us  %s\n",
           best * 1e6, ruleset, firers, targets, dice, base * 1e6, base / best, best <= 50e-6 ? "OK" : "SLOW");
    rules_scenario_destroy(sc);
    if (firers != want_firers || targets != want_targets || !can) {
        fprintf(stderr, "bench_rules: %s unit fire answered %zu firers and %zu targets, want %zu at %zu\n", ruleset,
                firers, targets, want_firers, want_targets);
        return 1;
    }
    return 0;
}

/* A veteran Thin Red Line light gun's grape at 16 enemy stands 5-10in in
 * front of it (units of 2 in column, square, line or loose order, walls
 * among them), 200 stands and 100 walls elsewhere: each stand's score
 * after the modifiers fire counts (rules_fire_mods). */
static int bench_trl_grape(const char *const *dirs)
{
    static const char *const forms[] = {"column", "square", "line", "loose"};
    json_t *root = json_pack("{s:s, s:{s:i, s:i}}", "ruleset", "thin-red-line", "table", "width_in", 72, "depth_in", 48);
    json_t *ter = json_array(), *figs = json_array();
    for (int i = 0; i < 108; i++) {
        char id[16];
        double x = i < 8 ? 14.5 + (i % 2) * 3 : rndu(30, 70), y = i < 8 ? 17 + 4 * (i / 2) : rndu(1, 47);
        snprintf(id, sizeof id, "w%d", i);
        json_array_append_new(ter, json_pack("{s:s, s:s, s:[[f,f],[f,f]]}", "id", id, "kind", "wall", "line", x, y, x,
                                             y + 1.5));
    }
    json_array_append_new(figs, json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f}", "id", "gun", "side", "blue", "type",
                                          "artillery", "weapon", "light-artillery", "quality", "veteran", "x", 9.0, "y",
                                          24.0, "facing_deg", 0.0));
    for (int k = 0; k < 16; k++) {
        char id[16], unit[16];
        snprintf(id, sizeof id, "t%d", k);
        snprintf(unit, sizeof unit, "u%d", k / 2);
        const char *fm = forms[(k / 2) % 4];
        json_array_append_new(figs, json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f}", "id", id, "side", "red", "unit",
                                              unit, "type", strcmp(fm, "loose") ? "foot" : "light", "formation", fm, "x",
                                              16.0 + 3 * (k % 2), "y", 19.0 + 1.5 * (k / 2), "facing_deg",
                                              180.0));
    }
    for (int i = 0; i < 200; i++) {
        char id[16];
        snprintf(id, sizeof id, "o%d", i);
        json_array_append_new(figs, json_pack("{s:s, s:s, s:f, s:f}", "id", id, "side", i % 2 ? "red" : "blue", "x",
                                              rndu(30, 71), "y", rndu(1, 47)));
    }
    json_object_set_new(root, "terrain", ter);
    json_object_set_new(root, "figures", figs);
    rules_scenario *sc = NULL;
    tt_err err = {0};
    if (rules_scenario_from_json(root, "bench-grape", NULL, dirs, &sc, &err) != TT_OK) {
        fprintf(stderr, "bench_rules: %s\n", err.msg);
        json_decref(root);
        return 1;
    }
    json_decref(root);
    rules_result r;
    int reps = 20000;
    size_t targets = 0, shots = 0;
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        for (int k = 0; k < reps; k++) {
            if (rules_grape(sc, "gun", &r, &err)) {
                fprintf(stderr, "bench_rules: %s\n", err.msg);
                return 1;
            }
            targets = r.n_ids;
            shots = r.n_shots;
            rules_result_free(&r);
        }
        double dt = (now() - t0) / reps;
        if (dt < best)
            best = dt;
    }
    printf("grape query, TRL:        %8.2f us  (%zu stands, each after fire's modifiers)             target <= 5 us  %s\n",
           best * 1e6, targets, best <= 5e-6 ? "OK" : "SLOW");
    rules_scenario_destroy(sc);
    if (targets != 16 || shots != 16) {
        fprintf(stderr, "bench_rules: TRL grape answered %zu targets and %zu shots, want 16\n", targets, shots);
        return 1;
    }
    return 0;
}

static int bench_units(const char *const *dirs)
{
    /* All the King's Men measures from the unit's front-centre (L488): the
     * 4 corner stands of the enemy's 2 ranks of 12 are 12.4in from it */
    return bench_trl_grape(dirs) || bench_unit_fire(dirs, "thin-red-line", "musket", 12, 24) ||
           bench_unit_fire(dirs, "all-the-kings-men", "infantry", 24, 20);
}

int main(int argc, char **argv)
{
    int nfig = 500, nbld = 500; /* 4 edges each: 2,000 edges */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    sched_setaffinity(0, sizeof set, &set); /* one core */
    const char *dirs0[] = {getenv("TABLETRACK_DATA") ? getenv("TABLETRACK_DATA") : "", TT_SOURCE_DIR, NULL};
    if (argc > 1 && !strcmp(argv[1], "units")) /* only the unit fire (for profiling) */
        return bench_units(dirs0);
    int slopes = argc > 1 && !strcmp(argv[1], "slopes"); /* the hills sloped: LOS rows only */

    json_t *root = json_pack("{s:s, s:{s:i, s:i}}", "ruleset", "into-the-breach", "table", "width_in", 72,
                             "depth_in", 48);
    json_t *ter = json_array(), *figs = json_array();
    /* with elevation: 3 in 5 pieces are buildings (3in), 1 in 5 hills
     * (2in, figures on them see over lower pieces), 1 in 5 walls that
     * block sight (0.5in) */
    for (int i = 0; i < nbld; i++) {
        char id[16];
        double x = rndu(1, 69), y = rndu(1, 45), w = rndu(0.3, 1.5), h = rndu(0.3, 1.5);
        snprintf(id, sizeof id, "b%d", i);
        if (i % 5 == 4)
            json_array_append_new(ter, json_pack("{s:s, s:s, s:b, s:[[f,f],[f,f],[f,f],[f,f],[f,f]]}", "id", id, "kind",
                                                 "wall", "blocks_los", 1, "line", x, y, x + w, y, x + w, y + h, x,
                                                 y + h, x + w / 2, y + h / 2));
        else if (i % 5 == 3 && slopes) /* "slopes": the same hills with 1in sloped sides */
            json_array_append_new(ter, json_pack("{s:s, s:s, s:f, s:[[f,f],[f,f],[f,f],[f,f]]}", "id", id, "kind",
                                                 "hill", "slope_in", 1.0, "polygon", x, y, x + 3 * w, y, x + 3 * w,
                                                 y + 3 * h, x, y + 3 * h));
        else if (i % 5 == 3)
            json_array_append_new(ter, json_pack("{s:s, s:s, s:[[f,f],[f,f],[f,f],[f,f]]}", "id", id, "kind", "hill",
                                                 "polygon", x, y, x + 3 * w, y, x + 3 * w, y + 3 * h, x, y + 3 * h));
        else
            json_array_append_new(ter, json_pack("{s:s, s:s, s:[[f,f],[f,f],[f,f],[f,f]]}", "id", id, "kind",
                                                 "building", "polygon", x, y, x + w, y, x + w, y + h, x, y + h));
    }
    for (int i = 0; i < nfig; i++) {
        char id[16];
        snprintf(id, sizeof id, "f%d", i);
        json_array_append_new(figs, json_pack("{s:s, s:s, s:s, s:f, s:f, s:f}", "id", id, "side", i % 2 ? "a" : "b",
                                              "weapon", i == 0 ? "artillery" : "musket", "x", rndu(0.5, 71.5), "y",
                                              rndu(0.5, 47.5), "facing_deg", rndu(-180, 180)));
    }
    json_object_set_new(root, "terrain", ter);
    json_object_set_new(root, "figures", figs);
    const char *dirs[] = {getenv("TABLETRACK_DATA") ? getenv("TABLETRACK_DATA") : "", TT_SOURCE_DIR, NULL};
    rules_scenario *sc = NULL;
    tt_err err = {0};
    if (rules_scenario_from_json(root, "bench", NULL, dirs, &sc, &err) != TT_OK) {
        fprintf(stderr, "bench_rules: %s\n", err.msg);
        return 1;
    }
    json_decref(root);
    size_t n = rules_scenario_figure_count(sc);
    printf("rules benchmark: %zu figures, %d terrain edges (buildings, hills, walls: elevation on), 72 x 48 table, "
           "one core\n",
           n, nbld * 4);

    /* pairwise LOS: best of 5 */
    double best = 1e9;
    long vis = 0;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        long v = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                v += rules_los_index(sc, i, j);
        double dt = now() - t0;
        if (dt < best)
            best = dt;
        vis = v;
    }
    double t0 = now();
    long vb = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            vb += rules_los_index_bruteforce(sc, i, j);
    double brute = now() - t0;
    long pairs = (long)n * (long)(n - 1) / 2;
    printf("LOS, all %ld pairs:     %8.2f ms  (%ld visible)   brute force %8.1f ms  ratio %.0fx   target <= 15 ms  %s\n",
           pairs, best * 1e3, vis, brute * 1e3, brute / best, best <= 0.015 ? "OK" : "SLOW");
    if (vb != vis) {
        fprintf(stderr, "bench_rules: grid and brute force disagree (%ld vs %ld)\n", vis, vb);
        return 1;
    }
    if (slopes) { /* the 100 hills have 1in sloped sides: decided piece by piece, not by the grid */
        printf("(slopes: the 100 hills with 1in sloped sides; compare with a run without \"slopes\")\n");
        rules_scenario_destroy(sc);
        return 0;
    }

    /* blast and grape */
    int reps = 20000;
    rules_result r;
    t0 = now();
    long hits = 0;
    for (int k = 0; k < reps; k++) {
        rules_point at = {rndu(0, 72), rndu(0, 48)};
        rules_blast(sc, at, 2.0, NULL, &r, &err);
        hits += (long)r.n_ids;
        rules_result_free(&r);
    }
    double blast = (now() - t0) / reps;
    printf("blast query (2in):       %8.2f us  (%.2f hit on average)                          target <= 5 us  %s\n",
           blast * 1e6, (double)hits / reps, blast <= 5e-6 ? "OK" : "SLOW");
    t0 = now();
    for (int k = 0; k < reps; k++) {
        rules_grape(sc, "f0", &r, &err);
        hits += (long)r.n_ids;
        rules_result_free(&r);
    }
    double grape = (now() - t0) / reps;
    printf("grape query:             %8.2f us                                                target <= 5 us  %s\n",
           grape * 1e6, grape <= 5e-6 ? "OK" : "SLOW");

    /* visibility polygons from 100 figures: best of 5; the baseline is the
     * plain ray cast to every corner (rules_visibility_reference) */
    size_t verts = 0;
    int nv = 100;
    double visp = 1e9, visref = 0;
    for (int rep = 0; rep < 6; rep++) {
        int ref = rep == 5;
        t0 = now();
        verts = 0;
        for (int k = 0; k < nv; k++) {
            (ref ? rules_visibility_reference : rules_visibility)(sc, rules_scenario_figure_id(sc, (size_t)k), &r, &err);
            verts += r.n_polygon;
            rules_result_free(&r);
        }
        double dt = (now() - t0) / nv;
        if (ref)
            visref = dt;
        else if (dt < visp)
            visp = dt;
    }
    printf("visibility polygon:      %8.3f ms  (%.0f corners on average)  plain ray cast %6.3f ms  ratio %.1fx  "
           "target <= 0.3 ms  %s\n",
           visp * 1e3, (double)verts / nv, visref * 1e3, visref / visp, visp <= 3e-4 ? "OK" : "SLOW");
    rules_scenario_destroy(sc);
    return bench_units(dirs);
}
