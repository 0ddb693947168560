/* SVG line charts: "nice" ticks, light gridlines, one polyline per run of
 * finite points, a legend to the right of the plot sized from its labels.
 *
 * Numbers never go through printf's %f/%g in the markup: coordinates are
 * written from integers (hundredths of a pixel) and tick labels have their
 * decimal point fixed up, so a host program that calls setlocale() cannot
 * change the bytes. */
#include "planner/io/svg_chart.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/fileio.h"

#define LF__FONT 12.0
#define LF__TITLE_FONT 14.0
/* There are no font metrics here, so text widths are estimated generously
 * (0.62 em per character, wider than the average sans-serif glyph): boxes
 * sized from the estimate are then never too small for their labels. */
#define LF__EM_PER_CHAR 0.62
#define LF__MAX_TICKS 8
#define LF__MARKER_MAX 30 /* more points than this and markers clutter the line */
#define LF__ROW 18.0      /* legend row height */

/* Tableau 10: distinguishable and reasonably colour-blind friendly. */
static const char *const lf__palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define LF__N_COLOURS ((int32_t)(sizeof lf__palette / sizeof lf__palette[0]))
/* Once the palette wraps, colours repeat with the next dash pattern. */
static const char *const lf__dashes[] = {NULL, "6 3", "2 3", "8 3 2 3", "12 4"};
#define LF__N_DASHES ((int32_t)(sizeof lf__dashes / sizeof lf__dashes[0]))

typedef struct lf__buf {
    char *p;
    size_t len, cap;
    int oom;
} lf__buf;

/* Appends n bytes; on allocation failure sets oom and ignores every later
 * append, so rendering code need not check each call. */
static void lf__put(lf__buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->cap - b->len <= n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->len <= n) {
            if (cap > (size_t)-1 / 2) {
                b->oom = 1;
                return;
            }
            cap *= 2;
        }
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

/* A pixel coordinate with at most two decimals, trailing zeros dropped. */
static void lf__put_num(lf__buf *b, double v)
{
    if (!(v > -1e15 && v < 1e15)) /* cannot happen for coordinates; keeps llround defined */
        v = 0;
    long long r = llround(v * 100.0);
    unsigned long long a = r < 0 ? 0ull - (unsigned long long)r : (unsigned long long)r;
    char tmp[48];
    int n = snprintf(tmp, sizeof tmp, "%s%llu", r < 0 ? "-" : "", a / 100);
    unsigned frac = (unsigned)(a % 100);
    if (frac % 10)
        n += snprintf(tmp + n, sizeof tmp - (size_t)n, ".%02u", frac);
    else if (frac)
        n += snprintf(tmp + n, sizeof tmp - (size_t)n, ".%u", frac / 10);
    lf__put(b, tmp, (size_t)n);
}

/* Text content or attribute value: the five XML specials become entities and
 * control characters, which XML 1.0 forbids, are dropped. */
static void lf__put_text(lf__buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '&': lf__put(b, "&amp;", 5); break;
        case '<': lf__put(b, "&lt;", 4); break;
        case '>': lf__put(b, "&gt;", 4); break;
        case '"': lf__put(b, "&quot;", 6); break;
        case '\'': lf__put(b, "&apos;", 6); break;
        default:
            if (*p >= 0x20)
                lf__put(b, (const char *)p, 1);
        }
    }
}

/* A small formatter instead of printf: %s raw string, %t escaped text, %d
 * int, %f pixel coordinate (double). Keeps every number locale-free. */
static void lf__emit(lf__buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    for (const char *p = fmt; *p; p++) {
        const char *q = p;
        while (*q && *q != '%')
            q++;
        lf__put(b, p, (size_t)(q - p));
        if (!*q)
            break;
        p = q + 1;
        if (!*p) /* a stray '%' at the end */
            break;
        char tmp[16];
        switch (*p) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            lf__put(b, s, strlen(s));
            break;
        }
        case 't': lf__put_text(b, va_arg(ap, const char *)); break;
        case 'd': lf__put(b, tmp, (size_t)snprintf(tmp, sizeof tmp, "%d", va_arg(ap, int))); break;
        case 'f': lf__put_num(b, va_arg(ap, double)); break;
        default: lf__put(b, p, 1); break; /* "%%" and anything unknown: literal */
        }
    }
    va_end(ap);
}

