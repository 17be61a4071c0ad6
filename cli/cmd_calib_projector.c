/* cmd_calib_projector.c - 'tabletrack calib projector': write the pattern
 * images (--patterns-out) or solve projector.json from camera photos of
 * them (--captures); with --scenario, the scenario's raised pieces (a box
 * or hill of known height under the projector) make the solve 3D. */
#include "cmd_calib_projector.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "calib.h"
#include "cli.h"
#include "cli_progress.h"
#include "cvwrap.h"
#include "overlay.h"
#include "projector.h"
#include "source.h"
#ifdef TT_HAVE_RULES
#include "rules.h"
#endif
#include <cairo.h>
#include <time.h>
#include <unistd.h>

#define CMD "calib projector"

static int calibpj__int(const char *s, int *out)
{
    return cli_int(s, 64, CALIB_PROJECTOR_MAX_SIDE, out);
}

static int calibpj__write_patterns(const char *dir, int w, int h)
{
    tt_err err = {0};
    int n = calib_projector_pattern_count(w, h);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "tabletrack " CMD ": cannot make folder %s: %s\n", dir, strerror(errno));
        return 1;
    }
    cli_progress prog;
    cli_progress_start(&prog, "calib projector: writing patterns", n);
    for (int i = 0; i < n; i++) {
        calib_projector_pattern info;
        tt_image im = {0};
        char path[4200];
        cli_progress_update(&prog, i);
        calib_projector_pattern_info(w, h, i, &info, NULL);
        if (snprintf(path, sizeof path, "%s/%s", dir, info.name) >= (int)sizeof path) {
            fprintf(stderr, "tabletrack " CMD ": folder name too long: %s\n", dir);
            return 1;
        }
        tt_status st = calib_projector_pattern_render(w, h, i, &im, &err);
        if (st == TT_OK)
            st = cvw_image_write(path, &im, &err);
        tt_image_free(&im);
        if (st != TT_OK) {
            cli_progress_end(&prog);
            return cli_fail(CMD, &err);
        }
    }
    cli_progress_end(&prog);
    printf("wrote %d patterns for a %dx%d projector to %s\n", n, w, h, dir);
    printf("show each full screen on the projector (nothing else lit), photograph it with the rig's camera\n"
           "(same position, fixed exposure) and save the photo under the pattern's file name in one folder;\n"
           "then: tabletrack calib projector --rig RIG --captures FOLDER --out projector.json\n");
    return fflush(stdout) == 0 ? 0 : 1;
}

/* Find the projector size from the pattern names in the captures folder. */
static int calibpj__find_size(const char *dir, int *w, int *h)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0, fw = 0, fh = 0;
    if (!d) {
        fprintf(stderr, "tabletrack " CMD ": cannot open the captures folder %s: %s\n", dir, strerror(errno));
        return 1;
    }
    while ((e = readdir(d)) != NULL) {
        int ww, hh, k;
        if (!calib_projector_pattern_parse(e->d_name, &ww, &hh, &k))
            continue;
        if (*w > 0 && (ww != *w || hh != *h))
            continue;
        if (found && (ww != fw || hh != fh)) {
            closedir(d);
            fprintf(stderr,
                    "tabletrack " CMD ": %s holds photos for two projector sizes (%dx%d and %dx%d): keep one set, "
                    "or say which with --width and --height\n",
                    dir, fw, fh, ww, hh);
            return 1;
        }
        fw = ww;
        fh = hh;
        found = 1;
    }
    closedir(d);
    if (!found) {
        if (*w > 0)
            fprintf(stderr, "tabletrack " CMD ": %s has no photos of %dx%d patterns (files named like pj-%dx%d-00-black.png)\n",
                    dir, *w, *h, *w, *h);
        else
            fprintf(stderr,
                    "tabletrack " CMD ": %s has no pattern photos (files named like pj-1920x1080-00-black.png, one per "
                    "pattern written by --patterns-out)\n",
                    dir);
        return 1;
    }
    *w = fw;
    *h = fh;
    return 0;
}

/* The raised pieces of --scenario, as the solver's surfaces (they borrow
 * the scenario's ids and outlines: keep sc until the solve is done). */
typedef struct calibpj__raised {
    void *sc; /* rules_scenario, owned */
    calib_projector_surface *surf;
    int n;
    int given; /* --scenario was given */
} calibpj__raised;

