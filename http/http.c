/* http.c - the table server (see http.h), on libmicrohttpd: one thread per
 * connection, so a live viewer can wait for the next frame in its own
 * thread; the connection limit and timeout keep slow or idle clients from
 * piling up.  No HTTP is parsed here: libmicrohttpd does it all. */
#include "http.h"
#include "http_reply.h"
#include "http_web.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <jansson.h>


struct http_server {
    struct MHD_Daemon *d;
    game *g;
    char key[65];
    char url[400];
    pthread_mutex_t mu;
    int viewers;
};

/* One request's body, gathered over the upload callbacks. */
typedef struct http__req {
    char *body;
    size_t len, cap;
    int too_big;
} http__req;

/* ---- responses ---- */

enum MHD_Result http_reply(struct MHD_Connection *c, unsigned code, const char *type, const void *data, size_t len,
                           enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)data, mode);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result http__json(struct MHD_Connection *c, unsigned code, char *text /* taken */)
{
    if (!text)
        return http_reply(c, 500, "application/json", "{\"error\":\"out of memory\"}", 25, MHD_RESPMEM_PERSISTENT);
    return http_reply(c, code, "application/json", text, strlen(text), MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result http__error(struct MHD_Connection *c, unsigned code, const char *msg)
{
    json_t *j = json_pack("{s:s}", "error", msg);
    char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    return http__json(c, code, t);
}

#define HTTP__STR2(x) #x
#define HTTP__STR(x) HTTP__STR2(x)

/* An error, and the connection closed once it is sent. */
static enum MHD_Result http__error_close(struct MHD_Connection *c, unsigned code, const char *msg)
{
    json_t *j = json_pack("{s:s}", "error", msg);
    char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    struct MHD_Response *r = t ? MHD_create_response_from_buffer(strlen(t), t, MHD_RESPMEM_MUST_FREE) : NULL;
    if (!r) {
        free(t);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "application/json");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

static unsigned http__status_code(tt_status st)
{
    switch (st) {
    case TT_ERR_FORMAT:
    case TT_ERR_ARG:
    case TT_ERR_MISMATCH:
        return 400;
    case TT_ERR_UNKNOWN:
        return 404;
    case TT_ERR_ANCHORS:
    case TT_ERR_DEVICE:
        return 503;
    default:
        return 500;
    }
}

/* ---- /api/live: Server-Sent Events ---- */

/* Viewers' threads run this much nicer than the game (Linux sets it per
 * thread): the tracker keeps its frame rate however many phones watch. */
#define HTTP__VIEWER_NICE 10

typedef struct http__sse {
    http_server *s;
    unsigned long long cursor;
    game_feed_msg *msg; /* the message being sent (a reference), or NULL */
    /* what is being sent, in pieces: "event: E\ndata: ", its JSON, "\n\n" */
    char head[48];
    const char *part[3];
    size_t plen[3];
    int npart, ip; /* npart 0: between messages */
    size_t off;
    int idle_ms;
} http__sse;

static ssize_t http__sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    static const char still_here[] = ": still here\n\n"; /* keeps proxies and timeouts at bay */
    http__sse *v = cls;
    if (pos == 0) { /* this viewer's thread yields to the game's when the cores are busy */
        id_t tid = (id_t)syscall(SYS_gettid);
        int nice = getpriority(PRIO_PROCESS, tid) + HTTP__VIEWER_NICE;
        (void)setpriority(PRIO_PROCESS, tid, nice > 19 ? 19 : nice);
    }
    while (!v->npart) {
        int r = game_feed_next(v->s->g, &v->cursor, 1000, &v->msg);
        if (r < 0)
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (r == 0) {
            v->idle_ms += 1000;
            if (v->idle_ms < 5000)
                continue;
            v->part[0] = still_here;
            v->plen[0] = sizeof still_here - 1;
            v->npart = 1;
        } else { /* Server-Sent Events: the feed's event and its JSON (one line) */
            int n = snprintf(v->head, sizeof v->head, "event: %s\ndata: ", game_feed_msg_event(v->msg));
            v->part[0] = v->head;
            v->plen[0] = n > 0 && (size_t)n < sizeof v->head ? (size_t)n : 0;
            v->part[1] = game_feed_msg_json(v->msg, &v->plen[1]);
            v->part[2] = "\n\n";
            v->plen[2] = 2;
            v->npart = 3;
        }
        v->idle_ms = 0;
        v->ip = 0;
        v->off = 0;
    }
    size_t done = 0;
    while (v->ip < v->npart && done < max) {
        size_t left = v->plen[v->ip] - v->off, n = left < max - done ? left : max - done;
        memcpy(buf + done, v->part[v->ip] + v->off, n);
        done += n;
        v->off += n;
        if (v->off == v->plen[v->ip]) {
            v->ip++;
            v->off = 0;
        }
    }
    if (v->ip == v->npart) {
        game_feed_release(v->msg);
        v->msg = NULL;
        v->npart = 0;
    }
    return (ssize_t)done;
}

static void http__sse_free(void *cls)
{
    http__sse *v = cls;
    game_feed_detach(v->s->g);
    pthread_mutex_lock(&v->s->mu);
    v->s->viewers--;
    pthread_mutex_unlock(&v->s->mu);
    game_feed_release(v->msg);
    free(v);
}

static enum MHD_Result http__live(http_server *s, struct MHD_Connection *c)
{
    pthread_mutex_lock(&s->mu);
    int full = s->viewers >= HTTP_MAX_VIEWERS;
    if (!full)
        s->viewers++;
    pthread_mutex_unlock(&s->mu);
    if (full) /* and closed after it: a refused viewer keeps no connection */
        return http__error_close(c, 503, "too many live viewers (the most is " HTTP__STR(HTTP_MAX_VIEWERS)
                                         "): close the table page on another device, or read /api/state instead");
    http__sse *v = calloc(1, sizeof *v);
    if (!v) {
        pthread_mutex_lock(&s->mu);
        s->viewers--;
        pthread_mutex_unlock(&s->mu);
        return http__error(c, 500, "out of memory");
    }
    v->s = s;
    v->cursor = game_feed_attach(s->g);
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, http__sse_read, v,
                                                               http__sse_free);
    if (!r) {
        http__sse_free(v);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

/* ---- the routes ---- */

static int http__has_key(http_server *s, struct MHD_Connection *c)
{
    const char *k = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "key");
    if (!k)
        k = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Table-Key");
    return k && !strcmp(k, s->key);
}

static enum MHD_Result http__query(http_server *s, struct MHD_Connection *c, http__req *q)
{
    int qid = 0;
    char *answer = NULL, *look = NULL;
    tt_err err = {0};
    tt_status st = game_query_add(s->g, q->body ? q->body : "", q->len, &qid, &answer, &look, &err);
    if (st != TT_OK)
        return http__error(c, http__status_code(st), err.msg);
    size_t n = strlen(answer) + strlen(look) + 48;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "{\"qid\":%d,\"answer\":%s,\"look\":%s}", qid, answer, look);
    free(answer);
    free(look);
    return http__json(c, 200, out);
}

/* PUT /api/pick {"id": ID} / DELETE /api/pick: the page (its X-Table-Client
 * header; none is one more page) has a figure's menu open, or closed it. */
static enum MHD_Result http__pick(http_server *s, struct MHD_Connection *c, int put, http__req *q)
{
    const char *client = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Table-Client");
    tt_err err = {0};
    if (!client)
        client = "";
    if (!put) {
        game_pick_clear(s->g, client);
        return http__json(c, 200, strdup("{\"ok\":true}"));
    }
    tt_status st = game_pick_set(s->g, client, q->body ? q->body : "", q->len, &err);
    if (st != TT_OK)
        return http__error(c, http__status_code(st), err.msg);
    return http__json(c, 200, strdup("{\"ok\":true}"));
}

static enum MHD_Result http__table_png(http_server *s, struct MHD_Connection *c)
{
    const char *p = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "ppi");
    double ppi = 10;
    if (p) {
        char *end = NULL;
        ppi = strtod(p, &end);
        if (end == p || *end)
            return http__error(c, 400, "ppi must be a number from 1 to 40 (pixels per inch; default 10)");
    }
    unsigned char *png = NULL;
    size_t len = 0;
    tt_err err = {0};
    tt_status st = game_table_png(s->g, ppi, &png, &len, &err);
    if (st != TT_OK)
        return http__error(c, http__status_code(st), err.msg);
    return http_reply(c, 200, "image/png", png, len, MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result http__route(http_server *s, struct MHD_Connection *c, const char *url, const char *method,
                                   http__req *q)
{
    int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    /* the page's files (web/), the icon also where browsers look for it unasked */
    const http_web_file *file = get ? http_web_find(!strcmp(url, "/favicon.ico") ? "/favicon.svg" : url) : NULL;
    if (file)
        return http_reply(c, 200, http_web_type(file), file->data, *file->len, MHD_RESPMEM_PERSISTENT);
    if (get && !strcmp(url, "/api/state"))
        return http__json(c, 200, game_state_json(s->g));
    if (get && !strcmp(url, "/api/scenario"))
        return http__json(c, 200, game_scenario_json(s->g));
    if (get && !strcmp(url, "/api/rules"))
        return http__json(c, 200, game_rules_json(s->g));
    if (get && !strcmp(url, "/api/live"))
        return http__live(s, c);
    if (get && !strcmp(url, "/api/table.png"))
        return http__table_png(s, c);

    int post = !strcmp(method, "POST"), del = !strcmp(method, "DELETE"), put = !strcmp(method, "PUT");
    int is_query = !strcmp(url, "/api/query") || !strncmp(url, "/api/query/", 11);
    int is_scen = !strcmp(url, "/api/scenario"); /* GET is above */
    int is_pick = !strcmp(url, "/api/pick");
    int is_phase = !strcmp(url, "/api/phase");
    if (!is_query && !is_scen && !is_pick && !is_phase)
        return http__error(c, 404,
                           "no such page: the table is at /, the API at /api/state, /api/live, /api/query, "
                           "/api/pick, /api/phase, /api/table.png, /api/scenario and /api/rules");
    if (!(post && (!strcmp(url, "/api/query") || is_phase)) && !(del && !is_phase) && !(put && (is_scen || is_pick)))
        return http__error(c, 405, "method not allowed here: POST /api/query, POST /api/phase, DELETE /api/query[/N], "
                                   "PUT /api/scenario, PUT or DELETE /api/pick");
    if (!http__has_key(s, c))
        return http__error(c, 403, "this changes the game and needs the table's key: open the address tabletrack "
                                   "printed (it ends in ?key=...) or send an X-Table-Key header");
    if (q->too_big)
        return http__error(c, 413, "the body is over 1 MB: send one question or one scenario");
    tt_err err = {0};
    tt_status st;
    if (is_phase) {
        char *state = NULL;
        if ((st = game_phase_post(s->g, q->body ? q->body : "", q->len, &state, &err)) != TT_OK)
            return http__error(c, http__status_code(st), err.msg);
        return http__json(c, 200, state);
    }
    if (post)
        return http__query(s, c, q);
    if (is_pick)
        return http__pick(s, c, put, q);
    if (put) {
        st = game_scenario_put(s->g, q->body ? q->body : "", q->len, &err);
        if (st != TT_OK)
            return http__error(c, http__status_code(st), err.msg);
        return http__json(c, 200, strdup("{\"ok\":true}"));
    }
    if (!is_query || is_scen)
        return http__error(c, 405, "DELETE works on /api/query and /api/query/N");
    int qid = 0;
    if (url[10] == '/') {
        char *end = NULL;
        long n = strtol(url + 11, &end, 10);
        if (end == url + 11 || *end || n < 1 || n > 1000000000)
            return http__error(c, 404, "no such question: DELETE /api/query/N takes the qid that asking returned");
        qid = (int)n;
    }
    if ((st = game_query_remove(s->g, qid, &err)) != TT_OK)
        return http__error(c, http__status_code(st), err.msg);
    return http__json(c, 200, strdup("{\"ok\":true}"));
}

static enum MHD_Result http__handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                     const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    http_server *s = cls;
    (void)version;
    http__req *q = *con_cls;
    if (!q) { /* the headers: set up for the body */
        q = calloc(1, sizeof *q);
        if (!q)
            return MHD_NO;
        *con_cls = q;
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        unsigned long long n = cl ? strtoull(cl, NULL, 10) : 0;
        /* Answering before the body is read makes libmicrohttpd close while
         * the client still sends: it sees a broken pipe, not the 413.  So a
         * body over the limit is read and dropped (too_big), and refused
         * when it has all arrived.  Refused at once: a client that waits
         * for our word before sending (Expect: 100-continue), or an absurd
         * body. */
        const char *ex = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);
        int waits = ex && !strcasecmp(ex, "100-continue");
        if (n > HTTP_MAX_DRAIN || (n > HTTP_MAX_BODY && waits)) {
            q->too_big = 1;
            return http__error(c, 413, "the body is over 1 MB: send one question or one scenario");
        }
        q->too_big = n > HTTP_MAX_BODY;
        return MHD_YES;
    }
    if (*upload_size) {
        if (!q->too_big) {
            if (q->len + *upload_size > HTTP_MAX_BODY)
                q->too_big = 1;
            else {
                if (q->len + *upload_size + 1 > q->cap) {
                    size_t cap = (q->len + *upload_size + 1) * 2;
                    if (cap > HTTP_MAX_BODY + 1)
                        cap = HTTP_MAX_BODY + 1;
                    char *n = realloc(q->body, cap);
                    if (!n)
                        return MHD_NO;
                    q->body = n;
                    q->cap = cap;
                }
                memcpy(q->body + q->len, upload, *upload_size);
                q->len += *upload_size;
                q->body[q->len] = '\0';
            }
        }
        *upload_size = 0;
        return MHD_YES;
    }
    return http__route(s, c, url, method, q);
}

