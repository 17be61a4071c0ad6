/* hall_tables.c - what the hall knows of every table: a copy of each
 * table's recording in DIR/NAME.sqlite, the hall's answer per game of each
 * table (tabletrack/NAME/hall/GAME: how far its copy of that game goes, and
 * "need" when a chunk left a gap; and tabletrack/NAME/hall for the table's
 * newest game), the tables' live states, and the tables it refused (past
 * HALL_MAX_TABLES: told on tabletrack/NAME/hall, on the page and in the
 * log). */
#include "hall_tables.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "hall_server.h"
#include "rec_copy.h"

#define HALL__LAT 8192      /* latency samples kept */
#define HALL__ACK_MS 200    /* the hall's answer at most this often per table */
#define HALL__MAX_GAMES 10000 /* games per table answered for */
#define HALL__MAX_REFUSED 10000 /* refused tables remembered (named in the log and on the page) */
#define HALL__REFUSED_ACK_MS 5000 /* a refused table that keeps sending is told again at most this often */

/* One game of a table, as far as the hall's copy holds it. */
typedef struct hall__game {
    char game[96];
    rec_pos have;
    int ack_dirty, need, ended_told;
    double ack_ms;
} hall__game;

struct hall__tab {
    char name[65];
    /* the writer thread only */
    rec_copy *copy;
    int copy_failed;
    /* under the tables' mu */
    hall__game *games;
    size_t ngames;
    char game[96];      /* the newest game (the table's latest session in the copy) */
    long long session;  /* its session in the copy */
    rec_pos have;
    char *state, *answer; /* state: the newest that parsed */
    char *pending;        /* a newer live state not yet read (hall__state_take) */
    size_t pending_len;
    long long pending_rx; /* Unix ms it arrived */
    char ruleset[64];
    long long frame;
    double t_ms;
    int figures, connected, has_state;
    long long seen_ms; /* Unix ms of the last news, 0: none */
    unsigned too_big;  /* topics (bits) whose oversized messages were told */
};

/* A table the hall refused: it is told so, again when it keeps sending. */
typedef struct hall__refusal {
    char name[65];
    int due;           /* its answer is due */
    int news;          /* it sent something since it was last told */
    double told_ms;    /* when it was last told */
    long long seen_ms; /* Unix ms of its last message */
} hall__refusal;

struct hall__tables {
    char *dir;
    pthread_mutex_t mu;
    hall__tab **tabs;
    size_t ntabs;
    hall__refusal *refused;
    size_t nrefused;
    long long refused_more; /* refused beyond HALL__MAX_REFUSED (counted, not named) */
    double lat[HALL__LAT];
    size_t nlat;
    long long chunks, gaps, states, bad, dropped;
    int subscribed;
};

static const char hall__full_reason[] =
    "the hall keeps at most %d tables and is full: this table's game is not gathered. Ask the organiser: a broker "
    "without the hall's ACL (samples/hall/hall.acl) lets anyone invent table names (docs/hall.md)";

hall__tables *hall__tables_create(const char *dir)
{
    hall__tables *T = calloc(1, sizeof *T);
    if (!T || !(T->dir = strdup(dir))) {
        free(T);
        return NULL;
    }
    pthread_mutex_init(&T->mu, NULL);
    return T;
}

