/* make_board_photos.c - renders samples/board-photos: photos of the printed
 * calibration board (samples/board.json) lying on a table, as the sample
 * table's camera (samples/table/camera.yaml: a 4K webcam, f 2900 px, k1
 * -0.08, k2 0.02) takes them from six places, tilted 0-35 degrees, so that
 * the README's step 3 ('tabletrack calib camera') can be tried without a
 * camera, and gives back that camera.
 *   tt-make-board-photos BOARD.json OUT_DIR [EXT]
 * writes OUT_DIR/board-1.EXT ... board-6.EXT (EXT jpg, the default, or png). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "cvwrap.h"
#include "render.h"

#define W 3840
#define H 2160
#define F_PX 2900.0
#define K1 -0.08
#define K2 0.02

int main(int argc, char **argv)
{
    const char *ext = argc > 3 ? argv[3] : "jpg";
    if (argc < 3 || argc > 4 || (strcmp(ext, "png") && strcmp(ext, "jpg"))) {
        fprintf(stderr, "usage: tt-make-board-photos BOARD.json OUT_DIR [jpg|png]\n");
        return 2;
    }
    calib_board b;
    tt_err err = {0};
    if (calib_board_load(argv[1], &b, &err) != TT_OK) {
        fprintf(stderr, "tt-make-board-photos: %s\n", err.msg);
        return 1;
    }
    int nt = calib_board_ntags(&b);
    rnd_tag *tags = calloc((size_t)nt, sizeof *tags);
    if (!tags)
        return 1;
    /* the board's origin 1" in from the sheet's corner; the sheet is the
     * scene's "table" (white paper), what lies around it the darker table */
    const double ox = 1.0, oy = 1.0;
    for (int t = 0; t < nt; t++) {
        double c[4][3];
        calib_board_tag_corners(&b, t, c);
        snprintf(tags[t].family, sizeof tags[t].family, "%s", b.family);
        tags[t].id = b.first_id + t;
        tags[t].x = ox + (c[0][0] + c[2][0]) / 2;
        tags[t].y = oy + (c[0][1] + c[2][1]) / 2;
        tags[t].size_in = b.tag_size_in;
        tags[t].facing_deg = -90; /* printed top edge toward the top of the page */
    }
    double bw = b.columns * b.tag_size_in + (b.columns - 1) * b.spacing_in;
    double bh = b.rows * b.tag_size_in + (b.rows - 1) * b.spacing_in;
    rnd_scene sc;
    memset(&sc, 0, sizeof sc);
    sc.width_in = bw + 2 * ox;
    sc.depth_in = bh + 2 * oy;
    sc.felt_gray = 235;
    sc.floor_gray = 90;
    sc.tags = tags;
    sc.ntags = nt;
    sc.light_gradient = 0.0; /* even light: the PNGs stay small */
    sc.ambient = 1.0;
    sc.blur_sigma_px = 0.8;
    sc.noise_sigma = 0.0; /* noise would make each JPEG 1 MB */
    sc.supersample = 2;
    /* where the camera stands, from the board's centre (x, y, height),
     * inches: straight above, and tilted toward each side */
    const double cx = ox + bw / 2, cy = oy + bh / 2;
    const double eyes[][3] = {{0, 0, 16}, {9, 0, 13.5}, {-9, 0.5, 13.5}, {0, 8.5, 13.5}, {0.5, -8.5, 13.5},
                              {6.5, 6.5, 14}};
    int rc = 0;
    for (int v = 0; v < (int)(sizeof eyes / sizeof eyes[0]) && !rc; v++) {
        rnd_camera cam;
        tt_image im = {0};
        char path[4096];
        sc.seed = 100u + (unsigned)v;
        rnd_camera_look_at(&cam, W, H, F_PX, K1, K2, cx + eyes[v][0], cy + eyes[v][1], eyes[v][2], cx, cy);
        snprintf(path, sizeof path, "%s/board-%d.%s", argv[2], v + 1, ext);
        if (rnd_render(&sc, &cam, &im, &err) != TT_OK || cvw_image_write(path, &im, &err) != TT_OK) {
            fprintf(stderr, "tt-make-board-photos: %s\n", err.msg);
            rc = 1;
        } else {
            printf("%s\n", path);
        }
        tt_image_free(&im);
    }
    free(tags);
    return rc;
}
