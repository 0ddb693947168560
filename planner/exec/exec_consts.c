/* Constants of a graph for the executor: the graph's values where it has
 * them, generated values (lf_exec_fill, seeded by the constant's name) where
 * it has only shapes. The role that picks the distribution comes from the
 * first op that reads the constant and the operand position it fills. */
#include <stdlib.h>

#include "planner/exec/exec_internal.h"

static lf_value_role lf__role(const lf_op *op, int32_t pos, const lf_shape *s, int64_t *fan_in)
{
    *fan_in = s->c * s->h * s->w;
    switch (op->type) {
    case LF_OP_CONV:
    case LF_OP_CONVTRANSPOSE:
    case LF_OP_GEMM:
        return pos == 1 ? LF_VALUE_WEIGHT : LF_VALUE_BIAS;
    case LF_OP_MATMUL:
        if (pos == 1)
            *fan_in = op->attr.trans_b ? s->w : s->h;
        else
            *fan_in = op->attr.trans_a ? s->h : s->w;
        return LF_VALUE_WEIGHT;
    case LF_OP_BATCHNORM:
        /* X, scale, shift (the IR's affine form) or X, scale, B, mean, var. */
        return pos == 1 ? LF_VALUE_SCALE : (pos == 4 ? LF_VALUE_VARIANCE : LF_VALUE_BIAS);
    case LF_OP_LAYERNORM:
    case LF_OP_RMSNORM:
        return pos == 1 ? LF_VALUE_SCALE : LF_VALUE_BIAS;
    case LF_OP_GATHER: /* an embedding table, rows of D (as the tied LM head reads it) */
        *fan_in = s->w;
        return LF_VALUE_WEIGHT;
    case LF_OP_DIV:
    case LF_OP_POW:
        /* Divisors and exponents away from zero keep generated values finite. */
        return pos == 1 ? LF_VALUE_SCALE : LF_VALUE_GENERIC;
    default:
        return LF_VALUE_GENERIC;
    }
}

lf_status lf__exec_consts_init(lf_exec *ex)
{
    const lf_graph *g = ex->g;
    ex->n_cdata = g->n_consts;
    if (ex->n_cdata == 0)
        return LF_OK;
    ex->cdata = calloc((size_t)ex->n_cdata, sizeof *ex->cdata);
    ex->cowned = calloc((size_t)ex->n_cdata, sizeof *ex->cowned);
    if (!ex->cdata || !ex->cowned)
        return lf_set_error(LF_ENOMEM, "executor: out of memory");
    for (int32_t j = 0; j < g->n_consts; j++)
        ex->cdata[j] = (float *)g->consts[j].data; /* read only; never written */
    for (int32_t v = 0; v < g->n_ops; v++) {
        const lf_op *op = &g->ops[v];
        for (int32_t p = 0; p < op->n_operands; p++) {
            const lf_operand *o = &op->operands[p];
            if (o->kind != LF_OPND_CONST || ex->cdata[o->id])
                continue;
            const lf_const *c = &g->consts[o->id];
            int64_t n = lf_const_elems(c), fan_in;
            lf_value_role role = lf__role(op, p, &c->shape, &fan_in);
            float *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
            if (!d)
                return lf_set_error(LF_ENOMEM, "executor: out of memory for constant '%s' (%lld values)",
                                    c->name, (long long)n);
            lf_exec_fill(ex->opt.seed, c->name, role, fan_in, d, n);
            ex->cdata[o->id] = d;
            ex->cowned[o->id] = 1;
        }
    }
    return LF_OK;
}

void lf__exec_consts_destroy(lf_exec *ex)
{
    if (ex->cdata && ex->cowned)
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
    if (op->n_operands > LF__EXEC_MAX_OPERANDS)
        return lf_set_error(LF_ELIMIT, "op '%s' has %d operands (at most %d)", op->name,
                            (int)op->n_operands, LF__EXEC_MAX_OPERANDS);
    for (int32_t p = 0; p < op->n_operands; p++) {
        const lf_operand *o = &op->operands[p];
        if (o->kind == LF_OPND_CONST) {
            x[p].shape = g->consts[o->id].shape;
            x[p].data = ex->cdata[o->id];
        } else {
            x[p].shape = g->ops[o->id].out;
            x[p].data = ex->buf[o->id];
            if (!x[p].data)
                return lf_set_error(LF_EGRAPH, "input '%s' of '%s' is not available",
                                    g->ops[o->id].name, op->name);
        }
    }
    *n = op->n_operands;
    return LF_OK;
}

const float *lf_exec_const_values(const lf_exec *ex, int32_t j)
{
    return j >= 0 && j < ex->n_cdata ? ex->cdata[j] : NULL;
}
