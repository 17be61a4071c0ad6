/* json_util.c - typed optional members (see rules_json.h). */
#include "rules_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const json_t *rules_json_value(const json_t *v)
{
    const json_t *x = json_is_object(v) ? json_object_get(v, "value") : NULL;
    return x ? x : v;
}

tt_status rules_json_bool(const json_t *o, const char *key, const char *where, int *out, tt_err *err)
{
    const json_t *v = rules_json_value(json_object_get(o, key));
    if (!v)
        return TT_OK;
    if (!json_is_boolean(v))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must be true or false", where, key);
    *out = json_is_true(v);
    return TT_OK;
}

tt_status rules_json_num(const json_t *o, const char *key, const char *where, double lo, double hi, double *out,
                         tt_err *err)
{
    const json_t *v = rules_json_value(json_object_get(o, key));
    if (!v)
        return TT_OK;
    if (!json_is_number(v))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must be a number", where, key);
    double d = json_number_value(v);
    if (!(d >= lo && d <= hi))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" is %g, it must be between %g and %g", where, key, d, lo, hi);
    *out = d;
    return TT_OK;
}

tt_status rules_json_str(const json_t *o, const char *key, const char *where, const char **out, tt_err *err)
{
    const json_t *v = rules_json_value(json_object_get(o, key));
    if (!v)
        return TT_OK;
    if (!json_is_string(v))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must be a string", where, key);
    *out = json_string_value(v);
    return TT_OK;
}

tt_status rules_json_cite(const json_t *o, const char *where, char **out, tt_err *err)
{
    const char *src = NULL, *note = NULL;
    tt_status st;
    *out = NULL;
    if (!json_is_object(o))
        return TT_OK;
    if ((st = rules_json_str(o, "src", where, &src, err)) || (st = rules_json_str(o, "note", where, &note, err)))
        return st;
    const json_t *h = json_object_get(o, "house");
    if (h && !json_is_boolean(h))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"house\" must be true or false", where);
    if (src)
        *out = strdup(src);
    else if (json_is_true(h)) {
        size_t n = strlen(note ? note : "") + 8;
        if ((*out = malloc(n)))
            snprintf(*out, n, "house%s%s", note ? ": " : "", note ? note : "");
    } else
        return TT_OK;
    return *out ? TT_OK : tt_err_set(err, TT_ERR_NOMEM, "out of memory");
}
