/* test_print.c - printable sheets: true scale (tag squares and the 1-inch
 * check square measured on a raster), tags decode with libapriltag to the
 * right ids, vector output, the files themselves, and bad input. */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <apriltag/apriltag.h>
#include <apriltag/tag36h11.h>
#include <apriltag/tag16h5.h>
#include <apriltag/tag25h9.h>
#include <apriltag/tag36h10.h>
#include <apriltag/tagCircle21h7.h>
#include <apriltag/tagCircle49h12.h>
#include <apriltag/tagCustom48h12.h>
#include <apriltag/tagStandard41h12.h>
#include <apriltag/tagStandard52h13.h>

#include "board.h"
#include "cvwrap.h"
#include "print.h"
#include "run.h"

#define DPI 200.0
#define TOL_IN 0.005 /* true-scale tolerance, inches */

static char g_dir[256];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/tt_print_XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *path_in(const char *name)
{
    static char buf[64][512];
    static int k;
    k = (k + 1) % 64;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, name);
    return buf[k];
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* ---- families ---- */

static const struct {
    const char *name;
    apriltag_family_t *(*create)(void);
    void (*destroy)(apriltag_family_t *);
} k_fams[] = {
    {"tag36h11", tag36h11_create, tag36h11_destroy},
    {"tag36h10", tag36h10_create, tag36h10_destroy},
    {"tag25h9", tag25h9_create, tag25h9_destroy},
    {"tag16h5", tag16h5_create, tag16h5_destroy},
    {"tagCircle21h7", tagCircle21h7_create, tagCircle21h7_destroy},
    {"tagStandard41h12", tagStandard41h12_create, tagStandard41h12_destroy},
    {"tagCircle49h12", tagCircle49h12_create, tagCircle49h12_destroy},
    {"tagCustom48h12", tagCustom48h12_create, tagCustom48h12_destroy},
    {"tagStandard52h13", tagStandard52h13_create, tagStandard52h13_destroy},
};
#define NFAMS ((int)(sizeof k_fams / sizeof k_fams[0]))

static int fam_index(const char *name)
{
    for (int i = 0; i < NFAMS; i++)
        if (!strcmp(k_fams[i].name, name))
            return i;
    return -1;
}

/* calib/board.c keeps its own table of libapriltag's id counts. */
static void test_family_table_matches_libapriltag(void **state)
{
    (void)state;
    for (int i = 0; i < NFAMS; i++) {
        apriltag_family_t *f = k_fams[i].create();
        assert_int_equal(calib_family_ncodes(k_fams[i].name), (int)f->ncodes);
        k_fams[i].destroy(f);
    }
    assert_int_equal(calib_family_ncodes("tag99"), 0);
}

/* ---- detection on a rendered page ---- */

typedef struct found {
    int id;
    double p[4][2]; /* libapriltag corners: (0,0) = top-left of the first pixel */
} found;

/* Detect family tags in a gray image; returns the count (<= max). */
static int detect(const char *family, const tt_image *im, found *out, int max)
{
    int k = fam_index(family);
    assert_true(k >= 0);
    apriltag_family_t *fam = k_fams[k].create();
    apriltag_detector_t *td = apriltag_detector_create();
    apriltag_detector_add_family_bits(td, fam, k >= 6 ? 1 : 2);
    td->quad_decimate = 2;
    td->refine_edges = 1;
    image_u8_t u8 = {.width = im->width, .height = im->height, .stride = im->stride, .buf = im->data};
    zarray_t *zs = apriltag_detector_detect(td, &u8);
    int n = 0;
    for (int i = 0; i < zarray_size(zs); i++) {
        apriltag_detection_t *d;
        zarray_get(zs, i, &d);
        if (d->hamming != 0 || n >= max)
            continue;
        out[n].id = d->id;
        memcpy(out[n].p, d->p, sizeof out[n].p);
        n++;
    }
    apriltag_detections_destroy(zs);
    apriltag_detector_destroy(td);
    k_fams[k].destroy(fam);
    return n;
}

