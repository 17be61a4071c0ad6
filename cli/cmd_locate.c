/* cmd_locate.c - 'tabletrack locate' (in progress). */
#include <stdio.h>

#include "cli.h"

int cmd_locate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "tabletrack locate: not available in this build yet\n");
    return 1;
}
