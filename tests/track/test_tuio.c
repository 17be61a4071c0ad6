/* test_tuio.c - TUIO as a real client reads it: tabletrack's TUIO sender
 * streams 200 figures over UDP on the loopback, and every datagram is
 * decoded by liblo (Debian's OSC library), not by the project's own reader.
 * Checks: every datagram <= 1472 bytes and a complete bundle (source, alive,
 * fseq); alive lists every figure that is not lost, hidden ones included;
 * session ids are kept while alive and never reused; velocities in TUIO 1.1
 * units; positions off the table clamped to 0..1.  And one frame of many
 * figures through track_tuio_encode, each datagram handed to liblo's server:
 * split into full datagrams of at most 1472 bytes that together carry every
 * figure once; a value that is not finite is never sent. */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <lo/lo.h>

#include "tuio.h"

#define NFIG 200
#define W_IN 72.0
#define D_IN 48.0
#define FPS 30.0
#define MAX_SID 100000
#define MAX_ALIVE 512 /* the decoder's room for an alive list */

typedef struct bundle_seen {
    int source, alive, fseq, nalive, nset;
    int frame;
} bundle_seen;

typedef struct frame_seen {
    bundle_seen b;   /* the bundle being decoded */
    int bundles;     /* complete bundles this frame */
    int bad_bundles; /* bundles missing source, alive or fseq */
    int alive_ids[MAX_ALIVE];
    int nalive; /* alive list of the last bundle */
    int alive_mismatch;
    int set_count[MAX_SID]; /* set messages per session id this frame */
    float sx[MAX_SID], sy[MAX_SID], sa[MAX_SID], vx[MAX_SID], vy[MAX_SID], va[MAX_SID];
    int sclass[MAX_SID];
    int nonfinite;
    int fseq_val;
} frame_seen;

static frame_seen FS;

static int on_bundle_start(lo_timetag tt, void *u)
{
    (void)tt;
    (void)u;
    memset(&FS.b, 0, sizeof FS.b);
    return 0;
}

static int on_bundle_end(void *u)
{
    (void)u;
    if (!FS.b.source || !FS.b.alive || !FS.b.fseq)
        FS.bad_bundles++;
    FS.bundles++;
    return 0;
}

/* liblo's lo_arg pointers are 4-byte aligned (OSC), the union wants 8:
 * read the values by copying. */
static int32_t arg_i(const lo_arg *a)
{
    int32_t v;
    memcpy(&v, (const void *)a, sizeof v);
    return v;
}

static float arg_f(const lo_arg *a)
{
    float v;
    memcpy(&v, (const void *)a, sizeof v);
    return v;
}

static const char *arg_s(const lo_arg *a)
{
    return (const char *)(const void *)a;
}

static int on_obj(const char *path, const char *types, lo_arg **argv, int argc, lo_message msg, void *u)
{
    (void)path;
    (void)msg;
    (void)u;
    if (argc < 1 || types[0] != 's')
        return 0;
    const char *cmd = arg_s(argv[0]);
    if (!strcmp(cmd, "source")) {
        if (argc == 2 && types[1] == 's' && !strcmp(arg_s(argv[1]), "tabletrack"))
            FS.b.source = 1;
    } else if (!strcmp(cmd, "alive")) {
        int ids[MAX_ALIVE], n = 0;
        for (int i = 1; i < argc && n < MAX_ALIVE; i++)
            if (types[i] == 'i')
                ids[n++] = arg_i(argv[i]);
        if (FS.bundles > 0 && (n != FS.nalive || memcmp(ids, FS.alive_ids, sizeof *ids * (size_t)n)))
            FS.alive_mismatch++;
        memcpy(FS.alive_ids, ids, sizeof *ids * (size_t)n);
        FS.nalive = n;
        FS.b.alive = 1;
    } else if (!strcmp(cmd, "set")) {
        if (argc != 11 || strcmp(types, "siiffffffff"))
            return 0;
        int sid = arg_i(argv[1]);
        if (sid <= 0 || sid >= MAX_SID)
            return 0;
        FS.set_count[sid]++;
        FS.sclass[sid] = arg_i(argv[2]);
        FS.sx[sid] = arg_f(argv[3]);
        FS.sy[sid] = arg_f(argv[4]);
        FS.sa[sid] = arg_f(argv[5]);
        FS.vx[sid] = arg_f(argv[6]);
        FS.vy[sid] = arg_f(argv[7]);
        FS.va[sid] = arg_f(argv[8]);
        for (int i = 3; i < 11; i++)
            if (!isfinite(arg_f(argv[i])))
                FS.nonfinite++;
        FS.b.nset++;
    } else if (!strcmp(cmd, "fseq")) {
        if (argc == 2 && types[1] == 'i') {
            FS.b.fseq = 1;
            FS.fseq_val = arg_i(argv[1]);
        }
    }
    return 0;
}