/* Estimated rendered width: UTF-8 continuation bytes and dropped control
 * characters take no space. */
static double lf__text_w(const char *s, double font)
{
    int32_t n = 0;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
        n += *p >= 0x20 && (*p & 0xC0) != 0x80;
    return n * LF__EM_PER_CHAR * font;
}

/* %g-style label from printf, then '.' forced as the decimal point and
 * trailing zeros (and a lone "-0") removed: 1000 -> "1000", 0.50 -> "0.5". */
static void lf__label(char *buf, size_t cap, int fixed, int prec, double v)
{
    if (fixed)
        snprintf(buf, cap, "%.*f", prec, v);
    else
        snprintf(buf, cap, "%.*g", prec, v);
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.';
    if (strchr(buf, '.') && !strchr(buf, 'e')) {
        size_t n = strlen(buf);
        while (buf[n - 1] == '0')
            buf[--n] = '\0';
        if (buf[n - 1] == '.')
            buf[--n] = '\0';
    }
    if (strcmp(buf, "-0") == 0)
        strcpy(buf, "0");
}

typedef struct lf__axis {
    double lo, hi; /* drawn range, in log2 units on a log2 axis */
    int32_t n_ticks;
    double tick[LF__MAX_TICKS + 2];
    char label[LF__MAX_TICKS + 2][40];
    double label_w; /* widest tick label */
} lf__axis;

/* Ticks every 1, 2 or 5 x 10^k: the smallest step giving at most 8 ticks
 * inside [lo, hi]. The step before it gave 9 or more, so this one gives at
 * least 3; with 3 the range is widened to the surrounding multiples of the
 * step, which gives 5 or 6. Ticks are counted in whole steps (k0 .. k1) so
 * that rounding in lo / step cannot change the count after widening. */
static void lf__linear_ticks(lf__axis *a)
{
    static const double mant[3] = {1, 2, 5};
    double e = floor(log10(a->hi - a->lo)) - 1, step = 1, k0 = 0, k1 = 0;
    for (int i = 0; i < 12; i++) {
        step = mant[i % 3] * pow(10.0, e + i / 3);
        k0 = ceil(a->lo / step - 1e-6);
        k1 = floor(a->hi / step + 1e-6);
        if (k1 - k0 + 1 <= LF__MAX_TICKS)
            break;
    }
    if (k1 - k0 + 1 < 4) {
        k0 = floor(a->lo / step + 1e-6);
        k1 = ceil(a->hi / step - 1e-6);
        a->lo = fmin(a->lo, k0 * step);
        a->hi = fmax(a->hi, k1 * step);
    }
    /* Decimals the step needs: 2 -> 0, 0.5 -> 1, 0.05 -> 2; for very large
     * or very small values, the significant digits that tell ticks apart. */
    int dec = (int)-floor(log10(step) + 1e-9);
    double mag = fmax(fabs(a->lo), fabs(a->hi));
    int sig = (int)(floor(log10(mag)) + dec) + 1;
    sig = sig < 1 ? 1 : sig > 17 ? 17 : sig;
    a->n_ticks = 0;
    for (double k = k0; k <= k1 && a->n_ticks < LF__MAX_TICKS + 2; k++) {
        double v = k * step + 0.0; /* + 0.0 turns -0.0 into 0.0 */
        int32_t t = a->n_ticks++;
        a->tick[t] = v;
        if (fabs(v) < 1e15 && dec <= 12)
            lf__label(a->label[t], sizeof a->label[t], 1, dec > 0 ? dec : 0, v);
        else
            lf__label(a->label[t], sizeof a->label[t], 0, sig, v);
    }
}

/* Ticks at powers of two, every k-th exponent with the smallest k giving at
 * most 8; a range within one octave is widened to the enclosing powers. */
