/* A merged window's ghost solved in its own cone (window_bound.c: the
 * grown pass's merges, tried again after the join, or under BRR at once).
 * A window that grew and stopped takes in the next window where its ghost
 * lies (window_merge.c): on PP-OCRv4
 * detection at 256 KB the grown 1-181 becomes 1-189, which sees that
 * `Conv.40` (182) cannot keep its map through its own wait beside
 * `Conv.35`'s source (+134,016 B). But 182's wait is also the heart of
 * conflict (A) of docs/results/exact.md (its map against the top-down path
 * 206-211) and, with `Conv.55`'s wait (228-235), of (B); a window sees
 * them only holding 182-189, 206-211 and 228-235 at once, and the window
 * of consecutive ops 182-235 holds the lateral SE blocks 190-205 and 212-219
 * as well: 11.3 million connected sets, never solved in a 10 s run.
 *
 * So the ops of [b, e) (b: where the merged-in ops start, e: the end of a
 * window the pass solved past them) are cut into their cone, the ops
 * reachable from ops[b] inside [b, e), and the rest, the laterals; each is
 * solved as a window. Both are convex: [b, e) is (consecutive ids of a
 * topological order), the laterals are a downset of it (an op reached from
 * ops[b] reaches its readers) and the cone an upset, so a path between two
 * ops of either through another op of [b, e) stays in it. Any convex set is
 * a window (window_bound.c, the top of the file: the parts G n W of a valid
 * plan's groups are convex in W, come in the plan's group order, and are
 * admitted; W's internal tensors are charged at most what the plan pays for
 * them), and windows charging disjoint tensors add up, the rest taking
 * their forced-cut floors. The alternative over [from, e_final) -- the
 * window before the merge, the laterals, the cone, then [e, e_final) as one
 * window -- replaces the pass's windows there (the merged one and those up
 * to e_final, which cover the same ops), and the larger total is kept:
 * each total is a floor on its own.
 *
 * Under BRR a window also charges the weight re-reads of the ops it claims
 * (its own and its ghosts', those no window claimed before it: no two
 * windows of a pass charge one op's). The alternative keeps that: the
 * claims of the windows it replaces (those starting in [from, e_hi),
 * w->claim_from) are given back, the window before the merge takes again
 * the ones its try made (its charge, the pass's, counted them), and the
 * alternative's windows claim what is left, as any try does. Where a window
 * the alternative keeps has since claimed one of the window before the
 * merge's, that alternative is not tried. Its cones see conflicts (A) and
 * (B) through the snapshots' floors as under LBDF (window_charge.c: a part
 * whose group cannot keep a wait's map resident reads it again):
 * PP-OCRv4 detection at 256 KB, 16,180,621 -> 16,430,593 B with those
 * floors (docs/results/exact.md, branch brrcone).
 *
 * PP-OCRv4 detection at 256 KB (LBDF): the cone of 182 in [182, 235] is
 * 182-189, 207-211, 220-235 (11,788 connected sets) and charges 614,400 B,
 * both `Add.248`'s and `Conv.55`'s cuts, where 206-235 charges 307,200;
 * the laterals 190-206, 212-219 charge 6,144,000 B, their forced floors.
 * Without the merge the pass loses 134,016 B and gains 307,200. */
#include <string.h>

#include "planner/exact/window_win.h"
#include "planner/util/clock.h"

/* The pass's windows past the merge searched for the merged-in ops'
 * readers; the alternative replaces them and the one after. */
#define LF__CONE_WINDOWS 5
/* The candidate sets one window of an alternative may visit (PP-OCRv4
 * detection: 182's cone in [182, 235] 11,788, the laterals 50,700). */
#define LF__CONE_SETS 200000

int32_t lf__window_cone_order(const lf_graph *g, int32_t *ops, int32_t from, int32_t to, uint8_t *mark,
                              int32_t *scratch)
{
    if (to - from < 2)
        return from;
    /* ops[from..to) is in a topological order: one scan marks the cone. */
    mark[ops[from]] = 1;
    for (int32_t i = from + 1; i < to; i++) {
        const lf_op *op = &g->ops[ops[i]];
        for (int32_t j = 0; j < op->n_inputs && !mark[ops[i]]; j++)
            mark[ops[i]] = mark[op->inputs[j]];
    }
    int32_t n = 0;
    for (int32_t i = from; i < to; i++)
        if (!mark[ops[i]])
            scratch[n++] = ops[i];
    int32_t lateral = n;
    for (int32_t i = from; i < to; i++)
        if (mark[ops[i]])
            scratch[n++] = ops[i];
    for (int32_t i = from; i < to; i++) {
        mark[ops[i]] = 0;
        ops[i] = scratch[i - from];
    }
    return from + lateral;
}

