/* Comparisons of searches and splitters (`fusionplan compare`, the paper's
 * Tables II-V and Fig. 5): every (search, proposer) pair on one network,
 * scheme and buffer over several seeds, next to the exact optimum.
 *
 * The runs of one table share a cost model, hence its F_beta/F_D memo (as the
 * paper caches them), unless fresh_memo gives each run a cold one: then the
 * wall times compare fairly (Table V), at the price of recomputing costs. The
 * exact optimum is computed after the searches so that it warms no memo for
 * them. Each run gets its own splitter (and its own split memo), so the
 * rectify rate and split gap of a row are per seed. Every figure but the wall
 * times is a pure function of the inputs, whatever the thread count. */
#ifndef LF_SEARCH_COMPARE_H
#define LF_SEARCH_COMPARE_H

#include <stdint.h>

#include "hwdesc/hw.h"
#include "planner/graph.h"
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

/* What to compare: searches by canonical name (lf_cmp_search_name), proposers
 * by registry name or "none" for the random split. */
typedef struct lf_cmp_config {
    const char *const *searches, *const *proposers;
    int32_t n_searches, n_proposers;
    int64_t k, threads, population;
    int exact, split_gap, fresh_memo;
    const lf_hw *hw;  /* the table's buffer is hw->buffer_bytes */
    int split_continue; /* tree rows: the splitter's cost-aware continuation (splitter/tree.h) */
} lf_cmp_config;

/* The canonical name of a search given by the paper's abbreviation or the
 * planner's name (ls, local; rs, random; nsga2, nsga-ii, nsga), or NULL. */
const char *lf_cmp_search_name(const char *name);
/* 1 when name is "none" or a tree proposer of the registry. */
int lf_cmp_proposer_known(const char *name);

/* Progress of a table: a run finished (row, seed), or the exact optimum
 * (row = -1: found when ok, else its message in lf_last_error()). */
typedef void (*lf_cmp_progress_fn)(void *user, const lf_cmp_table *t, int32_t row, int32_t seed,
                                   int ok);

/* Allocates the per-seed arrays of every row and the curve points. */
lf_status lf_cmp_table_alloc(lf_cmp_table *t, int32_t n_rows, int32_t n_seeds, int64_t budget);
void lf_cmp_table_free(lf_cmp_table *t);

/* Fills table t (allocated for n_searches x n_proposers rows; model,
 * scheme, beta and seeds set by the caller) on graph g: every pair over
 * every seed, then the optimum. A missing optimum (past the exact planner's
 * limits) is not an error: has_exact stays 0. progress may be NULL. */
lf_status lf_cmp_run_table(const lf_cmp_config *cfg, lf_cmp_table *t, const lf_graph *g,
                           lf_cmp_progress_fn progress, void *user);

/* A grid of tables: every network x scheme x buffer, in that order, each
 * over the seeds first_seed .. first_seed + n_seeds - 1 at one budget. */
typedef struct lf_cmp_grid {
    const lf_graph *const *graphs; /* n_models (may be NULL for lf_cmp_grid_check) */
    const char *const *models;     /* the tables' network names */
    int32_t n_models;
    const char *const *schemes;
    int32_t n_schemes;
    const int64_t *betas;
    int32_t n_betas;
    uint64_t first_seed;
    int32_t n_seeds;
    int64_t budget;
} lf_cmp_grid;

/* The names of cfg and grid, in this order: schemes, searches (ls, rs,
 * nsga2 or the planners' names), proposers. LF_OK, or LF_EINVAL with the
 * line "unknown scheme|search|proposer 'x' (use ...)". */
lf_status lf_cmp_grid_check(const lf_cmp_config *cfg, const lf_cmp_grid *grid);

/* Runs every table of the grid (lf_cmp_run_table, cfg->hw's buffer set per
 * table) into *tables (malloc'd, *n_tables of them, each with its own seeds
 * array); free them with lf_cmp_tables_free, also after a failure. */
lf_status lf_cmp_run_grid(const lf_cmp_config *cfg, const lf_cmp_grid *grid, lf_cmp_table **tables,
                          int32_t *n_tables, lf_cmp_progress_fn progress, void *user);
/* Frees n tables, their seeds and the array. */
void lf_cmp_tables_free(lf_cmp_table *tables, int32_t n);

#endif
