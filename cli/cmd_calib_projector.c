/* cmd_calib_projector.c - 'tabletrack calib projector': write the pattern
 * images (--patterns-out) or solve projector.json from camera photos of
 * them (--captures). */
#include "cmd_calib_projector.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "calib.h"
#include "cli.h"
#include "cvwrap.h"
#include "projector.h"

static const char *USAGE =
    "tabletrack calib projector --rig RIG --width W --height H --patterns-out DIR\n"
    "       tabletrack calib projector --rig RIG --captures DIR --out projector.json [--width W --height H] "
    "[--no-grid]";

#define CMD "calib projector"

static int calibpj__int(const char *s, int *out)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 64 || v > CALIB_PROJECTOR_MAX_SIDE)
        return 0;
    *out = (int)v;
    return 1;
}

static int calibpj__write_patterns(const char *dir, int w, int h)
{
    tt_err err = {0};
    int n = calib_projector_pattern_count(w, h);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "tabletrack " CMD ": cannot make folder %s: %s\n", dir, strerror(errno));
        return 1;
    }
    for (int i = 0; i < n; i++) {
        calib_projector_pattern info;
        tt_image im = {0};
        char path[4200];
        calib_projector_pattern_info(w, h, i, &info, NULL);
        if (snprintf(path, sizeof path, "%s/%s", dir, info.name) >= (int)sizeof path) {
            fprintf(stderr, "tabletrack " CMD ": folder name too long: %s\n", dir);
            return 1;
        }
        tt_status st = calib_projector_pattern_render(w, h, i, &im, &err);
        if (st == TT_OK)
            st = cvw_image_write(path, &im, &err);
        tt_image_free(&im);
        if (st != TT_OK)
            return cli_fail(CMD, &err);
    }
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

static int calibpj__solve(const char *rigpath, const char *dir, const char *out, int w, int h, int grid)
{
    tt_err err = {0};
    calib_rig *rig = NULL;
    calib_projector *pj = NULL;
    calib_projector_report rep;
    calib_projector_opts opts;
    tt_image *caps = NULL;
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
    for (int i = 0; i < n; i++) {
        calib_projector_pattern info;
        char path[4200];
        calib_projector_pattern_info(w, h, i, &info, NULL);
        snprintf(path, sizeof path, "%s/%s", dir, info.name);
        if (cvw_image_read(path, 1, &caps[i], &err) != TT_OK)
            goto fail;
        if (calib_rig_check_image(rig, caps[i].width, caps[i].height, &err) != TT_OK) {
            tt_err_prefix(&err, "%s", path);
            goto fail;
        }
    }
    calib_projector_opts_default(&opts);
    opts.correction_grid = grid;
    if (calib_projector_solve(rig, w, h, caps, n, &opts, &pj, &rep, &err) != TT_OK)
        goto fail;
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
    if (rep.rms_px > 1.0)
        fprintf(stderr,
                "warning: residual %.2f px is high: is the mat flat, the projector focused, and did anything move "
                "between photos?\n",
                rep.rms_px);
    if (calib_projector_save(pj, out, &err) != TT_OK)
        goto fail;
    printf("wrote %s\n", out);
    rc = fflush(stdout) == 0 ? 0 : 1;
    goto done;
fail:
    rc = cli_fail(CMD, &err);
done:
    for (int i = 0; caps && i < n; i++)
        tt_image_free(&caps[i]);
    free(caps);
    calib_projector_destroy(pj);
    calib_rig_destroy(rig);
    return rc;
}

int cmd_calib_projector(int argc, char **argv)
{
    const char *rigpath = NULL, *pat_dir = NULL, *cap_dir = NULL, *out = NULL;
    int w = 0, h = 0, grid = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: %s\n", USAGE);
            return 0;
        }
        if (!strcmp(a, "--no-grid")) {
            grid = 0;
            continue;
        }
        if (!strcmp(a, "--rig") || !strcmp(a, "--width") || !strcmp(a, "--height") || !strcmp(a, "--patterns-out") ||
            !strcmp(a, "--captures") || !strcmp(a, "--out")) {
            if (i + 1 >= argc || !argv[i + 1][0])
                return cli_usage(CMD, USAGE, "missing value for %s", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--rig"))
                rigpath = v;
            else if (!strcmp(a, "--patterns-out"))
                pat_dir = v;
            else if (!strcmp(a, "--captures"))
                cap_dir = v;
            else if (!strcmp(a, "--out"))
                out = v;
            else if (!calibpj__int(v, !strcmp(a, "--width") ? &w : &h))
                return cli_usage(CMD, USAGE, "%s must be a whole number of pixels from 64 to %d (got '%s')", a,
                                 CALIB_PROJECTOR_MAX_SIDE, v);
            continue;
        }
        return cli_usage(CMD, USAGE, "unknown option %s", a);
    }
    if (!rigpath)
        return cli_usage(CMD, USAGE, "no --rig given");
    if (pat_dir && cap_dir)
        return cli_usage(CMD, USAGE, "give either --patterns-out (write the patterns) or --captures (solve), not both");
    if (!pat_dir && !cap_dir)
        return cli_usage(CMD, USAGE, "say what to do: --patterns-out DIR (write the patterns) or --captures DIR (solve)");
    if ((w > 0) != (h > 0))
        return cli_usage(CMD, USAGE, "give both --width and --height");
    if (pat_dir) {
        if (w == 0)
            return cli_usage(CMD, USAGE, "--patterns-out needs the projector's --width and --height in pixels");
        if (out)
            return cli_usage(CMD, USAGE, "--out goes with --captures");
        tt_err err = {0};
        calib_rig *rig = NULL;
        if (calib_rig_load(rigpath, &rig, &err) != TT_OK)
            return cli_fail(CMD, &err);
        calib_rig_destroy(rig);
        return calibpj__write_patterns(pat_dir, w, h);
    }
    if (!out)
        return cli_usage(CMD, USAGE, "no --out given (where to write projector.json)");
    return calibpj__solve(rigpath, cap_dir, out, w, h, grid);
}
