/* svg.c - a small SVG chart writer: canvas, plot area, linear/log axes with 1-2-5 ticks and grid,
 * lines, markers, rectangles, text (XML-escaped) and legends. Serial, writes to a FILE.
 */
#include "svg.h"

#include <math.h>
#include <string.h>

#define SAX_PI 3.14159265358979323846

static const char *const palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                      "#E69F00", "#56B4E9", "#F0E442", "#000000"};

const char *sax_svg_color(int i)
{
    int n = (int)(sizeof palette / sizeof palette[0]);
    return palette[((i % n) + n) % n];
}

static void put_escaped(FILE *f, const char *t)
{
    for (; t && *t; t++) {
        switch (*t) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*t, f);
        }
    }
}

void sax_svg_begin(sax_svg_t *s, FILE *f, double width, double height, const char *title)
{
    memset(s, 0, sizeof *s);
    s->f = f;
    s->width = width;
    s->height = height;
    s->x1 = s->y1 = 1;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"Helvetica, Arial, sans-serif\">\n<title>",
            width, height, width, height);
    put_escaped(f, title);
    fprintf(f, "</title>\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", width,
            height);
    sax_svg_text(s, width / 2, 24, "middle", 16, true, title);
}

void sax_svg_subtitle(const sax_svg_t *s, const char *text)
{
    sax_svg_text(s, s->width / 2, 44, "middle", 13, false, text);
}

void sax_svg_end(sax_svg_t *s) { fputs("</svg>\n", s->f); }

void sax_svg_area(sax_svg_t *s, double left, double top, double right, double bottom)
{
    s->left = left;
    s->top = top;
    s->right = right;
    s->bottom = bottom;
}

