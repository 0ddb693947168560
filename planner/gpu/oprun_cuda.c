/* One op prepared for timing on the GPU and enqueued with cuDNN, cuBLAS or
 * strided copies (built only with LF_HAVE_CUDA).
 *
 * Operands get device buffers of their shapes filled with the bytes 0x3c
 * (every float 0.0115: finite, positive, a valid variance, square root and
 * logarithm). Element-wise ops that cuDNN has no kernel for are timed as the
 * cuDNN activation or OpTensor of the same shape (they are memory bound and
 * move the same bytes): HardSigmoid, Exp, Erf, Log as Sigmoid; HardSwish,
 * Gelu as Swish; Softplus as Elu; LeakyRelu, Neg, Abs, Reciprocal, Floor,
 * Ceil as Relu; Div and Pow as Mul. docs/gpu.md lists them. Which kind of
 * kernel an op gets is the op table's (lf_op_info.gpu); the switches here
 * only pick the cuDNN call or mode within that kind. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/gpu/oprun_internal.h"
#include "planner/optable.h"

#define LF__FILL_BYTE 0x3c

#define LF__CU(call, what)                                                                              \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess)                                                                          \
            return lf_set_error(LF_EIO, "op %s: %s failed: %s", op->name, what, cudaGetErrorString(e_)); \
    } while (0)
#define LF__DNN(call, what)                                                                              \
    do {                                                                                                 \
        cudnnStatus_t e_ = (call);                                                                       \
        if (e_ != CUDNN_STATUS_SUCCESS)                                                                  \
            return lf_set_error(LF_EIO, "op %s: %s failed: %s", op->name, what, cudnnGetErrorString(e_)); \
    } while (0)

static lf_shape lf__opnd_shape(const lf_graph *g, const lf_operand *o)
{
    return o->kind == LF_OPND_TENSOR ? g->ops[o->id].out : g->consts[o->id].shape;
}

static int64_t lf__elems(lf_shape s) { return s.n * s.c * s.h * s.w; }

static int lf__fits_int(lf_shape s)
{
    return s.n > 0 && s.c > 0 && s.h > 0 && s.w > 0 && s.n <= INT_MAX && s.c <= INT_MAX && s.h <= INT_MAX &&
           s.w <= INT_MAX && lf__elems(s) <= INT_MAX;
}

/* A filled device buffer of `elems` floats, kept in r. */
static lf_status lf__alloc(lf__oprun *r, const lf_op *op, int64_t elems, void **out)
{
    if (r->n_buf == LF__RUN_MAX_BUFS)
        return lf_set_error(LF_ELIMIT, "op %s: too many operands to time", op->name);
    if (elems <= 0)
        elems = 1;
    void *p = NULL;
    LF__CU(cudaMalloc(&p, (size_t)elems * sizeof(float)), "GPU allocation");
    r->buf[r->n_buf++] = p;
    LF__CU(cudaMemset(p, LF__FILL_BYTE, (size_t)elems * sizeof(float)), "GPU fill");
    *out = p;
    return LF_OK;
}

static lf_status lf__tensor(lf__oprun *r, const lf_op *op, int i, lf_shape s)
{
    if (!lf__fits_int(s))
        return lf_set_error(LF_EUNSUPPORTED, "op %s: tensor too large for a cuDNN descriptor", op->name);
    if (!r->t[i])
        LF__DNN(cudnnCreateTensorDescriptor(&r->t[i]), "tensor descriptor");
    LF__DNN(cudnnSetTensor4dDescriptor(r->t[i], CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)s.n, (int)s.c, (int)s.h,
                                       (int)s.w),
            "tensor descriptor");
    return LF_OK;
}

static lf_status lf__activation(lf__oprun *r, const lf_op *op, cudnnActivationMode_t mode, double coef)
{
    LF__DNN(cudnnCreateActivationDescriptor(&r->act), "activation descriptor");
    LF__DNN(cudnnSetActivationDescriptor(r->act, mode, CUDNN_NOT_PROPAGATE_NAN, coef), "activation descriptor");
    return LF_OK;
}

