/* RG-Explainer's parameters (seed locator and policy, flat vectors with
 * views), the locator's forward and backward pass, and the weight file. The
 * model is described in rgexplainer.c. */
#include "explain/explainer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain/weights.h"
#include "explain/explainer_rg.h"
#include "explain/vector_clones.h"
#include "planner/util/binfile.h"
#include "planner/util/fileio.h"
#include "planner/util/rng.h"

#define H LF_RGX_HIDDEN
#define F LF_FEAT_DIM

static lf__binfile lf__rg_file(void)
{
    return (lf__binfile){"LFRGXWT", LF_RGX_WEIGHTS_VERSION, lf_feat_schema_hash(),
                         "RG-Explainer weight file", "retrain it"};
}

void lf_rgx_config_default(lf_rgx_config *c)
{
    memset(c, 0, sizeof *c);
    c->lambda_size = c->lambda_rad = c->lambda_sim = 0.01f;
    c->max_size = 20;
    c->loc_pretrain_iters = 200;
    c->imit_list_epochs = 10;
    c->imit_set_epochs = 25;
    c->rl_epochs = 10;
    c->rl_batch = 128;
    c->rollouts = 5;
    c->imit_batch = 32;
    c->lr = 0.01f;
    c->seed = 1;
}

/* ---- parameters ---------------------------------------------------------- */

int64_t lf__rg_loc_count(int32_t d)
{
    return 64LL * 2 * d + 64 + 8 * 64 + 8 + 8 + 1;
}

int64_t lf__rg_pol_count(void)
{
    return (int64_t)H + H + (int64_t)H * F + H + 2 * ((int64_t)H * H + H) + H + H + 2 * H;
}

static lf_status lf__rgx_alloc(lf_rgx *p, int32_t d, int32_t max_size)
{
    memset(p, 0, sizeof *p);
    if (d <= 0 || d > LF_GNN_MAX_WIDTH || max_size < 2)
        return lf_set_error(LF_EINVAL, "RG-Explainer: bad dimensions %d, %d", (int)d,
                            (int)max_size);
    p->emb_dim = d;
    p->max_size = max_size;
    p->n_loc = lf__rg_loc_count(d);
    p->n_pol = lf__rg_pol_count();
    p->params = calloc((size_t)(p->n_loc + p->n_pol), sizeof(float));
    if (!p->params)
        return lf_set_error(LF_ENOMEM, "out of memory for the RG-Explainer");
    return LF_OK;
}

lf_status lf_rgx_init(lf_rgx *p, const lf_gnn *m, int32_t max_size, uint64_t seed)
{
    lf_status st = lf__rgx_alloc(p, m->cfg.hidden, max_size);
    if (st != LF_OK)
        return st;
    lf_rng r;
    lf_rng_seed(&r, seed, 0);
    int32_t d = p->emb_dim;
    float *w = p->params;
    lf_linear_init(&r, w, 64LL * 2 * d + 64, 2.0 * d);
    w += 64LL * 2 * d + 64;
    lf_linear_init(&r, w, 8 * 64 + 8, 64);
    w += 8 * 64 + 8;
    lf_linear_init(&r, w, 9, 8);
    lf_rgx_pol v;
    lf__rg_pol_view(p, p->params + p->n_loc, &v);
    lf_linear_init(&r, v.ws, H, 1);
    lf_linear_init(&r, v.wn, H, 1);
    lf_linear_init(&r, v.wa, (int64_t)H * F + H, F); /* W_a and b_a */
    for (int k = 0; k < 2; k++)
        lf_linear_init(&r, v.R[k], (int64_t)H * H + H, H); /* R_k and r_k */
    lf_linear_init(&r, v.watt, H, H);
    /* w_node and W_stop stay 0 (the authors' zero init). */
    return LF_OK;
}

void lf_rgx_destroy(lf_rgx *p)
{
    if (!p)
        return;
    free(p->params);
    memset(p, 0, sizeof *p);
}

void lf__rg_pol_view(const lf_rgx *p, float *flat, lf_rgx_pol *v)
{
    (void)p;
    v->ws = flat;
    v->wn = v->ws + H;
    v->wa = v->wn + H;
    v->ba = v->wa + (int64_t)H * F;
    v->R[0] = v->ba + H;
    v->r[0] = v->R[0] + (int64_t)H * H;
    v->R[1] = v->r[0] + H;
    v->r[1] = v->R[1] + (int64_t)H * H;
    v->wnode = v->r[1] + H;
    v->watt = v->wnode + H;
    v->wstop = v->watt + H;
}

