/* rec_feed.c - a session of a recording read as chunks (rec_copy.h), while
 * the recorder may still be writing it (its own read-only connection; WAL
 * lets it read without holding the writer up), and positions. */
#include "rec_copy.h"
#include "rec_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The statements rec_feed_next runs, prepared once a feed and reset after
 * each use (prepared anew for every chunk they were a fifth of a replaying
 * table's instructions: bench_hall's tables). */
enum {
    REC__FS_SESSION,
    REC__FS_STATE,
    REC__FS_EVENT,
    REC__FS_QUERY,
    REC__FS_CHANGE,
    REC__FS_REFEREE,
    REC__FS_MAX_FIGURE,
    REC__FS_FIGURES,
    REC__FS_N
};
/* Rows after ?2 (the scanned tables: column 0 the row id, 1 the t_ms, 2 the
 * frame or NULL, 3 the figure or NULL), at most ?3, of session ?1.  Each
 * has its forms for older recordings (rec_db.c's schema versions), tried
 * in turn: before 2 no z_in and no scenario_change, before 4 no errors. */
#define REC__FEED_FORMS 3
static const char *const rec__feed_sql[REC__FS_N][REC__FEED_FORMS] = {
    [REC__FS_SESSION] = {"SELECT last_frame, last_t_ms, ended_utc, started_utc, started_unix_ms, source, note, "
                         "rig_json, scenario_json FROM session WHERE id = ?"},
#define REC__FEED_STATE(cols)                                                                                        \
    "SELECT s.rowid, s.t_ms, s.frame, s.figure, g.family, g.tag, s.x, s.y, s.facing_deg, s.state, " cols             \
    " FROM state s JOIN figure g ON g.id = s.figure WHERE g.session = ?1 AND s.rowid > ?2 ORDER BY s.rowid LIMIT ?3"
    [REC__FS_STATE] = {REC__FEED_STATE("s.z_in, s.err95_in, s.z_err95_in, s.facing_err95_deg"),
                       REC__FEED_STATE("s.z_in, NULL, NULL, NULL"), REC__FEED_STATE("NULL, NULL, NULL, NULL")},
#undef REC__FEED_STATE
#define REC__FEED_EVENT(cols)                                                                                        \
    "SELECT e.id, e.t_ms, e.frame, e.figure, g.family, g.tag, e.kind, e.from_x, e.from_y, e.to_x, e.to_y, " cols     \
    " FROM event e JOIN figure g ON g.id = e.figure WHERE e.session = ?1 AND e.id > ?2 ORDER BY e.id LIMIT ?3"
    [REC__FS_EVENT] = {REC__FEED_EVENT("e.z_in"), REC__FEED_EVENT("NULL")},
#undef REC__FEED_EVENT
    [REC__FS_QUERY] = {"SELECT id, t_ms, frame, NULL, query_json, answer_json FROM query WHERE session = ?1 "
                       "AND id > ?2 ORDER BY id LIMIT ?3"},
    [REC__FS_CHANGE] = {"SELECT id, t_ms, frame, NULL, scenario_json FROM scenario_change WHERE session = ?1 "
                        "AND id > ?2 ORDER BY id LIMIT ?3",
                        "SELECT 0, 0, NULL, NULL, NULL WHERE ?1 IS NULL AND ?2 IS NULL AND ?3 IS NULL"},
    [REC__FS_REFEREE] = {"SELECT id, t_ms, frame, NULL, event_json FROM referee WHERE session = ?1 AND id > ?2 "
                         "ORDER BY id LIMIT ?3"},
    [REC__FS_MAX_FIGURE] = {"SELECT max(id) FROM figure WHERE session = ?"},
    [REC__FS_FIGURES] = {"SELECT family, tag, name, side FROM figure WHERE session = ? AND id > ? AND id <= ? "
                         "ORDER BY id"},
};

struct rec_feed {
    sqlite3 *db;
    char *path;
    long long session;
    char game[96];
    long long t0;
    sqlite3_stmt *st[REC__FS_N]; /* owned: finalized by rec_feed_close */
    int has_referee;             /* the recording has its referee table (schema 5) */
};

/* Statement k of feed f, prepared the first time (the first of its forms
 * the recording's schema has); NULL if none can be (the database's error
 * stands). */
