/* fire.c - the 'los' and 'fire' queries: line of sight, range bracket,
 * cover and the score needed to hit. */
#include "rules_questions.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tt_status rules_ask_los(rules_scenario *sc, const rules_query_opts *qo, const char *from, const char *to,
                        rules_result *out, tt_err *err)
{
    int i, j, bl;
    tt_status st;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_LOS;
    if ((st = rules_scenario_figure(sc, from, "from", &i, err)) || (st = rules_scenario_figure(sc, to, "to", &j, err)))
        return st;
    out->visible = rules_los_decide(sc, qo, i, j, 0, 1, &bl);
    out->blocked_by = rules_blocker_id(sc, bl);
    out->line[0] = rules_pt_in(rules_fire_origin(sc, &sc->figs[i]));
    out->line[1] = rules_pt_in(sc->figs[j].shape.c);
    return TT_OK;
}

tt_status rules_weapon_of(const rules_scenario *sc, const rules_figure *f, const char *name, const rules_weapon **w,
                          tt_err *err)
{
    if (name) {
        *w = rules_profile_weapon(sc->prof, name);
        if (!*w) {
            char names[512];
            rules_profile_weapon_names(sc->prof, names, sizeof names);
            return tt_err_set(err, TT_ERR_UNKNOWN, "unknown weapon \"%s\" in ruleset %s (known: %s)", name,
                              sc->prof->name, names);
        }
        if (rules_type_in((*w)->not_types, (*w)->nnot_types, f->type)) { /* cavalry cannot fire */
            *w = NULL;
            return tt_err_set(err, TT_ERR_ARG, "figure \"%s\" is a \"%s\", which cannot use weapon \"%s\" in ruleset %s",
                              f->id, f->type, name, sc->prof->name);
        }
        return TT_OK;
    }
    *w = f->weapon;
    if (!*w)
        return tt_err_set(err, TT_ERR_ARG, "figure \"%s\" has no weapon: give it one in the scenario or add "
                                           "\"weapon\" to the query",
                          f->id);
    return TT_OK;
}

int rules_to_hit(const rules_profile *p, int base, const rules_modifier *m, int n)
{
    int th = base;
    for (int k = 0; k < n; k++) /* a modifier adds to the roll (d6 rulesets) or to the score needed */
        th += p->mods_add_to_score ? m[k].value : -m[k].value;
    if (p->always_hits > 0 && th > p->always_hits)
        th = p->always_hits; /* the rule of dice: that roll always succeeds */
    if (p->always_misses > 0 && th <= p->always_misses)
        th = p->always_misses + 1; /* ... and that one always fails */
    if (th < 1)
        th = 1;
    return th <= p->to_hit_max ? th : RULES_NULL;
}

/* An indirect weapon's spotter: a figure of a friendly unit (of i's side,
 * not i's unit) that the line of fire i -> j passes over (some figure of
 * that unit lies on the line) and that sees j, or -1. */
static int rules__spotter(rules_scenario *sc, const rules_query_opts *qo, int i, int j)
{
    const rules_figure *fi = &sc->figs[i];
    rules_pt a = fi->shape.c, b = sc->figs[j].shape.c;
    int bl;
    for (size_t m = 0; m < sc->nfigs; m++) {
        const rules_figure *fm = &sc->figs[m];
        if ((int)m == i || (int)m == j || strcmp(fm->side, fi->side) || !strcmp(fm->unit, fi->unit) ||
            !rules_geom_shape_seg_touch(&fm->shape, a, b))
            continue;
        for (size_t k = 0; k < sc->nfigs; k++) /* the unit shot over: one of its figures sees j */
            if ((int)k != j && !strcmp(sc->figs[k].unit, fm->unit) && !strcmp(sc->figs[k].side, fi->side) &&
                rules_los_decide(sc, qo, (int)k, j, 1, 0, &bl))
                return (int)k;
    }
    return -1;
}

/* A friend of another unit on the line of fire i -> j closer to i than
 * w's over_friends_min_in (a howitzer cannot fire over it), or -1. */
