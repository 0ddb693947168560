/* The built-in rule table (DESIGN §11): MetaFlow's eight rules, TASO's
 * built-in instances and OCGGS's conv epilogues, as far as the IR has the ops.
 * TASO registers its rules once per stride and padding; here one rule covers
 * every stride and padding (constraints say what must agree), so its 18
 * instances are the rules conv_relu, conv_bn, conv_mul (and taso_conv_mul, as
 * TASO wrote it) and merge_convs. Weights are computed with ops over
 * constants, which the graph builder folds. */
#include <stdlib.h>
#include <string.h>

#include "search/subst/subst_internal.h"

#define V(k) LF_SUBST_VAR(k)
#define T(t) LF_SUBST_TYPE(t)
#define ACT LF_SUBST_VAR_ACT
#define CST LF_SUBST_VAR_CONST

static int32_t lf__one(int32_t v) { return v ? v : 1; }

/* ---- activation epilogues: Conv/Gemm (act none) -> activation op ---------- */

static int lf__check_act(const lf_graph *g, const lf_subst_match *m, const lf_subst_rule *r)
{
    const lf__subst_act *d = r->data;
    const lf_op *op = &g->ops[m->op[1]];
    if (d->op == LF_OP_CLIP)
        return op->attr.clip_min == 0.0f && op->attr.clip_max == 6.0f;
    if (d->op == LF_OP_HARDSIGMOID) /* the fused act is torch's hardsigmoid */
        return op->attr.alpha == 0.0f && op->attr.beta == 0.0f;
    return 1;
}

static lf_status lf__t_act(lf_subst_tctx *t)
{
    const lf__subst_act *d = lf__subst_t_rule(t)->data;
    const lf_op *p = lf_subst_t_op(t, 0);
    lf_attrs a = p->attr;
    a.act = d->act;
    if (d->act == LF_ACT_RELU6)
        a.clip_min = 0.0f, a.clip_max = 6.0f;
    const char *o[3] = {lf_subst_t_var(t, 0), lf_subst_t_var(t, 1), lf_subst_t_var(t, 2)};
    return lf_subst_t_add(t, p->type, &a, o, o[2] ? 3 : 2, 1, NULL);
}

#define LF__ACT_RULE(nm, origin, prod, opt, summary, data_)                                      \
    {nm, origin, summary, 2, 3,                                                                  \
     {{T(prod), 2, 3, 3, {V(0), V(1), V(2)}, 0, -1}, {T(opt), 1, 1, 1, {0}, 0, -1}},              \
     {ACT, CST, CST}, 1, {{0, LF_SF_ACT, LF_SC_EQ, LF_ACT_NONE, -1}}, 0x2u, 1, lf__check_act,     \
     lf__t_act, prod == LF_OP_CONV ? lf__ex_conv_act : lf__ex_gemm_act, data_}

static const lf__subst_act lf__acts[] = {
    {LF_OP_CONV, LF_OP_RELU, LF_ACT_RELU},           {LF_OP_CONV, LF_OP_CLIP, LF_ACT_RELU6},
    {LF_OP_CONV, LF_OP_SIGMOID, LF_ACT_SIGMOID},     {LF_OP_CONV, LF_OP_HARDSIGMOID, LF_ACT_HARDSIGMOID},
    {LF_OP_CONV, LF_OP_HARDSWISH, LF_ACT_HARDSWISH}, {LF_OP_CONV, LF_OP_SILU, LF_ACT_SILU},
    {LF_OP_GEMM, LF_OP_RELU, LF_ACT_RELU},           {LF_OP_GEMM, LF_OP_CLIP, LF_ACT_RELU6},
    {LF_OP_GEMM, LF_OP_SIGMOID, LF_ACT_SIGMOID},     {LF_OP_GEMM, LF_OP_HARDSIGMOID, LF_ACT_HARDSIGMOID},
    {LF_OP_GEMM, LF_OP_HARDSWISH, LF_ACT_HARDSWISH}, {LF_OP_GEMM, LF_OP_SILU, LF_ACT_SILU},
};

