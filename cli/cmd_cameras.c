/* cmd_cameras.c - 'tabletrack cameras' (not built yet: see the open issues). */
#include <stdio.h>

#include "cli.h"

int cmd_cameras(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "tabletrack cameras: not available in this build yet\n");
    return 1;
}
