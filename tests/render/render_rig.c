/* render_rig.c - the standard test rig (anchors + random base tags) and the
 * files a rendered scene comes with: rig.json and camera.yaml. */
#include "render_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* ---- deterministic random numbers (xorshift64*) ---- */

uint64_t rnd_rng_seed(unsigned seed)
{
    uint64_t z = (uint64_t)seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return z ? z : 0x2545F4914F6CDD1Dull;
}

double rnd_rng_uniform(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return ((x * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

/* Radius of the circle (table xy) that holds a tag's print and base. */
static double rnd__footprint(const rnd_tag *t)
{
    int tw = 10, wb = 8;
    rnd__family_widths(t->family, &tw, &wb);
    return fmax(t->size_in * tw / wb * 0.5 * M_SQRT2, t->base_radius_in);
}

double rnd_standard_base_radius(double size_in)
{
    /* a round base a little wider than the printed tag36h11 (10/8 of
     * size_in): the print's corners overhang slightly, as paper on a base */
    return size_in * 10.0 / 8.0 * 0.6;
}

int rnd_standard_tags(rnd_tag *tags, int nanchors, int nbases, double size_in, double base_height_mm,
                      double width_in, double depth_in, unsigned seed)
{
    if (!tags || nanchors < 0 || nbases < 0)
        return 0;
    if (nanchors > 8)
        nanchors = 8;
    const double a = 2.5; /* anchor centre distance from the edges */
    const double pos[8][2] = {{a, a},
                              {width_in - a, a},
                              {width_in - a, depth_in - a},
                              {a, depth_in - a},
                              {width_in * 0.5, a},
                              {width_in * 0.5, depth_in - a},
                              {a, depth_in * 0.5},
                              {width_in - a, depth_in * 0.5}};
    int n = 0;
    for (int i = 0; i < nanchors; i++, n++) {
        memset(&tags[n], 0, sizeof tags[n]);
        snprintf(tags[n].family, sizeof tags[n].family, "tag36h11");
        tags[n].id = i;
        tags[n].x = pos[i][0];
        tags[n].y = pos[i][1];
        tags[n].size_in = 2.4;
        tags[n].facing_deg = -90;
    }
    uint64_t rng = rnd_rng_seed(seed);
    double h = base_height_mm / 25.4;
    double br = rnd_standard_base_radius(size_in);
    for (int b = 0; b < nbases; b++) {
        rnd_tag t;
        memset(&t, 0, sizeof t);
        snprintf(t.family, sizeof t.family, "tag36h11");
        t.id = 100 + b;
        t.height_in = h;
        t.size_in = size_in;
        t.base_radius_in = br;
        double fr = rnd__footprint(&t), gap = 0.1;
        int placed = 0;
        for (int attempt = 0; attempt < 20000 && !placed; attempt++) {
            t.x = fr + 0.25 + rnd_rng_uniform(&rng) * (width_in - 2 * fr - 0.5);
            t.y = fr + 0.25 + rnd_rng_uniform(&rng) * (depth_in - 2 * fr - 0.5);
            /* facing in (-180, 180], two decimals */
            t.facing_deg = (18000 - floor(rnd_rng_uniform(&rng) * 36000)) / 100.0;
            placed = 1;
            for (int k = 0; k < n && placed; k++) {
                double dmin = rnd__footprint(&tags[k]) + fr + gap;
                double dx = tags[k].x - t.x, dy = tags[k].y - t.y;
                if (dx * dx + dy * dy < dmin * dmin)
                    placed = 0;
            }
        }
        if (!placed)
            break; /* the table is full */
        tags[n++] = t;
    }
    return n;
}

/* ---- camera.yaml ---- */

/* Shortest decimal that reads back as exactly v, always with a '.' or an
 * exponent so FileStorage sees a real. */
static void rnd__fmt_double(char *buf, size_t n, double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (!strpbrk(buf, ".eEn"))
        strncat(buf, ".", n - strlen(buf) - 1);
}

static void rnd__yaml_matrix(FILE *f, const char *name, int rows, int cols, const double *data)
{
    char num[64];
    fprintf(f, "%s: !!opencv-matrix\n   rows: %d\n   cols: %d\n   dt: d\n   data: [ ", name, rows, cols);
    for (int i = 0; i < rows * cols; i++) {
        rnd__fmt_double(num, sizeof num, data[i]);
        fprintf(f, "%s%s", num, i + 1 < rows * cols ? ", " : " ]\n");
    }
}

tt_status rnd_write_camera_yaml(const rnd_camera *cam, const char *path, tt_err *err)
{
    if (!cam || !path)
        return tt_err_set(err, TT_ERR_ARG, "rnd_write_camera_yaml: camera and path are required");
    FILE *f = fopen(path, "w");
    if (!f)
        return tt_err_set(err, TT_ERR_IO, "cannot write %s: %s (is the folder there and writable?)", path,
                          strerror(errno));
    fprintf(f, "%%YAML:1.0\n---\n");
    fprintf(f, "image_width: %d\nimage_height: %d\n", cam->width, cam->height);
    rnd__yaml_matrix(f, "camera_matrix", 3, 3, cam->K);
    rnd__yaml_matrix(f, "distortion_coefficients", 5, 1, cam->dist);
    if (fclose(f) != 0)
        return tt_err_set(err, TT_ERR_IO, "error writing %s: %s (disk full?)", path, strerror(errno));
    return TT_OK;
}

/* ---- rig.json ---- */

static tt_status rnd__json_dump(json_t *root, const char *path, tt_err *err)
{
    if (!root)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory building %s", path);
    int rc = json_dump_file(root, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    json_decref(root);
    if (rc != 0)
        return tt_err_set(err, TT_ERR_IO, "cannot write %s (is the folder there and writable?)", path);
    return TT_OK;
}

tt_status rnd_write_rig(const char *path, const char *camera_yaml_name, const rnd_scene *scene, int nanchors,
                        double base_size_in, double base_height_mm, tt_err *err)
{
    return rnd_write_rig_cameras(path, &camera_yaml_name, NULL, 0, scene, nanchors, base_size_in, base_height_mm,
                                 err);
}

/* ncams = 0: the single "camera" form, names[0] */
tt_status rnd_write_rig_cameras(const char *path, const char *const *camera_yaml_names, const char *const *sources,
                                int ncams, const rnd_scene *scene, int nanchors, double base_size_in,
                                double base_height_mm, tt_err *err)
{
    const char *camera_yaml_name = camera_yaml_names ? camera_yaml_names[0] : NULL;
    for (int k = 0; k < ncams; k++)
        if (!camera_yaml_names[k])
            camera_yaml_name = NULL;
    if (!path || !camera_yaml_name || !scene || nanchors < 0 || nanchors > scene->ntags || ncams < 0)
        return tt_err_set(err, TT_ERR_ARG, "rnd_write_rig: path, camera name and a scene with >= %d tags needed",
                          nanchors);
    json_t *root = json_object();
    json_t *table = json_object(), *anchors = json_array(), *bases = json_object(), *fams = json_array();
    if (!root || !table || !anchors || !bases || !fams) {
        json_decref(root);
        json_decref(table);
        json_decref(anchors);
        json_decref(bases);
        json_decref(fams);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory building %s", path);
    }
    json_object_set_new(table, "width_in", json_real(scene->width_in));
    json_object_set_new(table, "depth_in", json_real(scene->depth_in));
    json_object_set_new(root, "table", table);
    if (ncams == 0)
        json_object_set_new(root, "camera", json_string(camera_yaml_name));
    else {
        json_t *cams = json_array();
        for (int k = 0; k < ncams; k++) {
            json_t *c = json_pack("{s:s}", "camera", camera_yaml_names[k]);
            if (c && sources && sources[k])
                json_object_set_new(c, "source", json_string(sources[k]));
            json_array_append_new(cams, c);
        }
        json_object_set_new(root, "cameras", cams);
    }
    for (int i = 0; i < nanchors; i++) {
        const rnd_tag *t = &scene->tags[i];
        json_array_append_new(anchors, json_pack("{s:s, s:i, s:f, s:f, s:f}", "family", t->family, "id", t->id, "x",
                                                 t->x, "y", t->y, "size_in", t->size_in));
    }
    json_object_set_new(root, "anchors", anchors);
    for (int i = nanchors; i < scene->ntags; i++) {
        int seen = 0;
        for (size_t k = 0; k < json_array_size(fams) && !seen; k++)
            seen = !strcmp(json_string_value(json_array_get(fams, k)), scene->tags[i].family);
        if (!seen)
            json_array_append_new(fams, json_string(scene->tags[i].family));
    }
    if (json_array_size(fams) == 0)
        json_array_append_new(fams, json_string("tag36h11"));
    json_object_set_new(bases, "families", fams);
    json_object_set_new(bases, "size_in", json_real(base_size_in));
    json_object_set_new(bases, "height_mm", json_real(base_height_mm));
    json_object_set_new(root, "bases", bases);
    return rnd__json_dump(root, path, err);
}

tt_status rnd_write_truth(const char *path, const rnd_scene *scene, const rnd_camera *cam, int nanchors,
                          tt_err *err)
{
    if (!path || !scene || !cam || nanchors < 0 || nanchors > scene->ntags)
        return tt_err_set(err, TT_ERR_ARG, "rnd_write_truth: path, camera and a scene with >= %d tags needed",
                          nanchors);
    json_t *root = json_object(), *figs = json_array(), *anch = json_array();
    if (!root || !figs || !anch) {
        json_decref(root);
        json_decref(figs);
        json_decref(anch);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory building %s", path);
    }
    for (int i = 0; i < scene->ntags; i++) {
        const rnd_tag *t = &scene->tags[i];
        json_t *o = json_pack("{s:s, s:i, s:f, s:f, s:f, s:b, s:f, s:f}", "family", t->family, "id", t->id, "x",
                              t->x, "y", t->y, "facing_deg", t->facing_deg, "unoccluded",
                              rnd_tag_unoccluded(scene, cam, t), "size_in", t->size_in, "height_in", t->height_in);
        if (o && (t->slope[0] != 0 || t->slope[1] != 0))
            json_object_set_new(o, "tilt_deg", json_real(atan(hypot(t->slope[0], t->slope[1])) * 180 / M_PI));
        json_array_append_new(i < nanchors ? anch : figs, o);
    }
    json_object_set_new(root, "figures", figs);
    json_object_set_new(root, "anchors", anch);
    if (scene->npieces > 0) {
        /* the raised terrain, as a scenario would declare it */
        json_t *terr = json_array();
        for (int i = 0; terr && i < scene->npieces; i++) {
            const rnd_piece *p = &scene->pieces[i];
            json_t *poly = json_array();
            for (int k = 0; poly && k < p->npts; k++)
                json_array_append_new(poly, json_pack("[f,f]", p->pts[k][0], p->pts[k][1]));
            json_array_append_new(terr, json_pack("{s:o, s:f, s:f}", "polygon", poly, "height_in", p->height_in,
                                                  "slope_in", p->slope_in));
        }
        json_object_set_new(root, "terrain", terr);
    }
    json_object_set_new(root, "camera", json_pack("{s:[f,f,f], s:[f,f,f]}", "rvec", cam->rvec[0], cam->rvec[1],
                                                  cam->rvec[2], "tvec", cam->tvec[0], cam->tvec[1], cam->tvec[2]));
    return rnd__json_dump(root, path, err);
}
