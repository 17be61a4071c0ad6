/* test_record.c - the recording library: change-only storage, sessions,
 * refusing to overwrite, bad files (not a recording, newer schema,
 * truncated, empty) with nothing written, the replay loader, JSON Lines,
 * HTML, video, and the example SQL of docs/api.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cvwrap_capture.h"
#include "rec.h"
#include "rec_fixture.h"
#include "tt_palette.h"
#include "test_util.h"

/* ---- change detection --------------------------------------------------- */

static long long count_rows(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long n = -1;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    else
        fail_msg("SQL failed: %s: %s", sql, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

static void test_stores_changes_only(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "g.sqlite");
    rec *r = NULL;
    tt_err err = {0};
    assert_int_equal(rec_open(path, REC_CREATE_NEW, &r, &err), TT_OK);
    assert_int_equal(rec_session_begin(r, "{}", NULL, NULL, &err), TT_OK);
    rec_figure f = {"tag36h11", 7, 10.0, 10.0, 45.0, REC_SEEN, 0, 0, 0, 0};
    rec_figure g2 = {"tag36h11", 8, 20.0, 20.0, 0.0, REC_SEEN, 0, 0, 0, 0};
    rec_figure both[2] = {f, g2};
    long fr = 0;
    assert_int_equal(rec_frame(r, fr++, 0, both, 2, &err), TT_OK); /* appear: 2 rows */
    assert_int_equal(rec_rows_written(r), 2);
    for (int i = 0; i < 50; i++) { /* jitter below 0.02" and 1 degree */
        both[0].x = 10.0 + (i % 2 ? 0.009 : -0.009);
        both[0].facing_deg = 45.0 + (i % 2 ? 0.4 : -0.4);
        assert_int_equal(rec_frame(r, fr, fr * 33, both, 2, &err), TT_OK);
        fr++;
    }
    assert_int_equal(rec_rows_written(r), 2);
    both[0].x = 10.05; /* moved */
    assert_int_equal(rec_frame(r, fr, fr * 33, both, 2, &err), TT_OK);
    fr++;
    assert_int_equal(rec_rows_written(r), 3);
    both[0].facing_deg = 50; /* turned */
    assert_int_equal(rec_frame(r, fr, fr * 33, both, 2, &err), TT_OK);
    fr++;
    assert_int_equal(rec_rows_written(r), 4);
    both[1].facing_deg = 179.8; /* wrap-around: 179.8 vs -179.9 is 0.3 degrees */
    assert_int_equal(rec_frame(r, fr, fr * 33, both, 2, &err), TT_OK);
    fr++;
    assert_int_equal(rec_rows_written(r), 5);
    both[1].facing_deg = -179.9;
    assert_int_equal(rec_frame(r, fr, fr * 33, both, 2, &err), TT_OK);
    fr++;
    assert_int_equal(rec_rows_written(r), 5);
    both[0].state = REC_OCCLUDED; /* state change */
    assert_int_equal(rec_frame(r, fr, fr * 33, both, 2, &err), TT_OK);
    fr++;
    assert_int_equal(rec_rows_written(r), 6);
    assert_int_equal(rec_frame(r, fr, fr * 33, &both[1], 1, &err), TT_OK); /* 7 missing: lost */
    fr++;
    assert_int_equal(rec_rows_written(r), 7);
    assert_int_equal(rec_frame(r, fr, fr * 33, &both[1], 1, &err), TT_OK); /* still missing: nothing */
    fr++;
    assert_int_equal(rec_rows_written(r), 7);
    both[0].state = REC_SEEN; /* back */
    assert_int_equal(rec_frame(r, fr, fr * 33, both, 2, &err), TT_OK);
    assert_int_equal(rec_rows_written(r), 8);
    assert_int_equal(rec_close(r, &err), TT_OK);

    assert_int_equal(count_rows(path, "SELECT count(*) FROM state"), 8);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM state WHERE state = 'lost'"), 1);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM figure"), 2);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM session WHERE ended_utc IS NOT NULL"), 1);
    assert_int_equal(count_rows(path, "PRAGMA application_id"), REC_APPLICATION_ID);
    assert_int_equal(count_rows(path, "PRAGMA user_version"), REC_SCHEMA_VERSION);
    free(path);
    tu_dir_remove(&d);
}

static void test_api_misuse(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "g.sqlite");
    rec *r = NULL;
    tt_err err = {0};
    rec_figure f = {"tag36h11", 7, 10.0, 10.0, 45.0, REC_SEEN, 0, 0, 0, 0};
    assert_int_equal(rec_open(path, REC_APPEND, &r, &err), TT_OK);
    assert_int_equal(rec_frame(r, 0, 0, &f, 1, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "rec_session_begin"));
    assert_int_equal(rec_session_begin(r, "{not json", NULL, NULL, &err), TT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "line 1"));
    assert_int_equal(rec_session_begin(r, "{}", "{}", NULL, &err), TT_OK);
    assert_int_equal(rec_frame(r, 5, 500, &f, 1, &err), TT_OK);
    assert_int_equal(rec_frame(r, 4, 400, &f, 1, &err), TT_ERR_ARG);
    f.x = NAN;
    assert_int_equal(rec_frame(r, 6, 600, &f, 1, &err), TT_ERR_ARG);
    f.x = 1;
    f.family = "a-family-name-that-is-much-too-long-to-store";
    assert_int_equal(rec_frame(r, 6, 600, &f, 1, &err), TT_ERR_ARG);
    assert_int_equal(rec_query(r, 6, 600, "{\"q\":\"los\"", "{}", &err), TT_ERR_FORMAT);
    assert_int_equal(rec_query(r, 6, 600, "[1]", "{}", &err), TT_ERR_FORMAT);
    rec_options bad = {0, 0, 5000};
    assert_int_equal(rec_set_options(r, &bad, &err), TT_ERR_ARG);
    assert_int_equal(rec_close(r, &err), TT_OK);
    assert_int_equal(rec_close(NULL, &err), TT_OK);
    rec_game_destroy(NULL);
    free(path);
    tu_dir_remove(&d);
}

