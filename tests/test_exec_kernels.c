/* Reference kernels of the executor against hand-computed values, ONNX's
 * documented examples, naive loops and identities (grouped conv = per-group
 * convs, ConvTranspose = adjoint of Conv), plus byte-identical results for
 * one and two threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/exec/kernels.h"
#include "planner/util/rng.h"
#include "testlib.h"

static lf__dims D(int64_t n, int64_t c, int64_t h, int64_t w)
{
    lf__dims d = {{n, c, h, w}};
    return d;
}

static float *rnd(lf_rng *r, int64_t n)
{
    float *v = malloc((size_t)n * sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = (float)(2.0 * lf_rng_uniform(r) - 1.0);
    return v;
}

static double max_rel_err(const float *a, const float *b, int64_t n)
{
    double m = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs((double)a[i] - (double)b[i]) / fmax(1.0, fabs((double)b[i]));
        if (!(e <= m))
            m = e;
    }
    return m;
}

static void check_vals(const float *got, const float *want, int n, double tol, const char *what)
{
    for (int i = 0; i < n; i++)
        if (!(fabs((double)got[i] - (double)want[i]) <= tol)) {
            lf_test_failures++;
            fprintf(stderr, "%s[%d]: got %.7g, want %.7g\n", what, i, (double)got[i], (double)want[i]);
        }
    lf_test_checks++;
}

/* ---- convolution ----------------------------------------------------- */

static void naive_conv(const float *x, lf__dims xd, const float *w, const float *b, float *y,
                       lf__dims yd, const lf__conv *p)
{
    int64_t G = p->groups > 0 ? p->groups : 1, Cg = xd.d[1] / G, Mg = yd.d[1] / G;
    for (int64_t n = 0; n < yd.d[0]; n++)
        for (int64_t m = 0; m < yd.d[1]; m++)
            for (int64_t oh = 0; oh < yd.d[2]; oh++)
                for (int64_t ow = 0; ow < yd.d[3]; ow++) {
                    double s = b ? b[m] : 0.0;
                    int64_t g = m / Mg;
                    for (int64_t c = 0; c < Cg; c++)
                        for (int64_t i = 0; i < p->kh; i++)
                            for (int64_t j = 0; j < p->kw; j++) {
                                int64_t ih = oh * p->sh - p->pad_top + i * p->dh;
                                int64_t iw = ow * p->sw - p->pad_left + j * p->dw;
                                if (ih < 0 || ih >= xd.d[2] || iw < 0 || iw >= xd.d[3])
                                    continue;
                                s += (double)w[((m * Cg + c) * p->kh + i) * p->kw + j] *
                                     x[((n * xd.d[1] + g * Cg + c) * xd.d[2] + ih) * xd.d[3] + iw];
                            }
                    y[((n * yd.d[1] + m) * yd.d[2] + oh) * yd.d[3] + ow] = lf__unary_apply1(&p->act, (float)s);
                }
}

static int64_t out_len(int64_t in, int k, int s, int d, int p0, int p1)
{
    return (in + p0 + p1 - (int64_t)d * (k - 1) - 1) / s + 1;
}

static void test_conv_hand(void)
{
    float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[9], y[4];
    for (int i = 0; i < 9; i++)
        w[i] = 1.0f;
    lf__conv p = {2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1, {LF__U_IDENTITY, 0, 0}};
    CHECK_OK(lf__conv2d(x, D(1, 1, 3, 3), w, NULL, y, D(1, 1, 2, 2), &p, 1));
    check_vals(y, (float[]){12, 16, 24, 28}, 4, 0, "conv 2x2");
    /* 3x3 ones, stride 2, pad 1: each output sums the 2x2 corner it covers. */
    lf__conv q = {3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, {LF__U_RELU, 0, 0}};
    float b[1] = {-20.0f};
    CHECK_OK(lf__conv2d(x, D(1, 1, 3, 3), w, b, y, D(1, 1, 2, 2), &q, 2));
    check_vals(y, (float[]){0, 0, 4, 8}, 4, 0, "conv s2 p1 bias relu");
    /* Depthwise path with dilation 2 on 5x5: the 3x3 taps at rows/cols 0,2,4. */
    float x5[25], w3[9] = {1, 0, 0, 0, 0, 0, 0, 0, 1}, y1[1];
    for (int i = 0; i < 25; i++)
        x5[i] = (float)i;
    lf__conv d = {3, 3, 1, 1, 2, 2, 0, 0, 0, 0, 1, {LF__U_IDENTITY, 0, 0}};
    CHECK_OK(lf__conv2d(x5, D(1, 1, 5, 5), w3, NULL, y1, D(1, 1, 1, 1), &d, 1));
    CHECK_NEAR(y1[0], 0 + 24, 0);
}

