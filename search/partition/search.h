/* Partition search: random search, local search and NSGA-II over genomes
 * (DESIGN §6, paper §IV-B).
 *
 * Every algorithm proposes plans as genomes (search/partition/genome.h),
 * decodes them into valid plans (cycle repair and the splitter for invalid
 * groups) and keeps the best by lf_plan_compare: less DRAM over fusable ops,
 * then fewer groups, then the smaller list of group minimum op ids.
 *
 * Budget = plans proposed, the paper's unit, initial populations included;
 * it does not depend on the thread count.
 *
 * Determinism: plan number i of a run draws only from lf_rng_seed(seed, i)
 * (and the splitter from its per-group stream), the plans of one step or
 * generation are decoded in parallel under OpenMP and merged in index order,
 * so the same configuration gives a byte-identical result for any thread
 * count and on every run. Only the timing and memo counters vary.
 *
 *   random  each plan is a fresh genome: a fusion probability p is drawn
 *           uniformly in [0, 1), then every gene is 1 with probability p.
 *           Plans are decoded in batches of 64.
 *   local   the first K plans are random-search plans; the population keeps
 *           the K best distinct plans seen. Each step mutates every member
 *           once (K proposals, decoded in parallel): merge two adjacent
 *           groups, split a group at a random topological position, or move
 *           an op across a group boundary, each with probability 1/3.
 *   nsga2   population K of repaired genomes (decoded plans written back,
 *           so crossover recombines valid plans); each generation makes K
 *           children by binary tournament (rank, then crowding distance),
 *           uniform crossover and bit-flip mutation, and keeps the K best of
 *           parents and children by fast non-dominated sort and crowding
 *           distance (duplicates go last). `objectives` selects the
 *           minimized objectives: bit 0 DRAM over fusable ops, bit 1 group
 *           count (default 3, both). The result's best plan is the lowest-DRAM
 *           plan seen; the Pareto front is the non-dominated set, under the
 *           selected objectives, of every plan proposed. */
#ifndef LF_SEARCH_PARTITION_H
#define LF_SEARCH_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "planner/plan.h"
#include "splitter/splitter.h"

/* Progress of a long run, reported instead of printed (the library never
 * writes to the terminal; the CLI draws a bar from it). Called on the calling
 * thread after each batch of plans: `stage` names the run (the algorithm),
 * `done` of `total` units are finished, `note` is a short status ("best 1.234
 * MB") or NULL. */
typedef void (*lf_progress_fn)(void *user, const char *stage, int64_t done, int64_t total,
                               const char *note);

typedef struct lf_search_config {
    const char *algorithm;       /* "random", "local", "nsga2" */
    int64_t budget;              /* plans proposed (the paper's unit); >= 1 */
    uint64_t seed;
    int32_t threads;             /* 0: OpenMP default; ignored without OpenMP */
    int32_t population;          /* K: LS keeps top-K, NSGA-II population; default 10 */
    double mutation_rate;        /* NSGA-II bit-flip probability per gene; <= 0: 1/genome length */
    int32_t objectives;          /* NSGA-II: bit 0 DRAM, bit 1 group count (default 3) */
    const lf_splitter *splitter; /* NULL: the random split */
    int32_t quiet;               /* 1: no progress calls even with a callback */
    int32_t trace;               /* 1: record the best DRAM after every plan (budget curves) */
    lf_progress_fn progress;     /* NULL: none */
    void *progress_user;
    /* Seed plans (issue 17 item 7): local search and NSGA-II take these as
     * the first members of their initial population (each is one plan of
     * the budget, decoded like any genome), then random plans as before.
     * Random search ignores them. Plans of the same graph; NULL: none. */
    const lf_plan *seeds;
    int32_t n_seeds;
    /* 1: every LS and NSGA-II child also takes a cost-guided edit (its best
     * merge or best move by F_D saved; guided.c). 0: the paper's operators,
     * unchanged (issue 17 item 7). */
    int32_t guided;
    /* lf_now_seconds() after which NSGA-II proposes no further generation
     * (exact's best effort shares the --time-limit deadline with it); 0:
     * none, the budget alone decides (the default: reproducible). */
    double deadline;
} lf_search_config;

