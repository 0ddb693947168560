/* A lower bound on the DRAM of every valid plan from balanced cuts in each
 * segment between cut ops (issue 46; docs/search.md "Certified bounds").
 * Windows see nothing inside a wide random stage (RandWire at 256 KB under
 * LBDF: a window of 24 ops fits one relaxed part, so the windows charge
 * nothing in conv3 and conv4), where every plan pays the stage's long edges.
 *
 * Every op v gets a mass a_v that the monotone floor of F_beta the
 * enumeration prunes with adds for it whatever else its set holds (its
 * weights term and one row of its output, downsets.c lf__add), so a valid
 * group's mass is below beta. Take a valid plan, its groups in their order,
 * and the unions D_0 = {}, D_1, ... of the first j groups: downsets whose
 * mass grows by less than beta a step. Within one segment S between
 * consecutive cut ops (every path between two of its ops stays in it:
 * blocks.c) of mass M, for any theta <= M the first D_j with m(D_j n S) >=
 * theta has m(D_j n S) < theta + beta. D = D_j n S is closed under S's
 * edges; an op v of S whose ancestors in S weigh theta + beta or more is
 * outside it, one whose descendants in S weigh more than M - theta is in
 * it. So the least cut between those two sets over downsets of S (a
 * minimum s-t cut) is at most what the plan pays for S's tensors that
 * cross D: each such tensor's maker and a reader lie in different groups,
 * so it is written and read once at least (twice its bytes), of which its
 * forced-cut floor (cut_bound.c) is already counted. The segments' tensors
 * are disjoint, so their cuts add up:
 *
 *   lower = weights + sum of the forced-cut floors + sum over segments of
 *           max over theta of that cut, each tensor weighing
 *           max(0, 2 |t| - floor(t)).
 *
 * Several levels at once (branch rwnest): a plan has one such prefix D_i
 * per level theta_i, each an s-t cut of level i's network (its forced
 * sides hold; a tensor node sits on the sink side when a reader of it is
 * outside D_i), whose tensor edges C_i are tensors the plan cuts. A flow
 * f_i of level i crosses that cut, so |f_i| <= sum over t in C_i of
 * f_i(t). If the levels' flows together put at most weight(t) on each
 * tensor t, sum_i |f_i| <= sum over t in the union of the C_i of
 * sum_i f_i(t) <= sum over the tensors the plan cuts of weight(t): a
 * tensor cut at several levels is paid once, and no nesting of the D_i or
 * spacing of the levels is needed. The flows come from a greedy packing:
 * each level's maximum flow over what the earlier levels left of the
 * weights (lf__bal_pack), in a few orders; the segment takes the best of
 * them and of the single cuts. An LP over all levels' flows would give
 * more (glpsol on RandWire's conv4: 763,177 B against the packing's
 * 611,520), at a cost this bound does not have time for.
 *
 * The mass also takes the rows of an op's input windows past the first,
 * each tensor's shared among its readers (the floor holds a tensor's widest
 * window, at least as much as its readers' shares together).
 *
 * One cut of the whole graph (branch stairtop): where every op is fusable,
 * the ops are connected and all of them together are no valid group, every
 * plan has two groups at least, and the first group G_1 of its order is a
 * downset (a maker of an op of G_1 lies in no later group) with an op of
 * the graph outside it; the ops being connected, some tensor made in G_1
 * is read outside it, so the plan pays the least cut over the downsets
 * holding a source op and not some sink op (each pair of them one minimum
 * s-t cut). Each tensor weighs as above, a zero-copy view's too (the
 * segments leave views out): a concat read in another group is in the
 * F_D of both, written and read whole (cost-models.md), and a cut right
 * after PP-OCRv4's neck concat would otherwise cost nothing. Where the
 * whole graph fits, one group pays only the floors. The segments' cuts see none of
 * that where the graph fits the buffer but for a little (PP-OCRv4
 * detection at 4 MB under LBDF: the whole graph needs 5.01 MB, the windows
 * and cuts gave only the weights and the graph's input and output, 2.81 MB,
 * against a plan of 3.94 MB; this cut adds the write and read of one
 * 640 x 640 map). The bound is the larger of this and the segments' sum.
 *
 * RandWire at 256 KB: LBDF 5.44 MB against the windows' 4.45, BRR 6.54
 * against 5.99, in 0.02 s (docs/results/exact.md, branch rwgap); packed,
 * LBDF 5.89 MB, BRR 6.65 (branch rwnest). The LP over all valid groups
 * would be the optimum there. */
#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost.h"
#include "planner/exact/downsets.h"
#include "planner/exact/solve.h"

