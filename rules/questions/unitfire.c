/* unitfire.c - 'fire' from or at a unit (the scenario's "unit" field):
 * which figures of the firing unit can fire (arc, line of fire, range and,
 * where the weapon says so, only the front ranks), which figures of the
 * target are eligible, nearest first, and the dice they roll in all. */
#include "rules_questions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The figures `name` stands for: the figure `fig` (its index, found by
 * the caller), else the figures of that unit.  *idx is malloc'd. */
tt_status rules_group(const rules_scenario *sc, const char *name, int fig, const char *role, int **idx, int *n,
                      tt_err *err)
{
    *n = 0;
    if (!(*idx = malloc((sc->nfigs ? sc->nfigs : 1) * sizeof **idx)))
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if (fig >= 0) {
        (*idx)[(*n)++] = fig;
        return TT_OK;
    }
    for (size_t k = 0; k < sc->nfigs; k++)
        if (sc->figs[k].unit[0] == name[0] && !strcmp(sc->figs[k].unit, name))
            (*idx)[(*n)++] = (int)k;
    if (*n == 0) {
        free(*idx);
        *idx = NULL;
        return tt_err_set(err, TT_ERR_UNKNOWN,
                          "unknown figure or unit \"%s\" in \"%s\": no figure has that id or that \"unit\" in the "
                          "scenario",
                          name, role);
    }
    return TT_OK;
}

/* Which members of the group stand in its first `ranks` ranks (1 in
 * front[k]).  The unit's facing and front are its soldiers': officers and
 * ensigns stand anywhere near it (L116 of All the King's Men) and are in no
 * rank.  A soldier's rank is one more than the deepest rank of a soldier
 * ahead of it in its lane: more than half a base depth ahead, and less than
 * three quarters of a base width to the side (so a rank half a base
 * staggered still stands behind; one figure stepped forward does not push
 * its whole rank back).  0: done, -1: out of memory. */
static int rules__front_ranks(const rules_scenario *sc, const int *g, int n, int ranks, unsigned char *front)
{
    double *al = malloc((size_t)n * 2 * sizeof *al);
    int *ord = malloc((size_t)n * 2 * sizeof *ord), *rank = ord ? ord + n : NULL;
    double *ac = al ? al + n : NULL;
    if (!al || !ord) {
        free(al);
        free(ord);
        return -1;
    }
    double ux = 0, uy = 0;
    int m = 0, first = -1;
    for (int k = 0; k < n; k++) {
        front[k] = 0;
        if (!rules_group_counts(sc, g, n, k))
            continue;
        double a = sc->figs[g[k]].facing_deg * (M_PI / 180.0);
        ux += cos(a);
        uy += sin(a);
        if (first < 0)
            first = k;
    }
    double L = hypot(ux, uy);
    if (L > 1e-9) {
        ux /= L;
        uy /= L;
    } else if (first >= 0) { /* facings that cancel out: the first soldier's */
        double a = sc->figs[g[first]].facing_deg * (M_PI / 180.0);
        ux = cos(a);
        uy = sin(a);
    }
    for (int k = 0; k < n; k++) {
        if (!rules_group_counts(sc, g, n, k))
            continue;
        const rules_figure *f = &sc->figs[g[k]];
        al[k] = f->x * ux + f->y * uy;
        ac[k] = -f->x * uy + f->y * ux;
        /* in order from the front (insertion: units are small) */
        int p = m++;
        while (p > 0 && al[ord[p - 1]] < al[k]) {
            ord[p] = ord[p - 1];
            p--;
        }
        ord[p] = k;
    }
    for (int a = 0; a < m; a++) {
        int k = ord[a], r = 1;
        const rules_figure *fk = &sc->figs[g[k]];
        for (int b = 0; b < a; b++) {
            int q = ord[b];
            const rules_figure *fq = &sc->figs[g[q]];
            if (rank[q] >= r && al[q] - al[k] > (fq->d_in + fk->d_in) / 4 &&
                fabs(ac[q] - ac[k]) < 0.375 * (fq->w_in + fk->w_in))
                r = rank[q] + 1;
        }
        rank[k] = r;
        front[k] = r <= ranks;
    }
    free(al);
    free(ord);
    return 0;
}

