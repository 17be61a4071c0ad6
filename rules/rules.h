/* rules.h - the rules engine: exact table geometry (line of sight, ranges,
 * grape arcs, cannonball lines, blasts, command radius, aspect, visibility,
 * movement) for miniature wargames, driven by JSON rule-set profiles.
 *
 * Units are table inches in the table frame (origin at a table corner, x
 * along the width, y along the depth); angles in degrees, facing as in
 * docs/architecture.md.  Internally every coordinate is rounded once to
 * 1/10000" and all geometric decisions use exact integer predicates, so ties
 * are always decided the same way (see docs/rules.md, "Conventions").
 *
 * Ownership:
 *  - rules_scenario_* handles are opaque, made by _load/_from_json and freed
 *    by rules_scenario_destroy (accepts NULL).  A scenario owns its profile,
 *    terrain and figures.  A scenario is not safe for concurrent queries
 *    (it keeps scratch memory); use one per thread.
 *  - rules_result is filled by a query; the caller owns it and releases it
 *    with rules_result_free.  Id strings in a result point into the
 *    scenario: they stay valid while the scenario lives.
 *  - json_t values returned by functions here are owned by the caller.
 */
#ifndef TT_RULES_H
#define TT_RULES_H

#include <stddef.h>
#include <jansson.h>

#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rules_scenario rules_scenario;

typedef struct rules_point {
    double x, y; /* inches */
} rules_point;

/* The kinds of query, written once: X(KIND, name, help) for each, in
 * this order.  KIND makes the answer's kind RULES_Q_KIND; name is the
 * query's "q"; help says in a line what it answers.  rules_query
 * dispatches on this list (query.c asks rules__ask_<name>), its error for
 * an unknown or missing "q" lists its names, and `tabletrack help rules`
 * prints it. */
#define RULES_QUERY_KINDS(X)                                                                                           \
    X(LOS, los, "whether figure \"from\" sees figure \"to\", or what blocks the line")                                 \
    X(FIRE, fire, "a shot of \"from\" at \"to\" (figures or units): range, cover, to-hit, dice")                       \
    X(GRAPE, grape, "who is in the grape arc of gun \"from\"; its score and dice, if any")                             \
    X(BALL, ball, "the figures a roundshot of \"from\" at \"to\" (a figure) or \"at\" touches")                        \
    X(BLAST, blast, "the figures a blast at point \"at\" hits (\"radius_in\", or a \"weapon\")")                       \
    X(COMMAND, command, "the units of its side within the command radius of \"from\"")                                 \
    X(ASPECT, aspect, "whether \"from\" stands to the front, flank or rear of \"to\"")                                 \
    X(VISIBILITY, visibility, "the area figure \"from\" can see, as a polygon")                                        \
    X(MOVE, move, "a straight move of \"from\" to point \"to\": its allowance, is it within")                          \
    X(DEVIATE, deviate, "where a shot of \"from\" at \"at\" lands, by the \"dice\"; whom it hits")                     \
    X(CHARGE, charge, "a charge of \"from\" at \"to\": does it reach; the melee it starts")

typedef enum rules_query_kind {
#define RULES_QUERY_KIND_ENUM(KIND, name, help) RULES_Q_##KIND,
    RULES_QUERY_KINDS(RULES_QUERY_KIND_ENUM)
#undef RULES_QUERY_KIND_ENUM
} rules_query_kind;

/* "Not known / not allowed" value of the tri-state and integer fields. */
#define RULES_NULL (-1)

/* One modifier of a shot: the rulebook's dice modifier (-1 makes the shot
 * harder) and why, e.g. {-1, "soft cover: hedge1"}. */
#define RULES_MAX_MODIFIERS 8
typedef struct rules_modifier {
    int value;
    char reason[96];
} rules_modifier;

/* The answer to one query, with the geometry the overlay draws.  Which
 * fields are meaningful depends on `kind` (see each query below). */
