/* RG-Explainer core: PPR state features, the policy's forward and backward
 * pass, the seed locator, the reward, episodes, and the three training
 * phases (locator pretraining, imitation, REINFORCE). See rgexplainer.c for
 * the model and its hyperparameters. Forward and backward are written by
 * hand; every parameter gradient is checked by finite differences in
 * tests/test_explainers.c. Single threaded, so results never depend on the
 * thread count; all randomness comes from lf_rng streams of cfg->seed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explainer.h"
#include "explain/explainer_rg.h"
#include "planner/util/rng.h"

#define H LF_RGX_HIDDEN
#define F LF_FEAT_DIM
#define LF__RG_ALPHA 0.85
#define LF__RG_HOPS 3

static double lf__sig(double x)
{
    return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}
static double lf__swish(double x) { return x * lf__sig(x); }
static double lf__dswish(double x)
{
    double s = lf__sig(x);
    return s + x * s * (1 - s);
}

/* ---- one group ------------------------------------------------------------ */

/* A group with its undirected adjacency, embeddings and policy scratch. */
typedef struct lf__rgg {
    const lf_gnn_graph *g;
    int32_t n;
    int32_t *adj_start, *adj; /* undirected CSR */
    float *emb, *gemb;        /* node embeddings (n x d), readout (d); NULL without a GNN */
    double *zs, *zn, *tmp;    /* PPR vectors */
    double *ind;              /* 2n: seed one-hot, selection indicator */
    uint8_t *in_s;
    int32_t *inv, *cand, *dist, *queue;
    int32_t n_inv, n_cand;
    float *h0, *h1, *h2;      /* per involved node, H wide */
    double *c, *e, *alpha, p[H], q[H], l[2];
    double *lp_cand, lp_stop;
    /* reward scratch */
    float *sx;
    int32_t *ssrc, *sdst, *smap;
    /* Incremental policy (no gradient asked): a node's h2, c and e depend
     * only on its features, zs and zn, and adding a node changes zn only
     * within LF__RG_HOPS hops of it, so a node whose (zs, zn) are bitwise
     * those of its last evaluation reuses that evaluation. */
    double *nrm;              /* per adjacency entry: sqrt(deg_i deg_j) */
    int32_t zs_seed;          /* the seed zs holds, -1 none */
    uint8_t *cached;
    double *c_zs, *c_zn, *c_c, *c_e;
    float *c_h2;              /* n x H */
} lf__rgg;

static void lf__rgg_free(lf__rgg *r)
{
    free(r->adj_start); free(r->adj); free(r->emb); free(r->gemb); free(r->zs); free(r->zn);
    free(r->tmp); free(r->ind); free(r->in_s); free(r->inv); free(r->cand); free(r->dist);
    free(r->queue);
    free(r->h0); free(r->h1); free(r->h2); free(r->c); free(r->e); free(r->alpha);
    free(r->lp_cand); free(r->sx); free(r->ssrc); free(r->sdst); free(r->smap);
    free(r->nrm); free(r->cached); free(r->c_zs); free(r->c_zn); free(r->c_c); free(r->c_e);
    free(r->c_h2);
    memset(r, 0, sizeof *r);
}

/* Builds the adjacency and scratch; with m, also the embeddings (one GNN
 * forward with all weights 1) using the caller's workspace. */
