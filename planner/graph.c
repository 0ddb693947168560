/* Queries on a frozen graph and its hash (the JSON dump is io/graph_json.c). */
#include "planner/graph.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "planner/graph_internal.h"
#include "planner/optable.h"
#include "planner/util/arena.h"

void lf_graph_free(lf_graph *g)
{
    if (!g)
        return;
    if (g->arena_) {
        lf_arena_destroy(g->arena_);
        free(g->arena_);
    }
    lf__graph_values *vals = g->values_;
    if (vals) {
        for (int32_t i = 0; i < vals->n; i++)
            free(vals->bufs[i]);
        free(vals->bufs);
        free(vals);
    }
    free(g);
}

int64_t lf_graph_params(const lf_graph *g)
{
    int64_t n = 0;
    for (int32_t i = 0; i < g->n_ops; i++)
        n += g->ops[i].param_count;
    return n;
}

int64_t lf_graph_macs(const lf_graph *g)
{
    int64_t n = 0;
    for (int32_t i = 0; i < g->n_ops; i++)
        n += g->ops[i].macs;
    return n;
}

int32_t lf_graph_compute_ops(const lf_graph *g)
{
    int32_t n = 0;
    for (int32_t i = 0; i < g->n_ops; i++)
        n += g->ops[i].type != LF_OP_INPUT;
    return n;
}

int32_t lf_graph_find(const lf_graph *g, const char *name)
{
    for (int32_t i = 0; i < g->n_ops; i++)
        if (strcmp(g->ops[i].name, name) == 0)
            return i;
    return -1;
}

int64_t lf_const_elems(const lf_const *c)
{
    return c->shape.n * c->shape.c * c->shape.h * c->shape.w;
}

const lf_const *lf_op_const(const lf_graph *g, int32_t v, int32_t pos)
{
    const lf_op *op = &g->ops[v];
    if (pos < 0 || pos >= op->n_operands || op->operands[pos].kind != LF_OPND_CONST)
        return NULL;
    return &g->consts[op->operands[pos].id];
}

int32_t lf_graph_find_const(const lf_graph *g, const char *name)
{
    for (int32_t i = 0; i < g->n_consts; i++)
        if (strcmp(g->consts[i].name, name) == 0)
            return i;
    return -1;
}

int64_t lf_tensor_bytes(const lf_graph *g, int32_t v, int32_t act_bytes)
{
    const lf_shape *s = &g->ops[v].out;
    return s->n * s->c * s->h * s->w * act_bytes;
}

int64_t lf_weight_bytes(const lf_graph *g, int32_t v, int32_t weight_bytes)
{
    return g->ops[v].weight_elems * weight_bytes;
}

void lf_graph_hash_hex(const lf_graph *g, char out[17])
{
    snprintf(out, 17, "%016" PRIx64, g->hash);
}
