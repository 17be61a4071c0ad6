/* cmd_calib.c - 'tabletrack calib camera' (intrinsics from photos of a tag
 * board) and, later, 'tabletrack calib projector'. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera_calib.h"
#include "cli.h"
#include "cmd_calib_projector.h"
#include "cvwrap.h"
#include "tt_tmpfile.h"

static const char *USAGE = "tabletrack calib camera --board BOARD --out camera.yaml [--min-tags N] [--decimate D] "
                           "IMAGE...\n       tabletrack calib projector --rig RIG (--width W --height H --patterns-out DIR | "
                           "--captures DIR --out projector.json)";
static const char *USAGE_CAMERA =
    "tabletrack calib camera --board BOARD --out camera.yaml [--min-tags N] [--decimate D] IMAGE...";

/* Below this many usable images the result is printed but a warning says
 * more photos would help. */
#define CALIB__RECOMMENDED_IMAGES 6

/* Fail before the (slow) detection if camera.yaml cannot be written: probe
 * a temporary file beside it (as cvw_camera_write makes), then remove it. */
static tt_status calib__check_writable(const char *out, tt_err *err)
{
    char *tmp = NULL;
    tt_status st = tt_tmp_create(out, &tmp, err);
    tt_tmp_discard(tmp);
    return st;
}

