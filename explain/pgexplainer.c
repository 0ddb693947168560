/* PGExplainer (Luo et al. 2020; reference §3), graph task, as in PyG:
 *
 *   omega_e = w2 . ReLU(W1 [h_src; h_dst] + b1) + b2     (2d -> 64 -> 1)
 *   h: the frozen GNN's last-layer node embeddings (post-ReLU, as PG-orig);
 *   training: s_e = sigmoid((ln eps - ln(1 - eps) + omega_e) / tau),
 *             eps ~ U(0.01, 0.99), tau(ep) = 5 (2/5)^(ep/E);
 *   L = -log p(invalid | w = s) + 0.05 sum s + 1.0 mean H(0.99 s + 0.005);
 *   Adam lr 0.003, one step per graph (PyG), 25 epochs (the paper);
 *   inference: s_e = sigmoid(omega_e), no noise, one pass per group; the
 *   explainer reports omega_e itself, which ranks like the mask but keeps
 *   edges apart where a confident MLP saturates sigmoid at 1.
 *
 * The GNN is undirected with one weight per edge, so no symmetrisation of
 * the mask is needed. Training is single threaded: per-graph Adam steps are
 * sequential anyway, and it keeps the weights independent of the thread
 * count. The embeddings are recomputed per graph and epoch (one extra GNN
 * forward) instead of cached, so memory does not grow with the dataset. */
#include "explain/explainer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain/weights.h"
#include "planner/util/binfile.h"
#include "planner/util/fileio.h"
#include "planner/util/rng.h"
#include "planner/util/stash.h"

/* As in matmul.c: an AVX2 copy next to the baseline one. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && defined(__has_attribute) && \
    !defined(LF_NO_VECTOR_CLONES)
#if __has_attribute(target_clones)
#define LF_PGX_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef LF_PGX_VECTOR_CLONES
#define LF_PGX_VECTOR_CLONES
#endif

static lf__binfile lf__pg_file(void)
{
    return (lf__binfile){"LFPGXWT", LF_PGX_WEIGHTS_VERSION, lf_feat_schema_hash(),
                         "PGExplainer weight file", "retrain it"};
}

void lf_pgx_config_default(lf_pgx_config *c)
{
    memset(c, 0, sizeof *c);
    c->epochs = 25;
    c->lr = 0.003f;
    c->size_coef = 0.05f;
    c->ent_coef = 1.0f;
    c->t0 = 5.0f;
    c->t1 = 2.0f;
    c->bias = 0.01f;
    c->seed = 1;
}

static int64_t lf__pgx_count(int32_t d, int32_t h)
{
    return (int64_t)h * 2 * d + h + h + 1;
}

static lf_status lf__pgx_alloc(lf_pgx *p, int32_t d, int32_t h)
{
    memset(p, 0, sizeof *p);
    if (d <= 0 || h <= 0 || d > LF_GNN_MAX_WIDTH || h > LF_GNN_MAX_WIDTH)
        return lf_set_error(LF_EINVAL, "PGExplainer: bad dimensions %d, %d", (int)d, (int)h);
    p->emb_dim = d;
    p->hidden = h;
    p->n_params = lf__pgx_count(d, h);
    p->params = calloc((size_t)p->n_params, sizeof(float));
    if (!p->params)
        return lf_set_error(LF_ENOMEM, "out of memory for %lld PGExplainer parameters",
                            (long long)p->n_params);
    return LF_OK;
}

lf_status lf_pgx_init(lf_pgx *p, const lf_gnn *m, int32_t hidden, uint64_t seed)
{
    lf_status st = lf__pgx_alloc(p, m->cfg.hidden, hidden);
    if (st != LF_OK)
        return st;
    /* PyTorch Linear: weights and bias ~ U(-1/sqrt(fan_in), +). */
    lf_rng r;
    lf_rng_seed(&r, seed, 0);
    int32_t d2 = 2 * p->emb_dim, h = p->hidden;
    int64_t first = (int64_t)h * d2 + h;
    lf_linear_init(&r, p->params, first, d2);
    lf_linear_init(&r, p->params + first, p->n_params - first, h);
    return LF_OK;
}

void lf_pgx_destroy(lf_pgx *p)
{
    if (!p)
        return;
    free(p->params);
    memset(p, 0, sizeof *p);
}

