/* rec.h - recording whole games into SQLite, and replaying them.
 *
 * Recording (the tracker calls these, one thread):
 *
 *     rec *r;
 *     rec_open("game.sqlite", REC_APPEND, &r, &err);
 *     rec_session_begin(r, rig_json, scenario_json, &meta, &err);
 *     for each frame:  rec_frame(r, frame_no, t_ms, figures, n, &err);
 *     when it happens: rec_event(...), rec_query(...)
 *     rec_close(r, &err);
 *
 * Only changes are stored: a figure's state row is written when it first
 * appears, moves more than pos_eps_in from its last *written* position,
 * turns more than facing_eps_deg, or changes state (seen / occluded / lost).
 * A figure missing from a frame's list is recorded once as `lost` at its
 * last position.
 *
 * Crash safety: WAL journal, synchronous=NORMAL, and the writer commits its
 * open transaction whenever commit_ms (default 250) has passed, by the wall
 * clock or by the frames' t_ms, so after kill -9 the file opens cleanly and
 * at most the last 0.5 s is missing.  The commit check runs inside the
 * rec_* calls: a tracker that stops calling them for a long time should
 * call rec_flush.
 *
 * The schema (tables session, figure, state, event, query, meta) is
 * documented in docs/api.md, "Recordings: the SQLite schema".
 *
 * Replay: rec_game_load reads one session into memory; rec_game_write_json
 * / _html / _video turn it into JSON Lines, a self-contained HTML page, or a
 * top-down video.
 *
 * Ownership: a rec and a rec_game are opaque and owned by the caller
 * (rec_close / rec_game_destroy, both accept NULL).  Strings passed in are
 * copied; the library keeps no pointer to caller memory after a call.
 */
#ifndef TT_REC_H
#define TT_REC_H

#include <stddef.h>
#include <stdio.h>

#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Schema written by this build; files with a higher version are refused. */
#define REC_SCHEMA_VERSION 5 /* 2 added scenario_change, 3 heights (z_in), 4 errors (err95_in...), 5 the referee's
                                 events; older files are read, and appended to as 5 */
/* PRAGMA application_id of every recording: 'TTRC'. */
#define REC_APPLICATION_ID 0x54545243

typedef struct rec rec;

typedef enum rec_mode {
    REC_APPEND = 0,  /* create the file, or add a new session to an existing recording */
    REC_CREATE_NEW   /* create the file; refuse (TT_ERR_IO) if it already exists */
} rec_mode;

typedef enum rec_state { REC_SEEN = 0, REC_OCCLUDED = 1, REC_LOST = 2 } rec_state;

typedef struct rec_figure {
    const char *family;  /* tag family, e.g. "tag36h11" (at most 31 characters) */
    int id;              /* tag id */
    double x, y;         /* table inches */
    double facing_deg;   /* (-180, 180] */
    rec_state state;
    double z_in;         /* height it stands at above the felt, inches (0: on the felt) */
    /* 95% errors of x/y (a radius), z_in and facing_deg (calib_figure's);
     * 0: not known (stored as NULL, left out of replays) */
    double err95_in, z_err95_in, facing_err95_deg;
} rec_figure;

typedef struct rec_options {
    double pos_eps_in;     /* default 0.02" */
    double facing_eps_deg; /* default 1.0 degree */
    int commit_ms;         /* default 250 (so a crash loses at most 0.5 s, with room for a busy machine); at most 1000 */
} rec_options;

typedef struct rec_meta {
    const char *source;  /* e.g. "/dev/video0" or an image glob; may be NULL */
    const char *note;    /* free text, e.g. the command line; may be NULL */
} rec_meta;

typedef enum rec_event_kind { REC_EV_MOVED = 0, REC_EV_APPEARED, REC_EV_REMOVED, REC_EV_HEIGHT } rec_event_kind;

/* Open (or create) a recording for writing.  An existing file must be a
 * tabletrack recording of schema version <= REC_SCHEMA_VERSION and not be
 * truncated; otherwise TT_ERR_FORMAT and the file is left untouched.
 * REC_CREATE_NEW refuses an existing file.  No session is started yet. */
