/* Transformer patterns that exporters write out op by op, each recognised
 * into the one op the IR has for it (the `layernorm` and `gelu` rewrites):
 *
 * - LayerNorm, as torch writes nn.LayerNorm below opset 17 (and as
 *   TensorFlow and hand-written modules do): m = ReduceMean(x), d = x - m,
 *   v = ReduceMean(d^2) (Pow(d, 2) or d * d), y = d / Sqrt(v + eps), then an
 *   optional * gamma and + beta (constants that broadcast to x: [D], [1],
 *   leading ones, one per row), over the same trailing axes ->
 *   LayerNormalization(x, gamma, beta; axis, epsilon). Without gamma the
 *   scale is a constant of ones.
 * - GELU, erf form (torch's F.gelu below opset 20, BERT and ViT exports):
 *   0.5 * x * (1 + Erf(x / sqrt 2)) (Div by sqrt 2 or Mul by 1/sqrt 2, the
 *   0.5 applied first or last) -> Gelu;
 *   tanh form (GPT-2's "gelu_new", F.gelu(approximate='tanh')):
 *   0.5 * x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) with x^3 as
 *   Pow(x, 3) or x * x * x -> Gelu(approximate = tanh).
 * - RMSNorm, as torch writes Llama's (HF LlamaRMSNorm, T5's LayerNorm) and
 *   fusionplan's own export below opset 23: v = ReduceMean(x^2) (Pow(x, 2)
 *   or x * x) over trailing axes, s = Sqrt(v + eps), then x / s, or
 *   x * r with r = Reciprocal(s) or 1 / s (torch.rsqrt), then an optional
 *   Cast to float and * gamma (a constant that broadcasts to x, either
 *   side) -> RMSNormalization(x, gamma; axis, epsilon), named like the last
 *   node. Without gamma the scale is a constant of ones.
 * Every intermediate must have no reader outside the pattern. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"
#include "planner/io/onnx_rewrite.h"

static int lf__near(double v, double want) { return fabs(v - want) <= 1e-5 * fabs(want) + 1e-7; }

/* Node p (live, type op) with a scalar constant close to c at input 1, or
 * at input 0 when the op commutes; *other is then its other input. */
static int lf__bin(const lf__ox_graph *g, int32_t p, const char *op, double c, int32_t *other)
{
    if (p < 0 || !lf__ox_rw_is(&g->nodes[p], op) || g->nodes[p].n_in != 2)
        return 0;
    const lf__ox_node *n = &g->nodes[p];
    int commutes = strcmp(op, "Add") == 0 || strcmp(op, "Mul") == 0;
    for (int32_t k = 1; k >= (commutes ? 0 : 1); k--)
        if (lf__near(lf__ox_rw_scalar(g, n, k), c)) {
            *other = n->in[1 - k];
            return 1;
        }
    return 0;
}

/* The producer of v when it is node type op and v has no reader but `reader`. */
static int32_t lf__only(const lf__ox_graph *g, int32_t v, int32_t reader, const char *op)
{
    int32_t p = lf__ox_rw_producer(g, v);
    return p >= 0 && lf__ox_rw_is(&g->nodes[p], op) && lf__ox_rw_sole_reader(g, v) == reader ? p : -1;
}

static lf_status lf__set_str(lf__ox_graph *g, lf__ox_node *n, const char *name, const char *s)
{
    lf__ox_attr *na = lf_arena_alloc(&g->arena, (size_t)(n->n_attr + 1) * sizeof *na);
    if (!na)
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    if (n->n_attr)
        memcpy(na, n->attr, (size_t)n->n_attr * sizeof *na);
    memset(&na[n->n_attr], 0, sizeof *na);
    na[n->n_attr].name = name;
    na[n->n_attr].type = 3;
    na[n->n_attr].s = s;
    na[n->n_attr].tensor = -1;
    n->attr = na;
    n->n_attr++;
    return LF_OK;
}

/* 1 + f(...) where f is the sole reader chain: the f node reading from
 * value c's Add, or -1. */