/* MLP of one edge: writes the hidden pre-activations z (hidden wide) and
 * returns omega. */
static double lf__pgx_edge(const lf_pgx *p, const float *hs, const float *hd, float *z)
{
    int32_t d = p->emb_dim, h = p->hidden;
    const float *W1 = p->params, *b1 = W1 + (int64_t)h * 2 * d, *w2 = b1 + h, *b2 = w2 + h;
    double om = b2[0];
    for (int32_t j = 0; j < h; j++) {
        const float *row = W1 + (int64_t)j * 2 * d;
        double acc = b1[j];
        for (int32_t c = 0; c < d; c++)
            acc += (double)row[c] * hs[c] + (double)row[d + c] * hd[c];
        z[j] = (float)acc;
        if (acc > 0)
            om += (double)w2[j] * acc;
    }
    return om;
}

static lf_status lf__pgx_check(const lf_pgx *p, const lf_gnn *m)
{
    if (!p || !p->params || !m)
        return lf_set_error(LF_EINVAL, "PGExplainer: NULL or uninitialised argument");
    if (p->emb_dim != m->cfg.hidden)
        return lf_set_error(LF_EINVAL, "PGExplainer takes %d-wide embeddings, the GNN gives %d",
                            (int)p->emb_dim, (int)m->cfg.hidden);
    return LF_OK;
}

/* The GNN's last-layer embeddings of g into emb (n_nodes x hidden). */
static lf_status lf__pgx_embed(const lf_gnn *m, lf_gnn_ws *ws, const lf_gnn_graph *g, float *emb)
{
    lf_gnn_graph v = *g;
    v.ew = NULL;
    float logits[8];
    lf_status st = lf_gnn_forward(m, &v, ws, logits);
    if (st != LF_OK)
        return st;
    memcpy(emb, lf_gnn_ws_node_embedding(ws, m->cfg.n_layers),
           sizeof(float) * (size_t)g->n_nodes * (size_t)m->cfg.hidden);
    return LF_OK;
}

lf_status lf_pgx_objective(const lf_pgx *p, const lf_gnn *m, lf_gnn_ws *ws,
                           const lf_gnn_graph *g, const float *emb, const float *noise, float tau,
                           const lf_pgx_config *cfg, double *loss, float *grad)
{
    lf_status st = lf__pgx_check(p, m);
    if (st != LF_OK)
        return st;
    int32_t ne = g->n_edges, d = p->emb_dim, h = p->hidden;
    if (ne == 0) {
        if (loss)
            *loss = 0;
        return LF_OK;
    }
    float *z = malloc(sizeof(float) * (size_t)ne * (size_t)h);
    float *s = malloc(sizeof(float) * (size_t)ne);
    float *dew = malloc(sizeof(float) * (size_t)ne);
    if (!z || !s || !dew) {
        st = lf_set_error(LF_ENOMEM, "out of memory for PGExplainer on %d edges", (int)ne);
        goto done;
    }
    for (int32_t e = 0; e < ne; e++) {
        double om = lf__pgx_edge(p, emb + (int64_t)g->src[e] * d, emb + (int64_t)g->dst[e] * d,
                                 z + (int64_t)e * h);
        double u = ((noise ? noise[e] : 0.0) + om) / tau;
        s[e] = (float)lf_sigmoid(u);
    }
    lf_gnn_graph v = *g;
    v.ew = s;
    float logits[2], dlog[2];
    if ((st = lf_gnn_forward(m, &v, ws, logits)) != LF_OK)
        goto done;
    double l = lf_softmax_ce(logits, 2, 0, dlog, NULL);
    if ((st = lf_gnn_backward(m, ws, dlog, NULL, NULL, dew)) != LF_OK)
        goto done;
    const float *W1 = p->params, *w2 = W1 + (int64_t)h * 2 * d + h;
    float *gW1 = grad, *gb1 = grad ? grad + (int64_t)h * 2 * d : NULL;
    float *gw2 = grad ? gb1 + h : NULL, *gb2 = grad ? gw2 + h : NULL;
    (void)W1;
    for (int32_t e = 0; e < ne; e++) {
        double se = s[e], pe = 0.99 * se + 0.005;
        l += cfg->size_coef * se +
             cfg->ent_coef * (-pe * log(pe) - (1 - pe) * log(1 - pe)) / ne;
        if (!grad)
            continue;
        double ds = dew[e] + cfg->size_coef + cfg->ent_coef * 0.99 * log((1 - pe) / pe) / ne;
        double delta = ds * se * (1 - se) / tau; /* dL/domega */
        const float *ze = z + (int64_t)e * h;
        const float *hs = emb + (int64_t)g->src[e] * d, *hd = emb + (int64_t)g->dst[e] * d;
        gb2[0] += (float)delta;
        for (int32_t j = 0; j < h; j++) {
            if (ze[j] <= 0)
                continue;
            gw2[j] += (float)(delta * ze[j]);
            float dz = (float)(delta * w2[j]);
            gb1[j] += dz;
            float *row = gW1 + (int64_t)j * 2 * d;
            for (int32_t c = 0; c < d; c++) {
                row[c] += dz * hs[c];
                row[d + c] += dz * hd[c];
            }
        }
    }
    if (loss)
        *loss = l;
done:
    free(z);
    free(s);
    free(dew);
    return st;
}

