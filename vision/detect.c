/* detect.c - libapriltag detector with family lookup by name and the
 * half-pixel conversion to OpenCV's convention. */
#include "vision.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <apriltag/apriltag.h>

#include "cvwrap.h"
#include "families.h"

struct vision_detector {
    apriltag_detector_t *td;
    apriltag_family_t *fams[VISION_MAX_FAMILIES];
    int famidx[VISION_MAX_FAMILIES];
    int nfams;
    int second_pass, auto_scale, refine_corners;
    int windows, found; /* of the last call's second pass */
};

void vision_detector_opts_default(vision_detector_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->decimate = 2.0;
    opts->refine_edges = 1;
    opts->sigma = 0.0;
    opts->nthreads = 1;
    opts->second_pass = 1;
    opts->refine_corners = 1;
}

tt_status vision_detector_create(const vision_detector_opts *opts, vision_detector **out, tt_err *err)
{
    vision_detector *det = NULL;
    const char *def = "tag36h11";
    const char *const *names = opts->nfamilies > 0 ? opts->families : &def;
    int n = opts->nfamilies > 0 ? opts->nfamilies : 1;
    tt_status st;

    *out = NULL;
    if (n > VISION_MAX_FAMILIES)
        return tt_err_set(err, TT_ERR_ARG, "at most %d tag families at once", VISION_MAX_FAMILIES);
    for (int i = 0; i < n; i++)
        if (!vision_family_known(names[i]))
            return tt_err_set(err, TT_ERR_UNKNOWN, "unknown tag family '%s' (known: %s)", names[i] ? names[i] : "",
                              vision_family_list());
    if (!(opts->decimate >= 1.0 && opts->decimate <= 8.0))
        return tt_err_set(err, TT_ERR_ARG, "decimate must be between 1 and 8 (got %g)", opts->decimate);
    if (opts->nthreads < 1 || opts->nthreads > 64)
        return tt_err_set(err, TT_ERR_ARG, "threads must be between 1 and 64 (got %d)", opts->nthreads);

    det = calloc(1, sizeof *det);
    if (!det)
        goto nomem;
    det->td = apriltag_detector_create();
    if (!det->td)
        goto nomem;
    det->td->quad_decimate = (float)opts->decimate;
    det->td->quad_sigma = (float)opts->sigma;
    det->td->refine_edges = opts->refine_edges != 0;
    det->td->nthreads = opts->nthreads;
    det->second_pass = opts->second_pass != 0;
    det->auto_scale = opts->auto_scale != 0;
    det->refine_corners = opts->refine_corners != 0;
    for (int i = 0; i < n; i++) {
        int k = vision_family_index(names[i]);
        int dup = 0;
        for (int j = 0; j < det->nfams; j++)
            dup |= det->famidx[j] == k;
        if (dup)
            continue;
        det->fams[det->nfams] = vision_family_create(k);
        if (!det->fams[det->nfams])
            goto nomem;
        det->famidx[det->nfams] = k;
        apriltag_detector_add_family_bits(det->td, det->fams[det->nfams], vision_family_bits_corrected(k));
        det->nfams++;
    }
    *out = det;
    return TT_OK;

nomem:
    st = tt_err_set(err, TT_ERR_NOMEM, "out of memory creating the tag detector");
    vision_detector_destroy(det);
    return st;
}

void vision_detector_destroy(vision_detector *det)
{
    if (!det)
        return;
    if (det->td)
        apriltag_detector_destroy(det->td);
    for (int i = 0; i < det->nfams; i++)
        vision_family_destroy(det->famidx[i], det->fams[i]);
    free(det);
}

void vision_detector_second_pass_stats(const vision_detector *det, int *windows, int *found)
{
    *windows = det ? det->windows : 0;
    *found = det ? det->found : 0;
}

void *vision_detector_raw(vision_detector *det)
{
    return det ? det->td : NULL;
}

static int vision__cmp(const void *a, const void *b)
{
    const vision_detection *x = a, *y = b;
    int c = strcmp(x->family, y->family);
    if (c)
        return c;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->center[1] != y->center[1])
        return x->center[1] < y->center[1] ? -1 : 1;
    return x->center[0] < y->center[0] ? -1 : x->center[0] > y->center[0];
}