/* The epilogue activation of a Conv or Gemm (NONE: no activation call). */
static lf_status lf__epilogue(lf__oprun *r, const lf_op *op)
{
    switch (op->attr.act) {
    case LF_ACT_NONE: return LF_OK;
    case LF_ACT_RELU: return lf__activation(r, op, CUDNN_ACTIVATION_RELU, 0.0);
    case LF_ACT_RELU6: return lf__activation(r, op, CUDNN_ACTIVATION_CLIPPED_RELU, 6.0);
    case LF_ACT_SIGMOID:
    case LF_ACT_HARDSIGMOID: return lf__activation(r, op, CUDNN_ACTIVATION_SIGMOID, 0.0);
    default: return lf__activation(r, op, CUDNN_ACTIVATION_SWISH, 1.0); /* SiLU, HardSwish */
    }
}

static lf_status lf__prep_conv(lf__gpu_ctx *ctx, const lf_graph *g, const lf_op *op, lf__oprun *r)
{
    const lf_attrs *a = &op->attr;
    lf_shape x = lf__opnd_shape(g, &op->operands[0]);
    int groups = a->groups > 0 ? a->groups : 1;
    int kh = a->kh > 0 ? a->kh : 1, kw = a->kw > 0 ? a->kw : 1;
    if (!lf__fits_int(op->out) || x.c % groups)
        return lf_set_error(LF_EUNSUPPORTED, "op %s: convolution shape not timed", op->name);
    lf_status st;
    void *xb = NULL, *wb = NULL, *yb = NULL, *bb = NULL;
    if ((st = lf__tensor(r, op, 0, x)) || (st = lf__alloc(r, op, lf__elems(x), &xb)))
        return st;
    LF__DNN(cudnnCreateFilterDescriptor(&r->w), "filter descriptor");
    LF__DNN(cudnnSetFilter4dDescriptor(r->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, (int)op->out.c,
                                       (int)(x.c / groups), kh, kw),
            "filter descriptor");
    if ((st = lf__alloc(r, op, op->out.c * (x.c / groups) * kh * kw, &wb)))
        return st;
    LF__DNN(cudnnCreateConvolutionDescriptor(&r->conv), "convolution descriptor");
    LF__DNN(cudnnSetConvolution2dDescriptor(r->conv, a->pad_top, a->pad_left, a->sh > 0 ? a->sh : 1,
                                            a->sw > 0 ? a->sw : 1, a->dh > 0 ? a->dh : 1, a->dw > 0 ? a->dw : 1,
                                            CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            "convolution descriptor");
    LF__DNN(cudnnSetConvolutionGroupCount(r->conv, groups), "convolution groups");
    int n = 0, c = 0, h = 0, w = 0; /* cuDNN's output (symmetric padding: top and left) */
    LF__DNN(cudnnGetConvolution2dForwardOutputDim(r->conv, r->t[0], r->w, &n, &c, &h, &w), "output size");
    lf_shape y = {n, c, h, w};
    if ((st = lf__tensor(r, op, 1, y)) || (st = lf__alloc(r, op, lf__elems(y), &yb)))
        return st;
    r->out = yb;
    r->has_bias = op->n_operands == 3;
    if (r->has_bias) {
        if ((st = lf__tensor(r, op, 2, (lf_shape){1, c, 1, 1})) || (st = lf__alloc(r, op, c, &bb)))
            return st;
    }
    if ((st = lf__epilogue(r, op)))
        return st;
    /* Everything the descriptors hold, and the workspace the algorithm may use. */
    char key[192];
    snprintf(key, sizeof key, "%lld,%lld,%lld,%lld>%d,%d,%d|k%dx%d|p%d,%d|s%d,%d|d%d,%d|g%d|ws%zu", (long long)x.n,
             (long long)x.c, (long long)x.h, (long long)x.w, c, h, w, kh, kw, a->pad_top, a->pad_left,
             a->sh > 0 ? a->sh : 1, a->sw > 0 ? a->sw : 1, a->dh > 0 ? a->dh : 1, a->dw > 0 ? a->dw : 1, groups,
             ctx->ws_bytes);
    void *known = NULL;
    if (ctx->conv_algos && lf_strmap_get(ctx->conv_algos, key, &known)) {
        const lf__conv_choice *choice = known;
        r->algo = choice->algo;
        r->algo_ws = choice->ws;
        return LF_OK;
    }
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    LF__DNN(cudnnFindConvolutionForwardAlgorithmEx(ctx->dnn, r->t[0], xb, r->w, wb, r->conv, r->t[1], yb,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf, ctx->workspace,
                                                   ctx->ws_bytes),
            "cudnnFindConvolutionForwardAlgorithmEx");
    for (int i = 0; i < found; i++)
        if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= ctx->ws_bytes) {
            r->algo = perf[i].algo;
            r->algo_ws = perf[i].memory;
            lf__conv_choice *choice = ctx->conv_algos ? malloc(sizeof *choice) : NULL;
            if (choice) { /* without room the next stage finds it again */
                choice->algo = r->algo;
                choice->ws = r->algo_ws;
                if (lf_strmap_put(ctx->conv_algos, key, choice) != LF_OK)
                    free(choice);
            }
            return LF_OK;
        }
    return lf_set_error(LF_EUNSUPPORTED, "op %s: cuDNN found no convolution algorithm", op->name);
}

