/* board.c - board file loading and the board's geometry. */
#include "board.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tt_json.h"

/* libapriltag 3.3's families: code count, width of the detected square and
 * full width of the printed pattern, in cells.  (tests/print checks this
 * table against libapriltag itself.) */
static const struct {
    const char *name;
    int ncodes, width_at_border, total_width;
} calib__families[] = {
    {"tag36h11", 587, 8, 10},          {"tag36h10", 2320, 8, 10},        {"tag25h9", 35, 7, 9},
    {"tag16h5", 30, 6, 8},             {"tagCircle21h7", 38, 5, 9},      {"tagCircle49h12", 65535, 5, 11},
    {"tagCustom48h12", 42211, 6, 10},  {"tagStandard41h12", 2115, 5, 9}, {"tagStandard52h13", 48714, 6, 10},
};
#define CALIB__NFAM ((int)(sizeof calib__families / sizeof calib__families[0]))

static int calib__family_index(const char *name)
{
    for (int i = 0; i < CALIB__NFAM; i++)
        if (!strcmp(calib__families[i].name, name))
            return i;
    return -1;
}

int calib_family_ncodes(const char *family)
{
    int k = family ? calib__family_index(family) : -1;
    return k < 0 ? 0 : calib__families[k].ncodes;
}

static tt_status calib__int(const json_t *obj, const char *key, const char *where, int required, int def, int *out,
                            tt_err *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v) {
        if (required)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: missing \"%s\" (see docs/setup.md, 'Camera calibration')", where, key);
        *out = def;
        return TT_OK;
    }
    double d = json_is_number(v) ? json_number_value(v) : NAN;
    if (!(d == floor(d)) || fabs(d) > 1e9)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must be a whole number", where, key);
    *out = (int)d;
    return TT_OK;
}

tt_status calib_board_validate(const calib_board *b, const char *where, tt_err *err)
{
    int k = calib__family_index(b->family);
    if (k < 0)
        return tt_err_set(err, TT_ERR_UNKNOWN,
                          "%s: unknown tag family '%s' (known: tag36h11, tag36h10, tag25h9, tag16h5, tagCircle21h7, "
                          "tagStandard41h12, tagCircle49h12, tagCustom48h12, tagStandard52h13)",
                          where, b->family);
    if (b->rows < 1 || b->columns < 1)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"rows\" and \"columns\" must be at least 1 (got %d x %d)", where,
                          b->rows, b->columns);
    if ((long)b->rows * b->columns > CALIB_BOARD_MAX_TAGS)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: %d x %d tags is more than the %d a board may have", where, b->rows,
                          b->columns, CALIB_BOARD_MAX_TAGS);
    if (!(b->tag_size_in > 0 && b->tag_size_in <= 100))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"tag_size_in\" must be a positive size in inches (got %g)", where,
                          b->tag_size_in);
    double cell = b->tag_size_in / calib__families[k].width_at_border;
    double min_gap = (calib__families[k].total_width - calib__families[k].width_at_border) * cell;
    if (!(b->spacing_in >= min_gap - 1e-9 && b->spacing_in <= 100))
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: \"spacing_in\" %g is too small: %s tags of %g in need at least %g in between "
                          "(the white border around each tag)",
                          where, b->spacing_in, b->family, b->tag_size_in, min_gap);
    long last = (long)b->first_id + (long)b->rows * b->columns - 1;
    if (b->first_id < 0 || last >= calib__families[k].ncodes)
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: ids %d-%ld are outside %s, which has %d ids (0-%d): lower \"first_id\" or use fewer "
                          "tags",
                          where, b->first_id, last, b->family, calib__families[k].ncodes,
                          calib__families[k].ncodes - 1);
    return TT_OK;
}

tt_status calib_board_from_json(const json_t *obj, const char *where, calib_board *b, tt_err *err)
{
    tt_status st;
    memset(b, 0, sizeof *b);
    if (!json_is_object(obj))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: a board file must be a JSON object (see docs/setup.md, 'Camera calibration')",
                          where);
    const json_t *fam = json_object_get(obj, "family");
    if (!fam)
        snprintf(b->family, sizeof b->family, "tag36h11");
    else if (!json_is_string(fam))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"family\" must be a string such as \"tag36h11\"", where);
    else if (snprintf(b->family, sizeof b->family, "%s", json_string_value(fam)) >= (int)sizeof b->family)
        return tt_err_set(err, TT_ERR_UNKNOWN, "%s: unknown tag family '%s'", where, json_string_value(fam));
    if ((st = calib__int(obj, "rows", where, 1, 0, &b->rows, err)) != TT_OK ||
        (st = calib__int(obj, "columns", where, 1, 0, &b->columns, err)) != TT_OK ||
        (st = calib__int(obj, "first_id", where, 0, 0, &b->first_id, err)) != TT_OK ||
        (st = tt_json_number(obj, "tag_size_in", where, &b->tag_size_in, err)) != TT_OK ||
        (st = tt_json_number(obj, "spacing_in", where, &b->spacing_in, err)) != TT_OK)
        return st;
    return calib_board_validate(b, where, err);
}

tt_status calib_board_load(const char *path, calib_board *b, tt_err *err)
{
    json_t *root = NULL;
    memset(b, 0, sizeof *b);
    tt_status st = tt_json_load_file(path, &root, err);
    if (st != TT_OK) {
        if (st == TT_ERR_IO)
            tt_err_prefix(err, "board file");
        return st;
    }
    st = calib_board_from_json(root, path, b, err);
    json_decref(root);
    return st;
}

int calib_board_ntags(const calib_board *b)
{
    return b->rows * b->columns;
}

int calib_board_tag_index(const calib_board *b, int id)
{
    long i = (long)id - b->first_id;
    return i >= 0 && i < (long)b->rows * b->columns ? (int)i : -1;
}

void calib_board_tag_corners(const calib_board *b, int index, double c[4][3])
{
    double pitch = b->tag_size_in + b->spacing_in, s = b->tag_size_in;
    double x0 = (index % b->columns) * pitch, y0 = (index / b->columns) * pitch;
    /* y grows down the page: the printed bottom edge is at y0 + s. */
    const double xy[4][2] = {{x0, y0 + s}, {x0 + s, y0 + s}, {x0 + s, y0}, {x0, y0}};
    for (int k = 0; k < 4; k++) {
        c[k][0] = xy[k][0];
        c[k][1] = xy[k][1];
        c[k][2] = 0.0;
    }
}

void calib_board_extent(const calib_board *b, double *w, double *h)
{
    double pitch = b->tag_size_in + b->spacing_in;
    *w = b->columns * pitch - b->spacing_in;
    *h = b->rows * pitch - b->spacing_in;
}
