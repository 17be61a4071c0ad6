/* scenario.c - scenario files: table, terrain pieces, figures, tags.  Checks
 * everything a query relies on (simple polygons, figures on the table, known
 * weapons and terrain kinds) once, at load. */
#include "rules_scenario.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_json.h"
#include "tt_json.h"

static char *rules__dup(const char *s, tt_err *err)
{
    char *d = strdup(s ? s : "");
    if (!d)
        tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    return d;
}

static tt_status rules__point(const json_t *e, const char *where, size_t k, double *x, double *y, tt_err *err)
{
    if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_number(json_array_get(e, 0)) ||
        !json_is_number(json_array_get(e, 1)))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: corner %zu must be [x, y] in inches", where, k + 1);
    *x = json_number_value(json_array_get(e, 0));
    *y = json_number_value(json_array_get(e, 1));
    if (fabs(*x) > RULES_MAX_IN || fabs(*y) > RULES_MAX_IN)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: corner %zu (%g, %g) is too far from the table", where, k + 1, *x,
                          *y);
    return TT_OK;
}

/* 1 if `id` is already in the set `seen` (a JSON object used as a hash
 * set), else 0 and it is added; -1 when out of memory. */
static int rules__id_seen(json_t *seen, const char *id)
{
    if (json_object_get(seen, id))
        return 1;
    return json_object_set_new(seen, id, json_true()) == 0 ? 0 : -1;
}

static tt_status rules__piece_parse(rules_scenario *sc, json_t *seen, const json_t *o, size_t idx, const char *file,
                                    rules_piece *pc, tt_err *err)
{
    char at[256];
    const char *id = NULL, *kind = NULL;
    tt_status st;
    snprintf(at, sizeof at, "%s: terrain[%zu]", file, idx);
    if (!json_is_object(o))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", at);
    if ((st = rules_json_str(o, "id", at, &id, err)) || (st = rules_json_str(o, "kind", at, &kind, err)))
        return st;
    if (!id || !*id)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: missing \"id\" (a name for the piece)", at);
    if (!(pc->id = rules__dup(id, err)))
        return TT_ERR_NOMEM;
    snprintf(at, sizeof at, "%s: terrain \"%s\"", file, id);
    int dup = rules__id_seen(seen, id);
    if (dup)
        return dup < 0 ? tt_err_set(err, TT_ERR_NOMEM, "out of memory")
                       : tt_err_set(err, TT_ERR_FORMAT, "%s: the id is used twice; give each piece its own id", at);
    if (!kind)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: missing \"kind\" (building, wall, hedge, woods, hill, ...)", at);
    const rules_terrain_kind *k = rules_profile_kind(sc->prof, kind);
    if (!k) {
        char names[512];
        size_t used = 0;
        names[0] = '\0';
        for (size_t i = 0; i < sc->prof->nkinds && used + 1 < sizeof names; i++) {
            int n = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", sc->prof->kinds[i].name);
            if (n < 0)
                break;
            used += (size_t)n;
        }
        return tt_err_set(err, TT_ERR_UNKNOWN, "%s: kind \"%s\" is not in ruleset %s (known: %s)", at, kind,
                          sc->prof->name, names);
    }
    pc->kind = k->name;
    pc->p = k->props;
    if ((st = rules_terrain_props_parse(o, at, &pc->p, err)) ||
        (st = rules_terrain_names_check(sc->prof, &pc->p, at, err)))
        return st;
    /* flat ground (a kind of height 0: river, rough, ...) has no height to give */
    if (k->props.height_in <= 0 && json_object_get(o, "height_in"))
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: kind \"%s\" is flat ground in ruleset %s and cannot have a \"height_in\"; remove it, or "
                          "use a kind that stands up (hill, building, woods, wall, hedge)",
                          at, kind, sc->prof->name);
    const json_t *poly = json_object_get(o, "polygon"), *line = json_object_get(o, "line");
    if (!!poly == !!line)
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: give exactly one of \"polygon\" (an area: [[x,y],...]) or \"line\" (a wall or "
                          "hedge: [[x,y],...])",
                          at);
    const json_t *pts = poly ? poly : line;
    pc->closed = poly != NULL;
    size_t need = pc->closed ? 3 : 2;
    if (!json_is_array(pts) || json_array_size(pts) < need)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must be a list of at least %zu [x, y] corners", at,
                          poly ? "polygon" : "line", need);
    if (json_array_size(pts) > RULES_MAX_CORNERS)
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: \"%s\" has %zu corners; at most %d are allowed (simplify the outline)", at,
                          poly ? "polygon" : "line", json_array_size(pts), RULES_MAX_CORNERS);
    size_t n = json_array_size(pts);
    pc->v = calloc(n, sizeof *pc->v);
    pc->vin = calloc(2 * n, sizeof *pc->vin);
    if (!pc->v || !pc->vin)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    pc->n = (int)n;
    for (size_t i = 0; i < n; i++) {
        double x = 0, y = 0;
        if ((st = rules__point(json_array_get(pts, i), at, i, &x, &y, err)))
            return st;
        pc->v[i].x = rules_fx(x);
        pc->v[i].y = rules_fx(y);
    }
    if (pc->closed) {
        int e1, e2;
        int simple = rules_poly_simple_grid(pc->v, pc->n, &e1, &e2);
        if (simple < 0)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        if (!simple) {
            if (e1 == e2)
                return tt_err_set(err, TT_ERR_FORMAT, "%s: the polygon has no area; list at least 3 corners that "
                                                      "are not all on one line",
                                  at);
            return tt_err_set(err, TT_ERR_FORMAT,
                              "%s: the polygon is self-intersecting (edge %d-%d meets edge %d-%d); list the corners "
                              "in order around the outline",
                              at, e1 + 1, (e1 + 1) % pc->n + 1, e2 + 1, (e2 + 1) % pc->n + 1);
        }
        if (rules_geom_area2(pc->v, pc->n) < 0)
            for (int i = 0, j = pc->n - 1; i < j; i++, j--) {
                rules_pt t = pc->v[i];
                pc->v[i] = pc->v[j];
                pc->v[j] = t;
            }
        if ((st = rules_slope_parse(o, at, sc->prof->name, pc, err)))
            return st;
    } else {
        for (int i = 0; i + 1 < pc->n; i++)
            if (pc->v[i].x == pc->v[i + 1].x && pc->v[i].y == pc->v[i + 1].y)
                return tt_err_set(err, TT_ERR_FORMAT, "%s: corners %d and %d of the line are the same point", at,
                                  i + 1, i + 2);
        if ((st = rules_slope_parse(o, at, sc->prof->name, pc, err)))
            return st;
    }
    pc->lo = pc->hi = pc->v[0];
    for (int i = 0; i < pc->n; i++) {
        pc->vin[2 * i] = rules_in(pc->top ? pc->top[i].x : pc->v[i].x);
        pc->vin[2 * i + 1] = rules_in(pc->top ? pc->top[i].y : pc->v[i].y);
        if (pc->v[i].x < pc->lo.x)
            pc->lo.x = pc->v[i].x;
        if (pc->v[i].y < pc->lo.y)
            pc->lo.y = pc->v[i].y;
        if (pc->v[i].x > pc->hi.x)
            pc->hi.x = pc->v[i].x;
        if (pc->v[i].y > pc->hi.y)
            pc->hi.y = pc->v[i].y;
    }
    return TT_OK;
}

