/* Line charts as standalone SVG, with no dependencies: budget curves (best
 * DRAM against plans proposed, one line per search and proposer) and buffer
 * sweeps (DRAM against buffer size on a log2 axis).
 *
 * The output depends only on the chart: numbers are written with fixed
 * precision and '.' as the decimal point, so the same chart always gives
 * byte-identical SVG. */
#ifndef LF_SVG_CHART_H
#define LF_SVG_CHART_H

#include <stdint.h>

#include "planner/status.h"

typedef struct lf_chart_series {
    const char *label;      /* legend text; NULL for none */
    const double *x, *y;    /* n points; a point whose x or y is NaN or infinite is a gap */
    int32_t n;
} lf_chart_series;

typedef struct lf_chart {
    const char *title;      /* may be NULL */
    const char *x_label, *y_label;  /* axis titles with units, e.g. "best DRAM (MB)"; may be NULL */
    int32_t log2_x;         /* 1: x axis in log2 scale with ticks at powers of two */
    int32_t width, height;  /* pixels; <= 0 means 720 x 440. The image grows past these when
                             * the legend or the plot area would not fit otherwise. */
    const lf_chart_series *series;
    int32_t n_series;
    int32_t log2_y;         /* 1: y axis in log2 scale (values spanning orders of magnitude) */
} lf_chart;

/* Renders the chart into a malloc'd NUL-terminated SVG string (*out, which the
 * caller frees; NULL on failure). LF_EINVAL for a NULL chart or out, negative
 * counts, a series with points but no x or y, or a value <= 0 on a log2 axis;
 * LF_ERANGE when the values span more than a double can hold; LF_ENOMEM. */
lf_status lf_chart_svg(const lf_chart *c, char **out);

/* Renders and writes the chart atomically (temporary file, then rename); a
 * chart that cannot be rendered creates no file. Errors name the path. */
lf_status lf_chart_save_svg(const lf_chart *c, const char *path);

#endif
