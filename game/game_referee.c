/* game_referee.c - the referee in the live game (track --phases FILE): the
 * phase lines applied at their frames, the tracker's events turned into
 * the referee's (a figure settled, a figure lifted), and its events written
 * to --events, the recording and the live feed.  The referee watches its own copy of the
 * scenario (the game's answers and drawing keep theirs); a scenario a
 * viewer puts starts a new referee, the phase kept. */
#include "game_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "referee.h"
#include "rules.h"
#include "table_look.h"
#include "tt_json.h"
#include "tt_line.h"

typedef struct game__phase_line {
    int frame, turn, next;
    char *phase, *side;
    long lineno;
} game__phase_line;

struct game__referee {
    rules_scenario *sc;
    referee *ref;
    int rev;                 /* the scenario_rev it watches */
    game__phase_line *lines; /* the --phases lines, in frame order */
    size_t nlines, at;       /* lines applied so far */
    json_t *pending;         /* events of phases set by a viewer, for --events at the next frame */
    table_look_kept *kept;   /* what the felt keeps showing of its events: this phase's checks, this turn's
                              * calls (NULL until the first event) */
};

/* Keep what the referee said for the state and the felt (table_look_kept:
 * a new phase clears the checks, a new turn the calls made before it). */
static void game__referee_keep(game *g, const json_t *events)
{
    game__referee *r = g->refr;
    tt_err e = {0};
    if (!r->kept && table_look_kept_create(&r->kept, &e) != TT_OK)
        return;
    if (table_look_kept_take(r->kept, g->sc.scene, events))
        g->dirty = 1; /* the felt shows them */
}

static void game__phase_lines_free(game__referee *r)
{
    for (size_t i = 0; i < r->nlines; i++)
        free(r->lines[i].phase), free(r->lines[i].side);
    free(r->lines);
    r->lines = NULL;
    r->nlines = 0;
}

/* A referee and its scenario from the game's scenario JSON. */
static tt_status game__referee_make(game *g, rules_scenario **sc, referee **ref, tt_err *err)
{
    char dir[4096] = ".";
    tt_status st;
    *sc = NULL;
    *ref = NULL;
    if (!g->sc.root)
        return tt_err_set(err, TT_ERR_ARG, "--phases needs --scenario (the sides and the ruleset whose turns it "
                                           "follows)");
    if (g->o.scenario)
        game__dir_of(g->o.scenario, dir, sizeof dir);
    if ((st = rules_scenario_from_json(g->sc.root, g->o.scenario ? g->o.scenario : "the scenario", dir,
                                       game__data_dirs(), sc, err)) ||
        (st = referee_create(*sc, ref, err))) {
        rules_scenario_destroy(*sc);
        *sc = NULL;
        return st;
    }
    return TT_OK;
}

/* Apply line l to ref, appending its events. */
static tt_status game__phase_apply(referee *ref, const game__phase_line *l, json_t *events, tt_err *err)
{
    return l->next ? referee_next(ref, events, err) : referee_set(ref, l->turn, l->phase, l->side, events, err);
}

/* One --phases line: {"frame": N, "phase": P, "side": S, "turn": T} or
 * {"frame": N, "next": true}. */
static tt_status game__phase_parse(const json_t *j, const char *where, int prev, game__phase_line *l, tt_err *err)
{
    const char *key;
    json_t *v;
    if (!json_is_object(j))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: each line is {\"frame\": N, \"phase\": P, \"side\": S} or "
                                              "{\"frame\": N, \"next\": true}", where);
    json_object_foreach((json_t *)j, key, v)
    {
        if (strcmp(key, "frame") && strcmp(key, "phase") && strcmp(key, "side") && strcmp(key, "turn") &&
            strcmp(key, "next"))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: unknown key \"%s\" (a line has \"frame\" and either \"phase\", "
                                                  "\"side\" and an optional \"turn\", or \"next\": true)", where, key);
    }
    const json_t *fr = json_object_get(j, "frame"), *ph = json_object_get(j, "phase"), *sd = json_object_get(j, "side"),
                 *tu = json_object_get(j, "turn"), *nx = json_object_get(j, "next");
    if (!json_is_integer(fr) || json_integer_value(fr) < 0 || json_integer_value(fr) > 1000000000)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"frame\" must be the frame number (0 or more) the line applies "
                                              "from", where);
    l->frame = (int)json_integer_value(fr);
    if (l->frame < prev)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: frame %d comes after frame %d on an earlier line: list the lines "
                                              "in frame order", where, l->frame, prev);
    if (nx) {
        if (!json_is_true(nx) || ph || sd || tu)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: a \"next\" line is {\"frame\": N, \"next\": true}, alone",
                              where);
        l->next = 1;
        return TT_OK;
    }
    if (!json_is_string(ph) || (sd && !json_is_string(sd)) ||
        (tu && (!json_is_integer(tu) || json_integer_value(tu) < 1 || json_integer_value(tu) > 100000)))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: give \"phase\" (a name), \"side\" (a name) and optionally "
                                              "\"turn\" (1 or more), or \"next\": true", where);
    l->turn = tu ? (int)json_integer_value(tu) : 0;
    if (!(l->phase = strdup(json_string_value(ph))) || (sd && !(l->side = strdup(json_string_value(sd)))))
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    return TT_OK;
}