static sqlite3_stmt *rec__feed_stmt(rec_feed *f, int k)
{
    for (int i = 0; !f->st[k] && i < REC__FEED_FORMS && rec__feed_sql[k][i]; i++)
        if (sqlite3_prepare_v2(f->db, rec__feed_sql[k][i], -1, &f->st[k], NULL) != SQLITE_OK) {
            sqlite3_finalize(f->st[k]);
            f->st[k] = NULL;
        }
    return f->st[k];
}

/* A cached statement done with: ready for its next use. */
static void rec__feed_stmt_done(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* ---- positions ---- */

rec_pos rec_pos_empty(void)
{
    rec_pos p = {0, 0, 0, 0, 0, 0, -1, 0};
    return p;
}

int rec_pos_same_rows(const rec_pos *a, const rec_pos *b)
{
    return a->figure == b->figure && a->state == b->state && a->event == b->event && a->query == b->query &&
           a->change == b->change && a->referee == b->referee;
}

int rec_pos_covers(const rec_pos *a, const rec_pos *b)
{
    return a->figure >= b->figure && a->state >= b->state && a->event >= b->event && a->query >= b->query &&
           a->change >= b->change && a->referee >= b->referee && a->frame >= b->frame && a->ended >= b->ended;
}

long long rec_pos_rows_between(const rec_pos *a, const rec_pos *b)
{
    long long n = 0;
    const long long av[] = {a->figure, a->state, a->event, a->query, a->change, a->referee};
    const long long bv[] = {b->figure, b->state, b->event, b->query, b->change, b->referee};
    for (int i = 0; i < 6; i++)
        if (bv[i] > av[i])
            n += bv[i] - av[i];
    return n;
}

json_t *rec__pos_to_json(const rec_pos *p)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i}", "figure", (json_int_t)p->figure, "state",
                     (json_int_t)p->state, "event", (json_int_t)p->event, "query", (json_int_t)p->query, "change",
                     (json_int_t)p->change, "referee", (json_int_t)p->referee, "frame", (json_int_t)p->frame, "ended",
                     p->ended);
}

char *rec_pos_json(const rec_pos *p)
{
    json_t *j = rec__pos_to_json(p);
    char *t = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    return t;
}

tt_status rec__pos_from_json(const json_t *j, rec_pos *p, tt_err *err)
{
    static const char *const keys[] = {"figure", "state", "event", "query", "change", "frame"};
    long long *dst[] = {&p->figure, &p->state, &p->event, &p->query, &p->change, &p->frame};
    if (!json_is_object(j))
        return tt_err_set(err, TT_ERR_FORMAT, "a position must be a JSON object");
    for (int i = 0; i < 6; i++) {
        const json_t *v = json_object_get(j, keys[i]);
        if (!json_is_integer(v) || json_integer_value(v) < (i == 5 ? -1 : 0))
            return tt_err_set(err, TT_ERR_FORMAT, "a position needs a whole number \"%s\"", keys[i]);
        *dst[i] = json_integer_value(v);
    }
    /* "referee" (schema 5): none in a position from an older build */
    const json_t *rf = json_object_get(j, "referee");
    if (rf && (!json_is_integer(rf) || json_integer_value(rf) < 0))
        return tt_err_set(err, TT_ERR_FORMAT, "a position needs a whole number \"referee\"");
    p->referee = rf ? json_integer_value(rf) : 0;
    const json_t *e = json_object_get(j, "ended");
    p->ended = json_is_integer(e) ? json_integer_value(e) != 0 : json_is_true(e);
    return TT_OK;
}

tt_status rec_pos_parse(const char *text, size_t len, rec_pos *p, tt_err *err)
{
    json_t *j = json_loadb(text, len, 0, NULL);
    if (!j)
        return tt_err_set(err, TT_ERR_FORMAT, "a position must be JSON");
    tt_status s = rec__pos_from_json(j, p, err);
    json_decref(j);
    return s;
}

/* ---- the feed ---- */

