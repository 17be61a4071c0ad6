/* rules_json.h - typed access to optional members of JSON objects, with
 * messages that name where the bad value is ("scenario.json: figure \"m1\":
 * \"x\" must be a number").  Absent members leave *out unchanged. */
#ifndef TT_RULES_JSON_H
#define TT_RULES_JSON_H

#include <jansson.h>

#include "tt_status.h"

/* A value may be written bare or with its citation, as
 * {"value": V, "src": "book.txt L12"} or {"value": V, "house": true,
 * "note": "..."}: the bare value (v itself when it is not so wrapped). */
const json_t *rules_json_value(const json_t *v);

tt_status rules_json_bool(const json_t *o, const char *key, const char *where, int *out, tt_err *err);
/* A number in [lo, hi]. */
tt_status rules_json_num(const json_t *o, const char *key, const char *where, double lo, double hi, double *out,
                         tt_err *err);
/* A string; *out points into o. */
tt_status rules_json_str(const json_t *o, const char *key, const char *where, const char **out, tt_err *err);

/* Where a section of a profile comes from, for an answer's "rule": its
 * "src", else "house: " and its "note" where it is marked "house", else
 * NULL.  *out is allocated (the caller frees it). */
tt_status rules_json_cite(const json_t *o, const char *where, char **out, tt_err *err);

#endif