static int rules__friend_too_close(const rules_scenario *sc, int i, int j, const rules_weapon *w)
{
    const rules_figure *fi = &sc->figs[i];
    if (w->over_friends_min_in <= 0)
        return -1;
    int64_t R = rules_fx(w->over_friends_min_in) - 1;
    for (size_t k = 0; k < sc->nfigs; k++) {
        const rules_figure *fk = &sc->figs[k];
        if ((int)k != i && (int)k != j && !strcmp(fk->side, fi->side) && strcmp(fk->unit, fi->unit) &&
            rules_figure_within(sc, fi, fk, R) && rules_geom_shape_seg_touch(&fk->shape, fi->shape.c, sc->figs[j].shape.c))
            return (int)k;
    }
    return -1;
}

tt_status rules_arc_refusal(const rules_figure *f, const rules_weapon *w, rules_pt p, const char *what, const char *cite,
                            tt_err *err)
{
    rules_pt dc = rules_sub(p, f->shape.c); /* the arc is the firer's, from its centre */
    double off = fabs(remainder(atan2((double)dc.y, (double)dc.x) * (180.0 / M_PI) - f->facing_deg, 360.0));
    double half = w->arc_deg / 2 + w->pivot_deg;
    if (f->arc_cap_deg > 0 && f->arc_cap_deg / 2 < half)
        half = f->arc_cap_deg / 2;
    return tt_err_set(err, TT_ERR_ARG,
                      "\"%s\" cannot fire %s that way: the aim is %.0f degrees off its facing, and it fires within %g "
                      "degrees either side (%s); turn it first",
                      f->id, what, off, half, cite);
}

void rules_fire_arc(const rules_figure *f, const rules_weapon *w, rules_arc *a)
{
    double arc = w->arc_deg + 2 * w->pivot_deg;
    if (f->arc_cap_deg > 0 && f->arc_cap_deg < arc)
        arc = f->arc_cap_deg; /* behind terrain that narrows it (an emplacement) */
    rules_arc_init(a, f->shape.c, f->facing_deg, arc, rules_fx(RULES_MAX_IN));
}

/* The shot i -> j with weapon w is allowed: in range, in the arc, not too
 * close, and a clear line of fire unless the weapon fires indirect.
 * *visible: the line of fire is clear; *br: the range bracket or NULL. */
int rules_fire_shot(rules_scenario *sc, const rules_query_opts *qo, int i, int j, const rules_weapon *w,
                    const rules_arc *arc, int want_visible, int *visible, const rules_bracket **br, int *hint)
{
    const rules_figure *fi = &sc->figs[i], *fj = &sc->figs[j];
    int bl;
    *br = NULL;
    for (int k = 0; k < w->nbr && !*br; k++)
        if (rules_figure_within(sc, fi, fj, w->br[k].max_fx))
            *br = &w->br[k];
    /* firing from within a piece that caps the range (woods) */
    for (int k = 0; k < fi->ninside && *br; k++) {
        double cap = sc->pieces[fi->inside[k]].p.max_range_in;
        if (cap > 0 && !rules_figure_within(sc, fi, fj, rules_fx(cap)))
            *br = NULL;
    }
    int too_close = w->min_range_in > 0 && rules_figure_within(sc, fi, fj, rules_fx(w->min_range_in) - 1);
    if (too_close) /* inside its minimum range: out of its range */
        *br = NULL;
    rules_arc a;
    if (!arc) {
        rules_fire_arc(fi, w, &a);
        arc = &a;
    }
    int ok = *br && !too_close && rules_arc_meets(arc, &fj->shape) && !(qo->moved && w->cannot_move_and_fire) &&
             !(fi->formation >= 0 && sc->prof->form_no_fire[fi->formation]);
    /* the line is traced only when it matters (or is asked for) */
    *visible = (ok || want_visible) ? rules_fire_decide(sc, qo, i, j, 1, 0, &bl, hint) : 0;
    if (ok && !*visible && w->indirect && w->needs_spotter)
        ok = rules__spotter(sc, qo, i, j) >= 0;
    if (ok && rules__friend_too_close(sc, i, j, w) >= 0)
        ok = 0;
    return ok && (*visible || w->indirect);
}

