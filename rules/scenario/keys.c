/* keys.c - the keys a profile or a scenario may hold, and the check that
 * refuses any other key: "unknown key "blocks_lso" in terrain "woods"
 * (line 12, column 9): did you mean "blocks_los"?".
 *
 * The schemas below are the one list of known keys: a new profile or
 * scenario field is added here as well as where it is read.  Every object
 * of a profile may also carry its citation: "src" (book file and line),
 * "house" (true where the book does not settle the value) and "note". */
#include "rules_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A field: its key and, for an object or array of objects, their schema. */
typedef struct rules__field {
    const char *key;
    const struct rules__schema *sub;
} rules__field;

/* An object's schema.  `label` names the object in messages ("terrain");
 * `name_key` is the member that names it ("id"), or NULL to use the map
 * key it stands under.  A map (`map_of`) takes any key, each value of
 * schema map_of.  `cited`: src/house/note are allowed. */
typedef struct rules__schema {
    const char *label;
    const char *name_key;
    const rules__field *fields;
    const struct rules__schema *map_of;
    int cited;
} rules__schema;

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
                                               {"note", NULL},    {NULL, NULL}};
static const rules__schema rules__figure_s = {"figure", "id", rules__figure_f, NULL, 0};
static const rules__field rules__scenario_f[] = {{"ruleset", NULL}, {"title", NULL},
                                                 {"notes", NULL},   {"table", &rules__table_s},
                                                 {"terrain", &rules__piece_s}, {"figures", &rules__figure_s},
                                                 {"tags", NULL},    {"options", NULL},
                                                 {NULL, NULL}};
static const rules__schema rules__scenario_s = {"scenario", NULL, rules__scenario_f, NULL, 0};

/* ---- where a key stands in the text ---- */

typedef struct rules__scan {
    const char *s;
    int line, col;
} rules__scan;

static void rules__adv(rules__scan *c)
{
    if (*c->s == '\n') {
        c->line++;
        c->col = 1;
    } else if (((unsigned char)*c->s & 0xC0) != 0x80) {
        c->col++;
    }
    c->s++;
}

static void rules__ws(rules__scan *c)
{
    while (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r')
        rules__adv(c);
}

/* Skips a string at c->s (on its opening quote); copies up to n-1 bytes of
 * its raw content into buf when buf is not NULL. */
static int rules__string(rules__scan *c, char *buf, size_t n)
{
    size_t k = 0;
    if (*c->s != '"')
        return -1;
    rules__adv(c);
    while (*c->s && *c->s != '"') {
        if (*c->s == '\\' && c->s[1]) {
            if (buf && k + 1 < n)
                buf[k++] = c->s[1];
            rules__adv(c);
            rules__adv(c);
            continue;
        }
        if (buf && k + 1 < n)
            buf[k++] = *c->s;
        rules__adv(c);
    }
    if (buf && n)
        buf[k] = '\0';
    if (*c->s != '"')
        return -1;
    rules__adv(c);
    return 0;
}

/* Skips one JSON value (the text was already parsed by jansson, so it is
 * well formed). */
static int rules__skip(rules__scan *c)
{
    rules__ws(c);
    if (*c->s == '"')
        return rules__string(c, NULL, 0);
    if (*c->s == '{' || *c->s == '[') {
        int depth = 0;
        do {
            if (*c->s == '"') {
                if (rules__string(c, NULL, 0))
                    return -1;
                continue;
            }
            if (*c->s == '{' || *c->s == '[')
                depth++;
            else if (*c->s == '}' || *c->s == ']')
                depth--;
            if (!*c->s)
                return -1;
            rules__adv(c);
        } while (depth > 0);
        return 0;
    }
    while (*c->s && !strchr(",}] \t\r\n", *c->s))
        rules__adv(c);
    return 0;
}

/* Skips a value and the comma after it (the next member or element follows). */
static int rules__next(rules__scan *c)
{
    if (rules__skip(c))
        return -1;
    rules__ws(c);
    if (*c->s != ',')
        return -1;
    rules__adv(c);
    return 0;
}

/* One step of a path: an object key, or an array index when key is NULL. */
typedef struct rules__step {
    const char *key;
    size_t index;
} rules__step;

/* Line and column of the last step's key (or element) in `text`. */
static int rules__locate(const char *text, const rules__step *path, int n, int *line, int *col)
{
    rules__scan c = {text, 1, 1};
    char key[256];
    for (int d = 0; d < n; d++) {
        rules__ws(&c);
        if (path[d].key) {
            if (*c.s != '{')
                return -1;
            rules__adv(&c);
            for (;;) {
                rules__ws(&c);
                if (*c.s != '"')
                    return -1;
                rules__scan at = c;
                if (rules__string(&c, key, sizeof key))
                    return -1;
                rules__ws(&c);
                if (*c.s != ':')
                    return -1;
                rules__adv(&c);
                if (!strcmp(key, path[d].key)) {
                    if (d == n - 1) {
                        *line = at.line;
                        *col = at.col;
                        return 0;
                    }
                    break;
                }
                if (rules__next(&c))
                    return -1;
            }
        } else {
            if (*c.s != '[')
                return -1;
            rules__adv(&c);
            for (size_t i = 0; i < path[d].index; i++)
                if (rules__next(&c))
                    return -1;
            rules__ws(&c);
            if (d == n - 1) {
                *line = c.line;
                *col = c.col;
                return 0;
            }
        }
    }
    return -1;
}

/* ---- nearest known key ---- */

/* Edits from a to b: insertions, deletions, substitutions and swaps of two
 * neighbouring letters ("sied" -> "side" is one). */
static size_t rules__edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d[48][48];
    if (la >= 47 || lb >= 47)
        return (size_t)-1;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (unsigned char)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (unsigned char)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            unsigned best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1u < best)
                best = d[i - 1][j] + 1u;
            if (d[i][j - 1] + 1u < best)
                best = d[i][j - 1] + 1u;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1u < best)
                best = d[i - 2][j - 2] + 1u;
            d[i][j] = (unsigned char)best;
        }
    return d[la][lb];
}

