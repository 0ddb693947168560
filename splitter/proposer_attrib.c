/* The `attrib` proposer: analytic attribution of F_beta to the group's edges
 * (formula in splitter/proposer.h). A reference point for the GNN explainers:
 * it reads the cost model directly instead of learning it. */
#include <stdlib.h>

#include "splitter/proposer.h"

lf_status lf__propose_attrib(const lf_proposer *p, lf_cost_model *cm, const lf_bitset *group,
                             uint64_t seed, int32_t k, lf_edge_score *out, int32_t *n_out);

/* The weight term op x contributes to F_beta: everything when the scheme
 * keeps weights resident (LBDF), one output channel's share when they stream
 * (BRR). The share is the proposer's own estimate (its published scores
 * rest on it), not the cost model's block. */
static int64_t lf__weight_term(const lf_graph *g, int32_t x, int32_t wb, int resident)
{
    int64_t w = lf_weight_bytes(g, x, wb);
    if (resident || w == 0)
        return w;
    int64_t c = g->ops[x].out.c > 0 ? g->ops[x].out.c : 1;
    return (w + c - 1) / c;
}

lf_status lf__propose_attrib(const lf_proposer *p, lf_cost_model *cm, const lf_bitset *group,
                             uint64_t seed, int32_t k, lf_edge_score *out, int32_t *n_out)
{
    (void)p;
    (void)seed;
    const lf_graph *g = lf_cost_graph(cm);
    int32_t wb = lf_cost_hw(cm)->weight_bytes;
    int resident = lf_cost_weights_resident(cm);
    lf_cost_report rep;
    lf_status st = lf_cost_explain(cm, group, &rep);
    if (st != LF_OK)
        return st;
    int64_t *win = calloc((size_t)g->n_ops, sizeof *win);
    if (!win) {
        lf_cost_report_destroy(&rep);
        return lf_set_error(LF_ENOMEM, "out of memory scoring edges");
    }
    /* Only the window held for consumers inside the group: the staging row
     * of an output stays whatever is cut. */
    for (int32_t i = 0; i < rep.n_rows; i++) {
        const lf_window_row *r = &rep.rows[i];
        if (r->tensor >= 0 && r->tensor < g->n_ops && !r->view)
            win[r->tensor] = r->rows * r->row_bytes;
    }
    double denom = rep.cost.f_beta > 0 ? (double)rep.cost.f_beta : 1.0;
    int32_t n = lf_group_edges(g, group, out);
    for (int32_t i = 0; i < n; i++) {
        int32_t u = out[i].u, v = out[i].v;
        int64_t num = win[u] + lf__weight_term(g, u, wb, resident) + lf__weight_term(g, v, wb, resident);
        out[i].score = (double)num / denom;
    }
    lf_proposal_rank(out, n);
    *n_out = k > 0 && k < n ? k : n;
    free(win);
    lf_cost_report_destroy(&rep);
    return LF_OK;
}