typedef struct lf_search_result {
    lf_plan best;                   /* canonical, passes lf_plan_check */
    lf_plan_metrics metrics;        /* lf_plan_metrics_compute of best */
    int64_t plans_proposed;         /* equals the budget (less when a deadline stopped NSGA-II) */
    int64_t invalid_groups;         /* invalid groups met (each handed to the splitter) */
    int64_t splits;                 /* groups split, by the splitter or the cycle repair */
    int64_t rectified;              /* splitter calls that succeeded without falling back */
    int64_t cache_hits, cache_misses; /* group costs found in a cache (a search thread's own
                                         or the cost model's memo) / computed afresh */
    double wall_s, split_s;         /* wall seconds in total and with some thread inside
                                       the splitter (not summed over threads: <= wall_s) */
    int32_t n_pareto;               /* NSGA-II front (lowest DRAM first), else 0 */
    lf_plan *pareto;
    lf_plan_metrics *pareto_metrics;
    /* Beyond the list: */
    int64_t repair_splits;          /* of `splits`, those made by the cycle repair */
    int64_t split_queries;          /* cost queries made inside the splitter */
    int64_t fallbacks;              /* splitter calls that gave up (random split used) */
    /* With cfg.trace: trace[i] is the DRAM over fusable ops of the best plan
     * among plans 0..i. Plan i draws from its own stream and a batch only
     * sees the population as it was before it, so trace[i] equals the best
     * DRAM of the same search run with budget i + 1, for every algorithm:
     * one run gives the whole budget curve. */
    int64_t *trace;
    int64_t n_trace;
    /* Thread pool (planner/util/pool.h); vary between runs like wall_s: */
    int64_t batches, parallel_batches; /* batches decoded, of which on several threads */
    int64_t redundant;      /* plans recomputed for a parked thread (the late result dropped) */
    double cpu_s;           /* CPU seconds of the whole process during the run (all threads):
                               with one thread, a figure other processes barely move */
} lf_search_result;


/* algorithm "nsga2", budget 1000, seed 1, threads 0, population 10, mutation
 * rate 0 (1/genome length), objectives 3, random split, no progress callback. */
void lf_search_config_default(lf_search_config *c);

/* Runs a search. `res` is overwritten (call lf_search_result_destroy after,
 * also after a failure). Errors: LF_EINVAL for a bad configuration (unknown
 * algorithm, budget < 1, population < 1, objectives outside 1..3), LF_ENOMEM,
 * or whatever the cost model or splitter reports. */
lf_status lf_search_run(lf_cost_model *cm, const lf_search_config *cfg, lf_search_result *res);

void lf_search_result_destroy(lf_search_result *res);

/* ---- the table of searches (searches.def) ------------------------------ */

typedef enum lf_search_kind {
    LF_SEARCH_KIND_PLAN,   /* one plan from the cost model (greedy, layer) */
    LF_SEARCH_KIND_BUDGET, /* --budget plans through lf_search_run (random, local, nsga2) */
    LF_SEARCH_KIND_EXACT   /* the exact planner, run by the pipeline */
} lf_search_kind;

typedef struct lf_search_entry {
    const char *name;
    const char *aliases; /* comma-separated further names ("" for none) */
    const char *help;    /* one line */
    lf_search_kind kind;
    lf_status (*plan)(lf_cost_model *cm, lf_plan *out); /* LF_SEARCH_KIND_PLAN only */
} lf_search_entry;

/* The rows in table order; *n gets their count. */
const lf_search_entry *lf_search_table(int *n);

/* The row named `name` or one of its aliases; NULL when none. */
const lf_search_entry *lf_search_find(const char *name);

/* The names, NULL-terminated, in table order: every search, or (budgeted)
 * those of kind LF_SEARCH_KIND_BUDGET. */
const char *const *lf_search_names(int budgeted);

/* The budgeted searches with their aliases as prose, for messages:
 * "random (rs), local (ls) or nsga2 (nsga-ii, nsga)". Returns buf. */
const char *lf_search_aliases_format(char *buf, size_t len);

#endif
