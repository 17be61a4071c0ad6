/* rec_internal.h - private to record/: the database layer shared by the
 * writer and the reader, the figure map of the writer, and the in-memory
 * game the replays are made from. */
#ifndef TT_REC_INTERNAL_H
#define TT_REC_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>
#include <jansson.h>

#include "rec.h"

/* ---- rec_db.c: opening, checking and creating the file ----------------- */

typedef enum rec__open_kind { REC__READ, REC__WRITE_APPEND, REC__WRITE_NEW } rec__open_kind;

/* Open path as a recording.  READ: must exist, never written, integrity
 * checked.  WRITE_*: created with the schema when new (or empty); WAL mode.
 * Nothing is written to a file that fails the checks. */
tt_status rec__db_open(const char *path, rec__open_kind kind, sqlite3 **out, tt_err *err);

/* err from the last SQLite error on db, as "<what>: <sqlite message>". */
tt_status rec__db_err(sqlite3 *db, tt_err *err, const char *path, const char *what);

/* Run SQL without results. */
/* Whether the database has a table of that name. */
int rec__has_table(sqlite3 *db, const char *name);
tt_status rec__exec(sqlite3 *db, const char *sql, const char *path, tt_err *err);

/* Milliseconds on the monotonic clock, and since the Unix epoch. */
double rec__mono_ms(void);
long long rec__unix_ms(void);
/* ISO 8601 UTC, e.g. "2026-11-20T23:00:01.123Z", into buf (>= 32 bytes). */
void rec__utc_string(long long unix_ms, char *buf, size_t n);

/* ---- rec_writer.c: the referee's event kinds (rec_referee) ------------ */

/* 1 if kind is one of the referee's events a recording holds. */
int rec__referee_known(const char *kind);

/* ---- rec_figmap.c: (family, tag id) -> slot, for change detection ----- */

typedef struct rec__slot {
    char family[32];
    int id;
    long long row;        /* figure.id in the database */
    double x, y, facing, z; /* last written */
    double e[3];          /* last written err95_in, z_err95_in, facing_err95_deg (0: none) */
    int state;            /* last written rec_state */
    unsigned gen;         /* frame generation it was last seen in */
    int used;
} rec__slot;

typedef struct rec__figmap {
    rec__slot *slots;
    size_t cap, count;    /* cap is a power of two */
} rec__figmap;

/* The slot for (family, id), or NULL. */
rec__slot *rec__figmap_find(rec__figmap *m, const char *family, int id);
/* Add a new slot (must not exist); NULL when out of memory. */
rec__slot *rec__figmap_add(rec__figmap *m, const char *family, int id);
void rec__figmap_free(rec__figmap *m);

/* ---- rec_game.c: one session in memory --------------------------------- */

typedef struct rec__fig {
    char family[32];
    int tag;
    char *name;      /* scenario figure id, or NULL */
    int side;        /* index into sides, -1 when unknown */
    double radius;   /* base radius in inches (for drawing) */
    double sc_x, sc_y, sc_facing; /* scenario position, if has_sc */
    int has_sc;
} rec__fig;

typedef struct rec__state {
    int fig;
    int state;
    long frame;
    long long t_ms;
    double x, y, facing, z;
    double e[3]; /* err95_in, z_err95_in, facing_err95_deg; 0: not recorded */
} rec__state;

typedef struct rec__event {
    long frame;
    long long t_ms;
    int kind;        /* rec_event_kind */
    int fig;
    int has_from, has_to;
    double from[2], to[2];
    double z;        /* REC_EV_HEIGHT: the height it stands at */
} rec__event;

typedef struct rec__query {
    long frame;
    long long t_ms;
    char *query, *answer;   /* compact JSON texts */
    json_t *overlay;        /* its look: table_look_json's primitives (rec_look.c), owned */
    char *note;             /* why it is not drawn (rec_look.c), owned; NULL when drawn */
} rec__query;

/* One of the referee's events (schema 5), as 'track --events' wrote it. */
typedef struct rec__ref {
    long frame;             /* -1: before any frame */
    long long t_ms;
    json_t *ev;             /* the event object, owned */
    json_t *look;           /* what it drew on the felt when it came (rec_look.c: a check's path and words, a call's
                             * words), table_look's primitives, owned; NULL: nothing */
    json_t *corner;         /* a phase event: where the game stood, in the far right corner (the video's; the page
                             * says it beside its clock), owned */
    int batch_end;          /* the last event of a batch (one frame's): the felt after it is kept, phase_at */
    int *kept, nkept;       /* with batch_end: the events whose looks the felt showed after it (indices into refs),
                             * owned */
    long phase_at;          /* with batch_end: the phase event in force (an index into refs), or -1 */
} rec__ref;

