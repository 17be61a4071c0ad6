/* profile_parse.h - the parts of the profile loader (profile_load.c), one
 * file a topic; private to scenario/profile*.c.  Each section reads its
 * member of the profile's JSON j into p, naming `where` in messages. */
#ifndef TT_RULES_PROFILE_PARSE_H
#define TT_RULES_PROFILE_PARSE_H

#include "rules_scenario.h"

/* ---- profile.c ---- */
/* A list of up to max figure types (v: a JSON array, or NULL) into
 * out[*n...]: "WHAT must list up to MAX figure types". */
tt_status rules__type_list(const json_t *v, const char *at, const char *what, int max, char (*out)[24], int *n,
                           tt_err *err);
int rules__colour_index(const rules_profile *p, const char *name);
/* {"TYPE": "colour", ...} (up to max) -> types and colour indices. */
tt_status rules__colour_map(const rules_profile *p, const json_t *o, const char *at, const char *what, int max,
                            char (*types)[24], int *cols, int *n, tt_err *err);

/* ---- profile_weapons.c ---- */
/* "weapons": each weapon by name (at least one). */
tt_status rules__weapons_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err);

/* ---- profile_fire.c ---- */
/* "to_hit": the die, the most a roll may need, the sign of modifiers,
 * the score by colour, cover modifiers. */
tt_status rules__to_hit_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err);
/* The stat lines: {"type": {"quality": {"ds": N}, ...}, ...}, or
 * {"type": {"ds": N}} for every quality (artillery); every type must give
 * every quality some other type names. */
tt_status rules__stats_parse(rules_profile *p, const json_t *stats, const char *where, tt_err *err);
/* "defence_dice": the dice cover gives the defender, and by its type. */
tt_status rules__defence_dice_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err);
/* "options" (optional rules a scenario switches on), "bonus_dice" (flank,
 * rear, high ground) and "defence_roll" (the defender's own dice). */
tt_status rules__bonus_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err);
/* The firer's quality: {"veteran": 1, ...}, and its type: {"horse": 1}
 * (on horseback), as to-hit modifiers. */
tt_status rules__firer_mods_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err);
/* Firing after moving: {"to_hit_modifier": -1, "drops_bonuses": true}. */
tt_status rules__after_moving_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err);
/* Each weapon's fire_src: its own src, then where the score needed comes
 * from when it is the firer's colour (to_hit) and the defender's own roll
 * (defence_roll), each the profile section's citation. */
tt_status rules__fire_cites(rules_profile *p, const json_t *j, const char *where, tt_err *err);

/* ---- profile_units.c ---- */
/* Formations: {"column": {"target_modifier": 1}, "line": {"rof_bonus": 1,
 * "rof_min_wide": 4}}. */
tt_status rules__formations_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err);
/* Charges: {"factor": 2} or {"inches": {"foot": 4, ...}}, with src. */
tt_status rules__charge_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err);
/* "command": {"action": "rally", "per_figure": true,
 *              "types": {"general": "side", "officer": "unit", ...}} */
tt_status rules__command_parse(rules_profile *p, const json_t *c, const char *where, tt_err *err);
/* "aspect": {"mode": "arc", "front_arc_deg": 180, "rear_arc_deg": 180}
 * (no mode: by the side of the base the line crosses). */
tt_status rules__aspect_parse(rules_profile *p, const json_t *a, const char *at, tt_err *err);
/* "formation_by_type": {"skirmisher": {"default": "loose", "only": ["loose",
 * "mob"]}, ...}: a type's formation where the scenario gives none, and the
 * only formations it may take (the formations must be the profile's). */
tt_status rules__fbt_parse(rules_profile *p, const json_t *o, const char *where, tt_err *err);

/* ---- profile_movement.c ---- */
/* "terrain_effects": how going slows a move, and where each effect is cited. */
tt_status rules__terrain_effects_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err);
/* "movement": each figure type's allowance. */
tt_status rules__movement_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err);

/* ---- profile_turns.c ---- */
/* "turns": the phases of a turn in the book's order (each a name, whose
 * sides act in it, whether figures move or charge in it) and "losses": the
 * tests and results the book calls from casualties.  Read last: it names
 * the profile's formations. */
tt_status rules__turns_parse(rules_profile *p, const json_t *j, const char *where, tt_err *err);

#endif
