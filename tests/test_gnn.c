/* GNN tests: finite-difference gradient checks of every layer (GraphConv
 * with respect to its weights, node features and edge weights; readout;
 * head; loss; the full model), an Adam step by hand, determinism of training
 * across thread counts, and the weight file format with its error cases. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain/gnn.h"
#include "explain/layers.h"
#include "explain/train.h"
#include "explain/weights.h"
#include "planner/util/binfile.h"
#include "planner/util/rng.h"
#include "tests/testlib.h"

/* Float central differences with step 1e-3 on O(1) values: truncation error
 * ~1e-6 and rounding ~1e-4, so 2e-3 absolute plus 2% relative is tight
 * enough to catch a wrong or missing term and loose enough for float. */
#define FD_EPS 1e-3f
#define FD_ABS 2e-3
#define FD_REL 2e-2

static int fd_close(double num, double ana)
{
    return fabs(num - ana) <= FD_ABS + FD_REL * fabs(ana);
}

static void fill(lf_rng *r, float *p, int64_t n, double scale)
{
    for (int64_t i = 0; i < n; i++)
        p[i] = (float)((2 * lf_rng_uniform(r) - 1) * scale);
}

static double dotd(const float *a, const float *b, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += (double)a[i] * b[i];
    return s;
}

/* ---- GraphConv ------------------------------------------------------------ */

enum { GN = 5, GE = 6, GIN = 4, GOUT = 3 };
static const int32_t g_src[GE] = {0, 0, 1, 2, 3, 1};
static const int32_t g_dst[GE] = {1, 2, 3, 3, 4, 4};

typedef struct gc_fix {
    float w_root[GIN * GOUT], w_rel[GIN * GOUT], b[GOUT];
    float h[GN * GIN], ew[GE], r[GN * GOUT];
    lf_gconv L;
    lf_gconv_edges e;
} gc_fix;

/* Loss = sum(R . z): dL/dz = R, any linear functional tests the backward. */
static double gc_loss(gc_fix *f)
{
    float agg[GN * GIN], z[GN * GOUT];
    lf_gconv_aggregate(&f->e, GIN, f->h, agg);
    lf_gconv_forward(&f->L, GN, f->h, agg, z);
    return dotd(f->r, z, GN * GOUT);
}

static void check_param(gc_fix *f, float *p, const float *ana, int64_t n, const char *what)
{
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        float keep = p[i];
        p[i] = keep + FD_EPS;
        double lp = gc_loss(f);
        p[i] = keep - FD_EPS;
        double lm = gc_loss(f);
        p[i] = keep;
        double num = (lp - lm) / (2 * FD_EPS);
        if (!fd_close(num, ana[i])) {
            if (!bad)
                fprintf(stderr, "%s[%lld]: numeric %.6g analytic %.6g\n", what, (long long)i,
                        num, (double)ana[i]);
            bad = 1;
        }
    }
    CHECK(!bad);
}