static void calibpj__raised_free(calibpj__raised *r)
{
#ifdef TT_HAVE_RULES
    rules_scenario_destroy(r->sc);
#endif
    free(r->surf);
    memset(r, 0, sizeof *r);
}

static tt_status calibpj__raised_load(const char *path, calibpj__raised *r, tt_err *err)
{
    memset(r, 0, sizeof *r);
    if (!path)
        return TT_OK;
    r->given = 1;
#ifdef TT_HAVE_RULES
    const char *env = getenv("TABLETRACK_DATA");
    const char *dirs[] = {env && env[0] ? env : TT_SOURCE_DIR, TT_SOURCE_DIR, NULL};
    rules_scenario *sc = NULL;
    tt_status st = rules_scenario_load(path, dirs, &sc, err);
    if (st != TT_OK)
        return st;
    r->sc = sc;
    size_t np = rules_scenario_piece_count(sc);
    r->surf = calloc(np ? np : 1, sizeof *r->surf);
    if (!r->surf)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < np; i++) {
        calib_projector_surface *f = &r->surf[r->n];
        if (rules_scenario_raised_piece(sc, i, &f->id, &f->height_in, &f->xy, &f->n))
            r->n++;
    }
    return TT_OK;
#else
    return tt_err_set(err, TT_ERR_ARG, "this build has no rules engine (rules/) to read the scenario %s", path);
#endif
}

/* Solve from the photos, print the figures, save projector.json. */
static tt_status calibpj__solve_report(const calib_rig *rig, int w, int h, const tt_image *caps, int n, int grid,
                                       const calibpj__raised *raised, const char *out, tt_err *err)
{
    calib_projector *pj = NULL;
    calib_projector_report rep;
    calib_projector_opts opts;
    tt_status st;
    calib_projector_opts_default(&opts);
    opts.correction_grid = grid;
    opts.surfaces = raised->surf;
    opts.nsurfaces = raised->n;
    if ((st = calib_projector_solve(rig, w, h, caps, n, &opts, &pj, &rep, err)) != TT_OK)
        return st;
    printf("projector %dx%d: %d photos, camera pose from %d anchors (%.3f px rms)\n", w, h, n, rep.anchors_used,
           rep.pose_rms_px);
    printf("decoded %d camera pixels, %d used; lit area x %.1f..%.1f in, y %.1f..%.1f in\n", rep.decoded,
           rep.inliers, rep.covered[0], rep.covered[2], rep.covered[1], rep.covered[3]);
    if (rep.grid_used)
        printf("correction grid: yes (homography alone %.3f px rms)\n", rep.rms_px_homography);
    else
        printf("correction grid: no (not needed)\n");
    printf("residual: %.3f projector px rms (max %.2f px), %.4f in rms on the table\n", rep.rms_px, rep.max_px,
           rep.rms_in);
    if (rep.pinhole) {
        printf("model: 3D pinhole, from the felt and %d pixels on the tops of", rep.raised);
        for (int i = 0; i < raised->n; i++)
            printf("%s %s (%.2g in)", i ? "," : "", raised->surf[i].id, raised->surf[i].height_in);
        printf(" (%.3f px rms there): drawings land on raised terrain at its height\n", rep.rms_px_raised);
    } else {
        printf("model: plane (the felt only)%s: drawings on raised terrain (hills, buildings) will be offset.\n"
               "To calibrate in 3D, put a box or hill of known height under the projector, declare it in a scenario "
               "as a piece that raises (with its height_in), and run again with --scenario SCENARIO (docs/setup.md: "
               "\"Calibrating the projector in 3D\").\n",
               raised->given ? ": the scenario has no raised pieces" : "");
    }
    if (rep.rms_px > 1.0)
        fprintf(stderr,
                "warning: residual %.2f px is high: is the mat flat, the projector focused, and did anything move "
                "between photos?\n",
                rep.rms_px);
    /* the table it was made on: overlay and track refuse it over another */
    calib_projector_set_table(pj, rig->width_in, rig->depth_in);
    st = calib_projector_save(pj, out, err);
    calib_projector_destroy(pj);
    if (st == TT_OK)
        printf("wrote %s (for the %gx%g\" table)\n", out, rig->width_in, rig->depth_in);
    return st;
}

