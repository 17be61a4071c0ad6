/* hall_publish.h - the table's side of the convention hall: what
 * 'track --mqtt' and 'replay --mqtt' run to publish a game to the hall's
 * MQTT broker (mosquitto) until the hall holds all of it.  The hall itself
 * (hall/server/) is another room: the two meet only on the broker.
 *
 * Every message between machines goes through the broker.  A table
 * publishes under tabletrack/NAME/ (docs/api.md, "MQTT topics"; docs/hall.md):
 *
 *   status    retained, QoS 1  {"connected","game"}; the broker
 *                              sets {"connected":false} when the table drops
 *   state     retained, QoS 0  the live state (/api/state), at most 5/s,
 *                              plus "sent_ms" (Unix ms when published)
 *   event     QoS 1            moved / appeared / removed (--events lines)
 *   answer    retained, QoS 1  the last question and its answer
 *   scenario  retained, QoS 1  the scenario, whenever it changes
 *   rec       QoS 1            the recording's content as chunks
 *                              (record/rec_copy.h), in order, each at
 *                              most HALL_MESSAGE_MAX bytes (fewer rows
 *                              when rows are big)
 *
 * and the hall publishes, per table:
 *
 *   hall/GAME retained, QoS 1  {"game","have","need"}: how far the hall's
 *                              copy of that game goes (GAME: its name with
 *                              '#' as '_'); "need" asks the table to send
 *                              again from there
 *   hall      retained, QoS 1  the same for the table's newest game, or
 *                              {"refused": REASON} when the hall will not
 *                              keep this table (it is full)
 *
 * The table's own recording is the source of truth: the table sends
 * chunks from it, and again from wherever the hall's copy ends after a
 * broker restart, a Wi-Fi drop or a hall restart.
 *
 * Ownership: every handle is created and destroyed in pairs (destroy
 * accepts NULL); strings passed in are copied.
 */
#ifndef TT_HALL_PUBLISH_H
#define TT_HALL_PUBLISH_H

#include <signal.h>

#include "game.h"
#include "hall_mqtt.h"
#include "tt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HALL_STATE_MAX_HZ 5      /* live states a second, at most */
#define HALL_DRAIN_S 60          /* at the end, how long to wait for the broker and the hall */

/* ---- a table: publishing one game ---- */

typedef struct hall_table hall_table;

/* Connect (in the background: an unreachable broker is retried, and the
 * game goes on) as table `name`, publishing session `session` (0: the
 * latest) of the recording at rec_path.  earlier: also send the
 * recording's earlier sessions the hall lacks, until its copy holds them
 * all (one at a time, once a hall has answered for this table and the
 * game published is sent; hall_table_drain waits for them too when a
 * hall answers).  Fails only on bad options (the broker's address, a
 * password file that cannot be read) or an unreadable recording. */
tt_status hall_table_create(const hall_mqtt_opts *o, const char *name, const char *rec_path, long long session,
                            int earlier, hall_table **out, tt_err *err);

/* Publish live messages (sub is "state", "event", "answer", "scenario"),
 * with the QoS and retain flag of the list above.  Dropped while the
 * broker is away (the recording holds what matters). */
void hall_table_publish(hall_table *t, const char *sub, const char *json, size_t len);

/* Send what the recording holds and the hall lacks, up to the recording's
 * time until_ms (REC_TIME_UNSET: all that is saved).  Call it often (every
 * 100-250 ms).  Prints broker trouble on stderr once per change. */
void hall_table_sync(hall_table *t, long long until_ms);

/* The recording is complete: keep sending until the broker has taken
 * everything and (when a hall answers for this table) the hall holds it
 * all, for at most timeout_s or until *stop.  TT_OK when delivered; else
 * TT_ERR_IO with what is undelivered. */
tt_status hall_table_drain(hall_table *t, int timeout_s, const volatile sig_atomic_t *stop, tt_err *err);

/* 1 when the last hall_table_drain ended with the hall saying its copy
 * holds the whole game; 0 when only the broker took it (no hall answered
 * for this table): never tell a player the hall has a game unless this
 * says so. */
int hall_table_held(const hall_table *t);

/* The recording's first moment (for pacing a replay) and its game name. */
long long hall_table_t0(const hall_table *t);

void hall_table_destroy(hall_table *t);

/* ---- the live game of 'track --mqtt' ---- */

typedef struct hall_live hall_live;

/* A thread that follows the game's live feed and publishes its state
 * (at most HALL_STATE_MAX_HZ a second), events, answers and scenario
 * changes, and syncs the recording every 250 ms.  The game and the table
 * must outlive it. */
tt_status hall_live_start(game *g, hall_table *t, hall_live **out, tt_err *err);
void hall_live_stop(hall_live *l);

/* ---- 'replay --mqtt': a recorded game republished as a table would ---- */

/* Publish session `session` (0: latest) of path at its recorded pace
 * times speed, then drain.  Returns when done or on *stop; *held (may be
 * NULL): hall_table_held at the end. */
tt_status hall_replay_run(const hall_mqtt_opts *o, const char *name, const char *path, long long session,
                          double speed, const volatile sig_atomic_t *stop, int *held, tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
