/* Reference kernels of the executor: pure functions over float32 arrays in
 * row-major N x C x H x W order (every tensor of the IR has rank <= 4, padded
 * with leading ones), with ONNX semantics. They know nothing of the graph:
 * planner/exec/op_eval.c maps an op's type, attributes and operands onto them.
 *
 * Determinism: every output element is computed by exactly one thread, with
 * a fixed order of arithmetic that does not depend on how elements are shared
 * among threads, so results are byte-identical for any thread count `nt`.
 * Kernels never allocate unless documented (then they return a status). */
#ifndef LF_EXEC_KERNELS_H
#define LF_EXEC_KERNELS_H

#include <stdint.h>

#include "planner/graph.h"
#include "planner/status.h"

/* Dimensions of a rank-4 tensor: d[0] = N, d[1] = C, d[2] = H, d[3] = W. */
typedef struct lf__dims {
    int64_t d[4];
} lf__dims;

static inline lf__dims lf__dims_of(lf_shape s)
{
    lf__dims r = {{s.n, s.c, s.h, s.w}};
    return r;
}

static inline int64_t lf__dims_count(const lf__dims *x)
{
    return x->d[0] * x->d[1] * x->d[2] * x->d[3];
}

/* Threads worth using for `work` scalar operations: 1 below a grain so that
 * tiny ops do not pay for a parallel region. */
int lf__threads_for(int64_t work, int nt);

/* fn(ctx, lo, hi) over pieces of [0, n) on up to nt threads of the project's
 * worker pool (passive waiting; k_threads.c), or all of it on the caller when
 * nt <= 1 or the pool is busy. fn must give each index the same result
 * whatever the pieces. */
typedef void (*lf__range_fn)(void *ctx, int64_t lo, int64_t hi);
void lf__parallel(int64_t n, int nt, lf__range_fn fn, void *ctx);

/* ---- element-wise activations (k_unary.c) ---------------------------------- */

typedef enum lf__unary_kind {
    LF__U_IDENTITY = 0,
    LF__U_RELU,
    LF__U_CLIP,        /* min(max(x, a), b) */
    LF__U_SIGMOID,
    LF__U_HARDSIGMOID, /* max(0, min(1, a*x + b)) */
    LF__U_HARDSWISH,   /* x * max(0, min(1, x/6 + 1/2)) */
    LF__U_SILU,        /* x * sigmoid(x) */
    LF__U_TANH,
    LF__U_ERF,
    LF__U_GELU,        /* 0.5 x (1 + erf(x / sqrt 2)) */
    LF__U_GELU_TANH,   /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
    LF__U_EXP,
    LF__U_LOG,
    LF__U_SQRT,
    LF__U_NEG,
    LF__U_ABS,
    LF__U_RECIPROCAL,
    LF__U_LEAKYRELU,   /* x >= 0 ? x : a*x */
    LF__U_ELU,         /* x >= 0 ? x : a*(exp(x) - 1) */
    LF__U_SOFTPLUS,    /* log(1 + exp(x)) */
    LF__U_FLOOR,
    LF__U_CEIL,
    LF__U_COUNT
} lf__unary_kind;

typedef struct lf__unary {
    lf__unary_kind kind;
    float a, b; /* parameters named above */
} lf__unary;

/* The unary form of an activation fused into Conv/Gemm; clip bounds are
 * used for LF_ACT_RELU6 only when clip_max > clip_min (else 0 and 6). */
lf__unary lf__unary_of_act(lf_act act, float clip_min, float clip_max);

float lf__unary_apply1(const lf__unary *u, float x);
/* y[i] = f(x[i]) for i < n; x and y may alias. */
void lf__unary_apply(const lf__unary *u, const float *x, float *y, int64_t n, int nt);

/* ---- broadcasting binary ops (k_binary.c) ------------------------------- */

typedef enum lf__binary_kind {
    LF__B_ADD = 0,
    LF__B_SUB,
    LF__B_MUL,
    LF__B_DIV,
    LF__B_POW,
    LF__B_MAX,
    LF__B_MIN,
    LF__B_PRELU, /* a >= 0 ? a : a*b */
    LF__B_FIRST, /* a (broadcast: Expand) */
    LF__B_COUNT
} lf__binary_kind;

/* Numpy broadcasting over rank 4: each dimension of a and b equals the
 * output's or is 1. Returns LF_EGRAPH when the shapes do not broadcast to y.
 * y may alias a or b when that operand has y's shape. */
lf_status lf__binary(lf__binary_kind k, const float *a, lf__dims ad, const float *b, lf__dims bd,
                     float *y, lf__dims yd, int nt);

