/* Search states shared by the searches: see search_internal.h. One thread,
 * rules in table order and matches in matcher order, so a search is
 * deterministic (the seed only picks the values of the final numeric check). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "search/subst/search_internal.h"

int lf_subst_rule_active(const lf_subst_ruleset *rs, const lf_subst_options *o, int32_t k)
{
    return rs->enabled[k] && (!o || !o->rule_mask || o->rule_mask[k]);
}

int64_t lf__subst_heap_bytes(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 mi = mallinfo2();
    return (int64_t)(mi.uordblks + mi.hblkhd);
#else
    return -1;
#endif
}

double lf__subst_clock(const lf_subst_options *o)
{
    struct timespec ts;
    clock_gettime(o->time_limit_cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int lf__search_expired(lf__search *s)
{
    if (!s->timed_out && s->deadline > 0 && lf__subst_clock(s->o) > s->deadline)
        s->timed_out = 1;
    return s->timed_out;
}

lf_status lf__search_init(lf__search *s, const lf_subst_ruleset *rs, const lf_subst_coster *c,
                          const lf_subst_options *o)
{
    memset(s, 0, sizeof *s);
    s->rs = rs;
    s->c = c;
    s->o = o;
    s->with_dram = lf_subst_objective_fused(c->objective);
    s->best = -1;
    s->deadline = o->time_limit_s > 0 ? lf__subst_clock(o) + o->time_limit_s : 0;
    s->heap0 = lf__subst_heap_bytes();
    s->peak_heap = s->heap0 < 0 ? -1 : 0;
    return lf_hashmap_init(&s->seen, 1024);
}

static void lf__clear_states(lf__search *s)
{
    for (int32_t i = 0; i < s->n; i++) {
        lf_graph_free(s->st[i].g);
        free(s->st[i].ops);
    }
    s->n = 0;
    s->held = 0;
    s->best = -1;
}

void lf__search_destroy(lf__search *s)
{
    lf__clear_states(s);
    free(s->st);
    lf_hashmap_destroy(&s->seen);
    for (int32_t i = 0; i < s->n_steps; i++)
        free(s->steps[i].ops);
    free(s->steps);
    memset(s, 0, sizeof *s);
}

/* Adds a state for g (taken over); costs NULL: computed here. */
static lf_status lf__push(lf__search *s, lf_graph *g, int32_t parent, int32_t rule, char *ops,
                         const lf_subst_costs *costs)
{
    if (s->n == s->cap) {
        int32_t cap = s->cap ? s->cap * 2 : 256;
        lf__sstate *st = realloc(s->st, (size_t)cap * sizeof *st);
        if (!st) {
            lf_graph_free(g);
            free(ops);
            return lf_set_error(LF_ENOMEM, "search: out of memory");
        }
        s->st = st;
        s->cap = cap;
    }
    lf__sstate *x = &s->st[s->n];
    memset(x, 0, sizeof *x);
    x->g = g;
    x->parent = parent;
    x->rule = rule;
    x->ops = ops;
    x->depth = parent >= 0 ? s->st[parent].depth + 1 : 0;
    lf_status st = LF_OK;
    if (costs)
        x->costs = *costs;
    else
        st = lf_subst_cost(s->c, g, s->with_dram, &x->costs);
    x->cost = lf_subst_cost_value(s->c, &x->costs);
    s->n++;
    s->held++;
    int64_t heap = s->heap0 >= 0 ? lf__subst_heap_bytes() - s->heap0 : -1;
    if (heap > s->peak_heap)
        s->peak_heap = heap;
    if (s->held > s->peak)
        s->peak = s->held;
    if (st)
        return st;
    /* Strictly better replaces the best, so ties keep the earlier state. */
    if (s->best < 0 || x->cost < s->st[s->best].cost)
        s->best = s->n - 1;
    return LF_OK;
}

lf_status lf__search_start(lf__search *s, lf_graph *g)
{
    lf__clear_states(s);
    lf_status st = lf_hashmap_put(&s->seen, lf_subst_canon_hash(g), (void *)(intptr_t)1);
    if (st) {
        lf_graph_free(g);
        return st;
    }
    return lf__push(s, g, -1, -1, NULL, NULL);
}

void lf__search_drop(lf__search *s, int32_t i)
{
    if (i == s->best || !s->st[i].g)
        return;
    lf_graph_free(s->st[i].g);
    s->st[i].g = NULL;
    s->held--;
}

char *lf__subst_op_names(const lf_graph *g, const lf_subst_rule *r, const lf_subst_match *m)
{
    size_t len = 1;
    for (int32_t i = 0; i < r->n_nodes; i++)
        len += strlen(g->ops[m->op[i]].name) + 1;
    char *s = malloc(len), *p = s;
    if (!s)
        return NULL;
    for (int32_t i = 0; i < r->n_nodes; i++)
        p += sprintf(p, "%s%s", i ? "," : "", g->ops[m->op[i]].name);
    *p = '\0';
    return s;
}

