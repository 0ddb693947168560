/* The two first planners: every op its own group (layer-by-layer, the
 * reference every fusion plan is compared against), and a greedy pass that
 * merges along the topological order while the group stays valid. */
#ifndef LF_SEARCH_SIMPLE_H
#define LF_SEARCH_SIMPLE_H

#include "planner/plan.h"

/* Every compute op in its own group. *out is initialised here. */
lf_status lf_plan_layer(lf_cost_model *cm, lf_plan *out);

/* Walks the ops in topological order and appends each op to the open group
 * when it reads from that group and the enlarged group stays valid; otherwise
 * the op opens a new group. Unfusable ops stay alone. Groups are intervals of
 * the topological order, so the quotient is acyclic. *out is initialised here. */
lf_status lf_plan_greedy(lf_cost_model *cm, lf_plan *out);

#endif
