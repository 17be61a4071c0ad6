/* arc.c - arcs and sectors (grape, firing arcs) on exact predicates. */
#include "rules_geom.h"

#include <math.h>
#include <stdlib.h>

void rules_arc_init(rules_arc *a, rules_pt p, double facing_deg, double arc_deg, int64_t R)
{
    a->p = p;
    a->R = R;
    a->full = arc_deg >= 360;
    double half = arc_deg / 2;
    if (a->full) {
        a->nsec = 0;
    } else if (half <= 90) {
        a->nsec = 1;
        a->lo[0] = rules_geom_dir(facing_deg - half);
        a->hi[0] = rules_geom_dir(facing_deg + half);
    } else { /* wider than a half-plane: two halves of at most 180 degrees */
        a->nsec = 2;
        a->lo[0] = rules_geom_dir(facing_deg - half);
        a->hi[0] = a->lo[1] = rules_geom_dir(facing_deg);
        a->hi[1] = rules_geom_dir(facing_deg + half);
    }
    for (int k = 0; k < a->nsec; k++) {
        a->elo[k] = rules_geom_ray_end(p, R, a->lo[k]);
        a->ehi[k] = rules_geom_ray_end(p, R, a->hi[k]);
    }
}

int rules_arc_meets(const rules_arc *a, const rules_shape *s)
{
    /* cheap rejection: the base's bounding box is beyond R */
    int64_t ext = s->r;
    if (!s->round)
        for (int i = 0; i < s->n; i++) {
            int64_t ex = llabs(s->v[i].x - s->c.x) + llabs(s->v[i].y - s->c.y);
            if (ex > ext)
                ext = ex;
        }
    if (llabs(s->c.x - a->p.x) > a->R + ext || llabs(s->c.y - a->p.y) > a->R + ext)
        return 0;
    if (a->full)
        return rules_geom_shape_point_within(s, a->p, a->R);
    for (int k = 0; k < a->nsec; k++)
        if (rules_geom_shape_meets_sector(s, a->p, a->R, a->lo[k], a->hi[k], a->elo[k], a->ehi[k]))
            return 1;
    return 0;
}

rules_point *rules_arc_polygon(rules_pt p, double facing_deg, double arc_deg, double R_in, size_t *n)
{
    int full = arc_deg >= 360;
    double span = full ? 360 : arc_deg;
    int steps = (int)ceil(span / 5.0);
    if (steps < 2)
        steps = 2;
    rules_point *v = malloc((size_t)(steps + 2) * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    rules_point c = rules_pt_in(p);
    if (!full)
        v[(*n)++] = c;
    for (int k = 0; k <= steps - (full ? 1 : 0); k++) {
        double a = (facing_deg - span / 2 + span * k / steps) * (M_PI / 180.0);
        v[*n].x = c.x + R_in * cos(a);
        v[*n].y = c.y + R_in * sin(a);
        (*n)++;
    }
    return v;
}
