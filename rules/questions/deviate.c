/* deviate.c - the 'deviate' query: where a shot aimed at a point lands,
 * from the dice the players rolled, by the weapon's "deviation" (per-axis
 * long/short and left/right dice, a clock direction and a distance, or a
 * thrown weapon that lands where aimed but may not go off), and who its
 * blast hits there.
 *
 * The table frame: x to the right, y DOWN the table (towards the near
 * edge), as every picture of it is drawn; seen from above, a turn clockwise
 * increases the angle, so a figure facing (ux, uy) has its right at
 * (-uy, ux) and its left at (uy, -ux). */
#include "rules_questions.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The dice the weapon's deviation takes, for messages. */
static void rules__dice_wanted(const rules_deviation *d, char *buf, size_t n)
{
    if (d->kind == RULES_DEV_AXES) {
        char lo[24], hi[24];
        snprintf(lo, sizeof lo, d->off_low == 1 ? "a %d" : "%d or less", d->off_low);
        snprintf(hi, sizeof hi, d->off_high == d->die ? "a %d" : "%d or more", d->off_high);
        snprintf(buf, n,
                 "\"long_short\" and \"left_right\" (1 to %d), and for each axis off target (%s or %s) "
                 "\"long_short_in\" / \"left_right_in\" (what its %dd%d showed)",
                 d->die, lo, hi, d->dn, d->ds);
    }
    else if (d->kind == RULES_DEV_CLOCK && d->cn > 0)
        snprintf(buf, n, "\"clock\" (1 to %d) and \"distance\" (what its %dd%d showed; %dd%d with \"critical\": true)",
                 d->die, d->dn, d->ds, d->cn, d->cs);
    else if (d->kind == RULES_DEV_CLOCK)
        snprintf(buf, n, "\"clock\" (1 to %d) and \"distance\" (what its %dd%d showed)", d->die, d->dn, d->ds);
    else
        snprintf(buf, n, "\"explodes\" (1 to %d)", d->dud_die);
}

/* A die the query gave that the weapon does not roll (or, for an axis on
 * target, does not roll this time): an error naming the dice it takes. */
static tt_status rules__unused(const rules_dev_dice *g, const rules_deviation *d, int ls_off, int lr_off,
                               const char *wname, tt_err *err)
{
    const struct {
        const char *name;
        int v, used;
    } k[] = {{"long_short", g->long_short, d->kind == RULES_DEV_AXES},
             {"left_right", g->left_right, d->kind == RULES_DEV_AXES},
             {"long_short_in", g->long_short_in, d->kind == RULES_DEV_AXES},
             {"left_right_in", g->left_right_in, d->kind == RULES_DEV_AXES},
             {"clock", g->clock, d->kind == RULES_DEV_CLOCK},
             {"distance", g->distance, d->kind == RULES_DEV_CLOCK},
             {"explodes", g->explodes, d->kind == RULES_DEV_THROWN}};
    char want[320];
    rules__dice_wanted(d, want, sizeof want);
    for (size_t i = 0; i < sizeof k / sizeof *k; i++)
        if (k[i].v != RULES_NULL && !k[i].used)
            return tt_err_set(err, TT_ERR_ARG, "the %s does not roll \"%s\": its dice are %s", wname, k[i].name, want);
    if (g->critical && !(d->kind == RULES_DEV_CLOCK && d->cn > 0))
        return tt_err_set(err, TT_ERR_ARG, "the %s has no deviation of its own on a critical miss: leave out "
                                           "\"critical\" (its dice are %s)",
                          wname, want);
    if (d->kind == RULES_DEV_AXES && !ls_off && g->long_short_in != RULES_NULL)
        return tt_err_set(err, TT_ERR_ARG, "the long/short die (%d) is on target, so the %s rolls no \"long_short_in\": "
                                           "leave it out",
                          g->long_short, wname);
    if (d->kind == RULES_DEV_AXES && !lr_off && g->left_right_in != RULES_NULL)
        return tt_err_set(err, TT_ERR_ARG, "the left/right die (%d) is on target, so the %s rolls no \"left_right_in\": "
                                           "leave it out",
                          g->left_right, wname);
    return TT_OK;
}

/* One die the query must carry: its value within 1..sides. */
static tt_status rules__die(int v, const char *name, int sides, const char *wname, tt_err *err)
{
    if (v == RULES_NULL)
        return tt_err_set(err, TT_ERR_ARG, "the %s needs the \"%s\" die (1 to %d) in \"dice\"", wname, name, sides);
    if (v < 1 || v > sides)
        return tt_err_set(err, TT_ERR_ARG, "\"%s\" must be what a d%d shows, 1 to %d; got %d", name, sides, sides, v);
    return TT_OK;
}

