/* Candidate cuts of a fusion group from proposed edges, with the skip
 * connections they must take along (DESIGN §8, paper §III-C and Fig. 2(c)).
 *
 * Order the group's ops topologically (ascending op id: ids are topological)
 * and call an op's index in that order its position. A proposed edge (i, j)
 * yields, for every position p with pos(i) <= p < pos(j), the 2-way split
 * "prefix: positions 0..p / suffix: the rest". Its cut is exactly the group's
 * edges spanning p (pos(u) <= p < pos(v)): the edge (i, j) itself, every
 * other edge in parallel with it, and every skip connection over p, nested
 * ones included (a squeeze-and-excite inside a residual block gives both the
 * SE multiply's map edge and the residual add's edge). Since no edge goes from
 * the suffix back to the prefix, the two sides are never in a cycle.
 *
 * Duplicate splits (the same p reached from several edges) are kept once.
 * A side that is not weakly connected is split into its components; the
 * parts of one candidate then have arcs only from prefix parts to suffix
 * parts, so they stay acyclic among themselves. */
#ifndef LF_CUTS_H
#define LF_CUTS_H

#include <stdint.h>

#include "planner/graph.h"
#include "planner/util/bitset.h"
#include "splitter/proposer.h"

typedef struct lf_cut {
    int32_t pos;      /* the prefix is members[0 .. pos] */
    int32_t edge;     /* index into the proposal of the best-ranked edge giving this cut */
    int32_t n_parts;  /* weakly connected parts of both sides (>= 2) */
    int32_t n_cut;    /* group edges spanning pos */
    int32_t *part_of; /* per member: its part, parts numbered by their smallest op id */
} lf_cut;

typedef struct lf_cut_set {
    int32_t n_members;
    int32_t *members; /* the group's ops, ascending */
    int32_t n_edges;  /* the group's distinct edges, ascending (u, v) */
    int32_t *eu, *ev; /* their endpoints as positions */
    int32_t n_cuts;
    lf_cut *cuts;     /* ascending pos */
    int32_t *labels_; /* storage of the part_of arrays */
    int32_t *work_;   /* union-find scratch */
} lf_cut_set;

/* Builds the candidates of the proposed edges (all must lie in the group,
 * else LF_EINVAL). cs is initialised here; destroy it also after a failure. */
lf_status lf_cut_set_build(lf_cut_set *cs, const lf_graph *g, const lf_bitset *group,
                           const lf_edge_score *edges, int32_t n_edges);
void lf_cut_set_destroy(lf_cut_set *cs);

/* Labels the weakly connected parts left when the group's edges spanning
 * `pos` are removed (pos = n_members - 1: the group's own components) into
 * part_of (n_members entries, parts numbered by smallest op id); returns the
 * number of parts. */
int32_t lf_cut_label(lf_cut_set *cs, int32_t pos, int32_t *part_of);

/* Part `part` of candidate c as a bitset (cleared first). */
void lf_cut_part(const lf_cut_set *cs, int32_t c, int32_t part, lf_bitset *out);

/* 1 when the group's edge e (index into eu/ev) is cut by candidate c. */
static inline int lf_cut_edge_is_cut(const lf_cut_set *cs, int32_t c, int32_t e)
{
    return cs->eu[e] <= cs->cuts[c].pos && cs->cuts[c].pos < cs->ev[e];
}

#endif
