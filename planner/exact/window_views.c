/* A view's staging row in the windows' relaxation (window_bound.c,
 * window_join.c).
 *
 * The monotone floor of F_beta the enumeration prunes with counts no row
 * for a zero-copy view (a concat): its staging row goes when every reader
 * joins the group (docs/search.md). But a group G whose view c has a
 * reader outside G (or c is a graph output) holds c's staging row on top of
 * everything the floor counts (planner/cost/rows.c: a member that is active
 * and an output of the group has a staging row, view or not; the floor's
 * terms are other tensors' rows and the weights), so F_beta(G) >= floor(G)
 * + row(c) >= floor(P) + row(c) for any P inside G. A window's part P is
 * G n U for a group G of a valid plan. So when floor(P) + row(c) reaches
 * beta, G holds every reader of c: impossible when a reader lies in U but
 * not in P (it is not in G), is unfusable, or c is a graph output; and when
 * all of them lie outside U, G holds P and them, so floor(G) is at least
 * floor(P) plus each reader's weight term and own output row (what adding
 * it adds to the floor for sure: downsets.c, lf__add) and the largest
 * weight block; when that reaches beta too, P is no plan's part and the
 * relaxation may skip it.
 *
 * NasNet-A at 256 KB under LBDF: normal3's branches, adds and concat (ops
 * 77-95) have floor 259,712 B, just under beta, but F_beta 295,552 B: the
 * concat's staging row is 35,840 B, and its readers past the window (the
 * next squeeze conv, the reduction's fit conv) bring 81,920 B of weights
 * each (docs/results/exact.md). */
#include "planner/exact/window_views.h"

/* What every valid group holding the set and all of c's readers (all of
 * them fusable and outside U) has at least, beyond the set's floor base
 * with weight block blk. */
static int64_t lf__readers_add(const lf__exact *x, int32_t c, int64_t blk)
{
    const lf_op *op = &x->g->ops[c];
    int64_t add = 0, top = blk;
    for (int32_t j = 0; j < op->n_consumers; j++) {
        int32_t r = op->consumers[j], dup = 0;
        for (int32_t i = 0; i < j; i++)
            dup |= op->consumers[i] == r;
        if (dup)
            continue;
        const lf_op *rop = &x->g->ops[r];
        add += x->wterm[r];
        if (!x->view[r] && (rop->is_output || rop->n_consumers > 0) && x->kmax[r] < 1)
            add += x->row_bytes[r];
        top = x->wblk[r] > top ? x->wblk[r] : top;
    }
    return add + (top - blk);
}

int lf__win_view_staged(const lf__exact *x)
{
    int64_t w = -1, rows = 0, blk = 0;
    for (int32_t i = 0; i < x->n_sub; i++) {
        int32_t c = x->sub[i];
        const lf_op *op = &x->g->ops[c];
        if (!x->view[c])
            continue;
        int out = op->is_output, sure = op->is_output;
        for (int32_t j = 0; j < op->n_consumers; j++) {
            int32_t r = op->consumers[j];
            if (x->in_s[r])
                continue;
            out = 1;
            sure |= x->in_u[r] || !lf_cost_fusable(x->cm, r);
        }
        if (!out)
            continue;
        if (w < 0)
            lf__dp_set_need_terms(x, &w, &rows, &blk);
        int64_t base = w + rows + blk;
        if (base + x->row_bytes[c] < x->beta)
            continue;
        if (sure || base + lf__readers_add(x, c, blk) >= x->beta)
            return 1;
    }
    return 0;
}
