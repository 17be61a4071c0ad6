/* hostile_util.c - see hostile_util.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "hostile_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char hu_dir[256];

int hu_setup(void **state)
{
    (void)state;
    snprintf(hu_dir, sizeof hu_dir, "/tmp/tt_hostile_XXXXXX");
    return mkdtemp(hu_dir) ? 0 : -1;
}

int hu_teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'; rm -rf '%s'", hu_dir, hu_dir);
    return system(cmd) == 0 ? 0 : -1;
}

const char *hu_at(const char *name)
{
    static char p[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", hu_dir, name);
    return p[k];
}

void hu_put(const char *name, const char *text)
{
    FILE *f = fopen(hu_at(name), "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

char *hu_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (n + 65536 > cap) {
            cap = (n + 65536) * 2;
            b = realloc(b, cap);
            assert_non_null(b);
        }
        got = fread(b + n, 1, 65536, f);
        n += got;
    } while (got > 0);
    fclose(f);
    b[n] = '\0';
    *len = n;
    return b;
}
