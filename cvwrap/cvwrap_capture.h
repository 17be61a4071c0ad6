/* cvwrap_capture.h - reading frames from video files and V4L2 cameras
 * through OpenCV's videoio (C interface; no OpenCV type here).
 *
 * A cvw_capture is owned by the caller: cvw_capture_close (accepts NULL).
 */
#ifndef CVWRAP_CAPTURE_H
#define CVWRAP_CAPTURE_H

#include "tt_image.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cvw_capture cvw_capture;

/* Open a video file (any container/codec OpenCV's FFmpeg backend reads). */
tt_status cvw_capture_open_file(const char *path, cvw_capture **out, tt_err *err);

/* Open a V4L2 device (/dev/videoN).  width/height/fps of 0 keep the
 * device's defaults; mjpeg non-zero asks for MJPEG (needed for 4K at 30 fps
 * on USB 2 webcams). */
tt_status cvw_capture_open_device(const char *dev, int width, int height, double fps, int mjpeg, cvw_capture **out,
                                  tt_err *err);

typedef enum cvw_read_result {
    CVW_FRAME = 0,   /* *gray holds a new frame */
    CVW_END = 1,     /* the stream ended (file) or the device vanished */
    CVW_CORRUPT = 2  /* a frame could not be decoded; the next read moves on */
} cvw_read_result;

/* Read the next frame as 8-bit gray into *gray.  If gray already holds an
 * image of the right size its buffer is reused, else it is (re)allocated
 * (free with tt_image_free).  Returns TT_OK with *res set, or an error. */
tt_status cvw_capture_read(cvw_capture *cap, tt_image *gray, cvw_read_result *res, tt_err *err);

/* Frames in a file (-1 if unknown) and the stream's nominal fps (0 if
 * unknown). */
int cvw_capture_frame_count(const cvw_capture *cap);
double cvw_capture_fps(const cvw_capture *cap);

void cvw_capture_close(cvw_capture *cap);

#ifdef __cplusplus
}
#endif
#endif
