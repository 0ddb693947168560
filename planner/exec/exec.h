/* Reference executor (DESIGN §10): runs any graph in float32 on the CPU.
 *
 * It is the numeric oracle for ONNX import, for substitution rules and for the
 * exporters, so it follows ONNX semantics op by op and favours exactness over
 * speed. OpenMP threads share the work of an op (output channels, rows or
 * matrix tiles); every output element is computed by one thread in a fixed
 * order, so results are byte-identical for any thread count.
 *
 * Values: a constant with data uses it; a constant without data (built-in
 * networks carry shapes only) and a graph input that was not set are drawn
 * from a generator seeded by (seed, tensor name), see lf_exec_fill. */
#ifndef LF_EXEC_H
#define LF_EXEC_H

#include <stdint.h>

#include "planner/graph.h"
#include "planner/status.h"

/* A dense float32 tensor in row-major N x C x H x W order. */
typedef struct lf_tensor {
    lf_shape shape;
    float *data;
} lf_tensor;

int64_t lf_shape_count(lf_shape s); /* n*c*h*w */

/* What a generated value is for; it picks the distribution (all uniform):
 *   INPUT     [-1, 1)            graph inputs
 *   WEIGHT    +-sqrt(3 / fan_in) conv / gemm / matmul weights (variance 1/fan_in)
 *   BIAS      [-0.1, 0.1)        biases, BatchNorm shift and mean
 *   SCALE     [0.5, 1.5)         BatchNorm / LayerNorm scale
 *   VARIANCE  [0.5, 1.5)         BatchNorm running variance (positive)
 *   INDEX     0 .. fan_in - 1    whole numbers: the ids a Gather reads (rows of its table)
 *   GENERIC   [-1, 1)            anything else */
typedef enum lf_value_role {
    LF_VALUE_GENERIC = 0,
    LF_VALUE_INPUT,
    LF_VALUE_WEIGHT,
    LF_VALUE_BIAS,
    LF_VALUE_SCALE,
    LF_VALUE_VARIANCE,
    LF_VALUE_INDEX /* row numbers of a Gather's table: integers in [0, fan_in) */
} lf_value_role;

/* Fills out[0..count) with the values of tensor `name` for `seed`: element i
 * is the i-th draw of the stream (seed, FNV-1a hash of name), so a tensor's
 * values depend only on the seed, its name, its role and fan_in (used by
 * WEIGHT; <= 0 means 1), never on the graph around it or the thread count. */
void lf_exec_fill(uint64_t seed, const char *name, lf_value_role role, int64_t fan_in, float *out,
                  int64_t count);

/* 64-bit FNV-1a over the bytes of data[0..count): the checksum `fusionplan
 * run` prints, equal exactly when the outputs are byte-identical. */
uint64_t lf_exec_checksum(const float *data, int64_t count);

/* Evaluates one op on given operand tensors: the primitive the graph
 * executor runs for every op, and what constant folding calls.
 *
 * operands are in ONNX order (Conv: X, W [, B]; Gemm: A, B [, C];
 * BatchNorm: X, scale, B, mean, var; element-wise ops and Concat: their
 * inputs), activations and constants alike. out->shape must be set (the
 * op's inferred shape) and out->data hold lf_shape_count(out->shape) floats.
 * threads <= 0 means all cores. Errors (LF_EGRAPH, LF_EUNSUPPORTED,
 * LF_ENOMEM) carry a message naming the op type and the operand at fault. */
lf_status lf_exec_eval_op(lf_op_type type, const lf_attrs *attrs, const lf_tensor *operands,
                          int32_t n_operands, lf_tensor *out, int32_t threads);

/* Folding hook for graph building (lf_graph_builder_set_folder): evaluates
 * the op of rq with lf_exec_eval_op. ctx may point to an int32_t thread
 * count; NULL means one thread. */
lf_status lf_exec_fold(void *ctx, const lf_fold_request *rq);

/* ---- running a graph --------------------------------------------------- */

typedef struct lf_exec_options {
    uint64_t seed;    /* generated constants and inputs (default 0) */
    int32_t threads;  /* OpenMP threads; 0 = all cores */
    int32_t keep_all; /* keep every op's output after lf_exec_run, not only the graph outputs */
} lf_exec_options;

typedef struct lf_exec lf_exec;

/* Prepares to run g (which must outlive the executor): resolves every
 * constant operand (its data, or generated values) once. opt may be NULL. */
lf_status lf_exec_create(lf_exec **ex, const lf_graph *g, const lf_exec_options *opt);
void lf_exec_free(lf_exec *ex);

/* Values the executor uses for constant j of its graph (the graph's own, or
 * generated ones); NULL when j is out of range. Owned by the executor. */
const float *lf_exec_const_values(const lf_exec *ex, int32_t j);

/* Sets graph input `op` (an LF_OP_INPUT op id) to count floats in its
 * shape's order; copied. Inputs not set are generated from the seed. */
lf_status lf_exec_set_input(lf_exec *ex, int32_t op, const float *data, int64_t count);

/* Runs the graph op by op in topological order. Each intermediate tensor is
 * freed after its last consumer, so memory stays near the widest cut of the
 * graph; graph inputs and outputs (and, with keep_all, every op's output) are
 * kept until the next run. Can be called again (after new inputs). */
lf_status lf_exec_run(lf_exec *ex);

/* Output of op after lf_exec_run: its data (owned by the executor) and shape,
 * or NULL when op is out of range or its tensor was not kept. */
const float *lf_exec_output(const lf_exec *ex, int32_t op, lf_shape *shape);

/* Summary statistics of a tensor (NaN and infinities are counted apart and
 * left out of min, max and mean). */
typedef struct lf_tensor_stats {
    int64_t count, n_nan, n_inf;
    double min, max, mean, l2;
    uint64_t checksum;
} lf_tensor_stats;

void lf_tensor_stats_of(const float *data, int64_t count, lf_tensor_stats *s);

#endif
