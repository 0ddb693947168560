/* GNNExplainer (Ying et al. 2019; reference §2), edge mask only, as PyG's
 * GNNExplainer(edge_mask_type='object', node_mask_type=None):
 *
 *   a free logit m_e per edge, s_e = sigmoid(m_e) used as w_e in all layers;
 *   m_e ~ N(0, std^2), std = sqrt(2) * sqrt(1 / N) (PyG: calculate_gain('relu')
 *   * sqrt(2 / (2N))), drawn from stream LF__GNNE_STREAM of the seed;
 *   L = -log p(invalid | s) + 0.005 * sum_H s_e + 1.0 * mean_H H(s_e);
 *   Adam (lr 0.01) over the logits for 100 iterations, the GNN frozen.
 *
 * Like PyG, the first iteration has no regularisers and fixes the "hard"
 * set H = edges whose first gradient is non-zero; later iterations
 * regularise only H, and edges outside H score 0. The target is always
 * class 0 (invalid): the splitter explains groups the cost model rejected. */
#include "explain/explainer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/rng.h"
#include "planner/util/stash.h"

#define LF__GNNE_STREAM 0x676e6e65ULL /* "gnne" */
#define LF__GNNE_EPS 1e-15
#define LF_GNNE_DEFAULT_PATIENCE 0

void lf_gnne_config_default(lf_gnne_config *c)
{
    c->epochs = 100;
    c->lr = 0.01f;
    c->size_coef = 0.005f;
    c->ent_coef = 1.0f;
    c->patience = LF_GNNE_DEFAULT_PATIENCE;
}

/* Inserts the edges of `order` (a permutation of the hard edges) back into
 * descending logit order, ties by index; returns 1 when anything moved. The
 * order of the previous iteration is nearly sorted, so this is linear while
 * the ranking holds still. */
static int lf__rerank(int32_t *order, int32_t n, const float *logit, int32_t top)
{
    int moved = 0;
    if (top <= 0 || top > n)
        top = n;
    for (int32_t i = 1; i < n; i++) {
        int32_t x = order[i], j = i - 1;
        while (j >= 0 && (logit[order[j]] < logit[x] ||
                          (logit[order[j]] == logit[x] && order[j] > x))) {
            order[j + 1] = order[j];
            j--;
        }
        if (j + 1 != i) {
            order[j + 1] = x;
            moved |= j + 1 < top;
        }
    }
    return moved;
}

lf_status lf_gnne_objective(const lf_gnn *m, lf_gnn_ws *ws, const lf_gnn_graph *g,
                            const float *logit, const uint8_t *hard, int regularise,
                            const lf_gnne_config *cfg, double *loss, float *grad, float *dw_pred)
{
    int32_t ne = g->n_edges;
    float *s = malloc(sizeof(float) * (size_t)(ne ? ne : 1));
    float *dew = malloc(sizeof(float) * (size_t)(ne ? ne : 1));
    if (!s || !dew) {
        free(s);
        free(dew);
        return lf_set_error(LF_ENOMEM, "out of memory for %d edge masks", (int)ne);
    }
    for (int32_t e = 0; e < ne; e++)
        s[e] = (float)lf_sigmoid(logit[e]);
    lf_gnn_graph v = *g;
    v.ew = s;
    float logits[2], dlog[2];
    lf_status st = lf_gnn_forward(m, &v, ws, logits);
    if (st == LF_OK) {
        double l = lf_softmax_ce(logits, 2, 0, dlog, NULL);
        st = lf_gnn_backward(m, ws, dlog, NULL, NULL, dew);
        if (st == LF_OK) {
            if (dw_pred)
                memcpy(dw_pred, dew, sizeof(float) * (size_t)ne);
            int32_t nh = 0;
            for (int32_t e = 0; e < ne; e++)
                nh += !hard || hard[e];
            for (int32_t e = 0; e < ne; e++) {
                double se = s[e], ds = dew[e];
                if (regularise && nh > 0 && (!hard || hard[e])) {
                    double h = -se * log(se + LF__GNNE_EPS) - (1 - se) * log(1 - se + LF__GNNE_EPS);
                    double dh = -log(se + LF__GNNE_EPS) - se / (se + LF__GNNE_EPS) +
                                log(1 - se + LF__GNNE_EPS) + (1 - se) / (1 - se + LF__GNNE_EPS);
                    l += cfg->size_coef * se + cfg->ent_coef * h / nh;
                    ds += cfg->size_coef + cfg->ent_coef * dh / nh;
                }
                if (grad)
                    grad[e] = (float)(ds * se * (1 - se));
            }
            if (loss)
                *loss = l;
        }
    }
    free(s);
    free(dew);
    return st;
}

/* What one explanation needs besides the model: a GNN workspace and the
 * mask's buffers, kept between groups in the explainer's stash (one per
 * thread at work) so that large groups do not fault in fresh pages. */
typedef struct lf__gnne_scratch {
    lf_gnn_ws *ws;
    float *logit, *grad, *dw;
    uint8_t *hard;
    int32_t *order;
    int32_t cap_edges;
} lf__gnne_scratch;

static void lf__gnne_scratch_free(void *item)
{
    lf__gnne_scratch *x = item;
    if (!x)
        return;
    lf_gnn_ws_free(x->ws);
    free(x->logit);
    free(x->grad);
    free(x->dw);
    free(x->hard);
    free(x->order);
    free(x);
}

