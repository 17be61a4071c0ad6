/* render_tags.c - tag textures straight from libapriltag
 * (apriltag_to_image), cached per family and id for the life of the
 * process (rnd_texture_cache_clear frees them).  Thread-safe. */
#include "render_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <apriltag/apriltag.h>
#include "families.h"

#define RND__NFAM 9 /* vision_family_count(): the families libapriltag 3.3 ships */

/* Debian's libapriltag exports apriltag_to_image but not image_u8_destroy;
 * the image is two calloc'ed blocks (struct and buffer), freed the same way
 * image_u8_destroy does. */
static void rnd__image_free(image_u8_t *im)
{
    if (!im)
        return;
    free(im->buf);
    free(im);
}

static struct {
    apriltag_family_t *fam;
    uint8_t **tex; /* ncodes entries, lazily filled */
} rnd__cache[RND__NFAM];
static pthread_mutex_t rnd__cache_lock = PTHREAD_MUTEX_INITIALIZER;

static int rnd__family_index(const char *name)
{
    return vision_family_index(name);
}

const char *rnd_family_list(void)
{
    return vision_family_list();
}

/* call with the lock held */
static apriltag_family_t *rnd__family_locked(int fi)
{
    if (!rnd__cache[fi].fam)
        rnd__cache[fi].fam = vision_family_create(fi);
    return rnd__cache[fi].fam;
}

int rnd__family_widths(const char *family, int *total_width, int *width_at_border)
{
    int fi = rnd__family_index(family);
    if (fi < 0)
        return 0;
    pthread_mutex_lock(&rnd__cache_lock);
    apriltag_family_t *fam = rnd__family_locked(fi);
    if (fam) {
        *total_width = fam->total_width;
        *width_at_border = fam->width_at_border;
    }
    pthread_mutex_unlock(&rnd__cache_lock);
    return fam != NULL;
}

int rnd_family_ncodes(const char *family)
{
    int fi = rnd__family_index(family);
    if (fi < 0)
        return 0;
    pthread_mutex_lock(&rnd__cache_lock);
    apriltag_family_t *fam = rnd__family_locked(fi);
    int n = fam ? (int)fam->ncodes : 0;
    pthread_mutex_unlock(&rnd__cache_lock);
    return n;
}

tt_status rnd__texture_get(const char *family, int id, rnd__texture *tex, tt_err *err)
{
    int fi = rnd__family_index(family);
    tt_status st = TT_OK;
    if (fi < 0)
        return tt_err_set(err, TT_ERR_UNKNOWN, "unknown tag family '%s' (known: %s)", family, rnd_family_list());
    pthread_mutex_lock(&rnd__cache_lock);
    apriltag_family_t *fam = rnd__family_locked(fi);
    if (!fam) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory creating tag family %s", family);
        goto done;
    }
    if (id < 0 || (uint32_t)id >= fam->ncodes) {
        st = tt_err_set(err, TT_ERR_ARG, "tag id %d does not exist in %s (ids 0..%u)", id, family,
                        fam->ncodes - 1);
        goto done;
    }
    if (!rnd__cache[fi].tex) {
        rnd__cache[fi].tex = calloc(fam->ncodes, sizeof *rnd__cache[fi].tex);
        if (!rnd__cache[fi].tex) {
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory for the %s texture cache", family);
            goto done;
        }
    }
    int tw = fam->total_width;
    if (!rnd__cache[fi].tex[id]) {
        image_u8_t *im = apriltag_to_image(fam, id);
        uint8_t *cells = im ? malloc((size_t)tw * (size_t)tw) : NULL;
        if (!cells) {
            if (im)
                rnd__image_free(im);
            st = tt_err_set(err, TT_ERR_NOMEM, "out of memory for the texture of %s id %d", family, id);
            goto done;
        }
        for (int r = 0; r < tw; r++)
            for (int c = 0; c < tw; c++)
                cells[r * tw + c] = im->buf[r * im->stride + c] > 127;
        rnd__image_free(im);
        rnd__cache[fi].tex[id] = cells;
    }
    tex->total_width = tw;
    tex->width_at_border = fam->width_at_border;
    tex->cells = rnd__cache[fi].tex[id];
done:
    pthread_mutex_unlock(&rnd__cache_lock);
    return st;
}

void rnd_texture_cache_clear(void)
{
    pthread_mutex_lock(&rnd__cache_lock);
    for (int i = 0; i < RND__NFAM; i++) {
        if (rnd__cache[i].tex) {
            for (uint32_t k = 0; k < rnd__cache[i].fam->ncodes; k++)
                free(rnd__cache[i].tex[k]);
            free(rnd__cache[i].tex);
            rnd__cache[i].tex = NULL;
        }
        if (rnd__cache[i].fam) {
            vision_family_destroy(i, rnd__cache[i].fam);
            rnd__cache[i].fam = NULL;
        }
    }
    pthread_mutex_unlock(&rnd__cache_lock);
}
