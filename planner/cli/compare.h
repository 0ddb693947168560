/* `fusionplan compare`: the results of every (search, proposer) pair on one
 * network, scheme and buffer over several seeds, and how they are reported
 * (markdown, CSV, JSON tables; budget curves as CSV and SVG). Internal to the
 * CLI. */
#ifndef LF_CLI_COMPARE_H
#define LF_CLI_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "planner/status.h"

/* One (search, proposer) pair: per-seed figures. NaN where a figure does not
 * apply (rectify rate and split gap without a tree splitter). */
typedef struct lf_cmp_row {
    const char *search;    /* "local", "random", "nsga2" */
    const char *proposer;  /* "none" (the random split) or a tree proposer */
    int64_t *dram;         /* per seed: DRAM over fusable ops of the best plan (bytes) */
    int64_t *dram_all;     /* per seed: over all ops */
    int64_t *mbu;          /* per seed: maximum buffer usage (bytes) */
    int32_t *groups;       /* per seed */
    double *rectify;       /* per seed: rectify rate in [0, 1] */
    double *split_gap;     /* per seed: mean split gap (>= 1) */
    double *wall;          /* per seed: search seconds */
    int64_t *invalid;      /* per seed: invalid groups met */
    double *curve;         /* n_seeds x n_points: best DRAM (bytes) at each curve point */
    int32_t baseline;      /* index of the same search's "none" row, or -1 */
} lf_cmp_row;

typedef struct lf_cmp_table {
    const char *model, *scheme;
    int64_t beta;
    int64_t budget;
    int32_t k, threads, population, fresh_memo;
    int32_t n_seeds;
    uint64_t *seeds;
    int32_t n_rows;
    lf_cmp_row *rows;
    int32_t n_points;
    int64_t *points;       /* curve x: plans proposed */
    int32_t has_exact;
    int64_t exact_dram, exact_dram_all, exact_mbu;
    int32_t exact_groups;
    double exact_wall;
    int32_t n_ops, n_unfusable;
} lf_cmp_table;

/* Allocates the per-seed arrays of every row and the curve points. */
lf_status lf_cmp_table_alloc(lf_cmp_table *t, int32_t n_rows, int32_t n_seeds, int64_t budget);
void lf_cmp_table_free(lf_cmp_table *t);

/* Display names: "LS", "RS", "NSGA-II"; "random split" for "none". */
const char *lf_cmp_search_label(const char *search);
const char *lf_cmp_proposer_label(const char *proposer);

/* Mean, sample standard deviation (0 for one value), min and max of the
 * finite values among n; count of finite values returned. */
int32_t lf_cmp_stats(const double *v, int32_t n, double *mean, double *sd, double *min, double *max);

/* Reports. The JSON writer emits one object per table; the caller wraps
 * them in an array. Wall times are the only figures that vary between runs. */
void lf_cmp_print_md(FILE *f, const lf_cmp_table *t);
void lf_cmp_print_csv_header(FILE *f);
void lf_cmp_print_csv(FILE *f, const lf_cmp_table *t);
void lf_cmp_print_json(FILE *f, const lf_cmp_table *t);

/* Budget curves: rows of (model, scheme, buffer, search, proposer, plans,
 * mean/min/max best DRAM over the seeds) for every table, and one SVG chart
 * per table. */
void lf_cmp_curve_csv_header(FILE *f);
void lf_cmp_curve_csv(FILE *f, const lf_cmp_table *t);
lf_status lf_cmp_curve_svg(const lf_cmp_table *t, const char *path);

/* Where the tables go (compare and sweep-report): the main report to
 * standard output or `output` in `format` (md, csv, json), also `csv` and
 * `json` files when set, and budget curves PREFIX.csv and PREFIX.svg (one
 * SVG per table, PREFIX-<model>-<scheme>-<KB>KB.svg, when there are
 * several) when `curves` is set. Files are written atomically. */
typedef struct lf_cmp_out {
    const char *format, *output, *csv, *json, *curves;
} lf_cmp_out;

lf_status lf_cmp_emit(const lf_cmp_out *o, lf_cmp_table *tables, int32_t n);

#endif
