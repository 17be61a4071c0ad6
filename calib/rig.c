/* rig.c - loading and validating rig files. */
#include "calib.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tt_json.h"
#include "tt_keys.h"

/* The keys a rig file may hold (docs/setup.md, "The rig file"): any other
 * is refused with the nearest known one ("camera_setings" -> "did you mean
 * camera_settings?"), so a typo never leaves a setting silently unused. */
static const tt_keys_field calib__table_f[] = {{"width_in", NULL}, {"depth_in", NULL}, {NULL, NULL}};
static const tt_keys_schema calib__table_s = {"table", NULL, calib__table_f, NULL, 0};
static const tt_keys_field calib__anchor_f[] = {
    {"family", NULL}, {"id", NULL}, {"x", NULL}, {"y", NULL}, {"size_in", NULL}, {NULL, NULL}};
static const tt_keys_schema calib__anchor_s = {"anchor", NULL, calib__anchor_f, NULL, 0};
static const tt_keys_field calib__bases_f[] = {
    {"families", NULL}, {"size_in", NULL}, {"height_mm", NULL}, {NULL, NULL}};
static const tt_keys_schema calib__bases_s = {"bases", NULL, calib__bases_f, NULL, 0};
static const tt_keys_field calib__capture_f[] = {{"width", NULL}, {"height", NULL}, {"fps", NULL},
                                                 {"mjpeg", NULL}, {"exposure", NULL}, {"focus", NULL},
                                                 {"white_balance", NULL}, {"gain", NULL}, {NULL, NULL}};
static const tt_keys_schema calib__capture_s = {"camera_settings", NULL, calib__capture_f, NULL, 0};
static const tt_keys_field calib__cam_f[] = {{"camera", NULL}, {"source", NULL}, {NULL, NULL}};
static const tt_keys_schema calib__cam_s = {"cameras entry", NULL, calib__cam_f, NULL, 0};
static const tt_keys_field calib__rig_f[] = {{"table", &calib__table_s},   {"camera", NULL},
                                             {"cameras", &calib__cam_s},   {"anchors", &calib__anchor_s},
                                             {"bases", &calib__bases_s},   {"camera_settings", &calib__capture_s},
                                             {NULL, NULL}};
static const tt_keys_schema calib__rig_s = {"rig", NULL, calib__rig_f, NULL, 0};

static tt_status calib__string(const json_t *obj, const char *key, const char *where, const char **out,
                               tt_err *err)
{
    const json_t *v = json_object_get(obj, key);
    *out = ""; /* set on every path (gcc -O3 could not tell the error paths return) */
    if (!v)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: missing \"%s\"", where, key);
    if (!json_is_string(v))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"%s\" must be a string", where, key);
    *out = json_string_value(v);
    return TT_OK;
}

static tt_status calib__family(const char *name, const char *where, char out[VISION_FAMILY_LEN], tt_err *err)
{
    if (!vision_family_known(name))
        return tt_err_set(err, TT_ERR_UNKNOWN, "%s: unknown tag family '%s' (known: %s)", where, name,
                          vision_family_list());
    snprintf(out, VISION_FAMILY_LEN, "%s", name);
    return TT_OK;
}

/* Three or more anchors on one line (within a tenth of the smallest anchor's
 * size) give a pose that cannot be trusted: the rig is mistyped or the
 * anchors are badly placed.  Two anchors are allowed (their corners still
 * span the plane). */