static lf_status lf__rgg_build(lf__rgg *r, const lf_gnn_graph *g, const lf_gnn *m, lf_gnn_ws *ws)
{
    memset(r, 0, sizeof *r);
    int32_t n = g->n_nodes, ne = g->n_edges;
    size_t nn = (size_t)(n ? n : 1), nh = nn * H, nee = (size_t)(ne ? ne : 1);
    r->g = g;
    r->n = n;
    r->adj_start = calloc(nn + 1, sizeof(int32_t));
    r->adj = malloc(sizeof(int32_t) * 2 * nee);
    r->zs = malloc(sizeof(double) * nn); r->zn = malloc(sizeof(double) * nn);
    r->tmp = malloc(sizeof(double) * nn); r->in_s = malloc(nn);
    r->ind = malloc(sizeof(double) * 2 * nn);
    r->inv = malloc(sizeof(int32_t) * nn); r->cand = malloc(sizeof(int32_t) * nn);
    r->dist = malloc(sizeof(int32_t) * nn); r->queue = malloc(sizeof(int32_t) * nn);
    r->h0 = malloc(sizeof(float) * nh); r->h1 = malloc(sizeof(float) * nh);
    r->h2 = malloc(sizeof(float) * nh);
    r->c = malloc(sizeof(double) * nn); r->e = malloc(sizeof(double) * nn);
    r->alpha = malloc(sizeof(double) * nn); r->lp_cand = malloc(sizeof(double) * nn);
    r->sx = malloc(sizeof(float) * nn * F); r->ssrc = malloc(sizeof(int32_t) * nee);
    r->sdst = malloc(sizeof(int32_t) * nee); r->smap = malloc(sizeof(int32_t) * nn);
    r->nrm = malloc(sizeof(double) * 2 * nee); r->cached = calloc(nn, 1);
    r->c_zs = malloc(sizeof(double) * nn); r->c_zn = malloc(sizeof(double) * nn);
    r->c_c = malloc(sizeof(double) * nn); r->c_e = malloc(sizeof(double) * nn);
    r->c_h2 = malloc(sizeof(float) * nh);
    r->zs_seed = -1;
    if (!r->nrm || !r->cached || !r->c_zs || !r->c_zn || !r->c_c || !r->c_e || !r->c_h2) {
        lf__rgg_free(r);
        return lf_set_error(LF_ENOMEM, "out of memory for an RG-Explainer group of %d ops", (int)n);
    }
    if (!r->adj_start || !r->adj || !r->zs || !r->zn || !r->tmp || !r->ind || !r->in_s || !r->inv ||
        !r->cand || !r->dist || !r->queue || !r->h0 || !r->h1 || !r->h2 || !r->c || !r->e ||
        !r->alpha || !r->lp_cand || !r->sx || !r->ssrc || !r->sdst || !r->smap) {
        lf__rgg_free(r);
        return lf_set_error(LF_ENOMEM, "out of memory for an RG-Explainer group of %d ops", (int)n);
    }
    for (int32_t e = 0; e < ne; e++) {
        r->adj_start[g->src[e] + 1]++;
        r->adj_start[g->dst[e] + 1]++;
    }
    for (int32_t v = 0; v < n; v++)
        r->adj_start[v + 1] += r->adj_start[v];
    int32_t *fill = r->dist; /* borrowed as a cursor */
    for (int32_t v = 0; v < n; v++)
        fill[v] = r->adj_start[v];
    for (int32_t e = 0; e < ne; e++) {
        r->adj[fill[g->src[e]]++] = g->dst[e];
        r->adj[fill[g->dst[e]]++] = g->src[e];
    }
    for (int32_t i = 0; i < n; i++) {
        double di = r->adj_start[i + 1] - r->adj_start[i];
        for (int32_t k = r->adj_start[i]; k < r->adj_start[i + 1]; k++) {
            int32_t j = r->adj[k];
            r->nrm[k] = sqrt(di * (double)(r->adj_start[j + 1] - r->adj_start[j]));
        }
    }
    if (m) {
        int32_t d = m->cfg.hidden;
        r->emb = malloc(sizeof(float) * nn * (size_t)d);
        r->gemb = malloc(sizeof(float) * (size_t)d);
        if (!r->emb || !r->gemb) {
            lf__rgg_free(r);
            return lf_set_error(LF_ENOMEM, "out of memory for RG-Explainer embeddings");
        }
        lf_gnn_graph v = *g;
        v.ew = NULL;
        float logits[8];
        lf_status st = lf_gnn_forward(m, &v, ws, logits);
        if (st != LF_OK) {
            lf__rgg_free(r);
            return st;
        }
        memcpy(r->emb, lf_gnn_ws_node_embedding(ws, m->cfg.n_layers),
               sizeof(float) * nn * (size_t)d);
        memcpy(r->gemb, lf_gnn_ws_embedding(ws), sizeof(float) * (size_t)d);
    }
    return LF_OK;
}

/* z <- x; 3 times z <- alpha A_hat z + (1 - alpha) x, A_hat = D^-1/2 A D^-1/2. */
static void lf__ppr(lf__rgg *r, const double *x, double *z)
{
    memcpy(z, x, sizeof(double) * (size_t)r->n);
    for (int it = 0; it < LF__RG_HOPS; it++) {
        for (int32_t i = 0; i < r->n; i++) {
            double acc = 0;
            /* nrm[k] = sqrt(deg_i deg_j), computed once per group: the same
             * division as before, so the same bits. */
            for (int32_t k = r->adj_start[i]; k < r->adj_start[i + 1]; k++)
                acc += z[r->adj[k]] / r->nrm[k];
            r->tmp[i] = LF__RG_ALPHA * acc + (1 - LF__RG_ALPHA) * x[i];
        }
        memcpy(z, r->tmp, sizeof(double) * (size_t)r->n);
    }
}

/* ---- policy ---------------------------------------------------------------- */

/* Forward pass for selection in_s with seed `seed`; fills the candidate list
 * and log-probabilities. With grad, also backpropagates gscale * log pi(action). */
