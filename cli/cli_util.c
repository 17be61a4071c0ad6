#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tt_tmpfile.h"

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
    char *tmp = NULL;
    FILE *f = NULL;
    tt_status st = tt_tmp_fopen(path, &tmp, &f, err);
    if (st != TT_OK)
        return st;
    int bad = fwrite(text, 1, n, f) != n;
    bad |= fclose(f) != 0;
    if (bad) {
        tt_err_set(err, TT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        tt_tmp_discard(tmp);
        return TT_ERR_IO;
    }
    return tt_tmp_commit(tmp, path, err);
}

/* Parse detector options shared by detect and other commands.  Returns the
 * number of argv entries consumed (0 if argv[i] is not a detector option),
 * -1 on a bad value. */
int cli_detector_opt(int argc, char **argv, int i, vision_detector_opts *o, const char **bad)
{
    const char *a = argv[i];
    if (!strcmp(a, "--family") || !strcmp(a, "--decimate") || !strcmp(a, "--refine-edges") ||
        !strcmp(a, "--threads")) {
        if (i + 1 >= argc) {
            *bad = a;
            return -1;
        }
        const char *v = argv[i + 1];
        char *end;
        if (!strcmp(a, "--family")) {
            if (o->nfamilies >= VISION_MAX_FAMILIES) {
                *bad = a;
                return -1;
            }
            o->families[o->nfamilies++] = v;
        } else if (!strcmp(a, "--decimate")) {
            o->decimate = strtod(v, &end);
            if (*end || end == v) {
                *bad = a;
                return -1;
            }
        } else if (!strcmp(a, "--refine-edges")) {
            if (strcmp(v, "0") && strcmp(v, "1")) {
                *bad = a;
                return -1;
            }
            o->refine_edges = v[0] == '1';
        } else {
            if (!cli_int(v, INT_MIN, INT_MAX, &o->nthreads)) {
                *bad = a;
                return -1;
            }
        }
        return 2;
    }
    return 0;
}

int cli_detector_apply(const char *name, const char *val, vision_detector_opts *o)
{
    char *argv[2] = {(char *)name, (char *)val};
    const char *bad = NULL;
    int k = cli_detector_opt(2, argv, 0, o, &bad);
    return k > 0 ? 1 : k;
}

int cli_int(const char *s, long lo, long hi, int *out)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}

void cli_on_stop(void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}
