#include "seq.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void seq_options_small(seq_options *o)
{
    memset(o, 0, sizeof *o);
    o->width = 1280;
    o->height = 720;
    o->table_w = 36;
    o->table_d = 24;
    o->nbases = 12;
    o->base_size_in = 1.2;
    o->frames = 40;
    o->moving = 1;
    o->taken_away = 1;
    o->anchor_hand = 1;
    o->noise = 2.0;
    o->seed = 3;
}

void seq_options_4k(seq_options *o)
{
    memset(o, 0, sizeof *o);
    o->width = 3840;
    o->height = 2160;
    o->table_w = 72;
    o->table_d = 48;
    o->nbases = 120;
    o->base_size_in = 0.8;
    o->frames = 90;
    o->moving = 3;
    o->taken_away = 1;
    o->anchor_hand = 1;
    o->noise = 2.0;
    o->seed = 7;
}

void seq_options_1080p(seq_options *o)
{
    seq_options_4k(o);
    o->width = 1920;
    o->height = 1080;
    o->base_size_in = 0.88;
}

tt_status seq_init(const seq_options *o, seq *s, tt_err *err)
{
    memset(s, 0, sizeof *s);
    s->o = *o;
    s->nanchors = 4;
    s->base_tags = calloc((size_t)(s->nanchors + o->nbases), sizeof *s->base_tags);
    if (!s->base_tags)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    s->ntags = rnd_standard_tags(s->base_tags, s->nanchors, o->nbases, o->base_size_in, 3.0, o->table_w, o->table_d,
                                 o->seed);
    /* Anchors scale with the table: 2.4" on 72", 1.6" on 36". */
    double asz = o->table_w >= 60 ? 2.4 : 1.6;
    for (int a = 0; a < s->nanchors; a++) {
        s->base_tags[a].size_in = asz;
        s->base_tags[a].x = a == 0 || a == 3 ? asz : o->table_w - asz;
        s->base_tags[a].y = a < 2 ? asz : o->table_d - asz;
    }
    /* The figure taken away stands far from the sliding ones (so the hand
     * taking it does not cover them): swap in the base farthest away. */
    int taken = s->nanchors + o->moving;
    if (o->taken_away && taken < s->ntags) {
        int best = taken;
        double bestd = -1;
        for (int i = taken; i < s->ntags; i++) {
            double dmin = 1e9;
            for (int m = 0; m < o->moving; m++)
                dmin = fmin(dmin, hypot(s->base_tags[i].x - s->base_tags[s->nanchors + m].x,
                                        s->base_tags[i].y - s->base_tags[s->nanchors + m].y));
            if (dmin > bestd) {
                bestd = dmin;
                best = i;
            }
        }
        double tx = s->base_tags[taken].x, ty = s->base_tags[taken].y;
        s->base_tags[taken].x = s->base_tags[best].x;
        s->base_tags[taken].y = s->base_tags[best].y;
        s->base_tags[best].x = tx;
        s->base_tags[best].y = ty;
    }
    /* ~35 px/inch for the 4K rig; the small rig fills its frame alike. */
    double dist = 80 * o->table_w / 72.0;
    double f = 35.0 * dist * (o->width / 3840.0) * (72.0 / o->table_w);
    rnd_camera_look_at(&s->cam, o->width, o->height, f, -0.08, 0.02, o->table_w / 2, o->table_d / 4, dist,
                       o->table_w / 2, o->table_d / 2);
    rnd_camera_look_at(&s->cam_bumped, o->width, o->height, f, -0.08, 0.02, o->table_w / 2 + o->bump_in,
                       o->table_d / 4 - o->bump_in / 2, dist, o->table_w / 2 + o->bump_in / 3, o->table_d / 2);
    s->scene.width_in = o->table_w;
    s->scene.depth_in = o->table_d;
    s->scene.felt_gray = 90;
    s->scene.floor_gray = 40;
    s->scene.light_gradient = 0.25;
    s->scene.ambient = 1.0;
    s->scene.blur_sigma_px = 0.7;
    s->scene.noise_sigma = o->noise;
    s->scene.supersample = 2;
    return TT_OK;
}

