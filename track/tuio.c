/* tuio.c - TUIO 1.1 2Dobj profile: OSC 1.0 bundles encoded by liblo
 * (lo_message, lo_bundle, lo_bundle_serialise), sent on our own UDP socket. */
#include "tuio.h"

#include <lo/lo.h>

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
    lo_message source; /* "source tabletrack": the same every frame; one reference ours */
    int warned_big;
    uint8_t *buf;
    size_t cap;
};

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

#define TUIO__PATH "/tuio/2Dobj"

/* A set message's bundle element: size, path, ",siiffffffff", "set", two
 * int32 and eight float32 - to tell, before any set is made, whether the
 * alive list leaves room for one (test_tuio's 256-figure frame sits on that
 * boundary). */
enum { TUIO__SET_BYTES = 4 + 12 + 16 + 4 + 8 + 32 };

/* A /tuio/2Dobj message starting with the command cmd, holding one
 * reference of the caller's (lo_message_free drops it); NULL when liblo
 * cannot make it (out of memory). */
static lo_message tuio__msg(const char *cmd)
{
    lo_message m = lo_message_new();
    if (!m)
        return NULL;
    lo_message_incref(m);
    if (lo_message_add_string(m, cmd) != 0) {
        lo_message_free(m);
        return NULL;
    }
    return m;
}

/* Add m to b; the bundle takes its own reference.  0 when liblo cannot. */
static int tuio__add(lo_bundle b, lo_message m)
{
    return lo_bundle_add_message(b, TUIO__PATH, m) == 0;
}

/* The bundle element m makes: its size field and the message. */
static size_t tuio__elem_len(lo_message m)
{
    return 4 + lo_message_length(m, TUIO__PATH);
}

/* A session's set message: session id, class id (the tag id), x, y, angle,
 * X, Y, A, m, r.  Returns 1, 0 when out of memory; *finite = 0 when a value
 * is not a finite number as a float (never sent: the bundle is dropped). */
static int tuio__set(const track_figure *f, const tuio__session *s, lo_message *out, int *finite)
{
    const float v[8] = {(float)s->x,  (float)s->y,  (float)s->a,    (float)s->vx,
                        (float)s->vy, (float)s->va, (float)s->macc, (float)s->racc};
    lo_message m = tuio__msg("set");
    int ok = m && lo_message_add_int32(m, s->sid) == 0 && lo_message_add_int32(m, f->id) == 0;
    *finite = 1;
    for (int k = 0; k < 8 && ok; k++) {
        ok = lo_message_add_float(m, v[k]) == 0;
        *finite &= isfinite(v[k]) != 0;
    }
    if (!ok) {
        lo_message_free(m);
        return 0;
    }
    *out = m;
    return 1;
}

/* The frame is split the way the TUIO 1.1 reference server splits it
 * (TuioServer::commitFrame in the TUIO11_CPP library: when the next set
 * message would overflow the packet it ends the bundle with fseq, sends it,
 * and starts a new bundle with source and the full alive list): every
 * datagram is a complete TUIO bundle - source, alive with every alive
 * session, some of the set messages, fseq with the same frame number.
 * The spec (tuio.org/?tuio11, "Message Format") requires each bundle to
 * carry an alive and a fseq message and lets set messages for one frame
 * be spread over bundles; a client that reads them merges the sets.
 * liblo builds the messages and bundles and writes their bytes
 * (lo_bundle_serialise); lo_bundle_length keeps each datagram within
 * TRACK_TUIO_MAX_DATAGRAM. */
tt_status track_tuio_encode(track_tuio *t, int frame_no, double t_ms, const track_figure *figs, int n,
                            track_tuio_emit emit, void *ctx, tt_err *err)
{
    if (!tuio__update(t, t_ms, figs, n))
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    tt_status st = TT_OK;
    lo_bundle b = NULL;
    lo_message set = NULL, alive = tuio__msg("alive"), fseq = tuio__msg("fseq");
    int ok = alive && fseq && lo_message_add_int32(fseq, frame_no) == 0;
    for (int i = 0; i < t->ns && ok; i++)
        ok = lo_message_add_int32(alive, t->s[i].sid) == 0;
    if (!ok) {
        st = tt_err_set(err, TT_ERR_NOMEM, "TUIO: liblo cannot make the messages of frame %d (out of memory)", frame_no);
        goto out;
    }
    /* "#bundle", the time tag, source and alive: the same in every datagram */
    size_t head = 16 + tuio__elem_len(t->source) + tuio__elem_len(alive), limit = TRACK_TUIO_MAX_DATAGRAM;
    size_t fseq_len = tuio__elem_len(fseq);
    if (head + fseq_len > t->cap) {
        st = tt_err_set(err, TT_ERR_INTERNAL, "TUIO: %d figures do not fit a UDP datagram", t->ns);
        goto out;
    }
    if (head + TUIO__SET_BYTES + fseq_len > limit) {
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
        b = lo_bundle_new(LO_TT_IMMEDIATE);
        if (!b || !tuio__add(b, t->source) || !tuio__add(b, alive))
            goto nomem;
        int nset = 0;
        for (; i < n; i++) {
            if (t->fig_sess[i] < 0)
                continue;
            int finite;
            if (!tuio__set(&figs[i], &t->s[t->fig_sess[i]], &set, &finite))
                goto nomem;
            if (lo_bundle_length(b) + tuio__elem_len(set) + fseq_len > limit)
                break; /* set is the first of the next datagram */
            if (!finite) {
                st = tt_err_set(err, TT_ERR_INTERNAL, "TUIO: a value is not a finite number; frame %d not sent",
                                frame_no);
                goto out;
            }
            if (!tuio__add(b, set))
                goto nomem;
            lo_message_free(set); /* the bundle holds it */
            set = NULL;
            nset++;
        }
        lo_message_free(set);
        set = NULL;
        if (nset == 0 && i < n) {
            st = tt_err_set(err, TT_ERR_INTERNAL, "TUIO: %d figures do not fit a UDP datagram", t->ns);
            goto out;
        }
        if (!tuio__add(b, fseq))
            goto nomem;
        size_t len = lo_bundle_length(b);
        if (len > limit || !lo_bundle_serialise(b, t->buf, &len)) {
            st = tt_err_set(err, TT_ERR_INTERNAL, "TUIO: liblo cannot write the bundle of frame %d (%zu bytes)",
                            frame_no, len);
            goto out;
        }
        emit(ctx, t->buf, len);
        lo_bundle_free_recursive(b); /* drops its references: the sets go, source, alive and fseq stay */
        b = NULL;
        sent_any = 1;
        while (i < n && t->fig_sess[i] < 0)
            i++;
    }
    goto out;
nomem:
    st = tt_err_set(err, TT_ERR_NOMEM, "TUIO: liblo cannot build the bundles of frame %d (out of memory)", frame_no);
out:
    lo_message_free(set);
    lo_bundle_free_recursive(b);
    lo_message_free(alive);
    lo_message_free(fseq);
    return st;
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
    t->source = tuio__msg("source");
    if (t->source && lo_message_add_string(t->source, "tabletrack") != 0) {
        lo_message_free(t->source);
        t->source = NULL;
    }
    if (!t->source) {
        track_tuio_destroy(t);
        return tt_err_set(err, TT_ERR_NOMEM, "TUIO: liblo cannot make the source message (out of memory)");
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
    lo_message_free(t->source);
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
