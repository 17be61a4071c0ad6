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

/* A unit's fire being answered (rules_fire_unit): the firing group F, the
 * targets T, and the scratch of the search, allocated once. */
typedef struct rules__volley {
    rules_scenario *sc;
    const rules_query_opts *qo;
    int *F, *T, nF, nT;
    int nt;     /* the targets kept: not of the firing group, nor never a target (unless only those) */
    int ns;     /* the first ns of them are shot at (rules_aim_first); the defender's roll counts all nt */
    int barred; /* a target of a type that is never one (answered as a shot not allowed), or -1 */
    int *S;     /* S[a]: the figure (or probe) firer a's shots run from */
    int *tried; /* mode: one firer of each weapon (S + nF) */
    const rules_weapon **W;  /* each firer's weapon, NULL: none */
    unsigned char *front;    /* 1: in the ranks that may fire; then (rules__volley_firers) 1: it can fire */
    unsigned char *known;    /* targets some firer can fire at */
    rules__near *tnear, *fnear;
    double *key;             /* key[a * ns + b]: firer a's distance key to target b, once (rules__keys) */
    rules_arc *arc;
    rules__keys K;
    int wide;                /* how many stands wide the unit's front rank is (where a formation's dice need it) */
    int mode, P;             /* mode: every shot runs from the unit's front-centre, probe P */
    int need_centre, centre_ok, centre_bl; /* the target unit's centre must be seen; it is from P; its blocker */
    rules_pt centre;
    int best_f, best_t;      /* the nearest shot that can be fired (firer, target), or -1 */
    double best_d;
    int dice, dice_known;    /* the dice of all firers; 0 where the book does not fix some */
} rules__volley;

static void rules__volley_free(rules__volley *v)
{
    free(v->F);
    free(v->T);
    free((void *)v->W);
    free(v->front);
    free(v->tnear);
    free(v->arc);
    free(v->known);
    free(v->fnear);
    free(v->key);
    free(v->S);
}

/* Keep the targets that are not of the firing group, nor of a type that
 * is never a target (nor measured to: a general), unless only those are
 * left; an error when none is left or when every target is of the
 * firers' side.  Then order them: the figures fire is aimed at first. */
static tt_status rules__volley_targets(rules__volley *v, const char *from, const char *to, tt_err *err)
{
    rules_scenario *sc = v->sc;
    int *F = v->F, *T = v->T;
    v->barred = -1;
    v->nt = 0;
    for (int a = 0; a < v->nT; a++) {
        int mine = 0;
        for (int b = 0; b < v->nF && !mine; b++)
            mine = T[a] == F[b];
        if (!mine && rules_not_target(sc, &sc->figs[T[a]], NULL, 0))
            v->barred = T[a];
        else if (!mine)
            T[v->nt++] = T[a];
    }
    if (v->nt == 0 && v->barred >= 0) /* no target but those: answered as a shot that is not allowed */
        T[v->nt++] = v->barred;
    if (v->nt == 0)
        return tt_err_set(err, TT_ERR_ARG, "\"%s\" cannot fire at itself: name another unit or figure in \"to\"",
                          from);
    /* an enemy: not every target figure on the firers' side */
    int a = 0;
    while (a < v->nt && sc->figs[F[0]].side[0] && !strcmp(sc->figs[T[a]].side, sc->figs[F[0]].side))
        a++;
    tt_status st;
    if (a == v->nt && (st = rules_fire_enemy(sc, from, to, F[0], T[0], err)))
        return st;
    /* the figures fire is aimed at (a skirmisher unit's officer and ensign,
     * a battery's cannon) first: only those ns are shot at */
    v->ns = rules_aim_first(sc, T, v->nt);
    return TT_OK;
}

/* The search's scratch and the answer's lists of firers, one place for
 * every member of the unit. */
