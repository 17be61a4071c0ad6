/* game_internal.h - the game's parts, shared by game*.c only. */
#ifndef TT_GAME_INTERNAL_H
#define TT_GAME_INTERNAL_H

#include <cairo.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>

#include "calib.h"
#include "game.h"
#include "live.h"
#include "live_scale.h"
#include "overlay.h"
#include "table_scene.h"
#include "projector.h"
#include "rec.h"
#include "source.h"
#include "tracker.h"
#include "tt_clock.h"
#include "tuio.h"

/* ---- capture thread (game_capture.c): overlaps decoding with tracking ---- */

#define GAME__SLOTS 3

typedef struct game__slot {
    tt_image im;
    double t_ms, arrived;
    vision_frame_status status;
} game__slot;

typedef struct game__capture {
    vision_source *src;
    int live; /* camera: drop old frames rather than fall behind */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    game__slot slot[GAME__SLOTS];
    int head, count; /* ring of filled slots */
    int done;        /* producer finished (END or error) */
    tt_status st;
    tt_err err;
    int quit;
    int started;
    pthread_t th;
} game__capture;

tt_status game__capture_start(game__capture *c, vision_source *src, int live, tt_err *err);
/* Wait up to wait_ms for a frame.  1: *out holds it (its image is now the
 * caller's); 0: none yet; -1: the producer is done (*st, *err say why). */
int game__capture_take(game__capture *c, int wait_ms, game__slot *out, tt_status *st, tt_err *err);
/* After the camera came back: start producing again. */
tt_status game__capture_restart(game__capture *c, tt_err *err);
void game__capture_stop(game__capture *c);

/* Take the newest frame queued, dropping the older ones (a live camera of
 * several, so that frames are paired by time); as game__capture_take. */
int game__capture_take_newest(game__capture *c, int wait_ms, game__slot *out, tt_status *st, tt_err *err);

/* ---- the cameras (game_cams.c): each camera of the rig with its own
 * source, capture thread and tracker; a round pairs their frames ---- */

typedef struct game__cam {
    char name[160];          /* how messages name it: "camera 2 (right.yaml)", "the camera" alone */
    const char *spec;        /* its source: --source's or the rig's (borrowed) */
    vision_source *src;
    vision_tracker *trk;
    track_live_scale scale;  /* where its tracker reads at full resolution */
    game__capture cap;
    int is_camera, can_stall;
    int lost;                /* lost (VISION_LOST) or silent, not back yet */
    int silent;              /* lost by silence: its thread goes on reading */
    int ended;               /* its file ended */
    int gone_told;           /* told it has been gone for --camera-timeout */
    double last_frame_at, lost_at, retry_at;
    int frames;              /* frames it gave */
    int place_told;          /* told it sees too few anchors to be placed */
    /* this round */
    int have;                /* a frame (im) */
    int skip;                /* a corrupt frame: none from it this round */
    game__slot slot;         /* threaded: the frame, owned */
    const tt_image *im;      /* the frame: &slot.im, or the source's (--preload) */
    const vision_track *tracks; /* its tracker's last tracks (the tracker's) */
    int ntr;
} game__cam;

typedef enum game__round {
    GAME__ROUND_FRAMES = 0, /* some cameras have a frame (have) */
    GAME__ROUND_IDLE,       /* nothing yet: redraw what viewers changed, come again */
    GAME__ROUND_SKIP,       /* corrupt frames only: a frame number goes by */
    GAME__ROUND_END,        /* every source ended */
    GAME__ROUND_ERROR       /* *st, *err say why */
} game__round;

tt_status game__cams_open(game *g, tt_err *err);
tt_status game__cams_start(game *g, tt_err *err); /* the capture threads (not with --preload) */
/* Wait up to 50 ms for the next round of frames, one from each camera that
 * can give one (files: every one; live cameras: the newest, within one
 * frame period of the newest of all, or the camera sits this round out).
 * Tells lost, silent, back and gone cameras (game__camera_event). */
game__round game__cams_round(game *g, tt_status *st, tt_err *err);
/* The round's frames through each camera's tracker and the live table;
 * cameras not placed told (*first: the game's first frame) or, for files,
 * refused; still figures the cameras see apart warned about. */
