/* One op on given operands: maps the IR's op type and attributes onto the
 * reference kernels (planner/exec/kernels.h). Everything the executor knows
 * about an op type's numerics is in this switch. */
#include <stdio.h>
#include <string.h>

#include "planner/exec/exec.h"
#include "planner/exec/kernels.h"
#include "planner/optable.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static int lf__one(int32_t v) { return v > 0 ? v : 1; }

/* An axes attribute as a kernel mask: 0 means the channels. */
static unsigned lf__mask(int32_t axes) { return axes ? (unsigned)axes & 15u : (unsigned)LF_AXES(LF_DIM_C); }

static int lf__single_axis(int32_t axes)
{
    unsigned m = lf__mask(axes);
    for (int d = 0; d < 4; d++)
        if (m == (1u << d))
            return d;
    return -1;
}

static lf__reduce_kind lf__reduce_kind_of(lf_op_type t)
{
    switch (t) {
    case LF_OP_REDUCESUM:
        return LF__R_SUM;
    case LF_OP_REDUCEMAX:
        return LF__R_MAX;
    case LF_OP_REDUCEMIN:
        return LF__R_MIN;
    case LF_OP_REDUCEPROD:
        return LF__R_PROD;
    case LF_OP_REDUCESUMSQUARE:
        return LF__R_SUMSQUARE;
    case LF_OP_REDUCEL2:
        return LF__R_L2;
    default:
        return LF__R_MEAN;
    }
}

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
    if (lf_shape_count(x[k].shape) == want)
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

static lf__conv lf__conv_params(const lf_attrs *a)
{
    lf__conv p = {a->kh, a->kw, a->sh, a->sw, a->dh, a->dw, a->pad_top, a->pad_left, a->pad_bottom,
                  a->pad_right, a->groups, lf__unary_of_act(a->act, a->clip_min, a->clip_max)};
    return p;
}

static lf_status lf__eval_conv(lf_op_type t, const lf_attrs *a, const lf_tensor *x, int32_t n,
                               lf_tensor *out, int nt)
{
    lf_status st = lf__need(t, n, 2, 3);
    int64_t G = lf__one(a->groups), M = out->shape.c, C = x[0].shape.c;
    int64_t per = lf__one(a->kh) * lf__one(a->kw);
    if (!st)
        st = lf__count(t, x, 1, t == LF_OP_CONV ? M * (C / G) * per : C * (M / G) * per);
    if (!st && n == 3)
        st = lf__count(t, x, 2, M);
    if (st)
        return st;
    lf__conv p = lf__conv_params(a);
    const float *b = n == 3 ? x[2].data : NULL;
    if (t == LF_OP_CONV)
        return lf__conv2d(x[0].data, lf__dims_of(x[0].shape), x[1].data, b, out->data,
                          lf__dims_of(out->shape), &p, nt);
    return lf__conv_transpose2d(x[0].data, lf__dims_of(x[0].shape), x[1].data, b, out->data,
                                lf__dims_of(out->shape), &p, nt);
}

/* Gemm of the IR: the input flattened to N x K times the weight stored as
 * PyTorch's Linear keeps it (out x K, ONNX transB = 1), plus a bias. */
static lf_status lf__eval_gemm(const lf_attrs *a, const lf_tensor *x, int32_t n, lf_tensor *out, int nt)
{
    lf_status st = lf__need(LF_OP_GEMM, n, 2, 3);
    int64_t N = x[0].shape.n, K = lf_shape_count(x[0].shape) / (N ? N : 1), M = out->shape.c;
    if (!st)
        st = lf__count(LF_OP_GEMM, x, 1, K * M);
    if (!st && n == 3)
        st = lf__count(LF_OP_GEMM, x, 2, M);
    if (st)
        return st;
    lf__unary act = lf__unary_of_act(a->act, a->clip_min, a->clip_max);
    return lf__gemm(x[0].data, 0, x[1].data, 1, n == 3 ? x[2].data : NULL, 1, M, 1.0f, 1.0f, N, M, K,
                    &act, out->data, nt);
}

