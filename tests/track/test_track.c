/* test_track.c - 'tabletrack track' on rendered sequences: identity,
 * occlusion, events, still-table jitter, faults (corrupt frames, sources
 * that end, SIGINT, frame size changes) and TUIO output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cvwrap.h"
#include "overlay.h"
#include "cvwrap_video.h"
#include "events_jsonl.h"
#include "run.h"
#include "seq.h"

static char dir[256];
static seq S;

static int setup_all(void **state)
{
    (void)state;
    seq_options o;
    tt_err err = {0};
    char p[600];
    seq_options_small(&o);
    snprintf(dir, sizeof dir, "/tmp/tt_track_XXXXXX");
    if (!mkdtemp(dir) || seq_init(&o, &S, &err) != TT_OK)
        return -1;
    snprintf(p, sizeof p, "%s/frames", dir);
    if (mkdir(p, 0755) != 0 || seq_write_rig(&S, dir, &err) != TT_OK)
        return -1;
    for (int f = 0; f < o.frames; f++) {
        tt_image im = {0};
        if (seq_render(&S, f, &im, &err) != TT_OK)
            return -1;
        snprintf(p, sizeof p, "%s/frames/frame_%04d.png", dir, f);
        if (cvw_image_write(p, &im, &err) != TT_OK)
            return -1;
        tt_image_free(&im);
    }
    return 0;
}

static int teardown_all(void **state)
{
    (void)state;
    char cmd[600];
    seq_free(&S);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *P(const char *fmt, const char *a)
{
    static char buf[8][700];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], fmt, dir, a);
    return buf[k];
}

/* Run track on the rig and frames of folder d (frames: a glob under d),
 * with --scenario when given; its --events, read back (d/ev_name). */
static json_t *track_events(const char *d, const char *frames, const char *ev_name, const char *scenario)
{
    char rig[800], src[800], ev[800];
    snprintf(rig, sizeof rig, "%s/rig.json", d);
    snprintf(src, sizeof src, "%s/%s", d, frames);
    snprintf(ev, sizeof ev, "%s/%s", d, ev_name);
    char *argv[] = {TT_BIN, "track", "--rig", rig, "--source", src, "--events", ev, NULL, NULL, NULL};
    if (scenario) {
        argv[8] = "--scenario";
        argv[9] = (char *)scenario;
    }
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("track failed: %s", r.err);
    run_free(&r);
    return read_jsonl(ev);
}

/* Issue 22: a 1080p webcam over a 72x48 table, 1.1" tags (size_in 0.88:
 * 1.7 to 2.1 px per cell, under the half-size search's limit).  track
 * chooses by itself to read the table at full resolution once the pose is
 * known: from the third frame on every visible figure is seen where it is.
 * (The figures stand still here: the first 8 frames of the sequence.) */
static void test_1080p_small_tags(void **state)
{
    (void)state;
    seq_options o;
    seq s;
    tt_err err = {0};
    char d[300], p[400];
    seq_options_1080p(&o);
    o.anchor_hand = 0;
    snprintf(d, sizeof d, "%s/1080p", dir);
    assert_int_equal(mkdir(d, 0755), 0);
    assert_int_equal(seq_init(&o, &s, &err), TT_OK);
    assert_int_equal(seq_write_rig(&s, d, &err), TT_OK);
    const int nf = 6;
    for (int f = 0; f < nf; f++) {
        tt_image im = {0};
        assert_int_equal(seq_render(&s, f, &im, &err), TT_OK);
        snprintf(p, sizeof p, "%s/frame_%04d.png", d, f);
        assert_int_equal(cvw_image_write(p, &im, &err), TT_OK);
        tt_image_free(&im);
    }
    json_t *lines = track_events(d, "frame_*.png", "ev.jsonl", NULL);
    rnd_tag *tags = malloc(sizeof *tags * (size_t)s.ntags);
    rnd_occluder occ[4];
    int nocc, first_seen = 0, frames = 0;
    for (size_t i = 0; i < json_array_size(lines); i++) {
        json_t *l = json_array_get(lines, i);
        if (json_object_get(l, "event"))
            continue;
        int f = (int)json_integer_value(json_object_get(l, "frame")), visible = 0, ok = 0;
        int nt = seq_frame(&s, f, tags, occ, &nocc);
        rnd_scene sc = s.scene;
        sc.tags = tags;
        sc.ntags = nt;
        sc.occluders = occ;
        sc.noccluders = nocc;
        for (int k = s.nanchors; k < nt; k++) {
            if (!rnd_tag_unoccluded(&sc, &s.cam, &tags[k]))
                continue;
            visible++;
            json_t *g = figure_in(l, tags[k].id);
            ok += g && !strcmp(json_string_value(json_object_get(g, "state")), "seen") &&
                  hypot(json_number_value(json_object_get(g, "x")) - tags[k].x,
                        json_number_value(json_object_get(g, "y")) - tags[k].y) < 0.05;
        }
        if (f == 0)
            first_seen = ok;
        if (f >= 2) {
            frames++;
            if (ok < visible * 0.995)
                fail_msg("frame %d: %d of %d visible figures seen", f, ok, visible);
        }
        assert_true(visible >= 100);
    }
    print_message("1080p, 0.88\" tags: frame 0 (half-size search) %d figures; from frame 2 on, all\n", first_seen);
    assert_int_equal(frames, nf - 2);
    json_decref(lines);
    free(tags);
    seq_free(&s);
}

