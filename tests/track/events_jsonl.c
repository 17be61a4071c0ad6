/* events_jsonl.c - see events_jsonl.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "events_jsonl.h"

/* Read a JSON Lines file; every line must parse (a complete file). */
json_t *read_jsonl(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    json_t *arr = json_array();
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] != '\n')
            fail_msg("%s: last line is not complete: '%.80s'", path, line);
        json_error_t je;
        json_t *j = json_loads(line, 0, &je);
        if (!j)
            fail_msg("%s: line does not parse: %s", path, je.text);
        json_array_append_new(arr, j);
    }
    free(line);
    fclose(f);
    return arr;
}

json_t *figure_in(json_t *frame, int id)
{
    json_t *figs = json_object_get(frame, "figures");
    for (size_t i = 0; i < json_array_size(figs); i++)
        if (json_integer_value(json_object_get(json_array_get(figs, i), "id")) == id)
            return json_array_get(figs, i);
    return NULL;
}