/* Levels of theta tried per segment, at most: the forced sides change only
 * where theta passes M - (an op's descendants' mass) + 1, and each such
 * point is the best theta until the next one (the ops forced out only
 * shrink as theta grows), so those points are tried; past this many, an
 * even choice of them. */
#define LF__BAL_LEVELS 256
/* A segment of more ops is left out (it adds nothing, which is a floor):
 * its bitsets take k^2 / 8 bytes and the bound must stay cheap whatever the
 * time limit (RandWire's widest segment has 138 ops). */
#define LF__BAL_MAX_OPS 4096
/* Orders the levels' flows are packed in (lf__bal_rank): ascending theta,
 * descending, spread. Each is a floor; the segment keeps the largest
 * (RandWire at 256 KB: ascending is best under LBDF, the others under BRR;
 * docs/results/exact.md, branch rwnest). */
#define LF__BAL_ORDERS 3
/* The whole graph's cut is tried for at most this many (source, sink)
 * pairs (past them it is left out, which is a floor). */
#define LF__BAL_WHOLE_PAIRS 64

/* ---- minimum s-t cut (Dinic; a segment has a few hundred nodes) ---------- */

typedef struct lf__net {
    int32_t n, m, cap_m;
    int32_t *head, *next, *to, *level, *it, *queue;
    int64_t *cap;
} lf__net;

static int lf__net_edge(lf__net *f, int32_t u, int32_t v, int64_t c)
{
    if (f->m + 2 > f->cap_m) {
        int32_t cap = f->cap_m ? f->cap_m * 2 : 1024;
        int32_t *nx = realloc(f->next, (size_t)cap * sizeof *nx);
        if (nx)
            f->next = nx;
        int32_t *to = realloc(f->to, (size_t)cap * sizeof *to);
        if (to)
            f->to = to;
        int64_t *cp = realloc(f->cap, (size_t)cap * sizeof *cp);
        if (cp)
            f->cap = cp;
        if (!nx || !to || !cp)
            return 0;
        f->cap_m = cap;
    }
    f->to[f->m] = v;
    f->cap[f->m] = c;
    f->next[f->m] = f->head[u];
    f->head[u] = f->m++;
    f->to[f->m] = u;
    f->cap[f->m] = 0;
    f->next[f->m] = f->head[v];
    f->head[v] = f->m++;
    return 1;
}

static int lf__net_bfs(lf__net *f, int32_t s, int32_t t)
{
    for (int32_t i = 0; i < f->n; i++)
        f->level[i] = -1;
    int32_t qh = 0, qt = 0;
    f->level[s] = 0;
    f->queue[qt++] = s;
    while (qh < qt) {
        int32_t u = f->queue[qh++];
        for (int32_t e = f->head[u]; e >= 0; e = f->next[e])
            if (f->cap[e] > 0 && f->level[f->to[e]] < 0) {
                f->level[f->to[e]] = f->level[u] + 1;
                f->queue[qt++] = f->to[e];
            }
    }
    return f->level[t] >= 0;
}

static int64_t lf__net_push(lf__net *f, int32_t u, int32_t t, int64_t pushed)
{
    if (u == t)
        return pushed;
    for (; f->it[u] >= 0; f->it[u] = f->next[f->it[u]]) {
        int32_t e = f->it[u], v = f->to[e];
        if (f->cap[e] <= 0 || f->level[v] != f->level[u] + 1)
            continue;
        int64_t d = lf__net_push(f, v, t, pushed < f->cap[e] ? pushed : f->cap[e]);
        if (d > 0) {
            f->cap[e] -= d;
            f->cap[e ^ 1] += d;
            return d;
        }
    }
    return 0;
}

/* The maximum flow from s to t, stopping once it reaches `stop` (a cut of
 * infinite edges only). */
static int64_t lf__net_flow(lf__net *f, int32_t s, int32_t t, int64_t stop)
{
    int64_t flow = 0;
    while (flow < stop && lf__net_bfs(f, s, t)) {
        for (int32_t i = 0; i < f->n; i++)
            f->it[i] = f->head[i];
        int64_t d;
        while (flow < stop && (d = lf__net_push(f, s, t, stop - flow)) > 0)
            flow += d;
    }
    return flow;
}

/* ---- the bound ------------------------------------------------------------ */