static void lf__pol_run(const lf_rgx *p, lf__rgg *r, int32_t seed, int32_t action, double gscale,
                        float *grad)
{
    lf_rgx_pol w, gw;
    lf__rg_pol_view(p, p->params + p->n_loc, &w);
    int32_t n = r->n;
    double *ind = r->ind;
    for (int32_t v = 0; v < n; v++) {
        ind[v] = v == seed;
        ind[n + v] = r->in_s[v];
    }
    if (r->zs_seed != seed) { /* zs depends on the seed alone */
        lf__ppr(r, ind, r->zs);
        r->zs_seed = seed;
    }
    lf__ppr(r, ind + n, r->zn);
    r->n_inv = r->n_cand = 0;
    for (int32_t v = 0; v < n; v++)
        if (r->in_s[v])
            r->inv[r->n_inv++] = v;
    for (int32_t v = 0; v < n; v++) {
        if (r->in_s[v])
            continue;
        for (int32_t k = r->adj_start[v]; k < r->adj_start[v + 1]; k++)
            if (r->in_s[r->adj[k]]) {
                r->cand[r->n_cand++] = r->n_inv;
                r->inv[r->n_inv++] = v;
                break;
            }
    }
    if (r->n_cand == 0)
        return;
    const float *x = r->g->x;
    for (int32_t i = 0; i < r->n_inv; i++) {
        int32_t u = r->inv[i];
        float *h0 = r->h0 + (int64_t)i * H, *h1 = r->h1 + (int64_t)i * H;
        float *h2 = r->h2 + (int64_t)i * H;
        int reuse = !grad && r->cached[u] && memcmp(&r->c_zs[u], &r->zs[u], sizeof(double)) == 0 &&
                    memcmp(&r->c_zn[u], &r->zn[u], sizeof(double)) == 0;
        if (reuse) {
            memcpy(h2, r->c_h2 + (int64_t)u * H, sizeof(float) * H);
            r->c[i] = r->c_c[u];
            r->e[i] = r->c_e[u];
            continue;
        }
        for (int k = 0; k < H; k++) {
            double a = w.ws[k] * r->zs[u] + w.wn[k] * r->zn[u] + w.ba[k];
            for (int f = 0; f < F; f++)
                a += (double)w.wa[k * F + f] * x[(int64_t)u * F + f];
            h0[k] = (float)a;
        }
        const float *hin[2] = {h0, h1};
        float *hout[2] = {h1, h2};
        for (int b = 0; b < 2; b++) {
            double t[H];
            for (int k = 0; k < H; k++)
                t[k] = lf__swish(hin[b][k]);
            for (int k = 0; k < H; k++) {
                double a = hin[b][k] + w.r[b][k];
                for (int j = 0; j < H; j++)
                    a += (double)w.R[b][k * H + j] * t[j];
                hout[b][k] = (float)a;
            }
        }
        double c = 0, e = 0;
        for (int k = 0; k < H; k++) {
            c += (double)w.wnode[k] * h2[k];
            e += (double)w.watt[k] * h2[k];
        }
        r->c[i] = c;
        r->e[i] = e;
        r->cached[u] = 1;
        r->c_zs[u] = r->zs[u];
        r->c_zn[u] = r->zn[u];
        r->c_c[u] = c;
        r->c_e[u] = e;
        memcpy(r->c_h2 + (int64_t)u * H, h2, sizeof(float) * H);
    }
    double emax = -INFINITY, esum = 0;
    for (int32_t i = 0; i < r->n_inv; i++)
        emax = r->e[i] > emax ? r->e[i] : emax;
    for (int32_t i = 0; i < r->n_inv; i++)
        esum += (r->alpha[i] = exp(r->e[i] - emax));
    for (int k = 0; k < H; k++)
        r->p[k] = 0;
    for (int32_t i = 0; i < r->n_inv; i++) {
        r->alpha[i] /= esum;
        for (int k = 0; k < H; k++)
            r->p[k] += r->alpha[i] * r->h2[(int64_t)i * H + k];
    }
    for (int k = 0; k < H; k++)
        r->q[k] = lf__swish(r->p[k]);
    for (int j = 0; j < 2; j++) {
        r->l[j] = 0;
        for (int k = 0; k < H; k++)
            r->l[j] += (double)w.wstop[j * H + k] * r->q[k];
    }
    double lm = r->l[0] > r->l[1] ? r->l[0] : r->l[1];
    double lse = lm + log(exp(r->l[0] - lm) + exp(r->l[1] - lm));
    double ls0 = r->l[0] - lse, ls1 = r->l[1] - lse;
    double cmax = -INFINITY, csum = 0;
    for (int32_t i = 0; i < r->n_cand; i++)
        cmax = r->c[r->cand[i]] > cmax ? r->c[r->cand[i]] : cmax;
    for (int32_t i = 0; i < r->n_cand; i++)
        csum += exp(r->c[r->cand[i]] - cmax);
    double clse = cmax + log(csum);
    for (int32_t i = 0; i < r->n_cand; i++)
        r->lp_cand[i] = r->c[r->cand[i]] - clse + ls0;
    r->lp_stop = ls1;
    if (!grad)
        return;

    /* ---- backward of gscale * log pi(action) ---- */
    lf__rg_pol_view(p, grad, &gw);
    int32_t act = -1; /* index into inv of the added node */
    for (int32_t i = 0; action >= 0 && i < r->n_cand; i++)
        if (r->inv[r->cand[i]] == action)
            act = r->cand[i];
    int jact = act >= 0 ? 0 : 1;
    double sm1 = exp(ls1), sm[2] = {1 - sm1, sm1};
    double dl[2] = {gscale * ((jact == 0) - sm[0]), gscale * ((jact == 1) - sm[1])};
    double dp[H], dpp = 0;
    for (int k = 0; k < H; k++) {
        double dq = 0;
        for (int j = 0; j < 2; j++) {
            gw.wstop[j * H + k] += (float)(dl[j] * r->q[k]);
            dq += w.wstop[j * H + k] * dl[j];
        }
        dp[k] = dq * lf__dswish(r->p[k]);
        dpp += dp[k] * r->p[k];
    }
    for (int32_t i = 0; i < r->n_inv; i++) {
        int32_t u = r->inv[i];
        const float *h0 = r->h0 + (int64_t)i * H, *h1 = r->h1 + (int64_t)i * H;
        const float *h2 = r->h2 + (int64_t)i * H;
        double dc = 0;
        if (act >= 0 && i >= r->n_inv - r->n_cand) /* candidates sit at the end of inv */
            dc = gscale * ((i == act) - exp(r->c[i] - clse));
        double dot = 0;
        for (int k = 0; k < H; k++)
            dot += dp[k] * h2[k];
        double de = r->alpha[i] * (dot - dpp);
        double dh[H];
        for (int k = 0; k < H; k++) {
            gw.watt[k] += (float)(de * h2[k]);
            gw.wnode[k] += (float)(dc * h2[k]);
            dh[k] = r->alpha[i] * dp[k] + de * w.watt[k] + dc * w.wnode[k];
        }
        const float *hin[2] = {h0, h1};
        for (int b = 1; b >= 0; b--) {
            double t[H], dt[H];
            for (int k = 0; k < H; k++) {
                t[k] = lf__swish(hin[b][k]);
                dt[k] = 0;
            }
            for (int k = 0; k < H; k++) {
                gw.r[b][k] += (float)dh[k];
                for (int j = 0; j < H; j++) {
                    gw.R[b][k * H + j] += (float)(dh[k] * t[j]);
                    dt[j] += w.R[b][k * H + j] * dh[k];
                }
            }
            for (int k = 0; k < H; k++)
                dh[k] += dt[k] * lf__dswish(hin[b][k]);
        }
        for (int k = 0; k < H; k++) {
            gw.ws[k] += (float)(dh[k] * r->zs[u]);
            gw.wn[k] += (float)(dh[k] * r->zn[u]);
            gw.ba[k] += (float)dh[k];
            for (int f = 0; f < F; f++)
                gw.wa[k * F + f] += (float)(dh[k] * x[(int64_t)u * F + f]);
        }
    }
}

