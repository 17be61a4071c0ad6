/* hall_server.c - 'tabletrack hall': the hall's threads.  The broker's
 * messages (the network thread) go to what the hall knows (hall_tables.c);
 * chunks of the tables' recordings to a writer thread, so live states never
 * wait for the disk; every 50 ms a ticker publishes the hall's answers that
 * are due; the web server (hall_http.c) reads the tables.  Every message is
 * bounded by bytes (HALL_MESSAGE_MAX) and so is the writer's queue. */
#include "hall_server.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "hall_conn.h"
#include "hall_http.h"
#include "hall_tables.h"

#define HALL__MAX_JOBS 20000 /* chunks waiting to be written; beyond, dropped (the tables send them again) */
#define HALL__QUEUE_BYTES (64u * 1024u * 1024u) /* their bytes, at most */

typedef struct hall__job {
    struct hall__job *next;
    hall__tab *t;
    size_t len;
    char data[];
} hall__job;

struct hall_server {
    hall__conn *c;
    hall__http *http;
    hall__tables *tables;
    char url[300];
    pthread_t ticker;
    int ticker_started;
    pthread_mutex_t qmu;
    pthread_cond_t qcv;
    hall__job *qhead, *qtail;
    size_t qlen, qbytes;
    int qstop;
    pthread_t writer;
    int writer_started;
    volatile int stop;
    unsigned seen_trouble;
};

/* A chunk for the writer: queued, or dropped when the queue is full (the
 * table sends it again once the hall's answer shows the gap). */
static void hall__queue(hall_server *h, hall__tab *t, const void *payload, size_t len)
{
    pthread_mutex_lock(&h->qmu);
    int full = h->qlen >= HALL__MAX_JOBS || h->qbytes + len > HALL__QUEUE_BYTES;
    pthread_mutex_unlock(&h->qmu);
    if (full)
        return;
    hall__job *j = malloc(sizeof *j + len);
    if (!j)
        return;
    j->next = NULL;
    j->t = t;
    j->len = len;
    memcpy(j->data, payload, len);
    pthread_mutex_lock(&h->qmu);
    if (h->qtail)
        h->qtail->next = j;
    else
        h->qhead = j;
    h->qtail = j;
    h->qlen++;
    h->qbytes += len;
    pthread_cond_signal(&h->qcv);
    pthread_mutex_unlock(&h->qmu);
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
    hall__tab *t = hall__tables_get(h->tables, name);
    if (!t)
        return;
    if ((size_t)len > HALL_MESSAGE_MAX) /* dropped unread: a broker without message_size_limit */
        hall__tables_too_big(h->tables, t, sub, (size_t)len);
    else if (!strcmp(sub, "rec"))
        hall__queue(h, t, payload, (size_t)len);
    else if (!strcmp(sub, "state"))
        hall__tables_state(h->tables, t, payload, (size_t)len, retained);
    else if (!strcmp(sub, "status"))
        hall__tables_status(h->tables, t, payload, (size_t)len, retained);
    else if (!strcmp(sub, "answer"))
        hall__tables_answer(h->tables, t, payload, (size_t)len);
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
        hall__tables_rec(h->tables, j->t, j->data, j->len);
        pthread_mutex_lock(&h->qmu);
        h->qbytes -= j->len; /* counted until written: its copy is in memory until then */
        pthread_mutex_unlock(&h->qmu);
        free(j);
    }
}

/* After every (re)connection the hall says again how far each copy goes
 * (a broker restarted without its store has forgotten). */
static void hall__on_connected(void *user)
{
    hall_server *h = user;
    hall__tables_reconnected(h->tables);
}

/* Every 50 ms: the hall's answers that are due. */
static void *hall__ticker(void *arg)
{
    hall_server *h = arg;
    while (!h->stop) {
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
        hall__tables_tell(h->tables, h->c, tt_mono_ms());
        hall__tables_subscribed(h->tables, hall__conn_subscribed(h->c));
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
    if (!h)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&h->qmu, NULL);
    pthread_cond_init(&h->qcv, NULL);
    tt_status s;
    if (!(h->tables = hall__tables_create(dir))) {
        s = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (pthread_create(&h->writer, NULL, hall__writer, h) != 0) {
        s = tt_err_set(err, TT_ERR_INTERNAL, "cannot start the hall's writer thread");
        goto fail;
    }
    h->writer_started = 1;
    s = hall__http_start(h->tables, http_listen, &h->http, h->url, sizeof h->url, err);
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
    hall__tables_destroy(h->tables);
    free(h);
}
