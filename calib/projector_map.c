/* projector_map.c - the table -> projector map: homography (the felt) or a
 * 3D pinhole P (any height), plus an optional correction grid, and
 * projector.json reading and writing. */
#include "projector.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tt_json.h"
#include "tt_tmpfile.h"

struct calib_projector {
    int width, height;
    double H[9], Hinv[9];
    int pinhole;  /* 1: P is the model; H is P at height 0 */
    double P[12]; /* (x, y, height_in, 1) -> projector px, row-major */
    int nx, ny; /* 0 when there is no grid */
    double x0, y0, step;
    double *dx, *dy; /* owned, nx*ny */
    double rms_px, rms_in;
    int npoints;
    double table_w, table_d; /* the table it was calibrated on, inches; 0 when not recorded */
    double gamma;            /* measured light = value^gamma; 0 when not measured */
};

static int projector__invert3(const double m[9], double inv[9])
{
    double c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8], c2 = m[3] * m[7] - m[4] * m[6];
    double det = m[0] * c0 + m[1] * c1 + m[2] * c2;
    if (!(fabs(det) > 1e-300) || !isfinite(det))
        return 0;
    double id = 1.0 / det;
    inv[0] = c0 * id;
    inv[1] = (m[2] * m[7] - m[1] * m[8]) * id;
    inv[2] = (m[1] * m[5] - m[2] * m[4]) * id;
    inv[3] = c1 * id;
    inv[4] = (m[0] * m[8] - m[2] * m[6]) * id;
    inv[5] = (m[2] * m[3] - m[0] * m[5]) * id;
    inv[6] = c2 * id;
    inv[7] = (m[1] * m[6] - m[0] * m[7]) * id;
    inv[8] = (m[0] * m[4] - m[1] * m[3]) * id;
    return 1;
}

tt_status calib_projector_create(int width, int height, const double H[9], calib_projector **out, tt_err *err)
{
    calib_projector *pj = NULL;
    *out = NULL;
    if (width < 1 || height < 1 || width > CALIB_PROJECTOR_MAX_SIDE || height > CALIB_PROJECTOR_MAX_SIDE)
        return tt_err_set(err, TT_ERR_ARG, "projector size %dx%d is not valid (1..%d pixels each side)", width, height,
                          CALIB_PROJECTOR_MAX_SIDE);
    for (int i = 0; i < 9; i++)
        if (!isfinite(H[i]))
            return tt_err_set(err, TT_ERR_ARG, "table_to_projector has a value that is not a finite number");
    pj = calloc(1, sizeof *pj);
    if (!pj)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    pj->width = width;
    pj->height = height;
    memcpy(pj->H, H, sizeof pj->H);
    pj->rms_px = pj->rms_in = -1;
    if (!projector__invert3(H, pj->Hinv)) {
        tt_err_set(err, TT_ERR_FORMAT,
                   "table_to_projector is singular (it maps the table onto a line): recalibrate the projector");
        goto fail;
    }
    *out = pj;
    return TT_OK;
fail:
    calib_projector_destroy(pj);
    return err ? err->status : TT_ERR_FORMAT;
}

tt_status calib_projector_create_pinhole(int width, int height, const double P[12], calib_projector **out,
                                         tt_err *err)
{
    double H[9] = {P[0], P[1], P[3], P[4], P[5], P[7], P[8], P[9], P[11]};
    for (int i = 0; i < 12; i++)
        if (!isfinite(P[i]))
            return tt_err_set(err, TT_ERR_ARG, "the projector's P has a value that is not a finite number");
    tt_status st = calib_projector_create(width, height, H, out, err);
    if (st != TT_OK)
        return st;
    (*out)->pinhole = 1;
    memcpy((*out)->P, P, sizeof (*out)->P);
    return TT_OK;
}

int calib_projector_is_3d(const calib_projector *pj)
{
    return pj && pj->pinhole;
}

int calib_projector_pinhole(const calib_projector *pj, double P[12])
{
    if (!pj || !pj->pinhole)
        return 0;
    memcpy(P, pj->P, sizeof pj->P);
    return 1;
}