typedef struct lf__bal {
    const lf_graph *g;
    const int64_t *mass, *weight; /* per op: a_v; its tensor's weight in the cut */
    const uint8_t *fusable;
    int32_t *local;               /* op -> index in the segment, or -1 */
    uint64_t *anc, *desc;         /* per segment op: bitsets over the segment (its own) */
    int64_t *m_anc, *m_desc, *thetas;
    int64_t *rem, *single;        /* per segment op: its tensor's weight left; per level: its cut */
    int32_t *tedge;               /* per segment op: its tensor edge in net, or -1 */
    int32_t *spread;              /* per rank: the level the spread order visits */
    lf__net net;
} lf__bal;

static int lf__cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Op ops[i]'s edges in b->net over ops[0..k), its tensor edge (none where
 * its weight is 0) weighing cap (its index in b->tedge, -1: none): 0 where
 * memory fails. */
static int lf__bal_op_edges(lf__bal *b, const int32_t *ops, int32_t i, int32_t k, int64_t weight, int64_t cap,
                            int64_t inf)
{
    const lf_op *op = &b->g->ops[ops[i]];
    lf__net *f = &b->net;
    int ok = 1;
    /* A reader in D puts its maker in D. */
    for (int32_t j = 0; j < op->n_inputs && ok; j++) {
        int32_t p = b->local[op->inputs[j]];
        if (p >= 0)
            ok = lf__net_edge(f, i, p, inf);
    }
    /* The tensor costs its weight when its maker is in D and a fusable
     * reader of the segment is not. */
    int readers = 0;
    b->tedge[i] = -1;
    for (int32_t j = 0; j < op->n_consumers && ok && weight > 0; j++) {
        int32_t c = b->local[op->consumers[j]];
        if (c >= 0 && b->fusable[op->consumers[j]]) {
            ok = lf__net_edge(f, k + i, c, inf);
            readers++;
        }
    }
    if (readers && ok && cap > 0) {
        b->tedge[i] = f->m;
        ok = lf__net_edge(f, i, k + i, cap);
    }
    return ok;
}

/* The level theta's network over the segment ops[0..k) into b->net, each
 * op's tensor edge weighing cap[i] (its index in b->tedge, -1: none). 0
 * where it cannot be built (memory); *usable 0 where one side is empty. */
static int lf__bal_build(lf__bal *b, const int32_t *ops, int32_t k, int64_t total, int64_t beta, int64_t theta,
                         const int64_t *cap, int64_t inf, int *usable)
{
    lf__net *f = &b->net;
    f->n = 2 * k + 2;
    f->m = 0;
    int32_t s = 2 * k, t = 2 * k + 1, n_src = 0, n_snk = 0, clash = 0;
    int ok = 1;
    for (int32_t i = 0; i < f->n; i++)
        f->head[i] = -1;
    for (int32_t i = 0; i < k && ok; i++) {
        int in = total - b->m_desc[i] < theta, out = b->m_anc[i] >= theta + beta;
        clash |= in && out;
        n_src += in;
        n_snk += out;
        if (in)
            ok = lf__net_edge(f, s, i, inf);
        if (out && ok)
            ok = lf__net_edge(f, i, t, inf);
        if (ok)
            ok = lf__bal_op_edges(b, ops, i, k, b->weight[ops[i]], cap[i], inf);
    }
    /* Both sides needed; a clash would mean no plan reaches theta (it
     * cannot happen: then take nothing). Without one, every path from s to
     * t crosses a tensor edge (the forced-in ops are closed under
     * ancestors, the forced-out ones under descendants), so the flow is
     * finite. */
    *usable = ok && !clash && n_src > 0 && n_snk > 0;
    return ok;
}

/* The spread order of `levels` levels into rank[]: bit-reversed indices,
 * far levels first. */
static void lf__bal_spread(int32_t *rank, int32_t levels)
{
    int32_t bits = 0, n = 0;
    while (((int32_t)1 << bits) < levels)
        bits++;
    for (int32_t x = 0; x < ((int32_t)1 << bits); x++) {
        int32_t y = 0;
        for (int32_t i = 0; i < bits; i++)
            y |= (x >> i & 1) << (bits - 1 - i);
        if (y < levels)
            rank[n++] = y;
    }
}

/* Level r of `levels` in pass `order`: ascending theta, descending, or
 * spread (b->spread). */
static int32_t lf__bal_rank(const lf__bal *b, int order, int32_t r, int32_t levels)
{
    return order == 0 ? r : order == 1 ? levels - 1 - r : b->spread[r];
}

/* One packing of the levels' flows in pass `order`: each level's maximum
 * flow over what its earlier levels left of the tensors' weights, summed
 * into *packed. */
