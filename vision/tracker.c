/* tracker.c - see tracker.h for the method. */
#include "tracker.h"

#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define TRK__STEP 4   /* change-map sample spacing, pixels */
#define TRK__BLOCK 8  /* change-map block, in samples (32 px) */
#define TRK__SETTLE 2 /* quiet frames before a changed block is searched */
#define TRK__MAXWIN 4096

typedef struct trk__track {
    vision_track pub;
    int rx, ry, rw, rh; /* reference patch rectangle */
    uint8_t *ref;       /* samples at step 2, (rw/2) x (rh/2) */
    int window;         /* window searched this frame, -1 if none */
    double pc[2];       /* centre before this frame (pixels) */
    int warned_twice;   /* "seen twice" already reported */
} trk__track;

typedef enum { TRK__WIN_TRACK, TRK__WIN_SETTLED, TRK__WIN_SWEEP, TRK__WIN_FINE } trk__wkind;

typedef struct trk__window {
    int x, y, w, h;
    trk__wkind kind;
    int fine; /* read at full resolution */
    vision_detections found;
    tt_status st;
} trk__window;

struct vision_tracker {
    vision_tracker_opts o;
    int twice; /* tags seen twice at different places this frame */
    int nthreads;
    vision_detector *roi[8], *sweep[8], *full;
    trk__track *tr;
    int ntr, captr;
    vision_track *pub; /* output array */
    int width, height;
    int gw, gh;        /* sample grid */
    uint8_t *grid;
    int bw, bh;        /* block grid */
    int *quiet;        /* frames since the block last changed */
    uint8_t *pending;  /* changed and not yet searched */
    long *bsum;        /* per-frame scratch: block diff sums, sample counts, */
    int *bcnt;         /* flood-fill stack (sized with the block grid) */
    int *bstack;
    uint8_t *dirty;    /* changed since a sweep tile last covered it */
    uint8_t *fineblk;  /* inside a fine rectangle */
    int fine[4 * VISION_TRACKER_MAX_FINE], nfine;
    int fine_pending;  /* search the fine rectangles whole on the next update */
    int look[4 * VISION_TRACKER_MAX_LOOK], nlook; /* vision_tracker_look's, for the next update */
    int idle;          /* frames since the last sweep tile */
    int need_full;
    int tile;
    int sweep_waited;  /* busy frames in a row without a sweep tile */
    trk__window *win;
    int nwin;
    int next_win;      /* work queue (atomic) */
    const tt_image *frame;
};

void vision_tracker_opts_default(vision_tracker_opts *o)
{
    memset(o, 0, sizeof *o);
    vision_detector_opts_default(&o->det);
    o->tiles_x = 8;
    o->tiles_y = 6;
    o->grace_frames = 45;
    o->change_level = 8.0;
    o->threads = 2;
    o->sweep_wait = 3;
    o->sweep_idle = 30;
}

tt_status vision_tracker_create(const vision_tracker_opts *opts, vision_tracker **out, tt_err *err)
{
    vision_tracker *t;
    tt_status st;
    *out = NULL;
    if (opts->threads < 1 || opts->threads > 8)
        return tt_err_set(err, TT_ERR_ARG, "tracker threads must be 1..8");
    if (opts->tiles_x < 1 || opts->tiles_y < 1 || opts->grace_frames < 0)
        return tt_err_set(err, TT_ERR_ARG, "tracker tiles must be >= 1 and grace >= 0");
    if (opts->sweep_idle < 1)
        return tt_err_set(err, TT_ERR_ARG, "tracker sweep_idle must be >= 1 frame (got %d)", opts->sweep_idle);
    t = calloc(1, sizeof *t);
    if (!t)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    t->o = *opts;
    t->nthreads = opts->threads;
    t->win = calloc(TRK__MAXWIN, sizeof *t->win);
    if (!t->win) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int i = 0; i < t->nthreads; i++) {
        vision_detector_opts d = opts->det;
        d.nthreads = 1;
        if ((st = vision_detector_create(&d, &t->sweep[i], err)) != TT_OK)
            goto fail;
        d.decimate = 1; /* windows where tags are small: full resolution */
        if ((st = vision_detector_create(&d, &t->roi[i], err)) != TT_OK)
            goto fail;
    }
    {
        vision_detector_opts d = opts->det;
        d.nthreads = t->nthreads;
        if ((st = vision_detector_create(&d, &t->full, err)) != TT_OK)
            goto fail;
    }
    t->need_full = 1;
    *out = t;
    return TT_OK;