/* The 1-2-5 step near range/target. */
static double nice_step(double range, int target)
{
    double raw = range / target;
    double p = pow(10.0, floor(log10(raw)));
    double m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void widen(double *a, double *b, bool is_log)
{
    if (!(isfinite(*a) && isfinite(*b))) {
        *a = is_log ? 1 : 0;
        *b = is_log ? 10 : 1;
    }
    if (*a > *b) {
        double t = *a;
        *a = *b;
        *b = t;
    }
    if (is_log) {
        if (*a <= 0)
            *a = *b > 0 ? *b / 10 : 1;
        if (*b <= *a)
            *b = *a * 10;
        /* to the neighbouring 1-2-5 values */
        double lo = pow(10.0, floor(log10(*a))), hi = pow(10.0, floor(log10(*b)));
        const double m[] = {1, 2, 5, 10};
        double nlo = lo, nhi = hi * 10;
        for (int i = 3; i >= 0; i--)
            if (lo * m[i] <= *a * (1 + 1e-12)) {
                nlo = lo * m[i];
                break;
            }
        for (int i = 0; i < 4; i++)
            if (hi * m[i] >= *b * (1 - 1e-12)) {
                nhi = hi * m[i];
                break;
            }
        *a = nlo;
        *b = nhi;
        return;
    }
    if (*b - *a <= 0) {
        double d = fabs(*a) > 0 ? fabs(*a) * 0.1 : 1;
        *a -= d;
        *b += d;
    }
    double step = nice_step(*b - *a, 5);
    *a = floor(*a / step + 1e-9) * step;
    *b = ceil(*b / step - 1e-9) * step;
}

void sax_svg_range(sax_svg_t *s, double x0, double x1, bool xlog, double y0, double y1, bool ylog)
{
    widen(&x0, &x1, xlog);
    widen(&y0, &y1, ylog);
    s->x0 = x0;
    s->x1 = x1;
    s->y0 = y0;
    s->y1 = y1;
    s->xlog = xlog;
    s->ylog = ylog;
}

double sax_svg_px(const sax_svg_t *s, double x)
{
    double t =
        s->xlog ? (log10(x) - log10(s->x0)) / (log10(s->x1) - log10(s->x0)) : (x - s->x0) / (s->x1 - s->x0);
    return s->left + t * (s->right - s->left);
}

double sax_svg_py(const sax_svg_t *s, double y)
{
    double t =
        s->ylog ? (log10(y) - log10(s->y0)) / (log10(s->y1) - log10(s->y0)) : (y - s->y0) / (s->y1 - s->y0);
    return s->bottom - t * (s->bottom - s->top);
}

/* Tick values of an axis into t[] (at most max); returns the count. */
static int ticks(double a, double b, bool is_log, double *t, int max)
{
    int n = 0;
    if (!is_log) {
        double step = nice_step(b - a, 5);
        for (double v = ceil(a / step - 1e-9) * step; v <= b + step * 1e-9 && n < max; v += step)
            t[n++] = fabs(v) < step * 1e-9 ? 0.0 : v;
        return n;
    }
    double decades = log10(b) - log10(a);
    const double all[] = {1, 2, 5}, one[] = {1};
    const double *m = decades <= 3 ? all : one;
    int nm = decades <= 3 ? 3 : 1;
    for (double p = pow(10.0, floor(log10(a))); p <= b * 1.000001 && n < max; p *= 10)
        for (int i = 0; i < nm && n < max; i++)
            if (p * m[i] >= a * 0.999999 && p * m[i] <= b * 1.000001)
                t[n++] = p * m[i];
    return n;
}

static void tick_label(double v, char *buf, size_t len)
{
    double a = fabs(v);
    if (v == 0)
        snprintf(buf, len, "0");
    else if (a >= 1e5 || a < 1e-3)
        snprintf(buf, len, "%.3g", v);
    else
        snprintf(buf, len, "%.4g", v);
}

void sax_svg_axes(sax_svg_t *s, const char *xlabel, double xscale, const char *ylabel, double yscale)
{
    FILE *f = s->f;
    double t[64];
    char buf[32];
    int n = xscale > 0 ? ticks(s->x0, s->x1, s->xlog, t, 64) : 0;
    fprintf(f, "<g stroke=\"#dddddd\" stroke-width=\"1\">\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", sax_svg_px(s, t[i]), s->top,
                sax_svg_px(s, t[i]), s->bottom);
    double u[64];
    int m = ticks(s->y0, s->y1, s->ylog, u, 64);
    for (int i = 0; i < m; i++)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", s->left, sax_svg_py(s, u[i]),
                s->right, sax_svg_py(s, u[i]));
    fprintf(
        f,
        "</g>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333333\"/>\n",
        s->left, s->top, s->right - s->left, s->bottom - s->top);
    for (int i = 0; i < n; i++) {
        tick_label(t[i] / xscale, buf, sizeof buf);
        sax_svg_text(s, sax_svg_px(s, t[i]), s->bottom + 16, "middle", 12, false, buf);
    }
    for (int i = 0; i < m; i++) {
        tick_label(u[i] / yscale, buf, sizeof buf);
        sax_svg_text(s, s->left - 6, sax_svg_py(s, u[i]) + 4, "end", 12, false, buf);
    }
    if (xlabel)
        sax_svg_text(s, (s->left + s->right) / 2, s->bottom + 38, "middle", 13, false, xlabel);
    if (ylabel) {
        double x = s->left - 52, y = (s->top + s->bottom) / 2;
        fprintf(f,
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\" "
                "transform=\"rotate(-90 %.1f %.1f)\">",
                x, y, x, y);
        put_escaped(f, ylabel);
        fputs("</text>\n", f);
    }
}

void sax_svg_line(const sax_svg_t *s, const double *x, const double *y, int n, const char *color,
                  double width, bool dashed, bool steps)
{
    if (n <= 0)
        return;
    fprintf(s->f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"%s points=\"", color, width,
            dashed ? " stroke-dasharray=\"6 4\"" : "");
    for (int i = 0; i < n; i++) {
        if (steps && i > 0) /* staircase: hold the previous y until the next x */
            fprintf(s->f, "%.1f,%.1f ", sax_svg_px(s, x[i]), sax_svg_py(s, y[i - 1]));
        fprintf(s->f, "%.1f,%.1f ", sax_svg_px(s, x[i]), sax_svg_py(s, y[i]));
    }
    fputs("\"/>\n", s->f);
}

