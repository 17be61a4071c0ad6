/* rules_questions.h - the questions layer of rules/ (rules/questions/):
 * the answers to queries (not part of the public API).  Line of sight and
 * cover (los.c), fire and aspect (fire.c, unitfire.c for units, bonus.c for
 * bonus dice and melee), grape, blast and command (templates.c), roundshot
 * (ball.c), deviation (deviate.c), visibility (visibility.c), move
 * (move.c) and charge (charge.c, its move by move.c), the answers' own
 * fields (result.c), and query.c, which reads a query object and asks the
 * one it names.
 *
 * May call: scenario/ (rules_scenario.h), geometry/ (rules_geom.h) and
 * itself.  Nothing below calls up into it.
 */
#ifndef TT_RULES_QUESTIONS_H
#define TT_RULES_QUESTIONS_H

#include "rules_scenario.h"

/* ---- the options of one query ----
 * What a query says beyond its figures and weapon: its fields "moved",
 * "target_charging", "target_revealed", "facing_deg" and "gait".  query.c
 * reads them from the query and hands them down to the questions as an
 * argument; a question asked through rules.h's own functions has none
 * (rules_no_opts).  Nothing keeps them between queries.  The functions
 * below that take `qo` (never NULL) read them, or pass them on to one
 * that does. */
typedef struct rules_query_opts {
    int moved;           /* fire, grape: the firer moved before firing this turn */
    int target_charging; /* fire: the target is charging (as a cluster) */
    int target_revealed; /* los, fire: the target fired, or was located, this turn */
    int has_facing;      /* move, charge: the mover ends its move facing facing_deg */
    double facing_deg;
    const char *gait;    /* move: the mount's gait (walk, canter, gallop), or NULL */
} rules_query_opts;

/* No options: what rules_los, rules_fire, rules_grape, rules_move and
 * rules_charge answer. */
extern const rules_query_opts rules_no_opts;

/* The questions that take options (query.c asks these; rules.h's
 * functions of the same name ask them with rules_no_opts). */
tt_status rules_ask_los(rules_scenario *sc, const rules_query_opts *qo, const char *from, const char *to,
                        rules_result *out, tt_err *err);
tt_status rules_ask_fire(rules_scenario *sc, const rules_query_opts *qo, const char *from, const char *to,
                         const char *weapon, rules_result *out, tt_err *err);
tt_status rules_ask_grape(rules_scenario *sc, const rules_query_opts *qo, const char *gun, rules_result *out,
                          tt_err *err);
tt_status rules_ask_move(rules_scenario *sc, const rules_query_opts *qo, const char *from, rules_point to, int roll,
                         rules_result *out, tt_err *err);
tt_status rules_ask_charge(rules_scenario *sc, const rules_query_opts *qo, const char *from, const char *to, int roll,
                           rules_result *out, tt_err *err);

/* ---- los.c ---- */
/* The troops piece pc hides (its located_within_in > 0) are located for
 * figure i: a figure of i's side (or i itself) is within that distance of
 * the piece. */
int rules_piece_located(const rules_scenario *sc, int i, const rules_piece *pc);
/* Full LOS decision between figures i and j.  blocker: piece index >= 0,
 * or -(figure index) - 2, or -1 when visible.  grid: use the grid. */
int rules_los_decide(rules_scenario *sc, const rules_query_opts *qo, int i, int j, int use_grid, int want_blocker,
                     int *blocker);
/* The same for a line of fire (the ruleset may let figures see through
 * friends but not fire through them).  hint (may be NULL): a figure that
 * blocked an earlier line from i, tried first, and set to this line's
 * blocking figure when one is found. */
int rules_fire_decide(rules_scenario *sc, const rules_query_opts *qo, int i, int j, int use_grid, int want_blocker,
                      int *blocker, int *hint);
/* An own-side skirmisher (of another unit) the line of fire i -> j passes
 * through, or -1. */
int rules_through_own_skirmishers(rules_scenario *sc, int i, int j);
const char *rules_blocker_id(const rules_scenario *sc, int blocker);
/* Cover of figure j against a line of fire from figure i. */
/* The score needed on the profile's die: `base` less the sum of the
 * modifiers, under the profile's rule of dice; RULES_NULL when no roll can
 * succeed. */
int rules_to_hit(const rules_profile *p, int base, const rules_modifier *m, int n);
/* TT_OK, or an error naming from and to when figures i and j (of
 * them) are both of one side. */
