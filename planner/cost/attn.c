/* Pricing of a group that holds a product of two activations (DESIGN §16,
 * docs/cost-models.md "Attention"). The row windows (rows.c) stream Q, S, P
 * and O by query rows and ask nothing of the global-window operands K and V;
 * this file adds them, for every way of running the group, and keeps the
 * cheapest valid one:
 *
 *   order    heads inside each query tile (any group), or heads one after
 *            another (only a group whose ops all work per head: each head's
 *            K/V alone, every row window a head's share);
 *   K/V      resident (held whole, read once) or streamed (read again for
 *            every query tile of Br rows; causal tiles read only the keys up
 *            to their diagonal, counted block by block; a K/V made inside
 *            the group is written once and read back);
 *   softmax  whole key rows (the score windows of rows.c) or, when the group
 *            holds the whole core with S and P inside, key blocks of Bc rows
 *            with online softmax: a Br x Bc score tile, an accumulator
 *            Br x dh and statistics 2 Br at b_acc = 4 bytes;
 *   weights  resident, or (BRR) streamed once per query tile.
 *
 * Query tiles are balanced: R tiles of Br = ceil(N_q / R) rows. need(Br)
 * grows with Br by construction (lf__feat counts every state of the
 * schedule), so the tiles that fit a buffer are the heights up to the
 * largest that fits (lf__fit), and the price takes the cheapest of them
 * (lf__cheapest: fewer tiles are not always cheaper under causal masks).
 * F_D is then the minimum over the (need, F_D) of every configuration and
 * height that fits, a step function of the buffer whose steps are exactly
 * those pairs (lf__attn_steps): the staircase and the price at any buffer
 * agree by construction, both from lf__need and lf__fd.
 * A K/V made inside the group must be complete before the first query tile:
 * the group runs in two passes, and an input read in both is read twice. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost_internal.h"

#define LF__ATTN_MAX_KV 16
#define LF__ACC_BYTES 4 /* b_acc: the output accumulator and softmax statistics */
#define LF__FEAT_BITS 8 /* the f(h) cache: 256 entries */

typedef struct lf__kv {
    int64_t bytes;  /* the operand's source tensor */
    int64_t nk;     /* key rows */
    int64_t heads;  /* heads of the product that reads it */
    int internal;   /* made by a member (not a view of a group input) */
    int out;        /* also written for a reader outside */
    int32_t causal; /* g stacks of causal query rows (0: not causal) */
    /* lf__need's terms, divided once: it is asked at every tile height of
     * every configuration (tens of millions of times on bert_large BRR) */
    int64_t row;    /* one key row of one head */
    int64_t head;   /* one head's share */
} lf__kv;

typedef struct lf__attn {
    lf__group *G;
    lf__priced p;
    const lf__scheme *scheme;
    lf__kv kv[LF__ATTN_MAX_KV];
    int32_t n_kv;
    int64_t hq;        /* query rows */
    int64_t heads;     /* heads of the group's products (the most) */
    int64_t dh;        /* width of the value products' outputs (the accumulator) */
    int64_t nk_min;    /* fewest key rows of a core (the largest Bc) */
    int64_t pass_dram; /* inputs read in both passes */
    int per_head, online, causal, core;
    int64_t act;
    /* lf__need's and lf__kv_dram's sums over the K/V, taken once: both are
     * asked at every tile height of every configuration (a group of two
     * Llama layers reads four K/V alike). kv_head, kv_bytes, kv_row: the
     * sums of head, bytes and row; kv_rep[u] (n_rep of them) an operand
     * standing for kv_mult[u] of the same source size, key rows and mask,
     * whose reads are alike; kv_fix the first reads and write-backs. */
    int64_t kv_head, kv_bytes, kv_row, kv_fix;
    int32_t n_rep, kv_rep[LF__ATTN_MAX_KV], kv_mult[LF__ATTN_MAX_KV];
    /* Where the windows come from when not from G: a pair joined at a cut
     * op counts its states from its two sides (cut_sides.c). */
    lf__attn_counts counts;
    void *counts_ctx;
    /* The row windows at h, each way of counting (2 per_head + online),
     * kept: configurations share them, and the staircase walks every
     * balanced tile height of each in turn (64 heights at N_q = 1024: a
     * table of 32 was refilled per configuration). */
    int64_t cache_h[1 << LF__FEAT_BITS], cache_f[1 << LF__FEAT_BITS][LF__MAX_COUNTS];
} lf__attn;

typedef struct lf__cfg {
    int per_head, resident, online, wres;
} lf__cfg;