void calib_projector_destroy(calib_projector *pj)
{
    if (!pj)
        return;
    free(pj->dx);
    free(pj->dy);
    free(pj);
}

void calib_projector_size(const calib_projector *pj, int *width, int *height)
{
    if (width)
        *width = pj->width;
    if (height)
        *height = pj->height;
}

void calib_projector_homography(const calib_projector *pj, double H[9])
{
    memcpy(H, pj->H, sizeof pj->H);
}

tt_status calib_projector_set_grid(calib_projector *pj, double x0, double y0, double step_in, int nx, int ny,
                                   const double *dx, const double *dy, tt_err *err)
{
    if (nx < 2 || ny < 2 || nx > 4096 || ny > 4096 || !(step_in > 0) || !isfinite(x0) || !isfinite(y0) ||
        !isfinite(step_in))
        return tt_err_set(err, TT_ERR_FORMAT, "correction grid: needs nx, ny >= 2 and a positive step_in");
    size_t n = (size_t)nx * (size_t)ny;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(dx[i]) || !isfinite(dy[i]))
            return tt_err_set(err, TT_ERR_FORMAT, "correction grid: offset %zu is not a finite number", i);
    double *ndx = malloc(n * sizeof *ndx), *ndy = malloc(n * sizeof *ndy);
    if (!ndx || !ndy) {
        free(ndx);
        free(ndy);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    memcpy(ndx, dx, n * sizeof *ndx);
    memcpy(ndy, dy, n * sizeof *ndy);
    free(pj->dx);
    free(pj->dy);
    pj->dx = ndx;
    pj->dy = ndy;
    pj->nx = nx;
    pj->ny = ny;
    pj->x0 = x0;
    pj->y0 = y0;
    pj->step = step_in;
    return TT_OK;
}

int calib_projector_has_grid(const calib_projector *pj)
{
    return pj && pj->nx > 0;
}

void calib_projector_set_residual(calib_projector *pj, double rms_px, double rms_in, int npoints)
{
    pj->rms_px = rms_px;
    pj->rms_in = rms_in;
    pj->npoints = npoints;
}

void calib_projector_residual(const calib_projector *pj, double *rms_px, double *rms_in, int *npoints)
{
    if (rms_px)
        *rms_px = pj->rms_px;
    if (rms_in)
        *rms_in = pj->rms_in;
    if (npoints)
        *npoints = pj->npoints;
}

/* Bilinear offset of the grid at table point (x, y); clamped at the edges. */
static void projector__grid(const calib_projector *pj, double x, double y, double *ox, double *oy)
{
    double gx = (x - pj->x0) / pj->step, gy = (y - pj->y0) / pj->step;
    if (!(gx >= 0))
        gx = 0;
    if (!(gy >= 0))
        gy = 0;
    if (gx > pj->nx - 1)
        gx = pj->nx - 1;
    if (gy > pj->ny - 1)
        gy = pj->ny - 1;
    int i = (int)gx, j = (int)gy;
    if (i > pj->nx - 2)
        i = pj->nx - 2;
    if (j > pj->ny - 2)
        j = pj->ny - 2;
    double fx = gx - i, fy = gy - j;
    size_t k = (size_t)j * pj->nx + i;
    double w00 = (1 - fx) * (1 - fy), w10 = fx * (1 - fy), w01 = (1 - fx) * fy, w11 = fx * fy;
    *ox = w00 * pj->dx[k] + w10 * pj->dx[k + 1] + w01 * pj->dx[k + pj->nx] + w11 * pj->dx[k + pj->nx + 1];
    *oy = w00 * pj->dy[k] + w10 * pj->dy[k + 1] + w01 * pj->dy[k + pj->nx] + w11 * pj->dy[k + pj->nx + 1];
}

