/* table_scene.h - the game's table: the scenario, the figures on it now,
 * and asking the rules about them.
 *
 * A table_scene is a rules scenario plus what drawing its answers needs
 * beyond them: where each figure stands and how big its base is, which
 * unit it belongs to, the terrain that shields blasts, and the weapons'
 * range brackets - all read from the same scenario file and its ruleset
 * profile.  The rules are asked once per question while no figure moves:
 * the answer is kept and drawn from (table_look.h) as often as wanted.
 *
 * Ownership: table_scene_load allocates, table_scene_destroy frees
 * (accepts NULL); a table_answer belongs to the scene and lives until the
 * scene's next ask, place or destroy; answers returned as json_t by
 * table_scene_query are the caller's.
 */
#ifndef TT_TABLE_SCENE_H
#define TT_TABLE_SCENE_H

#include <jansson.h>

#include "overlay.h"
#include "tt_status.h"

typedef struct table_scene table_scene;

/* Where ruleset profiles are looked for: $TABLETRACK_DATA, then the source
 * tree; NULL-ended, static (the live game's and the replay's one list). */
const char *const *table_data_dirs(void);

/* data_dirs: NULL-terminated list where ruleset profiles are searched (as
 * rules_scenario_load); empty strings are skipped. */
tt_status table_scene_load(const char *path, const char *const *data_dirs, table_scene **out, tt_err *err);
/* Same from JSON text (NUL-terminated); `where` names it in messages,
 * relative profile paths are resolved against base_dir. */
tt_status table_scene_parse(const char *text, const char *where, const char *base_dir,
                            const char *const *data_dirs, table_scene **out, tt_err *err);
void table_scene_destroy(table_scene *s);

/* One question and its answer, kept by the scene (see above). */
typedef struct table_answer table_answer;

/* Ask the rules one query object of the rules contract (issue 3).  The
 * same question again before any figure moves gives the answer kept, and
 * the rules are not asked again.  A bad query (unknown figure, weapon,
 * malformed) returns the rules' error. */
tt_status table_scene_ask(table_scene *s, const json_t *query, const table_answer **out, tt_err *err);
/* The answer as the rules' JSON (borrowed: the answer's). */
const json_t *table_answer_json(const table_answer *a);

/* Ask (table_scene_ask) and add what the answer means to l (table_look_add;
 * l may be NULL): lines of sight, range bands, arcs, blasts clipped by the
 * terrain that shields them, the cannonball's line, command radius, labels.
 * *answer (may be NULL) receives the rules' JSON answer (a new reference).
 * A bad query returns the rules' error and adds nothing. */
tt_status table_scene_query(table_scene *s, const json_t *query, overlay_list *l, json_t **answer, tt_err *err);

/* on: each answer drawn also shows the rule it comes from ("thin-red-line.txt
 * L246", or "house value") in small white text under the asker's base. */
void table_scene_set_cite(table_scene *s, int on);

/* The live pipeline: the figure the scenario's "tags" map tag_id to now
 * stands at (x, y) facing facing_deg.  Returns the figure's id (owned by the
 * scene) or NULL if the tag names no figure; a position off the table is an
 * error and leaves the figure where it was. */
tt_status table_scene_place(table_scene *s, int tag_id, double x, double y, double facing_deg,
                            const char **figure_id, tt_err *err);

/* How sure the place of tag_id's figure is (the tracker's 95% bounds:
 * err95_in around its position, z_err95_in of its height, facing_err95_deg;
 * 0 each: exact), handed to the rules so that answers say
 * distance_err95_in and too_close_to_call.  A change of more than
 * TABLE_ERR_STEP_IN (or a degree) asks the kept answers again; smaller
 * ones are kept for the next real move.  A tag of no figure: TT_OK. */
#define TABLE_ERR_STEP_IN 0.002
tt_status table_scene_set_errors(table_scene *s, int tag_id, double err95_in, double z_err95_in,
                                 double facing_err95_deg, tt_err *err);

/* Keep every figure's tag dark (overlay_add_tag_mask): a mask of a tag of
 * tag_size_in (the rig's base size_in) at each figure of the scenario, where
 * it stands now, at the height of the ground under it plus base_height_in. */
tt_status table_scene_mask_figures(const table_scene *s, double tag_size_in, double base_height_in,
                                   overlay_list *l, tt_err *err);

/* Height above the felt (inches) of the ground at table point (x, y): the
 * scenario's highest raising piece there (hill, building), else 0.  The
 * signature is tt_ground_fn's, with the table_scene as `user` (NULL: the
 * felt), for overlay_mapper_projector_ground. */
double table_scene_ground_in(const void *scene, double x, double y);

#endif