typedef struct rules_result {
    rules_query_kind kind;

    /* los, fire */
    int visible;              /* 1 / 0 */
    const char *blocked_by;   /* id of the terrain piece or figure, or NULL */
    /* fire, move */
    double distance_in;
    /* fire */
    const char *bracket;      /* "short" "medium" "long" "out" */
    const char *cover;        /* "none" "soft" "hard" */
    int to_hit;               /* score needed on `die` after every modifier, RULES_NULL if not allowed */
    const char *die;          /* "d6" or "d12" */
    rules_modifier modifiers[RULES_MAX_MODIFIERS];
    int n_modifiers;
    int dice;                 /* dice the shot rolls where the rules fix it, RULES_NULL otherwise
                                 (a unit's fire: the dice of all its firers) */
    /* fire from or at a unit: `unit` 1, the figures that can fire (firers,
     * scenario order), the target figures they can fire at in `ids`
     * (nearest first); the other fire fields describe the nearest shot */
    int unit;
    const char **firers;
    size_t n_firers;
    /* each firer's shot, aligned with firers: the nearest target it can
     * fire at and the range bracket of that shot (for drawing every line) */
    const char **shot_to, **shot_bracket;
    /* ball: a shot at every figure touched (n_shots, aligned with ids):
     * shot_to, shot_bracket and the score it needs, RULES_NULL where none */
    int *shot_hit;
    size_t n_shots;
    /* bonus dice the defender adds (e.g. {2, "soft cover: hedge1"}); only
     * in rulesets whose cover gives dice (has_defence_dice) */
    rules_modifier defence_dice[RULES_MAX_MODIFIERS];
    int n_defence_dice, has_defence_dice;
    /* in those rulesets: the attacker's bonus dice (flank, rear, high
     * ground...), counted in `dice`; the dice the defender rolls in all (its
     * own and its bonus dice) and the score each needs, RULES_NULL where no
     * roll is made or the book does not fix them */
    rules_modifier bonus_dice[RULES_MAX_MODIFIERS];
    int n_bonus_dice;
    int defender_dice, defender_to_hit;
    /* every answer that has one: where in the rulebook it comes from */
    const char *rule;
    char *rule_owned;         /* `rule` when it was composed for this answer (freed with it) */
    /* grape (targets), ball (touched, in flight order), blast (hit),
     * command (units), move (crossed): sorted except for ball */
    const char **ids;
    size_t n_ids;
    /* command in rulesets that count each figure (per_figure 1): the
     * figures of the units the asker may command, other than itself,
     * within and beyond the radius (sorted) */
    int per_figure;
    const char **fig_in, **fig_out;
    size_t n_fig_in, n_fig_out;
    /* aspect */
    const char *aspect;       /* "front" "flank" "rear" */
    /* deviate: the kind of ammunition fired, NULL where the weapon has one */
    const char *ammo;
    /* move */
    double allowed_in;        /* valid when allowed_known */
    int allowed_known;        /* 0 where dice decide */
    int has_allowed_range;    /* dice decide and no roll given: */
    double allowed_range_in[2]; /* the allowance of the lowest and the highest roll */
    int has_min;              /* a move at a gait with a least distance (a cantering mount): */
    double min_in;            /* that least distance */
    int ok;                   /* 1, 0 or RULES_NULL */
    /* charge: the figures of the closest pair (A's charger, B's target) */
    const char *charger, *target;

    /* Geometry for drawing. */
    rules_point line[2];      /* los/fire: line of sight; ball: flight up to
                                 where it stops; move: the path;
                                 aspect: attacker point -> target centre */
    rules_point centre;       /* blast/command/grape: circle centre */
    double radius_in;         /* blast/command/grape radius */
    rules_point *polygon;     /* grape: the arc as a polygon; visibility: the
                                 visible area, counter-clockwise */
    size_t n_polygon;
} rules_result;

/* Release the lists owned by a result and zero it (accepts NULL). */
void rules_result_free(rules_result *r);

/* The result as the JSON object of the query contract (issue 3), e.g.
 * {"visible":true,"blocked_by":null}.  NULL only when out of memory. */
json_t *rules_result_to_json(const rules_result *r);

/* ---- scenarios -------------------------------------------------------- */

