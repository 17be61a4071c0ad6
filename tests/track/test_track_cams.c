/* test_track_cams.c - 'tabletrack track' with a rig of two cameras (issue
 * 31) on rendered sequences: a 48x24 table seen by two 1280x720 cameras
 * side by side overlapping by 6", six anchors (each camera sees four).  A
 * figure slides across the seam; another stands in the overlap.  Checked:
 * one table (each figure once a frame, where it stands), the slider keeps
 * its id with no "removed" or "appeared", the rig's own sources, a camera
 * lost while the other goes on, and the bad inputs (sources not one per
 * camera, one source twice, a camera seeing fewer than four anchors). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <sqlite3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cvwrap.h"
#include "events_jsonl.h"
#include "game.h"
#include "render.h"
#include "run.h"

#define W 48.0
#define D 24.0
#define OVERLAP 6.0
#define NBASES 20
#define FRAMES 36
#define SLIDER 150  /* slides from (14, 16) to (34, 16), frames 6..26 */
#define MIDDLE 151  /* stands at (24, 8), in the overlap */
#define SLIDE_Y 16.0
#define SLIDE_FROM 6
#define SLIDE_TO 26

typedef struct cs_table {
    rnd_scene scene;
    rnd_camera cams[2];
    rnd_tag tags[8 + NBASES + 2];
    int ntags, nanchors;
} cs_table;

static char dir[256];
static cs_table T;

static double slider_x(int f)
{
    return f <= SLIDE_FROM ? 14 : f >= SLIDE_TO ? 34 : 14 + (f - SLIDE_FROM) * 20.0 / (SLIDE_TO - SLIDE_FROM);
}

/* The table: nanchors anchors, random bases kept off the slider's path
 * and the middle figure, then the slider and the middle figure. */
static int cs_make(cs_table *t, int nanchors, unsigned seed)
{
    memset(t, 0, sizeof *t);
    int n = rnd_standard_tags(t->tags, nanchors, NBASES, 1.2, 3, W, D, seed), m = nanchors;
    for (int i = nanchors; i < n; i++)
        if (fabs(t->tags[i].y - SLIDE_Y) > 3 && hypot(t->tags[i].x - 24, t->tags[i].y - 8) > 3)
            t->tags[m++] = t->tags[i];
    rnd_tag base = t->tags[nanchors]; /* a base's size, height and radius */
    t->tags[m] = base;
    t->tags[m].id = SLIDER;
    t->tags[m].x = slider_x(0);
    t->tags[m].y = SLIDE_Y;
    t->tags[m].facing_deg = 30;
    t->tags[++m] = base;
    t->tags[m].id = MIDDLE;
    t->tags[m].x = 24;
    t->tags[m].y = 8;
    t->tags[m].facing_deg = -120;
    t->ntags = m + 1;
    t->nanchors = nanchors;
    if (!rnd_cameras_side_by_side(t->cams, 2, W, D, OVERLAP, 1280, 720, 1000, -0.05, 0.01))
        return -1;
    t->scene = (rnd_scene){.width_in = W, .depth_in = D, .felt_gray = 90, .floor_gray = 40, .tags = t->tags,
                           .ntags = t->ntags, .light_gradient = 0.2, .ambient = 1, .blur_sigma_px = 0.6,
                           .noise_sigma = 2, .supersample = 2, .seed = seed};
    return 0;
}

static const rnd_tag *cs_tag(const cs_table *t, int id)
{
    for (int i = 0; i < t->ntags; i++)
        if (t->tags[i].id == id)
            return &t->tags[i];
    return NULL;
}

/* Render frames 0..nframes-1 of t into d/cam0/ and d/cam1/, and the rig
 * (camera0.yaml, camera1.yaml, rig.json; sources: the two globs, or none). */
