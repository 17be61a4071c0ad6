/* hall_replay.c - 'replay --mqtt': a recorded game published as a table
 * would publish it, at its recorded pace times a speed: the live state
 * (rebuilt from the recording's rows, with the referee's phase), events
 * (the referee's too), answers with their look (the recorded question asked
 * again where the figures stood, drawn by table_look as the live table
 * draws it), scenario changes, and the recording itself as chunks. */
#include "hall_conn.h"
#include "hall_publish.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game.h"
#include "rec_copy.h"
#include "table_look.h"

/* How often the replay looks at the clock: the live state goes out at most
 * every 200 ms anyway, and fifty replays share two cores in a load test. */
#define HALL__REPLAY_TICK_MS 100

/* The table as the rows so far leave it. */
typedef struct hall__scene {
    json_t *figs;     /* "family/tag" -> figure of the state */
    json_t *names;    /* "family/tag" -> {"name","side"} */
    json_t *scenario; /* in force, or NULL */
    json_t *rig;
    json_t *shown;    /* the last answer, as the state's "shown" */
    json_t *phase;    /* where the game stands ({"turn","phase","side"}), or NULL before a phase */
    long long frame, t_ms;
    int qid;
    table_scene *table; /* the scenario to ask again for the answers' look (NULL until needed) */
    int table_bad;      /* the scenario could not be loaded: no looks */
} hall__scene;

static void hall__scene_key(char *buf, size_t n, const json_t *o)
{
    snprintf(buf, n, "%s/%lld", json_string_value(json_object_get(o, "family")) ? json_string_value(json_object_get(o, "family")) : "",
             (long long)json_integer_value(json_object_get(o, "id")));
}

static void hall__scene_set_scenario(hall__scene *s, json_t *sc)
{
    if (!json_is_object(sc))
        return;
    json_decref(s->scenario);
    s->scenario = json_incref(sc);
    table_scene_destroy(s->table);
    s->table = NULL;
    s->table_bad = 0;
}

/* Places to 0.01" and angles to 0.1 degree, as the live state has them. */
static json_t *hall__r(const json_t *v, double scale)
{
    return json_is_number(v) ? json_real(round(json_number_value(v) * scale) / scale + 0.0) : json_null();
}

/* What the answer to query looks like with the figures where they stand
 * now (table_look's primitives, as the live table's "look"), or NULL when
 * the recording's scenario cannot be asked (a ruleset not here): the
 * answer is then published without one. */
static json_t *hall__look(hall__scene *s, const json_t *query)
{
    tt_err e = {0};
    if (!s->table && !s->table_bad && s->scenario) {
        char *txt = json_dumps(s->scenario, JSON_COMPACT);
        s->table_bad = !txt || table_scene_parse(txt, "the recorded scenario", ".", game_data_dirs(), &s->table,
                                                 &e) != TT_OK;
        if (s->table_bad)
            fprintf(stderr, "tabletrack replay: answers go without their look: %s\n", txt ? e.msg : "out of memory");
        free(txt);
    }
    if (!s->table)
        return NULL;
    const char *key;
    json_t *f, *look = NULL;
    json_object_foreach(s->figs, key, f) {
        const char *state = json_string_value(json_object_get(f, "state"));
        if (!state || strcmp(state, "lost"))
            (void)table_scene_place(s->table, (int)json_integer_value(json_object_get(f, "tag")),
                                    json_number_value(json_object_get(f, "x")), json_number_value(json_object_get(f, "y")),
                                    json_number_value(json_object_get(f, "facing_deg")), NULL, &e);
    }
    const table_answer *a;
    if (table_scene_ask(s->table, query, &a, &e) != TT_OK || table_look_json(s->table, a, &look, &e) != TT_OK)
        return NULL;
    return look;
}

