/* Opset 23's Attention: its shape rule and its lowering to the attention core
 * the cost models recognise (docs/ir.md "Attention in our frame"):
 *
 *   Q [B, Hq, Sq, d] (or [B, Sq, Hq*d] with q_num_heads: Reshape, Transpose)
 *   K, V [B, Hkv, Skv, d|dv] (the same for kv_num_heads), past_key and
 *        past_value concatenated before them along the sequence axis
 *   K, V repeated Hq/Hkv times per head (grouped- and multi-query attention:
 *        Reshape, Expand, Reshape; head h reads key/value head h / (Hq/Hkv))
 *   S = MatMul(Q, Transpose(K)) * scale (default 1/sqrt(d))
 *   S = Tanh(S / softcap) * softcap when softcap > 0
 *   S = S + bias: the attention mask (float: added; bool: 0 where true, -inf
 *       where false; a mask shorter than the keys is padded with -inf) and
 *       the causal mask (key j allowed for query i when j <= i + past length,
 *       the bottom-right alignment of ONNX's reference); a constant mask and
 *       the causal mask are one constant
 *   Y = MatMul(Softmax(S, -1), V) (3-D: Transpose, Reshape back)
 *
 * present_key and present_value, when read, are the concatenated K and V.
 * Refused, naming the node: a qk_matmul_output that is read (its meaning
 * moved between opset 23 and 24), nonpad_kv_seqlen and the sliding windows
 * of later opsets, a bool mask that is computed. A query row whose keys are
 * all masked by constant masks gives 0, as ONNX's guard does (a bias of 0 for
 * the row, then the probabilities times a 0/1 row constant); a computed float
 * mask that masks a whole row with -inf gives NaN. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"
#include "planner/io/onnx_rewrite.h"

typedef struct lf__att_dims {
    int32_t rank;                  /* 3 or 4 */
    int64_t b, hq, hkv, sq, skv, past, d, dv;
} lf__att_dims;

static int lf__in(const lf__ox_node *n, int32_t k) { return k < n->n_in ? n->in[k] : -1; }

static lf_status lf__att_dims_of(lf__ox_graph *g, int32_t i, lf__att_dims *a)
{
    const lf__ox_node *n = &g->nodes[i];
    const lf__ox_value *q = &g->values[n->in[0]], *k = &g->values[n->in[1]], *v = &g->values[n->in[2]];
    int32_t pk = lf__in(n, 4), pv = lf__in(n, 5);
    memset(a, 0, sizeof *a);
    a->rank = q->rank;
    if ((q->rank != 3 && q->rank != 4) || k->rank != q->rank || v->rank != q->rank)
        return lf__ox_fail(g, i, LF_EGRAPH, "Q, K and V must all be of rank 3 or all of rank 4");
    if (lf__in(n, 6) >= 0)
        return lf__ox_fail(g, i, LF_EUNSUPPORTED, "nonpad_kv_seqlen is not supported");
    if (lf__ox_attr_int(n, "left_window_size", -1) != -1 || lf__ox_attr_int(n, "right_window_size", -1) != -1)
        return lf__ox_fail(g, i, LF_EUNSUPPORTED, "sliding windows are not supported");
    if ((pk >= 0) != (pv >= 0))
        return lf__ox_fail(g, i, LF_EGRAPH, "past_key and past_value must be given together");
    a->b = q->dims[0];
    if (q->rank == 4) {
        a->hq = q->dims[1];
        a->sq = q->dims[2];
        a->d = q->dims[3];
        a->hkv = k->dims[1];
        a->skv = k->dims[2];
        a->dv = v->dims[3];
        if (v->dims[1] != a->hkv || v->dims[2] != a->skv || k->dims[3] != a->d)
            return lf__ox_fail(g, i, LF_EGRAPH, "K and V shapes do not match Q");
    } else {
        a->hq = lf__ox_attr_int(n, "q_num_heads", 0);
        a->hkv = lf__ox_attr_int(n, "kv_num_heads", 0);
        if (a->hq < 1 || a->hkv < 1 || q->dims[2] % a->hq || k->dims[2] % a->hkv || v->dims[2] % a->hkv)
            return lf__ox_fail(g, i, LF_EGRAPH, "3-D inputs need q_num_heads and kv_num_heads dividing the widths");
        a->sq = q->dims[1];
        a->d = q->dims[2] / a->hq;
        a->skv = k->dims[1];
        a->dv = v->dims[2] / a->hkv;
        if (k->dims[2] / a->hkv != a->d || v->dims[1] != a->skv)
            return lf__ox_fail(g, i, LF_EGRAPH, "K and V shapes do not match Q");
    }
    if (a->b < 1 || a->hq < 1 || a->hkv < 1 || a->sq < 1 || a->skv < 1 || a->d < 1 || a->dv < 1)
        return lf__ox_fail(g, i, LF_EGRAPH, "Q, K or V is empty");
    if (k->dims[0] != a->b || v->dims[0] != a->b || a->hq % a->hkv)
        return lf__ox_fail(g, i, LF_EGRAPH, "batch sizes differ or %lld query heads are not a multiple of %lld "
                           "key/value heads", (long long)a->hq, (long long)a->hkv);
    if (pk >= 0) {
        const lf__ox_value *p = &g->values[pk], *pvv = &g->values[pv];
        if (p->rank != 4 || pvv->rank != 4 || p->dims[0] != a->b || p->dims[1] != a->hkv || p->dims[3] != a->d ||
            pvv->dims[2] != p->dims[2] || pvv->dims[3] != a->dv)
            return lf__ox_fail(g, i, LF_EGRAPH, "past_key or past_value shape does not match K and V");
        a->past = p->dims[2];
    }
    return LF_OK;
}

