/* Internals of the exact planners: the state space of downsets and the
 * enumeration of candidate groups, shared by the single-buffer DP (exact.c)
 * and the whole-staircase DP (curve.c). Not a public header.
 *
 * States are downsets D of the universe U (all compute ops, or one group),
 * processed by increasing size so that every state is final before it is
 * expanded. From D, candidate groups are the sets S of fusable ops with D u S
 * again a downset (order ideals of the rest), enumerated once each and cut as
 * soon as a lower bound of F_beta that only grows with S reaches beta; the
 * connected ones go to on_group (grown as connected sets, unless a
 * relaxation needs every ideal). Unfusable ops go to on_forced as singletons.
 * The per-state DRAM, group count, minima and back pointer belong to exact.c
 * but live here, where states are created. */
#ifndef LF_EXACT_DOWNSETS_H
#define LF_EXACT_DOWNSETS_H

#include <stdint.h>

#include "planner/exact/exact.h"
#include "planner/util/hashmap.h"

typedef struct lf__undo {
    int32_t tensor;   /* -1: a wblk record */
    int32_t old_k;
    int64_t old_value;
} lf__undo;

typedef struct lf__join lf__join;
typedef struct lf__frontier lf__frontier;

typedef struct lf__exact {
    /* The graph and its universe. */
    lf_cost_model *cm;
    const lf_graph *g;
    lf_exact_config cfg; /* time_limit_s: tightened by cfg.deadline (lf__dp_run) */
    double named_limit_s; /* the time limit as the caller gave it, for messages */
    int32_t n, nwords;
    int32_t u_lo, u_hi; /* the smallest op of U and one past the largest */
    int64_t beta;
    int resident;      /* the scheme keeps a group's whole weights on chip (LBDF) */
    uint8_t *in_u, *fusable, *in_d, *in_s;
    uint8_t *seen;     /* scratch of lf_cost_fd_floor (n zero bytes) */
    /* Lower-bound constants (wterm, wblk: the scheme's lf_cost_weight_bound)
     * and running state. */
    int64_t *wterm, *wblk, *row_bytes;
    int32_t *kwin;     /* rows an op's window needs of each input (>= 1) */
    uint8_t *view;     /* op's output is a zero-copy view (costs no rows) */
    int32_t *kmax;     /* per tensor: largest window asked by the current set */
    int64_t lb_w, lb_feat, lb_blk;
    lf__undo *undo;
    int32_t n_undo, cap_undo;
    /* Cut ops of U (every other op of U is an ancestor or a descendant, so
     * ids order them): cut_before[v] is the largest cut op id below v, or -1.
     * Op v can only become ready once that op is placed (blocks.c). */
    int32_t *cut_before;
    uint8_t *is_cut;
    int32_t n_cuts;
    /* Undirected adjacency among fusable ops of U. */
    int32_t *adj_start, *adj;
    /* Distinct successors within U, and, while a state is expanded, how
     * many predecessors in U each op still lacks (pending) and the fusable
     * ops ready to join the set being grown (ready: bits; placed ops and ops
     * with pending > 0 are never in it). */
    int32_t *succ_start, *succ, *pending;
    uint64_t *ready;
    /* The set being grown. */
    lf_bitset sbits;
    int32_t *sub;
    int32_t n_sub;
    /* Connected enumeration (the exact DPs): the set's smallest op, per op
     * how many members read it (need) and how many members it neighbours
     * (nadj), whether it is in the current extension list (in_x), the lists
     * of every level (esu, esu_cap entries), how many ops the members read
     * that are neither placed nor members (n_pending), and the set in
     * ascending order for the hooks (sorted). */
    int32_t anchor, n_pending;
    int32_t *need, *nadj, *esu, *sorted;
    uint8_t *in_x;
    int64_t esu_cap;
    /* States. */
    uint64_t *words;   /* nwords per state */
    int64_t *dram;
    int32_t *groups;
    uint64_t *minima;  /* nwords per state: the minimum op of each group so far */
    int32_t *prev;
    int32_t *size;
    int64_t n_states, cap_states;
    lf_hashmap index;  /* bitset hash (probed) -> state + 1 */
    int32_t **bucket;  /* states by size */
    int32_t *bucket_n, *bucket_cap;
    /* Current expansion. */
    int32_t cur;
    lf_bitset next;
    uint64_t *next_minima;
    lf_exact_stats st;
    lf_status status;
    double t0;            /* start, for the time limit */
    double progress;      /* states expanded, as a fraction of the sizes (lf__dp_run) */
    /* What the DP does with what the enumeration finds. on_group: sbits, sub
     * (ascending) and n_sub hold a connected candidate from state cur, whose
     * ops are all fusable; on_forced: unfusable op v is ready in state cur. */
    void (*on_group)(struct lf__exact *x);
    void (*on_forced)(struct lf__exact *x, int32_t v);
    int any_set;         /* relaxation (bounds.c): every candidate set, connected or not */
    int ideal_sets;      /* find connected candidates as order ideals too (tests) */
    int tell_connected;  /* with any_set: set set_connected for on_group (window_bound.c) */
    int set_connected;   /* in on_group: the set is weakly connected (when known) */
    int64_t extra_bytes; /* what the caller holds beside states and memo (curve fronts) */
    /* Groups that hold a cut op and ops above it (cut_join.c). With
     * join_cuts, a set holding a cut op grows only by whole blocks: it is a
     * candidate when it ends at a cut op c (on_group), and a tail of c then
     * (on_tail, connected or not); the sets grown from the state of all ops
     * up to c (cur_cut: c, else -1) that hold no cut op are heads of c
     * (on_head, connected or not), each joined with c's tails there. */
    int join_cuts;
    int no_join;         /* tests: grow every group whole, no joins (lf__exact_solve_whole) */
    int32_t s_cut;       /* the largest cut op in the set being grown, -1: none */
    int32_t cur_cut;
    int32_t *u_before;   /* ops of U below each op (n + 1 entries) */
    void (*on_tail)(struct lf__exact *x, int32_t c);
    void (*on_head)(struct lf__exact *x, int32_t c);
    /* After every candidate of state cur is found (NULL: nothing to do). */
    void (*on_expanded)(struct lf__exact *x);
    struct lf_pool *pool; /* workers for the staircase's joined pairs (NULL: this thread) */
    struct lf__join *join; /* cut_join.c's tails */
    lf__frontier *front;   /* the frontier bound (frontier.c; NULL: not kept) */
    /* After every state of one size is expanded (NULL: nothing to do; the
     * frontier bound sets it, so the DP never calls up into frontier.c). */
    void (*on_size_done)(struct lf__exact *x, int32_t size);
    /* Before state s is expanded: nonzero leaves it unexpanded, as if no
     * plan reached it (NULL: every state is expanded; frontier.c). */
    int (*prune)(struct lf__exact *x, int32_t s);
    void *user;
} lf__exact;


