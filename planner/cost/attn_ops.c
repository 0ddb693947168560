/* The attention structure of a graph, found once per cost model (DESIGN §16,
 * docs/cost-models.md "Attention"): which operands of a product of two
 * activations are read whole (global-window operands), which reshapes and
 * transposes only move a head split between axes (zero-copy views of token
 * rows), which tensors are score or probability maps (one head's row at a
 * time), and which score chains carry a causal mask. It adjusts the per-op
 * constants that the row-window engine and the schemes read; a graph without
 * such a product (every CNN) keeps them as they were. */
#include "planner/cost/cost_internal.h"

static int lf__same_shape(const lf_shape *a, const lf_shape *b)
{
    return a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w;
}

/* An op that maps row r of its one activation input to row r of its output
 * and nothing else (scale, mask, activation): kind WINDOW, one row. */
static int lf__rowwise(const lf_cost_model *cm, int32_t v)
{
    const lf__op_cost *c = &cm->ops[v];
    return c->kind == LF_ROWS_WINDOW && c->k == 1 && c->stride == 1 && c->pad == 0 && !c->global_in;
}

/* Tokens on C: h counts tokens and a row is one token's H x W block. */
static void lf__tokens_on_c(lf__op_cost *c, const lf_op *op, int64_t act)
{
    c->tok_c = 1;
    c->h = op->out.c;
    c->row_bytes = op->out.h * op->out.w * act;
}

/* Head splits and merges: [B, 1, T, D] <-> [B, T, h, dh] reshapes and the
 * C <-> H transpose (perm 0, 2, 1, 3). Output row r of that transpose is
 * input channel r, so with tokens on either axis it is a view of token rows;
 * an op other than a row-wise one that reads tokens on C needs them all. */
static void lf__token_views(lf_cost_model *cm, int32_t v)
{
    const lf_graph *g = cm->g;
    const lf_op *op = &g->ops[v];
    lf__op_cost *c = &cm->ops[v];
    int64_t act = cm->hw.act_bytes;
    if (op->n_inputs < 1)
        return;
    const lf_op *in = &g->ops[op->inputs[0]];
    const lf__op_cost *ic = &cm->ops[op->inputs[0]];
    if (op->type == LF_OP_RESHAPE && op->n_inputs == 1) {
        if (!ic->tok_c && in->out.c == 1 && in->out.h > 1 && op->out.c == in->out.h &&
            op->out.h * op->out.w == in->out.w && op->out.n == in->out.n) {
            c->kind = LF_ROWS_VIEW;
            c->layout = 1;
            lf__tokens_on_c(c, op, act);
            return;
        }
        if (ic->tok_c && op->out.c == 1 && op->out.h == in->out.c && in->out.h * in->out.w == op->out.w) {
            c->kind = LF_ROWS_VIEW;
            c->layout = 1;
            return;
        }
    }
    if (op->type == LF_OP_TRANSPOSE && op->attr.perm[0] == LF_DIM_N && op->attr.perm[1] == LF_DIM_H &&
        op->attr.perm[2] == LF_DIM_C && op->attr.perm[3] == LF_DIM_W) {
        c->kind = LF_ROWS_VIEW;
        c->layout = 1;
        if (!ic->tok_c)
            lf__tokens_on_c(c, op, act);
        return;
    }
    if (op->type == LF_OP_TRANSPOSE || op->type == LF_OP_RESHAPE || op->type == LF_OP_SLICE ||
        op->type == LF_OP_FLATTEN || op->type == LF_OP_IDENTITY)
        c->layout = 1;
    int any = 0, all = 1;
    for (int32_t j = 0; j < op->n_inputs; j++) {
        int t = cm->ops[op->inputs[j]].tok_c;
        any |= t;
        all &= t && lf__same_shape(&g->ops[op->inputs[j]].out, &op->out);
    }
    if (!any)
        return;
    if (all && lf__rowwise(cm, v))
        lf__tokens_on_c(c, op, act);
    else
        c->kind = LF_ROWS_FULL;
}

/* A product of two activations: A streams by its rows when it is not
 * transposed and holds the output's rows; B (and a transposed A) is read
 * whole by every row. */
static void lf__global_product(lf_cost_model *cm, int32_t v)
{
    const lf_graph *g = cm->g;
    const lf_op *op = &g->ops[v];
    if (op->type != LF_OP_MATMUL || op->n_inputs != 2)
        return;
    lf__op_cost *c = &cm->ops[v];
    int32_t a = op->inputs[0];
    int a_rows = !op->attr.trans_a && !cm->ops[a].tok_c && cm->ops[a].h == c->h;
    c->kind = LF_ROWS_WINDOW;
    c->k = 1;
    c->stride = 1;
    c->pad = 0;
    c->global_in = (uint8_t)(a_rows ? 2 : 3);
    c->heads = (int32_t)(op->out.n * op->out.c);
}

