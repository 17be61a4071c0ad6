/* pjsim.c - simulated projector-camera rig (see pjsim.h). */
#include "pjsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "projector.h"

void pjsim_options_default(pjsim_options *o)
{
    memset(o, 0, sizeof *o);
    o->cam_w = 1280;
    o->cam_h = 960;
    o->pj_w = 1280;
    o->pj_h = 800;
    o->pj_eye[0] = 36;
    o->pj_eye[1] = 30;
    o->pj_eye[2] = 60;
    o->pj_target[0] = 36;
    o->pj_target[1] = 24;
    o->pj_f = 1750;
    o->gamma = 2.2;
    o->black_level = 0.04;
    o->gain = 1.0;
    o->ambient = 0.5;
    o->gradient = 0.2;
    o->blur = 1.0;
    o->noise = 2.0;
    o->supersample = 1;
    o->seed = 1;
}

/* rnd_project with the rotation prepared once (the renderer calls the
 * light for every sample). */
static int pjsim__project(const pjsim_unit *p, double x, double y, double h, double px[2])
{
    const double *R = p->R, *t = p->cam.tvec, *K = p->cam.K, *d = p->cam.dist;
    double X = R[0] * x + R[1] * y - R[2] * h + t[0];
    double Y = R[3] * x + R[4] * y - R[5] * h + t[1];
    double Z = R[6] * x + R[7] * y - R[8] * h + t[2];
    if (!(Z > 1e-9))
        return 0;
    double a = X / Z, b = Y / Z, r2 = a * a + b * b;
    double radial = 1 + r2 * (d[0] + r2 * (d[1] + r2 * d[4]));
    double xd = a * radial + 2 * d[2] * a * b + d[3] * (r2 + 2 * a * a);
    double yd = b * radial + d[2] * (r2 + 2 * b * b) + 2 * d[3] * a * b;
    px[0] = K[0] * xd + K[1] * yd + K[2];
    px[1] = K[4] * yd + K[5];
    return 1;
}

static void pjsim__rodrigues(const double r[3], double R[9])
{
    double th = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    if (th < 1e-15) {
        const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(R, I, sizeof I);
        return;
    }
    double k[3] = {r[0] / th, r[1] / th, r[2] / th}, c = cos(th), s = sin(th), v = 1 - c;
    R[0] = c + k[0] * k[0] * v;
    R[1] = k[0] * k[1] * v - k[2] * s;
    R[2] = k[0] * k[2] * v + k[1] * s;
    R[3] = k[1] * k[0] * v + k[2] * s;
    R[4] = c + k[1] * k[1] * v;
    R[5] = k[1] * k[2] * v - k[0] * s;
    R[6] = k[2] * k[0] * v - k[1] * s;
    R[7] = k[2] * k[1] * v + k[0] * s;
    R[8] = c + k[2] * k[2] * v;
}

/* One projector's light on (x, y, h). */
static double pjsim__unit_light(const pjsim *s, const pjsim_unit *pu, double x, double y, double h)
{
    double px[2];
    if (!pjsim__project(pu, x, y, h, px))
        return 0;
    double u = px[0], v = px[1];
    const tt_image *p = pu->pattern;
    if (!(u >= -0.5 && v >= -0.5 && u <= s->o.pj_w - 0.5 && v <= s->o.pj_h - 0.5))
        return 0;
    double val = 0;
    if (p) {
        /* bilinear inside the image, edge pixels held to the border */
        double fu = u < 0 ? 0 : u > p->width - 1 ? p->width - 1 : u;
        double fv = v < 0 ? 0 : v > p->height - 1 ? p->height - 1 : v;
        int i = (int)fu, j = (int)fv;
        if (i > p->width - 2)
            i = p->width - 2;
        if (j > p->height - 2)
            j = p->height - 2;
        double a = fu - i, b = fv - j;
        const uint8_t *r0 = p->data + (size_t)j * p->stride, *r1 = r0 + p->stride;
        val = ((1 - a) * (1 - b) * r0[i] + a * (1 - b) * r0[i + 1] + (1 - a) * b * r1[i] + a * b * r1[i + 1]) / 255.0;
    }
    double f = val * 1024;
    int k = (int)f;
    if (k >= 1024)
        return pu->lut[1024];
    return pu->lut[k] + (f - k) * (pu->lut[k + 1] - pu->lut[k]);
}

