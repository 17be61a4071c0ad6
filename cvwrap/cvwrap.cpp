// cvwrap.cpp - the only C++ in tabletrack.  Every extern "C" body is wrapped
// in CVW_TRY / CVW_CATCH so no exception ever crosses into C.
#include "cvwrap.h"

#include <opencv2/calib3d.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "cvwrap_internal.hpp"
#include "tt_tmpfile.h"

namespace {

cv::Mat camera_matrix(const cvw_camera *cam)
{
    return cv::Mat(3, 3, CV_64F, const_cast<double *>(cam->K)).clone();
}

cv::Mat dist_coeffs(const cvw_camera *cam)
{
    if (cam->ndist <= 0)
        return cv::Mat();
    return cv::Mat(1, cam->ndist, CV_64F, const_cast<double *>(cam->dist)).clone();
}

tt_status mat_to_image(const cv::Mat &m, tt_image *out, tt_err *err)
{
    tt_status st = tt_image_alloc(out, m.cols, m.rows, m.channels(), err);
    if (st != TT_OK)
        return st;
    for (int y = 0; y < m.rows; y++)
        std::memcpy(out->data + (size_t)y * out->stride, m.ptr(y), (size_t)out->stride);
    return TT_OK;
}

bool valid_ndist(int n)
{
    return n == 0 || n == 4 || n == 5 || n == 8 || n == 12 || n == 14;
}

// Read a camera file whole and refuse, before OpenCV's recursive YAML reader
// sees it, anything no calibration file looks like: bigger than
// CVW_CAMERA_MAX_BYTES, flow collections ([ {) nested deeper than
// CVW_CAMERA_MAX_DEPTH, or block nesting (indentation and "- " prefixes)
// deeper than CVW_CAMERA_MAX_INDENT columns.  This is not a YAML parser: it
// only bounds what the parser is given (a deeply nested file crashed it).
tt_status camera_file_text(const char *path, std::string &text, tt_err *err)
{
    FILE *f = std::fopen(path, "rb");
    if (!f)
        return tt_err_set(err, TT_ERR_IO, "cannot open camera file %s: %s (run 'tabletrack calib camera' to make one)",
                          path, std::strerror(errno));
    char buf[8192];
    size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) {
        if (text.size() + got > CVW_CAMERA_MAX_BYTES) {
            std::fclose(f);
            return tt_err_set(err, TT_ERR_FORMAT,
                              "camera file %s is larger than %d bytes: a camera.yaml is under 1 KB (is it the right "
                              "file? 'tabletrack calib camera' writes a new one)",
                              path, CVW_CAMERA_MAX_BYTES);
        }
        text.append(buf, got);
    }
    bool bad = std::ferror(f) != 0;
    std::fclose(f);
    if (bad)
        return tt_err_set(err, TT_ERR_IO, "cannot read camera file %s", path);
    int depth = 0, line = 1, col = 0;
    bool at_start = true, in_comment = false;
    char quote = 0;
    for (char c : text) {
        if (c == '\n') {
            line++;
            col = 0;
            at_start = true;
            in_comment = false;
            continue;
        }
        col++;
        if (at_start) {
            if (c == ' ' || c == '\t' || c == '-') {
                if (col > CVW_CAMERA_MAX_INDENT)
                    return tt_err_set(err, TT_ERR_FORMAT,
                                      "camera file %s, line %d: nested more than %d columns deep; not a camera "
                                      "calibration file",
                                      path, line, CVW_CAMERA_MAX_INDENT);
                continue;
            }
            at_start = false;
        }
        if (in_comment)
            continue;
        if (quote) {
            if (c == quote)
                quote = 0;
            continue;
        }
        if (c == '"' || c == '\'')
            quote = c;
        else if (c == '#')
            in_comment = true;
        else if (c == '[' || c == '{') {
            if (++depth > CVW_CAMERA_MAX_DEPTH)
                return tt_err_set(err, TT_ERR_FORMAT,
                                  "camera file %s, line %d: lists nested more than %d deep; not a camera calibration "
                                  "file",
                                  path, line, CVW_CAMERA_MAX_DEPTH);
        } else if ((c == ']' || c == '}') && depth > 0)
            depth--;
    }
    if (text.find('\0') != std::string::npos)
        return tt_err_set(err, TT_ERR_FORMAT, "camera file %s is binary, not YAML", path);
    // One document, and no other line starting with '-': OpenCV's reader
    // loops for ever on some files with a second "---" marker or a line
    // such as "--a" after it (found by fuzz_camera_yaml).  OpenCV writes
    // neither: its lists are [ ... ].
    int markers = 0, ln = 1;
    for (size_t i = 0; i < text.size(); i++) {
        if ((i == 0 || text[i - 1] == '\n') && text[i] == '-') {
            size_t end = text.find('\n', i);
            std::string l = text.substr(i, end == std::string::npos ? std::string::npos : end - i);
            while (!l.empty() && (l.back() == ' ' || l.back() == '\r'))
                l.pop_back();
            if (l == "---" && ++markers == 1) {
                // the document marker, alone on its line as OpenCV writes it
            } else if (markers == 0 && text.compare(i, 3, "---") == 0)
                return tt_err_set(err, TT_ERR_FORMAT,
                                  "camera file %s, line %d: '---' must stand alone on its line (run 'tabletrack calib "
                                  "camera' to make one)",
                                  path, ln);
            else if (text.compare(i, 3, "---") == 0)
                return tt_err_set(err, TT_ERR_FORMAT,
                                  "camera file %s, line %d: a second YAML document ('---'); a camera file holds one "
                                  "(run 'tabletrack calib camera' to make one)",
                                  path, ln);
            else
                return tt_err_set(err, TT_ERR_FORMAT,
                                  "camera file %s, line %d starts with '-': not a camera calibration file (run "
                                  "'tabletrack calib camera' to make one)",
                                  path, ln);
        }
        if (text[i] == '\n')
            ln++;
    }
    return TT_OK;
}