/* ---- helpers for weight arithmetic ---------------------------------------- */

/* A [1, C, 1, 1] per-channel vector as [C, 1, 1, 1], to scale conv output channels. */
static lf_status lf__as_rows(lf_subst_tctx *t, const char *vec, int64_t c, const char **out)
{
    lf_attrs a;
    memset(&a, 0, sizeof a);
    a.shape_n = (int32_t)c;
    a.shape_c = 1;
    return lf_subst_t_add(t, LF_OP_RESHAPE, &a, &vec, 1, -1, out);
}

static lf_status lf__binary(lf_subst_tctx *t, lf_op_type type, const char *x, const char *y,
                            const char **out)
{
    const char *o[2] = {x, y};
    return lf_subst_t_add(t, type, NULL, o, 2, -1, out);
}

static lf_status lf__scalar(lf_subst_tctx *t, float v, const char **out)
{
    float *d = malloc(sizeof *d);
    if (!d)
        return lf_set_error(LF_ENOMEM, "rewrite: out of memory");
    *d = v;
    return lf_subst_t_const(t, (lf_shape){1, 1, 1, 1}, d, out);
}

/* Conv (x, W * s, B * s + t): the conv of node 0 scaled per output channel by
 * s and shifted by t (either may be NULL), replacing node `maps`. */
static lf_status lf__conv_affine(lf_subst_tctx *t, const char *s, int64_t s_c, const char *shift,
                                 int32_t maps)
{
    const lf_op *cv = lf_subst_t_op(t, 0);
    const char *x = lf_subst_t_var(t, 0), *w = lf_subst_t_var(t, 1), *b = lf_subst_t_var(t, 2);
    lf_status st = LF_OK;
    if (s) {
        const char *rows = NULL;
        if (!(st = lf__as_rows(t, s, s_c, &rows)))
            st = lf__binary(t, LF_OP_MUL, w, rows, &w);
        if (!st && b)
            st = lf__binary(t, LF_OP_MUL, b, s, &b);
    }
    if (!st && shift) {
        if (!b) { /* zero bias of the conv's width, so a scalar shift broadcasts to it */
            float *z = calloc((size_t)cv->out.c, sizeof *z);
            st = z ? lf_subst_t_const(t, (lf_shape){1, cv->out.c, 1, 1}, z, &b)
                   : lf_set_error(LF_ENOMEM, "rewrite: out of memory");
        }
        if (!st)
            st = lf__binary(t, LF_OP_ADD, b, shift, &b);
    }
    if (st)
        return st;
    lf_attrs a = cv->attr;
    a.has_bias = b != NULL;
    const char *o[3] = {x, w, b};
    return lf_subst_t_add(t, LF_OP_CONV, &a, o, b ? 3 : 2, maps, NULL);
}

/* ---- conv + BatchNorm ------------------------------------------------------ */

static lf_status lf__t_conv_bn(lf_subst_tctx *t)
{
    const lf_op *bn = lf_subst_t_op(t, 1);
    int64_t c = bn->out.c;
    if (bn->n_operands == 3) /* the IR's inference form: x * scale + shift */
        return lf__conv_affine(t, lf_subst_t_var(t, 3), c, lf_subst_t_var(t, 4), 1);
    /* ONNX's form: s = scale / sqrt(var + eps), shift = B - mean * s, with the
     * model's own epsilon (TASO's fixed epsilon is a known trap). */
    const char *eps = NULL, *s = NULL, *shift = NULL, *tmp = NULL;
    float e = bn->attr.epsilon > 0.0f ? bn->attr.epsilon : 1e-5f;
    lf_status st = lf__scalar(t, e, &eps);
    if (!st)
        st = lf__binary(t, LF_OP_ADD, lf_subst_t_var(t, 6), eps, &tmp);
    if (!st)
        st = lf_subst_t_add(t, LF_OP_SQRT, NULL, &tmp, 1, -1, &tmp);
    if (!st)
        st = lf__binary(t, LF_OP_DIV, lf_subst_t_var(t, 3), tmp, &s);
    if (!st)
        st = lf__binary(t, LF_OP_MUL, lf_subst_t_var(t, 5), s, &tmp);
    if (!st)
        st = lf__binary(t, LF_OP_SUB, lf_subst_t_var(t, 4), tmp, &shift);
    return st ? st : lf__conv_affine(t, s, c, shift, 1);
}

