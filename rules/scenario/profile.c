/* profile.c - the loaded profile: lookups (a weapon, a terrain kind, a
 * figure type among names), freeing it, and the lists of names the
 * loader's sections share (profile_load.c reads a profile). */
#include "rules_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_parse.h"
#include "rules_json.h"

void rules_profile_destroy(rules_profile *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nkinds; i++)
        free(p->kinds[i].name);
    for (size_t i = 0; i < p->nweapons; i++) {
        free(p->weapons[i].name);
        free(p->weapons[i].src);
        free(p->weapons[i].fire_src);
        free(p->weapons[i].grape_src);
        free(p->weapons[i].dev.src);
        free(p->weapons[i].dev_rule);
    }
    for (size_t i = 0; i < p->nmoves; i++) {
        free(p->moves[i].type);
        free(p->moves[i].dice);
        free(p->moves[i].src);
        free(p->moves[i].by_q_src);
        free(p->moves[i].by_w_src);
        free(p->moves[i].impassable_src);
        free(p->moves[i].difficult_src);
    }
    free(p->kinds);
    free(p->weapons);
    free(p->moves);
    free(p->charge_src);
    free(p->charge_not_src);
    free(p->charge_from_src), free(p->charge_straight_src);
    for (int k = 0; k < RULES_MC_N; k++)
        free(p->move_cite[k]);
    for (int k = 0; k < 6; k++)
        free(p->form_difficult_src[k]), free(p->form_inches_src[k]), free(p->form_not_target_src[k]);
    free(p->los_src), free(p->no_target_src);
    free(p->command_src);
    free(p->aspect_src);
    json_decref(p->turns), json_decref(p->losses);
    free(p->name);
    free(p);
}

const rules_weapon *rules_profile_weapon(const rules_profile *p, const char *name)
{
    for (size_t i = 0; i < p->nweapons; i++)
        if (!strcmp(p->weapons[i].name, name))
            return &p->weapons[i];
    return NULL;
}

const rules_terrain_kind *rules_profile_kind(const rules_profile *p, const char *name)
{
    for (size_t i = 0; i < p->nkinds; i++)
        if (!strcmp(p->kinds[i].name, name))
            return &p->kinds[i];
    return NULL;
}

void rules_profile_weapon_names(const rules_profile *p, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < p->nweapons && used + 1 < n; i++) {
        int k = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", p->weapons[i].name);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

int rules_type_in(const char (*names)[24], int n, const char *type)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(names[k], type))
            return 1;
    return 0;
}

/* A soldier: not of the defence roll's not_types (officers, ensigns). */
int rules_is_soldier(const rules_profile *p, const char *type)
{
    return !rules_type_in(p->defence_roll_not, p->ndefence_roll_not, type);
}

int rules_dice_parse(const char *d, int *n, int *s, int *k)
{
    int used = 0;
    *n = *s = *k = 0;
    if (!d || sscanf(d, "%dd%d%n", n, s, &used) != 2 || *n <= 0 || *s <= 0 || *n > 100 || *s > 1000 ||
        (d[used] && (sscanf(d + used, "+%d", k) != 1 || *k < 0 || *k > 1000)))
        return -1;
    return 0;
}

/* A list of up to max figure types (v: a JSON array, or NULL) into
 * out[*n...]: "WHAT must list up to MAX figure types". */
tt_status rules__type_list(const json_t *v, const char *at, const char *what, int max, char (*out)[24], int *n,
                           tt_err *err)
{
    if (v && (!json_is_array(v) || json_array_size(v) > (size_t)max || json_array_size(v) < 1))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must list up to %d figure types", at, what, max);
    for (size_t k = 0; k < json_array_size(v); k++) {
        const json_t *e = json_array_get(v, k);
        if (!json_is_string(e) || strlen(json_string_value(e)) >= 24)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must list up to %d figure types", at, what, max);
        snprintf(out[(*n)++], 24, "%s", json_string_value(e));
    }
    return TT_OK;
}

int rules__colour_index(const rules_profile *p, const char *name)
{
    for (int k = 0; name && k < p->ncolours; k++)
        if (!strcmp(p->colour[k], name))
            return k;
    return -1;
}

/* {"TYPE": "colour", ...} (up to max) -> types and colour indices. */
tt_status rules__colour_map(const rules_profile *p, const json_t *o, const char *at, const char *what, int max,
                            char (*types)[24], int *cols, int *n, tt_err *err)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)o, key, val)
    {
        const json_t *v = rules_json_value(val);
        if (!strcmp(key, "src") || !strcmp(key, "house") || !strcmp(key, "note"))
            continue;
        int c = json_is_string(v) ? rules__colour_index(p, json_string_value(v)) : -1;
        if (*n >= max || strlen(key) >= 24 || c < 0)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" maps up to %d figure types to a colour of "
                                                  "to_hit.by_colour",
                              at, what, max);
        snprintf(types[*n], 24, "%s", key);
        cols[(*n)++] = c;
    }
    return TT_OK;
}
