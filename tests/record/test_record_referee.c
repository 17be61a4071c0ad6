/* test_record_referee.c - issue 30 in recordings (schema 5): the referee's
 * events recorded and given back by 'replay --json' as the lines 'track
 * --events' wrote; refused when malformed; the story turn by turn (phases
 * and the log) from the game and from the file; recordings of schema 1
 * and 4 still load (files from older builds, tests/data/recordings) and
 * appending makes them 5; a version 5 file without its table is damaged;
 * the hall's copy (rec_feed -> rec_copy) carries the rows; the replay's
 * video and page show what the felt showed of the referee at each moment
 * (its checks and calls kept as the live table keeps them, and where the
 * game stood). */
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

#include "rec.h"
#include "rec_copy.h"
#include "rec_draw.h"
#include "test_util.h"

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

/* Two sides: red (f1..f12 in u1) and blue (b1..b5 in u4). */
static const char scenario[] =
    "{\"ruleset\":\"into-the-breach\",\"table\":{\"width_in\":48,\"depth_in\":36},\"figures\":["
    "{\"id\":\"f1\",\"side\":\"red\",\"unit\":\"u1\",\"x\":1,\"y\":1},{\"id\":\"f2\",\"side\":\"red\",\"unit\":\"u1\",\"x\":2,\"y\":1},"
    "{\"id\":\"f3\",\"side\":\"red\",\"unit\":\"u1\",\"x\":3,\"y\":1},{\"id\":\"f4\",\"side\":\"red\",\"unit\":\"u1\",\"x\":4,\"y\":1},"
    "{\"id\":\"f5\",\"side\":\"red\",\"unit\":\"u1\",\"x\":5,\"y\":1},{\"id\":\"f7\",\"side\":\"red\",\"unit\":\"u1\",\"x\":7,\"y\":1},"
    "{\"id\":\"f12\",\"side\":\"red\",\"unit\":\"u1\",\"x\":12,\"y\":1},"
    "{\"id\":\"b1\",\"side\":\"blue\",\"unit\":\"u4\",\"x\":1,\"y\":30},{\"id\":\"b2\",\"side\":\"blue\",\"unit\":\"u4\",\"x\":2,\"y\":30}],"
    "\"tags\":{\"11\":\"f1\",\"21\":\"b1\"}}";

/* The referee's lines of a two-turn game, as game_referee.c writes them
 * (compact, 6 significant digits), at frame i*10. */
