/* test_hostile_files.c - line-delimited input without end (item 9),
 * temporary files (item 10) and replay never writing (item 3) of issue 15. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cvwrap.h"
#include "rec.h"
#include "hostile_util.h"
#include "run.h"
#include "tt_line.h"
#include "tt_tmpfile.h"

/* ---- item 9: a cap on line length ------------------------------------- */

static void test_line_reader(void **state)
{
    (void)state;
    FILE *f = fopen(hu_at("lines.txt"), "w+");
    assert_non_null(f);
    fputs("one\r\n\ntwo", f);
    for (int i = 0; i < 100; i++)
        fputc('x', f);
    fputs("\nthree\n", f);
    rewind(f);
    char *line = NULL;
    size_t cap = 0;
    long n;
    tt_err err = {0};
    assert_int_equal(tt_line_read(f, &line, &cap, 103, &n, "lines.txt", 1, &err), TT_OK);
    assert_int_equal(n, 3);
    assert_string_equal(line, "one");
    assert_int_equal(tt_line_read(f, &line, &cap, 103, &n, "lines.txt", 2, &err), TT_OK);
    assert_int_equal(n, 0);
    /* Exactly the cap is a line; one more byte is not. */
    assert_int_equal(tt_line_read(f, &line, &cap, 103, &n, "lines.txt", 3, &err), TT_OK);
    assert_int_equal(n, 103);
    assert_int_equal(tt_line_read(f, &line, &cap, 4, &n, "lines.txt", 4, &err), TT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "lines.txt: line 4 is longer than 4 bytes"));
    assert_true(cap <= 256);
    free(line);
    fclose(f);
}

/* `tabletrack rules` read stdin until memory ran out on a line without end. */
static void test_rules_stdin_without_newline(void **state)
{
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "exec '%s' rules --scenario '%s' < /dev/zero", TT_BIN,
             TT_SAMPLES "/scenarios/into-the-breach-farm.json");
    char *argv[] = {"/usr/bin/timeout", "60", "/bin/sh", "-c", cmd, NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 1 || !strstr(r.err, "standard input: line 1 is longer than 1048576 bytes"))
        fail_msg("rules < /dev/zero: exit %d, stderr '%.300s'", r.status, r.err);
    run_free(&r);
    /* A huge line then a good query: refused at the huge line, with its number. */
    FILE *f = fopen(hu_at("q.jsonl"), "w");
    assert_non_null(f);
    fputs("\n", f);
    for (int i = 0; i < (2 << 20); i++)
        fputc(' ', f);
    fputs("{}\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "exec '%s' rules --scenario '%s' < '%s'", TT_BIN,
             TT_SAMPLES "/scenarios/into-the-breach-farm.json", hu_at("q.jsonl"));
    char *argv2[] = {"/bin/sh", "-c", cmd, NULL};
    r = run_cmd(argv2, NULL);
    if (r.status != 1 || !strstr(r.err, "line 2 is longer than"))
        fail_msg("rules with a 2 MB line: exit %d, stderr '%.300s'", r.status, r.err);
    run_free(&r);
}

/* ---- item 10: temporary files ----------------------------------------- */

static void test_tmp_names(void **state)
{
    (void)state;
    char *a = NULL, *b = NULL;
    tt_err err = {0};
    assert_int_equal(tt_tmp_create(hu_at("out.png"), &a, &err), TT_OK);
    assert_int_equal(tt_tmp_create(hu_at("out.png"), &b, &err), TT_OK);
    /* Beside the target, hidden, the extension kept, never the same twice. */
    assert_true(strncmp(a, hu_at(".out."), strlen(hu_at(".out."))) == 0);
    assert_true(strlen(a) > 4 && !strcmp(a + strlen(a) - 4, ".png"));
    assert_string_not_equal(a, b);
    struct stat sb;
    assert_int_equal(lstat(a, &sb), 0);
    assert_true(S_ISREG(sb.st_mode) && sb.st_size == 0);
    assert_int_equal(tt_tmp_commit(a, hu_at("out.png"), &err), TT_OK);
    assert_int_equal(stat(hu_at("out.png"), &sb), 0);
    tt_tmp_discard(b);
    /* Of out.png's files, only out.png is left. */
    DIR *d = opendir(hu_dir);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)))
        files += strstr(e->d_name, "out.") != NULL;
    closedir(d);
    assert_int_equal(files, 1);
    assert_int_equal(tt_tmp_create("/nonexistent-dir/x.png", &a, &err), TT_ERR_IO);
    assert_null(a);
}