void calib_projector_map(const calib_projector *pj, const double *xy, int n, double *px)
{
    const double *H = pj->H;
    for (int i = 0; i < n; i++) {
        double x = xy[2 * i], y = xy[2 * i + 1];
        double w = H[6] * x + H[7] * y + H[8];
        if (!(w > 1e-12)) {
            px[2 * i] = px[2 * i + 1] = NAN;
            continue;
        }
        double u = (H[0] * x + H[1] * y + H[2]) / w, v = (H[3] * x + H[4] * y + H[5]) / w;
        if (pj->nx > 0) {
            double ox, oy;
            projector__grid(pj, x, y, &ox, &oy);
            u += ox;
            v += oy;
        }
        px[2 * i] = u;
        px[2 * i + 1] = v;
    }
}

void calib_projector_map3(const calib_projector *pj, const double *xyz, int n, double *px)
{
    if (!pj->pinhole) {
        for (int i = 0; i < n; i++) {
            double xy[2] = {xyz[3 * i], xyz[3 * i + 1]};
            calib_projector_map(pj, xy, 1, px + 2 * i);
        }
        return;
    }
    const double *P = pj->P, *M = pj->Hinv;
    for (int i = 0; i < n; i++) {
        double x = xyz[3 * i], y = xyz[3 * i + 1], h = xyz[3 * i + 2];
        double w = P[8] * x + P[9] * y + P[10] * h + P[11];
        if (!(w > 1e-12) || !isfinite(h)) {
            px[2 * i] = px[2 * i + 1] = NAN;
            continue;
        }
        double u = (P[0] * x + P[1] * y + P[2] * h + P[3]) / w, v = (P[4] * x + P[5] * y + P[6] * h + P[7]) / w;
        if (pj->nx > 0) {
            /* the grid is a function of the projector pixel, stored where
             * that pixel's ray meets the felt */
            double wf = M[6] * u + M[7] * v + M[8], ox = 0, oy = 0;
            if (fabs(wf) > 1e-300)
                projector__grid(pj, (M[0] * u + M[1] * v + M[2]) / wf, (M[3] * u + M[4] * v + M[5]) / wf, &ox, &oy);
            u += ox;
            v += oy;
        }
        px[2 * i] = u;
        px[2 * i + 1] = v;
    }
}

int calib_projector_unmap(const calib_projector *pj, double u, double v, double xy[2])
{
    const double *M = pj->Hinv;
    double w = M[6] * u + M[7] * v + M[8];
    double x = (M[0] * u + M[1] * v + M[2]) / w, y = (M[3] * u + M[4] * v + M[5]) / w;
    /* the point must be in front of the projector: positive w in H */
    const double *H = pj->H;
    if (!isfinite(x) || !isfinite(y) || !(H[6] * x + H[7] * y + H[8] > 0))
        return 0;
    xy[0] = x;
    xy[1] = y;
    return 1;
}

/* ---- JSON ------------------------------------------------------------- */

/* rows x cols numbers under `key` (row-major into out). */
static tt_status projector__read_matrix(const json_t *m, const char *key, int rows, int cols, const char *where,
                                        double *out, tt_err *err)
{
    if (!json_is_array(m) || json_array_size(m) != (size_t)rows)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must be %d rows of %d numbers", where, key, rows, cols);
    for (int r = 0; r < rows; r++) {
        const json_t *row = json_array_get(m, (size_t)r);
        if (!json_is_array(row) || json_array_size(row) != (size_t)cols)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" row %d must have %d numbers", where, key, r + 1, cols);
        for (int c = 0; c < cols; c++) {
            const json_t *v = json_array_get(row, (size_t)c);
            if (!json_is_number(v))
                return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\"[%d][%d] is not a number", where, key, r, c);
            out[r * cols + c] = json_number_value(v);
        }
    }
    return TT_OK;
}

static tt_status projector__read_grid_array(const json_t *g, const char *key, const char *where, int nx, int ny,
                                            double *out, tt_err *err)
{
    const json_t *a = json_object_get(g, key);
    if (!json_is_array(a) || json_array_size(a) != (size_t)ny)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: correction.%s must be %d rows of %d numbers", where, key, ny, nx);
    for (int j = 0; j < ny; j++) {
        const json_t *row = json_array_get(a, j);
        if (!json_is_array(row) || json_array_size(row) != (size_t)nx)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: correction.%s row %d must have %d numbers", where, key, j + 1,
                              nx);
        for (int i = 0; i < nx; i++) {
            const json_t *v = json_array_get(row, i);
            if (!json_is_number(v))
                return tt_err_set(err, TT_ERR_FORMAT, "%s: correction.%s[%d][%d] is not a number", where, key, j, i);
            out[(size_t)j * nx + i] = json_number_value(v);
        }
    }
    return TT_OK;
}