static tt_status rules__volley_alloc(rules__volley *v, rules_result *out, tt_err *err)
{
    int nF = v->nF, nt = v->nt, ns = v->ns;
    v->W = calloc((size_t)nF, sizeof *v->W);
    v->front = calloc((size_t)nF, 1);
    v->tnear = malloc((size_t)nt * sizeof *v->tnear);
    v->arc = malloc((size_t)nF * sizeof *v->arc);
    v->known = calloc((size_t)nt, 1);
    v->fnear = malloc((size_t)nF * sizeof *v->fnear);
    v->key = malloc((size_t)nF * (size_t)ns * sizeof *v->key);
    v->S = malloc((size_t)nF * 2 * sizeof *v->S);
    out->firers = malloc((size_t)nF * sizeof *out->firers);
    out->shot_to = malloc((size_t)nF * sizeof *out->shot_to);
    out->shot_bracket = malloc((size_t)nF * sizeof *out->shot_bracket);
    if (!v->W || !v->front || !v->tnear || !v->arc || !v->known || !v->fnear || !v->key || !v->S || !out->firers ||
        !out->shot_to || !out->shot_bracket)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < (size_t)nF * (size_t)ns; k++)
        v->key[k] = NAN;
    v->tried = v->S + nF;
    for (int a = 0; a < nF; a++)
        v->S[a] = v->F[a];
    v->K = (rules__keys){v->sc, v->S, v->T, ns, v->key};
    return TT_OK;
}

/* The error for a unit none of whose figures has a weapon: no weapon of
 * the ruleset is for its type (cavalry cannot fire), or none was given. */
static tt_status rules__volley_unarmed(const rules__volley *v, const char *from, tt_err *err)
{
    const rules_scenario *sc = v->sc;
    const char *type = sc->figs[rules_soldier_of(sc, v->F, v->nF, v->F[0])].type;
    size_t refused = 0;
    for (size_t k = 0; k < sc->prof->nweapons; k++)
        for (int m = 0; m < sc->prof->weapons[k].nnot_types; m++)
            refused += !strcmp(sc->prof->weapons[k].not_types[m], type);
    if (sc->prof->nweapons && refused == sc->prof->nweapons)
        return tt_err_set(err, TT_ERR_ARG, "\"%s\" cannot fire: no weapon of ruleset %s is for a \"%s\"", from,
                          sc->prof->name, type);
    return tt_err_set(err, TT_ERR_ARG, "no figure of \"%s\" has a weapon: give them one in the scenario or add "
                                       "\"weapon\" to the query",
                      from);
}

/* Each firer's weapon (`weapon`, NULL: its own), and which firers stand in
 * the ranks that may fire (the deepest front_ranks of their weapons); an
 * error where no figure can fire. */
static tt_status rules__volley_arm(rules__volley *v, const char *from, const char *weapon, tt_err *err)
{
    rules_scenario *sc = v->sc;
    int ranks = 0, armed = 0, no_fire = -1;
    tt_status st;
    for (int a = 0; a < v->nF; a++) {
        const rules_figure *f = &sc->figs[v->F[a]];
        if (rules_fire_barred(sc, f, NULL) != TT_OK) { /* a type that does not shoot */
            no_fire = v->F[a];
            continue;
        }
        if (weapon && (st = rules_weapon_of(sc, f, weapon, &v->W[a], err)))
            return st;
        if (!weapon)
            v->W[a] = f->weapon;
        if (v->W[a]) {
            armed++;
            if (v->W[a]->front_ranks > ranks)
                ranks = v->W[a]->front_ranks;
        }
    }
    if (!armed && no_fire >= 0)
        return rules_fire_barred(sc, &sc->figs[no_fire], err);
    if (!armed)
        return rules__volley_unarmed(v, from, err);
    memset(v->front, 1, (size_t)v->nF);
    if (ranks > 0 && rules__front_ranks(sc, v->F, v->nF, ranks, v->front))
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    return TT_OK;
}

/* Extra dice for a formation wide enough (a line 4 stands wide): the width
 * of the unit's front rank, into v->wide (0 where no formation needs it). */
