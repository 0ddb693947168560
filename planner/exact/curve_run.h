/* One Pareto DP of the staircase over a range of buffers (curve.c), for
 * lf_curve_compute (curve_ranges.c), which solves the whole range in parts
 * cut where prices rise. */
#ifndef LF_EXACT_CURVE_RUN_H
#define LF_EXACT_CURVE_RUN_H

#include <stdint.h>

#include "planner/cost/cost.h"
#include "planner/exact/curve.h"

/* One DP over [beta_min, beta_max]; keep (or NULL): the figures of groups
 * kept across the parts of a range up to range_max. */
lf_status lf__curve_run(const lf_graph *g, const lf_hw *hw, const char *scheme, int64_t beta_min,
                        int64_t beta_max, const lf_exact_config *cfg, lf_steps_store *keep, int64_t range_max,
                        lf_curve *out);

#endif
