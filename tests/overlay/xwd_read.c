/* xwd_read.c - see xwd_read.h. */
#include "xwd_read.h"

#include "run.h"

#include <stdio.h>
#include <stdlib.h>

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint8_t *xwd_read(const char *path, int *w, int *h)
{
    size_t n;
    uint8_t *b = (uint8_t *)run_read_file(path, &n);
    if (!b || n < 100) {
        free(b);
        return NULL;
    }
    uint32_t hs = be32(b), fmt = be32(b + 8), width = be32(b + 16), height = be32(b + 20), border = be32(b + 28);
    uint32_t bpp = be32(b + 44), bpl = be32(b + 48), rm = be32(b + 56), gm = be32(b + 60), bm = be32(b + 64);
    uint32_t ncolors = be32(b + 76);
    size_t off = hs + (size_t)ncolors * 12;
    if (fmt != 2 || (bpp != 32 && bpp != 24) || off + (size_t)bpl * height > (size_t)n) {
        free(b);
        return NULL;
    }
    uint8_t *rgb = malloc((size_t)width * height * 3);
    for (uint32_t y = 0; rgb && y < height; y++)
        for (uint32_t x = 0; x < width; x++) {
            const uint8_t *p = b + off + (size_t)y * bpl + (size_t)x * (bpp / 8);
            uint32_t v = border == 0 ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                           (bpp == 32 ? (uint32_t)p[3] << 24 : 0)
                                     : be32(p) >> (bpp == 24 ? 8 : 0);
            int sr = __builtin_ctz(rm), sg = __builtin_ctz(gm), sb = __builtin_ctz(bm);
            uint8_t *o = rgb + ((size_t)y * width + x) * 3;
            o[0] = (uint8_t)((v & rm) >> sr);
            o[1] = (uint8_t)((v & gm) >> sg);
            o[2] = (uint8_t)((v & bm) >> sb);
        }
    free(b);
    *w = (int)width;
    *h = (int)height;
    return rgb;
}

void xwd_compare(const uint8_t *shot, int sw, int sh, const uint8_t *bgr, int w, int h, int stride, long *match,
                 long *lit, long *total)
{
    *match = *lit = *total = 0;
    for (int y = 0; y < h && y < sh; y += 2)
        for (int x = 0; x < w && x < sw; x += 2) {
            const uint8_t *a = shot + ((size_t)y * sw + x) * 3, *b = bgr + (size_t)y * stride + 3 * x;
            int d = abs(a[0] - b[2]) + abs(a[1] - b[1]) + abs(a[2] - b[0]);
            *match += d <= 12;
            *lit += b[0] + b[1] + b[2] > 60;
            (*total)++;
        }
}
