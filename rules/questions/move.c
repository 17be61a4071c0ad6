/* move.c - the 'move' query: a straight move against the ruleset's
 * allowance after terrain effects (a charge's move too: charge.c). */
#include "rules_questions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The dice of a movement allowance, "NdS" or "NdS+K". */
static tt_status rules__dice(const rules_allowance *al, int *n, int *s, int *k, tt_err *err)
{
    if (rules_dice_parse(al->dice, n, s, k))
        return tt_err_set(err, TT_ERR_FORMAT, "movement of \"%s\": dice \"%s\" are not of the form 2d6 or 1d6+3",
                          al->type, al->dice);
    return TT_OK;
}

/* ---- the answer's "rule": the allowance's line, and the lines of what
 * changed it ("all-the-kings-men.md L416-422, L432-436") ---- */

typedef struct rules__cite {
    char s[600];     /* the allowance's own citation */
    int lo[16], hi[16], n; /* the lines added */
    int house;       /* a house value changed it */
    char book[64];   /* the book of the lines added */
} rules__cite;

/* The line ranges ("L12", "L12-14") of src outside parentheses, in
 * order: calls fn(lo, hi, ctx) for each. */
static void rules__cite_lines(const char *src, void (*fn)(int lo, int hi, void *ctx), void *ctx)
{
    int depth = 0;
    for (const char *q = src; *q; q++) {
        depth += *q == '(';
        depth -= *q == ')' && depth > 0;
        if (depth || *q != 'L' || (q > src && q[-1] != ' ' && q[-1] != ',') || q[1] < '0' || q[1] > '9')
            continue;
        char *e;
        long lo = strtol(q + 1, &e, 10), hi = lo;
        if (*e == '-' && e[1] >= '0' && e[1] <= '9')
            hi = strtol(e + 1, &e, 10);
        if (lo > 0 && hi >= lo && hi < 1000000)
            fn((int)lo, (int)hi, ctx);
        q = e - 1;
    }
}

static void rules__cite_range(int lo, int hi, void *ctx)
{
    rules__cite *c = ctx;
    if (c->n < 16) {
        c->lo[c->n] = lo;
        c->hi[c->n++] = hi;
    }
}

/* Add the lines of src (a citation "book.txt L12 (...)" or "house: ...")
 * to those that changed the allowance. */
static void rules__cite_add(rules__cite *c, const char *src)
{
    if (!src || !*src)
        return;
    if (!strncmp(src, "house", 5)) {
        c->house = 1;
        return;
    }
    if (!c->book[0])
        snprintf(c->book, sizeof c->book, "%.*s", (int)strcspn(src, " "), src);
    rules__cite_lines(src, rules__cite_range, c);
}

typedef struct rules__span_find {
    int lo, hi, found;
} rules__span_find;

static void rules__covers(int lo, int hi, void *ctx)
{
    rules__span_find *f = ctx;
    f->found |= lo <= f->lo && f->hi <= hi;
}

/* The answer's "rule": the allowance's citation, then the lines added that
 * it does not cite yet, in order, touching ranges joined ("L684, L685" is
 * "L684-685"), then "house" where a house value changed it; an allowance
 * that is itself a house value is followed by "; book.txt L...". */
static void rules__cite_done(rules__cite *c)
{
    /* sort and join */
    for (int i = 1; i < c->n; i++)
        for (int j = i; j > 0 && (c->lo[j] < c->lo[j - 1] || (c->lo[j] == c->lo[j - 1] && c->hi[j] > c->hi[j - 1]));
             j--) {
            int t = c->lo[j];
            c->lo[j] = c->lo[j - 1];
            c->lo[j - 1] = t;
            t = c->hi[j];
            c->hi[j] = c->hi[j - 1];
            c->hi[j - 1] = t;
        }
    int m = 0;
    for (int i = 0; i < c->n; i++) {
        if (m > 0 && c->lo[i] <= c->hi[m - 1] + 1) {
            if (c->hi[i] > c->hi[m - 1])
                c->hi[m - 1] = c->hi[i];
            continue;
        }
        c->lo[m] = c->lo[i];
        c->hi[m++] = c->hi[i];
    }
    int house_base = !strncmp(c->s, "house", 5), first = 1;
    for (int i = 0; i < m; i++) {
        rules__span_find f = {c->lo[i], c->hi[i], 0};
        if (!house_base)
            rules__cite_lines(c->s, rules__covers, &f);
        if (f.found) /* the allowance cites it already */
            continue;
        size_t n = strlen(c->s);
        const char *sep = house_base && first ? "; " : ", ";
        char book[72] = "";
        if (house_base && first)
            snprintf(book, sizeof book, "%s ", c->book);
        if (c->lo[i] == c->hi[i])
            snprintf(c->s + n, sizeof c->s - n, "%s%sL%d", sep, book, c->lo[i]);
        else
            snprintf(c->s + n, sizeof c->s - n, "%s%sL%d-%d", sep, book, c->lo[i], c->hi[i]);
        first = 0;
    }
    if (c->house && !house_base) {
        size_t n = strlen(c->s);
        snprintf(c->s + n, sizeof c->s - n, ", house");
    }
}