static tt_status projector__read_int(const json_t *root, const char *key, const char *where, int lo, int hi, int *out,
                                     tt_err *err)
{
    const json_t *v = json_object_get(root, key);
    if (!v)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: missing \"%s\"", where, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must be a whole number from %d to %d", where, key, lo, hi);
    *out = (int)json_integer_value(v);
    return TT_OK;
}

tt_status calib_projector_load(const char *path, calib_projector **out, tt_err *err)
{
    json_t *root = NULL;
    calib_projector *pj = NULL;
    double H[9], *dx = NULL, *dy = NULL;
    int w, h;
    tt_status st;

    *out = NULL;
    st = tt_json_load_file(path, &root, err);
    if (st != TT_OK)
        return st;
    if (!json_is_object(root)) {
        st = tt_err_set(err, TT_ERR_FORMAT, "%s: must be a JSON object with width, height, table_to_projector", path);
        goto fail;
    }
    if ((st = projector__read_int(root, "width", path, 1, CALIB_PROJECTOR_MAX_SIDE, &w, err)) != TT_OK ||
        (st = projector__read_int(root, "height", path, 1, CALIB_PROJECTOR_MAX_SIDE, &h, err)) != TT_OK)
        goto fail;
    const json_t *model = json_object_get(root, "model"), *Pj = json_object_get(root, "P");
    if (model && !(json_is_string(model) && (!strcmp(json_string_value(model), "plane") ||
                                             !strcmp(json_string_value(model), "pinhole")))) {
        st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"model\" must be \"plane\" or \"pinhole\"", path);
        goto fail;
    }
    if (model && !strcmp(json_string_value(model), "pinhole") && !Pj) {
        st = tt_err_set(err, TT_ERR_FORMAT,
                        "%s: model \"pinhole\" needs \"P\" (3 rows of 4 numbers): recalibrate the projector", path);
        goto fail;
    }
    if (Pj) {
        double P[12];
        if ((st = projector__read_matrix(Pj, "P", 3, 4, path, P, err)) != TT_OK)
            goto fail;
        st = calib_projector_create_pinhole(w, h, P, &pj, err);
    } else {
        if (!json_object_get(root, "table_to_projector")) {
            st = tt_err_set(err, TT_ERR_FORMAT,
                            "%s: missing \"table_to_projector\" (run 'tabletrack calib projector' to make this file)",
                            path);
            goto fail;
        }
        if ((st = projector__read_matrix(json_object_get(root, "table_to_projector"), "table_to_projector", 3, 3,
                                         path, H, err)) != TT_OK)
            goto fail;
        st = calib_projector_create(w, h, H, &pj, err);
    }
    if (st != TT_OK) {
        tt_err_prefix(err, "%s", path);
        goto fail;
    }
    const json_t *g = json_object_get(root, "correction");
    if (g && !json_is_null(g)) {
        double x0, y0, step;
        int nx, ny;
        if (!json_is_object(g)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"correction\" must be an object", path);
            goto fail;
        }
        if ((st = tt_json_number(g, "x0", "correction", &x0, err)) != TT_OK ||
            (st = tt_json_number(g, "y0", "correction", &y0, err)) != TT_OK ||
            (st = tt_json_number(g, "step_in", "correction", &step, err)) != TT_OK ||
            (st = projector__read_int(g, "nx", "correction", 2, 4096, &nx, err)) != TT_OK ||
            (st = projector__read_int(g, "ny", "correction", 2, 4096, &ny, err)) != TT_OK) {
            tt_err_prefix(err, "%s", path);
            goto fail;
        }
        dx = malloc((size_t)nx * ny * sizeof *dx);
        dy = malloc((size_t)nx * ny * sizeof *dy);
        if (!dx || !dy) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            goto fail;
        }
        if ((st = projector__read_grid_array(g, "dx", path, nx, ny, dx, err)) != TT_OK ||
            (st = projector__read_grid_array(g, "dy", path, nx, ny, dy, err)) != TT_OK ||
            (st = calib_projector_set_grid(pj, x0, y0, step, nx, ny, dx, dy, err)) != TT_OK)
            goto fail;
    }
    const json_t *t = json_object_get(root, "table");
    if (t) {
        char where[300];
        snprintf(where, sizeof where, "%s: table", path);
        if (!json_is_object(t)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"table\" must be an object like {\"width_in\": 72, "
                            "\"depth_in\": 48} (the table the projector was calibrated on)", path);
            goto fail;
        }
        if ((st = tt_json_number(t, "width_in", where, &pj->table_w, err)) != TT_OK ||
            (st = tt_json_number(t, "depth_in", where, &pj->table_d, err)) != TT_OK)
            goto fail;
        if (!(pj->table_w > 0 && pj->table_d > 0 && pj->table_w < 10000 && pj->table_d < 10000)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: width_in and depth_in must be positive inches", where);
            goto fail;
        }
    }
    const json_t *r;
    if ((r = json_object_get(root, "gamma"))) {
        double gm = json_is_number(r) ? json_number_value(r) : NAN;
        if (!(gm >= CALIB_PROJECTOR_GAMMA_MIN && gm <= CALIB_PROJECTOR_GAMMA_MAX)) {
            st = tt_err_set(err, TT_ERR_FORMAT, "%s: \"gamma\" must be a number from %g to %g (the projector's "
                            "measured gamma; leave it out for %g)", path, CALIB_PROJECTOR_GAMMA_MIN,
                            CALIB_PROJECTOR_GAMMA_MAX, CALIB_PROJECTOR_GAMMA_DEFAULT);
            goto fail;
        }
        pj->gamma = gm;
    }
    if ((r = json_object_get(root, "residual_px")) && json_is_number(r))
        pj->rms_px = json_number_value(r);
    if ((r = json_object_get(root, "residual_in")) && json_is_number(r))
        pj->rms_in = json_number_value(r);
    if ((r = json_object_get(root, "points")) && json_is_integer(r))
        pj->npoints = (int)json_integer_value(r);
    free(dx);
    free(dy);
    json_decref(root);
    *out = pj;
    return TT_OK;
