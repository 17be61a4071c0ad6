/* tt_keys.c - unknown keys in a JSON document, against the caller's
 * schemas: where the key stands in the text (line and column, by walking
 * the source along the key's path) and the known key nearest to it. */
#include "tt_keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- where a key stands in the text ---- */

typedef struct tt_keys__scan {
    const char *s;
    int line, col;
} tt_keys__scan;

static void tt_keys__adv(tt_keys__scan *c)
{
    if (*c->s == '\n') {
        c->line++;
        c->col = 1;
    } else if (((unsigned char)*c->s & 0xC0) != 0x80) {
        c->col++;
    }
    c->s++;
}

static void tt_keys__ws(tt_keys__scan *c)
{
    while (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r')
        tt_keys__adv(c);
}

/* Skips a string at c->s (on its opening quote); copies up to n-1 bytes of
 * its raw content into buf when buf is not NULL. */
static int tt_keys__string(tt_keys__scan *c, char *buf, size_t n)
{
    size_t k = 0;
    if (*c->s != '"')
        return -1;
    tt_keys__adv(c);
    while (*c->s && *c->s != '"') {
        if (*c->s == '\\' && c->s[1]) {
            if (buf && k + 1 < n)
                buf[k++] = c->s[1];
            tt_keys__adv(c);
            tt_keys__adv(c);
            continue;
        }
        if (buf && k + 1 < n)
            buf[k++] = *c->s;
        tt_keys__adv(c);
    }
    if (buf && n)
        buf[k] = '\0';
    if (*c->s != '"')
        return -1;
    tt_keys__adv(c);
    return 0;
}

/* Skips one JSON value (the text was already parsed by jansson, so it is
 * well formed). */
static int tt_keys__skip(tt_keys__scan *c)
{
    tt_keys__ws(c);
    if (*c->s == '"')
        return tt_keys__string(c, NULL, 0);
    if (*c->s == '{' || *c->s == '[') {
        int depth = 0;
        do {
            if (*c->s == '"') {
                if (tt_keys__string(c, NULL, 0))
                    return -1;
                continue;
            }
            if (*c->s == '{' || *c->s == '[')
                depth++;
            else if (*c->s == '}' || *c->s == ']')
                depth--;
            if (!*c->s)
                return -1;
            tt_keys__adv(c);
        } while (depth > 0);
        return 0;
    }
    while (*c->s && !strchr(",}] \t\r\n", *c->s))
        tt_keys__adv(c);
    return 0;
}

/* Skips a value and the comma after it (the next member or element follows). */
static int tt_keys__next(tt_keys__scan *c)
{
    if (tt_keys__skip(c))
        return -1;
    tt_keys__ws(c);
    if (*c->s != ',')
        return -1;
    tt_keys__adv(c);
    return 0;
}

/* Line and column of the last step's key (or element) in `text`. */
static int tt_keys__locate(const char *text, const tt_keys_step *path, int n, int *line, int *col)
{
    tt_keys__scan c = {text, 1, 1};
    char key[256];
    for (int d = 0; d < n; d++) {
        tt_keys__ws(&c);
        if (path[d].key) {
            if (*c.s != '{')
                return -1;
            tt_keys__adv(&c);
            for (;;) {
                tt_keys__ws(&c);
                if (*c.s != '"')
                    return -1;
                tt_keys__scan at = c;
                if (tt_keys__string(&c, key, sizeof key))
                    return -1;
                tt_keys__ws(&c);
                if (*c.s != ':')
                    return -1;
                tt_keys__adv(&c);
                if (!strcmp(key, path[d].key)) {
                    if (d == n - 1) {
                        *line = at.line;
                        *col = at.col;
                        return 0;
                    }
                    break;
                }
                if (tt_keys__next(&c))
                    return -1;
            }
        } else {
            if (*c.s != '[')
                return -1;
            tt_keys__adv(&c);
            for (size_t i = 0; i < path[d].index; i++)
                if (tt_keys__next(&c))
                    return -1;
            tt_keys__ws(&c);
            if (d == n - 1) {
                *line = c.line;
                *col = c.col;
                return 0;
            }
        }
    }
    return -1;
}

/* ---- nearest known key ---- */

/* Edits from a to b: insertions, deletions, substitutions and swaps of two
 * neighbouring letters ("sied" -> "side" is one). */
static size_t tt_keys__edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d[48][48];
    if (la >= 47 || lb >= 47)
        return (size_t)-1;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (unsigned char)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (unsigned char)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            unsigned best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1u < best)
                best = d[i - 1][j] + 1u;
            if (d[i][j - 1] + 1u < best)
                best = d[i][j - 1] + 1u;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1u < best)
                best = d[i - 2][j - 2] + 1u;
            d[i][j] = (unsigned char)best;
        }
    return d[la][lb];
}

/* Twice the edits from word to key.  A word that begins the key counts as
 * one edit at most ("arc" -> "arc_deg", "--size" -> "--size-in"); a key
 * that begins the word as one and a half ("calibrate" -> "calib"), so a
 * one-letter slip still wins ("camera_setings" -> "camera_settings", not
 * "camera"). */
static size_t tt_keys__distance(const char *word, const char *key)
{
    size_t d = tt_keys__edit_distance(word, key), lw = strlen(word), lk = strlen(key);
    d = d == (size_t)-1 ? d : 2 * d;
    if (lw >= 3 && lw <= lk && !strncmp(word, key, lw) && d > 1)
        d = 1;
    else if (lk >= 3 && lk < lw && !strncmp(word, key, lk) && d > 3)
        d = 3;
    return d;
}

