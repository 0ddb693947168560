/* Explainers (explain/explainer.h): finite-difference checks of the
 * GNNExplainer and PGExplainer objectives, determinism, the proposer
 * contract, PGExplainer weight files, and an end-to-end run on a small
 * ResNet-18 dataset through the tree splitter. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explain/dataset.h"
#include "explain/explainer.h"
#include "splitter/explainer_proposer.h"
#include "explain/explainer_rg.h"
#include "explain/train.h"
#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/util/rng.h"
#include "splitter/splitter.h"
#include "splitter/tree.h"
#include "testlib.h"

static int fd_ok(double num, double ana)
{
    double d = fabs(num - ana);
    return d <= 2e-5 + 2e-2 * fabs(ana);
}

/* A small random graph: 6 nodes, 7 edges (a diamond and a skip). */
#define TN 6
#define TE 7
static const int32_t t_src[TE] = {0, 0, 1, 2, 3, 0, 4};
static const int32_t t_dst[TE] = {1, 2, 3, 3, 4, 4, 5};

static void small_gnn(lf_gnn *m, float *x, uint64_t seed)
{
    lf_gnn_config c;
    lf_gnn_config_default(&c);
    c.hidden = 16;
    CHECK_OK(lf_gnn_init(m, &c, seed));
    lf_rng r;
    lf_rng_seed(&r, seed, 5);
    for (int i = 0; i < TN * LF_FEAT_DIM; i++)
        x[i] = (float)(lf_rng_uniform(&r) * 2 - 1);
}

static void test_gnne_gradient(void)
{
    lf_gnn m;
    float x[TN * LF_FEAT_DIM];
    small_gnn(&m, x, 11);
    lf_gnn_graph g = {TN, TE, x, t_src, t_dst, NULL};
    lf_gnn_ws *ws = NULL;
    CHECK_OK(lf_gnn_ws_create(&ws, &m));
    lf_gnne_config cfg;
    lf_gnne_config_default(&cfg);
    cfg.size_coef = 0.05f; /* larger than the default so the term shows */
    float logit[TE], grad[TE];
    uint8_t hard[TE] = {1, 1, 0, 1, 1, 1, 1};
    lf_rng r;
    lf_rng_seed(&r, 3, 0);
    for (int e = 0; e < TE; e++)
        logit[e] = (float)(lf_rng_normal(&r) * 1.5);
    for (int reg = 0; reg < 2; reg++) {
        double l0;
        CHECK_OK(lf_gnne_objective(&m, ws, &g, logit, hard, reg, &cfg, &l0, grad, NULL));
        int bad = 0;
        for (int e = 0; e < TE; e++) {
            float keep = logit[e];
            double lp, lm, h = 1e-2;
            logit[e] = keep + (float)h;
            CHECK_OK(lf_gnne_objective(&m, ws, &g, logit, hard, reg, &cfg, &lp, NULL, NULL));
            logit[e] = keep - (float)h;
            CHECK_OK(lf_gnne_objective(&m, ws, &g, logit, hard, reg, &cfg, &lm, NULL, NULL));
            logit[e] = keep;
            double num = (lp - lm) / (2 * h);
            if (getenv("LF_TEST_VERBOSE"))
                fprintf(stderr, "gnne reg %d edge %d: numeric %.6g analytic %.6g\n", reg, e, num,
                        (double)grad[e]);
            if (!fd_ok(num, grad[e])) {
                bad++;
                fprintf(stderr, "gnne reg %d edge %d: numeric %.6g analytic %.6g\n", reg, e, num,
                        (double)grad[e]);
            }
        }
        CHECK_EQ_I64(bad, 0);
    }
    lf_gnn_ws_free(ws);
    lf_gnn_destroy(&m);
}

