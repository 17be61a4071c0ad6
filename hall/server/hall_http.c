/* hall_http.c - the hall's web server on libmicrohttpd (it parses all the
 * HTTP; a thread per connection answers, every answer built from memory
 * but the replay page, read from the table's copy):
 *
 *   GET /                         the hall page (every table at a glance)
 *   GET /draw.js                  the table drawing it shares with the table's page
 *                                 (an ES module; the modules it imports, web/NAME.js,
 *                                 are served as /NAME.js)
 *   GET /api/tables               [{"table","ruleset","frame","t_ms","figures","connected","last_seen_s"}]
 *   GET /api/hall                 counters and the state delay (benchmarks), and
 *                                 "subscribed": the broker granted the hall's
 *                                 subscriptions (what tables publish from then on
 *                                 reaches it)
 *   GET /api/refused              the tables the hall refused, and why:
 *                                 {"max_tables","refused":[{"table","reason","last_seen_s"}],"more"}
 *   GET /tables/NAME/state        the table's last live state
 *   GET /tables/NAME/answer       its last question and answer
 *   GET /tables/NAME/copy         how far the hall's copy of its game goes:
 *                                 {"game","frame","ended"}
 *   GET /tables/NAME/replay       the hall's copy of its game as the replay page
 *                                 ('replay --html'), for a finished game
 *   GET /tables/NAME/log          the referee's story of its game in the hall's copy
 *                                 (rec_referee_log): {"phases","log"}, both empty
 *                                 for a game without phases
 *   GET /tables/NAME/stream       one table at 1920x1080 for a stream's browser
 *                                 source (OBS); ?transparent=1: no background
 */
#include "hall_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http.h"
#include "rec.h"
#include "http_reply.h"
#include "http_web.h"

extern const unsigned char hall__page[], hall__stream[];
extern const unsigned long hall__page_len, hall__stream_len;

struct hall__http {
    struct MHD_Daemon *d;
    hall__tables *h;
};

static enum MHD_Result hall__json(struct MHD_Connection *c, char *text /* taken */, const char *missing)
{
    if (!text) {
        char buf[256];
        int n = snprintf(buf, sizeof buf, "{\"error\":\"%s\"}", missing);
        return http_reply(c, 404, "application/json", buf, (size_t)n, MHD_RESPMEM_MUST_COPY);
    }
    return http_reply(c, 200, "application/json", text, strlen(text), MHD_RESPMEM_MUST_FREE);
}

/* The path of the hall's copy of a table's game, or NULL with *reply the
 * JSON answer already queued (none yet, out of memory). */
static char *hall__copy_ready(struct MHD_Connection *c, hall__tables *h, const char *name, enum MHD_Result *reply)
{
    char *path = hall__copy_path(h, name);
    if (!path)
        *reply = hall__json(c, NULL, "out of memory");
    else if (access(path, R_OK) != 0) {
        free(path);
        path = NULL;
        *reply = hall__json(c, NULL, "the hall holds no game from this table yet");
    }
    return path;
}

/* A failed read of the copy: 500, the reason as a JSON error. */
static enum MHD_Result hall__copy_failed(struct MHD_Connection *c, const tt_err *e)
{
    json_t *j = json_pack("{s:s}", "error", e->msg);
    char *txt = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!txt)
        return hall__json(c, NULL, "out of memory");
    return http_reply(c, 500, "application/json", txt, strlen(txt), MHD_RESPMEM_MUST_FREE);
}

/* The replay page of the hall's copy of a table's game. */
static enum MHD_Result hall__replay(struct MHD_Connection *c, hall__tables *h, const char *name)
{
    enum MHD_Result reply = MHD_NO;
    char *path = hall__copy_ready(c, h, name, &reply), *page = NULL;
    size_t len = 0;
    rec_game *g = NULL;
    tt_err e = {0};
    if (!path)
        return reply;
    tt_status s = rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &e);
    if (s == TT_OK)
        s = rec_game_html_text(g, &page, &len, &e);
    rec_game_destroy(g);
    free(path);
    if (s != TT_OK)
        return hall__copy_failed(c, &e);
    return http_reply(c, 200, "text/html; charset=utf-8", page, len, MHD_RESPMEM_MUST_FREE);
}

/* The referee's story of the hall's copy of a table's game. */
static enum MHD_Result hall__log(struct MHD_Connection *c, hall__tables *h, const char *name)
{
    enum MHD_Result reply = MHD_NO;
    char *path = hall__copy_ready(c, h, name, &reply), *text = NULL;
    tt_err e = {0};
    if (!path)
        return reply;
    tt_status s = rec_referee_log(path, 0, &text, &e);
    free(path);
    if (s != TT_OK)
        return hall__copy_failed(c, &e);
    return hall__json(c, text, "out of memory");
}