/* The allowance `base` inches leave after the terrain on the way, for a
 * move that is not forward when not_fwd: every factor together, never
 * below the profile's least_factor.  The lines of what changed it go to
 * cite (may be NULL). */
static double rules__after_terrain(const rules_scenario *sc, const rules_allowance *al, int fm, double base,
                                   int difficult, int obstacles, int not_fwd, rules__cite *cite)
{
    const rules_profile *p = sc->prof;
    double allowed = base;
    if (difficult || not_fwd) {
        /* difficult & 2: very difficult going on the way, which sets the pace */
        double f = !difficult          ? 1
                   : (difficult & 2)   ? p->very_difficult_factor
                   : al->difficult_factor >= 0 ? al->difficult_factor
                                               : p->difficult_factor;
        if (cite && difficult && f != 1) /* a factor of 1 changes nothing */
            rules__cite_add(cite, (difficult & 2)                ? p->move_cite[RULES_MC_VERY_DIFFICULT]
                                  : al->difficult_factor >= 0 ? al->difficult_src
                                                              : p->move_cite[RULES_MC_DIFFICULT]);
        if (not_fwd) {
            f *= p->not_forward_factor;
            if (cite)
                rules__cite_add(cite, p->move_cite[not_fwd & 2 ? RULES_MC_FREE_TURN : RULES_MC_NOT_FORWARD]);
        }
        if (f < p->least_factor) {
            f = p->least_factor;
            if (cite)
                rules__cite_add(cite, p->move_cite[RULES_MC_LEAST]);
        }
        allowed *= f;
        /* factors are written to 6 places (0.666667): a product within
         * 1e-4 of a whole inch is that inch */
        if (p->difficult_round_up) {
            allowed = ceil(allowed - 1e-4);
            if (cite)
                rules__cite_add(cite, p->move_cite[RULES_MC_ROUND_UP]);
        }
    }
    if (difficult) {
        allowed -= al->difficult_cost_in;
        if (cite && al->difficult_cost_in > 0)
            rules__cite_add(cite, fm >= 0 && al->difficult_cost_in == p->form_difficult_cost[fm] &&
                                          p->form_difficult_src[fm]
                                      ? p->form_difficult_src[fm]
                                      : al->difficult_src);
    }
    allowed -= obstacles * p->obstacle_cost_in;
    if (cite && obstacles && p->obstacle_cost_in > 0)
        rules__cite_add(cite, p->move_cite[RULES_MC_OBSTACLE]);
    return allowed < 0 ? 0 : allowed;
}

/* The move a -> b of figure f is not forward: outside the profile's
 * forward arc around f's facing (exact, as firing arcs): 1, or ending
 * turned further than free_turn_deg: 3. */
static int rules__not_forward(const rules_scenario *sc, const rules_query_opts *qo, const rules_figure *f,
                              const rules_allowance *al, rules_pt a, rules_pt b)
{
    const rules_profile *p = sc->prof;
    if (p->not_forward_factor <= 0 || al->any_direction)
        return 0;
    /* ending faced about (the query's facing_deg) */
    if (qo->has_facing && p->free_turn_deg > 0 &&
        fabs(remainder(qo->facing_deg - f->facing_deg, 360.0)) > p->free_turn_deg + 1e-9)
        return 3;
    if ((a.x == b.x && a.y == b.y) || p->forward_arc_deg >= 360)
        return 0;
    double h = p->forward_arc_deg / 2;
    return !rules_geom_in_wedge(rules_geom_dir(f->facing_deg - h), rules_geom_dir(f->facing_deg + h), rules_sub(b, a));
}

