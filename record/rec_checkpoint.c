/* rec_checkpoint.c - WAL checkpoints off the recording thread.
 *
 * A checkpoint copies the WAL into the database and fsyncs: tens of
 * milliseconds every few thousand pages.  SQLite's automatic checkpoint
 * would do that inside whichever rec_frame call crosses the threshold, a
 * stall the tracker would feel.  Instead the writer's autocheckpoint is
 * off and this thread, with its own connection, runs a PASSIVE checkpoint
 * (it never blocks the writer) every 250 ms. */
#include "rec_checkpoint.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct rec__ckpt {
    sqlite3 *db;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
};

static void *rec__ckpt_main(void *arg)
{
    rec__ckpt *c = arg;
    pthread_mutex_lock(&c->mu);
    while (!c->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&c->cv, &c->mu, &until);
        if (c->stop)
            break;
        pthread_mutex_unlock(&c->mu);
        /* Errors (e.g. SQLITE_BUSY) only postpone the work to the next try. */
        sqlite3_wal_checkpoint_v2(c->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_lock(&c->mu);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

rec__ckpt *rec__ckpt_start(const char *path)
{
    rec__ckpt *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_busy_timeout(c->db, 100);
    if (pthread_mutex_init(&c->mu, NULL) != 0)
        goto fail;
    if (pthread_cond_init(&c->cv, NULL) != 0) {
        pthread_mutex_destroy(&c->mu);
        goto fail;
    }
    if (pthread_create(&c->thread, NULL, rec__ckpt_main, c) != 0) {
        pthread_cond_destroy(&c->cv);
        pthread_mutex_destroy(&c->mu);
        goto fail;
    }
    return c;
fail:
    sqlite3_close(c->db);
    free(c);
    return NULL;
}

void rec__ckpt_stop(rec__ckpt *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    c->stop = 1;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->thread, NULL);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    sqlite3_close(c->db);
    free(c);
}