tt_status game__cams_track(game *g, int frame_no, int *first, const track_figure **figs, int *nf,
                           const track_event **evs, int *ne, tt_err *err);
/* At the end of the sources: a file's camera never placed is refused. */
tt_status game__cams_ended_unplaced(game *g, tt_err *err);
void game__cams_release(game *g); /* the round's frames */
void game__cams_stop(game *g);    /* the capture threads */
void game__cams_destroy(game *g); /* trackers and sources */
/* Some camera is lost and waited for (the felt says so). */
int game__cams_lost(const game *g);

/* ---- questions (game_query.c) ---- */

typedef struct game__query {
    int qid;
    json_t *q;         /* the query (owned) */
    char *text;        /* its compact JSON (owned) */
    int from, until;   /* frames it is shown */
    char *last_answer; /* the answer last recorded / published (owned) */
    json_t *answer;    /* the same, parsed, for the state (owned) */
    json_t *look;      /* what it looks like now: table_look's primitives as JSON (owned, or NULL) */
    int asked;         /* asked by a viewer (game_query_add): counts to GAME_MAX_QUESTIONS */
} game__query;

/* The scenario as the game uses it: the rules scene (answers and drawing)
 * and its JSON for the state (terrain, tags). */
typedef struct game__scenario {
    table_scene *scene; /* NULL without a scenario */
    json_t *root;         /* the scenario JSON (owned), NULL without */
    json_t *by_tag;       /* {"<tag>": figure object} (borrowed from root) */
    json_t *profile;      /* its ruleset's profile, for the page's menus (owned) */
} game__scenario;

/* ---- picks (game_pick.c): their own lock, taken last (nothing is locked
 * while it is held) ---- */

#define GAME__PICKS 64 /* pages with a pick at once; the oldest gives way */

typedef struct game__pick {
    char client[65]; /* the page's id */
    char *id;        /* the figure picked (owned) */
    double at_ms;    /* when it was last set (tt_mono_ms) */
} game__pick;

typedef struct game__picks {
    pthread_mutex_t mu;
    game__pick picks[GAME__PICKS];
    int npick;
} game__picks;

/* ---- the feed (game_feed.c): its own lock, so a viewer never holds up
 * the game ---- */

#define GAME__FEED 512

typedef struct game__msg {
    unsigned long long seq;
    int is_state;
    game_feed_msg *msg; /* the ring's reference */
} game__msg;

typedef struct game__feed {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    game__msg ring[GAME__FEED];
    unsigned long long seq;       /* seq of the newest message; 0 = none */
    unsigned long long state_seq; /* seq of the newest state message */
    int ended;
    int viewers;      /* attached live viewers */
    int state_wanted; /* a viewer came: send a state now */
    /* game thread, the table's lock held: when the last state went out;
     * whether a frame since then has not been sent */
    double state_sent_ms;
    int state_stale;
} game__feed;

/* ---- the figures: the table as the last frame saw it (the table's lock) ---- */

typedef struct game__figures {
    track_figure *figs; /* the figures now (copied each frame) */
    int nfig, figcap;
    int frame_no;       /* the last frame processed, -1 before one */
    double t_ms;
    int camera_state;   /* 0 ok, 1 lost, 2 ended */
    /* each camera's last frame (gray) and pose, for the table picture */
    tt_image last_im[CALIB_MAX_CAMERAS];
    int have_pose[CALIB_MAX_CAMERAS];
    int below_warned;   /* told once that tags measure below the felt */
    calib_pose pose[CALIB_MAX_CAMERAS];
    int pose_solves[CALIB_MAX_CAMERAS]; /* track_live_pose_solves_cam when pose was copied */
} game__figures;

/* ---- the questions shown (game_query.c; the table's lock: they are
 * answered against the figures and the scenario) ---- */

typedef struct game__questions {
    game__query *qs;
    int nq, qcap, next_qid;
    int asked_live; /* a question came from a viewer: the QR code gives way */
} game__questions;

/* ---- the recording (game thread; the table's lock for what viewers
 * change: scenarios, answers) ---- */

typedef struct game__recording {
    rec *recd;
    rec_figure *recf; /* the recorder's copy of the figures (kept, grown as needed) */
    int recf_cap;
    int rec_failed;   /* the recorder failed: said once, recording stopped */
    tt_err rec_err;
} game__recording;