fail:
    vision_tracker_destroy(t);
    return st;
}

void vision_tracker_destroy(vision_tracker *t)
{
    if (!t)
        return;
    for (int i = 0; i < 8; i++) {
        vision_detector_destroy(t->roi[i]);
        vision_detector_destroy(t->sweep[i]);
    }
    vision_detector_destroy(t->full);
    for (int i = 0; i < t->ntr; i++)
        free(t->tr[i].ref);
    if (t->win)
        for (int i = 0; i < TRK__MAXWIN; i++)
            vision_detections_free(&t->win[i].found);
    free(t->win);
    free(t->tr);
    free(t->pub);
    free(t->grid);
    free(t->quiet);
    free(t->pending);
    free(t->bsum);
    free(t->bcnt);
    free(t->bstack);
    free(t->dirty);
    free(t->fineblk);
    free(t);
}

void vision_tracker_request_full(vision_tracker *t)
{
    if (t)
        t->need_full = 1;
}

static int trk__clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Bounding box of a detection's corners, grown by margin, clipped. */
static void trk__bbox(const vision_tracker *t, const vision_detection *d, int margin, int *x, int *y, int *w, int *h)
{
    double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
    for (int k = 0; k < 4; k++) {
        x0 = fmin(x0, d->corners[k][0]);
        x1 = fmax(x1, d->corners[k][0]);
        y0 = fmin(y0, d->corners[k][1]);
        y1 = fmax(y1, d->corners[k][1]);
    }
    int ax = trk__clampi((int)floor(x0) - margin, 0, t->width - 1);
    int ay = trk__clampi((int)floor(y0) - margin, 0, t->height - 1);
    int bx = trk__clampi((int)ceil(x1) + margin, 0, t->width - 1);
    int by = trk__clampi((int)ceil(y1) + margin, 0, t->height - 1);
    *x = ax;
    *y = ay;
    *w = bx - ax + 1;
    *h = by - ay + 1;
}

static double trk__tag_px(const vision_detection *d)
{
    return 0.5 * (hypot(d->corners[1][0] - d->corners[0][0], d->corners[1][1] - d->corners[0][1]) +
                  hypot(d->corners[2][0] - d->corners[1][0], d->corners[2][1] - d->corners[1][1]));
}

/* Sample the reference patch of a track from the frame. */
static tt_status trk__set_ref(vision_tracker *t, trk__track *k, const tt_image *f, tt_err *err)
{
    trk__bbox(t, &k->pub.det, 3, &k->rx, &k->ry, &k->rw, &k->rh);
    int sw = (k->rw + 1) / 2, sh = (k->rh + 1) / 2;
    uint8_t *ref = realloc(k->ref, (size_t)sw * (size_t)sh);
    if (!ref)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    k->ref = ref;
    for (int j = 0; j < sh; j++) {
        const uint8_t *row = f->data + (size_t)(k->ry + 2 * j < t->height ? k->ry + 2 * j : t->height - 1) * f->stride;
        for (int i = 0; i < sw; i++) {
            int x = k->rx + 2 * i < t->width ? k->rx + 2 * i : t->width - 1;
            ref[j * sw + i] = row[x];
        }
    }
    return TT_OK;
}

