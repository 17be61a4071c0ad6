/* check.c - see check.h. */
#include "check.h"

#include "phantom.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void calib_check_report_free(calib_check_report *r)
{
    if (!r)
        return;
    free(r->figures);
    r->figures = NULL;
    r->nfigures = 0;
}

/* The four corners of a flat square of side s centred on (x, y). */
static void check__square(double x, double y, double s, double *xy)
{
    const double dx[4] = {-0.5, 0.5, 0.5, -0.5}, dy[4] = {-0.5, -0.5, 0.5, 0.5};
    for (int k = 0; k < 4; k++) {
        xy[2 * k] = x + dx[k] * s;
        xy[2 * k + 1] = y + dy[k] * s;
    }
}

/* Area of a quadrilateral (shoelace), pixels squared. */
static double check__area(const double *px)
{
    double a = 0;
    for (int k = 0; k < 4; k++) {
        int j = (k + 1) % 4;
        a += px[2 * k] * px[2 * j + 1] - px[2 * j] * px[2 * k + 1];
    }
    return fabs(a) / 2;
}

/* The corners (x y z, z up, table inches) of a square of side s lying on
 * the ground at (x, y), base_h above it along the ground's normal: flat on
 * flat ground, in the side's plane on a slope (tilted, so the camera sees
 * it foreshortened).  Around in the order of check__square. */
static void check__square_on(const tt_ground *g, double x, double y, double s, double base_h, double *xyz)
{
    double gx, gy, h = tt_ground_height(g, x, y);
    tt_ground_gradient(g, x, y, &gx, &gy);
    double G = hypot(gx, gy), nn = sqrt(1 + G * G), L = nn;
    double dx = G > 0 ? gx / G : 1, dy = G > 0 ? gy / G : 0;
    /* u: up the slope in its plane; v: across it, level */
    const double u[3] = {dx / L, dy / L, G / L}, v[3] = {-dy, dx, 0}, n[3] = {-gx / nn, -gy / nn, 1 / nn};
    const double su[4] = {-0.5, 0.5, 0.5, -0.5}, sv[4] = {-0.5, -0.5, 0.5, 0.5};
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++)
            xyz[3 * k + c] = (c == 0 ? x : c == 1 ? y : h) + base_h * n[c] + s * (su[k] * u[c] + sv[k] * v[c]);
}

double calib_px_per_cell_on(const calib_rig *rig, const calib_pose *pose, const tt_ground *ground, double x,
                            double y, double base_h, double size_in)
{
    double xyz[12], px[8];
    check__square_on(ground, x, y, size_in / CALIB_CELLS_PER_TAG, base_h, xyz);
    for (int k = 0; k < 4; k++)
        xyz[3 * k + 2] *= pose->up;
    if (cvw_project_points(&rig->camera, xyz, 4, pose->rvec, pose->tvec, px, NULL) != TT_OK)
        return NAN;
    return sqrt(check__area(px));
}

double calib_px_per_cell(const calib_rig *rig, const calib_pose *pose, double x, double y, double height_in,
                         double size_in)
{
    double xy[8], px[8], cell = size_in / CALIB_CELLS_PER_TAG;
    check__square(x, y, cell, xy);
    if (calib_project(&rig->camera, pose, xy, 4, height_in, px, NULL) != TT_OK)
        return NAN;
    return sqrt(check__area(px));
}

__attribute__((format(printf, 2, 3))) static void check__advise(calib_check_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (r->nadvice < CALIB_CHECK_ADVICE)
        vsnprintf(r->advice[r->nadvice++], sizeof r->advice[0], fmt, ap);
    va_end(ap);
}

tt_status calib_check(const calib_rig *rig, const calib_pose *pose, const vision_detections *dets,
                      calib_check_report *r, tt_err *err)
{
    return calib_check_ground(rig, pose, dets, NULL, r, err);
}

