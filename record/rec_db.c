/* rec_db.c - opening a recording: checks on the raw file (not SQLite,
 * truncated), then on its contents (application id, schema version,
 * tables), and the schema of a new file.  Nothing is written to a file
 * that fails a check. */
#include "rec_internal.h"
#include "tt_clock.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The schema, version 5 (version 1 had no scenario_change, 2 no z_in:
 * NULL in rows older than it, read as 0, on the felt; 3 no err95_in,
 * z_err95_in, facing_err95_deg: NULL, not known; 4 no referee table: no
 * phases, checks or calls).  Documented in docs/api.md ("Recordings:
 * the SQLite schema"); keep the two in step and bump REC_SCHEMA_VERSION on any
 * change that older readers would misread. */
#define REC__SCENARIO_CHANGE_SQL                                                                                 \
    "CREATE TABLE IF NOT EXISTS scenario_change (\n"                                                               \
    "  id INTEGER PRIMARY KEY,\n"                                                                                  \
    "  session INTEGER NOT NULL REFERENCES session(id),\n"                                                         \
    "  frame INTEGER,\n"                                                                                           \
    "  t_ms INTEGER NOT NULL,\n"                                                                                   \
    "  scenario_json TEXT NOT NULL\n"                                                                              \
    ");\n"

/* The referee's events (issue 30): each line as 'track --events' writes it
 * (event_json), its kind (event) and the frame it was written at. */
#define REC__REFEREE_SQL                                                                                         \
    "CREATE TABLE IF NOT EXISTS referee (\n"                                                                       \
    "  id INTEGER PRIMARY KEY,\n"                                                                                  \
    "  session INTEGER NOT NULL REFERENCES session(id),\n"                                                         \
    "  frame INTEGER,\n"                                                                                           \
    "  t_ms INTEGER NOT NULL,\n"                                                                                   \
    "  event TEXT NOT NULL,\n"                                                                                     \
    "  event_json TEXT NOT NULL\n"                                                                                 \
    ");\n"

static const char rec__schema_sql[] =
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE session (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  started_utc TEXT NOT NULL,\n"
    "  started_unix_ms INTEGER NOT NULL,\n"
    "  source TEXT,\n"
    "  note TEXT,\n"
    "  rig_json TEXT,\n"
    "  scenario_json TEXT,\n"
    "  last_frame INTEGER,\n"
    "  last_t_ms INTEGER,\n"
    "  ended_utc TEXT\n"
    ");\n"
    "CREATE TABLE figure (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  session INTEGER NOT NULL REFERENCES session(id),\n"
    "  family TEXT NOT NULL,\n"
    "  tag INTEGER NOT NULL,\n"
    "  name TEXT,\n"
    "  side TEXT,\n"
    "  UNIQUE (session, family, tag)\n"
    ");\n"
    "CREATE TABLE state (\n"
    "  figure INTEGER NOT NULL REFERENCES figure(id),\n"
    "  frame INTEGER NOT NULL,\n"
    "  t_ms INTEGER NOT NULL,\n"
    "  x REAL NOT NULL,\n"
    "  y REAL NOT NULL,\n"
    "  facing_deg REAL NOT NULL,\n"
    "  state TEXT NOT NULL,\n"
    "  z_in REAL,\n"
    "  err95_in REAL, z_err95_in REAL, facing_err95_deg REAL\n"
    ");\n"
    "CREATE INDEX state_by_figure ON state (figure, t_ms);\n"
    "CREATE TABLE event (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  session INTEGER NOT NULL REFERENCES session(id),\n"
    "  frame INTEGER NOT NULL,\n"
    "  t_ms INTEGER NOT NULL,\n"
    "  kind TEXT NOT NULL,\n"
    "  figure INTEGER NOT NULL REFERENCES figure(id),\n"
    "  from_x REAL, from_y REAL, to_x REAL, to_y REAL,\n"
    "  z_in REAL\n"
    ");\n"
    "CREATE TABLE query (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  session INTEGER NOT NULL REFERENCES session(id),\n"
    "  frame INTEGER,\n"
    "  t_ms INTEGER NOT NULL,\n"
    "  query_json TEXT NOT NULL,\n"
    "  answer_json TEXT NOT NULL\n"
    ");\n"
    REC__SCENARIO_CHANGE_SQL REC__REFEREE_SQL;

static const char *const rec__tables[] = {"meta", "session", "figure", "state", "event", "query"};

double rec__mono_ms(void)
{
    return tt_mono_ms();
}

long long rec__unix_ms(void)
{
    return tt_unix_ms();
}

void rec__utc_string(long long unix_ms, char *buf, size_t n)
{
    time_t s = (time_t)(unix_ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    char tmp[32];
    strftime(tmp, sizeof tmp, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, n, "%s.%03dZ", tmp, (int)(unix_ms % 1000));
}

tt_status rec__db_err(sqlite3 *db, tt_err *err, const char *path, const char *what)
{
    int rc = db ? sqlite3_errcode(db) : SQLITE_ERROR;
    const char *m = db ? sqlite3_errmsg(db) : "unknown error";
    if (rc == SQLITE_FULL)
        return tt_err_set(err, TT_ERR_IO, "%s: %s: the disk is full (free some space)", path, what);
    if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
        return tt_err_set(err, TT_ERR_FORMAT, "%s is damaged (truncated or corrupt): %s: %s", path, what, m);
    if (rc == SQLITE_NOMEM)
        return tt_err_set(err, TT_ERR_NOMEM, "%s: %s: out of memory", path, what);
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
        return tt_err_set(err, TT_ERR_IO, "%s: %s: the file is locked by another program (is another tabletrack "
                          "recording into it?)", path, what);
    return tt_err_set(err, TT_ERR_IO, "%s: %s: %s", path, what, m);
}

tt_status rec__exec(sqlite3 *db, const char *sql, const char *path, tt_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        sqlite3_free(msg);
        return rec__db_err(db, err, path, "writing");
    }
    return TT_OK;
}

static uint32_t rec__be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static const char rec__magic[16] = "SQLite format 3";  /* with its NUL: 16 bytes */

/* Checks on the bytes of the file before SQLite sees it.  *exists and
 * *empty describe what was found. */
static tt_status rec__check_raw(const char *path, rec__open_kind kind, int *exists, int *empty, tt_err *err)
{
    struct stat sb;
    *exists = 0;
    *empty = 0;
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT && kind != REC__READ)
            return TT_OK;
        return tt_err_set(err, TT_ERR_IO, "cannot open recording %s: %s (check the path)", path, strerror(errno));
    }
    *exists = 1;
    if (S_ISDIR(sb.st_mode))
        return tt_err_set(err, TT_ERR_IO, "%s is a folder, not a recording (give a file name such as game.sqlite)",
                          path);
    if (kind == REC__WRITE_NEW)
        return tt_err_set(err, TT_ERR_IO,
                          "refusing to overwrite %s: it already exists (choose a new file name, or append a new "
                          "session to it)", path);

    /* A crashed recording keeps recent pages in PATH-wal; SQLite merges
     * them on open, so the main file alone may look short. */
    size_t pl = strlen(path);
    char *wal = malloc(pl + 5);
    if (!wal)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    snprintf(wal, pl + 5, "%s-wal", path);
    struct stat wb;
    int has_wal = stat(wal, &wb) == 0 && wb.st_size > 0;
    free(wal);

    if (sb.st_size == 0) {
        if (has_wal)
            return TT_OK;
        *empty = 1;
        if (kind == REC__READ)
            return tt_err_set(err, TT_ERR_FORMAT, "%s is empty: not a tabletrack recording", path);
        return TT_OK;
    }
    unsigned char h[100];
    FILE *f = fopen(path, "rb");
    if (!f)
        return tt_err_set(err, TT_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    size_t got = fread(h, 1, sizeof h, f);
    fclose(f);
    size_t cmp = got < sizeof rec__magic ? got : sizeof rec__magic;
    if (memcmp(h, rec__magic, cmp) != 0)
        return tt_err_set(err, TT_ERR_FORMAT, "%s is not a tabletrack recording (not an SQLite database)", path);
    if (got < sizeof h)
        return tt_err_set(err, TT_ERR_FORMAT, "%s is truncated (%zu bytes; a recording is at least 512): was the "
                          "copy interrupted?", path, got);
    long page = (long)h[16] << 8 | h[17];
    if (page == 1)
        page = 65536;
    if (page < 512 || (page & (page - 1)) != 0)
        return tt_err_set(err, TT_ERR_FORMAT, "%s is damaged: invalid page size %ld in its header", path, page);
    if (has_wal)
        return TT_OK;
    uint32_t npages = rec__be32(h + 28);
    int size_valid = npages != 0 && rec__be32(h + 24) == rec__be32(h + 92);
    long long want = (long long)npages * page;
    if ((sb.st_size % page) != 0 || (size_valid && want > (long long)sb.st_size))
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s is truncated: it holds %lld bytes, its header says %lld (was the copy "
                          "interrupted? copy it again from the recording machine)",
                          path, (long long)sb.st_size, size_valid ? want : (long long)sb.st_size);
    return TT_OK;
}

static tt_status rec__pragma_int(sqlite3 *db, const char *sql, long long *v, const char *path, tt_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
        tt_status s = rec__db_err(db, err, path, "reading");
        sqlite3_finalize(st);
        return s;
    }
    *v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return TT_OK;
}

