/* The executor on the IR's op types and attributes: every op type through
 * lf_exec_eval_op against hand-computed values, graphs with constant values
 * (lf_graph_builder_add_const / add_op), folding of constant-only ops with
 * lf_exec_fold, and attention written the way the IR frames it (tokens on H,
 * heads on C) against a naive computation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/exec/exec.h"
#include "planner/optable.h"
#include "planner/util/rng.h"
#include "testlib.h"

static lf_shape S(int64_t n, int64_t c, int64_t h, int64_t w)
{
    lf_shape s = {n, c, h, w};
    return s;
}

static void check_vals(const float *got, const float *want, int n, double tol, const char *what)
{
    lf_test_checks++;
    for (int i = 0; i < n; i++)
        if (!(fabs((double)got[i] - (double)want[i]) <= tol)) {
            lf_test_failures++;
            fprintf(stderr, "%s[%d]: got %.7g, want %.7g\n", what, i, (double)got[i], (double)want[i]);
            return;
        }
}

/* Evaluates op type t with attrs a on operands and checks the output. */
static void eval_case(const char *what, lf_op_type t, const lf_attrs *a, const lf_tensor *x, int n,
                      lf_shape out_shape, const float *want, double tol)
{
    /* The shape the op table infers must be the one the case expects. */
    lf_shape in[8], inferred;
    char err[256];
    for (int i = 0; i < n; i++)
        in[i] = x[i].shape;
    lf_status st = lf_op_infer(t, a, in, n, &inferred, err, sizeof err);
    if (st || memcmp(&inferred, &out_shape, sizeof inferred) != 0) {
        lf_test_failures++;
        fprintf(stderr, "%s: shape inference: %s\n", what, st ? err : "a different shape");
        return;
    }
    int64_t cnt = lf_shape_count(out_shape);
    float *y = malloc(sizeof(float) * (size_t)cnt), *y2 = malloc(sizeof(float) * (size_t)cnt);
    lf_tensor out = {out_shape, y}, out2 = {out_shape, y2};
    CHECK_OK(lf_exec_eval_op(t, a, x, n, &out, 1));
    CHECK_OK(lf_exec_eval_op(t, a, x, n, &out2, 2));
    check_vals(y, want, (int)cnt, tol, what);
    CHECK(memcmp(y, y2, sizeof(float) * (size_t)cnt) == 0);
    free(y);
    free(y2);
}

