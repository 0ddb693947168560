/* The per-state estimate of the exact DP (togo.c): a floor of what every
 * plan still pays after a downset. Not a public header. */
#ifndef LF_EXACT_TOGO_H
#define LF_EXACT_TOGO_H

#include <stdint.h>

#include "planner/cost/cost.h"
#include "planner/exact/exact.h"

typedef struct lf__togo lf__togo;

/* Solves windows of about window_ops consecutive compute ops of cm's graph
 * forward and backward within `seconds` (0: no limit; windows past their
 * share are left out, their tensors keep their forced-cut floors). *out is
 * NULL after an error. */
lf_status lf__togo_create(lf_cost_model *cm, int32_t window_ops, double seconds, lf__togo **out);
void lf__togo_free(lf__togo *t);

/* h(D) for the downset D of compute ops given as words over the graph's ops
 * (lf_bitset words): no plan whose chain of downsets passes D pays less
 * after D (fusable ops' DRAM, as lf_plan_metrics' dram_fusable). */
int64_t lf__togo_h(const lf__togo *t, const uint64_t *words);

/* Windows, windows solved, and the bytes the structure holds. */
void lf__togo_stats(const lf__togo *t, int32_t *windows, int32_t *solved, int64_t *bytes);

#endif
