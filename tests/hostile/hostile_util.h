/* hostile_util.h - the scratch folder and file helpers of the tests in
 * tests/hostile.  Include after cmocka.h (the helpers assert). */
#ifndef TT_HOSTILE_UTIL_H
#define TT_HOSTILE_UTIL_H

#include <stddef.h>

/* The scratch folder of the running test group ("" before hu_setup). */
extern char hu_dir[256];

/* cmocka group setup / teardown: make and remove hu_dir. */
int hu_setup(void **state);
int hu_teardown(void **state);

/* hu_dir/name (one of 8 rotating static buffers). */
const char *hu_at(const char *name);

/* Write text to hu_dir/name (asserts). */
void hu_put(const char *name, const char *text);

/* A whole file, NUL-terminated (free()); NULL if it cannot be read. */
char *hu_slurp(const char *path, size_t *len);

#endif
