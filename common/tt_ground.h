/* tt_ground.h - the height of the ground under a table point, for the stages
 * that must know where raised terrain lifts things: calib (a tag stands at
 * the height of what it stands on) and overlay (a mark lands on the surface
 * under it).  Neither knows rules: whoever knows the terrain (the CLI, the
 * live game, from a scenario's pieces that raise) hands them this callback.
 *
 * Ownership: a tt_ground is a plain value; `user` is borrowed and must
 * outlive every call.  A NULL tt_ground, or one without height_at, is flat
 * felt everywhere.
 */
#ifndef TT_GROUND_H
#define TT_GROUND_H

#ifdef __cplusplus
extern "C" {
#endif

/* Height above the felt, inches, of the ground at table point (x, y): 0 on
 * the felt; never negative, NaN or Inf. */
typedef double (*tt_ground_fn)(const void *user, double x, double y);

typedef struct tt_ground {
    tt_ground_fn height_at;
    const void *user;
} tt_ground;

static inline double tt_ground_height(const tt_ground *g, double x, double y)
{
    return g && g->height_at ? g->height_at(g->user, x, y) : 0.0;
}

/* The ground's gradient (dh/dx, dh/dy) at (x, y), by central differences
 * over TT_GROUND_GRAD_STEP_IN: 0 on flat ground and on a flat top, the side
 * plane's slope on a hill's sloped side (see a scenario piece's slope_in),
 * the mean of the two planes astride a hip or an edge.  Always finite. */
#define TT_GROUND_GRAD_STEP_IN 0.01
static inline void tt_ground_gradient(const tt_ground *g, double x, double y, double *dhdx, double *dhdy)
{
    const double h = TT_GROUND_GRAD_STEP_IN;
    *dhdx = (tt_ground_height(g, x + h, y) - tt_ground_height(g, x - h, y)) / (2.0 * h);
    *dhdy = (tt_ground_height(g, x, y + h) - tt_ground_height(g, x, y - h)) / (2.0 * h);
}

#ifdef __cplusplus
}
#endif
#endif
