/* main.c - the tabletrack command: one entry point that only dispatches to
 * the subcommands in cmd_*.c.  Each subcommand returns a process exit code:
 * 0 success, 1 bad input or failure (message on stderr), 2 usage error. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"detect", cmd_detect, "detect AprilTags in an image, print JSON (pixels)"},
    {"locate", cmd_locate, "locate figures on the table in inches from one camera image"},
    {"calib", cmd_calib, "calibrate: 'calib camera' (intrinsics) or 'calib projector'"},
    {"print", cmd_print, "print true-scale sheets: 'print board', 'print tags'"},
    {"rules", cmd_rules, "answer rules queries (JSON Lines on stdin) for a scenario"},
    {"overlay", cmd_overlay, "draw rules answers as a projector image"},
    {"track", cmd_track, "track figures live from a camera, video or image sequence"},
    {"cameras", cmd_cameras, "list USB video devices"},
    {"replay", cmd_replay, "replay a recorded game (HTML, video, JSON)"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: tabletrack COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n'tabletrack COMMAND --help' shows a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "tabletrack: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
