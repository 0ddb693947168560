/* What a planner minimises (DESIGN §19, docs/cost-models.md "Objectives"):
 * DRAM bytes (the default, DESIGN §4), energy or latency. Each is a sum over
 * groups of an integer figure of the group, so the exact planner, the
 * staircase and the searches compare plans by one int64 sum and stay exact:
 *
 *   dram     F_D in bytes
 *   energy   the group's energy (planner/cost/energy.c) in femtojoules
 *            (1e-3 pJ), rounded to the nearest
 *   latency  the group's double-buffered roofline max(MACs / peak,
 *            F_D / bandwidth) in femtoseconds, rounded to the nearest
 *
 * The objective belongs to the cost model (lf_cost_set_objective), so every
 * planner that prices groups through it minimises the same figure. */
#ifndef LF_OBJECTIVE_H
#define LF_OBJECTIVE_H

#include <stdint.h>

#include "planner/cost/cost.h"

typedef enum lf_plan_objective {
    LF_PLAN_OBJ_DRAM = 0,
    LF_PLAN_OBJ_ENERGY = 1,
    LF_PLAN_OBJ_LATENCY = 2,
    LF_PLAN_OBJ_COUNT
} lf_plan_objective;

/* "dram", "energy", "latency". */
const char *lf_plan_objective_name(lf_plan_objective o);
/* LF_PLAN_OBJ_COUNT for an unknown name (NULL: dram). */
lf_plan_objective lf_plan_objective_from_name(const char *name);
/* The unit of lf_cost_objective_value's figures: "B", "fJ", "fs". */
const char *lf_plan_objective_unit(lf_plan_objective o);

/* Sets and reads the cost model's objective. Not thread-safe: set it while
 * no evaluation runs. LF_EINVAL for an objective out of range. */
lf_status lf_cost_set_objective(lf_cost_model *cm, lf_plan_objective o);
lf_plan_objective lf_cost_objective(const lf_cost_model *cm);

/* The objective's figure of the group of the n ops `members` (any order)
 * whose cost is c. */
int64_t lf_cost_objective_value(lf_cost_model *cm, const int32_t *members, int32_t n,
                                const lf_group_cost *c);
/* The same for a group given as a bitset. */
int64_t lf_cost_objective_of(lf_cost_model *cm, const lf_bitset *group, const lf_group_cost *c);

/* A floor of that figure for every cost the group may have, cheap enough
 * to ask before pricing it: the figure with F_D at lf_cost_fd_floor (same
 * arguments) and one row step. Every term of the figure only grows with F_D
 * and with the steps, so the floor never exceeds the value (the exact
 * planner skips groups with it). Under dram it is lf_cost_fd_floor. */
int64_t lf_cost_objective_floor(lf_cost_model *cm, const int32_t *members, int32_t n,
                                const uint8_t *in_group, uint8_t *seen);

/* The objective's figure of an unfusable op v charged `dram` bytes by the
 * all-ops rule (lf_unfusable_perf). */
int64_t lf_cost_objective_unfusable(lf_cost_model *cm, int32_t v, int64_t dram);

#endif
