/* bench_referee.c - what the referee's checks cost (issue 30: at most 2% of
 * tracking time).  The same game is tracked, in the same run, without
 * --phases (the baseline) and with them (a scripted game: its phases, every
 * settled move asked, the casualties and calls), alternately, each from
 * frames decoded into memory first (--preload), so both sides measure
 * tracking.  Prints each side's median over the rounds (wall and CPU), the
 * ratio with/without, and the referee's own time measured inside the
 * with-phases runs (game_stats.referee_ms) as a share of their tracking:
 * of its wall time, and (a bound that holds on a busy machine, where the
 * wall time is mostly waiting for a core) of its CPU time.  Exits 3 when
 * that bound passes 2 %.
 *   bench_referee [--rounds N] [--dir DIR] [--phases FILE] [--threads T]
 * DIR holds rig.json, scenario.json and game.mp4 (default samples/breach,
 * with the phases of tests/referee/track_test.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "game.h"
#include "tt_clock.h"

#define MAX_ROUNDS 50

static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One game: wall and CPU ms of game_run, the referee's ms, frames. */
static int run(const char *dir, const char *phases, int threads, double *wall, double *cpu, double *ref, int *frames)
{
    char rig[1024], src[1024], sc[1024];
    snprintf(rig, sizeof rig, "%s/rig.json", dir);
    snprintf(src, sizeof src, "%s/game.mp4", dir);
    snprintf(sc, sizeof sc, "%s/scenario.json", dir);
    game_opts o = {0};
    o.rig = rig, o.source = src, o.scenario = sc, o.phases_file = phases;
    o.preload = 1, o.max_frames = -1, o.grace = 15, o.threads = threads;
    game *g = NULL;
    tt_err err = {0};
    if (game_create(&o, &g, &err) != TT_OK) {
        fprintf(stderr, "bench_referee: %s\n", err.msg);
        game_destroy(g);
        return -1;
    }
    double c0 = cpu_ms(), w0 = tt_mono_ms();
    tt_status st = game_run(g, &err);
    *wall = tt_mono_ms() - w0;
    *cpu = cpu_ms() - c0;
    game_stats s;
    game_get_stats(g, &s);
    *ref = s.referee_ms;
    *frames = s.frames;
    if (st == TT_OK)
        st = game_close(g, &err);
    game_destroy(g);
    if (st != TT_OK) {
        fprintf(stderr, "bench_referee: %s\n", err.msg);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = 9, threads = 2;
    const char *dir = TT_SOURCE_DIR "/samples/breach", *phases = NULL;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--rounds"))
            rounds = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--dir"))
            dir = argv[a + 1];
        else if (!strcmp(argv[a], "--phases"))
            phases = argv[a + 1];
        else if (!strcmp(argv[a], "--threads"))
            threads = atoi(argv[a + 1]);
    }
    if (rounds < 1 || rounds > MAX_ROUNDS || threads < 1 || threads > 8 || argc % 2 == 0) {
        fprintf(stderr, "usage: bench_referee [--rounds 1-%d] [--dir DIR] [--phases FILE] [--threads 1-8]\n", MAX_ROUNDS);
        return 2;
    }
    char tmp[] = "/tmp/bench_referee_XXXXXX";
    if (!phases) { /* the sample game's, as tests/referee/track_test.sh plays it */
        int fd = mkstemp(tmp);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f)
            return 1;
        fputs("{\"frame\": 0, \"turn\": 1, \"phase\": \"actions\", \"side\": \"british\"}\n"
              "{\"frame\": 27, \"next\": true}\n{\"frame\": 50, \"next\": true}\n"
              "{\"frame\": 110, \"phase\": \"morale\"}\n", f);
        fclose(f);
        phases = tmp;
    }
    setenv("TABLETRACK_DATA", TT_SOURCE_DIR, 0);
    double wa[MAX_ROUNDS], ca[MAX_ROUNDS], wb[MAX_ROUNDS], cb[MAX_ROUNDS], rb[MAX_ROUNDS], share[MAX_ROUNDS],
        bound[MAX_ROUNDS], ignore;
    int frames = 0, fb = 0;
    printf("bench_referee: %s, %d rounds, %d tracker threads (baseline: no --phases; with: --phases %s)\n", dir,
           rounds, threads, phases);
    for (int r = 0; r < rounds; r++) {
        /* alternate which goes first, so a machine getting busier favours neither */
        int ok = r % 2 ? run(dir, phases, threads, &wb[r], &cb[r], &rb[r], &fb) == 0 &&
                             run(dir, NULL, threads, &wa[r], &ca[r], &ignore, &frames) == 0
                       : run(dir, NULL, threads, &wa[r], &ca[r], &ignore, &frames) == 0 &&
                             run(dir, phases, threads, &wb[r], &cb[r], &rb[r], &fb) == 0;
        if (!ok || frames != fb || !frames) {
            if (phases == tmp)
                remove(tmp);
            return 1;
        }
        share[r] = 100.0 * rb[r] / wb[r];
        bound[r] = 100.0 * rb[r] / cb[r]; /* the referee's wall time is at least its CPU time */
        printf("  round %d: without %.1f ms wall %.1f ms cpu; with %.1f ms wall %.1f ms cpu, referee %.2f ms\n", r + 1,
               wa[r], ca[r], wb[r], cb[r], rb[r]);
    }
    if (phases == tmp)
        remove(tmp);
    double mwa = median(wa, rounds), mca = median(ca, rounds), mwb = median(wb, rounds), mcb = median(cb, rounds);
    double mr = median(rb, rounds), ms = median(share, rounds), mbound = median(bound, rounds);
    printf("frames: %d a game\n", frames);
    printf("tracking without --phases (baseline): %.1f ms wall, %.1f ms cpu (median)\n", mwa, mca);
    printf("tracking with --phases:               %.1f ms wall, %.1f ms cpu (median)\n", mwb, mcb);
    printf("ratio with/without: %.4f wall, %.4f cpu\n", mwb / mwa, mcb / mca);
    printf("the referee inside the runs with --phases: %.2f ms, %.3f%% of their tracking time (wall over wall, median)\n",
           mr, ms);
    printf("at most %.3f%% of their tracking CPU time (its wall time over the run's CPU time, median; target <= 2%%)\n",
           mbound);
    return mbound <= 2.0 ? 0 : 3;
}
