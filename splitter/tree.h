/* The recursive greedy tree splitter (paper Algorithm 1, DESIGN §8) and its
 * rectify accounting.
 *
 * Given an invalid group, an edge proposer ranks its edges (top k); each
 * proposed edge yields candidate cuts (splitter/cuts.h), and each candidate's
 * parts are priced and the candidate classified:
 *
 *   1  every part valid: take the least total F_D and stop (greedy: once a
 *      category-1 candidate exists no other is considered); ties: smaller
 *      cut position;
 *   2  some parts valid, some not: take the candidate whose valid parts hold
 *      the most ops (ties: least F_D of the valid parts, then smaller
 *      position), keep its valid parts and recurse on each invalid part (the
 *      proposer is asked again for each sub-group);
 *   3  no part valid: recurse on every part of every candidate and take the
 *      candidate with the least total F_D (ties: smaller position).
 *
 * Category 3 is exponential, so it runs under a cap on the number of
 * category-3 sub-recursions in a group's whole recursion tree (opt.eval_cap,
 * default 64; memoized sub-results count with the recursions they took, so
 * whether the cap is hit does not depend on what the memo already holds).
 * Hitting the cap is a failure; so is a group without candidates (the
 * proposer returned no edge, or a single op is left invalid), and a
 * category-2 step whose invalid part fails. Failures propagate to the group
 * handed to split(), which then falls back to the random split
 * (lf_splitter_random) and reports rectified = 0.
 *
 * Memo: results are kept per (group bitset, cost model signature: graph hash,
 * beta, scheme, element sizes; and the seed when the proposer uses it) for the
 * splitter's lifetime, behind a lock. A result is a pure function of that key,
 * so whichever thread computes it first, every thread gets the same parts.
 * Failures are memoized too; the random fallback is not (it depends on the
 * seed) and is recomputed on each call.
 *
 * Thread-safe: split() may run concurrently (the partition search does). */
#ifndef LF_TREE_H
#define LF_TREE_H

#include <stdint.h>

#include "planner/exact/exact.h"
#include "splitter/cuts.h"
#include "splitter/proposer.h"
#include "splitter/splitter.h"

#define LF_TREE_DEFAULT_CAP 64

typedef struct lf_tree_options {
    int32_t eval_cap;     /* category-3 sub-recursions per group; <= 0: the default */
    int32_t measure_gap;  /* 1: price each distinct group's optimal split (lf_exact_split)
                             to report the split gap; measurement only, slow on wide groups */
    lf_exact_config exact; /* limits of that measurement */
    int32_t cost_continue; /* 1: keep splitting a valid part while the tree's split of it
                              (valid parts, recursively) has less F_D than the part itself
                              (beyond Algorithm 1, which stops at the first all-valid cut:
                              under BRR a valid part that re-reads its weights per row tile
                              can cost more than its pieces), then merge parts, move
                              boundary ops and re-split neighbouring parts optimally
                              while that lowers the total F_D (splitter/refine_split.h);
                              0: the paper's rule */
} lf_tree_options;

void lf_tree_options_default(lf_tree_options *o);

/* Creates the tree splitter around proposer p with edge budget k (k <= 0:
 * every edge the proposer gives). p is not owned and must outlive the
 * splitter. opt NULL: the defaults. The splitter is named "tree-<proposer>"
 * ("tree-<proposer>+continue" with cost_continue). */
lf_status lf_splitter_tree_create(lf_splitter **out, const lf_proposer *p, int32_t k,
                                  const lf_tree_options *opt);

/* Counters of a tree splitter, accumulated over every split() since its
 * creation (or the last reset), safe to read while searches run.
 *
 * Per distinct group handed to split() (one memo key: within one search, one
 * invalid group), counted once however often it is met:
 *   groups        distinct invalid groups
 *   rectify_hits  groups whose own top-k proposal yields a category-1 cut at
 *                 the first level (a cut leaving every part valid at once)
 *   tree_success  groups the recursion made valid without the fallback
 *   rectify rate = rectify_hits / groups, tree success rate = tree_success / groups
 * Split gap (opt.measure_gap; groups the tree split successfully):
 *   gap = F_D(tree split) / F_D(optimal split by lf_exact_split) >= 1. */
