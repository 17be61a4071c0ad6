/* hall_mqtt.c - one connection to the broker on libmosquitto (its network
 * thread reconnects by itself), names, passwords and the trouble an
 * organiser is told about. */
#include "hall_conn.h"

#include <errno.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct hall__conn {
    struct mosquitto *m;
    pthread_mutex_t mu;
    char host[256];
    int port;
    char user[128];
    char **subs;
    int *sub_mids;              /* each subscription's message id, 0 once the broker granted it */
    size_t nsubs;
    hall__conn_cbs cbs;
    int connected, refused, started, tls, ever_connected;
    int subscribed;             /* connected, and the broker granted every subscription (SUBACK) */
    pthread_t net;              /* runs libmosquitto's loop, again after it gives up */
    volatile int closing;
    double down_since;          /* monotonic ms since when not connected */
    char trouble[2048];
    unsigned serial;
};

static pthread_once_t hall__lib_once = PTHREAD_ONCE_INIT;

static void hall__lib_init(void)
{
    mosquitto_lib_init();
}

int hall_name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    return n >= 1 && n <= 64 &&
           strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") == n;
}

void hall__topic(char *buf, size_t n, const char *name, const char *sub)
{
    snprintf(buf, n, "tabletrack/%s/%s", name, sub);
}

