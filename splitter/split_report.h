/* `fusionplan split`: how the tree splitter (paper Algorithm 1) repairs
 * one group, as text: the group's F_beta and F_D, the edges the proposer
 * ranks highest, every candidate cut of the first level with its category
 * and parts, the split the recursion returns and the optimal split beside
 * it (the split gap). */
#ifndef LF_SPLIT_REPORT_H
#define LF_SPLIT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "planner/cost/cost.h"
#include "planner/util/bitset.h"
#include "splitter/proposer.h"
#include "splitter/splitter.h"

/* LF_OK when every op of group can be split (a compute op that is fusable
 * alone), else LF_EINVAL naming the first that cannot. */
lf_status lf_split_group_check(lf_cost_model *cm, const lf_bitset *group);

/* Writes the report for group (checked as above) under proposer p with k
 * edges and the search seed `seed` (the group's stream derives from it) to
 * f. A valid group needs no split: the report says so and res stays empty
 * (n_parts 0); otherwise res holds the tree splitter's parts (res must be
 * zeroed or destroyed; destroy it after). A missing optimum (past the exact
 * split's limits) is a line of the report, not an error. */
lf_status lf_split_report(FILE *f, lf_cost_model *cm, const lf_proposer *p, int32_t k,
                          const lf_bitset *group, uint64_t seed, lf_split_result *res);

#endif
