/* Layer-by-layer plan: every compute op is a group of its own. */
#include "search/partition/simple.h"

lf_status lf_plan_layer(lf_cost_model *cm, lf_plan *out)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_status st = lf_plan_init(out, g->n_ops);
    if (st != LF_OK)
        return st;
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT)
            out->group_of[v] = out->n_groups++;
    return LF_OK;
}
