/* bench_record.c - the recorder on a simulated 4-hour convention game.
 *
 * 150 figures at 30 fps for 4 hours (432,000 frames); 3 moves start every
 * second (a hand covers the figure for 0.2 s, then it slides 2-10" over
 * 1.5 s and turns); every figure has camera noise below the change
 * thresholds (+-0.005", +-0.3 degrees); a rules query every 10 s; a moved
 * event per move.  Commits follow the game clock (twice a second), as live.
 *
 * Prints the file size (target <= 200 MB), the recording cost per frame
 * (target <= 1 ms: the time inside rec_frame / rec_event / rec_query only),
 * and two same-run baselines:
 *   - naive: every figure every frame into a plain table (one transaction
 *     per second), timed on a 5-minute stretch and extrapolated;
 *   - detect only: the cost of the change detection itself without SQLite.
 *
 * Usage: bench_record [HOURS] [--paced] (default 4 hours, as fast as it
 * goes).  --paced feeds frames at 30 fps in real time, as a live tracker
 * does: then the WAL checkpoints stay on their background thread and the
 * worst frame shows it (e.g. bench_record 0.02 --paced, 72 s).  The
 * database is a temporary file, deleted at the end. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rec.h"

#define NFIG 150
#define FPS 30
#define MOVES_PER_S 3
#define MOVE_FRAMES 45   /* 1.5 s slide */
#define HAND_FRAMES 6    /* 0.2 s occluded before it */

typedef struct sim_fig {
    double x, y, f;                /* true pose */
    double x0, y0, f0, x1, y1, f1; /* current move */
    long move_start;               /* frame, or -1 */
} sim_fig;

static unsigned long long rng = 88172645463325252ull;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct sim {
    sim_fig figs[NFIG];
    rec_figure out[NFIG];
    int moved_done[NFIG]; /* indices that finished a move this frame */
    int nmoved;
} sim;

static void sim_init(sim *s)
{
    for (int i = 0; i < NFIG; i++) {
        s->figs[i] = (sim_fig){4 + urand() * 64, 4 + urand() * 40, urand() * 360 - 180, 0, 0, 0, 0, 0, 0, -1};
    }
}

/* Advance to frame fr; fill s->out with what a tracker would report. */
static void sim_step(sim *s, long fr)
{
    s->nmoved = 0;
    /* start moves: MOVES_PER_S per second on average */
    if (urand() < (double)MOVES_PER_S / FPS) {
        int i = (int)(urand() * NFIG);
        sim_fig *f = &s->figs[i];
        if (f->move_start < 0) {
            double d = 2 + urand() * 8, a = urand() * 2 * M_PI;
            f->x0 = f->x, f->y0 = f->y, f->f0 = f->f;
            f->x1 = fmin(70, fmax(2, f->x + d * cos(a)));
            f->y1 = fmin(46, fmax(2, f->y + d * sin(a)));
            f->f1 = fmod(f->f + 200 + urand() * 140, 360) - 180;
            f->move_start = fr;
        }
    }
    for (int i = 0; i < NFIG; i++) {
        sim_fig *f = &s->figs[i];
        rec_state st = REC_SEEN;
        if (f->move_start >= 0) {
            long k = fr - f->move_start;
            if (k < HAND_FRAMES) {
                st = REC_OCCLUDED;
            } else {
                double u = fmin(1.0, (double)(k - HAND_FRAMES) / MOVE_FRAMES);
                f->x = f->x0 + (f->x1 - f->x0) * u;
                f->y = f->y0 + (f->y1 - f->y0) * u;
                double df = remainder(f->f1 - f->f0, 360.0);
                f->f = remainder(f->f0 + df * u, 360.0);
                if (u >= 1.0) {
                    f->move_start = -1;
                    s->moved_done[s->nmoved++] = i;
                }
            }
        }
        s->out[i] = (rec_figure){"tag36h11", i, f->x + (urand() - 0.5) * 0.01, f->y + (urand() - 0.5) * 0.01,
                                 remainder(f->f + (urand() - 0.5) * 0.6, 360.0), st, 0, 0, 0, 0};
    }
}

/* The change detection alone, as the recorder does it (no SQLite). */
typedef struct last {
    double x, y, f;
    int state;
} last;

