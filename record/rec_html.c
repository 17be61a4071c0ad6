/* rec_html.c - the replay page: the template (replay_template.html,
 * compiled in) with the game embedded as JSON where it says @@TT_DATA@@.
 * Tracks are streamed by hand (a long game has millions of samples);
 * everything else goes through jansson.  Every '<' in the data is written
 * as \u003c so nothing in it can close the <script> element. */
#include "rec_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char rec__template[];
extern const unsigned long rec__template_len;

static const char rec__marker[] = "@@TT_DATA@@";

/* Write s with '<' escaped (valid inside JSON strings and outside them). */
static void rec__put_escaped(FILE *f, const char *s)
{
    for (const char *p = s; *p; p++) {
        if (*p == '<')
            fputs("\\u003c", f);
        else
            fputc(*p, f);
    }
}

static int rec__put_json(FILE *f, json_t *j)
{
    if (!j)
        return -1;
    char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY | JSON_REAL_PRECISION(7));
    json_decref(j);
    if (!s)
        return -1;
    rec__put_escaped(f, s);
    free(s);
    return 0;
}

/* A JSON array of terrain pieces, as the page draws them. */
static int rec__put_terrain(FILE *f, const rec__terrain *terrain, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        const rec__terrain *t = &terrain[i];
        json_t *pts = json_array();
        for (size_t k = 0; pts && k < t->n; k++)
            json_array_append_new(pts, json_pack("[f,f]", t->pts[2 * k], t->pts[2 * k + 1]));
        if (i)
            fputc(',', f);
        if (!pts || rec__put_json(f, json_pack("{s:s, s:s, s:s, s:b, s:o}", "id", t->id, "kind", t->kind, "colour",
                                               rec__terrain_colour(t->kind), "closed", t->closed, "pts", pts)) != 0)
            return -1;
    }
    fputc(']', f);
    return 0;
}

/* A number without trailing zeros, at most 3 decimals. */
static void rec__put_num(FILE *f, double v)
{
    char b[40];
    if (!isfinite(v)) { /* never NaN or Inf in the page's JSON */
        fputs("null", f);
        return;
    }
    snprintf(b, sizeof b, "%.3f", v);
    char *e = b + strlen(b) - 1;
    while (e > b && *e == '0')
        *e-- = '\0';
    if (*e == '.')
        *e = '\0';
    if (!strcmp(b, "-0"))
        strcpy(b, "0");
    fputs(b, f);
}

static json_t *rec__or_null(const char *text)
{
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    return j ? j : json_object();
}