/* The writers followed a symlink planted at their fixed temporary name
 * (OUT.tmp, OUT.tmp.yaml, OUT.tmp.png ...) and wrote through it. */
static void test_planted_symlinks_are_not_followed(void **state)
{
    (void)state;
    hu_put("victim.txt", "precious\n");
    const char *planted[] = {"page.html.tmp", "cam.yaml.tmp.yaml", "im.tmp.png", "out.json.tmp", NULL};
    for (int i = 0; planted[i]; i++)
        assert_int_equal(symlink(hu_at("victim.txt"), hu_at(planted[i])), 0);
    cvw_camera cam = {0};
    cam.width = 640;
    cam.height = 480;
    double K[9] = {500, 0, 319.5, 0, 500, 239.5, 0, 0, 1};
    memcpy(cam.K, K, sizeof K);
    cam.ndist = 5;
    tt_err err = {0};
    assert_int_equal(cvw_camera_write(hu_at("cam.yaml"), &cam, 0.1, &err), TT_OK);
    cvw_camera back;
    assert_int_equal(cvw_camera_read(hu_at("cam.yaml"), &back, &err), TT_OK);
    assert_true(back.K[0] == 500 && back.width == 640);
    tt_image im = {0};
    assert_int_equal(tt_image_alloc(&im, 8, 8, 1, &err), TT_OK);
    memset(im.data, 200, (size_t)im.stride * 8);
    assert_int_equal(cvw_image_write(hu_at("im.png"), &im, &err), TT_OK);
    tt_image_free(&im);
    size_t n;
    char *v = hu_slurp(hu_at("victim.txt"), &n);
    assert_string_equal(v, "precious\n");
    free(v);
    for (int i = 0; planted[i]; i++) {
        struct stat sb;
        assert_int_equal(lstat(hu_at(planted[i]), &sb), 0);
        assert_true(S_ISLNK(sb.st_mode));
    }
}

/* No writer in the source builds a temporary name from the target's name
 * plus a fixed or guessable suffix ("%s.tmp", getpid()): every one goes
 * through tt_tmpfile.h. */
static void test_no_fixed_temporary_names_in_source(void **state)
{
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "grep -rnE '\\.tmp[.\"]|\"\\.tmp|tmpnam|mktemp\\(|getpid\\(\\)' --include=*.c --include=*.cpp --include=*.h --exclude-dir='build*' --exclude-dir=.git --exclude-dir=node_modules "
             "'%s' | grep -v '^%s/tests/' ",
             TT_SOURCE, TT_SOURCE);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char buf[4096];
    size_t got = fread(buf, 1, sizeof buf - 1, p);
    buf[got] = '\0';
    pclose(p);
    if (got)
        fail_msg("fixed or guessable temporary names in the source:\n%s", buf);
    /* Scripts: a folder in /tmp comes from mktemp, never a fixed or $$ name. */
    snprintf(cmd, sizeof cmd,
             "grep -rnE '/tmp/[A-Za-z]|/tmp}/[A-Za-z]|[._-]\\$\\$' --include=*.sh --include=Makefile --include=*.py "
             "--exclude-dir='build*' --exclude-dir=.git --exclude-dir=node_modules '%s' | grep -v XXXXXX",
             TT_SOURCE);
    p = popen(cmd, "r");
    assert_non_null(p);
    got = fread(buf, 1, sizeof buf - 1, p);
    buf[got] = '\0';
    pclose(p);
    if (got)
        fail_msg("fixed or guessable temporary names in scripts:\n%s", buf);
}

