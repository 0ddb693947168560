/* The op types added for issue 11, each with hand-computed shapes, weights,
 * MACs, row kinds and row windows: ConvTranspose, MatMul (two activations,
 * transposes, a constant B), Transpose, Slice and Concat along any dim,
 * LayerNorm, Softmax and ReduceMean over axes, the element-wise Sub, Div,
 * Pow, Sqrt, Exp, Erf, Tanh, Gelu, Neg, LeakyRelu with broadcasting, Expand,
 * Reshape with N; their names; and the line-buffer windows the cost models
 * derive (UPSAMPLE, FULL, strided Slice along H) against hand counts. */
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "planner/cost/cost.h"
#include "planner/graph.h"
#include "planner/optable.h"
#include "testlib.h"

static lf_shape S(int64_t n, int64_t c, int64_t h, int64_t w) { return (lf_shape){n, c, h, w}; }

#define CHECK_SHAPE(s, N, C, H, W)                                                       \
    do {                                                                                 \
        CHECK_EQ_I64((s).n, N);                                                          \
        CHECK_EQ_I64((s).c, C);                                                          \
        CHECK_EQ_I64((s).h, H);                                                          \
        CHECK_EQ_I64((s).w, W);                                                          \
    } while (0)

static lf_status infer(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n, lf_shape *out)
{
    char err[200] = "";
    lf_status st = lf_op_infer(t, a, in, n, out, err, sizeof err);
    if (st != LF_OK)
        printf("  (expected or not: %s)\n", err);
    return st;
}

/* A one-op graph: an input of shape `x` (and `y` when two_inputs) feeding an
 * op of type t through lf_graph_builder_add_op, with optional constant
 * operands given by shape. */
typedef struct one_op {
    lf_graph *g;
    int32_t v; /* the op's id */
} one_op;

static one_op build_one(lf_op_type t, const lf_attrs *a, lf_shape x, const lf_shape *y,
                        const lf_shape *consts, int32_t n_consts)
{
    one_op r = {NULL, -1};
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "one"));
    if (!b)
        return r;
    lf_attrs ia = {0};
    ia.batch = (int32_t)x.n;
    ia.in_c = (int32_t)x.c;
    ia.in_h = (int32_t)x.h;
    ia.in_w = (int32_t)x.w;
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &ia, NULL, 0);
    const char *names[8] = {"x"};
    int32_t n = 1;
    if (y) {
        lf_attrs ib = {0};
        ib.batch = (int32_t)y->n;
        ib.in_c = (int32_t)y->c;
        ib.in_h = (int32_t)y->h;
        ib.in_w = (int32_t)y->w;
        lf_graph_builder_add(b, LF_OP_INPUT, "y", &ib, NULL, 0);
        names[n++] = "y";
    }
    static const char *cn[] = {"k0", "k1", "k2", "k3"};
    for (int32_t k = 0; k < n_consts; k++) {
        CHECK(lf_graph_builder_add_const(b, cn[k], consts[k], NULL) >= 0);
        names[n++] = cn[k];
    }
    CHECK(lf_graph_builder_add_op(b, t, "op", a, names, n) >= 0);
    lf_status st = lf_graph_builder_build(b, &r.g);
    CHECK_OK(st);
    lf_graph_builder_free(b);
    if (r.g)
        r.v = lf_graph_find(r.g, "op");
    return r;
}

static void check_window(const lf_op *op, int32_t k, int32_t s, int32_t p)
{
    int32_t kk = -1, ss = -1, pp = -1;
    lf_op_row_window(op, &kk, &ss, &pp);
    CHECK_EQ_I64(kk, k);
    CHECK_EQ_I64(ss, s);
    CHECK_EQ_I64(pp, p);
}