static lf_status lf__prep_gemm(const lf_graph *g, const lf_op *op, lf__oprun *r)
{
    lf_shape x = lf__opnd_shape(g, &op->operands[0]);
    int64_t m = op->out.n, k = x.c * x.h * x.w, n = op->out.c;
    if (m > INT_MAX || k > INT_MAX || n > INT_MAX || m * k > INT_MAX || k * n > INT_MAX)
        return lf_set_error(LF_EUNSUPPORTED, "op %s: GEMM too large to time", op->name);
    lf_status st;
    void *xb, *wb, *yb, *bb;
    if ((st = lf__alloc(r, op, m * k, &xb)) || (st = lf__alloc(r, op, k * n, &wb)) ||
        (st = lf__alloc(r, op, m * n, &yb)))
        return st;
    r->out = yb;
    /* row-major Y (m x n) = X (m x k) W^T, i.e. column-major Y^T = W X^T */
    r->m = (int32_t)n, r->n = (int32_t)m, r->k = (int32_t)k, r->batch = 1;
    r->op_a = CUBLAS_OP_T, r->op_b = CUBLAS_OP_N, r->lda = (int32_t)k, r->ldb = (int32_t)k;
    r->has_bias = op->n_operands == 3;
    if ((st = lf__tensor(r, op, 1, op->out)))
        return st;
    if (r->has_bias && ((st = lf__tensor(r, op, 2, (lf_shape){1, n, 1, 1})) || (st = lf__alloc(r, op, n, &bb))))
        return st;
    return lf__epilogue(r, op);
}

static lf_status lf__prep_matmul(const lf_graph *g, const lf_op *op, lf__oprun *r)
{
    const lf_attrs *at = &op->attr;
    lf_shape A = lf__opnd_shape(g, &op->operands[0]), B = lf__opnd_shape(g, &op->operands[1]);
    int64_t m = at->trans_a ? A.w : A.h, k = at->trans_a ? A.h : A.w, p = at->trans_b ? B.h : B.w;
    int64_t batch = op->out.n * op->out.c;
    int64_t ba = A.n * A.c == 1 ? 1 : batch, bb = B.n * B.c == 1 ? 1 : batch;
    if (m > INT_MAX || k > INT_MAX || p > INT_MAX || batch > INT_MAX || batch * m * p > INT_MAX ||
        ba * m * k > INT_MAX || bb * k * p > INT_MAX)
        return lf_set_error(LF_EUNSUPPORTED, "op %s: MatMul too large to time", op->name);
    lf_status st;
    void *ab, *bbuf, *cb;
    if ((st = lf__alloc(r, op, ba * m * k, &ab)) || (st = lf__alloc(r, op, bb * k * p, &bbuf)) ||
        (st = lf__alloc(r, op, batch * m * p, &cb)))
        return st;
    r->out = cb;
    /* row-major C (m x p) = A B, i.e. column-major C^T = B^T A^T: cuBLAS's
     * first operand is B, its second A */
    r->m = (int32_t)p, r->n = (int32_t)m, r->k = (int32_t)k, r->batch = (int32_t)batch;
    r->op_a = at->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    r->lda = (int32_t)(at->trans_b ? k : p);
    r->op_b = at->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    r->ldb = (int32_t)(at->trans_a ? m : k);
    r->stride_a = bb == 1 ? 0 : (long long)(k * p);
    r->stride_b = ba == 1 ? 0 : (long long)(m * k);
    return LF_OK;
}