/* Mean absolute difference between the frame and a track's reference. */
static double trk__ref_diff(const vision_tracker *t, const trk__track *k, const tt_image *f)
{
    int sw = (k->rw + 1) / 2, sh = (k->rh + 1) / 2;
    long sum = 0;
    for (int j = 0; j < sh; j++) {
        const uint8_t *row = f->data + (size_t)(k->ry + 2 * j < t->height ? k->ry + 2 * j : t->height - 1) * f->stride;
        const uint8_t *ref = k->ref + j * sw;
        for (int i = 0; i < sw; i++) {
            int x = k->rx + 2 * i < t->width ? k->rx + 2 * i : t->width - 1;
            sum += abs((int)row[x] - (int)ref[i]);
        }
    }
    return (double)sum / ((double)sw * sh);
}

/* Start the change map afresh from this frame: sample grid, no change. */
static void trk__reset_map(vision_tracker *t, const tt_image *f)
{
    size_t nb = (size_t)t->bw * (size_t)t->bh;
    for (int j = 0; j < t->gh; j++)
        for (int i = 0; i < t->gw; i++)
            t->grid[j * t->gw + i] = f->data[(size_t)(j * TRK__STEP + TRK__STEP / 2) * f->stride + i * TRK__STEP +
                                             TRK__STEP / 2];
    memset(t->quiet, 0, nb * sizeof *t->quiet);
    memset(t->pending, 0, nb);
    memset(t->dirty, 0, nb);
}

/* Mark the blocks inside the fine rectangles. */
static void trk__fine_blocks(vision_tracker *t)
{
    int px = TRK__STEP * TRK__BLOCK;
    for (int by = 0; by < t->bh; by++)
        for (int bx = 0; bx < t->bw; bx++) {
            int f = 0;
            for (int r = 0; r < t->nfine && !f; r++) {
                const int *q = &t->fine[4 * r];
                f = bx * px < q[0] + q[2] && (bx + 1) * px > q[0] && by * px < q[1] + q[3] && (by + 1) * px > q[1];
            }
            t->fineblk[by * t->bw + bx] = (uint8_t)f;
        }
}

/* Does the window touch a fine block? */
static int trk__is_fine(const vision_tracker *t, int x, int y, int w, int h)
{
    if (!t->nfine)
        return 0;
    int px = TRK__STEP * TRK__BLOCK;
    /* clipped to the block grid (a sweep tile reaches past the frame) */
    int bx0 = trk__clampi(x / px, 0, t->bw - 1), by0 = trk__clampi(y / px, 0, t->bh - 1);
    int bx1 = trk__clampi((x + w - 1) / px, 0, t->bw - 1), by1 = trk__clampi((y + h - 1) / px, 0, t->bh - 1);
    for (int by = by0; by <= by1; by++)
        for (int bx = bx0; bx <= bx1; bx++)
            if (t->fineblk[by * t->bw + bx])
                return 1;
    return 0;
}

tt_status vision_tracker_set_fine(vision_tracker *t, const int *rects, int n, tt_err *err)
{
    if (!t || n < 0 || n > VISION_TRACKER_MAX_FINE || (n > 0 && !rects))
        return tt_err_set(err, TT_ERR_ARG, "at most %d full-resolution rectangles (got %d)", VISION_TRACKER_MAX_FINE,
                          n);
    for (int i = 0; i < n; i++)
        if (rects[4 * i + 2] < 1 || rects[4 * i + 3] < 1)
            return tt_err_set(err, TT_ERR_ARG, "full-resolution rectangle %d is empty (%dx%d)", i, rects[4 * i + 2],
                              rects[4 * i + 3]);
    if (n > 0)
        memcpy(t->fine, rects, sizeof(int) * 4 * (size_t)n);
    t->nfine = n;
    t->fine_pending = n > 0;
    if (t->fineblk)
        trk__fine_blocks(t);
    return TT_OK;
}

void vision_tracker_look(vision_tracker *t, const int *rects, int n)
{
    if (!t || !rects || n < 0)
        return;
    t->nlook = n < VISION_TRACKER_MAX_LOOK ? n : VISION_TRACKER_MAX_LOOK;
    memcpy(t->look, rects, sizeof(int) * 4 * (size_t)t->nlook);
}