static void test_conv_transpose(void)
{
    lf_attrs a = {0};
    a.out_channels = 8;
    a.kh = a.kw = 4;
    a.sh = a.sw = 2;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = 1;
    a.has_bias = 1;
    lf_shape w = S(16, 8, 4, 4), bias = S(1, 8, 1, 1), consts[2] = {w, bias};
    one_op r = build_one(LF_OP_CONVTRANSPOSE, &a, S(1, 16, 8, 8), NULL, consts, 2);
    if (r.g) {
        const lf_op *op = &r.g->ops[r.v];
        /* (8 - 1) * 2 - 1 - 1 + (4 - 1) + 0 + 1 = 16 */
        CHECK_SHAPE(op->out, 1, 8, 16, 16);
        CHECK_EQ_I64(op->weight_elems, 16 * 8 * 4 * 4 + 8);
        CHECK_EQ_I64(op->param_count, 2056);
        /* each of the 16 x 8 x 8 input pixels scatters 8 x 4 x 4 products */
        CHECK_EQ_I64(op->macs, 16LL * 8 * 8 * 8 * 4 * 4);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_UPSAMPLE);
        check_window(op, 4, 2, 1);
        CHECK_EQ_I64(lf_op_weight_block(r.g, r.v), 16 * 4 * 4 + 1);
        lf_graph_free(r.g);
    }
    /* groups 2, output padding 1, dilation 2: W is in x out/g x kh x kw */
    a.groups = 2;
    a.has_bias = 0;
    a.out_pad_h = a.out_pad_w = 1;
    a.dh = a.dw = 2;
    lf_shape out;
    lf_shape in[2] = {S(1, 16, 8, 8), S(16, 4, 4, 4)};
    CHECK_OK(infer(LF_OP_CONVTRANSPOSE, &a, in, 2, &out));
    /* (8 - 1) * 2 - 2 + 2 * 3 + 1 + 1 = 20 */
    CHECK_SHAPE(out, 1, 8, 20, 20);
    CHECK_EQ_I64(lf_op_macs(LF_OP_CONVTRANSPOSE, &a, in, 2, &out), 16LL * 64 * 4 * 16);
    in[1] = S(16, 8, 4, 4); /* the ungrouped weight is wrong here */
    CHECK_EQ_I64(infer(LF_OP_CONVTRANSPOSE, &a, in, 2, &out), LF_EGRAPH);
    a.out_pad_h = 2; /* output padding must stay below stride or dilation */
    CHECK_EQ_I64(infer(LF_OP_CONVTRANSPOSE, &a, in, 1, &out), LF_EGRAPH);
}

static void test_matmul(void)
{
    /* attention scores: 12 heads, 197 tokens, 64 per head */
    lf_attrs a = {0};
    lf_shape q = S(1, 12, 197, 64), kt = S(1, 12, 64, 197);
    one_op r = build_one(LF_OP_MATMUL, &a, q, &kt, NULL, 0);
    if (r.g) {
        const lf_op *op = &r.g->ops[r.v];
        CHECK_SHAPE(op->out, 1, 12, 197, 197);
        CHECK_EQ_I64(op->macs, 12LL * 197 * 197 * 64); /* 29,805,312 */
        CHECK_EQ_I64(op->macs, 29805312);
        CHECK_EQ_I64(op->weight_elems, 0);
        CHECK_EQ_I64(op->n_inputs, 2);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_FULL);
        lf_graph_free(r.g);
    }
    /* transposes: A^T (64 x 197)^T and B^T */
    lf_shape out, in[2] = {S(1, 12, 64, 197), S(1, 12, 197, 64)};
    a.trans_a = 1;
    a.trans_b = 1;
    CHECK_OK(infer(LF_OP_MATMUL, &a, in, 2, &out));
    CHECK_SHAPE(out, 1, 12, 197, 197);
    CHECK_EQ_I64(lf_op_macs(LF_OP_MATMUL, &a, in, 2, &out), 29805312);
    /* batch broadcast over N and C; inner dims must agree */
    a.trans_a = a.trans_b = 0;
    in[0] = S(2, 1, 5, 3);
    in[1] = S(1, 4, 3, 7);
    CHECK_OK(infer(LF_OP_MATMUL, &a, in, 2, &out));
    CHECK_SHAPE(out, 2, 4, 5, 7);
    in[1] = S(1, 4, 4, 7);
    CHECK_EQ_I64(infer(LF_OP_MATMUL, &a, in, 2, &out), LF_EGRAPH);
    in[1] = S(3, 4, 3, 7);
    CHECK_EQ_I64(infer(LF_OP_MATMUL, &a, in, 2, &out), LF_EGRAPH);
    /* one operand is not a MatMul */
    CHECK_EQ_I64(infer(LF_OP_MATMUL, &a, in, 1, &out), LF_EGRAPH);

    /* a constant B: rows stream, the whole B is one weight block */
    lf_shape wb = S(1, 1, 64, 32);
    r = build_one(LF_OP_MATMUL, &a, S(2, 1, 10, 64), NULL, &wb, 1);
    if (r.g) {
        const lf_op *op = &r.g->ops[r.v];
        CHECK_SHAPE(op->out, 2, 1, 10, 32);
        CHECK_EQ_I64(op->weight_elems, 2048);
        CHECK_EQ_I64(op->macs, 2LL * 10 * 32 * 64);
        CHECK_EQ_I64(op->n_inputs, 1);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_WINDOW);
        CHECK_EQ_I64(lf_op_weight_block(r.g, r.v), 64); /* one column of B */
        lf_graph_free(r.g);
    }
}