tt_status rules_figure_setup(rules_scenario *sc, rules_figure *f, tt_err *err)
{
    if (!(f->x >= 0 && f->x <= sc->width_in && f->y >= 0 && f->y <= sc->depth_in))
        return tt_err_set(err, TT_ERR_FORMAT,
                          "figure \"%s\" at (%g, %g) is off the %g x %g table; check its x and y (inches from the "
                          "table corner)",
                          f->id, f->x, f->y, sc->width_in, sc->depth_in);
    if (!isfinite(f->facing_deg) || fabs(f->facing_deg) > 1e6)
        return tt_err_set(err, TT_ERR_FORMAT, "figure \"%s\": facing_deg %g is not an angle", f->id, f->facing_deg);
    double a = f->facing_deg * (M_PI / 180.0), cx = cos(a), cy = sin(a);
    rules_shape *s = &f->shape;
    s->c.x = rules_fx(f->x);
    s->c.y = rules_fx(f->y);
    f->f = rules_geom_dir(f->facing_deg);
    f->w = rules_fx(f->w_in);
    f->d = rules_fx(f->d_in);
    if (s->round) {
        s->r = rules_fx(f->w_in / 2);
        s->n = 0;
    } else {
        double hw = f->w_in / 2, hd = f->d_in / 2;
        const double lx[4] = {hd, hd, -hd, -hd}, ly[4] = {-hw, hw, hw, -hw};
        s->n = 4;
        for (int k = 0; k < 4; k++) {
            s->v[k].x = rules_fx(f->x + lx[k] * cx - ly[k] * cy);
            s->v[k].y = rules_fx(f->y + lx[k] * cy + ly[k] * cx);
        }
    }
    f->front.x = rules_fx(f->x + cx * f->d_in / 2);
    f->front.y = rules_fx(f->y + cy * f->d_in / 2);
    f->ninside = 0;
    f->on_hill = 0;
    f->elev = 0;
    f->arc_cap_deg = 0;
    for (size_t i = 0; i < sc->npieces; i++) {
        /* behind a piece that narrows its arcs (artillery behind an emplacement) */
        const rules_terrain_props *pp = &sc->pieces[i].p;
        if (pp->arc_behind_deg > 0 && (f->arc_cap_deg <= 0 || pp->arc_behind_deg < f->arc_cap_deg) &&
            rules_figure_named(f, pp->arc_behind_for, pp->narc_behind_for) &&
            rules_piece_near_shape(&sc->pieces[i], s, rules_fx(sc->prof->cover_within_in)))
            f->arc_cap_deg = pp->arc_behind_deg;
    }
    int n = rules_stand_on(sc, s->c, sc->piece_cand, &f->elev, &f->on_hill);
    if (n > 0) {
        int *ni = realloc(f->inside, (size_t)n * sizeof *ni);
        if (!ni)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        f->inside = ni;
        memcpy(f->inside, sc->piece_cand, (size_t)n * sizeof *ni);
        f->ninside = n;
    }
    return TT_OK;
}

