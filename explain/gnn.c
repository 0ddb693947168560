/* The GNN model: parameter layout, initialisation, and the full forward and
 * backward passes composed from the layers in layers.h. */
#include "explain/gnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/rng.h"

void lf_gnn_config_default(lf_gnn_config *c)
{
    c->in_dim = LF_FEAT_DIM;
    c->hidden = 128;
    c->n_layers = 4;
    c->n_classes = 2;
    c->undirected = 1;
}

static int32_t lf__layer_in(const lf_gnn_config *c, int32_t l)
{
    return l == 0 ? c->in_dim : c->hidden;
}

static int64_t lf__layer_size(const lf_gnn_config *c, int32_t l)
{
    int64_t in = lf__layer_in(c, l);
    return 2 * in * c->hidden + c->hidden;
}

void lf_gnn_layer_view(const lf_gnn *m, float *flat, int32_t l, lf_gconv *out)
{
    int64_t off = 0;
    for (int32_t k = 0; k < l; k++)
        off += lf__layer_size(&m->cfg, k);
    out->in = lf__layer_in(&m->cfg, l);
    out->out = m->cfg.hidden;
    out->w_root = flat + off;
    out->w_rel = out->w_root + (int64_t)out->in * out->out;
    out->b = out->w_rel + (int64_t)out->in * out->out;
    out->w_root_t = out->w_rel_t = NULL;
}

void lf_gnn_head_view(const lf_gnn *m, float *flat, lf_head *out)
{
    int64_t off = 0;
    for (int32_t k = 0; k < m->cfg.n_layers; k++)
        off += lf__layer_size(&m->cfg, k);
    out->in = m->cfg.hidden;
    out->out = m->cfg.n_classes;
    out->w = flat + off;
    out->b = out->w + (int64_t)out->in * out->out;
}

lf_status lf_gnn_init(lf_gnn *m, const lf_gnn_config *cfg, uint64_t seed)
{
    memset(m, 0, sizeof *m);
    if (cfg->in_dim < 1 || cfg->hidden < 1 || cfg->n_layers < 1 ||
        cfg->n_layers > LF_GNN_MAX_LAYERS || cfg->n_classes < 2 || cfg->in_dim > LF_GNN_MAX_WIDTH ||
        cfg->hidden > LF_GNN_MAX_WIDTH || cfg->n_classes > 1024)
        return lf_set_error(LF_EINVAL, "bad GNN dimensions (in %d, hidden %d, layers %d, classes %d)",
                            (int)cfg->in_dim, (int)cfg->hidden, (int)cfg->n_layers,
                            (int)cfg->n_classes);
    m->cfg = *cfg;
    int64_t n = 0;
    for (int32_t l = 0; l < cfg->n_layers; l++)
        n += lf__layer_size(cfg, l);
    n += (int64_t)cfg->hidden * cfg->n_classes + cfg->n_classes;
    m->n_params = n;
    m->params = malloc(sizeof(float) * (size_t)n);
    if (!m->params)
        return lf_set_error(LF_ENOMEM, "out of memory for %lld GNN parameters", (long long)n);
    lf_feat_norm_identity(&m->norm);
    lf_rng r;
    lf_rng_seed(&r, seed, 0);
    for (int32_t l = 0; l < cfg->n_layers; l++) {
        lf_gconv L;
        lf_gnn_layer_view(m, m->params, l, &L);
        int64_t w = (int64_t)L.in * L.out;
        lf_linear_init(&r, L.w_root, w, L.in);
        lf_linear_init(&r, L.w_rel, w, L.in);
        lf_linear_init(&r, L.b, L.out, L.in);
    }
    lf_head H;
    lf_gnn_head_view(m, m->params, &H);
    lf_linear_init(&r, H.w, (int64_t)H.in * H.out, H.in);
    lf_linear_init(&r, H.b, H.out, H.in);
    return LF_OK;
}

void lf_gnn_destroy(lf_gnn *m)
{
    free(m->params);
    m->params = NULL;
    m->n_params = 0;
}

/* ---- workspace ----------------------------------------------------------- */

