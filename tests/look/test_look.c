/* test_look.c - every answer kind looks as it did before its look moved
 * into one place (issue 32): the projector image of 'tabletrack overlay',
 * its --on-camera view, and the replay's video frames and the drawing
 * primitives the replay page reads, compared pixel for pixel (and value for
 * value) with references made by the code before the change
 * (tests/data/look/).  The same build draws the same pixels: cairo and our
 * own rasterisers are deterministic, so any difference is a change of look.
 * TT_LOOK_WRITE=1 rewrites the references instead (only when a change of
 * look is meant, with the reason in the commit). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <cairo.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cvwrap.h"
#include "rec.h"
#include "rec_draw.h" /* the replay's video frame, drawn at one moment */
#include "run.h"

#define REF_DIR TT_SOURCE_DIR "/tests/data/look"
#define SCEN TT_SOURCE_DIR "/samples/scenarios/into-the-breach-farm.json"
#define RIG TT_SOURCE_DIR "/samples/table/rig.json"
#define FRAME TT_SOURCE_DIR "/samples/table/frame.png"

/* A small flat projector: 10 px an inch, the table 20 px in. */
#define PJ_JSON "{\"width\":760,\"height\":520,\"table_to_projector\":[[10,0,20],[0,10,20],[0,0,1]]}"

typedef struct group {
    const char *name;
    int cite;
    const char *q[6];
} group;

/* Every answer kind the projector draws, a few to a picture. */
static const group GROUPS[] = {
    {"sight",
     0,
     {"{\"q\":\"los\",\"from\":\"m1\",\"to\":\"f2\"}", "{\"q\":\"los\",\"from\":\"m1\",\"to\":\"f3\"}",
      "{\"q\":\"fire\",\"from\":\"m1\",\"to\":\"f1\"}", "{\"q\":\"aspect\",\"from\":\"f3\",\"to\":\"f1\"}", NULL}},
    {"guns",
     0,
     {"{\"q\":\"grape\",\"from\":\"gun1\"}", "{\"q\":\"ball\",\"from\":\"gun1\",\"to\":\"f2\"}",
      "{\"q\":\"blast\",\"at\":[17,23],\"weapon\":\"mortar\"}", NULL}},
    {"unit",
     0,
     {"{\"q\":\"fire\",\"from\":\"grenadiers\",\"to\":\"voltigeurs\"}", "{\"q\":\"command\",\"from\":\"gen\"}",
      NULL}},
    {"area", 0, {"{\"q\":\"visibility\",\"from\":\"f3\"}", "{\"q\":\"blast\",\"at\":[46,24],\"radius_in\":3}", NULL}},
    {"moves",
     0,
     {"{\"q\":\"charge\",\"from\":\"m1\",\"to\":\"f1\",\"roll\":4}", "{\"q\":\"charge\",\"from\":\"m2\",\"to\":\"f3\",\"roll\":3}",
      "{\"q\":\"move\",\"from\":\"gen\",\"to\":[8,40]}", NULL}},
    {"deviate",
     0,
     {"{\"q\":\"deviate\",\"from\":\"mortar1\",\"at\":[45,20],\"dice\":{\"long_short\":6,\"left_right\":1,"
      "\"long_short_in\":3,\"left_right_in\":6}}",
      NULL}},
    {"cite",
     1,
     {"{\"q\":\"fire\",\"from\":\"m1\",\"to\":\"f1\"}", "{\"q\":\"command\",\"from\":\"gen\"}",
      "{\"q\":\"blast\",\"at\":[60,30],\"weapon\":\"mortar\"}", NULL}},
};
#define NGROUPS ((int)(sizeof GROUPS / sizeof GROUPS[0]))

static char tmpdir[] = "/tmp/tt_look_XXXXXX";