static int64_t lf__cdiv(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : a; }

static int64_t lf__bc(const lf__attn *a, const lf__cfg *c, int64_t h)
{
    if (!c->online)
        return a->nk_min;
    return h < a->nk_min ? h : a->nk_min;
}

/* The row windows of a configuration at Br = h query rows, the most any
 * state of the group's schedule holds (rows.c), each state counted this
 * configuration's way: heads one after another share the windows that are
 * not score maps (a head's share each), and online softmax holds, in a state
 * that holds score maps, the tile Br x Bc with the accumulator Br x dh and
 * the statistics 2 Br instead. A state without score maps (the pass that
 * makes a K/V, say) holds no tile. */
static int64_t lf__feat(lf__attn *a, const lf__cfg *c, int64_t h)
{
    int32_t k = (int32_t)((uint64_t)h * 0x9e3779b97f4a7c15ull >> (64 - LF__FEAT_BITS)),
            w = 2 * c->per_head + c->online;
    if (a->cache_h[k] != h) { /* all four ways in one pass over the states */
        lf__cfg on = {0, 0, 1, 0};
        int64_t tile = h * lf__bc(a, &on, h) * a->act + (h * a->dh + 2 * h) * LF__ACC_BYTES;
        lf__count ways[LF__MAX_COUNTS] = {{1, -1}, {1, tile}, {a->heads, -1}, {a->heads, tile}};
        if (a->counts) {
            a->counts(a->counts_ctx, h, ways, LF__MAX_COUNTS, a->cache_f[k]);
            a->cache_h[k] = h;
            return a->cache_f[k][w];
        }
        lf__group *G = a->G;
        G->count = ways;
        G->n_count = LF__MAX_COUNTS;
        for (int32_t x = 0; x < LF__MAX_COUNTS; x++)
            G->count_max[x] = -1;
        a->p.features(a->p.ctx, h, NULL);
        G->n_count = 0;
        G->count = NULL;
        a->cache_h[k] = h;
        memcpy(a->cache_f[k], G->count_max, sizeof a->cache_f[k]);
    }
    return a->cache_f[k][w];
}

/* Follows an operand through members that only move data to its source. */
static int32_t lf__source(const lf__group *G, int32_t l)
{
    const lf_graph *g = G->cm->g;
    while (l < G->n && G->cm->ops[G->tensor[l]].layout && g->ops[G->tensor[l]].n_inputs == 1)
        l = G->in_loc[G->in_off[l]];
    return l;
}

