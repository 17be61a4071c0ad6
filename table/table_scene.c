/* table_scene.c - the game's table: the scenario, where its figures stand
 * now, and asking the rules about them (see table_scene.h). */
#include "table_scene.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"
#include "table_look.h"
#include "tt_json.h"

#ifndef TT_SOURCE_DIR
#define TT_SOURCE_DIR ""
#endif

const char *const *table_data_dirs(void)
{
    static const char *dirs[3];
    const char *env = getenv("TABLETRACK_DATA");
    dirs[0] = env && env[0] ? env : TT_SOURCE_DIR;
    dirs[1] = TT_SOURCE_DIR;
    dirs[2] = NULL;
    return dirs;
}

static void table__answer_free(table_answer *a)
{
    if (!a)
        return;
    json_decref(a->query);
    json_decref(a->json);
    rules_result_free(&a->r);
    free(a);
}

/* Drop the answers kept, but the newest `keep`. */
static void table__forget(table_scene *s, int keep)
{
    int drop = s->nasked - keep;
    if (drop <= 0)
        return;
    for (int i = 0; i < drop; i++)
        table__answer_free(s->asked[i]);
    memmove(s->asked, s->asked + drop, (size_t)keep * sizeof *s->asked);
    s->nasked = keep;
}

/* A figure moved: every answer kept may have changed. */
static void table__moved(table_scene *s)
{
    s->gen++;
    table__forget(s, 0);
}

void table_scene_set_cite(table_scene *s, int on)
{
    if (s)
        s->cite = on != 0;
}

tt_status table_scene_place(table_scene *s, int tag_id, double x, double y, double facing_deg,
                            const char **figure_id, tt_err *err)
{
    const char *id = rules_scenario_tag_figure(s->sc, tag_id);
    if (figure_id)
        *figure_id = id;
    if (!id)
        return TT_OK;
    tt_status st = rules_scenario_place(s->sc, id, x, y, facing_deg, err);
    if (st != TT_OK)
        return st;
    /* one look-up a figure a frame (ids are unique: the scenario refuses
     * one used twice); the rules' figure moved even where this scene has
     * no figure of that id */
    table__figure *f = NULL;
    for (int i = 0; i < s->nfigs && !f; i++)
        if (!strcmp(s->figs[i].id, id))
            f = &s->figs[i];
    if (!f || f->x != x || f->y != y || f->facing_deg != facing_deg)
        table__moved(s);
    if (f) {
        f->x = x;
        f->y = y;
        f->facing_deg = facing_deg;
        if (figure_id)
            *figure_id = f->id;
    }
    return TT_OK;
}

tt_status table_scene_mask_figures(const table_scene *s, double tag_size_in, double base_height_in,
                                   overlay_list *l, tt_err *err)
{
    tt_status st = TT_OK;
    for (int i = 0; s && i < s->nfigs && st == TT_OK; i++) {
        const table__figure *f = &s->figs[i];
        double z = rules_scenario_ground_in(s->sc, f->x, f->y) + base_height_in;
        st = overlay_add_tag_mask(l, f->x, f->y, f->facing_deg, tag_size_in, z, err);
    }
    return st;
}

double table_scene_ground_in(const void *scene, double x, double y)
{
    const table_scene *s = scene;
    return s ? rules_scenario_ground_in(s->sc, x, y) : 0.0;
}

void table_scene_destroy(table_scene *s)
{
    if (!s)
        return;
    table__forget(s, 0);
    rules_scenario_destroy(s->sc);
    json_decref(s->profile);
    for (int i = 0; i < s->nfigs; i++) {
        free(s->figs[i].id);
        free(s->figs[i].unit);
        free(s->figs[i].weapon);
    }
    free(s->figs);
    for (int i = 0; i < s->npieces; i++)
        free(s->pieces[i].xy);
    free(s->pieces);
    free(s);
}

/* Base size: the figure's own "base", else the profile's default, else a
 * 1" round base. */
static double table__base_radius(const json_t *base)
{
    const json_t *r = json_object_get(base, "round_in"), *rc = json_object_get(base, "rect_in");
    if (json_is_number(r))
        return json_number_value(r) / 2;
    if (json_is_array(rc) && json_array_size(rc) == 2)
        return 0.5 * hypot(json_number_value(json_array_get(rc, 0)), json_number_value(json_array_get(rc, 1)));
    return -1;
}