/* One chunk: figures moved, events, answers and scenario changes sent. */
static void hall__scene_apply(hall__scene *s, hall_table *t, const char *chunk)
{
    json_t *j = json_loads(chunk, 0, NULL);
    if (!j)
        return;
    char key[64];
    size_t i, k;
    json_t *o, *f;
    json_t *ses = json_object_get(j, "session");
    if (json_object_get(ses, "started_utc")) {
        hall__scene_set_scenario(s, json_object_get(ses, "scenario"));
        json_decref(s->rig);
        s->rig = json_incref(json_object_get(ses, "rig"));
    }
    json_array_foreach(json_object_get(j, "figures"), i, o) {
        hall__scene_key(key, sizeof key, o);
        json_object_set_new(s->names, key, json_pack("{s:O,s:O}", "name", json_object_get(o, "name"), "side",
                                                     json_object_get(o, "side")));
    }
    json_array_foreach(json_object_get(j, "changes"), i, o) {
        hall__scene_set_scenario(s, json_object_get(o, "scenario"));
        char *txt = json_dumps(json_object_get(o, "scenario"), JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (txt)
            hall_table_publish(t, "scenario", txt, strlen(txt));
        free(txt);
    }
    json_array_foreach(json_object_get(j, "frames"), i, o) {
        s->frame = json_integer_value(json_object_get(o, "frame"));
        s->t_ms = json_integer_value(json_object_get(o, "t_ms"));
        json_array_foreach(json_object_get(o, "figures"), k, f) {
            hall__scene_key(key, sizeof key, f);
            json_t *nm = json_object_get(s->names, key);
            json_object_set_new(s->figs, key,
                                json_pack("{s:O?,s:O?,s:s?,s:O?,s:o,s:o,s:o,s:O?}", "id",
                                          nm ? json_object_get(nm, "name") : json_null(), "tag",
                                          json_object_get(f, "id"), "family", json_string_value(json_object_get(f, "family")),
                                          "side", nm ? json_object_get(nm, "side") : json_null(), "x",
                                          hall__r(json_object_get(f, "x"), 100), "y", hall__r(json_object_get(f, "y"), 100),
                                          "facing_deg", hall__r(json_object_get(f, "facing_deg"), 10), "state",
                                          json_object_get(f, "state")));
        }
    }
    json_array_foreach(json_object_get(j, "events"), i, o) {
        char *txt = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
        if (txt)
            hall_table_publish(t, "event", txt, strlen(txt));
        free(txt);
    }
    /* the referee's lines, on the event feed as the table sends them; the
     * phase also in the state */
    json_array_foreach(json_object_get(j, "referee"), i, o) {
        char *txt = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
        if (txt)
            hall_table_publish(t, "event", txt, strlen(txt));
        free(txt);
        if (!strcmp(json_string_value(json_object_get(o, "event")) ? json_string_value(json_object_get(o, "event")) : "",
                    "phase")) {
            json_decref(s->phase);
            s->phase = json_pack("{s:O?, s:O?, s:O?}", "turn", json_object_get(o, "turn"), "phase",
                                 json_object_get(o, "phase"), "side", json_object_get(o, "side"));
        }
    }
    json_array_foreach(json_object_get(j, "queries"), i, o) {
        json_t *a = json_pack("{s:i,s:O,s:O,s:o?}", "qid", ++s->qid, "query", json_object_get(o, "query"), "answer",
                              json_object_get(o, "answer"), "look", hall__look(s, json_object_get(o, "query")));
        char *txt = a ? json_dumps(a, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9)) : NULL;
        if (txt)
            hall_table_publish(t, "answer", txt, strlen(txt));
        free(txt);
        json_array_clear(s->shown);
        if (a)
            json_array_append_new(s->shown, a);
    }
    json_decref(j);
}

/* The state in the shape of /api/state: the answer shown drawn where
 * the figures stand now. */
