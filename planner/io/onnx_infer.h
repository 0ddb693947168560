/* Per-node shape rules (onnx_shape.c) and constant evaluation (onnx_fold.c)
 * used by onnx_infer.c and the rewrites. */
#ifndef LF_ONNX_INFER_H
#define LF_ONNX_INFER_H

#include "planner/io/onnx_internal.h"

/* Sets the shapes of node i's outputs from its inputs' shapes (and the
 * values of constant inputs such as Reshape's target). Unknown op types give
 * LF_EUNSUPPORTED naming the node. */
lf_status lf__ox_shape_node(lf__ox_graph *g, int32_t i);

/* When every input of node i is a constant with values (or, for Shape, has a
 * known shape), computes its outputs as constants and marks the node dead. */
lf_status lf__ox_fold_node(lf__ox_graph *g, int32_t i);

/* Integer values of a constant input (int64 data, or float data that holds
 * integers); NULL when the input is absent or not a constant with values. */
const lf__ox_data *lf__ox_const_of(const lf__ox_graph *g, const lf__ox_node *n, int32_t k);

/* Normalises a possibly negative axis against rank; -1 when out of range. */
int32_t lf__ox_axis(int64_t axis, int32_t rank);

/* Numpy broadcast of two shapes; returns 0 when they do not broadcast. */
int lf__ox_broadcast(const int64_t *a, int32_t ra, const int64_t *b, int32_t rb, int64_t *out, int32_t *rout);

#endif
