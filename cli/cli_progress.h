/* cli_progress.h - a progress line for long work: "what: N/M (P%), about
 * Ts left", redrawn in place on stderr at most 4 times a second, once the
 * work has run for 2 s (TABLETRACK_PROGRESS_DELAY_MS changes that), and
 * only when stderr is a terminal: logs and pipes stay quiet.  No
 * allocation: a cli_progress lives on the caller's stack. */
#ifndef TT_CLI_PROGRESS_H
#define TT_CLI_PROGRESS_H

typedef struct cli_progress {
    const char *what; /* "calib camera: photos" (not copied) */
    long total;
    double t0_ms, last_ms, delay_ms;
    int tty, shown;
} cli_progress;

void cli_progress_start(cli_progress *p, const char *what, long total);
/* `done` of `total` finished. */
void cli_progress_update(cli_progress *p, long done);
/* Clear the line (if one was drawn). */
void cli_progress_end(cli_progress *p);

/* For library callbacks: void (*)(void *user, long done, long total). */
void cli_progress_cb(void *user, long done, long total);

#endif
