/* Separators of a few tensors and the bounds of the pieces between them
 * (separators.c; docs/search.md "Separators"). Not a public header. */
#ifndef LF_EXACT_SEPARATORS_H
#define LF_EXACT_SEPARATORS_H

#include <stdint.h>

#include "planner/exact/exact.h"

/* A cut after op pos: the ops with ids <= pos lie before it. */
typedef struct lf__sep_cut {
    int32_t pos;
    int32_t width;     /* tensors made before the cut and read after it */
    int32_t spannable; /* edges across it whose hull a valid group may hold */
    int64_t extra;     /* bytes that splitting every group at it may add (readers
                          anywhere past it; 0 when no edge is spannable) */
} lf__sep_cut;

/* Every cut of at most max_width tensors between the first and the last
 * compute op, by position; *cuts is freed by the caller. */
lf_status lf__separator_cuts(lf_cost_model *cm, int32_t max_width, lf__sep_cut **cuts, int32_t *n_cuts);

typedef struct lf__sep_bounds {
    int64_t lower, upper;  /* lower <= optimum <= upper (DRAM over fusable ops) */
    int64_t relaxed;       /* the pieces' relaxed optima summed */
    int64_t extra;         /* what the chosen cuts may add, subtracted from it */
    int32_t pieces, pieces_exact, pieces_lower;
    int32_t cuts_hard;     /* chosen cuts that no valid group spans */
    int exact;             /* upper is the optimum: no cut spanned, every piece solved */
    int64_t states_max;    /* the most downsets one piece's exact DP had */
    double wall_s;
} lf__sep_bounds;

/* Cuts of at most max_width tensors chosen so that no piece holds more than
 * max_piece_ops compute ops and the cuts add the least (a DP over cuts);
 * each piece solved exactly (upper bound, its plan into *plan, initialised
 * here) and relaxed (lower bound) within its share of cfg's limits. A
 * piece past its limits keeps its ops as singletons and its fusable ops'
 * weights as its lower bound. */
lf_status lf__separator_bounds(lf_cost_model *cm, const lf_exact_config *cfg, int32_t max_width,
                               int32_t max_piece_ops, lf_plan *plan, lf__sep_bounds *b);

#endif

/* The pieces between cuts that no valid group spans (at most max_width
 * tensors each), solved exactly within cfg's limits, the fewest ops first:
 * every plan is a union of plans of these pieces, so a solved piece's
 * optimum may replace what any plan does there (lf__hard_pieces_apply). */
typedef struct lf__hard_pieces {
    int32_t pieces, solved, cuts;
    int64_t dram_solved; /* the solved pieces' optima summed */
    lf_plan plan;        /* their groups; -1 for every op of an unsolved piece */
    int32_t *ends;       /* piece i holds the ops in (ends[i - 1], ends[i]] (ends[-1]: -1) */
    uint8_t *done;       /* piece i solved */
    double wall_s;
} lf__hard_pieces;

lf_status lf__hard_pieces_solve(lf_cost_model *cm, const lf_exact_config *cfg, int32_t max_width,
                                lf__hard_pieces *h);
/* Replaces plan's groups on the solved pieces by their optima when that
 * lowers its figure over fusable ops (lf_plan_metrics.objective: DRAM bytes
 * under the default objective; *dram: the plan's, updated); *plan must
 * be valid (lf_plan_check), as every plan the planner returns is. */
lf_status lf__hard_pieces_apply(lf_cost_model *cm, const lf__hard_pieces *h, lf_plan *plan, int64_t *dram);
void lf__hard_pieces_free(lf__hard_pieces *h);

/* Under BRR with the DRAM objective (nothing to do otherwise): polishes a
 * copy of *plan with cfg's windows chosen and priced by an LBDF model of
 * the same graph and hardware, and keeps it only when it is valid under cm
 * and its figure under cm (lf_plan_metrics.objective, recomputed) is below
 * *figure; *improved says so (polish_lbdf.c). */
lf_status lf__polish_lbdf(lf_cost_model *cm, const lf_polish_config *cfg, lf_plan *plan, int64_t *figure,
                          int32_t *improved);

/* Polishes *plan (valid, its pieces' optima applied: lf__hard_pieces_apply)
 * on the open pieces only, with ever wider windows until the deadline
 * (lf_now_seconds(); 0: none, the two narrowest passes only), never making
 * it worse (piece_polish.c); *figure (its objective over fusable ops) is
 * updated, *window_ops is the widest window whose pass ran to its end (0:
 * none) and *given_up (may be NULL) how many of that pass's windows were
 * left as they were because their exact solve gave up: with a deadline,
 * mostly a pace that would outrun the time left (downsets_states.c), so
 * "ran to its end" does not mean every window was solved. Nothing to do when every piece is solved, nor without a deadline
 * when none is (then the whole plan is open and polished only while time
 * is left). With `after_first` (NULL: none), once the first pass has run
 * to its end that polish runs too, on the open pieces, in at most half the
 * time left (its own deadline ignored), before the wider passes;
 * *after_improved (may be NULL) says whether it or, with no piece solved
 * and a deadline, the breadth-first passes of narrow windows run before
 * the first pass (piece_polish.c) lowered the figure. */
lf_status lf__hard_pieces_polish(lf_cost_model *cm, const lf__hard_pieces *h, double deadline, lf_plan *plan,
                                 int64_t *figure, int32_t *window_ops, int32_t *given_up,
                                 const lf_polish_config *after_first, int32_t *after_improved);

/* A lower bound on the optimum from the pieces: the solved ones' optima and,
 * for each open piece, the windows' bound (lf__window_lower_bound) of its
 * graph (lf__piece_graph) within an even share of cfg's limits, or its
 * fusable ops' weights where that fails. *lower is 0 without a solved piece.
 * Figures in DRAM bytes: a bound under the default objective only. */
lf_status lf__hard_pieces_lower(lf_cost_model *cm, const lf__hard_pieces *h, const lf_exact_config *cfg,
                                int64_t *lower);

/* The graph of the ops with ids in (lo, hi] (piece_graph.c): what they read
 * from below lo as graph inputs, what is read past hi as graph outputs. */
lf_status lf__piece_graph(const lf_graph *g, int32_t lo, int32_t hi, lf_graph **out);
