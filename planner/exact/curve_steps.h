/* A group's steps in the objective's figure for the staircase (curve.c):
 * under energy and latency each step priced at its own buffer; under DRAM
 * the steps stand as lf_cost_steps gives them. */
#ifndef LF_EXACT_CURVE_STEPS_H
#define LF_EXACT_CURVE_STEPS_H

#include <stdint.h>

#include "planner/cost/cost.h"

/* Each step's figure into its f_d (INT64_MAX where it is no price in
 * [lo, ...)), from at[k] where the step walk priced it, else
 * lf_cost_eval_at; op >= 0: op alone, whose steps below fb1 (its F_beta
 * alone) are unfusable charges. Stops at the first step priced as an
 * attention group (*attn_at; n where none), leaving the rest INT64_MAX. */
lf_status lf__step_figures(lf_cost_model *cm, const int32_t *members, int32_t n_members, int32_t op,
                           int64_t fb1, int64_t lo, lf_cost_step *steps, const lf_group_cost *at, int32_t n,
                           int32_t *attn_at);
/* The steps kept as a staircase from lo on (their number, in place). */
int32_t lf__step_keep(lf_cost_step *steps, int32_t n, int64_t lo);
/* Both, and an attention group priced at every buffer of [lo, hi]: the
 * group's steps in the objective's figure (*n updated; unchanged under
 * DRAM). */
lf_status lf__steps_objective(lf_cost_model *cm, const int32_t *members, int32_t n_members, int32_t op,
                              int64_t fb1, int64_t lo, int64_t hi, lf_cost_step *steps, const lf_group_cost *at,
                              int32_t *n);
/* A group of several ops that holds a product of two activations
 * (lf_cost_group_attn) in the objective's figure: lf__steps_objective's
 * answer whatever its DRAM steps, which it does not read. Each step of
 * such a group but the last is replaced below lo (a later one needs less
 * than lo) and dropped, and the first left is priced as an attention group,
 * at every buffer of [lo, hi]; it has steps below hi exactly where it has
 * a schedule that needs less than hi, as the pricing sees. */
lf_status lf__steps_attention_group(lf_cost_model *cm, const int32_t *members, int32_t n_members, int64_t lo,
                                    int64_t hi, lf_cost_step *steps, int32_t *n);

#endif