static enum MHD_Result hall__handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                     const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    (void)upload;
    (void)upload_size;
    (void)con_cls;
    hall__http *x = cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return http_reply(c, 405, "application/json", "{\"error\":\"the hall is read-only: GET only\"}", 43,
                          MHD_RESPMEM_PERSISTENT);
    if (!strcmp(url, "/") || !strcmp(url, "/index.html"))
        return http_reply(c, 200, "text/html; charset=utf-8", hall__page, hall__page_len, MHD_RESPMEM_PERSISTENT);
    size_t ulen = strlen(url); /* the drawing's modules (web/NAME.js) */
    const http_web_file *js = ulen > 3 && !strcmp(url + ulen - 3, ".js") ? http_web_find(url) : NULL;
    if (js)
        return http_reply(c, 200, http_web_type(js), js->data, *js->len, MHD_RESPMEM_PERSISTENT);
    if (!strcmp(url, "/api/tables"))
        return hall__json(c, hall__tables_json(x->h), "out of memory");
    if (!strcmp(url, "/api/refused"))
        return hall__json(c, hall__refused_json(x->h), "out of memory");
    if (!strcmp(url, "/api/hall"))
        return hall__json(c, hall__stats_json(x->h), "out of memory");
    if (!strncmp(url, "/tables/", 8)) {
        char name[80];
        const char *slash = strchr(url + 8, '/');
        size_t n = slash ? (size_t)(slash - url - 8) : 0;
        if (slash && n < sizeof name) {
            memcpy(name, url + 8, n);
            name[n] = '\0';
            if (hall_name_ok(name) && (!strcmp(slash + 1, "stream") || !strncmp(slash + 1, "stream?", 7)))
                return http_reply(c, 200, "text/html; charset=utf-8", hall__stream, hall__stream_len,
                                  MHD_RESPMEM_PERSISTENT);
            if (hall_name_ok(name) && !strcmp(slash + 1, "copy"))
                return hall__json(c, hall__copy_json(x->h, name), "the hall holds no game from this table yet");
            if (hall_name_ok(name) && !strcmp(slash + 1, "replay"))
                return hall__replay(c, x->h, name);
            if (hall_name_ok(name) && !strcmp(slash + 1, "log"))
                return hall__log(c, x->h, name);
            if (hall_name_ok(name) && (!strcmp(slash + 1, "state") || !strcmp(slash + 1, "answer")))
                return hall__json(c, hall__table_text(x->h, name, slash + 1),
                                  "no such table, or it has published nothing yet");
        }
    }
    return http_reply(c, 404, "application/json",
                      "{\"error\":\"no such page: the hall is at /, the API at /api/tables and "
                      "/tables/NAME/state\"}",
                      strlen("{\"error\":\"no such page: the hall is at /, the API at /api/tables and "
                             "/tables/NAME/state\"}"),
                      MHD_RESPMEM_PERSISTENT);
}

tt_status hall__http_start(hall__tables *h, const char *listen, hall__http **out, char *url, size_t n, tt_err *err)
{
    *out = NULL;
    char host[256];
    struct addrinfo *ai = NULL;
    tt_status s = http_listen_resolve("--http", listen ? listen : "", &ai, host, sizeof host, err);
    if (s != TT_OK)
        return s;
    hall__http *x = calloc(1, sizeof *x);
    if (!x) {
        freeaddrinfo(ai);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    x->h = h;
    /* a thread per connection: a long game's replay page, read from its
     * copy, keeps no one else waiting for /api/tables */
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    x->d = MHD_start_daemon(flags, 0, NULL, NULL, hall__handler, x, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CLIENTS, MHD_OPTION_CONNECTION_TIMEOUT,
                            (unsigned)HTTP_TIMEOUT_S, MHD_OPTION_END);
    int family = ai->ai_family;
    freeaddrinfo(ai);
    if (!x->d) {
        int e = errno;
        free(x);
        return tt_err_set(err, TT_ERR_IO, "cannot serve the hall on %s: %s (is the port in use? try another)", listen,
                          e ? strerror(e) : "libmicrohttpd refused");
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(x->d, MHD_DAEMON_INFO_BIND_PORT);
    snprintf(url, n, family == AF_INET6 ? "http://[%s]:%u/" : "http://%s:%u/", host, di ? di->port : 0);
    *out = x;
    return TT_OK;
}

void hall__http_stop(hall__http *x)
{
    if (!x)
        return;
    MHD_stop_daemon(x->d);
    free(x);
}
