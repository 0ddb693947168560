/* A plan from an exact run stopped at a limit (complete.c). Not a public
 * header. */
#ifndef LF_EXACT_COMPLETE_H
#define LF_EXACT_COMPLETE_H

#include "planner/exact/downsets.h"

/* The reached state that set the frontier's last bound, its groups as the
 * DP reached it and the ops after it solved exactly within `seconds` (0:
 * x's limits). LF_OK with *out initialised and its DRAM in *dram; an error
 * (nothing to free) when there is no such state or the rest is past the
 * limits. */
lf_status lf__exact_complete(lf__exact *x, double seconds, lf_plan *out, int64_t *dram);

#endif
