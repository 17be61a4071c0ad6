/* test_track_projectors.c - 'tabletrack track' with two projectors sharing
 * the table (issue 31, part 4): each --projector draws its own picture
 * (--overlay-dir: overlay_NNNNN_pK.png), a figure's ring shows in the
 * projector whose picture it falls in and nowhere else, a figure in the
 * overlap is lit by both with the light ramped, and the recording keeps
 * which projectors the table had (its meta table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cvwrap.h"
#include "events_jsonl.h"
#include "overlay.h"
#include "rec.h"
#include "run.h"
#include "seq.h"

static char dir[256];
static seq S;

/* The small sequence's 36x24" table: A over x 0..25.6, B over x 10.4..36
 * (50 px/in across, 33 px/in down, 1280x800 each). */
#define PPI_X 50.0
#define PPI_Y 33.0
#define B_X0 10.4

static const char *path(const char *name)
{
    static char p[8][400];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static int setup_all(void **state)
{
    (void)state;
    seq_options o;
    tt_err err = {0};
    seq_options_small(&o);
    o.frames = 3;
    snprintf(dir, sizeof dir, "/tmp/tt_trackpj_XXXXXX");
    if (!mkdtemp(dir) || seq_init(&o, &S, &err) != TT_OK)
        return -1;
    if (mkdir(path("frames"), 0755) != 0 || mkdir(path("ov"), 0755) != 0 || seq_write_rig(&S, dir, &err) != TT_OK)
        return -1;
    for (int f = 0; f < o.frames; f++) {
        tt_image im = {0};
        char name[64];
        snprintf(name, sizeof name, "frames/frame_%04d.png", f);
        if (seq_render(&S, f, &im, &err) != TT_OK || cvw_image_write(path(name), &im, &err) != TT_OK)
            return -1;
        tt_image_free(&im);
    }
    FILE *f = fopen(path("pa.json"), "w"), *g = fopen(path("pb.json"), "w");
    if (!f || !g)
        return -1;
    fprintf(f, "{\"width\":1280,\"height\":800,\"table_to_projector\":[[%g,0,0],[0,%g,0],[0,0,1]]}\n", PPI_X, PPI_Y);
    fprintf(g, "{\"width\":1280,\"height\":800,\"table_to_projector\":[[%g,0,%g],[0,%g,0],[0,0,1]]}\n", PPI_X,
            -PPI_X * B_X0, PPI_Y);
    fclose(f);
    fclose(g);
    return 0;
}

static int teardown_all(void **state)
{
    (void)state;
    char cmd[600];
    seq_free(&S);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The brightest pixel on the ring around (x, y) in a projector whose
 * picture starts at table x0 (0 where the ring is outside it): all round,
 * or (top) only where it crosses x, above and below the figure. */
static int ring_value(const tt_image *im, double x0, double x, double y, int top)
{
    double r = overlay_tag_ring_in(S.o.base_size_in);
    int best = 0;
    for (int s = 0; s < 48; s++) {
        double a = s * M_PI / 24;
        if (top && s != 12 && s != 36)
            continue;
        for (double d = -0.06; d <= 0.06; d += 0.02) {
            int u = (int)lround(PPI_X * (x + (r + d) * cos(a) - x0)), v = (int)lround(PPI_Y * (y + (r + d) * sin(a)));
            if (u >= 0 && v >= 0 && u < im->width && v < im->height && im->data[(size_t)v * im->stride + u] > best)
                best = im->data[(size_t)v * im->stride + u];
        }
    }
    return best;
}

static void test_two_projectors(void **state)
{
    (void)state;
    char db[400];
    snprintf(db, sizeof db, "%s", path("game.sqlite"));
    char *argv[] = {TT_BIN, "track", "--rig", (char *)path("rig.json"), "--source", (char *)path("frames/*.png"),
                    "--projector", (char *)path("pa.json"), "--projector", (char *)path("pb.json"), "--overlay-dir",
                    (char *)path("ov"), "--record", db, "--events", (char *)path("ev.jsonl"), "--max-frames", "2",
                    NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("track failed: %s", r.err);
    run_free(&r);
    struct stat st;
    assert_int_not_equal(stat(path("ov/overlay_00001.png"), &st), 0); /* one file per projector instead */
    tt_image a = {0}, b = {0};
    assert_int_equal(cvw_image_read(path("ov/overlay_00001_p1.png"), 1, &a, NULL), TT_OK);
    assert_int_equal(cvw_image_read(path("ov/overlay_00001_p2.png"), 1, &b, NULL), TT_OK);
    long lit[2] = {0, 0};
    for (int v = 0; v < 800; v++)
        for (int u = 0; u < 1280; u++) {
            lit[0] += a.data[(size_t)v * a.stride + u] > 0;
            lit[1] += b.data[(size_t)v * b.stride + u] > 0;
        }
    print_message("lit pixels: %ld in projector 1, %ld in 2\n", lit[0], lit[1]);
    /* where the tracker put each figure seen in frame 1: its ring is there */
    json_t *lines = read_jsonl(path("ev.jsonl")), *frame = NULL;
    for (size_t i = 0; i < json_array_size(lines) && !frame; i++) {
        json_t *l = json_array_get(lines, i);
        if (json_integer_value(json_object_get(l, "frame")) == 1 && json_object_get(l, "figures"))
            frame = l;
    }
    assert_non_null(frame);
    json_t *figs = json_object_get(frame, "figures");
    int only_a = 0, only_b = 0, both = 0, seen = 0;
    double a_end = 1279.5 / PPI_X, rr = overlay_tag_ring_in(S.o.base_size_in) + 0.1;
    for (size_t k = 0; k < json_array_size(figs); k++) {
        json_t *fg = json_array_get(figs, k);
        const char *state = json_string_value(json_object_get(fg, "state"));
        if (!state || strcmp(state, "seen"))
            continue; /* an occluded figure's ring is dashed: not measured here */
        double x = json_number_value(json_object_get(fg, "x")), y = json_number_value(json_object_get(fg, "y"));
        int va = ring_value(&a, 0, x, y, 0), vb = ring_value(&b, B_X0, x, y, 0);
        seen++;
        if (x + rr < B_X0) { /* A's alone: lit there, nothing in B */
            assert_true(va > 150);
            assert_int_equal(vb, 0);
            only_a++;
        } else if (x - rr > a_end) {
            assert_true(vb > 150);
            assert_int_equal(va, 0);
            only_b++;
        } else if (x - rr > B_X0 + 1 && x + rr < a_end - 1) { /* well inside the overlap: both, neither at full */
            va = ring_value(&a, 0, x, y, 1);
            vb = ring_value(&b, B_X0, x, y, 1);
            double la = pow(va / 255.0, 2.2), lb = pow(vb / 255.0, 2.2);
            assert_true(va > 0 && vb > 0 && va < 255 && vb < 255);
            assert_true(la + lb > 0.8 && la + lb < 1.2);
            both++;
        }
    }
    json_decref(lines);
    print_message("%d figures seen: %d in projector 1's picture alone, %d in 2's alone, %d well inside the "
                  "overlap\n", seen, only_a, only_b, both);
    assert_true(only_a > 0 && only_b > 0 && both > 0);
    tt_image_free(&a);
    tt_image_free(&b);

    /* the recording keeps which projectors the table had */
    sqlite3 *sq = NULL;
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_open_v2(db, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(sq, "SELECT value FROM meta WHERE key = 'session 1 projectors'", -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    json_error_t je;
    json_t *pjs = json_loads((const char *)sqlite3_column_text(q, 0), 0, &je);
    sqlite3_finalize(q);
    sqlite3_close(sq);
    assert_non_null(pjs);
    assert_int_equal(json_array_size(pjs), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(pjs, 0), "file")), path("pa.json"));
    assert_string_equal(json_string_value(json_object_get(json_array_get(pjs, 1), "file")), path("pb.json"));
    assert_int_equal(json_integer_value(json_object_get(json_array_get(pjs, 1), "width")), 1280);
    assert_true(fabs(json_number_value(json_object_get(json_array_get(pjs, 0), "gamma")) - 2.2) < 1e-9);
    assert_true(json_is_false(json_object_get(json_array_get(pjs, 0), "gamma_measured")));
    json_decref(pjs);
}

/* The number of "session N projectors" rows in db. */
static int projector_rows(const char *db)
{
    sqlite3 *sq = NULL;
    sqlite3_stmt *q = NULL;
    int n = -1;
    assert_int_equal(sqlite3_open_v2(db, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(sq, "SELECT count(*) FROM meta WHERE key LIKE 'session % projectors'", -1, &q,
                                        NULL),
                     SQLITE_OK);
    if (sqlite3_step(q) == SQLITE_ROW)
        n = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(sq);
    return n;
}

/* The recorder keeps a session's projectors only as a JSON array, after
 * the session has begun; none keeps nothing. */
static void test_recorder_projectors(void **state)
{
    (void)state;
    char db[400];
    snprintf(db, sizeof db, "%s", path("rp.sqlite"));
    rec *r = NULL;
    tt_err err = {0};
    assert_int_equal(rec_open(db, REC_CREATE_NEW, &r, &err), TT_OK);
    assert_int_equal(rec_session_projectors(r, "[{\"file\":\"a.json\"}]", &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "no session"));
    assert_int_equal(rec_session_begin(r, NULL, NULL, NULL, &err), TT_OK);
    assert_int_equal(rec_session_projectors(r, "{\"file\":\"a.json\"}", &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "JSON array"));
    assert_int_equal(rec_session_projectors(r, "[{\"file\":", &err), TT_ERR_FORMAT);
    assert_int_equal(rec_session_projectors(r, "[]", &err), TT_OK);
    assert_int_equal(rec_session_projectors(r, NULL, &err), TT_OK);
    assert_int_equal(projector_rows(db), 0);
    assert_int_equal(rec_session_projectors(r, "[{\"file\":\"a.json\"}]", &err), TT_OK);
    assert_int_equal(projector_rows(db), 1); /* committed at once */
    assert_int_equal(rec_close(r, &err), TT_OK);
    remove(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_projectors),
        cmocka_unit_test(test_recorder_projectors),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
