/* tuio.c - TUIO 1.1 2Dobj profile, hand-encoded OSC 1.0. */
#include "tuio.h"

#include <arpa/inet.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* One figure's TUIO session: from the frame it is first alive (seen or
 * hidden) until the frame it is lost.  A figure that comes back after being
 * lost gets a new session id; ids are never reused. */
typedef struct tuio__session {
    char family[VISION_FAMILY_LEN];
    int id;
    int32_t sid;
    int alive;         /* alive in the current frame */
    int has_prev;      /* x, y, a, t_ms hold the previous update */
    double x, y, a;    /* normalised position (clamped to 0..1), angle in radians */
    double t_ms;
    double vx, vy, va; /* per second; va in turns per second */
    double speed;      /* hypot(vx, vy) */
    double macc, racc; /* motion and rotation acceleration, per second squared */
} tuio__session;

struct track_tuio {
    int fd;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    double w, d;
    tuio__session *s;
    int ns, caps;
    int32_t next_sid;
    int *fig_sess; /* per figure of the frame: its session index, or -1 */
    int fig_cap;
    char *tags; /* the alive message's type tags */
    size_t tags_cap;
    int warned_big;
    uint8_t *buf;
    size_t cap;
};

typedef struct tuio__w {
    uint8_t *p;
    size_t len, cap;
    int bad;
} tuio__w;

static void tuio__bytes(tuio__w *w, const void *src, size_t n)
{
    if (w->len + n > w->cap) {
        w->bad = 1;
        return;
    }
    memcpy(w->p + w->len, src, n);
    w->len += n;
}

static void tuio__i32(tuio__w *w, int32_t v)
{
    uint32_t be = htonl((uint32_t)v);
    tuio__bytes(w, &be, 4);
}

static void tuio__f32(tuio__w *w, float f)
{
    if (!isfinite(f))
        w->bad = 1; /* never send NaN or Inf: the bundle is dropped */
    uint32_t u;
    memcpy(&u, &f, 4);
    u = htonl(u);
    tuio__bytes(w, &u, 4);
}

/* OSC string: NUL-terminated, padded to a multiple of 4. */
static void tuio__str(tuio__w *w, const char *s)
{
    size_t n = strlen(s) + 1, pad = (4 - n % 4) % 4;
    static const uint8_t zero[4] = {0};
    tuio__bytes(w, s, n);
    tuio__bytes(w, zero, pad);
}

/* Start a bundle element: reserve its size; returns the offset. */
static size_t tuio__elem_begin(tuio__w *w)
{
    size_t at = w->len;
    tuio__i32(w, 0);
    return at;
}

static void tuio__elem_end(tuio__w *w, size_t at)
{
    if (w->bad)
        return;
    uint32_t be = htonl((uint32_t)(w->len - at - 4));
    memcpy(w->p + at, &be, 4);
}

