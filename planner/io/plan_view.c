/* The prepared view of a plan that both writers (plan_json.c, plan_dot.c)
 * share: a canonical copy, members and costs per group, and the metrics. */
#include <stdlib.h>
#include <string.h>

#include "planner/io/plan_view_internal.h"

void lf__plan_view_destroy(lf__plan_view *pv)
{
    lf_plan_destroy(&pv->plan);
    free(pv->start);
    free(pv->member);
    free(pv->cost);
    free(pv->lone_unfusable);
    free(pv->unfusable_dram);
    free(pv->perf);
    memset(pv, 0, sizeof *pv);
}

/* Rejects what the writers cannot describe. Cycles, disconnected or invalid
 * groups are allowed: exporting a bad plan is how one looks at it. */
static lf_status lf__plan_shape_ok(const lf_plan *p, const lf_graph *g)
{
    if (!p->group_of || p->n_ops != g->n_ops)
        return lf_set_error(LF_EPLAN, "plan covers %d ops, graph '%s' has %d", (int)p->n_ops,
                            g->name, (int)g->n_ops);
    for (int32_t v = 0; v < g->n_ops; v++) {
        int32_t gi = p->group_of[v];
        if (g->ops[v].type == LF_OP_INPUT) {
            if (gi != -1)
                return lf_set_error(LF_EPLAN, "graph input '%s' is in group %d", g->ops[v].name,
                                    (int)gi);
        } else if (gi < 0 || gi >= p->n_groups) {
            return lf_set_error(LF_EPLAN, "op '%s' is in no group (group index %d of %d)",
                                g->ops[v].name, (int)gi, (int)p->n_groups);
        }
    }
    return LF_OK;
}

/* Copies p renumbered by smallest op id. Done here rather than with
 * lf_plan_canonicalize so that running out of memory is an error instead of a
 * silently non-canonical (and so non-reproducible) file. */
static lf_status lf__canonical_copy(const lf_plan *p, lf_plan *out)
{
    lf_status st = lf_plan_init(out, p->n_ops);
    int32_t *map = malloc((size_t)(p->n_groups > 0 ? p->n_groups : 1) * sizeof(int32_t));
    if (st != LF_OK || !map) {
        free(map);
        lf_plan_destroy(out);
        return st != LF_OK ? st : lf_set_error(LF_ENOMEM, "out of memory exporting a plan");
    }
    for (int32_t k = 0; k < p->n_groups; k++)
        map[k] = -1;
    for (int32_t v = 0; v < p->n_ops; v++) {
        int32_t gi = p->group_of[v];
        if (gi < 0)
            continue;
        if (map[gi] < 0)
            map[gi] = out->n_groups++;
        out->group_of[v] = map[gi];
    }
    free(map);
    return LF_OK;
}

lf_status lf__plan_view_init(lf__plan_view *pv, const lf_plan *p, lf_cost_model *cm)
{
    memset(pv, 0, sizeof *pv);
    const lf_graph *g = lf_cost_graph(cm);
    lf_status st = lf__plan_shape_ok(p, g);
    if (st == LF_OK)
        st = lf__canonical_copy(p, &pv->plan);
    if (st != LF_OK)
        return st;
    int32_t ng = pv->plan.n_groups;
    pv->start = calloc((size_t)ng + 2, sizeof(int32_t));
    pv->member = malloc((size_t)(g->n_ops > 0 ? g->n_ops : 1) * sizeof(int32_t));
    pv->cost = calloc((size_t)ng + 1, sizeof(lf_group_cost));
    pv->lone_unfusable = calloc((size_t)ng + 1, 1);
    pv->unfusable_dram = calloc((size_t)ng + 1, sizeof(int64_t));
    pv->perf = calloc((size_t)ng + 1, sizeof(lf_group_perf));
    lf_bitset set = {0};
    if (!pv->start || !pv->member || !pv->cost || !pv->lone_unfusable || !pv->unfusable_dram || !pv->perf ||
        lf_bitset_init(&set, g->n_ops) != LF_OK) {
        lf__plan_view_destroy(pv);
        return lf_set_error(LF_ENOMEM, "out of memory exporting a plan");
    }
    /* Counting sort of ops by group keeps members ascending. */
    const int32_t *go = pv->plan.group_of;
    for (int32_t v = 0; v < g->n_ops; v++)
        if (go[v] >= 0)
            pv->start[go[v] + 2]++;
    for (int32_t k = 0; k < ng; k++)
        pv->start[k + 2] += pv->start[k + 1];
    for (int32_t v = 0; v < g->n_ops; v++)
        if (go[v] >= 0)
            pv->member[pv->start[go[v] + 1]++] = v;
    for (int32_t k = 0; st == LF_OK && k < ng; k++) {
        int32_t n = pv->start[k + 1] - pv->start[k], first = pv->member[pv->start[k]];
        lf_bitset_clear_all(&set);
        for (int32_t i = pv->start[k]; i < pv->start[k + 1]; i++)
            lf_bitset_set(&set, pv->member[i]);
        st = lf_cost_eval(cm, &set, &pv->cost[k]);
        if (st == LF_OK && n == 1 && !lf_cost_fusable(cm, first)) {
            pv->lone_unfusable[k] = 1;
            st = lf_cost_unfusable_dram(cm, first, &pv->unfusable_dram[k]);
            if (st == LF_OK)
                st = lf_unfusable_perf(cm, first, pv->unfusable_dram[k], &pv->perf[k]);
        } else if (st == LF_OK) {
            st = lf_group_perf_eval(cm, &set, &pv->cost[k], &pv->perf[k]);
        }
    }
    lf_bitset_destroy(&set);
    if (st == LF_OK)
        st = lf_plan_metrics_compute(&pv->plan, cm, &pv->metrics);
    if (st != LF_OK)
        lf__plan_view_destroy(pv);
    return st;
}

static int lf__cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* In(G): distinct tensors produced outside the group and read inside, in op
 * id order; `list` has room for every operand slot of the group. */
int32_t lf__plan_group_inputs(const lf__plan_view *pv, const lf_graph *g, int32_t k, int32_t *list)
{
    int32_t n = 0;
    for (int32_t i = pv->start[k]; i < pv->start[k + 1]; i++) {
        const lf_op *op = &g->ops[pv->member[i]];
        for (int32_t j = 0; j < op->n_inputs; j++)
            if (pv->plan.group_of[op->inputs[j]] != k)
                list[n++] = op->inputs[j];
    }
    qsort(list, (size_t)n, sizeof *list, lf__cmp_i32);
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++)
        if (m == 0 || list[m - 1] != list[i])
            list[m++] = list[i];
    return m;
}

/* Out(G): members read outside the group or that are graph outputs. */
int lf__plan_leaves_group(const lf__plan_view *pv, const lf_graph *g, int32_t v)
{
    const lf_op *op = &g->ops[v];
    int leaves = op->is_output;
    for (int32_t c = 0; c < op->n_consumers && !leaves; c++)
        leaves = pv->plan.group_of[op->consumers[c]] != pv->plan.group_of[v];
    return leaves;
}