/* The live procedure: show each pattern fullscreen on the projector, let
 * the camera settle, grab a frame, then solve as from photos. */
static int calibpj__live(const char *rigpath, const char *srcspec, const char *display, int w, int h, int grid,
                         int settle_ms, const char *keep, const calibpj__raised *raised, const char *out)
{
    tt_err err = {0};
    calib_rig *rig = NULL;
    vision_source *src = NULL;
    overlay_window *win = NULL;
    cairo_surface_t *surf = NULL;
    tt_image *caps = NULL;
    cli_progress prog = {0};
    int n = calib_projector_pattern_count(w, h), rc = 1;

    caps = calloc((size_t)n, sizeof *caps);
    if (!caps) {
        fprintf(stderr, "tabletrack " CMD ": out of memory\n");
        return 1;
    }
    if (calib_rig_load(rigpath, &rig, &err) != TT_OK)
        goto fail;
    vision_source_opts so = {rig->capture.width, rig->capture.height, rig->capture.fps, rig->capture.mjpeg};
    if (vision_source_open(srcspec, &so, &src, &err) != TT_OK)
        goto fail;
    if (keep && mkdir(keep, 0777) != 0 && errno != EEXIST) {
        tt_err_set(&err, TT_ERR_IO, "cannot make folder %s: %s", keep, strerror(errno));
        goto fail;
    }
    if (overlay_window_open(display, w, h, &win, &err) != TT_OK)
        goto fail;
    surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
        tt_err_set(&err, TT_ERR_NOMEM, "out of memory for a %dx%d image", w, h);
        goto fail;
    }
    int live = vision_source_get_kind(src) == VISION_SRC_CAMERA;
    printf("showing %d patterns on the projector and grabbing a camera frame for each: keep the table clear\n", n);
    fflush(stdout);
    cli_progress_start(&prog, "calib projector: patterns shown", n);
    for (int i = 0; i < n; i++) {
        tt_image pat = {0};
        calib_projector_pattern info;
        cli_progress_update(&prog, i);
        calib_projector_pattern_info(w, h, i, &info, NULL);
        if (calib_projector_pattern_render(w, h, i, &pat, &err) != TT_OK)
            goto fail;
        cairo_surface_flush(surf);
        unsigned char *px = cairo_image_surface_get_data(surf);
        int stride = cairo_image_surface_get_stride(surf);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint8_t v = pat.data[(size_t)y * pat.stride + (size_t)x * pat.channels];
                uint32_t rgb = 0xff000000u | (uint32_t)v << 16 | (uint32_t)v << 8 | v;
                memcpy(px + (size_t)y * stride + 4 * (size_t)x, &rgb, 4);
            }
        cairo_surface_mark_dirty(surf);
        tt_image_free(&pat);
        if (overlay_window_present(win, surf, &err) != TT_OK)
            goto fail;
        for (overlay_window_event we; (we = overlay_window_poll(win)) != OVERLAY_WIN_NONE;)
            if (we == OVERLAY_WIN_CLOSED || we == OVERLAY_WIN_ESC) {
                tt_err_set(&err, TT_ERR_ARG, "projector calibration stopped: the pattern window was closed");
                goto fail;
            }
        /* A camera keeps a few old frames and needs time to see the new
         * light: wait, then drop what was captured meanwhile. */
        const tt_image *f = NULL;
        double t;
        vision_frame_status fs = VISION_FRAME;
        if (live) {
            struct timespec until, now;
            clock_gettime(CLOCK_MONOTONIC, &until);
            until.tv_nsec += (long)settle_ms * 1000000L;
            until.tv_sec += until.tv_nsec / 1000000000L;
            until.tv_nsec %= 1000000000L;
            do {
                if (vision_source_next(src, &f, &t, &fs, &err) != TT_OK)
                    goto fail;
                if (fs == VISION_LOST) {
                    tt_err_set(&err, TT_ERR_DEVICE, "the camera was lost during projector calibration: plug it back "
                                                    "in and start again");
                    goto fail;
                }
                overlay_window_present(win, surf, NULL);
                clock_gettime(CLOCK_MONOTONIC, &now);
            } while (now.tv_sec < until.tv_sec || (now.tv_sec == until.tv_sec && now.tv_nsec < until.tv_nsec));
        }
        do {
            if (vision_source_next(src, &f, &t, &fs, &err) != TT_OK)
                goto fail;
        } while (fs == VISION_CORRUPT);
        if (fs != VISION_FRAME) {
            tt_err_set(&err, TT_ERR_IO, "the source ran out of frames at pattern %d of %d (%s)", i + 1, n, info.name);
            goto fail;
        }
        if (calib_rig_check_image(rig, f->width, f->height, &err) != TT_OK ||
            tt_image_alloc(&caps[i], f->width, f->height, 1, &err) != TT_OK)
            goto fail;
        for (int y = 0; y < f->height; y++)
            memcpy(caps[i].data + (size_t)y * caps[i].stride, f->data + (size_t)y * f->stride, (size_t)f->width);
        if (keep) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", keep, info.name);
            if (cvw_image_write(path, &caps[i], &err) != TT_OK)
                goto fail;
        }
    }
    overlay_window_close(win);
    win = NULL;
    cli_progress_end(&prog);
    if (calibpj__solve_report(rig, w, h, caps, n, grid, raised, out, &err) != TT_OK)
        goto fail;
    rc = fflush(stdout) == 0 ? 0 : 1;
    goto done;
