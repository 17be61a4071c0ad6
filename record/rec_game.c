/* rec_game.c - one recorded session read into memory for the replays:
 * figures with their names and sides, state changes in time order, events,
 * queries (with their look's primitives), and the scenario's table and
 * terrain. */
#include "rec_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tt_json.h"

/* Per-figure state index lists, kept beside the game (same lifetime). */
typedef struct rec__figindex {
    long *idx;
    size_t n;
} rec__figindex;

/* What the loader keeps beside the public part: rec_game comes first, so a
 * rec_game pointer is a rec__game_full pointer. */
typedef struct rec__game_full {
    struct rec_game g;
    rec__figindex *byfig;
} rec__game_full;

static const char *const rec__palette[] = {"#c0392b", "#2e6fd8", "#e6a817", "#27ae60",
                                           "#8e44ad", "#16a085", "#d35400", "#7f8c8d"};

const char *rec__terrain_colour(const char *kind)
{
    static const struct {
        const char *kind, *colour;
    } k[] = {{"building", "#8d6e63"}, {"wall", "#5d4037"},  {"hedge", "#558b2f"},      {"woods", "#2e7d32"},
             {"hill", "#c5b58a"},     {"river", "#4f8fcf"}, {"rough", "#a1887f"},      {"breastworks", "#795548"},
             {"road", "#bdb29a"},     {"marsh", "#6f9f8f"}, {"fence", "#8a6d3b"}};
    for (size_t i = 0; kind && i < sizeof k / sizeof k[0]; i++)
        if (!strcmp(kind, k[i].kind))
            return k[i].colour;
    return "#9e9e9e";
}

long long rec_game_truncated_frame(const rec_game *g)
{
    return g->ended_cleanly ? -1 : g->last_frame;
}

long long rec_game_session(const rec_game *g)
{
    return g ? g->session : 0;
}

long long rec_game_t0(const rec_game *g)
{
    return g ? g->t0 : 0;
}

long long rec_game_t1(const rec_game *g)
{
    return g ? g->t1 : 0;
}

const long *rec__game_fig_states(const rec_game *g, int fig, size_t *n)
{
    const rec__game_full *gf = (const rec__game_full *)g;
    if (fig < 0 || (size_t)fig >= g->nfigs) {
        *n = 0;
        return NULL;
    }
    *n = gf->byfig[fig].n;
    return gf->byfig[fig].idx;
}

long rec__game_state_at(const rec_game *g, int fig, long long t)
{
    size_t n;
    const long *ix = rec__game_fig_states(g, fig, &n);
    if (!n || g->states[ix[0]].t_ms > t)
        return -1;
    size_t lo = 0, hi = n; /* states[ix[lo]].t <= t < states[ix[hi]].t */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (g->states[ix[mid]].t_ms <= t)
            lo = mid;
        else
            hi = mid;
    }
    return ix[lo];
}

static char *rec__dup(const unsigned char *s)
{
    return s ? strdup((const char *)s) : NULL;
}

static tt_status rec__oom(tt_err *err)
{
    return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
}

static int rec__side_index(rec_game *g, const char *side)
{
    if (!side)
        return -1;
    for (size_t i = 0; i < g->nsides; i++)
        if (!strcmp(g->sides[i].name, side))
            return (int)i;
    rec__side *ns = realloc(g->sides, (g->nsides + 1) * sizeof *ns);
    if (!ns)
        return -2;
    g->sides = ns;
    rec__side *s = &g->sides[g->nsides];
    s->name = strdup(side);
    if (!s->name)
        return -2;
    snprintf(s->colour, sizeof s->colour, "%s", rec__palette[g->nsides % (sizeof rec__palette / sizeof rec__palette[0])]);
    return (int)g->nsides++;
}

static const json_t *rec__scenario_figure(const rec_game *g, const char *name)
{
    size_t i;
    json_t *f;
    if (!name)
        return NULL;
    json_array_foreach(json_object_get(g->scenario, "figures"), i, f) {
        const char *id = json_string_value(json_object_get(f, "id"));
        if (id && !strcmp(id, name))
            return f;
    }
    return NULL;
}

static void rec__terrain_free(rec__terrain *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(t[i].id);
        free(t[i].kind);
        free(t[i].pts);
    }
    free(t);
}

