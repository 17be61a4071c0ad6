/* terrain.c - what a terrain kind or piece does, as its profile or
 * scenario writes it: the properties of rules_terrain_props, and the
 * figure types and weapons they name. */
#include "rules_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_json.h"

/* A terrain "movement" name as rules_move_kind, -1 when unknown. */
int rules_move_kind_named(const char *s)
{
    static const char *const names[] = {"open", "difficult", "obstacle", "impassable", "very-difficult", "road",
                                        "uphill"};
    for (int k = 0; k < (int)(sizeof names / sizeof *names); k++)
        if (!strcmp(s, names[k]))
            return k;
    return -1;
}

/* A list of up to 6 figure type or weapon names: ["foot", "light-artillery"]. */
static tt_status rules__names_parse(const json_t *o, const char *key, const char *where, char (*names)[24], int *n,
                                    tt_err *err)
{
    const json_t *a = rules_json_value(json_object_get(o, key));
    if (!json_object_get(o, key))
        return TT_OK;
    if (!json_is_array(a) || json_array_size(a) > 6)
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: \"%s\" must be a list of up to 6 figure types or weapon names, e.g. [\"foot\"]", where, key);
    *n = 0;
    for (size_t k = 0; k < json_array_size(a); k++) {
        const json_t *v = json_array_get(a, k);
        if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) >= 24)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" item %zu must be a figure type or weapon name", where,
                              key, k + 1);
        snprintf(names[(*n)++], 24, "%s", json_string_value(v));
    }
    return TT_OK;
}

tt_status rules_terrain_names_check(const rules_profile *pr, const rules_terrain_props *p, const char *where,
                                    tt_err *err)
{
    const struct {
        const char *key;
        const char (*names)[24];
        int n;
    } lists[] = {{"hides_behind", p->hides_behind, p->nhides_behind},
                 {"arc_behind_for", p->arc_behind_for, p->narc_behind_for},
                 {"move_factor_for", p->move_factor_for, p->nmove_factor_for},
                 {"cross_formations_for", p->cross_for, p->ncross_for}};
    for (size_t l = 0; l < sizeof lists / sizeof *lists; l++)
        for (int k = 0; k < lists[l].n; k++) {
            const char *name = lists[l].names[k];
            int known = rules_profile_weapon(pr, name) != NULL;
            for (size_t m = 0; m < pr->nmoves && !known; m++)
                known = !strcmp(pr->moves[m].type, name);
            if (!known) {
                char wn[512];
                rules_profile_weapon_names(pr, wn, sizeof wn);
                return tt_err_set(err, TT_ERR_FORMAT,
                                  "%s: \"%s\" names \"%s\", neither a figure type of the ruleset's \"movement\" "
                                  "nor one of its weapons (%s)",
                                  where, lists[l].key, name, wn);
            }
        }
    for (int k = 0; k < p->ncross_forms; k++) {
        int known = 0;
        for (int m = 0; m < pr->nforms && !known; m++)
            known = !strcmp(pr->form_name[m], p->cross_forms[k]);
        if (!known)
            return tt_err_set(err, TT_ERR_FORMAT,
                              "%s: \"cross_formations\" names \"%s\", not one of the ruleset's \"formations\"", where,
                              p->cross_forms[k]);
    }
    if ((p->arc_behind_deg > 0) != (p->narc_behind_for > 0))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: give \"arc_behind_deg\" and \"arc_behind_for\" together", where);
    if ((p->move_factor > 0) != (p->nmove_factor_for > 0))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: give \"move_factor\" and \"move_factor_for\" together", where);
    if ((p->ncross_forms > 0) != (p->ncross_for > 0))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: give \"cross_formations\" and \"cross_formations_for\" together",
                          where);
    return TT_OK;
}

/* A citation (see rules_json_cite) into a fixed buffer, cut short where
 * it is longer. */
static tt_status rules__cite_into(const json_t *o, const char *where, char *buf, size_t n, tt_err *err)
{
    char *c = NULL;
    tt_status st = o ? rules_json_cite(o, where, &c, err) : TT_OK;
    if (c)
        snprintf(buf, n, "%s", c);
    free(c);
    return st;
}

int rules_figure_named(const rules_figure *f, const char (*names)[24], int n)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(names[k], f->type) || (f->weapon && !strcmp(names[k], f->weapon->name)))
            return 1;
    return 0;
}

