/* tuio.h - TUIO 1.1 /tuio/2Dobj over UDP (OSC bundles), so tangible-table
 * clients (reacTIVision's, TUIO client libraries) can use tabletrack's
 * figures.  x and y are normalised to the table (0..1), the angle is the
 * facing in radians (0..2pi), the class id is the tag id, and each figure
 * keeps one session id while it is tracked.
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

/* Send one bundle (source, alive, set per visible figure, fseq). */
tt_status track_tuio_send(track_tuio *t, int frame_no, const track_figure *figs, int n, tt_err *err);

/* Encode the bundle without sending (for tests): returns its length, or 0
 * if buf is too small. */
size_t track_tuio_encode(track_tuio *t, int frame_no, const track_figure *figs, int n, uint8_t *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
