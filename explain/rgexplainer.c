/* RG-Explainer (Shan et al. 2021; reference §4), graph task.
 *
 * Seed locator: MLP [g_G; n_v] (2d) -> 64 -> ReLU -> 8 -> ReLU -> 1, softmax
 * over the group's nodes; n_v, g_G the frozen GNN's last-layer node
 * embeddings and sum readout. Trained with the soft-target cross-entropy
 * -sum_v t_v log softmax(score)_v, t = softmax_v(R(explanation from seed
 * v)) (the reference notes the authors' KLDivLoss-on-probabilities quirk;
 * this is the clean form).
 *
 * Policy (hidden 64): for every involved node u (selection S plus its outer
 * boundary B, undirected),
 *   h_u = W_s z_seed[u] + W_n z_sel[u] + W_a x_u + b_a
 *   h <- h + R_k Swish(h) + r_k, k = 1, 2           (residual blocks)
 *   c_u = w_node . h_u,  q = Swish(sum_u softmax(w_att . h)_u h_u)
 *   [l_cont, l_stop] = log_softmax(W_stop q)
 *   log pi(add u in B) = log_softmax_B(c)_u + l_cont,  log pi(stop) = l_stop
 * z = personalised-PageRank propagation (3 steps, alpha 0.85) of the seed's
 * one-hot and of S's indicator over the symmetric normalised adjacency.
 * w_node and W_stop start at 0: uniform candidates, P(stop) = 1/2.
 *
 * Reward of a final set S with seed s:
 *   R(S) = -[CE(f(G_S), invalid) + 0.01 |E(G_S)| + 0.01 depth_s(S)
 *            + 0.01 ||emb(G_S) - emb(G)||]
 * (the authors' graph-task coefficients; |E| counts each DAG edge once).
 *
 * Training (lf_rgx_train): locator pretraining on 3-hop subgraphs (200
 * full-batch steps); generator imitation of random layer-wise BFS orders of
 * the locator seed's 3-hop subgraph (10 teacher-forced epochs, then 25
 * epochs aiming at the best-scored candidate still in the demo set); then
 * REINFORCE (10 epochs of 128 episodes, 5 Monte-Carlo roll-outs per prefix,
 * no baseline), refreshing the locator every 5 epochs. Adam lr 0.01.
 * Inference is deterministic: argmax seed, then greedy actions.
 *
 * Edge scores: an edge inside G_S scores 1 + (max_size - i) / max_size, i
 * the insertion index of its later endpoint (earlier = more important, as
 * the authors' prepare_mask). Beyond the reference, an edge with exactly one
 * end in S scores (max_size - j) / (2 max_size), j that end's insertion
 * index, and other edges 0: the splitter needs edges to cut even when the
 * policy stops at the seed alone, and a one-node explanation says "cut
 * around this op". */
#include "explain/explainer.h"

#include <stdlib.h>
#include <string.h>

#include "explain/explainer_rg.h"

/* ---- explainer ---------------------------------------------------------- */

static lf_status lf__rg_explain(const lf_explainer *e, const lf_gnn *m, const lf_gnn_graph *g,
                                uint64_t seed, double *score)
{
    (void)seed;
    const lf_rgx *p = e->ctx;
    lf_rgx_config cfg;
    lf_rgx_config_default(&cfg);
    cfg.max_size = p->max_size;
    int32_t *order = malloc(sizeof(int32_t) * (size_t)g->n_nodes);
    if (!order)
        return lf_set_error(LF_ENOMEM, "out of memory for an RG-Explainer episode");
    int32_t len = 0;
    lf_status st = lf_rgx_explain_nodes(p, m, g, &cfg, order, &len);
    if (st == LF_OK) {
        int32_t *pos = malloc(sizeof(int32_t) * (size_t)g->n_nodes);
        if (!pos) {
            free(order);
            return lf_set_error(LF_ENOMEM, "out of memory for an RG-Explainer episode");
        }
        for (int32_t v = 0; v < g->n_nodes; v++)
            pos[v] = -1;
        for (int32_t i = 0; i < len; i++)
            pos[order[i]] = i;
        for (int32_t i = 0; i < g->n_edges; i++) {
            int32_t a = pos[g->src[i]], b = pos[g->dst[i]];
            int32_t later = a > b ? a : b, in = a >= 0 ? a : b;
            if (a >= 0 && b >= 0)
                score[i] = 1.0 + (double)(p->max_size - later) / p->max_size;
            else if (in >= 0)
                score[i] = (double)(p->max_size - in) / (2.0 * p->max_size);
            else
                score[i] = 0.0;
        }
        free(pos);
    }
    free(order);
    return st;
}

static void lf__rg_free(lf_explainer *e)
{
    free(e);
}

lf_status lf_explainer_rg_create(lf_explainer **out, const lf_rgx *p)
{
    if (!out || !p || !p->params)
        return lf_set_error(LF_EINVAL, "lf_explainer_rg_create: NULL or empty RG-Explainer");
    *out = NULL;
    lf_explainer *e = calloc(1, sizeof *e);
    if (!e)
        return lf_set_error(LF_ENOMEM, "out of memory for the RG-Explainer");
    e->name = "rg";
    e->uses_seed = 0;
    e->explain = lf__rg_explain;
    e->free = lf__rg_free;
    e->ctx = (void *)p;
    *out = e;
    return LF_OK;
}