static tt_status calib__anchors_spread(const calib_rig *rig, const char *path, tt_err *err)
{
    if (rig->nanchors < 3)
        return TT_OK;
    const calib_anchor *a = rig->anchors;
    int far = 1;
    double smallest = a[0].size_in;
    for (int i = 1; i < rig->nanchors; i++) {
        if (hypot(a[i].x - a[0].x, a[i].y - a[0].y) > hypot(a[far].x - a[0].x, a[far].y - a[0].y))
            far = i;
        smallest = a[i].size_in < smallest ? a[i].size_in : smallest;
    }
    double dx = a[far].x - a[0].x, dy = a[far].y - a[0].y, len = hypot(dx, dy);
    for (int i = 1; i < rig->nanchors; i++)
        if (fabs((a[i].x - a[0].x) * dy - (a[i].y - a[0].y) * dx) / len > smallest / 10)
            return TT_OK;
    char names[400] = "";
    size_t used = 0;
    for (int i = 0; i < rig->nanchors && used < sizeof names - 40; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s %d", i ? ", " : "", a[i].family, a[i].id);
    return tt_err_set(err, TT_ERR_FORMAT,
                      "%s: anchors %s all lie on one line, which gives no trustworthy camera pose: place at least one "
                      "off that line (the table's corners are best) and check their x and y",
                      path, names);
}

static tt_status calib__anchors(calib_rig *rig, const json_t *arr, const char *path, tt_err *err)
{
    char where[256];
    size_t n;
    if (!arr)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: missing \"anchors\" (list the anchor tags on the felt)", path);
    if (!json_is_array(arr))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"anchors\" must be a list", path);
    n = json_array_size(arr);
    if (n < 2)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"anchors\" lists %zu anchor(s); at least 2 are needed (4 in the "
                          "corners is best)", path, n);
    rig->anchors = calloc(n, sizeof *rig->anchors);
    if (!rig->anchors)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const json_t *a = json_array_get(arr, i);
        calib_anchor *an = &rig->anchors[i];
        const char *fam = "tag36h11";
        double id;
        snprintf(where, sizeof where, "%s: anchors[%zu]", path, i);
        if (!json_is_object(a))
            return tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", where);
        if (json_object_get(a, "family") && calib__string(a, "family", where, &fam, err) != TT_OK)
            return err ? err->status : TT_ERR_FORMAT;
        if (calib__family(fam, where, an->family, err) != TT_OK || tt_json_number(a, "id", where, &id, err) != TT_OK ||
            tt_json_number(a, "x", where, &an->x, err) != TT_OK ||
            tt_json_number(a, "y", where, &an->y, err) != TT_OK ||
            tt_json_number(a, "size_in", where, &an->size_in, err) != TT_OK)
            return err ? err->status : TT_ERR_FORMAT;
        if (id < 0 || id != floor(id) || id > INT_MAX)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"id\" must be a whole number >= 0", where);
        an->id = (int)id;
        if (!(an->size_in > 0 && an->size_in < 100))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"size_in\" must be a positive size in inches", where);
        if (an->x < -rig->width_in || an->x > 2 * rig->width_in || an->y < -rig->depth_in || an->y > 2 * rig->depth_in)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: (%g, %g) is far off the %gx%g table: check the units (inches)",
                              where, an->x, an->y, rig->width_in, rig->depth_in);
        for (size_t j = 0; j < i; j++)
            if (rig->anchors[j].id == an->id && !strcmp(rig->anchors[j].family, an->family))
                return tt_err_set(err, TT_ERR_FORMAT, "%s: anchor %s id %d is listed twice", where, an->family, an->id);
        for (size_t j = 0; j < i; j++) {
            const calib_anchor *o = &rig->anchors[j];
            if (hypot(an->x - o->x, an->y - o->y) < (an->size_in + o->size_in) / 2)
                return tt_err_set(err, TT_ERR_FORMAT,
                                  "%s: anchors %s %d at (%g, %g) and %s %d at (%g, %g) overlap: each anchor needs its "
                                  "own place on the felt (the table's corners are best)",
                                  path, o->family, o->id, o->x, o->y, an->family, an->id, an->x, an->y);
        }
        rig->nanchors++;
    }
    return calib__anchors_spread(rig, path, err);
}

