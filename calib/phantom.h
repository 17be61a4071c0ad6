/* phantom.h - detections that are not figures: a decode too weak to trust
 * (noise that happens to decode as a tag), or a tag where no figure can
 * stand (beyond the table's edge by more than a base).  locate, the live
 * table (and so events, TUIO, the feed and recordings) and check leave
 * them out; check counts them.
 *
 * CALIB_PHANTOM_MARGIN: libapriltag's decision margin separating the two,
 * measured (tests/locate test_phantoms) on the test renderer's frames with
 * blur and noise against decodes in frames of random cells:
 *   real figure tags: weakest 100 (median 129) on 4K frames with blur 1 px
 *   and noise 4; weakest 61 (median 96) with 0.69" tags and 50 % light
 *   falloff; weakest 64 (median 89) on 1080p frames with 0.88" tags;
 *   noise: no decode at all in 12 frames of random cells (4K and 1080p,
 *   decimate 1 and 2); the phantom of issue 22 (a held-out 4K frame, noise
 *   beyond the table's edge): margin 2.0, hamming 2.
 * 20 is a third of the weakest real tag and ten times that phantom.
 *
 * Ownership: nothing allocated; arrays belong to the caller.
 */
#ifndef TT_CALIB_PHANTOM_H
#define TT_CALIB_PHANTOM_H

#include "calib.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CALIB_PHANTOM_MARGIN 20.0

typedef enum calib_phantom_kind {
    CALIB_NOT_PHANTOM = 0,
    CALIB_PHANTOM_WEAK,     /* decision margin under CALIB_PHANTOM_MARGIN */
    CALIB_PHANTOM_OFF_TABLE /* more than a base beyond the table's edge */
} calib_phantom_kind;

/* Is detection d, mapped to (x, y) table inches, a phantom? */
calib_phantom_kind calib_phantom(const calib_rig *rig, const vision_detection *d, double x, double y);

/* Remove the phantoms from figs (*n of them, from calib_locate on dets),
 * keeping the order; returns how many were removed. */
int calib_drop_phantoms(const calib_rig *rig, const vision_detections *dets, calib_figure *figs, int *n);

#ifdef __cplusplus
}
#endif
#endif