/* A query row carries the frame it was shown on (given by the caller, not
 * the last frame recorded before it), and its numbers are stored as printed:
 * 7.63 stays "7.63", never 7.6299999999999999. */
static void test_query_frame_and_numbers(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "g.sqlite");
    rec *r = NULL;
    tt_err err = {0};
    rec_figure f = {"tag36h11", 7, 10.0, 10.0, 45.0, REC_SEEN, 0, 0, 0, 0};
    assert_int_equal(rec_open(path, REC_APPEND, &r, &err), TT_OK);
    assert_int_equal(rec_session_begin(r, "{\"table\":{\"width_in\":72.3}}", NULL, NULL, &err), TT_OK);
    assert_int_equal(rec_query(r, -1, 0, "{\"q\":\"los\",\"from\":\"a\",\"to\":\"b\"}", "{\"visible\":true}", &err),
                     TT_OK);
    for (long fr = 0; fr < 60; fr++) {
        /* as the live loop does: the answer for frame fr before its figures */
        if (fr == 4 || fr == 34 || fr == 58)
            assert_int_equal(rec_query(r, fr, fr * 33, "{\"q\":\"fire\",\"from\":\"a\",\"to\":\"b\",\"x\":0.1}",
                                       "{\"distance_in\":7.63,\"to_hit\":5,\"polygon\":[[0.0001,71.9999]]}", &err),
                             TT_OK);
        assert_int_equal(rec_frame(r, fr, fr * 33, &f, 1, &err), TT_OK);
    }
    assert_int_equal(rec_close(r, &err), TT_OK);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM query WHERE frame IS NULL AND t_ms = 0"), 1);
    assert_int_equal(count_rows(path, "SELECT group_concat(frame, ',') = '4,34,58' FROM "
                                      "(SELECT frame FROM query WHERE frame IS NOT NULL ORDER BY id)"),
                     1);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM query WHERE frame IS NOT NULL AND t_ms = frame * 33"), 3);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM query WHERE answer_json = "
                                      "'{\"distance_in\":7.63,\"to_hit\":5,\"polygon\":[[0.0001,71.9999]]}' "
                                      "AND query_json LIKE '%\"x\":0.1}'"),
                     3);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM session WHERE rig_json = '{\"table\":{\"width_in\":72.3}}'"),
                     1);
    free(path);
    tu_dir_remove(&d);
}

/* ---- sessions, overwrite ------------------------------------------------ */

static void test_refuses_to_overwrite(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "g.sqlite");
    tt_err err = {0};
    assert_int_equal(fixture_record(path, REC_CREATE_NEW, &err), TT_OK);
    tu_sum before = tu_file_sum(path);
    rec *r = NULL;
    assert_int_equal(rec_open(path, REC_CREATE_NEW, &r, &err), TT_ERR_IO);
    assert_null(r);
    assert_non_null(strstr(err.msg, "refusing to overwrite"));
    assert_true(tu_sum_equal(before, tu_file_sum(path)));
    /* an unrelated file too */
    char *txt = tu_path(&d, "notes.txt");
    tu_write(txt, "my notes\n", 9);
    assert_int_equal(rec_open(txt, REC_CREATE_NEW, &r, &err), TT_ERR_IO);
    free(txt);
    free(path);
    tu_dir_remove(&d);
}

static void test_append_sessions(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "g.sqlite");
    tt_err err = {0};
    assert_int_equal(fixture_record(path, REC_APPEND, &err), TT_OK);
    assert_int_equal(fixture_record(path, REC_APPEND, &err), TT_OK);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM session"), 2);
    assert_int_equal(count_rows(path, "SELECT count(DISTINCT session) FROM figure"), 2);
    rec_game *g = NULL;
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    assert_int_equal(rec_game_session(g), 2);
    rec_game_destroy(g);
    assert_int_equal(rec_game_load(path, 1, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    assert_int_equal(rec_game_session(g), 1);
    rec_game_destroy(g);
    g = NULL;
    assert_int_equal(rec_game_load(path, 9, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_ERR_ARG);
    assert_null(g);
    assert_non_null(strstr(err.msg, "sessions: 1, 2"));
    free(path);
    tu_dir_remove(&d);
}

/* ---- bad files: a clear message, and nothing written -------------------- */

static void expect_refused(const char *path, const char *needle)
{
    tu_sum before = tu_file_sum(path);
    tt_err err = {0};
    rec *r = NULL;
    rec_game *g = NULL;
    assert_int_equal(rec_open(path, REC_APPEND, &r, &err), TT_ERR_FORMAT);
    assert_null(r);
    if (!strstr(err.msg, needle))
        fail_msg("rec_open: expected '%s' in: %s", needle, err.msg);
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_ERR_FORMAT);
    assert_null(g);
    if (!strstr(err.msg, needle))
        fail_msg("rec_game_load: expected '%s' in: %s", needle, err.msg);
    assert_true(tu_sum_equal(before, tu_file_sum(path)));
    char side[4096];
    snprintf(side, sizeof side, "%s-wal", path);
    assert_int_not_equal(access(side, F_OK), 0);
    snprintf(side, sizeof side, "%s-journal", path);
    assert_int_not_equal(access(side, F_OK), 0);
}

static void test_not_a_recording(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *txt = tu_path(&d, "game.sqlite");
    tu_write(txt, "{\"this\": \"is JSON, not a database\"}\n", 36);
    expect_refused(txt, "not a tabletrack recording (not an SQLite database)");
    /* an SQLite database of some other program */
    char *other = tu_path(&d, "other.sqlite");
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(other, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE address_book (name TEXT); INSERT INTO address_book VALUES ('x')",
                                  NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    expect_refused(other, "another program");
    free(txt);
    free(other);
    tu_dir_remove(&d);
}

static void test_newer_schema(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "g.sqlite");
    tt_err err = {0};
    assert_int_equal(fixture_record(path, REC_CREATE_NEW, &err), TT_OK);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 7", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    expect_refused(path, "newer tabletrack (recording schema version 7");
    free(path);
    tu_dir_remove(&d);
}

static void test_truncated(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "g.sqlite");
    tt_err err = {0};
    assert_int_equal(fixture_record(path, REC_CREATE_NEW, &err), TT_OK);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(sb.st_size >= 8 * 4096);
    /* cut at a page boundary, in the middle of a page, and inside the header */
    off_t cuts[] = {sb.st_size / 2 / 4096 * 4096, sb.st_size / 2 + 100, 60};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        assert_int_equal(truncate(path, cuts[i]), 0);
        expect_refused(path, "truncated");
    }
    /* an empty file holds no recording (but may be recorded into) */
    assert_int_equal(truncate(path, 0), 0);
    rec_game *g = NULL;
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "empty"));
    assert_int_equal(fixture_record(path, REC_APPEND, &err), TT_OK);
    free(path);
    tu_dir_remove(&d);
}