/* New frame size: size the change map and its scratch buffers. */
static tt_status trk__resize(vision_tracker *t, const tt_image *f, tt_err *err)
{
    t->gw = f->width / TRK__STEP;
    t->gh = f->height / TRK__STEP;
    t->bw = (t->gw + TRK__BLOCK - 1) / TRK__BLOCK;
    t->bh = (t->gh + TRK__BLOCK - 1) / TRK__BLOCK;
    free(t->grid);
    free(t->quiet);
    free(t->pending);
    free(t->bsum);
    free(t->bcnt);
    free(t->bstack);
    free(t->dirty);
    free(t->fineblk);
    size_t nb = (size_t)t->bw * (size_t)t->bh;
    t->grid = malloc((size_t)t->gw * (size_t)t->gh);
    t->quiet = malloc(nb * sizeof *t->quiet);
    t->pending = malloc(nb);
    t->bsum = malloc(nb * sizeof *t->bsum);
    t->bcnt = malloc(nb * sizeof *t->bcnt);
    t->bstack = malloc(nb * sizeof *t->bstack);
    t->dirty = malloc(nb);
    t->fineblk = malloc(nb);
    if (!t->grid || !t->quiet || !t->pending || !t->bsum || !t->bcnt || !t->bstack || !t->dirty || !t->fineblk) {
        t->width = t->height = 0; /* try again on the next frame */
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory for a %dx%d frame", f->width, f->height);
    }
    t->width = f->width;
    t->height = f->height;
    trk__reset_map(t, f);
    trk__fine_blocks(t);
    return TT_OK;
}

/* Update the sample grid; mark blocks that changed. */
static void trk__change_map(vision_tracker *t, const tt_image *f)
{
    int nb = t->bw * t->bh;
    long *sum = t->bsum;
    int *cnt = t->bcnt;
    memset(sum, 0, sizeof *sum * (size_t)nb);
    memset(cnt, 0, sizeof *cnt * (size_t)nb);
    for (int j = 0; j < t->gh; j++) {
        const uint8_t *row = f->data + (size_t)(j * TRK__STEP + TRK__STEP / 2) * f->stride + TRK__STEP / 2;
        uint8_t *g = t->grid + j * t->gw;
        long *bs = sum + (j / TRK__BLOCK) * t->bw;
        int *bc = cnt + (j / TRK__BLOCK) * t->bw;
        for (int i = 0; i < t->gw; i++) {
            int v = row[i * TRK__STEP];
            bs[i / TRK__BLOCK] += abs(v - g[i]);
            bc[i / TRK__BLOCK]++;
            g[i] = (uint8_t)v;
        }
    }
    for (int b = 0; b < nb; b++) {
        if (cnt[b] && (double)sum[b] / cnt[b] > t->o.change_level * 0.5) {
            t->quiet[b] = 0;
            t->pending[b] = 1;
            t->dirty[b] = 1;
        } else {
            t->quiet[b]++;
        }
    }
}

static int trk__add_window(vision_tracker *t, int x, int y, int w, int h, trk__wkind kind)
{
    x = trk__clampi(x, 0, t->width - 1);
    y = trk__clampi(y, 0, t->height - 1);
    w = trk__clampi(w, 1, t->width - x);
    h = trk__clampi(h, 1, t->height - y);
    if (t->nwin >= TRK__MAXWIN || w < 16 || h < 16)
        return -1;
    trk__window *wd = &t->win[t->nwin];
    vision_detections_free(&wd->found);
    wd->x = x;
    wd->y = y;
    wd->w = w;
    wd->h = h;
    wd->kind = kind;
    wd->fine = kind == TRK__WIN_FINE || trk__is_fine(t, x, y, w, h);
    wd->st = TT_OK;
    return t->nwin++;
}

/* Settled regions: connected changed blocks that have been quiet for a
 * while, as rectangles grown by a margin. */
