/* Where a waited reduction's rows are pinned again (tile_floor.c's slacks;
 * docs/search.md "Certified bounds", "A wait pinned by its own multiply").
 *
 * A reduction r that something spatial waits for scales its input by 0 in
 * the row engine (rows.c: it finishes only after the last input row), so a
 * tile floor that followed r alone would know nothing of how fast the map u
 * it reduces moves, and every op above u would keep a floor of 1. But r is
 * waited for only in a group that holds an op below r reading a spatial map
 * (rows.c's terminal rule), and the first such op on every path from r (its
 * `frontier`: reached from r through ops that read no spatial map) is then
 * in the group too, being convex. In a squeeze-and-excite block that op is
 * the multiply, which reads u itself: in every group where r waits, u moves
 * at least as fast as the multiply asks. PP-OCRv4 detection's neck has such
 * a block below every backbone op, which is why its 20 x 20 stage's 148 KB
 * convs kept floors of 1 inside the windows (docs/results/exact.md,
 * "2026-12-07, branch ocrneck"). */
#include "planner/cost/cost_internal.h"

int32_t lf__wait_frontier(const lf_graph *g, const lf__op_cost *oc, int32_t r, int32_t u, int32_t *out,
                          int32_t cap)
{
    /* A walk over the ops reading no spatial map below r; the stack lives
     * in `out` past the frontier found so far (cap entries in all). */
    int32_t n_front = 0, top = cap;
    const lf_op *rop = &g->ops[r];
    for (int32_t j = 0; j < rop->n_consumers; j++) {
        if (top <= n_front)
            return -1;
        out[--top] = rop->consumers[j];
    }
    while (top < cap) {
        int32_t c = out[top++];
        const lf_op *op = &g->ops[c];
        if (oc[c].global_in)
            return -1; /* read whole (attn.c): no rows asked */
        if (!oc[c].reads_spatial) {
            /* Where r does not wait these pass the rows on to r unscaled
             * (tile_floor.c takes its slack there as 0). */
            if (oc[c].kind != LF_ROWS_WINDOW && oc[c].kind != LF_ROWS_VIEW && oc[c].kind != LF_ROWS_REDUCTION)
                return -1;
            for (int32_t j = 0; j < op->n_consumers; j++) {
                if (top <= n_front)
                    return -1;
                out[--top] = op->consumers[j];
            }
            continue;
        }
        int reads_u = 0;
        for (int32_t j = 0; j < op->n_inputs && !reads_u; j++)
            reads_u = op->inputs[j] == u;
        /* A frontier op that does not read u pins nothing; a reduction
         * there may itself wait (no second level is followed). */
        if (!reads_u || oc[c].kind == LF_ROWS_REDUCTION)
            return -1;
        int seen = 0;
        for (int32_t k = 0; k < n_front && !seen; k++)
            seen = out[k] == c;
        if (seen)
            continue;
        if (top <= n_front)
            return -1;
        out[n_front++] = c;
    }
    return n_front;
}
