/* What a window's relaxed DP charges each candidate set (window_bound.c,
 * the top of the file, says why these charges bound every plan): the
 * internal tensors a part reads and writes, the reads a closed part's
 * group pays, and under BRR the weight and squeeze-and-excite re-reads its
 * group cannot avoid. */
#include <stdlib.h>

#include "planner/exact/window_reads.h"
#include "planner/exact/window_views.h"
#include "planner/exact/window_win.h"

/* What a connected part pays: each internal tensor it writes for a reader
 * outside it, written once, and read at least once when a fusable op reads
 * it (an unfusable reader's reads are not DRAM over fusable ops), once per
 * reader of a clique of readers apart (window_reads.c). */
static int64_t lf__win_component(const lf__exact *x, const lf__win *w)
{
    int64_t d = 0;
    for (int32_t i = 0; i < x->n_sub; i++) {
        const lf_op *op = &x->g->ops[x->sub[i]];
        if (!w->internal[x->sub[i]])
            continue;
        int64_t times = 0;
        for (int32_t j = 0; j < op->n_consumers && times < 2; j++) {
            int32_t c = op->consumers[j];
            if (x->in_s[c])
                continue;
            if (x->fusable[c])
                times = 2;
            else
                times = 1;
        }
        if (times == 2)
            times = 1 + lf__win_reads_apart(x, &w->apart, x->sub[i]);
        d += times * w->bytes[x->sub[i]];
    }
    return d;
}

/* What any part pays: the internal tensors it reads from another part
 * (once each) and those it writes for a reader in another part. */
static int64_t lf__win_part(const lf__exact *x, lf__win *w)
{
    int64_t stamp = ++w->stamp;
    int64_t d = 0;
    for (int32_t i = 0; i < x->n_sub; i++) {
        const lf_op *op = &x->g->ops[x->sub[i]];
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t p = op->inputs[j];
            if (w->internal[p] && !x->in_s[p] && w->seen[p] != stamp) {
                w->seen[p] = stamp;
                d += w->bytes[p];
            }
        }
        if (!w->internal[x->sub[i]])
            continue;
        for (int32_t j = 0; j < op->n_consumers; j++)
            if (!x->in_s[op->consumers[j]]) {
                d += w->bytes[x->sub[i]];
                break;
            }
    }
    return d;
}

/* The connected charge's value of state t, grown on demand (new states:
 * none yet; the empty state, the first one, 0). */
int64_t *lf__win_conn(lf__exact *x, lf__win *w, int32_t t)
{
    if (t >= w->cap_conn) {
        int64_t cap = w->cap_conn ? 2 * w->cap_conn : 1024;
        while (cap <= t)
            cap *= 2;
        int64_t *c = realloc(w->conn, (size_t)cap * sizeof *c);
        if (!c) {
            x->status = lf_set_error(LF_ENOMEM, "out of memory computing bounds");
            return NULL;
        }
        for (int64_t k = w->cap_conn; k < cap; k++)
            c[k] = k == 0 ? 0 : INT64_MAX;
        w->conn = c;
        w->cap_conn = cap;
    }
    return &w->conn[t];
}

/* Both charges over one enumeration: every set relaxes the first (DP's own
 * values), connected ones also the second (w->conn). */
static void lf__win_relax(lf__exact *x, int32_t n, int connected, int64_t d_any, int64_t d_conn)
{
    lf__win *w = x->user;
    int32_t cur = x->cur;
    int32_t t = lf__dp_relax_min(x, &x->sbits, n, d_any);
    if (t < 0 || !connected)
        return;
    int64_t *from = lf__win_conn(x, w, cur), base = from ? *from : INT64_MAX;
    int64_t *to = base != INT64_MAX ? lf__win_conn(x, w, t) : NULL;
    if (to && base + d_conn < *to)
        *to = base + d_conn;
}

