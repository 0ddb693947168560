/* The table of op types: names, input counts, shape inference, weights, MACs
 * and row windows. Everything type-specific that the rest of fusionplan needs
 * is answered here so that adding a type touches one file. */
#include "planner/optable.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const lf_op_info lf__ops[LF_OP_TYPE_COUNT] = {
    [LF_OP_INPUT] = {"Input", NULL, 0, 0, LF_ROWS_NONE, 0},
    [LF_OP_CONV] = {"Conv", "Conv", 1, 1, LF_ROWS_WINDOW, 0},
    [LF_OP_GEMM] = {"Gemm", "Gemm", 1, 1, LF_ROWS_WINDOW, 0},
    [LF_OP_MATMUL] = {"MatMul", "MatMul", 1, 1, LF_ROWS_WINDOW, 0},
    [LF_OP_BATCHNORM] = {"BatchNorm", "BatchNormalization", 1, 1, LF_ROWS_WINDOW, 1},
    [LF_OP_RELU] = {"Relu", "Relu", 1, 1, LF_ROWS_WINDOW, 1},
    [LF_OP_CLIP] = {"Clip", "Clip", 1, 1, LF_ROWS_WINDOW, 1},
    [LF_OP_SIGMOID] = {"Sigmoid", "Sigmoid", 1, 1, LF_ROWS_WINDOW, 1},
    [LF_OP_HARDSIGMOID] = {"HardSigmoid", "HardSigmoid", 1, 1, LF_ROWS_WINDOW, 1},
    [LF_OP_HARDSWISH] = {"HardSwish", "HardSwish", 1, 1, LF_ROWS_WINDOW, 1},
    [LF_OP_SILU] = {"SiLU", NULL, 1, 1, LF_ROWS_WINDOW, 1},
    [LF_OP_ADD] = {"Add", "Add", 2, 8, LF_ROWS_WINDOW, 1},
    [LF_OP_MUL] = {"Mul", "Mul", 2, 8, LF_ROWS_WINDOW, 1},
    [LF_OP_CONCAT] = {"Concat", "Concat", 1, 64, LF_ROWS_VIEW, 0},
    [LF_OP_SLICE] = {"Slice", "Slice", 1, 1, LF_ROWS_WINDOW, 0},
    [LF_OP_MAXPOOL] = {"MaxPool", "MaxPool", 1, 1, LF_ROWS_WINDOW, 0},
    [LF_OP_AVGPOOL] = {"AveragePool", "AveragePool", 1, 1, LF_ROWS_WINDOW, 0},
    [LF_OP_GLOBALAVGPOOL] = {"GlobalAveragePool", "GlobalAveragePool", 1, 1, LF_ROWS_REDUCTION, 0},
    [LF_OP_PAD] = {"Pad", "Pad", 1, 1, LF_ROWS_WINDOW, 0},
    [LF_OP_RESIZE] = {"Resize", "Resize", 1, 1, LF_ROWS_RESIZE, 0},
    [LF_OP_FLATTEN] = {"Flatten", "Flatten", 1, 1, LF_ROWS_VIEW, 0},
    [LF_OP_RESHAPE] = {"Reshape", "Reshape", 1, 1, LF_ROWS_VIEW, 0},
    [LF_OP_SOFTMAX] = {"Softmax", "Softmax", 1, 1, LF_ROWS_WINDOW, 0},
    [LF_OP_IDENTITY] = {"Identity", "Identity", 1, 1, LF_ROWS_VIEW, 1},
};

static const char *const lf__act_names[LF_ACT_COUNT] = {
    "none", "relu", "relu6", "sigmoid", "hardsigmoid", "hardswish", "silu",
};

const lf_op_info *lf_op_info_of(lf_op_type t)
{
    if ((int)t < 0 || t >= LF_OP_TYPE_COUNT)
        return NULL;
    return &lf__ops[t];
}

