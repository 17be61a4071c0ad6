#include "tt_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *tt_strerror(tt_status st)
{
    switch (st) {
    case TT_OK: return "ok";
    case TT_ERR_ARG: return "bad argument";
    case TT_ERR_IO: return "file error";
    case TT_ERR_FORMAT: return "malformed input";
    case TT_ERR_NOMEM: return "out of memory";
    case TT_ERR_ANCHORS: return "not enough anchors";
    case TT_ERR_MISMATCH: return "inputs disagree";
    case TT_ERR_UNKNOWN: return "unknown name";
    case TT_ERR_CV: return "vision library error";
    case TT_ERR_DEVICE: return "device error";
    case TT_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

tt_status tt_err_set(tt_err *err, tt_status st, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->status = st;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return st;
}

void tt_err_prefix(tt_err *err, const char *fmt, ...)
{
    char pre[TT_ERR_MSG_LEN], old[TT_ERR_MSG_LEN];
    va_list ap;
    if (!err)
        return;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    /* Truncation keeps the start of the message, which is what matters. */
    size_t n = strlen(pre);
    if (n > sizeof err->msg - 3)
        n = sizeof err->msg - 3;
    memcpy(err->msg, pre, n);
    memcpy(err->msg + n, ": ", 2);
    n += 2;
    size_t m = strlen(old);
    if (m > sizeof err->msg - 1 - n)
        m = sizeof err->msg - 1 - n;
    memcpy(err->msg + n, old, m);
    err->msg[n + m] = '\0';
}

void tt_err_clear(tt_err *err)
{
    if (err) {
        err->status = TT_OK;
        err->msg[0] = '\0';
    }
}
