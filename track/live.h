/* live.h - the live table in inches: keeps the camera pose from the anchor
 * tags, maps the vision tracker's tags to figures on the base-height plane,
 * and turns their comings and goings into events.
 *
 * Pose: solved from the anchors on the first frame that shows at least 2;
 * kept while anchors are hidden by hands; solved again when a freshly
 * measured anchor no longer agrees with the pose (the camera moved).
 * Events: a figure "appeared" once it has stood still for a few frames,
 * "moved" when it settles again more than move_threshold_in from where it
 * last settled, and "removed" when its tag is lost.
 * Heights: each fresh tag is mapped at the height of the ground under it
 * (track_live_set_ground; the felt without one) and measures its own
 * height (calib_locate_ground).  While a figure stands still its measured
 * heights are averaged (the tracker re-measures a still tag only when its
 * patch changes, so often once), which shrinks its height's error and so
 * its position's (calib_figure_average); when it settles with that average
 * off the ground beyond CALIB_SURE_SIGMAS of its error it gets a "height"
 * event (once per settling, again if the average moves by more than half
 * an inch).
 *
 * The track_live is owned by the caller: track_live_destroy (accepts NULL);
 * arrays it returns belong to it and stay valid until the next update.
 */
#ifndef TT_TRACK_LIVE_H
#define TT_TRACK_LIVE_H

#include "calib.h"
#include "tracker.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct track_live_opts {
    double move_threshold_in; /* default 0.1 */
    double still_in;          /* movement per frame that counts as still (default 0.02) */
    int settle_frames;        /* still frames before a figure has settled (default 5) */
    double pose_check_px;     /* anchor disagreement that re-solves the pose (default 2.5) */
    int no_errors;            /* 1: no error model (calib_locate_opts), bench_track's baseline; default 0 */
} track_live_opts;

void track_live_opts_default(track_live_opts *o);

typedef struct track_figure {
    char family[VISION_FAMILY_LEN];
    int id;
    double x, y, facing_deg;
    double z_in; /* height it stands at above the felt, inches */
    vision_tag_state state;
    double err95_in, z_err95_in, facing_err95_deg; /* 95% bounds on (x, y), z_in, facing_deg
                                                      (calib_figure's, its height averaged while still) */
    double below_felt_in; /* > 0: its tag measures this far below the felt, which
                             cannot be (the rig's anchors or bases' size_in are
                             wrong: see calib_height_warning); else 0 */
} track_figure;

typedef enum track_event_kind { TRACK_MOVED = 0, TRACK_APPEARED, TRACK_REMOVED, TRACK_HEIGHT } track_event_kind;

typedef struct track_event {
    track_event_kind kind;
    char family[VISION_FAMILY_LEN];
    int id;
    double from[2], to[2];
    int has_from, has_to;
    double z_in;   /* TRACK_HEIGHT: its averaged measured height (to: where it stands) */
    double ground_in; /* TRACK_HEIGHT: the ground's height there */
} track_event;

typedef struct track_live track_live;

/* rig must outlive the track_live. */
tt_status track_live_create(const calib_rig *rig, const track_live_opts *opts, track_live **out, tt_err *err);
void track_live_destroy(track_live *l);

/* One frame of tracks from vision_tracker_update.  Before the first pose
 * (fewer than 2 anchors ever seen) *nfig is 0 and *posed is 0.  When most
 * tags measure the same large height the rig's bases.size_in is wrong
 * (calib_size_suspect): TT_ERR_MISMATCH saying so. */
tt_status track_live_update(track_live *l, int frame_no, const vision_track *tracks, int n, const track_figure **figs,
                            int *nfig, const track_event **events, int *nevents, int *posed, tt_err *err);

/* The ground under the figures (e.g. the scenario's raised terrain); NULL:
 * the felt.  Copied; g->user is borrowed and must stay valid (and not
 * change under a running update) until the next call.  Every figure is
 * mapped again on the next update. */
void track_live_set_ground(track_live *l, const tt_ground *g);

/* Current pose (NULL before the first). */
const calib_pose *track_live_pose(const track_live *l);

/* How many times the pose was solved (1 = never re-solved). */
int track_live_pose_solves(const track_live *l);

const char *track_state_name(vision_tag_state s);
const char *track_event_name(track_event_kind k);

#ifdef __cplusplus
}
#endif
#endif