/* ---- replay ------------------------------------------------------------- */

static void test_time_parse(void **state)
{
    (void)state;
    long long ms;
    tt_err err = {0};
    assert_int_equal(rec_parse_time("75", &ms, &err), TT_OK);
    assert_int_equal(ms, 75000);
    assert_int_equal(rec_parse_time("12.5", &ms, &err), TT_OK);
    assert_int_equal(ms, 12500);
    assert_int_equal(rec_parse_time("1:15", &ms, &err), TT_OK);
    assert_int_equal(ms, 75000);
    assert_int_equal(rec_parse_time("14:05", &ms, &err), TT_OK);
    assert_int_equal(ms, 845000);
    assert_int_equal(rec_parse_time("1:02:03.5", &ms, &err), TT_OK);
    assert_int_equal(ms, 3723500);
    const char *bad[] = {"", "x", "-3", "1:75", "1::2", "1:2:3:4", "3s", "1.5:00", NULL};
    for (int i = 0; bad[i]; i++)
        assert_int_equal(rec_parse_time(bad[i], &ms, &err), TT_ERR_ARG);
}

/* Read JSON Lines from f into an array. */
static json_t *read_lines(FILE *f)
{
    json_t *all = json_array();
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    rewind(f);
    while ((n = getline(&line, &cap, f)) > 0) {
        json_error_t je;
        json_t *j = json_loads(line, 0, &je);
        if (!j)
            fail_msg("bad JSON line: %s (%s)", line, je.text);
        json_array_append_new(all, j);
    }
    free(line);
    return all;
}

static void test_json_lines(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "g.sqlite");
    tt_err err = {0};
    assert_int_equal(fixture_record(path, REC_CREATE_NEW, &err), TT_OK);
    rec_game *g = NULL;
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    assert_int_equal(rec_game_t0(g), 0);
    assert_int_equal(rec_game_t1(g), (FIX_FRAMES - 1) * FIX_DT_MS);
    FILE *f = tmpfile();
    assert_int_equal(rec_game_write_json(g, f, &err), TT_OK);
    rec_game_destroy(g);
    json_t *lines = read_lines(f);
    fclose(f);
    size_t n = json_array_size(lines);
    assert_true(n > 10);
    json_t *head = json_array_get(lines, 0);
    assert_int_equal(json_integer_value(json_object_get(head, "session")), 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(head, "scenario"), "ruleset")),
                        "into-the-breach");
    assert_true(json_is_object(json_object_get(head, "rig")));
    assert_true(json_is_true(json_object_get(json_array_get(lines, n - 1), "end")));
    /* replaying the frame lines gives back the fixture's positions */
    int frames = 0, events = 0, queries = 0, moved = 0;
    double m1x = -1;
    long long last_t = -1;
    for (size_t i = 1; i + 1 < n; i++) {
        json_t *l = json_array_get(lines, i);
        long long t = json_integer_value(json_object_get(l, "t_ms"));
        assert_true(t >= last_t);
        last_t = t;
        if (json_object_get(l, "figures")) {
            frames++;
            size_t k;
            json_t *fg;
            json_array_foreach(json_object_get(l, "figures"), k, fg) {
                assert_string_equal(json_string_value(json_object_get(fg, "family")), "tag36h11");
                assert_true(json_is_number(json_object_get(fg, "facing_deg")));
                if (json_integer_value(json_object_get(fg, "id")) == 10 && t <= 4000)
                    m1x = json_number_value(json_object_get(fg, "x"));
            }
        } else if (json_object_get(l, "event")) {
            events++;
            if (!strcmp(json_string_value(json_object_get(l, "event")), "moved"))
                moved++;
        } else if (json_object_get(l, "query")) {
            queries++;
            assert_true(json_is_object(json_object_get(l, "answer")));
        }
    }
    double want;
    assert_true(fixture_pose(10, 4000, &want, NULL, NULL, NULL));
    assert_true(fabs(m1x - want) < 0.03);
    assert_true(frames > 20 && frames < FIX_FRAMES);
    assert_int_equal(events, 8 + 3); /* 8 appeared at frame 0, 2 moved, 1 removed */
    assert_int_equal(moved, 2);
    assert_int_equal(queries, 4);
    json_decref(lines);

    /* a time range: a keyframe with every figure at --from, nothing outside */
    assert_int_equal(rec_game_load(path, 0, 8500, 12000, &g, &err), TT_OK);
    f = tmpfile();
    assert_int_equal(rec_game_write_json(g, f, &err), TT_OK);
    rec_game_destroy(g);
    lines = read_lines(f);
    fclose(f);
    json_t *key = json_array_get(lines, 1);
    assert_true(json_is_true(json_object_get(key, "keyframe")));
    assert_int_equal(json_integer_value(json_object_get(key, "t_ms")), 8500);
    assert_int_equal(json_array_size(json_object_get(key, "figures")), 9);
    for (size_t i = 1; i + 1 < json_array_size(lines); i++) {
        long long t = json_integer_value(json_object_get(json_array_get(lines, i), "t_ms"));
        assert_true(t >= 8500 && t <= 12000);
    }
    json_decref(lines);
    g = NULL;
    assert_int_equal(rec_game_load(path, 0, 60000, REC_TIME_UNSET, &g, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "after the end"));
    free(path);
    tu_dir_remove(&d);
}