static void test_pgx_gradient(void)
{
    lf_gnn m;
    float x[TN * LF_FEAT_DIM];
    small_gnn(&m, x, 12);
    lf_gnn_graph g = {TN, TE, x, t_src, t_dst, NULL};
    lf_gnn_ws *ws = NULL;
    CHECK_OK(lf_gnn_ws_create(&ws, &m));
    lf_pgx p;
    CHECK_OK(lf_pgx_init(&p, &m, 8, 4));
    lf_pgx_config cfg;
    lf_pgx_config_default(&cfg);
    /* Non-negative random embeddings stand in for the GNN's post-ReLU ones:
     * a random 4-layer GNN often leaves them all 0, which would make most
     * MLP gradients 0 and the check vacuous. */
    float *emb = malloc(sizeof(float) * TN * 16);
    lf_rng r;
    lf_rng_seed(&r, 8, 0);
    for (int i = 0; i < TN * 16; i++)
        emb[i] = (float)lf_rng_uniform(&r);
    float noise[TE];
    for (int e = 0; e < TE; e++) {
        double u = 0.01 + 0.98 * lf_rng_uniform(&r);
        noise[e] = (float)(log(u) - log(1 - u));
    }
    float *grad = calloc((size_t)p.n_params, sizeof(float));
    double l0;
    CHECK_OK(lf_pgx_objective(&p, &m, ws, &g, emb, noise, 2.0f, &cfg, &l0, grad));
    /* Every parameter group: W1 (both halves), b1, w2, b2. */
    int64_t d2 = 2 * p.emb_dim, h = p.hidden;
    int64_t probe[] = {0, 5, d2 / 2 + 3, d2 + 1, 3 * d2 + 7, h * d2 - 1, h * d2, h * d2 + 3,
                       h * d2 + h, h * d2 + h + 5, p.n_params - 1};
    int bad = 0, nonzero = 0;
    for (size_t i = 0; i < sizeof probe / sizeof probe[0]; i++) {
        int64_t k = probe[i];
        float keep = p.params[k];
        double lp, lm, hh = 1e-2;
        p.params[k] = keep + (float)hh;
        CHECK_OK(lf_pgx_objective(&p, &m, ws, &g, emb, noise, 2.0f, &cfg, &lp, NULL));
        p.params[k] = keep - (float)hh;
        CHECK_OK(lf_pgx_objective(&p, &m, ws, &g, emb, noise, 2.0f, &cfg, &lm, NULL));
        p.params[k] = keep;
        double num = (lp - lm) / (2 * hh);
        nonzero += grad[k] != 0;
        if (getenv("LF_TEST_VERBOSE"))
            fprintf(stderr, "pgx param %lld: numeric %.6g analytic %.6g\n", (long long)k, num,
                    (double)grad[k]);
        if (!fd_ok(num, grad[k])) {
            bad++;
            fprintf(stderr, "pgx param %lld: numeric %.6g analytic %.6g\n", (long long)k, num,
                    (double)grad[k]);
        }
    }
    CHECK_EQ_I64(bad, 0);
    CHECK(nonzero >= 8);
    free(grad);
    free(emb);
    lf_pgx_destroy(&p);
    lf_gnn_ws_free(ws);
    lf_gnn_destroy(&m);
}

/* Baselines on the small graph: saliency equals |dL/dw| from the GNN itself,
 * occlusion matches a direct recomputation. */
/* The per-node projection form of the PGExplainer MLP against the per-edge
 * formula in double: equal up to float rounding. */
static void test_pgx_projection(void)
{
    lf_gnn m;
    float x[TN * LF_FEAT_DIM];
    small_gnn(&m, x, 21);
    lf_gnn_graph g = {TN, TE, x, t_src, t_dst, NULL};
    lf_pgx p;
    CHECK_OK(lf_pgx_init(&p, &m, 20, 9)); /* 20: not a multiple of the 8 lanes */
    float omega[TE], logits[2];
    CHECK_OK(lf_pgx_logits(&p, &m, &g, omega));
    lf_gnn_ws *ws = NULL;
    CHECK_OK(lf_gnn_ws_create(&ws, &m));
    CHECK_OK(lf_gnn_forward(&m, &g, ws, logits));
    const float *emb = lf_gnn_ws_node_embedding(ws, m.cfg.n_layers);
    int32_t d = p.emb_dim, h = p.hidden;
    const float *W1 = p.params, *b1 = W1 + (int64_t)h * 2 * d, *w2 = b1 + h, *b2 = w2 + h;
    double worst = 0;
    for (int32_t e = 0; e < TE; e++) {
        const float *hs = emb + (int64_t)t_src[e] * d, *hd = emb + (int64_t)t_dst[e] * d;
        double om = b2[0];
        for (int32_t j = 0; j < h; j++) {
            double acc = b1[j];
            for (int32_t c = 0; c < d; c++)
                acc += (double)W1[(int64_t)j * 2 * d + c] * hs[c] +
                       (double)W1[(int64_t)j * 2 * d + d + c] * hd[c];
            if (acc > 0)
                om += w2[j] * acc;
        }
        double err = fabs(om - omega[e]) / (1 + fabs(om));
        worst = err > worst ? err : worst;
    }
    CHECK(worst < 1e-5);
    /* Twice the same bits. */
    float again[TE];
    CHECK_OK(lf_pgx_logits(&p, &m, &g, again));
    CHECK(memcmp(omega, again, sizeof again) == 0);
    lf_gnn_ws_free(ws);
    lf_pgx_destroy(&p);
    lf_gnn_destroy(&m);
}

/* RG-Explainer inference reuses the policy's per-node evaluations between
 * episode steps (explain/rgexplainer_train.c): its greedy episode must be
 * the one a from-scratch evaluation of every step picks, on a group large
 * enough for nodes to fall out of the 3-hop reach of the added node. */
