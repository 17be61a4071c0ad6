/* cvwrap_video.h - writing video files through OpenCV's VideoWriter (C
 * interface; no OpenCV type here).  Used by 'tabletrack replay --video'.
 *
 * The container and codec follow the extension:
 *   .avi  Motion-JPEG (fourcc MJPG) - OpenCV's built-in writer, always there
 *   .mp4  MPEG-4 Part 2 (fourcc mp4v), then H.264 (avc1) if mp4v is missing
 *         - both through OpenCV's FFmpeg backend
 * The file is written under a temporary name and renamed by
 * cvw_video_writer_close, so a failed render leaves nothing behind.
 *
 * A cvw_video_writer is owned by the caller: cvw_video_writer_close
 * (accepts NULL) finishes the file; cvw_video_writer_abort drops it.
 */
#ifndef CVWRAP_VIDEO_H
#define CVWRAP_VIDEO_H

#include "tt_image.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cvw_video_writer cvw_video_writer;

/* Open path for width x height frames at fps.  Unknown extension ->
 * TT_ERR_ARG; no usable codec -> TT_ERR_CV. */
tt_status cvw_video_writer_open(const char *path, int width, int height, double fps, cvw_video_writer **out,
                                tt_err *err);

/* The fourcc in use, e.g. "MJPG". */
const char *cvw_video_writer_codec(const cvw_video_writer *w);

/* Append one frame: 3 channels (BGR) or 4 (BGRA, e.g. cairo's ARGB32 on a
 * little-endian machine); its size must match the one given to _open. */
tt_status cvw_video_writer_write(cvw_video_writer *w, const tt_image *frame, tt_err *err);

/* Finish the file and move it into place; frees w (also on error). */
tt_status cvw_video_writer_close(cvw_video_writer *w, tt_err *err);

/* Drop the file being written and free w (accepts NULL). */
void cvw_video_writer_abort(cvw_video_writer *w);

#ifdef __cplusplus
}
#endif
#endif
