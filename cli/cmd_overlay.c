/* cmd_overlay.c - 'tabletrack overlay' (not built yet: see the open issues). */
#include <stdio.h>

#include "cli.h"

int cmd_overlay(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "tabletrack overlay: not available in this build yet\n");
    return 1;
}