double rules_scenario_ground_in(const void *scv, double x, double y)
{
    const rules_scenario *sc = scv;
    double elev = 0;
    if (!sc || !isfinite(x) || !isfinite(y) || fabs(x) > RULES_MAX_IN || fabs(y) > RULES_MAX_IN)
        return 0;
    for (size_t i = 0; i < sc->npieces; i++)
        if (sc->pieces[i].p.raises && sc->pieces[i].p.height_in > elev)
            elev = fmax(elev, rules_slope_height(&sc->pieces[i], x, y)); /* sloped or flat (slope.c) */
    return elev;
}

int rules_stand_on(const rules_scenario *sc, rules_pt c, int *inside, double *elev, int *on_hill)
{
    int n = 0;
    *elev = 0;
    *on_hill = 0;
    for (size_t i = 0; i < sc->npieces; i++)
        if (rules_piece_contains(&sc->pieces[i], c)) {
            if (sc->pieces[i].p.raises && sc->pieces[i].p.height_in > *elev)
                *elev = fmax(*elev, sc->pieces[i].p.slope_in > 0 /* on its side: lower (slope.c) */
                                        ? rules_slope_height(&sc->pieces[i], rules_in(c.x), rules_in(c.y))
                                        : sc->pieces[i].p.height_in);
            inside[n++] = (int)i;
            if (!strcmp(sc->pieces[i].kind, "hill"))
                *on_hill = 1;
        }
    return n;
}

static int rules__name_index(const char (*names)[16], int n, const char *name)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(names[k], name))
            return k;
    return -1;
}

/* "quality \"x\" must be one of a, b", or the ruleset has none. */
static tt_status rules__name_error(const char *at, const char *what, const char *name, const char (*names)[16], int n,
                                   const char *ruleset, tt_err *err)
{
    char list[128] = "";
    for (int k = 0; k < n; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", names[k]);
    if (!n)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: ruleset %s has no \"%s\"; remove it", at, ruleset, what);
    return tt_err_set(err, TT_ERR_FORMAT, "%s: %s \"%s\" must be one of %s", at, what, name, list);
}

