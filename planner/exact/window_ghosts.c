/* The readers past a window solved with it (its "ghosts"), chosen for both
 * the windows' bound (window_bound.c) and their join at the boundaries
 * (window_join.c). */
#include "planner/exact/solve.h"

/* Readers outside a window solved with it: NasNet-A at 256 KB, windows of
 * 24 ops, LBDF: 0 ghosts 50.1 MB, 2-4 59.1, 6-8 59.7. */
#define LF__WIN_GHOSTS 6

/* Readers outside window ops[from..to) solved with it, so that a tensor
 * the window writes for them is charged like one inside it (it is internal
 * once all its readers are in): adds them to u and returns how many. A
 * window of consecutive ops sees nothing of what its last tensors cost, and
 * a NasNet cell's output read by the next two cells is most of its traffic.
 *
 * Sound as any universe is (window_bound.c, the top of the file: the parts of a valid plan
 * over the window and its ghosts are admitted, and charge what the plan pays
 * for the window's internal tensors), with two cares: a ghost's weights are
 * its own window's, so re-reads count only the window's ops
 * (lf__win_rereads); and only tensors whose forced-cut floor is 0 take
 * ghosts, since the relaxation may put a reader that can never share a group
 * with the producer beside it and charge the tensor less than its floor.
 * The largest tensors first, at most LF__WIN_GHOSTS readers: each ghost can
 * double the window's states.
 *
 * Then, with room left, the readers of tensors whose floor is not 0 but
 * whose fusable readers include two that no valid group holds together
 * (apart, from lf__cut_tensor_floors_apart; NULL: none): there a part
 * writing the tensor for readers apart pays a read per reader
 * (window_reads.c), more than the floor when the group could hold one
 * reader only by giving up other ops, and the window's value stays at
 * least its internal tensors' floors (window_bound.c), so the floor is
 * never lost. NasNet-A at 256 KB under LBDF: the concat of stage 0's
 * normal3 (no ghosts before: its floor is a write and a read) now brings
 * normal4's squeeze conv and the reduction's fit conv. Six of its tensors
 * have readers apart (none under BRR, where weights stream), none of
 * PP-OCRv4 detection's or RandWire's. */
int32_t lf__window_ghosts(const lf_graph *g, const int64_t *bytes, const int64_t *cut_floor, const uint8_t *apart,
                          const int32_t *ops, int32_t from, int32_t to, lf_bitset *u, int32_t *list)
{
    int32_t n_ghosts = 0;
    for (int phase = 0; phase < 2;) {
        int32_t best = -1;
        int64_t best_bytes = 0;
        for (int32_t i = from; i < to; i++) {
            int32_t p = ops[i];
            const lf_op *op = &g->ops[p];
            if (op->is_output || op->n_consumers == 0)
                continue;
            if (phase == 0 ? cut_floor[p] != 0 : cut_floor[p] == 0 || !apart || !apart[p])
                continue;
            int32_t fresh = 0;
            for (int32_t j = 0; j < op->n_consumers; j++) {
                int32_t c = op->consumers[j], dup = 0;
                for (int32_t k = 0; k < j; k++)
                    dup |= op->consumers[k] == c;
                fresh += !dup && !lf_bitset_test(u, c);
            }
            if (fresh > 0 && n_ghosts + fresh <= LF__WIN_GHOSTS && bytes[p] > best_bytes) {
                best = p;
                best_bytes = bytes[p];
            }
        }
        if (best < 0) {
            phase++;
            continue;
        }
        const lf_op *op = &g->ops[best];
        for (int32_t j = 0; j < op->n_consumers; j++) {
            int32_t c = op->consumers[j];
            if (lf_bitset_test(u, c))
                continue;
            lf_bitset_set(u, c);
            if (list)
                list[n_ghosts] = c;
            n_ghosts++;
        }
    }
    return n_ghosts;
}