static tt_status calib__bases(calib_rig *rig, const json_t *b, const char *path, tt_err *err)
{
    char where[256];
    snprintf(where, sizeof where, "%s: bases", path);
    if (!b)
        return tt_err_set(err, TT_ERR_FORMAT,
                          "%s: missing \"bases\" (e.g. {\"families\": [\"tag36h11\"], \"size_in\": 0.8, \"height_mm\": 3})",
                          path);
    if (!json_is_object(b))
        return tt_err_set(err, TT_ERR_FORMAT, "%s must be an object", where);
    if (tt_json_number(b, "size_in", where, &rig->base_size_in, err) != TT_OK ||
        tt_json_number(b, "height_mm", where, &rig->base_height_mm, err) != TT_OK)
        return err ? err->status : TT_ERR_FORMAT;
    if (!(rig->base_size_in > 0 && rig->base_size_in < 100))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"size_in\" must be a positive size in inches", where);
    if (!(rig->base_height_mm >= 0 && rig->base_height_mm < 1000))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"height_mm\" must be 0 or more millimetres", where);
    const json_t *fams = json_object_get(b, "families");
    if (!fams) {
        snprintf(rig->base_families[0], VISION_FAMILY_LEN, "tag36h11");
        rig->nbase_families = 1;
        return TT_OK;
    }
    if (!json_is_array(fams) || json_array_size(fams) == 0 || json_array_size(fams) > VISION_MAX_FAMILIES)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"families\" must be a list of 1 to %d family names", where,
                          VISION_MAX_FAMILIES);
    for (size_t i = 0; i < json_array_size(fams); i++) {
        const json_t *f = json_array_get(fams, i);
        if (!json_is_string(f))
            return tt_err_set(err, TT_ERR_FORMAT, "%s: \"families\"[%zu] must be a string", where, i);
        if (calib__family(json_string_value(f), where, rig->base_families[rig->nbase_families], err) != TT_OK)
            return err ? err->status : TT_ERR_UNKNOWN;
        rig->nbase_families++;
    }
    return TT_OK;
}

/* Optional live-capture settings: {"width": 3840, "height": 2160, "fps": 30,
 * "mjpeg": true, "exposure": 156, "focus": 0, "white_balance": 4600,
 * "gain": 0}; every member optional. */
static tt_status calib__capture(calib_rig *rig, const json_t *c, const char *path, tt_err *err)
{
    const char *ints[] = {"width", "height", "exposure", "focus", "white_balance", "gain"};
    int *dst[] = {&rig->capture.width, &rig->capture.height, &rig->capture.exposure,
                  &rig->capture.focus, &rig->capture.white_balance, &rig->capture.gain};
    rig->capture.width = rig->capture.height = 0;
    rig->capture.fps = 0;
    rig->capture.mjpeg = 1;
    rig->capture.exposure = rig->capture.focus = rig->capture.white_balance = rig->capture.gain = -1;
    if (!c)
        return TT_OK;
    if (!json_is_object(c))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"camera_settings\" must be an object", path);
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        const json_t *v = json_object_get(c, ints[i]);
        if (!v)
            continue;
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 100000)
            return tt_err_set(err, TT_ERR_FORMAT, "%s: camera_settings.%s must be a whole number >= 0", path, ints[i]);
        *dst[i] = (int)json_integer_value(v);
    }
    const json_t *fps = json_object_get(c, "fps"), *mj = json_object_get(c, "mjpeg");
    if (fps && (!json_is_number(fps) || json_number_value(fps) <= 0))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: camera_settings.fps must be a positive number", path);
    if (fps)
        rig->capture.fps = json_number_value(fps);
    if (mj && !json_is_boolean(mj))
        return tt_err_set(err, TT_ERR_FORMAT, "%s: camera_settings.mjpeg must be true or false", path);
    if (mj)
        rig->capture.mjpeg = json_is_true(mj);
    return TT_OK;
}

/* One camera's file, resolved against the rig file's folder. */
static tt_status calib__camera_path(const char *cam, const char *path, char out[4096], tt_err *err)
{
    if (cam[0] == '/') {
        snprintf(out, 4096, "%s", cam);
        return TT_OK;
    }
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    if (snprintf(out, 4096, "%.*s%s", dirlen, path, cam) >= 4096)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: camera path is too long", path);
    return TT_OK;
}

/* "camera": "camera.yaml" (one camera), or "cameras": [{"camera":
 * "left.yaml", "source": "usb:SERIAL"}, ...] (several, in order). */