static void test_transpose(void)
{
    lf_attrs a = {0};
    a.perm[0] = LF_DIM_N;
    a.perm[1] = LF_DIM_H;
    a.perm[2] = LF_DIM_W;
    a.perm[3] = LF_DIM_C; /* NCHW -> NHWC */
    one_op r = build_one(LF_OP_TRANSPOSE, &a, S(1, 3, 4, 5), NULL, NULL, 0);
    if (r.g) {
        CHECK_SHAPE(r.g->ops[r.v].out, 1, 4, 5, 3);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_FULL); /* H moves */
        CHECK_EQ_I64(r.g->ops[r.v].macs, 0);
        lf_graph_free(r.g);
    }
    a.perm[1] = LF_DIM_W;
    a.perm[2] = LF_DIM_H;
    a.perm[3] = LF_DIM_C; /* swaps C and W, H stays */
    r = build_one(LF_OP_TRANSPOSE, &a, S(1, 3, 4, 5), NULL, NULL, 0);
    if (r.g) {
        CHECK_SHAPE(r.g->ops[r.v].out, 1, 5, 4, 3);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_WINDOW);
        lf_graph_free(r.g);
    }
    lf_shape out, x = S(1, 3, 4, 5);
    a.perm[3] = LF_DIM_W; /* W twice */
    CHECK_EQ_I64(infer(LF_OP_TRANSPOSE, &a, &x, 1, &out), LF_EGRAPH);
    lf_attrs zero = {0}; /* no perm given */
    CHECK_EQ_I64(infer(LF_OP_TRANSPOSE, &zero, &x, 1, &out), LF_EGRAPH);
}

static void test_slice_concat(void)
{
    /* Slice along H, rows 2, 5, 8 of 10 */
    lf_attrs a = {0};
    a.axes = LF_AXES(LF_DIM_H);
    a.slice_begin = 2;
    a.slice_end = 9;
    a.slice_step = 3;
    one_op r = build_one(LF_OP_SLICE, &a, S(1, 8, 10, 6), NULL, NULL, 0);
    if (r.g) {
        CHECK_SHAPE(r.g->ops[r.v].out, 1, 8, 3, 6);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_WINDOW);
        check_window(&r.g->ops[r.v], 1, 3, -2); /* output row r reads 3 r + 2 */
        lf_graph_free(r.g);
    }
    lf_shape out, x = S(1, 8, 10, 6);
    a.axes = LF_AXES(LF_DIM_W);
    a.slice_begin = 0;
    a.slice_end = 6;
    a.slice_step = 0;
    CHECK_OK(infer(LF_OP_SLICE, &a, &x, 1, &out));
    CHECK_SHAPE(out, 1, 8, 10, 6);
    a.slice_end = 7;
    CHECK_EQ_I64(infer(LF_OP_SLICE, &a, &x, 1, &out), LF_EGRAPH);
    a.axes = LF_AXES(LF_DIM_W) | LF_AXES(LF_DIM_H); /* one dim only */
    a.slice_end = 2;
    CHECK_EQ_I64(infer(LF_OP_SLICE, &a, &x, 1, &out), LF_EGRAPH);
    /* ONNX Split of 8 channels into 3 + 5 is two channel slices */
    lf_attrs c = {0};
    c.slice_begin = 3;
    c.slice_end = 8;
    CHECK_OK(infer(LF_OP_SLICE, &c, &x, 1, &out));
    CHECK_SHAPE(out, 1, 5, 10, 6);

    /* Concat along H needs the whole maps; along W it is a view */
    lf_attrs h = {0};
    h.axes = LF_AXES(LF_DIM_H);
    lf_shape y = S(1, 4, 2, 5);
    r = build_one(LF_OP_CONCAT, &h, S(1, 4, 3, 5), &y, NULL, 0);
    if (r.g) {
        CHECK_SHAPE(r.g->ops[r.v].out, 1, 4, 5, 5);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_FULL);
        lf_graph_free(r.g);
    }
    lf_attrs w = {0};
    w.axes = LF_AXES(LF_DIM_W);
    y = S(1, 4, 3, 2);
    r = build_one(LF_OP_CONCAT, &w, S(1, 4, 3, 5), &y, NULL, 0);
    if (r.g) {
        CHECK_SHAPE(r.g->ops[r.v].out, 1, 4, 3, 7);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_VIEW);
        lf_graph_free(r.g);
    }
    lf_shape in[2] = {S(1, 4, 3, 5), S(1, 5, 3, 2)};
    CHECK_EQ_I64(infer(LF_OP_CONCAT, &w, in, 2, &out), LF_EGRAPH); /* C differs */
    /* a constant class token concatenated along the tokens (ViT) */
    lf_shape token = S(1, 768, 1, 1);
    r = build_one(LF_OP_CONCAT, &h, S(1, 768, 196, 1), NULL, &token, 1);
    if (r.g) {
        CHECK_SHAPE(r.g->ops[r.v].out, 1, 768, 197, 1);
        CHECK_EQ_I64(r.g->ops[r.v].weight_elems, 768);
        lf_graph_free(r.g);
    }
}

