/* A trivial search for the plug-in test (tests/plugins/search_plugin.sh):
 * walks the ops in topological order and fuses each fusable op with the
 * next one when that one reads it and the pair is a valid group; everything
 * else stays alone. Pairs are intervals of the topological order, so the
 * plan is acyclic. Only the test build links it: the row that names it is
 * searches_extra.def, appended to search/partition/searches.def there. */
#include "planner/plan.h"

lf_status lf_plan_pairs(lf_cost_model *cm, lf_plan *out);

lf_status lf_plan_pairs(lf_cost_model *cm, lf_plan *out)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_bitset pair;
    lf_status st = lf_plan_init(out, g->n_ops);
    if (st != LF_OK)
        return st;
    if ((st = lf_bitset_init(&pair, g->n_ops)) != LF_OK) {
        lf_plan_destroy(out);
        return st;
    }
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
        if (g->ops[v].type == LF_OP_INPUT)
            continue;
        out->group_of[v] = out->n_groups++;
        int32_t w = v + 1;
        if (w >= g->n_ops || !lf_cost_fusable(cm, v) || !lf_cost_fusable(cm, w))
            continue;
        int reads = 0;
        for (int32_t j = 0; j < g->ops[w].n_inputs; j++)
            reads |= g->ops[w].inputs[j] == v;
        if (!reads)
            continue;
        lf_group_cost c;
        lf_bitset_clear_all(&pair);
        lf_bitset_set(&pair, v);
        lf_bitset_set(&pair, w);
        st = lf_cost_eval(cm, &pair, &c);
        if (st == LF_OK && c.valid)
            out->group_of[w] = out->group_of[v], v = w;
    }
    lf_bitset_destroy(&pair);
    if (st != LF_OK)
        lf_plan_destroy(out);
    return st;
}