static void test_graphconv(int undirected)
{
    gc_fix f;
    lf_rng r;
    lf_rng_seed(&r, 11, (uint64_t)undirected);
    fill(&r, f.w_root, GIN * GOUT, 1);
    fill(&r, f.w_rel, GIN * GOUT, 1);
    fill(&r, f.b, GOUT, 1);
    fill(&r, f.h, GN * GIN, 1);
    fill(&r, f.r, GN * GOUT, 1);
    for (int k = 0; k < GE; k++)
        f.ew[k] = (float)(0.2 + lf_rng_uniform(&r));
    f.L = (lf_gconv){.in = GIN, .out = GOUT, .w_root = f.w_root, .w_rel = f.w_rel, .b = f.b};
    f.e = (lf_gconv_edges){GN, GE, g_src, g_dst, f.ew, undirected};

    float agg[GN * GIN];
    lf_gconv_aggregate(&f.e, GIN, f.h, agg);
    /* Hand check of the aggregate: node 3 receives from 1 and 2 (and, when
     * undirected, from 4). */
    for (int c = 0; c < GIN; c++) {
        double want = f.ew[2] * f.h[1 * GIN + c] + f.ew[3] * f.h[2 * GIN + c];
        if (undirected)
            want += f.ew[4] * f.h[4 * GIN + c];
        CHECK_NEAR(agg[3 * GIN + c], want, 1e-5);
    }
    float gw_root[GIN * GOUT] = {0}, gw_rel[GIN * GOUT] = {0}, gb[GOUT] = {0};
    float dh[GN * GIN], dew[GE] = {0}, tmp[GN * GIN];
    lf_gconv G = {.in = GIN, .out = GOUT, .w_root = gw_root, .w_rel = gw_rel, .b = gb};
    lf_gconv_backward(&f.L, &G, &f.e, f.h, agg, f.r, dh, dew, tmp);
    check_param(&f, f.w_root, gw_root, GIN * GOUT, "dW_root");
    check_param(&f, f.w_rel, gw_rel, GIN * GOUT, "dW_rel");
    check_param(&f, f.b, gb, GOUT, "db");
    check_param(&f, f.h, dh, GN * GIN, "dh");
    check_param(&f, f.ew, dew, GE, "dw_e");
    /* dew accumulates (+=): a second call doubles it. */
    float d0 = dew[0];
    lf_gconv_backward(&f.L, NULL, &f.e, f.h, agg, f.r, NULL, dew, tmp);
    CHECK_NEAR(dew[0], 2 * d0, 1e-5 + 1e-5 * fabs(d0));

    /* With the weights' transposes given, the same bits come out. */
    float wrt[GOUT * GIN], wlt[GOUT * GIN], dh2[GN * GIN], dew1[GE] = {0}, dew2[GE] = {0};
    lf_mm_transpose(GIN, GOUT, f.w_root, wrt);
    lf_mm_transpose(GIN, GOUT, f.w_rel, wlt);
    lf_gconv_backward(&f.L, NULL, &f.e, f.h, agg, f.r, dh, dew1, tmp);
    lf_gconv LT = f.L;
    LT.w_root_t = wrt;
    LT.w_rel_t = wlt;
    lf_gconv_backward(&LT, NULL, &f.e, f.h, agg, f.r, dh2, dew2, tmp);
    CHECK(memcmp(dh, dh2, sizeof dh) == 0);
    CHECK(memcmp(dew1, dew2, sizeof dew1) == 0);
}

/* Tiled transpose across tile edges (16) on both sides, and lf_mm_nt
 * against the definition. */
static void test_transpose(void)
{
    enum { R = 37, C = 19, M = 3 };
    float b[R * C], bt[C * R], a[M * C], c[M * R];
    lf_rng r;
    lf_rng_seed(&r, 14, 0);
    fill(&r, b, R * C, 1);
    fill(&r, a, M * C, 1);
    lf_mm_transpose(R, C, b, bt);
    int bad = 0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            bad += bt[j * R + i] != b[i * C + j];
    CHECK(bad == 0);
    a[1] = 0.0f; /* a skipped zero changes nothing */
    lf_mm_nt(M, C, R, a, b, c);
    for (int i = 0; i < M; i++)
        for (int p = 0; p < R; p++) {
            double want = 0;
            for (int j = 0; j < C; j++)
                want += (double)a[i * C + j] * b[p * C + j];
            CHECK_NEAR(c[i * R + p], want, 1e-4);
        }
}

/* ---- readout, head, loss --------------------------------------------------- */

/* The row kernel against the plain row updates: the same bits (zero signs
 * included) for shapes with and without remainder columns (64, 8, scalar),
 * k not a multiple of the scan's 4 and past its 512-term limit, operands with
 * ReLU-like zeros and all-zero rows, overwrite and accumulate. */