static void mark_at(FILE *f, double cx, double cy, sax_mark_t m, const char *color, double r)
{
    switch (m) {
    case SAX_MARK_SQUARE:
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"white\"",
                cx - r, cy - r, 2 * r, 2 * r, color);
        break;
    case SAX_MARK_TRIANGLE:
        fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\" stroke=\"white\"", cx,
                cy - 1.2 * r, cx + 1.1 * r, cy + 0.8 * r, cx - 1.1 * r, cy + 0.8 * r, color);
        break;
    case SAX_MARK_DIAMOND:
        fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\" stroke=\"white\"",
                cx, cy - 1.3 * r, cx + 1.3 * r, cy, cx, cy + 1.3 * r, cx - 1.3 * r, cy, color);
        break;
    case SAX_MARK_STAR: {
        fputs("<polygon points=\"", f);
        for (int i = 0; i < 10; i++) {
            double a = -SAX_PI / 2 + i * SAX_PI / 5, rr = i % 2 ? 0.45 * r * 1.6 : r * 1.6;
            fprintf(f, "%.1f,%.1f ", cx + rr * cos(a), cy + rr * sin(a));
        }
        fprintf(f, "\" fill=\"%s\" stroke=\"black\" stroke-width=\"0.8\"", color);
        break;
    }
    default: fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"", cx, cy, r, color);
    }
}

void sax_svg_mark(const sax_svg_t *s, double x, double y, sax_mark_t m, const char *color, double size,
                  const char *tooltip)
{
    mark_at(s->f, sax_svg_px(s, x), sax_svg_py(s, y), m, color, size);
    if (tooltip) {
        fputs("><title>", s->f);
        put_escaped(s->f, tooltip);
        fprintf(s->f, "</title></%s>\n",
                m == SAX_MARK_SQUARE                            ? "rect"
                : (m == SAX_MARK_CIRCLE || m >= SAX_MARK_COUNT) ? "circle"
                                                                : "polygon");
    } else {
        fputs("/>\n", s->f);
    }
}

void sax_svg_rect(const sax_svg_t *s, double x0, double y0, double x1, double y1, const char *color,
                  const char *tooltip)
{
    double px0 = sax_svg_px(s, x0), px1 = sax_svg_px(s, x1), py0 = sax_svg_py(s, y0), py1 = sax_svg_py(s, y1);
    fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"",
            px0 < px1 ? px0 : px1, py0 < py1 ? py0 : py1, fabs(px1 - px0), fabs(py1 - py0), color);
    if (tooltip) {
        fputs("><title>", s->f);
        put_escaped(s->f, tooltip);
        fputs("</title></rect>\n", s->f);
    } else {
        fputs("/>\n", s->f);
    }
}

void sax_svg_text(const sax_svg_t *s, double px, double py, const char *anchor, double size, bool bold,
                  const char *text)
{
    fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" text-anchor=\"%s\"%s>", px, py, size,
            anchor, bold ? " font-weight=\"bold\"" : "");
    put_escaped(s->f, text);
    fputs("</text>\n", s->f);
}

void sax_svg_legend(const sax_svg_t *s, double px, double py, const sax_svg_legend_t *e, int n)
{
    double w = 0;
    for (int i = 0; i < n; i++) {
        double lw = 7.0 * (double)strlen(e[i].label);
        w = lw > w ? lw : w;
    }
    fprintf(s->f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"white\" fill-opacity=\"0.85\" "
            "stroke=\"#999999\"/>\n",
            px, py, w + 44, 18.0 * n + 8);
    for (int i = 0; i < n; i++) {
        double cy = py + 14 + 18.0 * i;
        if (e[i].mark == -1)
            fprintf(
                s->f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2.5\"%s/>\n",
                px + 6, cy - 4, px + 30, cy - 4, e[i].color, e[i].dashed ? " stroke-dasharray=\"6 4\"" : "");
        else if (e[i].mark == -2)
            fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"11\" fill=\"%s\"/>\n", px + 10,
                    cy - 10, e[i].color);
        else {
            mark_at(s->f, px + 18, cy - 4, (sax_mark_t)e[i].mark, e[i].color, 5);
            fputs("/>\n", s->f);
        }
        sax_svg_text(s, px + 36, cy, "start", 12, false, e[i].label);
    }
}