/* The pieces of a scenario's "terrain" that have at least 2 corners. */
static tt_status rec__terrain_parse(const json_t *terr, rec__terrain **out, size_t *nout, tt_err *err)
{
    *out = NULL;
    *nout = 0;
    if (!json_array_size(terr))
        return TT_OK;
    rec__terrain *all = calloc(json_array_size(terr), sizeof *all);
    if (!all)
        return rec__oom(err);
    size_t i, n = 0;
    json_t *f;
    json_array_foreach(terr, i, f) {
        json_t *poly = json_object_get(f, "polygon");
        int closed = 1;
        if (!json_is_array(poly)) {
            poly = json_object_get(f, "line");
            closed = 0;
        }
        size_t np = json_array_size(poly);
        if (np < 2)
            continue;
        rec__terrain *tr = &all[n];
        tr->pts = malloc(np * 2 * sizeof *tr->pts);
        const char *id = json_string_value(json_object_get(f, "id"));
        const char *kind = json_string_value(json_object_get(f, "kind"));
        tr->id = strdup(id ? id : "");
        tr->kind = strdup(kind ? kind : "");
        if (!tr->pts || !tr->id || !tr->kind) {
            rec__terrain_free(all, n + 1);
            return rec__oom(err);
        }
        for (size_t k = 0; k < np; k++) {
            json_t *p = json_array_get(poly, k);
            tr->pts[2 * k] = json_number_value(json_array_get(p, 0));
            tr->pts[2 * k + 1] = json_number_value(json_array_get(p, 1));
        }
        tr->n = np;
        tr->closed = closed;
        n++;
    }
    *out = all;
    *nout = n;
    return TT_OK;
}

/* The scenario changes of the session up to t1 (a version 1 file has none). */
static tt_status rec__load_changes(rec_game *g, sqlite3 *db, const char *path, tt_err *err)
{
    if (!rec__has_table(db, "scenario_change"))
        return TT_OK;
    sqlite3_stmt *st = NULL;
    tt_status s = TT_OK;
    size_t cap = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT frame, t_ms, scenario_json FROM scenario_change WHERE session = ? AND t_ms <= ? "
                           "ORDER BY t_ms, id",
                           -1, &st, NULL) != SQLITE_OK)
        return rec__db_err(db, err, path, "reading scenario changes");
    sqlite3_bind_int64(st, 1, g->session);
    sqlite3_bind_int64(st, 2, g->t1);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (g->nchanges == cap) {
            cap = cap ? cap * 2 : 8;
            rec__scene_change *nc = realloc(g->changes, cap * sizeof *nc);
            if (!nc) {
                s = rec__oom(err);
                goto done;
            }
            g->changes = nc;
        }
        rec__scene_change *c = &g->changes[g->nchanges];
        memset(c, 0, sizeof *c);
        c->frame = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : (long)sqlite3_column_int64(st, 0);
        c->t_ms = sqlite3_column_int64(st, 1);
        c->scenario_json = rec__dup(sqlite3_column_text(st, 2));
        if (!c->scenario_json) {
            s = rec__oom(err);
            goto done;
        }
        g->nchanges++;
        json_t *sc = NULL;
        if (tt_json_parse(c->scenario_json, "scenario", &sc, NULL) != TT_OK)
            continue; /* validated when recorded; tolerate anyway */
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(sc, "figures"), i, f) {
            if (rec__side_index(g, json_string_value(json_object_get(f, "side"))) == -2) {
                json_decref(sc);
                s = rec__oom(err);
                goto done;
            }
        }
        s = rec__terrain_parse(json_object_get(sc, "terrain"), &c->terrain, &c->nterrain, err);
        json_decref(sc);
        if (s != TT_OK)
            goto done;
    }
    if (rc != SQLITE_DONE)
        s = rec__db_err(db, err, path, "reading scenario changes");
done:
    sqlite3_finalize(st);
    return s;
}

const rec__terrain *rec__game_terrain_at(const rec_game *g, long long t, size_t *n)
{
    for (size_t i = g->nchanges; i-- > 0;)
        if (g->changes[i].t_ms <= t) {
            *n = g->changes[i].nterrain;
            return g->changes[i].terrain;
        }
    *n = g->nterrain;
    return g->terrain;
}

