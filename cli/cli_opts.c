/* cli_opts.c - option tables: parsing, help, man page, bash completion. */
#include "cli_opts.h"
#include "tt_keys.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void cli_args_init(cli_args *a, const cli_spec *spec, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->spec = spec;
    a->argc = argc;
    a->argv = argv;
    a->i = 1;
}

static void cli__usage_lines(const cli_spec *s, FILE *f)
{
    const char *p = s->synopsis;
    int first = 1;
    while (p && *p) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "%s tabletrack %s %.*s\n", first ? "usage:" : "      ", s->name, (int)n, p);
        first = 0;
        p += n;
        if (*p)
            p++;
    }
}

int cli_spec_usage(const cli_spec *spec, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tabletrack %s: ", spec->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    cli__usage_lines(spec, stderr);
    fprintf(stderr, "'tabletrack help %s' explains every option.\n", spec->name);
    return 2;
}

const char *cli_did_you_mean(const char *word, const char *const *names, int n)
{
    const char *best = n > 0 ? tt_keys_nearest(word, names, (size_t)n) : NULL;
    return best && tt_keys_similar(word, best) ? best : NULL;
}

int cli_check_out_dir(const char *cmd, const char *opt, const char *path)
{
    if (!path || !strcmp(path, "-"))
        return 0;
    /* "patterns/" names the folder "patterns": its parent must exist */
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    const char *slash = NULL;
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/')
            slash = path + i;
    if (!slash)
        return 0;
    char dir[4096];
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= sizeof dir)
        n = sizeof dir - 1;
    memcpy(dir, path, n);
    dir[n] = '\0';
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    if (stat(dir, &st) == 0)
        fprintf(stderr, "tabletrack %s: %s %s: '%s' is a file, not a folder\n", cmd, opt, path, dir);
    else
        fprintf(stderr, "tabletrack %s: %s %s: the folder '%s' does not exist (create it first: mkdir -p '%s')\n", cmd,
                opt, path, dir, dir);
    return 1;
}

/* The partner of option `name` in the spec's conflict list that was given
 * already, or NULL. */
static const char *cli__conflict(const cli_args *a, const char *name)
{
    const char *p = a->spec->conflicts;
    size_t nl = strlen(name);
    while (p && *p) {
        size_t n = strcspn(p, ";");
        const char *sp = memchr(p, ' ', n);
        if (sp) {
            const char *x = p, *y = sp + 1;
            size_t xl = (size_t)(sp - p), yl = n - xl - 1;
            char other[64] = "";
            if (xl == nl && !strncmp(x, name, nl) && yl < sizeof other)
                snprintf(other, sizeof other, "%.*s", (int)yl, y);
            else if (yl == nl && !strncmp(y, name, nl) && xl < sizeof other)
                snprintf(other, sizeof other, "%.*s", (int)xl, x);
            if (other[0] && cli_args_given(a, other)) {
                static char keep[64];
                snprintf(keep, sizeof keep, "%s", other);
                return keep;
            }
        }
        p += n;
        if (*p)
            p++;
    }
    return NULL;
}

int cli_args_given(const cli_args *a, const char *name)
{
    for (int k = 0; a->spec->opts[k].name && k < 64; k++)
        if (!strcmp(a->spec->opts[k].name, name))
            return (a->seen >> k) & 1;
    return 0;
}

static int cli__stop(cli_args *a, int rc)
{
    a->rc = rc;
    return CLI_STOP;
}