static void test_normalisations(void)
{
    /* LayerNorm over the 768 channels of 197 tokens, with scale and bias */
    lf_attrs a = {0};
    a.has_bias = 1;
    lf_shape sb[2] = {S(1, 768, 1, 1), S(1, 768, 1, 1)};
    one_op r = build_one(LF_OP_LAYERNORM, &a, S(1, 768, 197, 1), NULL, sb, 2);
    if (r.g) {
        const lf_op *op = &r.g->ops[r.v];
        CHECK_SHAPE(op->out, 1, 768, 197, 1);
        CHECK_EQ_I64(op->weight_elems, 1536);
        CHECK_EQ_I64(op->macs, 0);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_WINDOW);
        CHECK_EQ_I64(lf_op_weight_block(r.g, r.v), 1536); /* every token needs all of them */
        lf_graph_free(r.g);
    }
    lf_shape w[4];
    const char *suffix[4];
    lf_shape x = S(1, 768, 197, 1);
    CHECK_EQ_I64(lf_op_implied_consts(LF_OP_LAYERNORM, &a, &x, 1, w, suffix), 2);
    CHECK_SHAPE(w[0], 1, 768, 1, 1);
    CHECK_STR(suffix[1], "bias");
    /* over C and H (LayerNorm2d-like over a whole map): FULL, scale C x H */
    a.axes = LF_AXES(LF_DIM_C) | LF_AXES(LF_DIM_H);
    a.has_bias = 0;
    CHECK_EQ_I64(lf_op_implied_consts(LF_OP_LAYERNORM, &a, &x, 1, w, suffix), 1);
    CHECK_SHAPE(w[0], 1, 768, 197, 1);
    /* a scale that broadcasts (one per channel, ONNX's [768, 1]) is taken;
     * one of 2 rows for 197 is refused */
    lf_shape bcast[2] = {x, S(1, 768, 1, 1)}, wrong[2] = {x, S(1, 768, 2, 1)};
    lf_shape out;
    CHECK_EQ_I64(infer(LF_OP_LAYERNORM, &a, bcast, 2, &out), LF_OK);
    CHECK_EQ_I64(infer(LF_OP_LAYERNORM, &a, wrong, 2, &out), LF_EGRAPH);

    /* Softmax over keys (W) streams query rows; over tokens on H it is FULL */
    lf_attrs s = {0};
    s.axes = LF_AXES(LF_DIM_W);
    r = build_one(LF_OP_SOFTMAX, &s, S(1, 12, 197, 197), NULL, NULL, 0);
    if (r.g) {
        CHECK_SHAPE(r.g->ops[r.v].out, 1, 12, 197, 197);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_WINDOW);
        lf_graph_free(r.g);
    }
    s.axes = LF_AXES(LF_DIM_H);
    r = build_one(LF_OP_SOFTMAX, &s, S(1, 12, 197, 197), NULL, NULL, 0);
    if (r.g) {
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_FULL);
        lf_graph_free(r.g);
    }

    /* ReduceMean over H and W (mnasnet's x.mean([2, 3])) streams like a GAP */
    lf_attrs m = {0};
    m.axes = LF_AXES(LF_DIM_H) | LF_AXES(LF_DIM_W);
    r = build_one(LF_OP_REDUCEMEAN, &m, S(1, 1280, 7, 7), NULL, NULL, 0);
    if (r.g) {
        CHECK_SHAPE(r.g->ops[r.v].out, 1, 1280, 1, 1);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_REDUCTION);
        lf_graph_free(r.g);
    }
    m.axes = 0; /* channels */
    x = S(2, 64, 5, 6);
    CHECK_OK(infer(LF_OP_REDUCEMEAN, &m, &x, 1, &out));
    CHECK_SHAPE(out, 2, 1, 5, 6);
}

