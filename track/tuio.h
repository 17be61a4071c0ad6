/* tuio.h - TUIO 1.1 /tuio/2Dobj over UDP (OSC bundles), so tangible-table
 * clients (reacTIVision's, TUIO client libraries) can use tabletrack's
 * figures.  x and y are normalised to the table and clamped to 0..1 (a
 * figure off the table is sent at the edge), the angle is the facing in
 * radians (0..2pi), the class id is the tag id.  A figure is alive while it
 * is seen or hidden (under a hand); it keeps one session id until it is
 * lost, and one that comes back gets a new id (ids are never reused).
 * Velocities follow the TUIO 1.1 units: X, Y in table widths/depths per
 * second, A in turns per second, m and r their changes per second; 0 while
 * a figure is hidden and on its first frame.
 * Each frame goes out as one or more complete bundles of at most
 * TRACK_TUIO_MAX_DATAGRAM bytes, each with source, the full alive list,
 * some of the set messages and fseq (as the reference server splits them).
 *
 * track_tuio is owned by the caller: track_tuio_destroy (accepts NULL).
 */
#ifndef TT_TRACK_TUIO_H
#define TT_TRACK_TUIO_H

#include <stddef.h>
#include <stdint.h>

#include "live.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct track_tuio track_tuio;

/* "HOST:PORT", e.g. "127.0.0.1:3333". */
tt_status track_tuio_create(const char *host_port, double width_in, double depth_in, track_tuio **out, tt_err *err);
void track_tuio_destroy(track_tuio *t);

/* Ethernet MTU 1500 less the IPv4 and UDP headers: no fragmentation. */
#define TRACK_TUIO_MAX_DATAGRAM 1472

/* Send one frame (t_ms: its time in milliseconds, for the velocities). */
tt_status track_tuio_send(track_tuio *t, int frame_no, double t_ms, const track_figure *figs, int n, tt_err *err);

/* Encode one frame and hand each datagram to emit (for tests; the bytes
 * are valid only during the call).  Updates the sessions as send does. */
typedef void (*track_tuio_emit)(void *ctx, const uint8_t *dgram, size_t len);
tt_status track_tuio_encode(track_tuio *t, int frame_no, double t_ms, const track_figure *figs, int n,
                            track_tuio_emit emit, void *ctx, tt_err *err);

#ifdef __cplusplus
}
#endif
#endif