typedef struct rec__terrain {
    char *id, *kind;
    double *pts;     /* x0 y0 x1 y1 ... */
    size_t n;
    int closed;      /* 1: "polygon" (an area), 0: "line" (a wall, hedge) */
} rec__terrain;

/* The scenario as changed mid-game (rec_scenario), with its terrain. */
typedef struct rec__scene_change {
    long frame;               /* -1: before any frame */
    long long t_ms;
    char *scenario_json;      /* as stored */
    rec__terrain *terrain;
    size_t nterrain;
} rec__scene_change;

typedef struct rec__side {
    char *name;
    char colour[8];  /* "#rrggbb" */
} rec__side;

struct rec_game {
    long long session;
    char started_utc[40], ended_utc[40];
    int ended_cleanly;
    long long last_frame;   /* the session's last saved frame, -1 if none */
    char *source;
    char *rig_json, *scenario_json;   /* as stored, may be NULL */
    json_t *scenario;                 /* parsed, may be NULL */
    double table_w, table_d;

    rec__fig *figs;
    size_t nfigs;
    rec__state *states;   /* in time order (then figure) */
    size_t nstates;
    rec__event *events;
    size_t nevents;
    rec__query *queries;
    size_t nqueries;
    rec__terrain *terrain;            /* the session's scenario's */
    size_t nterrain;
    rec__scene_change *changes;       /* in time order, up to t1 (also before t0) */
    size_t nchanges;
    rec__side *sides;
    size_t nsides;
    rec__ref *refs;                   /* the referee's events, in time order (up to t1) */
    size_t nrefs;

    long long t0, t1;           /* replay range */
    long long rec_t0, rec_t1;   /* whole recording */
};

/* Index of the last state of figure `fig` at or before t (per-figure index
 * built at load), or -1. */
long rec__game_state_at(const rec_game *g, int fig, long long t);

/* Per-figure list of indices into states, ascending in time. */
const long *rec__game_fig_states(const rec_game *g, int fig, size_t *n);

/* The terrain in force at time t (the session's scenario's, or that of
 * the last change at or before t). */
const rec__terrain *rec__game_terrain_at(const rec_game *g, long long t, size_t *n);

/* Colour for a terrain kind ("#rrggbb"). */
const char *rec__terrain_colour(const char *kind);

/* ---- rec_log.c: the referee's events read, and told turn by turn ------ */

/* The session's referee events up to t1 into g->refs (none before schema 5). */
tt_status rec__load_referee(rec_game *g, sqlite3 *db, const char *path, tt_err *err);
void rec__refs_free(rec__ref *refs, size_t n);
/* {"phases":[...],"log":[...]} (rec.h, rec_game_referee_log) of the events
 * refs[0..n) with the scenario sc (the figures' sides and units); NULL
 * when out of memory. */
json_t *rec__referee_story(const rec__ref *refs, size_t n, const json_t *sc);

/* ---- rec_look.c: each recorded answer's look -------------------------- */

/* Every query's overlay: the primitives table_look_json gives for its
 * question asked again (docs/api.md, "What an answer looks like"), or an
 * empty array and a note saying why it cannot be drawn; and what the felt
 * showed of the referee after each batch of its events (table_look_kept:
 * each event's look when it came, rec__ref.look; the events kept after
 * each batch, rec__ref.kept; where the game stood, rec__ref.corner).  TT_ERR_NOMEM only. */
tt_status rec__look_build(rec_game *g, tt_err *err);

/* What the felt showed of the referee at t: the last batch's end at or
 * before t (its kept and phase_at), or NULL (none yet). */
const rec__ref *rec__felt_at(const rec_game *g, long long t);

/* How long an answer stays on screen after it was asked. */
#define REC_OVERLAY_MS 5000

/* ---- rec_feed.c: positions as JSON (rec_copy.h), shared with rec_copy.c */

struct rec_pos;
json_t *rec__pos_to_json(const struct rec_pos *p);
tt_status rec__pos_from_json(const json_t *j, struct rec_pos *p, tt_err *err);

/* ---- rec_outfile.c: atomic output files --------------------------------- */

typedef struct rec__outfile {
    FILE *f;
    char *path, *tmp;
} rec__outfile;

tt_status rec__outfile_open(rec__outfile *o, const char *path, tt_err *err);
/* Close and rename into place; on any earlier write error, remove. */
tt_status rec__outfile_commit(rec__outfile *o, tt_err *err);
void rec__outfile_abort(rec__outfile *o);

#endif
