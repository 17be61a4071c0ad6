/* hall_http.h - private to hall/server/: the hall's web server
 * (libmicrohttpd), reading what hall_tables.c knows.  Started and stopped
 * by hall_server.c; it calls hall_tables.c only.
 *
 * Ownership: hall__http_start/hall__http_stop pair (stop accepts NULL);
 * the tables must outlive the web server. */
#ifndef TT_HALL_HTTP_H
#define TT_HALL_HTTP_H

#include <stddef.h>

#include "hall_tables.h"
#include "tt_status.h"

typedef struct hall__http hall__http;

/* Serve on listen ("[HOST:]PORT"); url receives "http://HOST:PORT/". */
tt_status hall__http_start(hall__tables *T, const char *listen, hall__http **out, char *url, size_t n, tt_err *err);
void hall__http_stop(hall__http *x);

#endif