tt_status rec_open(const char *path, rec_mode mode, rec **out, tt_err *err);

/* Change the thresholds (before the first frame).  NULL or zero fields keep
 * the defaults. */
tt_status rec_set_options(rec *r, const rec_options *opt, tt_err *err);

/* Start a new session.  rig_json and scenario_json are JSON texts (either
 * may be NULL); they are validated and stored compact.  The scenario's
 * "tags" and "figures" give each tag its figure name and side.  The session
 * row is committed at once.  meta may be NULL. */
tt_status rec_session_begin(rec *r, const char *rig_json, const char *scenario_json, const rec_meta *meta,
                            tt_err *err);

/* The projectors the current session's table has, a JSON array (one
 * object each, e.g. {"file","width","height","model","gamma"}); NULL or
 * "[]" keeps nothing.  Kept in the meta table under "session N projectors"
 * (N the session's id), committed at once.  TT_ERR_ARG before
 * rec_session_begin or for JSON that is not an array. */
tt_status rec_session_projectors(rec *r, const char *json, tt_err *err);

/* The session id of the current session (0 before rec_session_begin). */
long long rec_session_id(const rec *r);

/* One tracked frame: every figure the tracker knows.  Frames must come in
 * order (t_ms not decreasing).  A position that is not finite or lies
 * beyond REC_MAX_COORD_IN inches is refused (TT_ERR_ARG), here and in
 * rec_event, so a recording never holds one. */
#define REC_MAX_COORD_IN 100000.0
tt_status rec_frame(rec *r, long frame_no, long long t_ms, const rec_figure *figs, size_t n, tt_err *err);

/* An event of the tracker.  from / to are [x, y] in inches, NULL when not
 * applicable (appeared has no from, removed no to). */
tt_status rec_event(rec *r, long frame_no, long long t_ms, rec_event_kind kind, const char *family, int id,
                    const double *from, const double *to, tt_err *err);

/* A "height" event: the figure settled at `to` ([x, y]) standing z_in
 * above the felt, off the ground its scenario gives it (REC_EV_HEIGHT;
 * rec_event refuses that kind, which needs a height). */
tt_status rec_event_height(rec *r, long frame_no, long long t_ms, const char *family, int id, const double *to,
                           double z_in, tt_err *err);

/* A rules query and the answer shown on frame frame_no (the frame whose
 * figures it was answered for; -1 = before any frame), both JSON texts (one
 * object each).  Numbers are stored as printed: at most 15 significant
 * digits, so 7.63 stays "7.63" (never 7.6299999999999999). */
tt_status rec_query(rec *r, long frame_no, long long t_ms, const char *query_json, const char *answer_json,
                    tt_err *err);

/* The scenario changed mid-game (terrain traced, tags assigned, ruleset
 * picked from the table page): the whole new scenario (JSON text, one
 * object), from frame_no on (-1 = before any frame).  Figures already in
 * the recording take the names and sides its tags give them. */
tt_status rec_scenario(rec *r, long frame_no, long long t_ms, const char *scenario_json, tt_err *err);

/* One of the referee's events (docs/api.md, "The referee's events"): a
 * JSON object text with "event" one of phase, move_check, out_of_turn,
 * charge_check, casualties, morale, as 'track --events' writes it, at frame
 * frame_no (-1 = before any frame).  Stored as given (compact); 'replay
 * --json' gives it back as that line with "frame" and "t_ms" first.
 * Anything else is refused (TT_ERR_FORMAT) and nothing is written. */
tt_status rec_referee(rec *r, long frame_no, long long t_ms, const char *event_json, tt_err *err);

/* After a write fails (disk full, I/O error) the recorder writes nothing
 * more: that call and every later one return TT_ERR_IO with the reason and
 * "the recording is truncated at frame N, the last frame saved"; rec_close
 * then leaves the session without ended_utc (its last_frame is N), which
 * readers report as "truncated at frame N".  rec_failed says whether that
 * happened; rec_committed_frame is N (-1 before the first commit). */
int rec_failed(const rec *r);
long rec_committed_frame(const rec *r);