struct lf_gnn_ws {
    int32_t cap_nodes;
    int32_t n_layers, hidden, in_dim, n_classes;
    const lf_gnn_graph *gr;        /* graph of the last forward pass */
    float *h[LF_GNN_MAX_LAYERS + 1]; /* h[0] unused (the graph's x); h[l] n x hidden */
    float *agg[LF_GNN_MAX_LAYERS];   /* agg[l] n x in(l) */
    float *z[LF_GNN_MAX_LAYERS];     /* z[l] n x hidden */
    float *dh, *dz, *tmp, *dh_in;    /* backward scratch */
    float *g, *dg;
    int valid;                       /* a forward pass is cached */
    const float *fixed_params;       /* the weights wt was made from, or NULL */
    float *wt;                       /* per layer: w_root^T then w_rel^T */
    int64_t cap_wt, cap_root;        /* floats wt and root0 hold (kept between fixes) */
    /* lf_gnn_ws_fix_nodes: b + x W_root of the first layer (n x hidden) for
     * the features x of n nodes, made with the weights root_params. */
    float *root0;
    const float *root_x, *root_params;
    int32_t root_n;
};

lf_status lf_gnn_ws_create(lf_gnn_ws **out, const lf_gnn *m)
{
    lf_gnn_ws *ws = calloc(1, sizeof *ws);
    if (!ws)
        return lf_set_error(LF_ENOMEM, "out of memory for a GNN workspace");
    ws->n_layers = m->cfg.n_layers;
    ws->hidden = m->cfg.hidden;
    ws->in_dim = m->cfg.in_dim;
    ws->n_classes = m->cfg.n_classes;
    ws->g = calloc((size_t)ws->hidden, sizeof(float));
    ws->dg = calloc((size_t)ws->hidden, sizeof(float));
    if (!ws->g || !ws->dg) {
        lf_gnn_ws_free(ws);
        return lf_set_error(LF_ENOMEM, "out of memory for a GNN workspace");
    }
    *out = ws;
    return LF_OK;
}

static void lf__ws_release(lf_gnn_ws *ws)
{
    for (int32_t l = 0; l <= LF_GNN_MAX_LAYERS; l++) {
        free(ws->h[l]);
        ws->h[l] = NULL;
    }
    for (int32_t l = 0; l < LF_GNN_MAX_LAYERS; l++) {
        free(ws->agg[l]);
        free(ws->z[l]);
        ws->agg[l] = ws->z[l] = NULL;
    }
    free(ws->dh);
    free(ws->dz);
    free(ws->tmp);
    free(ws->dh_in);
    ws->dh = ws->dz = ws->tmp = ws->dh_in = NULL;
    ws->cap_nodes = 0;
}

void lf_gnn_ws_free(lf_gnn_ws *ws)
{
    if (!ws)
        return;
    lf__ws_release(ws);
    free(ws->g);
    free(ws->dg);
    free(ws->wt);
    free(ws->root0);
    free(ws);
}

lf_status lf_gnn_ws_refit(lf_gnn_ws **ws, const lf_gnn *m)
{
    const lf_gnn_ws *w = *ws;
    if (w && w->n_layers == m->cfg.n_layers && w->hidden == m->cfg.hidden &&
        w->in_dim == m->cfg.in_dim && w->n_classes == m->cfg.n_classes)
        return LF_OK;
    lf_gnn_ws_free(*ws);
    *ws = NULL;
    return lf_gnn_ws_create(ws, m);
}

static lf_status lf__ws_reserve(lf_gnn_ws *ws, int32_t n)
{
    if (n <= ws->cap_nodes)
        return LF_OK;
    lf__ws_release(ws);
    int32_t cap = 16;
    while (cap < n)
        cap *= 2;
    size_t wide = (size_t)cap * (size_t)(ws->hidden > ws->in_dim ? ws->hidden : ws->in_dim);
    size_t hid = (size_t)cap * (size_t)ws->hidden;
    int ok = 1;
    for (int32_t l = 1; l <= ws->n_layers; l++)
        ok &= (ws->h[l] = malloc(sizeof(float) * hid)) != NULL;
    for (int32_t l = 0; l < ws->n_layers; l++) {
        ok &= (ws->agg[l] = malloc(sizeof(float) * wide)) != NULL;
        ok &= (ws->z[l] = malloc(sizeof(float) * hid)) != NULL;
    }
    ok &= (ws->dh = malloc(sizeof(float) * wide)) != NULL;
    ok &= (ws->dz = malloc(sizeof(float) * hid)) != NULL;
    ok &= (ws->tmp = malloc(sizeof(float) * wide)) != NULL;
    ok &= (ws->dh_in = malloc(sizeof(float) * wide)) != NULL;
    if (!ok) {
        lf__ws_release(ws);
        return lf_set_error(LF_ENOMEM, "out of memory for a GNN workspace of %d nodes", (int)n);
    }
    ws->cap_nodes = cap;
    return LF_OK;
}