int cli_args_next(cli_args *a, const char **name, const char **val)
{
    const cli_spec *s = a->spec;
    *name = NULL;
    *val = NULL;
    if (a->i >= a->argc)
        return CLI_END;
    const char *arg = a->argv[a->i++];
    if (a->only_positional || arg[0] != '-' || !arg[1] || (arg[1] != '-' && strcmp(arg, "-h"))) {
        if (!a->only_positional && arg[0] == '-' && arg[1])
            return cli__stop(a, cli_spec_usage(s, "unknown option %s (options start with --)", arg));
        *val = arg;
        return CLI_POSITIONAL;
    }
    if (!strcmp(arg, "--")) {
        a->only_positional = 1;
        return cli_args_next(a, name, val);
    }
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
        cli_spec_help(s, stdout);
        return cli__stop(a, fflush(stdout) == 0 ? 0 : 1);
    }
    const char *eq = strchr(arg, '=');
    size_t nl = eq ? (size_t)(eq - arg) : strlen(arg);
    int k = 0;
    for (; s->opts[k].name; k++)
        if (strlen(s->opts[k].name) == nl && !strncmp(s->opts[k].name, arg, nl))
            break;
    const cli_opt *o = &s->opts[k];
    if (!o->name) {
        const char *names[66];
        char word[128];
        int n = 0;
        for (int j = 0; s->opts[j].name && n < 64; j++)
            names[n++] = s->opts[j].name;
        names[n++] = "--help";
        snprintf(word, sizeof word, "%.*s", (int)(nl < 127 ? nl : 127), arg);
        const char *m = cli_did_you_mean(word, names, n);
        if (m)
            return cli__stop(a, cli_spec_usage(s, "unknown option %s: did you mean %s?", word, m));
        return cli__stop(a, cli_spec_usage(s, "unknown option %s", word));
    }
    if (o->flags & CLI_VALUE) {
        if (eq)
            *val = eq + 1;
        else if (a->i < a->argc)
            *val = a->argv[a->i++];
        if (!*val || !**val)
            return cli__stop(a, cli_spec_usage(s, "%s needs a value (%s)", o->name, o->arg ? o->arg : "a value"));
    } else if (o->flags & CLI_OPTVAL) {
        if (eq)
            *val = eq + 1;
        else if (a->i < a->argc && a->argv[a->i][0] != '-')
            *val = a->argv[a->i++];
    } else if (eq) {
        return cli__stop(a, cli_spec_usage(s, "%s takes no value (got '%s')", o->name, arg));
    }
    if (k < 64 && ((a->seen >> k) & 1) && !(o->flags & CLI_REPEAT))
        return cli__stop(a, cli_spec_usage(s, "%s is given twice: give it once", o->name));
    const char *other = cli__conflict(a, o->name);
    if (other)
        return cli__stop(a, cli_spec_usage(s, "%s and %s cannot be used together: choose one", other, o->name));
    if (k < 64)
        a->seen |= 1ull << k;
    if ((o->flags & CLI_OUT) && *val && cli_check_out_dir(s->name, o->name, *val))
        return cli__stop(a, 1);
    *name = o->name;
    return CLI_OPTION;
}

/* Print text wrapped at `width` columns, every line indented by `indent`
 * (the first by `first` instead); '\n' starts a new paragraph. */
static void cli__wrap(FILE *f, const char *text, int first, int indent, int width)
{
    int col = 0, pad = first;
    const char *p = text;
    while (*p) {
        if (*p == '\n') {
            fputc('\n', f);
            col = 0;
            pad = indent;
            p++;
            continue;
        }
        if (*p == ' ') {
            p++;
            continue;
        }
        size_t wl = strcspn(p, " \n");
        if (col > 0 && col + 1 + (int)wl > width) {
            fputc('\n', f);
            col = 0;
            pad = indent;
        }
        if (col == 0) {
            fprintf(f, "%*s", pad, "");
            col = pad;
        } else {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, wl, f);
        col += (int)wl;
        p += wl;
    }
    if (col > 0)
        fputc('\n', f);
}

static void cli__opt_label(const cli_opt *o, char *buf, size_t n)
{
    if (o->flags & CLI_OPTVAL)
        snprintf(buf, n, "%s[=%s]", o->name, o->arg ? o->arg : "V");
    else if (o->arg)
        snprintf(buf, n, "%s %s", o->name, o->arg);
    else
        snprintf(buf, n, "%s", o->name);
}

