/* tt_render_main.c - tt-render: write a synthetic table scene to a folder
 * (frame.png or frame.pgm, rig.json, camera.yaml, truth.json) for tests,
 * benchmarks and demos.  Run `tt-render --help` for the options. */
#include "render.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cairo.h>

typedef struct opts {
    const char *out, *format;
    int width, height, anchors, bases, hands, supersample;
    double f_px, k1, k2, eye_height, tilt_deg, base_size, base_height_mm, blur, noise, gradient, ambient;
    int felt_gray, floor_gray;
    unsigned seed;
    int quiet;
    rnd_piece pieces[8]; /* --hill / --building */
    int npieces;
    double table_w, table_d; /* --table W,D */
    int cameras;             /* --cameras N: side by side along x */
    double overlap;          /* --overlap IN */
} opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tt-render --out DIR [options]\n"
            "Writes DIR/frame.png (or .pgm), DIR/rig.json, DIR/camera.yaml, DIR/truth.json.\n"
            "  --width W --height H     image size (3840 x 2160)\n"
            "  --f-px F                 focal length in pixels (2900)\n"
            "  --k1 K1 --k2 K2          radial distortion (-0.08, 0.02)\n"
            "  --eye-height IN          camera height above the felt (84)\n"
            "  --tilt-deg DEG           camera moved toward -y, looking at the table centre (8)\n"
            "  --anchors N              anchor tags, 4..8 (4)\n"
            "  --bases N                base tags (120)\n"
            "  --base-size IN           base tag size (0.8)\n"
            "  --base-height-mm MM      base height (3)\n"
            "  --blur PX                Gaussian blur sigma (0.6)\n"
            "  --noise SIGMA            sensor noise, gray levels (2)\n"
            "  --gradient G             light falloff toward the far corner (0.25)\n"
            "  --ambient A              light level (1)\n"
            "  --felt-gray V --floor-gray V  albedos (90, 40)\n"
            "  --hands N                occluding hands (0)\n"
            "  --hill X0,Y0,X1,Y1,H[,S] a hill: flat top X0..X1 x Y0..Y1 at H inches, sides sloping to the\n"
            "                           felt over S inches (0: vertical); bases on it stand on it (up to 8)\n"
            "  --building X0,Y0,X1,Y1,H a building with a flat roof (vertical walls)\n"
            "  --table W,D              table size in inches (72,48)\n"
            "  --cameras N              N cameras side by side along x, straight down, each over its strip\n"
            "                           (1..8; 1 = the single tilted camera above): frameK, cameraK.yaml,\n"
            "                           truthK.json, and rig.json with \"cameras\"\n"
            "  --overlap IN             how far neighbouring frames overlap, inches (10; < 0: a gap)\n"
            "  --seed S                 scene and noise seed (1)\n"
            "  --supersample N          samples per pixel edge, 1..8 (3)\n"
            "  --out-format png|pgm     image format (png)\n"
            "  --quiet                  no summary on stderr\n");
}

static int parse_num(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || errno || end == s || *end || !(v >= lo && v <= hi)) {
        fprintf(stderr, "tt-render: %s needs a number in %g..%g (got '%s')\n", opt, lo, hi, s ? s : "nothing");
        return 0;
    }
    *out = v;
    return 1;
}

/* "X0,Y0,X1,Y1,H[,S]" -> a rectangular piece */
static int parse_piece(const char *opt, const char *s, int slope_ok, opts *o)
{
    double v[6] = {0};
    int n = 0, used = 0;
    if (o->npieces >= (int)(sizeof o->pieces / sizeof o->pieces[0])) {
        fprintf(stderr, "tt-render: at most 8 hills and buildings\n");
        return 0;
    }
    while (s && n < 6 && sscanf(s, "%lf%n", &v[n], &used) == 1) {
        n++;
        s += used;
        if (*s != ',')
            break;
        s++;
    }
    if (!s || *s || n < 5 || (n == 6 && !slope_ok) || !(v[2] > v[0] && v[3] > v[1]) || !(v[4] > 0 && v[4] < 100) ||
        !(v[5] >= 0 && v[5] < 100)) {
        fprintf(stderr, "tt-render: %s needs X0,Y0,X1,Y1,H%s with X1 > X0, Y1 > Y0, 0 < H < 100%s\n", opt,
                slope_ok ? "[,S]" : "", slope_ok ? " and 0 <= S < 100" : "");
        return 0;
    }
    rnd_piece *p = &o->pieces[o->npieces++];
    memset(p, 0, sizeof *p);
    const double c[4][2] = {{v[0], v[1]}, {v[2], v[1]}, {v[2], v[3]}, {v[0], v[3]}};
    memcpy(p->pts, c, sizeof c);
    p->npts = 4;
    p->height_in = v[4];
    p->slope_in = v[5];
    p->gray = slope_ok ? 110 : 150;
    return 1;
}

