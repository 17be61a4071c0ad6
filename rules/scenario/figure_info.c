/* figure_info.c - what a watcher of the table (the referee) asks about the
 * scenario's figures: side, unit, type and formation by index, and whether
 * two figures' bases touch. */
#include "rules_scenario.h"

#include <string.h>

int rules_scenario_figure_info(const rules_scenario *sc, size_t i, const char **side, const char **unit,
                               const char **type, const char **formation)
{
    if (!sc || i >= sc->nfigs)
        return 0;
    const rules_figure *f = &sc->figs[i];
    if (side)
        *side = f->side;
    if (unit)
        *unit = f->unit;
    if (type)
        *type = f->type;
    if (formation)
        *formation = f->formation >= 0 && f->formation < sc->prof->nforms ? sc->prof->form_name[f->formation] : NULL;
    return 1;
}

int rules_scenario_figure_index(const rules_scenario *sc, const char *id)
{
    for (size_t i = 0; sc && id && i < sc->nfigs; i++)
        if (!strcmp(sc->figs[i].id, id))
            return (int)i;
    return -1;
}

int rules_scenario_in_contact(const rules_scenario *sc, size_t i, size_t j)
{
    if (!sc || i >= sc->nfigs || j >= sc->nfigs || i == j)
        return 0;
    /* base-to-base contact: the bases' edges within 1/1000" (docs/architecture.md, "Geometry ties") */
    return rules_geom_shape_shape_within(&sc->figs[i].shape, &sc->figs[j].shape, rules_fx(0.001));
}