/* *present = 1 when the group holds a product of two activations; fills a. */
static lf_status lf__attn_setup(lf__attn *a, lf__group *G, const lf__scheme *scheme, int *present)
{
    const lf_cost_model *cm = G->cm;
    const lf_graph *g = cm->g;
    const lf__op_cost *oc = cm->ops;
    /* The cached windows are read only where their height matches (no
     * height is 0): clearing them too was 8 KB a group. */
    memset(a, 0, offsetof(lf__attn, cache_f));
    *present = 0;
    a->G = G;
    a->scheme = scheme;
    a->act = cm->hw.act_bytes;
    int32_t src[LF__ATTN_MAX_KV];
    int any = 0, soft_pv = 0, score_mm = 0;
    for (int32_t i = 0; i < G->n; i++) {
        int32_t v = G->tensor[i];
        if (!oc[v].global_in)
            continue;
        any = 1;
        const lf_op *op = &g->ops[v];
        if (oc[v].h > a->hq)
            a->hq = oc[v].h;
        if (oc[v].heads > a->heads)
            a->heads = oc[v].heads;
        if (oc[v].score) {
            score_mm = 1;
            if (a->nk_min == 0 || op->out.w < a->nk_min)
                a->nk_min = op->out.w;
        } else {
            a->dh += op->out.w;
        }
        int32_t in0 = G->in_loc[G->in_off[i]];
        if (in0 < G->n && g->ops[G->tensor[in0]].type == LF_OP_SOFTMAX && oc[G->tensor[in0]].score)
            soft_pv = 1;
        for (int32_t j = 0; j < op->n_inputs; j++) {
            if (!((oc[v].global_in >> j) & 1))
                continue;
            int32_t l = lf__source(G, G->in_loc[G->in_off[i] + j]);
            int32_t k = 0;
            while (k < a->n_kv && src[k] != l)
                k++;
            if (k == a->n_kv) {
                if (a->n_kv == LF__ATTN_MAX_KV)
                    continue; /* more than any attention layer has: priced as read once */
                const lf_op *b = &g->ops[op->inputs[j]];
                int64_t nk = oc[v].score ? op->out.w : op->attr.trans_b ? b->out.w : b->out.h;
                src[k] = l;
                a->kv[k] = (lf__kv){oc[op->inputs[j]].tensor_bytes, nk > 0 ? nk : 1,
                                    oc[v].heads > 0 ? oc[v].heads : 1, l < G->n, l < G->n && G->out[l],
                                    oc[v].causal, 0, 0};
                a->n_kv++;
            }
            if (oc[v].causal > a->kv[k].causal)
                a->kv[k].causal = oc[v].causal;
        }
        a->causal |= oc[v].causal > 0;
    }
    if (!any)
        return LF_OK;
    for (int32_t k = 0; k < a->n_kv; k++) {
        lf__kv *kv = &a->kv[k];
        kv->row = lf__cdiv(kv->bytes, kv->nk * kv->heads);
        kv->head = lf__cdiv(kv->bytes, kv->heads);
        a->kv_head += kv->head;
        a->kv_bytes += kv->bytes;
        a->kv_row += kv->row;
        if (!kv->internal)
            a->kv_fix -= kv->bytes; /* its first read is the group's input */
        else if (!kv->out)
            a->kv_fix += kv->bytes; /* written once to be read back */
        int32_t u = 0;
        while (u < a->n_rep && !(a->kv[a->kv_rep[u]].bytes == kv->bytes && a->kv[a->kv_rep[u]].nk == kv->nk &&
                                 a->kv[a->kv_rep[u]].causal == kv->causal))
            u++;
        if (u == a->n_rep) {
            a->kv_rep[a->n_rep] = k;
            a->kv_mult[a->n_rep++] = 0;
        }
        a->kv_mult[u]++;
    }
    if (a->heads < 1)
        a->heads = 1;
    /* Whether S and P stay inside. */
    int score_out = 0;
    a->per_head = a->heads > 1;
    for (int32_t i = 0; i < G->n; i++) {
        int32_t v = G->tensor[i];
        if (oc[v].score)
            score_out |= G->out[i];
        if (!(oc[v].layout || oc[v].global_in || oc[v].score || g->ops[v].out.n * g->ops[v].out.c == a->heads))
            a->per_head = 0;
    }
    a->core = score_mm && soft_pv && !score_out;
    a->online = a->core && a->nk_min > 0;
    if (a->nk_min == 0)
        a->nk_min = 1;
    /* Two passes when a K/V is made inside: the members that lead to it run
     * first, those the sinks need without it after; an input both read is
     * read twice. */
    int internal = 0;
    for (int32_t k = 0; k < a->n_kv; k++)
        internal |= a->kv[k].internal;
    if (internal) {
        int32_t n = G->n;
        uint8_t *pr = calloc((size_t)n * 2, 1), *mn = pr ? pr + n : NULL;
        if (!pr)
            return lf_set_error(LF_ENOMEM, "out of memory pricing an attention group");
        for (int32_t k = 0; k < a->n_kv; k++)
            if (a->kv[k].internal)
                pr[src[k]] = 1;
        for (int32_t i = n - 1; i >= 0; i--) {
            int32_t v = G->tensor[i];
            if (!G->inner[i])
                mn[i] = 1;
            for (int32_t k = G->in_off[i]; k < G->in_off[i + 1]; k++) {
                int32_t l = G->in_loc[k];
                if (l >= n)
                    continue;
                if (pr[i])
                    pr[l] = 1;
                if (mn[i] && !((oc[v].global_in >> (k - G->in_off[i])) & 1))
                    mn[l] = 1;
            }
        }
        for (int32_t t = n; t < G->nt; t++) {
            int rp = 0, rm = 0;
            for (int32_t c = G->cons_off[t]; c < G->cons_off[t + 1]; c++) {
                rp |= pr[G->cons_loc[c]];
                rm |= mn[G->cons_loc[c]];
            }
            if (rp && rm)
                a->pass_dram += oc[G->tensor[t]].tensor_bytes;
        }
        free(pr);
    }
    lf__group_priced(G, &a->p);
    *present = 1;
    return LF_OK;
}

/* The buffer a configuration needs at Br = h query rows per tile: it grows
 * with h (the windows, the tile, the K/V blocks), which lf__fit relies on. */
static int64_t lf__need(lf__attn *a, const lf__cfg *c, int64_t h)
{
    int64_t x = lf__feat(a, c, h);
    if (c->resident)
        x += c->per_head ? a->kv_head : a->kv_bytes;
    else
        x += (c->online ? lf__bc(a, c, h) : 1) * a->kv_row;
    return x + (c->wres ? a->p.weights : a->p.wblk);
}

