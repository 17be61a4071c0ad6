/* layout.c - argument parsing and page layout for tag sheets and the
 * calibration board. */
#include "print_int.h"
#include "families.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int print__is_data_bit(const apriltag_family_t *fam, int x, int y)
{
    int bs = (fam->total_width - fam->width_at_border) / 2;
    for (uint32_t i = 0; i < fam->nbits; i++)
        /* bit_x/bit_y are relative to the detected square and may be
         * negative (stored as uint32_t) for reversed-border families. */
        if ((int32_t)fam->bit_x[i] + bs == x && (int32_t)fam->bit_y[i] + bs == y)
            return 1;
    return 0;
}

static int print__in_square(const apriltag_family_t *fam, int x, int y, int width)
{
    int lo = (fam->total_width - width) / 2;
    return x >= lo && x < lo + width && y >= lo && y < lo + width;
}

int print__cell_care(const apriltag_family_t *fam, int x, int y)
{
    if (!fam->reversed_border)
        return 1;
    return print__in_square(fam, x, y, fam->width_at_border + 2) || print__is_data_bit(fam, x, y);
}

int print__cell_needed(const apriltag_family_t *fam, int x, int y)
{
    if (!fam->reversed_border)
        return print__in_square(fam, x, y, fam->width_at_border);
    return print__cell_care(fam, x, y);
}

/* Extent of the needed cells around the tag centre, in cells: half width
 * (x), half height (y) and radius of the smallest centred circle. */
static void print__needed_extent(const apriltag_family_t *fam, double *hx, double *hy, double *r)
{
    double c = fam->total_width / 2.0;
    *hx = *hy = *r = 0;
    for (int y = 0; y < fam->total_width; y++)
        for (int x = 0; x < fam->total_width; x++) {
            if (!print__cell_needed(fam, x, y))
                continue;
            double dx = fmax(fabs(x - c), fabs(x + 1 - c)), dy = fmax(fabs(y - c), fabs(y + 1 - c));
            *hx = fmax(*hx, dx);
            *hy = fmax(*hy, dy);
            *r = fmax(*r, sqrt(dx * dx + dy * dy));
        }
}

static const char *print__paper_name(print_paper p)
{
    return p == PRINT_PAPER_A4 ? "A4" : "letter";
}

static void print__paper_size(print_paper p, double *w, double *h)
{
    if (p == PRINT_PAPER_A4) {
        *w = 210.0 / 25.4;
        *h = 297.0 / 25.4;
    } else {
        *w = 8.5;
        *h = 11.0;
    }
}

tt_status print_paper_parse(const char *name, print_paper *out, tt_err *err)
{
    if (name && !strcasecmp(name, "letter"))
        *out = PRINT_PAPER_LETTER;
    else if (name && !strcasecmp(name, "a4"))
        *out = PRINT_PAPER_A4;
    else
        return tt_err_set(err, TT_ERR_ARG, "unknown paper '%s' (use a4 or letter)", name ? name : "");
    return TT_OK;
}

/* A length: inches, or millimetres with an "mm" suffix ("in" allowed).
 * *bare (may be NULL) is set when no unit was written. */
static int print__length(const char *s, const char *end, int mm_default, double *out, int *bare)
{
    char buf[64];
    size_t n = (size_t)(end - s);
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *e = NULL;
    errno = 0;
    double v = strtod(buf, &e);
    if (e == buf || errno)
        return 0;
    int mm = mm_default;
    if (bare)
        *bare = !*e;
    if (!strcasecmp(e, "mm"))
        mm = 1;
    else if (!strcasecmp(e, "in") || !strcmp(e, "\""))
        mm = 0;
    else if (*e)
        return 0;
    if (!(v > 0 && v < 1000))
        return 0;
    *out = mm ? v / 25.4 : v;
    return 1;
}

/* A base written without a unit is read in inches; from this size on it is
 * surely millimetres ("round:25"), and is asked about rather than printed
 * 25 inches wide. */
