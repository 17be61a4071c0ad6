/* rules_scenario.h - the scenario layer of rules/ (rules/scenario/): a
 * loaded scenario and the ruleset profile it owns (not part of the public
 * API).  Loading and checking them (profile*.c, terrain.c, keys.c,
 * scenario.c), the data every question reads (the profile's weapons,
 * allowances and tables, terrain kinds and pieces, figures), lookups into
 * it, where a line or a base meets one piece (pieces.c), and the indexes
 * built at load (grid.c: sight-blocking edges; figgrid.c: figures by cell).
 *
 * May call: geometry/ (rules_geom.h) and itself.  Never questions/: what a
 * check at load shares with a question lives here, and the question calls
 * down to it.
 *
 * Fixed point: every coordinate is an int64 count of 1/10000 inch.  Input
 * coordinates are limited to |v| <= RULES_MAX_IN inches so that every
 * orientation determinant (products of two differences) fits in int64;
 * squared distances are compared in __int128.
 */
#ifndef TT_RULES_SCENARIO_H
#define TT_RULES_SCENARIO_H

#include <stdint.h>

#include "rules.h"
#include "rules_geom.h"

typedef enum { RULES_COVER_NONE = 0, RULES_COVER_SOFT = 1, RULES_COVER_HARD = 2 } rules_cover;
typedef enum {
    RULES_MOVE_OPEN = 0,
    RULES_MOVE_DIFFICULT,
    RULES_MOVE_OBSTACLE,
    RULES_MOVE_IMPASSABLE,
    RULES_MOVE_VERY_DIFFICULT, /* slower than difficult (very_difficult_factor) */
    RULES_MOVE_ROAD,           /* open; a whole move along it may be faster (road_factor) */
    RULES_MOVE_UPHILL          /* difficult for a move that climbs onto it (starts off it), open otherwise */
} rules_move_kind;

/* What a terrain kind (or one piece) does. */
typedef struct rules_terrain_props {
    int blocks_los;       /* LOS through the piece is blocked */
    double los_depth_in;  /* > 0: LOS may pass through up to this depth */
    rules_cover cover;
    rules_move_kind movement;
    int shields_blast;    /* blasts do not reach through it */
    int stops_ball;       /* cannonballs stop at it */
    double height_in;
    int cv;               /* cover value added to the score needed (a d12 ruleset), 0: none */
    int raises;           /* figures on or in it stand at height_in (hills, buildings) */
    int keeps_cv_from_above; /* its cover value holds against a higher shooter (trenches) */
    int hides_inside;     /* with los_depth_in: figures inside are unseen from outside and a
                             line with neither end inside is blocked; the depth is the sight inside */
    double see_through_within_in; /* > 0: blocks sight except for a viewer this close (a line of trees) */
    double max_range_in;  /* > 0: the longest shot from a figure inside */
    /* hidden troops: figures of these types or weapons (names) behind the
     * piece (it crosses the line to them within cover_within_in of their
     * base, or holds them) are unseen */
    char hides_behind[6][24];
    int nhides_behind;
    int revealable;       /* figures it hides are seen once revealed (the query's "target_revealed") */
    double located_within_in; /* > 0: a viewer this close sees the figures it hides */
    /* figures of these types or weapons within cover_within_in of it see
     * and fire only in arc_behind_deg to their front */
    double arc_behind_deg;
    char arc_behind_for[6][24];
    int narc_behind_for;
    int target_mod;       /* to-hit modifier for firing at a figure whose centre is in it (troops crossing a river) */
    /* going that slows only some types (artillery at half rate in a ford):
     * a move of one of move_factor_for that meets it has its allowance
     * times move_factor (> 0) */
    double move_factor;
    char move_factor_for[6][24];
    int nmove_factor_for;
    char move_factor_src[128]; /* its citation, "" when none */
    /* going some types cross only in some formations (infantry in a ford
     * in column): a move of one of cross_for, in a formation not among
     * cross_forms, that meets it is refused */
    char cross_forms[6][24], cross_for[6][24];
    int ncross_forms, ncross_for;
    char cross_src[128];
    /* a piece's own (the scenario's "slope_in", never a kind's): > 0, its
     * sides fall to the felt over this many inches outside its polygon
     * (slope.c) */
    double slope_in;
} rules_terrain_props;

/* Pieces whose blocking depends on more than their edges (a depth of
 * sight, a viewer's distance): decided piece by piece, not by the grid. */
static inline int rules_props_deep(const rules_terrain_props *p)
{
    return p->los_depth_in > 0 || p->see_through_within_in > 0 || p->nhides_behind > 0 || p->slope_in > 0;
}

typedef struct rules_terrain_kind {
    char *name;
    rules_terrain_props props;
} rules_terrain_kind;

