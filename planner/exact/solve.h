/* Internal entry of the exact planner for callers inside planner/exact: the
 * optimal plan of the ops of a universe (any ops, unfusable ones kept as
 * forced singletons; ops outside it count as already computed). */
#ifndef LF_EXACT_SOLVE_H
#define LF_EXACT_SOLVE_H

#include "planner/exact/downsets.h"
#include "planner/exact/exact.h"

/* Runs the DP set up in x (lf__dp_setup) and writes the best partition of
 * its universe into *out (exact.c). */
lf_status lf__exact_run(lf__exact *x, lf_plan *out, int64_t *dram);

/* *out is initialised here: the universe's ops in groups, the rest -1;
 * *dram is the DRAM of its fusable groups. */
lf_status lf__exact_solve(lf_cost_model *cm, const lf_bitset *universe, const lf_exact_config *cfg,
                          lf_plan *out, int64_t *dram, lf_exact_stats *stats);

/* The same with every candidate found as an order ideal by the binary
 * recursion the relaxations use, instead of grown as a connected set: the
 * same groups and plan (tests compare the two enumerations). */
lf_status lf__exact_solve_ideals(lf_cost_model *cm, const lf_bitset *universe, const lf_exact_config *cfg,
                                 lf_plan *out, int64_t *dram, lf_exact_stats *stats);

/* The same with every group grown whole from every state, no joins at cut
 * ops (cut_join.c): the same optimum under every objective (tests compare). */
lf_status lf__exact_solve_whole(lf_cost_model *cm, const lf_bitset *universe, const lf_exact_config *cfg,
                                lf_plan *out, int64_t *dram, lf_exact_stats *stats);

/* The relaxed DP of the blocks (bounds.c) over universe u: every candidate
 * set whose F_beta floor is below beta, connected or not, charged its
 * inputs, outputs and weights once and (tiles: NULL for none) the weight
 * re-reads its tile floor forces; *lower is at most the DRAM of any plan of
 * u, and of any chain of such sets covering u (separators.c). */
lf_status lf__relaxed_solve(lf_cost_model *cm, lf_cost_tiles *tiles, const lf_bitset *u,
                            const lf_exact_config *cfg, int64_t *lower);

/* A floor of the feature traffic of every valid plan: the bytes of tensors
 * that must cross group boundaries, because the ops at both ends can share
 * no valid group (cut_bound.c). Weights are not in it, nor the tensors of
 * ops with charged[p] set (charged elsewhere; NULL: none). */
lf_status lf__cut_lower_bound(lf_cost_model *cm, const uint8_t *charged, int64_t *traffic);

/* The same floor tensor by tensor: floor[p] (n_ops entries) is what op p's
 * tensor moves at least in every valid plan (0 for most; the sum is
 * lf__cut_lower_bound's traffic). */
lf_status lf__cut_tensor_floors(lf_cost_model *cm, int64_t *floor);
/* Which fusable readers of each tensor no valid group holds together
 * (cut_bound.c's hull test): bit j of mask[start[p] + i] when consumers i
 * and j of op p (the first 32) are apart; any[p] when some pair is. */
typedef struct lf__reader_apart {
    int32_t *start;
    uint32_t *mask;
    uint8_t *any;
} lf__reader_apart;
/* lf__cut_tensor_floors, and the readers apart into *ra (NULL: not asked;
 * lf__reader_apart_free frees it, also after a failure). */
lf_status lf__cut_tensor_floors_apart(lf_cost_model *cm, int64_t *floor, lf__reader_apart *ra);
/* The most consumers of p among those of bit mask cand (indices < 32) that
 * are pairwise apart: so many distinct groups hold them. */
int32_t lf__reader_apart_clique(const lf__reader_apart *ra, int32_t p, uint32_t cand);
void lf__reader_apart_free(lf__reader_apart *ra);

/* The BRR tile floors of lf_cost_tiles_create / lf_cost_tile_floors,
 * sharpened where a wait below an op cannot share a valid group with it
 * (tile_reach.c). */
