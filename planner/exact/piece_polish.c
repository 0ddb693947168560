/* Polishing what the separators leave open (separators.h): after the pieces
 * between cuts that no valid group spans are solved, a plan is optimal on
 * them, and only the open pieces can still improve. Windows of a polish
 * (polish.c) holding only solved ops are skipped, so the whole time left
 * goes to the open pieces, in passes with ever wider windows and more
 * candidate sets a window until the deadline: the plan only improves with
 * time. NasNet-A at 256 KB under LBDF: the open piece is its first 141 ops,
 * where windows of 24 ops at 1 million candidate sets take the plan to 1%
 * of the optimum and windows of 32 ops found it on the whole graph. With
 * no piece solved the passes run on the whole plan while time is left. */
#include <stdlib.h>

#include "planner/exact/separators.h"
#include "planner/util/clock.h"

/* Each pass's window and candidate sets a window; without a deadline only
 * the first LF__POLISH_PASSES_UNTIMED passes run. The widest stays at 20
 * million candidate sets: a window's states stay far below the memory
 * limit (NasNet-A at 60 s: 263 MB peak for the whole run). It holds 44 ops,
 * not 40: PP-OCRv4 detection's neck under BRR ends in three consecutive
 * groups of 43 ops in a low-load 10-15 s run (16,661,545 B), which 40-op
 * windows leave and 44-op ones take to 16,584,793 B (3.9 s of CPU from
 * that plan; tests/test_polish.c, docs/results/exact.md branch brrplan). */
static const struct {
    int32_t window_ops;
    int64_t max_candidates;
} lf__polish_passes[] = {{24, 1000000}, {32, 5000000}, {44, 20000000}};
#define LF__POLISH_PASSES_UNTIMED 2
/* With no piece solved and a deadline (the whole plan open: NasNet-A,
 * RandWire and PP-OCRv4 detection under BRR, PP-OCRv4 detection under
 * LBDF), first breadth-first passes of narrow windows
 * (lf_polish_config.breadth_first), each in at most half the time left:
 * a cell's concat and the next cells' 1x1 convs that read
 * it follow it in that order, so a window holds groups that span two
 * cells, which the first-op order keeps apart. NasNet-A at 256 KB under
 * BRR: a 10 s run's plan (NSGA-II cut short, 197.04 MB) 186.66 MB with 20
 * ops in 0.6 s of CPU; a 30 s run's (186.39 MB) 185.49 with 20, 183.38
 * with 32 more, in 1.0 s, where the 24-op pass takes 3.3 s for 186.12
 * (docs/results/exact.md, branch nasbrr3, 2026-12-08). */
static const struct {
    int32_t window_ops;
    int64_t max_candidates, max_states;
} lf__polish_bfs[] = {{20, 300000, 5000}, {32, 100000, 2000}};

/* Polishes *plan with cfg on a copy, in half the time left before deadline
 * (0: none), the fixed ops as given; *improved when the figure fell. */
static lf_status lf__polish_between(lf_cost_model *cm, const lf_polish_config *cfg, const uint8_t *fixed,
                                    double deadline, lf_plan *plan, int64_t *figure, int32_t *improved)
{
    lf_polish_config pc = *cfg;
    lf_polish_stats ps;
    double now = lf_now_seconds();
    pc.deadline = deadline > 0 ? now + (deadline - now) * 0.5 : 0;
    pc.fixed = fixed;
    lf_plan cand;
    lf_status st = lf_plan_copy(&cand, plan);
    if (st != LF_OK)
        return st;
    st = lf_exact_polish(cm, &pc, &cand, &ps);
    if (st == LF_OK && ps.dram_after < *figure) {
        lf_plan_destroy(plan);
        *plan = cand;
        *figure = ps.dram_after;
        *improved = 1;
    } else {
        lf_plan_destroy(&cand);
    }
    return st;
}

