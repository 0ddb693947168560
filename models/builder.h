/* A small builder for writing networks readably on top of lf_graph_builder.
 *
 * Tensors are integer handles (the op's insertion index, which is also the
 * handle of the tensor the op produces). Op names are built from a stack of
 * name components so that they follow the framework's module names:
 *
 *     lf_mb_push(m, "layer%d", 1);  lf_mb_push(m, "%d", 0);
 *     y = lf_mb_conv(m, "conv1", x, 64, 3, 1, 1, 1, 1, LF_MB_FOLDED_BN);   -> "layer1.0.conv1"
 *     lf_mb_pop(m);  lf_mb_pop(m);
 *
 * Error handling follows the "sticky error" style: the first failure (bad
 * argument, duplicate name, shape mismatch, out of memory) is recorded together
 * with its message (lf_set_error), every later call is a no-op that returns -1,
 * and lf_mb_finish returns the recorded status. Network code can therefore be
 * written straight through without checking every call.
 *
 * The builder tracks every tensor's shape with the op table's shape inference
 * (lf_op_infer), so helpers can ask for a tensor's channels or spatial size,
 * and a mistake in a network definition is reported at the op that makes it. */
#ifndef LF_MODELS_BUILDER_H
#define LF_MODELS_BUILDER_H

#include <stdint.h>

#include "planner/graph.h"

#define LF_MB_NAME_MAX 256  /* longest op name, terminator included */
#define LF_MB_DEPTH_MAX 16  /* deepest name-prefix stack */
#define LF_MB_INPUTS_MAX 16 /* most inputs of one op (Concat) */

/* How a Conv or Gemm gets its bias. */
typedef enum lf_mb_bias {
    LF_MB_NO_BIAS = 0,  /* no bias at all */
    LF_MB_BIAS = 1,     /* the layer's own bias (framework: out_c parameters) */
    LF_MB_FOLDED_BN = 2 /* a following BatchNorm folded in (framework: 2 x out_c parameters) */
} lf_mb_bias;

typedef struct lf_mb {
    lf_graph_builder *gb;
    lf_status err;             /* first error, LF_OK while none */
    int32_t n, cap;            /* tensors added so far / capacity of shapes */
    lf_shape *shapes;          /* shapes[t]: shape of tensor t */
    char prefix[LF_MB_NAME_MAX];
    int32_t prefix_len;
    int32_t depth;
    int32_t marks[LF_MB_DEPTH_MAX]; /* prefix_len before each push */
    int32_t n_k, cap_k;        /* constants added with lf_mb_const */
    char **k_names;            /* k_names[k]: full name of constant k */
    lf_shape *k_shapes;        /* k_shapes[k]: its shape */
} lf_mb;

/* A constant's handle as an operand of lf_mb_op: constants are numbered from
 * 0 in the order lf_mb_const adds them and passed as LF_MB_K(k) (negative, so
 * that tensor handles keep their meaning). */
#define LF_MB_K(k) (-2 - (k))

/* Starts a graph. On failure the error is recorded and returned; m is still
 * safe to use (every call is a no-op) and lf_mb_finish returns the error. */
lf_status lf_mb_init(lf_mb *m, const char *graph_name);

/* Records err with a formatted message unless an error is already recorded.
 * Returns the recorded (first) status. */