static void test_rgx_incremental(void)
{
    enum { N = 40 };
    lf_gnn m;
    float xs[TN * LF_FEAT_DIM];
    small_gnn(&m, xs, 23);
    static float x[N * LF_FEAT_DIM];
    int32_t src[2 * N], dst[2 * N], ne = 0;
    lf_rng r;
    lf_rng_seed(&r, 29, 0);
    for (int i = 0; i < N * LF_FEAT_DIM; i++)
        x[i] = (float)(lf_rng_uniform(&r) * 2 - 1);
    for (int32_t v = 1; v < N; v++) { /* a chain with skip connections */
        src[ne] = v - 1, dst[ne++] = v;
        if (v >= 3 && v % 3 == 0)
            src[ne] = v - 3, dst[ne++] = v;
    }
    lf_gnn_graph g = {N, ne, x, src, dst, NULL};
    int long_ones = 0;
    for (int trial = 0; trial < 12; trial++) {
    lf_rgx p;
    CHECK_OK(lf_rgx_init(&p, &m, 25, 3 + (uint64_t)trial));
    for (int64_t i = 0; i < p.n_pol; i++)
        p.params[p.n_loc + i] = (float)((lf_rng_uniform(&r) * 2 - 1) * 0.3);
    lf_rgx_pol w;
    lf__rg_pol_view(&p, p.params + p.n_loc, &w);
    for (int k = 0; k < LF_RGX_HIDDEN; k++) { /* lean towards continuing, one way or the other */
        w.wstop[k] = trial % 2 ? 2.0f : -2.0f;
        w.wstop[LF_RGX_HIDDEN + k] = 0.0f;
    }
    lf_rgx_config cfg;
    lf_rgx_config_default(&cfg);
    cfg.max_size = 25;
    int32_t order[N], len = 0;
    CHECK_OK(lf_rgx_explain_nodes(&p, &m, &g, &cfg, order, &len));
    long_ones += len >= 8;
    /* The reference: every step priced from scratch. */
    int32_t ref[N], rlen = 1;
    uint8_t in[N] = {0};
    ref[0] = order[0];
    in[ref[0]] = 1;
    while (rlen < cfg.max_size) {
        double best, lp;
        CHECK_OK(lf_rgx_policy_logp(&p, &g, ref, rlen, -1, &best, NULL));
        int32_t a = -1;
        for (int32_t v = 0; v < N; v++) {
            int adj = 0;
            for (int32_t e = 0; e < ne; e++)
                adj |= (src[e] == v && in[dst[e]]) || (dst[e] == v && in[src[e]]);
            if (in[v] || !adj)
                continue;
            CHECK_OK(lf_rgx_policy_logp(&p, &g, ref, rlen, v, &lp, NULL));
            if (lp > best) {
                best = lp;
                a = v;
            }
        }
        if (a < 0)
            break;
        ref[rlen++] = a;
        in[a] = 1;
    }
    CHECK_EQ_I64(len, rlen);
    CHECK(memcmp(order, ref, sizeof(int32_t) * (size_t)(len < rlen ? len : rlen)) == 0);
    lf_rgx_destroy(&p);
    }
    CHECK(long_ones > 0); /* some episodes grow far beyond the 3-hop reach */
    lf_gnn_destroy(&m);
}

/* The kept node evaluations belong to one set of policy parameters: after
 * the parameters change (a training step), a group that forgets them gives
 * what a fresh group gives, and one that does not gives the old values
 * (why training forgets after every policy step, rgexplainer_train.c). */