/* ---- matrix products (k_gemm.c, k_matmul.c) ----------------------------- */

/* C[M x N] = A[M x K] * B[K x N] (+ C when accumulate), A with row stride lda
 * and unit column stride, B and C row-major with leading dimensions ldb, ldc.
 * Each C element sums its K products in order k = 0..K-1. */
void lf__sgemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B,
               int64_t ldb, float *C, int64_t ldc, int accumulate, int nt);

/* The same with op(A) = A^T when trans_a (A is then K x M, row stride lda)
 * and op(B) = B^T when trans_b (B is N x K, row stride ldb): OpenBLAS reads
 * the transposed operands in place; the fallback kernel works on transposed
 * copies (LF_ENOMEM when they cannot be made). */
lf_status lf__sgemm_t(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, int trans_a,
                      const float *B, int64_t ldb, int trans_b, float *C, int64_t ldc, int accumulate, int nt);

/* ONNX Gemm: Y = alpha * op(A) * op(B) + beta * C, op = optional transpose,
 * A is M x K after op, B is K x N after op, C (may be NULL) broadcasts as
 * c_rows x c_cols with each 1 or full. The activation is applied last. */
lf_status lf__gemm(const float *A, int trans_a, const float *B, int trans_b, const float *C,
                   int64_t c_rows, int64_t c_cols, float alpha, float beta, int64_t M, int64_t N,
                   int64_t K, const lf__unary *act, float *Y, int nt);

/* Batched matrix product with numpy broadcasting of the two leading
 * dimensions: A is a0 x a1 x M x K (K x M when trans_a), B is b0 x b1 x K x N
 * (N x K when trans_b), Y is y0 x y1 x M x N. */
lf_status lf__matmul(const float *A, lf__dims ad, int trans_a, const float *B, lf__dims bd,
                     int trans_b, float *Y, lf__dims yd, int nt);

/* ---- convolution (k_conv.c, k_conv_transpose.c) ------------------------- */

typedef struct lf__conv {
    int32_t kh, kw, sh, sw, dh, dw;
    int32_t pad_top, pad_left, pad_bottom, pad_right;
    int32_t groups;
    lf__unary act; /* applied after the bias */
} lf__conv;

/* Conv: x is N x C x H x W, w is M x C/groups x kh x kw, b (may be NULL) has
 * M values, y is N x M x OH x OW. Allocates an im2col buffer. */
lf_status lf__conv2d(const float *x, lf__dims xd, const float *w, const float *b, float *y,
                     lf__dims yd, const lf__conv *p, int nt);

/* ConvTranspose: x is N x C x H x W, w is C x M/groups x kh x kw, b (may be
 * NULL) has M values, y is N x M x OH x OW with
 * OH = sh*(H-1) + output_padding + dh*(kh-1) + 1 - pad_top - pad_bottom. */
lf_status lf__conv_transpose2d(const float *x, lf__dims xd, const float *w, const float *b,
                               float *y, lf__dims yd, const lf__conv *p, int nt);

/* ---- normalisation (k_norm.c) ------------------------------------------- */

/* BatchNormalization (inference): per channel c of axis 1,
 * y = (x - mean) / sqrt(var + eps) * scale + bias. */
void lf__batchnorm(const float *x, lf__dims xd, const float *scale, const float *bias,
                   const float *mean, const float *var, float eps, float *y, int nt);

/* LayerNormalization over the axes in mask (bit i = axis i): per position of
 * the other axes, y = (x - mean) / sqrt(var + eps), then * scale + bias with
 * broadcasting (either may be NULL; sd/bd are their dims). */
lf_status lf__layernorm(const float *x, lf__dims xd, unsigned mask, float eps, const float *scale,
                        lf__dims sd, const float *bias, lf__dims bd, float *y, int nt);

/* RMSNormalization over the axes in mask (k_rmsnorm.c): per position of the
 * other axes, y = x / sqrt(mean(x^2) + eps), then * scale with broadcasting
 * (scale may be NULL; sd its dims). */
lf_status lf__rmsnorm(const float *x, lf__dims xd, unsigned mask, float eps, const float *scale,
                      lf__dims sd, float *y, int nt);

/* ---- pooling (k_pool.c) ------------------------------------------------- */

typedef struct lf__pool {
    int32_t kh, kw, sh, sw, dh, dw;
    int32_t pad_top, pad_left, pad_bottom, pad_right;
    int32_t count_include_pad; /* AveragePool: divide by the window inside the padded input */
} lf__pool;

/* y's spatial size decides the windows (floor or ceil mode alike): window
 * (oh, ow) starts at (oh*sh - pad_top, ow*sw - pad_left); positions outside
 * the input are ignored by MaxPool and, for AveragePool, counted only when
 * count_include_pad and inside the padding. */