static const char *tpath(const char *name)
{
    static char buf[8][512];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

static int writing(void)
{
    const char *w = getenv("TT_LOOK_WRITE");
    return w && !strcmp(w, "1");
}

/* The image at path equals the reference ref_name (pixel for pixel), or,
 * when writing, becomes it.  A difference keeps the new image beside the
 * test's build folder to look at. */
static void same_as_ref(cairo_surface_t *got, const char *ref_name)
{
    char ref[512];
    snprintf(ref, sizeof ref, "%s/%s", REF_DIR, ref_name);
    if (writing()) {
        assert_int_equal(cairo_surface_write_to_png(got, ref), CAIRO_STATUS_SUCCESS);
        print_message("wrote %s\n", ref);
        return;
    }
    cairo_surface_t *want = cairo_image_surface_create_from_png(ref);
    if (cairo_surface_status(want) != CAIRO_STATUS_SUCCESS)
        fail_msg("cannot read the reference %s", ref);
    cairo_surface_flush(got);
    int w = cairo_image_surface_get_width(got), h = cairo_image_surface_get_height(got);
    assert_int_equal(cairo_image_surface_get_width(want), w);
    assert_int_equal(cairo_image_surface_get_height(want), h);
    /* RGB24 keeps no alpha: compare what each format holds */
    uint32_t mask_got = cairo_image_surface_get_format(got) == CAIRO_FORMAT_RGB24 ? 0xffffffu : 0xffffffffu;
    uint32_t mask_want = cairo_image_surface_get_format(want) == CAIRO_FORMAT_RGB24 ? 0xffffffu : 0xffffffffu;
    uint32_t mask = mask_got & mask_want;
    long differ = 0;
    int maxd = 0;
    const unsigned char *a = cairo_image_surface_get_data(got), *b = cairo_image_surface_get_data(want);
    int sa = cairo_image_surface_get_stride(got), sb = cairo_image_surface_get_stride(want);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t pa = ((const uint32_t *)(a + (size_t)y * sa))[x] & mask;
            uint32_t pb = ((const uint32_t *)(b + (size_t)y * sb))[x] & mask;
            if (pa == pb)
                continue;
            differ++;
            for (int c = 0; c < 32; c += 8) {
                int d = abs((int)((pa >> c) & 255) - (int)((pb >> c) & 255));
                if (d > maxd)
                    maxd = d;
            }
        }
    cairo_surface_destroy(want);
    if (differ) {
        char keep[512];
        snprintf(keep, sizeof keep, "%s/got_%s", TT_OUT_DIR, ref_name);
        cairo_surface_write_to_png(got, keep);
        fail_msg("%s: %ld pixels differ (by up to %d of 255) from the reference; the new image is %s", ref_name, differ,
                 maxd, keep);
    }
}

static void same_json_as_ref(json_t *got, const char *ref_name)
{
    char ref[512];
    snprintf(ref, sizeof ref, "%s/%s", REF_DIR, ref_name);
    if (writing()) {
        assert_int_equal(json_dump_file(got, ref, JSON_INDENT(1) | JSON_REAL_PRECISION(12)), 0);
        print_message("wrote %s\n", ref);
        return;
    }
    json_error_t je;
    json_t *want = json_load_file(ref, 0, &je);
    if (!want)
        fail_msg("cannot read the reference %s: %s", ref, je.text);
    /* through the same printing as the reference, so numbers compare as written */
    char *gs = json_dumps(got, JSON_INDENT(1) | JSON_REAL_PRECISION(12));
    char *ws = json_dumps(want, JSON_INDENT(1) | JSON_REAL_PRECISION(12));
    int same = gs && ws && !strcmp(gs, ws);
    if (!same)
        print_message("got:\n%s\nwant:\n%s\n", gs ? gs : "(null)", ws ? ws : "(null)");
    free(gs);
    free(ws);
    json_decref(want);
    assert_true(same);
}

/* ---- the projector image and its answers ---- */

/* Answers of every group, in order (from the runs of the projector test). */
static json_t *answers[NGROUPS];

