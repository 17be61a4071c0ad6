/* source.h - where camera frames come from: a V4L2 camera (/dev/videoN), a
 * USB camera chosen by serial number (usb:SERIAL), a video file, or a
 * sorted image glob ('frames/NAME.png' patterns).  Frames are delivered as 8-bit gray.
 * Tests inject camera faults with "fault:lose=N,for=S:SPEC" (source_fault.h).
 *
 * A vision_source is owned by the caller: vision_source_destroy (accepts
 * NULL).  Images it returns are owned by the source and valid until the
 * next call to vision_source_next.
 */
#ifndef TT_VISION_SOURCE_H
#define TT_VISION_SOURCE_H

#include <signal.h>
#include "tt_image.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vision_source_kind {
    VISION_SRC_IMAGES = 0, /* image glob */
    VISION_SRC_VIDEO,      /* video file */
    VISION_SRC_CAMERA      /* V4L2 device (incl. usb:SERIAL) */
} vision_source_kind;

typedef struct vision_source_opts {
    int width, height; /* camera resolution request (0 = default) */
    double fps;        /* camera frame rate request (0 = default) */
    int mjpeg;         /* ask the camera for MJPEG */
} vision_source_opts;

typedef enum vision_frame_status {
    VISION_FRAME = 0, /* a new frame */
    VISION_END,       /* no more frames (file/glob ended) */
    VISION_CORRUPT,   /* this frame could not be decoded: skipped (counted) */
    VISION_LOST       /* the camera vanished; call vision_source_reconnect */
} vision_frame_status;

typedef struct vision_source vision_source;

/* Open SRC.  Errors say what is wrong: no file matches the glob, the video
 * cannot be read, no camera with that serial, ... */
tt_status vision_source_open(const char *spec, const vision_source_opts *opts, vision_source **out, tt_err *err);
void vision_source_destroy(vision_source *src);

vision_source_kind vision_source_get_kind(const vision_source *src);

/* Whether a silence from this source means trouble to report: a camera, or
 * a "fault:" test source standing in for one (files never go quiet). */
int vision_source_can_stall(const vision_source *src);

/* Decode every frame into memory now (files and globs only), so later
 * reads cost nothing: benchmarks then measure tracking, not decoding.
 * progress (may be NULL) is told frames done and the total (0 if the file
 * does not say) after each frame; when *stop (may be NULL) becomes
 * non-zero, reading ends (TT_ERR_ARG, "stopped...") and nothing is kept. */
tt_status vision_source_preload(vision_source *src, const volatile sig_atomic_t *stop,
                                void (*progress)(void *user, long done, long total), void *user, tt_err *err);

/* Next frame.  *frame points at the source's buffer; *t_ms is the frame's
 * time (file: frame index / fps; camera: monotonic capture time). */
tt_status vision_source_next(vision_source *src, const tt_image **frame, double *t_ms, vision_frame_status *status,
                             tt_err *err);

/* After VISION_LOST: try once to reopen the camera (same serial or path).
 * TT_OK when it is back; TT_ERR_DEVICE while it is still missing. */
tt_status vision_source_reconnect(vision_source *src, tt_err *err);

/* Frames skipped as corrupt so far. */
int vision_source_corrupt_count(const vision_source *src);

/* For cameras: the /dev/video path in use (else NULL). */
const char *vision_source_device(const vision_source *src);

/* Several sources' frames paired by time (a rig of several cameras): of
 * the n frames whose have[k] is set, taken at t_ms[k] (one clock for all),
 * use[k] = 1 for those no older than the newest by more than period_ms (one
 * frame period); the others sit the round out.  Returns how many are used. */
int vision_frames_pair(const double *t_ms, const int *have, int n, double period_ms, int *use);

#ifdef __cplusplus
}
#endif
#endif
