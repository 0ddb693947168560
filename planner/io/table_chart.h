/* Line charts from tables (planner/io/text_table.h): the columns to plot are
 * named, and rows can be grouped into one line per value of a label column,
 * so a reproduce script's Markdown or CSV table becomes its figure. */
#ifndef LF_TABLE_CHART_H
#define LF_TABLE_CHART_H

#include <stdint.h>

#include "planner/io/svg_chart.h"
#include "planner/io/text_table.h"
#include "planner/status.h"

typedef struct lf_table_chart_spec {
    const char *x;              /* x column; NULL: the row number within its line, from 1 */
    const char *const *y;       /* y columns, at least one */
    int32_t n_y;
    const char *by;             /* NULL, or the column whose values split rows into lines */
} lf_table_chart_spec;

/* The series of a chart, owned here. */
typedef struct lf_table_chart {
    lf_chart_series *series;
    int32_t n_series;
    char **labels;
    double *values;             /* every series' x then y */
} lf_table_chart;

/* Builds one series per y column, or per (value of `by`, y column) in the
 * order the values first appear; a series is labelled by the y column, the
 * `by` value, or "VALUE: COLUMN" when there are several of each. Cells are
 * read with lf_text_table_number (gaps break the line). LF_EINVAL naming the
 * column for an unknown column; LF_EPARSE naming file, line and column for a
 * cell that is not a number; LF_ERANGE for more than 1,000 series. */
lf_status lf_table_chart_build(const lf_text_table *t, const lf_table_chart_spec *spec,
                               lf_table_chart *out);
void lf_table_chart_destroy(lf_table_chart *c);

#endif
