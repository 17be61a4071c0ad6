/* slope_sight.c - the visibility polygon over sloped hills: a sloped piece
 * hides from a viewer what lies beyond the part of it higher than the
 * viewer stands (as a line of sight is blocked where the ground along it
 * rises above its height, slope.c).  For one visibility query that part's
 * outline stands in for the piece's polygon, and the piece blocks like a
 * piece not in the grid, also for a viewer standing on its side. */
#include "rules_questions.h"

#include <stdlib.h>

rules_pt **rules_slope_sight_begin(rules_scenario *sc, const rules_figure *f, int *skip, int *nskip, int *extra,
                                   int *nextra, int *bad)
{
    rules_pt **saved = NULL;
    for (size_t p = 0; p < sc->npieces && !*bad; p++) {
        rules_piece *pc = &sc->pieces[p];
        if (!(pc->p.slope_in > 0) || !pc->p.blocks_los || !(pc->p.height_in > f->elev))
            continue;
        rules_pt *lv = malloc((size_t)pc->n * sizeof *lv);
        if (!saved)
            saved = calloc(sc->npieces, sizeof *saved);
        if (!lv || !saved || !rules_slope_level(pc, f->elev, lv)) {
            *bad |= !lv || !saved;
            free(lv);
            continue;
        }
        saved[p] = pc->v;
        pc->v = lv;
        int k = 0, in_extra = 0;
        while (k < *nskip && skip[k] != (int)p)
            k++;
        if (k < *nskip) /* the viewer's own hill: no longer passed over */
            skip[k] = skip[--*nskip];
        for (k = 0; k < *nextra; k++)
            in_extra |= extra[k] == (int)p;
        if (!in_extra)
            extra[(*nextra)++] = (int)p;
    }
    return saved;
}

void rules_slope_sight_end(rules_scenario *sc, rules_pt **saved)
{
    for (size_t p = 0; saved && p < sc->npieces; p++)
        if (saved[p]) {
            free(sc->pieces[p].v);
            sc->pieces[p].v = saved[p];
        }
    free(saved);
}
