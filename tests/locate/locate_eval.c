#include "locate_eval.h"
#include "scale.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void le_options_default(le_options *o)
{
    memset(o, 0, sizeof *o);
    o->width = 3840;
    o->height = 2160;
    o->nbases = 120;
    o->base_size_in = 0.8;
    o->base_height_mm = 3.0;
    o->hands = 0;
    o->blur = 0.8;
    o->noise = 2.0;
    o->gradient = 0.3;
    o->seed = 1;
}

void le_options_blurry(le_options *o)
{
    le_options_default(o);
    o->blur = 1.0;
    o->noise = 4.0;
}

void le_options_hard(le_options *o)
{
    le_options_blurry(o);
    o->base_size_in = 0.69;
    o->gradient = 0.5;
}

void le_options_hill(le_options *o)
{
    le_options_default(o);
    o->overhead60 = 1;
    o->hill_in = 2.0;
    o->hill[0] = 40;
    o->hill[1] = 18;
    o->hill[2] = 67;
    o->hill[3] = 43.5;
}

int le_on_hill(const le_frame *f, double x, double y)
{
    return f->hill_in > 0 && x >= f->hill[0] && x <= f->hill[2] && y >= f->hill[1] && y <= f->hill[3];
}

double le_ground_at(const void *frame, double x, double y)
{
    const le_frame *f = frame;
    return rnd_ground_height(&f->scene, x, y);
}

void le_truth_xy(const le_frame *f, const rnd_tag *tag, double xy[2])
{
    rnd_tag_base_xy(tag, f->base_height_in, xy);
}

/* Distance from (x, y) to the rectangle r's outline grown by g. */
static double le__outline_dist(const double r[4], double g, double x, double y)
{
    double x0 = r[0] - g, y0 = r[1] - g, x1 = r[2] + g, y1 = r[3] + g;
    double dx = fmax(x0 - x, fmax(0, x - x1)), dy = fmax(y0 - y, fmax(0, y - y1));
    if (dx > 0 || dy > 0)
        return hypot(dx, dy);
    return fmin(fmin(x - x0, x1 - x), fmin(y - y0, y1 - y));
}

/* The hill as a piece; every base stood on the ground, those straddling
 * an edge of the top or of the slope's foot left out. */
static int le__hill_tags(le_frame *f, double slope_in, double base_height_in)
{
    rnd_piece *p = &f->piece;
    memset(p, 0, sizeof *p);
    const double c[4][2] = {{f->hill[0], f->hill[1]}, {f->hill[2], f->hill[1]}, {f->hill[2], f->hill[3]}, {f->hill[0], f->hill[3]}};
    memcpy(p->pts, c, sizeof c);
    p->npts = 4;
    p->height_in = f->hill_in;
    p->slope_in = slope_in;
    p->gray = 120;
    f->scene.pieces = p;
    f->scene.npieces = 1;
    int m = f->nanchors;
    for (int t = f->nanchors; t < f->ntags; t++) {
        rnd_tag tag = f->tags[t];
        double r = tag.base_radius_in + 0.1;
        if (le__outline_dist(f->hill, 0, tag.x, tag.y) < r ||
            (slope_in > 0 && le__outline_dist(f->hill, slope_in, tag.x, tag.y) < r))
            continue;
        tag.height_in = 0;
        rnd_place_on_ground(&f->scene, &tag, base_height_in);
        f->tags[m++] = tag;
    }
    return m;
}

void le_options_issue29(le_options *o, int k4, int roof, int blur, unsigned seed)
{
    if (k4)
        le_options_default(o);
    else
        le_options_1080p(o);
    o->overhead60 = 1;
    o->seed = seed;
    if (blur) {
        o->blur = k4 ? 1.3 : 1.0;
        o->noise = 4;
    }
    uint64_t rs = rnd_rng_seed(seed * 31u + 7u);
    double deg = 27 + 10 * rnd_rng_uniform(&rs);
    o->hill_in = roof ? 4 : 2;
    o->hill_slope_in = roof ? 0 : o->hill_in / tan(deg * M_PI / 180);
    o->hill[0] = 40;
    o->hill[1] = 17;
    o->hill[2] = 62;
    o->hill[3] = 36;
}