static void run_overlay(const group *gr, const char *out, const char *on_camera, run_result *r)
{
    char *argv[40];
    int n = 0;
    argv[n++] = TT_BIN;
    argv[n++] = "overlay";
    argv[n++] = "--rig";
    argv[n++] = RIG;
    argv[n++] = "--scenario";
    argv[n++] = SCEN;
    if (on_camera) {
        argv[n++] = "--on-camera";
        argv[n++] = (char *)on_camera;
    } else {
        argv[n++] = "--projector";
        argv[n++] = (char *)tpath("pj.json");
    }
    for (int i = 0; gr->q[i]; i++) {
        argv[n++] = "--query";
        argv[n++] = (char *)gr->q[i];
    }
    if (gr->cite)
        argv[n++] = "--cite";
    argv[n++] = "--out";
    argv[n++] = (char *)out;
    argv[n] = NULL;
    *r = run_cmd(argv, NULL);
    if (r->status != 0)
        fail_msg("overlay (%s) exit %d: %s", gr->name, r->status, r->err);
}

static void test_projector(void **state)
{
    (void)state;
    FILE *f = fopen(tpath("pj.json"), "w");
    assert_non_null(f);
    fputs(PJ_JSON, f);
    fclose(f);
    for (int g = 0; g < NGROUPS; g++) {
        char name[64], png[64];
        snprintf(png, sizeof png, "%s.png", GROUPS[g].name);
        run_result r;
        run_overlay(&GROUPS[g], tpath(png), NULL, &r);
        /* one answer a line, in the order asked */
        json_t *list = json_array();
        char *save = NULL;
        for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            json_t *a = json_loads(line, 0, NULL);
            assert_non_null(a);
            json_array_append_new(list, a);
        }
        run_free(&r);
        int nq = 0;
        while (GROUPS[g].q[nq])
            nq++;
        assert_int_equal((int)json_array_size(list), nq);
        answers[g] = list;
        cairo_surface_t *s = cairo_image_surface_create_from_png(tpath(png));
        assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
        snprintf(name, sizeof name, "projector_%s.png", GROUPS[g].name);
        same_as_ref(s, name);
        cairo_surface_destroy(s);
    }
}

/* ---- overlay --on-camera ---- */

/* The view where it differs from the camera frame (opaque there, clear
 * elsewhere): equal to the reference exactly when the whole view is. */
static void test_on_camera(void **state)
{
    (void)state;
    const group gr = {"camera",
                      0,
                      {"{\"q\":\"ball\",\"from\":\"gun1\",\"to\":\"f2\"}", "{\"q\":\"los\",\"from\":\"m1\",\"to\":\"f2\"}",
                       "{\"q\":\"grape\",\"from\":\"gun1\"}", "{\"q\":\"charge\",\"from\":\"m1\",\"to\":\"f1\",\"roll\":4}",
                       NULL}};
    run_result r;
    run_overlay(&gr, tpath("view.png"), FRAME, &r);
    run_free(&r);
    tt_image frame = {0};
    tt_err err = {0};
    assert_int_equal(cvw_image_read(FRAME, 3, &frame, &err), TT_OK);
    cairo_surface_t *view = cairo_image_surface_create_from_png(tpath("view.png"));
    assert_int_equal(cairo_surface_status(view), CAIRO_STATUS_SUCCESS);
    int w = cairo_image_surface_get_width(view), h = cairo_image_surface_get_height(view);
    assert_int_equal(w, frame.width);
    assert_int_equal(h, frame.height);
    cairo_surface_t *d = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    const unsigned char *vd = cairo_image_surface_get_data(view);
    unsigned char *dd = cairo_image_surface_get_data(d);
    int vs = cairo_image_surface_get_stride(view), ds = cairo_image_surface_get_stride(d);
    long lit = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t v = ((const uint32_t *)(vd + (size_t)y * vs))[x] & 0xffffffu;
            const uint8_t *p = frame.data + (size_t)y * frame.stride + (size_t)x * 3; /* BGR */
            uint32_t fr = (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
            int differs = v != fr;
            lit += differs;
            ((uint32_t *)(dd + (size_t)y * ds))[x] = differs ? 0xff000000u | v : 0;
        }
    cairo_surface_mark_dirty(d);
    assert_true(lit > 1000); /* the answers are drawn */
    same_as_ref(d, "camera_view_diff.png");
    cairo_surface_destroy(d);
    cairo_surface_destroy(view);
    tt_image_free(&frame);
}