static int cs_write(cs_table *t, const char *d, int nframes, int with_sources)
{
    char p[700], g0[700], g1[700];
    tt_err err = {0};
    const char *names[2] = {"camera0.yaml", "camera1.yaml"};
    snprintf(g0, sizeof g0, "%s/cam0/*.png", d);
    snprintf(g1, sizeof g1, "%s/cam1/*.png", d);
    const char *sources[2] = {g0, g1};
    for (int k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/cam%d", d, k);
        if (mkdir(p, 0755) != 0)
            return -1;
        snprintf(p, sizeof p, "%s/%s", d, names[k]);
        if (rnd_write_camera_yaml(&t->cams[k], p, &err) != TT_OK)
            return -1;
    }
    snprintf(p, sizeof p, "%s/rig.json", d);
    if (rnd_write_rig_cameras(p, names, with_sources ? sources : NULL, 2, &t->scene, t->nanchors, 1.2, 3, &err) !=
        TT_OK)
        return -1;
    rnd_tag *slider = (rnd_tag *)cs_tag(t, SLIDER);
    for (int f = 0; f < nframes; f++) {
        if (slider)
            slider->x = slider_x(f);
        for (int k = 0; k < 2; k++) {
            tt_image im = {0};
            t->scene.seed = 1000u * (unsigned)f + (unsigned)k; /* each frame and camera its own noise */
            snprintf(p, sizeof p, "%s/cam%d/frame_%04d.png", d, k, f);
            if (rnd_render_threads(&t->scene, &t->cams[k], 0, &im, &err) != TT_OK ||
                cvw_image_write(p, &im, &err) != TT_OK) {
                tt_image_free(&im);
                return -1;
            }
            tt_image_free(&im);
        }
    }
    if (slider)
        slider->x = slider_x(0);
    return 0;
}

static int setup_all(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tt_track_cams_XXXXXX");
    if (!mkdtemp(dir) || cs_make(&T, 6, 31) != 0)
        return -1;
    return cs_write(&T, dir, FRAMES, 0);
}

