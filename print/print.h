/* print.h - true-scale printable sheets (cairo): tag sheets for figure bases
 * and the camera-calibration board.  Both share one style: a header with a
 * 1-inch black check square and a caption telling the user to print at
 * 100% / "Actual size" and measure the square.
 *
 * Tags are drawn cell by cell as vector rectangles from libapriltag's own
 * bit patterns (apriltag_to_image), so they stay sharp at any printer
 * resolution.  A tag's size is libapriltag's tag size: the edge of the
 * detected square (the black border of tag36h11, 8 of its 10 cells).
 *
 * Usage: build a document with print_doc_tags or print_doc_board, then
 * print_doc_write (PDF or SVG by extension, atomic: nothing is left behind
 * on failure) and/or print_doc_render (a gray raster at a chosen dpi, for
 * previews and tests).  The caller owns the document: print_doc_destroy
 * (accepts NULL).
 */
#ifndef TT_PRINT_H
#define TT_PRINT_H

#include "board.h"
#include "tt_image.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum print_paper { PRINT_PAPER_LETTER = 0, PRINT_PAPER_A4 } print_paper;

/* "letter" or "a4" (case-insensitive). */
tt_status print_paper_parse(const char *name, print_paper *out, tt_err *err);

typedef enum print_base_kind { PRINT_BASE_NONE = 0, PRINT_BASE_ROUND, PRINT_BASE_RECT } print_base_kind;

typedef struct print_base {
    print_base_kind kind;
    double w_in; /* round: diameter; rect: width */
    double d_in; /* round: diameter; rect: depth */
} print_base;

/* "round:D" or "rect:WxD"; sizes in inches, or in mm with an "mm" suffix
 * ("round:25mm", "rect:20x40mm", "rect:1x2"). */
tt_status print_base_parse(const char *spec, print_base *out, tt_err *err);

/* "A-B" or "A" (ids are non-negative whole numbers, A <= B). */
tt_status print_ids_parse(const char *spec, int *first, int *last, tt_err *err);

#define PRINT_MAX_TAGS 10000

typedef struct print_tags_opts {
    const char *family; /* libapriltag family name; NULL = tag36h11 */
    int id_first, id_last;
    double size_in;     /* tag size (detected square), inches */
    print_base base;    /* cut outline; NONE = a square around the tag */
    print_paper paper;
    int per_page;       /* tags per page, spread over it (e.g. 1 or 4 anchors); 0 = as many as fit */
} print_tags_opts;

/* One tag as placed on a page (for tests and previews). */
typedef struct print_item {
    int id;
    int page;          /* 0-based */
    double x_in, y_in; /* top-left corner of the detected square, inches from the page's top-left */
    double size_in;    /* edge of the detected square */
} print_item;

typedef struct print_doc print_doc;

/* A tag sheet.  Errors: unknown family -> TT_ERR_UNKNOWN naming the known
 * ones; ids outside the family -> TT_ERR_ARG naming its id count; a tag or
 * base too large for the paper -> TT_ERR_ARG; a tag that does not fit its
 * base, or more per_page than fit on the paper -> TT_ERR_ARG. */
tt_status print_doc_tags(const print_tags_opts *opts, print_doc **out, tt_err *err);

/* The calibration board on one page of `paper` (landscape if that fits
 * better).  A board too big for the paper -> TT_ERR_ARG. */
tt_status print_doc_board(const calib_board *board, print_paper paper, print_doc **out, tt_err *err);

void print_doc_destroy(print_doc *doc);

int print_doc_npages(const print_doc *doc);
void print_doc_page_size(const print_doc *doc, double *w_in, double *h_in);
int print_doc_nitems(const print_doc *doc);
const print_item *print_doc_item(const print_doc *doc, int i);

/* Top-left corner of the 1-inch check square on every page, inches. */
void print_doc_check_square(const print_doc *doc, double *x_in, double *y_in);

/* Write the document: ".pdf" (any number of pages) or ".svg" (one page),
 * 72 pt per inch.  Written to a temporary file beside PATH (tt_tmpfile.h) and renamed, so a failure leaves
 * nothing behind. */
tt_status print_doc_write(const print_doc *doc, const char *path, tt_err *err);

/* Render page `page` (0-based) into a new 8-bit gray image at dpi pixels
 * per inch (free with tt_image_free).  Pixel (0,0) covers the page's
 * top-left 1/dpi inch square. */
tt_status print_doc_render(const print_doc *doc, int page, double dpi, tt_image *gray, tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
