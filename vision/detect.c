/* detect.c - libapriltag detector with family lookup by name and the
 * half-pixel conversion to OpenCV's convention. */
#include "vision.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <apriltag/apriltag.h>

#include "families.h"

struct vision_detector {
    apriltag_detector_t *td;
    apriltag_family_t *fams[VISION_MAX_FAMILIES];
    int famidx[VISION_MAX_FAMILIES];
    int nfams;
};

void vision_detector_opts_default(vision_detector_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->decimate = 2.0;
    opts->refine_edges = 1;
    opts->sigma = 0.0;
    opts->nthreads = 1;
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
    int n = zarray_size(zs);
    if (n > 0) {
        out->items = calloc((size_t)n, sizeof *out->items);
        if (!out->items) {
            apriltag_detections_destroy(zs);
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory for %d detections", n);
        }
    }
    for (int i = 0; i < n; i++) {
        apriltag_detection_t *d;
        vision_detection *o = &out->items[i];
        zarray_get(zs, i, &d);
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
    }
    out->count = n;
    apriltag_detections_destroy(zs);
    if (n > 1)
        qsort(out->items, (size_t)n, sizeof *out->items, vision__cmp);
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
