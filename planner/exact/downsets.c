/* The enumeration of candidate groups over the state space of downsets (see
 * downsets.h; the state table and the limits are in downsets_states.c). The number of candidates per state is bounded by the number
 * of downsets, which grows with the graph's width, not its depth. */
#include "planner/exact/downsets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/optable.h"
#include "planner/util/clock.h"

/* Candidate sets between two looks at the clock and the memory charge. */
#define LF__CHECK_EVERY 1024
/* ---- the monotone lower bound of F_beta ---------------------------------- */

static int lf__push_undo(lf__exact *x, int32_t tensor, int32_t old_k, int64_t old_value)
{
    if (x->n_undo == x->cap_undo) {
        int32_t cap = x->cap_undo ? x->cap_undo * 2 : 256;
        lf__undo *u = realloc(x->undo, (size_t)cap * sizeof *u);
        if (!u) {
            x->status = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
            return 0;
        }
        x->undo = u;
        x->cap_undo = cap;
    }
    x->undo[x->n_undo++] = (lf__undo){tensor, old_k, old_value};
    return 1;
}

/* Adds op w to the set and its terms to the bound; returns the undo mark. */
static int32_t lf__add(lf__exact *x, int32_t w)
{
    int32_t mark = x->n_undo;
    const lf_op *op = &x->g->ops[w];
    x->in_s[w] = 1;
    lf_bitset_set(&x->sbits, w);
    x->sub[x->n_sub++] = w;
    x->lb_w += x->wterm[w];
    if (x->wblk[w] > x->lb_blk && lf__push_undo(x, -1, 0, x->lb_blk))
        x->lb_blk = x->wblk[w];
    /* w's own output holds at least one row whatever joins later: a window
     * row if a member reads it, else a staging row (it is read outside or a
     * graph output). Views hold none. */
    if (!x->view[w] && (op->is_output || op->n_consumers > 0) && x->kmax[w] < 1 &&
        lf__push_undo(x, w, x->kmax[w], 0)) {
        x->lb_feat += x->row_bytes[w];
        x->kmax[w] = 1;
    }
    for (int32_t j = 0; j < op->n_inputs; j++) {
        int32_t t = op->inputs[j];
        if (x->view[t] || x->kwin[w] <= x->kmax[t] || lf_cost_global_operand(x->cm, w, j))
            continue;
        int64_t h = x->g->ops[t].out.h;
        int64_t before = x->kmax[t] < h ? x->kmax[t] : h;
        int64_t after = x->kwin[w] < h ? x->kwin[w] : h;
        if (!lf__push_undo(x, t, x->kmax[t], 0))
            break;
        x->lb_feat += (after - before) * x->row_bytes[t];
        x->kmax[t] = x->kwin[w];
    }
    return mark;
}

static void lf__remove(lf__exact *x, int32_t w, int32_t mark)
{
    while (x->n_undo > mark) {
        lf__undo u = x->undo[--x->n_undo];
        if (u.tensor < 0) {
            x->lb_blk = u.old_value;
        } else {
            int64_t h = x->g->ops[u.tensor].out.h;
            int64_t now = x->kmax[u.tensor] < h ? x->kmax[u.tensor] : h;
            int64_t before = u.old_k < h ? u.old_k : h;
            x->lb_feat -= (now - before) * x->row_bytes[u.tensor];
            x->kmax[u.tensor] = u.old_k;
        }
    }
    x->lb_w -= x->wterm[w];
    x->in_s[w] = 0;
    lf_bitset_reset(&x->sbits, w);
    x->n_sub--;
}

/* A lone MatMul that BRR tiles by columns holds neither an output row nor
 * the row windows the terms count (lf_cost_column_tiled): no floor but 0
 * holds for it, and its singleton must be offered at every buffer where it
 * is valid. The terms stay, so a set that grows past it is bounded again. */
static int64_t lf__lower_bound(const lf__exact *x)
{
    if (x->n_sub == 1 && lf_cost_column_tiled(x->cm, x->sub[0]))
        return 0;
    return x->lb_w + x->lb_blk + x->lb_feat;
}

int64_t lf__dp_set_need_floor(const lf__exact *x) { return lf__lower_bound(x); }

void lf__dp_set_need_terms(const lf__exact *x, int64_t *weights, int64_t *rows, int64_t *block)
{
    *weights = x->lb_w;
    *rows = x->lb_feat;
    *block = x->lb_blk;
}

