/* Opset 23's RotaryEmbedding lowered to the ops a rotary embedding written
 * out has (Slice, Mul, Sub, Add, Concat, the rotate-half form torch exports
 * for Llama):
 *
 *   X [B, H, S, d], or [B, S, H*d] with num_heads (viewed as [B, S, H, d])
 *   cos, sin: [B, S, r/2], or [P, r/2] read at position_ids [B, S]
 *   x1, x2 = the halves of the first r = rotary_embedding_dim features
 *            (interleaved: the even and the odd features, Slices of step 2)
 *   real = x1 * cos - x2 * sin, imag = x1 * sin + x2 * cos
 *   Y = Concat(real, imag, the features after r)   (interleaved: real and
 *       imag zipped pairwise by a Concat of [M, r/2, 1] views)
 *
 * cos and sin broadcast over the heads: constants (position_ids constant) are
 * laid out once as [B, 1, S, r/2] (or [B, S, 1, r/2]); computed ones (without
 * position_ids) are viewed so by a Reshape. */
#include <stdio.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"
#include "planner/io/onnx_rewrite.h"

typedef struct lf__rot {
    lf__ox_graph *g;
    int32_t i;
    char base[250];
} lf__rot;

static int32_t lf__op(lf__rot *c, const char *suffix, const char *op, const int32_t *in, int32_t n_in, int32_t rank,
                      const int64_t *dims)
{
    char name[300];
    snprintf(name, sizeof name, "%s/%.40s", c->base, suffix);
    return lf__ox_rw_node(c->g, name, op, in, n_in, rank, dims);
}

/* Slice of the last axis: [start, end) with step. */
static int32_t lf__last(lf__rot *c, const char *suffix, int32_t v, int64_t start, int64_t end, int64_t step)
{
    const lf__ox_value *x = &c->g->values[v];
    int32_t r = x->rank;
    int64_t d[LF__OX_MAX_RANK], ax = r - 1;
    memcpy(d, x->dims, sizeof d);
    d[r - 1] = (end - start + step - 1) / step;
    int32_t s = lf__op(c, suffix, "Slice", &v, 1, r, d);
    if (s < 0)
        return s;
    lf__ox_node *n = &c->g->nodes[c->g->values[s].producer];
    lf_status st;
    if ((st = lf__ox_rw_set_ints(c->g, n, "starts", &start, 1)) != LF_OK ||
        (st = lf__ox_rw_set_ints(c->g, n, "ends", &end, 1)) != LF_OK ||
        (st = lf__ox_rw_set_ints(c->g, n, "axes", &ax, 1)) != LF_OK ||
        (st = lf__ox_rw_set_ints(c->g, n, "steps", &step, 1)) != LF_OK)
        return st;
    return s;
}

static int32_t lf__binary(lf__rot *c, const char *suffix, const char *op, int32_t a, int32_t b)
{
    int32_t in[2] = {a, b};
    const lf__ox_value *x = &c->g->values[a], *y = &c->g->values[b];
    int64_t od[LF__OX_MAX_RANK];
    int32_t r;
    if (!lf__ox_broadcast(x->dims, x->rank, y->dims, y->rank, od, &r))
        return lf__ox_fail(c->g, c->i, LF_EGRAPH, "cos or sin does not broadcast with the input");
    return lf__op(c, suffix, op, in, 2, r, od);
}

static int32_t lf__concat(lf__rot *c, const char *suffix, int32_t a, int32_t b, int32_t axis)
{
    int32_t in[2] = {a, b};
    const lf__ox_value *x = &c->g->values[a];
    int64_t d[LF__OX_MAX_RANK], ax = axis;
    memcpy(d, x->dims, sizeof d);
    d[axis] += c->g->values[b].dims[axis];
    int32_t v = lf__op(c, suffix, "Concat", in, 2, x->rank, d);
    lf_status st;
    if (v >= 0 && (st = lf__ox_rw_set_ints(c->g, &c->g->nodes[c->g->values[v].producer], "axis", &ax, -1)) != LF_OK)
        return st;
    return v;
}