/* A refused table: remembered (the caller holds mu); 1 when new. */
static int hall__refuse(hall__tables *T, const char *name)
{
    long long now = tt_unix_ms();
    for (size_t i = 0; i < T->nrefused; i++)
        if (!strcmp(T->refused[i].name, name)) {
            T->refused[i].seen_ms = now;
            T->refused[i].news = 1;
            return 0;
        }
    if (T->nrefused >= HALL__MAX_REFUSED) {
        T->refused_more++;
        return T->refused_more == 1;
    }
    if (T->nrefused % 64 == 0) {
        hall__refusal *n = realloc(T->refused, (T->nrefused + 64) * sizeof *n);
        if (!n) {
            T->refused_more++;
            return 0;
        }
        T->refused = n;
    }
    hall__refusal *r = &T->refused[T->nrefused++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->due = 1;
    r->seen_ms = now;
    return 1;
}

hall__tab *hall__tables_get(hall__tables *T, const char *name)
{
    if (!hall_name_ok(name))
        return NULL;
    pthread_mutex_lock(&T->mu);
    hall__tab *t = NULL;
    for (size_t i = 0; i < T->ntabs && !t; i++)
        if (!strcmp(T->tabs[i]->name, name))
            t = T->tabs[i];
    if (!t && T->ntabs >= HALL_MAX_TABLES) {
        int fresh = hall__refuse(T, name);
        long long more = T->refused_more;
        pthread_mutex_unlock(&T->mu);
        if (fresh && more == 0) {
            fprintf(stderr, "tabletrack hall: refused table %s: ", name);
            fprintf(stderr, hall__full_reason, HALL_MAX_TABLES);
            fprintf(stderr, "\n");
        } else if (fresh) {
            fprintf(stderr, "tabletrack hall: more than %d tables refused: the others are counted on the page "
                    "(/api/refused), not named here\n", HALL__MAX_REFUSED);
        }
        fflush(stderr);
        return NULL;
    }
    if (!t) {
        hall__tab **n = realloc(T->tabs, (T->ntabs + 1) * sizeof *n);
        if (n) {
            T->tabs = n;
            if ((t = calloc(1, sizeof *t))) {
                snprintf(t->name, sizeof t->name, "%.64s", name);
                t->have = rec_pos_empty();
                t->frame = -1;
                T->tabs[T->ntabs++] = t;
            }
        }
    }
    pthread_mutex_unlock(&T->mu);
    return t;
}

static void hall__tab_free(hall__tab *t)
{
    if (!t)
        return;
    rec_copy_close(t->copy);
    free(t->games);
    free(t->state);
    free(t->pending);
    free(t->answer);
    free(t);
}

void hall__tables_destroy(hall__tables *T)
{
    if (!T)
        return;
    for (size_t i = 0; i < T->ntabs; i++)
        hall__tab_free(T->tabs[i]);
    free(T->tabs);
    free(T->refused);
    pthread_mutex_destroy(&T->mu);
    free(T->dir);
    free(T);
}

char *hall__copy_path(hall__tables *T, const char *name)
{
    size_t n = strlen(T->dir) + strlen(name) + 16;
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%s/%s.sqlite", T->dir, name);
    return path;
}

/* Game `game` of table t, added when new (the caller holds mu); NULL past
 * HALL__MAX_GAMES or out of memory. */
static hall__game *hall__game_get(hall__tables *T, hall__tab *t, const char *game, long long session, int *new_game)
{
    size_t k;
    for (k = 0; k < t->ngames && strcmp(t->games[k].game, game) != 0; k++)
        ;
    *new_game = k == t->ngames;
    if (!*new_game)
        return &t->games[k];
    if (t->ngames >= HALL__MAX_GAMES)
        return NULL;
    hall__game *n = realloc(t->games, (t->ngames + 1) * sizeof *n);
    if (!n)
        return NULL;
    t->games = n;
    hall__game *g = &t->games[t->ngames++];
    memset(g, 0, sizeof *g);
    snprintf(g->game, sizeof g->game, "%s", game);
    fprintf(stderr, "tabletrack hall: table %s: game %s -> %s/%s.sqlite (session %lld)\n", t->name, game, T->dir,
            t->name, session);
    return g;
}

void hall__tables_rec(hall__tables *T, hall__tab *t, const void *payload, size_t len)
{
    tt_err e = {0};
    if (!t->copy && !t->copy_failed) {
        char *path = hall__copy_path(T, t->name);
        if (path) {
            if (rec_copy_open(path, &t->copy, &e) != TT_OK) {
                fprintf(stderr, "tabletrack hall: table %s: %s\n", t->name, e.msg);
                t->copy_failed = 1;
            }
            free(path);
        }
    }
    if (!t->copy)
        return;
    rec_copy_result res;
    char *game = NULL;
    if (rec_copy_apply(t->copy, payload, len, &res, &game, &e) != TT_OK) {
        fprintf(stderr, "tabletrack hall: table %s: a chunk of its recording was refused: %s\n", t->name, e.msg);
        fflush(stderr);
        pthread_mutex_lock(&T->mu);
        T->bad++;
        pthread_mutex_unlock(&T->mu);
        free(game);
        return;
    }
    rec_pos have;
    if (rec_copy_have(t->copy, game, &have, &e) != TT_OK) {
        free(game);
        return;
    }
    long long session = rec_copy_session(t->copy, game);
    pthread_mutex_lock(&T->mu);
    int new_game = 0;
    hall__game *g = hall__game_get(T, t, game, session, &new_game);
    if (g) {
        g->have = have;
        /* a table sending what the copy holds lacks our answer: again */
        if (res == REC_COPY_APPLIED || res == REC_COPY_DUPLICATE || new_game)
            g->ack_dirty = 1;
        if (res == REC_COPY_GAP)
            g->need = g->ack_dirty = 1;
        if (have.ended && !g->ended_told) {
            g->ended_told = 1;
            fprintf(stderr, "tabletrack hall: table %s: game %s complete (last frame %lld)\n", t->name, game,
                    have.frame);
        }
    }
    /* the page shows the table's newest game, not an earlier one sent late */
    if (!t->game[0] || !strcmp(t->game, game) || session >= t->session) {
        snprintf(t->game, sizeof t->game, "%s", game);
        t->session = session;
        t->have = have;
    }
    if (res == REC_COPY_GAP)
        T->gaps++;
    if (res == REC_COPY_APPLIED)
        T->chunks++;
    pthread_mutex_unlock(&T->mu);
    fflush(stderr);
    free(game);
}

/* A copy of a message as text (caller frees); NULL when out of memory. */
static char *hall__text(const void *payload, size_t len)
{
    char *copy = malloc(len + 1);
    if (copy) {
        memcpy(copy, payload, len);
        copy[len] = '\0';
    }
    return copy;
}

/* Table t's pending state read, under T's mu: kept as its state if it
 * parses (else dropped, the last good one kept), its delay from the table
 * counted; its wall_ms, or 0.  A live state is read only when someone asks
 * (/api/tables, /api/hall, its page): parsing each of them whole as it came
 * was most of the hall's work. */
static long long hall__state_take(hall__tables *T, hall__tab *t)
{
    if (!t->pending)
        return 0;
    char *text = t->pending;
    t->pending = NULL;
    json_t *j = json_loadb(text, t->pending_len, 0, NULL);
    if (!j) {
        free(text);
        return 0;
    }
    long long wall = json_integer_value(json_object_get(j, "wall_ms"));
    const char *rs = json_string_value(json_object_get(j, "ruleset"));
    free(t->state);
    t->state = text;
    t->has_state = 1;
    t->frame = json_integer_value(json_object_get(j, "frame"));
    t->t_ms = json_number_value(json_object_get(j, "t_ms"));
    t->figures = (int)json_array_size(json_object_get(j, "figures"));
    snprintf(t->ruleset, sizeof t->ruleset, "%s", rs ? rs : "");
    if (t->pending_rx > 0 && wall > 0 && t->pending_rx >= wall)
        T->lat[T->nlat++ % HALL__LAT] = (double)(t->pending_rx - wall);
    json_decref(j);
    return wall;
}

/* Every table's pending state read (under T's mu). */
static void hall__states_take(hall__tables *T)
{
    for (size_t i = 0; i < T->ntabs; i++)
        hall__state_take(T, T->tabs[i]);
}

void hall__tables_state(hall__tables *T, hall__tab *t, const void *payload, size_t len, int retained)
{
    char *copy = hall__text(payload, len);
    if (!copy)
        return;
    long long now = tt_unix_ms();
    pthread_mutex_lock(&T->mu);
    free(t->pending);
    t->pending = copy;
    t->pending_len = len;
    t->pending_rx = retained ? 0 : now;
    if (!retained) {
        t->seen_ms = now;
        t->connected = 1;
        T->states++;
    } else { /* kept by the broker from before: when it was sent */
        long long wall = hall__state_take(T, t);
        if (wall > t->seen_ms)
            t->seen_ms = wall;
    }
    pthread_mutex_unlock(&T->mu);
}

void hall__tables_status(hall__tables *T, hall__tab *t, const void *payload, size_t len, int retained)
{
    json_t *j = json_loadb(payload, len, 0, NULL);
    pthread_mutex_lock(&T->mu);
    t->connected = json_is_true(json_object_get(j, "connected"));
    if (!retained)
        t->seen_ms = tt_unix_ms();
    pthread_mutex_unlock(&T->mu);
    json_decref(j);
}

void hall__tables_answer(hall__tables *T, hall__tab *t, const void *payload, size_t len)
{
    char *copy = hall__text(payload, len);
    pthread_mutex_lock(&T->mu);
    free(t->answer);
    t->answer = copy;
    pthread_mutex_unlock(&T->mu);
}

void hall__tables_too_big(hall__tables *T, hall__tab *t, const char *sub, size_t len)
{
    static const char *const subs[] = {"rec", "state", "status", "answer"};
    unsigned bit = 1u << 4;
    for (unsigned k = 0; k < 4; k++)
        if (!strcmp(sub, subs[k]))
            bit = 1u << k;
    pthread_mutex_lock(&T->mu);
    T->dropped++;
    int told = (t->too_big & bit) != 0;
    t->too_big |= bit;
    pthread_mutex_unlock(&T->mu);
    if (!told) {
        fprintf(stderr, "tabletrack hall: table %s: dropped a %zu-byte message on %s: the hall takes at most %u "
                "bytes a message (set message_size_limit in the broker's mosquitto.conf: samples/hall/mosquitto.conf)\n",
                t->name, len, sub, HALL_MESSAGE_MAX);
        fflush(stderr);
    }
}

void hall__tables_reconnected(hall__tables *T)
{
    pthread_mutex_lock(&T->mu);
    for (size_t i = 0; i < T->ntabs; i++)
        for (size_t k = 0; k < T->tabs[i]->ngames; k++)
            T->tabs[i]->games[k].ack_dirty = 1;
    for (size_t i = 0; i < T->nrefused; i++)
        T->refused[i].due = 1;
    pthread_mutex_unlock(&T->mu);
}

void hall__tables_subscribed(hall__tables *T, int subscribed)
{
    pthread_mutex_lock(&T->mu);
    T->subscribed = subscribed != 0;
    pthread_mutex_unlock(&T->mu);
}

/* The answer for game k of table t, when due: its topic
 * (tabletrack/NAME/hall/GAME) into topic, and *newest when it is the
 * table's newest game (also told on tabletrack/NAME/hall).  NULL when not
 * due.  The caller holds mu. */
static char *hall__answer(hall__tab *t, size_t k, double now, char *topic, size_t n, int *newest)
{
    hall__game *g = &t->games[k];
    if (!g->ack_dirty || (now - g->ack_ms < HALL__ACK_MS && !g->have.ended))
        return NULL;
    char *have = rec_pos_json(&g->have);
    json_t *j = have ? json_pack("{s:s, s:o, s:b}", "game", g->game, "have", json_loads(have, 0, NULL), "need",
                                 g->need)
                     : NULL;
    char *msg = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    free(have);
    char key[100], sub[112];
    hall__game_key(g->game, key, sizeof key);
    snprintf(sub, sizeof sub, "hall/%s", key);
    hall__topic(topic, n, t->name, sub);
    *newest = !strcmp(g->game, t->game);
    if (msg) {
        g->ack_dirty = g->need = 0;
        g->ack_ms = now;
    }
    return msg;
}

/* The refusals that are due: told on tabletrack/NAME/hall as
 * {"refused": REASON}, retained, so a table that connects later reads it. */
static void hall__tell_refused(hall__tables *T, hall__conn *c, double now)
{
    char *msg = NULL; /* written when the first is due: not every 50 ms for none */
    for (size_t i = 0;; i++) {
        char topic[128];
        pthread_mutex_lock(&T->mu);
        int more = i < T->nrefused, due = 0;
        if (more) {
            hall__refusal *r = &T->refused[i];
            /* again while it keeps sending (it may have missed the first) */
            due = r->due || (r->news && now - r->told_ms >= HALL__REFUSED_ACK_MS);
            hall__topic(topic, sizeof topic, r->name, "hall");
            if (due) {
                r->due = 0;
                r->told_ms = now;
                r->news = 0;
            }
        }
        pthread_mutex_unlock(&T->mu);
        if (!more)
            break;
        if (due && !msg) {
            char reason[400];
            snprintf(reason, sizeof reason, hall__full_reason, HALL_MAX_TABLES);
            json_t *j = json_pack("{s:s}", "refused", reason);
            msg = j ? json_dumps(j, JSON_COMPACT) : NULL;
            json_decref(j);
        }
        if (due && (!msg || hall__conn_publish(c, topic, msg, strlen(msg), 1, 1, NULL) != 0)) {
            pthread_mutex_lock(&T->mu);
            T->refused[i].due = 1; /* not told (not connected): again later */
            pthread_mutex_unlock(&T->mu);
        }
    }
    free(msg);
}

void hall__tables_tell(hall__tables *T, hall__conn *c, double now)
{
    for (size_t i = 0;; i++) {
        pthread_mutex_lock(&T->mu);
        size_t ntabs = T->ntabs, ngames = i < ntabs ? T->tabs[i]->ngames : 0;
        pthread_mutex_unlock(&T->mu);
        if (i >= ntabs)
            break;
        for (size_t k = 0; k < ngames; k++) { /* games are only ever added: k stays valid */
            char topic[256], latest[128];
            int newest = 0;
            pthread_mutex_lock(&T->mu);
            hall__tab *t = T->tabs[i];
            char *msg = hall__answer(t, k, now, topic, sizeof topic, &newest);
            if (msg)
                hall__topic(latest, sizeof latest, t->name, "hall");
            pthread_mutex_unlock(&T->mu);
            if (msg && (hall__conn_publish(c, topic, msg, strlen(msg), 1, 1, NULL) != 0 ||
                        (newest && hall__conn_publish(c, latest, msg, strlen(msg), 1, 1, NULL) != 0))) {
                pthread_mutex_lock(&T->mu);
                T->tabs[i]->games[k].ack_dirty = 1; /* not connected: again later */
                pthread_mutex_unlock(&T->mu);
            }
            free(msg);
        }
    }
    hall__tell_refused(T, c, now);
}

/* ---- for the web server ---- */

char *hall__tables_json(hall__tables *h)
{
    json_t *arr = json_array();
    long long now = tt_unix_ms();
    pthread_mutex_lock(&h->mu);
    hall__states_take(h);
    for (size_t i = 0; arr && i < h->ntabs; i++) {
        hall__tab *t = h->tabs[i];
        json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:i, s:b, s:o}", "table", t->name, "ruleset",
                              t->ruleset[0] ? json_string(t->ruleset) : json_null(), "frame",
                              t->has_state ? json_integer(t->frame) : json_null(), "t_ms",
                              t->has_state ? json_real(t->t_ms) : json_null(), "figures", t->figures, "connected",
                              t->connected, "last_seen_s",
                              t->seen_ms ? json_real((double)(now > t->seen_ms ? now - t->seen_ms : 0) / 1000.0)
                                         : json_null());
        json_array_append_new(arr, o);
    }
    pthread_mutex_unlock(&h->mu);
    char *txt = arr ? json_dumps(arr, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) : NULL;
    json_decref(arr);
    return txt;
}

