/* camera_calib.c - collect board views, map tag ids to board corners and
 * run OpenCV's calibration through cvwrap. */
#include "camera_calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vision.h"

typedef struct calib__view {
    calib_camera_view info;
    double *obj; /* npts * 3, board inches */
    double *img; /* npts * 2, pixels */
    int npts;
    int unusable; /* too few tags or all in one row/column (set when added) */
} calib__view;

struct calib_camera {
    calib_board board;
    calib_camera_opts opts;
    vision_detector *det; /* created on the first add_image */
    calib__view *views;
    int nviews, cap;
};

void calib_camera_opts_default(calib_camera_opts *o)
{
    memset(o, 0, sizeof *o);
    o->min_tags_per_image = 8;
    o->min_images = 3;
    o->fix_k3 = 1;
    o->decimate = 2.0;
}

tt_status calib_camera_create(const calib_board *board, const calib_camera_opts *opts, calib_camera **out,
                              tt_err *err)
{
    calib_camera *cc = NULL;
    tt_status st;
    *out = NULL;
    if (!board)
        return tt_err_set(err, TT_ERR_ARG, "camera calibration needs a board");
    if ((st = calib_board_validate(board, "board", err)) != TT_OK)
        return st;
    cc = calloc(1, sizeof *cc);
    if (!cc) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    cc->board = *board;
    if (opts)
        cc->opts = *opts;
    else
        calib_camera_opts_default(&cc->opts);
    if (cc->opts.min_tags_per_image < 2)
        cc->opts.min_tags_per_image = 2;
    if (cc->opts.min_images < 1)
        cc->opts.min_images = 1;
    if (!(cc->opts.decimate >= 1.0))
        cc->opts.decimate = 2.0;
    *out = cc;
    return TT_OK;

fail:
    calib_camera_destroy(cc);
    return st;
}

void calib_camera_destroy(calib_camera *cc)
{
    if (!cc)
        return;
    for (int i = 0; i < cc->nviews; i++) {
        free(cc->views[i].obj);
        free(cc->views[i].img);
    }
    free(cc->views);
    vision_detector_destroy(cc->det);
    free(cc);
}

int calib_camera_nviews(const calib_camera *cc)
{
    return cc ? cc->nviews : 0;
}

const calib_camera_view *calib_camera_view_info(const calib_camera *cc, int i)
{
    return cc && i >= 0 && i < cc->nviews ? &cc->views[i].info : NULL;
}

tt_status calib_camera_add_points(calib_camera *cc, const char *name, int width, int height, const int *ids,
                                  const double (*corners)[4][2], int ntags, tt_err *err)
{
    int nb = calib_board_ntags(&cc->board);
    int *seen = NULL;
    calib__view *v;
    int rmin = cc->board.rows, rmax = -1, cmin = cc->board.columns, cmax = -1;

    if (width <= 0 || height <= 0 || ntags < 0 || (ntags > 0 && (!ids || !corners)))
        return tt_err_set(err, TT_ERR_ARG, "calibration view '%s': bad image size or tag list", name ? name : "");
    if (cc->nviews == cc->cap) {
        int cap = cc->cap ? 2 * cc->cap : 16;
        calib__view *nv = realloc(cc->views, (size_t)cap * sizeof *nv);
        if (!nv)
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        cc->views = nv;
        cc->cap = cap;
    }
    v = &cc->views[cc->nviews];
    memset(v, 0, sizeof *v);
    snprintf(v->info.name, sizeof v->info.name, "%s", name ? name : "");
    v->info.width = width;
    v->info.height = height;
    v->info.rms_px = -1;
    v->info.tilt_deg = -1;

    /* Count each board id; an id seen twice (a reflection, a second board)
     * is ambiguous and dropped. */
    seen = calloc((size_t)nb, sizeof *seen);
    if (!seen)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    int nboard = 0;
    for (int i = 0; i < ntags; i++) {
        int k = calib_board_tag_index(&cc->board, ids[i]);
        if (k < 0)
            v->info.nother++;
        else if (seen[k]++ == 0)
            nboard++;
    }
    if (nboard > 0) {
        v->obj = malloc((size_t)nboard * 4 * 3 * sizeof *v->obj);
        v->img = malloc((size_t)nboard * 4 * 2 * sizeof *v->img);
        if (!v->obj || !v->img) {
            free(v->obj);
            free(v->img);
            free(seen);
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        }
    }
    for (int i = 0; i < ntags; i++) {
        int k = calib_board_tag_index(&cc->board, ids[i]);
        if (k < 0 || seen[k] != 1)
            continue;
        double oc[4][3];
        calib_board_tag_corners(&cc->board, k, oc);
        for (int c = 0; c < 4; c++) {
            memcpy(v->obj + 3 * v->npts, oc[c], 3 * sizeof(double));
            v->img[2 * v->npts] = corners[i][c][0];
            v->img[2 * v->npts + 1] = corners[i][c][1];
            v->npts++;
        }
        int r = k / cc->board.columns, col = k % cc->board.columns;
        rmin = r < rmin ? r : rmin;
        rmax = r > rmax ? r : rmax;
        cmin = col < cmin ? col : cmin;
        cmax = col > cmax ? col : cmax;
        v->info.ntags++;
    }
    free(seen);

    if (v->info.ntags < cc->opts.min_tags_per_image)
        snprintf(v->info.note, sizeof v->info.note,
                 "only %d board tags found; need %d: is the board in focus, well lit and fully in view?",
                 v->info.ntags, cc->opts.min_tags_per_image);
    else if (cc->board.rows > 1 && cc->board.columns > 1 && (rmin == rmax || cmin == cmax))
        snprintf(v->info.note, sizeof v->info.note,
                 "the %d board tags found all lie in one %s; get more of the board in view", v->info.ntags,
                 rmin == rmax ? "row" : "column");
    v->unusable = v->info.note[0] != '\0';
    cc->nviews++;
    return TT_OK;
}