int64_t lf__dp_floor_of(lf__exact *x, const int32_t *ops, int32_t n, int64_t stop)
{
    int32_t mark = x->n_undo, added = 0;
    while (added < n && lf__lower_bound(x) < stop)
        lf__add(x, ops[added++]);
    int64_t floor = lf__lower_bound(x);
    /* Undo entries unwind last in, first out, all of them with the first op. */
    while (added > 0) {
        added--;
        lf__remove(x, ops[added], added == 0 ? mark : x->n_undo);
    }
    return floor;
}

/* op v is ready: not yet placed, and every predecessor in U is done or in the set. */
static int lf__ready(const lf__exact *x, int32_t v)
{
    if (!x->in_u[v] || x->in_d[v] || x->in_s[v])
        return 0;
    const lf_op *op = &x->g->ops[v];
    for (int32_t j = 0; j < op->n_inputs; j++) {
        int32_t p = op->inputs[j];
        if (x->in_u[p] && !x->in_d[p] && !x->in_s[p])
            return 0;
    }
    return 1;
}

/* Weak connectivity of the current set, by a flood fill over its adjacency. */
static int lf__connected(lf__exact *x, int32_t *stack)
{
    int32_t top = 0, seen = 1;
    stack[top++] = x->sub[0];
    x->in_s[x->sub[0]] = 2;
    while (top > 0) {
        int32_t v = stack[--top];
        for (int32_t k = x->adj_start[v]; k < x->adj_start[v + 1]; k++) {
            int32_t u = x->adj[k];
            if (x->in_s[u] == 1) {
                x->in_s[u] = 2;
                stack[top++] = u;
                seen++;
            }
        }
    }
    for (int32_t i = 0; i < x->n_sub; i++)
        x->in_s[x->sub[i]] = 1;
    return seen == x->n_sub;
}

int lf__dp_set_holds_cut(const lf__exact *x)
{
    for (int32_t i = 0; i < x->n_sub; i++)
        if (x->is_cut[x->sub[i]])
            return 1;
    return 0;
}

/* ---- ready ops ------------------------------------------------------------
 *
 * An op is ready when it is in U, not placed, and every predecessor in U is
 * in the state or the set. Scanning for the next one op by op (and each op's
 * inputs) was most of the enumeration's time on wide graphs (NasNet-A: 67%);
 * instead each state counts what every op still lacks, and joining or
 * leaving the set updates the counts of its successors and the bits of the
 * fusable ready ops, so the next ready op is a bit scan. (Past a cut op that
 * is not placed nothing is ready: every later op lies below it, so it lacks
 * a predecessor.) */

static void lf__ready_set(lf__exact *x, int32_t v, int on)
{
    uint64_t bit = (uint64_t)1 << (v & 63);
    if (on)
        x->ready[v >> 6] |= bit;
    else
        x->ready[v >> 6] &= ~bit;
}

/* The smallest fusable ready op >= from, or u_hi. */
static int32_t lf__next_ready(const lf__exact *x, int32_t from)
{
    if (from >= x->u_hi)
        return x->u_hi;
    int32_t w = from >> 6, last = (x->u_hi - 1) >> 6;
    uint64_t bits = x->ready[w] & (~(uint64_t)0 << (from & 63));
    while (!bits && w < last)
        bits = x->ready[++w];
    if (!bits)
        return x->u_hi;
    int32_t v = (w << 6) + __builtin_ctzll(bits);
    return v < x->u_hi ? v : x->u_hi;
}

/* Op u joined the set: it is no longer ready, its successors lack one less. */
static void lf__joined(lf__exact *x, int32_t u)
{
    lf__ready_set(x, u, 0);
    for (int32_t k = x->succ_start[u]; k < x->succ_start[u + 1]; k++) {
        int32_t c = x->succ[k];
        if (--x->pending[c] == 0 && x->fusable[c])
            lf__ready_set(x, c, 1);
    }
}

/* Op u left the set again: the reverse of lf__joined. */
static void lf__left(lf__exact *x, int32_t u)
{
    for (int32_t k = x->succ_start[u]; k < x->succ_start[u + 1]; k++) {
        int32_t c = x->succ[k];
        if (x->pending[c]++ == 0)
            lf__ready_set(x, c, 0);
    }
    lf__ready_set(x, u, 1);
}

/* The counts and bits of state D (in_d set), for the ops of U from lo on
 * (every op of U below lo is in D). */
static void lf__ready_init(lf__exact *x, int32_t lo)
{
    for (int32_t w = lo >> 6; w <= (x->u_hi - 1) >> 6 && x->u_hi > 0; w++)
        x->ready[w] = 0;
    for (int32_t v = lo; v < x->u_hi; v++)
        x->pending[v] = 0;
    for (int32_t v = lo; v < x->u_hi; v++)
        if (x->in_u[v] && !x->in_d[v])
            for (int32_t k = x->succ_start[v]; k < x->succ_start[v + 1]; k++)
                x->pending[x->succ[k]]++;
    for (int32_t v = lo; v < x->u_hi; v++)
        if (x->fusable[v] && !x->in_d[v] && x->pending[v] == 0)
            lf__ready_set(x, v, 1);
}

