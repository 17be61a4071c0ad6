/* source_fault.c - the fault-injecting test source (see source_fault.h). */
#include "source_fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct vision__fault {
    vision_source *inner;
    int stall;         /* 1: stall, 0: lose */
    long at;           /* the fault comes after this many frames */
    double for_ms;     /* how long it lasts (< 0: for ever) */
    long frames;       /* frames delivered so far */
    int lost;          /* lose: the camera is away now */
    int done;          /* the fault happened already */
    double lost_since; /* wall ms */
    double offset_ms;  /* time lost so far, added to frame times */
};

static double vision__fault_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

tt_status vision__fault_open(const char *spec, const vision_source_opts *opts, vision__fault **out, tt_err *err)
{
    char kind[8];
    long at = 0;
    double secs = 0;
    int used = 0;
    *out = NULL;
    if (sscanf(spec, "%5[a-z]=%ld,for=%lf:%n", kind, &at, &secs, &used) != 3 || used == 0 ||
        (strcmp(kind, "lose") && strcmp(kind, "stall")) || at < 0)
        return tt_err_set(err, TT_ERR_ARG,
                          "test source 'fault:%s': write fault:lose=N,for=S:SOURCE or fault:stall=N,for=S:SOURCE", spec);
    vision__fault *f = calloc(1, sizeof *f);
    if (!f)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    f->stall = !strcmp(kind, "stall");
    f->at = at;
    f->for_ms = secs * 1000.0;
    tt_status st = vision_source_open(spec + used, opts, &f->inner, err);
    if (st != TT_OK) {
        free(f);
        return st;
    }
    *out = f;
    return TT_OK;
}

void vision__fault_destroy(vision__fault *f)
{
    if (!f)
        return;
    vision_source_destroy(f->inner);
    free(f);
}

vision_source *vision__fault_inner(vision__fault *f)
{
    return f->inner;
}

tt_status vision__fault_next(vision__fault *f, const tt_image **frame, double *t_ms, vision_frame_status *status,
                             tt_err *err)
{
    *frame = NULL;
    if (f->lost) {
        *status = VISION_LOST;
        return TT_OK;
    }
    if (!f->done && f->frames == f->at) {
        f->done = 1;
        if (!f->stall) {
            f->lost = 1;
            f->lost_since = vision__fault_now();
            *status = VISION_LOST;
            return TT_OK;
        }
        double t0 = vision__fault_now();
        while (vision__fault_now() - t0 < f->for_ms)
            usleep(10000);
        f->offset_ms += f->for_ms;
    }
    tt_status st = vision_source_next(f->inner, frame, t_ms, status, err);
    if (st == TT_OK && *status == VISION_FRAME) {
        f->frames++;
        *t_ms += f->offset_ms;
    }
    return st;
}

tt_status vision__fault_reconnect(vision__fault *f, tt_err *err)
{
    if (!f->lost)
        return TT_OK;
    double away = vision__fault_now() - f->lost_since;
    if (f->for_ms < 0 || away < f->for_ms)
        return tt_err_set(err, TT_ERR_DEVICE, "the test camera is unplugged (%.1f s so far)", away / 1000.0);
    f->lost = 0;
    f->offset_ms += away;
    return TT_OK;
}