static int teardown_all(void **state)
{
    (void)state;
    char cmd[400];
    if (getenv("TT_TEST_KEEP")) { /* to look at the frames and events */
        print_message("kept %s\n", dir);
        return 0;
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Run tabletrack with args (NULL-terminated, after "track"). */
static run_result track(const char *const *args)
{
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)TT_BIN;
    argv[n++] = (char *)"track";
    for (int i = 0; args[i] && n < 31; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    return run_cmd(argv, NULL);
}

static int count_events(json_t *lines, const char *kind, int id)
{
    int n = 0;
    size_t i;
    json_t *l;
    json_array_foreach(lines, i, l) {
        const char *e = json_string_value(json_object_get(l, "event"));
        if (e && !strcmp(e, kind) && (id < 0 || json_integer_value(json_object_get(l, "id")) == id))
            n++;
    }
    return n;
}

/* How often id is in frame line fr (each figure once a frame). */
static int times_in(json_t *fr, int id)
{
    int n = 0;
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(fr, "figures"), i, f) n += json_integer_value(json_object_get(f, "id")) == id;
    return n;
}

static double off(json_t *f, double x, double y)
{
    return hypot(json_real_value(json_object_get(f, "x")) - x, json_real_value(json_object_get(f, "y")) - y);
}

static const char *state_of(json_t *f)
{
    return f ? json_string_value(json_object_get(f, "state")) : "absent";
}

/* The slider across the seam: one figure all along, seen, where it is. */
static void check_slider(json_t *lines)
{
    size_t i;
    json_t *l;
    int frames = 0;
    double worst = 0;
    json_array_foreach(lines, i, l) {
        if (!json_object_get(l, "figures"))
            continue;
        int f = (int)json_integer_value(json_object_get(l, "frame"));
        json_t *s = figure_in(l, SLIDER);
        frames++;
        assert_true(times_in(l, SLIDER) <= 1);
        if (!s)
            continue;
        if (strcmp(state_of(s), "seen") != 0) {
            print_error("frame %d: the slider at x %.1f is %s\n", f, slider_x(f), state_of(s));
            fail();
        }
        double e = off(s, slider_x(f), SLIDE_Y);
        worst = fmax(worst, e);
        if (e > 0.05) {
            print_error("frame %d: the slider is %.4f\" off (x %.2f)\n", f, e, slider_x(f));
            fail();
        }
    }
    print_message("slider: %d frames, worst %.4f\" off\n", frames, worst);
    assert_int_equal(frames, FRAMES);
    assert_int_equal(count_events(lines, "appeared", SLIDER), 1);
    assert_int_equal(count_events(lines, "removed", SLIDER), 0);
    assert_int_equal(count_events(lines, "removed", -1), 0);
    assert_true(count_events(lines, "moved", SLIDER) >= 1);
    /* the last moved lands where it stopped */
    json_t *last = NULL;
    json_array_foreach(lines, i, l) {
        const char *e = json_string_value(json_object_get(l, "event"));
        if (e && !strcmp(e, "moved") && json_integer_value(json_object_get(l, "id")) == SLIDER)
            last = l;
    }
    json_t *to = json_object_get(last, "to");
    assert_true(hypot(json_real_value(json_array_get(to, 0)) - 34, json_real_value(json_array_get(to, 1)) - SLIDE_Y) <
                0.02);
}

/* Every figure in the last frame once, where it stands; the middle one
 * (in the overlap, seen by both) within 0.01". */
static void check_table(json_t *lines)
{
    json_t *fr = NULL;
    size_t i;
    json_t *l;
    json_array_foreach(lines, i, l) if (json_object_get(l, "figures")) fr = l;
    assert_non_null(fr);
    double sum = 0;
    int n = 0;
    for (int k = T.nanchors; k < T.ntags; k++) {
        const rnd_tag *t = &T.tags[k];
        double x = t->id == SLIDER ? slider_x(FRAMES - 1) : t->x;
        json_t *f = figure_in(fr, t->id);
        assert_int_equal(times_in(fr, t->id), 1);
        assert_string_equal(state_of(f), "seen");
        double e = off(f, x, t->y);
        if (e > 0.03)
            print_error("figure %d at (%.2f, %.2f): %.4f\" off\n", t->id, x, t->y, e);
        assert_true(e < 0.03);
        sum += e * e;
        n++;
    }
    double mid = off(figure_in(fr, MIDDLE), 24, 8);
    print_message("last frame: %d figures, rms %.4f\", the middle figure %.4f\" off (err95 %.4f)\n", n, sqrt(sum / n),
                  mid, json_real_value(json_object_get(figure_in(fr, MIDDLE), "err95_in")));
    assert_true(mid < 0.01);
    assert_true(sqrt(sum / n) < 0.015);
}

static void test_seam(void **state)
{
    (void)state;
    char rig[400], s0[400], s1[400], ev[400];
    snprintf(rig, sizeof rig, "%s/rig.json", dir);
    snprintf(s0, sizeof s0, "%s/cam0/*.png", dir);
    snprintf(s1, sizeof s1, "%s/cam1/*.png", dir);
    snprintf(ev, sizeof ev, "%s/seam.jsonl", dir);
    run_result r = track((const char *[]){"--rig", rig, "--source", s0, "--source", s1, "--events", ev, NULL});
    if (r.status != 0)
        print_error("%s\n", r.err);
    assert_int_equal(r.status, 0);
    json_t *lines = read_jsonl(ev);
    check_slider(lines);
    check_table(lines);
    json_decref(lines);
    run_free(&r);
}

/* Without --source: each camera's "source" in the rig; the recording
 * keeps which cameras the table had (the session's rig with each camera's
 * source, and its source naming both). */
static void test_rig_sources(void **state)
{
    (void)state;
    char d[400], rig[500], ev[500], rec[500], g0[500], g1[500];
    snprintf(d, sizeof d, "%s/withsrc", dir);
    assert_int_equal(mkdir(d, 0755), 0);
    assert_int_equal(cs_write(&T, d, 3, 1), 0);
    snprintf(rig, sizeof rig, "%s/rig.json", d);
    snprintf(ev, sizeof ev, "%s/ev.jsonl", d);
    snprintf(rec, sizeof rec, "%s/game.sqlite", d);
    snprintf(g0, sizeof g0, "%s/cam0/*.png", d);
    snprintf(g1, sizeof g1, "%s/cam1/*.png", d);
    run_result r = track((const char *[]){"--rig", rig, "--events", ev, "--record", rec, NULL});
    if (r.status != 0)
        print_error("%s\n", r.err);
    assert_int_equal(r.status, 0);
    json_t *lines = read_jsonl(ev), *last = json_array_get(lines, json_array_size(lines) - 1);
    assert_int_equal(json_integer_value(json_object_get(last, "frame")), 2);
    assert_true(off(figure_in(last, MIDDLE), 24, 8) < 0.01);
    json_decref(lines);
    run_free(&r);

    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_open_v2(rec, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT source, rig_json FROM session", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    char want[1100];
    snprintf(want, sizeof want, "%s; %s", g0, g1);
    assert_string_equal((const char *)sqlite3_column_text(q, 0), want);
    json_t *rj = json_loads((const char *)sqlite3_column_text(q, 1), 0, NULL);
    json_t *cams = json_object_get(rj, "cameras");
    assert_int_equal(json_array_size(cams), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(cams, 0), "camera")), "camera0.yaml");
    assert_string_equal(json_string_value(json_object_get(json_array_get(cams, 0), "source")), g0);
    assert_string_equal(json_string_value(json_object_get(json_array_get(cams, 1), "source")), g1);
    json_decref(rj);
    sqlite3_finalize(q);
    sqlite3_close(db);
}

