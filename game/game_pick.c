/* game_pick.c - the figures players have picked on their pages: while a
 * page has a figure's menu open it says so (PUT /api/pick), and the
 * projector rings that figure on the felt so the player sees on the table
 * whether they got the figure they meant.  One pick per page (its client
 * id); a pick not renewed for GAME_PICK_TTL_MS is dropped, so a page that
 * goes away leaves nothing behind. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "game_internal.h"
#include "tt_json.h"

/* Is id one of the scenario's figures? */
static int game__pick_known(game *g, const char *id)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(g->sc.root, "figures"), i, f)
    {
        const char *fid = json_string_value(json_object_get(f, "id"));
        if (fid && !strcmp(fid, id))
            return 1;
    }
    return 0;
}

static int game__pick_find(const game__picks *p, const char *client)
{
    for (int i = 0; i < p->npick; i++)
        if (!strcmp(p->picks[i].client, client))
            return i;
    return -1;
}

static void game__pick_drop(game__picks *p, int i)
{
    free(p->picks[i].id);
    memmove(&p->picks[i], &p->picks[i + 1], sizeof *p->picks * (size_t)(p->npick - i - 1));
    p->npick--;
}

void game__picks_init(game__picks *p)
{
    pthread_mutex_init(&p->mu, NULL);
}

tt_status game_pick_set(game *g, const char *client, const char *text, size_t len, tt_err *err)
{
    json_t *j = NULL;
    tt_status st;
    if (strlen(client) >= sizeof g->picks.picks[0].client)
        return tt_err_set(err, TT_ERR_ARG, "the page's client id is over %d characters",
                          (int)sizeof g->picks.picks[0].client - 1);
    if (strlen(text) != len)
        return tt_err_set(err, TT_ERR_FORMAT, "the pick holds a NUL byte: send {\"id\": \"FIGURE\"}");
    if ((st = tt_json_parse(text, "the pick", &j, err)) != TT_OK)
        return st;
    const char *id = json_string_value(json_object_get(j, "id"));
    if (!json_is_object(j) || !id || !id[0]) {
        json_decref(j);
        return tt_err_set(err, TT_ERR_FORMAT, "a pick is {\"id\": \"FIGURE\"}: the id of one of the scenario's figures");
    }
    char *copy = strdup(id);
    json_decref(j);
    if (!copy)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    pthread_mutex_lock(&g->mu);
    if (!game__pick_known(g, copy)) {
        pthread_mutex_unlock(&g->mu);
        tt_err_set(err, TT_ERR_UNKNOWN, "no figure %s in the scenario (GET /api/state lists the figures)", copy);
        free(copy);
        return TT_ERR_UNKNOWN;
    }
    game__picks *p = &g->picks;
    pthread_mutex_lock(&p->mu);
    int i = game__pick_find(p, client);
    if (i < 0 && p->npick == GAME__PICKS)
        game__pick_drop(p, 0); /* the oldest page gives way */
    if (i < 0) {
        i = p->npick++;
        snprintf(p->picks[i].client, sizeof p->picks[i].client, "%s", client);
        p->picks[i].id = NULL;
    }
    if (!p->picks[i].id || strcmp(p->picks[i].id, copy))
        g->dirty = 1;
    free(p->picks[i].id);
    p->picks[i].id = copy;
    p->picks[i].at_ms = tt_mono_ms();
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&g->mu);
    return TT_OK;
}

void game_pick_clear(game *g, const char *client)
{
    pthread_mutex_lock(&g->mu);
    pthread_mutex_lock(&g->picks.mu);
    int i = game__pick_find(&g->picks, client);
    if (i >= 0) {
        game__pick_drop(&g->picks, i);
        g->dirty = 1;
    }
    pthread_mutex_unlock(&g->picks.mu);
    pthread_mutex_unlock(&g->mu);
}

int game__picks_expire(game__picks *p)
{
    double now = tt_mono_ms();
    int dropped = 0;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < p->npick;)
        if (now - p->picks[i].at_ms > GAME_PICK_TTL_MS) {
            game__pick_drop(p, i);
            dropped = 1;
        } else
            i++;
    pthread_mutex_unlock(&p->mu);
    return dropped;
}

json_t *game__picked_json(game__picks *p)
{
    json_t *a = json_array();
    double now = tt_mono_ms();
    pthread_mutex_lock(&p->mu);
    for (int i = 0; a && i < p->npick; i++)
        if (now - p->picks[i].at_ms <= GAME_PICK_TTL_MS) /* not yet dropped by the game's loop */
            json_array_append_new(a, json_string(p->picks[i].id));
    pthread_mutex_unlock(&p->mu);
    return a;
}

tt_status game__draw_picks(game *g, overlay_list *l, tt_err *err)
{
    tt_status st = TT_OK;
    /* two rings in the role colour, outside the plain ring and its mask */
    double r = overlay_tag_ring_in(g->rig->base_size_in);
    overlay_style ring = overlay_style_line(OVERLAY_ROLE_TARGET, 0.1);
    pthread_mutex_lock(&g->picks.mu);
    for (int p = 0; p < g->picks.npick && st == TT_OK; p++)
        for (int i = 0; i < g->figures.nfig && st == TT_OK; i++) {
            const track_figure *f = &g->figures.figs[i];
            const char *id = json_string_value(json_object_get(game__figure_info(g, f->id), "id"));
            if (f->state == VISION_TAG_LOST || !id || strcmp(id, g->picks.picks[p].id))
                continue;
            /* at the height the figure stands at, as its own ring */
            for (int k = 0; k < 2 && st == TT_OK; k++)
                if ((st = overlay_add_circle(l, f->x, f->y, r + (k ? 0.35 : 0.15), ring, err)) == TT_OK)
                    st = overlay_set_last_height(l, fmax(0, f->z_in), err);
        }
    pthread_mutex_unlock(&g->picks.mu);
    return st;
}

void game__picks_free(game__picks *p)
{
    for (int i = 0; i < p->npick; i++)
        free(p->picks[i].id);
    p->npick = 0;
    pthread_mutex_destroy(&p->mu);
}
