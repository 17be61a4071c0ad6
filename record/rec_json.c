/* rec_json.c - a session as JSON Lines, in the shapes of the tracker's
 * --events output (docs/api.md, "The replay's JSON Lines"): a session header,
 * then in time order frame lines (the figures that changed), event lines
 * and query lines, then an end line. */
#include "rec_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const rec__states[] = {"seen", "occluded", "lost"};
static const char *const rec__events[] = {"moved", "appeared", "removed", "height"};

static int rec__emit(FILE *f, json_t *o)
{
    if (!o)
        return -1;
    int rc = json_dumpf(o, f, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(7));
    json_decref(o);
    if (rc != 0 || fputc('\n', f) == EOF)
        return -1;
    return 0;
}

static json_t *rec__parsed_or_null(const char *text)
{
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    return j ? j : json_null();
}

static json_t *rec__fig_json(const rec_game *g, const rec__state *s)
{
    const rec__fig *f = &g->figs[s->fig];
    json_t *o = json_pack("{s:s, s:i, s:f, s:f, s:f, s:f, s:s}", "family", f->family, "id", f->tag, "x", s->x, "y",
                          s->y, "z_in", s->z, "facing_deg", s->facing, "state", rec__states[s->state]);
    static const char *const errs[] = {"err95_in", "z_err95_in", "facing_err95_deg"};
    for (int k = 0; o && k < 3; k++)
        if (s->e[k] > 0 && json_object_set_new(o, errs[k], json_real(s->e[k])) != 0) {
            json_decref(o);
            return NULL;
        }
    if (o && f->name && json_object_set_new(o, "name", json_string(f->name)) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Frame line for states [i, j) (all at one t_ms). */
static int rec__frame_line(FILE *f, const rec_game *g, size_t i, size_t j, int keyframe)
{
    json_t *figs = json_array();
    if (!figs)
        return -1;
    for (size_t k = i; k < j; k++)
        if (json_array_append_new(figs, rec__fig_json(g, &g->states[k])) != 0) {
            json_decref(figs);
            return -1;
        }
    json_t *o = json_pack("{s:I, s:I, s:o}", "frame", (json_int_t)g->states[j - 1].frame, "t_ms",
                          (json_int_t)g->states[i].t_ms, "figures", figs);
    if (o && keyframe)
        json_object_set_new(o, "keyframe", json_true());
    return rec__emit(f, o);
}

static int rec__event_line(FILE *f, const rec_game *g, const rec__event *e)
{
    const rec__fig *fig = &g->figs[e->fig];
    json_t *o = json_pack("{s:I, s:I, s:s, s:s, s:i}", "frame", (json_int_t)e->frame, "t_ms", (json_int_t)e->t_ms,
                          "event", rec__events[e->kind], "family", fig->family, "id", fig->tag);
    if (!o)
        return -1;
    if (fig->name)
        json_object_set_new(o, "name", json_string(fig->name));
    if (e->kind == REC_EV_HEIGHT)
        json_object_set_new(o, "z_in", json_real(e->z));
    else
        json_object_set_new(o, "from", e->has_from ? json_pack("[f,f]", e->from[0], e->from[1]) : json_null());
    json_object_set_new(o, "to", e->has_to ? json_pack("[f,f]", e->to[0], e->to[1]) : json_null());
    return rec__emit(f, o);
}

static int rec__query_line(FILE *f, const rec__query *q)
{
    return rec__emit(f, json_pack("{s:I, s:I, s:o, s:o}", "frame", (json_int_t)q->frame, "t_ms", (json_int_t)q->t_ms,
                                  "query", rec__parsed_or_null(q->query), "answer", rec__parsed_or_null(q->answer)));
}

static int rec__change_line(FILE *f, const rec__scene_change *c)
{
    return rec__emit(f, json_pack("{s:o, s:I, s:o}", "frame", c->frame >= 0 ? json_integer(c->frame) : json_null(),
                                  "t_ms", (json_int_t)c->t_ms, "scenario", rec__parsed_or_null(c->scenario_json)));
}

/* A referee's line: "frame" and "t_ms", then the event as --events wrote it. */
static int rec__ref_line(FILE *f, const rec__ref *r)
{
    json_t *o = json_pack("{s:o, s:I}", "frame", r->frame >= 0 ? json_integer(r->frame) : json_null(), "t_ms",
                          (json_int_t)r->t_ms);
    if (!o || json_object_update(o, r->ev) != 0) {
        json_decref(o);
        return -1;
    }
    return rec__emit(f, o);
}

tt_status rec_game_write_json(const rec_game *g, FILE *f, tt_err *err)
{
    json_t *head = json_pack("{s:I, s:s, s:s?, s:s?, s:I, s:I, s:o, s:o}", "session", (json_int_t)g->session,
                             "started_utc", g->started_utc, "ended_utc", g->ended_cleanly ? g->ended_utc : NULL,
                             "source", g->source, "from_ms", (json_int_t)g->t0, "to_ms", (json_int_t)g->t1, "rig",
                             rec__parsed_or_null(g->rig_json), "scenario", rec__parsed_or_null(g->scenario_json));
    if (rec__emit(f, head) != 0)
        goto fail;
    size_t i = 0, e = 0, q = 0, c = 0, r = 0;
    int first = 1;
    while (r < g->nrefs && g->refs[r].t_ms < g->t0) /* those before the range: in the page's story only */
        r++;
    /* scenario changes: those before the range first (the scenario in force) */
    while (i < g->nstates || e < g->nevents || q < g->nqueries || c < g->nchanges || r < g->nrefs) {
        long long tr = r < g->nrefs ? g->refs[r].t_ms : INT64_MAX;
        long long ts = i < g->nstates ? g->states[i].t_ms : INT64_MAX;
        long long te = e < g->nevents ? g->events[e].t_ms : INT64_MAX;
        long long tq = q < g->nqueries ? g->queries[q].t_ms : INT64_MAX;
        long long tc = c < g->nchanges ? g->changes[c].t_ms : INT64_MAX;
        /* the referee's lines after the frame and events they come from */
        if (tr < ts && tr < te && tr < tq && tr < tc) {
            if (rec__ref_line(f, &g->refs[r++]) != 0)
                goto fail;
        } else if (tc <= ts && tc <= te && tc <= tq) {
            if (rec__change_line(f, &g->changes[c++]) != 0)
                goto fail;
        } else if (ts <= te && ts <= tq) {
            size_t j = i + 1;
            while (j < g->nstates && g->states[j].t_ms == ts)
                j++;
            if (rec__frame_line(f, g, i, j, first && g->t0 > g->rec_t0) != 0)
                goto fail;
            first = 0;
            i = j;
        } else if (te <= tq) {
            if (rec__event_line(f, g, &g->events[e++]) != 0)
                goto fail;
        } else if (tq < INT64_MAX) {
            if (rec__query_line(f, &g->queries[q++]) != 0)
                goto fail;
        } else if (rec__ref_line(f, &g->refs[r++]) != 0) {
            goto fail;
        }
    }
    json_t *end = json_pack("{s:b, s:I, s:b}", "end", 1, "t_ms", (json_int_t)g->t1, "ended_cleanly", g->ended_cleanly);
    if (end && !g->ended_cleanly && g->last_frame >= 0 &&
        json_object_set_new(end, "truncated_at_frame", json_integer(g->last_frame)) != 0) {
        json_decref(end);
        end = NULL;
    }
    if (rec__emit(f, end) != 0 ||
        fflush(f) != 0)
        goto fail;
    return TT_OK;
fail:
    return tt_err_set(err, TT_ERR_IO, "cannot write the JSON Lines output (disk full or pipe closed?)");
}