tt_status rules_fire_enemy(const rules_scenario *sc, const char *from, const char *to, int i, int j, tt_err *err);
/* The point on the line of fire i -> j cover_within_in beyond the target's
 * base edge (towards i): a piece crossing from there to j's centre covers j. */
rules_pt rules_cover_reach(const rules_scenario *sc, int i, int j);
/* Figure f's sight arc: the profile's, narrowed by the terrain it stands
 * behind (arc_behind_deg); 0: it sees all round. */
double rules_sight_arc(const rules_profile *p, const rules_figure *f);
/* Best cover of figure j against figure i; *piece (may be NULL) is the
 * index of the piece that gives it, -1 for none. */
rules_cover rules_cover_for(rules_scenario *sc, int i, int j, int *piece);
/* The same among the pieces cand (nc of them; NULL: all), which must hold
 * every piece rules_cover_cands finds around figure j. */
rules_cover rules_cover_among(rules_scenario *sc, int i, int j, const int *cand, int nc, int *piece);
/* The pieces that may cover a figure whose base meets the disc of radius
 * R around c (their boxes within two of the largest base's reach and
 * cover_within_in of that disc) into cand (room for every piece); how
 * many. */
int rules_cover_cands(const rules_scenario *sc, rules_pt c, int64_t R, int *cand);

/* ---- fire.c ---- */
/* The weapon `name` (if not NULL) or the figure's own. */
tt_status rules_weapon_of(const rules_scenario *sc, const rules_figure *f, const char *name, const rules_weapon **w,
                          tt_err *err);

/* The dice a figure rolls after moving (the query's "moved") that rolls
 * d at rest: cut to the profile's after_moving "rof" unless the weapon
 * keeps its dice. */
int rules_moved_dice(const rules_scenario *sc, const rules_query_opts *qo, const rules_weapon *w, int d);
/* Figure f's type fires unmodified (profile unmodified_fire_types): no
 * to-hit modifiers, no formation dice. */
int rules_fires_plain(const rules_profile *p, const rules_figure *f);
/* An error where f's type cannot fire in the ruleset. */
tt_status rules_fire_barred(const rules_scenario *sc, const rules_figure *f, tt_err *err);
/* f cannot be fired at (its type or its formation is no target): 1, and
 * why (with the book's line) written into why (n bytes, may be NULL). */
int rules_not_target(const rules_scenario *sc, const rules_figure *f, char *why, size_t n);
/* The answer to a shot that cannot be made because its target is no
 * target (rules_not_target): no score, no dice, no firers nor targets,
 * the reason in `rule`. */
tt_status rules_fire_refused(rules_scenario *sc, const rules_figure *f, rules_result *out, tt_err *err);
/* The dice figure i rolls at j with w, 0 where the rules do not fix them. */
int rules_fire_dice(rules_scenario *sc, int i, int j, const rules_weapon *w);
/* Fill the fire answer's per-shot fields for i -> j with w; dj: the figure
 * whose type, formation and defence stand for the target (j itself, or a
 * soldier of j's unit when j is its officer); rof > 0: the dice the firer
 * would roll at rest, its unit's line bonus in (else the shot's own), on
 * which having moved is counted. */
void rules_fire_pair(rules_scenario *sc, const rules_query_opts *qo, int i, int j, int dj, const rules_weapon *w,
                     int rof, rules_result *out);

/* The score figure i needs against figure j from `base` (a bracket's
 * score, its modifier taken off) less j's cover against i, as "fire"
 * counts it (cover value, cover modifier); RULES_NULL when no roll can. */
int rules_cover_to_hit(rules_scenario *sc, int i, int j, int base, const int *cand, int nc);
/* The to-hit modifier for having moved (the query's "moved", else 0) of a
 * figure firing w that would roll rest dice at rest: the weapon's own
 * after_moving modifier, else the ruleset's (only for a figure whose dice
 * could not be cut, where it says so). */
int rules_fire_moved_mod(const rules_scenario *sc, const rules_query_opts *qo, const rules_weapon *w, int rest);
/* The to-hit modifiers "fire" counts on one shot i -> j with w, all but
 * the range bracket's, appended to mods (room for RULES_MAX_MODIFIERS,
 * *n used): the cover cv given by piece cover_piece (-1: none), the
 * formation of dj (the figure standing for the target), the firer's quality
 * and type, a charging target, having moved (mmod, from
 * rules_fire_moved_mod or a weapon's grape rule), own skirmishers fired
 * through (visible only), indirect fire (not visible), the ground the
 * target stands in; none for a firer that fires unmodified.  Each
 * modifier's reason is written where why is set (else left empty).  Shared
 * by fire and grape (rules_grape, where the grape says "fire_modifiers"). */
