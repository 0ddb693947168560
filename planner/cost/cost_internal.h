/* Internals shared by the cost-model files: per-op constants, the working view
 * of one group, the row-window engine, the memo and the scheme table. */
#ifndef LF_COST_INTERNAL_H
#define LF_COST_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "planner/cost/cost.h"
#include "planner/optable.h"

/* Per-op constants, computed once per model. */
typedef struct lf__op_cost {
    lf_row_kind kind;       /* resolved: Flatten/Reshape become VIEW, REDUCTION or FULL */
    int32_t k, stride, pad; /* row window of WINDOW ops */
    int32_t linear;         /* RESIZE: reads two rows */
    int64_t h;              /* output height */
    int64_t row_bytes;      /* one output row: W * C * act_bytes */
    int64_t tensor_bytes;   /* whole output: N * C * H * W * act_bytes */
    int64_t weight_bytes;
    int64_t act_traffic;    /* lf_energy_act_traffic, once the model is set up */
    int64_t wblk;           /* one output channel's weights (BRR sub-block) */
    int32_t reads_spatial;  /* some input has H > 1 */
    /* Attention (DESIGN §16, attn_ops.c). A product of two activations
     * streams its A operand by rows; the operands in global_in (bit j:
     * activation input j) are read whole by every row: the group's pricing
     * (attn.c) keeps them resident or re-reads them per query tile, and the
     * row windows never ask rows of them. */
    uint8_t global_in;
    uint8_t score;          /* a score or probability map (S, scaled, masked, P): one head's
                               row at a time, row_bytes is per head */
    int32_t causal;         /* global product whose scores are causally masked: g >= 1 stacks
                               of query rows (grouped-query heads stacked along H), 0 none */
    uint8_t layout;         /* Transpose/Reshape: moves data, computes nothing */
    uint8_t tok_c;          /* tokens run along C (a head split [B, T, h, dh]): h and
                               row_bytes are per token */
    int32_t heads;          /* global product: heads it runs (its output's N x C) */
    int64_t row_floor;      /* a floor of the bytes any window of this tensor holds per
                               row (the exact planner's bound, lf_cost_row_floor) */
    /* A constant with the output's rows added element-wise (a learned
     * position table): it streams by rows beside the activations, read once
     * like an input; weight_bytes and wblk keep only one row of it. */
    int64_t stream_bytes;
    /* BRR, a MatMul by a constant matrix over several rows (a Linear, a
     * tied LM head): its output columns (0: not such an op) and one input
     * row's bytes, for tiling by output columns (brr.c). */
    int64_t col_m, col_krow;
} lf__op_cost;

/* Finds the attention structure of the graph (attn_ops.c): global
 * operands, head views, score maps, causal masks; adjusts the per-op
 * constants. Called once the constants of every op are set. */
void lf__attn_analyze(struct lf_cost_model *cm);



/* Ops per group waiting for a reduction (squeeze-and-excite multiplies)
 * whose start is evaluated as a snapshot of its own; real groups hold a
 * handful. */
#define LF__MAX_WAITS 64

/* A rational row scale (rows of a tensor per sink row). */
typedef struct lf__rat {
    int64_t num, den;
} lf__rat;

/* One held window of an evaluated snapshot and phase: it holds
 * min(span + growth(sigma, h), height) rows of row_bytes at h rows per step. */
typedef struct lf__row_term {
    int64_t span;
    lf__rat sigma;
    int64_t height;
    int64_t row_bytes;
    int32_t score; /* a window of a score or probability map (lf__op_cost.score) */
} lf__row_term;

/* A way the attention pricing (attn.c) counts one state's windows: the
 * score and probability maps' windows s apart from the others o, which div
 * heads in flight share (cdiv(o, div)); s is replaced by a score tile of
 * `tile` bytes where the state holds any (online softmax), or kept (tile <
 * 0). Every state's o and s grow with the tile height, and so does the
 * count: the attention need is monotone in the height by construction. */
typedef struct lf__count {
    int64_t div, tile;
} lf__count;
#define LF__MAX_COUNTS 4

