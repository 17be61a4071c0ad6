/* rec_look.c - what each recorded answer looks like, from the one
 * description of every answer's look (table/table_look.c): the recorded
 * question is asked again of the scenario in force when it was asked, with
 * every figure where the recording has it then (and as sure of its place),
 * and table_look_json's primitives are kept for the page and the video.
 * An answer that cannot be asked again (no scenario, a ruleset not found, a
 * figure gone, an answer that differs from the one recorded) is drawn as
 * nothing, with a note saying why; it is never described a second time
 * here. */
#include "rec_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_look.h"

/* The scene being asked: made from one scenario text, kept while the
 * queries that follow were asked under the same scenario. */
typedef struct rec__asker {
    const char *text;  /* the scenario it was made from (borrowed), or NULL */
    table_scene *scene; /* NULL when the scenario could not be loaded */
    long *placed;       /* each figure's state last placed in scene (-2: none), owned; NULL: place them all */
    char why[TT_ERR_MSG_LEN + 64];
} rec__asker;

/* The scenario in force at t: the session's, or that of its last change. */
static const char *rec__scenario_at(const rec_game *g, long long t)
{
    const char *text = g->scenario_json;
    for (size_t i = 0; i < g->nchanges && g->changes[i].t_ms <= t; i++)
        if (g->changes[i].scenario_json)
            text = g->changes[i].scenario_json;
    return text;
}

static void rec__asker_use(const rec_game *g, rec__asker *k, const char *text)
{
    if (k->text == text && (k->scene || k->why[0]))
        return;
    table_scene_destroy(k->scene);
    k->scene = NULL;
    free(k->placed); /* a new scene: every figure to place */
    if ((k->placed = g->nfigs ? malloc(sizeof *k->placed * g->nfigs) : NULL))
        for (size_t f = 0; f < g->nfigs; f++)
            k->placed[f] = -2;
    k->text = text;
    k->why[0] = '\0';
    if (!text) {
        snprintf(k->why, sizeof k->why, "the recording holds no scenario to ask");
        return;
    }
    tt_err e = {0};
    if (table_scene_parse(text, "the recorded scenario", NULL, table_data_dirs(), &k->scene, &e) != TT_OK)
        snprintf(k->why, sizeof k->why, "its scenario cannot be loaded again: %s", e.msg);
}

/* Every figure where the recording has it at t (its first place when asked
 * before it was first seen), as sure of it as the tracker was: those whose
 * state changed since ask's scene last placed them. */
static void rec__place_all(const rec_game *g, rec__asker *ask, long long t)
{
    table_scene *s = ask->scene;
    for (size_t f = 0; f < g->nfigs; f++) {
        long k = rec__game_state_at(g, (int)f, t);
        if (k < 0) {
            size_t n;
            const long *ix = rec__game_fig_states(g, (int)f, &n);
            k = n ? ix[0] : -1;
        }
        if (k < 0 || (ask->placed && ask->placed[f] == k))
            continue;
        if (ask->placed)
            ask->placed[f] = k;
        const rec__state *st = &g->states[k];
        tt_err e = {0};
        /* a place off the table leaves the figure where it was, as live */
        if (table_scene_place(s, g->figs[f].tag, st->x, st->y, st->facing, NULL, &e) == TT_OK)
            table_scene_set_errors(s, g->figs[f].tag, st->e[0], st->e[1], st->e[2], &e);
    }
}

/* How far a number the rules give may move between the answer given live
 * and the same question asked again: the recording keeps each figure's
 * place to 0.02" and its facing to a degree. */
#define REC_LOOK_SAME 0.25

/* 1 when was (a value of the recorded answer) and now (the same asked
 * again) are the same answer: words, truth and whole numbers equal, lists
 * as long, numbers within REC_LOOK_SAME.  A key the recording has and the
 * answer asked again lacks is not held against it, nor the rule cited. */
