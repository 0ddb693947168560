/* ONNX reductions and element-wise ops the IR writes with ops it has
 * (always on, reported under fold-constants):
 *
 * - ReduceL1(x) = ReduceSum(Abs(x)); ReduceLogSum(x) = Log(ReduceSum(x));
 * - ReduceLogSumExp(x) = Log(ReduceSum(Exp(x - m))) + m with m = ReduceMax(x)
 *   over the same axes (kept), the form that does not overflow where exp(x)
 *   would; m is viewed to the output's shape when keepdims is 0;
 * - Mean(x1, ..., xn) = Sum(x1, ..., xn) * (1/n);
 * - Celu(x, alpha) = alpha * Elu(x / alpha) (ONNX's definition:
 *   max(0, x) + min(0, alpha * (exp(x / alpha) - 1))).
 *
 * The reduction keeps the node (its axes, keepdims and the axes input of
 * opset 18), so op ids follow the file; ops after it take over its output. */
#include <stdio.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"
#include "planner/io/onnx_rewrite.h"

static int32_t lf__scalar(lf__ox_graph *g, int32_t i, const char *suffix, float value)
{
    lf__ox_data d;
    int64_t one = 1;
    lf_status st = lf__ox_data_alloc(g, &d, 0, 1, &one);
    if (st != LF_OK)
        return st;
    d.f[0] = value;
    char name[300];
    snprintf(name, sizeof name, "%.240s.%.40s", g->nodes[i].name, suffix);
    return lf__ox_rw_const(g, name, &d, 1, &one);
}

static int32_t lf__unary(lf__ox_graph *g, int32_t i, const char *suffix, const char *op, int32_t x)
{
    char name[300];
    int64_t d[LF__OX_MAX_RANK];
    memcpy(d, g->values[x].dims, sizeof d);
    snprintf(name, sizeof name, "%.240s/%.40s", g->nodes[i].name, suffix);
    return lf__ox_rw_node(g, name, op, &x, 1, g->values[x].rank, d);
}

/* Node i's output moves to a new value (the reduction's result); an op
 * `op`(that value, b) then produces the file's output. b < 0: unary. */
static lf_status lf__after(lf__ox_graph *g, int32_t i, const char *op, int32_t b)
{
    int32_t y = g->nodes[i].out[0];
    int64_t d[LF__OX_MAX_RANK];
    memcpy(d, g->values[y].dims, sizeof d);
    char name[300];
    snprintf(name, sizeof name, "%.240s/reduced", g->nodes[i].name);
    int32_t r = lf__ox_rw_value(g, name, LF__OX_FLOAT, g->values[y].rank, d);
    if (r < 0)
        return (lf_status)r;
    g->nodes[i].out[0] = r;
    g->values[r].producer = i;
    int32_t in[2] = {r, b};
    snprintf(name, sizeof name, "%.240s/%s", g->nodes[i].name, op);
    int32_t id = lf__ox_add_node(g, name, op, in, b < 0 ? 1 : 2, &y, 1);
    if (id < 0)
        return (lf_status)id;
    g->values[y].producer = id;
    return LF_OK;
}

/* m = ReduceMax(x) over node i's axes with keepdims 1: a copy of node i. */
static int32_t lf__max_kept(lf__ox_graph *g, int32_t i)
{
    const lf__ox_node *n = &g->nodes[i];
    int32_t x = n->in[0], r = g->values[x].rank, cnt = 0;
    int64_t axes[LF__OX_MAX_RANK], md[LF__OX_MAX_RANK], one = 1;
    if (lf__ox_int_list(g, n, "axes", 1, axes, LF__OX_MAX_RANK, &cnt) < 0)
        return lf__ox_fail(g, i, LF_EUNSUPPORTED, "axes are not constant");
    memcpy(md, g->values[x].dims, sizeof md);
    for (int32_t k = 0; k < r; k++)
        if (cnt == 0)
            md[k] = 1;
    for (int32_t k = 0; k < cnt; k++) {
        int32_t a = lf__ox_axis(axes[k], r);
        if (a < 0)
            return lf__ox_fail(g, i, LF_EGRAPH, "axis %lld out of range", (long long)axes[k]);
        md[a] = 1;
    }
    lf__ox_attr *attr = lf_arena_alloc(&g->arena, (size_t)(n->n_attr + 1) * sizeof *attr);
    if (!attr)
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    if (n->n_attr)
        memcpy(attr, n->attr, (size_t)n->n_attr * sizeof *attr);
    int32_t n_attr = n->n_attr, n_in = n->n_in, in[2] = {x, n->n_in > 1 ? n->in[1] : -1};
    char name[300];
    snprintf(name, sizeof name, "%.240s/max", n->name);
    int32_t m = lf__ox_rw_node(g, name, "ReduceMax", in, n_in > 1 ? 2 : 1, r, md);
    if (m < 0)
        return m;
    lf__ox_node *mn = &g->nodes[g->values[m].producer];
    mn->attr = attr;
    mn->n_attr = n_attr;
    lf_status st = lf__ox_rw_set_ints(g, mn, "keepdims", &one, -1);
    return st != LF_OK ? (int32_t)st : m;
}

