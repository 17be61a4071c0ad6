/* rec_outfile.c - output files written to PATH.tmp and renamed into place,
 * so a failed replay never leaves half a file behind. */
#include "rec_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tt_status rec__outfile_open(rec__outfile *o, const char *path, tt_err *err)
{
    memset(o, 0, sizeof *o);
    size_t n = strlen(path) + 8;
    o->path = strdup(path);
    o->tmp = malloc(n);
    if (!o->path || !o->tmp) {
        rec__outfile_abort(o);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    snprintf(o->tmp, n, "%s.tmp", path);
    o->f = fopen(o->tmp, "wb");
    if (!o->f) {
        tt_status s = tt_err_set(err, TT_ERR_IO, "cannot write %s: %s (is the folder writable?)", path, strerror(errno));
        rec__outfile_abort(o);
        return s;
    }
    return TT_OK;
}

tt_status rec__outfile_commit(rec__outfile *o, tt_err *err)
{
    int bad = ferror(o->f);
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    if (bad || rename(o->tmp, o->path) != 0) {
        tt_status s = tt_err_set(err, TT_ERR_IO, "cannot write %s: %s (disk full?)", o->path,
                                 errno ? strerror(errno) : "write error");
        rec__outfile_abort(o);
        return s;
    }
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    return TT_OK;
}

void rec__outfile_abort(rec__outfile *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        remove(o->tmp);
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}
