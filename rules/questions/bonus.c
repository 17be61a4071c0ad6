/* bonus.c - bonus dice of an opposed roll (the profile's "bonus_dice",
 * formations' attacker and front bonuses, "defence_roll"): at the target's
 * flank or rear, from higher ground, at a mob, into the front of a column;
 * and the defender's own roll.  Where the shooter or the target is a unit,
 * its footprint is the box around its figures along its mean facing. */
#include "rules_questions.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

rules_aspect_kind rules_aspect_box(rules_pt p, rules_pt c, rules_pt f, int64_t w, int64_t d)
{
    rules_pt q = rules_sub(p, c);
    rules_i128 u = rules_dot(q, f), v = rules_cross(f, q);
    if (v < 0)
        v = -v;
    rules_i128 U = u * w, V = v * d;
    if (u > 0 && U >= V)
        return RULES_ASPECT_FRONT;
    if (u < 0 && -U > V)
        return RULES_ASPECT_REAR;
    if (u == 0 && v == 0)
        return RULES_ASPECT_FRONT;
    return RULES_ASPECT_FLANK;
}

/* Figure g[k] stands for its unit's place: a soldier, or any figure of a
 * group without soldiers (officers stand off to the side, L116). */
int rules_group_counts(const rules_scenario *sc, const int *g, int n, int k)
{
    if (rules_is_soldier(sc->prof, sc->figs[g[k]].type))
        return 1;
    for (int m = 0; m < n; m++)
        if (rules_is_soldier(sc->prof, sc->figs[g[m]].type))
            return 0;
    return 1;
}

void rules_group_box(const rules_scenario *sc, const int *g, int n, rules_box *b)
{
    const rules_figure *f0 = &sc->figs[g[0]];
    if (n == 1) {
        b->c = f0->shape.c;
        b->f = f0->f;
        b->w = f0->w;
        b->d = f0->d;
        b->front = rules_fire_origin(sc, f0);
        b->facing_deg = f0->facing_deg;
        return;
    }
    double ux = 0, uy = 0;
    for (int k = 0; k < n; k++) {
        if (!rules_group_counts(sc, g, n, k))
            continue;
        double a = sc->figs[g[k]].facing_deg * (M_PI / 180.0);
        ux += cos(a);
        uy += sin(a);
    }
    double L = hypot(ux, uy), deg = L > 1e-9 ? atan2(uy, ux) * (180.0 / M_PI) : f0->facing_deg;
    double a = deg * (M_PI / 180.0);
    ux = cos(a);
    uy = sin(a);
    double lo_a = INFINITY, hi_a = -INFINITY, lo_c = INFINITY, hi_c = -INFINITY;
    for (int k = 0; k < n; k++) {
        const rules_figure *f = &sc->figs[g[k]];
        if (!rules_group_counts(sc, g, n, k))
            continue;
        double along = f->x * ux + f->y * uy, across = -f->x * uy + f->y * ux;
        lo_a = fmin(lo_a, along - f->d_in / 2);
        hi_a = fmax(hi_a, along + f->d_in / 2);
        lo_c = fmin(lo_c, across - f->w_in / 2);
        hi_c = fmax(hi_c, across + f->w_in / 2);
    }
    double ma = (lo_a + hi_a) / 2, mc = (lo_c + hi_c) / 2;
    b->c.x = rules_fx(ma * ux - mc * uy);
    b->c.y = rules_fx(ma * uy + mc * ux);
    b->front.x = rules_fx(hi_a * ux - mc * uy);
    b->front.y = rules_fx(hi_a * uy + mc * ux);
    b->f = rules_geom_dir(deg);
    b->facing_deg = deg;
    b->w = rules_fx(hi_c - lo_c);
    b->d = rules_fx(hi_a - lo_a);
}

/* The lowest a group's soldiers stand: a unit is on higher ground only
 * when all of it is. */
static double rules__group_elev(const rules_scenario *sc, const int *g, int n)
{
    double e = INFINITY;
    for (int k = 0; k < n; k++)
        if (rules_group_counts(sc, g, n, k))
            e = fmin(e, sc->figs[g[k]].elev);
    return e;
}

__attribute__((format(printf, 4, 5))) static void rules__add(rules_modifier *list, int *n, int value, const char *fmt,
                                                             ...)
{
    if (*n >= RULES_MAX_MODIFIERS || value == 0)
        return;
    rules_modifier *m = &list[(*n)++];
    m->value = value;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->reason, sizeof m->reason, fmt, ap);
    va_end(ap);
}

static int rules__sum(const rules_modifier *m, int n)
{
    int s = 0;
    for (int k = 0; k < n; k++)
        s += m[k].value;
    return s;
}