static int32_t lf__one_plus(const lf__ox_graph *g, int32_t c, int32_t reader, const char *f_op)
{
    int32_t ad = lf__only(g, c, reader, "Add"), t;
    if (ad < 0 || !lf__bin(g, ad, "Add", 1.0, &t))
        return -1;
    return lf__only(g, t, ad, f_op);
}

/* x^3 as Pow(x, 3), x * (x * x) or (x * x) * x, read only by `reader`; -1 if not. */
static int lf__cube_of(const lf__ox_graph *g, int32_t v, int32_t reader, int32_t x, int32_t *dead, int32_t *nd)
{
    int32_t p = lf__ox_rw_producer(g, v), o;
    if (p < 0 || lf__ox_rw_sole_reader(g, v) != reader)
        return 0;
    if (lf__bin(g, p, "Pow", 3.0, &o) && o == x) {
        dead[(*nd)++] = p;
        return 1;
    }
    if (!lf__ox_rw_is(&g->nodes[p], "Mul"))
        return 0;
    for (int32_t k = 0; k < 2; k++) {
        int32_t sq = lf__only(g, g->nodes[p].in[k], p, "Mul");
        if (g->nodes[p].in[1 - k] == x && sq >= 0 && g->nodes[sq].in[0] == x && g->nodes[sq].in[1] == x) {
            dead[(*nd)++] = p;
            dead[(*nd)++] = sq;
            return 1;
        }
    }
    return 0;
}

/* The inner 1 + f(...) of a GELU whose input is x; returns 1 for erf, 2 for tanh, 0 none. */
static int lf__gelu_core(const lf__ox_graph *g, int32_t c, int32_t reader, int32_t x, int32_t *dead, int32_t *nd)
{
    int32_t f = lf__one_plus(g, c, reader, "Erf"), a, in;
    if (f >= 0) {
        a = lf__ox_rw_producer(g, g->nodes[f].in[0]);
        if (lf__ox_rw_sole_reader(g, g->nodes[f].in[0]) != f ||
            !((lf__bin(g, a, "Div", sqrt(2.0), &in) || lf__bin(g, a, "Mul", 1.0 / sqrt(2.0), &in)) && in == x))
            return 0;
        dead[(*nd)++] = lf__ox_rw_producer(g, c);
        dead[(*nd)++] = f;
        dead[(*nd)++] = a;
        return 1;
    }
    if ((f = lf__one_plus(g, c, reader, "Tanh")) < 0)
        return 0;
    int32_t k = lf__only(g, g->nodes[f].in[0], f, "Mul"), u, ad, w, cube;
    if (k < 0 || !lf__bin(g, k, "Mul", 0.7978845608028654 /* sqrt(2 / pi) */, &u) || (ad = lf__only(g, u, k, "Add")) < 0)
        return 0;
    for (int32_t q = 0; q < 2; q++) {
        if (g->nodes[ad].in[1 - q] != x || (w = lf__only(g, g->nodes[ad].in[q], ad, "Mul")) < 0 ||
            !lf__bin(g, w, "Mul", 0.044715, &cube))
            continue;
        int32_t n0 = *nd;
        dead[(*nd)++] = lf__ox_rw_producer(g, c);
        dead[(*nd)++] = f;
        dead[(*nd)++] = k;
        dead[(*nd)++] = ad;
        dead[(*nd)++] = w;
        if (lf__cube_of(g, cube, w, x, dead, nd))
            return 2;
        *nd = n0;
    }
    return 0;
}