/* A distance rolled on NdS+K: the sum the dice showed, N to N*S (the K
 * is added here, not by the players). */
static tt_status rules__roll(int v, const char *name, int n, int s, int k, const char *wname, tt_err *err)
{
    char plus[48] = "";
    if (k)
        snprintf(plus, sizeof plus, " (the %+d is added for you)", k);
    if (v == RULES_NULL)
        return tt_err_set(err, TT_ERR_ARG, "the %s needs \"%s\", what its %dd%d showed%s, in \"dice\"", wname, name, n,
                          s, plus);
    if (v < n || v > n * s)
        return tt_err_set(err, TT_ERR_ARG, "\"%s\" must be what %dd%d shows, %d to %d%s; got %d", name, n, s, n, n * s,
                          plus, v);
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
    if (w->dev.kind == RULES_DEV_NONE)
        return tt_err_set(err, TT_ERR_ARG, "the %s of ruleset %s is not aimed at a point: ask \"fire\" at a figure",
                          w->name, sc->prof->name);
    /* the kind of ammunition fired: its own dice and blast */
    rules_deviation dv = w->dev;
    const rules_deviation *d = &dv;
    double blast = w->blast_in;
    int ammo = dv.nammo ? dv.ammo_def : -1;
    if (dice->ammo && !dv.nammo)
        return tt_err_set(err, TT_ERR_ARG, "the %s fires one kind of ammunition in ruleset %s: leave out \"ammo\"", w->name,
                          sc->prof->name);
    if (dice->ammo) {
        for (ammo = 0; ammo < dv.nammo && strcmp(dv.ammo[ammo], dice->ammo); ammo++)
            ;
        if (ammo == dv.nammo)
            return tt_err_set(err, TT_ERR_ARG, "the %s fires \"%s\" or \"%s\"%s%s%s, not \"%s\"", w->name, dv.ammo[0],
                              dv.ammo[1], dv.nammo > 2 ? " or \"" : "", dv.nammo > 2 ? dv.ammo[2] : "",
                              dv.nammo > 2 ? "\"" : "", dice->ammo);
    }
    if (ammo >= 0) {
        dv.dn = dv.an[ammo];
        dv.ds = dv.as[ammo];
        dv.dk = dv.ak[ammo];
        dv.cn = dv.acn[ammo];
        dv.cs = dv.acs[ammo];
        dv.ck = dv.ack[ammo];
        if (dv.ablast[ammo] >= 0)
            blast = dv.ablast[ammo];
        out->ammo = w->dev.ammo[ammo]; /* not dv's: a copy on this stack */
    }
    const char *cite = w->dev_rule ? w->dev_rule : w->src ? w->src : sc->prof->name;
    if (!(fabs(at.x) <= RULES_MAX_IN && fabs(at.y) <= RULES_MAX_IN))
        return tt_err_set(err, TT_ERR_ARG, "\"at\" (%g, %g) is not on the table", at.x, at.y);
    /* the aim point within the weapon's reach, measured as the ruleset
     * measures (from the base's edge, or its centre) */
    rules_pt P = {rules_fx(at.x), rules_fx(at.y)};
    rules_shape pt = {.round = 1, .c = P, .r = 0};
    int cm = sc->prof->centre_measure;
    double L = cm ? rules_in(1) * hypot((double)(P.x - f->shape.c.x), (double)(P.y - f->shape.c.y))
                  : rules_in(1) * rules_geom_shape_shape_dist(&f->shape, &pt);
    int64_t R = rules_fx(w->range_in), M = rules_fx(w->min_range_in) - 1;
    if (cm ? rules_len2(rules_sub(P, f->shape.c)) > (rules_i128)R * R : !rules_geom_shape_point_within(&f->shape, P, R))
        return tt_err_set(err, TT_ERR_ARG, "the aim point is %.2f\" from \"%s\" (%s), beyond the %s's %g\" (%s)", L,
                          f->id, cm ? "centre to centre" : "from its base's edge", w->name, w->range_in, cite);
    if (w->min_range_in > 0 &&
        (cm ? rules_len2(rules_sub(P, f->shape.c)) <= (rules_i128)M * M : rules_geom_shape_point_within(&f->shape, P, M)))
        return tt_err_set(err, TT_ERR_ARG, "the aim point is %.2f\" from \"%s\" (%s), closer than the %s's minimum %g\" (%s)",
                          L, f->id, cm ? "centre to centre" : "from its base's edge", w->name, w->min_range_in, cite);
    /* only where the firer may turn to fire (its arc and pivot), as "fire" */
    rules_arc arc;
    rules_fire_arc(f, w, &arc);
    if (!arc.full && !rules_arc_meets(&arc, &pt)) {
        char what[40];
        snprintf(what, sizeof what, "the %s", w->name);
        return rules_arc_refusal(f, w, P, what, cite, err);
    }
    /* the line of fire's direction, from the firer's centre (its facing
     * when aimed at its own centre) */
    double dx = at.x - rules_in(f->shape.c.x), dy = at.y - rules_in(f->shape.c.y), D = hypot(dx, dy);
    double ux, uy;
    if (D > 0) {
        ux = dx / D;
        uy = dy / D;
    } else {
        ux = cos(f->facing_deg * (M_PI / 180.0));
        uy = sin(f->facing_deg * (M_PI / 180.0));
    }
    rules_point imp = at;
    int goes_off = 1;
    if (d->kind == RULES_DEV_AXES) {
        if ((st = rules__unused(dice, d, 1, 1, w->name, err)) ||
            (st = rules__die(dice->long_short, "long_short", d->die, w->name, err)) ||
            (st = rules__die(dice->left_right, "left_right", d->die, w->name, err)))
            return st;
        /* each axis off target moves the bomb by its own distance roll:
         * long away from the firer, right a quarter turn clockwise seen
         * from above, (-uy, ux) */
        int ls = dice->long_short <= d->off_low ? -1 : dice->long_short >= d->off_high ? 1 : 0;
        int lr = dice->left_right <= d->off_low ? -1 : dice->left_right >= d->off_high ? 1 : 0;
        if ((st = rules__unused(dice, d, ls, lr, w->name, err)))
            return st;
        if (ls && (st = rules__roll(dice->long_short_in, "long_short_in", d->dn, d->ds, d->dk, w->name, err)))
            return st;
        if (lr && (st = rules__roll(dice->left_right_in, "left_right_in", d->dn, d->ds, d->dk, w->name, err)))
            return st;
        double a = ls ? dice->long_short_in + d->dk : 0, b = lr ? dice->left_right_in + d->dk : 0;
        imp.x += ls * a * ux + lr * b * -uy;
        imp.y += ls * a * uy + lr * b * ux;
    } else if (d->kind == RULES_DEV_CLOCK) {
        if ((st = rules__unused(dice, d, 1, 1, w->name, err)))
            return st;
        int crit = dice->critical && d->cn > 0;
        int n = crit ? d->cn : d->dn, s = crit ? d->cs : d->ds, k = crit ? d->ck : d->dk;
        if ((st = rules__die(dice->clock, "clock", d->die, w->name, err)) ||
            (st = rules__roll(dice->distance, "distance", n, s, k, w->name, err)))
            return st;
        /* 12 o'clock straight ahead, the hours clockwise seen from above
         * (angles increasing: 3 o'clock is the firer's right) */
        double ang = atan2(uy, ux) + 2 * M_PI * (dice->clock % d->die) / d->die, r = dice->distance + k;
        imp.x += r * cos(ang);
        imp.y += r * sin(ang);
    } else {
        if ((st = rules__unused(dice, d, 1, 1, w->name, err)) ||
            (st = rules__die(dice->explodes, "explodes", d->dud_die, w->name, err)))
            return st;
        goes_off = dice->explodes > d->dud;
    }
    out->centre = imp;
    out->line[0] = at;
    out->line[1] = imp;
    out->rule = w->dev_rule ? w->dev_rule : w->src;
    out->to_hit = RULES_NULL;
    if (goes_off && blast > 0 && fabs(imp.x) <= RULES_MAX_IN && fabs(imp.y) <= RULES_MAX_IN) {
        rules_result b;
        if ((st = rules_blast(sc, imp, blast, NULL, &b, err)))
            return st;
        out->ids = b.ids;
        out->n_ids = b.n_ids;
        b.ids = NULL;
        rules_result_free(&b);
        out->radius_in = blast;
        if (w->blast_kill > 0) /* each figure in the blast is killed on this score */
            out->to_hit = (int)w->blast_kill;
    }
    out->ok = goes_off;
    return TT_OK;
}
