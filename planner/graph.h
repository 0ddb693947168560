/* Graph IR: a DAG of single-output ops stored in topological order, plus a
 * table of constant tensors (weights, biases, BatchNorm scales, any
 * initializer) that ops read as operands.
 *
 * An op's id is its topological index and also the id of the tensor it
 * produces (every op has exactly one output). Graph inputs are ops of type
 * LF_OP_INPUT. Tensors are N x C x H x W; vectors are C x 1 x 1; sequences put
 * their tokens on H (DESIGN §10; docs/ir.md gives the two layouts). Constants are not
 * ops: they live in g->consts, in the same N x C x H x W frame, with optional
 * float32 values. An op's `inputs` are its activation operands (op ids); its
 * `operands` are the complete ordered operand list (ONNX order: Conv X, W, B),
 * each an activation or a constant. Ops whose operands are all constants are
 * folded into new constants when the graph is built. See docs/ir.md.
 *
 * Graphs are built with lf_graph_builder (ops may be added in any order and
 * refer to their inputs by name), then frozen by lf_graph_builder_build, which
 * sorts topologically, rejects cycles, dangling inputs and shape mismatches,
 * infers shapes and computes weights, MACs, consumers and a hash. A built graph
 * is never mutated, so it can be shared read-only by many threads. */
#ifndef LF_GRAPH_H
#define LF_GRAPH_H

#include <stdint.h>
#include <stdio.h>

#include "planner/status.h"

typedef enum lf_op_type {
    LF_OP_INPUT = 0,
    LF_OP_CONV,
    LF_OP_GEMM,
    LF_OP_MATMUL,
    LF_OP_BATCHNORM,
    LF_OP_RELU,
    LF_OP_CLIP,
    LF_OP_SIGMOID,
    LF_OP_HARDSIGMOID,
    LF_OP_HARDSWISH,
    LF_OP_SILU,
    LF_OP_ADD,
    LF_OP_MUL,
    LF_OP_CONCAT,
    LF_OP_SLICE,
    LF_OP_MAXPOOL,
    LF_OP_AVGPOOL,
    LF_OP_GLOBALAVGPOOL,
    LF_OP_PAD,
    LF_OP_RESIZE,
    LF_OP_FLATTEN,
    LF_OP_RESHAPE,
    LF_OP_SOFTMAX,
    LF_OP_IDENTITY,
    /* issue 11: values and today's models (appended: earlier values and the
     * hashes that mix them stay put) */
    LF_OP_SUB,
    LF_OP_DIV,
    LF_OP_POW,
    LF_OP_SQRT,
    LF_OP_EXP,
    LF_OP_ERF,
    LF_OP_TANH,
    LF_OP_GELU,
    LF_OP_NEG,
    LF_OP_LEAKYRELU,
    LF_OP_TRANSPOSE,
    LF_OP_LAYERNORM,
    LF_OP_REDUCEMEAN,
    LF_OP_CONVTRANSPOSE,
    LF_OP_EXPAND,
    LF_OP_CHANNELSHUFFLE,
    LF_OP_LOG,
    LF_OP_ABS,
    LF_OP_RECIPROCAL,
    LF_OP_FLOOR,
    LF_OP_CEIL,
    LF_OP_SOFTPLUS,
    LF_OP_ELU,
    LF_OP_MAX,
    LF_OP_MIN,
    LF_OP_PRELU,
    LF_OP_LOGSOFTMAX,
    LF_OP_REDUCESUM,
    LF_OP_REDUCEMAX,
    LF_OP_REDUCEMIN,
    LF_OP_REDUCEPROD,
    LF_OP_REDUCESUMSQUARE,
    LF_OP_REDUCEL2,
    LF_OP_GLOBALMAXPOOL,
    LF_OP_RMSNORM, /* issue 36: RMSNormalization (Llama's RMSNorm as one op) */
    LF_OP_GATHER, /* embedding lookup: rows of a constant table by token ids (DESIGN §16) */
    LF_OP_TYPE_COUNT
} lf_op_type;

/* Dimensions of the N x C x H x W frame, and sets of them as bit masks
 * (LF_AXES(LF_DIM_H) | LF_AXES(LF_DIM_W)). */
typedef enum lf_dim { LF_DIM_N = 0, LF_DIM_C = 1, LF_DIM_H = 2, LF_DIM_W = 3 } lf_dim;
#define LF_AXES(d) (1 << (d))

/* Resize: how an output coordinate maps to an input coordinate (ONNX
 * coordinate_transformation_mode) and how nearest rounds (nearest_mode).
 * Zero is ONNX's default. */
