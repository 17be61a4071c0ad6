/* los.c - line of sight between figures and the cover a target gets. */
#include "rules_questions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int rules__in(const int *list, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (list[i] == v)
            return 1;
    return 0;
}

/* Does figure k stand in the way of i seeing (firing 0) or firing at j
 * under the ruleset? */
static int rules__figure_in_the_way(rules_scenario *sc, int i, int j, int k, rules_pt a, rules_pt b, int firing)
{
    const rules_figure *fi = &sc->figs[i], *fj = &sc->figs[j], *fk = &sc->figs[k];
    const rules_profile *p = sc->prof;
    if (k == i || k == j)
        return 0;
    /* cheap rejection: the base lies wholly beside the segment's box */
    int64_t reach = fk->w + fk->d;
    if (fk->shape.c.x + reach < (a.x < b.x ? a.x : b.x) || fk->shape.c.x - reach > (a.x > b.x ? a.x : b.x) ||
        fk->shape.c.y + reach < (a.y < b.y ? a.y : b.y) || fk->shape.c.y - reach > (a.y > b.y ? a.y : b.y))
        return 0;
    if (!strcmp(fk->unit, fj->unit))
        return 0;
    if (p->over_lower_figures && fi->elev > fk->elev)
        return 0; /* from higher ground over their heads */
    int own_side = !strcmp(fk->side, fi->side);
    if (!strcmp(fk->unit, fi->unit) && !(firing && p->own_unit_blocks_fire))
        return 0;
    if (own_side && !firing && !p->friends_block_sight)
        return 0;
    if (fk->skirmisher && !p->own_skirmishers_block && own_side)
        return 0;
    if (p->hill_overfire_in > 0 && fi->on_hill && fi->elev > fk->elev && fi->weapon && fi->weapon->fires_over_from_hill &&
        !rules_geom_shape_shape_within(&fk->shape, &fj->shape, rules_fx(p->hill_overfire_in)))
        return 0;
    return rules_geom_shape_seg_blocks(&fk->shape, a, b);
}

int rules_piece_located(const rules_scenario *sc, int i, const rules_piece *pc)
{
    if (pc->p.located_within_in <= 0)
        return 0;
    int64_t L = rules_fx(pc->p.located_within_in);
    const rules_figure *fi = &sc->figs[i];
    if (rules_piece_near_shape(pc, &fi->shape, L))
        return 1;
    /* any figure of the viewer's side that came that close (a figure of no
     * side locates for itself only) */
    int64_t reach = L + (fi->w > fi->d ? fi->w : fi->d);
    for (size_t k = 0; fi->side[0] && k < sc->nfigs; k++) {
        const rules_figure *fk = &sc->figs[k];
        int64_t r = reach + fk->w + fk->d; /* cheap rejection by the piece's box */
        if ((int)k == i || fk->shape.c.x + r < pc->lo.x || fk->shape.c.x - r > pc->hi.x ||
            fk->shape.c.y + r < pc->lo.y || fk->shape.c.y - r > pc->hi.y || strcmp(fk->side, fi->side))
            continue;
        if (rules_piece_near_shape(pc, &fk->shape, L))
            return 1;
    }
    return 0;
}

/* The figures piece pc hides are seen by figure i: they were revealed
 * (the query's "target_revealed") or located by i's side. */
static int rules__unhidden(const rules_scenario *sc, const rules_query_opts *qo, int i, const rules_piece *pc)
{
    return (qo->target_revealed && pc->p.revealable) || rules_piece_located(sc, i, pc);
}

/* Figure j is hidden from i behind piece pc (one of its hides_behind,
 * behind it as for cover, not revealed nor located). */
static int rules__hidden_behind(rules_scenario *sc, const rules_query_opts *qo, int i, int j, const rules_piece *pc)
{
    const rules_figure *fj = &sc->figs[j];
    if (!rules_figure_named(fj, pc->p.hides_behind, pc->p.nhides_behind) || rules__unhidden(sc, qo, i, pc))
        return 0;
    rules_pt q = rules_cover_reach(sc, i, j);
    return rules_piece_contains(pc, fj->shape.c) || rules_piece_cuts(pc, q, fj->shape.c);
}