int le_where(const le_frame *f, const rnd_tag *tag, int roof)
{
    double xy[2];
    le_truth_xy(f, tag, xy);
    if (rnd_ground_height(&f->scene, xy[0], xy[1]) <= 0)
        return LE_FELT;
    return roof ? LE_ROOF : le_on_hill(f, xy[0], xy[1]) ? LE_TOP : LE_SLOPE;
}

void le_options_1080p(le_options *o)
{
    le_options_default(o);
    o->width = 1920;
    o->height = 1080;
    o->nbases = 90;
    o->base_size_in = 0.88;
    o->blur = 0.7;
    o->gradient = 0.2;
}

tt_status le_frame_make(const le_options *o, le_frame *f, tt_err *err)
{
    char p[512];
    tt_status st;
    memset(f, 0, sizeof *f);
    const int nanch = 6;
    f->tags = calloc((size_t)(nanch + o->nbases), sizeof *f->tags);
    if (!f->tags)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    f->ntags = rnd_standard_tags(f->tags, nanch, o->nbases, o->base_size_in, o->base_height_mm, 72, 48, o->seed);
    f->nanchors = nanch;
    f->hill_in = o->hill_in;
    f->base_height_in = o->base_height_mm / 25.4;
    memcpy(f->hill, o->hill, sizeof f->hill);
    if (f->hill_in > 0)
        f->ntags = le__hill_tags(f, o->hill_slope_in, o->base_height_mm / 25.4);
    /* ~35 px/inch at the table centre: f = 35 * distance.  The camera sits
     * off-centre toward y = 0 and looks at the middle of the table (tilt),
     * with a typical webcam's barrel distortion. */
    double scale = o->width / 3840.0;
    if (o->overhead60)
        rnd_camera_look_at(&f->cam, o->width, o->height, 2600.0 * scale, -0.08, 0.02, 36, 24, 60, 36, 24);
    else
        rnd_camera_look_at(&f->cam, o->width, o->height, 35.0 * 84.0 * scale, -0.08, 0.02, 36, 12, 80, 36, 24);
    f->scene.width_in = 72;
    f->scene.depth_in = 48;
    f->scene.felt_gray = 90;
    f->scene.floor_gray = 40;
    f->scene.tags = f->tags;
    f->scene.ntags = f->ntags;
    f->scene.light_gradient = o->gradient;
    f->scene.ambient = 1.0;
    f->scene.blur_sigma_px = o->blur;
    f->scene.noise_sigma = o->noise;
    f->scene.supersample = 3;
    f->scene.seed = o->seed;
    unsigned s = o->seed * 7919u + 1;
    for (int h = 0; h < o->hands && h < 8; h++) {
        rnd_occluder *oc = &f->occ[h];
        oc->x = 10 + 52 * (rand_r(&s) / (double)RAND_MAX);
        oc->y = 10 + 28 * (rand_r(&s) / (double)RAND_MAX);
        oc->height_in = 6;
        oc->rx = 2.5;
        oc->ry = 4;
        oc->angle_deg = 180 * (rand_r(&s) / (double)RAND_MAX);
        oc->gray = 170;
    }
    f->scene.occluders = f->occ;
    f->scene.noccluders = o->hands < 8 ? o->hands : 8;

    if ((st = rnd_render(&f->scene, &f->cam, &f->image, err)) != TT_OK)
        goto fail;
    snprintf(f->dir, sizeof f->dir, "/tmp/tt_locate_XXXXXX");
    if (!mkdtemp(f->dir)) {
        st = tt_err_set(err, TT_ERR_IO, "cannot make a temporary folder");
        goto fail;
    }
    snprintf(p, sizeof p, "%s/camera.yaml", f->dir);
    if ((st = rnd_write_camera_yaml(&f->cam, p, err)) != TT_OK)
        goto fail;
    snprintf(p, sizeof p, "%s/rig.json", f->dir);
    if ((st = rnd_write_rig(p, "camera.yaml", &f->scene, nanch, o->base_size_in, o->base_height_mm, err)) != TT_OK)
        goto fail;
    if ((st = calib_rig_load(p, &f->rig, err)) != TT_OK)
        goto fail;
    return TT_OK;
fail:
    le_frame_free(f);
    return st;
}