static tt_status rules__figure_parse(rules_scenario *sc, json_t *seen, const json_t *o, size_t idx, const char *file,
                                     rules_figure *f, tt_err *err)
{
    char at[256];
    const char *id = NULL, *side = NULL, *unit = NULL, *type = NULL, *weapon = NULL;
    tt_status st;
    snprintf(at, sizeof at, "%s: figures[%zu]", file, idx);
    if (!json_is_object(o))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", at);
    if ((st = rules_json_str(o, "id", at, &id, err)))
        return st;
    if (!id || !*id)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: missing \"id\" (the figure's name)", at);
    if (!(f->id = rules__dup(id, err)))
        return TT_ERR_NOMEM;
    snprintf(at, sizeof at, "%s: figure \"%s\"", file, id);
    int dup = rules__id_seen(seen, id);
    if (dup)
        return dup < 0 ? tt_err_set(err, TT_ERR_NOMEM, "out of memory")
                       : tt_err_set(err, TT_ERR_FORMAT, "%s: the id is used twice; give each figure its own id", at);
    if ((st = rules_json_str(o, "side", at, &side, err)) || (st = rules_json_str(o, "unit", at, &unit, err)) ||
        (st = rules_json_str(o, "type", at, &type, err)) || (st = rules_json_str(o, "weapon", at, &weapon, err)))
        return st;
    if (!(f->side = rules__dup(side, err)) || !(f->unit = rules__dup(unit ? unit : id, err)) ||
        !(f->type = rules__dup(type ? type : "foot", err)))
        return TT_ERR_NOMEM;
    if (weapon) {
        f->weapon = rules_profile_weapon(sc->prof, weapon);
        if (!f->weapon) {
            char names[512];
            rules_profile_weapon_names(sc->prof, names, sizeof names);
            return tt_err_set(err, TT_ERR_UNKNOWN, "%s: weapon \"%s\" is not in ruleset %s (known: %s)", at, weapon,
                              sc->prof->name, names);
        }
        if (rules_type_in(f->weapon->not_types, f->weapon->nnot_types, f->type))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: a \"%s\" cannot use weapon \"%s\" in ruleset %s", at, f->type,
                              weapon, sc->prof->name);
    }
    const char *colour = NULL;
    if ((st = rules_json_str(o, "colour", at, &colour, err)))
        return st;
    if (colour) {
        const rules_profile *pr = sc->prof;
        f->colour = -1;
        for (int k = 0; k < pr->ncolours; k++)
            if (!strcmp(pr->colour[k], colour))
                f->colour = k;
        if (f->colour < 0) {
            char names[80] = "";
            for (int k = 0; k < pr->ncolours; k++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", pr->colour[k]);
            return pr->ncolours
                       ? tt_err_set(err, TT_ERR_FORMAT, "%s: colour \"%s\" must be one of %s", at, colour, names)
                       : tt_err_set(err, TT_ERR_FORMAT, "%s: ruleset %s has no unit colours; remove \"colour\"", at,
                                    pr->name);
        }
    }
    /* defence (DS): the figure's own "ds", else the profile's stat line for
     * its type (the first type when it is not listed) and quality */
    const char *quality = NULL;
    double ds = -1;
    if ((st = rules_json_str(o, "quality", at, &quality, err)) ||
        (st = rules_json_num(o, "ds", at, 0, 20, &ds, err)))
        return st;
    const rules_profile *pp = sc->prof;
    const char *formation = NULL;
    if ((st = rules_json_str(o, "formation", at, &formation, err)))
        return st;
    f->fquality = f->formation = f->dquality = -1;
    /* (a name too long for it is refused below: no ruleset has it) */
    snprintf(f->quality, sizeof f->quality, "%s", quality ? quality : "");
    if (formation && (f->formation = rules__name_index(pp->form_name, pp->nforms, formation)) < 0)
        return rules__name_error(at, "formation", formation, pp->form_name, pp->nforms, pp->name, err);
    for (int k = 0; k < pp->nfbt; k++) { /* the formation a type always or by default takes */
        if (strcmp(pp->fbt_type[k], f->type))
            continue;
        if (f->formation < 0)
            f->formation = pp->fbt_default[k];
        else if (pp->fbt_only[k] && !(pp->fbt_only[k] >> f->formation & 1u)) {
            char list[128] = "";
            for (int m = 0; m < pp->nforms; m++)
                if (pp->fbt_only[k] >> m & 1u)
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? ", " : "",
                             pp->form_name[m]);
            return tt_err_set(err, TT_ERR_FORMAT, "%s: a \"%s\" cannot be in formation \"%s\" in ruleset %s: it "
                                                  "takes only %s",
                              at, f->type, formation, pp->name, list);
        }
    }
    if (quality && pp->ndq > 0) { /* the defender's quality (elite, militia) */
        if ((f->dquality = rules__name_index(pp->dq_name, pp->ndq, quality)) < 0)
            return rules__name_error(at, "quality", quality, pp->dq_name, pp->ndq, pp->name, err);
        quality = NULL;
    }
    if (quality && !pp->by_target) {
        if ((f->fquality = rules__name_index(pp->fq_name, pp->nfq, quality)) < 0)
            return rules__name_error(at, "quality", quality, pp->fq_name, pp->nfq, pp->name, err);
        quality = NULL;
    }
    if ((quality || ds >= 0) && !pp->by_target)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: ruleset %s has no %s; remove it", at, pp->name,
                          quality ? "\"quality\"" : "\"ds\" (defence)");
    if (pp->by_target) {
        int t = 0, q = -1;
        for (int k = 0; k < pp->ntypes; k++)
            if (!strcmp(pp->stat_type[k], f->type))
                t = k;
        for (int k = 0; k < pp->nqualities; k++)
            if (!strcmp(pp->quality[k], quality ? quality : "regular"))
                q = k;
        if (q < 0 && quality) {
            char names[80] = "";
            for (int k = 0; k < pp->nqualities; k++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", pp->quality[k]);
            return tt_err_set(err, TT_ERR_FORMAT, "%s: quality \"%s\" must be one of %s", at, quality, names);
        }
        f->ds = ds >= 0 ? (int)ds : pp->ds[t][q < 0 ? 0 : q];
    }
    f->skirmisher |= rules_type_in(pp->skirm_types, pp->nskirm_types, f->type); /* the profile's others (skirmishing cavalry) */
    f->skirmisher |= !strcmp(f->type, "skirmisher") || !strcmp(f->type, "skirmishers") ||
                    (weapon && !strcmp(weapon, "skirmisher"));
    f->x = f->y = NAN;
    if ((st = tt_json_number(o, "x", at, &f->x, err)) || (st = tt_json_number(o, "y", at, &f->y, err)) ||
        (st = rules_json_num(o, "facing_deg", at, -1e6, 1e6, &f->facing_deg, err)))
        return st;
    if ((st = rules_figure_errors_parse(sc, o, at, f, err))) /* errors.c */
        return st;
    f->shape.round = sc->prof->base_round;
    f->w_in = sc->prof->base_w_in;
    f->d_in = sc->prof->base_d_in;
    const json_t *b = json_object_get(o, "base");
    if (b && (st = rules_base_parse(b, at, &f->shape.round, &f->w_in, &f->d_in, err)))
        return st;
    if ((st = rules_figure_setup(sc, f, err))) {
        tt_err_prefix(err, "%s", file);
        return st;
    }
    return TT_OK;
}

