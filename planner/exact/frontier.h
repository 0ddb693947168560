/* The exact DP's frontier bound (frontier.c): a certified lower bound on
 * the optimum that a run stopped at a limit still proves. Not a public
 * header. */
#ifndef LF_EXACT_FRONTIER_H
#define LF_EXACT_FRONTIER_H

#include "planner/exact/downsets.h"

/* Sets x->front up for x's universe (the whole graph: lf_exact_plan). */
lf_status lf__frontier_create(lf__exact *x);
void lf__frontier_free(lf__exact *x);

/* The current state offers a tail of cut op c (cut_join.c). */
void lf__frontier_tail(lf__exact *x, int32_t c);

/* Every state of size <= s is expanded: records that boundary's bound. */
void lf__frontier_boundary(lf__exact *x, int32_t s);

/* The reached state that set the last boundary's bound (-1: none). */
int32_t lf__frontier_best_state(const lf__exact *x);

/* The largest bound over the boundaries passed (0: none, or no frontier). */
int64_t lf__frontier_lower(const lf__exact *x);

#endif
