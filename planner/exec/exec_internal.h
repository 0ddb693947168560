/* Internals shared by the executor's files (not installed). */
#ifndef LF_EXEC_INTERNAL_H
#define LF_EXEC_INTERNAL_H

#include "planner/exec/exec.h"

#define LF__EXEC_MAX_OPERANDS 64

struct lf_exec {
    const lf_graph *g;
    lf_exec_options opt;
    float **buf;       /* per op: its output tensor while alive */
    float **input;     /* per graph input: values set by lf_exec_set_input */
    int32_t *last_use; /* per op: the last consumer's id (n_ops: kept) */
    float **cdata;     /* per constant: resolved values */
    int32_t n_cdata;
    int32_t *cowned;   /* per constant: 1 when cdata was generated (freed by us) */
};

/* Resolves every constant (data or generated values), and releases them. */
lf_status lf__exec_consts_init(lf_exec *ex);
void lf__exec_consts_destroy(lf_exec *ex);

/* Fills the operand list of op v in ONNX order from live tensors and
 * constants; *n receives the count. */
lf_status lf__exec_operands(const lf_exec *ex, int32_t v, lf_tensor *operands, int32_t *n);

#endif