/* Every item of `page` is found once with the right id, its corners where
 * the layout put them (libapriltag order: BL BR TR TL of the printed tag),
 * and its square S inches on each side, all within TOL_IN. */
static void check_page(const print_doc *doc, const char *family, int page, const tt_image *im, double dpi)
{
    found f[400];
    int n = detect(family, im, f, 400), want = 0;
    for (int i = 0; i < print_doc_nitems(doc); i++) {
        const print_item *it = print_doc_item(doc, i);
        if (it->page != page)
            continue;
        want++;
        int hits = 0;
        for (int j = 0; j < n; j++) {
            if (f[j].id != it->id)
                continue;
            hits++;
            const double S = it->size_in;
            const double exp[4][2] = {
                {it->x_in, it->y_in + S}, {it->x_in + S, it->y_in + S}, {it->x_in + S, it->y_in}, {it->x_in, it->y_in}};
            for (int c = 0; c < 4; c++) {
                double dx = f[j].p[c][0] / dpi - exp[c][0], dy = f[j].p[c][1] / dpi - exp[c][1];
                if (fabs(dx) > TOL_IN || fabs(dy) > TOL_IN)
                    fail_msg("%s id %d corner %d at (%.4f, %.4f) in, expected (%.4f, %.4f)", family, it->id, c,
                             f[j].p[c][0] / dpi, f[j].p[c][1] / dpi, exp[c][0], exp[c][1]);
            }
            for (int c = 0; c < 4; c++) {
                double ex = f[j].p[(c + 1) % 4][0] - f[j].p[c][0], ey = f[j].p[(c + 1) % 4][1] - f[j].p[c][1];
                double edge = sqrt(ex * ex + ey * ey) / dpi;
                if (fabs(edge - S) > TOL_IN)
                    fail_msg("%s id %d: edge %d measures %.4f in, expected %.4f", family, it->id, c, edge, S);
            }
        }
        if (hits != 1)
            fail_msg("%s id %d on page %d: found %d times", family, it->id, page + 1, hits);
    }
    if (n != want)
        fail_msg("page %d: %d tags decoded, %d expected", page + 1, n, want);
}

/* Length in inches of the dark run through (x, y) in direction (dx, dy)
 * (one of them 0), measured at half intensity with sub-pixel edges. */
static double dark_run(const tt_image *im, double x_in, double y_in, int horizontal, double dpi)
{
    int x = (int)(x_in * dpi), y = (int)(y_in * dpi);
    int lo = horizontal ? x : y, hi = lo;
#define PIX(i) (horizontal ? im->data[(size_t)y * im->stride + (i)] : im->data[(size_t)(i)*im->stride + x])
    int lim = horizontal ? im->width : im->height;
    assert_true(PIX(lo) < 128);
    while (lo > 0 && PIX(lo - 1) < 128)
        lo--;
    while (hi + 1 < lim && PIX(hi + 1) < 128)
        hi++;
    /* Edge pixels: coverage from their gray level. */
    double left = lo > 0 ? (255.0 - PIX(lo - 1)) / 255.0 : 0, right = hi + 1 < lim ? (255.0 - PIX(hi + 1)) / 255.0 : 0;
#undef PIX
    return (hi - lo + 1 + left + right) / dpi;
}

static void check_square(const print_doc *doc, const tt_image *im, double dpi)
{
    double x, y;
    print_doc_check_square(doc, &x, &y);
    double w = dark_run(im, x + 0.5, y + 0.5, 1, dpi), h = dark_run(im, x + 0.5, y + 0.5, 0, dpi);
    if (fabs(w - 1.0) > TOL_IN || fabs(h - 1.0) > TOL_IN)
        fail_msg("check square measures %.4f x %.4f in", w, h);
}

