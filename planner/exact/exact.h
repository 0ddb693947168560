/* The exact planner (DESIGN §7): the optimal plan under the cost model, by
 * dynamic programming over downsets.
 *
 * Ordering the groups of any valid plan topologically makes every prefix
 * union a downset (closed under predecessors), and the difference of two
 * nested downsets is convex. So
 *
 *     best[D] = min over downsets D' < D with D \ D' weakly connected and valid
 *               of best[D'] + F_D(D \ D')
 *
 * is exact. Candidate groups from a state are enumerated as connected sets
 * grown from its ready ops, pruned by a lower bound of F_beta that never
 * decreases when an op is added (F_beta itself can, so it cannot prune). The
 * same machinery restricted to one group gives that group's optimal split. */
#ifndef LF_EXACT_H
#define LF_EXACT_H

#include <stdint.h>

#include "planner/plan.h"

typedef struct lf_exact_config {
    int64_t max_states;     /* downsets; default 2,000,000 */
    int64_t max_candidates; /* connected sets visited; default 200,000,000 */
    double time_limit_s;    /* wall seconds; default 60; 0: none */
    int64_t memory_limit;   /* bytes of states and cost memo; default 4 GB; 0: none */
    int32_t threads;        /* the staircase's workers (lf_curve_compute); 0: default
                               (lf_pool_default_threads); the result is the same with any */
    double deadline;        /* lf_now_seconds() at which every DP stops, whatever
                               time_limit_s leaves (one deadline shared by the planner,
                               its bounds and polish: planner/app/pipeline.c); 0: none */
    int lower_bound;        /* lf_exact_plan: keep the DP's frontier bound (frontier.c)
                               in stats->lower, for a run stopped at a limit; 0 (default):
                               not kept (its setup costs a pass over the graph). Under
                               every objective: its floors are bytes, priced under energy
                               and latency (lf_cost_objective_dram_floor) */
    int32_t objective;      /* the staircase's objective (lf_curve_compute, lf_curve_check:
                               lf_plan_objective, planner/cost/objective.h; 0: DRAM). The
                               single-buffer planner minimises its cost model's objective
                               (lf_cost_set_objective) and ignores this */
    int64_t estimate_after; /* lf_exact_plan with lower_bound: the states reached before the
                               frontier bound builds its per-state estimate of the cost still
                               to pay (togo.c; it costs windows solved twice, so fast runs
                               never pay it); 0: default 20,000; < 0: never */
    int64_t upper_bound;    /* lf_exact_plan: the figure of a known plan over fusable ops
                               (0: none, the default; < 0: LF_EINVAL), in the cost model's
                               objective: DRAM bytes, fJ or fs (lf_plan_metrics.objective,
                               the unit of lf_plan_objective_unit). Branch and bound:
                               states whose figure plus the frontier's estimate of the rest
                               (frontier.c, set up for it with or without lower_bound)
                               exceeds it are not expanded. Inclusive: when a plan's figure
                               is at most it, the plan returned is the same as without it,
                               DESIGN §4's order included (so a known plan's figure proves
                               it optimal, or finds a better one); when none is, LF_EPLAN
                               with one line naming the bound ("no plan ... at most the
                               upper bound N B"), stats->lower its next integer */
    lf_plan *upper_plan;    /* lf_exact_plan with lower_bound, stopped at a limit: where it
                               leaves a complete plan (initialised there; its figure in
                               stats->upper), the best reached state's plan with the ops
                               after it solved exactly; NULL (default): none built */
} lf_exact_config;

/* Defaults chosen so that the planner stops within a minute and 4 GB on a
 * 2-core machine (issue 18.11), whatever the network and buffer. */
#define LF_EXACT_DEFAULT_STATES 2000000
#define LF_EXACT_DEFAULT_CANDIDATES 200000000
#define LF_EXACT_DEFAULT_TIME_S 60.0
#define LF_EXACT_DEFAULT_MEMORY ((int64_t)4000000000)

typedef struct lf_exact_stats {
    int64_t states;         /* downsets reached */
    int64_t candidates;     /* connected sets visited while enumerating */
    int64_t groups;         /* candidate groups found (valid or not) */
    int64_t groups_skipped; /* of those, not priced: their F_D floor could not beat the target's plan */
    int64_t memory_bytes;   /* peak bytes of states and cost memo, as charged to the limit */
    int64_t lower;          /* lf_exact_plan: the optimum's figure over fusable ops (DRAM
                               bytes, or the cost model's objective: fJ, fs) when it
                               returns a plan; after LF_ELIMIT with cfg.lower_bound,
                               a certified lower bound on it (same unit) from the states expanded
                               (frontier.c; it never falls as the limits grow; with
                               cfg.upper_bound at most upper_bound + 1); after LF_EPLAN
                               past cfg.upper_bound, upper_bound + 1; else 0 */
    double wall_s;
    int64_t pruned;         /* states not expanded: past cfg.upper_bound (frontier.c) */
    int64_t upper;          /* the figure of cfg.upper_plan when one was built; else 0 */
} lf_exact_stats;

