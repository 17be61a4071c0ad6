/* keys.c - the keys a profile or a scenario may hold, and the check that
 * refuses any other key: "unknown key "blocks_lso" in terrain "woods"
 * (line 12, column 9): did you mean "blocks_los"?".
 *
 * The schemas below are the one list of known keys: a new profile or
 * scenario field is added here as well as where it is read.  Every object
 * of a profile may also carry its citation: "src" (book file and line),
 * "house" (true where the book does not settle the value) and "note".
 * The check itself (the walk, line and column, the nearest key) is
 * common/tt_keys.c, shared with the rig file. */
#include "rules_scenario.h"
#include "tt_keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The schemas are common/'s (tt_keys.h), under this file's names. */
typedef tt_keys_field rules__field;
typedef tt_keys_schema rules__schema;

#define RULES__TERRAIN_PROPS                                                                                         \
    {"blocks_los", NULL}, {"los_depth_in", NULL}, {"cover", NULL}, {"movement", NULL}, {"shields_blast", NULL}, {"cv", NULL}, \
        {"stops_ball", NULL}, {"height_in", NULL}, {"raises", NULL}, {"keeps_cv_from_above", NULL}, \
        {"hides_inside", NULL}, {"see_through_within_in", NULL}, {"max_range_in", NULL}, \
        {"hides_behind", NULL}, {"revealable", NULL}, {"located_within_in", NULL}, {"arc_behind_deg", NULL}, \
        {"arc_behind_for", NULL}, {"target_modifier", NULL}, {"move_factor", NULL}, {"move_factor_for", NULL}, \
        {"cross_formations", NULL}, {"cross_formations_for", NULL}

/* A value written with its citation: {"value": V, "src": ...}. */
static const rules__field rules__value_f[] = {{"value", NULL}, {NULL, NULL}};
static const rules__schema rules__value_s = {"value", NULL, rules__value_f, NULL, 1};

/* ---- profiles ---- */
static const rules__field rules__bracket_f[] = {
    {"name", NULL}, {"max_in", NULL}, {"to_hit", NULL}, {"modifier", NULL}, {NULL, NULL}};
static const rules__schema rules__bracket_s = {"bracket", "name", rules__bracket_f, NULL, 1};
static const rules__field rules__grape_moved_f[] = {{"to_hit_modifier", NULL}, {"keeps_dice", NULL}, {"rof", NULL}, {NULL, NULL}};
static const rules__schema rules__grape_moved_s = {"after_moving", NULL, rules__grape_moved_f, NULL, 1};
static const rules__field rules__grape_f[] = {{"range_in", NULL}, {"arc_deg", NULL}, {"to_hit", NULL}, {"dice", NULL}, {"not_over_friends", NULL}, {"enemies_only", NULL}, {"needs_los", NULL}, {"roll_each", NULL}, {"fire_modifiers", NULL}, {"after_moving", &rules__grape_moved_s}, {NULL, NULL}};
static const rules__schema rules__grape_s = {"grape", NULL, rules__grape_f, NULL, 1};
static const rules__field rules__dice_within_f[] = {{"range_in", NULL}, {"dice", NULL}, {NULL, NULL}};
static const rules__schema rules__dice_within_s = {"dice_within", NULL, rules__dice_within_f, NULL, 1};
static const rules__schema rules__by_colour_s = {"by_colour", NULL, NULL, &rules__value_s, 1};
static const rules__field rules__ammo_f[] = {
    {"distance", NULL}, {"critical", NULL}, {"blast_radius_in", NULL}, {"default", NULL}, {NULL, NULL}};
static const rules__schema rules__ammo_entry_s = {"ammo", NULL, rules__ammo_f, NULL, 1};
static const rules__schema rules__ammo_s = {"ammo", NULL, NULL, &rules__ammo_entry_s, 1};
static const rules__field rules__deviation_f[] = {{"axes", NULL},  {"off_low", NULL},  {"off_high", NULL},
                                                  {"distance", NULL}, {"clock", NULL},   {"critical", NULL},
                                                  {"dud", NULL},      {"dud_die", NULL}, {"ammo", &rules__ammo_s},
                                                  {NULL, NULL}};