/* Commit what is pending now. */
tt_status rec_flush(rec *r, tt_err *err);

/* Commit, mark the session as ended cleanly, and close.  Accepts NULL.
 * The handle is freed even when an error is returned. */
tt_status rec_close(rec *r, tt_err *err);

/* Number of state rows written so far in this session (for stats/tests). */
long long rec_rows_written(const rec *r);

/* Called after every commit with the last committed frame (tests use it
 * to report durable progress); may be NULL. */
void rec_set_commit_hook(rec *r, void (*hook)(void *user, long frame_no, long long t_ms), void *user);

/* ---- replay ------------------------------------------------------------ */

typedef struct rec_game rec_game;

#define REC_TIME_UNSET (-1LL)

/* Read one session of a recording (session 0 = the latest).  from_ms /
 * to_ms (REC_TIME_UNSET for open ends) select a time range, counted from
 * the session's first recorded moment; the state at from_ms is kept so the
 * replay starts with every figure in place.
 * The file is opened read-only and checked first: not a recording, a newer
 * schema, a truncated or damaged file give TT_ERR_FORMAT with a message. */
tt_status rec_game_load(const char *path, long long session, long long from_ms, long long to_ms, rec_game **out,
                        tt_err *err);
void rec_game_destroy(rec_game *g);

/* Session id, first and last time of the (selected) replay. */
long long rec_game_session(const rec_game *g);
long long rec_game_t0(const rec_game *g);
long long rec_game_t1(const rec_game *g);

/* A session that did not end cleanly (disk full, crash, power loss) is
 * truncated: this is its last saved frame; -1 when it ended cleanly (or
 * holds no frame). */
long long rec_game_truncated_frame(const rec_game *g);

/* The game as JSON Lines (see docs/api.md, "The replay's JSON Lines"). */
tt_status rec_game_write_json(const rec_game *g, FILE *f, tt_err *err);

/* The referee's story of the game (record/rec_log.c): where each phase
 * began and the log, turn by turn, as JSON text (caller frees):
 * {"phases":[{"t","turn","phase","side"}],
 *  "log":[{"turn","t","text"}]}  (t: recording ms), e.g. the text
 * "Turn 2 · red moved 6 figures, f12 0.8\" over; blue lost 3 of u4: morale
 * 6+ (L8-10)".  Both empty for a game without phases (or a recording
 * older than schema 5).  rec_referee_log reads only what it needs of
 * session `session` (0 = the latest) of the recording at path. */
char *rec_game_referee_log(const rec_game *g);
tt_status rec_referee_log(const char *path, long long session, char **json, tt_err *err);

/* One self-contained HTML page (no network); written atomically. */
tt_status rec_game_write_html(const rec_game *g, const char *path, tt_err *err);
/* The same page in memory: *text (caller frees) of *len bytes. */
tt_status rec_game_html_text(const rec_game *g, char **text, size_t *len, tt_err *err);

typedef struct rec_video_opts {
    int width_px;   /* default 1280 */
    double fps;     /* default 15 */
    double speed;   /* game seconds per video second, default 1 */
    /* Called after each frame written (may be NULL): done of total frames. */
    void (*progress)(void *user, long done, long total);
    void *progress_user;
} rec_video_opts;

/* The recorded answers that the page and the video draw as nothing, one
 * line each into f, after prefix (may be NULL): "the answer at 0:04.000
 * ({...}) is not drawn: why".  Each answer's look is its question asked
 * again of the recorded scenario (table_look.h), which a missing ruleset,
 * a figure gone or a changed answer prevents.  Returns how many. */
int rec_game_write_notes(const rec_game *g, FILE *f, const char *prefix);

/* The same top-down view as a video (.avi: MJPG, .mp4: mp4v). */
tt_status rec_game_write_video(const rec_game *g, const char *path, const rec_video_opts *opt, tt_err *err);

/* Parse a time: seconds ("75", "12.5"), mm:ss ("1:15") or h:mm:ss, into
 * milliseconds.  TT_ERR_ARG on anything else. */
tt_status rec_parse_time(const char *s, long long *ms, tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