/* Snapshot-phase-mode triples whose windows a group view keeps (rows.c). */
#define LF__MAX_STATES 128

/* Where the feature term peaks: which snapshot and which sink phase. */
typedef struct lf__peak {
    int32_t snapshot_op; /* -1: the group's sinks; else the op whose start is the snapshot */
    int32_t phase;
    int32_t n_snapshots;
} lf__peak;

/* Working view of one group. Local tensor indices: members first, ascending
 * by op id (so reverse order is reverse topological), then external inputs. */
typedef struct lf__group {
    const struct lf_cost_model *cm;
    int32_t n;            /* members */
    int32_t nt;           /* members + external inputs */
    int32_t *tensor;      /* local -> op id */
    int32_t *loc;         /* op id -> local, -1 elsewhere (size n_ops, restored on destroy) */
    uint8_t *out;         /* member's output is in Out(G) */
    /* Edges in local indices (group_view.c): member i reads local tensors
     * in_loc[in_off[i] .. in_off[i + 1]) in operand order; local tensor t is
     * read by members cons_loc[cons_off[t] .. cons_off[t + 1]), ascending. */
    int32_t *in_off, *in_loc, *cons_off, *cons_loc;
    int64_t *height;      /* per local tensor: its output height */
    uint8_t *active;      /* member is part of the current snapshot */
    uint8_t *sink;        /* member is a sink of the current snapshot */
    uint8_t *terminal;    /* reduction member whose result feeds no spatial op */
    uint8_t *post;        /* member computes a value that exists only after a reduction */
    uint8_t *inner;       /* member has a consumer inside the group: no sink of the group's own snapshot */
    int64_t *hv;          /* member's effective height (vectors after a reduction: its input H) */
    int32_t forward_done; /* post and hv are set (the same in every snapshot: rows.c) */
    int64_t *lo, *hi;     /* per local tensor window */
    lf__rat *sigma;       /* per local tensor row scale relative to the sinks */
    int32_t last;         /* last active member of the current snapshot (members after it are not) */
    int64_t href;         /* reference height of the sinks of the current snapshot */
    int64_t main_href;    /* reference height of the group's own sinks (BRR tiles) */
    int32_t one_window;   /* lo, hi, sigma, active and sink hold the group's only snapshot
                             and phase: the features at any h need only the sum (rows.c) */
    /* Squeeze-and-excite waits (DESIGN §5), bit k for the k-th wait of the
     * group (lf__wait_reread_bytes): a member's input l is read again after
     * a wait when after_mask[member] & before_mask[l] is not 0. */
    uint64_t *after_mask;  /* member depends on the op that waits */
    uint64_t *before_mask; /* local tensor read by an ancestor of the op that waits */
    int64_t *lo2, *hi2;    /* per local tensor: the window of its second read */
    int32_t wait_ops[LF__MAX_WAITS]; /* ops that wait for a reduction (lf__features finds them) */
    int32_t n_wait_ops;
    int32_t has_waits;     /* some tensor is read on both sides of a wait */
    int32_t reread_waits;  /* 1: such tensors are read again after the wait (a second
                              window each); 0: kept resident (one hull over both sides) */
    /* The windows of every snapshot and phase, kept from the first full
     * evaluation so that the features at another tile height h are sums
     * (BRR's bisection and steps); the generalisation of one_window. */
    lf__row_term *terms;   /* the thread's scratch; NULL: nothing is kept */
    int32_t n_terms, cap_terms;
    int32_t n_states, recording, record_failed;
    int32_t cached_modes;  /* bit m: the terms hold every state of reread_waits = m */
    int32_t cached_snapshots;
    /* A one_window group's windows merged by (span, row scale, height),
     * their row bytes added (rows.c), in terms[0 .. n_merged): the sum at
     * any h in a few terms. merged_mode: 1 + reread_waits they hold; 0:
     * none (reset whenever the windows are set again). */
    int32_t n_merged, merged_mode;
    /* 1: a full evaluation takes both ways through a wait at once, each
     * snapshot set up once for both (lf_cost_steps wants both); it finds
     * the waits' tensors on the way (masks_done, reread_bytes). */
    int32_t both_modes, masks_done;
    int64_t reread_bytes;
    int32_t full_evals;    /* lf__features calls that evaluated every snapshot */
    /* The attention pricing's ways of counting a state (n_count of them, at
     * most LF__MAX_COUNTS): lf__features leaves in count_max[w] the most any
     * state counts way w (the caller sets them to -1 first); it returns the
     * plain sum's maximum as ever. */
    const lf__count *count;
    int32_t n_count;
    int64_t count_max[4];
    void *scratch;        /* the thread's scratch the arrays belong to; NULL: own heap arrays */
    /* The kept states (n_states of them), last: written before they are
     * read, so a new view clears only what comes before (LF__GROUP_CLEAR). */
    int32_t state_start[LF__MAX_STATES + 1], state_snapshot[LF__MAX_STATES],
        state_phase[LF__MAX_STATES], state_mode[LF__MAX_STATES];
} lf__group;

