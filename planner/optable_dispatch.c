/* The op table's entry points: each looks the op type up in the table
 * (optable.c) and calls the family function the entry names (optable_shapes.c,
 * optable_cost.c). Kept apart from the families so that the table can name
 * them while they never call back into it. */
#include <stdio.h>

#include "planner/optable_internal.h"

/* ---- shapes and implied constants ---------------------------------------- */

int32_t lf_op_implied_consts(lf_op_type t, const lf_attrs *a, const lf_shape *act, int32_t n_act,
                             lf_shape shapes[4], const char *suffixes[4])
{
    const lf_op_info *info = lf_op_info_of(t);
    if (n_act < 1 || !info || !info->implied_consts)
        return 0;
    return info->implied_consts(a, &act[0], shapes, suffixes);
}

/* Checks the given weight operands (positions 1..n_in-1) against the shapes
 * the attributes imply. */
static lf_status lf__check_weights(lf_op_type t, const lf_attrs *a, const lf_shape *in,
                                   int32_t n_in, char *err, size_t errlen)
{
    if (n_in <= 1)
        return LF_OK;
    if (t == LF_OP_BATCHNORM && n_in == 5) {
        /* ONNX's form: scale, B, mean and var, one per channel */
        for (int32_t k = 1; k < 5; k++)
            if (!lf__same(&in[k], &(lf_shape){1, in[0].c, 1, 1}))
                return lf__fail(err, errlen, "BatchNorm parameter %d is not 1x%lldx1x1", (int)k,
                                (long long)in[0].c);
        return LF_OK;
    }
    lf_shape want[4];
    const char *suffix[4];
    int32_t n = lf_op_implied_consts(t, a, in, 1, want, suffix);
    /* An op with a bias operand but no bias attribute still has a bias. */
    if (n_in - 1 == n + 1 && (t == LF_OP_CONV || t == LF_OP_CONVTRANSPOSE || t == LF_OP_GEMM)) {
        want[n] = (lf_shape){1, a->out_channels, 1, 1};
        suffix[n++] = "bias";
    } else if (n_in - 1 == n + 1 && t == LF_OP_LAYERNORM) {
        want[n] = want[0];
        suffix[n++] = "bias";
    }
    if (n_in - 1 != n)
        return lf__fail(err, errlen, "%d weight operands given, the attributes imply %d",
                        (int)(n_in - 1), (int)n);
    /* The norms' scale and bias broadcast to X (ONNX's unidirectional
     * broadcast: a scale of [1] or [1, D], or one per row): the implied
     * shape is only what a graph without them gets. */
    int norm = t == LF_OP_LAYERNORM || t == LF_OP_RMSNORM;
    for (int32_t k = 0; k < n; k++)
        if (norm ? !lf__broadcasts_to(&in[k + 1], &in[0]) : !lf__same(&in[k + 1], &want[k])) {
            char got[80], exp[80];
            lf__shape_str(&in[k + 1], got, sizeof got);
            lf__shape_str(norm ? &in[0] : &want[k], exp, sizeof exp);
            if (norm)
                return lf__fail(err, errlen, "%s operand is %s, which does not broadcast to the input %s",
                                suffix[k], got, exp);
            return lf__fail(err, errlen, "%s operand is %s, expected %s", suffix[k], got, exp);
        }
    return LF_OK;
}

lf_status lf_op_infer(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                      lf_shape *out, char *err, size_t errlen)
{
    const lf_op_info *info = lf_op_info_of(t);
    if (!info) {
        snprintf(err, errlen, "unknown op type %d", (int)t);
        return LF_EUNSUPPORTED;
    }
    /* Weight operands may be left off (implied by the attributes). */
    int32_t min = info->weight_operands ? 1 : info->min_operands;
    if (n_in < min || n_in > info->max_operands) {
        snprintf(err, errlen, "%s takes %d to %d operands, got %d", info->name, (int)min,
                 (int)info->max_operands, (int)n_in);
        return LF_EGRAPH;
    }
    for (int32_t i = 0; i < n_in; i++)
        if (in[i].n <= 0 || in[i].c <= 0 || in[i].h <= 0 || in[i].w <= 0)
            return lf__fail(err, errlen, "operand %d has an empty shape", (int)i);
    lf_status st = LF_OK;
    if (info->infer)
        st = info->infer(t, a, in, n_in, out, err, errlen);
    else
        *out = in[0]; /* element-wise ops, Softmax, the norms: the input's shape */
    if (st == LF_OK && info->weight_operands)
        st = lf__check_weights(t, a, in, n_in, err, errlen);
    return st;
}

/* ---- properties, weights, MACs, FLOPs and rows ------------------------------------------------ */

int64_t lf_op_param_extra(lf_op_type t, const lf_attrs *a, const lf_shape *out)
{
    const lf_op_info *info = lf_op_info_of(t);
    return info && info->param_extra ? info->param_extra(a, out) : 0;
}

void lf_op_weights(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                   const lf_shape *out, int64_t *weight_elems, int64_t *param_count)
{
    lf_shape shapes[4];
    const char *suffixes[4];
    int32_t n = lf_op_implied_consts(t, a, in, n_in, shapes, suffixes);
    int64_t w = 0;
    for (int32_t k = 0; k < n; k++)
        w += shapes[k].n * shapes[k].c * shapes[k].h * shapes[k].w;
    *weight_elems = w;
    *param_count = w + lf_op_param_extra(t, a, out);
}

int64_t lf_op_macs(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                   const lf_shape *out)
{
    const lf_op_info *info = lf_op_info_of(t);
    return info && info->macs ? info->macs(a, in, n_in, out) : 0;
}

lf_row_kind lf_op_row_kind(const lf_graph *g, int32_t v)
{
    const lf_op *op = &g->ops[v];
    const lf_op_info *info = lf_op_info_of(op->type);
    return info->row_kind ? info->row_kind(g, op) : info->rows;
}

void lf_op_row_window(const lf_op *op, int32_t *k, int32_t *stride, int32_t *pad_top)
{
    const lf_op_info *info = lf_op_info_of(op->type);
    if (info->row_window) {
        info->row_window(op, k, stride, pad_top);
        return;
    }
    *k = 1;
    *stride = 1;
    *pad_top = 0;
}

int lf_op_has(lf_op_type t, uint32_t flags)
{
    const lf_op_info *info = lf_op_info_of(t);
    return info && (info->flags & flags) == flags;
}

double lf_op_flops(const lf_op *op)
{
    double out = (double)op->out.n * (double)op->out.c * (double)op->out.h * (double)op->out.w;
    if (op->macs > 0)
        return 2.0 * (double)op->macs + (op->attr.act != LF_ACT_NONE ? out : 0.0);
    const lf_op_info *info = lf_op_info_of(op->type);
    return info && info->flops ? info->flops(op) : out;
}

int64_t lf_op_weight_block(const lf_graph *g, int32_t v)
{
    const lf_op *op = &g->ops[v];
    const lf_op_info *info = lf_op_info_of(op->type);
    if (info->weight_block)
        return info->weight_block(g, op);
    /* Other ops with constants (a bias Add, a layer-scale Mul): a per-channel
     * constant splits by output channel, anything else is needed whole. */
    int64_t blk = 0;
    for (int32_t k = 0; k < op->n_operands; k++) {
        if (op->operands[k].kind != LF_OPND_CONST)
            continue;
        const lf_const *c = &g->consts[op->operands[k].id];
        int64_t e = lf_const_elems(c);
        blk += c->shape.c == op->out.c && op->out.c > 1 ? e / op->out.c : e;
    }
    return blk;
}
