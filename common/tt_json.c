#include "tt_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* path opened for reading; NULL with the reason in err (a folder is
 * refused: its "size" is no file's). */
static FILE *json__open(const char *path, tt_err *err)
{
    struct stat sb;
    FILE *f = fopen(path, "rb");
    if (!f) {
        tt_err_set(err, TT_ERR_IO, "cannot open %s: %s (check the path)", path, strerror(errno));
        return NULL;
    }
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        tt_err_set(err, TT_ERR_IO, "%s is a folder, not a JSON file: give the file's path", path);
        return NULL;
    }
    return f;
}

tt_status tt_json_load_file(const char *path, json_t **out, tt_err *err)
{
    json_error_t je;
    FILE *f;
    *out = NULL;
    if (!(f = json__open(path, err)))
        return err ? err->status : TT_ERR_IO;
    *out = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!*out)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: line %d, column %d: %s (fix the JSON and try again)",
                          path, je.line, je.column, je.text);
    return TT_OK;
}

tt_status tt_json_load_file_text(const char *path, json_t **out, char **text, tt_err *err)
{
    json_error_t je;
    FILE *f;
    long n;
    *out = NULL;
    *text = NULL;
    if (!(f = json__open(path, err)))
        return err ? err->status : TT_ERR_IO;
    if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
        fclose(f);
        return tt_err_set(err, TT_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    }
    char *buf = malloc((size_t)n + 1);
    if (!buf) {
        fclose(f);
        return tt_err_set(err, TT_ERR_NOMEM, "%s: out of memory (%ld bytes)", path, n);
    }
    size_t got = fread(buf, 1, (size_t)n, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return tt_err_set(err, TT_ERR_IO, "cannot read %s", path);
    }
    buf[got] = '\0';
    *out = json_loadb(buf, got, JSON_REJECT_DUPLICATES, &je);
    if (!*out) {
        free(buf);
        return tt_err_set(err, TT_ERR_FORMAT, "%s: line %d, column %d: %s (fix the JSON and try again)", path,
                          je.line, je.column, je.text);
    }
    *text = buf;
    return TT_OK;
}

tt_status tt_json_parse(const char *text, const char *what, json_t **out, tt_err *err)
{
    json_error_t je;
    *out = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!*out)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: line %d, column %d: %s", what, je.line, je.column, je.text);
    return TT_OK;
}

tt_status tt_json_number(const json_t *obj, const char *key, const char *where, double *out, tt_err *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: missing \"%s\"", where, key);
    if (!json_is_number(v))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must be a number", where, key);
    *out = json_number_value(v);
    return TT_OK;
}