/* hint (may be NULL): a figure that blocked an earlier line from i, tried
 * first; set to the figure that blocks this one, if one does. */
static int rules__decide(rules_scenario *sc, const rules_query_opts *qo, int i, int j, int use_grid, int want_blocker,
                         int *blocker, int firing, int *hint)
{
    const rules_figure *fi = &sc->figs[i], *fj = &sc->figs[j];
    rules_pt a = rules_fire_origin(sc, fi), b = fj->shape.c;
    double best_t = 3, over = rules_sight_over(fi, fj);
    int best = -1;
    *blocker = -1;
    if (i == j || (a.x == b.x && a.y == b.y))
        return 1;
    double sight = rules_sight_arc(sc->prof, fi);
    if (!firing && sight > 0 && sight < 360) {
        /* the ruleset's sight arc from the viewer's front */
        rules_arc arc;
        rules_arc_init(&arc, fi->shape.c, fi->facing_deg, sight, rules_fx(RULES_MAX_IN));
        if (!rules_arc_meets(&arc, &fj->shape))
            return 0;
    }
    if (hint && *hint >= 0 && !want_blocker && sc->prof->figures_block &&
        rules__figure_in_the_way(sc, i, j, *hint, a, b, firing))
        return 0;
    if (use_grid && !want_blocker) {
        if (rules_grid_blocked(sc->grid, sc, a, b, fi->inside, fi->ninside, fj->inside, fj->ninside, over))
            return 0;
        if (sc->ndeep == 0 && !sc->prof->figures_block)
            return 1; /* nothing else can block */
    }
    int fast = use_grid && !want_blocker;
    size_t nk = fast ? sc->ndeep : sc->npieces;
    for (size_t kk = 0; kk < nk; kk++) {
        size_t k = fast ? (size_t)sc->deep[kk] : kk;
        const rules_piece *pc = &sc->pieces[k];
        if (over > 0 && pc->p.height_in < over)
            continue;
        int blocked = pc->p.nhides_behind > 0 && rules__hidden_behind(sc, qo, i, j, pc);
        if (blocked || !pc->p.blocks_los) {
            if (!blocked)
                continue;
        } else if (pc->p.los_depth_in > 0 || pc->p.see_through_within_in > 0) {
            rules_pt lo = {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y};
            rules_pt hi = {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y};
            if (hi.x < pc->lo.x || lo.x > pc->hi.x || hi.y < pc->lo.y || lo.y > pc->hi.y)
                continue;
            int in_i = rules__in(fi->inside, fi->ninside, (int)k), in_j = rules__in(fj->inside, fj->ninside, (int)k);
            if (pc->p.see_through_within_in > 0) /* a line of trees: seen through by a viewer close to it */
                blocked = rules_piece_cuts(pc, a, b) &&
                          !rules_piece_near_shape(pc, &fi->shape, rules_fx(pc->p.see_through_within_in));
            else if (pc->p.hides_inside && !in_i && !(in_j && rules__unhidden(sc, qo, i, pc)))
                blocked = in_j || rules_piece_cuts(pc, a, b); /* from outside: hides what is in it, blocks lines through it */
            else /* sight inside: its depth (also into it, to troops revealed or located) */
                blocked = rules_piece_depth(pc, a, b) > pc->p.los_depth_in;
        } else if (pc->p.slope_in > 0) { /* a sloped hill: its ground along the line (slope.c) */
            blocked = rules_slope_blocks(pc, a, b, over,
                                         rules__in(fi->inside, fi->ninside, (int)k) ||
                                             rules__in(fj->inside, fj->ninside, (int)k));
        } else {
            if (rules__in(fi->inside, fi->ninside, (int)k) || rules__in(fj->inside, fj->ninside, (int)k))
                continue;
            blocked = rules_piece_cuts(pc, a, b);
        }
        if (blocked) {
            if (!want_blocker)
                return 0;
            double t = rules_piece_entry_t(pc, a, b);
            if (t < best_t) {
                best_t = t;
                best = (int)k;
            }
        }
    }
    if (sc->prof->figures_block) {
        /* with the grid: only the figures near the segment (a superset of
         * those it can meet); without: every figure (the reference) */
        const int *near = NULL;
        int nn = -1;
        if (use_grid) {
            rules_pt mid = {a.x + (b.x - a.x) / 2, a.y + (b.y - a.y) / 2};
            double half = hypot((double)(b.x - a.x), (double)(b.y - a.y)) / 2;
            nn = rules_figs_near(sc, mid, (int64_t)ceil(half) + 2, &near);
        }
        size_t nk = nn >= 0 ? (size_t)nn : sc->nfigs;
        for (size_t kk = 0; kk < nk; kk++) {
            size_t k = nn >= 0 ? (size_t)near[kk] : kk;
            if (!rules__figure_in_the_way(sc, i, j, (int)k, a, b, firing))
                continue;
            if (hint)
                *hint = (int)k;
            if (!want_blocker)
                return 0;
            double t = rules_geom_shape_entry_t(&sc->figs[k].shape, a, b);
            if (t < best_t) {
                best_t = t;
                best = -(int)k - 2;
            }
        }
    }
    *blocker = best;
    return best == -1;
}