static int lf__bal_pack(lf__bal *b, const int32_t *ops, int32_t k, int64_t total, int64_t beta, int64_t inf,
                        int order, int32_t levels, int64_t *packed)
{
    int ok = 1;
    for (int32_t i = 0; i < k; i++)
        b->rem[i] = b->weight[ops[i]];
    for (int32_t r = 0; r < levels && ok; r++) {
        int32_t l = lf__bal_rank(b, order, r, levels);
        if (b->single[l] <= 0)
            continue; /* no flow there even with every weight whole */
        int usable = 0;
        ok = lf__bal_build(b, ops, k, total, beta, b->thetas[l], b->rem, inf, &usable);
        if (!ok || !usable)
            continue;
        int64_t flow = lf__net_flow(&b->net, 2 * k, 2 * k + 1, inf);
        if (flow >= inf)
            continue;
        *packed += flow;
        for (int32_t i = 0; i < k; i++)
            if (b->tedge[i] >= 0)
                b->rem[i] = b->net.cap[b->tedge[i]];
    }
    return ok;
}

/* The segment ops[0..k): a floor of what any plan pays past the floors for
 * its tensors, into *best. */
static int lf__bal_segment(lf__bal *b, const int32_t *ops, int32_t k, int64_t beta, int64_t *best)
{
    const lf_graph *g = b->g;
    int32_t nw = (k + 63) / 64;
    int64_t total = 0, weighed = 0;
    *best = 0;
    for (int32_t i = 0; i < k; i++) {
        b->local[ops[i]] = i;
        total += b->mass[ops[i]];
        weighed += b->weight[ops[i]];
    }
    int ok = 1;
    if (total < beta || weighed == 0 || k > LF__BAL_MAX_OPS)
        goto done; /* one group may hold it all, or nothing to cut */
    b->anc = malloc((size_t)k * nw * 8);
    b->desc = malloc((size_t)k * nw * 8);
    if (!b->anc || !b->desc) {
        ok = 0;
        goto done;
    }
    memset(b->anc, 0, (size_t)k * nw * 8);
    memset(b->desc, 0, (size_t)k * nw * 8);
    for (int32_t i = 0; i < k; i++) { /* ids are topological */
        uint64_t *a = b->anc + (size_t)i * nw;
        a[i >> 6] |= (uint64_t)1 << (i & 63);
        const lf_op *op = &g->ops[ops[i]];
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t p = b->local[op->inputs[j]];
            if (p >= 0)
                for (int32_t w = 0; w < nw; w++)
                    a[w] |= b->anc[(size_t)p * nw + w];
        }
    }
    for (int32_t i = k - 1; i >= 0; i--) {
        uint64_t *d = b->desc + (size_t)i * nw;
        d[i >> 6] |= (uint64_t)1 << (i & 63);
        const lf_op *op = &g->ops[ops[i]];
        for (int32_t j = 0; j < op->n_consumers; j++) {
            int32_t c = b->local[op->consumers[j]];
            if (c >= 0)
                for (int32_t w = 0; w < nw; w++)
                    d[w] |= b->desc[(size_t)c * nw + w];
        }
    }
    for (int32_t i = 0; i < k; i++) {
        b->m_anc[i] = b->m_desc[i] = 0;
        for (int32_t j = 0; j < k; j++) {
            if (b->anc[(size_t)i * nw + (j >> 6)] >> (j & 63) & 1)
                b->m_anc[i] += b->mass[ops[j]];
            if (b->desc[(size_t)i * nw + (j >> 6)] >> (j & 63) & 1)
                b->m_desc[i] += b->mass[ops[j]];
        }
    }
    /* The points where an op joins the forced side of D, ascending. */
    int32_t n_th = 0;
    for (int32_t i = 0; i < k; i++) {
        int64_t theta = total - b->m_desc[i] + 1;
        if (theta >= 1 && theta <= total)
            b->thetas[n_th++] = theta;
    }
    qsort(b->thetas, (size_t)n_th, sizeof *b->thetas, lf__cmp_i64);
    int32_t n_u = 0;
    for (int32_t i = 0; i < n_th; i++)
        if (n_u == 0 || b->thetas[i] != b->thetas[n_u - 1])
            b->thetas[n_u++] = b->thetas[i];
    int32_t levels = n_u < LF__BAL_LEVELS ? n_u : LF__BAL_LEVELS;
    for (int32_t l = 0; l < levels; l++) /* in place: l * n_u / levels >= l */
        b->thetas[l] = b->thetas[(int32_t)((int64_t)l * n_u / levels)];
    /* Nodes: the segment's ops 0..k-1, one per weighed tensor k.., s, t.
     * An infinite edge: more than every tensor weight of the segment. */
    int64_t inf = weighed + 1;
    for (int32_t i = 0; i < k; i++)
        b->rem[i] = b->weight[ops[i]];
    for (int32_t level = 0; level < levels && ok; level++) {
        int64_t theta = b->thetas[level];
        int usable = 0;
        b->single[level] = -1;
        ok = lf__bal_build(b, ops, k, total, beta, theta, b->rem, inf, &usable);
        if (!ok || !usable)
            continue;
        int64_t cut = lf__net_flow(&b->net, 2 * k, 2 * k + 1, inf);
        b->single[level] = cut < inf ? cut : -1;
        if (cut < inf && cut > *best)
            *best = cut;
    }
    lf__bal_spread(b->spread, levels);
    /* The levels' flows packed, sharing the tensors' weights, in a few
     * orders (a greedy packing: the order changes what it finds). */
    for (int order = 0; order < LF__BAL_ORDERS && ok; order++) {
        int64_t packed = 0;
        ok = lf__bal_pack(b, ops, k, total, beta, inf, order, levels, &packed);
        if (packed > *best)
            *best = packed;
    }
