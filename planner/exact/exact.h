/* The exact planner (DESIGN §7): the optimal plan under the cost model, by
 * dynamic programming over downsets.
 *
 * Ordering the groups of any valid plan topologically makes every prefix
 * union a downset (closed under predecessors), and the difference of two
 * nested downsets is convex. So
 *
 *     best[D] = min over downsets D' < D with D \ D' weakly connected and valid
 *               of best[D'] + F_D(D \ D')
 *
 * is exact. Candidate groups from a state are enumerated as connected sets
 * grown from its ready ops, pruned by a lower bound of F_beta that never
 * decreases when an op is added (F_beta itself can, so it cannot prune). The
 * same machinery restricted to one group gives that group's optimal split. */
#ifndef LF_EXACT_H
#define LF_EXACT_H

#include <stdint.h>

#include "planner/plan.h"

typedef struct lf_exact_config {
    int64_t max_states;     /* downsets; default 2,000,000 */
    int64_t max_candidates; /* connected sets visited; default 200,000,000 */
    double time_limit_s;    /* wall seconds; default 60; 0: none */
    int64_t memory_limit;   /* bytes of states and cost memo; default 4 GB; 0: none */
} lf_exact_config;

/* Defaults chosen so that the planner stops within a minute and 4 GB on a
 * 2-core machine (issue 18.11), whatever the network and buffer. */
#define LF_EXACT_DEFAULT_STATES 2000000
#define LF_EXACT_DEFAULT_CANDIDATES 200000000
#define LF_EXACT_DEFAULT_TIME_S 60.0
#define LF_EXACT_DEFAULT_MEMORY ((int64_t)4000000000)

typedef struct lf_exact_stats {
    int64_t states;         /* downsets reached */
    int64_t candidates;     /* connected sets visited while enumerating */
    int64_t groups;         /* candidate groups priced (valid or not) */
    int64_t memory_bytes;   /* peak bytes of states and cost memo, as charged to the limit */
    double wall_s;
} lf_exact_stats;

void lf_exact_config_default(lf_exact_config *c);

/* Limits: the cost memo is held to half the memory limit while the planner
 * runs (evicted groups are recomputed), and the other half is left to the
 * states; past any limit the planner stops with LF_ELIMIT and a one-line
 * message naming the limit and what was reached (states, candidate sets,
 * time, memory). It never returns a plan it has not proven optimal.
 * lf_exact_plan sets the memo's limit for its run (lf_cost_memo_limit), so no
 * other evaluation may use the cost model meanwhile; lf_exact_split leaves
 * the memo's own limit alone and may run from several threads. */

/* Optimal plan of the whole graph in the full order of DESIGN §4: minimum DRAM
 * over fusable ops, then fewest groups, then the lexicographically smallest
 * sorted list of group minimum op ids (lf_plan_compare). *out is initialised
 * here (canonical, passes lf_plan_check). Fails with LF_ELIMIT and a message
 * naming the limit when the search is too big. */
lf_status lf_exact_plan(lf_cost_model *cm, const lf_exact_config *cfg, lf_plan *out,
                        lf_exact_stats *stats);

/* Optimal split of one group into valid, weakly connected parts with no cycle
 * among them (ops outside the group are treated as already computed). *out
 * maps every op of the group to its part and everything else to -1; *dram is
 * the sum of the parts' F_D. The group must contain only fusable ops. */
lf_status lf_exact_split(lf_cost_model *cm, const lf_bitset *group, const lf_exact_config *cfg,
                         lf_plan *out, int64_t *dram, lf_exact_stats *stats);

#endif