typedef enum lf_resize_coord {
    LF_COORD_HALF_PIXEL = 0,
    LF_COORD_ASYMMETRIC,
    LF_COORD_ALIGN_CORNERS,
    LF_COORD_PYTORCH_HALF_PIXEL,
    LF_COORD_TF_HALF_PIXEL_FOR_NN
} lf_resize_coord;
typedef enum lf_resize_nearest {
    LF_NEAREST_ROUND_PREFER_FLOOR = 0,
    LF_NEAREST_ROUND_PREFER_CEIL,
    LF_NEAREST_FLOOR,
    LF_NEAREST_CEIL
} lf_resize_nearest;

/* Pad: what fills the border. */
typedef enum lf_pad_mode { LF_PAD_CONSTANT = 0, LF_PAD_REFLECT, LF_PAD_EDGE } lf_pad_mode;

/* Activation fused into a Conv or Gemm as an attribute. */
typedef enum lf_act {
    LF_ACT_NONE = 0,
    LF_ACT_RELU,
    LF_ACT_RELU6,
    LF_ACT_SIGMOID,
    LF_ACT_HARDSIGMOID,
    LF_ACT_HARDSWISH,
    LF_ACT_SILU,
    LF_ACT_COUNT
} lf_act;

typedef struct lf_shape {
    int64_t n, c, h, w;
} lf_shape;

/* Attributes of every op type in one flat record; each type reads the fields it
 * needs (see planner/optable.c). Zero-initialise and set what applies:
 * kernel/stride/dilation/groups of 0 mean 1. */
typedef struct lf_attrs {
    int32_t out_channels;        /* Conv, Gemm, MatMul: output channels / features */
    int32_t kh, kw;              /* Conv, MaxPool, AveragePool kernel */
    int32_t sh, sw;              /* stride */
    int32_t dh, dw;              /* dilation */
    int32_t pad_top, pad_left, pad_bottom, pad_right; /* Conv, pools, Pad */
    int32_t groups;              /* Conv, ConvTranspose groups (depthwise: groups = C_in);
                                    ChannelShuffle: groups */
    int32_t has_bias;            /* Conv, Gemm: a bias vector of out_channels */
    int32_t folded_bn;           /* Conv, Gemm: a BatchNorm was folded in (adds a bias;
                                    the framework counts 2 parameters per channel) */
    lf_act act;                  /* Conv, Gemm: fused activation */
    int32_t ceil_mode;           /* pools: ceil instead of floor for the output size */
    int32_t count_include_pad;   /* AveragePool */
    int32_t slice_begin, slice_end; /* Slice: range [begin, end) along `axes` (channels) */
    int32_t out_h, out_w;        /* Resize: output size (0: use scale) */
    int32_t scale;               /* Resize: integer scale factor when out_h is 0 */
    int32_t linear;              /* Resize: 0 = nearest, 1 = (bi)linear, 2 = (bi)cubic
                                    (coefficient in alpha, 0 means -0.75) */
    int32_t shape_c, shape_h, shape_w; /* Reshape: target C x H x W (0 = keep, -1 = infer) */
    float clip_min, clip_max;    /* Clip */
    int32_t batch, in_c, in_h, in_w; /* Input: tensor shape (batch 0 means 1) */
    /* issue 11 (all zero for the ops above, which keeps their hashes): */
    int32_t axes;                /* LF_AXES mask, 0 = channels. Concat, Slice: the one dim
                                    they work along; Softmax, LogSoftmax, LayerNormalization,
                                    Reduce*: the dims they normalise or reduce over */
    int32_t slice_step;          /* Slice: positive step (0 = 1) */
    int32_t perm[4];             /* Transpose: output dim i is input dim perm[i] (LF_DIM_*) */
    int32_t trans_a, trans_b;    /* MatMul: swap the last two dims (H, W) of A / B first */
    int32_t out_pad_h, out_pad_w;/* ConvTranspose: output_padding */
    int32_t shape_n;             /* Reshape: target N (0 = keep); Expand: target N x C x H x W
                                    in shape_n, shape_c, shape_h, shape_w (0 = keep) */
    int32_t approximate;         /* Gelu: 1 = tanh approximation, 0 = exact (erf) */
    int32_t coord_mode;          /* Resize: lf_resize_coord */
    int32_t nearest_mode;        /* Resize: lf_resize_nearest */
    int32_t pad_mode;            /* Pad: lf_pad_mode */
    float pad_value;             /* Pad: fill value of LF_PAD_CONSTANT */
    float epsilon;               /* LayerNormalization, 5-operand BatchNorm: 0 means 1e-5 */
    float alpha, beta;           /* LeakyRelu: alpha (0 means 0.01). Elu: alpha (0 means
                                    1). HardSigmoid: max(0, min(1, alpha x + beta)); alpha
                                    0 means torch's hardsigmoid (alpha 1/6, beta 0.5).
                                    Resize cubic: alpha = cubic_coeff_a (0 means -0.75) */
    int32_t causal;              /* Softmax over W only (issue 35): 0 none; g >= 1: a causal
                                    mask. The H rows are g stacks of Nq = H / g query rows
                                    (grouped-query heads stacked, docs/ir.md); row h is query
                                    token t = h mod Nq, which sees keys j <= t + W - Nq and
                                    gives the later ones probability 0 (decode: Nq = 1 sees
                                    all W keys) */
} lf_attrs;

