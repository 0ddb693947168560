/* The search machinery shared by backtrack, enum and split: states (a graph,
 * its cost, the step that made it), expansion of a state by every match of
 * every enabled rule, deduplication by canonical hash, and the applied
 * sequence. */
#ifndef LF_SUBST_SEARCH_INTERNAL_H
#define LF_SUBST_SEARCH_INTERNAL_H

#include "planner/util/hashmap.h"
#include "search/subst/subst.h"

typedef struct lf__sstate {
    lf_graph *g;          /* NULL once dropped */
    double cost;
    lf_subst_costs costs;
    int32_t parent;       /* -1: the start */
    int32_t rule;
    char *ops;            /* names of the replaced ops */
    int32_t depth;
} lf__sstate;

/* Which matches a phase may apply (split's parts): 1 accepts. */
typedef int (*lf__match_filter)(void *ctx, const lf_graph *g, const lf_subst_rule *r, const lf_subst_match *m);

typedef struct lf__search {
    const lf_subst_ruleset *rs;
    const lf_subst_coster *c;
    const lf_subst_options *o;
    int with_dram;
    lf__sstate *st;
    int32_t n, cap;
    lf_hashmap seen;
    int32_t best;
    int by_depth;         /* enum: a graph seen before is new again when reached in fewer steps */
    lf__match_filter filter;
    void *filter_ctx;
    int64_t held;         /* graphs alive now */
    /* totals over the phases */
    int64_t expanded, generated, deduplicated, rejected, peak;
    lf_subst_step *steps;
    int32_t n_steps, steps_cap;
    double deadline;      /* o->time_limit_s after the start (monotonic clock), 0: none */
    int timed_out;
    int64_t heap0, peak_heap; /* heap in use at the start, the peak above it (-1: not measurable) */
} lf__search;

/* Names of the ops m replaces, comma-separated (malloc'd; NULL: no memory):
 * how a step is recorded and replayed. */
char *lf__subst_op_names(const lf_graph *g, const lf_subst_rule *r, const lf_subst_match *m);

/* Seconds on the search's clock: the process's CPU time when o->time_limit_cpu,
 * else the monotonic wall clock. */
double lf__subst_clock(const lf_subst_options *o);

/* Bytes in use on the heap now (glibc's mallinfo2: arenas and mmapped
 * blocks), -1 where it cannot be measured. */
int64_t lf__subst_heap_bytes(void);

/* 1 once the time cap has passed (sets s->timed_out). */
int lf__search_expired(lf__search *s);

lf_status lf__search_init(lf__search *s, const lf_subst_ruleset *rs, const lf_subst_coster *c,
                          const lf_subst_options *o);
void lf__search_destroy(lf__search *s);

/* Starts a phase at graph g (taken over): one state, the best. */
lf_status lf__search_start(lf__search *s, lf_graph *g);
/* Expands state i: adds a state per new graph (rules in order, matches in
 * order), skipping graphs seen before. *first receives the index of the first
 * new state (new states are first .. s->n - 1). Updates the best. */
lf_status lf__search_expand(lf__search *s, int32_t i, int32_t *first);
/* Frees the graph of state i unless it is the best. */
void lf__search_drop(lf__search *s, int32_t i);
/* Ends a phase: appends the best state's path to the steps and returns its
 * graph (taken out of the state array), freeing every other graph. */
lf_status lf__search_finish(lf__search *s, lf_graph **best, lf_subst_costs *costs);

/* The phases. */
lf_status lf__backtrack(lf__search *s, int64_t budget);
lf_status lf__enumerate(lf__search *s, int32_t max_len, int64_t budget);
/* Flow-based recursive split (split.c): searches each part, then the
 * boundaries; g is taken over, *out receives the result. */
lf_status lf__split_search(lf__search *s, lf_graph *g, lf_graph **out, lf_subst_costs *costs, int32_t *parts);

#endif
