/* The adapter that makes any explainer of explain/ a proposer for the tree
 * splitter: the group is featurised with the cost model's beta and hardware,
 * explained, and its edges ranked (splitter/explainer_proposer.h). */
#include "splitter/explainer_proposer.h"

#include <stdlib.h>
#include <string.h>

typedef struct lf__xprop {
    lf_proposer p;
    const lf_explainer *e;
    const lf_gnn *m;
} lf__xprop;

static lf_status lf__xprop_propose(const lf_proposer *p, lf_cost_model *cm,
                                   const lf_bitset *group, uint64_t seed, int32_t k,
                                   lf_edge_score *out, int32_t *n_out)
{
    const lf__xprop *xp = p->ctx;
    *n_out = 0;
    /* A GNN labelled under one scheme answers another scheme's question
     * wrongly without any visible sign: refuse instead. */
    if (xp->m->scheme[0] && strcmp(xp->m->scheme, lf_cost_scheme_name(cm)) != 0)
        return lf_set_error(LF_EINVAL, "proposer %s: the GNN was trained for scheme %s, the cost "
                            "model uses %s", p->name, xp->m->scheme, lf_cost_scheme_name(cm));
    lf_xgraph xg;
    lf_status st = lf_xgraph_build(&xg, xp->m, cm, group);
    if (st != LF_OK)
        return st;
    if (xg.n_edges == 0) {
        lf_xgraph_destroy(&xg);
        return LF_OK;
    }
    double *score = malloc(sizeof(double) * (size_t)xg.n_edges);
    if (!score) {
        lf_xgraph_destroy(&xg);
        return lf_set_error(LF_ENOMEM, "out of memory for %d edge scores", (int)xg.n_edges);
    }
    lf_gnn_graph view = lf_xgraph_view(&xg);
    st = lf_explainer_run(xp->e, xp->m, &view, seed, score);
    if (st == LF_OK) {
        for (int32_t i = 0; i < xg.n_edges; i++) {
            out[i].u = xg.ops[xg.src[i]];
            out[i].v = xg.ops[xg.dst[i]];
            out[i].score = score[i];
        }
        lf_proposal_rank(out, xg.n_edges);
        *n_out = (k > 0 && k < xg.n_edges) ? k : xg.n_edges;
    }
    free(score);
    lf_xgraph_destroy(&xg);
    return st;
}

static void lf__xprop_free(lf_proposer *p)
{
    free(p->ctx);
}

lf_status lf_proposer_from_explainer(lf_proposer **out, const lf_explainer *e, const lf_gnn *m)
{
    if (!out || !e || !m)
        return lf_set_error(LF_EINVAL, "lf_proposer_from_explainer: NULL argument");
    *out = NULL;
    lf__xprop *xp = calloc(1, sizeof *xp);
    if (!xp)
        return lf_set_error(LF_ENOMEM, "out of memory for a proposer");
    xp->e = e;
    xp->m = m;
    xp->p.name = e->name;
    xp->p.uses_seed = e->uses_seed;
    xp->p.propose = lf__xprop_propose;
    xp->p.free = lf__xprop_free;
    xp->p.ctx = xp;
    *out = &xp->p;
    return LF_OK;
}
