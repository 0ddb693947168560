/* Verification examples of the built-in rules: small graphs whose shapes meet
 * each rule's constraints, three per rule (k = 0, 1, 2) with different
 * batch, channels, sizes, strides, kernels and operand orders, so a target
 * that only works for one shape fails. Constants carry values drawn from
 * (k, name) with the executor's distributions (BatchNorm variances positive). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/exec/exec.h"
#include "search/subst/subst_internal.h"

typedef struct lf__ex {
    lf_graph_builder *b;
    int32_t k;
    lf_status st;
} lf__ex;

static const struct { int32_t n, c, h, w, out; } lf__dims[3] = {{1, 4, 6, 6, 5}, {1, 3, 7, 5, 8}, {2, 6, 4, 4, 3}};

static void lf__chk(lf__ex *e, int32_t id)
{
    if (id < 0 && !e->st)
        e->st = (lf_status)id;
}

static void lf__input(lf__ex *e, const char *name, int64_t n, int64_t c, int64_t h, int64_t w)
{
    lf_attrs a;
    memset(&a, 0, sizeof a);
    a.batch = (int32_t)n, a.in_c = (int32_t)c, a.in_h = (int32_t)h, a.in_w = (int32_t)w;
    lf__chk(e, lf_graph_builder_add_op(e->b, LF_OP_INPUT, name, &a, NULL, 0));
}

static void lf__cst(lf__ex *e, const char *name, lf_shape s, lf_value_role role)
{
    int64_t count = s.n * s.c * s.h * s.w;
    float *d = malloc((size_t)count * sizeof *d);
    if (!d) {
        lf__chk(e, LF_ENOMEM);
        return;
    }
    lf_exec_fill(1000u + (uint64_t)e->k, name, role, s.c * s.h * s.w, d, count);
    lf__chk(e, lf_graph_builder_add_const_owned(e->b, name, s, d));
}

static void lf__op(lf__ex *e, lf_op_type t, const char *name, const lf_attrs *a, const char *o0,
                   const char *o1, const char *o2)
{
    const char *o[3] = {o0, o1, o2};
    int32_t n = o2 ? 3 : o1 ? 2 : 1;
    lf__chk(e, lf_graph_builder_add_op(e->b, t, name, a, o, n));
}

/* Conv `name` on x (c_in channels): weights name.w, bias name.b when bias. */
static void lf__conv(lf__ex *e, const char *name, const char *x, int64_t c_in, int64_t c_out,
                     int32_t kh, int32_t kw, int32_t stride, int32_t groups, int bias, lf_act act)
{
    char w[64], b[64];
    snprintf(w, sizeof w, "%s.w", name);
    snprintf(b, sizeof b, "%s.b", name);
    lf_attrs a;
    memset(&a, 0, sizeof a);
    a.out_channels = (int32_t)c_out, a.kh = kh, a.kw = kw, a.sh = a.sw = stride, a.groups = groups;
    a.pad_top = a.pad_bottom = (kh - 1) / 2;
    a.pad_left = a.pad_right = (kw - 1) / 2;
    a.has_bias = bias;
    a.act = act;
    lf__cst(e, w, (lf_shape){c_out, c_in / groups, kh, kw}, LF_VALUE_WEIGHT);
    if (bias)
        lf__cst(e, b, (lf_shape){1, c_out, 1, 1}, LF_VALUE_BIAS);
    lf__op(e, LF_OP_CONV, name, &a, x, w, bias ? b : NULL);
}

static void lf__gemm(lf__ex *e, const char *name, const char *x, int64_t f_in, int64_t f_out, int bias)
{
    char w[64], b[64];
    snprintf(w, sizeof w, "%s.w", name);
    snprintf(b, sizeof b, "%s.b", name);
    lf_attrs a;
    memset(&a, 0, sizeof a);
    a.out_channels = (int32_t)f_out;
    a.has_bias = bias;
    lf__cst(e, w, (lf_shape){f_out, f_in, 1, 1}, LF_VALUE_WEIGHT);
    if (bias)
        lf__cst(e, b, (lf_shape){1, f_out, 1, 1}, LF_VALUE_BIAS);
    lf__op(e, LF_OP_GEMM, name, &a, x, w, bias ? b : NULL);
}

