/* rec_writer.c - the recorder the tracker calls: sessions, per-frame change
 * detection, events, queries, and the commit rhythm that makes a kill -9
 * lose at most the last second. */
#include "rec_internal.h"
#include "rec_checkpoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tt_json.h"

struct rec {
    sqlite3 *db;
    char *path;
    rec_options opt;
    sqlite3_stmt *st_state, *st_fig, *st_event, *st_query, *st_progress, *st_referee;
    long long session;
    int in_txn;
    double txn_wall;          /* monotonic ms when the open transaction began */
    long long txn_tms;        /* t_ms of the first frame in it */
    int txn_has_tms;
    long last_frame;
    long long last_tms;
    int have_frame;
    rec__figmap map;
    unsigned gen;
    json_t *tagnames;         /* "17" -> {"name":..,"side":..} from the scenario */
    long long rows;
    void (*hook)(void *user, long frame_no, long long t_ms);
    void *hook_user;
    rec__ckpt *ckpt;          /* background WAL checkpoints, or NULL */
    int wal_pages;            /* WAL size after the last commit */
    long committed_frame;     /* the last frame of the last commit, -1 before one */
    int failed;               /* a write failed: nothing more is written */
    char fail_msg[TT_ERR_MSG_LEN];
};

/* Past this many WAL pages (16 MB) the writer checkpoints by itself: the
 * background thread could not keep up (recording faster than real time). */
#define REC_WAL_PAGES_MAX 4096

static int rec__wal_hook(void *user, sqlite3 *db, const char *name, int pages)
{
    (void)db;
    (void)name;
    ((rec *)user)->wal_pages = pages;
    return SQLITE_OK;
}

static const char *const rec__state_names[] = {"seen", "occluded", "lost"};
static const char *const rec__event_names[] = {"moved", "appeared", "removed", "height"};