typedef struct rules_bracket {
    char name[8]; /* short / medium / long */
    double max_in;
    int64_t max_fx;
    int to_hit;
    int modifier; /* dice modifier at this range (e.g. short +1, long -1), 0: none */
} rules_bracket;

/* How a weapon's shot lands away from the aim point, from the dice the
 * players rolled (the weapon's "deviation"). */
typedef enum { RULES_DEV_NONE = 0, RULES_DEV_AXES, RULES_DEV_CLOCK, RULES_DEV_THROWN } rules_dev_kind;
typedef struct rules_deviation {
    rules_dev_kind kind;
    int die;               /* axes: sides of the long/short and left/right dice; clock: of the clock die */
    int off_low, off_high; /* axes: short / left on <= off_low, long / right on >= off_high */
    int dn, ds, dk;        /* the distance dice NdS+K (axes: one roll per axis off target) */
    int cn, cs, ck;        /* clock: the distance dice on a critical miss, cn 0: none */
    int dud, dud_die;      /* thrown: no blast on a roll <= dud of a d(dud_die) */
    /* the kinds of ammunition it may fire (the query's "ammo"), each with
     * its own distance dice (an, as, ak), critical-miss dice (acn.., acn 0:
     * none) and blast radius (ablast, < 0: the weapon's); ammo_def: the
     * one the dice above are (fired when the query names none) */
    char ammo[3][12];
    int an[3], as[3], ak[3], acn[3], acs[3], ack[3];
    double ablast[3];
    int nammo, ammo_def;
    char *src;             /* the deviation's own citation, or NULL */
} rules_deviation;

typedef struct rules_weapon {
    char *name;
    double range_in;
    rules_bracket br[3];
    int nbr;
    int indirect;          /* needs no LOS (mortars, howitzers) */
    int needs_spotter;     /* indirect without LOS only where a friend of another unit sees the target */
    double arc_deg;        /* firing arc, full width; >= 360 any direction */
    double pivot_deg;      /* added on each side of the arc */
    double grape_range_in; /* 0: no grape */
    double grape_arc_deg;
    int grape_to_hit, grape_dice; /* the score grape needs and its dice (ROF), 0: not given */
    int grape_not_over_friends;   /* no grape while a friend of another unit stands on the line from
                                     the gun to a figure of the enemy it would hit */
    int grape_enemies_only;       /* it hits the enemy only: the firer's own side is no target */
    int grape_needs_los;          /* grape hits only figures the gun has a clear line of fire to */
    int grape_roll_each;          /* a roll on every figure in the arc, its cover counted (the answer's shots) */
    int grape_fire_mods;          /* each target's score (the answer's shots) after every modifier fire counts */
    /* grape's own rule after moving (grape "after_moving"; else the
     * weapon's): dice cut to grape_moved_rof (0: not cut) unless it keeps
     * them, and a to-hit modifier */
    int grape_has_moved_rule, grape_moved_rof, grape_moved_keeps_dice, grape_moved_mod;
    int ball;              /* fires roundshot along a line */
    double blast_in;       /* blast radius, 0: none */
    double blast_kill;     /* > 0: the score each figure in its blast is killed on (a roll for each), 0: not given */
    double min_range_in;   /* closer targets cannot be fired at, 0: none */
    int indirect_mod;      /* dice modifier when an indirect weapon fires without LOS */
    int dice;              /* dice each firing figure rolls, 0: the rules do not fix it */
    int front_ranks;       /* > 0: only this many ranks of a unit fire (counted from its front) */
    int fires_over_from_hill; /* on a hill, fires over figures further than the
                                 profile's los.artillery_on_hill_fires_over_in from the target */
    double dice_within_in; /* > 0: within this distance each figure rolls dice_within dice */
    int dice_within;
    int cannot_move_and_fire; /* not allowed to fire after moving (query "moved") */
    int no_to_hit;            /* no to-hit roll: aimed at a point and deviated (guessed range) */
    int no_firer_type_mod;    /* the profile's firer_type_modifier does not apply (a winchester on horseback) */
    /* its own rule for firing after moving ("after_moving"): keeps its dice
     * (no ROF reduction), and a to-hit modifier it always takes */
    int has_moved_rule, moved_keeps_dice, moved_mod;
    int has_cover_dice;       /* the defender's cover dice against it are cover_dice[cover] */
    int cover_dice[3];
    double bonus_within_in;   /* > 0: a unit firing within this distance adds bonus_within dice */
    int bonus_within;
    int best_colour;          /* its fire is rolled at this colour (index) at best, -1: any */
    int still_bonus;          /* bonus dice when the firer did not move (no "moved" in the query) */
    char not_types[2][24];    /* figure types that cannot use it */
    int nnot_types;
    double over_friends_min_in; /* > 0: fires over friends of other units only this far in front or more */
    rules_deviation dev;
    char *src;             /* the rulebook line the weapon's numbers come from, "house: ..." or NULL */
    char *fire_src;        /* a fire answer's citation: src, then the profile's to_hit (where the score
                              needed is the firer's colour) and defence_roll citations; NULL: src */
    char *grape_src;       /* a grape answer's citation: the grape's own "src" (or house note), NULL: src */
    char *dev_rule;        /* a deviate answer's citation: src and the deviation's own lines, or NULL */
} rules_weapon;

