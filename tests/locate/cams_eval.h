/* cams_eval.h - issue 31's held-out table for the several-camera tests
 * (tests/locate, tests/check): a 144x72 table, two 4K cameras side by side
 * each over one half, overlapping by about 10", 1" tags (0.8" detected
 * squares) at 2.6-2.7 px per cell, eight 2.4" anchors (the corners and the
 * edges' middles) so that each camera sees five; rendered, with the
 * rig (rig.json, camera0.yaml, camera1.yaml, frame0.png, frame1.png) in a
 * temporary folder, and scored against the truth. */
#ifndef TT_CAMS_EVAL_H
#define TT_CAMS_EVAL_H

#include "fuse.h"
#include "render.h"

#define CE_CAMS 2

typedef struct ce_options {
    int nbases;
    double overlap_in; /* the frames' overlap along x (may be < 0: a gap) */
    unsigned seed;
    int supersample;
    double blur, noise;
    int nanchors;      /* rnd_standard_tags' first N: 8 (each camera sees 5), 6 (4 each), 5 (3 each) */
    int write_png;     /* also write frame0.png, frame1.png (the CLI reads them) */
    int split_anchors; /* the long edges' middle anchors at x = 60 and 84, not 72, the others 5" from the
                          ends (each camera still sees four when the frames do not meet); only with nbases 0 */
} ce_options;

typedef struct ce_table {
    rnd_scene scene;
    rnd_camera cams[CE_CAMS];
    rnd_tag *tags; /* owned: anchors first */
    int nanchors, ntags;
    tt_image images[CE_CAMS]; /* owned */
    calib_rig *rig;           /* owned, loaded from rig_path */
    char dir[256], rig_path[512], img_path[CE_CAMS][512];
} ce_table;

void ce_options_default(ce_options *o);
tt_status ce_table_make(const ce_options *o, ce_table *t, tt_err *err);
void ce_table_free(ce_table *t);

typedef struct ce_score {
    int expected, found, spurious, twice; /* twice: a tag reported more than once (never) */
    double rms, max;                      /* every figure, inches */
    int overlap;                          /* figures seen by both cameras */
    double overlap_rms, overlap_max;
} ce_score;

/* Every camera detected as locate does (calib_fuse_detect, the default
 * detector with rescale), fused (calib_fuse_locate) and scored; r may be
 * NULL.  Expected: base tags unoccluded in at least one frame. */
tt_status ce_locate(const ce_table *t, calib_fuse_result *r, calib_pose poses[CE_CAMS], ce_score *s, tt_err *err);

/* The default table of 'seed' made, located and scored (ce_locate), and
 * freed again. */
tt_status ce_score_seed(unsigned seed, calib_pose poses[CE_CAMS], ce_score *s, tt_err *err);

#endif