/* Bytes a streamed K/V of nk key rows moves over R query tiles of h rows of
 * the N_q = hq query rows (cost_internal.h; tests/test_kv_reads.c walks
 * the tiles one by one against it). Causal: the rows are g stacks of
 * nq = N_q / g queries (one per grouped query head); row r is query
 * r mod nq and sees the keys up to (r mod nq) + N_k - nq, so a tile reads
 * the keys its last query sees, or all of them when it holds a stack's last
 * row. */
int64_t lf__kv_reads(int64_t hq, int64_t nk, int64_t bytes, int32_t causal, int64_t r, int64_t h)
{
    if (!causal)
        return r * bytes;
    int64_t nq = hq / causal > 0 ? hq / causal : 1;
    int64_t off = nk > nq ? nk - nq : 0, rows = 0;
    if (causal == 1 && nk >= hq) /* one stack: tile i reads off + min((i + 1) h, N_q) */
        rows = r * off + h * (r - 1) * r / 2 + hq;
    /* Tile i (ending at (i + 1) h, before the last tile) inside stack s
     * reads min(off + (i + 1) h - s nq, N_k) keys: a run of such tiles adds
     * up in closed form, a rising part and a part at N_k, where a tile by
     * tile walk took a third of the Llama-3-8B BRR staircase (65,536 query
     * rows at small h). A tile across a stack's end reads min(off + nq,
     * N_k). */
    int64_t last_full = h > 0 ? lf__cdiv(hq, h) - 1 : 0, r1 = r < last_full ? r : last_full;
    r1 = r1 > 0 ? r1 : 0;
    for (int64_t i = 0; i < r1 && !(causal == 1 && nk >= hq);) {
        int64_t s = i * h / nq, end = (s + 1) * nq, j = end / h < r1 ? end / h : r1;
        if (j <= i) { /* tile i holds the stack's last row */
            rows += off + nq < nk ? off + nq : nk;
            i++;
            continue;
        }
        /* tiles i..j-1 lie in stack s; those before jc read fewer than N_k */
        int64_t jc = (nk - off + s * nq) / h;
        jc = jc < i ? i : jc > j ? j : jc;
        rows += (jc - i) * (off - s * nq) + h * (jc * (jc + 1) / 2 - i * (i + 1) / 2) + (j - jc) * nk;
        i = j;
    }
    for (int64_t i = r1; i < r && !(causal == 1 && nk >= hq); i++) {
        int64_t first = i * h, last = ((i + 1) * h < hq ? (i + 1) * h : hq) - 1;
        int64_t t = first / nq != last / nq ? nq - 1 : last % nq;
        rows += off + t + 1 < nk ? off + t + 1 : nk;
    }
    return rows * (bytes / nk) + (rows * (bytes % nk)) / nk;
}

/* A floor of lf__kv_reads over R tiles of h rows that only grows as the
 * balanced tiles shrink (h down, R up), for lf__cheapest. Causal with
 * N_k >= nq: tile i reads off + 1 + t_i keys; each of the g stacks holds
 * m = floor(nq / h) tile ends h apart, the last at least nq - h into it,
 * and t_i is at least its end's place in the stack, so the t_i add up to at
 * least g (m nq - h m (m + 1) / 2). Each term grows as h falls. */
int64_t lf__kv_reads_floor(int64_t hq, int64_t nk, int64_t bytes, int32_t causal, int64_t r,
                           int64_t h)
{
    if (!causal)
        return r * bytes;
    int64_t nq = hq / causal > 0 ? hq / causal : 1, rows = r; /* a key per tile */
    if (nk >= nq) {
        int64_t m = nq / h;
        rows = r * (nk - nq + 1) + causal * (m * nq - h * m * (m + 1) / 2);
    }
    return rows * (bytes / nk) + (rows * (bytes % nk)) / nk;
}

/* The K/V traffic beyond the group's inputs at h rows per tile; with
 * `floor`, lf__kv_reads_floor's floor of it. */
static int64_t lf__kv_dram(const lf__attn *a, const lf__cfg *c, int64_t h, int floor)
{
    if (c->resident)
        return 0;
    int64_t r = lf__cdiv(a->hq, h), d = a->kv_fix;
    for (int32_t u = 0; u < a->n_rep; u++) {
        const lf__kv *kv = &a->kv[a->kv_rep[u]];
        d += a->kv_mult[u] * (floor ? lf__kv_reads_floor(a->hq, kv->nk, kv->bytes, kv->causal, r, h)
                                    : lf__kv_reads(a->hq, kv->nk, kv->bytes, kv->causal, r, h));
    }
    return d;
}