static void lf__log2_ticks(lf__axis *a)
{
    if (floor(a->hi + 1e-9) - ceil(a->lo - 1e-9) < 1) {
        a->lo = floor(a->lo + 1e-9);
        a->hi = ceil(a->hi - 1e-9);
        if (a->hi - a->lo < 1)
            a->hi = a->lo + 1;
    }
    double k = 1;
    while (floor(a->hi / k + 1e-9) - ceil(a->lo / k - 1e-9) + 1 > LF__MAX_TICKS)
        k++;
    a->n_ticks = 0;
    for (double m = ceil(a->lo / k - 1e-9); m <= floor(a->hi / k + 1e-9); m++) {
        double e = m * k + 0.0;
        int32_t t = a->n_ticks++;
        a->tick[t] = e;
        if (e >= 0 && e <= 52)
            lf__label(a->label[t], sizeof a->label[t], 1, 0, ldexp(1.0, (int)e));
        else if (e < 0 && e >= -20) /* 2^-e has exactly e decimals: printed exactly */
            lf__label(a->label[t], sizeof a->label[t], 1, (int)-e, ldexp(1.0, (int)e));
        else
            lf__label(a->label[t], sizeof a->label[t], 0, 6, ldexp(1.0, (int)e));
    }
}

/* Sets the range from the finite data [lo, hi] (have = 0: no data), then the
 * ticks. A range too narrow to draw (all values equal, or equal up to
 * rounding) is widened around its centre. */
static lf_status lf__axis_init(lf__axis *a, int have, double lo, double hi, int log2_scale,
                               double pad, const char *what)
{
    memset(a, 0, sizeof *a);
    if (!have) {
        lo = 0; /* an empty chart still gets axes: 0 .. 1, or 1 .. 16 on a log2 axis */
        hi = log2_scale ? 4 : 1;
    } else if (log2_scale) {
        lo = log2(lo);
        hi = log2(hi);
        if (hi - lo < 1e-9) {
            lo -= 1;
            hi += 1;
        } else {
            double d = (hi - lo) * pad;
            lo -= d;
            hi += d;
        }
    } else if (!isfinite(hi - lo)) {
        return lf_set_error(LF_ERANGE, "chart %s values span [%g, %g], too wide to draw", what, lo,
                            hi);
    } else if (hi - lo <= 1e-10 * fmax(fabs(lo), fabs(hi)) || hi - lo < 1e-300) {
        double mid = lo / 2 + hi / 2, half = mid == 0 ? 1 : fabs(mid) * 0.1;
        lo = mid - half;
        hi = mid + half;
    } else {
        double d = (hi - lo) * pad;
        lo -= d;
        hi += d;
    }
    if (!isfinite(lo) || !isfinite(hi))
        return lf_set_error(LF_ERANGE, "chart %s values are too large to draw", what);
    a->lo = lo;
    a->hi = hi;
    if (log2_scale)
        lf__log2_ticks(a);
    else
        lf__linear_ticks(a);
    for (int32_t t = 0; t < a->n_ticks; t++)
        a->label_w = fmax(a->label_w, lf__text_w(a->label[t], LF__FONT));
    return LF_OK;
}

static lf_status lf__check(const lf_chart *c)
{
    if (!c)
        return lf_set_error(LF_EINVAL, "lf_chart_svg needs a chart");
    if (c->n_series < 0)
        return lf_set_error(LF_EINVAL, "chart has a negative series count (%d)", (int)c->n_series);
    if (c->n_series > 0 && !c->series)
        return lf_set_error(LF_EINVAL, "chart has %d series but no series array", (int)c->n_series);
    for (int32_t i = 0; i < c->n_series; i++) {
        const lf_chart_series *s = &c->series[i];
        const char *name = s->label ? s->label : "";
        if (s->n < 0)
            return lf_set_error(LF_EINVAL, "chart series %d ('%s') has a negative point count (%d)",
                                (int)i, name, (int)s->n);
        if (s->n > 0 && (!s->x || !s->y))
            return lf_set_error(LF_EINVAL, "chart series %d ('%s') has %d points but no %s array",
                                (int)i, name, (int)s->n, !s->x ? "x" : "y");
        for (int32_t j = 0; c->log2_x && j < s->n; j++)
            if (s->x[j] <= 0)
                return lf_set_error(LF_EINVAL,
                                    "chart series %d ('%s'): x[%d] = %g is not positive, which "
                                    "a log2 x axis cannot show",
                                    (int)i, name, (int)j, s->x[j]);
        for (int32_t j = 0; c->log2_y && j < s->n; j++)
            if (s->y[j] <= 0)
                return lf_set_error(LF_EINVAL,
                                    "chart series %d ('%s'): y[%d] = %g is not positive, which "
                                    "a log2 y axis cannot show",
                                    (int)i, name, (int)j, s->y[j]);
    }
    return LF_OK;
}