/* Orders figures by the ruleset's distance without the square root where
 * it measures centre to centre. */
static double rules__dist_key(const rules_scenario *sc, const rules_figure *a, const rules_figure *b)
{
    if (sc->prof->centre_measure) {
        double dx = (double)(a->shape.c.x - b->shape.c.x), dy = (double)(a->shape.c.y - b->shape.c.y);
        return dx * dx + dy * dy;
    }
    return rules_geom_shape_shape_dist(&a->shape, &b->shape);
}

/* How wide formation fm must be for its extra dice, for a figure of type. */
static int rules__rof_wide(const rules_profile *p, int fm, const char *type)
{
    for (int k = 0; k < p->form_nwide[fm]; k++)
        if (!strcmp(p->form_wide_type[fm][k], type))
            return p->form_wide_n[fm][k];
    return p->form_rof_wide[fm];
}

int rules_unit_rof_bonus(const rules_scenario *sc, int i)
{
    const rules_profile *p = sc->prof;
    const rules_figure *f = &sc->figs[i];
    int fm = f->formation, n = 0, wide = 0;
    if (fm < 0 || p->form_rof[fm] <= 0 || rules_fires_plain(p, f))
        return 0;
    int *g = calloc(sc->nfigs, sizeof *g);
    unsigned char *r0 = calloc(sc->nfigs, 1);
    if (!g || !r0) {
        free(g);
        free(r0);
        return -1;
    }
    for (size_t k = 0; k < sc->nfigs; k++)
        if (!strcmp(sc->figs[k].unit, f->unit))
            g[n++] = (int)k;
    rules__front_ranks(sc, g, n, 1, r0);
    for (int a = 0; a < n; a++)
        wide += r0[a];
    free(g);
    free(r0);
    return wide >= rules__rof_wide(p, fm, f->type) ? p->form_rof[fm] : 0;
}

typedef struct rules__near {
    double d;  /* the distance key, or a lower bound of it until exact */
    int k;
    int exact;
} rules__near;

