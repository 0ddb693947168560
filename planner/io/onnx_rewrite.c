/* The normalisations of DESIGN §10 on the importer's graph, each switchable
 * (lf_onnx_options.disable) and reported with the node and the reason:
 * Identity/Dropout removed, BatchNormalization folded into the preceding
 * Conv/Gemm (with the model's epsilon), Clip bounds resolved (Relu, ReLU6),
 * HardSigmoid*x and x*Clip(x+3,0,6)/6 -> HardSwish, Sigmoid*x -> SiLU, zero
 * Pad folded into the following Conv/AveragePool, Split -> Slices, nested
 * Concats flattened, Reshape(x, [N, -1]) -> Flatten, ShuffleNet's channel
 * shuffle (Reshape to 5-D, Transpose, Reshape back) -> ChannelShuffle, a
 * Gather of one constant index from an activation -> Slice (+ Squeeze). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"
#include "planner/util/checked.h"
#include "planner/io/onnx_rewrite.h"

static void lf__drop_identity(lf__ox_graph *g)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        lf__ox_node *n = &g->nodes[i];
        if ((!lf__ox_rw_is(n, "Identity") && !lf__ox_rw_is(n, "Dropout")) || n->ir_keep)
            continue;
        if (n->n_out > 1 && n->out[1] >= 0 && lf__ox_rw_sole_reader(g, n->out[1]) >= 0)
            continue; /* the dropout mask is used */
        int32_t x = n->in[0], y = n->out[0];
        if (g->values[y].is_output) {
            int32_t p = lf__ox_rw_producer(g, x);
            if (p < 0 || lf__ox_rw_sole_reader(g, x) != i)
                continue;
            lf__ox_rw_take_output(g, p, y); /* keep the graph output's name */
            g->values[x].producer = -1;
        } else {
            lf__ox_rw_replace_uses(g, y, x);
        }
        n->dead = 1;
        lf__ox_note(g, LF_ONNX_DROP_IDENTITY, i, "%s is the identity at inference", n->op);
    }
}

/* A constant that no live node reads any more (a weight BatchNormalization
 * was folded into) keeps its shape but gives its values back, so that a
 * model's weights are not held twice while it is imported. */
static void lf__drop_unread(lf__ox_graph *g, int32_t v)
{
    if (v < 0 || !g->values[v].is_const || g->values[v].is_output || !g->values[v].data.f)
        return;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const lf__ox_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int32_t k = 0; k < n->n_in; k++)
            if (n->in[k] == v)
                return;
        for (int32_t k = 0; k < n->n_attr; k++)
            if (n->attr[k].tensor == v)
                return;
    }
    g->const_bytes -= g->values[v].data.count * 4;
    lf__ox_data_free(&g->values[v].data);
}

