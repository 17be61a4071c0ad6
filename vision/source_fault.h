/* source_fault.h - private to vision/: a test source that wraps another
 * and injects a camera fault, so the tracker's handling of an unplugged
 * camera is tested without hardware.
 *
 *   fault:lose=N,for=S:SPEC   after N frames of SPEC the camera is lost
 *                             (VISION_LOST); vision_source_reconnect fails
 *                             for S seconds of wall time, then frames of
 *                             SPEC resume (S < 0: it never comes back)
 *   fault:stall=N,for=S:SPEC  after N frames, the next read blocks S seconds
 *                             (a camera that delivers nothing), then resumes
 *
 * Frame times go on across the fault (the inner time plus the time lost).
 * The wrapper owns its inner source. */
#ifndef TT_VISION_SOURCE_FAULT_H
#define TT_VISION_SOURCE_FAULT_H

#include "source.h"

typedef struct vision__fault vision__fault;

/* spec is what follows "fault:". */
tt_status vision__fault_open(const char *spec, const vision_source_opts *opts, vision__fault **out, tt_err *err);
void vision__fault_destroy(vision__fault *f);
vision_source *vision__fault_inner(vision__fault *f);
tt_status vision__fault_next(vision__fault *f, const tt_image **frame, double *t_ms, vision_frame_status *status,
                             tt_err *err);
tt_status vision__fault_reconnect(vision__fault *f, tt_err *err);

#endif
