/* The Pareto DP of the staircase over parts of a range of buffers at once
 * (curve.c), for lf_curve_compute (curve_ranges.c), which solves the whole
 * range in parts cut where prices rise. */
#ifndef LF_EXACT_CURVE_RUN_H
#define LF_EXACT_CURVE_RUN_H

#include <stdint.h>

#include "planner/cost/cost.h"
#include "planner/exact/curve.h"

/* Most parts of one run (a bit each in a mask of those a group extends). */
#define LF__CURVE_PARTS 64

/* One DP over n_parts parts of the range at once (1 to 64; part k from
 * bounds[2k] to bounds[2k + 1], none with a larger buffer than the last,
 * under which the run enumerates; they may overlap, curve_ahead.c: each
 * part has fronts of its own), their staircases into
 * outs[0..n_parts): one enumeration of states and groups, each group
 * priced once for all parts, each part with its own fronts. The run's
 * statistics are the first part's. keep (or NULL): the figures of groups
 * kept across the parts of the range [range_min, range_max]. classes
 * (n_parts entries): each part's class, the first part it can share a run
 * with (curve.c); where they are not all 0, nothing is solved (outs
 * empty) and the caller solves each class in a run of its own. */
lf_status lf__curve_run(const lf_graph *g, const lf_hw *hw, const char *scheme, const int64_t *bounds,
                        int32_t n_parts, const lf_exact_config *cfg, lf_steps_store *keep, int64_t range_min,
                        int64_t range_max, lf_curve *outs, int32_t *classes);

/* Most prices of an attention group over the whole range kept. */
#define LF__ATTN_PIECES 4096

/* The prices of the attention group of the n_members ops `members` over
 * [range_min, range_max] in the objective's figure, as pieces (need: the
 * piece's smallest buffer; f_d: its figure, INT64_MAX where no schedule
 * fits), a piece priced as the one before it merged into it, into pieces
 * (room for LF__ATTN_PIECES; *n 0 where there are more). tail, head: the
 * group's two sides where it is a pair joined at a cut op whose tail holds
 * attention (priced from them: lf_cost_join_attn_prices), else NULL (priced
 * whole). curve_attn.c */
lf_status lf__attn_range_prices(lf_cost_model *cm, const int32_t *members, int32_t n_members,
                                lf_cost_side *tail, lf_cost_side *head, int64_t range_min, int64_t range_max,
                                lf_cost_step *pieces, int32_t *n);

/* The steps of that group (first_need: the least need of its steps below
 * range_max) for the part [lo, hi] of the range, from its np pieces: what
 * lf_cost_steps_priced below hi then lf__steps_objective from lo
 * (curve_steps.h) give, into steps (LF_COST_MAX_STEPS), *n of them. */
lf_status lf__attn_part_steps(const lf_cost_model *cm, const lf_cost_step *pieces, int32_t np,
                              int64_t first_need, int64_t lo, int64_t hi, lf_cost_step *steps, int32_t *n);

/* Keeps c's points where its figure changes: drops each point whose
 * figure (dram_all) equals the point before's, with its plan. c's points
 * ascend by buffer. curve_canon.c */
void lf__curve_canon(lf_curve *c);

#endif
