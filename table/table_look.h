/* table_look.h - what each answer looks like: one answer of the rules
 * (table_scene_ask) -> primitives in table inches with their roles (ring,
 * line of sight, blocked, range bands, blast, label, ...), added to an
 * overlay_list.  Every answer kind is described once, in table_look.c, for
 * every picture that shows answers: the projector's frames and the
 * on-camera view draw the list through overlay/; table_look_json gives the
 * same primitives as JSON (docs/api.md, "What an answer looks like") for
 * drawings outside C.
 *
 * Ownership: the scene and the answer are borrowed; the JSON is the
 * caller's (json_decref). */
#ifndef TT_TABLE_LOOK_H
#define TT_TABLE_LOOK_H

#include <jansson.h>

#include "overlay.h"
#include "table_scene.h"
#include "tt_status.h"

/* Line and text sizes of the answers, inches. */
#define TABLE_LINE_IN 0.08
#define TABLE_THIN_IN 0.05
#define TABLE_TEXT_IN 0.4

/* Add what answer a means to l (its figures where the scene has them now);
 * with the scene's cite on, the rule it comes from under the asker. */
tt_status table_look_add(const table_scene *s, const table_answer *a, overlay_list *l, tt_err *err);

/* The same primitives as a JSON array (overlay_list_to_json's format). */
tt_status table_look_json(const table_scene *s, const table_answer *a, json_t **out, tt_err *err);

#endif