lf_op_type lf_op_type_from_name(const char *name)
{
    for (int t = 0; t < LF_OP_TYPE_COUNT; t++) {
        if (strcmp(lf__ops[t].name, name) == 0 ||
            (lf__ops[t].onnx_name && strcmp(lf__ops[t].onnx_name, name) == 0))
            return (lf_op_type)t;
    }
    return LF_OP_TYPE_COUNT;
}

const char *lf_act_name(lf_act a)
{
    if ((int)a < 0 || a >= LF_ACT_COUNT)
        return "?";
    return lf__act_names[a];
}

lf_act lf_act_from_name(const char *name)
{
    for (int a = 0; a < LF_ACT_COUNT; a++)
        if (strcmp(lf__act_names[a], name) == 0)
            return (lf_act)a;
    return LF_ACT_COUNT;
}

static int32_t lf__one(int32_t v) { return v > 0 ? v : 1; }

/* Output length of a sliding window (conv or pool) along one axis, following
 * the framework rule: floor, or ceil where the last window must still start
 * inside the padded input. */
static int64_t lf__window_out(int64_t in, int32_t k, int32_t s, int32_t d, int32_t p0, int32_t p1,
                              int32_t ceil_mode)
{
    int64_t span = in + p0 + p1 - (int64_t)d * (k - 1) - 1;
    if (span < 0)
        return 0;
    int64_t out = ceil_mode ? (span + s - 1) / s + 1 : span / s + 1;
    if (ceil_mode && (out - 1) * s >= in + p0)
        out--;
    return out;
}

static lf_status lf__fail(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static lf_status lf__fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return LF_EGRAPH;
}

static lf_status lf__infer_window(lf_op_type t, const lf_attrs *a, const lf_shape *x, lf_shape *out,
                                  char *err, size_t errlen)
{
    int32_t kh = lf__one(a->kh), kw = lf__one(a->kw), sh = lf__one(a->sh), sw = lf__one(a->sw);
    int32_t dh = lf__one(a->dh), dw = lf__one(a->dw);
    *out = *x;
    if (t == LF_OP_CONV) {
        int32_t g = lf__one(a->groups);
        if (a->out_channels <= 0)
            return lf__fail(err, errlen, "out_channels must be positive, got %d", (int)a->out_channels);
        if (x->c % g != 0 || a->out_channels % g != 0)
            return lf__fail(err, errlen, "%lld input channels or %d output channels not divisible by groups %d",
                            (long long)x->c, (int)a->out_channels, (int)g);
        out->c = a->out_channels;
    }
    out->h = lf__window_out(x->h, kh, sh, dh, a->pad_top, a->pad_bottom, a->ceil_mode);
    out->w = lf__window_out(x->w, kw, sw, dw, a->pad_left, a->pad_right, a->ceil_mode);
    if (out->h <= 0 || out->w <= 0)
        return lf__fail(err, errlen, "window larger than the padded %lldx%lld input", (long long)x->h,
                            (long long)x->w);
    return LF_OK;
}

/* Two shapes can meet in an element-wise op when equal, or when one is a
 * per-channel vector (C x 1 x 1) or a scalar broadcast over the other. */
static int lf__broadcasts(const lf_shape *big, const lf_shape *small)
{
    if (small->n != big->n && small->n != 1)
        return 0;
    if (small->h == big->h && small->w == big->w && small->c == big->c)
        return 1;
    return small->h == 1 && small->w == 1 && (small->c == big->c || small->c == 1);
}