static int lf__finite_pt(const lf_chart_series *s, int32_t j)
{
    return isfinite(s->x[j]) && isfinite(s->y[j]);
}

typedef struct lf__frame {
    double x0, y0, w, h; /* plot area, top left corner and size */
    lf__axis xa, ya;
    int log2_x, log2_y;
} lf__frame;

static double lf__px(const lf__frame *f, double x)
{
    double u = f->log2_x ? log2(x) : x;
    return f->x0 + (u - f->xa.lo) / (f->xa.hi - f->xa.lo) * f->w;
}

/* y in axis units (log2 units on a log2 axis), as ticks are stored. */
static double lf__py_units(const lf__frame *f, double u)
{
    return f->y0 + f->h - (u - f->ya.lo) / (f->ya.hi - f->ya.lo) * f->h;
}

static double lf__py(const lf__frame *f, double y)
{
    return lf__py_units(f, f->log2_y ? log2(y) : y);
}

/* One polyline per run of two or more finite points; a point alone between
 * gaps gets a marker instead, since a one-point polyline draws nothing. */
static void lf__series(lf__buf *b, const lf__frame *f, const lf_chart_series *s, int32_t i)
{
    const char *colour = lf__palette[i % LF__N_COLOURS];
    const char *dash = lf__dashes[(i / LF__N_COLOURS) % LF__N_DASHES];
    lf__emit(b, "<g fill=\"none\" stroke=\"%s\" stroke-width=\"1.75\" stroke-linejoin=\"round\"",
             colour);
    if (dash)
        lf__emit(b, " stroke-dasharray=\"%s\"", dash);
    lf__emit(b, ">\n");
    int markers = s->n <= LF__MARKER_MAX;
    for (int32_t j = 0; j < s->n;) {
        if (!lf__finite_pt(s, j)) {
            j++;
            continue;
        }
        int32_t end = j;
        while (end < s->n && lf__finite_pt(s, end))
            end++;
        if (end - j >= 2) {
            lf__emit(b, "<polyline points=\"");
            for (int32_t k = j; k < end; k++)
                lf__emit(b, k > j ? " %f,%f" : "%f,%f", lf__px(f, s->x[k]), lf__py(f, s->y[k]));
            lf__emit(b, "\"/>\n");
        }
        for (int32_t k = j; k < end && (markers || end - j == 1); k++)
            lf__emit(b, "<circle cx=\"%f\" cy=\"%f\" r=\"2.5\" fill=\"%s\" stroke=\"none\"/>\n",
                     lf__px(f, s->x[k]), lf__py(f, s->y[k]), colour);
        j = end;
    }
    lf__emit(b, "</g>\n");
}

