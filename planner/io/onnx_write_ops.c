/* The nodes of one IR op (onnx_write.c's per-op lowering, the inverse of
 * onnx_lower_ops.c): convolutions and pools with their windows, Gemm and
 * folded BatchNorm, activations, element-wise, reductions, views and the
 * rest; an op type with no ONNX form is LF_EUNSUPPORTED naming the op. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_write_state.h"
#include "planner/optable.h"

/* ONNX axis of IR dim d in a rank-r tensor. */
static int64_t lf__ow_axis(int32_t d, int32_t r) { return r == 2 ? (d > 1 ? -1 : d) : d; }

/* The single dim of an axes mask (0 means channels), or -1. */
static int32_t lf__ow_single_dim(int32_t mask)
{
    if (mask == 0)
        return LF_DIM_C;
    for (int32_t d = 0; d < 4; d++)
        if (mask == LF_AXES(d))
            return d;
    return -1;
}

static lf_status lf__ow_window(lf__ow *w, Onnx__NodeProto *n, const lf_attrs *a, int conv, int pool_dil)
{
    int64_t k[2] = {a->kh ? a->kh : 1, a->kw ? a->kw : 1}, s[2] = {a->sh ? a->sh : 1, a->sw ? a->sw : 1};
    int64_t d[2] = {a->dh ? a->dh : 1, a->dw ? a->dw : 1};
    int64_t p[4] = {a->pad_top, a->pad_left, a->pad_bottom, a->pad_right};
    lf_status st;
    if ((st = lf__ow_ints(w, n, "kernel_shape", k, 2)) != LF_OK || (st = lf__ow_ints(w, n, "strides", s, 2)) != LF_OK ||
        (st = lf__ow_ints(w, n, "pads", p, 4)) != LF_OK)
        return st;
    if ((conv || (pool_dil && (d[0] != 1 || d[1] != 1))) && (st = lf__ow_ints(w, n, "dilations", d, 2)) != LF_OK)
        return st;
    /* The fields the IR left 0 ("means 1"), for the importer to restore. */
    char zero[64] = "";
    const struct {
        const char *name;
        int32_t v;
    } f[] = {{"kh", a->kh}, {"kw", a->kw}, {"sh", a->sh}, {"sw", a->sw}, {"dh", a->dh}, {"dw", a->dw},
             {"groups", a->groups}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].v == 0 && (conv || i < 6)) {
            if (zero[0])
                strcat(zero, ",");
            strcat(zero, f[i].name);
        }
    if (zero[0]) {
        lf__ox_prop pr = {"fusionplan.ir_zero", lf_arena_strdup(&w->arena, zero)};
        if (!pr.value)
            return lf__ow_oom();
        return lf__ox_node_meta_add(&w->arena, n, &pr, 1);
    }
    return LF_OK;
}

/* Marks a node the importer's rewrites must leave alone (a Concat feeding a
 * Concat is two IR ops; an Identity is an op). */
static lf_status lf__ow_keep(lf__ow *w, Onnx__NodeProto *n)
{
    lf__ox_prop pr = {"fusionplan.ir_keep", "1"};
    return lf__ox_node_meta_add(&w->arena, n, &pr, 1);
}

/* The fused activation of a Conv/Gemm (optimized graphs) as its own node. */
static const char *lf__ow_act_node(lf__ow *w, int32_t v, lf_act act, const char *x, const char *out)
{
    const char *nm = w->g->ops[v].name;
    char want[400];
    snprintf(want, sizeof want, "%.300s/act", nm);
    const char *name = lf__ow_unique(w, want);
    if (!name)
        return NULL;
    Onnx__NodeProto *n = NULL;
    const char *in[3] = {x, NULL, NULL};
    switch (act) {
    case LF_ACT_RELU: n = lf__ow_node(w, name, "Relu", in, 1, out); break;
    case LF_ACT_SIGMOID: n = lf__ow_node(w, name, "Sigmoid", in, 1, out); break;
    case LF_ACT_HARDSWISH: n = lf__ow_node(w, name, "HardSwish", in, 1, out); break;
    case LF_ACT_HARDSIGMOID:
        if ((n = lf__ow_node(w, name, "HardSigmoid", in, 1, out)) &&
            (lf__ow_float(w, n, "alpha", 1.0f / 6) != LF_OK || lf__ow_float(w, n, "beta", 0.5f) != LF_OK))
            n = NULL;
        break;
    case LF_ACT_RELU6:
        in[1] = lf__ow_scalar(w, name, "min", 0.0f);
        in[2] = lf__ow_scalar(w, name, "max", 6.0f);
        n = in[1] && in[2] ? lf__ow_node(w, name, "Clip", in, 3, out) : NULL;
        break;
    case LF_ACT_SILU: {
        char sw[400];
        snprintf(sw, sizeof sw, "%.300s/sigmoid", name);
        const char *sg = lf__ow_unique(w, sw);
        in[1] = sg;
        n = sg && lf__ow_node(w, sg, "Sigmoid", in, 1, sg) ? lf__ow_node(w, name, "Mul", in, 2, out) : NULL;
        break;
    }
    default:
        break;
    }
    return n ? out : NULL;
}

