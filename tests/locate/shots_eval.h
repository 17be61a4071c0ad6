/* shots_eval.h - issue 29 item 4, end to end: a rendered frame, its figures
 * located with their errors, and the same shots asked of the rules twice:
 * from the located positions (with rules_scenario_set_errors, as the live
 * table does) and from the true positions (exact).  Shared by bench_shots
 * (the figures) and test_shots (the ctest). */
#ifndef TT_SHOTS_EVAL_H
#define TT_SHOTS_EVAL_H

#include "locate_eval.h"

enum { SE_4K, SE_1080, SE_NRES };
enum { SE_FELT, SE_TOP, SE_SLOPE, SE_ROOF, SE_NCLASS };
extern const char *const se_res_name[SE_NRES];
extern const char *const se_class_name[SE_NCLASS];

typedef struct se_frame_opts {
    int res;        /* SE_4K (0.8" tags) or SE_1080 (1.1" tags) */
    int roof;       /* 1: a building with a flat 4" roof; 0: a 2" hill with 27-37 degree sides */
    int blur;       /* 1: blurrier and noisier than the rig's usual */
    int undeclared; /* 1: the scenario has no terrain; locate runs on flat felt (no ground) */
    unsigned seed;
    double max_in;  /* shots between figures whose true centres are closer than this */
} se_frame_opts;

/* One shot, asked twice. */
typedef struct se_shot {
    int from_id, to_id;           /* tag ids */
    int from_class, to_class;     /* SE_FELT... (where each truly stands) */
    double d_true, d_meas;        /* distance_in of each answer */
    double derr95;                /* the located answer's distance_err95_in */
    char b_true[8], b_meas[8];    /* bracket ("" when the shot was refused) */
    int vis_true, vis_meas;       /* visible */
    int close;                    /* too_close_to_call: 1, 0, or -1 when absent */
    int refused_meas_close;       /* a refusal of the located shot says "too close to call" */
    double from_err, to_err;      /* each figure's actual position error, inches */
    double from_e95, to_e95;      /* and its err95_in */
    double from_ze95, to_ze95;    /* its z_err95_in */
} se_shot;

/* Render one frame, locate it, ask every red -> blue shot whose true
 * centres are closer than o->max_in.  *shots (count *n) is malloc'd (free()).
 * found / seen: figures located / unoccluded base tags. */
tt_status se_frame_shots(const se_frame_opts *o, se_shot **shots, int *n, int *seen, int *found, tt_err *err);

#endif