/* Grows x (or makes it) for ne edges and GNN m; NULL without memory. */
static lf__gnne_scratch *lf__gnne_scratch_fit(lf__gnne_scratch *x, const lf_gnn *m, int32_t ne)
{
    if ((!x && !(x = calloc(1, sizeof *x))) || lf_gnn_ws_refit(&x->ws, m) != LF_OK) {
        lf__gnne_scratch_free(x);
        return NULL;
    }
    if (ne < 1)
        ne = 1;
    if (ne > x->cap_edges) {
        free(x->logit);
        free(x->grad);
        free(x->dw);
        free(x->hard);
        free(x->order);
        x->cap_edges = 0;
        x->logit = malloc(sizeof(float) * (size_t)ne);
        x->grad = malloc(sizeof(float) * (size_t)ne);
        x->dw = malloc(sizeof(float) * (size_t)ne);
        x->hard = malloc((size_t)ne);
        x->order = malloc(sizeof(int32_t) * (size_t)ne);
        if (!x->logit || !x->grad || !x->dw || !x->hard || !x->order) {
            lf__gnne_scratch_free(x);
            return NULL;
        }
        x->cap_edges = ne;
    }
    return x;
}

typedef struct lf__gnne {
    lf_explainer e;
    lf_gnne_config cfg;
    lf_stash scratch; /* lf__gnne_scratch */
} lf__gnne;

static lf_status lf__gnne_explain(const lf_explainer *e, const lf_gnn *m, const lf_gnn_graph *g,
                                  uint64_t seed, double *score)
{
    lf__gnne *gx = e->ctx;
    const lf_gnne_config *cfg = &gx->cfg;
    int32_t ne = g->n_edges;
    lf__gnne_scratch *x = lf__gnne_scratch_fit(lf_stash_take(&gx->scratch), m, ne);
    if (!x)
        return lf_set_error(LF_ENOMEM, "out of memory for GNNExplainer on %d edges", (int)ne);
    lf_gnn_ws *ws = x->ws;
    /* The GNN and the group's nodes are frozen for the 100 passes below:
     * only the edge mask changes. */
    lf_status st;
    if ((st = lf_gnn_ws_fix_weights(ws, m)) != LF_OK || (st = lf_gnn_ws_fix_nodes(ws, m, g)) != LF_OK) {
        lf_stash_give(&gx->scratch, x);
        return st;
    }
    float *logit = x->logit, *grad = x->grad, *dw = x->dw;
    uint8_t *hard = x->hard;
    int32_t *order = x->order;
    int32_t n_order = 0, still = 0;
    lf_adam adam = {0};
    if (lf_adam_init(&adam, ne, cfg->lr) != 0) {
        st = lf_set_error(LF_ENOMEM, "out of memory for GNNExplainer on %d edges", (int)ne);
        goto done;
    }
    lf_rng r;
    lf_rng_seed(&r, seed, LF__GNNE_STREAM);
    double std = sqrt(2.0) * sqrt(1.0 / (double)g->n_nodes);
    for (int32_t i = 0; i < ne; i++)
        logit[i] = (float)(std * lf_rng_normal(&r));
    for (int32_t it = 0; it < cfg->epochs && st == LF_OK; it++) {
        int first = it == 0;
        st = lf_gnne_objective(m, ws, g, logit, first ? NULL : hard, !first, cfg, NULL, grad,
                               first ? dw : NULL);
        if (st != LF_OK)
            break;
        if (first)
            for (int32_t i = 0; i < ne; i++)
                if ((hard[i] = dw[i] != 0.0f))
                    order[n_order++] = i;
        lf_adam_step(&adam, logit, grad);
        /* Only the ranking reaches the splitter, so stop once it holds. */
        if (cfg->patience > 0) {
            still = lf__rerank(order, n_order, logit, cfg->top) ? 0 : still + 1;
            if (!first && still >= cfg->patience)
                break;
        }
    }
    if (st == LF_OK)
        for (int32_t i = 0; i < ne; i++)
            score[i] = (cfg->epochs > 0 && !hard[i]) ? 0.0 : lf_sigmoid(logit[i]);
done:
    lf_adam_destroy(&adam);
    lf_stash_give(&gx->scratch, x);
    return st;
}

static void lf__gnne_free(lf_explainer *e)
{
    lf__gnne *gx = e->ctx;
    lf_stash_destroy(&gx->scratch);
    free(gx);
}

lf_status lf_explainer_gnne_create(lf_explainer **out, const lf_gnne_config *cfg)
{
    if (!out)
        return lf_set_error(LF_EINVAL, "lf_explainer_gnne_create: NULL argument");
    *out = NULL;
    lf__gnne *x = calloc(1, sizeof *x);
    if (!x)
        return lf_set_error(LF_ENOMEM, "out of memory for GNNExplainer");
    if (cfg)
        x->cfg = *cfg;
    else
        lf_gnne_config_default(&x->cfg);
    if (x->cfg.epochs < 0 || !(x->cfg.lr > 0) || x->cfg.patience < 0) {
        free(x);
        return lf_set_error(LF_EINVAL, "GNNExplainer: epochs and patience must be >= 0 and lr > 0");
    }
    lf_status st = lf_stash_init(&x->scratch, lf__gnne_scratch_free, "GNNExplainer's scratch");
    if (st != LF_OK) {
        free(x);
        return st;
    }
    x->e.name = "gnne";
    x->e.uses_seed = 1;
    x->e.explain = lf__gnne_explain;
    x->e.free = lf__gnne_free;
    x->e.ctx = x;
    *out = &x->e;
    return LF_OK;
}
