/* ONNX ops that the IR expresses with ops it has (always on: without them
 * the model does not import):
 *
 * - Trilu(x, k): x * M with M the constant 0/1 mask of the last two axes
 *   (upper: keep j - i >= k; lower: j - i <= k). Causal masks built with
 *   torch.triu / tril on constants fold to constants after this.
 * - Where(c, a, b) with a constant condition c (a causal or padding mask):
 *   a * C + b * (1 - C), with C = c as 0/1; a constant branch is folded into
 *   one constant c ? 0 : b (so a mask value of -inf or float32's lowest
 *   stays exact). An infinite value in an activation branch where the mask
 *   removes it gives NaN (inf * 0), unlike ONNX; attention scores are
 *   finite. A Where whose condition is computed is refused at lowering.
 * - Einsum: onnx_rewrite_einsum.c.
 * - LayerNormalization whose Mean or InvStdDev output is read (ONNX's
 *   training outputs; its conformance tests read them): the IR op gives Y,
 *   ReduceMean, Sub, Mul, ReduceMean, Add, Sqrt and Reciprocal give the
 *   other two. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"
#include "planner/io/onnx_rewrite.h"

static lf_status lf__trilu(lf__ox_graph *g, int32_t i)
{
    lf__ox_node *n = &g->nodes[i];
    const lf__ox_value *x = &g->values[n->in[0]];
    if (x->rank < 2)
        return lf__ox_fail(g, i, LF_EGRAPH, "input of rank %d (at least 2)", (int)x->rank);
    double kk = n->n_in > 1 && n->in[1] >= 0 ? lf__ox_rw_scalar(g, n, 1) : 0.0;
    if (isnan(kk))
        return lf__ox_fail(g, i, LF_EUNSUPPORTED, "k must be a constant scalar");
    int64_t k = lf__ox_f2i(kk), upper = lf__ox_attr_int(n, "upper", 1);
    int64_t dims[2] = {x->dims[x->rank - 2], x->dims[x->rank - 1]};
    lf__ox_data d;
    lf_status st = lf__ox_data_alloc(g, &d, 0, 2, dims);
    if (st != LF_OK)
        return st;
    for (int64_t r = 0; r < dims[0]; r++)
        for (int64_t c = 0; c < dims[1]; c++)
            d.f[r * dims[1] + c] = (upper ? c - r >= k : c - r <= k) ? 1.0f : 0.0f;
    char name[300];
    snprintf(name, sizeof name, "%.240s.mask", n->name);
    int32_t m = lf__ox_rw_const(g, name, &d, 2, dims);
    if (m < 0)
        return (lf_status)m;
    int32_t in[2] = {g->nodes[i].in[0], m};
    if ((st = lf__ox_rw_set_inputs(g, &g->nodes[i], in, 2)) != LF_OK)
        return st;
    g->nodes[i].op = "Mul";
    g->nodes[i].n_attr = 0;
    lf__ox_note(g, LF_ONNX_FOLD_CONSTANTS, i, "Trilu (%s, k = %lld) is a product with a constant mask",
                upper ? "upper" : "lower", (long long)k);
    return LF_OK;
}

/* Value v's element at output index e of an output of rank r and dims od (numpy broadcast). */
static int64_t lf__bidx(const lf__ox_value *v, int64_t e, const int64_t *od, int32_t r)
{
    int64_t at = 0, stride = 1;
    for (int32_t q = r - 1; q >= 0; q--) {
        int64_t c = e % od[q];
        e /= od[q];
        int32_t vq = q - (r - v->rank);
        if (vq >= 0) {
            if (v->dims[vq] != 1)
                at += c * stride;
            stride *= v->dims[vq];
        }
    }
    return at;
}

static double lf__elem(const lf__ox_data *d, int64_t at) { return d->f ? d->f[at] : (double)d->i[at]; }

