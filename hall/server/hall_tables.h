/* hall_tables.h - private to hall/server/: what the hall knows of every
 * table (its games as far as the hall's copies go, its last live state and
 * answer, the tables it refused), for the MQTT side (hall_server.c) to
 * fill and the web server (hall_http.c) to read.  It calls neither.
 *
 * Ownership: hall__tables_create/destroy pair (destroy accepts NULL);
 * a hall__tab belongs to its hall__tables and lives as long as it;
 * strings returned are the caller's (free()). */
#ifndef TT_HALL_TABLES_H
#define TT_HALL_TABLES_H

#include <stddef.h>

#include "hall_conn.h"

typedef struct hall__tables hall__tables;
typedef struct hall__tab hall__tab;

/* NULL when out of memory.  dir: the folder of the copies (DIR/NAME.sqlite). */
hall__tables *hall__tables_create(const char *dir);
void hall__tables_destroy(hall__tables *T);

/* The table of that name, made when new (any thread).  NULL when the name
 * is no table name, or when the hall already keeps HALL_MAX_TABLES tables:
 * the table is then refused (the first time, the hall's log says so, and
 * its answer on tabletrack/NAME/hall is due: hall__tables_tell). */
hall__tab *hall__tables_get(hall__tables *T, const char *name);

/* Messages of a table (the network thread; rec: the writer thread). */
void hall__tables_rec(hall__tables *T, hall__tab *t, const void *payload, size_t len);
void hall__tables_state(hall__tables *T, hall__tab *t, const void *payload, size_t len, int retained);
void hall__tables_status(hall__tables *T, hall__tab *t, const void *payload, size_t len, int retained);
void hall__tables_answer(hall__tables *T, hall__tab *t, const void *payload, size_t len);

/* A message of table t over HALL_MESSAGE_MAX bytes, dropped unread: said
 * in the log (once a table and topic). */
void hall__tables_too_big(hall__tables *T, hall__tab *t, const char *sub, size_t len);

/* After every (re)connection: every answer is due again. */
void hall__tables_reconnected(hall__tables *T);

/* Whether the broker has granted the hall's subscriptions (the tables'
 * messages published from now on reach it): shown in /api/hall. */
void hall__tables_subscribed(hall__tables *T, int subscribed);

/* Publish the hall's answers that are due on c: per game of each table
 * (tabletrack/NAME/hall/GAME, and tabletrack/NAME/hall for its newest),
 * and to each refused table its refusal (tabletrack/NAME/hall). */
void hall__tables_tell(hall__tables *T, hall__conn *c, double now_ms);

/* ---- for the web server ---- */

/* DIR/NAME.sqlite, the hall's copy of a table's game. */
char *hall__copy_path(hall__tables *T, const char *name);
/* How far the hall's copy of a table's game goes: {"game","frame","ended"};
 * NULL when it holds none. */
char *hall__copy_json(hall__tables *T, const char *name);
/* GET /api/tables. */
char *hall__tables_json(hall__tables *T);
/* GET /api/refused: {"max_tables","refused":[{"table","reason","last_seen_s"}],
 * "more"} (the tables the hall refused, newest last; "more": how many
 * besides those listed). */
char *hall__refused_json(hall__tables *T);
/* The last "state" or "answer" a table published, as it came; NULL when
 * there is none. */
char *hall__table_text(hall__tables *T, const char *name, const char *what);
/* {"tables","chunks","gaps","states","refused","bad_chunks","dropped",
 * "subscribed","latency_ms_p50","latency_ms_p95"}: for the load benchmark,
 * and for tests to wait until the hall listens on the broker. */
char *hall__stats_json(hall__tables *T);

#endif
