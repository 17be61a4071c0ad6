/* rec_fixture.h - a small deterministic recorded game for the record tests:
 * a 72x48 table with a house, a wall and a wood; British gun, crew and
 * grenadiers against French line infantry; 20 s at 10 fps with moves, an
 * occlusion, a figure that leaves, events and three rules queries. */
#ifndef TT_REC_FIXTURE_H
#define TT_REC_FIXTURE_H

#include "rec.h"

#define FIX_FRAMES 200      /* frame i at t = i * FIX_DT_MS */
#define FIX_DT_MS 100

extern const char fixture_scenario_json[];
extern const char fixture_rig_json[];

/* Record one session of the game into path (mode as for rec_open). */
tt_status fixture_record(const char *path, rec_mode mode, tt_err *err);
/* The same game with heights: f1 and f2 stand on a 1.5" hill from 5 s
 * (their states' z_in, and a height event each). */
tt_status fixture_record_heights(const char *path, rec_mode mode, tt_err *err);
/* A second, still game (1 s, 3 frames) with three answers asked at 0.5 s:
 * the mortar's shot deviating, m1 charging f2 (too far), and m1 and m2
 * firing at f1 as a unit. */
tt_status fixture_record_shots(const char *path, tt_err *err);

/* Where the fixture puts tag `tag` at t_ms (without camera jitter);
 * returns 0 if the tag is not in the frame then.  state may be NULL. */
int fixture_pose(int tag, long long t_ms, double *x, double *y, double *facing, rec_state *state);

#endif