static tt_status calib__cameras(calib_rig *rig, const json_t *root, const char *path, tt_err *err)
{
    const json_t *one = json_object_get(root, "camera"), *many = json_object_get(root, "cameras");
    const char *cam = NULL;
    char where[256];
    tt_status st;
    if (one && many)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: give either \"camera\" (one camera) or \"cameras\" (several), "
                          "not both", path);
    if (!many) {
        if ((st = calib__string(root, "camera", path, &cam, err)) != TT_OK)
            return st;
        rig->ncameras = 1;
        snprintf(rig->cameras[0].name, sizeof rig->cameras[0].name, "the camera (%s)", cam);
        if ((st = calib__camera_path(cam, path, rig->cameras[0].path, err)) != TT_OK)
            return st;
        memcpy(rig->camera_path, rig->cameras[0].path, sizeof rig->camera_path);
        return TT_OK;
    }
    size_t n = json_is_array(many) ? json_array_size(many) : 0;
    if (n < 1 || n > CALIB_MAX_CAMERAS)
        return tt_err_set(err, TT_ERR_FORMAT, "%s: \"cameras\" must be a list of 1 to %d cameras, e.g. "
                          "[{\"camera\": \"left.yaml\"}, {\"camera\": \"right.yaml\"}]", path, CALIB_MAX_CAMERAS);
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(many, i);
        calib_rig_camera *c = &rig->cameras[i];
        snprintf(where, sizeof where, "%s: cameras[%zu]", path, i);
        if (!json_is_object(e))
            return tt_err_set(err, TT_ERR_FORMAT, "%s must be an object such as {\"camera\": \"left.yaml\"}", where);
        if ((st = calib__string(e, "camera", where, &cam, err)) != TT_OK ||
            (st = calib__camera_path(cam, path, c->path, err)) != TT_OK)
            return st;
        snprintf(c->name, sizeof c->name, "camera %zu (%s)", i + 1, cam);
        if (json_object_get(e, "source")) {
            const char *src;
            if ((st = calib__string(e, "source", where, &src, err)) != TT_OK)
                return st;
            if (!src[0] || strlen(src) >= sizeof c->source)
                return tt_err_set(err, TT_ERR_FORMAT, "%s: \"source\" must name the camera, e.g. \"usb:SERIAL\"",
                                  where);
            snprintf(c->source, sizeof c->source, "%s", src);
            for (size_t j = 0; j < i; j++)
                if (!strcmp(rig->cameras[j].source, c->source))
                    return tt_err_set(err, TT_ERR_FORMAT, "%s: %s and %s are both given the source \"%s\": each "
                                      "camera needs its own source (one camera cannot be two)",
                                      path, rig->cameras[j].name, c->name, c->source);
        }
        rig->ncameras++;
    }
    memcpy(rig->camera_path, rig->cameras[0].path, sizeof rig->camera_path);
    return TT_OK;
}

tt_status calib_rig_load(const char *path, calib_rig **out, tt_err *err)
{
    json_t *root = NULL;
    char *text = NULL;
    calib_rig *rig = NULL;
    const json_t *table;
    char where[256];
    tt_status st;

    *out = NULL;
    st = tt_json_load_file_text(path, &root, &text, err);
    if (st != TT_OK)
        goto fail;
    if (!json_is_object(root)) {
        st = tt_err_set(err, TT_ERR_FORMAT, "%s: the rig must be a JSON object", path);
        goto fail;
    }
    if ((st = tt_keys_check(root, &calib__rig_s, NULL, text, path, NULL, 0, err)) != TT_OK)
        goto fail;
    rig = calloc(1, sizeof *rig);
    if (!rig) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    table = json_object_get(root, "table");
    snprintf(where, sizeof where, "%s: table", path);
    if (!json_is_object(table)) {
        st = tt_err_set(err, TT_ERR_FORMAT, "%s: missing \"table\" (e.g. {\"width_in\": 72, \"depth_in\": 48})", path);
        goto fail;
    }
    if ((st = tt_json_number(table, "width_in", where, &rig->width_in, err)) != TT_OK ||
        (st = tt_json_number(table, "depth_in", where, &rig->depth_in, err)) != TT_OK)
        goto fail;
    if (!(rig->width_in > 0 && rig->depth_in > 0 && rig->width_in < 10000 && rig->depth_in < 10000)) {
        st = tt_err_set(err, TT_ERR_FORMAT, "%s: width_in and depth_in must be positive inches", where);
        goto fail;
    }
    if ((st = calib__cameras(rig, root, path, err)) != TT_OK)
        goto fail;
    if ((st = calib__anchors(rig, json_object_get(root, "anchors"), path, err)) != TT_OK)
        goto fail;
    if ((st = calib__bases(rig, json_object_get(root, "bases"), path, err)) != TT_OK)
        goto fail;
    if ((st = calib__capture(rig, json_object_get(root, "camera_settings"), path, err)) != TT_OK)
        goto fail;
    for (int k = 0; k < rig->ncameras; k++)
        if ((st = cvw_camera_read(rig->cameras[k].path, &rig->cameras[k].camera, err)) != TT_OK) {
            tt_err_prefix(err, "rig %s", path);
            goto fail;
        }
    rig->camera = rig->cameras[0].camera;
    json_decref(root);
    free(text);
    *out = rig;
    return TT_OK;

fail:
    json_decref(root);
    free(text);
    calib_rig_destroy(rig);
    return st;
}