/* Append a modifier to mods (*n of them so far); its reason is written
 * only where why is set (grape's per-target scores want values only). */
__attribute__((format(printf, 5, 6))) static void rules__add_mod(rules_modifier *mods, int *n, int why, int value,
                                                                  const char *fmt, ...)
{
    if (*n >= RULES_MAX_MODIFIERS)
        return;
    rules_modifier *m = &mods[(*n)++];
    m->value = value;
    m->reason[0] = '\0';
    if (!why)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->reason, sizeof m->reason, fmt, ap);
    va_end(ap);
}

int rules_fires_plain(const rules_profile *p, const rules_figure *f)
{
    return rules_type_in(p->plain_fire_types, p->nplain_fire_types, f->type);
}

tt_status rules_fire_barred(const rules_scenario *sc, const rules_figure *f, tt_err *err)
{
    const rules_profile *p = sc->prof;
    if (rules_type_in(p->no_fire_types, p->nno_fire_types, f->type))
        return tt_err_set(err, TT_ERR_ARG, "figure \"%s\" cannot fire: figures of type \"%s\" do not shoot in ruleset %s",
                          f->id, f->type, p->name);
    return TT_OK;
}

int rules_not_target(const rules_scenario *sc, const rules_figure *f, char *why, size_t n)
{
    const rules_profile *p = sc->prof;
    const char *src = NULL;
    char what[64];
    if (rules_type_in(p->no_target_types, p->nno_target_types, f->type)) {
        snprintf(what, sizeof what, "of type \"%s\"", f->type);
        src = p->no_target_src;
    } else if (f->formation >= 0 && p->form_not_target[f->formation]) {
        snprintf(what, sizeof what, "in formation \"%s\"", p->form_name[f->formation]);
        src = p->form_not_target_src[f->formation];
    } else {
        return 0;
    }
    if (why)
        snprintf(why, n, "%s%sfigure \"%s\" cannot be fired at: figures %s are not targets in ruleset %s", src ? src : "",
                 src ? ": " : "", f->id, what, p->name);
    return 1;
}

tt_status rules_fire_refused(rules_scenario *sc, const rules_figure *f, rules_result *out, tt_err *err)
{
    char why[600];
    rules_not_target(sc, f, why, sizeof why);
    out->to_hit = out->dice = RULES_NULL;
    out->n_firers = out->n_ids = 0;
    out->n_bonus_dice = 0;
    out->defender_dice = out->defender_to_hit = RULES_NULL;
    return rules_result_set_rule(out, why, err);
}

/* The to-hit modifiers that hang on the target's ground and the firer's
 * type: the ground it stands in (troops crossing a river or a ford), and
 * none at all for a type that fires unmodified (missile cavalry). */
static void rules__ground_and_plain(const rules_scenario *sc, int i, int j, rules_modifier *mods, int *n, int why);

/* A modifier that makes the hit h harder, in the ruleset's sign; and
 * whether modifier v makes it harder (a penalty). */
static int rules__harder(const rules_profile *p, int h) { return p->mods_add_to_score ? h : -h; }
static int rules__penalty(const rules_profile *p, int v) { return p->mods_add_to_score ? v > 0 : v < 0; }

/* The firer's own modifier by its type (on horseback), unless its weapon
 * ignores it. */
static void rules__firer_type_mod(const rules_profile *p, const rules_figure *fi, const rules_weapon *w,
                                  rules_modifier *mods, int *n, int why)
{
    for (int k = 0; k < p->nft && !w->no_firer_type_mod; k++)
        if (p->ft_mod[k] && !strcmp(p->ft_name[k], fi->type))
            rules__add_mod(mods, n, why, p->ft_mod[k], "firer: %s", fi->type);
}