lf_status lf_gnn_ws_fix_weights(lf_gnn_ws *ws, const lf_gnn *m)
{
    int64_t n = 0;
    for (int32_t l = 0; l < m->cfg.n_layers; l++)
        n += 2 * (int64_t)lf__layer_in(&m->cfg, l) * m->cfg.hidden;
    /* A workspace fixed again (an explainer's, kept between groups) keeps
     * its buffer: no fresh pages to fault in. */
    float *wt = ws->wt;
    if (n > ws->cap_wt) {
        wt = malloc(sizeof(float) * (size_t)n);
        if (!wt)
            return lf_set_error(LF_ENOMEM, "out of memory for transposed GNN weights");
        free(ws->wt);
        ws->wt = NULL;
        ws->cap_wt = n;
    }
    float *t = wt;
    for (int32_t l = 0; l < m->cfg.n_layers; l++) {
        lf_gconv L;
        lf_gnn_layer_view(m, m->params, l, &L);
        lf_mm_transpose(L.in, L.out, L.w_root, t);
        t += (int64_t)L.in * L.out;
        lf_mm_transpose(L.in, L.out, L.w_rel, t);
        t += (int64_t)L.in * L.out;
    }
    ws->wt = wt;
    ws->fixed_params = m->params;
    return LF_OK;
}

lf_status lf_gnn_ws_fix_nodes(lf_gnn_ws *ws, const lf_gnn *m, const lf_gnn_graph *gr)
{
    if (gr->n_nodes < 1)
        return lf_set_error(LF_EINVAL, "GNN input graph has no nodes");
    int32_t n = gr->n_nodes;
    int64_t need = (int64_t)n * m->cfg.hidden;
    float *root = ws->root0;
    if (need > ws->cap_root) {
        root = malloc(sizeof(float) * (size_t)need);
        if (!root)
            return lf_set_error(LF_ENOMEM, "out of memory for a GNN workspace of %d nodes", (int)n);
        free(ws->root0);
        ws->root0 = NULL;
        ws->cap_root = need;
    }
    lf_gconv L;
    lf_gnn_layer_view(m, m->params, 0, &L);
    lf_gconv_forward_root(&L, n, gr->x, root);
    ws->root0 = root;
    ws->root_x = gr->x;
    ws->root_n = n;
    ws->root_params = m->params;
    return LF_OK;
}

const float *lf_gnn_ws_embedding(const lf_gnn_ws *ws)
{
    return ws->g;
}

const float *lf_gnn_ws_node_embedding(const lf_gnn_ws *ws, int32_t l)
{
    return (l >= 1 && l <= ws->n_layers) ? ws->h[l] : NULL;
}

/* ---- forward / backward -------------------------------------------------- */

static void lf__edges_of(const lf_gnn *m, const lf_gnn_graph *gr, lf_gconv_edges *e)
{
    e->n_nodes = gr->n_nodes;
    e->n_edges = gr->n_edges;
    e->src = gr->src;
    e->dst = gr->dst;
    e->w = gr->ew;
    e->undirected = m->cfg.undirected;
}