/* A constant of the broadcast shape of c and b: f(c[e], b[e]). */
static int32_t lf__mask_const(lf__ox_graph *g, int32_t i, const char *suffix, int32_t cv, int32_t bv, int keep_b)
{
    const lf__ox_value *c = &g->values[cv], *b = bv >= 0 ? &g->values[bv] : NULL;
    int64_t od[LF__OX_MAX_RANK];
    int32_t r = c->rank;
    memcpy(od, c->dims, sizeof od);
    if (b && !lf__ox_broadcast(c->dims, c->rank, b->dims, b->rank, od, &r))
        return lf__ox_fail(g, i, LF_EGRAPH, "shapes do not broadcast");
    lf__ox_data d;
    lf_status st = lf__ox_data_alloc(g, &d, 0, r, od);
    if (st != LF_OK)
        return st;
    for (int64_t e = 0; e < d.count; e++) {
        int on = lf__elem(&c->data, lf__bidx(c, e, od, r)) != 0;
        /* keep_b 3: c ? b : 0; 2: c ? 0 : b; 1: c as 0/1; -1: 1 - c */
        double bv_ = keep_b > 1 ? lf__elem(&b->data, lf__bidx(b, e, od, r)) : 0.0;
        d.f[e] = keep_b == 3 ? (on ? (float)bv_ : 0.0f) : keep_b == 2 ? (on ? 0.0f : (float)bv_)
                 : keep_b > 0 ? (float)on : (float)!on;
    }
    char name[300];
    snprintf(name, sizeof name, "%.240s.%s", g->nodes[i].name, suffix);
    return lf__ox_rw_const(g, name, &d, r, od);
}

static lf_status lf__where(lf__ox_graph *g, int32_t i)
{
    lf__ox_node *n = &g->nodes[i];
    int32_t c = n->in[0], a = n->in[1], b = n->in[2], y = n->out[0];
    const lf__ox_value *cv = &g->values[c];
    if (!cv->is_const || (!cv->data.f && !cv->data.i))
        return LF_OK; /* refused at lowering */
    int ca = g->values[a].is_const && (g->values[a].data.f || g->values[a].data.i);
    int cb = g->values[b].is_const && (g->values[b].data.f || g->values[b].data.i);
    if (ca && cb)
        return LF_OK; /* folded before */
    int32_t yr = g->values[y].rank;
    int64_t yd[LF__OX_MAX_RANK];
    memcpy(yd, g->values[y].dims, sizeof yd);
    char name[300];
    int32_t ma = -1, mb = -1, t;
    /* the activation branch(es) times their mask */
    if (!ca) {
        if ((t = lf__mask_const(g, i, "mask", c, -1, 1)) < 0)
            return (lf_status)t;
        snprintf(name, sizeof name, "%.240s/keep", g->nodes[i].name);
        int32_t in[2] = {a, t};
        if ((ma = lf__ox_rw_node(g, name, "Mul", in, 2, yr, yd)) < 0)
            return (lf_status)ma;
    } else if ((ma = lf__mask_const(g, i, "then", c, a, 3)) < 0) { /* c ? a : 0 */
        return (lf_status)ma;
    }
    if (!cb) {
        if ((t = lf__mask_const(g, i, "unmask", c, -1, -1)) < 0)
            return (lf_status)t;
        snprintf(name, sizeof name, "%.240s/else", g->nodes[i].name);
        int32_t in[2] = {b, t};
        if ((mb = lf__ox_rw_node(g, name, "Mul", in, 2, yr, yd)) < 0)
            return (lf_status)mb;
    } else if ((mb = lf__mask_const(g, i, "else", c, b, 2)) < 0) {
        return (lf_status)mb;
    }
    int32_t in[2] = {ma, mb};
    lf_status st = lf__ox_rw_set_inputs(g, &g->nodes[i], in, 2);
    if (st != LF_OK)
        return st;
    g->nodes[i].op = "Add";
    g->nodes[i].n_attr = 0;
    lf__ox_note(g, LF_ONNX_FOLD_CONSTANTS, i, "Where with a constant condition is a masked sum");
    return LF_OK;
}

