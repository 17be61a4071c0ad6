/* hall_server.c - 'tabletrack hall': every table's messages from the
 * broker, a copy of every table's recording in DIR/NAME.sqlite, and the
 * hall's answer per game of each table (tabletrack/NAME/hall/GAME: how far
 * its copy of that game goes, and "need" when a chunk left a gap; and
 * tabletrack/NAME/hall for the table's newest game). */
#include "hall_internal.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "rec_copy.h"

#define HALL__MAX_TABLES 1000
#define HALL__LAT 8192      /* latency samples kept */
#define HALL__ACK_MS 200    /* the hall's answer at most this often per table */
#define HALL__MAX_JOBS 20000 /* chunks waiting to be written; beyond, dropped (the tables send them again) */

#define HALL__MAX_GAMES 10000 /* games per table answered for */

/* One game of a table, as far as the hall's copy holds it. */
typedef struct hall__game {
    char game[96];
    rec_pos have;
    int ack_dirty, need, ended_told;
    double ack_ms;
} hall__game;

typedef struct hall__tab {
    char name[65];
    /* network thread only */
    rec_copy *copy;
    int copy_failed;
    /* under the server's mu */
    hall__game *games;
    size_t ngames;
    char game[96];      /* the newest game (the table's latest session in the copy) */
    long long session;  /* its session in the copy */
    rec_pos have;
    char *state, *answer;
    char ruleset[64];
    long long frame;
    double t_ms;
    int figures, connected, has_state;
    long long seen_ms; /* Unix ms of the last news, 0: none */
} hall__tab;

struct hall_server {
    hall__conn *c;
    hall__http *http;
    char *dir;
    char url[300];
    pthread_mutex_t mu;
    hall__tab **tabs;
    size_t ntabs;
    pthread_t ticker;
    int ticker_started;
    /* chunks go to the writer thread, so the network thread (live states)
     * never waits for the disk */
    pthread_mutex_t qmu;
    pthread_cond_t qcv;
    struct hall__job *qhead, *qtail;
    size_t qlen;
    int qstop;
    pthread_t writer;
    int writer_started;
    volatile int stop;
    unsigned seen_trouble;
    double lat[HALL__LAT];
    size_t nlat;
    long long chunks, gaps, states;
};

typedef struct hall__job {
    struct hall__job *next;
    hall__tab *t;
    int len;
    char data[];
} hall__job;

/* The table of that name, made when new; the caller holds mu. */
static hall__tab *hall__tab_get(hall_server *h, const char *name)
{
    for (size_t i = 0; i < h->ntabs; i++)
        if (!strcmp(h->tabs[i]->name, name))
            return h->tabs[i];
    if (h->ntabs >= HALL__MAX_TABLES || !hall_name_ok(name))
        return NULL;
    hall__tab **n = realloc(h->tabs, (h->ntabs + 1) * sizeof *n);
    if (!n)
        return NULL;
    h->tabs = n;
    hall__tab *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    snprintf(t->name, sizeof t->name, "%.64s", name);
    t->have = rec_pos_empty();
    t->frame = -1;
    h->tabs[h->ntabs++] = t;
    return t;
}

static void hall__tab_free(hall__tab *t)
{
    if (!t)
        return;
    rec_copy_close(t->copy);
    free(t->games);
    free(t->state);
    free(t->answer);
    free(t);
}

char *hall__copy_path(hall_server *h, const char *name)
{
    size_t n = strlen(h->dir) + strlen(name) + 16;
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%s/%s.sqlite", h->dir, name);
    return path;
}