static int rules__cmp_near(const void *a, const void *b)
{
    const rules__near *x = a, *y = b;
    if (x->d != y->d)
        return x->d < y->d ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

/* Distance keys between the firing group F and the targets T (ns of
 * them), each taken once and only when needed: key[a * ns + b], NAN until
 * taken. */
typedef struct rules__keys {
    const rules_scenario *sc;
    const int *F, *T;
    int ns;
    double *key;
} rules__keys;

static double rules__key(const rules__keys *K, int a, int b)
{
    double *k = &K->key[(size_t)a * K->ns + b];
    if (isnan(*k))
        *k = rules__dist_key(K->sc, &K->sc->figs[K->F[a]], &K->sc->figs[K->T[b]]);
    return *k;
}

/* A lower bound of rules__key(K, a, b), cheap: the exact key where it is a
 * centre distance, else the centres' distance less both bases' reach. */
static void rules__key_lb(const rules__keys *K, int a, int b, rules__near *n)
{
    const rules_figure *fa = &K->sc->figs[K->F[a]], *fb = &K->sc->figs[K->T[b]];
    double *k = &K->key[(size_t)a * K->ns + b];
    n->exact = K->sc->prof->centre_measure || !isnan(*k);
    if (n->exact) {
        n->d = rules__key(K, a, b);
        return;
    }
    double dx = (double)(fa->shape.c.x - fb->shape.c.x), dy = (double)(fa->shape.c.y - fb->shape.c.y);
    double wa = (double)fa->w, da = (double)fa->d, wb = (double)fb->w, db = (double)fb->d;
    double lb = sqrt(dx * dx + dy * dy) - 0.5 * sqrt(wa * wa + da * da) - 0.5 * sqrt(wb * wb + db * db) - 2;
    n->d = lb > 0 ? lb : 0;
}

/* The entry of list[0..left) with the least exact key (ties: the lowest
 * k), taking exact keys only for entries whose bound comes first; the
 * entries' k are targets of firer `fixed`, or with by_target firers of
 * target `fixed`. */
static int rules__pick(const rules__keys *K, rules__near *list, int left, int fixed, int by_target)
{
    for (;;) {
        int m = 0;
        for (int c = 1; c < left; c++)
            if (rules__cmp_near(&list[c], &list[m]) < 0)
                m = c;
        if (list[m].exact)
            return m;
        list[m].d = by_target ? rules__key(K, list[m].k, fixed) : rules__key(K, fixed, list[m].k);
        list[m].exact = 1;
    }
}

/* One more firer and its shot: the target it fires at and the bracket
 * (the lists are allocated once, for every member of the unit). */
static void rules__add_firer(rules_result *out, const char *id, const char *to, const char *bracket)
{
    out->firers[out->n_firers] = id;
    out->shot_to[out->n_firers] = to;
    out->shot_bracket[out->n_firers++] = bracket;
}

tt_status rules_figures_of(const rules_scenario *sc, const char *name, const char *role, int **idx, int *n, tt_err *err)
{
    *idx = NULL;
    *n = 0;
    if (!name)
        return tt_err_set(err, TT_ERR_ARG, "missing \"%s\" (a figure id or a unit)", role);
    return rules_group(sc, name, rules_scenario_find(sc, name), role, idx, n, err);
}

int rules_probe_put(rules_scenario *sc, int slot, int like, rules_pt p, double facing_deg)
{
    int k = (int)sc->nfigs + slot;
    rules_figure *f = &sc->figs[k];
    *f = sc->figs[like]; /* its strings are like's, owned by it */
    f->x = rules_in(p.x);
    f->y = rules_in(p.y);
    f->facing_deg = facing_deg;
    memset(&f->shape, 0, sizeof f->shape);
    f->shape.round = 1;
    f->shape.c = p;
    f->f = rules_geom_dir(facing_deg);
    f->w_in = f->d_in = 0;
    f->w = f->d = 0;
    f->front = p;
    f->inside = sc->probe_inside + (size_t)slot * (sc->npieces + 1);
    f->ninside = rules_stand_on(sc, p, f->inside, &f->elev, &f->on_hill);
    return k;
}

int rules_centre_seen(rules_scenario *sc, const rules_query_opts *qo, int s, const int *T, int nT, int *blocker,
                      rules_pt *centre)
{
    *blocker = -1;
    if (!sc->prof->centre_seen || nT < 2)
        return 1;
    rules_box b;
    rules_group_box(sc, T, nT, &b);
    *centre = b.c;
    int c = rules_probe_put(sc, RULES_PROBE_CENTRE, rules_soldier_of(sc, T, nT, T[0]), b.c, b.facing_deg);
    if (rules_fire_decide(sc, qo, s, c, 1, 0, blocker, NULL))
        return 1;
    rules_fire_decide(sc, qo, s, c, 0, 1, blocker, NULL); /* which piece or figure hides it */
    return 0;
}

/* Where the profile measures a unit's fire (or charge) from its
 * front-centre: see rules_questions.h. */
int rules_unit_origin(rules_scenario *sc, const int *F, int nF, int like)
{
    const rules_profile *p = sc->prof;
    const char *type = sc->figs[rules_soldier_of(sc, F, nF, F[0])].type;
    rules_box b;
    rules_group_box(sc, F, nF, &b);
    int t = 0, m = 0, one = -1;
    double x = 0, y = 0;
    while (t < p->naim && strcmp(p->aim_type[t], type))
        t++;
    for (int k = 0; t < p->naim && k < nF; k++)
        for (int a = 0; a < p->naim_at[t]; a++)
            if (!strcmp(p->aim_at[t][a], sc->figs[F[k]].type)) {
                rules_pt o = rules_fire_origin(sc, &sc->figs[F[k]]);
                x += (double)o.x;
                y += (double)o.y;
                one = F[k];
                m++;
                break;
            }
    if (m > 0) {
        rules_pt o = {llround(x / m), llround(y / m)};
        return rules_probe_put(sc, RULES_PROBE_FROM, like, o, m == 1 ? sc->figs[one].facing_deg : b.facing_deg);
    }
    return rules_probe_put(sc, RULES_PROBE_FROM, like, b.front, b.facing_deg);
}

tt_status rules_fire_unit(rules_scenario *sc, const rules_query_opts *qo, const char *from, int fi, const char *to,
                          int fj, const char *weapon, rules_result *out, tt_err *err)
{
    int *F = NULL, *T = NULL, *S = NULL, nF, nT, nt = 0; /* S[a]: the figure (or probe) firer a's shots run from */
    const rules_weapon **W = NULL;
    unsigned char *front = NULL, *known = NULL; /* known: targets some firer can fire at */
    rules__near *tnear = NULL, *fnear = NULL;
    double *key = NULL; /* key[a * ns + b]: firer a's distance key to target b, once (rules__keys) */
    rules_arc *arc = NULL;
    tt_status st;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_FIRE;
    out->unit = 1;
    if ((st = rules_group(sc, from, fi, "from", &F, &nF, err)) || (st = rules_group(sc, to, fj, "to", &T, &nT, err)))
        goto done;
    /* the target's figures that are not of the firing group, nor of a
     * type that is never a target (nor measured to: a general) */
    int barred = -1;
    for (int a = 0; a < nT; a++) {
        int mine = 0;
        for (int b = 0; b < nF && !mine; b++)
            mine = T[a] == F[b];
        if (!mine && rules_not_target(sc, &sc->figs[T[a]], NULL, 0))
            barred = T[a];
        else if (!mine)
            T[nt++] = T[a];
    }
    if (nt == 0 && barred >= 0) /* no target but those: answered as a shot that is not allowed */
        T[nt++] = barred;
    if (nt == 0) {
        st = tt_err_set(err, TT_ERR_ARG, "\"%s\" cannot fire at itself: name another unit or figure in \"to\"", from);
        goto done;
    }
    { /* an enemy: not every target figure on the firers' side */
        int a = 0;
        while (a < nt && sc->figs[F[0]].side[0] && !strcmp(sc->figs[T[a]].side, sc->figs[F[0]].side))
            a++;
        if (a == nt && (st = rules_fire_enemy(sc, from, to, F[0], T[0], err)))
            goto done;
    }
    /* the figures fire is aimed at (a skirmisher unit's officer and ensign,
     * a battery's cannon) first: only those ns are shot at; the defender's
     * roll counts all nt */
    int ns = rules_aim_first(sc, T, nt);
    W = calloc((size_t)nF, sizeof *W);
    front = calloc((size_t)nF, 1);
    tnear = malloc((size_t)nt * sizeof *tnear);
    arc = malloc((size_t)nF * sizeof *arc);
    known = calloc((size_t)nt, 1);
    fnear = malloc((size_t)nF * sizeof *fnear);
    key = malloc((size_t)nF * (size_t)ns * sizeof *key);
    S = malloc((size_t)nF * 2 * sizeof *S);
    out->firers = malloc((size_t)nF * sizeof *out->firers);
    out->shot_to = malloc((size_t)nF * sizeof *out->shot_to);
    out->shot_bracket = malloc((size_t)nF * sizeof *out->shot_bracket);
    if (!W || !front || !tnear || !arc || !known || !fnear || !key || !S || !out->firers || !out->shot_to ||
        !out->shot_bracket) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; key && k < (size_t)nF * (size_t)ns; k++)
        key[k] = NAN;
    int *tried = S ? S + nF : NULL;
    for (int a = 0; a < nF; a++)
        S[a] = F[a];
    rules__keys K = {sc, S, T, ns, key};
    int ranks = 0, armed = 0, no_fire = -1;
    for (int a = 0; a < nF; a++) {
        if (rules_fire_barred(sc, &sc->figs[F[a]], NULL) != TT_OK) { /* a type that does not shoot */
            no_fire = F[a];
            continue;
        }
        if (weapon && (st = rules_weapon_of(sc, &sc->figs[F[a]], weapon, &W[a], err)))
            goto done;
        if (!weapon)
            W[a] = sc->figs[F[a]].weapon;
        if (W[a]) {
            armed++;
            if (W[a]->front_ranks > ranks)
                ranks = W[a]->front_ranks;
        }
    }
    if (!armed && no_fire >= 0) {
        st = rules_fire_barred(sc, &sc->figs[no_fire], err);
        goto done;
    }
    if (!armed) {
        /* a unit no weapon is for (cavalry cannot fire) */
        const char *type = sc->figs[rules_soldier_of(sc, F, nF, F[0])].type;
        size_t refused = 0;
        for (size_t k = 0; k < sc->prof->nweapons; k++)
            for (int m = 0; m < sc->prof->weapons[k].nnot_types; m++)
                refused += !strcmp(sc->prof->weapons[k].not_types[m], type);
        if (sc->prof->nweapons && refused == sc->prof->nweapons) {
            st = tt_err_set(err, TT_ERR_ARG, "\"%s\" cannot fire: no weapon of ruleset %s is for a \"%s\"", from,
                            sc->prof->name, type);
            goto done;
        }
        st = tt_err_set(err, TT_ERR_ARG, "no figure of \"%s\" has a weapon: give them one in the scenario or add "
                                         "\"weapon\" to the query",
                        from);
        goto done;
    }
    memset(front, 1, (size_t)nF);
    if (ranks > 0 && rules__front_ranks(sc, F, nF, ranks, front)) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* extra dice for a formation wide enough (a line 4 stands wide): the
     * width of the unit's front rank */
    int wide = 0, need_wide = 0;
    for (int a = 0; a < nF; a++)
        need_wide |= sc->figs[F[a]].formation >= 0 && sc->prof->form_rof[sc->figs[F[a]].formation] > 0;
    if (need_wide) {
        unsigned char *r0 = calloc((size_t)nF, 1);
        if (!r0) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            goto done;
        }
        if (rules__front_ranks(sc, F, nF, 1, r0)) {
            free(r0);
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            goto done;
        }
        for (int a = 0; a < nF; a++)
            wide += r0[a];
        free(r0);
    }
    /* where the profile says so, every firer's shot runs from the unit's
     * front-centre (a probe standing there): taken once per weapon */
    int mode = sc->prof->unit_from_front, P = -1;
    if (mode) {
        int like = -1;
        for (int a = 0; a < nF && like < 0; a++)
            if (W[a] && (front[a] || W[a]->front_ranks == 0))
                like = F[a];
        P = rules_unit_origin(sc, F, nF, like >= 0 ? like : rules_soldier_of(sc, F, nF, F[0]));
        for (int a = 0; a < nF; a++)
            S[a] = P;
    }
    /* the centre of the target unit must be seen (where the profile says
     * so): from the unit's front-centre, else each firer's own place */
    int centre_ok = 1, centre_bl = -1;
    rules_pt centre = {0, 0};
    int need_centre = sc->prof->centre_seen && ns == nt && nt > 1;
    if (need_centre && mode)
        centre_ok = rules_centre_seen(sc, qo, P, T, nt, &centre_bl, &centre);
    const rules_weapon *memo_w = NULL; /* mode: the last weapon's shot, taken once */
    int memo_mt = -1, memo_a = -1;
    double memo_d = INFINITY;
    const rules_bracket *memo_br = NULL;
    /* each figure that may fire: its nearest target it can fire at */
    int best_f = -1, best_t = -1, any_f = -1, any_t = -1, dice = 0, dice_known = 1;
    double best_d = INFINITY, any_d = INFINITY;
    unsigned char *can = front; /* reused: 1 where the figure can fire */
    for (int a = 0; a < nF; a++) {
        const rules_weapon *w = W[a];
        const rules_bracket *shot_br = NULL;
        int ok = 0, mt = -1;
        if (w && (front[a] || w->front_ranks == 0)) {
            if (mode)
                sc->figs[P].weapon = w;
            rules_fire_arc(&sc->figs[S[a]], w, &arc[a]);
            int hint = -1, seen = centre_ok, bl;
            if (need_centre && !mode)
                seen = rules_centre_seen(sc, qo, F[a], T, nt, &bl, &centre);
            /* the nearest target it can fire at: targets in order of
             * distance (picked one by one: the first one usually does) */
            double mine = INFINITY;
            if (mode && w == memo_w) {
                mt = memo_mt;
                mine = memo_d;
                shot_br = memo_br;
                for (int b = 0; b < ns; b++) /* the probe's distances, the same for every firer */
                    key[(size_t)a * ns + b] = key[(size_t)memo_a * ns + b];
            }
            for (int b = 0; b < ns && !(mode && w == memo_w); b++) {
                tnear[b].k = b;
                rules__key_lb(&K, a, b, &tnear[b]);
            }
            for (int left = seen && !(mode && w == memo_w) ? ns : 0; left > 0 && mt < 0; left--) {
                int m = rules__pick(&K, tnear, left, a, 0);
                rules__near pick = tnear[m];
                tnear[m] = tnear[left - 1];
                const rules_bracket *br;
                int vis;
                if (rules_fire_shot(sc, qo, S[a], T[pick.k], w, &arc[a], 0, &vis, &br, &hint)) {
                    mine = pick.d;
                    mt = pick.k;
                    shot_br = br;
                }
            }
            if (mode) {
                memo_w = w;
                memo_a = a;
                memo_mt = mt;
                memo_d = mine;
                memo_br = shot_br;
            }
            if (mt >= 0) {
                ok = 1;
                known[mt] = 1;
                int d = rules_fire_dice(sc, S[a], T[mt], w), fm = sc->figs[F[a]].formation;
                if (d > 0 && fm >= 0 && sc->prof->form_rof[fm] > 0 && wide >= rules__rof_wide(sc->prof, fm, sc->figs[F[a]].type) &&
                    !(qo->moved && sc->prof->moved_drops_bonuses) && !rules_fires_plain(sc->prof, &sc->figs[F[a]]))
                    d += sc->prof->form_rof[fm];
                d = rules_moved_dice(sc, qo, w, d);
                if (d > 0)
                    dice += d;
                else
                    dice_known = 0;
                if (mine < best_d) {
                    best_d = mine;
                    best_f = a;
                    best_t = mt;
                }
            }
        }
        can[a] = (unsigned char)ok;
        if (ok)
            rules__add_firer(out, sc->figs[F[a]].id, sc->figs[T[mt]].id, shot_br->name);
    }
    /* the targets any of those can fire at, nearest to the firing figures
     * first; each traced from the nearest firers first (the likeliest) */
    int ntn = 0;
    /* mode: every firer's shot runs from the probe, so one firer of each
     * weapon stands for all (their distances are the probe's) */
    int nw = 0;
    for (int a = 0; mode && a < nF; a++) {
        int again = !can[a];
        for (int q = 0; q < nw && !again; q++)
            again = W[tried[q]] == W[a];
        if (!again)
            tried[nw++] = a;
    }
    for (int b = 0; b < ns; b++) {
        double d = INFINITY;
        int nf = 0, hit = known[b];
        for (int a = 0; a < (mode ? nw : nF); a++) {
            int f = mode ? tried[a] : a;
            if (!can[f])
                continue;
            fnear[nf].k = f;
            rules__key_lb(&K, f, b, &fnear[nf++]);
        }
        if (nf) /* the nearest firer's distance, exact */
            d = fnear[rules__pick(&K, fnear, nf, b, 1)].d;
        for (int left = nf; left > 0 && !hit; left--) {
            int m = rules__pick(&K, fnear, left, b, 1);
            int a = fnear[m].k;
            fnear[m] = fnear[left - 1];
            if (mode)
                sc->figs[P].weapon = W[a];
            const rules_bracket *br;
            int vis;
            hit = rules_fire_shot(sc, qo, S[a], T[b], W[a], &arc[a], 0, &vis, &br, NULL);
        }
        if (hit) {
            tnear[ntn].d = d;
            tnear[ntn++].k = b;
        }
    }
    qsort(tnear, (size_t)ntn, sizeof *tnear, rules__cmp_near);
    size_t cap = 0;
    for (int b = 0; b < ntn; b++)
        if ((st = rules_result_add_id(out, sc->figs[T[tnear[b].k]].id, &cap, err)))
            goto done;
    /* the shot's own fields: the nearest shot that can be fired, else the
     * nearest pair */
    /* no shot: the nearest pair of a figure that may fire and a target
     * (each such figure tried every target: its keys are all taken) */
    for (int a = 0; best_f < 0 && a < nF; a++)
        for (int b = 0; b < ns; b++)
            if (!isnan(key[(size_t)a * ns + b]) && key[(size_t)a * ns + b] < any_d) {
                any_d = key[(size_t)a * ns + b];
                any_f = a;
                any_t = b;
            }
    int pf = best_f >= 0 ? best_f : any_f, pt = best_f >= 0 ? best_t : any_t;
    if (pf < 0) { /* every armed figure is behind the front ranks */
        for (int a = 0; a < nF && pf < 0; a++)
            if (W[a])
                pf = a;
        pt = 0;
    }
    int dj = rules_soldier_of(sc, T, nt, T[pt]); /* the target unit's type, formation, colour: its soldiers' */
    /* the shot's firer at rest, its unit's formation bonus in (whether
     * moving cuts its dice or costs it a to-hit modifier) */
    if (mode)
        sc->figs[P].weapon = W[pf];
    int fm = sc->figs[F[pf]].formation, rest = W[pf] ? rules_fire_dice(sc, S[pf], T[pt], W[pf]) : 0;
    if (rest > 0 && fm >= 0 && sc->prof->form_rof[fm] > 0 && wide >= rules__rof_wide(sc->prof, fm, sc->figs[F[pf]].type) &&
        !rules_fires_plain(sc->prof, &sc->figs[F[pf]]))
        rest += sc->prof->form_rof[fm];
    rules_fire_pair(sc, qo, S[pf], T[pt], dj, W[pf], rest, out);
    out->unit = 1;
    if (best_f < 0)
        out->to_hit = RULES_NULL;
    if (need_centre && best_f < 0 && (mode ? !centre_ok : !rules_centre_seen(sc, qo, F[pf], T, nt, &centre_bl, &centre))) {
        /* the target's centre is hidden (L470 of All the King's Men): the blocker, the line to the centre */
        out->visible = 0;
        out->blocked_by = rules_blocker_id(sc, centre_bl);
        out->line[1] = rules_pt_in(centre);
    }
    out->dice = out->n_firers && dice_known ? dice : RULES_NULL;
    rules_fire_bonus(sc, qo, F, nF, T, nt, dj, W[pf], S[pf], T[pt], out);
    st = nt == 1 && T[0] == barred ? rules_fire_refused(sc, &sc->figs[barred], out, err) : TT_OK;
done:
    if (st != TT_OK) /* nothing half-made is handed back */
        rules_result_free(out);
    free(F);
    free(T);
    free((void *)W);
    free(front);
    free(tnear);
    free(arc);
    free(known);
    free(fnear);
    free(key);
    free(S);
    return st;
}
