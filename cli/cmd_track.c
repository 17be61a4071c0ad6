/* cmd_track.c - 'tabletrack track' (not built yet: see the open issues). */
#include <stdio.h>

#include "cli.h"

int cmd_track(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "tabletrack track: not available in this build yet\n");
    return 1;
}
