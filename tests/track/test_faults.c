/* test_faults.c - 'tabletrack track' on rendered sequences with faults
 * (issue 13, "Bad input and faults"):
 * - a tag id seen twice in one frame (two printed copies): warned once, the
 *   figure stays where it was (identities never swap, no false move);
 * - a figure leaving the table's edge: followed to the edge, removed once,
 *   the others undisturbed;
 * - the lights going off (all-black frames), then on again: the figures
 *   are still there and are not announced again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cvwrap.h"
#include "events_jsonl.h"
#include "run.h"
#include "seq.h"

#define NFRAMES 24

static char dir[256];
static seq S;

typedef enum { FAULT_TWICE, FAULT_EDGE, FAULT_DARK } fault_kind;

/* The scene of frame f under a fault: fills tags (room for S.ntags + 1),
 * returns their count; *dark: render the frame black. */
static int fault_frame(fault_kind k, int f, rnd_tag *tags, int *dark)
{
    rnd_occluder occ[4];
    int nocc;
    int n = seq_frame(&S, f, tags, occ, &nocc);
    *dark = 0;
    if (k == FAULT_TWICE && f >= 8) {
        /* a second print of the first figure's tag, at the free spot
         * farthest from every other tag */
        double bx = 0, by = 0, best = -1;
        for (double x = 4; x <= S.o.table_w - 4; x += 0.5)
            for (double y = 4; y <= S.o.table_d - 4; y += 0.5) {
                double dmin = 1e9;
                for (int i = 0; i < n; i++)
                    dmin = fmin(dmin, hypot(tags[i].x - x, tags[i].y - y));
                if (dmin > best) {
                    best = dmin;
                    bx = x;
                    by = y;
                }
            }
        tags[n] = tags[S.nanchors];
        tags[n].x = bx;
        tags[n].y = by;
        n++;
    } else if (k == FAULT_EDGE) {
        /* the figure nearest the right edge slides off it, 0.5" a frame from
         * frame 6, and is gone from frame 18 (off the table, picked up) */
        int e = S.nanchors;
        for (int i = S.nanchors; i < n; i++)
            if (tags[i].x > tags[e].x)
                e = i;
        if (f >= 6)
            tags[e].x += 0.5 * (f - 5);
        if (f >= 18) {
            memmove(&tags[e], &tags[e + 1], sizeof *tags * (size_t)(n - e - 1));
            n--;
        }
    } else if (k == FAULT_DARK && f >= 8 && f < 12) {
        *dark = 1;
    }
    return n;
}

static int edge_id(void)
{
    int e = S.nanchors;
    for (int i = S.nanchors; i < S.ntags; i++)
        if (S.base_tags[i].x > S.base_tags[e].x)
            e = i;
    return S.base_tags[e].id;
}

static int setup_all(void **state)
{
    (void)state;
    seq_options o;
    tt_err err = {0};
    seq_options_small(&o);
    o.moving = 0;
    o.taken_away = 0;
    o.anchor_hand = 0;
    o.frames = NFRAMES;
    snprintf(dir, sizeof dir, "/tmp/tt_faults_XXXXXX");
    if (!mkdtemp(dir) || seq_init(&o, &S, &err) != TT_OK)
        return -1;
    return seq_write_rig(&S, dir, &err) == TT_OK ? 0 : -1;
}

