/* test_hostile_record.c - a disk that fills mid-game (issue 15, item 4),
 * injected with RLIMIT_FSIZE: the recorder says so with the frame and the
 * reason, writes nothing more, leaves the session truncated at the last
 * frame it saved (no ended_utc), and readers say "truncated at frame N". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rec.h"
#include "hostile_util.h"
#include "run.h"

#define CHILD_CHECK(cond, ...)                                                                                         \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "child: " __VA_ARGS__);                                                                    \
            fputc('\n', stderr);                                                                                       \
            _exit(3);                                                                                                  \
        }                                                                                                              \
    } while (0)

/* In a child whose files may not grow past `limit` bytes: record moving
 * figures until a write fails; write the last saved frame to `out`. */
static void record_until_full(const char *path, rlim_t limit, const char *out)
{
    signal(SIGXFSZ, SIG_IGN); /* writes past the limit fail with EFBIG, as on a full disk */
    rec *r = NULL;
    tt_err err = {0};
    CHILD_CHECK(rec_open(path, REC_CREATE_NEW, &r, &err) == TT_OK, "%s", err.msg);
    CHILD_CHECK(rec_session_begin(r, "{\"table\":{\"width_in\":72,\"depth_in\":48}}", NULL, NULL, &err) == TT_OK, "%s",
                err.msg);
    struct rlimit rl = {limit, limit};
    CHILD_CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0, "setrlimit");
    rec_figure f[40];
    long failed_at = -1;
    char reason[TT_ERR_MSG_LEN] = "";
    for (long frame = 0; frame < 200000 && failed_at < 0; frame++) {
        for (int i = 0; i < 40; i++) {
            f[i].family = "tag36h11";
            f[i].id = i;
            f[i].x = 1 + i + (frame % 100) * 0.1;
            f[i].y = 10 + (frame % 37) * 0.3;
            f[i].facing_deg = (double)(frame % 360) - 179;
            f[i].state = REC_SEEN;
            f[i].z_in = 0;
            f[i].err95_in = f[i].z_err95_in = f[i].facing_err95_deg = 0;
        }
        if (rec_frame(r, frame, frame * 33, f, 40, &err) != TT_OK) {
            failed_at = frame;
            snprintf(reason, sizeof reason, "%s", err.msg);
        }
    }
    CHILD_CHECK(failed_at > 0, "the recording never failed");
    CHILD_CHECK(rec_failed(r), "rec_failed is 0");
    long saved = rec_committed_frame(r);
    CHILD_CHECK(saved >= 0 && saved < failed_at, "saved %ld, failed at %ld", saved, failed_at);
    char want[80];
    snprintf(want, sizeof want, "truncated at frame %ld, the last frame saved", saved);
    CHILD_CHECK(strstr(reason, want) && strstr(reason, path), "the reason '%s' lacks '%s' or the file", reason, want);
    /* The game goes on: later frames are refused at once with the same reason. */
    for (long frame = failed_at + 1; frame < failed_at + 50; frame++) {
        CHILD_CHECK(rec_frame(r, frame, frame * 33, f, 40, &err) == TT_ERR_IO, "frame %ld accepted", frame);
        CHILD_CHECK(strstr(err.msg, want), "later error '%s'", err.msg);
    }
    CHILD_CHECK(rec_query(r, failed_at, failed_at * 33, "{\"q\":\"los\"}", "{}", &err) == TT_ERR_IO, "query accepted");
    CHILD_CHECK(rec_close(r, &err) == TT_ERR_IO && strstr(err.msg, want), "close said '%s'", err.msg);
    FILE *o = fopen(out, "w");
    CHILD_CHECK(o && fprintf(o, "%ld\n", saved) > 0 && fclose(o) == 0, "writing %s", out);
    _exit(0);
}

static void test_disk_full_mid_game(void **state)
{
    (void)state;
    char path[512], out[512];
    snprintf(path, sizeof path, "%s/game.sqlite", hu_dir);
    snprintf(out, sizeof out, "%s/saved.txt", hu_dir);
    pid_t pid = fork();
    if (pid == 0)
        record_until_full(path, 300 * 1024, out);
    int st = 0;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    FILE *f = fopen(out, "r");
    long saved = -1;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%ld", &saved), 1);
    fclose(f);
    assert_true(saved > 10);

    /* The file opens, passes the integrity check, and says where it stops. */
    rec_game *g = NULL;
    tt_err err = {0};
    assert_int_equal(rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err), TT_OK);
    assert_int_equal(rec_game_truncated_frame(g), saved);
    rec_game_destroy(g);

    char *argv[] = {TT_BIN, "replay", path, "--json", NULL};
    run_result r = run_cmd(argv, NULL);
    char want[120], endkey[80], lastframe[80];
    snprintf(want, sizeof want, "is truncated at frame %ld", saved);
    snprintf(endkey, sizeof endkey, "\"truncated_at_frame\":%ld", saved);
    snprintf(lastframe, sizeof lastframe, "\"frame\":%ld,", saved);
    if (r.status != 0 || !strstr(r.err, want) || !strstr(r.out, endkey) || !strstr(r.out, lastframe))
        fail_msg("replay: exit %d, stderr '%.300s', stdout ends '%s'", r.status, r.err,
                 strlen(r.out) > 300 ? r.out + strlen(r.out) - 300 : r.out);
    /* Nothing after the last saved frame. */
    snprintf(lastframe, sizeof lastframe, "\"frame\":%ld,", saved + 1);
    assert_null(strstr(r.out, lastframe));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disk_full_mid_game),
    };
    return cmocka_run_group_tests(tests, hu_setup, hu_teardown);
}
