/* game_feed.c - the state as viewers see it, and the live feed: a ring of
 * the newest GAME__FEED messages that any number of viewers read at their
 * own pace.  The game never waits for a viewer; one that falls more than a
 * ring behind skips to the newest state. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game_internal.h"

/* Positions to 0.01", angles to 0.1 degree: what a tape or protractor reads. */
static json_t *game__r2(double v)
{
    return json_real(isfinite(v) ? round(v * 100) / 100 : 0);
}

void game__feed_init(game *g)
{
    pthread_mutex_init(&g->feed.mu, NULL);
    pthread_cond_init(&g->feed.cv, NULL);
}

struct game_feed_msg {
    int refs;       /* the ring's and each viewer's (atomic) */
    char event[16]; /* "state", "event" or "answer" */
    size_t len;
    char *json;     /* compact JSON: one line */
};

const char *game_feed_msg_event(const game_feed_msg *m)
{
    return m->event;
}

const char *game_feed_msg_json(const game_feed_msg *m, size_t *len)
{
    *len = m->len;
    return m->json;
}

void game_feed_release(game_feed_msg *m)
{
    if (m && __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        free(m->json);
        free(m);
    }
}

void game__feed_free(game *g)
{
    for (int i = 0; i < GAME__FEED; i++)
        game_feed_release(g->feed.ring[i].msg);
    pthread_cond_destroy(&g->feed.cv);
    pthread_mutex_destroy(&g->feed.mu);
}

/* Kept as it came (the event's name and its JSON), shared by every viewer:
 * each formats it as it needs (Server-Sent Events, MQTT). */
void game__feed_publish(game *g, const char *event, char *data)
{
    game_feed_msg *fm = data ? malloc(sizeof *fm) : NULL;
    if (!fm) {
        free(data);
        return; /* out of memory: this message is lost, the next state says it all */
    }
    fm->refs = 1;
    snprintf(fm->event, sizeof fm->event, "%s", event);
    fm->json = data;
    fm->len = strlen(data);
    pthread_mutex_lock(&g->feed.mu);
    unsigned long long seq = ++g->feed.seq;
    game__msg *m = &g->feed.ring[seq % GAME__FEED];
    game_feed_release(m->msg);
    m->seq = seq;
    m->is_state = !strcmp(event, "state");
    m->msg = fm;
    if (m->is_state)
        g->feed.state_seq = seq;
    pthread_cond_broadcast(&g->feed.cv);
    pthread_mutex_unlock(&g->feed.mu);
}

void game__feed_end(game *g)
{
    pthread_mutex_lock(&g->feed.mu);
    g->feed.ended = 1;
    pthread_cond_broadcast(&g->feed.cv);
    pthread_mutex_unlock(&g->feed.mu);
}

void game__publish_state(game *g, int force)
{
    if (!g->o.feed)
        return;
    pthread_mutex_lock(&g->feed.mu);
    int watched = g->feed.viewers > 0;
    if (g->feed.state_wanted)
        force = 1;
    g->feed.state_wanted = 0;
    pthread_mutex_unlock(&g->feed.mu);
    double now = tt_mono_ms();
    if (!watched || (!force && now - g->feed.state_sent_ms < 1000.0 / GAME_FEED_MAX_HZ)) {
        g->feed.state_stale = 1;
        return;
    }
    json_t *s = game__state(g);
    char *txt = s ? json_dumps(s, JSON_COMPACT | JSON_REAL_PRECISION(12)) : NULL;
    json_decref(s);
    if (!txt) { /* out of memory: tried again */
        g->feed.state_stale = 1;
        return;
    }
    game__feed_publish(g, "state", txt);
    g->feed.state_sent_ms = now;
    g->feed.state_stale = 0;
}

void game__feed_flush(game *g)
{
    pthread_mutex_lock(&g->feed.mu);
    int wanted = g->feed.state_wanted;
    pthread_mutex_unlock(&g->feed.mu);
    if (g->feed.state_stale || wanted)
        game__publish_state(g, 1);
}

/* A newcomer starts from the table as it is now: the game thread sends a
 * fresh state with its next frame, or within 50 ms when none comes.  The
 * viewer never takes the game's lock. */
unsigned long long game_feed_attach(game *g)
{
    pthread_mutex_lock(&g->feed.mu);
    g->feed.viewers++;
    g->feed.state_wanted = 1;
    unsigned long long cursor = g->feed.seq;
    pthread_mutex_unlock(&g->feed.mu);
    return cursor;
}

void game_feed_detach(game *g)
{
    pthread_mutex_lock(&g->feed.mu);
    g->feed.viewers--;
    pthread_mutex_unlock(&g->feed.mu);
}

