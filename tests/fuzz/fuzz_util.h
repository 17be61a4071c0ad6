/* fuzz_util.h - shared by the file-based libFuzzer harnesses of tests/fuzz:
 * a private scratch folder per process, and writing the input into a file
 * there (the parsers under test read files). */
#ifndef TT_FUZZ_UTIL_H
#define TT_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The scratch folder (created once per process, removed at exit). */
const char *fuzz_dir(void);

/* Write data to fuzz_dir()/name; returns its path (static buffer) or NULL. */
const char *fuzz_file(const char *name, const uint8_t *data, size_t size);

#endif