static lf_status lf__fold_bn(lf__ox_graph *g)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        lf__ox_node *bn = &g->nodes[i];
        if (!lf__ox_rw_is(bn, "BatchNormalization") || (bn->n_out > 1 && bn->out[1] >= 0 &&
                                                  lf__ox_rw_sole_reader(g, bn->out[1]) >= 0))
            continue;
        int32_t p = lf__ox_rw_producer(g, bn->in[0]);
        if (p < 0 || lf__ox_rw_sole_reader(g, bn->in[0]) != i)
            continue;
        lf__ox_node *c = &g->nodes[p];
        int is_gemm = lf__ox_rw_is(c, "Gemm");
        if (!lf__ox_rw_is(c, "Conv") && !is_gemm)
            continue;
        const lf__ox_data *gamma = lf__ox_const_of(g, bn, 1), *beta = lf__ox_const_of(g, bn, 2),
                          *mean = lf__ox_const_of(g, bn, 3), *var = lf__ox_const_of(g, bn, 4),
                          *w = lf__ox_const_of(g, c, 1), *b = lf__ox_const_of(g, c, 2);
        int transb = is_gemm && lf__ox_attr_int(c, "transB", 0);
        int64_t oc = is_gemm ? (w ? w->dims[transb ? 0 : 1] : 0) : (w ? w->dims[0] : 0);
        if (!gamma || !beta || !mean || !var || !w || !w->f || (c->n_in > 2 && c->in[2] >= 0 && (!b || !b->f)) ||
            gamma->count != oc || beta->count != oc || mean->count != oc || var->count != oc ||
            (b && b->count != oc) || (is_gemm && (lf__ox_attr_int(c, "transA", 0) ||
                                                  lf__ox_attr_float(c, "alpha", 1) != 1.0f ||
                                                  lf__ox_attr_float(c, "beta", 1) != 1.0f)))
            continue;
        double eps = lf__ox_attr_float(bn, "epsilon", 1e-5f);
        /* New weight and bias values (the originals may be shared); a weight
         * only this node reads is scaled where it lies instead. */
        lf__ox_data nw, nb;
        lf_status st = LF_OK;
        int32_t wv = c->in[1];
        int in_place = lf__ox_rw_sole_reader(g, wv) == p && !g->values[wv].is_output;
        for (int32_t k = 0; in_place && k < c->n_in; k++)
            in_place = k == 1 || c->in[k] != wv;
        if (in_place) {
            nw = g->values[wv].data;
            memset(&g->values[wv].data, 0, sizeof g->values[wv].data);
            g->values[wv].data.rank = nw.rank;
            memcpy(g->values[wv].data.dims, nw.dims, sizeof nw.dims);
            g->values[wv].data.count = nw.count;
            w = &nw;
        } else if ((st = lf__ox_data_alloc(g, &nw, 0, w->rank, w->dims)) != LF_OK) {
            return st;
        }
        int64_t one[1] = {oc};
        if ((st = lf__ox_data_alloc(g, &nb, 0, 1, one)) != LF_OK) {
            lf__ox_data_free(&nw);
            return st;
        }
        int64_t per = w->count / (oc ? oc : 1);
        for (int64_t o = 0; o < oc; o++) {
            double s = (double)(gamma->f ? gamma->f[o] : 0) / sqrt((double)(var->f ? var->f[o] : 0) + eps);
            double bias = b ? b->f[o] : 0.0;
            nb.f[o] = (float)((bias - (mean->f ? mean->f[o] : 0)) * s + (beta->f ? beta->f[o] : 0));
            if (!is_gemm || transb)
                for (int64_t e = 0; e < per; e++)
                    nw.f[o * per + e] = (float)(w->f[o * per + e] * s);
            else
                for (int64_t e = 0; e < per; e++)
                    nw.f[e * oc + o] = (float)(w->f[e * oc + o] * s);
        }
        char base[300];
        snprintf(base, sizeof base, "%s.weight_bn", c->name);
        int32_t vw = lf__ox_new_value(g, base);
        snprintf(base, sizeof base, "%s.bias_bn", c->name);
        int32_t vb = vw >= 0 ? lf__ox_new_value(g, base) : vw;
        if (vb < 0) {
            lf__ox_data_free(&nw);
            lf__ox_data_free(&nb);
            return (lf_status)vb;
        }
        lf__ox_set_const(g, vw, &nw);
        lf__ox_set_const(g, vb, &nb);
        int32_t in[3] = {c->in[0], vw, vb}, old_w = c->in[1], old_b = c->n_in > 2 ? c->in[2] : -1;
        if ((st = lf__ox_rw_set_inputs(g, c, in, 3)) != LF_OK)
            return st;
        lf__drop_unread(g, old_w);
        lf__drop_unread(g, old_b);
        g->values[c->out[0]].producer = -1;
        lf__ox_rw_take_output(g, p, bn->out[0]);
        c->folded_bn = 1;
        bn->dead = 1;
        lf__ox_note(g, LF_ONNX_FOLD_BN, i, "folded into %s (epsilon %g)", c->name, eps);
    }
    return LF_OK;
}