#define PRINT__BARE_MAX_IN 8.0

tt_status print_base_parse(const char *spec, print_base *out, tt_err *err)
{
    const char *hint = "use round:D or rect:WxD, in inches or with an mm suffix, e.g. round:25mm or rect:1x2";
    memset(out, 0, sizeof *out);
    if (!spec)
        return tt_err_set(err, TT_ERR_ARG, "no base given: %s", hint);
    if (!strncasecmp(spec, "round:", 6)) {
        const char *s = spec + 6;
        int bare = 0;
        if (!print__length(s, s + strlen(s), 0, &out->w_in, &bare))
            return tt_err_set(err, TT_ERR_ARG, "bad base '%s': %s", spec, hint);
        if (bare && out->w_in >= PRINT__BARE_MAX_IN)
            return tt_err_set(err, TT_ERR_ARG,
                              "--base %s: %s inches? did you mean %smm? (a number without a unit is inches: write "
                              "%sin if you mean inches)", spec, s, spec, s);
        out->d_in = out->w_in;
        out->kind = PRINT_BASE_ROUND;
        return TT_OK;
    }
    if (!strncasecmp(spec, "rect:", 5)) {
        const char *s = spec + 5, *x = strpbrk(s, "xX");
        if (!x)
            return tt_err_set(err, TT_ERR_ARG, "bad base '%s': %s", spec, hint);
        /* "20x40mm": the unit after the second number applies to both. */
        const char *tail = x + 1 + strlen(x + 1);
        int mm = tail - x > 3 && !strcasecmp(tail - 2, "mm");
        int bare_w = 0, bare_d = 0;
        if (!print__length(s, x, mm, &out->w_in, &bare_w) || !print__length(x + 1, tail, mm, &out->d_in, &bare_d))
            return tt_err_set(err, TT_ERR_ARG, "bad base '%s': %s", spec, hint);
        if (bare_w && bare_d && (out->w_in >= PRINT__BARE_MAX_IN || out->d_in >= PRINT__BARE_MAX_IN))
            return tt_err_set(err, TT_ERR_ARG,
                              "--base %s: %s inches? did you mean %smm? (numbers without a unit are inches)", spec, s,
                              spec);
        out->kind = PRINT_BASE_RECT;
        return TT_OK;
    }
    return tt_err_set(err, TT_ERR_ARG, "bad base '%s': %s", spec, hint);
}

static int print__uint(const char *s, const char *end, int *out)
{
    long v = 0;
    if (s == end)
        return 0;
    for (const char *p = s; p < end; p++) {
        if (!isdigit((unsigned char)*p))
            return 0;
        v = v * 10 + (*p - '0');
        if (v > 1000000000L)
            return 0;
    }
    *out = (int)v;
    return 1;
}

tt_status print_ids_parse(const char *spec, int *first, int *last, tt_err *err)
{
    if (!spec)
        spec = "";
    const char *dash = strchr(spec, '-');
    const char *end = spec + strlen(spec);
    int ok = dash ? print__uint(spec, dash, first) && print__uint(dash + 1, end, last)
                  : print__uint(spec, end, first) && print__uint(spec, end, last);
    if (!ok)
        return tt_err_set(err, TT_ERR_ARG, "bad id range '%s': use A-B (e.g. 0-99) or a single id", spec);
    if (*first > *last)
        return tt_err_set(err, TT_ERR_ARG, "bad id range '%s': the first id is larger than the last", spec);
    return TT_OK;
}

static tt_status print__doc_new(const char *family, print_doc **out, tt_err *err)
{
    print_doc *doc = NULL;
    tt_status st;
    int k = vision_family_index(family);
    *out = NULL;
    if (k < 0)
        return tt_err_set(err, TT_ERR_UNKNOWN, "unknown tag family '%s' (known: %s)", family ? family : "",
                          vision_family_list());
    doc = calloc(1, sizeof *doc);
    if (!doc)
        goto nomem;
    doc->famidx = k;
    doc->fam = vision_family_create(k);
    if (!doc->fam)
        goto nomem;
    *out = doc;
    return TT_OK;
nomem:
    st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    print_doc_destroy(doc);
    return st;
}

