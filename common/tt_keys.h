/* tt_keys.h - refusing the keys a JSON document does not know, naming the
 * key, where it stands and the known key nearest to it:
 *   rig.json: unknown key "camera_setings" in rig (line 7, column 2): did
 *   you mean "camera_settings"?
 *
 * The caller describes its document with static schemas (one per kind of
 * object: its known keys, and for a key holding an object or a list of
 * objects, their schema); tt_keys_check walks a parsed document against
 * them.  Used by the rig file (calib/rig.c) and by scenarios and ruleset
 * profiles (rules/scenario/keys.c, which also allows citations).
 *
 * Ownership: nothing is allocated that outlives a call; schemas, documents
 * and texts stay the caller's.
 */
#ifndef TT_KEYS_H
#define TT_KEYS_H

#include <stddef.h>

#include <jansson.h>

#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tt_keys_schema;

/* A known key and, for an object or a list of objects, their schema (NULL:
 * the value's insides are not checked). */
typedef struct tt_keys_field {
    const char *key;
    const struct tt_keys_schema *sub;
} tt_keys_field;

/* An object's schema.  `label` names the object in messages ("terrain");
 * `name_key` is the member that names it ("id"), or NULL to use the key it
 * stands under.  A map (`map_of`) takes any key, each value of schema
 * map_of.  `cited`: the object may also hold the citation keys of
 * tt_keys_cite, and an object standing under a field without a schema is
 * checked as a cited value.  `fields` ends with {NULL, NULL}. */
typedef struct tt_keys_schema {
    const char *label;
    const char *name_key;
    const tt_keys_field *fields;
    const struct tt_keys_schema *map_of;
    int cited;
} tt_keys_schema;

/* What `cited` schemas also allow: `keys` (NULL-terminated, e.g. "src",
 * "house", "note") and the schema of a value written with its citation
 * ({"value": V, "src": ...}). */
typedef struct tt_keys_cite {
    const char *const *keys;
    const tt_keys_schema *value;
} tt_keys_cite;

/* One step of a path into a document: an object key, or an array index
 * when key is NULL. */
typedef struct tt_keys_step {
    const char *key;
    size_t index;
} tt_keys_step;

/* Check `root` against schema `s`: TT_OK, or TT_ERR_FORMAT "WHERE: unknown
 * key "K" in LABEL (line L, column C): did you mean "NEAREST"?".  `text` is
 * the document's source (for line and column; NULL to leave them out),
 * `prefix` (nprefix steps) the path of root inside `text` when root is part
 * of a larger document.  `cite` may be NULL when no schema is cited.  A
 * root that is not an object is TT_OK (the loaders say what it must be). */
tt_status tt_keys_check(const json_t *root, const tt_keys_schema *s, const tt_keys_cite *cite, const char *text,
                        const char *where, const tt_keys_step *prefix, int nprefix, tt_err *err);

/* The entry of `known` (n words) nearest to `word` (edit distance, a swap
 * of two neighbouring letters counting as one edit; a word that begins a
 * known word counts as one edit at most, a known word that begins the word
 * as one and a half), or NULL when n is 0.  The nearest may still be far: */
const char *tt_keys_nearest(const char *word, const char *const *known, size_t n);

/* 1 when `word` is close enough to `key` to be a typo of it (or a start of
 * it): at most two edits, or a third of the word's letters.
 * For a "did you mean" that is only offered when it helps. */
int tt_keys_similar(const char *word, const char *key);

#ifdef __cplusplus
}
#endif
#endif