typedef struct rules_allowance {
    char *type;    /* figure type, e.g. "foot" */
    double inches; /* < 0 when dice decide */
    char *dice;    /* e.g. "1d6+3", or NULL */
    double difficult_factor; /* this type's own factor in difficult going, < 0: the profile's */
    double difficult_cost_in; /* inches this type loses in difficult going (after the factor) */
    int any_direction;        /* not slowed for moving sideways or backward */
    char *src;                /* the rulebook line of the allowance, or NULL (house) */
    /* gaits (a mount's walk, canter, gallop): the move query's "gait" picks
     * one: its inches, the least it must move, inches lost per 90 degrees
     * of turn */
    char gait[4][12];
    double gait_in[4], gait_min_in[4], gait_turn_in[4];
    int ngaits;
    /* inches by the figure's quality ("inches_by_quality": elite 6) or
     * weapon ("inches_by_weapon": heavy guns 2) instead of `inches`, and
     * where each map comes from */
    char by_q[4][16], by_w[4][24];
    double by_q_in[4], by_w_in[4];
    int nby_q, nby_w;
    char *by_q_src, *by_w_src;
    /* terrain movement kinds (bit 1 << RULES_MOVE_*) this type cannot
     * enter ("impassable_in"), and where that comes from */
    unsigned impassable_in;
    char *impassable_src;
    char *difficult_src; /* where its difficult_factor / difficult_cost_in come from */
} rules_allowance;

#define RULES_MAX_FORM_TYPES 6 /* figure types a formation's by-type maps may list */
#define RULES_MAX_OPTIONS 8    /* optional rules a profile may define */

/* The terrain effects a move answer may cite (terrain_effects keys). */
enum {
    RULES_MC_DIFFICULT,
    RULES_MC_VERY_DIFFICULT,
    RULES_MC_OBSTACLE,
    RULES_MC_NOT_FORWARD,
    RULES_MC_FREE_TURN,
    RULES_MC_LEAST,
    RULES_MC_ROAD,
    RULES_MC_ROUND_UP,
    RULES_MC_PER_INCH,
    RULES_MC_BY_BASE,
    RULES_MC_N
};
extern const char *const rules_move_cite_key[RULES_MC_N];