/* An element-wise unary op from x to y (a merged stage's epilogue runs on
 * the merged output, a shape no op of the graph has). */
static lf_status lf__prep_unary_shaped(const lf_op *op, lf_shape x, lf_shape y, lf__oprun *r)
{
    lf_status st;
    void *xb, *yb;
    if ((st = lf__tensor(r, op, 0, x)) || (st = lf__tensor(r, op, 1, y)) ||
        (st = lf__alloc(r, op, lf__elems(x), &xb)) || (st = lf__alloc(r, op, lf__elems(y), &yb)))
        return st;
    r->out = yb;
    if (op->type == LF_OP_SQRT) {
        r->kind = LF__RUN_SQRT;
        LF__DNN(cudnnCreateOpTensorDescriptor(&r->optensor), "OpTensor descriptor");
        LF__DNN(cudnnSetOpTensorDescriptor(r->optensor, CUDNN_OP_TENSOR_SQRT, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN),
                "OpTensor descriptor");
        return LF_OK;
    }
    r->kind = LF__RUN_ACTIVATION;
    switch (op->type) {
    case LF_OP_CLIP:
        return lf__activation(r, op, CUDNN_ACTIVATION_CLIPPED_RELU,
                              op->attr.clip_max > 0 && op->attr.clip_max < 1e30f ? op->attr.clip_max : 6.0);
    case LF_OP_SIGMOID: case LF_OP_HARDSIGMOID: case LF_OP_EXP: case LF_OP_ERF: case LF_OP_LOG:
        return lf__activation(r, op, CUDNN_ACTIVATION_SIGMOID, 0.0);
    case LF_OP_TANH:
        return lf__activation(r, op, CUDNN_ACTIVATION_TANH, 0.0);
    case LF_OP_SILU: case LF_OP_HARDSWISH: case LF_OP_GELU:
        return lf__activation(r, op, CUDNN_ACTIVATION_SWISH, 1.0);
    case LF_OP_ELU: case LF_OP_SOFTPLUS:
        return lf__activation(r, op, CUDNN_ACTIVATION_ELU, op->attr.alpha != 0 ? op->attr.alpha : 1.0);
    default: /* Relu and the proxies timed as Relu */
        return lf__activation(r, op, CUDNN_ACTIVATION_RELU, 0.0);
    }
}

static lf_status lf__prep_unary(const lf_graph *g, const lf_op *op, lf__oprun *r)
{
    return lf__prep_unary_shaped(op, lf__opnd_shape(g, &op->operands[0]), op->out, r);
}

static lf_status lf__prep_binary(const lf_graph *g, const lf_op *op, lf__oprun *r)
{
    lf_shape s0 = lf__opnd_shape(g, &op->operands[0]), s1 = lf__opnd_shape(g, &op->operands[1]);
    int full0 = s0.n == op->out.n && s0.c == op->out.c && s0.h == op->out.h && s0.w == op->out.w;
    lf_shape b = full0 ? s1 : s0; /* A has the output's shape; B broadcasts */
    lf_status st;
    void *ab, *bb, *cb;
    if ((st = lf__tensor(r, op, 0, op->out)) || (st = lf__tensor(r, op, 1, b)) ||
        (st = lf__alloc(r, op, lf__elems(op->out), &ab)) || (st = lf__alloc(r, op, lf__elems(b), &bb)) ||
        (st = lf__alloc(r, op, lf__elems(op->out), &cb)))
        return st;
    r->out = cb;
    cudnnOpTensorOp_t o = CUDNN_OP_TENSOR_MUL; /* Mul, and Div and Pow timed as Mul */
    r->alpha2 = 1.0f;
    if (op->type == LF_OP_ADD || op->type == LF_OP_SUB)
        o = CUDNN_OP_TENSOR_ADD;
    if (op->type == LF_OP_SUB)
        r->alpha2 = -1.0f;
    if (op->type == LF_OP_MAX)
        o = CUDNN_OP_TENSOR_MAX;
    if (op->type == LF_OP_MIN)
        o = CUDNN_OP_TENSOR_MIN;
    LF__DNN(cudnnCreateOpTensorDescriptor(&r->optensor), "OpTensor descriptor");
    LF__DNN(cudnnSetOpTensorDescriptor(r->optensor, o, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN),
            "OpTensor descriptor");
    return LF_OK;
}

