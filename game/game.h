/* game.h - the live game: one room for the loop that both the command line
 * ('tabletrack track') and the table server (http/) drive.
 *
 *   source -> capture thread -> vision tracker -> live table in inches
 *          -> scenario figures placed -> questions answered -> projector
 *          -> events / TUIO / recording / live feed for viewers
 *
 * A game is created from its options (everything is loaded and checked
 * then), run on one thread (game_run: the calling thread also owns the
 * projector window), and closed (game_close: the recording is ended).
 *
 * Servers talk to a running game through the thread-safe functions at the
 * end of this header: a snapshot of the state, the live feed, questions
 * asked and withdrawn, the table picture and a new scenario.  They take the
 * game's lock for a short time and never wait for a frame.
 *
 * Ownership: game_create allocates, game_destroy frees (accepts NULL).
 * Strings and buffers returned to a caller are the caller's (free()).
 */
#ifndef TT_GAME_H
#define TT_GAME_H

#include <signal.h>
#include <stddef.h>

#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GAME_MAX_PROJECTORS 8 /* overlay's OVERLAY_MAX_PROJECTORS */

typedef struct game_opts {
    const char *rig;            /* rig.json (required) */
    const char *source;         /* camera, video or image glob: the first of sources */
    const char *const *sources; /* one per camera of the rig, in its order (nsources of them); NULL, 0: the
                                   rig's cameras' own "source"s, or source alone */
    int nsources;
    const char *scenario;       /* may be NULL: figures only, no questions */
    /* projector.json files, nprojectors of them (0: nothing projected); each
     * draws what falls in its own picture, their light ramped where they
     * overlap (overlay_seam).  windows[k]: projector k's window, NULL none,
     * "" = $DISPLAY, else the display. */
    const char *projectors[GAME_MAX_PROJECTORS];
    const char *windows[GAME_MAX_PROJECTORS];
    int nprojectors;
    const char *overlay_dir;    /* write overlay_NNNNN.png per frame, or NULL */
    const char *events;         /* JSON Lines of figures and events: a path, "-" = stdout, or NULL */
    const char *tuio;           /* "HOST:PORT" or NULL */
    const char *record;         /* GAME.sqlite or NULL */
    const char *const *queries; /* NULL-terminated questions shown every frame, or NULL */
    const char *queries_file;   /* JSON Lines of questions with "frame" and optional "until" */
    const char *phases_file;    /* JSON Lines of phases with "frame" (game_referee.c), or NULL */
    const char *note;           /* recorded with the session (the command line); may be NULL */
    int preload;                /* decode the whole source first */
    int cite;                   /* each answer on the felt shows the rule it comes from */
    int max_frames;             /* stop after this many frames; < 0: no limit */
    int grace;                  /* frames hidden before lost */
    int threads;                /* tracker threads (1-8) */
    int serve;                  /* at the end of a file source, keep the last state until stopped */
    int feed;                   /* publish the state, events and answers for live viewers */
    int camera_timeout_s;       /* a camera lost this long ends the game cleanly (0: GAME_CAMERA_TIMEOUT_S) */
    const volatile sig_atomic_t *stop; /* set (by a signal handler) to end cleanly; may be NULL */
    /* --preload: told frames read and the total (0 if unknown); may be NULL */
    void (*progress)(void *user, long done, long total);
    void *progress_user;
    int status_every_ms;        /* > 0: a status line on stderr this often (fps, figures seen/occluded/lost) */
} game_opts;

#define GAME_CAMERA_TIMEOUT_S 60  /* how long a lost camera is waited for */
#define GAME_CAMERA_SILENT_MS 2000 /* a camera that sends nothing this long is lost */
#define GAME_CAMERA_FIRST_MS 10000 /* ... before its first frame */

typedef struct game game;

tt_status game_create(const game_opts *o, game **out, tt_err *err);

/* Run until the source ends (and, with serve, until stopped), max_frames,
 * or a stop.  A recorder error does not end the game: it is reported once on
 * stderr and the game goes on without recording; game_close then fails. */
tt_status game_run(game *g, tt_err *err);

/* End the recording (and flush the events).  Returns an error if anything
 * the game wrote failed at any point, so the caller can exit non-zero. */
tt_status game_close(game *g, tt_err *err);

void game_destroy(game *g);

typedef struct game_stats {
    int frames;
    double fps, latency_ms_p50, latency_ms_p95, tracked_ratio, full_frame_ms;
    int corrupt_frames;
    double wall_ms;    /* the game's frames, start to end */
    double referee_ms; /* of which in the referee (--phases, POST /api/phase): its checks and calls */
} game_stats;

void game_get_stats(game *g, game_stats *s);

/* ---- thread-safe: for the table server ---- */

/* Set where the game stands (POST /api/phase): text is {"next": true} or
 * {"phase": P, "side": S} with an optional "turn": T (the referee,
 * game_referee.c; docs/playing.md, "The referee").  *state_json (caller
 * frees): {"turn","phase","side"}.  Errors: TT_ERR_FORMAT malformed,
 * TT_ERR_UNKNOWN a phase or side the book or scenario does not know (naming
 * the choices), TT_ERR_ARG no scenario, Next before any phase, a turn
 * gone by. */
tt_status game_phase_post(game *g, const char *text, size_t len, char **state_json, tt_err *err);

/* Ask the game to end (as Ctrl-C would). */
void game_request_stop(game *g);

/* Text drawn on the felt (as a QR code of it, with the text below) until the
 * first question is asked; NULL removes it.  Copied. */
void game_set_banner(game *g, const char *url);