static void test_rgx_forget(void)
{
    enum { N = 12 };
    lf_gnn m;
    float xs[TN * LF_FEAT_DIM];
    small_gnn(&m, xs, 31);
    static float x[N * LF_FEAT_DIM];
    int32_t src[N], dst[N], ne = 0;
    lf_rng r;
    lf_rng_seed(&r, 37, 0);
    for (int i = 0; i < N * LF_FEAT_DIM; i++)
        x[i] = (float)(lf_rng_uniform(&r) * 2 - 1);
    for (int32_t v = 1; v < N; v++)
        src[ne] = v - 1, dst[ne++] = v;
    lf_gnn_graph g = {N, ne, x, src, dst, NULL};
    lf_rgx p;
    CHECK_OK(lf_rgx_init(&p, &m, 8, 9));
    for (int64_t i = 0; i < p.n_pol; i++)
        p.params[p.n_loc + i] = (float)((lf_rng_uniform(&r) * 2 - 1) * 0.3);
    lf__rg_group a, b;
    CHECK_OK(lf__rg_group_init(&a, &g, NULL, NULL));
    memset(a.in_s, 0, N);
    a.in_s[4] = a.in_s[5] = 1;
    lf__rg_pol_run(&p, &a, 4, -1, 0, NULL);
    CHECK_EQ_I64(a.n_cand, 2);
    double old[2] = {a.lp_cand[0], a.lp_cand[1]};
    for (int64_t i = 0; i < p.n_pol; i++)
        p.params[p.n_loc + i] *= 1.5f;
    lf__rg_pol_run(&p, &a, 4, -1, 0, NULL);
    double stale[2] = {a.lp_cand[0], a.lp_cand[1]};
    lf__rg_group_forget(&a);
    lf__rg_pol_run(&p, &a, 4, -1, 0, NULL);
    CHECK_OK(lf__rg_group_init(&b, &g, NULL, NULL));
    memcpy(b.in_s, a.in_s, N);
    lf__rg_pol_run(&p, &b, 4, -1, 0, NULL);
    CHECK(a.lp_cand[0] == b.lp_cand[0] && a.lp_cand[1] == b.lp_cand[1]);
    CHECK(a.lp_cand[0] != old[0] || a.lp_cand[1] != old[1]);
    /* Without forgetting, the kept evaluations of the old parameters mix in. */
    CHECK(stale[0] != b.lp_cand[0] || stale[1] != b.lp_cand[1]);
    /* Each involved node's policy values are those of the row-by-row loop
     * (a double sum per output, products in input order), bit for bit:
     * the transposed, vectorised form only reorders independent outputs. */
    lf_rgx_pol w;
    lf__rg_pol_view(&p, p.params + p.n_loc, &w);
    enum { H = LF_RGX_HIDDEN, F = LF_FEAT_DIM };
    for (int32_t i = 0; i < b.n_inv; i++) {
        int32_t u = b.inv[i];
        float h[3][H];
        for (int k = 0; k < H; k++) {
            double acc = w.ws[k] * b.zs[u] + w.wn[k] * b.zn[u] + w.ba[k];
            for (int f = 0; f < F; f++)
                acc += (double)w.wa[k * F + f] * x[(int64_t)u * F + f];
            h[0][k] = (float)acc;
        }
        for (int bl = 0; bl < 2; bl++) {
            double t[H];
            for (int k = 0; k < H; k++)
                t[k] = h[bl][k] * lf_sigmoid(h[bl][k]);
            for (int k = 0; k < H; k++) {
                double acc = h[bl][k] + w.r[bl][k];
                for (int j = 0; j < H; j++)
                    acc += (double)w.R[bl][k * H + j] * t[j];
                h[bl + 1][k] = (float)acc;
            }
        }
        double c = 0, e = 0;
        for (int k = 0; k < H; k++) {
            c += (double)w.wnode[k] * h[2][k];
            e += (double)w.watt[k] * h[2][k];
        }
        CHECK(c == b.c[i] && e == b.e[i]);
    }
    /* The locator's score from its transposed first layer is
     * lf__rg_loc_node's, bit for bit. */
    for (int64_t i = 0; i < p.n_loc; i++)
        p.params[i] = (float)((lf_rng_uniform(&r) * 2 - 1) * 0.2);
    float lt[128 * 64], nv[64], ge[64];
    CHECK(p.emb_dim <= 64);
    lf__rg_loc_transpose(&p, lt);
    for (int trial = 0; trial < 20; trial++) {
        for (int c = 0; c < p.emb_dim; c++) {
            nv[c] = (float)(lf_rng_uniform(&r) * 4 - 2);
            ge[c] = (float)(lf_rng_uniform(&r) * 4 - 2);
        }
        CHECK(lf__rg_loc_score(&p, lt, nv, ge) == lf__rg_loc_node(&p, nv, ge, 0, NULL));
    }
    lf__rg_group_destroy(&a);
    lf__rg_group_destroy(&b);
    lf_rgx_destroy(&p);
    lf_gnn_destroy(&m);
}

static void test_baselines(void)
{
    lf_gnn m;
    float x[TN * LF_FEAT_DIM];
    small_gnn(&m, x, 13);
    lf_gnn_graph g = {TN, TE, x, t_src, t_dst, NULL};
    double sal[TE], occ[TE];
    CHECK_OK(lf_explainer_run(lf_explainer_saliency(), &m, &g, 1, sal));
    CHECK_OK(lf_explainer_run(lf_explainer_occlusion(), &m, &g, 1, occ));
    float w[TE], prob[2], base[2];
    CHECK_OK(lf_explain_predict(&m, &g, base));
    for (int e = 0; e < TE; e++) {
        CHECK(sal[e] >= 0);
        for (int i = 0; i < TE; i++)
            w[i] = i == e ? 0.0f : 1.0f;
        lf_gnn_graph v = g;
        v.ew = w;
        CHECK_OK(lf_explain_predict(&m, &v, prob));
        /* The occlusion score is the drop in log p(invalid). */
        CHECK_NEAR(occ[e], log(base[0]) - log(prob[0]), 1e-3);
    }
    lf_gnn_destroy(&m);
}

static void test_pgx_file(void)
{
    lf_gnn m;
    float x[TN * LF_FEAT_DIM];
    small_gnn(&m, x, 14);
    lf_pgx p, q;
    CHECK_OK(lf_pgx_init(&p, &m, 8, 6));
    char path[] = "test_explainers_pg.bin";
    CHECK_OK(lf_pgx_save(&p, path));
    CHECK_OK(lf_pgx_load(&q, path));
    CHECK_EQ_I64(q.n_params, p.n_params);
    CHECK(q.params && memcmp(q.params, p.params, sizeof(float) * (size_t)p.n_params) == 0);
    lf_pgx_destroy(&q);
    /* Corrupt one byte, truncate, bad magic. */
    FILE *f = fopen(path, "rb");
    unsigned char buf[1 << 16];
    size_t len = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    CHECK(len > 40 && len < sizeof buf);
    buf[40] ^= 1;
    CHECK(lf_pgx_load_memory(&q, buf, len, "x") == LF_EPARSE);
    buf[40] ^= 1;
    CHECK(lf_pgx_load_memory(&q, buf, len - 3, "x") == LF_EPARSE);
    buf[0] = 'X';
    CHECK(lf_pgx_load_memory(&q, buf, len, "x") == LF_EPARSE);
    buf[0] = 'L';
    buf[8] = 99; /* version */
    CHECK(lf_pgx_load_memory(&q, buf, len, "x") == LF_EUNSUPPORTED);
    remove(path);
    lf_pgx_destroy(&p);
    lf_gnn_destroy(&m);
}