static void test_elementwise(void)
{
    /* Sub of a per-channel constant: 64 weights, one per output channel */
    lf_attrs a = {0};
    lf_shape mean = S(1, 64, 1, 1);
    one_op r = build_one(LF_OP_SUB, &a, S(1, 64, 8, 8), NULL, &mean, 1);
    if (r.g) {
        const lf_op *op = &r.g->ops[r.v];
        CHECK_SHAPE(op->out, 1, 64, 8, 8);
        CHECK_EQ_I64(op->weight_elems, 64);
        CHECK_EQ_I64(op->macs, 0);
        CHECK_EQ_I64(lf_op_weight_block(r.g, r.v), 1);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_WINDOW);
        check_window(op, 1, 1, 0);
        lf_graph_free(r.g);
    }
    /* Div by a scalar, Pow by a scalar: the scalar is needed whole */
    lf_shape scalar = S(1, 1, 1, 1);
    const lf_op_type two[] = {LF_OP_DIV, LF_OP_POW};
    for (int i = 0; i < 2; i++) {
        r = build_one(two[i], &a, S(1, 64, 8, 8), NULL, &scalar, 1);
        if (r.g) {
            CHECK_SHAPE(r.g->ops[r.v].out, 1, 64, 8, 8);
            CHECK_EQ_I64(r.g->ops[r.v].weight_elems, 1);
            CHECK_EQ_I64(lf_op_weight_block(r.g, r.v), 1);
            lf_graph_free(r.g);
        }
    }
    /* broadcasting both ways: C x 1 x W with 1 x H x 1 */
    lf_shape out, in[2] = {S(1, 3, 1, 5), S(1, 1, 4, 1)};
    CHECK_OK(infer(LF_OP_SUB, &a, in, 2, &out));
    CHECK_SHAPE(out, 1, 3, 4, 5);
    in[1] = S(1, 2, 4, 1);
    CHECK_EQ_I64(infer(LF_OP_DIV, &a, in, 2, &out), LF_EGRAPH);
    CHECK_EQ_I64(infer(LF_OP_SUB, &a, in, 1, &out), LF_EGRAPH); /* one operand */
    /* unary ops keep the shape and cost nothing */
    const lf_op_type unary[] = {LF_OP_SQRT,  LF_OP_EXP,  LF_OP_ERF,        LF_OP_TANH,
                                LF_OP_GELU,  LF_OP_NEG,  LF_OP_LEAKYRELU,  LF_OP_LOG,
                                LF_OP_ABS,   LF_OP_RECIPROCAL, LF_OP_FLOOR, LF_OP_CEIL,
                                LF_OP_SOFTPLUS, LF_OP_ELU};
    for (size_t i = 0; i < sizeof unary / sizeof unary[0]; i++) {
        r = build_one(unary[i], &a, S(1, 3, 7, 9), NULL, NULL, 0);
        CHECK(r.g != NULL);
        if (r.g) {
            CHECK_SHAPE(r.g->ops[r.v].out, 1, 3, 7, 9);
            CHECK_EQ_I64(r.g->ops[r.v].weight_elems + r.g->ops[r.v].macs, 0);
            CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_WINDOW);
            CHECK(lf_op_info_of(unary[i])->elementwise);
            lf_graph_free(r.g);
        }
    }
}

