/* cmd_print.c - 'tabletrack print board' (the calibration board) and
 * 'tabletrack print tags' (true-scale tag sheets for figure bases). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "cli.h"
#include "print.h"

static const char *USAGE_BOARD = "tabletrack print board --board BOARD [--paper a4|letter] --out board.pdf|.svg";
static const char *USAGE_TAGS = "tabletrack print tags [--family F] --ids A-B --size-in S [--base round:D | rect:WxD] "
                                "[--per-page N] [--paper a4|letter] --out tags.pdf|.svg";
static const char *USAGE = "tabletrack print board --board BOARD [--paper a4|letter] --out board.pdf\n"
                           "       tabletrack print tags [--family F] --ids A-B --size-in S [--base round:D | "
                           "rect:WxD] [--paper a4|letter] --out tags.pdf";

/* Value of option argv[i] (advances *i), or NULL when it is missing. */
static const char *print__value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc || !argv[*i + 1][0])
        return NULL;
    return argv[++*i];
}

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
    const char *board_path = NULL, *out = NULL, *paper_name = "letter";
    print_paper paper;
    calib_board board;
    print_doc *doc = NULL;
    tt_err err = {0};
    int rc;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], **dst = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: %s\n", USAGE_BOARD);
            return 0;
        }
        if (!strcmp(a, "--board"))
            dst = &board_path;
        else if (!strcmp(a, "--out"))
            dst = &out;
        else if (!strcmp(a, "--paper"))
            dst = &paper_name;
        else
            return cli_usage("print board", USAGE_BOARD, "unknown argument %s", a);
        if (!(*dst = print__value(argc, argv, &i)))
            return cli_usage("print board", USAGE_BOARD, "missing value for %s", a);
    }
    if (!board_path)
        return cli_usage("print board", USAGE_BOARD, "no --board given (a board file: see README, 'Camera calibration')");
    if (!out)
        return cli_usage("print board", USAGE_BOARD, "no --out given (a .pdf or .svg file)");
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
    const char *family = "tag36h11", *ids = NULL, *size = NULL, *base = NULL, *paper_name = "letter", *out = NULL;
    const char *per_page = NULL;
    print_tags_opts o;
    print_doc *doc = NULL;
    tt_err err = {0};
    int rc;

    memset(&o, 0, sizeof o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], **dst = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: %s\n", USAGE_TAGS);
            return 0;
        }
        if (!strcmp(a, "--family"))
            dst = &family;
        else if (!strcmp(a, "--ids"))
            dst = &ids;
        else if (!strcmp(a, "--size-in"))
            dst = &size;
        else if (!strcmp(a, "--base"))
            dst = &base;
        else if (!strcmp(a, "--paper"))
            dst = &paper_name;
        else if (!strcmp(a, "--out"))
            dst = &out;
        else if (!strcmp(a, "--per-page"))
            dst = &per_page;
        else
            return cli_usage("print tags", USAGE_TAGS, "unknown argument %s", a);
        if (!(*dst = print__value(argc, argv, &i)))
            return cli_usage("print tags", USAGE_TAGS, "missing value for %s", a);
    }
    if (!ids)
        return cli_usage("print tags", USAGE_TAGS, "no --ids given (e.g. --ids 0-99)");
    if (!size)
        return cli_usage("print tags", USAGE_TAGS, "no --size-in given (the tag's black square, inches)");
    if (!out)
        return cli_usage("print tags", USAGE_TAGS, "no --out given (a .pdf or .svg file)");
    char *end = NULL;
    o.size_in = strtod(size, &end);
    if (*end || !(o.size_in > 0))
        return cli_usage("print tags", USAGE_TAGS, "--size-in must be a positive number of inches (got '%s')", size);
    if (per_page && !cli_int(per_page, 1, PRINT_MAX_TAGS, &o.per_page))
        return cli_usage("print tags", USAGE_TAGS, "--per-page must be a whole number from 1 (got '%s')", per_page);
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
    if (argc < 2)
        return cli_usage("print", USAGE, "say what to print: 'board' or 'tags'");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        printf("usage: %s\n", USAGE);
        return 0;
    }
    if (!strcmp(argv[1], "board"))
        return print__board(argc - 1, argv + 1);
    if (!strcmp(argv[1], "tags"))
        return print__tags(argc - 1, argv + 1);
    return cli_usage("print", USAGE, "unknown sheet '%s' (use 'board' or 'tags')", argv[1]);
}