static lf_status lf__gelu(lf__ox_graph *g)
{
    for (int32_t e = 0; e < g->n_nodes; e++) {
        lf__ox_node *n = &g->nodes[e];
        if (!lf__ox_rw_is(n, "Mul") || n->n_in != 2)
            continue;
        int32_t dead[16], nd = 0, x = -1, form = 0, d;
        /* (x * c) * 0.5 */
        if (lf__bin(g, e, "Mul", 0.5, &d) && (d = lf__only(g, d, e, "Mul")) >= 0) {
            for (int32_t k = 0; k < 2 && !form; k++) {
                nd = 0;
                x = g->nodes[d].in[k];
                form = lf__gelu_core(g, g->nodes[d].in[1 - k], d, x, dead, &nd);
            }
            if (form)
                dead[nd++] = d;
        }
        /* (x * 0.5) * c */
        for (int32_t k = 0; k < 2 && !form; k++) {
            int32_t h = lf__only(g, n->in[k], e, "Mul");
            nd = 0;
            if (h >= 0 && lf__bin(g, h, "Mul", 0.5, &x) && (form = lf__gelu_core(g, n->in[1 - k], e, x, dead, &nd)))
                dead[nd++] = h;
        }
        if (!form)
            continue;
        for (int32_t q = 0; q < nd; q++)
            g->nodes[dead[q]].dead = 1;
        n->op = "Gelu";
        n->in[0] = x;
        n->n_in = 1;
        n->n_attr = 0;
        if (form == 2) {
            lf_status st = lf__set_str(g, n, "approximate", "tanh");
            if (st != LF_OK)
                return st;
        }
        lf__ox_note(g, LF_ONNX_GELU, e, "GELU written out (%s form)", form == 1 ? "erf" : "tanh");
    }
    return LF_OK;
}

/* Axes of a ReduceMean as a trailing range: the first axis, or -1 when the
 * axes are not rank - k .. rank - 1 or keepdims is 0. */
static int32_t lf__trailing_axes(lf__ox_graph *g, int32_t p)
{
    const lf__ox_node *n = &g->nodes[p];
    int32_t r = g->values[n->in[0]].rank, cnt;
    int64_t axes[LF__OX_MAX_RANK];
    if (!lf__ox_attr_int(n, "keepdims", 1) || lf__ox_int_list(g, n, "axes", 1, axes, LF__OX_MAX_RANK, &cnt) != 1 ||
        cnt < 1)
        return -1;
    int32_t lo = r, seen = 0;
    for (int32_t k = 0; k < cnt; k++) {
        int32_t a = lf__ox_axis(axes[k], r);
        if (a < 0 || (seen & (1 << a)))
            return -1;
        seen |= 1 << a;
        lo = a < lo ? a : lo;
    }
    return seen == ((1 << r) - (1 << lo)) ? lo : -1;
}

/* A constant operand of a norm's Mul/Add: one that broadcasts to x without
 * growing it (each dim, right-aligned, 1 or x's), which is what
 * LayerNormalization's and RMSNormalization's scale and bias may be: the
 * normalised dims ([D], or [1] for all), with leading ones, or one per row. */
static int lf__affine_ok(const lf__ox_graph *g, int32_t v, int32_t x)
{
    const lf__ox_value *c = &g->values[v], *xv = &g->values[x];
    if (!c->is_const || c->rank > xv->rank)
        return 0;
    for (int32_t q = 0; q < c->rank; q++)
        if (c->dims[q] != 1 && c->dims[q] != xv->dims[xv->rank - c->rank + q])
            return 0;
    return 1;
}

/* A constant of ones shaped like x's axes from `axis` on (a norm without gamma). */
static int32_t lf__ones_scale(lf__ox_graph *g, int32_t x, int32_t axis, const char *node_name)
{
    int64_t dims[LF__OX_MAX_RANK];
    int32_t rr = g->values[x].rank - axis;
    memcpy(dims, g->values[x].dims + axis, (size_t)rr * sizeof *dims);
    lf__ox_data d;
    lf_status st = lf__ox_data_alloc(g, &d, 0, rr, dims);
    if (st != LF_OK)
        return (int32_t)st;
    for (int64_t e = 0; e < d.count; e++)
        d.f[e] = 1.0f;
    char name[300];
    snprintf(name, sizeof name, "%.240s.scale", node_name);
    return lf__ox_rw_const(g, name, &d, rr, dims);
}

