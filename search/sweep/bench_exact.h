/* `fusionplan bench exact`: what the exact planner costs per network (issue
 * 17): the whole staircase of optima over a buffer range (lf_curve), or the
 * optimum at each of a list of buffers, with downsets, candidate sets,
 * groups priced, memory and wall time, and which limit stopped a run. A
 * benchmark: a limit that fires is a row's outcome, not a failure. */
#ifndef LF_BENCH_EXACT_H
#define LF_BENCH_EXACT_H

#include <stdint.h>
#include <stdio.h>

#include "planner/exact/exact.h"
#include "planner/plan.h"
#include "planner/status.h"

#define LF_BENCH_EXACT_MAX 64 /* items per list */

typedef struct lf_bench_exact_config {
    lf_exact_config exact;          /* the planner's limits */
    int32_t n_models, n_schemes;
    const char *models[LF_BENCH_EXACT_MAX], *schemes[LF_BENCH_EXACT_MAX];
    int32_t n_betas;                /* 0: the staircase from min to max */
    int64_t betas[LF_BENCH_EXACT_MAX];
    int64_t min, max;
} lf_bench_exact_config;

typedef struct lf_bench_exact_row {
    const char *model, *scheme;
    int staircase;                  /* 1: a staircase over [min, max]; 0: the optimum at beta */
    int64_t beta;
    int64_t min, max;               /* the staircase's range */
    lf_status status;               /* LF_OK or LF_ELIMIT */
    const char *outcome;            /* "optimal" or the limit that stopped the run */
    lf_exact_stats stats;
    lf_plan_metrics m;              /* a buffer of the list, when optimal */
    int32_t steps;                  /* staircase: its steps */
    int64_t front;                  /* staircase: front points */
    double wall;
} lf_bench_exact_row;

typedef void (*lf_bench_exact_row_fn)(void *user, const lf_bench_exact_row *row);

/* "optimal" for LF_OK, else which limit (from the planner's message in
 * lf_last_error): "time limit", "memory limit", "candidate limit", "state
 * limit", or "error" for another failure. */
const char *lf_bench_exact_outcome(lf_status st);

/* Every network x scheme (x buffer), reported row by row. A failure other
 * than a limit stops the run and is returned. */
lf_status lf_bench_exact_run(const lf_bench_exact_config *cfg, lf_bench_exact_row_fn row,
                             void *user);

/* The table (markdown or csv) for a list of buffers (buffers) or
 * staircases: its head, one row, and the closing line (markdown only:
 * "F of N runs finished (optimal); S s in total", and for staircases
 * "(W workers for the staircases' joined pairs)" when workers > 0). */
void lf_bench_exact_print_header(FILE *f, int csv, int buffers);
void lf_bench_exact_print_row(FILE *f, const lf_bench_exact_row *r, int csv);
void lf_bench_exact_print_total(FILE *f, int csv, int finished, int runs, double seconds,
                                int32_t workers);

#endif
