/* Plan storage, canonical numbering, validity checks and metrics. */
#include "planner/plan.h"

#include <stdlib.h>
#include <string.h>


lf_status lf_plan_init(lf_plan *p, int32_t n_ops)
{
    p->n_ops = n_ops;
    p->n_groups = 0;
    p->group_of = malloc((size_t)(n_ops > 0 ? n_ops : 1) * sizeof(int32_t));
    if (!p->group_of)
        return lf_set_error(LF_ENOMEM, "out of memory for a plan of %d ops", (int)n_ops);
    for (int32_t i = 0; i < n_ops; i++)
        p->group_of[i] = -1;
    return LF_OK;
}

void lf_plan_destroy(lf_plan *p)
{
    free(p->group_of);
    p->group_of = NULL;
    p->n_groups = 0;
}

lf_status lf_plan_copy(lf_plan *dst, const lf_plan *src)
{
    lf_status st = lf_plan_init(dst, src->n_ops);
    if (st == LF_OK) {
        memcpy(dst->group_of, src->group_of, (size_t)src->n_ops * sizeof(int32_t));
        dst->n_groups = src->n_groups;
    }
    return st;
}

void lf_plan_canonicalize(lf_plan *p)
{
    int32_t max = -1;
    for (int32_t i = 0; i < p->n_ops; i++)
        if (p->group_of[i] > max)
            max = p->group_of[i];
    int32_t *map = malloc((size_t)(max + 2) * sizeof(int32_t));
    if (!map)
        return; /* numbering stays as it was; still a valid partition */
    for (int32_t k = 0; k <= max; k++)
        map[k] = -1;
    int32_t next = 0;
    for (int32_t i = 0; i < p->n_ops; i++) {
        int32_t gi = p->group_of[i];
        if (gi < 0)
            continue;
        if (map[gi] < 0)
            map[gi] = next++;
        p->group_of[i] = map[gi];
    }
    p->n_groups = next;
    free(map);
}

void lf_plan_group_bitset(const lf_plan *p, int32_t gi, lf_bitset *out)
{
    lf_bitset_clear_all(out);
    for (int32_t i = 0; i < p->n_ops; i++)
        if (p->group_of[i] == gi)
            lf_bitset_set(out, i);
}

int32_t lf_plan_group_size(const lf_plan *p, int32_t gi)
{
    int32_t n = 0;
    for (int32_t i = 0; i < p->n_ops; i++)
        n += p->group_of[i] == gi;
    return n;
}

int lf_plan_quotient_acyclic(const lf_plan *p, const lf_graph *g)
{
    for (int32_t v = 0; v < g->n_ops && v < p->n_ops; v++)
        if (p->group_of[v] >= p->n_groups)
            return 0; /* not a well-formed plan: no quotient to speak of */
    /* Kahn's algorithm on the group graph; parallel edges are counted on
     * both sides, which keeps in-degrees consistent. */
    int32_t ng = p->n_groups;
    int32_t *indeg = calloc((size_t)ng + 1, sizeof(int32_t));
    int32_t *queue = malloc((size_t)ng * sizeof(int32_t) + sizeof(int32_t));
    int32_t *start = calloc((size_t)ng + 2, sizeof(int32_t));
    int32_t n_edges = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        for (int32_t j = 0; j < g->ops[v].n_inputs; j++) {
            int32_t a = p->group_of[g->ops[v].inputs[j]], b = p->group_of[v];
            if (a >= 0 && b >= 0 && a != b)
                n_edges++;
        }
    int32_t *succ = malloc((size_t)n_edges * sizeof(int32_t) + sizeof(int32_t));
    int ok = 0;
    if (indeg && queue && start && succ) {
        for (int32_t v = 0; v < g->n_ops; v++)
            for (int32_t j = 0; j < g->ops[v].n_inputs; j++) {
                int32_t a = p->group_of[g->ops[v].inputs[j]], b = p->group_of[v];
                if (a >= 0 && b >= 0 && a != b) {
                    start[a + 2]++;
                    indeg[b]++;
                }
            }
        for (int32_t k = 0; k < ng; k++)
            start[k + 2] += start[k + 1];
        for (int32_t v = 0; v < g->n_ops; v++)
            for (int32_t j = 0; j < g->ops[v].n_inputs; j++) {
                int32_t a = p->group_of[g->ops[v].inputs[j]], b = p->group_of[v];
                if (a >= 0 && b >= 0 && a != b)
                    succ[start[a + 1]++] = b;
            }
        int32_t head = 0, tail = 0, seen = 0;
        for (int32_t k = 0; k < ng; k++)
            if (indeg[k] == 0)
                queue[tail++] = k;
        while (head < tail) {
            int32_t k = queue[head++];
            seen++;
            for (int32_t e = start[k]; e < start[k + 1]; e++)
                if (--indeg[succ[e]] == 0)
                    queue[tail++] = succ[e];
        }
        ok = seen == ng;
    }
    free(indeg);
    free(queue);
    free(start);
    free(succ);
    return ok;
}