static void test_blocked_matmul(void)
{
    const int32_t shapes[][3] = {{1, 128, 35},  {4, 16, 1},   {5, 17, 3},   {8, 128, 128},
                                 {30, 128, 35}, {13, 64, 128}, {7, 35, 128}, {64, 130, 20},
                                 {3, 2, 130},   {2, 9, 600},  {6, 200, 7},  {5, 9, 40}};
    lf_rng r;
    lf_rng_seed(&r, 41, 0);
    int same = 1, nonzero = 0;
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        int32_t m = shapes[t][0], n = shapes[t][1], k = shapes[t][2];
        float *a = malloc(sizeof(float) * (size_t)m * (size_t)k);
        float *b = malloc(sizeof(float) * (size_t)k * (size_t)n);
        float *c1 = malloc(sizeof(float) * (size_t)m * (size_t)n);
        float *c2 = malloc(sizeof(float) * (size_t)m * (size_t)n);
        for (int64_t i = 0; i < (int64_t)m * k; i++) {
            double u = lf_rng_uniform(&r) * 2 - 1;
            a[i] = u < 0 ? 0.0f : (float)u; /* half zeros, as after a ReLU */
        }
        if (m > 2)
            memset(a + k, 0, sizeof(float) * (size_t)k); /* a row without terms */
        for (int64_t i = 0; i < (int64_t)k * n; i++)
            b[i] = (float)(lf_rng_uniform(&r) * 2 - 1);
        for (int acc = 0; acc < 2; acc++) {
            for (int64_t i = 0; i < (int64_t)m * n; i++)
                c1[i] = c2[i] = (float)(lf_rng_uniform(&r) - 0.5);
            lf_mm_nn(m, n, k, a, b, c1, acc);
            lf_mm_nn_ref(m, n, k, a, b, c2, acc);
            same &= memcmp(c1, c2, sizeof(float) * (size_t)m * (size_t)n) == 0;
            for (int64_t i = 0; i < (int64_t)m * n; i++)
                nonzero += c1[i] != 0.0f;
        }
        /* The pair form: two products of one left operand, each the same bits
         * as its own call (b, and b read as a narrower matrix); the bias
         * form. */
        int32_t n2 = n > 1 ? n - 1 : 1;
        float *d1 = malloc(sizeof(float) * (size_t)m * (size_t)n);
        float *d2 = malloc(sizeof(float) * (size_t)m * (size_t)n2);
        lf_mm_nn_ref(m, n, k, a, b, c2, 0);
        lf_mm_nn_pair(m, k, a, n, b, d1, n2, b, d2);
        same &= memcmp(d1, c2, sizeof(float) * (size_t)m * (size_t)n) == 0;
        lf_mm_nn_ref(m, n2, k, a, b, c2, 0);
        same &= memcmp(d2, c2, sizeof(float) * (size_t)m * (size_t)n2) == 0;
        /* The bias form: the bias copied into every row, then accumulated. */
        const float *bias = b + (int64_t)(k - 1) * n;
        for (int32_t i = 0; i < m; i++)
            memcpy(c2 + (int64_t)i * n, bias, sizeof(float) * (size_t)n);
        lf_mm_nn_ref(m, n, k, a, b, c2, 1);
        lf_mm_nn_bias(m, n, k, a, b, bias, d1);
        same &= memcmp(d1, c2, sizeof(float) * (size_t)m * (size_t)n) == 0;
        free(d1);
        free(d2);
        free(a);
        free(b);
        free(c1);
        free(c2);
    }
    CHECK(same);
    CHECK(nonzero > 1000);
}