static void test_board_true_scale_and_decodes(void **state)
{
    (void)state;
    calib_board b;
    tt_err err = {0};
    print_doc *doc = NULL;
    tt_image im = {0};
    if (calib_board_load(TT_SOURCE_DIR "/samples/board.json", &b, &err) != TT_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(print_doc_board(&b, PRINT_PAPER_LETTER, &doc, &err), TT_OK);
    double w, h;
    print_doc_page_size(doc, &w, &h);
    assert_float_equal(w, 11.0, 1e-9); /* landscape letter */
    assert_float_equal(h, 8.5, 1e-9);
    assert_int_equal(print_doc_npages(doc), 1);
    assert_int_equal(print_doc_nitems(doc), 35);
    assert_int_equal(print_doc_render(doc, 0, DPI, &im, &err), TT_OK);
    assert_int_equal(im.width, 2200);
    check_page(doc, b.family, 0, &im, DPI);
    check_square(doc, &im, DPI);
    /* The board's layout is the board model: tag pitch and orientation. */
    const print_item *t0 = print_doc_item(doc, 0), *t8 = print_doc_item(doc, 8);
    assert_float_equal(t8->x_in - t0->x_in, 1.2, 1e-9);
    assert_float_equal(t8->y_in - t0->y_in, 1.2, 1e-9);
    tt_image_free(&im);
    print_doc_destroy(doc);
}

static void test_tag_sheets_decode(void **state)
{
    (void)state;
    static const struct {
        const char *family, *base;
        int first, last;
        double size;
        print_paper paper;
    } cases[] = {
        {"tag36h11", "round:25mm", 0, 59, 0.6, PRINT_PAPER_LETTER},   /* several pages */
        {"tag36h11", "rect:20x40mm", 100, 111, 0.7, PRINT_PAPER_A4},
        {"tagStandard41h12", NULL, 5, 16, 0.8, PRINT_PAPER_LETTER},   /* reversed border */
        {"tagCircle21h7", "round:1.25", 0, 5, 0.6, PRINT_PAPER_A4},
        {"tag25h9", NULL, 30, 34, 1.5, PRINT_PAPER_LETTER},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        print_tags_opts o;
        tt_err err = {0};
        print_doc *doc = NULL;
        memset(&o, 0, sizeof o);
        o.family = cases[c].family;
        o.id_first = cases[c].first;
        o.id_last = cases[c].last;
        o.size_in = cases[c].size;
        o.paper = cases[c].paper;
        if (cases[c].base)
            assert_int_equal(print_base_parse(cases[c].base, &o.base, &err), TT_OK);
        if (print_doc_tags(&o, &doc, &err) != TT_OK)
            fail_msg("%s: %s", cases[c].family, err.msg);
        assert_int_equal(print_doc_nitems(doc), cases[c].last - cases[c].first + 1);
        printf("# %s %s ids %d-%d: %d page(s)\n", cases[c].family, cases[c].base ? cases[c].base : "(square)",
               cases[c].first, cases[c].last, print_doc_npages(doc));
        for (int p = 0; p < print_doc_npages(doc); p++) {
            tt_image im = {0};
            assert_int_equal(print_doc_render(doc, p, DPI, &im, &err), TT_OK);
            check_page(doc, cases[c].family, p, &im, DPI);
            check_square(doc, &im, DPI);
            tt_image_free(&im);
        }
        if (c == 0)
            assert_true(print_doc_npages(doc) >= 2);
        print_doc_destroy(doc);
    }
}

/* ---- the files ---- */

/* Rasterise page 1 of a PDF with poppler's pdftoppm when it is installed
 * (poppler-utils): the file itself, not our renderer, is then measured. */
static int pdf_raster(const char *pdf, double dpi, tt_image *im)
{
    if (system("command -v pdftoppm >/dev/null 2>&1") != 0)
        return 0;
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "pdftoppm -r %g -gray -f 1 -l 1 -singlefile '%s' '%s/raster'", dpi, pdf, g_dir);
    assert_int_equal(system(cmd), 0);
    tt_err err = {0};
    if (cvw_image_read(path_in("raster.pgm"), 1, im, &err) != TT_OK)
        fail_msg("%s", err.msg);
    return 1;
}

