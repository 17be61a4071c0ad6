/* projector.h - projector calibration: the map from table inches to
 * projector pixels (projector.json), the structured-light patterns that
 * measure it, and the solver that turns camera photos of those patterns
 * into the map.  No rules, no drawing.
 *
 * The map is a homography table (x, y, 1) -> projector pixels ("plane":
 * exact on the felt only), or a 3D pinhole P (x, y, height_in, 1) ->
 * projector pixels ("pinhole": exact at any height above the felt; its
 * homography is P at height 0), plus an optional correction grid: projector-pixel offsets sampled on a regular
 * grid in table inches and interpolated bilinearly, for projector lens
 * distortion or a mat that is not flat.  Under a pinhole the grid is looked
 * up where the projector pixel's ray meets the felt (it follows the lens,
 * not the table point).  Pixels follow OpenCV's convention
 * (the centre of projector pixel (0,0) is at (0,0)).
 *
 * Patterns (see docs/setup.md, "Calibrating the projector"): black, white, Gray-code stripes in x
 * and y down to 8-pixel cells, and phase-shifted sinusoids (period 32 px, 6
 * steps) in x and y for sub-pixel precision.  Each pattern has a file name
 * carrying the projector resolution, e.g. "pj-1920x1080-07-gray-x5.png"; the
 * camera photo of a pattern is stored under the same name.
 */
#ifndef TT_CALIB_PROJECTOR_H
#define TT_CALIB_PROJECTOR_H

#include "calib.h"
#include "tt_image.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the map (projector.json) ----------------------------------------- */

typedef struct calib_projector calib_projector;

/* Largest accepted projector resolution (either side). */
#define CALIB_PROJECTOR_MAX_SIDE 16384

/* A map from a plain homography (row-major, table inches -> projector px).
 * *out is owned by the caller: calib_projector_destroy (accepts NULL). */
tt_status calib_projector_create(int width, int height, const double H[9], calib_projector **out, tt_err *err);
void calib_projector_destroy(calib_projector *pj);

/* A 3D map from a 3x4 projection P (row-major): table point (x, y,
 * height_in above the felt, 1) -> projector pixels.  *out owned by the
 * caller (calib_projector_destroy). */
tt_status calib_projector_create_pinhole(int width, int height, const double P[12], calib_projector **out,
                                         tt_err *err);
/* 1 when the map is a 3D pinhole (then calib_projector_pinhole fills P and
 * returns 1), 0 for a plane-only map. */
int calib_projector_is_3d(const calib_projector *pj);
int calib_projector_pinhole(const calib_projector *pj, double P[12]);

/* Load projector.json.  JSON errors carry line and column; missing or
 * malformed fields are named.  *out owned by the caller.  Format: width,
 * height, table_to_projector (3 rows of 3), optional correction grid; a 3D
 * projector adds "model": "pinhole" and "P" (3 rows of 4); "table" records
 * the table it was made on (see calib_projector_check_rig).  Files without
 * "P" (written before the 3D model) load as plane-only maps. */
tt_status calib_projector_load(const char *path, calib_projector **out, tt_err *err);

/* Write projector.json (temporary file + rename: never half-written). */
tt_status calib_projector_save(const calib_projector *pj, const char *path, tt_err *err);

/* The table the map was calibrated on ("table": {"width_in", "depth_in"} in
 * projector.json; `calib projector` records the rig's).  A map made for
 * one table draws in the wrong places over another, so the programs that
 * use a map with a rig check it: calib_projector_check_rig is TT_OK when
 * the sizes agree within CALIB_PROJECTOR_TABLE_TOL_IN or the file has no
 * record (written before it was kept), else TT_ERR_MISMATCH naming both
 * tables and what to do.  calib_projector_table returns 0 when there is no
 * record.  set_table with a size that is not positive forgets it. */
#define CALIB_PROJECTOR_TABLE_TOL_IN 0.5
void calib_projector_set_table(calib_projector *pj, double width_in, double depth_in);
int calib_projector_table(const calib_projector *pj, double *width_in, double *depth_in);
tt_status calib_projector_check_rig(const calib_projector *pj, const calib_rig *rig, const char *path, tt_err *err);

/* The projector's gamma: the light it gives for pixel value v is
 * (v/255)^gamma of its white.  Where several projectors light the felt
 * together, their ramps must add up in light, not in pixel values
 * (overlay_seam).  "gamma" in projector.json when it was measured (from
 * CALIB_PROJECTOR_GAMMA_MIN to _MAX; *measured = 1), else
 * CALIB_PROJECTOR_GAMMA_DEFAULT (*measured = 0; measured may be NULL).
 * set_gamma: 0 forgets it; returns 0 (and changes nothing) for a value out
 * of range. */
#define CALIB_PROJECTOR_GAMMA_DEFAULT 2.2
#define CALIB_PROJECTOR_GAMMA_MIN 1.0
#define CALIB_PROJECTOR_GAMMA_MAX 4.0
double calib_projector_gamma(const calib_projector *pj, int *measured);
int calib_projector_set_gamma(calib_projector *pj, double gamma);

void calib_projector_size(const calib_projector *pj, int *width, int *height);
void calib_projector_homography(const calib_projector *pj, double H[9]);

/* Attach a correction grid: nx*ny nodes (row-major, y rows) at
 * (x0 + i*step_in, y0 + j*step_in), offsets in projector pixels added after
 * the homography.  The arrays are copied.  nx, ny >= 2. */
tt_status calib_projector_set_grid(calib_projector *pj, double x0, double y0, double step_in, int nx, int ny,
                                   const double *dx, const double *dy, tt_err *err);
int calib_projector_has_grid(const calib_projector *pj);