typedef struct rules_profile {
    char *name;
    /* profile_turns.c: the book's turn structure ("turns") and the calls
     * losses trigger ("losses"), checked, as copies of the profile's JSON
     * (owned; NULL where the profile has none) */
    json_t *turns, *losses;
    int centre_measure;      /* distances centre to centre */
    double cover_within_in;  /* cover counts this close to the target */
    double cover_near_firer_in; /* > 0: a piece this close to the firer (or holding it) covers only a
                                   target standing in it */
    int mods_add_to_score;   /* modifiers are added to the score needed (else to the roll) */
    int has_charging, charging_mod; /* a modifier for firing at a target that is charging */
    char ft_name[4][24];     /* a modifier for the firer's type (on horseback), in the ruleset's sign */
    int ft_mod[4], nft;
    int to_hit_max;          /* scores above this cannot succeed */
    char die[8];             /* "d6" or "d12" */
    int always_hits;         /* > 0: this roll always succeeds (rule of dice): the score needed is capped at it */
    int always_misses;       /* > 0: this roll always fails: the score needed is at least one more */
    /* the score needed set by the firer's colour (e.g. green 4, yellow 5,
     * red 6) instead of the range bracket; ncolours 0: by bracket */
    char colour[4][16];
    int colour_to_hit[4];
    int ncolours;
    int defence_dice[3];     /* bonus dice cover gives the defender, by rules_cover */
    char dd_type[4][24];     /* bonus dice a defender of a type gets (e.g. cavalry +2) */
    int dd_type_n[4], ndd_type;
    /* the score needed is the target's defence (DS) when the profile gives a
     * stat line: ds[type][quality]; by_target 0: not so */
    int by_target;
    char stat_type[4][16], quality[4][16];
    int ds[4][4];
    int ntypes, nqualities;
    int cover_mod[3];        /* added to the score needed */
    int figures_block;       /* intervening figures block LOS */
    int own_skirmishers_block;
    int own_unit_blocks_fire; /* the firing unit's own figures block its fire (rear ranks) */
    int friends_block_sight;  /* figures of the viewer's side block sight (else only its fire) */
    int through_skirmishers_mod; /* dice modifier for firing through own skirmishers, 0: none */
    int over_lower_figures;   /* a figure on higher ground sees and fires over lower figures */
    double sight_arc_deg;     /* > 0: figures see only within this arc of their facing */
    int above_cv;             /* > 0: a cover's value against a higher shooter when the target */
    double above_beyond_in;   /* is more than this far from the cover */
    int fire_from_front;     /* lines of fire from the front-centre */
    double hill_overfire_in; /* > 0: artillery on a hill fires over figures
                                further than this from the target */
    double command_in;
    /* "command": the figure types that command (none listed: any figure
     * commands its side), each over any unit of its side (cmd_side 1) or
     * only its own unit; per figure: answers list each figure of those
     * units within and beyond the radius; the action's name ("rally") */
#define RULES_MAX_CMD_TYPES 6
    char cmd_type[RULES_MAX_CMD_TYPES][24];
    int cmd_side[RULES_MAX_CMD_TYPES], ncmd_types;
    int cmd_per_figure;
    char cmd_action[16];
    int base_round;
    double base_w_in, base_d_in; /* default base: diameter, or rect w x d */
    double difficult_factor, obstacle_cost_in;
    double very_difficult_factor; /* < 0: as difficult going */
    int difficult_round_up; /* allowance in difficult going rounded up to whole inches */
    rules_terrain_kind *kinds;
    size_t nkinds;
    rules_weapon *weapons;
    size_t nweapons;
    rules_allowance *moves;
    size_t nmoves;
    /* charges: the movement allowance times charge_factor, or, where the
     * book gives charge distances by arm, charge_in[] by type (a type not
     * listed cannot charge); charge_factor 0 and ncharge 0: no charge rule */
    /* the firer's quality as a to-hit modifier (e.g. veteran +1), and
     * formations: a modifier for firing at a target in it, and extra dice
     * a figure rolls when its unit's front rank is at least rof_wide wide */
    char fq_name[4][16];
    int fq_mod[4], nfq;
    char form_name[6][16];
    int form_target_mod[6], form_rof[6], form_rof_wide[6], nforms;
    /* per formation: the width a type needs for rof_bonus instead of
     * rof_min_wide, its own movement by type, and the inches it loses in
     * difficult going (whatever its type's rule) */
    char form_wide_type[6][RULES_MAX_FORM_TYPES][24];
    int form_wide_n[6][RULES_MAX_FORM_TYPES], form_nwide[6];
    char form_move_type[6][RULES_MAX_FORM_TYPES][24];
    double form_move_in[6][RULES_MAX_FORM_TYPES];
    int form_nmove[6];
    double form_difficult_cost[6];
    int form_defence_dice[6];   /* bonus dice a defender in the formation gets */
    int form_attacker_colour[6]; /* firing at it: the score of this colour (index), -1: the firer's own */
    int form_no_fire[6];         /* a figure in it cannot fire */
    int form_not_target[6];      /* a figure in it cannot be fired at (prone) */
    int form_attacker_bonus[6];  /* bonus dice for whoever fires at it (a mob) */
    int form_no_flank[6];        /* it has no flank or rear */
    int form_front_bonus[6];     /* bonus dice for firing at its front (enfilade on a column) */
    int form_front_opt[6];       /* ... only with this optional rule on (index), -1: always */
    int form_road[6];            /* it may take the road bonus */
    /* bonus dice (attacker's, added to its dice): at the target's flank or
     * rear, from higher ground (that also helps the defender on higher
     * ground); not_skirmishers: skirmisher targets have no flank or rear */
    int bonus_flank, bonus_rear, bonus_high, bonus_not_skirmishers;
    /* the defender's own roll: dice a figure of the target, except figures
     * of these types (officers, ensigns); has_defence_roll 0: no such roll */
    int has_defence_roll, defence_roll_dice;
    char defence_roll_not[6][24];
    int ndefence_roll_not;
    /* melee (a charge into contact): dice a soldier by the attacker's and
     * the defender's types (a pair not listed cannot melee), the attacker's
     * colour (-1: its own), the defender's dice a soldier and the colour
     * some defender types always roll; per formation, the colour attackers
     * of some types roll against it (cavalry at a square) */
    int has_melee, melee_colour, melee_def_dice;
    char melee_att[4][24], melee_def[4][6][24];
    int melee_dice[4][6], melee_ndef[4], nmelee_att;
    char melee_dcol_type[6][24];
    int melee_dcol[6], nmelee_dcol;
    char form_mcol_type[6][2][24];
    int form_mcol[6][2], form_nmcol[6];
    /* the defender's quality: its defence rolls this many colours worse
     * (militia +1) or better (elite -1), within the colours */
    char dq_name[4][16];
    int dq_shift[4], ndq;
    /* what an attack on a unit aims at, by its soldiers' type: figures of
     * these types (a skirmisher unit's officer and ensign, a cannon) */
    char aim_type[4][24], aim_at[4][3][24];
    int naim_at[4], naim;
    /* a figure type's formation where the scenario gives none
     * (fbt_default, -1: none) and the formations it may take (bit k:
     * form_name[k]; 0: any) */
    char fbt_type[6][24];
    int fbt_default[6], nfbt;
    unsigned fbt_only[6];
    /* figure types that are skirmishers besides "skirmisher(s)" */
    char skirm_types[2][24];
    int nskirm_types;
    /* shooting by the figure's type: types that cannot fire, types that
     * cannot be fired at nor measured to (a brigade general), and types
     * whose fire takes no to-hit modifier and no formation dice (missile
     * cavalry) */
    char no_fire_types[2][24], no_target_types[2][24], plain_fire_types[4][24];
    int nno_fire_types, nno_target_types, nplain_fire_types;
    /* optional rules a scenario may switch on ("options") */
    char opt_name[RULES_MAX_OPTIONS][24];
    int nopts;
    /* moves: a move that is not forward (outside forward_arc_deg of the
     * facing) is multiplied by not_forward_factor (0: no such rule); every
     * factor together never goes below least_factor (0: no floor); a whole
     * move along a road in a formation that may use it, road_factor */
    double not_forward_factor, forward_arc_deg, least_factor, road_factor;
    /* a move ending turned further than this from the facing it started
     * with counts as not forward (0: no such rule; the query's facing_deg) */
    double free_turn_deg;
    /* firing after moving (the query's "moved"): a to-hit modifier, and
     * whether a mover loses its quality and formation bonuses */
    int has_after_moving, moved_mod, moved_drops_bonuses;
    int moved_rof;           /* > 0: a mover's dice a figure are cut to this many (its ROF) */
    int moved_mod_only_rof;  /* moved_mod only for a figure whose dice were that few already */
    double charge_factor;
    char charge_type[8][24];
    double charge_in[8];
    int ncharge;
    char *charge_src;
    /* the formations a charger may be in (bit f: form_name[f]; 0: any,
     * and a figure with no formation is not checked), by type where a type
     * has its own list; the target formations a type may not charge */
    unsigned charge_forms;
    char charge_ft_type[4][24], charge_nt_type[4][24];
    unsigned charge_ft_forms[4], charge_nt_forms[4];
    int ncharge_ft, ncharge_nt;
    /* aspect by arc: front within front_deg / 2 of the target's facing,
     * rear within rear_deg / 2 of its back, flank between (aspect_arc 0:
     * by the side of the base the line crosses) */
    int aspect_arc;
    double aspect_front_deg, aspect_rear_deg;
    /* unit fire ("unit_fire"): a unit's range, arc and line of fire run
     * from the front-centre of its soldiers (or from the figures aim_at
     * lists for its soldiers' type: a battery's cannon), every soldier of
     * its front ranks firing when that shot may be fired (unit_from_front);
     * a unit (or a figure of one) may be fired at only when the centre of
     * its soldiers is seen (centre_seen) */
    int unit_from_front, centre_seen;
    /* figure types that cannot charge ("charge": {"not_types": [...]}) */
    char charge_not[4][24];
    int ncharge_not;
    char *charge_not_src;
    /* a unit's charge is measured from its front-centre (the point
     * rules_unit_origin stands) to the nearest part of the target
     * ("charge": {"from": "front-centre"}), not figure to figure */
    int charge_from_front;
    char *charge_from_src;
    /* a charger cannot turn: it goes straight ahead along its facing, and
     * reaches only a target its base so swept meets ("straight_ahead") */
    int charge_straight;
    char *charge_straight_src;
    /* moves: inches inside difficult areas cost 1/factor each (per_inch),
     * instead of the factor slowing the whole move; terrain is met by the
     * base's swept area (by_base), not the path of its centre */
    int per_inch, by_base;
    /* where each terrain effect comes from (src or "house: ..."), NULL
     * when not given: rules_move_cite_key names them */
    char *move_cite[RULES_MC_N];
    char *form_difficult_src[6];
    char *form_inches_src[6];   /* the formation's "inches" line to cite, NULL: none */
    char *form_not_target_src[6], *no_target_src; /* why a formation / the not_target_types are no target */
    /* the citations (src, or "house: note") of sight, command and aspect */
    char *los_src, *command_src, *aspect_src;
} rules_profile;

