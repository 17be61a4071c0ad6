/* game_query.c - the scenario, the questions shown on the table, and the
 * projector image: each frame the figures are placed where they stand, the
 * questions are answered again with their live positions, and the rings,
 * answers and notices are drawn (by every projector: game_projector.c). */
#include <limits.h>
#include <math.h>
#include <qrencode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game_internal.h"
#include "rules.h"
#include "tt_json.h"
#include "tt_line.h"

/* ---- the scenario ---- */

const char *const *game__data_dirs(void) { return table_data_dirs(); }

const char *const *game_data_dirs(void)
{
    return game__data_dirs();
}

/* {"<tag>": figure} from the scenario's "tags" and "figures". */
static json_t *game__by_tag(json_t *root)
{
    json_t *m = json_object(), *tags = json_object_get(root, "tags"), *figs = json_object_get(root, "figures");
    const char *tag;
    json_t *id;
    if (!m)
        return NULL;
    json_object_foreach(tags, tag, id)
    {
        size_t i;
        json_t *f;
        json_array_foreach(figs, i, f) if (json_is_string(id) &&
                                           json_equal(json_object_get(f, "id"), id)) json_object_set(m, tag, f);
    }
    return m;
}

tt_status game__scenario_load_text(game__scenario *s, const char *text, const char *where, const char *base_dir,
                                   tt_err *err)
{
    game__scenario n = {0};
    tt_status st;
    if ((st = table_scene_parse(text, where, base_dir, game__data_dirs(), &n.scene, err)) != TT_OK)
        return st;
    if ((st = tt_json_parse(text, where, &n.root, err)) != TT_OK || !(n.by_tag = game__by_tag(n.root))) {
        if (st == TT_OK)
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        game__scenario_free(&n);
        return st;
    }
    /* the profile the scene was built from (it loaded, so it is found) */
    char path[4096];
    const char *ruleset = json_string_value(json_object_get(n.root, "ruleset"));
    if (ruleset && ((st = rules_profile_path(ruleset, base_dir, game__data_dirs(), path, sizeof path, err)) != TT_OK ||
                    (st = tt_json_load_file(path, &n.profile, err)) != TT_OK)) {
        game__scenario_free(&n);
        return st;
    }
    game__scenario_free(s);
    *s = n;
    return TT_OK;
}

void game__dir_of(const char *path, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, cap, ".");
}

tt_status game__scenario_load(game__scenario *s, const char *path, tt_err *err)
{
    json_t *root = NULL;
    char *text = NULL;
    tt_status st;
    if ((st = tt_json_load_file_text(path, &root, &text, err)) != TT_OK)
        return st;
    json_decref(root);
    char dir[4096];
    game__dir_of(path, dir, sizeof dir);
    st = game__scenario_load_text(s, text, path, dir, err);
    free(text);
    return st;
}

void game__scenario_free(game__scenario *s)
{
    table_scene_destroy(s->scene);
    json_decref(s->by_tag);
    json_decref(s->profile);
    json_decref(s->root);
    memset(s, 0, sizeof *s);
}

/* ---- questions ---- */

