/* table_internal.h - the scene's parts, shared by table/'s files:
 * table_scene.c (loading, figures, asking) and table_look.c (drawing the
 * answers).  Internal to table/. */
#ifndef TT_TABLE_INTERNAL_H
#define TT_TABLE_INTERNAL_H

#include <string.h>

#include "overlay.h"
#include "rules.h"
#include "table_scene.h"

typedef struct table__figure {
    char *id, *unit, *weapon;
    double x, y, facing_deg;
    double radius_in; /* circle around the base: round radius or half diagonal */
    double err95_in, z_err95_in, facing_err95_deg; /* how sure its place is (0: exact) */
} table__figure;

/* A terrain piece that shields blasts: its outline or line. */
typedef struct table__piece {
    double *xy; /* points, owned */
    int n, closed, shields;
} table__piece;

/* One question asked and its answer, kept while no figure moves. */
struct table_answer {
    json_t *query;     /* the question (a copy, owned) */
    rules_result r;    /* the rules' answer, with the geometry to draw */
    json_t *json;      /* the same as JSON (owned) */
    unsigned gen;      /* the scene's generation it was asked at */
};

#define TABLE__ASKED_MAX 64

struct table_scene {
    rules_scenario *sc;
    json_t *profile; /* ruleset profile (owned) */
    table__figure *figs;
    int nfigs;
    table__piece *pieces;
    int npieces;
    int cite;     /* draw each answer's rule under the asker */
    unsigned gen; /* bumped whenever a figure moves */
    table_answer *asked[TABLE__ASKED_MAX]; /* answers at generation gen, oldest first */
    int nasked;
};

/* Words already on the felt, as boxes centred on their places (inches):
 * a label placed among others keeps clear of them (table_look.c). */
typedef struct table__words {
    double *box; /* x y w h of each, owned */
    int n, cap;
} table__words;

/* table_look_event, a check's words at `at` (their centre; NULL: placed
 * clear of the figures and of w's words), every word's box added to w (w
 * NULL: none kept; out of memory for w only leaves them unrecorded). */
tt_status table__look_event(const table_scene *s, const json_t *ev, const double *at, overlay_list *l, table__words *w,
                            tt_err *err);
/* Where the words of check ev go (their centre, at), clear of the figures
 * and of w's words: 1, or 0 when ev is no check with words. */
int table__check_place(const table_scene *s, const json_t *ev, const table__words *w, double at[2]);

/* The figure named id, or NULL. */
static inline const table__figure *table__fig(const table_scene *s, const char *id)
{
    for (int i = 0; id && i < s->nfigs; i++)
        if (!strcmp(s->figs[i].id, id))
            return &s->figs[i];
    return NULL;
}

#endif