tt_status rules_terrain_props_parse(const json_t *o, const char *where, rules_terrain_props *p, tt_err *err)
{
    const char *s;
    tt_status st;
    if (!json_is_object(o))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", where);
    const json_t *hv = json_object_get(o, "height_in");
    if (json_is_number(hv) && json_number_value(hv) < 0)
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: \"height_in\" is %g: a height above the felt cannot be negative; give the piece's "
                          "height in inches",
                          where, json_number_value(hv));
    if ((st = rules_json_bool(o, "blocks_los", where, &p->blocks_los, err)) ||
        (st = rules_json_num(o, "los_depth_in", where, 0, RULES_MAX_IN, &p->los_depth_in, err)) ||
        (st = rules_json_bool(o, "shields_blast", where, &p->shields_blast, err)) ||
        (st = rules_json_bool(o, "stops_ball", where, &p->stops_ball, err)) ||
        (st = rules_json_bool(o, "raises", where, &p->raises, err)) ||
        (st = rules_json_bool(o, "keeps_cv_from_above", where, &p->keeps_cv_from_above, err)) ||
        (st = rules_json_bool(o, "hides_inside", where, &p->hides_inside, err)) ||
        (st = rules_json_num(o, "see_through_within_in", where, 0, RULES_MAX_IN, &p->see_through_within_in, err)) ||
        (st = rules_json_num(o, "max_range_in", where, 0, RULES_MAX_IN, &p->max_range_in, err)) ||
        (st = rules_json_num(o, "height_in", where, 0, RULES_MAX_IN, &p->height_in, err)) ||
        (st = rules_json_bool(o, "revealable", where, &p->revealable, err)) ||
        (st = rules_json_num(o, "located_within_in", where, 0, RULES_MAX_IN, &p->located_within_in, err)) ||
        (st = rules_json_num(o, "arc_behind_deg", where, 0, 360, &p->arc_behind_deg, err)) ||
        (st = rules__names_parse(o, "hides_behind", where, p->hides_behind, &p->nhides_behind, err)) ||
        (st = rules__names_parse(o, "arc_behind_for", where, p->arc_behind_for, &p->narc_behind_for, err)) ||
        (st = rules_json_num(o, "move_factor", where, 0, 1, &p->move_factor, err)) ||
        (st = rules__names_parse(o, "move_factor_for", where, p->move_factor_for, &p->nmove_factor_for, err)) ||
        (st = rules__cite_into(json_object_get(o, "move_factor"), where, p->move_factor_src, sizeof p->move_factor_src,
                               err)) ||
        (st = rules__names_parse(o, "cross_formations", where, p->cross_forms, &p->ncross_forms, err)) ||
        (st = rules__names_parse(o, "cross_formations_for", where, p->cross_for, &p->ncross_for, err)) ||
        (st = rules__cite_into(json_object_get(o, "cross_formations"), where, p->cross_src, sizeof p->cross_src, err)))
        return st;
    if (p->raises && p->height_in > RULES_MAX_RAISE_IN)
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: \"height_in\" is %g, more than the %g\" a hill or building that figures stand on can "
                          "be: is it in millimetres? Give it in inches",
                          where, p->height_in, RULES_MAX_RAISE_IN);
    double cv = p->cv, tmod = p->target_mod;
    if ((st = rules_json_num(o, "cv", where, 0, 20, &cv, err)) ||
        (st = rules_json_num(o, "target_modifier", where, -20, 20, &tmod, err)))
        return st;
    p->cv = (int)cv;
    p->target_mod = (int)tmod;
    s = NULL;
    if ((st = rules_json_str(o, "cover", where, &s, err)))
        return st;
    if (s) {
        if (!strcmp(s, "none"))
            p->cover = RULES_COVER_NONE;
        else if (!strcmp(s, "soft"))
            p->cover = RULES_COVER_SOFT;
        else if (!strcmp(s, "hard"))
            p->cover = RULES_COVER_HARD;
        else
            return tt_err_set(err, TT_ERR_FORMAT, "%s: cover \"%s\" must be none, soft or hard", where, s);
    }
    s = NULL;
    if ((st = rules_json_str(o, "movement", where, &s, err)))
        return st;
    if (s) {
        int m = rules_move_kind_named(s);
        if (m < 0)
            return tt_err_set(err, TT_ERR_FORMAT,
                              "%s: movement \"%s\" must be open, road, uphill, difficult, very-difficult, obstacle "
                              "or impassable",
                              where, s);
        p->movement = (rules_move_kind)m;
    }
    return TT_OK;
}

