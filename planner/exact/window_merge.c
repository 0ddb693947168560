/* Where a grown window takes in the window after it (window_bound.c,
 * lf__win_grow). A window charges the tensors its ops write for each other
 * and for its ghosts, each window on its own; a ghost g of window W that
 * lies in the next window W' sits in W's relaxation beside its input's
 * producer and in W''s beside its own readers, one op in two groups. On
 * PP-OCRv4 detection at 256 KB (LBDF) the grown window 1-181 puts
 * `Conv.40` (182, a ghost) with group 5's ops 98-116 and `Conv.35` (172),
 * so 172's 67,200 B map is never cut, and 182-197 keeps 182 with the wait
 * on its own map, which no group can do beside 98-116 (`cost --group
 * 98-116,172,182` is 2,438 B over beta; 98-115,172,182 fits but cuts
 * 182's 153,600 B map): 134,016 B of the optimum's traffic that neither
 * window sees. The merged window 1-189 sees it (docs/results/exact.md,
 * "2026-12-07, branch ocr172").
 *
 * Merging decides which windows are solved, never what a part is charged:
 * any window bounds every plan (window_bound.c, the top of the file), so it
 * is as sound as the windows it replaces. */
#include "planner/exact/solve.h"

lf_status lf__window_merge_end(const lf_graph *g, const int64_t *bytes, const int64_t *cut_floor,
                               const int32_t *ops, int32_t n_ops, int32_t from, int32_t to, int32_t window_ops,
                               int32_t *end)
{
    *end = -1;
    if (to >= n_ops || from >= to)
        return LF_OK;
    lf_bitset u;
    lf_status st = lf_bitset_init(&u, g->n_ops);
    if (st != LF_OK)
        return st;
    for (int32_t i = from; i < to; i++)
        lf_bitset_set(&u, ops[i]);
    lf__window_ghosts(g, bytes, cut_floor, NULL, ops, from, to, &u, NULL);
    int32_t next = lf__window_end(g, bytes, ops, n_ops, to, window_ops);
    /* The window's own ops are below ops[to]: a bit set in the next window
     * is a ghost. */
    for (int32_t i = to; i < next && *end < 0; i++)
        if (lf_bitset_test(&u, ops[i]))
            *end = next;
    lf_bitset_destroy(&u);
    return LF_OK;
}
