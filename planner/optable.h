/* The one table of op types: everything fusionplan knows about a type lives in
 * its entry in planner/optable.c (names, input counts, shape inference,
 * weights, MACs, and the row window the cost models use). Adding an op type is
 * one entry there plus its enum value in graph.h. */
#ifndef LF_OPTABLE_H
#define LF_OPTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "planner/graph.h"

/* How an op reads its (spatial) inputs, from the point of view of the
 * line-buffer cost models. */
typedef enum lf_row_kind {
    LF_ROWS_NONE = 0,   /* graph input: reads nothing */
    LF_ROWS_WINDOW,     /* output row r reads input rows [s*r - p, s*r - p + K - 1] */
    LF_ROWS_VIEW,       /* zero-copy: the consumer's window passes through (Concat, Reshape) */
    LF_ROWS_REDUCTION,  /* streaming reduction over all rows (GlobalAveragePool) */
    LF_ROWS_RESIZE,     /* row r reads row floor(r * H_in / H_out) (+1 when linear) */
    LF_ROWS_FULL        /* needs the whole input map (Softmax over space, Flatten not into Gemm) */
} lf_row_kind;

typedef struct lf_op_info {
    const char *name;      /* fusionplan spelling, also used in JSON */
    const char *onnx_name; /* ONNX op type, NULL when there is none */
    int32_t min_inputs, max_inputs;
    lf_row_kind rows;      /* default row behaviour (the cost model refines Flatten/Reshape) */
    int32_t elementwise;   /* 1 when output element i depends only on input element i */
} lf_op_info;

const lf_op_info *lf_op_info_of(lf_op_type t);

/* Looks a type up by fusionplan or ONNX name; returns LF_OP_TYPE_COUNT when unknown. */
lf_op_type lf_op_type_from_name(const char *name);

const char *lf_act_name(lf_act a);
lf_act lf_act_from_name(const char *name); /* LF_ACT_COUNT when unknown */

/* Shape inference: computes *out from the input shapes; on a mismatch writes a
 * message into err and returns LF_EGRAPH. */
lf_status lf_op_infer(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                      lf_shape *out, char *err, size_t errlen);

/* Weight elements stored for the op (including bias), the framework parameter
 * count, and multiply-accumulates, given its input and output shapes. */
void lf_op_weights(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                   const lf_shape *out, int64_t *weight_elems, int64_t *param_count);
int64_t lf_op_macs(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                   const lf_shape *out);

/* Row window along H of a windowed op: effective kernel height (dilation
 * applied), stride and top padding. Element-wise ops give (1, 1, 0). */
void lf_op_row_window(const lf_op *op, int32_t *k, int32_t *stride, int32_t *pad_top);

#endif
