/* The optimizer's driver: search on a shape-only copy of the graph (states
 * stay small), then replay the applied sequence on the graph with values
 * (its own, or generated from the seed) so that folded weights are real, and
 * check the result against the input with the executor before returning it
 * (DESIGN §11: every optimized graph is checked before it is written). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search/subst/ocggs_internal.h"
#include "search/subst/search_internal.h"

static const char *const lf__search_names[LF_SEARCH_COUNT] = {"backtrack", "enum", "split", "prune", "dpp", "sample"};

const char *lf_subst_search_name(lf_subst_search s)
{
    return (int)s >= 0 && s < LF_SEARCH_COUNT ? lf__search_names[s] : "?";
}

lf_subst_search lf_subst_search_from_name(const char *s)
{
    for (int i = 0; i < LF_SEARCH_COUNT; i++)
        if (s && strcmp(s, lf__search_names[i]) == 0)
            return (lf_subst_search)i;
    return LF_SEARCH_COUNT;
}

void lf_subst_options_default(lf_subst_options *o)
{
    memset(o, 0, sizeof *o);
    o->search = LF_SEARCH_BACKTRACK;
    o->alpha = 1.05;
    o->budget = 1000;
    o->max_len = 3;
    o->split_size = 30;
    o->seed = 1;
    o->max_steps = 10;
    o->sample_size = 20;
    o->eta = 1;
}

void lf_subst_result_destroy(lf_subst_result *r)
{
    if (!r)
        return;
    lf_graph_free(r->graph);
    for (int32_t i = 0; i < r->n_steps; i++)
        free(r->steps[i].ops);
    free(r->steps);
    memset(r, 0, sizeof *r);
}

static double lf__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double lf__cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Applies step k to *g (replacing it): the rule's match over the recorded op names. */
static lf_status lf__replay_step(const lf_subst_ruleset *rs, const lf_subst_step *step, lf_graph **g)
{
    const lf_subst_rule *r = rs->rule[step->rule];
    lf_subst_matches ms = {0, 0, NULL};
    lf_status st = lf_subst_find(*g, r, &ms);
    int32_t hit = -1;
    for (int32_t j = 0; j < ms.n && hit < 0 && !st; j++) {
        const char *p = step->ops;
        int same = 1;
        for (int32_t i = 0; i < r->n_nodes && same; i++) {
            const char *nm = (*g)->ops[ms.m[j].op[i]].name;
            size_t len = strlen(nm);
            same = strncmp(p, nm, len) == 0 && (p[len] == ',' || p[len] == '\0');
            p += len + (p[len] == ',');
        }
        if (same)
            hit = j;
    }
    lf_graph *next = NULL;
    if (!st && hit < 0)
        st = lf_set_error(LF_EGRAPH, "replay: rule '%s' no longer matches ops %s", r->name, step->ops);
    if (!st)
        st = lf_subst_apply(*g, r, &ms.m[hit], &next);
    lf_subst_matches_free(&ms);
    if (st)
        return st;
    lf_graph_free(*g);
    *g = next;
    return LF_OK;
}

lf_status lf_subst_optimize(const lf_graph *g, const lf_subst_ruleset *rs, const lf_subst_coster *c,
                            const lf_subst_options *o, lf_subst_result *res)
{
    memset(res, 0, sizeof *res);
    double t0 = lf__now(), c0 = lf__cpu();
    lf__search s;
    lf_status st = lf__search_init(&s, rs, c, o);
    lf_graph *start = NULL, *best = NULL;
    if (!st)
        st = lf_subst_strip(g, &start);
    if (!st)
        st = lf_subst_cost(c, start, lf_subst_objective_fused(c->objective), &res->before);
    int ocggs = o->search == LF_SEARCH_PRUNE || o->search == LF_SEARCH_DPP || o->search == LF_SEARCH_SAMPLE;
    if (!st && ocggs) {
        lf__oc x;
        st = lf__oc_init(&x, rs, c, o);
        if (!st)
            st = o->search == LF_SEARCH_PRUNE ? lf__prune(&x, start)
                 : o->search == LF_SEARCH_DPP ? lf__dpp(&x, start)
                                              : lf__sample(&x, start);
        res->sequences = x.sequences;
        res->reused = x.reused;
        res->peak_heap = x.peak_heap;
        res->timed_out = x.timed_out;
        res->rejected = x.rejected;
        if (!st) { /* the sequence and its graph move into the search's state */
            best = x.best;
            res->after = x.best_costs;
            x.best = NULL;
            /* the sequence moves into the search's steps (empty: one search) */
            s.steps = x.steps;
            s.n_steps = s.steps_cap = x.n_steps;
            x.steps = NULL;
            x.n_steps = 0;
        }
        lf__oc_destroy(&x);
    } else if (!st && o->search == LF_SEARCH_SPLIT) {
        st = lf__split_search(&s, start, &best, &res->after, &res->parts);
        start = NULL;
    } else if (!st) {
        st = lf__search_start(&s, start);
        start = NULL;
        if (!st)
            st = o->search == LF_SEARCH_ENUM ? lf__enumerate(&s, o->max_len > 0 ? o->max_len : 3, o->budget)
                                             : lf__backtrack(&s, o->budget);
        if (!st)
            st = lf__search_finish(&s, &best, &res->after);
    }
    lf_graph_free(start);
    res->search_s = lf__now() - t0;
    res->search_cpu_s = lf__cpu() - c0;
    if (!ocggs) {
        res->expanded = s.expanded;
        res->generated = s.generated;
        res->deduplicated = s.deduplicated;
        res->rejected = s.rejected;
        res->peak_graphs = s.peak;
        res->timed_out = s.timed_out;
        res->peak_heap = s.peak_heap;
    }
    res->n_steps = s.n_steps;
    res->steps = s.steps;
    s.steps = NULL;
    s.n_steps = 0;
    lf__search_destroy(&s);
    if (!st && o->skip_check) {
        res->graph = best;
        res->wall_s = lf__now() - t0;
        return LF_OK;
    }
    lf_graph_free(best);
    /* replay on values and check */
    lf_graph *orig = NULL, *cur = NULL;
    if (!st)
        st = lf_subst_materialize(g, o->seed, &orig);
    if (!st) /* a copy to rewrite (orig has every value, so nothing is generated) */
        st = lf_subst_materialize(orig, o->seed, &cur);
    for (int32_t k = 0; k < res->n_steps && !st; k++)
        st = lf__replay_step(rs, &res->steps[k], &cur);
    if (!st && res->n_steps > 0)
        st = lf_subst_compare(orig, cur, o->seed, 1e-4, &res->max_err);
    lf_graph_free(orig);
    if (st) {
        lf_graph_free(cur);
        lf_subst_result_destroy(res);
        return st;
    }
    res->graph = cur;
    res->wall_s = lf__now() - t0;
    return LF_OK;
}
