/* tt_json.h - small helpers over jansson so every module reports malformed
 * JSON the same way: "<file>: line L, column C: <what>".
 *
 * The returned json_t is owned by the caller (json_decref).
 */
#ifndef TT_JSON_H
#define TT_JSON_H

#include <jansson.h>
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How answers are printed and sent: compact, and at 10 significant digits,
 * so the rules engine's rounded figures (0.01") print as rounded (7.63, not
 * the double's 7.6299999999999999). */
#define TT_JSON_ANSWER_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(10))

/* Load a JSON file.  Missing file -> TT_ERR_IO; bad JSON -> TT_ERR_FORMAT
 * with line and column in the message. */
tt_status tt_json_load_file(const char *path, json_t **out, tt_err *err);

/* The same, also giving the file's text (NUL-terminated, malloc'd, the
 * caller frees it) for messages that point into it. */
tt_status tt_json_load_file_text(const char *path, json_t **out, char **text, tt_err *err);

/* Parse JSON text (e.g. one query line).  `what` names the source in
 * messages ("query", "--query"). */
tt_status tt_json_parse(const char *text, const char *what, json_t **out, tt_err *err);

/* Read a required number member; TT_ERR_FORMAT naming `where`.`key` if
 * missing or not a number. */
tt_status tt_json_number(const json_t *obj, const char *key, const char *where, double *out, tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