/* omega_e = b2 + sum_j w2_j ReLU(U[src]_j + V[dst]_j + b1_j) with the
 * per-node projections U = H W1a^T, V = H W1b^T (W1 = [W1a | W1b]): the
 * first layer costs O(n h d) once per group instead of O(e h 2d), and the
 * edge loop is a float vector update. The same function as lf__pgx_edge up
 * to rounding (float sums in another order), so edges whose logits differ in
 * the last bits may swap places. */
LF_PGX_VECTOR_CLONES
static void lf__pgx_edges_projected(const lf_pgx *p, const lf_gnn_graph *g, const float *u,
                                    const float *v, float *omega)
{
    int32_t h = p->hidden, d = p->emb_dim;
    const float *b1 = p->params + (int64_t)h * 2 * d, *w2 = b1 + h, *b2 = w2 + h;
    for (int32_t e = 0; e < g->n_edges; e++) {
        const float *us = u + (int64_t)g->src[e] * h, *vd = v + (int64_t)g->dst[e] * h;
        /* Eight partial sums, added up in a fixed order: a vector
         * reduction that is the same on every run and machine. */
        float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int32_t j = 0;
        for (; j + 8 <= h; j += 8)
            for (int32_t l = 0; l < 8; l++) {
                float a = us[j + l] + vd[j + l] + b1[j + l];
                lane[l] += a > 0.0f ? w2[j + l] * a : 0.0f;
            }
        for (; j < h; j++) {
            float a = us[j] + vd[j] + b1[j];
            lane[j & 7] += a > 0.0f ? w2[j] * a : 0.0f;
        }
        float om = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
        omega[e] = om + b2[0];
    }
}

/* What one explanation needs besides the models: a GNN workspace and the
 * projections' buffers, kept between calls by the explainer (a stash: one
 * per thread at work) so that large groups do not fault in fresh pages on
 * every call. */
typedef struct lf__pgx_scratch {
    lf_gnn_ws *ws;
    float *wt, *uv, *om;
    int32_t cap_nodes, cap_edges;
} lf__pgx_scratch;

static void lf__pgx_scratch_free(void *item)
{
    lf__pgx_scratch *x = item;
    if (!x)
        return;
    lf_gnn_ws_free(x->ws);
    free(x->wt);
    free(x->uv);
    free(x->om);
    free(x);
}

/* Grows x (or makes it) for graph g and GNN m; NULL without memory. */
static lf__pgx_scratch *lf__pgx_scratch_fit(lf__pgx_scratch *x, const lf_pgx *p, const lf_gnn *m,
                                            const lf_gnn_graph *g)
{
    if ((!x && (!(x = calloc(1, sizeof *x)) ||
                !(x->wt = malloc(sizeof(float) * (size_t)2 * (size_t)p->emb_dim * (size_t)p->hidden)))) ||
        lf_gnn_ws_refit(&x->ws, m) != LF_OK) {
        lf__pgx_scratch_free(x);
        return NULL;
    }
    int32_t n = g->n_nodes ? g->n_nodes : 1, ne = g->n_edges ? g->n_edges : 1;
    if (n > x->cap_nodes) {
        free(x->uv);
        x->cap_nodes = 0;
        if (!(x->uv = malloc(sizeof(float) * (size_t)2 * (size_t)n * (size_t)p->hidden))) {
            lf__pgx_scratch_free(x);
            return NULL;
        }
        x->cap_nodes = n;
    }
    if (ne > x->cap_edges) {
        free(x->om);
        x->cap_edges = 0;
        if (!(x->om = malloc(sizeof(float) * (size_t)ne))) {
            lf__pgx_scratch_free(x);
            return NULL;
        }
        x->cap_edges = ne;
    }
    return x;
}