/* A road piece the whole move a -> b runs along (inside it end to end), or -1. */
static int rules__on_road(const rules_scenario *sc, rules_pt a, rules_pt b)
{
    double L = rules_in(1) * hypot((double)(b.x - a.x), (double)(b.y - a.y));
    for (size_t k = 0; k < sc->npieces; k++) {
        const rules_piece *pc = &sc->pieces[k];
        if (pc->closed && pc->p.movement == RULES_MOVE_ROAD && rules_piece_contains(pc, a) &&
            rules_piece_contains(pc, b) && (L == 0 || rules_piece_depth(pc, a, b) >= L - 1e-4))
            return (int)k;
    }
    return -1;
}

rules_shape rules_shape_shifted(const rules_shape *s, int64_t dx, int64_t dy)
{
    rules_shape t = *s;
    t.c.x += dx;
    t.c.y += dy;
    for (int k = 0; k < t.n; k++) {
        t.v[k].x += dx;
        t.v[k].y += dy;
    }
    return t;
}

/* ---- terrain met by the base's swept area (profile by_base) ---- */

/* The base s meets the piece: touching counts, or (strict) only some of
 * the base inside the piece (a closed piece) or a line through its inside. */
static int rules__shape_meets(const rules_piece *pc, const rules_shape *s, int strict)
{
    if (!strict)
        return rules_piece_near_shape(pc, s, 0);
    int ne = pc->closed ? pc->n : pc->n - 1;
    for (int e = 0; e < ne; e++)
        if (rules_geom_shape_seg_blocks(s, pc->v[e], pc->v[(e + 1) % pc->n]))
            return 1;
    if (!pc->closed)
        return 0;
    if (rules_geom_point_in_poly(pc->v, pc->n, s->c) > 0)
        return 1;
    for (int k = 0; !s->round && k < s->n; k++)
        if (rules_geom_point_in_poly(pc->v, pc->n, s->v[k]) > 0)
            return 1;
    return 0;
}

/* A round base of radius r swept from a to b (a != b): the piece lies
 * within r of the segment a-b (strict: closer than r, or the path goes
 * inside it). */
static int rules__capsule_meets(const rules_piece *pc, rules_pt a, rules_pt b, int64_t r, int strict)
{
    if (pc->closed && (strict ? rules_geom_point_in_poly(pc->v, pc->n, a) > 0 ||
                                    rules_geom_seg_meets_interior(pc->v, pc->n, a, b)
                              : rules_geom_point_in_poly(pc->v, pc->n, a) >= 0))
        return 1;
    int ne = pc->closed ? pc->n : pc->n - 1;
    for (int e = 0; e < ne; e++) {
        rules_pt p = pc->v[e], q = pc->v[(e + 1) % pc->n];
        if (strict ? (r > 0 && rules_geom_seg_touch(p, q, a, b)) || rules_geom_point_seg_closer(p, a, b, r) ||
                         rules_geom_point_seg_closer(q, a, b, r) || rules_geom_point_seg_closer(a, p, q, r) ||
                         rules_geom_point_seg_closer(b, p, q, r)
                   : rules_geom_seg_touch(p, q, a, b) || rules_geom_point_seg_within(p, a, b, r) ||
                         rules_geom_point_seg_within(q, a, b, r) || rules_geom_point_seg_within(a, p, q, r) ||
                         rules_geom_point_seg_within(b, p, q, r))
            return 1;
    }
    return 0;
}

/* Figure f moving its centre a -> b meets the piece.  By the path of its
 * centre: the path touches an area or crosses a line.  By its base
 * (by_base): the area the base sweeps in a straight move (the convex hull
 * of the base at the start and at the end: the start base, the end base
 * and the parallelogram each edge sweeps) meets it, touching included;
 * strict (impassable terrain): the swept area goes inside it. */
static int rules__meets(const rules_scenario *sc, const rules_piece *pc, const rules_figure *f, rules_pt a, rules_pt b,
                        int strict)
{
    if (!sc->prof->by_base)
        return rules_piece_contains(pc, a) || rules_piece_contains(pc, b) || rules_piece_cuts(pc, a, b);
    const rules_shape *s = &f->shape;
    rules_pt d = rules_sub(b, a);
    if (d.x == 0 && d.y == 0)
        return rules__shape_meets(pc, s, strict);
    if (s->round)
        return rules__capsule_meets(pc, a, b, s->r, strict);
    rules_shape t = rules_shape_shifted(s, d.x, d.y);
    if (rules__shape_meets(pc, s, strict) || rules__shape_meets(pc, &t, strict))
        return 1;
    for (int k = 0; k < s->n; k++) {
        rules_pt p0 = s->v[k], p1 = s->v[(k + 1) % s->n];
        int64_t c = rules_cross(rules_sub(p1, p0), d);
        if (c == 0)
            continue; /* an edge along the move sweeps no area */
        rules_shape q = {0};
        q.n = 4;
        rules_pt p2 = {p1.x + d.x, p1.y + d.y}, p3 = {p0.x + d.x, p0.y + d.y};
        q.v[0] = p0;
        q.v[1] = c > 0 ? p1 : p3;
        q.v[2] = p2;
        q.v[3] = c > 0 ? p3 : p1;
        q.c.x = p0.x + (p2.x - p0.x) / 2;
        q.c.y = p0.y + (p2.y - p0.y) / 2;
        if (rules__shape_meets(pc, &q, strict))
            return 1;
    }
    return 0;
}