/* One candidate child of an expansion. */
typedef struct lf__cand {
    int32_t rule;
    lf_subst_match m;
    lf_graph *g;
    uint64_t h;
    int seen;
    lf_subst_costs costs;
    lf_status st;
} lf__cand;

/* 1 when h was seen at a depth that makes a graph of this depth a duplicate. */
static int lf__is_seen(const lf__search *s, uint64_t h, intptr_t depth)
{
    void *seen = NULL;
    return lf_hashmap_get(&s->seen, h, &seen) && (!s->by_depth || (intptr_t)seen <= depth);
}

/* Expands state i in three passes: the candidates (every match of every
 * enabled rule, in order), the child graphs and their costs (OpenMP over the
 * candidates; each builds its own graph and cost model, and the seen set is
 * only read), then, in candidate order, deduplication and the new states. The
 * result does not depend on the thread count. */
lf_status lf__search_expand(lf__search *s, int32_t i, int32_t *first)
{
    *first = s->n;
    s->expanded++;
    const lf_graph *g = s->st[i].g;
    lf__cand *c = NULL;
    int32_t n = 0, cap = 0;
    lf_status st = LF_OK;
    uint64_t types = lf_subst_graph_types(g);
    for (int32_t k = 0; k < s->rs->n && !st; k++) {
        if (!lf_subst_rule_active(s->rs, s->o, k) || !lf_subst_rule_possible(s->rs->rule[k], types))
            continue;
        const lf_subst_rule *r = s->rs->rule[k];
        lf_subst_matches ms = {0, 0, NULL};
        st = lf_subst_find(g, r, &ms);
        for (int32_t j = 0; j < ms.n && !st; j++) {
            if (s->filter && !s->filter(s->filter_ctx, g, r, &ms.m[j]))
                continue;
            if (n == cap) {
                int32_t nc = cap ? 2 * cap : 64;
                lf__cand *p = realloc(c, (size_t)nc * sizeof *p);
                if (!p) {
                    st = lf_set_error(LF_ENOMEM, "search: out of memory");
                    break;
                }
                c = p;
                cap = nc;
            }
            memset(&c[n], 0, sizeof c[n]);
            c[n].rule = k;
            c[n++].m = ms.m[j];
        }
        lf_subst_matches_free(&ms);
    }
    intptr_t depth = s->st[i].depth + 2; /* the children's depth + 1: never NULL in the map */
    int32_t nt = s->o->threads > 0 ? s->o->threads : 1;
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic) if (nt > 1 && n > 1)
#endif
    for (int32_t j = 0; j < (st ? 0 : n); j++) {
        lf__cand *x = &c[j];
        x->st = lf_subst_apply(g, s->rs->rule[x->rule], &x->m, &x->g);
        if (x->st)
            continue;
        x->h = lf_subst_canon_hash(x->g);
        x->seen = lf__is_seen(s, x->h, depth);
        if (!x->seen)
            x->st = lf_subst_cost(s->c, x->g, s->with_dram, &x->costs);
    }
    for (int32_t j = 0; j < n; j++) {
        lf__cand *x = &c[j];
        if (!st && x->st && !x->g) {
            s->rejected++; /* not shape-valid, a cycle: the rule does not apply here */
            continue;
        }
        if (st || x->st) { /* a failure of the machinery (memory, the exact planner's limits) */
            if (!st)
                st = x->st;
            lf_graph_free(x->g);
            continue;
        }
        s->generated++;
        if (x->seen || lf__is_seen(s, x->h, depth)) {
            s->deduplicated++;
            lf_graph_free(x->g);
            continue;
        }
        char *ops = NULL;
        if ((st = lf_hashmap_put(&s->seen, x->h, (void *)depth)) ||
            !(ops = lf__subst_op_names(s->st[i].g, s->rs->rule[x->rule], &x->m))) {
            if (!st)
                st = lf_set_error(LF_ENOMEM, "search: out of memory");
            lf_graph_free(x->g);
            continue;
        }
        st = lf__push(s, x->g, i, x->rule, ops, &x->costs);
    }
    free(c);
    return st;
}

lf_status lf__search_finish(lf__search *s, lf_graph **best, lf_subst_costs *costs)
{
    int32_t b = s->best, len = 0;
    for (int32_t i = b; s->st[i].parent >= 0; i = s->st[i].parent)
        len++;
    if (s->n_steps + len > s->steps_cap) {
        int32_t cap = s->n_steps + len + 16;
        lf_subst_step *p = realloc(s->steps, (size_t)cap * sizeof *p);
        if (!p)
            return lf_set_error(LF_ENOMEM, "search: out of memory");
        s->steps = p;
        s->steps_cap = cap;
    }
    int32_t k = s->n_steps + len;
    for (int32_t i = b; s->st[i].parent >= 0; i = s->st[i].parent) {
        lf_subst_step *p = &s->steps[--k];
        p->rule = s->st[i].rule;
        p->ops = s->st[i].ops;
        s->st[i].ops = NULL;
    }
    s->n_steps += len;
    *best = s->st[b].g;
    *costs = s->st[b].costs;
    s->st[b].g = NULL;
    lf__clear_states(s);
    return LF_OK;
}
