/* The ONNX ops the importer understands: their input counts, shape rule and
 * whether a node with constant inputs is folded; plus the parameter decoding
 * that shape inference, folding and lowering share (windows, Slice, Resize). */
#ifndef LF_ONNX_OPS_H
#define LF_ONNX_OPS_H

#include "planner/io/onnx_internal.h"

typedef enum lf__ox_shape_rule {
    LF__OX_SH_SAME,        /* every output takes input 0's shape */
    LF__OX_SH_BROADCAST,   /* numpy broadcast of all inputs */
    LF__OX_SH_WINDOW,      /* Conv, ConvTranspose, pools */
    LF__OX_SH_GLOBAL_POOL,
    LF__OX_SH_GEMM,
    LF__OX_SH_MATMUL,
    LF__OX_SH_FLATTEN,
    LF__OX_SH_RESHAPE,
    LF__OX_SH_TRANSPOSE,
    LF__OX_SH_CONCAT,
    LF__OX_SH_SPLIT,
    LF__OX_SH_SLICE,
    LF__OX_SH_SQUEEZE,
    LF__OX_SH_UNSQUEEZE,
    LF__OX_SH_PAD,
    LF__OX_SH_RESIZE,
    LF__OX_SH_SHAPE,
    LF__OX_SH_GATHER,
    LF__OX_SH_CONSTANT_OF_SHAPE,
    LF__OX_SH_REDUCE,
    LF__OX_SH_EXPAND,      /* input 0 broadcast to the shape in input 1 */
    LF__OX_SH_RANGE,       /* 1-D start, start + delta, ... below limit (constants only) */
    LF__OX_SH_EINSUM,      /* letters of the explicit output (onnx_rewrite_ops.c) */
    LF__OX_SH_ATTENTION,   /* Y, present_key, present_value, qk_matmul_output (onnx_attention.c) */
    LF__OX_SH_DEPTH_SPACE  /* DepthToSpace, SpaceToDepth (onnx_depth_space.c) */
} lf__ox_shape_rule;

typedef struct lf__ox_op_rule {
    const char *name;
    int32_t min_in, max_in; /* max -1: any */
    lf__ox_shape_rule shape;
    int32_t foldable;       /* onnx_fold.c evaluates it on constants */
} lf__ox_op_rule;

const lf__ox_op_rule *lf__ox_op_rule_of(const char *op);

/* An int list from attribute attr or (when absent) constant input `input`.
 * Returns 1 when found, 0 when neither is present, -1 when the input is not
 * a constant or longer than max. */
int lf__ox_int_list(const lf__ox_graph *g, const lf__ox_node *n, const char *attr, int32_t input,
                    int64_t *out, int32_t max, int32_t *count);

/* Window geometry of Conv/ConvTranspose/pools with auto_pad resolved. */
typedef struct lf__ox_window_geom {
    int32_t spatial;            /* number of spatial axes */
    int64_t k[3], s[3], d[3];
    int64_t pads[6];            /* begins then ends */
    int64_t out[3];
    int32_t ceil_mode;
} lf__ox_window_geom;
lf_status lf__ox_window(lf__ox_graph *g, int32_t i, const int64_t *x, int32_t rank, int is_conv_t,
                        lf__ox_window_geom *w);

/* Slice over every axis of the input: start, step and length per axis. */
typedef struct lf__ox_slice {
    int64_t start[LF__OX_MAX_RANK], step[LF__OX_MAX_RANK], len[LF__OX_MAX_RANK];
} lf__ox_slice;
lf_status lf__ox_slice_params(lf__ox_graph *g, int32_t i, lf__ox_slice *s);

/* Einsum's equation spelled out (onnx_einsum.c): each operand's letters, one
 * per axis (an ellipsis replaced by letters of its own), and the output's
 * (the implicit output made explicit). */
#define LF__OX_EINSUM_MAX_OPS 8
typedef struct lf__ox_einsum {
    int n_ops;
    char in[LF__OX_EINSUM_MAX_OPS][LF__OX_MAX_RANK];
    int len[LF__OX_EINSUM_MAX_OPS];
    char out[LF__OX_MAX_RANK];
    int len_out;
} lf__ox_einsum;
lf_status lf__ox_einsum_parse(const lf__ox_graph *g, int32_t i, lf__ox_einsum *e);
/* The size of a letter (the largest of its operands' axes, 1 broadcasting),
 * -1 if no operand has it, -2 when two differ and neither is 1. */
int64_t lf__ox_einsum_dim(const lf__ox_graph *g, int32_t i, const lf__ox_einsum *e, char letter);
/* Einsum's output shape from its equation. */
lf_status lf__ox_einsum_shape(lf__ox_graph *g, int32_t i);

/* Attention's output shapes (onnx_attention.c). */
lf_status lf__ox_attention_shape(lf__ox_graph *g, int32_t i);

/* DepthToSpace's and SpaceToDepth's output shape (onnx_depth_space.c). */
lf_status lf__ox_depth_space_shape(lf__ox_graph *g, int32_t i);

/* Resize / Upsample: per-axis scales and output sizes. */
lf_status lf__ox_resize_params(lf__ox_graph *g, int32_t i, double *scales, int64_t *sizes);

#endif
