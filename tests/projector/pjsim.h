/* pjsim.h - a simulated projector-camera rig with a known truth, for the
 * projector calibration and overlay tests: pattern image -> projector
 * (pinhole, optional lens distortion, gamma, black level) -> light on the
 * table -> the test scene renderer's camera (ambient light, blur, noise).
 *
 * The rig is a 72x48 table with 6 anchors (tests/render's standard rig), a
 * camera.yaml and rig.json in a temporary folder (removed by
 * pjsim_destroy).  The projector covers only the middle of the table.
 * More projectors (pjsim_options.nmore) light the same table, each from its
 * own place: their light adds up on the felt.
 * Ownership: pjsim_create allocates *out, pjsim_destroy frees it (accepts
 * NULL); pjsim_capture allocates the photo (tt_image_free).
 */
#ifndef TT_PJSIM_H
#define TT_PJSIM_H

#include "calib.h"
#include "render.h"
#include "tt_image.h"

#define PJSIM_MAX_PJ 4

typedef struct pjsim_options {
    int cam_w, cam_h;       /* camera image, default 1280x960 */
    int pj_w, pj_h;         /* projector, default 1280x800 */
    double pj_eye[3];       /* projector position (x, y, height in), default (36, 30, 60) */
    double pj_target[2];    /* where it points, default (36, 24) */
    double pj_f;            /* projector focal length, px (default 1750: ~44" wide) */
    double pj_k1;           /* projector lens distortion (default 0) */
    double gamma;           /* projector gamma (default 2.2) */
    double black_level;     /* light at pattern value 0, fraction of white (default 0.04) */
    double gain;            /* light at pattern value 255, units of full white (default 1.0) */
    double ambient;         /* room light (default 0.5) */
    double gradient;        /* uneven room light (default 0.2) */
    double blur, noise;     /* camera blur sigma px (default 1.0), noise gray levels (default 2) */
    int supersample;        /* default 1 (the blur smooths) */
    unsigned seed;
    int projector_off;      /* 1: no projector light at all */
    /* raised terrain (borrowed; must outlive the sim): the renderer's
     * pieces, lit by the projector at their height (tops and sides) */
    const rnd_piece *pieces;
    int npieces;
    /* projectors after the first (issue 31): each at its own place and aim,
     * the first's size, focal length, lens, black level and gain; its gamma
     * (0: the first's) */
    int nmore;
    struct {
        double eye[3], target[2], gamma;
    } more[PJSIM_MAX_PJ - 1];
} pjsim_options;

void pjsim_options_default(pjsim_options *o);

/* One simulated projector. */
typedef struct pjsim_unit {
    rnd_camera cam;          /* the projector as a pinhole "camera" */
    double R[9];             /* its rotation, prepared once */
    double lut[1025];        /* pattern value 0..1 -> light, 1024 steps */
    const tt_image *pattern; /* while capturing (NULL: dark) */
} pjsim_unit;

typedef struct pjsim {
    pjsim_options o;
    int npj;                 /* 1 + o.nmore */
    pjsim_unit pj[PJSIM_MAX_PJ];
    rnd_tag tags[8];
    int ntags;
    rnd_scene scene;
    rnd_camera cam;
    rnd_camera proj;        /* the first projector as a pinhole "camera" (pj[0].cam) */
    char dir[64];
    char rig_path[128];
    calib_rig *rig;
    int frame;
} pjsim;

tt_status pjsim_create(const pjsim_options *o, pjsim **out, tt_err *err);
void pjsim_destroy(pjsim *s);

/* A flat-topped hill with vertical sides for pjsim_options.pieces: its top
 * a 16-gon inscribed in the ellipse (x, y, rx, ry), h inches up, light
 * gray.  p->pts (npts x y pairs, contiguous) is its outline as a scenario
 * declares it. */
void pjsim_flat_hill(rnd_piece *p, double x, double y, double rx, double ry, double h);

/* The camera photo of the table while the projector shows `pattern` (8-bit
 * gray at the projector's size; NULL = projector dark). */
tt_status pjsim_capture(pjsim *s, const tt_image *pattern, tt_image *out, tt_err *err);

/* The photo while projector k shows patterns[k] (NULL or a NULL entry:
 * that projector dark); patterns holds s->npj entries. */
tt_status pjsim_capture_n(pjsim *s, const tt_image *const *patterns, tt_image *out, tt_err *err);

/* Truth: table point on the felt -> projector pixel.  0 if behind. */
int pjsim_truth(const pjsim *s, double x, double y, double px[2]);
/* The same for projector k (0: the first). */
int pjsim_truth_k(const pjsim *s, int k, double x, double y, double height_in, double px[2]);
/* The same for a point at height_in above the felt. */
int pjsim_truth3(const pjsim *s, double x, double y, double height_in, double px[2]);

/* Every pattern photographed: caps[count] allocated (free with
 * pjsim_captures_free). */
tt_status pjsim_capture_all(pjsim *s, tt_image **caps, int *count, tt_err *err);
/* The same with projector k showing the patterns, the others dark (one
 * `calib projector` run per projector). */
tt_status pjsim_capture_all_k(pjsim *s, int k, tt_image **caps, int *count, tt_err *err);
void pjsim_captures_free(tt_image *caps, int count);

#endif