lf_status lf_rgx_policy_logp(const lf_rgx *p, const lf_gnn_graph *g, const int32_t *sel,
                             int32_t n_sel, int32_t action, double *logp, float *grad)
{
    if (!p || !p->params || !g || !sel || n_sel <= 0)
        return lf_set_error(LF_EINVAL, "lf_rgx_policy_logp: bad argument");
    lf__rgg r;
    lf_status st = lf__rgg_build(&r, g, NULL, NULL);
    if (st != LF_OK)
        return st;
    memset(r.in_s, 0, (size_t)r.n);
    for (int32_t i = 0; i < n_sel; i++)
        r.in_s[sel[i]] = 1;
    lf__pol_run(p, &r, sel[0], action, 1.0, grad);
    double lp = NAN;
    if (action < 0)
        lp = r.lp_stop;
    for (int32_t i = 0; i < r.n_cand; i++)
        if (r.inv[r.cand[i]] == action)
            lp = r.lp_cand[i];
    lf__rgg_free(&r);
    if (isnan(lp))
        return lf_set_error(LF_EINVAL, "lf_rgx_policy_logp: action %d is not available",
                            (int)action);
    *logp = lp;
    return LF_OK;
}

/* Argmax-score seed, skipping isolated nodes when the group has edges. */
static int32_t lf__loc_seed(const lf_rgx *p, const lf__rgg *r)
{
    int32_t best = 0;
    double bs = -INFINITY;
    for (int32_t v = 0; v < r->n; v++) {
        if (r->g->n_edges > 0 && r->adj_start[v + 1] == r->adj_start[v])
            continue;
        double s = lf__rg_loc_node(p, r->emb + (int64_t)v * p->emb_dim, r->gemb, 0, NULL);
        if (s > bs) {
            bs = s;
            best = v;
        }
    }
    return best;
}

/* ---- reward and episodes ---------------------------------------------------- */

/* R(S) for S = order[0..len), seed order[0] (see rgexplainer.c). */
static lf_status lf__reward(const lf_gnn *m, lf_gnn_ws *ws, lf__rgg *r, const int32_t *order,
                            int32_t len, const lf_rgx_config *cfg, double *out)
{
    const lf_gnn_graph *g = r->g;
    for (int32_t v = 0; v < r->n; v++)
        r->smap[v] = -1;
    for (int32_t i = 0; i < len; i++) {
        r->smap[order[i]] = i;
        memcpy(r->sx + (int64_t)i * F, g->x + (int64_t)order[i] * F, sizeof(float) * F);
    }
    int32_t k = 0;
    for (int32_t e = 0; e < g->n_edges; e++)
        if (r->smap[g->src[e]] >= 0 && r->smap[g->dst[e]] >= 0) {
            r->ssrc[k] = r->smap[g->src[e]];
            r->sdst[k++] = r->smap[g->dst[e]];
        }
    lf_gnn_graph sg = {len, k, r->sx, r->ssrc, r->sdst, NULL};
    float logits[8];
    lf_status st = lf_gnn_forward(m, &sg, ws, logits);
    if (st != LF_OK)
        return st;
    double ce = lf_softmax_ce(logits, 2, 0, NULL, NULL);
    const float *emb = lf_gnn_ws_embedding(ws);
    double dist = 0;
    for (int32_t c = 0; c < m->cfg.hidden; c++)
        dist += ((double)emb[c] - r->gemb[c]) * ((double)emb[c] - r->gemb[c]);
    /* Eccentricity of the seed inside S (undirected BFS). */
    for (int32_t v = 0; v < r->n; v++)
        r->dist[v] = -1;
    int32_t head = 0, tail = 0, depth = 0;
    r->dist[order[0]] = 0;
    r->queue[tail++] = order[0];
    while (head < tail) {
        int32_t v = r->queue[head++];
        depth = r->dist[v] > depth ? r->dist[v] : depth;
        for (int32_t a = r->adj_start[v]; a < r->adj_start[v + 1]; a++) {
            int32_t u = r->adj[a];
            if (r->smap[u] >= 0 && r->dist[u] < 0) {
                r->dist[u] = r->dist[v] + 1;
                r->queue[tail++] = u;
            }
        }
    }
    *out = -(ce + cfg->lambda_size * k + cfg->lambda_rad * depth + cfg->lambda_sim * sqrt(dist));
    return LF_OK;
}