/* Weak connectivity of one group by a flood fill over edges inside it. */
static int lf__group_connected(const lf_plan *p, const lf_graph *g, int32_t gi, int32_t *stack,
                               uint8_t *seen)
{
    int32_t first = -1, size = 0;
    for (int32_t i = 0; i < p->n_ops; i++)
        if (p->group_of[i] == gi) {
            size++;
            if (first < 0)
                first = i;
        }
    if (first < 0)
        return 0;
    int32_t top = 0, reached = 0;
    stack[top++] = first;
    seen[first] = 1;
    while (top > 0) {
        int32_t v = stack[--top];
        reached++;
        const lf_op *op = &g->ops[v];
        for (int32_t j = 0; j < op->n_inputs + op->n_consumers; j++) {
            int32_t u = j < op->n_inputs ? op->inputs[j] : op->consumers[j - op->n_inputs];
            if (p->group_of[u] == gi && !seen[u]) {
                seen[u] = 1;
                stack[top++] = u;
            }
        }
    }
    return reached == size;
}

lf_status lf_plan_check(const lf_plan *p, lf_cost_model *cm)
{
    const lf_graph *g = lf_cost_graph(cm);
    if (p->n_ops != g->n_ops)
        return lf_set_error(LF_EPLAN, "plan covers %d ops, graph '%s' has %d", (int)p->n_ops,
                            g->name, (int)g->n_ops);
    int32_t *size = calloc((size_t)p->n_groups + 1, sizeof(int32_t));
    int32_t *stack = malloc((size_t)g->n_ops * sizeof(int32_t));
    uint8_t *seen = calloc((size_t)g->n_ops, 1);
    lf_bitset members = {0};
    lf_status st = (size && stack && seen) ? lf_bitset_init(&members, g->n_ops)
                                           : lf_set_error(LF_ENOMEM, "out of memory checking a plan");
    for (int32_t v = 0; st == LF_OK && v < g->n_ops; v++) {
        int32_t gi = p->group_of[v];
        if (g->ops[v].type == LF_OP_INPUT) {
            if (gi != -1)
                st = lf_set_error(LF_EPLAN, "graph input '%s' is in group %d", g->ops[v].name, (int)gi);
        } else if (gi < 0 || gi >= p->n_groups) {
            st = lf_set_error(LF_EPLAN, "op '%s' is in no group", g->ops[v].name);
        } else {
            size[gi]++;
        }
    }
    for (int32_t gi = 0; st == LF_OK && gi < p->n_groups; gi++)
        if (size[gi] == 0)
            st = lf_set_error(LF_EPLAN, "group %d is empty", (int)gi);
    for (int32_t v = 0; st == LF_OK && v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT && !lf_cost_fusable(cm, v) && size[p->group_of[v]] != 1)
            st = lf_set_error(LF_EPLAN, "unfusable op '%s' shares group %d with other ops",
                              g->ops[v].name, (int)p->group_of[v]);
    for (int32_t gi = 0; st == LF_OK && gi < p->n_groups; gi++)
        if (!lf__group_connected(p, g, gi, stack, seen)) {
            int32_t first = 0;
            while (p->group_of[first] != gi)
                first++;
            st = lf_set_error(LF_EPLAN, "group %d (with '%s') is not weakly connected", (int)gi,
                              g->ops[first].name);
        }
    if (st == LF_OK && !lf_plan_quotient_acyclic(p, g))
        st = lf_set_error(LF_EPLAN, "the groups form a cycle: a path leaves a group and re-enters it");
    for (int32_t gi = 0; st == LF_OK && gi < p->n_groups; gi++) {
        int32_t first = 0;
        while (p->group_of[first] != gi)
            first++;
        if (size[gi] == 1 && !lf_cost_fusable(cm, first))
            continue;
        lf_group_cost c;
        lf_plan_group_bitset(p, gi, &members);
        st = lf_cost_eval(cm, &members, &c);
        if (st == LF_OK && !c.valid)
            st = lf_set_error(LF_EPLAN, "group %d (with '%s') needs %lld B of buffer, beta is %lld B",
                              (int)gi, g->ops[first].name, (long long)c.f_beta,
                              (long long)lf_cost_beta(cm));
    }
    lf_bitset_destroy(&members);
    free(size);
    free(stack);
    free(seen);
    return st;
}

int lf_plan_compare(const lf_plan *a, const lf_plan_metrics *ma, const lf_plan *b,
                    const lf_plan_metrics *mb)
{
    if (ma->objective != mb->objective)
        return ma->objective < mb->objective ? -1 : 1;
    if (ma->n_groups != mb->n_groups)
        return ma->n_groups < mb->n_groups ? -1 : 1;
    /* In canonical numbering group k starts at its minimum op, so the k-th
     * group minimum is the k-th op whose group index is new. */
    int32_t ia = 0, ib = 0, ka = 0, kb = 0;
    for (;;) {
        while (ia < a->n_ops && a->group_of[ia] != ka)
            ia++;
        while (ib < b->n_ops && b->group_of[ib] != kb)
            ib++;
        if (ia >= a->n_ops || ib >= b->n_ops)
            return (ia < a->n_ops) - (ib < b->n_ops);
        if (ia != ib)
            return ia < ib ? -1 : 1;
        ka++;
        kb++;
    }
}
