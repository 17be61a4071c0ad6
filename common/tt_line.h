/* tt_line.h - one line of a line-delimited input (a queries file, JSON Lines
 * on stdin), with a length cap so a file without newlines (/dev/zero, a
 * 2 GB line) is refused instead of read until memory runs out.
 *
 * The line buffer *line (capacity *cap) is owned by the caller: start with
 * NULL / 0, free() it at the end, as with getline().
 */
#ifndef TT_LINE_H
#define TT_LINE_H

#include <stdio.h>
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest line accepted (bytes, without the newline): 1 MiB. */
#define TT_LINE_MAX (1 << 20)

/* Read the next line into *line without its '\n' (and a '\r' before it);
 * *len receives its length (it may hold NUL bytes: compare with strlen).
 * Returns TT_OK with *len >= 0 for a line, TT_OK with *len = -1 at end of
 * input, TT_ERR_FORMAT when the line is longer than `max` bytes (only max+1
 * bytes of it are read) and TT_ERR_IO on a read error; the messages name
 * `what` (e.g. "queries.jsonl") and the line number `lineno`. */
tt_status tt_line_read(FILE *f, char **line, size_t *cap, size_t max, long *len, const char *what, long lineno,
                       tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
