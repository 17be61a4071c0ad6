#include "cli_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double cli__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void cli_progress_start(cli_progress *p, const char *what, long total)
{
    const char *d = getenv("TABLETRACK_PROGRESS_DELAY_MS");
    p->what = what;
    p->total = total;
    p->t0_ms = cli__now_ms();
    p->last_ms = -1e9;
    p->delay_ms = d && *d ? atof(d) : 2000.0;
    p->tty = isatty(STDERR_FILENO);
    p->shown = 0;
}

void cli_progress_update(cli_progress *p, long done)
{
    if (!p->tty || p->total <= 0)
        return;
    double now = cli__now_ms(), run = now - p->t0_ms;
    if (run < p->delay_ms || (now - p->last_ms < 250 && done < p->total))
        return;
    p->last_ms = now;
    double frac = (double)done / (double)p->total;
    char left[48] = "";
    if (done > 0 && done < p->total) {
        double s = run / frac * (1 - frac) / 1000.0;
        if (s >= 90)
            snprintf(left, sizeof left, ", about %.0f min left", s / 60);
        else
            snprintf(left, sizeof left, ", about %.0f s left", s < 1 ? 1 : s);
    }
    fprintf(stderr, "\r%s: %ld/%ld (%.0f%%)%s\033[K", p->what, done, p->total, 100 * frac, left);
    fflush(stderr);
    p->shown = 1;
}

void cli_progress_end(cli_progress *p)
{
    if (p->shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    p->shown = 0;
}

void cli_progress_cb(void *user, long done, long total)
{
    cli_progress *p = user;
    p->total = total;
    cli_progress_update(p, done);
}