/* Camera 2 lost at its frame 12 and never back: told, naming it; camera
 * 1's figures go on being seen, camera 2's alone are kept (occluded), none
 * removed; the game ends when camera 1's frames do. */
static void test_camera_lost(void **state)
{
    (void)state;
    char rig[400], s0[400], s1[400], ev[400];
    snprintf(rig, sizeof rig, "%s/rig.json", dir);
    snprintf(s0, sizeof s0, "%s/cam0/*.png", dir);
    snprintf(s1, sizeof s1, "fault:lose=12,for=-1:%s/cam1/*.png", dir);
    snprintf(ev, sizeof ev, "%s/lost.jsonl", dir);
    run_result r = track((const char *[]){"--rig", rig, "--source", s0, "--source", s1, "--events", ev, NULL});
    if (r.status != 0)
        print_error("%s\n", r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "camera 2 (camera1.yaml) lost: the other cameras go on"));
    json_t *lines = read_jsonl(ev), *fr = NULL, *cam = NULL;
    size_t i;
    json_t *l;
    json_array_foreach(lines, i, l) {
        const char *e = json_string_value(json_object_get(l, "event"));
        if (e && !strcmp(e, "camera"))
            cam = l;
        if (json_object_get(l, "figures"))
            fr = l;
    }
    assert_non_null(cam);
    assert_string_equal(json_string_value(json_object_get(cam, "state")), "lost");
    assert_int_equal(json_integer_value(json_object_get(cam, "camera")), 1);
    assert_string_equal(json_string_value(json_object_get(cam, "name")), "camera 2 (camera1.yaml)");
    assert_int_equal(json_integer_value(json_object_get(cam, "frame")), 11);
    assert_int_equal(json_integer_value(json_object_get(fr, "frame")), FRAMES - 1);
    assert_int_equal(count_events(lines, "removed", -1), 0);
    int left = 0, right = 0;
    for (int k = T.nanchors; k < T.ntags; k++) {
        const rnd_tag *t = &T.tags[k];
        if (t->id == SLIDER)
            continue;
        json_t *f = figure_in(fr, t->id);
        if (t->x < 19) { /* camera 1's alone: seen to the end */
            assert_string_equal(state_of(f), "seen");
            assert_true(off(f, t->x, t->y) < 0.03);
            left++;
        } else if (t->x > 29) { /* camera 2's alone: kept where it was */
            assert_string_equal(state_of(f), "occluded");
            assert_true(off(f, t->x, t->y) < 0.03);
            right++;
        }
    }
    print_message("camera 2 lost: %d figures of camera 1 seen, %d of camera 2 kept\n", left, right);
    assert_true(left >= 2 && right >= 2);
    json_decref(lines);
    run_free(&r);
}

/* The mean gray of the table picture over x0..x1 inches, all its depth. */
static double strip_gray(const tt_image *im, double ppi, double x0, double x1)
{
    double sum = 0;
    long n = 0;
    for (int y = 0; y < im->height; y++)
        for (int x = (int)(x0 * ppi); x < (int)(x1 * ppi) && x < im->width; x++, n++)
            sum += im->data[(size_t)y * im->stride + (size_t)x];
    return n ? sum / n : 0;
}

/* /api/table.png's picture (game_table_png) from two cameras: the table
 * whole, each half from its own camera (the felt, not black, on both). */