typedef struct rules_piece {
    char *id;
    const char *kind; /* points into the profile */
    int closed;       /* polygon (area) vs line (wall, hedge) */
    rules_pt *v;      /* closed polygons counter-clockwise */
    int n;
    rules_pt lo, hi;  /* bounding box */
    rules_terrain_props p;
    double *vin;      /* vertices in inches (2n), for output: the top's for a sloped piece */
    /* a sloped piece (p.slope_in > 0): v is its footprint (where its sides
     * meet the felt), top its flat top as the scenario gives it, n corners
     * each, counter-clockwise, corner k of v on the bisector out of corner
     * k of top (slope.c) */
    rules_pt *top;
} rules_piece;

typedef struct rules_figure {
    char *id, *side, *unit, *type;
    const rules_weapon *weapon; /* NULL if none */
    double x, y, facing_deg;
    rules_shape shape;          /* the base, fixed point */
    rules_pt f;                 /* facing as an integer vector, |f| ~ 2^20 */
    double w_in, d_in;          /* base width (across facing) and depth */
    int64_t w, d;               /* the same in fixed point */
    rules_pt front;             /* front-centre of the base */
    int *inside;                /* closed pieces containing the centre */
    int ninside;
    int on_hill;
    int skirmisher;
    int colour;                 /* index into the profile's colours (0 when it has none) */
    int ds;                     /* defence (DS) where the ruleset has it, else 0 */
    int fquality;               /* index into the profile's fq_name, -1: none */
    int dquality;               /* index into the profile's dq_name, -1: none */
    int formation;              /* index into the profile's form_name, -1: none */
    char quality[16];           /* its "quality" as given, "" when none */
    double elev;                /* the height it stands at: the highest piece it is on that
                                   raises what stands on it (hills, buildings), else 0 */
    double arc_cap_deg;         /* > 0: behind a piece that narrows its arcs (arc_behind_deg) */
    /* how sure its position is (the scenario's, or the tracker's), 95 %
     * bounds, 0: exact (errors.c) */
    double err95_in, z_err95_in, facing_err95_deg;
} rules_figure;