static lf_status lf__clip(lf__ox_graph *g)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        lf__ox_node *n = &g->nodes[i];
        if (!lf__ox_rw_is(n, "Clip"))
            continue;
        double lo = -FLT_MAX, hi = FLT_MAX;
        if (g->opset < 11) {
            lo = lf__ox_attr_float(n, "min", -FLT_MAX);
            hi = lf__ox_attr_float(n, "max", FLT_MAX);
        } else {
            if (n->n_in > 1 && n->in[1] >= 0)
                lo = lf__ox_rw_scalar(g, n, 1);
            if (n->n_in > 2 && n->in[2] >= 0)
                hi = lf__ox_rw_scalar(g, n, 2);
        }
        if (isnan(lo) || isnan(hi))
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "Clip bounds must be constant scalars");
        n->clip_known = 1;
        n->clip_min = (float)lo;
        n->clip_max = (float)hi;
        n->n_in = 1;
        if (!lf__ox_rw_on(g, LF_ONNX_CLIP))
            continue;
        if (lo == 0 && hi >= FLT_MAX) {
            n->op = "Relu";
            lf__ox_note(g, LF_ONNX_CLIP, i, "Clip(0, inf) is Relu");
        } else {
            lf__ox_note(g, LF_ONNX_CLIP, i, "constant bounds [%g, %g]%s", lo, hi,
                        lo == 0 && hi == 6 ? " (ReLU6)" : "");
        }
    }
    return LF_OK;
}

/* x * f(x): node m is a Mul of value x and the sole output of node f whose
 * input is x. Returns f's index or -1. */
static int32_t lf__times_self(const lf__ox_graph *g, int32_t m, const char *f_op)
{
    const lf__ox_node *n = &g->nodes[m];
    if (!lf__ox_rw_is(n, "Mul"))
        return -1;
    for (int32_t k = 0; k < 2; k++) {
        int32_t f = lf__ox_rw_producer(g, n->in[k]);
        if (f >= 0 && lf__ox_rw_is(&g->nodes[f], f_op) && g->nodes[f].in[0] == n->in[1 - k] &&
            lf__ox_rw_sole_reader(g, n->in[k]) == m)
            return f;
    }
    return -1;
}

static void lf__to_unary(lf__ox_graph *g, int32_t i, const char *op, int32_t x)
{
    lf__ox_node *n = &g->nodes[i];
    n->op = op;
    n->in[0] = x;
    n->n_in = 1;
    n->n_attr = 0;
}

static void lf__activations(lf__ox_graph *g)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        lf__ox_node *n = &g->nodes[i];
        int32_t f;
        if (lf__ox_rw_on(g, LF_ONNX_HARDSWISH) && (f = lf__times_self(g, i, "HardSigmoid")) >= 0 &&
            fabsf(lf__ox_attr_float(&g->nodes[f], "alpha", 0.2f) - 1.0f / 6) < 1e-6f &&
            lf__ox_attr_float(&g->nodes[f], "beta", 0.5f) == 0.5f) {
            g->nodes[f].dead = 1;
            lf__to_unary(g, i, "HardSwish", g->nodes[f].in[0]);
            lf__ox_note(g, LF_ONNX_HARDSWISH, i, "HardSigmoid(x) * x with alpha 1/6, beta 1/2");
        } else if (lf__ox_rw_on(g, LF_ONNX_SILU) && (f = lf__times_self(g, i, "Sigmoid")) >= 0) {
            g->nodes[f].dead = 1;
            lf__to_unary(g, i, "SiLU", g->nodes[f].in[0]);
            lf__ox_note(g, LF_ONNX_SILU, i, "Sigmoid(x) * x");
        } else if (lf__ox_rw_on(g, LF_ONNX_HARDSWISH) && (lf__ox_rw_is(n, "Div") || lf__ox_rw_is(n, "Mul"))) {
            /* x * Clip(x + 3, 0, 6) / 6 (or * 1/6): n is the last step. */
            double c = lf__ox_rw_scalar(g, n, 1);
            int32_t m = lf__ox_rw_producer(g, n->in[0]);
            if (!(lf__ox_rw_is(n, "Div") ? c == 6 : fabs(c - 1.0 / 6) < 1e-6) || m < 0 ||
                lf__ox_rw_sole_reader(g, n->in[0]) != i || !lf__ox_rw_is(&g->nodes[m], "Mul"))
                continue;
            const lf__ox_node *mul = &g->nodes[m];
            for (int32_t k = 0; k < 2; k++) {
                int32_t cl = lf__ox_rw_producer(g, mul->in[k]);
                if (cl < 0 || !lf__ox_rw_is(&g->nodes[cl], "Clip") || !g->nodes[cl].clip_known ||
                    g->nodes[cl].clip_min != 0 || g->nodes[cl].clip_max != 6 ||
                    lf__ox_rw_sole_reader(g, mul->in[k]) != m)
                    continue;
                int32_t ad = lf__ox_rw_producer(g, g->nodes[cl].in[0]);
                int32_t x = mul->in[1 - k];
                if (ad < 0 || !lf__ox_rw_is(&g->nodes[ad], "Add") || lf__ox_rw_sole_reader(g, g->nodes[cl].in[0]) != cl)
                    continue;
                const lf__ox_node *add = &g->nodes[ad];
                int xk = add->in[0] == x ? 1 : add->in[1] == x ? 0 : -1;
                if (xk < 0 || lf__ox_rw_scalar(g, add, xk) != 3)
                    continue;
                g->nodes[ad].dead = g->nodes[cl].dead = g->nodes[m].dead = 1;
                lf__to_unary(g, i, "HardSwish", x);
                lf__ox_note(g, LF_ONNX_HARDSWISH, i, "x * Clip(x + 3, 0, 6) / 6");
                break;
            }
        }
    }
}