/* Node n becomes op(in; axis, epsilon) with no other attribute. */
static lf_status lf__make_norm(lf__ox_graph *g, int32_t node, const char *op, const int32_t *in, int32_t n_in,
                               int32_t axis, double eps)
{
    lf_status st = lf__ox_rw_set_inputs(g, &g->nodes[node], in, n_in);
    int64_t ax = axis;
    if (st != LF_OK)
        return st;
    lf__ox_node *ln = &g->nodes[node];
    ln->n_attr = 0;
    if ((st = lf__ox_rw_set_ints(g, ln, "axis", &ax, -1)) != LF_OK)
        return st;
    /* epsilon as a float attribute */
    lf__ox_attr *ea = lf_arena_alloc(&g->arena, (size_t)(ln->n_attr + 1) * sizeof *ea);
    if (!ea)
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    memcpy(ea, ln->attr, (size_t)ln->n_attr * sizeof *ea);
    memset(&ea[ln->n_attr], 0, sizeof *ea);
    ea[ln->n_attr].name = "epsilon";
    ea[ln->n_attr].type = 1;
    ea[ln->n_attr].f = (float)eps;
    ea[ln->n_attr].tensor = -1;
    ln->attr = ea;
    ln->n_attr++;
    ln->op = op;
    return LF_OK;
}

/* Add(t, eps) with a positive scalar eps (either side) read only by
 * `reader`; *t and *eps are set. Returns the Add or -1. */
static int32_t lf__plus_eps(const lf__ox_graph *g, int32_t v, int32_t reader, int32_t *t, double *eps)
{
    int32_t a = lf__only(g, v, reader, "Add");
    *eps = NAN;
    for (int32_t k = 0; a >= 0 && k < 2 && isnan(*eps); k++)
        if (!isnan(lf__ox_rw_scalar(g, &g->nodes[a], k))) {
            *eps = lf__ox_rw_scalar(g, &g->nodes[a], k);
            *t = g->nodes[a].in[1 - k];
        }
    return a >= 0 && !isnan(*eps) && *eps > 0 ? a : -1;
}