static lf_status lf__eval_binary(lf_op_type t, const lf_tensor *x, int32_t n, lf_tensor *out, int nt)
{
    lf__binary_kind k;
    int32_t most = 64;
    switch (t) {
    case LF_OP_MUL:
        k = LF__B_MUL;
        break;
    case LF_OP_SUB:
        k = LF__B_SUB, most = 2;
        break;
    case LF_OP_DIV:
        k = LF__B_DIV, most = 2;
        break;
    case LF_OP_POW:
        k = LF__B_POW, most = 2;
        break;
    case LF_OP_PRELU:
        k = LF__B_PRELU, most = 2;
        break;
    case LF_OP_MAX:
        k = LF__B_MAX;
        break;
    case LF_OP_MIN:
        k = LF__B_MIN;
        break;
    default:
        k = LF__B_ADD;
        break;
    }
    lf_status st = lf__need(t, n, 1, most);
    if (st)
        return st;
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

static lf_status lf__eval_batchnorm(const lf_attrs *a, const lf_tensor *x, int32_t n, lf_tensor *out, int nt)
{
    lf_status st = n == 3 || n == 5 ? LF_OK : lf__need(LF_OP_BATCHNORM, n, 3, 3);
    lf__dims xd = lf__dims_of(x[0].shape);
    for (int32_t k = 1; k < n && !st; k++)
        st = lf__count(LF_OP_BATCHNORM, x, k, xd.d[1]);
    if (st)
        return st;
    if (n == 5) {
        float eps = a->epsilon > 0.0f ? a->epsilon : 1e-5f;
        lf__batchnorm(x[0].data, xd, x[1].data, x[2].data, x[3].data, x[4].data, eps, out->data, nt);
        return LF_OK;
    }
    /* The IR's inference form: y = x * scale + shift per channel. */
    lf__dims cd = {{1, xd.d[1], 1, 1}};
    st = lf__binary(LF__B_MUL, x[0].data, xd, x[1].data, cd, out->data, xd, nt);
    return st ? st : lf__binary(LF__B_ADD, out->data, xd, x[2].data, cd, out->data, xd, nt);
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
    static const lf__resize_coord coords[] = {LF__COORD_HALF_PIXEL, LF__COORD_ASYMMETRIC,
                                              LF__COORD_ALIGN_CORNERS, LF__COORD_PYTORCH_HALF_PIXEL,
                                              LF__COORD_TF_HALF_PIXEL_FOR_NN};
    static const lf__resize_mode modes[] = {LF__RESIZE_NEAREST, LF__RESIZE_LINEAR, LF__RESIZE_CUBIC};
    static const lf__resize_nearest nearest[] = {LF__NEAREST_ROUND_PREFER_FLOOR, LF__NEAREST_ROUND_PREFER_CEIL,
                                                 LF__NEAREST_FLOOR, LF__NEAREST_CEIL};
    if (a->coord_mode < 0 || a->coord_mode > 4 || a->nearest_mode < 0 || a->nearest_mode > 3 ||
        a->linear < 0 || a->linear > 2)
        return lf_set_error(LF_EUNSUPPORTED, "Resize: mode %d, coordinate mode %d or nearest mode %d unknown",
                            (int)a->linear, (int)a->coord_mode, (int)a->nearest_mode);
    lf__dims xd = lf__dims_of(x[0].shape), yd = lf__dims_of(out->shape);
    lf__resize p = {modes[a->linear], coords[a->coord_mode], nearest[a->nearest_mode],
                    a->alpha != 0.0f ? a->alpha : -0.75f, 0, {1, 1, 1, 1}};
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
        /* alpha 0: torch's hardsigmoid relu6(x + 3) / 6 (the built-in networks). */
        u.kind = LF__U_HARDSIGMOID;
        u.a = a->alpha != 0.0f ? a->alpha : 1.0f / 6.0f;
        u.b = a->alpha != 0.0f ? a->beta : 0.5f;
        break;
    case LF_OP_HARDSWISH:
        u.kind = LF__U_HARDSWISH;
        break;
    case LF_OP_SILU:
        u.kind = LF__U_SILU;
        break;
    case LF_OP_SQRT:
        u.kind = LF__U_SQRT;
        break;
    case LF_OP_EXP:
        u.kind = LF__U_EXP;
        break;
    case LF_OP_ERF:
        u.kind = LF__U_ERF;
        break;
    case LF_OP_TANH:
        u.kind = LF__U_TANH;
        break;
    case LF_OP_GELU:
        u.kind = a->approximate ? LF__U_GELU_TANH : LF__U_GELU;
        break;
    case LF_OP_NEG:
        u.kind = LF__U_NEG;
        break;
    case LF_OP_LEAKYRELU:
        u.kind = LF__U_LEAKYRELU;
        u.a = a->alpha != 0.0f ? a->alpha : 0.01f;
        break;
    case LF_OP_LOG:
        u.kind = LF__U_LOG;
        break;
    case LF_OP_ABS:
        u.kind = LF__U_ABS;
        break;
    case LF_OP_RECIPROCAL:
        u.kind = LF__U_RECIPROCAL;
        break;
    case LF_OP_FLOOR:
        u.kind = LF__U_FLOOR;
        break;
    case LF_OP_CEIL:
        u.kind = LF__U_CEIL;
        break;
    case LF_OP_SOFTPLUS:
        u.kind = LF__U_SOFTPLUS;
        break;
    case LF_OP_ELU:
        u.kind = LF__U_ELU;
        u.a = a->alpha != 0.0f ? a->alpha : 1.0f;
        break;
    case LF_OP_FLATTEN:
    case LF_OP_RESHAPE:
    case LF_OP_IDENTITY:
        return lf__copy(&x[0], out);
    default:
        return lf_set_error(LF_EUNSUPPORTED, "%s has no reference kernel", lf_op_info_of(t)->name);
    }
    if (lf_shape_count(x[0].shape) != lf_shape_count(out->shape))
        return lf_set_error(LF_EGRAPH, "%s: input and output sizes differ", lf_op_info_of(t)->name);
    lf__unary_apply(&u, x[0].data, out->data, lf_shape_count(out->shape), nt);
    return LF_OK;
}