/* The bytes of a group view that start cleared. */
#define LF__GROUP_CLEAR offsetof(lf__group, state_start)

lf_status lf__group_init(lf__group *G, const struct lf_cost_model *cm, const int32_t *members,
                         int32_t n);
/* Grows the view's term store (G->terms) to at least `want` entries; 0 when
 * it cannot (a view on the heap keeps no terms). */
int lf__group_grow_terms(lf__group *G, int32_t want);
void lf__group_destroy(lf__group *G);

/* DRAM bytes of the group's distinct inputs and outputs. */
void lf__group_io(const lf__group *G, int64_t *in_bytes, int64_t *out_bytes);
int64_t lf__group_weights(const lf__group *G);
int64_t lf__group_wblk(const lf__group *G);

/* Feature bytes when each step produces h rows of the sinks: the maximum over
 * the snapshots (the sinks, and the start of every op that waits for a
 * reduction) and over one period of sink phases. `peak` may be NULL. */
int64_t lf__features(lf__group *G, int64_t h, lf__peak *peak);

/* Finds the tensors read before and after a wait and sets the masks and
 * has_waits; returns the DRAM bytes of reading them all again (a tensor
 * that lives only inside the group is written and read: twice its size),
 * 0 when none. Call after lf__features, which finds the waits; the answer
 * is kept (masks_done). */
int64_t lf__wait_reread_bytes(lf__group *G);

/* Re-evaluates one snapshot and phase at h = 1 and fills rows[] (nt entries). */
void lf__features_explain(lf__group *G, const lf__peak *peak, lf_window_row *rows, int32_t *n_rows);

/* The two sides of a group that holds a cut op (cut_sides.c; DESIGN §7).
 * Head (members: the cut op first, then the ops above it): selects the
 * group's own snapshot and returns its number of sink phases, or -1 when an
 * op waits for a reduction; lf__head_windows then sets the windows of one
 * phase at h = 1. Tail (members: the ops below the cut op, then the cut op
 * last): lf__tail_scales propagates the cut op's row scale, and then
 * lf__tail_windows its window [lo, hi] of each phase, nothing else being a
 * sink (the scales are the same in every phase). lf__window_terms lists what
 * lf__window_sum adds up for the current windows, less the skipped local
 * tensors (-1 past cap); lf__term_bytes prices one term at h. */
int32_t lf__head_setup(lf__group *G);
void lf__head_windows(lf__group *G, int32_t phase);
void lf__tail_scales(lf__group *G, int64_t sigma_num, int64_t sigma_den);
void lf__tail_windows(lf__group *G, int64_t lo, int64_t hi);
int32_t lf__window_terms(const lf__group *G, const uint8_t *skip, lf__row_term *terms, int32_t cap);
int64_t lf__term_bytes(const lf__row_term *t, int64_t h);

/* What a scheme prices a group from: its DRAM sums and its feature bytes as
 * a function of the tile height h. A group view is one source (model.c); a
 * group joined from its two sides at a cut op is another (cut_sides.c).
 * height is read after features(ctx, 1, ...) has run (a view finds its
 * sinks' height there). With a limit, a scheme may stop as soon as it knows
 * F_D exceeds it (f_d is then only known to be larger). */