/* The first primitive of `kind` (and `role`, unless NULL) in a query's
 * overlay, after `after` of them. */
static const json_t *ov_prim(const json_t *q, const char *kind, const char *role, int after)
{
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(q, "ov"), i, p) {
        if (!strcmp(json_string_value(json_object_get(p, "kind")), kind) &&
            (!role || !strcmp(json_string_value(json_object_get(p, "role")), role)) && after-- == 0)
            return p;
    }
    return NULL;
}

/* Coordinate k of p's key (a point), or of p itself when key is NULL. */
static double ov_xy(const json_t *p, const char *key, int k)
{
    return json_number_value(json_array_get(key ? json_object_get(p, key) : p, (size_t)k));
}

/* Coordinate k of point i of a polyline or polygon. */
static double ov_pt(const json_t *p, int i, int k)
{
    return ov_xy(json_array_get(json_object_get(p, "points"), (size_t)i), NULL, k);
}

/* The embedded data of a replay page (caller decrefs). */
static json_t *html_data(const char *html)
{
    size_t len;
    char *text = tu_read(html, &len);
    assert_non_null(text);
    char *a = strstr(text, "<script type=\"application/json\" id=\"tt-data\">");
    assert_non_null(a);
    a = strchr(a, '>') + 1;
    char *b = strstr(a, "</script>");
    assert_non_null(b);
    json_error_t je;
    json_t *data = json_loadb(a, (size_t)(b - a), 0, &je);
    if (!data)
        fail_msg("embedded data: %s at %d", je.text, je.column);
    free(text);
    return data;
}

static void test_html_page(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "g.sqlite"), *html = tu_path(&d, "g.html");
    tt_err err = {0};
    assert_int_equal(fixture_record(path, REC_CREATE_NEW, &err), TT_OK);
    rec_game *g = NULL;
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    if (rec_game_write_html(g, html, &err) != TT_OK)
        fail_msg("%s", err.msg);
    rec_game_destroy(g);
    size_t len;
    char *text = tu_read(html, &len);
    assert_non_null(text);
    assert_non_null(strstr(text, "<svg"));
    assert_null(strstr(text, "@@TT_DATA@@"));
    /* self-contained: nothing fetched */
    assert_null(strstr(text, "<script src"));
    assert_null(strstr(text, "<link"));
    assert_null(strstr(text, "@import"));
    /* url() only ever names a part of the page itself (#id: a band's clip) */
    for (const char *u = strstr(text, "url("); u; u = strstr(u + 4, "url("))
        assert_int_equal(u[4], '#');
    /* the embedded data parses and holds the game */
    json_t *data = html_data(html);
    assert_int_equal(json_array_size(json_object_get(data, "figs")), 9);
    assert_int_equal(json_array_size(json_object_get(data, "terrain")), 3);
    assert_int_equal(json_array_size(json_object_get(data, "sides")), 2);
    assert_int_equal(json_array_size(json_object_get(data, "queries")), 4);
    /* the grape overlay is a cone on the gun's (pivoted) facing (table_look's
     * primitives: docs/api.md, "What an answer looks like") */
    const json_t *qs = json_object_get(data, "queries");
    const json_t *cone = ov_prim(json_array_get(qs, 1), "polygon", "arc", 0);
    assert_non_null(cone);
    double sx = 0, sy = 0;
    size_t np = json_array_size(json_object_get(cone, "points"));
    for (size_t k = 0; k < np; k++) {
        sx += ov_xy(json_array_get(json_object_get(cone, "points"), k), NULL, 0);
        sy += ov_xy(json_array_get(json_object_get(cone, "points"), k), NULL, 1);
    }
    double mid = atan2(sy / (double)np - 24, sx / (double)np - 10) * 180 / M_PI;
    assert_true(fabs(mid - 20) < 1.0);
    /* the LOS overlay is a vermillion line m1 -> f2 (blocked, as on the felt) */
    const json_t *los = json_array_get(json_object_get(json_array_get(qs, 0), "ov"), 0);
    assert_string_equal(json_string_value(json_object_get(los, "kind")), "polyline");
    assert_string_equal(json_string_value(json_object_get(los, "role")), "blocked");
    assert_string_equal(tt_palette_role("blocked")->hex, "#d55e00");
    /* the shot at 14 s was recorded as seen, 19.0" away; asked again it is
     * not, 19.9" away: not drawn, and the page says why */
    const json_t *shot = json_array_get(qs, 3);
    assert_int_equal(json_array_size(json_object_get(shot, "ov")), 0);
    const char *why = json_string_value(json_object_get(shot, "note"));
    if (!why || !strstr(why, "asked again"))
        fail_msg("the shot at 14 s: %s", why ? why : "drawn");
    assert_true(json_is_null(json_object_get(json_array_get(qs, 0), "note")));
    json_decref(data);
    free(text);
    free(path);
    free(html);
    tu_dir_remove(&d);
}

static void test_video(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "g.sqlite"), *avi = tu_path(&d, "g.avi"), *mp4 = tu_path(&d, "g.mp4"),
         *bad = tu_path(&d, "g.gif");
    tt_err err = {0};
    assert_int_equal(fixture_record(path, REC_CREATE_NEW, &err), TT_OK);
    rec_game *g = NULL;
    assert_int_equal(rec_game_load(path, 0, 7000, 10000, &g, &err), TT_OK);
    rec_video_opts o = {320, 10, 1, NULL, NULL};
    assert_int_equal(rec_game_write_video(g, avi, &o, &err), TT_OK);
    cvw_capture *cap = NULL;
    assert_int_equal(cvw_capture_open_file(avi, &cap, &err), TT_OK);
    assert_int_equal(cvw_capture_frame_count(cap), 31);
    tt_image im = {0};
    cvw_read_result res;
    assert_int_equal(cvw_capture_read(cap, &im, &res, &err), TT_OK);
    assert_int_equal(res, CVW_FRAME);
    assert_int_equal(im.width, 320);
    tt_image_free(&im);
    cvw_capture_close(cap);
    /* .mp4 needs FFmpeg's MPEG-4 encoder: report, do not fail, if absent */
    tt_status s = rec_game_write_video(g, mp4, &o, &err);
    if (s != TT_OK)
        print_message("note: .mp4 not available here: %s\n", err.msg);
    assert_int_equal(rec_game_write_video(g, bad, &o, &err), TT_ERR_ARG);
    assert_int_not_equal(access(bad, F_OK), 0);
    rec_game_destroy(g);
    free(path);
    free(avi);
    free(mp4);
    free(bad);
    tu_dir_remove(&d);
}