/* Conv / ConvTranspose / Gemm with bias, folded BatchNorm and activation. */
static lf_status lf__ow_linear(lf__ow *w, int32_t v, const char *x)
{
    const lf_op *op = &w->g->ops[v];
    const lf_attrs *a = &op->attr;
    int gemm = op->type == LF_OP_GEMM, ct = op->type == LF_OP_CONVTRANSPOSE;
    int32_t oc = a->out_channels;
    const lf_const *wc = lf_op_const(w->g, v, op->n_inputs);
    if (!wc)
        return lf__ow_fail(w, v, "its weight is not a constant");
    const char *wt;
    if (gemm) {
        int64_t d[2] = {wc->shape.n, wc->shape.c};
        wt = lf__ow_const(w, v, op->n_inputs, d, 2);
    } else {
        int64_t d[4] = {wc->shape.n, wc->shape.c, wc->shape.h, wc->shape.w};
        wt = lf__ow_const(w, v, op->n_inputs, d, 4);
    }
    const lf_const *bc = op->n_operands > op->n_inputs + 1 ? lf_op_const(w->g, v, op->n_inputs + 1) : NULL;
    const char *bias = NULL;
    if (bc) {
        int64_t d[1] = {lf_const_elems(bc)};
        bias = lf__ow_const(w, v, op->n_inputs + 1, d, 1);
        if (!bias)
            return lf__ow_oom();
    }
    if (!wt)
        return lf__ow_oom();
    int bn = a->folded_bn && bc, act = a->act != LF_ACT_NONE;
    /* Node chain: linear [-> BatchNormalization] [-> activation]; the last
     * one writes the op's tensor. */
    const char *out = w->tensor[v], *lin_out = out, *bn_out = out;
    char want[400];
    if (bn || act) {
        snprintf(want, sizeof want, "%.300s/%s", op->name, gemm ? "gemm" : "conv");
        if (!(lin_out = lf__ow_unique(w, want)))
            return lf__ow_oom();
    }
    if (bn && act) {
        snprintf(want, sizeof want, "%.300s/bn", op->name);
        if (!(bn_out = lf__ow_unique(w, want)))
            return lf__ow_oom();
    }
    const char *in[3] = {x, wt, bn ? NULL : bias};
    Onnx__NodeProto *n = lf__ow_node(w, op->name, gemm ? "Gemm" : ct ? "ConvTranspose" : "Conv", in,
                                     in[2] ? 3 : 2, lin_out);
    if (!n)
        return lf__ow_oom();
    lf_status st;
    if (gemm) {
        if ((st = lf__ow_int(w, n, "transB", 1)) != LF_OK)
            return st;
    } else {
        if ((st = lf__ow_window(w, n, a, 1, 0)) != LF_OK || (st = lf__ow_int(w, n, "group", a->groups ? a->groups : 1)) != LF_OK)
            return st;
        if (ct && (a->out_pad_h || a->out_pad_w)) {
            int64_t opad[2] = {a->out_pad_h, a->out_pad_w};
            if ((st = lf__ow_ints(w, n, "output_padding", opad, 2)) != LF_OK)
                return st;
        }
    }
    if (bn) {
        /* gamma 1, beta the bias, mean 0, var 1, epsilon 0: the fold gives
         * back the weights and the bias bit for bit. */
        float *ones = lf_arena_alloc(&w->arena, (size_t)oc * sizeof *ones);
        float *zeros = lf_arena_alloc(&w->arena, (size_t)oc * sizeof *zeros);
        if (!ones || !zeros)
            return lf__ow_oom();
        for (int32_t k = 0; k < oc; k++)
            ones[k] = 1.0f;
        int64_t d[1] = {oc};
        snprintf(want, sizeof want, "%.300s/bn", op->name);
        const char *bname = lf__ow_unique(w, want);
        char pw[400];
        snprintf(pw, sizeof pw, "%.300s.gamma", bname ? bname : "");
        const char *gm = bname ? lf__ow_init(w, pw, d, 1, ones, NULL, oc) : NULL;
        snprintf(pw, sizeof pw, "%.300s.mean", bname ? bname : "");
        const char *mn = gm ? lf__ow_init(w, pw, d, 1, zeros, NULL, oc) : NULL;
        snprintf(pw, sizeof pw, "%.300s.var", bname ? bname : "");
        const char *vr = mn ? lf__ow_init(w, pw, d, 1, ones, NULL, oc) : NULL;
        const char *bin[5] = {lin_out, gm, bias, mn, vr};
        Onnx__NodeProto *b = vr ? lf__ow_node(w, bname, "BatchNormalization", bin, 5, bn_out) : NULL;
        if (!b || (st = lf__ow_float(w, b, "epsilon", 0.0f)) != LF_OK)
            return b ? st : lf__ow_oom();
    } else {
        bn_out = lin_out;
    }
    if (act && !lf__ow_act_node(w, v, a->act, bn_out, out))
        return a->act >= LF_ACT_COUNT ? lf__ow_fail(w, v, "unknown activation") : lf__ow_oom();
    return LF_OK;
}

