/* render.h - synthetic scene renderer for tests and benchmarks (C, no
 * OpenCV).  It draws what a camera above a wargames table would see, with a
 * known truth: a pinhole camera with radial/tangential distortion and tilt,
 * a felt table, anchor tags flat on the felt, base tags raised on their
 * bases, blur, noise, uneven light and occluders ("hands").
 *
 * Coordinates
 * - Table frame: inches, origin at a table corner, x along the width
 *   (0..width_in), y along the depth (0..depth_in) -- as in the rig file.
 *   Heights are given as `height_in` above the felt (>= 0).  Internally the
 *   3D frame is right-handed with z = -height (the camera is at negative z),
 *   which is the frame cv::solvePnP recovers from anchor corners at z = 0.
 * - rnd_camera.rvec/tvec map a 3D table point P = (x, y, -height) into the
 *   camera frame: Pc = R(rvec) * P + tvec (OpenCV's solvePnP convention).
 * - Pixels: OpenCV convention, the centre of pixel (0,0) is at (0,0).
 * - A tag's `facing_deg` is the direction from its centre to the midpoint of
 *   its printed top edge, atan2(dy, dx) in table coordinates.  An anchor
 *   printed with its top edge toward y = 0 has facing -90.
 * - A tag's `size_in` is the edge of the detected square (libapriltag's tag
 *   size: the black border of tag36h11 is 8 of its 10 cells); the printed
 *   tag including its white quiet border is larger.
 *
 * Rendering model (tests/render/README.md has more)
 * - Pixel value = albedo x (ambient x (1 - light_gradient x d) + light()),
 *   d = distance from the table corner (0, 0) over the table's diagonal.
 *   Albedos: printed paper 235, ink 22, base top 60, base side wall 45,
 *   felt_gray, floor_gray, occluder gray.  Circle-family corner cells are
 *   black, as apriltag_to_image draws them.
 * - Each pixel is the mean of supersample x supersample samples, one per
 *   stratum, offset so that all samples have distinct x and distinct y
 *   (edges along the pixel grid resolve to 1/supersample^2 px).  Every
 *   sample is undistorted exactly and takes the colour of the texture cell
 *   it hits; then blur, noise, rounding to 0..255.
 * - rnd_camera_look_at puts the principal point at ((w-1)/2, (h-1)/2).
 *
 * Ownership: the caller owns every struct passed in; rnd_render allocates
 * the output image (free with tt_image_free).  rnd_render is reentrant; tag
 * textures are cached process-wide (rnd_texture_cache_clear frees them).
 */
#ifndef TT_RENDER_H
#define TT_RENDER_H

#include <stdint.h>

#include "tt_image.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rnd_camera {
    int width, height;
    double K[9];     /* row-major camera matrix */
    double dist[5];  /* k1 k2 p1 p2 k3 (OpenCV order) */
    double rvec[3];  /* table -> camera rotation (Rodrigues) */
    double tvec[3];  /* table -> camera translation, inches */
} rnd_camera;

typedef struct rnd_tag {
    char family[24];       /* libapriltag family name, e.g. "tag36h11" */
    int id;
    double x, y;           /* centre, table inches */
    double height_in;      /* 0 for anchors on the felt; base height for figures */
    double size_in;        /* edge of the detected square */
    double facing_deg;     /* direction of the printed top edge */
    double base_radius_in; /* > 0: a round base of this radius (dark grey) under the tag, same height */
    double slope[2];       /* the ground's gradient (dh/dx, dh/dy) under a tag on a slope: the tag (and
                            * its base) tilt with it, height_in is its centre's; 0, 0 = level */
} rnd_tag;

/* A piece of raised terrain: a hill, a box or a building.  Its top is the
 * polygon pts at height_in; with slope_in = 0 its sides are vertical (a
 * building, a flat-topped hill, a box), with slope_in > 0 they fall
 * linearly to the felt over that distance outside the top's outline. */
#define RND_PIECE_MAX_PTS 16
typedef struct rnd_piece {
    double pts[RND_PIECE_MAX_PTS][2]; /* table inches, a simple polygon, either winding */
    int npts;                         /* 3..RND_PIECE_MAX_PTS */
    double height_in;                 /* > 0 */
    double slope_in;                  /* >= 0 */
    uint8_t gray;                     /* albedo of top and sides */
} rnd_piece;

/* An occluder: an opaque flat ellipse (e.g. a hand) at some height above the
 * felt.  It hides whatever is under it from the camera. */