static void lf__render(lf__buf *b, const lf_chart *c, lf__frame *f)
{
    int has_title = c->title && c->title[0];
    double top = 14 + (has_title ? 30 : 0), bottom = 58;
    double left = 12 + 16 + 10 + f->ya.label_w + 8;
    double leg_w = 0, leg_h = 0;
    for (int32_t i = 0; i < c->n_series; i++)
        leg_w = fmax(leg_w, lf__text_w(c->series[i].label, LF__FONT));
    if (c->n_series > 0) {
        leg_w += 10 + 24 + 8 + 10; /* padding, swatch, gap, padding */
        leg_h = 8 + c->n_series * LF__ROW + 4;
    }
    double right = c->n_series > 0 ? 20 + leg_w + 12 : 24;
    /* The requested size is a target: the image grows so that the plot keeps
     * most of the requested width (a long legend widens the image instead of
     * squeezing the data) and no title or legend text is cut. */
    double W = c->width > 0 ? c->width : 720, H = c->height > 0 ? c->height : 440;
    double min_w = fmax(fmax(240, 0.55 * W), lf__text_w(c->x_label, LF__FONT) + 10);
    double min_h = fmax(140, lf__text_w(c->y_label, LF__FONT) + 10);
    W = fmax(W, fmax(left + right + min_w, lf__text_w(c->title, LF__TITLE_FONT) + 24));
    H = fmax(H, fmax(top + bottom + min_h, top + leg_h + 12));
    W = ceil(W); /* whole pixels for the image itself */
    H = ceil(H);
    f->x0 = left;
    f->y0 = top;
    f->w = W - left - right;
    f->h = H - top - bottom;

    lf__emit(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%f\" height=\"%f\" "
                "viewBox=\"0 0 %f %f\" font-family=\"sans-serif\" font-size=\"12\">\n",
             W, H, W, H);
    lf__emit(b, "<rect x=\"0\" y=\"0\" width=\"%f\" height=\"%f\" fill=\"#ffffff\"/>\n", W, H);
    if (has_title)
        lf__emit(b, "<text x=\"%f\" y=\"28\" text-anchor=\"middle\" font-size=\"14\" "
                    "font-weight=\"bold\">%t</text>\n", W / 2, c->title);
    /* Gridlines first, so that the data is drawn over them. */
    lf__emit(b, "<g stroke=\"#e3e3e3\" stroke-width=\"1\">\n");
    for (int32_t t = 0; t < f->xa.n_ticks; t++) {
        double x = f->x0 + (f->xa.tick[t] - f->xa.lo) / (f->xa.hi - f->xa.lo) * f->w;
        lf__emit(b, "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\"/>\n", x, f->y0, x, f->y0 + f->h);
    }
    for (int32_t t = 0; t < f->ya.n_ticks; t++) {
        double y = lf__py_units(f, f->ya.tick[t]);
        lf__emit(b, "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\"/>\n", f->x0, y, f->x0 + f->w, y);
    }
    lf__emit(b, "</g>\n<rect x=\"%f\" y=\"%f\" width=\"%f\" height=\"%f\" fill=\"none\" "
                "stroke=\"#444444\"/>\n", f->x0, f->y0, f->w, f->h);
    lf__emit(b, "<g fill=\"#333333\">\n");
    for (int32_t t = 0; t < f->xa.n_ticks; t++) {
        double x = f->x0 + (f->xa.tick[t] - f->xa.lo) / (f->xa.hi - f->xa.lo) * f->w;
        lf__emit(b, "<text x=\"%f\" y=\"%f\" text-anchor=\"middle\">%t</text>\n", x,
                 f->y0 + f->h + 18, f->xa.label[t]);
    }
    for (int32_t t = 0; t < f->ya.n_ticks; t++)
        lf__emit(b, "<text x=\"%f\" y=\"%f\" text-anchor=\"end\">%t</text>\n", f->x0 - 6,
                 lf__py_units(f, f->ya.tick[t]) + 4, f->ya.label[t]);
    if (c->x_label && c->x_label[0])
        lf__emit(b, "<text x=\"%f\" y=\"%f\" text-anchor=\"middle\">%t</text>\n",
                 f->x0 + f->w / 2, f->y0 + f->h + 42, c->x_label);
    if (c->y_label && c->y_label[0]) {
        double cy = f->y0 + f->h / 2;
        lf__emit(b, "<text x=\"26\" y=\"%f\" text-anchor=\"middle\" transform=\"rotate(-90 26 "
                    "%f)\">%t</text>\n", cy, cy, c->y_label);
    }
    lf__emit(b, "</g>\n");

    for (int32_t i = 0; i < c->n_series; i++)
        lf__series(b, f, &c->series[i], i);

    if (c->n_series > 0) {
        double lx = f->x0 + f->w + 20, ly = f->y0;
        lf__emit(b, "<g>\n<rect x=\"%f\" y=\"%f\" width=\"%f\" height=\"%f\" fill=\"#ffffff\" "
                    "stroke=\"#bbbbbb\"/>\n", lx, ly, leg_w, leg_h);
        for (int32_t i = 0; i < c->n_series; i++) {
            const char *colour = lf__palette[i % LF__N_COLOURS];
            const char *dash = lf__dashes[(i / LF__N_COLOURS) % LF__N_DASHES];
            double ry = ly + 8 + i * LF__ROW + LF__ROW / 2;
            lf__emit(b, "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\" stroke=\"%s\" "
                        "stroke-width=\"1.75\"", lx + 10, ry, lx + 34, ry, colour);
            if (dash)
                lf__emit(b, " stroke-dasharray=\"%s\"", dash);
            lf__emit(b, "/>\n");
            if (c->series[i].n <= LF__MARKER_MAX)
                lf__emit(b, "<circle cx=\"%f\" cy=\"%f\" r=\"2.5\" fill=\"%s\"/>\n", lx + 22, ry,
                         colour);
            lf__emit(b, "<text x=\"%f\" y=\"%f\" fill=\"#222222\">%t</text>\n", lx + 42, ry + 4,
                     c->series[i].label);
        }
        lf__emit(b, "</g>\n");
    }
    lf__emit(b, "</svg>\n");
}

