/* tt_image.h - a plain 8-bit image buffer shared by all modules.
 *
 * Rows are `stride` bytes apart; each pixel has `channels` bytes (1 = gray,
 * 3 = BGR as OpenCV stores it, 4 = BGRA).  An image made by tt_image_alloc
 * owns its data; free it with tt_image_free (accepts NULL and empty images).
 */
#ifndef TT_IMAGE_H
#define TT_IMAGE_H

#include <stdint.h>
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tt_image {
    int width, height, channels, stride;
    uint8_t *data;
} tt_image;

/* Allocate a zeroed width x height image with the given channel count. */
tt_status tt_image_alloc(tt_image *im, int width, int height, int channels, tt_err *err);
void tt_image_free(tt_image *im);

#ifdef __cplusplus
}
#endif
#endif
