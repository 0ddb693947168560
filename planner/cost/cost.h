/* Cost models of a fusion group: F_beta (on-chip buffer bytes the group needs)
 * and F_D (bytes it moves between DRAM and the buffer), exactly as DESIGN §5
 * and docs/cost-models.md describe them.
 *
 * A cost model binds a graph, a hardware description and a scheme (LBDF or
 * BRR). Evaluations are pure functions of the group, memoized per group bitset
 * and safe to call from many threads at once. */
#ifndef LF_COST_H
#define LF_COST_H

#include <stdint.h>
#include <stdio.h>

#include "hwdesc/hw.h"
#include "planner/graph.h"
#include "planner/util/bitset.h"

typedef struct lf_group_cost {
    int64_t f_beta;       /* buffer requirement deciding validity (F_beta < beta) */
    int64_t f_d;          /* DRAM bytes: inputs + outputs + weight_reads * weights
                             + reread_bytes */
    int64_t mbu;          /* buffer the chosen schedule uses (BRR: with its tile height) */
    int64_t weights;      /* sum of the ops' weight bytes */
    int64_t features;     /* feature (row window) bytes for one output row step */
    int64_t in_bytes;     /* distinct tensors read from DRAM */
    int64_t out_bytes;    /* distinct tensors written to DRAM */
    int32_t weight_reads; /* R_W: how often the weights are read from DRAM */
    int32_t tile_rows;    /* BRR: output rows per tile h* (1 under LBDF) */
    int32_t steps;        /* row steps the schedule runs: ceil(reference height /
                             tile_rows); the energy model reads the weights from the
                             buffer once per step (planner/cost/energy.c) */
    int32_t valid;        /* f_beta < beta */
    /* A tensor read before a squeeze-and-excite wait inside the group and
     * again after it (an MBConv block's input, read by the expand conv and
     * by the final add) stays resident for the wait or is read from DRAM a
     * second time, whichever is valid with the lower F_D (DESIGN §5). */
    int32_t wait_resident; /* 1: such tensors are kept (their whole maps count in f_beta) */
    int64_t reread_bytes;  /* > 0: read again instead, these bytes (a tensor only the group
                              uses is written and read: twice its size) */
    /* Attention (DESIGN §16, docs/cost-models.md "Attention"): a group that
     * holds a product of two activations. attn is 0 for any other group,
     * else LF_ATTN_* bits saying how it runs. */
    int32_t attn;
    int32_t attn_br, attn_bc; /* query rows per tile, key rows per block (the
                                 whole key row without online softmax) */
    int32_t kv_reads;         /* query tiles: times a streamed K/V is read (1: resident) */
    int64_t kv_bytes;         /* the K and V (global-window operands) the group reads */
    int64_t kv_dram;          /* DRAM added by streaming them (re-reads, and the write of a
                                 K/V made inside the group) */
    int64_t pass_dram;        /* DRAM added by reading the group's inputs again after a
                                 K/V made inside it is complete */
    /* BRR, a lone MatMul by a constant tiled by output columns (brr.c):
     * col_bc columns of the matrix on chip at a time, col_blocks blocks,
     * the input read once per block (col_dram: the reads after the first).
     * 0 when tiled by rows. col_able: such an op, whose f_beta is then one
     * input row, one column and one output (the least of both ways). */
    int32_t col_bc, col_blocks, col_able;
    int64_t col_dram;
} lf_group_cost;

enum {
    LF_ATTN_PRESENT = 1,    /* the group holds a product of two activations */
    LF_ATTN_HEADS = 2,      /* heads one after another, each head's K/V on its own */
    LF_ATTN_RESIDENT = 4,   /* K/V held whole (read once) rather than streamed */
    LF_ATTN_ONLINE = 8,     /* scores in Br x Bc blocks with online softmax */
    LF_ATTN_CAUSAL = 16,    /* causal: query tile i reads keys up to its diagonal */
    LF_ATTN_CORE = 32       /* scores, softmax and the value product all inside */
};

typedef struct lf_cost_model lf_cost_model;

typedef struct lf_cost_stats {
    int64_t hits, misses; /* memo lookups */
    int64_t entries;
    int64_t bytes;        /* memory the memo holds now (entries and map slots) */
    int64_t evictions;    /* entries dropped to stay under the memo's limit */
} lf_cost_stats;

