/* Greedy plan: merge along the topological order while the group stays valid. */
#include "search/partition/simple.h"

static int lf__reads_from(const lf_graph *g, int32_t v, const lf_plan *p, int32_t gi)
{
    for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
        if (p->group_of[g->ops[v].inputs[j]] == gi)
            return 1;
    return 0;
}

lf_status lf_plan_greedy(lf_cost_model *cm, lf_plan *out)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_bitset cur;
    lf_status st = lf_plan_init(out, g->n_ops);
    if (st != LF_OK)
        return st;
    if ((st = lf_bitset_init(&cur, g->n_ops)) != LF_OK) {
        lf_plan_destroy(out);
        return st;
    }
    int32_t open = -1; /* group index accepting ops, -1 when none */
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
        if (g->ops[v].type == LF_OP_INPUT)
            continue;
        if (!lf_cost_fusable(cm, v)) {
            out->group_of[v] = out->n_groups++;
            open = -1;
            continue;
        }
        if (open >= 0 && lf__reads_from(g, v, out, open)) {
            lf_group_cost c;
            lf_bitset_set(&cur, v);
            st = lf_cost_eval(cm, &cur, &c);
            if (st == LF_OK && c.valid) {
                out->group_of[v] = open;
                continue;
            }
            lf_bitset_reset(&cur, v);
        }
        /* v opens a new group: it is valid alone because it is fusable. */
        lf_bitset_clear_all(&cur);
        lf_bitset_set(&cur, v);
        open = out->n_groups++;
        out->group_of[v] = open;
    }
    lf_bitset_destroy(&cur);
    if (st != LF_OK)
        lf_plan_destroy(out);
    return st;
}