static void conv_case(lf_rng *r, int64_t N, int64_t C, int64_t H, int64_t W, int64_t M, int k, int s,
                      int dil, int pt, int pl, int pb, int pr, int groups, lf__unary_kind act)
{
    lf__conv p = {k, k, s, s, dil, dil, pt, pl, pb, pr, groups, {act, 0.0f, 6.0f}};
    lf__dims xd = D(N, C, H, W);
    lf__dims yd = D(N, M, out_len(H, k, s, dil, pt, pb), out_len(W, k, s, dil, pl, pr));
    int64_t nw = M * (C / groups) * k * k, ny = lf__dims_count(&yd);
    float *x = rnd(r, lf__dims_count(&xd)), *w = rnd(r, nw), *b = rnd(r, M);
    float *y1 = malloc((size_t)ny * sizeof *y1), *y2 = malloc((size_t)ny * sizeof *y2);
    float *ref = malloc((size_t)ny * sizeof *ref);
    naive_conv(x, xd, w, b, ref, yd, &p);
    CHECK_OK(lf__conv2d(x, xd, w, b, y1, yd, &p, 1));
    CHECK_OK(lf__conv2d(x, xd, w, b, y2, yd, &p, 2));
    double e = max_rel_err(y1, ref, ny);
    if (!(e <= 1e-5))
        fprintf(stderr, "conv %lldx%lldx%lldx%lld M=%lld k=%d s=%d d=%d g=%d: error %g\n", (long long)N,
                (long long)C, (long long)H, (long long)W, (long long)M, k, s, dil, groups, e);
    CHECK(e <= 1e-5);
    CHECK(memcmp(y1, y2, (size_t)ny * sizeof *y1) == 0);
    free(x), free(w), free(b), free(y1), free(y2), free(ref);
}

static void test_conv_vs_naive(void)
{
    lf_rng r;
    lf_rng_seed(&r, 11, 0);
    conv_case(&r, 1, 3, 17, 19, 8, 3, 1, 1, 1, 1, 1, 1, 1, LF__U_IDENTITY);
    conv_case(&r, 2, 8, 12, 10, 12, 3, 2, 1, 1, 0, 2, 1, 1, LF__U_RELU);       /* asymmetric pads */
    conv_case(&r, 1, 6, 11, 11, 9, 3, 1, 2, 2, 2, 2, 2, 3, LF__U_CLIP);        /* dilated, grouped */
    conv_case(&r, 1, 16, 9, 9, 16, 3, 1, 1, 1, 1, 1, 1, 16, LF__U_HARDSWISH);  /* depthwise */
    conv_case(&r, 1, 4, 9, 9, 8, 5, 2, 1, 2, 2, 2, 2, 4, LF__U_SILU);          /* multiplier 2 */
    conv_case(&r, 1, 300, 20, 20, 70, 1, 1, 1, 0, 0, 0, 0, 1, LF__U_IDENTITY); /* 1x1: no im2col */
    conv_case(&r, 1, 40, 23, 23, 37, 3, 1, 1, 1, 1, 1, 1, 1, LF__U_SIGMOID);   /* K > block, edges */
    conv_case(&r, 1, 3, 30, 30, 5, 7, 2, 1, 3, 3, 3, 3, 1, LF__U_RELU);        /* stem-like */
}

/* A grouped conv equals the per-group convs, concatenated over channels. */
static void test_grouped_equals_split(void)
{
    lf_rng r;
    lf_rng_seed(&r, 12, 0);
    int64_t C = 6, M = 9, G = 3, H = 8, W = 7;
    lf__conv p = {3, 3, 1, 1, 1, 1, 1, 1, 1, 1, (int)G, {LF__U_IDENTITY, 0, 0}};
    float *x = rnd(&r, C * H * W), *w = rnd(&r, M * (C / G) * 9), *y = malloc(sizeof(float) * M * H * W);
    CHECK_OK(lf__conv2d(x, D(1, C, H, W), w, NULL, y, D(1, M, H, W), &p, 2));
    lf__conv q = p;
    q.groups = 1;
    float part[3 * 8 * 7];
    int same = 1;
    for (int64_t g = 0; g < G; g++) {
        CHECK_OK(lf__conv2d(x + g * (C / G) * H * W, D(1, C / G, H, W), w + g * (M / G) * (C / G) * 9,
                            NULL, part, D(1, M / G, H, W), &q, 1));
        same &= memcmp(part, y + g * (M / G) * H * W, sizeof part) == 0;
    }
    CHECK(same);
    free(x), free(w), free(y);
}