/* Table size, terrain and sides (in scenario order) from the scenario. */
static tt_status rec__load_scenario(rec_game *g, tt_err *err)
{
    g->table_w = 72;
    g->table_d = 48;
    json_t *rig = NULL;
    if (g->rig_json && tt_json_parse(g->rig_json, "rig", &rig, NULL) == TT_OK) {
        json_t *t = json_object_get(rig, "table");
        if (json_number_value(json_object_get(t, "width_in")) > 0 && json_number_value(json_object_get(t, "depth_in")) > 0) {
            g->table_w = json_number_value(json_object_get(t, "width_in"));
            g->table_d = json_number_value(json_object_get(t, "depth_in"));
        }
    }
    json_decref(rig);
    if (g->scenario_json && tt_json_parse(g->scenario_json, "scenario", &g->scenario, NULL) != TT_OK)
        g->scenario = NULL; /* validated when recorded; tolerate anyway */
    if (!g->scenario)
        return TT_OK;
    json_t *t = json_object_get(g->scenario, "table");
    if (json_number_value(json_object_get(t, "width_in")) > 0 && json_number_value(json_object_get(t, "depth_in")) > 0) {
        g->table_w = json_number_value(json_object_get(t, "width_in"));
        g->table_d = json_number_value(json_object_get(t, "depth_in"));
    }
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(g->scenario, "figures"), i, f) {
        if (rec__side_index(g, json_string_value(json_object_get(f, "side"))) == -2)
            return rec__oom(err);
    }
    return rec__terrain_parse(json_object_get(g->scenario, "terrain"), &g->terrain, &g->nterrain, err);
}

