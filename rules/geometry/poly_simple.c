/* poly_simple.c - is a terrain polygon simple, in near-linear time.
 *
 * Every edge is listed in the cells of a uniform grid (about one cell per
 * corner) that its bounding box covers; only edges sharing a cell are
 * tested.  Two closed segments that touch share the cell of the point they
 * share, so every touching pair is found, and the smallest (i, j) of them
 * is reported: the same answer as the all-pairs scan of
 * rules_geom_poly_simple.  When long edges would list too many cells, the
 * all-pairs scan is used (bounded by RULES_MAX_CORNERS). */
#include "rules_geom.h"

#include <stdlib.h>

static int64_t rules__min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t rules__max64(int64_t a, int64_t b) { return a > b ? a : b; }

int rules_poly_simple_grid(const rules_pt *v, int n, int *e1, int *e2)
{
    if (n <= 64)
        return rules_geom_poly_simple(v, n, e1, e2);
    if (!rules_geom_poly_corners_ok(v, n, e1, e2))
        return 0;
    rules_pt lo = v[0], hi = v[0];
    for (int i = 1; i < n; i++) {
        lo.x = rules__min64(lo.x, v[i].x);
        lo.y = rules__min64(lo.y, v[i].y);
        hi.x = rules__max64(hi.x, v[i].x);
        hi.y = rules__max64(hi.y, v[i].y);
    }
    int64_t g = 1;
    while (g * g < n)
        g++;
    int64_t cw = (hi.x - lo.x) / g + 1, ch = (hi.y - lo.y) / g + 1;
    /* Count the entries; too many (long edges across the grid) -> all pairs. */
    size_t total = 0, budget = (size_t)n * 16 + ((size_t)1 << 20);
    for (int k = 0; k < n; k++) {
        rules_pt a = v[k], b = v[(k + 1) % n];
        int64_t x0 = (rules__min64(a.x, b.x) - lo.x) / cw, x1 = (rules__max64(a.x, b.x) - lo.x) / cw;
        int64_t y0 = (rules__min64(a.y, b.y) - lo.y) / ch, y1 = (rules__max64(a.y, b.y) - lo.y) / ch;
        total += (size_t)((x1 - x0 + 1) * (y1 - y0 + 1));
        if (total > budget)
            return rules_geom_poly_simple(v, n, e1, e2);
    }
    size_t ncell = (size_t)(g * g);
    size_t *start = calloc(ncell + 1, sizeof *start);
    int *item = malloc(total * sizeof *item);
    if (!start || !item) {
        free(start);
        free(item);
        return -1;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < n; k++) {
            rules_pt a = v[k], b = v[(k + 1) % n];
            int64_t x0 = (rules__min64(a.x, b.x) - lo.x) / cw, x1 = (rules__max64(a.x, b.x) - lo.x) / cw;
            int64_t y0 = (rules__min64(a.y, b.y) - lo.y) / ch, y1 = (rules__max64(a.y, b.y) - lo.y) / ch;
            for (int64_t y = y0; y <= y1; y++)
                for (int64_t x = x0; x <= x1; x++) {
                    size_t c = (size_t)(y * g + x);
                    if (pass == 0)
                        start[c + 1]++;
                    else
                        item[start[c]++] = k;
                }
        }
        if (pass == 0)
            for (size_t c = 0; c < ncell; c++)
                start[c + 1] += start[c];
        else /* start[c] now holds the end of cell c: shift back */
            for (size_t c = ncell; c > 0; c--)
                start[c] = start[c - 1];
        if (pass == 1)
            start[0] = 0;
    }
    int bi = -1, bj = -1;
    for (size_t c = 0; c < ncell; c++)
        for (size_t p = start[c]; p < start[c + 1]; p++)
            for (size_t q = p + 1; q < start[c + 1]; q++) {
                int i = item[p] < item[q] ? item[p] : item[q], j = item[p] < item[q] ? item[q] : item[p];
                if (j == i + 1 || (i == 0 && j == n - 1) || i == j)
                    continue;
                if (bi >= 0 && (i > bi || (i == bi && j >= bj)))
                    continue;
                if (rules_geom_seg_touch(v[i], v[(i + 1) % n], v[j], v[(j + 1) % n])) {
                    bi = i;
                    bj = j;
                }
            }
    free(start);
    free(item);
    if (bi >= 0) {
        *e1 = bi;
        *e2 = bj;
        return 0;
    }
    return rules_geom_area2(v, n) != 0;
}