/* The example queries of docs/api.md, "Recordings: the SQLite schema". */
static void test_readme_queries(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "g.sqlite");
    tt_err err = {0};
    assert_int_equal(fixture_record(path, REC_CREATE_NEW, &err), TT_OK);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    /* where was the figure with tag 10 four seconds in? */
    const char *where =
        "SELECT s.x, s.y, s.facing_deg, s.state FROM state s JOIN figure f ON f.id = s.figure "
        "WHERE f.session = (SELECT max(id) FROM session) AND f.tag = 10 AND s.t_ms <= 4000 "
        "ORDER BY s.t_ms DESC LIMIT 1";
    assert_int_equal(sqlite3_prepare_v2(db, where, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    double want;
    fixture_pose(10, 4000, &want, NULL, NULL, NULL);
    assert_true(fabs(sqlite3_column_double(st, 0) - want) < 0.03);
    assert_string_equal((const char *)sqlite3_column_text(st, 3), "seen");
    sqlite3_finalize(st);
    /* every grape shot and what it hit */
    const char *grape = "SELECT t_ms, json_extract(answer_json, '$.targets') FROM query "
                        "WHERE json_extract(query_json, '$.q') = 'grape'";
    assert_int_equal(sqlite3_prepare_v2(db, grape, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 9000);
    assert_string_equal((const char *)sqlite3_column_text(st, 1), "[]");
    sqlite3_finalize(st);
    /* who moved, how often */
    const char *moves = "SELECT f.name, count(*) FROM event e JOIN figure f ON f.id = e.figure "
                        "WHERE e.kind = 'moved' GROUP BY f.id ORDER BY count(*) DESC, f.name";
    assert_int_equal(sqlite3_prepare_v2(db, moves, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "f1");
    assert_int_equal(sqlite3_column_int(st, 1), 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(path);
    tu_dir_remove(&d);
}

/* ---- the scenario changed mid-game ------------------------------------ */

static void test_scenario_change(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "g.sqlite"), *html = tu_path(&d, "g.html");
    rec *r = NULL;
    tt_err err = {0};
    const char *before = "{\"terrain\":[{\"id\":\"wood\",\"kind\":\"woods\",\"polygon\":[[1,1],[4,1],[4,4]]}],"
                         "\"figures\":[{\"id\":\"m1\",\"side\":\"red\"}],\"tags\":{\"7\":\"m1\"}}";
    const char *after = "{\"terrain\":[{\"id\":\"wood\",\"kind\":\"woods\",\"polygon\":[[1,1],[4,1],[4,4]]},"
                        "{\"id\":\"traced\",\"kind\":\"wall\",\"line\":[[10,0],[10,20]]}],"
                        "\"figures\":[{\"id\":\"m1\",\"side\":\"red\"},{\"id\":\"b2\",\"side\":\"blue\"}],"
                        "\"tags\":{\"7\":\"m1\",\"8\":\"b2\"}}";
    rec_figure f[2] = {{"tag36h11", 7, 5.0, 5.0, 0.0, REC_SEEN, 0, 0, 0, 0},
                       {"tag36h11", 8, 15.0, 5.0, 0.0, REC_SEEN, 0, 0, 0, 0}};
    assert_int_equal(rec_open(path, REC_CREATE_NEW, &r, &err), TT_OK);
    assert_int_equal(rec_session_begin(r, NULL, before, NULL, &err), TT_OK);
    assert_int_equal(rec_scenario(r, 1, 0, "{\"terrain\": [", &err), TT_ERR_FORMAT); /* refused, nothing kept */
    for (long fr = 0; fr < 20; fr++) {
        if (fr == 10)
            assert_int_equal(rec_scenario(r, fr - 1, (fr - 1) * 100, after, &err), TT_OK);
        assert_int_equal(rec_frame(r, fr, fr * 100, f, 2, &err), TT_OK);
    }
    assert_int_equal(rec_close(r, &err), TT_OK);
    assert_int_equal(count_rows(path, "PRAGMA user_version"), REC_SCHEMA_VERSION);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM scenario_change WHERE frame = 9 AND t_ms = 900"), 1);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM scenario_change"), 1);
    /* tag 8 was recorded unnamed before the change, named after it */
    assert_int_equal(count_rows(path, "SELECT count(*) FROM figure WHERE tag = 8 AND name = 'b2' AND side = 'blue'"), 1);

    rec_game *g = NULL;
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    /* JSON Lines: the change in time order, with the whole scenario */
    FILE *tf = tmpfile();
    assert_int_equal(rec_game_write_json(g, tf, &err), TT_OK);
    json_t *lines = read_lines(tf);
    fclose(tf);
    size_t i, seen = 0;
    json_t *l;
    long long last_t = -1;
    json_array_foreach(lines, i, l) {
        json_t *t = json_object_get(l, "t_ms");
        if (json_object_get(l, "scenario") && i > 0) {
            seen++;
            assert_int_equal(json_integer_value(json_object_get(l, "frame")), 9);
            assert_int_equal(json_integer_value(t), 900);
            assert_int_equal(json_array_size(json_object_get(json_object_get(l, "scenario"), "terrain")), 2);
        }
        if (i > 0 && json_is_integer(t)) {
            assert_true(json_integer_value(t) >= last_t);
            last_t = json_integer_value(t);
        }
    }
    assert_int_equal(seen, 1);
    json_decref(lines);
    /* the page: the first terrain, then the traced wall from 900 ms */
    assert_int_equal(rec_game_write_html(g, html, &err), TT_OK);
    rec_game_destroy(g);
    json_t *data = html_data(html);
    assert_int_equal(json_array_size(json_object_get(data, "terrain")), 1);
    json_t *ch = json_object_get(data, "terrain_changes");
    assert_int_equal(json_array_size(ch), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(ch, 0), "t")), 900);
    json_t *traced = json_array_get(json_object_get(json_array_get(ch, 0), "terrain"), 1);
    assert_string_equal(json_string_value(json_object_get(traced, "id")), "traced");
    assert_true(json_is_false(json_object_get(traced, "closed")));
    assert_int_equal(json_array_size(json_object_get(data, "sides")), 2);
    json_decref(data);

    /* a version 1 recording (no scenario_change table) is still read, and
     * appending to it makes it this version */
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "DROP TABLE scenario_change; PRAGMA user_version = 1", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    rec_game_destroy(g);
    assert_int_equal(rec_open(path, REC_APPEND, &r, &err), TT_OK);
    assert_int_equal(rec_session_begin(r, NULL, before, NULL, &err), TT_OK);
    assert_int_equal(rec_scenario(r, -1, 0, after, &err), TT_OK);
    assert_int_equal(rec_close(r, &err), TT_OK);
    assert_int_equal(count_rows(path, "PRAGMA user_version"), REC_SCHEMA_VERSION);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM scenario_change WHERE frame IS NULL"), 1);
    /* a version 2 file without the table is damaged */
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = DELETE; DROP TABLE scenario_change", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    expect_refused(path, "is damaged");
    free(path);
    free(html);
    tu_dir_remove(&d);
}