void lf__maxpool(const float *x, lf__dims xd, float *y, lf__dims yd, const lf__pool *p, int nt);
void lf__avgpool(const float *x, lf__dims xd, float *y, lf__dims yd, const lf__pool *p, int nt);
/* Mean (or max when is_max) over H x W per (n, c). */
void lf__global_pool(const float *x, lf__dims xd, float *y, int is_max, int nt);

/* ---- layout (k_layout.c) ----------------------------------------------- */

/* Concatenation of n tensors along axis (0..3); y has the summed extent. */
void lf__concat(const float *const *xs, const lf__dims *xds, int32_t n, int axis, float *y,
                lf__dims yd, int nt);

/* Strided slice: y[i] = x[start + i*step] per axis (steps may be negative;
 * the caller has clamped starts and computed yd). */
void lf__slice(const float *x, lf__dims xd, const int64_t start[4], const int64_t step[4], float *y,
               lf__dims yd, int nt);

typedef enum lf__pad_mode { LF__PAD_CONSTANT = 0, LF__PAD_REFLECT, LF__PAD_EDGE } lf__pad_mode;

/* Pad: y[i] = x[i - begin] inside, else by mode. Negative begin/end crop. */
lf_status lf__pad(const float *x, lf__dims xd, const int64_t begin[4], lf__pad_mode mode,
                  float value, float *y, lf__dims yd, int nt);

/* Transpose: y axis i is x axis perm[i]. */
void lf__transpose(const float *x, lf__dims xd, const int perm[4], float *y, int nt);

/* ---- resize (k_resize.c) ------------------------------------------------ */

typedef enum lf__resize_mode { LF__RESIZE_NEAREST = 0, LF__RESIZE_LINEAR, LF__RESIZE_CUBIC } lf__resize_mode;

typedef enum lf__resize_coord {
    LF__COORD_HALF_PIXEL = 0,
    LF__COORD_PYTORCH_HALF_PIXEL,
    LF__COORD_ALIGN_CORNERS,
    LF__COORD_ASYMMETRIC,
    LF__COORD_TF_HALF_PIXEL_FOR_NN
} lf__resize_coord;

typedef enum lf__resize_nearest {
    LF__NEAREST_ROUND_PREFER_FLOOR = 0,
    LF__NEAREST_ROUND_PREFER_CEIL,
    LF__NEAREST_FLOOR,
    LF__NEAREST_CEIL
} lf__resize_nearest;

typedef struct lf__resize {
    lf__resize_mode mode;
    lf__resize_coord coord;
    lf__resize_nearest nearest;
    float cubic_a;        /* -0.75 in ONNX */
    int exclude_outside;  /* cubic: zero weights outside the input and renormalise */
    double scale[4];      /* output/input scale per axis (as given, or out/in) */
} lf__resize;

/* Resize over all four axes (ONNX Resize/Upsample, N and C usually scale 1). */
lf_status lf__resize_run(const float *x, lf__dims xd, float *y, lf__dims yd, const lf__resize *p,
                         int nt);

/* ---- reductions (k_reduce.c) ------------------------------------------- */

/* Offsets of the elements of a rank-4 tensor split by an axis mask: outer[o]
 * for every position of the axes outside mask, inner[i] for every position
 * of the axes in mask (both in row-major order), so element (o, i) is at
 * outer[o] + inner[i]. Allocates both arrays (free them). */
lf_status lf__mask_offsets(lf__dims d, unsigned mask, int64_t **outer, int64_t *n_outer,
                           int64_t **inner, int64_t *n_inner);

/* Softmax (or log-softmax) over the axes in mask: one axis (ONNX opset 13)
 * or the flattened trailing axes (opset < 13). */
/* causal (lf_attrs.causal, mask = W only): row h of each H x W plane sees
 * keys j <= h mod (H / causal) + W - H / causal; the others get 0 (log: -inf). */
lf_status lf__softmax(const float *x, lf__dims xd, unsigned mask, int log_softmax, int causal,
                      float *y, int nt);

typedef enum lf__reduce_kind {
    LF__R_MEAN = 0,
    LF__R_SUM,
    LF__R_MAX,
    LF__R_MIN,
    LF__R_PROD,
    LF__R_SUMSQUARE,
    LF__R_L2
} lf__reduce_kind;

/* Reduces the axes whose bit is set in axes_mask (bit i = axis i); y has
 * x's dims with the reduced ones set to 1 (keepdims is a view question). */
void lf__reduce(lf__reduce_kind k, const float *x, lf__dims xd, unsigned axes_mask, float *y, int nt);

#endif