/* One whole number from statement st with ?1 = a (*null: none); st reset. */
static tt_status rec__feed_one_st(rec_feed *f, sqlite3_stmt *st, long long a, long long *out, int *null, tt_err *err)
{
    sqlite3_bind_int64(st, 1, a);
    int rc = sqlite3_step(st);
    tt_status s = TT_OK;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        s = rec__db_err(f->db, err, f->path, "reading");
    *null = rc != SQLITE_ROW || sqlite3_column_type(st, 0) == SQLITE_NULL;
    *out = *null ? 0 : sqlite3_column_int64(st, 0);
    rec__feed_stmt_done(st);
    return s;
}

static tt_status rec__feed_one_ll(rec_feed *f, const char *sql, long long a, long long *out, int *null,
                                  tt_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(f->db, sql, -1, &st, NULL) != SQLITE_OK)
        return rec__db_err(f->db, err, f->path, "reading");
    tt_status s = rec__feed_one_st(f, st, a, out, null, err);
    sqlite3_finalize(st);
    return s;
}

/* A session's game name: "STARTED_UTC#ID". */
static void rec__feed_game_name(char *buf, size_t n, const char *started, long long id)
{
    snprintf(buf, n, "%.40s#%lld", started ? started : "", id);
}

tt_status rec_feed_sessions(const char *path, rec_feed_session **out, size_t *n, tt_err *err)
{
    if (!out || !n)
        return tt_err_set(err, TT_ERR_ARG, "rec_feed_sessions: missing argument");
    *out = NULL;
    *n = 0;
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    tt_status s = rec__db_open(path, REC__READ, &db, err);
    if (s != TT_OK)
        return s;
    if (sqlite3_prepare_v2(db, "SELECT id, started_utc FROM session ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
        s = rec__db_err(db, err, path, "reading");
        sqlite3_close(db);
        return s;
    }
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            rec_feed_session *m = realloc(*out, (cap ? cap * 2 : 8) * sizeof *m);
            if (!m) {
                s = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
                break;
            }
            *out = m;
            cap = cap ? cap * 2 : 8;
        }
        rec_feed_session *x = &(*out)[(*n)++];
        x->id = sqlite3_column_int64(st, 0);
        rec__feed_game_name(x->game, sizeof x->game, (const char *)sqlite3_column_text(st, 1), x->id);
    }
    if (s == TT_OK && rc != SQLITE_DONE)
        s = rec__db_err(db, err, path, "reading");
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (s != TT_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return s;
}

tt_status rec_feed_open(const char *path, long long session, rec_feed **out, tt_err *err)
{
    if (!out)
        return tt_err_set(err, TT_ERR_ARG, "rec_feed_open: no output handle");
    *out = NULL;
    rec_feed *f = calloc(1, sizeof *f);
    tt_status s;
    if (!f || !(f->path = strdup(path ? path : ""))) {
        free(f);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    if ((s = rec__db_open(path, REC__READ, &f->db, err)) != TT_OK)
        goto fail;
    long long id = session;
    int null = 0;
    if (session <= 0 &&
        (s = rec__feed_one_ll(f, "SELECT max(id) FROM session WHERE ?1 = ?1", 0, &id, &null, err)) != TT_OK)
        goto fail;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(f->db, "SELECT started_utc FROM session WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
        s = rec__db_err(f->db, err, path, "reading");
        goto fail;
    }
    sqlite3_bind_int64(st, 1, id);
    if (null || sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        s = session > 0 ? tt_err_set(err, TT_ERR_ARG, "%s has no session %lld", path, session)
                        : tt_err_set(err, TT_ERR_FORMAT, "%s holds no session yet", path);
        goto fail;
    }
    rec__feed_game_name(f->game, sizeof f->game, (const char *)sqlite3_column_text(st, 0), id);
    sqlite3_finalize(st);
    f->session = id;
    f->t0 = LLONG_MAX;
    static const char *const first[][2] = {
        {"state", "SELECT min(s.t_ms) FROM state s JOIN figure g ON g.id = s.figure WHERE g.session = ?"},
        {"event", "SELECT min(t_ms) FROM event WHERE session = ?"},
        {"query", "SELECT min(t_ms) FROM query WHERE session = ?"},
        {"scenario_change", "SELECT min(t_ms) FROM scenario_change WHERE session = ?"}};
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
        long long t;
        if (!rec__has_table(f->db, first[i][0])) /* scenario_change: none before schema 2 */
            continue;
        if ((s = rec__feed_one_ll(f, first[i][1], id, &t, &null, err)) != TT_OK)
            goto fail;
        if (!null && t < f->t0)
            f->t0 = t;
    }
    if (f->t0 == LLONG_MAX)
        f->t0 = 0;
    *out = f;
    return TT_OK;
fail:
    rec_feed_close(f);
    return s;
}

