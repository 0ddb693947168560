/* Static shapes for the importer's graph: topological order (cycles and
 * dangling inputs rejected), --input-shape for free dimensions, one shape rule
 * per supported ONNX op, and constant folding (onnx_fold.c) of every node
 * whose inputs are all known constants, so that Shape -> Gather -> Concat ->
 * Reshape chains disappear before the rewrites and the lowering run. */
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_infer.h"

lf_status lf__ox_toposort(lf__ox_graph *g)
{
    int32_t n = g->n_nodes;
    int32_t *indeg = calloc((size_t)(n ? n : 1), sizeof *indeg);
    int32_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    if (!indeg || !order) {
        free(indeg);
        free(order);
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    }
    for (int32_t v = 0; v < g->n_values; v++)
        g->values[v].n_uses = 0;
    lf_status st = LF_OK;
    for (int32_t i = 0; i < n && st == LF_OK; i++) {
        const lf__ox_node *nd = &g->nodes[i];
        if (nd->dead)
            continue;
        for (int32_t k = 0; k < nd->n_in; k++) {
            if (nd->in[k] < 0)
                continue;
            lf__ox_value *v = &g->values[nd->in[k]];
            v->n_uses++;
            if (v->producer >= 0)
                indeg[i]++;
            else if (!v->is_const && !v->is_input)
                st = lf__ox_fail(g, i, LF_EGRAPH, "input '%s' is not produced by any node, initializer "
                                 "or graph input", v->name);
        }
    }
    /* Consumers of each value as a CSR list, then Kahn's algorithm taking
     * ready nodes in file order. */
    int32_t nv = g->n_values;
    int32_t *start = calloc((size_t)nv + 1, sizeof *start), *users = NULL;
    if (!start)
        st = lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    for (int32_t i = 0; i < n && st == LF_OK; i++)
        for (int32_t k = 0; !g->nodes[i].dead && k < g->nodes[i].n_in; k++)
            if (g->nodes[i].in[k] >= 0)
                start[g->nodes[i].in[k] + 1]++;
    for (int32_t v = 0; st == LF_OK && v < nv; v++)
        start[v + 1] += start[v];
    if (st == LF_OK && !(users = malloc((size_t)(start[nv] ? start[nv] : 1) * sizeof *users)))
        st = lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    for (int32_t i = 0; i < n && st == LF_OK; i++) {
        for (int32_t k = 0; !g->nodes[i].dead && k < g->nodes[i].n_in; k++) {
            int32_t v = g->nodes[i].in[k];
            if (v >= 0)
                users[start[v] + --g->values[v].n_uses] = i;
        }
    }
    int32_t head = 0, tail = 0;
    for (int32_t i = 0; i < n && st == LF_OK; i++)
        if (!g->nodes[i].dead && indeg[i] == 0)
            order[tail++] = i;
    while (st == LF_OK && head < tail) {
        const lf__ox_node *nd = &g->nodes[order[head++]];
        for (int32_t k = 0; k < nd->n_out; k++) {
            int32_t v = nd->out[k];
            if (v < 0)
                continue;
            for (int32_t u = start[v]; u < start[v + 1]; u++)
                if (--indeg[users[u]] == 0)
                    order[tail++] = users[u];
        }
    }
    /* Restore the use counts that the fill consumed. */
    for (int32_t v = 0; start && v < nv; v++)
        g->values[v].n_uses = start[v + 1] - start[v];
    free(start);
    free(users);
    int32_t live = 0;
    for (int32_t i = 0; i < n; i++)
        live += !g->nodes[i].dead;
    if (st == LF_OK && tail != live) {
        int32_t bad = -1;
        for (int32_t i = 0; i < n && bad < 0; i++)
            if (!g->nodes[i].dead && indeg[i] > 0)
                bad = i;
        st = lf__ox_fail(g, bad, LF_EGRAPH, "the graph has a cycle through this node");
    }
    free(indeg);
    if (st != LF_OK) {
        free(order);
        return st;
    }
    free(g->order);
    g->order = order;
    g->n_order = tail;
    return LF_OK;
}