/* Where edges of two pieces that block sight cross (the terrain does not
 * move: found once): the visible area's outline turns there from one
 * piece's edge to the other's. */
static tt_status rules__crossings(rules_scenario *sc, tt_err *err)
{
    size_t cap = 0;
    for (size_t a = 0; a < sc->npieces; a++)
        for (size_t b = a + 1; b < sc->npieces; b++) {
            const rules_piece *pa = &sc->pieces[a], *pb = &sc->pieces[b];
            if (!pa->p.blocks_los || !pb->p.blocks_los || pa->hi.x < pb->lo.x || pb->hi.x < pa->lo.x ||
                pa->hi.y < pb->lo.y || pb->hi.y < pa->lo.y)
                continue;
            int na = pa->closed ? pa->n : pa->n - 1, nb = pb->closed ? pb->n : pb->n - 1;
            for (int i = 0; i < na; i++)
                for (int j = 0; j < nb; j++) {
                    rules_pt p = pa->v[i], q = pa->v[(i + 1) % pa->n], r = pb->v[j], t = pb->v[(j + 1) % pb->n];
                    if (!rules_geom_cross_proper(p, q, r, t))
                        continue;
                    if (sc->nxing == cap) {
                        size_t nc = cap ? cap * 2 : 16;
                        double *nx = realloc(sc->xing, nc * 2 * sizeof *nx);
                        if (nx)
                            sc->xing = nx;
                        int *np = nx ? realloc(sc->xing_pc, nc * 4 * sizeof *np) : NULL;
                        if (!np)
                            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
                        sc->xing_pc = np;
                        cap = nc;
                    }
                    double ex = (double)(q.x - p.x), ey = (double)(q.y - p.y), fx = (double)(t.x - r.x),
                           fy = (double)(t.y - r.y);
                    double u = ((double)(r.x - p.x) * fy - (double)(r.y - p.y) * fx) / (ex * fy - ey * fx);
                    sc->xing[2 * sc->nxing] = (double)p.x + u * ex;
                    sc->xing[2 * sc->nxing + 1] = (double)p.y + u * ey;
                    int *x = &sc->xing_pc[4 * sc->nxing];
                    x[0] = (int)a, x[1] = i, x[2] = (int)b, x[3] = j;
                    sc->nxing++;
                }
        }
    return TT_OK;
}

static tt_status rules__load_profile(rules_scenario *sc, const json_t *root, const char *where,
                                     const char *base_dir, const char *const *data_dirs, tt_err *err)
{
    const json_t *rs = json_object_get(root, "ruleset");
    char path[4096];
    json_t *pj = NULL;
    tt_status st;
    if (json_is_object(rs)) /* an inline profile */
        return rules_profile_from_json(rs, where, &sc->prof, err);
    if (!json_is_string(rs))
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: missing \"ruleset\" (into-the-breach, thin-red-line, all-the-kings-men, "
                          "fixed-bayonet, or a profile file)",
                          where);
    if ((st = rules_profile_path(json_string_value(rs), base_dir, data_dirs, path, sizeof path, err)))
        return st;
    char *text = NULL;
    if ((st = tt_json_load_file_text(path, &pj, &text, err)))
        return st;
    if (!(st = rules_keys_check_profile(pj, text, path, 0, err)))
        st = rules_profile_from_json(pj, path, &sc->prof, err);
    json_decref(pj);
    free(text);
    return st;
}

static tt_status rules__scenario_build(const json_t *root, const char *text, const char *where, const char *base_dir,
                                      const char *const *data_dirs, rules_scenario **out, tt_err *err);

/* "options": ["enfilade"], optional rules the profile defines, switched on. */
static tt_status rules__options_parse(rules_scenario *sc, const json_t *opts, const char *where, tt_err *err)
{
    const rules_profile *p = sc->prof;
    char names[RULES_MAX_OPTIONS * 26] = "";
    for (int k = 0; k < p->nopts; k++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", p->opt_name[k]);
    if (!opts)
        return TT_OK;
    if (!json_is_array(opts))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"options\" must be a list of optional rules' names%s%s%s", where,
                          p->nopts ? " (" : "", names, p->nopts ? ")" : "");
    for (size_t i = 0; i < json_array_size(opts); i++) {
        const json_t *o = json_array_get(opts, i);
        int k = 0;
        while (json_is_string(o) && k < p->nopts && strcmp(p->opt_name[k], json_string_value(o)))
            k++;
        if (!json_is_string(o) || k == p->nopts) {
            if (!p->nopts)
                return tt_err_set(err, TT_ERR_FORMAT, "%s: options[%zu]: ruleset %s has no optional rules; remove "
                                                      "\"options\"",
                                  where, i, p->name);
            return tt_err_set(err, TT_ERR_FORMAT, "%s: options[%zu]: %s%s%s is not an optional rule of ruleset %s "
                                                  "(choose from: %s)",
                              where, i, json_is_string(o) ? "\"" : "", json_is_string(o) ? json_string_value(o) : "a "
                              "non-string", json_is_string(o) ? "\"" : "", p->name, names);
        }
        sc->options |= 1u << k;
    }
    return TT_OK;
}