typedef struct rnd_occluder {
    double x, y, height_in;
    double rx, ry, angle_deg;
    uint8_t gray;
} rnd_occluder;

/* Optional extra light falling on the table (e.g. a projector): called per
 * sample with the 3D table point hit (x, y, height_in); returns light to add
 * in units of full white (0..1+).  May be NULL.  When set, rnd_render runs
 * on one thread, so the callback need not be thread-safe (rnd_render_threads
 * uses all cores for a thread-safe one). */
typedef double (*rnd_light_fn)(double x, double y, double height_in, void *user);

typedef struct rnd_scene {
    double width_in, depth_in; /* table size; outside it is the dark floor */
    uint8_t felt_gray;         /* felt albedo, 0..255 (green felt ~ 90) */
    uint8_t floor_gray;        /* outside the table */
    const rnd_tag *tags;
    int ntags;
    const rnd_occluder *occluders;
    int noccluders;
    double light_gradient;     /* 0 = even light; 0.3 = 30% darker at the far corner */
    double ambient;            /* global light level multiplier, 1 = nominal */
    double blur_sigma_px;      /* Gaussian optical blur, pixels (0 = none) */
    double noise_sigma;        /* Gaussian sensor noise, gray levels */
    int supersample;           /* samples per pixel edge (1..8); 3 is good */
    unsigned seed;             /* noise seed; same seed, same image */
    rnd_light_fn light;        /* optional */
    void *light_user;
    const rnd_piece *pieces;   /* raised terrain, may be NULL */
    int npieces;
} rnd_scene;

/* Camera with focal length f_px, principal point at the image centre,
 * distortion k1, k2 (p1 = p2 = k3 = 0), placed at eye (x, y, height above the
 * felt, inches) looking at the table point (tx, ty) on the felt, with the
 * image's "up" pointing as close as possible to table -y. */
void rnd_camera_look_at(rnd_camera *cam, int width, int height, double f_px, double k1, double k2, double eye_x,
                        double eye_y, double eye_height_in, double tx, double ty);

/* The same, the image's "up" pointing as close as possible to the table
 * direction (up_x, up_y) instead of -y: a camera anywhere above the table,
 * looking anywhere, turned any way.  (0, -1) is rnd_camera_look_at. */
void rnd_camera_look_at_up(rnd_camera *cam, int width, int height, double f_px, double k1, double k2, double eye_x,
                           double eye_y, double eye_height_in, double tx, double ty, double up_x, double up_y);

/* Several cameras over one table (issue 31): ncams cameras looking straight
 * down on strips of the table side by side along x, camera k over the k-th
 * strip's middle, each turned so its image's short side (height) runs along
 * x and hung just high enough that its frame reaches overlap_in / 2 past
 * its strip on each side (with distortion k1, k2): neighbours overlap by
 * overlap_in (< 0: a gap of -overlap_in between their frames).  Returns 1,
 * or 0 on bad arguments. */
int rnd_cameras_side_by_side(rnd_camera *cams, int ncams, double width_in, double depth_in, double overlap_in,
                             int width, int height, double f_px, double k1, double k2);

/* Project a table point (x, y, height_in) into pixels with distortion.
 * Returns 0 if it is behind the camera. */
int rnd_project(const rnd_camera *cam, double x, double y, double height_in, double px[2]);

/* The four corners of a tag's detected square in table coordinates, in
 * libapriltag's order (bottom-left, bottom-right, top-right, top-left of
 * the printed tag). */
void rnd_tag_corners(const rnd_tag *tag, double corners[4][2]);

/* Render the scene into a new 8-bit gray image of cam->width x cam->height. */
tt_status rnd_render(const rnd_scene *scene, const rnd_camera *cam, tt_image *out, tt_err *err);

/* 1 if every sample of the tag's printed area (including its quiet border)
 * is inside the image and not hidden by an occluder (or by anything else
 * higher than the tag: another raised tag, base or base wall); else 0. */
int rnd_tag_unoccluded(const rnd_scene *scene, const rnd_camera *cam, const rnd_tag *tag);

/* Write a camera.yaml (OpenCV FileStorage YAML: image_width, image_height,
 * camera_matrix, distortion_coefficients) for cam. */
tt_status rnd_write_camera_yaml(const rnd_camera *cam, const char *path, tt_err *err);

