/* The whole staircase of the optimal DRAM against the buffer size, in one
 * run (issue 17 item 1).
 *
 * The optimum over all ops (DESIGN §4: the figure buffer sweeps plot) is a
 * non-increasing step function of the buffer beta: a plan is feasible at beta
 * when every group's need is below beta, so each plan contributes one step
 * from (its largest group need + 1) on. The DP over downsets of exact.h keeps,
 * per state, the Pareto front of (DRAM, largest need) instead of one value;
 * the front of the whole graph is the staircase. A group's need is its F_beta
 * (and every member's own F_beta, since an op that is unfusable at beta must
 * stay alone there); under BRR a group has one step per tile height that
 * lowers its weight re-reads (lf_cost_steps), and an op alone can always be
 * charged by the BRR rule, which needs no buffer. */
#ifndef LF_EXACT_CURVE_H
#define LF_EXACT_CURVE_H

#include <stdint.h>

#include "planner/exact/exact.h"

typedef struct lf_curve_point {
    int64_t beta;       /* the smallest buffer (bytes, >= the curve's min) with this optimum */
    int64_t dram_all;   /* the optimal DRAM over all ops from beta on, up to the next point;
                           under cfg->objective energy or latency that objective's optimum
                           over all ops instead (fJ or fs, planner/cost/objective.h) */
    lf_plan plan;       /* a plan reaching it at beta (canonical) */
} lf_curve_point;

typedef struct lf_curve {
    int64_t beta_min, beta_max;
    int32_t n;          /* points: beta ascending, a point only where the figure changes:
                           dram_all strictly descending (under energy or latency also a rise),
                           never two in a row with the same figure (lf_curve_compute) */
    lf_curve_point *points;
    lf_exact_stats stats;
    int64_t front_points; /* Pareto points kept over all states */
    int32_t threads;      /* workers for the joined pairs (cfg->threads resolved; 1 where
                             none run: weights resident, or no cut op) */
    int64_t batches, parallel_batches; /* blocks of joined pairs, of which on several
                                          workers (vary with the load, like the wall time) */
} lf_curve;

/* Computes the staircase for buffers in [beta_min, beta_max] of graph g
 * under hw's element sizes and the scheme named `scheme` (hw's own buffer
 * size is ignored). cfg's limits apply to the whole run (NULL: defaults).
 * *out is initialised here; destroy it with lf_curve_destroy. At any beta in
 * the range the optimum is points[k].dram_all for the largest k with
 * points[k].beta <= beta, equal to what lf_exact_plan finds at beta. */
lf_status lf_curve_compute(const lf_graph *g, const lf_hw *hw, const char *scheme, int64_t beta_min,
                           int64_t beta_max, const lf_exact_config *cfg, lf_curve *out);
void lf_curve_destroy(lf_curve *c);

/* The staircase of energy prices the buffer's SRAM at one figure across its
 * range: the description's (given, or the size model at its own buffer
 * size), not the model at each buffer, so that a step is a change of plan.
 * lf_curve_compute and lf_curve_check fix it in their copy of hw with this. */
void lf_curve_fix_sram(lf_hw *hw);

/* Checks c (computed for g, hw and scheme) against lf_exact_plan under cfg
 * (NULL: defaults) at every step's buffer, one byte below each (within the
 * range) and at the range's largest buffer: the single-buffer optimum must
 * be the DRAM the staircase gives there. *checked: the buffers solved. A
 * difference is LF_EPLAN naming the buffer and both figures; a limit of
 * the single-buffer planner stops the check with its error. */
lf_status lf_curve_check(const lf_graph *g, const lf_hw *hw, const char *scheme, const lf_curve *c,
                         const lf_exact_config *cfg, int32_t *checked);

/* The optimum at beta from a computed curve; -1 outside its range. */
int64_t lf_curve_dram_at(const lf_curve *c, int64_t beta);

#endif