/* ---- conv * constant, conv + constant (OCGGS's conv_mul / conv_add) -------- */

static int lf__check_chan_const(const lf_graph *g, const lf_subst_match *m, const lf_subst_rule *r)
{
    (void)r;
    lf_shape s = g->consts[m->var[3].id].shape;
    int64_t c = g->ops[m->op[0]].out.c;
    return s.n == 1 && s.h == 1 && s.w == 1 && (s.c == 1 || s.c == c);
}

static lf_status lf__t_conv_mul(lf_subst_tctx *t)
{
    return lf__conv_affine(t, lf_subst_t_var(t, 3), lf_subst_t_var_shape(t, 3).c, NULL, 1);
}

static lf_status lf__t_conv_add(lf_subst_tctx *t)
{
    return lf__conv_affine(t, NULL, 0, lf_subst_t_var(t, 3), 1);
}

/* TASO's create_conv_mul as written: the conv keeps its weights. */
static lf_status lf__t_taso_conv_mul(lf_subst_tctx *t)
{
    const lf_op *cv = lf_subst_t_op(t, 0);
    const char *o[3] = {lf_subst_t_var(t, 0), lf_subst_t_var(t, 1), lf_subst_t_var(t, 2)};
    return lf_subst_t_add(t, LF_OP_CONV, &cv->attr, o, o[2] ? 3 : 2, 1, NULL);
}

/* ---- kernels: zero-padding to a larger odd size ------------------------------ */

/* W [o, i, kh, kw] zero-padded to kh2 x kw2, centred (both odd). */
static lf_status lf__enlarge(lf_subst_tctx *t, const char *w, const lf_attrs *a, int32_t kh2,
                             int32_t kw2, const char **out)
{
    int32_t kh = lf__one(a->kh), kw = lf__one(a->kw);
    if (kh == kh2 && kw == kw2) {
        *out = w;
        return LF_OK;
    }
    lf_attrs p;
    memset(&p, 0, sizeof p);
    p.pad_top = p.pad_bottom = (kh2 - kh) / 2;
    p.pad_left = p.pad_right = (kw2 - kw) / 2;
    return lf_subst_t_add(t, LF_OP_PAD, &p, &w, 1, -1, out);
}

static int lf__check_enlarge(const lf_graph *g, const lf_subst_match *m, const lf_subst_rule *r)
{
    (void)r;
    const lf_attrs *a = &g->ops[m->op[0]].attr;
    return !(lf__one(a->kh) == 3 && lf__one(a->kw) == 3);
}

static lf_status lf__t_enlarge(lf_subst_tctx *t)
{
    const lf_op *cv = lf_subst_t_op(t, 0);
    const char *w = NULL;
    lf_status st = lf__enlarge(t, lf_subst_t_var(t, 1), &cv->attr, 3, 3, &w);
    if (st)
        return st;
    lf_attrs a = cv->attr;
    a.kh = a.kw = 3;
    a.pad_top = a.pad_bottom = a.pad_left = a.pad_right = 1;
    const char *o[3] = {lf_subst_t_var(t, 0), w, lf_subst_t_var(t, 2)};
    return lf_subst_t_add(t, LF_OP_CONV, &a, o, o[2] ? 3 : 2, 0, NULL);
}

/* ---- merging two ops that read the same input ------------------------------- */

/* Two convs on one input merge when their outputs line up: the same geometry,
 * or (MetaFlow's rule 5) SAME convs of one stride whose kernels differ,
 * merged at the larger kernel with the smaller one zero-padded. */