/* Grows order[0..len) (order[0] the seed) until stop, an empty boundary or
 * max_size nodes: greedy when rng is NULL, sampled otherwise. Records the
 * actions (node or -1 for stop) into acts when given. Returns the length. */
static int32_t lf__episode(const lf_rgx *p, lf__rgg *r, int32_t *order, int32_t len,
                           int32_t max_size, lf_rng *rng, int32_t *acts, int32_t *n_acts)
{
    memset(r->in_s, 0, (size_t)r->n);
    for (int32_t i = 0; i < len; i++)
        r->in_s[order[i]] = 1;
    int32_t na = 0;
    while (len < max_size && len < r->n) {
        lf__pol_run(p, r, order[0], -1, 0, NULL);
        if (r->n_cand == 0)
            break;
        int32_t a = -1;
        if (!rng) {
            double best = r->lp_stop;
            for (int32_t i = 0; i < r->n_cand; i++)
                if (r->lp_cand[i] > best) {
                    best = r->lp_cand[i];
                    a = r->inv[r->cand[i]];
                }
        } else {
            double u = lf_rng_uniform(rng), acc = exp(r->lp_stop);
            if (u >= acc) {
                a = r->inv[r->cand[r->n_cand - 1]];
                for (int32_t i = 0; i < r->n_cand; i++) {
                    acc += exp(r->lp_cand[i]);
                    if (u < acc) {
                        a = r->inv[r->cand[i]];
                        break;
                    }
                }
            }
        }
        if (acts)
            acts[na++] = a;
        if (a < 0)
            break;
        order[len++] = a;
        r->in_s[a] = 1;
    }
    if (n_acts)
        *n_acts = na;
    return len;
}

/* Nodes within 3 undirected hops of v in BFS order, at most cap; with rng,
 * each BFS layer is shuffled (the authors' layer-wise expansion). */
static int32_t lf__khop(lf__rgg *r, int32_t v, int32_t cap, lf_rng *rng, int32_t *out)
{
    for (int32_t u = 0; u < r->n; u++)
        r->dist[u] = -1;
    int32_t n = 0, layer_start = 0;
    r->dist[v] = 0;
    out[n++] = v;
    while (layer_start < n) {
        int32_t layer_end = n;
        for (int32_t i = layer_start; i < layer_end; i++) {
            int32_t w = out[i];
            if (r->dist[w] >= LF__RG_HOPS)
                continue;
            for (int32_t a = r->adj_start[w]; a < r->adj_start[w + 1]; a++) {
                int32_t u = r->adj[a];
                if (r->dist[u] < 0) {
                    r->dist[u] = r->dist[w] + 1;
                    out[n++] = u;
                }
            }
        }
        if (rng && n - layer_end > 1)
            lf_rng_shuffle_i32(rng, out + layer_end, n - layer_end);
        layer_start = layer_end;
    }
    return n < cap ? n : cap;
}

lf_status lf_rgx_explain_nodes(const lf_rgx *p, const lf_gnn *m, const lf_gnn_graph *g,
                               const lf_rgx_config *cfg, int32_t *order, int32_t *len)
{
    if (!p || !p->params || !m || !g || !order || !len || g->n_nodes <= 0)
        return lf_set_error(LF_EINVAL, "lf_rgx_explain_nodes: bad argument");
    if (p->emb_dim != m->cfg.hidden)
        return lf_set_error(LF_EINVAL, "RG-Explainer takes %d-wide embeddings, the GNN gives %d",
                            (int)p->emb_dim, (int)m->cfg.hidden);
    int32_t max_size = cfg && cfg->max_size >= 2 ? cfg->max_size : p->max_size;
    lf_gnn_ws *ws = NULL;
    lf_status st = lf_gnn_ws_create(&ws, m);
    if (st != LF_OK)
        return st;
    lf__rgg r;
    if ((st = lf__rgg_build(&r, g, m, ws)) == LF_OK) {
        order[0] = lf__loc_seed(p, &r);
        *len = lf__episode(p, &r, order, 1, max_size, NULL, NULL, NULL);
        lf__rgg_free(&r);
    }
    lf_gnn_ws_free(ws);
    return st;
}

/* ---- training ------------------------------------------------------------------ */

