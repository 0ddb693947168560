/* Executor inputs and outputs as TensorProto files, and their statistics
 * (planner/io/exec_files.h). */
#include <stdio.h>
#include <string.h>

#include "planner/io/exec_files.h"
#include "planner/io/onnx.h"

lf_status lf_exec_read_inputs(lf_exec *ex, const lf_graph *g, const char *const *files, int32_t n)
{
    int32_t k = 0;
    lf_status st = LF_OK;
    for (int32_t v = 0; v < g->n_ops && !st; v++) {
        const lf_op *op = &g->ops[v];
        if (op->type != LF_OP_INPUT)
            continue;
        if (k >= n)
            break;
        lf_onnx_tensor t;
        memset(&t, 0, sizeof t);
        st = lf_onnx_read_tensor(files[k], &t);
        if (!st && t.count != lf_shape_count(op->out))
            st = lf_set_error(LF_EINVAL, "%s: tensor '%s' has %lld values, input '%s' takes %lld (%lldx%lldx%lldx%lld)",
                              files[k], t.name, (long long)t.count, op->name, (long long)lf_shape_count(op->out),
                              (long long)op->out.n, (long long)op->out.c, (long long)op->out.h, (long long)op->out.w);
        if (!st)
            st = lf_exec_set_input(ex, v, t.data, t.count);
        lf_onnx_tensor_free(&t);
        k++;
    }
    if (!st && n != k)
        st = lf_set_error(LF_EINVAL, "--input: %d files for %d graph inputs", (int)n, (int)k);
    return st;
}

lf_status lf_exec_write_outputs(const lf_exec *ex, const lf_graph *g, const char *const *files, int32_t n)
{
    int32_t outputs = 0, k = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        outputs += g->ops[v].is_output != 0;
    if (n != outputs)
        return lf_set_error(LF_EINVAL, "--output: %d files for %d graph outputs", (int)n, (int)outputs);
    for (int32_t v = 0; v < g->n_ops; v++) {
        if (!g->ops[v].is_output)
            continue;
        lf_onnx_tensor t;
        memset(&t, 0, sizeof t);
        snprintf(t.name, sizeof t.name, "%s", g->ops[v].name);
        lf_shape s;
        t.data = (float *)lf_exec_output(ex, v, &s);
        t.rank = 4;
        t.dims[0] = s.n, t.dims[1] = s.c, t.dims[2] = s.h, t.dims[3] = s.w;
        t.count = lf_shape_count(s);
        lf_status st = lf_onnx_write_tensor(files[k++], &t);
        if (st)
            return st;
    }
    return LF_OK;
}

void lf_exec_stats_write(FILE *f, const char *what, const lf_exec *ex, const lf_graph *g, int32_t v)
{
    const lf_op *op = &g->ops[v];
    lf_tensor_stats s;
    lf_tensor_stats_of(lf_exec_output(ex, v, NULL), lf_shape_count(op->out), &s);
    fprintf(f, "%s %s: shape %lldx%lldx%lldx%lld  min %.6g  max %.6g  mean %.6g  l2 %.6g  checksum %016llx", what,
            op->name, (long long)op->out.n, (long long)op->out.c, (long long)op->out.h, (long long)op->out.w, s.min,
            s.max, s.mean, s.l2, (unsigned long long)s.checksum);
    if (s.n_nan || s.n_inf)
        fprintf(f, "  nan %lld  inf %lld", (long long)s.n_nan, (long long)s.n_inf);
    fprintf(f, "\n");
}

void lf_exec_report_write(FILE *f, const lf_exec *ex, const lf_graph *g, int inputs)
{
    for (int32_t v = 0; inputs && v < g->n_ops; v++)
        if (g->ops[v].type == LF_OP_INPUT)
            lf_exec_stats_write(f, "input", ex, g, v);
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].is_output)
            lf_exec_stats_write(f, "output", ex, g, v);
}