/* RG-Explainer: policy log-probability and locator loss against finite
 * differences, every parameter block probed. */
static void test_rgx_gradients(void)
{
    lf_gnn m;
    float x[TN * LF_FEAT_DIM];
    small_gnn(&m, x, 16);
    lf_gnn_graph g = {TN, TE, x, t_src, t_dst, NULL};
    lf_rgx p;
    CHECK_OK(lf_rgx_init(&p, &m, 20, 3));
    /* Random policy weights, so the zero-initialised heads are exercised too. */
    lf_rng r;
    lf_rng_seed(&r, 17, 0);
    for (int64_t i = 0; i < p.n_pol; i++)
        p.params[p.n_loc + i] = (float)((lf_rng_uniform(&r) * 2 - 1) * 0.3);
    float *grad = calloc((size_t)(p.n_pol > p.n_loc ? p.n_pol : p.n_loc), sizeof(float));
    const int32_t sel[2] = {1, 3};
    const int32_t actions[3] = {0, 4, -1}; /* boundary of {1, 3}: 0, 2, 4; or stop */
    int bad = 0, nonzero = 0;
    for (int a = 0; a < 3; a++) {
        memset(grad, 0, sizeof(float) * (size_t)p.n_pol);
        double lp;
        CHECK_OK(lf_rgx_policy_logp(&p, &g, sel, 2, actions[a], &lp, grad));
        CHECK(lp < 0);
        lf_rng_seed(&r, 18, (uint64_t)a);
        for (int t = 0; t < 40; t++) {
            /* Half the probes in the small blocks (ws, wn, heads), half anywhere. */
            int64_t k = t % 2 ? (int64_t)lf_rng_below(&r, (uint32_t)p.n_pol)
                              : (t % 4 == 0 ? (int64_t)lf_rng_below(&r, 128)
                                            : p.n_pol - 1 - (int64_t)lf_rng_below(&r, 256));
            float *w = &p.params[p.n_loc + k];
            float keep = *w;
            double lpp, lpm, h = 1e-2;
            *w = keep + (float)h;
            CHECK_OK(lf_rgx_policy_logp(&p, &g, sel, 2, actions[a], &lpp, NULL));
            *w = keep - (float)h;
            CHECK_OK(lf_rgx_policy_logp(&p, &g, sel, 2, actions[a], &lpm, NULL));
            *w = keep;
            double num = (lpp - lpm) / (2 * h);
            nonzero += grad[k] != 0;
            if (!fd_ok(num, grad[k])) {
                bad++;
                fprintf(stderr, "rg policy action %d param %lld: numeric %.6g analytic %.6g\n",
                        actions[a], (long long)k, num, (double)grad[k]);
            }
        }
    }
    double lp_none; /* node 5 is not on the boundary of {1, 3} */
    CHECK(lf_rgx_policy_logp(&p, &g, sel, 2, 5, &lp_none, NULL) == LF_EINVAL);
    CHECK_EQ_I64(bad, 0);
    CHECK(nonzero > 40);
    /* Locator. */
    int32_t d = p.emb_dim;
    float *emb = malloc(sizeof(float) * TN * (size_t)d), *gemb = malloc(sizeof(float) * (size_t)d);
    for (int i = 0; i < TN * d; i++)
        emb[i] = (float)lf_rng_uniform(&r);
    for (int i = 0; i < d; i++)
        gemb[i] = (float)lf_rng_uniform(&r) * 3;
    double tgt[TN] = {0.1, 0.3, 0.05, 0.25, 0.2, 0.1};
    memset(grad, 0, sizeof(float) * (size_t)p.n_loc);
    double l0;
    CHECK_OK(lf_rgx_locator_loss(&p, emb, gemb, TN, tgt, &l0, grad));
    bad = nonzero = 0;
    for (int t = 0; t < 40; t++) {
        int64_t k = t < 30 ? (int64_t)lf_rng_below(&r, (uint32_t)p.n_loc)
                           : p.n_loc - 1 - (int64_t)lf_rng_below(&r, 80);
        float keep = p.params[k];
        /* The locator computes in double and its 8-unit ReLU layer sits near
         * its kinks at this init, so a small step. */
        double lp, lm, h = 1e-3;
        p.params[k] = keep + (float)h;
        CHECK_OK(lf_rgx_locator_loss(&p, emb, gemb, TN, tgt, &lp, NULL));
        p.params[k] = keep - (float)h;
        CHECK_OK(lf_rgx_locator_loss(&p, emb, gemb, TN, tgt, &lm, NULL));
        p.params[k] = keep;
        double num = (lp - lm) / (2 * h);
        nonzero += grad[k] != 0;
        if (!fd_ok(num, grad[k])) {
            bad++;
            fprintf(stderr, "rg locator param %lld: numeric %.6g analytic %.6g\n", (long long)k,
                    num, (double)grad[k]);
        }
    }
    CHECK_EQ_I64(bad, 0);
    CHECK(nonzero > 10);
    /* Weight file round trip. */
    char path[] = "test_explainers_rg.bin";
    lf_rgx q;
    CHECK_OK(lf_rgx_save(&p, path));
    CHECK_OK(lf_rgx_load(&q, path));
    CHECK(q.params && q.n_loc == p.n_loc && q.n_pol == p.n_pol &&
          memcmp(q.params, p.params, sizeof(float) * (size_t)(p.n_loc + p.n_pol)) == 0);
    lf_rgx_destroy(&q);
    remove(path);
    free(emb);
    free(gemb);
    free(grad);
    lf_rgx_destroy(&p);
    lf_gnn_destroy(&m);
}