done:
    free(b->anc);
    free(b->desc);
    b->anc = b->desc = NULL;
    for (int32_t i = 0; i < k; i++)
        b->local[ops[i]] = -1;
    return ok;
}

/* The windows' charges segment by segment (lf__balance_window_bound). A
 * plan's DRAM is its weight reads plus each tensor's traffic, and each of
 * these accounts is a floor of a disjoint part of it:
 *
 *   - every fusable op's weights read once, and every tensor's forced-cut
 *     floor (its traffic in any plan is at least that);
 *   - a window r of one pass: its excess e_r, what it charged past its
 *     tensors' floors, at most what the plan pays for its tensors past
 *     their floors and for the weight re-reads of the ops it claims
 *     (window_bound.c; no two windows of a pass share a tensor or a claim);
 *   - a segment S: the least balanced cut over S, each tensor weighing
 *     max(0, 2|t| - floor(t)) but 0 for the tensors of windows whose
 *     excess is counted, at most what the plan pays past their floors for
 *     S's tensors held by no such window (the cut's argument above: a
 *     tensor the plan's prefix cuts is written and read once at least).
 *
 * Weight re-reads appear only in windows' excess, tensors past their floors
 * in one window's excess or one segment's cut, never both; so the sum of
 * the floors, the excess of the windows kept and the cuts is a floor of
 * every plan. Which windows are kept is free: a window holding tensors of
 * two segments (or none) is kept where its excess is positive, and within
 * a segment the windows it holds are all kept or all dropped, whichever
 * gives more, then each window's choice is turned over once where that
 * gains (a window with no excess is dropped: its tensors go back to the cut
 * for nothing). With every window kept and no cut, it is the
 * pass's own bound; with none kept, lf__balance_lower_bound's. */
static lf_status lf__balance_core(lf_cost_model *cm, const lf__win_charges *wc, int whole_only, int64_t *lower);

lf_status lf__balance_lower_bound(lf_cost_model *cm, int64_t *lower)
{
    return lf__balance_core(cm, NULL, 0, lower);
}

lf_status lf__balance_whole_bound(lf_cost_model *cm, int64_t *lower)
{
    return lf__balance_core(cm, NULL, 1, lower);
}

lf_status lf__balance_window_bound(lf_cost_model *cm, const lf__win_charges *wc, int64_t *lower)
{
    return lf__balance_core(cm, wc && wc->charged_by ? wc : NULL, 0, lower); /* no pass: the cuts alone */
}

