/* One op on given operands: maps the IR's op type and attributes onto the
 * reference kernels (planner/exec/kernels.h). Everything the executor knows
 * about an op type's numerics is in this switch. */
#include <string.h>

#include "planner/exec/exec.h"
#include "planner/exec/kernels.h"
#include "planner/optable.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static int lf__one(int32_t v) { return v > 0 ? v : 1; }

static lf_status lf__need(lf_op_type t, int32_t n, int32_t lo, int32_t hi)
{
    if (n >= lo && n <= hi)
        return LF_OK;
    return lf_set_error(LF_EGRAPH, "%s: %d operands, expected %d to %d", lf_op_info_of(t)->name,
                        (int)n, (int)lo, (int)hi);
}

/* The operand must hold exactly `want` values. */
static lf_status lf__count(lf_op_type t, const lf_tensor *x, int32_t k, int64_t want)
{
    if (lf_shape_count(x[k].shape) == want && x[k].data)
        return LF_OK;
    return lf_set_error(LF_EGRAPH, "%s: operand %d has %lld values, expected %lld",
                        lf_op_info_of(t)->name, (int)k, (long long)lf_shape_count(x[k].shape),
                        (long long)want);
}

static lf_status lf__copy(const lf_tensor *x, lf_tensor *out)
{
    int64_t n = lf_shape_count(out->shape);
    if (lf_shape_count(x->shape) != n)
        return lf_set_error(LF_EGRAPH, "view of %lld values as %lld values",
                            (long long)lf_shape_count(x->shape), (long long)n);
    if (x->data != out->data)
        memcpy(out->data, x->data, (size_t)n * sizeof *out->data);
    return LF_OK;
}

static lf_status lf__eval_conv(const lf_attrs *a, const lf_tensor *x, int32_t n, lf_tensor *out, int nt)
{
    lf_status st = lf__need(LF_OP_CONV, n, 2, 3);
    int64_t M = out->shape.c, Cg = x[0].shape.c / lf__one(a->groups);
    if (!st)
        st = lf__count(LF_OP_CONV, x, 1, M * Cg * lf__one(a->kh) * lf__one(a->kw));
    if (!st && n == 3)
        st = lf__count(LF_OP_CONV, x, 2, M);
    if (st)
        return st;
    lf__conv p = {a->kh, a->kw, a->sh, a->sw, a->dh, a->dw, a->pad_top, a->pad_left, a->pad_bottom,
                  a->pad_right, a->groups, lf__unary_of_act(a->act, a->clip_min, a->clip_max)};
    return lf__conv2d(x[0].data, lf__dims_of(x[0].shape), x[1].data, n == 3 ? x[2].data : NULL,
                      out->data, lf__dims_of(out->shape), &p, nt);
}

/* Gemm of the IR: the input flattened to N x K; weights stored as PyTorch's
 * Linear keeps them (out x K, ONNX transB = 1); MatMul keeps K x out. */
static lf_status lf__eval_gemm(lf_op_type t, const lf_attrs *a, const lf_tensor *x, int32_t n,
                               lf_tensor *out, int nt)
{
    lf_status st = lf__need(t, n, 2, 3);
    int64_t N = x[0].shape.n, K = lf_shape_count(x[0].shape) / (N ? N : 1), M = out->shape.c;
    if (!st)
        st = lf__count(t, x, 1, K * M);
    if (!st && n == 3)
        st = lf__count(t, x, 2, M);
    if (st)
        return st;
    lf__unary act = lf__unary_of_act(a->act, a->clip_min, a->clip_max);
    return lf__gemm(x[0].data, 0, x[1].data, t == LF_OP_GEMM, n == 3 ? x[2].data : NULL, 1, M, 1.0f,
                    1.0f, N, M, K, &act, out->data, nt);
}

static lf_status lf__eval_nary(lf_op_type t, const lf_tensor *x, int32_t n, lf_tensor *out, int nt)
{
    lf_status st = lf__need(t, n, 1, 64);
    if (st)
        return st;
    lf__binary_kind k = t == LF_OP_MUL ? LF__B_MUL : LF__B_ADD;
    lf__dims yd = lf__dims_of(out->shape);
    if (n == 1)
        return lf__copy(&x[0], out);
    /* ((x0 op x1) op x2) ...: the first step may broadcast x0, later steps
     * accumulate in place into the output. */
    st = lf__binary(k, x[0].data, lf__dims_of(x[0].shape), x[1].data, lf__dims_of(x[1].shape),
                    out->data, yd, nt);
    for (int32_t i = 2; i < n && !st; i++)
        st = lf__binary(k, out->data, yd, x[i].data, lf__dims_of(x[i].shape), out->data, yd, nt);
    return st;
}

static lf_status lf__eval_pool(lf_op_type t, const lf_attrs *a, const lf_tensor *x, lf_tensor *out, int nt)
{
    lf__pool p = {a->kh, a->kw, a->sh, a->sw, a->dh, a->dw, a->pad_top, a->pad_left, a->pad_bottom,
                  a->pad_right, a->count_include_pad};
    if (t == LF_OP_MAXPOOL)
        lf__maxpool(x[0].data, lf__dims_of(x[0].shape), out->data, lf__dims_of(out->shape), &p, nt);
    else
        lf__avgpool(x[0].data, lf__dims_of(x[0].shape), out->data, lf__dims_of(out->shape), &p, nt);
    return LF_OK;
}

