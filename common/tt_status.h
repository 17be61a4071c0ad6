/* tt_status.h - the one status enum of tabletrack and an error record that
 * carries a message a player can act on.
 *
 * Every fallible function takes a `tt_err *err` (may be NULL) and returns a
 * tt_status.  On failure it fills err->msg with a sentence that says what is
 * wrong and what to do, e.g. "anchor tag 2 not visible: is it covered?".
 * The caller owns the tt_err; it holds no heap memory.
 */
#ifndef TT_STATUS_H
#define TT_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tt_status {
    TT_OK = 0,
    TT_ERR_ARG,       /* bad command-line argument or API misuse */
    TT_ERR_IO,        /* file missing, unreadable or unwritable */
    TT_ERR_FORMAT,    /* file present but malformed (JSON, YAML, image) */
    TT_ERR_NOMEM,     /* allocation failed */
    TT_ERR_ANCHORS,   /* too few anchor tags visible to solve the table pose */
    TT_ERR_MISMATCH,  /* inputs disagree (e.g. image size vs camera.yaml) */
    TT_ERR_UNKNOWN,   /* unknown name: family, weapon, figure, tag id */
    TT_ERR_CV,        /* OpenCV reported an error */
    TT_ERR_DEVICE,    /* camera / projector device problem */
    TT_ERR_INTERNAL   /* a bug: please report it */
} tt_status;

#define TT_ERR_MSG_LEN 1024

typedef struct tt_err {
    tt_status status;
    char msg[TT_ERR_MSG_LEN];
} tt_err;

/* Short name of a status, e.g. "file error". Never NULL. */
const char *tt_strerror(tt_status st);

/* Record status and a printf-style message in err (if err is not NULL).
 * Returns st so callers can write `return tt_err_set(err, ...)`. */
tt_status tt_err_set(tt_err *err, tt_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prefix err->msg with more context: "<context>: <old message>". */
void tt_err_prefix(tt_err *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Reset err to TT_OK with an empty message. */
void tt_err_clear(tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
