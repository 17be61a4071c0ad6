/* referee.h - the referee that watches: where the game stands (turn,
 * phase, side, as the ruleset's profile orders them), every move checked
 * when a figure settles, casualties counted per unit when a phase ends,
 * and the tests and results the book calls from losses.
 *
 * Pure C, no I/O; asks the rules engine through rules/rules.h only (the
 * same 'move' and 'charge' questions players ask).  See docs/playing.md,
 * "The referee", and docs/api.md for the events.
 *
 * Ownership:
 *  - referee_create borrows the scenario: it must outlive the referee.
 *    While the referee answers (referee_settled) it stands the figure at
 *    its phase-start position to ask, then at the position it settled on;
 *    it changes nothing else.  Neither is safe for concurrent use.
 *  - `events` is a JSON array the caller owns; each call appends the event
 *    objects it makes (possibly none), in order.
 *  - Strings returned point into the referee or the scenario: valid until
 *    the next call that changes the phase, or the referee's destroy. */
#ifndef TT_REFEREE_H
#define TT_REFEREE_H

#include <jansson.h>

#include "rules.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct referee referee;

/* How far (inches) from where it stood when the phase began a figure may
 * settle and count as put back (the tracker's noise is well under it). */
#define REFEREE_PUT_BACK_IN 0.2

/* A referee for the scenario's game.  Fails (TT_ERR_FORMAT) when its
 * ruleset's profile has no "turns".  *out NULL on failure. */
tt_status referee_create(rules_scenario *sc, referee **out, tt_err *err);
void referee_destroy(referee *r);

/* Set where the game stands: turn T (0: the current one, 1 before any),
 * phase P (the profile's name), side S (the scenario's; NULL only for a
 * phase both sides play at once, where any side is ignored).  The side
 * named when a turn's first phase is set has the initiative that turn.
 * Ends the current phase first (casualties, calls), then appends
 * {"event":"phase","turn":T,"phase":P,"side":S}.  A phase or side the
 * profile or scenario does not know is TT_ERR_UNKNOWN, naming the choices;
 * a turn below the current one TT_ERR_ARG.  Setting where the game
 * already stands changes nothing. */
tt_status referee_set(referee *r, int turn, const char *phase, const char *side, json_t *events, tt_err *err);

/* Step to the book's next phase, side or turn: in a phase each side plays
 * in turn ("each"), the next side (initiative first), then the next phase;
 * in one where the sides alternate activations ("alternate"), the other
 * side, staying in the phase (set the next phase by name when all have
 * acted); after the last phase, the first of the next turn with the same
 * initiative.  TT_ERR_ARG before any phase is set. */
tt_status referee_next(referee *r, json_t *events, tt_err *err);

/* Where referee_next would go, changing nothing: 0 (and 0, NULLs) before
 * any phase is set, else 1 with the turn, phase and side (NULL in a phase
 * both sides play at once) it would set.  A turn above referee_turn's is a
 * new turn, whose initiative the players roll for (referee_set names the
 * side that won it). */
int referee_peek_next(const referee *r, int *turn, const char **phase, const char **side);

/* The scenario's sides, in the order they first appear (the choices a
 * side is picked from); NULL past the last. */
size_t referee_side_count(const referee *r);
const char *referee_side_name(const referee *r, size_t i);

/* Where the game stands: turn 0 and NULLs until a phase is set; side NULL
 * in a phase both sides play at once. */
int referee_turn(const referee *r);
const char *referee_phase(const referee *r);
const char *referee_side(const referee *r);

/* Figure `id` settled at (x, y) facing facing_deg, table inches, its
 * position sure to err95_in (a 95 % radius, the tracker's; 0: exact) (the
 * first time a figure is seen, where it stands).  When a phase is set and
 * it stands away from where it stood when the phase began, appends one of:
 * {"event":"out_of_turn","id","rule"} (moving outside its side's phase, a
 * second move in a turn where the book allows one, an immobile formation),
 * {"event":"charge_check", ...} (in base contact with an enemy in a phase
 * where charges happen: the 'charge' answer's fields) or
 * {"event":"move_check","id","from","to","distance_in","allowed_in","ok",
 * "too_close_to_call","rule"} (with allowed_range_in and needs_roll where
 * dice decide); put back where it stood, a move_check that clears it
 * ("put_back": true).  The move is asked with the figure's error the
 * errors of its two positions together (sqrt(e_start^2 + e_now^2)), so the
 * answer's too_close_to_call says whether those errors could decide it
 * otherwise (false for exact positions).  A figure seen again after being lifted is not a
 * casualty.  Unknown id: TT_ERR_UNKNOWN. */
tt_status referee_settled(referee *r, const char *id, double x, double y, double facing_deg, double err95_in,
                          json_t *events, tt_err *err);

/* Figure `id` was taken off the table.  Still gone when the phase ends, it
 * is a casualty of its unit.  Unknown id: TT_ERR_UNKNOWN. */
tt_status referee_lifted(referee *r, const char *id, tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