/* The root of op i in the union-find parent[] (path halving). */
static int32_t lf__bal_root(int32_t *parent, int32_t i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/* The cut of the whole graph (the top of the file) over its compute ops
 * ops[0..k), each tensor weighing wall[] (views too: a concat read
 * outside its group is written and read whole, F_D's Out and In), into
 * *cut (0 where it does not apply): 0 where it cannot be computed
 * (memory). */
static int lf__bal_whole(lf__bal *b, lf_cost_model *cm, const int64_t *wall, const int32_t *ops, int32_t k,
                         lf_status *st, int64_t *cut)
{
    const lf_graph *g = b->g;
    *cut = 0;
    int32_t n_src = 0, n_snk = 0, pieces = k;
    for (int32_t i = 0; i < k; i++)
        if (!b->fusable[ops[i]])
            return 1;
    if (k < 2)
        return 1;
    int32_t *parent = malloc((size_t)k * sizeof *parent);
    lf_bitset all;
    if (!parent || lf_bitset_init(&all, g->n_ops) != LF_OK) {
        free(parent);
        return 0;
    }
    for (int32_t i = 0; i < k; i++) {
        b->local[ops[i]] = i;
        parent[i] = i;
        lf_bitset_set(&all, ops[i]);
    }
    for (int32_t i = 0; i < k; i++) {
        const lf_op *op = &g->ops[ops[i]];
        int inner = 0;
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t p = b->local[op->inputs[j]];
            if (p < 0)
                continue;
            inner = 1;
            int32_t x = lf__bal_root(parent, i), y = lf__bal_root(parent, p);
            if (x != y) {
                parent[x] = y;
                pieces--;
            }
        }
        n_src += !inner;
        n_snk += op->n_consumers == 0;
    }
    lf_group_cost gc;
    int apply = pieces == 1 && n_src * n_snk <= LF__BAL_WHOLE_PAIRS;
    if (apply) {
        *st = lf_cost_eval_once(cm, &all, &gc);
        apply = *st == LF_OK && !gc.valid;
    }
    int ok = 1;
    /* Past every cut: the graph without one sink is a downset whose cut
     * is finite, so the flow stays below this. */
    int64_t inf = 1;
    for (int32_t i = 0; i < k; i++)
        inf += wall[ops[i]];
    int64_t best = inf;
    for (int32_t si = 0; si < k && apply && ok; si++) {
        const lf_op *so = &g->ops[ops[si]];
        int inner = 0;
        for (int32_t j = 0; j < so->n_inputs; j++)
            inner |= b->local[so->inputs[j]] >= 0;
        for (int32_t ti = 0; ti < k && !inner && ok; ti++) {
            if (g->ops[ops[ti]].n_consumers != 0)
                continue;
            lf__net *f = &b->net;
            f->n = 2 * k + 2;
            f->m = 0;
            for (int32_t i = 0; i < f->n; i++)
                f->head[i] = -1;
            ok = lf__net_edge(f, 2 * k, si, inf) && lf__net_edge(f, ti, 2 * k + 1, inf);
            for (int32_t i = 0; i < k && ok; i++)
                ok = lf__bal_op_edges(b, ops, i, k, wall[ops[i]], wall[ops[i]], inf);
            int64_t flow = ok ? lf__net_flow(f, 2 * k, 2 * k + 1, best) : best;
            best = flow < best ? flow : best;
        }
    }
    if (apply && ok && best < inf)
        *cut = best;
    for (int32_t i = 0; i < k; i++)
        b->local[ops[i]] = -1;
    free(parent);
    lf_bitset_destroy(&all);
    return ok;
}

/* Segment ops[0..k)'s windows kept as keep[] says (home[] per window the
 * segment holding all its tensors, or -1 for those always kept): their
 * excess plus the cut over the tensors no kept window holds, into *value. */
static int lf__bal_kept(lf__bal *b, const lf__win_charges *wc, const int32_t *home, const uint8_t *keep,
                        const int32_t *ops, int32_t k, int64_t beta, int64_t *w_cur, int64_t *value)
{
    const int64_t *plain = b->weight;
    int64_t held = 0, cut = 0;
    for (int32_t i = 0; i < k; i++) {
        int32_t r = wc->charged_by[ops[i]];
        int kept = r >= 0 && wc->excess[r] > 0 && (home[r] < 0 || keep[r]);
        w_cur[ops[i]] = kept ? 0 : plain[ops[i]];
    }
    for (int32_t r = 0; r < wc->n; r++)
        held += home[r] == home[wc->n] && keep[r] ? wc->excess[r] : 0; /* home[wc->n]: this segment */
    b->weight = w_cur;
    int ok = lf__bal_segment(b, ops, k, beta, &cut);
    b->weight = plain;
    *value = held + cut;
    return ok;
}

/* The sum over the segments of the best choice of the windows held there
 * kept (all, none, then each one's choice turned over once, kept where it
 * gains; every choice is a floor: lf__balance_core's comment), into *sum.
 * seg[] per op its segment, home[] per window the segment holding all its
 * tensors or -1 (home[wc->n] is scratch). */