static const char *const lines[] = {
    "{\"event\":\"phase\",\"turn\":1,\"phase\":\"movement\",\"side\":\"red\"}",
    "{\"event\":\"move_check\",\"id\":\"f1\",\"from\":[1.0,1.0],\"to\":[1.0,5.5],\"distance_in\":4.5,\"allowed_in\":6.0,"
    "\"ok\":true,\"too_close_to_call\":false,\"rule\":\"into-the-breach.txt L74\"}",
    "{\"event\":\"move_check\",\"id\":\"f7\",\"from\":[7.0,1.0],\"to\":[7.0,3.0],\"distance_in\":2.0,\"allowed_in\":6.0,"
    "\"ok\":true,\"too_close_to_call\":false,\"rule\":\"into-the-breach.txt L74\"}",
    "{\"event\":\"move_check\",\"id\":\"f7\",\"from\":[7.0,1.0],\"to\":[7.0,1.05],\"distance_in\":0.05,\"allowed_in\":6.0,"
    "\"ok\":true,\"too_close_to_call\":false,\"rule\":\"into-the-breach.txt L74\",\"put_back\":true}",
    "{\"event\":\"out_of_turn\",\"id\":\"b1\",\"rule\":\"it is red's movement: blue figures wait\"}",
    "{\"event\":\"phase\",\"turn\":2,\"phase\":\"movement\",\"side\":\"red\"}",
    "{\"event\":\"move_check\",\"id\":\"f1\",\"from\":[1.0,5.5],\"to\":[1.0,9.5],\"distance_in\":4.0,\"allowed_in\":6.0,"
    "\"ok\":true,\"too_close_to_call\":false,\"rule\":\"L74\"}",
    "{\"event\":\"move_check\",\"id\":\"f2\",\"from\":[2.0,1.0],\"to\":[2.0,7.0],\"distance_in\":6.0,\"allowed_in\":6.0,"
    "\"ok\":true,\"too_close_to_call\":false,\"rule\":\"L74\"}",
    "{\"event\":\"move_check\",\"id\":\"f3\",\"from\":[3.0,1.0],\"to\":[3.0,6.0],\"distance_in\":5.0,\"allowed_in\":6.0,"
    "\"ok\":true,\"too_close_to_call\":false,\"rule\":\"L74\"}",
    "{\"event\":\"move_check\",\"id\":\"f4\",\"from\":[4.0,1.0],\"to\":[4.0,6.0],\"distance_in\":5.0,\"allowed_in\":6.0,"
    "\"ok\":true,\"too_close_to_call\":false,\"rule\":\"L74\"}",
    "{\"event\":\"move_check\",\"id\":\"f5\",\"from\":[5.0,1.0],\"to\":[5.0,6.0],\"distance_in\":5.0,\"allowed_in\":6.0,"
    "\"ok\":true,\"too_close_to_call\":false,\"rule\":\"L74\"}",
    "{\"event\":\"move_check\",\"id\":\"f12\",\"from\":[12.0,1.0],\"to\":[12.0,7.8],\"distance_in\":6.8,\"allowed_in\":6.0,"
    "\"ok\":false,\"too_close_to_call\":false,\"rule\":\"L74\"}",
    "{\"event\":\"phase\",\"turn\":2,\"phase\":\"shooting\",\"side\":\"red\"}",
    "{\"event\":\"casualties\",\"unit\":\"u4\",\"lost\":2,\"of\":8,\"since_turn_start\":2}",
    "{\"event\":\"casualties\",\"unit\":\"u4\",\"lost\":1,\"of\":8,\"since_turn_start\":3}",
    "{\"event\":\"morale\",\"unit\":\"u4\",\"call\":\"morale\",\"test\":{\"dice\":\"2d6\",\"needs\":6,\"modifiers\":[]},"
    "\"result\":null,\"rule\":\"into-the-breach.txt L8-10: a unit that has lost a quarter tests\"}",
    "{\"event\":\"phase\",\"turn\":2,\"phase\":\"assault\",\"side\":null}",
};
#define NLINES (sizeof lines / sizeof lines[0])

static const char turn1[] = "Turn 1 \xc2\xb7 red moved 1 figure; blue moved 1 figure, b1 out of turn";
static const char turn2[] = "Turn 2 \xc2\xb7 red moved 6 figures, f12 0.8\" over; blue lost 3 of u4: morale 6+ (L8-10)";

/* A game of 60 frames at 100 ms with the lines above every 10th frame
 * from frame 3 (after that frame's figures). */
static void record_game(const char *path, rec_mode mode)
{
    rec *r = NULL;
    tt_err err = {0};
    assert_int_equal(rec_open(path, mode, &r, &err), TT_OK);
    assert_int_equal(rec_session_begin(r, NULL, scenario, NULL, &err), TT_OK);
    size_t k = 0;
    for (long f = 0; f < 60; f++) {
        rec_figure fig[2] = {{"tag36h11", 11, 1.0, 1.0 + f * 0.1, 0, REC_SEEN, 0, 0.02, 0, 0},
                             {"tag36h11", 21, 1.0, 30.0, 0, REC_SEEN, 0, 0.02, 0, 0}};
        assert_int_equal(rec_frame(r, f, f * 100, fig, 2, &err), TT_OK);
        for (; k < NLINES && (long)k * 3 + 3 <= f; k++)
            if (rec_referee(r, f, f * 100, lines[k], &err) != TT_OK)
                fail_msg("rec_referee line %zu: %s", k, err.msg);
    }
    assert_int_equal(k, NLINES);
    assert_int_equal(rec_close(r, &err), TT_OK);
}

/* `replay --json` of path: its lines as text (caller frees). */
static char *replay_json(const char *path, rec_game **keep)
{
    rec_game *g = NULL;
    tt_err err = {0};
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(rec_game_write_json(g, f, &err), TT_OK);
    fclose(f);
    if (keep)
        *keep = g;
    else
        rec_game_destroy(g);
    return text;
}