static lf_status lf__eval_layout(lf_op_type t, const lf_attrs *a, const lf_tensor *x, int32_t n,
                                 lf_tensor *out, int nt)
{
    lf__dims xd = lf__dims_of(x[0].shape), yd = lf__dims_of(out->shape);
    int axis = lf__single_axis(a->axes);
    switch (t) {
    case LF_OP_CONCAT: {
        if (axis < 0)
            return lf_set_error(LF_EGRAPH, "Concat: axes mask %d is not one axis", (int)a->axes);
        const float *xs[64];
        lf__dims ds[64];
        for (int32_t i = 0; i < n; i++) {
            xs[i] = x[i].data;
            ds[i] = lf__dims_of(x[i].shape);
        }
        lf__concat(xs, ds, n, axis, out->data, yd, nt);
        return LF_OK;
    }
    case LF_OP_SLICE: {
        if (axis < 0)
            return lf_set_error(LF_EGRAPH, "Slice: axes mask %d is not one axis", (int)a->axes);
        int64_t start[4] = {0, 0, 0, 0}, step[4] = {1, 1, 1, 1};
        start[axis] = a->slice_begin;
        step[axis] = lf__one(a->slice_step);
        if (start[axis] + (yd.d[axis] - 1) * step[axis] >= xd.d[axis])
            return lf_set_error(LF_EGRAPH, "Slice: reads past the input's %lld", (long long)xd.d[axis]);
        lf__slice(x[0].data, xd, start, step, out->data, yd, nt);
        return LF_OK;
    }
    case LF_OP_PAD: {
        static const lf__pad_mode modes[] = {LF__PAD_CONSTANT, LF__PAD_REFLECT, LF__PAD_EDGE};
        if (a->pad_mode < 0 || a->pad_mode > 2)
            return lf_set_error(LF_EUNSUPPORTED, "Pad: mode %d unknown", (int)a->pad_mode);
        int64_t begin[4] = {0, 0, a->pad_top, a->pad_left};
        return lf__pad(x[0].data, xd, begin, modes[a->pad_mode], a->pad_value, out->data, yd, nt);
    }
    case LF_OP_TRANSPOSE: {
        int perm[4] = {a->perm[0], a->perm[1], a->perm[2], a->perm[3]}, seen = 0;
        for (int i = 0; i < 4; i++)
            seen |= perm[i] >= 0 && perm[i] < 4 ? 1 << perm[i] : 16;
        if (seen != 15)
            return lf_set_error(LF_EGRAPH, "Transpose: perm is not a permutation of the 4 dims");
        lf__transpose(x[0].data, xd, perm, out->data, nt);
        return LF_OK;
    }
    case LF_OP_CHANNELSHUFFLE: {
        /* (N, g, C/g, H*W) -> (N, C/g, g, H*W): output channel j*g + i is
         * input channel i*(C/g) + j. */
        int64_t g = a->groups;
        if (g < 1 || xd.d[1] % g)
            return lf_set_error(LF_EGRAPH, "ChannelShuffle: %d groups do not divide %lld channels",
                                (int)a->groups, (long long)xd.d[1]);
        lf__dims vd = {{xd.d[0], g, xd.d[1] / g, xd.d[2] * xd.d[3]}};
        int perm[4] = {0, 2, 1, 3};
        lf__transpose(x[0].data, vd, perm, out->data, nt);
        return LF_OK;
    }
    default: /* LF_OP_EXPAND */
        return lf__binary(LF__B_FIRST, x[0].data, xd, x[0].data, xd, out->data, yd, nt);
    }
}

