/* http_listen.c - "[HOST:]PORT" of a server's --http option resolved to a
 * socket address (shared by the table server and the hall's). */
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tt_status http_listen_resolve(const char *opt, const char *listen, struct addrinfo **ai, char *host, size_t hn,
                              tt_err *err)
{
    char port[16];
    const char *colon = strrchr(listen, ':');
    *ai = NULL;
    snprintf(host, hn, "127.0.0.1");
    if (colon) {
        size_t n = (size_t)(colon - listen);
        if (n == 0 || n >= hn)
            return tt_err_set(err, TT_ERR_ARG, "%s %s: give [HOST:]PORT, e.g. 8080 or 0.0.0.0:8080", opt, listen);
        memcpy(host, listen, n);
        host[n] = '\0';
        if (host[0] == '[' && host[n - 1] == ']') { /* [::1]:8080 */
            memmove(host, host + 1, n - 2);
            host[n - 2] = '\0';
        }
    }
    const char *p = colon ? colon + 1 : listen;
    char *end = NULL;
    long pn = strtol(p, &end, 10);
    if (end == p || *end || pn < 0 || pn > 65535)
        return tt_err_set(err, TT_ERR_ARG, "%s %s: the port must be a number from 0 to 65535 (e.g. 8080)", opt,
                          listen);
    snprintf(port, sizeof port, "%ld", pn);
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    int gr = getaddrinfo(host, port, &hints, ai);
    if (gr != 0)
        return tt_err_set(err, TT_ERR_ARG, "%s %s: unknown host %s (%s)", opt, listen, host, gai_strerror(gr));
    return TT_OK;
}
