/* Edge proposers: which edges of an invalid fusion group to cut (DESIGN §8,
 * paper §III-B, eq. 4).
 *
 * The greedy tree splitter (splitter/tree.h) asks a proposer for the edges of
 * an invalid group that "explain" its invalidity, and turns each proposed edge
 * into candidate cuts (splitter/cuts.h). A proposer is a small vtable so that
 * the GNN explainers (explain/) plug in beside the baselines defined here:
 *
 *   all     every edge of the group, in ascending (u, v) order (ids are
 *           topological), all with score 1. The upper bound: the tree splitter
 *           then sees every prefix cut. It ignores k (always every edge), so
 *           compare it with the others knowing it is not held to the budget.
 *   random  k edges drawn uniformly without replacement from a stream derived
 *           from (seed, group): every edge gets a uniform score from
 *           lf_rng_seed(seed, lf_bitset_hash(group)) in ascending (u, v)
 *           order and the k highest are kept. The "no explanation" control at
 *           the same edge count as an explainer.
 *   attrib  analytic attribution: edge (u, v) scores the share of F_beta that
 *           cutting it addresses, from lf_cost_explain's row windows:
 *
 *               score(u, v) = (win(u) + w(u) + w(v)) / F_beta(G)
 *
 *           win(u) = rows(u) · W_u·C_u·b_a, the bytes of tensor u's row window
 *           held for its consumers inside G (0 for a zero-copy view; the
 *           output staging row is not counted: cutting the edge does not
 *           remove it). w(x) is the weight term op x contributes to F_beta:
 *           |W_x| under LBDF (all weights resident), one output channel's
 *           block ceil(|W_x| / C_out) under BRR (weights stream, so only a
 *           block is resident). Cutting an edge whose tensor holds a tall
 *           window, next to heavy weights, frees the most buffer on at least
 *           one side, which is what makes parts valid. k <= 0: every edge.
 *
 * Contract of propose():
 *   input   a group of fusable ops (a bitset over op ids; usually invalid and
 *           weakly connected, but any non-empty group is accepted), the cost
 *           model (it carries the graph, beta and the scheme), a seed (the
 *           group's stream, see lf_split_seed) and the edge budget k;
 *   output  out[0 .. *n_out) holds distinct edges (u, v) of the graph with
 *           both ends in the group, u an input of v, ranked by score
 *           descending, ties by (u, v) ascending (lf_proposal_rank does this).
 *           *n_out <= k when k > 0 (except for `all`), and out must have room
 *           for lf_group_edge_count(graph, group) entries.
 *   It must be deterministic given (group, seed, cost model), draw randomness
 *   only from lf_rng streams seeded by `seed`, and be callable from several
 *   threads at once (the proposer's own state locked if it has any).
 *   uses_seed = 0 declares the result independent of the seed, which lets the
 *   tree splitter's memo share results between seeds. */
#ifndef LF_PROPOSER_H
#define LF_PROPOSER_H

#include <stdint.h>

#include "planner/cost/cost.h"

/* Default edge budget k for rectify-rate comparisons (DESIGN §8). */
#define LF_PROPOSER_DEFAULT_K 3

typedef struct lf_edge_score {
    int32_t u, v;  /* producer and consumer op ids (u < v) */
    double score;  /* higher = more responsible for the group's invalidity */
} lf_edge_score;

typedef struct lf_proposer lf_proposer;

struct lf_proposer {
    const char *name;  /* "all", "random", "attrib", "gnnexplainer", ... */
    int32_t uses_seed; /* 0: propose() ignores the seed */
    lf_status (*propose)(const lf_proposer *p, lf_cost_model *cm, const lf_bitset *group,
                         uint64_t seed, int32_t k, lf_edge_score *out, int32_t *n_out);
    void (*free)(lf_proposer *p); /* NULL for static instances */
    void *ctx;
};

/* The built-in (analytic) proposers by name, in the order help texts list
 * them: the one list, read by lf_proposer_find and by the named proposers'
 * table (splitter/proposer_named.c) that the registry hands out. A new one is
 * its lf_proposer in proposer.c and its name here. */
#define LF_PROPOSERS_ANALYTIC(X) X(all) X(random) X(attrib)

/* The built-in proposers (static instances; lf_proposer_free does nothing). */
const lf_proposer *lf_proposer_all(void);
const lf_proposer *lf_proposer_random(void);
const lf_proposer *lf_proposer_attrib(void);


/* Looks a built-in proposer up by name; LF_ENOTFOUND with the known names
 * otherwise. */
lf_status lf_proposer_find(const char *name, const lf_proposer **out);

/* Calls p->free when set; NULL is fine. */
void lf_proposer_free(lf_proposer *p);

/* Calls p->propose after checking the arguments, then checks the output
 * (edges inside the group, distinct, ranked, at most k unless p is `all`):
 * a proposer that breaks the contract gives LF_EINVAL naming it. */
lf_status lf_proposer_run(const lf_proposer *p, lf_cost_model *cm, const lf_bitset *group,
                          uint64_t seed, int32_t k, lf_edge_score *out, int32_t *n_out);

/* ---- helpers for proposer implementations ----------------------------- */

/* Number of distinct edges (u, v) with both ends in the group. */
int32_t lf_group_edge_count(const lf_graph *g, const lf_bitset *group);

/* Writes the group's distinct edges in ascending (u, v) order with score 0
 * into out (room for lf_group_edge_count entries); returns their number. */
int32_t lf_group_edges(const lf_graph *g, const lf_bitset *group, lf_edge_score *out);

/* Sorts by score descending, ties by (u, v) ascending; NaN scores last. */
void lf_proposal_rank(lf_edge_score *e, int32_t n);

#endif