static double tuio__clamp01(double v)
{
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* Finds the figure's live session, or starts a new one; -1 when out of
 * memory. */
static int tuio__session_of(track_tuio *t, const track_figure *f)
{
    for (int i = 0; i < t->ns; i++)
        if (t->s[i].id == f->id && !strcmp(t->s[i].family, f->family))
            return i;
    if (t->ns == t->caps) {
        int nc = t->caps ? t->caps * 2 : 64;
        tuio__session *s = realloc(t->s, sizeof *s * (size_t)nc);
        if (!s)
            return -1;
        t->s = s;
        t->caps = nc;
    }
    tuio__session *s = &t->s[t->ns];
    memset(s, 0, sizeof *s);
    memcpy(s->family, f->family, sizeof s->family);
    s->id = f->id;
    s->sid = t->next_sid++;
    return t->ns++;
}

/* Velocities as the TUIO 1.1 reference library computes them
 * (TuioContainer::update, TuioObject::update): X and Y are the change of
 * the normalised position per second, A the change of angle in turns
 * (da / 2pi, wrapped to -0.5..0.5) per second, m the change of the motion
 * speed hypot(X, Y) per second and r the change of A per second.  A hidden
 * figure stands still (all 0). */
static void tuio__move(tuio__session *s, const track_figure *f, double x, double y, double a, double t_ms)
{
    double dt = (t_ms - s->t_ms) / 1000.0;
    if (f->state != VISION_TAG_SEEN || !s->has_prev || !isfinite(dt) || dt <= 0) {
        s->vx = s->vy = s->va = s->speed = s->macc = s->racc = 0;
    } else {
        double da = (a - s->a) / (2 * M_PI);
        da -= floor(da + 0.5);
        double vx = (x - s->x) / dt, vy = (y - s->y) / dt, va = da / dt;
        double speed = hypot(vx, vy);
        s->macc = (speed - s->speed) / dt;
        s->racc = (va - s->va) / dt;
        s->vx = vx;
        s->vy = vy;
        s->va = va;
        s->speed = speed;
    }
    s->x = x;
    s->y = y;
    s->a = a;
    if (isfinite(t_ms))
        s->t_ms = t_ms;
    s->has_prev = 1;
}

/* Marks this frame's alive figures (seen or hidden, not lost), ends the
 * sessions of the others, and updates positions and velocities.  A tag id
 * listed twice keeps its first figure only. */
static int tuio__update(track_tuio *t, double t_ms, const track_figure *figs, int n)
{
    if (n > t->fig_cap) {
        int *fs = realloc(t->fig_sess, sizeof *fs * (size_t)n);
        if (!fs)
            return 0;
        t->fig_sess = fs;
        t->fig_cap = n;
    }
    for (int i = 0; i < t->ns; i++)
        t->s[i].alive = 0;
    for (int i = 0; i < n; i++) {
        t->fig_sess[i] = -1;
        if (figs[i].state == VISION_TAG_LOST)
            continue;
        int k = tuio__session_of(t, &figs[i]);
        if (k < 0)
            return 0;
        if (t->s[k].alive)
            continue; /* the same tag twice: one figure */
        t->s[k].alive = 1;
        t->fig_sess[i] = k;
    }
    /* drop the sessions of lost figures; keep indices of the rest */
    int m = 0;
    for (int i = 0; i < t->ns; i++) {
        if (!t->s[i].alive)
            continue;
        if (m != i) {
            t->s[m] = t->s[i];
            for (int j = 0; j < n; j++)
                if (t->fig_sess[j] == i)
                    t->fig_sess[j] = m;
        }
        m++;
    }
    t->ns = m;
    for (int i = 0; i < n; i++) {
        if (t->fig_sess[i] < 0)
            continue;
        const track_figure *f = &figs[i];
        double a = fmod(f->facing_deg * M_PI / 180.0, 2 * M_PI);
        if (a < 0)
            a += 2 * M_PI;
        tuio__move(&t->s[t->fig_sess[i]], f, tuio__clamp01(f->x / t->w), tuio__clamp01(f->y / t->d), a, t_ms);
    }
    return 1;
}

static void tuio__source(tuio__w *w)
{
    size_t at = tuio__elem_begin(w);
    tuio__str(w, "/tuio/2Dobj");
    tuio__str(w, ",ss");
    tuio__str(w, "source");
    tuio__str(w, "tabletrack");
    tuio__elem_end(w, at);
}

static void tuio__alive(track_tuio *t, tuio__w *w)
{
    size_t at = tuio__elem_begin(w);
    tuio__str(w, "/tuio/2Dobj");
    t->tags[0] = ',';
    t->tags[1] = 's';
    for (int i = 0; i < t->ns; i++)
        t->tags[2 + i] = 'i';
    t->tags[2 + t->ns] = '\0';
    tuio__str(w, t->tags);
    tuio__str(w, "alive");
    for (int i = 0; i < t->ns; i++)
        tuio__i32(w, t->s[i].sid);
    tuio__elem_end(w, at);
}

static void tuio__set(tuio__w *w, const track_figure *f, const tuio__session *s)
{
    size_t at = tuio__elem_begin(w);
    tuio__str(w, "/tuio/2Dobj");
    tuio__str(w, ",siiffffffff");
    tuio__str(w, "set");
    tuio__i32(w, s->sid);
    tuio__i32(w, f->id);
    tuio__f32(w, (float)s->x);
    tuio__f32(w, (float)s->y);
    tuio__f32(w, (float)s->a);
    tuio__f32(w, (float)s->vx);
    tuio__f32(w, (float)s->vy);
    tuio__f32(w, (float)s->va);
    tuio__f32(w, (float)s->macc);
    tuio__f32(w, (float)s->racc);
    tuio__elem_end(w, at);
}

static void tuio__fseq(tuio__w *w, int frame_no)
{
    size_t at = tuio__elem_begin(w);
    tuio__str(w, "/tuio/2Dobj");
    tuio__str(w, ",si");
    tuio__str(w, "fseq");
    tuio__i32(w, frame_no);
    tuio__elem_end(w, at);
}

enum { TUIO__SET_BYTES = 4 + 12 + 16 + 4 + 8 + 32, TUIO__FSEQ_BYTES = 4 + 12 + 4 + 8 + 4 };

/* The frame is split the way the TUIO 1.1 reference server splits it
 * (TuioServer::commitFrame in the TUIO11_CPP library: when the next set
 * message would overflow the packet it ends the bundle with fseq, sends it,
 * and starts a new bundle with source and the full alive list): every
 * datagram is a complete TUIO bundle - source, alive with every alive
 * session, some of the set messages, fseq with the same frame number.
 * The spec (tuio.org/?tuio11, "Message Format") requires each bundle to
 * carry an alive and a fseq message and lets set messages for one frame
 * be spread over bundles; a client that reads them merges the sets. */
tt_status track_tuio_encode(track_tuio *t, int frame_no, double t_ms, const track_figure *figs, int n,
                            track_tuio_emit emit, void *ctx, tt_err *err)
{
    if (!tuio__update(t, t_ms, figs, n))
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if ((size_t)t->ns + 3 > t->tags_cap) {
        size_t nc = (size_t)t->ns + 64;
        char *tg = realloc(t->tags, nc);
        if (!tg)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        t->tags = tg;
        t->tags_cap = nc;
    }
    tuio__w w = {t->buf, 0, t->cap, 0};
    tuio__str(&w, "#bundle");
    tuio__i32(&w, 0); /* time tag: immediately */
    tuio__i32(&w, 1);
    tuio__source(&w);
    tuio__alive(t, &w);
    if (w.bad)
        return tt_err_set(err, TT_ERR_INTERNAL, "TUIO: %d figures do not fit a UDP datagram", t->ns);
    size_t head = w.len, limit = TRACK_TUIO_MAX_DATAGRAM;
    if (head + TUIO__SET_BYTES + TUIO__FSEQ_BYTES > limit) {
        limit = t->cap;
        if (!t->warned_big)
            fprintf(stderr,
                    "tabletrack: TUIO: the alive list of %d figures does not fit a %d-byte datagram; sending larger "
                    "datagrams (some clients drop them)\n",
                    t->ns, TRACK_TUIO_MAX_DATAGRAM);
        t->warned_big = 1;
    }
    int i = 0, sent_any = 0;
    while (!sent_any || i < n) {
        w.len = head;
        size_t empty = w.len;
        for (; i < n; i++) {
            if (t->fig_sess[i] < 0)
                continue;
            if (w.len + TUIO__SET_BYTES + TUIO__FSEQ_BYTES > limit)
                break;
            tuio__set(&w, &figs[i], &t->s[t->fig_sess[i]]);
        }
        if (w.len == empty && i < n)
            return tt_err_set(err, TT_ERR_INTERNAL, "TUIO: %d figures do not fit a UDP datagram", t->ns);
        tuio__fseq(&w, frame_no);
        if (w.bad)
            return tt_err_set(err, TT_ERR_INTERNAL, "TUIO: a value is not a finite number; frame %d not sent", frame_no);
        emit(ctx, t->buf, w.len);
        sent_any = 1;
        while (i < n && t->fig_sess[i] < 0)
            i++;
    }
    return TT_OK;
}

tt_status track_tuio_create(const char *host_port, double width_in, double depth_in, track_tuio **out, tt_err *err)
{
    char host[256];
    const char *colon = strrchr(host_port, ':');
    struct addrinfo hints = {0}, *res = NULL;
    *out = NULL;
    if (!colon || colon == host_port || !colon[1] || (size_t)(colon - host_port) >= sizeof host)
        return tt_err_set(err, TT_ERR_ARG, "--tuio wants HOST:PORT, e.g. 127.0.0.1:3333 (got '%s')", host_port);
    memcpy(host, host_port, (size_t)(colon - host_port));
    host[colon - host_port] = '\0';
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    int rc = getaddrinfo(host, colon + 1, &hints, &res);
    if (rc != 0)
        return tt_err_set(err, TT_ERR_ARG, "--tuio %s: %s", host_port, gai_strerror(rc));
    track_tuio *t = calloc(1, sizeof *t);
    if (!t) {
        freeaddrinfo(res);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    t->fd = socket(res->ai_family, SOCK_DGRAM, 0);
    memcpy(&t->addr, res->ai_addr, res->ai_addrlen);
    t->addrlen = res->ai_addrlen;
    freeaddrinfo(res);
    t->w = width_in;
    t->d = depth_in;
    t->next_sid = 1;
    t->cap = 65000;
    t->buf = malloc(t->cap);
    if (t->fd < 0 || !t->buf) {
        track_tuio_destroy(t);
        return tt_err_set(err, TT_ERR_IO, "cannot open a UDP socket for TUIO");
    }
    *out = t;
    return TT_OK;
}

void track_tuio_destroy(track_tuio *t)
{
    if (!t)
        return;
    if (t->fd >= 0)
        close(t->fd);
    free(t->buf);
    free(t->s);
    free(t->fig_sess);
    free(t->tags);
    free(t);
}

static void tuio__sendto(void *ctx, const uint8_t *dgram, size_t len)
{
    track_tuio *t = ctx;
    /* UDP: a listener that is not there is not an error. */
    (void)sendto(t->fd, dgram, len, 0, (struct sockaddr *)&t->addr, t->addrlen);
}

tt_status track_tuio_send(track_tuio *t, int frame_no, double t_ms, const track_figure *figs, int n, tt_err *err)
{
    return track_tuio_encode(t, frame_no, t_ms, figs, n, tuio__sendto, t, err);
}