/* 1 when operand k of op needs a constant in the IR (a weight, a shape, pads,
 * bounds, axes, scales): graph inputs read only there can be bound to data. */
static int lf__const_position(const char *op, int32_t k)
{
    static const char *const from1[] = {"Conv", "ConvTranspose", "Gemm", "BatchNormalization",
                                        "LayerNormalization", "Reshape", "Slice", "Pad", "Resize",
                                        "Upsample", "Clip", "Split", "Squeeze", "Unsqueeze", "ReduceMean",
                                        "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
                                        "ReduceSumSquare", "ReduceL2", "Expand", "Gather", "PRelu",
                                        "Trilu", "RMSNormalization"};
    if (k == 0)
        return strcmp(op, "ConstantOfShape") == 0 || strcmp(op, "Where") == 0;
    if (strcmp(op, "Attention") == 0) /* the mask */
        return k == 3;
    if (strcmp(op, "RotaryEmbedding") == 0) /* cos, sin, position_ids */
        return 1;
    for (size_t q = 0; q < sizeof from1 / sizeof from1[0]; q++)
        if (strcmp(op, from1[q]) == 0)
            return 1;
    return 0;
}

/* Binds graph inputs to given values where every reader needs a constant. */
static lf_status lf__bind_inputs(lf__ox_graph *g)
{
    for (int32_t t = 0; t < g->opt.n_bind; t++) {
        const lf_onnx_tensor *bt = &g->opt.bind[t];
        int32_t v = lf__ox_find(g, bt->name);
        if (v < 0 || !g->values[v].is_input || g->values[v].is_const)
            continue;
        int only_const = 1, used = 0;
        for (int32_t i = 0; i < g->n_nodes && only_const; i++)
            for (int32_t k = 0; k < g->nodes[i].n_in; k++)
                if (g->nodes[i].in[k] == v) {
                    used = 1;
                    only_const &= lf__const_position(g->nodes[i].op, k);
                }
        int is_int = g->values[v].elem_type != LF__OX_FLOAT && g->values[v].elem_type != LF__OX_DOUBLE &&
                     g->values[v].elem_type != LF__OX_FLOAT16 && g->values[v].elem_type != 0;
        /* an integer input (int8 to uint64, bool) cannot be an activation (the
         * IR is float32): with values given, it is a constant wherever it is
         * read (an int64 mask into Trilu or Where folds) */
        int32_t et = g->values[v].elem_type;
        int integer = (et >= 2 && et <= 7) || et == 9 || et == 12 || et == 13;
        if (!used || (!only_const && !integer))
            continue;
        lf__ox_data d;
        lf_status st = lf__ox_data_alloc(g, &d, is_int, bt->rank, bt->dims);
        if (st != LF_OK)
            return st;
        for (int64_t e = 0; e < d.count; e++) {
            if (is_int)
                d.i[e] = (int64_t)bt->data[e];
            else
                d.f[e] = bt->data[e];
        }
        g->values[v].is_input = 0;
        lf__ox_set_const(g, v, &d);
    }
    return LF_OK;
}

