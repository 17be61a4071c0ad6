/* rec_log.c - the referee's events of a recording (schema 5, table
 * referee) read back, and told turn by turn: where each phase began (the
 * replay's timeline) and one line a turn, e.g.
 *   Turn 2 · red moved 6 figures, f12 0.8" over; blue lost 3 of u4: morale 6+ (L8-10)
 * for the replay page, the hall's stream page and anyone reading a copy. */
#include "rec_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rec__refs_free(rec__ref *refs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        json_decref(refs[i].ev), json_decref(refs[i].look), json_decref(refs[i].corner), free(refs[i].kept);
    free(refs);
}

/* The session's referee rows with t_ms <= t1 into *refs (a file older than
 * schema 5 has none). */
static tt_status rec__read_refs(sqlite3 *db, const char *path, long long session, long long t1, rec__ref **refs,
                                size_t *n, tt_err *err)
{
    *refs = NULL;
    *n = 0;
    if (!rec__has_table(db, "referee"))
        return TT_OK;
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    tt_status s = TT_OK;
    if (sqlite3_prepare_v2(db, "SELECT frame, t_ms, event_json FROM referee WHERE session = ? AND t_ms <= ? "
                               "ORDER BY t_ms, id", -1, &st, NULL) != SQLITE_OK)
        return rec__db_err(db, err, path, "reading the referee's events");
    sqlite3_bind_int64(st, 1, session);
    sqlite3_bind_int64(st, 2, t1);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 2);
        json_t *ev = text ? json_loads(text, 0, NULL) : NULL;
        if (!json_is_object(ev)) { /* validated when recorded; a damaged row is left out */
            json_decref(ev);
            continue;
        }
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            rec__ref *nr = realloc(*refs, cap * sizeof *nr);
            if (!nr) {
                json_decref(ev);
                s = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
                break;
            }
            *refs = nr;
        }
        rec__ref *r = &(*refs)[(*n)++];
        r->frame = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : (long)sqlite3_column_int64(st, 0);
        r->t_ms = sqlite3_column_int64(st, 1);
        r->ev = ev;
        r->look = r->corner = NULL;
        r->batch_end = 0;
        r->kept = NULL;
        r->nkept = 0;
        r->phase_at = -1;
    }
    if (s == TT_OK && rc != SQLITE_DONE)
        s = rec__db_err(db, err, path, "reading the referee's events");
    sqlite3_finalize(st);
    if (s != TT_OK) {
        rec__refs_free(*refs, *n);
        *refs = NULL;
        *n = 0;
    }
    return s;
}

tt_status rec__load_referee(rec_game *g, sqlite3 *db, const char *path, tt_err *err)
{
    return rec__read_refs(db, path, g->session, g->t1, &g->refs, &g->nrefs, err);
}

/* ---- the story ---- */

/* A figure's side or unit in the scenario ("" when unknown). */
static const char *rec__fig_field(const json_t *sc, const char *id, const char *field)
{
    size_t i;
    const json_t *f;
    json_array_foreach(json_object_get(sc, "figures"), i, f) {
        const char *fid = json_string_value(json_object_get(f, "id"));
        if (id && fid && !strcmp(fid, id)) {
            const char *v = json_string_value(json_object_get(f, field));
            return v ? v : "";
        }
    }
    return "";
}

/* The side of a unit: that of its first figure. */
static const char *rec__unit_side(const json_t *sc, const char *unit)
{
    size_t i;
    const json_t *f;
    json_array_foreach(json_object_get(sc, "figures"), i, f) {
        const char *u = json_string_value(json_object_get(f, "unit"));
        if (unit && u && !strcmp(u, unit)) {
            const char *v = json_string_value(json_object_get(f, "side"));
            return v ? v : "";
        }
    }
    return "";
}

/* "L8-16" out of a rule such as "into-the-breach.txt L8-16: ..." into buf ("" if none). */
static void rec__rule_lines(const char *rule, char *buf, size_t n)
{
    buf[0] = '\0';
    for (const char *p = rule; p && *p; p++)
        if (*p == 'L' && isdigit((unsigned char)p[1]) && (p == rule || !isalnum((unsigned char)p[-1]))) {
            size_t k = 1;
            while (isdigit((unsigned char)p[k]) || (p[k] == '-' && isdigit((unsigned char)p[k + 1])) ||
                   (p[k] == ',' && isdigit((unsigned char)p[k + 1])))
                k++;
            snprintf(buf, n, "%.*s", (int)(k < n ? k : n - 1), p);
            return;
        }
}