/* Every projector's light adds up. */
static double pjsim__light(double x, double y, double h, void *user)
{
    pjsim *s = user;
    if (s->o.projector_off)
        return 0;
    double sum = 0;
    for (int k = 0; k < s->npj; k++)
        sum += pjsim__unit_light(s, &s->pj[k], x, y, h);
    return sum;
}

/* Projector k placed and its light table made. */
static void pjsim__unit_init(pjsim *s, int k)
{
    pjsim_unit *pu = &s->pj[k];
    const double *eye = k ? s->o.more[k - 1].eye : s->o.pj_eye, *tgt = k ? s->o.more[k - 1].target : s->o.pj_target;
    double gamma = k && s->o.more[k - 1].gamma > 0 ? s->o.more[k - 1].gamma : s->o.gamma;
    rnd_camera_look_at(&pu->cam, s->o.pj_w, s->o.pj_h, s->o.pj_f, s->o.pj_k1, 0, eye[0], eye[1], eye[2], tgt[0],
                       tgt[1]);
    pjsim__rodrigues(pu->cam.rvec, pu->R);
    for (int i = 0; i <= 1024; i++)
        pu->lut[i] = s->o.gain * (s->o.black_level + (1 - s->o.black_level) * pow(i / 1024.0, gamma));
}

tt_status pjsim_create(const pjsim_options *o, pjsim **out, tt_err *err)
{
    pjsim *s = calloc(1, sizeof *s);
    char p[160];
    tt_status st;
    *out = NULL;
    if (!s)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if (o)
        s->o = *o;
    else
        pjsim_options_default(&s->o);
    s->ntags = rnd_standard_tags(s->tags, 6, 0, 1.0, 3.0, 72, 48, s->o.seed);
    rnd_camera_look_at(&s->cam, s->o.cam_w, s->o.cam_h, 1200.0 * s->o.cam_w / 1280.0, -0.06, 0.01, 36, 10, 80, 36,
                       24);
    if (s->o.nmore < 0 || s->o.nmore > PJSIM_MAX_PJ - 1) {
        st = tt_err_set(err, TT_ERR_ARG, "pjsim: at most %d projectors", PJSIM_MAX_PJ);
        free(s);
        return st;
    }
    s->npj = 1 + s->o.nmore;
    for (int k = 0; k < s->npj; k++)
        pjsim__unit_init(s, k);
    s->proj = s->pj[0].cam;
    s->scene.width_in = 72;
    s->scene.depth_in = 48;
    s->scene.felt_gray = 90;
    s->scene.floor_gray = 40;
    s->scene.tags = s->tags;
    s->scene.ntags = s->ntags;
    s->scene.light_gradient = s->o.gradient;
    s->scene.ambient = s->o.ambient;
    s->scene.blur_sigma_px = s->o.blur;
    s->scene.noise_sigma = s->o.noise;
    s->scene.supersample = s->o.supersample;
    s->scene.seed = s->o.seed;
    s->scene.pieces = s->o.pieces;
    s->scene.npieces = s->o.npieces;
    s->scene.light = pjsim__light;
    s->scene.light_user = s;
    snprintf(s->dir, sizeof s->dir, "/tmp/tt_pjsim_XXXXXX");
    if (!mkdtemp(s->dir)) {
        s->dir[0] = 0;
        st = tt_err_set(err, TT_ERR_IO, "cannot make a temporary folder");
        goto fail;
    }
    snprintf(p, sizeof p, "%s/camera.yaml", s->dir);
    if ((st = rnd_write_camera_yaml(&s->cam, p, err)) != TT_OK)
        goto fail;
    snprintf(s->rig_path, sizeof s->rig_path, "%s/rig.json", s->dir);
    if ((st = rnd_write_rig(s->rig_path, "camera.yaml", &s->scene, 6, 1.0, 3.0, err)) != TT_OK ||
        (st = calib_rig_load(s->rig_path, &s->rig, err)) != TT_OK)
        goto fail;
    *out = s;
    return TT_OK;
fail:
    pjsim_destroy(s);
    return st;
}