/* <conv(x, w), v> = <x, convT(v, w)>: ConvTranspose is Conv's adjoint. */
static void test_conv_transpose(void)
{
    float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 1, 1}, y[16];
    lf__conv p = {2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1, {LF__U_IDENTITY, 0, 0}};
    CHECK_OK(lf__conv_transpose2d(x, D(1, 1, 2, 2), w, NULL, y, D(1, 1, 3, 3), &p, 1));
    check_vals(y, (float[]){1, 3, 2, 4, 10, 6, 3, 7, 4}, 9, 0, "convT 2x2");
    lf__conv s2 = {2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1, {LF__U_IDENTITY, 0, 0}};
    float b[1] = {0.5f};
    CHECK_OK(lf__conv_transpose2d(x, D(1, 1, 2, 2), w, b, y, D(1, 1, 4, 4), &s2, 1));
    check_vals(y, (float[]){1.5f, 1.5f, 2.5f, 2.5f, 1.5f, 1.5f, 2.5f, 2.5f, 3.5f, 3.5f, 4.5f, 4.5f,
                            3.5f, 3.5f, 4.5f, 4.5f}, 16, 0, "convT s2 bias");

    lf_rng r;
    lf_rng_seed(&r, 13, 0);
    int64_t C = 4, M = 6, H = 9, W = 8, G = 2;
    lf__conv c = {3, 3, 2, 2, 2, 1, 2, 1, 1, 2, (int)G, {LF__U_IDENTITY, 0, 0}};
    int64_t OH = out_len(H, 3, 2, 2, 2, 1), OW = out_len(W, 3, 2, 1, 1, 2);
    /* Conv: C -> M with weights M x C/G; its adjoint maps M -> C with the
     * same weights read as M x C/G = (in of convT) x (out/G of convT). */
    float *xx = rnd(&r, C * H * W), *ww = rnd(&r, M * (C / G) * 9), *v = rnd(&r, M * OH * OW);
    float *cy = malloc(sizeof(float) * M * OH * OW), *tx = malloc(sizeof(float) * C * H * W);
    CHECK_OK(lf__conv2d(xx, D(1, C, H, W), ww, NULL, cy, D(1, M, OH, OW), &c, 1));
    CHECK_OK(lf__conv_transpose2d(v, D(1, M, OH, OW), ww, NULL, tx, D(1, C, H, W), &c, 2));
    double lhs = 0, rhs = 0;
    for (int64_t i = 0; i < M * OH * OW; i++)
        lhs += (double)cy[i] * v[i];
    for (int64_t i = 0; i < C * H * W; i++)
        rhs += (double)xx[i] * tx[i];
    CHECK_NEAR(lhs, rhs, 1e-4 * fmax(1.0, fabs(rhs)));
    free(xx), free(ww), free(v), free(cy), free(tx);
}

/* ---- matrix products ---------------------------------------------------- */

static void test_sgemm(void)
{
    lf_rng r;
    lf_rng_seed(&r, 14, 0);
    int64_t M = 70, N = 301, K = 530;
    float *A = rnd(&r, M * K), *B = rnd(&r, K * N), *C1 = rnd(&r, M * N);
    float *C2 = malloc(sizeof(float) * M * N), *ref = malloc(sizeof(float) * M * N);
    memcpy(C2, C1, sizeof(float) * M * N);
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double s = C1[i * N + j];
            for (int64_t k = 0; k < K; k++)
                s += (double)A[i * K + k] * B[k * N + j];
            ref[i * N + j] = (float)s;
        }
    lf__sgemm(M, N, K, A, K, B, N, C1, N, 1, 1);
    lf__sgemm(M, N, K, A, K, B, N, C2, N, 1, 2);
    CHECK(max_rel_err(C1, ref, M * N) <= 1e-4);
    CHECK(memcmp(C1, C2, sizeof(float) * M * N) == 0);
    free(A), free(B), free(C1), free(C2), free(ref);
}

static void test_gemm_onnx(void)
{
    float A[4] = {1, 2, 3, 4}, B[4] = {5, 6, 7, 8}, C[2] = {1, -1}, Y[4];
    CHECK_OK(lf__gemm(A, 0, B, 0, NULL, 0, 0, 1.0f, 0.0f, 2, 2, 2, NULL, Y, 1));
    check_vals(Y, (float[]){19, 22, 43, 50}, 4, 0, "gemm");
    /* alpha 0.5, beta 2, C a row vector, both transposed: A^T B^T = (BA)^T. */
    CHECK_OK(lf__gemm(A, 1, B, 1, C, 1, 2, 0.5f, 2.0f, 2, 2, 2, NULL, Y, 1));
    check_vals(Y, (float[]){0.5f * 23 + 2, 0.5f * 31 - 2, 0.5f * 34 + 2, 0.5f * 46 - 2}, 4, 0, "gemm tt");
    /* C as a column (M x 1) with a fused relu. */
    lf__unary relu = {LF__U_RELU, 0, 0};
    float Cc[2] = {-30, -100};
    CHECK_OK(lf__gemm(A, 0, B, 0, Cc, 2, 1, 1.0f, 1.0f, 2, 2, 2, &relu, Y, 1));
    check_vals(Y, (float[]){0, 0, 0, 0}, 4, 0, "gemm C col relu");
    Cc[0] = -20;
    Cc[1] = -45;
    CHECK_OK(lf__gemm(A, 0, B, 0, Cc, 2, 1, 1.0f, 1.0f, 2, 2, 2, &relu, Y, 1));
    check_vals(Y, (float[]){0, 2, 0, 5}, 4, 0, "gemm C col relu 2");
}

