/* source.c - frame sources: image globs, video files, V4L2 cameras. */
#include "source.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cvwrap.h"
#include "cvwrap_capture.h"
#include "source_fault.h"
#include "usbcam.h"

struct vision_source {
    vision_source_kind kind;
    vision_source_opts opts;
    char spec[1024];
    char dev[64];      /* camera: /dev/video path in use */
    char serial[128];  /* camera chosen by serial: "" otherwise */
    glob_t g;          /* images */
    int have_glob;
    size_t next;       /* images: next index; preloaded: next frame */
    cvw_capture *cap;  /* video or camera */
    double fps;
    int frame_no;
    tt_image cur;      /* the frame handed out */
    tt_image *pre;     /* preloaded frames (owned) */
    int npre;
    int preloaded;
    int corrupt;
    double t0;
    vision__fault *fault; /* "fault:" test source: everything goes to it */
};

static double vision__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int vision__is_glob(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

static tt_status vision__open_camera(vision_source *s, tt_err *err)
{
    if (s->serial[0]) {
        tt_status st = vision_usb_find_serial(s->serial, s->dev, sizeof s->dev, err);
        if (st != TT_OK)
            return st;
    }
    return cvw_capture_open_device(s->dev, s->opts.width, s->opts.height, s->opts.fps, s->opts.mjpeg, &s->cap, err);
}

tt_status vision_source_open(const char *spec, const vision_source_opts *opts, vision_source **out, tt_err *err)
{
    vision_source *s;
    tt_status st;
    *out = NULL;
    if (!spec || !spec[0])
        return tt_err_set(err, TT_ERR_ARG, "no source given (a camera /dev/videoN, usb:SERIAL, a video or 'frames/*.png')");
    s = calloc(1, sizeof *s);
    if (!s)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if (opts)
        s->opts = *opts;
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    s->t0 = vision__now_ms();
    if (!strncmp(spec, "fault:", 6)) {
        if ((st = vision__fault_open(spec + 6, opts, &s->fault, err)) != TT_OK)
            goto fail;
        s->kind = vision_source_get_kind(vision__fault_inner(s->fault));
    } else if (!strncmp(spec, "usb:", 4)) {
        s->kind = VISION_SRC_CAMERA;
        snprintf(s->serial, sizeof s->serial, "%s", spec + 4);
        if ((st = vision__open_camera(s, err)) != TT_OK)
            goto fail;
    } else if (!strncmp(spec, "/dev/video", 10)) {
        s->kind = VISION_SRC_CAMERA;
        snprintf(s->dev, sizeof s->dev, "%s", spec);
        if ((st = vision__open_camera(s, err)) != TT_OK)
            goto fail;
    } else if (vision__is_glob(spec)) {
        s->kind = VISION_SRC_IMAGES;
        int r = glob(spec, 0, NULL, &s->g);
        s->have_glob = r == 0;
        if (r != 0 || s->g.gl_pathc == 0) {
            st = tt_err_set(err, TT_ERR_IO, "no files match '%s' (quote the pattern so the shell does not expand it)",
                            spec);
            goto fail;
        }
        s->fps = 30; /* image sequences are taken as 30 fps */
    } else {
        s->kind = VISION_SRC_VIDEO;
        if ((st = cvw_capture_open_file(spec, &s->cap, err)) != TT_OK)
            goto fail;
        s->fps = cvw_capture_fps(s->cap);
        if (!(s->fps > 0 && s->fps < 1000))
            s->fps = 30;
    }
    *out = s;
    return TT_OK;
fail:
    vision_source_destroy(s);
    return st;
}

static void vision__preload_drop(vision_source *s)
{
    for (int i = 0; i < s->npre; i++)
        tt_image_free(&s->pre[i]);
    free(s->pre);
    s->pre = NULL;
    s->npre = 0;
}

void vision_source_destroy(vision_source *s)
{
    if (!s)
        return;
    vision__fault_destroy(s->fault);
    if (s->have_glob)
        globfree(&s->g);
    cvw_capture_close(s->cap);
    vision__preload_drop(s);
    tt_image_free(&s->cur);
    free(s);
}

vision_source_kind vision_source_get_kind(const vision_source *s)
{
    return s->kind;
}

int vision_source_can_stall(const vision_source *s)
{
    return s->kind == VISION_SRC_CAMERA || s->fault != NULL;
}

/* Read one frame from a file-backed source into *im (allocated). */
static tt_status vision__read_file_frame(vision_source *s, tt_image *im, vision_frame_status *status, tt_err *err)
{
    if (s->kind == VISION_SRC_IMAGES) {
        if (s->next >= s->g.gl_pathc) {
            *status = VISION_END;
            return TT_OK;
        }
        tt_err e2 = {0};
        tt_status st = cvw_image_read(s->g.gl_pathv[s->next++], 1, im, &e2);
        if (st == TT_ERR_FORMAT) {
            *status = VISION_CORRUPT;
            return TT_OK;
        }
        if (st != TT_OK) {
            if (err)
                *err = e2;
            return st;
        }
        *status = VISION_FRAME;
        return TT_OK;
    }
    cvw_read_result r;
    tt_status st = cvw_capture_read(s->cap, im, &r, err);
    if (st != TT_OK)
        return st;
    *status = r == CVW_FRAME ? VISION_FRAME : r == CVW_CORRUPT ? VISION_CORRUPT : VISION_END;
    return TT_OK;
}

tt_status vision_source_preload(vision_source *s, const volatile sig_atomic_t *stop,
                                void (*progress)(void *user, long done, long total), void *user, tt_err *err)
{
    if (s->fault)
        return vision_source_preload(vision__fault_inner(s->fault), stop, progress, user, err);
    if (s->kind == VISION_SRC_CAMERA)
        return tt_err_set(err, TT_ERR_ARG, "--preload works with video files and image sequences, not cameras");
    if (s->preloaded)
        return TT_OK;
    long total = s->have_glob ? (long)s->g.gl_pathc : s->cap ? cvw_capture_frame_count(s->cap) : 0;
    if (total < 0)
        total = 0;
    int cap = 64;
    s->pre = calloc((size_t)cap, sizeof *s->pre);
    if (!s->pre)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    tt_status st = TT_OK;
    for (long done = 0;; done++) {
        if (stop && *stop) {
            st = tt_err_set(err, TT_ERR_ARG, "stopped while reading the frames into memory");
            break;
        }
        tt_image im = {0};
        vision_frame_status fs;
        if ((st = vision__read_file_frame(s, &im, &fs, err)) != TT_OK)
            break;
        if (fs == VISION_END)
            break;
        if (progress)
            progress(user, done + 1, total);
        if (fs == VISION_CORRUPT) {
            s->corrupt++;
            continue;
        }
        if (s->npre == cap) {
            tt_image *n = realloc(s->pre, sizeof *n * (size_t)cap * 2);
            if (!n) {
                tt_image_free(&im);
                st = tt_err_set(err, TT_ERR_NOMEM, "out of memory preloading frame %d: drop --preload", s->npre);
                break;
            }
            s->pre = n;
            memset(s->pre + cap, 0, sizeof *n * (size_t)cap);
            cap *= 2;
        }
        s->pre[s->npre++] = im;
    }
    if (st != TT_OK) {
        vision__preload_drop(s);
        return st;
    }
    s->preloaded = 1;
    s->next = 0;
    return TT_OK;
}

tt_status vision_source_next(vision_source *s, const tt_image **frame, double *t_ms, vision_frame_status *status,
                             tt_err *err)
{
    *frame = NULL;
    if (s->fault)
        return vision__fault_next(s->fault, frame, t_ms, status, err);
    if (s->preloaded) {
        if (s->next >= (size_t)s->npre) {
            *status = VISION_END;
            return TT_OK;
        }
        *frame = &s->pre[s->next++];
        *t_ms = s->frame_no++ * 1000.0 / s->fps;
        *status = VISION_FRAME;
        return TT_OK;
    }
    if (s->kind == VISION_SRC_CAMERA) {
        cvw_read_result r;
        if (!s->cap) {
            *status = VISION_LOST;
            return TT_OK;
        }
        tt_status st = cvw_capture_read(s->cap, &s->cur, &r, err);
        if (st != TT_OK)
            return st;
        if (r != CVW_FRAME) {
            /* A camera that stops delivering has been unplugged (or hung):
             * close it and let the caller reconnect. */
            cvw_capture_close(s->cap);
            s->cap = NULL;
            *status = VISION_LOST;
            return TT_OK;
        }
        *frame = &s->cur;
        *t_ms = vision__now_ms() - s->t0;
        s->frame_no++;
        *status = VISION_FRAME;
        return TT_OK;
    }
    for (;;) {
        tt_status st;
        if (s->kind == VISION_SRC_IMAGES)
            tt_image_free(&s->cur);
        st = vision__read_file_frame(s, &s->cur, status, err);
        if (st != TT_OK)
            return st;
        if (*status == VISION_CORRUPT) {
            s->corrupt++;
            s->frame_no++;
            return TT_OK;
        }
        break;
    }
    if (*status == VISION_END)
        return TT_OK;
    *frame = &s->cur;
    *t_ms = s->frame_no++ * 1000.0 / s->fps;
    return TT_OK;
}

tt_status vision_source_reconnect(vision_source *s, tt_err *err)
{
    if (s->fault)
        return vision__fault_reconnect(s->fault, err);
    if (s->kind != VISION_SRC_CAMERA)
        return tt_err_set(err, TT_ERR_ARG, "only cameras reconnect");
    cvw_capture_close(s->cap);
    s->cap = NULL;
    return vision__open_camera(s, err);
}

int vision_source_corrupt_count(const vision_source *s)
{
    return s ? (s->fault ? vision_source_corrupt_count(vision__fault_inner(s->fault)) : s->corrupt) : 0;
}

const char *vision_source_device(const vision_source *s)
{
    return s && s->kind == VISION_SRC_CAMERA ? s->dev : NULL;
}