/* ---- end to end ------------------------------------------------------------ */

/* A group the splitter accepts: invalid at this buffer size, with edges,
 * and every op valid alone (fusable). */
static int eligible(lf_cost_model *cm, const lf_ds_group *gr, int32_t kb)
{
    if (gr->valid[kb] || gr->n_edges == 0)
        return 0;
    for (int32_t v = 0; v < gr->n_nodes; v++)
        if (!lf_cost_fusable(cm, gr->ops[v]))
            return 0;
    return 1;
}

#define NX 5

static void test_end_to_end(void)
{
    clock_t t0 = clock();
    lf_ds_config dc;
    lf_ds_config_default(&dc);
    dc.scheme = "lbdf";
    dc.scale = 0.05;
    dc.only = "resnet18";
    dc.seed = 4;
    dc.max_nodes = 24;
    lf_dataset ds;
    lf_dataset_init(&ds, "lbdf");
    CHECK_OK(lf_dataset_build(&ds, &dc));
    lf_gnn m;
    lf_gnn_config c;
    lf_gnn_config_default(&c);
    c.hidden = 32;
    CHECK_OK(lf_gnn_init(&m, &c, 3));
    lf_dataset_fit_norm(&ds, &m.norm);
    snprintf(m.scheme, sizeof m.scheme, "lbdf");
    lf_gnn_sample *s = NULL;
    int64_t ns = 0;
    CHECK_OK(lf_dataset_samples(&ds, -1, &m.norm, &s, &ns));
    lf_gnn_train_config tc;
    lf_gnn_train_config_default(&tc);
    tc.epochs = 3;
    tc.batch = 16;
    tc.threads = 1;
    tc.keep_best = 0;
    CHECK_OK(lf_gnn_train(&m, s, ns, NULL, 0, &tc, NULL));
    double t_train = (double)(clock() - t0) / CLOCKS_PER_SEC;

    /* PGExplainer: a short run on a few invalid samples. */
    lf_pgx pg;
    CHECK_OK(lf_pgx_init(&pg, &m, 16, 2));
    lf_pgx_config pc;
    lf_pgx_config_default(&pc);
    pc.epochs = 2;
    pc.max_graphs = 16;
    CHECK_OK(lf_pgx_train(&pg, &m, s, ns, &pc));
    /* Same seed, same weights. */
    lf_pgx pg2;
    CHECK_OK(lf_pgx_init(&pg2, &m, 16, 2));
    CHECK_OK(lf_pgx_train(&pg2, &m, s, ns, &pc));
    CHECK(memcmp(pg.params, pg2.params, sizeof(float) * (size_t)pg.n_params) == 0);
    lf_pgx_destroy(&pg2);

    /* RG-Explainer: a tiny schedule of every phase. */
    lf_rgx rg;
    CHECK_OK(lf_rgx_init(&rg, &m, 12, 5));
    lf_rgx_config rc;
    lf_rgx_config_default(&rc);
    rc.max_size = 12;
    rc.max_graphs = 6;
    rc.loc_pretrain_iters = 3;
    rc.imit_list_epochs = 1;
    rc.imit_set_epochs = 1;
    rc.rl_epochs = 1;
    rc.rl_batch = 4;
    rc.rollouts = 2;
    rc.imit_batch = 4;
    CHECK_OK(lf_rgx_train(&rg, &m, s, ns, &rc));
    lf_rgx rg2;
    CHECK_OK(lf_rgx_init(&rg2, &m, 12, 5));
    CHECK_OK(lf_rgx_train(&rg2, &m, s, ns, &rc));
    CHECK(memcmp(rg.params, rg2.params, sizeof(float) * (size_t)(rg.n_loc + rg.n_pol)) == 0);
    lf_rgx_destroy(&rg2);

    lf_gnne_config gc;
    lf_gnne_config_default(&gc);
    gc.epochs = 30; /* keeps the test short; the default is 100 */
    lf_explainer *gnne = NULL, *pge = NULL, *rge = NULL;
    CHECK_OK(lf_explainer_gnne_create(&gnne, &gc));
    CHECK_OK(lf_explainer_pg_create(&pge, &pg));
    CHECK_OK(lf_explainer_rg_create(&rge, &rg));
    const lf_explainer *ex[NX] = {lf_explainer_saliency(), lf_explainer_occlusion(), gnne, pge,
                                  rge};

    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("resnet18", NULL, &g));
    /* The largest buffer size with a few eligible groups: small buffers make
     * single convolutions unfusable. */
    int32_t kb = ds.n_betas - 1;
    lf_cost_model *cm = NULL;
    for (; kb >= 0; kb--) {
        lf_hw hw;
        lf_hw_default(&hw);
        hw.buffer_bytes = ds.betas[kb];
        lf_cost_model_free(cm);
        cm = NULL;
        CHECK_OK(lf_cost_model_create(&cm, g, &hw, "lbdf"));
        int n = 0;
        for (int64_t i = 0; cm && i < ds.n_groups; i++)
            n += eligible(cm, &ds.groups[i], kb);
        if (n >= 3)
            break;
    }
    CHECK(kb >= 0 && cm);
    if (kb < 0 || !cm)
        kb = 0;
    lf_bitset grp;
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    lf_edge_score *out = malloc(sizeof(lf_edge_score) * 1024);
    lf_edge_score *out2 = malloc(sizeof(lf_edge_score) * 1024);
    lf_split_result res;
    CHECK_OK(lf_split_result_init(&res, g->n_ops));
    int groups = 0, splits = 0;
    double t_ex[NX] = {0};
    for (int64_t i = 0; i < ds.n_groups && groups < 4; i++) {
        const lf_ds_group *gr = &ds.groups[i];
        if (!cm || !eligible(cm, gr, kb))
            continue;
        lf_bitset_clear_all(&grp);
        for (int32_t v = 0; v < gr->n_nodes; v++)
            lf_bitset_set(&grp, gr->ops[v]);
        int32_t n_edges = lf_group_edge_count(g, &grp);
        if (n_edges > 1024)
            continue;
        groups++;
        for (int j = 0; j < NX; j++) {
            lf_proposer *p = NULL;
            CHECK_OK(lf_proposer_from_explainer(&p, ex[j], &m));
            if (!p)
                continue;
            CHECK_STR(p->name, ex[j]->name);
            int32_t n1 = -1, n2 = -1;
            uint64_t seed = lf_split_seed(7, &grp);
            clock_t c0 = clock();
            CHECK_OK(lf_proposer_run(p, cm, &grp, seed, 3, out, &n1));
            t_ex[j] += (double)(clock() - c0) / CLOCKS_PER_SEC;
            CHECK_OK(lf_proposer_run(p, cm, &grp, seed, 3, out2, &n2));
            CHECK_EQ_I64(n1, n2 < 0 ? -2 : n2);
            CHECK_EQ_I64(n1, n_edges < 3 ? n_edges : 3);
            CHECK(n1 > 0 && memcmp(out, out2, sizeof *out * (size_t)n1) == 0);
            /* Thread safety: two threads at once give the serial answer. */
#ifdef _OPENMP
            {
                lf_edge_score *tout = malloc(sizeof(lf_edge_score) * 2 * 1024);
                int32_t tn[2] = {-1, -1};
                lf_status tst[2] = {LF_EINVAL, LF_EINVAL};
#pragma omp parallel for num_threads(2) schedule(static, 1)
                for (int th = 0; th < 2; th++)
                    tst[th] = lf_proposer_run(p, cm, &grp, seed, 3, tout + th * 1024, &tn[th]);
                for (int th = 0; th < 2; th++) {
                    CHECK(tst[th] == LF_OK && tn[th] == n1);
                    CHECK(tn[th] == n1 && n1 > 0 &&
                          memcmp(tout + th * 1024, out, sizeof *out * (size_t)n1) == 0);
                }
                free(tout);
            }
#endif
            /* k <= 0: every edge, ranked. */
            CHECK_OK(lf_proposer_run(p, cm, &grp, seed, 0, out2, &n2));
            CHECK_EQ_I64(n2, n_edges);
            lf_splitter *sp = NULL;
            CHECK_OK(lf_splitter_tree_create(&sp, p, 3, NULL));
            lf_status sst = sp ? sp->split(sp, cm, &grp, 7, &res) : LF_EINVAL;
            if (sst != LF_OK)
                fprintf(stderr, "split with %s: %s\n", ex[j]->name, lf_last_error());
            if (sst == LF_OK) {
                CHECK_OK(lf_split_result_check(cm, &grp, &res));
                CHECK(res.n_parts >= 2);
                splits++;
            } else {
                CHECK(0);
            }
            lf_splitter_free(sp);
            lf_proposer_free(p);
        }
    }
    CHECK(groups > 0);
    CHECK_EQ_I64(splits, NX * groups);
    /* A GNN trained for BRR refuses to answer for an LBDF cost model. */
    snprintf(m.scheme, sizeof m.scheme, "brr");
    lf_proposer *p = NULL;
    CHECK_OK(lf_proposer_from_explainer(&p, lf_explainer_saliency(), &m));
    int32_t n1 = 0;
    if (groups > 0)
        CHECK(lf_proposer_run(p, cm, &grp, 1, 3, out, &n1) == LF_EINVAL);
    lf_proposer_free(p);
    printf("end to end: %d groups of resnet18 at beta %lld, GNN trained in %.2f s; per group: "
           "saliency %.4f s, occlusion %.4f s, gnne(30 it) %.4f s, pg %.4f s, rg %.4f s\n",
           groups, (long long)ds.betas[kb], t_train, t_ex[0] / (groups ? groups : 1),
           t_ex[1] / (groups ? groups : 1), t_ex[2] / (groups ? groups : 1),
           t_ex[3] / (groups ? groups : 1), t_ex[4] / (groups ? groups : 1));

    lf_split_result_destroy(&res);
    free(out);
    free(out2);
    lf_bitset_destroy(&grp);
    lf_cost_model_free(cm);
    lf_graph_free(g);
    lf_explainer_free(gnne);
    lf_explainer_free(pge);
    lf_explainer_free(rge);
    lf_rgx_destroy(&rg);
    lf_pgx_destroy(&pg);
    lf_dataset_samples_free(s, ns);
    lf_gnn_destroy(&m);
    lf_dataset_destroy(&ds);
}