tt_status calib_camera_add_image(calib_camera *cc, const char *name, const tt_image *gray, tt_err *err)
{
    vision_detections ds = {0};
    int *ids = NULL;
    double(*corners)[4][2] = NULL;
    tt_status st;

    if (!gray || !gray->data || gray->channels != 1)
        return tt_err_set(err, TT_ERR_ARG, "image %s: calibration needs an 8-bit gray image", name ? name : "");
    if (!cc->det) {
        vision_detector_opts o;
        vision_detector_opts_default(&o);
        o.families[0] = cc->board.family;
        o.nfamilies = 1;
        o.decimate = cc->opts.decimate;
        if ((st = vision_detector_create(&o, &cc->det, err)) != TT_OK)
            return st;
    }
    if ((st = vision_detect(cc->det, gray, &ds, err)) != TT_OK) {
        tt_err_prefix(err, "image %s", name ? name : "");
        return st;
    }
    if (ds.count > 0) {
        ids = malloc((size_t)ds.count * sizeof *ids);
        corners = malloc((size_t)ds.count * sizeof *corners);
        if (!ids || !corners) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            goto done;
        }
    }
    for (int i = 0; i < ds.count; i++) {
        /* Only exact decodes: a corrected bit on a calibration board means
         * a blurred or misread tag. */
        ids[i] = ds.items[i].hamming == 0 ? ds.items[i].id : -1;
        memcpy(corners[i], ds.items[i].corners, sizeof corners[i]);
    }
    st = calib_camera_add_points(cc, name, gray->width, gray->height, ids, (const double(*)[4][2])corners, ds.count,
                                 err);
done:
    free(ids);
    free(corners);
    vision_detections_free(&ds);
    return st;
}

/* The image size most views have (ties: the first view's). */
static void calib__common_size(const calib_camera *cc, int *w, int *h)
{
    int best = 0;
    *w = *h = 0;
    for (int i = 0; i < cc->nviews; i++) {
        int n = 0;
        for (int j = 0; j < cc->nviews; j++)
            n += cc->views[j].info.width == cc->views[i].info.width &&
                 cc->views[j].info.height == cc->views[i].info.height;
        if (n > best) {
            best = n;
            *w = cc->views[i].info.width;
            *h = cc->views[i].info.height;
        }
    }
}