void cli_spec_help(const cli_spec *s, FILE *f)
{
    fprintf(f, "tabletrack %s - %s\n\n", s->name, s->summary);
    cli__usage_lines(s, f);
    if (s->description) {
        fputc('\n', f);
        cli__wrap(f, s->description, 0, 0, 78);
    }
    fprintf(f, "\noptions (--opt VALUE or --opt=VALUE):\n");
    for (int k = 0; s->opts[k].name; k++) {
        char label[96];
        cli__opt_label(&s->opts[k], label, sizeof label);
        char line[1024];
        snprintf(line, sizeof line, "%s%s", s->opts[k].help, (s->opts[k].flags & CLI_REPEAT) ? " (repeatable)" : "");
        if (strlen(label) <= 22) {
            fprintf(f, "  %-22s ", label);
            cli__wrap(f, line, 0, 27, 78 - 25);
        } else {
            fprintf(f, "  %s\n", label);
            cli__wrap(f, line, 27, 27, 78);
        }
    }
    fprintf(f, "  %-22s %s\n", "-h, --help", "show this help");
    if (s->example) {
        fprintf(f, "\nexample:\n");
        cli__wrap(f, s->example, 2, 2, 1000);
    }
    fprintf(f, "\nexit status:\n");
    cli__wrap(f, CLI_EXIT_CODES, 2, 2, 78);
}

/* roff text: backslashes and minus signs escaped, no line starting with a
 * dot or quote. */
static void cli__roff(FILE *f, const char *t)
{
    if (*t == '.' || *t == '\'')
        fputs("\\&", f);
    for (; *t; t++) {
        if (*t == '\\')
            fputs("\\e", f);
        else if (*t == '-')
            fputs("\\-", f);
        else if (*t == '\n') {
            fputs("\n.PP\n", f);
            if (t[1] == '.' || t[1] == '\'')
                fputs("\\&", f);
        } else
            fputc(*t, f);
    }
}

void cli_write_man(FILE *f, const char *version)
{
    fprintf(f, ".TH TABLETRACK 1 \"\" \"tabletrack %s\" \"User Commands\"\n", version);
    fputs(".SH NAME\ntabletrack \\- track miniature-wargame figures with a camera, answer rules questions, project "
          "the answers\n.SH SYNOPSIS\n.B tabletrack\n.I COMMAND\n[\\fIOPTIONS\\fR]\n.br\n.B tabletrack help\n"
          "[\\fICOMMAND\\fR]\n.br\n.B tabletrack \\-\\-version\n.SH DESCRIPTION\n",
          f);
    cli__roff(f, "A camera looks down on a miniature-wargame table, reads the AprilTags on the figure bases and "
                 "works out where every figure stands, in table inches. A rules engine answers line of sight, range "
                 "and to-hit, arcs, blasts and more; a projector draws the answers; games are recorded and "
                 "replayed. Every command takes --help; options take their value as --opt VALUE or --opt=VALUE.");
    fputs("\n.SH COMMANDS\n", f);
    for (int i = 0; i < cli_nspecs; i++) {
        const cli_spec *s = cli_specs[i];
        fputs(".SS \"", f);
        cli__roff(f, s->name);
        fputs("\"\n", f);
        cli__roff(f, s->summary);
        fputs(".\n.PP\n", f);
        const char *p = s->synopsis;
        while (p && *p) {
            size_t n = strcspn(p, "\n");
            char line[1024];
            snprintf(line, sizeof line, "tabletrack %s %.*s", s->name, (int)n, p);
            fputs(".B ", f);
            cli__roff(f, line);
            fputs("\n.br\n", f);
            p += n;
            if (*p)
                p++;
        }
        if (s->description) {
            fputs(".PP\n", f);
            cli__roff(f, s->description);
            fputc('\n', f);
        }
        for (int k = 0; s->opts[k].name; k++) {
            char label[96];
            cli__opt_label(&s->opts[k], label, sizeof label);
            fputs(".TP\n.B ", f);
            cli__roff(f, label);
            fputc('\n', f);
            cli__roff(f, s->opts[k].help);
            if (s->opts[k].flags & CLI_REPEAT)
                fputs(" (repeatable)", f);
            fputc('\n', f);
        }
        if (s->example) {
            fputs(".PP\nExample:\n.nf\n.RS\n", f);
            const char *e = s->example;
            while (*e) {
                size_t n = strcspn(e, "\n");
                char line[2048];
                snprintf(line, sizeof line, "%.*s", (int)n, e);
                if (line[0] == '.' || line[0] == '\'')
                    fputs("\\&", f);
                for (const char *c = line; *c; c++)
                    if (*c == '\\')
                        fputs("\\e", f);
                    else if (*c == '-')
                        fputs("\\-", f);
                    else
                        fputc(*c, f);
                fputc('\n', f);
                e += n;
                if (*e)
                    e++;
            }
            fputs(".RE\n.fi\n", f);
        }
    }
    fputs(".SH EXIT STATUS\n", f);
    cli__roff(f, CLI_EXIT_CODES);
    fputs(".\n.SH SEE ALSO\nREADME.md and the manual in docs/ in the source tree.\n", f);
}

