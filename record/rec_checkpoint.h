/* rec_checkpoint.h - private to record/: a background thread that runs the
 * WAL checkpoints of a recording, so rec_frame never waits for an fsync. */
#ifndef TT_REC_CHECKPOINT_H
#define TT_REC_CHECKPOINT_H

#include <sqlite3.h>

typedef struct rec__ckpt rec__ckpt;

/* Start checkpointing the recording at path (its own connection).  NULL if
 * that is not possible; the caller then keeps SQLite's automatic
 * checkpoints. */
rec__ckpt *rec__ckpt_start(const char *path);

/* Stop the thread and close its connection (accepts NULL). */
void rec__ckpt_stop(rec__ckpt *c);

#endif
