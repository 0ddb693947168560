/* A Transpose whose permutation moves more than four runs of axes (the
 * `rank-views` rewrite cannot merge it to rank 4: PixelShuffle written as a
 * rank-6 view with C > 1, DepthToSpace, SpaceToDepth) as a sequence of
 * block swaps, each a rank-4 Transpose [P, A, B, S] -> [P, B, A, S] of a
 * view: the output's runs are placed one after another, left to right, by
 * swapping the run that belongs at position p with the block of runs before
 * it (insertion sort; at most G - 1 swaps of G runs). Each swap moves the
 * whole tensor once, so G - 1 Transposes cost that many copies where one
 * rank-6 copy would do; the IR has no rank above 4 (docs/ir.md §1). */
#include <stdio.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_rewrite.h"

lf_status lf__ox_transpose_by_swaps(lf__ox_graph *g, int32_t i, const int64_t *size, const int64_t *gperm, int32_t G)
{
    int32_t cur[LF__OX_MAX_RANK], v = g->nodes[i].in[0], swaps = 0;
    for (int32_t q = 0; q < G; q++)
        cur[q] = q;
    char name[300];
    for (int32_t p = 0; p < G; p++) {
        int32_t q = p;
        while (q < G && cur[q] != gperm[p])
            q++;
        if (q == G)
            return lf__ox_fail(g, i, LF_EGRAPH, "perm is not a permutation");
        if (q == p)
            continue;
        int64_t d4[4] = {1, 1, size[cur[q]], 1}, t4[4], perm[4] = {0, 2, 1, 3};
        for (int32_t k = 0; k < p; k++)
            d4[0] *= size[cur[k]];
        for (int32_t k = p; k < q; k++)
            d4[1] *= size[cur[k]];
        for (int32_t k = q + 1; k < G; k++)
            d4[3] *= size[cur[k]];
        snprintf(name, sizeof name, "%.240s/swap%d_view", g->nodes[i].name, (int)swaps);
        int32_t w = lf__ox_rw_node(g, name, "Reshape", &v, 1, 4, d4);
        if (w < 0)
            return (lf_status)w;
        t4[0] = d4[0];
        t4[1] = d4[2];
        t4[2] = d4[1];
        t4[3] = d4[3];
        snprintf(name, sizeof name, "%.240s/swap%d", g->nodes[i].name, (int)swaps);
        if ((v = lf__ox_rw_node(g, name, "Transpose", &w, 1, 4, t4)) < 0)
            return (lf_status)v;
        lf_status st = lf__ox_rw_set_ints(g, &g->nodes[g->values[v].producer], "perm", perm, 4);
        if (st != LF_OK)
            return st;
        int32_t t = cur[q];
        memmove(&cur[p + 1], &cur[p], (size_t)(q - p) * sizeof *cur);
        cur[p] = t;
        swaps++;
    }
    /* the node becomes the view of the last swap with the file's output */
    lf_status st = lf__ox_rw_set_inputs(g, &g->nodes[i], &v, 1);
    if (st != LF_OK)
        return st;
    int32_t rank = g->values[g->nodes[i].out[0]].rank;
    g->nodes[i].op = "Reshape";
    g->nodes[i].n_attr = 0;
    lf__ox_note(g, LF_ONNX_RANK_VIEWS, i, "Transpose of rank %d moving %d runs of axes is %d rank-4 Transposes",
                (int)rank, (int)G, (int)swaps);
    return LF_OK;
}
