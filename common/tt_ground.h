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

#ifdef __cplusplus
}
#endif
#endif