/* Applies --input-shape and checks that every graph input is fully static. */
static lf_status lf__input_shapes(lf__ox_graph *g)
{
    int32_t n_inputs = 0, last = -1;
    for (int32_t v = 0; v < g->n_values; v++)
        if (g->values[v].is_input && !g->values[v].is_const)
            n_inputs++, last = v;
    for (int32_t s = 0; s < g->opt.n_input_shapes; s++) {
        const lf_onnx_input_shape *is = &g->opt.input_shapes[s];
        int32_t v = is->name[0] ? lf__ox_find(g, is->name) : (n_inputs == 1 ? last : -2);
        if (v == -2)
            return lf__ox_fail(g, -1, LF_EINVAL, "--input-shape without a name, but the model has %d inputs",
                               (int)n_inputs);
        if (v >= 0 && g->values[v].is_const)
            continue; /* bound to values (or an initializer also listed as input) */
        if (v < 0 || !g->values[v].is_input)
            return lf__ox_fail(g, -1, LF_ENOTFOUND, "--input-shape names '%s', which is not a graph input",
                               is->name);
        lf__ox_value *val = &g->values[v];
        if (val->rank >= 0 && val->rank != is->rank)
            return lf__ox_fail(g, -1, LF_EINVAL, "--input-shape gives '%s' rank %d; the model declares rank %d",
                               val->name, (int)is->rank, (int)val->rank);
        for (int32_t k = 0; k < is->rank && val->rank >= 0; k++)
            if (val->dims[k] > 0 && val->dims[k] != is->dims[k])
                return lf__ox_fail(g, -1, LF_EINVAL, "--input-shape gives '%s' dimension %d = %lld; the model "
                                   "fixes it to %lld", val->name, (int)k, (long long)is->dims[k],
                                   (long long)val->dims[k]);
        val->rank = is->rank;
        memcpy(val->dims, is->dims, (size_t)is->rank * sizeof *is->dims);
    }
    for (int32_t v = 0; v < g->n_values; v++) {
        lf__ox_value *val = &g->values[v];
        if (!val->is_input || val->is_const)
            continue;
        if (val->rank < 0)
            return lf__ox_fail(g, -1, LF_EGRAPH, "graph input '%s' has no declared shape; give "
                               "--input-shape %s=N,C,H,W", val->name, val->name);
        for (int32_t k = 0; k < val->rank; k++)
            if (val->dims[k] == 0)
                return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "graph input '%s' is empty (dimension %d is 0)",
                                   val->name, (int)k);
        for (int32_t k = 0; k < val->rank; k++)
            if (val->dims[k] < 0)
                return lf__ox_fail(g, -1, LF_EGRAPH, "graph input '%s' has free dimension %d ('%s'); give "
                                   "--input-shape %s=...", val->name, (int)k,
                                   val->dim_param[k] ? val->dim_param[k] : "?", val->name);
        if (lf__ox_count(val->dims, val->rank) < 0 ||
            lf__ox_count(val->dims, val->rank) > g->opt.max_elems)
            return lf__ox_fail(g, -1, LF_ERANGE, "graph input '%s' has an absurd element count", val->name);
    }
    return LF_OK;
}

lf_status lf__ox_infer(lf__ox_graph *g)
{
    lf_status st;
    if ((st = lf__bind_inputs(g)) != LF_OK || (st = lf__input_shapes(g)) != LF_OK ||
        (st = lf__ox_toposort(g)) != LF_OK)
        return st;
    g->const_graph = g->opt.const_outputs != 0;
    for (int32_t v = 0; v < g->n_values && g->const_graph; v++)
        g->const_graph = !(g->values[v].is_input && !g->values[v].is_const);
    for (int32_t k = 0; k < g->n_order; k++) {
        int32_t i = g->order[k];
        lf__ox_node *n = &g->nodes[i];
        for (int32_t q = 0; q < n->n_in; q++)
            if (n->in[q] >= 0 && g->values[n->in[q]].rank < 0)
                return lf__ox_fail(g, i, LF_EGRAPH, "input '%s' has no shape", g->values[n->in[q]].name);
        if ((st = lf__ox_shape_node(g, i)) != LF_OK)
            return st;
        for (int32_t q = 0; q < n->n_out; q++) {
            if (n->out[q] < 0)
                continue;
            const lf__ox_value *o = &g->values[n->out[q]];
            int64_t c = lf__ox_count(o->dims, o->rank);
            if (c < 0 || c > g->opt.max_elems)
                return lf__ox_fail(g, i, LF_ERANGE, "output '%s' would have %s elements (limit %lld)", o->name,
                                   c < 0 ? "an overflowing number of" : "too many", (long long)g->opt.max_elems);
        }
        if (!(g->opt.disable & (1u << LF_ONNX_FOLD_CONSTANTS)) && (st = lf__ox_fold_node(g, i)) != LF_OK)
            return st;
    }
    return LF_OK;
}