/* W1 is h x 2d, row j = [W1a_j | W1b_j]; wt = W1^T is 2d x h: its first d
 * rows are W1a^T, the next d rows W1b^T. */
static void lf__pgx_transpose_w1(const lf_pgx *p, float *wt)
{
    lf_mm_transpose(p->hidden, 2 * p->emb_dim, p->params, wt);
}

/* The logits with x's buffers (x fits g) and W1^T in wt. */
static lf_status lf__pgx_logits_in(const lf_pgx *p, const lf_gnn *m, const lf_gnn_graph *g,
                                   const float *wt, lf__pgx_scratch *x, float *omega)
{
    int32_t d = p->emb_dim, h = p->hidden, n = x->cap_nodes;
    lf_gnn_graph v = *g;
    v.ew = NULL;
    float logits[8];
    lf_status st = lf_gnn_forward(m, &v, x->ws, logits);
    if (st != LF_OK)
        return st;
    const float *emb = lf_gnn_ws_node_embedding(x->ws, m->cfg.n_layers);
    lf_mm_nn(g->n_nodes, h, d, emb, wt, x->uv, 0);
    lf_mm_nn(g->n_nodes, h, d, emb, wt + (int64_t)d * h, x->uv + (int64_t)n * h, 0);
    lf__pgx_edges_projected(p, g, x->uv, x->uv + (int64_t)n * h, omega);
    return LF_OK;
}

lf_status lf_pgx_logits(const lf_pgx *p, const lf_gnn *m, const lf_gnn_graph *g, float *omega)
{
    lf_status st = lf__pgx_check(p, m);
    if (st != LF_OK)
        return st;
    lf__pgx_scratch *x = lf__pgx_scratch_fit(NULL, p, m, g);
    if (!x)
        return lf_set_error(LF_ENOMEM, "out of memory for PGExplainer embeddings");
    lf__pgx_transpose_w1(p, x->wt);
    st = lf__pgx_logits_in(p, m, g, x->wt, x, omega);
    lf__pgx_scratch_free(x);
    return st;
}