static lf_status lf__prep_pool(const lf_graph *g, const lf_op *op, lf__oprun *r)
{
    const lf_attrs *a = &op->attr;
    lf_shape x = lf__opnd_shape(g, &op->operands[0]);
    int global = op->type == LF_OP_GLOBALAVGPOOL || op->type == LF_OP_GLOBALMAXPOOL;
    int avg = op->type == LF_OP_AVGPOOL || op->type == LF_OP_GLOBALAVGPOOL;
    cudnnPoolingMode_t mode = !avg ? CUDNN_POOLING_MAX
                              : a->count_include_pad ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                     : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    if (!lf__fits_int(x))
        return lf_set_error(LF_EUNSUPPORTED, "op %s: pool too large to time", op->name);
    int kh = global ? (int)x.h : a->kh > 0 ? a->kh : 1, kw = global ? (int)x.w : a->kw > 0 ? a->kw : 1;
    int sh = global ? 1 : a->sh > 0 ? a->sh : 1, sw = global ? 1 : a->sw > 0 ? a->sw : 1;
    LF__DNN(cudnnCreatePoolingDescriptor(&r->pool), "pooling descriptor");
    LF__DNN(cudnnSetPooling2dDescriptor(r->pool, mode, CUDNN_NOT_PROPAGATE_NAN, kh, kw, global ? 0 : a->pad_top,
                                        global ? 0 : a->pad_left, sh, sw),
            "pooling descriptor");
    lf_status st;
    void *xb, *yb;
    if ((st = lf__tensor(r, op, 0, x)) || (st = lf__alloc(r, op, lf__elems(x), &xb)))
        return st;
    int n = 0, c = 0, h = 0, w = 0;
    LF__DNN(cudnnGetPooling2dForwardOutputDim(r->pool, r->t[0], &n, &c, &h, &w), "pooling output size");
    lf_shape y = {n, c, h, w};
    if ((st = lf__tensor(r, op, 1, y)) || (st = lf__alloc(r, op, lf__elems(y), &yb)))
        return st;
    r->out = yb;
    return LF_OK;
}

static lf_status lf__prep_batchnorm(const lf_graph *g, const lf_op *op, lf__oprun *r)
{
    lf_shape x = lf__opnd_shape(g, &op->operands[0]);
    lf_status st;
    void *p;
    if ((st = lf__tensor(r, op, 0, x)) || (st = lf__tensor(r, op, 1, (lf_shape){1, x.c, 1, 1})) ||
        (st = lf__alloc(r, op, lf__elems(x), &p)) || (st = lf__alloc(r, op, lf__elems(x), &r->out)))
        return st;
    for (int i = 0; i < 4; i++) /* scale, bias, mean, variance */
        if ((st = lf__alloc(r, op, x.c, &p)))
            return st;
    r->epsilon = op->attr.epsilon > 0 ? op->attr.epsilon : 1e-5;
    if (r->epsilon < CUDNN_BN_MIN_EPSILON)
        r->epsilon = CUDNN_BN_MIN_EPSILON;
    return LF_OK;
}