typedef struct lf__priced {
    int64_t in, out, weights, wblk;
    /* A group of one MatMul by a constant (lf__op_cost.col_m): output
     * columns, one input row's bytes, the input's bytes, one output
     * element's bytes; col_m = 0 for any other group. */
    int64_t col_m, col_krow, col_x, col_a;
    const int64_t *height;
    int64_t limit; /* F_D above it need not be exact (INT64_MAX: always exact) */
    int keep_all;  /* steps: every schedule, none dropped (lf_cost_schedules) */
    int64_t (*features)(void *ctx, int64_t h, lf__peak *peak);
    void *ctx;
} lf__priced;

/* A scheme prices a group's F_beta, F_D and schedule. A new scheme is one
 * file defining one of these, listed in model.c's table. */
typedef struct lf__scheme {
    const char *name;
    lf_status (*price)(const lf__priced *p, int64_t beta, lf_group_cost *out, lf__peak *peak);
    /* The group's F_D as a step function of the buffer (lf_cost_steps). */
    lf_status (*steps)(const lf__priced *p, int64_t below, lf_cost_step *steps, int32_t cap,
                       int32_t *n);
    /* 1 when a group priced from p is certainly invalid or has F_D above
     * p->limit, p->features being only a floor of its feature bytes (exact
     * at h = 1); 0 when it may be valid within the limit. Both only get
     * worse as the feature bytes grow, so the floor decides for the group. */
    int (*settles)(const lf__priced *p, int64_t beta);
    /* Op c's weight charge in F_beta (lf_cost_weight_bound): the planners'
     * monotone lower bound is features + sum of terms + max of blocks. */
    void (*weight_bound)(const lf__op_cost *c, int64_t *term, int64_t *block);
    int weights_resident; /* 1: a group's whole weights stay on chip (lf_cost_weights_resident) */
} lf__scheme;

/* Appends (need, f_d) to a step list kept Pareto-sorted (need ascending,
 * f_d strictly descending); drops what the new step dominates (steps.c,
 * below the schemes and the model). */
lf_status lf__step_push(lf_cost_step *steps, int32_t cap, int32_t *n, int64_t need, int64_t f_d);
/* The same where p->keep_all: inserted by need, none dropped. */
lf_status lf__step_push_p(const lf__priced *p, lf_cost_step *steps, int32_t cap, int32_t *n, int64_t need,
                          int64_t f_d);

/* The pricing source of a group view: its sums, and lf__features. */
void lf__group_priced(lf__group *G, lf__priced *p);

/* Prices a group that holds a product of two activations (attn.c):
 * sets *handled to 0 for any other group (the scheme prices it). */
lf_status lf__attn_price(lf__group *G, const lf__scheme *scheme, int64_t beta,
                         lf_group_cost *out, lf__peak *peak, int *handled);
/* An attention group whose windows come from elsewhere than a view (a pair
 * joined at a cut op, cut_sides.c): counts(ctx, h, ways, n, max) sets
 * max[w] to the most any state of the group's schedule holds at h query
 * rows, counted way w (lf__count). lf__attn_keep keeps in `kept`
 * (lf__attn_kept_size bytes) what the pricing reads of view G besides its
 * windows and DRAM sums (*present: G holds a product of two activations;
 * *per_head: its heads may run one after another, which depends on every
 * member); lf__attn_kept_steps walks lf__attn_steps's steps from it, with
 * the DRAM sums of p and the windows from counts. */
/* lf_cost_steps of `group` with the steps computed by fn where the memo of
 * copies one block away does not answer (a pair priced from its two
 * sides, cut_sides.c): fn must give what lf_cost_steps would. */
typedef lf_status (*lf__steps_fn)(void *ctx, int64_t below, lf_cost_step *steps, int32_t cap, int32_t *n);
lf_status lf__steps_keyed(struct lf_cost_model *cm, const lf_bitset *group, int64_t below, lf_cost_step *steps,
                          int32_t cap, int32_t *n, lf__steps_fn fn, void *ctx);