lf_status lf__hard_pieces_polish(lf_cost_model *cm, const lf__hard_pieces *h, double deadline, lf_plan *plan,
                                 int64_t *figure, int32_t *window_ops, int32_t *given_up,
                                 const lf_polish_config *after_first, int32_t *after_improved)
{
    *window_ops = 0;
    int32_t given_up_local = 0;
    if (!given_up)
        given_up = &given_up_local;
    *given_up = 0;
    int32_t improved_local = 0;
    if (!after_improved)
        after_improved = &improved_local;
    *after_improved = 0;
    /* With no piece solved (NasNet-A under BRR has no separator: weights
     * stream, so every hull fits) the whole plan is open: the time a limit
     * leaves still polishes it, but without a deadline the best-effort
     * polish before this one was all. */
    if ((h->pieces > 0 && h->solved == h->pieces) || (h->solved == 0 && deadline <= 0))
        return LF_OK;
    const lf_graph *g = lf_cost_graph(cm);
    uint8_t *fixed = calloc((size_t)g->n_ops + 1, 1);
    if (!fixed)
        return lf_set_error(LF_ENOMEM, "out of memory polishing a plan");
    for (int32_t i = 0; i < h->pieces; i++)
        for (int32_t v = (i > 0 ? h->ends[i - 1] : -1) + 1; v <= h->ends[i] && h->done[i]; v++)
            fixed[v] = 1;
    lf_status st = LF_OK;
    size_t n_bfs = h->solved == 0 && deadline > 0 ? sizeof lf__polish_bfs / sizeof lf__polish_bfs[0] : 0;
    for (size_t k = 0; k < n_bfs && st == LF_OK && lf_now_seconds() < deadline; k++) {
        lf_polish_config bc;
        lf_polish_config_default(&bc);
        bc.window_ops = lf__polish_bfs[k].window_ops;
        bc.max_candidates = lf__polish_bfs[k].max_candidates;
        bc.max_states = lf__polish_bfs[k].max_states;
        bc.breadth_first = 1;
        st = lf__polish_between(cm, &bc, fixed, deadline, plan, figure, after_improved);
    }
    int32_t passes = deadline > 0 ? (int32_t)(sizeof lf__polish_passes / sizeof lf__polish_passes[0])
                                  : LF__POLISH_PASSES_UNTIMED;
    for (int32_t k = 0; k < passes && st == LF_OK; k++) {
        if (deadline > 0 && lf_now_seconds() >= deadline)
            break;
        lf_polish_config pc;
        lf_polish_stats ps;
        lf_polish_config_default(&pc);
        pc.window_ops = lf__polish_passes[k].window_ops;
        pc.max_candidates = lf__polish_passes[k].max_candidates;
        pc.deadline = deadline;
        pc.fixed = fixed;
        /* Before the widest pass under BRR, its windows priced under LBDF
         * (polish_lbdf.c), with the whole time left: a window's solve
         * gives up early when its pace says it would outrun the time left
         * (downsets_states.c), and the pace is what LBDF pricing cuts.
         * PP-OCRv4 detection's 16,661,545 B plan falls to 16,584,793 B in
         * 1.35 s of CPU priced so, 3.83 s under BRR; with the pieces'
         * passes from that plan it gets there in a 2 s deadline where the
         * BRR pass alone needs 3-4.5 s (docs/results/exact.md, branch
         * brrlbdf). The BRR pass follows in what time is left. */
        if (deadline > 0 && k == passes - 1) {
            int32_t lbdf_improved = 0;
            if ((st = lf__polish_lbdf(cm, &pc, plan, figure, &lbdf_improved)) != LF_OK)
                break;
            if (lf_now_seconds() >= deadline)
                break;
        }
        /* On a copy: a polish that fails half-way leaves the plan and its
         * figure as they were. */
        lf_plan cand;
        if ((st = lf_plan_copy(&cand, plan)) != LF_OK)
            break;
        st = lf_exact_polish(cm, &pc, &cand, &ps);
        if (st == LF_OK && ps.dram_after < *figure) {
            lf_plan_destroy(plan);
            *plan = cand;
            *figure = ps.dram_after;
        } else {
            lf_plan_destroy(&cand);
        }
        /* Every window of this width was tried; those whose solve gave up
         * (its pace past the time left, or past the candidate limit) were
         * left as they were, and the note says how many. */
        if (st == LF_OK && !ps.out_of_time) {
            *window_ops = pc.window_ops;
            *given_up = ps.limited;
        }
        /* The caller's polish (the breadth-first one: PP-OCRv4 under BRR)
         * once the narrowest pass is done: where that pass does not end
         * before the deadline (NasNet-A, RandWire under BRR), it takes no
         * time from it. */
        if (st == LF_OK && k == 0 && !ps.out_of_time && after_first &&
            !(deadline > 0 && lf_now_seconds() >= deadline))
            st = lf__polish_between(cm, after_first, fixed, deadline, plan, figure, after_improved);
    }
    free(fixed);
    return st;
}