/* The state now: {"frame","t_ms","wall_ms" (Unix time in ms when it was
 * made: lets a viewer measure its delay),"ruleset","table":{"width_in","depth_in"},
 * "terrain":[...],"figures":[{"id","tag","side","unit","x","y","facing_deg",
 * "state"}],"shown":[{"qid","query","answer"}],"scenario_rev" (counts the
 * scenarios applied: a page fetches GET /api/scenario for the roster when it
 * changes),"unassigned":[tag...],"camera":"ok"|"lost"|"ended","phase" (where the
 * game stands, {"turn","phase","side"}, null until a phase is set),"picked":[id...]
 * (the figures picked on the pages, one per page: game_pick_set)}.  Caller frees. */
char *game_state_json(game *g);

/* The live feed: messages "state" (the object above), "event" (moved,
 * appeared, removed) and "answer" ({"qid","query","answer"} when a question
 * is asked or its answer changes).  *cursor starts at what
 * game_feed_attach returned.  Waits up to timeout_ms for a message.
 * Returns 1 with *msg (the caller's reference), 0 on timeout, -1 once the
 * game has ended.  A viewer too slow to keep up skips to the newest state.
 *
 * The state is built only while someone watches: a viewer calls
 * game_feed_attach before its first game_feed_next (the game then sends a
 * fresh state, with its next frame or within 50 ms; the viewer's feed
 * starts after the messages already sent) and game_feed_detach when it
 * leaves.  A state goes out for every
 * frame up to GAME_FEED_MAX_HZ frames a second; a faster source (a file read
 * with --preload) sends the newest frame's state every 1/GAME_FEED_MAX_HZ s,
 * and the last one as soon as frames pause. */
#define GAME_FEED_MAX_HZ 30 /* a USB webcam's rate; what a phone shows */
/* One message, shared by every viewer: read-only, handed back with
 * game_feed_release.  Its event's name ("state", "event" or "answer") and
 * its JSON (compact, one line, len bytes, NUL-terminated): the page's
 * Server-Sent Events (http/) and the hall's MQTT (hall/publish/) each
 * format it as they need. */
typedef struct game_feed_msg game_feed_msg;
const char *game_feed_msg_event(const game_feed_msg *m);
const char *game_feed_msg_json(const game_feed_msg *m, size_t *len);
void game_feed_release(game_feed_msg *m); /* NULL is fine */
unsigned long long game_feed_attach(game *g); /* the viewer's first cursor */
void game_feed_detach(game *g);
int game_feed_next(game *g, unsigned long long *cursor, int timeout_ms, game_feed_msg **msg);

/* Where ruleset profiles are looked for (TABLETRACK_DATA, then the source
 * tree): NULL-terminated, as table_scene_parse takes them. */
const char *const *game_data_dirs(void);

/* Ask a question (one rules query, JSON text of len bytes).  It is answered
 * against the tracked positions, drawn from the next frame (at once when
 * no frames arrive), recorded, and shown until withdrawn.  *qid,
 * *answer_json and *look_json (what it looks like: table_look's primitives
 * as a JSON array; caller frees both) receive it.  Errors: TT_ERR_FORMAT malformed
 * JSON (the message has line and column), TT_ERR_UNKNOWN unknown figure,
 * TT_ERR_ARG a question the scenario cannot answer. */
tt_status game_query_add(game *g, const char *text, size_t len, int *qid, char **answer_json, char **look_json,
                         tt_err *err);
/* A table keeps at most GAME_MAX_QUESTIONS questions asked this way at once
 * (past it TT_ERR_ARG naming the limit: withdraw some first), each at most
 * GAME_MAX_QUESTION_BYTES of JSON: the state a page polls stays small. */
#define GAME_MAX_QUESTIONS 64
#define GAME_MAX_QUESTION_BYTES 1024

/* Withdraw question qid (TT_ERR_UNKNOWN if none is shown), or all (qid 0). */
tt_status game_query_remove(game *g, int qid, tt_err *err);

/* The current camera frame rectified to the table seen from above, ppi
 * pixels per inch (1-40), as PNG bytes (caller frees *png). */
tt_status game_table_png(game *g, double ppi, unsigned char **png, size_t *len, tt_err *err);

/* The scenario now as JSON text ("{}" without one).  Caller frees. */
char *game_scenario_json(game *g);

/* The profile of the scenario's ruleset as JSON text (its weapons, charge,
 * movement...: what the page may offer to ask), "{}" without a scenario.
 * Caller frees. */
char *game_rules_json(game *g);

/* Replace the scenario (JSON text) after validating it as --scenario is.
 * Applied at once; with a --scenario file it is written there atomically,
 * the old one kept as FILE.bak. */
tt_status game_scenario_put(game *g, const char *text, size_t len, tt_err *err);

/* The figure a page has picked (its menu is open): text is {"id": ID}, one
 * of the scenario's figures (TT_ERR_UNKNOWN if not; TT_ERR_FORMAT if
 * malformed).  client names the page (up to 64 characters; "" is one page
 * like any other): one pick per page, a new one replaces it.  The state
 * lists the picks ("picked") and the projector rings those figures.  A pick
 * not renewed within GAME_PICK_TTL_MS is dropped (the page went away). */
#define GAME_PICK_TTL_MS 10000
tt_status game_pick_set(game *g, const char *client, const char *text, size_t len, tt_err *err);
/* The page's menu closed: its pick is dropped (nothing if it had none). */
void game_pick_clear(game *g, const char *client);

#ifdef __cplusplus
}
#endif
#endif
