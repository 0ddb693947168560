/* Search candidates (a decoded plan with what the searches compare it by):
 * life cycle, copies, the plan order and Pareto dominance. Shared by the
 * batch evaluator and every algorithm. */
#include <stdlib.h>
#include <string.h>

#include "search/partition/search_internal.h"

lf_status lf__cand_init(lf__cand *c, int32_t n_ops, int32_t n_edges)
{
    memset(c, 0, sizeof *c);
    c->genome = malloc((size_t)n_edges + 1);
    if (!c->genome)
        return lf_set_error(LF_ENOMEM, "out of memory for a search candidate");
    lf_status st = lf_plan_init(&c->plan, n_ops);
    if (st != LF_OK) {
        free(c->genome);
        c->genome = NULL;
    }
    return st;
}

void lf__cand_destroy(lf__cand *c)
{
    lf_plan_destroy(&c->plan);
    free(c->genome);
    c->genome = NULL;
}

void lf__cand_assign(lf__cand *dst, const lf__cand *src, int32_t n_edges)
{
    if (dst == src)
        return;
    memcpy(dst->plan.group_of, src->plan.group_of, (size_t)src->plan.n_ops * sizeof(int32_t));
    dst->plan.n_groups = src->plan.n_groups;
    memcpy(dst->genome, src->genome, (size_t)n_edges);
    dst->sum = src->sum;
    dst->key = src->key;
    dst->hash = src->hash;
    dst->index = src->index;
}

int lf__cand_compare(const lf__cand *a, const lf__cand *b)
{
    return lf_plan_compare(&a->plan, &a->key, &b->plan, &b->key);
}

int lf__cand_same(const lf__cand *a, const lf__cand *b)
{
    return a->hash == b->hash && a->plan.n_groups == b->plan.n_groups &&
           memcmp(a->plan.group_of, b->plan.group_of, (size_t)a->plan.n_ops * sizeof(int32_t)) == 0;
}

lf_status lf__cands_alloc(lf__cand **out, int32_t n, int32_t n_ops, int32_t n_edges)
{
    lf__cand *c = calloc((size_t)(n > 0 ? n : 1), sizeof *c);
    if (!c)
        return lf_set_error(LF_ENOMEM, "out of memory for %d search candidates", (int)n);
    for (int32_t i = 0; i < n; i++) {
        lf_status st = lf__cand_init(&c[i], n_ops, n_edges);
        if (st != LF_OK) {
            lf__cands_free(c, i);
            return st;
        }
    }
    *out = c;
    return LF_OK;
}

void lf__cands_free(lf__cand *c, int32_t n)
{
    if (!c)
        return;
    for (int32_t i = 0; i < n; i++)
        lf__cand_destroy(&c[i]);
    free(c);
}

int lf__dominates(const lf__cand *a, const lf__cand *b, int32_t objectives)
{
    int better = 0;
    if (objectives & 1) {
        if (a->key.objective > b->key.objective)
            return 0;
        better |= a->key.objective < b->key.objective;
    }
    if (objectives & 2) {
        if (a->key.n_groups > b->key.n_groups)
            return 0;
        better |= a->key.n_groups < b->key.n_groups;
    }
    return better;
}