static void test_cli_board_pdf_svg(void **state)
{
    (void)state;
    const char *pdf = path_in("board.pdf"), *svg = path_in("board.svg");
    char *a1[] = {TT_BIN, "print", "board", "--board", TT_SOURCE_DIR "/samples/board.json", "--out", (char *)pdf, NULL};
    run_result r = run_cmd(a1, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    assert_non_null(strstr(r.out, "100%"));
    run_free(&r);
    char *a2[] = {TT_BIN, "print", "board", "--board", TT_SOURCE_DIR "/samples/board.json", "--paper", "a4",
                  "--out", (char *)svg, NULL};
    r = run_cmd(a2, NULL);
    assert_int_equal(r.status, 0);
    run_free(&r);

    size_t n;
    char *text = run_read_file(pdf, &n);
    assert_non_null(text);
    assert_memory_equal(text, "%PDF-", 5);
    /* 72 pt per inch: landscape letter is 792 x 612 pt; vector only. */
    assert_true(memmem(text, n, "/MediaBox [ 0 0 792 612 ]", 25) != NULL);
    assert_null(memmem(text, n, "/Subtype /Image", 15));
    free(text);
    text = run_read_file(svg, &n);
    assert_non_null(text);
    assert_non_null(strstr(text, "width=\"841.889764pt\" height=\"595.275591pt\"")); /* A4 landscape */
    assert_null(strstr(text, "<image"));
    free(text);
    assert_false(exists(path_in("board.pdf.tmp")));

    /* The PDF itself at 200 dpi: all 35 tags decode at true scale. */
    tt_image im = {0};
    if (pdf_raster(pdf, DPI, &im)) {
        calib_board b;
        print_doc *doc = NULL;
        assert_int_equal(calib_board_load(TT_SOURCE_DIR "/samples/board.json", &b, NULL), TT_OK);
        assert_int_equal(print_doc_board(&b, PRINT_PAPER_LETTER, &doc, NULL), TT_OK);
        assert_int_equal(im.width, 2200);
        assert_int_equal(im.height, 1700);
        check_page(doc, b.family, 0, &im, DPI);
        check_square(doc, &im, DPI);
        print_doc_destroy(doc);
        tt_image_free(&im);
        printf("# board.pdf rasterised by pdftoppm at %g dpi: 35 tags at true scale\n", DPI);
    } else {
        printf("# pdftoppm not installed: PDF raster check skipped (the cairo raster check ran)\n");
    }
}

static void test_cli_tags_pdf(void **state)
{
    (void)state;
    const char *pdf = path_in("tags.pdf");
    char *a[] = {TT_BIN, "print", "tags", "--family", "tag36h11", "--ids", "0-99", "--size-in", "0.6", "--base",
                 "round:25mm", "--paper", "letter", "--out", (char *)pdf, NULL};
    run_result r = run_cmd(a, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    assert_non_null(strstr(r.out, "100 tags on 4 pages"));
    run_free(&r);
    size_t n;
    char *text = run_read_file(pdf, &n);
    assert_non_null(text);
    assert_true(memmem(text, n, "/MediaBox [ 0 0 612 792 ]", 25) != NULL);
    int pages = 0;
    for (const char *p = text; (p = memmem(p, n - (size_t)(p - text), "/Type /Page", 11)); p++)
        pages += p[11] != 's'; /* not "/Type /Pages" */
    assert_int_equal(pages, 4);
    free(text);

    tt_image im = {0};
    if (pdf_raster(pdf, DPI, &im)) {
        print_tags_opts o = {"tag36h11", 0, 99, 0.6, {PRINT_BASE_NONE, 0, 0}, PRINT_PAPER_LETTER, 0};
        print_doc *doc = NULL;
        assert_int_equal(print_base_parse("round:25mm", &o.base, NULL), TT_OK);
        assert_int_equal(print_doc_tags(&o, &doc, NULL), TT_OK);
        check_page(doc, "tag36h11", 0, &im, DPI);
        check_square(doc, &im, DPI);
        print_doc_destroy(doc);
        tt_image_free(&im);
    }
}

/* The header on every page of an A4 and a letter tag sheet, as poppler
 * renders the PDF: nothing is drawn in the right margin (the caption used
 * to run 4 pt off A4 and 2 pt off letter), and each page's text says
 * "page N of M". */
static void test_cli_caption_fits(void **state)
{
    (void)state;
    const char *papers[] = {"a4", "letter"};
    assert_int_equal(system("command -v pdftoppm >/dev/null && command -v pdftotext >/dev/null"), 0);
    for (int k = 0; k < 2; k++) {
        const char *pdf = path_in("caption.pdf");
        char *a[] = {TT_BIN, "print", "tags", "--ids", "0-99", "--size-in", "0.6", "--base", "round:25mm", "--paper",
                     (char *)papers[k], "--out", (char *)pdf, NULL};
        run_result r = run_cmd(a, NULL);
        if (r.status != 0)
            fail_msg("exit %d: %s", r.status, r.err);
        run_free(&r);
        print_tags_opts o = {"tag36h11", 0, 99, 0.6, {PRINT_BASE_NONE, 0, 0}, PRINT_PAPER_LETTER, 0};
        print_doc *doc = NULL;
        assert_int_equal(print_base_parse("round:25mm", &o.base, NULL), TT_OK);
        assert_int_equal(print_paper_parse(papers[k], &o.paper, NULL), TT_OK);
        assert_int_equal(print_doc_tags(&o, &doc, NULL), TT_OK);
        int npages = print_doc_npages(doc);
        double pw, ph, cx, cy;
        print_doc_page_size(doc, &pw, &ph);
        print_doc_check_square(doc, &cx, &cy);
        assert_true(npages >= 3);
        for (int p = 1; p <= npages; p++) {
            char cmd[1400];
            snprintf(cmd, sizeof cmd, "pdftoppm -r %g -gray -f %d -l %d -singlefile '%s' '%s/raster'", DPI, p, p, pdf,
                     g_dir);
            assert_int_equal(system(cmd), 0);
            tt_image im = {0};
            tt_err err = {0};
            if (cvw_image_read(path_in("raster.pgm"), 1, &im, &err) != TT_OK)
                fail_msg("%s", err.msg);
            /* the right margin (0.5 in) stays blank, all the way down */
            int x0 = (int)((pw - 0.45) * DPI), dark = 0, ink = 0;
            for (int y = 0; y < im.height; y++)
                for (int x = x0; x < im.width; x++)
                    dark += im.data[(size_t)y * im.stride + x] < 160;
            /* ... and the caption below the instructions is there */
            for (int y = (int)((cy + 0.72) * DPI); y < (int)((cy + 1.2) * DPI); y++)
                for (int x = (int)((cx + 1.25) * DPI); x < (int)((cx + 2.5) * DPI); x++)
                    ink += im.data[(size_t)y * im.stride + x] < 160;
            if (dark || ink < 50)
                fail_msg("%s page %d: %d dark pixels in the right margin, %d in the caption", papers[k], p, dark, ink);
            tt_image_free(&im);
            snprintf(cmd, sizeof cmd, "pdftotext -f %d -l %d '%s' - | tr '\\n' ' ' | grep -q 'page %d of %d - '", p, p,
                     pdf, p, npages);
            if (system(cmd) != 0)
                fail_msg("%s page %d: no 'page %d of %d' in the text", papers[k], p, p, npages);
        }
        printf("# %s: %d pages, right margin blank, 'page N of %d' on each\n", papers[k], npages, npages);
        print_doc_destroy(doc);
    }
}

/* Columns use the page width; anchors one or four per page, spread over
 * it; more per page than fit is refused. */
static void test_layout_width_and_per_page(void **state)
{
    (void)state;
    print_paper papers[] = {PRINT_PAPER_A4, PRINT_PAPER_LETTER};
    for (int k = 0; k < 2; k++) {
        print_tags_opts o = {"tag36h11", 0, 99, 0.6, {PRINT_BASE_NONE, 0, 0}, papers[k], 0};
        print_doc *doc = NULL;
        double pw, ph, right = 0, left = 1e9;
        assert_int_equal(print_base_parse("round:25mm", &o.base, NULL), TT_OK);
        assert_int_equal(print_doc_tags(&o, &doc, NULL), TT_OK);
        print_doc_page_size(doc, &pw, &ph);
        for (int i = 0; i < print_doc_nitems(doc); i++) {
            const print_item *it = print_doc_item(doc, i);
            double cx = it->x_in + it->size_in / 2;
            right = fmax(right, cx + o.base.w_in / 2 + 0.06 + 0.5); /* outline + id label */
            left = fmin(left, cx - o.base.w_in / 2);
        }
        /* the grid reaches both margins (0.5 in) */
        assert_float_equal(left, 0.5, 1e-6);
        assert_float_equal(right, pw - 0.5, 1e-6);
        print_doc_destroy(doc);
    }
    for (int per = 1; per <= 4; per += 3) {
        print_tags_opts o = {"tag36h11", 0, 3, 2.0, {PRINT_BASE_NONE, 0, 0}, PRINT_PAPER_LETTER, per};
        print_doc *doc = NULL;
        assert_int_equal(print_doc_tags(&o, &doc, NULL), TT_OK);
        assert_int_equal(print_doc_npages(doc), 4 / per);
        for (int i = 0; i < 4; i++) {
            const print_item *it = print_doc_item(doc, i);
            assert_int_equal(it->page, i / per);
            double cx = it->x_in + 1.0, cy = it->y_in + 1.0;
            if (per == 1) { /* centred across the page */
                assert_float_equal(cx + 0.28, 8.5 / 2, 0.01);
                assert_true(cy > 5.0 && cy < 7.5);
            } else { /* a 2x2 grid from margin to margin */
                assert_float_equal(cx, (i % 2 ? 8.5 - 0.5 - 0.56 - 1.25 : 0.5 + 1.25), 1e-6);
                assert_float_equal(cy, (i / 2 ? 11 - 0.5 - 1.25 : 0.5 + 1.25 + 1.25), 1e-6);
            }
        }
        print_doc_destroy(doc);
        /* and the file decodes: every anchor readable */
        const char *pdf = path_in("anchors.pdf");
        char n[8];
        snprintf(n, sizeof n, "%d", per);
        char *a[] = {TT_BIN, "print", "tags", "--ids", "0-3", "--size-in", "2", "--per-page", n, "--out", (char *)pdf, NULL};
        run_result r = run_cmd(a, NULL);
        if (r.status != 0)
            fail_msg("exit %d: %s", r.status, r.err);
        run_free(&r);
        tt_image im = {0};
        if (pdf_raster(pdf, DPI, &im)) {
            assert_int_equal(print_doc_tags(&o, &doc, NULL), TT_OK);
            check_page(doc, "tag36h11", 0, &im, DPI);
            print_doc_destroy(doc);
            tt_image_free(&im);
        }
    }
    print_tags_opts o = {"tag36h11", 0, 9, 2.0, {PRINT_BASE_NONE, 0, 0}, PRINT_PAPER_LETTER, 7};
    print_doc *doc = NULL;
    tt_err err = {0};
    assert_int_equal(print_doc_tags(&o, &doc, &err), TT_ERR_ARG);
    assert_null(doc);
    assert_non_null(strstr(err.msg, "7 tags of 2 in do not fit on one letter page (at most 6 do)"));
}

/* ---- parsing and bad input ---- */

static void test_parse(void **state)
{
    (void)state;
    print_base b;
    int a, z;
    print_paper p;
    assert_int_equal(print_base_parse("round:25mm", &b, NULL), TT_OK);
    assert_int_equal(b.kind, PRINT_BASE_ROUND);
    assert_float_equal(b.w_in, 25 / 25.4, 1e-12);
    assert_int_equal(print_base_parse("rect:20x40mm", &b, NULL), TT_OK);
    assert_int_equal(b.kind, PRINT_BASE_RECT);
    assert_float_equal(b.w_in, 20 / 25.4, 1e-12);
    assert_float_equal(b.d_in, 40 / 25.4, 1e-12);
    assert_int_equal(print_base_parse("rect:1x2", &b, NULL), TT_OK);
    assert_float_equal(b.d_in, 2.0, 1e-12);
    assert_int_equal(print_base_parse("round:1.5in", &b, NULL), TT_OK);
    assert_float_equal(b.w_in, 1.5, 1e-12);
    tt_err err = {0};
    assert_int_equal(print_base_parse("hex:3", &b, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "use round:D or rect:WxD"));
    assert_int_equal(print_base_parse("round:-1", &b, NULL), TT_ERR_ARG);
    assert_int_equal(print_base_parse("rect:20", &b, NULL), TT_ERR_ARG);
    assert_int_equal(print_ids_parse("0-99", &a, &z, NULL), TT_OK);
    assert_int_equal(a, 0);
    assert_int_equal(z, 99);
    assert_int_equal(print_ids_parse("7", &a, &z, NULL), TT_OK);
    assert_int_equal(z, 7);
    assert_int_equal(print_ids_parse("9-3", &a, &z, &err), TT_ERR_ARG);
    assert_int_equal(print_ids_parse("a-b", &a, &z, NULL), TT_ERR_ARG);
    assert_int_equal(print_ids_parse("-3", &a, &z, NULL), TT_ERR_ARG);
    assert_int_equal(print_paper_parse("A4", &p, NULL), TT_OK);
    assert_int_equal(p, PRINT_PAPER_A4);
    assert_int_equal(print_paper_parse("legal", &p, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "a4 or letter"));
}

/* Run tabletrack with args; expect exit 1, `needle` in stderr, and neither
 * the output file nor its temporary left behind. */
static void expect_cli_fail(const char *out, const char *needle, char **argv)
{
    run_result r = run_cmd(argv, NULL);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    if (r.status != 1 || !r.err || !strstr(r.err, needle) || exists(out) || exists(tmp))
        fail_msg("exit %d, stderr '%s', output left: %d (wanted exit 1, '%s', no file)", r.status, r.err ? r.err : "",
                 exists(out) || exists(tmp), needle);
    printf("# %s", r.err);
    run_free(&r);
}

static void test_cli_bad_input(void **state)
{
    (void)state;
    const char *out = path_in("bad.pdf");
    /* an id range outside the family names the family's id count */
    char *a1[] = {TT_BIN, "print", "tags", "--ids", "580-600", "--size-in", "0.8", "--out", (char *)out, NULL};
    expect_cli_fail(out, "ids 580-600 are outside tag36h11, which has 587 ids (0-586)", a1);
    char *a1b[] = {TT_BIN, "print", "tags", "--family", "tag16h5", "--ids", "0-30", "--size-in", "0.8", "--out",
                   (char *)out, NULL};
    expect_cli_fail(out, "outside tag16h5, which has 30 ids (0-29)", a1b);
    /* a page too small for the tag size */
    char *a2[] = {TT_BIN, "print", "tags", "--ids", "0-3", "--size-in", "9", "--paper", "a4", "--out", (char *)out, NULL};
    expect_cli_fail(out, "the page is too small: a 9 in tag needs", a2);
    char *a2b[] = {TT_BIN, "print", "tags", "--ids", "0-3", "--size-in", "1", "--base", "rect:10inx12in", "--out",
                   (char *)out, NULL};
    expect_cli_fail(out, "the page is too small", a2b);
    /* bare numbers that large are asked about first (issue 33: 25 read as inches) */
    char *a2c[] = {TT_BIN, "print", "tags", "--ids", "0-3", "--size-in", "1", "--base", "rect:10x12", "--out",
                   (char *)out, NULL};
    expect_cli_fail(out, "10x12 inches? did you mean rect:10x12mm?", a2c);
    /* unknown family */
    char *a3[] = {TT_BIN, "print", "tags", "--family", "tag99h1", "--ids", "0-3", "--size-in", "1", "--out",
                  (char *)out, NULL};
    expect_cli_fail(out, "unknown tag family 'tag99h1' (known: tag36h11", a3);
    /* a tag that does not fit its base */
    char *a4[] = {TT_BIN, "print", "tags", "--ids", "0-3", "--size-in", "0.8", "--base", "round:25mm", "--out",
                  (char *)out, NULL};
    expect_cli_fail(out, "does not fit a round base", a4);
    /* ... counting the data ring outside the square of reversed-border families */
    char *a4b[] = {TT_BIN, "print", "tags", "--family", "tagCircle21h7", "--ids", "0-3", "--size-in", "0.75",
                   "--base", "round:1.25", "--out", (char *)out, NULL};
    expect_cli_fail(out, "a 0.75 in tagCircle21h7 tag does not fit a round base of 1.25 in", a4b);
    char *a4c[] = {TT_BIN, "print", "tags", "--ids", "0-3", "--size-in", "0.8", "--base", "rect:20x15mm", "--out",
                   (char *)out, NULL};
    expect_cli_fail(out, "does not fit a 0.787 x 0.591 in base; use --size-in 0.590 or less", a4c);
    /* several pages into one SVG; an unsupported extension */
    const char *svg = path_in("bad.svg"), *png = path_in("bad.png");
    char *a5[] = {TT_BIN, "print", "tags", "--ids", "0-99", "--size-in", "0.8", "--out", (char *)svg, NULL};
    expect_cli_fail(svg, "an SVG file holds one", a5);
    char *a6[] = {TT_BIN, "print", "tags", "--ids", "0-3", "--size-in", "0.8", "--out", (char *)png, NULL};
    expect_cli_fail(png, "must end in .pdf or .svg", a6);
    /* an unwritable place */
    const char *nodir = path_in("no/such/dir/x.pdf");
    char *a7[] = {TT_BIN, "print", "tags", "--ids", "0-3", "--size-in", "0.8", "--out", (char *)nodir, NULL};
    expect_cli_fail(nodir, "the folder", a7);
    expect_cli_fail(nodir, "no/such/dir' does not exist (create it first", a7);
    /* board: too big for the paper, bad board file, unknown family */
    FILE *f = fopen(path_in("big.json"), "w");
    fputs("{\"rows\":5,\"columns\":7,\"tag_size_in\":1.2,\"spacing_in\":0.4}", f);
    fclose(f);
    char *b1[] = {TT_BIN, "print", "board", "--board", (char *)path_in("big.json"), "--out", (char *)out, NULL};
    expect_cli_fail(out, "the page is too small: the board needs 11.10 x 7.90 in", b1);
    f = fopen(path_in("fam.json"), "w");
    fputs("{\"family\":\"tag99\",\"rows\":5,\"columns\":7,\"tag_size_in\":1,\"spacing_in\":0.3}", f);
    fclose(f);
    char *b2[] = {TT_BIN, "print", "board", "--board", (char *)path_in("fam.json"), "--out", (char *)out, NULL};
    expect_cli_fail(out, "unknown tag family 'tag99'", b2);
    f = fopen(path_in("broken.json"), "w");
    fputs("{\"rows\":5,\n\"columns\":}", f);
    fclose(f);
    char *b3[] = {TT_BIN, "print", "board", "--board", (char *)path_in("broken.json"), "--out", (char *)out, NULL};
    expect_cli_fail(out, "broken.json: line 2, column", b3);
    /* usage errors exit 2 */
    char *u1[] = {TT_BIN, "print", "tags", "--ids", "0-3", "--out", (char *)out, NULL};
    run_result r = run_cmd(u1, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "no --size-in"));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_family_table_matches_libapriltag),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_board_true_scale_and_decodes),
        cmocka_unit_test(test_tag_sheets_decode),
        cmocka_unit_test(test_cli_board_pdf_svg),
        cmocka_unit_test(test_cli_tags_pdf),
        cmocka_unit_test(test_cli_bad_input),
        cmocka_unit_test(test_cli_caption_fits),
        cmocka_unit_test(test_layout_width_and_per_page),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