void cli_write_bash_completion(FILE *f)
{
    fputs("# bash completion for tabletrack (generated from its option tables: tabletrack help --completion)\n"
          "_tabletrack() {\n"
          "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "  local cmd=${COMP_WORDS[1]} sub=${COMP_WORDS[2]} opts='' files='' subs=''\n"
          "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "    COMPREPLY=($(compgen -W \"help --version --help",
          f);
    /* the first word of each spec, once */
    for (int i = 0; i < cli_nspecs; i++) {
        size_t n = strcspn(cli_specs[i]->name, " ");
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= strlen(cli_specs[j]->name) >= n && !strncmp(cli_specs[j]->name, cli_specs[i]->name, n) &&
                   (cli_specs[j]->name[n] == ' ' || !cli_specs[j]->name[n]);
        if (!dup)
            fprintf(f, " %.*s", (int)n, cli_specs[i]->name);
    }
    fputs("\" -- \"$cur\"))\n    return\n  fi\n  case \"$cmd\" in\n", f);
    fputs("    help)\n      COMPREPLY=($(compgen -W \"", f);
    for (int i = 0; i < cli_nspecs; i++) {
        size_t n = strcspn(cli_specs[i]->name, " ");
        if (i == 0 || strncmp(cli_specs[i - 1]->name, cli_specs[i]->name, n + 1))
            fprintf(f, "%s%.*s", i ? " " : "", (int)n, cli_specs[i]->name);
    }
    fputs("\" -- \"$cur\"))\n      return;;\n", f);
    for (int i = 0; i < cli_nspecs; i++) {
        const cli_spec *s = cli_specs[i];
        const char *sp = strchr(s->name, ' ');
        if (sp)
            fprintf(f, "    %.*s) if [ \"$sub\" = %s ]; then", (int)(sp - s->name), s->name, sp + 1);
        else
            fprintf(f, "    %s)", s->name);
        fputs(" opts='--help", f);
        for (int k = 0; s->opts[k].name; k++)
            fprintf(f, " %s", s->opts[k].name);
        fputs("'; files='", f);
        int first = 1;
        for (int k = 0; s->opts[k].name; k++)
            if (s->opts[k].flags & (CLI_FILE | CLI_OUT)) {
                fprintf(f, "%s%s", first ? "" : " ", s->opts[k].name);
                first = 0;
            }
        fputs("'", f);
        if (sp) {
            fputs("; fi; subs='", f);
            size_t n = (size_t)(sp - s->name);
            int firstsub = 1;
            for (int j = 0; j < cli_nspecs; j++)
                if (!strncmp(cli_specs[j]->name, s->name, n) && cli_specs[j]->name[n] == ' ') {
                    fprintf(f, "%s%s", firstsub ? "" : " ", cli_specs[j]->name + n + 1);
                    firstsub = 0;
                }
            fputs("'", f);
        }
        fputs(" ;;&\n", f);
    }
    fputs("    *) ;;\n  esac\n"
          "  if [ -n \"$subs\" ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
          "    COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n    return\n  fi\n"
          "  if [ -n \"$prev\" ] && [[ \" $files \" == *\" $prev \"* ]]; then\n"
          "    COMPREPLY=($(compgen -f -- \"$cur\"))\n    return\n  fi\n"
          "  if [[ \"$cur\" == -* ]]; then\n"
          "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n    return\n  fi\n"
          "  COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "}\n"
          "complete -o filenames -F _tabletrack tabletrack\n",
          f);
}
