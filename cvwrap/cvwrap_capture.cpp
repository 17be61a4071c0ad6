// cvwrap_capture.cpp - frame sources and video writing over OpenCV videoio.
#include "cvwrap_capture.h"

#include <opencv2/imgproc.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/videoio.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>

#include "cvwrap_internal.hpp"

struct cvw_capture {
    cv::VideoCapture vc;
    cv::Mat frame, gray;
    bool is_file;
    int count;
    int pos;          // frames consumed so far (files)
    int bad_in_a_row; // consecutive failed reads
};

// Damaged frames are reported through our own status; keep OpenCV's and
// FFmpeg's console chatter out of a player's terminal.
static void cvw__quiet()
{
    setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0);
    cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
}

extern "C" tt_status cvw_capture_open_file(const char *path, cvw_capture **out, tt_err *err)
{
    *out = nullptr;
    CVW_TRY
    struct stat sb;
    if (stat(path, &sb) != 0)
        return tt_err_set(err, TT_ERR_IO, "cannot open video %s: %s (check the path)", path, std::strerror(errno));
    cvw__quiet();
    cvw_capture *c = new cvw_capture();
    c->is_file = true;
    c->pos = 0;
    c->bad_in_a_row = 0;
    if (!c->vc.open(path, cv::CAP_FFMPEG)) {
        delete c;
        return tt_err_set(err, TT_ERR_FORMAT, "%s is not a video OpenCV can read (corrupt, or an unsupported codec; "
                                              "MJPEG .avi and H.264 .mp4 work)", path);
    }
    c->count = (int)c->vc.get(cv::CAP_PROP_FRAME_COUNT);
    *out = c;
    return TT_OK;
    CVW_CATCH("opening video")
}

extern "C" tt_status cvw_capture_open_device(const char *dev, int width, int height, double fps, int mjpeg,
                                             cvw_capture **out, tt_err *err)
{
    *out = nullptr;
    CVW_TRY
    struct stat sb;
    if (stat(dev, &sb) != 0)
        return tt_err_set(err, TT_ERR_DEVICE, "camera %s not found: is it plugged in? ('tabletrack cameras' lists them)",
                          dev);
    cvw_capture *c = new cvw_capture();
    c->is_file = false;
    c->count = -1;
    c->pos = 0;
    c->bad_in_a_row = 0;
    if (!c->vc.open(dev, cv::CAP_V4L2)) {
        delete c;
        return tt_err_set(err, TT_ERR_DEVICE, "cannot open camera %s (busy in another program, or no permission: "
                                              "add yourself to the 'video' group)", dev);
    }
    if (mjpeg)
        c->vc.set(cv::CAP_PROP_FOURCC, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'));
    if (width > 0)
        c->vc.set(cv::CAP_PROP_FRAME_WIDTH, width);
    if (height > 0)
        c->vc.set(cv::CAP_PROP_FRAME_HEIGHT, height);
    if (fps > 0)
        c->vc.set(cv::CAP_PROP_FPS, fps);
    c->vc.set(cv::CAP_PROP_BUFFERSIZE, 1);
    *out = c;
    return TT_OK;
    CVW_CATCH("opening camera")
}

extern "C" tt_status cvw_capture_read(cvw_capture *c, tt_image *gray, cvw_read_result *res, tt_err *err)
{
    CVW_TRY
    *res = CVW_END;
    bool ok = c->vc.read(c->frame);
    if (!ok || c->frame.empty()) {
        if (c->is_file) {
            // A failed read before the container's frame count is a damaged
            // or truncated frame: count it and move on.
            c->bad_in_a_row++;
            if (c->count > 0 && c->pos < c->count && c->bad_in_a_row < 1000) {
                c->pos++;
                *res = CVW_CORRUPT;
                return TT_OK;
            }
        }
        return TT_OK; // end of stream, or the device went away
    }
    c->bad_in_a_row = 0;
    c->pos++;
    if (c->frame.channels() == 3)
        cv::cvtColor(c->frame, c->gray, cv::COLOR_BGR2GRAY);
    else if (c->frame.channels() == 4)
        cv::cvtColor(c->frame, c->gray, cv::COLOR_BGRA2GRAY);
    else
        c->gray = c->frame;
    if (c->gray.depth() != CV_8U)
        return tt_err_set(err, TT_ERR_FORMAT, "the video's frames are not 8-bit");
    if (!gray->data || gray->width != c->gray.cols || gray->height != c->gray.rows || gray->channels != 1) {
        tt_image_free(gray);
        tt_status st = tt_image_alloc(gray, c->gray.cols, c->gray.rows, 1, err);
        if (st != TT_OK)
            return st;
    }
    for (int y = 0; y < c->gray.rows; y++)
        std::memcpy(gray->data + (size_t)y * gray->stride, c->gray.ptr(y), (size_t)c->gray.cols);
    *res = CVW_FRAME;
    return TT_OK;
    CVW_CATCH("reading a frame")
}

extern "C" int cvw_capture_frame_count(const cvw_capture *c)
{
    return c ? c->count : -1;
}

extern "C" double cvw_capture_fps(const cvw_capture *c)
{
    try {
        return c ? const_cast<cvw_capture *>(c)->vc.get(cv::CAP_PROP_FPS) : 0;
    } catch (...) {
        return 0;
    }
}

extern "C" void cvw_capture_close(cvw_capture *c)
{
    try {
        delete c;
    } catch (...) {
    }
}

