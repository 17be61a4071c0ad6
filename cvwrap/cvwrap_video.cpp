// cvwrap_video.cpp - video files out through cv::VideoWriter (replays).
#include "cvwrap_video.h"

#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <strings.h>

#include "cvwrap_internal.hpp"
#include "tt_tmpfile.h"

struct cvw_video_writer {
    cv::VideoWriter vw;
    std::string path, tmp;
    int width, height;
    char fourcc[5];
    cv::Mat bgr;
};

extern "C" tt_status cvw_video_writer_open(const char *path, int width, int height, double fps,
                                           cvw_video_writer **out, tt_err *err)
{
    *out = nullptr;
    CVW_TRY
    if (width <= 0 || height <= 0 || !(fps > 0))
        return tt_err_set(err, TT_ERR_ARG, "video %s: size %dx%d at %g fps is not valid", path, width, height, fps);
    const char *dot = std::strrchr(path, '.');
    const char *const *codecs;
    static const char *const avi[] = {"MJPG", nullptr};
    static const char *const mp4[] = {"mp4v", "avc1", nullptr};
    if (dot && !strcasecmp(dot, ".avi"))
        codecs = avi;
    else if (dot && !strcasecmp(dot, ".mp4"))
        codecs = mp4;
    else
        return tt_err_set(err, TT_ERR_ARG, "video %s: use a .avi (Motion-JPEG) or .mp4 (MPEG-4) file name", path);
    std::unique_ptr<cvw_video_writer> w(new cvw_video_writer());
    w->path = path;
    {
        char *t = nullptr;
        tt_status st = tt_tmp_create(path, &t, err);
        if (st != TT_OK)
            return st;
        w->tmp = t;
        free(t);
    }
    w->width = width;
    w->height = height;
    for (const char *const *c = codecs; *c; c++) {
        int cc = cv::VideoWriter::fourcc((*c)[0], (*c)[1], (*c)[2], (*c)[3]);
        if (w->vw.open(w->tmp, cc, fps, cv::Size(width, height), true) && w->vw.isOpened()) {
            std::snprintf(w->fourcc, sizeof w->fourcc, "%s", *c);
            *out = w.release();
            return TT_OK;
        }
    }
    std::remove(w->tmp.c_str());
    return tt_err_set(err, TT_ERR_CV, "video %s: OpenCV has no encoder for this format here (try a .avi file: "
                                      "Motion-JPEG always works)", path);
    CVW_CATCH("opening video for writing")
}

extern "C" const char *cvw_video_writer_codec(const cvw_video_writer *w)
{
    return w ? w->fourcc : "";
}

extern "C" tt_status cvw_video_writer_write(cvw_video_writer *w, const tt_image *frame, tt_err *err)
{
    CVW_TRY
    if (!w || !frame || !frame->data)
        return tt_err_set(err, TT_ERR_ARG, "no video frame to write");
    if (frame->width != w->width || frame->height != w->height || (frame->channels != 3 && frame->channels != 4))
        return tt_err_set(err, TT_ERR_ARG, "video frame is %dx%dx%d, the video is %dx%dx3", frame->width,
                          frame->height, frame->channels, w->width, w->height);
    cv::Mat m(frame->height, frame->width, CV_8UC(frame->channels), frame->data, (size_t)frame->stride);
    if (frame->channels == 4) {
        cv::cvtColor(m, w->bgr, cv::COLOR_BGRA2BGR);
        w->vw.write(w->bgr);
    } else {
        w->vw.write(m);
    }
    return TT_OK;
    CVW_CATCH("writing a video frame")
}

extern "C" void cvw_video_writer_abort(cvw_video_writer *w)
{
    if (!w)
        return;
    try {
        w->vw.release();
    } catch (...) {
    }
    std::remove(w->tmp.c_str());
    delete w;
}

namespace {

tt_status release_writer(cvw_video_writer *w, tt_err *err)
{
    CVW_TRY
    w->vw.release();
    return TT_OK;
    CVW_CATCH("finishing video")
}

} // namespace

extern "C" tt_status cvw_video_writer_close(cvw_video_writer *w, tt_err *err)
{
    if (!w)
        return TT_OK;
    tt_status s = release_writer(w, err);
    if (s == TT_OK && std::rename(w->tmp.c_str(), w->path.c_str()) != 0)
        s = tt_err_set(err, TT_ERR_IO, "cannot write video %s: %s", w->path.c_str(), std::strerror(errno));
    if (s != TT_OK) {
        cvw_video_writer_abort(w);
        return s;
    }
    delete w;
    return TT_OK;
}