static void test_recorded_and_replayed(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "ref.sqlite");
    record_game(path, REC_CREATE_NEW);
    assert_int_equal(count_rows(path, "PRAGMA user_version"), 5);
    assert_int_equal(REC_SCHEMA_VERSION, 5);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM referee"), (long long)NLINES);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM referee WHERE event = 'move_check'"), 9);
    char *text = replay_json(path, NULL);
    /* each referee line is the --events line with "frame" and "t_ms" first,
     * in order, after the frame line of its time */
    size_t k = 0;
    const char *prev = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strstr(line, "\"event\":\"") || strstr(line, "\"family\""))
            goto next;
        assert_true(k < NLINES);
        long f = (long)k * 3 + 3;
        char want[1024];
        snprintf(want, sizeof want, "{\"frame\":%ld,\"t_ms\":%ld,%s", f, f * 100, lines[k] + 1);
        assert_string_equal(line, want);
        assert_non_null(prev);
        char frame_of[64];
        snprintf(frame_of, sizeof frame_of, "\"t_ms\":%ld,", f * 100);
        assert_true(strstr(prev, frame_of) != NULL); /* the frame (or a line of its time) comes first */
        k++;
    next:
        prev = line;
    }
    assert_int_equal(k, NLINES);
    free(text);
    free(path);
    tu_dir_remove(&d);
}

static void test_bad_events_refused(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "bad.sqlite");
    rec *r = NULL;
    tt_err err = {0};
    assert_int_equal(rec_open(path, REC_CREATE_NEW, &r, &err), TT_OK);
    assert_int_equal(rec_session_begin(r, NULL, NULL, NULL, &err), TT_OK);
    assert_int_equal(rec_referee(r, 0, 0, "{\"event\":\"moved\",\"id\":\"f1\"}", &err), TT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "one of phase, move_check, out_of_turn, charge_check, casualties, morale"));
    assert_int_equal(rec_referee(r, 0, 0, "{\"turn\":1}", &err), TT_ERR_FORMAT);
    assert_int_equal(rec_referee(r, 0, 0, "[1,2]", &err), TT_ERR_FORMAT);
    assert_int_equal(rec_referee(r, 0, 0, "{\"event\":\"phase\",", &err), TT_ERR_FORMAT);
    assert_int_equal(rec_referee(r, 0, 0, NULL, &err), TT_ERR_ARG);
    assert_int_equal(rec_referee(r, 0, 0, lines[0], &err), TT_OK);
    assert_int_equal(rec_close(r, &err), TT_OK);
    assert_int_equal(count_rows(path, "SELECT count(*) FROM referee"), 1);
    free(path);
    tu_dir_remove(&d);
}

/* The story from the loaded game and from the file alone: the same JSON,
 * the phases where they began, a line a turn. */
static void test_story(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "story.sqlite");
    record_game(path, REC_CREATE_NEW);
    rec_game *g = NULL;
    free(replay_json(path, &g));
    char *a = rec_game_referee_log(g), *b = NULL;
    rec_game_destroy(g);
    tt_err err = {0};
    assert_int_equal(rec_referee_log(path, 0, &b, &err), TT_OK);
    assert_non_null(a);
    assert_string_equal(a, b);
    json_t *j = json_loads(a, 0, NULL);
    assert_non_null(j);
    json_t *ph = json_object_get(j, "phases"), *log = json_object_get(j, "log");
    assert_int_equal(json_array_size(ph), 4);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(ph, 1), "turn")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(ph, 1), "t")), (5 * 3 + 3) * 100);
    assert_true(json_is_null(json_object_get(json_array_get(ph, 3), "side")));
    assert_string_equal(json_string_value(json_object_get(json_array_get(ph, 2), "phase")), "shooting");
    assert_int_equal(json_array_size(log), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(log, 0), "text")), turn1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(log, 1), "text")), turn2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(log, 1), "t")), (5 * 3 + 3) * 100);
    json_decref(j);
    free(a);
    free(b);
    /* the page carries it */
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    char *page = NULL;
    size_t len = 0;
    assert_int_equal(rec_game_html_text(g, &page, &len, &err), TT_OK);
    rec_game_destroy(g);
    assert_non_null(strstr(page, "f12 0.8\\\" over; blue lost 3 of u4: morale 6+ (L8-10)"));
    assert_non_null(strstr(page, "\"referee\":{\"phases\":[{\"t\":300,\"turn\":1,\"phase\":\"movement\""));
    free(page);
    assert_int_equal(rec_referee_log(path, 7, &b, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "no session 7"));
    free(path);
    tu_dir_remove(&d);
}