static void test_readout_head_loss(void)
{
    lf_rng r;
    lf_rng_seed(&r, 12, 0);
    enum { N = 4, D = 5, C = 3 };
    float h[N * D], rg[D], g[D], dh[N * D];
    fill(&r, h, N * D, 1);
    fill(&r, rg, D, 1);
    lf_readout_sum_backward(N, D, rg, dh);
    for (int i = 0; i < N * D; i++) {
        float keep = h[i];
        h[i] = keep + FD_EPS;
        lf_readout_sum_forward(N, D, h, g);
        double lp = dotd(rg, g, D);
        h[i] = keep - FD_EPS;
        lf_readout_sum_forward(N, D, h, g);
        double lm = dotd(rg, g, D);
        h[i] = keep;
        CHECK(fd_close((lp - lm) / (2 * FD_EPS), dh[i]));
    }

    float w[D * C], b[C], ro[C], o[C], gw[D * C] = {0}, gb[C] = {0}, dg[D];
    fill(&r, w, D * C, 1);
    fill(&r, b, C, 1);
    fill(&r, g, D, 1);
    fill(&r, ro, C, 1);
    lf_head H = {D, C, w, b}, HG = {D, C, gw, gb};
    lf_head_backward(&H, &HG, g, ro, dg);
    float *ps[3] = {w, b, g};
    const float *as[3] = {gw, gb, dg};
    int ns[3] = {D * C, C, D};
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < ns[t]; i++) {
            float keep = ps[t][i];
            ps[t][i] = keep + FD_EPS;
            lf_head_forward(&H, g, o);
            double lp = dotd(ro, o, C);
            ps[t][i] = keep - FD_EPS;
            lf_head_forward(&H, g, o);
            double lm = dotd(ro, o, C);
            ps[t][i] = keep;
            CHECK(fd_close((lp - lm) / (2 * FD_EPS), as[t][i]));
        }

    /* Softmax cross-entropy: hand value and gradient. */
    float lo[2] = {0.0f, 0.0f}, d[2], p[2];
    CHECK_NEAR(lf_softmax_ce(lo, 2, 1, d, p), log(2.0), 1e-9);
    CHECK_NEAR(d[0], 0.5, 1e-7);
    CHECK_NEAR(d[1], -0.5, 1e-7);
    float big[2] = {1000.0f, -1000.0f};
    CHECK_NEAR(lf_softmax_ce(big, 2, 0, NULL, NULL), 0.0, 1e-9); /* no overflow */
    CHECK_NEAR(lf_softmax_ce(big, 2, 1, NULL, NULL), 2000.0, 1e-6);
    float lg[C], dl[C];
    fill(&r, lg, C, 2);
    for (int y = 0; y < C; y++) {
        lf_softmax_ce(lg, C, y, dl, NULL);
        for (int i = 0; i < C; i++) {
            float keep = lg[i];
            lg[i] = keep + FD_EPS;
            double lp = lf_softmax_ce(lg, C, y, NULL, NULL);
            lg[i] = keep - FD_EPS;
            double lm = lf_softmax_ce(lg, C, y, NULL, NULL);
            lg[i] = keep;
            CHECK(fd_close((lp - lm) / (2 * FD_EPS), dl[i]));
        }
    }
}

/* ---- the full model -------------------------------------------------------- */

static double model_loss(const lf_gnn *m, const lf_gnn_graph *gr, lf_gnn_ws *ws, int32_t y)
{
    float lo[2];
    lf_gnn_forward(m, gr, ws, lo);
    return lf_softmax_ce(lo, 2, y, NULL, NULL);
}

