/* rec_copy.c - the hall's copy of a table's recording (rec_copy.h): chunks
 * applied in order, each in one transaction with the copy's position (in
 * meta, key "copy:GAME"), so nothing is ever half-applied. */
#include "rec_copy.h"
#include "rec_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rec_copy {
    sqlite3 *db;
    char *path;
    /* the game last applied */
    char game[96];
    long long session; /* its session in the copy, 0: none yet */
    rec_pos have;
    sqlite3_stmt *st_find, *st_fig, *st_rename, *st_state, *st_event, *st_query, *st_change, *st_progress, *st_meta,
        *st_getmeta, *st_referee;
};

#define REC__COPY_JSON_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

tt_status rec_copy_open(const char *path, rec_copy **out, tt_err *err)
{
    if (!out)
        return tt_err_set(err, TT_ERR_ARG, "rec_copy_open: no output handle");
    *out = NULL;
    rec_copy *c = calloc(1, sizeof *c);
    tt_status s;
    if (!c || !(c->path = strdup(path ? path : ""))) {
        free(c);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    if ((s = rec__db_open(path, REC__WRITE_APPEND, &c->db, err)) != TT_OK)
        goto fail;
    struct {
        sqlite3_stmt **st;
        const char *sql;
    } sts[] = {
        {&c->st_find, "SELECT id FROM figure WHERE session = ? AND family = ? AND tag = ?"},
        {&c->st_fig, "INSERT INTO figure (session, family, tag, name, side) VALUES (?, ?, ?, ?, ?)"},
        {&c->st_rename, "UPDATE figure SET name = ?, side = ? WHERE id = ?"},
        {&c->st_state, "INSERT INTO state (figure, frame, t_ms, x, y, facing_deg, state, z_in, err95_in, "
                       "z_err95_in, facing_err95_deg) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
        {&c->st_event, "INSERT INTO event (session, frame, t_ms, kind, figure, from_x, from_y, to_x, to_y, z_in) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
        {&c->st_query, "INSERT INTO query (session, frame, t_ms, query_json, answer_json) VALUES (?, ?, ?, ?, ?)"},
        {&c->st_change, "INSERT INTO scenario_change (session, frame, t_ms, scenario_json) VALUES (?, ?, ?, ?)"},
        {&c->st_progress, "UPDATE session SET last_frame = ?, last_t_ms = ?, ended_utc = ? WHERE id = ?"},
        {&c->st_meta, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"},
        {&c->st_getmeta, "SELECT value FROM meta WHERE key = ?"},
        {&c->st_referee, "INSERT INTO referee (session, frame, t_ms, event, event_json) VALUES (?, ?, ?, ?, ?)"},
    };
    for (size_t i = 0; i < sizeof sts / sizeof sts[0]; i++)
        if (sqlite3_prepare_v3(c->db, sts[i].sql, -1, SQLITE_PREPARE_PERSISTENT, sts[i].st, NULL) != SQLITE_OK) {
            s = rec__db_err(c->db, err, path, "preparing");
            goto fail;
        }
    c->have = rec_pos_empty();
    *out = c;
    return TT_OK;
fail:
    rec_copy_close(c);
    return s;
}

void rec_copy_close(rec_copy *c)
{
    if (!c)
        return;
    sqlite3_stmt *sts[] = {c->st_find,  c->st_fig,    c->st_rename,   c->st_state, c->st_event,  c->st_query,
                           c->st_change, c->st_progress, c->st_meta,  c->st_getmeta, c->st_referee};
    for (size_t i = 0; i < sizeof sts / sizeof sts[0]; i++)
        sqlite3_finalize(sts[i]);
    sqlite3_close(c->db);
    free(c->path);
    free(c);
}

/* Make `game` the current one: its session and position from meta. */
static tt_status rec__copy_select(rec_copy *c, const char *game, tt_err *err)
{
    if (c->game[0] && !strcmp(c->game, game))
        return TT_OK;
    if (strlen(game) >= sizeof c->game)
        return tt_err_set(err, TT_ERR_FORMAT, "a game name longer than %zu characters", sizeof c->game - 1);
    char key[128];
    snprintf(key, sizeof key, "copy:%s", game);
    sqlite3_stmt *st = c->st_getmeta;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    json_t *j = rc == SQLITE_ROW ? json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL) : NULL;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return rec__db_err(c->db, err, c->path, "reading");
    rec_pos have = rec_pos_empty();
    long long session = 0;
    if (j) {
        session = json_integer_value(json_object_get(j, "session"));
        tt_status s = rec__pos_from_json(json_object_get(j, "have"), &have, err);
        json_decref(j);
        if (s != TT_OK)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: its copy of %s has a damaged position", c->path, game);
    }
    snprintf(c->game, sizeof c->game, "%s", game);
    c->session = session;
    c->have = have;
    return TT_OK;
}

long long rec_copy_session(rec_copy *c, const char *game)
{
    return c && game && rec__copy_select(c, game, NULL) == TT_OK ? c->session : 0;
}

tt_status rec_copy_have(rec_copy *c, const char *game, rec_pos *have, tt_err *err)
{
    if (!c || !game || !have)
        return tt_err_set(err, TT_ERR_ARG, "rec_copy_have: missing argument");
    tt_status s = rec__copy_select(c, game, err);
    *have = s == TT_OK ? c->have : rec_pos_empty();
    return s;
}

/* ---- applying ---- */

static tt_status rec__copy_bad(tt_err *err, const char *what)
{
    return tt_err_set(err, TT_ERR_FORMAT, "a malformed recording chunk: %s", what);
}

static int rec__copy_step(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW;
}

static void rec__copy_bind_str(sqlite3_stmt *st, int i, const json_t *v)
{
    if (json_is_string(v))
        sqlite3_bind_text(st, i, json_string_value(v), -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/* A JSON value stored as the recorder stores it (compact, 15 digits). */
static int rec__copy_bind_json(sqlite3_stmt *st, int i, const json_t *v)
{
    if (!v || json_is_null(v)) {
        sqlite3_bind_null(st, i);
        return 1;
    }
    char *t = json_dumps(v, REC__COPY_JSON_FLAGS | JSON_ENCODE_ANY);
    if (!t)
        return 0;
    sqlite3_bind_text(st, i, t, -1, free);
    return 1;
}

static void rec__copy_bind_frame(sqlite3_stmt *st, int i, const json_t *v)
{
    if (json_is_integer(v))
        sqlite3_bind_int64(st, i, json_integer_value(v));
    else
        sqlite3_bind_null(st, i);
}

static int rec__copy_coord(const json_t *v, double *out)
{
    if (!json_is_number(v))
        return 0;
    *out = json_number_value(v);
    return isfinite(*out) && fabs(*out) <= REC_MAX_COORD_IN;
}

/* A height (z_in, schema 3) into column i: NULL when absent. */
static int rec__copy_bind_z(sqlite3_stmt *st, int i, const json_t *v)
{
    double z;
    if (!v || json_is_null(v)) {
        sqlite3_bind_null(st, i);
        return 1;
    }
    if (!rec__copy_coord(v, &z))
        return 0;
    sqlite3_bind_double(st, i, z);
    return 1;
}

/* A figure's 95% error (schema 4) into column i: NULL when absent; a
 * negative or unbounded one is refused. */
static int rec__copy_bind_err(sqlite3_stmt *st, int i, const json_t *v)
{
    double e;
    if (!v || json_is_null(v)) {
        sqlite3_bind_null(st, i);
        return 1;
    }
    if (!rec__copy_coord(v, &e) || e < 0)
        return 0;
    sqlite3_bind_double(st, i, e);
    return 1;
}

/* The copy's figure row of (family, tag), added when new. */
static tt_status rec__copy_figure(rec_copy *c, const json_t *fam, const json_t *tag, long long *row, tt_err *err)
{
    if (!json_is_string(fam) || strlen(json_string_value(fam)) > 31 || !json_is_integer(tag))
        return rec__copy_bad(err, "a figure needs its tag family and id");
    sqlite3_stmt *st = c->st_find;
    sqlite3_bind_int64(st, 1, c->session);
    sqlite3_bind_text(st, 2, json_string_value(fam), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, json_integer_value(tag));
    int rc = sqlite3_step(st);
    *row = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    if (rc == SQLITE_ROW)
        return TT_OK;
    if (rc != SQLITE_DONE)
        return rec__db_err(c->db, err, c->path, "reading");
    st = c->st_fig;
    sqlite3_bind_int64(st, 1, c->session);
    sqlite3_bind_text(st, 2, json_string_value(fam), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, json_integer_value(tag));
    if (!rec__copy_step(st))
        return rec__db_err(c->db, err, c->path, "adding a figure");
    *row = sqlite3_last_insert_rowid(c->db);
    return TT_OK;
}

static tt_status rec__copy_session(rec_copy *c, const json_t *ses, tt_err *err)
{
    const json_t *started = json_object_get(ses, "started_utc");
    if (!json_is_string(started) || !json_is_integer(json_object_get(ses, "started_unix_ms")))
        return rec__copy_bad(err, "the first chunk of a game needs its session's start");
    /* the table's own session id ("STARTED_UTC#ID") when the copy has none
     * such: a game sent late takes its place among the others */
    const char *hash = strrchr(c->game, '#');
    char *end = NULL;
    long long id = hash ? strtoll(hash + 1, &end, 10) : 0;
    if (!hash || !end || *end || end == hash + 1 || id < 1)
        id = 0;
    sqlite3_stmt *st = NULL;
    if (id > 0) {
        if (sqlite3_prepare_v2(c->db, "SELECT 1 FROM session WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
            return rec__db_err(c->db, err, c->path, "starting a session");
        sqlite3_bind_int64(st, 1, id);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        st = NULL;
        if (rc == SQLITE_ROW)
            id = 0; /* taken by a game from another recording: after the others */
        else if (rc != SQLITE_DONE)
            return rec__db_err(c->db, err, c->path, "starting a session");
    }
    if (sqlite3_prepare_v2(c->db, "INSERT INTO session (started_utc, started_unix_ms, source, note, rig_json, "
                                  "scenario_json, id) VALUES (?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
        return rec__db_err(c->db, err, c->path, "starting a session");
    if (id > 0)
        sqlite3_bind_int64(st, 7, id);
    else
        sqlite3_bind_null(st, 7);
    rec__copy_bind_str(st, 1, started);
    sqlite3_bind_int64(st, 2, json_integer_value(json_object_get(ses, "started_unix_ms")));
    rec__copy_bind_str(st, 3, json_object_get(ses, "source"));
    rec__copy_bind_str(st, 4, json_object_get(ses, "note"));
    int ok = rec__copy_bind_json(st, 5, json_object_get(ses, "rig")) &&
             rec__copy_bind_json(st, 6, json_object_get(ses, "scenario"));
    ok = ok && sqlite3_step(st) == SQLITE_DONE;
    sqlite3_finalize(st);
    if (!ok)
        return rec__db_err(c->db, err, c->path, "starting a session");
    c->session = sqlite3_last_insert_rowid(c->db);
    return TT_OK;
}

static tt_status rec__copy_figures(rec_copy *c, const json_t *figs, tt_err *err)
{
    size_t i;
    const json_t *f;
    json_array_foreach(figs, i, f) {
        long long row;
        tt_status s = rec__copy_figure(c, json_object_get(f, "family"), json_object_get(f, "id"), &row, err);
        if (s != TT_OK)
            return s;
        sqlite3_stmt *st = c->st_rename;
        rec__copy_bind_str(st, 1, json_object_get(f, "name"));
        rec__copy_bind_str(st, 2, json_object_get(f, "side"));
        sqlite3_bind_int64(st, 3, row);
        if (!rec__copy_step(st))
            return rec__db_err(c->db, err, c->path, "naming a figure");
    }
    return TT_OK;
}

static tt_status rec__copy_frames(rec_copy *c, const json_t *frames, tt_err *err)
{
    size_t i, k;
    const json_t *fr, *f;
    json_array_foreach(frames, i, fr) {
        const json_t *frame = json_object_get(fr, "frame"), *t = json_object_get(fr, "t_ms");
        if (!json_is_integer(frame) || !json_is_integer(t) || !json_is_array(json_object_get(fr, "figures")))
            return rec__copy_bad(err, "a frame needs \"frame\", \"t_ms\" and \"figures\"");
        json_array_foreach(json_object_get(fr, "figures"), k, f) {
            double x, y, facing;
            const char *state = json_string_value(json_object_get(f, "state"));
            if (!rec__copy_coord(json_object_get(f, "x"), &x) || !rec__copy_coord(json_object_get(f, "y"), &y) ||
                !rec__copy_coord(json_object_get(f, "facing_deg"), &facing) || !state ||
                (strcmp(state, "seen") && strcmp(state, "occluded") && strcmp(state, "lost")))
                return rec__copy_bad(err, "a figure's position, facing or state");
            long long row;
            tt_status s = rec__copy_figure(c, json_object_get(f, "family"), json_object_get(f, "id"), &row, err);
            if (s != TT_OK)
                return s;
            sqlite3_stmt *st = c->st_state;
            sqlite3_bind_int64(st, 1, row);
            sqlite3_bind_int64(st, 2, json_integer_value(frame));
            sqlite3_bind_int64(st, 3, json_integer_value(t));
            sqlite3_bind_double(st, 4, x);
            sqlite3_bind_double(st, 5, y);
            sqlite3_bind_double(st, 6, facing);
            sqlite3_bind_text(st, 7, state, -1, SQLITE_TRANSIENT);
            if (!rec__copy_bind_z(st, 8, json_object_get(f, "z_in")))
                return rec__copy_bad(err, "a figure's height");
            if (!rec__copy_bind_err(st, 9, json_object_get(f, "err95_in")) ||
                !rec__copy_bind_err(st, 10, json_object_get(f, "z_err95_in")) ||
                !rec__copy_bind_err(st, 11, json_object_get(f, "facing_err95_deg")))
                return rec__copy_bad(err, "a figure's error");
            if (!rec__copy_step(st))
                return rec__db_err(c->db, err, c->path, "writing a figure state");
        }
    }
    return TT_OK;
}

/* [x, y] into columns i, i+1 (NULL, NULL for null). */
static int rec__copy_bind_xy(sqlite3_stmt *st, int i, const json_t *v)
{
    double x, y;
    if (json_is_null(v) || !v) {
        sqlite3_bind_null(st, i);
        sqlite3_bind_null(st, i + 1);
        return 1;
    }
    if (!rec__copy_coord(json_array_get(v, 0), &x) || !rec__copy_coord(json_array_get(v, 1), &y))
        return 0;
    sqlite3_bind_double(st, i, x);
    sqlite3_bind_double(st, i + 1, y);
    return 1;
}

static tt_status rec__copy_events(rec_copy *c, const json_t *events, tt_err *err)
{
    size_t i;
    const json_t *e;
    json_array_foreach(events, i, e) {
        const char *kind = json_string_value(json_object_get(e, "event"));
        if (!json_is_integer(json_object_get(e, "frame")) || !json_is_integer(json_object_get(e, "t_ms")) || !kind ||
            (strcmp(kind, "moved") && strcmp(kind, "appeared") && strcmp(kind, "removed") && strcmp(kind, "height")))
            return rec__copy_bad(err, "an event needs \"frame\", \"t_ms\" and a known \"event\"");
        long long row;
        tt_status s = rec__copy_figure(c, json_object_get(e, "family"), json_object_get(e, "id"), &row, err);
        if (s != TT_OK)
            return s;
        sqlite3_stmt *st = c->st_event;
        sqlite3_bind_int64(st, 1, c->session);
        sqlite3_bind_int64(st, 2, json_integer_value(json_object_get(e, "frame")));
        sqlite3_bind_int64(st, 3, json_integer_value(json_object_get(e, "t_ms")));
        sqlite3_bind_text(st, 4, kind, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 5, row);
        if (!rec__copy_bind_xy(st, 6, json_object_get(e, "from")) || !rec__copy_bind_xy(st, 8, json_object_get(e, "to")) ||
            !rec__copy_bind_z(st, 10, json_object_get(e, "z_in"))) {
            sqlite3_clear_bindings(st);
            return rec__copy_bad(err, "an event's \"from\" or \"to\"");
        }
        if (!rec__copy_step(st))
            return rec__db_err(c->db, err, c->path, "writing an event");
    }
    return TT_OK;
}

/* Queries (with "query" and "answer") or scenario changes ("scenario"). */
static tt_status rec__copy_texts(rec_copy *c, const json_t *arr, int queries, tt_err *err)
{
    size_t i;
    const json_t *q;
    json_array_foreach(arr, i, q) {
        const json_t *a = json_object_get(q, queries ? "query" : "scenario");
        const json_t *b = queries ? json_object_get(q, "answer") : NULL;
        if (!json_is_integer(json_object_get(q, "t_ms")) || !json_is_object(a) || (queries && !json_is_object(b)))
            return rec__copy_bad(err, queries ? "a query needs \"t_ms\", \"query\" and \"answer\""
                                              : "a scenario change needs \"t_ms\" and \"scenario\"");
        sqlite3_stmt *st = queries ? c->st_query : c->st_change;
        sqlite3_bind_int64(st, 1, c->session);
        rec__copy_bind_frame(st, 2, json_object_get(q, "frame"));
        sqlite3_bind_int64(st, 3, json_integer_value(json_object_get(q, "t_ms")));
        if (!rec__copy_bind_json(st, 4, a) || (queries && !rec__copy_bind_json(st, 5, b))) {
            sqlite3_clear_bindings(st);
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        }
        if (!rec__copy_step(st))
            return rec__db_err(c->db, err, c->path, queries ? "writing a query" : "writing a scenario change");
    }
    return TT_OK;
}

/* The referee's lines: {"frame","t_ms","event",...}, stored without frame
 * and t_ms as 'track --events' wrote them. */
static tt_status rec__copy_referee(rec_copy *c, const json_t *arr, tt_err *err)
{
    size_t i;
    const json_t *r;
    json_array_foreach(arr, i, r) {
        const json_t *fr = json_object_get(r, "frame");
        const char *kind = json_string_value(json_object_get(r, "event"));
        if (!json_is_integer(json_object_get(r, "t_ms")) || (fr && !json_is_null(fr) && !json_is_integer(fr)) ||
            !rec__referee_known(kind))
            return rec__copy_bad(err, "a referee's line needs \"t_ms\" and a known \"event\"");
        json_t *ev = json_deep_copy(r);
        if (!ev)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        json_object_del(ev, "frame");
        json_object_del(ev, "t_ms");
        sqlite3_stmt *st = c->st_referee;
        sqlite3_bind_int64(st, 1, c->session);
        rec__copy_bind_frame(st, 2, fr);
        sqlite3_bind_int64(st, 3, json_integer_value(json_object_get(r, "t_ms")));
        sqlite3_bind_text(st, 4, kind, -1, SQLITE_TRANSIENT);
        int ok = rec__copy_bind_json(st, 5, ev);
        json_decref(ev);
        if (!ok) {
            sqlite3_clear_bindings(st);
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        }
        if (!rec__copy_step(st))
            return rec__db_err(c->db, err, c->path, "writing a referee's event");
    }
    return TT_OK;
}

static tt_status rec__copy_progress(rec_copy *c, const json_t *ses, const rec_pos *to, tt_err *err)
{
    sqlite3_stmt *st = c->st_progress;
    rec__copy_bind_frame(st, 1, json_object_get(ses, "last_frame"));
    rec__copy_bind_frame(st, 2, json_object_get(ses, "last_t_ms"));
    rec__copy_bind_str(st, 3, json_object_get(ses, "ended_utc"));
    sqlite3_bind_int64(st, 4, c->session);
    if (!rec__copy_step(st))
        return rec__db_err(c->db, err, c->path, "saving progress");
    json_t *m = json_pack("{s:I, s:o}", "session", (json_int_t)c->session, "have", rec__pos_to_json(to));
    char *text = m ? json_dumps(m, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(m);
    if (!text)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    char key[128];
    snprintf(key, sizeof key, "copy:%s", c->game);
    st = c->st_meta;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, text, -1, free);
    if (!rec__copy_step(st))
        return rec__db_err(c->db, err, c->path, "saving progress");
    return TT_OK;
}

/* A chunk's claim, "to", against the rows it holds: a kind of row whose
 * last id moves on must come with rows of that kind (at least one, at most
 * as many as the ids it moves on by), and no id goes back.  A chunk that
 * claims rows it does not hold (a game "complete" without its rows) is
 * malformed. */
static tt_status rec__copy_claims(const json_t *j, const rec_pos *from, const rec_pos *to, tt_err *err)
{
    size_t states = 0, i;
    const json_t *fr;
    json_array_foreach(json_object_get(j, "frames"), i, fr) states += json_array_size(json_object_get(fr, "figures"));
    static const char *const kinds[] = {"figure states", "events", "queries", "scenario changes", "referee's events"};
    const long long delta[] = {to->state - from->state, to->event - from->event, to->query - from->query,
                               to->change - from->change, to->referee - from->referee};
    const size_t rows[] = {states, json_array_size(json_object_get(j, "events")),
                           json_array_size(json_object_get(j, "queries")),
                           json_array_size(json_object_get(j, "changes")),
                           json_array_size(json_object_get(j, "referee"))};
    for (int k = 0; k < 5; k++) {
        if (delta[k] < 0 || (delta[k] > 0 && rows[k] == 0) || (unsigned long long)rows[k] > (unsigned long long)delta[k])
            return tt_err_set(err, TT_ERR_FORMAT,
                              "a recording chunk that claims %lld new %s but holds %zu: its position (\"to\") does not "
                              "match its rows, so it is not applied",
                              delta[k], kinds[k], rows[k]);
    }
    if (to->figure < from->figure || (to->figure > from->figure && json_array_size(json_object_get(j, "figures")) == 0))
        return tt_err_set(err, TT_ERR_FORMAT, "a recording chunk that claims new figures but names none: it is not "
                          "applied");
    if (to->frame < from->frame || (from->ended && !to->ended))
        return tt_err_set(err, TT_ERR_FORMAT, "a recording chunk whose position goes back: it is not applied");
    return TT_OK;
}

tt_status rec_copy_apply(rec_copy *c, const char *chunk, size_t len, rec_copy_result *res, char **game,
                         tt_err *err)
{
    if (!c || !chunk || !res)
        return tt_err_set(err, TT_ERR_ARG, "rec_copy_apply: missing argument");
    if (game)
        *game = NULL;
    *res = REC_COPY_DUPLICATE;
    json_error_t je;
    json_t *j = json_loadb(chunk, len, 0, &je);
    if (!j)
        return tt_err_set(err, TT_ERR_FORMAT, "a recording chunk that is not JSON (line %d, column %d): %s", je.line,
                          je.column, je.text);
    tt_status s = TT_OK;
    rec_pos from, to;
    const char *g = json_string_value(json_object_get(j, "game"));
    const json_t *ses = json_object_get(j, "session");
    if (!g || !*g || !json_is_object(ses)) {
        s = rec__copy_bad(err, "no \"game\" or \"session\"");
        goto done;
    }
    if (game && !(*game = strdup(g))) {
        s = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((s = rec__pos_from_json(json_object_get(j, "from"), &from, err)) != TT_OK ||
        (s = rec__pos_from_json(json_object_get(j, "to"), &to, err)) != TT_OK ||
        (s = rec__copy_claims(j, &from, &to, err)) != TT_OK || (s = rec__copy_select(c, g, err)) != TT_OK)
        goto done;
    int header = json_is_string(json_object_get(ses, "started_utc"));
    if (c->session && rec_pos_covers(&c->have, &to))
        goto done; /* already held */
    if (!rec_pos_same_rows(&from, &c->have) || (!c->session && !header)) {
        *res = REC_COPY_GAP;
        goto done;
    }
    if (sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        s = rec__db_err(c->db, err, c->path, "starting a transaction");
        goto done;
    }
    long long had_session = c->session;
    if ((!c->session && (s = rec__copy_session(c, ses, err)) != TT_OK) ||
        (s = rec__copy_figures(c, json_object_get(j, "figures"), err)) != TT_OK ||
        (s = rec__copy_frames(c, json_object_get(j, "frames"), err)) != TT_OK ||
        (s = rec__copy_events(c, json_object_get(j, "events"), err)) != TT_OK ||
        (s = rec__copy_texts(c, json_object_get(j, "queries"), 1, err)) != TT_OK ||
        (s = rec__copy_texts(c, json_object_get(j, "changes"), 0, err)) != TT_OK ||
        (s = rec__copy_referee(c, json_object_get(j, "referee"), err)) != TT_OK ||
        (s = rec__copy_progress(c, ses, &to, err)) != TT_OK || sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        if (s == TT_OK)
            s = rec__db_err(c->db, err, c->path, "committing");
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        c->session = had_session;
        goto done;
    }
    c->have = to;
    *res = REC_COPY_APPLIED;
done:
    json_decref(j);
    if (s != TT_OK && game) {
        free(*game);
        *game = NULL;
    }
    return s;
}
