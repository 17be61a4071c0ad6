/* rec_outfile.c - output files written to a temporary file beside PATH
 * (tt_tmpfile.h: unpredictable name, O_EXCL) and renamed into place, so a
 * failed replay never leaves half a file behind. */
#include "rec_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tt_tmpfile.h"

tt_status rec__outfile_open(rec__outfile *o, const char *path, tt_err *err)
{
    memset(o, 0, sizeof *o);
    o->path = strdup(path);
    if (!o->path)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    tt_status s = tt_tmp_fopen(path, &o->tmp, &o->f, err);
    if (s != TT_OK)
        rec__outfile_abort(o);
    return s;
}

tt_status rec__outfile_commit(rec__outfile *o, tt_err *err)
{
    errno = 0;
    int bad = ferror(o->f);
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    if (bad) {
        tt_status s = tt_err_set(err, TT_ERR_IO, "cannot write %s: %s (disk full?)", o->path,
                                 errno ? strerror(errno) : "write error");
        rec__outfile_abort(o);
        return s;
    }
    tt_status s = tt_tmp_commit(o->tmp, o->path, err);
    o->tmp = NULL;
    free(o->path);
    memset(o, 0, sizeof *o);
    return s;
}

void rec__outfile_abort(rec__outfile *o)
{
    if (o->f)
        fclose(o->f);
    tt_tmp_discard(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
}