/* A constant of the scores' shape whose entries are 0 where key j <= query i
 * (shifted by the keys before the first query) and very negative elsewhere
 * is a causal mask (torch exports add one; the built-in decoders set the
 * Softmax's causal attribute instead). A shape-only constant of that shape counts as one: in
 * the built-in decoders that is what it is (docs/cost-models.md). */
static int lf__causal_const(const lf_const *k, int64_t tq, int64_t tk)
{
    if (k->shape.h != tq || k->shape.w != tk || tq < 2)
        return 0;
    if (!k->data)
        return 1;
    int64_t planes = k->shape.n * k->shape.c, off = tk > tq ? tk - tq : 0;
    for (int64_t p = 0; p < planes; p++)
        for (int64_t i = 0; i < tq; i++)
            for (int64_t j = 0; j < tk; j++) {
                float x = k->data[(p * tq + i) * tk + j];
                if (j <= i + off ? x != 0.0f : !(x <= -1e4f))
                    return 0;
            }
    return 1;
}

/* Walks back from a Softmax over W through row-wise ops to the product that
 * made the scores; marks the chain, and a causal mask on it. */
static void lf__score_chain(lf_cost_model *cm, int32_t s)
{
    const lf_graph *g = cm->g;
    const lf_op *sop = &g->ops[s];
    if (sop->type != LF_OP_SOFTMAX || sop->attr.axes != LF_AXES(LF_DIM_W) || sop->n_inputs != 1)
        return;
    int32_t chain[64], n = 0, u = sop->inputs[0];
    chain[n++] = s;
    while (!cm->ops[u].global_in) {
        const lf_op *op = &g->ops[u];
        if (n == 64 || op->n_inputs != 1 || !lf__rowwise(cm, u) || !lf__same_shape(&op->out, &sop->out))
            return;
        chain[n++] = u;
        u = op->inputs[0];
    }
    if (!lf__same_shape(&g->ops[u].out, &sop->out))
        return;
    /* The Softmax's own attribute (the built-in decoders), or a mask
     * constant added on the way (torch exports). */
    int32_t causal = sop->attr.causal > 0 ? sop->attr.causal : 0;
    cm->ops[u].score = 1;
    for (int32_t i = 0; i < n; i++) {
        int32_t v = chain[i];
        const lf_op *op = &g->ops[v];
        cm->ops[v].score = 1;
        if (op->type != LF_OP_ADD)
            continue;
        for (int32_t k = 0; k < op->n_operands; k++) {
            const lf_const *kc = lf_op_const(g, v, k);
            if (kc && lf__causal_const(kc, op->out.h, op->out.w)) {
                /* Generated on chip from the indices, never read. */
                cm->ops[v].weight_bytes = 0;
                cm->ops[v].wblk = 0;
                cm->ops[v].stream_bytes = 0;
                causal = 1;
            }
        }
    }
    if (!causal)
        return;
    cm->ops[u].causal = causal;
    for (int32_t k = 0; k < sop->n_consumers; k++) {
        const lf_op *pv = &g->ops[sop->consumers[k]];
        if (cm->ops[sop->consumers[k]].global_in && pv->inputs[0] == s)
            cm->ops[sop->consumers[k]].causal = causal;
    }
}

void lf__attn_analyze(lf_cost_model *cm)
{
    const lf_graph *g = cm->g;
    int64_t heads = 0;
    for (int32_t v = 0; v < g->n_ops; v++) {
        if (g->ops[v].type == LF_OP_INPUT)
            continue;
        lf__token_views(cm, v);
        lf__global_product(cm, v);
        if (cm->ops[v].heads > heads)
            heads = cm->ops[v].heads;
        cm->has_attn |= cm->ops[v].global_in != 0;
    }
    for (int32_t v = 0; v < g->n_ops && heads > 0; v++)
        lf__score_chain(cm, v);
    for (int32_t v = 0; v < g->n_ops; v++) {
        lf__op_cost *c = &cm->ops[v];
        if (c->score) /* one head's row in flight */
            c->row_bytes = g->ops[v].out.w * cm->hw.act_bytes;
        /* Online softmax holds a score tile of any width; a group that runs
         * its heads one after another holds 1/heads of every row. */
        c->row_floor = c->score ? 0 : heads > 1 ? c->row_bytes / heads : c->row_bytes;
    }
}
