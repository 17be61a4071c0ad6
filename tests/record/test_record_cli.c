/* test_record_cli.c - 'tabletrack replay' through the real binary: the
 * three outputs, time ranges, sessions, usage errors (exit 2) and bad
 * recordings (exit 1, a clear message, no output file). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rec_fixture.h"
#include "run.h"
#include "test_util.h"

typedef struct fix {
    tu_dir d;
    char *game;
} fix;

static int setup(void **state)
{
    fix *f = calloc(1, sizeof *f);
    f->d = tu_dir_make();
    f->game = tu_path(&f->d, "game.sqlite");
    tt_err err = {0};
    if (fixture_record(f->game, REC_CREATE_NEW, &err) != TT_OK) {
        fprintf(stderr, "fixture: %s\n", err.msg);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fix *f = *state;
    free(f->game);
    tu_dir_remove(&f->d);
    free(f);
    return 0;
}

static run_result replay(const char *a1, const char *a2, const char *a3, const char *a4, const char *a5,
                         const char *a6)
{
    char *argv[] = {TT_BIN, "replay", (char *)a1, (char *)a2, (char *)a3, (char *)a4, (char *)a5, (char *)a6, NULL};
    return run_cmd(argv, NULL);
}

static void test_json(void **state)
{
    fix *f = *state;
    run_result r = replay(f->game, "--json", NULL, NULL, NULL, NULL);
    assert_int_equal(r.status, 0);
    int lines = 0, frames = 0;
    for (char *p = r.out, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
        *nl = '\0';
        json_t *j = json_loads(p, 0, NULL);
        assert_non_null(j);
        if (json_object_get(j, "figures"))
            frames++;
        json_decref(j);
        lines++;
    }
    assert_true(lines > 10 && frames > 10);
    run_free(&r);
    /* a range in mm:ss and seconds */
    r = replay(f->game, "--json", "--from", "0:08.5", "--to", "12");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"keyframe\":true"));
    assert_non_null(strstr(r.out, "\"from_ms\":8500,\"to_ms\":12000"));
    run_free(&r);
}

static void test_html_and_video(void **state)
{
    fix *f = *state;
    char *html = tu_path(&f->d, "replay.html"), *avi = tu_path(&f->d, "replay.avi");
    run_result r = replay(f->game, "--html", html, "--from", "5", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "wrote"));
    size_t n;
    char *text = tu_read(html, &n);
    assert_non_null(text);
    assert_true(n > 10000);
    assert_non_null(strstr(text, "\"t0\":5000"));
    free(text);
    run_free(&r);
    char *argv[] = {TT_BIN, "replay", f->game, "--video", avi, "--width", "320", "--fps", "5", "--speed", "4", NULL};
    r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("video: %s", r.err);
    struct stat sb;
    assert_int_equal(stat(avi, &sb), 0);
    assert_true(sb.st_size > 1000);
    run_free(&r);
    free(html);
    free(avi);
}

static void test_usage(void **state)
{
    fix *f = *state;
    run_result r = replay(NULL, NULL, NULL, NULL, NULL, NULL);
    assert_int_equal(r.status, 2);
    run_free(&r);
    r = replay(f->game, NULL, NULL, NULL, NULL, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--html"));
    run_free(&r);
    r = replay(f->game, "--json", "--from", "soon", NULL, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "mm:ss"));
    run_free(&r);
    r = replay(f->game, "--json", "--from", "10", "--to", "5");
    assert_int_equal(r.status, 2);
    run_free(&r);
    r = replay(f->game, "--json", "--from", "5:00", NULL, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "after the end"));
    run_free(&r);
    r = replay(f->game, "--json", "--session", "4", NULL, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "no session 4"));
    run_free(&r);
    r = replay(f->game, "--bogus", NULL, NULL, NULL, NULL);
    assert_int_equal(r.status, 2);
    run_free(&r);
    r = replay("--help", NULL, NULL, NULL, NULL, NULL);
    assert_int_equal(r.status, 0);
    run_free(&r);
}

/* A bad recording: exit 1, the message, and no output file. */
static void expect_bad(fix *f, const char *db, const char *needle)
{
    char *html = tu_path(&f->d, "bad.html");
    tu_sum before = tu_file_sum(db);
    run_result r = replay(db, "--html", html, "--json", NULL, NULL);
    assert_int_equal(r.status, 1);
    if (!strstr(r.err, needle))
        fail_msg("expected '%s' in: %s", needle, r.err);
    assert_string_equal(r.out, "");
    assert_int_not_equal(access(html, F_OK), 0);
    assert_true(tu_sum_equal(before, tu_file_sum(db)));
    run_free(&r);
    free(html);
}

static void test_bad_recordings(void **state)
{
    fix *f = *state;
    char *txt = tu_path(&f->d, "notes.sqlite");
    tu_write(txt, "hello, this is not a database at all, just some text\n", 53);
    expect_bad(f, txt, "not a tabletrack recording");
    char *missing = tu_path(&f->d, "missing.sqlite");
    expect_bad(f, missing, "cannot open recording");

    char *newer = tu_path(&f->d, "newer.sqlite");
    tt_err err = {0};
    assert_int_equal(fixture_record(newer, REC_CREATE_NEW, &err), TT_OK);
    /* user_version is bytes 60..63 of the header (the file is closed, no WAL) */
    FILE *fp = fopen(newer, "r+b");
    assert_non_null(fp);
    unsigned char v[4] = {0, 0, 0, 9};
    fseek(fp, 60, SEEK_SET);
    fwrite(v, 1, 4, fp);
    fclose(fp);
    expect_bad(f, newer, "newer tabletrack");

    char *cut = tu_path(&f->d, "cut.sqlite");
    size_t n;
    char *bytes = tu_read(f->game, &n);
    tu_write(cut, bytes, n * 2 / 3);
    free(bytes);
    expect_bad(f, cut, "truncated");
    free(txt);
    free(missing);
    free(newer);
    free(cut);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_html_and_video),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_bad_recordings),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