static int lf__check_two_convs(const lf_graph *g, const lf_subst_match *m, const lf_subst_rule *r)
{
    (void)r;
    const lf_op *p = &g->ops[m->op[0]], *q = &g->ops[m->op[1]];
    const lf_attrs *a = &p->attr, *b = &q->attr;
    if (lf__one(a->groups) != 1 || lf__one(b->groups) != 1 || a->act != b->act ||
        p->n_operands != q->n_operands || (a->act == LF_ACT_RELU6 && b->act == LF_ACT_RELU6 &&
                                           (a->clip_min != b->clip_min || a->clip_max != b->clip_max)))
        return 0;
    if (p->out.h != q->out.h || p->out.w != q->out.w)
        return 0;
    int same = lf__one(a->kh) == lf__one(b->kh) && lf__one(a->kw) == lf__one(b->kw) &&
               lf__one(a->sh) == lf__one(b->sh) && lf__one(a->sw) == lf__one(b->sw) &&
               lf__one(a->dh) == lf__one(b->dh) && lf__one(a->dw) == lf__one(b->dw) &&
               a->pad_top == b->pad_top && a->pad_left == b->pad_left &&
               a->pad_bottom == b->pad_bottom && a->pad_right == b->pad_right;
    if (same)
        return 1;
    /* SAME convs of one stride: centred kernels see the same output positions */
    if (lf__one(a->sh) != lf__one(b->sh) || lf__one(a->sw) != lf__one(b->sw))
        return 0;
    for (int i = 0; i < 2; i++) {
        int32_t v = m->op[i];
        if (lf_subst_field_of(g, v, LF_SF_SAME_PAD) != 1 || lf_subst_field_of(g, v, LF_SF_DH) != 1 ||
            lf_subst_field_of(g, v, LF_SF_DW) != 1)
            return 0;
    }
    return 1;
}

/* One conv with the weights of nodes n0 and n1 stacked (and enlarged to the
 * larger kernel); *name receives its name. maps: the node it replaces (-1:
 * fresh). */
static lf_status lf__merged_conv(lf_subst_tctx *t, int32_t n0, int32_t n1, int32_t vw0, int32_t vw1,
                                 int32_t vb0, int32_t vb1, int32_t maps, const char **name)
{
    const lf_op *p = lf_subst_t_op(t, n0), *q = lf_subst_t_op(t, n1);
    lf_attrs a = p->attr;
    int32_t kh = lf__one(p->attr.kh) > lf__one(q->attr.kh) ? lf__one(p->attr.kh) : lf__one(q->attr.kh);
    int32_t kw = lf__one(p->attr.kw) > lf__one(q->attr.kw) ? lf__one(p->attr.kw) : lf__one(q->attr.kw);
    const char *w0 = NULL, *w1 = NULL, *w = NULL, *b = NULL;
    lf_status st = lf__enlarge(t, lf_subst_t_var(t, vw0), &p->attr, kh, kw, &w0);
    if (!st)
        st = lf__enlarge(t, lf_subst_t_var(t, vw1), &q->attr, kh, kw, &w1);
    lf_attrs cat;
    memset(&cat, 0, sizeof cat);
    cat.axes = LF_AXES(LF_DIM_N);
    const char *ws[2] = {w0, w1};
    if (!st)
        st = lf_subst_t_add(t, LF_OP_CONCAT, &cat, ws, 2, -1, &w);
    const char *bs[2] = {lf_subst_t_var(t, vb0), lf_subst_t_var(t, vb1)};
    if (!st && bs[0] && bs[1]) {
        cat.axes = 0;
        st = lf_subst_t_add(t, LF_OP_CONCAT, &cat, bs, 2, -1, &b);
    }
    if (st)
        return st;
    if (kh != lf__one(a.kh) || kw != lf__one(a.kw)) { /* SAME padding of the larger kernel */
        a.kh = kh, a.kw = kw;
        a.pad_top = a.pad_bottom = (kh - 1) / 2;
        a.pad_left = a.pad_right = (kw - 1) / 2;
    }
    a.out_channels = (int32_t)(p->out.c + q->out.c);
    a.has_bias = b != NULL;
    const char *o[3] = {lf_subst_t_var(t, 0), w, b};
    return lf_subst_t_add(t, LF_OP_CONV, &a, o, b ? 3 : 2, maps, name);
}

