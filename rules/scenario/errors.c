/* errors.c - how sure a figure's position is: the scenario's (or the live
 * table's) err95_in, z_err95_in and facing_err95_deg, checked, and the
 * bound they put on a point of the figure's base. */
#include "rules_scenario.h"

#include <math.h>
#include <stdio.h>

#include "rules_json.h"

tt_status rules_figure_errors_check(const char *at, double e, double z, double f, tt_err *err)
{
    const struct {
        const char *key;
        double v, max;
        const char *unit;
    } k[3] = {{"err95_in", e, RULES_MAX_ERR_IN, "inches"},
              {"z_err95_in", z, RULES_MAX_Z_ERR_IN, "inches"},
              {"facing_err95_deg", f, RULES_MAX_FACING_ERR_DEG, "degrees"}};
    for (int i = 0; i < 3; i++) {
        if (!isfinite(k[i].v))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" is not a number: give the 95 %% bound in %s (0: exact)",
                              at, k[i].key, k[i].unit);
        if (k[i].v < 0)
            return tt_err_set(err, TT_ERR_FORMAT,
                              "%s: \"%s\" is %g: an error bound cannot be negative; give the 95 %% bound in %s (0: "
                              "exact)",
                              at, k[i].key, k[i].v, k[i].unit);
        if (k[i].v > k[i].max)
            return tt_err_set(err, TT_ERR_FORMAT,
                              "%s: \"%s\" is %g, more than the %g %s any answer could use: is it in the wrong unit? "
                              "Give the 95 %% bound in %s",
                              at, k[i].key, k[i].v, k[i].max, k[i].unit, k[i].unit);
    }
    return TT_OK;
}

tt_status rules_figure_errors_parse(rules_scenario *sc, const json_t *o, const char *at, rules_figure *f, tt_err *err)
{
    const char *keys[3] = {"err95_in", "z_err95_in", "facing_err95_deg"};
    double v[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        const json_t *j = json_object_get(o, keys[i]);
        if (j && !json_is_number(j))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must be a number (a 95 %% bound, 0: exact)", at,
                              keys[i]);
        if (j)
            v[i] = json_number_value(j);
    }
    tt_status st = rules_figure_errors_check(at, v[0], v[1], v[2], err);
    if (st)
        return st;
    f->err95_in = v[0];
    f->z_err95_in = v[1];
    f->facing_err95_deg = v[2];
    sc->has_errors |= v[0] > 0 || v[1] > 0 || v[2] > 0;
    return TT_OK;
}

double rules_figure_err_eff(const rules_figure *f)
{
    double r = hypot(f->w_in, f->shape.round ? f->w_in : f->d_in) / 2;
    return hypot(f->err95_in, r * f->facing_err95_deg * (M_PI / 180.0));
}

tt_status rules_scenario_set_errors(rules_scenario *sc, const char *id, double e, double z, double f, tt_err *err)
{
    int i = -1;
    tt_status st;
    char at[160];
    if (!sc)
        return tt_err_set(err, TT_ERR_ARG, "no scenario loaded");
    if ((st = rules_scenario_figure(sc, id, "id", &i, err)))
        return st;
    snprintf(at, sizeof at, "figure \"%s\"", id);
    if ((st = rules_figure_errors_check(at, e, z, f, err)))
        return st;
    rules_figure *fg = &sc->figs[i];
    fg->err95_in = e;
    fg->z_err95_in = z;
    fg->facing_err95_deg = f;
    sc->has_errors |= e > 0 || z > 0 || f > 0;
    return TT_OK;
}
