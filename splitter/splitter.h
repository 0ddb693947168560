/* Splitters: turn an invalid fusion group into valid parts (DESIGN §8).
 *
 * A splitter is a small vtable so that the partition search does not care
 * which method repairs its invalid groups: the random split (the paper's
 * baseline, splitter/random_split.c) or the greedy tree splitter guided by an
 * edge proposer. Every splitter keeps one contract:
 *
 *   input   an invalid group of fusable ops (a bitset over op ids, weakly
 *           connected in the searches' use, but splitters must cope with a
 *           group that is not) and a seed for the group's own random stream;
 *   output  parts that are pairwise disjoint, together exactly the group,
 *           each weakly connected and valid (F_beta < beta), with no cycle
 *           among the parts themselves (arcs between parts come from graph
 *           edges inside the group). Cycles through other groups of a plan
 *           are the caller's business: the search repairs them afterwards.
 *
 * Unfusable ops never appear in a group given to a splitter (they are fixed
 * singletons), so splitting down to single ops always succeeds. A splitter
 * whose own method fails either falls back itself (the tree splitter runs the
 * random split) and returns rectified = 0, or gives up by returning LF_OK
 * with fewer than two parts: the partition search then runs the random split
 * and counts a fallback.
 *
 * Determinism: any randomness must come from lf_rng_seed(&r, seed, k) with
 * the seed the caller passes, which the searches derive per group with
 * lf_split_seed(search seed, group). The result is then a function of (search
 * seed, group) only, independent of the order in which groups are met and of
 * the thread count; it must never touch the search's own random stream.
 *
 * Thread safety: split() is called concurrently from several threads (each
 * with its own lf_split_result); a splitter with internal state (a memo, a
 * model) must lock it. The cost model is thread-safe. */
#ifndef LF_SPLITTER_H
#define LF_SPLITTER_H

#include <stdint.h>

#include "planner/cost/cost.h"

/* What a split returns. The caller owns it and reuses it across calls (the
 * part bitsets stay allocated); split() starts by lf_split_result_reset. */
typedef struct lf_split_result {
    int32_t nbits;        /* bits per part (the graph's op count) */
    int32_t n_parts;
    int32_t cap_parts;
    lf_bitset *parts;     /* parts[0 .. n_parts), ordered by their smallest op id */
    int32_t rectified;    /* 1: the splitter's own method made every part valid, no fallback */
    int64_t cost_queries; /* lf_cost_eval calls made for this split (memo hits included) */
} lf_split_result;

lf_status lf_split_result_init(lf_split_result *r, int32_t nbits);
void lf_split_result_destroy(lf_split_result *r); /* safe after a failed init */

/* Forgets the parts and zeroes the counters (keeps the storage). */
void lf_split_result_reset(lf_split_result *r);

/* Appends an empty part and returns it in *part (valid until the next append). */
lf_status lf_split_result_add(lf_split_result *r, lf_bitset **part);

/* Sorts the parts by their smallest op id, so that equal splits are
 * identical whatever order a splitter found them in. */
void lf_split_result_sort(lf_split_result *r);

/* Checks the contract above for `res` against `group`: a partition, every
 * part non-empty, weakly connected and valid, and the parts acyclic among
 * themselves. LF_EPLAN with a message naming the first violation. Used by the
 * tests and by callers that do not trust a splitter. */
lf_status lf_split_result_check(lf_cost_model *cm, const lf_bitset *group,
                                const lf_split_result *res);

typedef struct lf_splitter lf_splitter;

struct lf_splitter {
    const char *name; /* "random", "tree-gnnexplainer", ... */
    /* Splits `group` (invalid, fusable ops only) into res. `seed` seeds the
     * group's random stream (see lf_split_seed). Returns LF_OK with the
     * contract met, or an error status (out of memory, bad input). */
    lf_status (*split)(const lf_splitter *s, lf_cost_model *cm, const lf_bitset *group,
                       uint64_t seed, lf_split_result *res);
    /* Releases the splitter; NULL for statically allocated splitters. */
    void (*free)(lf_splitter *s);
    void *ctx; /* the implementation's state */
};

/* The seed of a group's random stream: lf_rng_mix(search seed, group hash). */
uint64_t lf_split_seed(uint64_t search_seed, const lf_bitset *group);

/* Calls s->free when set; NULL is fine. */
void lf_splitter_free(lf_splitter *s);

/* The random split (paper baseline): cuts uniformly random edges inside
 * parts that are invalid (or lie on a cycle among the parts) until every
 * part is valid and the parts are acyclic, ignoring DRAM. Always rectified.
 * A static instance; lf_splitter_free on it does nothing. */
const lf_splitter *lf_splitter_random(void);

#endif