void hall__game_key(const char *game, char *buf, size_t n)
{
    size_t i = 0;
    for (; game && game[i] && i + 1 < n; i++) {
        char ch = game[i];
        buf[i] = (strchr("-.:", ch) || (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z'))
                     ? ch
                     : '_';
    }
    if (n)
        buf[i < n ? i : n - 1] = '\0';
}

/* Set the trouble (NULL clears it); the caller holds mu. */
static void hall__set_trouble(hall__conn *c, const char *msg, int refused)
{
    const char *m = msg ? msg : "";
    if (strcmp(c->trouble, m) != 0) {
        snprintf(c->trouble, sizeof c->trouble, "%s", m);
        c->serial++;
    }
    c->refused = refused;
}

static void hall__on_connect(struct mosquitto *m, void *obj, int rc)
{
    hall__conn *c = obj;
    char msg[1024];
    pthread_mutex_lock(&c->mu);
    if (rc == 0) {
        c->connected = c->ever_connected = 1;
        c->subscribed = c->nsubs == 0;
        hall__set_trouble(c, NULL, 0);
        for (size_t i = 0; i < c->nsubs; i++)
            c->sub_mids[i] = -1; /* asked, not yet granted */
        pthread_mutex_unlock(&c->mu);
        for (size_t i = 0; i < c->nsubs; i++) {
            int mid = 0;
            if (mosquitto_subscribe(m, &mid, c->subs[i], 1) != MOSQ_ERR_SUCCESS)
                continue; /* the connection is going: asked again at the next */
            pthread_mutex_lock(&c->mu);
            c->sub_mids[i] = mid;
            pthread_mutex_unlock(&c->mu);
        }
        if (c->cbs.connected)
            c->cbs.connected(c->cbs.user);
        return;
    }
    /* MQTT v3 answers 4 or 5, v5 134 or 135 */
    if (rc == 4 || rc == 5 || rc == MQTT_RC_BAD_USERNAME_OR_PASSWORD || rc == MQTT_RC_NOT_AUTHORIZED) {
        if (c->user[0])
            snprintf(msg, sizeof msg,
                     "the broker at %s:%d refused user '%s': wrong user name or password (check --mqtt-user and the "
                     "password in --mqtt-password-file or $" HALL_PASSWORD_ENV ")",
                     c->host, c->port, c->user);
        else
            snprintf(msg, sizeof msg,
                     "the broker at %s:%d refused us: it wants a user name and password (give --mqtt-user, and the "
                     "password in --mqtt-password-file or $" HALL_PASSWORD_ENV ")",
                     c->host, c->port);
    } else {
        snprintf(msg, sizeof msg, "the broker at %s:%d refused the connection: %s", c->host, c->port,
                 rc >= 128 ? mosquitto_reason_string(rc) : mosquitto_connack_string(rc));
    }
    hall__set_trouble(c, msg, 1);
    pthread_mutex_unlock(&c->mu);
}

static void hall__on_disconnect(struct mosquitto *m, void *obj, int rc)
{
    (void)m;
    hall__conn *c = obj;
    pthread_mutex_lock(&c->mu);
    if (c->connected) {
        c->down_since = tt_mono_ms();
        if (rc != 0 && !c->refused) {
            char msg[1024];
            snprintf(msg, sizeof msg,
                     "lost the broker at %s:%d (%s); retrying every few seconds, and everything is sent once it is back",
                     c->host, c->port, mosquitto_strerror(rc));
            hall__set_trouble(c, msg, 0);
        }
    }
    c->connected = c->subscribed = 0;
    pthread_mutex_unlock(&c->mu);
}

/* The broker granted (or refused) a subscription: once it has granted
 * every one, messages published from now on reach us. */
static void hall__on_subscribe(struct mosquitto *m, void *obj, int mid, int nqos, const int *granted)
{
    (void)m;
    hall__conn *c = obj;
    int ok = nqos >= 1 && granted && granted[0] >= 0 && granted[0] <= 2;
    pthread_mutex_lock(&c->mu);
    int all = c->connected;
    for (size_t i = 0; i < c->nsubs; i++) {
        if (c->sub_mids[i] == mid && ok)
            c->sub_mids[i] = 0;
        all = all && c->sub_mids[i] == 0;
    }
    c->subscribed = all;
    pthread_mutex_unlock(&c->mu);
}

/* libmosquitto's errors: a TLS failure (a wrong CA, a certificate for
 * another name, a file that is no certificate) ends its thread for good,
 * and is told as a refusal. */
static void hall__on_log(struct mosquitto *m, void *obj, int level, const char *str)
{
    (void)m;
    hall__conn *c = obj;
    if (!c->tls || !(level & MOSQ_LOG_ERR) || !str)
        return;
    if (!strstr(str, "OpenSSL") && !strstr(str, "certificate") && !strstr(str, "TLS") && !strstr(str, "SSL"))
        return;
    char msg[2048];
    pthread_mutex_lock(&c->mu);
    snprintf(msg, sizeof msg,
             "TLS with the broker at %.200s:%d failed (%.300s): check that --mqtt-cafile is the certificate (PEM) of "
             "the CA that signed the broker's, that the broker's certificate names %.200s, and that this is its "
             "TLS listener",
             c->host, c->port, str, c->host);
    if (!c->refused && !c->ever_connected) /* the first error says the most */
        hall__set_trouble(c, msg, 1);
    pthread_mutex_unlock(&c->mu);
}

static void hall__on_message(struct mosquitto *m, void *obj, const struct mosquitto_message *msg)
{
    (void)m;
    hall__conn *c = obj;
    if (c->cbs.message)
        c->cbs.message(c->cbs.user, msg->topic, msg->payload, msg->payloadlen, msg->retain);
}

static void hall__on_publish(struct mosquitto *m, void *obj, int mid, int reason, const mosquitto_property *props)
{
    (void)m;
    (void)props;
    hall__conn *c = obj;
    if (c->cbs.published)
        c->cbs.published(c->cbs.user, mid, reason);
}

const char *hall__reason(int reason)
{
    return mosquitto_reason_string(reason);
}

/* The longest wait between two tries to reach the broker. */
#define HALL__RETRY_MAX_S 2

/* The network thread: libmosquitto's loop, which reconnects by itself
 * after a lost connection, but gives up for good on a TLS or protocol
 * error (a TLS broker killed mid-game resets the connection so): then it
 * is started again after a pause, until the connection is closed. */
static void *hall__net(void *arg)
{
    hall__conn *c = arg;
    while (!c->closing) {
        mosquitto_loop_forever(c->m, 1000, 1);
        for (int i = 0; i < 10 * HALL__RETRY_MAX_S && !c->closing; i++) {
            struct timespec ts = {0, 100 * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (!c->closing)
            mosquitto_reconnect_async(c->m);
    }
    return NULL;
}

/* The password: the first line of the file, or the environment. */
static tt_status hall__password(const hall_mqtt_opts *o, char *buf, size_t n, tt_err *err)
{
    buf[0] = '\0';
    if (o->password_file) {
        FILE *f = fopen(o->password_file, "r");
        if (!f)
            return tt_err_set(err, TT_ERR_IO, "cannot read the password file %s: %s", o->password_file,
                              strerror(errno));
        if (!fgets(buf, (int)n, f))
            buf[0] = '\0';
        fclose(f);
        buf[strcspn(buf, "\r\n")] = '\0';
        if (!buf[0])
            return tt_err_set(err, TT_ERR_ARG, "the password file %s is empty (write the password on its first line)",
                              o->password_file);
        return TT_OK;
    }
    const char *e = getenv(HALL_PASSWORD_ENV);
    if (!e || !*e)
        return tt_err_set(err, TT_ERR_ARG,
                          "--mqtt-user %s needs a password: put it in a file (--mqtt-password-file FILE) or in $"
                          HALL_PASSWORD_ENV ", never on the command line", o->user);
    snprintf(buf, n, "%s", e);
    return TT_OK;
}

static tt_status hall__parse_broker(const char *s, char *host, size_t hn, int *port, tt_err *err)
{
    if (!s || !*s)
        return tt_err_set(err, TT_ERR_ARG, "--mqtt: give the broker as HOST[:PORT], e.g. 192.168.1.10 or hall.local:1883");
    const char *colon = strrchr(s, ':');
    const char *close = strchr(s, ']');
    if (colon && close && colon < close)
        colon = NULL; /* [::1] without a port */
    size_t n = colon ? (size_t)(colon - s) : strlen(s);
    if (n == 0 || n >= hn)
        return tt_err_set(err, TT_ERR_ARG, "--mqtt %s: give the broker as HOST[:PORT]", s);
    memcpy(host, s, n);
    host[n] = '\0';
    if (host[0] == '[' && n >= 2 && host[n - 1] == ']') {
        memmove(host, host + 1, n - 2);
        host[n - 2] = '\0';
    }
    *port = HALL_DEFAULT_PORT;
    if (colon) {
        char *end;
        long p = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end || p < 1 || p > 65535)
            return tt_err_set(err, TT_ERR_ARG, "--mqtt %s: the port must be a number from 1 to 65535 (mosquitto's is 1883)",
                              s);
        *port = (int)p;
    }
    return TT_OK;
}

tt_status hall__conn_create(const hall_mqtt_opts *o, const char *client_id, int persistent,
                            const char *const *subs, const char *will_topic, const char *will_json,
                            const hall__conn_cbs *cbs, hall__conn **out, tt_err *err)
{
    *out = NULL;
    pthread_once(&hall__lib_once, hall__lib_init);
    hall__conn *c = calloc(1, sizeof *c);
    if (!c)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&c->mu, NULL);
    c->down_since = tt_mono_ms();
    if (cbs)
        c->cbs = *cbs;
    char pw[256];
    tt_status s = hall__parse_broker(o->broker, c->host, sizeof c->host, &c->port, err);
    if (s != TT_OK)
        goto fail;
    size_t ns = 0;
    while (subs && subs[ns])
        ns++;
    c->subs = calloc(ns + 1, sizeof *c->subs);
    c->sub_mids = calloc(ns + 1, sizeof *c->sub_mids);
    c->nsubs = ns;
    if (!c->subs || !c->sub_mids) {
        s = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < ns; i++)
        if (!(c->subs[i] = strdup(subs[i]))) {
            s = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            goto fail;
        }
    c->m = mosquitto_new(client_id, !persistent, c);
    if (!c->m) {
        s = tt_err_set(err, TT_ERR_NOMEM, "cannot make an MQTT client: %s", strerror(errno));
        goto fail;
    }
    mosquitto_int_option(c->m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
    /* no Nagle: a live state goes out at once, not after the last one's ACK */
    mosquitto_int_option(c->m, MOSQ_OPT_TCP_NODELAY, 1);
    if (o->user) {
        if ((s = hall__password(o, pw, sizeof pw, err)) != TT_OK)
            goto fail;
        snprintf(c->user, sizeof c->user, "%s", o->user);
        int rc = mosquitto_username_pw_set(c->m, o->user, pw);
        memset(pw, 0, sizeof pw);
        if (rc != MOSQ_ERR_SUCCESS) {
            s = tt_err_set(err, TT_ERR_ARG, "--mqtt-user %s: %s", o->user, mosquitto_strerror(rc));
            goto fail;
        }
    }
    if (o->cafile) {
        struct stat st;
        FILE *f = fopen(o->cafile, "r");
        int isfile = f && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
        int e = errno;
        if (f)
            fclose(f);
        if (!isfile) {
            s = tt_err_set(err, TT_ERR_IO, "--mqtt-cafile %s: %s (give the CA's certificate, a PEM file)", o->cafile,
                           f ? "not a file" : strerror(e));
            goto fail;
        }
        c->tls = 1;
        int rc = mosquitto_tls_set(c->m, o->cafile, NULL, NULL, NULL, NULL);
        if (rc != MOSQ_ERR_SUCCESS) {
            s = tt_err_set(err, TT_ERR_ARG, "--mqtt-cafile %s: %s", o->cafile, mosquitto_strerror(rc));
            goto fail;
        }
    }
    if (will_topic && will_json)
        mosquitto_will_set(c->m, will_topic, (int)strlen(will_json), will_json, 1, 1);
    mosquitto_connect_callback_set(c->m, hall__on_connect);
    mosquitto_disconnect_callback_set(c->m, hall__on_disconnect);
    mosquitto_message_callback_set(c->m, hall__on_message);
    mosquitto_subscribe_callback_set(c->m, hall__on_subscribe);
    mosquitto_log_callback_set(c->m, hall__on_log);
    mosquitto_publish_v5_callback_set(c->m, hall__on_publish);
    mosquitto_reconnect_delay_set(c->m, 1, HALL__RETRY_MAX_S, false);
    /* v5 ends a session with its connection unless told otherwise: a
     * persistent one (its QoS 1 queue) lasts as a v3.1.1 one does.  The
     * connection's properties are kept for every reconnection; libmosquitto
     * sets them only through its blocking connect, which stores them before
     * it looks at the host: given none, it stores them and returns at once. */
    mosquitto_property *props = NULL;
    if (persistent) {
        int prc = mosquitto_property_add_int32(&props, MQTT_PROP_SESSION_EXPIRY_INTERVAL, UINT32_MAX);
        if (prc == MOSQ_ERR_SUCCESS)
            prc = mosquitto_connect_bind_v5(c->m, NULL, c->port, 10, NULL, props);
        mosquitto_property_free_all(&props);
        if (prc != MOSQ_ERR_INVAL) {
            s = tt_err_set(err, TT_ERR_INTERNAL, "cannot ask the broker for a lasting session: %s",
                           mosquitto_strerror(prc));
            goto fail;
        }
    }
    int rc = mosquitto_connect_async(c->m, c->host, c->port, 10);
    if (rc == MOSQ_ERR_INVAL) {
        s = tt_err_set(err, TT_ERR_ARG, "--mqtt %s: not a broker address", o->broker);
        goto fail;
    }
    /* any other failure (unreachable, refused) is retried by the network
     * thread; its callbacks may use *out at once */
    *out = c;
    mosquitto_threaded_set(c->m, true);
    if (pthread_create(&c->net, NULL, hall__net, c) != 0) {
        *out = NULL;
        s = tt_err_set(err, TT_ERR_INTERNAL, "cannot start the MQTT thread");
        goto fail;
    }
    c->started = 1;
    return TT_OK;
fail:
    memset(pw, 0, sizeof pw);
    hall__conn_destroy(c);
    return s;
}

void hall__conn_destroy(hall__conn *c)
{
    if (!c)
        return;
    if (c->m) {
        if (c->started) {
            c->closing = 1;
            mosquitto_disconnect(c->m); /* the loop ends once it sees it (within HALL__RETRY_MAX_S) */
            pthread_join(c->net, NULL);
        }
        mosquitto_destroy(c->m);
    }
    for (char **s = c->subs; s && *s; s++)
        free(*s);
    free(c->subs);
    free(c->sub_mids);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

int hall__conn_connected(hall__conn *c)
{
    pthread_mutex_lock(&c->mu);
    int r = c->connected;
    pthread_mutex_unlock(&c->mu);
    return r;
}

int hall__conn_subscribed(hall__conn *c)
{
    pthread_mutex_lock(&c->mu);
    int r = c->subscribed;
    pthread_mutex_unlock(&c->mu);
    return r;
}

int hall__conn_publish(hall__conn *c, const char *topic, const void *payload, size_t len, int qos, int retain,
                       int *mid)
{
    return mosquitto_publish(c->m, mid, topic, (int)len, payload, qos, retain != 0) == MOSQ_ERR_SUCCESS ? 0 : -1;
}

/* How long the broker may stay unreachable before the organiser is told. */
#define HALL__UNREACHABLE_MS 3000

void hall__conn_trouble(hall__conn *c, char *buf, size_t n, unsigned *serial, int *refused)
{
    pthread_mutex_lock(&c->mu);
    if (!c->connected && !c->trouble[0] && tt_mono_ms() - c->down_since > HALL__UNREACHABLE_MS) {
        char msg[1024];
        snprintf(msg, sizeof msg,
                 "cannot reach the broker at %s:%d (is mosquitto running there? is the address right?); retrying "
                 "every few seconds, and everything is sent once it answers",
                 c->host, c->port);
        hall__set_trouble(c, msg, 0);
    }
    if (buf)
        snprintf(buf, n, "%s", c->trouble);
    if (serial)
        *serial = c->serial;
    if (refused)
        *refused = c->refused;
    pthread_mutex_unlock(&c->mu);
}

void hall__conn_report(hall__conn *c, const char *who, unsigned *seen)
{
    char msg[2048];
    unsigned serial;
    hall__conn_trouble(c, msg, sizeof msg, &serial, NULL);
    if (serial == *seen)
        return;
    *seen = serial;
    if (msg[0])
        fprintf(stderr, "tabletrack %s: %s\n", who, msg);
    else
        fprintf(stderr, "tabletrack %s: connected to the broker\n", who);
    fflush(stderr);
}
