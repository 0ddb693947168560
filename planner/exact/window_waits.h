/* Squeeze-and-excite waits in the windows' relaxation (window_waits.c):
 * the re-read a part's group cannot avoid when the map it waits on cannot
 * stay resident beside the rows the wait's snapshot holds. Internal to
 * planner/exact. */
#ifndef LF_EXACT_WINDOW_WAITS_H
#define LF_EXACT_WINDOW_WAITS_H

#include <stdint.h>

#include "planner/exact/downsets.h"
#include "planner/exact/wait_resident.h"

typedef struct lf__waits {
    int32_t *p, *r;   /* per op m: the map p it waits on through reduction r (-1: none) */
    int32_t *need;    /* scratch: rows asked per tensor (n_ops, zero between calls) */
    int32_t *stack;
    int64_t *mark, stamp; /* 64-bit: two stamps a set never wrap */
    int32_t *done;    /* scratch: the maps charged for the set being grown */
    lf__wait_resident resident; /* the sinks' first snapshot (wait_resident.c) */
    int charge;       /* lf__waits_charge charges (LBDF); under BRR the waits and
                       * their resident floor serve window_charge.c alone */
} lf__waits;

/* Finds the waits of cm's graph; *w is zeroed and left empty (every charge
 * 0) where the argument does not hold: products of two activations,
 * column-tiled ops, or more ops that may wait than the cost model
 * snapshots. Under a scheme that may stream weights (BRR) the waits are
 * found but lf__waits_charge charges nothing (the floor has no weight term
 * to add); window_charge.c asks lf__waits_resident_out instead. */
lf_status lf__waits_init(lf__waits *w, lf_cost_model *cm);
void lf__waits_destroy(lf__waits *w);

/* What every group holding x's set being grown pays for re-reading the maps
 * of the waits it holds, beyond what the windows charge for them: under the
 * first charge (any part, *d_any) and the connected one (*d_conn, only maps
 * in the set). internal: the window's internal tensors; bytes: each op's
 * tensor bytes. */
/* A floor of F_beta of every valid group holding x's set that keeps the
 * map p of m's wait (through reduction r) resident: the larger of the
 * floors at m's wait snapshot (the top of window_waits.c) and at the sinks'
 * first one (wait_resident.c), each x's weight terms (lb_w + lb_blk) plus
 * feature rows at one row. 0 where m's wait is not one the init found
 * (nothing is claimed then). */
int64_t lf__waits_kept_floor(lf__waits *w, const lf__exact *x, int32_t m, int32_t p, int32_t r);

void lf__waits_charge(lf__waits *w, const lf__exact *x, const uint8_t *internal, const int64_t *bytes,
                      int64_t *d_any, int64_t *d_conn);

#endif