/* GNNExplainer: the same seed gives the same scores, another seed may not. */
static void test_gnne_determinism(void)
{
    lf_gnn m;
    float x[TN * LF_FEAT_DIM];
    small_gnn(&m, x, 15);
    lf_gnn_graph g = {TN, TE, x, t_src, t_dst, NULL};
    lf_explainer *e = NULL;
    CHECK_OK(lf_explainer_gnne_create(&e, NULL));
    double a[TE], b[TE], c[TE];
    CHECK_OK(lf_explainer_run(e, &m, &g, 5, a));
    CHECK_OK(lf_explainer_run(e, &m, &g, 5, b));
    CHECK_OK(lf_explainer_run(e, &m, &g, 6, c));
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(memcmp(a, c, sizeof a) != 0);
    for (int i = 0; i < TE; i++)
        CHECK(a[i] >= 0 && a[i] <= 1);
    lf_gnne_config bad;
    lf_gnne_config_default(&bad);
    CHECK(bad.patience == 0); /* the default runs every epoch: PyG's result */
    bad.lr = 0;
    lf_explainer *e2 = NULL;
    CHECK(lf_explainer_gnne_create(&e2, &bad) == LF_EINVAL);
    bad.lr = 0.01f;
    bad.patience = -1;
    CHECK(lf_explainer_gnne_create(&e2, &bad) == LF_EINVAL);
    /* Early stopping stops at an iteration boundary: its scores are those
     * of a full run with fewer epochs; a patience no shorter than the run
     * changes nothing. */
    for (int top = 0; top <= 2; top += 2) {
        lf_gnne_config pc;
        lf_gnne_config_default(&pc);
        pc.patience = 3;
        pc.top = top;
        lf_explainer *ep = NULL;
        CHECK_OK(lf_explainer_gnne_create(&ep, &pc));
        double early[TE], full[TE];
        CHECK_OK(lf_explainer_run(ep, &m, &g, 5, early));
        lf_explainer_free(ep);
        int matched = 0;
        for (int32_t ep_n = 1; ep_n <= 100 && !matched; ep_n++) {
            lf_gnne_config fc;
            lf_gnne_config_default(&fc);
            fc.epochs = ep_n;
            lf_explainer *ef = NULL;
            CHECK_OK(lf_explainer_gnne_create(&ef, &fc));
            CHECK_OK(lf_explainer_run(ef, &m, &g, 5, full));
            lf_explainer_free(ef);
            matched = memcmp(early, full, sizeof full) == 0;
        }
        CHECK(matched);
    }
    {
        lf_gnne_config pc;
        lf_gnne_config_default(&pc);
        pc.patience = 100;
        lf_explainer *ep = NULL;
        CHECK_OK(lf_explainer_gnne_create(&ep, &pc));
        CHECK_OK(lf_explainer_run(ep, &m, &g, 5, b));
        lf_explainer_free(ep);
        CHECK(memcmp(a, b, sizeof a) == 0);
    }
    lf_explainer_free(e);
    lf_gnn_destroy(&m);
}

int main(void)
{
    test_gnne_gradient();
    test_pgx_gradient();
    test_pgx_projection();
    test_rgx_incremental();
    test_rgx_forget();
    test_baselines();
    test_pgx_file();
    test_gnne_determinism();
    test_rgx_gradients();
    test_end_to_end();
    return lf_test_result();
}