/* Counts one more set visited by the enumeration; 0 once a limit is past. */
static int lf__visit(lf__exact *x)
{
    if (x->status != LF_OK)
        return 0;
    if (++x->st.candidates > x->cfg.max_candidates) {
        lf__dp_limit(x, "candidate groups", x->cfg.max_candidates, "--max-candidates");
        return 0;
    }
    if ((x->st.candidates & (LF__CHECK_EVERY - 1)) == 0)
        lf__dp_check_budget(x);
    return x->status == LF_OK;
}

/* ---- enumeration of candidate groups -------------------------------------
 *
 * The candidates from state D are the sets S with D u S a downset: order
 * ideals of what is left. Each is generated once by deciding, for the
 * smallest ready op u, to include it or not; an excluded op blocks its
 * descendants for good (they can never become ready), and every op below u is
 * decided or blocked, so the recursion continues from u + 1. A branch that
 * includes an op is cut when the lower bound reaches beta: it only grows. */
static void lf__ideals(lf__exact *x, int32_t from, int32_t *stack);

/* The set being grown is complete: price it (connected sets, or any set in
 * a relaxation), and hand it on as a tail or a head of a cut op. */
static void lf__leaf(lf__exact *x, int32_t *stack)
{
    int head = x->join_cuts && x->cur_cut >= 0 && x->s_cut < 0;
    x->set_connected = (!x->any_set || x->tell_connected) ? lf__connected(x, stack) : 0;
    if (x->any_set || x->set_connected) {
        x->st.groups++;
        x->on_group(x); /* ops joined in id order: sub is ascending */
        /* Pricing is the costly part (and the curve's fronts grow with it):
         * look at the clock between priced groups as well. */
        if ((x->st.groups & (LF__CHECK_EVERY / 4 - 1)) == 0)
            lf__dp_check_budget(x);
    }
    if (x->join_cuts && x->s_cut >= 0)
        x->on_tail(x, x->s_cut);
    if (head)
        x->on_head(x, x->cur_cut);
}

/* Includes ready op u and goes on from u + 1, when the bound allows. */
static void lf__include(lf__exact *x, int32_t u, int32_t *stack)
{
    int32_t mark = lf__add(x, u), s_cut = x->s_cut;
    if (lf__lower_bound(x) < x->beta) {
        if (x->is_cut[u])
            x->s_cut = u;
        lf__joined(x, u);
        lf__ideals(x, u + 1, stack);
        lf__left(x, u);
        x->s_cut = s_cut;
    }
    lf__remove(x, u, mark);
}

static void lf__ideals(lf__exact *x, int32_t from, int32_t *stack)
{
    if (!lf__visit(x))
        return;
    int32_t u = lf__next_ready(x, from);
    if (x->join_cuts && x->s_cut >= 0) {
        /* Past a cut op the set can only end at the next one, which every op
         * in between lies below: include each, leave none out (the sets
         * that stop in between are heads, cut_join.c). */
        if (x->sub[x->n_sub - 1] == x->s_cut)
            lf__leaf(x, stack);
        if (u < x->u_hi)
            lf__include(x, u, stack);
        return;
    }
    if (u >= x->u_hi) {
        if (x->n_sub > 0)
            lf__leaf(x, stack);
        return;
    }
    lf__include(x, u, stack);
    lf__ideals(x, u + 1, stack);
}

/* ---- connected candidates --------------------------------------------------
 *
 * The exact DPs price connected sets only, and on wide graphs most order
 * ideals are not connected (a NasNet-A cell: 4.4 million ideals visited for
 * 107 thousand connected ones; RandWire: 75 to 1). There the candidates are
 * grown as connected sets instead, each once, by Wernicke's ESU: a set's
 * smallest op is its anchor (it is ready: its predecessors have smaller ids),
 * and the set grows from it along the adjacency by the ops of an extension
 * list; an op taken from the list stays out of every later sibling, and a
 * new member adds to the list only its neighbours that neighbour no member
 * yet, so no set is reached twice. D u S must be a downset: a member that
 * reads an op neither placed nor a member leaves that op pending; a set is a
 * candidate when nothing is pending, a pending op in the list joins next
 * (ESU may take the list in any order, and no set without it can close, so
 * that branch is the only one), and an op whose predecessor can no longer
 * join is not taken. Sets holding a cut op grow by
 * whole blocks (lf__cut_chain); the heads at a cut state are not connected
 * sets and keep the ideal enumeration. */