static void lf__act_op(lf__ex *e, const lf__subst_act *d, const char *name, const char *x)
{
    lf_attrs a;
    memset(&a, 0, sizeof a);
    if (d->op == LF_OP_CLIP)
        a.clip_min = 0.0f, a.clip_max = 6.0f;
    lf__op(e, d->op, name, &a, x, NULL, NULL);
}

lf_status lf__ex_conv_act(const lf_subst_rule *r, int32_t k, lf_graph_builder *b)
{
    lf__ex e = {b, k, LF_OK};
    lf__input(&e, "x", lf__dims[k].n, lf__dims[k].c, lf__dims[k].h, lf__dims[k].w);
    lf__conv(&e, "conv", "x", lf__dims[k].c, lf__dims[k].out, k == 1 ? 1 : 3, 3, k == 2 ? 2 : 1, 1,
             k != 2, LF_ACT_NONE);
    lf__act_op(&e, r->data, "act", "conv");
    return e.st;
}

lf_status lf__ex_gemm_act(const lf_subst_rule *r, int32_t k, lf_graph_builder *b)
{
    lf__ex e = {b, k, LF_OK};
    int64_t f = lf__dims[k].c * lf__dims[k].h;
    lf__input(&e, "x", lf__dims[k].n, f, 1, 1);
    lf__gemm(&e, "fc", "x", f, lf__dims[k].out * 2, k != 1);
    lf__act_op(&e, r->data, "act", "fc");
    return e.st;
}

lf_status lf__ex_conv_bn(const lf_subst_rule *r, int32_t k, lf_graph_builder *b)
{
    (void)r;
    lf__ex e = {b, k, LF_OK};
    int64_t o = lf__dims[k].out;
    lf_shape v = {1, o, 1, 1};
    lf__input(&e, "x", lf__dims[k].n, lf__dims[k].c, lf__dims[k].h, lf__dims[k].w);
    lf__conv(&e, "conv", "x", lf__dims[k].c, o, 3, k == 1 ? 1 : 3, 1, 1, k != 1, LF_ACT_NONE);
    lf_attrs a;
    memset(&a, 0, sizeof a);
    lf__cst(&e, "bn.scale", v, LF_VALUE_SCALE);
    lf__cst(&e, "bn.b", v, LF_VALUE_BIAS);
    if (k == 0) { /* the IR's inference form */
        const char *o3[3] = {"conv", "bn.scale", "bn.b"};
        lf__chk(&e, lf_graph_builder_add_op(b, LF_OP_BATCHNORM, "bn", &a, o3, 3));
        return e.st;
    }
    a.epsilon = k == 2 ? 1e-3f : 0.0f;
    lf__cst(&e, "bn.mean", v, LF_VALUE_BIAS);
    lf__cst(&e, "bn.var", v, LF_VALUE_VARIANCE);
    const char *o5[5] = {"conv", "bn.scale", "bn.b", "bn.mean", "bn.var"};
    lf__chk(&e, lf_graph_builder_add_op(b, LF_OP_BATCHNORM, "bn", &a, o5, 5));
    return e.st;
}

lf_status lf__ex_conv_scale(const lf_subst_rule *r, int32_t k, lf_graph_builder *b)
{
    lf__ex e = {b, k, LF_OK};
    int64_t o = lf__dims[k].out;
    lf__input(&e, "x", lf__dims[k].n, lf__dims[k].c, lf__dims[k].h, lf__dims[k].w);
    lf__conv(&e, "conv", "x", lf__dims[k].c, o, 3, 3, k == 1 ? 2 : 1, 1, k != 0, LF_ACT_NONE);
    lf__cst(&e, "y", (lf_shape){1, k == 2 ? 1 : o, 1, 1}, LF_VALUE_SCALE);
    lf_op_type t = (r->nodes[1].types & LF_SUBST_TYPE(LF_OP_MUL)) ? LF_OP_MUL : LF_OP_ADD;
    if (k == 1)
        lf__op(&e, t, "out", NULL, "y", "conv", NULL);
    else
        lf__op(&e, t, "out", NULL, "conv", "y", NULL);
    return e.st;
}

