/* cmd_rules.c - 'tabletrack rules' (not built yet: see the open issues). */
#include <stdio.h>

#include "cli.h"

int cmd_rules(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "tabletrack rules: not available in this build yet\n");
    return 1;
}