lf_status lf__tiles_create_sharp(lf_cost_model *cm, lf_cost_tiles **out);
lf_status lf__tile_floors_sharp(lf_cost_model *cm, int32_t *tiles);

/* The squeeze-and-excite waits of g: map[i] read by the reduction r[i] and
 * by m[i], which descends from r[i] through ops of height one, both
 * fusable (wait_pairs.c). */
typedef struct lf__wait_pairs {
    int32_t n;
    int32_t *r, *m, *map;
} lf__wait_pairs;
lf_status lf__wait_pairs_find(lf_cost_model *cm, lf__wait_pairs *out);
void lf__wait_pairs_free(lf__wait_pairs *w);
/* What every group holding the set being grown in x pays for reading again
 * the maps of the waits of `pairs` the set holds (r and m in it, neither a
 * ghost), beyond the windows' charges: the internal ones, each once
 * (neck_rereads.c). The distinct maps held, internal or not, go to held
 * (room for pairs->n) and their number to *n_held. */
int64_t lf__neck_again(const lf__exact *x, const lf__wait_pairs *pairs, const uint8_t *internal,
                       const uint8_t *ghost, const int64_t *bytes, int32_t *held, int32_t *n_held);

/* A floor of the DRAM of every valid plan (weights included): windows of
 * consecutive ops solved in relaxations that charge only the tensors inside
 * each window (and those it writes for the readers past its end solved with
 * it), the rest by lf__cut_lower_bound (window_bound.c). Passes with windows
 * of up to 16, 24, 36, ... ops (at most max_window_ops; <= 0: no cap with a
 * time limit, 64 without; with no cap a window whose DP is cheap is solved
 * again twice as long, and the longer one kept) share cfg's limits, a pass starting only with
 * three times the last one's time left; a window past its share is tried
 * again with what the others left, then in halves; the best pass counts.
 * Passes charging connected parts alone run first, on at most half of the
 * time, then passes with both charges. */
typedef struct lf__window_stats {
    int64_t lower;
    int32_t window_ops;     /* of the best pass */
    int connected;          /* it charged connected parts alone (window_bound.c) */
    int32_t windows;        /* its windows, halves included */
    int32_t windows_solved; /* of those, solved (the rest keep their forced-cut floors) */
    int32_t halved;         /* windows past their limits, tried again in halves */
    int grown;              /* the best pass grew its cheap windows (lf__win_grow) */
    int32_t merged;         /* of its windows, those that took in the next one (window_merge.c) */
    int32_t coned;          /* of those merges, replaced by their cones (window_cone.c) */
    double wall_s;
} lf__window_stats;

lf_status lf__window_lower_bound(lf_cost_model *cm, const lf_exact_config *cfg, int32_t max_window_ops,
                                 lf__window_stats *ws);
/* The windows of one plain pass, as charges: the tensors each window
 * charged (by maker op; -1 where none did) and what it charged past their
 * forced-cut floors (its weight re-reads included). Every window's charge
 * is a floor of what a plan pays for its own tensors and the weights it
 * claims, disjoint from every other window's (window_bound.c). */
typedef struct lf__win_charges {
    int32_t *charged_by; /* per op */
    int64_t *excess;     /* per window */
    int32_t n;           /* windows; 0: no pass solved one */
} lf__win_charges;
void lf__win_charges_free(lf__win_charges *c);
/* lf__window_lower_bound, keeping in keep[LF__WIN_KEPT] (zeroed by the
 * caller, each freed with lf__win_charges_free) the charges of its plain
 * passes, those that charged most past the floors where they are more. */
#define LF__WIN_KEPT 8
lf_status lf__window_lower_bound_keep(lf_cost_model *cm, const lf_exact_config *cfg, int32_t max_window_ops,
                                      lf__window_stats *ws, lf__win_charges *keep);
