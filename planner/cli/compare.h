/* `fusionplan compare` and `sweep-report`: how comparison tables
 * (search/sweep/compare.h) are reported (markdown, CSV, JSON tables; budget
 * curves as CSV and SVG). Internal to the CLI. */
#ifndef LF_CLI_COMPARE_H
#define LF_CLI_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "planner/app/cli/cli.h"
#include "planner/status.h"
#include "search/sweep/compare.h"

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
    const char *html;  /* one self-contained page with the tables and curves */
    const char *title; /* the page's title: the command's name */
} lf_cmp_out;

/* The tables and budget curves as one HTML page (compare_report.c). */
lf_status lf_cmp_write_html(FILE *f, const char *title, const lf_cmp_table *tables, int32_t n);

lf_status lf_cmp_emit(const lf_cmp_out *o, lf_cmp_table *tables, int32_t n);

/* Progress of compare's tables on stderr (an lf_cmp_progress_fn; user
 * points at an int, 1 for --quiet): a line per run and for the optimum; a
 * missing optimum is said even with --quiet. */
void lf_cmp_progress_print(void *user, const lf_cmp_table *t, int32_t r, int32_t s, int ok);

/* The options above (--format md|csv|json, --output, --csv, --json,
 * --curves) into o; with check, every output is checked before the work
 * (the SVG curves go next to PREFIX.csv, whose folder stands for theirs).
 * Returns 0 or an exit status after printing the error. */
int lf_cmp_out_parse(const lf_cli_command *cmd, lf_cmp_out *o, int check);

#endif