static const rules__schema rules__deviation_s = {"deviation", NULL, rules__deviation_f, NULL, 1};
static const rules__field rules__cover_f[] = {{"soft", NULL}, {"hard", NULL}, {NULL, NULL}};
static const rules__schema rules__cover_s = {"cover", NULL, rules__cover_f, NULL, 1};
static const rules__field rules__weapon_moved_f[] = {{"to_hit_modifier", NULL}, {"keeps_dice", NULL}, {NULL, NULL}};
static const rules__schema rules__weapon_moved_s = {"after_moving", NULL, rules__weapon_moved_f, NULL, 1};
static const rules__field rules__weapon_f[] = {{"range_in", NULL},
                                               {"after_moving", &rules__weapon_moved_s},
                                               {"min_range_in", NULL},
                                               {"indirect_modifier", NULL},
                                               {"dice", NULL},
                                               {"front_ranks", NULL},
                                               {"cannot_move_and_fire", NULL},
                                               {"no_to_hit", NULL},
                                               {"ignores_firer_type_modifier", NULL},
                                               {"cover_dice", &rules__cover_s},
                                               {"bonus_dice_within", &rules__dice_within_s},
                                               {"best_colour", NULL},
                                               {"still_bonus_dice", NULL},
                                               {"not_types", NULL},
                                               {"over_friends_min_in", NULL},
                                               {"fires_over_from_hill", NULL},
                                               {"dice_within", &rules__dice_within_s},
                                               {"brackets", &rules__bracket_s},
                                               {"indirect", NULL},
                                               {"needs_spotter", NULL},
                                               {"arc_deg", NULL},
                                               {"pivot_deg", NULL},
                                               {"grape", &rules__grape_s},
                                               {"ball", NULL},
                                               {"blast_radius_in", NULL},
                                               {"blast_to_hit", NULL},
                                               {"deviation", &rules__deviation_s},
                                               {NULL, NULL}};
static const rules__schema rules__weapon_s = {"weapon", NULL, rules__weapon_f, NULL, 1};
static const rules__schema rules__weapons_s = {"weapons", NULL, NULL, &rules__weapon_s, 1};
static const rules__field rules__kind_f[] = {RULES__TERRAIN_PROPS, {NULL, NULL}};
static const rules__schema rules__kind_s = {"terrain", NULL, rules__kind_f, NULL, 1};
static const rules__schema rules__kinds_s = {"terrain", NULL, NULL, &rules__kind_s, 1};
static const rules__field rules__base_f[] = {{"round_in", NULL}, {"rect_in", NULL}, {NULL, NULL}};
static const rules__schema rules__base_s = {"base", NULL, rules__base_f, NULL, 1};
static const rules__schema rules__dd_by_type_s = {"by_type", NULL, NULL, &rules__value_s, 1};
static const rules__field rules__defence_f[] = {{"soft", NULL}, {"hard", NULL}, {"by_type", &rules__dd_by_type_s}, {NULL, NULL}};
static const rules__schema rules__defence_s = {"defence_dice", NULL, rules__defence_f, NULL, 1};
static const rules__field rules__to_hit_f[] = {{"die", NULL},         {"max", NULL},
                                               {"always_hits", NULL}, {"always_misses", NULL},
                                               {"cover", &rules__cover_s}, {"by_colour", &rules__by_colour_s},
                                               {"modifiers_add_to", NULL}, {"target_charging_modifier", NULL},
                                               {NULL, NULL}};
static const rules__schema rules__to_hit_s = {"to_hit", NULL, rules__to_hit_f, NULL, 1};
static const rules__field rules__los_f[] = {{"figures_block", NULL},
                                            {"own_skirmishers_block", NULL},
                                            {"own_unit_blocks_fire", NULL},
                                            {"friends_block_sight", NULL},
                                            {"over_lower_figures", NULL},
                                            {"sight_arc_deg", NULL},
                                            {"through_own_skirmishers_modifier", NULL},
                                            {"from", NULL},
                                            {"artillery_on_hill_fires_over_in", NULL},
                                            {NULL, NULL}};