void seq_free(seq *s)
{
    free(s->base_tags);
    memset(s, 0, sizeof *s);
}

int seq_frame(const seq *s, int f, rnd_tag *tags, rnd_occluder *occ, int *nocc)
{
    const seq_options *o = &s->o;
    int n = s->ntags;
    memcpy(tags, s->base_tags, sizeof *tags * (size_t)n);
    *nocc = 0;
    /* Sliding figures: from frame F/8 to 3F/8, 3" along +x then settle. */
    for (int m = 0; m < o->moving && s->nanchors + m < n; m++) {
        rnd_tag *t = &tags[s->nanchors + m];
        double f0 = o->frames / 8.0 + 2 * m, f1 = 3 * o->frames / 8.0 + 2 * m;
        double u = f <= f0 ? 0 : f >= f1 ? 1 : (f - f0) / (f1 - f0);
        double dx = t->x + 3 < o->table_w - 3 ? 3 : -3;
        t->x += dx * u;
        t->facing_deg += 20 * u;
    }
    /* A hand comes over one figure (F/4 .. F/2) and takes it away at 3F/8. */
    int gone = 0;
    if (o->taken_away && s->nanchors + o->moving < n) {
        const rnd_tag *t = &tags[s->nanchors + o->moving];
        if (f >= o->frames / 4 && f < o->frames / 2) {
            rnd_occluder *h = &occ[(*nocc)++];
            h->x = t->x;
            h->y = t->y;
            h->height_in = 5;
            h->rx = 2.0;
            h->ry = 3.0;
            h->angle_deg = 30;
            h->gray = 175;
        }
        if (f >= 3 * o->frames / 8)
            gone = 1;
    }
    /* A hand passes over anchor 0 (F/2 .. 3F/4). */
    if (o->anchor_hand && f >= o->frames / 2 && f < 3 * o->frames / 4) {
        rnd_occluder *h = &occ[(*nocc)++];
        h->x = tags[0].x + 1;
        h->y = tags[0].y + 1;
        h->height_in = 6;
        h->rx = 2.5;
        h->ry = 3.5;
        h->angle_deg = -20;
        h->gray = 175;
    }
    if (gone) {
        int k = s->nanchors + o->moving;
        memmove(&tags[k], &tags[k + 1], sizeof *tags * (size_t)(n - k - 1));
        n--;
    }
    return n;
}

tt_status seq_render(const seq *s, int f, tt_image *out, tt_err *err)
{
    rnd_tag *tags = malloc(sizeof *tags * (size_t)s->ntags);
    rnd_occluder occ[4];
    int nocc = 0;
    if (!tags)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    rnd_scene sc = s->scene;
    sc.ntags = seq_frame(s, f, tags, occ, &nocc);
    sc.tags = tags;
    sc.occluders = occ;
    sc.noccluders = nocc;
    sc.seed = s->o.seed * 1000u + (unsigned)f; /* fresh sensor noise every frame */
    const rnd_camera *cam = s->o.bump_frame > 0 && f >= s->o.bump_frame ? &s->cam_bumped : &s->cam;
    tt_status st = rnd_render(&sc, cam, out, err);
    free(tags);
    return st;
}

tt_status seq_write_rig(const seq *s, const char *dir, tt_err *err)
{
    char p[600];
    tt_status st;
    snprintf(p, sizeof p, "%s/camera.yaml", dir);
    if ((st = rnd_write_camera_yaml(&s->cam, p, err)) != TT_OK)
        return st;
    rnd_scene sc = s->scene;
    sc.tags = s->base_tags;
    sc.ntags = s->ntags;
    snprintf(p, sizeof p, "%s/rig.json", dir);
    return rnd_write_rig(p, "camera.yaml", &sc, s->nanchors, s->o.base_size_in, 3.0, err);
}