static tt_status rec__pick_session(rec_game *g, sqlite3 *db, const char *path, long long want, tt_err *err)
{
    sqlite3_stmt *st = NULL;
    tt_status s = TT_OK;
    if (sqlite3_prepare_v2(db, "SELECT id FROM session ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return rec__db_err(db, err, path, "reading sessions");
    char list[256] = "";
    size_t used = 0;
    long long last = 0;
    int found = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long id = sqlite3_column_int64(st, 0);
        last = id;
        found |= id == want;
        if (used < sizeof list - 24)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%lld", used ? ", " : "", id);
    }
    if (rc != SQLITE_DONE)
        s = rec__db_err(db, err, path, "reading sessions");
    else if (!last)
        s = tt_err_set(err, TT_ERR_FORMAT, "%s holds no recorded session (was the tracker stopped at once?)", path);
    else if (want > 0 && !found)
        s = tt_err_set(err, TT_ERR_ARG, "%s has no session %lld (its sessions: %s)", path, want, list);
    else
        g->session = want > 0 ? want : last;
    sqlite3_finalize(st);
    return s;
}

static tt_status rec__load_session_row(rec_game *g, sqlite3 *db, const char *path, tt_err *err)
{
    sqlite3_stmt *st = NULL;
    tt_status s = TT_OK;
    if (sqlite3_prepare_v2(db, "SELECT started_utc, source, rig_json, scenario_json, last_t_ms, ended_utc, last_frame "
                               "FROM session WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return rec__db_err(db, err, path, "reading the session");
    sqlite3_bind_int64(st, 1, g->session);
    if (sqlite3_step(st) != SQLITE_ROW) {
        s = rec__db_err(db, err, path, "reading the session");
        goto done;
    }
    snprintf(g->started_utc, sizeof g->started_utc, "%s",
             sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
    g->source = rec__dup(sqlite3_column_text(st, 1));
    g->rig_json = rec__dup(sqlite3_column_text(st, 2));
    g->scenario_json = rec__dup(sqlite3_column_text(st, 3));
    g->rec_t1 = sqlite3_column_int64(st, 4);
    g->ended_cleanly = sqlite3_column_type(st, 5) != SQLITE_NULL;
    g->last_frame = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 6);
    snprintf(g->ended_utc, sizeof g->ended_utc, "%s",
             g->ended_cleanly ? (const char *)sqlite3_column_text(st, 5) : "");
done:
    sqlite3_finalize(st);
    return s;
}

/* Figures: row ids in ascending order in rowids[] (for lookup). */
static tt_status rec__load_figures(rec_game *g, sqlite3 *db, const char *path, long long **rowids, tt_err *err)
{
    sqlite3_stmt *st = NULL;
    tt_status s = TT_OK;
    size_t cap = 0;
    *rowids = NULL;
    if (sqlite3_prepare_v2(db, "SELECT id, family, tag, name, side FROM figure WHERE session = ? ORDER BY id", -1, &st,
                           NULL) != SQLITE_OK)
        return rec__db_err(db, err, path, "reading figures");
    sqlite3_bind_int64(st, 1, g->session);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (g->nfigs == cap) {
            cap = cap ? cap * 2 : 64;
            rec__fig *nf = realloc(g->figs, cap * sizeof *nf);
            long long *nr = realloc(*rowids, cap * sizeof *nr);
            if (nf)
                g->figs = nf;
            if (nr)
                *rowids = nr;
            if (!nf || !nr) {
                s = rec__oom(err);
                goto done;
            }
        }
        rec__fig *f = &g->figs[g->nfigs];
        memset(f, 0, sizeof *f);
        (*rowids)[g->nfigs] = sqlite3_column_int64(st, 0);
        snprintf(f->family, sizeof f->family, "%s",
                 sqlite3_column_text(st, 1) ? (const char *)sqlite3_column_text(st, 1) : "");
        f->tag = sqlite3_column_int(st, 2);
        f->name = rec__dup(sqlite3_column_text(st, 3));
        g->nfigs++;
        const char *side = (const char *)sqlite3_column_text(st, 4);
        const json_t *sf = rec__scenario_figure(g, f->name);
        if (!side && sf)
            side = json_string_value(json_object_get(sf, "side"));
        f->side = rec__side_index(g, side);
        if (f->side == -2 || (sqlite3_column_text(st, 3) && !f->name)) {
            s = rec__oom(err);
            goto done;
        }
        f->radius = 0.5;
        if (sf) {
            const json_t *base = json_object_get(sf, "base");
            double d = json_number_value(json_object_get(base, "round_in"));
            const json_t *rect = json_object_get(base, "rect_in");
            if (d > 0)
                f->radius = d / 2;
            else if (json_array_size(rect) == 2)
                f->radius = fmax(json_number_value(json_array_get(rect, 0)), json_number_value(json_array_get(rect, 1))) / 2;
            f->sc_x = json_number_value(json_object_get(sf, "x"));
            f->sc_y = json_number_value(json_object_get(sf, "y"));
            f->sc_facing = json_number_value(json_object_get(sf, "facing_deg"));
            f->has_sc = 1;
        }
    }
    if (rc != SQLITE_DONE)
        s = rec__db_err(db, err, path, "reading figures");
done:
    sqlite3_finalize(st);
    return s;
}

static int rec__fig_of_row(const long long *rowids, size_t n, long long row)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rowids[mid] < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && rowids[lo] == row ? (int)lo : -1;
}

static int rec__state_code(const unsigned char *s)
{
    if (!s)
        return REC_LOST;
    if (!strcmp((const char *)s, "seen"))
        return REC_SEEN;
    if (!strcmp((const char *)s, "occluded"))
        return REC_OCCLUDED;
    return REC_LOST;
}

static tt_status rec__load_states(rec_game *g, sqlite3 *db, const char *path, const long long *rowids,
                                  long long to_ms, tt_err *err)
{
    sqlite3_stmt *st = NULL;
    tt_status s = TT_OK;
    size_t cap = 0;
    /* recordings before schema 3 have no z_in: every figure on the felt;
     * before 4 no errors: not known */
    if (sqlite3_prepare_v2(db,
                           "SELECT figure, frame, t_ms, x, y, facing_deg, state, z_in, err95_in, z_err95_in, "
                           "facing_err95_deg FROM state "
                           "WHERE figure IN (SELECT id FROM figure WHERE session = ?1) AND t_ms <= ?2 ORDER BY rowid",
                           -1, &st, NULL) != SQLITE_OK &&
        sqlite3_prepare_v2(db,
                           "SELECT figure, frame, t_ms, x, y, facing_deg, state, z_in, NULL, NULL, NULL FROM state "
                           "WHERE figure IN (SELECT id FROM figure WHERE session = ?1) AND t_ms <= ?2 ORDER BY rowid",
                           -1, &st, NULL) != SQLITE_OK &&
        sqlite3_prepare_v2(db,
                           "SELECT figure, frame, t_ms, x, y, facing_deg, state, NULL, NULL, NULL, NULL FROM state "
                           "WHERE figure IN (SELECT id FROM figure WHERE session = ?1) AND t_ms <= ?2 ORDER BY rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return rec__db_err(db, err, path, "reading figure states");
    sqlite3_bind_int64(st, 1, g->session);
    sqlite3_bind_int64(st, 2, to_ms);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (g->nstates == cap) {
            cap = cap ? cap * 2 : 4096;
            rec__state *ns = realloc(g->states, cap * sizeof *ns);
            if (!ns) {
                s = rec__oom(err);
                goto done;
            }
            g->states = ns;
        }
        int fig = rec__fig_of_row(rowids, g->nfigs, sqlite3_column_int64(st, 0));
        if (fig < 0)
            continue;
        rec__state *x = &g->states[g->nstates++];
        x->fig = fig;
        x->frame = (long)sqlite3_column_int64(st, 1);
        x->t_ms = sqlite3_column_int64(st, 2);
        x->x = sqlite3_column_double(st, 3);
        x->y = sqlite3_column_double(st, 4);
        x->facing = sqlite3_column_double(st, 5);
        x->state = rec__state_code(sqlite3_column_text(st, 6));
        x->z = sqlite3_column_double(st, 7); /* NULL: 0 */
        if (!isfinite(x->z))
            x->z = 0;
        for (int k = 0; k < 3; k++) { /* NULL: 0, not known */
            x->e[k] = sqlite3_column_double(st, 8 + k);
            if (!isfinite(x->e[k]) || x->e[k] < 0)
                x->e[k] = 0;
        }
    }
    if (rc != SQLITE_DONE)
        s = rec__db_err(db, err, path, "reading figure states");
done:
    sqlite3_finalize(st);
    return s;
}

static tt_status rec__load_events(rec_game *g, sqlite3 *db, const char *path, const long long *rowids, tt_err *err)
{
    sqlite3_stmt *st = NULL;
    tt_status s = TT_OK;
    size_t cap = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT frame, t_ms, kind, figure, from_x, from_y, to_x, to_y, z_in FROM event "
                           "WHERE session = ? AND t_ms BETWEEN ? AND ? ORDER BY t_ms, id",
                           -1, &st, NULL) != SQLITE_OK &&
        sqlite3_prepare_v2(db,
                           "SELECT frame, t_ms, kind, figure, from_x, from_y, to_x, to_y, NULL FROM event "
                           "WHERE session = ? AND t_ms BETWEEN ? AND ? ORDER BY t_ms, id",
                           -1, &st, NULL) != SQLITE_OK)
        return rec__db_err(db, err, path, "reading events");
    sqlite3_bind_int64(st, 1, g->session);
    sqlite3_bind_int64(st, 2, g->t0);
    sqlite3_bind_int64(st, 3, g->t1);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (g->nevents == cap) {
            cap = cap ? cap * 2 : 256;
            rec__event *ne = realloc(g->events, cap * sizeof *ne);
            if (!ne) {
                s = rec__oom(err);
                goto done;
            }
            g->events = ne;
        }
        int fig = rec__fig_of_row(rowids, g->nfigs, sqlite3_column_int64(st, 3));
        if (fig < 0)
            continue;
        rec__event *e = &g->events[g->nevents++];
        memset(e, 0, sizeof *e);
        e->frame = (long)sqlite3_column_int64(st, 0);
        e->t_ms = sqlite3_column_int64(st, 1);
        const char *k = (const char *)sqlite3_column_text(st, 2);
        e->kind = k && !strcmp(k, "appeared")  ? REC_EV_APPEARED
                  : k && !strcmp(k, "removed") ? REC_EV_REMOVED
                  : k && !strcmp(k, "height")  ? REC_EV_HEIGHT
                                               : REC_EV_MOVED;
        e->z = sqlite3_column_double(st, 8);
        if (!isfinite(e->z))
            e->z = 0;
        e->fig = fig;
        e->has_from = sqlite3_column_type(st, 4) != SQLITE_NULL;
        e->has_to = sqlite3_column_type(st, 6) != SQLITE_NULL;
        e->from[0] = sqlite3_column_double(st, 4);
        e->from[1] = sqlite3_column_double(st, 5);
        e->to[0] = sqlite3_column_double(st, 6);
        e->to[1] = sqlite3_column_double(st, 7);
    }
    if (rc != SQLITE_DONE)
        s = rec__db_err(db, err, path, "reading events");