static void test_matmul_batched(void)
{
    lf_rng r;
    lf_rng_seed(&r, 15, 0);
    /* A: 2 x 3 x 5 x 4 (stored transposed: 4 x 5), B: 1 x 3 x 4 x 6 (stored 6 x 4). */
    lf__dims ad = D(2, 3, 4, 5), bd = D(1, 3, 6, 4), yd = D(2, 3, 5, 6);
    float *A = rnd(&r, 120), *B = rnd(&r, 72), *Y = malloc(sizeof(float) * 180), *Y2 = malloc(sizeof(float) * 180);
    CHECK_OK(lf__matmul(A, ad, 1, B, bd, 1, Y, yd, 1));
    CHECK_OK(lf__matmul(A, ad, 1, B, bd, 1, Y2, yd, 2));
    double err = 0;
    for (int n = 0; n < 2; n++)
        for (int c = 0; c < 3; c++)
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 6; j++) {
                    double s = 0;
                    for (int k = 0; k < 4; k++)
                        s += (double)A[((n * 3 + c) * 4 + k) * 5 + i] * B[(c * 6 + j) * 4 + k];
                    err = fmax(err, fabs(s - Y[((n * 3 + c) * 5 + i) * 6 + j]));
                }
    CHECK(err <= 1e-5);
    CHECK(memcmp(Y, Y2, sizeof(float) * 180) == 0);
    CHECK(lf__matmul(A, ad, 0, B, bd, 1, Y, yd, 1) == LF_EGRAPH);
    free(A), free(B), free(Y), free(Y2);
}

/* ---- element-wise --------------------------------------------------- */

static void test_unary(void)
{
    struct {
        lf__unary u;
        float x, want;
    } cases[] = {
        {{LF__U_RELU, 0, 0}, -2.0f, 0.0f},
        {{LF__U_CLIP, 0, 6}, 7.5f, 6.0f},
        {{LF__U_SIGMOID, 0, 0}, 1.0f, 0.7310585786f},
        {{LF__U_SIGMOID, 0, 0}, -100.0f, 3.720076e-44f},
        {{LF__U_HARDSIGMOID, 0.2f, 0.5f}, 1.0f, 0.7f},
        {{LF__U_HARDSWISH, 0, 0}, 1.0f, 0.6666667f},
        {{LF__U_HARDSWISH, 0, 0}, -4.0f, 0.0f},
        {{LF__U_SILU, 0, 0}, 1.0f, 0.7310585786f},
        {{LF__U_TANH, 0, 0}, 0.5f, 0.4621171573f},
        {{LF__U_ERF, 0, 0}, 0.5f, 0.5204998778f},
        {{LF__U_GELU, 0, 0}, 1.0f, 0.8413447461f},
        {{LF__U_GELU_TANH, 0, 0}, 1.0f, 0.8411919906f},
        {{LF__U_EXP, 0, 0}, 1.0f, 2.7182818285f},
        {{LF__U_SQRT, 0, 0}, 2.0f, 1.4142135624f},
        {{LF__U_LEAKYRELU, 0.1f, 0}, -3.0f, -0.3f},
        {{LF__U_ELU, 2.0f, 0}, -1.0f, -1.2642411177f},
        {{LF__U_SOFTPLUS, 0, 0}, 0.0f, 0.6931471806f},
        {{LF__U_RECIPROCAL, 0, 0}, 4.0f, 0.25f},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float got = lf__unary_apply1(&cases[i].u, cases[i].x);
        if (!(fabsf(got - cases[i].want) <= 1e-6f * fmaxf(1.0f, fabsf(cases[i].want)))) {
            lf_test_failures++;
            fprintf(stderr, "unary case %zu: %.9g vs %.9g\n", i, (double)got, (double)cases[i].want);
        }
        lf_test_checks++;
    }
    lf__unary r6 = lf__unary_of_act(LF_ACT_RELU6, 0, 0);
    CHECK_NEAR(lf__unary_apply1(&r6, 9.0f), 6.0f, 0);
    lf__unary hs = lf__unary_of_act(LF_ACT_HARDSIGMOID, 0, 0);
    CHECK_NEAR(lf__unary_apply1(&hs, 1.5f), 0.75f, 1e-7);
}