/* A chunk of a table's recording, applied to DIR/NAME.sqlite. */
static void hall__on_rec(hall_server *h, hall__tab *t, const void *payload, int len)
{
    tt_err e = {0};
    if (!t->copy && !t->copy_failed) {
        char *path = hall__copy_path(h, t->name);
        if (path) {
            if (rec_copy_open(path, &t->copy, &e) != TT_OK) {
                fprintf(stderr, "tabletrack hall: table %s: %s\n", t->name, e.msg);
                t->copy_failed = 1;
            }
            free(path);
        }
    }
    if (!t->copy)
        return;
    rec_copy_result res;
    char *game = NULL;
    if (rec_copy_apply(t->copy, payload, (size_t)len, &res, &game, &e) != TT_OK) {
        fprintf(stderr, "tabletrack hall: table %s: %s\n", t->name, e.msg);
        free(game);
        return;
    }
    rec_pos have;
    if (rec_copy_have(t->copy, game, &have, &e) != TT_OK) {
        free(game);
        return;
    }
    long long session = rec_copy_session(t->copy, game);
    pthread_mutex_lock(&h->mu);
    size_t k;
    for (k = 0; k < t->ngames && strcmp(t->games[k].game, game) != 0; k++)
        ;
    int new_game = k == t->ngames;
    hall__game *g = NULL;
    if (!new_game) {
        g = &t->games[k];
    } else if (t->ngames < HALL__MAX_GAMES) {
        hall__game *n = realloc(t->games, (t->ngames + 1) * sizeof *n);
        if (n) {
            t->games = n;
            g = &t->games[t->ngames++];
            memset(g, 0, sizeof *g);
            snprintf(g->game, sizeof g->game, "%s", game);
            fprintf(stderr, "tabletrack hall: table %s: game %s -> %s/%s.sqlite (session %lld)\n", t->name, game,
                    h->dir, t->name, session);
        }
    }
    if (g) {
        g->have = have;
        /* a table sending what the copy holds lacks our answer: again */
        if (res == REC_COPY_APPLIED || res == REC_COPY_DUPLICATE || new_game)
            g->ack_dirty = 1;
        if (res == REC_COPY_GAP)
            g->need = g->ack_dirty = 1;
        if (have.ended && !g->ended_told) {
            g->ended_told = 1;
            fprintf(stderr, "tabletrack hall: table %s: game %s complete (last frame %lld)\n", t->name, game,
                    have.frame);
        }
    }
    /* the page shows the table's newest game, not an earlier one sent late */
    if (!t->game[0] || !strcmp(t->game, game) || session >= t->session) {
        snprintf(t->game, sizeof t->game, "%s", game);
        t->session = session;
        t->have = have;
    }
    if (res == REC_COPY_GAP)
        h->gaps++;
    if (res == REC_COPY_APPLIED)
        h->chunks++;
    pthread_mutex_unlock(&h->mu);
    fflush(stderr);
    free(game);
}

/* The live state: what /api/tables shows, and the delay it took. */
static void hall__on_state(hall_server *h, hall__tab *t, const void *payload, int len, int retained)
{
    json_t *j = json_loadb(payload, (size_t)len, 0, NULL);
    if (!j)
        return;
    char *copy = malloc((size_t)len + 1);
    if (!copy) {
        json_decref(j);
        return;
    }
    memcpy(copy, payload, (size_t)len);
    copy[len] = '\0';
    long long now = tt_unix_ms();
    long long wall = json_integer_value(json_object_get(j, "wall_ms"));
    const char *rs = json_string_value(json_object_get(j, "ruleset"));
    pthread_mutex_lock(&h->mu);
    free(t->state);
    t->state = copy;
    t->has_state = 1;
    t->frame = json_integer_value(json_object_get(j, "frame"));
    t->t_ms = json_number_value(json_object_get(j, "t_ms"));
    t->figures = (int)json_array_size(json_object_get(j, "figures"));
    snprintf(t->ruleset, sizeof t->ruleset, "%s", rs ? rs : "");
    if (!retained) {
        t->seen_ms = now;
        t->connected = 1;
        if (wall > 0 && now >= wall) {
            h->lat[h->nlat++ % HALL__LAT] = (double)(now - wall);
            h->states++;
        }
    } else if (wall > t->seen_ms) {
        t->seen_ms = wall;
    }
    pthread_mutex_unlock(&h->mu);
    json_decref(j);
}