static int64_t lf__weight_reads(const lf__attn *a, const lf__cfg *c, int64_t h)
{
    int64_t href = *a->p.height > 1 ? *a->p.height : 1;
    return c->wres || a->p.weights == 0 ? 1 : lf__cdiv(href, h);
}

/* F_D at h rows per tile with K/V traffic kv (lf__kv_dram's). */
static int64_t lf__fd_kv(const lf__attn *a, const lf__cfg *c, int64_t h, int64_t kv)
{
    return a->p.in + a->p.out + lf__weight_reads(a, c, h) * a->p.weights + kv + a->pass_dram;
}

/* F_D at h rows per tile; with `floor`, a floor of it at h and at every
 * smaller balanced height (lf__kv_reads_floor). */
static int64_t lf__fd(lf__attn *a, const lf__cfg *c, int64_t h, int floor)
{
    return lf__fd_kv(a, c, h, lf__kv_dram(a, c, h, floor));
}

/* Configurations in a fixed order (ties keep the first). */
static int32_t lf__cfgs(const lf__attn *a, lf__cfg *out)
{
    int32_t n = 0;
    for (int ph = 0; ph <= a->per_head; ph++)
        for (int res = 1; res >= 0; res--)
            for (int on = 0; on <= a->online; on++)
                for (int wr = 1; wr >= (a->scheme->weights_resident ? 1 : 0); wr--)
                    out[n++] = (lf__cfg){ph, res, on, wr};
    return n;
}

/* The largest balanced tile height whose tile fits below beta, 0 when none
 * does: the tiles that fit are exactly the heights up to it, since the need
 * grows with the height (lf__need), so the fewest tiles are bisected. */
static int64_t lf__fit(lf__attn *a, const lf__cfg *c, int64_t beta)
{
    if (lf__need(a, c, 1) >= beta)
        return 0;
    int64_t lo = 1, hi = a->hq; /* need(ceil(hq / r)) falls as r grows; hi fits */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (lf__need(a, c, lf__cdiv(a->hq, mid)) < beta)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lf__cdiv(a->hq, lo);
}

/* The cheapest balanced height up to hmax (the largest on a tie), *fd its
 * F_D. Fewer tiles are not always cheaper: a causal tile that straddles two
 * stacked query heads reads every key, so 128 tiles of 64 rows over 4
 * stacks of 2,048 (never straddling) move less than 127 tiles of 65. The
 * heights are walked down from hmax until F_D's floor (lf__fd) at the next
 * one cannot beat the best: once for non-causal K/V or resident ones, whose
 * F_D only grows with the tiles. */
static int64_t lf__cheapest(lf__attn *a, const lf__cfg *c, int64_t hmax, int64_t *fd)
{
    int64_t best_h = hmax, best = lf__fd(a, c, hmax, 0);
    for (int64_t h = hmax; h > 1;) {
        h = lf__cdiv(a->hq, lf__cdiv(a->hq, h - 1)); /* the next balanced height down */
        if (lf__fd(a, c, h, 1) >= best)
            break;
        int64_t x = lf__fd(a, c, h, 0);
        if (x < best) {
            best = x;
            best_h = h;
        }
    }
    *fd = best;
    return best_h;
}

static void lf__fill(lf__attn *a, const lf__cfg *c, int64_t h, lf_group_cost *out)
{
    out->attn = LF_ATTN_PRESENT | (c->per_head ? LF_ATTN_HEADS : 0) | (c->resident ? LF_ATTN_RESIDENT : 0) |
                (c->online ? LF_ATTN_ONLINE : 0) | (a->causal ? LF_ATTN_CAUSAL : 0) |
                (a->core ? LF_ATTN_CORE : 0);
    out->attn_br = (int32_t)h;
    out->attn_bc = (int32_t)lf__bc(a, c, h);
    out->kv_reads = c->resident ? 1 : (int32_t)lf__cdiv(a->hq, h);
    out->kv_bytes = 0;
    for (int32_t k = 0; k < a->n_kv; k++)
        out->kv_bytes += a->kv[k].bytes;
    out->kv_dram = lf__kv_dram(a, c, h, 0);
    out->pass_dram = a->pass_dram;
    out->weights = a->p.weights;
    out->in_bytes = a->p.in;
    out->out_bytes = a->p.out;
    out->weight_reads = (int32_t)lf__weight_reads(a, c, h);
    out->tile_rows = (int32_t)h;
    out->steps = (int32_t)lf__cdiv(a->hq, h);
    out->mbu = lf__need(a, c, h);
    out->f_d = lf__fd(a, c, h, 0);
}