static const rules__schema rules__los_s = {"los", NULL, rules__los_f, NULL, 1};
/* A movement allowance: a number, a dice string, or {"inches"|"dice", src}. */
static const rules__field rules__gait_f[] = {{"inches", NULL}, {"min_in", NULL}, {"turn_in", NULL}, {NULL, NULL}};
static const rules__schema rules__gait_s = {"gait", NULL, rules__gait_f, NULL, 1};
static const rules__schema rules__gaits_s = {"gaits", NULL, NULL, &rules__gait_s, 1};
static const rules__schema rules__by_name_s = {"inches_by", NULL, NULL, &rules__value_s, 1};
static const rules__field rules__move_f[] = {{"gaits", &rules__gaits_s}, {"inches", NULL},           {"dice", NULL},          {"difficult_factor", NULL},
                                             {"difficult_cost_in", NULL}, {"any_direction", NULL},
                                             {"inches_by_quality", &rules__by_name_s}, {"inches_by_weapon", &rules__by_name_s},
                                             {"impassable_in", NULL}, {NULL, NULL}};
static const rules__schema rules__move_s = {"movement", NULL, rules__move_f, NULL, 1};
static const rules__schema rules__moves_s = {"movement", NULL, NULL, &rules__move_s, 1};
static const rules__field rules__effects_f[] = {{"difficult_factor", NULL},   {"obstacle_cost_in", NULL},
                                                {"round_up", NULL},           {"very_difficult_factor", NULL},
                                                {"not_forward_factor", NULL}, {"forward_arc_deg", NULL},
                                                {"least_factor", NULL},       {"road_factor", NULL},
                                                {"free_turn_deg", NULL},      {"per_inch", NULL},
                                                {"by_base", NULL},
                                                {NULL, NULL}};
static const rules__schema rules__effects_s = {"terrain_effects", NULL, rules__effects_f, NULL, 1};
static const rules__field rules__quality_f[] = {{"ds", NULL}, {NULL, NULL}};
static const rules__schema rules__quality_s = {"quality", NULL, rules__quality_f, NULL, 1};
static const rules__schema rules__stat_type_s = {"stats", NULL, NULL, &rules__quality_s, 1};
static const rules__schema rules__stats_s = {"stats", NULL, NULL, &rules__stat_type_s, 1};
static const rules__field rules__above_f[] = {{"cv", NULL}, {"beyond_in", NULL}, {NULL, NULL}};
static const rules__schema rules__above_s = {"cover_from_above", NULL, rules__above_f, NULL, 1};
/* where the ruleset's flank and rear come from: a citation only */
static const rules__field rules__aspect_f[] = {{"mode", NULL}, {"front_arc_deg", NULL}, {"rear_arc_deg", NULL}, {NULL, NULL}};
static const rules__schema rules__aspect_s = {"aspect", NULL, rules__aspect_f, NULL, 1};
static const rules__schema rules__fire_quality_s = {"fire_quality", NULL, NULL, &rules__value_s, 1};
static const rules__schema rules__firer_type_s = {"firer_type_modifier", NULL, NULL, &rules__value_s, 1};
static const rules__schema rules__by_type_s = {"by type", NULL, NULL, &rules__value_s, 1};
static const rules__field rules__front_bonus_f[] = {{"value", NULL}, {"option", NULL}, {NULL, NULL}};
static const rules__schema rules__front_bonus_s = {"front_bonus_dice", NULL, rules__front_bonus_f, NULL, 1};
static const rules__field rules__formation_f[] = {{"target_modifier", NULL},
                                                  {"attacker_bonus_dice", NULL},
                                                  {"front_bonus_dice", &rules__front_bonus_s},
                                                  {"no_flank", NULL},
                                                  {"melee_attacker_colour", &rules__by_type_s},
                                                  {"road", NULL},
                                                  {"rof_bonus", NULL},
                                                  {"rof_min_wide", NULL},
                                                  {"rof_min_wide_by_type", &rules__by_type_s},
                                                  {"inches", &rules__by_type_s},
                                                  {"difficult_cost_in", NULL},
                                                  {"defence_dice", NULL},
                                                  {"attacker_colour", NULL},
                                                  {"cannot_fire", NULL},
                                                  {"not_target", NULL},
                                                  {NULL, NULL}};
