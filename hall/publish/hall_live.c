/* hall_live.c - 'track --mqtt': a thread that follows the game's live feed
 * and publishes it under tabletrack/NAME/ (hall_publish.h), and sends the
 * recording's new content every HALL__SYNC_MS. */
#include "hall_conn.h"
#include "hall_publish.h"

#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rec.h"

#define HALL__SYNC_MS 250

struct hall_live {
    game *g;
    hall_table *t;
    pthread_t th;
    int started;
    volatile int stop;
};

/* The state, with "sent_ms" added, and its scenario revision. */
static void hall__live_state(hall_live *l, const game_feed_msg *m, long long *rev)
{
    size_t len;
    const char *data = game_feed_msg_json(m, &len);
    json_t *j = json_loadb(data, len, 0, NULL);
    if (!j)
        return;
    long long r = json_integer_value(json_object_get(j, "scenario_rev"));
    if (r != *rev) {
        char *sc = game_scenario_json(l->g);
        if (sc)
            hall_table_publish(l->t, "scenario", sc, strlen(sc));
        free(sc);
        *rev = r;
    }
    json_object_set_new(j, "sent_ms", json_integer(tt_unix_ms()));
    char *out = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
    if (out)
        hall_table_publish(l->t, "state", out, strlen(out));
    free(out);
    json_decref(j);
}

static void *hall__live_main(void *arg)
{
    hall_live *l = arg;
    unsigned long long cursor = game_feed_attach(l->g);
    double last_state = 0, last_sync = 0;
    long long rev = -1;
    game_feed_msg *held = NULL; /* the newest state not yet published (a reference) */
    while (!l->stop) {
        game_feed_msg *m = NULL;
        int r = game_feed_next(l->g, &cursor, 50, &m);
        if (r > 0) { /* the feed's structured message: its event's name and its JSON */
            size_t dlen;
            const char *ev = game_feed_msg_event(m), *data = game_feed_msg_json(m, &dlen);
            if (!strcmp(ev, "state")) {
                game_feed_release(held);
                held = m; /* kept: only the newest goes out, at most HALL_STATE_MAX_HZ a second */
            } else {
                if (!strcmp(ev, "event") || !strcmp(ev, "answer"))
                    hall_table_publish(l->t, ev, data, dlen);
                game_feed_release(m);
            }
        }
        double now = tt_mono_ms();
        if (held && now - last_state >= 1000.0 / HALL_STATE_MAX_HZ) {
            hall__live_state(l, held, &rev);
            game_feed_release(held);
            held = NULL;
            last_state = now;
        }
        if (now - last_sync >= HALL__SYNC_MS) {
            hall_table_sync(l->t, REC_TIME_UNSET);
            last_sync = now;
        }
        if (r < 0) { /* the game ended: the caller drains */
            struct timespec ts = {0, 50 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    if (held)
        hall__live_state(l, held, &rev);
    game_feed_release(held);
    game_feed_detach(l->g);
    return NULL;
}

tt_status hall_live_start(game *g, hall_table *t, hall_live **out, tt_err *err)
{
    *out = NULL;
    hall_live *l = calloc(1, sizeof *l);
    if (!l)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    l->g = g;
    l->t = t;
    if (pthread_create(&l->th, NULL, hall__live_main, l) != 0) {
        free(l);
        return tt_err_set(err, TT_ERR_INTERNAL, "cannot start the MQTT publishing thread");
    }
    l->started = 1;
    *out = l;
    return TT_OK;
}

void hall_live_stop(hall_live *l)
{
    if (!l)
        return;
    l->stop = 1;
    if (l->started)
        pthread_join(l->th, NULL);
    free(l);
}
