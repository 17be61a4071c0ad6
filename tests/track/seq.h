/* seq.h - rendered camera sequences with known truth for the tracker's
 * tests and benchmark: figures that stand still, figures that slide, a
 * figure picked up by a hand and taken away, a hand passing over the
 * anchors.
 */
#ifndef TT_TEST_SEQ_H
#define TT_TEST_SEQ_H

#include "render.h"

typedef struct seq_options {
    int width, height;
    double table_w, table_d;
    int nbases;
    double base_size_in;
    int frames;
    int moving;        /* figures that slide (ids 100..100+moving-1) */
    int taken_away;    /* 1: figure 100+moving is covered by a hand and removed */
    int anchor_hand;   /* 1: a hand passes over anchor 0 */
    double noise;
    unsigned seed;
    int bump_frame;    /* > 0: the camera is knocked at this frame ... */
    double bump_in;    /* ... and moves this far (and turns slightly) */
} seq_options;

void seq_options_small(seq_options *o); /* 1280x720, 36x24 table: fast tests */
void seq_options_4k(seq_options *o);    /* 3840x2160, 72x48 table, 120 bases */
/* issue 22's club webcam: 1920x1080, 72x48 table, 120 bases with 1.1" tags
 * (size_in 0.88: 1.7 to 2.1 px per cell, under the half-size search's limit) */
void seq_options_1080p(seq_options *o);

typedef struct seq {
    seq_options o;
    rnd_camera cam;
    rnd_camera cam_bumped; /* the camera after the knock */
    rnd_tag *base_tags; /* tags at frame 0: anchors first */
    int nanchors, ntags;
    rnd_scene scene;
} seq;

tt_status seq_init(const seq_options *o, seq *s, tt_err *err);
void seq_free(seq *s);

/* The scene at frame f: tags (caller array of s->ntags) and occluders (up
 * to 4).  Returns the number of tags present (a taken-away figure is
 * dropped from the end of the list). */
int seq_frame(const seq *s, int f, rnd_tag *tags, rnd_occluder *occ, int *nocc);

/* Render frame f into *out (allocated; tt_image_free). */
tt_status seq_render(const seq *s, int f, tt_image *out, tt_err *err);

/* Write rig.json and camera.yaml for the sequence into dir. */
tt_status seq_write_rig(const seq *s, const char *dir, tt_err *err);

#endif
