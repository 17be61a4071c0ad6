/* table_look.h - what each answer looks like: one answer of the rules
 * (table_scene_ask) -> primitives in table inches with their roles (ring,
 * line of sight, blocked, range bands, blast, label, ...), added to an
 * overlay_list.  Every answer kind is described once, in table_look.c, for
 * every picture that shows answers: the projector's frames and the
 * on-camera view draw the list through overlay/; table_look_json gives the
 * same primitives as JSON (docs/api.md, "What an answer looks like") for
 * drawings outside C.
 *
 * Ownership: the scene and the answer are borrowed; the JSON is the
 * caller's (json_decref). */
#ifndef TT_TABLE_LOOK_H
#define TT_TABLE_LOOK_H

#include <jansson.h>

#include "overlay.h"
#include "table_scene.h"
#include "tt_status.h"

/* Line and text sizes of the answers, inches. */
#define TABLE_LINE_IN 0.08
#define TABLE_THIN_IN 0.05
#define TABLE_TEXT_IN 0.4

/* Add what answer a means to l (its figures where the scene has them now);
 * with the scene's cite on, the rule it comes from under the asker. */
tt_status table_look_add(const table_scene *s, const table_answer *a, overlay_list *l, tt_err *err);

/* The same primitives as a JSON array (overlay_list_to_json's format). */
tt_status table_look_json(const table_scene *s, const table_answer *a, json_t **out, tt_err *err);

/* ---- the referee's events (docs/playing.md, "The referee") ----
 * What the referee says looks like this on the felt, for every picture:
 *  - a move_check or charge_check: the path from where the figure stood
 *    when the phase began to where it settled (its arrow head at the
 *    figure's ring, clear of its tag), and beside the path (where they
 *    stand clearest of the figures)
 *    `5.2" of 4"`; over: vermillion ("blocked") and dashed, with how far
 *    over (`5.2" of 4" · 1.2" over`; the allowance as the book writes it,
 *    4" or 4.5"); too close to call: yellow, dashed;
 *    dice to roll: white, with the roll it needs; fair: sky blue.  A put
 *    back adds nothing (its check is cleared);
 *  - an out_of_turn: the figure (where the scene stands it) ringed,
 *    dashed, "out of turn";
 *  - a morale call: its unit labelled above its figures (the call, its
 *    dice and score, the result);
 *  - other events add nothing.
 * A malformed event adds nothing either: these are the referee's own. */
tt_status table_look_event(const table_scene *s, const json_t *event, overlay_list *l, tt_err *err);
/* The same primitives as a JSON array (overlay_list_to_json's format). */
tt_status table_look_event_json(const table_scene *s, const json_t *event, json_t **out, tt_err *err);

/* The words on the felt: a check (`5.2" of 4" · 1.2" over`), a call
 * (`la-sarre: morale 2d6 6+`), where the game stands (`Turn 3 ·
 * British · movement`, "" for null), into buf (n bytes, UTF-8). */
void table_look_check_words(const json_t *event, char *buf, size_t n);
void table_look_call_words(const json_t *event, char *buf, size_t n);
void table_look_phase_words(const json_t *phase, char *buf, size_t n);

/* Cap height of where the game stands, inches: small, in a corner. */
#define TABLE_PHASE_TEXT_IN 0.3

/* Where the game stands ({"turn","phase","side"}; null adds nothing),
 * small and white, its right end at (x_right, y) table inches: the caller
 * picks the corner, clear of the anchors. */
tt_status table_look_phase(const json_t *phase, double x_right, double y, overlay_list *l, tt_err *err);

/* ---- What the felt keeps (table_look_kept.c) ----
 * The referee's events come in batches (a frame's, a phase set by hand),
 * and the felt keeps showing: this phase's checks (each figure's last
 * move_check, charge_check or out_of_turn; a put back clears its figure's;
 * a new phase clears them all), this turn's casualties and morale calls (a
 * batch that begins a new turn drops the calls of earlier batches, not its
 * own: the calls that ended the last turn stay with it), and where the game
 * stands (the last phase event).  A check's words are placed when it
 * comes, clear of the figures then and of the words already on the felt (a
 * unit's paths side by side would stack them), and stay there.  The live
 * table and the replay keep them alike.
 * Ownership: the keeper holds references to the events it keeps; the
 * arrays and the phase it gives are borrowed until its next take. */
typedef struct table_look_kept table_look_kept;
tt_status table_look_kept_create(table_look_kept **out, tt_err *err);
void table_look_kept_destroy(table_look_kept *k);
/* Take one batch (a JSON array of the referee's events, in order), its
 * checks' words placed on the scene s as it is now (NULL: placed each time
 * they are drawn): 1 when it held any event (the felt is to be drawn
 * again), else 0. */
int table_look_kept_take(table_look_kept *k, const table_scene *s, const json_t *events);
const json_t *table_look_kept_checks(const table_look_kept *k);
const json_t *table_look_kept_calls(const table_look_kept *k);
/* The last phase event ({"event":"phase","turn","phase","side"}), or NULL. */
const json_t *table_look_kept_phase(const table_look_kept *k);
/* The checks, then the calls, as table_look_event draws them (a check's
 * words where they were placed), into l. */
tt_status table_look_kept_add(const table_scene *s, const table_look_kept *k, overlay_list *l, tt_err *err);
/* Each kept event's own primitives as table_look_kept_add draws them, in
 * JSON (overlay_list_to_json's format): *checks and *calls (the caller's)
 * parallel to table_look_kept_checks and table_look_kept_calls. */
tt_status table_look_kept_looks(const table_scene *s, const table_look_kept *k, json_t **checks, json_t **calls,
                                tt_err *err);
/* The same for the one kept event ev (the very object taken): *out (the
 * caller's), or NULL when ev is not kept. */
tt_status table_look_kept_look(const table_scene *s, const table_look_kept *k, const json_t *ev, json_t **out,
                               tt_err *err);

#endif