// Before OpenCV reads a matrix node: an !!opencv-matrix whose rows and cols
// are whole numbers from 1 to 64 and whose data holds rows x cols entries
// (a garbled "rows:" made OpenCV allocate gigabytes), or a short plain list.
tt_status check_matrix_node(const char *path, const char *name, const cv::FileNode &n, tt_err *err)
{
    if (n.empty() || n.isNone())
        return TT_OK;
    if (n.isSeq()) {
        if (n.size() > 64)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: %s lists %zu numbers; a camera file has at most 14", path, name,
                              n.size());
        return TT_OK;
    }
    if (!n.isMap())
        return tt_err_set(err, TT_ERR_FORMAT, "%s: %s must be an !!opencv-matrix with rows, cols, dt and data", path,
                          name);
    cv::FileNode r = n["rows"], c = n["cols"], d = n["data"];
    if (!r.isInt() || !c.isInt() || (int)r < 1 || (int)r > 64 || (int)c < 1 || (int)c > 64)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: %s: rows and cols must be whole numbers from 1 to 64", path, name);
    if (!d.isSeq() || d.size() != (size_t)((int)r * (int)c))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: %s: data must hold rows x cols = %d numbers", path, name,
                          (int)r * (int)c);
    return TT_OK;
}

// A matrix read from the camera file: its shape and that every entry is a
// finite number, naming the entry that is not.
tt_status check_matrix(const char *path, const char *name, const cv::Mat &m, tt_err *err)
{
    for (int r = 0; r < m.rows; r++)
        for (int c = 0; c < m.cols; c++)
            if (!std::isfinite(m.at<double>(r, c)))
                return tt_err_set(err, TT_ERR_FORMAT, "%s: %s entry (%d, %d) is not a finite number", path, name, r + 1,
                                  c + 1);
    return TT_OK;
}

} // namespace