/* cos or sin (input k) laid out to broadcast against the rank-4 view: dims ld. */
static int32_t lf__table(lf__rot *c, int32_t k, const int64_t *ld, int64_t half)
{
    lf__ox_graph *g = c->g;
    const lf__ox_node *n = &g->nodes[c->i];
    int32_t t = n->in[k], pos = n->n_in > 3 ? n->in[3] : -1;
    const lf__ox_value *tv = &g->values[t];
    int64_t bsz = ld[0], seq = ld[1] != 1 ? ld[1] : ld[2];
    if (tv->rank < 1 || tv->dims[tv->rank - 1] != half)
        return lf__ox_fail(g, c->i, LF_EGRAPH, "the last axis of the cos and sin caches must be %lld", (long long)half);
    int tconst = tv->is_const && (tv->data.f || tv->data.i);
    if (pos < 0 && !tconst) { /* a computed [B, S, half] table: a view */
        if (tv->rank != 3 || (tv->dims[0] != bsz && tv->dims[0] != 1) || tv->dims[1] != seq)
            return lf__ox_fail(g, c->i, LF_EGRAPH, "the cos and sin caches must be [batch, sequence, %lld]",
                               (long long)half);
        int64_t vd[4];
        memcpy(vd, ld, sizeof vd);
        vd[0] = tv->dims[0];
        return lf__op(c, k == 1 ? "cos_view" : "sin_view", "Reshape", &t, 1, 4, vd);
    }
    const lf__ox_data *pd = pos >= 0 ? &g->values[pos].data : NULL;
    if (pos >= 0 && (!g->values[pos].is_const || (!pd->f && !pd->i) || !tconst))
        return lf__ox_fail(g, c->i, LF_EUNSUPPORTED, "position_ids and the caches must be constant");
    const lf__ox_value *pv = pos >= 0 ? &g->values[pos] : NULL;
    if (pv && (pv->rank != 2 || (pv->dims[0] != bsz && pv->dims[0] != 1) || pv->dims[1] != seq || tv->rank != 2))
        return lf__ox_fail(g, c->i, LF_EGRAPH, "position_ids must be [batch, sequence] and the caches 2-D");
    if (!pv && (tv->rank != 3 || (tv->dims[0] != bsz && tv->dims[0] != 1) || tv->dims[1] != seq))
        return lf__ox_fail(g, c->i, LF_EGRAPH, "the cos and sin caches must be [batch, sequence, %lld]",
                           (long long)half);
    int64_t tb = pv ? pv->dims[0] : tv->dims[0], od[4];
    memcpy(od, ld, sizeof od);
    od[0] = tb;
    lf__ox_data d;
    lf_status st = lf__ox_data_alloc(g, &d, 0, 4, od);
    if (st != LF_OK)
        return st;
    for (int64_t b = 0; b < tb; b++)
        for (int64_t s = 0; s < seq; s++) {
            int64_t row = b * seq + s;
            if (pv) {
                double p = pd->f ? pd->f[row] : (double)pd->i[row];
                int64_t pi = lf__ox_f2i(p);
                if (pi < 0 || pi >= tv->dims[0]) {
                    lf__ox_data_free(&d);
                    return lf__ox_fail(g, c->i, LF_ERANGE, "position id %lld outside the cache of %lld rows",
                                       (long long)pi, (long long)tv->dims[0]);
                }
                row = pi;
            }
            for (int64_t h = 0; h < half; h++)
                d.f[(b * seq + s) * half + h] =
                    tv->data.f ? tv->data.f[row * half + h] : (float)tv->data.i[row * half + h];
        }
    char name[300];
    snprintf(name, sizeof name, "%s.%s", c->base, k == 1 ? "cos" : "sin");
    return lf__ox_rw_const(g, name, &d, 4, od);
}