static int table__points(const json_t *a, table__piece *p)
{
    size_t n = json_array_size(a);
    if (n < 2)
        return 0;
    p->xy = malloc(n * 2 * sizeof *p->xy);
    if (!p->xy)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *pt = json_array_get(a, i);
        p->xy[2 * i] = json_number_value(json_array_get(pt, 0));
        p->xy[2 * i + 1] = json_number_value(json_array_get(pt, 1));
    }
    p->n = (int)n;
    return 1;
}

/* What drawing needs beyond the rules' scenario s->sc (already loaded and
 * validated from root). */
static tt_status table__scene_build(table_scene *s, const json_t *root, const char *base_dir,
                                  const char *const *data_dirs, tt_err *err)
{
    char ppath[4096];
    const char *ruleset = json_string_value(json_object_get(root, "ruleset"));
    if (ruleset && rules_profile_path(ruleset, base_dir, data_dirs, ppath, sizeof ppath, NULL) == TT_OK)
        tt_json_load_file(ppath, &s->profile, NULL); /* optional: range bands, base defaults */
    double def_r = table__base_radius(json_object_get(s->profile, "base"));
    if (def_r <= 0)
        def_r = 0.5;

    const json_t *figs = json_object_get(root, "figures");
    size_t nf = json_array_size(figs);
    s->figs = calloc(nf ? nf : 1, sizeof *s->figs);
    if (!s->figs)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < nf; i++) {
        const json_t *f = json_array_get(figs, i);
        table__figure *g = &s->figs[s->nfigs];
        const char *id = json_string_value(json_object_get(f, "id"));
        const char *unit = json_string_value(json_object_get(f, "unit"));
        if (!id)
            continue;
        const char *weapon = json_string_value(json_object_get(f, "weapon"));
        g->id = strdup(id);
        g->unit = strdup(unit ? unit : "");
        g->weapon = strdup(weapon ? weapon : "");
        if (!g->id || !g->unit || !g->weapon) {
            free(g->id);
            free(g->unit);
            free(g->weapon);
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        }
        g->x = json_number_value(json_object_get(f, "x"));
        g->y = json_number_value(json_object_get(f, "y"));
        g->facing_deg = json_number_value(json_object_get(f, "facing_deg"));
        g->radius_in = table__base_radius(json_object_get(f, "base"));
        if (g->radius_in <= 0)
            g->radius_in = def_r;
        s->nfigs++;
    }

    const json_t *ter = json_object_get(root, "terrain"), *kinds = json_object_get(s->profile, "terrain");
    size_t nt = json_array_size(ter);
    s->pieces = calloc(nt ? nt : 1, sizeof *s->pieces);
    if (!s->pieces)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < nt; i++) {
        const json_t *t = json_array_get(ter, i);
        const char *kind = json_string_value(json_object_get(t, "kind"));
        const json_t *sh = json_object_get(t, "shields_blast");
        if (!json_is_boolean(sh) && kind)
            sh = json_object_get(json_object_get(kinds, kind), "shields_blast");
        if (!json_is_true(sh))
            continue;
        table__piece *p = &s->pieces[s->npieces];
        const json_t *poly = json_object_get(t, "polygon");
        p->closed = json_is_array(poly);
        if (!table__points(p->closed ? poly : json_object_get(t, "line"), p))
            continue;
        p->shields = 1;
        s->npieces++;
    }
    return TT_OK;
}

tt_status table_scene_load(const char *path, const char *const *data_dirs, table_scene **out, tt_err *err)
{
    table_scene *s = NULL;
    json_t *root = NULL;
    char dirbuf[4096];
    tt_status st;
    *out = NULL;
    s = calloc(1, sizeof *s);
    if (!s)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    /* the rules engine validates everything; read the rest only after */
    if ((st = rules_scenario_load(path, data_dirs, &s->sc, err)) != TT_OK ||
        (st = tt_json_load_file(path, &root, err)) != TT_OK)
        goto fail;
    snprintf(dirbuf, sizeof dirbuf, "%s", path);
    if ((st = table__scene_build(s, root, dirname(dirbuf), data_dirs, err)) != TT_OK)
        goto fail;
    json_decref(root);
    *out = s;
    return TT_OK;
fail:
    json_decref(root);
    table_scene_destroy(s);
    return st;
}