/* ---- the per-inch reading (profile per_inch) ---- */

/* How far along the ray from a through b (past b while the budget lasts)
 * `budget` inches take figure f when each inch inside a difficult area
 * (prices[k] > 0 for piece k: inches of budget an inch there costs, the
 * dearest area there setting the price) costs its price, every other inch
 * one.  -1 out of memory. */
static double rules__reach(const rules_scenario *sc, const double *prices, rules_pt a, rules_pt b, double budget)
{
    if (budget <= 0)
        return 0;
    double len = hypot((double)(b.x - a.x), (double)(b.y - a.y));
    if (len == 0) { /* no direction: the price where it stands */
        double k = 1;
        for (size_t i = 0; i < sc->npieces; i++)
            if (prices[i] > k && rules_geom_point_in_poly(sc->pieces[i].v, sc->pieces[i].n, a) > 0)
                k = prices[i];
        return budget / k;
    }
    /* the ray, out to the budget (at most 40,000in: terrain lies nearer) */
    double R = rules_fx(budget < 2 * RULES_MAX_IN ? budget : 2 * RULES_MAX_IN);
    rules_pt e = {a.x + llround((double)(b.x - a.x) * (R / len)), a.y + llround((double)(b.y - a.y) * (R / len))};
    double Rin = rules_in(1) * hypot((double)(e.x - a.x), (double)(e.y - a.y));
    double *ts = NULL, *kk = NULL;
    size_t nt = 0, cap = 0;
    for (size_t i = 0; i < sc->npieces; i++) {
        if (prices[i] <= 1)
            continue;
        double *sp;
        int ns = rules_piece_spans(&sc->pieces[i], a, e, &sp);
        if (ns < 0)
            goto oom;
        for (int k = 0; k < ns; k++) {
            if (nt + 1 >= cap) {
                size_t nc = cap ? 2 * cap : 16;
                double *t2 = realloc(ts, 2 * nc * sizeof *ts), *k2 = t2 ? realloc(kk, nc * sizeof *kk) : NULL;
                if (t2)
                    ts = t2;
                if (!t2 || !k2) {
                    free(sp);
                    goto oom;
                }
                kk = k2;
                cap = nc;
            }
            ts[2 * nt] = sp[2 * k];
            ts[2 * nt + 1] = sp[2 * k + 1];
            kk[nt++] = prices[i];
        }
        free(sp);
    }
    /* walk the pieces of the ray between span ends, each at its price */
    double t = 0, left = budget, reach = 0;
    while (left > 0 && t < 1) {
        double next = 1, k = 1;
        for (size_t i = 0; i < nt; i++) {
            if (ts[2 * i] > t && ts[2 * i] < next)
                next = ts[2 * i];
            if (ts[2 * i + 1] > t && ts[2 * i + 1] < next)
                next = ts[2 * i + 1];
        }
        double mid = (t + next) / 2;
        for (size_t i = 0; i < nt; i++)
            if (ts[2 * i] <= mid && mid <= ts[2 * i + 1] && kk[i] > k)
                k = kk[i];
        double L = (next - t) * Rin;
        if (L * k <= left) {
            left -= L * k;
            reach += L;
        } else {
            reach += left / k;
            left = 0;
        }
        t = next;
    }
    free(ts);
    free(kk);
    return reach + left; /* beyond the ray's end: open ground */
oom:
    free(ts);
    free(kk);
    return -1;
}

/* The allowance of figure f for its type (al): its formation's, else its
 * quality's or its weapon's inches instead of al's (a copy in *fal where
 * its formation changes what it loses in difficult going); the lines of
 * what changed it to cite.  A formation's inches win: they are what the
 * formation allows whatever the figure's quality (prone: half of SP 5 or
 * 6, rounded up, is 3 either way). */
