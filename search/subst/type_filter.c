/* The rule pre-filter by op type: a rule whose source pattern has a node
 * accepting none of the op types a graph holds can never match that graph,
 * so the searches skip it for that graph before running the matcher (which
 * allocates and scans every op per rule). With the generated rule set
 * (2,063 rules, most over ops a given network lacks: Transpose, Split,
 * MatMul in a CNN) this drops most rules once per graph; the matches, and
 * so every search's result, are unchanged. */
#include "search/subst/subst.h"

uint64_t lf_subst_graph_types(const lf_graph *g)
{
    uint64_t t = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        if ((int32_t)g->ops[v].type >= 0 && (int32_t)g->ops[v].type < 64)
            t |= LF_SUBST_TYPE(g->ops[v].type);
    return t;
}

int lf_subst_rule_possible(const lf_subst_rule *r, uint64_t types)
{
    for (int32_t i = 0; i < r->n_nodes && i < LF_SUBST_MAX_NODES; i++)
        if (!(r->nodes[i].types & types))
            return 0;
    return 1;
}
