/* run.h - run the tabletrack binary from a test and capture what it says. */
#ifndef TT_TEST_RUN_H
#define TT_TEST_RUN_H

#include <stddef.h>

typedef struct run_result {
    int status;   /* exit code, or 128+signal */
    char *out;    /* stdout, NUL-terminated (owned: run_free) */
    char *err;    /* stderr */
} run_result;

/* Run argv (argv[0] is the program) with optional stdin text; NULL-terminated. */
run_result run_cmd(char *const argv[], const char *stdin_text);
void run_free(run_result *r);

/* The whole file at path, NUL-terminated (owned: free()), its length
 * without the NUL in *len if len; NULL if it cannot be read. */
char *run_read_file(const char *path, size_t *len);

#endif
