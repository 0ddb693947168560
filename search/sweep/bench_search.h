/* `fusionplan bench search`: every search at a fixed budget and seed next
 * to the layer-by-layer, greedy and exact plans, on one network, buffer
 * and scheme per call. A benchmark, not a test: it reports figures (one row
 * per plan, wall and CPU times included) and never fails on timing; a
 * search that fails is reported through the notice callback and skipped. */
#ifndef LF_BENCH_SEARCH_H
#define LF_BENCH_SEARCH_H

#include <stdint.h>
#include <stdio.h>

#include "planner/cost/cost.h"
#include "planner/app/pipeline.h"
#include "planner/plan.h"
#include "planner/status.h"

typedef struct lf_bench_row {
    const char *model, *scheme, *search, *split;
    double rectify, gap;  /* tree splitter only; < 0 when not applicable */
    int64_t beta;
    lf_plan_metrics m;
    int64_t proposed;     /* plans proposed (budgeted searches), else 0 */
    double wall, cpu;     /* cpu < 0: not measured */
    int64_t exact_dram;   /* the optimum's DRAM over fusable ops, when has_exact */
    int has_exact;
} lf_bench_row;

/* The planner settings every search shares (budget, seed, threads, seed
 * plans, guided, polish, split_continue, split_gap), the buffers and schemes of the
 * tables, the searches and the splits ("random" or "tree-PROPOSER") of
 * each, and whether to compute the optimum (first, so that every row shows
 * its gap; its row comes last). */
#define LF_BENCH_MAX_BUFFERS 32
#define LF_BENCH_MAX_SCHEMES 4
#define LF_BENCH_MAX_SEARCHES 8
#define LF_BENCH_MAX_SPLITS 8
typedef struct lf_bench_search_config {
    lf_planner_config planner;
    int n_betas, n_schemes, n_searches, n_splits;
    int64_t betas[LF_BENCH_MAX_BUFFERS];
    char *schemes[LF_BENCH_MAX_SCHEMES];
    char *searches[LF_BENCH_MAX_SEARCHES];
    char *splits[LF_BENCH_MAX_SPLITS];
    int do_exact;
} lf_bench_search_config;

/* LF_OK when split is "random" or "tree-" and a known proposer, else
 * LF_EINVAL with the line listing the choices. */
lf_status lf_bench_split_check(const char *split);

typedef void (*lf_bench_row_fn)(void *user, const lf_bench_row *row);
/* A plan that could not be made (the library's message): the row is left out. */
typedef void (*lf_bench_notice_fn)(void *user, const char *message);

/* One table per buffer and scheme of cfg (buffer-major) on graph g (named
 * model): the layer and greedy rows, every search x split, then the exact
 * row, each reported as it is done. hw: element sizes and the rest (NULL:
 * lf_hw_default); its buffer is cfg's. */
lf_status lf_bench_search_run(const lf_graph *g, const char *model, const lf_hw *hw,
                              const lf_bench_search_config *cfg, lf_bench_row_fn row,
                              lf_bench_notice_fn notice, void *user);

/* The table's head and one row, as markdown or (csv) CSV. */
void lf_bench_print_header(FILE *f, int csv);
void lf_bench_print_row(FILE *f, const lf_bench_row *r, int csv);

#endif
