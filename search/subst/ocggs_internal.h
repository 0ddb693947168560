/* Internals of OCGGS's searches (DESIGN §11; reference/substitution-and-
 * scheduling.md §2.5): node labels and the order over substitutions
 * (labels.c), what the three searches share (ocggs.c: the clock, the heap
 * meter, the best sequence, candidate steps carried from a parent to a
 * child), and the searches themselves (prune.c, dpp.c, sample.c). */
#ifndef LF_SUBST_OCGGS_INTERNAL_H
#define LF_SUBST_OCGGS_INTERNAL_H

#include "planner/util/hashmap.h"
#include "search/subst/subst.h"

/* ---- labels and the order (labels.c) --------------------------------------- */

/* A node label (Definition 6): the step of the sequence that created the op
 * (0: the input graph, OCGGS's dummy substitution N; k: the k-th step) and its
 * index (the op's id in the input graph, or its position among the ops that
 * step created). Labels compare by step, then index. */
typedef struct lf__label {
    int32_t step, idx;
} lf__label;

#define LF__NO_STEP ((lf__label){-1, -1}) /* "before every step": the empty sequence */

int lf__label_cmp(lf__label a, lf__label b);
/* A step's label: the biggest label among the ops it replaces (OCGGS's
 * biggestNode). */
lf__label lf__step_label(const lf__label *lab, const lf_subst_rule *r, const lf_subst_match *m);
/* The pruning rule (Definition 8 as OCGGS's code decides it): a step with
 * label `next` may follow a step with label `last` only when last < next. A
 * step that replaces an op the previous step created always may (its label
 * carries a later step number), so dependent chains are never cut; of two
 * steps that commute only one order is kept. */
int lf__ordered(lf__label last, lf__label next);
/* Labels of the input graph: (0, op id). *out is malloc'd. */
lf_status lf__labels_root(const lf_graph *g, lf__label **out);
/* Labels of child = apply(parent, r, m) made as step number `step`: an op
 * copied from the parent (same name, not matched) keeps its label; every
 * other op was created by the step and gets (step, k) in op id order.
 * *created receives their ids (malloc'd, *n_created of them). */
lf_status lf__labels_child(const lf_graph *parent, const lf__label *plab, const lf_subst_rule *r,
                           const lf_subst_match *m, const lf_graph *child, int32_t step, lf__label **out,
                           int32_t **created, int32_t *n_created);
/* The largest distance between two ops of any enabled rule's pattern
 * (source nodes and the activations its variables bind), counted in edges. */
int32_t lf__rules_diameter(const lf_subst_ruleset *rs);
/* mark[v] = 1 for every op within `radius` edges (either direction) of a
 * seed op; mark has g->n_ops entries, zeroed by the caller. */
lf_status lf__ball(const lf_graph *g, const int32_t *seeds, int32_t n, int32_t radius, uint8_t *mark);

/* ---- what the searches share (ocggs.c) ------------------------------------- */

/* A candidate step on a graph: a rule's match, its label in that graph, the
 * cost change it makes (known once applied here or on an ancestor) and a key
 * naming it independently of op numbering (rule and matched op names). */
typedef struct lf__ocand {
    int32_t rule;
    lf_subst_match m;
    lf__label lab;
    double delta;
    int32_t has_delta;
    uint64_t key;
} lf__ocand;

typedef struct lf__ocands {
    lf__ocand *c;
    int32_t n, cap;
} lf__ocands;

void lf__ocands_free(lf__ocands *cs);

/* One step of the sequence a depth-first search is on: the graph it applies to. */
typedef struct lf__opath {
    int32_t rule;
    const lf_graph *g;
    lf_subst_match m;
} lf__opath;

