/* tracker.h - following tags across frames at camera rate (pixels only).
 *
 * A table is mostly still, so the tracker does little work per frame:
 * - every known tag's patch is compared with the patch at its last
 *   detection; an unchanged patch keeps its corners (no detection, no
 *   jitter), a changed one is re-detected in a window around it;
 * - a coarse change map finds regions that changed and have settled again
 *   (a figure put down, a hand gone) and detects there;
 * - one tile of a round-robin sweep over the whole frame per frame finds
 *   anything else, without stalling frames (on a busy frame, with as much
 *   to search around changes as the tile would cost, the tile waits for up
 *   to opts.sweep_wait frames);
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

/* Ask for a full-frame detection on the next update (e.g. the camera moved). */
void vision_tracker_request_full(vision_tracker *t);

#ifdef __cplusplus
}
#endif
#endif