/* Load a scenario file.  The ruleset it names is found by
 * rules_profile_path(); `data_dirs` is a NULL-terminated list of data
 * directories to search (may be NULL).  Malformed JSON is reported with its
 * line and column; bad content (self-intersecting polygon, figure off the
 * table, unknown weapon or terrain kind...) with what to fix. */
tt_status rules_scenario_load(const char *path, const char *const *data_dirs, rules_scenario **out, tt_err *err);
/* Limits of a scenario (a clear error above them); loading takes time about
 * linear in its size up to them. */
#define RULES_MAX_CORNERS 10000 /* corners of one terrain polygon or line */
#define RULES_MAX_PIECES 2000   /* terrain pieces */
#define RULES_MAX_FIGURES 2000  /* figures */
#define RULES_MAX_RAISE_IN 24.0 /* height_in of a piece that raises what stands on it (hill, building) */
#define RULES_MAX_SLOPE_IN 48.0 /* slope_in of a piece: the run of its sides, inches */
#define RULES_MAX_ERR_IN 12.0   /* a figure's err95_in (its position's 95 % radius), inches */
#define RULES_MAX_Z_ERR_IN 24.0 /* a figure's z_err95_in, inches */
#define RULES_MAX_FACING_ERR_DEG 180.0 /* a figure's facing_err95_deg */

/* Same from parsed JSON.  `where` names the source in messages; relative
 * profile paths are resolved against `base_dir` (may be NULL). */
tt_status rules_scenario_from_json(const json_t *root, const char *where, const char *base_dir,
                                   const char *const *data_dirs, rules_scenario **out, tt_err *err);

/* Same from JSON text (NUL-terminated), e.g. a scenario sent to the table
 * server: malformed JSON and unknown keys are reported with line and
 * column, as for a file. */
tt_status rules_scenario_parse(const char *text, const char *where, const char *base_dir,
                               const char *const *data_dirs, rules_scenario **out, tt_err *err);

void rules_scenario_destroy(rules_scenario *sc);

/* Find the profile for a ruleset name: for each data dir D in order,
 * D/rules/profiles/NAME.json, D/profiles/NAME.json, D/NAME.json.  A name
 * containing '/' or ending in ".json" is a file path (relative to base_dir).
 * Writes the path into buf. */
tt_status rules_profile_path(const char *name, const char *base_dir, const char *const *data_dirs, char *buf,
                             size_t bufsize, tt_err *err);

/* The values a profile (parsed JSON) marks "house": true, i.e. not settled
 * by its rulebook: [{"path":"weapons.carbine","note":"..."}, ...].  The
 * caller owns the array; NULL when out of memory. */
json_t *rules_profile_house_values(const json_t *profile);

/* Figures, by index 0..count-1 (scenario order). */
size_t rules_scenario_figure_count(const rules_scenario *sc);
const char *rules_scenario_figure_id(const rules_scenario *sc, size_t i);
/* The figure a tag id belongs to (the scenario's "tags"), or NULL. */
const char *rules_scenario_tag_figure(const rules_scenario *sc, int tag_id);
const char *rules_scenario_ruleset(const rules_scenario *sc);
/* Height above the felt (inches) of the ground at table point (x, y): the
 * height_in of the highest piece there whose kind raises what stands on it
 * (hill, building, ...); 0 on flat ground.  Const: safe beside queries.
 * The signature is tt_ground_fn's, with sc as `user`. */
double rules_scenario_ground_in(const void *sc, double x, double y);
/* Terrain pieces, by index 0..rules_scenario_piece_count-1.  For an area
 * whose kind raises what stands on it (height_in > 0) returns 1 and gives
 * its id, height_in and outline (n corners, x y pairs in inches; owned by
 * the scenario); any other piece returns 0.  Any out pointer may be NULL. */
size_t rules_scenario_piece_count(const rules_scenario *sc);
int rules_scenario_raised_piece(const rules_scenario *sc, size_t i, const char **id, double *height_in,
                                const double **xy, int *n);

/* Figure i's side, unit, type and formation (each NULL where it has none;
 * strings owned by the scenario).  Any out pointer may be NULL.  Returns 0
 * when there is no figure i. */