/* Op u may still join the set of the current anchor. */
static int lf__esu_eligible(const lf__exact *x, int32_t u)
{
    return x->fusable[u] && !x->in_d[u] && !x->in_s[u] && u > x->anchor &&
           !(x->join_cuts && x->is_cut[u]);
}

/* Every predecessor of w that is not placed or a member can still join:
 * eligible, and in the list or outside the members' neighbourhood (then w
 * brings it into the list); one that neighbours a member but is not in the
 * list was taken out for good. */
static int lf__esu_viable(const lf__exact *x, int32_t w)
{
    const lf_op *op = &x->g->ops[w];
    for (int32_t j = 0; j < op->n_inputs; j++) {
        int32_t p = op->inputs[j];
        if (!x->in_u[p] || x->in_d[p] || x->in_s[p])
            continue;
        if (!lf__esu_eligible(x, p) || (x->nadj[p] > 0 && !x->in_x[p]))
            return 0;
    }
    return 1;
}

static int32_t lf__esu_join(lf__exact *x, int32_t w)
{
    if (x->need[w] > 0)
        x->n_pending--;
    int32_t mark = lf__add(x, w);
    const lf_op *op = &x->g->ops[w];
    for (int32_t j = 0; j < op->n_inputs; j++) {
        int32_t p = op->inputs[j];
        if (x->in_u[p] && !x->in_d[p] && x->need[p]++ == 0 && !x->in_s[p])
            x->n_pending++;
    }
    for (int32_t k = x->adj_start[w]; k < x->adj_start[w + 1]; k++)
        x->nadj[x->adj[k]]++;
    return mark;
}

static void lf__esu_leave(lf__exact *x, int32_t w, int32_t mark)
{
    for (int32_t k = x->adj_start[w]; k < x->adj_start[w + 1]; k++)
        x->nadj[x->adj[k]]--;
    const lf_op *op = &x->g->ops[w];
    for (int32_t j = 0; j < op->n_inputs; j++) {
        int32_t p = op->inputs[j];
        if (x->in_u[p] && !x->in_d[p] && --x->need[p] == 0 && !x->in_s[p])
            x->n_pending--;
    }
    lf__remove(x, w, mark);
    if (x->need[w] > 0)
        x->n_pending++;
}

/* A candidate: the hooks see its ops in ascending order. */
static void lf__esu_leaf(lf__exact *x)
{
    int32_t *grown = x->sub, n = x->n_sub;
    for (int32_t i = 0; i < n; i++) {
        int32_t v = grown[i], k = i;
        for (; k > 0 && x->sorted[k - 1] > v; k--)
            x->sorted[k] = x->sorted[k - 1];
        x->sorted[k] = v;
    }
    x->sub = x->sorted;
    x->set_connected = 1;
    x->st.groups++;
    x->on_group(x);
    if ((x->st.groups & (LF__CHECK_EVERY / 4 - 1)) == 0)
        lf__dp_check_budget(x);
    x->sub = grown;
}

static int lf__esu_room(lf__exact *x, int64_t need)
{
    if (need <= x->esu_cap)
        return 1;
    int64_t cap = x->esu_cap ? x->esu_cap : 1024;
    while (cap < need)
        cap *= 2;
    int32_t *e = realloc(x->esu, (size_t)cap * sizeof *e);
    if (!e) {
        x->status = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
        return 0;
    }
    x->esu = e;
    x->esu_cap = cap;
    return 1;
}

/* The connected sets holding the current set and ops of the list
 * esu[base, base + n) (every one with in_x set). */
static void lf__esu_grow(lf__exact *x, int64_t base, int32_t n)
{
    if (!lf__visit(x))
        return;
    int32_t from = 0, to = n, forced = -1;
    if (x->n_pending == 0) {
        lf__esu_leaf(x);
    } else {
        /* A list op that a member reads is pending: it joins first, with
         * the rest of the list (the list's order is ESU's to choose), and
         * no set without it can be a candidate. */
        forced = 0;
        while (forced < n && x->need[x->esu[base + forced]] == 0)
            forced++;
        if (forced == n)
            return; /* what is pending can no longer join */
        from = forced;
        to = forced + 1;
    }
    for (int32_t i = from; i < to && x->status == LF_OK; i++) {
        int32_t w = x->esu[base + i];
        x->in_x[w] = 0;
        if (!lf__esu_viable(x, w))
            continue;
        int32_t deg = x->adj_start[w + 1] - x->adj_start[w];
        int64_t child = base + n;
        if (!lf__esu_room(x, child + n + deg))
            return;
        int32_t m = 0;
        for (int32_t k = forced >= 0 ? 0 : i + 1; k < n; k++)
            if (k != i)
                x->esu[child + m++] = x->esu[base + k];
        int32_t kept = m;
        for (int32_t k = x->adj_start[w]; k < x->adj_start[w + 1]; k++) {
            int32_t u = x->adj[k];
            if (u != w && x->nadj[u] == 0 && !x->in_x[u] && lf__esu_eligible(x, u)) {
                x->esu[child + m++] = u;
                x->in_x[u] = 1;
            }
        }
        int32_t mark = lf__esu_join(x, w);
        if (lf__lower_bound(x) < x->beta)
            lf__esu_grow(x, child, m);
        lf__esu_leave(x, w, mark);
        for (int32_t k = kept; k < m; k++)
            x->in_x[x->esu[child + k]] = 0;
    }
    for (int32_t i = 0; i < n; i++)
        x->in_x[x->esu[base + i]] = 1;
}

