/* scen_gen.h - scenarios generated for the limit tests and the loading
 * benchmark of tests/hostile (owned JSON: json_decref). */
#ifndef TT_HOSTILE_SCEN_GEN_H
#define TT_HOSTILE_SCEN_GEN_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>

/* A 72x48 Into the Breach table with one round wood of `corners` corners,
 * `pieces` small buildings in rows and `figures` figures in rows. */
static inline json_t *scen_gen(int corners, int pieces, int figures)
{
    json_t *ter = json_array(), *figs = json_array(), *poly = json_array();
    for (int i = 0; i < corners; i++)
        json_array_append_new(poly, json_pack("[f,f]", 36 + 20 * cos(2 * M_PI * i / corners),
                                              24 + 20 * sin(2 * M_PI * i / corners)));
    if (corners > 0)
        json_array_append_new(ter, json_pack("{s:s,s:s,s:o}", "id", "wood", "kind", "woods", "polygon", poly));
    else
        json_decref(poly);
    for (int k = 0; k < pieces; k++) {
        double x = (k % 50) * 1.4 + 0.2, y = (k / 50) * 1.1 + 0.2;
        char id[32];
        snprintf(id, sizeof id, "house%d", k);
        json_array_append_new(ter, json_pack("{s:s,s:s,s:[[f,f],[f,f],[f,f],[f,f]]}", "id", id, "kind", "building",
                                             "polygon", x, y, x + 1, y, x + 1, y + 0.8, x, y + 0.8));
    }
    for (int k = 0; k < figures; k++) {
        char id[32];
        snprintf(id, sizeof id, "fig%d", k);
        json_array_append_new(figs, json_pack("{s:s,s:s,s:f,s:f,s:f}", "id", id, "side", "red", "x",
                                              0.5 + (k % 70), "y", 0.5 + (k / 70) * 1.5, "facing_deg", 0.0));
    }
    return json_pack("{s:s,s:{s:f,s:f},s:o,s:o}", "ruleset", "into-the-breach", "table", "width_in", 72.0,
                     "depth_in", 48.0, "terrain", ter, "figures", figs);
}

#endif