/* 1 if table has column col (both trusted names). */
static int rec__has_column(sqlite3 *db, const char *table, const char *col)
{
    char sql[128];
    sqlite3_stmt *st = NULL;
    snprintf(sql, sizeof sql, "SELECT %s FROM %s LIMIT 0", col, table);
    int ok = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;
    sqlite3_finalize(st);
    return ok;
}

int rec__has_table(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st = NULL;
    int has = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        has = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return has;
}

/* Which of our tables exist, and how many tables there are at all. */
static tt_status rec__count_tables(sqlite3 *db, int *ours, int *all, const char *path, tt_err *err)
{
    sqlite3_stmt *st = NULL;
    *ours = *all = 0;
    if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &st, NULL) != SQLITE_OK)
        return rec__db_err(db, err, path, "reading");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *n = (const char *)sqlite3_column_text(st, 0);
        (*all)++;
        for (size_t i = 0; n && i < sizeof rec__tables / sizeof rec__tables[0]; i++)
            if (!strcmp(n, rec__tables[i]))
                (*ours)++;
    }
    if (rc != SQLITE_DONE) {
        tt_status s = rec__db_err(db, err, path, "reading");
        sqlite3_finalize(st);
        return s;
    }
    sqlite3_finalize(st);
    return TT_OK;
}

