/* overlay_blend.h - blending a solid colour through coverage into cairo's
 * premultiplied 32-bit pixels, exactly as pixman does for cairo_mask with a
 * solid source and an A8 mask ("over").  Internal to overlay/ (shared by
 * the stroke and fill rasterisers). */
#ifndef TT_OVERLAY_BLEND_H
#define TT_OVERLAY_BLEND_H

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The colour premultiplied as cairo_set_source_rgba makes it: 16 bits per
 * channel, rounded, then the top 8 bits (pixman's solid fill). */
static inline uint32_t overlay__premul(const double rgb[3], double alpha)
{
    double al = alpha < 0 ? 0 : alpha > 1 ? 1 : alpha;
    uint32_t src = ((uint32_t)(al * 65535.0 + 0.5) >> 8) << 24;
    for (int k = 0; k < 3; k++) {
        double ch = rgb[k] < 0 ? 0 : rgb[k] > 1 ? 1 : rgb[k];
        src |= ((uint32_t)(ch * al * 65535.0 + 0.5) >> 8) << (16 - 8 * k);
    }
    return src;
}

/* One pixel, as pixman composites a solid premultiplied colour src through
 * an A8 mask of coverage v, "over" (what cairo_mask does): in = src v / 255
 * per channel, then in + d (255 - in's alpha) / 255, every division by 255
 * rounded - so the result is cairo's to the bit.  Two channels per 32-bit
 * lane pair (each sum < 2^16). */
static inline uint32_t overlay__mul2(uint32_t x, uint32_t m)
{
    uint32_t t = (x & 0xff00ffu) * m + 0x800080u;
    return ((t + ((t >> 8) & 0xff00ffu)) >> 8) & 0xff00ffu;
}

static inline uint32_t overlay__blend1(uint32_t d, uint32_t v, uint32_t src)
{
    if (v == 255 && src >> 24 == 255)
        return src;
    uint32_t in_rb = overlay__mul2(src, v), in_ag = overlay__mul2(src >> 8, v);
    uint32_t na = 255 - (in_ag >> 16);
    uint32_t rb = in_rb + overlay__mul2(d, na), ag = in_ag + overlay__mul2(d >> 8, na);
    return ag << 8 | rb;
}

#ifdef __SSE2__
typedef struct overlay__blendk {
    __m128i src16, k128, k255;
} overlay__blendk;

static inline __m128i overlay__div255_16(__m128i x, __m128i k128)
{
    x = _mm_add_epi16(x, k128);
    return _mm_srli_epi16(_mm_add_epi16(x, _mm_srli_epi16(x, 8)), 8);
}

/* Two pixels in 16-bit lanes (b g r a b g r a), mask m per lane. */
static inline __m128i overlay__over2(__m128i d, __m128i m, const overlay__blendk *k)
{
    __m128i in = overlay__div255_16(_mm_mullo_epi16(k->src16, m), k->k128);
    __m128i ia = _mm_shufflehi_epi16(_mm_shufflelo_epi16(in, 0xff), 0xff); /* in's alpha in every lane */
    return _mm_add_epi16(in, overlay__div255_16(_mm_mullo_epi16(d, _mm_sub_epi16(k->k255, ia)), k->k128));
}

static inline void overlay__blendk_init(overlay__blendk *k, uint32_t src)
{
    k->src16 = _mm_unpacklo_epi8(_mm_set1_epi32((int)src), _mm_setzero_si128());
    k->k128 = _mm_set1_epi16(128);
    k->k255 = _mm_set1_epi16(255);
}
#endif

/* n pixels all at coverage v (1..255): in = src v / 255 once, then
 * in + d (255 - in's alpha) / 255 per pixel - the same sums as
 * overlay__blend1, four pixels per step. */
static inline void overlay__blend_run(uint32_t *row, int n, uint32_t v, uint32_t src)
{
    int i = 0;
    if (v == 255 && src >> 24 == 255) {
        for (; i < n; i++)
            row[i] = src;
        return;
    }
    uint32_t in_rb = overlay__mul2(src, v), in_ag = overlay__mul2(src >> 8, v);
    uint32_t na = 255 - (in_ag >> 16);
#ifdef __SSE2__
    if (n >= 4) {
        const __m128i zero = _mm_setzero_si128(), k128 = _mm_set1_epi16(128);
        __m128i in16 = _mm_unpacklo_epi8(_mm_set1_epi32((int)(in_ag << 8 | in_rb)), zero);
        __m128i na16 = _mm_set1_epi16((short)na);
        for (; i + 4 <= n; i += 4) {
            __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(row + i));
            __m128i lo = _mm_add_epi16(in16, overlay__div255_16(_mm_mullo_epi16(_mm_unpacklo_epi8(d, zero), na16), k128));
            __m128i hi = _mm_add_epi16(in16, overlay__div255_16(_mm_mullo_epi16(_mm_unpackhi_epi8(d, zero), na16), k128));
            _mm_storeu_si128((__m128i *)(void *)(row + i), _mm_packus_epi16(lo, hi));
        }
    }
#endif
    for (; i < n; i++) {
        uint32_t d = row[i];
        row[i] = (in_ag + overlay__mul2(d >> 8, na)) << 8 | (in_rb + overlay__mul2(d, na));
    }
}

/* n pixels with coverage v[i] each (0 = untouched): the same sums as
 * overlay__blend1, four pixels per step. */
static inline void overlay__blend_span(uint32_t *row, const unsigned char *v, int n, uint32_t src)
{
    int i = 0;
#ifdef __SSE2__
    if (n >= 4) {
        overlay__blendk k;
        overlay__blendk_init(&k, src);
        const __m128i zero = _mm_setzero_si128();
        for (; i + 4 <= n; i += 4) {
            uint32_t c4;
            memcpy(&c4, v + i, 4);
            if (!c4)
                continue;
            __m128i m = _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)c4), zero);
            __m128i m2 = _mm_unpacklo_epi16(m, m);
            __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(row + i));
            __m128i lo = overlay__over2(_mm_unpacklo_epi8(d, zero), _mm_unpacklo_epi32(m2, m2), &k);
            __m128i hi = overlay__over2(_mm_unpackhi_epi8(d, zero), _mm_unpackhi_epi32(m2, m2), &k);
            _mm_storeu_si128((__m128i *)(void *)(row + i), _mm_packus_epi16(lo, hi));
        }
    }
#endif
    for (; i < n; i++)
        if (v[i])
            row[i] = overlay__blend1(row[i], v[i], src);
}

#endif
