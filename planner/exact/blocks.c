/* Cut ops of the exact planners' universe: the ops that every other op is
 * either above or below (the output concat of an Inception module, the
 * residual add between two ResNet stages, every op of a chain). They split
 * the downset lattice into blocks, and that structure is what the planners
 * use (DESIGN §7, docs/search.md "Blocks"):
 *
 * - A downset that lacks a cut op c lies wholly above c (c's descendants
 *   need c), and one that holds c holds everything above it. So the states
 *   are the states of one block after another, never a product of blocks,
 *   and from a state no op past the next missing cut op can be ready: the
 *   enumeration of candidate groups stops there (downsets.c).
 * - A group may still span a cut (it must then hold c, everything of the
 *   block above that its state has not placed, and a downset of what follows
 *   c): groups that span are priced whole, exactly as any other group, so
 *   nothing is lost. The DP over downsets is the DP over blocks that allows
 *   spanning groups.
 * - When c's output is also the only tensor read across c (an articulation
 *   op, bounds.c), splitting a spanning group at c costs at most |t_c| twice
 *   (written once more and read once more) under the DRAM formula with one
 *   weight read: the certified lower bound of bounds.c rests on that. */
#include <stdlib.h>

#include "planner/exact/downsets.h"

int32_t lf__dp_cut_ops(const lf_graph *g, const uint8_t *in_u, uint8_t *is_cut)
{
    int32_t n = g->n_ops, nw = LF_BITSET_WORDS(n), n_u = 0, cuts = 0;
    /* anc: the ancestors of each op within U (paths through U only, the
     * relation readiness follows); desc: how many ops of U lie below it. */
    uint64_t *anc = calloc((size_t)n * (size_t)nw, 8);
    int32_t *desc = calloc((size_t)n + 1, sizeof *desc);
    if (!anc || !desc) {
        free(anc);
        free(desc);
        return -1;
    }
    for (int32_t v = 0; v < n; v++) {
        is_cut[v] = 0;
        if (!in_u[v])
            continue;
        n_u++;
        uint64_t *a = anc + (size_t)v * nw;
        const lf_op *op = &g->ops[v];
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t p = op->inputs[j];
            if (!in_u[p])
                continue;
            const uint64_t *ap = anc + (size_t)p * nw;
            for (int32_t i = 0; i < nw; i++)
                a[i] |= ap[i];
            a[p >> 6] |= (uint64_t)1 << (p & 63);
        }
    }
    int32_t *n_anc = calloc((size_t)n + 1, sizeof *n_anc);
    if (!n_anc) {
        free(anc);
        free(desc);
        return -1;
    }
    for (int32_t v = 0; v < n; v++) {
        if (!in_u[v])
            continue;
        const uint64_t *a = anc + (size_t)v * nw;
        for (int32_t i = 0; i < nw; i++)
            for (uint64_t w = a[i]; w; w &= w - 1) {
                desc[i * 64 + __builtin_ctzll(w)]++;
                n_anc[v]++;
            }
    }
    for (int32_t v = 0; v < n; v++)
        if (in_u[v] && n_anc[v] + desc[v] + 1 == n_u) {
            is_cut[v] = 1;
            cuts++;
        }
    free(anc);
    free(desc);
    free(n_anc);
    return cuts;
}
