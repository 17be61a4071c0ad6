/* hall_mqtt.h - what the hall's two rooms share: how to reach the MQTT
 * broker (mosquitto) and what a table's name may be.  The table's publisher
 * (hall/publish/, 'track --mqtt' and 'replay --mqtt') and the hall's server
 * (hall/server/, 'tabletrack hall') both call this room, never each other;
 * they meet only on the broker, under the topics of docs/api.md ("MQTT
 * topics") and docs/hall.md.
 *
 * Ownership: strings in hall_mqtt_opts are the caller's; every connection
 * copies what it keeps. */
#ifndef TT_HALL_MQTT_H
#define TT_HALL_MQTT_H

#ifdef __cplusplus
extern "C" {
#endif

#define HALL_DEFAULT_PORT 1883
#define HALL_PASSWORD_ENV "TABLETRACK_MQTT_PASSWORD"

/* The largest message a table sends or the hall takes, in bytes (a chunk
 * of the recording, a live state, a scenario).  The shipped broker
 * configuration (samples/hall/mosquitto.conf, message_size_limit) refuses
 * anything larger before it reaches the hall; the hall drops what is
 * larger still (a broker set up without that limit) and says so. */
#define HALL_MESSAGE_MAX (1024u * 1024u)

/* How to reach the broker. */
typedef struct hall_mqtt_opts {
    const char *broker;        /* "HOST[:PORT]" (port default 1883) */
    const char *user;          /* NULL: anonymous */
    const char *password_file; /* first line is the password; NULL: $TABLETRACK_MQTT_PASSWORD */
    const char *cafile;        /* PEM of the CA that signed the broker's certificate: TLS; NULL: plain */
} hall_mqtt_opts;

/* A table name: 1-64 letters, digits, '-' or '_' (it is a topic level and
 * a file name).  0 if not. */
int hall_name_ok(const char *name);

#ifdef __cplusplus
}
#endif
#endif