/* What a part holding squeeze-and-excite waits of the window's own ops
 * pays at least (wait_pairs.c): its group keeps every map p whole at the
 * start of its waiter m, so F_feat(G, 1) >= p's map, or reads them all
 * again (model.c prices all of a group's waits one way). Kept: its weights
 * stream once they and the rows beside them at one row reach beta (brr.c:
 * the most of the set's rows, p's map and, under BRR, the rows of the
 * floors of m's snapshot and of the sinks' first with p whole,
 * lf__waits_kept_floor), at least as often as the floor of m's snapshot
 * with p's map whole (tile_floor.c, lf_cost_tiles_of_set_holding) beyond
 * the first read, for each wait held (the most of these counts), and where
 * that tile floor or either snapshot's floor at one row already reaches
 * beta no valid group keeps them. Read again: the internal maps' bytes once more, twice for a map
 * the part makes and reads alone (neck_rereads.c), plus the plain
 * re-reads. The cheaper way stays below what the group pays. `plain`: the
 * re-reads without the waits. */
static int64_t lf__win_wait_rereads(const lf__exact *x, lf__win *w, int64_t own, int64_t weights,
                                    int64_t rows, int64_t plain)
{
    int32_t n_held = 0;
    int64_t again = lf__neck_again(x, &w->pairs, w->internal, w->ghost, w->bytes, w->held, &n_held);
    /* Read again costs nothing the window counts unless a map is internal. */
    if (again == 0)
        return plain;
    again += plain;
    int64_t kept = plain;
    for (int32_t i = 0; i < w->pairs.n; i++) {
        int32_t p = w->pairs.map[i], m = w->pairs.m[i], r = w->pairs.r[i];
        if (!x->in_s[r] || !x->in_s[m] || w->ghost[r] || w->ghost[m]) /* as lf__neck_again */
            continue;
        const lf_op *op = &w->g->ops[p];
        int64_t map = w->bytes[p] / (op->out.n > 1 ? op->out.n : 1);
        int32_t tiles = lf_cost_tiles_of_set_holding(w->tiles, x->sub, x->n_sub, p, m);
        /* Where lf__waits_charge does not charge the re-read itself (BRR),
         * the floors of G's snapshots with p whole (window_waits.c, m's;
         * wait_resident.c, the sinks' first): lb_w (0 under BRR) and lb_blk,
         * one weight block, plus feature rows at one row. */
        int64_t kf = w->waits.charge ? 0 : lf__waits_kept_floor(&w->waits, x, m, p, r);
        int64_t feat = kf > 0 ? kf - x->lb_w - x->lb_blk : 0;
        /* Kept, the windows at one row pass beta: read again. */
        if (tiles == 0 || kf >= x->beta)
            return again;
        /* Kept, the weights stay resident only where they fit beside every
         * snapshot's rows at one row (brr.c); else they stream, read once
         * per tile. */
        int64_t held = rows > map ? rows : map;
        held = feat > held ? feat : held;
        if (weights + held >= lf_cost_beta(w->cm) && (int64_t)(tiles - 1) * own > kept)
            kept = (int64_t)(tiles - 1) * own;
    }
    return kept < again ? kept : again;
}

/* The weight reads beyond the first that every group holding the set being
 * grown pays for its members (see the top of the file); -1 when no valid
 * group holds it (asked only where its weights stream: its windows at one
 * row and its weight block reach beta). */