static void hall__on_message(void *user, const char *topic, const void *payload, int len, int retained)
{
    hall_server *h = user;
    char name[80];
    const char *p = topic + sizeof "tabletrack/" - 1;
    const char *slash = strncmp(topic, "tabletrack/", 11) == 0 ? strchr(p, '/') : NULL;
    if (!slash || (size_t)(slash - p) >= sizeof name || len < 0)
        return;
    memcpy(name, p, (size_t)(slash - p));
    name[slash - p] = '\0';
    const char *sub = slash + 1;
    pthread_mutex_lock(&h->mu);
    hall__tab *t = hall__tab_get(h, name);
    pthread_mutex_unlock(&h->mu);
    if (!t)
        return;
    if (!strcmp(sub, "rec")) {
        hall__job *j = malloc(sizeof *j + (size_t)len);
        if (!j)
            return;
        j->next = NULL;
        j->t = t;
        j->len = len;
        memcpy(j->data, payload, (size_t)len);
        pthread_mutex_lock(&h->qmu);
        if (h->qlen >= HALL__MAX_JOBS) {
            free(j);
        } else {
            if (h->qtail)
                h->qtail->next = j;
            else
                h->qhead = j;
            h->qtail = j;
            h->qlen++;
            pthread_cond_signal(&h->qcv);
        }
        pthread_mutex_unlock(&h->qmu);
    } else if (!strcmp(sub, "state")) {
        hall__on_state(h, t, payload, len, retained);
    } else if (!strcmp(sub, "status")) {
        json_t *j = json_loadb(payload, (size_t)len, 0, NULL);
        pthread_mutex_lock(&h->mu);
        t->connected = json_is_true(json_object_get(j, "connected"));
        if (!retained)
            t->seen_ms = tt_unix_ms();
        pthread_mutex_unlock(&h->mu);
        json_decref(j);
    } else if (!strcmp(sub, "answer")) {
        char *copy = malloc((size_t)len + 1);
        if (copy) {
            memcpy(copy, payload, (size_t)len);
            copy[len] = '\0';
        }
        pthread_mutex_lock(&h->mu);
        free(t->answer);
        t->answer = copy;
        pthread_mutex_unlock(&h->mu);
    }
}

/* The writer thread: chunks into the copies, in the order they came;
 * at the end, what has come is still written. */
static void *hall__writer(void *arg)
{
    hall_server *h = arg;
    for (;;) {
        pthread_mutex_lock(&h->qmu);
        while (!h->qhead && !h->qstop)
            pthread_cond_wait(&h->qcv, &h->qmu);
        hall__job *j = h->qhead;
        if (j) {
            h->qhead = j->next;
            if (!h->qhead)
                h->qtail = NULL;
            h->qlen--;
        }
        pthread_mutex_unlock(&h->qmu);
        if (!j)
            return NULL; /* stopped, and nothing left */
        hall__on_rec(h, j->t, j->data, j->len);
        free(j);
    }
}

/* After every (re)connection the hall says again how far each copy goes
 * (a broker restarted without its store has forgotten). */
static void hall__on_connected(void *user)
{
    hall_server *h = user;
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < h->ntabs; i++)
        for (size_t k = 0; k < h->tabs[i]->ngames; k++)
            h->tabs[i]->games[k].ack_dirty = 1;
    pthread_mutex_unlock(&h->mu);
}

/* The answer for game k of table t, when due: its topic
 * (tabletrack/NAME/hall/GAME) into topic, and *newest when it is the
 * table's newest game (also told on tabletrack/NAME/hall).  NULL when not
 * due.  The caller holds mu. */
static char *hall__answer(hall__tab *t, size_t k, double now, char *topic, size_t n, int *newest)
{
    hall__game *g = &t->games[k];
    if (!g->ack_dirty || (now - g->ack_ms < HALL__ACK_MS && !g->have.ended))
        return NULL;
    char *have = rec_pos_json(&g->have);
    json_t *j = have ? json_pack("{s:s, s:o, s:b}", "game", g->game, "have", json_loads(have, 0, NULL), "need",
                                 g->need)
                     : NULL;
    char *msg = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    free(have);
    char key[100], sub[112];
    hall__game_key(g->game, key, sizeof key);
    snprintf(sub, sizeof sub, "hall/%s", key);
    hall__topic(topic, n, t->name, sub);
    *newest = !strcmp(g->game, t->game);
    if (msg) {
        g->ack_dirty = g->need = 0;
        g->ack_ms = now;
    }
    return msg;
}