static tt_status rec__quick_check(sqlite3 *db, const char *path, tt_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK)
        return rec__db_err(db, err, path, "checking");
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        tt_status s = rec__db_err(db, err, path, "checking");
        sqlite3_finalize(st);
        return s;
    }
    const char *r = (const char *)sqlite3_column_text(st, 0);
    tt_status s = TT_OK;
    if (!r || strcmp(r, "ok") != 0)
        s = tt_err_set(err, TT_ERR_FORMAT, "%s is damaged (truncated or corrupt): %s", path, r ? r : "?");
    sqlite3_finalize(st);
    return s;
}

static tt_status rec__create_schema(sqlite3 *db, const char *path, tt_err *err)
{
    char sql[sizeof rec__schema_sql + 512];
    char now[40];
    rec__utc_string(rec__unix_ms(), now, sizeof now);
    snprintf(sql, sizeof sql,
             "BEGIN;\n"
             "PRAGMA application_id = %d;\n"
             "PRAGMA user_version = %d;\n"
             "%s"
             "INSERT INTO meta VALUES ('schema_version', '%d');\n"
             "INSERT INTO meta VALUES ('created_by', 'tabletrack');\n"
             "INSERT INTO meta VALUES ('created_utc', '%s');\n"
             "COMMIT;\n",
             REC_APPLICATION_ID, REC_SCHEMA_VERSION, rec__schema_sql, REC_SCHEMA_VERSION, now);
    tt_status s = rec__exec(db, sql, path, err);
    if (s != TT_OK)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return s;
}

