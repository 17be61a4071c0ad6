/* cmd_calib.c - 'tabletrack calib' (not built yet: see the open issues). */
#include <stdio.h>

#include "cli.h"

int cmd_calib(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "tabletrack calib: not available in this build yet\n");
    return 1;
}