/* Every 50 ms: the hall's answers that are due. */
static void *hall__ticker(void *arg)
{
    hall_server *h = arg;
    while (!h->stop) {
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
        double now = tt_mono_ms();
        for (size_t i = 0;; i++) {
            pthread_mutex_lock(&h->mu);
            size_t ntabs = h->ntabs, ngames = i < ntabs ? h->tabs[i]->ngames : 0;
            pthread_mutex_unlock(&h->mu);
            if (i >= ntabs)
                break;
            for (size_t k = 0; k < ngames; k++) { /* games are only ever added: k stays valid */
                char topic[256], latest[128];
                int newest = 0;
                pthread_mutex_lock(&h->mu);
                hall__tab *t = h->tabs[i];
                char *msg = hall__answer(t, k, now, topic, sizeof topic, &newest);
                hall__topic(latest, sizeof latest, t->name, "hall");
                pthread_mutex_unlock(&h->mu);
                if (msg && (hall__conn_publish(h->c, topic, msg, strlen(msg), 1, 1, NULL) != 0 ||
                            (newest && hall__conn_publish(h->c, latest, msg, strlen(msg), 1, 1, NULL) != 0))) {
                    pthread_mutex_lock(&h->mu);
                    h->tabs[i]->games[k].ack_dirty = 1; /* not connected: again later */
                    pthread_mutex_unlock(&h->mu);
                }
                free(msg);
            }
        }
        int refused = 0;
        hall__conn_trouble(h->c, NULL, 0, NULL, &refused);
        if (!refused) /* that one ends the hall, and is told then */
            hall__conn_report(h->c, "hall", &h->seen_trouble);
    }
    return NULL;
}

tt_status hall_server_start(const hall_mqtt_opts *o, const char *http_listen, const char *dir, hall_server **out,
                            tt_err *err)
{
    *out = NULL;
    if (!dir || !*dir)
        return tt_err_set(err, TT_ERR_ARG, "--dir: give the folder for the tables' recordings");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return tt_err_set(err, TT_ERR_IO, "cannot make the folder %s: %s", dir, strerror(errno));
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return tt_err_set(err, TT_ERR_IO, "--dir %s is not a folder", dir);
    hall_server *h = calloc(1, sizeof *h);
    if (!h || !(h->dir = strdup(dir))) {
        free(h);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    pthread_mutex_init(&h->mu, NULL);
    pthread_mutex_init(&h->qmu, NULL);
    pthread_cond_init(&h->qcv, NULL);
    tt_status s;
    if (pthread_create(&h->writer, NULL, hall__writer, h) != 0) {
        s = tt_err_set(err, TT_ERR_INTERNAL, "cannot start the hall's writer thread");
        goto fail;
    }
    h->writer_started = 1;
    s = hall__http_start(h, http_listen, &h->http, h->url, sizeof h->url, err);
    if (s != TT_OK)
        goto fail;
    static const char *const subs[] = {"tabletrack/+/rec", "tabletrack/+/state", "tabletrack/+/status",
                                       "tabletrack/+/answer", NULL};
    hall__conn_cbs cbs = {hall__on_message, hall__on_connected, NULL, h};
    if ((s = hall__conn_create(o, "tabletrack-hall", 1, subs, NULL, NULL, &cbs, &h->c, err)) != TT_OK)
        goto fail;
    if (pthread_create(&h->ticker, NULL, hall__ticker, h) != 0) {
        s = tt_err_set(err, TT_ERR_INTERNAL, "cannot start the hall's thread");
        goto fail;
    }
    h->ticker_started = 1;
    *out = h;
    return TT_OK;
fail:
    hall_server_stop(h);
    return s;
}

const char *hall_server_url(const hall_server *h)
{
    return h ? h->url : "";
}

tt_status hall_server_check(hall_server *h, tt_err *err)
{
    char msg[1024];
    int refused = 0;
    hall__conn_trouble(h->c, msg, sizeof msg, NULL, &refused);
    if (refused)
        return tt_err_set(err, TT_ERR_ARG, "%s", msg);
    return TT_OK;
}

void hall_server_stop(hall_server *h)
{
    if (!h)
        return;
    h->stop = 1;
    if (h->ticker_started)
        pthread_join(h->ticker, NULL);
    hall__http_stop(h->http); /* no request is served after this */
    hall__conn_destroy(h->c); /* no message arrives after this */
    pthread_mutex_lock(&h->qmu);
    h->qstop = 1;
    pthread_cond_signal(&h->qcv);
    pthread_mutex_unlock(&h->qmu);
    if (h->writer_started)
        pthread_join(h->writer, NULL); /* what came is written */
    pthread_cond_destroy(&h->qcv);
    pthread_mutex_destroy(&h->qmu);
    for (size_t i = 0; i < h->ntabs; i++)
        hall__tab_free(h->tabs[i]);
    free(h->tabs);
    pthread_mutex_destroy(&h->mu);
    free(h->dir);
    free(h);
}

/* ---- for the web server ---- */

char *hall__tables_json(hall_server *h)
{
    json_t *arr = json_array();
    long long now = tt_unix_ms();
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; arr && i < h->ntabs; i++) {
        hall__tab *t = h->tabs[i];
        json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:i, s:b, s:o}", "table", t->name, "ruleset",
                              t->ruleset[0] ? json_string(t->ruleset) : json_null(), "frame",
                              t->has_state ? json_integer(t->frame) : json_null(), "t_ms",
                              t->has_state ? json_real(t->t_ms) : json_null(), "figures", t->figures, "connected",
                              t->connected, "last_seen_s",
                              t->seen_ms ? json_real((double)(now > t->seen_ms ? now - t->seen_ms : 0) / 1000.0)
                                         : json_null());
        json_array_append_new(arr, o);
    }
    pthread_mutex_unlock(&h->mu);
    char *txt = arr ? json_dumps(arr, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) : NULL;
    json_decref(arr);
    return txt;
}