const char *tt_keys_nearest(const char *word, const char *const *known, size_t n)
{
    const char *best = NULL;
    size_t bd = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t d = tt_keys__distance(word, known[i]);
        if (d < bd) {
            bd = d;
            best = known[i];
        }
    }
    return best;
}

int tt_keys_similar(const char *word, const char *key)
{
    size_t d = tt_keys__distance(word, key), lw = strlen(word);
    return d <= 4 || d <= 2 * (lw / 3);
}

#define TT_KEYS__MAX_KNOWN 96

static const char *tt_keys__nearest(const char *word, const tt_keys_schema *s, const tt_keys_cite *cite)
{
    const char *known[TT_KEYS__MAX_KNOWN];
    size_t n = 0;
    for (const tt_keys_field *f = s->fields; f && f->key && n < TT_KEYS__MAX_KNOWN; f++)
        known[n++] = f->key;
    if (s->cited && cite && cite->keys)
        for (const char *const *k = cite->keys; *k && n < TT_KEYS__MAX_KNOWN; k++)
            known[n++] = *k;
    return tt_keys_nearest(word, known, n);
}

static int tt_keys__is_cite(const tt_keys_schema *s, const tt_keys_cite *cite, const char *key)
{
    if (!s->cited || !cite || !cite->keys)
        return 0;
    for (const char *const *k = cite->keys; *k; k++)
        if (!strcmp(*k, key))
            return 1;
    return 0;
}

static const tt_keys_field *tt_keys__field_of(const tt_keys_schema *s, const char *key)
{
    for (const tt_keys_field *f = s->fields; f && f->key; f++)
        if (!strcmp(f->key, key))
            return f;
    return NULL;
}

#define TT_KEYS__DEPTH 16

typedef struct tt_keys__walk {
    const char *text, *where;
    const tt_keys_cite *cite;
    tt_keys_step path[TT_KEYS__DEPTH];
    int depth, root_depth; /* root_depth: the steps of the prefix */
    tt_err *err;
} tt_keys__walk;

static tt_status tt_keys__check(tt_keys__walk *w, const json_t *o, const tt_keys_schema *s, const char *ctx);

static tt_status tt_keys__check_value(tt_keys__walk *w, const json_t *v, const tt_keys_schema *s, const char *ctx)
{
    if (!s || w->depth >= TT_KEYS__DEPTH)
        return TT_OK;
    if (json_is_object(v))
        return tt_keys__check(w, v, s, ctx);
    if (json_is_array(v)) {
        tt_status st;
        for (size_t i = 0; i < json_array_size(v); i++) {
            w->path[w->depth].key = NULL;
            w->path[w->depth].index = i;
            w->depth++;
            st = tt_keys__check_value(w, json_array_get(v, i), s, ctx);
            w->depth--;
            if (st)
                return st;
        }
    }
    return TT_OK;
}

static tt_status tt_keys__check(tt_keys__walk *w, const json_t *o, const tt_keys_schema *s, const char *ctx)
{
    char here[256];
    const char *key;
    json_t *val;
    /* how this object is named in messages */
    const char *name = NULL;
    if (s->name_key && json_is_string(json_object_get(o, s->name_key)))
        name = json_string_value(json_object_get(o, s->name_key));
    else if (!s->name_key && w->depth > w->root_depth && w->path[w->depth - 1].key)
        name = w->path[w->depth - 1].key;
    if (s->map_of)
        snprintf(here, sizeof here, "%s", ctx);
    else if (name && strcmp(name, s->label))
        snprintf(here, sizeof here, "%s \"%s\"", s->label, name);
    else
        snprintf(here, sizeof here, "%s", s->label);
    json_object_foreach((json_t *)o, key, val)
    {
        const tt_keys_field *f = NULL;
        const tt_keys_schema *sub = NULL;
        if (s->map_of)
            sub = s->map_of;
        else if ((f = tt_keys__field_of(s, key)))
            sub = f->sub;
        else if (!tt_keys__is_cite(s, w->cite, key)) {
            int line = 0, col = 0;
            char pos[64] = "";
            w->path[w->depth].key = key;
            if (w->text && tt_keys__locate(w->text, w->path, w->depth + 1, &line, &col) == 0)
                snprintf(pos, sizeof pos, " (line %d, column %d)", line, col);
            const char *near = tt_keys__nearest(key, s, w->cite);
            return tt_err_set(w->err, TT_ERR_FORMAT, "%s: unknown key \"%s\" in %s%s: did you mean \"%s\"?",
                              w->where, key, here, pos, near ? near : "");
        }
        if (!sub) {
            if (!s->cited || !w->cite || !w->cite->value || !json_is_object(val))
                continue;
            sub = w->cite->value;
        }
        w->path[w->depth].key = key;
        w->depth++;
        tt_status st = tt_keys__check_value(w, val, sub, here);
        w->depth--;
        if (st)
            return st;
    }
    return TT_OK;
}

tt_status tt_keys_check(const json_t *root, const tt_keys_schema *s, const tt_keys_cite *cite, const char *text,
                        const char *where, const tt_keys_step *prefix, int nprefix, tt_err *err)
{
    tt_keys__walk w;
    memset(&w, 0, sizeof w);
    w.text = text;
    w.where = where ? where : "";
    w.cite = cite;
    w.err = err;
    for (int i = 0; i < nprefix && i < TT_KEYS__DEPTH; i++)
        w.path[w.depth++] = prefix[i];
    w.root_depth = w.depth;
    if (!s)
        return TT_OK;
    if (!json_is_object(root))
        return TT_OK; /* the loaders say what the document must be */
    return tt_keys__check(&w, root, s, s->label);
}