/* Issue 20: heights.  A figure's z_in and a "height" event are stored and
 * come back in the replay's JSON; a version 2 recording (no z_in columns)
 * still loads, every figure on the felt, and appending makes it version 3. */
static void test_heights(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "h.sqlite");
    rec *r = NULL;
    rec_game *g = NULL;
    tt_err err = {0};
    rec_figure f[2] = {{"tag36h11", 7, 5.0, 5.0, 0.0, REC_SEEN, 2.0, 0, 0, 0},
                       {"tag36h11", 8, 15.0, 5.0, 0.0, REC_SEEN, 0, 0, 0, 0}};
    const double to[2] = {5, 5};
    assert_int_equal(rec_open(path, REC_CREATE_NEW, &r, &err), TT_OK);
    assert_int_equal(rec_session_begin(r, NULL, NULL, NULL, &err), TT_OK);
    assert_int_equal(rec_frame(r, 0, 0, f, 2, &err), TT_OK);
    f[0].z_in = 2.01; /* within pos_eps: not a new row */
    assert_int_equal(rec_frame(r, 1, 100, f, 2, &err), TT_OK);
    assert_int_equal(rec_event_height(r, 1, 100, "tag36h11", 7, to, 2.01, &err), TT_OK);
    assert_int_equal(rec_event_height(r, 1, 100, "tag36h11", 7, to, NAN, &err), TT_ERR_ARG);
    assert_int_equal(rec_event(r, 1, 100, REC_EV_HEIGHT, "tag36h11", 7, NULL, to, &err), TT_ERR_ARG);
    f[0].z_in = INFINITY;
    assert_int_equal(rec_frame(r, 2, 200, f, 2, &err), TT_ERR_ARG);
    f[0].z_in = 0; /* taken down from the hill: a new row */
    assert_int_equal(rec_frame(r, 2, 200, f, 2, &err), TT_OK);
    assert_int_equal(rec_close(r, &err), TT_OK);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM state WHERE z_in = 2"), 1);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM state"), 3);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM event WHERE kind = 'height' AND z_in > 2"), 1);

    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    FILE *o = tmpfile();
    assert_non_null(o);
    assert_int_equal(rec_game_write_json(g, o, &err), TT_OK);
    /* the HTML replay's events carry the height too: [t, kind, fig, from, to, z_in] */
    char *html = tu_path(&d, "h.html");
    assert_int_equal(rec_game_write_html(g, html, &err), TT_OK);
    char *page = tu_read(html, NULL);
    assert_non_null(page);
    char *ev = strstr(page, "\"events\":["), *end = ev ? strstr(ev, "],\"queries\":") : NULL;
    assert_non_null(end);
    end[1] = 0;
    json_t *evs = json_loads(ev + strlen("\"events\":"), 0, NULL);
    assert_true(json_is_array(evs));
    int hev = 0;
    for (size_t i = 0; i < json_array_size(evs); i++) {
        json_t *e = json_array_get(evs, i);
        assert_int_equal(json_array_size(e), 8);
        if (json_integer_value(json_array_get(e, 1)) == REC_EV_HEIGHT) {
            hev++;
            assert_true(fabs(json_number_value(json_array_get(e, 7)) - 2.01) < 1e-3);
        } else
            assert_true(json_is_null(json_array_get(e, 7)));
    }
    assert_int_equal(hev, 1);
    json_decref(evs);
    free(page);
    free(html);
    rec_game_destroy(g);
    json_t *lines = read_lines(o);
    fclose(o);
    int frames = 0, heights = 0;
    for (size_t i = 0; i < json_array_size(lines); i++) {
        json_t *l = json_array_get(lines, i), *figs = json_object_get(l, "figures");
        const char *ev = json_string_value(json_object_get(l, "event"));
        if (ev && !strcmp(ev, "height")) {
            heights++;
            assert_true(fabs(json_number_value(json_object_get(l, "z_in")) - 2.01) < 1e-9);
            assert_true(json_number_value(json_array_get(json_object_get(l, "to"), 0)) == 5);
        }
        for (size_t k = 0; k < json_array_size(figs); k++) {
            json_t *fg = json_array_get(figs, k);
            double z = json_number_value(json_object_get(fg, "z_in"));
            assert_true(json_is_number(json_object_get(fg, "z_in")));
            long fr = (long)json_integer_value(json_object_get(l, "frame"));
            int id = (int)json_integer_value(json_object_get(fg, "id"));
            assert_true(z == (id == 7 && fr == 0 ? 2.0 : 0.0));
            frames += fr == 0 && id == 7;
        }
    }
    assert_int_equal(heights, 1);
    assert_int_equal(frames, 1);
    json_decref(lines);

    /* as a version 2 file: no z_in columns */
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = DELETE; DELETE FROM event WHERE kind = 'height'; "
                                      "ALTER TABLE state DROP COLUMN z_in; ALTER TABLE event DROP COLUMN z_in; "
                                      "PRAGMA user_version = 2",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    o = tmpfile();
    assert_non_null(o);
    assert_int_equal(rec_game_write_json(g, o, &err), TT_OK);
    rec_game_destroy(g);
    lines = read_lines(o);
    fclose(o);
    int seen = 0;
    for (size_t i = 0; i < json_array_size(lines); i++) {
        json_t *figs = json_object_get(json_array_get(lines, i), "figures");
        for (size_t k = 0; k < json_array_size(figs); k++) {
            assert_true(json_number_value(json_object_get(json_array_get(figs, k), "z_in")) == 0);
            seen++;
        }
    }
    assert_true(seen >= 2);
    json_decref(lines);
    assert_int_equal(rec_open(path, REC_APPEND, &r, &err), TT_OK);
    assert_int_equal(rec_session_begin(r, NULL, NULL, NULL, &err), TT_OK);
    f[0].z_in = 1.5;
    assert_int_equal(rec_frame(r, 0, 0, f, 2, &err), TT_OK);
    assert_int_equal(rec_close(r, &err), TT_OK);
    assert_int_equal(count_rows(path, "PRAGMA user_version"), REC_SCHEMA_VERSION);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM state WHERE z_in = 1.5"), 1);
    free(path);
    tu_dir_remove(&d);
}