static void test_model_gradients(void)
{
    lf_gnn_config c;
    lf_gnn_config_default(&c);
    c.hidden = 8;
    lf_gnn m;
    CHECK_OK(lf_gnn_init(&m, &c, 5));
    lf_rng r;
    lf_rng_seed(&r, 13, 0);
    float x[GN * LF_FEAT_DIM], ew[GE];
    fill(&r, x, GN * LF_FEAT_DIM, 1);
    for (int k = 0; k < GE; k++)
        ew[k] = (float)(0.5 + lf_rng_uniform(&r));
    lf_gnn_graph gr = {GN, GE, x, g_src, g_dst, ew};
    lf_gnn_ws *ws = NULL;
    CHECK_OK(lf_gnn_ws_create(&ws, &m));
    float lo[2], dl[2];
    CHECK_OK(lf_gnn_forward(&m, &gr, ws, lo));
    lf_softmax_ce(lo, 2, 1, dl, NULL);
    float *grad = calloc((size_t)m.n_params, sizeof(float));
    float dx[GN * LF_FEAT_DIM], dew[GE];
    CHECK_OK(lf_gnn_backward(&m, ws, dl, grad, dx, dew));
    /* ReLU kinks can make a central difference straddle a switch; count
     * mismatches and allow a tiny share instead of failing on one. */
    int checked = 0, bad = 0;
    for (int64_t i = 0; i < m.n_params; i += 7) {
        float keep = m.params[i];
        m.params[i] = keep + FD_EPS;
        double lp = model_loss(&m, &gr, ws, 1);
        m.params[i] = keep - FD_EPS;
        double lm = model_loss(&m, &gr, ws, 1);
        m.params[i] = keep;
        checked++;
        bad += !fd_close((lp - lm) / (2 * FD_EPS), grad[i]);
    }
    for (int i = 0; i < GN * LF_FEAT_DIM; i++) {
        float keep = x[i];
        x[i] = keep + FD_EPS;
        double lp = model_loss(&m, &gr, ws, 1);
        x[i] = keep - FD_EPS;
        double lm = model_loss(&m, &gr, ws, 1);
        x[i] = keep;
        checked++;
        bad += !fd_close((lp - lm) / (2 * FD_EPS), dx[i]);
    }
    for (int k = 0; k < GE; k++) {
        float keep = ew[k];
        ew[k] = keep + FD_EPS;
        double lp = model_loss(&m, &gr, ws, 1);
        ew[k] = keep - FD_EPS;
        double lm = model_loss(&m, &gr, ws, 1);
        ew[k] = keep;
        checked++;
        int ok = fd_close((lp - lm) / (2 * FD_EPS), dew[k]);
        bad += !ok;
        if (!ok)
            fprintf(stderr, "model dw_e[%d]: numeric %.6g analytic %.6g\n", k,
                    (lp - lm) / (2 * FD_EPS), (double)dew[k]);
    }
    CHECK(checked > 100);
    CHECK(bad * 100 <= checked); /* at most 1% at ReLU kinks */

    /* A workspace with fixed weights gives the same bits; one fixed for
     * another model's weights is ignored. */
    float dx2[GN * LF_FEAT_DIM], dew2[GE];
    lf_gnn_ws *fixed = NULL;
    CHECK_OK(lf_gnn_ws_create(&fixed, &m));
    CHECK_OK(lf_gnn_ws_fix_weights(fixed, &m));
    CHECK_OK(lf_gnn_forward(&m, &gr, fixed, lo));
    CHECK_OK(lf_gnn_backward(&m, fixed, dl, NULL, dx2, dew2));
    CHECK(memcmp(dx, dx2, sizeof dx) == 0);
    CHECK(memcmp(dew, dew2, sizeof dew) == 0);
    lf_gnn other;
    CHECK_OK(lf_gnn_init(&other, &c, 6));
    CHECK_OK(lf_gnn_ws_fix_weights(fixed, &other));
    CHECK_OK(lf_gnn_forward(&m, &gr, fixed, lo));
    CHECK_OK(lf_gnn_backward(&m, fixed, dl, NULL, dx2, dew2));
    CHECK(memcmp(dx, dx2, sizeof dx) == 0);
    CHECK(memcmp(dew, dew2, sizeof dew) == 0);
    lf_gnn_destroy(&other);
    lf_gnn_ws_free(fixed);
    /* Backward without a forward pass is an error, not a crash. */
    lf_gnn_ws *fresh = NULL;
    CHECK_OK(lf_gnn_ws_create(&fresh, &m));
    CHECK(lf_gnn_backward(&m, fresh, dl, grad, NULL, NULL) == LF_EINVAL);
    lf_gnn_ws_free(fresh);
    /* Bad edges are rejected. */
    int32_t bad_dst[GE] = {1, 2, 3, 3, 4, 9};
    lf_gnn_graph bg = {GN, GE, x, g_src, bad_dst, NULL};
    CHECK(lf_gnn_forward(&m, &bg, ws, lo) == LF_EINVAL);
    free(grad);
    lf_gnn_ws_free(ws);
    lf_gnn_destroy(&m);
}

/* ---- Adam ---------------------------------------------------------------- */

