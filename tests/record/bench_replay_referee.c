/* bench_replay_referee.c - what drawing the referee costs a replay: a
 * convention game of TURNS turns (default 10), 150 figures in two sides of
 * 75 (units of 10), one frame a second.  Each turn: red's movement (every
 * red figure moves 3-6" once, a move_check each, one every frame), blue's
 * movement, then shooting (two units lose figures: casualties and a morale
 * call).  The same game is recorded twice, with the referee's events and
 * without (the same-run baseline), and each file is loaded as `replay`
 * loads it (rec_game_load: every recorded answer's look, and with the
 * referee what the felt showed after each batch) and made into its page.
 *
 * Prints each file's load time (the median of 5), the ratio, the felt's
 * batches and primitives (each event's look is made once, when it comes),
 * and the pages' sizes.
 *
 * Usage: bench_replay_referee [TURNS].  The files are temporary, deleted at
 * the end. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rec.h"
#include "rec_internal.h"

#define NFIG 150
#define UNIT 10
#define LOADS 5

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what, const tt_err *err)
{
    fprintf(stderr, "bench_replay_referee: %s: %s\n", what, err ? err->msg : "");
    exit(1);
}

/* f<i> of side red (i < 75) or blue, in unit u<i/10>, tag 100 + i. */
static char *scenario_text(void)
{
    json_t *figs = json_array(), *tags = json_object();
    for (int i = 0; i < NFIG; i++) {
        char id[16], unit[16], tag[16];
        snprintf(id, sizeof id, "f%d", i);
        snprintf(unit, sizeof unit, "u%d", i / UNIT);
        snprintf(tag, sizeof tag, "%d", 100 + i);
        json_array_append_new(figs, json_pack("{s:s, s:s, s:s, s:f, s:f}", "id", id, "side", i < NFIG / 2 ? "red" : "blue",
                                              "unit", unit, "x", 4.0 + (i % 15) * 4.3, "y", 4.0 + (i / 15) * 4.2));
        json_object_set_new(tags, tag, json_string(id));
    }
    json_t *sc = json_pack("{s:s, s:{s:i, s:i}, s:o, s:o}", "ruleset", "into-the-breach", "table", "width_in", 72,
                           "depth_in", 48, "figures", figs, "tags", tags);
    char *text = json_dumps(sc, JSON_COMPACT);
    json_decref(sc);
    return text;
}

/* The game into path; with_referee: its events too.  Returns the batches
 * of the referee's events written. */