static void test_binary_broadcast(void)
{
    float a[6] = {1, 2, 3, 4, 5, 6}; /* 1 x 2 x 1 x 3 */
    float c[2] = {10, 20};           /* 1 x 2 x 1 x 1 */
    float w[3] = {1, 2, 4};          /* 1 x 1 x 1 x 3 */
    float y[6];
    CHECK_OK(lf__binary(LF__B_ADD, a, D(1, 2, 1, 3), c, D(1, 2, 1, 1), y, D(1, 2, 1, 3), 1));
    check_vals(y, (float[]){11, 12, 13, 24, 25, 26}, 6, 0, "add per-channel");
    CHECK_OK(lf__binary(LF__B_DIV, a, D(1, 2, 1, 3), w, D(1, 1, 1, 3), y, D(1, 2, 1, 3), 1));
    check_vals(y, (float[]){1, 1, 0.75f, 4, 2.5f, 1.5f}, 6, 0, "div row");
    CHECK_OK(lf__binary(LF__B_SUB, c, D(1, 2, 1, 1), w, D(1, 1, 1, 3), y, D(1, 2, 1, 3), 1));
    check_vals(y, (float[]){9, 8, 6, 19, 18, 16}, 6, 0, "sub outer");
    CHECK_OK(lf__binary(LF__B_POW, a, D(1, 2, 1, 3), w, D(1, 1, 1, 3), y, D(1, 2, 1, 3), 1));
    check_vals(y, (float[]){1, 4, 81, 4, 25, 1296}, 6, 0, "pow");
    CHECK_OK(lf__binary(LF__B_MUL, a, D(1, 2, 1, 3), a, D(1, 2, 1, 3), a, D(1, 2, 1, 3), 1));
    check_vals(a, (float[]){1, 4, 9, 16, 25, 36}, 6, 0, "mul in place");
    CHECK(lf__binary(LF__B_ADD, a, D(1, 2, 1, 3), w, D(1, 1, 1, 2), y, D(1, 2, 1, 3), 1) == LF_EGRAPH);
    float e[12];
    CHECK_OK(lf__binary(LF__B_FIRST, w, D(1, 1, 1, 3), w, D(1, 1, 1, 3), e, D(2, 2, 1, 3), 1));
    check_vals(e, (float[]){1, 2, 4, 1, 2, 4, 1, 2, 4, 1, 2, 4}, 12, 0, "expand");
    CHECK_OK(lf__binary(LF__B_MAX, c, D(1, 2, 1, 1), w, D(1, 1, 1, 3), y, D(1, 2, 1, 3), 1));
    check_vals(y, (float[]){10, 10, 10, 20, 20, 20}, 6, 0, "max");
    CHECK_OK(lf__binary(LF__B_PRELU, (float[]){-2, 3}, D(1, 1, 1, 2), (float[]){0.5f}, D(1, 1, 1, 1), y, D(1, 1, 1, 2), 1));
    check_vals(y, (float[]){-1, 3}, 2, 0, "prelu");
}

/* ---- normalisation, pooling, reductions ---------------------------- */

static void test_norms(void)
{
    float x[8] = {1, 2, 3, 4, 2, 2, 2, 2}, y[8];
    float sc[1] = {2}, bi[1] = {1}, mu[1] = {2.5f}, var[1] = {1.25f};
    lf__batchnorm(x, D(1, 1, 2, 4), sc, bi, mu, var, 0.0f, y, 1);
    CHECK_NEAR(y[0], (1 - 2.5) / sqrt(1.25) * 2 + 1, 1e-6);
    CHECK_NEAR(y[4], (2 - 2.5) / sqrt(1.25) * 2 + 1, 1e-6);
    /* LayerNorm over the last axis: rows [1 2 3 4] and a constant row. */
    float g[4] = {1, 1, 2, 2}, b[4] = {0, 0, 0, 1};
    CHECK_OK(lf__layernorm(x, D(1, 1, 2, 4), 1u << 3, 1e-5f, g, D(1, 1, 1, 4), b, D(1, 1, 1, 4), y, 1));
    double s = 1.0 / sqrt(1.25 + 1e-5);
    check_vals(y, (float[]){(float)(-1.5 * s), (float)(-0.5 * s), (float)(1.0 * s), (float)(3.0 * s + 1), 0, 0, 0, 1},
               8, 1e-6, "layernorm");
    CHECK_OK(lf__layernorm(x, D(1, 1, 2, 4), (1u << 2) | (1u << 3), 0.0f, NULL, D(1, 1, 1, 1), NULL, D(1, 1, 1, 1), y, 1));
    /* Tokens in the IR's layout (C = width, H = tokens): normalise over C
     * for each token, the axes outside the mask being H. */
    float tok[6] = {1, 10, 2, 20, 3, 30}, ty[6];
    CHECK_OK(lf__layernorm(tok, D(1, 3, 2, 1), 1u << 1, 0.0f, NULL, D(1, 1, 1, 1), NULL, D(1, 1, 1, 1), ty, 2));
    float r = (float)sqrt(1.5);
    check_vals(ty, (float[]){-r, -r, 0, 0, r, r}, 6, 1e-6, "layernorm over C");
    CHECK_OK(lf__softmax(tok, D(1, 3, 2, 1), 1u << 1, 0, 0, ty, 1));
    CHECK_NEAR(ty[0] + ty[2] + ty[4], 1.0, 1e-6);
    CHECK_NEAR(ty[1] + ty[3] + ty[5], 1.0, 1e-6);
    CHECK_NEAR(ty[5], 1.0 / (1.0 + exp(-10.0) + exp(-20.0)), 1e-6);
    double m = 2.25, v = 0;
    for (int i = 0; i < 8; i++)
        v += (x[i] - m) * (x[i] - m) / 8;
    CHECK_NEAR(y[0], (1 - m) / sqrt(v), 1e-6);
}