/* "file:PATH?mode=ro" (plus "&immutable=1" when PATH has no -wal file),
 * every byte of PATH outside [A-Za-z0-9/._~-] percent-encoded.  Owned by
 * the caller (free). */
static char *rec__ro_uri(const char *path)
{
    size_t n = strlen(path);
    char *wal = malloc(n + 5), *uri = malloc(3 * n + 40);
    if (!wal || !uri) {
        free(wal);
        free(uri);
        return NULL;
    }
    snprintf(wal, n + 5, "%s-wal", path);
    struct stat sb;
    int immutable = stat(wal, &sb) != 0;
    free(wal);
    char *o = uri + sprintf(uri, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (isalnum(*p) || strchr("/._~-", *p))
            *o++ = (char)*p;
        else
            o += sprintf(o, "%%%02X", *p);
    }
    sprintf(o, "?mode=ro%s", immutable ? "&immutable=1" : "");
    return uri;
}

tt_status rec__db_open(const char *path, rec__open_kind kind, sqlite3 **out, tt_err *err)
{
    sqlite3 *db = NULL;
    int exists = 0, empty = 0;
    *out = NULL;
    if (!path || !*path)
        return tt_err_set(err, TT_ERR_ARG, "no recording file given");
    tt_status s = rec__check_raw(path, kind, &exists, &empty, err);
    if (s != TT_OK)
        return s;

    /* Readers never write: they open read-only, so a recording on a USB
     * stick or a shared folder replays and is never changed.  Without a
     * -wal file (a recording closed cleanly, or copied without it) it is
     * opened immutable, which needs no -shm file beside it either. */
    int rc;
    if (kind == REC__READ) {
        char *uri = rec__ro_uri(path);
        if (!uri)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
        free(uri);
    } else {
        rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    }
    if (rc != SQLITE_OK) {
        s = tt_err_set(err, TT_ERR_IO, "cannot open recording %s: %s%s", path, db ? sqlite3_errmsg(db) : "out of memory",
                       kind == REC__READ ? " (its -wal file is there but no -shm file can be made beside it: copy "
                                           "the recording to a writable folder)"
                                         : "");
        goto fail;
    }
    sqlite3_busy_timeout(db, 2000);
    sqlite3_extended_result_codes(db, 0);

    long long app = 0, ver = 0;
    s = rec__pragma_int(db, "PRAGMA application_id", &app, path, err);
    if (s == TT_OK)
        s = rec__pragma_int(db, "PRAGMA user_version", &ver, path, err);
    if (s != TT_OK) {
        if (sqlite3_errcode(db) == SQLITE_NOTADB)
            s = tt_err_set(err, TT_ERR_FORMAT, "%s is not a tabletrack recording (not an SQLite database)", path);
        goto fail;
    }
    int ours = 0, all = 0;
    s = rec__count_tables(db, &ours, &all, path, err);
    if (s != TT_OK)
        goto fail;

    int fresh = 0;
    if (app == 0 && all == 0) {
        if (kind == REC__READ) {
            s = tt_err_set(err, TT_ERR_FORMAT, "%s holds no recording (an empty SQLite database)", path);
            goto fail;
        }
        fresh = 1;
    } else if (app != REC_APPLICATION_ID) {
        s = tt_err_set(err, TT_ERR_FORMAT,
                       "%s is not a tabletrack recording (an SQLite database of another program; application id "
                       "0x%08llx)", path, (unsigned long long)app);
        goto fail;
    } else if (ver > REC_SCHEMA_VERSION) {
        s = tt_err_set(err, TT_ERR_FORMAT,
                       "%s was written by a newer tabletrack (recording schema version %lld; this build reads up to "
                       "%d): update tabletrack to replay it", path, ver, REC_SCHEMA_VERSION);
        goto fail;
    } else if (ver < 1 || ours != (int)(sizeof rec__tables / sizeof rec__tables[0]) ||
               (ver >= 2 && !rec__has_table(db, "scenario_change")) || (ver >= 5 && !rec__has_table(db, "referee"))) {
        s = tt_err_set(err, TT_ERR_FORMAT,
                       "%s is damaged: a tabletrack recording with schema version %lld but %d of its %d tables",
                       path, ver,
                       ours + (ver >= 2 && rec__has_table(db, "scenario_change")) +
                           (ver >= 5 && rec__has_table(db, "referee")),
                       (int)(sizeof rec__tables / sizeof rec__tables[0]) + (ver >= 2) + (ver >= 5));
        goto fail;
    }

    if (kind == REC__READ) {
        s = rec__quick_check(db, path, err);
        if (s != TT_OK)
            goto fail;
    } else {
        (void)empty;
        (void)exists;
        sqlite3_stmt *st = NULL;
        const char *mode = NULL;
        if (sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            mode = (const char *)sqlite3_column_text(st, 0);
        int wal = mode && !strcmp(mode, "wal");
        sqlite3_finalize(st);
        if (!wal) {
            s = tt_err_set(err, TT_ERR_IO, "%s: cannot switch to WAL journaling (%s); is the folder on a network "
                           "share? record to a local disk", path, sqlite3_errmsg(db));
            goto fail;
        }
        s = rec__exec(db, "PRAGMA synchronous = NORMAL", path, err);
        if (s == TT_OK && fresh)
            s = rec__create_schema(db, path, err);
        else if (s == TT_OK && ver < REC_SCHEMA_VERSION) /* an older file goes on as this version */
            s = rec__exec(db, "BEGIN;\n" REC__SCENARIO_CHANGE_SQL REC__REFEREE_SQL, path, err);
        if (s == TT_OK && !fresh && ver < REC_SCHEMA_VERSION) {
            if (!rec__has_column(db, "state", "z_in"))
                s = rec__exec(db, "ALTER TABLE state ADD COLUMN z_in REAL", path, err);
            if (s == TT_OK && !rec__has_column(db, "event", "z_in"))
                s = rec__exec(db, "ALTER TABLE event ADD COLUMN z_in REAL", path, err);
            static const char *const errs[] = {"err95_in", "z_err95_in", "facing_err95_deg"};
            for (int k = 0; k < 3 && s == TT_OK; k++)
                if (!rec__has_column(db, "state", errs[k])) {
                    char sql[96];
                    snprintf(sql, sizeof sql, "ALTER TABLE state ADD COLUMN %s REAL", errs[k]);
                    s = rec__exec(db, sql, path, err);
                }
            char sql[160];
            snprintf(sql, sizeof sql, "PRAGMA user_version = %d;\nUPDATE meta SET value = '%d' WHERE key = "
                                      "'schema_version';\nCOMMIT;\n", REC_SCHEMA_VERSION, REC_SCHEMA_VERSION);
            if (s == TT_OK)
                s = rec__exec(db, sql, path, err);
            else
                sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        }
        if (s != TT_OK)
            goto fail;
    }
    *out = db;
    return TT_OK;
fail:
    sqlite3_close(db);
    return s;
}
