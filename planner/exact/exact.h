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
} lf_exact_config;

typedef struct lf_exact_stats {
    int64_t states;         /* downsets reached */
    int64_t candidates;     /* connected sets visited while enumerating */
    int64_t groups;         /* candidate groups priced (valid or not) */
    double wall_s;
} lf_exact_stats;

void lf_exact_config_default(lf_exact_config *c);

/* Optimal plan of the whole graph in the full order of DESIGN §4: minimum DRAM
 * over fusable ops, then fewest groups, then the lexicographically smallest
 * sorted list of group minimum op ids (lf_plan_compare). *out is initialised here (canonical, passes lf_plan_check). Fails
 * with LF_ELIMIT and a message naming the limit when the search is too big. */
lf_status lf_exact_plan(lf_cost_model *cm, const lf_exact_config *cfg, lf_plan *out,
                        lf_exact_stats *stats);

/* Optimal split of one group into valid, weakly connected parts with no cycle
 * among them (ops outside the group are treated as already computed). *out
 * maps every op of the group to its part and everything else to -1; *dram is
 * the sum of the parts' F_D. The group must contain only fusable ops. */
lf_status lf_exact_split(lf_cost_model *cm, const lf_bitset *group, const lf_exact_config *cfg,
                         lf_plan *out, int64_t *dram, lf_exact_stats *stats);

#endif
