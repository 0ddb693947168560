/* Nodes of fusionplan's own ONNX export that spell part of one IR op
 * (docs/exports.md): ONNX's MatMul has no transpose flags and its Softmax no
 * causal mask, so the writer (onnx_write_ops.c) spells
 *
 *   MatMul(trans_b)   as Transpose(B, last two axes) -> MatMul
 *   Softmax(causal g) as Add(S, mask) -> Softmax, the mask 0 where row h
 *                     (query token h mod H/g) sees key j, -inf elsewhere
 *
 * and marks the helper node with metadata fusionplan.ir_part ("trans_a",
 * "trans_b", "causal:g"). Other tools compute the same values from the
 * plain nodes; the importer folds each marked node back into its reader
 * here, after the rewrites and before lowering (a Transpose of a constant
 * was folded into a new constant by then: its input is still there), so
 * the file re-imports to the IR graph it was written from, hash included.
 * A marked node that is not what its mark says is one error naming it. */
#include <math.h>
#include <string.h>

#include "planner/io/onnx_internal.h"
#include "planner/io/onnx_rewrite.h"

/* perm of a Transpose swaps the last two axes of a rank-r tensor. */
static int lf__swaps_last_two(const lf__ox_node *n, int32_t r)
{
    const lf__ox_attr *p = lf__ox_attr_get(n, "perm");
    if (r < 2)
        return 0;
    if (!p)
        return r == 2; /* no perm: reversed */
    if (p->n != r)
        return 0;
    for (int32_t k = 0; k < r; k++) {
        int64_t want = k == r - 2 ? r - 1 : k == r - 1 ? r - 2 : k;
        if (p->ints[k] != want)
            return 0;
    }
    return 1;
}

/* The mask of causal stacks g over scores whose last two axes are [H, W]:
 * rank 2 [H, W], 0 where j <= h mod (H / g) + W - H / g, -inf (or below
 * -1e30) elsewhere. */
static int lf__is_causal_mask(const lf__ox_value *m, int64_t h, int64_t w, int32_t g)
{
    if (!m->is_const || !m->data.f || m->data.rank != 2 || m->data.dims[0] != h || m->data.dims[1] != w ||
        h % g != 0 || w < h / g)
        return 0;
    int64_t nq = h / g;
    for (int64_t r = 0; r < h; r++)
        for (int64_t j = 0; j < w; j++) {
            float x = m->data.f[r * w + j];
            if (j <= r % nq + w - nq ? x != 0.0f : !(x < -1e30f))
                return 0;
        }
    return 1;
}

lf_status lf__ox_ir_parts(lf__ox_graph *g)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        lf__ox_node *n = &g->nodes[i];
        if (n->ir_part == LF__OX_PART_NONE)
            continue;
        int32_t y = n->n_out > 0 ? n->out[0] : -1, x = n->n_in > 0 ? n->in[0] : -1;
        int32_t r = y >= 0 && x >= 0 ? lf__ox_rw_sole_reader(g, y) : -1;
        lf__ox_node *rd = r >= 0 ? &g->nodes[r] : NULL;
        if (n->ir_part == LF__OX_PART_TRANS_A || n->ir_part == LF__OX_PART_TRANS_B) {
            int32_t k = n->ir_part == LF__OX_PART_TRANS_A ? 0 : 1;
            if (strcmp(n->op, "Transpose") != 0 || !lf__swaps_last_two(n, g->values[x].rank) || !rd ||
                !lf__ox_rw_is(rd, "MatMul") || rd->n_in != 2 || rd->in[k] != y || rd->in[1 - k] == y)
                return lf__ox_fail(g, i, LF_EPARSE,
                                   "metadata fusionplan.ir_part: not a Transpose of the last two axes read "
                                   "once, as operand %c, by a MatMul",
                                   k ? 'B' : 'A');
            rd->in[k] = x;
            if (k)
                rd->ir_trans_b = 1;
            else
                rd->ir_trans_a = 1;
        } else {
            int32_t cg = n->ir_part - LF__OX_PART_CAUSAL;
            const lf__ox_value *s = x >= 0 ? &g->values[x] : NULL;
            if (strcmp(n->op, "Add") != 0 || n->n_in != 2 || !rd || !lf__ox_rw_is(rd, "Softmax") || s->rank < 2 ||
                (lf__ox_attr_int(rd, "axis", -1) != -1 && lf__ox_attr_int(rd, "axis", -1) != s->rank - 1) ||
                !lf__is_causal_mask(&g->values[n->in[1]], s->dims[s->rank - 2], s->dims[s->rank - 1], cg))
                return lf__ox_fail(g, i, LF_EPARSE,
                                   "metadata fusionplan.ir_part: not an Add of a causal mask of %d stacks read "
                                   "once by a Softmax over the last axis",
                                   (int)cg);
            rd->in[0] = x;
            rd->ir_causal = cg;
        }
        g->values[y].n_uses = 0;
        n->dead = 1;
    }
    return LF_OK;
}