/* Every connected candidate from the current state (ready bits set). */
static void lf__esu_sets(lf__exact *x, int32_t lo)
{
    for (int32_t a = lf__next_ready(x, lo); a < x->u_hi && x->status == LF_OK; a = lf__next_ready(x, a + 1)) {
        if (x->join_cuts && x->is_cut[a])
            continue;
        x->anchor = a;
        int32_t mark = lf__esu_join(x, a);
        if (lf__lower_bound(x) < x->beta && lf__esu_room(x, x->adj_start[a + 1] - x->adj_start[a])) {
            int32_t m = 0;
            for (int32_t k = x->adj_start[a]; k < x->adj_start[a + 1]; k++) {
                int32_t u = x->adj[k];
                if (u != a && !x->in_x[u] && lf__esu_eligible(x, u)) {
                    x->esu[m++] = u;
                    x->in_x[u] = 1;
                }
            }
            lf__esu_grow(x, 0, m);
            for (int32_t k = 0; k < m; k++)
                x->in_x[x->esu[k]] = 0;
        }
        lf__esu_leave(x, a, mark);
    }
}

/* The sets holding cut ops from a state below the first cut op c that it
 * lacks: such a set holds every op of U below c that the state lacks (they
 * all lie below c), and past c it can only end at the next cut op, holding
 * every op in between; each is a tail of its last cut op (lf__leaf), until
 * an unfusable op or the buffer's floor stops the chain. */
static void lf__cut_chain(lf__exact *x, int32_t lo, int32_t *stack)
{
    int32_t added = 0, mark = x->n_undo;
    for (int32_t v = lo; v < x->u_hi; v++) {
        if (!x->in_u[v] || x->in_d[v])
            continue;
        if (!x->fusable[v] || !lf__visit(x))
            break;
        lf__add(x, v);
        added++;
        if (lf__lower_bound(x) >= x->beta)
            break;
        if (x->is_cut[v]) {
            x->s_cut = v;
            lf__leaf(x, stack);
        }
    }
    while (added > 0) {
        added--;
        lf__remove(x, x->sub[x->n_sub - 1], added == 0 ? mark : x->n_undo);
    }
    x->s_cut = -1;
}

/* 1 when state s holds exactly the ops of U up to a cut op (its sets are
 * that op's heads: lf__expand). */
static int lf__head_state(const lf__exact *x, int32_t s)
{
    const uint64_t *d = x->words + (size_t)s * x->nwords;
    int32_t lo = x->u_hi;
    for (int32_t v = x->u_lo; v < x->u_hi && lo == x->u_hi; v++)
        if (x->in_u[v] && !((d[v >> 6] >> (v & 63)) & 1u))
            lo = v;
    int32_t top = lo - 1;
    while (top >= x->u_lo && !x->in_u[top])
        top--;
    return top >= x->u_lo && x->is_cut[top] && x->size[s] == x->u_before[lo];
}

/* Expands one state: forced unfusable singletons and every candidate group. */
static void lf__expand(lf__exact *x, int32_t s, int32_t *stack)
{
    const uint64_t *d = x->words + (size_t)s * x->nwords;
    x->cur = s;
    int32_t lo = x->u_hi; /* no op below the first unplaced one of U can be ready */
    for (int32_t v = x->u_lo; v < x->u_hi; v++) {
        x->in_d[v] = (uint8_t)((d[v >> 6] >> (v & 63)) & 1u);
        if (lo == x->u_hi && x->in_u[v] && !x->in_d[v])
            lo = v;
    }
    for (int32_t v = lo; v < x->u_hi && x->status == LF_OK; v++) {
        int32_t c = x->cut_before[v];
        if (c >= 0 && !x->in_d[c])
            break;
        if (!x->fusable[v] && lf__ready(x, v))
            x->on_forced(x, v);
    }
    lf__ready_init(x, lo);
    /* The state of all ops of U up to a cut op: its sets are that op's heads. */
    int32_t top = lo - 1;
    while (top >= x->u_lo && !x->in_u[top])
        top--;
    x->cur_cut = x->join_cuts && top >= x->u_lo && x->is_cut[top] &&
                         x->size[s] == x->u_before[lo]
                     ? top
                     : -1;
    x->s_cut = -1;
    if (x->any_set || x->ideal_sets || x->cur_cut >= 0) {
        lf__ideals(x, lo, stack);
    } else {
        lf__esu_sets(x, lo);
        if (x->join_cuts)
            lf__cut_chain(x, lo, stack);
    }
    if (x->on_expanded && x->status == LF_OK)
        x->on_expanded(x);
}