void print_doc_destroy(print_doc *doc)
{
    if (!doc)
        return;
    vision_family_destroy(doc->famidx, doc->fam);
    free(doc->items);
    free(doc);
}

/* Extent of the printed pattern with its white quiet border, in cells.
 * Families with a white outer border (tag36h11...) carry one in the
 * pattern; the others (tagStandard41h12...) get one more cell. */
static double print__quiet_cells(const apriltag_family_t *fam)
{
    return fam->total_width + (fam->reversed_border ? 2 : 0);
}

tt_status print_doc_tags(const print_tags_opts *o, print_doc **out, tt_err *err)
{
    print_doc *doc = NULL;
    tt_status st;
    const char *family = o->family ? o->family : "tag36h11";
    double S = o->size_in;

    *out = NULL;
    if (!(S > 0 && S < 1000))
        return tt_err_set(err, TT_ERR_ARG, "tag size must be a positive number of inches (got %g)", S);
    if ((st = print__doc_new(family, &doc, err)) != TT_OK)
        return st;
    const apriltag_family_t *fam = doc->fam;
    if (o->id_first < 0 || o->id_last < o->id_first || (unsigned)o->id_last >= fam->ncodes) {
        st = tt_err_set(err, TT_ERR_ARG, "ids %d-%d are outside %s, which has %u ids (0-%u): pick ids in that range",
                        o->id_first, o->id_last, family, fam->ncodes, fam->ncodes - 1);
        goto fail;
    }
    int n = o->id_last - o->id_first + 1;
    if (n > PRINT_MAX_TAGS) {
        st = tt_err_set(err, TT_ERR_ARG, "%d tags is too many for one sheet set; print at most %d at a time", n,
                        PRINT_MAX_TAGS);
        goto fail;
    }

    double cell = S / fam->width_at_border, quiet = print__quiet_cells(fam) * cell;
    double hx, hy, rad; /* what must survive cutting, in cells */
    print__needed_extent(fam, &hx, &hy, &rad);
    doc->base = o->base;
    switch (o->base.kind) {
    case PRINT_BASE_ROUND:
        if (2 * rad * cell > o->base.w_in + 1e-9) {
            st = tt_err_set(err, TT_ERR_ARG,
                            "a %g in %s tag does not fit a round base of %.3g in (%.3g mm): its corners would be "
                            "cut off; use --size-in %.3f or less",
                            S, family, o->base.w_in, o->base.w_in * 25.4,
                            floor(o->base.w_in / (2 * rad) * fam->width_at_border * 1000) / 1000);
            goto fail;
        }
        doc->outline_w = doc->outline_h = o->base.w_in;
        break;
    case PRINT_BASE_RECT:
        if (2 * hx * cell > o->base.w_in + 1e-9 || 2 * hy * cell > o->base.d_in + 1e-9) {
            double m = fmin(o->base.w_in / (2 * hx), o->base.d_in / (2 * hy)) * fam->width_at_border;
            st = tt_err_set(err, TT_ERR_ARG,
                            "a %g in %s tag does not fit a %.3g x %.3g in base; use --size-in %.3f or less", S,
                            family, o->base.w_in, o->base.d_in, floor(m * 1000) / 1000);
            goto fail;
        }
        doc->outline_w = o->base.w_in;
        doc->outline_h = o->base.d_in;
        break;
    default:
        doc->outline_w = doc->outline_h = quiet;
        break;
    }

    print__paper_size(o->paper, &doc->page_w, &doc->page_h);
    double gap = 0.15;
    double cw = doc->outline_w + PRINT__LABEL_GAP_IN + PRINT__LABEL_W_IN;
    double ch = doc->outline_h > 0.25 ? doc->outline_h : 0.25;
    double aw = doc->page_w - 2 * PRINT__MARGIN_IN, ah = doc->page_h - 2 * PRINT__MARGIN_IN - PRINT__HEADER_IN;
    int ncols = (int)floor((aw + gap) / (cw + gap) + 1e-9), nrows = (int)floor((ah + gap) / (ch + gap) + 1e-9);
    if (ncols < 1 || nrows < 1) {
        st = tt_err_set(err, TT_ERR_ARG,
                        "the page is too small: a %g in tag needs %.2f x %.2f in (cut outline and id label) but %s "
                        "paper leaves %.2f x %.2f in below the check square; use a smaller --size-in or base%s",
                        S, cw, ch, print__paper_name(o->paper), aw, ah,
                        o->paper == PRINT_PAPER_LETTER ? " (or --paper a4)" : " (or --paper letter)");
        goto fail;
    }
    int per_page = ncols * nrows;
    if (o->per_page > 0) {
        if (o->per_page > per_page) {
            st = tt_err_set(err, TT_ERR_ARG,
                            "%d tags of %g in do not fit on one %s page (at most %d do): use --per-page %d or less, "
                            "or a smaller --size-in",
                            o->per_page, S, print__paper_name(o->paper), per_page, per_page);
            goto fail;
        }
        /* As square a grid as fits, spread over the whole page. */
        int c = (int)ceil(sqrt((double)o->per_page));
        c = c < ncols ? c : ncols;
        int r = (o->per_page + c - 1) / c;
        if (r > nrows) {
            r = nrows;
            c = (o->per_page + r - 1) / r;
        }
        ncols = c;
        nrows = r;
        per_page = o->per_page;
    }
    /* Columns spread over the page width; rows packed from the top, or
     * spread over the height when the caller chose how many per page. */
    double px = ncols > 1 ? (aw - cw) / (ncols - 1) : 0, x0 = ncols > 1 ? 0 : (aw - cw) / 2;
    double py = ch + gap, y0 = 0;
    if (o->per_page > 0) {
        py = nrows > 1 ? (ah - ch) / (nrows - 1) : 0;
        y0 = nrows > 1 ? 0 : (ah - ch) / 2;
    }
    doc->items = calloc((size_t)n, sizeof *doc->items);
    if (!doc->items) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int i = 0; i < n; i++) {
        print_item *it = &doc->items[i];
        int p = i / per_page, r = (i % per_page) / ncols, c = i % per_page % ncols;
        double ox = PRINT__MARGIN_IN + x0 + c * px;
        double oy = PRINT__MARGIN_IN + PRINT__HEADER_IN + y0 + r * py + (ch - doc->outline_h) / 2;
        it->id = o->id_first + i;
        it->page = p;
        it->size_in = S;
        it->x_in = ox + (doc->outline_w - S) / 2;
        it->y_in = oy + (doc->outline_h - S) / 2;
    }
    doc->nitems = n;
    doc->npages = (n + per_page - 1) / per_page;
    doc->check_x = PRINT__MARGIN_IN;
    doc->check_y = PRINT__MARGIN_IN;
    char basedesc[96] = "";
    if (o->base.kind == PRINT_BASE_ROUND)
        snprintf(basedesc, sizeof basedesc, ", round bases %.3g in (%.3g mm)", o->base.w_in, o->base.w_in * 25.4);
    else if (o->base.kind == PRINT_BASE_RECT)
        snprintf(basedesc, sizeof basedesc, ", bases %.3g x %.3g in (%.3g x %.3g mm)", o->base.w_in, o->base.d_in,
                 o->base.w_in * 25.4, o->base.d_in * 25.4);
    snprintf(doc->desc, sizeof doc->desc, "tabletrack tags: %s, tag size %g in (%.3g mm, the detected square), ids %d-%d%s", family, S,
             S * 25.4, o->id_first, o->id_last, basedesc);
    *out = doc;
    return TT_OK;

