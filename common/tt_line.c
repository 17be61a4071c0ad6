/* tt_line.c - a capped getline (see tt_line.h). */
#include "tt_line.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

tt_status tt_line_read(FILE *f, char **line, size_t *cap, size_t max, long *len, const char *what, long lineno,
                       tt_err *err)
{
    size_t n = 0;
    int c = EOF;
    *len = -1;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (n >= max)
            return tt_err_set(err, TT_ERR_FORMAT,
                              "%s: line %ld is longer than %zu bytes: each line must be one short JSON object (is "
                              "this the right file?)",
                              what, lineno, max);
        if (n + 2 > *cap) {
            size_t nc = *cap ? *cap * 2 : 256;
            char *p = realloc(*line, nc);
            if (!p)
                return tt_err_set(err, TT_ERR_NOMEM, "%s: out of memory at line %ld", what, lineno);
            *line = p;
            *cap = nc;
        }
        (*line)[n++] = (char)c;
    }
    if (ferror(f))
        return tt_err_set(err, TT_ERR_IO, "%s: cannot read line %ld: %s", what, lineno, strerror(errno));
    if (c == EOF && n == 0)
        return TT_OK;
    if (!*line) {
        if (!(*line = malloc(1)))
            return tt_err_set(err, TT_ERR_NOMEM, "%s: out of memory", what);
        *cap = 1;
    }
    if (n > 0 && (*line)[n - 1] == '\r')
        n--;
    (*line)[n] = '\0';
    *len = (long)n;
    return TT_OK;
}
