/* Rows grouped into lines: a first pass finds the groups (values of the
 * `by` column in order of first appearance), a second fills every series'
 * points in row order. */
#include "planner/io/table_chart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LF__MAX_SERIES 1000

static lf_status lf__column(const lf_text_table *t, const char *name, int32_t *col)
{
    *col = lf_text_table_column(t, name);
    if (*col < 0)
        return lf_set_error(LF_EINVAL, "%s: no column '%s'", t->path, name);
    return LF_OK;
}

static const char *lf__cell(const lf_text_table *t, int32_t r, int32_t c)
{
    return t->cells[(int64_t)r * t->n_cols + c];
}

void lf_table_chart_destroy(lf_table_chart *c)
{
    if (!c)
        return;
    for (int32_t i = 0; i < c->n_series; i++)
        free(c->labels[i]);
    free(c->labels);
    free(c->series);
    free(c->values);
    memset(c, 0, sizeof *c);
}

lf_status lf_table_chart_build(const lf_text_table *t, const lf_table_chart_spec *spec,
                               lf_table_chart *out)
{
    memset(out, 0, sizeof *out);
    if (!spec->y || spec->n_y < 1)
        return lf_set_error(LF_EINVAL, "%s: no y column to plot", t->path);
    int32_t x = -1, by = -1;
    lf_status st = LF_OK;
    if (spec->x && (st = lf__column(t, spec->x, &x)) != LF_OK)
        return st;
    if (spec->by && (st = lf__column(t, spec->by, &by)) != LF_OK)
        return st;
    int32_t *y = calloc((size_t)spec->n_y, sizeof *y);
    int32_t *group = calloc((size_t)t->n_rows + 1, sizeof *group); /* row -> group */
    int32_t *first = calloc((size_t)t->n_rows + 1, sizeof *first); /* group -> first row */
    if (!y || !group || !first) {
        free(y), free(group), free(first);
        return lf_set_error(LF_ENOMEM, "out of memory");
    }
    for (int32_t k = 0; k < spec->n_y && st == LF_OK; k++)
        st = lf__column(t, spec->y[k], &y[k]);
    int32_t n_groups = 0;
    for (int32_t r = 0; r < t->n_rows && st == LF_OK; r++) {
        int32_t g = 0;
        if (by >= 0) {
            while (g < n_groups && strcmp(lf__cell(t, first[g], by), lf__cell(t, r, by)) != 0)
                g++; /* quadratic in groups, which a chart keeps few */
            if (g == n_groups)
                first[n_groups++] = r;
        } else {
            n_groups = 1;
        }
        group[r] = g;
    }
    if (n_groups == 0)
        n_groups = 1;
    int64_t n_series = (int64_t)n_groups * spec->n_y;
    if (st == LF_OK && n_series > LF__MAX_SERIES)
        st = lf_set_error(LF_ERANGE, "%s: %lld lines to draw (at most %d)", t->path,
                          (long long)n_series, LF__MAX_SERIES);
    if (st == LF_OK) {
        out->series = calloc((size_t)n_series, sizeof *out->series);
        out->labels = calloc((size_t)n_series, sizeof *out->labels);
        out->values = calloc((size_t)(2 * (int64_t)spec->n_y * (t->n_rows + 1)), sizeof *out->values);
        if (!out->series || !out->labels || !out->values)
            st = lf_set_error(LF_ENOMEM, "out of memory");
    }
    /* Series (g, k) gets the slice of values for its group's rows: groups
     * are laid out one after another, x then y per column. */
    int64_t off = 0;
    for (int32_t g = 0; g < n_groups && st == LF_OK; g++) {
        int32_t rows = 0;
        for (int32_t r = 0; r < t->n_rows; r++)
            rows += group[r] == g;
        for (int32_t k = 0; k < spec->n_y && st == LF_OK; k++) {
            lf_chart_series *s = &out->series[out->n_series];
            double *xs = out->values + off, *ys = xs + rows;
            off += 2 * rows;
            int32_t j = 0;
            for (int32_t r = 0; r < t->n_rows && st == LF_OK; r++) {
                if (group[r] != g)
                    continue;
                if (x >= 0)
                    st = lf_text_table_number(t, r, x, &xs[j]);
                else
                    xs[j] = j + 1;
                if (st == LF_OK)
                    st = lf_text_table_number(t, r, y[k], &ys[j]);
                j++;
            }
            const char *value = by >= 0 && t->n_rows > 0 ? lf__cell(t, first[g], by) : NULL;
            size_t len = strlen(spec->y[k]) + (value ? strlen(value) : 0) + 3;
            char *label = malloc(len);
            if (!label) {
                st = lf_set_error(LF_ENOMEM, "out of memory");
                break;
            }
            if (value && spec->n_y > 1)
                snprintf(label, len, "%s: %s", value, spec->y[k]);
            else
                snprintf(label, len, "%s", value ? value : spec->y[k]);
            out->labels[out->n_series] = label;
            *s = (lf_chart_series){label, xs, ys, j};
            out->n_series++;
        }
    }
    free(y), free(group), free(first);
    if (st != LF_OK)
        lf_table_chart_destroy(out);
    return st;
}
