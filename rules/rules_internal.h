/* rules_internal.h - data structures shared by the files of rules/ (not part
 * of the public API).
 *
 * Fixed point: every coordinate is an int64 count of 1/10000 inch.  Input
 * coordinates are limited to |v| <= RULES_MAX_IN inches so that every
 * orientation determinant (products of two differences) fits in int64;
 * squared distances are compared in __int128.
 */
#ifndef TT_RULES_INTERNAL_H
#define TT_RULES_INTERNAL_H

#include <stdint.h>

#include "rules.h"
#include "rules_geom.h"

#define RULES_MAX_IN 20000.0 /* largest |coordinate| or range accepted, inches */

/* rules_geom_poly_simple's answer (the same offending edges), found with a
 * uniform grid so a polygon of RULES_MAX_CORNERS corners is checked in
 * near-linear time.  -1 when out of memory. */
int rules_poly_simple_grid(const rules_pt *v, int n, int *e1, int *e2);

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
} rules_terrain_props;

/* Pieces whose blocking depends on more than their edges (a depth of
 * sight, a viewer's distance): decided piece by piece, not by the grid. */
static inline int rules_props_deep(const rules_terrain_props *p)
{
    return p->los_depth_in > 0 || p->see_through_within_in > 0 || p->nhides_behind > 0;
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
    double *vin;      /* vertices in inches (2n), for output */
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
    int q_moved;             /* the fire query being answered: its firer moved first */
    int q_charging;          /* the fire query's target is charging (as a cluster) */
    unsigned options;        /* the profile's optional rules switched on (bit k: opt_name[k]) */
    int q_has_facing;        /* the move query being answered ends facing q_facing_deg */
    double q_facing_deg;
    int q_revealed;          /* the los/fire query being answered: its target was revealed */
    int q_rof;               /* > 0: the dice the firer would roll at rest (its unit's line bonus in) */
    const char *q_gait;      /* the move query being answered: the mount's gait, or NULL */
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

/* ---- profile.c ---- */
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
tt_status rules_scenario_figure(const rules_scenario *sc, const char *id, const char *role, int *out, tt_err *err);
/* (Re)compute a figure's fixed-point shape and containing pieces. */
tt_status rules_figure_setup(rules_scenario *sc, rules_figure *f, tt_err *err);
/* The closed pieces containing point c into inside (room for every piece),
 * how many; *elev the height of the highest that raises what stands on it,
 * *on_hill whether one is a hill. */
int rules_stand_on(const rules_scenario *sc, rules_pt c, int *inside, double *elev, int *on_hill);

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

/* ---- los.c ---- */
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
/* The troops piece pc hides (its located_within_in > 0) are located for
 * figure i: a figure of i's side (or i itself) is within that distance of
 * the piece. */
int rules_piece_located(const rules_scenario *sc, int i, const rules_piece *pc);
/* Full LOS decision between figures i and j.  blocker: piece index >= 0,
 * or -(figure index) - 2, or -1 when visible.  grid: use the grid. */
int rules_los_decide(rules_scenario *sc, int i, int j, int use_grid, int want_blocker, int *blocker);
/* The same for a line of fire (the ruleset may let figures see through
 * friends but not fire through them).  hint (may be NULL): a figure that
 * blocked an earlier line from i, tried first, and set to this line's
 * blocking figure when one is found. */
int rules_fire_decide(rules_scenario *sc, int i, int j, int use_grid, int want_blocker, int *blocker, int *hint);
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
/* Distance between figures under the ruleset's convention, inches. */
double rules_figure_distance(const rules_scenario *sc, const rules_figure *a, const rules_figure *b);
/* ... is <= R (exact). */
int rules_figure_within(const rules_scenario *sc, const rules_figure *a, const rules_figure *b, int64_t R);
/* The weapon `name` (if not NULL) or the figure's own. */
tt_status rules_weapon_of(const rules_scenario *sc, const rules_figure *f, const char *name, const rules_weapon **w,
                          tt_err *err);

/* The dice a figure rolls after moving (the query's "moved") that rolls
 * d at rest: cut to the profile's after_moving "rof" unless the weapon
 * keeps its dice. */
int rules_moved_dice(const rules_scenario *sc, const rules_weapon *w, int d);
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
 * soldier of j's unit when j is its officer). */
void rules_fire_pair(rules_scenario *sc, int i, int j, int dj, const rules_weapon *w, rules_result *out);

/* The score figure i needs against figure j from `base` (a bracket's
 * score, its modifier taken off) less j's cover against i, as "fire"
 * counts it (cover value, cover modifier); RULES_NULL when no roll can. */
int rules_cover_to_hit(rules_scenario *sc, int i, int j, int base, const int *cand, int nc);
/* The to-hit modifier for having moved (the query's "moved", else 0) of a
 * figure firing w that would roll rest dice at rest: the weapon's own
 * after_moving modifier, else the ruleset's (only for a figure whose dice
 * could not be cut, where it says so). */
int rules_fire_moved_mod(const rules_scenario *sc, const rules_weapon *w, int rest);
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
void rules_fire_mods(rules_scenario *sc, int i, int j, int dj, const rules_weapon *w, int visible, int cover_piece,
                     rules_cover cv, int mmod, rules_modifier *mods, int *n, int why);

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
void rules_fire_bonus(rules_scenario *sc, const int *F, int nF, const int *T, int nT, int j, const rules_weapon *w,
                      int si, int sj, rules_result *out);
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
/* Figures of this type are soldiers: not one of the defence roll's
 * not_types (officers, ensigns, generals, cannon). */
int rules_is_soldier(const rules_profile *p, const char *type);
/* type is one of names (n of them). */
int rules_type_in(const char (*names)[24], int n, const char *type);
/* The dice of a melee (profile "melee") the charge i (of group F) -> j
 * (of group T) starts: dice, to_hit, bonus_dice, defence_dice,
 * defender_dice, defender_to_hit; an error where i's type cannot attack
 * j's.  Nothing where the profile has no melee or both are one side. */
tt_status rules_melee_dice(rules_scenario *sc, const int *F, int nF, const int *T, int nT, int i, int j,
                           rules_result *out, tt_err *err);

/* ---- unitfire.c ---- */
/* 'fire' where `from` or `to` names a unit (firers, targets, total dice);
 * fi / fj: the figure index of `from` / `to`, or -1 when it is not a figure. */
tt_status rules_fire_unit(rules_scenario *sc, const char *from, int fi, const char *to, int fj, const char *weapon,
                          rules_result *out, tt_err *err);
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
/* A figure of the unit, or -1 when no figure has that "unit". */
int rules_scenario_unit_member(const rules_scenario *sc, const char *unit);

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
int rules_centre_seen(rules_scenario *sc, int s, const int *T, int nT, int *blocker, rules_pt *centre);

/* ---- arc.c ---- */
/* An arc of total width arc_deg (>= 360: a full circle) centred on
 * facing_deg, apex p, radius R, split into sectors of <= 180 degrees. */
typedef struct rules_arc {
    rules_pt p;
    int64_t R;
    int full, nsec;
    rules_pt lo[2], hi[2], elo[2], ehi[2];
} rules_arc;
void rules_arc_init(rules_arc *a, rules_pt p, double facing_deg, double arc_deg, int64_t R);
/* Some part of the base lies in the arc. */
int rules_arc_meets(const rules_arc *a, const rules_shape *s);
/* The arc as a polygon for drawing (malloc'd, n points). */
rules_point *rules_arc_polygon(rules_pt p, double facing_deg, double arc_deg, double R_in, size_t *n);

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
int rules_fire_shot(rules_scenario *sc, int i, int j, const rules_weapon *w, const rules_arc *arc, int want_visible,
                    int *visible, const rules_bracket **br, int *hint);

/* ---- result.c ---- */
tt_status rules_result_add_id(rules_result *r, const char *id, size_t *cap, tt_err *err);
/* The answer's `rule`, a copy of text composed for it (owned by r). */
tt_status rules_result_set_rule(rules_result *r, const char *text, tt_err *err);
void rules_result_sort_ids(rules_result *r);
const char *rules_cover_name(rules_cover c);

#endif