/* ---- locator ----------------------------------------------------------------- */

/* Layers 2 and 3 of the locator from the first layer's pre-activations z1. */
static double lf__loc_tail(const lf_rgx *p, const double *z1, double *a1, double *z2, double *a2)
{
    int32_t d2 = 2 * p->emb_dim;
    const float *b1 = p->params + 64LL * d2, *L2 = b1 + 64, *b2 = L2 + 8 * 64;
    const float *L3 = b2 + 8, *b3 = L3 + 8;
    double s = b3[0];
    for (int j = 0; j < 64; j++)
        a1[j] = z1[j] > 0 ? z1[j] : 0;
    for (int j = 0; j < 8; j++) {
        double acc = b2[j];
        for (int k = 0; k < 64; k++)
            acc += (double)L2[j * 64 + k] * a1[k];
        z2[j] = acc;
        a2[j] = acc > 0 ? acc : 0;
        s += (double)L3[j] * a2[j];
    }
    return s;
}

void lf__rg_loc_transpose(const lf_rgx *p, float *lt)
{
    int32_t d2 = 2 * p->emb_dim;
    for (int j = 0; j < 64; j++)
        for (int32_t c = 0; c < d2; c++)
            lt[(int64_t)c * 64 + j] = p->params[(int64_t)j * d2 + c];
}

/* z1[j] = b1[j] + sum over c of (L1[j][c] gemb[c] + L1[j][d + c] nv[c]), the
 * products summed per j in the order of the row-by-row loop of
 * lf__rg_loc_node, from L1 transposed: the same bits (vector_clones.h). */
LF_VECTOR_CLONES
static void lf__loc_layer1(double *restrict z1, const float *restrict lt, const float *restrict b1,
                           const float *restrict gemb, const float *restrict nv, int32_t d)
{
    for (int j = 0; j < 64; j++)
        z1[j] = b1[j];
    for (int32_t c = 0; c < d; c++) {
        const float *rg = lt + (int64_t)c * 64, *rn = lt + (int64_t)(d + c) * 64;
        double g = gemb[c], x = nv[c];
        for (int j = 0; j < 64; j++)
            z1[j] += (double)rg[j] * g + (double)rn[j] * x;
    }
}

double lf__rg_loc_score(const lf_rgx *p, const float *lt, const float *nv, const float *gemb)
{
    double z1[64], a1[64], z2[8], a2[8];
    lf__loc_layer1(z1, lt, p->params + 128LL * p->emb_dim, gemb, nv, p->emb_dim);
    return lf__loc_tail(p, z1, a1, z2, a2);
}

/* Score of node v; with gs != 0 and grad, accumulates gs * d score / d params. */
double lf__rg_loc_node(const lf_rgx *p, const float *nv, const float *gemb, double gs,
                           float *grad)
{
    int32_t d = p->emb_dim, d2 = 2 * d;
    const float *L1 = p->params, *b1 = L1 + 64LL * d2, *L2 = b1 + 64, *b2 = L2 + 8 * 64;
    const float *L3 = b2 + 8;
    double z1[64], a1[64], z2[8], a2[8];
    for (int j = 0; j < 64; j++) {
        double acc = b1[j];
        const float *row = L1 + (int64_t)j * d2;
        for (int32_t c = 0; c < d; c++)
            acc += (double)row[c] * gemb[c] + (double)row[d + c] * nv[c];
        z1[j] = acc;
    }
    double s = lf__loc_tail(p, z1, a1, z2, a2);
    if (!grad || gs == 0)
        return s;
    float *gL1 = grad, *gb1 = gL1 + 64LL * d2, *gL2 = gb1 + 64, *gb2 = gL2 + 8 * 64;
    float *gL3 = gb2 + 8, *gb3 = gL3 + 8;
    gb3[0] += (float)gs;
    double da1[64] = {0};
    for (int j = 0; j < 8; j++) {
        gL3[j] += (float)(gs * a2[j]);
        if (z2[j] <= 0)
            continue;
        double dz = gs * L3[j];
        gb2[j] += (float)dz;
        for (int k = 0; k < 64; k++) {
            gL2[j * 64 + k] += (float)(dz * a1[k]);
            da1[k] += dz * L2[j * 64 + k];
        }
    }
    for (int j = 0; j < 64; j++) {
        if (z1[j] <= 0)
            continue;
        gb1[j] += (float)da1[j];
        float *row = gL1 + (int64_t)j * d2;
        for (int32_t c = 0; c < d; c++) {
            row[c] += (float)(da1[j] * gemb[c]);
            row[d + c] += (float)(da1[j] * nv[c]);
        }
    }
    return s;
}

