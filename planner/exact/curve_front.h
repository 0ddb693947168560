/* The Pareto fronts of the staircase's DP (curve.c): per state, the points
 * (DRAM, largest need) of the plans of its ops that no other point beats,
 * needs ascending and DRAM descending, and how each was reached. Not a
 * public header. */
#ifndef LF_EXACT_CURVE_FRONT_H
#define LF_EXACT_CURVE_FRONT_H

#include <stdint.h>

#include "planner/cost/cost.h"
#include "planner/exact/cut_join.h"

/* A front point as dominance sees it, and how its plan was reached: two
 * arrays, since the walks over a front (nearly all of the staircase's time)
 * read only the first. dram: the objective's figure (DRAM bytes under DRAM). */
typedef struct lf__fpoint {
    int64_t dram, need;
} lf__fpoint;

typedef struct lf__fback {
    int32_t prev_state, prev_idx; /* the point this one extends; -1 at the empty set */
    int32_t groups;               /* of its plan (ties: fewer first, DESIGN §4) */
} lf__fback;

typedef struct lf__front {
    lf__fpoint *p;
    lf__fback *b;
    int32_t n, cap;
} lf__front;

/* Adds (dram, need) of a plan of `groups` groups, reached from point pi of
 * state ps, to front f unless a point there beats it (less DRAM, or the
 * same DRAM and no more need or no more groups: the one found first keeps
 * its place), dropping the points it beats; memory taken and a failure go
 * to acc. `from`: where the caller's last point went (points offered by
 * ascending need are found by one walk). Returns a point needing no more
 * than `need` (where it went, or the point that beat it). */
int32_t lf__front_add(lf__join_acc *acc, lf__front *f, int64_t dram, int64_t need, int32_t groups,
                      int32_t ps, int32_t pi, int32_t from);

/* Extends every point of front src (of state `from`) by every step of a
 * group into front to, needs below lo counting as lo (the larger of the
 * range's smallest buffer less one and where the group is first usable);
 * steps: needs ascending, figures descending. What it adds goes to acc;
 * it touches no other front, so extensions into different fronts may run
 * at once (cut_join.c). src and to are different fronts. */
void lf__front_extend(lf__join_acc *acc, const lf__front *src, int32_t from, lf__front *to,
                      const lf_cost_step *steps, int32_t n_steps, int64_t lo);

/* 1 when every point a group could add from front src to front to is
 * already beaten there, given that each of its steps needs at least `need`
 * and costs at least `floor`. Fronts only improve, so the answer holds
 * later. */
int lf__front_dominated(const lf__front *src, const lf__front *to, int64_t need, int64_t floor);

#endif
