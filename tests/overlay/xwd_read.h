/* xwd_read.h - an X screenshot (xwd -root) as RGB rows, for the tests that
 * check what a projector window shows. */
#ifndef TT_TESTS_XWD_READ_H
#define TT_TESTS_XWD_READ_H
#include <stdint.h>

/* Read an XWD screenshot (ZPixmap, 24/32 bpp): width*height*3 bytes, RGB,
 * owned by the caller (free); NULL if the file is missing or not such. */
uint8_t *xwd_read(const char *path, int *w, int *h);

/* Compare a screenshot's top-left corner with an image of width w, height
 * h (BGR rows of 'stride' bytes, as cvw_image_read gives), every second
 * pixel: *match counts those within 12 levels in all, *lit those of the
 * image that are lit, *total those compared. */
void xwd_compare(const uint8_t *shot, int sw, int sh, const uint8_t *bgr, int w, int h, int stride, long *match,
                 long *lit, long *total);
#endif