/* ---- item 3: replay never writes -------------------------------------- */

static void make_recording(const char *path, int close_it)
{
    rec *r = NULL;
    tt_err err = {0};
    assert_int_equal(rec_open(path, REC_CREATE_NEW, &r, &err), TT_OK);
    assert_int_equal(rec_session_begin(r, "{\"table\":{\"width_in\":72,\"depth_in\":48}}", NULL, NULL, &err), TT_OK);
    for (int i = 0; i < 50; i++) {
        rec_figure f = {"tag36h11", 7, 10 + i * 0.5, 20, 0, REC_SEEN, 0, 0, 0, 0};
        assert_int_equal(rec_frame(r, i, i * 100, &f, 1, &err), TT_OK);
    }
    assert_int_equal(rec_flush(r, &err), TT_OK);
    if (close_it)
        assert_int_equal(rec_close(r, &err), TT_OK);
    else
        _exit(0); /* like kill -9: the -wal and -shm files stay */
}

/* Run replay --json on `file` as a user who may not write it (nobody, when
 * the test runs as root); its bytes and the folder stay as they were. */
static void replay_unchanged(const char *file, int as_nobody)
{
    size_t n0, n1;
    char *before = hu_slurp(file, &n0);
    assert_non_null(before);
    char *argv[] = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", TT_BIN, "replay",
                    (char *)file, "--json", NULL};
    run_result r = run_cmd(as_nobody && getuid() == 0 ? argv : argv + 4, NULL);
    if (r.status != 0 || !strstr(r.out, "\"frame\""))
        fail_msg("replay %s: exit %d, stdout '%.200s', stderr '%.300s'", file, r.status, r.out, r.err);
    run_free(&r);
    char *after = hu_slurp(file, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before);
    free(after);
}

static void test_replay_never_writes(void **state)
{
    (void)state;
    /* A clean recording, writable: its bytes unchanged, no -wal or -shm made. */
    make_recording(hu_at("game.sqlite"), 1);
    replay_unchanged(hu_at("game.sqlite"), 0);
    struct stat sb;
    assert_int_equal(stat(hu_at("game.sqlite-wal"), &sb), -1);
    assert_int_equal(stat(hu_at("game.sqlite-shm"), &sb), -1);

    /* On read-only media: the file and its folder read-only. */
    assert_int_equal(mkdir(hu_at("ro"), 0755), 0);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chmod 0444 '%s' && chmod 0555 '%s' && chmod 0755 '%s'",
             hu_at("game.sqlite"), hu_at("ro/game.sqlite"), hu_at("ro/game.sqlite"), hu_at("ro"), hu_dir);
    assert_int_equal(system(cmd), 0);
    replay_unchanged(hu_at("ro/game.sqlite"), 1);

    /* A recording whose writer was killed (its -wal holds the frames). */
    pid_t pid = fork();
    if (pid == 0)
        make_recording(hu_at("killed.sqlite"), 0);
    int st;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(stat(hu_at("killed.sqlite-wal"), &sb), 0);
    size_t wn0, wn1;
    char *wal0 = hu_slurp(hu_at("killed.sqlite-wal"), &wn0);
    replay_unchanged(hu_at("killed.sqlite"), 0);
    char *wal1 = hu_slurp(hu_at("killed.sqlite-wal"), &wn1);
    assert_non_null(wal1);
    assert_int_equal(wn0, wn1);
    assert_memory_equal(wal0, wal1, wn0);
    free(wal0);
    free(wal1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_reader),
        cmocka_unit_test(test_rules_stdin_without_newline),
        cmocka_unit_test(test_tmp_names),
        cmocka_unit_test(test_planted_symlinks_are_not_followed),
        cmocka_unit_test(test_no_fixed_temporary_names_in_source),
        cmocka_unit_test(test_replay_never_writes),
    };
    return cmocka_run_group_tests(tests, hu_setup, hu_teardown);
}
