/* What a part's group pays for reading its squeeze-and-excite maps again,
 * every wait at once (window_bound.c, lf__win_wait_rereads; docs/search.md
 * "Certified bounds", "Every wait read again").
 *
 * The cost model prices a group's waits one way for all of them (model.c,
 * lf__eval_waits): every map read on both sides of a wait kept resident,
 * or every one read again, which adds each such tensor's bytes to F_D, and
 * twice those of a tensor the group makes and sends nowhere else (it must
 * be written to be read again: rows.c, lf__wait_reread_bytes). A part S of
 * a group G holding a wait's reduction r and its reader m (wait_pairs.c)
 * holds the path between them, so the map p is read on both sides of that
 * wait in G. Counting only the maps internal to the window (the windows
 * charge no other tensor here), each once: p in S with every reader in S
 * (so in G, and p no output of G) adds 2|p|, which no part's charge counts
 * (they count writes and reads between parts); otherwise |p| (G's read of
 * an input, or its write of an output, is counted by the parts already, its
 * second read is not). PP-OCRv4 detection's neck at 256 KB under BRR holds
 * parts with two waits of 38,400 and 153,600 B maps, where the charge of
 * the largest map once gave 153,600 B and this gives 384,000 B. */
#include "planner/exact/solve.h"

int64_t lf__neck_again(const lf__exact *x, const lf__wait_pairs *pairs, const uint8_t *internal,
                       const uint8_t *ghost, const int64_t *bytes, int32_t *held, int32_t *n_held)
{
    int64_t again = 0;
    *n_held = 0;
    for (int32_t i = 0; i < pairs->n; i++) {
        int32_t r = pairs->r[i], m = pairs->m[i], p = pairs->map[i];
        if (!x->in_s[r] || !x->in_s[m] || ghost[r] || ghost[m])
            continue;
        int seen = 0;
        for (int32_t k = 0; k < *n_held && !seen; k++)
            seen = held[k] == p;
        if (seen)
            continue;
        held[(*n_held)++] = p;
        if (!internal[p])
            continue;
        const lf_op *op = &x->g->ops[p];
        int all_in = x->in_s[p];
        for (int32_t j = 0; j < op->n_consumers && all_in; j++)
            all_in = x->in_s[op->consumers[j]];
        again += (all_in ? 2 : 1) * bytes[p];
    }
    return again;
}
