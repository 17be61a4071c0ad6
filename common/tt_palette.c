/* tt_palette.c - the answers' colour-blind-safe palette (see tt_palette.h). */
#include "tt_palette.h"

#include <string.h>

static const tt_palette_entry tt__palette[] = {
    {"neutral", 255, 255, 255, "#ffffff"}, /* labels, plain outlines */
    {"clear", 86, 180, 233, "#56b4e9"},    /* sky blue: a clear line, in reach */
    {"blocked", 213, 94, 0, "#d55e00"},    /* vermillion: blocked, out of reach */
    {"short", 0, 158, 115, "#009e73"},     /* bluish green: short range band */
    {"medium", 240, 228, 66, "#f0e442"},   /* yellow: medium range band */
    {"long", 230, 159, 0, "#e69f00"},      /* orange: long range band */
    {"arc", 230, 159, 0, "#e69f00"},       /* orange: grape cone, firing arc */
    {"blast", 213, 94, 0, "#d55e00"},      /* vermillion: blast */
    {"ball", 240, 228, 66, "#f0e442"},     /* yellow: a cannonball's flight */
    {"command", 204, 121, 167, "#cc79a7"}, /* reddish purple: command radius */
    {"target", 240, 228, 66, "#f0e442"},   /* yellow: figures caught, hit or touched */
    {NULL, 0, 0, 0, NULL},
};

const tt_palette_entry *tt_palette(void) { return tt__palette; }

const tt_palette_entry *tt_palette_role(const char *role)
{
    for (const tt_palette_entry *e = tt__palette; role && e->role; e++)
        if (!strcmp(e->role, role))
            return e;
    return &tt__palette[0];
}