fail:
    cli_progress_end(&prog);
    rc = cli_fail(CMD, &err);
done:
    if (surf)
        cairo_surface_destroy(surf);
    overlay_window_close(win);
    for (int i = 0; i < n; i++)
        tt_image_free(&caps[i]);
    free(caps);
    vision_source_destroy(src);
    calib_rig_destroy(rig);
    return rc;
}

static int calibpj__solve(const char *rigpath, const char *dir, const char *out, int w, int h, int grid,
                          const calibpj__raised *raised)
{
    tt_err err = {0};
    calib_rig *rig = NULL;
    tt_image *caps = NULL;
    cli_progress prog = {0};
    int n = 0, rc = 1;

    if (calibpj__find_size(dir, &w, &h) != 0)
        return 1;
    n = calib_projector_pattern_count(w, h);
    caps = calloc((size_t)n, sizeof *caps);
    if (!caps) {
        fprintf(stderr, "tabletrack " CMD ": out of memory\n");
        return 1;
    }
    if (calib_rig_load(rigpath, &rig, &err) != TT_OK)
        goto fail;
    /* every photo must be there before any work */
    for (int i = 0; i < n; i++) {
        calib_projector_pattern info;
        char path[4200];
        struct stat stbuf;
        calib_projector_pattern_info(w, h, i, &info, NULL);
        snprintf(path, sizeof path, "%s/%s", dir, info.name);
        if (stat(path, &stbuf) != 0) {
            tt_err_set(&err, TT_ERR_IO,
                       "missing photo %s: every one of the %d patterns needs its photo under the pattern's file name "
                       "(photograph %s)",
                       path, n, info.name);
            goto fail;
        }
    }
    cli_progress_start(&prog, "calib projector: reading photos", n);
    for (int i = 0; i < n; i++) {
        calib_projector_pattern info;
        char path[4200];
        cli_progress_update(&prog, i);
        calib_projector_pattern_info(w, h, i, &info, NULL);
        snprintf(path, sizeof path, "%s/%s", dir, info.name);
        if (cvw_image_read(path, 1, &caps[i], &err) != TT_OK)
            goto fail;
        if (calib_rig_check_image(rig, caps[i].width, caps[i].height, &err) != TT_OK) {
            tt_err_prefix(&err, "%s", path);
            goto fail;
        }
    }
    cli_progress_end(&prog);
    if (calibpj__solve_report(rig, w, h, caps, n, grid, raised, out, &err) != TT_OK)
        goto fail;
    rc = fflush(stdout) == 0 ? 0 : 1;
    goto done;
fail:
    cli_progress_end(&prog);
    rc = cli_fail(CMD, &err);
done:
    for (int i = 0; caps && i < n; i++)
        tt_image_free(&caps[i]);
    free(caps);
    calib_rig_destroy(rig);
    return rc;
}

/* Read the scenario's raised pieces first (a bad scenario fails before
 * any photo), then solve live or from the captures folder. */