static void test_table_picture(void **state)
{
    (void)state;
    char rig[400], s0[400], s1[400];
    snprintf(rig, sizeof rig, "%s/rig.json", dir);
    snprintf(s0, sizeof s0, "%s/cam0/*.png", dir);
    snprintf(s1, sizeof s1, "%s/cam1/*.png", dir);
    const char *sources[2] = {s0, s1};
    game_opts o = {.rig = rig, .source = s0, .sources = sources, .nsources = 2, .max_frames = 3, .grace = 45,
                   .threads = 2, .feed = 1};
    game *g = NULL;
    tt_err err = {0};
    if (game_create(&o, &g, &err) != TT_OK || game_run(g, &err) != TT_OK)
        fail_msg("%s", err.msg);
    unsigned char *png = NULL;
    size_t len = 0;
    tt_image im = {0};
    assert_int_equal(game_table_png(g, 10, &png, &len, &err), TT_OK);
    assert_int_equal(cvw_image_decode(png, len, 1, &im, &err), TT_OK);
    assert_int_equal(im.width, 480);
    assert_int_equal(im.height, 240);
    double left = strip_gray(&im, 10, 6, 12), right = strip_gray(&im, 10, 36, 42);
    print_message("table picture: left strip %.0f, right strip %.0f gray\n", left, right);
    assert_true(left > 50 && right > 50);
    tt_image_free(&im);
    free(png);
    assert_int_equal(game_close(g, &err), TT_OK);
    game_destroy(g);
}

static void expect_refusal(const char *const *args, const char *const *words)
{
    run_result r = track(args);
    assert_int_not_equal(r.status, 0);
    for (int i = 0; words[i]; i++)
        if (!strstr(r.err, words[i])) {
            print_error("'%s' not in: %s\n", words[i], r.err);
            fail();
        }
    run_free(&r);
}

static void test_bad_sources(void **state)
{
    (void)state;
    char rig[400], s0[400], s0b[400];
    snprintf(rig, sizeof rig, "%s/rig.json", dir);
    snprintf(s0, sizeof s0, "%s/cam0/*.png", dir);
    snprintf(s0b, sizeof s0b, "%s/../%s/cam0/*.png", dir, strrchr(dir, '/') + 1);
    /* one source for two cameras, and three */
    expect_refusal((const char *[]){"--rig", rig, "--source", s0, NULL},
                   (const char *[]){"has 2 cameras (camera 1 (camera0.yaml), camera 2 (camera1.yaml))",
                                    "1 --source was given", "once per camera", NULL});
    expect_refusal((const char *[]){"--rig", rig, "--source", s0, "--source", s0b, "--source", s0, NULL},
                   (const char *[]){"3 --source were given", NULL});
    /* no --source, and the rig gives none */
    expect_refusal((const char *[]){"--rig", rig, NULL},
                   (const char *[]){"no --source given and camera 1 (camera0.yaml) has no \"source\"", NULL});
    /* one source twice: as written, and the same files another way */
    expect_refusal((const char *[]){"--rig", rig, "--source", s0, "--source", s0, NULL},
                   (const char *[]){"camera 1 (camera0.yaml) and camera 2 (camera1.yaml) are both given the source",
                                    "each camera needs its own source", NULL});
}

/* Five anchors: each camera sees three. */
static void test_few_anchors(void **state)
{
    (void)state;
    cs_table t5;
    char d[400], rig[500], s0[500], s1[500];
    snprintf(d, sizeof d, "%s/five", dir);
    assert_int_equal(mkdir(d, 0755), 0);
    assert_int_equal(cs_make(&t5, 5, 7), 0);
    assert_int_equal(cs_write(&t5, d, 2, 0), 0);
    snprintf(rig, sizeof rig, "%s/rig.json", d);
    snprintf(s0, sizeof s0, "%s/cam0/*.png", d);
    snprintf(s1, sizeof s1, "%s/cam1/*.png", d);
    expect_refusal((const char *[]){"--rig", rig, "--source", s0, "--source", s1, NULL},
                   (const char *[]){"camera 1 (camera0.yaml) sees only 3 anchors (tag36h11 0, 3, 4)",
                                    "at least 4 anchors", NULL});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seam),        cmocka_unit_test(test_rig_sources), cmocka_unit_test(test_camera_lost),
        cmocka_unit_test(test_bad_sources), cmocka_unit_test(test_few_anchors), cmocka_unit_test(test_table_picture),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
