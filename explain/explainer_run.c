/* Shared explainer plumbing: featurising a group for the GNN and the checked
 * explainer call (explainer.h). The adapter that makes an explainer a
 * proposer for the tree splitter is the splitter's (splitter/explainer_proposer.c). */
#include "explain/explainer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "planner/util/bitset.h"

lf_status lf_xgraph_build(lf_xgraph *xg, const lf_gnn *m, lf_cost_model *cm,
                          const lf_bitset *group)
{
    memset(xg, 0, sizeof *xg);
    if (!m || !cm || !group)
        return lf_set_error(LF_EINVAL, "lf_xgraph_build: NULL argument");
    if (m->cfg.in_dim != LF_FEAT_DIM)
        return lf_set_error(LF_EINVAL, "the GNN takes %d features, the schema has %d",
                            (int)m->cfg.in_dim, (int)LF_FEAT_DIM);
    const lf_graph *g = lf_cost_graph(cm);
    int32_t n = lf_bitset_count(group);
    if (n <= 0)
        return lf_set_error(LF_EINVAL, "cannot explain an empty group");
    int32_t ne = lf_feat_group_edges(g, group, NULL, NULL, 0);
    if (ne < 0)
        return (lf_status)ne;
    xg->ops = malloc(sizeof(int32_t) * (size_t)n);
    xg->x = malloc(sizeof(float) * (size_t)n * LF_FEAT_DIM);
    xg->src = malloc(sizeof(int32_t) * (size_t)(ne ? ne : 1));
    xg->dst = malloc(sizeof(int32_t) * (size_t)(ne ? ne : 1));
    if (!xg->ops || !xg->x || !xg->src || !xg->dst) {
        lf_xgraph_destroy(xg);
        return lf_set_error(LF_ENOMEM, "out of memory for a group of %d ops", (int)n);
    }
    xg->n_nodes = n;
    xg->n_edges = ne;
    lf_bitset_to_list(group, xg->ops);
    lf_status st = lf_feat_group(g, group, lf_cost_hw(cm)->weight_bytes, lf_cost_beta(cm), xg->x);
    if (st != LF_OK) {
        lf_xgraph_destroy(xg);
        return st;
    }
    lf_feat_norm_apply(&m->norm, xg->x, n);
    lf_feat_group_edges(g, group, xg->src, xg->dst, ne);
    return LF_OK;
}

void lf_xgraph_destroy(lf_xgraph *xg)
{
    if (!xg)
        return;
    free(xg->ops);
    free(xg->x);
    free(xg->src);
    free(xg->dst);
    memset(xg, 0, sizeof *xg);
}

lf_gnn_graph lf_xgraph_view(const lf_xgraph *xg)
{
    lf_gnn_graph v = {xg->n_nodes, xg->n_edges, xg->x, xg->src, xg->dst, NULL};
    return v;
}

lf_status lf_explain_predict(const lf_gnn *m, const lf_gnn_graph *g, float *prob)
{
    lf_gnn_ws *ws = NULL;
    lf_status st = lf_gnn_ws_create(&ws, m);
    if (st != LF_OK)
        return st;
    float logits[8];
    if (m->cfg.n_classes != 2) {
        lf_gnn_ws_free(ws);
        return lf_set_error(LF_EINVAL, "explainers need a 2-class GNN, not %d classes",
                            (int)m->cfg.n_classes);
    }
    st = lf_gnn_forward(m, g, ws, logits);
    lf_gnn_ws_free(ws);
    if (st != LF_OK)
        return st;
    lf_softmax_ce(logits, 2, 0, NULL, prob);
    return LF_OK;
}

lf_status lf_explainer_run(const lf_explainer *e, const lf_gnn *m, const lf_gnn_graph *g,
                           uint64_t seed, double *score)
{
    if (!e || !e->explain || !m || !g || (!score && g->n_edges > 0))
        return lf_set_error(LF_EINVAL, "lf_explainer_run: NULL argument");
    if (m->cfg.n_classes != 2)
        return lf_set_error(LF_EINVAL, "explainers need a 2-class GNN, not %d classes",
                            (int)m->cfg.n_classes);
    if (g->n_edges == 0)
        return LF_OK;
    lf_status st = e->explain(e, m, g, seed, score);
    if (st != LF_OK)
        return st;
    for (int32_t i = 0; i < g->n_edges; i++)
        if (!isfinite(score[i]))
            return lf_set_error(LF_EINVAL, "explainer %s gave a non-finite score to edge %d",
                                e->name, (int)i);
    return LF_OK;
}

void lf_explainer_free(lf_explainer *e)
{
    if (e && e->free)
        e->free(e);
}