extern "C" tt_status cvw_image_read(const char *path, int channels, tt_image *out, tt_err *err)
{
    CVW_TRY
    std::memset(out, 0, sizeof *out);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return tt_err_set(err, TT_ERR_IO, "cannot open image %s: %s (check the path)", path, std::strerror(errno));
    if (access(path, R_OK) != 0)
        return tt_err_set(err, TT_ERR_IO, "cannot read image %s: %s", path, std::strerror(errno));
    int flag = channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR;
    cv::Mat m = cv::imread(path, flag);
    if (m.empty())
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s is not a readable image (corrupt or unsupported format; use PNG or JPEG)", path);
    return mat_to_image(m, out, err);
    CVW_CATCH("reading image")
}

extern "C" tt_status cvw_image_decode(const void *buf, size_t len, int channels, tt_image *out, tt_err *err)
{
    CVW_TRY
    std::memset(out, 0, sizeof *out);
    cv::Mat raw(1, (int)len, CV_8U, const_cast<void *>(buf));
    cv::Mat m = cv::imdecode(raw, channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
    if (m.empty())
        return tt_err_set(err, TT_ERR_FORMAT, "image data could not be decoded (corrupt or truncated)");
    return mat_to_image(m, out, err);
    CVW_CATCH("decoding image")
}

extern "C" tt_status cvw_image_encode_png(const tt_image *im, unsigned char **buf, size_t *len, tt_err *err)
{
    CVW_TRY
    *buf = nullptr;
    *len = 0;
    if (!im || !im->data)
        return tt_err_set(err, TT_ERR_ARG, "no image to encode");
    cv::Mat m(im->height, im->width, CV_MAKETYPE(CV_8U, im->channels), im->data, (size_t)im->stride);
    std::vector<uchar> out;
    if (!cv::imencode(".png", m, out))
        return tt_err_set(err, TT_ERR_CV, "the image could not be encoded as PNG");
    *buf = static_cast<unsigned char *>(std::malloc(out.size() ? out.size() : 1));
    if (!*buf)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory for a %zu-byte PNG", out.size());
    std::memcpy(*buf, out.data(), out.size());
    *len = out.size();
    return TT_OK;
    CVW_CATCH("encoding PNG")
}

extern "C" tt_status cvw_remap(const tt_image *in, const float *map, int w, int h, tt_image *out, tt_err *err)
{
    CVW_TRY
    std::memset(out, 0, sizeof *out);
    if (!in || !in->data || w <= 0 || h <= 0)
        return tt_err_set(err, TT_ERR_ARG, "nothing to remap");
    cv::Mat src(in->height, in->width, CV_MAKETYPE(CV_8U, in->channels), in->data, (size_t)in->stride);
    cv::Mat mp(h, w, CV_32FC2, const_cast<float *>(map));
    cv::Mat dst;
    cv::remap(src, dst, mp, cv::noArray(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0));
    return mat_to_image(dst, out, err);
    CVW_CATCH("remapping image")
}

extern "C" tt_status cvw_image_write(const char *path, const tt_image *im, tt_err *err)
{
    CVW_TRY
    if (!im || !im->data)
        return tt_err_set(err, TT_ERR_ARG, "no image to write to %s", path);
    int type = CV_MAKETYPE(CV_8U, im->channels);
    cv::Mat m(im->height, im->width, type, im->data, (size_t)im->stride);
    std::string p(path);
    char *tmp = nullptr;
    tt_status st = tt_tmp_create(path, &tmp, err);
    if (st != TT_OK)
        return st;
    bool ok = false;
    try {
        ok = cv::imwrite(tmp, m);
    } catch (...) {
        ok = false;
    }
    if (!ok) {
        tt_tmp_discard(tmp);
        return tt_err_set(err, TT_ERR_IO, "cannot write image %s (is the folder writable and the extension .png/.jpg?)",
                          path);
    }
    return tt_tmp_commit(tmp, path, err);
    CVW_CATCH("writing image")
}

extern "C" tt_status cvw_camera_read(const char *path, cvw_camera *cam, tt_err *err)
{
    CVW_TRY
    std::memset(cam, 0, sizeof *cam);
    std::string text;
    tt_status st = camera_file_text(path, text, err);
    if (st != TT_OK)
        return st;
    cv::FileStorage fs;
    try {
        fs.open(text, cv::FileStorage::READ | cv::FileStorage::MEMORY | cv::FileStorage::FORMAT_YAML);
    } catch (const cv::Exception &e) {
        return tt_err_set(err, TT_ERR_FORMAT, "%s is not OpenCV FileStorage YAML: %s", path, e.err.c_str());
    }
    if (!fs.isOpened())
        return tt_err_set(err, TT_ERR_FORMAT, "%s is not OpenCV FileStorage YAML", path);
    cv::Mat K, D;
    double w = 0, h = 0;
    if (fs["image_width"].empty() || fs["image_height"].empty())
        return tt_err_set(err, TT_ERR_FORMAT, "%s: missing image_width / image_height", path);
    if (!fs["image_width"].isInt() || !fs["image_height"].isInt())
        return tt_err_set(err, TT_ERR_FORMAT, "%s: image_width and image_height must be whole numbers of pixels", path);
    fs["image_width"] >> w;
    fs["image_height"] >> h;
    if (!(w > 0 && h > 0 && w <= CVW_CAMERA_MAX_SIDE && h <= CVW_CAMERA_MAX_SIDE))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: image_width and image_height must be between 1 and %d pixels", path,
                          CVW_CAMERA_MAX_SIDE);
    if (fs["camera_matrix"].empty())
        return tt_err_set(err, TT_ERR_FORMAT, "%s: missing camera_matrix", path);
    if ((st = check_matrix_node(path, "camera_matrix", fs["camera_matrix"], err)) != TT_OK ||
        (st = check_matrix_node(path, "distortion_coefficients", fs["distortion_coefficients"], err)) != TT_OK)
        return st;
    fs["camera_matrix"] >> K;
    fs["distortion_coefficients"] >> D;
    if (K.empty() || K.rows != 3 || K.cols != 3 || K.channels() != 1)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: camera_matrix is %dx%d; it must be a 3x3 matrix", path, K.rows,
                          K.cols);
    K.convertTo(K, CV_64F);
    if ((st = check_matrix(path, "camera_matrix", K, err)) != TT_OK)
        return st;
    if (K.at<double>(1, 0) != 0 || K.at<double>(2, 0) != 0 || K.at<double>(2, 1) != 0 || K.at<double>(2, 2) != 1)
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: camera_matrix must be [fx 0 cx; 0 fy cy; 0 0 1] (its lower left or last entry is wrong)",
                          path);
    if (!D.empty()) {
        if ((D.rows != 1 && D.cols != 1) || D.channels() != 1)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: distortion_coefficients is %dx%d; it must be one row or column",
                              path, D.rows, D.cols);
        D.convertTo(D, CV_64F);
        D = D.reshape(1, 1);
        if ((st = check_matrix(path, "distortion_coefficients", D, err)) != TT_OK)
            return st;
    }
    int nd = D.empty() ? 0 : D.cols;
    if (!valid_ndist(nd))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: distortion_coefficients has %d entries (expected 4, 5, 8, 12 or 14)",
                          path, nd);
    cam->width = (int)w;
    cam->height = (int)h;
    for (int i = 0; i < 9; i++)
        cam->K[i] = K.at<double>(i / 3, i % 3);
    for (int i = 0; i < nd; i++)
        cam->dist[i] = D.at<double>(0, i);
    cam->ndist = nd;
    if (!(cam->K[0] > 0 && cam->K[4] > 0))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: camera_matrix focal lengths must be positive", path);
    return TT_OK;
    CVW_CATCH("reading camera file")
}