/* Read and check the --phases file: each line in frame order, and played
 * through a scratch referee, so a phase or side the book or scenario does
 * not know is refused before the game starts. */
static tt_status game__phases_read(game *g, game__referee *r, tt_err *err)
{
    tt_status st = TT_OK;
    FILE *f = fopen(g->o.phases_file, "r");
    char *line = NULL;
    size_t cap = 0, room = 0;
    long lineno = 0, n;
    if (!f)
        return tt_err_set(err, TT_ERR_IO, "cannot open phases file %s (check the path)", g->o.phases_file);
    for (;;) {
        char where[512];
        json_t *j = NULL;
        if ((st = tt_line_read(f, &line, &cap, TT_LINE_MAX, &n, g->o.phases_file, ++lineno, err)) != TT_OK || n < 0)
            break;
        if (strspn(line, " \t\r\n") == strlen(line))
            continue;
        snprintf(where, sizeof where, "%s: line %ld", g->o.phases_file, lineno);
        if ((st = tt_json_parse(line, where, &j, err)) != TT_OK)
            break;
        if (r->nlines == room) {
            size_t nr = room ? room * 2 : 16;
            game__phase_line *nl = realloc(r->lines, nr * sizeof *nl);
            if (!nl) {
                json_decref(j);
                st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
                break;
            }
            r->lines = nl;
            room = nr;
        }
        game__phase_line *l = &r->lines[r->nlines++];
        memset(l, 0, sizeof *l);
        l->lineno = lineno;
        st = game__phase_parse(j, where, r->nlines > 1 ? r->lines[r->nlines - 2].frame : 0, l, err);
        json_decref(j);
        if (st)
            break;
    }
    free(line);
    fclose(f);
    if (st)
        return st;
    /* play the lines through a scratch referee: names and order checked now */
    rules_scenario *sc = NULL;
    referee *ref = NULL;
    json_t *scratch = json_array();
    if (!scratch)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if ((st = game__referee_make(g, &sc, &ref, err)) == TT_OK)
        for (size_t i = 0; i < r->nlines && st == TT_OK; i++) {
            if ((st = game__phase_apply(ref, &r->lines[i], scratch, err)))
                tt_err_prefix(err, "%s: line %ld", g->o.phases_file, r->lines[i].lineno);
            json_array_clear(scratch);
        }
    json_decref(scratch);
    referee_destroy(ref);
    rules_scenario_destroy(sc);
    return st;
}

tt_status game__referee_open(game *g, tt_err *err)
{
    tt_status st;
    if (!g->o.phases_file)
        return TT_OK;
    game__referee *r = calloc(1, sizeof *r);
    if (!r)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    g->refr = r;
    if ((st = game__phases_read(g, r, err)) || (st = game__referee_make(g, &r->sc, &r->ref, err)))
        return st;
    r->rev = g->scenario_rev;
    return TT_OK;
}

/* The referee for a phase set by a viewer: made on first use, remade for
 * a new scenario (mu held). */
static tt_status game__referee_ensure(game *g, tt_err *err)
{
    tt_status st;
    if (!g->refr && !(g->refr = calloc(1, sizeof *g->refr)))
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    game__referee *r = g->refr;
    if (r->ref && r->rev == g->scenario_rev)
        return TT_OK;
    rules_scenario *sc = NULL;
    referee *ref = NULL;
    if ((st = game__referee_make(g, &sc, &ref, err)))
        return st;
    if (referee_phase(r->ref)) {
        json_t *none = json_array();
        referee_set(ref, referee_turn(r->ref), referee_phase(r->ref), referee_side(r->ref), none, err);
        json_decref(none);
    }
    referee_destroy(r->ref);
    rules_scenario_destroy(r->sc);
    r->sc = sc, r->ref = ref, r->rev = g->scenario_rev;
    return TT_OK;
}