void rec_feed_close(rec_feed *f)
{
    if (!f)
        return;
    for (int k = 0; k < REC__FS_N; k++)
        sqlite3_finalize(f->st[k]);
    sqlite3_close(f->db);
    free(f->path);
    free(f);
}

const char *rec_feed_game(const rec_feed *f)
{
    return f ? f->game : "";
}

long long rec_feed_t0(const rec_feed *f)
{
    return f ? f->t0 : 0;
}

long long rec_feed_session_id(const rec_feed *f)
{
    return f->session;
}

/* A stored JSON text as a value (the text itself if it does not parse). */
static json_t *rec__feed_text(sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return json_null();
    const char *t = (const char *)sqlite3_column_text(st, col);
    json_t *j = json_loads(t, JSON_DECODE_ANY, NULL);
    return j ? j : json_string(t);
}

static json_t *rec__feed_col_int(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int64(st, col));
}

static json_t *rec__feed_col_str(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? json_null()
                                                       : json_string((const char *)sqlite3_column_text(st, col));
}

static json_t *rec__feed_xy(sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return json_null();
    return json_pack("[f,f]", sqlite3_column_double(st, col), sqlite3_column_double(st, col + 1));
}

/* What one pass over a table gathered. */
typedef struct rec__feed_scan {
    long long last;     /* last row id taken */
    long long max_fig;  /* highest figure row referenced */
    long long max_frame, max_t;
    int exhausted;      /* every saved row of the session was taken */
} rec__feed_scan;

/* Rows of one table after `after`, in row order, up to until_ms: each
 * row is turned into JSON by `row` and appended to arr.  Column 0 is the
 * row id, 1 the t_ms, 2 the frame (may be NULL), 3 the figure (or NULL). */
static tt_status rec__feed_scan_rows(rec_feed *f, int k, long long after, long long until_ms, size_t max_rows,
                                     json_t *(*row)(sqlite3_stmt *st, json_t *arr), json_t *arr, rec__feed_scan *sc,
                                     tt_err *err)
{
    sqlite3_stmt *st = rec__feed_stmt(f, k);
    sc->last = after;
    sc->exhausted = 1;
    if (!st)
        return rec__db_err(f->db, err, f->path, "reading");
    sqlite3_bind_int64(st, 1, f->session);
    sqlite3_bind_int64(st, 2, after);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)max_rows + 1);
    size_t n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long t = sqlite3_column_int64(st, 1);
        if (n == max_rows || (until_ms != REC_TIME_UNSET && t > until_ms)) {
            sc->exhausted = 0;
            break;
        }
        json_t *o = row(st, arr);
        if (!o) {
            rec__feed_stmt_done(st);
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        }
        n++;
        sc->last = sqlite3_column_int64(st, 0);
        if (t > sc->max_t)
            sc->max_t = t;
        if (sqlite3_column_type(st, 2) != SQLITE_NULL && sqlite3_column_int64(st, 2) > sc->max_frame)
            sc->max_frame = sqlite3_column_int64(st, 2);
        if (sqlite3_column_type(st, 3) != SQLITE_NULL && sqlite3_column_int64(st, 3) > sc->max_fig)
            sc->max_fig = sqlite3_column_int64(st, 3);
    }
    tt_status s = rc != SQLITE_ROW && rc != SQLITE_DONE ? rec__db_err(f->db, err, f->path, "reading") : TT_OK;
    rec__feed_stmt_done(st);
    return s;
}

static const char *const rec__feed_states[] = {"seen", "occluded", "lost"};

/* state: rowid, t_ms, frame, figure, family, tag, x, y, facing, state, z_in,
 * err95_in, z_err95_in, facing_err95_deg.
 * Rows of one frame and time share one frame object, as in replay --json. */
