/* draw.c - cairo drawing of print documents: PDF/SVG files and rasters.
 * Everything is drawn in inches (the cairo context is scaled to 72 pt per
 * inch for files, dpi pixels per inch for rasters). */
#include "print_int.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tt_tmpfile.h"

#include <apriltag/common/image_u8.h>

#define PRINT__FONT "DejaVu Sans"

/* Black cells of one tag as vector rectangles: one rectangle per run of
 * black cells in a row, all in one path so no seams show between cells. */
static tt_status print__draw_tag(const print_doc *doc, cairo_t *cr, const print_item *it, tt_err *err)
{
    const apriltag_family_t *fam = doc->fam;
    image_u8_t *im = apriltag_to_image(doc->fam, it->id);
    if (!im)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory drawing tag %d", it->id);
    double cell = it->size_in / fam->width_at_border;
    double off = (fam->total_width - fam->width_at_border) / 2.0 * cell;
    double x0 = it->x_in - off, y0 = it->y_in - off;
    cairo_new_path(cr);
#define PRINT__BLACK(x_, y_) (im->buf[(y_)*im->stride + (x_)] == 0 && print__cell_care(fam, (x_), (y_)))
    for (int y = 0; y < im->height; y++) {
        for (int x = 0; x < im->width;) {
            if (!PRINT__BLACK(x, y)) {
                x++;
                continue;
            }
            int x1 = x;
            while (x1 < im->width && PRINT__BLACK(x1, y))
                x1++;
            cairo_rectangle(cr, x0 + x * cell, y0 + y * cell, (x1 - x) * cell, cell);
            x = x1;
        }
    }
#undef PRINT__BLACK
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING);
    cairo_fill(cr);
    image_u8_destroy(im);
    return TT_OK;
}

static void print__draw_outline(const print_doc *doc, cairo_t *cr, const print_item *it)
{
    double cx = it->x_in + it->size_in / 2, cy = it->y_in + it->size_in / 2;
    cairo_new_path(cr);
    if (doc->base.kind == PRINT_BASE_ROUND)
        cairo_arc(cr, cx, cy, doc->outline_w / 2, 0, 2 * M_PI);
    else
        cairo_rectangle(cr, cx - doc->outline_w / 2, cy - doc->outline_h / 2, doc->outline_w, doc->outline_h);
    cairo_set_source_rgb(cr, 0.55, 0.55, 0.55);
    cairo_set_line_width(cr, 0.5 / 72.0);
    cairo_stroke(cr);

    char label[16];
    cairo_text_extents_t te;
    snprintf(label, sizeof label, "%d", it->id);
    cairo_select_font_face(cr, PRINT__FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 9.0 / 72.0);
    cairo_text_extents(cr, label, &te);
    cairo_move_to(cr, cx + doc->outline_w / 2 + PRINT__LABEL_GAP_IN, cy - te.y_bearing - te.height / 2);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_show_text(cr, label);
}

/* Show (draw != 0) or measure one paragraph wrapped at spaces to maxw
 * inches, first baseline at y; returns the baseline after the last line. */
static double print__para(cairo_t *cr, int draw, double x, double y, double maxw, const char *text, double pt,
                          int bold, double lead)
{
    char line[PRINT__CAPTION_LEN + 64], trial[sizeof line];
    cairo_text_extents_t te;
    const char *p = text;
    cairo_select_font_face(cr, PRINT__FONT, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, pt / 72.0);
    line[0] = '\0';
    for (;;) {
        while (*p == ' ')
            p++;
        size_t wl = strcspn(p, " ");
        if (wl == 0)
            break;
        snprintf(trial, sizeof trial, "%s%s%.*s", line, line[0] ? " " : "", (int)wl, p);
        cairo_text_extents(cr, trial, &te);
        if (line[0] && te.x_advance > maxw) {
            if (draw) {
                cairo_move_to(cr, x, y);
                cairo_show_text(cr, line);
            }
            y += lead;
            snprintf(line, sizeof line, "%.*s", (int)wl, p);
        } else {
            memcpy(line, trial, sizeof line);
        }
        p += wl;
    }
    if (line[0] && draw) {
        cairo_move_to(cr, x, y);
        cairo_show_text(cr, line);
    }
    return y + lead;
}

/* The header's text beside the check square, wrapped to the page width
 * (right margin kept) and shrunk until it ends above the first tag row.
 * Returns the baseline below the last line. */
static double print__header_text(const print_doc *doc, cairo_t *cr, int draw, double k, const char *caption)
{
    static const char *lines[] = {
        "Print at 100% / \"Actual size\" (never \"Fit to page\" or \"Shrink\").",
        "Then measure the black square: it must be exactly 1 inch (25.4 mm) on each side.",
        "If it is not, the tags are the wrong size and every position will be off: fix the print settings.",
    };
    double x = doc->check_x + 1.25, maxw = doc->page_w - PRINT__MARGIN_IN - x, y = doc->check_y + 0.16 * k;
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (int i = 0; i < 3; i++)
        y = print__para(cr, draw, x, y, maxw, lines[i], (i == 0 ? 10.5 : 9.0) * k, i == 0, 0.2 * k);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    return print__para(cr, draw, x, y + 0.1 * k, maxw, caption, 8.0 * k, 0, 0.13 * k);
}

