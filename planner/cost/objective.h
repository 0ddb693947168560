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

/* ---- a group as three sums (the exact planners' joins at cut ops) --------
 *
 * Beside its F_D and its row steps (lf_group_cost.steps), the figure of a
 * group (other than a lone op tiled by columns) depends on its members only
 * through three integer sums over them: MACs, the activation bytes each
 * moves in the buffer (lf_energy_act_traffic) and weight bytes. So a group
 * joined from two parts at a cut op is priced from the parts' sums, and
 * floors of its figure split between the parts (cut_join.c). */
typedef struct lf_obj_sums {
    int64_t macs, act, weights;
} lf_obj_sums;

/* Adds op v's terms to s. */
void lf_obj_sums_add_op(const lf_cost_model *cm, int32_t v, lf_obj_sums *s);
/* a += b. */
void lf_obj_sums_add(lf_obj_sums *a, const lf_obj_sums *b);

/* The figure of a group of sums s with F_D f_d and `steps` row steps (>= 1):
 * lf_cost_objective_value of those members and such a cost, to the fJ or
 * fs (the same integers feed the same floating-point expressions). It never
 * falls as f_d or steps grow: every term is a non-negative multiple of them,
 * and IEEE rounding and llround are monotone. Under dram: f_d. */
int64_t lf_cost_objective_sums(const lf_cost_model *cm, const lf_obj_sums *s, int64_t f_d, int64_t steps);

/* Floors for a group split into disjoint parts A and B, A `first`: for every
 * group G = A u B whose F_D is at least fd_a + fd_b (and steps >= 1),
 *
 *     part_floor(A, fd_a, 1) + part_floor(B, fd_b, 0) <= figure(G).
 *
 * Energy: the group's pJ, f_d (e_dram + e_sram) + act e_sram + weights
 * steps e_sram + macs e_mac, is linear with non-negative coefficients in
 * F_D, act, weights x steps and MACs; act, weights and MACs add over A and
 * B, F_D >= fd_a + fd_b and steps >= 1, so E(G) >= E_A + E_B, each part
 * priced at its floor F_D and one step. Rounding each part to the fJ adds at
 * most 1/2: each part's floor is its figure less 2 (1 fJ left for the
 * floating-point sums). Latency: max(C_A + C_B, M) with M = F_D / bandwidth
 * >= M_A + M_B is at least max(C_A, M_A) + min(C_B, M_B) (if C_A >= M_A,
 * it is >= C_A + C_B >= C_A + min(C_B, M_B), else >= M_A + M_B): the first
 * part's floor takes the larger of its two times, the second the smaller,
 * each less 2 fs. Under dram: fd. */
int64_t lf_cost_objective_part_floor(const lf_cost_model *cm, const lf_obj_sums *s, int64_t fd, int first);

/* A floor of the figure of every set of at most `groups` groups that
 * together hold the fusable ops whose sums are s (weights once) and whose
 * F_D add up to at least `dram` (a certified DRAM lower bound: bounds.c,
 * window_bound.c, frontier.c), so that those bounds, proven in bytes, bound
 * energy and latency as well. Under dram: dram.
 *
 * Energy. A group's pJ (energy.c) is
 *     F_D (e_dram + e_sram) + act e_sram + weights steps e_sram + MACs e_mac
 * (a lone op tiled by columns reads its input col_blocks >= 1 times and its
 * weights once per row: no less), linear with non-negative coefficients;
 * act, weights and MACs add over the groups, the F_D sum is at least dram
 * and steps >= 1. So the groups' pJ add up to at least the figure of one
 * group of sums s, F_D dram and one step: the DRAM floor priced at
 * e_dram + e_sram per byte (every DRAM byte is staged through the buffer
 * once), the SRAM floor (each op's operands read and output written once,
 * each weight read once) and the MACs, which the network fixes.
 * Latency. A group's time is max(C_G, M_G), C_G = MACs / peak and M_G =
 * F_D / bandwidth, so sum_G max(C_G, M_G) >= max(sum_G C_G, sum_G M_G) >=
 * max(MACs / peak, dram / bandwidth): one group of those sums.
 * Rounding. Each group's figure is rounded to the fJ or fs (at most 1/2
 * below its value, plus a floating-point error far below 1e-3 at these
 * magnitudes), and this floor is rounded once (at most 1/2 above): 2 per
 * group covers both (2 groups >= 1/2 groups + 1 for groups >= 1; no groups
 * means no ops and a floor of 0). Never below 0. */
int64_t lf_cost_objective_dram_floor(const lf_cost_model *cm, int64_t dram, const lf_obj_sums *s, int64_t groups);
/* The sums of every fusable op of the graph into *s and their number into
 * *n (the groups of a plan over fusable ops are at most that many). */
void lf_obj_sums_fusable(const lf_cost_model *cm, lf_obj_sums *s, int64_t *n);
/* lf_cost_objective_dram_floor for a whole plan: a plan's figure over
 * fusable ops (lf_plan_metrics' objective) from a DRAM floor of it. */
int64_t lf_cost_objective_plan_floor(const lf_cost_model *cm, int64_t dram);

/* A DRAM limit for a figure limit: every group of sums s with at least
 * `steps` row steps and F_D above the result has a figure above `limit`
 * (checked on the figure itself, which is monotone in F_D; INT64_MAX where
 * the figure does not grow with F_D or limit is INT64_MAX; -1 where no F_D
 * keeps it within the limit). Under dram: limit. */
int64_t lf_cost_objective_fd_limit(const lf_cost_model *cm, const lf_obj_sums *s, int64_t steps, int64_t limit);

#endif
