/* Where the staircase's prices rise (curve.c, docs/search.md "Staircase").
 * The Pareto DP of curve.c assumes that a group's price only falls as the
 * buffer grows. Under energy and latency, and under DRAM for a weight
 * MatMul just above BRR's threshold, a lone op's price can rise at a
 * buffer; lf_curve_compute solves the range in parts cut there, so that
 * inside each part every price only falls. A group of several ops can
 * rise too under energy and latency (an attention group whose K/V become
 * resident at a smaller query tile: less DRAM, more row steps); there are
 * too many such groups to cut at all of their rises, so the staircase's own
 * plans are checked after the DP (lf__curve_plan_rises) and the range is
 * cut and solved again only where one of them costs more than it says. */
#ifndef LF_EXACT_CURVE_RISES_H
#define LF_EXACT_CURVE_RISES_H

#include <stdint.h>

#include "planner/exact/curve.h"

/* The buffers inside (beta_min, beta_max] where some op of g alone costs
 * more (cfg->objective's figure, under g, hw and scheme, with the SRAM
 * figure fixed as lf_curve_fix_sram does) than one byte below: into cuts,
 * ascending, each once, *n_cuts of them. cuts holds
 * (2 + LF_COST_MAX_STEPS) * g->n_ops + 2 entries. */
lf_status lf__curve_rising_cuts(const lf_graph *g, const lf_hw *hw, const char *scheme, int64_t beta_min,
                                int64_t beta_max, const lf_exact_config *cfg, int64_t *cuts, int32_t *n_cuts);

/* part: the staircase one DP found over [lo, hi] (lf_curve_compute's
 * range between cuts), its points holding up to top (hi, or hi - 1 where
 * the next range takes hi on). The DP charges each group of several ops,
 * at each buffer, the least of its prices from lo up to there (curve.c
 * drops a step dearer than the one before), which is its price wherever the
 * price has not risen. Into cuts (ascending, each once, at most cap): every
 * buffer inside (lo, hi) where the price of such a group rises, for each
 * group of a point's plan that costs more than that charge at some buffer
 * where the point holds. None: every point's plan costs what the staircase
 * says at every buffer where it holds, and since no group costs less than
 * its charge, the staircase is the optimum there (nothing to do under
 * DRAM, whose steps only fall). hints (or NULL; room for hint_cap): the
 * rises inside (lo, hi) of the other groups of the plans that price above
 * their charge somewhere in the range, not cuts (ascending, each once;
 * none where there are more than hint_cap): where the part's own parts may
 * ask for cuts in turn, once solved (lf_curve_compute solves some of those
 * parts ahead, curve_guess.c). */
/* Stretches of buffers [at[i][0], at[i][1]], n of them (room for cap,
 * grown with realloc): where some plan of a part costs more than its
 * charge. */
typedef struct lf__stretches {
    int64_t (*at)[2];
    int32_t n, cap;
} lf__stretches;

/* ... and dirty (or NULL): the buffers where some point's plan has a group
 * priced above its charge while the point holds, as stretches (ascending,
 * apart, none next to another), the
 * only buffers where the part's figure may be below the optimum
 * (curve_ranges.c solves them again). */
lf_status lf__curve_plan_rises(const lf_graph *g, const lf_hw *hw, const char *scheme,
                               const lf_exact_config *cfg, const lf_curve *part, int64_t lo, int64_t hi,
                               int64_t top, int64_t *cuts, int32_t *n_cuts, int32_t cap, int64_t *hints,
                               int32_t *n_hints, int32_t hint_cap, lf__stretches *dirty);

/* Keeps the points of part (holding up to top) outside the stretches d
 * (as lf__curve_plan_rises gives them): a point whose buffers a stretch
 * splits stands again, with its figure and a copy of its plan, where the
 * stretch ends. Its figure is the optimum there: the DP's figure never
 * exceeds it (every group charged no more than its price) and the plan
 * attains it. curve_dirty.c */
lf_status lf__curve_keep_clean(lf_curve *part, const lf__stretches *d, int64_t top);

#endif