typedef struct lf__rgtrain {
    const lf_rgx_config *cfg;
    const lf_gnn *m;
    lf_gnn_ws *ws;
    lf__rgg *gr;
    int32_t n_gr;
    int32_t *buf;  /* max nodes */
    double *tgt;   /* max nodes */
    lf_adam aloc, apol;
    float *gloc, *gpol;
} lf__rgtrain;

/* Locator targets of group gi: softmax over seeds v of R(explanation from
 * v): the 3-hop subgraph (pretraining) or the current greedy policy. */
static lf_status lf__loc_targets(lf__rgtrain *t, lf_rgx *p, int32_t gi, int use_policy)
{
    lf__rgg *r = &t->gr[gi];
    double mx = -INFINITY, sum = 0;
    for (int32_t v = 0; v < r->n; v++) {
        int32_t len;
        if (use_policy) {
            t->buf[0] = v;
            len = lf__episode(p, r, t->buf, 1, t->cfg->max_size, NULL, NULL, NULL);
        } else {
            len = lf__khop(r, v, t->cfg->max_size, NULL, t->buf);
        }
        lf_status st = lf__reward(t->m, t->ws, r, t->buf, len, t->cfg, &t->tgt[v]);
        if (st != LF_OK)
            return st;
        mx = t->tgt[v] > mx ? t->tgt[v] : mx;
    }
    for (int32_t v = 0; v < r->n; v++)
        sum += (t->tgt[v] = exp(t->tgt[v] - mx));
    for (int32_t v = 0; v < r->n; v++)
        t->tgt[v] /= sum;
    return LF_OK;
}

/* `iters` full-batch Adam steps of the locator on groups sel[0..ns); tg is
 * indexed by group. */
static lf_status lf__loc_fit(lf__rgtrain *t, lf_rgx *p, const int32_t *sel, int32_t ns,
                             int iters, int use_policy, double **tg, const char *phase)
{
    lf_status st;
    for (int32_t i = 0; i < ns; i++) {
        if ((st = lf__loc_targets(t, p, sel[i], use_policy)) != LF_OK)
            return st;
        memcpy(tg[sel[i]], t->tgt, sizeof(double) * (size_t)t->gr[sel[i]].n);
    }
    double loss = 0;
    for (int it = 0; it < iters; it++) {
        memset(t->gloc, 0, sizeof(float) * (size_t)p->n_loc);
        loss = 0;
        for (int32_t i = 0; i < ns; i++) {
            lf__rgg *r = &t->gr[sel[i]];
            double l;
            st = lf_rgx_locator_loss(p, r->emb, r->gemb, r->n, tg[sel[i]], &l, t->gloc);
            if (st != LF_OK)
                return st;
            loss += l / ns;
        }
        for (int64_t k = 0; k < p->n_loc; k++)
            t->gloc[k] /= (float)ns;
        lf_adam_step(&t->aloc, p->params, t->gloc);
    }
    if (t->cfg->on_phase && iters > 0)
        t->cfg->on_phase(t->cfg->ctx, phase, iters, loss);
    return LF_OK;
}

static void lf__pol_step(lf__rgtrain *t, lf_rgx *p, int32_t steps)
{
    if (steps <= 0)
        return;
    for (int64_t k = 0; k < p->n_pol; k++)
        t->gpol[k] /= (float)steps;
    lf_adam_step(&t->apol, p->params + p->n_loc, t->gpol);
    memset(t->gpol, 0, sizeof(float) * (size_t)p->n_pol);
}

/* Imitation of layer-wise BFS demonstrations: phase 0 teacher-forces the
 * sequence then stop; phase 1 aims at the best-scored candidate still in
 * the demonstration set, stop when none is left. */
static double lf__imitate(lf__rgtrain *t, lf_rgx *p, const int32_t *dg, int32_t *const *demo,
                          const int32_t *dlen, int32_t nd, int phase, lf_rng *rng, int32_t *perm)
{
    for (int32_t i = 0; i < nd; i++)
        perm[i] = i;
    lf_rng_shuffle_i32(rng, perm, nd);
    int32_t ms = t->cfg->max_size, steps = 0, in_batch = 0;
    double loss = 0;
    int64_t all_steps = 0;
    for (int32_t b = 0; b < nd; b++) {
        int32_t di = perm[b];
        lf__rgg *r = &t->gr[dg[di]];
        const int32_t *d = demo[di];
        int32_t L = dlen[di], len = 1;
        t->buf[0] = d[0];
        memset(r->in_s, 0, (size_t)r->n);
        r->in_s[d[0]] = 1;
        for (;;) {
            int32_t target = -1;
            if (phase == 0) {
                target = len < L ? d[len] : -1;
            } else {
                lf__pol_run(p, r, d[0], -1, 0, NULL);
                double best = -INFINITY;
                for (int32_t i = 0; i < r->n_cand; i++) {
                    int32_t u = r->inv[r->cand[i]];
                    int in_demo = 0;
                    for (int32_t j = 0; j < L && !in_demo; j++)
                        in_demo = d[j] == u;
                    if (in_demo && r->lp_cand[i] > best) {
                        best = r->lp_cand[i];
                        target = u;
                    }
                }
            }
            if (len >= ms)
                break;
            lf__pol_run(p, r, d[0], target, -1.0, t->gpol);
            if (r->n_cand == 0)
                break;
            loss -= target < 0 ? r->lp_stop : 0;
            for (int32_t i = 0; target >= 0 && i < r->n_cand; i++)
                if (r->inv[r->cand[i]] == target)
                    loss -= r->lp_cand[i];
            steps++;
            all_steps++;
            if (target < 0)
                break;
            t->buf[len++] = target;
            r->in_s[target] = 1;
        }
        if (++in_batch == t->cfg->imit_batch || b == nd - 1) {
            lf__pol_step(t, p, steps);
            steps = in_batch = 0;
        }
    }
    return all_steps ? loss / (double)all_steps : 0;
}