lf_status lf_chart_svg(const lf_chart *c, char **out)
{
    if (!out)
        return lf_set_error(LF_EINVAL, "lf_chart_svg needs somewhere to put the SVG");
    *out = NULL;
    lf_status st = lf__check(c);
    if (st != LF_OK)
        return st;
    /* Data ranges over finite points only: gaps do not count. */
    double xlo = HUGE_VAL, xhi = -HUGE_VAL, ylo = HUGE_VAL, yhi = -HUGE_VAL;
    for (int32_t i = 0; i < c->n_series; i++) {
        const lf_chart_series *s = &c->series[i];
        for (int32_t j = 0; j < s->n; j++) {
            if (!lf__finite_pt(s, j))
                continue;
            xlo = fmin(xlo, s->x[j]);
            xhi = fmax(xhi, s->x[j]);
            ylo = fmin(ylo, s->y[j]);
            yhi = fmax(yhi, s->y[j]);
        }
    }
    int have = xlo <= xhi;
    lf__frame f;
    memset(&f, 0, sizeof f);
    f.log2_x = c->log2_x != 0;
    f.log2_y = c->log2_y != 0;
    st = lf__axis_init(&f.xa, have, xlo, xhi, f.log2_x, 0.0, "x");
    if (st == LF_OK)
        st = lf__axis_init(&f.ya, have, ylo, yhi, f.log2_y, 0.05, "y");
    if (st != LF_OK)
        return st;
    lf__buf b = {NULL, 0, 0, 0};
    lf__render(&b, c, &f);
    if (b.oom) {
        free(b.p);
        return lf_set_error(LF_ENOMEM, "out of memory rendering a chart as SVG");
    }
    *out = b.p;
    return LF_OK;
}

lf_status lf_chart_save_svg(const lf_chart *c, const char *path)
{
    if (!path || !path[0])
        return lf_set_error(LF_EINVAL, "lf_chart_save_svg needs a file name");
    /* Rendered before the file is opened, so a bad chart leaves no file. */
    char *svg = NULL;
    lf_status st = lf_chart_svg(c, &svg);
    if (st != LF_OK) {
        char msg[400];
        snprintf(msg, sizeof msg, "%s", lf_last_error());
        return lf_set_error(st, "%s: %s", path, msg);
    }
    lf_atomic_file af;
    st = lf_atomic_open(&af, path);
    if (st == LF_OK) {
        fputs(svg, af.f);
        st = lf_atomic_commit(&af); /* reports write errors, naming the path */
    }
    free(svg);
    return st;
}