/* What one turn gathered: per figure its flag in the current step (a
 * phase or activation) and the turn's, per unit its losses and calls.
 * Objects keyed by name keep their order of first appearance. */
typedef struct rec__turn {
    int turn;
    long long t;
    json_t *step;   /* figure -> {"moved":1, "flag":"..."} this step */
    json_t *moved;  /* figure -> its flags this turn (an array of strings) */
    json_t *units;  /* unit -> {"lost":n, "of":m, "calls":[...]} */
} rec__turn;

/* The step's checks join the turn's: a figure put back is no move. */
static void rec__step_flush(rec__turn *tu)
{
    const char *id;
    json_t *v;
    json_object_foreach(tu->step, id, v) {
        if (!json_is_true(json_object_get(v, "moved")))
            continue;
        json_t *flags = json_object_get(tu->moved, id); /* the figure's flags this turn, in order */
        const json_t *flag = json_object_get(v, "flag");
        if (!flags && (flags = json_array()))
            json_object_set_new(tu->moved, id, flags);
        if (flags && json_is_string(flag))
            json_array_append(flags, (json_t *)flag);
    }
    json_object_clear(tu->step);
}

/* A check of figure id: its flag ("0.8\" over", "out of turn", ...) or none. */
static void rec__check(rec__turn *tu, const json_t *ev, const char *kind)
{
    const char *id = json_string_value(json_object_get(ev, "id"));
    if (!id)
        return;
    char flag[96] = "";
    const json_t *ok = json_object_get(ev, "ok");
    /* over by what the best roll allows where dice decide (allowed_in null) */
    const json_t *al = json_object_get(ev, "allowed_in"), *range = json_object_get(ev, "allowed_range_in");
    double d = json_number_value(json_object_get(ev, "distance_in"));
    double a = json_is_number(al) ? json_number_value(al) : json_array_size(range) == 2 ?
                                    json_number_value(json_array_get(range, 1)) : NAN;
    int tcc = json_is_true(json_object_get(ev, "too_close_to_call"));
    if (!strcmp(kind, "out_of_turn"))
        snprintf(flag, sizeof flag, "%s out of turn", id);
    else if (json_is_false(ok) && isfinite(d - a))
        snprintf(flag, sizeof flag, "%s %s%.1f\" %s%s", id, strcmp(kind, "charge_check") ? "" : "charge ",
                 fmax(d - a, 0.05), strcmp(kind, "charge_check") ? "over" : "out of reach",
                 tcc ? " (too close to call)" : "");
    else if (json_is_null(ok) && json_is_integer(json_object_get(ev, "needs_roll")))
        snprintf(flag, sizeof flag, "%s needs %lld+", id, (long long)json_integer_value(json_object_get(ev, "needs_roll")));
    else if (tcc)
        snprintf(flag, sizeof flag, "%s too close to call", id);
    json_t *o = json_is_true(json_object_get(ev, "put_back")) ? json_pack("{s:b}", "moved", 0)
                : flag[0]                                    ? json_pack("{s:b, s:s}", "moved", 1, "flag", flag)
                                                             : json_pack("{s:b}", "moved", 1);
    if (o)
        json_object_set_new(tu->step, id, o);
}

/* A unit's record in the turn, made when new. */
static json_t *rec__unit(rec__turn *tu, const char *unit)
{
    json_t *u = json_object_get(tu->units, unit);
    if (!u && (u = json_pack("{s:i, s:i, s:[]}", "lost", 0, "of", 0, "calls")))
        json_object_set_new(tu->units, unit, u);
    return u;
}

/* "morale 6+ (L8-10)", "motivation 5+ → disorientated (L246-248)". */
static json_t *rec__call_text(const json_t *ev)
{
    const char *call = json_string_value(json_object_get(ev, "call"));
    const json_t *test = json_object_get(ev, "test");
    const char *result = json_string_value(json_object_get(ev, "result"));
    char needs[48] = "", lines[48];
    rec__rule_lines(json_string_value(json_object_get(ev, "rule")), lines, sizeof lines);
    if (json_is_integer(json_object_get(test, "needs")))
        snprintf(needs, sizeof needs, " %lld+", (long long)json_integer_value(json_object_get(test, "needs")));
    else if (json_is_object(test))
        snprintf(needs, sizeof needs, " (%s, by rating)", json_string_value(json_object_get(test, "dice")) ?
                                                              json_string_value(json_object_get(test, "dice")) : "dice");
    return json_sprintf("%s%s%s%s%s%s%s", call ? call : "morale", needs, result ? " \xe2\x86\x92 " : "", result ? result : "",
                        lines[0] ? " (" : "", lines, lines[0] ? ")" : "");
}