static void test_elementwise(void)
{
    float x[4] = {-2, -0.5f, 0.5f, 3};
    lf_tensor t[1] = {{S(1, 4, 1, 1), x}};
    lf_attrs a = {0};
    eval_case("hardsigmoid torch", LF_OP_HARDSIGMOID, &a, t, 1, S(1, 4, 1, 1),
              (float[]){1 / 6.0f, 5 / 12.0f, 7 / 12.0f, 1}, 1e-6);
    a.alpha = 0.2f;
    a.beta = 0.5f;
    eval_case("hardsigmoid onnx", LF_OP_HARDSIGMOID, &a, t, 1, S(1, 4, 1, 1), (float[]){0.1f, 0.4f, 0.6f, 1}, 1e-6);
    memset(&a, 0, sizeof a);
    eval_case("leakyrelu default", LF_OP_LEAKYRELU, &a, t, 1, S(1, 4, 1, 1), (float[]){-0.02f, -0.005f, 0.5f, 3}, 1e-7);
    a.alpha = 0.5f;
    eval_case("leakyrelu 0.5", LF_OP_LEAKYRELU, &a, t, 1, S(1, 4, 1, 1), (float[]){-1, -0.25f, 0.5f, 3}, 1e-7);
    memset(&a, 0, sizeof a);
    eval_case("neg", LF_OP_NEG, &a, t, 1, S(1, 4, 1, 1), (float[]){2, 0.5f, -0.5f, -3}, 0);
    eval_case("tanh", LF_OP_TANH, &a, t, 1, S(1, 4, 1, 1),
              (float[]){-0.9640275801f, -0.4621171573f, 0.4621171573f, 0.9950547537f}, 1e-6);
    eval_case("erf", LF_OP_ERF, &a, t, 1, S(1, 4, 1, 1),
              (float[]){-0.995322265f, -0.5204998778f, 0.5204998778f, 0.9999779095f}, 1e-6);
    eval_case("gelu", LF_OP_GELU, &a, t, 1, S(1, 4, 1, 1),
              (float[]){-0.0455002638f, -0.1542687694f, 0.3457312306f, 2.9959502f}, 1e-6);
    a.approximate = 1;
    eval_case("gelu tanh", LF_OP_GELU, &a, t, 1, S(1, 4, 1, 1),
              (float[]){-0.0454022884f, -0.1542859384f, 0.3457140616f, 2.9963627f}, 1e-6);
    memset(&a, 0, sizeof a);
    eval_case("exp", LF_OP_EXP, &a, t, 1, S(1, 4, 1, 1),
              (float[]){0.1353352832f, 0.6065306597f, 1.6487212707f, 20.0855369232f}, 1e-5);
    float p[4] = {1, 4, 9, 0.25f};
    lf_tensor tp[1] = {{S(1, 4, 1, 1), p}};
    eval_case("sqrt", LF_OP_SQRT, &a, tp, 1, S(1, 4, 1, 1), (float[]){1, 2, 3, 0.5f}, 0);

    /* Sub, Div, Pow broadcast a per-channel vector over a plane. */
    float m[6] = {1, 2, 3, 4, 5, 6}, c[2] = {2, 4};
    lf_tensor two[2] = {{S(1, 2, 1, 3), m}, {S(1, 2, 1, 1), c}};
    eval_case("sub", LF_OP_SUB, &a, two, 2, S(1, 2, 1, 3), (float[]){-1, 0, 1, 0, 1, 2}, 0);
    eval_case("div", LF_OP_DIV, &a, two, 2, S(1, 2, 1, 3), (float[]){0.5f, 1, 1.5f, 1, 1.25f, 1.5f}, 0);
    eval_case("pow", LF_OP_POW, &a, two, 2, S(1, 2, 1, 3), (float[]){1, 4, 9, 256, 625, 1296}, 1e-3);
    lf_tensor three[3] = {{S(1, 2, 1, 3), m}, {S(1, 2, 1, 1), c}, {S(1, 1, 1, 3), p}};
    eval_case("add 3", LF_OP_ADD, &a, three, 3, S(1, 2, 1, 3), (float[]){4, 8, 14, 9, 13, 19}, 0);
    eval_case("mul 3", LF_OP_MUL, &a, three, 3, S(1, 2, 1, 3), (float[]){2, 16, 54, 16, 80, 216}, 0);
}

