#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_fail(const char *cmd, const tt_err *err)
{
    fprintf(stderr, "tabletrack %s: %s\n", cmd, err && err->msg[0] ? err->msg : "failed");
    return 1;
}

int cli_usage(const char *cmd, const char *usage, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tabletrack %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s\n", usage);
    return 2;
}

tt_status cli_write_text(const char *path, const char *text, tt_err *err)
{
    size_t n = strlen(text);
    if (!strcmp(path, "-")) {
        if (fwrite(text, 1, n, stdout) != n || fflush(stdout) != 0)
            return tt_err_set(err, TT_ERR_IO, "cannot write to standard output");
        return TT_OK;
    }
    size_t tl = strlen(path) + 8;
    char *tmp = malloc(tl);
    if (!tmp)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    snprintf(tmp, tl, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        tt_err_set(err, TT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return TT_ERR_IO;
    }
    int bad = fwrite(text, 1, n, f) != n;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        tt_err_set(err, TT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        free(tmp);
        return TT_ERR_IO;
    }
    free(tmp);
    return TT_OK;
}