void lf_exact_config_default(lf_exact_config *c);

/* Limits: the cost memo is held to half the memory limit while the planner
 * runs (evicted groups are recomputed), and the other half is left to the
 * states; past any limit the planner stops with LF_ELIMIT and a one-line
 * message naming the limit and what was reached (states, candidate sets,
 * time, memory), and so it does once an eighth of the time limit is spent
 * when its pace projects a finish past four times the limit ("reached
 * early"). It never returns a plan it has not proven optimal.
 * lf_exact_plan sets the memo's limit for its run (lf_cost_memo_limit), so no
 * other evaluation may use the cost model meanwhile; lf_exact_split leaves
 * the memo's own limit alone and may run from several threads. */

/* Optimal plan of the whole graph in the full order of DESIGN §4: minimum DRAM
 * over fusable ops, then fewest groups, then the lexicographically smallest
 * sorted list of group minimum op ids (lf_plan_compare). *out is initialised
 * here (canonical, passes lf_plan_check). Fails with LF_ELIMIT and a message
 * naming the limit when the search is too big. */
lf_status lf_exact_plan(lf_cost_model *cm, const lf_exact_config *cfg, lf_plan *out,
                        lf_exact_stats *stats);

/* Optimal split of one group into valid, weakly connected parts with no cycle
 * among them (ops outside the group are treated as already computed). *out
 * maps every op of the group to its part and everything else to -1; *dram is
 * the sum of the parts' F_D. The group must contain only fusable ops. */
lf_status lf_exact_split(lf_cost_model *cm, const lf_bitset *group, const lf_exact_config *cfg,
                         lf_plan *out, int64_t *dram, lf_exact_stats *stats);

/* ---- certified bounds where exactness runs out (issue 17 item 4) ---------
 *
 * An articulation op c is a cut op (every other op lies above or below it)
 * whose output is the only tensor that ops below c read from above it. The
 * ops between consecutive articulation ops form blocks. Solving each block on
 * its own gives a valid plan (its groups never span a block boundary): an
 * upper bound. For the lower bound, cut each group of an optimal plan at the
 * articulation ops it spans: every part is a subset of a valid group, so the
 * monotone lower bound of F_beta the enumeration prunes with admits it; and
 * under the DRAM formula with one weight read each cut adds at most c's
 * output once written and once read. So the optimum is at least the sum over
 * blocks of a relaxed block optimum (parts need not be connected, validity
 * is that bound below beta, weights are read once) minus twice the output of
 * every fusable articulation op. docs/search.md ("Certified bounds") has the
 * argument in full. */
typedef struct lf_exact_bounds {
    /* Figures over fusable ops in the cost model's objective: DRAM bytes, or
     * under energy and latency fJ and fs (the lower bounds are proven in
     * bytes and priced: lf_cost_objective_dram_floor, objective.h). */
    int64_t lower;        /* the optimum's figure is at least this */
    int64_t upper;        /* the figure of the plan returned */
    int32_t blocks;       /* blocks between articulation ops */
    int32_t blocks_exact; /* blocks whose own optimum was found within the limits */
    int32_t blocks_lower; /* blocks whose relaxed optimum was found within the limits */
    /* lf_exact_bounds_certify only (0 otherwise): */
    int64_t lower_blocks;   /* the blocks' lower bound */
    int64_t lower_windows;  /* the windows' lower bound */
    int64_t lower_balance;  /* the balanced cuts' lower bound (balance_cut.c; 0: not computed) */
    int32_t window_ops;     /* ops per window of the windows' best pass */
    int32_t windows;        /* its windows (halves of windows past their limits included) */
    int32_t windows_solved; /* of those, solved within the limits */
    int32_t windows_halved; /* windows past the limits, tried again in halves */
    int windows_grown;      /* its cheap windows were grown past window_ops (window_bound.c) */
    int32_t out_of_time;    /* DPs not run because cfg's deadline had passed (their
                               blocks and windows keep the trivial bounds) */
    double wall_s;
} lf_exact_bounds;