lf_status lf__ox_attention_shape(lf__ox_graph *g, int32_t i)
{
    lf__att_dims a;
    lf_status st = lf__att_dims_of(g, i, &a);
    if (st != LF_OK)
        return st;
    int64_t y4[4] = {a.b, a.hq, a.sq, a.dv}, y3[3] = {a.b, a.sq, a.hq * a.dv};
    int64_t pk[4] = {a.b, a.hkv, a.past + a.skv, a.d}, pv[4] = {a.b, a.hkv, a.past + a.skv, a.dv};
    int64_t qk[4] = {a.b, a.hq, a.sq, a.past + a.skv};
    const int64_t *dims[4] = {a.rank == 4 ? y4 : y3, pk, pv, qk};
    const lf__ox_node *n = &g->nodes[i];
    for (int32_t k = 0; k < n->n_out && k < 4; k++) {
        if (n->out[k] < 0)
            continue;
        lf__ox_value *v = &g->values[n->out[k]];
        v->rank = k == 0 ? a.rank : 4;
        memcpy(v->dims, dims[k], (size_t)v->rank * sizeof(int64_t));
        v->elem_type = LF__OX_FLOAT;
    }
    return LF_OK;
}

/* ---- lowering ---- */

typedef struct lf__att {
    lf__ox_graph *g;
    int32_t i;
    char base[250];
} lf__att;

static int32_t lf__op(lf__att *c, const char *suffix, const char *op, const int32_t *in, int32_t n_in, int32_t rank,
                      const int64_t *dims)
{
    char name[300];
    snprintf(name, sizeof name, "%s/%.40s", c->base, suffix);
    return lf__ox_rw_node(c->g, name, op, in, n_in, rank, dims);
}

static int32_t lf__transpose(lf__att *c, const char *suffix, int32_t v, const int64_t *perm)
{
    /* copies: a new value may move the values array */
    int32_t r = c->g->values[v].rank;
    int64_t d[LF__OX_MAX_RANK];
    for (int32_t q = 0; q < r; q++)
        d[q] = c->g->values[v].dims[perm[q]];
    int32_t t = lf__op(c, suffix, "Transpose", &v, 1, r, d);
    if (t < 0)
        return t;
    lf_status st = lf__ox_rw_set_ints(c->g, &c->g->nodes[c->g->values[t].producer], "perm", perm, r);
    return st != LF_OK ? (int32_t)st : t;
}

static int32_t lf__scalar(lf__att *c, const char *suffix, float value)
{
    lf__ox_data d;
    int64_t one = 1;
    lf_status st = lf__ox_data_alloc(c->g, &d, 0, 1, &one);
    if (st != LF_OK)
        return st;
    d.f[0] = value;
    char name[300];
    snprintf(name, sizeof name, "%s.%.40s", c->base, suffix);
    return lf__ox_rw_const(c->g, name, &d, 1, &one);
}

static int32_t lf__binary(lf__att *c, const char *suffix, const char *op, int32_t a, int32_t b)
{
    int32_t in[2] = {a, b};
    int64_t d[LF__OX_MAX_RANK];
    memcpy(d, c->g->values[a].dims, sizeof d);
    return lf__op(c, suffix, op, in, 2, c->g->values[a].rank, d);
}