lf_status lf__attn_price(lf__group *G, const lf__scheme *scheme, int64_t beta, lf_group_cost *out,
                         lf__peak *peak, int *handled)
{
    lf__attn a;
    lf_status st = lf__attn_setup(&a, G, scheme, handled);
    if (st != LF_OK || !*handled)
        return st;
    memset(out, 0, sizeof *out);
    /* Every configuration asks the row windows at several tile heights: the
     * first evaluation records the windows (rows.c), so the later ones sum
     * kept terms, and its value at one row is the cache's first entry. */
    G->full_evals = 1;
    a.p.features(a.p.ctx, 1, peak); /* where the windows peak, for the report */
    lf__cfg cfg[16];
    int32_t n = lf__cfgs(&a, cfg), best = -1, least = 0, order[16];
    int64_t best_fd = 0, best_h = 1, least_need = 0, floor_fd[16];
    for (int32_t k = 0; k < n; k++) {
        int64_t need1 = lf__need(&a, &cfg[k], 1);
        if (k == 0 || need1 < least_need) {
            least = k;
            least_need = need1;
        }
        /* One tile of all N_q rows reads every K/V and weight once: the
         * least this configuration can move, whatever fits. */
        floor_fd[k] = need1 < beta ? lf__fd(&a, &cfg[k], a.hq, 0) : INT64_MAX;
        int32_t at = k; /* insertion by floor, ties in the fixed order */
        while (at > 0 && floor_fd[order[at - 1]] > floor_fd[k]) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = k;
    }
    /* The cheapest valid configuration, ties to the first in the fixed
     * order, searched from the lowest floor: a configuration whose floor
     * cannot beat the best so far (nor tie it from before it) is not
     * searched, which changes no answer (the search is the costly part:
     * each tile height prices the row windows). */
    for (int32_t q = 0; q < n; q++) {
        int32_t k = order[q];
        if (floor_fd[k] == INT64_MAX || (best >= 0 && (floor_fd[k] > best_fd ||
                                                       (floor_fd[k] == best_fd && k > best))))
            continue;
        int64_t h = lf__fit(&a, &cfg[k], beta), fd;
        if (h == 0)
            continue;
        h = lf__cheapest(&a, &cfg[k], h, &fd);
        if (best < 0 || fd < best_fd || (fd == best_fd && k < best)) {
            best = k;
            best_fd = fd;
            best_h = h;
        }
    }
    if (best >= 0)
        lf__fill(&a, &cfg[best], best_h, out);
    else
        lf__fill(&a, &cfg[least], 1, out);
    out->f_beta = least_need;
    out->features = least_need - (cfg[least].wres ? a.p.weights : a.p.wblk);
    out->valid = best >= 0;
    return LF_OK;
}

/* The steps of every configuration and balanced tile height below `below`. */
static lf_status lf__attn_walk(lf__attn *a, int64_t below, lf_cost_step *steps, int32_t cap, int32_t *n)
{
    lf_status st = LF_OK;
    *n = 0;
    lf__cfg cfg[16];
    int32_t nc = lf__cfgs(a, cfg);
    for (int32_t k = 0; k < nc && st == LF_OK; k++) {
        /* Every balanced tile height ceil(N_q / R), smallest first, until one
         * needs too much. The R tiles of a height h hold ceil(N_q / R) <= h
         * rows; when that is below h, the next balanced height is that of one
         * tile fewer (N_q = 16: 6 rows, then 8: no tile of 7 is balanced). */
        for (int64_t h = 1; h <= a->hq && st == LF_OK;) {
            int64_t r = lf__cdiv(a->hq, h), hb = lf__cdiv(a->hq, r);
            if (hb < h)
                hb = lf__cdiv(a->hq, r - 1);
            int64_t need = lf__need(a, &cfg[k], hb);
            if (need >= below)
                break;
            st = lf__step_push(steps, cap, n, need, lf__fd(a, &cfg[k], hb, 0));
            h = hb + 1;
        }
    }
    return st;
}

lf_status lf__attn_steps(lf__group *G, const lf__scheme *scheme, int64_t below, lf_cost_step *steps,
                         int32_t cap, int32_t *n, int *handled)
{
    lf__attn a;
    lf_status st = lf__attn_setup(&a, G, scheme, handled);
    if (st != LF_OK || !*handled)
        return st;
    G->full_evals = 1; /* many tile heights: record the windows at the first (rows.c) */
    return lf__attn_walk(&a, below, steps, cap, n);
}