/* The recorded window of the pass starting at position from (-1: none). */
static int32_t lf__cone_rec(const lf__win *w, int32_t from)
{
    for (int32_t k = 0; k < w->n_rec; k++)
        if (w->rec_from[k] == from)
            return k;
    return -1;
}

/* The pass's total: weights, the windows' charges, the other tensors'
 * forced-cut floors. */
static int64_t lf__cone_total(const lf__win *w)
{
    int64_t rest = 0;
    for (int32_t p = 0; p < w->g->n_ops; p++)
        rest += w->charged[p] ? 0 : w->cut_floor[p];
    return w->weights + w->traffic + rest;
}

/* Under BRR the windows' claims (window_bound.c: no two windows charge the
 * same op's weight re-reads) as the pass left them, kept or put back with
 * the charged tensors. */
static void lf__cone_claims_copy(const lf__win *w, uint8_t *to_claimed, int32_t *to_from, const uint8_t *claimed,
                                 const int32_t *from)
{
    if (!w->memo_rereads)
        return;
    memcpy(to_claimed, claimed, (size_t)w->g->n_ops);
    memcpy(to_from, from, (size_t)w->g->n_ops * sizeof *from);
}

/* Under BRR, the claims as the alternative for merge m starts them: those
 * of the windows it replaces (starting in ops[from..e_hi)) given back, and
 * the window before the merge's taken again, as its try made them (its
 * charge is the pass's, counted on them). 0 where a window the alternative
 * keeps has since claimed one of those: both would charge its re-reads,
 * so the alternative is not tried. */
static int lf__cone_claims(lf__win *w, int32_t m, int32_t from, int32_t e_hi)
{
    if (!w->memo_rereads)
        return 1;
    for (int32_t v = 0; v < w->g->n_ops; v++)
        if (w->claimed[v] && w->claim_from[v] >= from && w->claim_from[v] < e_hi)
            w->claimed[v] = 0;
    for (int32_t i = w->merge_claims_at[m]; i < w->merge_claims_at[m + 1]; i++) {
        int32_t v = w->merge_claims[i];
        if (w->claimed[v])
            return 0;
        w->claimed[v] = 1;
        w->claim_from[v] = from;
    }
    return 1;
}

/* 1 when an op of ops[f..t) reads an op of ops[b..next). */
static int lf__cone_reads(const lf__win *w, const int32_t *ops, int32_t f, int32_t t, int32_t b, int32_t next)
{
    for (int32_t i = f; i < t; i++) {
        const lf_op *op = &w->g->ops[ops[i]];
        for (int32_t j = 0; j < op->n_inputs; j++)
            for (int32_t k = b; k < next; k++)
                if (op->inputs[j] == ops[k])
                    return 1;
    }
    return 0;
}

/* Marks the tensors window ops[from..to) charges (its internal ones, its
 * ghosts as lf__win_try picks them), as a solved try marks them. */
static lf_status lf__cone_mark(lf__win *w, const int32_t *ops, int32_t from, int32_t to)
{
    lf_bitset u;
    lf_status st = lf_bitset_init(&u, w->g->n_ops);
    if (st != LF_OK)
        return st;
    for (int32_t i = from; i < to; i++)
        lf_bitset_set(&u, ops[i]);
    lf__window_ghosts(w->g, w->bytes, w->cut_floor, w->apart.any, ops, from, to, &u, NULL);
    for (int32_t i = from; i < to; i++) {
        const lf_op *op = &w->g->ops[ops[i]];
        int inside = !op->is_output && op->n_consumers > 0;
        for (int32_t j = 0; j < op->n_consumers && inside; j++)
            inside = lf_bitset_test(&u, op->consumers[j]);
        w->charged[ops[i]] |= (uint8_t)inside;
    }
    lf_bitset_destroy(&u);
    return LF_OK;
}

/* One window of the alternative, within what the alternatives have left
 * and LF__CONE_SETS candidate sets (a time share of its own stopped 182's
 * cone early: its DP's pace at an eighth of a short limit projects past
 * it): charged if solved, its tensors left to their floors past the limits
 * (as a pass leaves a window it cannot solve); *solved says which. */