static void test_norm_reduce(void)
{
    /* BatchNorm of the IR: y = x * scale + shift per channel. */
    float x[6] = {1, 2, 3, 4, 5, 6}, sc[2] = {2, -1}, sh[2] = {0.5f, 10};
    lf_tensor bn[3] = {{S(1, 2, 1, 3), x}, {S(1, 2, 1, 1), sc}, {S(1, 2, 1, 1), sh}};
    lf_attrs a = {0};
    eval_case("batchnorm", LF_OP_BATCHNORM, &a, bn, 3, S(1, 2, 1, 3), (float[]){2.5f, 4.5f, 6.5f, 6, 5, 4}, 0);

    /* ONNX's 5-operand form: (x - mean) / sqrt(var + eps) * scale + B. */
    float sc5[2] = {1, 2}, b5[2] = {0, 1}, mu[2] = {2, 5}, var[2] = {1, 4};
    lf_tensor bn5[5] = {{S(1, 2, 1, 3), x}, {S(1, 2, 1, 1), sc5}, {S(1, 2, 1, 1), b5}, {S(1, 2, 1, 1), mu},
                        {S(1, 2, 1, 1), var}};
    a.epsilon = 0.5f;
    float k0 = (float)(1 / sqrt(1.5)), k1 = (float)(2 / sqrt(4.5));
    eval_case("batchnorm 5", LF_OP_BATCHNORM, &a, bn5, 5, S(1, 2, 1, 3), (float[]){-k0, 0, k0, 1 - k1, 1, 1 + k1}, 1e-6);
    a = (lf_attrs){0};

    /* LayerNorm over C of 3 tokens on H (C = 2): each token is (a, b) ->
     * (-1, 1) or (1, -1) times the scale, plus the bias. */
    float tok[6] = {1, 5, 2, 3, 1, 0}; /* C-major: c0 = (1, 5, 2), c1 = (3, 1, 0) */
    float g[2] = {1, 2}, b[2] = {0, 1};
    lf_tensor ln[3] = {{S(1, 2, 3, 1), tok}, {S(1, 2, 1, 1), g}, {S(1, 2, 1, 1), b}};
    a.epsilon = 1e-12f;
    eval_case("layernorm C", LF_OP_LAYERNORM, &a, ln, 3, S(1, 2, 3, 1), (float[]){-1, 1, 1, 3, -1, -1}, 1e-5);

    /* RMSNorm over W of 2 tokens (rows (1, 7) and (3, 4)): mean squares 25
     * and 12.5, eps 0, times the scale (2, -1). */
    float rt[4] = {1, 7, 3, 4}, rg[2] = {2, -1};
    lf_tensor rn[2] = {{S(1, 1, 2, 2), rt}, {S(1, 1, 1, 2), rg}};
    a = (lf_attrs){0};
    a.axes = LF_AXES(LF_DIM_W);
    a.epsilon = 1e-30f;
    const float q = 1.0f / sqrtf(12.5f);
    eval_case("rmsnorm W", LF_OP_RMSNORM, &a, rn, 2, S(1, 1, 2, 2), (float[]){0.4f, -1.4f, 6 * q, -4 * q}, 1e-6);
    /* Scales that broadcast (ONNX's [1], and one per row, [T, 1]): the
     * normalised rows (0.2, 1.4) and (3q, 4q) times 2, then times 10 and -1. */
    float one[1] = {2}, per_row[2] = {10, -1};
    lf_tensor rb[2] = {{S(1, 1, 2, 2), rt}, {S(1, 1, 1, 1), one}};
    eval_case("rmsnorm W, scale [1]", LF_OP_RMSNORM, &a, rb, 2, S(1, 1, 2, 2), (float[]){0.4f, 2.8f, 6 * q, 8 * q}, 1e-6);
    rb[1] = (lf_tensor){S(1, 1, 2, 1), per_row};
    eval_case("rmsnorm W, scale per row", LF_OP_RMSNORM, &a, rb, 2, S(1, 1, 2, 2), (float[]){2, 14, -3 * q, -4 * q},
              1e-6);
    /* LayerNorm over C of the 3 tokens above, scale [1] = 3, bias one per
     * token (0, 1, 2): c0 = (-1, 1, 1) * 3 + bias, c1 = (1, -1, -1) * 3 + bias. */
    float g3[1] = {3}, b3[3] = {0, 1, 2};
    lf_tensor lb[3] = {{S(1, 2, 3, 1), tok}, {S(1, 1, 1, 1), g3}, {S(1, 1, 3, 1), b3}};
    a = (lf_attrs){0};
    a.epsilon = 1e-12f;
    eval_case("layernorm C, broadcast", LF_OP_LAYERNORM, &a, lb, 3, S(1, 2, 3, 1), (float[]){-3, 4, 5, 3, -2, -1}, 1e-5);
    /* A scale that does not broadcast (3 values for 2 tokens) is refused. */
    lf_shape bad[2] = {S(1, 1, 2, 2), S(1, 1, 3, 1)}, o;
    char err[256] = "";
    a.axes = LF_AXES(LF_DIM_W);
    CHECK(lf_op_infer(LF_OP_RMSNORM, &a, bad, 2, &o, err, sizeof err) != LF_OK);
    CHECK(strstr(err, "scale operand is 1x1x3x1, which does not broadcast to the input 1x1x2x2") != NULL);

    /* ReduceMean over H and W equals the global average pool. */
    float im[8] = {1, 2, 3, 4, 10, 20, 30, 40};
    lf_tensor r[1] = {{S(1, 2, 2, 2), im}};
    a = (lf_attrs){0};
    a.axes = LF_AXES(LF_DIM_H) | LF_AXES(LF_DIM_W);
    eval_case("reducemean HW", LF_OP_REDUCEMEAN, &a, r, 1, S(1, 2, 1, 1), (float[]){2.5f, 25}, 0);
    a.axes = 0; /* channels */
    eval_case("reducemean C", LF_OP_REDUCEMEAN, &a, r, 1, S(1, 1, 2, 2), (float[]){5.5f, 11, 16.5f, 22}, 0);
    a.axes = LF_AXES(LF_DIM_W);
    float e1 = (float)(1 / (1 + exp(1.0))), e2 = (float)(1 / (1 + exp(-1.0)));
    float e3 = (float)(1 / (1 + exp(10.0))), e4 = (float)(1 / (1 + exp(-10.0)));
    eval_case("softmax W", LF_OP_SOFTMAX, &a, r, 1, S(1, 2, 2, 2), (float[]){e1, e2, e1, e2, e3, e4, e3, e4}, 1e-6);
}