lf_status lf_pgx_train(lf_pgx *p, const lf_gnn *m, const lf_gnn_sample *s, int64_t n,
                       const lf_pgx_config *cfg)
{
    lf_status st = lf__pgx_check(p, m);
    if (st != LF_OK)
        return st;
    if (!cfg || cfg->epochs < 0 || !(cfg->lr > 0) || !(cfg->t0 > 0) || !(cfg->t1 > 0) ||
        !(cfg->bias >= 0 && cfg->bias < 0.5f))
        return lf_set_error(LF_EINVAL, "PGExplainer: bad training configuration");
    int64_t n_inv = 0, max_nodes = 1, max_edges = 1;
    for (int64_t i = 0; i < n; i++)
        if (s[i].label == 0 && s[i].g.n_edges > 0) {
            n_inv++;
            max_nodes = s[i].g.n_nodes > max_nodes ? s[i].g.n_nodes : max_nodes;
            max_edges = s[i].g.n_edges > max_edges ? s[i].g.n_edges : max_edges;
        }
    if (n_inv == 0)
        return lf_set_error(LF_EINVAL, "PGExplainer: no invalid sample with edges to train on");
    if (n_inv > INT32_MAX)
        return lf_set_error(LF_ERANGE, "PGExplainer: too many samples");
    int32_t *idx = malloc(sizeof(int32_t) * (size_t)n_inv);
    float *emb = malloc(sizeof(float) * (size_t)max_nodes * (size_t)p->emb_dim);
    float *noise = malloc(sizeof(float) * (size_t)max_edges);
    float *grad = malloc(sizeof(float) * (size_t)p->n_params);
    lf_gnn_ws *ws = NULL;
    lf_adam adam = {0};
    if (!idx || !emb || !noise || !grad || lf_adam_init(&adam, p->n_params, cfg->lr) != 0) {
        st = lf_set_error(LF_ENOMEM, "out of memory for PGExplainer training");
        goto done;
    }
    /* The GNN is frozen while the explainer trains. */
    if ((st = lf_gnn_ws_create(&ws, m)) != LF_OK || (st = lf_gnn_ws_fix_weights(ws, m)) != LF_OK)
        goto done;
    int32_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (s[i].label == 0 && s[i].g.n_edges > 0)
            idx[k++] = (int32_t)i;
    lf_rng r;
    int32_t use = k;
    if (cfg->max_graphs > 0 && cfg->max_graphs < k) {
        /* A seeded subset, so a small budget still sees every network. */
        lf_rng_seed(&r, cfg->seed, 0x70677375ULL);
        lf_rng_shuffle_i32(&r, idx, k);
        use = (int32_t)cfg->max_graphs;
    }
    for (int32_t ep = 0; ep < cfg->epochs; ep++) {
        float tau = (float)(cfg->t0 * pow((double)cfg->t1 / cfg->t0, (double)ep / cfg->epochs));
        lf_rng_seed(&r, cfg->seed, 1 + (uint64_t)ep);
        lf_rng_shuffle_i32(&r, idx, use);
        double sum = 0;
        for (int32_t t = 0; t < use; t++) {
            const lf_gnn_graph *g = &s[idx[t]].g;
            if ((st = lf__pgx_embed(m, ws, g, emb)) != LF_OK)
                goto done;
            /* Noise from the sample's own stream: independent of the order. */
            lf_rng nr;
            lf_rng_seed(&nr, cfg->seed, lf_rng_mix(1000003ULL + (uint64_t)ep, (uint64_t)idx[t]));
            for (int32_t e = 0; e < g->n_edges; e++) {
                double eps = cfg->bias + (1 - 2.0 * cfg->bias) * lf_rng_uniform(&nr);
                if (eps <= 0)
                    eps = 1e-12;
                noise[e] = (float)(log(eps) - log(1 - eps));
            }
            memset(grad, 0, sizeof(float) * (size_t)p->n_params);
            double l = 0;
            if ((st = lf_pgx_objective(p, m, ws, g, emb, noise, tau, cfg, &l, grad)) != LF_OK)
                goto done;
            lf_adam_step(&adam, p->params, grad);
            sum += l;
        }
        if (cfg->on_epoch)
            cfg->on_epoch(cfg->ctx, ep + 1, sum / use, tau);
    }
done:
    lf_adam_destroy(&adam);
    lf_gnn_ws_free(ws);
    free(idx);
    free(emb);
    free(noise);
    free(grad);
    return st;
}

/* ---- weight file -------------------------------------------------------- */

lf_status lf_pgx_save(const lf_pgx *p, const char *path)
{
    if (!p || !p->params || !path)
        return lf_set_error(LF_EINVAL, "lf_pgx_save: NULL argument");
    lf__wbuf b = {0};
    lf__binfile bf = lf__pg_file();
    lf__bin_begin(&b, &bf);
    lf__w_u32(&b, (uint32_t)p->emb_dim);
    lf__w_u32(&b, (uint32_t)p->hidden);
    lf__w_u64(&b, (uint64_t)p->n_params);
    for (int64_t i = 0; i < p->n_params; i++)
        lf__w_f32(&b, p->params[i]);
    return lf__bin_commit(&b, path);
}