static tt_status rec__prepare(rec *r, const char *sql, sqlite3_stmt **st, tt_err *err)
{
    if (sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
        return rec__db_err(r->db, err, r->path, "preparing");
    return TT_OK;
}

tt_status rec_open(const char *path, rec_mode mode, rec **out, tt_err *err)
{
    tt_status s;
    if (!out)
        return tt_err_set(err, TT_ERR_ARG, "rec_open: no output handle");
    *out = NULL;
    rec *r = calloc(1, sizeof *r);
    if (!r)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    r->opt.pos_eps_in = 0.02;
    r->opt.facing_eps_deg = 1.0;
    r->opt.commit_ms = 250;
    r->committed_frame = -1;
    r->path = strdup(path ? path : "");
    if (!r->path) {
        s = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    s = rec__db_open(path, mode == REC_CREATE_NEW ? REC__WRITE_NEW : REC__WRITE_APPEND, &r->db, err);
    if (s != TT_OK)
        goto fail;
    if ((s = rec__prepare(r, "INSERT INTO state (figure, frame, t_ms, x, y, facing_deg, state, z_in, err95_in, "
                             "z_err95_in, facing_err95_deg) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &r->st_state, err)) != TT_OK ||
        (s = rec__prepare(r, "INSERT INTO figure (session, family, tag, name, side) VALUES (?, ?, ?, ?, ?)",
                          &r->st_fig, err)) != TT_OK ||
        (s = rec__prepare(r, "INSERT INTO event (session, frame, t_ms, kind, figure, from_x, from_y, to_x, to_y, z_in) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &r->st_event, err)) != TT_OK ||
        (s = rec__prepare(r, "INSERT INTO query (session, frame, t_ms, query_json, answer_json) "
                             "VALUES (?, ?, ?, ?, ?)", &r->st_query, err)) != TT_OK ||
        (s = rec__prepare(r, "UPDATE session SET last_frame = ?, last_t_ms = ? WHERE id = ?", &r->st_progress,
                          err)) != TT_OK ||
        (s = rec__prepare(r, "INSERT INTO referee (session, frame, t_ms, event, event_json) VALUES (?, ?, ?, ?, ?)",
                          &r->st_referee, err)) != TT_OK)
        goto fail;
    /* Checkpoints in the background; if that cannot start, SQLite's own
     * automatic checkpoints stay on (correct, only with occasional stalls). */
    r->ckpt = rec__ckpt_start(path);
    if (r->ckpt)
        sqlite3_wal_hook(r->db, rec__wal_hook, r); /* replaces the automatic checkpoints */
    *out = r;
    return TT_OK;
fail:
    rec_close(r, NULL);
    return s;
}

tt_status rec_set_options(rec *r, const rec_options *opt, tt_err *err)
{
    if (!r)
        return tt_err_set(err, TT_ERR_ARG, "rec_set_options: no recorder");
    if (!opt)
        return TT_OK;
    if (opt->pos_eps_in < 0 || opt->facing_eps_deg < 0 || opt->commit_ms < 0 || opt->commit_ms > 1000)
        return tt_err_set(err, TT_ERR_ARG, "recording options out of range (eps >= 0, commit_ms 0..1000)");
    if (opt->pos_eps_in > 0)
        r->opt.pos_eps_in = opt->pos_eps_in;
    if (opt->facing_eps_deg > 0)
        r->opt.facing_eps_deg = opt->facing_eps_deg;
    if (opt->commit_ms > 0)
        r->opt.commit_ms = opt->commit_ms;
    return TT_OK;
}

void rec_set_commit_hook(rec *r, void (*hook)(void *user, long frame_no, long long t_ms), void *user)
{
    if (!r)
        return;
    r->hook = hook;
    r->hook_user = user;
}

long long rec_session_id(const rec *r)
{
    return r ? r->session : 0;
}

long long rec_rows_written(const rec *r)
{
    return r ? r->rows : 0;
}

static tt_status rec__begin(rec *r, tt_err *err)
{
    if (r->in_txn)
        return TT_OK;
    if (sqlite3_exec(r->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return rec__db_err(r->db, err, r->path, "starting a transaction");
    r->in_txn = 1;
    r->txn_wall = rec__mono_ms();
    r->txn_has_tms = 0;
    return TT_OK;
}

/* A write failed (disk full, I/O error): the open transaction is rolled
 * back, nothing more is written, and the recording stays as of its last
 * commit: truncated at committed_frame, with no ended_utc. */
static tt_status rec__step_failed(rec *r, const char *what, tt_err *err)
{
    tt_err e = {0};
    rec__db_err(r->db, &e, r->path, what);
    if (r->in_txn && !sqlite3_get_autocommit(r->db))
        sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
    r->in_txn = 0;
    r->failed = 1;
    if (r->committed_frame >= 0)
        snprintf(r->fail_msg, sizeof r->fail_msg, "%.900s; the recording is truncated at frame %ld, the last frame saved",
                 e.msg, r->committed_frame);
    else
        snprintf(r->fail_msg, sizeof r->fail_msg, "%.900s; no frame was saved", e.msg);
    return tt_err_set(err, e.status, "%s", r->fail_msg);
}

static tt_status rec__commit(rec *r, tt_err *err)
{
    if (!r->in_txn)
        return TT_OK;
    if (r->have_frame) {
        sqlite3_stmt *st = r->st_progress;
        sqlite3_bind_int64(st, 1, r->last_frame);
        sqlite3_bind_int64(st, 2, r->last_tms);
        sqlite3_bind_int64(st, 3, r->session);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
            return rec__step_failed(r, "saving progress", err);
    }
    if (sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return rec__step_failed(r, "committing", err);
    r->in_txn = 0;
    if (r->have_frame)
        r->committed_frame = r->last_frame;
    if (r->wal_pages > REC_WAL_PAGES_MAX) {
        sqlite3_wal_checkpoint_v2(r->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        r->wal_pages = 0;
    }
    if (r->hook && r->have_frame)
        r->hook(r->hook_user, r->last_frame, r->last_tms);
    return TT_OK;
}

static tt_status rec__maybe_commit(rec *r, tt_err *err)
{
    if (!r->in_txn)
        return TT_OK;
    int due = rec__mono_ms() - r->txn_wall >= r->opt.commit_ms;
    if (r->txn_has_tms && r->have_frame && r->last_tms - r->txn_tms >= r->opt.commit_ms)
        due = 1;
    return due ? rec__commit(r, err) : TT_OK;
}

tt_status rec_flush(rec *r, tt_err *err)
{
    if (!r)
        return tt_err_set(err, TT_ERR_ARG, "rec_flush: no recorder");
    if (r->failed)
        return tt_err_set(err, TT_ERR_IO, "%s", r->fail_msg);
    return rec__commit(r, err);
}

/* Keep the scenario's tag -> figure name and side, for the figure table. */
static tt_status rec__scenario_names(rec *r, const json_t *sc, tt_err *err)
{
    json_decref(r->tagnames);
    r->tagnames = json_object();
    if (!r->tagnames)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    const json_t *tags = json_object_get(sc, "tags");
    const json_t *figs = json_object_get(sc, "figures");
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)tags, key, val) {
        if (!json_is_string(val))
            continue;
        const char *name = json_string_value(val);
        const char *side = NULL;
        size_t i;
        json_t *f;
        json_array_foreach(figs, i, f) {
            if (json_is_string(json_object_get(f, "id")) && !strcmp(json_string_value(json_object_get(f, "id")), name))
                side = json_string_value(json_object_get(f, "side"));
        }
        json_t *o = json_pack("{s:s, s:s?}", "name", name, "side", side);
        if (!o || json_object_set_new(r->tagnames, key, o) != 0)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    return TT_OK;
}

/* Validate a JSON text and return it compact (malloc'd) in *out; NULL in,
 * NULL out. */
static tt_status rec__compact(const char *text, const char *what, char **out, json_t **keep, tt_err *err)
{
    *out = NULL;
    if (keep)
        *keep = NULL;
    if (!text)
        return TT_OK;
    json_t *j = NULL;
    tt_status s = tt_json_parse(text, what, &j, err);
    if (s != TT_OK)
        return s;
    if (!json_is_object(j)) {
        json_decref(j);
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be a JSON object", what);
    }
    /* 15 significant digits: every number typed or rounded to a few
     * decimals (0.01", 0.0001") comes back exactly as printed. */
    *out = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    if (keep)
        *keep = j;
    else
        json_decref(j);
    if (!*out) {
        if (keep) {
            json_decref(*keep);
            *keep = NULL;
        }
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    return TT_OK;
}

tt_status rec_session_projectors(rec *r, const char *json, tt_err *err)
{
    char *text = NULL, key[64];
    json_t *arr = NULL;
    sqlite3_stmt *st = NULL;
    tt_status s;
    if (!r || !r->session)
        return tt_err_set(err, TT_ERR_ARG, "rec_session_projectors: no session begun");
    if (!json)
        return TT_OK;
    if ((s = tt_json_parse(json, "projectors", &arr, err)) != TT_OK)
        return s;
    if (!json_is_array(arr)) {
        s = tt_err_set(err, TT_ERR_ARG, "the session's projectors must be a JSON array");
        goto done;
    }
    if (json_array_size(arr) == 0)
        goto done;
    if (!(text = json_dumps(arr, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)))) {
        s = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    snprintf(key, sizeof key, "session %lld projectors", r->session);
    if (sqlite3_prepare_v2(r->db, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", -1, &st, NULL) !=
            SQLITE_OK ||
        (sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT), sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT),
         sqlite3_step(st)) != SQLITE_DONE)
        s = rec__db_err(r->db, err, r->path, "keeping the session's projectors");
done:
    sqlite3_finalize(st);
    free(text);
    json_decref(arr);
    return s;
}

tt_status rec_session_begin(rec *r, const char *rig_json, const char *scenario_json, const rec_meta *meta,
                            tt_err *err)
{
    if (!r)
        return tt_err_set(err, TT_ERR_ARG, "rec_session_begin: no recorder");
    char *rig = NULL, *scen = NULL;
    json_t *scj = NULL;
    sqlite3_stmt *st = NULL;
    tt_status s = rec__commit(r, err);
    if (s != TT_OK)
        return s;
    if ((s = rec__compact(rig_json, "rig", &rig, NULL, err)) != TT_OK ||
        (s = rec__compact(scenario_json, "scenario", &scen, &scj, err)) != TT_OK)
        goto done;
    if (scj && (s = rec__scenario_names(r, scj, err)) != TT_OK)
        goto done;
    if (sqlite3_prepare_v2(r->db,
                           "INSERT INTO session (started_utc, started_unix_ms, source, note, rig_json, scenario_json) "
                           "VALUES (?, ?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK) {
        s = rec__db_err(r->db, err, r->path, "starting a session");
        goto done;
    }
    long long now = rec__unix_ms();
    char utc[40];
    rec__utc_string(now, utc, sizeof utc);
    sqlite3_bind_text(st, 1, utc, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, now);
    sqlite3_bind_text(st, 3, meta ? meta->source : NULL, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, meta ? meta->note : NULL, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, rig, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 6, scen, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE) {
        s = rec__db_err(r->db, err, r->path, "starting a session");
        goto done;
    }
    r->session = sqlite3_last_insert_rowid(r->db);
    /* A new session starts with no known figures. */
    rec__figmap_free(&r->map);
    r->have_frame = 0;
    r->rows = 0;
done:
    sqlite3_finalize(st);
    free(rig);
    free(scen);
    json_decref(scj);
    return s;
}

/* The slot of a figure, inserting its figure row the first time. */
static tt_status rec__figure(rec *r, const char *family, int id, rec__slot **out, tt_err *err)
{
    if (!family || !*family || strlen(family) >= sizeof((rec__slot *)0)->family)
        return tt_err_set(err, TT_ERR_ARG, "figure %d: tag family missing or longer than 31 characters", id);
    rec__slot *sl = rec__figmap_find(&r->map, family, id);
    if (sl) {
        *out = sl;
        return TT_OK;
    }
    const char *name = NULL, *side = NULL;
    if (r->tagnames) {
        char key[16];
        snprintf(key, sizeof key, "%d", id);
        json_t *o = json_object_get(r->tagnames, key);
        name = json_string_value(json_object_get(o, "name"));
        side = json_string_value(json_object_get(o, "side"));
    }
    sqlite3_stmt *st = r->st_fig;
    sqlite3_bind_int64(st, 1, r->session);
    sqlite3_bind_text(st, 2, family, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, id);
    sqlite3_bind_text(st, 4, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, side, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        return rec__step_failed(r, "adding a figure", err);
    sl = rec__figmap_add(&r->map, family, id);
    if (!sl)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    sl->row = sqlite3_last_insert_rowid(r->db);
    *out = sl;
    return TT_OK;
}

static tt_status rec__write_state(rec *r, rec__slot *sl, long frame_no, long long t_ms, double x, double y,
                                  double facing, int state, double z, const double e[3], tt_err *err)
{
    sqlite3_stmt *st = r->st_state;
    for (int k = 0; k < 3; k++)
        if (e[k] > 0 && isfinite(e[k]))
            sqlite3_bind_double(st, 9 + k, e[k]);
        else
            sqlite3_bind_null(st, 9 + k);
    sqlite3_bind_int64(st, 1, sl->row);
    sqlite3_bind_int64(st, 2, frame_no);
    sqlite3_bind_int64(st, 3, t_ms);
    sqlite3_bind_double(st, 4, x);
    sqlite3_bind_double(st, 5, y);
    sqlite3_bind_double(st, 6, facing);
    sqlite3_bind_text(st, 7, rec__state_names[state], -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 8, z);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return rec__step_failed(r, "writing a figure state", err);
    sl->x = x;
    sl->y = y;
    sl->facing = facing;
    sl->z = z;
    for (int k = 0; k < 3; k++)
        sl->e[k] = e[k];
    sl->state = state;
    r->rows++;
    return TT_OK;
}

static double rec__angle_diff(double a, double b)
{
    double d = fmod(fabs(a - b), 360.0);
    return d > 180.0 ? 360.0 - d : d;
}

static tt_status rec__ready(rec *r, const char *fn, tt_err *err)
{
    if (!r)
        return tt_err_set(err, TT_ERR_ARG, "%s: no recorder", fn);
    if (!r->session)
        return tt_err_set(err, TT_ERR_ARG, "%s: call rec_session_begin first", fn);
    if (r->failed)
        return tt_err_set(err, TT_ERR_IO, "%s", r->fail_msg);
    return TT_OK;
}

int rec_failed(const rec *r)
{
    return r && r->failed;
}

long rec_committed_frame(const rec *r)
{
    return r ? r->committed_frame : -1;
}

/* Positions stored are finite and within REC_MAX_COORD_IN of the origin. */
static int rec__coord_ok(double v)
{
    return isfinite(v) && fabs(v) <= REC_MAX_COORD_IN;
}

tt_status rec_frame(rec *r, long frame_no, long long t_ms, const rec_figure *figs, size_t n, tt_err *err)
{
    tt_status s = rec__ready(r, "rec_frame", err);
    if (s != TT_OK)
        return s;
    if (n && !figs)
        return tt_err_set(err, TT_ERR_ARG, "rec_frame: no figures");
    if (r->have_frame && t_ms < r->last_tms)
        return tt_err_set(err, TT_ERR_ARG, "rec_frame: frame %ld at %lld ms comes before frame %ld at %lld ms",
                          frame_no, t_ms, r->last_frame, r->last_tms);
    for (size_t i = 0; i < n; i++)
        if (!rec__coord_ok(figs[i].x) || !rec__coord_ok(figs[i].y) || !isfinite(figs[i].facing_deg) ||
            !rec__coord_ok(figs[i].z_in) || (unsigned)figs[i].state > REC_LOST || !(figs[i].err95_in >= 0) ||
            !(figs[i].z_err95_in >= 0) || !(figs[i].facing_err95_deg >= 0) || !rec__coord_ok(figs[i].err95_in) ||
            !rec__coord_ok(figs[i].z_err95_in) || !(figs[i].facing_err95_deg <= 360))
            return tt_err_set(err, TT_ERR_ARG,
                              "rec_frame: figure %d has a non-finite position, one beyond %g inches, a bad state, or a "
                              "negative or non-finite error",
                              figs[i].id, REC_MAX_COORD_IN);
    if ((s = rec__begin(r, err)) != TT_OK)
        return s;
    if (!r->txn_has_tms) {
        r->txn_has_tms = 1;
        r->txn_tms = t_ms;
    }
    unsigned gen = ++r->gen;
    const double eps2 = r->opt.pos_eps_in * r->opt.pos_eps_in;
    for (size_t i = 0; i < n; i++) {
        const rec_figure *f = &figs[i];
        rec__slot *sl;
        if ((s = rec__figure(r, f->family, f->id, &sl, err)) != TT_OK)
            return s;
        sl->gen = gen;
        double dx = f->x - sl->x, dy = f->y - sl->y;
        int changed = sl->state != (int)f->state || dx * dx + dy * dy > eps2 ||
                      rec__angle_diff(f->facing_deg, sl->facing) > r->opt.facing_eps_deg ||
                      fabs(f->z_in - sl->z) > r->opt.pos_eps_in;
        /* an error that doubles or halves is news too */
        const double fe[3] = {f->err95_in, f->z_err95_in, f->facing_err95_deg};
        for (int k = 0; k < 3; k++)
            changed |= (fe[k] > 0) != (sl->e[k] > 0) || (fe[k] > 0 && (fe[k] > 2 * sl->e[k] || 2 * fe[k] < sl->e[k]));
        if (changed && (s = rec__write_state(r, sl, frame_no, t_ms, f->x, f->y, f->facing_deg, (int)f->state, f->z_in,
                                             fe, err)) != TT_OK)
            return s;
    }
    /* Figures the tracker no longer reports are lost where they were. */
    for (size_t i = 0; i < r->map.cap; i++) {
        rec__slot *sl = &r->map.slots[i];
        if (sl->used && sl->gen != gen && sl->state != REC_LOST && sl->state >= 0 &&
            (s = rec__write_state(r, sl, frame_no, t_ms, sl->x, sl->y, sl->facing, REC_LOST, sl->z, sl->e, err)) != TT_OK)
            return s;
    }
    r->last_frame = frame_no;
    r->last_tms = t_ms;
    r->have_frame = 1;
    return rec__maybe_commit(r, err);
}

static tt_status rec__event_write(rec *r, long frame_no, long long t_ms, rec_event_kind kind, const char *family,
                                  int id, const double *from, const double *to, double z, tt_err *err);

tt_status rec_event(rec *r, long frame_no, long long t_ms, rec_event_kind kind, const char *family, int id,
                    const double *from, const double *to, tt_err *err)
{
    if ((unsigned)kind > REC_EV_REMOVED)
        return tt_err_set(err, TT_ERR_ARG, "rec_event: unknown event kind %d (a height: rec_event_height)", (int)kind);
    return rec__event_write(r, frame_no, t_ms, kind, family, id, from, to, NAN, err);
}

tt_status rec_event_height(rec *r, long frame_no, long long t_ms, const char *family, int id, const double *to,
                           double z_in, tt_err *err)
{
    if (!rec__coord_ok(z_in))
        return tt_err_set(err, TT_ERR_ARG, "rec_event_height: figure %d has a non-finite height", id);
    return rec__event_write(r, frame_no, t_ms, REC_EV_HEIGHT, family, id, NULL, to, z_in, err);
}

static tt_status rec__event_write(rec *r, long frame_no, long long t_ms, rec_event_kind kind, const char *family,
                                  int id, const double *from, const double *to, double z, tt_err *err)
{
    tt_status s = rec__ready(r, "rec_event", err);
    if (s != TT_OK)
        return s;
    for (int k = 0; k < 2; k++)
        if ((from && !rec__coord_ok(from[k])) || (to && !rec__coord_ok(to[k])))
            return tt_err_set(err, TT_ERR_ARG,
                              "rec_event: figure %d has a non-finite position or one beyond %g inches", id,
                              REC_MAX_COORD_IN);
    rec__slot *sl;
    if ((s = rec__begin(r, err)) != TT_OK || (s = rec__figure(r, family, id, &sl, err)) != TT_OK)
        return s;
    sqlite3_stmt *st = r->st_event;
    sqlite3_bind_int64(st, 1, r->session);
    sqlite3_bind_int64(st, 2, frame_no);
    sqlite3_bind_int64(st, 3, t_ms);
    sqlite3_bind_text(st, 4, rec__event_names[kind], -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, sl->row);
    for (int k = 0; k < 2; k++) {
        if (from)
            sqlite3_bind_double(st, 6 + k, from[k]);
        else
            sqlite3_bind_null(st, 6 + k);
        if (to)
            sqlite3_bind_double(st, 8 + k, to[k]);
        else
            sqlite3_bind_null(st, 8 + k);
    }
    if (isfinite(z))
        sqlite3_bind_double(st, 10, z);
    else
        sqlite3_bind_null(st, 10);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return rec__step_failed(r, "writing an event", err);
    return rec__maybe_commit(r, err);
}

/* One row of a table kept by time (session, frame or NULL, t_ms, two
 * texts: a query and its answer, a referee's event kind and its JSON),
 * committed as the writer commits.  `what` names the write in an error. */
static tt_status rec__insert_timed(rec *r, sqlite3_stmt *st, long frame_no, long long t_ms, const char *t4,
                                   const char *t5, const char *what, tt_err *err)
{
    sqlite3_bind_int64(st, 1, r->session);
    if (frame_no >= 0)
        sqlite3_bind_int64(st, 2, frame_no);
    else
        sqlite3_bind_null(st, 2);
    sqlite3_bind_int64(st, 3, t_ms);
    sqlite3_bind_text(st, 4, t4, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, t5, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc != SQLITE_DONE ? rec__step_failed(r, what, err) : rec__maybe_commit(r, err);
}

tt_status rec_query(rec *r, long frame_no, long long t_ms, const char *query_json, const char *answer_json,
                    tt_err *err)
{
    tt_status s = rec__ready(r, "rec_query", err);
    if (s != TT_OK)
        return s;
    if (!query_json || !answer_json)
        return tt_err_set(err, TT_ERR_ARG, "rec_query: query and answer are both needed");
    char *q = NULL, *a = NULL;
    if ((s = rec__compact(query_json, "query", &q, NULL, err)) != TT_OK ||
        (s = rec__compact(answer_json, "answer", &a, NULL, err)) != TT_OK || (s = rec__begin(r, err)) != TT_OK)
        goto done;
    s = rec__insert_timed(r, r->st_query, frame_no, t_ms, q, a, "writing a query", err);
done:
    free(q);
    free(a);
    return s;
}

int rec__referee_known(const char *kind)
{
    static const char *const kinds[] = {"phase", "move_check", "out_of_turn", "charge_check", "casualties", "morale"};
    for (size_t k = 0; kind && k < sizeof kinds / sizeof kinds[0]; k++)
        if (!strcmp(kind, kinds[k]))
            return 1;
    return 0;
}

tt_status rec_referee(rec *r, long frame_no, long long t_ms, const char *event_json, tt_err *err)
{
    tt_status s = rec__ready(r, "rec_referee", err);
    if (s != TT_OK)
        return s;
    if (!event_json)
        return tt_err_set(err, TT_ERR_ARG, "rec_referee: no event");
    char *text = NULL;
    json_t *ev = NULL;
    if ((s = rec__compact(event_json, "the referee's event", &text, &ev, err)) != TT_OK)
        return s;
    const char *kind = json_string_value(json_object_get(ev, "event"));
    if (!rec__referee_known(kind)) {
        s = tt_err_set(err, TT_ERR_FORMAT, "the referee's event needs \"event\": one of phase, move_check, "
                                           "out_of_turn, charge_check, casualties, morale");
        goto done;
    }
    if ((s = rec__begin(r, err)) != TT_OK)
        goto done;
    s = rec__insert_timed(r, r->st_referee, frame_no, t_ms, kind, text, "writing a referee's event", err);
done:
    json_decref(ev);
    free(text);
    return s;
}

tt_status rec_scenario(rec *r, long frame_no, long long t_ms, const char *scenario_json, tt_err *err)
{
    tt_status s = rec__ready(r, "rec_scenario", err);
    if (s != TT_OK)
        return s;
    if (!scenario_json)
        return tt_err_set(err, TT_ERR_ARG, "rec_scenario: no scenario");
    char *text = NULL;
    json_t *sc = NULL;
    sqlite3_stmt *st = NULL;
    if ((s = rec__compact(scenario_json, "scenario", &text, &sc, err)) != TT_OK ||
        (s = rec__scenario_names(r, sc, err)) != TT_OK || (s = rec__begin(r, err)) != TT_OK)
        goto done;
    if (sqlite3_prepare_v2(r->db, "INSERT INTO scenario_change (session, frame, t_ms, scenario_json) "
                                  "VALUES (?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK) {
        s = rec__step_failed(r, "writing a scenario change", err);
        goto done;
    }
    sqlite3_bind_int64(st, 1, r->session);
    if (frame_no >= 0)
        sqlite3_bind_int64(st, 2, frame_no);
    else
        sqlite3_bind_null(st, 2);
    sqlite3_bind_int64(st, 3, t_ms);
    sqlite3_bind_text(st, 4, text, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) {
        s = rec__step_failed(r, "writing a scenario change", err);
        goto done;
    }
    sqlite3_finalize(st);
    st = NULL;
    /* the figures already recorded take their (new) names and sides */
    if (sqlite3_prepare_v2(r->db, "UPDATE figure SET name = ?, side = ? WHERE session = ? AND tag = ?", -1, &st,
                           NULL) != SQLITE_OK) {
        s = rec__step_failed(r, "naming the figures", err);
        goto done;
    }
    const char *key;
    json_t *o;
    json_object_foreach(r->tagnames, key, o) {
        sqlite3_bind_text(st, 1, json_string_value(json_object_get(o, "name")), -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, json_string_value(json_object_get(o, "side")), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, r->session);
        sqlite3_bind_int64(st, 4, strtol(key, NULL, 10));
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE) {
            s = rec__step_failed(r, "naming the figures", err);
            goto done;
        }
    }
    s = rec__maybe_commit(r, err);
done:
    sqlite3_finalize(st);
    json_decref(sc);
    free(text);
    return s;
}

tt_status rec_close(rec *r, tt_err *err)
{
    if (!r)
        return TT_OK;
    tt_status s = TT_OK;
    if (r->db) {
        if (r->failed) /* no ended_utc: the session stays marked as truncated */
            s = tt_err_set(err, TT_ERR_IO, "%s", r->fail_msg);
        else
            s = rec__commit(r, err);
        if (s == TT_OK && r->session) {
            char utc[40], sql[160];
            rec__utc_string(rec__unix_ms(), utc, sizeof utc);
            snprintf(sql, sizeof sql, "UPDATE session SET ended_utc = '%s' WHERE id = %lld", utc, r->session);
            s = rec__exec(r->db, sql, r->path, err);
        }
        if (r->in_txn)
            sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
        rec__ckpt_stop(r->ckpt);
        r->ckpt = NULL;
        sqlite3_finalize(r->st_state);
        sqlite3_finalize(r->st_fig);
        sqlite3_finalize(r->st_event);
        sqlite3_finalize(r->st_query);
        sqlite3_finalize(r->st_progress);
        sqlite3_finalize(r->st_referee);
        if (sqlite3_close(r->db) != SQLITE_OK && s == TT_OK)
            s = tt_err_set(err, TT_ERR_IO, "%s: could not close the recording cleanly", r->path);
    }
    rec__figmap_free(&r->map);
    json_decref(r->tagnames);
    free(r->path);
    free(r);
    return s;
}