fail:
    free(dx);
    free(dy);
    calib_projector_destroy(pj);
    json_decref(root);
    return st;
}

static json_t *projector__grid_json(const double *a, int nx, int ny)
{
    json_t *rows = json_array();
    for (int j = 0; rows && j < ny; j++) {
        json_t *row = json_array();
        for (int i = 0; row && i < nx; i++)
            json_array_append_new(row, json_real(round(a[(size_t)j * nx + i] * 1e4) / 1e4));
        json_array_append_new(rows, row);
    }
    return rows;
}

tt_status calib_projector_save(const calib_projector *pj, const char *path, tt_err *err)
{
    json_t *root = json_object(), *m = json_array();
    char *tmp = NULL;
    tt_status st = TT_OK;
    if (!root || !m) {
        json_decref(root);
        json_decref(m);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    json_object_set_new(root, "width", json_integer(pj->width));
    json_object_set_new(root, "height", json_integer(pj->height));
    if (pj->table_w > 0 && pj->table_d > 0)
        json_object_set_new(root, "table",
                            json_pack("{s:f, s:f}", "width_in", pj->table_w, "depth_in", pj->table_d));
    for (int r = 0; r < 3; r++) {
        json_t *row = json_array();
        for (int c = 0; c < 3; c++)
            json_array_append_new(row, json_real(pj->H[r * 3 + c]));
        json_array_append_new(m, row);
    }
    json_object_set_new(root, "table_to_projector", m);
    json_object_set_new(root, "model", json_string(pj->pinhole ? "pinhole" : "plane"));
    if (pj->pinhole) {
        json_t *P = json_array();
        for (int r = 0; P && r < 3; r++) {
            json_t *row = json_array();
            for (int c = 0; row && c < 4; c++)
                json_array_append_new(row, json_real(pj->P[r * 4 + c]));
            json_array_append_new(P, row);
        }
        json_object_set_new(root, "P", P);
    }
    if (pj->nx > 0) {
        json_t *g = json_object();
        json_object_set_new(g, "x0", json_real(pj->x0));
        json_object_set_new(g, "y0", json_real(pj->y0));
        json_object_set_new(g, "step_in", json_real(pj->step));
        json_object_set_new(g, "nx", json_integer(pj->nx));
        json_object_set_new(g, "ny", json_integer(pj->ny));
        json_object_set_new(g, "dx", projector__grid_json(pj->dx, pj->nx, pj->ny));
        json_object_set_new(g, "dy", projector__grid_json(pj->dy, pj->nx, pj->ny));
        json_object_set_new(root, "correction", g);
    }
    if (pj->rms_px >= 0)
        json_object_set_new(root, "residual_px", json_real(round(pj->rms_px * 1e4) / 1e4));
    if (pj->rms_in >= 0)
        json_object_set_new(root, "residual_in", json_real(round(pj->rms_in * 1e5) / 1e5));
    if (pj->npoints > 0)
        json_object_set_new(root, "points", json_integer(pj->npoints));
    if (pj->gamma > 0)
        json_object_set_new(root, "gamma", json_real(round(pj->gamma * 1e3) / 1e3));

    if ((st = tt_tmp_create(path, &tmp, err)) != TT_OK) {
        json_decref(root);
        return st;
    }
    if (json_dump_file(root, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) != 0) {
        st = tt_err_set(err, TT_ERR_IO, "cannot write %s: %s (is the folder there and writable?)", path,
                        strerror(errno));
        tt_tmp_discard(tmp);
    } else {
        st = tt_tmp_commit(tmp, path, err);
    }
    json_decref(root);
    return st;
}

/* ---- its gamma ---- */

int calib_projector_set_gamma(calib_projector *pj, double gamma)
{
    if (!pj || !(gamma == 0 || (gamma >= CALIB_PROJECTOR_GAMMA_MIN && gamma <= CALIB_PROJECTOR_GAMMA_MAX)))
        return 0;
    pj->gamma = gamma;
    return 1;
}

double calib_projector_gamma(const calib_projector *pj, int *measured)
{
    int m = pj && pj->gamma > 0;
    if (measured)
        *measured = m;
    return m ? pj->gamma : CALIB_PROJECTOR_GAMMA_DEFAULT;
}

/* ---- the table it was made on ---- */

void calib_projector_set_table(calib_projector *pj, double width_in, double depth_in)
{
    if (!pj)
        return;
    int ok = width_in > 0 && depth_in > 0 && width_in < 10000 && depth_in < 10000;
    pj->table_w = ok ? width_in : 0;
    pj->table_d = ok ? depth_in : 0;
}

int calib_projector_table(const calib_projector *pj, double *width_in, double *depth_in)
{
    if (!pj || !(pj->table_w > 0))
        return 0;
    *width_in = pj->table_w;
    *depth_in = pj->table_d;
    return 1;
}

tt_status calib_projector_check_rig(const calib_projector *pj, const calib_rig *rig, const char *path, tt_err *err)
{
    double w, d;
    if (!calib_projector_table(pj, &w, &d))
        return TT_OK; /* made before the table was recorded: used as it is */
    if (fabs(w - rig->width_in) <= CALIB_PROJECTOR_TABLE_TOL_IN &&
        fabs(d - rig->depth_in) <= CALIB_PROJECTOR_TABLE_TOL_IN)
        return TT_OK;
    return tt_err_set(err, TT_ERR_MISMATCH,
                      "%s was calibrated on a %gx%g\" table, but the rig's table is %gx%g\": its drawings would "
                      "land in the wrong places. Calibrate the projector over this table ('tabletrack calib "
                      "projector --rig ...') or give the projector file made for it",
                      path ? path : "the projector file", w, d, rig->width_in, rig->depth_in);
}