static lf_status lf__cone_try(lf__win *w, const int32_t *ops, int32_t from, int32_t to, int *solved)
{
    *solved = 0;
    if (from >= to)
        return LF_OK;
    double left = w->pass_end > 0 ? w->pass_end - lf_now_seconds() : 0;
    if (w->pass_end > 0 && left <= 1e-3)
        return LF_ELIMIT;
    lf_status st = lf__win_try(w, ops, from, to, left, LF__CONE_SETS);
    *solved = st == LF_OK;
    return st == LF_ELIMIT ? LF_OK : st;
}

/* The alternative for the merge m at end e (a position some try of the
 * pass ended at, past the merged-in ops' last reader): the window before
 * the merge as the pass charged it, the laterals and the cone of [b, e),
 * and [e, e_hi) as one window where e is no end of the pass's windows
 * (e_hi: the first that is); the pass's windows from e_hi on stay. */
static lf_status lf__cone_end(lf__win *w, const int32_t *ops, int32_t m, int32_t e, int64_t *best_total,
                              uint8_t *best_charged, int64_t *best_traffic)
{
    const lf_graph *g = w->g;
    int32_t n = g->n_ops, from = w->merge_from[m], b = w->merge_b[m], next = w->merge_next[m];
    int32_t k = lf__cone_rec(w, from);
    int64_t old = w->rec_charge[k];
    int32_t e_hi = next;
    while (e_hi < e) {
        int32_t r = lf__cone_rec(w, e_hi);
        if (r < 0)
            return LF_OK;
        old += w->rec_charge[r];
        e_hi = w->rec_to[r];
    }
    memcpy(w->cone_saved, w->charged, (size_t)n);
    lf__cone_claims_copy(w, w->cone_claimed_saved, w->cone_from_saved, w->claimed, w->claim_from);
    int64_t traffic0 = w->traffic;
    for (int32_t i = from; i < e_hi; i++)
        w->charged[ops[i]] = 0;
    w->traffic += w->merge_charge[m] - old;
    int claims = lf__cone_claims(w, m, from, e_hi);
    lf_status st = claims ? lf__cone_mark(w, ops, from, b) : LF_OK;
    memcpy(w->cone_ops, ops, (size_t)w->n_ops_all * sizeof *ops);
    int32_t c = lf__window_cone_order(g, w->cone_ops, b, e, w->cone_mark, w->cone_scratch);
    /* The cone (what the alternative is for), then [e, e_hi); a cone or
     * [e, e_hi) past the limits ends the alternative. The laterals keep
     * their floors here: a window charges at least the floors of its
     * tensors, so they are solved for the best end alone (lf__cone_merge),
     * and the time goes to the ends first. */
    int solved = 0;
    if (st == LF_OK && claims)
        st = lf__cone_try(w, w->cone_ops, c, e, &solved);
    if (st == LF_OK && e < e_hi && solved)
        st = lf__cone_try(w, ops, e, e_hi, &solved);
    int64_t total = lf__cone_total(w);
    if (st == LF_OK && solved && total > *best_total) {
        *best_total = total;
        memcpy(best_charged, w->charged, (size_t)n);
        lf__cone_claims_copy(w, w->cone_claimed_best, w->cone_from_best, w->claimed, w->claim_from);
        *best_traffic = w->traffic;
        w->cone_e = e;
    }
    memcpy(w->charged, w->cone_saved, (size_t)n);
    lf__cone_claims_copy(w, w->claimed, w->claim_from, w->cone_claimed_saved, w->cone_from_saved);
    w->traffic = traffic0;
    return st;
}

/* The alternatives for the merge m: the ends past the merged-in ops'
 * readers in the pass's windows up to the one after the first that reads
 * them. */