static double rules__allowance_in(const rules_scenario *sc, const rules_figure *f, const rules_allowance **al,
                                  rules_allowance *fal, rules__cite *cite)
{
    const rules_profile *p = sc->prof;
    double base = (*al)->inches;
    int fm = f->formation, by_form = 0;
    if (fm >= 0) {
        for (int k = 0; k < p->form_nmove[fm] && base >= 0; k++)
            if (!strcmp(p->form_move_type[fm][k], f->type)) {
                base = p->form_move_in[fm][k];
                by_form = 1;
            }
        if (by_form && p->form_inches_src[fm])
            rules__cite_add(cite, p->form_inches_src[fm]);
        if (p->form_difficult_cost[fm] > (*al)->difficult_cost_in) {
            *fal = **al;
            fal->difficult_cost_in = p->form_difficult_cost[fm];
            *al = fal;
        }
    }
    for (int k = 0; k < (*al)->nby_q && base >= 0 && !by_form; k++)
        if (!strcmp((*al)->by_q[k], f->quality)) {
            base = (*al)->by_q_in[k];
            rules__cite_add(cite, (*al)->by_q_src);
        }
    for (int k = 0; k < (*al)->nby_w && base >= 0 && f->weapon && !by_form; k++)
        if (!strcmp((*al)->by_w[k], f->weapon->name)) {
            base = (*al)->by_w_in[k];
            rules__cite_add(cite, (*al)->by_w_src);
        }
    return base;
}

/* The movement allowance of figure f's type in the profile, or an error
 * naming the type. */
static tt_status rules__allowance_of(const rules_profile *p, const rules_figure *f, const rules_allowance **al,
                                     tt_err *err)
{
    *al = NULL;
    for (size_t k = 0; k < p->nmoves; k++)
        if (!strcmp(p->moves[k].type, f->type)) {
            *al = &p->moves[k];
            return TT_OK;
        }
    return tt_err_set(err, TT_ERR_UNKNOWN, "ruleset %s has no movement allowance for figure type \"%s\" (of \"%s\")",
                      p->name, f->type, f->id);
}

/* A mount's gait (the query's "gait", not NULL): its index in al into
 * *gi, its inches into *base, and the turn to head for `to` (pro rata per
 * 90 degrees) into *turn_cost; an error where f's type has no such gait. */
static tt_status rules__gait(const rules_profile *p, const rules_figure *f, const rules_allowance *al,
                             const char *gait, rules_point to, int *gi, double *base, double *turn_cost, tt_err *err)
{
    char names[64] = "";
    *gi = -1;
    for (int g = 0; g < al->ngaits && *gi < 0; g++) {
        if (!strcmp(al->gait[g], gait))
            *gi = g;
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", g ? ", " : "", al->gait[g]);
    }
    if (!al->ngaits)
        return tt_err_set(err, TT_ERR_ARG, "figure type \"%s\" (of \"%s\") has no gaits in ruleset %s: leave out \"gait\"",
                          f->type, f->id, p->name);
    if (*gi < 0)
        return tt_err_set(err, TT_ERR_ARG, "gait \"%s\" is not one of %s", gait, names);
    *base = al->gait_in[*gi];
    double dx = to.x - f->x, dy = to.y - f->y;
    if (dx != 0 || dy != 0)
        *turn_cost = al->gait_turn_in[*gi] * fabs(remainder(atan2(dy, dx) * (180.0 / M_PI) - f->facing_deg, 360.0)) / 90;
    return TT_OK;
}

/* The dice of a move: dn dice of ds sides, plus dk ("2d6+1"); all 0 for
 * a move of fixed inches. */
typedef struct rules__move_dice {
    int dn, ds, dk;
} rules__move_dice;

/* The allowance before terrain: *base (inches, or < 0 when dice decide it
 * and no roll is given; then *dice the dice) from the movement dice's
 * `roll` (-1: not rolled), a charge's `factor` or its fixed_in (>= 0);
 * an error for a roll the allowance does not take or the dice cannot show. */
static tt_status rules__move_base(const rules_profile *p, const rules_figure *f, const rules_allowance *al, int roll,
                                  double factor, double fixed_in, double *base, rules__move_dice *dice, tt_err *err)
{
    tt_status st;
    int dn = 0, ds = 0, dk = 0;
    if (roll >= 0 && al->inches >= 0)
        return tt_err_set(err, TT_ERR_ARG,
                          "figure type \"%s\" (of \"%s\") moves a fixed %g\" in ruleset %s: leave out \"roll\"", f->type,
                          f->id, al->inches, p->name);
    if (al->inches < 0 && (st = rules__dice(al, &dn, &ds, &dk, err)))
        return st;
    if (roll >= 0) {
        if (roll < dn || roll > dn * ds)
            return tt_err_set(err, TT_ERR_ARG,
                              "a roll of %d is not possible on %dd%d (%d to %d): give what the dice showed", roll, dn, ds,
                              dn, dn * ds);
        *base = roll + dk;
    }
    if (fixed_in >= 0) {
        *base = fixed_in;
        dn = ds = dk = 0;
    } else if (*base >= 0) {
        *base *= factor;
    } else {
        dn = (int)(dn * factor); /* a dice charge: the range of allowances, scaled */
        dk = (int)(dk * factor);
    }
    *dice = (rules__move_dice){dn, ds, dk};
    return TT_OK;
}