/* The memo of every cost model holds at most this many bytes unless
 * lf_cost_memo_limit says otherwise (evicted entries are recomputed). */
#define LF_COST_MEMO_DEFAULT_LIMIT ((int64_t)1 << 30)

/* Names of the built-in schemes ("lbdf", "brr"), NULL-terminated. */
const char *const *lf_cost_scheme_names(void);

/* Creates a model for graph g (which must outlive it) under hardware hw and
 * the scheme named `scheme`; unknown names give LF_ENOTFOUND. Marks fusable
 * ops (an op invalid even alone is unfusable). */
lf_status lf_cost_model_create(lf_cost_model **cm, const lf_graph *g, const lf_hw *hw,
                               const char *scheme);
void lf_cost_model_free(lf_cost_model *cm);
/* cm as lf_cost_model_create makes it with the buffer set to beta (the same
 * prices, fusable ops and repeated blocks; its memos emptied, their limit
 * kept), without pricing again every op alone where beta is no smaller
 * than the buffer before (an op fusable alone stays so as the buffer
 * grows): a staircase's report prices each step's plan at its buffer
 * (search/sweep/curve_report.c). On a failure cm is only fit to free. */
lf_status lf_cost_model_rebuffer(lf_cost_model *cm, int64_t beta);

const lf_graph *lf_cost_graph(const lf_cost_model *cm);
const lf_hw *lf_cost_hw(const lf_cost_model *cm);
const char *lf_cost_scheme_name(const lf_cost_model *cm);
int64_t lf_cost_beta(const lf_cost_model *cm);

/* 1 when op v can belong to a valid group (graph inputs are never fusable:
 * they are not computed and belong to no group). */
int lf_cost_fusable(const lf_cost_model *cm, int32_t v);
int32_t lf_cost_unfusable_count(const lf_cost_model *cm);

/* The scheme's weight charge of op v in F_beta, for planners that bound a
 * group before pricing it: F_beta(G) >= features + sum over members of term
 * + max over members of block, and the bound only grows as ops join (it is
 * monotone). LBDF: term = the op's weight bytes, block 0 (all weights stay on
 * chip); BRR: term 0, block = one output channel's weights (the rest
 * streams). */
void lf_cost_weight_bound(const lf_cost_model *cm, int32_t v, int64_t *term, int64_t *block);

/* Bytes of one output row of op v (width x channels x activation bytes):
 * the unit of every row window the model prices. */
int64_t lf_cost_row_bytes(const lf_cost_model *cm, int32_t v);

/* A floor of the bytes any group holds per row of op v's output in a
 * window (score maps can shrink to online-softmax blocks, and a group whose
 * heads run one after another holds a head's share of a row): the exact
 * planner's monotone bound uses it. Equal to lf_cost_row_bytes in graphs
 * without attention. */
int64_t lf_cost_row_floor(const lf_cost_model *cm, int32_t v);

/* 1 when op v alone may be tiled by output columns (BRR, a MatMul by a
 * constant: brr.c): its F_beta is then one input row, one column and one
 * output element, so the row floors above do not bound a group of v alone. */
int lf_cost_column_tiled(const lf_cost_model *cm, int32_t v);

/* 1 when the cost model treats op v's output as a zero-copy view. */
int lf_cost_view(const lf_cost_model *cm, int32_t v);

/* 1 when activation input j of op v is a global-window operand (the K or V
 * of a product of two activations): read whole, it holds no row window. */
int lf_cost_global_operand(const lf_cost_model *cm, int32_t v, int32_t j);
/* 1 when the n ops `members` hold a product of two activations: such a group
 * is priced as an attention group at every buffer (lf_group_cost.attn set),
 * which this says without pricing it. */
int lf_cost_group_attn(const lf_cost_model *cm, const int32_t *members, int32_t n);

/* Activation bytes op v moves in the buffer: its inputs' whole tensors read
 * and its output written, 0 for a zero-copy view (lf_energy_act_traffic). */
int64_t lf_cost_act_traffic(const lf_cost_model *cm, int32_t v);

/* Bytes of op v's whole output (N x C x H x W x activation bytes): what a
 * group that reads it from outside, or writes it out, moves over DRAM. */
int64_t lf_cost_tensor_bytes(const lf_cost_model *cm, int32_t v);