size_t lf__attn_kept_size(void) { return offsetof(lf__attn, cache_h); }

lf_status lf__attn_keep(lf__group *G, const lf__scheme *scheme, void *kept, int *present, int *per_head)
{
    lf__attn a;
    lf_status st = lf__attn_setup(&a, G, scheme, present);
    if (st == LF_OK && *present) {
        a.G = NULL; /* the view goes: nothing may read it later */
        memset(&a.p, 0, sizeof a.p);
        *per_head = a.per_head;
        memcpy(kept, &a, lf__attn_kept_size());
    }
    return st;
}

/* A kept set-up (lf__attn_keep) taken up again with the caller's pricer
 * and counters; its heights' cache starts empty. */
static void lf__attn_from_kept(lf__attn *a, const void *kept, const lf__priced *p, lf__attn_counts counts,
                               void *ctx)
{
    memcpy(a, kept, lf__attn_kept_size());
    memset(a->cache_h, 0, sizeof a->cache_h); /* no height is 0 */
    a->p = *p;
    a->counts = counts;
    a->counts_ctx = ctx;
}

lf_status lf__attn_kept_steps(const void *kept, const lf__priced *p, lf__attn_counts counts, void *ctx,
                              int64_t below, lf_cost_step *steps, int32_t cap, int32_t *n)
{
    lf__attn a;
    lf__attn_from_kept(&a, kept, p, counts, ctx);
    return lf__attn_walk(&a, below, steps, cap, n);
}

typedef struct lf__event {
    int64_t need, h, fd;
    int32_t cfg;
    int32_t next; /* the configuration's next event by (need, h); -1: none */
} lf__event;

static int lf__event_cmp(const void *x, const void *y)
{
    const lf__event *a = x, *b = y;
    if (a->need != b->need)
        return (a->need > b->need) - (a->need < b->need);
    if (a->cfg != b->cfg)
        return (a->cfg > b->cfg) - (a->cfg < b->cfg);
    return (a->h > b->h) - (a->h < b->h);
}

/* The sweep of lf__attn_prices over a set-up group (a view's or a kept
 * one's with its windows from counts). */
