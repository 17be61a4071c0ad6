/* hall_table.c - a table on the broker: its live messages, and its
 * recording sent as chunks until the hall's copy holds all of it: the
 * game being played, and (track) the recording's earlier games the hall
 * lacks, one at a time once the hall has answered and the game being
 * played is sent.
 *
 * Per game, `sent` is how far chunks have gone out.  It moves back to
 * where the hall's copy ends ("have", the hall's retained message
 * tabletrack/NAME/hall/GAME) when the hall asks ("need": it saw a gap),
 * when the connection comes back, and when the hall's copy has stood still
 * for HALL__STALE_MS behind `sent` with nothing in flight (chunks lost with
 * a broker that was killed).  The hall ignores what it already holds, so
 * sending again is always safe. */
#include "hall_conn.h"
#include "hall_publish.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rec_copy.h"

#define HALL__CHUNK_ROWS 2000 /* rows of each kind in one chunk, at most; fewer to keep it under HALL_MESSAGE_MAX bytes */
#define HALL__MAX_PENDING 64  /* QoS 1 messages in flight before we wait */
#define HALL__EARLY 256       /* acknowledgements that beat their publish call */
#define HALL__STALE_MS 4000
#define HALL__STALE_MAX_MS 300000
#define HALL__SETTLE_MS 1000  /* after a connection, the hall's retained answers come before earlier games go */

/* One game (a session of the recording) and how far the hall holds it. */
typedef struct hall__tgame {
    long long session;
    char game[96];
    rec_feed *feed;             /* earlier games: opened when their turn comes */
    /* the syncing thread only */
    rec_pos sent;
    int header_sent, done;      /* done: an earlier game the hall holds all of */
    size_t rows;                /* rows of each kind in its chunks now (halved while one is too big) */
    int too_big_told;           /* a single row over HALL_MESSAGE_MAX was told */
    int failed;                 /* an earlier game that could not be read (told once) */
    int out;                    /* an earlier game all sent while no hall answers */
    unsigned conn_seen;         /* the connection last rewound for */
    /* under the table's mu */
    rec_pos have;
    int claimed, need;          /* claimed: the hall said how far its copy goes */
    double have_ms;             /* when have last changed */
    double rewind_ms;
    double stale_ms;            /* how long a still copy waits before we send again (doubles each time) */
} hall__tgame;

struct hall_table {
    hall__conn *c;
    hall__tgame *games;         /* [0]: the game played (or replayed); then earlier ones, oldest first */
    size_t ngames;
    char name[65];
    char user[128];
    char rec_path[1024];
    char resend[1300];          /* the command that sends the game again */
    char resend_pre[600], resend_post[600]; /* the same, around its session */
    char game[96];
    char t_rec[128], t_hall[128], t_status[128];
    unsigned seen_trouble;