lf_status lf__ox_rewrite_rotary(lf__ox_graph *g, int32_t i)
{
    lf__rot c = {g, i, ""};
    snprintf(c.base, sizeof c.base, "%.240s", g->nodes[i].name);
    const lf__ox_node *n = &g->nodes[i];
    int32_t x = n->in[0], y = n->out[0];
    const lf__ox_value *xv = &g->values[x]; /* read before any new value moves the array */
    int32_t xrank = xv->rank;
    if (xrank != 3 && xrank != 4)
        return lf__ox_fail(g, i, LF_EGRAPH, "input of rank %d (3 or 4)", (int)xrank);
    int interleaved = lf__ox_attr_int(n, "interleaved", 0) != 0;
    int64_t heads = lf__ox_attr_int(n, "num_heads", 0), rd = lf__ox_attr_int(n, "rotary_embedding_dim", 0);
    int64_t x4d[4], ld[4];
    int32_t x4 = x;
    if (xv->rank == 3) {
        if (heads < 1 || xv->dims[2] % heads)
            return lf__ox_fail(g, i, LF_EGRAPH, "a 3-D input needs num_heads dividing its width");
        int64_t v[4] = {xv->dims[0], xv->dims[1], heads, xv->dims[2] / heads};
        memcpy(x4d, v, sizeof v);
        if ((x4 = lf__op(&c, "heads", "Reshape", &x, 1, 4, x4d)) < 0)
            return (lf_status)x4;
    } else {
        memcpy(x4d, xv->dims, sizeof x4d);
    }
    int64_t d = x4d[3];
    if (rd == 0)
        rd = d;
    if (rd < 2 || rd > d || rd % 2)
        return lf__ox_fail(g, i, LF_EGRAPH, "rotary_embedding_dim %lld for heads of %lld", (long long)rd, (long long)d);
    int64_t half = rd / 2;
    /* the tables broadcast over heads: [B, 1, S, half] or [B, S, 1, half] */
    memcpy(ld, x4d, sizeof ld);
    ld[xrank == 4 ? 1 : 2] = 1;
    ld[3] = half;
    int32_t cs = lf__table(&c, 1, ld, half), sn = cs < 0 ? cs : lf__table(&c, 2, ld, half);
    if (sn < 0)
        return (lf_status)sn;
    int32_t xr = rd < d ? lf__last(&c, "rotated", x4, 0, rd, 1) : x4;
    int32_t x1 = xr < 0 ? xr : interleaved ? lf__last(&c, "x1", xr, 0, rd, 2) : lf__last(&c, "x1", xr, 0, half, 1);
    int32_t x2 = x1 < 0 ? x1 : interleaved ? lf__last(&c, "x2", xr, 1, rd, 2) : lf__last(&c, "x2", xr, half, rd, 1);
    int32_t a = x2 < 0 ? x2 : lf__binary(&c, "x1_cos", "Mul", x1, cs);
    int32_t b = a < 0 ? a : lf__binary(&c, "x2_sin", "Mul", x2, sn);
    int32_t re = b < 0 ? b : lf__binary(&c, "real", "Sub", a, b);
    a = re < 0 ? re : lf__binary(&c, "x1_sin", "Mul", x1, sn);
    b = a < 0 ? a : lf__binary(&c, "x2_cos", "Mul", x2, cs);
    int32_t im = b < 0 ? b : lf__binary(&c, "imag", "Add", a, b);
    if (im < 0)
        return (lf_status)im;
    int32_t rot;
    if (interleaved) { /* zip: [M, half, 1] twice -> [M, half, 2] -> [.., rd] */
        int64_t m = x4d[0] * x4d[1] * x4d[2], z1[3] = {m, half, 1}, rdims[4];
        memcpy(rdims, x4d, sizeof rdims);
        rdims[3] = rd;
        int32_t r1 = lf__op(&c, "real_pairs", "Reshape", &re, 1, 3, z1);
        int32_t i1 = r1 < 0 ? r1 : lf__op(&c, "imag_pairs", "Reshape", &im, 1, 3, z1);
        int32_t z = i1 < 0 ? i1 : lf__concat(&c, "zipped", r1, i1, 2);
        rot = z < 0 ? z : lf__op(&c, "rotated_out", "Reshape", &z, 1, 4, rdims);
    } else {
        rot = lf__concat(&c, "rotated_out", re, im, 3);
    }
    if (rot >= 0 && rd < d) {
        int32_t pass = lf__last(&c, "passed", x4, rd, d, 1);
        rot = pass < 0 ? pass : lf__concat(&c, "joined", rot, pass, 3);
    }
    if (rot < 0)
        return (lf_status)rot;
    if (xrank == 4) { /* the last new node produces the file's output */
        int32_t p = g->values[rot].producer;
        lf__ox_rw_take_output(g, p, y);
        g->nodes[i].dead = 1;
    } else { /* the node becomes the view back to [B, S, H*d] */
        lf_status st = lf__ox_rw_set_inputs(g, &g->nodes[i], &rot, 1);
        if (st != LF_OK)
            return st;
        lf__ox_node *nn = &g->nodes[i];
        nn->op = "Reshape";
        nn->n_attr = 0;
        nn->n_out = 1;
    }
    lf__ox_note(g, LF_ONNX_FOLD_CONSTANTS, i, "RotaryEmbedding (%s, %lld of %lld features) is Slice, Mul, Sub, Add "
                "and Concat", interleaved ? "interleaved" : "rotate-half", (long long)rd, (long long)d);
    return LF_OK;
}
