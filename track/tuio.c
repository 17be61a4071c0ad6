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

typedef struct tuio__session {
    char family[VISION_FAMILY_LEN];
    int id;
    int32_t sid;
} tuio__session;

struct track_tuio {
    int fd;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    double w, d;
    tuio__session *s;
    int ns, caps;
    int32_t next_sid;
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

static int32_t tuio__sid(track_tuio *t, const track_figure *f)
{
    for (int i = 0; i < t->ns; i++)
        if (t->s[i].id == f->id && !strcmp(t->s[i].family, f->family))
            return t->s[i].sid;
    if (t->ns == t->caps) {
        int nc = t->caps ? t->caps * 2 : 64;
        tuio__session *s = realloc(t->s, sizeof *s * (size_t)nc);
        if (!s)
            return -1;
        t->s = s;
        t->caps = nc;
    }
    tuio__session *s = &t->s[t->ns++];
    memcpy(s->family, f->family, sizeof s->family);
    s->id = f->id;
    s->sid = t->next_sid++;
    return s->sid;
}

size_t track_tuio_encode(track_tuio *t, int frame_no, const track_figure *figs, int n, uint8_t *buf, size_t cap)
{
    tuio__w w = {buf, 0, cap, 0};
    char tags[1024];
    int nalive = 0;
    tuio__str(&w, "#bundle");
    tuio__i32(&w, 0); /* time tag: immediately */
    tuio__i32(&w, 1);

    size_t at = tuio__elem_begin(&w);
    tuio__str(&w, "/tuio/2Dobj");
    tuio__str(&w, ",ss");
    tuio__str(&w, "source");
    tuio__str(&w, "tabletrack");
    tuio__elem_end(&w, at);

    /* alive: figures currently seen (one message; chunked by OSC tag length). */
    for (int i = 0; i < n; i++)
        nalive += figs[i].state == VISION_TAG_SEEN;
    at = tuio__elem_begin(&w);
    tuio__str(&w, "/tuio/2Dobj");
    int nt = nalive < (int)sizeof tags - 3 ? nalive : (int)sizeof tags - 3;
    tags[0] = ',';
    tags[1] = 's';
    for (int i = 0; i < nt; i++)
        tags[2 + i] = 'i';
    tags[2 + nt] = '\0';
    tuio__str(&w, tags);
    tuio__str(&w, "alive");
    int k = 0;
    for (int i = 0; i < n && k < nt; i++)
        if (figs[i].state == VISION_TAG_SEEN) {
            tuio__i32(&w, tuio__sid(t, &figs[i]));
            k++;
        }
    tuio__elem_end(&w, at);

    for (int i = 0; i < n; i++) {
        const track_figure *f = &figs[i];
        if (f->state != VISION_TAG_SEEN)
            continue;
        double a = f->facing_deg * M_PI / 180.0;
        if (a < 0)
            a += 2 * M_PI;
        at = tuio__elem_begin(&w);
        tuio__str(&w, "/tuio/2Dobj");
        tuio__str(&w, ",siiffffffff");
        tuio__str(&w, "set");
        tuio__i32(&w, tuio__sid(t, f));
        tuio__i32(&w, f->id);
        tuio__f32(&w, (float)(f->x / t->w));
        tuio__f32(&w, (float)(f->y / t->d));
        tuio__f32(&w, (float)a);
        for (int z = 0; z < 5; z++)
            tuio__f32(&w, 0.0f); /* X Y A m r: velocities not estimated */
        tuio__elem_end(&w, at);
    }

    at = tuio__elem_begin(&w);
    tuio__str(&w, "/tuio/2Dobj");
    tuio__str(&w, ",si");
    tuio__str(&w, "fseq");
    tuio__i32(&w, frame_no);
    tuio__elem_end(&w, at);
    return w.bad ? 0 : w.len;
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
    free(t);
}

tt_status track_tuio_send(track_tuio *t, int frame_no, const track_figure *figs, int n, tt_err *err)
{
    size_t len = track_tuio_encode(t, frame_no, figs, n, t->buf, t->cap);
    if (!len)
        return tt_err_set(err, TT_ERR_INTERNAL, "TUIO bundle too large (%d figures)", n);
    /* UDP: a listener that is not there is not an error. */
    (void)sendto(t->fd, t->buf, len, 0, (struct sockaddr *)&t->addr, t->addrlen);
    return TT_OK;
}