static void test_more_elementwise(void)
{
    /* Max of three operands broadcasts like Add */
    lf_attrs a = {0};
    lf_shape out, in[3] = {S(1, 3, 4, 5), S(1, 3, 1, 1), S(1, 1, 4, 5)};
    CHECK_OK(infer(LF_OP_MAX, &a, in, 3, &out));
    CHECK_SHAPE(out, 1, 3, 4, 5);
    CHECK_OK(infer(LF_OP_MIN, &a, in, 1, &out)); /* ONNX allows one operand */
    CHECK_SHAPE(out, 1, 3, 4, 5);
    /* PRelu with a per-channel slope: 64 weights, one per channel */
    lf_shape slope = S(1, 64, 1, 1);
    one_op r = build_one(LF_OP_PRELU, &a, S(1, 64, 8, 8), NULL, &slope, 1);
    if (r.g) {
        CHECK_SHAPE(r.g->ops[r.v].out, 1, 64, 8, 8);
        CHECK_EQ_I64(r.g->ops[r.v].weight_elems, 64);
        CHECK_EQ_I64(lf_op_weight_block(r.g, r.v), 1);
        lf_graph_free(r.g);
    }
    in[0] = S(1, 1, 8, 8);
    in[1] = S(1, 64, 1, 1); /* a slope that would grow X */
    CHECK_EQ_I64(infer(LF_OP_PRELU, &a, in, 2, &out), LF_EGRAPH);
    /* LogSoftmax like Softmax; the other reductions like ReduceMean */
    lf_attrs s = {0};
    s.axes = LF_AXES(LF_DIM_H);
    r = build_one(LF_OP_LOGSOFTMAX, &s, S(1, 10, 6, 1), NULL, NULL, 0);
    if (r.g) {
        CHECK_SHAPE(r.g->ops[r.v].out, 1, 10, 6, 1);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_FULL);
        lf_graph_free(r.g);
    }
    const lf_op_type reduce[] = {LF_OP_REDUCESUM,  LF_OP_REDUCEMAX,       LF_OP_REDUCEMIN,
                                 LF_OP_REDUCEPROD, LF_OP_REDUCESUMSQUARE, LF_OP_REDUCEL2};
    for (size_t i = 0; i < sizeof reduce / sizeof reduce[0]; i++) {
        lf_attrs m = {0};
        m.axes = LF_AXES(LF_DIM_H) | LF_AXES(LF_DIM_W);
        r = build_one(reduce[i], &m, S(2, 8, 5, 7), NULL, NULL, 0);
        if (r.g) {
            CHECK_SHAPE(r.g->ops[r.v].out, 2, 8, 1, 1);
            CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_REDUCTION);
            lf_graph_free(r.g);
        }
        m.axes = LF_AXES(LF_DIM_W);
        r = build_one(reduce[i], &m, S(2, 8, 5, 7), NULL, NULL, 0);
        if (r.g) {
            CHECK_SHAPE(r.g->ops[r.v].out, 2, 8, 5, 1);
            CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_WINDOW);
            lf_graph_free(r.g);
        }
    }
    r = build_one(LF_OP_GLOBALMAXPOOL, &a, S(1, 32, 7, 7), NULL, NULL, 0);
    if (r.g) {
        CHECK_SHAPE(r.g->ops[r.v].out, 1, 32, 1, 1);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_REDUCTION);
        lf_graph_free(r.g);
    }
    /* Resize modes: nearest, linear, cubic */
    lf_attrs z = {0};
    z.scale = 2;
    z.linear = 2;
    lf_shape x = S(1, 3, 4, 4);
    CHECK_OK(infer(LF_OP_RESIZE, &z, &x, 1, &out));
    CHECK_SHAPE(out, 1, 3, 8, 8);
    z.linear = 3;
    CHECK_EQ_I64(infer(LF_OP_RESIZE, &z, &x, 1, &out), LF_EGRAPH);
}

static void test_batchnorm_forms(void)
{
    lf_attrs a = {0};
    lf_shape p[4] = {S(1, 16, 1, 1), S(1, 16, 1, 1), S(1, 16, 1, 1), S(1, 16, 1, 1)};
    /* inference form: scale and shift, 2 per channel */
    one_op r = build_one(LF_OP_BATCHNORM, &a, S(1, 16, 5, 5), NULL, p, 2);
    if (r.g) {
        CHECK_EQ_I64(r.g->ops[r.v].weight_elems, 32);
        CHECK_EQ_I64(lf_op_weight_block(r.g, r.v), 2);
        lf_graph_free(r.g);
    }
    /* ONNX's form: scale, B, mean, var */
    r = build_one(LF_OP_BATCHNORM, &a, S(1, 16, 5, 5), NULL, p, 4);
    if (r.g) {
        CHECK_EQ_I64(r.g->ops[r.v].weight_elems, 64);
        CHECK_EQ_I64(lf_op_weight_block(r.g, r.v), 4);
        lf_graph_free(r.g);
    }
    lf_shape out, in[5] = {S(1, 16, 5, 5), p[0], p[1], p[2], S(1, 8, 1, 1)};
    CHECK_EQ_I64(infer(LF_OP_BATCHNORM, &a, in, 5, &out), LF_EGRAPH);
    CHECK_EQ_I64(infer(LF_OP_BATCHNORM, &a, in, 4, &out), LF_EGRAPH);
}

static void test_views(void)
{
    lf_attrs e = {0};
    e.shape_n = 4;
    lf_shape out, x = S(1, 768, 1, 1);
    CHECK_OK(infer(LF_OP_EXPAND, &e, &x, 1, &out));
    CHECK_SHAPE(out, 4, 768, 1, 1);
    e.shape_c = 700;
    CHECK_EQ_I64(infer(LF_OP_EXPAND, &e, &x, 1, &out), LF_EGRAPH);
    /* Reshape can move the batch: 2 x 12 heads x 64 x 197 -> 24 x 64 x 197 x 1 */
    lf_attrs r = {0};
    r.shape_n = 24;
    r.shape_c = 64;
    r.shape_h = 197;
    r.shape_w = 1;
    x = S(2, 12, 64, 197);
    CHECK_OK(infer(LF_OP_RESHAPE, &r, &x, 1, &out));
    CHECK_SHAPE(out, 24, 64, 197, 1);
    r.shape_n = -1;
    CHECK_OK(infer(LF_OP_RESHAPE, &r, &x, 1, &out));
    CHECK_SHAPE(out, 24, 64, 197, 1);
    r.shape_n = 23;
    CHECK_EQ_I64(infer(LF_OP_RESHAPE, &r, &x, 1, &out), LF_EGRAPH);
    /* reflect padding must be smaller than the map */
    lf_attrs p = {0};
    p.pad_mode = LF_PAD_REFLECT;
    p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 3;
    x = S(1, 2, 3, 3);
    CHECK_EQ_I64(infer(LF_OP_PAD, &p, &x, 1, &out), LF_EGRAPH);
    p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 2;
    CHECK_OK(infer(LF_OP_PAD, &p, &x, 1, &out));
    CHECK_SHAPE(out, 1, 2, 7, 7);
}

