/* http_web.c - the page's files by address (see http_web.h); the table
 * itself, http__web_files, is written by http/CMakeLists.txt. */
#include "http_web.h"

#include <string.h>

extern const http_web_file http__web_files[]; /* ends with a NULL path */

const http_web_file *http_web_find(const char *url)
{
    if (!url)
        return NULL;
    if (!strcmp(url, "/"))
        url = "/index.html";
    for (const http_web_file *f = http__web_files; f->path; f++)
        if (!strcmp(f->path, url))
            return f;
    return NULL;
}

static int http_web__ends(const char *s, const char *end)
{
    size_t n = strlen(s), m = strlen(end);
    return n >= m && !strcmp(s + n - m, end);
}

const char *http_web_type(const http_web_file *f)
{
    if (http_web__ends(f->path, ".js"))
        return "text/javascript; charset=utf-8";
    if (http_web__ends(f->path, ".css"))
        return "text/css; charset=utf-8";
    if (http_web__ends(f->path, ".svg"))
        return "image/svg+xml";
    if (http_web__ends(f->path, ".html"))
        return "text/html; charset=utf-8";
    return "application/octet-stream";
}
