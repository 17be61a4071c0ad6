/* hall_live.c - 'track --mqtt': a thread that follows the game's live feed
 * and publishes it under tabletrack/NAME/ (hall.h), and sends the
 * recording's new content every HALL__SYNC_MS. */
#include "hall_internal.h"

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

/* "event: E\ndata: D\n\n" -> E and D (D is in the text; its length). */
static int hall__sse_split(const char *text, size_t len, char *ev, size_t evn, const char **data, size_t *dlen)
{
    if (len < 7 || strncmp(text, "event: ", 7) != 0)
        return 0;
    const char *nl = memchr(text, '\n', len);
    if (!nl || (size_t)(nl - text - 7) >= evn || strncmp(nl + 1, "data: ", 6) != 0)
        return 0;
    memcpy(ev, text + 7, (size_t)(nl - text - 7));
    ev[nl - text - 7] = '\0';
    *data = nl + 7;
    const char *end = text + len;
    while (end > *data && end[-1] == '\n')
        end--;
    *dlen = (size_t)(end - *data);
    return 1;
}

/* The state, with "sent_ms" added, and its scenario revision. */
static void hall__live_state(hall_live *l, const char *data, size_t len, long long *rev)
{
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
    char *held = NULL; /* the newest state not yet published */
    size_t held_len = 0;
    while (!l->stop) {
        game_feed_msg *m = NULL;
        int r = game_feed_next(l->g, &cursor, 50, &m);
        if (r > 0) {
            size_t len, dlen;
            const char *text = game_feed_msg_text(m, &len), *data;
            char ev[32];
            if (hall__sse_split(text, len, ev, sizeof ev, &data, &dlen)) {
                if (!strcmp(ev, "state")) {
                    char *copy = malloc(dlen + 1);
                    if (copy) {
                        memcpy(copy, data, dlen);
                        copy[dlen] = '\0';
                        free(held);
                        held = copy;
                        held_len = dlen;
                    }
                } else if (!strcmp(ev, "event") || !strcmp(ev, "answer")) {
                    hall_table_publish(l->t, ev, data, dlen);
                }
            }
            game_feed_release(m);
        }
        double now = tt_mono_ms();
        if (held && now - last_state >= 1000.0 / HALL_STATE_MAX_HZ) {
            hall__live_state(l, held, held_len, &rev);
            free(held);
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
        hall__live_state(l, held, held_len, &rev);
    free(held);
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
