/* Plans: a partition of a graph's compute ops into fusion groups, the
 * validity rules of DESIGN §4 and the metrics users compare plans by. */
#ifndef LF_PLAN_H
#define LF_PLAN_H

#include <stdint.h>

#include "planner/cost/cost.h"
#include "planner/cost/energy.h"

typedef struct lf_plan {
    int32_t n_ops;
    int32_t n_groups;
    int32_t *group_of; /* op id -> group index in [0, n_groups); -1 for graph inputs */
} lf_plan;

/* A plan with no groups yet (every entry -1). */
lf_status lf_plan_init(lf_plan *p, int32_t n_ops);
void lf_plan_destroy(lf_plan *p); /* safe after a failed init */
lf_status lf_plan_copy(lf_plan *dst, const lf_plan *src); /* dst uninitialised */

/* Renumbers groups in order of their smallest op id, which makes equal
 * partitions byte-identical. Entries must be -1 or >= 0; group indices need
 * not be dense beforehand. */
void lf_plan_canonicalize(lf_plan *p);

/* Members of group gi as a bitset (out must have n_ops bits; it is cleared). */
void lf_plan_group_bitset(const lf_plan *p, int32_t gi, lf_bitset *out);

/* Number of ops in group gi. */
int32_t lf_plan_group_size(const lf_plan *p, int32_t gi);

/* Checks DESIGN §4: every compute op in exactly one group and graph inputs in
 * none, unfusable ops alone, every group weakly connected, the quotient graph
 * of groups acyclic and every group valid (F_beta < beta). LF_EPLAN with a
 * message naming the first violation. */
lf_status lf_plan_check(const lf_plan *p, lf_cost_model *cm);

/* 1 when the quotient graph of groups has no cycle; 0 when it has one, when
 * a group index is out of range, or when memory runs out. */
int lf_plan_quotient_acyclic(const lf_plan *p, const lf_graph *g);

typedef struct lf_plan_metrics {
    int64_t dram_fusable;   /* sum of F_D over groups of fusable ops (the paper's figure) */
    int64_t dram_all;       /* plus unfusable ops charged with streamed weights */
    int64_t mbu;            /* maximum buffer usage over the groups of fusable ops */
    int32_t n_groups;       /* groups of fusable ops */
    int32_t n_unfusable;    /* unfusable ops (each its own group) */
    int32_t n_invalid;      /* groups of fusable ops with F_beta >= beta */
    double dram_time_s;     /* dram_all / bandwidth */
    double energy_j;        /* dram_all * pJ/byte, or -1 when the hardware gives no figure */
    /* DESIGN §19, over all ops (unfusable ones charged as in dram_all): the
     * sums of the groups' energies (pJ) and roofline latencies (s). Always
     * computed (defaults fill missing figures); has_energy / has_latency say
     * whether the hardware gives them, and reports show only those. */
    lf_group_perf perf;
    int32_t has_energy;     /* lf_hw_has_energy */
    int32_t has_latency;    /* the hardware gives a compute peak */
    int32_t n_compute_bound; /* groups (unfusable ops included) limited by compute */
    /* The cost model's objective (planner/cost/objective.h) summed over the
     * groups of fusable ops (objective_all: over all ops), in its unit:
     * dram_fusable under the default objective. Plans compare by it. */
    int64_t objective, objective_all;
} lf_plan_metrics;

lf_status lf_plan_metrics_compute(const lf_plan *p, lf_cost_model *cm, lf_plan_metrics *m);

/* The figures of ops alone (unfusable, or a group of one) at one cost
 * model's buffer and objective, kept between plans priced there: a
 * staircase's report prices at each step its plan and the layer-by-layer
 * plan, which hold every op unfusable there alone (plan_metrics.c). They
 * are forgotten when the model is moved to another buffer or objective;
 * one lf_plan_alone serves one model (a model freed and another made in
 * its place is not told apart). */
typedef struct lf_plan_alone lf_plan_alone;
lf_status lf_plan_alone_create(lf_plan_alone **a, int32_t n_ops);
void lf_plan_alone_free(lf_plan_alone *a);

/* lf_plan_metrics_compute, with the ops alone priced once per buffer in a
 * (NULL: none kept); the same metrics. */
lf_status lf_plan_metrics_compute_alone(const lf_plan *p, lf_cost_model *cm, lf_plan_alone *a,
                                        lf_plan_metrics *m);

/* Orders plans: less of the objective over fusable ops (DRAM by default), then fewer groups, then the
 * lexicographically smallest list of group minimum op ids (both plans
 * canonical). Negative when a is better. */
int lf_plan_compare(const lf_plan *a, const lf_plan_metrics *ma, const lf_plan *b,
                    const lf_plan_metrics *mb);

#endif
