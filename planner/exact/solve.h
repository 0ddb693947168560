/* Internal entry of the exact planner for callers inside planner/exact: the
 * optimal plan of the ops of a universe (any ops, unfusable ones kept as
 * forced singletons; ops outside it count as already computed). */
#ifndef LF_EXACT_SOLVE_H
#define LF_EXACT_SOLVE_H

#include "planner/exact/exact.h"

/* *out is initialised here: the universe's ops in groups, the rest -1;
 * *dram is the DRAM of its fusable groups. */
lf_status lf__exact_solve(lf_cost_model *cm, const lf_bitset *universe, const lf_exact_config *cfg,
                          lf_plan *out, int64_t *dram, lf_exact_stats *stats);

#endif