static void lo_err(int num, const char *m, const char *where)
{
    fail_msg("liblo error %d: %s (%s)", num, m, where ? where : "");
}

/* Where figure i is on frame f (inches), its facing, and its state:
 * 0..9 hidden on frames 5..12; 10..14 lost on frames 10..14, back after;
 * 15 and 16 off the table's left and far edges; 17 slides 0.5" a frame
 * along x and turns 6 degrees a frame. */
static void figure_at(int i, int f, track_figure *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->family, sizeof out->family, "tag36h11");
    out->id = 100 + i;
    out->x = 2 + (i % 20) * 3.4;
    out->y = 2 + (i / 20) * 4.4;
    out->facing_deg = (i * 7) % 360;
    out->state = VISION_TAG_SEEN;
    if (i < 10 && f >= 5 && f <= 12)
        out->state = VISION_TAG_OCCLUDED;
    if (i >= 10 && i < 15 && f >= 10 && f <= 14)
        out->state = VISION_TAG_LOST;
    if (i == 15)
        out->x = -3.0;
    if (i == 16)
        out->y = D_IN + 2.5;
    if (i == 17) {
        out->x = 5 + 0.5 * f;
        out->facing_deg = fmod(350 + 6.0 * f, 360.0);
    }
}

static void test_tuio_liblo_200(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    int rcvbuf = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    socklen_t al = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
    struct timeval tv = {0, 200000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char hp[64];
    snprintf(hp, sizeof hp, "127.0.0.1:%d", ntohs(a.sin_port));

    lo_server lo = lo_server_new_with_proto(NULL, LO_UDP, lo_err);
    assert_non_null(lo);
    assert_non_null(lo_server_add_method(lo, "/tuio/2Dobj", NULL, on_obj, NULL));
    assert_int_equal(lo_server_add_bundle_handlers(lo, on_bundle_start, on_bundle_end, NULL), 0);

    track_tuio *tu = NULL;
    tt_err err = {0};
    assert_int_equal(track_tuio_create(hp, W_IN, D_IN, &tu, &err), TT_OK);

    static int sid_of[NFIG];       /* current session id per figure (0: none) */
    static int owner[MAX_SID + 1]; /* figure+1 that a session id was given to */
    memset(sid_of, 0, sizeof sid_of);
    memset(owner, 0, sizeof owner);
    int max_dgram = 0, datagrams = 0, new_after_loss = 0;
    track_figure figs[NFIG];
    uint8_t buf[65536];
    for (int f = 0; f < 25; f++) {
        int n = 0;
        for (int i = 0; i < NFIG; i++) {
            figure_at(i, f, &figs[n]);
            if (figs[n].state != VISION_TAG_LOST || f == 10) /* lost figures leave the list after a frame */
                n++;
        }
        assert_int_equal(track_tuio_send(tu, f, f * 1000.0 / FPS, figs, n, &err), TT_OK);
        memset(&FS, 0, sizeof FS);
        FS.fseq_val = -1;
        for (;;) {
            ssize_t len = recv(fd, buf, sizeof buf, 0);
            if (len < 0)
                break;
            datagrams++;
            if (len > max_dgram)
                max_dgram = (int)len;
            assert_true(len <= 1472);
            int fseq_before = FS.bundles;
            assert_true(lo_server_dispatch_data(lo, buf, (size_t)len) >= 0);
            assert_int_equal(FS.bundles, fseq_before + 1); /* each datagram is one bundle */
            assert_int_equal(FS.fseq_val, f);
            /* next frame's datagrams are not sent yet: stop when all sets arrived */
            int expected_sets = 0, got = 0;
            for (int i = 0; i < NFIG; i++) {
                track_figure g;
                figure_at(i, f, &g);
                expected_sets += g.state != VISION_TAG_LOST;
            }
            for (int s = 1; s < MAX_SID; s++)
                got += FS.set_count[s];
            if (got >= expected_sets)
                break;
        }
        assert_int_equal(FS.bad_bundles, 0);
        assert_int_equal(FS.alive_mismatch, 0);
        assert_int_equal(FS.nonfinite, 0);
        assert_true(FS.bundles >= 2);

        /* alive: every figure not lost, hidden ones included, each once */
        int expect_alive = 0;
        for (int i = 0; i < NFIG; i++) {
            track_figure g;
            figure_at(i, f, &g);
            if (g.state == VISION_TAG_LOST) {
                sid_of[i] = 0;
                continue;
            }
            expect_alive++;
            int sid = 0;
            for (int k = 0; k < FS.nalive; k++)
                if (FS.sclass[FS.alive_ids[k]] == g.id && FS.set_count[FS.alive_ids[k]] == 1)
                    sid = FS.alive_ids[k];
            if (!sid)
                fail_msg("frame %d: figure %d (%s) not alive with one set message", f, g.id, track_state_name(g.state));
            if (sid_of[i] && sid_of[i] != sid)
                fail_msg("frame %d: figure %d changed session id %d -> %d while alive", f, g.id, sid_of[i], sid);
            if (!sid_of[i]) {
                if (owner[sid] && owner[sid] != i + 1)
                    fail_msg("frame %d: session id %d reused", f, sid);
                if (owner[sid] == i + 1 && f > 0)
                    fail_msg("frame %d: figure %d came back with its old session id %d", f, g.id, sid);
                if (f > 0)
                    new_after_loss++;
                owner[sid] = i + 1;
            }
            sid_of[i] = sid;
            /* positions clamped to the table */
            double ex = fmin(fmax(g.x / W_IN, 0), 1), ey = fmin(fmax(g.y / D_IN, 0), 1);
            assert_true(fabs(FS.sx[sid] - ex) < 1e-5);
            assert_true(fabs(FS.sy[sid] - ey) < 1e-5);
            assert_true(FS.sx[sid] >= 0 && FS.sx[sid] <= 1 && FS.sy[sid] >= 0 && FS.sy[sid] <= 1);
            if (g.state == VISION_TAG_OCCLUDED)
                assert_true(FS.vx[sid] == 0 && FS.vy[sid] == 0 && FS.va[sid] == 0);
            if (i == 17 && f > 0) {
                /* 0.5" a frame at 30 fps over a 72" table: 15/72 widths a second */
                assert_true(fabs(FS.vx[sid] - 0.5 * FPS / W_IN) < 1e-3);
                assert_true(fabs(FS.vy[sid]) < 1e-6);
                /* 6 degrees a frame at 30 fps: half a turn a second, also across 0 */
                assert_true(fabs(FS.va[sid] - 0.5) < 1e-3);
            }
        }
        assert_int_equal(FS.nalive, expect_alive);
    }
    /* figures 10..14 came back after being lost: 5 new sessions */
    assert_int_equal(new_after_loss, 5);
    assert_true(max_dgram <= 1472);
    printf("tuio: %d datagrams for 25 frames of %d figures, largest %d bytes\n", datagrams, NFIG, max_dgram);
    track_tuio_destroy(tu);
    lo_server_free(lo);
    close(fd);
}

/* One frame's datagrams from track_tuio_encode, each decoded by liblo as it
 * comes (the bytes are valid only during the call). */
typedef struct encoded {
    lo_server lo;
    int datagrams, max_len, dispatch_failed;
    int lens[1024];
} encoded;

static void on_datagram(void *ctx, const uint8_t *dgram, size_t len)
{
    encoded *e = ctx;
    if (e->datagrams < 1024)
        e->lens[e->datagrams] = (int)len;
    e->datagrams++;
    if ((int)len > e->max_len)
        e->max_len = (int)len;
    int bundles = FS.bundles;
    if (lo_server_dispatch_data(e->lo, (void *)dgram, len) < 0 || FS.bundles != bundles + 1)
        e->dispatch_failed++;
}

/* liblo's server side, reading /tuio/2Dobj bundles into FS. */
static lo_server tuio_decoder(void)
{
    lo_server lo = lo_server_new_with_proto(NULL, LO_UDP, lo_err);
    assert_non_null(lo);
    assert_non_null(lo_server_add_method(lo, "/tuio/2Dobj", NULL, on_obj, NULL));
    assert_int_equal(lo_server_add_bundle_handlers(lo, on_bundle_start, on_bundle_end, NULL), 0);
    return lo;
}

/* A set message's bundle element: size, "/tuio/2Dobj", ",siiffffffff",
 * "set", two int32 and eight float32. */
#define SET_ELEM_BYTES (4 + 12 + 16 + 4 + 8 + 32)

/* Frame 0 of n figures (figure_at's layout; past 200 the rows go on, off the
 * far edge: clamped) encoded and decoded; checks every figure arrives once in
 * complete bundles.  Returns the datagram count. */
static int encode_frame(int n, encoded *e)
{
    static track_figure figs[MAX_ALIVE];
    assert_true(n <= MAX_ALIVE);
    for (int i = 0; i < n; i++)
        figure_at(i, 0, &figs[i]);
    track_tuio *tu = NULL;
    tt_err err = {0};
    assert_int_equal(track_tuio_create("127.0.0.1:9", W_IN, D_IN, &tu, &err), TT_OK);
    memset(&FS, 0, sizeof FS);
    FS.fseq_val = -1;
    memset(e->lens, 0, sizeof e->lens);
    e->datagrams = e->max_len = e->dispatch_failed = 0;
    assert_int_equal(track_tuio_encode(tu, 7, 0, figs, n, on_datagram, e, &err), TT_OK);
    track_tuio_destroy(tu);
    assert_int_equal(e->dispatch_failed, 0); /* each datagram is one bundle liblo reads */
    assert_int_equal(FS.bundles, e->datagrams);
    assert_int_equal(FS.bad_bundles, 0);     /* each with source, alive and fseq */
    assert_int_equal(FS.alive_mismatch, 0);  /* the same full alive list in each */
    assert_int_equal(FS.nalive, n);
    assert_int_equal(FS.fseq_val, 7);
    assert_int_equal(FS.nonfinite, 0);
    /* every figure once: its own session, one set message, its tag id */
    static int seen_class[MAX_ALIVE];
    memset(seen_class, 0, sizeof seen_class);
    for (int k = 0; k < FS.nalive; k++) {
        int sid = FS.alive_ids[k];
        assert_true(sid > 0 && sid < MAX_SID);
        assert_int_equal(FS.set_count[sid], 1);
        int cls = FS.sclass[sid] - 100;
        assert_true(cls >= 0 && cls < n);
        seen_class[cls]++;
    }
    for (int i = 0; i < n; i++)
        assert_int_equal(seen_class[i], 1);
    return e->datagrams;
}

static void test_tuio_split_liblo(void **state)
{
    (void)state;
    encoded e = {0};
    e.lo = tuio_decoder();
    /* 200 figures; 256, the most whose alive list leaves room for one set */
    const int counts[] = {1, 20, 200, 256};
    for (int c = 0; c < 4; c++) {
        int n = counts[c], d = encode_frame(n, &e);
        assert_true(e.max_len <= 1472);
        /* split as late as possible: every datagram but the last is full */
        for (int k = 0; k + 1 < d; k++)
            if (e.lens[k] + SET_ELEM_BYTES <= 1472)
                fail_msg("%d figures: datagram %d of %d has %d bytes, room for another set", n, k, d, e.lens[k]);
        printf("tuio: a frame of %d figures in %d datagrams, largest %d bytes\n", n, d, e.max_len);
        if (n == 256)
            assert_int_equal(d, 256); /* one set each */
    }
    /* 300 figures: the alive list alone leaves no room in 1472 bytes; the
     * frame goes out in larger datagrams (with a warning), still complete */
    int d = encode_frame(300, &e);
    assert_int_equal(d, 1);
    assert_true(e.max_len > 1472);
    lo_server_free(e.lo);
}

/* A position that is not a finite number: the bundle holding it is not
 * sent (those before it are), and the caller hears why. */
static void test_tuio_not_finite(void **state)
{
    (void)state;
    track_figure figs[40];
    for (int i = 0; i < 40; i++)
        figure_at(i, 0, &figs[i]);
    figs[30].x = NAN;
    track_tuio *tu = NULL;
    tt_err err = {0};
    assert_int_equal(track_tuio_create("127.0.0.1:9", W_IN, D_IN, &tu, &err), TT_OK);
    encoded e = {0};
    e.lo = tuio_decoder();
    memset(&FS, 0, sizeof FS);
    assert_int_not_equal(track_tuio_encode(tu, 1, 0, figs, 40, on_datagram, &e, &err), TT_OK);
    assert_non_null(strstr(err.msg, "not a finite number"));
    /* 40 figures: 15 sets a datagram; figure 30 is in the third */
    assert_int_equal(e.datagrams, 2);
    assert_int_equal(e.dispatch_failed, 0);
    assert_int_equal(FS.bad_bundles, 0);
    assert_int_equal(FS.nonfinite, 0);
    int sets = 0;
    for (int s = 1; s < MAX_SID; s++)
        sets += FS.set_count[s];
    assert_int_equal(sets, 30);
    track_tuio_destroy(tu);
    lo_server_free(e.lo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tuio_liblo_200),
        cmocka_unit_test(test_tuio_split_liblo),
        cmocka_unit_test(test_tuio_not_finite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