/* ---- table.png (game_table.c): the remap of the last request, kept while
 * the pose and ppi stay the same (its own lock: building one takes a while) ---- */

typedef struct game__picture {
    pthread_mutex_t mu;
    float *map_xy[CALIB_MAX_CAMERAS]; /* each camera's remap */
    unsigned char *pick;              /* per pixel: the camera it is read from (most inside its frame) */
    double map_ppi;
    int map_solves[CALIB_MAX_CAMERAS], map_w, map_h, map_cams;
} game__picture;

/* ---- the projectors (game_projector.c; game thread; list and scratch
 * under the table's lock) ---- */

/* One projector: its map, its share of the light where it overlaps others
 * (NULL with one projector), its window and picture. */
typedef struct game__output {
    calib_projector *pj;
    overlay_mapper map;
    overlay_projector_map map_state; /* map's: marks at the scenario's ground height */
    overlay_seam *seam;
    overlay_window *win;
    cairo_surface_t *surf;
} game__output;

typedef struct game__projector {
    game__output out[GAME_MAX_PROJECTORS];
    int n;                           /* projectors drawing (0: none) */
    overlay_list *list;              /* this frame's drawing (also without a projector: answers) */
    overlay_list *scratch;           /* for a viewer's question (the table's lock held) */
    int hidden;                      /* H in a window: draw nothing */
    double esc_at;                   /* when Esc was last pressed (ms), 0 never */
    char *banner;                    /* the QR code's text (the table's lock) */
    double banner_at[2];             /* where the QR code was drawn last, kept while no tag comes near */
    int banner_placed;
} game__projector;

/* ---- figures for --stats and the status line (game thread) ---- */

typedef struct game__stats {
    int frames;
    double *lat;
    int latcap;
    double full_ms, t_start, wall_ms;
    double referee_ms; /* spent in the referee (game__referee_frame), for bench_referee */
    double status_at;  /* when the last status line was printed (0: none yet) */
    int status_frames; /* frames counted then */
    long seen_sum, known_sum;
} game__stats;

/* ---- phases: the referee (game_referee.c, issue 30; the table's lock):
 * the --phases lines and the referee watching the game ---- */

typedef struct game__referee game__referee;

/* The hub: what the game is made of, and its parts.  Locks, always taken in
 * this order: save_mu, then mu (the table's: scenario, figures, questions,
 * dirty), then picks.mu or feed.mu (never both).  cap.mu and picture.mu are
 * taken alone. */
struct game {
    game_opts o;
    const volatile sig_atomic_t *stop;
    volatile sig_atomic_t stop_req;
    calib_rig *rig;
    game__cam cams[CALIB_MAX_CAMERAS]; /* the rig's cameras, in its order */
    int ncams;
    unsigned char conflict_told[CALIB_MAX_CAMERAS][CALIB_MAX_CAMERAS]; /* cameras told to disagree */
    track_live *live;
    track_tuio *tuio;
    FILE *ev;
    int threaded;

    /* held across a whole game_scenario_put (check, save, apply) */
    pthread_mutex_t save_mu;
    /* the table's lock: sc, scenario_rev, dirty, figures, questions */
    pthread_mutex_t mu;
    game__scenario sc;
    game__referee *refr; /* the referee (--phases), or NULL */
    int scenario_rev; /* scenarios applied so far (1 with --scenario) */
    int dirty;        /* redraw the projector without a new frame */

    game__figures figures;
    game__questions questions;
    game__picks picks;
    game__feed feed;
    game__recording recording;
    game__picture picture;
    game__projector proj;
    game__stats stats;
};

/* game.c */
/* The tracker maps figures on the scenario's ground (mu held). */
void game__ground(game *g);
int game__stopped(const game *g);
/* A camera is lost or back: a line in --events and the feed (cam: its
 * index, named when the rig has several). */
void game__camera_event(game *g, int cam, const char *state);
void game__set_camera(game *g, int state);
/* Nothing new from the cameras: redraw what viewers changed. */
tt_status game__idle(game *g, tt_err *err);

/* game_query.c */
/* Where rulesets are looked for: $TABLETRACK_DATA, then the source tree. */
const char *const *game__data_dirs(void);
/* The folder of path ("." for a bare name): relative profile paths in a
 * scenario are resolved against it. */