tt_status table_scene_parse(const char *text, const char *where, const char *base_dir,
                              const char *const *data_dirs, table_scene **out, tt_err *err)
{
    table_scene *s = NULL;
    json_t *root = NULL;
    tt_status st;
    *out = NULL;
    s = calloc(1, sizeof *s);
    if (!s)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if ((st = rules_scenario_parse(text, where, base_dir, data_dirs, &s->sc, err)) != TT_OK ||
        (st = tt_json_parse(text, where, &root, err)) != TT_OK ||
        (st = table__scene_build(s, root, base_dir, data_dirs, err)) != TT_OK) {
        json_decref(root);
        table_scene_destroy(s);
        return st;
    }
    json_decref(root);
    *out = s;
    return TT_OK;
}


tt_status table_scene_set_errors(table_scene *s, int tag_id, double err95_in, double z_err95_in,
                                 double facing_err95_deg, tt_err *err)
{
    const char *id = rules_scenario_tag_figure(s->sc, tag_id);
    if (!id)
        return TT_OK;
    table__figure *f = NULL;
    for (int i = 0; i < s->nfigs && !f; i++)
        if (!strcmp(s->figs[i].id, id))
            f = &s->figs[i];
    if (f && fabs(f->err95_in - err95_in) <= TABLE_ERR_STEP_IN && fabs(f->z_err95_in - z_err95_in) <= TABLE_ERR_STEP_IN &&
        fabs(f->facing_err95_deg - facing_err95_deg) <= 1.0)
        return TT_OK; /* as sure as when last asked */
    tt_status st = rules_scenario_set_errors(s->sc, id, err95_in, z_err95_in, facing_err95_deg, err);
    if (st != TT_OK)
        return st;
    if (f) {
        f->err95_in = err95_in;
        f->z_err95_in = z_err95_in;
        f->facing_err95_deg = facing_err95_deg;
    }
    table__moved(s);
    return TT_OK;
}

/* ---- asking the rules ------------------------------------------------- */

tt_status table_scene_ask(table_scene *s, const json_t *query, const table_answer **out, tt_err *err)
{
    *out = NULL;
    /* the same question since the last move: the answer given then */
    for (int i = s->nasked - 1; i >= 0; i--)
        if (s->asked[i]->gen == s->gen && json_equal(s->asked[i]->query, query)) {
            *out = s->asked[i];
            return TT_OK;
        }
    table_answer *a = calloc(1, sizeof *a);
    if (!a)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    /* the rules engine checks the question and gives its answer, with the
     * geometry to draw */
    tt_status st = rules_query(s->sc, query, &a->r, err);
    if (st != TT_OK) {
        free(a);
        return st;
    }
    a->gen = s->gen;
    if (!(a->query = json_deep_copy(query)) || !(a->json = rules_result_to_json(&a->r))) {
        table__answer_free(a);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    /* where the figures' places carry errors: how sure the answer is */
    if ((st = rules_answer_how_sure(s->sc, query, &a->r, a->json, err)) != TT_OK) {
        table__answer_free(a);
        return st;
    }
    if (s->nasked == TABLE__ASKED_MAX)
        table__forget(s, TABLE__ASKED_MAX - 1);
    s->asked[s->nasked++] = a;
    *out = a;
    return TT_OK;
}

const json_t *table_answer_json(const table_answer *a)
{
    return a ? a->json : NULL;
}

tt_status table_scene_query(table_scene *s, const json_t *query, overlay_list *l, json_t **answer, tt_err *err)
{
    const table_answer *a;
    tt_status st;
    if (answer)
        *answer = NULL;
    if ((st = table_scene_ask(s, query, &a, err)) != TT_OK)
        return st;
    if (l && (st = table_look_add(s, a, l, err)) != TT_OK)
        return st;
    if (answer)
        *answer = json_incref(a->json);
    return TT_OK;
}
