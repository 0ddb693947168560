#ifndef LF_SPLITTER_REFINE_SPLIT_H
#define LF_SPLITTER_REFINE_SPLIT_H

#include <stdint.h>

#include "planner/cost/cost.h"
#include "planner/util/bitset.h"

/* Improves a split of group by local edits while one lowers the total F_D:
 * merging two parts joined by an edge, moving one op to a neighbouring part,
 * or (when neither saves anything) replacing two neighbouring parts, or a
 * part and all its neighbours, by the optimal split of their union; the edit
 * that saves the most, each keeping every part valid and connected and the
 * parts free of cycles, until none saves anything.
 * part_of holds the part of each member of group in ascending op id order
 * (parts 0 .. *n_parts - 1) and is renumbered by smallest op id; *f_d, the
 * sum of the parts' F_D, is lowered by what the edits save; *queries (may be
 * NULL) grows by the cost model queries made. A pure function of the group
 * and the partition (ties go to the edit met first). */
lf_status lf_split_refine(lf_cost_model *cm, const lf_bitset *group, int32_t *part_of, int32_t *n_parts,
                          int64_t *f_d, int64_t *queries);

#endif