/* Bytes of op v's weights (what one read of them moves over DRAM). */
int64_t lf_cost_weight_bytes(const lf_cost_model *cm, int32_t v);
/* The bytes of constants op v reads once per pass: its weights plus the
 * row-shaped constants it streams (position rows, an embedding lookup's rows). */
int64_t lf_cost_const_read_bytes(const lf_cost_model *cm, int32_t v);

/* 1 when the model's scheme keeps a group's whole weights on chip (LBDF: a
 * group's F_D is one step, whatever the buffer), 0 when weights stream
 * (BRR). lf_cost_scheme_weights_resident asks by name (-1: unknown). */
int lf_cost_weights_resident(const lf_cost_model *cm);
int lf_cost_scheme_weights_resident(const char *scheme);

/* A floor of F_D under every scheme, cheap enough to ask before pricing:
 * the group's distinct outside inputs read once, its members that a graph
 * output or an outside consumer needs written once, and its weights read
 * once (LBDF's F_D exactly; BRR adds weight re-reads per row tile and
 * squeeze-and-excite re-reads). members: the group's op ids (any order);
 * in_group[v] nonzero exactly for members; seen: n_ops zero bytes of
 * scratch, zero again on return. */
int64_t lf_cost_fd_floor(const lf_cost_model *cm, const int32_t *members, int32_t n, const uint8_t *in_group,
                         uint8_t *seen);

/* A floor on how often BRR reads each op's weights: for every valid group G
 * holding op v whose weights do not all fit beside its windows (sum of the
 * weights + F_feat(G, 1) >= beta), G's weight_reads >= tiles[v] (n_ops
 * entries, each >= 1; all 1 where the scheme keeps weights resident). From
 * v's own input and output windows at the smallest row scale and reference
 * height any group can give v (tile_floor.c); for lower bounds on the DRAM
 * of every plan. */
lf_status lf_cost_tile_floors(const lf_cost_model *cm, int32_t *tiles);

/* The same floors kept for sets of ops (one caller at a time: the object
 * keeps scratch space). lf_cost_tiles_of_set: a floor on the weight reads
 * of every valid group holding the n distinct ops `members` whose weights
 * do not all fit beside its windows: the largest member floor, or more from
 * the windows of all the members' tensors summed at the least row scales
 * and reference height such a group can give them. */
typedef struct lf_cost_tiles lf_cost_tiles;
lf_status lf_cost_tiles_create(const lf_cost_model *cm, lf_cost_tiles **out);
void lf_cost_tiles_free(lf_cost_tiles *t);
const int32_t *lf_cost_tiles_ops(const lf_cost_tiles *t); /* per op, as lf_cost_tile_floors */
int32_t lf_cost_tiles_of_set(lf_cost_tiles *t, const int32_t *members, int32_t n);
/* lf_cost_tiles_of_set, or 0 when no valid group holds the set: the
 * windows of all the members' tensors at one row (the sum it starts from)
 * and the largest weight block already reach beta (never 0 where the
 * scheme keeps weights resident). */
int32_t lf_cost_tiles_of_set_fitting(lf_cost_tiles *t, const int32_t *members, int32_t n);
/* With on, lf_cost_tiles_of_set also proves the set's own reference height
 * where no path from its tallest member to a lower op fits beside it
 * (tile_floor.c, lf__set_height): a pass over the ops below that member. */
void lf_cost_tiles_use_set_paths(lf_cost_tiles *t, int on);
/* The same for groups that keep the map of op `map`'s tensor resident
 * through the wait of member `waiter` on a reduction of it, also a member
 * (a squeeze-and-excite wait: planner/exact/wait_pairs.c). The map is
 * whole only in the snapshot at the waiter's start, with the waiter's
 * ancestors active (rows.c): the floor sums that snapshot's windows, the
 * map whole and the waiter's rows growing with the tile. 0 when those at
 * one row already reach beta: no valid group holds the set and keeps the
 * map. */
int32_t lf_cost_tiles_of_set_holding(lf_cost_tiles *t, const int32_t *members, int32_t n, int32_t map,
                                     int32_t waiter);
/* Sharper floors where something far below an op could stop its rows (a
 * squeeze-and-excite wait past the stage, which makes the slack above
 * unbounded): `together(ctx, path, n)` is 0 only when no valid group holds
 * the n ops of `path` (a path between its first and last op, listed from
 * the end: planner/exact/tile_reach.c tests its monotone F_beta floor); the
 * slack of op v is then found over the ops below v reached along paths that
 * pass, at most max_tests paths per op (tile_floor.c). */