static void test_adam(void)
{
    lf_adam a;
    CHECK_OK((lf_status)lf_adam_init(&a, 2, 0.1f));
    float p[2] = {1.0f, -2.0f};
    float g1[2] = {0.5f, -1.0f};
    /* Step 1: m_hat = g, v_hat = g^2, so each parameter moves by lr * sign(g). */
    lf_adam_step(&a, p, g1);
    CHECK_NEAR(p[0], 0.9, 1e-6);
    CHECK_NEAR(p[1], -1.9, 1e-6);
    /* Step 2 by the formulas, in double. */
    float g2[2] = {0.25f, 0.0f};
    double m0 = 0.9 * (0.1 * 0.5) + 0.1 * 0.25, v0 = 0.999 * (0.001 * 0.25) + 0.001 * 0.0625;
    double m1 = 0.9 * (0.1 * -1.0) + 0.0, v1 = 0.999 * (0.001 * 1.0);
    double bc1 = 1 - 0.81, bc2 = 1 - 0.999 * 0.999;
    double want0 = 0.9 - 0.1 * (m0 / bc1) / (sqrt(v0 / bc2) + 1e-8);
    double want1 = -1.9 - 0.1 * (m1 / bc1) / (sqrt(v1 / bc2) + 1e-8);
    lf_adam_step(&a, p, g2);
    CHECK_NEAR(p[0], want0, 1e-6);
    CHECK_NEAR(p[1], want1, 1e-6);
    CHECK_EQ_I64(a.t, 2);
    lf_adam_destroy(&a);
}

/* ---- determinism of training ------------------------------------------------ */

typedef struct tiny_set {
    int64_t n;
    lf_gnn_sample *s;
    float *x;
    int32_t *src, *dst;
} tiny_set;

/* Random chains and trees of 2..8 nodes; label = the sum of one feature
 * column is positive (learnable, so training does real work). */
static void tiny_make(tiny_set *t, int64_t n, uint64_t seed)
{
    lf_rng r;
    lf_rng_seed(&r, seed, 0);
    t->n = n;
    t->s = calloc((size_t)n, sizeof *t->s);
    t->x = malloc(sizeof(float) * (size_t)n * 8 * LF_FEAT_DIM);
    t->src = malloc(sizeof(int32_t) * (size_t)n * 8);
    t->dst = malloc(sizeof(int32_t) * (size_t)n * 8);
    for (int64_t i = 0; i < n; i++) {
        int32_t nn = 2 + (int32_t)lf_rng_below(&r, 7);
        float *x = t->x + i * 8 * LF_FEAT_DIM;
        int32_t *s = t->src + i * 8, *d = t->dst + i * 8;
        fill(&r, x, (int64_t)nn * LF_FEAT_DIM, 1);
        double sum = 0;
        for (int32_t v = 0; v < nn; v++)
            sum += x[v * LF_FEAT_DIM + 3];
        for (int32_t v = 1; v < nn; v++) {
            s[v - 1] = (int32_t)lf_rng_below(&r, (uint32_t)v);
            d[v - 1] = v;
        }
        t->s[i].g = (lf_gnn_graph){nn, nn - 1, x, s, d, NULL};
        t->s[i].label = sum > 0;
    }
}

static void tiny_free(tiny_set *t)
{
    free(t->s);
    free(t->x);
    free(t->src);
    free(t->dst);
}

static void train_tiny(const tiny_set *t, int32_t threads, lf_gnn *m, lf_gnn_eval *ev)
{
    lf_gnn_config c;
    lf_gnn_config_default(&c);
    c.hidden = 32;
    CHECK_OK(lf_gnn_init(m, &c, 3));
    lf_gnn_train_config tc;
    lf_gnn_train_config_default(&tc);
    tc.epochs = 3;
    tc.batch = 8;
    tc.threads = threads;
    tc.seed = 9;
    CHECK_OK(lf_gnn_train(m, t->s, 96, t->s + 96, t->n - 96, &tc, NULL));
    CHECK_OK(lf_gnn_evaluate(m, t->s + 96, t->n - 96, threads, ev));
}

static void test_determinism(void)
{
    tiny_set t;
    tiny_make(&t, 128, 21);
    lf_gnn a, b;
    lf_gnn_eval ea, eb;
    train_tiny(&t, 1, &a, &ea);
    train_tiny(&t, 2, &b, &eb);
    CHECK_EQ_I64(a.n_params, b.n_params);
    CHECK(memcmp(a.params, b.params, sizeof(float) * (size_t)a.n_params) == 0);
    CHECK(ea.loss == eb.loss);
    CHECK_EQ_I64(ea.tp + ea.tn + ea.fp + ea.fn, 32);
    /* Training moved the weights away from the initialisation. */
    lf_gnn init;
    CHECK_OK(lf_gnn_init(&init, &a.cfg, 3));
    CHECK(memcmp(init.params, a.params, sizeof(float) * (size_t)a.n_params) != 0);
    lf_gnn_destroy(&init);
    lf_gnn_destroy(&a);
    lf_gnn_destroy(&b);
    tiny_free(&t);
}