static lf_status lf__fold_pad(lf__ox_graph *g)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        lf__ox_node *p = &g->nodes[i];
        if (!lf__ox_rw_is(p, "Pad") || strcmp(lf__ox_attr_str(p, "mode", "constant"), "constant") != 0)
            continue;
        int32_t c = lf__ox_rw_sole_reader(g, p->out[0]);
        const lf__ox_value *x = &g->values[p->in[0]];
        int64_t pads[2 * LF__OX_MAX_RANK];
        int32_t cnt;
        double value = g->opset < 11 ? lf__ox_attr_float(p, "value", 0)
                                     : (p->n_in > 2 && p->in[2] >= 0 ? lf__ox_rw_scalar(g, p, 2) : 0.0);
        if (c < 0 || x->rank != 4 || value != 0 ||
            lf__ox_int_list(g, p, "pads", 1, pads, 2 * LF__OX_MAX_RANK, &cnt) != 1 || cnt != 8 ||
            pads[0] || pads[1] || pads[4] || pads[5] || pads[2] < 0 || pads[3] < 0 || pads[6] < 0 || pads[7] < 0)
            continue;
        lf__ox_node *n = &g->nodes[c];
        int avg = lf__ox_rw_is(n, "AveragePool");
        if ((!lf__ox_rw_is(n, "Conv") && !avg) || n->in[0] != p->out[0] ||
            strcmp(lf__ox_attr_str(n, "auto_pad", "NOTSET"), "NOTSET") != 0)
            continue;
        int64_t own[8] = {0};
        if (lf__ox_int_list(g, n, "pads", -1, own, 8, &cnt) == 1 && cnt != 4)
            continue;
        /* A zero Pad before an AveragePool counts its zeros: legal only when
         * the pool counts padding too (or has none of its own). */
        int cip = (int)lf__ox_attr_int(n, "count_include_pad", 0);
        if (avg && !cip && (own[0] || own[1] || own[2] || own[3]))
            continue;
        int64_t merged[4] = {own[0] + pads[2], own[1] + pads[3], own[2] + pads[6], own[3] + pads[7]};
        lf_status st = lf__ox_rw_set_ints(g, n, "pads", merged, 4);
        int64_t one = 1;
        if (st == LF_OK && avg)
            st = lf__ox_rw_set_ints(g, n, "count_include_pad", &one, -1);
        if (st != LF_OK)
            return st;
        n->in[0] = p->in[0];
        p->dead = 1;
        lf__ox_note(g, LF_ONNX_FOLD_PAD, i, "zero padding [%lld, %lld, %lld, %lld] moved into %s", (long long)pads[2],
                    (long long)pads[3], (long long)pads[6], (long long)pads[7], n->name);
    }
    return LF_OK;
}