static const char *lf__ow_simple_name(lf_op_type t)
{
    switch (t) {
    case LF_OP_RELU: return "Relu";
    case LF_OP_SIGMOID: return "Sigmoid";
    case LF_OP_HARDSWISH: return "HardSwish";
    case LF_OP_IDENTITY: return "Identity";
    case LF_OP_SQRT: return "Sqrt";
    case LF_OP_EXP: return "Exp";
    case LF_OP_ERF: return "Erf";
    case LF_OP_TANH: return "Tanh";
    case LF_OP_NEG: return "Neg";
    case LF_OP_LOG: return "Log";
    case LF_OP_ABS: return "Abs";
    case LF_OP_RECIPROCAL: return "Reciprocal";
    case LF_OP_FLOOR: return "Floor";
    case LF_OP_CEIL: return "Ceil";
    case LF_OP_SOFTPLUS: return "Softplus";
    case LF_OP_GLOBALAVGPOOL: return "GlobalAveragePool";
    case LF_OP_GLOBALMAXPOOL: return "GlobalMaxPool";
    case LF_OP_ADD: return "Add";
    case LF_OP_MUL: return "Mul";
    case LF_OP_SUB: return "Sub";
    case LF_OP_DIV: return "Div";
    case LF_OP_POW: return "Pow";
    case LF_OP_MAX: return "Max";
    case LF_OP_MIN: return "Min";
    case LF_OP_PRELU: return "PRelu";
    default: return NULL;
    }
}

static const char *lf__ow_reduce_name(lf_op_type t)
{
    switch (t) {
    case LF_OP_REDUCEMEAN: return "ReduceMean";
    case LF_OP_REDUCESUM: return "ReduceSum";
    case LF_OP_REDUCEMAX: return "ReduceMax";
    case LF_OP_REDUCEMIN: return "ReduceMin";
    case LF_OP_REDUCEPROD: return "ReduceProd";
    case LF_OP_REDUCESUMSQUARE: return "ReduceSumSquare";
    case LF_OP_REDUCEL2: return "ReduceL2";
    default: return NULL;
    }
}

/* Operands of op v in order: activations as rank-r tensors, constants in
 * the rank-r frame. */
static lf_status lf__ow_operands(lf__ow *w, int32_t v, int32_t r, const char **in, int32_t *n_in)
{
    const lf_op *op = &w->g->ops[v];
    if (op->n_operands > LF__OW_MAX_IN)
        return lf__ow_fail(w, v, "too many operands");
    for (int32_t k = 0; k < op->n_operands; k++) {
        const lf_operand *o = &op->operands[k];
        in[k] = o->kind == LF_OPND_TENSOR ? lf__ow_act(w, v, o->id, r) : lf__ow_const_frame(w, v, k, r);
        if (!in[k])
            return lf__ow_oom();
    }
    *n_in = op->n_operands;
    return LF_OK;
}

/* Marks a helper node that spells part of its reader's IR op
 * (onnx_ir_parts.c folds it back on import). */
static lf_status lf__ow_part(lf__ow *w, Onnx__NodeProto *n, const char *part)
{
    lf__ox_prop pr = {"fusionplan.ir_part", lf_arena_strdup(&w->arena, part)};
    return pr.value ? lf__ox_node_meta_add(&w->arena, n, &pr, 1) : lf__ow_oom();
}

/* MatMul: operands of rank 4 (a constant [1, 1, K, M] as the matrix [K, M]
 * that torch writes), a trans_a / trans_b operand through a Transpose of
 * its last two axes marked fusionplan.ir_part. */
static lf_status lf__ow_matmul(lf__ow *w, int32_t v)
{
    const lf_op *op = &w->g->ops[v];
    const char *in[2];
    for (int32_t k = 0; k < 2; k++) {
        if (op->n_operands != 2)
            return lf__ow_fail(w, v, "not two operands");
        const lf_operand *o = &op->operands[k];
        int trans = k ? op->attr.trans_b : op->attr.trans_a;
        int32_t r = 4;
        if (o->kind == LF_OPND_TENSOR) {
            in[k] = lf__ow_act(w, v, o->id, 4);
        } else {
            const lf_const *c = lf_op_const(w->g, v, k);
            if (!c)
                return lf__ow_oom();
            int64_t d[4] = {c->shape.n, c->shape.c, c->shape.h, c->shape.w};
            r = c->shape.n == 1 && c->shape.c == 1 ? 2 : 4;
            in[k] = lf__ow_const(w, v, k, d + 4 - r, r);
        }
        if (!in[k])
            return lf__ow_oom();
        if (trans) {
            char want[400];
            snprintf(want, sizeof want, "%.300s/%s", op->name, k ? "trans_b" : "trans_a");
            const char *t = lf__ow_unique(w, want);
            int64_t perm[4] = {0, 1, 3, 2};
            Onnx__NodeProto *n;
            lf_status st;
            if (!t || !(n = lf__ow_node(w, t, "Transpose", &in[k], 1, t)))
                return lf__ow_oom();
            if ((st = lf__ow_ints(w, n, "perm", r == 2 ? (int64_t[]){1, 0} : perm, r)) != LF_OK ||
                (st = lf__ow_part(w, n, k ? "trans_b" : "trans_a")) != LF_OK)
                return st;
            in[k] = t;
        }
    }
    return lf__ow_node(w, op->name, "MatMul", in, 2, w->tensor[v]) ? LF_OK : lf__ow_oom();
}

/* A one-input op named `name` of type t. */
static const char *lf__ow_unary(lf__ow *w, const char *name, const char *t, const char *x)
{
    const char *nm = lf__ow_unique(w, name);
    return nm && lf__ow_node(w, nm, t, &x, 1, nm) ? nm : NULL;
}

/* A two-input op: x `t` (scalar s), named from the op and suffix. */
static const char *lf__ow_with_scalar(lf__ow *w, int32_t v, const char *suffix, const char *t, const char *x,
                                      float s, const char *out)
{
    const char *opn = w->g->ops[v].name;
    char want[400];
    snprintf(want, sizeof want, "%.300s/%s", opn, suffix);
    const char *nm = out ? opn : lf__ow_unique(w, want);
    const char *in[2] = {x, lf__ow_scalar(w, nm ? nm : opn, suffix, s)};
    if (!nm || !in[1])
        return NULL;
    return lf__ow_node(w, nm, t, in, 2, out ? out : nm) ? (out ? out : nm) : NULL;
}