/* A constant tensor: a weight, bias, scale or any initializer. */
typedef struct lf_const {
    const char *name;
    lf_shape shape;              /* N x C x H x W, the activation frame */
    const float *data;           /* N*C*H*W values, row-major; NULL when shape only */
} lf_const;

/* One operand of an op: the output of op `id`, or constant `id`. */
typedef enum lf_operand_kind { LF_OPND_TENSOR = 0, LF_OPND_CONST = 1 } lf_operand_kind;
typedef struct lf_operand {
    lf_operand_kind kind;
    int32_t id;
} lf_operand;

/* An op that was folded away because all its operands were constants. */
typedef struct lf_folded {
    const char *name;            /* the op's name, now the constant's name */
    lf_op_type type;
    int32_t const_id;            /* the constant it became (-1: unused, dropped) */
} lf_folded;

typedef struct lf_op {
    const char *name;
    lf_op_type type;
    lf_attrs attr;
    int32_t n_inputs;
    const int32_t *inputs;       /* activation operands: op ids (all smaller than this op's
                                    id), in operand order */
    int32_t n_consumers;
    const int32_t *consumers;    /* distinct op ids reading this op's output, ascending */
    lf_shape out;                /* shape of the output tensor */
    int64_t weight_elems;        /* elements of its constant operands (weights, bias, ...) */
    int64_t param_count;         /* framework parameters (a folded BN counts 2 per channel; a
                                    constant read by several ops counts at the first) */
    int64_t macs;                /* multiply-accumulates for one batch */
    int32_t is_output;           /* graph output (no consumers, or marked) */
    int32_t n_operands;
    const lf_operand *operands;  /* all operands in ONNX order; the LF_OPND_TENSOR ones,
                                    in order, are exactly inputs[] */
} lf_op;

typedef struct lf_graph {
    char *name;
    int32_t n_ops;
    lf_op *ops;                  /* topological order: ops[i].id == i */
    uint64_t hash;               /* deterministic structural hash (types, attrs, edges, shapes;
                                    constant values do not enter it) */
    int32_t n_consts;
    const lf_const *consts;      /* in order of first use by the ops */
    int32_t n_folded;
    const lf_folded *folded;     /* ops folded into constants at build time, in topological order */
    void *arena_;                /* private storage */
    void *values_;               /* private: the constants' value buffers */
} lf_graph;

void lf_graph_free(lf_graph *g);

/* Totals over the whole graph. */
int64_t lf_graph_params(const lf_graph *g);
int64_t lf_graph_macs(const lf_graph *g);
int32_t lf_graph_compute_ops(const lf_graph *g); /* ops other than graph inputs */

/* Looks an op up by name; returns its id or -1. Linear in the number of ops. */
int32_t lf_graph_find(const lf_graph *g, const char *name);

/* Bytes of op v's output tensor (N*C*H*W*act_bytes) and weights (elems*weight_bytes). */
int64_t lf_tensor_bytes(const lf_graph *g, int32_t v, int32_t act_bytes);
int64_t lf_weight_bytes(const lf_graph *g, int32_t v, int32_t weight_bytes);

/* Elements of a constant (N*C*H*W). */
int64_t lf_const_elems(const lf_const *c);

/* The constant at operand position pos of op v, or NULL when that operand is
 * an activation or absent. */
const lf_const *lf_op_const(const lf_graph *g, int32_t v, int32_t pos);

/* Looks a constant up by name; returns its id or -1. Linear. */
int32_t lf_graph_find_const(const lf_graph *g, const char *name);