tt_status calib_camera_solve(calib_camera *cc, cvw_camera *cam, calib_camera_result *res, tt_err *err)
{
    int w, h, nused = 0, npts = 0;
    int *counts = NULL, *which = NULL;
    double *obj = NULL, *img = NULL, *per_view = NULL;
    tt_status st = TT_OK;

    memset(res, 0, sizeof *res);
    memset(cam, 0, sizeof *cam);
    if (cc->nviews == 0)
        return tt_err_set(err, TT_ERR_ARG, "no images given: take at least %d photos of the whole board",
                          cc->opts.min_images);
    calib__common_size(cc, &w, &h);
    for (int i = 0; i < cc->nviews; i++) {
        calib_camera_view *in = &cc->views[i].info;
        in->used = 0;
        in->rms_px = -1;
        in->tilt_deg = -1;
        if (cc->views[i].unusable)
            continue;
        if (in->width != w || in->height != h) {
            snprintf(in->note, sizeof in->note,
                     "image is %dx%d but the other images are %dx%d: calibrate one camera resolution at a time",
                     in->width, in->height, w, h);
            continue;
        }
        in->note[0] = '\0';
        in->used = 1;
        nused++;
        npts += cc->views[i].npts;
    }
    if (nused < cc->opts.min_images) {
        char why[640] = "";
        size_t n = 0;
        for (int i = 0; i < cc->nviews && n < sizeof why - 1; i++) {
            if (cc->views[i].info.used)
                continue;
            int k = snprintf(why + n, sizeof why - n, "; %s: %s", cc->views[i].info.name, cc->views[i].info.note);
            n += k > 0 ? (size_t)k : 0;
        }
        for (int i = 0; i < cc->nviews; i++)
            cc->views[i].info.used = 0;
        return tt_err_set(err, TT_ERR_ARG,
                          "only %d usable image%s of %d; need at least %d images with %d or more board tags each "
                          "(photograph the whole board from different angles)%s",
                          nused, nused == 1 ? "" : "s", cc->nviews, cc->opts.min_images,
                          cc->opts.min_tags_per_image, why);
    }

    counts = malloc((size_t)nused * sizeof *counts);
    which = malloc((size_t)nused * sizeof *which);
    per_view = malloc((size_t)nused * sizeof *per_view);
    obj = malloc((size_t)npts * 3 * sizeof *obj);
    img = malloc((size_t)npts * 2 * sizeof *img);
    if (!counts || !which || !per_view || !obj || !img) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0, v = 0, p = 0; i < cc->nviews; i++) {
        const calib__view *cv = &cc->views[i];
        if (!cv->info.used)
            continue;
        counts[v] = cv->npts;
        which[v++] = i;
        memcpy(obj + 3 * p, cv->obj, (size_t)cv->npts * 3 * sizeof *obj);
        memcpy(img + 2 * p, cv->img, (size_t)cv->npts * 2 * sizeof *img);
        p += cv->npts;
    }
    cam->width = w;
    cam->height = h;
    st = cvw_calibrate_camera(cam, nused, counts, obj, img, cc->opts.fix_k3, &res->rms_px, per_view, err);
    if (st != TT_OK)
        goto done;
    if (!(cam->K[0] > 0 && cam->K[4] > 0 && isfinite(res->rms_px))) {
        st = tt_err_set(err, TT_ERR_CV,
                        "calibration did not converge (focal length %g x %g): check that the board file matches "
                        "the printed board",
                        cam->K[0], cam->K[4]);
        goto done;
    }
    res->nused = nused;
    res->npoints = npts;
    for (int v = 0, p = 0; v < nused; v++) {
        calib_camera_view *in = &cc->views[which[v]].info;
        double rv[3], tv[3], R[9];
        in->rms_px = per_view[v];
        /* Board tilt: angle between the board normal and the optical axis. */
        if (cvw_solve_pnp(cam, obj + 3 * p, img + 2 * p, counts[v], 0, rv, tv, NULL, NULL) == TT_OK &&
            cvw_rodrigues(rv, R, NULL) == TT_OK) {
            double c = fabs(R[8]);
            in->tilt_deg = acos(c > 1 ? 1 : c) * 180.0 / M_PI;
            if (in->tilt_deg > res->max_tilt_deg)
                res->max_tilt_deg = in->tilt_deg;
        }
        p += counts[v];
    }
done:
    if (st != TT_OK)
        for (int i = 0; i < cc->nviews; i++)
            cc->views[i].info.used = 0;
    free(counts);
    free(which);
    free(per_view);
    free(obj);
    free(img);
    return st;
}