static void test_pools(void)
{
    float x[16], y[4];
    for (int i = 0; i < 16; i++)
        x[i] = (float)(i + 1);
    /* ONNX averagepool_2d_ceil: 3x3 stride 2 on 4x4, ceil mode (2x2 out). */
    lf__pool p = {3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 0};
    lf__avgpool(x, D(1, 1, 4, 4), y, D(1, 1, 2, 2), &p, 1);
    check_vals(y, (float[]){6, 7.5f, 12, 13.5f}, 4, 1e-6, "avgpool ceil");
    p.count_include_pad = 1; /* no padding: the overhang is never counted */
    lf__avgpool(x, D(1, 1, 4, 4), y, D(1, 1, 2, 2), &p, 1);
    check_vals(y, (float[]){6, 7.5f, 12, 13.5f}, 4, 1e-6, "avgpool ceil incl");
    lf__maxpool(x, D(1, 1, 4, 4), y, D(1, 1, 2, 2), &p, 1);
    check_vals(y, (float[]){11, 12, 15, 16}, 4, 0, "maxpool ceil");
    /* Padding 1: the divisor counts the padding only with count_include_pad. */
    lf__pool q = {3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0};
    lf__avgpool(x, D(1, 1, 4, 4), y, D(1, 1, 2, 2), &q, 1);
    check_vals(y, (float[]){3.5f, 5, 9.5f, 11}, 4, 1e-6, "avgpool pad");
    q.count_include_pad = 1;
    lf__avgpool(x, D(1, 1, 4, 4), y, D(1, 1, 2, 2), &q, 1);
    check_vals(y, (float[]){14 / 9.0f, 30 / 9.0f, 57 / 9.0f, 11}, 4, 1e-6, "avgpool pad incl");
    lf__maxpool(x, D(1, 1, 4, 4), y, D(1, 1, 2, 2), &q, 1);
    check_vals(y, (float[]){6, 8, 14, 16}, 4, 0, "maxpool pad");
    /* Dilated max pool: 2x2 taps two apart. */
    lf__pool d = {2, 2, 1, 1, 2, 2, 0, 0, 0, 0, 0};
    lf__maxpool(x, D(1, 1, 4, 4), y, D(1, 1, 2, 2), &d, 1);
    check_vals(y, (float[]){11, 12, 15, 16}, 4, 0, "maxpool dilated");
    float g[2];
    lf__global_pool(x, D(1, 2, 2, 4), g, 0, 1);
    check_vals(g, (float[]){4.5f, 12.5f}, 2, 0, "global avg");
    lf__global_pool(x, D(1, 2, 2, 4), g, 1, 1);
    check_vals(g, (float[]){8, 16}, 2, 0, "global max");
}