static void trk__settled_windows(vision_tracker *t, int margin)
{
    int nb = t->bw * t->bh;
    int *stack = t->bstack;
    for (int b = 0; b < nb; b++) {
        if (!t->pending[b] || t->quiet[b] < TRK__SETTLE)
            continue;
        int sp = 0, bx0 = t->bw, by0 = t->bh, bx1 = -1, by1 = -1;
        stack[sp++] = b;
        t->pending[b] = 0;
        t->dirty[b] = 0; /* searched now: the sweep need not look again */
        while (sp) {
            int c = stack[--sp], cx = c % t->bw, cy = c / t->bw;
            bx0 = cx < bx0 ? cx : bx0;
            bx1 = cx > bx1 ? cx : bx1;
            by0 = cy < by0 ? cy : by0;
            by1 = cy > by1 ? cy : by1;
            const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
            for (int k = 0; k < 4; k++) {
                int nx = cx + dx[k], ny = cy + dy[k];
                if (nx < 0 || ny < 0 || nx >= t->bw || ny >= t->bh)
                    continue;
                int n = ny * t->bw + nx;
                if (t->pending[n] && t->quiet[n] >= TRK__SETTLE) {
                    t->pending[n] = 0;
                    t->dirty[n] = 0;
                    stack[sp++] = n;
                }
            }
        }
        int px = TRK__STEP * TRK__BLOCK;
        trk__add_window(t, bx0 * px - margin, by0 * px - margin, (bx1 - bx0 + 1) * px + 2 * margin,
                        (by1 - by0 + 1) * px + 2 * margin, TRK__WIN_SETTLED);
    }
}

/* Sweep tile ti (round robin, row-major), overlapping its neighbours by
 * 96 px. */
static void trk__tile_rect(const vision_tracker *t, int ti, int *x, int *y, int *w, int *h)
{
    int tw = (t->width + t->o.tiles_x - 1) / t->o.tiles_x, th = (t->height + t->o.tiles_y - 1) / t->o.tiles_y;
    *x = (ti % t->o.tiles_x) * tw - 48;
    *y = (ti / t->o.tiles_x) * th - 48;
    *w = tw + 96;
    *h = th + 96;
}

/* Block range [bx0, bx1] x [by0, by1] inside a window (clipped). */
static void trk__blocks_in(const vision_tracker *t, int x, int y, int w, int h, int *bx0, int *by0, int *bx1,
                           int *by1)
{
    int px = TRK__STEP * TRK__BLOCK;
    *bx0 = trk__clampi(x < 0 ? 0 : (x + px - 1) / px, 0, t->bw);
    *by0 = trk__clampi(y < 0 ? 0 : (y + px - 1) / px, 0, t->bh);
    *bx1 = trk__clampi((x + w) / px - 1, -1, t->bw - 1);
    *by1 = trk__clampi((y + h) / px - 1, -1, t->bh - 1);
}

/* The next tile to sweep: the first from the round robin's place holding a
 * block that changed since it was swept and has been quiet for a moment;
 * or, every o.sweep_idle frames, the next tile; else -1. */
static int trk__sweep_tile(const vision_tracker *t)
{
    int ntiles = t->o.tiles_x * t->o.tiles_y;
    for (int k = 0; k < ntiles; k++) {
        int ti = (t->tile + k) % ntiles, x, y, w, h, bx0, by0, bx1, by1;
        trk__tile_rect(t, ti, &x, &y, &w, &h);
        trk__blocks_in(t, x, y, w, h, &bx0, &by0, &bx1, &by1);
        for (int by = by0; by <= by1; by++)
            for (int bx = bx0; bx <= bx1; bx++) {
                int b = by * t->bw + bx;
                if (t->dirty[b] && t->quiet[b] >= TRK__SETTLE)
                    return ti;
            }
    }
    return t->idle >= t->o.sweep_idle ? t->tile % ntiles : -1;
}

/* A sweep window covers these blocks: they are clean again. */
static void trk__sweep_clear(vision_tracker *t, int x, int y, int w, int h)
{
    int bx0, by0, bx1, by1;
    trk__blocks_in(t, x, y, w, h, &bx0, &by0, &bx1, &by1);
    for (int by = by0; by <= by1; by++)
        for (int bx = bx0; bx <= bx1; bx++)
            if (t->quiet[by * t->bw + bx] >= TRK__SETTLE)
                t->dirty[by * t->bw + bx] = 0;
}