void rules_fire_mods(rules_scenario *sc, const rules_query_opts *qo, int i, int j, int dj, const rules_weapon *w,
                     int visible, int cover_piece, rules_cover cv, int mmod, rules_modifier *mods, int *n, int why);

/* ---- bonus.c ---- */
typedef enum { RULES_ASPECT_FRONT = 0, RULES_ASPECT_FLANK, RULES_ASPECT_REAR } rules_aspect_kind;
/* Which side of a box (centre c, facing f, width w across the facing,
 * depth d along it) the line from p to c enters (exact): through the front
 * edge (front corners count as front), the rear edge (rear corners count as
 * flank) or a side. */
rules_aspect_kind rules_aspect_box(rules_pt p, rules_pt c, rules_pt f, int64_t w, int64_t d);
/* The attacker's bonus dice (bonus_dice, added to a known `dice`), the
 * defender's high ground (defence_dice) and the defender's own roll
 * (defender_dice, defender_to_hit) of a fire answer from the group F at
 * the group T; j: the target figure the answer describes; w, si -> sj:
 * the nearest shot's weapon and figures (a weapon's bonus within a range). */
void rules_fire_bonus(rules_scenario *sc, const rules_query_opts *qo, const int *F, int nF, const int *T, int nT, int j,
                      const rules_weapon *w, int si, int sj, rules_result *out);
/* Reorders the group g (n figures) so that the figures an attack on it
 * aims at come first (profile "aim_at": a skirmisher unit's officer and
 * ensign, a battery's cannon) and returns how many; n where the group's
 * soldiers have no such figures. */
int rules_aim_first(const rules_scenario *sc, int *g, int n);
/* A group's footprint: a figure's own base, or the box around a unit's
 * soldiers (their bases' width across and depth along their mean facing). */
typedef struct rules_box {
    rules_pt c, f, front; /* centre, facing, front-centre */
    int64_t w, d;
    double facing_deg;
} rules_box;
void rules_group_box(const rules_scenario *sc, const int *g, int n, rules_box *b);
/* Figure g[k] stands for its group's place: a soldier (not of the defence
 * roll's not_types), or any figure of a group without soldiers (officers
 * and ensigns stand off to the side). */
int rules_group_counts(const rules_scenario *sc, const int *g, int n, int k);
/* The figure a group's type, formation and colour are read from: f when it
 * is a soldier (not of the defence roll's not_types), else the group's
 * first soldier (a unit's officer stands for its soldiers), else f. */
int rules_soldier_of(const rules_scenario *sc, const int *g, int n, int f);
/* The dice of a melee (profile "melee") the charge i (of group F) -> j
 * (of group T) starts: dice, to_hit, bonus_dice, defence_dice,
 * defender_dice, defender_to_hit; an error where i's type cannot attack
 * j's.  Nothing where the profile has no melee or both are one side. */
tt_status rules_melee_dice(rules_scenario *sc, const int *F, int nF, const int *T, int nT, int i, int j,
                           rules_result *out, tt_err *err);

/* ---- unitfire.c ---- */
/* 'fire' where `from` or `to` names a unit (firers, targets, total dice);
 * fi / fj: the figure index of `from` / `to`, or -1 when it is not a figure. */
tt_status rules_fire_unit(rules_scenario *sc, const rules_query_opts *qo, const char *from, int fi, const char *to,
                          int fj, const char *weapon, rules_result *out, tt_err *err);
/* The figures `name` stands for: figure `fig` (its index, or -1 when
 * `name` is not a figure id) or the figures of that unit; *idx malloc'd.
 * An error names an unknown figure or unit. */
tt_status rules_group(const rules_scenario *sc, const char *name, int fig, const char *role, int **idx, int *n,
                      tt_err *err);
/* The same, finding the figure by id. */
tt_status rules_figures_of(const rules_scenario *sc, const char *name, const char *role, int **idx, int *n, tt_err *err);
/* The extra dice (formation rof_bonus) figure i earns from its unit's
 * front rank being wide enough, 0 when none, -1 when out of memory. */
int rules_unit_rof_bonus(const rules_scenario *sc, int i);

/* Stands probe `slot` (figs[nfigs + slot]) at p, facing facing_deg: a
 * figure of no size, of figure like's side, unit, type, weapon, colour,
 * formation and qualities, as high as the terrain at p raises it; its
 * index. */