/* Append "; " then s to buf. */
static void rec__part(char *buf, size_t n, const char *s)
{
    size_t l = strlen(buf);
    if (l + 3 < n)
        snprintf(buf + l, n - l, "%s%s", l ? "; " : "", s);
}

/* The turn's line: by side, what moved and what was flagged, then what
 * each unit lost and the calls it gets. */
static json_t *rec__turn_line(rec__turn *tu, const json_t *sc)
{
    rec__step_flush(tu);
    char text[4096] = "", part[2048];
    json_t *sides = json_object(); /* side -> [moved count, flags...] in order of appearance */
    const char *id, *unit;
    json_t *v;
    json_object_foreach(tu->moved, id, v) {
        const char *side = rec__fig_field(sc, id, "side");
        json_t *s = json_object_get(sides, side);
        if (!s && (s = json_pack("[i]", 0)))
            json_object_set_new(sides, side, s);
        if (!s)
            continue;
        json_array_set_new(s, 0, json_integer(json_integer_value(json_array_get(s, 0)) + 1));
        json_array_extend(s, v);
    }
    const char *side;
    json_object_foreach(sides, side, v) {
        long long nm = json_integer_value(json_array_get(v, 0));
        size_t l = (size_t)snprintf(part, sizeof part, "%s%smoved %lld figure%s", side, *side ? " " : "", nm,
                                    nm == 1 ? "" : "s");
        for (size_t k = 1; k < json_array_size(v) && l < sizeof part; k++)
            l += (size_t)snprintf(part + l, sizeof part - l, ", %s", json_string_value(json_array_get(v, k)));
        rec__part(text, sizeof text, part);
    }
    json_decref(sides);
    json_object_foreach(tu->units, unit, v) {
        const char *us = rec__unit_side(sc, unit);
        long long lost = json_integer_value(json_object_get(v, "lost"));
        size_t l = lost ? (size_t)snprintf(part, sizeof part, "%s%slost %lld of %s", us, *us ? " " : "", lost, unit)
                        : (size_t)snprintf(part, sizeof part, "%s", unit);
        const json_t *calls = json_object_get(v, "calls");
        for (size_t k = 0; k < json_array_size(calls) && l < sizeof part; k++)
            l += (size_t)snprintf(part + l, sizeof part - l, "%s%s", k ? ", " : ": ",
                                  json_string_value(json_array_get(calls, k)));
        rec__part(text, sizeof text, part);
    }
    char line[4200];
    snprintf(line, sizeof line, "Turn %d \xc2\xb7 %s", tu->turn, text[0] ? text : "nothing moved");
    return json_pack("{s:i, s:I, s:s}", "turn", tu->turn, "t", (json_int_t)tu->t, "text", line);
}

static void rec__turn_reset(rec__turn *tu)
{
    json_object_clear(tu->step);
    json_object_clear(tu->moved);
    json_object_clear(tu->units);
}

