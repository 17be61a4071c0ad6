/* make_breach.c - renders samples/breach: the camera's view of the sample
 * game (Into the Breach!, a breach assault on a 36x24 table) as a short
 * video, with its rig and camera.yaml.  The figures start where
 * samples/breach/scenario.json puts them (its "tags" give each figure's
 * tag id); the script below moves them: grenadiers advance, a hand pivots
 * the gun toward the breach, a grenadier creeps up to the wall, and a
 * French fusilier is taken off as a casualty.
 *   tt-make-breach SCENARIO OUT_DIR [--script FILE] [--seed N] [--frames N]
 * --script: another game, JSON [{"fig","f0","f1","dx","dy","dfacing","hand",
 * "gone"}] (a move over frames f0..f1, a hand over it, taken off after it);
 * --seed: the noise's (default 1000); --frames: how many (default 120).
 * tests/referee/heldout/ was made so (its README says how). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cvwrap_video.h"
#include "render.h"

#define FRAMES 120
#define MAX_STEPS 64

typedef struct {
    char fig[32];
    int f0, f1;        /* frames of the move */
    double dx, dy, dfacing;
    int hand;          /* a hand covers the figure while it moves */
    int gone;          /* taken off the table after f1 */
} step;

static step script[MAX_STEPS] = {
    {"gren1", 8, 22, 5.0, 1.5, 15, 0, 0},
    {"gren2", 10, 24, 5.0, -0.5, -10, 0, 0},
    {"gun1", 27, 31, 0, 0, 16, 1, 0}, /* a hand pivots the gun onto the breach */
    {"gren3", 40, 54, 4.5, 0.5, 0, 0, 0},
    {"fus1", 62, 66, 0, 0, 0, 1, 1}, /* picked up as a casualty: gone after */
};
static size_t nscript = 5;

/* --script FILE: the moves instead of the sample's. */
static int load_script(const char *path)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je), *o;
    size_t i;
    if (!json_is_array(j) || json_array_size(j) > MAX_STEPS) {
        fprintf(stderr, "%s: a JSON array of at most %d moves (line %d: %s)\n", path, MAX_STEPS, je.line, je.text);
        json_decref(j);
        return -1;
    }
    nscript = 0;
    json_array_foreach(j, i, o) {
        step *st = &script[nscript++];
        memset(st, 0, sizeof *st);
        snprintf(st->fig, sizeof st->fig, "%s", json_string_value(json_object_get(o, "fig")) ?
                                                    json_string_value(json_object_get(o, "fig")) : "");
        st->f0 = (int)json_integer_value(json_object_get(o, "f0"));
        st->f1 = (int)json_integer_value(json_object_get(o, "f1"));
        st->dx = json_number_value(json_object_get(o, "dx"));
        st->dy = json_number_value(json_object_get(o, "dy"));
        st->dfacing = json_number_value(json_object_get(o, "dfacing"));
        st->hand = json_is_true(json_object_get(o, "hand"));
        st->gone = json_is_true(json_object_get(o, "gone"));
        if (!st->fig[0] || st->f1 < st->f0) {
            fprintf(stderr, "%s: move %zu needs \"fig\" and f0 <= f1\n", path, i + 1);
            json_decref(j);
            return -1;
        }
    }
    json_decref(j);
    return 0;
}

typedef struct {
    char id[32];
    int tag;
    double x, y, facing, radius;
} fig;

