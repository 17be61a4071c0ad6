/* tt_xwd_match.c - does an X screenshot show a projector image?
 * usage: tt_xwd_match SHOT.xwd IMAGE.png
 * Prints "match M of T, lit L, screen WxH"; exits 0 when the screen is at
 * least the image's size, 99.5% of the compared pixels match and over 1000
 * of the image's are lit, 1 when they do not, 2 when a file cannot be read. */
#include <stdio.h>
#include <stdlib.h>

#include "cvwrap.h"
#include "xwd_read.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tt_xwd_match SHOT.xwd IMAGE.png\n");
        return 2;
    }
    int sw = 0, sh = 0;
    uint8_t *shot = xwd_read(argv[1], &sw, &sh);
    if (!shot) {
        fprintf(stderr, "tt_xwd_match: %s is not a 24/32-bit ZPixmap XWD screenshot\n", argv[1]);
        return 2;
    }
    tt_image im = {0};
    tt_err err = {0};
    if (cvw_image_read(argv[2], 3, &im, &err) != TT_OK) {
        fprintf(stderr, "tt_xwd_match: %s\n", err.msg);
        free(shot);
        return 2;
    }
    long match, lit, total;
    xwd_compare(shot, sw, sh, im.data, im.width, im.height, im.stride, &match, &lit, &total);
    printf("match %ld of %ld, lit %ld, screen %dx%d\n", match, total, lit, sw, sh);
    int ok = sw >= im.width && sh >= im.height && match >= total * 995 / 1000 && lit > 1000;
    tt_image_free(&im);
    free(shot);
    return ok ? 0 : 1;
}