lf_status lf_op_infer(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                      lf_shape *out, char *err, size_t errlen)
{
    const lf_op_info *info = lf_op_info_of(t);
    if (!info) {
        snprintf(err, errlen, "unknown op type %d", (int)t);
        return LF_EUNSUPPORTED;
    }
    if (n_in < info->min_inputs || n_in > info->max_inputs) {
        snprintf(err, errlen, "%s takes %d to %d inputs, got %d", info->name, (int)info->min_inputs,
                 (int)info->max_inputs, (int)n_in);
        return LF_EGRAPH;
    }
    switch (t) {
    case LF_OP_INPUT:
        out->n = lf__one(a->batch);
        out->c = a->in_c;
        out->h = a->in_h;
        out->w = a->in_w;
        if (a->in_c <= 0 || a->in_h <= 0 || a->in_w <= 0)
            return lf__fail(err, errlen, "input shape must be positive, got %dx%dx%d", (int)a->in_c,
                            (int)a->in_h, (int)a->in_w);
        return LF_OK;
    case LF_OP_CONV:
    case LF_OP_MAXPOOL:
    case LF_OP_AVGPOOL:
        return lf__infer_window(t, a, &in[0], out, err, errlen);
    case LF_OP_GEMM:
    case LF_OP_MATMUL:
        if (a->out_channels <= 0)
            return lf__fail(err, errlen, "out_channels must be positive, got %d", (int)a->out_channels);
        *out = (lf_shape){in[0].n, a->out_channels, 1, 1};
        return LF_OK;
    case LF_OP_ADD:
    case LF_OP_MUL: {
        /* The output takes the largest operand's shape; every other operand
         * must equal it or broadcast over it. */
        int32_t big = 0;
        for (int32_t i = 1; i < n_in; i++)
            if (in[i].c * in[i].h * in[i].w > in[big].c * in[big].h * in[big].w)
                big = i;
        for (int32_t i = 0; i < n_in; i++)
            if (!lf__broadcasts(&in[big], &in[i])) {
                snprintf(err, errlen, "operand %d shape %lldx%lldx%lld does not match %lldx%lldx%lld",
                         (int)i, (long long)in[i].c, (long long)in[i].h, (long long)in[i].w,
                         (long long)in[big].c, (long long)in[big].h, (long long)in[big].w);
                return LF_EGRAPH;
            }
        *out = in[big];
        return LF_OK;
    }
    case LF_OP_CONCAT:
        *out = in[0];
        for (int32_t i = 1; i < n_in; i++) {
            if (in[i].n != in[0].n || in[i].h != in[0].h || in[i].w != in[0].w) {
                snprintf(err, errlen, "concat operand %d is %lldx%lld, operand 0 is %lldx%lld",
                         (int)i, (long long)in[i].h, (long long)in[i].w, (long long)in[0].h,
                         (long long)in[0].w);
                return LF_EGRAPH;
            }
            out->c += in[i].c;
        }
        return LF_OK;
    case LF_OP_SLICE:
        if (a->slice_begin < 0 || a->slice_end <= a->slice_begin || a->slice_end > in[0].c)
            return lf__fail(err, errlen, "channel slice [%d, %d) outside the %lld input channels",
                            (int)a->slice_begin, (int)a->slice_end, (long long)in[0].c);
        *out = in[0];
        out->c = a->slice_end - a->slice_begin;
        return LF_OK;
    case LF_OP_GLOBALAVGPOOL:
        *out = (lf_shape){in[0].n, in[0].c, 1, 1};
        return LF_OK;
    case LF_OP_PAD:
        if (a->pad_top < 0 || a->pad_bottom < 0 || a->pad_left < 0 || a->pad_right < 0)
            return lf__fail(err, errlen, "negative padding");
        *out = in[0];
        out->h += a->pad_top + a->pad_bottom;
        out->w += a->pad_left + a->pad_right;
        return LF_OK;
    case LF_OP_RESIZE:
        *out = in[0];
        if (a->out_h > 0 && a->out_w > 0) {
            out->h = a->out_h;
            out->w = a->out_w;
        } else if (a->scale > 0) {
            out->h = in[0].h * a->scale;
            out->w = in[0].w * a->scale;
        } else {
            return lf__fail(err, errlen, "resize needs an output size or a positive scale");
        }
        return LF_OK;
    case LF_OP_FLATTEN:
        *out = (lf_shape){in[0].n, in[0].c * in[0].h * in[0].w, 1, 1};
        return LF_OK;
    case LF_OP_RESHAPE: {
        int64_t total = in[0].c * in[0].h * in[0].w;
        int64_t dims[3] = {a->shape_c, a->shape_h, a->shape_w};
        int64_t src[3] = {in[0].c, in[0].h, in[0].w};
        int64_t known = 1;
        int infer = -1;
        for (int i = 0; i < 3; i++) {
            if (dims[i] == 0)
                dims[i] = src[i];
            if (dims[i] == -1) {
                if (infer >= 0)
                    return lf__fail(err, errlen, "reshape with two inferred dims");
                infer = i;
            } else if (dims[i] < 0) {
                return lf__fail(err, errlen, "reshape dim %lld is negative", (long long)dims[i]);
            } else {
                known *= dims[i];
            }
        }
        if (infer >= 0 && known > 0 && total % known == 0)
            dims[infer] = total / known;
        if (dims[0] * dims[1] * dims[2] != total)
            return lf__fail(err, errlen, "reshape to %lld elements from %lld",
                            (long long)(dims[0] * dims[1] * dims[2]), (long long)total);
        *out = (lf_shape){in[0].n, dims[0], dims[1], dims[2]};
        return LF_OK;
    }
    default:
        /* Unary element-wise ops and BatchNorm keep their input's shape. */
        *out = in[0];
        return LF_OK;
    }
}