tt_status le_detect(const le_frame *f, vision_detections *ds, calib_pose *pose, int rect[4], tt_err *err)
{
    vision_detector_opts vo;
    vision_detector *det = NULL;
    vision_detector_opts_default(&vo);
    calib_rig_detector_opts(f->rig, &vo);
    vo.nthreads = 2;
    tt_status st = vision_detector_create(&vo, &det, err);
    if (st == TT_OK)
        st = calib_detect(f->rig, det, &f->image, 1, ds, pose, rect, err);
    vision_detector_destroy(det);
    return st;
}

void le_frame_free(le_frame *f)
{
    if (f->dir[0]) {
        char p[600];
        snprintf(p, sizeof p, "%s/rig.json", f->dir);
        remove(p);
        snprintf(p, sizeof p, "%s/camera.yaml", f->dir);
        remove(p);
        remove(f->dir);
    }
    calib_rig_destroy(f->rig);
    tt_image_free(&f->image);
    free(f->tags);
    memset(f, 0, sizeof *f);
}

static int le__cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double le__pct(double *v, int n, double q)
{
    if (n == 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, le__cmp);
    int k = (int)ceil(q * n) - 1;
    return v[k < 0 ? 0 : k];
}

/* Solve the 3x3 homography mapping 4 src points to 4 dst points (DLT with
 * h33 = 1, Gaussian elimination). */
static int le__homography4(const double src[4][2], const double dst[4][2], double H[9])
{
    double A[8][9];
    for (int i = 0; i < 4; i++) {
        double x = src[i][0], y = src[i][1], u = dst[i][0], v = dst[i][1];
        double r1[9] = {x, y, 1, 0, 0, 0, -u * x, -u * y, u};
        double r2[9] = {0, 0, 0, x, y, 1, -v * x, -v * y, v};
        memcpy(A[2 * i], r1, sizeof r1);
        memcpy(A[2 * i + 1], r2, sizeof r2);
    }
    for (int c = 0; c < 8; c++) {
        int piv = c;
        for (int r = c + 1; r < 8; r++)
            if (fabs(A[r][c]) > fabs(A[piv][c]))
                piv = r;
        if (fabs(A[piv][c]) < 1e-12)
            return 0;
        for (int k = 0; k < 9; k++) {
            double t = A[c][k];
            A[c][k] = A[piv][k];
            A[piv][k] = t;
        }
        for (int r = 0; r < 8; r++) {
            if (r == c)
                continue;
            double m = A[r][c] / A[c][c];
            for (int k = c; k < 9; k++)
                A[r][k] -= m * A[c][k];
        }
    }
    for (int i = 0; i < 8; i++)
        H[i] = A[i][8] / A[i][i];
    H[8] = 1;
    return 1;
}