tt_status vision_detect(vision_detector *det, const tt_image *gray, vision_detections *out, tt_err *err)
{
    if (!gray)
        return tt_err_set(err, TT_ERR_ARG, "tag detection needs an 8-bit gray image");
    return vision_detect_rect(det, gray, 0, 0, gray->width, gray->height, out, err);
}

/* Append libapriltag's detections zs (found in a view at x0, y0) to out,
 * converted to full-frame OpenCV pixels.  With dedupe, a tag already in out
 * (same family and id, centres closer than its side) is not added again. */
static tt_status vision__append(zarray_t *zs, int x0, int y0, int dedupe, vision_detections *out, tt_err *err)
{
    int n = zarray_size(zs);
    if (n == 0)
        return TT_OK;
    vision_detection *items = realloc(out->items, (size_t)(out->count + n) * sizeof *items);
    if (!items)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory for %d detections", out->count + n);
    out->items = items;
    for (int i = 0; i < n; i++) {
        apriltag_detection_t *d;
        vision_detection *o = &out->items[out->count];
        zarray_get(zs, i, &d);
        memset(o, 0, sizeof *o);
        snprintf(o->family, sizeof o->family, "%s", d->family->name);
        o->id = d->id;
        o->hamming = d->hamming;
        o->margin = d->decision_margin;
        o->center[0] = d->c[0] - 0.5 + x0;
        o->center[1] = d->c[1] - 0.5 + y0;
        for (int k = 0; k < 4; k++) {
            o->corners[k][0] = d->p[k][0] - 0.5 + x0;
            o->corners[k][1] = d->p[k][1] - 0.5 + y0;
        }
        int dup = 0;
        for (int j = 0; dedupe && j < out->count && !dup; j++) {
            const vision_detection *e = &out->items[j];
            double dx = e->center[0] - o->center[0], dy = e->center[1] - o->center[1];
            double side = hypot(e->corners[1][0] - e->corners[0][0], e->corners[1][1] - e->corners[0][1]);
            dup = e->id == o->id && !strcmp(e->family, o->family) && dx * dx + dy * dy < side * side;
        }
        out->count += !dup;
    }
    return TT_OK;
}

static double vision__side(const vision_detection *d)
{
    double s = 0;
    for (int k = 0; k < 4; k++)
        s += hypot(d->corners[(k + 1) % 4][0] - d->corners[k][0], d->corners[(k + 1) % 4][1] - d->corners[k][1]);
    return s / 4;
}

double vision_detection_px_per_cell(const vision_detector *det, const vision_detection *d)
{
    for (int i = 0; det && i < det->nfams; i++)
        if (!strcmp(det->fams[i]->name, d->family) && det->fams[i]->width_at_border > 0)
            return vision__side(d) / det->fams[i]->width_at_border;
    return 0;
}

/* Full-resolution detection of n windows (x, y, w, h relative to the view
 * im at x0, y0, already clipped), appended to out without duplicates. */
static tt_status vision__full_res(vision_detector *det, const image_u8_t *im, int x0, int y0, const int *boxes,
                                  int n, vision_detections *out, tt_err *err)
{
    tt_status st = TT_OK;
    float dec = det->td->quad_decimate;
    det->td->quad_decimate = 1;
    for (int w = 0; w < n && st == TT_OK; w++) {
        const int *a = boxes + 4 * w;
        image_u8_t sub = {.width = a[2], .height = a[3], .stride = im->stride,
                          .buf = im->buf + (size_t)a[1] * im->stride + a[0]};
        zarray_t *zs = apriltag_detector_detect(det->td, &sub);
        if (!zs) {
            st = tt_err_set(err, TT_ERR_NOMEM, "tag detection failed (out of memory?)");
            break;
        }
        st = vision__append(zs, x0 + a[0], y0 + a[1], 1, out, err);
        apriltag_detections_destroy(zs);
    }
    det->td->quad_decimate = dec;
    return st;
}

