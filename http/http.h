/* http.h - the table server: the live game served to phones and browsers
 * over HTTP (libmicrohttpd), while 'tabletrack track' plays it.
 *
 *   GET    /                 the app (HTML, JS, CSS compiled in; nothing is
 *                            fetched from elsewhere)
 *   GET    /api/state        the state now (game_state_json)
 *   GET    /api/live         Server-Sent Events: state, event, answer
 *   POST   /api/query        ask a question -> {"qid":N,"answer":{...}}
 *   DELETE /api/query/N      stop showing question N; /api/query: all
 *   GET    /api/table.png    the table from above (?ppi=, default 10)
 *   GET    /api/scenario     the scenario now (for the set-up page)
 *   PUT    /api/scenario     a whole new scenario
 *   PUT    /api/pick         {"id": ID}: this page has ID's menu open (the
 *                            projector rings it; one per page, named by an
 *                            X-Table-Client header; renew within
 *                            GAME_PICK_TTL_MS); DELETE /api/pick: closed
 *
 * Reading needs no key; anything that changes the game needs the key, as
 * ?key=KEY or an X-Table-Key header (else 403).  Errors are JSON
 * {"error": "..."}: 400 malformed (with line and column), 404 unknown
 * figure or question, 413 a body over HTTP_MAX_BODY, 503 past
 * HTTP_MAX_VIEWERS live viewers or HTTP_MAX_CLIENTS_PER_IP connections
 * from one address.  At most HTTP_MAX_CLIENTS connections; a client silent
 * for HTTP_TIMEOUT_S seconds is dropped, so no client can hold up the game.
 *
 * Ownership: http_server_start allocates, http_server_stop frees (accepts
 * NULL).  The game must outlive the server.
 */
#ifndef TT_HTTP_H
#define TT_HTTP_H

#include <netdb.h>

#include "game.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HTTP_MAX_BODY (1024 * 1024)
/* A body over HTTP_MAX_BODY is still read (and dropped) up to this, so the
 * client reads its 413; a larger one is refused at once. */
#define HTTP_MAX_DRAIN (16 * 1024 * 1024)
/* Connections at once: enough that clients too slow to finish a request
 * (each holds a thread that waits on its socket) cannot take them all.
 * From one address, a request on a connection past HTTP_MAX_CLIENTS_PER_IP
 * is answered with a JSON 503 and the connection closed; past
 * HTTP_MAX_CLIENTS_PER_IP_HARD, libmicrohttpd closes connections as they
 * come, before any HTTP (a refusal at accept time has no request to answer:
 * it can only close), so no address takes every slot with requests it never
 * finishes.  Past HTTP_MAX_CLIENTS in all, the same. */
#define HTTP_MAX_CLIENTS 512
#define HTTP_MAX_CLIENTS_PER_IP 128
#define HTTP_MAX_CLIENTS_PER_IP_HARD 160
#define HTTP_MAX_VIEWERS 100 /* of which on /api/live at once; more get a JSON 503 and are closed */
#define HTTP_TIMEOUT_S 10

typedef struct http_server http_server;

/* listen: "[HOST:]PORT" (HOST default 127.0.0.1; PORT 0 picks a free one).
 * key: the key that allows changes, or NULL for a random one. */
tt_status http_server_start(const char *listen, const char *key, game *g, http_server **out, tt_err *err);

/* "http://HOST:PORT/?key=KEY", with the port actually bound; for a server
 * on every address (0.0.0.0), HOST is this machine's network address. */
const char *http_server_url(const http_server *s);

void http_server_stop(http_server *s);

/* "[HOST:]PORT" (HOST default 127.0.0.1, PORT 0-65535) resolved for
 * listening: *ai (the caller's: freeaddrinfo) and the host as given.  opt
 * names the option in messages ("--http"). */
tt_status http_listen_resolve(const char *opt, const char *listen, struct addrinfo **ai, char *host, size_t hn,
                              tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