typedef void (*lf__attn_counts)(void *ctx, int64_t h, const lf__count *ways, int32_t n, int64_t *max);
size_t lf__attn_kept_size(void);
lf_status lf__attn_keep(lf__group *G, const lf__scheme *scheme, void *kept, int *present, int *per_head);
lf_status lf__attn_kept_steps(const void *kept, const lf__priced *p, lf__attn_counts counts, void *ctx,
                              int64_t below, lf_cost_step *steps, int32_t cap, int32_t *n);
lf_status lf__attn_steps(lf__group *G, const lf__scheme *scheme, int64_t below,
                         lf_cost_step *steps, int32_t cap, int32_t *n, int *handled);
/* The prices lf__attn_price gives from lo to below (lf_cost_attn_prices). */
lf_status lf__attn_prices(lf__group *G, const lf__scheme *scheme, int64_t lo, int64_t below,
                          lf_cost_sched **out, int32_t *n, int *handled);

/* A streamed K/V's reads over r = ceil(hq / h) query tiles of h rows (attn.c,
 * DESIGN §16): `bytes` of nk key rows (all heads), read by hq query rows in
 * `causal` stacks of grouped-query heads (0: not causal, every tile reads it
 * whole); a causal tile reads the keys up to its diagonal. The floor stays
 * at or below the reads at h and at every smaller height, and only grows as
 * h falls (lf__cheapest stops on it). Internal; tests/test_kv_reads.c checks
 * both against a tile-by-tile walk. */
int64_t lf__kv_reads(int64_t hq, int64_t nk, int64_t bytes, int32_t causal, int64_t r, int64_t h);
int64_t lf__kv_reads_floor(int64_t hq, int64_t nk, int64_t bytes, int32_t causal, int64_t r,
                           int64_t h);

/* The schemes, one row each in the order help texts list them: the row
 * X(NAME) stands for `lf__scheme_NAME`, defined in cost/NAME.c with .name
 * "NAME". cost/model.c makes the scheme table and the registry's name list
 * (lf_names(LF_NAMES_SCHEME)) from these rows. */
#define LF__SCHEMES(X) X(lbdf) X(brr)

#define LF__SCHEME_DECLARE(n) extern const lf__scheme lf__scheme_##n;
LF__SCHEMES(LF__SCHEME_DECLARE)
#undef LF__SCHEME_DECLARE

/* Thread-safe memo of group costs keyed by the group bitset. */
typedef struct lf__memo lf__memo;
lf_status lf__memo_create(lf__memo **m);
void lf__memo_free(lf__memo *m);
int lf__memo_get(lf__memo *m, const lf_bitset *key, lf_group_cost *out);
lf_status lf__memo_put(lf__memo *m, const lf_bitset *key, const lf_group_cost *cost);
void lf__memo_stats(const lf__memo *m, int64_t *hits, int64_t *misses, int64_t *entries,
                    int64_t *bytes, int64_t *evictions);
int64_t lf__memo_limit(lf__memo *m, int64_t bytes); /* returns the previous limit */

struct lf_cost_model {
    const lf_graph *g;
    lf_hw hw;
    const lf__scheme *scheme;
    lf__op_cost *ops;
    uint8_t *fusable;
    int32_t n_unfusable;
    int32_t has_attn; /* some product reads a global-window operand (attn_ops.c) */
    lf__memo *memo;
    lf_hw_energy energy; /* lf_hw_energy_model of hw, once (energy.c prices with it) */
    int32_t objective;   /* lf_plan_objective (objective.c) */
    /* Repeated blocks (shift.c): ops v and v + shift_p alike; per op, four
     * runs of n_ops (moves down as a member, as an external input, then
     * the same upwards); shift_p 0: none. */
    int32_t shift_p;
    int32_t *shift_runs;
    struct lf__steps_memo *steps_memo; /* staircases of such groups (steps_memo.c) */
};