static lf_status lf__cone_merge(lf__win *w, const int32_t *ops, int32_t m, int64_t *best_total,
                                uint8_t *best_charged, int64_t *best_traffic)
{
    int32_t from = w->merge_from[m], b = w->merge_b[m], next = w->merge_next[m];
    int32_t k = lf__cone_rec(w, from);
    if (k < 0 || w->rec_to[k] != next)
        return LF_OK;
    int32_t e_final = next, after = -1, reader = next;
    for (int32_t steps = 0; steps < LF__CONE_WINDOWS && after != 0 && e_final < w->n_ops_all; steps++) {
        int32_t r = lf__cone_rec(w, e_final);
        if (r < 0)
            return LF_OK;
        e_final = w->rec_to[r];
        if (after < 0 && lf__cone_reads(w, ops, w->rec_from[r], e_final, b, next))
            after = 2;
        after -= after > 0;
    }
    if (after < 0)
        return LF_OK;
    for (int32_t i = next; i < e_final; i++)
        if (lf__cone_reads(w, ops, i, i + 1, b, next))
            reader = i + 1;
    /* The shortest cones first, up to the first that beats the pass: the
     * stage takes time the later passes and the join would have (a longer
     * cone costs more and, with another SE block beside it, sees less:
     * PP-OCRv4's 182-256 63,849 sets for 1,612,800 B against 182-235's
     * 11,788 for 614,400). */
    lf_status st = LF_OK;
    int64_t pass_total = *best_total;
    w->cone_e = -1;
    int32_t e = reader;
    for (; e <= e_final && st == LF_OK && *best_total == pass_total; e++)
        if (w->tried_end[e])
            st = lf__cone_end(w, ops, m, e, best_total, best_charged, best_traffic);
    /* Then the longest cone, where time is left: with the SE blocks past
     * the first one beside it (wait_resident.c: their reductions terminal
     * in the part) it sees the conflicts the shorter cone and the window
     * after it split (PP-OCRv4: 182-256, 63,849 sets, 16,430,593 B against
     * 182-235's 16,353,793). */
    if (st == LF_OK && e <= e_final && w->tried_end[e_final])
        st = lf__cone_end(w, ops, m, e_final, best_total, best_charged, best_traffic);
    w->cone_to = e_final;
    /* The best end's laterals, solved on top of its state (disjoint ops:
     * their tensors leave their floors for the window's charge). */
    if (st == LF_OK && w->cone_e > 0) {
        int32_t n = w->g->n_ops, solved = 0;
        memcpy(w->cone_saved, w->charged, (size_t)n);
        lf__cone_claims_copy(w, w->cone_claimed_saved, w->cone_from_saved, w->claimed, w->claim_from);
        int64_t traffic0 = w->traffic;
        memcpy(w->charged, best_charged, (size_t)n);
        lf__cone_claims_copy(w, w->claimed, w->claim_from, w->cone_claimed_best, w->cone_from_best);
        w->traffic = *best_traffic;
        memcpy(w->cone_ops, ops, (size_t)w->n_ops_all * sizeof *ops);
        int32_t c = lf__window_cone_order(w->g, w->cone_ops, b, w->cone_e, w->cone_mark, w->cone_scratch);
        st = lf__cone_try(w, w->cone_ops, b, c, &solved);
        int64_t total = lf__cone_total(w);
        if (st == LF_OK && solved && total > *best_total) {
            *best_total = total;
            memcpy(best_charged, w->charged, (size_t)n);
            lf__cone_claims_copy(w, w->cone_claimed_best, w->cone_from_best, w->claimed, w->claim_from);
            *best_traffic = w->traffic;
        }
        memcpy(w->charged, w->cone_saved, (size_t)n);
        lf__cone_claims_copy(w, w->claimed, w->claim_from, w->cone_claimed_saved, w->cone_from_saved);
        w->traffic = traffic0;
    }
    return st == LF_ELIMIT ? LF_OK : st;
}

lf_status lf__win_cone(lf__win *w, const int32_t *ops, int64_t *lower)
{
    int32_t n = w->g->n_ops;
    int64_t best_total = lf__cone_total(w), best_traffic = w->traffic;
    memcpy(w->cone_best, w->charged, (size_t)n);
    lf__cone_claims_copy(w, w->cone_claimed_best, w->cone_from_best, w->claimed, w->claim_from);
    lf_status st = LF_OK;
    int32_t done_to = 0; /* the merges' alternatives replace disjoint windows */
    w->recording = 0;
    for (int32_t m = 0; m < w->n_merge && st == LF_OK; m++) {
        int64_t before = best_total;
        if (w->merge_from[m] < done_to)
            continue;
        st = lf__cone_merge(w, ops, m, &best_total, w->cone_best, &best_traffic);
        if (st == LF_OK && best_total > before) {
            memcpy(w->charged, w->cone_best, (size_t)n);
            lf__cone_claims_copy(w, w->claimed, w->claim_from, w->cone_claimed_best, w->cone_from_best);
            w->traffic = best_traffic;
            w->coned++;
            done_to = w->cone_to;
        }
    }
    *lower = lf__cone_total(w);
    return st;
}