static void test_layout(void)
{
    float x[12];
    for (int i = 0; i < 12; i++)
        x[i] = (float)i; /* 1 x 1 x 3 x 4 */
    lf_tensor t[1] = {{S(1, 1, 3, 4), x}};
    lf_attrs a = {0};
    a.axes = LF_AXES(LF_DIM_W);
    a.slice_begin = 1;
    a.slice_end = 4;
    a.slice_step = 2;
    eval_case("slice W step 2", LF_OP_SLICE, &a, t, 1, S(1, 1, 3, 2), (float[]){1, 3, 5, 7, 9, 11}, 0);
    a = (lf_attrs){0};
    a.axes = LF_AXES(LF_DIM_H);
    a.slice_begin = 2;
    a.slice_end = 3;
    eval_case("slice H", LF_OP_SLICE, &a, t, 1, S(1, 1, 1, 4), (float[]){8, 9, 10, 11}, 0);
    a = (lf_attrs){0};
    a.perm[0] = 0, a.perm[1] = 3, a.perm[2] = 2, a.perm[3] = 1;
    eval_case("transpose", LF_OP_TRANSPOSE, &a, t, 1, S(1, 4, 3, 1), (float[]){0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}, 0);
    lf_tensor cat[2] = {{S(1, 1, 3, 4), x}, {S(1, 1, 1, 4), x}};
    a = (lf_attrs){0};
    a.axes = LF_AXES(LF_DIM_H);
    eval_case("concat H", LF_OP_CONCAT, &a, cat, 2, S(1, 1, 4, 4),
              (float[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3}, 0);
    a = (lf_attrs){0};
    a.shape_n = 2;
    a.shape_c = 3;
    lf_tensor ex[1] = {{S(1, 1, 1, 2), x + 1}};
    eval_case("expand", LF_OP_EXPAND, &a, ex, 1, S(2, 3, 1, 2), (float[]){1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2}, 0);
    a = (lf_attrs){0};
    a.pad_mode = LF_PAD_REFLECT;
    a.pad_left = 2;
    a.pad_right = 1;
    lf_tensor row[1] = {{S(1, 1, 1, 3), x + 1}}; /* 1 2 3 */
    eval_case("pad reflect", LF_OP_PAD, &a, row, 1, S(1, 1, 1, 6), (float[]){3, 2, 1, 2, 3, 2}, 0);
    a.pad_mode = LF_PAD_CONSTANT;
    a.pad_value = -1;
    a.pad_top = 1;
    eval_case("pad constant", LF_OP_PAD, &a, row, 1, S(1, 1, 2, 6),
              (float[]){-1, -1, -1, -1, -1, -1, -1, -1, 1, 2, 3, -1}, 0);
    a = (lf_attrs){0};
    a.shape_c = 2;
    a.shape_h = 6;
    a.shape_w = 1;
    eval_case("reshape", LF_OP_RESHAPE, &a, t, 1, S(1, 2, 6, 1), x, 0);
    float four[4] = {1, 2, 3, 4};
    lf_tensor q[1] = {{S(1, 1, 2, 2), four}};
    a = (lf_attrs){0};
    a.out_h = 4, a.out_w = 4, a.linear = 1, a.coord_mode = LF_COORD_ALIGN_CORNERS;
    eval_case("resize align", LF_OP_RESIZE, &a, q, 1, S(1, 1, 4, 4),
              (float[]){1, 4 / 3.0f, 5 / 3.0f, 2, 5 / 3.0f, 2, 7 / 3.0f, 8 / 3.0f, 7 / 3.0f, 8 / 3.0f, 3,
                        10 / 3.0f, 3, 10 / 3.0f, 11 / 3.0f, 4}, 1e-6);
    a = (lf_attrs){0};
    a.scale = 2, a.coord_mode = LF_COORD_ASYMMETRIC, a.nearest_mode = LF_NEAREST_FLOOR;
    eval_case("resize nearest torch", LF_OP_RESIZE, &a, q, 1, S(1, 1, 4, 4),
              (float[]){1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, 0);
}

static void test_products(void)
{
    /* MatMul with trans_a: A stored 1 x 1 x K=2 x M=3, B 1 x 1 x 2 x 2. */
    float A[6] = {1, 2, 3, 4, 5, 6}, B[4] = {1, 0, 1, 1};
    lf_tensor mm[2] = {{S(1, 1, 2, 3), A}, {S(1, 1, 2, 2), B}};
    lf_attrs a = {0};
    a.trans_a = 1;
    eval_case("matmul trans_a", LF_OP_MATMUL, &a, mm, 2, S(1, 1, 3, 2), (float[]){5, 4, 7, 5, 9, 6}, 0);
    /* ConvTranspose: 1 -> 2 channels, 2x2 kernel, stride 2, bias. */
    float x[4] = {1, 2, 3, 4}, w[8] = {1, 1, 1, 1, 0, 1, 0, 0}, bias[2] = {0, 0.5f};
    lf_tensor ct[3] = {{S(1, 1, 2, 2), x}, {S(1, 2, 2, 2), w}, {S(1, 2, 1, 1), bias}};
    a = (lf_attrs){0};
    a.out_channels = 2, a.kh = a.kw = 2, a.sh = a.sw = 2, a.has_bias = 1;
    eval_case("convtranspose", LF_OP_CONVTRANSPOSE, &a, ct, 3, S(1, 2, 4, 4),
              (float[]){1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4,
                        0.5f, 1.5f, 0.5f, 2.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 3.5f, 0.5f, 4.5f, 0.5f, 0.5f, 0.5f, 0.5f}, 0);
    /* Gemm of the IR: weight out x K (transB layout), bias, fused relu. */
    float in[3] = {1, 2, 3}, W[6] = {1, 0, 0, 0, -1, 0}, gb[2] = {0.5f, 0.5f};
    lf_tensor gm[3] = {{S(1, 3, 1, 1), in}, {S(2, 3, 1, 1), W}, {S(1, 2, 1, 1), gb}};
    a = (lf_attrs){0};
    a.out_channels = 2, a.has_bias = 1, a.act = LF_ACT_RELU;
    eval_case("gemm", LF_OP_GEMM, &a, gm, 3, S(1, 2, 1, 1), (float[]){1.5f, 0}, 0);
}

/* A graph with constant values: y = relu(conv(x, W) + b) + k, and folding:
 * the constant k is Transpose(c) computed at build time by lf_exec_fold. */
static void test_graph_constants_and_folding(void)
{
    lf_graph_builder *b;
    CHECK_OK(lf_graph_builder_create(&b, "consts"));
    lf_attrs in = {0};
    in.in_c = 1, in.in_h = 2, in.in_w = 2;
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    float W[2] = {2, -1}, bias[2] = {1, 0}, c[4] = {10, 20, 30, 40};
    lf_graph_builder_add_const(b, "W", S(2, 1, 1, 1), W);
    lf_graph_builder_add_const(b, "B", S(1, 2, 1, 1), bias);
    lf_graph_builder_add_const(b, "c", S(1, 1, 2, 2), c);
    lf_attrs conv = {0};
    conv.out_channels = 2, conv.kh = conv.kw = 1, conv.has_bias = 1, conv.act = LF_ACT_RELU;
    const char *cv[] = {"x", "W", "B"}, *tr[] = {"c"}, *ad[] = {"conv", "ct"};
    lf_graph_builder_add_op(b, LF_OP_CONV, "conv", &conv, cv, 3);
    lf_attrs t = {0};
    t.perm[0] = 0, t.perm[1] = 1, t.perm[2] = 3, t.perm[3] = 2;
    lf_graph_builder_add_op(b, LF_OP_TRANSPOSE, "ct", &t, tr, 1);
    lf_graph_builder_add_op(b, LF_OP_ADD, "y", NULL, ad, 2);
    lf_graph_builder_set_folder(b, lf_exec_fold, NULL);
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    if (!g)
        return;
    int32_t k = lf_graph_find_const(g, "ct");
    CHECK(k >= 0);
    if (k >= 0 && g->consts[k].data)
        check_vals(g->consts[k].data, (float[]){10, 30, 20, 40}, 4, 0, "folded transpose");
    lf_exec *ex = NULL;
    lf_exec_options o = {1, 2, 0};
    CHECK_OK(lf_exec_create(&ex, g, &o));
    float x[4] = {1, -2, 3, 0.5f};
    CHECK_OK(lf_exec_set_input(ex, lf_graph_find(g, "x"), x, 4));
    CHECK_OK(lf_exec_run(ex));
    lf_shape s;
    const float *y = lf_exec_output(ex, lf_graph_find(g, "y"), &s);
    CHECK_EQ_I64(lf_shape_count(s), 8);
    /* channel 0: relu(2x + 1) + k; channel 1: relu(-x) + k (k broadcast over C). */
    if (y)
        check_vals(y, (float[]){13, 30, 27, 42, 10, 32, 20, 40}, 8, 0, "graph with constants");
    lf_exec_free(ex);
    lf_graph_free(g);
}

/* An RMSNorm whose scale is one value (ONNX's scale [1]) in a graph: it
 * holds 1 weight, not D (the cost model's weight bytes), and runs. */
static void test_norm_broadcast_graph(void)
{
    lf_graph_builder *b;
    CHECK_OK(lf_graph_builder_create(&b, "rms_broadcast"));
    lf_attrs in = {0};
    in.in_c = 1, in.in_h = 2, in.in_w = 2;
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    float sc[1] = {-2};
    lf_graph_builder_add_const(b, "scale", S(1, 1, 1, 1), sc);
    lf_attrs a = {0};
    a.axes = LF_AXES(LF_DIM_W);
    a.epsilon = 1e-30f;
    const char *ops[] = {"x", "scale"};
    lf_graph_builder_add_op(b, LF_OP_RMSNORM, "norm", &a, ops, 2);
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    if (!g)
        return;
    int32_t v = lf_graph_find(g, "norm");
    CHECK_EQ_I64(g->ops[v].weight_elems, 1);
    lf_exec *ex = NULL;
    lf_exec_options o = {1, 2, 0};
    CHECK_OK(lf_exec_create(&ex, g, &o));
    float x[4] = {1, 7, 3, 4}; /* rows (1, 7), (3, 4): root mean squares 5 and sqrt(12.5) */
    CHECK_OK(lf_exec_set_input(ex, lf_graph_find(g, "x"), x, 4));
    CHECK_OK(lf_exec_run(ex));
    lf_shape s;
    const float *y = lf_exec_output(ex, v, &s);
    const float q = 1.0f / sqrtf(12.5f);
    if (y)
        check_vals(y, (float[]){-0.4f, -2.8f, -6 * q, -8 * q}, 4, 1e-6, "rmsnorm graph, scale [1]");
    lf_exec_free(ex);
    lf_graph_free(g);
}

/* Attention in the IR's frame: Q, K, V are B x D x T x 1 (tokens on H);
 * viewed as B x heads x dh x T, scores = Q_h^T K_h (trans_a), softmax over
 * W, O^T = V_h S^T (trans_b), viewed back. Against a naive loop. */
static void test_attention(void)
{
    enum { D = 8, T = 5, HEADS = 2, DH = D / HEADS };
    lf_graph_builder *b;
    CHECK_OK(lf_graph_builder_create(&b, "attention"));
    lf_attrs in = {0};
    in.in_c = D, in.in_h = T, in.in_w = 1;
    const char *names[3] = {"q", "k", "v"}, *views[3] = {"qh", "kh", "vh"};
    lf_attrs view = {0};
    view.shape_c = HEADS, view.shape_h = DH, view.shape_w = T;
    for (int i = 0; i < 3; i++) {
        lf_graph_builder_add(b, LF_OP_INPUT, names[i], &in, NULL, 0);
        lf_graph_builder_add(b, LF_OP_RESHAPE, views[i], &view, &names[i], 1);
    }
    lf_attrs s = {0};
    s.trans_a = 1;
    const char *sc[] = {"qh", "kh"}, *sm[] = {"s"}, *ov[] = {"vh", "p"}, *back[] = {"o"};
    lf_graph_builder_add_op(b, LF_OP_MATMUL, "s", &s, sc, 2);
    lf_attrs soft = {0};
    soft.axes = LF_AXES(LF_DIM_W);
    lf_graph_builder_add(b, LF_OP_SOFTMAX, "p", &soft, sm, 1);
    lf_attrs o = {0};
    o.trans_b = 1;
    lf_graph_builder_add_op(b, LF_OP_MATMUL, "o", &o, ov, 2);
    lf_attrs flat = {0};
    flat.shape_c = D, flat.shape_h = T, flat.shape_w = 1;
    lf_graph_builder_add(b, LF_OP_RESHAPE, "out", &flat, back, 1);
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    if (!g)
        return;
    lf_exec *ex = NULL;
    lf_exec_options opt = {3, 2, 0};
    CHECK_OK(lf_exec_create(&ex, g, &opt));
    CHECK_OK(lf_exec_run(ex));
    float q[D * T], k[D * T], v[D * T];
    lf_exec_fill(3, "q", LF_VALUE_INPUT, 0, q, D * T);
    lf_exec_fill(3, "k", LF_VALUE_INPUT, 0, k, D * T);
    lf_exec_fill(3, "v", LF_VALUE_INPUT, 0, v, D * T);
    const float *y = lf_exec_output(ex, lf_graph_find(g, "out"), NULL);
    double err = 0;
    for (int h = 0; h < HEADS; h++)
        for (int i = 0; i < T; i++) {
            double sc_[T], mx = -1e300, sum = 0;
            for (int j = 0; j < T; j++) {
                sc_[j] = 0;
                for (int d = 0; d < DH; d++)
                    sc_[j] += (double)q[(h * DH + d) * T + i] * k[(h * DH + d) * T + j];
                mx = fmax(mx, sc_[j]);
            }
            for (int j = 0; j < T; j++)
                sum += (sc_[j] = exp(sc_[j] - mx));
            for (int d = 0; d < DH; d++) {
                double acc = 0;
                for (int j = 0; j < T; j++)
                    acc += sc_[j] / sum * v[(h * DH + d) * T + j];
                if (y)
                    err = fmax(err, fabs(acc - y[(h * DH + d) * T + i]));
            }
        }
    CHECK(y != NULL);
    CHECK(err <= 1e-5);
    lf_exec_free(ex);
    lf_graph_free(g);
}

static void test_more_ops(void)
{
    float x[4] = {-2, -0.5f, 0.5f, 3};
    lf_tensor t[1] = {{S(1, 4, 1, 1), x}};
    lf_attrs a = {0};
    eval_case("elu", LF_OP_ELU, &a, t, 1, S(1, 4, 1, 1), (float[]){-0.8646647168f, -0.3934693403f, 0.5f, 3}, 1e-6);
    eval_case("softplus", LF_OP_SOFTPLUS, &a, t, 1, S(1, 4, 1, 1),
              (float[]){0.1269280110f, 0.4740769842f, 0.9740769842f, 3.0485873516f}, 1e-6);
    eval_case("abs", LF_OP_ABS, &a, t, 1, S(1, 4, 1, 1), (float[]){2, 0.5f, 0.5f, 3}, 0);
    eval_case("reciprocal", LF_OP_RECIPROCAL, &a, t, 1, S(1, 4, 1, 1), (float[]){-0.5f, -2, 2, 1 / 3.0f}, 1e-7);
    eval_case("floor", LF_OP_FLOOR, &a, t, 1, S(1, 4, 1, 1), (float[]){-2, -1, 0, 3}, 0);
    eval_case("ceil", LF_OP_CEIL, &a, t, 1, S(1, 4, 1, 1), (float[]){-2, 0, 1, 3}, 0);
    float pos[2] = {1, 100};
    lf_tensor tp[1] = {{S(1, 2, 1, 1), pos}};
    eval_case("log", LF_OP_LOG, &a, tp, 1, S(1, 2, 1, 1), (float[]){0, 4.605170186f}, 1e-6);
    float sl[4] = {0.1f, 0.2f, 0.3f, 0.4f};
    lf_tensor pr[2] = {{S(1, 4, 1, 1), x}, {S(1, 4, 1, 1), sl}};
    eval_case("prelu", LF_OP_PRELU, &a, pr, 2, S(1, 4, 1, 1), (float[]){-0.2f, -0.1f, 0.5f, 3}, 1e-7);
    float m2[2] = {0, 1};
    lf_tensor mm[3] = {{S(1, 4, 1, 1), x}, {S(1, 1, 1, 1), m2}, {S(1, 1, 1, 1), m2 + 1}};
    eval_case("max 3", LF_OP_MAX, &a, mm, 3, S(1, 4, 1, 1), (float[]){1, 1, 1, 3}, 0);
    eval_case("min 2", LF_OP_MIN, &a, mm, 2, S(1, 4, 1, 1), (float[]){-2, -0.5f, 0, 0}, 0);

    /* ChannelShuffle with 2 groups of 3: output j*2 + i = input i*3 + j. */
    float c6[6] = {0, 1, 2, 3, 4, 5};
    lf_tensor cs[1] = {{S(1, 6, 1, 1), c6}};
    a.groups = 2;
    eval_case("channel shuffle", LF_OP_CHANNELSHUFFLE, &a, cs, 1, S(1, 6, 1, 1), (float[]){0, 3, 1, 4, 2, 5}, 0);
    a = (lf_attrs){0};

    float im[8] = {1, 2, 3, 4, -1, -2, -3, -4};
    lf_tensor r[1] = {{S(1, 2, 2, 2), im}};
    a.axes = LF_AXES(LF_DIM_H) | LF_AXES(LF_DIM_W);
    eval_case("reducesum", LF_OP_REDUCESUM, &a, r, 1, S(1, 2, 1, 1), (float[]){10, -10}, 0);
    eval_case("reducemax", LF_OP_REDUCEMAX, &a, r, 1, S(1, 2, 1, 1), (float[]){4, -1}, 0);
    eval_case("reducemin", LF_OP_REDUCEMIN, &a, r, 1, S(1, 2, 1, 1), (float[]){1, -4}, 0);
    eval_case("reduceprod", LF_OP_REDUCEPROD, &a, r, 1, S(1, 2, 1, 1), (float[]){24, 24}, 0);
    eval_case("reducesumsquare", LF_OP_REDUCESUMSQUARE, &a, r, 1, S(1, 2, 1, 1), (float[]){30, 30}, 0);
    eval_case("reducel2", LF_OP_REDUCEL2, &a, r, 1, S(1, 2, 1, 1), (float[]){5.477225575f, 5.477225575f}, 1e-6);
    a = (lf_attrs){0};
    eval_case("globalmaxpool", LF_OP_GLOBALMAXPOOL, &a, r, 1, S(1, 2, 1, 1), (float[]){4, -1}, 0);
    a.axes = LF_AXES(LF_DIM_W);
    eval_case("logsoftmax", LF_OP_LOGSOFTMAX, &a, r, 1, S(1, 2, 2, 2),
              (float[]){-1.3132616875f, -0.3132616875f, -1.3132616875f, -0.3132616875f, -0.3132616875f,
                        -1.3132616875f, -0.3132616875f, -1.3132616875f}, 1e-6);

    /* Cubic resize: ONNX's resize_upsample_scales_cubic (4x4 ramp 1..16,
     * scale 2, A = -0.75, half_pixel): the first output row. */
    float ramp[16];
    for (int i = 0; i < 16; i++)
        ramp[i] = (float)(i + 1);
    lf_tensor rr[1] = {{S(1, 1, 4, 4), ramp}};
    a = (lf_attrs){0};
    a.linear = 2;
    a.scale = 2;
    lf_shape os = S(1, 1, 8, 8);
    float *y = malloc(sizeof(float) * 64);
    lf_tensor out = {os, y};
    CHECK_OK(lf_exec_eval_op(LF_OP_RESIZE, &a, rr, 1, &out, 1));
    check_vals(y, (float[]){0.47265625f, 0.76953125f, 1.24609375f, 1.875f, 2.28125f, 2.91015625f,
                            3.38671875f, 3.68359375f}, 8, 1e-5, "resize cubic");
    free(y);
}

/* Every op type of the table has a kernel: with one operand and default
 * attributes an op may reject its operands, but never as unsupported. */
static void test_every_type_has_a_kernel(void)
{
    float x[64] = {0}, y[4096];
    lf_tensor t[1] = {{S(1, 4, 4, 4), x}};
    for (int k = 1; k < LF_OP_TYPE_COUNT; k++) {
        lf_attrs a = {0};
        a.groups = 2;
        a.out_channels = 4;
        a.perm[0] = 0, a.perm[1] = 1, a.perm[2] = 2, a.perm[3] = 3;
        a.slice_end = 1;
        a.scale = 2;
        lf_shape os;
        char err[256];
        if (lf_op_infer((lf_op_type)k, &a, &t[0].shape, 1, &os, err, sizeof err) != LF_OK ||
            lf_shape_count(os) > 4096)
            os = t[0].shape;
        lf_tensor out = {os, y};
        lf_status st = lf_exec_eval_op((lf_op_type)k, &a, t, 1, &out, 1);
        if (st == LF_EUNSUPPORTED)
            fprintf(stderr, "%s: %s\n", lf_op_info_of((lf_op_type)k)->name, lf_last_error());
        CHECK(st != LF_EUNSUPPORTED);
    }
}

int main(void)
{
    test_more_ops();
    test_every_type_has_a_kernel();
    test_elementwise();
    test_norm_reduce();
    test_layout();
    test_products();
    test_graph_constants_and_folding();
    test_norm_broadcast_graph();
    test_attention();
    return lf_test_result();
}
