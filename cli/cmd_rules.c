/* cmd_rules.c - 'tabletrack rules --scenario FILE': JSON Lines queries on
 * stdin, one JSON answer line per query on stdout, in order.  A bad query
 * gets {"error": "..."} and the stream goes on; blank lines are skipped. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rules.h"
#include "tt_line.h"

#ifndef TT_SOURCE_DIR
#define TT_SOURCE_DIR ""
#endif

static const char *USAGE = "tabletrack rules --scenario FILE  < queries.jsonl";

/* The directory holding the running executable, into buf ("" if unknown). */
static void rules_cli_exe_dir(char *buf, size_t n)
{
    ssize_t k = readlink("/proc/self/exe", buf, n - 1);
    buf[0] = '\0';
    if (k <= 0)
        return;
    buf[k] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
}

int cmd_rules(int argc, char **argv)
{
    const char *scenario = NULL;
    tt_err err = {0};
    rules_scenario *sc = NULL;
    char exe_dir[PATH_MAX], exe_up[PATH_MAX + 16];
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: %s\n\n"
                   "Queries (one JSON object per line), e.g.\n"
                   "  {\"q\":\"los\",\"from\":\"m1\",\"to\":\"m2\"}\n"
                   "  {\"q\":\"fire\",\"from\":\"m1\",\"to\":\"m2\"}\n"
                   "  {\"q\":\"grape\",\"from\":\"gun1\"}\n"
                   "  {\"q\":\"ball\",\"from\":\"gun1\",\"to\":\"m2\"}  or  \"at\":[x,y]\n"
                   "  {\"q\":\"blast\",\"at\":[x,y],\"radius_in\":2}  or  \"weapon\":\"mortar\"\n"
                   "  {\"q\":\"command\",\"from\":\"general\"}\n"
                   "  {\"q\":\"aspect\",\"from\":\"m1\",\"to\":\"m2\"}\n"
                   "  {\"q\":\"visibility\",\"from\":\"m1\"}\n"
                   "  {\"q\":\"move\",\"from\":\"m1\",\"to\":[x,y]}\n"
                   "Rule-set profiles are found in $TABLETRACK_DATA, the source tree, then next to the "
                   "executable.\n",
                   USAGE);
            return 0;
        }
        if (!strcmp(argv[i], "--scenario")) {
            if (i + 1 >= argc)
                return cli_usage("rules", USAGE, "--scenario needs a FILE");
            scenario = argv[++i];
        } else {
            return cli_usage("rules", USAGE, "unknown argument '%s'", argv[i]);
        }
    }
    if (!scenario)
        return cli_usage("rules", USAGE, "no --scenario FILE given");

    rules_cli_exe_dir(exe_dir, sizeof exe_dir);
    snprintf(exe_up, sizeof exe_up, "%s/..", exe_dir);
    const char *dirs[] = {getenv("TABLETRACK_DATA"), TT_SOURCE_DIR, exe_dir, exe_up, NULL};
    if (!dirs[0]) /* skip an unset variable without ending the list */
        dirs[0] = "";
    if (rules_scenario_load(scenario, dirs, &sc, &err) != TT_OK)
        return cli_fail("rules", &err);

    long n, lineno = 0;
    for (;;) {
        if (tt_line_read(stdin, &line, &cap, TT_LINE_MAX, &n, "standard input", ++lineno, &err) != TT_OK) {
            rc = cli_fail("rules", &err);
            break;
        }
        if (n < 0)
            break;
        size_t k = strspn(line, " \t");
        if (line[k] == '\0' && (size_t)n == strlen(line))
            continue;
        if (strlen(line) != (size_t)n) {
            fputs("{\"error\":\"query: the line contains a NUL byte\"}\n", stdout);
            continue;
        }
        char *answer = rules_query_line(sc, line);
        if (!answer) {
            fputs("{\"error\":\"out of memory\"}\n", stdout);
            continue;
        }
        fputs(answer, stdout);
        fputc('\n', stdout);
        free(answer);
        fflush(stdout);
    }
    if (ferror(stdout))
        rc = 1;
    free(line);
    rules_scenario_destroy(sc);
    return rc;
}
