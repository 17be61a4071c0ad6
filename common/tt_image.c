#include "tt_image.h"

#include <stdlib.h>
#include <string.h>

tt_status tt_image_alloc(tt_image *im, int width, int height, int channels, tt_err *err)
{
    memset(im, 0, sizeof *im);
    if (width <= 0 || height <= 0 || channels < 1 || channels > 4 || width > 65536 || height > 65536)
        return tt_err_set(err, TT_ERR_ARG, "image size %dx%dx%d is not valid", width, height, channels);
    im->data = calloc((size_t)width * (size_t)height, (size_t)channels);
    if (!im->data)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory for a %dx%d image", width, height);
    im->width = width;
    im->height = height;
    im->channels = channels;
    im->stride = width * channels;
    return TT_OK;
}

void tt_image_free(tt_image *im)
{
    if (!im)
        return;
    free(im->data);
    memset(im, 0, sizeof *im);
}
