/* fuzz_util.c - see fuzz_util.h. */
#include "fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz__dir[64];

static void fuzz__cleanup(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz__dir);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz: could not remove %s\n", fuzz__dir);
}

const char *fuzz_dir(void)
{
    if (!fuzz__dir[0]) {
        snprintf(fuzz__dir, sizeof fuzz__dir, "/tmp/tt_fuzz_XXXXXX");
        if (!mkdtemp(fuzz__dir))
            abort();
        atexit(fuzz__cleanup);
    }
    return fuzz__dir;
}

const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    int bad = size && fwrite(data, 1, size, f) != size;
    bad |= fclose(f) != 0;
    return bad ? NULL : path;
}