lf_status lf_pgx_load_memory(lf_pgx *p, const void *data, size_t len, const char *origin)
{
    memset(p, 0, sizeof *p);
    lf__binfile bf = lf__pg_file();
    lf__rbuf r;
    lf_status st = lf__bin_open(&bf, data, len, origin, &r);
    if (st != LF_OK)
        return st;
    uint32_t d = lf__r_u32(&r), h = lf__r_u32(&r);
    uint64_t np = lf__r_u64(&r);
    if (r.short_)
        return lf_set_error(LF_EPARSE, "%s: truncated PGExplainer weight file (header)", origin);
    if (d == 0 || h == 0 || d > LF_GNN_MAX_WIDTH || h > LF_GNN_MAX_WIDTH ||
        np != (uint64_t)lf__pgx_count((int32_t)d, (int32_t)h))
        return lf_set_error(LF_EINVAL, "%s: inconsistent dimensions (%u, %u, %llu parameters)",
                            origin, (unsigned)d, (unsigned)h, (unsigned long long)np);
    if ((st = lf__bin_rest(&bf, &r, 4 * np, origin)) != LF_OK)
        return st;
    st = lf__pgx_alloc(p, (int32_t)d, (int32_t)h);
    if (st != LF_OK)
        return st;
    for (uint64_t i = 0; i < np; i++)
        p->params[i] = lf__r_f32(&r);
    for (uint64_t i = 0; i < np; i++)
        if (!isfinite(p->params[i])) {
            lf_pgx_destroy(p);
            return lf_set_error(LF_EPARSE, "%s: non-finite parameter", origin);
        }
    return LF_OK;
}

lf_status lf_pgx_load(lf_pgx *p, const char *path)
{
    memset(p, 0, sizeof *p);
    char *data = NULL;
    size_t len = 0;
    lf__binfile bf = lf__pg_file();
    lf_status st = lf__bin_read(&bf, path, LF_GNN_FILE_MAX, &data, &len);
    if (st != LF_OK)
        return st;
    st = lf_pgx_load_memory(p, data, len, path);
    free(data);
    return st;
}

/* ---- explainer ---------------------------------------------------------- */

typedef struct lf__pg {
    lf_explainer e;
    const lf_pgx *p;
    float *wt;        /* W1^T (lf__pgx_transpose_w1), made once */
    lf_stash scratch; /* lf__pgx_scratch, one per thread at work */
} lf__pg;

static lf_status lf__pg_explain(const lf_explainer *e, const lf_gnn *m, const lf_gnn_graph *g,
                                uint64_t seed, double *score)
{
    (void)seed;
    lf__pg *pg = e->ctx;
    lf_status st = lf__pgx_check(pg->p, m);
    if (st != LF_OK)
        return st;
    lf__pgx_scratch *x = lf__pgx_scratch_fit(lf_stash_take(&pg->scratch), pg->p, m, g);
    if (!x)
        return lf_set_error(LF_ENOMEM, "out of memory for PGExplainer on %d edges", (int)g->n_edges);
    st = lf__pgx_logits_in(pg->p, m, g, pg->wt, x, x->om);
    if (st == LF_OK)
        for (int32_t i = 0; i < g->n_edges; i++)
            score[i] = x->om[i]; /* the logit: sigmoid's order without its saturation ties */
    lf_stash_give(&pg->scratch, x);
    return st;
}

static void lf__pg_free(lf_explainer *e)
{
    lf__pg *pg = e->ctx;
    lf_stash_destroy(&pg->scratch);
    free(pg->wt);
    free(pg);
}

lf_status lf_explainer_pg_create(lf_explainer **out, const lf_pgx *p)
{
    if (!out || !p || !p->params)
        return lf_set_error(LF_EINVAL, "lf_explainer_pg_create: NULL or empty PGExplainer");
    *out = NULL;
    lf__pg *pg = calloc(1, sizeof *pg);
    if (pg)
        pg->wt = malloc(sizeof(float) * (size_t)2 * (size_t)p->emb_dim * (size_t)p->hidden);
    if (!pg || !pg->wt) {
        free(pg);
        return lf_set_error(LF_ENOMEM, "out of memory for PGExplainer");
    }
    lf_status st = lf_stash_init(&pg->scratch, lf__pgx_scratch_free, "PGExplainer's scratch");
    if (st != LF_OK) {
        free(pg->wt);
        free(pg);
        return st;
    }
    lf__pgx_transpose_w1(p, pg->wt);
    pg->p = p;
    pg->e.name = "pg";
    pg->e.uses_seed = 0;
    pg->e.explain = lf__pg_explain;
    pg->e.free = lf__pg_free;
    pg->e.ctx = pg;
    *out = &pg->e;
    return LF_OK;
}