lf_status lf_cost_tiles_refine(lf_cost_tiles *t, int (*together)(void *ctx, const int32_t *path, int32_t n),
                               void *ctx, int32_t max_tests);

/* Evaluates a group (non-empty set of non-input ops); memoized and
 * thread-safe. Groups need not be connected or valid. */
lf_status lf_cost_eval(lf_cost_model *cm, const lf_bitset *group, lf_group_cost *out);

/* The same evaluation without the memo (neither looked up nor filled): for
 * callers that know the group will not be asked for again (the exact
 * planner's groups that span a cut op), so the memo keeps what is reused.
 * A group with a copy one repeated block away (the layers of a transformer,
 * planner/cost/shift.c) is asked again as that copy, and goes through the
 * memo under its canonical copy like lf_cost_eval. */
lf_status lf_cost_eval_once(lf_cost_model *cm, const lf_bitset *group, lf_group_cost *out);

/* The canonical copy of a group (shift.c): moved down by the repeated
 * block's period as far as its copies are priced alike, the group itself
 * where it has none; into key, of the group's size. Copies of a group have
 * the same, and are priced alike at every buffer. */
void lf_cost_canonical(const lf_cost_model *cm, const lf_bitset *group, lf_bitset *key);

/* The evaluation of the n distinct ops `members` as if the buffer were
 * beta (not the model's): no memo. The staircase prices each of a group's
 * buffer steps with it where the objective needs the schedule's row steps. */
lf_status lf_cost_eval_at(lf_cost_model *cm, const int32_t *members, int32_t n, int64_t beta,
                          lf_group_cost *out);

/* DRAM of op v alone charged by the BRR rule (weights streamed per row tile):
 * how the all-ops metric charges an unfusable op under any scheme. */
lf_status lf_cost_unfusable_dram(lf_cost_model *cm, int32_t v, int64_t *bytes);

void lf_cost_stats_get(const lf_cost_model *cm, lf_cost_stats *st);

/* Sets the memo's byte limit (0: unbounded) and returns the previous one.
 * Not thread-safe: call it while no evaluation runs. Results never depend on
 * it; only how often a group is recomputed. */
int64_t lf_cost_memo_limit(lf_cost_model *cm, int64_t bytes);

/* ---- a group's cost as a function of the buffer (fusionplan curve) ------ */

/* At buffer beta a group is valid when steps[0].need < beta, and its F_D is
 * steps[k].f_d for the largest k with steps[k].need < beta: needs ascend,
 * F_D strictly descends. LBDF has one step (F_beta, F_D); under BRR the
 * weights are re-read once per row tile, so every larger tile (and finally
 * all weights resident) is one more step. The hardware's buffer size plays no
 * part; steps with need >= `below` are left out. */
typedef struct lf_cost_step {
    int64_t need; /* the buffer must exceed this */
    int64_t f_d;
} lf_cost_step;

#define LF_COST_MAX_STEPS 256

lf_status lf_cost_steps(lf_cost_model *cm, const lf_bitset *group, int64_t below,
                        lf_cost_step *steps, int32_t cap, int32_t *n);

/* Every schedule of op v alone that its scheme's steps walk (BRR: each row
 * tile that lowers its weight reads, all weights resident, each column
 * block width), by need, none dropped: with its F_D, which need not fall.
 * A lone MatMul tiled by columns (lf_cost_column_tiled) runs by rows where
 * rows tie the columns' F_D, at other row steps and weight reads: its
 * energy can fall where its F_D does not, at one of these needs. */
lf_status lf_cost_op_schedules(lf_cost_model *cm, int32_t v, int64_t below, lf_cost_step *steps, int32_t cap,
                               int32_t *n);

/* The steps hold where F_D changes. Energy and latency also grow with the
 * row steps the schedule runs (lf_group_cost.steps), which follow F_D's
 * steps (BRR's row steps are its weight reads; LBDF runs one schedule)
 * except in an attention group, whose query tiles may grow while F_D stays
 * (the price takes the least F_D, and among equal ones the largest tile).
 * For such a group of the n distinct ops `members`, what lf_cost_eval_at
 * gives at every buffer in [lo, below] as pieces: out[k] holds from
 * out[k].at (out[0].at = lo) to the next piece, each differing from the
 * one before; *out is allocated here (free it). NULL and *n_out 0 for any
 * other group. */
