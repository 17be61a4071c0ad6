/* game_internal.h - the game's parts, shared by game*.c only. */
#ifndef TT_GAME_INTERNAL_H
#define TT_GAME_INTERNAL_H

#include <cairo.h>
#include <jansson.h>
#include <pthread.h>

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

/* ---- questions (game_query.c) ---- */

typedef struct game__query {
    int qid;
    json_t *q;         /* the query (owned) */
    char *text;        /* its compact JSON (owned) */
    int from, until;   /* frames it is shown */
    char *last_answer; /* the answer last recorded / published (owned) */
    json_t *answer;    /* the same, parsed, for the state (owned) */
} game__query;

/* The scenario as the game uses it: the rules scene (answers and drawing)
 * and its JSON for the state (terrain, tags). */
typedef struct game__scenario {
    table_scene *scene; /* NULL without a scenario */
    json_t *root;         /* the scenario JSON (owned), NULL without */
    json_t *by_tag;       /* {"<tag>": figure object} (borrowed from root) */
    json_t *profile;      /* its ruleset's profile, for the page's menus (owned) */
} game__scenario;

/* ---- picks (game_pick.c) ---- */

#define GAME__PICKS 64 /* pages with a pick at once; the oldest gives way */

typedef struct game__pick {
    char client[65]; /* the page's id */
    char *id;        /* the figure picked (owned) */
    double at_ms;    /* when it was last set (game__now_ms) */
} game__pick;

/* ---- the feed (game_feed.c) ---- */

#define GAME__FEED 512

typedef struct game__msg {
    unsigned long long seq;
    int is_state;
    game_feed_msg *msg; /* the ring's reference */
} game__msg;

typedef struct game__referee game__referee; /* game_referee.c */
struct game {
    game_opts o;
    const volatile sig_atomic_t *stop;
    volatile sig_atomic_t stop_req;
    calib_rig *rig;
    vision_source *src;
    vision_tracker *trk;
    track_live *live;
    track_live_scale scale; /* where the tracker reads at full resolution */
    track_tuio *tuio;
    rec *recd;
    FILE *ev;
    game__capture cap;
    int threaded;

    /* held across a whole game_scenario_put (check, save, apply): taken
     * before mu, never inside it */
    pthread_mutex_t save_mu;

    /* guarded by mu: everything below, read or written by servers */
    pthread_mutex_t mu;
    game__scenario sc;
    game__referee *refr;        /* the referee (--phases), or NULL */
    int scenario_rev;           /* scenarios applied so far (1 with --scenario) */
    game__query *qs;
    int nq, qcap, next_qid, asked_live; /* asked_live: a question came from a viewer */
    char *banner;
    game__pick picks[GAME__PICKS];
    int npick;
    double banner_at[2]; /* where the QR code was drawn last, kept while no tag comes near */
    int banner_placed;
    int dirty;                  /* redraw the projector without a new frame */
    track_figure *figs;         /* the figures now (copied each frame) */
    rec_figure *recf;           /* the recorder's copy of them (kept, grown as needed) */
    int recf_cap;
    int nfig, figcap;
    int frame_no;               /* the last frame processed, -1 before one */
    double t_ms;
    int camera_state;           /* 0 ok, 1 lost, 2 ended */
    tt_image last_im;           /* the last camera frame (gray) */
    int have_pose;
    int below_warned;           /* told once that tags measure below the felt */
    calib_pose pose;
    int pose_solves;            /* track_live_pose_solves when pose was copied */

    /* table.png: the remap of the last request, kept while the pose and
     * ppi stay the same (its own lock: building one takes a while) */
    pthread_mutex_t table_mu;
    float *map_xy;
    double map_ppi;
    int map_solves, map_w, map_h;
    int rec_failed;             /* the recorder failed: said once, recording stopped */
    tt_err rec_err;

    /* projector (game thread only) */
    calib_projector *pj;
    overlay_mapper map;
    overlay_projector_map map_state; /* map's: marks at the scenario's ground height */
    overlay_list *list;         /* this frame's drawing (also without a projector: answers) */
    overlay_list *scratch;      /* for a viewer's question (mu held) */
    overlay_window *win;
    cairo_surface_t *surf;
    int hidden;                 /* H in the window: draw nothing */
    double esc_at;              /* when Esc was last pressed (ms), 0 never */

    /* feed: its own lock, so a viewer never holds up the game */
    pthread_mutex_t feed_mu;
    pthread_cond_t feed_cv;
    game__msg feed[GAME__FEED];
    unsigned long long feed_seq; /* seq of the newest message; 0 = none */
    unsigned long long state_seq; /* seq of the newest state message */
    int ended;
    int viewers;                  /* attached live viewers */
    int state_wanted;             /* a viewer came: send a state now */
    /* game thread, mu held: when the last state went out; whether a frame
     * since then has not been sent */
    double state_sent_ms;
    int state_stale;

    /* stats (game thread) */
    int frames;
    double *lat;
    int latcap;
    double full_ms, t_start, wall_ms;
    double status_at;           /* when the last status line was printed (0: none yet) */
    int status_frames;          /* frames counted then */
    long seen_sum, known_sum;
};

/* game.c */
/* The tracker maps figures on the scenario's ground (mu held). */
void game__ground(game *g);

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
 * scenario), so call it with mu held. */
double game__ground_in(const void *user, double x, double y);
tt_status game__projector_open(game *g, tt_err *err);
void game__projector_close(game *g);
/* The recorder failed: say so once, stop recording, remember it. */
void game__recorder_failed(game *g, const tt_err *e);

/* game_feed.c */
double game__now_ms(void); /* a monotonic clock, ms */
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
json_t *game__figure_info(game *g, int tag); /* borrowed, or NULL */
json_t *game__str_or_null(const json_t *o, const char *k); /* new reference */

/* game_pick.c (mu held) */
int game__picks_expire(game *g); /* drop stale picks: 1 if any went */
json_t *game__picked_json(game *g); /* new reference */
tt_status game__draw_picks(game *g, overlay_list *l, tt_err *err);
void game__picks_free(game *g);

/* game_referee.c: read and check --phases and start the referee (after
 * the scenario); each frame (mu held), the phase lines due and the
 * tracker's events through the referee, its events to --events and the
 * feed; close frees it (accepts a game without one). */
tt_status game__referee_open(game *g, tt_err *err);
tt_status game__referee_frame(game *g, int frame_no, const track_figure *figs, int nf, const track_event *evs, int ne,
                              tt_err *err);
void game__referee_close(game *g);
/* game_table.c */
void game__table_free(game *g);

#endif
