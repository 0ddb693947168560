/* Constants of a graph for the executor. The IR of today stores no weight
 * tensors, so each Conv/Gemm/MatMul/BatchNorm gets its weights generated
 * under the names "<op>.weight", "<op>.bias", "<op>.scale", "<op>.mean",
 * "<op>.var" (PyTorch's parameter names). */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "planner/exec/exec_internal.h"

static int lf__one(int32_t v) { return v > 0 ? v : 1; }

/* Constant slots per op: weight, bias (Conv, Gemm, MatMul) or scale, bias,
 * mean, var (BatchNorm). */
#define LF__SLOTS 4

static lf_status lf__gen(lf_exec *ex, int32_t slot, const char *op, const char *suffix,
                         lf_value_role role, int64_t fan_in, int64_t count)
{
    char name[512];
    snprintf(name, sizeof name, "%s.%s", op, suffix);
    float *d = malloc((size_t)(count > 0 ? count : 1) * sizeof *d);
    if (!d)
        return lf_set_error(LF_ENOMEM, "executor: out of memory for constant '%s'", name);
    lf_exec_fill(ex->opt.seed, name, role, fan_in, d, count);
    ex->cdata[slot] = d;
    ex->cowned[slot] = 1;
    return LF_OK;
}

lf_status lf__exec_consts_init(lf_exec *ex)
{
    const lf_graph *g = ex->g;
    ex->n_cdata = g->n_ops * LF__SLOTS;
    ex->cdata = calloc((size_t)ex->n_cdata, sizeof *ex->cdata);
    ex->cowned = calloc((size_t)ex->n_cdata, sizeof *ex->cowned);
    if (!ex->cdata || !ex->cowned)
        return lf_set_error(LF_ENOMEM, "executor: out of memory");
    lf_status st = LF_OK;
    for (int32_t v = 0; v < g->n_ops && !st; v++) {
        const lf_op *op = &g->ops[v];
        const lf_attrs *a = &op->attr;
        int32_t s = v * LF__SLOTS;
        int64_t M = op->out.c;
        switch (op->type) {
        case LF_OP_CONV: {
            const lf_shape *x = &g->ops[op->inputs[0]].out;
            int64_t fan = x->c / lf__one(a->groups) * lf__one(a->kh) * lf__one(a->kw);
            st = lf__gen(ex, s, op->name, "weight", LF_VALUE_WEIGHT, fan, M * fan);
            if (!st && (a->has_bias || a->folded_bn))
                st = lf__gen(ex, s + 1, op->name, "bias", LF_VALUE_BIAS, 0, M);
            break;
        }
        case LF_OP_GEMM:
        case LF_OP_MATMUL: {
            const lf_shape *x = &g->ops[op->inputs[0]].out;
            int64_t K = x->c * x->h * x->w;
            st = lf__gen(ex, s, op->name, "weight", LF_VALUE_WEIGHT, K, M * K);
            if (!st && (a->has_bias || a->folded_bn))
                st = lf__gen(ex, s + 1, op->name, "bias", LF_VALUE_BIAS, 0, M);
            break;
        }
        case LF_OP_BATCHNORM: {
            static const char *const names[4] = {"weight", "bias", "running_mean", "running_var"};
            static const lf_value_role roles[4] = {LF_VALUE_SCALE, LF_VALUE_BIAS, LF_VALUE_BIAS,
                                                   LF_VALUE_VARIANCE};
            for (int k = 0; k < 4 && !st; k++)
                st = lf__gen(ex, s + k, op->name, names[k], roles[k], 0, M);
            break;
        }
        default:
            break;
        }
    }
    return st;
}

void lf__exec_consts_destroy(lf_exec *ex)
{
    if (ex->cdata)
        for (int32_t i = 0; i < ex->n_cdata; i++)
            if (ex->cowned[i])
                free(ex->cdata[i]);
    free(ex->cdata);
    free(ex->cowned);
}

lf_status lf__exec_operands(const lf_exec *ex, int32_t v, lf_tensor *x, int32_t *n)
{
    const lf_graph *g = ex->g;
    const lf_op *op = &g->ops[v];
    if (op->n_inputs > LF__EXEC_MAX_OPERANDS - 4)
        return lf_set_error(LF_ELIMIT, "op '%s' has %d inputs", op->name, (int)op->n_inputs);
    int32_t k = 0;
    for (int32_t i = 0; i < op->n_inputs; i++) {
        int32_t u = op->inputs[i];
        x[k].shape = g->ops[u].out;
        x[k].data = ex->buf[u];
        if (!x[k].data)
            return lf_set_error(LF_EGRAPH, "input '%s' of '%s' is not available", g->ops[u].name, op->name);
        k++;
    }
    int32_t s = v * LF__SLOTS;
    int64_t M = op->out.c;
    lf_shape vec = {1, M, 1, 1};
    switch (op->type) {
    case LF_OP_CONV:
    case LF_OP_GEMM:
    case LF_OP_MATMUL: {
        const lf_shape *in = &x[0].shape;
        lf_shape w = {M, in->c * in->h * in->w, 1, 1};
        if (op->type == LF_OP_CONV)
            w = (lf_shape){M, in->c / lf__one(op->attr.groups), lf__one(op->attr.kh), lf__one(op->attr.kw)};
        x[k++] = (lf_tensor){w, ex->cdata[s]};
        if (ex->cdata[s + 1])
            x[k++] = (lf_tensor){vec, ex->cdata[s + 1]};
        break;
    }
    case LF_OP_BATCHNORM:
        for (int j = 0; j < 4; j++)
            x[k++] = (lf_tensor){vec, ex->cdata[s + j]};
        break;
    default:
        break;
    }
    *n = k;
    return LF_OK;
}
