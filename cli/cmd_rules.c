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
#include "tt_json.h"
#include "tt_line.h"

#ifndef TT_SOURCE_DIR
#define TT_SOURCE_DIR ""
#endif


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

/* --ruleset NAME --house: one line per value the rulebook does not settle. */
static int rules_cli_house(const char *ruleset, const char *const *dirs)
{
    char path[PATH_MAX];
    json_t *pj = NULL, *list = NULL;
    tt_err err = {0};
    if (rules_profile_path(ruleset, ".", dirs, path, sizeof path, &err) != TT_OK ||
        tt_json_load_file(path, &pj, &err) != TT_OK)
        return cli_fail("rules", &err);
    if (!(list = rules_profile_house_values(pj))) {
        json_decref(pj);
        fprintf(stderr, "tabletrack rules: out of memory\n");
        return 1;
    }
    printf("%s: %zu house values (not settled by the rulebook; agree them before play)\n",
           json_string_value(json_object_get(pj, "ruleset")) ? json_string_value(json_object_get(pj, "ruleset"))
                                                              : ruleset,
           json_array_size(list));
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        const char *note = json_string_value(json_object_get(e, "note"));
        printf("  %s: %s\n", json_string_value(json_object_get(e, "path")), note ? note : "(no note)");
    }
    json_decref(list);
    json_decref(pj);
    return 0;
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

    const char *ruleset = NULL, *name, *val;
    int house = 0, k;
    cli_args args;
    cli_args_init(&args, &cli_spec_rules, argc, argv);
    while ((k = cli_args_next(&args, &name, &val)) != CLI_END) {
        if (k == CLI_STOP)
            return args.rc;
        if (k == CLI_POSITIONAL)
            return cli_spec_usage(&cli_spec_rules, "unexpected argument '%s'", val);
        if (!strcmp(name, "--scenario"))
            scenario = val;
        else if (!strcmp(name, "--ruleset"))
            ruleset = val;
        else if (!strcmp(name, "--house"))
            house = 1;
    }
    if (house != (ruleset != NULL))
        return cli_spec_usage(&cli_spec_rules, "--house and --ruleset NAME go together");
    if (!scenario && !ruleset)
        return cli_spec_usage(&cli_spec_rules, "no --scenario FILE given");

    rules_cli_exe_dir(exe_dir, sizeof exe_dir);
    snprintf(exe_up, sizeof exe_up, "%s/..", exe_dir);
    const char *dirs[] = {getenv("TABLETRACK_DATA"), TT_SOURCE_DIR, exe_dir, exe_up, NULL};
    if (!dirs[0]) /* skip an unset variable without ending the list */
        dirs[0] = "";
    if (ruleset)
        return rules_cli_house(ruleset, dirs);
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
