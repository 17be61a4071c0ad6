/* projector_pattern.c - the structured-light patterns of projector
 * calibration: black, white, Gray-code bits in x and y, phase-shifted
 * sinusoids in x and y.  Order: black, white, gray-x (MSB first), gray-y,
 * phase-x steps, phase-y steps. */
#include "projector.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int pattern__bits(int side)
{
    int cells = (side + CALIB_PROJECTOR_CELL_PX - 1) / CALIB_PROJECTOR_CELL_PX, bits = 0;
    while ((1 << bits) < cells)
        bits++;
    return bits < 1 ? 1 : bits;
}

static int pattern__valid(int width, int height)
{
    return width >= 64 && height >= 64 && width <= CALIB_PROJECTOR_MAX_SIDE && height <= CALIB_PROJECTOR_MAX_SIDE;
}

int calib_projector_pattern_count(int width, int height)
{
    if (!pattern__valid(width, height))
        return 0;
    return 2 + pattern__bits(width) + pattern__bits(height) + 2 * CALIB_PROJECTOR_PHASE_STEPS;
}

tt_status calib_projector_pattern_info(int width, int height, int i, calib_projector_pattern *info, tt_err *err)
{
    int n = calib_projector_pattern_count(width, height);
    int bx = pattern__bits(width), by = pattern__bits(height), S = CALIB_PROJECTOR_PHASE_STEPS;
    char what[32];
    if (n == 0)
        return tt_err_set(err, TT_ERR_ARG, "projector size %dx%d is not valid (64..%d pixels each side)", width, height,
                          CALIB_PROJECTOR_MAX_SIDE);
    if (i < 0 || i >= n)
        return tt_err_set(err, TT_ERR_ARG, "pattern %d does not exist (0..%d)", i, n - 1);
    if (i == 0) {
        info->kind = CALIB_PJ_BLACK;
        info->index = 0;
        snprintf(what, sizeof what, "black");
    } else if (i == 1) {
        info->kind = CALIB_PJ_WHITE;
        info->index = 0;
        snprintf(what, sizeof what, "white");
    } else if (i < 2 + bx) {
        info->kind = CALIB_PJ_GRAY_X;
        info->index = i - 2;
        snprintf(what, sizeof what, "gray-x%d", info->index);
    } else if (i < 2 + bx + by) {
        info->kind = CALIB_PJ_GRAY_Y;
        info->index = i - 2 - bx;
        snprintf(what, sizeof what, "gray-y%d", info->index);
    } else if (i < 2 + bx + by + S) {
        info->kind = CALIB_PJ_PHASE_X;
        info->index = i - 2 - bx - by;
        snprintf(what, sizeof what, "phase-x%d", info->index);
    } else {
        info->kind = CALIB_PJ_PHASE_Y;
        info->index = i - 2 - bx - by - S;
        snprintf(what, sizeof what, "phase-y%d", info->index);
    }
    snprintf(info->name, sizeof info->name, "pj-%dx%d-%02d-%s.png", width, height, i, what);
    return TT_OK;
}

int calib_projector_pattern_parse(const char *name, int *width, int *height, int *index)
{
    int w, h, i, used = 0;
    if (sscanf(name, "pj-%dx%d-%d-%n", &w, &h, &i, &used) != 3 || used == 0)
        return 0;
    calib_projector_pattern info;
    if (calib_projector_pattern_info(w, h, i, &info, NULL) != TT_OK || strcmp(info.name, name) != 0)
        return 0;
    *width = w;
    *height = h;
    *index = i;
    return 1;
}

tt_status calib_projector_pattern_render(int width, int height, int i, tt_image *out, tt_err *err)
{
    calib_projector_pattern info;
    tt_status st = calib_projector_pattern_info(width, height, i, &info, err);
    if (st != TT_OK)
        return st;
    if ((st = tt_image_alloc(out, width, height, 1, err)) != TT_OK)
        return st;
    int bx = pattern__bits(width), by = pattern__bits(height);
    /* one row (x patterns) or one column (y patterns) of values */
    int along_x = info.kind == CALIB_PJ_GRAY_X || info.kind == CALIB_PJ_PHASE_X;
    for (int y = 0; y < height; y++) {
        uint8_t *row = out->data + (size_t)y * out->stride;
        for (int x = 0; x < width; x++) {
            int p = along_x ? x : y;
            uint8_t v = 0;
            switch (info.kind) {
            case CALIB_PJ_BLACK:
                v = 0;
                break;
            case CALIB_PJ_WHITE:
                v = 255;
                break;
            case CALIB_PJ_GRAY_X:
            case CALIB_PJ_GRAY_Y: {
                int bits = along_x ? bx : by;
                unsigned cell = (unsigned)(p / CALIB_PROJECTOR_CELL_PX);
                unsigned gray = cell ^ (cell >> 1);
                v = (gray >> (bits - 1 - info.index)) & 1u ? 255 : 0;
                break;
            }
            case CALIB_PJ_PHASE_X:
            case CALIB_PJ_PHASE_Y: {
                double th = 2 * M_PI * p / CALIB_PROJECTOR_PERIOD_PX -
                            2 * M_PI * info.index / CALIB_PROJECTOR_PHASE_STEPS;
                v = (uint8_t)lround(127.5 + 127.5 * cos(th));
                break;
            }
            }
            row[x] = v;
        }
    }
    return TT_OK;
}