static const rules__schema rules__formation_s = {"formation", NULL, rules__formation_f, NULL, 1};
static const rules__schema rules__formations_s = {"formations", NULL, NULL, &rules__formation_s, 1};
static const rules__schema rules__charge_in_s = {"inches", NULL, NULL, &rules__value_s, 1};
static const rules__field rules__charge_f[] = {{"factor", NULL}, {"inches", &rules__charge_in_s},
                                               {"formations", &rules__value_s}, {"formations_by_type", &rules__by_type_s},
                                               {"not_at", &rules__by_type_s}, {"not_types", NULL}, {"from", &rules__value_s},
                                               {"straight_ahead", &rules__value_s}, {NULL, NULL}};
static const rules__schema rules__charge_s = {"charge", NULL, rules__charge_f, NULL, 1};
static const rules__field rules__after_moving_f[] = {{"to_hit_modifier", NULL}, {"drops_bonuses", NULL}, {"rof", NULL},
                                                     {"only_at_rof", NULL}, {NULL, NULL}};
static const rules__schema rules__after_moving_s = {"after_moving", NULL, rules__after_moving_f, NULL, 1};
static const rules__schema rules__option_s = {"option", NULL, NULL, NULL, 1};
static const rules__schema rules__options_s = {"options", NULL, NULL, &rules__option_s, 1};
static const rules__field rules__bonus_f[] = {
    {"flank", NULL}, {"rear", NULL}, {"high_ground", NULL}, {"not_against_skirmishers", NULL}, {NULL, NULL}};
static const rules__schema rules__bonus_s = {"bonus_dice", NULL, rules__bonus_f, NULL, 1};
static const rules__field rules__defence_roll_f[] = {{"dice", NULL}, {"not_types", NULL}, {NULL, NULL}};
static const rules__schema rules__defence_roll_s = {"defence_roll", NULL, rules__defence_roll_f, NULL, 1};
static const rules__schema rules__melee_def_s = {"melee dice", NULL, NULL, &rules__value_s, 1};
static const rules__schema rules__melee_dice_s = {"melee dice", NULL, NULL, &rules__melee_def_s, 1};
static const rules__field rules__melee_f[] = {{"attacker_colour", NULL},
                                              {"dice", &rules__melee_dice_s},
                                              {"defender_dice", NULL},
                                              {"defender_colour_by_type", &rules__by_type_s},
                                              {NULL, NULL}};
static const rules__schema rules__melee_s = {"melee", NULL, rules__melee_f, NULL, 1};
static const rules__field rules__unit_fire_f[] = {{"from", NULL}, {"centre_seen", NULL}, {NULL, NULL}};
static const rules__schema rules__unit_fire_s = {"unit_fire", NULL, rules__unit_fire_f, NULL, 1};
static const rules__field rules__fbt_f[] = {{"default", NULL}, {"only", NULL}, {NULL, NULL}};
static const rules__schema rules__fbt_s = {"formation_by_type", NULL, rules__fbt_f, NULL, 1};
static const rules__schema rules__fbt_map_s = {"formation_by_type", NULL, NULL, &rules__fbt_s, 1};
static const rules__field rules__command_f[] = {
    {"action", NULL}, {"per_figure", NULL}, {"types", &rules__by_type_s}, {NULL, NULL}};
static const rules__schema rules__command_s = {"command", NULL, rules__command_f, NULL, 1};
static const rules__field rules__phase_f[] = {{"name", NULL}, {"sides", NULL}, {"moves", NULL}, {"charges", NULL},
                                              {NULL, NULL}};
static const rules__schema rules__phase_s = {"phase", "name", rules__phase_f, NULL, 1};
static const rules__field rules__turns_f[] = {{"phases", &rules__phase_s}, {"one_move_a_turn", &rules__value_s},
                                              {"immobile_formations", &rules__value_s}, {NULL, NULL}};
