/* test_vision.c - tag detection: the real photos from libapriltag's own test
 * suite (corner regression, half-pixel convention), family names, bad
 * images. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cvwrap.h"
#include "source.h"
#include "tracker.h"
#include "usbcam.h"
#include "vision.h"

#ifndef TT_REAL_DIR
#error TT_REAL_DIR must point at tests/data/apriltag-real
#endif

typedef struct {
    int id;
    double p[4][2];
} expected_tag;

/* Read "id, (x0 y0), (x1 y1), (x2 y2), (x3 y3)" lines. */
static int read_expected(const char *path, expected_tag *out, int max)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int n = 0;
    assert_non_null(f);
    while (fgets(line, sizeof line, f) && n < max) {
        expected_tag *t = &out[n];
        if (sscanf(line, "%d, (%lf %lf), (%lf %lf), (%lf %lf), (%lf %lf)", &t->id, &t->p[0][0], &t->p[0][1],
                   &t->p[1][0], &t->p[1][1], &t->p[2][0], &t->p[2][1], &t->p[3][0], &t->p[3][1]) == 9)
            n++;
    }
    fclose(f);
    return n;
}

static void test_real_photos_corners(void **state)
{
    (void)state;
    const char *names[] = {"33369213973_9d9bb4cc96_c", "34085369442_304b6bafd9_c", "34139872896_defdb2f8d9_c"};
    vision_detector_opts o;
    vision_detector *det = NULL;
    tt_err err = {0};
    int total_expected = 0, total_matched = 0;
    double worst = 0;

    vision_detector_opts_default(&o);
    o.decimate = 1; /* libapriltag's reference settings, its corners as it gives them */
    o.refine_edges = 0;
    o.refine_corners = 0;
    assert_int_equal(vision_detector_create(&o, &det, &err), TT_OK);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char img[1024], txt[1024];
        expected_tag exp[64];
        tt_image im = {0};
        vision_detections ds = {0};
        snprintf(img, sizeof img, "%s/%s.jpg", TT_REAL_DIR, names[k]);
        snprintf(txt, sizeof txt, "%s/%s.txt", TT_REAL_DIR, names[k]);
        int ne = read_expected(txt, exp, 64);
        assert_true(ne > 0);
        assert_int_equal(cvw_image_read(img, 1, &im, &err), TT_OK);
        assert_int_equal(vision_detect(det, &im, &ds, &err), TT_OK);
        assert_int_equal(ds.count, ne);
        total_expected += ne;
        /* Every expected tag matches one detection with every corner within
         * 0.25 px, after moving the expected corners (libapriltag's
         * convention) by -0.5 into OpenCV's. */
        for (int e = 0; e < ne; e++) {
            int best = -1;
            double bestd = 1e9;
            for (int i = 0; i < ds.count; i++) {
                double d = 0;
                for (int c = 0; c < 4; c++)
                    d = fmax(d, hypot(ds.items[i].corners[c][0] - (exp[e].p[c][0] - 0.5),
                                      ds.items[i].corners[c][1] - (exp[e].p[c][1] - 0.5)));
                if (d < bestd) {
                    bestd = d;
                    best = i;
                }
            }
            assert_true(best >= 0);
            assert_int_equal(ds.items[best].id, exp[e].id);
            if (bestd > 0.25)
                fail_msg("%s tag %d: a corner is %.3f px from the expected one", names[k], e, bestd);
            worst = fmax(worst, bestd);
            total_matched++;
        }
        vision_detections_free(&ds);
        tt_image_free(&im);
    }
    assert_int_equal(total_expected, 47);
    assert_int_equal(total_matched, 47);
    print_message("real photos: 47/47 tags, worst corner %.3f px\n", worst);
    vision_detector_destroy(det);
}

/* Without the half-pixel shift the corners would be off by 0.5 px in x and
 * y: check the shift is applied exactly once. */
static void test_half_pixel_convention(void **state)
{
    (void)state;
    vision_detector_opts o;
    vision_detector *det = NULL;
    tt_err err = {0};
    tt_image im = {0};
    vision_detections ds = {0};
    char img[1024], txt[1024];
    expected_tag exp[64];
    snprintf(img, sizeof img, "%s/34139872896_defdb2f8d9_c.jpg", TT_REAL_DIR);
    snprintf(txt, sizeof txt, "%s/34139872896_defdb2f8d9_c.txt", TT_REAL_DIR);
    int ne = read_expected(txt, exp, 64);
    vision_detector_opts_default(&o);
    o.decimate = 1;
    o.refine_edges = 0;
    assert_int_equal(vision_detector_create(&o, &det, &err), TT_OK);
    assert_int_equal(cvw_image_read(img, 1, &im, &err), TT_OK);
    assert_int_equal(vision_detect(det, &im, &ds, &err), TT_OK);
    double sx = 0, sy = 0;
    int n = 0;
    for (int e = 0; e < ne; e++)
        for (int i = 0; i < ds.count; i++)
            if (hypot(ds.items[i].corners[0][0] - exp[e].p[0][0], ds.items[i].corners[0][1] - exp[e].p[0][1]) < 2)
                for (int c = 0; c < 4; c++) {
                    sx += ds.items[i].corners[c][0] - exp[e].p[c][0];
                    sy += ds.items[i].corners[c][1] - exp[e].p[c][1];
                    n++;
                }
    assert_true(n >= 4 * ne);
    assert_true(fabs(sx / n + 0.5) < 0.05);
    assert_true(fabs(sy / n + 0.5) < 0.05);
    vision_detections_free(&ds);
    tt_image_free(&im);
    vision_detector_destroy(det);
}