/* out's detections from `from` on refined in the frame (refine_corners). */
static void vision__refine(const vision_detector *det, const tt_image *gray, vision_detections *out, int from)
{
    for (int i = from; det->refine_corners && i < out->count; i++)
        vision_refine_corners(gray, &out->items[i], vision_detection_px_per_cell(det, &out->items[i]));
}

static int vision__box_cmp(const void *a, const void *b)
{
    const int *x = a, *y = b;
    long ax = (long)x[2] * x[3], ay = (long)y[2] * y[3];
    return ax > ay ? -1 : ax < ay;
}

#define VISION__MAX_BLOBS 4096
#define VISION__CONTRAST 24 /* gray levels across 3x3 half-size pixels */

/* The second pass of vision_detect_rect (vision.h): full-resolution
 * detection around tag-like regions (cvw_contrast_blobs) where the first pass decoded
 * nothing.  im is the window's view at (x0, y0); out holds the first pass. */
static tt_status vision__second_pass(vision_detector *det, const image_u8_t *im, int x0, int y0,
                                     vision_detections *out, tt_err *err)
{
    int first = out->count, minside, maxside;
    double smin = 1e30, smax = 0;
    for (int i = 0; i < first; i++) {
        double s = vision__side(&out->items[i]);
        smin = fmin(smin, s);
        smax = fmax(smax, s);
    }
    if (first > 0) {
        minside = (int)fmax(8, 0.5 * smin);
        maxside = (int)fmax(minside + 8, 1.6 * smax);
    } else {
        minside = 8;
        maxside = (im->width < im->height ? im->width : im->height) / 4;
    }
    if (maxside < minside)
        return TT_OK;
    int *boxes = malloc(4 * VISION__MAX_BLOBS * sizeof *boxes), nb = 0;
    if (!boxes)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory for the second detection pass");
    tt_image view = {.width = im->width, .height = im->height, .channels = 1, .stride = im->stride, .data = im->buf};
    tt_status st = cvw_contrast_blobs(&view, minside, maxside, VISION__CONTRAST, boxes, VISION__MAX_BLOBS, &nb, err);
    if (st != TT_OK)
        goto done;
    if (nb > VISION__MAX_BLOBS)
        nb = VISION__MAX_BLOBS;
    qsort(boxes, (size_t)nb, 4 * sizeof *boxes, vision__box_cmp);
    /* Accepted windows are kept in place at the front of boxes. */
    int nwin = 0;
    double budget = VISION_SECOND_PASS_MAX_AREA * im->width * im->height;
    for (int b = 0; b < nb; b++) {
        const int *bx = boxes + 4 * b;
        double cx = x0 + bx[0] + 0.5 * bx[2], cy = y0 + bx[1] + 0.5 * bx[3];
        int covered = 0;
        for (int i = 0; i < first && !covered; i++) {
            const vision_detection *d = &out->items[i];
            double r = 0.5 * vision__side(d);
            covered = fabs(cx - d->center[0]) < r && fabs(cy - d->center[1]) < r;
        }
        int m = (bx[2] > bx[3] ? bx[2] : bx[3]) / 2 + 4;
        int wx0 = bx[0] - m, wy0 = bx[1] - m, wx1 = bx[0] + bx[2] + m, wy1 = bx[1] + bx[3] + m;
        wx0 = wx0 < 0 ? 0 : wx0;
        wy0 = wy0 < 0 ? 0 : wy0;
        wx1 = wx1 > im->width ? im->width : wx1;
        wy1 = wy1 > im->height ? im->height : wy1;
        for (int w = 0; w < nwin && !covered; w++) {
            const int *a = boxes + 4 * w; /* an accepted window holding this blob */
            covered = bx[0] >= a[0] && bx[1] >= a[1] && bx[0] + bx[2] <= a[0] + a[2] && bx[1] + bx[3] <= a[1] + a[3];
        }
        double area = (double)(wx1 - wx0) * (wy1 - wy0);
        if (covered || area > budget)
            continue;
        budget -= area;
        int *a = boxes + 4 * nwin++;
        a[0] = wx0;
        a[1] = wy0;
        a[2] = wx1 - wx0;
        a[3] = wy1 - wy0;
    }
    det->windows = nwin;
    st = vision__full_res(det, im, x0, y0, boxes, nwin, out, err);
    det->found = out->count - first;
done:
    free(boxes);
    return st;
}