/* src fed to the hall's copy dst (rec_feed, rec_copy) in chunks of at most
 * 2 rows of each kind; the chunks that carried referee rows in *with_ref,
 * the feed's last position in *at. */
static void feed_copy(const char *src, const char *dst, int *with_ref, rec_pos *at)
{
    rec_feed *f = NULL;
    rec_copy *c = NULL;
    tt_err err = {0};
    if (rec_feed_open(src, 0, &f, &err) != TT_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(rec_copy_open(dst, &c, &err), TT_OK);
    *at = rec_pos_empty();
    *with_ref = 0;
    for (int chunks = 0;; chunks++) {
        char *chunk = NULL;
        rec_pos to;
        if (rec_feed_next(f, at, REC_TIME_UNSET, 2, &chunk, &to, &err) != TT_OK)
            fail_msg("chunk %d: %s", chunks, err.msg);
        if (!chunk)
            break;
        *with_ref += strstr(chunk, "\"referee\":[{\"frame\":") != NULL;
        rec_copy_result res;
        if (rec_copy_apply(c, chunk, strlen(chunk), &res, NULL, &err) != TT_OK)
            fail_msg("chunk %d: %s", chunks, err.msg);
        assert_int_equal(res, REC_COPY_APPLIED);
        free(chunk);
        *at = to;
    }
    rec_feed_close(f);
    rec_copy_close(c);
}

/* Copy src to dst (a file in the repository is never written). */
static void copy_file(const char *src, const char *dst)
{
    size_t n = 0;
    char *data = tu_read(src, &n);
    if (!data)
        fail_msg("cannot read %s", src);
    tu_write(dst, data, n);
    free(data);
}

/* Recordings of schema 1 and 4 written by older builds load, with no
 * referee lines and an empty story; recording into them makes them 5. */
static void test_old_files(void **state)
{
    (void)state;
    static const char *const olds[] = {TT_SOURCE_DIR "/tests/fuzz/corpus/recording/breach40.sqlite",
                                       TT_SOURCE_DIR "/tests/data/recordings/schema4.sqlite"};
    static const long long versions[] = {1, 4};
    for (int i = 0; i < 2; i++) {
        tu_dir d = tu_dir_make();
        char *path = tu_path(&d, "old.sqlite");
        copy_file(olds[i], path);
        assert_int_equal(count_rows(path, "PRAGMA user_version"), versions[i]);
        rec_game *g = NULL;
        char *text = replay_json(path, &g);
        assert_non_null(strstr(text, "\"figures\":"));
        assert_null(strstr(text, "\"event\":\"phase\""));
        free(text);
        char *a = rec_game_referee_log(g), *b = NULL;
        rec_game_destroy(g);
        tt_err err = {0};
        assert_int_equal(rec_referee_log(path, 0, &b, &err), TT_OK);
        assert_string_equal(a, "{\"phases\":[],\"log\":[]}");
        assert_string_equal(b, a);
        free(a);
        free(b);
        /* published to a hall as it is: each row in the hall's copy (the
         * feed read "no such column: s.err95_in" from any older file) */
        char *copy = tu_path(&d, "copy.sqlite");
        rec_pos at;
        int with_ref;
        feed_copy(path, copy, &with_ref, &at);
        assert_int_equal(with_ref, 0);
        static const char *const rows[] = {"SELECT count(*) FROM state", "SELECT count(*) FROM event",
                                           "SELECT count(*) FROM query", "SELECT count(*) FROM figure"};
        for (int k = 0; k < 4; k++)
            assert_int_equal(count_rows(copy, rows[k]), count_rows(path, rows[k]));
        assert_true(count_rows(copy, "SELECT count(*) FROM state") >= 40);
        free(copy);
        long long sessions = count_rows(path, "SELECT count(*) FROM session");
        record_game(path, REC_APPEND);
        assert_int_equal(count_rows(path, "PRAGMA user_version"), 5);
        assert_int_equal(count_rows(path, "SELECT value FROM meta WHERE key = 'schema_version'"), 5);
        assert_int_equal(count_rows(path, "SELECT count(*) FROM session"), sessions + 1);
        assert_int_equal(count_rows(path, "SELECT count(*) FROM referee"), (long long)NLINES);
        assert_int_equal(rec_referee_log(path, 0, &b, &err), TT_OK);
        assert_non_null(strstr(b, "b1 out of turn"));
        free(b);
        free(path);
        tu_dir_remove(&d);
    }
}

static void test_v5_without_table_damaged(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "dmg.sqlite");
    record_game(path, REC_CREATE_NEW);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = DELETE; DROP TABLE referee", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    rec_game *g = NULL;
    tt_err err = {0};
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "is damaged: a tabletrack recording with schema version 5 but 7 of its 8 tables"));
    free(path);
    tu_dir_remove(&d);
}