extern "C" tt_status cvw_camera_write(const char *path, const cvw_camera *cam, double rms, tt_err *err)
{
    CVW_TRY
    std::string text;
    {
        cv::FileStorage fs(".yaml", cv::FileStorage::WRITE | cv::FileStorage::MEMORY);
        fs << "image_width" << cam->width;
        fs << "image_height" << cam->height;
        fs << "camera_matrix" << camera_matrix(cam);
        fs << "distortion_coefficients" << dist_coeffs(cam);
        if (rms >= 0)
            fs << "avg_reprojection_error" << rms;
        text = fs.releaseAndGetString();
    }
    char *tmp = nullptr;
    FILE *f = nullptr;
    tt_status st = tt_tmp_fopen(path, &tmp, &f, err);
    if (st != TT_OK)
        return st;
    bool bad = std::fwrite(text.data(), 1, text.size(), f) != text.size();
    bad = (std::fclose(f) != 0) || bad;
    if (bad) {
        tt_tmp_discard(tmp);
        return tt_err_set(err, TT_ERR_IO, "cannot write %s: %s (disk full?)", path, std::strerror(errno));
    }
    return tt_tmp_commit(tmp, path, err);
    CVW_CATCH("writing camera file")
}

extern "C" tt_status cvw_undistort_points(const cvw_camera *cam, const double *in, int n, double *out, tt_err *err)
{
    CVW_TRY
    if (n <= 0)
        return TT_OK;
    std::vector<cv::Point2d> src(n), dst;
    for (int i = 0; i < n; i++)
        src[i] = cv::Point2d(in[2 * i], in[2 * i + 1]);
    // More iterations than OpenCV's default 5: strong wide-angle distortion
    // at the frame corners needs them for sub-0.01 px accuracy.
    cv::undistortPoints(src, dst, camera_matrix(cam), dist_coeffs(cam), cv::noArray(), cv::noArray(),
                        cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 40, 1e-12));
    for (int i = 0; i < n; i++) {
        out[2 * i] = dst[i].x;
        out[2 * i + 1] = dst[i].y;
    }
    return TT_OK;
    CVW_CATCH("undistorting points")
}