/* The staircases of groups with a copy, by canonical copy (steps_memo.c):
 * thread-safe; get returns 1 and fills steps[0..*n) when kept. */
typedef struct lf__steps_memo lf__steps_memo;
lf_status lf__steps_memo_create(lf__steps_memo **out);
void lf__steps_memo_free(lf__steps_memo *m);
int lf__steps_memo_get(lf__steps_memo *m, const lf_bitset *key, int64_t below, lf_cost_step *steps,
                       int32_t cap, int32_t *n);
/* lf__steps_memo_get for a caller that does not know the length: a copy
 * in *steps (free it), 1 when kept. */
int lf__steps_memo_get_copy(lf__steps_memo *m, const lf_bitset *key, int64_t below, int32_t cap,
                            lf_cost_step **steps, int32_t *n);
lf_status lf__steps_memo_put(lf__steps_memo *m, const lf_bitset *key, int64_t below,
                             const lf_cost_step *steps, int32_t cap, int32_t n);

/* Op v's tile floor over the reference heights H in [hmin, hv) below its
 * own effective height hv = fhv[v] (tile_path.c): each such group holds a
 * path from v to a lower op or a vector, and the least footprint of one
 * bounds the tile height. fhv: per op its fixed effective height (0: a
 * vector); scaled: sigma * H >= scaled; hx, rbx: the input window charged
 * (its height and row bytes). INT64_MAX when no such group fits; dist:
 * n_ops doubles of scratch. */
typedef struct lf__tile_path {
    const int64_t *fhv, *scaled;
    int64_t hx, rbx;
} lf__tile_path;
int64_t lf__tile_path_floor(const struct lf_cost_model *cm, const lf__tile_path *p, int32_t v, int64_t hmin,
                            double *dist);

/* Per op v and fixed height H: the least rows a path of fusable ops from v
 * down to the first op at most H high (a vector: 0) holds, every row
 * counted as lf__set_height counts it (height_reach.c); n_heights 0: no
 * table. lf__height_reach_cost: that least for the heights at most
 * `useless` (1e300: none). */
typedef struct lf__height_reach {
    int32_t n_heights;
    int64_t *heights; /* the distinct fixed heights, ascending */
    double *cost;     /* n_ops x n_heights */
} lf__height_reach;
void lf__height_reach_build(const struct lf_cost_model *cm, const int64_t *fhv, lf__height_reach *r);
double lf__height_reach_cost(const lf__height_reach *r, int32_t v, int64_t useless);
/* The lowest fixed height such a path from v reaches within left (INT64_MAX:
 * none; -1: no table). */
int64_t lf__height_reach_least(const lf__height_reach *r, int32_t v, double left);
void lf__height_reach_free(lf__height_reach *r);
/* lf_cost_tiles_use_set_paths(t, 1) with every set height found by the
 * search alone, without the table (tile_floor.c): the tests check that
 * the table changes no floor. */
void lf__tiles_set_paths_searched(struct lf_cost_tiles *t);

/* The frontier of reduction r (an input of which is u) in out (at most
 * cap): the first ops reading a spatial map on every path from r
 * (neck_wait_frontier.c). Its count, or -1 when one of them does not read
 * u or is itself a reduction, when an op on the way reads something whole
 * or is no row window, view or reduction, or when cap is passed: then
 * nothing is known of u's rows below r. */
int32_t lf__wait_frontier(const lf_graph *g, const lf__op_cost *oc, int32_t r, int32_t u, int32_t *out,
                          int32_t cap);

/* Finds the graph's period and the runs (shift.c); call once the per-op
 * constants and fusability are set. */
lf_status lf__shift_analyze(struct lf_cost_model *cm);
/* How many times the group may move down by shift_p and keep its price
 * (0: it is its own canonical copy); *up_moves: how many times up. */
int32_t lf__shift_moves(const struct lf_cost_model *cm, const lf_bitset *group, int32_t *up_moves);
/* out = group moved down by `bits` op ids (same size, initialised). */
void lf__shift_down(const lf_bitset *group, int32_t bits, lf_bitset *out);

#endif