static lf_status lf__layernorm(lf__ox_graph *g)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        lf__ox_node *dv = &g->nodes[i];
        if (!lf__ox_rw_is(dv, "Div") || dv->n_in != 2)
            continue;
        int32_t dval = dv->in[0], s, a, vr, p, sub, m, t = -1;
        s = lf__only(g, dv->in[1], i, "Sqrt");
        a = s >= 0 ? lf__only(g, g->nodes[s].in[0], s, "Add") : -1;
        if (a < 0)
            continue;
        double eps = NAN;
        for (int32_t k = 0; k < 2 && isnan(eps); k++)
            if (!isnan(lf__ox_rw_scalar(g, &g->nodes[a], k))) {
                eps = lf__ox_rw_scalar(g, &g->nodes[a], k);
                t = g->nodes[a].in[1 - k];
            }
        if (isnan(eps) || !(eps > 0) || (vr = lf__only(g, t, a, "ReduceMean")) < 0)
            continue;
        p = lf__ox_rw_producer(g, g->nodes[vr].in[0]);
        if (p < 0 || lf__ox_rw_sole_reader(g, g->nodes[vr].in[0]) != vr)
            continue;
        int32_t sq;
        if (!(lf__bin(g, p, "Pow", 2.0, &sq) && sq == dval) &&
            !(lf__ox_rw_is(&g->nodes[p], "Mul") && g->nodes[p].in[0] == dval && g->nodes[p].in[1] == dval))
            continue;
        /* d = x - mean(x), read by the square and the Div only */
        sub = lf__ox_rw_producer(g, dval);
        if (sub < 0 || !lf__ox_rw_is(&g->nodes[sub], "Sub") || g->values[dval].is_output)
            continue;
        int32_t readers = 0;
        for (int32_t j = 0; j < g->n_nodes; j++)
            for (int32_t k = 0; !g->nodes[j].dead && k < g->nodes[j].n_in; k++)
                readers += g->nodes[j].in[k] == dval && j != p && j != i;
        int32_t x = g->nodes[sub].in[0];
        m = lf__only(g, g->nodes[sub].in[1], sub, "ReduceMean");
        if (readers || m < 0 || g->nodes[m].in[0] != x)
            continue;
        int32_t axis = lf__trailing_axes(g, m);
        if (axis < 0 || lf__trailing_axes(g, vr) != axis || g->values[x].rank != g->values[dval].rank)
            continue;
        /* optional affine: * gamma, + beta */
        int32_t out = i, gamma = -1, beta = -1, mul = -1, add = -1;
        int32_t r1 = lf__ox_rw_sole_reader(g, dv->out[0]);
        if (r1 >= 0 && lf__ox_rw_is(&g->nodes[r1], "Mul")) {
            int32_t k = g->nodes[r1].in[0] == dv->out[0] ? 1 : 0;
            if (lf__affine_ok(g, g->nodes[r1].in[k], x)) {
                mul = out = r1;
                gamma = g->nodes[r1].in[k];
                int32_t r2 = lf__ox_rw_sole_reader(g, g->nodes[r1].out[0]);
                if (r2 >= 0 && lf__ox_rw_is(&g->nodes[r2], "Add")) {
                    k = g->nodes[r2].in[0] == g->nodes[r1].out[0] ? 1 : 0;
                    if (lf__affine_ok(g, g->nodes[r2].in[k], x)) {
                        add = out = r2;
                        beta = g->nodes[r2].in[k];
                    }
                }
            }
        }
        if (gamma < 0 && (gamma = lf__ones_scale(g, x, axis, g->nodes[i].name)) < 0)
            return (lf_status)gamma;
        int32_t in[3] = {x, gamma, beta};
        lf_status st = lf__make_norm(g, i, "LayerNormalization", in, beta >= 0 ? 3 : 2, axis, eps);
        if (st != LF_OK)
            return st;
        lf__ox_node *ln = &g->nodes[i];
        if (out != i) {
            g->values[ln->out[0]].producer = -1;
            lf__ox_rw_take_output(g, i, g->nodes[out].out[0]);
        }
        g->nodes[m].dead = g->nodes[sub].dead = g->nodes[p].dead = g->nodes[vr].dead = 1;
        g->nodes[a].dead = g->nodes[s].dead = 1;
        if (mul >= 0)
            g->nodes[mul].dead = 1;
        if (add >= 0)
            g->nodes[add].dead = 1;
        lf__ox_note(g, LF_ONNX_LAYERNORM, i, "LayerNorm written out over axes %d.. (epsilon %g)%s", (int)axis, eps,
                    mul < 0 ? ", no scale" : add < 0 ? ", no bias" : "");
    }
    return LF_OK;
}

/* The normalised x of an RMSNorm from its Sqrt s: x / s, x * Reciprocal(s)
 * or x * (1 / s), each intermediate read once; dead gets the
 * nodes between s and the result; returns the node giving x / s or -1. */
static int32_t lf__rms_divide(const lf__ox_graph *g, int32_t s, int32_t x, int32_t *dead, int32_t *nd)
{
    int32_t sv = g->nodes[s].out[0], r = lf__ox_rw_sole_reader(g, sv), o;
    if (r < 0)
        return -1;
    const lf__ox_node *n = &g->nodes[r];
    if (lf__ox_rw_is(n, "Div") && n->n_in == 2 && n->in[0] == x && n->in[1] == sv)
        return r;
    int inv = (lf__ox_rw_is(n, "Reciprocal") && n->n_in == 1) ||
              (lf__ox_rw_is(n, "Div") && n->n_in == 2 && n->in[1] == sv && lf__near(lf__ox_rw_scalar(g, n, 0), 1.0));
    if (!inv || (o = lf__ox_rw_sole_reader(g, n->out[0])) < 0 || !lf__ox_rw_is(&g->nodes[o], "Mul") ||
        g->nodes[o].n_in != 2)
        return -1;
    for (int32_t k = 0; k < 2; k++)
        if (g->nodes[o].in[k] == n->out[0] && g->nodes[o].in[1 - k] == x) {
            dead[(*nd)++] = r;
            return o;
        }
    return -1;
}