/* Computes both bounds and the upper bound's plan (*plan is initialised here,
 * canonical, passes lf_plan_check), with blocks of at least min_block_ops ops
 * where articulation ops allow (<= 0: LF_EXACT_BOUNDS_BLOCK_OPS). cfg's limits apply to the whole
 * computation; a block that runs past them keeps its ops as singletons in
 * the plan and contributes the weight bytes of its fusable ops (each weight
 * is read at least once) to the lower bound, which is never below the weight
 * bytes of all fusable ops. lower <= optimum <= upper. */
lf_status lf_exact_bounds_compute(lf_cost_model *cm, const lf_exact_config *cfg,
                                  int32_t min_block_ops, lf_plan *plan, lf_exact_bounds *b);

/* The tightest bounds this library proves within cfg's limits: those of
 * lf_exact_bounds_compute (default blocks) on half of the time limit (less
 * when the first block's DP stops unsolved: the rest goes on), and a
 * second lower bound on what is left, from windows of
 * consecutive ops and the tensors that must cross groups (docs/search.md
 * "Certified bounds"): lower is the larger. The plan is the block plan. */
lf_status lf_exact_bounds_certify(lf_cost_model *cm, const lf_exact_config *cfg, lf_plan *plan,
                                  lf_exact_bounds *b);
/* The same with spare_s seconds more for the windows (what an exact run
 * that stopped early left of its time limit; ignored without one). */
lf_status lf_exact_bounds_certify_spare(lf_cost_model *cm, const lf_exact_config *cfg, double spare_s,
                                        lf_plan *plan, lf_exact_bounds *b);

/* Blocks of at least this many ops by default: consecutive blocks between
 * articulation ops are joined until they reach it (fewer cuts: tighter
 * bounds, larger block DPs). */
#define LF_EXACT_BOUNDS_BLOCK_OPS 32

/* (upper - lower) / lower in percent; 0 when they meet. */
double lf_exact_bounds_gap(const lf_exact_bounds *b);

/* ---- polishing a plan with exact sub-solves (polish.c) ------------------
 *
 * Every run of consecutive groups (in a topological order of the plan's
 * quotient) holding at most window_ops ops is re-planned optimally with the
 * rest of the plan fixed; passes repeat until one changes nothing or
 * max_passes. Never makes a plan worse (the old groups are one plan of each
 * run). Windows whose solve passes max_candidates are left as they are. */
typedef struct lf_polish_config {
    int32_t window_ops;     /* ops per window; default 60 */
    int64_t max_candidates; /* per window's exact solve; default 1,000,000 */
    int32_t max_passes;     /* default 8 */
    double deadline;        /* lf_now_seconds() at which polishing stops, between windows
                               and inside one (it is left as it was); 0: none (default) */
    const uint8_t *fixed;   /* one flag per op: its group is known to be optimal where it
                               is (a piece solved exactly between cuts no valid group
                               spans), so a window of such ops only is not solved; NULL
                               (default): none */
    int64_t max_states;     /* per window's exact solve, downsets; 0 (default): the exact
                               planner's default */
    int32_t max_windows;    /* exact solves in all (a deterministic cap on the polish's
                               time); 0 (default): none */
    int32_t breadth_first;  /* 0 (default): among the groups ready next in the order, the
                               one with the smallest op first; 1: the one made ready
                               first (ties: the smallest op), so a group that reads only
                               an early group's side output follows it closely instead of
                               waiting for its own first op's place: the runs are then
                               other sets of groups (PP-OCRv4 under BRR: the backbone's
                               groups with a neck conv's group, 230 KB less) */
} lf_polish_config;

#define LF_POLISH_DEFAULT_WINDOW 60
#define LF_POLISH_DEFAULT_CANDIDATES 1000000
#define LF_POLISH_DEFAULT_PASSES 8

typedef struct lf_polish_stats {
    int32_t passes;
    int32_t windows;        /* exact sub-solves run */
    int32_t improved;       /* windows whose plan was replaced */
    int32_t limited;        /* windows left because their solve passed max_candidates */
    int32_t out_of_time;    /* 1: stopped at cfg's deadline (the plan is the best so far) */
    int64_t dram_before, dram_after; /* over fusable ops, in the cost model's objective
                                        (DRAM bytes by default; fJ, fs under energy, latency) */
} lf_polish_stats;

void lf_polish_config_default(lf_polish_config *c);

/* Polishes *plan in place (it stays canonical and valid). */
lf_status lf_exact_polish(lf_cost_model *cm, const lf_polish_config *cfg, lf_plan *plan,
                          lf_polish_stats *stats);

#endif