static void http__completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
    (void)cls;
    (void)c;
    (void)t;
    http__req *q = *con_cls;
    if (q) {
        free(q->body);
        free(q);
        *con_cls = NULL;
    }
}

/* ---- start and stop ---- */

/* This machine's first network (non-loopback) IPv4 address, for phones. */
static void http__lan_address(char *buf, size_t cap)
{
    struct ifaddrs *ifs = NULL, *i;
    snprintf(buf, cap, "127.0.0.1");
    if (getifaddrs(&ifs) != 0)
        return;
    for (i = ifs; i; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET) {
            const struct sockaddr_in *a = (const struct sockaddr_in *)i->ifa_addr;
            if ((ntohl(a->sin_addr.s_addr) >> 24) == 127)
                continue;
            inet_ntop(AF_INET, &a->sin_addr, buf, (socklen_t)cap);
            break;
        }
    freeifaddrs(ifs);
}

tt_status http_server_start(const char *listen, const char *key, game *g, http_server **out, tt_err *err)
{
    char host[256], port[16];
    struct addrinfo *ai = NULL;
    *out = NULL;
    if (key && (!key[0] || strlen(key) > 64 || strspn(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                        "0123456789-_") != strlen(key)))
        return tt_err_set(err, TT_ERR_ARG, "--http-key: use 1 to 64 letters, digits, '-' or '_'");

    tt_status ls = http_listen_resolve("--http", listen, &ai, host, sizeof host, err);
    if (ls != TT_OK)
        return ls;
    snprintf(port, sizeof port, "%u", ai->ai_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)ai->ai_addr)->sin6_port)
                                                                 : ntohs(((struct sockaddr_in *)ai->ai_addr)->sin_port));

    http_server *s = calloc(1, sizeof *s);
    if (!s) {
        freeaddrinfo(ai);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    s->g = g;
    pthread_mutex_init(&s->mu, NULL);
    if (key)
        snprintf(s->key, sizeof s->key, "%s", key);
    else {
        unsigned char r[9];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
            freeaddrinfo(ai);
            http_server_stop(s);
            return tt_err_set(err, TT_ERR_INTERNAL, "no random numbers for the table key: %s", strerror(errno));
        }
        static const char al[] = "abcdefghijkmnpqrstuvwxyz23456789"; /* no look-alikes */
        for (size_t i = 0; i < sizeof r; i++)
            s->key[i] = al[r[i] % 32];
        s->key[sizeof r] = '\0';
    }
    /* poll(), not select(): many connections may hold descriptors past 1024 */
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL_INTERNAL_THREAD;
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    s->d = MHD_start_daemon(flags, 0, NULL, NULL, http__handler, s, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CLIENTS,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CLIENTS_PER_IP,
                            MHD_OPTION_CONNECTION_TIMEOUT,
                            (unsigned)HTTP_TIMEOUT_S, MHD_OPTION_NOTIFY_COMPLETED, http__completed, s,
                            MHD_OPTION_END);
    int family = ai->ai_family;
    freeaddrinfo(ai);
    if (!s->d) {
        int e = errno;
        http_server_stop(s);
        return tt_err_set(err, TT_ERR_IO, "cannot serve the table on %s:%s: %s (is the port in use? try another)",
                          host, port, e ? strerror(e) : "libmicrohttpd refused");
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned bound = di ? di->port : (unsigned)strtoul(port, NULL, 10);
    char shown[264];
    if (!strcmp(host, "0.0.0.0") || !strcmp(host, "::"))
        http__lan_address(shown, sizeof shown);
    else
        snprintf(shown, sizeof shown, family == AF_INET6 ? "[%.255s]" : "%.255s", host);
    snprintf(s->url, sizeof s->url, "http://%s:%u/?key=%s", shown, bound, s->key);
    *out = s;
    return TT_OK;
}

const char *http_server_url(const http_server *s)
{
    return s ? s->url : "";
}

void http_server_stop(http_server *s)
{
    if (!s)
        return;
    if (s->d)
        MHD_stop_daemon(s->d);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
