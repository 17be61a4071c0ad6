/* game_capture.c - the capture thread: reads the source ahead of the
 * tracker into a ring of GAME__SLOTS frames.  A camera drops its oldest
 * frame rather than fall behind; a file waits for room. */
#include <string.h>
#include <time.h>

#include "game_internal.h"

static void game__capture_finish(game__capture *c, tt_status st, const tt_err *e)
{
    c->st = st;
    if (e)
        c->err = *e;
    c->done = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static void *game__capture_main(void *arg)
{
    game__capture *c = arg;
    for (;;) {
        const tt_image *f = NULL;
        double t = 0;
        vision_frame_status fs;
        tt_err e = {0};
        tt_status st = vision_source_next(c->src, &f, &t, &fs, &e);
        double arrived = tt_mono_ms();
        pthread_mutex_lock(&c->mu);
        if (st != TT_OK || c->quit) {
            game__capture_finish(c, st, &e);
            return NULL;
        }
        while (c->count == GAME__SLOTS && !c->live && !c->quit)
            pthread_cond_wait(&c->cv, &c->mu);
        if (c->quit) {
            game__capture_finish(c, TT_OK, NULL);
            return NULL;
        }
        if (c->count == GAME__SLOTS) { /* live: drop the oldest */
            c->head = (c->head + 1) % GAME__SLOTS;
            c->count--;
        }
        game__slot *s = &c->slot[(c->head + c->count) % GAME__SLOTS];
        s->status = fs;
        s->t_ms = t;
        s->arrived = arrived;
        if (fs == VISION_FRAME) {
            if (!s->im.data || s->im.width != f->width || s->im.height != f->height) {
                tt_image_free(&s->im);
                if (tt_image_alloc(&s->im, f->width, f->height, 1, &e) != TT_OK) {
                    game__capture_finish(c, TT_ERR_NOMEM, &e);
                    return NULL;
                }
            }
            for (int y = 0; y < f->height; y++)
                memcpy(s->im.data + (size_t)y * s->im.stride, f->data + (size_t)y * f->stride, (size_t)f->width);
        }
        c->count++;
        pthread_cond_broadcast(&c->cv);
        int end = fs == VISION_END || fs == VISION_LOST;
        if (end)
            c->done = 1;
        pthread_mutex_unlock(&c->mu);
        if (end)
            return NULL;
    }
}

tt_status game__capture_start(game__capture *c, vision_source *src, int live, tt_err *err)
{
    c->src = src;
    c->live = live;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    if (pthread_create(&c->th, NULL, game__capture_main, c) != 0)
        return tt_err_set(err, TT_ERR_INTERNAL, "cannot start the capture thread");
    c->started = 1;
    return TT_OK;
}

int game__capture_take(game__capture *c, int wait_ms, game__slot *out, tt_status *st, tt_err *err)
{
    pthread_mutex_lock(&c->mu);
    if (c->count == 0 && !c->done && wait_ms > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)wait_ms * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        while (c->count == 0 && !c->done)
            if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) != 0)
                break;
    }
    if (c->count == 0) {
        int done = c->done;
        if (done) {
            *st = c->st;
            *err = c->err;
        }
        pthread_mutex_unlock(&c->mu);
        return done ? -1 : 0;
    }
    /* Take the slot; swap its image out so the producer fills another. */
    game__slot *s = &c->slot[c->head];
    *out = *s;
    memset(&s->im, 0, sizeof s->im);
    c->head = (c->head + 1) % GAME__SLOTS;
    c->count--;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return 1;
}

tt_status game__capture_restart(game__capture *c, tt_err *err)
{
    pthread_join(c->th, NULL);
    c->started = 0;
    c->done = 0;
    c->count = 0;
    c->head = 0;
    c->st = TT_OK;
    if (pthread_create(&c->th, NULL, game__capture_main, c) != 0)
        return tt_err_set(err, TT_ERR_INTERNAL, "cannot restart the capture thread");
    c->started = 1;
    return TT_OK;
}

void game__capture_stop(game__capture *c)
{
    if (!c->started)
        return;
    pthread_mutex_lock(&c->mu);
    c->quit = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->th, NULL);
    c->started = 0;
    for (int i = 0; i < GAME__SLOTS; i++)
        tt_image_free(&c->slot[i].im);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
}

int game__capture_take_newest(game__capture *c, int wait_ms, game__slot *out, tt_status *st, tt_err *err)
{
    int r = game__capture_take(c, wait_ms, out, st, err);
    while (r == 1 && out->status == VISION_FRAME) {
        pthread_mutex_lock(&c->mu);
        int more = c->count > 0 && c->slot[c->head].status == VISION_FRAME;
        pthread_mutex_unlock(&c->mu);
        game__slot next;
        if (!more || game__capture_take(c, 0, &next, st, err) != 1)
            break;
        tt_image_free(&out->im); /* an older frame: dropped */
        *out = next;
    }
    return r;
}