int rules_scenario_figure_info(const rules_scenario *sc, size_t i, const char **side, const char **unit,
                               const char **type, const char **formation);
/* The index of figure `id`, or -1. */
int rules_scenario_figure_index(const rules_scenario *sc, const char *id);
/* Whether the bases of figures i and j touch or overlap where they stand
 * now (edges within 1/1000"). */
int rules_scenario_in_contact(const rules_scenario *sc, size_t i, size_t j);

/* The ruleset's turn structure, its profile's "turns" (phases in the
 * book's order: name, sides "each" | "alternate" | "none", moves, charges,
 * src; one_move_a_turn; immobile_formations), and the calls losses
 * trigger, its "losses" (see docs/rulesets.md, "Turns and phases").  Both
 * checked when the profile loads, owned by the scenario; NULL where the
 * profile has none. */
const json_t *rules_scenario_turns(const rules_scenario *sc);
const json_t *rules_scenario_losses(const rules_scenario *sc);
/* How sure a figure's position is (live pipeline: the tracker's figures
 * for it), 95 % bounds: the radius around its position, its height, its
 * facing; 0 each: exact.  Refused (TT_ERR_FORMAT, the figure unchanged)
 * when negative, not a number or beyond RULES_MAX_*.  Answers then say
 * distance_err95_in and too_close_to_call (docs/rules.md). */
tt_status rules_scenario_set_errors(rules_scenario *sc, const char *id, double err95_in, double z_err95_in,
                                    double facing_err95_deg, tt_err *err);

/* Move a figure (live pipeline: once per frame).  Fails, leaving the figure
 * where it was, if the new position is off the table. */
tt_status rules_scenario_place(rules_scenario *sc, const char *id, double x, double y, double facing_deg,
                               tt_err *err);

/* ---- queries (all fill *out; the caller frees it) --------------------- */

/* Line of sight A -> B (ruleset LOS mode).  visible, blocked_by, line. */
tt_status rules_los(rules_scenario *sc, const char *from, const char *to, rules_result *out, tt_err *err);
/* Shooting A -> B with A's weapon (or `weapon` if not NULL): distance_in,
 * bracket, visible, cover, to_hit, line.  A or B may name a unit (the
 * figures' "unit"): then firers, ids (targets) and the total dice. */
tt_status rules_fire(rules_scenario *sc, const char *from, const char *to, const char *weapon, rules_result *out,
                     tt_err *err);
/* Every figure caught by GUN's grape arc: ids, centre, radius_in, polygon. */
tt_status rules_grape(rules_scenario *sc, const char *gun, rules_result *out, tt_err *err);
/* Cannonball from GUN towards figure `to` (or the point `at` when `to` is
 * NULL) over the weapon's full range: ids in flight order, line. */
tt_status rules_ball(rules_scenario *sc, const char *gun, const char *to, const rules_point *at, rules_result *out,
                     tt_err *err);
/* Blast at `at`: radius_in > 0, or the radius of `weapon` in the ruleset. */
tt_status rules_blast(rules_scenario *sc, rules_point at, double radius_in, const char *weapon, rules_result *out,
                      tt_err *err);
/* Units of GENERAL's side with any figure inside the command radius.
 * Where the ruleset names the figure types that command, GENERAL must be
 * one (else an error), and commands any unit of its side or only its own
 * as its type says; where it counts each figure, fig_in and fig_out. */
tt_status rules_command(rules_scenario *sc, const char *general, rules_result *out, tt_err *err);
/* front / flank / rear of B as seen from A. */
tt_status rules_aspect(rules_scenario *sc, const char *from, const char *to, rules_result *out, tt_err *err);
/* The area A can see (terrain that blocks LOS), as a polygon. */
tt_status rules_visibility(rules_scenario *sc, const char *from, rules_result *out, tt_err *err);
/* A straight move of A's centre to `to`.  `roll`: what the movement dice
 * showed (their sum, before any "+N" of the allowance) when A's type moves
 * by dice, or -1 when not rolled (the allowance is then unknown). */
