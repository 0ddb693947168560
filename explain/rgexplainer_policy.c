/* RG-Explainer's policy and episodes: PPR state features, the policy's
 * forward and backward pass, the seed locator's choice, the reward, episodes
 * and inference (lf_rgx_explain_nodes). See rgexplainer.c for the model and
 * its hyperparameters; training is in rgexplainer_train.c. Forward and
 * backward are written by hand; every parameter gradient is checked by
 * finite differences in tests/test_explainers.c. Single threaded; all
 * randomness comes from lf_rng streams of cfg->seed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explainer_rg.h"
#include "explain/layers.h"
#include "explain/vector_clones.h"
#include "planner/util/rng.h"

#define H LF_RGX_HIDDEN
#define F LF_FEAT_DIM

static double lf__swish(double x) { return x * lf_sigmoid(x); }
static double lf__dswish(double x)
{
    double s = lf_sigmoid(x);
    return s + x * s * (1 - s);
}

/* ---- one group ------------------------------------------------------------ */


void lf__rg_group_destroy(lf__rg_group *r)
{
    free(r->adj_start); free(r->adj); free(r->emb); free(r->gemb); free(r->zs); free(r->zn);
    free(r->tmp); free(r->ind); free(r->in_s); free(r->inv); free(r->cand); free(r->dist);
    free(r->queue);
    free(r->h0); free(r->h1); free(r->h2); free(r->c); free(r->e); free(r->alpha);
    free(r->lp_cand); free(r->sx); free(r->ssrc); free(r->sdst); free(r->smap);
    free(r->nrm); free(r->cached); free(r->c_zs); free(r->c_zn); free(r->c_c); free(r->c_e);
    free(r->c_h2); free(r->wt); free(r->lt);
    memset(r, 0, sizeof *r);
}

void lf__rg_group_forget(lf__rg_group *r)
{
    memset(r->cached, 0, (size_t)(r->n ? r->n : 1));
    r->wt_ok = 0;
}

/* acc[k] += (double)wt[j * H + k] * in[j] for every k, j = 0 .. n_in - 1 in
 * order: each output sees the products in the order of the row-by-row
 * loop it replaces, so both give the same bits (vector_clones.h). */
LF_VECTOR_CLONES
static void lf__rg_affine(double *restrict acc, const float *restrict wt, const double *restrict in,
                          int n_in)
{
    for (int j = 0; j < n_in; j++) {
        const float *row = wt + (int64_t)j * H;
        double t = in[j];
        for (int k = 0; k < H; k++)
            acc[k] += (double)row[k] * t;
    }
}

static void lf__rg_transpose(lf__rg_group *r, const lf_rgx_pol *w)
{
    for (int k = 0; k < H; k++)
        for (int f = 0; f < F; f++)
            r->wt[f * H + k] = w->wa[k * F + f];
    for (int b = 0; b < 2; b++) {
        float *rt = r->wt + F * H + b * H * H;
        for (int k = 0; k < H; k++)
            for (int j = 0; j < H; j++)
                rt[j * H + k] = w->R[b][k * H + j];
    }
    r->wt_ok = 1;
}

/* Builds the adjacency and scratch; with m, also the embeddings (one GNN
 * forward with all weights 1) using the caller's workspace. */
lf_status lf__rg_group_init(lf__rg_group *r, const lf_gnn_graph *g, const lf_gnn *m, lf_gnn_ws *ws)
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
    r->wt = malloc(sizeof(float) * (F * H + 2 * H * H));
    r->zs_seed = -1;
    if (!r->nrm || !r->cached || !r->c_zs || !r->c_zn || !r->c_c || !r->c_e || !r->c_h2 || !r->wt) {
        lf__rg_group_destroy(r);
        return lf_set_error(LF_ENOMEM, "out of memory for an RG-Explainer group of %d ops", (int)n);
    }
    if (!r->adj_start || !r->adj || !r->zs || !r->zn || !r->tmp || !r->ind || !r->in_s || !r->inv ||
        !r->cand || !r->dist || !r->queue || !r->h0 || !r->h1 || !r->h2 || !r->c || !r->e ||
        !r->alpha || !r->lp_cand || !r->sx || !r->ssrc || !r->sdst || !r->smap) {
        lf__rg_group_destroy(r);
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
        r->lt = malloc(sizeof(float) * 128 * (size_t)d);
        if (!r->emb || !r->gemb || !r->lt) {
            lf__rg_group_destroy(r);
            return lf_set_error(LF_ENOMEM, "out of memory for RG-Explainer embeddings");
        }
        lf_gnn_graph v = *g;
        v.ew = NULL;
        float logits[8];
        lf_status st = lf_gnn_forward(m, &v, ws, logits);
        if (st != LF_OK) {
            lf__rg_group_destroy(r);
            return st;
        }
        memcpy(r->emb, lf_gnn_ws_node_embedding(ws, m->cfg.n_layers),
               sizeof(float) * nn * (size_t)d);
        memcpy(r->gemb, lf_gnn_ws_embedding(ws), sizeof(float) * (size_t)d);
    }
    return LF_OK;
}