static lf_status lf__eval_resize(const lf_attrs *a, const lf_tensor *x, lf_tensor *out, int nt)
{
    lf__dims xd = lf__dims_of(x[0].shape), yd = lf__dims_of(out->shape);
    lf__resize p = {a->linear ? LF__RESIZE_LINEAR : LF__RESIZE_NEAREST,
                    a->linear ? LF__COORD_HALF_PIXEL : LF__COORD_ASYMMETRIC,
                    LF__NEAREST_FLOOR, -0.75f, 0, {1, 1, 1, 1}};
    for (int i = 0; i < 4; i++)
        p.scale[i] = xd.d[i] ? (double)yd.d[i] / (double)xd.d[i] : 1.0;
    return lf__resize_run(x[0].data, xd, out->data, yd, &p, nt);
}

static lf_status lf__eval_unary(lf_op_type t, const lf_attrs *a, const lf_tensor *x, lf_tensor *out, int nt)
{
    lf__unary u = {LF__U_IDENTITY, 0.0f, 0.0f};
    switch (t) {
    case LF_OP_RELU:
        u.kind = LF__U_RELU;
        break;
    case LF_OP_CLIP:
        u.kind = LF__U_CLIP;
        u.a = a->clip_min;
        u.b = a->clip_max;
        break;
    case LF_OP_SIGMOID:
        u.kind = LF__U_SIGMOID;
        break;
    case LF_OP_HARDSIGMOID:
        /* The built-in networks' hard sigmoid is torch's relu6(x + 3) / 6. */
        u.kind = LF__U_HARDSIGMOID;
        u.a = 1.0f / 6.0f;
        u.b = 0.5f;
        break;
    case LF_OP_HARDSWISH:
        u.kind = LF__U_HARDSWISH;
        break;
    case LF_OP_SILU:
        u.kind = LF__U_SILU;
        break;
    default:
        break;
    }
    if (lf_shape_count(x[0].shape) != lf_shape_count(out->shape))
        return lf_set_error(LF_EGRAPH, "%s: input and output sizes differ", lf_op_info_of(t)->name);
    lf__unary_apply(&u, x[0].data, out->data, lf_shape_count(out->shape), nt);
    return LF_OK;
}

lf_status lf_exec_eval_op(lf_op_type t, const lf_attrs *a, const lf_tensor *x, int32_t n,
                          lf_tensor *out, int32_t threads)
{
    const lf_op_info *info = lf_op_info_of(t);
    if (!info || t == LF_OP_INPUT)
        return lf_set_error(LF_EUNSUPPORTED, "op type %d has no reference kernel", (int)t);
    if (!out || !out->data || (n > 0 && !x))
        return lf_set_error(LF_EINVAL, "%s: missing operand or output buffer", info->name);
    for (int32_t i = 0; i < n; i++)
        if (!x[i].data && lf_shape_count(x[i].shape) > 0)
            return lf_set_error(LF_EINVAL, "%s: operand %d has no data", info->name, (int)i);
    if (n < 1)
        return lf_set_error(LF_EGRAPH, "%s: no operands", info->name);
    static const lf_attrs none;
    if (!a)
        a = &none;
    int nt = threads;
#ifdef _OPENMP
    if (nt <= 0)
        nt = omp_get_max_threads();
#endif
    if (nt <= 0)
        nt = 1;
    lf__dims xd = n > 0 ? lf__dims_of(x[0].shape) : lf__dims_of(out->shape);
    lf__dims yd = lf__dims_of(out->shape);
    switch (t) {
    case LF_OP_CONV:
        return lf__eval_conv(a, x, n, out, nt);
    case LF_OP_GEMM:
    case LF_OP_MATMUL:
        return lf__eval_gemm(t, a, x, n, out, nt);
    case LF_OP_BATCHNORM: {
        lf_status st = lf__need(t, n, 5, 5);
        for (int32_t k = 1; k < 5 && !st; k++)
            st = lf__count(t, x, k, xd.d[1]);
        if (st)
            return st;
        lf__batchnorm(x[0].data, xd, x[1].data, x[2].data, x[3].data, x[4].data, 1e-5f, out->data, nt);
        return LF_OK;
    }
    case LF_OP_ADD:
    case LF_OP_MUL:
        return lf__eval_nary(t, x, n, out, nt);
    case LF_OP_CONCAT: {
        lf_status st = lf__need(t, n, 1, 64);
        if (st)
            return st;
        const float *xs[64];
        lf__dims ds[64];
        for (int32_t i = 0; i < n; i++) {
            xs[i] = x[i].data;
            ds[i] = lf__dims_of(x[i].shape);
        }
        lf__concat(xs, ds, n, 1, out->data, yd, nt);
        return LF_OK;
    }
    case LF_OP_SLICE: {
        int64_t start[4] = {0, a->slice_begin, 0, 0}, step[4] = {1, 1, 1, 1};
        lf__slice(x[0].data, xd, start, step, out->data, yd, nt);
        return LF_OK;
    }
    case LF_OP_MAXPOOL:
    case LF_OP_AVGPOOL:
        return lf__eval_pool(t, a, x, out, nt);
    case LF_OP_GLOBALAVGPOOL:
        lf__global_pool(x[0].data, xd, out->data, 0, nt);
        return LF_OK;
    case LF_OP_PAD: {
        int64_t begin[4] = {0, 0, a->pad_top, a->pad_left};
        return lf__pad(x[0].data, xd, begin, LF__PAD_CONSTANT, 0.0f, out->data, yd, nt);
    }
    case LF_OP_RESIZE:
        return lf__eval_resize(a, x, out, nt);
    case LF_OP_FLATTEN:
    case LF_OP_RESHAPE:
    case LF_OP_IDENTITY:
        return lf__copy(&x[0], out);
    case LF_OP_SOFTMAX:
        /* Over everything but the batch axis: ONNX's axis -1 of an N x C
         * tensor, which the IR holds as N x C x 1 x 1. */
        return lf__softmax(x[0].data, xd, 14u, 0, out->data, nt);
    default:
        return lf__eval_unary(t, a, x, out, nt);
    }
}
