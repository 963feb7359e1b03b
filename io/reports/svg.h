/* svg.h - private to io/reports/: a small SVG chart writer (axes with 1-2-5 ticks, linear or log
 * scales, lines, markers, bars, legends); the plots sax draws with it are in report_plots.c.
 * Standalone SVG 1.1 files, no scripts, readable in any browser and printable. Serial; it knows
 * nothing of sax's types, so it sits at the bottom of the folder.
 */
#ifndef SAX_SVG_H
#define SAX_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    FILE *f;
    double width, height;            /* canvas, px */
    double left, top, right, bottom; /* plot area, px from the canvas origin */
    double x0, x1, y0, y1;           /* data range shown */
    bool xlog, ylog;
} sax_svg_t;

typedef enum {
    SAX_MARK_CIRCLE,
    SAX_MARK_SQUARE,
    SAX_MARK_TRIANGLE,
    SAX_MARK_DIAMOND,
    SAX_MARK_STAR,
    SAX_MARK_COUNT
} sax_mark_t;

/* Colour-blind-safe palette (Okabe and Ito), cycled. */
const char *sax_svg_color(int i);

void sax_svg_begin(sax_svg_t *s, FILE *f, double width, double height, const char *title);
void sax_svg_end(sax_svg_t *s);
/* A second, smaller title line (the scenario). */
void sax_svg_subtitle(const sax_svg_t *s, const char *text);
/* Plot area in px. */
void sax_svg_area(sax_svg_t *s, double left, double top, double right, double bottom);
/* Data ranges; widened to tick marks (and to a non-empty interval). Log axes need positive data. */
void sax_svg_range(sax_svg_t *s, double x0, double x1, bool xlog, double y0, double y1, bool ylog);
/* Frame, grid, ticks and labels; tick values are divided by xscale/yscale before printing.
 * xscale <= 0: no x ticks (bar charts label their bars themselves). */
void sax_svg_axes(sax_svg_t *s, const char *xlabel, double xscale, const char *ylabel, double yscale);
double sax_svg_px(const sax_svg_t *s, double x);
double sax_svg_py(const sax_svg_t *s, double y);

void sax_svg_line(const sax_svg_t *s, const double *x, const double *y, int n, const char *color,
                  double width, bool dashed, bool steps);
void sax_svg_mark(const sax_svg_t *s, double x, double y, sax_mark_t m, const char *color, double size,
                  const char *tooltip);
/* Rectangle in data coordinates. */
void sax_svg_rect(const sax_svg_t *s, double x0, double y0, double x1, double y1, const char *color,
                  const char *tooltip);
/* Text at pixel position; anchor "start" | "middle" | "end". */
void sax_svg_text(const sax_svg_t *s, double px, double py, const char *anchor, double size, bool bold,
                  const char *text);

typedef struct {
    const char *label;
    const char *color;
    int mark; /* sax_mark_t, or -1 for a line sample, -2 for a filled box */
    bool dashed;
} sax_svg_legend_t;
/* Legend box with its top-left corner at (px, py). */
void sax_svg_legend(const sax_svg_t *s, double px, double py, const sax_svg_legend_t *e, int n);

#endif
