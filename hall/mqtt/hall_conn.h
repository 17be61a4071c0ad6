/* hall_conn.h - for the hall's two rooms only (hall/publish/ and
 * hall/server/, never cli/): one broker connection (libmosquitto, its own
 * network thread), topic names, and the trouble an organiser is told about. */
#ifndef TT_HALL_CONN_H
#define TT_HALL_CONN_H

#include <stddef.h>

#include "hall_mqtt.h"
#include "tt_clock.h"
#include "tt_status.h"

typedef struct hall__conn hall__conn;

/* Called on the connection's network thread. */
typedef struct hall__conn_cbs {
    void (*message)(void *user, const char *topic, const void *payload, int len, int retained);
    void (*connected)(void *user);        /* after every (re)connection, once subscribed */
    /* a QoS 1 message was answered by the broker: reason 0 taken, else the
     * MQTT v5 reason it was refused for (135: the ACL does not allow it) */
    void (*published)(void *user, int mid, int reason);
    void *user;
} hall__conn_cbs;

/* Connect in the background (retried every 1-10 s while unreachable), in
 * MQTT v5 (the broker says why it refuses a publish) with a session that
 * outlives the connection when persistent.
 * subs: NULL-terminated topic filters subscribed at every connection (QoS
 * 1).  will: published retained by the broker if we vanish (may be NULL).
 * *out is set before the network thread starts: callbacks may use it. */
tt_status hall__conn_create(const hall_mqtt_opts *o, const char *client_id, int persistent,
                            const char *const *subs, const char *will_topic, const char *will_json,
                            const hall__conn_cbs *cbs, hall__conn **out, tt_err *err);
void hall__conn_destroy(hall__conn *c);

int hall__conn_connected(hall__conn *c);

/* Connected, and the broker has granted every subscription of subs: what
 * is published from now on under them reaches us. */
int hall__conn_subscribed(hall__conn *c);

/* Publish; *mid (may be NULL) gets the message id.  0 on success. */
int hall__conn_publish(hall__conn *c, const char *topic, const void *payload, size_t len, int qos, int retain,
                       int *mid);

/* Trouble with the broker, as a sentence an organiser can act on, and a
 * counter that changes whenever it does (to print each once).  refused:
 * the broker refused our user name or password (or TLS failed). */
void hall__conn_trouble(hall__conn *c, char *buf, size_t n, unsigned *serial, int *refused);

/* Print the connection's trouble on stderr when it changed since *seen,
 * prefixed "tabletrack WHO: ". */
void hall__conn_report(hall__conn *c, const char *who, unsigned *seen);

/* The MQTT v5 reason a broker gives for a message over its
 * message_size_limit (Packet too large). */
#define HALL__RC_TOO_LARGE 149

/* An MQTT v5 reason code in words. */
const char *hall__reason(int reason);

/* "tabletrack/NAME/SUB" into buf. */
void hall__topic(char *buf, size_t n, const char *name, const char *sub);

/* A game's name ("STARTED_UTC#ID") as one topic level, for the hall's
 * answer tabletrack/NAME/hall/KEY: letters, digits, '-', '.', ':' kept,
 * anything else (the '#', an MQTT wildcard) made '_'. */
void hall__game_key(const char *game, char *buf, size_t n);


#endif
