/* http_reply.h - one libmicrohttpd response with the headers every answer
 * of tabletrack's servers carries (no caching, no sniffing); shared by the
 * table server and the hall's. */
#ifndef TT_HTTP_REPLY_H
#define TT_HTTP_REPLY_H

#include <stddef.h>
#include <microhttpd.h>

/* Queue data (len bytes, kept as mode says) with status code and type. */
enum MHD_Result http_reply(struct MHD_Connection *c, unsigned code, const char *type, const void *data, size_t len,
                           enum MHD_ResponseMemoryMode mode);

#endif