static void test_softmax_reduce(void)
{
    float x[6] = {1, 2, 3, 1, 1, 1}, y[6];
    CHECK_OK(lf__softmax(x, D(1, 1, 2, 3), 1u << 3, 0, 0, y, 1));
    check_vals(y, (float[]){0.09003057f, 0.24472847f, 0.66524096f, 1 / 3.0f, 1 / 3.0f, 1 / 3.0f}, 6, 1e-7, "softmax");
    /* Over axis 2 (columns of the 2x3), and the flattened tail (all 6). */
    CHECK_OK(lf__softmax(x, D(1, 1, 2, 3), 1u << 2, 0, 0, y, 1));
    CHECK_NEAR(y[0] + y[3], 1.0, 1e-6);
    CHECK_NEAR(y[2], exp(3.0) / (exp(3.0) + exp(1.0)), 1e-6);
    CHECK_OK(lf__softmax(x, D(1, 1, 2, 3), (1u << 2) | (1u << 3), 0, 0, y, 1));
    double s = 0;
    for (int i = 0; i < 6; i++)
        s += y[i];
    CHECK_NEAR(s, 1.0, 1e-6);
    CHECK_OK(lf__softmax(x, D(1, 1, 2, 3), 1u << 3, 1, 0, y, 1));
    CHECK_NEAR(y[2], log(0.66524096), 1e-6);
    /* Causal (issue 35): 2 query rows over 3 keys, so row 0 (token 0 of a
     * step after one cached token) sees keys 0..1 and row 1 all three. */
    CHECK_OK(lf__softmax(x, D(1, 1, 2, 3), 1u << 3, 0, 1, y, 1));
    check_vals(y, (float[]){0.26894142f, 0.73105858f, 0, 1 / 3.0f, 1 / 3.0f, 1 / 3.0f}, 6, 1e-7,
               "causal softmax");
    /* Two stacked heads of one query row each over 3 keys (grouped-query
     * stacking, causal = 2): each row is token 0 of 1 and sees all keys. */
    CHECK_OK(lf__softmax(x, D(1, 1, 2, 3), 1u << 3, 0, 2, y, 1));
    check_vals(y, (float[]){0.09003057f, 0.24472847f, 0.66524096f, 1 / 3.0f, 1 / 3.0f, 1 / 3.0f}, 6,
               1e-7, "stacked causal softmax");
    /* Square 3x3 causal, two stacked heads of 3 rows: the lower triangle
     * per head; log-softmax gives -inf above the diagonal. */
    float sq[18], sy[18];
    for (int i = 0; i < 18; i++)
        sq[i] = (float)(i % 3);
    CHECK_OK(lf__softmax(sq, D(1, 1, 6, 3), 1u << 3, 0, 2, sy, 1));
    for (int h = 0; h < 2; h++) {
        const float *r0 = sy + 9 * h;
        check_vals(r0, (float[]){1, 0, 0, 0.26894142f, 0.73105858f, 0, 0.09003057f, 0.24472847f,
                                 0.66524096f},
                   9, 1e-7, "causal softmax, stacked heads");
    }
    CHECK_OK(lf__softmax(sq, D(1, 1, 6, 3), 1u << 3, 1, 2, sy, 1));
    CHECK(isinf(sy[1]) && sy[1] < 0 && sy[0] == 0.0f);
    CHECK(lf__softmax(sq, D(1, 1, 6, 3), 1u << 2, 0, 2, sy, 1) == LF_EINVAL);

    float r[3];
    lf__reduce(LF__R_MEAN, x, D(1, 1, 2, 3), 1u << 2, r, 1);
    check_vals(r, (float[]){1, 1.5f, 2}, 3, 0, "reduce mean axis 2");
    lf__reduce(LF__R_SUM, x, D(1, 1, 2, 3), (1u << 2) | (1u << 3), r, 1);
    CHECK_NEAR(r[0], 9, 0);
    lf__reduce(LF__R_MAX, x, D(1, 1, 2, 3), 1u << 3, r, 1);
    check_vals(r, (float[]){3, 1}, 2, 0, "reduce max");
    lf__reduce(LF__R_L2, x, D(1, 1, 2, 3), 1u << 3, r, 1);
    CHECK_NEAR(r[0], sqrt(14.0), 1e-6);
}

/* ---- layout ----------------------------------------------------------- */