/* The referee's lines of a replay's JSON Lines, joined (caller frees). */
static char *referee_lines(const char *text)
{
    char *out = calloc(1, strlen(text) + 1), *o = out;
    assert_non_null(out);
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *ev = strstr(p, ",\"event\":\"");
        if (ev && ev < p + n && !(strstr(p, "\"family\"") && strstr(p, "\"family\"") < p + n)) {
            memcpy(o, p, n);
            o += n;
            *o++ = '\n';
        }
        p += n + (e != NULL);
    }
    return out;
}

/* The hall's copy: chunks of at most 2 rows of each kind carry the
 * referee's rows; the copy's story is the table's. */
static void test_hall_copy(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *src = tu_path(&d, "table.sqlite"), *dst = tu_path(&d, "hall.sqlite");
    record_game(src, REC_CREATE_NEW);
    tt_err err = {0};
    rec_copy *c = NULL;
    rec_pos at;
    int with_ref;
    feed_copy(src, dst, &with_ref, &at);
    assert_true(with_ref >= (int)NLINES / 2);
    assert_int_equal(at.referee, (long long)NLINES);
    assert_int_equal(count_rows(dst, "SELECT count(*) FROM referee"), (long long)NLINES);
    char *a = NULL, *b = NULL;
    assert_int_equal(rec_referee_log(src, 0, &a, &err), TT_OK);
    assert_int_equal(rec_referee_log(dst, 0, &b, &err), TT_OK);
    assert_string_equal(a, b);
    free(a);
    free(b);
    /* the copy's replay gives the same referee lines */
    char *ta = replay_json(src, NULL), *tb = replay_json(dst, NULL);
    char *ra = referee_lines(ta), *rb = referee_lines(tb);
    assert_non_null(strstr(ra, "{\"frame\":3,\"t_ms\":300,\"event\":\"phase\""));
    assert_string_equal(ra, rb);
    free(ra);
    free(rb);
    free(ta);
    free(tb);

    /* a position without "referee" (an older build's) has none; a chunk
     * that claims referee rows it does not hold is refused */
    rec_pos p;
    const char *old = "{\"figure\":1,\"state\":2,\"event\":0,\"query\":0,\"change\":0,\"frame\":5,\"ended\":0}";
    const char *neg = "{\"figure\":1,\"state\":2,\"event\":0,\"query\":0,\"change\":0,\"referee\":-1,\"frame\":5,"
                      "\"ended\":0}";
    p.referee = 7;
    assert_int_equal(rec_pos_parse(old, strlen(old), &p, &err), TT_OK);
    assert_int_equal(p.referee, 0);
    assert_int_equal(p.state, 2);
    assert_int_equal(rec_pos_parse(neg, strlen(neg), &p, &err), TT_ERR_FORMAT);
    assert_int_equal(rec_copy_open(dst, &c, &err), TT_OK);
    const char *liar = "{\"game\":\"2026-01-01T00:00:00.000Z#9\",\"from\":{\"figure\":0,\"state\":0,\"event\":0,\"query\":0,"
                       "\"change\":0,\"frame\":-1,\"ended\":0},\"to\":{\"figure\":0,\"state\":0,\"event\":0,\"query\":0,"
                       "\"change\":0,\"referee\":3,\"frame\":-1,\"ended\":0},\"session\":{\"started_utc\":\"x\","
                       "\"started_unix_ms\":1,\"last_frame\":null,\"last_t_ms\":null,\"ended_utc\":null},\"figures\":[],"
                       "\"frames\":[],\"events\":[],\"queries\":[],\"changes\":[]}";
    rec_copy_result res;
    assert_int_equal(rec_copy_apply(c, liar, strlen(liar), &res, NULL, &err), TT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "claims 3 new referee's events but holds 0"));
    const char *badkind = "{\"game\":\"2026-01-01T00:00:00.000Z#9\",\"from\":{\"figure\":0,\"state\":0,\"event\":0,"
                          "\"query\":0,\"change\":0,\"frame\":-1,\"ended\":0},\"to\":{\"figure\":0,\"state\":0,\"event\":0,"
                          "\"query\":0,\"change\":0,\"referee\":1,\"frame\":-1,\"ended\":0},\"session\":{\"started_utc\":"
                          "\"x\",\"started_unix_ms\":1,\"last_frame\":null,\"last_t_ms\":null,\"ended_utc\":null},"
                          "\"figures\":[],\"frames\":[],\"events\":[],\"queries\":[],\"changes\":[],\"referee\":[{\"frame\":1,"
                          "\"t_ms\":5,\"event\":\"teleport\"}]}";
    assert_int_equal(rec_copy_apply(c, badkind, strlen(badkind), &res, NULL, &err), TT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "a referee's line needs"));
    rec_copy_close(c);
    assert_int_equal(count_rows(dst, "SELECT count(*) FROM session"), 1);
    free(src);
    free(dst);
    tu_dir_remove(&d);
}

