/* deviate.c - the 'deviate' query: where a shot aimed at a point lands,
 * from the dice the players rolled, by the weapon's "deviation" (per-axis
 * long/short and left/right dice, a clock direction and a distance, or a
 * thrown weapon that lands where aimed but may not go off), and who its
 * blast hits there. */
#include "rules_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* One die the query must carry: its value within 1..sides. */
static tt_status rules__die(int v, const char *name, int sides, const char *wname, tt_err *err)
{
    if (v == RULES_NULL)
        return tt_err_set(err, TT_ERR_ARG, "the %s needs the \"%s\" die (1 to %d) in \"dice\"", wname, name, sides);
    if (v < 1 || v > sides)
        return tt_err_set(err, TT_ERR_ARG, "\"%s\" must be what a d%d shows, 1 to %d; got %d", name, sides, sides, v);
    return TT_OK;
}

/* A distance rolled on NdS+K: the sum the dice showed, plus K. */
static tt_status rules__roll(int v, const char *name, int n, int s, int k, const char *wname, tt_err *err)
{
    if (v == RULES_NULL)
        return tt_err_set(err, TT_ERR_ARG, "the %s needs \"%s\", what its %dd%d showed, in \"dice\"", wname, name, n, s);
    if (v < n || v > n * s)
        return tt_err_set(err, TT_ERR_ARG, "\"%s\" must be what %dd%d shows, %d to %d; got %d", name, n, s, n, n * s, v);
    (void)k;
    return TT_OK;
}

tt_status rules_deviate(rules_scenario *sc, const char *from, const char *weapon, rules_point at,
                        const rules_dev_dice *dice, rules_result *out, tt_err *err)
{
    int i;
    tt_status st;
    const rules_weapon *w;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_DEVIATE;
    if ((st = rules_scenario_figure(sc, from, "from", &i, err)))
        return st;
    const rules_figure *f = &sc->figs[i];
    if ((st = rules_weapon_of(sc, f, weapon, &w, err)))
        return st;
    const rules_deviation *d = &w->dev;
    if (d->kind == RULES_DEV_NONE)
        return tt_err_set(err, TT_ERR_ARG, "the %s of ruleset %s is not aimed at a point: ask \"fire\" at a figure",
                          w->name, sc->prof->name);
    if (!(fabs(at.x) <= RULES_MAX_IN && fabs(at.y) <= RULES_MAX_IN))
        return tt_err_set(err, TT_ERR_ARG, "\"at\" (%g, %g) is not on the table", at.x, at.y);
    /* the aim point within the weapon's reach (from the figure's centre) */
    double fx = rules_in(f->shape.c.x), fy = rules_in(f->shape.c.y);
    double dx = at.x - fx, dy = at.y - fy, L = hypot(dx, dy);
    if (L > w->range_in + 1e-9)
        return tt_err_set(err, TT_ERR_ARG, "the aim point is %.2f\" from \"%s\", beyond the %s's %g\"", L, f->id,
                          w->name, w->range_in);
    if (w->min_range_in > 0 && L < w->min_range_in - 1e-9)
        return tt_err_set(err, TT_ERR_ARG, "the aim point is %.2f\" from \"%s\", closer than the %s's minimum %g\"", L,
                          f->id, w->name, w->min_range_in);
    /* the line of fire's direction (the figure's facing when aimed at itself) */
    double ux, uy;
    if (L > 0) {
        ux = dx / L;
        uy = dy / L;
    } else {
        ux = cos(f->facing_deg * (M_PI / 180.0));
        uy = sin(f->facing_deg * (M_PI / 180.0));
    }
    rules_point imp = at;
    int goes_off = 1;
    if (d->kind == RULES_DEV_AXES) {
        if ((st = rules__die(dice->long_short, "long_short", d->die, w->name, err)) ||
            (st = rules__die(dice->left_right, "left_right", d->die, w->name, err)))
            return st;
        /* each axis off target moves the bomb by its own distance roll:
         * long away from the firer, right a quarter turn clockwise as seen
         * from above (the table frame has y down the table, so the firer's
         * right of (ux, uy) is (-uy, ux) and its left (uy, -ux)) */
        int ls = dice->long_short <= d->off_low ? -1 : dice->long_short >= d->off_high ? 1 : 0;
        int lr = dice->left_right <= d->off_low ? -1 : dice->left_right >= d->off_high ? 1 : 0;
        if (ls && (st = rules__roll(dice->long_short_in, "long_short_in", d->dn, d->ds, d->dk, w->name, err)))
            return st;
        if (lr && (st = rules__roll(dice->left_right_in, "left_right_in", d->dn, d->ds, d->dk, w->name, err)))
            return st;
        double a = ls ? dice->long_short_in + d->dk : 0, b = lr ? dice->left_right_in + d->dk : 0;
        imp.x += ls * a * ux + lr * b * -uy;
        imp.y += ls * a * uy + lr * b * ux;
    } else if (d->kind == RULES_DEV_CLOCK) {
        int crit = dice->critical > 0 && d->cn > 0;
        int n = crit ? d->cn : d->dn, s = crit ? d->cs : d->ds, k = crit ? d->ck : d->dk;
        if ((st = rules__die(dice->clock, "clock", d->die, w->name, err)) ||
            (st = rules__roll(dice->distance, "distance", n, s, k, w->name, err)))
            return st;
        /* 12 o'clock straight ahead, the hours clockwise as seen from above:
         * with y down the table that is angles increasing (3 o'clock is the
         * firer's right) */
        double ang = atan2(uy, ux) + 2 * M_PI * (dice->clock % d->die) / d->die, r = dice->distance + k;
        imp.x += r * cos(ang);
        imp.y += r * sin(ang);
    } else {
        if ((st = rules__die(dice->explodes, "explodes", d->dud_die, w->name, err)))
            return st;
        goes_off = dice->explodes > d->dud;
    }
    out->centre = imp;
    out->line[0] = at;
    out->line[1] = imp;
    out->rule = w->src;
    if (goes_off && w->blast_in > 0 && fabs(imp.x) <= RULES_MAX_IN && fabs(imp.y) <= RULES_MAX_IN) {
        rules_result b;
        if ((st = rules_blast(sc, imp, w->blast_in, NULL, &b, err)))
            return st;
        out->ids = b.ids;
        out->n_ids = b.n_ids;
        b.ids = NULL;
        rules_result_free(&b);
        out->radius_in = w->blast_in;
    }
    out->ok = goes_off;
    return TT_OK;
}