static void test_layout(void)
{
    float a[4] = {1, 2, 3, 4}, b[2] = {5, 6}, y[12];
    const float *xs[2] = {a, b};
    lf__dims ds[2] = {D(1, 2, 1, 2), D(1, 1, 1, 2)};
    lf__concat(xs, ds, 2, 1, y, D(1, 3, 1, 2), 1);
    check_vals(y, (float[]){1, 2, 3, 4, 5, 6}, 6, 0, "concat c");
    lf__dims dw[2] = {D(1, 2, 1, 2), D(1, 2, 1, 1)};
    lf__concat(xs, dw, 2, 3, y, D(1, 2, 1, 3), 1);
    check_vals(y, (float[]){1, 2, 5, 3, 4, 6}, 6, 0, "concat w");

    float x[12];
    for (int i = 0; i < 12; i++)
        x[i] = (float)i; /* 1 x 1 x 3 x 4 */
    int64_t st[4] = {0, 0, 2, 3}, step[4] = {1, 1, -2, -2};
    lf__slice(x, D(1, 1, 3, 4), st, step, y, D(1, 1, 2, 2), 1);
    check_vals(y, (float[]){11, 9, 3, 1}, 4, 0, "slice negative steps");

    int perm[4] = {0, 1, 3, 2};
    lf__transpose(x, D(1, 1, 3, 4), perm, y, 1);
    check_vals(y, (float[]){0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}, 12, 0, "transpose");
    int perm2[4] = {3, 2, 1, 0};
    float t[12];
    lf__transpose(x, D(1, 1, 3, 4), perm2, t, 1);
    CHECK_NEAR(t[1], 4, 0); /* t is 4 x 3 x 1 x 1: t[0][1] = x[1][0] */

    float r3[3] = {1, 2, 3};
    int64_t beg[4] = {0, 0, 0, 2};
    CHECK_OK(lf__pad(r3, D(1, 1, 1, 3), beg, LF__PAD_REFLECT, 0, y, D(1, 1, 1, 7), 1));
    check_vals(y, (float[]){3, 2, 1, 2, 3, 2, 1}, 7, 0, "pad reflect");
    CHECK_OK(lf__pad(r3, D(1, 1, 1, 3), beg, LF__PAD_EDGE, 0, y, D(1, 1, 1, 7), 1));
    check_vals(y, (float[]){1, 1, 1, 2, 3, 3, 3}, 7, 0, "pad edge");
    int64_t beg2[4] = {0, 0, 1, -1};
    CHECK_OK(lf__pad(r3, D(1, 1, 1, 3), beg2, LF__PAD_CONSTANT, 9, y, D(1, 1, 2, 2), 1));
    check_vals(y, (float[]){9, 9, 2, 3}, 4, 0, "pad constant crop");
}

/* ---- resize: ONNX's documented examples ------------------------------ */

static void test_resize(void)
{
    float x[4] = {1, 2, 3, 4}, y[24];
    lf__resize p = {LF__RESIZE_LINEAR, LF__COORD_HALF_PIXEL, LF__NEAREST_ROUND_PREFER_FLOOR, -0.75f, 0, {1, 1, 2, 2}};
    CHECK_OK(lf__resize_run(x, D(1, 1, 2, 2), y, D(1, 1, 4, 4), &p, 1));
    check_vals(y, (float[]){1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4},
               16, 1e-6, "resize linear");
    p.coord = LF__COORD_ALIGN_CORNERS;
    CHECK_OK(lf__resize_run(x, D(1, 1, 2, 2), y, D(1, 1, 4, 4), &p, 1));
    check_vals(y, (float[]){1, 4 / 3.0f, 5 / 3.0f, 2, 5 / 3.0f, 2, 7 / 3.0f, 8 / 3.0f}, 8, 1e-6, "resize align");
    float x8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    lf__resize dn = {LF__RESIZE_LINEAR, LF__COORD_ALIGN_CORNERS, LF__NEAREST_ROUND_PREFER_FLOOR, -0.75f, 0, {1, 1, 0.6, 0.6}};
    CHECK_OK(lf__resize_run(x8, D(1, 1, 2, 4), y, D(1, 1, 1, 2), &dn, 1));
    check_vals(y, (float[]){1, 3.142857f}, 2, 1e-5, "resize down align");
    lf__resize nn = {LF__RESIZE_NEAREST, LF__COORD_HALF_PIXEL, LF__NEAREST_ROUND_PREFER_FLOOR, -0.75f, 0, {1, 1, 2, 3}};
    CHECK_OK(lf__resize_run(x, D(1, 1, 2, 2), y, D(1, 1, 4, 6), &nn, 1));
    check_vals(y, (float[]){1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}, 24, 0, "resize nearest");
    /* Cubic keeps constants and, with exclude_outside, still sums to one. */
    float k4[16];
    for (int i = 0; i < 16; i++)
        k4[i] = 2.5f;
    lf__resize cu = {LF__RESIZE_CUBIC, LF__COORD_HALF_PIXEL, LF__NEAREST_ROUND_PREFER_FLOOR, -0.75f, 1, {1, 1, 1.5, 1.5}};
    float out[36];
    CHECK_OK(lf__resize_run(k4, D(1, 1, 4, 4), out, D(1, 1, 6, 6), &cu, 2));
    double e = 0;
    for (int i = 0; i < 36; i++)
        e = fmax(e, fabs(out[i] - 2.5));
    CHECK(e <= 1e-6);
}

int main(void)
{
    test_conv_hand();
    test_conv_vs_naive();
    test_grouped_equals_split();
    test_conv_transpose();
    test_sgemm();
    test_gemm_onnx();
    test_matmul_batched();
    test_unary();
    test_binary_broadcast();
    test_norms();
    test_pools();
    test_softmax_reduce();
    test_layout();
    test_resize();
    return lf_test_result();
}