/* Fire needs an enemy: figures i and j (of from and to) both of one side
 * is an error naming them (figures without a side are anyone's). */
tt_status rules_fire_enemy(const rules_scenario *sc, const char *from, const char *to, int i, int j, tt_err *err)
{
    const rules_figure *fi = &sc->figs[i], *fj = &sc->figs[j];
    if (!fi->side[0] || strcmp(fi->side, fj->side))
        return TT_OK;
    return tt_err_set(err, TT_ERR_ARG, "\"%s\" and \"%s\" are on the same side (%s): fire needs an enemy target", from, to,
                      fi->side);
}

int rules_moved_dice(const rules_scenario *sc, const rules_query_opts *qo, const rules_weapon *w, int d)
{
    if (!qo->moved || w->moved_keeps_dice || sc->prof->moved_rof <= 0 || d <= sc->prof->moved_rof)
        return d;
    return sc->prof->moved_rof;
}

/* The dice figure i rolls at figure j with w, 0 where the rules do not fix them. */
int rules_fire_dice(rules_scenario *sc, int i, int j, const rules_weapon *w)
{
    if (w->dice <= 0)
        return 0;
    return w->dice_within_in > 0 && rules_figure_within(sc, &sc->figs[i], &sc->figs[j], rules_fx(w->dice_within_in))
               ? w->dice_within
               : w->dice;
}

/* The modifiers of j's cover (cover_piece, cv) against i: its cover value
 * (CV 2 against a higher shooter where the ruleset says so) and the
 * cover's modifier, in the ruleset's sign. */
static void rules__cover_mods(rules_scenario *sc, int i, int j, int cover_piece, rules_cover cv, rules_modifier *mods,
                              int *n, int why)
{
    const rules_figure *fi = &sc->figs[i], *fj = &sc->figs[j];
    const rules_profile *pr = sc->prof;
    if (cover_piece >= 0 && sc->pieces[cover_piece].p.cv > 0) {
        const rules_piece *pc = &sc->pieces[cover_piece];
        if (pr->above_cv > 0 && pc->p.cv > pr->above_cv && !pc->p.keeps_cv_from_above && fi->elev > fj->elev &&
            !rules_piece_near_shape(pc, &fj->shape, rules_fx(pr->above_beyond_in)))
            rules__add_mod(mods, n, why, rules__harder(pr, pr->above_cv), "cover value %d against a higher shooter: %s",
                           pr->above_cv, pc->id);
        else
            rules__add_mod(mods, n, why, rules__harder(pr, pc->p.cv), "cover value %d: %s", pc->p.cv, pc->id);
    }
    if (cv != RULES_COVER_NONE && pr->cover_mod[cv])
        rules__add_mod(mods, n, why, rules__harder(pr, pr->cover_mod[cv]), "%s cover: %s", rules_cover_name(cv),
                       sc->pieces[cover_piece].id);
}

int rules_cover_to_hit(rules_scenario *sc, int i, int j, int base, const int *cand, int nc)
{
    rules_modifier m[2];
    int piece, n = 0;
    rules_cover cv = rules_cover_among(sc, i, j, cand, nc, &piece);
    rules__cover_mods(sc, i, j, piece, cv, m, &n, 0);
    return rules_to_hit(sc->prof, base, m, n);
}

int rules_fire_moved_mod(const rules_scenario *sc, const rules_query_opts *qo, const rules_weapon *w, int rest)
{
    const rules_profile *pr = sc->prof;
    if (!qo->moved)
        return 0;
    return w->has_moved_rule                               ? w->moved_mod
           : pr->moved_mod_only_rof && rest > pr->moved_rof ? 0
                                                            : pr->moved_mod;
}