/* Gelu, which ONNX has from opset 20 only, written out as torch writes it
 * below that (the importer's `gelu` rewrite makes it one Gelu again, named
 * like the last Mul, which is the op's name):
 *   erf:  0.5 * (x * (1 + Erf(x / sqrt 2)))
 *   tanh: 0.5 * (x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))) */
static lf_status lf__ow_gelu(lf__ow *w, int32_t v)
{
    const lf_op *op = &w->g->ops[v];
    const char *x = lf__ow_act(w, v, op->inputs[0], w->rank[v]), *f;
    char want[400];
    if (!x)
        return lf__ow_oom();
    if (op->attr.approximate) {
        const char *cube = lf__ow_with_scalar(w, v, "pow", "Pow", x, 3.0f, NULL);
        const char *sc = cube ? lf__ow_with_scalar(w, v, "cube_scale", "Mul", cube, 0.044715f, NULL) : NULL;
        snprintf(want, sizeof want, "%.300s/inner", op->name);
        const char *nm = sc ? lf__ow_unique(w, want) : NULL, *in[2] = {x, sc};
        const char *sum = nm && lf__ow_node(w, nm, "Add", in, 2, nm) ? nm : NULL;
        const char *k = sum ? lf__ow_with_scalar(w, v, "scale", "Mul", sum, 0.7978845608028654f, NULL) : NULL;
        snprintf(want, sizeof want, "%.300s/tanh", op->name);
        f = k ? lf__ow_unary(w, want, "Tanh", k) : NULL;
    } else {
        const char *d = lf__ow_with_scalar(w, v, "div", "Div", x, 1.4142135623730951f, NULL);
        snprintf(want, sizeof want, "%.300s/erf", op->name);
        f = d ? lf__ow_unary(w, want, "Erf", d) : NULL;
    }
    const char *one = f ? lf__ow_with_scalar(w, v, "one_plus", "Add", f, 1.0f, NULL) : NULL;
    snprintf(want, sizeof want, "%.300s/times_x", op->name);
    const char *nm = one ? lf__ow_unique(w, want) : NULL, *in[2] = {x, one};
    const char *prod = nm && lf__ow_node(w, nm, "Mul", in, 2, nm) ? nm : NULL;
    return prod && lf__ow_with_scalar(w, v, "half", "Mul", prod, 0.5f, w->tensor[v]) ? LF_OK : lf__ow_oom();
}

/* A norm's scale or bias (operand k) for an X written at rank 4 normalised
 * from dim lo: the normalised dims [lo, 4) as ONNX's own exports write
 * them (broadcast dims of 1 included), or all four where it varies over a
 * dim before lo (one scale per row, which ONNX broadcasts as well). */
static const char *lf__ow_norm_param(lf__ow *w, int32_t v, int32_t k, int32_t lo)
{
    const lf_const *c = lf_op_const(w->g, v, k);
    int64_t all[4] = {c->shape.n, c->shape.c, c->shape.h, c->shape.w};
    int32_t from = lo;
    for (int32_t d = 0; d < lo; d++)
        if (all[d] != 1)
            from = 0;
    return lf__ow_const(w, v, k, all + from, 4 - from);
}

/* RMSNorm, which ONNX has from opset 23 only, written out as torch writes
 * Llama's below that (the importer's `rmsnorm` rewrite makes it one
 * RMSNormalization again under the op's name, the last Mul's):
 *   Mul(x / Sqrt(ReduceMean(x * x) + epsilon), scale)
 * over the trailing dims from `lo`; epsilon 0 ("means 1e-5") is written
 * 1e-5 and marked fusionplan.ir_zero on the last Mul. */
static lf_status lf__ow_rmsnorm(lf__ow *w, int32_t v, int32_t lo)
{
    const lf_op *op = &w->g->ops[v];
    const lf_attrs *a = &op->attr;
    const char *x = lf__ow_act(w, v, op->inputs[0], 4), *scale = NULL;
    char want[400];
    if (op->n_operands > 1) {
        if (!lf_op_const(w->g, v, 1))
            return lf__ow_fail(w, v, "the scale is not a constant");
        if (!(scale = lf__ow_norm_param(w, v, 1, lo)))
            return lf__ow_oom();
    }
    snprintf(want, sizeof want, "%.300s/square", op->name);
    const char *sq = x ? lf__ow_unique(w, want) : NULL, *in[2] = {x, x};
    if (!sq || !lf__ow_node(w, sq, "Mul", in, 2, sq))
        return lf__ow_oom();
    snprintf(want, sizeof want, "%.300s/mean", op->name);
    const char *ms = lf__ow_unique(w, want);
    Onnx__NodeProto *n = ms ? lf__ow_node(w, ms, "ReduceMean", &sq, 1, ms) : NULL;
    int64_t axes[4];
    int32_t cnt = 0;
    for (int32_t d = lo; d < 4; d++)
        axes[cnt++] = d;
    lf_status st;
    if (!n)
        return lf__ow_oom();
    if ((st = lf__ow_ints(w, n, "axes", axes, cnt)) != LF_OK || (st = lf__ow_int(w, n, "keepdims", 1)) != LF_OK)
        return st;
    const char *pe = lf__ow_with_scalar(w, v, "add_epsilon", "Add", ms, a->epsilon != 0.0f ? a->epsilon : 1e-5f, NULL);
    snprintf(want, sizeof want, "%.300s/sqrt", op->name);
    const char *rt = pe ? lf__ow_unary(w, want, "Sqrt", pe) : NULL;
    if (!rt)
        return lf__ow_oom();
    w->reduced[0] = ms, w->reduced[1] = pe, w->reduced[2] = rt;
    w->n_reduced = 3;
    w->reduced_mask = (int32_t)(LF_AXES(4) - LF_AXES(lo));
    snprintf(want, sizeof want, "%.300s/normalize", op->name);
    const char *nm = scale ? lf__ow_unique(w, want) : w->tensor[v];
    in[1] = rt;
    if (!nm || !(n = lf__ow_node(w, scale ? nm : op->name, "Div", in, 2, nm)))
        return lf__ow_oom();
    if (scale) {
        const char *min[2] = {nm, scale};
        if (!(n = lf__ow_node(w, op->name, "Mul", min, 2, w->tensor[v])))
            return lf__ow_oom();
    }
    if (a->epsilon == 0.0f) {
        lf__ox_prop pr = {"fusionplan.ir_zero", "epsilon"};
        return lf__ox_node_meta_add(&w->arena, n, &pr, 1);
    }
    return LF_OK;
}