static void test_events_and_accuracy(void **state)
{
    (void)state;
    char *argv[] = {TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", P("%s/frames/*.png%s", ""),
                    "--events", P("%s/ev.jsonl%s", ""), "--stats", "--grace", "5", NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("track failed: %s", r.err);
    /* --stats: one JSON line with the contract's fields. */
    json_error_t je;
    json_t *st = json_loads(r.out, 0, &je);
    assert_non_null(st);
    assert_int_equal(json_integer_value(json_object_get(st, "frames")), S.o.frames);
    const char *fields[] = {"fps", "latency_ms_p50", "latency_ms_p95", "tracked_ratio", "full_frame_ms"};
    for (size_t i = 0; i < 5; i++)
        assert_true(json_is_number(json_object_get(st, fields[i])));
    json_decref(st);
    run_free(&r);

    json_t *lines = read_jsonl(P("%s/ev.jsonl%s", ""));
    int nframes = 0, moved100 = 0, removed101 = 0, appeared = 0, other_moves = 0, occluded101 = 0;
    int mover = 100, taken = 100 + S.o.moving;
    double err2 = 0, errmax = 0;
    long nerr = 0;
    /* A still figure: position spread over the whole sequence. */
    int still = 100 + S.o.nbases - 1;
    double sx = 0, sy = 0, sxx = 0, syy = 0;
    int ns = 0;
    rnd_tag *tags = malloc(sizeof *tags * (size_t)S.ntags);
    for (size_t i = 0; i < json_array_size(lines); i++) {
        json_t *l = json_array_get(lines, i);
        const char *ev = json_string_value(json_object_get(l, "event"));
        int id = (int)json_integer_value(json_object_get(l, "id"));
        if (ev) {
            if (!strcmp(ev, "appeared"))
                appeared++;
            else if (!strcmp(ev, "moved") && id == mover) {
                moved100++;
                /* From where it stood to where it settled. */
                json_t *from = json_object_get(l, "from"), *to = json_object_get(l, "to");
                double dx = json_number_value(json_array_get(to, 0)) - json_number_value(json_array_get(from, 0));
                assert_true(fabs(fabs(dx) - 3.0) < 0.05);
            } else if (!strcmp(ev, "moved"))
                other_moves++;
            else if (!strcmp(ev, "removed") && id == taken)
                removed101++;
            continue;
        }
        int f = (int)json_integer_value(json_object_get(l, "frame"));
        nframes++;
        rnd_occluder occ[4];
        int nocc;
        int nt = seq_frame(&S, f, tags, occ, &nocc);
        json_t *t101 = figure_in(l, taken);
        if (t101 && !strcmp(json_string_value(json_object_get(t101, "state")), "occluded"))
            occluded101++;
        for (int k = S.nanchors; k < nt; k++) {
            json_t *g = figure_in(l, tags[k].id);
            if (!g || strcmp(json_string_value(json_object_get(g, "state")), "seen"))
                continue;
            /* Skip the mover while it slides (the frame shows it mid-way). */
            if (tags[k].id == mover && f > S.o.frames / 8 - 1 && f < 3 * S.o.frames / 8 + 3)
                continue;
            double e = hypot(json_number_value(json_object_get(g, "x")) - tags[k].x,
                             json_number_value(json_object_get(g, "y")) - tags[k].y);
            err2 += e * e;
            errmax = fmax(errmax, e);
            nerr++;
        }
        json_t *g = figure_in(l, still);
        if (g) {
            double x = json_number_value(json_object_get(g, "x")), y = json_number_value(json_object_get(g, "y"));
            sx += x;
            sy += y;
            sxx += x * x;
            syy += y * y;
            ns++;
        }
    }
    free(tags);
    double sdx = sqrt(fmax(0, sxx / ns - (sx / ns) * (sx / ns))), sdy = sqrt(fmax(0, syy / ns - (sy / ns) * (sy / ns)));
    print_message("frames %d, position rms %.4f max %.4f in over %ld figure-frames; still figure sd %.5f/%.5f in; "
                  "appeared %d, moved(mover) %d, other moves %d, occluded frames %d, removed %d\n",
                  nframes, sqrt(err2 / nerr), errmax, nerr, sdx, sdy, appeared, moved100, other_moves, occluded101,
                  removed101);
    assert_int_equal(nframes, S.o.frames);
    assert_int_equal(appeared, S.o.nbases);
    assert_int_equal(moved100, 1);
    assert_int_equal(other_moves, 0);
    assert_true(occluded101 >= 3);
    assert_int_equal(removed101, 1);
    assert_true(sqrt(err2 / nerr) < 0.03);
    assert_true(ns == S.o.frames);
    assert_true(sdx <= 0.005 && sdy <= 0.005);
    json_decref(lines);
}

static void test_corrupt_frame_skipped(void **state)
{
    (void)state;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/c' && cp '%s'/frames/frame_000*.png '%s/c/' && "
             "printf 'not a png at all' > '%s/c/frame_0005.png'", dir, dir, dir, dir);
    assert_int_equal(system(cmd), 0);
    char *argv[] = {TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", P("%s/c/*.png%s", ""), "--events",
                    P("%s/c.jsonl%s", ""), "--stats", NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("track failed: %s", r.err);
    assert_non_null(strstr(r.out, "\"frames\":9,"));
    assert_non_null(strstr(r.out, "\"corrupt_frames\":1"));
    run_free(&r);
    json_t *lines = read_jsonl(P("%s/c.jsonl%s", ""));
    for (size_t i = 0; i < json_array_size(lines); i++)
        assert_true(json_integer_value(json_object_get(json_array_get(lines, i), "frame")) != 5);
    json_decref(lines);
}

static void test_missing_source(void **state)
{
    (void)state;
    char *argv[] = {TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", P("%s/nothing/*.png%s", ""), NULL};
    run_result r = run_cmd(argv, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "no files match"));
    run_free(&r);
    char *argv2[] = {TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", "/dev/video97", NULL};
    r = run_cmd(argv2, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "camera /dev/video97 not found"));
    run_free(&r);
}

static void test_frame_size_change(void **state)
{
    (void)state;
    char cmd[2048];
    tt_image small = {0};
    assert_int_equal(tt_image_alloc(&small, 640, 360, 1, NULL), TT_OK);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/s' && cp '%s'/frames/frame_000[0-3].png '%s/s/'", dir, dir, dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(cvw_image_write(P("%s/s/frame_0004.png%s", ""), &small, NULL), TT_OK);
    tt_image_free(&small);
    char *argv[] = {TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", P("%s/s/*.png%s", ""), "--events",
                    P("%s/s.jsonl%s", ""), NULL};
    run_result r = run_cmd(argv, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "frame 4: the image is 640x360"));
    run_free(&r);
    json_t *lines = read_jsonl(P("%s/s.jsonl%s", "")); /* complete up to the change */
    assert_true(json_array_size(lines) >= 4);
    json_decref(lines);
}

static void test_sigint_clean_exit(void **state)
{
    (void)state;
    char cmd[2048];
    /* A long sequence: 50 passes over the frames, by symlink. */
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/long' && for r in $(seq -w 0 49); do for f in '%s'/frames/*.png; do "
             "ln -s \"$f\" '%s/long/'$r\"_$(basename $f)\"; done; done",
             dir, dir, dir);
    assert_int_equal(system(cmd), 0);
    char ev[700];
    snprintf(ev, sizeof ev, "%s/long.jsonl", dir);
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", 1);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execl(TT_BIN, TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", P("%s/long/*.png%s", ""),
              "--events", ev, NULL);
        _exit(127);
    }
    /* Interrupt once it is tracking (its first events line is out), however
     * slow the start-up on a busy machine; give up waiting after 120 s. */
    for (int waited = 0; waited < 1200; waited++) {
        struct timespec ts = {0, 100000000};
        FILE *f = fopen(ev, "r");
        int lines = 0, c;
        while (f && (c = fgetc(f)) != EOF)
            lines += c == '\n';
        if (f)
            fclose(f);
        if (lines >= 2)
            break;
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGINT);
    int st = 0;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    json_t *lines = read_jsonl(ev);
    size_t n = json_array_size(lines);
    print_message("SIGINT once tracking: %zu complete lines\n", n);
    assert_true(n > 0);
    assert_true(n < 50u * (size_t)S.o.frames); /* it really was interrupted */
    json_decref(lines);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Ctrl-C while --preload reads the frames: it ends at once, exit 0, and no
 * recording was begun.  (Uses the long sequence of test_sigint_clean_exit.) */
