/* cmd_replay.c - 'tabletrack replay' (not built yet: see the open issues). */
#include <stdio.h>

#include "cli.h"

int cmd_replay(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "tabletrack replay: not available in this build yet\n");
    return 1;
}
