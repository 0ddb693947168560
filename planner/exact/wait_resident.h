/* A squeeze-and-excite map kept resident in the sinks' first snapshot, with
 * a lookahead bound per part (wait_resident.c). Internal to planner/exact. */
#ifndef LF_EXACT_WAIT_RESIDENT_H
#define LF_EXACT_WAIT_RESIDENT_H

#include <stdint.h>

#include "planner/exact/downsets.h"

typedef struct lf__wait_resident {
    int64_t *la;      /* per op: how many rows it may run ahead of the sinks in any group */
    int64_t *la_part; /* scratch: the same within the set being grown */
    int32_t *seen, *rows_seen, stamp;
    /* the two-sided floor's case: members ov_op at rows [ov_lo, ov_hi] */
    int32_t ov_op[8], n_ov;
    int64_t ov_lo[8], ov_hi[8];
    int64_t *lb; /* scratch: the least row of a member in a case */
    int32_t *lb_seen;
    int nonneg; /* no member's row below 0 (the two-sided floor's row-0 case) */
} lf__wait_resident;

lf_status lf__wait_resident_init(lf__wait_resident *w, const lf_graph *g);
void lf__wait_resident_destroy(lf__wait_resident *w);

/* A floor of F_beta at the sinks' first snapshot of every group G with
 * G n U = x's set that holds the wait (r, m) on map p and keeps p resident;
 * 0 where it proves nothing. */
int64_t lf__wait_resident_floor(lf__wait_resident *w, const lf__exact *x, int32_t p, int32_t r);

#endif