static json_t *rec__feed_state_row(sqlite3_stmt *st, json_t *frames)
{
    long long frame = sqlite3_column_int64(st, 2), t = sqlite3_column_int64(st, 1);
    json_t *last = json_array_size(frames) ? json_array_get(frames, json_array_size(frames) - 1) : NULL;
    if (!last || json_integer_value(json_object_get(last, "frame")) != frame ||
        json_integer_value(json_object_get(last, "t_ms")) != t) {
        last = json_pack("{s:I, s:I, s:[]}", "frame", (json_int_t)frame, "t_ms", (json_int_t)t, "figures");
        if (!last || json_array_append_new(frames, last) != 0)
            return NULL;
    }
    const char *state = (const char *)sqlite3_column_text(st, 9);
    json_t *fig = json_pack("{s:s, s:I, s:f, s:f, s:f, s:s}", "family", (const char *)sqlite3_column_text(st, 4),
                            "id", (json_int_t)sqlite3_column_int64(st, 5), "x", sqlite3_column_double(st, 6), "y",
                            sqlite3_column_double(st, 7), "facing_deg", sqlite3_column_double(st, 8), "state",
                            state ? state : rec__feed_states[0]);
    if (fig && sqlite3_column_type(st, 10) != SQLITE_NULL) /* the height it stands at (schema 3) */
        json_object_set_new(fig, "z_in", json_real(sqlite3_column_double(st, 10)));
    static const char *const errs[] = {"err95_in", "z_err95_in", "facing_err95_deg"}; /* schema 4 */
    for (int k = 0; fig && k < 3; k++)
        if (sqlite3_column_type(st, 11 + k) != SQLITE_NULL)
            json_object_set_new(fig, errs[k], json_real(sqlite3_column_double(st, 11 + k)));
    if (!fig || json_array_append_new(json_object_get(last, "figures"), fig) != 0)
        return NULL;
    return fig;
}

/* event: id, t_ms, frame, figure, family, tag, kind, from_x, from_y, to_x, to_y, z_in */
static json_t *rec__feed_event_row(sqlite3_stmt *st, json_t *arr)
{
    json_t *o = json_pack("{s:I, s:I, s:s, s:s, s:I, s:o, s:o}", "frame", (json_int_t)sqlite3_column_int64(st, 2),
                          "t_ms", (json_int_t)sqlite3_column_int64(st, 1), "event",
                          (const char *)sqlite3_column_text(st, 6), "family", (const char *)sqlite3_column_text(st, 4),
                          "id", (json_int_t)sqlite3_column_int64(st, 5), "from", rec__feed_xy(st, 7), "to",
                          rec__feed_xy(st, 9));
    if (o && sqlite3_column_type(st, 11) != SQLITE_NULL) /* a "height" event */
        json_object_set_new(o, "z_in", json_real(sqlite3_column_double(st, 11)));
    return o && json_array_append_new(arr, o) == 0 ? o : NULL;
}

/* query: id, t_ms, frame, NULL, query_json, answer_json */
static json_t *rec__feed_query_row(sqlite3_stmt *st, json_t *arr)
{
    json_t *o = json_pack("{s:o, s:I, s:o, s:o}", "frame", rec__feed_col_int(st, 2), "t_ms",
                          (json_int_t)sqlite3_column_int64(st, 1), "query", rec__feed_text(st, 4), "answer",
                          rec__feed_text(st, 5));
    return o && json_array_append_new(arr, o) == 0 ? o : NULL;
}

/* scenario_change: id, t_ms, frame, NULL, scenario_json */
static json_t *rec__feed_change_row(sqlite3_stmt *st, json_t *arr)
{
    json_t *o = json_pack("{s:o, s:I, s:o}", "frame", rec__feed_col_int(st, 2), "t_ms",
                          (json_int_t)sqlite3_column_int64(st, 1), "scenario", rec__feed_text(st, 4));
    return o && json_array_append_new(arr, o) == 0 ? o : NULL;
}

/* referee: id, t_ms, frame, NULL, event_json: the line as replay --json writes it */
static json_t *rec__feed_referee_row(sqlite3_stmt *st, json_t *arr)
{
    json_t *ev = rec__feed_text(st, 4);
    json_t *o = json_pack("{s:o, s:I}", "frame", rec__feed_col_int(st, 2), "t_ms", (json_int_t)sqlite3_column_int64(st, 1));
    if (o && json_is_object(ev))
        json_object_update(o, ev);
    json_decref(ev);
    return o && json_array_append_new(arr, o) == 0 ? o : NULL;
}

