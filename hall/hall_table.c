/* hall_table.c - a table on the broker: its live messages, and its
 * recording sent as chunks until the hall's copy holds all of it.
 *
 * `sent` is how far chunks have gone out.  It moves back to where the
 * hall's copy ends ("have", the hall's retained message) when the hall
 * asks ("need": it saw a gap), when the connection comes back, and when
 * the hall's copy has stood still for HALL__STALE_MS behind `sent` with
 * nothing in flight (chunks lost with a broker that was killed).  The hall
 * ignores what it already holds, so sending again is always safe. */
#include "hall_internal.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rec_copy.h"

#define HALL__CHUNK_ROWS 2000 /* rows of each kind in one chunk */
#define HALL__MAX_PENDING 64  /* QoS 1 messages in flight before we wait */
#define HALL__EARLY 256       /* acknowledgements that beat their publish call */
#define HALL__STALE_MS 4000
#define HALL__STALE_MAX_MS 300000

struct hall_table {
    hall__conn *c;
    rec_feed *feed;
    char name[65];
    char user[128];
    char resend[1200];          /* the command that sends the game again */
    char game[96];
    char t_rec[128], t_hall[128], t_status[128];
    unsigned seen_trouble;
    int header_sent;
    rec_pos sent;               /* only the syncing thread touches it */

    pthread_mutex_t mu;         /* the rest is shared with the network thread */
    int pending[HALL__MAX_PENDING * 4];
    const char *pending_sub[HALL__MAX_PENDING * 4]; /* its topic under tabletrack/NAME/ (a literal) */
    size_t npending;
    int status_mid;
    char refused_topic[128];    /* the last topic the broker refused (ACL), and why */
    int refused_reason;
    unsigned refused_serial, refused_told, refused_mask;
    int early[HALL__EARLY];
    size_t nearly;
    rec_pos have;               /* the hall's copy of our game */
    int hall_seen, need, reconnected;
    double have_ms;             /* when have last changed */
    double rewind_ms;
    double stale_ms;            /* how long a still copy waits before we send again (doubles each time) */
};

static void hall__table_status(hall_table *t, int connected)
{
    char buf[256];
    int n = snprintf(buf, sizeof buf, "{\"connected\":%s,\"game\":\"%s\"}", connected ? "true" : "false", t->game);
    int mid = 0;
    hall__conn_publish(t->c, t->t_status, buf, (size_t)n, 1, 1, &mid);
    pthread_mutex_lock(&t->mu);
    t->status_mid = mid;
    pthread_mutex_unlock(&t->mu);
}

static void hall__table_connected(void *user)
{
    hall_table *t = user;
    pthread_mutex_lock(&t->mu);
    t->reconnected = 1;
    t->npending = 0; /* the client sends its unacknowledged messages again itself */
    pthread_mutex_unlock(&t->mu);
    hall__table_status(t, 1);
}

static void hall__table_published(void *user, int mid, int reason)
{
    hall_table *t = user;
    pthread_mutex_lock(&t->mu);
    size_t i;
    for (i = 0; i < t->npending && t->pending[i] != mid; i++)
        ;
    const char *sub = i < t->npending ? t->pending_sub[i] : mid == t->status_mid ? "status" : NULL;
    if (reason >= 128) { /* refused (MQTT v5): the broker will not take it however often it is sent */
        static const char *const subs[] = {"status", "event", "answer", "scenario", "rec"};
        unsigned bit = 1u << 5; /* a topic we cannot name */
        for (unsigned k = 0; sub && k < 5; k++)
            if (!strcmp(sub, subs[k]))
                bit = 1u << k;
        if (!(t->refused_mask & bit)) { /* told once a topic */
            t->refused_mask |= bit;
            hall__topic(t->refused_topic, sizeof t->refused_topic, t->name, sub ? sub : "...");
            t->refused_reason = reason;
            t->refused_serial++;
        }
    }
    if (i < t->npending) {
        t->npending--;
        t->pending[i] = t->pending[t->npending];
        t->pending_sub[i] = t->pending_sub[t->npending];
    } else { /* before publish returned, or a QoS 0 message */
        t->early[t->nearly++ % HALL__EARLY] = mid;
    }
    pthread_mutex_unlock(&t->mu);
}

