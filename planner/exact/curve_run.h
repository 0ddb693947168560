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

/* Most prices of an attention group over the whole range kept. */
#define LF__ATTN_PIECES 4096

/* The prices of the attention group of the n_members ops `members` over
 * [range_min, range_max] in the objective's figure, as pieces (need: the
 * piece's smallest buffer; f_d: its figure, INT64_MAX where no schedule
 * fits), a piece priced as the one before it merged into it, into pieces
 * (room for LF__ATTN_PIECES; *n 0 where there are more). curve_attn.c */
lf_status lf__attn_range_prices(lf_cost_model *cm, const int32_t *members, int32_t n_members,
                                int64_t range_min, int64_t range_max, lf_cost_step *pieces, int32_t *n);

/* The steps of that group (first_need: the least need of its steps below
 * range_max) for the part [lo, hi] of the range, from its np pieces: what
 * lf_cost_steps_priced below hi then lf__steps_objective from lo
 * (curve_steps.h) give, into steps (LF_COST_MAX_STEPS), *n of them. */
lf_status lf__attn_part_steps(const lf_cost_model *cm, const lf_cost_step *pieces, int32_t np,
                              int64_t first_need, int64_t lo, int64_t hi, lf_cost_step *steps, int32_t *n);

#endif