/* Issue 29: each figure's errors are stored and come back in the replay's
 * JSON; an error that doubles is a new row; a negative or NaN error is
 * refused; a version 3 recording (no error columns) still loads, without
 * them, and appending makes it version 4. */
static void test_errors(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "e.sqlite");
    rec *r = NULL;
    rec_game *g = NULL;
    tt_err err = {0};
    rec_figure f[2] = {{"tag36h11", 7, 5.0, 5.0, 0.0, REC_SEEN, 2.0, 0.25, 0.6, 3.5},
                       {"tag36h11", 8, 15.0, 5.0, 0.0, REC_SEEN, 0, 0.004, 0.005, 0.4}};
    assert_int_equal(rec_open(path, REC_CREATE_NEW, &r, &err), TT_OK);
    assert_int_equal(rec_session_begin(r, NULL, NULL, NULL, &err), TT_OK);
    assert_int_equal(rec_frame(r, 0, 0, f, 2, &err), TT_OK);
    f[0].err95_in = 0.26; /* a small change: no new row */
    assert_int_equal(rec_frame(r, 1, 100, f, 2, &err), TT_OK);
    f[0].err95_in = 0.1; /* averaged while still: surer, a new row */
    assert_int_equal(rec_frame(r, 2, 200, f, 2, &err), TT_OK);
    f[1].z_err95_in = -0.1;
    assert_int_equal(rec_frame(r, 3, 300, f, 2, &err), TT_ERR_ARG);
    f[1].z_err95_in = NAN;
    assert_int_equal(rec_frame(r, 3, 300, f, 2, &err), TT_ERR_ARG);
    f[1].z_err95_in = 0.005;
    assert_int_equal(rec_close(r, &err), TT_OK);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM state"), 3);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM state WHERE err95_in = 0.1"), 1);
    assert_int_equal(count_rows(path, "PRAGMA user_version"), REC_SCHEMA_VERSION); /* 4 until issue 30's 5 */

    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    FILE *o = tmpfile();
    assert_non_null(o);
    assert_int_equal(rec_game_write_json(g, o, &err), TT_OK);
    rec_game_destroy(g);
    json_t *lines = read_lines(o);
    fclose(o);
    int seen = 0;
    for (size_t i = 0; i < json_array_size(lines); i++) {
        json_t *l = json_array_get(lines, i), *figs = json_object_get(l, "figures");
        long fr = (long)json_integer_value(json_object_get(l, "frame"));
        for (size_t k = 0; k < json_array_size(figs); k++) {
            json_t *fg = json_array_get(figs, k);
            int id = (int)json_integer_value(json_object_get(fg, "id"));
            double e = json_number_value(json_object_get(fg, "err95_in"));
            if (id == 7)
                assert_true(fabs(e - (fr >= 2 ? 0.1 : 0.25)) < 1e-12);
            else
                assert_true(fabs(e - 0.004) < 1e-12 &&
                            fabs(json_number_value(json_object_get(fg, "z_err95_in")) - 0.005) < 1e-12 &&
                            fabs(json_number_value(json_object_get(fg, "facing_err95_deg")) - 0.4) < 1e-12);
            seen++;
        }
    }
    assert_true(seen >= 3);
    json_decref(lines);

    /* as a version 3 file: no error columns */
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = DELETE; ALTER TABLE state DROP COLUMN err95_in; "
                                      "ALTER TABLE state DROP COLUMN z_err95_in; "
                                      "ALTER TABLE state DROP COLUMN facing_err95_deg; PRAGMA user_version = 3",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    o = tmpfile();
    assert_non_null(o);
    assert_int_equal(rec_game_write_json(g, o, &err), TT_OK);
    rec_game_destroy(g);
    lines = read_lines(o);
    fclose(o);
    seen = 0;
    for (size_t i = 0; i < json_array_size(lines); i++) {
        json_t *figs = json_object_get(json_array_get(lines, i), "figures");
        for (size_t k = 0; k < json_array_size(figs); k++) {
            assert_null(json_object_get(json_array_get(figs, k), "err95_in"));
            seen++;
        }
    }
    assert_true(seen >= 3);
    json_decref(lines);
    assert_int_equal(rec_open(path, REC_APPEND, &r, &err), TT_OK);
    assert_int_equal(rec_session_begin(r, NULL, NULL, NULL, &err), TT_OK);
    assert_int_equal(rec_frame(r, 0, 0, f, 2, &err), TT_OK);
    assert_int_equal(rec_close(r, &err), TT_OK);
    assert_int_equal(count_rows(path, "PRAGMA user_version"), REC_SCHEMA_VERSION);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM state WHERE err95_in = 0.1"), 1);
    free(path);
    tu_dir_remove(&d);
}

