/* tt_palette.h - the colours of the answers, by role, shared by the
 * projector (overlay/), the replay (record/) and, as a copy checked by a
 * test, the pages (web/draw.js TTDraw.ROLE).
 *
 * Okabe & Ito (2008), "Color Universal Design": distinguishable with every
 * common colour-vision deficiency.  Blue (0,114,178) is left out: too dark
 * to read as projected light on green or brown felt. */
#ifndef TT_PALETTE_H
#define TT_PALETTE_H

typedef struct tt_palette_entry {
    const char *role; /* "clear", "blocked", ... */
    unsigned char r, g, b;
    const char *hex;  /* "#56b4e9" */
} tt_palette_entry;

/* The roles, in a fixed order, ended by an entry with role NULL.  Static
 * storage: never freed. */
const tt_palette_entry *tt_palette(void);

/* The entry of a role; an unknown role gives "neutral" (white). */
const tt_palette_entry *tt_palette_role(const char *role);

#endif
