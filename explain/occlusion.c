/* Occlusion, leave-one-edge-out (reference §5.1, 4): E + 1 forward passes,
 * edge e scored by how much setting w_e = 0 (others 1) lowers p(invalid).
 * The score is the drop in log p(invalid), log p(inv | w = 1) -
 * log p(inv | w_e = 0): it ranks edges exactly like the drop in probability
 * (both are decreasing in p(inv | w_e = 0)), but a confident GNN saturates
 * p(invalid) at 1.0f and would tie every edge at 0, while the log-softmax
 * keeps the differences. Signed on purpose: an edge whose removal makes the
 * group look worse is the last one to cut. */
#include "explain/explainer.h"

#include <stdlib.h>

static lf_status lf__occlusion_explain(const lf_explainer *e, const lf_gnn *m,
                                       const lf_gnn_graph *g, uint64_t seed, double *score)
{
    (void)e;
    (void)seed;
    lf_gnn_ws *ws = NULL;
    lf_status st = lf_gnn_ws_create(&ws, m);
    if (st != LF_OK)
        return st;
    float *w = malloc(sizeof(float) * (size_t)g->n_edges);
    if (!w) {
        lf_gnn_ws_free(ws);
        return lf_set_error(LF_ENOMEM, "out of memory for %d edge weights", (int)g->n_edges);
    }
    for (int32_t i = 0; i < g->n_edges; i++)
        w[i] = 1.0f;
    lf_gnn_graph v = *g;
    v.ew = w;
    float logits[2];
    if ((st = lf_gnn_forward(m, &v, ws, logits)) == LF_OK) {
        double base = lf_softmax_ce(logits, 2, 0, NULL, NULL); /* -log p(invalid) */
        for (int32_t i = 0; i < g->n_edges && st == LF_OK; i++) {
            w[i] = 0.0f;
            if ((st = lf_gnn_forward(m, &v, ws, logits)) == LF_OK)
                score[i] = lf_softmax_ce(logits, 2, 0, NULL, NULL) - base;
            w[i] = 1.0f;
        }
    }
    free(w);
    lf_gnn_ws_free(ws);
    return st;
}

static const lf_explainer lf__occlusion = {"occlusion", 0, lf__occlusion_explain, NULL, NULL};

const lf_explainer *lf_explainer_occlusion(void)
{
    return &lf__occlusion;
}