/* What the terrain on the way a -> b does to a move (rules__way_read). */
typedef struct rules__way {
    int difficult;     /* & 1 difficult, & 2 very difficult going, for the whole move */
    int any_difficult; /* the same, counting the areas paid for by the inch */
    int impassable;    /* going the figure cannot enter */
    int obstacles;     /* obstacles crossed */
    int refused;       /* a piece the figure crosses in other formations only, or -1 */
    double slow;       /* going that slows this type only (a ford, artillery): its factor */
    double *prices;    /* per inch (profile per_inch; else NULL): what an inch in piece k costs */
    double fd, fvd;    /* the difficult and very difficult factors for the figure's allowance */
} rules__way;

/* Read the terrain figure f (allowance al) meets moving a -> b into *w:
 * the pieces met go into out's ids, and the lines of what changes the
 * allowance to cite.  w->prices is allocated (per inch): the caller frees
 * it, also on error. */
static tt_status rules__way_read(const rules_scenario *sc, const rules_figure *f, const rules_allowance *al,
                                 rules_pt a, rules_pt b, rules__way *w, rules__cite *cite, rules_result *out,
                                 tt_err *err)
{
    const rules_profile *p = sc->prof;
    size_t cap = 0;
    tt_status st;
    *w = (rules__way){0};
    w->refused = -1;
    w->slow = 1;
    w->prices = p->per_inch ? calloc(sc->npieces + 1, sizeof *w->prices) : NULL;
    if (p->per_inch && !w->prices)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    w->fd = al->difficult_factor >= 0 ? al->difficult_factor : p->difficult_factor;
    w->fvd = p->very_difficult_factor >= 0 ? p->very_difficult_factor : w->fd;
    for (size_t k = 0; k < sc->npieces; k++) {
        const rules_piece *pc = &sc->pieces[k];
        int mv = pc->p.movement;
        /* per inch, the price of every difficult area (the line runs on
         * past the destination while the allowance lasts) */
        if (w->prices && pc->closed &&
            (mv == RULES_MOVE_DIFFICULT || mv == RULES_MOVE_VERY_DIFFICULT ||
             (mv == RULES_MOVE_UPHILL && rules_slope_climbs_from(pc, a)))) {
            double fk = mv == RULES_MOVE_VERY_DIFFICULT ? w->fvd : w->fd;
            w->prices[k] = fk > 0 ? 1 / fk : INFINITY;
        }
        int in = rules__meets(sc, pc, f, a, b, 0);
        if (!in)
            continue;
        if ((st = rules_result_add_id(out, pc->id, &cap, err)))
            return st;
        /* a slope slows only a move that climbs it: one whose centre starts
         * off it and goes onto it, or up its sloped side (slope.c) */
        int d = mv == RULES_MOVE_DIFFICULT ? 1
                : mv == RULES_MOVE_UPHILL ? rules_slope_climbs(pc, a, b)
                : mv == RULES_MOVE_VERY_DIFFICULT ? (p->very_difficult_factor >= 0 ? 2 : 1)
                                                  : 0;
        if (pc->p.move_factor > 0 && pc->p.move_factor < w->slow &&
            rules_figure_named(f, pc->p.move_factor_for, pc->p.nmove_factor_for)) {
            w->slow = pc->p.move_factor;
            rules__cite_add(cite, pc->p.move_factor_src);
        }
        if (w->refused < 0 && f->formation >= 0 && rules_figure_named(f, pc->p.cross_for, pc->p.ncross_for) &&
            !rules_type_in(pc->p.cross_forms, pc->p.ncross_forms, p->form_name[f->formation]))
            w->refused = (int)k; /* going it crosses in other formations only */
        if (al->impassable_in & (1u << mv)) { /* going this type cannot enter */
            w->impassable = 1;
            rules__cite_add(cite, al->impassable_src);
        }
        w->any_difficult |= d;
        if (!w->prices || !pc->closed) /* per inch, an area is paid for by the inch */
            w->difficult |= d;
        w->impassable |= mv == RULES_MOVE_IMPASSABLE && (!p->by_base || rules__meets(sc, pc, f, a, b, 1));
        w->obstacles += mv == RULES_MOVE_OBSTACLE;
    }
    rules_result_sort_ids(out);
    if (w->any_difficult && p->by_base)
        rules__cite_add(cite, p->move_cite[RULES_MC_BY_BASE]);
    return TT_OK;
}