static lf_status lf__log_sum_exp(lf__ox_graph *g, int32_t i)
{
    int32_t x = g->nodes[i].in[0], y = g->nodes[i].out[0];
    int32_t m = lf__max_kept(g, i);
    if (m < 0)
        return (lf_status)m;
    char name[300];
    int64_t xd[LF__OX_MAX_RANK], yd[LF__OX_MAX_RANK];
    memcpy(xd, g->values[x].dims, sizeof xd);
    memcpy(yd, g->values[y].dims, sizeof yd);
    int32_t in[2] = {x, m};
    snprintf(name, sizeof name, "%.240s/shifted", g->nodes[i].name);
    int32_t s = lf__ox_rw_node(g, name, "Sub", in, 2, g->values[x].rank, xd);
    int32_t e = s < 0 ? s : lf__unary(g, i, "exp", "Exp", s);
    if (e < 0)
        return (lf_status)e;
    int32_t mv = m; /* m at the output's shape */
    if (g->values[m].rank != g->values[y].rank) {
        snprintf(name, sizeof name, "%.240s/max_view", g->nodes[i].name);
        if ((mv = lf__ox_rw_node(g, name, "Reshape", &m, 1, g->values[y].rank, yd)) < 0)
            return (lf_status)mv;
    }
    g->nodes[i].in[0] = e;
    g->nodes[i].op = "ReduceSum";
    lf_status st = lf__after(g, i, "Log", -1);
    if (st != LF_OK)
        return st;
    /* Log -> a new value, then + m gives y */
    int32_t log_node = g->values[y].producer;
    return lf__after(g, log_node, "Add", mv);
}

static lf_status lf__reduce(lf__ox_graph *g, int32_t i)
{
    lf__ox_node *n = &g->nodes[i];
    const char *op = n->op;
    lf_status st = LF_OK;
    if (strcmp(op, "ReduceL1") == 0) {
        int32_t a = lf__unary(g, i, "abs", "Abs", g->nodes[i].in[0]);
        if (a < 0)
            return (lf_status)a;
        g->nodes[i].in[0] = a;
        g->nodes[i].op = "ReduceSum";
        lf__ox_note(g, LF_ONNX_FOLD_CONSTANTS, i, "ReduceL1 is ReduceSum of Abs");
    } else if (strcmp(op, "ReduceLogSum") == 0) {
        g->nodes[i].op = "ReduceSum";
        st = lf__after(g, i, "Log", -1);
        lf__ox_note(g, LF_ONNX_FOLD_CONSTANTS, i, "ReduceLogSum is Log of ReduceSum");
    } else {
        st = lf__log_sum_exp(g, i);
        lf__ox_note(g, LF_ONNX_FOLD_CONSTANTS, i, "ReduceLogSumExp is ReduceMax, Sub, Exp, ReduceSum, Log and Add");
    }
    return st;
}

static lf_status lf__mean(lf__ox_graph *g, int32_t i)
{
    int32_t cnt = g->nodes[i].n_in;
    int32_t c = lf__scalar(g, i, "inverse_count", 1.0f / (float)cnt);
    if (c < 0)
        return (lf_status)c;
    g->nodes[i].op = "Sum";
    lf_status st = lf__after(g, i, "Mul", c);
    lf__ox_note(g, LF_ONNX_FOLD_CONSTANTS, i, "Mean of %d inputs is Sum times 1/%d", (int)cnt, (int)cnt);
    return st;
}

static lf_status lf__celu(lf__ox_graph *g, int32_t i)
{
    float alpha = lf__ox_attr_float(&g->nodes[i], "alpha", 1.0f);
    if (!(alpha != 0.0f))
        return lf__ox_fail(g, i, LF_EGRAPH, "alpha is 0");
    int32_t c = lf__scalar(g, i, "alpha", alpha);
    int32_t in[2] = {g->nodes[i].in[0], c};
    char name[300];
    int64_t d[LF__OX_MAX_RANK];
    memcpy(d, g->values[in[0]].dims, sizeof d);
    snprintf(name, sizeof name, "%.240s/scaled", g->nodes[i].name);
    int32_t s = c < 0 ? c : lf__ox_rw_node(g, name, "Div", in, 2, g->values[in[0]].rank, d);
    if (s < 0)
        return (lf_status)s;
    lf_status st = lf__ox_rw_set_inputs(g, &g->nodes[i], &s, 1);
    if (st != LF_OK)
        return st;
    g->nodes[i].op = "Elu";
    g->nodes[i].n_attr = 0; /* Elu's alpha 1 */
    st = lf__after(g, i, "Mul", c);
    lf__ox_note(g, LF_ONNX_FOLD_CONSTANTS, i, "Celu (alpha %g) is alpha * Elu(x / alpha)", alpha);
    return st;
}

lf_status lf__ox_rewrite_reduce(lf__ox_graph *g)
{
    int32_t n0 = g->n_nodes;
    for (int32_t i = 0; i < n0; i++) {
        const lf__ox_node *n = &g->nodes[i];
        lf_status st = LF_OK;
        if (n->dead)
            continue;
        if (strcmp(n->op, "ReduceL1") == 0 || strcmp(n->op, "ReduceLogSum") == 0 ||
            strcmp(n->op, "ReduceLogSumExp") == 0)
            st = lf__reduce(g, i);
        else if (strcmp(n->op, "Mean") == 0)
            st = lf__mean(g, i);
        else if (strcmp(n->op, "Celu") == 0)
            st = lf__celu(g, i);
        if (st != LF_OK)
            return st;
    }
    return LF_OK;
}