static lf_status lf__prep_softmax(const lf_graph *g, const lf_op *op, lf__oprun *r)
{
    lf_shape x = lf__opnd_shape(g, &op->operands[0]);
    lf_status st;
    void *xb;
    if ((st = lf__tensor(r, op, 0, x)) || (st = lf__alloc(r, op, lf__elems(x), &xb)) ||
        (st = lf__alloc(r, op, lf__elems(x), &r->out)))
        return st;
    r->softmax_mode = op->attr.axes == 0 || op->attr.axes == LF_AXES(LF_DIM_C) ? CUDNN_SOFTMAX_MODE_CHANNEL
                                                                             : CUDNN_SOFTMAX_MODE_INSTANCE;
    r->softmax_algo = op->type == LF_OP_LOGSOFTMAX ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE;
    return LF_OK;
}

static lf_status lf__prep_concat(const lf_graph *g, const lf_op *op, lf__oprun *r)
{
    if (op->n_operands > 64)
        return lf_set_error(LF_EUNSUPPORTED, "op %s: Concat of more than 64 inputs not timed", op->name);
    lf_status st;
    size_t plane = (size_t)(op->out.h * op->out.w) * sizeof(float), off = 0;
    for (int32_t i = 0; i < op->n_operands; i++) {
        lf_shape s = lf__opnd_shape(g, &op->operands[i]);
        void *p;
        if ((st = lf__alloc(r, op, lf__elems(s), &p)))
            return st;
        r->part_bytes[i] = (size_t)s.c * plane;
        r->part_offset[i] = off;
        off += r->part_bytes[i];
    }
    r->n_parts = op->n_operands;
    r->row_bytes = off;
    r->rows = (size_t)op->out.n;
    return lf__alloc(r, op, lf__elems(op->out), &r->out);
}

lf_status lf__oprun_prepare(lf__gpu_ctx *ctx, const lf_graph *g, int32_t v, lf__oprun *r)
{
    const lf_op *op = &g->ops[v];
    memset(r, 0, sizeof *r);
    lf_status st;
    switch (lf_op_info_of(op->type)->gpu) { /* the op table's kernel class */
    case LF_GPU_CONV: r->kind = LF__RUN_CONV, st = lf__prep_conv(ctx, g, op, r); break;
    case LF_GPU_GEMM: r->kind = LF__RUN_GEMM, st = lf__prep_gemm(g, op, r); break;
    case LF_GPU_MATMUL: r->kind = LF__RUN_MATMUL, st = lf__prep_matmul(g, op, r); break;
    case LF_GPU_BATCHNORM: r->kind = LF__RUN_BATCHNORM, st = lf__prep_batchnorm(g, op, r); break;
    case LF_GPU_UNARY: st = lf__prep_unary(g, op, r); break; /* an activation or Sqrt's OpTensor */
    case LF_GPU_BINARY: r->kind = LF__RUN_BINARY, st = lf__prep_binary(g, op, r); break;
    case LF_GPU_POOL: r->kind = LF__RUN_POOL, st = lf__prep_pool(g, op, r); break;
    case LF_GPU_SOFTMAX: r->kind = LF__RUN_SOFTMAX, st = lf__prep_softmax(g, op, r); break;
    case LF_GPU_CONCAT: r->kind = LF__RUN_CONCAT, st = lf__prep_concat(g, op, r); break;
    default:
        return lf_set_error(LF_EUNSUPPORTED, "op %s: not measured on the GPU", op->name);
    }
    if (st)
        lf__oprun_release(r);
    return st;
}