/* The causal mask of Softmax op v (lf_attrs.causal = g stacks of Nq = H / g
 * query rows over W keys): [H, W], 0 where row h (token h mod Nq) sees key
 * j <= h mod Nq + W - Nq, -inf elsewhere; one initializer per shape. */
static const char *lf__ow_causal_mask(lf__ow *w, int32_t v)
{
    const lf_op *op = &w->g->ops[v];
    int64_t h = op->out.h, wd = op->out.w, g = op->attr.causal, nq = h / g;
    char want[160];
    snprintf(want, sizeof want, "causal_mask_%lldx%lldx%lld", (long long)g, (long long)nq, (long long)wd);
    void *x;
    if (lf_strmap_get(&w->names, want, &x))
        return lf_arena_strdup(&w->arena, want); /* written for an earlier Softmax */
    float *m = lf_arena_alloc(&w->arena, (size_t)(h * wd) * sizeof *m);
    if (!m)
        return NULL;
    for (int64_t r = 0; r < h; r++)
        for (int64_t j = 0; j < wd; j++)
            m[r * wd + j] = j <= r % nq + wd - nq ? 0.0f : -INFINITY;
    int64_t dims[2] = {h, wd};
    return lf__ow_init(w, want, dims, 2, m, NULL, h * wd);
}

