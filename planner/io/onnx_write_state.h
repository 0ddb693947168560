/* The ONNX writer's state and node-building helpers (onnx_write.c), shared
 * with the per-op lowering (onnx_write_ops.c). Internal to planner/io. */
#ifndef LF_ONNX_WRITE_STATE_H
#define LF_ONNX_WRITE_STATE_H

#include <stdint.h>

#include "planner/exec/exec.h"
#include "planner/io/onnx_internal.h"
#include "planner/io/onnx_write_internal.h"
#include "planner/util/hashmap.h"

#define LF__OW_MAX_IN 260

typedef struct lf__ow {
    const lf_graph *g;
    const lf__ox_annotations *ann;
    lf_exec *ex;               /* values of constants without data */
    lf_arena arena;
    lf_strmap names;           /* every value and node name used */
    int8_t *rank;              /* per op: ONNX rank of its output (2 or 4) */
    const char **tensor;       /* per op: its output tensor's name */
    uint8_t *const_written;    /* per constant: initializer written */
    Onnx__NodeProto **nodes;
    size_t n_nodes, cap_nodes;
    Onnx__TensorProto **inits;
    size_t n_inits, cap_inits;
    int32_t op;                /* the IR op being written (for annotations) */
    /* Helper outputs of op `op` reduced over the dims of reduced_mask (a
     * written-out RMSNorm's mean of squares): their value_info has those
     * dims 1, not the op's shape. Reset per op. */
    const char *reduced[4];
    int32_t n_reduced, reduced_mask;
} lf__ow;

lf_status lf__ow_oom(void);
const char *lf__ow_unique(lf__ow *w, const char *want);
int lf__ow_push(void ***arr, size_t *n, size_t *cap, void *item);
Onnx__NodeProto *lf__ow_node(lf__ow *w, const char *name, const char *op_type, const char *const *in,
                             int32_t n_in, const char *out);
lf_status lf__ow_attr(lf__ow *w, Onnx__NodeProto *n, const char *name, int type, int64_t i, float f,
                             const char *s, const int64_t *ints, int32_t n_ints);
lf_status lf__ow_int(lf__ow *w, Onnx__NodeProto *n, const char *name, int64_t v);
lf_status lf__ow_float(lf__ow *w, Onnx__NodeProto *n, const char *name, float v);
lf_status lf__ow_str(lf__ow *w, Onnx__NodeProto *n, const char *name, const char *v);
lf_status lf__ow_ints(lf__ow *w, Onnx__NodeProto *n, const char *name, const int64_t *v, int32_t cnt);
const char *lf__ow_init_as(lf__ow *w, const char *name, const int64_t *dims, int32_t rank, const float *f,
                           const int64_t *i64, int64_t count);
const char *lf__ow_init(lf__ow *w, const char *want, const int64_t *dims, int32_t rank, const float *f,
                        const int64_t *i64, int64_t count);
const char *lf__ow_ints_init(lf__ow *w, const char *op, const char *what, const int64_t *v, int32_t n);
const char *lf__ow_scalar(lf__ow *w, const char *op, const char *what, float v);
const float *lf__ow_values(lf__ow *w, int32_t v, int32_t pos, const lf_const **c);
const char *lf__ow_const(lf__ow *w, int32_t v, int32_t pos, const int64_t *dims, int32_t rank);
const char *lf__ow_const_frame(lf__ow *w, int32_t v, int32_t pos, int32_t r);
const char *lf__ow_act(lf__ow *w, int32_t v, int32_t u, int32_t r);
lf_status lf__ow_fail(const lf__ow *w, int32_t v, const char *why);
int8_t lf__ow_rank_of(const lf__ow *w, int32_t v);
/* 1 when graph input u is token ids (N x 1 x T x 1, read only as the ids of
 * Gathers of constant tables): written as an int64 [N, 1, T] input. */
int lf__ow_ids_input(const lf_graph *g, int32_t u);

/* onnx_write_ops.c: the nodes of IR op v (one or a few), appended to w. */
lf_status lf__ow_op(lf__ow *w, int32_t v);

#endif
