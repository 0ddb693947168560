/* Parts of a staircase's range solved a pass ahead (curve_ahead.c), for
 * lf_curve_compute (curve_ranges.c): where a part's plans may ask for
 * cuts once it is solved (the rises of their other groups that price
 * above the DP's charge, lf__curve_plan_rises' hints), the parts those
 * cuts would make are solved in the part's own run, and kept until a later
 * pass asks for one of them. */
#ifndef LF_EXACT_CURVE_AHEAD_H
#define LF_EXACT_CURVE_AHEAD_H

#include <stdint.h>

#include "planner/cost/cost.h"
#include "planner/exact/curve.h"

/* Most hints of one part that are solved ahead: k hints make k (k + 1) / 2
 * parts. */
#define LF__AHEAD_HINTS 4

/* A part solved ahead: [lo, hi] and its staircase. */
typedef struct lf__ahead_part {
    int64_t lo, hi;
    lf_curve curve;
} lf__ahead_part;

typedef struct lf__ahead {
    lf__ahead_part *p;
    int32_t n, cap;
} lf__ahead;

/* Moves the staircase of part [lo, hi], where it was solved ahead, into
 * out (1), else 0. */
int lf__ahead_take(lf__ahead *a, int64_t lo, int64_t hi, lf_curve *out);

/* Frees the parts solved ahead that no pass asked for. */
void lf__ahead_free(lf__ahead *a);

/* Solves the n parts of `bounds` (as lf__curve_run's; at most
 * LF__CURVE_PARTS) into outs, with part k's hints (hints[k *
 * LF__AHEAD_HINTS ..], n_hints[k] of them, ascending inside the part)
 * making parts solved ahead in the same run, kept in a. *solved 0:
 * nothing solved (no hint, no room, or the parts cannot share one run:
 * the caller solves the parts as ever). */
lf_status lf__ahead_solve(const lf_graph *g, const lf_hw *hw, const char *scheme, const int64_t *bounds,
                          const int64_t *hints, const int32_t *n_hints, int32_t n, const lf_exact_config *cfg,
                          lf_steps_store *keep, int64_t range_min, int64_t range_max, lf__ahead *a,
                          lf_curve *outs, int *solved);

#endif