/* A whole move a -> b along a road, in a formation that may take it
 * (base inches known): faster, and the road is the exception to terrain
 * penalties, so *w forgets them. */
static void rules__road(const rules_scenario *sc, const rules_figure *f, rules_pt a, rules_pt b, double *base,
                        rules__way *w, rules__cite *cite)
{
    const rules_profile *p = sc->prof;
    int fm = f->formation;
    if (p->road_factor > 0 && *base >= 0 && fm >= 0 && p->form_road[fm] && rules__on_road(sc, a, b) >= 0) {
        w->difficult = w->obstacles = w->any_difficult = 0;
        if (w->prices)
            memset(w->prices, 0, sc->npieces * sizeof *w->prices);
        *base *= p->road_factor;
        rules__cite_add(cite, p->move_cite[RULES_MC_ROAD]);
    }
}

/* Per inch: the whole move's factors and costs come first (lines of
 * difficult going slow the whole move); what they leave is the budget the
 * inches in difficult areas are paid from, at their price.  The inches
 * taken off that budget first. */
static double rules__per_inch_cost(const rules_profile *p, const rules_allowance *al, const rules__way *w,
                                   rules__cite *cite)
{
    if (!w->prices || !w->any_difficult || w->difficult)
        return 0;
    if ((w->any_difficult & 2 ? w->fvd : w->fd) != 1)
        rules__cite_add(cite, (w->any_difficult & 2)       ? p->move_cite[RULES_MC_VERY_DIFFICULT]
                              : al->difficult_factor >= 0 ? al->difficult_src
                                                          : p->move_cite[RULES_MC_DIFFICULT]);
    return al->difficult_cost_in;
}

/* The answer's allowance for the move a -> b of figure f: none through
 * impassable going; where dice decide it, what the lowest and the highest
 * roll allow; else the inches (base, less turn_cost) and whether the move
 * is within them (and at least gait gi's least, gi >= 0).  -1 out of
 * memory, else 0. */
static int rules__allowed(const rules_scenario *sc, const rules_figure *f, const rules_allowance *al, rules_pt a,
                          rules_pt b, double base, const rules__move_dice *dice, double turn_cost, int gi,
                          int not_fwd, const rules__way *w, rules__cite *cite, rules_result *out)
{
    int fm = f->formation;
    double per_inch_cost = rules__per_inch_cost(sc->prof, al, w, cite);
    if (w->impassable) {
        out->allowed_known = 1;
        out->allowed_in = 0;
        out->ok = 0;
    } else if (base < 0) {
        out->allowed_known = 0;
        out->ok = RULES_NULL;
        out->has_allowed_range = 1; /* what the lowest and the highest roll allow */
        out->allowed_range_in[0] = rules__after_terrain(sc, al, fm, (dice->dn + dice->dk) * w->slow, w->difficult,
                                                        w->obstacles, not_fwd, cite);
        out->allowed_range_in[1] = rules__after_terrain(sc, al, fm, (dice->dn * dice->ds + dice->dk) * w->slow,
                                                        w->difficult, w->obstacles, not_fwd, NULL);
        for (int r = 0; r < 2 && w->prices; r++)
            if ((out->allowed_range_in[r] =
                     rules__reach(sc, w->prices, a, b, out->allowed_range_in[r] - per_inch_cost)) < 0)
                return -1;
    } else {
        double allowed =
            rules__after_terrain(sc, al, fm, base * w->slow, w->difficult, w->obstacles, not_fwd, cite) - turn_cost;
        if (allowed < 0)
            allowed = 0;
        if (w->prices && (allowed = rules__reach(sc, w->prices, a, b, allowed - per_inch_cost)) < 0)
            return -1;
        out->allowed_known = 1;
        out->allowed_in = allowed;
        int64_t A = rules_fx(allowed);
        out->ok = rules_len2(rules_sub(b, a)) <= (rules_i128)A * A;
        if (gi >= 0 && al->gait_min_in[gi] > 0) { /* and at least the gait's least */
            int64_t M = rules_fx(al->gait_min_in[gi]);
            out->has_min = 1;
            out->min_in = al->gait_min_in[gi];
            out->ok &= rules_len2(rules_sub(b, a)) >= (rules_i128)M * M;
        }
    }
    return 0;
}