static void test_every_shipped_family_creates(void **state)
{
    (void)state;
    const char *fams[] = {"tag36h11", "tag36h10", "tag25h9", "tag16h5", "tagCircle21h7", "tagStandard41h12",
                          "tagCircle49h12", "tagCustom48h12", "tagStandard52h13"};
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++) {
        vision_detector_opts o;
        vision_detector *det = NULL;
        tt_err err = {0};
        vision_detector_opts_default(&o);
        o.families[0] = fams[i];
        o.nfamilies = 1;
        assert_true(vision_family_known(fams[i]));
        assert_int_equal(vision_detector_create(&o, &det, &err), TT_OK);
        vision_detector_destroy(det);
    }
}

static void test_unknown_family(void **state)
{
    (void)state;
    vision_detector_opts o;
    vision_detector *det = NULL;
    tt_err err = {0};
    vision_detector_opts_default(&o);
    o.families[0] = "tag36h12";
    o.nfamilies = 1;
    assert_int_equal(vision_detector_create(&o, &det, &err), TT_ERR_UNKNOWN);
    assert_null(det);
    assert_non_null(strstr(err.msg, "tag36h12"));
    assert_non_null(strstr(err.msg, "tag36h11")); /* lists the known ones */
    vision_detector_destroy(NULL);                /* accepts NULL */
}

static void test_missing_and_corrupt_image(void **state)
{
    (void)state;
    tt_err err = {0};
    tt_image im = {0};
    char path[] = "/tmp/tt_corruptXXXXXX.png";
    assert_int_equal(cvw_image_read("/nonexistent/frame.png", 1, &im, &err), TT_ERR_IO);
    assert_non_null(strstr(err.msg, "/nonexistent/frame.png"));
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    /* A PNG signature followed by garbage: a truncated download. */
    const unsigned char junk[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 1, 2, 3, 4, 5, 6, 7};
    assert_int_equal(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
    close(fd);
    assert_int_equal(cvw_image_read(path, 1, &im, &err), TT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "not a readable image"));
    assert_null(im.data);
    unlink(path);
}

static void test_gray_required(void **state)
{
    (void)state;
    vision_detector_opts o;
    vision_detector *det = NULL;
    tt_err err = {0};
    tt_image im = {0};
    vision_detections ds = {0};
    vision_detector_opts_default(&o);
    assert_int_equal(vision_detector_create(&o, &det, &err), TT_OK);
    assert_int_equal(tt_image_alloc(&im, 64, 64, 3, &err), TT_OK);
    assert_int_equal(vision_detect(det, &im, &ds, &err), TT_ERR_ARG);
    tt_image_free(&im);
    /* An empty (uniform) image is a valid frame with no tags. */
    assert_int_equal(tt_image_alloc(&im, 64, 64, 1, &err), TT_OK);
    assert_int_equal(vision_detect(det, &im, &ds, &err), TT_OK);
    assert_int_equal(ds.count, 0);
    tt_image_free(&im);
    vision_detector_destroy(det);
}

/* /dev/video nodes are found from the USB bus path through sysfs links;
 * a fake tree stands in for /sys. */
/* The second pass's blob finder refuses what it cannot use, with a message. */
static void test_contrast_blobs_bad_input(void **state)
{
    (void)state;
    tt_image im = {0};
    tt_err err = {0};
    int boxes[4], n = -1;
    assert_int_equal(cvw_contrast_blobs(&im, 8, 64, 24, boxes, 1, &n, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "8-bit gray"));
    assert_int_equal(tt_image_alloc(&im, 64, 64, 1, &err), TT_OK);
    assert_int_equal(cvw_contrast_blobs(&im, 32, 16, 24, boxes, 1, &n, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "size range 32..16"));
    assert_int_equal(cvw_contrast_blobs(&im, 8, 16, 0, boxes, 1, &n, &err), TT_ERR_ARG);
    /* A flat image has no blobs; one black square on white has one. */
    assert_int_equal(cvw_contrast_blobs(&im, 8, 64, 24, boxes, 1, &n, &err), TT_OK);
    assert_int_equal(n, 0);
    memset(im.data, 235, (size_t)im.stride * 64);
    for (int y = 20; y < 40; y++)
        memset(im.data + (size_t)y * im.stride + 20, 20, 20);
    assert_int_equal(cvw_contrast_blobs(&im, 8, 64, 24, boxes, 1, &n, &err), TT_OK);
    assert_int_equal(n, 1);
    assert_true(boxes[0] >= 14 && boxes[0] <= 20 && boxes[2] >= 20 && boxes[2] <= 28);
    tt_image_free(&im);
}