/* ---- weight files ----------------------------------------------------------- */

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)n);
    *len = fread(p, 1, (size_t)n, f);
    fclose(f);
    return p;
}

static lf_status load_patched(const unsigned char *img, size_t len, size_t off, unsigned char val,
                              size_t cut, const lf_gnn_config *expect)
{
    unsigned char *p = malloc(len);
    memcpy(p, img, len);
    if (off < len)
        p[off] = val;
    lf_gnn m;
    lf_status st = lf_gnn_load_memory(&m, p, cut, "patched", expect);
    lf_gnn_destroy(&m);
    free(p);
    return st;
}

/* The same with the checksum made good again, so that the check of the
 * patched field itself answers (the container checks the checksum first). */
static lf_status load_patched_summed(const unsigned char *img, size_t len, size_t off, unsigned char val)
{
    lf__wbuf b = {0};
    lf__w_bytes(&b, img, len - LF__BIN_TRAILER);
    b.p[off] = val;
    lf__w_checksum(&b);
    lf_gnn m;
    lf_status st = lf_gnn_load_memory(&m, b.p, b.len, "patched", NULL);
    lf_gnn_destroy(&m);
    lf__w_free(&b);
    return st;
}

static void test_weight_files(void)
{
    lf_gnn_config c;
    lf_gnn_config_default(&c);
    c.hidden = 16;
    lf_gnn m;
    CHECK_OK(lf_gnn_init(&m, &c, 77));
    for (int k = 0; k < LF_FEAT_DIM; k++) {
        m.norm.mean[k] = 0.5f * (float)k;
        m.norm.std[k] = 1.0f + (float)k;
    }
    memcpy(m.scheme, "brr", 4);
    char path[] = "/tmp/lf_test_gnn_weights_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    CHECK_OK(lf_gnn_save(&m, path));
    lf_gnn l;
    CHECK_OK(lf_gnn_load(&l, path, &c));
    CHECK_EQ_I64(l.n_params, m.n_params);
    CHECK(l.params && memcmp(l.params, m.params, sizeof(float) * (size_t)m.n_params) == 0);
    CHECK(memcmp(&l.norm, &m.norm, sizeof m.norm) == 0);
    CHECK_STR(l.scheme, "brr");
    CHECK_EQ_I64(l.cfg.hidden, 16);
    lf_gnn_destroy(&l);

    size_t len = 0;
    unsigned char *img = slurp(path, &len);
    CHECK(img != NULL && len > 100);
    if (img) {
        CHECK_OK(load_patched(img, len, len, 0, len, NULL));
        CHECK(load_patched(img, len, 0, 'X', len, NULL) == LF_EPARSE);        /* magic */
        CHECK(strstr(lf_last_error(), "bad magic") != NULL);
        CHECK(load_patched(img, len, 8, 9, len, NULL) == LF_EUNSUPPORTED);   /* version */
        CHECK(strstr(lf_last_error(), "version") != NULL);
        CHECK(load_patched(img, len, 12, img[12] ^ 1, len, NULL) == LF_EINVAL); /* schema */
        CHECK(strstr(lf_last_error(), "feature schema") != NULL);
        CHECK(load_patched(img, len, 24, 32, len, NULL) == LF_EPARSE);       /* hidden 16 -> 32 */
        CHECK(strstr(lf_last_error(), "patched: GNN weight file truncated or corrupted (checksum mismatch)"));
        CHECK(load_patched_summed(img, len, 24, 32) == LF_EINVAL);           /* the same, summed */
        CHECK(strstr(lf_last_error(), "parameters, the dimensions imply") != NULL);
        lf_gnn_config other = c;
        other.hidden = 128;
        CHECK(load_patched(img, len, len, 0, len, &other) == LF_EINVAL);     /* expected dims */
        CHECK(strstr(lf_last_error(), "differ") != NULL);
        CHECK(load_patched(img, len, len, 0, len - 1, NULL) == LF_EPARSE);   /* truncated */
        CHECK(strstr(lf_last_error(), "truncated") != NULL);
        CHECK(load_patched(img, len, len, 0, 30, NULL) == LF_EPARSE);        /* cut in header */
        CHECK(load_patched(img, len, len, 0, 4, NULL) == LF_EPARSE);
        CHECK(load_patched(img, len, len - 20, img[len - 20] ^ 0x40, len, NULL) == LF_EPARSE);
        CHECK(strstr(lf_last_error(), "checksum") != NULL);
    }
    free(img);
    remove(path);
    CHECK(lf_gnn_load(&l, "/nonexistent/dir/w.bin", NULL) != LF_OK);
    lf_gnn_destroy(&l);
    lf_gnn_destroy(&m);
}