static long record(const char *path, int turns, int with_referee)
{
    rec *r = NULL;
    tt_err err = {0};
    char *sc = scenario_text();
    if (rec_open(path, REC_CREATE_NEW, &r, &err) != TT_OK || rec_session_begin(r, NULL, sc, NULL, &err) != TT_OK)
        die("recording", &err);
    free(sc);
    rec_figure fig[NFIG];
    for (int i = 0; i < NFIG; i++)
        fig[i] = (rec_figure){"tag36h11", 100 + i, 4.0 + (i % 15) * 4.3, 4.0 + (i / 15) * 4.2, 0, REC_SEEN, 0, 0.01, 0, 0};
    long frame = 0, batches = 0;
    unsigned seed = 7;
    char ev[512];
#define EVENT(...)                                                                                                    \
    do {                                                                                                              \
        snprintf(ev, sizeof ev, __VA_ARGS__);                                                                         \
        if (with_referee && rec_referee(r, frame, frame * 1000, ev, &err) != TT_OK)                                  \
            die("a referee's event", &err);                                                                           \
    } while (0)
    for (int turn = 1; turn <= turns; turn++)
        for (int side = 0; side < 3; side++) {
            if (rec_frame(r, frame, frame * 1000, fig, NFIG, &err) != TT_OK)
                die("a frame", &err);
            EVENT("{\"event\":\"phase\",\"turn\":%d,\"phase\":\"%s\",\"side\":\"%s\"}", turn,
                  side < 2 ? "movement" : "shooting", side == 1 ? "blue" : "red");
            batches++, frame++;
            if (side == 2) { /* two units lose figures: casualties and a call */
                EVENT("{\"event\":\"casualties\",\"unit\":\"u%d\",\"lost\":3,\"of\":10,\"since_turn_start\":3}", turn % 7);
                EVENT("{\"event\":\"morale\",\"unit\":\"u%d\",\"call\":\"morale\",\"test\":{\"dice\":\"2d6\",\"needs\":6,"
                      "\"modifiers\":[]},\"result\":null,\"rule\":\"into-the-breach.txt L8-10\"}", turn % 7);
                continue;
            }
            for (int k = 0; k < NFIG / 2; k++) { /* every figure of the side moves once, one a frame */
                rec_figure *f = &fig[side * NFIG / 2 + k];
                double x0 = f->x, y0 = f->y, d = 3 + 3 * (rand_r(&seed) / (double)RAND_MAX);
                double dir = side ? -1 : 1;
                f->y = fmin(46, fmax(2, f->y + dir * d));
                if (rec_frame(r, frame, frame * 1000, fig, NFIG, &err) != TT_OK)
                    die("a frame", &err);
                double dist = fabs(f->y - y0);
                EVENT("{\"event\":\"move_check\",\"id\":\"f%d\",\"from\":[%.2f,%.2f],\"to\":[%.2f,%.2f],\"distance_in\":%.2f,"
                      "\"allowed_in\":6,\"ok\":%s,\"too_close_to_call\":false,\"rule\":\"into-the-breach.txt L74\"}",
                      side * NFIG / 2 + k, x0, y0, f->x, f->y, dist, dist <= 6 ? "true" : "false");
                batches++, frame++;
            }
        }
#undef EVENT
    if (rec_close(r, &err) != TT_OK)
        die("closing", &err);
    return with_referee ? batches : 0;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median time of LOADS loads of path (ms); the last load's felt
 * primitives and page size. */
static double load(const char *path, size_t *prims, size_t *page)
{
    double t[LOADS];
    for (int i = 0; i < LOADS; i++) {
        rec_game *g = NULL;
        tt_err err = {0};
        double t0 = now_ms();
        if (rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err) != TT_OK)
            die("loading", &err);
        t[i] = now_ms() - t0;
        *prims = 0;
        for (size_t k = 0; k < g->nrefs; k++)
            *prims += json_array_size(g->refs[k].look) + json_array_size(g->refs[k].corner);
        char *html = NULL;
        if (rec_game_html_text(g, &html, page, &err) != TT_OK)
            die("the page", &err);
        free(html);
        rec_game_destroy(g);
    }
    qsort(t, LOADS, sizeof *t, cmpd);
    return t[LOADS / 2];
}

int main(int argc, char **argv)
{
    int turns = argc > 1 ? atoi(argv[1]) : 10;
    if (turns < 1 || turns > 1000) {
        fprintf(stderr, "usage: bench_replay_referee [TURNS] (1 to 1000; default 10)\n");
        return 2;
    }
    char a[] = "/tmp/tt-bench-ref-XXXXXX", b[] = "/tmp/tt-bench-plain-XXXXXX";
    int fa = mkstemp(a), fb = mkstemp(b);
    if (fa < 0 || fb < 0)
        die("a temporary file", NULL);
    close(fa), close(fb);
    unlink(a), unlink(b);
    long batches = record(a, turns, 1);
    record(b, turns, 0);
    size_t prims_a = 0, prims_b = 0, page_a = 0, page_b = 0;
    double ta = load(a, &prims_a, &page_a), tb = load(b, &prims_b, &page_b);
    printf("bench_replay_referee: %d turns, %d figures, %ld batches of the referee's events\n", turns, NFIG, batches);
    printf("felt drawn:     %zu primitives in all, each event's once (%.1f an event batch)\n", prims_a,
           batches ? (double)prims_a / batches : 0);
    printf("load (replay):  %.1f ms with the referee, %.1f ms without (median of %d); ratio %.2f\n", ta, tb, LOADS,
           tb > 0 ? ta / tb : 0);
    printf("page:           %.1f MB with the referee, %.1f MB without; ratio %.2f\n", page_a / 1e6, page_b / 1e6,
           page_b ? (double)page_a / page_b : 0);
    unlink(a), unlink(b);
    return 0;
}