void calib_rig_destroy(calib_rig *rig)
{
    if (!rig)
        return;
    free(rig->anchors);
    free(rig);
}

void calib_rig_view(const calib_rig *rig, int k, calib_rig *view)
{
    *view = *rig;
    if (k < 0 || k >= rig->ncameras) /* one camera (or a rig built by hand): itself */
        return;
    view->camera = rig->cameras[k].camera;
    memcpy(view->camera_path, rig->cameras[k].path, sizeof view->camera_path);
    view->cameras[0] = rig->cameras[k];
    view->ncameras = 1;
}

tt_status calib_rig_check_frames(const calib_rig *rig, int nframes, tt_err *err)
{
    int n = rig->ncameras > 0 ? rig->ncameras : 1;
    if (nframes == n)
        return TT_OK;
    char names[1200] = "";
    size_t used = 0;
    for (int k = 0; k < rig->ncameras && used + 200 < sizeof names; k++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "", rig->cameras[k].name);
    if (n == 1)
        return tt_err_set(err, TT_ERR_ARG, "the rig has one camera but %d frames were given: give one frame, or list "
                          "the cameras in the rig's \"cameras\"", nframes);
    return tt_err_set(err, TT_ERR_ARG, "the rig has %d cameras (%s) but %d frame%s given: give one frame per camera, "
                      "in the rig's order", n, names, nframes, nframes == 1 ? " was" : "s were");
}

int calib_rig_anchor_index(const calib_rig *rig, const char *family, int id)
{
    for (int i = 0; i < rig->nanchors; i++)
        if (rig->anchors[i].id == id && !strcmp(rig->anchors[i].family, family))
            return i;
    return -1;
}

int calib_rig_is_base_tag(const calib_rig *rig, const char *family, int id)
{
    if (calib_rig_anchor_index(rig, family, id) >= 0)
        return 0;
    for (int i = 0; i < rig->nbase_families; i++)
        if (!strcmp(rig->base_families[i], family))
            return 1;
    return 0;
}

void calib_rig_detector_opts(const calib_rig *rig, vision_detector_opts *opts)
{
    opts->nfamilies = 0;
    for (int i = 0; i < rig->nanchors + rig->nbase_families; i++) {
        const char *f = i < rig->nanchors ? rig->anchors[i].family : rig->base_families[i - rig->nanchors];
        int dup = 0;
        for (int j = 0; j < opts->nfamilies; j++)
            dup |= !strcmp(opts->families[j], f);
        if (!dup && opts->nfamilies < VISION_MAX_FAMILIES)
            opts->families[opts->nfamilies++] = f;
    }
}

tt_status calib_rig_check_image(const calib_rig *rig, int width, int height, tt_err *err)
{
    if (width != rig->camera.width || height != rig->camera.height)
        return tt_err_set(err, TT_ERR_MISMATCH,
                          "the image is %dx%d but %s was calibrated at %dx%d: set the camera to %dx%d or "
                          "recalibrate with 'tabletrack calib camera'",
                          width, height, rig->camera_path, rig->camera.width, rig->camera.height, rig->camera.width,
                          rig->camera.height);
    return TT_OK;
}