/* Gather: output row r is the table's row ids[r]. The IR is float32, so ids
 * arrive as floats; each must be an exact row number (an integer in [0, V),
 * exact in float below 2^24), else the op fails naming the first bad one. */
static lf_status lf__eval_gather(const lf_tensor *x, int32_t n, lf_tensor *out)
{
    if (n != 2 || x[0].shape.n != 1 || x[0].shape.c != 1)
        return lf_set_error(LF_EGRAPH, "Gather: needs a 1x1xVxD table and the ids");
    int64_t v = x[0].shape.h, d = x[0].shape.w, rows = lf_shape_count(x[1].shape);
    if (lf_shape_count(out->shape) != rows * d)
        return lf_set_error(LF_EGRAPH, "Gather: output %lldx%lldx%lldx%lld does not fit %lld ids of "
                            "rows of %lld", (long long)out->shape.n, (long long)out->shape.c,
                            (long long)out->shape.h, (long long)out->shape.w, (long long)rows,
                            (long long)d);
    for (int64_t r = 0; r < rows; r++) {
        float id = x[1].data[r];
        if (!(id >= 0.0f && id < (float)v) || id != (float)(int64_t)id)
            return lf_set_error(LF_EINVAL, "Gather: id %g at position %lld is not a row of the "
                                "table (an integer 0 to %lld)", (double)id, (long long)r,
                                (long long)(v - 1));
        memcpy(out->data + r * d, x[0].data + (int64_t)id * d, (size_t)d * sizeof(float));
    }
    return LF_OK;
}

/* Kernels write as many values as the output shape says and trust it, so
 * the output's size is checked against the operands wherever it follows
 * from them (callers other than the graph executor pass shapes by hand). */