extern "C" tt_status cvw_project_points(const cvw_camera *cam, const double *obj, int n, const double rvec[3],
                                        const double tvec[3], double *out, tt_err *err)
{
    CVW_TRY
    if (n <= 0)
        return TT_OK;
    std::vector<cv::Point3d> o(n);
    std::vector<cv::Point2d> p;
    for (int i = 0; i < n; i++)
        o[i] = cv::Point3d(obj[3 * i], obj[3 * i + 1], obj[3 * i + 2]);
    cv::Mat rv(3, 1, CV_64F, const_cast<double *>(rvec)), tv(3, 1, CV_64F, const_cast<double *>(tvec));
    cv::projectPoints(o, rv, tv, camera_matrix(cam), dist_coeffs(cam), p);
    for (int i = 0; i < n; i++) {
        out[2 * i] = p[i].x;
        out[2 * i + 1] = p[i].y;
    }
    return TT_OK;
    CVW_CATCH("projecting points")
}

extern "C" tt_status cvw_solve_pnp(const cvw_camera *cam, const double *obj, const double *img, int n, int use_guess,
                                   double rvec[3], double tvec[3], double *rms, tt_err *err)
{
    CVW_TRY
    if (n < 4)
        return tt_err_set(err, TT_ERR_ANCHORS, "pose needs at least 4 points, got %d", n);
    std::vector<cv::Point3d> o(n);
    std::vector<cv::Point2d> p(n), back;
    for (int i = 0; i < n; i++) {
        o[i] = cv::Point3d(obj[3 * i], obj[3 * i + 1], obj[3 * i + 2]);
        p[i] = cv::Point2d(img[2 * i], img[2 * i + 1]);
    }
    cv::Mat K = camera_matrix(cam), D = dist_coeffs(cam);
    cv::Mat rv(3, 1, CV_64F), tv(3, 1, CV_64F);
    bool ok;
    if (use_guess) {
        for (int i = 0; i < 3; i++) {
            rv.at<double>(i) = rvec[i];
            tv.at<double>(i) = tvec[i];
        }
        ok = cv::solvePnP(o, p, K, D, rv, tv, true, cv::SOLVEPNP_ITERATIVE);
    } else {
        // Planar points: IPPE gives a good start; LM refines on all points.
        bool planar = true;
        for (int i = 0; i < n; i++)
            if (std::fabs(o[i].z) > 1e-12)
                planar = false;
        ok = cv::solvePnP(o, p, K, D, rv, tv, false, planar ? cv::SOLVEPNP_IPPE : cv::SOLVEPNP_ITERATIVE);
    }
    if (!ok)
        return tt_err_set(err, TT_ERR_ANCHORS, "could not solve the camera pose from the anchors");
    cv::solvePnPRefineLM(o, p, K, D, rv, tv,
                         cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 50, 1e-12));
    for (int i = 0; i < 3; i++) {
        rvec[i] = rv.at<double>(i);
        tvec[i] = tv.at<double>(i);
    }
    if (rms) {
        cv::projectPoints(o, rv, tv, K, D, back);
        double s = 0;
        for (int i = 0; i < n; i++) {
            double dx = back[i].x - p[i].x, dy = back[i].y - p[i].y;
            s += dx * dx + dy * dy;
        }
        *rms = std::sqrt(s / n);
    }
    return TT_OK;
    CVW_CATCH("solving camera pose")
}