void game__dir_of(const char *path, char *dir, size_t cap);
tt_status game__scenario_load_text(game__scenario *s, const char *text, const char *where, const char *base_dir,
                                   tt_err *err);
tt_status game__scenario_load(game__scenario *s, const char *path, tt_err *err);
void game__scenario_free(game__scenario *s);
tt_status game__queries_from_opts(game *g, tt_err *err);
void game__queries_free(game *g);
/* Move the scenario's figures to where they are tracked (mu held). */
void game__place_figures(game *g);
/* Place the figures, answer the questions shown at frame_no (recording and
 * publishing changed answers), and draw the projector image.  Holds mu. */
tt_status game__answer_and_draw(game *g, int frame_no, long long t_ms, tt_err *err);
/* The ground under (x, y) in the scenario being played now, a tt_ground_fn
 * with the game as user: read at each call (a viewer may replace the
 * scenario), so call it with mu held (game_projector.c). */
double game__ground_in(const void *user, double x, double y);
/* game_projector.c: every --projector's map loaded and checked against the
 * rig, their seams, their windows; close frees them (accepts none). */
tt_status game__projector_open(game *g, tt_err *err);
void game__projector_close(game *g);
/* The projectors the table has, for the recording: a JSON array of
 * {"file","width","height","model","gamma","gamma_measured"}, or NULL with
 * none (the caller frees). */
char *game__projectors_json(const game *g);
/* proj.list drawn by every projector: its window, --overlay-dir. */
tt_status game__projector_draw(game *g, int frame_no, tt_err *err);
/* The recorder failed: say so once, stop recording, remember it. */
void game__recorder_failed(game *g, const tt_err *e);

/* game_feed.c */
void game__feed_init(game *g);
void game__feed_free(game *g);
void game__feed_publish(game *g, const char *event, char *data); /* takes data */
/* Publish the state for live viewers (mu held): at once when force, else
 * at most GAME_FEED_MAX_HZ a second (a frame held back is marked stale and
 * sent by game__feed_flush); nothing while no viewer is attached. */
void game__publish_state(game *g, int force);
void game__feed_flush(game *g); /* a stale state, now (mu held) */
void game__feed_end(game *g);
/* The state object (mu held). */
json_t *game__state(game *g);
/* The scenario's figure of a tag (borrowed), or NULL; the table's lock held. */
static inline json_t *game__figure_info(game *g, int tag)
{
    char key[16];
    snprintf(key, sizeof key, "%d", tag);
    return json_object_get(g->sc.by_tag, key);
}
json_t *game__str_or_null(const json_t *o, const char *k); /* new reference */

/* game_pick.c (the table's lock held, for the scenario and the figures;
 * each takes picks.mu) */
void game__picks_init(game__picks *p);
int game__picks_expire(game__picks *p); /* drop stale picks: 1 if any went */
json_t *game__picked_json(game__picks *p); /* new reference */
tt_status game__draw_picks(game *g, overlay_list *l, tt_err *err);
void game__picks_free(game__picks *p); /* and its lock */

/* game_referee.c: read and check --phases and start the referee (after
 * the scenario); each frame (mu held), the phase lines due and the
 * tracker's events through the referee, its events to --events and the
 * feed; close frees it (accepts a game without one). */
tt_status game__referee_open(game *g, tt_err *err);
tt_status game__referee_frame(game *g, int frame_no, const track_figure *figs, int nf, const track_event *evs, int ne,
                              tt_err *err);
void game__referee_close(game *g);
/* Where the game stands for the state: {"turn","phase","side"}, or null
 * until a phase is set (mu held; a new reference). */
json_t *game__referee_state(game *g);
/* Add to the state (mu held) "next_phase" (where Next goes, {"turn",
 * "phase","side"}, or null until a phase is set), "checks" (this phase's: each figure's last move_check, charge_check or
 * out_of_turn; a put back drops it) and "calls" (this turn's casualties
 * and morale), as the events are written. */
void game__referee_state_add(game *g, json_t *state);
/* Draw the checks, the calls and where the game stands (table_look.c)
 * into l (mu held). */
tt_status game__referee_draw(game *g, overlay_list *l, tt_err *err);
/* game_table.c */
void game__table_free(game *g);

#endif