static void test_channel_shuffle(void)
{
    lf_attrs a = {0};
    a.groups = 2;
    one_op r = build_one(LF_OP_CHANNELSHUFFLE, &a, S(1, 116, 28, 28), NULL, NULL, 0);
    if (r.g) {
        CHECK_SHAPE(r.g->ops[r.v].out, 1, 116, 28, 28);
        CHECK_EQ_I64(lf_op_row_kind(r.g, r.v), LF_ROWS_WINDOW); /* per pixel */
        check_window(&r.g->ops[r.v], 1, 1, 0);
        CHECK_EQ_I64(r.g->ops[r.v].weight_elems + r.g->ops[r.v].macs, 0);
        lf_graph_free(r.g);
    }
    lf_shape out, x = S(1, 116, 28, 28);
    a.groups = 3;
    CHECK_EQ_I64(infer(LF_OP_CHANNELSHUFFLE, &a, &x, 1, &out), LF_EGRAPH);
    a.groups = 0;
    CHECK_EQ_I64(infer(LF_OP_CHANNELSHUFFLE, &a, &x, 1, &out), LF_EGRAPH);
}

static void test_names(void)
{
    const struct {
        const char *name;
        lf_op_type t;
    } names[] = {
        {"Sub", LF_OP_SUB},           {"Div", LF_OP_DIV},
        {"Pow", LF_OP_POW},           {"Sqrt", LF_OP_SQRT},
        {"Exp", LF_OP_EXP},           {"Erf", LF_OP_ERF},
        {"Tanh", LF_OP_TANH},         {"Gelu", LF_OP_GELU},
        {"Neg", LF_OP_NEG},           {"LeakyRelu", LF_OP_LEAKYRELU},
        {"Transpose", LF_OP_TRANSPOSE}, {"LayerNormalization", LF_OP_LAYERNORM},
        {"LayerNorm", LF_OP_LAYERNORM}, {"ReduceMean", LF_OP_REDUCEMEAN},
        {"ConvTranspose", LF_OP_CONVTRANSPOSE}, {"Expand", LF_OP_EXPAND},
        {"MatMul", LF_OP_MATMUL},     {"ChannelShuffle", LF_OP_CHANNELSHUFFLE},
        {"Log", LF_OP_LOG},           {"Abs", LF_OP_ABS},
        {"Reciprocal", LF_OP_RECIPROCAL}, {"Floor", LF_OP_FLOOR},
        {"Ceil", LF_OP_CEIL},         {"Softplus", LF_OP_SOFTPLUS},
        {"Elu", LF_OP_ELU},           {"Max", LF_OP_MAX},
        {"Min", LF_OP_MIN},           {"PRelu", LF_OP_PRELU},
        {"LogSoftmax", LF_OP_LOGSOFTMAX}, {"ReduceSum", LF_OP_REDUCESUM},
        {"ReduceMax", LF_OP_REDUCEMAX}, {"ReduceMin", LF_OP_REDUCEMIN},
        {"ReduceProd", LF_OP_REDUCEPROD}, {"ReduceSumSquare", LF_OP_REDUCESUMSQUARE},
        {"ReduceL2", LF_OP_REDUCEL2}, {"GlobalMaxPool", LF_OP_GLOBALMAXPOOL},
        {"RMSNormalization", LF_OP_RMSNORM}, {"RMSNorm", LF_OP_RMSNORM},
        {"Gather", LF_OP_GATHER},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        CHECK_EQ_I64(lf_op_type_from_name(names[i].name), names[i].t);
    /* every type has a name, and ONNX names are unique */
    for (int t = 0; t < LF_OP_TYPE_COUNT; t++) {
        const lf_op_info *in = lf_op_info_of((lf_op_type)t);
        CHECK(in && in->name && in->min_operands <= in->max_operands);
        CHECK_EQ_I64(lf_op_type_from_name(in->name), t);
        for (int u = 0; u < t && in->onnx_name; u++) {
            const lf_op_info *other = lf_op_info_of((lf_op_type)u);
            CHECK(!other->onnx_name || strcmp(other->onnx_name, in->onnx_name) != 0);
        }
    }
    CHECK(lf_op_info_of(LF_OP_CONV)->weight_operands == 0x6u);
    CHECK(lf_op_info_of(LF_OP_ADD)->weight_operands == 0u);
}

/* ---- the line-buffer windows of the new row kinds -------------------- */

static int64_t group_f_beta(const lf_graph *g, const int32_t *members, int32_t n)
{
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = 1 << 30;
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, "lbdf"));
    if (!cm)
        return -1;
    lf_bitset b;
    CHECK_OK(lf_bitset_init(&b, g->n_ops));
    for (int32_t i = 0; i < n; i++)
        lf_bitset_set(&b, members[i]);
    lf_group_cost c = {0};
    CHECK_OK(lf_cost_eval(cm, &b, &c));
    lf_bitset_destroy(&b);
    lf_cost_model_free(cm);
    return c.f_beta;
}