/* Two slices of a merged output along axes (0: channels), replacing nodes 0 and 1. */
static lf_status lf__split2(lf_subst_tctx *t, const char *x, int32_t axes, int64_t c0, int64_t c1)
{
    lf_attrs s;
    memset(&s, 0, sizeof s);
    s.axes = axes;
    s.slice_begin = 0;
    s.slice_end = (int32_t)c0;
    lf_status st = lf_subst_t_add(t, LF_OP_SLICE, &s, &x, 1, 0, NULL);
    s.slice_begin = (int32_t)c0;
    s.slice_end = (int32_t)(c0 + c1);
    return st ? st : lf_subst_t_add(t, LF_OP_SLICE, &s, &x, 1, 1, NULL);
}

static lf_status lf__t_merge_convs(lf_subst_tctx *t)
{
    const char *y = NULL;
    lf_status st = lf__merged_conv(t, 0, 1, 1, 3, 2, 4, -1, &y);
    return st ? st : lf__split2(t, y, 0, lf_subst_t_op(t, 0)->out.c, lf_subst_t_op(t, 1)->out.c);
}

/* Concat(conv_a(x), conv_b(x)) -> one conv writing both halves (the concat
 * disappears; MetaFlow's exclusive concat, where producers write into the
 * concat's buffer, made structural). */
static lf_status lf__t_concat_convs(lf_subst_tctx *t)
{
    const lf_op *cat = lf_subst_t_op(t, 2);
    const lf_graph *g = lf_subst_t_graph(t);
    int first0 = cat->operands[0].id == (int32_t)(lf_subst_t_op(t, 0) - g->ops);
    return first0 ? lf__merged_conv(t, 0, 1, 1, 3, 2, 4, 2, NULL)
                  : lf__merged_conv(t, 1, 0, 3, 1, 4, 2, 2, NULL);
}

static int lf__check_two_gemms(const lf_graph *g, const lf_subst_match *m, const lf_subst_rule *r)
{
    (void)r;
    const lf_op *p = &g->ops[m->op[0]], *q = &g->ops[m->op[1]];
    return p->attr.act == q->attr.act && p->n_operands == q->n_operands &&
           p->attr.clip_min == q->attr.clip_min && p->attr.clip_max == q->attr.clip_max;
}

static lf_status lf__t_merge_gemms(lf_subst_tctx *t)
{
    const lf_op *p = lf_subst_t_op(t, 0), *q = lf_subst_t_op(t, 1);
    lf_attrs cat;
    memset(&cat, 0, sizeof cat);
    cat.axes = LF_AXES(LF_DIM_N);
    const char *ws[2] = {lf_subst_t_var(t, 1), lf_subst_t_var(t, 3)}, *w = NULL, *b = NULL, *y = NULL;
    lf_status st = lf_subst_t_add(t, LF_OP_CONCAT, &cat, ws, 2, -1, &w);
    const char *bs[2] = {lf_subst_t_var(t, 2), lf_subst_t_var(t, 4)};
    if (!st && bs[0] && bs[1]) {
        cat.axes = 0;
        st = lf_subst_t_add(t, LF_OP_CONCAT, &cat, bs, 2, -1, &b);
    }
    lf_attrs a = p->attr;
    a.out_channels = (int32_t)(p->out.c + q->out.c);
    a.has_bias = b != NULL;
    const char *o[3] = {lf_subst_t_var(t, 0), w, b};
    if (!st)
        st = lf_subst_t_add(t, LF_OP_GEMM, &a, o, b ? 3 : 2, -1, &y);
    return st ? st : lf__split2(t, y, 0, p->out.c, q->out.c);
}