static int lf__bal_windows(lf__bal *b, const lf__win_charges *wc, const int32_t *seg, int32_t *home,
                           const int32_t *ops, int32_t n_ops, int64_t beta, int64_t *sum)
{
    int32_t n = b->g->n_ops;
    int64_t *w_cur = malloc(((size_t)n + 1) * sizeof *w_cur);
    uint8_t *keep = calloc((size_t)wc->n + 1, 1);
    int ok = w_cur && keep;
    for (int32_t i = 0, j; i < n_ops && ok; i = j) {
        for (j = i; j < n_ops && seg[ops[j]] == seg[ops[i]]; j++)
            ;
        int32_t s = seg[ops[i]], held = 0;
        home[wc->n] = s;
        for (int32_t r = 0; r < wc->n; r++) {
            keep[r] = home[r] == s && wc->excess[r] > 0;
            held += keep[r];
        }
        int64_t best = 0, other = 0;
        ok = lf__bal_kept(b, wc, home, keep, ops + i, j - i, beta, w_cur, &best);
        if (held > 0 && ok) { /* none kept */
            for (int32_t r = 0; r < wc->n; r++)
                keep[r] = 0;
            ok = lf__bal_kept(b, wc, home, keep, ops + i, j - i, beta, w_cur, &other);
            int all = best >= other;
            best = all ? best : other;
            for (int32_t r = 0; r < wc->n; r++)
                keep[r] = all && home[r] == s && wc->excess[r] > 0;
        }
        for (int32_t r = 0; r < wc->n && ok && held > 1; r++) {
            if (home[r] != s || wc->excess[r] <= 0)
                continue;
            keep[r] ^= 1;
            ok = lf__bal_kept(b, wc, home, keep, ops + i, j - i, beta, w_cur, &other);
            if (other > best)
                best = other;
            else
                keep[r] ^= 1;
        }
        *sum += best;
    }
    free(w_cur);
    free(keep);
    return ok;
}