typedef struct lf_cost_sched {
    int64_t at;    /* the smallest buffer of the piece */
    int64_t f_d;   /* lf_group_cost.f_d there */
    int64_t steps; /* lf_group_cost.steps there */
    int32_t valid;
} lf_cost_sched;

lf_status lf_cost_attn_prices(lf_cost_model *cm, const int32_t *members, int32_t n, int64_t lo, int64_t below,
                              lf_cost_sched **out, int32_t *n_out);

/* A store of staircases by group (steps_memo.c) that outlives a cost
 * model: the staircase of energy or latency runs one model per part of its
 * range (planner/exact/curve.c) and keeps each group's figures for the next
 * parts. Keyed by the group and `below`; the store stops growing at
 * max_bytes (entries and their map slots), so it changes the time and
 * never the answer; locked. */
typedef struct lf__steps_memo lf_steps_store;
lf_status lf_steps_store_create(lf_steps_store **out, int64_t max_bytes);
void lf_steps_store_free(lf_steps_store *m);
/* 1 and steps[0..*n) when kept, else 0. */
int lf_steps_store_get(lf_steps_store *m, const lf_bitset *group, int64_t below,
                       lf_cost_step *steps, int32_t cap, int32_t *n);
/* The same without a copy: *steps points into the store, whose entries
 * stay as they are until it is freed (the staircase reads hundreds of an
 * attention group's prices per look-up; copying them was a tenth of the
 * passes after the first, bert_base BRR energy). */
int lf_steps_store_peek(lf_steps_store *m, const lf_bitset *group, int64_t below, int32_t cap,
                        const lf_cost_step **steps, int32_t *n);
lf_status lf_steps_store_put(lf_steps_store *m, const lf_bitset *group, int64_t below,
                             const lf_cost_step *steps, int32_t cap, int32_t n);
/* 1 when the store keeps no more groups (its memory limit is reached). */
int lf_steps_store_full(lf_steps_store *m);

/* lf_cost_steps, and each step k whose successor needs at least `from`
 * (the last always) priced as lf_cost_eval_at would at buffer
 * steps[k].need + 1 into at[k] (the others zeroed), from the step walk's own
 * view of the group, which is most of the price: the staircase of energy or
 * latency (planner/exact/curve.c) reads the schedule there. An attention
 * group (lf_cost_group_attn) is not priced, every at[k] zeroed: the
 * staircase prices it at every buffer of its range instead
 * (lf_cost_attn_prices). *priced is 0
 * when the steps came from the memo of a group's copies (steps_memo.c) and
 * at[] is unset: the caller prices them itself. */
lf_status lf_cost_steps_priced(lf_cost_model *cm, const lf_bitset *group, int64_t below,
                               int64_t from, lf_cost_step *steps, lf_group_cost *at, int32_t cap,
                               int32_t *n, int *priced);

/* DRAM of op v alone at buffer beta in the all-ops metric: as a group of
 * the scheme where it fits (F_beta < beta), otherwise by the BRR rule at
 * beta (lf_cost_unfusable_dram at the model's buffer). */
lf_status lf_cost_singleton_at(lf_cost_model *cm, int32_t v, int64_t beta, int64_t *f_d);

/* What op v alone costs at every buffer from lo on in the all-ops metric
 * (lf_cost_singleton_at), as steps: the price at lo needs no buffer at all
 * (steps[0].need = 0). Exact where that price does not rise inside the range
 * (lf_cost_singleton_rises). */
lf_status lf_cost_singleton_steps(lf_cost_model *cm, int32_t v, int64_t lo, int64_t below,
                                  lf_cost_step *steps, int32_t cap, int32_t *n);

/* Appends to cuts (n of them) the buffers t in (lo, hi] where op v alone
 * costs more at t than at t - 1 (the steps, which only fall, cannot say so):
 * at most two, where it starts to fit under the scheme or under BRR. */
lf_status lf_cost_singleton_rises(lf_cost_model *cm, int32_t v, int64_t lo, int64_t hi, int64_t *cuts,
                                  int32_t *n);

/* ---- explanation of one evaluation (for `fusionplan cost`) -------------- */

