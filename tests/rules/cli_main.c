/* cli_main.c - runs 'tabletrack rules' alone: the two CLI helpers it uses
 * and a main, so the command is tested without the other modules. */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

int cli_fail(const char *cmd, const tt_err *err)
{
    fprintf(stderr, "tabletrack %s: %s\n", cmd, err && err->msg[0] ? err->msg : "failed");
    return 1;
}

int cli_usage(const char *cmd, const char *usage, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tabletrack %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s\n", usage);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 1)
        return 2;
    argv[0] = "rules";
    return cmd_rules(argc, argv);
}
