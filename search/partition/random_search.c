/* Random search (RS, paper §IV-B): every plan is a fresh random genome.
 *
 * Each genome first draws its own fusion probability p uniformly, then fuses
 * every edge with probability p, so the search sees plans from almost
 * layer-by-layer (p near 0) to almost everything fused (p near 1, which the
 * splitter then cuts up) instead of only plans around p = 1/2. */
#include "search/partition/search_internal.h"

/* Plans decoded per parallel batch. Fixed, not tied to the thread count, so
 * that batch boundaries (and hence progress notes) are the same everywhere;
 * large enough to keep threads busy, small enough for a smooth progress bar. */
#define LF_RS_BATCH 64

lf_status lf__search_random(lf__search *s)
{
    lf__cand *batch = NULL;
    lf_status st = lf__cands_alloc(&batch, LF_RS_BATCH, s->n_ops, s->n_edges);
    while (st == LF_OK && s->proposed < s->cfg->budget) {
        int64_t left = s->cfg->budget - s->proposed;
        int32_t n = left < LF_RS_BATCH ? (int32_t)left : LF_RS_BATCH;
        st = lf__search_batch(s, n, lf__propose_random, NULL, batch);
    }
    lf__cands_free(batch, LF_RS_BATCH);
    return st;
}