/* Hash formatted as 16 lower-case hex digits. */
void lf_graph_hash_hex(const lf_graph *g, char out[17]);

/* ---- building ---------------------------------------------------------- */

typedef struct lf_graph_builder lf_graph_builder;

lf_status lf_graph_builder_create(lf_graph_builder **b, const char *name);
void lf_graph_builder_free(lf_graph_builder *b);

/* Adds an op whose activation inputs are named by the names of other ops
 * (added before or after it). Its weight constants are implied by its type and
 * attributes (lf_op_implied_consts: Conv W [+ B], Gemm W [+ B], BatchNorm scale
 * and shift, ...) and created shape-only at build time, named "<op>.weight",
 * "<op>.bias", "<op>.scale", "<op>.shift". Names must be unique and non-empty.
 * Returns the op's index in insertion order (>= 0) or a negative lf_status. */
int32_t lf_graph_builder_add(lf_graph_builder *b, lf_op_type type, const char *name,
                             const lf_attrs *attrs, const char *const *inputs, int32_t n_inputs);

/* Adds an op with its complete operand list in ONNX order. Each operand names
 * an op's output or a constant (or an op that folds into one); nothing is
 * implied. Returns the op's insertion index or a negative lf_status. */
int32_t lf_graph_builder_add_op(lf_graph_builder *b, lf_op_type type, const char *name,
                                const lf_attrs *attrs, const char *const *operands,
                                int32_t n_operands);

/* Adds a constant. data holds N*C*H*W floats, row-major, and is copied; NULL
 * makes a shape-only constant. Constants share the name space of ops. Returns
 * the constant's insertion index (>= 0) or a negative lf_status. */
int32_t lf_graph_builder_add_const(lf_graph_builder *b, const char *name, lf_shape shape,
                                   const float *data);

/* As lf_graph_builder_add_const, but takes ownership of data (from malloc;
 * freed with free(), also when the call fails). */
int32_t lf_graph_builder_add_const_owned(lf_graph_builder *b, const char *name, lf_shape shape,
                                         float *data);

/* One buffer for many constants' values (the ONNX importer's weights, on huge
 * pages): lf_graph_builder_adopt hands the builder a malloc'd buffer, which
 * the built graph frees in lf_graph_free (the builder in
 * lf_graph_builder_free when it never built; also when the call fails);
 * lf_graph_builder_add_const_in adds a constant whose data lies inside an
 * adopted buffer, never freed on its own. */
lf_status lf_graph_builder_adopt(lf_graph_builder *b, void *buf);
int32_t lf_graph_builder_add_const_in(lf_graph_builder *b, const char *name, lf_shape shape,
                                      float *data);

/* Folding: an op whose operands are all constants is evaluated at build time
 * and replaced by a constant named like the op. When every operand has values
 * the builder calls the registered evaluator (the reference executor provides
 * one) for ops it cannot compute itself (it copies Identity, Reshape and
 * Flatten); when some operand is shape-only the result is shape-only. */
typedef struct lf_fold_request {
    const char *name;            /* the op being folded */
    lf_op_type type;
    const lf_attrs *attrs;
    int32_t n_operands;
    const lf_shape *shapes;      /* operand shapes */
    const float *const *data;    /* operand values (all non-NULL) */
    lf_shape out_shape;          /* inferred output shape */
    float *out;                  /* out_shape's N*C*H*W floats, to fill */
} lf_fold_request;
typedef lf_status (*lf_fold_fn)(void *ctx, const lf_fold_request *rq);

/* Registers the evaluator used for folding (NULL: none; folding an op with
 * values then fails with LF_EUNSUPPORTED naming the op). */
void lf_graph_builder_set_folder(lf_graph_builder *b, lf_fold_fn fn, void *ctx);

/* Name of the op added at insertion index i (NULL when out of range). */
const char *lf_graph_builder_name(const lf_graph_builder *b, int32_t i);

/* Marks an op as a graph output even if other ops read it. */
lf_status lf_graph_builder_mark_output(lf_graph_builder *b, const char *name);

/* Freezes the graph. Ops keep their insertion order wherever that order is
 * topological (ties broken by insertion index). Constant-only ops are folded
 * first (see above); unused constants are dropped. Fails with LF_EGRAPH and a
 * message naming the op on: dangling inputs, cycles, wrong operand counts,
 * activations where the op needs a constant, constant shapes that do not fit,
 * shape mismatches, empty graphs. The builder can be freed afterwards. */
lf_status lf_graph_builder_build(lf_graph_builder *b, lf_graph **out);

#endif