static long detect_only(last *l, const rec_figure *o, int n)
{
    long changed = 0;
    for (int i = 0; i < n; i++) {
        double dx = o[i].x - l[i].x, dy = o[i].y - l[i].y;
        double df = fmod(fabs(o[i].facing_deg - l[i].f), 360.0);
        if (df > 180)
            df = 360 - df;
        if (l[i].state != (int)o[i].state || dx * dx + dy * dy > 0.02 * 0.02 || df > 1.0) {
            l[i] = (last){o[i].x, o[i].y, o[i].facing_deg, (int)o[i].state};
            changed++;
        }
    }
    return changed;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static long long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
}

static void remove_db(const char *path)
{
    char p[600];
    unlink(path);
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
}

/* Naive baseline: every figure, every frame, for `frames` frames. */
static int naive(const char *path, long frames, double *ms_per_frame, long long *bytes)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    remove_db(path);
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE TABLE state (figure INTEGER, "
                         "frame INTEGER, t_ms INTEGER, x REAL, y REAL, facing_deg REAL, state TEXT)",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO state VALUES (?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "naive baseline: %s\n", sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    static const char *names[] = {"seen", "occluded", "lost"};
    sim s;
    sim_init(&s);
    double spent = 0;
    for (long fr = 0; fr < frames; fr++) {
        sim_step(&s, fr);
        double a = now_ms();
        if (fr % FPS == 0)
            sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
        for (int i = 0; i < NFIG; i++) {
            sqlite3_bind_int(st, 1, i);
            sqlite3_bind_int64(st, 2, fr);
            sqlite3_bind_int64(st, 3, fr * 1000 / FPS);
            sqlite3_bind_double(st, 4, s.out[i].x);
            sqlite3_bind_double(st, 5, s.out[i].y);
            sqlite3_bind_double(st, 6, s.out[i].facing_deg);
            sqlite3_bind_text(st, 7, names[s.out[i].state], -1, SQLITE_STATIC);
            sqlite3_step(st);
            sqlite3_reset(st);
        }
        if (fr % FPS == FPS - 1 || fr == frames - 1)
            sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        spent += now_ms() - a;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    *ms_per_frame = spent / (double)frames;
    *bytes = file_size(path);
    remove_db(path);
    return 0;
}

int main(int argc, char **argv)
{
    double hours = argc > 1 ? atof(argv[1]) : 4.0;
    int paced = argc > 2 && !strcmp(argv[2], "--paced");
    if (!(hours > 0 && hours <= 24) || (argc > 2 && !paced) || argc > 3) {
        fprintf(stderr, "usage: bench_record [HOURS] [--paced]   (0 < HOURS <= 24, default 4)\n");
        return 2;
    }
    long frames = (long)(hours * 3600 * FPS);
    char path[] = "/tmp/tt_bench_recordXXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        return 1;
    }
    close(fd);
    remove_db(path);

    printf("bench_record: %.2f h game, %d figures, %d fps (%ld frames), %d moves/s, noise +-0.005\" +-0.3 deg%s\n",
           hours, NFIG, FPS, frames, MOVES_PER_S, paced ? ", paced in real time" : "");
    rec *r = NULL;
    tt_err err = {0};
    if (rec_open(path, REC_CREATE_NEW, &r, &err) != TT_OK ||
        rec_session_begin(r, "{\"table\":{\"width_in\":72,\"depth_in\":48}}", NULL, NULL, &err) != TT_OK) {
        fprintf(stderr, "bench_record: %s\n", err.msg);
        return 1;
    }
    sim s;
    sim_init(&s);
    double spent = 0, worst = 0;
    long events = 0, queries = 0;
    float *cost = malloc((size_t)frames * sizeof *cost);
    long long wal_max = 0;
    char wal[600];
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (!cost) {
        fprintf(stderr, "bench_record: out of memory\n");
        return 1;
    }
    double t_all = now_ms();
    for (long fr = 0; fr < frames; fr++) {
        sim_step(&s, fr);
        long long t = fr * 1000 / FPS;
        if (paced) {
            double due = t_all + (double)t, n = now_ms();
            if (due > n)
                usleep((useconds_t)((due - n) * 1000));
        }
        double a = now_ms();
        tt_status st = rec_frame(r, fr, t, s.out, NFIG, &err);
        for (int k = 0; st == TT_OK && k < s.nmoved; k++) {
            sim_fig *f = &s.figs[s.moved_done[k]];
            double from[2] = {f->x0, f->y0}, to[2] = {f->x1, f->y1};
            st = rec_event(r, fr, t, REC_EV_MOVED, "tag36h11", s.moved_done[k], from, to, &err);
            events++;
        }
        if (st == TT_OK && fr % (10 * FPS) == 0) {
            st = rec_query(r, fr, t, "{\"q\":\"fire\",\"from\":\"m1\",\"to\":\"f1\"}",
                           "{\"distance_in\":6.62,\"bracket\":\"medium\",\"visible\":true,\"cover\":\"none\","
                           "\"to_hit\":5}", &err);
            queries++;
        }
        double dt = now_ms() - a;
        cost[fr] = (float)dt;
        if (fr % (60 * FPS) == 0 && file_size(wal) > wal_max)
            wal_max = file_size(wal);
        spent += dt;
        if (dt > worst)
            worst = dt;
        if (st != TT_OK) {
            fprintf(stderr, "bench_record: %s\n", err.msg);
            rec_close(r, NULL);
            remove_db(path);
            return 1;
        }
    }
    long long rows = rec_rows_written(r);
    double a = now_ms();
    if (rec_close(r, &err) != TT_OK) {
        fprintf(stderr, "bench_record: %s\n", err.msg);
        remove_db(path);
        return 1;
    }
    double close_ms = now_ms() - a;
    double wall = (now_ms() - t_all) / 1000.0;
    long long bytes = file_size(path);
    double per_frame = spent / (double)frames;
    /* TT_BENCH_KEEP=FILE keeps the recording (e.g. to time replays of it) */
    const char *keep = getenv("TT_BENCH_KEEP");
    if (keep && *keep && rename(path, keep) == 0)
        printf("recording kept as %s\n", keep);
    remove_db(path);

    /* baseline 1: naive, 5 minutes, extrapolated */
    long nframes = frames < 5 * 60 * FPS ? frames : 5 * 60 * FPS;
    double naive_ms = 0;
    long long naive_bytes = 0;
    if (naive(path, nframes, &naive_ms, &naive_bytes) != 0)
        return 1;
    double naive_total = (double)naive_bytes * (double)frames / (double)nframes;

    /* baseline 2: change detection alone, same frames */
    sim_init(&s);
    last l[NFIG];
    memset(l, 0, sizeof l);
    for (int i = 0; i < NFIG; i++)
        l[i].state = -1;
    double detect = 0;
    long changed = 0;
    for (long fr = 0; fr < frames; fr++) {
        sim_step(&s, fr);
        double b = now_ms();
        changed += detect_only(l, s.out, NFIG);
        detect += now_ms() - b;
    }

    printf("state rows written:   %lld (%.1f per second of game; %ld moved events, %ld queries)\n", rows,
           (double)rows / (hours * 3600), events, queries);
    printf("file size:            %.1f MB  (target <= 200 MB)  %s\n", (double)bytes / 1e6,
           bytes <= 200000000LL ? "OK" : "OVER");
    printf("recording per frame:  %.4f ms mean, %.2f ms worst, close %.0f ms  "
           "(target <= 1 ms)  %s\n", per_frame, worst, close_ms, per_frame <= 1.0 ? "OK" : "OVER");
    qsort(cost, (size_t)frames, sizeof *cost, cmp_float);
    printf("  per-frame cost p50 %.3f ms, p99 %.3f ms, p99.99 %.2f ms; WAL file at most %.1f MB\n",
           cost[frames / 2], cost[frames * 99 / 100], cost[(long)(frames * 0.9999)], (double)wal_max / 1e6);
    free(cost);
    printf("naive baseline:       every figure every frame: %.4f ms/frame, %.0f MB for the game "
           "(measured on %ld frames, extrapolated)\n", naive_ms, naive_total / 1e6, nframes);
    printf("ratio vs naive:       file %.0fx smaller, %.1fx less time per frame\n", naive_total / (double)bytes,
           naive_ms / per_frame);
    printf("change detection alone (no SQLite): %.5f ms/frame (%ld changes); SQLite share of the cost: %.0f%%\n",
           detect / (double)frames, changed, 100.0 * (1.0 - (detect / (double)frames) / per_frame));
    printf("wall time %.1f s\n", wall);
    return 0;
}