char *hall__table_text(hall_server *h, const char *name, const char *what)
{
    char *out = NULL;
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < h->ntabs; i++)
        if (!strcmp(h->tabs[i]->name, name)) {
            const char *s = !strcmp(what, "state") ? h->tabs[i]->state : h->tabs[i]->answer;
            out = s ? strdup(s) : NULL;
            break;
        }
    pthread_mutex_unlock(&h->mu);
    return out;
}

char *hall__copy_json(hall_server *h, const char *name)
{
    json_t *o = NULL;
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < h->ntabs; i++)
        if (!strcmp(h->tabs[i]->name, name) && h->tabs[i]->game[0]) {
            const hall__tab *t = h->tabs[i];
            o = json_pack("{s:s, s:I, s:b}", "game", t->game, "frame", (json_int_t)t->have.frame, "ended",
                          t->have.ended);
            break;
        }
    pthread_mutex_unlock(&h->mu);
    char *txt = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    return txt;
}

static int hall__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

char *hall__stats_json(hall_server *h)
{
    static double lat[HALL__LAT];
    static pthread_mutex_t stats_mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&stats_mu);
    pthread_mutex_lock(&h->mu);
    size_t n = h->nlat < HALL__LAT ? h->nlat : HALL__LAT;
    memcpy(lat, h->lat, n * sizeof *lat);
    json_t *o = json_pack("{s:I, s:I, s:I, s:I}", "tables", (json_int_t)h->ntabs, "chunks", (json_int_t)h->chunks,
                          "gaps", (json_int_t)h->gaps, "states", (json_int_t)h->states);
    pthread_mutex_unlock(&h->mu);
    qsort(lat, n, sizeof *lat, hall__cmp_double);
    if (o) {
        json_object_set_new(o, "latency_ms_p50", n ? json_real(lat[n / 2]) : json_null());
        json_object_set_new(o, "latency_ms_p95", n ? json_real(lat[(n * 95) / 100]) : json_null());
    }
    pthread_mutex_unlock(&stats_mu);
    char *txt = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    return txt;
}