static void test_row_windows(void)
{
    /* ConvTranspose k 4, s 2, p 1 on 16 x 8 x 8 (1-byte activations and
     * weights): output row r reads input rows ceil((r - 2) / 2) ..
     * floor((r + 1) / 2), i.e. two rows for every r (r = 0 reads rows -1 and
     * 0). F_beta = weights 2056 + 2 input rows x (8 x 16) + 1 staging row of
     * the 16-wide, 8-channel output = 2056 + 256 + 128. */
    lf_attrs a = {0};
    a.out_channels = 8;
    a.kh = a.kw = 4;
    a.sh = a.sw = 2;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = 1;
    a.has_bias = 1;
    lf_shape ws[2] = {S(16, 8, 4, 4), S(1, 8, 1, 1)};
    one_op r = build_one(LF_OP_CONVTRANSPOSE, &a, S(1, 16, 8, 8), NULL, ws, 2);
    if (r.g) {
        CHECK_EQ_I64(group_f_beta(r.g, &r.v, 1), 2056 + 2 * 8 * 16 + 16 * 8);
        lf_graph_free(r.g);
    }
    /* k 3, s 2, p 1, output padding 1 (the usual 2x upsampler): rows
     * ceil((r - 1) / 2) .. floor((r + 1) / 2), at most two; out 16 x 16. */
    a.kh = a.kw = 3;
    a.out_pad_h = a.out_pad_w = 1;
    a.has_bias = 0;
    lf_shape w3 = S(16, 8, 3, 3);
    r = build_one(LF_OP_CONVTRANSPOSE, &a, S(1, 16, 8, 8), NULL, &w3, 1);
    if (r.g) {
        CHECK_SHAPE(r.g->ops[r.v].out, 1, 8, 16, 16);
        CHECK_EQ_I64(group_f_beta(r.g, &r.v, 1), 16 * 8 * 9 + 2 * 8 * 16 + 16 * 8);
        lf_graph_free(r.g);
    }
    /* a product of two 2 x 8 x 8 activations (2 heads, 8 rows of 8): A
     * streams by rows, B is a global-window operand (DESIGN §16); the least
     * footprint runs one head at a time with B streamed one key row at a
     * time: A's row 8 + B's row 8 + the output's staging row 8. */
    lf_attrs m = {0};
    lf_shape y = S(1, 2, 8, 8);
    r = build_one(LF_OP_MATMUL, &m, S(1, 2, 8, 8), &y, NULL, 0);
    if (r.g) {
        CHECK_EQ_I64(group_f_beta(r.g, &r.v, 1), 8 + 8 + 8);
        lf_graph_free(r.g);
    }
    /* a strided Slice along H holds one input row: 8 x 6 in, 8 x 6 out */
    lf_attrs s = {0};
    s.axes = LF_AXES(LF_DIM_H);
    s.slice_begin = 2;
    s.slice_end = 9;
    s.slice_step = 3;
    r = build_one(LF_OP_SLICE, &s, S(1, 8, 10, 6), NULL, NULL, 0);
    if (r.g) {
        CHECK_EQ_I64(group_f_beta(r.g, &r.v, 1), 48 + 48);
        lf_graph_free(r.g);
    }
}

int main(void)
{
    test_conv_transpose();
    test_matmul();
    test_transpose();
    test_slice_concat();
    test_normalisations();
    test_elementwise();
    test_more_elementwise();
    test_batchnorm_forms();
    test_views();
    test_channel_shuffle();
    test_names();
    test_row_windows();
    return lf_test_result();
}