const char *rules_nearest_word(const char *word, const char *const *known, size_t n)
{
    const char *best = NULL;
    size_t bd = (size_t)-1;
    size_t lw = strlen(word);
    for (size_t i = 0; i < n; i++) {
        /* twice the edit distance; a key the word begins (or that begins
         * the word) counts as one edit at most: "arc" -> "arc_deg" */
        size_t d = rules__edit_distance(word, known[i]), lk = strlen(known[i]);
        d = d == (size_t)-1 ? d : 2 * d;
        size_t m = lw < lk ? lw : lk;
        if (m >= 3 && !strncmp(word, known[i], m) && d > 1)
            d = 1;
        if (d < bd) {
            bd = d;
            best = known[i];
        }
    }
    return best;
}

static const char *const rules__cite_keys[] = {"src", "house", "note"};

static const char *rules__nearest(const char *word, const rules__schema *s)
{
    const char *known[64];
    size_t n = 0;
    for (const rules__field *f = s->fields; f && f->key && n < 61; f++)
        known[n++] = f->key;
    if (s->cited)
        for (size_t i = 0; i < 3; i++)
            known[n++] = rules__cite_keys[i];
    return rules_nearest_word(word, known, n);
}

static const rules__field *rules__field_of(const rules__schema *s, const char *key)
{
    for (const rules__field *f = s->fields; f && f->key; f++)
        if (!strcmp(f->key, key))
            return f;
    return NULL;
}

#define RULES__DEPTH 16

typedef struct rules__walk {
    const char *text, *where;
    rules__step path[RULES__DEPTH];
    int depth;
    tt_err *err;
} rules__walk;

static tt_status rules__check(rules__walk *w, const json_t *o, const rules__schema *s, const char *ctx);

static tt_status rules__check_value(rules__walk *w, const json_t *v, const rules__schema *s, const char *ctx)
{
    if (!s || w->depth >= RULES__DEPTH)
        return TT_OK;
    if (json_is_object(v))
        return rules__check(w, v, s, ctx);
    if (json_is_array(v)) {
        tt_status st;
        for (size_t i = 0; i < json_array_size(v); i++) {
            w->path[w->depth].key = NULL;
            w->path[w->depth].index = i;
            w->depth++;
            st = rules__check_value(w, json_array_get(v, i), s, ctx);
            w->depth--;
            if (st)
                return st;
        }
    }
    return TT_OK;
}

static tt_status rules__check(rules__walk *w, const json_t *o, const rules__schema *s, const char *ctx)
{
    char here[256];
    const char *key;
    json_t *val;
    /* how this object is named in messages */
    const char *name = NULL;
    if (s->name_key && json_is_string(json_object_get(o, s->name_key)))
        name = json_string_value(json_object_get(o, s->name_key));
    else if (!s->name_key && w->depth > 0 && w->path[w->depth - 1].key && s != &rules__profile_s)
        name = w->path[w->depth - 1].key;
    if (s->map_of)
        snprintf(here, sizeof here, "%s", ctx);
    else if (name && strcmp(name, s->label))
        snprintf(here, sizeof here, "%s \"%s\"", s->label, name);
    else
        snprintf(here, sizeof here, "%s", s->label);
    json_object_foreach((json_t *)o, key, val)
    {
        const rules__field *f = NULL;
        const rules__schema *sub = NULL;
        if (s->map_of)
            sub = s->map_of;
        else if ((f = rules__field_of(s, key)))
            sub = f->sub;
        else if (!(s->cited && (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note")))) {
            int line = 0, col = 0;
            char pos[64] = "";
            w->path[w->depth].key = key;
            if (w->text && rules__locate(w->text, w->path, w->depth + 1, &line, &col) == 0)
                snprintf(pos, sizeof pos, " (line %d, column %d)", line, col);
            const char *near = rules__nearest(key, s);
            return tt_err_set(w->err, TT_ERR_FORMAT, "%s: unknown key \"%s\" in %s%s: did you mean \"%s\"?",
                              w->where, key, here, pos, near ? near : "");
        }
        if (!sub) {
            if (!s->cited || !json_is_object(val))
                continue;
            sub = &rules__value_s;
        }
        w->path[w->depth].key = key;
        w->depth++;
        tt_status st = rules__check_value(w, val, sub, here);
        w->depth--;
        if (st)
            return st;
    }
    return TT_OK;
}

static tt_status rules__check_root(const json_t *root, const rules__schema *s, const char *text, const char *where,
                                   const rules__step *prefix, int nprefix, tt_err *err)
{
    rules__walk w;
    memset(&w, 0, sizeof w);
    w.text = text;
    w.where = where;
    w.err = err;
    for (int i = 0; i < nprefix && i < RULES__DEPTH; i++)
        w.path[w.depth++] = prefix[i];
    if (!json_is_object(root))
        return TT_OK; /* the loaders say what the document must be */
    return rules__check(&w, root, s, s->label);
}

tt_status rules_keys_check_profile(const json_t *root, const char *text, const char *where, int inline_in_scenario,
                                   tt_err *err)
{
    const rules__step in_scenario = {"ruleset", 0};
    return rules__check_root(root, &rules__profile_s, text, where, &in_scenario, inline_in_scenario ? 1 : 0, err);
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
    st = rules__check_root(root, &rules__scenario_s, text, where, NULL, 0, err);
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