static lf_status lf__balance_core(lf_cost_model *cm, const lf__win_charges *wc, int whole_only, int64_t *lower)
{
    const lf_graph *g = lf_cost_graph(cm);
    int32_t n = g->n_ops;
    *lower = 0;
    lf__exact x;
    memset(&x, 0, sizeof x);
    lf__bal b;
    memset(&b, 0, sizeof b);
    b.g = g;
    lf_status st = lf__dp_setup(&x, cm, NULL, NULL);
    int64_t *floor = calloc((size_t)n + 1, sizeof *floor), *mass = calloc((size_t)n + 1, sizeof *mass),
            *weight = calloc((size_t)n + 1, sizeof *weight), *wall = calloc((size_t)n + 1, sizeof *wall);
    uint8_t *in_u = calloc((size_t)n + 1, 1), *is_cut = calloc((size_t)n + 1, 1);
    int32_t *ops = malloc(((size_t)n + 1) * sizeof *ops);
    b.local = malloc(((size_t)n + 1) * sizeof *b.local);
    b.m_anc = malloc(((size_t)n + 1) * sizeof *b.m_anc);
    b.m_desc = malloc(((size_t)n + 1) * sizeof *b.m_desc);
    b.thetas = malloc(((size_t)n + 1) * sizeof *b.thetas);
    b.rem = malloc(((size_t)n + 1) * sizeof *b.rem);
    b.single = malloc(((size_t)n + 1) * sizeof *b.single);
    b.tedge = malloc(((size_t)n + 1) * sizeof *b.tedge);
    b.spread = malloc((2 * (size_t)LF__BAL_LEVELS) * sizeof *b.spread);
    b.net.head = malloc((2 * (size_t)n + 2) * sizeof *b.net.head);
    b.net.level = malloc((2 * (size_t)n + 2) * sizeof *b.net.level);
    b.net.it = malloc((2 * (size_t)n + 2) * sizeof *b.net.it);
    b.net.queue = malloc((2 * (size_t)n + 2) * sizeof *b.net.queue);
    if (st == LF_OK && (!floor || !mass || !weight || !wall || !in_u || !is_cut || !ops || !b.local ||
                        !b.m_anc || !b.m_desc || !b.thetas || !b.rem || !b.single || !b.tedge || !b.spread || !b.net.head || !b.net.level || !b.net.it || !b.net.queue))
        st = lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    if (st == LF_OK)
        st = lf__cut_tensor_floors(cm, floor);
    int64_t sum = 0;
    for (int32_t v = 0; v < n && st == LF_OK; v++) {
        const lf_op *op = &g->ops[v];
        b.local[v] = -1;
        in_u[v] = 1;
        sum += floor[v];
        if (lf_cost_fusable(cm, v) && op->type != LF_OP_INPUT)
            sum += lf_cost_weight_bytes(cm, v);
        /* A lone MatMul tiled by columns has the floor 0 (downsets.c). */
        if (x.fusable[v] && !lf_cost_column_tiled(cm, v)) {
            mass[v] = x.wterm[v] + (!x.view[v] && (op->is_output || op->n_consumers > 0) ? x.row_bytes[v] : 0);
            /* The rows of its window past the first, shared among the
             * tensor's readers: a set holds a tensor's widest window (at
             * least its maker's one row), never less than the readers'
             * shares together. */
            for (int32_t j = 0; j < op->n_inputs; j++) {
                int32_t t = op->inputs[j];
                int64_t h = g->ops[t].out.h, k = x.kwin[v] < h ? x.kwin[v] : h;
                int twice = 0; /* one share per tensor, however often it is read */
                for (int32_t i = 0; i < j; i++)
                    twice |= op->inputs[i] == t;
                if (!twice && !x.view[t] && !lf_cost_global_operand(cm, v, j) && k > 1)
                    mass[v] += (k - 1) * x.row_bytes[t] / g->ops[t].n_consumers;
            }
        }
        int64_t w = 2 * lf_cost_tensor_bytes(cm, v) - floor[v];
        weight[v] = x.fusable[v] && !x.view[v] && w > 0 ? w : 0;
        wall[v] = x.fusable[v] && w > 0 ? w : 0;
    }
    b.mass = mass;
    b.weight = weight;
    b.fusable = x.fusable;
    if (st == LF_OK && lf__dp_cut_ops(g, in_u, is_cut) < 0)
        st = lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    /* The whole graph's cut (the top of the file), over the same floors. */
    int64_t whole = 0, base = sum;
    int32_t n_compute = 0;
    for (int32_t v = 0; v < n && st == LF_OK; v++)
        if (g->ops[v].type != LF_OP_INPUT)
            ops[n_compute++] = v;
    if (st == LF_OK && !lf__bal_whole(&b, cm, wall, ops, n_compute, &st, &whole) && st == LF_OK)
        st = lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    /* Segments: from each cut op (inclusive) to the next (exclusive); the
     * ops before the first cut op are one more. Graph inputs take no part. */
    for (int32_t v = 0, k = 0; v <= n && st == LF_OK && !wc; v++) {
        if (v == n || (is_cut[v] && k > 0)) {
            int64_t cut = 0;
            if (!lf__bal_segment(&b, ops, k, x.beta, &cut))
                st = lf_set_error(LF_ENOMEM, "out of memory computing bounds");
            sum += cut;
            k = 0;
        }
        if (v < n && g->ops[v].type != LF_OP_INPUT)
            ops[k++] = v;
    }
    if (wc && st == LF_OK) {
        /* The segments numbered per op, then each window's home. */
        int32_t *seg = malloc(((size_t)n + 1) * sizeof *seg), *home = malloc(((size_t)wc->n + 2) * sizeof *home);
        int32_t n_ops = 0;
        if (!seg || !home)
            st = lf_set_error(LF_ENOMEM, "out of memory computing bounds");
        for (int32_t v = 0, s = 0; v < n && st == LF_OK; v++) {
            s += is_cut[v] && n_ops > 0;
            seg[v] = s;
            if (g->ops[v].type != LF_OP_INPUT)
                ops[n_ops++] = v;
        }
        for (int32_t r = 0; r < wc->n && st == LF_OK; r++)
            home[r] = -2; /* no tensor yet */
        for (int32_t p = 0; p < n && st == LF_OK; p++) {
            int32_t r = wc->charged_by[p];
            if (r >= 0)
                home[r] = home[r] == -2 || home[r] == seg[p] ? seg[p] : -1;
        }
        for (int32_t r = 0; r < wc->n && st == LF_OK; r++) {
            if (home[r] < 0) { /* across segments, or no tensor: kept */
                home[r] = -1;
                sum += wc->excess[r] > 0 ? wc->excess[r] : 0;
            }
        }
        if (st == LF_OK && !lf__bal_windows(&b, wc, seg, home, ops, n_ops, x.beta, &sum))
            st = lf_set_error(LF_ENOMEM, "out of memory computing bounds");
        free(seg);
        free(home);
    }
    if (st == LF_OK)
        *lower = sum > base + whole && !whole_only ? sum : base + whole;
    free(floor);
    free(mass);
    free(weight);
    free(wall);
    free(in_u);
    free(is_cut);
    free(ops);
    free(b.local);
    free(b.m_anc);
    free(b.m_desc);
    free(b.thetas);
    free(b.rem);
    free(b.single);
    free(b.tedge);
    free(b.spread);
    free(b.net.head);
    free(b.net.level);
    free(b.net.it);
    free(b.net.queue);
    free(b.net.next);
    free(b.net.to);
    free(b.net.cap);
    lf__dp_teardown(&x);
    return st;
}