/* A unit is its soldiers' kind: the officer and ensign of a unit of
 * skirmishers are skirmishers too (they stand at its centre: own
 * skirmishers do not block fire, All the King's Men L145, L549-551). */
static void rules__skirmisher_leaders(rules_scenario *sc)
{
    for (size_t i = 0; i < sc->nfigs; i++) {
        rules_figure *f = &sc->figs[i];
        if (f->skirmisher || !f->unit[0] || rules_is_soldier(sc->prof, f->type))
            continue;
        for (size_t k = 0; k < sc->nfigs && !f->skirmisher; k++) {
            const rules_figure *g = &sc->figs[k];
            f->skirmisher = g->skirmisher && !strcmp(g->unit, f->unit) && rules_is_soldier(sc->prof, g->type);
        }
    }
}

tt_status rules_scenario_from_json(const json_t *root, const char *where, const char *base_dir,
                                   const char *const *data_dirs, rules_scenario **out, tt_err *err)
{
    return rules__scenario_build(root, NULL, where, base_dir, data_dirs, out, err);
}

/* "table": {"width_in": W, "depth_in": D}. */
static tt_status rules__table_parse(rules_scenario *sc, const json_t *root, const char *where, tt_err *err)
{
    double w = -1, d = -1;
    tt_status st;
    const json_t *t = json_object_get(root, "table");
    if (!json_is_object(t))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: missing \"table\": {\"width_in\": W, \"depth_in\": D}", where);
    char at[256];
    snprintf(at, sizeof at, "%s: table", where);
    if ((st = tt_json_number(t, "width_in", at, &w, err)) || (st = tt_json_number(t, "depth_in", at, &d, err)))
        return st;
    if (!(w > 0 && d > 0 && w <= RULES_MAX_IN / 2 && d <= RULES_MAX_IN / 2))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: size %g x %g must be positive inches (at most %g)", at, w, d,
                          RULES_MAX_IN / 2);
    sc->width_in = w;
    sc->depth_in = d;
    return TT_OK;
}

/* "terrain": the list of pieces (ids unique). */
static tt_status rules__terrain_parse(rules_scenario *sc, const json_t *root, const char *where, tt_err *err)
{
    const json_t *ter = json_object_get(root, "terrain");
    if (ter && !json_is_array(ter))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"terrain\" must be a list of pieces", where);
    size_t nt = ter ? json_array_size(ter) : 0;
    if (nt > RULES_MAX_PIECES)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: %zu terrain pieces; at most %d are allowed", where, nt,
                          RULES_MAX_PIECES);
    sc->pieces = calloc(nt + 1, sizeof *sc->pieces);
    sc->piece_mark = calloc(nt + 1, sizeof *sc->piece_mark);
    json_t *seen = json_object(); /* the ids so far (a hash set) */
    tt_status st = TT_OK;
    if (!sc->pieces || !sc->piece_mark || !seen)
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < nt && !st; i++) {
        sc->npieces = i + 1;
        st = rules__piece_parse(sc, seen, json_array_get(ter, i), i, where, &sc->pieces[i], err);
    }
    json_decref(seen);
    return st;
}

/* "figures": the list of figures (ids unique), then who is a skirmisher
 * (a unit's officer and ensign as its soldiers), listed so that fire
 * through own skirmishers looks at them only. */
static tt_status rules__figures_parse(rules_scenario *sc, const json_t *root, const char *where, tt_err *err)
{
    const json_t *figs = json_object_get(root, "figures");
    if (figs && !json_is_array(figs))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"figures\" must be a list", where);
    size_t nf = figs ? json_array_size(figs) : 0;
    if (nf > RULES_MAX_FIGURES)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: %zu figures; at most %d are allowed", where, nf, RULES_MAX_FIGURES);
    sc->figs = calloc(nf + RULES_NPROBES, sizeof *sc->figs);
    sc->probe_inside = calloc((sc->npieces + 1) * RULES_NPROBES, sizeof *sc->probe_inside);
    sc->piece_cand = calloc(sc->npieces + 1, sizeof *sc->piece_cand); /* scratch, the figures' setup's too */
    json_t *seen = json_object(); /* the ids so far (a hash set) */
    tt_status st = TT_OK;
    if (!sc->figs || !sc->probe_inside || !sc->piece_cand || !seen)
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < nf && !st; i++) {
        sc->nfigs = i + 1;
        st = rules__figure_parse(sc, seen, json_array_get(figs, i), i, where, &sc->figs[i], err);
    }
    json_decref(seen);
    if (st)
        return st;
    rules__skirmisher_leaders(sc);
    sc->skirm = malloc((nf + 1) * sizeof *sc->skirm);
    if (!sc->skirm)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < nf; i++)
        if (sc->figs[i].skirmisher)
            sc->skirm[sc->nskirm++] = (int)i;
    return TT_OK;
}