static int rec__same(const json_t *now, const json_t *was)
{
    if (json_is_object(was)) {
        const char *key;
        json_t *w;
        json_object_foreach((json_t *)was, key, w) {
            const json_t *v = json_object_get(now, key);
            if (v && strcmp(key, "rule") && !rec__same(v, w))
                return 0;
        }
        return json_is_object(now);
    }
    if (json_is_array(was)) {
        if (!json_is_array(now) || json_array_size(now) != json_array_size(was))
            return 0;
        for (size_t i = 0; i < json_array_size(was); i++)
            if (!rec__same(json_array_get(now, i), json_array_get(was, i)))
                return 0;
        return 1;
    }
    if (json_is_number(was) && json_is_number(now))
        return fabs(json_number_value(now) - json_number_value(was)) <= REC_LOOK_SAME;
    return json_equal(now, was);
}

/* The first key whose value the answer asked again gives differently from
 * the one recorded, as "its KEY is NOW where the recording has WAS". */
static int rec__differs(const json_t *now, const json_t *was, char *why, size_t n)
{
    const char *key;
    json_t *w;
    json_object_foreach((json_t *)was, key, w) {
        const json_t *v = json_object_get(now, key);
        if (!v || !strcmp(key, "rule") || rec__same(v, w))
            continue;
        char *a = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT), *b = json_dumps(w, JSON_ENCODE_ANY | JSON_COMPACT);
        snprintf(why, n, "asked again, its %s is %.200s where the recording has %.200s", key, a ? a : "?", b ? b : "?");
        free(a);
        free(b);
        return 1;
    }
    return 0;
}

/* Query q's primitives into q->overlay (an empty array and q->note when
 * it is not drawn).  -1 when out of memory. */
static int rec__look_one(const rec_game *g, rec__asker *k, rec__query *q)
{
    char why[TT_ERR_MSG_LEN + 128] = "";
    json_t *qj = json_loads(q->query, 0, NULL), *aj = json_loads(q->answer, 0, NULL), *prims = NULL;
    if (!json_is_object(qj) || json_object_get(aj, "error")) {
        /* a question refused when asked: nothing was drawn then either */
    } else {
        rec__asker_use(g, k, rec__scenario_at(g, q->t_ms));
        const table_answer *a = NULL;
        tt_err e = {0};
        if (!k->scene) {
            snprintf(why, sizeof why, "%s", k->why);
        } else {
            rec__place_all(g, k, q->t_ms);
            if (table_scene_ask(k->scene, qj, &a, &e) != TT_OK)
                snprintf(why, sizeof why, "asked again, the rules refuse it: %s", e.msg);
            else if (!rec__differs(table_answer_json(a), aj, why, sizeof why) &&
                     table_look_json(k->scene, a, &prims, &e) != TT_OK)
                snprintf(why, sizeof why, "%s", e.msg);
        }
    }
    json_decref(qj);
    json_decref(aj);
    if (why[0] && !(q->note = strdup(why))) {
        json_decref(prims);
        return -1;
    }
    q->overlay = prims ? prims : json_array();
    return q->overlay ? 0 : -1;
}

/* An event object and its index in refs, to find a kept event's. */
typedef struct rec__ref_ix {
    const json_t *ev;
    int i;
} rec__ref_ix;

static int rec__ix_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const rec__ref_ix *)a)->ev, y = (uintptr_t)((const rec__ref_ix *)b)->ev;
    return x < y ? -1 : x > y;
}

/* The felt after the batch of referee events refs[i0..i1): kept takes
 * them (the checks' words placed with the figures where the recording has
 * them then); each kept one's look as it came, a phase's corner (where the
 * game stands, small in the far right corner as the projector has it),
 * and on refs[i1 - 1] the events kept and the phase in force.  -1 when out
 * of memory. */