/* Figure f (its type or weapon) is one of names (n of them). */
int rules_figure_named(const rules_figure *f, const char (*names)[24], int n);

typedef struct rules_pbox {
    rules_pt lo, hi;
    int shields_blast;
} rules_pbox;

typedef struct rules_tag {
    int tag;
    int fig;
} rules_tag;

struct rules_grid;

/* Two figures of no size after the scenario's own, figs[nfigs + slot]:
 * points a fire query stands on the table for one answer (a unit's
 * front-centre, the centre of a target unit).  They are in no list of
 * figures, block nothing and own nothing (rules_probe_put). */
enum { RULES_PROBE_FROM = 0, RULES_PROBE_CENTRE = 1, RULES_NPROBES = 2 };

struct rules_scenario {
    rules_profile *prof;
    double width_in, depth_in;
    rules_piece *pieces;
    size_t npieces;
    rules_figure *figs;      /* nfigs figures, then RULES_NPROBES probes */
    size_t nfigs;
    int *probe_inside;       /* the probes' pieces containing them, npieces + 1 each */
    rules_tag *tags;
    size_t ntags;
    int *deep;               /* pieces whose LOS limit is a depth */
    size_t ndeep;
    double *xing;            /* where edges of two sight-blocking pieces cross (x, y fixed-point units) */
    int *xing_pc;            /* ... and those two pieces and edges: piece, edge, piece, edge */
    size_t nxing;
    struct rules_grid *grid; /* LOS-blocking terrain edges */
    rules_pbox *pbox;        /* piece bounding boxes, compact */
    int *piece_cand;         /* scratch, one per piece */
    int *skirm;              /* the figures that are skirmishers (indices), nskirm of them */
    int nskirm;
    /* figgrid.c: figures by cell, rebuilt when fg_dirty */
    uint32_t *fg_start;
    int *fg_idx, *fg_cand;
    int *fg_copy;            /* scratch: a copy of candidates (2 per figure), kept across queries */
    size_t fg_copy_cap;
    int fg_nx, fg_ny, fg_dirty;
    int64_t fg_ext;
    unsigned *piece_mark;    /* scratch, one per piece */
    unsigned mark;
    unsigned options;        /* the profile's optional rules switched on (bit k: opt_name[k]) */
    int has_errors;          /* some figure has an err95_in, z_err95_in or facing_err95_deg > 0 */
};

/* ---- terrain.c ---- */
/* A terrain "movement" name ("open", "difficult", ...) as its
 * rules_move_kind, -1 when unknown. */
int rules_move_kind_named(const char *s);
/* Override *p with the members present in o (terrain kind or piece). */
tt_status rules_terrain_props_parse(const json_t *o, const char *where, rules_terrain_props *p, tt_err *err);
/* The figure types and weapons a terrain's hides_behind / arc_behind_for
 * name are the profile's. */
tt_status rules_terrain_names_check(const rules_profile *pr, const rules_terrain_props *p, const char *where,
                                    tt_err *err);