json_t *rec__referee_story(const rec__ref *refs, size_t n, const json_t *sc)
{
    json_t *phases = json_array(), *log = json_array();
    rec__turn tu = {0, 0, json_object(), json_object(), json_object()};
    json_t *out = NULL;
    if (!phases || !log || !tu.step || !tu.moved || !tu.units)
        goto done;
    for (size_t i = 0; i <= n; i++) {
        const json_t *ev = i < n ? refs[i].ev : NULL;
        const char *kind = ev ? json_string_value(json_object_get(ev, "event")) : NULL;
        int is_phase = kind && !strcmp(kind, "phase");
        int turn = is_phase ? (int)json_integer_value(json_object_get(ev, "turn")) : tu.turn;
        if (tu.turn > 0 && (i == n || turn != tu.turn)) { /* the turn ends: its line */
            json_t *line = rec__turn_line(&tu, sc);
            if (!line || json_array_append_new(log, line))
                goto done;
            rec__turn_reset(&tu);
        }
        if (i == n)
            break;
        if (is_phase) {
            rec__step_flush(&tu);
            if (turn != tu.turn)
                tu.turn = turn, tu.t = refs[i].t_ms;
            json_t *p = json_pack("{s:I, s:i, s:O, s:O}", "t", (json_int_t)refs[i].t_ms, "turn", turn, "phase",
                                  json_object_get(ev, "phase"), "side",
                                  json_object_get(ev, "side") ? json_object_get(ev, "side") : json_null());
            if (!p || json_array_append_new(phases, p))
                goto done;
        } else if (tu.turn <= 0) {
            continue; /* before any phase the referee calls nothing */
        } else if (!strcmp(kind, "move_check") || !strcmp(kind, "charge_check") || !strcmp(kind, "out_of_turn")) {
            rec__check(&tu, ev, kind);
        } else if (!strcmp(kind, "casualties") || !strcmp(kind, "morale")) {
            const char *unit = json_string_value(json_object_get(ev, "unit"));
            json_t *u = unit ? rec__unit(&tu, unit) : NULL;
            if (u && !strcmp(kind, "casualties")) {
                json_object_set_new(u, "lost", json_integer(json_integer_value(json_object_get(u, "lost")) +
                                                            json_integer_value(json_object_get(ev, "lost"))));
            } else if (u) {
                json_t *c = rec__call_text(ev);
                if (!c || json_array_append_new(json_object_get(u, "calls"), c))
                    goto done;
            }
        }
    }
    out = json_pack("{s:O, s:O}", "phases", phases, "log", log);
done:
    json_decref(phases);
    json_decref(log);
    json_decref(tu.step);
    json_decref(tu.moved);
    json_decref(tu.units);
    return out;
}

/* The scenario in force at the end: the last change's, or the session's. */
static const json_t *rec__game_scenario_last(const rec_game *g, json_t **owned)
{
    *owned = NULL;
    if (g->nchanges && (*owned = json_loads(g->changes[g->nchanges - 1].scenario_json, 0, NULL)))
        return *owned;
    return g->scenario;
}

char *rec_game_referee_log(const rec_game *g)
{
    json_t *owned;
    const json_t *sc = rec__game_scenario_last(g, &owned);
    json_t *story = rec__referee_story(g->refs, g->nrefs, sc);
    char *text = story ? json_dumps(story, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(story);
    json_decref(owned);
    return text;
}

tt_status rec_referee_log(const char *path, long long session, char **json, tt_err *err)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    rec__ref *refs = NULL;
    size_t n = 0;
    json_t *sc = NULL, *story = NULL;
    *json = NULL;
    tt_status s = rec__db_open(path, REC__READ, &db, err);
    if (s != TT_OK)
        return s;
    /* the session, and the scenario in force at its end (a file before
     * schema 2 has no scenario changes) */
    const char *sql = rec__has_table(db, "scenario_change")
                          ? "SELECT s.id, coalesce((SELECT scenario_json FROM scenario_change c WHERE c.session = s.id "
                            "ORDER BY t_ms DESC, id DESC LIMIT 1), s.scenario_json) FROM session s WHERE ?1 <= 0 OR "
                            "s.id = ?1 ORDER BY s.id DESC LIMIT 1"
                          : "SELECT s.id, s.scenario_json FROM session s WHERE ?1 <= 0 OR s.id = ?1 ORDER BY s.id DESC "
                            "LIMIT 1";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        s = rec__db_err(db, err, path, "reading the session");
        goto done;
    }
    sqlite3_bind_int64(st, 1, session);
    if (sqlite3_step(st) != SQLITE_ROW) {
        s = session > 0 ? tt_err_set(err, TT_ERR_ARG, "%s has no session %lld", path, session)
                        : tt_err_set(err, TT_ERR_FORMAT, "%s holds no recorded session", path);
        goto done;
    }
    long long id = sqlite3_column_int64(st, 0);
    const char *text = (const char *)sqlite3_column_text(st, 1);
    sc = text ? json_loads(text, 0, NULL) : NULL;
    if ((s = rec__read_refs(db, path, id, INT64_MAX, &refs, &n, err)) != TT_OK)
        goto done;
    story = rec__referee_story(refs, n, sc);
    if (!story || !(*json = json_dumps(story, JSON_COMPACT | JSON_PRESERVE_ORDER)))
        s = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
done:
    sqlite3_finalize(st);
    sqlite3_close(db);
    rec__refs_free(refs, n);
    json_decref(sc);
    json_decref(story);
    return s;
}