static int rec__felt_one(rec_game *g, rec__asker *k, table_look_kept *kept, const rec__ref_ix *ix, size_t i0,
                         size_t i1, long *phase_ix)
{
    json_t *batch = json_array();
    for (size_t i = i0; batch && i < i1; i++)
        if (json_array_append(batch, g->refs[i].ev))
            json_decref(batch), batch = NULL;
    if (!batch)
        return -1;
    long long t = g->refs[i0].t_ms;
    rec__asker_use(g, k, rec__scenario_at(g, t));
    if (k->scene)
        rec__place_all(g, k, t);
    table_look_kept_take(kept, k->scene, batch);
    json_decref(batch);
    rec__ref *end = &g->refs[i1 - 1];
    end->batch_end = 1;
    const json_t *phase = table_look_kept_phase(kept);
    tt_err e = {0};
    for (size_t i = i0; i < i1; i++) {
        rec__ref *r = &g->refs[i];
        if (r->ev == phase) {
            *phase_ix = (long)i;
            overlay_list *l = NULL;
            int bad = overlay_list_create(&l, &e) != TT_OK ||
                      table_look_phase(phase, g->table_w - 0.5, 0.6, l, &e) != TT_OK ||
                      overlay_list_to_json(l, &r->corner, &e) != TT_OK;
            overlay_list_destroy(l);
            if (bad)
                return -1;
        } else if (phase && k->scene && table_look_kept_look(k->scene, kept, r->ev, &r->look, &e) == TT_ERR_NOMEM) {
            return -1; /* (before the first phase the referee calls nothing) */
        }
    }
    if (!phase)
        return 0;
    end->phase_at = *phase_ix; /* the phase in force: the last phase event taken */
    const json_t *lists[2] = {table_look_kept_checks(kept), table_look_kept_calls(kept)};
    size_t n = json_array_size(lists[0]) + json_array_size(lists[1]);
    if (n && !(end->kept = malloc(sizeof *end->kept * n)))
        return -1;
    for (int a = 0; a < 2; a++)
        for (size_t i = 0; i < json_array_size(lists[a]); i++) {
            rec__ref_ix key = {json_array_get(lists[a], i), 0};
            const rec__ref_ix *hit = bsearch(&key, ix, g->nrefs, sizeof *ix, rec__ix_cmp);
            if (hit && g->refs[hit->i].look)
                end->kept[end->nkept++] = hit->i;
        }
    return 0;
}

tt_status rec__look_build(rec_game *g, tt_err *err)
{
    rec__asker k = {NULL, NULL, NULL, ""};
    table_look_kept *kept = NULL;
    rec__ref_ix *ix = g->nrefs ? malloc(sizeof *ix * g->nrefs) : NULL;
    int bad = (g->nrefs && !ix) || table_look_kept_create(&kept, err) != TT_OK;
    for (size_t i = 0; i < g->nqueries && !bad; i++)
        bad = rec__look_one(g, &k, &g->queries[i]);
    for (size_t i = 0; ix && i < g->nrefs; i++)
        ix[i] = (rec__ref_ix){g->refs[i].ev, (int)i};
    if (ix)
        qsort(ix, g->nrefs, sizeof *ix, rec__ix_cmp);
    /* a batch: the events of one frame (and time) */
    long phase_ix = -1;
    for (size_t i0 = 0, i1; i0 < g->nrefs && !bad; i0 = i1) {
        for (i1 = i0 + 1; i1 < g->nrefs && g->refs[i1].frame == g->refs[i0].frame && g->refs[i1].t_ms == g->refs[i0].t_ms;)
            i1++;
        bad = rec__felt_one(g, &k, kept, ix, i0, i1, &phase_ix);
    }
    free(ix);
    table_look_kept_destroy(kept);
    table_scene_destroy(k.scene);
    free(k.placed);
    return bad ? tt_err_set(err, TT_ERR_NOMEM, "out of memory drawing the recorded answers") : TT_OK;
}

const rec__ref *rec__felt_at(const rec_game *g, long long t)
{
    size_t lo = 0, hi = g->nrefs; /* the first event after t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->refs[mid].t_ms <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo > 0 && !g->refs[lo - 1].batch_end)
        lo--;
    return lo > 0 ? &g->refs[lo - 1] : NULL;
}

int rec_game_write_notes(const rec_game *g, FILE *f, const char *prefix)
{
    int n = 0;
    for (size_t i = 0; i < g->nqueries; i++) {
        const rec__query *q = &g->queries[i];
        if (!q->note)
            continue;
        long long ms = q->t_ms - g->rec_t0;
        fprintf(f, "%sthe answer at %lld:%02lld.%03lld (%s) is not drawn: %s\n", prefix ? prefix : "", ms / 60000,
                ms / 1000 % 60, ms % 1000, q->query, q->note);
        n++;
    }
    return n;
}
