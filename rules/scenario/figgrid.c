/* figgrid.c - figures bucketed by their centres on a 2" grid, rebuilt
 * lazily after figures move, so area queries (blast, grape, command) look
 * only at the figures near the area.  The exact tests decide; the grid only
 * narrows the candidates (conservatively, by the largest base). */
#include "rules_scenario.h"

#include <stdlib.h>
#include <string.h>

#define RULES__FCELL 20000 /* 2 inches */

static int rules__fbuild(rules_scenario *sc)
{
    int nx = (int)(rules_fx(sc->width_in) / RULES__FCELL) + 1, ny = (int)(rules_fx(sc->depth_in) / RULES__FCELL) + 1;
    size_t ncell = (size_t)nx * ny;
    uint32_t *start = calloc(ncell + 1, sizeof *start);
    int *idx = calloc(sc->nfigs + 1, sizeof *idx), *cand = calloc(sc->nfigs + 1, sizeof *cand);
    uint32_t *fill = calloc(ncell + 1, sizeof *fill);
    if (!start || !idx || !cand || !fill) {
        free(start);
        free(idx);
        free(cand);
        free(fill);
        return -1;
    }
    int64_t ext = 0;
    for (size_t i = 0; i < sc->nfigs; i++) {
        const rules_shape *s = &sc->figs[i].shape;
        int cx = (int)(s->c.x / RULES__FCELL), cy = (int)(s->c.y / RULES__FCELL);
        start[(size_t)cy * nx + cx + 1]++;
        int64_t e = s->r;
        for (int k = 0; !s->round && k < s->n; k++) {
            int64_t d = llabs(s->v[k].x - s->c.x) + llabs(s->v[k].y - s->c.y);
            if (d > e)
                e = d;
        }
        if (e > ext)
            ext = e;
    }
    for (size_t c = 0; c < ncell; c++)
        start[c + 1] += start[c];
    memcpy(fill, start, ncell * sizeof *fill);
    for (size_t i = 0; i < sc->nfigs; i++) {
        const rules_shape *s = &sc->figs[i].shape;
        int cx = (int)(s->c.x / RULES__FCELL), cy = (int)(s->c.y / RULES__FCELL);
        idx[fill[(size_t)cy * nx + cx]++] = (int)i;
    }
    free(fill);
    free(sc->fg_start);
    free(sc->fg_idx);
    free(sc->fg_cand);
    sc->fg_start = start;
    sc->fg_idx = idx;
    sc->fg_cand = cand;
    sc->fg_nx = nx;
    sc->fg_ny = ny;
    sc->fg_ext = ext;
    sc->fg_dirty = 0;
    return 0;
}

int rules_figs_near(rules_scenario *sc, rules_pt p, int64_t R, const int **out)
{
    if ((sc->fg_dirty || !sc->fg_start) && rules__fbuild(sc) != 0)
        return -1;
    int64_t m = R + sc->fg_ext;
    int64_t x0 = (p.x - m) / RULES__FCELL, x1 = (p.x + m) / RULES__FCELL;
    int64_t y0 = (p.y - m) / RULES__FCELL, y1 = (p.y + m) / RULES__FCELL;
    if (p.x - m < 0)
        x0 = 0;
    if (p.y - m < 0)
        y0 = 0;
    if (x1 >= sc->fg_nx)
        x1 = sc->fg_nx - 1;
    if (y1 >= sc->fg_ny)
        y1 = sc->fg_ny - 1;
    int n = 0;
    for (int64_t y = y0; y <= y1; y++)
        for (int64_t x = x0; x <= x1; x++) {
            size_t c = (size_t)y * sc->fg_nx + (size_t)x;
            for (uint32_t k = sc->fg_start[c]; k < sc->fg_start[c + 1]; k++)
                sc->fg_cand[n++] = sc->fg_idx[k];
        }
    *out = sc->fg_cand;
    return n;
}
