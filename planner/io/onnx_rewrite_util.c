/* The helpers every ONNX rewrite pass shares (onnx_rewrite.c and the passes
 * in files of their own): node and value queries, edits of a node's inputs
 * and attributes, and new values, constants and nodes. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"
#include "planner/io/onnx_rewrite.h"

int lf__ox_rw_on(const lf__ox_graph *g, lf_onnx_rewrite k) { return !(g->opt.disable & (1u << k)); }

int lf__ox_rw_is(const lf__ox_node *n, const char *op) { return !n->dead && strcmp(n->op, op) == 0; }

/* The one live node reading value v, or -1 (several readers, none, or v is
 * a graph output). */
int32_t lf__ox_rw_sole_reader(const lf__ox_graph *g, int32_t v)
{
    if (v < 0 || g->values[v].is_output)
        return -1;
    int32_t found = -1;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const lf__ox_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int32_t k = 0; k < n->n_in; k++)
            if (n->in[k] == v) {
                if (found >= 0 && found != i)
                    return -1;
                found = i;
            }
    }
    return found;
}

int32_t lf__ox_rw_producer(const lf__ox_graph *g, int32_t v)
{
    if (v < 0)
        return -1;
    int32_t p = g->values[v].producer;
    return (p >= 0 && !g->nodes[p].dead) ? p : -1;
}

void lf__ox_rw_replace_uses(lf__ox_graph *g, int32_t from, int32_t to)
{
    for (int32_t i = 0; i < g->n_nodes; i++)
        for (int32_t k = 0; !g->nodes[i].dead && k < g->nodes[i].n_in; k++)
            if (g->nodes[i].in[k] == from)
                g->nodes[i].in[k] = to;
}

/* Makes node `into` produce value v (taking over the output of a node that is removed). */
void lf__ox_rw_take_output(lf__ox_graph *g, int32_t into, int32_t v)
{
    g->nodes[into].out[0] = v;
    g->values[v].producer = into;
}

lf_status lf__ox_rw_set_inputs(lf__ox_graph *g, lf__ox_node *n, const int32_t *in, int32_t cnt)
{
    int32_t *ni = malloc((size_t)(cnt ? cnt : 1) * sizeof *ni);
    if (!ni)
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    memcpy(ni, in, (size_t)cnt * sizeof *in);
    free(n->in);
    n->in = ni;
    n->n_in = cnt;
    return LF_OK;
}

lf_status lf__ox_rw_set_ints(lf__ox_graph *g, lf__ox_node *n, const char *name, const int64_t *v, int32_t cnt)
{
    lf__ox_attr *a = (lf__ox_attr *)lf__ox_attr_get(n, name);
    if (!a) {
        lf__ox_attr *na = lf_arena_alloc(&g->arena, (size_t)(n->n_attr + 1) * sizeof *na);
        if (!na)
            return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
        if (n->n_attr)
            memcpy(na, n->attr, (size_t)n->n_attr * sizeof *na);
        a = &na[n->n_attr];
        a->name = name;
        a->tensor = -1;
        n->attr = na;
        n->n_attr++;
    }
    a->type = cnt < 0 ? 2 : 7;
    if (cnt < 0) {
        a->i = v[0];
        return LF_OK;
    }
    a->ints = lf_arena_alloc(&g->arena, (size_t)(cnt ? cnt : 1) * sizeof *a->ints);
    if (!a->ints)
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    memcpy(a->ints, v, (size_t)cnt * sizeof *v);
    a->n = cnt;
    return LF_OK;
}

/* A constant scalar input (any numeric type) or NAN. */
double lf__ox_rw_scalar(const lf__ox_graph *g, const lf__ox_node *n, int32_t k)
{
    const lf__ox_data *d = lf__ox_const_of(g, n, k);
    if (!d || d->count != 1)
        return NAN;
    return d->f ? d->f[0] : (double)d->i[0];
}

int32_t lf__ox_rw_value(lf__ox_graph *g, const char *base, int32_t elem_type, int32_t rank, const int64_t *dims)
{
    int32_t id = lf__ox_new_value(g, base);
    if (id < 0)
        return id;
    g->values[id].rank = rank;
    memcpy(g->values[id].dims, dims, (size_t)rank * sizeof *dims);
    g->values[id].elem_type = elem_type;
    return id;
}

int32_t lf__ox_rw_const(lf__ox_graph *g, const char *base, lf__ox_data *d, int32_t rank, const int64_t *dims)
{
    int32_t id = lf__ox_rw_value(g, base, LF__OX_FLOAT, rank, dims);
    if (id < 0) {
        if (d)
            lf__ox_data_free(d);
        return id;
    }
    g->values[id].is_const = 1;
    lf_status st = d ? lf__ox_set_const(g, id, d) : LF_OK;
    return st != LF_OK ? (int32_t)st : id;
}

int32_t lf__ox_rw_node(lf__ox_graph *g, const char *name, const char *op, const int32_t *in, int32_t n_in,
                       int32_t rank, const int64_t *dims)
{
    int32_t y = lf__ox_rw_value(g, name, LF__OX_FLOAT, rank, dims);
    if (y < 0)
        return y;
    int32_t id = lf__ox_add_node(g, name, op, in, n_in, &y, 1);
    if (id < 0)
        return id;
    g->values[y].producer = id;
    return y;
}