static lf_status lf__layernorm_stats(lf__ox_graph *g, int32_t i)
{
    lf__ox_node *n = &g->nodes[i];
    int32_t mean = n->n_out > 1 ? n->out[1] : -1, inv = n->n_out > 2 ? n->out[2] : -1;
    int used_m = mean >= 0 && (g->values[mean].is_output || g->values[mean].n_uses);
    int used_i = inv >= 0 && (g->values[inv].is_output || g->values[inv].n_uses);
    if (!used_m && !used_i)
        return LF_OK;
    int32_t x = n->in[0], r = g->values[x].rank;
    int32_t axis = lf__ox_axis(lf__ox_attr_int(n, "axis", -1), r);
    if (axis < 0)
        return lf__ox_fail(g, i, LF_EGRAPH, "axis out of range");
    float eps = lf__ox_attr_float(n, "epsilon", 1e-5f);
    int64_t xd[LF__OX_MAX_RANK], sd[LF__OX_MAX_RANK], axes[LF__OX_MAX_RANK];
    memcpy(xd, g->values[x].dims, sizeof xd);
    memcpy(sd, xd, sizeof sd);
    for (int32_t q = axis; q < r; q++) {
        sd[q] = 1;
        axes[q - axis] = q;
    }
    char name[300];
    const char *base = n->name;
    lf_status st;
    /* mean, x - mean, (x - mean)^2, variance, + eps, sqrt, 1 / */
    snprintf(name, sizeof name, "%.240s/mean", base);
    int32_t m = lf__ox_rw_node(g, name, "ReduceMean", &x, 1, r, sd);
    if (m < 0 || (st = lf__ox_rw_set_ints(g, &g->nodes[g->values[m].producer], "axes", axes, r - axis)) != LF_OK)
        return m < 0 ? (lf_status)m : st;
    snprintf(name, sizeof name, "%.240s/centred", base);
    int32_t in[2] = {x, m};
    int32_t d = lf__ox_rw_node(g, name, "Sub", in, 2, r, xd);
    snprintf(name, sizeof name, "%.240s/square", base);
    in[0] = in[1] = d;
    int32_t sq = d < 0 ? d : lf__ox_rw_node(g, name, "Mul", in, 2, r, xd);
    snprintf(name, sizeof name, "%.240s/var", base);
    int32_t v = sq < 0 ? sq : lf__ox_rw_node(g, name, "ReduceMean", &sq, 1, r, sd);
    if (v < 0 || (st = lf__ox_rw_set_ints(g, &g->nodes[g->values[v].producer], "axes", axes, r - axis)) != LF_OK)
        return v < 0 ? (lf_status)v : st;
    lf__ox_data ed;
    int64_t one = 1;
    if ((st = lf__ox_data_alloc(g, &ed, 0, 1, &one)) != LF_OK)
        return st;
    ed.f[0] = eps;
    snprintf(name, sizeof name, "%.240s.epsilon", base);
    int32_t ec = lf__ox_rw_const(g, name, &ed, 1, &one);
    in[0] = v;
    in[1] = ec;
    snprintf(name, sizeof name, "%.240s/var_eps", base);
    int32_t ve = ec < 0 ? ec : lf__ox_rw_node(g, name, "Add", in, 2, r, sd);
    snprintf(name, sizeof name, "%.240s/std", base);
    int32_t sdv = ve < 0 ? ve : lf__ox_rw_node(g, name, "Sqrt", &ve, 1, r, sd);
    if (sdv < 0)
        return (lf_status)sdv;
    /* the file's outputs: Mean from the ReduceMean, InvStdDev from a Reciprocal */
    n = &g->nodes[i];
    if (used_m) {
        int32_t pm = g->values[m].producer;
        g->nodes[pm].out[0] = mean;
        g->values[mean].producer = pm;
        g->nodes[g->values[d].producer].in[1] = mean;
    }
    if (used_i) {
        snprintf(name, sizeof name, "%.240s/inv_std", base);
        int32_t id = lf__ox_add_node(g, name, "Reciprocal", &sdv, 1, &inv, 1);
        if (id < 0)
            return (lf_status)id;
        g->values[inv].producer = id;
    }
    n = &g->nodes[i];
    n->n_out = 1;
    lf__ox_note(g, LF_ONNX_FOLD_CONSTANTS, i, "Mean and InvStdDev outputs computed by ReduceMean, Sub, Mul, Add, "
                "Sqrt and Reciprocal");
    return LF_OK;
}

lf_status lf__ox_rewrite_ops(lf__ox_graph *g)
{
    int32_t n0 = g->n_nodes;
    for (int32_t i = 0; i < n0; i++) {
        lf__ox_node *n = &g->nodes[i];
        lf_status st = LF_OK;
        if (n->dead)
            continue;
        if (strcmp(n->op, "Trilu") == 0)
            st = lf__trilu(g, i);
        else if (strcmp(n->op, "Where") == 0 && n->n_in == 3)
            st = lf__where(g, i);
        else if (strcmp(n->op, "Einsum") == 0)
            st = lf__ox_rewrite_einsum(g, i);
        else if (strcmp(n->op, "LayerNormalization") == 0)
            st = lf__layernorm_stats(g, i);
        else if (strcmp(n->op, "Attention") == 0)
            st = lf__ox_rewrite_attention(g, i);
        else if (strcmp(n->op, "RotaryEmbedding") == 0)
            st = lf__ox_rewrite_rotary(g, i);
        if (st != LF_OK)
            return st;
    }
    return LF_OK;
}