/* The session's figures in (after, upto], all of them up to upto when all. */
static tt_status rec__feed_figures(rec_feed *f, long long after, long long upto, json_t *arr, tt_err *err)
{
    sqlite3_stmt *st = rec__feed_stmt(f, REC__FS_FIGURES);
    if (!st)
        return rec__db_err(f->db, err, f->path, "reading");
    sqlite3_bind_int64(st, 1, f->session);
    sqlite3_bind_int64(st, 2, after);
    sqlite3_bind_int64(st, 3, upto);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *o = json_pack("{s:s, s:I, s:o, s:o}", "family", (const char *)sqlite3_column_text(st, 0), "id",
                              (json_int_t)sqlite3_column_int64(st, 1), "name", rec__feed_col_str(st, 2), "side",
                              rec__feed_col_str(st, 3));
        if (!o || json_array_append_new(arr, o) != 0) {
            rec__feed_stmt_done(st);
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        }
    }
    tt_status s = rc == SQLITE_DONE ? TT_OK : rec__db_err(f->db, err, f->path, "reading");
    rec__feed_stmt_done(st);
    return s;
}

/* The session row: its progress, and the header when asked. */
static tt_status rec__feed_session(rec_feed *f, int header, json_t **out, long long *last_frame, long long *last_t,
                                   int *ended, tt_err *err)
{
    sqlite3_stmt *st = rec__feed_stmt(f, REC__FS_SESSION);
    *out = NULL;
    if (!st)
        return rec__db_err(f->db, err, f->path, "reading");
    sqlite3_bind_int64(st, 1, f->session);
    if (sqlite3_step(st) != SQLITE_ROW) {
        tt_status s = rec__db_err(f->db, err, f->path, "reading the session");
        rec__feed_stmt_done(st);
        return s;
    }
    *last_frame = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
    *last_t = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
    *ended = sqlite3_column_type(st, 2) != SQLITE_NULL;
    json_t *o = json_pack("{s:o}", "ended_utc", rec__feed_col_str(st, 2));
    if (o && header)
        json_object_update_new(o, json_pack("{s:o, s:I, s:o, s:o, s:o, s:o}", "started_utc", rec__feed_col_str(st, 3),
                                            "started_unix_ms", (json_int_t)sqlite3_column_int64(st, 4), "source",
                                            rec__feed_col_str(st, 5), "note", rec__feed_col_str(st, 6), "rig",
                                            rec__feed_text(st, 7), "scenario", rec__feed_text(st, 8)));
    rec__feed_stmt_done(st);
    if (!o)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    *out = o;
    return TT_OK;
}