fail:
    print_doc_destroy(doc);
    return st;
}

tt_status print_doc_board(const calib_board *b, print_paper paper, print_doc **out, tt_err *err)
{
    print_doc *doc = NULL;
    tt_status st;

    *out = NULL;
    if ((st = calib_board_validate(b, "board", err)) != TT_OK)
        return st;
    if ((st = print__doc_new(b->family, &doc, err)) != TT_OK)
        return st;
    const apriltag_family_t *fam = doc->fam;
    double cell = b->tag_size_in / fam->width_at_border;
    double q = (print__quiet_cells(fam) - fam->width_at_border) / 2 * cell;
    double W, H;
    calib_board_extent(b, &W, &H);
    double bw = W + 2 * q, bh = H + 2 * q, pw, ph;
    print__paper_size(paper, &pw, &ph);
    double aw_p = pw - 2 * PRINT__MARGIN_IN, ah_p = ph - 2 * PRINT__MARGIN_IN - PRINT__HEADER_IN;
    double aw_l = ph - 2 * PRINT__MARGIN_IN, ah_l = pw - 2 * PRINT__MARGIN_IN - PRINT__HEADER_IN;
    int fit_p = bw <= aw_p + 1e-9 && bh <= ah_p + 1e-9, fit_l = bw <= aw_l + 1e-9 && bh <= ah_l + 1e-9;
    if (!fit_p && !fit_l) {
        st = tt_err_set(err, TT_ERR_ARG,
                        "the page is too small: the board needs %.2f x %.2f in (with its white border) but %s paper "
                        "leaves %.2f x %.2f in below the check square (%.2f x %.2f in landscape); use smaller "
                        "tags, less spacing or fewer rows/columns",
                        bw, bh, print__paper_name(paper), aw_p, ah_p, aw_l, ah_l);
        goto fail;
    }
    int landscape = fit_l && (!fit_p || bw > bh);
    doc->page_w = landscape ? ph : pw;
    doc->page_h = landscape ? pw : ph;
    double aw = landscape ? aw_l : aw_p, ah = landscape ? ah_l : ah_p;
    int n = calib_board_ntags(b);
    doc->items = calloc((size_t)n, sizeof *doc->items);
    if (!doc->items) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    double x0 = PRINT__MARGIN_IN + (aw - bw) / 2 + q, y0 = PRINT__MARGIN_IN + PRINT__HEADER_IN + (ah - bh) / 2 + q;
    for (int i = 0; i < n; i++) {
        double c[4][3];
        calib_board_tag_corners(b, i, c);
        doc->items[i].id = b->first_id + i;
        doc->items[i].page = 0;
        doc->items[i].size_in = b->tag_size_in;
        doc->items[i].x_in = x0 + c[3][0]; /* corner 3: top-left */
        doc->items[i].y_in = y0 + c[3][1];
    }
    doc->nitems = n;
    doc->npages = 1;
    doc->is_board = 1;
    doc->check_x = PRINT__MARGIN_IN;
    doc->check_y = PRINT__MARGIN_IN;
    snprintf(doc->desc, sizeof doc->desc,
             "tabletrack calibration board: %s, %d x %d tags of %g in (%.3g mm), spacing %g in, ids %d-%d", b->family,
             b->rows, b->columns, b->tag_size_in, b->tag_size_in * 25.4, b->spacing_in, b->first_id,
             b->first_id + n - 1);
    *out = doc;
    return TT_OK;

fail:
    print_doc_destroy(doc);
    return st;
}

int print_doc_npages(const print_doc *doc)
{
    return doc ? doc->npages : 0;
}

void print_doc_page_size(const print_doc *doc, double *w, double *h)
{
    *w = doc->page_w;
    *h = doc->page_h;
}

int print_doc_nitems(const print_doc *doc)
{
    return doc ? doc->nitems : 0;
}

const print_item *print_doc_item(const print_doc *doc, int i)
{
    return doc && i >= 0 && i < doc->nitems ? &doc->items[i] : NULL;
}

void print_doc_check_square(const print_doc *doc, double *x, double *y)
{
    *x = doc->check_x;
    *y = doc->check_y;
}
