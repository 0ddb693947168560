/* Search states shared by the searches: see search_internal.h. One thread,
 * rules in table order and matches in matcher order, so a search is
 * deterministic (the seed only picks the values of the final numeric check). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/subst/search_internal.h"

lf_status lf__search_init(lf__search *s, const lf_subst_ruleset *rs, const lf_subst_coster *c,
                          const lf_subst_options *o)
{
    memset(s, 0, sizeof *s);
    s->rs = rs;
    s->c = c;
    s->o = o;
    s->with_dram = c->objective == LF_OBJ_DRAM;
    s->best = -1;
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

static lf_status lf__push(lf__search *s, lf_graph *g, int32_t parent, int32_t rule, char *ops)
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
    lf_status st = lf_subst_cost(s->c, g, s->with_dram, &x->costs);
    x->cost = lf_subst_cost_value(s->c, &x->costs);
    s->n++;
    s->held++;
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
    return lf__push(s, g, -1, -1, NULL);
}

void lf__search_drop(lf__search *s, int32_t i)
{
    if (i == s->best || !s->st[i].g)
        return;
    lf_graph_free(s->st[i].g);
    s->st[i].g = NULL;
    s->held--;
}

static char *lf__op_names(const lf_graph *g, const lf_subst_rule *r, const lf_subst_match *m)
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

lf_status lf__search_expand(lf__search *s, int32_t i, int32_t *first)
{
    *first = s->n;
    s->expanded++;
    for (int32_t k = 0; k < s->rs->n; k++) {
        if (!s->rs->enabled[k])
            continue;
        const lf_subst_rule *r = s->rs->rule[k];
        lf_subst_matches ms = {0, 0, NULL};
        lf_status st = lf_subst_find(s->st[i].g, r, &ms);
        for (int32_t j = 0; j < ms.n && !st; j++) {
            const lf_graph *g = s->st[i].g; /* re-read: pushing may move the array */
            if (s->filter && !s->filter(s->filter_ctx, g, r, &ms.m[j]))
                continue;
            lf_graph *child = NULL;
            if (lf_subst_apply(g, r, &ms.m[j], &child) != LF_OK) {
                s->rejected++; /* not shape-valid, a cycle: the rule does not apply here */
                continue;
            }
            s->generated++;
            uint64_t h = lf_subst_canon_hash(child);
            void *seen = NULL;
            intptr_t depth = s->st[i].depth + 2; /* the child's depth + 1: never NULL */
            if (lf_hashmap_get(&s->seen, h, &seen) && (!s->by_depth || (intptr_t)seen <= depth)) {
                s->deduplicated++;
                lf_graph_free(child);
                continue;
            }
            if ((st = lf_hashmap_put(&s->seen, h, (void *)depth))) {
                lf_graph_free(child);
                break;
            }
            char *ops = lf__op_names(g, r, &ms.m[j]);
            if (!ops) {
                lf_graph_free(child);
                st = lf_set_error(LF_ENOMEM, "search: out of memory");
                break;
            }
            st = lf__push(s, child, i, k, ops);
        }
        lf_subst_matches_free(&ms);
        if (st)
            return st;
    }
    return LF_OK;
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
