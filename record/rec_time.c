/* rec_time.c - times on the command line: seconds, mm:ss or h:mm:ss. */
#include "rec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tt_status rec_parse_time(const char *s, long long *ms, tt_err *err)
{
    if (!s || !*s)
        return tt_err_set(err, TT_ERR_ARG, "empty time (give seconds like 75 or 12.5, or mm:ss like 1:15)");
    double parts[3];
    int np = 0;
    const char *p = s;
    for (;;) {
        char *end;
        if (np == 3 || !((*p >= '0' && *p <= '9') || *p == '.'))
            goto bad;
        parts[np++] = strtod(p, &end);
        if (end == p || !isfinite(parts[np - 1]))
            goto bad;
        p = end;
        if (*p == '\0')
            break;
        if (*p != ':')
            goto bad;
        p++;
    }
    double sec = 0;
    for (int i = 0; i < np; i++) {
        /* Only the last part may have a fraction; minutes/seconds < 60. */
        if (i < np - 1 && parts[i] != floor(parts[i]))
            goto bad;
        if (i > 0 && parts[i] >= 60)
            goto bad;
        sec = sec * 60 + parts[i];
    }
    if (sec > 1e9)
        goto bad;
    *ms = llround(sec * 1000.0);
    return TT_OK;
bad:
    return tt_err_set(err, TT_ERR_ARG, "bad time '%s' (give seconds like 75 or 12.5, or mm:ss like 1:15, or h:mm:ss)",
                      s);
}