static void test_sigint_in_preload(void **state)
{
    (void)state;
    char *rec = P("%s/preload.sqlite%s", "");
    unlink(rec);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", 1);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execl(TT_BIN, TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", P("%s/long/*.png%s", ""),
              "--preload", "--record", rec, NULL);
        _exit(127);
    }
    /* once it catches SIGINT (its handler is in), give it half a second
     * into reading the frames */
    char status_path[64];
    snprintf(status_path, sizeof status_path, "/proc/%d/status", (int)pid);
    int caught = 0;
    for (int i = 0; i < 600 && !caught; i++) {
        FILE *f = fopen(status_path, "r");
        char line[256];
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "SigCgt:", 7))
                caught = (strtoull(line + 7, NULL, 16) >> (SIGINT - 1)) & 1;
        if (f)
            fclose(f);
        struct timespec poll = {0, 50000000};
        if (!caught)
            nanosleep(&poll, NULL);
    }
    assert_true(caught);
    struct timespec ts = {0, 500000000};
    nanosleep(&ts, NULL);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, WNOHANG), 0); /* still reading its frames */
    double t_int = now_s();
    kill(pid, SIGINT);
    waitpid(pid, &st, 0);
    double took = now_s() - t_int;
    print_message("SIGINT %.2f s into --preload: ended %.3f s later\n", t_int - t0, took);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_true(took < 1.0); /* a frame or two, not the rest of the sequence */
    struct stat sb;
    assert_int_not_equal(stat(rec, &sb), 0); /* nothing was begun */
}