/* Figure f is not in a formation that may cross piece `refused`: the
 * move is refused and the reason becomes the answer's rule (cite). */
static void rules__crossing_refused(const rules_scenario *sc, const rules_figure *f, int refused, rules__cite *cite,
                                    rules_result *out)
{
    const rules_piece *pc = &sc->pieces[refused];
    char forms[160] = "";
    for (int m = 0; m < pc->p.ncross_forms; m++)
        snprintf(forms + strlen(forms), sizeof forms - strlen(forms), "%s%s", m ? " or " : "", pc->p.cross_forms[m]);
    out->ok = 0;
    snprintf(cite->s, sizeof cite->s, "%s%s\"%s\" is in %s: a %s crosses %s \"%s\" only in %s", pc->p.cross_src,
             pc->p.cross_src[0] ? ": " : "", f->id, sc->prof->form_name[f->formation], f->type, pc->kind, pc->id,
             forms);
}

tt_status rules_move_figure(rules_scenario *sc, const rules_query_opts *qo, int i, rules_point to, int roll,
                            double factor, double fixed_in, const char *rule, const char *also, rules_result *out,
                            tt_err *err)
{
    tt_status st;
    const rules_figure *f = &sc->figs[i];
    const rules_profile *p = sc->prof;
    if (!(to.x >= 0 && to.x <= sc->width_in && to.y >= 0 && to.y <= sc->depth_in))
        return tt_err_set(err, TT_ERR_ARG, "destination (%g, %g) is off the %g x %g table", to.x, to.y, sc->width_in,
                          sc->depth_in);
    const rules_allowance *al;
    if ((st = rules__allowance_of(p, f, &al, err)))
        return st;
    rules__cite cite = {0};
    snprintf(cite.s, sizeof cite.s, "%s", rule ? rule : al->src ? al->src : "");
    rules__cite_add(&cite, also);
    /* the figure's formation, quality or weapon: its own allowance for the
     * type, and what it loses in difficult going */
    rules_allowance fal;
    double base = rules__allowance_in(sc, f, &al, &fal, &cite);
    /* a mount's gait: its inches, less the turn to head for the destination,
     * and the least it must go */
    int gi = -1;
    double turn_cost = 0;
    if (qo->gait && (st = rules__gait(p, f, al, qo->gait, to, &gi, &base, &turn_cost, err)))
        return st;
    rules__move_dice dice = {0, 0, 0};
    if ((st = rules__move_base(p, f, al, roll, factor, fixed_in, &base, &dice, err)))
        return st;
    rules_pt a = f->shape.c, b = {rules_fx(to.x), rules_fx(to.y)};
    rules__way w;
    if ((st = rules__way_read(sc, f, al, a, b, &w, &cite, out, err))) {
        free(w.prices);
        return st;
    }
    int not_fwd = rules__not_forward(sc, qo, f, al, a, b);
    rules__road(sc, f, a, b, &base, &w, &cite);
    out->distance_in = rules_in(1) * hypot((double)(b.x - a.x), (double)(b.y - a.y));
    int oom = rules__allowed(sc, f, al, a, b, base, &dice, turn_cost, gi, not_fwd, &w, &cite, out);
    free(w.prices);
    if (oom)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    out->line[0] = rules_pt_in(a);
    out->line[1] = rules_pt_in(b);
    rules__cite_done(&cite);
    if (w.refused >= 0) /* not in a formation that may cross it: the reason is the answer's rule */
        rules__crossing_refused(sc, f, w.refused, &cite, out);
    return cite.s[0] ? rules_result_set_rule(out, cite.s, err) : TT_OK;
}

tt_status rules_move(rules_scenario *sc, const char *from, rules_point to, int roll, rules_result *out, tt_err *err)
{
    return rules_ask_move(sc, &rules_no_opts, from, to, roll, out, err);
}

tt_status rules_ask_move(rules_scenario *sc, const rules_query_opts *qo, const char *from, rules_point to, int roll,
                         rules_result *out, tt_err *err)
{
    int i;
    tt_status st;
    memset(out, 0, sizeof *out);
    out->kind = RULES_Q_MOVE;
    if ((st = rules_scenario_figure(sc, from, "from", &i, err)))
        return st;
    return rules_move_figure(sc, qo, i, to, roll, 1, -1, NULL, NULL, out, err);
}
