/* tt_hall_pub.c - the hall tests' stand-in for a misbehaving client (a
 * stranger on a broker without the hall's ACL), on libmosquitto:
 *
 *   tt-hall-pub HOST:PORT TOPIC COUNT FILE [--retain]
 *
 * publishes FILE's bytes COUNT times at QoS 1, to TOPIC with "%d" (if any)
 * replaced by 0..COUNT-1, and exits 0 once the broker has acknowledged them
 * all (1 on any error; at most 120 s). */
#include <mosquitto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int acked;

static void on_publish(struct mosquitto *m, void *obj, int mid)
{
    (void)m;
    (void)obj;
    (void)mid;
    __atomic_add_fetch(&acked, 1, __ATOMIC_RELAXED);
}

static char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(*len > 0 ? (size_t)*len : 1);
    if (buf && fread(buf, 1, (size_t)*len, f) != (size_t)*len) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: tt-hall-pub HOST:PORT TOPIC COUNT FILE [--retain]\n");
        return 2;
    }
    char host[256];
    snprintf(host, sizeof host, "%s", argv[1]);
    char *colon = strrchr(host, ':');
    if (!colon)
        return 2;
    *colon = '\0';
    int port = atoi(colon + 1), count = atoi(argv[3]), retain = argc > 5 && !strcmp(argv[5], "--retain");
    long len = 0;
    char *payload = slurp(argv[4], &len);
    if (!payload) {
        fprintf(stderr, "tt-hall-pub: cannot read %s\n", argv[4]);
        return 1;
    }
    mosquitto_lib_init();
    struct mosquitto *m = mosquitto_new(NULL, true, NULL);
    int rc = m ? mosquitto_connect(m, host, port, 30) : MOSQ_ERR_NOMEM;
    if (rc != MOSQ_ERR_SUCCESS) {
        fprintf(stderr, "tt-hall-pub: cannot connect to %s: %s\n", argv[1], mosquitto_strerror(rc));
        return 1;
    }
    mosquitto_publish_callback_set(m, on_publish);
    mosquitto_loop_start(m);
    for (int i = 0; i < count; i++) {
        char topic[512];
        const char *pct = strstr(argv[2], "%d");
        if (pct)
            snprintf(topic, sizeof topic, "%.*s%d%s", (int)(pct - argv[2]), argv[2], i, pct + 2);
        else
            snprintf(topic, sizeof topic, "%s", argv[2]);
        if ((rc = mosquitto_publish(m, NULL, topic, (int)len, payload, 1, retain)) != MOSQ_ERR_SUCCESS) {
            fprintf(stderr, "tt-hall-pub: publishing to %s: %s\n", topic, mosquitto_strerror(rc));
            return 1;
        }
    }
    time_t end = time(NULL) + 120;
    while (__atomic_load_n(&acked, __ATOMIC_RELAXED) < count && time(NULL) < end) {
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    int ok = __atomic_load_n(&acked, __ATOMIC_RELAXED) == count;
    mosquitto_disconnect(m);
    mosquitto_loop_stop(m, false);
    mosquitto_destroy(m);
    mosquitto_lib_cleanup();
    free(payload);
    printf("tt-hall-pub: %d of %d acknowledged\n", acked, count);
    return ok ? 0 : 1;
}