static lf_status lf__split(lf__ox_graph *g)
{
    int32_t n0 = g->n_nodes;
    for (int32_t i = 0; i < n0; i++) {
        if (!lf__ox_rw_is(&g->nodes[i], "Split"))
            continue;
        const lf__ox_value *x = &g->values[g->nodes[i].in[0]];
        int32_t axis = lf__ox_axis(lf__ox_attr_int(&g->nodes[i], "axis", 0), x->rank);
        int64_t at = 0;
        for (int32_t k = 0; k < g->nodes[i].n_out; k++) {
            const lf__ox_node *s = &g->nodes[i];
            int32_t out = s->out[k];
            if (out < 0)
                continue;
            int64_t len = g->values[out].dims[axis];
            char name[300];
            snprintf(name, sizeof name, "%s/slice%d", s->name, (int)k);
            int32_t in0 = s->in[0];
            int32_t id = lf__ox_add_node(g, name, "Slice", &in0, 1, &out, 1);
            if (id < 0)
                return (lf_status)id;
            int64_t b = at, e = at + len, ax = axis;
            lf_status st;
            if ((st = lf__ox_rw_set_ints(g, &g->nodes[id], "starts", &b, 1)) != LF_OK ||
                (st = lf__ox_rw_set_ints(g, &g->nodes[id], "ends", &e, 1)) != LF_OK ||
                (st = lf__ox_rw_set_ints(g, &g->nodes[id], "axes", &ax, 1)) != LF_OK)
                return st;
            g->values[out].producer = id;
            at += len;
        }
        g->nodes[i].dead = 1;
        lf__ox_note(g, LF_ONNX_SPLIT, i, "%d outputs along axis %d become Slices", (int)g->nodes[i].n_out,
                    (int)axis);
    }
    return LF_OK;
}

static lf_status lf__flatten_concat(lf__ox_graph *g)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        lf__ox_node *n = &g->nodes[i];
        if (!lf__ox_rw_is(n, "Concat"))
            continue;
        int32_t r = g->values[n->out[0]].rank;
        int32_t axis = lf__ox_axis(lf__ox_attr_int(n, "axis", 1), r);
        for (int32_t k = 0; k < n->n_in; k++) {
            int32_t p = lf__ox_rw_producer(g, n->in[k]);
            if (p < 0 || !lf__ox_rw_is(&g->nodes[p], "Concat") || g->nodes[p].ir_keep || lf__ox_rw_sole_reader(g, n->in[k]) != i ||
                lf__ox_axis(lf__ox_attr_int(&g->nodes[p], "axis", 1), r) != axis)
                continue;
            const lf__ox_node *in = &g->nodes[p];
            int32_t cnt = n->n_in - 1 + in->n_in;
            int32_t *merged = malloc((size_t)cnt * sizeof *merged);
            if (!merged)
                return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
            memcpy(merged, n->in, (size_t)k * sizeof *merged);
            memcpy(merged + k, in->in, (size_t)in->n_in * sizeof *merged);
            memcpy(merged + k + in->n_in, n->in + k + 1, (size_t)(n->n_in - k - 1) * sizeof *merged);
            lf_status st = lf__ox_rw_set_inputs(g, n, merged, cnt);
            free(merged);
            if (st != LF_OK)
                return st;
            g->nodes[p].dead = 1;
            lf__ox_note(g, LF_ONNX_FLATTEN_CONCAT, p, "concat of concat on axis %d merged into %s", (int)axis,
                        n->name);
            k--; /* look at the spliced inputs again */
        }
    }
    return LF_OK;
}

static void lf__reshape_flatten(lf__ox_graph *g)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        lf__ox_node *n = &g->nodes[i];
        if (!lf__ox_rw_is(n, "Reshape") || n->ir_keep) /* ir_keep: an IR Reshape of fusionplan's export */
            continue;
        const lf__ox_value *x = &g->values[n->in[0]], *y = &g->values[n->out[0]];
        if (x->rank < 3 || y->rank != 2 || y->dims[0] != x->dims[0])
            continue;
        n->op = "Flatten";
        n->n_in = 1;
        n->n_attr = 0;
        lf__ox_note(g, LF_ONNX_RESHAPE_FLATTEN, i, "Reshape to [N, -1] is Flatten");
    }
}