char *hall__refused_json(hall__tables *h)
{
    json_t *arr = json_array();
    long long now = tt_unix_ms();
    char reason[400];
    snprintf(reason, sizeof reason, hall__full_reason, HALL_MAX_TABLES);
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; arr && i < h->nrefused; i++) {
        const hall__refusal *r = &h->refused[i];
        json_array_append_new(arr, json_pack("{s:s, s:s, s:o}", "table", r->name, "reason", reason, "last_seen_s",
                                             r->seen_ms ? json_real((double)(now > r->seen_ms ? now - r->seen_ms : 0) /
                                                                    1000.0)
                                                        : json_null()));
    }
    json_t *o = arr ? json_pack("{s:i, s:o, s:I}", "max_tables", HALL_MAX_TABLES, "refused", arr, "more",
                                (json_int_t)h->refused_more)
                    : NULL;
    pthread_mutex_unlock(&h->mu);
    char *txt = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) : NULL;
    json_decref(o);
    return txt;
}

char *hall__table_text(hall__tables *h, const char *name, const char *what)
{
    char *out = NULL;
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < h->ntabs; i++)
        if (!strcmp(h->tabs[i]->name, name)) {
            if (!strcmp(what, "state"))
                hall__state_take(h, h->tabs[i]);
            const char *s = !strcmp(what, "state") ? h->tabs[i]->state : h->tabs[i]->answer;
            out = s ? strdup(s) : NULL;
            break;
        }
    pthread_mutex_unlock(&h->mu);
    return out;
}