static const rules__schema rules__turns_s = {"turns", NULL, rules__turns_f, NULL, 1};
static const rules__field rules__call_mod_f[] = {{"value", NULL},      {"reason", NULL}, {"with_type", NULL},
                                                 {"unit", NULL},       {"below_half", NULL}, {"asked", NULL},
                                                 {NULL, NULL}};
static const rules__schema rules__call_mod_s = {"modifier", "reason", rules__call_mod_f, NULL, 1};
static const rules__field rules__since_turn_f[] = {{"fraction", NULL}, {"result", NULL}, {NULL, NULL}};
static const rules__schema rules__since_turn_s = {"result_lost_since_turn", NULL, rules__since_turn_f, NULL, 1};
static const rules__field rules__call_f[] = {{"call", NULL},
                                             {"after", NULL},
                                             {"dice", NULL},
                                             {"lost_at", NULL},
                                             {"needs", NULL},
                                             {"then_needs", NULL},
                                             {"any_loss", NULL},
                                             {"needs_by_rating", &rules__by_type_s},
                                             {"needs_note", NULL},
                                             {"modifiers", &rules__call_mod_s},
                                             {"result", NULL},
                                             {"result_lost_since_turn", &rules__since_turn_s},
                                             {"collapse_at", &rules__by_type_s},
                                             {"not_counted", &rules__value_s},
                                             {NULL, NULL}};
static const rules__schema rules__call_s = {"call", "call", rules__call_f, NULL, 1};
static const rules__field rules__profile_f[] = {{"ruleset", NULL},
                                                {"formation_by_type", &rules__fbt_map_s},
                                                {"unit_fire", &rules__unit_fire_s},
                                                {"melee", &rules__melee_s},
                                                {"defence_quality", &rules__fire_quality_s},
                                                {"aim_at", &rules__by_type_s},
                                                {"skirmisher_types", NULL},
                                                {"cannot_fire_types", NULL},
                                                {"not_target_types", NULL},
                                                {"unmodified_fire_types", NULL},
                                                {"options", &rules__options_s},
                                                {"bonus_dice", &rules__bonus_s},
                                                {"defence_roll", &rules__defence_roll_s},
                                                {"after_moving", &rules__after_moving_s},
                                                {"charge", &rules__charge_s},
                                                {"fire_quality", &rules__fire_quality_s},
                                                {"formations", &rules__formations_s},
                                                {"cover_from_above", &rules__above_s},
                                                {"title", NULL},
                                                {"notes", NULL},
                                                {"measure", NULL},
                                                {"base", &rules__base_s},
                                                {"to_hit", &rules__to_hit_s},
                                                {"cover_within_in", NULL},
                                                {"cover_near_firer_in", NULL},
                                                {"firer_type_modifier", &rules__firer_type_s},
                                                {"defence_dice", &rules__defence_s},
                                                {"stats", &rules__stats_s},
                                                {"los", &rules__los_s},
                                                {"aspect", &rules__aspect_s},
                                                {"command_radius_in", NULL},
                                                {"command", &rules__command_s},
                                                {"movement", &rules__moves_s},
                                                {"terrain_effects", &rules__effects_s},
                                                {"terrain", &rules__kinds_s},
                                                {"weapons", &rules__weapons_s},
                                                {"turns", &rules__turns_s},
                                                {"losses", &rules__call_s},
                                                {NULL, NULL}};
static const rules__schema rules__profile_s = {"profile", NULL, rules__profile_f, NULL, 1};

/* ---- scenarios ---- */
static const rules__field rules__table_f[] = {{"width_in", NULL}, {"depth_in", NULL}, {NULL, NULL}};
static const rules__schema rules__table_s = {"table", NULL, rules__table_f, NULL, 0};
static const rules__field rules__piece_f[] = {
    {"id", NULL}, {"kind", NULL}, {"polygon", NULL}, {"line", NULL}, {"note", NULL}, {"slope_in", NULL}, RULES__TERRAIN_PROPS,
    {NULL, NULL}};
