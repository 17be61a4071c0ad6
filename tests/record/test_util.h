/* test_util.h - small file helpers for the record tests. */
#ifndef TT_REC_TEST_UTIL_H
#define TT_REC_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

typedef struct tu_dir {
    char path[256];
} tu_dir;

/* A fresh temporary folder (aborts the test on failure). */
tu_dir tu_dir_make(void);
/* Remove the folder and everything in it. */
void tu_dir_remove(tu_dir *d);
/* d/name, malloc'd. */
char *tu_path(const tu_dir *d, const char *name);

void tu_write(const char *path, const void *data, size_t n);
/* Whole file, NUL-terminated, malloc'd; NULL if missing. */
char *tu_read(const char *path, size_t *len);

typedef struct tu_sum {
    long long size;   /* -1 when missing */
    uint64_t hash;
} tu_sum;
tu_sum tu_file_sum(const char *path);
int tu_sum_equal(tu_sum a, tu_sum b);

#endif
