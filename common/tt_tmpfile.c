/* tt_tmpfile.c - temporary files beside their target (see tt_tmpfile.h). */
#include "tt_tmpfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

tt_status tt_tmp_create(const char *path, char **tmp, tt_err *err)
{
    *tmp = NULL;
    if (!path || !*path)
        return tt_err_set(err, TT_ERR_ARG, "no output file name");
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    const char *ext = dot && dot != base ? dot : "";
    size_t dirlen = (size_t)(base - path), n = strlen(path) + 16;
    char *t = malloc(n);
    if (!t)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    snprintf(t, n, "%.*s.%.*s.XXXXXX%s", (int)dirlen, path, (int)(strlen(base) - strlen(ext)), base, ext);
    int fd = mkstemps(t, (int)strlen(ext));
    if (fd < 0) {
        tt_status st = tt_err_set(err, TT_ERR_IO, "cannot write %s: %s (is the folder there and writable?)", path,
                                  strerror(errno));
        free(t);
        return st;
    }
    struct stat sb;
    fchmod(fd, stat(path, &sb) == 0 ? (sb.st_mode & 07777) : 0644);
    close(fd);
    *tmp = t;
    return TT_OK;
}

tt_status tt_tmp_fopen(const char *path, char **tmp, FILE **f, tt_err *err)
{
    *f = NULL;
    tt_status st = tt_tmp_create(path, tmp, err);
    if (st != TT_OK)
        return st;
    /* "r+b": the file exists (we made it, O_EXCL) and is empty. */
    if (!(*f = fopen(*tmp, "r+b"))) {
        st = tt_err_set(err, TT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        tt_tmp_discard(*tmp);
        *tmp = NULL;
    }
    return st;
}

tt_status tt_tmp_commit(char *tmp, const char *path, tt_err *err)
{
    if (!tmp)
        return tt_err_set(err, TT_ERR_ARG, "tt_tmp_commit: no temporary file");
    tt_status st = TT_OK;
    if (rename(tmp, path) != 0) {
        st = tt_err_set(err, TT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return st;
}

void tt_tmp_discard(char *tmp)
{
    if (!tmp)
        return;
    unlink(tmp);
    free(tmp);
}
