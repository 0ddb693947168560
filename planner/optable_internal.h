/* The per-family functions the op table (optable.c) names: shape inference
 * and implied constants (optable_shapes.c), parameters, MACs, row kinds, row
 * windows, weight blocks and FLOPs (optable_cost.c). Signatures are lf_op_info's
 * function fields. Not part of the public API. */
#ifndef LF_OPTABLE_INTERNAL_H
#define LF_OPTABLE_INTERNAL_H

#include "planner/optable.h"

#define LF__INFER_FN(name)                                                                       \
    lf_status name(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,          \
                   lf_shape *out, char *err, size_t errlen)
LF__INFER_FN(lf__infer_input);
LF__INFER_FN(lf__infer_sliding); /* Conv, MaxPool, AveragePool */
LF__INFER_FN(lf__infer_transposed_conv);
LF__INFER_FN(lf__infer_gemm);
LF__INFER_FN(lf__infer_mm);
LF__INFER_FN(lf__infer_elementwise); /* numpy broadcasting */
LF__INFER_FN(lf__infer_prelu);
LF__INFER_FN(lf__infer_cat);
LF__INFER_FN(lf__infer_slicing);
LF__INFER_FN(lf__infer_global_pool);
LF__INFER_FN(lf__infer_reduce);
LF__INFER_FN(lf__infer_pad);
LF__INFER_FN(lf__infer_resize);
LF__INFER_FN(lf__infer_flatten);
LF__INFER_FN(lf__infer_reshaping);
LF__INFER_FN(lf__infer_permute);
LF__INFER_FN(lf__infer_expanding);
LF__INFER_FN(lf__infer_channel_shuffle);
LF__INFER_FN(lf__infer_gather);
#undef LF__INFER_FN

#define LF__CONSTS_FN(name)                                                                      \
    int32_t name(const lf_attrs *a, const lf_shape *x, lf_shape shapes[4], const char *suffixes[4])
LF__CONSTS_FN(lf__consts_conv);
LF__CONSTS_FN(lf__consts_conv_transpose);
LF__CONSTS_FN(lf__consts_gemm);
LF__CONSTS_FN(lf__consts_batchnorm);
LF__CONSTS_FN(lf__consts_layernorm);
#undef LF__CONSTS_FN

int64_t lf__params_folded_bn(const lf_attrs *a, const lf_shape *out);

int64_t lf__macs_conv(const lf_attrs *a, const lf_shape *in, int32_t n_in, const lf_shape *out);
int64_t lf__macs_conv_transpose(const lf_attrs *a, const lf_shape *in, int32_t n_in,
                                const lf_shape *out);
int64_t lf__macs_gemm(const lf_attrs *a, const lf_shape *in, int32_t n_in, const lf_shape *out);
int64_t lf__macs_matmul(const lf_attrs *a, const lf_shape *in, int32_t n_in, const lf_shape *out);

lf_row_kind lf__rows_transpose(const lf_graph *g, const lf_op *op);
lf_row_kind lf__rows_normalize(const lf_graph *g, const lf_op *op); /* Softmax, LayerNorm */
lf_row_kind lf__rows_reduce(const lf_graph *g, const lf_op *op);
lf_row_kind lf__rows_matmul(const lf_graph *g, const lf_op *op);
lf_row_kind lf__rows_concat(const lf_graph *g, const lf_op *op);

void lf__window_kernel(const lf_op *op, int32_t *k, int32_t *stride, int32_t *pad_top);
void lf__window_pad(const lf_op *op, int32_t *k, int32_t *stride, int32_t *pad_top);
void lf__window_slice(const lf_op *op, int32_t *k, int32_t *stride, int32_t *pad_top);

int64_t lf__wblock_channel(const lf_graph *g, const lf_op *op); /* one output channel's */
int64_t lf__wblock_matmul(const lf_graph *g, const lf_op *op);
int64_t lf__wblock_whole(const lf_graph *g, const lf_op *op);

double lf__flops_window(const lf_op *op); /* pools: per window element */
double lf__flops_none(const lf_op *op);   /* views and data movers */

/* Shared by the shape rules and the dispatcher (optable_shapes.c). */
lf_status lf__fail(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void lf__shape_str(const lf_shape *s, char *buf, size_t len);
int lf__same(const lf_shape *a, const lf_shape *b);
int lf__broadcasts_to(const lf_shape *a, const lf_shape *b);

#endif
