/* cli_opts.h - one table of options per command that drives parsing, the
 * help text (`tabletrack help CMD`, `CMD --help`), the man page and the bash
 * completion, so the four never disagree.
 *
 * A command describes itself in a static const cli_spec (names, one line
 * per option, an example) and walks its arguments with cli_args_next, which
 * handles `--opt value` and `--opt=value`, `-h`/`--help`, unknown options
 * (with "did you mean"), missing values, options that conflict (naming
 * both) and output paths whose folder does not exist.  The specs are static
 * data: nothing here allocates.
 *
 * Exit codes, for every command: 0 success, 1 bad input or failure (the
 * message is on stderr), 2 usage error (bad options; the usage is printed).
 */
#ifndef TT_CLI_OPTS_H
#define TT_CLI_OPTS_H

#include <stdio.h>

#define CLI_VALUE 1u  /* takes a value: --opt V or --opt=V */
#define CLI_OPTVAL 2u /* value optional: --opt=V, or --opt V when V does not start with '-' */
#define CLI_OUT 4u    /* the value is a file to write: its folder must exist ("-" = stdout) */
#define CLI_REPEAT 8u /* may be given more than once */
#define CLI_FILE 16u  /* the value is an existing file or folder (completion) */

typedef struct cli_opt {
    const char *name;  /* "--rig" */
    const char *arg;   /* "RIG" (shown in help), NULL for a flag */
    unsigned flags;    /* CLI_* */
    const char *help;  /* one line */
} cli_opt;

typedef struct cli_spec {
    const char *name;        /* "locate", "print tags" */
    const char *summary;     /* one line, for the command list */
    const char *synopsis;    /* usage lines after "tabletrack NAME ", '\n' between forms */
    const char *description; /* a paragraph or two ('\n' = new paragraph) */
    const cli_opt *opts;     /* terminated by {NULL} */
    const char *conflicts;   /* "--a --b;--c --d" pairs that cannot be used together, or NULL */
    const char *example;     /* one or more command lines, '\n' separated */
} cli_spec;

#define CLI_EXIT_CODES                                                                                       \
    "0 success; 1 bad input or failure (the message on stderr says what is wrong and what to do); 2 usage error " \
    "(unknown, missing or conflicting options; the usage is printed)"

enum { CLI_END = 0, CLI_OPTION = 1, CLI_POSITIONAL = 2, CLI_STOP = -1 };

typedef struct cli_args {
    const cli_spec *spec;
    int argc;
    char **argv;
    int i;
    int rc;                 /* the exit code after CLI_STOP: 0 help shown, 1 or 2 error */
    unsigned long long seen; /* bit k: spec->opts[k] was given */
    int only_positional;    /* after "--" */
} cli_args;

/* Start walking argv[1..argc-1] (argv[0] is the command name). */
void cli_args_init(cli_args *a, const cli_spec *spec, int argc, char **argv);

/* The next argument.  CLI_OPTION: *name is the option's canonical name
 * (spec->opts[k].name) and *val its value (NULL for flags, and for
 * CLI_OPTVAL options given without one).  CLI_POSITIONAL: *val is the
 * argument.  CLI_END: no more.  CLI_STOP: help was printed or an error was
 * reported on stderr; return a->rc from the command. */
int cli_args_next(cli_args *a, const char **name, const char **val);

/* Was the option given (by canonical name)? */
int cli_args_given(const cli_args *a, const char *name);

/* Report a usage error for the spec (message, usage, pointer to help) and
 * return 2. */
int cli_spec_usage(const cli_spec *spec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Full help: summary, usage, description, every option with its line, an
 * example and the exit codes. */
void cli_spec_help(const cli_spec *spec, FILE *f);

/* The closest of `n` names to `word` when it is close enough to be a typo
 * or a start of it ("calibrate" -> "calib"; tt_keys_nearest and
 * tt_keys_similar, the same as a rig's or a scenario's unknown keys), or
 * NULL. */
const char *cli_did_you_mean(const char *word, const char *const *names, int n);

/* "FOLDER does not exist" check for an output path: 0 when its folder is
 * there (or path is "-"), else prints the error and returns 1. */
int cli_check_out_dir(const char *cmd, const char *opt, const char *path);

/* All the command specs, in the order of the command list (defined in
 * main.c), for help, the man page and the completion. */
extern const cli_spec *const cli_specs[];
extern const int cli_nspecs;

/* The man page (roff) and the bash completion, generated from the specs. */
void cli_write_man(FILE *f, const char *version);
void cli_write_bash_completion(FILE *f);

#endif
