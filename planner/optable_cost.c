/* What the cost models need from an op type: weights and parameters, MACs,
 * the row kind refined by the attributes, the row window, the BRR weight
 * block and the analytic FLOPs — the per-family functions the op table
 * (optable.c) names; the dispatchers that call an op's entry or apply the
 * default are in optable_dispatch.c. */
#include "planner/optable_internal.h"

static int32_t lf__one(int32_t v) { return v > 0 ? v : 1; }

static int32_t lf__mask(int32_t axes) { return axes ? axes : LF_AXES(LF_DIM_C); }

/* ---- per-family functions (optable.c names them) ----------------------- */

/* Conv, Gemm, ConvTranspose: a folded BatchNorm counts two parameters per
 * channel, stored as one bias (torchvision's count). */
int64_t lf__params_folded_bn(const lf_attrs *a, const lf_shape *out)
{
    if (!a->folded_bn)
        return 0;
    return a->has_bias ? 2 * out->c : out->c;
}

int64_t lf__macs_conv(const lf_attrs *a, const lf_shape *in, int32_t n_in, const lf_shape *out)
{
    (void)n_in;
    return out->n * out->c * out->h * out->w * (in[0].c / lf__one(a->groups)) * lf__one(a->kh) *
           lf__one(a->kw);
}

int64_t lf__macs_conv_transpose(const lf_attrs *a, const lf_shape *in, int32_t n_in,
                                const lf_shape *out)
{
    (void)n_in;
    /* every input pixel scatters a kh x kw patch into out_c / groups maps */
    return in[0].n * in[0].c * in[0].h * in[0].w * (out->c / lf__one(a->groups)) * lf__one(a->kh) *
           lf__one(a->kw);
}

int64_t lf__macs_gemm(const lf_attrs *a, const lf_shape *in, int32_t n_in, const lf_shape *out)
{
    (void)a, (void)n_in;
    return out->n * in[0].c * in[0].h * in[0].w * out->c;
}

int64_t lf__macs_matmul(const lf_attrs *a, const lf_shape *in, int32_t n_in, const lf_shape *out)
{
    if (n_in < 2)
        return 0;
    int64_t k = a->trans_a ? in[0].h : in[0].w;
    return out->n * out->c * out->h * out->w * k;
}

lf_row_kind lf__rows_transpose(const lf_graph *g, const lf_op *op)
{
    (void)g;
    return op->attr.perm[LF_DIM_H] == LF_DIM_H ? LF_ROWS_WINDOW : LF_ROWS_FULL;
}

/* Softmax, LogSoftmax, LayerNorm: over H they need the whole map. */
lf_row_kind lf__rows_normalize(const lf_graph *g, const lf_op *op)
{
    (void)g;
    return (lf__mask(op->attr.axes) & LF_AXES(LF_DIM_H)) ? LF_ROWS_FULL : LF_ROWS_WINDOW;
}

lf_row_kind lf__rows_reduce(const lf_graph *g, const lf_op *op)
{
    (void)g;
    return (lf__mask(op->attr.axes) & LF_AXES(LF_DIM_H)) ? LF_ROWS_REDUCTION : LF_ROWS_WINDOW;
}

lf_row_kind lf__rows_matmul(const lf_graph *g, const lf_op *op)
{
    (void)g;
    /* Output row m is row m of A times all of B: it streams when B is a
     * constant and A is not transposed; a product of two activations
     * (attention scores) needs B whole. */
    return op->n_operands == 2 && op->operands[1].kind == LF_OPND_CONST && !op->attr.trans_a
               ? LF_ROWS_WINDOW
               : LF_ROWS_FULL;
}

lf_row_kind lf__rows_concat(const lf_graph *g, const lf_op *op)
{
    (void)g;
    int32_t m = lf__mask(op->attr.axes);
    return m == LF_AXES(LF_DIM_C) || m == LF_AXES(LF_DIM_W) ? LF_ROWS_VIEW : LF_ROWS_FULL;
}

/* Conv, pools, ConvTranspose: the kernel's rows, dilated. */
void lf__window_kernel(const lf_op *op, int32_t *k, int32_t *stride, int32_t *pad_top)
{
    *k = lf__one(op->attr.dh) * (lf__one(op->attr.kh) - 1) + 1;
    *stride = lf__one(op->attr.sh);
    *pad_top = op->attr.pad_top;
}

void lf__window_pad(const lf_op *op, int32_t *k, int32_t *stride, int32_t *pad_top)
{
    *k = 1;
    *stride = 1;
    *pad_top = op->attr.pad_top;
}

void lf__window_slice(const lf_op *op, int32_t *k, int32_t *stride, int32_t *pad_top)
{
    *k = 1;
    if (lf__mask(op->attr.axes) == LF_AXES(LF_DIM_H)) {
        /* output row r is input row begin + step * r */
        *stride = lf__one(op->attr.slice_step);
        *pad_top = -op->attr.slice_begin;
    } else {
        *stride = 1;
        *pad_top = 0;
    }
}

/* Conv, ConvTranspose, Gemm, BatchNorm: one output channel's weights. */
int64_t lf__wblock_channel(const lf_graph *g, const lf_op *op)
{
    (void)g;
    return op->out.c > 0 ? op->weight_elems / op->out.c : 0;
}

int64_t lf__wblock_matmul(const lf_graph *g, const lf_op *op)
{
    /* a constant B streams by output column (one column of B each), like a
     * Gemm's output features */
    return op->out.w > 0 && op->n_operands == 2 && op->operands[1].kind == LF_OPND_CONST &&
                   g->consts[op->operands[1].id].shape.n == 1 &&
                   g->consts[op->operands[1].id].shape.c == 1
               ? op->weight_elems / op->out.w
               : op->weight_elems;
}

int64_t lf__wblock_whole(const lf_graph *g, const lf_op *op)
{
    (void)g;
    return op->weight_elems;
}

/* MaxPool, AveragePool: one operation per window element of every output. */
double lf__flops_window(const lf_op *op)
{
    double out = (double)op->out.n * (double)op->out.c * (double)op->out.h * (double)op->out.w;
    return out * (op->attr.kh ? op->attr.kh : 1) * (op->attr.kw ? op->attr.kw : 1);
}

/* Views and data movers (Concat, Slice, Pad, Transpose, Expand, Resize):
 * they copy, they do not compute. */
double lf__flops_none(const lf_op *op)
{
    (void)op;
    return 0.0;
}
