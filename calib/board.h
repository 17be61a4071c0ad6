/* board.h - the printed calibration board: a grid of AprilTags.
 *
 * Board file (JSON):
 *   {"family": "tag36h11", "rows": 5, "columns": 7,
 *    "tag_size_in": 1.0, "spacing_in": 0.3, "first_id": 0}
 * family is optional (default tag36h11); first_id is optional (default 0).
 * tag_size_in is libapriltag's tag size: the edge of the detected square
 * (the black border of tag36h11, 8 of its 10 cells).  spacing_in is the gap
 * between the detected squares of neighbouring tags, so the tag pitch is
 * tag_size_in + spacing_in.
 *
 * Board frame (inches, z = 0 on the paper): origin at the top-left corner of
 * the top-left tag's detected square as printed, x to the right, y down the
 * page.  Tag ids run row by row: the tag in row r, column c (both from 0, row
 * 0 at the top) has id first_id + r * columns + c.
 *
 * A calib_board is a plain value; it owns no memory.
 */
#ifndef TT_CALIB_BOARD_H
#define TT_CALIB_BOARD_H

#include <jansson.h>

#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CALIB_BOARD_FAMILY_LEN 24
#define CALIB_BOARD_MAX_TAGS 10000

typedef struct calib_board {
    char family[CALIB_BOARD_FAMILY_LEN];
    int rows, columns;
    double tag_size_in;
    double spacing_in;
    int first_id;
} calib_board;

/* Load and validate a board file.  Missing file -> TT_ERR_IO; bad JSON ->
 * TT_ERR_FORMAT with line and column; missing or bad field -> TT_ERR_FORMAT
 * naming it; unknown family -> TT_ERR_UNKNOWN; ids beyond the family ->
 * TT_ERR_FORMAT naming the family's id count. */
tt_status calib_board_load(const char *path, calib_board *board, tt_err *err);

/* The same from a parsed JSON object; `where` names the source in messages. */
tt_status calib_board_from_json(const json_t *obj, const char *where, calib_board *board, tt_err *err);

/* Check a filled-in board (as calib_board_from_json does). */
tt_status calib_board_validate(const calib_board *board, const char *where, tt_err *err);

/* Number of codes (ids 0..n-1) in a libapriltag 3.3 family, 0 if unknown. */
int calib_family_ncodes(const char *family);

/* Number of tags on the board. */
int calib_board_ntags(const calib_board *board);

/* Index (0..ntags-1, row-major) of the tag with this id, or -1 if the id is
 * not on the board. */
int calib_board_tag_index(const calib_board *board, int id);

/* Corners of the detected square of tag `index` in the board frame, in
 * libapriltag's order: bottom-left, bottom-right, top-right, top-left of the
 * printed tag; xyz with z = 0. */
void calib_board_tag_corners(const calib_board *board, int index, double corners[4][3]);

/* Extent of the detected squares: width (x) and height (y) in inches. */
void calib_board_extent(const calib_board *board, double *width_in, double *height_in);

#ifdef __cplusplus
}
#endif
#endif