void pjsim_destroy(pjsim *s)
{
    if (!s)
        return;
    if (s->dir[0]) {
        char p[200];
        snprintf(p, sizeof p, "%s/camera.yaml", s->dir);
        remove(p);
        remove(s->rig_path);
        remove(s->dir);
    }
    calib_rig_destroy(s->rig);
    free(s);
}

tt_status pjsim_capture_n(pjsim *s, const tt_image *const *patterns, tt_image *out, tt_err *err)
{
    for (int k = 0; patterns && k < s->npj; k++) {
        const tt_image *p = patterns[k];
        if (p && (p->width != s->o.pj_w || p->height != s->o.pj_h || p->channels != 1))
            return tt_err_set(err, TT_ERR_ARG, "pjsim: pattern must be %dx%d gray", s->o.pj_w, s->o.pj_h);
    }
    for (int k = 0; k < s->npj; k++)
        s->pj[k].pattern = patterns ? patterns[k] : NULL;
    s->scene.seed = s->o.seed * 1000u + (unsigned)s->frame++; /* fresh noise per photo */
    tt_status st = rnd_render(&s->scene, &s->cam, out, err);
    for (int k = 0; k < s->npj; k++)
        s->pj[k].pattern = NULL;
    return st;
}

tt_status pjsim_capture(pjsim *s, const tt_image *pattern, tt_image *out, tt_err *err)
{
    const tt_image *pats[PJSIM_MAX_PJ] = {pattern};
    return pjsim_capture_n(s, pats, out, err);
}

int pjsim_truth(const pjsim *s, double x, double y, double px[2])
{
    return pjsim__project(&s->pj[0], x, y, 0, px);
}

int pjsim_truth3(const pjsim *s, double x, double y, double height_in, double px[2])
{
    return pjsim__project(&s->pj[0], x, y, height_in, px);
}

int pjsim_truth_k(const pjsim *s, int k, double x, double y, double height_in, double px[2])
{
    if (k < 0 || k >= s->npj)
        return 0;
    return pjsim__project(&s->pj[k], x, y, height_in, px);
}

void pjsim_captures_free(tt_image *caps, int count)
{
    if (!caps)
        return;
    for (int i = 0; i < count; i++)
        tt_image_free(&caps[i]);
    free(caps);
}

tt_status pjsim_capture_all_k(pjsim *s, int k, tt_image **caps, int *count, tt_err *err)
{
    int n = calib_projector_pattern_count(s->o.pj_w, s->o.pj_h);
    tt_image *c = calloc((size_t)(n > 0 ? n : 1), sizeof *c), pat = {0};
    tt_status st = TT_OK;
    *caps = NULL;
    *count = 0;
    if (!c)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if (k < 0 || k >= s->npj) {
        free(c);
        return tt_err_set(err, TT_ERR_ARG, "pjsim: no projector %d", k + 1);
    }
    for (int i = 0; i < n; i++) {
        const tt_image *pats[PJSIM_MAX_PJ] = {NULL};
        pats[k] = &pat;
        if ((st = calib_projector_pattern_render(s->o.pj_w, s->o.pj_h, i, &pat, err)) != TT_OK ||
            (st = pjsim_capture_n(s, pats, &c[i], err)) != TT_OK) {
            tt_image_free(&pat);
            pjsim_captures_free(c, n);
            return st;
        }
        tt_image_free(&pat);
    }
    *caps = c;
    *count = n;
    return TT_OK;
}

tt_status pjsim_capture_all(pjsim *s, tt_image **caps, int *count, tt_err *err)
{
    return pjsim_capture_all_k(s, 0, caps, count, err);
}

void pjsim_flat_hill(rnd_piece *p, double x, double y, double rx, double ry, double h)
{
    memset(p, 0, sizeof *p);
    p->npts = RND_PIECE_MAX_PTS;
    for (int i = 0; i < p->npts; i++) {
        double a = 2 * M_PI * i / p->npts;
        p->pts[i][0] = x + rx * cos(a);
        p->pts[i][1] = y + ry * sin(a);
    }
    p->height_in = h;
    p->slope_in = 0;
    p->gray = 160;
}
