/* pjsim.h - a simulated projector-camera rig with a known truth, for the
 * projector calibration and overlay tests: pattern image -> projector
 * (pinhole, optional lens distortion, gamma, black level) -> light on the
 * table -> the test scene renderer's camera (ambient light, blur, noise).
 *
 * The rig is a 72x48 table with 6 anchors (tests/render's standard rig), a
 * camera.yaml and rig.json in a temporary folder (removed by
 * pjsim_destroy).  The projector covers only the middle of the table.
 * Ownership: pjsim_create allocates *out, pjsim_destroy frees it (accepts
 * NULL); pjsim_capture allocates the photo (tt_image_free).
 */
#ifndef TT_PJSIM_H
#define TT_PJSIM_H

#include "calib.h"
#include "render.h"
#include "tt_image.h"

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
} pjsim_options;

void pjsim_options_default(pjsim_options *o);

typedef struct pjsim {
    pjsim_options o;
    rnd_tag tags[8];
    int ntags;
    rnd_scene scene;
    rnd_camera cam;
    rnd_camera proj;        /* the projector as a pinhole "camera" */
    char dir[64];
    char rig_path[128];
    calib_rig *rig;
    double R[9];            /* projector rotation, prepared once */
    double lut[1025];       /* pattern value 0..1 -> light, 1024 steps */
    const tt_image *pattern; /* while capturing */
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

/* Truth: table point on the felt -> projector pixel.  0 if behind. */
int pjsim_truth(const pjsim *s, double x, double y, double px[2]);
/* The same for a point at height_in above the felt. */
int pjsim_truth3(const pjsim *s, double x, double y, double height_in, double px[2]);

/* Every pattern photographed: caps[count] allocated (free with
 * pjsim_captures_free). */
tt_status pjsim_capture_all(pjsim *s, tt_image **caps, int *count, tt_err *err);
void pjsim_captures_free(tt_image *caps, int count);

#endif