/* [B, S, H*d] -> [B, H, S, d]; a rank-4 input as it is. */
static int32_t lf__heads(lf__att *c, const char *suffix, int32_t v, int64_t h)
{
    const lf__ox_value *x = &c->g->values[v];
    if (x->rank == 4)
        return v;
    int64_t d4[4] = {x->dims[0], x->dims[1], h, x->dims[2] / h}, perm[4] = {0, 2, 1, 3};
    char s[64];
    snprintf(s, sizeof s, "%s_heads", suffix);
    int32_t r = lf__op(c, s, "Reshape", &v, 1, 4, d4);
    snprintf(s, sizeof s, "%s_t", suffix);
    return r < 0 ? r : lf__transpose(c, s, r, perm);
}

/* [B, Hkv, S, d] -> [B, Hkv*rep, S, d], each head repeated rep times in a row. */
static int32_t lf__repeat(lf__att *c, const char *suffix, int32_t v, int64_t rep)
{
    if (rep == 1)
        return v;
    const lf__ox_value *x = &c->g->values[v];
    int64_t b = x->dims[0], h = x->dims[1], s = x->dims[2], d = x->dims[3];
    int64_t v3[3] = {b * h, 1, s * d}, e3[3] = {b * h, rep, s * d}, o4[4] = {b, h * rep, s, d};
    char nm[64];
    snprintf(nm, sizeof nm, "%s_kv", suffix);
    int32_t r = lf__op(c, nm, "Reshape", &v, 1, 3, v3);
    if (r < 0)
        return r;
    lf__ox_data sd;
    int64_t three = 3;
    lf_status st = lf__ox_data_alloc(c->g, &sd, 1, 1, &three);
    if (st != LF_OK)
        return st;
    memcpy(sd.i, e3, sizeof e3);
    char name[300];
    snprintf(name, sizeof name, "%s.%.20s_shape", c->base, suffix);
    int32_t sh = lf__ox_rw_value(c->g, name, LF__OX_INT64, 1, &three);
    if (sh < 0) {
        lf__ox_data_free(&sd);
        return sh;
    }
    c->g->values[sh].is_const = 1;
    if ((st = lf__ox_set_const(c->g, sh, &sd)) != LF_OK)
        return st;
    int32_t in[2] = {r, sh};
    snprintf(nm, sizeof nm, "%s_repeat", suffix);
    int32_t e = lf__op(c, nm, "Expand", in, 2, 3, e3);
    snprintf(nm, sizeof nm, "%s_heads_q", suffix);
    return e < 0 ? e : lf__op(c, nm, "Reshape", &e, 1, 4, o4);
}

/* The additive bias of a constant mask (or none, m < 0) and the causal mask,
 * right-aligned to [.., Sq, Skv] with the mask's last axis padded by -inf.
 * A row that masks every key gets a bias of 0 and *keep (else -1) is a 0/1
 * constant [.., Sq, 1] that zeroes its probabilities, ONNX's guard. */
static int32_t lf__const_bias(lf__att *c, int32_t m, int causal, const lf__att_dims *a, int32_t *keep)
{
    *keep = -1;
    lf__ox_graph *g = c->g;
    int64_t skv = a->past + a->skv, od[LF__OX_MAX_RANK] = {a->sq, skv};
    int32_t r = 2;
    const lf__ox_value *mv = m >= 0 ? &g->values[m] : NULL;
    if (mv) {
        if (mv->rank < 1 || mv->rank > 4 || mv->dims[mv->rank - 1] > skv)
            return lf__ox_fail(g, c->i, LF_EGRAPH, "attn_mask of rank %d does not fit the scores", (int)mv->rank);
        r = mv->rank < 2 ? 2 : mv->rank;
        for (int32_t q = 0; q < r; q++)
            od[q] = q >= r - mv->rank ? mv->dims[q - (r - mv->rank)] : 1;
        od[r - 1] = skv;
        if (od[r - 2] == 1)
            od[r - 2] = a->sq;
        else if (od[r - 2] != a->sq)
            return lf__ox_fail(g, c->i, LF_EGRAPH, "attn_mask rows differ from the queries");
    }
    lf__ox_data d;
    lf_status st = lf__ox_data_alloc(g, &d, 0, r, od);
    if (st != LF_OK)
        return st;
    /* the spec's masks are bool or float: integer data is a bool mask (constants keep int64, not bool) */
    int is_bool = mv && (mv->elem_type == LF__OX_BOOL || mv->data.i != NULL);
    int64_t mlast = mv ? mv->dims[mv->rank - 1] : 0, rows = mv && mv->rank >= 2 ? mv->dims[mv->rank - 2] : 1;
    for (int64_t e = 0; e < d.count; e++) {
        int64_t j = e % skv, qi = (e / skv) % a->sq, outer = e / (skv * a->sq);
        float bias = 0.0f;
        if (mv) {
            if (j >= mlast) {
                bias = -INFINITY;
            } else {
                int64_t at = (outer * rows + (rows == 1 ? 0 : qi)) * mlast + j;
                double x = mv->data.f ? mv->data.f[at] : (double)mv->data.i[at];
                bias = is_bool ? (x != 0 ? 0.0f : -INFINITY) : (float)x;
            }
        }
        if (causal && j > qi + a->past)
            bias = -INFINITY;
        d.f[e] = bias;
    }
    int64_t rows_all = d.count / skv, n_empty = 0, kd[LF__OX_MAX_RANK];
    for (int64_t row = 0; row < rows_all; row++) {
        int64_t j = 0;
        while (j < skv && isinf(d.f[row * skv + j]) && d.f[row * skv + j] < 0)
            j++;
        n_empty += j == skv;
    }
    char name[300];
    if (n_empty) {
        lf__ox_data kdata;
        memcpy(kd, od, sizeof kd);
        kd[r - 1] = 1;
        if ((st = lf__ox_data_alloc(g, &kdata, 0, r, kd)) != LF_OK) {
            lf__ox_data_free(&d);
            return st;
        }
        for (int64_t row = 0; row < rows_all; row++) {
            int64_t j = 0;
            while (j < skv && isinf(d.f[row * skv + j]) && d.f[row * skv + j] < 0)
                j++;
            kdata.f[row] = j == skv ? 0.0f : 1.0f;
            for (int64_t q = 0; j == skv && q < skv; q++)
                d.f[row * skv + q] = 0.0f;
        }
        snprintf(name, sizeof name, "%s.rows_kept", c->base);
        if ((*keep = lf__ox_rw_const(g, name, &kdata, r, kd)) < 0) {
            lf__ox_data_free(&d);
            return *keep;
        }
    }
    snprintf(name, sizeof name, "%s.bias", c->base);
    return lf__ox_rw_const(g, name, &d, r, od);
}