/* ---- profile*.c (profile_load.c reads one, profile.c looks into it) ---- */
tt_status rules_profile_from_json(const json_t *j, const char *where, rules_profile **out, tt_err *err);
void rules_profile_destroy(rules_profile *p);
const rules_weapon *rules_profile_weapon(const rules_profile *p, const char *name);
const rules_terrain_kind *rules_profile_kind(const rules_profile *p, const char *name);
/* "pistol, musket, ..." for messages. */
void rules_profile_weapon_names(const rules_profile *p, char *buf, size_t n);
/* {"round_in": D} or {"rect_in": [W, D]}. */
tt_status rules_base_parse(const json_t *o, const char *where, int *round, double *w, double *d, tt_err *err);

/* "NdS" or "NdS+K" -> n, s, k; -1 when not of that form. */
int rules_dice_parse(const char *d, int *n, int *s, int *k);
/* Figures of this type are soldiers: not one of the defence roll's
 * not_types (officers, ensigns, generals, cannon). */
int rules_is_soldier(const rules_profile *p, const char *type);
/* type is one of names (n of them). */
int rules_type_in(const char (*names)[24], int n, const char *type);

/* ---- keys.c ---- */
/* Refuse keys a profile / scenario does not know, naming the key, where it
 * is (line and column when `text`, the document's source, is given) and the
 * nearest known key.  `inline_in_scenario`: the profile is the "ruleset"
 * member of a scenario whose text is `text`. */
tt_status rules_keys_check_profile(const json_t *root, const char *text, const char *where, int inline_in_scenario,
                                   tt_err *err);
tt_status rules_keys_check_scenario(const json_t *root, const char *text, const char *where, tt_err *err);
/* The entry of `known` (n words) nearest to `word` (edit distance). */
const char *rules_nearest_word(const char *word, const char *const *known, size_t n);

/* ---- scenario.c ---- */
int rules_scenario_find(const rules_scenario *sc, const char *id); /* -1 if none */
/* A figure of the unit, or -1 when no figure has that "unit". */
int rules_scenario_unit_member(const rules_scenario *sc, const char *unit);
tt_status rules_scenario_figure(const rules_scenario *sc, const char *id, const char *role, int *out, tt_err *err);
/* (Re)compute a figure's fixed-point shape and containing pieces. */
tt_status rules_figure_setup(rules_scenario *sc, rules_figure *f, tt_err *err);
/* The closed pieces containing point c into inside (room for every piece),
 * how many; *elev the height of the highest that raises what stands on it,
 * *on_hill whether one is a hill. */
int rules_stand_on(const rules_scenario *sc, rules_pt c, int *inside, double *elev, int *on_hill);
/* Distance between figures under the ruleset's convention, inches. */
double rules_figure_distance(const rules_scenario *sc, const rules_figure *a, const rules_figure *b);
/* ... is <= R (exact). */
int rules_figure_within(const rules_scenario *sc, const rules_figure *a, const rules_figure *b, int64_t R);

/* The height a line between figures a and b passes over: terrain lower
 * than the higher of the two does not block it. */
static inline double rules_sight_over(const rules_figure *a, const rules_figure *b)
{
    return a->elev > b->elev ? a->elev : b->elev;
}
/* The point a line of fire from figure f starts at. */
static inline rules_pt rules_fire_origin(const rules_scenario *sc, const rules_figure *f)
{
    return sc->prof->fire_from_front ? f->front : f->shape.c;
}

/* ---- slope.c: sloped hills ---- */
/* A scenario piece's "slope_in" (o: the piece's JSON): checked (a number,
 * 0..RULES_MAX_SLOPE_IN, on an area whose kind raises), and when > 0 the
 * polygon pc->v becomes the footprint, the given one kept as pc->top. */
tt_status rules_slope_parse(const json_t *o, const char *at, const char *ruleset, rules_piece *pc, tt_err *err);
/* The height above the felt, inches, of piece pc's ground at (x, y)
 * inches: height_in on its top, falling along its sides, 0 off its
 * footprint.  For a piece without a slope, height_in inside it, else 0. */
double rules_slope_height(const rules_piece *pc, double x, double y);
/* The highest ground of piece pc along the segment a-b (its sides are
 * planes, so the highest point is where the segment enters or leaves one
 * side's part, or an end). */
double rules_slope_max_along(const rules_piece *pc, rules_pt a, rules_pt b);
/* Sloped piece pc blocks a line a-b that passes over `over` inches: its
 * ground rises above `over` along it, or (stands_on 0: neither end stands
 * on it) reaches `over`, as a flat piece as high as the line blocks it. */
int rules_slope_blocks(const rules_piece *pc, rules_pt a, rules_pt b, double over, int stands_on);
/* A straight move a-b climbs piece pc (its "uphill" going slows it): for
 * a flat piece, it starts off it and meets it; for a sloped one, the
 * ground along it rises above where it starts.  rules_slope_climbs_from:
 * the move starting at a pays the uphill price per inch inside it (a flat
 * piece: a starts off it; a sloped one: a is below its top). */
