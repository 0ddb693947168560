/* `fusionplan bench threads`: is a search with T threads ever slower than
 * with one? Each (network, search, split) runs R times with one and with T
 * threads, alternating which goes first so that drifting load hits both,
 * every run on a cold cost model, proposer and splitter (no run warms a
 * memo for the next); the medians are compared. A plan that changes with
 * the thread count is an error (LF_EPLAN). A co-runner process spinning on
 * a core stands for another job on a shared machine. */
#ifndef LF_BENCH_THREADS_H
#define LF_BENCH_THREADS_H

#include <stddef.h>
#include <stdint.h>

#include "planner/status.h"

#define LF_BENCH_THREADS_MAX 16        /* items per list */
#define LF_BENCH_THREADS_MAX_REPEAT 15 /* runs per median */

typedef struct lf_bench_threads_config {
    const char *scheme;
    int64_t budget;
    uint64_t seed;
    int32_t threads; /* compared with one */
    int32_t repeat;  /* runs per median, 1 .. LF_BENCH_THREADS_MAX_REPEAT */
    int32_t n_models, n_searches, n_splits;
    char *models[LF_BENCH_THREADS_MAX];
    int64_t betas[LF_BENCH_THREADS_MAX]; /* each network's buffer */
    char *searches[LF_BENCH_THREADS_MAX];
    char *splits[LF_BENCH_THREADS_MAX];  /* "random" or "tree-PROPOSER" */
    char model_list[1024], search_list[256], split_list[512];
} lf_bench_threads_config;

/* Fills the lists of cfg from comma-separated strings: networks, each
 * optionally NAME@BUFFER (else default_beta); searches random, local or
 * nsga2; splits random or tree-<proposer>. Errors: LF_EINVAL with one line
 * saying which item is wrong. */
lf_status lf_bench_threads_lists(lf_bench_threads_config *cfg, const char *models,
                                 int64_t default_beta, const char *searches, const char *splits);

typedef struct lf_bench_threads_row {
    const char *model, *search, *split;
    int64_t beta;
    double wall_1, wall_t;   /* median wall seconds with one and with T threads */
    int64_t parallel_pct;    /* last T-thread run: share of batches run on several threads */
    int64_t redundant;       /* last T-thread run: plans recomputed for a parked thread */
} lf_bench_threads_row;

typedef void (*lf_bench_threads_row_fn)(void *user, const lf_bench_threads_row *row);

/* Measures every (network, search, split) of cfg in that order, reporting
 * each row as it is done (row may be NULL). */
lf_status lf_bench_threads_run(const lf_bench_threads_config *cfg, lf_bench_threads_row_fn row,
                               void *user);

/* A child process keeping one core busy until stopped (killed with the
 * benchmark on Linux); returns its id, or -1 when it cannot be started. */
int64_t lf_bench_co_runner_start(void);
void lf_bench_co_runner_stop(int64_t pid);

/* The 1, 5 and 15 minute load averages ("0.52 0.40 0.33"), or "unknown". */
void lf_bench_load_average(char *buf, size_t len);

#endif
