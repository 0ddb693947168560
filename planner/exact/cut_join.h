/* Groups that hold a cut op and ops above it, joined from tails and heads
 * (cut_join.c) for the single-buffer DP. Not a public header. */
#ifndef LF_EXACT_CUT_JOIN_H
#define LF_EXACT_CUT_JOIN_H

#include "planner/exact/downsets.h"

/* What the DP does with a joined group from state x->cur (the tail's) to
 * state target: its figure f_d (DRAM bytes, or the cost model's objective:
 * planner/cost/objective.h), smallest op first. */
typedef void (*lf__join_relax)(lf__exact *x, int64_t f_d, int32_t first, int32_t target);

/* Sets x->join; on failure x->join may hold a partial object for
 * lf__join_free. */
lf_status lf__join_create(lf__exact *x);
void lf__join_free(lf__exact *x);

/* on_tail: the set being grown ends at cut op c; records the current state
 * as one of c's tails (and makes sure the state of all ops up to c exists),
 * with the caller's aux. With `floors` 0 the tail's DRAM floor, weights and
 * ops read above c are left out: only the single-buffer DP and the
 * staircase's dominance walk (weights resident) read them. */
void lf__join_tail(lf__exact *x, int32_t c, int64_t aux, int floors);

/* on_head: the set being grown from c's cut state is a head of c; prices it
 * with c's tails, best first, and hands each valid group to relax. */
void lf__join_head(lf__exact *x, int32_t c, lf__join_relax relax);

/* What joining pairs adds up to, kept apart per worker while the staircase
 * joins them on several threads (cut_join.c) and added to the DP after. */
typedef struct lf__join_acc {
    int64_t groups, skipped; /* pairs priced, and skipped (x->st) */
    int64_t bytes;           /* memory taken (x->extra_bytes) */
    lf_status status;        /* the first failure, with its message */
    char message[LF_MESSAGE_MAX];
} lf__join_acc;

/* Records st (and the calling thread's message) as acc's failure, unless
 * it has one. */
void lf__join_acc_fail(lf__join_acc *acc, lf_status st);

/* The staircase (curve.c): dominated says that no point the group from
 * state `from` to `target` could add is missing from target's front when its
 * needs are at least `need` and its DRAM at least `floor`; extend adds the
 * group's steps from state from's front into target's (the group's members
 * alone need up to aux), what it adds going to acc: called for different
 * targets on several threads at once, it touches nothing else of x; whole
 * prices a group whose sides do not separate (from x->cur) and extends the
 * same way, on the DP's thread. */
typedef struct lf__join_staircase {
    int (*dominated)(lf__exact *x, int32_t from, int32_t target, int64_t need, int64_t floor);
    void (*extend)(const lf__exact *x, lf__join_acc *acc, int32_t from, const lf_cost_step *steps,
                   int32_t n, int64_t aux, int32_t target);
    /* tail, head: the pair's sides where its tail holds attention and it is
     * priced from them (lf_cost_join_attn_prices), else NULL */
    void (*whole)(lf__exact *x, const lf_bitset *set, int64_t aux, int32_t target, lf_cost_side *tail,
                  lf_cost_side *head);
} lf__join_staircase;

/* on_head for the staircase: records the head being grown (its members
 * alone need up to head_aux; steps below `below`) to be joined with every
 * tail of c, in the order they were found, by lf__join_flush_steps. */
void lf__join_head_steps(lf__exact *x, int32_t c, int64_t below, int64_t head_aux);
/* Joins the recorded heads with their tails, a block of tails at a time
 * (on x->pool's workers where weights stream), and lets them go. Every
 * front the pairs touch must exist. The staircase calls it once the
 * current state's candidates are all found (on_expanded), before any
 * larger state is expanded, or after each head (where weights stay
 * resident, so that the dominance walk sees the head's own scratch). */
void lf__join_flush_steps(lf__exact *x, const lf__join_staircase *sc);

#endif
