/* The graph executor: walks the ops in topological order, feeds each op's
 * operands to lf_exec_eval_op and frees every intermediate tensor after its
 * last consumer. */
#include "planner/exec/exec.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "planner/exec/exec_internal.h"

lf_status lf_exec_create(lf_exec **out, const lf_graph *g, const lf_exec_options *opt)
{
    *out = NULL;
    if (!g || g->n_ops <= 0)
        return lf_set_error(LF_EINVAL, "executor: empty graph");
    lf_exec *ex = calloc(1, sizeof *ex);
    if (!ex)
        return lf_set_error(LF_ENOMEM, "executor: out of memory");
    ex->g = g;
    if (opt)
        ex->opt = *opt;
    int32_t n = g->n_ops;
    ex->buf = calloc((size_t)n, sizeof *ex->buf);
    ex->input = calloc((size_t)n, sizeof *ex->input);
    ex->last_use = malloc((size_t)n * sizeof *ex->last_use);
    if (!ex->buf || !ex->input || !ex->last_use) {
        lf_exec_free(ex);
        return lf_set_error(LF_ENOMEM, "executor: out of memory");
    }
    /* An op's tensor dies after its last consumer, unless it is a graph
     * input or output (kept: last use past the end). */
    for (int32_t v = 0; v < n; v++) {
        const lf_op *op = &g->ops[v];
        ex->last_use[v] = op->n_consumers > 0 ? op->consumers[op->n_consumers - 1] : n;
        if (op->is_output || op->type == LF_OP_INPUT || ex->opt.keep_all)
            ex->last_use[v] = n;
    }
    lf_status st = lf__exec_consts_init(ex);
    if (st) {
        lf_exec_free(ex);
        return st;
    }
    *out = ex;
    return LF_OK;
}

static void lf__release_all(lf_exec *ex)
{
    for (int32_t v = 0; v < ex->g->n_ops; v++) {
        free(ex->buf[v]);
        ex->buf[v] = NULL;
    }
}

void lf_exec_free(lf_exec *ex)
{
    if (!ex)
        return;
    if (ex->buf)
        lf__release_all(ex);
    if (ex->input)
        for (int32_t v = 0; v < ex->g->n_ops; v++)
            free(ex->input[v]);
    lf__exec_consts_destroy(ex);
    free(ex->buf);
    free(ex->input);
    free(ex->last_use);
    free(ex);
}

lf_status lf_exec_set_input(lf_exec *ex, int32_t op, const float *data, int64_t count)
{
    const lf_graph *g = ex->g;
    if (op < 0 || op >= g->n_ops || g->ops[op].type != LF_OP_INPUT)
        return lf_set_error(LF_EINVAL, "executor: op %d is not a graph input", (int)op);
    int64_t want = lf_shape_count(g->ops[op].out);
    if (count != want)
        return lf_set_error(LF_EINVAL, "input '%s' takes %lld values (%lldx%lldx%lldx%lld), got %lld",
                            g->ops[op].name, (long long)want, (long long)g->ops[op].out.n,
                            (long long)g->ops[op].out.c, (long long)g->ops[op].out.h,
                            (long long)g->ops[op].out.w, (long long)count);
    float *copy = malloc((size_t)want * sizeof *copy);
    if (!copy)
        return lf_set_error(LF_ENOMEM, "executor: out of memory for input '%s'", g->ops[op].name);
    memcpy(copy, data, (size_t)want * sizeof *copy);
    free(ex->input[op]);
    ex->input[op] = copy;
    return LF_OK;
}

/* The fewest table rows among the Gathers that read input v as their ids (0:
 * none does): the range its generated values must keep to. */
static int64_t lf__index_rows(const lf_graph *g, int32_t v)
{
    int64_t rows = 0;
    const lf_op *op = &g->ops[v];
    for (int32_t k = 0; k < op->n_consumers; k++) {
        const lf_op *c = &g->ops[op->consumers[k]];
        if (c->type != LF_OP_GATHER || c->n_operands != 2 || c->operands[1].kind == LF_OPND_CONST ||
            c->operands[1].id != v || c->operands[0].kind != LF_OPND_CONST)
            continue;
        int64_t h = g->consts[c->operands[0].id].shape.h;
        if (rows == 0 || h < rows)
            rows = h;
    }
    return rows;
}

lf_status lf_exec_run(lf_exec *ex)
{
    const lf_graph *g = ex->g;
    lf__release_all(ex);
    lf_tensor operands[LF__EXEC_MAX_OPERANDS];
    for (int32_t v = 0; v < g->n_ops; v++) {
        const lf_op *op = &g->ops[v];
        int64_t count = lf_shape_count(op->out);
        if (count <= 0)
            return lf_set_error(LF_EGRAPH, "op '%s' has an empty output", op->name);
        float *y = malloc((size_t)count * sizeof *y);
        if (!y)
            return lf_set_error(LF_ENOMEM, "executor: out of memory for the output of '%s' (%lld values)",
                                op->name, (long long)count);
        ex->buf[v] = y;
        if (op->type == LF_OP_INPUT) {
            int64_t rows = lf__index_rows(g, v);
            if (ex->input[v])
                memcpy(y, ex->input[v], (size_t)count * sizeof *y);
            else if (rows > 0) /* ids of a lookup: valid rows, not values in [-1, 1] */
                lf_exec_fill(ex->opt.seed, op->name, LF_VALUE_INDEX, rows, y, count);
            else
                lf_exec_fill(ex->opt.seed, op->name, LF_VALUE_INPUT, 0, y, count);
            continue;
        }
        int32_t n = 0;
        lf_status st = lf__exec_operands(ex, v, operands, &n);
        if (!st) {
            lf_tensor out = {op->out, y};
            st = lf_exec_eval_op(op->type, &op->attr, operands, n, &out, ex->opt.threads);
        }
        if (st) {
            /* Copied first: the message being prefixed lives in the buffer
             * lf_set_error writes. */
            char why[512];
            snprintf(why, sizeof why, "%s", lf_last_error());
            return lf_set_error(st, "op '%s': %s", op->name, why);
        }
        for (int32_t i = 0; i < op->n_inputs; i++) {
            int32_t u = op->inputs[i];
            if (ex->last_use[u] == v) {
                free(ex->buf[u]);
                ex->buf[u] = NULL;
            }
        }
    }
    return LF_OK;
}

const float *lf_exec_output(const lf_exec *ex, int32_t op, lf_shape *shape)
{
    if (op < 0 || op >= ex->g->n_ops)
        return NULL;
    if (shape)
        *shape = ex->g->ops[op].out;
    return ex->buf[op];
}