tt_status rules_move(rules_scenario *sc, const char *from, rules_point to, int roll, rules_result *out, tt_err *err);

/* Does A (a figure or a unit) reach base contact with B (a figure or a
 * unit) within its charge allowance: the closest pair's charger moves
 * straight at its target's centre until the bases touch (where the
 * profile's charge cannot turn, straight ahead along its facing, the pair
 * that meets soonest; ok 0 with the reason in `rule` where none does); as
 * 'move' (distance_in, allowed_in, ok, crossed, allowed_range_in) plus
 * charger and target.  `roll` as for rules_move where charges are dice
 * moves. */
tt_status rules_charge(rules_scenario *sc, const char *from, const char *to, int roll, rules_result *out, tt_err *err);

/* The dice a 'deviate' query carries (RULES_NULL where not rolled): the
 * fields the weapon's deviation needs (see docs/rules.md, "Ruleset profiles"). */
typedef struct rules_dev_dice {
    int long_short, left_right;       /* per-axis direction dice */
    int long_short_in, left_right_in; /* what each off-target axis's distance dice showed */
    int clock, distance;              /* a clock direction (12 straight ahead) and what the distance dice showed */
    int critical;                     /* 1: a critical miss (its own distance dice) */
    int explodes;                     /* the die rolled to see whether a thrown weapon goes off */
    const char *ammo;                 /* the kind of ammunition fired ("shot", "shell"), NULL: the weapon's usual */
} rules_dev_dice;

/* Where FROM's weapon (or `weapon`) aimed at `at` lands: centre (the
 * impact), ids (figures its blast hits there, none when it does not go
 * off), ok (it went off), line (aim -> impact), rule, ammo (the kind of
 * ammunition fired where the weapon has several), to_hit (the score that
 * kills each figure in the blast, where the book gives one). */
tt_status rules_deviate(rules_scenario *sc, const char *from, const char *weapon, rules_point at,
                        const rules_dev_dice *dice, rules_result *out, tt_err *err);

/* One query object of the contract -> its answer as a result (with the
 * geometry for drawing); the caller frees *out with rules_result_free.  On
 * a bad query returns an error status and a message, *out left empty. */
tt_status rules_query(rules_scenario *sc, const json_t *query, rules_result *out, tt_err *err);

/* One query object of the contract -> its answer object.  On a bad query
 * returns an error status and a message; the CLI prints {"error": msg}.
 * Where the scenario's figures carry errors, the answer says how sure it
 * is (rules_answer_how_sure) and a refusal the errors could undo says so. */
tt_status rules_query_json(rules_scenario *sc, const json_t *query, json_t **answer, tt_err *err);

/* For a caller that asks rules_query itself and prints the answer with
 * rules_result_to_json (the live table): add what rules_query_json adds
 * where the scenario's figures carry errors (distance_err95_in,
 * too_close_to_call, tie, tie_rule, too_close_ids; docs/rules.md, "How sure
 * an answer is") to `answer`, the JSON of r, the result of `query`.
 * Nothing when no figure has an error.  Errors: TT_ERR_NOMEM. */
tt_status rules_answer_how_sure(rules_scenario *sc, const json_t *query, const rules_result *r, json_t *answer,
                                tt_err *err);

/* One JSON Lines query line -> one answer line (no newline), always: a bad
 * line gives {"error":"..."}.  The string is malloc'd, caller frees; NULL
 * only when out of memory. */
char *rules_query_line(rules_scenario *sc, const char *line);

/* ---- for benchmarks and tests ----------------------------------------- */

/* LOS between figures i and j by index: 1 visible, 0 blocked.  Uses the
 * spatial grid. */
int rules_los_index(rules_scenario *sc, size_t i, size_t j);
/* The same decision testing every terrain piece and figure (no grid): the
 * brute-force reference. */
int rules_los_index_bruteforce(rules_scenario *sc, size_t i, size_t j);
/* rules_visibility by the plain method (a full ray cast to every corner):
 * the reference the faster one is tested against. */
tt_status rules_visibility_reference(rules_scenario *sc, const char *from, rules_result *out, tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