/* x B1, x B2 with constant B -> x [B1 | B2] (columns), split along W. */
static lf_status lf__t_merge_matmuls(lf_subst_tctx *t)
{
    const lf_op *p = lf_subst_t_op(t, 0), *q = lf_subst_t_op(t, 1);
    lf_attrs cat;
    memset(&cat, 0, sizeof cat);
    cat.axes = LF_AXES(LF_DIM_W);
    const char *bs[2] = {lf_subst_t_var(t, 1), lf_subst_t_var(t, 2)}, *b = NULL, *y = NULL;
    lf_status st = lf_subst_t_add(t, LF_OP_CONCAT, &cat, bs, 2, -1, &b);
    const char *o[2] = {lf_subst_t_var(t, 0), b};
    if (!st)
        st = lf_subst_t_add(t, LF_OP_MATMUL, &p->attr, o, 2, -1, &y);
    return st ? st : lf__split2(t, y, LF_AXES(LF_DIM_W), p->out.w, q->out.w);
}

/* ---- residual merge: x + conv(x) = conv'(x) with W' = W + I ------------------- */

static lf_status lf__t_residual(lf_subst_tctx *t)
{
    const lf_op *cv = lf_subst_t_op(t, 0);
    lf_shape ws = lf_subst_t_var_shape(t, 1);
    int64_t per = ws.c, n = ws.n * ws.c * ws.h * ws.w;
    float *id = calloc((size_t)n, sizeof *id);
    if (!id)
        return lf_set_error(LF_ENOMEM, "rewrite: out of memory");
    /* Output channel o reads input channel o, which is local index o % per in its group. */
    for (int64_t o = 0; o < ws.n; o++)
        id[((o * ws.c + o % per) * ws.h + ws.h / 2) * ws.w + ws.w / 2] = 1.0f;
    const char *ident = NULL, *w = NULL;
    lf_status st = lf_subst_t_const(t, ws, id, &ident);
    if (!st)
        st = lf__binary(t, LF_OP_ADD, lf_subst_t_var(t, 1), ident, &w);
    if (st)
        return st;
    const char *o[3] = {lf_subst_t_var(t, 0), w, lf_subst_t_var(t, 2)};
    return lf_subst_t_add(t, LF_OP_CONV, &cv->attr, o, o[2] ? 3 : 2, 1, NULL);
}

static int lf__check_residual(const lf_graph *g, const lf_subst_match *m, const lf_subst_rule *r)
{
    (void)r;
    const lf_op *cv = &g->ops[m->op[0]];
    int64_t gr = lf__one(cv->attr.groups);
    return cv->out.c == lf_subst_field_of(g, m->op[0], LF_SF_IN_C) && (gr == 1 || gr == cv->out.c);
}

/* ---- the table --------------------------------------------------------------- */

#define CONV_SRC {T(LF_OP_CONV), 2, 3, 3, {V(0), V(1), V(2)}, 0, -1}
#define CONV2_SRC {T(LF_OP_CONV), 2, 3, 3, {V(0), V(3), V(4)}, 0, 0}