tt_status game_phase_post(game *g, const char *text, size_t len, char **state_json, tt_err *err)
{
    json_error_t je;
    tt_status st;
    *state_json = NULL;
    json_t *j = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        return tt_err_set(err, TT_ERR_FORMAT, "the phase: line %d, column %d: %s", je.line, je.column, je.text);
    game__phase_line l = {0};
    json_object_set_new(j, "frame", json_integer(0));
    st = game__phase_parse(j, "the phase", 0, &l, err);
    json_decref(j);
    if (st) {
        free(l.phase), free(l.side);
        return st;
    }
    pthread_mutex_lock(&g->mu);
    json_t *events = json_array();
    if (!events)
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if (st == TT_OK && (st = game__referee_ensure(g, err)) == TT_OK &&
        (st = game__phase_apply(g->refr->ref, &l, events, err)) == TT_OK) {
        /* the feed at once; --events from the game thread, at the next frame */
        for (size_t i = 0; g->o.feed && i < json_array_size(events); i++) {
            char *s = json_dumps(json_array_get(events, i), JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
            if (s)
                game__feed_publish(g, "event", s);
        }
        game__referee_keep(g, events);
        if (!g->refr->pending)
            g->refr->pending = json_array();
        if (g->refr->pending)
            json_array_extend(g->refr->pending, events);
        json_t *ph = game__referee_state(g);
        *state_json = json_dumps(ph, JSON_COMPACT | JSON_ENCODE_ANY);
        json_decref(ph);
        g->dirty = 1;
        game__publish_state(g, 1);
    }
    json_decref(events);
    pthread_mutex_unlock(&g->mu);
    free(l.phase), free(l.side);
    if (st == TT_OK && !*state_json)
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    return st;
}

void game__referee_close(game *g)
{
    game__referee *r = g ? g->refr : NULL;
    if (!r)
        return;
    referee_destroy(r->ref);
    rules_scenario_destroy(r->sc);
    game__phase_lines_free(r);
    json_decref(r->pending);
    table_look_kept_destroy(r->kept);
    free(r);
    g->refr = NULL;
}

/* The referee's event line s into the recording, at frame_no. */
static void game__referee_record(game *g, int frame_no, const char *s)
{
    tt_err e = {0};
    if (g->recording.recd && !g->recording.rec_failed &&
        rec_referee(g->recording.recd, frame_no, (long long)g->figures.t_ms, s, &e) != TT_OK)
        game__recorder_failed(g, &e);
}

/* Write the referee's events: --events, the recording and the feed. */
static void game__referee_write(game *g, int frame_no, const json_t *events)
{
    for (size_t i = 0; i < json_array_size(events); i++) {
        char *s = json_dumps(json_array_get(events, i), JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
        if (!s)
            continue;
        if (g->ev)
            fprintf(g->ev, "%s\n", s);
        game__referee_record(g, frame_no, s);
        if (g->o.feed)
            game__feed_publish(g, "event", s);
        else
            free(s);
    }
}

tt_status game__referee_frame(game *g, int frame_no, const track_figure *figs, int nf, const track_event *evs, int ne,
                              tt_err *err)
{
    game__referee *r = g->refr;
    tt_status st = TT_OK;
    if (!r)
        return TT_OK;
    if (r->rev != g->scenario_rev && g->sc.root) {
        /* a new scenario: a new referee, set where the game stood */
        rules_scenario *sc = NULL;
        referee *ref = NULL;
        json_t *none = json_array();
        if (none && game__referee_make(g, &sc, &ref, err) == TT_OK) {
            if (referee_phase(r->ref))
                referee_set(ref, referee_turn(r->ref), referee_phase(r->ref), referee_side(r->ref), none, err);
            referee_destroy(r->ref);
            rules_scenario_destroy(r->sc);
            r->sc = sc, r->ref = ref;
        }
        json_decref(none);
        r->rev = g->scenario_rev;
    }
    if (r->pending) { /* on the feed already: --events and the recording */
        for (size_t i = 0; i < json_array_size(r->pending); i++) {
            char *s = json_dumps(json_array_get(r->pending, i), JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
            if (s && g->ev)
                fprintf(g->ev, "%s\n", s);
            if (s)
                game__referee_record(g, frame_no, s);
            free(s);
        }
        json_array_clear(r->pending);
    }
    if (!r->ref)
        return TT_OK;
    json_t *out = json_array();
    if (!out)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    while (st == TT_OK && r->at < r->nlines && r->lines[r->at].frame <= frame_no)
        st = game__phase_apply(r->ref, &r->lines[r->at++], out, err);
    for (int i = 0; st == TT_OK && i < ne; i++) {
        const track_event *e = &evs[i];
        const char *id = rules_scenario_tag_figure(r->sc, e->id);
        tt_err ignored = {0};
        if (!id)
            continue;
        if (e->kind == TRACK_REMOVED) {
            referee_lifted(r->ref, id, &ignored);
        } else if ((e->kind == TRACK_MOVED || e->kind == TRACK_APPEARED) && e->has_to) {
            double facing = 0, err95 = 0;
            for (int k = 0; k < nf; k++)
                if (figs[k].id == e->id && !strcmp(figs[k].family, e->family))
                    facing = figs[k].facing_deg, err95 = figs[k].err95_in;
            /* a figure the tracker puts off the table is no move to check */
            if (referee_settled(r->ref, id, e->to[0], e->to[1], facing, err95, out, &ignored) == TT_ERR_NOMEM)
                st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        }
    }
    game__referee_keep(g, out);
    game__referee_write(g, frame_no, out);
    json_decref(out);
    return st;
}

json_t *game__referee_state(game *g)
{
    const referee *ref = g->refr ? g->refr->ref : NULL;
    const char *phase = referee_phase(ref), *side = referee_side(ref);
    if (!phase)
        return json_null();
    return json_pack("{s:i, s:s, s:o}", "turn", referee_turn(ref), "phase", phase, "side",
                     side ? json_string(side) : json_null());
}

/* Copies of the kept events (the state is written out of the lock), each
 * with "look": its primitives as the felt draws them now (docs/api.md,
 * table_look_kept_looks: its words among the others'); null where they
 * cannot be drawn. */
static json_t *game__referee_looks(const json_t *events, const json_t *looks)
{
    json_t *out = json_array();
    for (size_t i = 0; out && i < json_array_size(events); i++) {
        json_t *ev = json_deep_copy(json_array_get(events, i)), *look = json_array_get(looks, i);
        if (ev)
            json_object_set_new(ev, "look", look ? json_incref(look) : json_null());
        json_array_append_new(out, ev);
    }
    return out;
}

void game__referee_state_add(game *g, json_t *state)
{
    const game__referee *r = g->refr;
    const referee *ref = r ? r->ref : NULL;
    int turn = 0;
    const char *phase = NULL, *side = NULL;
    json_t *next = json_null();
    if (referee_peek_next(ref, &turn, &phase, &side))
        next = json_pack("{s:i, s:s, s:o}", "turn", turn, "phase", phase, "side", side ? json_string(side) : json_null());
    /* copies: the state is written out of the lock */
    json_object_set_new(state, "next_phase", next ? next : json_null());
    const table_look_kept *k = referee_phase(ref) && r ? r->kept : NULL; /* nothing before a phase */
    json_t *checks = NULL, *calls = NULL;
    tt_err err = {0};
    if (k && g->sc.scene)
        table_look_kept_looks(g->sc.scene, k, &checks, &calls, &err);
    json_object_set_new(state, "checks", k ? game__referee_looks(table_look_kept_checks(k), checks) : json_array());
    json_object_set_new(state, "calls", k ? game__referee_looks(table_look_kept_calls(k), calls) : json_array());
    json_decref(checks);
    json_decref(calls);
}

tt_status game__referee_draw(game *g, overlay_list *l, tt_err *err)
{
    const game__referee *r = g->refr;
    tt_status st = TT_OK;
    if (!r || !referee_phase(r->ref) || !g->sc.scene)
        return TT_OK;
    if (r->kept)
        st = table_look_kept_add(g->sc.scene, r->kept, l, err);
    /* where the game stands, small in the far right corner, left of the
     * anchors' dark squares there */
    double right = g->rig->width_in - 0.5;
    for (int i = 0; i < g->rig->nanchors; i++) {
        const calib_anchor *an = &g->rig->anchors[i];
        double half = an->size_in * OVERLAY_TAG_MASK_FACTOR / 2;
        if (an->y - half < 1.2 && an->x + half > g->rig->width_in - 12)
            right = fmin(right, an->x - half - 0.3);
    }
    json_t *ph = game__referee_state(g);
    if (st == TT_OK)
        st = table_look_phase(ph, right, 0.6, l, err);
    json_decref(ph);
    return st;
}