static int teardown_all(void **state)
{
    (void)state;
    char cmd[600];
    seq_free(&S);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Render the fault's frames and track them; returns the --events lines
 * and stderr (*err_text, caller frees). */
static json_t *track_fault(fault_kind k, const char *name, char **err_text)
{
    char p[700];
    tt_err err = {0};
    snprintf(p, sizeof p, "%s/%s", dir, name);
    assert_int_equal(mkdir(p, 0755), 0);
    rnd_tag *tags = malloc(sizeof *tags * (size_t)(S.ntags + 1));
    assert_non_null(tags);
    for (int f = 0; f < NFRAMES; f++) {
        int dark;
        rnd_scene sc = S.scene;
        sc.ntags = fault_frame(k, f, tags, &dark);
        sc.tags = tags;
        sc.seed = S.o.seed * 1000u + (unsigned)f;
        tt_image im = {0};
        assert_int_equal(rnd_render(&sc, &S.cam, &im, &err), TT_OK);
        if (dark)
            memset(im.data, 0, (size_t)im.stride * (size_t)im.height);
        snprintf(p, sizeof p, "%s/%s/frame_%04d.png", dir, name, f);
        assert_int_equal(cvw_image_write(p, &im, &err), TT_OK);
        tt_image_free(&im);
    }
    free(tags);
    char rig[600], src[700], ev[700];
    snprintf(rig, sizeof rig, "%s/rig.json", dir);
    snprintf(src, sizeof src, "%s/%s/*.png", dir, name);
    snprintf(ev, sizeof ev, "%s/%s.jsonl", dir, name);
    char *argv[] = {TT_BIN, "track", "--rig", rig, "--source", src, "--events", ev, "--grace", "5", NULL};
    run_result r = run_cmd(argv, NULL);
    if (r.status != 0)
        fail_msg("track failed: %s", r.err);
    *err_text = strdup(r.err ? r.err : "");
    run_free(&r);
    json_t *lines = read_jsonl(ev);
    return lines;
}

static int count_events(json_t *lines, const char *kind, int id)
{
    int n = 0;
    for (size_t i = 0; i < json_array_size(lines); i++) {
        json_t *l = json_array_get(lines, i);
        const char *ev = json_string_value(json_object_get(l, "event"));
        if (ev && !strcmp(ev, kind) && (id < 0 || json_integer_value(json_object_get(l, "id")) == id))
            n++;
    }
    return n;
}

static int count_str(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void test_tag_seen_twice(void **state)
{
    (void)state;
    char *err_text = NULL;
    json_t *lines = track_fault(FAULT_TWICE, "twice", &err_text);
    const rnd_tag *orig = &S.base_tags[S.nanchors];
    /* warned once, naming the tag */
    char want[64];
    snprintf(want, sizeof want, "tag %s %d is seen twice", orig->family, orig->id);
    if (count_str(err_text, want) != 1)
        fail_msg("expected one warning '%s', stderr: %s", want, err_text);
    free(err_text);
    /* the figure stays where it was on every frame, never jumps to the copy */
    int frames = 0;
    for (size_t i = 0; i < json_array_size(lines); i++) {
        json_t *l = json_array_get(lines, i);
        if (json_object_get(l, "event"))
            continue;
        json_t *g = figure_in(l, orig->id);
        if (!g)
            continue;
        frames++;
        double e = hypot(json_number_value(json_object_get(g, "x")) - orig->x,
                         json_number_value(json_object_get(g, "y")) - orig->y);
        if (e > 0.1)
            fail_msg("frame %d: figure %d at %.2f,%.2f, %.2f in from where it stands",
                     (int)json_integer_value(json_object_get(l, "frame")), orig->id,
                     json_number_value(json_object_get(g, "x")), json_number_value(json_object_get(g, "y")), e);
    }
    assert_true(frames >= NFRAMES - 2);
    assert_int_equal(count_events(lines, "moved", -1), 0);
    assert_int_equal(count_events(lines, "removed", -1), 0);
    assert_int_equal(count_events(lines, "appeared", orig->id), 1);
    json_decref(lines);
}

static void test_figure_leaves_edge(void **state)
{
    (void)state;
    char *err_text = NULL;
    json_t *lines = track_fault(FAULT_EDGE, "edge", &err_text);
    free(err_text);
    int id = edge_id(), seen_on_table = 0;
    rnd_tag *tags = malloc(sizeof *tags * (size_t)(S.ntags + 1));
    for (size_t i = 0; i < json_array_size(lines); i++) {
        json_t *l = json_array_get(lines, i);
        if (json_object_get(l, "event"))
            continue;
        int f = (int)json_integer_value(json_object_get(l, "frame")), dark;
        int n = fault_frame(FAULT_EDGE, f, tags, &dark);
        json_t *g = figure_in(l, id);
        for (int k = 0; k < n; k++)
            if (tags[k].id == id && g && !strcmp(json_string_value(json_object_get(g, "state")), "seen") &&
                tags[k].x < S.o.table_w - 1) {
                /* while it is on the table: where it is */
                double e = hypot(json_number_value(json_object_get(g, "x")) - tags[k].x,
                                 json_number_value(json_object_get(g, "y")) - tags[k].y);
                assert_true(e < 0.1);
                seen_on_table++;
            }
    }
    free(tags);
    assert_true(seen_on_table >= 6);
    /* gone over the edge: removed once; nobody else moved or removed */
    assert_int_equal(count_events(lines, "removed", id), 1);
    assert_int_equal(count_events(lines, "removed", -1), 1);
    assert_int_equal(count_events(lines, "moved", -1) - count_events(lines, "moved", id), 0);
    json_decref(lines);
}

static void test_lights_off_and_on(void **state)
{
    (void)state;
    char *err_text = NULL;
    json_t *lines = track_fault(FAULT_DARK, "dark", &err_text);
    free(err_text);
    /* every figure announced once, never removed, never moved */
    assert_int_equal(count_events(lines, "appeared", -1), S.o.nbases);
    assert_int_equal(count_events(lines, "removed", -1), 0);
    assert_int_equal(count_events(lines, "moved", -1), 0);
    /* the last frame: every figure seen where it stands */
    json_t *last = NULL;
    for (size_t i = 0; i < json_array_size(lines); i++)
        if (!json_object_get(json_array_get(lines, i), "event"))
            last = json_array_get(lines, i);
    assert_non_null(last);
    assert_int_equal(json_integer_value(json_object_get(last, "frame")), NFRAMES - 1);
    for (int k = S.nanchors; k < S.ntags; k++) {
        json_t *g = figure_in(last, S.base_tags[k].id);
        if (!g)
            fail_msg("figure %d missing after the lights came back", S.base_tags[k].id);
        assert_string_equal(json_string_value(json_object_get(g, "state")), "seen");
        double e = hypot(json_number_value(json_object_get(g, "x")) - S.base_tags[k].x,
                         json_number_value(json_object_get(g, "y")) - S.base_tags[k].y);
        assert_true(e < 0.1);
    }
    json_decref(lines);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tag_seen_twice),
        cmocka_unit_test(test_figure_leaves_edge),
        cmocka_unit_test(test_lights_off_and_on),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