static lf_status lf__reinforce(lf__rgtrain *t, lf_rgx *p, lf_rng *rng, int32_t *acts,
                               int32_t *ro, double *rew, double *mean_reward)
{
    const lf_rgx_config *cfg = t->cfg;
    int32_t steps = 0;
    double sumR = 0;
    lf_status st;
    for (int32_t b = 0; b < cfg->rl_batch; b++) {
        lf__rgg *r = &t->gr[lf_rng_below(rng, (uint32_t)t->n_gr)];
        int32_t *order = t->buf, na = 0;
        order[0] = lf__loc_seed(p, r);
        int32_t len = lf__episode(p, r, order, 1, cfg->max_size, rng, acts, &na);
        double Rf;
        if ((st = lf__reward(t->m, t->ws, r, order, len, cfg, &Rf)) != LF_OK)
            return st;
        sumR += Rf;
        for (int32_t s = 0; s < na; s++) {
            if (s == na - 1) {
                rew[s] = Rf;
                continue;
            }
            /* Step s added order[s + 1]: complete the prefix order[0..s+2). */
            double acc = 0;
            for (int32_t k = 0; k < cfg->rollouts; k++) {
                memcpy(ro, order, sizeof(int32_t) * (size_t)(s + 2));
                int32_t l2 = lf__episode(p, r, ro, s + 2, cfg->max_size, rng, NULL, NULL);
                double R;
                if ((st = lf__reward(t->m, t->ws, r, ro, l2, cfg, &R)) != LF_OK)
                    return st;
                acc += R;
            }
            rew[s] = acc / cfg->rollouts;
        }
        for (int32_t s = 0; s < na; s++) {
            memset(r->in_s, 0, (size_t)r->n);
            for (int32_t i = 0; i <= s; i++)
                r->in_s[order[i]] = 1;
            lf__pol_run(p, r, order[0], acts[s], -rew[s], t->gpol);
        }
        steps += na;
    }
    lf__pol_step(t, p, steps);
    *mean_reward = sumR / cfg->rl_batch;
    return LF_OK;
}

