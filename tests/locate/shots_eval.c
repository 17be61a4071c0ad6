/* shots_eval.c - see shots_eval.h. */
#include "shots_eval.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

const char *const se_res_name[SE_NRES] = {"4K", "1080p"};
const char *const se_class_name[SE_NCLASS] = {"felt", "hill top", "slope", "roof"};

static const char *const se__dirs[] = {TT_SOURCE_DIR, NULL};

/* One figure of the frame: its tag, where it truly stands, where locate put it. */
typedef struct se__fig {
    const rnd_tag *tag;
    char id[16];
    double xy[2];
    int cls;
    const calib_figure *loc;
} se__fig;

static const calib_figure *se__find(const calib_figure *figs, int n, const rnd_tag *t)
{
    for (int i = 0; i < n; i++)
        if (figs[i].id == t->id && !strcmp(figs[i].family, t->family))
            return &figs[i];
    return NULL;
}

/* The scenario: Into the Breach! muskets (brackets 4 / 8 / 12", base edge to
 * edge, no arc), the frame's raised piece declared unless undeclared, every
 * figure at its true position (red and blue alternating). */
static json_t *se__scenario(const le_frame *f, const se_frame_opts *o, const se__fig *figs, int nf)
{
    json_t *terrain = json_array(), *jf = json_array();
    if (!o->undeclared) {
        const double *h = f->hill;
        json_t *poly = json_pack("[[f,f],[f,f],[f,f],[f,f]]", h[0], h[1], h[2], h[1], h[2], h[3], h[0], h[3]);
        json_t *piece = json_pack("{s:s,s:s,s:f,s:o}", "id", o->roof ? "house" : "knoll", "kind",
                                  o->roof ? "building" : "hill", "height_in", f->hill_in, "polygon", poly);
        if (f->piece.slope_in > 0)
            json_object_set_new(piece, "slope_in", json_real(f->piece.slope_in));
        json_array_append_new(terrain, piece);
    }
    for (int i = 0; i < nf; i++)
        json_array_append_new(jf, json_pack("{s:s,s:s,s:s,s:f,s:f,s:f,s:{s:f}}", "id", figs[i].id, "side",
                                            i % 2 ? "blue" : "red", "weapon", "musket", "x", figs[i].xy[0], "y",
                                            figs[i].xy[1], "facing_deg", figs[i].tag->facing_deg, "base", "round_in",
                                            2 * figs[i].tag->base_radius_in));
    return json_pack("{s:s,s:{s:i,s:i},s:o,s:o}", "ruleset", "into-the-breach", "table", "width_in", 72, "depth_in", 48,
                     "terrain", terrain, "figures", jf);
}

/* Ask a fire question as the table does (rules_query_json: the answer
 * with how sure it is); fill the bracket, visibility, call, and the
 * distance unrounded (rules_query: the answer prints it to 0.01"). */
static void se__ask(rules_scenario *sc, const char *from, const char *to, char bracket[8], double *d, int *vis,
                    double *derr, int *close, int *refused_close)
{
    json_t *q = json_pack("{s:s,s:s,s:s}", "q", "fire", "from", from, "to", to), *a = NULL;
    tt_err e = {0};
    bracket[0] = 0;
    *d = NAN;
    *vis = 0;
    if (derr)
        *derr = 0;
    if (close)
        *close = -1;
    if (refused_close)
        *refused_close = 0;
    if (!q)
        return;
    if (rules_query_json(sc, q, &a, &e) != TT_OK) {
        if (refused_close)
            *refused_close = strstr(e.msg, "too close to call") != NULL;
    } else {
        rules_result r;
        tt_err e2 = {0};
        if (rules_query(sc, q, &r, &e2) == TT_OK) {
            *d = r.distance_in;
            rules_result_free(&r);
        }
        const char *b = json_string_value(json_object_get(a, "bracket"));
        snprintf(bracket, 8, "%s", b ? b : "");
        *vis = json_is_true(json_object_get(a, "visible"));
        if (derr)
            *derr = json_number_value(json_object_get(a, "distance_err95_in"));
        const json_t *c = json_object_get(a, "too_close_to_call");
        if (close)
            *close = c ? json_is_true(c) : -1;
    }
    json_decref(a);
    json_decref(q);
}