/* With nothing to write, track says what it sees once a second. */
static void test_status_line(void **state)
{
    (void)state;
    char *argv[] = {TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", P("%s/long/*.png%s", ""),
                    "--max-frames", "300", NULL};
    double t0 = now_s();
    run_result r = run_cmd(argv, NULL);
    double took = now_s() - t0;
    assert_int_equal(r.status, 0);
    int lines = 0, frame = -1, seen = -1, occl = -1, lost = -1;
    double fps = 0;
    for (const char *p = r.err; (p = strstr(p, "tabletrack track: frame ")) != NULL; p++) {
        assert_int_equal(sscanf(p, "tabletrack track: frame %d, %lf fps, %d figures seen, %d occluded, %d lost", &frame,
                                &fps, &seen, &occl, &lost),
                         5);
        lines++;
    }
    print_message("%d status lines in %.1f s; last: frame %d, %.1f fps, %d seen\n", lines, took, frame, fps, seen);
    /* one a second while tracking: at least one in 300 frames under the
     * sanitizers, never more than one a second of the run */
    assert_true(lines >= 1 && lines <= (int)took + 1);
    if (lines) {
        assert_true(frame > 0 && frame < 300 && fps > 0);
        assert_true(seen > 0 && seen + occl + lost <= S.ntags - S.nanchors); /* figures, no anchor */
    }
    run_free(&r);
}

/* Minimal OSC reader for the test. */
static int osc_str(const uint8_t *b, size_t len, size_t *at, const char **s)
{
    if (*at >= len)
        return 0;
    *s = (const char *)b + *at;
    size_t n = strnlen(*s, len - *at);
    if (n == len - *at)
        return 0;
    *at += (n + 4) & ~(size_t)3;
    return 1;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return ntohl(v);
}

static void test_tuio(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t al = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &al);
    char hp[64];
    snprintf(hp, sizeof hp, "127.0.0.1:%d", ntohs(a.sin_port));
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char *argv[] = {TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", P("%s/frames/*.png%s", ""),
                    "--tuio", hp, "--max-frames", "3", NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("track failed: %s", r.err);
    run_free(&r);
    uint8_t buf[65536];
    int sets = 0, fseq = 0, alive = 0, first_fseq = -1, datagrams = 0;
    rnd_tag *tags = malloc(sizeof *tags * (size_t)S.ntags);
    rnd_occluder occ[4];
    int nocc;
    int nt = seq_frame(&S, 0, tags, occ, &nocc);
    /* the first frame comes as several bundles of at most 1472 bytes, each
     * with source, the full alive list, some sets and fseq */
    while (sets < S.o.nbases) {
        ssize_t len = recv(fd, buf, sizeof buf, 0);
        assert_true(len > 16);
        assert_true(len <= 1472);
        datagrams++;
        size_t at = 0;
        const char *s;
        assert_true(osc_str(buf, (size_t)len, &at, &s));
        assert_string_equal(s, "#bundle");
        at += 8; /* time tag */
        int this_fseq = -1;
        while (at + 4 <= (size_t)len) {
            size_t sz = rd32(buf + at), m = at + 4;
            at += 4 + sz;
            const char *addr = NULL, *tt = NULL, *cmd = NULL;
            assert_true(osc_str(buf, m + sz, &m, &addr));
            assert_string_equal(addr, "/tuio/2Dobj");
            assert_true(osc_str(buf, m + sz, &m, &tt));
            assert_true(osc_str(buf, at, &m, &cmd));
            if (!strcmp(cmd, "set")) {
                assert_string_equal(tt, ",siiffffffff");
                int cls = (int)rd32(buf + m + 4);
                uint32_t u;
                float x, y;
                u = rd32(buf + m + 8);
                memcpy(&x, &u, 4);
                u = rd32(buf + m + 12);
                memcpy(&y, &u, 4);
                int found = 0;
                for (int k = S.nanchors; k < nt; k++)
                    if (tags[k].id == cls) {
                        found = 1;
                        assert_true(fabs(x - tags[k].x / S.o.table_w) < 0.002);
                        assert_true(fabs(y - tags[k].y / S.o.table_d) < 0.002);
                    }
                assert_true(found);
                sets++;
            } else if (!strcmp(cmd, "fseq")) {
                this_fseq = (int)rd32(buf + m);
            } else if (!strcmp(cmd, "alive")) {
                alive = (int)strlen(tt) - 2;
            }
        }
        assert_true(this_fseq >= 0);
        if (first_fseq < 0)
            first_fseq = this_fseq;
        assert_int_equal(this_fseq, first_fseq);
        fseq++;
    }
    close(fd);
    free(tags);
    assert_int_equal(sets, S.o.nbases);
    assert_int_equal(alive, S.o.nbases);
    assert_int_equal(fseq, datagrams); /* one fseq per bundle */
}

/* --projector draws each frame: a ring around every figure where it
 * stands, through projector.json. */
static void test_live_overlay(void **state)
{
    (void)state;
    FILE *f = fopen(P("%s/pj.json%s", ""), "w");
    assert_non_null(f);
    fputs("{\"width\": 1280, \"height\": 800, \"table_to_projector\": [[35, 0, 10], [0, 33, 0], [0, 0, 1]]}\n", f);
    fclose(f);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/ov'", dir);
    assert_int_equal(system(cmd), 0);
    char *argv[] = {TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", P("%s/frames/*.png%s", ""),
                    "--projector", P("%s/pj.json%s", ""), "--overlay-dir", P("%s/ov%s", ""), "--max-frames", "2",
                    NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("track failed: %s", r.err);
    run_free(&r);
    tt_image im = {0};
    assert_int_equal(cvw_image_read(P("%s/ov/overlay_00001.png%s", ""), 1, &im, NULL), TT_OK);
    assert_int_equal(im.width, 1280);
    assert_int_equal(im.height, 800);
    rnd_tag *tags = malloc(sizeof *tags * (size_t)S.ntags);
    rnd_occluder occ[4];
    int nocc, nt = seq_frame(&S, 1, tags, occ, &nocc), rings = 0;
    /* the ring goes around the tag's mask (2.1x the tag, any turn) */
    double rpx = overlay_tag_ring_in(S.o.base_size_in) * 35;
    for (int k = S.nanchors; k < nt; k++) {
        int cx = (int)lround(35 * tags[k].x + 10), cy = (int)lround(33 * tags[k].y);
        int lit = 0;
        /* the ring (dashed when the tag is hidden) crosses 24 spokes */
        for (int s = 0; s < 24; s++) {
            double a = s * M_PI / 12;
            int hit = 0;
            for (int d = -3; d <= 3 && !hit; d++) {
                int x = (int)lround(cx + (rpx + d) * cos(a)), y = (int)lround(cy + (rpx + d) * 33.0 / 35 * sin(a));
                hit = x >= 0 && x < im.width && y >= 0 && y < im.height && im.data[y * im.stride + x] > 150;
            }
            lit += hit;
        }
        assert_true(im.data[cy * im.stride + cx] < 50); /* dark inside: the figure is not lit */
        rings += lit >= 8;
    }
    assert_int_equal(rings, nt - S.nanchors);
    tt_image_free(&im);

    /* A blast drawn over a figure leaves its tag dark (where the tracker
     * sees it this frame) and lights the felt around. */
    const rnd_tag *b = &tags[S.nanchors];
    f = fopen(P("%s/masks.json%s", ""), "w");
    assert_non_null(f);
    fprintf(f, "{\"ruleset\":\"into-the-breach\",\"table\":{\"width_in\":%g,\"depth_in\":%g},\"figures\":[",
            S.o.table_w, S.o.table_d);
    for (int k = S.nanchors; k < nt; k++)
        fprintf(f, "%s{\"id\":\"f%d\",\"side\":\"red\",\"unit\":\"u\",\"type\":\"foot\",\"weapon\":\"musket\","
                   "\"x\":%.3f,\"y\":%.3f,\"facing_deg\":0}",
                k > S.nanchors ? "," : "", tags[k].id, tags[k].x, tags[k].y);
    fprintf(f, "],\"tags\":{");
    for (int k = S.nanchors; k < nt; k++)
        fprintf(f, "%s\"%d\":\"f%d\"", k > S.nanchors ? "," : "", tags[k].id, tags[k].id);
    fprintf(f, "}}\n");
    fclose(f);
    char q[128];
    snprintf(q, sizeof q, "{\"q\":\"blast\",\"at\":[%.3f,%.3f],\"radius_in\":3}", b->x, b->y);
    char *argv3[] = {TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", P("%s/frames/*.png%s", ""),
                     "--projector", P("%s/pj.json%s", ""), "--scenario", P("%s/masks.json%s", ""), "--query", q,
                     "--overlay-dir", P("%s/ov%s", ""), "--max-frames", "2", NULL};
    r = run_cmd(argv3, NULL);
    if (r.status != 0)
        fail_msg("track failed: %s", r.err);
    run_free(&r);
    assert_int_equal(cvw_image_read(P("%s/ov/overlay_00001.png%s", ""), 1, &im, NULL), TT_OK);
    double half = 0.5 * OVERLAY_TAG_MASK_FACTOR * S.o.base_size_in, a = b->facing_deg * M_PI / 180;
    int dark = 0, in = 0, lit_out = 0, out = 0;
    for (double u = -1.3 * half; u <= 1.3 * half; u += 0.05)
        for (double v = -1.3 * half; v <= 1.3 * half; v += 0.05) {
            double x = b->x + u * cos(a) - v * sin(a), y = b->y + u * sin(a) + v * cos(a);
            int px = (int)lround(35 * x + 10), py = (int)lround(33 * y);
            if (px < 0 || py < 0 || px >= im.width || py >= im.height)
                continue;
            int val = im.data[py * im.stride + px];
            if (fabs(u) < half - 0.1 && fabs(v) < half - 0.1) {
                in++;
                dark += val < 10;
            } else if (fabs(u) > half + 0.1 || fabs(v) > half + 0.1) {
                out++;
                lit_out += val > 30;
            }
        }
    assert_true(in > 100 && out > 50);
    assert_int_equal(dark, in);           /* the mask: nothing lit on the tag */
    assert_true(lit_out > out * 3 / 4); /* the blast around it is */
    free(tags);
    tt_image_free(&im);

    /* --query without a scenario: a clear usage error. */
    char *argv2[] = {TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", P("%s/frames/*.png%s", ""),
                     "--projector", P("%s/pj.json%s", ""), "--query", "{\"q\":\"grape\",\"from\":\"g1\"}", NULL};
    r = run_cmd(argv2, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "--query needs --scenario"));
    run_free(&r);
}

/* --record: the same frames and events land in the recording, and a second
 * run adds a second session instead of overwriting. */
static void test_record(void **state)
{
    (void)state;
    char db[700];
    snprintf(db, sizeof db, "%s/game.sqlite", dir);
    for (int run = 0; run < 2; run++) {
        char *argv[] = {TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", P("%s/frames/*.png%s", ""),
                        "--events", P("%s/rec.jsonl%s", ""), "--record", db, "--grace", "5", NULL};
        run_result r = run_cmd(argv, NULL);
        if (r.status != 0)
            fail_msg("track --record failed: %s", r.err);
        run_free(&r);
    }
    json_t *ev = read_jsonl(P("%s/rec.jsonl%s", ""));
    int nev = 0;
    for (size_t i = 0; i < json_array_size(ev); i++)
        nev += json_object_get(json_array_get(ev, i), "event") != NULL;
    json_decref(ev);
    char *argv[] = {TT_BIN, "replay", db, "--json", NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("replay failed: %s", r.err);
    /* the latest session: its header names session 2, and it holds every
     * event of the run and a state line for the first frame */
    assert_non_null(strstr(r.out, "{\"session\":2,"));
    int rev = 0;
    for (const char *p = r.out; (p = strstr(p, "\"event\":")); p++)
        rev++;
    assert_int_equal(rev, nev);
    assert_true(nev >= S.o.nbases);
    assert_non_null(strstr(r.out, "{\"frame\":0,"));
    run_free(&r);
}

/* A video whose end is cut off (a recording that stopped mid-write): the
 * truncated frames are skipped and counted, never a crash, and the events
 * file is complete. */
static void test_corrupt_video(void **state)
{
    (void)state;
    char vid[700];
    snprintf(vid, sizeof vid, "%s/game.avi", dir);
    cvw_video_writer *w = NULL;
    tt_err err = {0};
    assert_int_equal(cvw_video_writer_open(vid, S.o.width, S.o.height, 30, &w, &err), TT_OK);
    for (int f = 0; f < 12; f++) {
        char p[64];
        tt_image bgr = {0};
        snprintf(p, sizeof p, "/frames/frame_%04d.png", f);
        assert_int_equal(cvw_image_read(P("%s%s", p), 3, &bgr, &err), TT_OK);
        assert_int_equal(cvw_video_writer_write(w, &bgr, &err), TT_OK);
        tt_image_free(&bgr);
    }
    assert_int_equal(cvw_video_writer_close(w, &err), TT_OK);
    /* Cut the last ~20 % off: the last frames are truncated. */
    FILE *f = fopen(vid, "r+b");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fclose(f);
    assert_int_equal(truncate(vid, len * 8 / 10), 0);
    char *argv[] = {TT_BIN, "track", "--rig", P("%s/rig.json%s", ""), "--source", vid, "--events",
                    P("%s/vid.jsonl%s", ""), "--stats", NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("track on a damaged video failed (exit %d): %s", r.status, r.err);
    json_error_t je;
    json_t *st = json_loads(r.out, 0, &je);
    if (!st)
        fail_msg("no stats line: stdout '%s', stderr '%s'", r.out, r.err);
    int frames = (int)json_integer_value(json_object_get(st, "frames"));
    int corrupt = (int)json_integer_value(json_object_get(st, "corrupt_frames"));
    print_message("damaged video: %d frames tracked, %d skipped as corrupt\n", frames, corrupt);
    assert_true(frames >= 8 && frames < 12);
    assert_int_equal(frames + corrupt, 12);
    json_decref(st);
    run_free(&r);
    json_t *lines = read_jsonl(P("%s/vid.jsonl%s", ""));
    assert_true(json_array_size(lines) >= (size_t)frames);
    json_decref(lines);
}

/* Render every frame of s into d/frames/ and write d/rig.json. */
static void render_seq(const seq *s, const char *d)
{
    char p[800];
    tt_err err = {0};
    snprintf(p, sizeof p, "mkdir -p '%s/frames'", d);
    assert_int_equal(system(p), 0);
    assert_int_equal(seq_write_rig(s, d, &err), TT_OK);
    for (int f = 0; f < s->o.frames; f++) {
        tt_image im = {0};
        assert_int_equal(seq_render(s, f, &im, &err), TT_OK);
        snprintf(p, sizeof p, "%s/frames/f%04d.png", d, f);
        assert_int_equal(cvw_image_write(p, &im, &err), TT_OK);
        tt_image_free(&im);
    }
}

/* The camera is knocked mid-game: the tracker looks at the whole frame
 * again, the pose is solved again from the anchors, and the figures stay
 * where they really are on the table. */
static void test_camera_knocked(void **state)
{
    (void)state;
    seq_options o;
    seq k;
    tt_err err = {0};
    char kd[700];
    seq_options_small(&o);
    o.frames = 16;
    o.moving = 0;
    o.taken_away = 0;
    o.anchor_hand = 0;
    o.bump_frame = 8;
    o.bump_in = 1.5;
    o.seed = 5;
    assert_int_equal(seq_init(&o, &k, &err), TT_OK);
    snprintf(kd, sizeof kd, "%s/knock", dir);
    render_seq(&k, kd);
    json_t *lines = track_events(kd, "frames/*.png", "ev.jsonl", NULL);
    rnd_tag *tags = malloc(sizeof *tags * (size_t)k.ntags);
    rnd_occluder occ[4];
    int nocc, checked = 0, moved = 0;
    double worst = 0;
    for (size_t i = 0; i < json_array_size(lines); i++) {
        json_t *l = json_array_get(lines, i);
        if (json_object_get(l, "event")) {
            moved += !strcmp(json_string_value(json_object_get(l, "event")), "moved");
            continue;
        }
        int f = (int)json_integer_value(json_object_get(l, "frame"));
        if (f < o.bump_frame + 2)
            continue;
        int nt = seq_frame(&k, f, tags, occ, &nocc);
        for (int t = k.nanchors; t < nt; t++) {
            json_t *g = figure_in(l, tags[t].id);
            assert_non_null(g);
            assert_string_equal(json_string_value(json_object_get(g, "state")), "seen");
            double e = hypot(json_number_value(json_object_get(g, "x")) - tags[t].x,
                             json_number_value(json_object_get(g, "y")) - tags[t].y);
            worst = fmax(worst, e);
            checked++;
        }
    }
    print_message("camera knocked by %.1f\": %d figure-frames after it, worst error %.4f in, %d false moves\n",
                  o.bump_in, checked, worst, moved);
    assert_true(checked > 0);
    assert_true(worst < 0.03);
    assert_int_equal(moved, 0); /* the figures did not move: the camera did */
    free(tags);
    json_decref(lines);
    seq_free(&k);
}

/* Issue 20: a 2" box (an undeclared hill) with figures on it.  Without a
 * scenario each figure on it gets one "height" event (its averaged measured
 * height) and z_in about 2 in the frame lines, the others z_in 0 and no
 * event; with a scenario declaring the hill no event, z_in exactly 2. */
static void test_heights(void **state)
{
    (void)state;
    seq_options o;
    seq H;
    tt_err err = {0};
    char hd[300], p[700];
    seq_options_small(&o);
    o.moving = 0;
    o.taken_away = 0;
    o.anchor_hand = 0;
    o.frames = 10;
    o.nbases = 16;
    o.seed = 8;
    assert_int_equal(seq_init(&o, &H, &err), TT_OK);
    const double box[4] = {17, 9, 31, 21}, hill = 2.0;
    rnd_piece pc;
    memset(&pc, 0, sizeof pc);
    const double pts[4][2] = {{box[0], box[1]}, {box[2], box[1]}, {box[2], box[3]}, {box[0], box[3]}};
    memcpy(pc.pts, pts, sizeof pts);
    pc.npts = 4;
    pc.height_in = hill;
    pc.gray = 120;
    H.scene.pieces = &pc;
    H.scene.npieces = 1;
    int m = H.nanchors, raised = 0;
    for (int k = H.nanchors; k < H.ntags; k++) {
        rnd_tag t = H.base_tags[k];
        double r = t.base_radius_in + 0.1;
        int in = t.x > box[0] + r && t.x < box[2] - r && t.y > box[1] + r && t.y < box[3] - r;
        int out = t.x < box[0] - r || t.x > box[2] + r || t.y < box[1] - r || t.y > box[3] + r;
        if (!in && !out)
            continue;
        t.height_in += in ? hill : 0;
        raised += in;
        H.base_tags[m++] = t;
    }
    H.ntags = m;
    assert_true(raised >= 2 && m - H.nanchors - raised >= 2);
    snprintf(hd, sizeof hd, "%s/hill", dir);
    render_seq(&H, hd);
    snprintf(p, sizeof p, "%s/hill.json", hd);
    FILE *sf = fopen(p, "w");
    assert_non_null(sf);
    fprintf(sf, "{\"ruleset\": \"into-the-breach\", \"table\": {\"width_in\": 36, \"depth_in\": 24}, \"terrain\": "
                "[{\"id\": \"hill1\", \"kind\": \"hill\", \"height_in\": %g, \"polygon\": [[%g,%g],[%g,%g],[%g,%g],[%g,%g]]}]}\n",
            hill, box[0], box[1], box[2], box[1], box[2], box[3], box[0], box[3]);
    fclose(sf);
    for (int declared = 0; declared < 2; declared++) {
        char ev[32], scn[600];
        snprintf(ev, sizeof ev, "ev%d.jsonl", declared);
        snprintf(scn, sizeof scn, "%s/hill.json", hd);
        json_t *lines = track_events(hd, "frames/*.png", ev, declared ? scn : NULL);
        int events[200] = {0}, last = -1;
        for (size_t i = 0; i < json_array_size(lines); i++) {
            json_t *l = json_array_get(lines, i);
            const char *e = json_string_value(json_object_get(l, "event"));
            int id = (int)json_integer_value(json_object_get(l, "id"));
            if (e && !strcmp(e, "height")) {
                assert_true(id >= 100 && id < 300);
                events[id - 100]++;
                double z = json_number_value(json_object_get(l, "z_in"));
                assert_true(fabs(z - hill) < 0.3);
                assert_true(json_number_value(json_object_get(l, "ground_in")) == 0);
            } else if (!e)
                last = (int)i;
        }
        assert_true(last >= 0);
        json_t *fl = json_array_get(lines, (size_t)last);
        for (int k = H.nanchors; k < H.ntags; k++) {
            const rnd_tag *t = &H.base_tags[k];
            int on = t->height_in > hill;
            json_t *g = figure_in(fl, t->id);
            assert_non_null(g);
            double z = json_number_value(json_object_get(g, "z_in"));
            assert_true(json_is_number(json_object_get(g, "z_in")));
            if (declared || !on)
                assert_true(fabs(z - (on ? hill : 0)) < 1e-9);
            else
                assert_true(fabs(z - hill) < 0.3);
            assert_int_equal(events[t->id - 100], on && !declared ? 1 : 0);
        }
        json_decref(lines);
    }
    /* A rig whose bases' size_in is a quarter too large: every tag measures
     * the same height below the felt.  track says the size is wrong once,
     * naming size_in and the size the tags measure, blames no terrain, and
     * exits non-zero, as locate does (issue 33). */
    char rig[700], big[700], ev[700], src[700];
    snprintf(rig, sizeof rig, "%s/rig.json", hd);
    snprintf(big, sizeof big, "%s/rig_big.json", hd);
    json_t *rj = json_load_file(rig, 0, NULL);
    assert_non_null(rj);
    json_t *bases = json_object_get(rj, "bases");
    double size = json_number_value(json_object_get(bases, "size_in"));
    assert_true(size > 0);
    json_object_set_new(bases, "size_in", json_real(size * 1.25));
    assert_int_equal(json_dump_file(rj, big, 0), 0);
    json_decref(rj);
    snprintf(src, sizeof src, "%s/frames/*.png", hd);
    snprintf(ev, sizeof ev, "%s/ev_big.jsonl", hd);
    char *argv[] = {TT_BIN, "track", "--rig", big, "--source", src, "--events", ev, NULL};
    run_result r = run_cmd(argv, NULL);
    assert_non_null(r.err);
    print_message("rig size_in x1.25: exit %d\n%s", r.status, r.err);
    assert_int_not_equal(r.status, 0);
    int told = 0;
    for (const char *q = r.err; (q = strstr(q, "the rig's bases size_in is")); q++)
        told++;
    assert_int_equal(told, 1); /* once, not once a frame */
    char said[64];
    snprintf(said, sizeof said, "size_in is %.2f\" but the base tags measure ", size * 1.25);
    assert_non_null(strstr(r.err, said));
    assert_null(strstr(r.err, "hill"));
    assert_null(strstr(r.err, "raised terrain"));
    run_free(&r);
    seq_free(&H);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_and_accuracy),
        cmocka_unit_test(test_1080p_small_tags), cmocka_unit_test(test_corrupt_frame_skipped),
        cmocka_unit_test(test_missing_source),      cmocka_unit_test(test_frame_size_change),
        cmocka_unit_test(test_sigint_clean_exit),   cmocka_unit_test(test_sigint_in_preload),
        cmocka_unit_test(test_status_line),         cmocka_unit_test(test_tuio),
        cmocka_unit_test(test_live_overlay),        cmocka_unit_test(test_record),
        cmocka_unit_test(test_corrupt_video),       cmocka_unit_test(test_camera_knocked),
        cmocka_unit_test(test_heights),
    };
    return cmocka_run_group_tests_name("track", tests, setup_all, teardown_all);
}