/* The fine rectangles as full-resolution windows: horizontal strips
 * overlapping by 64 px (more than a small tag), two per thread, so the
 * threads share them. */
static void trk__fine_windows(vision_tracker *t)
{
    for (int r = 0; r < t->nfine; r++) {
        const int *q = &t->fine[4 * r];
        int nstrips = 2 * t->nthreads, sh = (q[3] + nstrips - 1) / nstrips;
        for (int i = 0; i < nstrips; i++)
            trk__add_window(t, q[0], q[1] + i * sh - 32, q[2], sh + 64, TRK__WIN_FINE);
    }
}

typedef struct trk__worker {
    vision_tracker *t;
    int idx;
} trk__worker;

/* Windows the caller asked for, once: where it expects a tag coming into
 * view (vision_tracker_look), and the fine rectangles whole after they are
 * set or after a full-frame detection (tags too small for the half-size
 * search). */
static void trk__caller_windows(vision_tracker *t)
{
    for (int i = 0; i < t->nlook; i++)
        trk__add_window(t, t->look[4 * i], t->look[4 * i + 1], t->look[4 * i + 2], t->look[4 * i + 3],
                        TRK__WIN_SETTLED);
    t->nlook = 0;
    if (t->fine_pending) {
        trk__fine_windows(t);
        t->fine_pending = 0;
    }
}

static void *trk__work(void *arg)
{
    trk__worker *w = arg;
    vision_tracker *t = w->t;
    for (;;) {
        int i = __atomic_fetch_add(&t->next_win, 1, __ATOMIC_RELAXED);
        if (i >= t->nwin)
            break;
        trk__window *wd = &t->win[i];
        /* each window at the scale its tags need: full resolution where
         * they are small (vision_tracker_set_fine), else half size */
        vision_detector *d = wd->fine ? t->roi[w->idx] : t->sweep[w->idx];
        wd->st = vision_detect_rect(d, t->frame, wd->x, wd->y, wd->w, wd->h, &wd->found, NULL);
    }
    return NULL;
}

static void trk__run_windows(vision_tracker *t, const tt_image *f)
{
    pthread_t th[8];
    trk__worker wk[8];
    int started = 0;
    t->frame = f;
    t->next_win = 0;
    for (int i = 1; i < t->nthreads; i++) {
        wk[i].t = t;
        wk[i].idx = i;
        if (pthread_create(&th[i], NULL, trk__work, &wk[i]) == 0)
            started |= 1 << i;
    }
    wk[0].t = t;
    wk[0].idx = 0;
    trk__work(&wk[0]);
    for (int i = 1; i < t->nthreads; i++)
        if (started & (1 << i))
            pthread_join(th[i], NULL);
}

static int trk__cmp(const void *a, const void *b)
{
    const trk__track *x = a, *y = b;
    int c = strcmp(x->pub.det.family, y->pub.det.family);
    if (c)
        return c;
    return (x->pub.det.id > y->pub.det.id) - (x->pub.det.id < y->pub.det.id);
}

static trk__track *trk__find(vision_tracker *t, const char *family, int id)
{
    for (int i = 0; i < t->ntr; i++)
        if (t->tr[i].pub.det.id == id && !strcmp(t->tr[i].pub.det.family, family))
            return &t->tr[i];
    return NULL;
}