void rules_fire_mods(rules_scenario *sc, const rules_query_opts *qo, int i, int j, int dj, const rules_weapon *w,
                     int visible, int cover_piece, rules_cover cv, int mmod, rules_modifier *mods, int *n, int why)
{
    const rules_figure *fi = &sc->figs[i], *fd = &sc->figs[dj];
    const rules_profile *pr = sc->prof;
    rules__cover_mods(sc, i, j, cover_piece, cv, mods, n, why);
    if (fd->formation >= 0 && pr->form_target_mod[fd->formation])
        rules__add_mod(mods, n, why, pr->form_target_mod[fd->formation], "target in %s", pr->form_name[fd->formation]);
    int still = !(qo->moved && pr->moved_drops_bonuses); /* bonuses that need the firer not to have moved */
    if (fi->fquality >= 0 && pr->fq_mod[fi->fquality] && (still || rules__penalty(pr, pr->fq_mod[fi->fquality])))
        rules__add_mod(mods, n, why, pr->fq_mod[fi->fquality], "%s firing", pr->fq_name[fi->fquality]);
    rules__firer_type_mod(pr, fi, w, mods, n, why);
    if (qo->target_charging && pr->charging_mod)
        rules__add_mod(mods, n, why, pr->charging_mod, "target charging");
    if (qo->moved && mmod)
        rules__add_mod(mods, n, why, mmod, "moved before firing");
    int sk;
    if (pr->through_skirmishers_mod && visible && (sk = rules_through_own_skirmishers(sc, i, j)) >= 0)
        rules__add_mod(mods, n, why, pr->through_skirmishers_mod, "through own skirmishers: %s", sc->figs[sk].id);
    if (!visible && w->indirect && w->indirect_mod)
        rules__add_mod(mods, n, why, w->indirect_mod, "indirect fire (no line of sight)");
    rules__ground_and_plain(sc, i, j, mods, n, why);
}

/* The answer to one shot i -> j (figures by index). */
void rules_fire_pair(rules_scenario *sc, const rules_query_opts *qo, int i, int j, int dj, const rules_weapon *w,
                     int rof, rules_result *out)
{
    const rules_figure *fi = &sc->figs[i], *fj = &sc->figs[j], *fd = &sc->figs[dj];
    const rules_bracket *br;
    int visible;
    int allowed = rules_fire_shot(sc, qo, i, j, w, NULL, 1, &visible, &br, NULL);
    out->distance_in = rules_figure_distance(sc, fi, fj);
    out->bracket = br ? br->name : "out";
    out->visible = visible;
    int cover_piece;
    rules_cover cv = rules_cover_for(sc, i, j, &cover_piece);
    out->cover = rules_cover_name(cv);
    out->die = sc->prof->die;
    out->rule = w->fire_src ? w->fire_src : w->src;
    int nm = 0;
    if (br && br->modifier)
        rules__add_mod(out->modifiers, &nm, 1, br->modifier, "%s range", br->name);
    /* having moved: counted on the dice it would roll */
    int mmod = qo->moved ? rules_fire_moved_mod(sc, qo, w, rof > 0 ? rof : rules_fire_dice(sc, i, j, w)) : 0;
    rules_fire_mods(sc, qo, i, j, dj, w, visible, cover_piece, cv, mmod, out->modifiers, &nm, 1);
    out->n_modifiers = nm;
    const rules_profile *pr = sc->prof;
    out->to_hit = RULES_NULL;
    /* the score needed: the target's defence, or by the firer's colour
     * where the ruleset says so, else by the range bracket */
    int fcol = fd->formation >= 0 && pr->form_attacker_colour[fd->formation] >= 0 ? pr->form_attacker_colour[fd->formation]
                                                                                   : fi->colour;
    if (w->best_colour >= 0 && fcol < w->best_colour) /* rockets: yellow dice at best */
        fcol = w->best_colour;
    int base = sc->prof->by_target  ? fd->ds
               : sc->prof->ncolours ? sc->prof->colour_to_hit[fcol]
               : br                 ? br->to_hit
                                    : RULES_NULL;
    if (allowed && base != RULES_NULL && !w->no_to_hit)
        out->to_hit = rules_to_hit(sc->prof, base, out->modifiers, out->n_modifiers);
    out->dice = allowed && w->dice > 0 ? rules_moved_dice(sc, qo, w, rules_fire_dice(sc, i, j, w)) : RULES_NULL;
    out->has_defence_dice = sc->prof->defence_dice[RULES_COVER_NONE] < 0;
    out->n_defence_dice = 0;
    /* the cover's dice, or what the weapon leaves of them (a heavy gun) */
    int cover_dice = w->has_cover_dice ? w->cover_dice[cv] : sc->prof->defence_dice[cv];
    if (out->has_defence_dice && cv != RULES_COVER_NONE && cover_dice > 0) {
        rules_modifier *m = &out->defence_dice[out->n_defence_dice++];
        m->value = cover_dice;
        snprintf(m->reason, sizeof m->reason, "%s cover: %s", out->cover, sc->pieces[cover_piece].id);
    }
    /* the defender's own bonus dice: by its type (cavalry) and formation (loose) */
    for (int k = 0; out->has_defence_dice && k < pr->ndd_type && out->n_defence_dice < RULES_MAX_MODIFIERS; k++)
        if (!strcmp(pr->dd_type[k], fd->type)) {
            rules_modifier *m = &out->defence_dice[out->n_defence_dice++];
            m->value = pr->dd_type_n[k];
            snprintf(m->reason, sizeof m->reason, "%s under fire", fd->type);
        }
    if (out->has_defence_dice && fd->formation >= 0 && pr->form_defence_dice[fd->formation] > 0 &&
        out->n_defence_dice < RULES_MAX_MODIFIERS) {
        rules_modifier *m = &out->defence_dice[out->n_defence_dice++];
        m->value = pr->form_defence_dice[fd->formation];
        snprintf(m->reason, sizeof m->reason, "in %s formation", pr->form_name[fd->formation]);
    }
    int near = allowed ? -1 : rules__friend_too_close(sc, i, j, w);
    if (near >= 0) /* the shot it cannot fire over */
        out->blocked_by = sc->figs[near].id;
    out->line[0] = rules_pt_in(rules_fire_origin(sc, fi));
    out->line[1] = rules_pt_in(fj->shape.c);
}

