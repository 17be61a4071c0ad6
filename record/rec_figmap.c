/* rec_figmap.c - open-addressing hash map (family, tag id) -> the last
 * written state of that figure.  A few hundred figures; looked up once
 * per figure per frame. */
#include "rec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t rec__hash(const char *family, int id)
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)family; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    h ^= (uint64_t)(unsigned)id * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return (size_t)h;
}

rec__slot *rec__figmap_find(rec__figmap *m, const char *family, int id)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = rec__hash(family, id) & mask;; i = (i + 1) & mask) {
        rec__slot *s = &m->slots[i];
        if (!s->used)
            return NULL;
        if (s->id == id && !strcmp(s->family, family))
            return s;
    }
}

static int rec__figmap_grow(rec__figmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 256;
    rec__slot *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].used)
            continue;
        size_t j = rec__hash(m->slots[i].family, m->slots[i].id) & (ncap - 1);
        while (ns[j].used)
            j = (j + 1) & (ncap - 1);
        ns[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
    return 0;
}

rec__slot *rec__figmap_add(rec__figmap *m, const char *family, int id)
{
    if ((m->count + 1) * 2 > m->cap && rec__figmap_grow(m) != 0)
        return NULL;
    size_t mask = m->cap - 1;
    size_t i = rec__hash(family, id) & mask;
    while (m->slots[i].used)
        i = (i + 1) & mask;
    rec__slot *s = &m->slots[i];
    memset(s, 0, sizeof *s);
    snprintf(s->family, sizeof s->family, "%s", family);
    s->id = id;
    s->used = 1;
    s->state = -1;
    m->count++;
    return s;
}

void rec__figmap_free(rec__figmap *m)
{
    if (!m)
        return;
    free(m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}