/* Sets up the enumeration over `universe` (NULL: every op of the graph)
 * under cm's buffer and cfg's limits (NULL: defaults); on failure the object
 * is still safe to tear down. */
lf_status lf__dp_setup(lf__exact *x, lf_cost_model *cm, const lf_bitset *universe,
                       const lf_exact_config *cfg);
void lf__dp_teardown(lf__exact *x);

/* Finds or creates the state of bitset w (size ops); -1 after an error. */
int32_t lf__dp_state(lf__exact *x, const uint64_t *w, int32_t size);

/* The state D u S for the current state D and a set S of n ops; -1 after an
 * error. */
int32_t lf__dp_target(lf__exact *x, const lf_bitset *s, int32_t n);
/* The same state when it exists already (-1 otherwise); never creates one. */
int32_t lf__dp_target_find(lf__exact *x, const lf_bitset *s);

/* Relaxations (bounds.c, window_bound.c): the state D u S for the current
 * state D and a set S of n ops takes D's DRAM + d where that is lower; no
 * tie rule, no group counts. Returns that state (-1 after an error). */
int32_t lf__dp_relax_min(lf__exact *x, const lf_bitset *s, int32_t n, int64_t d);

/* Creates the empty state, expands every state by increasing size and
 * returns the state of the whole universe, or -1 when the status is set. */
int32_t lf__dp_run(lf__exact *x);

/* Expands every state again, the largest first, with the callbacks now set
 * (a pass that reads what the states after each one hold: togo.c). States
 * created during it are not expanded. Returns the status. */
lf_status lf__dp_run_back(lf__exact *x);

/* The state of bitset w (nwords words), or -1 when there is none. */
int32_t lf__dp_find(const lf__exact *x, const uint64_t *w);

/* Marks the cut ops of the universe in is_cut (n entries) and returns how
 * many there are, or -1 without memory (blocks.c). */
int32_t lf__dp_cut_ops(const lf_graph *g, const uint8_t *in_u, uint8_t *is_cut);

/* 1 when the set being grown holds a cut op. Such a set holds everything
 * above the cut that its state lacks, so it is a candidate from that one
 * state only: priced once per run, it need not go into the cost memo. */
int lf__dp_set_holds_cut(const lf__exact *x);

/* The monotone lower bound of F_beta of the set being grown (what the
 * enumeration cuts at beta): no group holding the set needs less. */
int64_t lf__dp_set_need_floor(const lf__exact *x);

/* Its three terms: weights (summed), feature rows, largest weight block
 * (the floor is their sum). */
void lf__dp_set_need_terms(const lf__exact *x, int64_t *weights, int64_t *rows, int64_t *block);

/* The same floor for the n distinct ops in `ops` (the set being grown must be
 * empty; it is empty again on return). Stops adding ops once the floor
 * reaches `stop`, so the result is exact below stop and >= stop otherwise. */
int64_t lf__dp_floor_of(lf__exact *x, const int32_t *ops, int32_t n, int64_t stop);

/* Looks at the clock and the memory charge (extra: bytes the caller holds
 * beside the states and the memo); sets the status past a limit. */
void lf__dp_check_budget(lf__exact *x);
/* Sets the status to LF_ELIMIT naming `what` past `limit` and the option that
 * raises it (a status already set stays). */
void lf__dp_limit(lf__exact *x, const char *what, int64_t limit, const char *option);

#endif
