/* Where a window of the windows' bound ends (window_bound.c, togo.c,
 * window_merge.c): the cut past which its ops' tensors are least read. */
#include "planner/exact/solve.h"

/* Where the window starting at ops[from] ends: at most window_ops ops, at
 * least half of that, at the end past which the fewest bytes its ops write
 * are still to be read (ties: the longest). A window charges only what its
 * ops write for each other (and for its ghosts), so an end inside a NasNet
 * cell, with a dozen tensors of the cell still to be read, gives most of
 * them away; an end after the cell's concat only the cell's two outputs. */
int32_t lf__window_end(const lf_graph *g, const int64_t *bytes_of, const int32_t *ops, int32_t n_ops,
                       int32_t from, int32_t window_ops)
{
    if (n_ops - from <= window_ops)
        return n_ops;
    int32_t best = from + window_ops;
    int64_t best_bytes = INT64_MAX;
    for (int32_t to = from + window_ops; to >= from + (window_ops + 1) / 2; to--) {
        int32_t limit = ops[to]; /* ops at or past this id are not in the window */
        int64_t bytes = 0;
        for (int32_t i = from; i < to; i++) {
            const lf_op *op = &g->ops[ops[i]];
            for (int32_t j = 0; j < op->n_consumers; j++)
                if (op->consumers[j] >= limit) {
                    bytes += bytes_of[ops[i]];
                    break;
                }
        }
        if (bytes < best_bytes) {
            best_bytes = bytes;
            best = to;
        }
    }
    return best;
}