tt_status se_frame_shots(const se_frame_opts *o, se_shot **shots, int *n, int *seen, int *found, tt_err *err)
{
    le_options lo;
    le_frame f;
    *shots = NULL;
    *n = *seen = *found = 0;
    if (o->res == SE_4K)
        le_options_default(&lo);
    else
        le_options_1080p(&lo);
    lo.overhead60 = 1;
    lo.seed = o->seed;
    if (o->blur) { /* as bench_err's blurry frames */
        lo.blur = o->res == SE_4K ? 1.3 : 1.0;
        lo.noise = 4;
    }
    uint64_t rs = rnd_rng_seed(o->seed * 31u + 7u);
    double deg = 27 + 10 * rnd_rng_uniform(&rs);
    lo.hill_in = o->roof ? 4 : 2;
    lo.hill_slope_in = o->roof ? 0 : lo.hill_in / tan(deg * M_PI / 180);
    lo.hill[0] = 40;
    lo.hill[1] = 17;
    lo.hill[2] = 62;
    lo.hill[3] = 36;
    tt_status st = le_frame_make(&lo, &f, err);
    if (st != TT_OK)
        return st;
    se__fig *figs = calloc((size_t)f.ntags, sizeof *figs);
    calib_figure *loc = NULL;
    int nloc = 0, nf = 0;
    vision_detections ds = {0};
    calib_pose pose;
    rules_scenario *truth = NULL, *meas = NULL;
    json_t *root = NULL;
    if (!figs) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int t = f.nanchors; t < f.ntags; t++) {
        const rnd_tag *tag = &f.tags[t];
        if (!rnd_tag_unoccluded(&f.scene, &f.cam, tag))
            continue;
        se__fig *g = &figs[nf++];
        g->tag = tag;
        snprintf(g->id, sizeof g->id, "f%d", tag->id);
        le_truth_xy(&f, tag, g->xy);
        double zt = rnd_ground_height(&f.scene, g->xy[0], g->xy[1]);
        g->cls = zt <= 0 ? SE_FELT : o->roof ? SE_ROOF : le_on_hill(&f, g->xy[0], g->xy[1]) ? SE_TOP : SE_SLOPE;
    }
    *seen = nf;
    /* the truth, exact; its terrain is the ground locate is given, as the
     * live table gives the scenario's */
    root = se__scenario(&f, o, figs, nf);
    if (!root) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((st = rules_scenario_from_json(root, "shots", NULL, se__dirs, &truth, err)) != TT_OK ||
        (st = rules_scenario_from_json(root, "shots", NULL, se__dirs, &meas, err)) != TT_OK)
        goto done;
    tt_ground g = {rules_scenario_ground_in, truth};
    if ((st = le_detect(&f, &ds, &pose, NULL, err)) != TT_OK ||
        (st = calib_locate_ground(f.rig, &pose, &ds, o->undeclared ? NULL : &g, &loc, &nloc, err)) != TT_OK)
        goto done;
    /* the located scenario: each found figure where locate put it, with its
     * errors; a figure not found (or placed off the table) asks no shot */
    for (int i = 0; i < nf; i++) {
        const calib_figure *c = se__find(loc, nloc, figs[i].tag);
        tt_err e = {0};
        if (c && rules_scenario_place(meas, figs[i].id, c->x, c->y, c->facing_deg, &e) == TT_OK &&
            rules_scenario_set_errors(meas, figs[i].id, c->err95_in, c->z_err95_in, c->facing_err95_deg, &e) == TT_OK) {
            figs[i].loc = c;
            (*found)++;
            const char *big = getenv("BENCH_SHOTS_FIGS"); /* figures whose err95_in exceeds it, and why */
            if (big && c->err95_in > atof(big))
                fprintf(stderr,
                        "seed %u %s: tag %d (%s) err95_in %.3f\" (off %.4f\"), z_err95_in %.3f\", measured %.3f\" "
                        "+- %.3f\" on ground %.2f\", tilt %.1f, height %d, %.2f px/cell, %.3f\" a z inch\n",
                        o->seed, o->roof ? "roof" : "hill", figs[i].tag->id, se_class_name[figs[i].cls], c->err95_in,
                        hypot(c->x - figs[i].xy[0], c->y - figs[i].xy[1]), c->z_err95_in, c->measured_in,
                        c->measured_err95_in, c->ground_in, c->tilt_deg, (int)c->height, c->px_per_cell, c->xy_per_z);
        }
    }
    int cap = 1024;
    se_shot *s = malloc(sizeof *s * (size_t)cap);
    if (!s) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < nf; i += 2)
        for (int j = 1; j < nf; j += 2) {
            const se__fig *a = &figs[i], *b = &figs[j];
            if (!a->loc || !b->loc || hypot(a->xy[0] - b->xy[0], a->xy[1] - b->xy[1]) >= o->max_in)
                continue;
            if (*n == cap) {
                se_shot *m = realloc(s, sizeof *s * (size_t)(cap *= 2));
                if (!m) {
                    free(s);
                    st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
                    goto done;
                }
                s = m;
            }
            se_shot *r = &s[(*n)++];
            memset(r, 0, sizeof *r);
            r->from_id = a->tag->id;
            r->to_id = b->tag->id;
            r->from_class = a->cls;
            r->to_class = b->cls;
            r->from_err = hypot(a->loc->x - a->xy[0], a->loc->y - a->xy[1]);
            r->to_err = hypot(b->loc->x - b->xy[0], b->loc->y - b->xy[1]);
            r->from_e95 = a->loc->err95_in;
            r->to_e95 = b->loc->err95_in;
            r->from_ze95 = a->loc->z_err95_in;
            r->to_ze95 = b->loc->z_err95_in;
            se__ask(truth, a->id, b->id, r->b_true, &r->d_true, &r->vis_true, NULL, NULL, NULL);
            se__ask(meas, a->id, b->id, r->b_meas, &r->d_meas, &r->vis_meas, &r->derr95, &r->close,
                    &r->refused_meas_close);
        }
    *shots = s;
done:
    json_decref(root);
    rules_scenario_destroy(truth);
    rules_scenario_destroy(meas);
    vision_detections_free(&ds);
    free(loc);
    free(figs);
    le_frame_free(&f);
    return st;
}
