/* hall_server.h - the hall's side of the convention hall: what the
 * organiser runs ('tabletrack hall').  It gathers every table's game from
 * the MQTT broker into one folder, answers each table with how far its
 * copy goes (or that it refuses the table, and why), and serves the hall
 * page.  The tables' publisher (hall/publish/) is another room: the two
 * meet only on the broker (topics: hall_publish.h, docs/api.md).
 *
 * Ownership: hall_server_start/hall_server_stop pair (stop accepts NULL);
 * strings passed in are copied. */
#ifndef TT_HALL_SERVER_H
#define TT_HALL_SERVER_H

#include "hall_mqtt.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HALL_MAX_TABLES 1000 /* tables one hall keeps; past it a new table is refused, and told so */

typedef struct hall_server hall_server;

/* Subscribe to every table on the broker, keep DIR/NAME.sqlite per table
 * (created with DIR when missing), and serve the page and /api/tables on
 * http_listen ("[HOST:]PORT", host default 127.0.0.1).  A broker that
 * refuses the user is an error at once; an unreachable one is retried. */
tt_status hall_server_start(const hall_mqtt_opts *o, const char *http_listen, const char *dir, hall_server **out,
                            tt_err *err);
/* "http://HOST:PORT/" */
const char *hall_server_url(const hall_server *h);
/* A fatal trouble since start (the broker refused the password): TT_OK
 * while all is well. */
tt_status hall_server_check(hall_server *h, tt_err *err);
void hall_server_stop(hall_server *h);

#ifdef __cplusplus
}
#endif
#endif