done:
    sqlite3_finalize(st);
    return s;
}

static tt_status rec__load_queries(rec_game *g, sqlite3 *db, const char *path, tt_err *err)
{
    sqlite3_stmt *st = NULL;
    tt_status s = TT_OK;
    size_t cap = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT frame, t_ms, query_json, answer_json FROM query "
                           "WHERE session = ? AND t_ms BETWEEN ? AND ? ORDER BY t_ms, id",
                           -1, &st, NULL) != SQLITE_OK)
        return rec__db_err(db, err, path, "reading queries");
    sqlite3_bind_int64(st, 1, g->session);
    sqlite3_bind_int64(st, 2, g->t0);
    sqlite3_bind_int64(st, 3, g->t1);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (g->nqueries == cap) {
            cap = cap ? cap * 2 : 64;
            rec__query *nq = realloc(g->queries, cap * sizeof *nq);
            if (!nq) {
                s = rec__oom(err);
                goto done;
            }
            g->queries = nq;
        }
        rec__query *q = &g->queries[g->nqueries];
        memset(q, 0, sizeof *q);
        q->frame = (long)sqlite3_column_int64(st, 0);
        q->t_ms = sqlite3_column_int64(st, 1);
        q->query = rec__dup(sqlite3_column_text(st, 2));
        q->answer = rec__dup(sqlite3_column_text(st, 3));
        g->nqueries++;
        if (!q->query || !q->answer) {
            s = rec__oom(err);
            goto done;
        }
    }
    if (rc != SQLITE_DONE)
        s = rec__db_err(db, err, path, "reading queries");