static int rec__write_data(FILE *f, const rec_game *g)
{
    fputc('{', f);
    fputs("\"session\":", f);
    if (rec__put_json(f, json_integer(g->session)) != 0)
        return -1;
    fputs(",\"started_utc\":", f);
    if (rec__put_json(f, json_string(g->started_utc)) != 0)
        return -1;
    fputs(",\"source\":", f);
    if (rec__put_json(f, g->source ? json_string(g->source) : json_null()) != 0)
        return -1;
    fprintf(f, ",\"ended_cleanly\":%s,\"t0\":%lld,\"t1\":%lld,\"start\":%lld,\"overlay_ms\":%d",
            g->ended_cleanly ? "true" : "false", g->t0, g->t1, g->rec_t0, REC_OVERLAY_MS);
    if (!g->ended_cleanly && g->last_frame >= 0)
        fprintf(f, ",\"truncated_at_frame\":%lld", g->last_frame);
    fputs(",\"table\":{\"w\":", f);
    rec__put_num(f, g->table_w);
    fputs(",\"d\":", f);
    rec__put_num(f, g->table_d);
    fputs("},\"terrain\":", f);
    if (rec__put_terrain(f, g->terrain, g->nterrain) != 0)
        return -1;
    /* the scenario as changed mid-game: the page draws the terrain in force */
    fputs(",\"terrain_changes\":[", f);
    for (size_t i = 0; i < g->nchanges; i++) {
        fprintf(f, "%s{\"t\":%lld,\"terrain\":", i ? "," : "", g->changes[i].t_ms);
        if (rec__put_terrain(f, g->changes[i].terrain, g->changes[i].nterrain) != 0)
            return -1;
        fputc('}', f);
    }
    fputc(']', f);
    fputs(",\"sides\":[", f);
    for (size_t i = 0; i < g->nsides; i++) {
        if (i)
            fputc(',', f);
        if (rec__put_json(f, json_pack("{s:s, s:s}", "name", g->sides[i].name, "colour", g->sides[i].colour)) != 0)
            return -1;
    }
    fputs("],\"figs\":[", f);
    for (size_t i = 0; i < g->nfigs; i++) {
        const rec__fig *fg = &g->figs[i];
        if (i)
            fputc(',', f);
        if (rec__put_json(f, json_pack("{s:s, s:i, s:s?, s:i, s:f}", "family", fg->family, "tag", fg->tag, "name",
                                       fg->name, "side", fg->side, "r", fg->radius)) != 0)
            return -1;
    }
    /* tracks[fig] = [t, x, y, facing, state, t, x, ...] */
    fputs("],\"tracks\":[", f);
    for (size_t i = 0; i < g->nfigs; i++) {
        size_t n;
        const long *ix = rec__game_fig_states(g, (int)i, &n);
        fputs(i ? ",[" : "[", f);
        for (size_t k = 0; k < n; k++) {
            const rec__state *s = &g->states[ix[k]];
            fprintf(f, "%s%lld,", k ? "," : "", s->t_ms);
            rec__put_num(f, s->x);
            fputc(',', f);
            rec__put_num(f, s->y);
            fputc(',', f);
            rec__put_num(f, s->facing);
            fprintf(f, ",%d", s->state);
        }
        fputc(']', f);
    }
    /* events[] = [t, kind, fig, from_x, from_y, to_x, to_y, z_in] (null when
     * absent; z_in is the height a "height" event's figure stands at) */
    fputs("],\"events\":[", f);
    for (size_t i = 0; i < g->nevents; i++) {
        const rec__event *e = &g->events[i];
        fprintf(f, "%s[%lld,%d,%d", i ? "," : "", e->t_ms, e->kind, e->fig);
        for (int k = 0; k < 2; k++) {
            fputc(',', f);
            if (e->has_from)
                rec__put_num(f, e->from[k]);
            else
                fputs("null", f);
        }
        for (int k = 0; k < 2; k++) {
            fputc(',', f);
            if (e->has_to)
                rec__put_num(f, e->to[k]);
            else
                fputs("null", f);
        }
        fputc(',', f);
        if (e->kind == REC_EV_HEIGHT)
            rec__put_num(f, e->z);
        else
            fputs("null", f);
        fputc(']', f);
    }
    fputs("],\"queries\":[", f);
    for (size_t i = 0; i < g->nqueries; i++) {
        const rec__query *q = &g->queries[i];
        if (i)
            fputc(',', f);
        /* ov: the answer's look (table_look_json's primitives); note: why it has none */
        if (rec__put_json(f, json_pack("{s:I, s:o, s:o, s:O, s:s?}", "t", (json_int_t)q->t_ms, "q",
                                       rec__or_null(q->query), "a", rec__or_null(q->answer), "ov", q->overlay, "note",
                                       q->note)) != 0)
            return -1;
    }
    /* what the felt showed of the referee: each event's look as it came
     * (null: none), and after each batch the events it kept (where the
     * game stood is beside the page's clock) */
    fputs("],\"ref_looks\":[", f);
    for (size_t i = 0; i < g->nrefs; i++) {
        if (i)
            fputc(',', f);
        if (rec__put_json(f, g->refs[i].look ? json_incref(g->refs[i].look) : json_null()) != 0)
            return -1;
    }
    fputs("],\"felt\":[", f);
    for (size_t i = 0, n = 0; i < g->nrefs; i++) {
        const rec__ref *r = &g->refs[i];
        if (!r->batch_end)
            continue;
        fprintf(f, "%s{\"t\":%lld,\"ids\":[", n++ ? "," : "", r->t_ms);
        for (int k = 0; k < r->nkept; k++)
            fprintf(f, "%s%d", k ? "," : "", r->kept[k]);
        fputs("]}", f);
    }
    /* the referee's story: where each phase began, the log turn by turn */
    char *story = rec_game_referee_log(g);
    if (!story)
        return -1;
    fputs("],\"referee\":", f);
    rec__put_escaped(f, story);
    free(story);
    fputc('}', f);
    return ferror(f) ? -1 : 0;
}

/* The page into f: 0, or -1 when f failed. */
static int rec__write_page(FILE *f, const rec_game *g, const char *mark)
{
    const char *tpl = (const char *)rec__template;
    fwrite(tpl, 1, (size_t)(mark - tpl), f);
    if (rec__write_data(f, g) != 0)
        return -1;
    const char *rest = mark + strlen(rec__marker);
    fwrite(rest, 1, rec__template_len - (size_t)(rest - tpl), f);
    return ferror(f) ? -1 : 0;
}

static const char *rec__page_mark(tt_err *err)
{
    const char *mark = strstr((const char *)rec__template, rec__marker);
    if (!mark)
        tt_err_set(err, TT_ERR_INTERNAL, "the replay page template has no data marker (a build problem)");
    return mark;
}

tt_status rec_game_write_html(const rec_game *g, const char *path, tt_err *err)
{
    const char *mark = rec__page_mark(err);
    if (!mark)
        return TT_ERR_INTERNAL;
    rec__outfile o;
    tt_status s = rec__outfile_open(&o, path, err);
    if (s != TT_OK)
        return s;
    if (rec__write_page(o.f, g, mark) != 0) {
        rec__outfile_abort(&o);
        return tt_err_set(err, TT_ERR_IO, "cannot write %s (disk full, or out of memory)", path);
    }
    return rec__outfile_commit(&o, err);
}

tt_status rec_game_html_text(const rec_game *g, char **text, size_t *len, tt_err *err)
{
    *text = NULL;
    *len = 0;
    const char *mark = rec__page_mark(err);
    if (!mark)
        return TT_ERR_INTERNAL;
    FILE *f = open_memstream(text, len);
    if (!f)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory for the replay page");
    int bad = rec__write_page(f, g, mark);
    bad |= fclose(f) != 0;
    if (bad) {
        free(*text);
        *text = NULL;
        *len = 0;
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory for the replay page");
    }
    return TT_OK;
}