static int parse_args(int argc, char **argv, opts *o)
{
    *o = (opts){.format = "png", .width = 3840, .height = 2160, .anchors = 4, .bases = 120, .supersample = 3,
                .f_px = 2900, .k1 = -0.08, .k2 = 0.02, .eye_height = 84, .tilt_deg = 8, .base_size = 0.8,
                .base_height_mm = 3, .blur = 0.6, .noise = 2, .gradient = 0.25, .ambient = 1, .felt_gray = 90,
                .floor_gray = 40, .seed = 1, .table_w = 72, .table_d = 48, .cameras = 1, .overlap = 10};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        double d;
#define NUM(name, lo, hi, dst)                                                                                       \
    if (!strcmp(a, name)) {                                                                                          \
        if (!parse_num(name, v, lo, hi, &d))                                                                         \
            return 0;                                                                                                \
        dst;                                                                                                         \
        i++;                                                                                                         \
        continue;                                                                                                    \
    }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        }
        if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        if (!strcmp(a, "--hill") || !strcmp(a, "--building")) {
            if (!parse_piece(a, v, !strcmp(a, "--hill"), o))
                return 0;
            i++;
            continue;
        }
        if (!strcmp(a, "--table")) {
            char *end = NULL;
            o->table_w = v ? strtod(v, &end) : 0;
            o->table_d = end && *end == ',' ? strtod(end + 1, &end) : 0;
            if (!end || *end || !(o->table_w >= 12 && o->table_w <= 1000 && o->table_d >= 12 && o->table_d <= 1000)) {
                fprintf(stderr, "tt-render: --table needs W,D in inches, each 12..1000 (got '%s')\n", v ? v : "");
                return 0;
            }
            i++;
            continue;
        }
        if (!strcmp(a, "--out") || !strcmp(a, "--out-format")) {
            if (!v) {
                fprintf(stderr, "tt-render: %s needs a value\n", a);
                return 0;
            }
            if (!strcmp(a, "--out"))
                o->out = v;
            else
                o->format = v;
            i++;
            continue;
        }
        NUM("--width", 16, 16384, o->width = (int)d)
        NUM("--height", 16, 16384, o->height = (int)d)
        NUM("--f-px", 1, 1e6, o->f_px = d)
        NUM("--k1", -2, 2, o->k1 = d)
        NUM("--k2", -2, 2, o->k2 = d)
        NUM("--eye-height", 1, 1e4, o->eye_height = d)
        NUM("--tilt-deg", 0, 80, o->tilt_deg = d)
        NUM("--anchors", 0, 8, o->anchors = (int)d)
        NUM("--bases", 0, 2000, o->bases = (int)d)
        NUM("--base-size", 0.05, 20, o->base_size = d)
        NUM("--base-height-mm", 0, 200, o->base_height_mm = d)
        NUM("--blur", 0, 50, o->blur = d)
        NUM("--noise", 0, 255, o->noise = d)
        NUM("--gradient", 0, 1, o->gradient = d)
        NUM("--ambient", 0, 10, o->ambient = d)
        NUM("--felt-gray", 0, 255, o->felt_gray = (int)d)
        NUM("--floor-gray", 0, 255, o->floor_gray = (int)d)
        NUM("--hands", 0, 100, o->hands = (int)d)
        NUM("--seed", 0, 4294967295.0, o->seed = (unsigned)d)
        NUM("--cameras", 1, 8, o->cameras = (int)d)
        NUM("--overlap", -100, 100, o->overlap = d)
        NUM("--supersample", 1, 8, o->supersample = (int)d)