/* Residuals recorded by the solver (negative when unknown). */
void calib_projector_set_residual(calib_projector *pj, double rms_px, double rms_in, int npoints);
void calib_projector_residual(const calib_projector *pj, double *rms_px, double *rms_in, int *npoints);

/* Table inches (n*2) -> projector pixels (n*2).  in and out may alias.
 * Points behind the projector's horizon give NaN. */
void calib_projector_map(const calib_projector *pj, const double *xy, int n, double *px);

/* Table points with heights (n*3: x, y, height_in above the felt) ->
 * projector pixels (n*2).  A plane-only map ignores the height (what it
 * draws on raised terrain lands where the felt would be).  NaN as above. */
void calib_projector_map3(const calib_projector *pj, const double *xyz, int n, double *px);

/* Projector pixel -> table inches through the homography only (no grid;
 * for diagnostics).  Returns 0 if the pixel's ray misses the table plane. */
int calib_projector_unmap(const calib_projector *pj, double u, double v, double xy[2]);

/* ---- patterns --------------------------------------------------------- */

#define CALIB_PROJECTOR_CELL_PX 8    /* Gray code resolves 8-pixel cells */
#define CALIB_PROJECTOR_PERIOD_PX 32 /* sinusoid period */
#define CALIB_PROJECTOR_PHASE_STEPS 6

typedef enum calib_projector_pattern_kind {
    CALIB_PJ_BLACK,
    CALIB_PJ_WHITE,
    CALIB_PJ_GRAY_X, /* Gray-code bit of the column cell (bit 0 = most significant) */
    CALIB_PJ_GRAY_Y,
    CALIB_PJ_PHASE_X, /* sinusoid along x, step k */
    CALIB_PJ_PHASE_Y
} calib_projector_pattern_kind;

typedef struct calib_projector_pattern {
    calib_projector_pattern_kind kind;
    int index;      /* bit or step */
    char name[96];  /* file name, e.g. "pj-1920x1080-07-gray-x5.png" */
} calib_projector_pattern;

/* Number of patterns for a width x height projector (0 if the size is not
 * valid: 64..CALIB_PROJECTOR_MAX_SIDE each side). */
int calib_projector_pattern_count(int width, int height);

/* Describe pattern i (0 <= i < count). */
tt_status calib_projector_pattern_info(int width, int height, int i, calib_projector_pattern *info, tt_err *err);

/* Render pattern i into a new 8-bit gray image of width x height (free with
 * tt_image_free). */
tt_status calib_projector_pattern_render(int width, int height, int i, tt_image *out, tt_err *err);

/* Parse a pattern file name: fills width, height and the pattern index.
 * Returns 1 if name is one of ours, else 0. */
int calib_projector_pattern_parse(const char *name, int *width, int *height, int *index);

/* ---- solving ---------------------------------------------------------- */

/* A raised flat-topped surface the projector lights during calibration (a
 * hill, or a box of known height): its outline on the table and the height
 * of its top.  Borrowed: the caller keeps id and xy alive during the
 * solve. */
typedef struct calib_projector_surface {
    const char *id;   /* named in messages (the scenario's piece id) */
    const double *xy; /* outline, n corners (x y pairs, table inches) */
    int n;            /* >= 3 */
    double height_in; /* > 0 */
} calib_projector_surface;

typedef struct calib_projector_opts {
    int step_px;          /* use every step-th camera pixel in x and y (default 2) */
    double min_contrast;  /* white - black, gray levels, for a usable pixel (default 12) */
    int min_points;       /* fewer decoded pixels -> "pattern not visible" (default 2000) */
    int correction_grid;  /* 1 = fit a correction grid when it helps (default 1) */
    double grid_step_in;  /* grid spacing, inches (default 3) */
    /* raised surfaces (NULL/0 = none: a plane-only map).  With any, the
     * projector is solved as a 3D pinhole from the pixels on the felt and on
     * their tops; each must be seen lit (else TT_ERR_MISMATCH naming it). */
    const calib_projector_surface *surfaces;
    int nsurfaces;
    double trim_in;        /* drop pixels this close to a surface's edge: walls, shadows (default 0.5) */
    int min_surface_points; /* decoded pixels a surface's top needs to count as lit (default 200) */
} calib_projector_opts;

void calib_projector_opts_default(calib_projector_opts *opts);

typedef struct calib_projector_report {
    int anchors_used;      /* anchors in the pose */
    double pose_rms_px;    /* camera reprojection RMS of the anchors */
    int decoded;           /* camera pixels decoded */
    int inliers;           /* used in the final fit */
    double rms_px;         /* residual, projector pixels */
    double rms_in;         /* residual, table inches */
    double max_px;         /* largest inlier residual, projector pixels */
    double covered[4];     /* table area lit: xmin, ymin, xmax, ymax (inches) */
    int grid_used;         /* 1 if a correction grid was kept */
    double rms_px_homography; /* residual before the grid */
    int pinhole;           /* 1 if solved as a 3D pinhole */
    int raised;            /* inliers on raised surfaces */
    double rms_px_raised;  /* residual of those, projector pixels */
} calib_projector_report;

/* Solve the map from one camera photo per pattern (caps[i] is the photo of
 * pattern i, 8-bit gray, all the rig camera's size).  The camera pose comes
 * from the rig's anchors seen in the black or white photo.  Errors: photos
 * of the wrong size (TT_ERR_MISMATCH), anchors not seen (TT_ERR_ANCHORS),
 * patterns not visible (TT_ERR_MISMATCH with a hint: projector off or not
 * on the table, or room too bright).  *out owned by the caller; report may
 * be NULL. */
tt_status calib_projector_solve(const calib_rig *rig, int width, int height, const tt_image *caps, int ncaps,
                                const calib_projector_opts *opts, calib_projector **out,
                                calib_projector_report *report, tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