/* "tags": {"17": "m1", ...}, tag ids to the figures they stand on. */
static tt_status rules__tags_parse(rules_scenario *sc, const json_t *root, const char *where, tt_err *err)
{
    const json_t *tags = json_object_get(root, "tags");
    const char *key;
    json_t *val;
    if (!tags)
        return TT_OK;
    if (!json_is_object(tags))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"tags\" must map tag ids to figure ids", where);
    sc->tags = calloc(json_object_size(tags) + 1, sizeof *sc->tags);
    if (!sc->tags)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    json_object_foreach((json_t *)tags, key, val)
    {
        char *end;
        long tag = strtol(key, &end, 10);
        if (!*key || *end || tag < 0 || tag > 1000000)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: tags: \"%s\" is not a tag id (a whole number)", where, key);
        int fi = json_is_string(val) ? rules_scenario_find(sc, json_string_value(val)) : -1;
        if (fi < 0)
            return tt_err_set(err, TT_ERR_UNKNOWN, "%s: tag %ld names figure %s%s%s, which is not in \"figures\"",
                              where, tag, json_is_string(val) ? "\"" : "",
                              json_is_string(val) ? json_string_value(val) : "(not a string)",
                              json_is_string(val) ? "\"" : "");
        sc->tags[sc->ntags].tag = (int)tag;
        sc->tags[sc->ntags].fig = fi;
        sc->ntags++;
    }
    return TT_OK;
}

/* What the questions look pieces up by: the pieces whose sight runs out
 * at a depth (deep), the pieces' boxes, the terrain grid and where
 * sight-blocking edges cross. */
static tt_status rules__terrain_index(rules_scenario *sc, tt_err *err)
{
    sc->deep = calloc(sc->npieces + 1, sizeof *sc->deep);
    sc->pbox = calloc(sc->npieces + 1, sizeof *sc->pbox);
    if (!sc->deep || !sc->pbox)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < sc->npieces; i++) {
        if ((sc->pieces[i].p.blocks_los || sc->pieces[i].p.nhides_behind) && rules_props_deep(&sc->pieces[i].p))
            sc->deep[sc->ndeep++] = (int)i;
        sc->pbox[i].lo = sc->pieces[i].lo;
        sc->pbox[i].hi = sc->pieces[i].hi;
        sc->pbox[i].shields_blast = sc->pieces[i].p.shields_blast;
    }
    sc->grid = rules_grid_create(sc);
    if (!sc->grid)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory for the terrain grid");
    return rules__crossings(sc, err);
}

static tt_status rules__scenario_build(const json_t *root, const char *text, const char *where, const char *base_dir,
                                      const char *const *data_dirs, rules_scenario **out, tt_err *err)
{
    rules_scenario *sc = NULL;
    tt_status st;
    *out = NULL;
    if (!json_is_object(root))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: a scenario must be a JSON object", where);
    if ((st = rules_keys_check_scenario(root, text, where, err)))
        return st;
    if (!(sc = calloc(1, sizeof *sc)))
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if ((st = rules__load_profile(sc, root, where, base_dir, data_dirs, err)) ||
        (st = rules__options_parse(sc, json_object_get(root, "options"), where, err)) ||
        (st = rules__table_parse(sc, root, where, err)) || (st = rules__terrain_parse(sc, root, where, err)) ||
        (st = rules__figures_parse(sc, root, where, err)) || (st = rules__tags_parse(sc, root, where, err)) ||
        (st = rules__terrain_index(sc, err))) {
        rules_scenario_destroy(sc);
        return st;
    }
    *out = sc;
    return TT_OK;
}

tt_status rules_scenario_load(const char *path, const char *const *data_dirs, rules_scenario **out, tt_err *err)
{
    json_t *root = NULL;
    char dir[4096];
    tt_status st;
    *out = NULL;
    char *text = NULL;
    if ((st = tt_json_load_file_text(path, &root, &text, err)))
        return st;
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    st = rules__scenario_build(root, text, path, dir, data_dirs, out, err);
    json_decref(root);
    free(text);
    return st;
}

tt_status rules_scenario_parse(const char *text, const char *where, const char *base_dir,
                               const char *const *data_dirs, rules_scenario **out, tt_err *err)
{
    json_t *root = NULL;
    tt_status st;
    *out = NULL;
    if ((st = tt_json_parse(text, where, &root, err)))
        return st;
    st = rules__scenario_build(root, text, where, base_dir, data_dirs, out, err);
    json_decref(root);
    return st;
}