lf_status lf__ow_op(lf__ow *w, int32_t v)
{
    const lf_op *op = &w->g->ops[v];
    const lf_attrs *a = &op->attr;
    int32_t r = w->rank[v];
    const char *in[LF__OW_MAX_IN + 2];
    int32_t n_in = 0;
    const char *out = w->tensor[v];
    Onnx__NodeProto *n = NULL;
    lf_status st = LF_OK;
    const char *simple = lf__ow_simple_name(op->type), *reduce = lf__ow_reduce_name(op->type);
    if (simple) {
        if ((st = lf__ow_operands(w, v, r, in, &n_in)) != LF_OK)
            return st;
        if (!(n = lf__ow_node(w, op->name, simple, in, n_in, out)))
            return lf__ow_oom();
        return op->type == LF_OP_IDENTITY ? lf__ow_keep(w, n) : LF_OK;
    }
    if (reduce) {
        if ((st = lf__ow_operands(w, v, r, in, &n_in)) != LF_OK)
            return st;
        int64_t axes[4];
        int32_t cnt = 0;
        int32_t mask = a->axes ? a->axes : LF_AXES(LF_DIM_C);
        for (int32_t d = 0; d < 4; d++)
            if (mask & LF_AXES(d))
                axes[cnt++] = lf__ow_axis(d, r);
        if (op->type == LF_OP_REDUCESUM) { /* axes an input from opset 13 */
            if (!(in[n_in++] = lf__ow_ints_init(w, op->name, "axes", axes, cnt)))
                return lf__ow_oom();
            n = lf__ow_node(w, op->name, reduce, in, n_in, out);
        } else if ((n = lf__ow_node(w, op->name, reduce, in, n_in, out)) != NULL) {
            st = lf__ow_ints(w, n, "axes", axes, cnt);
        }
        return !n ? lf__ow_oom() : st != LF_OK ? st : lf__ow_int(w, n, "keepdims", 1);
    }
    switch (op->type) {
    case LF_OP_CONV:
    case LF_OP_CONVTRANSPOSE:
        return lf__ow_linear(w, v, lf__ow_act(w, v, op->inputs[0], 4));
    case LF_OP_GEMM:
        return lf__ow_linear(w, v, lf__ow_act(w, v, op->inputs[0], 2));
    case LF_OP_SILU: {
        char want[400];
        snprintf(want, sizeof want, "%.300s/sigmoid", op->name);
        const char *sg = lf__ow_unique(w, want), *x = lf__ow_act(w, v, op->inputs[0], r);
        const char *sin[2] = {x, sg};
        if (!sg || !x || !lf__ow_node(w, sg, "Sigmoid", sin, 1, sg) || !lf__ow_node(w, op->name, "Mul", sin, 2, out))
            return lf__ow_oom();
        return LF_OK;
    }
    case LF_OP_HARDSIGMOID:
    case LF_OP_LEAKYRELU:
    case LF_OP_ELU: {
        const char *x = lf__ow_act(w, v, op->inputs[0], r);
        const char *t = op->type == LF_OP_HARDSIGMOID ? "HardSigmoid" : op->type == LF_OP_LEAKYRELU ? "LeakyRelu" : "Elu";
        if (!x || !(n = lf__ow_node(w, op->name, t, &x, 1, out)))
            return lf__ow_oom();
        if (op->type == LF_OP_HARDSIGMOID) {
            int torch = a->alpha == 0.0f;
            if ((st = lf__ow_float(w, n, "alpha", torch ? 1.0f / 6 : a->alpha)) != LF_OK)
                return st;
            return lf__ow_float(w, n, "beta", torch ? 0.5f : a->beta);
        }
        return lf__ow_float(w, n, "alpha", a->alpha != 0.0f ? a->alpha : op->type == LF_OP_LEAKYRELU ? 0.01f : 1.0f);
    }
    case LF_OP_CLIP: {
        in[0] = lf__ow_act(w, v, op->inputs[0], r);
        in[1] = lf__ow_scalar(w, op->name, "min", a->clip_min);
        in[2] = lf__ow_scalar(w, op->name, "max", a->clip_max);
        return in[0] && in[1] && in[2] && lf__ow_node(w, op->name, "Clip", in, 3, out) ? LF_OK : lf__ow_oom();
    }
    case LF_OP_BATCHNORM: {
        if ((st = lf__ow_operands(w, v, r, in, &n_in)) != LF_OK)
            return st;
        if (n_in == 3) {
            /* x * scale + shift: BatchNormalization with mean 0, var 1, epsilon 0 */
            int64_t c = op->out.c, d[1] = {c};
            float *ones = lf_arena_alloc(&w->arena, (size_t)c * sizeof *ones);
            float *zeros = lf_arena_alloc(&w->arena, (size_t)c * sizeof *zeros);
            const lf_const *sc, *sh;
            const float *sv = lf__ow_values(w, v, 1, &sc), *hv = lf__ow_values(w, v, 2, &sh);
            if (!ones || !zeros || !sv || !hv)
                return lf__ow_oom();
            for (int64_t k = 0; k < c; k++)
                ones[k] = 1.0f;
            /* the constants again, as vectors */
            char want[400];
            snprintf(want, sizeof want, "%.300s.bn_scale", op->name);
            in[1] = lf__ow_init(w, want, d, 1, sv, NULL, c);
            snprintf(want, sizeof want, "%.300s.bn_shift", op->name);
            in[2] = lf__ow_init(w, want, d, 1, hv, NULL, c);
            snprintf(want, sizeof want, "%.300s.bn_mean", op->name);
            in[3] = lf__ow_init(w, want, d, 1, zeros, NULL, c);
            snprintf(want, sizeof want, "%.300s.bn_var", op->name);
            in[4] = lf__ow_init(w, want, d, 1, ones, NULL, c);
            n_in = 5;
            if (!in[1] || !in[2] || !in[3] || !in[4])
                return lf__ow_oom();
        }
        if (!(n = lf__ow_node(w, op->name, "BatchNormalization", in, n_in, out)))
            return lf__ow_oom();
        return lf__ow_float(w, n, "epsilon", n_in == 5 && op->n_operands == 3 ? 0.0f : a->epsilon ? a->epsilon : 1e-5f);
    }
    case LF_OP_CONCAT: {
        int32_t d = lf__ow_single_dim(a->axes);
        if (d < 0)
            return lf__ow_fail(w, v, "axes other than one dim");
        if ((st = lf__ow_operands(w, v, r, in, &n_in)) != LF_OK)
            return st;
        if (!(n = lf__ow_node(w, op->name, "Concat", in, n_in, out)) || lf__ow_keep(w, n) != LF_OK)
            return lf__ow_oom();
        return lf__ow_int(w, n, "axis", lf__ow_axis(d, r));
    }
    case LF_OP_SLICE: {
        int32_t d = lf__ow_single_dim(a->axes);
        if (d < 0)
            return lf__ow_fail(w, v, "axes other than one dim");
        int64_t s = a->slice_begin, e = a->slice_end, ax = d, st1 = a->slice_step ? a->slice_step : 1;
        in[0] = lf__ow_act(w, v, op->inputs[0], 4);
        in[1] = lf__ow_ints_init(w, op->name, "starts", &s, 1);
        in[2] = lf__ow_ints_init(w, op->name, "ends", &e, 1);
        in[3] = lf__ow_ints_init(w, op->name, "axes", &ax, 1);
        in[4] = lf__ow_ints_init(w, op->name, "steps", &st1, 1);
        for (int k = 0; k < 5; k++)
            if (!in[k])
                return lf__ow_oom();
        return lf__ow_node(w, op->name, "Slice", in, 5, out) ? LF_OK : lf__ow_oom();
    }
    case LF_OP_MAXPOOL:
    case LF_OP_AVGPOOL: {
        const char *x = lf__ow_act(w, v, op->inputs[0], 4);
        if (!x || !(n = lf__ow_node(w, op->name, op->type == LF_OP_MAXPOOL ? "MaxPool" : "AveragePool", &x, 1, out)))
            return lf__ow_oom();
        if (op->type == LF_OP_AVGPOOL && ((a->dh && a->dh != 1) || (a->dw && a->dw != 1)))
            return lf__ow_fail(w, v, "a dilated AveragePool (opset 19)");
        if ((st = lf__ow_window(w, n, a, 0, op->type == LF_OP_MAXPOOL)) != LF_OK)
            return st;
        if (a->ceil_mode && (st = lf__ow_int(w, n, "ceil_mode", 1)) != LF_OK)
            return st;
        if (op->type == LF_OP_AVGPOOL && a->count_include_pad)
            return lf__ow_int(w, n, "count_include_pad", 1);
        return LF_OK;
    }
    case LF_OP_PAD: {
        int64_t p[8] = {0, 0, a->pad_top, a->pad_left, 0, 0, a->pad_bottom, a->pad_right};
        in[0] = lf__ow_act(w, v, op->inputs[0], 4);
        in[1] = lf__ow_ints_init(w, op->name, "pads", p, 8);
        in[2] = lf__ow_scalar(w, op->name, "value", a->pad_value);
        if (!in[0] || !in[1] || !in[2] || !(n = lf__ow_node(w, op->name, "Pad", in, 3, out)))
            return lf__ow_oom();
        return lf__ow_str(w, n, "mode", a->pad_mode == LF_PAD_REFLECT ? "reflect" : a->pad_mode == LF_PAD_EDGE ? "edge" : "constant");
    }
    case LF_OP_RESIZE: {
        static const char *coords[] = {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
                                       "tf_half_pixel_for_nn"};
        static const char *nearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
        int64_t sz[4] = {op->out.n, op->out.c, op->out.h, op->out.w};
        in[0] = lf__ow_act(w, v, op->inputs[0], 4);
        in[1] = "";
        in[2] = "";
        in[3] = lf__ow_ints_init(w, op->name, "sizes", sz, 4);
        if (!in[0] || !in[3] || !(n = lf__ow_node(w, op->name, "Resize", in, 4, out)))
            return lf__ow_oom();
        if (a->coord_mode < 0 || a->coord_mode > 4 || a->nearest_mode < 0 || a->nearest_mode > 3)
            return lf__ow_fail(w, v, "unknown coordinate or nearest mode");
        if ((st = lf__ow_str(w, n, "mode", a->linear == 0 ? "nearest" : a->linear == 2 ? "cubic" : "linear")) != LF_OK ||
            (st = lf__ow_str(w, n, "coordinate_transformation_mode", coords[a->coord_mode])) != LF_OK)
            return st;
        if (a->linear == 0)
            return lf__ow_str(w, n, "nearest_mode", nearest[a->nearest_mode]);
        if (a->linear == 2)
            return lf__ow_float(w, n, "cubic_coeff_a", a->alpha != 0.0f ? a->alpha : -0.75f);
        return LF_OK;
    }
    case LF_OP_FLATTEN: {
        const char *x = lf__ow_act(w, v, op->inputs[0], w->rank[op->inputs[0]]);
        if (!x || !(n = lf__ow_node(w, op->name, "Flatten", &x, 1, out)))
            return lf__ow_oom();
        return lf__ow_int(w, n, "axis", 1);
    }
    case LF_OP_RESHAPE:
    case LF_OP_EXPAND: {
        int64_t sz[4] = {op->out.n, op->out.c, op->out.h, op->out.w};
        in[0] = lf__ow_act(w, v, op->inputs[0], w->rank[op->inputs[0]]);
        in[1] = lf__ow_ints_init(w, op->name, "shape", sz, r == 2 ? 2 : 4);
        if (!in[0] || !in[1])
            return lf__ow_oom();
        if (!(n = lf__ow_node(w, op->name, op->type == LF_OP_RESHAPE ? "Reshape" : "Expand", in, 2, out)))
            return lf__ow_oom();
        if (op->type == LF_OP_RESHAPE && r == 2 && (st = lf__ow_keep(w, n)) != LF_OK)
            return st; /* not the importer's Flatten */
        if (op->type == LF_OP_RESHAPE && a->shape_n != 0 && a->shape_n == w->g->ops[op->inputs[0]].out.n) {
            /* N spelled though kept: the importer would say 0 ("keep") */
            lf__ox_prop pr = {"fusionplan.ir_set", "shape_n"};
            return lf__ox_node_meta_add(&w->arena, n, &pr, 1);
        }
        return LF_OK;
    }
    case LF_OP_TRANSPOSE: {
        int64_t perm[4];
        for (int k = 0; k < 4; k++)
            perm[k] = a->perm[k];
        const char *x = lf__ow_act(w, v, op->inputs[0], 4);
        if (!x || !(n = lf__ow_node(w, op->name, "Transpose", &x, 1, out)))
            return lf__ow_oom();
        return lf__ow_ints(w, n, "perm", perm, 4);
    }
    case LF_OP_SOFTMAX:
    case LF_OP_LOGSOFTMAX: {
        int32_t d = lf__ow_single_dim(a->axes);
        if (d < 0)
            return lf__ow_fail(w, v, "over more than one dim");
        const char *x = lf__ow_act(w, v, op->inputs[0], r);
        if (a->causal) {
            /* Add(S, mask) -> Softmax, the Add marked for the importer */
            if (d != LF_DIM_W || r != 4 || a->causal < 1 || op->out.h % a->causal != 0 ||
                op->out.w < op->out.h / a->causal)
                return lf__ow_fail(w, v, "a causal mask not over the keys of [.., H, W] scores");
            char want[400];
            snprintf(want, sizeof want, "%.300s/causal_mask", op->name);
            const char *nm = lf__ow_unique(w, want), *min[2] = {x, lf__ow_causal_mask(w, v)};
            char part[32];
            snprintf(part, sizeof part, "causal:%d", (int)a->causal);
            if (!nm || !min[0] || !min[1] || !(n = lf__ow_node(w, nm, "Add", min, 2, nm)))
                return lf__ow_oom();
            if ((st = lf__ow_part(w, n, part)) != LF_OK)
                return st;
            x = nm;
        }
        if (!x || !(n = lf__ow_node(w, op->name, op->type == LF_OP_SOFTMAX ? "Softmax" : "LogSoftmax", &x, 1, out)))
            return lf__ow_oom();
        return lf__ow_int(w, n, "axis", lf__ow_axis(d, r));
    }
    case LF_OP_LAYERNORM:
    case LF_OP_RMSNORM: {
        /* over dims lo..3, those of size 1 after the mask counted in (the
         * importer leaves them out: [N, D] normalised over D is C alone) */
        int32_t lo = -1, m = a->axes ? a->axes : LF_AXES(LF_DIM_C);
        int64_t dims[4] = {op->out.n, op->out.c, op->out.h, op->out.w};
        for (int32_t d = 0; d < 4 && lo < 0; d++)
            if (m & LF_AXES(d))
                lo = d;
        for (int32_t d = lo + 1; lo >= 0 && d < 4; d++)
            if (!(m & LF_AXES(d)) && (dims[d] != 1 || (m & ~(LF_AXES(d) - 1))))
                return lf__ow_fail(w, v, "not over the trailing dims");
        if (lo < 0)
            return lf__ow_fail(w, v, "not over the trailing dims");
        if (op->type == LF_OP_RMSNORM)
            return lf__ow_rmsnorm(w, v, lo);
        in[0] = lf__ow_act(w, v, op->inputs[0], 4);
        n_in = 1;
        for (int32_t k = 1; k < op->n_operands; k++) {
            if (!lf_op_const(w->g, v, k))
                return lf__ow_fail(w, v, "scale or bias is not a constant");
            if (!(in[n_in++] = lf__ow_norm_param(w, v, k, lo)))
                return lf__ow_oom();
        }
        if (!in[0] || !(n = lf__ow_node(w, op->name, "LayerNormalization", in, n_in, out)))
            return lf__ow_oom();
        if ((st = lf__ow_int(w, n, "axis", lo)) != LF_OK)
            return st;
        if (a->epsilon == 0.0f) { /* "0 means 1e-5": restored by the importer */
            lf__ox_prop pr = {"fusionplan.ir_zero", "epsilon"};
            if ((st = lf__ox_node_meta_add(&w->arena, n, &pr, 1)) != LF_OK)
                return st;
        }
        return lf__ow_float(w, n, "epsilon", a->epsilon != 0.0f ? a->epsilon : 1e-5f);
    }
    case LF_OP_CHANNELSHUFFLE: {
        lf_shape s = op->out;
        int64_t g = a->groups ? a->groups : 1;
        int64_t d5[5] = {s.n, g, s.c / g, s.h, s.w}, d4[4] = {s.n, s.c, s.h, s.w}, perm[5] = {0, 2, 1, 3, 4};
        char want[400];
        snprintf(want, sizeof want, "%.300s/grouped", op->name);
        const char *t1 = lf__ow_unique(w, want);
        snprintf(want, sizeof want, "%.300s/transpose", op->name);
        const char *t2 = lf__ow_unique(w, want);
        snprintf(want, sizeof want, "%.300s/reshape", op->name);
        const char *n3 = lf__ow_unique(w, want);
        in[0] = lf__ow_act(w, v, op->inputs[0], 4);
        in[1] = lf__ow_ints_init(w, op->name, "shape5", d5, 5);
        const char *in3[2] = {t2, lf__ow_ints_init(w, op->name, "shape4", d4, 4)};
        if (!t1 || !t2 || !n3 || !in[0] || !in[1] || !in3[1] || !lf__ow_node(w, op->name, "Reshape", in, 2, t1) ||
            !(n = lf__ow_node(w, t2, "Transpose", &t1, 1, t2)) || lf__ow_ints(w, n, "perm", perm, 5) != LF_OK ||
            !lf__ow_node(w, n3, "Reshape", in3, 2, out))
            return lf__ow_oom();
        return LF_OK;
    }
    case LF_OP_GATHER: {
        /* Gather(table [V, D], ids int64 [N, 1, T]) -> [N, 1, T, D]: the IR's
         * output, ids as lf__ow_ids_input declared them */
        const lf_const *c = lf_op_const(w->g, v, 0);
        if (op->n_operands != 2 || !c || op->operands[1].kind != LF_OPND_TENSOR ||
            !lf__ow_ids_input(w->g, op->operands[1].id))
            return lf__ow_fail(w, v, "ids that are not a graph input of token ids (N x 1 x T x 1)");
        int64_t d[2] = {c->shape.h, c->shape.w};
        in[0] = lf__ow_const(w, v, 0, d, 2);
        in[1] = w->tensor[op->operands[1].id];
        if (!in[0] || !lf__ow_node(w, op->name, "Gather", in, 2, out))
            return lf__ow_oom();
        return LF_OK;
    }
    case LF_OP_MATMUL:
        return lf__ow_matmul(w, v);
    case LF_OP_GELU:
        return lf__ow_gelu(w, v);
    default:
        return lf__ow_fail(w, v, "no ONNX form in the exporter");
    }
}