lf_status lf_rgx_locator_loss(const lf_rgx *p, const float *node_emb, const float *graph_emb,
                              int32_t n, const double *target, double *loss, float *grad)
{
    if (!p || !p->params || n <= 0)
        return lf_set_error(LF_EINVAL, "lf_rgx_locator_loss: bad argument");
    double *s = malloc(sizeof(double) * (size_t)n);
    if (!s)
        return lf_set_error(LF_ENOMEM, "out of memory for locator scores");
    double mx = -INFINITY, sum = 0, tsum = 0;
    for (int32_t v = 0; v < n; v++) {
        s[v] = lf__rg_loc_node(p, node_emb + (int64_t)v * p->emb_dim, graph_emb, 0, NULL);
        mx = s[v] > mx ? s[v] : mx;
        tsum += target[v];
    }
    for (int32_t v = 0; v < n; v++)
        sum += exp(s[v] - mx);
    double lse = mx + log(sum), l = 0;
    for (int32_t v = 0; v < n; v++)
        l -= target[v] * (s[v] - lse);
    if (grad)
        for (int32_t v = 0; v < n; v++)
            lf__rg_loc_node(p, node_emb + (int64_t)v * p->emb_dim, graph_emb,
                         tsum * exp(s[v] - lse) - target[v], grad);
    free(s);
    if (loss)
        *loss = l;
    return LF_OK;
}

/* ---- weight file -------------------------------------------------------- */

lf_status lf_rgx_save(const lf_rgx *p, const char *path)
{
    if (!p || !p->params || !path)
        return lf_set_error(LF_EINVAL, "lf_rgx_save: NULL argument");
    lf__wbuf b = {0};
    lf__binfile bf = lf__rg_file();
    lf__bin_begin(&b, &bf);
    lf__w_u32(&b, (uint32_t)p->emb_dim);
    lf__w_u32(&b, (uint32_t)H);
    lf__w_u32(&b, (uint32_t)p->max_size);
    lf__w_u64(&b, (uint64_t)(p->n_loc + p->n_pol));
    for (int64_t i = 0; i < p->n_loc + p->n_pol; i++)
        lf__w_f32(&b, p->params[i]);
    return lf__bin_commit(&b, path);
}

lf_status lf_rgx_load_memory(lf_rgx *p, const void *data, size_t len, const char *origin)
{
    memset(p, 0, sizeof *p);
    lf__binfile bf = lf__rg_file();
    lf__rbuf r;
    lf_status st = lf__bin_open(&bf, data, len, origin, &r);
    if (st != LF_OK)
        return st;
    uint32_t d = lf__r_u32(&r), h = lf__r_u32(&r), ms = lf__r_u32(&r);
    uint64_t np = lf__r_u64(&r);
    if (r.short_)
        return lf_set_error(LF_EPARSE, "%s: truncated RG-Explainer weight file (header)", origin);
    if (d == 0 || d > LF_GNN_MAX_WIDTH || h != H || ms < 2 || ms > 100000 ||
        np != (uint64_t)(lf__rg_loc_count((int32_t)d) + lf__rg_pol_count()))
        return lf_set_error(LF_EINVAL, "%s: inconsistent dimensions", origin);
    if ((st = lf__bin_rest(&bf, &r, 4 * np, origin)) != LF_OK)
        return st;
    st = lf__rgx_alloc(p, (int32_t)d, (int32_t)ms);
    if (st != LF_OK)
        return st;
    for (uint64_t i = 0; i < np; i++) {
        p->params[i] = lf__r_f32(&r);
        if (!isfinite(p->params[i])) {
            lf_rgx_destroy(p);
            return lf_set_error(LF_EPARSE, "%s: non-finite parameter", origin);
        }
    }
    return LF_OK;
}

lf_status lf_rgx_load(lf_rgx *p, const char *path)
{
    memset(p, 0, sizeof *p);
    char *data = NULL;
    size_t len = 0;
    lf__binfile bf = lf__rg_file();
    lf_status st = lf__bin_read(&bf, path, LF_GNN_FILE_MAX, &data, &len);
    if (st != LF_OK)
        return st;
    st = lf_rgx_load_memory(p, data, len, path);
    free(data);
    return st;
}