static void rules__ground_and_plain(const rules_scenario *sc, int i, int j, rules_modifier *mods, int *n, int why)
{
    const rules_figure *fj = &sc->figs[j];
    for (int k = 0; k < fj->ninside; k++) {
        const rules_piece *pc = &sc->pieces[fj->inside[k]];
        if (pc->p.target_mod)
            rules__add_mod(mods, n, why, pc->p.target_mod, "target in %s: %s", pc->kind, pc->id);
    }
    if (rules_fires_plain(sc->prof, &sc->figs[i]))
        *n = 0;
}

tt_status rules_los(rules_scenario *sc, const char *from, const char *to, rules_result *out, tt_err *err)
{
    return rules_ask_los(sc, &rules_no_opts, from, to, out, err);
}

tt_status rules_fire(rules_scenario *sc, const char *from, const char *to, const char *weapon, rules_result *out,
                     tt_err *err)
{
    return rules_ask_fire(sc, &rules_no_opts, from, to, weapon, out, err);
}

tt_status rules_ask_fire(rules_scenario *sc, const rules_query_opts *qo, const char *from, const char *to,
                         const char *weapon, rules_result *out, tt_err *err)
{
    int i, j;
    tt_status st;
    const rules_weapon *w;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_FIRE;
    if (!from || !to)
        return tt_err_set(err, TT_ERR_ARG, "missing \"%s\" (a figure id or a unit)", from ? "to" : "from");
    i = rules_scenario_find(sc, from);
    j = rules_scenario_find(sc, to);
    if (i < 0 || j < 0)
        return rules_fire_unit(sc, qo, from, i, to, j, weapon, out, err);
    if (i == j)
        return tt_err_set(err, TT_ERR_ARG, "figure \"%s\" cannot fire at itself", from);
    if ((st = rules_fire_enemy(sc, from, to, i, j, err)) || (st = rules_fire_barred(sc, &sc->figs[i], err)) ||
        (st = rules_weapon_of(sc, &sc->figs[i], weapon, &w, err)))
        return st;
    /* a stand of a line wide enough rolls its extra dice, as in its unit's fire */
    int base = rules_fire_dice(sc, i, j, w), bonus = base > 0 ? rules_unit_rof_bonus(sc, i) : 0, rest = base;
    if (bonus < 0)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    rest += bonus;
    rules_fire_pair(sc, qo, i, j, j, w, bonus > 0 ? rest : 0, out);
    if (bonus > 0 && out->dice > 0 && !(qo->moved && sc->prof->moved_drops_bonuses))
        out->dice = rules_moved_dice(sc, qo, w, rest);
    if (sc->prof->centre_seen && out->to_hit != RULES_NULL && strcmp(sc->figs[i].unit, sc->figs[j].unit)) {
        /* a figure of a unit: the unit's centre must be seen (not where it
         * is fired at through its aim_at figures) */
        int *T = NULL, nT = 0, bl;
        rules_pt c;
        if ((st = rules_group(sc, sc->figs[j].unit, -1, "to", &T, &nT, err)))
            return st;
        if (rules_aim_first(sc, T, nT) == nT && !rules_centre_seen(sc, qo, i, T, nT, &bl, &c)) {
            out->to_hit = out->dice = RULES_NULL;
            out->visible = 0;
            out->blocked_by = rules_blocker_id(sc, bl);
            out->line[1] = rules_pt_in(c);
        }
        free(T);
    }
    rules_fire_bonus(sc, qo, &i, 1, &j, 1, j, w, i, j, out);
    if (rules_not_target(sc, &sc->figs[j], NULL, 0)) /* a shot that is not allowed, as any other */
        return rules_fire_refused(sc, &sc->figs[j], out, err);
    return TT_OK;
}