/* Issue 22's scale inputs: bad windows and rectangles get clear errors. */
static void test_scale_bad_input(void **state)
{
    (void)state;
    tt_err err = {0};
    vision_detector_opts o;
    vision_detector *det = NULL;
    vision_detections ds = {0};
    tt_image im = {0};
    vision_detector_opts_default(&o);
    assert_int_equal(vision_detector_create(&o, &det, &err), TT_OK);
    const int r[4] = {0, 0, 32, 32};
    assert_int_equal(vision_detect_full_res(det, &im, r, 1, &ds, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "8-bit gray"));
    assert_int_equal(tt_image_alloc(&im, 64, 64, 1, &err), TT_OK);
    memset(im.data, 128, (size_t)im.stride * 64);
    assert_int_equal(vision_detect_full_res(det, &im, NULL, 1, &ds, &err), TT_ERR_ARG);
    /* a window partly outside the frame is clipped; a flat frame has no tag */
    const int out[4] = {-20, 40, 100, 100};
    assert_int_equal(vision_detect_full_res(det, &im, out, 1, &ds, &err), TT_OK);
    assert_int_equal(ds.count, 0);
    vision_detector_destroy(det);

    vision_tracker_opts to;
    vision_tracker *t = NULL;
    vision_tracker_opts_default(&to);
    to.sweep_idle = 0;
    assert_int_equal(vision_tracker_create(&to, &t, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "sweep_idle"));
    vision_tracker_opts_default(&to);
    assert_int_equal(vision_tracker_create(&to, &t, &err), TT_OK);
    int many[4 * (VISION_TRACKER_MAX_FINE + 1)] = {0};
    assert_int_equal(vision_tracker_set_fine(t, many, VISION_TRACKER_MAX_FINE + 1, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "at most"));
    assert_int_equal(vision_tracker_set_fine(t, many, 1, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "empty"));
    assert_int_equal(vision_tracker_set_fine(t, r, 1, &err), TT_OK);
    assert_int_equal(vision_tracker_set_fine(t, NULL, 0, &err), TT_OK);
    vision_tracker_destroy(t);
    tt_image_free(&im);
}

static void test_usb_video_node_lookup(void **state)
{
    (void)state;
    char root[] = "/tmp/tt_sysfs_XXXXXX", cmd[2048], dev[64];
    assert_non_null(mkdtemp(root));
    snprintf(cmd, sizeof cmd,
             "cd '%s' && mkdir -p class/video4linux/video0 class/video4linux/video2 class/video4linux/video3 && "
             "ln -s ../../../devices/pci0000:00/usb1/1-4/1-4:1.0 class/video4linux/video0/device && "
             "ln -s ../../../devices/pci0000:00/usb1/1-2/1-2.3/1-2.3:1.0 class/video4linux/video3/device && "
             "ln -s ../../../devices/pci0000:00/usb1/1-2/1-2.3/1-2.3:1.0 class/video4linux/video2/device",
             root);
    assert_int_equal(system(cmd), 0);
    vision_usb_video_node(root, "1-2.3", dev, sizeof dev);
    assert_string_equal(dev, "/dev/video2"); /* the lower of the camera's two nodes */
    vision_usb_video_node(root, "1-4", dev, sizeof dev);
    assert_string_equal(dev, "/dev/video0");
    vision_usb_video_node(root, "1-2", dev, sizeof dev); /* the hub above the camera: none */
    assert_string_equal(dev, "");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

/* Several cameras' frames paired by time (issue 31): one frame period
 * behind the newest is used, more is not; a camera without a frame is not. */
static void test_frames_pair(void **state)
{
    (void)state;
    const double period = 1000.0 / 30;
    double t[3] = {1000.0, 1000.0 + period, 1000.0 + 2.5 * period};
    int have[3] = {1, 1, 1}, use[3];
    assert_int_equal(vision_frames_pair(t, have, 3, period, use), 1); /* only the newest: the others too old */
    assert_true(!use[0] && !use[1] && use[2]);
    t[2] = 1000.0 + 1.5 * period;
    assert_int_equal(vision_frames_pair(t, have, 3, period, use), 2); /* exactly one period behind: used */
    assert_true(!use[0] && use[1] && use[2]);
    have[2] = 0; /* no frame from the newest camera: the others are paired among themselves */
    assert_int_equal(vision_frames_pair(t, have, 3, period, use), 2);
    assert_true(use[0] && use[1] && !use[2]);
    have[0] = have[1] = 0;
    assert_int_equal(vision_frames_pair(t, have, 3, period, use), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_photos_corners),     cmocka_unit_test(test_half_pixel_convention),
        cmocka_unit_test(test_every_shipped_family_creates), cmocka_unit_test(test_unknown_family),
        cmocka_unit_test(test_missing_and_corrupt_image), cmocka_unit_test(test_gray_required),
        cmocka_unit_test(test_usb_video_node_lookup),  cmocka_unit_test(test_contrast_blobs_bad_input),
        cmocka_unit_test(test_scale_bad_input),          cmocka_unit_test(test_frames_pair),
    };
    return cmocka_run_group_tests_name("vision", tests, NULL, NULL);
}
