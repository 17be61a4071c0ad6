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
 * Several cameras (issue 31, a rig with "cameras"): each camera is placed
 * on the table by the anchors it sees (at least CALIB_FUSE_MIN_ANCHORS for
 * its first pose) and maps its own tracker's tags; a figure seen by several
 * is one figure at their error-weighted mean (calib_fuse), its err95_in
 * shrunk.  A figure's state is the best any camera with a frame in this
 * update gives it (seen, then occluded, then lost), its place fused from
 * the cameras that give that state; a figure only cameras without a frame
 * this update (stale, lost, ended) know is "occluded" (kept where it was,
 * no event).  So a figure slid from one camera's view into another's
 * stays one figure, seen throughout, with no "removed" or "appeared".
 *
 * The track_live is owned by the caller: track_live_destroy (accepts NULL);
 * arrays it returns belong to it and stay valid until the next update.
 */
#ifndef TT_TRACK_LIVE_H
#define TT_TRACK_LIVE_H

#include "calib.h"
#include "fuse.h"
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
    unsigned seen_by;     /* bit k: camera k (rig order) gave its place in this update */
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

/* One camera's part of an update with several cameras (rig order). */
typedef enum track_cam_frame {
    TRACK_CAM_NEW = 0, /* tracks of a new frame from this camera */
    TRACK_CAM_SAME,    /* the same tracks as its last update (nothing remapped) */
    TRACK_CAM_NONE     /* no frame from it this time (stale, lost, ended): tracks are
                          its last ones (may be NULL), read only for which figures it knows */
} track_cam_frame;

typedef struct track_live_cam {
    const vision_track *tracks;
    int n;
    track_cam_frame frame;
} track_live_cam;

/* track_live_update for a rig of several cameras: cams[k] for each of the
 * rig's cameras (rig->ncameras of them; 1 for the single "camera" form, as
 * track_live_update).  *posed: some camera is placed.  The figures are in
 * (family, id) order. */
tt_status track_live_update_cams(track_live *l, int frame_no, const track_live_cam *cams, const track_figure **figs,
                                 int *nfig, const track_event **events, int *nevents, int *posed, tt_err *err);

/* Camera k's pose (NULL before its first), its solves, and its view of the
 * rig (calib_rig_view: its camera.yaml), for k in 0..rig->ncameras-1. */
const calib_pose *track_live_pose_cam(const track_live *l, int k);
int track_live_pose_solves_cam(const track_live *l, int k);
const calib_rig *track_live_view(const track_live *l, int k);

/* The distinct anchors camera k saw in its last new frame, named in names
 * ("tag36h11 0, 1, 4"; may be NULL); returns their count. */
int track_live_anchors_seen(const track_live *l, int k, char *names, size_t cap);

/* Sightings of one figure by two cameras that disagreed beyond their
 * errors in the last update (calib_fuse's conflicts; the array is the
 * live table's, valid until the next update).  Returns the count. */
int track_live_conflicts(const track_live *l, const calib_fuse_conflict **c);

/* Where camera k (its frame width x height) should look for figures the
 * other cameras see moving into its view and it does not see yet: up to
 * max rectangles (x, y, w, h pixels, in rects) for vision_tracker_look, after
 * an update; returns their count (0 with one camera).  A figure slid
 * across the seam is then found by the camera it enters while it moves. */
int track_live_handoff(const track_live *l, int k, int width, int height, int *rects, int max);

/* The ground under the figures (e.g. the scenario's raised terrain); NULL:
 * the felt.  Copied; g->user is borrowed and must stay valid (and not
 * change under a running update) until the next call.  Every figure is
 * mapped again on the next update. */
void track_live_set_ground(track_live *l, const tt_ground *g);

/* Current pose (NULL before the first); with several cameras, the first
 * camera's. */
const calib_pose *track_live_pose(const track_live *l);

/* How many times the pose was solved (1 = never re-solved). */
int track_live_pose_solves(const track_live *l);

const char *track_state_name(vision_tag_state s);
const char *track_event_name(track_event_kind k);

#ifdef __cplusplus
}
#endif
#endif