int rules_los_decide(rules_scenario *sc, const rules_query_opts *qo, int i, int j, int use_grid, int want_blocker,
                     int *blocker)
{
    return rules__decide(sc, qo, i, j, use_grid, want_blocker, blocker, 0, NULL);
}

int rules_fire_decide(rules_scenario *sc, const rules_query_opts *qo, int i, int j, int use_grid, int want_blocker,
                      int *blocker, int *hint)
{
    return rules__decide(sc, qo, i, j, use_grid, want_blocker, blocker, 1, hint);
}

int rules_through_own_skirmishers(rules_scenario *sc, int i, int j)
{
    if (sc->nskirm == 0)
        return -1;
    const rules_figure *fi = &sc->figs[i], *fj = &sc->figs[j];
    rules_pt a = rules_fire_origin(sc, fi), b = fj->shape.c;
    for (int m = 0; m < sc->nskirm; m++) {
        int k = sc->skirm[m];
        const rules_figure *fk = &sc->figs[k];
        if (k != i && k != j && strcmp(fk->unit, fi->unit) && !strcmp(fk->side, fi->side) &&
            rules_geom_shape_seg_blocks(&fk->shape, a, b))
            return k;
    }
    return -1;
}

const char *rules_blocker_id(const rules_scenario *sc, int blocker)
{
    if (blocker >= 0)
        return sc->pieces[blocker].id;
    if (blocker <= -2)
        return sc->figs[-blocker - 2].id;
    return NULL;
}

int rules_los_index(rules_scenario *sc, size_t i, size_t j)
{
    int bl;
    if (!sc || i >= sc->nfigs || j >= sc->nfigs)
        return 0;
    if (sc->ndeep == 0 && !sc->prof->figures_block)
        return rules_grid_los_figures(sc, (int)i, (int)j); /* only the grid's terrain can block */
    return rules_los_decide(sc, &rules_no_opts, (int)i, (int)j, 1, 0, &bl);
}

int rules_los_index_bruteforce(rules_scenario *sc, size_t i, size_t j)
{
    int bl;
    if (!sc || i >= sc->nfigs || j >= sc->nfigs)
        return 0;
    return rules_los_decide(sc, &rules_no_opts, (int)i, (int)j, 0, 0, &bl);
}

/* How far the target's base reaches from its centre towards direction
 * (ux, uy) (unit vector), inches. */
static double rules__extent(const rules_figure *f, double ux, double uy)
{
    if (f->shape.round)
        return f->w_in / 2;
    double a = f->facing_deg * (M_PI / 180.0);
    double u = fabs(ux * cos(a) + uy * sin(a)), v = fabs(-ux * sin(a) + uy * cos(a));
    double e1 = u > 0 ? (f->d_in / 2) / u : INFINITY, e2 = v > 0 ? (f->w_in / 2) / v : INFINITY;
    return e1 < e2 ? e1 : e2;
}