/* The soldiers of a group: its figures but those of the defence roll's
 * not_types (officers, ensigns). */
static int rules__soldiers(const rules_scenario *sc, const int *g, int n)
{
    int count = 0;
    for (int k = 0; k < n; k++)
        count += rules_is_soldier(sc->prof, sc->figs[g[k]].type);
    return count;
}

/* The bonus dice of an attack from F at T (j: the target figure): flank,
 * rear, a mob, high ground (to either side) and, for fire, a formation's
 * front bonus (enfilade). */
static void rules__bonus(rules_scenario *sc, const int *F, int nF, const int *T, int nT, int j, int melee,
                         rules_result *out)
{
    const rules_profile *p = sc->prof;
    const rules_figure *fj = &sc->figs[j];
    int fm = fj->formation;
    /* the target's side the line from the attacking unit's front-centre meets */
    int no_flank = (p->bonus_not_skirmishers && fj->skirmisher) || (fm >= 0 && p->form_no_flank[fm]);
    int front_bonus = !melee && fm >= 0 && p->form_front_bonus[fm] > 0 &&
                      (p->form_front_opt[fm] < 0 || (sc->options >> p->form_front_opt[fm] & 1u));
    if (((p->bonus_flank || p->bonus_rear) && !no_flank) || front_bonus) {
        rules_box fb, tb;
        rules_group_box(sc, F, nF, &fb);
        rules_group_box(sc, T, nT, &tb);
        rules_aspect_kind a = rules_aspect_box(fb.front, tb.c, tb.f, tb.w, tb.d);
        if (a == RULES_ASPECT_FLANK && !no_flank)
            rules__add(out->bonus_dice, &out->n_bonus_dice, p->bonus_flank, "flank attack");
        if (a == RULES_ASPECT_REAR && !no_flank)
            rules__add(out->bonus_dice, &out->n_bonus_dice, p->bonus_rear, "rear attack");
        if (a == RULES_ASPECT_FRONT && front_bonus) {
            if (p->form_front_opt[fm] >= 0)
                rules__add(out->bonus_dice, &out->n_bonus_dice, p->form_front_bonus[fm], "%s: the front of a %s",
                           p->opt_name[p->form_front_opt[fm]], p->form_name[fm]);
            else
                rules__add(out->bonus_dice, &out->n_bonus_dice, p->form_front_bonus[fm], "the front of a %s",
                           p->form_name[fm]);
        }
    }
    if (fm >= 0)
        rules__add(out->bonus_dice, &out->n_bonus_dice, p->form_attacker_bonus[fm], "%s a %s",
                   melee ? "attacking" : "firing on", p->form_name[fm]);
    /* high ground helps whichever side stands higher, attacking or defending */
    if (p->bonus_high) {
        double ef = rules__group_elev(sc, F, nF), et = rules__group_elev(sc, T, nT);
        if (ef > et)
            rules__add(out->bonus_dice, &out->n_bonus_dice, p->bonus_high, "high ground");
        else if (et > ef)
            rules__add(out->defence_dice, &out->n_defence_dice, p->bonus_high, "high ground");
    }
}

int rules_soldier_of(const rules_scenario *sc, const int *g, int n, int f)
{
    if (rules__soldiers(sc, &f, 1))
        return f;
    for (int k = 0; k < n; k++)
        if (rules__soldiers(sc, &g[k], 1))
            return g[k];
    return f;
}

/* The colour figure f's defence roll takes from col: its quality's shift
 * (elite better, militia worse), within the profile's colours. */
static int rules__defence_colour(const rules_profile *p, const rules_figure *f, int col)
{
    if (f->dquality >= 0)
        col += p->dq_shift[f->dquality];
    return col < 0 ? 0 : col >= p->ncolours ? p->ncolours - 1 : col;
}

int rules_aim_first(const rules_scenario *sc, int *g, int n)
{
    const rules_profile *p = sc->prof;
    if (!p->naim || n < 2)
        return n;
    const char *type = sc->figs[rules_soldier_of(sc, g, n, g[0])].type;
    int t = 0;
    while (t < p->naim && strcmp(p->aim_type[t], type))
        t++;
    if (t == p->naim)
        return n;
    int m = 0;
    for (int k = 0; k < n; k++)
        for (int a = 0; a < p->naim_at[t]; a++)
            if (!strcmp(p->aim_at[t][a], sc->figs[g[k]].type)) {
                int x = g[m];
                g[m++] = g[k];
                g[k] = x;
                break;
            }
    return m ? m : n; /* none of them on the table: the unit's figures */
}

