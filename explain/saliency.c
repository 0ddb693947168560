/* Gradient saliency on the edge weights (reference §5.1, 2): one forward
 * pass at w = 1 and one backward pass of L = -log p(invalid); the score of
 * edge e is |dL/dw_e| summed over the layers (the GNN shares w_e between
 * layers). The absolute value follows Captum's Saliency: a large gradient of
 * either sign says the prediction is sensitive to that edge. */
#include "explain/explainer.h"

#include <math.h>
#include <stdlib.h>

static lf_status lf__saliency_explain(const lf_explainer *e, const lf_gnn *m,
                                      const lf_gnn_graph *g, uint64_t seed, double *score)
{
    (void)e;
    (void)seed;
    lf_gnn_ws *ws = NULL;
    lf_status st = lf_gnn_ws_create(&ws, m);
    if (st != LF_OK)
        return st;
    float *dew = malloc(sizeof(float) * (size_t)g->n_edges);
    if (!dew) {
        lf_gnn_ws_free(ws);
        return lf_set_error(LF_ENOMEM, "out of memory for %d edge gradients", (int)g->n_edges);
    }
    lf_gnn_graph v = *g;
    v.ew = NULL;
    float logits[2], dlog[2];
    if ((st = lf_gnn_forward(m, &v, ws, logits)) == LF_OK) {
        lf_softmax_ce(logits, 2, 0, dlog, NULL);
        st = lf_gnn_backward(m, ws, dlog, NULL, NULL, dew);
    }
    if (st == LF_OK)
        for (int32_t i = 0; i < g->n_edges; i++)
            score[i] = fabs((double)dew[i]);
    free(dew);
    lf_gnn_ws_free(ws);
    return st;
}

static const lf_explainer lf__saliency = {"saliency", 0, lf__saliency_explain, NULL, NULL};

const lf_explainer *lf_explainer_saliency(void)
{
    return &lf__saliency;
}