lf_status lf_gnn_forward(const lf_gnn *m, const lf_gnn_graph *gr, lf_gnn_ws *ws, float *logits)
{
    if (gr->n_nodes < 1)
        return lf_set_error(LF_EINVAL, "GNN input graph has no nodes");
    for (int32_t k = 0; k < gr->n_edges; k++)
        if (gr->src[k] < 0 || gr->src[k] >= gr->n_nodes || gr->dst[k] < 0 ||
            gr->dst[k] >= gr->n_nodes)
            return lf_set_error(LF_EINVAL, "GNN edge %d (%d -> %d) outside %d nodes", (int)k,
                                (int)gr->src[k], (int)gr->dst[k], (int)gr->n_nodes);
    lf_status st = lf__ws_reserve(ws, gr->n_nodes);
    if (st != LF_OK)
        return st;
    lf_gconv_edges e;
    lf__edges_of(m, gr, &e);
    int32_t n = gr->n_nodes;
    for (int32_t l = 0; l < m->cfg.n_layers; l++) {
        lf_gconv L;
        lf_gnn_layer_view(m, m->params, l, &L);
        const float *hin = l == 0 ? gr->x : ws->h[l];
        lf_gconv_aggregate(&e, L.in, hin, ws->agg[l]);
        if (l == 0 && ws->root0 && ws->root_x == gr->x && ws->root_n == n &&
            ws->root_params == m->params) {
            memcpy(ws->z[0], ws->root0, sizeof(float) * (size_t)n * (size_t)L.out);
            lf_gconv_forward_rel(&L, n, ws->agg[0], ws->z[0]);
        } else {
            lf_gconv_forward(&L, n, hin, ws->agg[l], ws->z[l]);
        }
        lf_relu_forward((int64_t)n * L.out, ws->z[l], ws->h[l + 1]);
    }
    lf_readout_sum_forward(n, m->cfg.hidden, ws->h[m->cfg.n_layers], ws->g);
    lf_head H;
    lf_gnn_head_view(m, m->params, &H);
    lf_head_forward(&H, ws->g, logits);
    ws->gr = gr;
    ws->valid = 1;
    return LF_OK;
}

lf_status lf_gnn_backward(const lf_gnn *m, lf_gnn_ws *ws, const float *dlogits, float *grad,
                          float *dx, float *dew)
{
    if (!ws->valid)
        return lf_set_error(LF_EINVAL, "GNN backward pass without a forward pass");
    const lf_gnn_graph *gr = ws->gr;
    int32_t n = gr->n_nodes, hid = m->cfg.hidden;
    lf_gconv_edges e;
    lf__edges_of(m, gr, &e);
    if (dew)
        memset(dew, 0, sizeof(float) * (size_t)gr->n_edges);
    lf_head H, HG;
    lf_gnn_head_view(m, m->params, &H);
    if (grad)
        lf_gnn_head_view(m, grad, &HG);
    lf_head_backward(&H, grad ? &HG : NULL, ws->g, dlogits, ws->dg);
    lf_readout_sum_backward(n, hid, ws->dg, ws->dh);
    /* Transposes made by lf_gnn_ws_fix_weights, for this model only. */
    const float *wt = ws->fixed_params == m->params ? ws->wt : NULL;
    for (int32_t l = 0; wt && l < m->cfg.n_layers - 1; l++)
        wt += 2 * (int64_t)lf__layer_in(&m->cfg, l) * hid;
    for (int32_t l = m->cfg.n_layers - 1; l >= 0; l--) {
        lf_gconv L, LG;
        lf_gnn_layer_view(m, m->params, l, &L);
        if (wt) {
            L.w_root_t = wt;
            L.w_rel_t = wt + (int64_t)L.in * L.out;
            if (l > 0)
                wt -= 2 * (int64_t)lf__layer_in(&m->cfg, l - 1) * hid;
        }
        if (grad)
            lf_gnn_layer_view(m, grad, l, &LG);
        lf_relu_backward((int64_t)n * hid, ws->z[l], ws->dh, ws->dz);
        const float *hin = l == 0 ? gr->x : ws->h[l];
        /* The first layer's input gradient is only needed for dx. */
        float *dh_out = l > 0 ? ws->dh_in : dx;
        lf_gconv_backward(&L, grad ? &LG : NULL, &e, hin, ws->agg[l], ws->dz, dh_out, dew,
                          ws->tmp);
        if (l > 0) {
            float *t = ws->dh;
            ws->dh = ws->dh_in;
            ws->dh_in = t;
        }
    }
    return LF_OK;
}