/* ---- set-up and the run ---------------------------------------------------- */

/* The limits are the DP's to interpret, so their defaults live with it (the
 * planner, curve.c and the CLI all start from them). */
void lf_exact_config_default(lf_exact_config *c)
{
    c->max_states = LF_EXACT_DEFAULT_STATES;
    c->max_candidates = LF_EXACT_DEFAULT_CANDIDATES;
    c->time_limit_s = LF_EXACT_DEFAULT_TIME_S;
    c->memory_limit = LF_EXACT_DEFAULT_MEMORY;
    c->threads = 0;
    c->deadline = 0;
    c->lower_bound = 0;
    c->objective = 0;
    c->estimate_after = 0;
    c->upper_bound = 0;
    c->upper_plan = NULL;
}

lf_status lf__dp_setup(lf__exact *x, lf_cost_model *cm, const lf_bitset *universe,
                           const lf_exact_config *cfg)
{
    const lf_graph *g = lf_cost_graph(cm);
    memset(x, 0, sizeof *x);
    x->cm = cm;
    x->g = g;
    lf_exact_config_default(&x->cfg);
    if (cfg)
        x->cfg = *cfg;
    x->n = g->n_ops;
    x->nwords = LF_BITSET_WORDS(g->n_ops);
    x->beta = lf_cost_beta(cm);
    x->resident = lf_cost_weights_resident(cm);
    size_t n = (size_t)g->n_ops;
    x->in_u = calloc(n, 1);
    x->fusable = calloc(n, 1);
    x->in_d = calloc(n, 1);
    x->in_s = calloc(n, 1);
    x->seen = calloc(n, 1);
    x->view = calloc(n, 1);
    x->wterm = calloc(n, sizeof(int64_t));
    x->wblk = calloc(n, sizeof(int64_t));
    x->row_bytes = calloc(n, sizeof(int64_t));
    x->kwin = calloc(n, sizeof(int32_t));
    x->kmax = calloc(n, sizeof(int32_t));
    x->sub = calloc(n + 1, sizeof(int32_t));
    x->adj_start = calloc(n + 1, sizeof(int32_t));
    x->bucket = calloc(n + 1, sizeof(int32_t *));
    x->bucket_n = calloc(n + 1, sizeof(int32_t));
    x->bucket_cap = calloc(n + 1, sizeof(int32_t));
    x->cut_before = calloc(n + 1, sizeof(int32_t));
    x->u_before = calloc(n + 1, sizeof(int32_t));
    x->s_cut = x->cur_cut = -1;
    x->need = calloc(n, sizeof(int32_t));
    x->nadj = calloc(n, sizeof(int32_t));
    x->sorted = calloc(n + 1, sizeof(int32_t));
    x->in_x = calloc(n, 1);
    if (!x->need || !x->nadj || !x->sorted || !x->in_x)
        return lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
    if (!x->cut_before || !x->u_before || !x->in_u || !x->fusable || !x->in_d || !x->in_s || !x->seen || !x->view || !x->wterm ||
        !x->wblk ||
        !x->row_bytes || !x->kwin || !x->kmax || !x->sub || !x->adj_start || !x->bucket ||
        !x->bucket_n || !x->bucket_cap)
        return lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
    lf_status st;
    if ((st = lf_bitset_init(&x->sbits, g->n_ops)) || (st = lf_bitset_init(&x->next, g->n_ops)) ||
        (st = lf_hashmap_init(&x->index, 1024)))
        return st;
    x->next_minima = calloc((size_t)x->nwords, 8);
    if (!x->next_minima)
        return lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
    for (int32_t v = 0; v < g->n_ops; v++) {
        const lf_op *op = &g->ops[v];
        x->in_u[v] = (uint8_t)((!universe || lf_bitset_test(universe, v)) && op->type != LF_OP_INPUT);
        x->fusable[v] = (uint8_t)(x->in_u[v] && lf_cost_fusable(cm, v));
        lf_row_kind kind = lf_op_row_kind(g, v);
        x->view[v] = (uint8_t)(kind == LF_ROWS_VIEW || lf_op_has(op->type, LF_OPF_RESHAPES_ROWS) ||
                               lf_cost_view(cm, v));
        /* The cost model's own charge (the scheme's hook), not a copy of it. */
        lf_cost_weight_bound(cm, v, &x->wterm[v], &x->wblk[v]);
        x->row_bytes[v] = lf_cost_row_floor(cm, v);
        int32_t k = 1, s, p;
        if (kind == LF_ROWS_WINDOW)
            lf_op_row_window(op, &k, &s, &p);
        x->kwin[v] = k < 1 ? 1 : k;
    }
    for (int32_t v = 0; v < g->n_ops; v++)
        x->u_before[v + 1] = x->u_before[v] + x->in_u[v];
    /* Only ops of U are ever ready: scans stop at its ends. */
    x->u_lo = g->n_ops;
    for (int32_t v = 0; v < g->n_ops; v++)
        if (x->in_u[v]) {
            x->u_lo = v < x->u_lo ? v : x->u_lo;
            x->u_hi = v + 1;
        }
    /* Cut ops of U, kept as the largest one below each op. */
    uint8_t *is_cut = x->is_cut = calloc(n + 1, 1);
    int32_t cuts = is_cut ? lf__dp_cut_ops(g, x->in_u, is_cut) : -1;
    if (cuts < 0)
        return lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
    x->n_cuts = cuts;
    for (int32_t v = 0, last = -1; v < g->n_ops; v++) {
        x->cut_before[v] = last;
        if (is_cut[v])
            last = v;
    }
    /* Adjacency among fusable ops of U (both directions, deduplicated). */
    for (int32_t v = 0; v < g->n_ops; v++)
        if (x->fusable[v])
            for (int32_t j = 0; j < g->ops[v].n_inputs + g->ops[v].n_consumers; j++) {
                const lf_op *op = &g->ops[v];
                int32_t u = j < op->n_inputs ? op->inputs[j] : op->consumers[j - op->n_inputs];
                if (x->fusable[u])
                    x->adj_start[v + 1]++;
            }
    for (int32_t v = 0; v < g->n_ops; v++)
        x->adj_start[v + 1] += x->adj_start[v];
    x->adj = malloc((size_t)(x->adj_start[g->n_ops] + 1) * sizeof(int32_t));
    if (!x->adj)
        return lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
    for (int32_t v = 0; v < g->n_ops; v++) {
        if (!x->fusable[v])
            continue;
        int32_t at = x->adj_start[v];
        const lf_op *op = &g->ops[v];
        for (int32_t j = 0; j < op->n_inputs + op->n_consumers; j++) {
            int32_t u = j < op->n_inputs ? op->inputs[j] : op->consumers[j - op->n_inputs];
            int dup = 0;
            for (int32_t k = x->adj_start[v]; k < at; k++)
                dup |= x->adj[k] == u;
            if (x->fusable[u] && !dup)
                x->adj[at++] = u;
        }
        for (; at < x->adj_start[v + 1]; at++)
            x->adj[at] = v; /* padding from duplicate edges: a self-loop ESU ignores */
    }
    /* Distinct successors within U (an op may read one tensor twice). */
    x->succ_start = calloc(n + 1, sizeof(int32_t));
    x->pending = calloc(n + 1, sizeof(int32_t));
    x->ready = calloc((size_t)x->nwords + 1, 8);
    if (!x->succ_start || !x->pending || !x->ready)
        return lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
    for (int32_t v = 0; v < g->n_ops; v++)
        if (x->in_u[v])
            x->succ_start[v + 1] = g->ops[v].n_consumers;
    for (int32_t v = 0; v < g->n_ops; v++)
        x->succ_start[v + 1] += x->succ_start[v];
    x->succ = malloc((size_t)(x->succ_start[g->n_ops] + 1) * sizeof(int32_t));
    if (!x->succ)
        return lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
    /* Lists are packed as they are filled: a list starts where the one
     * before ended and never runs past its own first estimate. */
    for (int32_t v = 0; v < g->n_ops; v++) {
        int32_t at = x->succ_start[v];
        for (int32_t j = 0; x->in_u[v] && j < g->ops[v].n_consumers; j++) {
            int32_t c = g->ops[v].consumers[j], dup = 0;
            for (int32_t k = x->succ_start[v]; k < at; k++)
                dup |= x->succ[k] == c;
            if (x->in_u[c] && !dup)
                x->succ[at++] = c;
        }
        x->succ_start[v + 1] = at;
    }
    return LF_OK;
}

