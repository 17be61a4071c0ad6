/* rec_copy.h - a recording copied to another machine piece by piece (the
 * convention hall, hall/): the table reads its own recording as chunks
 * (rec_feed), the hall applies them to its copy (rec_copy), and the copy
 * ends up holding the same session row for row.
 *
 * A chunk is one JSON object (text), in the shapes of `replay --json`:
 *
 *   {"game": G,                 the session's identity: "STARTED_UTC#ID"
 *    "from": P, "to": P,        positions before and after this chunk
 *    "session": {"last_frame", "last_t_ms", "ended_utc"   always;
 *                "started_utc", "started_unix_ms", "source", "note",
 *                "rig", "scenario"                         when from is empty},
 *    "figures": [{"family","id","name","side"}],      new figures (all of the
 *                                                     session's after a scenario change)
 *    "frames":  [{"frame","t_ms","figures":[{"family","id","x","y","facing_deg","state","z_in"}]}],
 *    "events":  [{"frame","t_ms","event","family","id","from","to","z_in"}],
 *    "queries": [{"frame","t_ms","query","answer"}],
 *    "changes": [{"frame","t_ms","scenario"}],
 *    "referee": [{"frame","t_ms","event",...}]}   the referee's lines (schema 5)
 *
 * A position P = {"figure","state","event","query","change","referee"}: the
 * last row id of each table included (in the table's file), plus "frame"
 * (the session's last frame, -1 before one) and "ended" (0/1).  A position
 * without "referee" (from a build before schema 5) has none.  Numbers are
 * printed with 17 significant digits, so every position arrives exactly as
 * the table recorded it.
 *
 * A copy applies a chunk only when its "from" is where the copy is: a
 * chunk already applied is a duplicate, one further on is a gap (the copy
 * then says where it is, and the table sends again from there).  The copy
 * keeps its position in its meta table, in the same transaction as the
 * rows, so a copy killed at any moment restarts where its rows end.
 *
 * A game's session in the copy takes the table's own session id (the ID
 * of its name) when the copy has no session of that id: a recording's
 * sessions copied in any order end up in the table's order, with the
 * table's ids.  A game from another recording whose id is taken goes after
 * the others.
 *
 * Ownership: rec_feed and rec_copy are opaque, owned by the caller
 * (rec_feed_close / rec_copy_close accept NULL); strings returned are the
 * caller's (free()).
 */
#ifndef TT_REC_COPY_H
#define TT_REC_COPY_H

#include <stddef.h>

#include "rec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rec_pos {
    long long figure, state, event, query, change, referee; /* last row id included, 0: none */
    long long frame;                               /* the session's last frame, -1: none */
    int ended;                                     /* the session ended (cleanly or truncated, for good) */
} rec_pos;

/* The empty position (before anything). */
rec_pos rec_pos_empty(void);
/* Same rows (ignores frame and ended). */
int rec_pos_same_rows(const rec_pos *a, const rec_pos *b);
/* a holds everything b holds (rows, frame and ended). */
int rec_pos_covers(const rec_pos *a, const rec_pos *b);
/* As JSON text {"figure",...,"ended"} (caller frees), and back (TT_ERR_FORMAT). */
char *rec_pos_json(const rec_pos *p);
tt_status rec_pos_parse(const char *text, size_t len, rec_pos *p, tt_err *err);
/* Rows between a and b (b ahead of a): what is missing, for messages. */
long long rec_pos_rows_between(const rec_pos *a, const rec_pos *b);

/* ---- the table: reading its own recording as chunks ---- */

typedef struct rec_feed rec_feed;

/* Open session `session` (0 = the latest) of the recording at path for
 * reading, while it may still be written. */
tt_status rec_feed_open(const char *path, long long session, rec_feed **out, tt_err *err);
void rec_feed_close(rec_feed *f);

/* A session of a recording: its id and its game ("STARTED_UTC#ID"). */
typedef struct rec_feed_session {
    long long id;
    char game[96];
} rec_feed_session;

/* Every session of the recording at path, oldest first (*out is the
 * caller's, free(); NULL when *n is 0). */
tt_status rec_feed_sessions(const char *path, rec_feed_session **out, size_t *n, tt_err *err);

/* The session's identity ("STARTED_UTC#ID") and its first moment (ms). */
const char *rec_feed_game(const rec_feed *f);
long long rec_feed_t0(const rec_feed *f);
/* The session it reads (its id in the recording). */
long long rec_feed_session_id(const rec_feed *f);

/* The next chunk after `from`: at most max_rows rows of each kind, and
 * only rows up to the recording's time until_ms (REC_TIME_UNSET: all that
 * is saved).  *chunk is NULL when there is nothing new (no row, the same
 * frame, not newly ended).  *to is where the chunk ends. */
tt_status rec_feed_next(rec_feed *f, const rec_pos *from, long long until_ms, size_t max_rows, char **chunk,
                        rec_pos *to, tt_err *err);

/* ---- the hall: applying chunks to a copy ---- */

typedef struct rec_copy rec_copy;

typedef enum rec_copy_result {
    REC_COPY_APPLIED = 0, /* the copy moved on */
    REC_COPY_DUPLICATE,   /* already held: nothing done */
    REC_COPY_GAP          /* starts beyond the copy: send again from rec_copy_have */
} rec_copy_result;

/* Open (or create) the copy at path: a recording `replay` reads, holding
 * one session per game copied into it. */
tt_status rec_copy_open(const char *path, rec_copy **out, tt_err *err);
void rec_copy_close(rec_copy *c);

/* Apply one chunk (JSON text of len bytes); *game (caller frees, may be
 * NULL) names the chunk's game.  A malformed chunk is TT_ERR_FORMAT and
 * changes nothing. */
tt_status rec_copy_apply(rec_copy *c, const char *chunk, size_t len, rec_copy_result *res, char **game,
                         tt_err *err);

/* The copy's session of `game` (0: none yet, or the copy is unreadable). */
long long rec_copy_session(rec_copy *c, const char *game);

/* How far the copy of `game` goes (the empty position for a game it has
 * not seen). */
tt_status rec_copy_have(rec_copy *c, const char *game, rec_pos *have, tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