static tt_status game__query_push(game *g, json_t *q, int from, int until, int *qid, tt_err *err)
{
    if (g->questions.nq == g->questions.qcap) {
        int cap = g->questions.qcap ? g->questions.qcap * 2 : 16;
        game__query *n = realloc(g->questions.qs, sizeof *n * (size_t)cap);
        if (!n) {
            json_decref(q);
            return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        }
        g->questions.qs = n;
        g->questions.qcap = cap;
    }
    char *text = json_dumps(q, JSON_COMPACT);
    if (!text) {
        json_decref(q);
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    game__query *e = &g->questions.qs[g->questions.nq++];
    e->qid = ++g->questions.next_qid;
    e->q = q;
    e->text = text;
    e->from = from;
    e->until = until;
    e->last_answer = NULL;
    e->answer = NULL;
    e->look = NULL;
    e->asked = 0;
    if (qid)
        *qid = e->qid;
    return TT_OK;
}

static void game__query_free(game__query *e)
{
    json_decref(e->q);
    free(e->text);
    free(e->last_answer);
    json_decref(e->answer);
    json_decref(e->look);
}

void game__queries_free(game *g)
{
    for (int i = 0; i < g->questions.nq; i++)
        game__query_free(&g->questions.qs[i]);
    free(g->questions.qs);
    g->questions.qs = NULL;
    g->questions.nq = g->questions.qcap = 0;
}

/* --query strings (every frame) and the --queries file (frame windows). */
tt_status game__queries_from_opts(game *g, tt_err *err)
{
    tt_status st;
    for (const char *const *q = g->o.queries; q && *q; q++) {
        json_t *j = NULL;
        if ((st = tt_json_parse(*q, "--query", &j, err)) != TT_OK)
            return st;
        if ((st = game__query_push(g, j, 0, INT_MAX, NULL, err)) != TT_OK)
            return st;
    }
    if (g->o.queries_file) {
        FILE *f = fopen(g->o.queries_file, "r");
        char *line = NULL;
        size_t cap = 0;
        long lineno = 0, n;
        if (!f)
            return tt_err_set(err, TT_ERR_IO, "cannot open queries file %s (check the path)", g->o.queries_file);
        for (;;) {
            char where[512];
            json_t *j = NULL;
            if ((st = tt_line_read(f, &line, &cap, TT_LINE_MAX, &n, g->o.queries_file, ++lineno, err)) != TT_OK ||
                n < 0)
                break;
            if (strspn(line, " \t\r\n") == strlen(line))
                continue;
            snprintf(where, sizeof where, "%s: line %ld", g->o.queries_file, lineno);
            if ((st = tt_json_parse(line, where, &j, err)) != TT_OK)
                break;
            json_t *fr = json_object_get(j, "frame"), *un = json_object_get(j, "until");
            if (!json_is_object(j) || !json_is_integer(fr) || (un && !json_is_integer(un))) {
                json_decref(j);
                st = tt_err_set(err, TT_ERR_FORMAT,
                                "%s: each line is a query with \"frame\" (first frame) and optional \"until\"", where);
                break;
            }
            int from = (int)json_integer_value(fr), until = un ? (int)json_integer_value(un) : INT_MAX;
            json_object_del(j, "frame");
            json_object_del(j, "until");
            if ((st = game__query_push(g, j, from, until, NULL, err)) != TT_OK)
                break;
        }
        free(line);
        fclose(f);
        if (st != TT_OK)
            return st;
    }
    if (g->questions.nq && !g->sc.scene)
        return tt_err_set(err, TT_ERR_ARG, "--query needs --scenario (the figures and ruleset the question is about)");
    return TT_OK;
}

void game__recorder_failed(game *g, const tt_err *e)
{
    if (g->recording.rec_failed)
        return;
    g->recording.rec_failed = 1;
    g->recording.rec_err = *e;
    fprintf(stderr,
            "tabletrack track: recording stopped at frame %d: %s. The game goes on (tracking and projecting); "
            "free some space or choose another --record file next time. tabletrack will exit with code 1.\n",
            g->figures.frame_no, e->msg);
}

/* Record and publish an answer that changed. */
static void game__answer_changed(game *g, game__query *q, json_t *ans, int frame_no, long long t_ms)
{
    char *txt = json_dumps(ans, TT_JSON_ANSWER_FLAGS);
    if (!txt || (q->last_answer && !strcmp(txt, q->last_answer))) {
        free(txt);
        return;
    }
    if (g->recording.recd && !g->recording.rec_failed) {
        tt_err e = {0};
        if (rec_query(g->recording.recd, frame_no, t_ms, q->text, txt, &e) != TT_OK)
            game__recorder_failed(g, &e);
    }
    if (g->o.feed) {
        json_t *m = json_pack("{s:i,s:O,s:O,s:O?}", "qid", q->qid, "query", q->q, "answer", ans, "look", q->look);
        char *d = m ? json_dumps(m, TT_JSON_ANSWER_FLAGS) : NULL;
        json_decref(m);
        if (d)
            game__feed_publish(g, "answer", d);
    }
    free(q->last_answer);
    q->last_answer = txt;
    json_decref(q->answer);
    q->answer = json_incref(ans);
}

/* The primitives an answer added to l from the n0-th on, as the pages'
 * "look" (NULL when out of memory: the page draws nothing of it). */
static json_t *game__look(const overlay_list *l, int n0)
{
    json_t *look = NULL;
    tt_err e = {0};
    return overlay_list_range_json(l, n0, overlay_list_count(l), &look, &e) == TT_OK ? look : NULL;
}

/* Answer q now, adding its drawing to l and keeping the same as q->look. */
static json_t *game__answer(game *g, game__query *q, overlay_list *l)
{
    tt_err e = {0};
    json_t *ans = NULL;
    int n0 = overlay_list_count(l);
    json_decref(q->look);
    q->look = NULL;
    if (!g->sc.scene)
        return json_pack("{s:s}", "error", "no scenario: give --scenario or send one (PUT /api/scenario)");
    /* A question about a figure that is off the table right now draws
     * nothing; it is not an error for the game. */
    if (table_scene_query(g->sc.scene, q->q, l, &ans, &e) != TT_OK)
        ans = json_pack("{s:s}", "error", e.msg);
    else
        q->look = game__look(l, n0);
    return ans;
}

/* ---- the projector ---- */

/* The table server's address as a QR code (libqrencode), light modules
 * projected white and dark ones left unlit, in the table's near-left corner,
 * with the address written under it. */
/* Does a square of side `side` at (x0, y0) keep clear of every tag's dark
 * mask (the anchors' and the figures' seen now)? */
static int game__clear_of_tags(const game *g, double x0, double y0, double side)
{
    for (int i = 0; i < g->rig->nanchors + g->figures.nfig; i++) {
        int a = i < g->rig->nanchors;
        const calib_anchor *an = a ? &g->rig->anchors[i] : NULL;
        const track_figure *f = a ? NULL : &g->figures.figs[i - g->rig->nanchors];
        if (f && f->state == VISION_TAG_LOST)
            continue;
        double x = a ? an->x : f->x, y = a ? an->y : f->y, size = a ? an->size_in : g->rig->base_size_in;
        double r = 0.5 * OVERLAY_TAG_MASK_FACTOR * size * M_SQRT2; /* the mask's half diagonal */
        double dx = fmax(fmax(x0 - x, x - (x0 + side)), 0), dy = fmax(fmax(y0 - y, y - (y0 + side)), 0);
        if (dx * dx + dy * dy < r * r)
            return 0;
    }
    return 1;
}

/* Where the QR code goes: where it was, while no tag comes near; else in
 * the corner at (1, 1) if no tag is there, else the free spot nearest it
 * (the tags are masked dark, and a QR code with a hole does not decode). */
static void game__banner_spot(game *g, double side, double *x0, double *y0)
{
    if (g->proj.banner_placed && game__clear_of_tags(g, g->proj.banner_at[0], g->proj.banner_at[1], side)) {
        *x0 = g->proj.banner_at[0];
        *y0 = g->proj.banner_at[1];
        return;
    }
    double best = INFINITY;
    *x0 = *y0 = 1.0;
    for (double y = 0.5; y + side <= g->rig->depth_in - 0.5; y += 0.5)
        for (double x = 0.5; x + side <= g->rig->width_in - 0.5; x += 0.5) {
            double d = hypot(x - 1, y - 1);
            if (d < best && game__clear_of_tags(g, x, y, side)) {
                best = d;
                *x0 = x;
                *y0 = y;
            }
        }
    g->proj.banner_at[0] = *x0;
    g->proj.banner_at[1] = *y0;
    g->proj.banner_placed = 1;
}

static tt_status game__draw_banner(game *g, tt_err *err)
{
    QRcode *qr = QRcode_encodeString(g->proj.banner, 0, QR_ECLEVEL_M, QR_MODE_8, 1);
    if (!qr)
        return TT_OK; /* too long to encode: the address is still on stderr */
    double side = 6.0, quiet = 4, mod = side / (qr->width + 2 * quiet), x0, y0;
    game__banner_spot(g, side, &x0, &y0);
    overlay_style fill = overlay_style_line(OVERLAY_ROLE_NEUTRAL, 0);
    fill.fill_alpha = 1;
    tt_status st = TT_OK;
    /* light runs, row by row (the quiet zone is light too) */
    int n = qr->width + 2 * (int)quiet;
    for (int r = 0; r < n && st == TT_OK; r++) {
        for (int c = 0; c < n && st == TT_OK;) {
            int qr_r = r - (int)quiet, qr_c = c - (int)quiet;
            int dark = qr_r >= 0 && qr_c >= 0 && qr_r < qr->width && qr_c < qr->width &&
                       (qr->data[qr_r * qr->width + qr_c] & 1);
            if (dark) {
                c++;
                continue;
            }
            int c1 = c;
            for (;;) {
                int rr = r - (int)quiet, cc = c1 - (int)quiet;
                int d = rr >= 0 && cc >= 0 && rr < qr->width && cc < qr->width && (qr->data[rr * qr->width + cc] & 1);
                if (c1 >= n || d)
                    break;
                c1++;
            }
            double xy[8] = {x0 + c * mod, y0 + r * mod, x0 + c1 * mod, y0 + r * mod,
                            x0 + c1 * mod, y0 + (r + 1) * mod, x0 + c * mod, y0 + (r + 1) * mod};
            st = overlay_add_polygon(g->proj.list, xy, 4, fill, err);
            c = c1;
        }
    }
    QRcode_free(qr);
    if (st == TT_OK)
        st = overlay_add_text(g->proj.list, x0 + side / 2, y0 + side + 0.5, g->proj.banner, 0.35, 0, OVERLAY_ROLE_NEUTRAL, err);
    return st;
}

void game__place_figures(game *g)
{
    for (int i = 0; g->sc.scene && i < g->figures.nfig; i++) {
        const track_figure *f = &g->figures.figs[i];
        tt_err e = {0};
        if (f->state == VISION_TAG_LOST)
            continue;
        /* where it stands, and how sure that is (answers then say when
         * they cannot tell) */
        (void)table_scene_place(g->sc.scene, f->id, f->x, f->y, f->facing_deg, NULL, &e);
        (void)table_scene_set_errors(g->sc.scene, f->id, f->err95_in, f->z_err95_in, f->facing_err95_deg, &e);
    }
}

tt_status game__answer_and_draw(game *g, int frame_no, long long t_ms, tt_err *err)
{
    tt_status st = TT_OK;
    overlay_list *l = g->proj.list;
    overlay_list_clear(l);
    /* Figures where they stand: move the scenario's figures first so the
     * questions are answered for the table as it is now. */
    game__place_figures(g);
    for (int i = 0; g->proj.n && i < g->figures.nfig; i++) {
        const track_figure *f = &g->figures.figs[i];
        if (f->state == VISION_TAG_LOST)
            continue;
        overlay_style ring = overlay_style_line(OVERLAY_ROLE_NEUTRAL, 0.05);
        ring.dashed = f->state == VISION_TAG_OCCLUDED;
        /* the ring goes around the tag's dark mask, whatever its turn */
        double r = overlay_tag_ring_in(g->rig->base_size_in), a = f->facing_deg * M_PI / 180;
        /* the tag seen or kept this frame stays dark where it is now */
        if ((st = overlay_add_tag_mask(l, f->x, f->y, f->facing_deg, g->rig->base_size_in,
                                       f->z_in + g->rig->base_height_mm / 25.4, err)) != TT_OK)
            return st;
        /* the ring and its facing tick at the height the figure stands at
         * (measured, on a hill no scenario declares), not on the ground */
        if ((st = overlay_add_circle(l, f->x, f->y, r, ring, err)) != TT_OK ||
            (st = overlay_set_last_height(l, fmax(0, f->z_in), err)) != TT_OK ||
            (st = overlay_add_line(l, f->x + r * cos(a), f->y + r * sin(a), f->x + (r + 0.4) * cos(a),
                                   f->y + (r + 0.4) * sin(a), overlay_style_line(OVERLAY_ROLE_NEUTRAL, 0.06), err)) !=
                TT_OK ||
            (st = overlay_set_last_height(l, fmax(0, f->z_in), err)) != TT_OK)
            return st;
    }
    game__picks_expire(&g->picks);
    if (g->proj.n && (st = game__draw_picks(g, l, err)) != TT_OK)
        return st;
    /* the anchors the pose is checked on stay dark too */
    for (int i = 0; g->proj.n && i < g->rig->nanchors; i++) {
        const calib_anchor *an = &g->rig->anchors[i];
        if ((st = overlay_add_tag_mask(l, an->x, an->y, -90, an->size_in, 0, err)) != TT_OK)
            return st;
    }
    for (int i = 0; i < g->questions.nq; i++) {
        game__query *q = &g->questions.qs[i];
        if (frame_no < q->from || frame_no > q->until)
            continue;
        json_t *ans = game__answer(g, q, l);
        if (ans)
            game__answer_changed(g, q, ans, frame_no, t_ms);
        json_decref(ans);
    }
    if (!g->proj.n)
        return TT_OK;
    if ((st = game__referee_draw(g, l, err)) != TT_OK)
        return st;
    if (g->proj.hidden)
        overlay_list_clear(l);
    else if (g->proj.banner && !g->questions.asked_live && (st = game__draw_banner(g, err)) != TT_OK)
        return st;
    if (!g->proj.hidden && g->figures.camera_state == 1 &&
        (st = overlay_add_text(l, g->rig->width_in / 2, g->rig->depth_in / 2, "CAMERA LOST - reconnecting", 1.2, 0,
                               OVERLAY_ROLE_BLOCKED, err)) != TT_OK)
        return st;
    return game__projector_draw(g, frame_no, err);
}

/* ---- thread-safe: questions from viewers ---- */

tt_status game_query_add(game *g, const char *text, size_t len, int *qid, char **answer_json, char **look_json,
                         tt_err *err)
{
    json_t *q = NULL;
    tt_status st;
    *qid = 0;
    *answer_json = NULL;
    *look_json = NULL;
    if (strlen(text) != len)
        return tt_err_set(err, TT_ERR_FORMAT, "the question holds a NUL byte: send one JSON object");
    if (len > GAME_MAX_QUESTION_BYTES)
        return tt_err_set(err, TT_ERR_ARG, "the question is %zu bytes, over the limit of %d: send one question", len,
                          GAME_MAX_QUESTION_BYTES);
    if ((st = tt_json_parse(text, "the question", &q, err)) != TT_OK)
        return st;
    if (!json_is_object(q)) {
        json_decref(q);
        return tt_err_set(err, TT_ERR_FORMAT, "a question is a JSON object such as {\"q\":\"los\",\"from\":\"a\",\"to\":\"b\"}");
    }
    pthread_mutex_lock(&g->mu);
    if (!g->sc.scene) {
        pthread_mutex_unlock(&g->mu);
        json_decref(q);
        return tt_err_set(err, TT_ERR_ARG, "no scenario yet: start with --scenario FILE or send one (PUT /api/scenario)");
    }
    int kept = 0;
    for (int i = 0; i < g->questions.nq; i++)
        kept += g->questions.qs[i].asked;
    if (kept >= GAME_MAX_QUESTIONS) {
        pthread_mutex_unlock(&g->mu);
        json_decref(q);
        return tt_err_set(err, TT_ERR_ARG,
                          "the table already shows %d questions, the most it keeps: withdraw one (DELETE "
                          "/api/query/N) or all of them (DELETE /api/query) before asking another",
                          GAME_MAX_QUESTIONS);
    }
    json_t *ans = NULL;
    /* the rules engine checks the question first: a bad one is not kept */
    overlay_list_clear(g->proj.scratch);
    if ((st = table_scene_query(g->sc.scene, q, g->proj.scratch, &ans, err)) != TT_OK) {
        pthread_mutex_unlock(&g->mu);
        json_decref(q);
        return st;
    }
    int from = g->figures.frame_no < 0 ? 0 : g->figures.frame_no; /* shown now, and from every frame on */
    if ((st = game__query_push(g, q, from, INT_MAX, qid, err)) != TT_OK) {
        pthread_mutex_unlock(&g->mu);
        json_decref(ans);
        return st;
    }
    game__query *e = &g->questions.qs[g->questions.nq - 1];
    g->questions.asked_live = 1;
    e->asked = 1;
    e->look = game__look(g->proj.scratch, 0);
    game__answer_changed(g, e, ans, g->figures.frame_no < 0 ? 0 : g->figures.frame_no, (long long)g->figures.t_ms);
    *answer_json = json_dumps(ans, TT_JSON_ANSWER_FLAGS);
    *look_json = e->look ? json_dumps(e->look, TT_JSON_ANSWER_FLAGS) : strdup("[]");
    json_decref(ans);
    g->dirty = 1;
    pthread_mutex_unlock(&g->mu);
    if (!*answer_json || !*look_json) {
        free(*answer_json);
        free(*look_json);
        *answer_json = *look_json = NULL;
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    }
    return TT_OK;
}

tt_status game_query_remove(game *g, int qid, tt_err *err)
{
    int found = 0;
    pthread_mutex_lock(&g->mu);
    for (int i = 0; i < g->questions.nq;) {
        if (qid == 0 || g->questions.qs[i].qid == qid) {
            game__query_free(&g->questions.qs[i]);
            memmove(&g->questions.qs[i], &g->questions.qs[i + 1], sizeof *g->questions.qs * (size_t)(g->questions.nq - i - 1));
            g->questions.nq--;
            found = 1;
        } else
            i++;
    }
    g->dirty = 1;
    pthread_mutex_unlock(&g->mu);
    if (!found && qid != 0)
        return tt_err_set(err, TT_ERR_UNKNOWN, "no question %d is shown (GET /api/state lists them under \"shown\")",
                          qid);
    return TT_OK;
}