/* ---- the replay: the answers recorded, drawn at their moment ---- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

static void test_replay(void **state)
{
    (void)state;
    if (!answers[0])
        skip(); /* the projector test gives the answers */
    /* the scenario, every figure with a tag (1, 2, ...) so the replay
     * tracks them all */
    char *text = slurp(SCEN);
    json_t *sc = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(sc);
    json_t *tags = json_object(), *figs = json_object_get(sc, "figures");
    size_t nf = json_array_size(figs);
    for (size_t i = 0; i < nf; i++) {
        char k[24];
        snprintf(k, sizeof k, "%zu", i + 1);
        json_object_set(tags, k, json_object_get(json_array_get(figs, i), "id"));
    }
    json_object_set_new(sc, "tags", tags);
    char *sctext = json_dumps(sc, JSON_COMPACT);
    rec_figure *rf = calloc(nf, sizeof *rf);
    for (size_t i = 0; i < nf; i++) {
        const json_t *f = json_array_get(figs, i);
        rf[i] = (rec_figure){"tag36h11", (int)i + 1, json_number_value(json_object_get(f, "x")),
                             json_number_value(json_object_get(f, "y")),
                             json_number_value(json_object_get(f, "facing_deg")), REC_SEEN, 0, 0, 0, 0};
    }
    tt_err err = {0};
    rec *r = NULL;
    assert_int_equal(rec_open(tpath("game.sqlite"), REC_CREATE_NEW, &r, &err), TT_OK);
    rec_meta meta = {"look test", "answers of every kind"};
    assert_int_equal(rec_session_begin(r, NULL, sctext, &meta, &err), TT_OK);
    /* group g asked at 10 s * (g + 1); a frame every second */
    long long end = 10000LL * (NGROUPS + 1);
    for (long fr = 0; fr * 1000 <= end; fr++) {
        if (rec_frame(r, fr, fr * 1000, rf, nf, &err) != TT_OK)
            fail_msg("frame %ld: %s", fr, err.msg);
        int g = (int)(fr / 10) - 1;
        if (fr % 10 == 0 && g >= 0 && g < NGROUPS)
            for (int i = 0; GROUPS[g].q[i]; i++) {
                char *a = json_dumps(json_array_get(answers[g], (size_t)i), JSON_COMPACT);
                assert_int_equal(rec_query(r, fr, fr * 1000, GROUPS[g].q[i], a, &err), TT_OK);
                free(a);
            }
    }
    assert_int_equal(rec_close(r, &err), TT_OK);
    free(rf);
    free(sctext);
    json_decref(sc);

    rec_game *gm = NULL;
    assert_int_equal(rec_game_load(tpath("game.sqlite"), 1, -1, -1, &gm, &err), TT_OK);
    json_t *prims = json_object();
    for (int g = 0; g < NGROUPS; g++) {
        long long t = 10000LL * (g + 1) + 500;
        cairo_surface_t *s = rec__draw_still(gm, t, 640, CAIRO_FORMAT_RGB24);
        assert_non_null(s);
        char name[64];
        snprintf(name, sizeof name, "replay_%s.png", GROUPS[g].name);
        same_as_ref(s, name);
        cairo_surface_destroy(s);
    }
    /* what the replay page draws: each answer's primitives */
    for (size_t i = 0; i < gm->nqueries; i++) {
        char k[24];
        snprintf(k, sizeof k, "%zu", i);
        json_object_set(prims, k, gm->queries[i].overlay);
    }
    assert_int_equal((int)json_object_size(prims), 18);
    same_json_as_ref(prims, "replay_primitives.json");
    json_decref(prims);
    rec_game_destroy(gm);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(tmpdir))
        return -1;
    if (writing())
        mkdir(REF_DIR, 0755);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    for (int g = 0; g < NGROUPS; g++)
        json_decref(answers[g]);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_projector),
        cmocka_unit_test(test_on_camera),
        cmocka_unit_test(test_replay),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