extern "C" tt_status cvw_rodrigues(const double rvec[3], double R[9], tt_err *err)
{
    CVW_TRY
    cv::Mat rv(3, 1, CV_64F, const_cast<double *>(rvec)), M;
    cv::Rodrigues(rv, M);
    for (int i = 0; i < 9; i++)
        R[i] = M.at<double>(i / 3, i % 3);
    return TT_OK;
    CVW_CATCH("converting rotation")
}

extern "C" tt_status cvw_calibrate_camera(cvw_camera *cam, int nviews, const int *counts, const double *obj,
                                          const double *img, int flags_fix_k3, double *rms, double *per_view_rms,
                                          tt_err *err)
{
    CVW_TRY
    if (nviews < 1)
        return tt_err_set(err, TT_ERR_ARG, "calibration needs at least one view");
    std::vector<std::vector<cv::Point3f>> O(nviews);
    std::vector<std::vector<cv::Point2f>> P(nviews);
    size_t k = 0;
    for (int v = 0; v < nviews; v++) {
        for (int i = 0; i < counts[v]; i++, k++) {
            O[v].emplace_back((float)obj[3 * k], (float)obj[3 * k + 1], (float)obj[3 * k + 2]);
            P[v].emplace_back((float)img[2 * k], (float)img[2 * k + 1]);
        }
    }
    cv::Mat K, D, stdI, stdE, perView;
    std::vector<cv::Mat> rvs, tvs;
    int flags = flags_fix_k3 ? cv::CALIB_FIX_K3 : 0;
    double r = cv::calibrateCamera(O, P, cv::Size(cam->width, cam->height), K, D, rvs, tvs, stdI, stdE, perView,
                                   flags,
                                   cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 100, 1e-12));
    for (int i = 0; i < 9; i++)
        cam->K[i] = K.at<double>(i / 3, i % 3);
    D = D.reshape(1, 1);
    cam->ndist = D.cols < 5 ? D.cols : 5;
    for (int i = 0; i < cam->ndist; i++)
        cam->dist[i] = D.at<double>(0, i);
    if (rms)
        *rms = r;
    if (per_view_rms)
        for (int v = 0; v < nviews; v++)
            per_view_rms[v] = perView.at<double>(v);
    return TT_OK;
    CVW_CATCH("calibrating camera")
}

tt_status cvw_find_homography(const double *src, const double *dst, int n, double H[9], tt_err *err)
{
    CVW_TRY
    if (!src || !dst || !H || n < 4)
        return tt_err_set(err, TT_ERR_ARG, "homography: need at least 4 point pairs (got %d)", n);
    cv::Mat s(n, 1, CV_64FC2, const_cast<double *>(src)), d(n, 1, CV_64FC2, const_cast<double *>(dst));
    cv::Mat h = cv::findHomography(s, d, 0);
    if (h.empty() || h.rows != 3 || h.cols != 3)
        return tt_err_set(err, TT_ERR_CV, "homography: the points are degenerate (collinear or repeated)");
    h.convertTo(h, CV_64F);
    double w = h.at<double>(2, 2);
    if (!(std::fabs(w) > 1e-300))
        return tt_err_set(err, TT_ERR_CV, "homography: degenerate solution");
    for (int i = 0; i < 9; i++)
        H[i] = h.at<double>(i / 3, i % 3) / w;
    return TT_OK;
    CVW_CATCH("homography")
}