/* A standard test rig: a 72x48 table, `nanchors` (4..8) tag36h11 anchors of
 * 2.4" with ids 0.. placed near the corners (and edge midpoints), flat on the
 * felt with top edge toward y = 0; `nbases` tag36h11 base tags of size_in
 * (ids 100..), height base_height_mm, random position and facing from seed,
 * never overlapping each other or the anchors.  Fills tags (caller provides
 * an array of nanchors + nbases) and returns the count. */
int rnd_standard_tags(rnd_tag *tags, int nanchors, int nbases, double size_in, double base_height_mm,
                      double width_in, double depth_in, unsigned seed);

/* Write rig.json for a scene: table size, "camera": camera_yaml_name, the
 * anchors (tags[0..nanchors-1]) and "bases" {families, size_in, height_mm}. */
tt_status rnd_write_rig(const char *path, const char *camera_yaml_name, const rnd_scene *scene, int nanchors,
                        double base_size_in, double base_height_mm, tt_err *err);

/* The same with several cameras: "cameras": [{"camera": names[0],
 * "source": sources[0]}, ...] in order (sources may be NULL, or hold NULL
 * entries: no "source"). */
tt_status rnd_write_rig_cameras(const char *path, const char *const *camera_yaml_names, const char *const *sources,
                                int ncams, const rnd_scene *scene, int nanchors, double base_size_in,
                                double base_height_mm, tt_err *err);

/* ---- Additions (beyond the original interface) ---- */

/* Inverse of rnd_project: the table point (xy) at height_in seen at pixel
 * (u, v), through the exact inverse of the distortion.  0 if the ray does
 * not reach that plane in front of the camera. */
int rnd_unproject(const rnd_camera *cam, double u, double v, double height_in, double xy[2]);

/* rnd_render on nthreads threads (<= 0: all cores, or TT_RENDER_THREADS)
 * even when scene->light is set: the callback must then be thread-safe
 * (a pure function of its arguments and read-only user data). */
tt_status rnd_render_threads(const rnd_scene *scene, const rnd_camera *cam, int nthreads, tt_image *out,
                             tt_err *err);

/* Base radius rnd_standard_tags gives a base tag of size_in. */
double rnd_standard_base_radius(double size_in);

/* Write truth.json: {"figures": [{family, id, x, y, facing_deg, unoccluded,
 * size_in, height_in}] for tags[nanchors..], "anchors": [...] likewise,
 * "camera": {rvec, tvec}}. */
tt_status rnd_write_truth(const char *path, const rnd_scene *scene, const rnd_camera *cam, int nanchors,
                          tt_err *err);

/* Family names the renderer knows (", "-separated) and a family's number of
 * ids (0 if unknown). */
const char *rnd_family_list(void);
int rnd_family_ncodes(const char *family);

/* ---- Raised terrain ---- */

/* Height above the felt of the ground at (x, y): the highest piece there, 0
 * on the felt. */
double rnd_ground_height(const rnd_scene *sc, double x, double y);
/* The same, and that piece's gradient (dh/dx, dh/dy) in g: 0 on a top or
 * on the felt. */
double rnd_ground_gradient(const rnd_scene *sc, double x, double y, double g[2]);

/* Stand a figure on the ground with its base's centre at the tag's (x, y):
 * the tag is base_height_in above the ground along the ground's normal
 * (so on a slope its x, y move uphill-to-downhill by base_height_in times
 * the normal's horizontal part), slope = the ground's gradient (the tag
 * tilts on a hill's sloped side). */
void rnd_place_on_ground(const rnd_scene *sc, rnd_tag *tag, double base_height_in);
/* Where the base of a tag placed by rnd_place_on_ground stands (its
 * centre on the ground): the figure's true position. */
void rnd_tag_base_xy(const rnd_tag *tag, double base_height_in, double xy[2]);

/* A tag's corners in 3D, (x, y, height_in), in rnd_tag_corners's order;
 * a tilted tag's corners are not at its centre's height. */
void rnd_tag_corners3(const rnd_tag *tag, double corners[4][3]);

/* Tag textures are cached for the life of the process; this frees them.
 * Call only when no rnd_render is running. */
void rnd_texture_cache_clear(void);

/* Deterministic random numbers for scene generation (xorshift64*). */
uint64_t rnd_rng_seed(unsigned seed);
double rnd_rng_uniform(uint64_t *state); /* [0, 1) */

#ifdef __cplusplus
}
#endif
#endif