static lf_status lf__present(lf__att *c, int32_t k, int32_t v)
{
    lf__ox_graph *g = c->g;
    const lf__ox_node *n = &g->nodes[c->i];
    int32_t out = k < n->n_out ? n->out[k] : -1;
    if (out < 0 || (!g->values[out].is_output && !g->values[out].n_uses))
        return LF_OK;
    char name[300];
    snprintf(name, sizeof name, "%s/present_%s", c->base, k == 1 ? "key" : "value");
    int32_t id = lf__ox_add_node(g, name, "Identity", &v, 1, &out, 1);
    if (id < 0)
        return (lf_status)id;
    g->values[out].producer = id;
    return LF_OK;
}

lf_status lf__ox_rewrite_attention(lf__ox_graph *g, int32_t i)
{
    lf__att_dims a;
    lf_status st = lf__att_dims_of(g, i, &a);
    if (st != LF_OK)
        return st;
    lf__att c = {g, i, ""};
    snprintf(c.base, sizeof c.base, "%.240s", g->nodes[i].name);
    const lf__ox_node *n = &g->nodes[i];
    int32_t qk_out = n->n_out > 3 ? n->out[3] : -1;
    if (qk_out >= 0 && (g->values[qk_out].is_output || g->values[qk_out].n_uses))
        return lf__ox_fail(g, i, LF_EUNSUPPORTED, "the qk_matmul_output output is read");
    int causal = (int)lf__ox_attr_int(n, "is_causal", 0) != 0;
    float softcap = lf__ox_attr_float(n, "softcap", 0.0f);
    float scale = lf__ox_attr_float(n, "scale", (float)(1.0 / sqrt((double)a.d)));
    int32_t mask = lf__in(n, 3), pk = lf__in(n, 4), pv = lf__in(n, 5);
    int32_t Q = n->in[0], K = n->in[1], V = n->in[2];
    int mask_const = mask >= 0 && g->values[mask].is_const && (g->values[mask].data.f || g->values[mask].data.i);
    if (mask >= 0 && !mask_const &&
        (g->values[mask].elem_type == LF__OX_BOOL || g->values[mask].rank < 1 ||
         g->values[mask].dims[g->values[mask].rank - 1] != a.past + a.skv))
        return lf__ox_fail(g, i, LF_EUNSUPPORTED, "a computed attn_mask must be float and cover every key");

    int32_t q4 = lf__heads(&c, "q", Q, a.hq), k4 = q4 < 0 ? q4 : lf__heads(&c, "k", K, a.hkv);
    int32_t v4 = k4 < 0 ? k4 : lf__heads(&c, "v", V, a.hkv);
    if (v4 < 0)
        return (lf_status)v4;
    if (pk >= 0) {
        int32_t in[2] = {pk, k4};
        int64_t kd[4] = {a.b, a.hkv, a.past + a.skv, a.d}, vd[4] = {a.b, a.hkv, a.past + a.skv, a.dv}, two = 2;
        k4 = lf__op(&c, "key_cache", "Concat", in, 2, 4, kd);
        if (k4 < 0 || (st = lf__ox_rw_set_ints(g, &g->nodes[g->values[k4].producer], "axis", &two, -1)) != LF_OK)
            return k4 < 0 ? (lf_status)k4 : st;
        in[0] = pv;
        in[1] = v4;
        v4 = lf__op(&c, "value_cache", "Concat", in, 2, 4, vd);
        if (v4 < 0 || (st = lf__ox_rw_set_ints(g, &g->nodes[g->values[v4].producer], "axis", &two, -1)) != LF_OK)
            return v4 < 0 ? (lf_status)v4 : st;
    }
    if ((st = lf__present(&c, 1, k4)) != LF_OK || (st = lf__present(&c, 2, v4)) != LF_OK)
        return st;
    int64_t rep = a.hq / a.hkv, tperm[4] = {0, 1, 3, 2};
    int32_t kr = lf__repeat(&c, "k", k4, rep), vr = kr < 0 ? kr : lf__repeat(&c, "v", v4, rep);
    int32_t kt = vr < 0 ? vr : lf__transpose(&c, "k_transposed", kr, tperm);
    if (kt < 0)
        return (lf_status)kt;
    int64_t sd[4] = {a.b, a.hq, a.sq, a.past + a.skv};
    int32_t in[2] = {q4, kt};
    int32_t s = lf__op(&c, "scores", "MatMul", in, 2, 4, sd);
    int32_t sc = s < 0 ? s : lf__scalar(&c, "scale", scale);
    s = sc < 0 ? sc : lf__binary(&c, "scaled", "Mul", s, sc);
    if (s >= 0 && softcap > 0) {
        int32_t cap = lf__scalar(&c, "softcap", softcap);
        s = cap < 0 ? cap : lf__binary(&c, "softcap_div", "Div", s, cap);
        s = s < 0 ? s : lf__op(&c, "softcap_tanh", "Tanh", &s, 1, 4, sd);
        s = s < 0 ? s : lf__binary(&c, "softcapped", "Mul", s, cap);
    }
    if (s >= 0 && mask >= 0 && !mask_const)
        s = lf__binary(&c, "masked", "Add", s, mask);
    int32_t keep = -1;
    if (s >= 0 && (mask_const || causal)) {
        int32_t bias = lf__const_bias(&c, mask_const ? mask : -1, causal, &a, &keep);
        s = bias < 0 ? bias : lf__binary(&c, mask_const ? "masked" : "causal", "Add", s, bias);
    }
    int32_t p = s < 0 ? s : lf__op(&c, "probs", "Softmax", &s, 1, 4, sd);
    int64_t minus1 = -1;
    if (p < 0 || (st = lf__ox_rw_set_ints(g, &g->nodes[g->values[p].producer], "axis", &minus1, -1)) != LF_OK)
        return p < 0 ? (lf_status)p : st;
    if (keep >= 0 && (p = lf__binary(&c, "probs_kept", "Mul", p, keep)) < 0)
        return (lf_status)p;
    /* the node itself becomes the last op: MatMul(P, V), or the Reshape back to [B, Sq, Hq*dv] */
    int32_t fin[2] = {p, vr};
    if (a.rank == 3) {
        int64_t od[4] = {a.b, a.hq, a.sq, a.dv}, perm[4] = {0, 2, 1, 3};
        int32_t o = lf__op(&c, "context", "MatMul", fin, 2, 4, od);
        int32_t t = o < 0 ? o : lf__transpose(&c, "context_t", o, perm);
        if (t < 0)
            return (lf_status)t;
        fin[0] = t;
    }
    if ((st = lf__ox_rw_set_inputs(g, &g->nodes[i], fin, a.rank == 3 ? 1 : 2)) != LF_OK)
        return st;
    lf__ox_node *m = &g->nodes[i];
    m->op = a.rank == 3 ? "Reshape" : "MatMul";
    m->n_attr = 0;
    m->n_out = 1;
    lf__ox_note(g, LF_ONNX_FOLD_CONSTANTS, i, "Attention (%lld query, %lld key/value heads%s%s%s) is MatMul, "
                "Softmax and MatMul", (long long)a.hq, (long long)a.hkv, causal ? ", causal" : "",
                mask >= 0 ? ", masked" : "", pk >= 0 ? ", with a KV cache" : "");
    return LF_OK;
}
