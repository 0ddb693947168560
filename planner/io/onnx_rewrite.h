/* The rewrites' shared helpers (onnx_rewrite_util.c) and the rewrite passes kept
 * in files of their own: transformer patterns (onnx_rewrite_tf.c) and ops on
 * tensors of rank 5 and 6 (onnx_rewrite_rank.c). */
#ifndef LF_ONNX_REWRITE_H
#define LF_ONNX_REWRITE_H

#include "planner/io/onnx_internal.h"

int lf__ox_rw_on(const lf__ox_graph *g, lf_onnx_rewrite k);
/* Live node of type op. */
int lf__ox_rw_is(const lf__ox_node *n, const char *op);
/* The one live node reading value v, or -1 (several readers, none, or a graph output). */
int32_t lf__ox_rw_sole_reader(const lf__ox_graph *g, int32_t v);
/* The live node producing v, or -1. */
int32_t lf__ox_rw_producer(const lf__ox_graph *g, int32_t v);
lf_status lf__ox_rw_set_inputs(lf__ox_graph *g, lf__ox_node *n, const int32_t *in, int32_t cnt);
/* Sets an int (cnt < 0: v[0]) or ints attribute. */
lf_status lf__ox_rw_set_ints(lf__ox_graph *g, lf__ox_node *n, const char *name, const int64_t *v, int32_t cnt);
/* A constant scalar input (any numeric type) or NAN. */
double lf__ox_rw_scalar(const lf__ox_graph *g, const lf__ox_node *n, int32_t k);
/* Makes every reader of value `from` read `to` instead. */
void lf__ox_rw_replace_uses(lf__ox_graph *g, int32_t from, int32_t to);
/* Makes node `into` produce value v (taking over the output of a removed node). */
void lf__ox_rw_take_output(lf__ox_graph *g, int32_t into, int32_t v);

/* A new value (unique name from base) of the given type and dims; its id or a negative status. */
int32_t lf__ox_rw_value(lf__ox_graph *g, const char *base, int32_t elem_type, int32_t rank, const int64_t *dims);
/* A new float constant of the given dims taking d's buffer (NULL data: shape only). */
int32_t lf__ox_rw_const(lf__ox_graph *g, const char *base, lf__ox_data *d, int32_t rank, const int64_t *dims);
/* A new node op(in...) -> a new value of the given dims; returns the value id. */
int32_t lf__ox_rw_node(lf__ox_graph *g, const char *name, const char *op, const int32_t *in, int32_t n_in,
                       int32_t rank, const int64_t *dims);

/* onnx_rewrite_tf.c: LayerNorm and GELU written out -> one node each. */
lf_status lf__ox_rewrite_tf(lf__ox_graph *g);
/* onnx_rewrite_ops.c: ONNX ops the IR expresses with others: Trilu, Where
 * with a constant condition, Einsum of a matrix product, LayerNormalization
 * whose Mean and InvStdDev outputs are read. */
lf_status lf__ox_rewrite_ops(lf__ox_graph *g);
/* onnx_attention.c, onnx_rotary.c: opset 23's Attention and RotaryEmbedding
 * (node i) lowered to MatMul, Softmax, Slice, Mul and Concat. */
lf_status lf__ox_rewrite_attention(lf__ox_graph *g, int32_t i);
lf_status lf__ox_rewrite_rotary(lf__ox_graph *g, int32_t i);
/* onnx_rewrite_einsum.c: Einsum (node i) as MatMul, or Mul and ReduceSum,
 * with Transposes and diagonals. */
lf_status lf__ox_rewrite_einsum(lf__ox_graph *g, int32_t i);
/* onnx_rewrite_reduce.c: ReduceL1, ReduceLogSum, ReduceLogSumExp, Mean and
 * Celu written with ReduceSum, ReduceMax, Abs, Log, Exp, Sum, Elu, Mul. */
lf_status lf__ox_rewrite_reduce(lf__ox_graph *g);
/* onnx_depth_space.c: DepthToSpace and SpaceToDepth as Reshape, Transpose
 * (rank 6), Reshape. */
lf_status lf__ox_rewrite_depth_space(lf__ox_graph *g);
/* onnx_rewrite_swaps.c: node i, a Transpose of G > 4 runs of sizes size[] in
 * input order, output order gperm, as rank-4 Transposes of views. */
lf_status lf__ox_transpose_by_swaps(lf__ox_graph *g, int32_t i, const int64_t *size, const int64_t *gperm, int32_t G);
/* onnx_rewrite_rank.c: ops on rank 5 and 6 between views -> rank <= 4. */
lf_status lf__ox_rewrite_rank(lf__ox_graph *g);

#endif
