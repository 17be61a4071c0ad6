/* main.c - the tabletrack command: one entry point that only dispatches to
 * the subcommands in cmd_*.c, plus `help`, `--version`, the man page and the
 * bash completion (all from the option tables in cli_specs.c).  Each
 * subcommand returns a process exit code: 0 success, 1 bad input or failure
 * (message on stderr), 2 usage error. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tt_version.h"

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"detect", cmd_detect, "detect AprilTags in an image, print JSON (pixels)"},
    {"locate", cmd_locate, "locate figures on the table in inches from one camera image"},
    {"check", cmd_check, "can the camera read every tag on this table? (before a game)"},
    {"calib", cmd_calib, "calibrate: 'calib camera' (intrinsics) or 'calib projector'"},
    {"print", cmd_print, "print true-scale sheets: 'print board', 'print tags'"},
    {"rules", cmd_rules, "answer rules queries (JSON Lines on stdin) for a scenario"},
    {"overlay", cmd_overlay, "draw rules answers as a projector image"},
    {"track", cmd_track, "track figures live from a camera, video or image sequence"},
    {"cameras", cmd_cameras, "list USB cameras with their serial numbers"},
    {"replay", cmd_replay, "replay a recorded game (HTML, video, JSON)"},
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

const cli_spec *const cli_specs[] = {
    &cli_spec_detect,     &cli_spec_locate,     &cli_spec_check,        &cli_spec_calib_camera, &cli_spec_calib_projector,
    &cli_spec_print_board, &cli_spec_print_tags, &cli_spec_rules,        &cli_spec_overlay,
    &cli_spec_track,      &cli_spec_cameras,    &cli_spec_replay,
};
const int cli_nspecs = (int)(sizeof cli_specs / sizeof cli_specs[0]);

static void usage(FILE *f)
{
    fprintf(f, "usage: tabletrack COMMAND [OPTIONS]\n\ncommands:\n");
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n'tabletrack help COMMAND' (or 'tabletrack COMMAND --help') explains a command and every option;\n"
               "options take their value as --opt VALUE or --opt=VALUE.\n"
               "'tabletrack --version' prints the version.\n"
               "'tabletrack help --man [FILE]' and 'help --completion [FILE]' write the man page and the bash "
               "completion.\n\nexit status: " CLI_EXIT_CODES "\n");
}

static const char *command_names[sizeof commands / sizeof commands[0]];

static int unknown_command(const char *what, const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        command_names[i] = commands[i].name;
    const char *m = cli_did_you_mean(name, command_names, NCOMMANDS);
    fprintf(stderr, "tabletrack: %s '%s'", what, name);
    if (m)
        fprintf(stderr, ": did you mean '%s'?", m);
    fprintf(stderr, "\n\n");
    usage(stderr);
    return 2;
}

/* Write the man page or the completion to path (stdout when NULL). */
static int write_generated(const char *path, int man)
{
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f) {
        perror(path);
        return 1;
    }
    if (man)
        cli_write_man(f, TT_VERSION " (" TT_GIT_DESCRIBE ")");
    else
        cli_write_bash_completion(f);
    int bad = ferror(f);
    if (path)
        bad |= fclose(f) != 0;
    else
        bad |= fflush(f) != 0;
    return bad ? 1 : 0;
}

/* tabletrack help [COMMAND [SUB]] */
static int help(int argc, char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--man") || !strcmp(argv[1], "--completion"))
        return write_generated(argc > 2 ? argv[2] : NULL, !strcmp(argv[1], "--man"));
    size_t n = strlen(argv[1]);
    int shown = 0;
    for (int i = 0; i < cli_nspecs; i++) {
        const char *name = cli_specs[i]->name;
        if (strncmp(name, argv[1], n) || (name[n] != ' ' && name[n]))
            continue;
        if (argc > 2 && name[n] == ' ' && strcmp(name + n + 1, argv[2]))
            continue;
        if (shown++)
            printf("\n");
        cli_spec_help(cli_specs[i], stdout);
    }
    if (!shown)
        return unknown_command(argc > 2 ? "no such command" : "unknown command", argv[1]);
    return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "help"))
        return help(argc - 1, argv + 1);
    if (!strcmp(argv[1], "--version")) {
        printf("tabletrack %s (%s)\n", TT_VERSION, TT_GIT_DESCRIBE);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    for (int i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    return unknown_command("unknown command", argv[1]);
}
