/* Graph IR: a DAG of single-output ops stored in topological order.
 *
 * An op's id is its topological index and also the id of the tensor it
 * produces (every op has exactly one output). Graph inputs are ops of type
 * LF_OP_INPUT. Tensors are N x C x H x W; vectors are C x 1 x 1.
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
    LF_OP_TYPE_COUNT
} lf_op_type;

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
    int32_t groups;              /* Conv groups (depthwise: groups = C_in) */
    int32_t has_bias;            /* Conv, Gemm: a bias vector of out_channels */
    int32_t folded_bn;           /* Conv, Gemm: a BatchNorm was folded in (adds a bias;
                                    the framework counts 2 parameters per channel) */
    lf_act act;                  /* Conv, Gemm: fused activation */
    int32_t ceil_mode;           /* pools: ceil instead of floor for the output size */
    int32_t count_include_pad;   /* AveragePool */
    int32_t slice_begin, slice_end; /* Slice: channel range [begin, end) */
    int32_t out_h, out_w;        /* Resize: output size (0: use scale) */
    int32_t scale;               /* Resize: integer scale factor when out_h is 0 */
    int32_t linear;              /* Resize: 1 = (bi)linear, 0 = nearest */
    int32_t shape_c, shape_h, shape_w; /* Reshape: target C x H x W (0 = keep, -1 = infer) */
    float clip_min, clip_max;    /* Clip */
    int32_t batch, in_c, in_h, in_w; /* Input: tensor shape (batch 0 means 1) */
} lf_attrs;

typedef struct lf_op {
    const char *name;
    lf_op_type type;
    lf_attrs attr;
    int32_t n_inputs;
    const int32_t *inputs;       /* op ids (all smaller than this op's id), in operand order */
    int32_t n_consumers;
    const int32_t *consumers;    /* distinct op ids reading this op's output, ascending */
    lf_shape out;                /* shape of the output tensor */
    int64_t weight_elems;        /* stored weight elements including bias */
    int64_t param_count;         /* framework parameters (a folded BN counts 2 per channel) */
    int64_t macs;                /* multiply-accumulates for one batch */
    int32_t is_output;           /* graph output (no consumers, or marked) */
} lf_op;

typedef struct lf_graph {
    char *name;
    int32_t n_ops;
    lf_op *ops;                  /* topological order: ops[i].id == i */
    uint64_t hash;               /* deterministic structural hash (types, attrs, edges, shapes) */
    void *arena_;                /* private storage */
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

/* Writes the graph as JSON (name, hash, ops with type, attrs, inputs, shape,
 * weights, MACs). */
lf_status lf_graph_write_json(const lf_graph *g, FILE *f);

/* Hash formatted as 16 lower-case hex digits. */
void lf_graph_hash_hex(const lf_graph *g, char out[17]);

/* ---- building ---------------------------------------------------------- */

typedef struct lf_graph_builder lf_graph_builder;

lf_status lf_graph_builder_create(lf_graph_builder **b, const char *name);
void lf_graph_builder_free(lf_graph_builder *b);

/* Adds an op whose inputs are named by the names of other ops (added before or
 * after it). Names must be unique and non-empty. Returns the op's index in
 * insertion order (>= 0) or a negative lf_status. */
int32_t lf_graph_builder_add(lf_graph_builder *b, lf_op_type type, const char *name,
                             const lf_attrs *attrs, const char *const *inputs, int32_t n_inputs);

/* Name of the op added at insertion index i (NULL when out of range). */
const char *lf_graph_builder_name(const lf_graph_builder *b, int32_t i);

/* Marks an op as a graph output even if other ops read it. */
lf_status lf_graph_builder_mark_output(lf_graph_builder *b, const char *name);

/* Freezes the graph. Ops keep their insertion order wherever that order is
 * topological (ties broken by insertion index). Fails with LF_EGRAPH and a
 * message naming the op on: dangling inputs, cycles, wrong input counts,
 * shape mismatches, empty graphs. The builder can be freed afterwards. */
lf_status lf_graph_builder_build(lf_graph_builder *b, lf_graph **out);

#endif
