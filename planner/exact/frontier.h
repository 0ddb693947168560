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

/* A complete plan from a stopped run (frontier.c): the reached state that
 * set the last boundary's bound, its groups as the DP reached it and the
 * ops after it solved exactly within `seconds` (0: cfg's limits). LF_OK with
 * *out initialised and its DRAM in *dram; an error (nothing to free) when
 * there is no such state or the rest is past the limits. */
lf_status lf__frontier_complete(lf__exact *x, double seconds, lf_plan *out, int64_t *dram);

/* The largest bound over the boundaries passed (0: none, or no frontier). */
int64_t lf__frontier_lower(const lf__exact *x);

#endif