typedef struct lf_tree_stats {
    int64_t calls;          /* split() calls (with several search threads, calls, memo_hits,
                               fallbacks, levels and cost_queries may include plans the search
                               recomputed for a parked thread; the per-group figures below not) */
    int64_t memo_hits;      /* calls whose group result was already memoized */
    int64_t groups, rectify_hits, tree_success;
    int64_t fallbacks;      /* calls that ran the random split */
    int64_t cap_hits;       /* distinct groups that failed on the evaluation cap */
    int64_t levels;         /* (sub-)groups classified: proposer calls made */
    int64_t cost_queries;   /* lf_cost_eval calls (F_beta/F_D queries) inside the splitter */
    double split_s;         /* wall seconds during which some thread was inside split()
                               (not a sum over threads; split-gap measurement excluded) */
    int64_t gap_groups;     /* gaps measured */
    int64_t gap_failed;     /* exact split over its limits (not measured) */
    int64_t gap_optimal;    /* gaps equal to 1 */
    double gap_sum, gap_min, gap_max;
    /* derived: */
    double rectify_rate, success_rate, mean_gap, s_per_call;
} lf_tree_stats;

/* LF_EINVAL when s is not a tree splitter. */
lf_status lf_splitter_tree_stats(const lf_splitter *s, lf_tree_stats *out);

/* Measures the split gap (as opt.measure_gap would) of every distinct group
 * the tree split successfully and whose gap is not measured yet, after a
 * search: the search's wall time then excludes the exact splits. cm must be
 * the cost model the splits were made with. Not while split() runs. */
lf_status lf_splitter_tree_measure_gaps(lf_splitter *s, lf_cost_model *cm);


/* ---- one level of Algorithm 1, for inspection and the rectify test ---- */

enum { LF_CUT_CAT_ALL_VALID = 1, LF_CUT_CAT_SOME_VALID = 2, LF_CUT_CAT_NONE_VALID = 3 };

typedef struct lf_tree_level {
    int32_t n_edges;
    lf_edge_score *edges;     /* the proposal (top k), ranked */
    lf_cut_set cuts;          /* its candidate cuts, ascending position */
    int32_t *category;        /* per cut: LF_CUT_CAT_* */
    int64_t *f_d;             /* per cut: sum of its parts' F_D */
    int64_t *valid_f_d;       /* per cut: F_D of its valid parts */
    int32_t *valid_ops;       /* per cut: ops in its valid parts */
    int32_t *part_start;      /* per cut: index of its first part in part_cost */
    lf_group_cost *part_cost; /* per part of every cut */
    int32_t chosen;           /* the cut chosen at this level in category 1 or 2, else -1 */
    int32_t best_category;    /* 1, 2 or 3 (the best category present), 0: no cut */
    int64_t cost_queries;
} lf_tree_level;

/* Asks p for the top-k edges of `group`, builds their cuts, prices every
 * part and classifies the cuts. lv is initialised here; destroy it also
 * after a failure. */
lf_status lf_tree_level_eval(lf_tree_level *lv, lf_cost_model *cm, const lf_proposer *p, int32_t k,
                             const lf_bitset *group, uint64_t seed);
void lf_tree_level_destroy(lf_tree_level *lv);

/* The rectify test of DESIGN §8 for one group: *hit = 1 when p's top-k edges
 * yield a cut whose parts are all valid at once. */
lf_status lf_tree_rectify_test(lf_cost_model *cm, const lf_proposer *p, int32_t k,
                               const lf_bitset *group, uint64_t seed, int *hit);

#endif
