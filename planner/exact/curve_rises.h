/* Where the staircase's prices rise (curve.c, docs/search.md "Staircase").
 * The Pareto DP of curve.c assumes that a group's price only falls as the
 * buffer grows. Under energy and latency, and under DRAM for a weight
 * MatMul just above BRR's threshold, a lone op's price can rise at a
 * buffer; lf_curve_compute solves the range in parts cut there, so that
 * inside each part every price only falls. */
#ifndef LF_EXACT_CURVE_RISES_H
#define LF_EXACT_CURVE_RISES_H

#include <stdint.h>

#include "planner/exact/exact.h"

/* The buffers inside (beta_min, beta_max] where some op of g alone costs
 * more (cfg->objective's figure, under g, hw and scheme, with the SRAM
 * figure fixed as lf_curve_fix_sram does) than one byte below: into cuts,
 * ascending, each once, *n_cuts of them. cuts holds
 * (2 + LF_COST_MAX_STEPS) * g->n_ops + 2 entries. */
lf_status lf__curve_rising_cuts(const lf_graph *g, const lf_hw *hw, const char *scheme, int64_t beta_min,
                                int64_t beta_max, const lf_exact_config *cfg, int64_t *cuts, int32_t *n_cuts);

#endif