/* ShuffleNet's channel shuffle as exported: x [N,C,H,W] -> Reshape
 * [N,g,C/g,H,W] -> Transpose perm (0,2,1,3,4) -> Reshape [N,C,H,W]. The IR has
 * no tensors of rank 5, so the three nodes become one ChannelShuffle(groups
 * g) (output channel j*g + i is input channel i*(C/g) + j, as the chain
 * computes); the 5-D intermediates must have no other reader. */
static lf_status lf__channel_shuffle(lf__ox_graph *g)
{
    static const int64_t swap12[5] = {0, 2, 1, 3, 4};
    for (int32_t i = 0; i < g->n_nodes; i++) {
        lf__ox_node *n = &g->nodes[i];
        if (!lf__ox_rw_is(n, "Reshape"))
            continue;
        const lf__ox_value *x = &g->values[n->in[0]], *v = &g->values[n->out[0]];
        int64_t prod; /* of two dimensions from the file */
        if (x->rank != 4 || v->rank != 5 || v->dims[0] != x->dims[0] || v->dims[1] < 1 ||
            !lf_mul_i64(v->dims[1], v->dims[2], &prod) || prod != x->dims[1] || v->dims[3] != x->dims[2] || v->dims[4] != x->dims[3])
            continue;
        int32_t t = lf__ox_rw_sole_reader(g, n->out[0]);
        if (t < 0 || !lf__ox_rw_is(&g->nodes[t], "Transpose"))
            continue;
        int64_t perm[LF__OX_MAX_RANK];
        int32_t cnt;
        if (lf__ox_int_list(g, &g->nodes[t], "perm", -1, perm, LF__OX_MAX_RANK, &cnt) != 1 || cnt != 5 ||
            memcmp(perm, swap12, sizeof swap12) != 0)
            continue;
        int32_t r = lf__ox_rw_sole_reader(g, g->nodes[t].out[0]);
        if (r < 0 || !lf__ox_rw_is(&g->nodes[r], "Reshape"))
            continue;
        const lf__ox_value *y = &g->values[g->nodes[r].out[0]];
        if (y->rank != 4 || memcmp(y->dims, x->dims, 4 * sizeof *y->dims) != 0)
            continue;
        int64_t groups = v->dims[1];
        int32_t in = n->in[0];
        lf_status st = lf__ox_rw_set_inputs(g, n, &in, 1);
        if (st != LF_OK)
            return st;
        if ((st = lf__ox_rw_set_ints(g, n, "groups", &groups, -1)) != LF_OK)
            return st;
        n->op = "ChannelShuffle";
        g->values[n->out[0]].producer = -1;
        lf__ox_rw_take_output(g, i, g->nodes[r].out[0]);
        g->nodes[t].dead = 1;
        g->nodes[r].dead = 1;
        lf__ox_note(g, LF_ONNX_CHANNEL_SHUFFLE, i, "Reshape to %lld groups, Transpose and Reshape back are a "
                    "channel shuffle", (long long)groups);
    }
    return LF_OK;
}

/* x[:, k] on an activation (a vision transformer's class token): Gather with
 * one constant index is a Slice of length 1 along the axis, followed, for a
 * scalar index, by a Squeeze of that axis (the Gather node itself becomes the
 * Squeeze, keeping its output; lowering reads the output's shape). Gathers
 * of constants were folded before this. */
