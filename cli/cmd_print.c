/* cmd_print.c - 'tabletrack print' (not built yet: see the open issues). */
#include <stdio.h>

#include "cli.h"

int cmd_print(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "tabletrack print: not available in this build yet\n");
    return 1;
}
