/* referee_int.h - the referee's state, shared by its files (referee.c:
 * phases; referee_moves.c: move checks; referee_calls.c: casualties and
 * the book's calls).  Private to referee/. */
#ifndef TT_REFEREE_INT_H
#define TT_REFEREE_INT_H

#include "referee.h"

/* One figure as the referee saw it. */
typedef struct referee__fig {
    const char *id, *side, *unit, *type, *formation; /* the scenario's */
    int unit_ix;           /* index into units, -1: in no unit */
    int side_ix;
    int known;             /* seen at least once */
    int present;           /* on the table now */
    double x, y, facing;   /* where it stands (last seen) */
    double err;            /* ... sure to this 95 % radius */
    int has_start;         /* where it stood when the step began: */
    double sx, sy, sfacing, serr;
    long moved_step;       /* the step it last moved in (0: none) */
    int moved_turn;        /* the turn it last moved in a step before this one (0: none) */
    int gone_step;         /* lifted during the current step */
    int dead;              /* counted a casualty */
} referee__fig;

typedef struct referee__unit {
    const char *name;
    int of;                /* figures at the start */
    int lost_total, lost_turn, lost_phase, lost_step;
    int alive_turn_start;  /* figures on the table when the turn began */
    int called_level;      /* lost_at thresholds already called */
    int called_turn;       /* the turn the last threshold was called in */
    int collapsed;
} referee__unit;

struct referee {
    rules_scenario *sc;
    const json_t *turns, *losses, *phases;
    size_t nphases;
    referee__fig *figs;
    size_t nfigs;
    referee__unit *units;
    size_t nunits;
    const char **sides;    /* the scenario's sides, in the order they first appear */
    size_t nsides;
    int turn;              /* 0: no phase set yet */
    int phase;             /* index into phases, -1: none */
    int side;              /* index into sides, -1: none (a phase both play) */
    int initiative;        /* the side with the initiative this turn */
    long step;             /* serial of the current side's phase or activation */
    int one_move_a_turn;
    const char *turns_src;
};

/* The phase's member `key` (a string) or NULL; its sides ("each",
 * "alternate", "none"); whether it has a true flag. */
const char *referee__phase_str(const referee *r, int phase, const char *key);
int referee__phase_flag(const referee *r, int phase, const char *key);
/* A profile value written bare or as {"value": V, "src": ...}. */
const json_t *referee__value(const json_t *v);
/* Append o to events (stealing the reference); NOMEM on failure. */
tt_status referee__emit(json_t *events, json_t *o, tt_err *err);

/* referee_calls.c: the end of the current step (casualties, then the
 * calls made at the end of an activation or, when phase_ends, of the
 * phase); the start of a turn (the units' counts since its start). */
tt_status referee__step_end(referee *r, int phase_ends, json_t *events, tt_err *err);
void referee__turn_start(referee *r);

/* referee_moves.c: figure f settled away from where it stood at the step's
 * start (or back on it): its check. */
tt_status referee__check(referee *r, size_t f, json_t *events, tt_err *err);

#endif