#undef NUM
        fprintf(stderr, "tt-render: unknown option '%s' (see --help)\n", a);
        return 0;
    }
    if (!o->out) {
        fprintf(stderr, "tt-render: --out DIR is required (see --help)\n");
        return 0;
    }
    if (strcmp(o->format, "png") && strcmp(o->format, "pgm")) {
        fprintf(stderr, "tt-render: --out-format must be png or pgm (got '%s')\n", o->format);
        return 0;
    }
    return 1;
}

static tt_status write_pgm(const tt_image *im, const char *path, tt_err *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return tt_err_set(err, TT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    fprintf(f, "P5\n%d %d\n255\n", im->width, im->height);
    for (int j = 0; j < im->height; j++)
        fwrite(im->data + (size_t)j * im->stride, 1, (size_t)im->width, f);
    if (fclose(f) != 0)
        return tt_err_set(err, TT_ERR_IO, "error writing %s: %s", path, strerror(errno));
    return TT_OK;
}

/* cairo writes an A8 surface as an 8-bit gray PNG */
static tt_status write_png(const tt_image *im, const char *path, tt_err *err)
{
    int stride = cairo_format_stride_for_width(CAIRO_FORMAT_A8, im->width);
    unsigned char *buf = malloc((size_t)stride * (size_t)im->height);
    if (!buf)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory writing %s", path);
    for (int j = 0; j < im->height; j++)
        memcpy(buf + (size_t)j * stride, im->data + (size_t)j * im->stride, (size_t)im->width);
    cairo_surface_t *s = cairo_image_surface_create_for_data(buf, CAIRO_FORMAT_A8, im->width, im->height, stride);
    cairo_status_t cs = cairo_surface_write_to_png(s, path);
    cairo_surface_destroy(s);
    free(buf);
    if (cs != CAIRO_STATUS_SUCCESS)
        return tt_err_set(err, TT_ERR_IO, "cannot write %s: %s", path, cairo_status_to_string(cs));
    return TT_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void summary(const opts *o, const rnd_camera *cam, double W, double D, int nanchors, int ntags, double secs)
{
    double c[2], px[2], mid[2] = {-cam->tvec[0], -cam->tvec[1]};
    if (o->cameras > 1) /* straight down: the point below the camera */
        rnd_unproject(cam, (cam->width - 1) * 0.5, (cam->height - 1) * 0.5, 0, mid);
    else
        mid[0] = W / 2, mid[1] = D / 2;
    rnd_project(cam, mid[0], mid[1], 0, c);
    rnd_project(cam, mid[0] + 1, mid[1], 0, px);
    fprintf(stderr, "tt-render: %dx%d, %d anchors + %d bases, %d hands, %.1f px/in at (%.0f, %.0f), rendered in %.2f s\n",
            o->width, o->height, nanchors, ntags - nanchors, o->hands, hypot(px[0] - c[0], px[1] - c[1]), mid[0],
            mid[1], secs);
    const double corner[4][2] = {{0, 0}, {W, 0}, {W, D}, {0, D}};
    for (int k = 0; k < 4 && o->cameras == 1; k++)
        if (!rnd_project(cam, corner[k][0], corner[k][1], 0, px) || px[0] < -0.5 || px[1] < -0.5 ||
            px[0] > o->width - 0.5 || px[1] > o->height - 0.5)
            fprintf(stderr, "tt-render: note: table corner (%g, %g) is outside the frame\n", corner[k][0], corner[k][1]);
}

int main(int argc, char **argv)
{
    opts o;
    tt_err err = {0};
    tt_status st = TT_OK;
    rnd_tag *tags = NULL;
    rnd_occluder *hands = NULL;
    tt_image im = {0};
    char path[4096];
    if (!parse_args(argc, argv, &o)) {
        usage(stderr);
        return 2;
    }
    if (mkdir(o.out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "tt-render: cannot create folder %s: %s\n", o.out, strerror(errno));
        return 1;
    }
    const double W = o.table_w, D = o.table_d;
    rnd_camera cams[8];
    int ncams = o.cameras;
    double tilt = o.tilt_deg * M_PI / 180;
    if (ncams == 1)
        rnd_camera_look_at(&cams[0], o.width, o.height, o.f_px, o.k1, o.k2, W / 2, D / 2 - o.eye_height * tan(tilt),
                           o.eye_height, W / 2, D / 2);
    else if (!rnd_cameras_side_by_side(cams, ncams, W, D, o.overlap, o.width, o.height, o.f_px, o.k1, o.k2)) {
        fprintf(stderr, "tt-render: --overlap %g leaves the %d cameras nothing to see of a %g\" wide table\n",
                o.overlap, ncams, W);
        return 2;
    }

    int nanchors = o.anchors;
    tags = calloc((size_t)(nanchors + o.bases + 1), sizeof *tags);
    hands = calloc((size_t)o.hands + 1, sizeof *hands);
    if (!tags || !hands) {
        fprintf(stderr, "tt-render: out of memory\n");
        return 1;
    }
    int ntags = rnd_standard_tags(tags, nanchors, o.bases, o.base_size, o.base_height_mm, W, D, o.seed);
    if (ntags < nanchors + o.bases)
        fprintf(stderr, "tt-render: warning: only %d of %d bases fit on the table\n", ntags - nanchors, o.bases);
    uint64_t rng = rnd_rng_seed(o.seed ^ 0x5eed4a4du);
    for (int i = 0; i < o.hands; i++) {
        rnd_occluder *h = &hands[i];
        h->x = 4 + rnd_rng_uniform(&rng) * (W - 8);
        h->y = 4 + rnd_rng_uniform(&rng) * (D - 8);
        h->height_in = 2 + 3 * rnd_rng_uniform(&rng);
        h->rx = 1.5 + 0.7 * rnd_rng_uniform(&rng);
        h->ry = 3 + 1.0 * rnd_rng_uniform(&rng);
        h->angle_deg = 360 * rnd_rng_uniform(&rng);
        h->gray = (uint8_t)(150 + 40 * rnd_rng_uniform(&rng));
    }
    rnd_scene sc = {.width_in = W, .depth_in = D, .felt_gray = (uint8_t)o.felt_gray,
                    .floor_gray = (uint8_t)o.floor_gray, .tags = tags, .ntags = ntags, .occluders = hands,
                    .noccluders = o.hands, .light_gradient = o.gradient, .ambient = o.ambient,
                    .blur_sigma_px = o.blur, .noise_sigma = o.noise, .supersample = o.supersample, .seed = o.seed,
                    .pieces = o.pieces, .npieces = o.npieces};
    for (int i = nanchors; i < ntags; i++) /* bases stand on the hills (tilted on their slopes) */
        rnd_place_on_ground(&sc, &tags[i], o.base_height_mm / 25.4);

    char yaml[8][32];
    const char *yamls[8];
    double t0 = now_s(), t1 = t0;
    for (int k = 0; k < ncams; k++) {
        const rnd_camera *cam = &cams[k];
        char suffix[16] = "";
        if (ncams > 1)
            snprintf(suffix, sizeof suffix, "%d", k);
        snprintf(yaml[k], sizeof yaml[k], "camera%s.yaml", suffix);
        yamls[k] = yaml[k];
        t0 = now_s();
        tt_image_free(&im);
        if ((st = rnd_render(&sc, cam, &im, &err)) != TT_OK)
            goto fail;
        t1 = now_s();
        snprintf(path, sizeof path, "%s/frame%s.%s", o.out, suffix, o.format);
        if ((st = (!strcmp(o.format, "pgm") ? write_pgm : write_png)(&im, path, &err)) != TT_OK)
            goto fail;
        snprintf(path, sizeof path, "%s/%s", o.out, yaml[k]);
        if ((st = rnd_write_camera_yaml(cam, path, &err)) != TT_OK)
            goto fail;
        snprintf(path, sizeof path, "%s/truth%s.json", o.out, suffix);
        if ((st = rnd_write_truth(path, &sc, cam, nanchors, &err)) != TT_OK)
            goto fail;
        if (!o.quiet)
            summary(&o, cam, W, D, nanchors, ntags, t1 - t0);
    }
    snprintf(path, sizeof path, "%s/rig.json", o.out);
    if ((st = rnd_write_rig_cameras(path, yamls, NULL, ncams > 1 ? ncams : 0, &sc, nanchors, o.base_size,
                                    o.base_height_mm, &err)) != TT_OK)
        goto fail;
    tt_image_free(&im);
    free(tags);
    free(hands);
    return 0;
fail:
    fprintf(stderr, "tt-render: %s\n", err.msg);
    tt_image_free(&im);
    free(tags);
    free(hands);
    return 1;
}