/* ---- deviate, charge and a unit's fire on the replay ------------------ */

static void test_html_deviate_charge_unit(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "g.sqlite"), *html = tu_path(&d, "g.html");
    tt_err err = {0};
    assert_int_equal(fixture_record_shots(path, &err), TT_OK);
    rec_game *g = NULL;
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    if (rec_game_write_html(g, html, &err) != TT_OK)
        fail_msg("%s", err.msg);
    rec_game_destroy(g);
    json_t *data = html_data(html);
    const json_t *qs = json_object_get(data, "queries");
    assert_int_equal(json_array_size(qs), 3);
    /* deviate: the aim from the mortar (dashed), the stray from the aim to
     * the impact (solid), a cross there and the 2" blast around it */
    const json_t *dv = json_array_get(qs, 0), *aim = ov_prim(dv, "polyline", "clear", 0);
    const json_t *stray = ov_prim(dv, "polyline", "blast", 0);
    if (json_is_string(json_object_get(dv, "note")))
        fail_msg("deviate not drawn: %s", json_string_value(json_object_get(dv, "note")));
    assert_non_null(aim);
    assert_non_null(stray);
    assert_true(fabs(ov_pt(aim, 0, 0) - 60) < 0.05 && fabs(ov_pt(aim, 1, 0) - 45) < 1e-9);
    assert_true(json_is_true(json_object_get(aim, "dashed")));
    /* (the answer's JSON gives the impact to 0.01") */
    double ix = ov_pt(stray, 1, 0), iy = ov_pt(stray, 1, 1);
    assert_true(fabs(ov_pt(stray, 0, 0) - 45) < 1e-9 && fabs(ix - 43.61) < 0.01 && fabs(iy - 23.33) < 0.01);
    assert_null(json_object_get(stray, "dashed"));
    /* the cross: two strokes crossing at the impact */
    const json_t *x1 = ov_prim(dv, "polyline", "blast", 1), *x2 = ov_prim(dv, "polyline", "blast", 2);
    assert_non_null(x1);
    assert_non_null(x2);
    assert_true(fabs((ov_pt(x1, 0, 0) + ov_pt(x1, 1, 0)) / 2 - ix) < 1e-3 &&
                fabs((ov_pt(x2, 0, 1) + ov_pt(x2, 1, 1)) / 2 - iy) < 1e-3);
    const json_t *blast = ov_prim(dv, "polygon", "blast", 0);
    assert_non_null(blast);
    double rmax = 0;
    for (int k = 0; k < (int)json_array_size(json_object_get(blast, "points")); k++)
        rmax = fmax(rmax, hypot(ov_pt(blast, k, 0) - ix, ov_pt(blast, k, 1) - iy));
    /* the impact and every point are rounded to 0.01" (docs/api.md): each
     * off by at most 0.0071", so the radius by at most 0.0142" */
    assert_true(fabs(rmax - 2.0) < 0.0142);
    /* charge: 38.3" from m1 straight at f2, vermillion (too far), f2 ringed */
    const json_t *ch = json_array_get(qs, 1), *path_l = ov_prim(ch, "polyline", "blocked", 0);
    assert_non_null(path_l);
    double L = hypot(ov_pt(path_l, 1, 0) - ov_pt(path_l, 0, 0), ov_pt(path_l, 1, 1) - ov_pt(path_l, 0, 1));
    assert_true(fabs(L - 38.3) < 0.05);
    assert_true(fabs(ov_pt(path_l, 0, 0) - 12) < 0.05 && fabs(ov_pt(path_l, 0, 1) - 30) < 0.05);
    /* its end on the line to f2 (50,20) */
    assert_true(fabs((ov_pt(path_l, 1, 1) - 30) * 38 - (ov_pt(path_l, 1, 0) - 12) * -10) < 0.5);
    const json_t *ring = ov_prim(ch, "circle", "target", 0);
    assert_non_null(ring);
    assert_true(fabs(ov_xy(ring, "at", 0) - 50) < 0.05 && fabs(ov_xy(ring, "at", 1) - 20) < 0.05);
    /* the unit's fire: a line from each firer (m1 and m2) to f1, in its
     * shot's range band, as on the felt (long: orange) */
    const json_t *uf = json_array_get(qs, 2);
    const json_t *shots = json_object_get(json_object_get(uf, "a"), "shots");
    for (size_t k = 0; k < 2; k++) {
        const char *b = json_string_value(json_object_get(json_array_get(shots, k), "bracket"));
        assert_non_null(b);
        assert_string_equal(b, "long");
    }
    const json_t *l1 = ov_prim(uf, "polyline", "long", 0), *l2 = ov_prim(uf, "polyline", "long", 1);
    assert_non_null(l1);
    assert_non_null(l2);
    assert_true(fabs(ov_pt(l1, 0, 1) - 30) < 0.05 && fabs(ov_pt(l2, 0, 1) - 32) < 0.05);
    assert_true(fabs(ov_pt(l1, 1, 0) - 22) < 0.05 && fabs(ov_pt(l2, 1, 0) - 22) < 0.05);
    assert_string_equal(tt_palette_role("long")->hex, "#e69f00");
    assert_non_null(ov_prim(uf, "circle", "target", 0));
    json_decref(data);
    free(path);
    free(html);
    tu_dir_remove(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stores_changes_only), cmocka_unit_test(test_api_misuse),
        cmocka_unit_test(test_query_frame_and_numbers),
        cmocka_unit_test(test_refuses_to_overwrite), cmocka_unit_test(test_append_sessions),
        cmocka_unit_test(test_not_a_recording),      cmocka_unit_test(test_newer_schema),
        cmocka_unit_test(test_truncated),            cmocka_unit_test(test_time_parse),
        cmocka_unit_test(test_json_lines),           cmocka_unit_test(test_html_page),
        cmocka_unit_test(test_video),                cmocka_unit_test(test_readme_queries),
        cmocka_unit_test(test_scenario_change),      cmocka_unit_test(test_html_deviate_charge_unit),
        cmocka_unit_test(test_heights),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