static const lf_subst_rule lf__rules[] = {
    {"conv_bn", "metaflow", "Conv (no act) -> BatchNorm  =>  Conv with the BatchNorm folded into W and B",
     2, 7, {CONV_SRC, {T(LF_OP_BATCHNORM), 3, 5, 5, {0, V(3), V(4), V(5), V(6)}, 0, -1}},
     {ACT, CST, CST, CST, CST, CST, CST}, 1, {{0, LF_SF_ACT, LF_SC_EQ, LF_ACT_NONE, -1}}, 0x2u, 1,
     NULL, lf__t_conv_bn, lf__ex_conv_bn, NULL},
    LF__ACT_RULE("conv_relu", "metaflow", LF_OP_CONV, LF_OP_RELU, "Conv -> Relu  =>  Conv(act relu)", &lf__acts[0]),
    LF__ACT_RULE("conv_relu6", "ocggs", LF_OP_CONV, LF_OP_CLIP, "Conv -> Clip(0,6)  =>  Conv(act relu6)", &lf__acts[1]),
    LF__ACT_RULE("conv_sigmoid", "ocggs", LF_OP_CONV, LF_OP_SIGMOID, "Conv -> Sigmoid  =>  Conv(act sigmoid)", &lf__acts[2]),
    LF__ACT_RULE("conv_hardsigmoid", "ocggs", LF_OP_CONV, LF_OP_HARDSIGMOID, "Conv -> HardSigmoid  =>  Conv(act hardsigmoid)", &lf__acts[3]),
    LF__ACT_RULE("conv_hardswish", "ocggs", LF_OP_CONV, LF_OP_HARDSWISH, "Conv -> HardSwish  =>  Conv(act hardswish)", &lf__acts[4]),
    LF__ACT_RULE("conv_silu", "ocggs", LF_OP_CONV, LF_OP_SILU, "Conv -> SiLU  =>  Conv(act silu)", &lf__acts[5]),
    LF__ACT_RULE("gemm_relu", "metaflow", LF_OP_GEMM, LF_OP_RELU, "Gemm -> Relu  =>  Gemm(act relu)", &lf__acts[6]),
    LF__ACT_RULE("gemm_relu6", "ocggs", LF_OP_GEMM, LF_OP_CLIP, "Gemm -> Clip(0,6)  =>  Gemm(act relu6)", &lf__acts[7]),
    LF__ACT_RULE("gemm_sigmoid", "metaflow", LF_OP_GEMM, LF_OP_SIGMOID, "Gemm -> Sigmoid  =>  Gemm(act sigmoid)", &lf__acts[8]),
    LF__ACT_RULE("gemm_hardsigmoid", "ocggs", LF_OP_GEMM, LF_OP_HARDSIGMOID, "Gemm -> HardSigmoid  =>  Gemm(act hardsigmoid)", &lf__acts[9]),
    LF__ACT_RULE("gemm_hardswish", "ocggs", LF_OP_GEMM, LF_OP_HARDSWISH, "Gemm -> HardSwish  =>  Gemm(act hardswish)", &lf__acts[10]),
    LF__ACT_RULE("gemm_silu", "ocggs", LF_OP_GEMM, LF_OP_SILU, "Gemm -> SiLU  =>  Gemm(act silu)", &lf__acts[11]),
    {"conv_mul", "ocggs", "Conv (no act) -> Mul by a per-channel constant  =>  Conv with W and B scaled",
     2, 4, {CONV_SRC, {T(LF_OP_MUL), 2, 2, 2, {0, V(3)}, 1, -1}}, {ACT, CST, CST, CST}, 1,
     {{0, LF_SF_ACT, LF_SC_EQ, LF_ACT_NONE, -1}}, 0x2u, 1, lf__check_chan_const, lf__t_conv_mul,
     lf__ex_conv_scale, NULL},
    {"taso_conv_mul", "taso", "Conv (no act) -> Mul by a constant  =>  the same Conv (TASO's create_conv_mul as written)",
     2, 4, {CONV_SRC, {T(LF_OP_MUL), 2, 2, 2, {0, V(3)}, 1, -1}}, {ACT, CST, CST, CST}, 1,
     {{0, LF_SF_ACT, LF_SC_EQ, LF_ACT_NONE, -1}}, 0x2u, 1, lf__check_chan_const, lf__t_taso_conv_mul,
     lf__ex_conv_scale, NULL},
    {"conv_add", "ocggs", "Conv (no act) -> Add of a per-channel constant  =>  Conv with it in the bias",
     2, 4, {CONV_SRC, {T(LF_OP_ADD), 2, 2, 2, {0, V(3)}, 1, -1}}, {ACT, CST, CST, CST}, 1,
     {{0, LF_SF_ACT, LF_SC_EQ, LF_ACT_NONE, -1}}, 0x2u, 1, lf__check_chan_const, lf__t_conv_add,
     lf__ex_conv_scale, NULL},
    {"merge_convs", "metaflow", "two Convs reading x  =>  one Conv (stacked, enlarged weights) + two channel Slices",
     2, 5, {CONV_SRC, CONV2_SRC}, {ACT, CST, CST, CST, CST}, 0, {{0}}, 0x3u, 3, lf__check_two_convs,
     lf__t_merge_convs, lf__ex_two_convs, NULL},
    {"enlarge_conv", "metaflow", "Conv with a SAME kernel smaller than 3x3  =>  the Conv at 3x3 (zero-padded kernel)",
     1, 3, {CONV_SRC}, {ACT, CST, CST}, 5,
     {{0, LF_SF_SAME_PAD, LF_SC_EQ, 1, -1}, {0, LF_SF_KH, LF_SC_LE, 3, -1}, {0, LF_SF_KW, LF_SC_LE, 3, -1},
      {0, LF_SF_DH, LF_SC_EQ, 1, -1}, {0, LF_SF_DW, LF_SC_EQ, 1, -1}},
     0x1u, 1, lf__check_enlarge, lf__t_enlarge, lf__ex_one_conv, NULL},
    {"exclusive_concat", "metaflow", "Concat(Conv(x), Conv(x))  =>  one Conv writing both halves",
     3, 5, {CONV_SRC, CONV2_SRC, {T(LF_OP_CONCAT), 2, 2, 2, {0, 1}, 1, -1}}, {ACT, CST, CST, CST, CST}, 1,
     {{2, LF_SF_AXES, LF_SC_EQ, 0, -1}}, 0x4u, 1, lf__check_two_convs, lf__t_concat_convs,
     lf__ex_concat_convs, NULL},
    {"residual_merge", "metaflow", "x + Conv(x) (stride 1, SAME, C_out = C_in, no act)  =>  Conv with W + I",
     2, 3, {CONV_SRC, {T(LF_OP_ADD), 2, 2, 2, {V(0), 0}, 1, -1}}, {ACT, CST, CST}, 5,
     {{0, LF_SF_ACT, LF_SC_EQ, LF_ACT_NONE, -1}, {0, LF_SF_SAME_PAD, LF_SC_EQ, 1, -1},
      {0, LF_SF_SH, LF_SC_EQ, 1, -1}, {0, LF_SF_SW, LF_SC_EQ, 1, -1}, {0, LF_SF_DH, LF_SC_EQ, 1, -1}},
     0x2u, 1, lf__check_residual, lf__t_residual, lf__ex_residual, NULL},
    {"merge_gemms", "metaflow", "two Gemms reading x  =>  one Gemm (stacked weights) + two Slices",
     2, 5, {{T(LF_OP_GEMM), 2, 3, 3, {V(0), V(1), V(2)}, 0, -1}, {T(LF_OP_GEMM), 2, 3, 3, {V(0), V(3), V(4)}, 0, 0}},
     {ACT, CST, CST, CST, CST}, 0, {{0}}, 0x3u, 3, lf__check_two_gemms, lf__t_merge_gemms,
     lf__ex_two_gemms, NULL},
    {"merge_matmuls", "metaflow", "x B1, x B2 (constant B)  =>  x [B1 | B2] + two Slices",
     2, 3, {{T(LF_OP_MATMUL), 2, 2, 2, {V(0), V(1)}, 0, -1}, {T(LF_OP_MATMUL), 2, 2, 2, {V(0), V(2)}, 0, 0}},
     {ACT, CST, CST}, 3,
     {{0, LF_SF_TRANS_B, LF_SC_EQ, 0, -1}, {1, LF_SF_TRANS_B, LF_SC_EQ, 0, -1}, {0, LF_SF_TRANS_A, LF_SC_EQ, 0, 1}},
     0x3u, 3, NULL, lf__t_merge_matmuls, lf__ex_two_matmuls, NULL},
};

const lf_subst_rule *lf_subst_builtin_rules(int32_t *n)
{
    *n = (int32_t)(sizeof lf__rules / sizeof lf__rules[0]);
    return lf__rules;
}
