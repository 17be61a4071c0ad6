/* cmd_locate_out.c - how 'tabletrack locate' prints its figures: one JSON
 * object (piped, or with --json), or a table a player reads (stdout is a
 * terminal): a 5 kB JSON line is no answer to read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "calib.h"
#include "cli.h"

static void locate__json(FILE *f, const calib_figure *figs, const char *const *names, int n, const calib_pose *pose)
{
    fprintf(f, "{\"figures\":[");
    for (int i = 0; i < n; i++) {
        json_t *js = names && names[i] ? json_string(names[i]) : NULL;
        char *quoted = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
        json_decref(js);
        fprintf(f, "%s{\"family\":\"%s\",\"id\":%d,%s%s%s\"x\":%.4f,\"y\":%.4f,\"z_in\":%.3f,\"facing_deg\":%.2f,"
                   "\"err95_in\":%.4f,\"z_err95_in\":%.3f,\"facing_err95_deg\":%.2f}",
                i ? "," : "", figs[i].family, figs[i].id, quoted ? "\"name\":" : "", quoted ? quoted : "",
                quoted ? "," : "", figs[i].x, figs[i].y, figs[i].z_in, figs[i].facing_deg, figs[i].err95_in,
                figs[i].z_err95_in, figs[i].facing_err95_deg);
        free(quoted);
    }
    fprintf(f, "],\"anchors_used\":%d,\"reprojection_rms_px\":%.3f}\n", pose->anchors_used, pose->rms_px);
}

static void locate__table(FILE *f, const calib_figure *figs, const char *const *names, int n, const calib_pose *pose)
{
    int families = 0, named = 0;
    for (int i = 0; i < n; i++) {
        families |= strcmp(figs[i].family, figs[0].family) != 0;
        named |= names && names[i];
    }
    fprintf(f, "%d figure%s, in table inches (pose from %d anchors, %.3f px reprojection error):\n", n,
            n == 1 ? "" : "s", pose->anchors_used, pose->rms_px);
    if (n > 0)
        fprintf(f, "  %s%s    id %s        x        y   height   facing    ±95%%  ±z95%%\n",
                families ? "family            " : "",
                "", named ? "name            " : "");
    for (int i = 0; i < n; i++) {
        char fam[32] = "", name[24] = "";
        if (families)
            snprintf(fam, sizeof fam, "%-18s", figs[i].family);
        if (named)
            snprintf(name, sizeof name, "%-15.15s ", names[i] ? names[i] : "-");
        fprintf(f, "  %s%6d %s%8.3f %8.3f %8.3f %7.1f %8.3f %6.2f\n", fam, figs[i].id, name, figs[i].x, figs[i].y,
                figs[i].z_in, figs[i].facing_deg, figs[i].err95_in, figs[i].z_err95_in);
    }
    fprintf(f, "(height above the felt; facing in degrees from +x toward +y; ±95: the radius, inches, that holds the "
               "true position 95%% of the time, ±z95 the same for the height. As JSON: --json, or pipe the output.)\n");
}

void cli_locate_print(FILE *f, int json, const calib_figure *figs, const char *const *names, int n,
                      const calib_pose *pose)
{
    if (json)
        locate__json(f, figs, names, n, pose);
    else
        locate__table(f, figs, names, n, pose);
}