void lf__dp_teardown(lf__exact *x)
{
    free(x->in_u);
    free(x->fusable);
    free(x->in_d);
    free(x->in_s);
    free(x->seen);
    free(x->view);
    free(x->wterm);
    free(x->wblk);
    free(x->row_bytes);
    free(x->kwin);
    free(x->kmax);
    free(x->sub);
    free(x->need);
    free(x->nadj);
    free(x->sorted);
    free(x->in_x);
    free(x->esu);
    free(x->adj_start);
    free(x->succ_start);
    free(x->succ);
    free(x->pending);
    free(x->ready);
    free(x->cut_before);
    free(x->u_before);
    free(x->is_cut);
    free(x->adj);
    free(x->undo);
    free(x->words);
    free(x->dram);
    free(x->groups);
    free(x->minima);
    free(x->next_minima);
    free(x->prev);
    free(x->size);
    if (x->bucket)
        for (int32_t i = 0; i <= x->n; i++)
            free(x->bucket[i]);
    free(x->bucket);
    free(x->bucket_n);
    free(x->bucket_cap);
    lf_bitset_destroy(&x->sbits);
    lf_bitset_destroy(&x->next);
    lf_hashmap_destroy(&x->index);
}

int32_t lf__dp_relax_min(lf__exact *x, const lf_bitset *s, int32_t n, int64_t d)
{
    int64_t nd = x->dram[x->cur] + d;
    int32_t t = lf__dp_target(x, s, n);
    if (t >= 0 && nd < x->dram[t]) {
        x->dram[t] = nd;
        x->prev[t] = x->cur;
    }
    return t;
}