tt_status vision_detect_rect(vision_detector *det, const tt_image *gray, int x0, int y0, int w, int h,
                             vision_detections *out, tt_err *err)
{
    out->items = NULL;
    out->count = 0;
    if (!det || !gray || !gray->data || gray->channels != 1)
        return tt_err_set(err, TT_ERR_ARG, "tag detection needs an 8-bit gray image");
    if (x0 < 0 || y0 < 0 || w < 1 || h < 1 || x0 + w > gray->width || y0 + h > gray->height)
        return tt_err_set(err, TT_ERR_ARG, "detection window %dx%d+%d+%d is outside the %dx%d frame", w, h, x0, y0,
                          gray->width, gray->height);
    /* A view into the frame: libapriltag only reads its input. */
    image_u8_t im = {.width = w, .height = h, .stride = gray->stride,
                     .buf = gray->data + (size_t)y0 * gray->stride + x0};
    zarray_t *zs = apriltag_detector_detect(det->td, &im);
    if (!zs)
        return tt_err_set(err, TT_ERR_NOMEM, "tag detection failed (out of memory?)");
    tt_status st = vision__append(zs, x0, y0, 0, out, err);
    apriltag_detections_destroy(zs);
    det->windows = det->found = 0;
    if (st == TT_OK && det->second_pass && det->td->quad_decimate > 1 && w >= 16 && h >= 16)
        st = vision__second_pass(det, &im, x0, y0, out, err);
    if (st == TT_OK && det->auto_scale && det->td->quad_decimate > 1) {
        /* Small tags (or none): the half-size search may have missed some
         * of them; look again at full resolution. */
        double smallest = out->count ? 1e30 : 0;
        for (int i = 0; i < out->count; i++)
            smallest = fmin(smallest, vision_detection_px_per_cell(det, &out->items[i]));
        const int whole[4] = {0, 0, w, h};
        if (smallest < VISION_HALF_MIN_PX_PER_CELL)
            st = vision__full_res(det, &im, x0, y0, whole, 1, out, err);
    }
    if (st != TT_OK) {
        vision_detections_free(out);
        return st;
    }
    vision__refine(det, gray, out, 0);
    if (out->count > 1)
        qsort(out->items, (size_t)out->count, sizeof *out->items, vision__cmp);
    return TT_OK;
}

tt_status vision_detect_full_res(vision_detector *det, const tt_image *gray, const int *rects, int n,
                                 vision_detections *out, tt_err *err)
{
    if (!det || !gray || !gray->data || gray->channels != 1 || n < 0 || (n > 0 && !rects))
        return tt_err_set(err, TT_ERR_ARG, "full-resolution detection needs an 8-bit gray image and windows");
    image_u8_t im = {.width = gray->width, .height = gray->height, .stride = gray->stride, .buf = gray->data};
    int before = out->count;
    for (int i = 0; i < n; i++) {
        int x0 = rects[4 * i] < 0 ? 0 : rects[4 * i], y0 = rects[4 * i + 1] < 0 ? 0 : rects[4 * i + 1];
        int x1 = rects[4 * i] + rects[4 * i + 2], y1 = rects[4 * i + 1] + rects[4 * i + 3];
        x1 = x1 > gray->width ? gray->width : x1;
        y1 = y1 > gray->height ? gray->height : y1;
        if (x1 - x0 < 16 || y1 - y0 < 16)
            continue;
        const int box[4] = {x0, y0, x1 - x0, y1 - y0};
        tt_status st = vision__full_res(det, &im, 0, 0, box, 1, out, err);
        if (st != TT_OK) {
            out->count = before;
            return st;
        }
    }
    vision__refine(det, gray, out, before);
    if (out->count > 1)
        qsort(out->items, (size_t)out->count, sizeof *out->items, vision__cmp);
    return TT_OK;
}

void vision_detections_free(vision_detections *d)
{
    if (!d)
        return;
    free(d->items);
    d->items = NULL;
    d->count = 0;
}
