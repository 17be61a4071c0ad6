/* cams_eval.c - see cams_eval.h. */
#include "cams_eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cvwrap.h"

void ce_options_default(ce_options *o)
{
    memset(o, 0, sizeof *o);
    o->nbases = 80;
    o->overlap_in = 10;
    o->seed = 1;
    o->supersample = 2;
    o->blur = 0.6;
    o->noise = 2;
    o->nanchors = 8;
}

tt_status ce_table_make(const ce_options *o, ce_table *t, tt_err *err)
{
    const double W = 144, D = 72;
    memset(t, 0, sizeof *t);
    snprintf(t->dir, sizeof t->dir, "/tmp/tt_cams_XXXXXX");
    if (!mkdtemp(t->dir))
        return tt_err_set(err, TT_ERR_IO, "cannot make a temporary folder");
    t->tags = calloc((size_t)(8 + o->nbases), sizeof *t->tags);
    if (!t->tags)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    /* corners, the long edges' middles (x = 72), the short edges' middles */
    t->ntags = rnd_standard_tags(t->tags, o->nanchors, o->nbases, 0.8, 3, W, D, o->seed);
    t->nanchors = o->nanchors;
    if (o->split_anchors && o->nanchors >= 6 && o->nbases == 0) {
        t->tags[4].x = W / 2 - 12;
        t->tags[5].x = W / 2 + 12;
        for (int i = 0; i < o->nanchors; i++) /* and the rest 5" in from the ends, for lower cameras */
            if (i != 4 && i != 5)
                t->tags[i].x = t->tags[i].x < W / 2 ? 5 : W - 5;
    }
    /* an overlap < 0 is a gap: each camera reaches -overlap / 2 short of the middle */
    double ov = o->overlap_in;
    if (!rnd_cameras_side_by_side(t->cams, CE_CAMS, W, D, ov, 3840, 2160, 2600, -0.05, 0.01))
        return tt_err_set(err, TT_ERR_ARG, "cannot place the cameras");
    t->scene = (rnd_scene){.width_in = W, .depth_in = D, .felt_gray = 90, .floor_gray = 40, .tags = t->tags,
                           .ntags = t->ntags, .light_gradient = 0.2, .ambient = 1, .blur_sigma_px = o->blur,
                           .noise_sigma = o->noise, .supersample = o->supersample, .seed = o->seed};
    const char *names[CE_CAMS] = {"camera0.yaml", "camera1.yaml"}, *sources[CE_CAMS] = {"usb:LEFT", "usb:RIGHT"};
    tt_status st = TT_OK;
    char p[600];
    for (int k = 0; k < CE_CAMS && st == TT_OK; k++) {
        t->scene.seed = o->seed * 7 + (unsigned)k; /* each camera its own noise */
        st = rnd_render(&t->scene, &t->cams[k], &t->images[k], err);
        snprintf(p, sizeof p, "%s/%s", t->dir, names[k]);
        if (st == TT_OK)
            st = rnd_write_camera_yaml(&t->cams[k], p, err);
        snprintf(t->img_path[k], sizeof t->img_path[k], "%s/frame%d.png", t->dir, k);
        if (st == TT_OK && o->write_png)
            st = cvw_image_write(t->img_path[k], &t->images[k], err);
    }
    snprintf(t->rig_path, sizeof t->rig_path, "%s/rig.json", t->dir);
    if (st == TT_OK)
        st = rnd_write_rig_cameras(t->rig_path, names, sources, CE_CAMS, &t->scene, t->nanchors, 0.8, 3, err);
    if (st == TT_OK)
        st = calib_rig_load(t->rig_path, &t->rig, err);
    return st;
}

void ce_table_free(ce_table *t)
{
    char p[600];
    if (t->dir[0]) {
        const char *files[] = {"rig.json", "camera0.yaml", "camera1.yaml", "frame0.png", "frame1.png"};
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
            snprintf(p, sizeof p, "%s/%s", t->dir, files[i]);
            remove(p);
        }
        remove(t->dir);
    }
    calib_rig_destroy(t->rig);
    for (int k = 0; k < CE_CAMS; k++)
        tt_image_free(&t->images[k]);
    free(t->tags);
    memset(t, 0, sizeof *t);
}

static void ce__score(const ce_table *t, const calib_fuse_result *r, ce_score *s)
{
    memset(s, 0, sizeof *s);
    double sum = 0, osum = 0;
    for (int i = t->nanchors; i < t->ntags; i++) {
        const rnd_tag *g = &t->tags[i];
        int vis = 0, hits = 0;
        for (int k = 0; k < CE_CAMS; k++)
            vis |= rnd_tag_unoccluded(&t->scene, &t->cams[k], g);
        for (int f = 0; f < r->n; f++) {
            if (r->figs[f].id != g->id)
                continue;
            double e = hypot(r->figs[f].x - g->x, r->figs[f].y - g->y);
            hits++;
            if (e > 0.02 && getenv("CE_DEBUG"))
                printf("  off: id %d at (%.2f, %.2f) by %.4f\" (seen by %u, err95 %.4f, height %d z %.3f)\n", g->id,
                       g->x, g->y, e, r->seen_by[f], r->figs[f].err95_in, (int)r->figs[f].height, r->figs[f].z_in);
            sum += e * e;
            s->max = fmax(s->max, e);
            if (r->seen_by[f] == 3u) {
                s->overlap++;
                osum += e * e;
                s->overlap_max = fmax(s->overlap_max, e);
            }
        }
        s->expected += vis;
        s->found += vis && hits > 0;
        s->twice += hits > 1;
    }
    for (int f = 0; f < r->n; f++) {
        int known = 0;
        for (int i = t->nanchors; i < t->ntags; i++)
            known |= t->tags[i].id == r->figs[f].id;
        s->spurious += !known;
    }
    s->rms = r->n ? sqrt(sum / r->n) : 0;
    s->overlap_rms = s->overlap ? sqrt(osum / s->overlap) : 0;
}

tt_status ce_locate(const ce_table *t, calib_fuse_result *out, calib_pose poses[CE_CAMS], ce_score *s, tt_err *err)
{
    vision_detector_opts o;
    vision_detector *det = NULL;
    vision_detections ds[CE_CAMS];
    calib_fuse_result r = {0};
    memset(ds, 0, sizeof ds);
    vision_detector_opts_default(&o);
    o.nthreads = 2;
    calib_rig_detector_opts(t->rig, &o);
    tt_status st = vision_detector_create(&o, &det, err);
    for (int k = 0; k < CE_CAMS && st == TT_OK; k++)
        st = calib_fuse_detect(t->rig, k, det, &t->images[k], o.decimate > 1, &ds[k], &poses[k], err);
    if (st == TT_OK)
        st = calib_fuse_locate(t->rig, ds, poses, NULL, &r, NULL, err);
    if (st == TT_OK && s)
        ce__score(t, &r, s);
    for (int k = 0; k < CE_CAMS; k++)
        vision_detections_free(&ds[k]);
    vision_detector_destroy(det);
    if (out && st == TT_OK)
        *out = r;
    else
        calib_fuse_result_free(&r);
    return st;
}

tt_status ce_score_seed(unsigned seed, calib_pose poses[CE_CAMS], ce_score *s, tt_err *err)
{
    ce_options o;
    ce_table t;
    ce_options_default(&o);
    o.seed = seed;
    tt_status st = ce_table_make(&o, &t, err);
    if (st == TT_OK)
        st = ce_locate(&t, NULL, poses, s, err);
    ce_table_free(&t);
    return st;
}