lf_status lf__ex_two_convs(const lf_subst_rule *r, int32_t k, lf_graph_builder *b)
{
    (void)r;
    lf__ex e = {b, k, LF_OK};
    int64_t c = lf__dims[k].c;
    lf__input(&e, "x", lf__dims[k].n, c, lf__dims[k].h, lf__dims[k].w);
    lf_act act = k == 1 ? LF_ACT_RELU : LF_ACT_NONE;
    int32_t s = k == 2 ? 2 : 1;
    /* k 0: one geometry; 1: 1x1 and 3x5 at stride 1; 2: 1x1 and 3x3 at stride 2 */
    lf__conv(&e, "a", "x", c, lf__dims[k].out, k == 0 ? 3 : 1, k == 0 ? 3 : 1, s, 1, k != 2, act);
    lf__conv(&e, "b", "x", c, lf__dims[k].out + 2, 3, k == 1 ? 5 : 3, s, 1, k != 2, act);
    return e.st;
}

lf_status lf__ex_one_conv(const lf_subst_rule *r, int32_t k, lf_graph_builder *b)
{
    (void)r;
    lf__ex e = {b, k, LF_OK};
    int64_t c = lf__dims[k].c;
    lf__input(&e, "x", lf__dims[k].n, c, lf__dims[k].h, lf__dims[k].w);
    lf__conv(&e, "conv", "x", c, lf__dims[k].out, k == 2 ? 3 : 1, k == 1 ? 3 : 1, k == 2 ? 2 : 1, 1,
             k != 1, k == 0 ? LF_ACT_RELU : LF_ACT_NONE);
    return e.st;
}

lf_status lf__ex_concat_convs(const lf_subst_rule *r, int32_t k, lf_graph_builder *b)
{
    (void)r;
    lf__ex e = {b, k, LF_OK};
    int64_t c = lf__dims[k].c;
    lf__input(&e, "x", lf__dims[k].n, c, lf__dims[k].h, lf__dims[k].w);
    lf__conv(&e, "a", "x", c, lf__dims[k].out, k == 1 ? 1 : 3, k == 1 ? 1 : 3, 1, 1, k != 2, LF_ACT_NONE);
    lf__conv(&e, "b", "x", c, lf__dims[k].out + 1, 3, 3, 1, 1, k != 2, LF_ACT_NONE);
    lf_attrs a;
    memset(&a, 0, sizeof a);
    if (k == 1)
        lf__op(&e, LF_OP_CONCAT, "cat", &a, "b", "a", NULL);
    else
        lf__op(&e, LF_OP_CONCAT, "cat", &a, "a", "b", NULL);
    return e.st;
}

lf_status lf__ex_residual(const lf_subst_rule *r, int32_t k, lf_graph_builder *b)
{
    (void)r;
    lf__ex e = {b, k, LF_OK};
    int64_t c = lf__dims[k].c;
    lf__input(&e, "x", lf__dims[k].n, c, lf__dims[k].h, lf__dims[k].w);
    lf__conv(&e, "conv", "x", c, c, 3, k == 1 ? 1 : 3, 1, k == 2 ? (int32_t)c : 1, k != 0, LF_ACT_NONE);
    if (k == 1)
        lf__op(&e, LF_OP_ADD, "sum", NULL, "conv", "x", NULL);
    else
        lf__op(&e, LF_OP_ADD, "sum", NULL, "x", "conv", NULL);
    return e.st;
}

lf_status lf__ex_two_gemms(const lf_subst_rule *r, int32_t k, lf_graph_builder *b)
{
    (void)r;
    lf__ex e = {b, k, LF_OK};
    int64_t f = lf__dims[k].c * lf__dims[k].w;
    lf__input(&e, "x", lf__dims[k].n, f, 1, 1);
    lf__gemm(&e, "fa", "x", f, lf__dims[k].out, k != 2);
    lf__gemm(&e, "fb", "x", f, lf__dims[k].out + 3, k != 2);
    return e.st;
}

lf_status lf__ex_two_matmuls(const lf_subst_rule *r, int32_t k, lf_graph_builder *b)
{
    (void)r;
    lf__ex e = {b, k, LF_OK};
    int64_t t = lf__dims[k].h, d = lf__dims[k].c * 2;
    lf__input(&e, "x", lf__dims[k].n, 1, t, d);
    lf__cst(&e, "B1", (lf_shape){1, 1, d, lf__dims[k].out}, LF_VALUE_WEIGHT);
    lf__cst(&e, "B2", (lf_shape){1, 1, d, lf__dims[k].out + 2}, LF_VALUE_WEIGHT);
    lf__op(&e, LF_OP_MATMUL, "ma", NULL, "x", "B1", NULL);
    lf__op(&e, LF_OP_MATMUL, "mb", NULL, "x", "B2", NULL);
    return e.st;
}
