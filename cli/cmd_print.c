/* cmd_print.c - 'tabletrack print board' (the calibration board) and
 * 'tabletrack print tags' (true-scale tag sheets for figure bases). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "cli.h"
#include "print.h"

static int print__report(const char *cmd, const print_doc *doc, const char *out)
{
    double w, h;
    print_doc_page_size(doc, &w, &h);
    printf("wrote %s: %d tag%s on %d page%s of %.2f x %.2f in; print at 100%% (\"Actual size\") and check that the "
           "black square measures 1 inch\n",
           out, print_doc_nitems(doc), print_doc_nitems(doc) == 1 ? "" : "s", print_doc_npages(doc),
           print_doc_npages(doc) == 1 ? "" : "s", w, h);
    (void)cmd;
    return fflush(stdout) == 0 ? 0 : 1;
}

static int print__board(int argc, char **argv)
{
    const cli_spec *S = &cli_spec_print_board;
    const char *board_path = NULL, *out = NULL, *paper_name = "letter", *name, *val;
    print_paper paper;
    calib_board board;
    print_doc *doc = NULL;
    tt_err err = {0};
    cli_args args;
    int rc, k;

    cli_args_init(&args, S, argc, argv);
    while ((k = cli_args_next(&args, &name, &val)) != CLI_END) {
        if (k == CLI_STOP)
            return args.rc;
        if (k == CLI_POSITIONAL)
            return cli_spec_usage(S, "unexpected argument '%s'", val);
        if (!strcmp(name, "--board"))
            board_path = val;
        else if (!strcmp(name, "--out"))
            out = val;
        else
            paper_name = val;
    }
    if (!board_path)
        return cli_spec_usage(S, "no --board given (a board file: see docs/setup.md, 'Camera calibration')");
    if (!out)
        return cli_spec_usage(S, "no --out given (a .pdf or .svg file)");
    if (print_paper_parse(paper_name, &paper, &err) != TT_OK || calib_board_load(board_path, &board, &err) != TT_OK ||
        print_doc_board(&board, paper, &doc, &err) != TT_OK || print_doc_write(doc, out, &err) != TT_OK)
        rc = cli_fail("print board", &err);
    else
        rc = print__report("print board", doc, out);
    print_doc_destroy(doc);
    return rc;
}

static int print__tags(int argc, char **argv)
{
    const cli_spec *S = &cli_spec_print_tags;
    const char *family = "tag36h11", *ids = NULL, *size = NULL, *base = NULL, *paper_name = "letter", *out = NULL;
    const char *per_page = NULL, *name, *val;
    print_tags_opts o;
    print_doc *doc = NULL;
    tt_err err = {0};
    cli_args args;
    int rc, k;

    memset(&o, 0, sizeof o);
    cli_args_init(&args, S, argc, argv);
    while ((k = cli_args_next(&args, &name, &val)) != CLI_END) {
        if (k == CLI_STOP)
            return args.rc;
        if (k == CLI_POSITIONAL)
            return cli_spec_usage(S, "unexpected argument '%s'", val);
        const char **dst = !strcmp(name, "--family")   ? &family
                           : !strcmp(name, "--ids")     ? &ids
                           : !strcmp(name, "--size-in") ? &size
                           : !strcmp(name, "--base")    ? &base
                           : !strcmp(name, "--paper")   ? &paper_name
                           : !strcmp(name, "--out")     ? &out
                                                        : &per_page;
        *dst = val;
    }
    if (!ids)
        return cli_spec_usage(S, "no --ids given (e.g. --ids 0-99)");
    if (!size)
        return cli_spec_usage(S, "no --size-in given (the tag's black square, inches)");
    if (!out)
        return cli_spec_usage(S, "no --out given (a .pdf or .svg file)");
    char *end = NULL;
    o.size_in = strtod(size, &end);
    if (*end || !(o.size_in > 0))
        return cli_spec_usage(S, "--size-in must be a positive number of inches (got '%s')", size);
    if (per_page && !cli_int(per_page, 1, PRINT_MAX_TAGS, &o.per_page))
        return cli_spec_usage(S, "--per-page must be a whole number from 1 (got '%s')", per_page);
    o.family = family;
    if (print_ids_parse(ids, &o.id_first, &o.id_last, &err) != TT_OK ||
        (base && print_base_parse(base, &o.base, &err) != TT_OK) ||
        print_paper_parse(paper_name, &o.paper, &err) != TT_OK || print_doc_tags(&o, &doc, &err) != TT_OK ||
        print_doc_write(doc, out, &err) != TT_OK)
        rc = cli_fail("print tags", &err);
    else
        rc = print__report("print tags", doc, out);
    print_doc_destroy(doc);
    return rc;
}

int cmd_print(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "board"))
        return print__board(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "tags"))
        return print__tags(argc - 1, argv + 1);
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        cli_spec_help(&cli_spec_print_board, stdout);
        printf("\n");
        cli_spec_help(&cli_spec_print_tags, stdout);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (argc < 2)
        fprintf(stderr, "tabletrack print: say what to print: 'board' or 'tags'\n");
    else
        fprintf(stderr, "tabletrack print: unknown sheet '%s' (use 'board' or 'tags')\n", argv[1]);
    fprintf(stderr, "usage: tabletrack print board ...\n       tabletrack print tags ...\n"
                    "'tabletrack help print' explains every option.\n");
    return 2;
}