    pthread_mutex_t mu;         /* the rest is shared with the network thread */
    int pending[HALL__MAX_PENDING * 4];
    const char *pending_sub[HALL__MAX_PENDING * 4]; /* its topic under tabletrack/NAME/ (a literal) */
    size_t pending_len[HALL__MAX_PENDING * 4];      /* its bytes */
    size_t npending;
    int status_mid;
    char refused_topic[128];    /* the last topic the broker refused (ACL), and why */
    int refused_reason;
    unsigned refused_serial, refused_told, refused_mask;
    int early[HALL__EARLY];
    size_t nearly;
    int hall_seen;              /* a hall answered for this table */
    char hall_refused[512];     /* the hall refused this table, and why ("": it did not) */
    unsigned hall_refused_serial, hall_refused_told;
    int held;                   /* the drain ended with the hall saying it holds the whole game */
    size_t chunk_max;           /* bytes a chunk may hold: HALL_MESSAGE_MAX, halved each time the broker
                                 * refuses one as too large (its message_size_limit is lower) */
    unsigned too_large, too_large_seen, too_large_told; /* such refusals: counted, acted on, told */
    unsigned conn_serial;       /* counts connections */
    double connected_ms;        /* when the last one came */
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
    t->conn_serial++;
    t->connected_ms = tt_mono_ms();
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
    if (reason == HALL__RC_TOO_LARGE) { /* over the broker's message_size_limit: smaller chunks, sent again */
        t->too_large++;
        /* half the refused chunk (half what we allowed, when it was answered before publish returned) */
        size_t len = i < t->npending ? t->pending_len[i] : 0, half = (len ? len : t->chunk_max) / 2;
        if (sub && !strcmp(sub, "rec") && half < t->chunk_max)
            t->chunk_max = half > 1024 ? half : 1024;
    } else if (reason >= 128) { /* refused (MQTT v5): the broker will not take it however often it is sent */
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
        t->pending_len[i] = t->pending_len[t->npending];
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

/* The hall's answer for one game (tabletrack/NAME/hall/GAME); a hall
 * that speaks of other games holds nothing of the rest yet. */
static void hall__table_message(void *user, const char *topic, const void *payload, int len, int retained)
{
    (void)retained;
    hall_table *t = user;
    size_t n = strlen(t->t_hall);
    if (strncmp(topic, t->t_hall, n) != 0 || (topic[n] != '/' && topic[n] != '\0') || len <= 0)
        return;
    json_t *j = json_loadb(payload, (size_t)len, 0, NULL);
    const char *refused = json_string_value(json_object_get(j, "refused"));
    if (refused) { /* on tabletrack/NAME/hall: the hall will not keep this table's games */
        pthread_mutex_lock(&t->mu);
        if (strcmp(t->hall_refused, refused) != 0) {
            snprintf(t->hall_refused, sizeof t->hall_refused, "%s", refused);
            t->hall_refused_serial++;
        }
        pthread_mutex_unlock(&t->mu);
        json_decref(j);
        return;
    }
    const char *game = json_string_value(json_object_get(j, "game"));
    rec_pos have = rec_pos_empty();
    char *ht = json_dumps(json_object_get(j, "have"), JSON_COMPACT);
    if (!ht || rec_pos_parse(ht, strlen(ht), &have, NULL) != TT_OK)
        game = NULL;
    free(ht);
    if (game && topic[n] == '\0') { /* the newest game's answer: the hall keeps this table (again) */
        pthread_mutex_lock(&t->mu);
        t->hall_refused[0] = '\0';
        pthread_mutex_unlock(&t->mu);
        game = NULL; /* its game's own topic says the same */
    }
    if (game) {
        double now = tt_mono_ms();
        pthread_mutex_lock(&t->mu);
        for (size_t i = 0; i < t->ngames; i++) {
            hall__tgame *g = &t->games[i];
            int ours = !strcmp(game, g->game);
            if ((ours && (!g->claimed || memcmp(&have, &g->have, sizeof have) != 0)) || (!t->hall_seen && !g->claimed)) {
                g->have_ms = now;
                g->stale_ms = HALL__STALE_MS;
            }
            if (ours) {
                g->have = have;
                g->claimed = 1;
                if (json_is_true(json_object_get(j, "need")))
                    g->need = 1;
            }
        }
        t->hall_seen = 1;
        t->hall_refused[0] = '\0';
        pthread_mutex_unlock(&t->mu);
    }
    json_decref(j);
}

/* The command that sends session `session` later. */
static void hall__table_resend(const hall_table *t, long long session, char *buf, size_t n)
{
    if (snprintf(buf, n, "%s%lld%s", t->resend_pre, session, t->resend_post) >= (int)n && n > 4)
        memcpy(buf + n - 4, "...", 4);
}

/* A game to send: its state before anything went out. */
static void hall__tgame_init(hall__tgame *g, long long session, const char *game)
{
    memset(g, 0, sizeof *g);
    g->session = session;
    snprintf(g->game, sizeof g->game, "%s", game);
    g->sent = g->have = rec_pos_empty();
    g->stale_ms = HALL__STALE_MS;
    g->rows = HALL__CHUNK_ROWS;
}

/* The recording's sessions before the one sent, oldest first, as games to
 * send too (before the connection starts: the hall's answers for them may
 * come at once). */
static tt_status hall__table_add_earlier(hall_table *t, tt_err *err)
{
    rec_feed_session *ses = NULL;
    size_t n = 0;
    tt_status s = rec_feed_sessions(t->rec_path, &ses, &n, err);
    if (s != TT_OK)
        return s;
    size_t more = 0;
    for (size_t i = 0; i < n; i++)
        more += ses[i].id < t->games[0].session;
    hall__tgame *g = more ? realloc(t->games, (t->ngames + more) * sizeof *g) : t->games;
    if (!g) {
        free(ses);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    pthread_mutex_lock(&t->mu);
    t->games = g;
    for (size_t i = 0; i < n; i++)
        if (ses[i].id < t->games[0].session)
            hall__tgame_init(&t->games[t->ngames++], ses[i].id, ses[i].game);
    pthread_mutex_unlock(&t->mu);
    free(ses);
    return TT_OK;
}

tt_status hall_table_create(const hall_mqtt_opts *o, const char *name, const char *rec_path, long long session,
                            int earlier, hall_table **out, tt_err *err)
{
    *out = NULL;
    if (!hall_name_ok(name))
        return tt_err_set(err, TT_ERR_ARG, "--table %s: name a table with 1 to 64 letters, digits, '-' or '_' "
                          "(e.g. table-07)", name ? name : "");
    hall_table *t = calloc(1, sizeof *t);
    if (!t)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&t->mu, NULL);
    t->chunk_max = HALL_MESSAGE_MAX;
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->user, sizeof t->user, "%s", o->user ? o->user : "");
    if (snprintf(t->rec_path, sizeof t->rec_path, "%s", rec_path) >= (int)sizeof t->rec_path) {
        hall_table_destroy(t);
        return tt_err_set(err, TT_ERR_ARG, "--record %.100s...: a path longer than %zu characters", rec_path,
                          sizeof t->rec_path - 1);
    }
    hall__topic(t->t_rec, sizeof t->t_rec, name, "rec");
    hall__topic(t->t_hall, sizeof t->t_hall, name, "hall");
    hall__topic(t->t_status, sizeof t->t_status, name, "status");
    rec_feed *feed = NULL;
    tt_status s = rec_feed_open(rec_path, session, &feed, err);
    if (s == TT_OK && !(t->games = calloc(1, sizeof *t->games))) {
        rec_feed_close(feed);
        s = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    if (s != TT_OK)
        goto fail;
    snprintf(t->game, sizeof t->game, "%s", rec_feed_game(feed));
    hall__tgame_init(&t->games[0], rec_feed_session_id(feed), t->game);
    t->games[0].feed = feed;
    t->ngames = 1;
    /* the command that sends a game later */
    snprintf(t->resend_pre, sizeof t->resend_pre, "tabletrack replay %.400s --session ", rec_path);
    char *r = t->resend_post;
    size_t rn = sizeof t->resend_post;
    int n = snprintf(r, rn, " --mqtt %.200s --table %s --speed 10000", o->broker, name);
    if (o->user && n > 0 && (size_t)n < rn)
        n += snprintf(r + n, rn - (size_t)n, " --mqtt-user %.100s", o->user);
    if (o->password_file && n > 0 && (size_t)n < rn)
        n += snprintf(r + n, rn - (size_t)n, " --mqtt-password-file %.150s", o->password_file);
    if (o->cafile && n > 0 && (size_t)n < rn)
        snprintf(r + n, rn - (size_t)n, " --mqtt-cafile %.150s", o->cafile);
    hall__table_resend(t, t->games[0].session, t->resend, sizeof t->resend);
    if (earlier && (s = hall__table_add_earlier(t, err)) != TT_OK)
        goto fail;
    char id[96], will[128];
    snprintf(id, sizeof id, "tabletrack-table-%s", name);
    snprintf(will, sizeof will, "{\"connected\":false,\"game\":\"%s\"}", t->game);
    char sub[140];
    snprintf(sub, sizeof sub, "%s/+", t->t_hall);
    const char *subs[] = {sub, t->t_hall, NULL}; /* per game, and the hall's word on this table */
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
    for (size_t i = 0; i < t->ngames; i++)
        rec_feed_close(t->games[i].feed);
    free(t->games);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

int hall_table_held(const hall_table *t)
{
    return t && t->held;
}

long long hall_table_t0(const hall_table *t)
{
    return t && t->ngames ? rec_feed_t0(t->games[0].feed) : 0;
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
        t->pending_len[t->npending] = len;
        t->pending[t->npending++] = mid;
    }
    pthread_mutex_unlock(&t->mu);
    return 0;
}

void hall_table_publish(hall_table *t, const char *sub, const char *json, size_t len)
{
    if (!t || len > HALL_MESSAGE_MAX || !hall__conn_connected(t->c))
        return; /* too big for the broker and the hall: dropped, as while the broker is away */
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

/* Move game g's `sent` back to where the hall's copy ends when the hall
 * asks, after a reconnection, or when its copy stood still (see the top). */
static void hall__tgame_rewind(hall_table *t, hall__tgame *g, double now)
{
    pthread_mutex_lock(&t->mu);
    int rewind = 0;
    if (t->hall_seen && rec_pos_covers(&g->have, &g->sent))
        g->need = 0; /* the hall holds all we sent */
    /* a hall that stays still (stopped, its message left on the broker) is
     * sent the game again less and less often: 4 s, 8 s ... 5 min */
    int stale = !rec_pos_covers(&g->have, &g->sent) && t->npending == 0 && now - g->have_ms > g->stale_ms &&
                now - g->rewind_ms > g->stale_ms;
    if (stale && g->stale_ms < HALL__STALE_MAX_MS)
        g->stale_ms *= 2;
    int asked = g->need && now - g->rewind_ms > 1000; /* one rewind a second, however many gaps the hall saw */
    int reconnected = g->conn_seen != t->conn_serial;
    g->conn_seen = t->conn_serial;
    if (t->hall_seen && (asked || reconnected || stale))
        rewind = 1;
    if (rewind) {
        g->need = 0;
        g->rewind_ms = now;
    }
    rec_pos have = g->have;
    pthread_mutex_unlock(&t->mu);
    if (rewind && !hall__pos_equal(&have, &g->sent)) {
        g->sent = have;
        g->header_sent = 0;
    }
}

/* Send game g's next chunks (up to until_ms); 1 when all it holds so far
 * has gone out. */
static int hall__tgame_send(hall_table *t, hall__tgame *g, long long until_ms)
{
    for (int k = 0; k < 8; k++) {
        pthread_mutex_lock(&t->mu);
        size_t pend = t->npending, max = t->chunk_max;
        pthread_mutex_unlock(&t->mu);
        if (pend >= HALL__MAX_PENDING)
            return 0;
        char *chunk = NULL;
        rec_pos to;
        tt_err e = {0};
        if (rec_feed_next(g->feed, &g->sent, until_ms, g->rows, &chunk, &to, &e) != TT_OK) {
            fprintf(stderr, "tabletrack table: reading the recording to send it: %s\n", e.msg);
            return 0;
        }
        if (!chunk)
            return 1;
        size_t len = strlen(chunk);
        if (len > max) { /* the broker and the hall take no more: fewer rows */
            free(chunk);
            if (g->rows > 1) {
                g->rows /= 2;
                continue;
            }
            if (!g->too_big_told) {
                g->too_big_told = 1;
                fprintf(stderr, "tabletrack table: one row of game %s is %zu bytes, more than the %zu bytes a message "
                        "to the hall may hold: the rest of the game cannot be sent (the recording here holds it all)\n",
                        g->game, len, max);
                fflush(stderr);
            }
            return 0;
        }
        if (len < max / 4 && g->rows < HALL__CHUNK_ROWS)
            g->rows = g->rows * 2 < HALL__CHUNK_ROWS ? g->rows * 2 : HALL__CHUNK_ROWS;
        int same = hall__pos_equal(&to, &g->sent);
        if (same && g->header_sent) {
            free(chunk);
            return 1;
        }
        int ok = hall__table_send1(t, "rec", t->t_rec, chunk, len, 0) == 0;
        free(chunk);
        if (!ok)
            return 0;
        g->sent = to;
        g->header_sent = 1;
        if (same)
            return 1;
    }
    return 0;
}

/* Everything the recording holds of game g has gone out. */
static int hall__tgame_sent_all(hall__tgame *g)
{
    char *chunk = NULL;
    rec_pos to;
    int all = g->feed && rec_feed_next(g->feed, &g->sent, REC_TIME_UNSET, 1, &chunk, &to, NULL) == TT_OK &&
              (!chunk || hall__pos_equal(&to, &g->sent));
    free(chunk);
    return all;
}

/* The earlier games: the first the hall lacks is sent, from where its
 * copy ends; a game the hall holds all of is done.  While no hall answers
 * they all go out in turn (the broker keeps them for a hall's lasting
 * session). */
static void hall__table_earlier(hall_table *t, int hall)
{
    for (size_t i = 1; i < t->ngames; i++) {
        hall__tgame *g = &t->games[i];
        if (g->done || g->failed)
            continue;
        if (!g->feed) {
            tt_err e = {0};
            if (rec_feed_open(t->rec_path, g->session, &g->feed, &e) != TT_OK) {
                fprintf(stderr, "tabletrack table: reading the earlier game %s to send it: %s\n", g->game, e.msg);
                g->failed = 1; /* told once; the rest go on */
                continue;
            }
            pthread_mutex_lock(&t->mu);
            g->sent = g->have; /* from where the hall's copy ends */
            pthread_mutex_unlock(&t->mu);
            g->header_sent = 0;
        }
        int out = hall__tgame_send(t, g, REC_TIME_UNSET);
        pthread_mutex_lock(&t->mu);
        int held = rec_pos_covers(&g->have, &g->sent);
        pthread_mutex_unlock(&t->mu);
        int all = out && hall__tgame_sent_all(g);
        if (all && !held && !hall) {
            g->out = 1;
            continue;
        }
        if (all && held) {
            g->done = 1;
            rec_feed_close(g->feed);
            g->feed = NULL;
            fprintf(stderr, "tabletrack table: the hall holds the earlier game %s (session %lld)\n", g->game,
                    g->session);
            fflush(stderr);
            continue;
        }
        return; /* one at a time */
    }
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
    if (t->hall_refused[0] && t->hall_refused_serial != t->hall_refused_told) {
        t->hall_refused_told = t->hall_refused_serial;
        fprintf(stderr, "tabletrack table: the hall refused this table: %s. The game goes on and is recorded here; "
                "send it later with: %s\n", t->hall_refused, t->resend);
        fflush(stderr);
    }
    int hall = t->hall_seen, settled = now - t->connected_ms >= HALL__SETTLE_MS;
    int too_large = t->too_large != t->too_large_seen;
    t->too_large_seen = t->too_large;
    size_t chunk_max = t->chunk_max;
    if (too_large && t->too_large_told++ == 0) {
        fprintf(stderr, "tabletrack table: the broker refused a message as too large (its message_size_limit is below "
                "the %u bytes tabletrack sends at most; samples/hall/mosquitto.conf sets 1048576): the recording now "
                "goes in chunks of at most %zu bytes\n", HALL_MESSAGE_MAX, chunk_max);
        fflush(stderr);
    }
    pthread_mutex_unlock(&t->mu);
    if (too_large) /* a refused chunk is lost: each game again from where the hall's copy ends (or the start) */
        for (size_t i = 0; i < t->ngames; i++)
            if (i == 0 || (t->games[i].feed && !t->games[i].done)) {
                pthread_mutex_lock(&t->mu);
                t->games[i].sent = t->games[i].have;
                pthread_mutex_unlock(&t->mu);
                t->games[i].header_sent = 0;
            }
    for (size_t i = 0; i < t->ngames; i++)
        if (i == 0 || (t->games[i].feed && !t->games[i].done))
            hall__tgame_rewind(t, &t->games[i], now);
    if (!hall__conn_connected(t->c))
        return;
    /* the game played first; earlier games once the hall's answers are in */
    if (hall__tgame_send(t, &t->games[0], until_ms) && settled)
        hall__table_earlier(t, hall);
}

/* The earlier games not done (sent, when no hall answers), as " 1 3"
 * into buf; their count. */
static size_t hall__table_left(const hall_table *t, int hall, char *buf, size_t n)
{
    size_t left = 0, k = 0;
    buf[0] = '\0';
    for (size_t i = 1; i < t->ngames; i++)
        if (!t->games[i].done && (hall || !t->games[i].out)) {
            left++;
            if (k < n)
                k += (size_t)snprintf(buf + k, n - k, " %lld", t->games[i].session);
        }
    return left;
}

tt_status hall_table_drain(hall_table *t, int timeout_s, const volatile sig_atomic_t *stop, tt_err *err)
{
    double end = tt_mono_ms() + timeout_s * 1000.0;
    hall__tgame *g0 = &t->games[0];
    rec_pos all = rec_pos_empty();
    int done = 0;
    char left[200];
    for (;;) {
        hall_table_sync(t, REC_TIME_UNSET);
        /* everything the recording holds has gone out... */
        int sent_all = hall__tgame_sent_all(g0);
        pthread_mutex_lock(&t->mu);
        size_t pend = t->npending;
        int hall = t->hall_seen;
        rec_pos have = g0->have;
        int acl = t->refused_serial != 0, hall_refused = t->hall_refused[0] != '\0';
        pthread_mutex_unlock(&t->mu);
        all = g0->sent;
        /* ... the broker took it (and refused none), and the hall (if one
         * answers) holds it, and every earlier game */
        if (sent_all && hall__conn_connected(t->c) && pend == 0 && !acl && !hall_refused &&
            !hall__table_left(t, hall, left, sizeof left) && (!hall || rec_pos_covers(&have, &all))) {
            done = 1;
            t->held = hall; /* the hall said so; without a hall, only the broker has it */
            break;
        }
        int refused = acl || hall_refused;
        hall__conn_trouble(t->c, NULL, 0, NULL, refused ? NULL : &refused);
        /* a refused password or topic will not change by itself */
        if (tt_mono_ms() > end || (stop && *stop) || refused)
            break;
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
    }
    size_t nleft = hall__table_left(t, 1, left, sizeof left);
    if (done) {
        if (nleft) /* no hall answered */
            fprintf(stderr, "tabletrack table: no hall answered for this table: the broker took this recording's "
                    "earlier games too (session%s%s); a hall that was not listening gets them the next time this "
                    "table plays with --mqtt\n", nleft > 1 ? "s" : "", left);
        return TT_OK;
    }
    if (nleft) { /* on a line of its own: the error below may be long */
        char one[1300];
        size_t i = 1;
        while (t->games[i].done)
            i++;
        hall__table_resend(t, t->games[i].session, one, sizeof one);
        fprintf(stderr, "tabletrack table: undelivered: earlier games of this recording (session%s%s), which the hall "
                "lacks; they are sent the next time this table plays with --mqtt, or now each with: %s\n",
                nleft > 1 ? "s" : "", left, one);
        fflush(stderr);
    }
    pthread_mutex_lock(&t->mu);
    size_t pend = t->npending;
    int hall = t->hall_seen;
    rec_pos have = g0->have;
    pthread_mutex_unlock(&t->mu);
    char trouble[2048];
    pthread_mutex_lock(&t->mu);
    int acl = t->refused_serial != 0;
    if (acl)
        hall__table_refusal(t, trouble, sizeof trouble);
    else if (t->hall_refused[0])
        snprintf(trouble, sizeof trouble, "%s", t->hall_refused);
    int hall_refused = !acl && t->hall_refused[0];
    pthread_mutex_unlock(&t->mu);
    if (acl)
        return tt_err_set(err, TT_ERR_IO, "undelivered: %s", trouble);
    if (hall_refused)
        return tt_err_set(err, TT_ERR_IO, "undelivered: the hall refused this table: %s. The recording holds it all: "
                          "once the organiser makes room, send it with: %s", trouble, t->resend);
    hall__conn_trouble(t->c, trouble, sizeof trouble, NULL, NULL);
    if (!hall__conn_connected(t->c))
        return tt_err_set(err, TT_ERR_IO, "undelivered: the broker never took the end of the game (%s). The recording "
                          "holds it all: once the broker answers, send it with: %s",
                          trouble[0] ? trouble : "not connected", t->resend);
    if (hall && !rec_pos_covers(&have, &all))
        return tt_err_set(err, TT_ERR_IO, "undelivered: the hall holds the game up to frame %lld; %lld rows%s are "
                          "missing there (%zu messages in flight). The recording holds it all: send the rest with: %s",
                          have.frame, rec_pos_rows_between(&have, &all), all.ended && !have.ended ? " and the end" : "",
                          pend, t->resend);
    if (hall)
        return tt_err_set(err, TT_ERR_IO, "undelivered: the hall holds this game, not yet the earlier ones above (%zu "
                          "messages in flight)", pend);
    return tt_err_set(err, TT_ERR_IO, "undelivered: %zu messages were not taken by the broker. The recording holds it "
                      "all: send it with: %s", pend, t->resend);
}