static const rules__schema rules__piece_s = {"terrain", "id", rules__piece_f, NULL, 0};
static const rules__field rules__figure_f[] = {{"id", NULL},      {"side", NULL},      {"unit", NULL},
                                               {"type", NULL},    {"weapon", NULL},    {"x", NULL},
                                               {"y", NULL},       {"facing_deg", NULL}, {"base", &rules__base_s},
                                               {"colour", NULL},  {"quality", NULL},   {"ds", NULL}, {"formation", NULL},
                                               {"note", NULL},    {"err95_in", NULL}, {"z_err95_in", NULL},
                                               {"facing_err95_deg", NULL}, {NULL, NULL}};
static const rules__schema rules__figure_s = {"figure", "id", rules__figure_f, NULL, 0};
static const rules__field rules__scenario_f[] = {{"ruleset", NULL}, {"title", NULL},
                                                 {"notes", NULL},   {"table", &rules__table_s},
                                                 {"terrain", &rules__piece_s}, {"figures", &rules__figure_s},
                                                 {"tags", NULL},    {"options", NULL},
                                                 {NULL, NULL}};
static const rules__schema rules__scenario_s = {"scenario", NULL, rules__scenario_f, NULL, 0};

/* ---- the check (common/tt_keys.c) ---- */

/* Every profile object may carry its citation; an object standing under a
 * key without a schema is a value written with its citation. */
static const char *const rules__cite_keys[] = {"src", "house", "note", NULL};
static const tt_keys_cite rules__cite = {rules__cite_keys, &rules__value_s};

const char *rules_nearest_word(const char *word, const char *const *known, size_t n)
{
    return tt_keys_nearest(word, known, n);
}

tt_status rules_keys_check_profile(const json_t *root, const char *text, const char *where, int inline_in_scenario,
                                   tt_err *err)
{
    const tt_keys_step in_scenario = {"ruleset", 0};
    return tt_keys_check(root, &rules__profile_s, &rules__cite, text, where, &in_scenario, inline_in_scenario ? 1 : 0,
                         err);
}

tt_status rules_keys_check_scenario(const json_t *root, const char *text, const char *where, tt_err *err)
{
    /* an inline profile ("ruleset": {...}) is checked by the profile's schema */
    json_t *copy = NULL;
    tt_status st;
    if (json_is_object(root) && json_is_object(json_object_get(root, "ruleset"))) {
        if ((st = rules_keys_check_profile(json_object_get(root, "ruleset"), text, where, 1, err)))
            return st;
        if (!(copy = json_copy((json_t *)root)))
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        json_object_del(copy, "ruleset");
        root = copy;
    }
    st = tt_keys_check(root, &rules__scenario_s, &rules__cite, text, where, NULL, 0, err);
    json_decref(copy);
    return st;
}

/* ---- house values ---- */

static tt_status rules__house_walk(const json_t *v, char *path, size_t len, size_t cap, json_t *out)
{
    if (json_is_object(v)) {
        const char *key;
        json_t *val;
        if (json_is_true(json_object_get(v, "house"))) {
            json_t *e = json_pack("{s:s, s:O?}", "path", len ? path : "(profile)", "note", json_object_get(v, "note"));
            if (!e || json_array_append_new(out, e))
                return TT_ERR_NOMEM;
        }
        json_object_foreach((json_t *)v, key, val)
        {
            int k = snprintf(path + len, cap - len, "%s%s", len ? "." : "", key);
            if (k < 0 || (size_t)k >= cap - len)
                continue;
            if (rules__house_walk(val, path, len + (size_t)k, cap, out))
                return TT_ERR_NOMEM;
        }
        path[len] = '\0';
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            int k = snprintf(path + len, cap - len, "[%zu]", i);
            if (k < 0 || (size_t)k >= cap - len)
                continue;
            if (rules__house_walk(json_array_get(v, i), path, len + (size_t)k, cap, out))
                return TT_ERR_NOMEM;
        }
        path[len] = '\0';
    }
    return TT_OK;
}

json_t *rules_profile_house_values(const json_t *profile)
{
    char path[1024] = "";
    json_t *out = json_array();
    if (!out || rules__house_walk(profile, path, 0, sizeof path, out)) {
        json_decref(out);
        return NULL;
    }
    return out;
}