rules_pt rules_cover_reach(const rules_scenario *sc, int i, int j)
{
    const rules_figure *fj = &sc->figs[j];
    rules_pt a = rules_fire_origin(sc, &sc->figs[i]), b = fj->shape.c, q = a;
    double dx = rules_in(a.x - b.x), dy = rules_in(a.y - b.y), L = hypot(dx, dy);
    if (L > 0) {
        double reach = rules__extent(fj, dx / L, dy / L) + sc->prof->cover_within_in;
        if (reach < L) {
            q.x = b.x + rules_fx(dx * reach / L);
            q.y = b.y + rules_fx(dy * reach / L);
        }
    }
    return q;
}

double rules_sight_arc(const rules_profile *p, const rules_figure *f)
{
    double arc = p->sight_arc_deg > 0 ? p->sight_arc_deg : 360;
    return f->arc_cap_deg > 0 && f->arc_cap_deg < arc ? f->arc_cap_deg : p->sight_arc_deg;
}

/* Piece pc covers target j from firer i: j's centre stands in it; or it
 * lies between them (the line of fire crosses it, grazing excluded) within
 * cover_within_in of j (its base touching it counts: cover by contact),
 * and, where the ruleset says so, not so near the firer that it is the
 * firer's own cover. q: rules_cover_reach(sc, i, j). */
static int rules__covers(const rules_scenario *sc, int i, int j, const rules_piece *pc, rules_pt q)
{
    const rules_figure *fi = &sc->figs[i], *fj = &sc->figs[j];
    const rules_profile *p = sc->prof;
    rules_pt a = rules_fire_origin(sc, fi), b = fj->shape.c;
    if (rules_piece_contains(pc, b))
        return 1;
    if (!rules_piece_cuts(pc, q, b) &&
        !(rules_piece_cuts(pc, a, b) && rules_piece_near_shape(pc, &fj->shape, rules_fx(p->cover_within_in))))
        return 0;
    return !(p->cover_near_firer_in > 0 && rules_piece_near_shape(pc, &fi->shape, rules_fx(p->cover_near_firer_in)));
}

int rules_cover_cands(const rules_scenario *sc, rules_pt c, int64_t R, int *cand)
{
    /* a figure meeting the disc has its centre within R + ext of c, and a
     * covering piece comes within its base (ext) and cover_within_in */
    int64_t M = R + 2 * sc->fg_ext + rules_fx(sc->prof->cover_within_in) + 2;
    int n = 0;
    for (size_t k = 0; k < sc->npieces; k++) {
        const rules_pbox *bx = &sc->pbox[k];
        if (bx->hi.x >= c.x - M && bx->lo.x <= c.x + M && bx->hi.y >= c.y - M && bx->lo.y <= c.y + M)
            cand[n++] = (int)k;
    }
    return n;
}

rules_cover rules_cover_for(rules_scenario *sc, int i, int j, int *piece)
{
    return rules_cover_among(sc, i, j, NULL, 0, piece);
}

rules_cover rules_cover_among(rules_scenario *sc, int i, int j, const int *cand, int nc, int *piece)
{
    rules_pt q = rules_cover_reach(sc, i, j);
    rules_cover best = RULES_COVER_NONE;
    int best_score = 0;
    if (piece)
        *piece = -1;
    /* a piece that covers holds the target's centre, or meets the line
     * within cover_within_in of its base: it meets the box around the base
     * (half its diagonal) grown by that much; the others are not looked at */
    const rules_figure *fj = &sc->figs[j];
    int64_t R = rules_fx(hypot(fj->w_in, fj->d_in) / 2 + sc->prof->cover_within_in) + 2;
    rules_pt b = fj->shape.c;
    size_t n = cand ? (size_t)nc : sc->npieces;
    for (size_t m = 0; m < n; m++) {
        size_t k = cand ? (size_t)cand[m] : m;
        const rules_piece *pc = &sc->pieces[k];
        /* the best cover: the highest cover value, then soft < hard */
        int score = pc->p.cv * 4 + (int)pc->p.cover;
        if (score <= best_score)
            continue;
        const rules_pbox *bx = &sc->pbox[k];
        if (bx->hi.x < b.x - R || bx->lo.x > b.x + R || bx->hi.y < b.y - R || bx->lo.y > b.y + R)
            continue;
        if (rules__covers(sc, i, j, pc, q)) {
            best = pc->p.cover;
            best_score = score;
            if (piece)
                *piece = (int)k;
        }
    }
    return best;
}