void rules_scenario_destroy(rules_scenario *sc)
{
    if (!sc)
        return;
    rules_grid_destroy(sc->grid);
    for (size_t i = 0; i < sc->npieces; i++) {
        free(sc->pieces[i].id);
        free(sc->pieces[i].v);
        free(sc->pieces[i].vin);
        free(sc->pieces[i].top);
    }
    for (size_t i = 0; i < sc->nfigs; i++) {
        rules_figure *f = &sc->figs[i];
        free(f->id);
        free(f->side);
        free(f->unit);
        free(f->type);
        free(f->inside);
    }
    free(sc->pieces);
    free(sc->piece_mark);
    free(sc->deep);
    free(sc->xing);
    free(sc->xing_pc);
    free(sc->pbox);
    free(sc->piece_cand);
    free(sc->skirm);
    free(sc->fg_start);
    free(sc->fg_idx);
    free(sc->fg_cand);
    free(sc->fg_copy);
    free(sc->figs);
    free(sc->probe_inside);
    free(sc->tags);
    rules_profile_destroy(sc->prof);
    free(sc);
}

int rules_scenario_find(const rules_scenario *sc, const char *id)
{
    for (size_t i = 0; i < sc->nfigs; i++)
        if (!strcmp(sc->figs[i].id, id))
            return (int)i;
    return -1;
}

tt_status rules_scenario_figure(const rules_scenario *sc, const char *id, const char *role, int *out, tt_err *err)
{
    *out = -1;
    if (!id)
        return tt_err_set(err, TT_ERR_ARG, "missing \"%s\" (a figure id)", role);
    *out = rules_scenario_find(sc, id);
    int m;
    if (*out < 0 && (m = rules_scenario_unit_member(sc, id)) >= 0)
        return tt_err_set(err, TT_ERR_ARG,
                          "\"%s\" in \"%s\" is a unit, and this query takes one figure: name one of its figures "
                          "(e.g. \"%s\")",
                          id, role, sc->figs[m].id);
    if (*out < 0)
        return tt_err_set(err, TT_ERR_UNKNOWN, "unknown figure \"%s\" in \"%s\": it is not in the scenario", id,
                          role);
    return TT_OK;
}

int rules_scenario_unit_member(const rules_scenario *sc, const char *unit)
{
    for (size_t k = 0; k < sc->nfigs; k++)
        if (!strcmp(sc->figs[k].unit, unit))
            return (int)k;
    return -1;
}

/* Figure distance under the ruleset's measuring convention, inches. */
double rules_figure_distance(const rules_scenario *sc, const rules_figure *a, const rules_figure *b)
{
    if (sc->prof->centre_measure)
        return rules_in(1) * hypot((double)(a->shape.c.x - b->shape.c.x), (double)(a->shape.c.y - b->shape.c.y));
    return rules_in(1) * rules_geom_shape_shape_dist(&a->shape, &b->shape);
}

int rules_figure_within(const rules_scenario *sc, const rules_figure *a, const rules_figure *b, int64_t R)
{
    if (sc->prof->centre_measure)
        return rules_len2(rules_sub(a->shape.c, b->shape.c)) <= (rules_i128)R * R;
    return rules_geom_shape_shape_within(&a->shape, &b->shape, R);
}

size_t rules_scenario_figure_count(const rules_scenario *sc) { return sc ? sc->nfigs : 0; }

size_t rules_scenario_piece_count(const rules_scenario *sc) { return sc ? sc->npieces : 0; }

int rules_scenario_raised_piece(const rules_scenario *sc, size_t i, const char **id, double *height_in,
                                const double **xy, int *n)
{
    if (!sc || i >= sc->npieces)
        return 0;
    const rules_piece *pc = &sc->pieces[i];
    if (!pc->closed || !pc->p.raises || !(pc->p.height_in > 0))
        return 0;
    if (id)
        *id = pc->id;
    if (height_in)
        *height_in = pc->p.height_in;
    if (xy)
        *xy = pc->vin;
    if (n)
        *n = pc->n;
    return 1;
}

const char *rules_scenario_figure_id(const rules_scenario *sc, size_t i)
{
    return sc && i < sc->nfigs ? sc->figs[i].id : NULL;
}

const char *rules_scenario_tag_figure(const rules_scenario *sc, int tag_id)
{
    for (size_t i = 0; sc && i < sc->ntags; i++)
        if (sc->tags[i].tag == tag_id)
            return sc->figs[sc->tags[i].fig].id;
    return NULL;
}

const char *rules_scenario_ruleset(const rules_scenario *sc) { return sc ? sc->prof->name : NULL; }

tt_status rules_scenario_place(rules_scenario *sc, const char *id, double x, double y, double facing_deg,
                               tt_err *err)
{
    int i = -1;
    tt_status st;
    if ((st = rules_scenario_figure(sc, id, "id", &i, err)))
        return st;
    rules_figure *f = &sc->figs[i], old = *f;
    f->x = x;
    f->y = y;
    f->facing_deg = facing_deg;
    f->inside = NULL;
    f->ninside = 0;
    if ((st = rules_figure_setup(sc, f, err))) {
        free(f->inside);
        *f = old;
        return st;
    }
    free(old.inside);
    sc->fg_dirty = 1;
    return TT_OK;
}
