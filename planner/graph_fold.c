/* Folding: an op whose operands are all constants (directly or through other
 * folded ops) is evaluated once at build time and becomes a constant named
 * like the op, so the planner, the scheduler and the cost models never see
 * it (DESIGN §10). Views (Identity, Reshape, Flatten) are copied here; every
 * other op type is evaluated by the registered folder (the reference
 * executor). A result with a shape-only operand is shape-only. */
#include <stdlib.h>
#include <string.h>

#include "planner/graph.h"
#include "planner/graph_internal.h"
#include "planner/optable.h"

#define LF__FOLD_MAX_OPERANDS 64

/* Evaluates one op on constant values into out. */
static lf_status lf__fold_values(lf_graph_builder *b, const lf__pending_op *op, int32_t n,
                                 const lf_shape *shapes, const float *const *data, lf_shape out_shape,
                                 float *out)
{
    size_t elems = (size_t)(out_shape.n * out_shape.c * out_shape.h * out_shape.w);
    if (lf_op_has(op->type, LF_OPF_COPIES_VALUES)) {
        memcpy(out, data[0], elems * sizeof(float));
        return LF_OK;
    }
    if (!b->fold)
        return lf_set_error(LF_EUNSUPPORTED,
                            "graph '%s': op '%s' (%s) computes a constant from values, but no "
                            "evaluator is registered to fold it (lf_graph_builder_set_folder)",
                            b->name, op->name, lf_op_info_of(op->type)->name);
    lf_fold_request rq = {op->name, op->type, &op->attr, n, shapes, data, out_shape, out};
    lf_status st = b->fold(b->fold_ctx, &rq);
    if (st != LF_OK)
        return lf_set_error(st, "graph '%s': folding op '%s' (%s) failed: %s", b->name, op->name,
                            lf_op_info_of(op->type)->name, lf_last_error());
    return LF_OK;
}

lf_status lf__fold(lf_graph_builder *b, lf__build_scratch *s)
{
    for (int32_t i = 0; i < b->n; i++)
        s->fold_const[i] = -1;
    for (int32_t k = 0; k < b->n; k++) {
        int32_t v = s->order[k];
        const lf__pending_op *op = &b->ops[v];
        if (op->type == LF_OP_INPUT || op->n_names == 0)
            continue;
        int all_const = 1;
        for (int32_t j = 0; j < op->n_names && all_const; j++)
            all_const = s->refs[v][j].is_const || s->fold_const[s->refs[v][j].id] >= 0;
        if (!all_const)
            continue;
        if (op->marked_output)
            return lf_set_error(LF_EGRAPH,
                                "graph '%s': output op '%s' is computed from constants only",
                                b->name, op->name);
        int32_t n = op->n_names;
        if (n > LF__FOLD_MAX_OPERANDS)
            return lf_set_error(LF_ELIMIT, "graph '%s': op '%s' has %d operands", b->name,
                                op->name, (int)n);
        lf_shape shapes[LF__FOLD_MAX_OPERANDS];
        const float *data[LF__FOLD_MAX_OPERANDS];
        int values = 1;
        for (int32_t j = 0; j < n; j++) {
            lf__ref r = s->refs[v][j];
            const lf__pending_const *c = &b->consts[r.is_const ? r.id : s->fold_const[r.id]];
            shapes[j] = c->shape;
            data[j] = c->data;
            values &= c->data != NULL;
        }
        if (!op->explicit_operands) {
            /* implied weights are shape-only */
            lf_shape w[4];
            const char *suffix[4];
            if (lf_op_implied_consts(op->type, &op->attr, shapes, n, w, suffix) > 0)
                values = 0;
        }
        lf_shape out;
        char err[200];
        lf_status st = lf_op_infer(op->type, &op->attr, shapes, n, &out, err, sizeof err);
        if (st != LF_OK)
            return lf_set_error(st, "graph '%s': op '%s' (%s): %s", b->name, op->name,
                                lf_op_info_of(op->type)->name, err);
        if (out.n * out.c * out.h * out.w > ((int64_t)1 << 40))
            return lf_set_error(LF_ERANGE, "graph '%s': op '%s' output is absurdly large", b->name,
                                op->name);
        float *res = NULL;
        if (values) {
            res = malloc((size_t)(out.n * out.c * out.h * out.w) * sizeof(float));
            if (!res)
                return lf_set_error(LF_ENOMEM, "out of memory folding op '%s'", op->name);
            st = lf__fold_values(b, op, n, shapes, data, out, res);
            if (st != LF_OK) {
                free(res);
                return st;
            }
        }
        int32_t cid = lf__builder_push_const(b, op->name, out, res, 0);
        if (cid < 0)
            return (lf_status)cid;
        s->fold_const[v] = cid;
    }
    return LF_OK;
}