typedef struct lf__oc {
    const lf_subst_ruleset *rs;
    const lf_subst_coster *c;
    const lf_subst_options *o;
    int with_dram;
    int32_t K;
    int32_t radius;           /* matches rooted this far from created ops */
    double t0, deadline;      /* on lf__subst_clock; deadline 0: none */
    int timed_out;
    /* the best sequence so far and its graph (a copy the search owns) */
    lf_graph *best;
    lf_subst_costs best_costs;
    double best_cost;
    lf_subst_step *steps;
    int32_t n_steps;
    /* statistics */
    int64_t sequences, reused, rejected;
    int64_t heap0, peak_heap; /* bytes; peak_heap -1: not measurable here */
} lf__oc;

lf_status lf__oc_init(lf__oc *x, const lf_subst_ruleset *rs, const lf_subst_coster *c, const lf_subst_options *o);
void lf__oc_destroy(lf__oc *x);
/* 1 once the time cap has passed (and sets x->timed_out). */
int lf__oc_expired(lf__oc *x);
/* The exact searches' answer at the time cap: LF_ELIMIT, "no result". */
lf_status lf__oc_no_result(lf__oc *x, const char *name);
/* Samples the heap for the peak. */
void lf__oc_meter(lf__oc *x);
/* Cost of g under the objective. */
lf_status lf__oc_cost(lf__oc *x, const lf_graph *g, lf_subst_costs *k, double *v);
/* Applies m of rule k to g: *out NULL (and LF_OK) when the rewrite is not
 * valid here (counted as rejected); an error only for memory. */
lf_status lf__oc_apply(lf__oc *x, const lf_graph *g, int32_t k, const lf_subst_match *m, lf_graph **out);
/* Names of the ops m replaces, comma-separated (malloc'd). */
char *lf__oc_op_names(const lf_graph *g, const lf_subst_rule *r, const lf_subst_match *m);
/* A key of m independent of op numbering: the rule and the names of its ops. */
uint64_t lf__oc_step_key(const lf_graph *g, int32_t rule, const lf_subst_match *m);
/* Offers g (cost v) as the best: when strictly cheaper, keeps a copy of it
 * and the sequence (path[0..len), or rules[]/names[] when path is NULL). */
lf_status lf__oc_offer(lf__oc *x, const lf_graph *g, const lf_subst_costs *k, double v, const lf__opath *path,
                       int32_t len, const int32_t *rules, char *const *names);
/* Every match of every enabled rule on g, in rule then matcher order;
 * roots != NULL: only matches rooted there. Labels from lab (NULL: none). */
lf_status lf__oc_matches(lf__oc *x, const lf_graph *g, const lf__label *lab, const uint8_t *roots, lf__ocands *out);
/* The candidate steps of child = apply(parent, pc[taken]) (OCGGS's DP,
 * Theorem 5 and 6): the parent's other candidates that share no op with
 * the step, carried over by op names and re-checked on the child without
 * matching again (x->reused counts them; their cost change is kept), plus
 * the new matches rooted within x->radius of the created ops. ordered: only
 * steps whose label in clab is above the step's (the pruning rule). */
lf_status lf__oc_child_cands(lf__oc *x, const lf_graph *parent, const lf__ocands *pc, int32_t taken,
                             const lf_graph *child, const lf__label *clab, const int32_t *created,
                             int32_t n_created, int ordered, lf__ocands *out);

/* One step of a depth-first search (Pruning, DPP): applies candidate c to
 * g (path[depth] records it), costs the child and offers it as the best;
 * when the sequence may still grow (depth + 1 < K) also labels it.
 * *child NULL (LF_OK) when the step does not apply; the caller frees
 * *child, *clab and *created. */
lf_status lf__oc_step(lf__oc *x, lf__opath *path, int32_t depth, const lf_graph *g, const lf__label *lab,
                      const lf__ocand *c, lf_graph **child, lf__label **clab, int32_t **created,
                      int32_t *n_created);

/* The searches; start (shape-only) is only read. On success x->best and
 * x->steps hold the result; prune and dpp fail with LF_ELIMIT at the time cap. */
lf_status lf__prune(lf__oc *x, const lf_graph *start);
lf_status lf__dpp(lf__oc *x, const lf_graph *start);
lf_status lf__sample(lf__oc *x, const lf_graph *start);

#endif