static lf_status lf__check_out_size(lf_op_type t, const lf_attrs *a, const lf_tensor *x, int32_t n,
                                    lf_tensor *out)
{
    int64_t want = -1, got = lf_shape_count(out->shape);
    lf__dims xd = lf__dims_of(x[0].shape);
    switch (t) {
    case LF_OP_GEMM:
        want = x[0].shape.n * (int64_t)a->out_channels;
        if (out->shape.n != x[0].shape.n)
            want = -2;
        break;
    case LF_OP_CONCAT: {
        int axis = lf__single_axis(a->axes);
        want = 0;
        for (int32_t i = 0; i < n && axis >= 0; i++) {
            lf__dims d = lf__dims_of(x[i].shape), y = lf__dims_of(out->shape);
            for (int k = 0; k < 4; k++)
                if (k != axis && d.d[k] != y.d[k])
                    return lf_set_error(LF_EGRAPH, "Concat: operand %d does not fit the output", (int)i);
            want += lf_shape_count(x[i].shape);
        }
        break;
    }
    case LF_OP_GLOBALAVGPOOL:
    case LF_OP_GLOBALMAXPOOL:
        want = xd.d[0] * xd.d[1];
        break;
    case LF_OP_REDUCEMEAN:
    case LF_OP_REDUCESUM:
    case LF_OP_REDUCEMAX:
    case LF_OP_REDUCEMIN:
    case LF_OP_REDUCEPROD:
    case LF_OP_REDUCESUMSQUARE:
    case LF_OP_REDUCEL2:
        want = 1;
        for (int k = 0; k < 4; k++)
            want *= lf__mask(a->axes) & (1u << k) ? 1 : xd.d[k];
        break;
    case LF_OP_CONV:
    case LF_OP_CONVTRANSPOSE:
    case LF_OP_MAXPOOL:
    case LF_OP_AVGPOOL:
    case LF_OP_SLICE: {
        /* Batch (and for pools channels; for Slice every axis but its own)
         * must be the input's; the window extents are bounds-checked. */
        lf__dims y = lf__dims_of(out->shape);
        int axis = t == LF_OP_SLICE ? lf__single_axis(a->axes) : -1;
        for (int k = 0; k < 4; k++) {
            int keep = t == LF_OP_SLICE ? k != axis : (k == 0 || (k == 1 && (t == LF_OP_MAXPOOL || t == LF_OP_AVGPOOL)));
            if (keep && y.d[k] != xd.d[k])
                return lf_set_error(LF_EGRAPH, "%s: output %lldx%lldx%lldx%lld does not fit the input",
                                    lf_op_info_of(t)->name, (long long)y.d[0], (long long)y.d[1],
                                    (long long)y.d[2], (long long)y.d[3]);
        }
        return LF_OK;
    }
    case LF_OP_MATMUL:
    case LF_OP_GATHER:
    case LF_OP_PAD:
    case LF_OP_RESIZE:
    case LF_OP_EXPAND:
    case LF_OP_ADD:
    case LF_OP_MUL:
    case LF_OP_SUB:
    case LF_OP_DIV:
    case LF_OP_POW:
    case LF_OP_MAX:
    case LF_OP_MIN:
    case LF_OP_PRELU:
        return LF_OK; /* checked by the kernel (bounds or broadcasting) */
    default:
        /* Every other op keeps its input's size (views, element-wise ops,
         * normalisations, softmax, transpose, channel shuffle). */
        want = lf_shape_count(x[0].shape);
        break;
    }
    if (want == got)
        return LF_OK;
    return lf_set_error(LF_EGRAPH, "%s: output %lldx%lldx%lldx%lld does not fit the operands",
                        lf_op_info_of(t)->name, (long long)out->shape.n, (long long)out->shape.c,
                        (long long)out->shape.h, (long long)out->shape.w);
}