tt_status calib_check_ground(const calib_rig *rig, const calib_pose *pose, const vision_detections *dets,
                             const tt_ground *ground, calib_check_report *r, tt_err *err)
{
    memset(r, 0, sizeof *r);
    r->figures_min = -1;
    r->anchors_total = rig->nanchors;
    r->anchors_seen = pose->anchors_used;
    r->reprojection_rms_px = pose->rms_px;
    r->camera_height_in = fabs(pose->center[2]);
    double size = rig->base_size_in > 0 ? rig->base_size_in : 1, base_h = rig->base_height_mm / 25.4;

    /* every spot of the table, one batched projection */
    int nx = (int)floor(rig->width_in / CALIB_CHECK_STEP_IN) + 1, ny = (int)floor(rig->depth_in / CALIB_CHECK_STEP_IN) + 1;
    size_t n = (size_t)nx * (size_t)ny;
    double *xy = malloc(sizeof(double) * 8 * n), *px = malloc(sizeof(double) * 8 * n),
           *xyz = malloc(sizeof(double) * 12 * n);
    if (!xy || !px || !xyz) {
        free(xy);
        free(px);
        free(xyz);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory checking %zu spots of the table", n);
    }
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            size_t k = (size_t)j * nx + i;
            double x = fmin(i * CALIB_CHECK_STEP_IN, rig->width_in), y = fmin(j * CALIB_CHECK_STEP_IN, rig->depth_in);
            check__square(x, y, size / CALIB_CELLS_PER_TAG, &xy[8 * k]);
            /* a tag on a hill's slope lies in its plane: tilted, higher */
            check__square_on(ground, x, y, size / CALIB_CELLS_PER_TAG, base_h, &xyz[12 * k]);
            for (int c = 0; c < 4; c++)
                xyz[12 * k + 3 * c + 2] *= pose->up;
        }
    tt_status st = cvw_project_points(&rig->camera, xyz, (int)(4 * n), pose->rvec, pose->tvec, px, err);
    free(xyz);
    if (st != TT_OK) {
        free(xy);
        free(px);
        return st;
    }
    r->min_px_per_cell = INFINITY;
    for (size_t k = 0; k < n; k++) {
        double ppc = sqrt(check__area(&px[8 * k]));
        if (!isfinite(ppc))
            continue;
        if (ppc < r->min_px_per_cell) {
            r->min_px_per_cell = ppc;
            r->min_at[0] = (xy[8 * k] + xy[8 * k + 4]) / 2;
            r->min_at[1] = (xy[8 * k + 1] + xy[8 * k + 5]) / 2;
        }
        r->max_px_per_cell = fmax(r->max_px_per_cell, ppc);
    }
    free(xy);
    free(px);
    if (!isfinite(r->min_px_per_cell))
        return tt_err_set(err, TT_ERR_ANCHORS, "the camera pose puts no spot of the table in front of the camera: "
                                               "check the rig's anchors");
    /* the pose's error in inches, at the table's mean scale */
    double ppi = 0.5 * (r->min_px_per_cell + r->max_px_per_cell) * CALIB_CELLS_PER_TAG / size;
    r->reprojection_rms_in = ppi > 0 ? r->reprojection_rms_px / ppi : 0;
    r->smallest_tag_in = size * CALIB_MIN_PX_PER_CELL / r->min_px_per_cell;
    r->ok = r->min_px_per_cell >= CALIB_MIN_PX_PER_CELL;

    /* the figure tags seen, measured by their own corners */
    int nf = 0;
    for (int i = 0; i < dets->count; i++)
        nf += calib_rig_is_base_tag(rig, dets->items[i].family, dets->items[i].id);
    if (nf > 0) {
        calib_figure *figs = NULL;
        int nfig = 0;
        if ((st = calib_locate(rig, pose, dets, &figs, &nfig, err)) != TT_OK)
            return st;
        r->phantoms = calib_drop_phantoms(rig, dets, figs, &nfig);
        r->figures = calloc((size_t)nfig + 1, sizeof *r->figures);
        if (!r->figures) {
            free(figs);
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        }
        for (int f = 0; f < nfig; f++) {
            const vision_detection *d = &dets->items[figs[f].det_index];
            double edge = 0;
            for (int k = 0; k < 4; k++)
                edge += hypot(d->corners[(k + 1) % 4][0] - d->corners[k][0],
                              d->corners[(k + 1) % 4][1] - d->corners[k][1]);
            calib_check_figure *c = &r->figures[r->nfigures];
            memcpy(c->family, figs[f].family, sizeof c->family);
            c->id = figs[f].id;
            c->x = figs[f].x;
            c->y = figs[f].y;
            c->px_per_cell = edge / 4 / CALIB_CELLS_PER_TAG;
            if (r->figures_min < 0 || c->px_per_cell < r->figures[r->figures_min].px_per_cell)
                r->figures_min = r->nfigures;
            r->nfigures++;
        }
        free(figs);
    }

    if (!r->ok) {
        double need = CALIB_MIN_PX_PER_CELL / r->min_px_per_cell; /* scale this spot needs */
        int w = rig->camera.width;
        if (w > 0 && w < 3000)
            check__advise(r, "use a 4K camera: 3840 px across instead of %.0f would give about %.1f px per cell at "
                             "the worst spot",
                          (double)w, r->min_px_per_cell * 3840 / w);
        check__advise(r, "mount the camera lower: about %.0f\" above the felt instead of %.0f\" (a wider lens may "
                         "be needed to see the whole table)",
                      floor(r->camera_height_in / need), r->camera_height_in);
        check__advise(r, "print larger tags: size_in %.2f\" or more (tabletrack print tags --size-in %.2f), and "
                         "set it in the rig file",
                      ceil(r->smallest_tag_in * 20) / 20, ceil(r->smallest_tag_in * 20) / 20);
        check__advise(r, "or split the table between two cameras (\"cameras\" in the rig file: docs/setup.md)");
    }
    return TT_OK;
}