static void print__draw_header(const print_doc *doc, cairo_t *cr, int page)
{
    cairo_new_path(cr);
    cairo_rectangle(cr, doc->check_x, doc->check_y, 1.0, 1.0);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_fill(cr);

    /* The page number first, so it survives any wrapping. */
    char caption[PRINT__CAPTION_LEN + 64];
    if (doc->npages > 1)
        snprintf(caption, sizeof caption, "page %d of %d - %s", page + 1, doc->npages, doc->desc);
    else
        snprintf(caption, sizeof caption, "%s", doc->desc);
    double k = 1.0;
    while (k > 0.5 && print__header_text(doc, cr, 0, k, caption) - 0.13 * k > doc->check_y + PRINT__HEADER_IN - 0.05)
        k *= 0.92;
    print__header_text(doc, cr, 1, k, caption);
    cairo_select_font_face(cr, PRINT__FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 8.0 / 72.0);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_move_to(cr, doc->check_x, doc->check_y + 1.15);
    cairo_show_text(cr, "1 inch");
}

/* Draw one page on a context already scaled to inches. */
static tt_status print__draw_page(const print_doc *doc, cairo_t *cr, int page, tt_err *err)
{
    tt_status st;
    print__draw_header(doc, cr, page);
    for (int i = 0; i < doc->nitems; i++) {
        const print_item *it = &doc->items[i];
        if (it->page != page)
            continue;
        if (!doc->is_board)
            print__draw_outline(doc, cr, it);
        if ((st = print__draw_tag(doc, cr, it, err)) != TT_OK)
            return st;
    }
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        return tt_err_set(err, TT_ERR_INTERNAL, "drawing page %d: %s", page + 1,
                          cairo_status_to_string(cairo_status(cr)));
    return TT_OK;
}

static const char *print__ext(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot : "";
}

tt_status print_doc_write(const print_doc *doc, const char *path, tt_err *err)
{
    const char *ext = print__ext(path);
    int svg = !strcasecmp(ext, ".svg");
    char *tmp = NULL;
    cairo_surface_t *s = NULL;
    cairo_t *cr = NULL;
    tt_status st = TT_OK;

    if (!svg && strcasecmp(ext, ".pdf"))
        return tt_err_set(err, TT_ERR_ARG, "cannot write '%s': the output must end in .pdf or .svg", path);
    if (svg && doc->npages > 1)
        return tt_err_set(err, TT_ERR_ARG,
                          "these tags need %d pages but an SVG file holds one: write a .pdf, or print fewer ids at "
                          "a time",
                          doc->npages);
    if ((st = tt_tmp_create(path, &tmp, err)) != TT_OK)
        return st;

    double wpt = doc->page_w * 72.0, hpt = doc->page_h * 72.0;
    if (svg) {
        s = cairo_svg_surface_create(tmp, wpt, hpt);
        if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS)
            cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PT);
    } else {
        s = cairo_pdf_surface_create(tmp, wpt, hpt);
        if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS) {
            cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, doc->desc);
            cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "tabletrack");
        }
    }
    cr = cairo_create(s);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        st = tt_err_set(err, TT_ERR_IO, "cannot write %s: %s", path, cairo_status_to_string(cairo_status(cr)));
        goto done;
    }
    cairo_scale(cr, 72.0, 72.0);
    for (int p = 0; p < doc->npages; p++) {
        if ((st = print__draw_page(doc, cr, p, err)) != TT_OK)
            goto done;
        cairo_show_page(cr);
    }
    cairo_destroy(cr);
    cr = NULL;
    cairo_surface_finish(s);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        st = tt_err_set(err, TT_ERR_IO, "cannot write %s: %s", path, cairo_status_to_string(cairo_surface_status(s)));
        goto done;
    }
    cairo_surface_destroy(s);
    s = NULL;
    st = tt_tmp_commit(tmp, path, err);
    tmp = NULL;
done:
    if (cr)
        cairo_destroy(cr);
    if (s)
        cairo_surface_destroy(s);
    tt_tmp_discard(tmp);
    return st;
}

tt_status print_doc_render(const print_doc *doc, int page, double dpi, tt_image *gray, tt_err *err)
{
    cairo_surface_t *s = NULL;
    cairo_t *cr = NULL;
    tt_status st;

    memset(gray, 0, sizeof *gray);
    if (page < 0 || page >= doc->npages)
        return tt_err_set(err, TT_ERR_ARG, "page %d does not exist (the document has %d)", page + 1, doc->npages);
    if (!(dpi >= 10 && dpi <= 1200))
        return tt_err_set(err, TT_ERR_ARG, "render dpi must be between 10 and 1200 (got %g)", dpi);
    int w = (int)ceil(doc->page_w * dpi - 1e-6), h = (int)ceil(doc->page_h * dpi - 1e-6);
    s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cr = cairo_create(s);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory for a %dx%d page image", w, h);
        goto done;
    }
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_scale(cr, dpi, dpi);
    if ((st = print__draw_page(doc, cr, page, err)) != TT_OK)
        goto done;
    cairo_surface_flush(s);
    if ((st = tt_image_alloc(gray, w, h, 1, err)) != TT_OK)
        goto done;
    const unsigned char *src = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    for (int y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)(const void *)(src + (size_t)y * stride);
        for (int x = 0; x < w; x++) {
            uint32_t px = row[x];
            unsigned r = (px >> 16) & 255, g = (px >> 8) & 255, b = px & 255;
            gray->data[(size_t)y * gray->stride + x] = (uint8_t)((299 * r + 587 * g + 114 * b + 500) / 1000);
        }
    }
    st = TT_OK;
done:
    if (cr)
        cairo_destroy(cr);
    if (s)
        cairo_surface_destroy(s);
    return st;
}