lf_status lf_mb_fail(lf_mb *m, lf_status err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Builds the graph (or returns the first error, *out = NULL) and releases the
 * builder in every case. */
lf_status lf_mb_finish(lf_mb *m, lf_graph **out);

/* Name-prefix stack. push appends "." + the formatted component (no dot for
 * the first); pop removes the last component. */
void lf_mb_push(lf_mb *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void lf_mb_pop(lf_mb *m);

/* Shape of tensor t (all zero for an invalid handle). */
lf_shape lf_mb_shape(const lf_mb *m, int32_t t);

/* Any op: name is appended to the current prefix (NULL or "" names the op by
 * the prefix alone); attrs may be NULL (all zero). Inputs are tensor handles
 * or constants (LF_MB_K); the weights the attributes imply (a Conv's) are
 * added after them. Returns the new tensor's handle or -1. */
int32_t lf_mb_op(lf_mb *m, lf_op_type type, const char *name, const lf_attrs *attrs,
                 const int32_t *inputs, int32_t n_inputs);

/* A shape-only constant (a weight of an op given its operands explicitly:
 * a MatMul's B, a LayerNorm's scale), named under the current prefix.
 * Returns LF_MB_K(k) to pass as an operand, or -1. */
int32_t lf_mb_const(lf_mb *m, const char *name, int64_t n, int64_t c, int64_t h, int64_t w);

/* A 1 x 1 x 1 x 1 constant with its value (an epsilon, an exponent: a
 * scalar the executor must not draw at random). Returns LF_MB_K(k) or -1. */
int32_t lf_mb_scalar(lf_mb *m, const char *name, float value);

/* Marks tensor t as a graph output (besides the ops nobody reads). */
void lf_mb_output(lf_mb *m, int32_t t);

/* The graph input, N x C x H x W (batch 0 means 1). */
int32_t lf_mb_input(lf_mb *m, const char *name, int32_t batch, int32_t c, int32_t h, int32_t w);

/* Square convolution: k x k kernel, the same stride and padding on both axes. */
int32_t lf_mb_conv(lf_mb *m, const char *name, int32_t x, int32_t out_c, int32_t k,
                   int32_t stride, int32_t pad, int32_t groups, int32_t dilation, lf_mb_bias bias);
/* Rectangular convolution (Inception's 1x7 / 7x1): groups and dilation 1. */
int32_t lf_mb_conv_hw(lf_mb *m, const char *name, int32_t x, int32_t out_c, int32_t kh,
                      int32_t kw, int32_t stride, int32_t pad_h, int32_t pad_w, lf_mb_bias bias);

/* Activations, one op each. relu6 is Clip(0, 6), as ONNX exports it; silu is
 * the single SiLU op (x * sigmoid(x)), not Sigmoid followed by Mul. */
int32_t lf_mb_relu(lf_mb *m, const char *name, int32_t x);
int32_t lf_mb_relu6(lf_mb *m, const char *name, int32_t x);
int32_t lf_mb_hardswish(lf_mb *m, const char *name, int32_t x);
int32_t lf_mb_hardsigmoid(lf_mb *m, const char *name, int32_t x);
int32_t lf_mb_sigmoid(lf_mb *m, const char *name, int32_t x);
int32_t lf_mb_silu(lf_mb *m, const char *name, int32_t x);

/* Element-wise binary ops (Mul also scales a map by a C x 1 x 1 vector). */
int32_t lf_mb_add(lf_mb *m, const char *name, int32_t a, int32_t b);
int32_t lf_mb_mul(lf_mb *m, const char *name, int32_t a, int32_t b);

/* Channel concatenation of n tensors. */
int32_t lf_mb_concat(lf_mb *m, const char *name, const int32_t *xs, int32_t n);

/* Pools: square window, same stride and padding on both axes. */
int32_t lf_mb_maxpool(lf_mb *m, const char *name, int32_t x, int32_t k, int32_t stride,
                      int32_t pad, int32_t ceil_mode);
int32_t lf_mb_avgpool(lf_mb *m, const char *name, int32_t x, int32_t k, int32_t stride,
                      int32_t pad, int32_t count_include_pad);
int32_t lf_mb_global_avgpool(lf_mb *m, const char *name, int32_t x);

int32_t lf_mb_flatten(lf_mb *m, const char *name, int32_t x);

/* Fully connected layer (torch Linear, exported as Gemm). */
int32_t lf_mb_gemm(lf_mb *m, const char *name, int32_t x, int32_t out_features, lf_mb_bias bias);

/* Resize to out_h x out_w; linear = 1 for bilinear, 0 for nearest. */
int32_t lf_mb_resize(lf_mb *m, const char *name, int32_t x, int32_t out_h, int32_t out_w,
                     int32_t linear);

/* torchvision's _make_divisible: v rounded to the nearest multiple of divisor
 * (at least divisor), bumped up one step if rounding lost more than 10%. */
int32_t lf_mb_make_divisible(double v, int32_t divisor);

#endif