/* The frozen forms GNNExplainer uses (transposed weights, the first layer's
 * root term made once per group) give the plain passes' bits: logits and
 * edge-weight gradients, over several edge weightings of one group, on a
 * random 40-node graph with the full-size model; another feature array on
 * the same workspace is not mistaken for the fixed one. */
static void test_frozen_passes(void)
{
    enum { N = 40, E = 70 };
    lf_gnn_config c;
    lf_gnn_config_default(&c);
    lf_gnn m;
    CHECK_OK(lf_gnn_init(&m, &c, 8));
    lf_rng r;
    lf_rng_seed(&r, 21, 0);
    float *x = malloc(sizeof(float) * N * LF_FEAT_DIM);
    float *x2 = malloc(sizeof(float) * N * LF_FEAT_DIM);
    fill(&r, x, N * LF_FEAT_DIM, 1);
    fill(&r, x2, N * LF_FEAT_DIM, 1);
    int32_t src[E], dst[E];
    float ew[E];
    for (int k = 0; k < E; k++) {
        src[k] = (int32_t)(lf_rng_uniform(&r) * (N - 1));
        dst[k] = src[k] + 1 + (int32_t)(lf_rng_uniform(&r) * (N - 1 - src[k]));
    }
    lf_gnn_graph gr = {N, E, x, src, dst, ew};
    lf_gnn_ws *plain = NULL, *frozen = NULL;
    CHECK_OK(lf_gnn_ws_create(&plain, &m));
    CHECK_OK(lf_gnn_ws_create(&frozen, &m));
    CHECK_OK(lf_gnn_ws_fix_weights(frozen, &m));
    CHECK_OK(lf_gnn_ws_fix_nodes(frozen, &m, &gr));
    int same = 1, moved = 0;
    float first = 0;
    for (int pass = 0; pass < 4; pass++) {
        for (int k = 0; k < E; k++)
            ew[k] = (float)lf_rng_uniform(&r);
        gr.x = pass == 3 ? x2 : x;
        float l1[2], l2[2], d[2] = {0.7f, -0.7f}, g1[E], g2[E];
        CHECK_OK(lf_gnn_forward(&m, &gr, plain, l1));
        CHECK_OK(lf_gnn_backward(&m, plain, d, NULL, NULL, g1));
        CHECK_OK(lf_gnn_forward(&m, &gr, frozen, l2));
        CHECK_OK(lf_gnn_backward(&m, frozen, d, NULL, NULL, g2));
        same &= memcmp(l1, l2, sizeof l1) == 0 && memcmp(g1, g2, sizeof g1) == 0;
        if (pass == 0)
            first = l1[0];
        moved += l1[0] != first;
    }
    CHECK(same);
    CHECK(moved > 0); /* the edge weights reach the logits */
    lf_gnn_ws_free(plain);
    lf_gnn_ws_free(frozen);
    lf_gnn_destroy(&m);
    free(x);
    free(x2);
}

int main(void)
{
    test_blocked_matmul();
    test_graphconv(0);
    test_graphconv(1);
    test_transpose();
    test_readout_head_loss();
    test_model_gradients();
    test_adam();
    test_determinism();
    test_weight_files();
    test_frozen_passes();
    return lf_test_result();
}
