/* scale.c - see scale.h. */
#include "scale.h"

#include <math.h>
#include <stdlib.h>

tt_status calib_fine_rect(const calib_rig *rig, const calib_pose *pose, int width, int height, int rect[4],
                          tt_err *err)
{
    rect[0] = rect[1] = rect[2] = rect[3] = 0;
    double size = rig->base_size_in > 0 ? rig->base_size_in : 1, h = rig->base_height_mm / 25.4;
    double cell = size / 8, edge = 1.5 * size; /* a base beyond the table's edge */
    int nx = (int)ceil((rig->width_in + 2 * edge) / CALIB_SCALE_STEP_IN) + 1;
    int ny = (int)ceil((rig->depth_in + 2 * edge) / CALIB_SCALE_STEP_IN) + 1;
    size_t n = (size_t)nx * (size_t)ny;
    /* per spot: a cell (its area gives px per cell) and the tag's corners */
    double *xy = malloc(sizeof(double) * 16 * n), *px = malloc(sizeof(double) * 16 * n);
    if (!xy || !px) {
        free(xy);
        free(px);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory choosing the detection scale");
    }
    const double dx[4] = {-0.5, 0.5, 0.5, -0.5}, dy[4] = {-0.5, -0.5, 0.5, 0.5};
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            double x = fmin(-edge + i * CALIB_SCALE_STEP_IN, rig->width_in + edge);
            double y = fmin(-edge + j * CALIB_SCALE_STEP_IN, rig->depth_in + edge);
            double *p = &xy[16 * ((size_t)j * nx + i)];
            for (int k = 0; k < 4; k++) {
                p[2 * k] = x + dx[k] * cell;
                p[2 * k + 1] = y + dy[k] * cell;
                p[8 + 2 * k] = x + dx[k] * size;
                p[8 + 2 * k + 1] = y + dy[k] * size;
            }
        }
    tt_status st = calib_project(&rig->camera, pose, xy, (int)(8 * n), h, px, err);
    double x0 = 1e30, y0 = 1e30, x1 = -1e30, y1 = -1e30, side = 0;
    for (size_t k = 0; st == TT_OK && k < n; k++) {
        const double *p = &px[16 * k];
        double a = 0;
        for (int c = 0; c < 4; c++)
            a += p[2 * c] * p[2 * ((c + 1) % 4) + 1] - p[2 * ((c + 1) % 4)] * p[2 * c + 1];
        double ppc = sqrt(fabs(a) / 2);
        if (!isfinite(ppc) || ppc >= VISION_HALF_MIN_PX_PER_CELL)
            continue;
        for (int c = 4; c < 8; c++) {
            if (!isfinite(p[2 * c]) || !isfinite(p[2 * c + 1]))
                continue;
            x0 = fmin(x0, p[2 * c]);
            x1 = fmax(x1, p[2 * c]);
            y0 = fmin(y0, p[2 * c + 1]);
            y1 = fmax(y1, p[2 * c + 1]);
        }
        side = fmax(side, 8 * ppc);
    }
    free(xy);
    free(px);
    if (st != TT_OK || x1 < x0)
        return st;
    /* grown by a tag and a little, so a tag at the rectangle's edge is whole */
    double m = side + 8;
    int ax = (int)fmax(0, floor(x0 - m)), ay = (int)fmax(0, floor(y0 - m));
    int bx = (int)fmin(width, ceil(x1 + m)), by = (int)fmin(height, ceil(y1 + m));
    if (bx - ax < 16 || by - ay < 16)
        return TT_OK;
    rect[0] = ax;
    rect[1] = ay;
    rect[2] = bx - ax;
    rect[3] = by - ay;
    return TT_OK;
}

tt_status calib_detect(const calib_rig *rig, vision_detector *det, const tt_image *gray, int rescale,
                       vision_detections *dets, calib_pose *pose, int fine_rect[4], tt_err *err)
{
    int rect[4] = {0, 0, 0, 0};
    tt_status st;
    if (fine_rect)
        fine_rect[0] = fine_rect[1] = fine_rect[2] = fine_rect[3] = 0;
    if ((st = vision_detect(det, gray, dets, err)) != TT_OK)
        return st;
    if ((st = calib_pose_solve(rig, dets, pose, err)) != TT_OK)
        goto fail;
    if (!rescale)
        return TT_OK;
    if ((st = calib_fine_rect(rig, pose, gray->width, gray->height, rect, err)) != TT_OK)
        goto fail;
    if (rect[2] > 0 && (st = vision_detect_full_res(det, gray, rect, 1, dets, err)) != TT_OK)
        goto fail;
    if (fine_rect)
        for (int k = 0; k < 4; k++)
            fine_rect[k] = rect[k];
    return TT_OK;
fail:
    vision_detections_free(dets);
    return st;
}
