/* render_internal.h - private to tests/render: the prepared camera, the
 * scene acceleration structure and the tag texture cache shared by the
 * renderer's source files.  Nothing outside tests/render includes it. */
#ifndef TT_RENDER_INTERNAL_H
#define TT_RENDER_INTERNAL_H

#include "render.h"

/* Albedos (0..255 at light 1) of what the renderer draws besides the felt,
 * the floor and the occluders. */
#define RND__PAPER_WHITE 235.0
#define RND__INK_BLACK 22.0
#define RND__BASE_TOP 60.0
#define RND__BASE_WALL 45.0

typedef struct rnd__cam {
    double fx, fy, cx, cy, skew;
    double k1, k2, p1, p2, k3;
    double R[9], t[3];
    double C[3]; /* camera centre, table frame (z = -height) */
} rnd__cam;

void rnd__rodrigues_to_mat(const double r[3], double R[9]);
void rnd__mat_to_rodrigues(const double R[9], double r[3]);
void rnd__cam_prepare(const rnd_camera *cam, rnd__cam *c);
void rnd__distort(const rnd__cam *c, double x, double y, double *xd, double *yd);
/* Exact inverse of rnd__distort (Newton, to ~1e-14 normalised units);
 * _from starts at *x, *y (a neighbouring solution). */
void rnd__undistort(const rnd__cam *c, double xd, double yd, double *x, double *y);
void rnd__undistort_from(const rnd__cam *c, double xd, double yd, double *x, double *y);
void rnd__pixel_to_normalised(const rnd__cam *c, double u, double v, double *xd, double *yd);
void rnd__ray_dir(const rnd__cam *c, double x, double y, double d[3]);
int rnd__project_prepared(const rnd__cam *c, double x, double y, double height_in, double px[2]);

/* Raised terrain (render_terrain.c).  Heights are up, above the felt. */
int rnd__poly_inside(const double (*pts)[2], int n, double x, double y); /* even-odd */
/* Distance from (x, y) to the polygon's outline; dir: unit vector from the
 * nearest outline point toward (x, y). */
double rnd__poly_dist(const double (*pts)[2], int n, double x, double y, double dir[2]);
/* One piece's height at (x, y) (0 off it) and its gradient g. */
double rnd__piece_height(const rnd_piece *p, double x, double y, double g[2]);
/* A tag's printed right and down axes and its normal, heights up (tilted
 * with the tag's slope). */
void rnd__tag_axes(const rnd_tag *tag, double r[3], double d[3], double n[3]);

/* Tag textures: total_width x total_width cells, 1 = white, 0 = black,
 * row 0 at the printed top.  Owned by the cache (process lifetime). */
typedef struct rnd__texture {
    int total_width, width_at_border;
    const uint8_t *cells;
} rnd__texture;

tt_status rnd__texture_get(const char *family, int id, rnd__texture *tex, tt_err *err);
/* Family geometry only (no texture): cells across the printed tag and the
 * detected square.  0 if the family is unknown. */
int rnd__family_widths(const char *family, int *total_width, int *width_at_border);

#endif