void lf_op_weights(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                   const lf_shape *out, int64_t *weight_elems, int64_t *param_count)
{
    int64_t w = 0, bias = 0;
    (void)n_in;
    switch (t) {
    case LF_OP_CONV:
        w = (int64_t)out->c * (in[0].c / lf__one(a->groups)) * lf__one(a->kh) * lf__one(a->kw);
        bias = out->c;
        break;
    case LF_OP_GEMM:
    case LF_OP_MATMUL:
        w = in[0].c * in[0].h * in[0].w * out->c;
        bias = out->c;
        break;
    case LF_OP_BATCHNORM:
        /* At inference a BatchNorm is a per-channel scale and shift. */
        *weight_elems = 2 * in[0].c;
        *param_count = 2 * in[0].c;
        return;
    default:
        *weight_elems = 0;
        *param_count = 0;
        return;
    }
    int has_stored_bias = a->has_bias || a->folded_bn;
    *weight_elems = w + (has_stored_bias ? bias : 0);
    /* The framework counts the conv's own bias and BatchNorm's gamma and beta;
     * folding merges them into one stored bias vector. */
    *param_count = w + (a->has_bias ? bias : 0) + (a->folded_bn ? 2 * bias : 0);
}

int64_t lf_op_macs(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                   const lf_shape *out)
{
    (void)n_in;
    switch (t) {
    case LF_OP_CONV:
        return out->n * out->c * out->h * out->w * (in[0].c / lf__one(a->groups)) * lf__one(a->kh) *
               lf__one(a->kw);
    case LF_OP_GEMM:
    case LF_OP_MATMUL:
        return out->n * in[0].c * in[0].h * in[0].w * out->c;
    default:
        return 0;
    }
}

void lf_op_row_window(const lf_op *op, int32_t *k, int32_t *stride, int32_t *pad_top)
{
    switch (op->type) {
    case LF_OP_CONV:
    case LF_OP_MAXPOOL:
    case LF_OP_AVGPOOL:
        *k = lf__one(op->attr.dh) * (lf__one(op->attr.kh) - 1) + 1;
        *stride = lf__one(op->attr.sh);
        *pad_top = op->attr.pad_top;
        return;
    case LF_OP_PAD:
        *k = 1;
        *stride = 1;
        *pad_top = op->attr.pad_top;
        return;
    default:
        *k = 1;
        *stride = 1;
        *pad_top = 0;
        return;
    }
}