done:
    sqlite3_finalize(st);
    return s;
}

/* First and last time of anything in the session. */
static tt_status rec__time_span(rec_game *g, sqlite3 *db, const char *path, tt_err *err)
{
    sqlite3_stmt *st = NULL;
    const char *sql =
        "SELECT min(t), max(t) FROM ("
        " SELECT min(t_ms) AS t FROM state WHERE figure IN (SELECT id FROM figure WHERE session = ?1)"
        " UNION ALL SELECT max(t_ms) FROM state WHERE figure IN (SELECT id FROM figure WHERE session = ?1)"
        " UNION ALL SELECT min(t_ms) FROM event WHERE session = ?1 UNION ALL SELECT max(t_ms) FROM event WHERE session = ?1"
        " UNION ALL SELECT min(t_ms) FROM query WHERE session = ?1 UNION ALL SELECT max(t_ms) FROM query WHERE session = ?1"
        " UNION ALL SELECT last_t_ms FROM session WHERE id = ?1)";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return rec__db_err(db, err, path, "reading the time span");
    sqlite3_bind_int64(st, 1, g->session);
    if (sqlite3_step(st) != SQLITE_ROW) {
        tt_status s = rec__db_err(db, err, path, "reading the time span");
        sqlite3_finalize(st);
        return s;
    }
    g->rec_t0 = sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 0);
    g->rec_t1 = sqlite3_column_type(st, 1) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    return TT_OK;
}

/* Keep of the states up to t0 only each figure's last one, moved to t0, so
 * the replay starts with every figure in place, once. */
static void rec__trim_before(rec_game *g)
{
    if (!g->nstates || g->states[0].t_ms > g->t0)
        return;
    long *last = malloc(g->nfigs * sizeof *last);
    if (!last)
        return; /* keep everything: correct, only bigger */
    for (size_t f = 0; f < g->nfigs; f++)
        last[f] = -1;
    size_t i = 0;
    for (; i < g->nstates && g->states[i].t_ms <= g->t0; i++)
        last[g->states[i].fig] = (long)i;
    size_t w = 0;
    for (size_t k = 0; k < i; k++)
        if (last[g->states[k].fig] == (long)k) {
            g->states[w] = g->states[k];
            g->states[w].t_ms = g->t0;
            w++;
        }
    memmove(g->states + w, g->states + i, (g->nstates - i) * sizeof *g->states);
    g->nstates = w + (g->nstates - i);
    free(last);
}

static tt_status rec__index_states(rec__game_full *gf, tt_err *err)
{
    rec_game *g = &gf->g;
    if (!g->nfigs)
        return TT_OK;
    gf->byfig = calloc(g->nfigs, sizeof *gf->byfig);
    if (!gf->byfig)
        return rec__oom(err);
    for (size_t i = 0; i < g->nstates; i++)
        gf->byfig[g->states[i].fig].n++;
    for (size_t f = 0; f < g->nfigs; f++) {
        if (!gf->byfig[f].n)
            continue;
        gf->byfig[f].idx = malloc(gf->byfig[f].n * sizeof(long));
        if (!gf->byfig[f].idx)
            return rec__oom(err);
        gf->byfig[f].n = 0;
    }
    for (size_t i = 0; i < g->nstates; i++) {
        rec__figindex *x = &gf->byfig[g->states[i].fig];
        x->idx[x->n++] = (long)i;
    }
    return TT_OK;
}

