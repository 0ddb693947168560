/* The windows' bound's state (window_bound.c), one try at a window
 * (window_try.c) and the charges its relaxed DPs make per candidate set
 * (window_charge.c). Internal to planner/exact. */
#ifndef LF_EXACT_WINDOW_WIN_H
#define LF_EXACT_WINDOW_WIN_H

#include <stdint.h>

#include "planner/exact/downsets.h"
#include "planner/exact/set_memo.h"
#include "planner/exact/solve.h"
#include "planner/exact/window_reads.h"
#include "planner/exact/window_waits.h"

typedef struct lf__win {
    lf_cost_model *cm;
    const lf_graph *g;
    lf_exact_config total;
    double t0;
    uint8_t *internal; /* tensors of the window being solved */
    uint8_t *ghost;    /* readers outside the window solved with it (lf__win_ghosts) */
    uint8_t *open;     /* ops of the window's universe with an edge out of it (window_reads.c) */
    lf__win_reach reach; /* the ops out of it they reach, and scratch (lf__win_closed_reads) */
    uint8_t *claimed;  /* per op: its weights' re-reads charged by a window of this pass */
    uint8_t *mine;     /* per op: ... by the window being solved (its own ops and ghosts unclaimed before it) */
    int32_t *claims, n_claims; /* the ops the last window solved claimed (lf__win_grow) */
    int32_t *claim_from; /* per claimed op: where the window that claimed it starts (window_cone.c) */
    int32_t *kept_claims, n_kept; /* scratch: claims put back while a grown window is tried */
    int32_t *ghost_list;
    int32_t *own_ops;  /* scratch: the window's ops of a set */
    int32_t *stack;    /* scratch of lf__win_closed_component */
    int64_t *bytes, *wbytes; /* per op: its tensor's bytes, its weights' */
    int32_t *ends, *failed; /* a pass's window ends, and the windows past their first share */
    uint8_t *charged;  /* tensors of windows solved */
    int64_t *seen, stamp; /* 64-bit: a stamp per set never wraps (window_reads.h) */
    int32_t windows, solved, split;
    int32_t grew;      /* windows of the pass running that grew (lf__win_grow) */
    int32_t failed_in_row; /* its last tries to grow that failed, one after another */
    int32_t n_win;     /* windows of the plain cut of the pass running (ends) */
    double pass_end;   /* wall clock at which the pass running ends (0: no limit) */
    int connected;     /* the pass running uses the second charge alone (lf__win_dp) */
    int64_t *conn;     /* per state of the DP running: the connected charge's value */
    int64_t cap_conn;
    int64_t weights;   /* every fusable op's weight bytes */
    int64_t *cut_floor; /* per op: its tensor's forced-cut floor (lf__cut_tensor_floors) */
    lf__reader_apart apart; /* readers no valid group holds together (cut_bound.c) */
    lf_cost_tiles *tiles; /* the fewest weight reads of groups that stream their weights */
    lf__wait_pairs pairs; /* squeeze-and-excite waits (wait_pairs.c) */
    int32_t *held;        /* scratch: the maps of the waits a set holds (pairs.n) */
    int64_t traffic;
    int64_t last_charge;     /* what the last window solved added to traffic */
    int64_t last_candidates; /* the candidate sets its DP visited */
    uint8_t *saved;          /* per position in ops: charged[] before a window grew (lf__win_grow) */
    int grow;                /* the pass running grows its cheap windows (lf__win_grow) */
    int64_t grow_left;       /* candidate sets the grown tries may still visit */
    int64_t merge_left;      /* ... and the merged ones (window_merge.c) */
    int64_t cheap;           /* a window visiting fewer candidate sets grows (LF__WIN_CHEAP) */
    int32_t merged;          /* windows of the pass running that took in the next one */
    lf__set_memo rereads;    /* each set's weight re-reads in the window being solved (set_memo.c) */
    int memo_rereads;        /* ... kept where weights are not resident (BRR) */
    lf__waits waits;         /* re-reads of squeeze-and-excite maps (window_waits.c) */
    /* The grown pass's record for window_cone.c: its windows as they stand
     * (positions in ops, charges), its merges (the window's start, where the
     * merged-in ops start, the end), and every position a try ended at. */
    int recording;
    int32_t *rec_from, *rec_to, n_rec;
    int64_t *rec_charge;
    int32_t *merge_from, *merge_b, *merge_next, n_merge;
    int64_t *merge_charge;   /* the charge of the window before its merge */
    /* ... and the ops it claimed (BRR): merge m's are
     * merge_claims[merge_claims_at[m] .. merge_claims_at[m + 1]). */
    int32_t *merge_claims, *merge_claims_at, cap_merge_claims;
    uint8_t *tried_end;
    int32_t n_ops_all;       /* the pass's ops (positions 0 .. n_ops_all) */
    int32_t coned, cone_to;  /* merges replaced by their cones; the last one's end */
    int32_t cone_e;          /* the best end of the merge being tried (-1: none) */
    uint8_t *cone_saved, *cone_base, *cone_best, *cone_mark; /* scratch, per op */
    uint8_t *cone_keep;      /* the grown pass's charged tensors, kept for the cones */
    uint8_t *cone_keep_claimed, *cone_claimed_saved, *cone_claimed_best; /* ... its claims (BRR) */
    int32_t *cone_keep_from, *cone_from_saved, *cone_from_best;        /* ... and their windows */
    int32_t *cone_ops, *cone_scratch, *cone_lat;
    /* The pass's solved windows, in order: ops[keep_from..keep_to) and what
     * each charged past its tensors' forced-cut floors (lf__win_try; a
     * grown window replaces its last try's record: lf__win_grow). Its
     * tensors are the charged[] ops of its range. */
    int32_t *keep_from, *keep_to, n_keep;
    int64_t *keep_excess;
} lf__win;

/* The DP's hooks (x->user is the lf__win): a candidate set's charges under
 * both of the window's relaxations, and an unfusable op's. */
void lf__win_group(lf__exact *x);
void lf__win_forced(lf__exact *x, int32_t v);
/* One try at the window ops[from..to) (window_try.c): LF_OK when solved
 * and charged, LF_ELIMIT past the limits (nothing charged). */
lf_status lf__win_try(lf__win *w, const int32_t *ops, int32_t from, int32_t to, double share,
                      int64_t max_candidates);
/* The grown pass's merges tried again as the window before the merge, the
 * laterals and the cone of the merged-in ops (window_cone.c); the better
 * total kept in w and *lower (the pass's floor). */
lf_status lf__win_cone(lf__win *w, const int32_t *ops, int64_t *lower);
/* Reorders ops[from..to) (a topological order) as the ops not reachable
 * from ops[from] inside it, then those that are (its cone), each in the
 * order they had: where the cone starts. mark: per op, zero in and out;
 * scratch: to - from entries. */
int32_t lf__window_cone_order(const lf_graph *g, int32_t *ops, int32_t from, int32_t to, uint8_t *mark,
                              int32_t *scratch);
/* The connected charge's value at state t of the DP running (grown to
 * hold it; NULL when out of memory). */
int64_t *lf__win_conn(lf__exact *x, lf__win *w, int32_t t);

#endif