void rules_fire_bonus(rules_scenario *sc, const rules_query_opts *qo, const int *F, int nF, const int *T, int nT, int j,
                      const rules_weapon *w, int si, int sj, rules_result *out)
{
    const rules_profile *p = sc->prof;
    out->n_bonus_dice = 0;
    out->defender_dice = out->defender_to_hit = RULES_NULL;
    if (!out->has_defence_dice)
        return;
    rules__bonus(sc, F, nF, T, nT, j, 0, out);
    if (w && w->bonus_within_in > 0 &&
        rules_figure_within(sc, &sc->figs[si], &sc->figs[sj], rules_fx(w->bonus_within_in)))
        rules__add(out->bonus_dice, &out->n_bonus_dice, w->bonus_within, "%s within %g\"", w->name, w->bonus_within_in);
    if (w && w->still_bonus && !qo->moved) /* repeating rifles fired standing still */
        rules__add(out->bonus_dice, &out->n_bonus_dice, w->still_bonus, "%s, not moved", w->name);
    if (out->to_hit == RULES_NULL) /* a shot that is not allowed has no bonus */
        out->n_bonus_dice = 0;
    if (out->dice > 0)
        out->dice += rules__sum(out->bonus_dice, out->n_bonus_dice);
    /* the defender's roll: its own dice (a die a soldier, not its officer
     * or ensign) and its bonus dice, at its colour's score */
    if (p->has_defence_roll && out->to_hit != RULES_NULL) {
        out->defender_dice = rules__soldiers(sc, T, nT) * p->defence_roll_dice +
                             rules__sum(out->defence_dice, out->n_defence_dice);
        out->defender_to_hit =
            p->ncolours ? p->colour_to_hit[rules__defence_colour(p, &sc->figs[j], sc->figs[j].colour)] : RULES_NULL;
    }
}

tt_status rules_melee_dice(rules_scenario *sc, const int *F, int nF, const int *T, int nT, int i, int j,
                           rules_result *out, tt_err *err)
{
    const rules_profile *p = sc->prof;
    int si = rules_soldier_of(sc, F, nF, i), sj = rules_soldier_of(sc, T, nT, j);
    const rules_figure *fi = &sc->figs[si], *fj = &sc->figs[sj];
    if (!p->has_melee || !strcmp(fi->side, fj->side))
        return TT_OK; /* no melee rule, or contact between friends */
    int a = 0, d = 0;
    while (a < p->nmelee_att && strcmp(p->melee_att[a], fi->type))
        a++;
    while (a < p->nmelee_att && d < p->melee_ndef[a] && strcmp(p->melee_def[a][d], fj->type))
        d++;
    if (a == p->nmelee_att || d == p->melee_ndef[a])
        return tt_err_set(err, TT_ERR_ARG, "a \"%s\" (%s) cannot start a melee with a \"%s\" (%s) in ruleset %s", fi->type,
                          fi->id, fj->type, fj->id, p->name);
    out->has_defence_dice = 1;
    out->n_bonus_dice = out->n_defence_dice = 0;
    /* the attacker's colour: the melee's (green), else its own; a formation
     * may set it for some attackers (cavalry at a square) */
    int col = p->melee_colour >= 0 ? p->melee_colour : fi->colour, fm = fj->formation;
    for (int k = 0; fm >= 0 && k < p->form_nmcol[fm]; k++)
        if (!strcmp(p->form_mcol_type[fm][k], fi->type))
            col = p->form_mcol[fm][k];
    out->to_hit = p->colour_to_hit[col];
    int piece;
    rules_cover cv = rules_cover_for(sc, i, j, &piece);
    if (cv != RULES_COVER_NONE && p->defence_dice[cv] > 0)
        rules__add(out->defence_dice, &out->n_defence_dice, p->defence_dice[cv], "%s cover: %s",
                   rules_cover_name(cv), sc->pieces[piece].id);
    rules__bonus(sc, F, nF, T, nT, sj, 1, out);
    out->dice = rules__soldiers(sc, F, nF) * p->melee_dice[a][d] + rules__sum(out->bonus_dice, out->n_bonus_dice);
    int dcol = fj->colour;
    for (int k = 0; k < p->nmelee_dcol; k++)
        if (!strcmp(p->melee_dcol_type[k], fj->type))
            dcol = p->melee_dcol[k];
    out->defender_dice = rules__soldiers(sc, T, nT) * p->melee_def_dice + rules__sum(out->defence_dice, out->n_defence_dice);
    out->defender_to_hit = p->colour_to_hit[rules__defence_colour(p, fj, dcol)];
    return TT_OK;
}
