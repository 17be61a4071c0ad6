/* fuse.h - several cameras, one table (issue 31): each camera's pose comes
 * from the anchors it sees, and the figures its frame shows are fused with
 * the other cameras' into one set.  A figure seen by more than one camera
 * is reported once, at the error-weighted mean of its sightings: weights
 * 1 / err95_in^2 (calib_err.c's 95% radius), or px_per_cell^2 for a
 * sighting without one; its err95_in shrinks to 1 / sqrt(sum of weights).
 * Two sightings farther apart than CALIB_FUSE_SIGMAS times their combined
 * error mean a camera has moved: a conflict, to warn about.
 *
 * Ownership: calib_fuse_result's arrays belong to it
 * (calib_fuse_result_free, accepts NULL).
 */
#ifndef TT_CALIB_FUSE_H
#define TT_CALIB_FUSE_H

#include "calib.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Disagreement beyond this many times the two sightings' combined 95%
 * radii (sqrt(ea^2 + eb^2)): a 95% radius is about 2.45 sigma, so 2 of them
 * are about 5 sigma, which noise alone does not reach. */
#define CALIB_FUSE_SIGMAS 2.0
#define CALIB_FUSE_MIN_ANCHORS 4 /* anchors each camera of several must see */

typedef struct calib_fuse_conflict {
    char family[VISION_FAMILY_LEN];
    int id;
    int cam_a, cam_b;  /* the two cameras (rig order) */
    double apart_in;   /* how far apart they see it */
    double allowed_in; /* what their errors allow */
} calib_fuse_conflict;

typedef struct calib_fuse_result {
    calib_figure *figs;      /* fused, sorted by family then id; det_index is the best sighting's */
    unsigned *seen_by;       /* per figure: bit k set when camera k saw it */
    int *best_cam;           /* per figure: the camera of the best (heaviest) sighting */
    int n;
    calib_fuse_conflict *conflicts;
    int nconflicts;
} calib_fuse_result;

/* Fuse the figures of ncams cameras (figs[k], nfigs[k] each, as
 * calib_locate gives them; figs[k] may be NULL when nfigs[k] is 0).  A
 * family and id seen by several cameras is one figure.  Errors:
 * TT_ERR_ARG, TT_ERR_NOMEM. */
tt_status calib_fuse(const calib_figure *const *figs, const int *nfigs, int ncams, calib_fuse_result *r,
                     tt_err *err);
void calib_fuse_result_free(calib_fuse_result *r);

/* The weight of one sighting: 1 / err95_in^2, or px_per_cell^2 without an
 * err95_in (<= 0); 0 if neither is usable. */
double calib_fuse_weight(const calib_figure *f);

/* The warning for conflict c, naming both cameras of rig and telling the
 * player to re-run check. */
void calib_fuse_conflict_message(const calib_rig *rig, const calib_fuse_conflict *c, char *buf, size_t cap);

/* Camera k of rig seen in dets (its frame's detections): the distinct
 * anchors it sees, listed in names ("tag36h11 0, 1, 4"); returns their
 * count. */
int calib_fuse_anchors_seen(const calib_rig *rig, const vision_detections *dets, char *names, size_t cap);

/* Camera k's detections and pose from its frame (calib_detect on camera
 * k's view of rig), refused when rig has several cameras and this one sees
 * fewer than CALIB_FUSE_MIN_ANCHORS anchors (TT_ERR_ANCHORS naming the
 * camera and the anchors it sees), or its frame is not its camera.yaml's
 * size. */
tt_status calib_fuse_detect(const calib_rig *rig, int k, vision_detector *det, const tt_image *gray, int rescale,
                            vision_detections *dets, calib_pose *pose, tt_err *err);

/* The table's figures from every camera: camera k's figures from its
 * detections dets[k] and pose poses[k] (calib_locate_ground on its view of
 * rig, over ground, NULL: flat; phantoms dropped), fused (calib_fuse).
 * nseen (may be NULL, rig->ncameras of them) gets each camera's own count. */
tt_status calib_fuse_locate(const calib_rig *rig, const vision_detections *dets, const calib_pose *poses,
                            const tt_ground *ground, calib_fuse_result *r, int *nseen, tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