/* Apply one detection: update its track or start a new one. */
static tt_status trk__apply(vision_tracker *t, const vision_detection *d, const tt_image *f, int frame_no, tt_err *err)
{
    trk__track *k = trk__find(t, d->family, d->id);
    if (k && k->pub.state != VISION_TAG_LOST && (k->pub.fresh || k->pub.last_seen_frame == frame_no)) {
        /* Seen twice this frame.  The same place (overlapping windows): the
         * first stands.  Another place (two printed copies of one tag): the
         * copy nearer to where the tag was stays the figure, so identities
         * never swap; warn once. */
        double cx = d->center[0], cy = d->center[1];
        double far = fmax(8.0, trk__tag_px(&k->pub.det));
        if (hypot(cx - k->pub.det.center[0], cy - k->pub.det.center[1]) <= far)
            return TT_OK;
        t->twice++;
        if (!k->warned_twice) {
            fprintf(stderr,
                    "tabletrack: tag %s %d is seen twice in one frame (at %.0f,%.0f and %.0f,%.0f px): two printed "
                    "copies? The figure stays the one that was there; remove the other copy.\n",
                    d->family, d->id, k->pub.det.center[0], k->pub.det.center[1], cx, cy);
            k->warned_twice = 1;
        }
        if (!k->pub.fresh || hypot(cx - k->pc[0], cy - k->pc[1]) >=
                                 hypot(k->pub.det.center[0] - k->pc[0], k->pub.det.center[1] - k->pc[1]))
            return TT_OK;
        /* this copy is nearer to where the figure was: it replaces the first */
    }
    if (!k) {
        if (t->ntr == t->captr) {
            int nc = t->captr ? t->captr * 2 : 64;
            trk__track *n = realloc(t->tr, sizeof *n * (size_t)nc);
            if (!n)
                return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
            t->tr = n;
            t->captr = nc;
        }
        k = &t->tr[t->ntr++];
        memset(k, 0, sizeof *k);
        k->pub.first_frame = frame_no;
        k->window = -1;
    }
    k->pub.det = *d;
    k->pub.state = VISION_TAG_SEEN;
    k->pub.fresh = 1;
    k->pub.last_seen_frame = frame_no;
    return trk__set_ref(t, k, f, err);
}