/* z <- x; 3 times z <- alpha A_hat z + (1 - alpha) x, A_hat = D^-1/2 A D^-1/2. */
static void lf__ppr(lf__rg_group *r, const double *x, double *z)
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
void lf__rg_pol_run(const lf_rgx *p, lf__rg_group *r, int32_t seed, int32_t action, double gscale,
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
    if (!r->wt_ok)
        lf__rg_transpose(r, &w);
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
        double a[H], xin[F];
        for (int k = 0; k < H; k++)
            a[k] = w.ws[k] * r->zs[u] + w.wn[k] * r->zn[u] + w.ba[k];
        for (int f = 0; f < F; f++)
            xin[f] = x[(int64_t)u * F + f];
        lf__rg_affine(a, r->wt, xin, F);
        for (int k = 0; k < H; k++)
            h0[k] = (float)a[k];
        const float *hin[2] = {h0, h1};
        float *hout[2] = {h1, h2};
        for (int b = 0; b < 2; b++) {
            double t[H];
            for (int k = 0; k < H; k++) {
                t[k] = lf__swish(hin[b][k]);
                a[k] = hin[b][k] + w.r[b][k]; /* a float sum, as before */
            }
            lf__rg_affine(a, r->wt + F * H + b * H * H, t, H);
            for (int k = 0; k < H; k++)
                hout[b][k] = (float)a[k];
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
    lf__rg_group r;
    lf_status st = lf__rg_group_init(&r, g, NULL, NULL);
    if (st != LF_OK)
        return st;
    memset(r.in_s, 0, (size_t)r.n);
    for (int32_t i = 0; i < n_sel; i++)
        r.in_s[sel[i]] = 1;
    lf__rg_pol_run(p, &r, sel[0], action, 1.0, grad);
    double lp = NAN;
    if (action < 0)
        lp = r.lp_stop;
    for (int32_t i = 0; i < r.n_cand; i++)
        if (r.inv[r.cand[i]] == action)
            lp = r.lp_cand[i];
    lf__rg_group_destroy(&r);
    if (isnan(lp))
        return lf_set_error(LF_EINVAL, "lf_rgx_policy_logp: action %d is not available",
                            (int)action);
    *logp = lp;
    return LF_OK;
}

/* Argmax-score seed, skipping isolated nodes when the group has edges. */
int32_t lf__rg_loc_seed(const lf_rgx *p, lf__rg_group *r)
{
    int32_t best = 0;
    double bs = -INFINITY;
    lf__rg_loc_transpose(p, r->lt); /* the parameters may have moved since the last call */
    for (int32_t v = 0; v < r->n; v++) {
        if (r->g->n_edges > 0 && r->adj_start[v + 1] == r->adj_start[v])
            continue;
        double s = lf__rg_loc_score(p, r->lt, r->emb + (int64_t)v * p->emb_dim, r->gemb);
        if (s > bs) {
            bs = s;
            best = v;
        }
    }
    return best;
}

/* ---- reward and episodes ---------------------------------------------------- */

/* R(S) for S = order[0..len), seed order[0] (see rgexplainer.c). */
lf_status lf__rg_reward(const lf_gnn *m, lf_gnn_ws *ws, lf__rg_group *r, const int32_t *order,
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
int32_t lf__rg_episode(const lf_rgx *p, lf__rg_group *r, int32_t *order, int32_t len,
                       int32_t max_size, lf_rng *rng, int32_t *acts, int32_t *n_acts)
{
    memset(r->in_s, 0, (size_t)r->n);
    for (int32_t i = 0; i < len; i++)
        r->in_s[order[i]] = 1;
    int32_t na = 0;
    while (len < max_size && len < r->n) {
        lf__rg_pol_run(p, r, order[0], -1, 0, NULL);
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
int32_t lf__rg_khop(lf__rg_group *r, int32_t v, int32_t cap, lf_rng *rng, int32_t *out)
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
    lf__rg_group r;
    if ((st = lf__rg_group_init(&r, g, m, ws)) == LF_OK) {
        order[0] = lf__rg_loc_seed(p, &r);
        *len = lf__rg_episode(p, &r, order, 1, max_size, NULL, NULL, NULL);
        lf__rg_group_destroy(&r);
    }
    lf_gnn_ws_free(ws);
    return st;
}
