/* Lowering the importer's graph into the IR (onnx_lower.c: driver, frames,
 * constants; onnx_lower_ops.c: one mapping per ONNX op). */
#ifndef LF_ONNX_LOWER_H
#define LF_ONNX_LOWER_H

#include "planner/io/onnx_internal.h"

#define LF__LOWER_MAX_OPERANDS 64

typedef struct lf__lower {
    lf__ox_graph *g;
    lf_graph_builder *b;
    const char **name_of;  /* value id -> IR name of the op computing it (NULL: constant / none) */
    lf_strmap used;        /* IR names taken (ops and constants share one name space) */
    lf_strmap consts;      /* "value|n,c,h,w" -> IR constant name */
} lf__lower;

/* One op to add: its type, attributes and operand names (ONNX order). */
typedef struct lf__lowered {
    lf_op_type type;
    lf_attrs a;
    int32_t n;
    const char *operand[LF__LOWER_MAX_OPERANDS];
    lf_shape shape[LF__LOWER_MAX_OPERANDS]; /* operand shapes in the IR frame */
} lf__lowered;

/* The IR frame of an ONNX shape of rank <= 4: rank 4 as is, rank 3
 * right-aligned {1, d0, d1, d2}, rank 2 {d0, d1, 1, 1} (the IR's Gemm frame),
 * rank 1 {1, d0, 1, 1}, scalars {1, 1, 1, 1}. Row-major order is the same. */
lf_shape lf__frame(const int64_t *dims, int32_t rank);
/* The IR shape of a graph input of token ids ([B, T], [B, 1, T], ...): B x 1 x
 * (the rest) x 1, tokens on H as the built-in transformers take them. */
lf_shape lf__ids_frame(const int64_t *dims, int32_t rank);
/* The IR dim (LF_DIM_*) of ONNX axis `axis` (normalised) of a rank-r tensor. */
int32_t lf__frame_dim(int32_t axis, int32_t rank);

lf_status lf__unsupported(lf__lower *L, int32_t i, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Appends operand k of node i: an activation by name, or a constant laid out
 * in the frame of an ONNX tensor of rank out_rank (right-aligned first, as
 * ONNX broadcasting does). */
lf_status lf__operand(lf__lower *L, int32_t i, int32_t k, int32_t out_rank, lf__lowered *o);
/* Appends a new constant (takes data, malloc'd) named after base. */
lf_status lf__operand_new_const(lf__lower *L, const char *base, lf_shape shape, float *data, lf__lowered *o);

/* onnx_lower_ops.c: fills o for node i. */
lf_status lf__lower_node(lf__lower *L, int32_t i, lf__lowered *o);

/* A name for a new IR op or constant: want, or want with a numeric suffix
 * when an ONNX value or an earlier op already has it (onnx_operand.c). */
const char *lf__lower_unique(lf__lower *L, const char *want);

#endif