typedef enum lf_tensor_role {
    LF_ROLE_INPUT,    /* produced outside the group, read inside */
    LF_ROLE_INTERNAL, /* produced and read inside only */
    LF_ROLE_OUTPUT,   /* produced inside, read outside (or a graph output) */
    LF_ROLE_BOTH      /* produced inside, read inside and outside */
} lf_tensor_role;

typedef enum lf_wait_choice {
    LF_WAIT_NONE = 0, /* not read on both sides of a wait */
    LF_WAIT_RESIDENT, /* kept whole in the buffer through the wait */
    LF_WAIT_REREAD    /* read from DRAM again after the wait */
} lf_wait_choice;

typedef struct lf_window_row {
    int32_t tensor;      /* op id of the producer */
    lf_tensor_role role;
    int32_t view;        /* 1: zero-copy view inside the group (costs no rows) */
    int64_t lo, hi;      /* row interval of the window (offsets; may exceed the map) */
    int64_t rows;        /* rows held = min(H, hi - lo + 1); 0 when not read inside */
    int64_t staging;     /* output staging rows (1 for outputs) */
    int64_t row_bytes;   /* W * C * act_bytes */
    int64_t bytes;       /* (rows + rows2 + staging) * row_bytes */
    int64_t dram_bytes;  /* bytes moved to or from DRAM for this tensor (a second read after
                            a wait included) */
    lf_wait_choice wait; /* read before and after a squeeze-and-excite wait: what the cost
                            model chose for it */
    int64_t lo2, hi2;    /* LF_WAIT_REREAD: the window of the read after the wait */
    int64_t rows2;       /* its rows (0 otherwise) */
} lf_window_row;

typedef struct lf_cost_report {
    lf_group_cost cost;
    int32_t n_rows;
    lf_window_row *rows;     /* one per tensor read or written by the group */
    char snapshot[160];      /* which moment of the schedule gives the peak */
    int32_t phase;           /* sink row phase at the peak */
    int32_t n_snapshots;     /* snapshots evaluated (1 + reduction phases) */
} lf_cost_report;

/* Evaluates without the memo and explains the feature term at its peak. */
lf_status lf_cost_explain(lf_cost_model *cm, const lf_bitset *group, lf_cost_report *rep);
void lf_cost_report_destroy(lf_cost_report *rep);

/* The explanation as text (`fusionplan cost`, cost_print.c): the group's
 * size and beta, F_beta and F_D as sums of their terms, MBU, tiles, the peak
 * snapshot and one line per tensor with its window, rows and bytes. */
void lf_cost_report_print(FILE *f, lf_cost_model *cm, const lf_bitset *group, const lf_cost_report *rep);

/* ---- a group that holds a cut op, priced from its two sides ---------------
 *
 * A cut op c (every other op is its ancestor or its descendant) splits a
 * group G = T u {c} u H that holds ops above it: the tail T (ops below c)
 * reaches H only through c, and H reads nothing below c but c. When T u {c}
 * holds only row-window, view and whole-map ops and G waits for no reduction,
 * the row windows separate at c: H's windows fix c's window (per sink
 * phase) and row scale, and T's windows follow from those alone. So the
 * exact planner prices the head once and each tail once per head key, and
 * lf_cost_join_eval prices G from the two exactly as lf_cost_eval_once
 * prices the union (cut_sides.c; tests/test_cut_sides.c compares them).
 * A tail that holds attention (a product of two activations) separates too
 * under DRAM, for lf_cost_join_steps alone: the attention pricing's
 * windows are the two sides' per phase, all else it reads is the tail's. */
typedef struct lf_cost_side lf_cost_side;

/* The head: cut op c and the ops `head` above it (n >= 1, ascending), every
 * one reading only c and each other. Sets *out (free with
 * lf_cost_side_free); a head whose group does not separate says so in
 * lf_cost_side_separable and prices nothing. */
lf_status lf_cost_head_side(lf_cost_model *cm, int32_t c, const int32_t *head, int32_t n,
                            lf_cost_side **out);

/* The tail for `head`: the ops `tail` below the head's cut op (n >= 0,
 * ascending, every op below the cut that a group holding it must hold). */
lf_status lf_cost_tail_side(lf_cost_model *cm, const int32_t *tail, int32_t n,
                            const lf_cost_side *head, lf_cost_side **out);