lf_status lf__dp_run_back(lf__exact *x)
{
    int32_t *stack = malloc(((size_t)x->n + 1) * sizeof(int32_t));
    if (!stack)
        return x->status = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
    x->progress = 1; /* the forward run's pace no longer applies */
    for (int32_t size = x->n; size >= 0 && x->status == LF_OK; size--)
        for (int32_t k = 0; k < x->bucket_n[size] && x->status == LF_OK; k++)
            lf__expand(x, x->bucket[size][k], stack);
    free(stack);
    return x->status;
}

int32_t lf__dp_run(lf__exact *x)
{
    x->t0 = lf_now_seconds();
    /* A shared deadline tightens the time limit (a passed one stops the
     * run at its first check); messages name the limit as given. */
    x->named_limit_s = x->cfg.time_limit_s;
    if (x->cfg.deadline > 0) {
        double left = x->cfg.deadline - x->t0;
        if (x->cfg.time_limit_s <= 0 || left < x->cfg.time_limit_s)
            x->cfg.time_limit_s = left > 1e-9 ? left : 1e-9;
    }
    int32_t n_u = 0;
    uint64_t *full = calloc((size_t)x->nwords, 8), *empty = calloc((size_t)x->nwords, 8);
    int32_t *stack = malloc(((size_t)x->n + 1) * sizeof(int32_t));
    if (!full || !empty || !stack) {
        free(full);
        free(empty);
        free(stack);
        x->status = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
        return -1;
    }
    for (int32_t v = 0; v < x->n; v++)
        if (x->in_u[v]) {
            full[v >> 6] |= (uint64_t)1 << (v & 63);
            n_u++;
        }
    int32_t start = lf__dp_state(x, empty, 0);
    if (start >= 0) {
        x->dram[start] = 0;
        x->groups[start] = 0;
    }
    for (int32_t size = 0; size < n_u && x->status == LF_OK; size++) {
        for (int32_t k = 0; k < x->bucket_n[size] && x->status == LF_OK; k++) {
            x->progress = (size + (double)k / x->bucket_n[size]) / n_u;
            int32_t s = x->bucket[size][k];
            /* A pruned state is left as no plan reaches it; a cut state
             * still offers its heads to the tails of states before it. */
            if (x->prune && x->dram[s] != INT64_MAX && x->prune(x, s)) {
                x->dram[s] = INT64_MAX;
                x->st.pruned++;
                if (!x->join_cuts || !lf__head_state(x, s))
                    continue;
            }
            lf__expand(x, s, stack);
        }
        if (x->on_size_done && x->status == LF_OK)
            x->on_size_done(x, size);
    }
    int32_t goal = x->status == LF_OK ? lf__dp_state(x, full, n_u) : -1;
    lf__dp_check_budget(x); /* the peak memory, for the statistics */
    x->st.wall_s = lf_now_seconds() - x->t0;
    free(full);
    free(empty);
    free(stack);
    return x->status == LF_OK ? goal : -1;
}