static void hall__scene_publish(hall__scene *s, hall_table *t)
{
    size_t i;
    json_t *a;
    json_array_foreach(s->shown, i, a) {
        json_t *look = hall__look(s, json_object_get(a, "query"));
        json_object_set_new(a, "look", look ? look : json_null());
    }
    json_t *figs = json_array();
    const char *key;
    json_t *f;
    json_object_foreach(s->figs, key, f) json_array_append(figs, f);
    const json_t *table = json_object_get(s->scenario, "table");
    if (!table)
        table = json_object_get(s->rig, "table");
    const json_t *terrain = json_object_get(s->scenario, "terrain");
    long long now = tt_unix_ms();
    json_t *st = json_pack("{s:I,s:I,s:I,s:I,s:O?,s:{s:O?,s:O?},s:o,s:o,s:O,s:s,s:O?}", "frame", (json_int_t)s->frame,
                           "t_ms", (json_int_t)s->t_ms, "wall_ms", (json_int_t)now, "sent_ms", (json_int_t)now,
                           "ruleset", json_object_get(s->scenario, "ruleset"), "table", "width_in",
                           json_object_get(table, "width_in"), "depth_in", json_object_get(table, "depth_in"),
                           "terrain", terrain ? json_incref((json_t *)terrain) : json_array(), "figures", figs,
                           "shown", s->shown, "camera", "ok", "phase", s->phase);
    char *txt = st ? json_dumps(st, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9)) : NULL;
    if (txt)
        hall_table_publish(t, "state", txt, strlen(txt));
    free(txt);
    json_decref(st);
}

tt_status hall_replay_run(const hall_mqtt_opts *o, const char *name, const char *path, long long session,
                          double speed, const volatile sig_atomic_t *stop, int *held, tt_err *err)
{
    if (held)
        *held = 0;
    hall_table *t = NULL;
    rec_feed *lf = NULL;
    hall__scene s = {json_object(), json_object(), NULL, NULL, json_array(), NULL, -1, 0, 0, NULL, 0};
    tt_status st = TT_OK;
    if (!s.figs || !s.names || !s.shown) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((st = hall_table_create(o, name, path, session, 0, &t, err)) != TT_OK ||
        (st = rec_feed_open(path, session, &lf, err)) != TT_OK)
        goto done;
    long long t0 = rec_feed_t0(lf);
    double start = tt_mono_ms(), last_state = -1e9, last_end = -1e9;
    rec_pos live = rec_pos_empty();
    for (;;) {
        if (stop && *stop)
            break;
        double now = tt_mono_ms();
        long long until = t0 + (long long)((now - start) * speed);
        char *chunk = NULL;
        rec_pos to;
        if ((st = rec_feed_next(lf, &live, until, 5000, &chunk, &to, err)) != TT_OK)
            goto done;
        if (chunk) {
            hall__scene_apply(&s, t, chunk);
            live = to;
            if (to.frame > s.frame)
                s.frame = to.frame;
            free(chunk);
        } else if (now - last_end >= 1000) { /* once a second: is the recording over? */
            last_end = now;
            if ((st = rec_feed_next(lf, &live, REC_TIME_UNSET, 1, &chunk, &to, err)) != TT_OK)
                goto done;
            free(chunk);
            if (!chunk || live.ended)
                break; /* nothing more in the recording */
        }
        if (now - last_state >= 1000.0 / HALL_STATE_MAX_HZ) {
            hall__scene_publish(&s, t);
            last_state = now;
        }
        hall_table_sync(t, until);
        struct timespec ts = {0, HALL__REPLAY_TICK_MS * 1000000L};
        nanosleep(&ts, NULL);
    }
    hall__scene_publish(&s, t);
    st = hall_table_drain(t, HALL_DRAIN_S, stop, err);
    if (held)
        *held = hall_table_held(t);
done:
    hall_table_destroy(t);
    rec_feed_close(lf);
    json_decref(s.figs);
    json_decref(s.names);
    json_decref(s.scenario);
    json_decref(s.rig);
    json_decref(s.shown);
    json_decref(s.phase);
    table_scene_destroy(s.table);
    return st;
}
