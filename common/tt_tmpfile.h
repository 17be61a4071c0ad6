/* tt_tmpfile.h - write a file completely, then rename it into place.
 *
 * The temporary file lives beside the target (same folder, so rename is
 * atomic) under an unpredictable hidden name, ".NAME.XXXXXX.EXT", created
 * with mkstemps (O_CREAT | O_EXCL): never a fixed name another user could
 * guess, and never through a symlink someone left there.  It keeps the
 * target's extension so writers that pick the format from the name (OpenCV,
 * cairo) still do.  The name string is owned by the caller and released by
 * tt_tmp_commit or tt_tmp_discard.
 */
#ifndef TT_TMPFILE_H
#define TT_TMPFILE_H

#include <stdio.h>
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Create the empty temporary file for `path`; *tmp receives its name.
 * Its mode is the target's when the target exists, else 0644. */
tt_status tt_tmp_create(const char *path, char **tmp, tt_err *err);

/* The same, opened for writing ("wb") into *f. */
tt_status tt_tmp_fopen(const char *path, char **tmp, FILE **f, tt_err *err);

/* Rename tmp onto path (on failure tmp is removed); frees tmp.  Accepts a
 * NULL tmp (returns TT_ERR_ARG). */
tt_status tt_tmp_commit(char *tmp, const char *path, tt_err *err);

/* Remove the temporary file and free its name; accepts NULL. */
void tt_tmp_discard(char *tmp);

#ifdef __cplusplus
}
#endif
#endif