lf_status lf__oprun_prepare_merged(lf__gpu_ctx *ctx, const lf_graph *g, const int32_t *convs, int32_t n,
                                   int32_t epilogue, lf__oprun *conv, lf__oprun *epi)
{
    memset(conv, 0, sizeof *conv);
    memset(epi, 0, sizeof *epi);
    if (n < 1)
        return lf_set_error(LF_EINVAL, "merged stage: no convolutions");
    const lf_op *first = &g->ops[convs[0]];
    lf_op m = *first; /* the merged convolution: the first one, widened */
    int64_t cout = 0;
    int bias = 0;
    for (int32_t i = 0; i < n; i++) {
        const lf_op *op = &g->ops[convs[i]];
        const lf_op_info *info = lf_op_info_of(op->type);
        if (!info || info->gpu != LF_GPU_CONV || op->n_operands < 1 ||
            op->operands[0].kind != first->operands[0].kind || op->operands[0].id != first->operands[0].id ||
            op->attr.groups > 1)
            return lf_set_error(LF_EUNSUPPORTED, "merged stage: op %s is not a convolution of %s's input", op->name,
                                first->name);
        cout += op->out.c;
        bias |= op->n_operands == 3;
        m.attr.kh = op->attr.kh > m.attr.kh ? op->attr.kh : m.attr.kh;
        m.attr.kw = op->attr.kw > m.attr.kw ? op->attr.kw : m.attr.kw;
        m.attr.pad_top = op->attr.pad_top > m.attr.pad_top ? op->attr.pad_top : m.attr.pad_top;
        m.attr.pad_left = op->attr.pad_left > m.attr.pad_left ? op->attr.pad_left : m.attr.pad_left;
        m.attr.pad_bottom = op->attr.pad_bottom > m.attr.pad_bottom ? op->attr.pad_bottom : m.attr.pad_bottom;
        m.attr.pad_right = op->attr.pad_right > m.attr.pad_right ? op->attr.pad_right : m.attr.pad_right;
    }
    m.out.c = cout;
    /* lf__prep_conv reads only operands[0] (the shared input) and takes a
     * bias when there are three operands: a bias of zeros for the
     * convolutions that have none, as the merged weights hold */
    m.n_operands = bias ? 3 : 2;
    conv->kind = LF__RUN_CONV;
    lf_status st = lf__prep_conv(ctx, g, &m, conv);
    if (st) {
        lf__oprun_release(conv);
        return st;
    }
    if (epilogue >= 0) {
        const lf_op *e = &g->ops[epilogue];
        const lf_op_info *info = lf_op_info_of(e->type);
        st = info && info->gpu == LF_GPU_UNARY
                 ? lf__prep_unary_shaped(e, m.out, m.out, epi)
                 : lf_set_error(LF_EUNSUPPORTED, "merged stage: epilogue %s is not an element-wise op", e->name);
        if (st) {
            lf__oprun_release(epi);
            lf__oprun_release(conv);
        }
    }
    return st;
}

#undef LF__DNN
#define LF__DNN(call)                                                                                    \
    do {                                                                                                 \
        cudnnStatus_t e_ = (call);                                                                       \
        if (e_ != CUDNN_STATUS_SUCCESS)                                                                  \
            return lf_set_error(LF_EIO, "cuDNN call failed while timing: %s", cudnnGetErrorString(e_));  \
    } while (0)
#define LF__BLAS(call)                                                                                   \
    do {                                                                                                 \
        cublasStatus_t e_ = (call);                                                                      \
        if (e_ != CUBLAS_STATUS_SUCCESS)                                                                 \
            return lf_set_error(LF_EIO, "cuBLAS call failed while timing: %s", ctx->cublas.status_string(e_)); \
    } while (0)

/* The bias add and activation after a Conv or Gemm (output descriptor t[1]). */
static lf_status lf__run_epilogue(lf__gpu_ctx *ctx, lf__oprun *r, void *bias)
{
    const float one = 1.0f, zero = 0.0f;
    if (r->has_bias)
        LF__DNN(cudnnAddTensor(ctx->dnn, &one, r->t[2], bias, &one, r->t[1], r->out));
    if (r->act)
        LF__DNN(cudnnActivationForward(ctx->dnn, r->act, &one, r->t[1], r->out, &zero, r->t[1], r->out));
    return LF_OK;
}

