/* test_util.c - see test_util.h. */
#define _GNU_SOURCE
#include "test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

tu_dir tu_dir_make(void)
{
    tu_dir d;
    snprintf(d.path, sizeof d.path, "/tmp/tt_rec_testXXXXXX");
    if (!mkdtemp(d.path)) {
        perror("mkdtemp");
        abort();
    }
    return d;
}

void tu_dir_remove(tu_dir *d)
{
    DIR *dir = opendir(d->path);
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", d->path, e->d_name);
        unlink(p);
    }
    closedir(dir);
    rmdir(d->path);
}

char *tu_path(const tu_dir *d, const char *name)
{
    size_t n = strlen(d->path) + strlen(name) + 2;
    char *p = malloc(n);
    if (!p)
        abort();
    snprintf(p, n, "%s/%s", d->path, name);
    return p;
}

void tu_write(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

char *tu_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, k;
    char *buf = malloc(cap + 1);
    while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (!buf)
        abort();
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

tu_sum tu_file_sum(const char *path)
{
    tu_sum s = {-1, 0};
    size_t n;
    char *b = tu_read(path, &n);
    if (!b)
        return s;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)b[i]) * 1099511628211ull;
    free(b);
    s.size = (long long)n;
    s.hash = h;
    return s;
}

int tu_sum_equal(tu_sum a, tu_sum b)
{
    return a.size == b.size && a.hash == b.hash;
}