static int calib__camera(int argc, char **argv)
{
    const char *board_path = NULL, *out = NULL;
    calib_camera_opts opts;
    calib_board board;
    calib_camera *cc = NULL;
    cvw_camera cam;
    calib_camera_result res;
    tt_err err = {0};
    int rc = 1, nimages = 0;
    char **images = NULL;

    calib_camera_opts_default(&opts);
    images = calloc((size_t)argc, sizeof *images);
    if (!images) {
        fprintf(stderr, "tabletrack calib camera: out of memory\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: %s\n", USAGE_CAMERA);
            rc = 0;
            goto done;
        }
        if (!strcmp(a, "--board") || !strcmp(a, "--out") || !strcmp(a, "--min-tags") || !strcmp(a, "--decimate")) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                rc = cli_usage("calib camera", USAGE_CAMERA, "missing value for %s", a);
                goto done;
            }
            const char *val = argv[++i];
            char *end = NULL;
            if (!strcmp(a, "--board")) {
                board_path = val;
            } else if (!strcmp(a, "--out")) {
                out = val;
            } else if (!strcmp(a, "--min-tags")) {
                if (!cli_int(val, 4, CALIB_BOARD_MAX_TAGS, &opts.min_tags_per_image)) {
                    rc = cli_usage("calib camera", USAGE_CAMERA, "--min-tags must be a whole number >= 4 (got '%s')",
                                   val);
                    goto done;
                }
            } else {
                double d = strtod(val, &end);
                if (*end || !(d >= 1 && d <= 8)) {
                    rc = cli_usage("calib camera", USAGE_CAMERA, "--decimate must be between 1 and 8 (got '%s')",
                                   val);
                    goto done;
                }
                opts.decimate = d;
            }
            continue;
        }
        if (a[0] == '-' && a[1]) {
            rc = cli_usage("calib camera", USAGE_CAMERA, "unknown option %s", a);
            goto done;
        }
        images[nimages++] = argv[i];
    }
    if (!board_path) {
        rc = cli_usage("calib camera", USAGE_CAMERA, "no --board given (a board file: see README, 'Camera calibration')");
        goto done;
    }
    if (!out) {
        rc = cli_usage("calib camera", USAGE_CAMERA, "no --out given (where to write camera.yaml)");
        goto done;
    }
    if (nimages == 0) {
        rc = cli_usage("calib camera", USAGE_CAMERA, "no IMAGE given (photos of the printed board)");
        goto done;
    }

    if (calib_board_load(board_path, &board, &err) != TT_OK || calib_camera_create(&board, &opts, &cc, &err) != TT_OK ||
        calib__check_writable(out, &err) != TT_OK) {
        rc = cli_fail("calib camera", &err);
        goto done;
    }
    for (int i = 0; i < nimages; i++) {
        tt_image im = {0};
        tt_status st = cvw_image_read(images[i], 1, &im, &err);
        if (st == TT_OK)
            st = calib_camera_add_image(cc, images[i], &im, &err);
        tt_image_free(&im);
        if (st != TT_OK) {
            rc = cli_fail("calib camera", &err);
            goto done;
        }
    }
    tt_status st = calib_camera_solve(cc, &cam, &res, &err);
    for (int i = 0; i < calib_camera_nviews(cc); i++) {
        const calib_camera_view *v = calib_camera_view_info(cc, i);
        if (!v->used)
            fprintf(stderr, "warning: skipping %s: %s\n", v->name, v->note);
    }
    if (st != TT_OK) {
        rc = cli_fail("calib camera", &err);
        goto done;
    }

    printf("board: %s, %d x %d tags of %g in, spacing %g in, ids %d-%d\n", board.family, board.rows, board.columns,
           board.tag_size_in, board.spacing_in, board.first_id, board.first_id + calib_board_ntags(&board) - 1);
    printf("%-40s %5s %8s %9s\n", "image", "tags", "rms_px", "tilt_deg");
    for (int i = 0; i < calib_camera_nviews(cc); i++) {
        const calib_camera_view *v = calib_camera_view_info(cc, i);
        if (v->used)
            printf("%-40s %5d %8.3f %9.1f\n", v->name, v->ntags, v->rms_px, v->tilt_deg);
        else
            printf("%-40s %5d  skipped\n", v->name, v->ntags);
    }
    printf("RMS reprojection error: %.3f px (%d images, %d corners)\n", res.rms_px, res.nused, res.npoints);
    printf("image %dx%d  fx %.2f  fy %.2f  cx %.2f  cy %.2f\n", cam.width, cam.height, cam.K[0], cam.K[4], cam.K[2],
           cam.K[5]);
    printf("distortion k1 %.5f  k2 %.5f  p1 %.5f  p2 %.5f  k3 %.5f\n", cam.dist[0], cam.dist[1], cam.dist[2],
           cam.dist[3], cam.dist[4]);

    if (res.nused < CALIB__RECOMMENDED_IMAGES)
        fprintf(stderr,
                "warning: only %d usable images; the minimum is %d images with %d or more board tags each, but %d or "
                "more photos at different angles give steadier intrinsics\n",
                res.nused, opts.min_images, opts.min_tags_per_image, CALIB__RECOMMENDED_IMAGES + 4);
    if (res.max_tilt_deg < 15.0)
        fprintf(stderr,
                "warning: every photo faces the board squarely (largest tilt %.0f deg): the focal length is poorly "
                "determined; add photos with the board tilted 20-45 deg\n",
                res.max_tilt_deg);
    if (res.rms_px > 1.0)
        fprintf(stderr,
                "warning: RMS %.2f px is high: is the board flat, printed at 100%% and does the board file match "
                "it? Drop blurred photos (their per-image rms is highest)\n",
                res.rms_px);

    if (cvw_camera_write(out, &cam, res.rms_px, &err) != TT_OK) {
        rc = cli_fail("calib camera", &err);
        goto done;
    }
    printf("wrote %s\n", out);
    rc = fflush(stdout) == 0 ? 0 : 1;
done:
    calib_camera_destroy(cc);
    free(images);
    return rc;
}

int cmd_calib(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage("calib", USAGE, "say what to calibrate: 'camera' or 'projector'");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        printf("usage: %s\n", USAGE);
        return 0;
    }
    if (!strcmp(argv[1], "camera"))
        return calib__camera(argc - 1, argv + 1);
    if (!strcmp(argv[1], "projector"))
        return cmd_calib_projector(argc - 1, argv + 1);
    return cli_usage("calib", USAGE, "unknown calibration '%s' (use 'camera' or 'projector')", argv[1]);
}