static lf_status lf__attn_sweep(lf__attn *a, int64_t lo, int64_t below, lf_cost_sched **out, int32_t *n)
{
    lf_status st = LF_OK;
    lf__cfg cfg[16];
    int32_t nc = lf__cfgs(a, cfg), ne = 0, cap = 64;
    /* Every (configuration, balanced height) below `below`, as
     * lf__attn_steps walks them, by need: the largest height of a
     * configuration whose need is below a buffer is lf__fit's there. Taken
     * height by height, each height's row windows (lf__feat) and streamed
     * K/V traffic (the same for every streamed configuration) are found
     * once, where a walk configuration by configuration found them again
     * for each (the windows' cache is small); the events are the same, and
     * each carries its F_D. Each configuration's events are chained in the
     * order they come, by height, which is by need (lf__need grows with
     * the height): the sweep reads them so, where sorting them all by need
     * took an eighth of a Llama staircase. Should a need ever fall as the
     * height grows, `sorted` drops and they are sorted after all. */
    lf__event *ev = malloc((size_t)cap * sizeof *ev);
    int active[16], sorted = 1;
    int32_t head[16], tail[16];
    for (int32_t k = 0; k < nc; k++) {
        active[k] = 1;
        head[k] = tail[k] = -1;
    }
    for (int64_t h = 1, left = nc; h <= a->hq && left > 0 && ev;) {
        int64_t r = lf__cdiv(a->hq, h), hb = lf__cdiv(a->hq, r), kvd = 0;
        int have_kvd = 0;
        if (hb < h)
            hb = lf__cdiv(a->hq, r - 1);
        for (int32_t k = 0; k < nc && ev; k++) {
            if (!active[k])
                continue;
            int64_t need = lf__need(a, &cfg[k], hb);
            if (need >= below) {
                active[k] = 0;
                left--;
                continue;
            }
            if (ne == cap) {
                lf__event *m = realloc(ev, (size_t)cap * 2 * sizeof *ev);
                if (!m) {
                    free(ev);
                    ev = NULL;
                    break;
                }
                ev = m;
                cap *= 2;
            }
            int64_t kv = 0;
            if (!cfg[k].resident) {
                if (!have_kvd)
                    kvd = lf__kv_dram(a, &cfg[k], hb, 0);
                have_kvd = 1;
                kv = kvd;
            }
            if (tail[k] < 0)
                head[k] = ne;
            else if (ev[tail[k]].need > need)
                sorted = 0;
            else
                ev[tail[k]].next = ne;
            tail[k] = ne;
            ev[ne++] = (lf__event){need, hb, lf__fd_kv(a, &cfg[k], hb, kv), k, -1};
        }
        h = hb + 1;
    }
    int32_t ocap = 16;
    lf_cost_sched *o = ev ? malloc((size_t)ocap * sizeof *o) : NULL;
    if (!ev || !o) {
        free(ev);
        free(o);
        return lf_set_error(LF_ENOMEM, "out of memory pricing an attention group");
    }
    if (!sorted) { /* by need, then height: the chains again in that order */
        qsort(ev, (size_t)ne, sizeof *ev, lf__event_cmp);
        for (int32_t k = 0; k < nc; k++)
            head[k] = tail[k] = -1;
        for (int32_t e = 0; e < ne; e++) {
            int32_t k = ev[e].cfg;
            if (tail[k] < 0)
                head[k] = e;
            else
                ev[tail[k]].next = e;
            tail[k] = e;
            ev[e].next = -1;
        }
    }
    /* Sweep: at lo, then one byte above each need from lo on. Each
     * configuration keeps the cheapest of its heights that fit, the largest
     * on a tie (lf__cheapest's answer: its heights come in ascending), and
     * the cheapest configuration is taken as lf__attn_price does (least
     * F_D, ties to the first). Only changes are kept. A configuration's
     * events are taken in its chain's order; no two configurations' events
     * bear on each other, so the chains are read side by side. */
    int64_t hmax[16] = {0}, fd[16] = {0}, best_h[16] = {0};
    int64_t at = lo;
    int32_t use[16], nu = 0; /* the configurations with events, in order */
    for (int32_t k = 0; k < nc; k++)
        if (head[k] >= 0)
            use[nu++] = k;
    while (st == LF_OK) {
        int64_t next = INT64_MAX; /* the least need not yet taken */
        int32_t best = -1;
        for (int32_t u = 0; u < nu; u++) {
            int32_t k = use[u], e = head[k];
            for (; e >= 0 && ev[e].need < at; e = ev[e].next) {
                int64_t x = ev[e].fd;
                if (hmax[k] == 0 || x <= fd[k]) {
                    fd[k] = x;
                    best_h[k] = ev[e].h;
                }
                hmax[k] = ev[e].h;
            }
            head[k] = e;
            if (e >= 0 && ev[e].need < next)
                next = ev[e].need;
            if (hmax[k] > 0 && (best < 0 || fd[k] < fd[best]))
                best = k;
        }
        lf_cost_sched sc = {at, best >= 0 ? fd[best] : 0, best >= 0 ? lf__cdiv(a->hq, best_h[best]) : 0,
                            best >= 0};
        if (*n == 0 || o[*n - 1].valid != sc.valid || o[*n - 1].f_d != sc.f_d || o[*n - 1].steps != sc.steps) {
            if (*n == ocap) {
                lf_cost_sched *m = realloc(o, (size_t)ocap * 2 * sizeof *o);
                if (!m) {
                    st = lf_set_error(LF_ENOMEM, "out of memory pricing an attention group");
                    break;
                }
                o = m;
                ocap *= 2;
            }
            o[(*n)++] = sc;
        }
        if (next == INT64_MAX)
            break;
        at = next + 1 > at ? next + 1 : at + 1;
    }
    free(ev);
    if (st != LF_OK) {
        free(o);
        *n = 0;
        return st;
    }
    *out = o;
    return LF_OK;
}

lf_status lf__attn_prices(lf__group *G, const lf__scheme *scheme, int64_t lo, int64_t below,
                          lf_cost_sched **out, int32_t *n, int *handled)
{
    *out = NULL;
    *n = 0;
    lf__attn a;
    lf_status st = lf__attn_setup(&a, G, scheme, handled);
    if (st != LF_OK || !*handled)
        return st;
    G->full_evals = 1;
    a.p.features(a.p.ctx, 1, NULL);
    return lf__attn_sweep(&a, lo, below, out, n);
}

lf_status lf__attn_kept_prices(const void *kept, const lf__priced *p, lf__attn_counts counts, void *ctx,
                               int64_t lo, int64_t below, lf_cost_sched **out, int32_t *n)
{
    *out = NULL;
    *n = 0;
    lf__attn a;
    lf__attn_from_kept(&a, kept, p, counts, ctx);
    return lf__attn_sweep(&a, lo, below, out, n);
}