/* The same with the grown pass's first windows of grown_first ops, growing
 * while their DPs visit fewer than `cheap` candidate sets (the defaults:
 * 16 ops, 20,000 sets): small graphs then reach the grown pass's merges and
 * their cones (window_cone.c), for the tests. */
lf_status lf__window_lower_bound_grown(lf_cost_model *cm, const lf_exact_config *cfg, int32_t max_window_ops,
                                       lf__window_stats *ws, lf__win_charges *keep, int32_t grown_first,
                                       int64_t cheap);
/* A floor of the DRAM of every valid plan: every fusable op's weights once,
 * every tensor's forced-cut floor, and per segment between cut ops the least
 * cut that a balanced prefix of any plan's groups makes there
 * (balance_cut.c). No search: a few max-flows per segment. */
lf_status lf__balance_lower_bound(lf_cost_model *cm, int64_t *lower);
/* Its part from one cut of the whole graph alone: the weights and the
 * forced-cut floors, plus, where every op is fusable, the ops connected and
 * all of them no valid group, the least cut over the downsets between a
 * source op and a sink op (balance_cut.c). The two bounds above take it. */
lf_status lf__balance_whole_bound(lf_cost_model *cm, int64_t *lower);
/* The same with the windows' charges (lf__window_lower_bound_keep): per
 * segment the windows held in it keep their charges and the cut weighs
 * only the tensors no window with a charge holds, or the cut alone, the
 * larger (balance_cut.c). At least the pass's bound and the cuts'. */
lf_status lf__balance_window_bound(lf_cost_model *cm, const lf__win_charges *wc, int64_t *lower);
/* The candidate sets a grown window's DP may visit (window_bound.c,
 * lf__win_grow): 16 times those of the try it grows, at least 20,000, at
 * most what the pass's grown tries have left and, but in a short window's
 * last step (last_step), 200,000. */
int64_t lf__win_grow_cap(int64_t last_candidates, int64_t grow_left, int last_step);
/* A floor of the DRAM of every valid plan like one pass of
 * lf__window_lower_bound under its connected charge, over the windows that
 * end at ops[win_ends[0]], ... (ops: the graph's compute ops by id; the last
 * end is their number), each window solved under the states of its two
 * boundaries (which side of a level the group of a reader past the window
 * holds) and the least sum over consistent states taken (window_join.c).
 * Windows past cfg's time limit (a deadline for the whole pass) keep their
 * unjoined value or their forced-cut floors. join 0: no states (the
 * connected pass alone, for comparisons). */
lf_status lf__window_join_bound(lf_cost_model *cm, const lf_exact_config *cfg, const int32_t *win_ends,
                                int32_t n_win, int join, int64_t *lower);
/* The readers past the window ops[from..to) solved with it, added to u
 * (window_bound.c): readers of the largest tensors (bytes, per op) whose
 * forced-cut floor (cut_floor) is 0, a bounded number in all; listed in
 * list when not NULL. Returns their number. */
int32_t lf__window_ghosts(const lf_graph *g, const int64_t *bytes, const int64_t *cut_floor, const uint8_t *apart,
                          const int32_t *ops, int32_t from, int32_t to, lf_bitset *u, int32_t *list);
/* Where a window of the ops ops[from..] ends (window_bound.c): within
 * [window_ops / 2, window_ops] ops, where the fewest bytes (bytes_of, per op)
 * its ops write are still to be read past it; n_ops when the rest fits. */
int32_t lf__window_end(const lf_graph *g, const int64_t *bytes_of, const int32_t *ops, int32_t n_ops,
                       int32_t from, int32_t window_ops);
/* The end of the window that the grown window ops[from..to) takes in
 * (window_merge.c): that of the next window of window_ops ops
 * (lf__window_end from to) when one of the grown window's ghosts lies in
 * it, else -1 in *end. */
lf_status lf__window_merge_end(const lf_graph *g, const int64_t *bytes, const int64_t *cut_floor,
                               const int32_t *ops, int32_t n_ops, int32_t from, int32_t to, int32_t window_ops,
                               int32_t *end);

#endif
