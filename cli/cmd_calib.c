/* cmd_calib.c - 'tabletrack calib camera' (intrinsics from photos of a tag
 * board) and, later, 'tabletrack calib projector'. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera_calib.h"
#include "cli.h"
#include "cli_progress.h"
#include "cmd_calib_projector.h"
#include "cvwrap.h"
#include "tt_tmpfile.h"

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
    const cli_spec *S = &cli_spec_calib_camera;
    cli_args args;
    const char *a, *val;
    int k;
    cli_args_init(&args, S, argc, argv);
    while ((k = cli_args_next(&args, &a, &val)) != CLI_END) {
        if (k == CLI_STOP) {
            rc = args.rc;
            goto done;
        }
        if (k == CLI_POSITIONAL) {
            images[nimages++] = (char *)val;
            continue;
        }
        char *end = NULL;
        if (!strcmp(a, "--board")) {
            board_path = val;
        } else if (!strcmp(a, "--out")) {
            out = val;
        } else if (!strcmp(a, "--min-tags")) {
            if (!cli_int(val, 4, CALIB_BOARD_MAX_TAGS, &opts.min_tags_per_image)) {
                rc = cli_spec_usage(S, "--min-tags must be a whole number >= 4 (got '%s')", val);
                goto done;
            }
        } else {
            double d = strtod(val, &end);
            if (*end || !(d >= 1 && d <= 8)) {
                rc = cli_spec_usage(S, "--decimate must be between 1 and 8 (got '%s')", val);
                goto done;
            }
            opts.decimate = d;
        }
    }
    if (!board_path) {
        rc = cli_spec_usage(S, "no --board given (a board file: see docs/setup.md, 'Camera calibration')");
        goto done;
    }
    if (!out) {
        rc = cli_spec_usage(S, "no --out given (where to write camera.yaml)");
        goto done;
    }
    if (nimages == 0) {
        rc = cli_spec_usage(S, "no IMAGE given (photos of the printed board)");
        goto done;
    }

    if (calib_board_load(board_path, &board, &err) != TT_OK || calib_camera_create(&board, &opts, &cc, &err) != TT_OK ||
        calib__check_writable(out, &err) != TT_OK) {
        rc = cli_fail("calib camera", &err);
        goto done;
    }
    cli_progress prog;
    cli_progress_start(&prog, "calib camera: photos", nimages);
    for (int i = 0; i < nimages; i++) {
        cli_progress_update(&prog, i);
        tt_image im = {0};
        tt_status st = cvw_image_read(images[i], 1, &im, &err);
        if (st == TT_OK)
            st = calib_camera_add_image(cc, images[i], &im, &err);
        tt_image_free(&im);
        if (st != TT_OK) {
            cli_progress_end(&prog);
            rc = cli_fail("calib camera", &err);
            goto done;
        }
    }
    cli_progress_end(&prog);
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
    if (argc >= 2 && !strcmp(argv[1], "camera"))
        return calib__camera(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "projector"))
        return cmd_calib_projector(argc - 1, argv + 1);
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        cli_spec_help(&cli_spec_calib_camera, stdout);
        printf("\n");
        cli_spec_help(&cli_spec_calib_projector, stdout);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (argc < 2)
        fprintf(stderr, "tabletrack calib: say what to calibrate: 'camera' or 'projector'\n");
    else
        fprintf(stderr, "tabletrack calib: unknown calibration '%s' (use 'camera' or 'projector')\n", argv[1]);
    fprintf(stderr, "usage: tabletrack calib camera ...\n       tabletrack calib projector ...\n"
                    "'tabletrack help calib' explains every option.\n");
    return 2;
}