/* Aspect by arc: p within front_deg / 2 of b's facing (seen from b's
 * centre) is front, within rear_deg / 2 of its back rear, else flank;
 * a boundary counts as front (exact for the half-plane of a 180 degree
 * front). */
static rules_aspect_kind rules__aspect_arc(const rules_profile *pr, rules_pt p, const rules_figure *b)
{
    rules_pt v = rules_sub(p, b->shape.c);
    if (v.x == 0 && v.y == 0)
        return RULES_ASPECT_FRONT;
    if (pr->aspect_front_deg == 180 && rules_dot(v, b->f) >= 0)
        return RULES_ASPECT_FRONT;
    double c = (double)rules_dot(v, b->f) / (hypot((double)v.x, (double)v.y) * hypot((double)b->f.x, (double)b->f.y));
    double off = acos(c < -1 ? -1 : c > 1 ? 1 : c) * (180.0 / M_PI); /* degrees from the facing, 0-180 */
    if (pr->aspect_front_deg != 180 && off <= pr->aspect_front_deg / 2 + 1e-9)
        return RULES_ASPECT_FRONT;
    return off >= 180 - pr->aspect_rear_deg / 2 - 1e-9 ? RULES_ASPECT_REAR : RULES_ASPECT_FLANK;
}

tt_status rules_aspect(rules_scenario *sc, const char *from, const char *to, rules_result *out, tt_err *err)
{
    int i, j;
    tt_status st;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_ASPECT;
    if ((st = rules_scenario_figure(sc, from, "from", &i, err)) || (st = rules_scenario_figure(sc, to, "to", &j, err)))
        return st;
    const rules_figure *fa = &sc->figs[i], *fb = &sc->figs[j];
    rules_pt ref = rules_fire_origin(sc, fa);
    static const char *const names[] = {"front", "flank", "rear"};
    out->aspect = names[sc->prof->aspect_arc ? rules__aspect_arc(sc->prof, ref, fb)
                                             : rules_aspect_box(ref, fb->shape.c, fb->f, fb->w, fb->d)];
    out->line[0] = rules_pt_in(ref);
    out->line[1] = rules_pt_in(fb->shape.c);
    return TT_OK;
}