int game_feed_next(game *g, unsigned long long *cursor, int timeout_ms, game_feed_msg **msg)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    ts.tv_sec += timeout_ms / 1000 + ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    *msg = NULL;
    pthread_mutex_lock(&g->feed.mu);
    for (;;) {
        /* a new viewer, or one a whole ring behind: the newest state first */
        if (*cursor == 0 && g->feed.state_seq)
            *cursor = g->feed.state_seq - 1;
        else if (*cursor + GAME__FEED <= g->feed.seq) {
            unsigned long long oldest = g->feed.seq - GAME__FEED + 1;
            *cursor = (g->feed.state_seq >= oldest ? g->feed.state_seq : oldest) - 1;
        }
        /* an older state than the newest is skipped: a viewer that fell
         * behind gets the table as it is now, and the game's events and
         * answers in order */
        while (*cursor < g->feed.seq && *cursor + 1 < g->feed.state_seq &&
               g->feed.ring[(*cursor + 1) % GAME__FEED].is_state)
            (*cursor)++;
        if (*cursor < g->feed.seq)
            break;
        if (g->feed.ended) {
            pthread_mutex_unlock(&g->feed.mu);
            return -1;
        }
        if (pthread_cond_timedwait(&g->feed.cv, &g->feed.mu, &ts) != 0) {
            pthread_mutex_unlock(&g->feed.mu);
            return 0;
        }
    }
    game__msg *m = &g->feed.ring[(*cursor + 1) % GAME__FEED];
    *cursor = m->seq;
    *msg = m->msg;
    __atomic_add_fetch(&m->msg->refs, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&g->feed.mu);
    return 1;
}

json_t *game__str_or_null(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string(json_string_value(v)) : json_null();
}

json_t *game__state(game *g)
{
    static const char *const camera[] = {"ok", "lost", "ended"};
    json_t *figs = json_array(), *shown = json_array(), *unassigned = json_array();
    for (int i = 0; i < g->figures.nfig; i++) {
        const track_figure *f = &g->figures.figs[i];
        if (calib_rig_anchor_index(g->rig, f->family, f->id) >= 0)
            continue;
        json_t *info = game__figure_info(g, f->id);
        if (!info && f->state != VISION_TAG_LOST)
            json_array_append_new(unassigned, json_integer(f->id));
        json_array_append_new(
            figs, json_pack("{s:o,s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:f,s:f,s:f}", "id",
                            info ? game__str_or_null(info, "id") : json_null(), "tag", f->id, "side",
                            info ? game__str_or_null(info, "side") : json_null(), "unit",
                            info ? game__str_or_null(info, "unit") : json_null(), "x", game__r2(f->x), "y",
                            game__r2(f->y), "z_in", game__r2(f->z_in), "facing_deg",
                            json_real(round(f->facing_deg * 10) / 10 + 0.0), "state", track_state_name(f->state),
                            "err95_in", round(f->err95_in * 1e4) / 1e4, "z_err95_in", round(f->z_err95_in * 1e3) / 1e3,
                            "facing_err95_deg", round(f->facing_err95_deg * 100) / 100));
    }
    for (int i = 0; i < g->questions.nq; i++) {
        game__query *q = &g->questions.qs[i];
        if (g->figures.frame_no >= 0 && (g->figures.frame_no < q->from || g->figures.frame_no > q->until))
            continue;
        json_array_append_new(shown, json_pack("{s:i,s:O,s:O,s:O}", "qid", q->qid, "query", q->q, "answer",
                                               q->answer ? q->answer : json_null(), "look",
                                               q->look ? q->look : json_null()));
    }
    const json_t *terrain = json_object_get(g->sc.root, "terrain");
    const char *ruleset = json_string_value(json_object_get(g->sc.root, "ruleset"));
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return json_pack("{s:i,s:f,s:I,s:o,s:{s:f,s:f},s:o,s:o,s:o,s:i,s:o,s:s,s:o,s:o}", "frame", g->figures.frame_no, "t_ms",
                     round(g->figures.t_ms * 10) / 10, "wall_ms", (json_int_t)now.tv_sec * 1000 + now.tv_nsec / 1000000,
                     "ruleset", ruleset ? json_string(ruleset) : json_null(), "table",
                     "width_in", g->rig->width_in, "depth_in", g->rig->depth_in, "terrain",
                     terrain ? json_deep_copy(terrain) : json_array(), "figures", figs, "shown", shown,
                     "scenario_rev", g->scenario_rev, "unassigned", unassigned, "camera", camera[g->figures.camera_state],
                     "picked", game__picked_json(&g->picks), "phase", game__referee_state(g));
}

char *game_state_json(game *g)
{
    pthread_mutex_lock(&g->mu);
    json_t *s = game__state(g);
    pthread_mutex_unlock(&g->mu);
    char *txt = s ? json_dumps(s, JSON_COMPACT | JSON_REAL_PRECISION(12)) : NULL;
    json_decref(s);
    return txt;
}