static lf_status lf__rmsnorm(lf__ox_graph *g)
{
    for (int32_t s = 0; s < g->n_nodes; s++) {
        if (!lf__ox_rw_is(&g->nodes[s], "Sqrt") || g->nodes[s].n_in != 1)
            continue;
        int32_t t = -1, vr, p, x = -1, dead[8], nd = 0, o;
        double eps;
        int32_t a = lf__plus_eps(g, g->nodes[s].in[0], s, &t, &eps);
        if (a < 0 || (vr = lf__only(g, t, a, "ReduceMean")) < 0 ||
            (p = lf__ox_rw_producer(g, g->nodes[vr].in[0])) < 0 ||
            lf__ox_rw_sole_reader(g, g->nodes[vr].in[0]) != vr)
            continue;
        const lf__ox_node *pn = &g->nodes[p];
        if (!lf__bin(g, p, "Pow", 2.0, &x) &&
            !(lf__ox_rw_is(pn, "Mul") && pn->n_in == 2 && (x = pn->in[0]) == pn->in[1]))
            continue;
        int32_t axis = lf__trailing_axes(g, vr);
        if (axis < 0 || x < 0 || g->values[x].rank != g->values[g->nodes[vr].in[0]].rank ||
            (o = lf__rms_divide(g, s, x, dead, &nd)) < 0)
            continue;
        /* optional Cast to float, then * gamma */
        int32_t out = o, gamma = -1, v = g->nodes[o].out[0], r1 = lf__ox_rw_sole_reader(g, v), cast = -1;
        if (r1 >= 0 && lf__ox_rw_is(&g->nodes[r1], "Cast") && lf__ox_attr_int(&g->nodes[r1], "to", 0) == LF__OX_FLOAT) {
            cast = r1;
            r1 = lf__ox_rw_sole_reader(g, g->nodes[cast].out[0]);
            v = g->nodes[cast].out[0];
        }
        if (r1 >= 0 && lf__ox_rw_is(&g->nodes[r1], "Mul") && g->nodes[r1].n_in == 2) {
            int32_t k = g->nodes[r1].in[0] == v ? 1 : 0;
            if (g->nodes[r1].in[1 - k] == v && lf__affine_ok(g, g->nodes[r1].in[k], x)) {
                gamma = g->nodes[r1].in[k];
                out = r1;
            }
        }
        if (out == o)
            cast = -1; /* no gamma: the Cast stays after the norm */
        else
            dead[nd++] = o;
        if (cast >= 0)
            dead[nd++] = cast;
        int had_gamma = gamma >= 0;
        if (gamma < 0 && (gamma = lf__ones_scale(g, x, axis, g->nodes[out].name)) < 0)
            return (lf_status)gamma;
        int32_t in[2] = {x, gamma};
        lf_status st = lf__make_norm(g, out, "RMSNormalization", in, 2, axis, eps);
        if (st != LF_OK)
            return st;
        dead[nd++] = p;
        dead[nd++] = vr;
        dead[nd++] = a;
        dead[nd++] = s;
        for (int32_t q = 0; q < nd; q++)
            g->nodes[dead[q]].dead = 1;
        lf__ox_note(g, LF_ONNX_RMSNORM, out, "RMSNorm written out over axes %d.. (epsilon %g)%s", (int)axis, eps,
                    had_gamma ? "" : ", no scale");
    }
    return LF_OK;
}

lf_status lf__ox_rewrite_tf(lf__ox_graph *g)
{
    lf_status st;
    if (lf__ox_rw_on(g, LF_ONNX_LAYERNORM) && (st = lf__layernorm(g)) != LF_OK)
        return st;
    if (lf__ox_rw_on(g, LF_ONNX_GELU) && (st = lf__gelu(g)) != LF_OK)
        return st;
    if (lf__ox_rw_on(g, LF_ONNX_RMSNORM) && (st = lf__rmsnorm(g)) != LF_OK)
        return st;
    return LF_OK;
}