/* The felt's primitives at t (its checks and calls, and its corner) of kind
 * and role (NULL: any) whose text holds sub (NULL: any) and whose points or
 * centre lie within 0.6" of x = at_x (< 0: anywhere). */
static int felt_count(const rec_game *g, long long t, const char *kind, const char *role, const char *sub, double at_x)
{
    const rec__ref *r = rec__felt_at(g, t);
    json_t *felt = json_array(), *p;
    size_t i;
    int n = 0;
    for (int k = 0; r && k < r->nkept; k++)
        json_array_extend(felt, g->refs[r->kept[k]].look);
    if (r && r->phase_at >= 0)
        json_array_extend(felt, g->refs[r->phase_at].corner);
    json_array_foreach(felt, i, p) {
        const char *k = json_string_value(json_object_get(p, "kind")), *r = json_string_value(json_object_get(p, "role"));
        const char *text = json_string_value(json_object_get(p, "text"));
        if ((kind && (!k || strcmp(k, kind))) || (role && (!r || strcmp(r, role))) || (sub && (!text || !strstr(text, sub))))
            continue;
        if (at_x >= 0) {
            const json_t *pts = json_object_get(p, "points"), *at = json_object_get(p, "at");
            int near = at && fabs(json_number_value(json_array_get(at, 0)) - at_x) < 0.6;
            for (size_t j = 0; j < json_array_size(pts); j++)
                near |= fabs(json_number_value(json_array_get(json_array_get(pts, j), 0)) - at_x) < 0.6;
            if (!near)
                continue;
        }
        n++;
    }
    json_decref(felt);
    return n;
}

/* Pixels of the replay's video frame at t (640 px wide) within 0.3" of the
 * segment (x, y0)-(x, y1) inches whose colour is far from the felt's. */
static int video_marks(const rec_game *g, long long t, double x, double y0, double y1)
{
    cairo_surface_t *surf = rec__draw_still(g, t, 640, CAIRO_FORMAT_ARGB32);
    assert_non_null(surf);
    const unsigned char *px = cairo_image_surface_get_data(surf);
    int stride = cairo_image_surface_get_stride(surf), n = 0;
    int w, h;
    double scale;
    rec__draw_size(g, 640, &w, &h, &scale);
    const double m = (w / scale - 48) / 2; /* the margin round the 48" table, inches */
    /* the felt's own colour: a spot far from everything (the table's far corner) */
    const unsigned char *bg = px + (size_t)lround((m + 30) * scale) * stride +
                              4 * lround((m + 40) * scale);
    for (double yy = y0; yy <= y1; yy += 1 / scale)
        for (double dx = -0.3; dx <= 0.3; dx += 1 / scale) {
            const unsigned char *q = px + (size_t)lround((m + yy) * scale) * stride +
                                     4 * lround((m + x + dx) * scale);
            n += abs(q[0] - bg[0]) + abs(q[1] - bg[1]) + abs(q[2] - bg[2]) > 90;
        }
    cairo_surface_destroy(surf);
    return n;
}