static tt_status rules__volley_width(rules__volley *v, tt_err *err)
{
    const rules_scenario *sc = v->sc;
    int need_wide = 0;
    v->wide = 0;
    for (int a = 0; a < v->nF; a++)
        need_wide |= sc->figs[v->F[a]].formation >= 0 && sc->prof->form_rof[sc->figs[v->F[a]].formation] > 0;
    if (!need_wide)
        return TT_OK;
    unsigned char *r0 = calloc((size_t)v->nF, 1);
    if (!r0 || rules__front_ranks(sc, v->F, v->nF, 1, r0)) {
        free(r0);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    for (int a = 0; a < v->nF; a++)
        v->wide += r0[a];
    free(r0);
    return TT_OK;
}

/* Where the profile says so, every firer's shot runs from the unit's
 * front-centre (probe P, standing like a firer that may fire); and where
 * the target unit's centre must be seen, whether it is from there. */
static void rules__volley_origin(rules__volley *v)
{
    rules_scenario *sc = v->sc;
    v->mode = sc->prof->unit_from_front;
    v->P = -1;
    if (v->mode) {
        int like = -1;
        for (int a = 0; a < v->nF && like < 0; a++)
            if (v->W[a] && (v->front[a] || v->W[a]->front_ranks == 0))
                like = v->F[a];
        v->P = rules_unit_origin(sc, v->F, v->nF, like >= 0 ? like : rules_soldier_of(sc, v->F, v->nF, v->F[0]));
        for (int a = 0; a < v->nF; a++)
            v->S[a] = v->P;
    }
    v->centre_ok = 1;
    v->centre_bl = -1;
    v->centre = (rules_pt){0, 0};
    v->need_centre = sc->prof->centre_seen && v->ns == v->nt && v->nt > 1;
    if (v->need_centre && v->mode)
        v->centre_ok = rules_centre_seen(sc, v->qo, v->P, v->T, v->nt, &v->centre_bl, &v->centre);
}

/* The dice of firer a's figure at a target with its weapon (at rest),
 * its unit's formation bonus in where the unit is wide enough
 * (with_bonus) and the figure's type does not fire plain. */
static int rules__volley_rest_dice(const rules__volley *v, int a, int t, int with_bonus)
{
    const rules_scenario *sc = v->sc;
    const rules_figure *f = &sc->figs[v->F[a]];
    int d = rules_fire_dice(v->sc, v->S[a], v->T[t], v->W[a]), fm = f->formation;
    if (d > 0 && with_bonus && fm >= 0 && sc->prof->form_rof[fm] > 0 &&
        v->wide >= rules__rof_wide(sc->prof, fm, f->type) && !rules_fires_plain(sc->prof, f))
        d += sc->prof->form_rof[fm];
    return d;
}

/* mode: the last weapon's shot from the probe, taken once for every firer
 * with that weapon. */
typedef struct rules__memo {
    const rules_weapon *w;
    int mt, a;
    double d;
    const rules_bracket *br;
} rules__memo;

/* The nearest target firer a (its weapon w) can fire at, or -1; its
 * distance key into *mine and its bracket into *shot_br.  Targets are
 * tried in order of distance, picked one by one (the first one usually
 * does). */
static int rules__volley_aim(rules__volley *v, int a, rules__memo *memo, double *mine, const rules_bracket **shot_br)
{
    rules_scenario *sc = v->sc;
    const rules_weapon *w = v->W[a];
    int ns = v->ns, mt = -1, hint = -1, seen = v->centre_ok, bl;
    if (v->mode)
        sc->figs[v->P].weapon = w;
    rules_fire_arc(&sc->figs[v->S[a]], w, &v->arc[a]);
    if (v->need_centre && !v->mode)
        seen = rules_centre_seen(sc, v->qo, v->F[a], v->T, v->nt, &bl, &v->centre);
    *mine = INFINITY;
    *shot_br = NULL;
    int again = v->mode && w == memo->w;
    if (again) {
        mt = memo->mt;
        *mine = memo->d;
        *shot_br = memo->br;
        for (int b = 0; b < ns; b++) /* the probe's distances, the same for every firer */
            v->key[(size_t)a * ns + b] = v->key[(size_t)memo->a * ns + b];
    }
    for (int b = 0; b < ns && !again; b++) {
        v->tnear[b].k = b;
        rules__key_lb(&v->K, a, b, &v->tnear[b]);
    }
    for (int left = seen && !again ? ns : 0; left > 0 && mt < 0; left--) {
        int m = rules__pick(&v->K, v->tnear, left, a, 0);
        rules__near pick = v->tnear[m];
        v->tnear[m] = v->tnear[left - 1];
        const rules_bracket *br;
        int vis;
        if (rules_fire_shot(sc, v->qo, v->S[a], v->T[pick.k], w, &v->arc[a], 0, &vis, &br, &hint)) {
            *mine = pick.d;
            mt = pick.k;
            *shot_br = br;
        }
    }
    if (v->mode)
        *memo = (rules__memo){w, mt, a, *mine, *shot_br};
    return mt;
}

/* Each figure that may fire: its nearest target it can fire at (a firer
 * of the answer), the dice all of them roll, and the nearest such shot.
 * v->front becomes 1 where the figure can fire. */
static void rules__volley_firers(rules__volley *v, rules_result *out)
{
    rules_scenario *sc = v->sc;
    rules__memo memo = {NULL, -1, -1, INFINITY, NULL};
    v->best_f = v->best_t = -1;
    v->best_d = INFINITY;
    v->dice = 0;
    v->dice_known = 1;
    unsigned char *can = v->front; /* reused: 1 where the figure can fire */
    for (int a = 0; a < v->nF; a++) {
        const rules_weapon *w = v->W[a];
        const rules_bracket *shot_br = NULL;
        int mt = -1;
        double mine = INFINITY;
        if (w && (v->front[a] || w->front_ranks == 0))
            mt = rules__volley_aim(v, a, &memo, &mine, &shot_br);
        if (mt >= 0) {
            v->known[mt] = 1;
            int d = rules__volley_rest_dice(v, a, mt, !(v->qo->moved && sc->prof->moved_drops_bonuses));
            d = rules_moved_dice(sc, v->qo, w, d);
            if (d > 0)
                v->dice += d;
            else
                v->dice_known = 0;
            if (mine < v->best_d) {
                v->best_d = mine;
                v->best_f = a;
                v->best_t = mt;
            }
        }
        can[a] = (unsigned char)(mt >= 0);
        if (mt >= 0)
            rules__add_firer(out, sc->figs[v->F[a]].id, sc->figs[v->T[mt]].id, shot_br->name);
    }
}

/* The answer's targets: those any firer can fire at, nearest to the firing
 * figures first; each traced from the nearest firers first (the
 * likeliest).  mode: every firer's shot runs from the probe, so one firer
 * of each weapon stands for all (their distances are the probe's). */
static tt_status rules__volley_targets_hit(rules__volley *v, rules_result *out, tt_err *err)
{
    rules_scenario *sc = v->sc;
    const unsigned char *can = v->front;
    int ntn = 0, nw = 0;
    for (int a = 0; v->mode && a < v->nF; a++) {
        int again = !can[a];
        for (int q = 0; q < nw && !again; q++)
            again = v->W[v->tried[q]] == v->W[a];
        if (!again)
            v->tried[nw++] = a;
    }
    for (int b = 0; b < v->ns; b++) {
        double d = INFINITY;
        int nf = 0, hit = v->known[b];
        for (int a = 0; a < (v->mode ? nw : v->nF); a++) {
            int f = v->mode ? v->tried[a] : a;
            if (!can[f])
                continue;
            v->fnear[nf].k = f;
            rules__key_lb(&v->K, f, b, &v->fnear[nf++]);
        }
        if (nf) /* the nearest firer's distance, exact */
            d = v->fnear[rules__pick(&v->K, v->fnear, nf, b, 1)].d;
        for (int left = nf; left > 0 && !hit; left--) {
            int m = rules__pick(&v->K, v->fnear, left, b, 1);
            int a = v->fnear[m].k;
            v->fnear[m] = v->fnear[left - 1];
            if (v->mode)
                sc->figs[v->P].weapon = v->W[a];
            const rules_bracket *br;
            int vis;
            hit = rules_fire_shot(sc, v->qo, v->S[a], v->T[b], v->W[a], &v->arc[a], 0, &vis, &br, NULL);
        }
        if (hit) {
            v->tnear[ntn].d = d;
            v->tnear[ntn++].k = b;
        }
    }
    qsort(v->tnear, (size_t)ntn, sizeof *v->tnear, rules__cmp_near);
    size_t cap = 0;
    tt_status st;
    for (int b = 0; b < ntn; b++)
        if ((st = rules_result_add_id(out, sc->figs[v->T[v->tnear[b].k]].id, &cap, err)))
            return st;
    return TT_OK;
}

/* The shot the answer's own fields describe (firer *pf, target *pt): the
 * nearest shot that can be fired, else the nearest pair of a figure that
 * may fire and a target (each such figure tried every target: its keys
 * are all taken), else the first armed figure (all behind the front ranks). */
static void rules__volley_pair(const rules__volley *v, int *pf, int *pt)
{
    int any_f = -1, any_t = -1, ns = v->ns;
    double any_d = INFINITY;
    for (int a = 0; v->best_f < 0 && a < v->nF; a++)
        for (int b = 0; b < ns; b++)
            if (!isnan(v->key[(size_t)a * ns + b]) && v->key[(size_t)a * ns + b] < any_d) {
                any_d = v->key[(size_t)a * ns + b];
                any_f = a;
                any_t = b;
            }
    *pf = v->best_f >= 0 ? v->best_f : any_f;
    *pt = v->best_f >= 0 ? v->best_t : any_t;
    if (*pf < 0) { /* every armed figure is behind the front ranks */
        for (int a = 0; a < v->nF && *pf < 0; a++)
            if (v->W[a])
                *pf = a;
        *pt = 0;
    }
}

/* The answer's shot fields, the dice of all firers and the bonus and
 * defence dice. */
static tt_status rules__volley_answer(rules__volley *v, rules_result *out, tt_err *err)
{
    rules_scenario *sc = v->sc;
    int pf, pt;
    rules__volley_pair(v, &pf, &pt);
    int dj = rules_soldier_of(sc, v->T, v->nt, v->T[pt]); /* the target unit's type, formation, colour: its soldiers' */
    /* the shot's firer at rest, its unit's formation bonus in (whether
     * moving cuts its dice or costs it a to-hit modifier) */
    if (v->mode)
        sc->figs[v->P].weapon = v->W[pf];
    int rest = v->W[pf] ? rules__volley_rest_dice(v, pf, pt, 1) : 0;
    rules_fire_pair(sc, v->qo, v->S[pf], v->T[pt], dj, v->W[pf], rest, out);
    out->unit = 1;
    if (v->best_f < 0)
        out->to_hit = RULES_NULL;
    if (v->need_centre && v->best_f < 0 &&
        (v->mode ? !v->centre_ok
                 : !rules_centre_seen(sc, v->qo, v->F[pf], v->T, v->nt, &v->centre_bl, &v->centre))) {
        /* the target's centre is hidden (L470 of All the King's Men): the blocker, the line to the centre */
        out->visible = 0;
        out->blocked_by = rules_blocker_id(sc, v->centre_bl);
        out->line[1] = rules_pt_in(v->centre);
    }
    out->dice = out->n_firers && v->dice_known ? v->dice : RULES_NULL;
    rules_fire_bonus(sc, v->qo, v->F, v->nF, v->T, v->nt, dj, v->W[pf], v->S[pf], v->T[pt], out);
    return v->nt == 1 && v->T[0] == v->barred ? rules_fire_refused(sc, &sc->figs[v->barred], out, err) : TT_OK;
}

tt_status rules_fire_unit(rules_scenario *sc, const rules_query_opts *qo, const char *from, int fi, const char *to,
                          int fj, const char *weapon, rules_result *out, tt_err *err)
{
    rules__volley v = {0};
    tt_status st;
    v.sc = sc;
    v.qo = qo;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_FIRE;
    out->unit = 1;
    if (!(st = rules_group(sc, from, fi, "from", &v.F, &v.nF, err)) &&
        !(st = rules_group(sc, to, fj, "to", &v.T, &v.nT, err)) && !(st = rules__volley_targets(&v, from, to, err)) &&
        !(st = rules__volley_alloc(&v, out, err)) && !(st = rules__volley_arm(&v, from, weapon, err)) &&
        !(st = rules__volley_width(&v, err))) {
        rules__volley_origin(&v);
        rules__volley_firers(&v, out);
        if (!(st = rules__volley_targets_hit(&v, out, err)))
            st = rules__volley_answer(&v, out, err);
    }
    if (st != TT_OK) /* nothing half-made is handed back */
        rules_result_free(out);
    rules__volley_free(&v);
    return st;
}