lf_status lf_rgx_train(lf_rgx *p, const lf_gnn *m, const lf_gnn_sample *s, int64_t n,
                       const lf_rgx_config *cfg)
{
    if (!p || !p->params || !m || !cfg || cfg->max_size < 2 || !(cfg->lr > 0) ||
        cfg->rollouts < 1 || cfg->rl_batch < 1 || cfg->imit_batch < 1)
        return lf_set_error(LF_EINVAL, "RG-Explainer: bad training arguments");
    if (p->emb_dim != m->cfg.hidden)
        return lf_set_error(LF_EINVAL, "RG-Explainer takes %d-wide embeddings, the GNN gives %d",
                            (int)p->emb_dim, (int)m->cfg.hidden);
    int64_t ninv = 0;
    for (int64_t i = 0; i < n; i++)
        ninv += s[i].label == 0 && s[i].g.n_edges > 0;
    if (ninv == 0)
        return lf_set_error(LF_EINVAL, "RG-Explainer: no invalid sample with edges to train on");
    if (ninv > INT32_MAX)
        return lf_set_error(LF_ERANGE, "RG-Explainer: too many samples");
    lf__rgtrain t;
    memset(&t, 0, sizeof t);
    t.cfg = cfg;
    t.m = m;
    lf_status st = LF_OK;
    int32_t *idx = malloc(sizeof(int32_t) * (size_t)ninv);
    int32_t maxn = 1, k = 0;
    if (!idx)
        return lf_set_error(LF_ENOMEM, "out of memory for RG-Explainer training");
    for (int64_t i = 0; i < n; i++)
        if (s[i].label == 0 && s[i].g.n_edges > 0)
            idx[k++] = (int32_t)i;
    lf_rng rng;
    if (cfg->max_graphs > 0 && cfg->max_graphs < k) {
        lf_rng_seed(&rng, cfg->seed, 0x72677375ULL);
        lf_rng_shuffle_i32(&rng, idx, k);
        k = (int32_t)cfg->max_graphs;
    }
    for (int32_t i = 0; i < k; i++)
        maxn = s[idx[i]].g.n_nodes > maxn ? s[idx[i]].g.n_nodes : maxn;
    t.gr = calloc((size_t)k, sizeof *t.gr);
    t.buf = malloc(sizeof(int32_t) * (size_t)maxn);
    t.tgt = malloc(sizeof(double) * (size_t)maxn);
    t.gloc = calloc((size_t)p->n_loc, sizeof(float));
    t.gpol = calloc((size_t)p->n_pol, sizeof(float));
    int32_t *dg = malloc(sizeof(int32_t) * (size_t)k), *dlen = malloc(sizeof(int32_t) * (size_t)k);
    int32_t **demo = calloc((size_t)k, sizeof(int32_t *));
    int32_t *perm = malloc(sizeof(int32_t) * (size_t)k), *sel = malloc(sizeof(int32_t) * (size_t)k);
    int32_t *acts = malloc(sizeof(int32_t) * (size_t)maxn);
    int32_t *ro = malloc(sizeof(int32_t) * (size_t)maxn);
    double *rew = malloc(sizeof(double) * (size_t)maxn);
    double **tg = calloc((size_t)k, sizeof(double *));
    if (!t.gr || !t.buf || !t.tgt || !t.gloc || !t.gpol || !dg || !dlen || !demo || !perm ||
        !acts || !ro || !sel || !rew || !tg || lf_adam_init(&t.aloc, p->n_loc, cfg->lr) != 0 ||
        lf_adam_init(&t.apol, p->n_pol, cfg->lr) != 0) {
        st = lf_set_error(LF_ENOMEM, "out of memory for RG-Explainer training");
        goto done;
    }
    if ((st = lf_gnn_ws_create(&t.ws, m)) != LF_OK)
        goto done;
    for (int32_t i = 0; i < k && st == LF_OK; i++) {
        st = lf__rgg_build(&t.gr[i], &s[idx[i]].g, m, t.ws);
        if (st == LF_OK) {
            t.n_gr++;
            if (!(tg[i] = malloc(sizeof(double) * (size_t)t.gr[i].n)))
                st = lf_set_error(LF_ENOMEM, "out of memory for locator targets");
        }
    }
    if (st != LF_OK)
        goto done;
    /* (a) locator pretraining on 3-hop subgraphs. */
    for (int32_t i = 0; i < k; i++)
        sel[i] = i;
    if ((st = lf__loc_fit(&t, p, sel, k, cfg->loc_pretrain_iters, 0, tg, "locator")) != LF_OK)
        goto done;
    /* (b) imitation: one demonstration per group from the locator's seed
     * (groups whose 3-hop set has fewer than 3 nodes give none: the
     * authors' threshold of 5 would drop most fusion groups). */
    lf_rng_seed(&rng, cfg->seed, 0x100);
    int32_t nd = 0;
    for (int32_t i = 0; i < k; i++) {
        lf__rgg *r = &t.gr[i];
        int32_t w = lf__khop(r, lf__loc_seed(p, r), cfg->max_size, &rng, t.buf);
        if (w < 3)
            continue;
        int32_t L = w <= 4 ? w : 4 + (int32_t)lf_rng_below(&rng, (uint32_t)(w - 4));
        if (!(demo[nd] = malloc(sizeof(int32_t) * (size_t)L))) {
            st = lf_set_error(LF_ENOMEM, "out of memory for demonstrations");
            goto done;
        }
        memcpy(demo[nd], t.buf, sizeof(int32_t) * (size_t)L);
        dg[nd] = i;
        dlen[nd++] = L;
    }
    for (int32_t ep = 0; nd > 0 && ep < cfg->imit_list_epochs + cfg->imit_set_epochs; ep++) {
        int phase = ep >= cfg->imit_list_epochs;
        lf_rng_seed(&rng, cfg->seed, 0x200 + (uint64_t)ep);
        double l = lf__imitate(&t, p, dg, demo, dlen, nd, phase, &rng, perm);
        if (cfg->on_phase)
            cfg->on_phase(cfg->ctx, phase ? "imitate-set" : "imitate-list",
                          phase ? ep + 1 - cfg->imit_list_epochs : ep + 1, l);
    }
    /* (c) REINFORCE, refreshing the locator on 20% of the groups every 5 epochs. */
    for (int32_t ep = 0; ep < cfg->rl_epochs; ep++) {
        if (ep % 5 == 0) {
            lf_rng_seed(&rng, cfg->seed, 0x400 + (uint64_t)ep);
            for (int32_t i = 0; i < k; i++)
                perm[i] = i;
            lf_rng_shuffle_i32(&rng, perm, k);
            int32_t ns = k / 5 > 0 ? k / 5 : 1;
            if ((st = lf__loc_fit(&t, p, perm, ns, 10, 1, tg, "locator-refresh")) != LF_OK)
                goto done;
        }
        lf_rng_seed(&rng, cfg->seed, 0x300 + (uint64_t)ep);
        double mr = 0;
        if ((st = lf__reinforce(&t, p, &rng, acts, ro, rew, &mr)) != LF_OK)
            goto done;
        if (cfg->on_phase)
            cfg->on_phase(cfg->ctx, "reinforce", ep + 1, mr);
    }
done:
    for (int32_t i = 0; i < t.n_gr; i++)
        lf__rgg_free(&t.gr[i]);
    for (int32_t i = 0; demo && i < k; i++)
        free(demo[i]);
    for (int32_t i = 0; tg && i < k; i++)
        free(tg[i]);
    lf_adam_destroy(&t.aloc);
    lf_adam_destroy(&t.apol);
    lf_gnn_ws_free(t.ws);
    free(t.gr); free(t.buf); free(t.tgt); free(t.gloc); free(t.gpol); free(idx); free(dg);
    free(dlen); free(demo); free(perm); free(acts); free(ro); free(sel); free(rew); free(tg);
    return st;
}