/* The broker refused a topic: what to do, once per refusal.  The caller
 * holds mu. */
static void hall__table_refusal(hall_table *t, char *buf, size_t n)
{
    snprintf(buf, n,
             "the broker refused %s (%s): the user %s may not write there. A table writes only under "
             "tabletrack/TABLE/ for the table its user may write (samples/hall/hall.acl: the user's own name): give "
             "--table the name the organiser's ACL allows for this user, or ask the organiser to allow this table. "
             "The game goes on and is recorded here; send it later with: %s",
             t->refused_topic, hall__reason(t->refused_reason), t->user[0] ? t->user : "(anonymous)", t->resend);
}

static void hall__table_message(void *user, const char *topic, const void *payload, int len, int retained)
{
    (void)retained;
    hall_table *t = user;
    if (strcmp(topic, t->t_hall) != 0 || len <= 0)
        return;
    json_t *j = json_loadb(payload, (size_t)len, 0, NULL);
    const char *game = json_string_value(json_object_get(j, "game"));
    rec_pos have = rec_pos_empty(); /* a hall that speaks of another game holds nothing of ours yet */
    int ours = game && !strcmp(game, t->game);
    if (ours) {
        char *ht = json_dumps(json_object_get(j, "have"), JSON_COMPACT);
        if (!ht || rec_pos_parse(ht, strlen(ht), &have, NULL) != TT_OK)
            game = NULL;
        free(ht);
    }
    if (game) {
        pthread_mutex_lock(&t->mu);
        if (!t->hall_seen || memcmp(&have, &t->have, sizeof have) != 0) {
            t->have_ms = tt_mono_ms();
            t->stale_ms = HALL__STALE_MS;
        }
        t->have = have;
        t->hall_seen = 1;
        if (ours && json_is_true(json_object_get(j, "need")))
            t->need = 1;
        pthread_mutex_unlock(&t->mu);
    }
    json_decref(j);
}

tt_status hall_table_create(const hall_mqtt_opts *o, const char *name, const char *rec_path, long long session,
                            hall_table **out, tt_err *err)
{
    *out = NULL;
    if (!hall_name_ok(name))
        return tt_err_set(err, TT_ERR_ARG, "--table %s: name a table with 1 to 64 letters, digits, '-' or '_' "
                          "(e.g. table-07)", name ? name : "");
    hall_table *t = calloc(1, sizeof *t);
    if (!t)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&t->mu, NULL);
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->user, sizeof t->user, "%s", o->user ? o->user : "");
    hall__topic(t->t_rec, sizeof t->t_rec, name, "rec");
    hall__topic(t->t_hall, sizeof t->t_hall, name, "hall");
    hall__topic(t->t_status, sizeof t->t_status, name, "status");
    t->sent = t->have = rec_pos_empty();
    t->stale_ms = HALL__STALE_MS;
    tt_status s = rec_feed_open(rec_path, session, &t->feed, err);
    if (s != TT_OK)
        goto fail;
    snprintf(t->game, sizeof t->game, "%s", rec_feed_game(t->feed));
    const char *hash = strrchr(t->game, '#');
    int n = snprintf(t->resend, sizeof t->resend, "tabletrack replay %.400s --session %s --mqtt %.200s --table %s "
                     "--speed 10000", rec_path, hash ? hash + 1 : "1", o->broker, name);
    if (o->user && n > 0 && (size_t)n < sizeof t->resend)
        n += snprintf(t->resend + n, sizeof t->resend - (size_t)n, " --mqtt-user %.100s", o->user);
    if (o->password_file && n > 0 && (size_t)n < sizeof t->resend)
        n += snprintf(t->resend + n, sizeof t->resend - (size_t)n, " --mqtt-password-file %.200s", o->password_file);
    if (o->cafile && n > 0 && (size_t)n < sizeof t->resend)
        snprintf(t->resend + n, sizeof t->resend - (size_t)n, " --mqtt-cafile %.200s", o->cafile);
    char id[96], will[128];
    snprintf(id, sizeof id, "tabletrack-table-%s", name);
    snprintf(will, sizeof will, "{\"connected\":false,\"game\":\"%s\"}", t->game);
    const char *subs[] = {t->t_hall, NULL};
    hall__conn_cbs cbs = {hall__table_message, hall__table_connected, hall__table_published, t};
    if ((s = hall__conn_create(o, id, 1, subs, t->t_status, will, &cbs, &t->c, err)) != TT_OK)
        goto fail;
    *out = t;
    return TT_OK;