static lf_status lf__gather_slice(lf__ox_graph *g)
{
    int32_t n0 = g->n_nodes;
    for (int32_t i = 0; i < n0; i++) {
        if (!lf__ox_rw_is(&g->nodes[i], "Gather") || g->nodes[i].n_in != 2)
            continue;
        const lf__ox_data *ix = lf__ox_const_of(g, &g->nodes[i], 1);
        const lf__ox_value *x = &g->values[g->nodes[i].in[0]];
        if (!ix || ix->count != 1 || x->data.f || x->data.i || x->rank < 1)
            continue;
        int32_t axis = lf__ox_axis(lf__ox_attr_int(&g->nodes[i], "axis", 0), x->rank);
        if (axis < 0)
            continue;
        int64_t at = ix->i ? ix->i[0] : lf__ox_f2i(ix->f[0]);
        if (at < 0)
            at += x->dims[axis];
        if (at < 0 || at >= x->dims[axis])
            return lf__ox_fail(g, i, LF_EGRAPH, "index %lld out of range", (long long)at);
        int scalar = g->values[g->nodes[i].in[1]].rank == 0;
        int32_t in0 = g->nodes[i].in[0], out = g->nodes[i].out[0];
        if (scalar) { /* a fresh value for the slice, of the input's rank */
            char name[300];
            snprintf(name, sizeof name, "%s/slice", g->nodes[i].name);
            out = lf__ox_new_value(g, name);
            if (out < 0)
                return (lf_status)out;
            lf__ox_value *v = &g->values[out];
            const lf__ox_value *xv = &g->values[in0];
            v->rank = xv->rank;
            memcpy(v->dims, xv->dims, sizeof v->dims);
            v->dims[axis] = 1;
            v->elem_type = xv->elem_type;
        }
        char name[300];
        snprintf(name, sizeof name, "%s/slice", g->nodes[i].name);
        int32_t id = lf__ox_add_node(g, name, "Slice", &in0, 1, &out, 1);
        if (id < 0)
            return (lf_status)id;
        int64_t b = at, e = at + 1, ax = axis;
        lf_status st;
        if ((st = lf__ox_rw_set_ints(g, &g->nodes[id], "starts", &b, 1)) != LF_OK ||
            (st = lf__ox_rw_set_ints(g, &g->nodes[id], "ends", &e, 1)) != LF_OK ||
            (st = lf__ox_rw_set_ints(g, &g->nodes[id], "axes", &ax, 1)) != LF_OK)
            return st;
        g->values[out].producer = id;
        lf__ox_node *n = &g->nodes[i];
        if (scalar) {
            n->op = "Squeeze";
            n->in[0] = out;
            n->n_in = 1;
            n->n_attr = 0;
        } else {
            n->dead = 1;
        }
        lf__ox_note(g, LF_ONNX_GATHER_SLICE, i, "index %lld along axis %d is a Slice%s", (long long)at, (int)axis,
                    scalar ? " and a Squeeze" : "");
    }
    return LF_OK;
}

lf_status lf__ox_rewrite(lf__ox_graph *g)
{
    lf_status st = LF_OK;
    if (lf__ox_rw_on(g, LF_ONNX_DROP_IDENTITY))
        lf__drop_identity(g);
    if (lf__ox_rw_on(g, LF_ONNX_FOLD_BN) && (st = lf__fold_bn(g)) != LF_OK)
        return st;
    if ((st = lf__clip(g)) != LF_OK)
        return st;
    lf__activations(g);
    if (lf__ox_rw_on(g, LF_ONNX_FOLD_PAD) && (st = lf__fold_pad(g)) != LF_OK)
        return st;
    if (lf__ox_rw_on(g, LF_ONNX_SPLIT) && (st = lf__split(g)) != LF_OK)
        return st;
    if (lf__ox_rw_on(g, LF_ONNX_FLATTEN_CONCAT) && (st = lf__flatten_concat(g)) != LF_OK)
        return st;
    if (lf__ox_rw_on(g, LF_ONNX_RESHAPE_FLATTEN))
        lf__reshape_flatten(g);
    if (lf__ox_rw_on(g, LF_ONNX_CHANNEL_SHUFFLE) && (st = lf__channel_shuffle(g)) != LF_OK)
        return st;
    if (lf__ox_rw_on(g, LF_ONNX_GATHER_SLICE) && (st = lf__gather_slice(g)) != LF_OK)
        return st;
    if ((st = lf__ox_rewrite_tf(g)) != LF_OK || (st = lf__ox_rewrite_ops(g)) != LF_OK)
        return st;
    if ((st = lf__ox_rewrite_reduce(g)) != LF_OK || (st = lf__ox_rewrite_depth_space(g)) != LF_OK)
        return st;
    if (lf__ox_rw_on(g, LF_ONNX_RANK_VIEWS) && (st = lf__ox_rewrite_rank(g)) != LF_OK)
        return st;
    return lf__ox_toposort(g);
}
