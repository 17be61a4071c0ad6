/* http_web.h - the live table page's files (web/: HTML, CSS, the icon and
 * its ES modules), compiled into the program (http/CMakeLists.txt embeds
 * every file there), each served at /NAME with the type its name ends in:
 * a module is text/javascript, as browsers require of a module script.
 * Shared by the table server and the hall's (which serves the drawing
 * modules its pages import).  The table is static: nothing to free. */
#ifndef TT_HTTP_WEB_H
#define TT_HTTP_WEB_H

typedef struct http_web_file {
    const char *path;           /* "/app.js" */
    const unsigned char *data;  /* its bytes */
    const unsigned long *len;   /* how many */
} http_web_file;

/* The file served at url ("/" is /index.html), or NULL. */
const http_web_file *http_web_find(const char *url);

/* Its Content-Type, by the end of its name. */
const char *http_web_type(const http_web_file *f);

#endif
