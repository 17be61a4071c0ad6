/* tracker.h - following tags across frames at camera rate (pixels only).
 *
 * A table is mostly still, so the tracker does little work per frame:
 * - every known tag's patch is compared with the patch at its last
 *   detection; an unchanged patch keeps its corners (no detection, no
 *   jitter), a changed one is re-detected in a window around it;
 * - a coarse change map finds regions that changed and have settled again
 *   (a figure put down, a hand gone) and detects there;
 * - a round-robin sweep, one tile a frame, finds anything else -- but only
 *   tiles where the picture changed since they were last swept (and has
 *   been still for a moment) and no settled region's window has searched
 *   it since; a tile nothing changed in is swept again only every
 *   opts.sweep_idle frames, so a still table costs almost nothing.
 *   On a busy frame (as much to search around changes as the tile would
 *   cost) the tile waits for up to opts.sweep_wait frames;
 * - each window is read at the scale its tags need: at the detector's
 *   decimate, or at full resolution where the caller says tags are small
 *   (vision_tracker_set_fine: the caller knows the tags' size);
 * - the windows are shared between two worker threads.
 * A tag missing from its changed window is OCCLUDED (last corners kept) and
 * becomes LOST after the grace period; identity is the tag's family and id.
 *
 * The tracker is owned by the caller: vision_tracker_destroy (accepts NULL).
 * Track arrays it returns are owned by the tracker, valid until the next
 * update.
 */
#ifndef TT_VISION_TRACKER_H
#define TT_VISION_TRACKER_H

#include "vision.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vision_tracker_opts {
    vision_detector_opts det; /* families; decimate/refine for the sweep */
    int tiles_x, tiles_y;     /* sweep tiles (default 8 x 6) */
    int grace_frames;         /* OCCLUDED -> LOST after this many frames (default 45) */
    double change_level;      /* mean |diff| in gray levels that counts as change (default 8) */
    int threads;              /* worker threads (default 2) */
    int sweep_wait;           /* busy frames in a row the sweep tile may wait (default 3; 0 = never) */
    int sweep_idle;           /* frames between sweeps of tiles where nothing changed (default 30;
                                 1 = a tile every frame, changed or not) */
} vision_tracker_opts;

void vision_tracker_opts_default(vision_tracker_opts *o);

typedef enum vision_tag_state { VISION_TAG_SEEN = 0, VISION_TAG_OCCLUDED, VISION_TAG_LOST } vision_tag_state;

typedef struct vision_track {
    vision_detection det;   /* last measured corners (pixels) */
    vision_tag_state state;
    int fresh;              /* corners measured in this frame */
    int first_frame, last_seen_frame;
} vision_track;

typedef struct vision_tracker_stats {
    int windows;            /* detection windows run this frame */
    long pixels;            /* pixels handed to the detector this frame */
    int full_frame;         /* 1 if this frame ran a full-frame detection */
    int sweeps;             /* sweep tiles searched this frame (0 or 1) */
    long fine_pixels;       /* of pixels, those searched at full resolution */
    int twice;              /* tags seen at two places this frame (two printed
                               copies): the copy nearer to where the tag was
                               is kept, the other ignored; warned once per tag */
} vision_tracker_stats;

typedef struct vision_tracker vision_tracker;

tt_status vision_tracker_create(const vision_tracker_opts *opts, vision_tracker **out, tt_err *err);
void vision_tracker_destroy(vision_tracker *t);

/* Process one frame.  The first frame (and any frame after a resolution
 * change or vision_tracker_request_full) runs a full-frame detection.
 * *tracks / *n: every track ever seen, LOST ones included, sorted by
 * family then id. */
tt_status vision_tracker_update(vision_tracker *t, const tt_image *frame, int frame_no, const vision_track **tracks,
                                int *n, vision_tracker_stats *stats, tt_err *err);

/* Where tags must be read at full resolution: n rectangles (x, y, w, h,
 * pixels; at most VISION_TRACKER_MAX_FINE, copied), e.g. calib_fine_rect's
 * from the camera pose.  Windows touching them are read at full resolution,
 * the others at opts.det.decimate; the rectangles are searched whole at full
 * resolution on the next update, for tags the half-size search missed.
 * n = 0: none.  Errors: TT_ERR_ARG. */
#define VISION_TRACKER_MAX_FINE 8

/* Windows (x, y, w, h in pixels; at most VISION_TRACKER_MAX_LOOK, copied,
 * clipped to the frame) searched once in the next update: where the
 * caller expects a tag to come into view, e.g. a figure another camera
 * sees sliding into this camera's part of the table (the sweep waits for
 * the picture to be still, so it would not find a tag that is moving).
 * The next update's own windows and tile are searched as well. */
#define VISION_TRACKER_MAX_LOOK 32
void vision_tracker_look(vision_tracker *t, const int *rects, int n);
tt_status vision_tracker_set_fine(vision_tracker *t, const int *rects, int n, tt_err *err);

/* Ask for a full-frame detection on the next update (e.g. the camera moved). */
void vision_tracker_request_full(vision_tracker *t);

#ifdef __cplusplus
}
#endif
#endif