/* The options after SCENARIO OUT_DIR: 0, or 2 for a usage error, 1 a bad script. */
static int parse_opts(int argc, char **argv, unsigned *seed, int *frames)
{
    for (int a = 3; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--script") && load_script(argv[a + 1]) != 0)
            return 1;
        else if (!strcmp(argv[a], "--seed"))
            *seed = (unsigned)strtoul(argv[a + 1], NULL, 10);
        else if (!strcmp(argv[a], "--frames"))
            *frames = atoi(argv[a + 1]);
        else if (strcmp(argv[a], "--script"))
            argc = 0;
    }
    if (argc < 3 || argc % 2 == 0 || *frames < 1) {
        fprintf(stderr, "usage: tt-make-breach SCENARIO OUT_DIR [--script FILE] [--seed N] [--frames N]\n");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    unsigned seed = 1000u;
    int frames = FRAMES, bad = parse_opts(argc, argv, &seed, &frames);
    if (bad)
        return bad;
    json_error_t je;
    json_t *sc = json_load_file(argv[1], 0, &je);
    if (!sc) {
        fprintf(stderr, "%s: line %d: %s\n", argv[1], je.line, je.text);
        return 1;
    }
    fig figs[64];
    int nf = 0;
    const char *key;
    json_t *val;
    json_object_foreach(json_object_get(sc, "tags"), key, val)
    {
        json_t *f;
        size_t i;
        json_array_foreach(json_object_get(sc, "figures"), i, f)
        {
            if (strcmp(json_string_value(json_object_get(f, "id")), json_string_value(val)) || nf >= 64)
                continue;
            fig *g = &figs[nf++];
            snprintf(g->id, sizeof g->id, "%s", json_string_value(val));
            g->tag = atoi(key);
            g->x = json_number_value(json_object_get(f, "x"));
            g->y = json_number_value(json_object_get(f, "y"));
            g->facing = json_number_value(json_object_get(f, "facing_deg"));
            json_t *round = json_object_get(json_object_get(f, "base"), "round_in");
            g->radius = round ? json_number_value(round) / 2 : 0.5;
        }
    }
    double W = json_number_value(json_object_get(json_object_get(sc, "table"), "width_in"));
    double D = json_number_value(json_object_get(json_object_get(sc, "table"), "depth_in"));

    rnd_camera cam;
    rnd_camera_look_at(&cam, 1920, 1080, 1900, -0.06, 0.015, W / 2, D / 2 - 8, 42, W / 2, D / 2);
    rnd_tag tags[80];
    int na = 4;
    for (int a = 0; a < na; a++) {
        rnd_tag *t = &tags[a];
        memset(t, 0, sizeof *t);
        snprintf(t->family, sizeof t->family, "tag36h11");
        t->id = a;
        t->size_in = 1.6;
        t->x = a == 0 || a == 3 ? 1.4 : W - 1.4;
        t->y = a < 2 ? 1.4 : D - 1.4;
        t->facing_deg = -90;
    }
    rnd_scene s = {0};
    s.width_in = W;
    s.depth_in = D;
    s.felt_gray = 95;
    s.floor_gray = 40;
    s.light_gradient = 0.2;
    s.ambient = 1.0;
    s.blur_sigma_px = 0.6;
    s.noise_sigma = 1.5;
    s.supersample = 3;
    s.tags = tags;
    s.ntags = na;

    char p[1024];
    tt_err err = {0};
    snprintf(p, sizeof p, "%s/camera.yaml", argv[2]);
    if (rnd_write_camera_yaml(&cam, p, &err) != TT_OK)
        goto fail;
    snprintf(p, sizeof p, "%s/rig.json", argv[2]);
    if (rnd_write_rig(p, "camera.yaml", &s, na, 0.8, 3.0, &err) != TT_OK)
        goto fail;
    snprintf(p, sizeof p, "%s/game.mp4", argv[2]);
    cvw_video_writer *vw = NULL;
    if (cvw_video_writer_open(p, cam.width, cam.height, 30, &vw, &err) != TT_OK)
        goto fail;
    for (int f = 0; f < frames; f++) {
        rnd_occluder occ[4];
        int nocc = 0, n = na;
        for (int i = 0; i < nf; i++) {
            double x = figs[i].x, y = figs[i].y, fc = figs[i].facing;
            int gone = 0;
            for (size_t k = 0; k < nscript; k++) {
                const step *st = &script[k];
                if (strcmp(st->fig, figs[i].id))
                    continue;
                double u = f <= st->f0 ? 0 : f >= st->f1 ? 1 : (double)(f - st->f0) / (st->f1 - st->f0);
                x += st->dx * u;
                y += st->dy * u;
                fc += st->dfacing * u;
                if (st->hand && f >= st->f0 - 2 && f <= st->f1 + 1 && nocc < 4) {
                    rnd_occluder *h = &occ[nocc++];
                    h->x = x - 0.5;
                    h->y = y + 1.0;
                    h->height_in = 4;
                    h->rx = 1.8;
                    h->ry = 2.8;
                    h->angle_deg = 20;
                    h->gray = 180;
                }
                if (st->gone && f > st->f1)
                    gone = 1;
            }
            if (gone)
                continue;
            rnd_tag *t = &tags[n++];
            memset(t, 0, sizeof *t);
            snprintf(t->family, sizeof t->family, "tag36h11");
            t->id = figs[i].tag;
            t->x = x;
            t->y = y;
            t->height_in = 3.0 / 25.4;
            t->size_in = 0.8;
            t->facing_deg = fc;
            t->base_radius_in = figs[i].radius;
        }
        s.ntags = n;
        s.occluders = occ;
        s.noccluders = nocc;
        s.seed = seed + (unsigned)f;
        tt_image g = {0}, bgr = {0};
        if (rnd_render(&s, &cam, &g, &err) != TT_OK || tt_image_alloc(&bgr, g.width, g.height, 3, &err) != TT_OK)
            goto fail;
        for (int y = 0; y < g.height; y++)
            for (int x = 0; x < g.width; x++)
                memset(bgr.data + (size_t)y * bgr.stride + 3 * x, g.data[(size_t)y * g.stride + x], 3);
        if (cvw_video_writer_write(vw, &bgr, &err) != TT_OK)
            goto fail;
        tt_image_free(&g);
        tt_image_free(&bgr);
    }
    if (cvw_video_writer_close(vw, &err) != TT_OK)
        goto fail;
    json_decref(sc);
    printf("wrote %s/{game.mp4,rig.json,camera.yaml}: %d frames, %d figures\n", argv[2], frames, nf);
    return 0;
fail:
    fprintf(stderr, "tt-make-breach: %s\n", err.msg);
    return 1;
}
