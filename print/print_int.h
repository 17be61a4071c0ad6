/* print_int.h - the document structure shared by print/'s layout (layout.c)
 * and drawing (draw.c).  Not part of the public interface. */
#ifndef TT_PRINT_INT_H
#define TT_PRINT_INT_H

#include <apriltag/apriltag.h>

#include "print.h"

#define PRINT__MARGIN_IN 0.5
#define PRINT__HEADER_IN 1.25 /* check square (1") + gap */
#define PRINT__LABEL_GAP_IN 0.06
#define PRINT__LABEL_W_IN 0.5
#define PRINT__CAPTION_LEN 256

struct print_doc {
    apriltag_family_t *fam; /* owned */
    int famidx;
    double page_w, page_h; /* inches */
    int npages;
    print_item *items; /* owned, nitems */
    int nitems;
    int is_board;
    print_base base;             /* tags: cut outline shape */
    double outline_w, outline_h; /* tags: outline size, centred on the tag */
    double check_x, check_y;     /* top-left of the 1" check square */
    char desc[PRINT__CAPTION_LEN];
};

/* Family table shared by layout.c and draw.c. */

/* Cells of a tag pattern (apriltag_to_image coordinates, 0..total_width-1).
 * care: the cell's colour matters (families with a reversed border leave
 * the cells outside their black ring and data bits blank, as the official
 * images do).  needed: the cell must survive cutting the tag out (the
 * detected square, plus the outer black ring and data bits of families with
 * a reversed border). */
int print__cell_care(const apriltag_family_t *fam, int x, int y);
int print__cell_needed(const apriltag_family_t *fam, int x, int y);

#endif