lf_status lf__oprun_enqueue(lf__gpu_ctx *ctx, lf__oprun *r, cudaStream_t s)
{
    const float one = 1.0f, zero = 0.0f;
    LF__DNN(cudnnSetStream(ctx->dnn, s));
    LF__BLAS(ctx->cublas.set_stream(ctx->blas, s));
    void **b = r->buf;
    switch (r->kind) {
    case LF__RUN_CONV: /* buffers: x, w, y, [bias] */
        LF__DNN(cudnnConvolutionForward(ctx->dnn, &one, r->t[0], b[0], r->w, b[1], r->conv, r->algo, ctx->workspace,
                                        r->algo_ws, &zero, r->t[1], b[2]));
        return lf__run_epilogue(ctx, r, r->has_bias ? b[3] : NULL);
    case LF__RUN_GEMM: /* x, w, y, [bias] */
        LF__BLAS(ctx->cublas.sgemm(ctx->blas, r->op_a, r->op_b, r->m, r->n, r->k, &one, b[1], r->lda, b[0], r->ldb, &zero,
                             b[2], r->m));
        return lf__run_epilogue(ctx, r, r->has_bias ? b[3] : NULL);
    case LF__RUN_MATMUL: /* a, b, c */
        LF__BLAS(ctx->cublas.sgemm_batched(ctx->blas, r->op_a, r->op_b, r->m, r->n, r->k, &one, b[1], r->lda,
                                           r->stride_a, b[0], r->ldb, r->stride_b, &zero, b[2], r->m,
                                           (long long)r->m * r->n, r->batch));
        return LF_OK;
    case LF__RUN_BATCHNORM: /* x, y, scale, bias, mean, variance */
        LF__DNN(cudnnBatchNormalizationForwardInference(ctx->dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, r->t[0], b[0],
                                                        r->t[0], b[1], r->t[1], b[2], b[3], b[4], b[5], r->epsilon));
        return LF_OK;
    case LF__RUN_ACTIVATION: /* x, y */
        LF__DNN(cudnnActivationForward(ctx->dnn, r->act, &one, r->t[0], b[0], &zero, r->t[1], b[1]));
        return LF_OK;
    case LF__RUN_SQRT:
        LF__DNN(cudnnOpTensor(ctx->dnn, r->optensor, &one, r->t[0], b[0], &one, r->t[0], b[0], &zero, r->t[1], b[1]));
        return LF_OK;
    case LF__RUN_BINARY: /* a, b, c */
        LF__DNN(cudnnOpTensor(ctx->dnn, r->optensor, &one, r->t[0], b[0], &r->alpha2, r->t[1], b[1], &zero, r->t[0],
                              b[2]));
        return LF_OK;
    case LF__RUN_POOL: /* x, y */
        LF__DNN(cudnnPoolingForward(ctx->dnn, r->pool, &one, r->t[0], b[0], &zero, r->t[1], b[1]));
        return LF_OK;
    case LF__RUN_SOFTMAX: /* x, y */
        LF__DNN(cudnnSoftmaxForward(ctx->dnn, (cudnnSoftmaxAlgorithm_t)r->softmax_algo,
                                    (cudnnSoftmaxMode_t)r->softmax_mode, &one, r->t[0], b[0], &zero, r->t[0], b[1]));
        return LF_OK;
    case LF__RUN_CONCAT: /* parts..., y */
        for (int32_t i = 0; i < r->n_parts; i++) {
            cudaError_t e = cudaMemcpy2DAsync((char *)r->out + r->part_offset[i], r->row_bytes, b[i], r->part_bytes[i],
                                              r->part_bytes[i], r->rows, cudaMemcpyDeviceToDevice, s);
            if (e != cudaSuccess)
                return lf_set_error(LF_EIO, "concat copy failed while timing: %s", cudaGetErrorString(e));
        }
        return LF_OK;
    }
    return lf_set_error(LF_EINVAL, "GPU op runner not prepared");
}

void lf__oprun_release(lf__oprun *r)
{
    for (int32_t i = 0; i < r->n_buf; i++)
        cudaFree(r->buf[i]);
    for (int i = 0; i < LF__RUN_MAX_DESCS; i++)
        if (r->t[i])
            cudnnDestroyTensorDescriptor(r->t[i]);
    if (r->w)
        cudnnDestroyFilterDescriptor(r->w);
    if (r->conv)
        cudnnDestroyConvolutionDescriptor(r->conv);
    if (r->act)
        cudnnDestroyActivationDescriptor(r->act);
    if (r->pool)
        cudnnDestroyPoolingDescriptor(r->pool);
    if (r->optensor)
        cudnnDestroyOpTensorDescriptor(r->optensor);
    memset(r, 0, sizeof *r);
}