int lf_cost_side_separable(const lf_cost_side *s);

/* 1 when tail was built for a head whose cut op has the same windows and
 * row scale as head's (it serves every such head). */
int lf_cost_side_same_key(const lf_cost_side *tail, const lf_cost_side *head);

/* Prices the group tail u {c} u head; both separable, tail built for a head
 * of the same key. f_d is exact when it is at most `limit` (INT64_MAX: always);
 * above it, it is only known to exceed it (under BRR one look at the tile
 * that would keep F_D within the limit spares the search for the largest
 * tile). Each side keeps the feature sums it was asked for (so a side is
 * used by one thread at a time). */
lf_status lf_cost_join_eval(lf_cost_model *cm, lf_cost_side *tail, lf_cost_side *head, int64_t limit,
                            lf_group_cost *out);

/* A tail side in a few words: its sums, and a floor of its feature bytes at
 * every tile height. The exact planner keeps these side by side, one per
 * tail, so that most pairs are settled without reaching the tail's row
 * terms. n_phases is 0 in a brief not yet filled (lf_cost_side_brief never
 * leaves it 0 for a separable side). */
#define LF_COST_SIDE_PHASES 8
typedef struct lf_cost_brief {
    int32_t n_phases, separable;
    int64_t in, out, weights, wblk;
    int64_t rows;
    struct lf_cost_brief_phase {
        int64_t one;  /* the phase's feature bytes at one row (exact) */
        int64_t full; /* at most these at `rows` rows */
    } phase[LF_COST_SIDE_PHASES]; /* what a pair reads first comes first */
} lf_cost_brief;

void lf_cost_side_brief(const lf_cost_side *s, lf_cost_brief *b);

/* 1 when the group of the tail whose brief this is and `head` (of the key
 * the tail side was built for) is certainly invalid or certainly has F_D
 * above `limit`: the scheme prices the pair with the brief's floor of the
 * tail's feature bytes (exact at one row), and F_D and validity only get
 * worse as the feature bytes grow. 0: price it (lf_cost_join_eval). */
int lf_cost_join_settles(lf_cost_model *cm, const lf_cost_brief *tail, lf_cost_side *head,
                         int64_t limit);

/* The joined group's F_D as a step function of the buffer (lf_cost_steps).
 * A tail that holds attention (lf_cost_side_attention; only under DRAM)
 * is joined here alone, through the memo of copies one block away when
 * `group` (the pair's ops) is given (NULL: none; the memo's lock is one
 * thread's at a time). */
lf_status lf_cost_join_steps(lf_cost_model *cm, const lf_bitset *group, lf_cost_side *tail, lf_cost_side *head,
                             int64_t below, lf_cost_step *steps, int32_t cap, int32_t *n);

/* 1 when the side is a separable tail that holds attention: its pairs have
 * steps (lf_cost_join_steps) but no price at one buffer (lf_cost_join_eval
 * refuses them, and their briefs say they do not separate). */
int lf_cost_side_attention(const lf_cost_side *s);

/* The fewest times any group with this head reads its weights: its own
 * row terms alone already bound the tile height (0: no such group is valid;
 * 1 when the scheme keeps weights resident, the head does not separate, or
 * a small tail could keep every weight on chip). */
int64_t lf_cost_head_min_reads(lf_cost_model *cm, lf_cost_side *head);

/* The fewest row steps (lf_group_cost.steps) of any group with this head:
 * the head's height where the scheme keeps weights resident (LBDF runs a
 * joined group in one step per row of the head's sinks), else
 * lf_cost_head_min_reads (BRR's steps are its weight reads). */
int64_t lf_cost_head_min_steps(lf_cost_model *cm, lf_cost_side *head);

/* The row steps of the joined group at the step of lf_cost_join_steps whose
 * F_D is f_d (what lf_cost_join_eval gives at a buffer just above its need):
 * LBDF's one step runs the head's height; under BRR F_D is inputs + outputs
 * + reads x weights, and the steps are the reads. */
int64_t lf_cost_join_rows(const lf_cost_model *cm, const lf_cost_side *tail, const lf_cost_side *head,
                          int64_t f_d);

/* Bytes a side holds (for memory limits). */
int64_t lf_cost_side_bytes(const lf_cost_side *s);

void lf_cost_side_free(lf_cost_side *s);

#endif