void le_score_figures(const le_frame *f, const calib_figure *figs, int n, const calib_pose *pose,
                      const vision_detections *dets, le_score *s)
{
    int nb = f->ntags - f->nanchors;
    double *pe = calloc((size_t)nb + 1, sizeof *pe), *fe = calloc((size_t)nb + 1, sizeof *fe);
    double *he = calloc((size_t)nb + 1, sizeof *he);
    int m = 0, nh = 0;
    double s2 = 0, h2 = 0;
    (void)pose;
    memset(s, 0, sizeof *s);

    /* Baseline: homography from the 4 corner anchors' centres (distorted
     * pixels) to their table positions, applied to each tag centre. */
    double src[4][2], dst[4][2], H[9];
    int have = 0;
    for (int a = 0; a < 4 && a < f->nanchors; a++)
        for (int i = 0; i < dets->count; i++)
            if (dets->items[i].id == f->tags[a].id && !strcmp(dets->items[i].family, f->tags[a].family)) {
                src[have][0] = dets->items[i].center[0];
                src[have][1] = dets->items[i].center[1];
                dst[have][0] = f->tags[a].x;
                dst[have][1] = f->tags[a].y;
                have++;
                break;
            }
    int hok = have == 4 && le__homography4(src, dst, H);

    for (int t = f->nanchors; t < f->ntags; t++) {
        const rnd_tag *tag = &f->tags[t];
        int vis = rnd_tag_unoccluded(&f->scene, &f->cam, tag);
        const calib_figure *hit = NULL;
        for (int i = 0; i < n; i++)
            if (figs[i].id == tag->id && !strcmp(figs[i].family, tag->family))
                hit = &figs[i];
        if (vis)
            s->expected++;
        double txy[2];
        le_truth_xy(f, tag, txy);
        if (vis && le_on_hill(f, txy[0], txy[1]))
            s->hill_expected++;
        else if (vis && rnd_ground_height(&f->scene, txy[0], txy[1]) > 0)
            s->slope_expected++;
        if (!hit)
            continue;
        if (vis)
            s->found++;
        double bxy[2];
        le_truth_xy(f, tag, bxy);
        double e = hypot(hit->x - bxy[0], hit->y - bxy[1]);
        int on = le_on_hill(f, bxy[0], bxy[1]);
        double zt = rnd_ground_height(&f->scene, bxy[0], bxy[1]);
        int slope = !on && zt > 0;
        s->z_max = fmax(s->z_max, fabs(hit->z_in - zt));
        if (vis && slope) {
            s->slope_found++;
            s->slope_rms += e * e;
            s->slope_max = fmax(s->slope_max, e);
            s->slope_tilted += hit->height == CALIB_HEIGHT_SLOPE;
        }
        if (vis && on) {
            s->hill_found++;
            s->hill_rms += e * e;
            s->hill_max = fmax(s->hill_max, e);
            s->hill_off += hit->height == CALIB_HEIGHT_OFF;
        }
        if (!on && !slope)
            s->felt_off += hit->height == CALIB_HEIGHT_OFF || hit->height == CALIB_HEIGHT_BELOW;
        pe[m] = e;
        fe[m] = fabs(remainder(hit->facing_deg - tag->facing_deg, 360.0));
        s2 += e * e;
        m++;
        if (hok) {
            const vision_detection *d = &dets->items[hit->det_index];
            double x = d->center[0], y = d->center[1];
            double w = H[6] * x + H[7] * y + H[8];
            double hx = (H[0] * x + H[1] * y + H[2]) / w, hy = (H[3] * x + H[4] * y + H[5]) / w;
            double eh = hypot(hx - tag->x, hy - tag->y);
            he[nh++] = eh;
            h2 += eh * eh;
        }
    }
    for (int i = 0; i < n; i++) {
        int known = 0;
        for (int t = f->nanchors; t < f->ntags; t++)
            known |= figs[i].id == f->tags[t].id && !strcmp(figs[i].family, f->tags[t].family);
        s->spurious += !known;
    }
    s->rms = m ? sqrt(s2 / m) : 0;
    s->hill_rms = s->hill_found ? sqrt(s->hill_rms / s->hill_found) : 0;
    s->slope_rms = s->slope_found ? sqrt(s->slope_rms / s->slope_found) : 0;
    s->p95 = le__pct(pe, m, 0.95);
    s->max = m ? pe[m - 1] : 0;
    s->facing_p95 = le__pct(fe, m, 0.95);
    s->facing_max = m ? fe[m - 1] : 0;
    s->homography_rms = nh ? sqrt(h2 / nh) : NAN;
    free(pe);
    free(fe);
    free(he);
}