tt_status cvw_null_vector(const double *A, int rows, int cols, double *x, tt_err *err)
{
    CVW_TRY
    if (!A || !x || cols < 1 || rows < cols)
        return tt_err_set(err, TT_ERR_ARG, "null vector: need at least %d rows (got %d)", cols, rows);
    cv::Mat a(rows, cols, CV_64F, const_cast<double *>(A)), z;
    cv::SVD::solveZ(a, z);
    if (z.empty() || z.total() != (size_t)cols)
        return tt_err_set(err, TT_ERR_CV, "null vector: the SVD failed");
    for (int i = 0; i < cols; i++) {
        x[i] = z.at<double>(i);
        if (!std::isfinite(x[i]))
            return tt_err_set(err, TT_ERR_CV, "null vector: the SVD failed");
    }
    return TT_OK;
    CVW_CATCH("null vector")
}

tt_status cvw_contrast_blobs(const tt_image *gray, int min_side, int max_side, int level, int *boxes, int max_boxes,
                             int *n, tt_err *err)
{
    CVW_TRY
    *n = 0;
    if (!gray || !gray->data || gray->channels != 1 || gray->width < 2 || gray->height < 2)
        return tt_err_set(err, TT_ERR_ARG, "contrast blobs: need an 8-bit gray image");
    if (min_side < 1 || max_side < min_side || level < 1)
        return tt_err_set(err, TT_ERR_ARG, "contrast blobs: bad size range %d..%d px or level %d", min_side, max_side,
                          level);
    cv::Mat in(gray->height, gray->width, CV_8UC1, gray->data, (size_t)gray->stride), small, grad, bin;
    cv::resize(in, small, cv::Size(gray->width / 2, gray->height / 2), 0, 0, cv::INTER_AREA);
    cv::Mat k = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3));
    cv::morphologyEx(small, grad, cv::MORPH_GRADIENT, k);
    cv::threshold(grad, bin, level - 1, 255, cv::THRESH_BINARY);
    cv::dilate(bin, bin, k);
    std::vector<std::vector<cv::Point>> cs;
    std::vector<cv::Vec4i> tree;
    /* Thin lines (an edge of the table, of a hand) would join a tag near
     * them into one long region: fill the holes up to a tag's size (the flat
     * inside of a dark square), then an opening removes what is under 5 px. */
    cv::findContours(bin, cs, tree, cv::RETR_CCOMP, cv::CHAIN_APPROX_SIMPLE);
    double hole_max = 0.25 * max_side * max_side; /* in halved pixels: (max_side / 2)^2 */
    for (size_t i = 0; i < cs.size(); i++)
        if (tree[i][3] >= 0 && cv::contourArea(cs[i]) <= hole_max)
            cv::drawContours(bin, cs, (int)i, cv::Scalar(255), cv::FILLED);
    cv::morphologyEx(bin, bin, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
    cs.clear();
    tree.clear();
    /* Two levels: every region's outer boundary has no parent, even one
     * inside a ring (the table's edge against the floor is one). */
    cv::findContours(bin, cs, tree, cv::RETR_CCOMP, cv::CHAIN_APPROX_SIMPLE);
    for (size_t i = 0; i < cs.size(); i++) {
        const std::vector<cv::Point> &c = cs[i];
        if (tree[i][3] >= 0)
            continue; /* a hole */
        cv::Rect r = cv::boundingRect(c);
        int w = 2 * r.width, h = 2 * r.height;
        if (w < min_side || h < min_side || w > max_side || h > max_side || w > 3 * h || h > 3 * w)
            continue;
        if (cv::contourArea(c) < 0.4 * r.width * r.height)
            continue;
        if (*n < max_boxes) {
            int *b = boxes + 4 * *n;
            b[0] = 2 * r.x;
            b[1] = 2 * r.y;
            b[2] = w;
            b[3] = h;
        }
        (*n)++;
    }
    return TT_OK;
    CVW_CATCH("contrast blobs")
}