tt_status vision_tracker_update(vision_tracker *t, const tt_image *f, int frame_no, const vision_track **tracks,
                                int *n, vision_tracker_stats *stats, tt_err *err)
{
    tt_status st = TT_OK;
    vision_tracker_stats s = {0};
    *tracks = NULL;
    *n = 0;
    if (!f || !f->data || f->channels != 1)
        return tt_err_set(err, TT_ERR_ARG, "the tracker needs 8-bit gray frames");
    if (f->width != t->width || f->height != t->height) {
        if ((st = trk__resize(t, f, err)) != TT_OK)
            return st;
        t->need_full = 1;
    }
    for (int i = 0; i < t->ntr; i++) {
        t->tr[i].pub.fresh = 0;
        t->tr[i].window = -1;
        t->tr[i].pc[0] = t->tr[i].pub.det.center[0];
        t->tr[i].pc[1] = t->tr[i].pub.det.center[1];
    }
    t->twice = 0;
    t->nwin = 0;

    if (t->need_full) {
        vision_detections all = {0};
        if ((st = vision_detect(t->full, f, &all, err)) != TT_OK)
            return st;
        for (int i = 0; i < all.count && st == TT_OK; i++)
            st = trk__apply(t, &all.items[i], f, frame_no, err);
        vision_detections_free(&all);
        if (st != TT_OK)
            return st;
        /* Tracks not found in a full frame: hidden or gone. */
        for (int i = 0; i < t->ntr; i++)
            if (!t->tr[i].pub.fresh && t->tr[i].pub.state == VISION_TAG_SEEN)
                t->tr[i].pub.state = VISION_TAG_OCCLUDED;
        trk__reset_map(t, f); /* fresh change map */
        t->need_full = 0;
        t->nlook = 0; /* the whole frame was searched */
        t->fine_pending = t->nfine > 0; /* what the half-size search missed */
        s.full_frame = 1;
        s.windows = 1;
        s.pixels = (long)f->width * f->height;
    } else {
        trk__change_map(t, f);
        /* 1. Tracks whose patch changed: search a window around them. */
        for (int i = 0; i < t->ntr; i++) {
            trk__track *k = &t->tr[i];
            if (k->pub.state == VISION_TAG_LOST || !k->ref)
                continue;
            double diff = trk__ref_diff(t, k, f);
            if (diff <= t->o.change_level) {
                /* Unchanged: the tag is where it was (a hand has left). */
                k->pub.state = VISION_TAG_SEEN;
                k->pub.last_seen_frame = frame_no;
                continue;
            }
            int margin = (int)fmax(32.0, trk__tag_px(&k->pub.det));
            int x, y, w, h;
            trk__bbox(t, &k->pub.det, margin, &x, &y, &w, &h);
            k->window = trk__add_window(t, x, y, w, h, TRK__WIN_TRACK);
        }
        /* 2. Regions that changed and settled again. */
        trk__settled_windows(t, 48);
        /* 3. What the caller asked for: where it expects a tag coming
         * into view; the fine rectangles. */
        trk__caller_windows(t);
        /* 4. One sweep tile where the picture changed since the tile was
         * last swept (or, every o.sweep_idle frames, the next tile anyway)
         * -- unless this frame already has as much to search as the tile
         * costs (a hand, figures moving; windows at full resolution cost 4
         * times a half-size search's pixel): then the tile waits, at most
         * o.sweep_wait frames in a row, so the busy frames that set the
         * latency do not also pay for the sweep. */
        long busy = 0;
        for (int w = 0; w < t->nwin; w++)
            busy += (long)t->win[w].w * t->win[w].h * (t->win[w].fine ? 4 : 1); /* full resolution: 4x a pixel */
        t->idle++;
        int ti = trk__sweep_tile(t);
        if (ti >= 0) {
            int x, y, w, h;
            trk__tile_rect(t, ti, &x, &y, &w, &h);
            if (busy > (long)w * h * (trk__is_fine(t, x, y, w, h) ? 4 : 1) && t->sweep_waited < t->o.sweep_wait) {
                t->sweep_waited++;
            } else {
                trk__sweep_clear(t, x, y, w, h);
                trk__add_window(t, x, y, w, h, TRK__WIN_SWEEP);
                t->tile = ti + 1;
                t->sweep_waited = 0;
                t->idle = 0;
                s.sweeps = 1;
            }
        }

        trk__run_windows(t, f);
        for (int w = 0; w < t->nwin && st == TT_OK; w++) {
            trk__window *wd = &t->win[w];
            s.windows++;
            s.pixels += (long)wd->w * wd->h;
            s.fine_pixels += wd->fine ? (long)wd->w * wd->h : 0;
            if (wd->st != TT_OK)
                continue;
            for (int i = 0; i < wd->found.count && st == TT_OK; i++)
                st = trk__apply(t, &wd->found.items[i], f, frame_no, err);
        }
        if (st != TT_OK)
            return st;
        /* Searched but not found: occluded (or moved out of its window). */
        int active = 0, missed = 0;
        for (int i = 0; i < t->ntr; i++) {
            trk__track *k = &t->tr[i];
            active += k->pub.state != VISION_TAG_LOST;
            if (k->window >= 0 && !k->pub.fresh) {
                missed += k->pub.state == VISION_TAG_SEEN;
                if (k->pub.state == VISION_TAG_SEEN)
                    k->pub.state = VISION_TAG_OCCLUDED;
            }
        }
        /* Most of the table vanished from under its windows at once: not a
         * hand but the camera (knocked, or the light changed a lot).  Look
         * at the whole frame next time. */
        if (missed >= 4 && missed * 2 >= active)
            t->need_full = 1;
    }
    /* Occluded too long: lost. */
    for (int i = 0; i < t->ntr; i++) {
        trk__track *k = &t->tr[i];
        if (k->pub.state == VISION_TAG_OCCLUDED && frame_no - k->pub.last_seen_frame > t->o.grace_frames)
            k->pub.state = VISION_TAG_LOST;
    }
    if (t->ntr > 1)
        qsort(t->tr, (size_t)t->ntr, sizeof *t->tr, trk__cmp);
    vision_track *pub = realloc(t->pub, sizeof *pub * (size_t)(t->ntr ? t->ntr : 1));
    if (!pub)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    t->pub = pub;
    for (int i = 0; i < t->ntr; i++)
        pub[i] = t->tr[i].pub;
    *tracks = pub;
    *n = t->ntr;
    s.twice = t->twice;
    if (stats)
        *stats = s;
    return TT_OK;
}