static void rec__fmt_time(long long ms, char *buf, size_t n)
{
    long long s = ms / 1000;
    snprintf(buf, n, "%lld:%02lld.%03lld", s / 60, s % 60, ms % 1000);
}

tt_status rec_game_load(const char *path, long long session, long long from_ms, long long to_ms, rec_game **out,
                        tt_err *err)
{
    sqlite3 *db = NULL;
    long long *rowids = NULL;
    tt_status s;
    *out = NULL;
    rec__game_full *gf = calloc(1, sizeof *gf);
    if (!gf)
        return rec__oom(err);
    rec_game *g = &gf->g;
    if (from_ms != REC_TIME_UNSET && to_ms != REC_TIME_UNSET && from_ms >= to_ms) {
        s = tt_err_set(err, TT_ERR_ARG, "--from must come before --to");
        goto fail;
    }
    if ((s = rec__db_open(path, REC__READ, &db, err)) != TT_OK ||
        (s = rec__pick_session(g, db, path, session, err)) != TT_OK ||
        (s = rec__load_session_row(g, db, path, err)) != TT_OK || (s = rec__time_span(g, db, path, err)) != TT_OK ||
        (s = rec__load_scenario(g, err)) != TT_OK)
        goto fail;
    /* from / to count from the session's first recorded moment */
    g->t0 = from_ms == REC_TIME_UNSET ? g->rec_t0 : g->rec_t0 + from_ms;
    g->t1 = to_ms == REC_TIME_UNSET ? g->rec_t1 : g->rec_t0 + to_ms;
    if (g->t1 > g->rec_t1)
        g->t1 = g->rec_t1;
    if (from_ms != REC_TIME_UNSET && g->t0 > g->rec_t1) {
        char a[32], b[32];
        rec__fmt_time(from_ms, a, sizeof a);
        rec__fmt_time(g->rec_t1 - g->rec_t0, b, sizeof b);
        s = tt_err_set(err, TT_ERR_ARG, "--from %s is after the end of session %lld (it ends at %s)", a, g->session, b);
        goto fail;
    }
    if (g->t1 < g->t0)
        g->t1 = g->t0;
    if ((s = rec__load_figures(g, db, path, &rowids, err)) != TT_OK ||
        (s = rec__load_states(g, db, path, rowids, g->t1, err)) != TT_OK ||
        (s = rec__load_events(g, db, path, rowids, err)) != TT_OK || (s = rec__load_queries(g, db, path, err)) != TT_OK ||
        (s = rec__load_changes(g, db, path, err)) != TT_OK || (s = rec__load_referee(g, db, path, err)) != TT_OK)
        goto fail;
    rec__trim_before(g);
    if ((s = rec__index_states(gf, err)) != TT_OK)
        goto fail;
    if ((s = rec__look_build(g, err)) != TT_OK)
        goto fail;
    free(rowids);
    sqlite3_close(db);
    *out = g;
    return TT_OK;
fail:
    free(rowids);
    sqlite3_close(db);
    rec_game_destroy(g);
    return s;
}

void rec_game_destroy(rec_game *g)
{
    if (!g)
        return;
    rec__game_full *gf = (rec__game_full *)g;
    if (gf->byfig)
        for (size_t f = 0; f < g->nfigs; f++)
            free(gf->byfig[f].idx);
    free(gf->byfig);
    for (size_t i = 0; i < g->nfigs; i++)
        free(g->figs[i].name);
    free(g->figs);
    free(g->states);
    free(g->events);
    for (size_t i = 0; i < g->nqueries; i++) {
        free(g->queries[i].query);
        free(g->queries[i].answer);
        json_decref(g->queries[i].overlay);
        free(g->queries[i].note);
    }
    free(g->queries);
    rec__terrain_free(g->terrain, g->nterrain);
    for (size_t i = 0; i < g->nchanges; i++) {
        free(g->changes[i].scenario_json);
        rec__terrain_free(g->changes[i].terrain, g->changes[i].nterrain);
    }
    free(g->changes);
    rec__refs_free(g->refs, g->nrefs);
    for (size_t i = 0; i < g->nsides; i++)
        free(g->sides[i].name);
    free(g->sides);
    free(g->source);
    free(g->rig_json);
    free(g->scenario_json);
    json_decref(g->scenario);
    free(gf);
}