static void test_felt_replayed(void **state)
{
    (void)state;
    tu_dir d = tu_dir_make();
    char *path = tu_path(&d, "felt.sqlite");
    record_game(path, REC_CREATE_NEW);
    rec_game *g = NULL;
    tt_err err = {0};
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    /* line k is recorded at frame 3k+3, t = 300k+300 ms */
    assert_null(rec__felt_at(g, 299));                                              /* nothing said yet */
    assert_int_equal(felt_count(g, 300, "text", NULL, "Turn 1 \xc2\xb7 Red \xc2\xb7 movement", -1), 1);
    assert_int_equal(felt_count(g, 300, NULL, NULL, NULL, 1.0), 0);                  /* no check yet */
    assert_true(felt_count(g, 600, "polyline", NULL, NULL, 1.0) >= 1);               /* f1's path */
    assert_true(felt_count(g, 900, "polyline", NULL, NULL, 7.0) >= 1);               /* f7's */
    assert_int_equal(felt_count(g, 1200, NULL, NULL, NULL, 7.0), 0);                 /* put back: gone */
    assert_true(felt_count(g, 1200, "polyline", NULL, NULL, 1.0) >= 1);              /* f1's stays */
    assert_int_equal(felt_count(g, 1500, "text", NULL, "out of turn", -1), 1);       /* b1 */
    /* turn 2: a new phase clears the checks */
    assert_int_equal(felt_count(g, 1800, NULL, NULL, NULL, 7.0) + felt_count(g, 1800, "text", NULL, "out of turn", -1), 0);
    assert_int_equal(felt_count(g, 1800, "text", NULL, "Turn 2 \xc2\xb7 Red \xc2\xb7 movement", -1), 1);
    assert_int_equal(felt_count(g, 3599, "polyline", "blocked", NULL, 12.0), 0);
    assert_true(felt_count(g, 3600, "polyline", "blocked", NULL, 12.0) >= 1);        /* f12 0.8" over */
    assert_int_equal(felt_count(g, 3600, "text", "blocked", "0.8\" over", -1), 1);
    assert_int_equal(felt_count(g, 3900, NULL, "blocked", NULL, 12.0), 0);           /* shooting: cleared */
    assert_int_equal(felt_count(g, 4800, "text", NULL, "morale", -1), 1);            /* u4's call */
    assert_int_equal(felt_count(g, 5100, "text", NULL, "Turn 2 \xc2\xb7 assault", -1), 1);
    assert_int_equal(felt_count(g, 5100, "text", NULL, "morale", -1), 1);            /* the same turn: kept */
    /* the video draws it: f12's over-move path from (12, 1) to (12, 7.8) */
    int before = video_marks(g, 3500, 12, 2, 7), after = video_marks(g, 3650, 12, 2, 7);
    print_message("video: %d marked pixels along f12's path before its check, %d after\n", before, after);
    assert_int_equal(before, 0);
    assert_true(after > 40);
    /* and the page has it */
    char *html = NULL;
    size_t len = 0;
    assert_int_equal(rec_game_html_text(g, &html, &len, &err), TT_OK);
    /* (each event's look once; after each batch the events kept: f1's and
     * f7's checks after line 2; where the game stands is beside its clock) */
    assert_non_null(strstr(html, "\"ref_looks\":[null,[{\"kind\":\"polyline\""));
    assert_non_null(strstr(html, "\"felt\":[{\"t\":300,\"ids\":[]},{\"t\":600,\"ids\":[1]},{\"t\":900,\"ids\":[1,2]},"
                                 "{\"t\":1200,\"ids\":[1]}"));
    free(html);
    rec_game_destroy(g);
    free(path);
    tu_dir_remove(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded_and_replayed), cmocka_unit_test(test_bad_events_refused),
        cmocka_unit_test(test_story),                 cmocka_unit_test(test_old_files),
        cmocka_unit_test(test_v5_without_table_damaged), cmocka_unit_test(test_hall_copy), cmocka_unit_test(test_felt_replayed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
