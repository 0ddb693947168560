/* One Pareto DP of the staircase over a range of buffers (curve.c), for
 * lf_curve_compute (curve_ranges.c), which solves the whole range in parts
 * cut where prices rise. */
#ifndef LF_EXACT_CURVE_RUN_H
#define LF_EXACT_CURVE_RUN_H

#include <stdint.h>

#include "planner/cost/cost.h"
#include "planner/exact/curve.h"

/* One DP over [beta_min, beta_max]; keep (or NULL): the figures of groups
 * kept across the parts of the range [range_min, range_max]. */
lf_status lf__curve_run(const lf_graph *g, const lf_hw *hw, const char *scheme, int64_t beta_min,
                        int64_t beta_max, const lf_exact_config *cfg, lf_steps_store *keep, int64_t range_min,
                        int64_t range_max, lf_curve *out);

/* Most prices of an attention group over the whole range that keep holds. */
#define LF__ATTN_PIECES 4096

/* The steps of attention group `set` (members: its ops; first_need: the
 * least need of its steps below range_max) for the part [lo, hi] of the
 * range [range_min, range_max], as lf_cost_steps_priced below hi then
 * lf__steps_objective from lo (curve_steps.h) give them, from its prices
 * over the whole range, priced once and kept in keep (curve_attn.c);
 * pieces: scratch of LF__ATTN_PIECES. 0 in *found where they are too many
 * to keep (the caller prices the part itself). */
lf_status lf__attn_part_steps(lf_cost_model *cm, lf_steps_store *keep, const lf_bitset *set,
                              const int32_t *members, int32_t n_members, int64_t first_need, int64_t range_min,
                              int64_t range_max, int64_t lo, int64_t hi, lf_cost_step *pieces,
                              lf_cost_step *steps, int32_t *n, int *found);

#endif