static int calibpj__with_raised(const char *scenario, const char *rigpath, const char *source, const char *window,
                                const char *cap_dir, int w, int h, int grid, int settle_ms, const char *keep,
                                const char *out)
{
    calibpj__raised raised;
    tt_err err = {0};
    int rc;
    if (calibpj__raised_load(scenario, &raised, &err) != TT_OK) {
        calibpj__raised_free(&raised);
        return cli_fail(CMD, &err);
    }
    rc = cap_dir ? calibpj__solve(rigpath, cap_dir, out, w, h, grid, &raised)
                 : calibpj__live(rigpath, source, window, w, h, grid, settle_ms, keep, &raised, out);
    calibpj__raised_free(&raised);
    return rc;
}

int cmd_calib_projector(int argc, char **argv)
{
    const char *rigpath = NULL, *pat_dir = NULL, *cap_dir = NULL, *out = NULL, *source = NULL, *window = NULL,
               *keep = NULL, *scenario = NULL;
    int w = 0, h = 0, grid = 1, live = 0, settle_ms = 400;
    const cli_spec *S = &cli_spec_calib_projector;
    cli_args args;
    const char *a, *v;
    int k;
    cli_args_init(&args, S, argc, argv);
    while ((k = cli_args_next(&args, &a, &v)) != CLI_END) {
        if (k == CLI_STOP)
            return args.rc;
        if (k == CLI_POSITIONAL)
            return cli_spec_usage(S, "unexpected argument '%s'", v);
        if (!strcmp(a, "--no-grid"))
            grid = 0;
        else if (!strcmp(a, "--live"))
            live = 1;
        else if (!strcmp(a, "--source"))
            source = v;
        else if (!strcmp(a, "--window"))
            window = v;
        else if (!strcmp(a, "--keep-captures"))
            keep = v;
        else if (!strcmp(a, "--scenario"))
            scenario = v;
        else if (!strcmp(a, "--settle-ms")) {
            if (!cli_int(v, 0, 10000, &settle_ms))
                return cli_spec_usage(S, "--settle-ms takes 0 to 10000 milliseconds (got '%s')", v);
        } else if (!strcmp(a, "--rig"))
            rigpath = v;
        else if (!strcmp(a, "--patterns-out"))
            pat_dir = v;
        else if (!strcmp(a, "--captures"))
            cap_dir = v;
        else if (!strcmp(a, "--out"))
            out = v;
        else if (!calibpj__int(v, !strcmp(a, "--width") ? &w : &h))
            return cli_spec_usage(S, "%s must be a whole number of pixels from 64 to %d (got '%s')", a,
                                  CALIB_PROJECTOR_MAX_SIDE, v);
    }
    if (!rigpath)
        return cli_spec_usage(S, "no --rig given");
    if (live) {
        if (pat_dir || cap_dir)
            return cli_spec_usage(S, "--live shows and photographs the patterns itself: no --patterns-out/--captures");
        if (!source || !window || !out || w == 0 || h == 0)
            return cli_spec_usage(S, "--live needs --source, --window, --width, --height and --out");
        return calibpj__with_raised(scenario, rigpath, source, window, NULL, w, h, grid, settle_ms, keep, out);
    }
    if (pat_dir && cap_dir)
        return cli_spec_usage(S, "give either --patterns-out (write the patterns) or --captures (solve), not both");
    if (!pat_dir && !cap_dir)
        return cli_spec_usage(S, "say what to do: --patterns-out DIR (write the patterns) or --captures DIR (solve)");
    if ((w > 0) != (h > 0))
        return cli_spec_usage(S, "give both --width and --height");
    if (pat_dir) {
        if (scenario)
            return cli_spec_usage(S, "--scenario goes with --captures or --live (the solve)");
        if (w == 0)
            return cli_spec_usage(S, "--patterns-out needs the projector's --width and --height in pixels");
        if (out)
            return cli_spec_usage(S, "--out goes with --captures");
        tt_err err = {0};
        calib_rig *rig = NULL;
        if (calib_rig_load(rigpath, &rig, &err) != TT_OK)
            return cli_fail(CMD, &err);
        calib_rig_destroy(rig);
        return calibpj__write_patterns(pat_dir, w, h);
    }
    if (!out)
        return cli_spec_usage(S, "no --out given (where to write projector.json)");
    return calibpj__with_raised(scenario, rigpath, NULL, NULL, cap_dir, w, h, grid, settle_ms, NULL, out);
}