lf_status lf_exec_eval_op(lf_op_type t, const lf_attrs *a, const lf_tensor *x, int32_t n,
                          lf_tensor *out, int32_t threads)
{
    const lf_op_info *info = lf_op_info_of(t);
    if (!info || t == LF_OP_INPUT)
        return lf_set_error(LF_EUNSUPPORTED, "op type %d has no reference kernel", (int)t);
    if (!out || !out->data || (n > 0 && !x))
        return lf_set_error(LF_EINVAL, "%s: missing operand or output buffer", info->name);
    if (n < 1 || n > 64)
        return lf_set_error(LF_EGRAPH, "%s: %d operands", info->name, (int)n);
    for (int32_t i = 0; i < n; i++)
        if (!x[i].data && lf_shape_count(x[i].shape) > 0)
            return lf_set_error(LF_EINVAL, "%s: operand %d has no data", info->name, (int)i);
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
    lf__dims xd = lf__dims_of(x[0].shape);
    lf_status st = lf__check_out_size(t, a, x, n, out);
    if (st)
        return st;
    switch (t) {
    case LF_OP_CONV:
    case LF_OP_CONVTRANSPOSE:
        return lf__eval_conv(t, a, x, n, out, nt);
    case LF_OP_GEMM:
        return lf__eval_gemm(a, x, n, out, nt);
    case LF_OP_MATMUL: {
        lf_status st = lf__need(t, n, 2, 2);
        return st ? st
                  : lf__matmul(x[0].data, xd, a->trans_a, x[1].data, lf__dims_of(x[1].shape), a->trans_b,
                               out->data, lf__dims_of(out->shape), nt);
    }
    case LF_OP_BATCHNORM:
        return lf__eval_batchnorm(a, x, n, out, nt);
    case LF_OP_LAYERNORM: {
        lf_status st = lf__need(t, n, 1, 3);
        if (st)
            return st;
        float eps = a->epsilon > 0.0f ? a->epsilon : 1e-5f;
        lf__dims one = {{1, 1, 1, 1}};
        return lf__layernorm(x[0].data, xd, lf__mask(a->axes), eps, n > 1 ? x[1].data : NULL,
                             n > 1 ? lf__dims_of(x[1].shape) : one, n > 2 ? x[2].data : NULL,
                             n > 2 ? lf__dims_of(x[2].shape) : one, out->data, nt);
    }
    case LF_OP_RMSNORM: {
        lf_status st = lf__need(t, n, 1, 2);
        if (st)
            return st;
        float eps = a->epsilon > 0.0f ? a->epsilon : 1e-5f;
        lf__dims one = {{1, 1, 1, 1}};
        return lf__rmsnorm(x[0].data, xd, lf__mask(a->axes), eps, n > 1 ? x[1].data : NULL,
                           n > 1 ? lf__dims_of(x[1].shape) : one, out->data, nt);
    }
    case LF_OP_ADD:
    case LF_OP_MUL:
    case LF_OP_SUB:
    case LF_OP_DIV:
    case LF_OP_POW:
    case LF_OP_MAX:
    case LF_OP_MIN:
    case LF_OP_PRELU:
        return lf__eval_binary(t, x, n, out, nt);
    case LF_OP_CONCAT:
    case LF_OP_SLICE:
    case LF_OP_PAD:
    case LF_OP_TRANSPOSE:
    case LF_OP_EXPAND:
    case LF_OP_CHANNELSHUFFLE:
        return lf__eval_layout(t, a, x, n, out, nt);
    case LF_OP_MAXPOOL:
    case LF_OP_AVGPOOL:
        return lf__eval_pool(t, a, x, out, nt);
    case LF_OP_GATHER:
        return lf__eval_gather(x, n, out);
    case LF_OP_GLOBALAVGPOOL:
    case LF_OP_GLOBALMAXPOOL:
        lf__global_pool(x[0].data, xd, out->data, t == LF_OP_GLOBALMAXPOOL, nt);
        return LF_OK;
    case LF_OP_REDUCEMEAN:
    case LF_OP_REDUCESUM:
    case LF_OP_REDUCEMAX:
    case LF_OP_REDUCEMIN:
    case LF_OP_REDUCEPROD:
    case LF_OP_REDUCESUMSQUARE:
    case LF_OP_REDUCEL2:
        lf__reduce(lf__reduce_kind_of(t), x[0].data, xd, lf__mask(a->axes), out->data, nt);
        return LF_OK;
    case LF_OP_RESIZE:
        return lf__eval_resize(a, x, out, nt);
    case LF_OP_SOFTMAX:
    case LF_OP_LOGSOFTMAX:
        return lf__softmax(x[0].data, xd, lf__mask(a->axes), t == LF_OP_LOGSOFTMAX, a->causal,
                           out->data, nt);
    default:
        return lf__eval_unary(t, a, x, out, nt);
    }
}

lf_status lf_exec_fold(void *ctx, const lf_fold_request *rq)
{
    lf_tensor x[64];
    if (rq->n_operands > 64)
        return lf_set_error(LF_ELIMIT, "folding '%s': %d operands", rq->name, (int)rq->n_operands);
    for (int32_t i = 0; i < rq->n_operands; i++) {
        x[i].shape = rq->shapes[i];
        x[i].data = (float *)rq->data[i];
    }
    lf_tensor out = {rq->out_shape, rq->out};
    lf_status st = lf_exec_eval_op(rq->type, rq->attrs, x, rq->n_operands, &out, ctx ? *(const int32_t *)ctx : 1);
    if (st) {
        char why[512]; /* copied: lf_set_error overwrites the message it would read */
        snprintf(why, sizeof why, "%s", lf_last_error());
        return lf_set_error(st, "folding '%s': %s", rq->name, why);
    }
    return LF_OK;
}
