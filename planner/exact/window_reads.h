/* Reads a connected part of a window pays beyond the connected charge's one
 * per tensor, where the part is provably its whole group (window_reads.c).
 * Internal to planner/exact. */
#ifndef LF_EXACT_WINDOW_READS_H
#define LF_EXACT_WINDOW_READS_H

#include <stdint.h>

#include "planner/exact/downsets.h"
#include "planner/exact/solve.h"

/* open[v] for every op v of x's universe (x set up, not run; internal: the
 * window's internal tensors): bit 1 when v has an edge to a fusable op
 * outside it, bit 2 when v reads an internal tensor two fusable ops of the
 * universe read. Entries of other ops are left. */
void lf__win_open_ops(const lf__exact *x, const uint8_t *internal, uint8_t *open);

/* The bytes x's connected set being grown from state cur pays for reading
 * internal tensors (internal[p], bytes[p] per op) once more than the
 * connected charge counts, 0 unless the set is closed (no op with bit 1 of
 * open[v]: lf__win_open_ops). seen/stamp: scratch marks (n_ops entries), the
 * caller's stamp fresh for this set. Stamps are 64-bit: the windows take two
 * or three a candidate set, and a 32-bit one wraps after 2^31 sets, where a
 * mark left 2^32 stamps before reads as current (tests/test_stamps.c). */
int64_t lf__win_closed_reads(const lf__exact *x, const uint8_t *open, const uint8_t *internal,
                             const uint8_t *apart, const int64_t *bytes, int64_t *seen, int64_t stamp);

/* The reads of internal tensor p (written by x's set being grown) that the
 * groups of its fusable readers outside the set pay at least: the most of
 * them pairwise apart (ra, lf__cut_tensor_floors_apart; NULL: 1), at
 * least 1. */
int32_t lf__win_reads_apart(const lf__exact *x, const lf__reader_apart *ra, int32_t p);

/* 1 when a component of x's set being grown (a disconnected one, in the
 * first charge's enumeration) has no op with bit 1 of open[v]: no plan has
 * such a part, since a closed component is its whole group. seen/stamp as
 * above; stack: n_ops entries of scratch. */
int lf__win_closed_component(const lf__exact *x, const uint8_t *open, int64_t *seen, int64_t stamp,
                             int32_t *stack);

#endif