tt_status rec_feed_next(rec_feed *f, const rec_pos *from, long long until_ms, size_t max_rows, char **chunk,
                        rec_pos *to, tt_err *err)
{
    if (!f || !from || !chunk || !to)
        return tt_err_set(err, TT_ERR_ARG, "rec_feed_next: missing argument");
    *chunk = NULL;
    *to = *from;
    if (max_rows < 1)
        max_rows = 1;
    rec_pos empty = rec_pos_empty();
    int header = rec_pos_same_rows(from, &empty);
    json_t *figs = json_array(), *frames = json_array(), *events = json_array(), *queries = json_array(),
           *changes = json_array(), *refs = json_array(), *sess = NULL, *o = NULL;
    tt_status s = TT_OK;
    if (!figs || !frames || !events || !queries || !changes || !refs) {
        s = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* one read transaction: the rows and the session's progress agree */
    if (sqlite3_exec(f->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        s = rec__db_err(f->db, err, f->path, "reading");
        goto done;
    }
    long long last_frame = -1, last_t = -1; /* set by rec__feed_session */
    int ended = 0;
    rec__feed_scan sc[5];
    memset(sc, 0, sizeof sc);
    sc[4].exhausted = 1; /* a recording before schema 5 has no referee table */
    for (int i = 0; i < 5; i++)
        sc[i].max_frame = sc[i].max_t = -1;
    if (!f->has_referee) /* a recording before schema 5 has none */
        f->has_referee = rec__has_table(f->db, "referee");
    if ((s = rec__feed_session(f, header, &sess, &last_frame, &last_t, &ended, err)) != TT_OK ||
        (s = rec__feed_scan_rows(f, REC__FS_STATE, from->state, until_ms, max_rows, rec__feed_state_row, frames, &sc[0],
                                 err)) != TT_OK ||
        (s = rec__feed_scan_rows(f, REC__FS_EVENT, from->event, until_ms, max_rows, rec__feed_event_row, events, &sc[1],
                                 err)) != TT_OK ||
        (s = rec__feed_scan_rows(f, REC__FS_QUERY, from->query, until_ms, max_rows, rec__feed_query_row, queries,
                                 &sc[2], err)) != TT_OK ||
        (s = rec__feed_scan_rows(f, REC__FS_CHANGE, from->change, until_ms, max_rows, rec__feed_change_row, changes,
                                 &sc[3], err)) != TT_OK ||
        (f->has_referee && (s = rec__feed_scan_rows(f, REC__FS_REFEREE, from->referee, until_ms, max_rows,
                                                    rec__feed_referee_row, refs, &sc[4], err)) != TT_OK))
        goto rollback;
    if (!f->has_referee)
        sc[4].last = from->referee;
    int all = sc[0].exhausted && sc[1].exhausted && sc[2].exhausted && sc[3].exhausted && sc[4].exhausted &&
              (until_ms == REC_TIME_UNSET || until_ms >= last_t);
    to->state = sc[0].last;
    to->event = sc[1].last;
    to->query = sc[2].last;
    to->change = sc[3].last;
    to->referee = sc[4].last;
    long long max_fig = from->figure, max_frame = from->frame, max_t = -1;
    for (int i = 0; i < 5; i++) {
        if (sc[i].max_fig > max_fig)
            max_fig = sc[i].max_fig;
        if (sc[i].max_frame > max_frame)
            max_frame = sc[i].max_frame;
        if (sc[i].max_t > max_t)
            max_t = sc[i].max_t;
    }
    if (all) { /* everything saved: every figure, the session's own progress */
        long long n;
        int null;
        sqlite3_stmt *mf = rec__feed_stmt(f, REC__FS_MAX_FIGURE);
        if (!mf) {
            s = rec__db_err(f->db, err, f->path, "reading");
            goto rollback;
        }
        if ((s = rec__feed_one_st(f, mf, f->session, &n, &null, err)) != TT_OK)
            goto rollback;
        if (!null && n > max_fig)
            max_fig = n;
        if (last_frame > max_frame)
            max_frame = last_frame;
        max_t = last_t;
    }
    to->figure = max_fig;
    to->frame = max_frame;
    to->ended = all && ended;
    /* after a scenario change every figure's name and side is sent again */
    if ((s = rec__feed_figures(f, json_array_size(changes) ? 0 : from->figure, to->figure, figs, err)) != TT_OK)
        goto rollback;
    sqlite3_exec(f->db, "COMMIT", NULL, NULL, NULL);
    if (rec_pos_same_rows(from, to) && to->frame == from->frame && to->ended == from->ended && !header)
        goto done; /* nothing new */
    if (!to->ended)
        json_object_set_new(sess, "ended_utc", json_null());
    json_object_set_new(sess, "last_frame", to->frame >= 0 ? json_integer(to->frame) : json_null());
    json_object_set_new(sess, "last_t_ms", max_t >= 0 ? json_integer(max_t) : json_null());
    o = json_pack("{s:s, s:o, s:o, s:O, s:O, s:O, s:O, s:O, s:O}", "game", f->game, "from", rec__pos_to_json(from),
                  "to", rec__pos_to_json(to), "session", sess, "figures", figs, "frames", frames, "events", events,
                  "queries", queries, "changes", changes);
    if (o && json_array_size(refs)) /* only when there are some: a copy from an older build reads the rest */
        json_object_set(o, "referee", refs);
    *chunk = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) : NULL;
    if (!*chunk)
        s = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    goto done;
rollback:
    sqlite3_exec(f->db, "ROLLBACK", NULL, NULL, NULL);
done:
    json_decref(o);
    json_decref(sess);
    json_decref(figs);
    json_decref(frames);
    json_decref(events);
    json_decref(queries);
    json_decref(changes);
    json_decref(refs);
    return s;
}
