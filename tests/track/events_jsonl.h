/* events_jsonl.h - reading 'tabletrack track --events' files in the
 * tracker's tests (cmocka: a file that does not parse fails the test).
 * Returned JSON belongs to the caller (json_decref). */
#ifndef TT_TEST_EVENTS_JSONL_H
#define TT_TEST_EVENTS_JSONL_H

#include <jansson.h>

/* Every line of a JSON Lines file; each must parse and end in a newline. */
json_t *read_jsonl(const char *path);

/* The figure with this id in a frame line, or NULL (borrowed). */
json_t *figure_in(json_t *frame, int id);

#endif