int rules_slope_climbs(const rules_piece *pc, rules_pt a, rules_pt b);
/* The outline (pc->n corners into out) of where sloped piece pc's ground
 * is higher than h: its top grown along its sides to that height; 0 (out
 * untouched) when it has no slope or h is not below its top. */
int rules_slope_level(const rules_piece *pc, double h, rules_pt *out);
int rules_slope_climbs_from(const rules_piece *pc, rules_pt a);

/* ---- errors.c: how sure a figure's position is ---- */
/* A figure's "err95_in", "z_err95_in" and "facing_err95_deg" (o: its
 * JSON), each a number from 0 to its RULES_MAX_*_ERR; sets sc->has_errors
 * when one is above 0. */
tt_status rules_figure_errors_parse(rules_scenario *sc, const json_t *o, const char *at, rules_figure *f, tt_err *err);
/* The same checks for values handed in directly (the live table). */
tt_status rules_figure_errors_check(const char *at, double err95_in, double z_err95_in, double facing_err95_deg,
                                    tt_err *err);
/* The 95 % bound on how far a point of f's base (its front-centre, the
 * edge nearest another figure) may lie from where it is taken to be: its
 * position's err95_in, and its facing's error turning the base (half its
 * diagonal times facing_err95_deg in radians), as independent. */
double rules_figure_err_eff(const rules_figure *f);

/* ---- grid.c ---- */
struct rules_grid *rules_grid_create(const rules_scenario *sc);
void rules_grid_destroy(struct rules_grid *g);
/* Is the segment a-b blocked by a LOS-blocking terrain edge (excluding
 * pieces flagged in `skip`, a list of piece indices, and pieces lower
 * than `over` inches, which the line passes over)?  Pieces whose
 * vertices touch the segment are decided by rules_piece_blocks. */
int rules_grid_blocked(struct rules_grid *g, const rules_scenario *sc, rules_pt a, rules_pt b, const int *skip,
                       int nskip, const int *skip2, int nskip2, double over);
/* LOS between figures i and j when only the grid's terrain can block (no
 * depth-limited pieces, figures do not block): rules_los_decide's answer. */
int rules_grid_los_figures(rules_scenario *sc, int i, int j);

/* Nearest hit of the ray p + t*d, 0 < t <= tmax (fixed-point units, in
 * double) with a LOS-blocking edge, ignoring edges with an end at `ignore`
 * and pieces in skip; tmax when none.  Inexact: for drawing. */
double rules_grid_ray(struct rules_grid *g, double px, double py, double dx, double dy, double tmax, rules_pt ignore,
                      const int *skip, int nskip);
/* The same by runs of cells (rules_grid_ray is the reference). */
double rules_grid_ray_fast(struct rules_grid *g, double px, double py, double dx, double dy, double tmax,
                           rules_pt ignore, const int *skip, int nskip);
/* rules_grid_ray(g, px, py, dx, dy, 1.0, ignore, skip, nskip) < 1 - 1e-9,
 * answered sooner: blockers of earlier rays from the same point are tried
 * first (the same inexact test), then the walk stops at the first hit. */
int rules_grid_ray_hidden(struct rules_grid *g, double px, double py, double dx, double dy, rules_pt ignore,
                          const int *skip, int nskip);

/* ---- figgrid.c ---- */
/* Indices of the figures that may lie within R of p (a superset; scratch
 * owned by the scenario, valid until the next call); -1 out of memory. */
int rules_figs_near(rules_scenario *sc, rules_pt p, int64_t R, const int **out);

/* ---- pieces.c ---- */
/* Exact: does the piece block / cut the segment a-b?  Closed pieces: the
 * segment meets the open interior; lines: the segment crosses the line. */
int rules_piece_cuts(const rules_piece *pc, rules_pt a, rules_pt b);
/* The length of a-b inside a closed piece, inches. */
double rules_piece_depth(const rules_piece *pc, rules_pt a, rules_pt b);
/* The parts of a-b inside a closed piece, as pairs t0 < t1 of parameters
 * in [0, 1] (in order) in *spans, allocated (the caller frees it; NULL
 * when none); the number of pairs, -1 out of memory.  Inexact (double):
 * where a part starts and ends. */
int rules_piece_spans(const rules_piece *pc, rules_pt a, rules_pt b, double **spans);
/* Parameter t in [0,1] where a-b first meets the piece (inexact, for
 * ordering). */
double rules_piece_entry_t(const rules_piece *pc, rules_pt a, rules_pt b);
int rules_piece_contains(const rules_piece *pc, rules_pt p); /* closed, incl. boundary */
/* Some part of the base s lies within L of the piece (or inside it). */
int rules_piece_near_shape(const rules_piece *pc, const rules_shape *s, int64_t L);

#endif