static int64_t lf__win_rereads(const lf__exact *x, lf__win *w)
{
    int64_t weights = 0, own = 0, rows, term, block;
    for (int32_t i = 0; i < x->n_sub; i++) {
        int64_t b = w->wbytes[x->sub[i]];
        weights += b;
        own += w->mine[x->sub[i]] ? b : 0;
    }
    lf__dp_set_need_terms(x, &term, &rows, &block);
    if (own == 0)
        return 0;
    int64_t beta = lf_cost_beta(w->cm), plain = 0;
    if (weights + rows >= beta) {
        int32_t tiles = lf_cost_tiles_of_set_fitting(w->tiles, x->sub, x->n_sub);
        if (tiles == 0)
            return -1;
        if (own < weights) {
            /* The set floor is not monotone in the set: the window's own ops
             * alone may bound more (any group holding the set holds them). */
            int32_t n_own = 0;
            for (int32_t i = 0; i < x->n_sub; i++)
                if (!w->ghost[x->sub[i]])
                    w->own_ops[n_own++] = x->sub[i];
            int32_t t_own = lf_cost_tiles_of_set(w->tiles, w->own_ops, n_own);
            tiles = t_own > tiles ? t_own : tiles;
        }
        plain = (int64_t)(tiles - 1) * own;
    }
    return lf__win_wait_rereads(x, w, own, weights, rows, plain);
}

void lf__win_group(lf__exact *x)
{
    lf__win *w = x->user;
    /* A disconnected part with a closed component is no plan's (window_reads.c),
     * nor one whose view's staging row passes beta (window_views.c). */
    if ((!x->set_connected && lf__win_closed_component(x, w->open, w->seen, ++w->stamp, w->stack)) ||
        lf__win_view_staged(x))
        return;
    /* The connected passes keep the second charge alone (lf__win_dp): there
     * the first one's values only have to stay finite (a state reached has
     * one), so it is neither priced nor asked below. */
    int64_t part = w->connected ? 0 : lf__win_part(x, w), comp = 0;
    if (x->set_connected) /* plus the reads a closed part's group pays (window_reads.c) */
        comp = lf__win_component(x, w) + lf__win_closed_reads(x, w->open, &w->reach, w->internal, w->apart.any, w->bytes, w->seen,
                                                               ++w->stamp);
    /* Re-reads only add to both charges, and their tile floor is most of a
     * window's time under BRR: a set that cannot improve its state under
     * either charge without them (the second alone in a connected pass) is
     * left at once. */
    int32_t t = lf__dp_target_find(x, &x->sbits);
    if (t >= 0 && (w->connected || x->dram[x->cur] + part >= x->dram[t])) {
        int64_t *from = x->set_connected ? lf__win_conn(x, w, x->cur) : NULL;
        int64_t *to = from && *from != INT64_MAX ? lf__win_conn(x, w, t) : NULL;
        if (!to || *from + comp >= *to)
            return;
    }
    /* The DP reaches a set from many states: its re-reads, a function of the
     * set alone within the window, are remembered (under BRR, where they
     * cost a tile floor; PP-OCRv4 detection at 256 KB, window 1-189: about
     * 20 asks per distinct set). */
    int64_t rereads, wait_any, wait_conn;
    if (!w->memo_rereads || !lf__set_memo_get(&w->rereads, &x->sbits, &rereads)) {
        rereads = lf__win_rereads(x, w);
        if (w->memo_rereads)
            lf__set_memo_put(&w->rereads, &x->sbits, rereads);
    }
    if (rereads < 0)
        return;
    lf__waits_charge(&w->waits, x, w->internal, w->bytes, &wait_any, &wait_conn);
    lf__win_relax(x, x->n_sub, x->set_connected, part + rereads + wait_any,
                  x->set_connected ? comp + rereads + wait_conn : 0);
}

/* An unfusable op is a group of its own that DRAM over fusable ops does not
 * count. In the first charge its readers' parts pay for reading its tensor;
 * in the connected one parts pay only for what they write, so the tensor is
 * charged here, read at least once when a fusable op reads it. */
void lf__win_forced(lf__exact *x, int32_t v)
{
    lf__win *w = x->user;
    int64_t d = 0;
    if (w->internal[v])
        for (int32_t j = 0; j < x->g->ops[v].n_consumers && d == 0; j++)
            if (x->fusable[x->g->ops[v].consumers[j]])
                d = w->bytes[v];
    lf_bitset_set(&x->sbits, v);
    lf__win_relax(x, 1, 1, 0, d);
    lf_bitset_reset(&x->sbits, v);
}