int rules_probe_put(rules_scenario *sc, int slot, int like, rules_pt p, double facing_deg);
/* The probe (slot RULES_PROBE_FROM) standing where a unit's fire or charge
 * is measured from, for the group F (nF figures; `like`: a soldier of it):
 * at the figures aim_at lists for its soldiers' type (a battery's cannon
 * muzzle, a skirmisher unit's officer and ensign) when it has them, else
 * at the front-centre of its soldiers' box, facing their way; its index. */
int rules_unit_origin(rules_scenario *sc, const int *F, int nF, int like);
/* Where the profile says so (centre_seen): the centre of the soldiers of
 * target group T (nT figures, not a unit fired at through aim_at figures)
 * is seen from figure (or probe) s; 1 when it is or when T is one figure;
 * 0 with *blocker (as rules_los_decide's) and *centre when not. */
int rules_centre_seen(rules_scenario *sc, const rules_query_opts *qo, int s, const int *T, int nT, int *blocker,
                      rules_pt *centre);

/* ---- fire.c: arcs and shots ---- */
/* The firing arc of f with w (its facing, the weapon's arc and pivot). */
void rules_fire_arc(const rules_figure *f, const rules_weapon *w, rules_arc *a);
/* The error for figure f firing w (`what`: "roundshot", "the mortar") at
 * point p outside its arc and pivot (or the cap terrain puts on them),
 * saying how far off the aim is and citing `cite`. */
tt_status rules_arc_refusal(const rules_figure *f, const rules_weapon *w, rules_pt p, const char *what, const char *cite,
                            tt_err *err);
/* The shot i -> j with w is allowed: in range, in the arc (`arc`, or f's
 * own when NULL), not too close, a clear line of fire unless w fires
 * indirect.  *visible: the line of fire is clear (traced only when the rest
 * allows the shot, or want_visible); *br: the range bracket or NULL;
 * hint: as for rules_fire_decide. */
int rules_fire_shot(rules_scenario *sc, const rules_query_opts *qo, int i, int j, const rules_weapon *w,
                    const rules_arc *arc, int want_visible, int *visible, const rules_bracket **br, int *hint);

/* ---- move.c, for charge.c ---- */
/* A straight move of figure i (or a probe) to `to` (see rules_move) into
 * out; a charge scales the allowance by `factor` or, fixed_in >= 0,
 * replaces it, and cites `rule` (NULL: the allowance's line) and `also`
 * (NULL: nothing more). */
tt_status rules_move_figure(rules_scenario *sc, const rules_query_opts *qo, int i, rules_point to, int roll,
                            double factor, double fixed_in, const char *rule, const char *also, rules_result *out,
                            tt_err *err);
/* The base s moved by (dx, dy) fixed-point units. */
rules_shape rules_shape_shifted(const rules_shape *s, int64_t dx, int64_t dy);

/* ---- slope_sight.c: the visibility polygon over sloped hills ---- */
/* For viewer f: every sloped piece that blocks sight and rises above it
 * gets the outline of its part higher than f in place of its polygon, is
 * taken out of skip and put among extra (room for every piece).  Returns
 * what rules_slope_sight_end puts back (NULL: nothing swapped); *bad set
 * when out of memory. */
rules_pt **rules_slope_sight_begin(rules_scenario *sc, const rules_figure *f, int *skip, int *nskip, int *extra,
                                   int *nextra, int *bad);
void rules_slope_sight_end(rules_scenario *sc, rules_pt **saved);

/* ---- tie.c: answers that say when they cannot tell ---- */
/* Where the scenario's figures carry errors (sc->has_errors): add to the
 * answer `ans` of query q (result r) distance_err95_in (fire, move,
 * charge) and too_close_to_call (with the house tie line when true, and
 * too_close_ids where figures may be in or out); nothing otherwise. */
tt_status rules_tie_annotate(rules_scenario *sc, const json_t *q, const rules_result *r, json_t *ans, tt_err *err);
/* A query q refused (err, TT_ERR_ARG: out of the firer's arc...) that
 * would be answered with the figures somewhere within their errors: the
 * refusal's message says it is too close to call. */
void rules_tie_refusal(rules_scenario *sc, const json_t *q, tt_err *err);

/* ---- result.c ---- */
tt_status rules_result_add_id(rules_result *r, const char *id, size_t *cap, tt_err *err);
/* The answer's `rule`, a copy of text composed for it (owned by r). */
tt_status rules_result_set_rule(rules_result *r, const char *text, tt_err *err);
void rules_result_sort_ids(rules_result *r);
const char *rules_cover_name(rules_cover c);

#endif