char *hall__copy_json(hall__tables *h, const char *name)
{
    json_t *o = NULL;
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < h->ntabs; i++)
        if (!strcmp(h->tabs[i]->name, name) && h->tabs[i]->game[0]) {
            const hall__tab *t = h->tabs[i];
            o = json_pack("{s:s, s:I, s:b}", "game", t->game, "frame", (json_int_t)t->have.frame, "ended",
                          t->have.ended);
            break;
        }
    pthread_mutex_unlock(&h->mu);
    char *txt = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    return txt;
}

static int hall__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

char *hall__stats_json(hall__tables *h)
{
    static double lat[HALL__LAT];
    static pthread_mutex_t stats_mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&stats_mu);
    pthread_mutex_lock(&h->mu);
    hall__states_take(h); /* their delays */
    size_t n = h->nlat < HALL__LAT ? h->nlat : HALL__LAT;
    memcpy(lat, h->lat, n * sizeof *lat);
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b}", "tables", (json_int_t)h->ntabs, "chunks",
                          (json_int_t)h->chunks, "gaps", (json_int_t)h->gaps, "states", (json_int_t)h->states,
                          "refused", (json_int_t)(h->nrefused + (size_t)h->refused_more), "bad_chunks",
                          (json_int_t)h->bad, "dropped", (json_int_t)h->dropped, "subscribed", h->subscribed);
    pthread_mutex_unlock(&h->mu);
    qsort(lat, n, sizeof *lat, hall__cmp_double);
    if (o) {
        json_object_set_new(o, "latency_ms_p50", n ? json_real(lat[n / 2]) : json_null());
        json_object_set_new(o, "latency_ms_p95", n ? json_real(lat[(n * 95) / 100]) : json_null());
    }
    pthread_mutex_unlock(&stats_mu);
    char *txt = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    return txt;
}