fail:
    hall_table_destroy(t);
    return s;
}

void hall_table_destroy(hall_table *t)
{
    if (!t)
        return;
    if (t->c && hall__conn_connected(t->c))
        hall__table_status(t, 0);
    hall__conn_destroy(t->c);
    rec_feed_close(t->feed);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

long long hall_table_t0(const hall_table *t)
{
    return t ? rec_feed_t0(t->feed) : 0;
}

/* Publish at QoS 1 and count it in flight until the broker takes it.
 * sub: the topic under tabletrack/NAME/, a literal. */
static int hall__table_send1(hall_table *t, const char *sub, const char *topic, const char *payload, size_t len,
                             int retain)
{
    int mid = 0;
    pthread_mutex_lock(&t->mu);
    int full = t->npending >= sizeof t->pending / sizeof t->pending[0];
    pthread_mutex_unlock(&t->mu);
    if (full || hall__conn_publish(t->c, topic, payload, len, 1, retain, &mid) != 0)
        return -1;
    pthread_mutex_lock(&t->mu);
    size_t n = t->nearly < HALL__EARLY ? t->nearly : HALL__EARLY, i;
    for (i = 0; i < n && t->early[i] != mid; i++)
        ;
    if (i < n) {
        t->early[i] = 0; /* already taken */
    } else {
        t->pending_sub[t->npending] = sub;
        t->pending[t->npending++] = mid;
    }
    pthread_mutex_unlock(&t->mu);
    return 0;
}

void hall_table_publish(hall_table *t, const char *sub, const char *json, size_t len)
{
    if (!t || !hall__conn_connected(t->c))
        return;
    char topic[128];
    hall__topic(topic, sizeof topic, t->name, sub);
    if (!strcmp(sub, "state"))
        hall__conn_publish(t->c, topic, json, len, 0, 1, NULL);
    else
        hall__table_send1(t, !strcmp(sub, "event") ? "event" : !strcmp(sub, "answer") ? "answer" : "scenario", topic,
                          json, len, strcmp(sub, "event") != 0);
}

static int hall__pos_equal(const rec_pos *a, const rec_pos *b)
{
    return rec_pos_same_rows(a, b) && a->frame == b->frame && a->ended == b->ended;
}

void hall_table_sync(hall_table *t, long long until_ms)
{
    if (!t)
        return;
    hall__conn_report(t->c, "table", &t->seen_trouble);
    double now = tt_mono_ms();
    pthread_mutex_lock(&t->mu);
    if (t->refused_serial != t->refused_told) {
        char msg[2048];
        t->refused_told = t->refused_serial;
        hall__table_refusal(t, msg, sizeof msg);
        fprintf(stderr, "tabletrack table: %s\n", msg);
        fflush(stderr);
    }
    int rewind = 0;
    if (t->hall_seen && rec_pos_covers(&t->have, &t->sent))
        t->need = 0; /* the hall holds all we sent */
    /* a hall that stays still (stopped, its message left on the broker) is
     * sent the game again less and less often: 4 s, 8 s ... 5 min */
    int stale = !rec_pos_covers(&t->have, &t->sent) && t->npending == 0 && now - t->have_ms > t->stale_ms &&
                now - t->rewind_ms > t->stale_ms;
    if (stale && t->stale_ms < HALL__STALE_MAX_MS)
        t->stale_ms *= 2;
    int asked = t->need && now - t->rewind_ms > 1000; /* one rewind a second, however many gaps the hall saw */
    if (t->hall_seen && (asked || t->reconnected || stale))
        rewind = 1;
    if (rewind)
        t->need = 0;
    t->reconnected = 0;
    rec_pos have = t->have;
    if (rewind)
        t->rewind_ms = now;
    pthread_mutex_unlock(&t->mu);
    if (rewind && !hall__pos_equal(&have, &t->sent)) {
        t->sent = have;
        t->header_sent = 0;
    }
    if (!hall__conn_connected(t->c))
        return;
    for (int k = 0; k < 8; k++) {
        pthread_mutex_lock(&t->mu);
        size_t pend = t->npending;
        pthread_mutex_unlock(&t->mu);
        if (pend >= HALL__MAX_PENDING)
            break;
        char *chunk = NULL;
        rec_pos to;
        tt_err e = {0};
        if (rec_feed_next(t->feed, &t->sent, until_ms, HALL__CHUNK_ROWS, &chunk, &to, &e) != TT_OK) {
            fprintf(stderr, "tabletrack table: reading the recording to send it: %s\n", e.msg);
            break;
        }
        if (!chunk)
            break;
        int same = hall__pos_equal(&to, &t->sent);
        if (same && t->header_sent) {
            free(chunk);
            break;
        }
        int ok = hall__table_send1(t, "rec", t->t_rec, chunk, strlen(chunk), 0) == 0;
        free(chunk);
        if (!ok)
            break;
        t->sent = to;
        t->header_sent = 1;
        if (same)
            break;
    }
}

tt_status hall_table_drain(hall_table *t, int timeout_s, const volatile sig_atomic_t *stop, tt_err *err)
{
    double end = tt_mono_ms() + timeout_s * 1000.0;
    rec_pos all = rec_pos_empty();
    int done = 0;
    for (;;) {
        hall_table_sync(t, REC_TIME_UNSET);
        /* everything the recording holds has gone out... */
        char *chunk = NULL;
        rec_pos to;
        int sent_all = rec_feed_next(t->feed, &t->sent, REC_TIME_UNSET, 1, &chunk, &to, NULL) == TT_OK &&
                       (!chunk || hall__pos_equal(&to, &t->sent));
        free(chunk);
        pthread_mutex_lock(&t->mu);
        size_t pend = t->npending;
        int hall = t->hall_seen;
        rec_pos have = t->have;
        pthread_mutex_unlock(&t->mu);
        all = t->sent;
        pthread_mutex_lock(&t->mu);
        int acl = t->refused_serial != 0;
        pthread_mutex_unlock(&t->mu);
        /* ... the broker took it (and refused none), and the hall (if one answers) holds it */
        if (sent_all && hall__conn_connected(t->c) && pend == 0 && !acl && (!hall || rec_pos_covers(&have, &all))) {
            done = 1;
            break;
        }
        int refused = acl;
        hall__conn_trouble(t->c, NULL, 0, NULL, refused ? NULL : &refused);
        /* a refused password or topic will not change by itself */
        if (tt_mono_ms() > end || (stop && *stop) || refused)
            break;
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (done)
        return TT_OK;
    pthread_mutex_lock(&t->mu);
    size_t pend = t->npending;
    int hall = t->hall_seen;
    rec_pos have = t->have;
    pthread_mutex_unlock(&t->mu);
    char trouble[2048];
    pthread_mutex_lock(&t->mu);
    int acl = t->refused_serial != 0;
    if (acl)
        hall__table_refusal(t, trouble, sizeof trouble);
    pthread_mutex_unlock(&t->mu);
    if (acl)
        return tt_err_set(err, TT_ERR_IO, "undelivered: %s", trouble);
    hall__conn_trouble(t->c, trouble, sizeof trouble, NULL, NULL);
    if (!hall__conn_connected(t->c))
        return tt_err_set(err, TT_ERR_IO, "undelivered: the broker never took the end of the game (%s). The recording "
                          "holds it all: once the broker answers, send it with: %s",
                          trouble[0] ? trouble : "not connected", t->resend);
    if (hall)
        return tt_err_set(err, TT_ERR_IO, "undelivered: the hall holds the game up to frame %lld; %lld rows%s are "
                          "missing there (%zu messages in flight). The recording holds it all: send the rest with: %s",
                          have.frame, rec_pos_rows_between(&have, &all), all.ended && !have.ended ? " and the end" : "",
                          pend, t->resend);
    return tt_err_set(err, TT_ERR_IO, "undelivered: %zu messages were not taken by the broker. The recording holds it "
                      "all: send it with: %s", pend, t->resend);
}
