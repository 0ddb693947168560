/* Separators of a few tensors (issue 46, docs/search.md "Separators"): places
 * in the topological order that only a few tensors cross (a NasNet-A cell's
 * two inputs, a RandWire stage's outputs), and the bounds that pieces between
 * them give.
 *
 * A cut after op c splits the ops into A = {ids <= c} (a downset) and
 * B = {ids > c}; S_c, its separator, is the tensors made in A and read in B.
 * A group G spans c when it holds ops of both sides. G is weakly connected,
 * so one of its edges u -> v crosses (ids are topological, so u is in A, v
 * in B and u's tensor is in S_c); G is convex, so it holds the hull of u and
 * v, and valid, so the monotone floor of F_beta on that hull is below beta:
 * the edge is *spannable*. Hence
 *
 *   (1) no spannable edge at c: no valid group spans c;
 *   (2) at most M_c groups span c, M_c = the fewest distinct tails or heads
 *       of spannable edges (distinct groups hold distinct ops).
 *
 * Upper bound. Each piece between chosen cuts is solved exactly with the
 * ops outside it counted as computed (lf__exact_solve): every tensor of a
 * separator is written and read as the DRAM formula says. The union of the
 * pieces' plans is a plan (pieces are ordered downset differences, so its
 * quotient is acyclic) whose DRAM is the sum, since a group's F_D depends on
 * the group alone.
 *
 * Lower bound. Split every group of an optimal plan at every chosen cut.
 * Each part is a candidate of its piece's relaxed DP (bounds.c: any set,
 * connected or not, whose monotone F_beta floor -- at most its group's --
 * is below beta; the parts of one piece in the plan's order form a chain of
 * the piece's downsets), charged its inputs, outputs and weights once plus
 * the weight re-reads its tile floor forces on any group holding it, which
 * its whole group pays too. So sum over pieces of the relaxed optima is at
 * most OPT plus what the splits add to inputs and outputs, tensor by tensor:
 *
 *   - t made in part j0 of G and read by other parts of G: each such part
 *     reads t once more, and part j0 writes t once more when G did not;
 *   - t made outside G and read by k parts of G: k - 1 more reads.
 *
 * Charge each extra read to the cut just before the reading part's piece,
 * and the extra write to the cut just after part j0's piece; in both cases
 * t is in that cut's separator and G spans it. At cut c, then, t in S_c
 * costs at most |t| * (w + r) more: w = 1 only when t's maker has a
 * spannable edge to one of t's readers past c (G holds both), and r, the
 * groups spanning c with a part in the next piece reading t, is at most
 * min(M_c, fusable readers of t in the next piece). Subtracting those sums
 * keeps a certified lower bound. With no spannable edge at any chosen cut
 * nothing is subtracted, no group spans a cut, every plan is a union of
 * piece plans, and the pieces' exact optima sum to the optimum: the
 * separators then join the pieces exactly. */
#include <stdlib.h>
#include <string.h>

#include "planner/exact/downsets.h"
#include "planner/exact/separators.h"
#include "planner/exact/solve.h"
#include "planner/util/clock.h"

typedef struct lf__sep {
    lf__exact x; /* for the floor of F_beta over a hull */
    const lf_graph *g;
    int32_t n;
    int32_t *hull;
    int64_t *fwd, *bwd, *mark, gen; /* mark: heads counted, by stamp (64-bit: never wraps) */
} lf__sep;

/* 1 when some valid group may hold both ends of edge u -> v (see the top). */
static int lf__spannable(lf__sep *s, int32_t u, int32_t v)
{
    if (!s->x.fusable[u] || !s->x.fusable[v])
        return 0;
    const lf_graph *g = s->g;
    int64_t gen = ++s->gen;
    int32_t n_hull = 0;
    s->fwd[u] = gen;
    for (int32_t w = u; w < v; w++) {
        if (s->fwd[w] != gen)
            continue;
        for (int32_t j = 0; j < g->ops[w].n_consumers; j++)
            if (g->ops[w].consumers[j] <= v)
                s->fwd[g->ops[w].consumers[j]] = gen;
    }
    s->bwd[v] = gen;
    for (int32_t w = v; w >= u; w--) {
        if (s->bwd[w] != gen || s->fwd[w] != gen)
            continue;
        if (!s->x.fusable[w])
            return 0;
        s->hull[n_hull++] = w;
        for (int32_t j = 0; j < g->ops[w].n_inputs; j++)
            s->bwd[g->ops[w].inputs[j]] = gen;
    }
    return lf__dp_floor_of(&s->x, s->hull, n_hull, s->x.beta) < s->x.beta;
}

/* Fusable readers of op t's tensor among ops (lo, hi]. */
static int32_t lf__readers(const lf__sep *s, int32_t t, int32_t lo, int32_t hi)
{
    int32_t k = 0;
    const lf_op *op = &s->g->ops[t];
    for (int32_t j = 0; j < op->n_consumers; j++) {
        int32_t w = op->consumers[j];
        k += w > lo && w <= hi && s->x.fusable[w];
    }
    return k;
}

/* The bytes splitting every group at cut c may add (see the top), the next
 * cut being at `next` (pieces (c, next]); spannable edges counted in *n_span. */
static int64_t lf__extra(lf__sep *s, int32_t c, int32_t next, int32_t *n_span)
{
    const lf_graph *g = s->g;
    int32_t tails = 0, heads = 0;
    int64_t gen = ++s->gen; /* the hulls below take later stamps */
    *n_span = 0;
    for (int32_t u = 0; u <= c; u++) {
        const lf_op *op = &g->ops[u];
        if (op->n_consumers == 0 || op->consumers[op->n_consumers - 1] <= c)
            continue;
        int tail = 0;
        for (int32_t j = 0; j < op->n_consumers; j++) {
            int32_t v = op->consumers[j];
            if (v <= c || !lf__spannable(s, u, v))
                continue;
            ++*n_span;
            tail = 1;
            if (s->mark[v] != gen) {
                s->mark[v] = gen;
                heads++;
            }
        }
        tails += tail;
    }
    int32_t m = tails < heads ? tails : heads;
    if (m == 0)
        return 0;
    int64_t extra = 0;
    for (int32_t u = 0; u <= c; u++) {
        const lf_op *op = &g->ops[u];
        if (op->n_consumers == 0 || op->consumers[op->n_consumers - 1] <= c)
            continue;
        int64_t w = 0;
        for (int32_t j = 0; j < op->n_consumers && !w; j++)
            if (op->consumers[j] > c && lf__spannable(s, u, op->consumers[j]))
                w = 1;
        int32_t r = lf__readers(s, u, c, next);
        if (r > m)
            r = m;
        /* A read past c by a group that spans c needs that group to hold a
         * reader at or before c, or t's maker with a spannable edge. */
        if (!w && lf__readers(s, u, -1, c) == 0)
            r = 0;
        extra += (w + r) * lf_cost_tensor_bytes(s->x.cm, u);
    }
    return extra;
}

static lf_status lf__sep_init(lf__sep *s, lf_cost_model *cm)
{
    memset(s, 0, sizeof *s);
    s->g = lf_cost_graph(cm);
    s->n = s->g->n_ops;
    lf_status st = lf__dp_setup(&s->x, cm, NULL, NULL);
    s->fwd = calloc((size_t)s->n + 1, sizeof *s->fwd);
    s->bwd = calloc((size_t)s->n + 1, sizeof *s->bwd);
    s->hull = calloc((size_t)s->n + 1, sizeof *s->hull);
    s->mark = calloc((size_t)s->n + 1, sizeof *s->mark);
    if (st == LF_OK && (!s->fwd || !s->bwd || !s->hull || !s->mark))
        st = lf_set_error(LF_ENOMEM, "out of memory finding separators");
    return st;
}

static void lf__sep_destroy(lf__sep *s)
{
    free(s->fwd);
    free(s->bwd);
    free(s->hull);
    free(s->mark);
    lf__dp_teardown(&s->x);
}

lf_status lf__separator_cuts(lf_cost_model *cm, int32_t max_width, lf__sep_cut **cuts, int32_t *n_cuts)
{
    *cuts = NULL;
    *n_cuts = 0;
    lf__sep s;
    lf_status st = lf__sep_init(&s, cm);
    const lf_graph *g = s.g;
    int32_t last = -1;
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT)
            last = v;
    lf__sep_cut *out = st == LF_OK ? calloc((size_t)g->n_ops + 1, sizeof *out) : NULL;
    /* Tensor u crosses the cuts after ops u .. (its last reader - 1): the
     * widths of all cuts from one difference array. */
    int32_t *delta = st == LF_OK ? calloc((size_t)g->n_ops + 1, sizeof *delta) : NULL;
    if (st == LF_OK && (!out || !delta))
        st = lf_set_error(LF_ENOMEM, "out of memory finding separators");
    for (int32_t u = 0; u < g->n_ops && st == LF_OK; u++) {
        const lf_op *op = &g->ops[u];
        if (op->n_consumers > 0 && op->consumers[op->n_consumers - 1] > u) {
            delta[u]++;
            delta[op->consumers[op->n_consumers - 1]]--;
        }
    }
    int32_t k = 0, width = 0;
    for (int32_t c = 0; c < last && st == LF_OK; c++) {
        width += delta[c];
        if (g->ops[c].type == LF_OP_INPUT || width > max_width)
            continue;
        out[k].pos = c;
        out[k].width = width;
        out[k].extra = lf__extra(&s, c, g->n_ops, &out[k].spannable);
        st = s.x.status;
        k++;
    }
    lf__sep_destroy(&s);
    free(delta);
    if (st != LF_OK) {
        free(out);
        return st;
    }
    *cuts = out;
    *n_cuts = k;
    return LF_OK;
}

/* What the pieces share. */
typedef struct lf__pieces {
    lf_cost_model *cm;
    const lf_graph *g;
    lf_exact_config total;
    double t0;
    lf_bitset u, one;
    lf_cost_tiles *tiles;
} lf__pieces;

/* The pieces' shared state, their time limit from cfg's (a deadline
 * sooner than its time limit shortens it). */
static void lf__pieces_init(lf__pieces *p, lf_cost_model *cm, const lf_exact_config *cfg)
{
    memset(p, 0, sizeof *p);
    p->cm = cm;
    p->g = lf_cost_graph(cm);
    p->t0 = lf_now_seconds();
    lf_exact_config_default(&p->total);
    if (cfg)
        p->total = *cfg;
    if (p->total.deadline > 0) {
        double left = p->total.deadline - p->t0;
        if (p->total.time_limit_s <= 0 || left < p->total.time_limit_s)
            p->total.time_limit_s = left > 1e-9 ? left : 1e-9;
    }
}

static double lf__left(const lf__pieces *p)
{
    return p->total.time_limit_s > 0 ? p->total.time_limit_s - (lf_now_seconds() - p->t0) : 0;
}

/* A DP's limits with `seconds` of wall time (none when the total has none). */
static lf_exact_config lf__share(const lf__pieces *p, double seconds)
{
    lf_exact_config k = p->total;
    if (k.time_limit_s > 0)
        k.time_limit_s = seconds > 1e-3 ? seconds : 1e-3;
    return k;
}

/* F_D and weights of op v alone. */
static lf_status lf__alone(lf__pieces *p, int32_t v, lf_group_cost *gc)
{
    lf_bitset_set(&p->one, v);
    lf_status st = lf_cost_eval(p->cm, &p->one, gc);
    lf_bitset_reset(&p->one, v);
    return st;
}

/* Piece (from, to] of compute ops into p->u. */
static void lf__piece(lf__pieces *p, int32_t from, int32_t to)
{
    lf_bitset_clear_all(&p->u);
    for (int32_t v = from + 1; v <= to; v++)
        if (p->g->ops[v].type != LF_OP_INPUT)
            lf_bitset_set(&p->u, v);
}

/* Exact optimum of the piece in p->u into plan (*up, *solved), or its ops
 * as singletons when it runs past its limits. */
static lf_status lf__piece_upper(lf__pieces *p, double seconds, lf_plan *plan, int64_t *up, int *solved,
                                 int64_t *states)
{
    lf_exact_config k = lf__share(p, seconds);
    lf_plan bp;
    lf_exact_stats es;
    int64_t d = 0;
    *solved = 0;
    if ((p->total.time_limit_s <= 0 || seconds > 0) && lf__exact_solve(p->cm, &p->u, &k, &bp, &d, &es) == LF_OK) {
        int32_t base = plan->n_groups;
        for (int32_t w = 0; w < p->g->n_ops; w++)
            if (bp.group_of[w] >= 0) {
                plan->group_of[w] = base + bp.group_of[w];
                if (plan->group_of[w] + 1 > plan->n_groups)
                    plan->n_groups = plan->group_of[w] + 1;
            }
        lf_plan_destroy(&bp);
        *up += d;
        *solved = 1;
        if (es.states > *states)
            *states = es.states;
        return LF_OK;
    }
    for (int32_t v = lf_bitset_next(&p->u, 0); v >= 0; v = lf_bitset_next(&p->u, v + 1)) {
        plan->group_of[v] = plan->n_groups++;
        lf_group_cost gc;
        if (!lf_cost_fusable(p->cm, v))
            continue;
        lf_status st = lf__alone(p, v, &gc);
        if (st != LF_OK)
            return st;
        *up += gc.f_d;
    }
    return LF_OK;
}

/* The piece's relaxed optimum, or its fusable ops' weights past the limits. */
static lf_status lf__piece_lower(lf__pieces *p, double seconds, int64_t *lo, int *solved)
{
    lf_exact_config k = lf__share(p, seconds);
    int64_t d = 0;
    *solved = 0;
    if ((p->total.time_limit_s <= 0 || seconds > 0) && lf__relaxed_solve(p->cm, p->tiles, &p->u, &k, &d) == LF_OK) {
        *lo += d;
        *solved = 1;
        return LF_OK;
    }
    for (int32_t v = lf_bitset_next(&p->u, 0); v >= 0; v = lf_bitset_next(&p->u, v + 1)) {
        lf_group_cost gc;
        if (!lf_cost_fusable(p->cm, v))
            continue;
        lf_status st = lf__alone(p, v, &gc);
        if (st != LF_OK)
            return st;
        *lo += gc.weights;
    }
    return LF_OK;
}

/* Chooses cuts among the candidates: every cut that no valid group spans,
 * and between those, pieces of at most max_ops compute ops (a stretch
 * without a candidate stays one piece) with the least extra summed, then the
 * fewest pieces. Writes the indices of the chosen cuts into pick
 * and returns how many. */
static int32_t lf__choose(const lf__sep_cut *cuts, int32_t k, const int32_t *below, int32_t last,
                          int32_t max_ops, int32_t *pick)
{
    /* Node i < k is cut i, node k the end; the start is before node 0. */
    int64_t *cost = malloc(((size_t)k + 2) * sizeof *cost);
    int32_t *npc = malloc(((size_t)k + 2) * sizeof *npc), *from = malloc(((size_t)k + 2) * sizeof *from);
    int32_t n = -1;
    if (!cost || !npc || !from)
        goto done;
    for (int32_t j = 0; j <= k; j++) {
        int32_t pos = j < k ? cuts[j].pos : last;
        int64_t own = j < k ? cuts[j].extra : 0;
        cost[j] = INT64_MAX;
        for (int32_t i = j - 1; i >= -1; i--) {
            int32_t ops = below[pos + 1] - (i >= 0 ? below[cuts[i].pos + 1] : 0);
            if (ops > max_ops && i < j - 1)
                break;
            int64_t c0 = i >= 0 ? cost[i] : 0;
            int32_t n0 = i >= 0 ? npc[i] : 0;
            if (c0 == INT64_MAX)
                continue;
            if (c0 + own < cost[j] || (c0 + own == cost[j] && n0 + 1 < npc[j])) {
                cost[j] = c0 + own;
                npc[j] = n0 + 1;
                from[j] = i;
            }
            if (i >= 0 && cuts[i].spannable == 0)
                break; /* a cut no group spans is always taken: it loses nothing */
        }
    }
    n = 0;
    for (int32_t j = from[k]; j >= 0; j = from[j])
        pick[n++] = j;
    for (int32_t a = 0, b = n - 1; a < b; a++, b--) {
        int32_t t = pick[a];
        pick[a] = pick[b];
        pick[b] = t;
    }
done:
    free(cost);
    free(npc);
    free(from);
    return n;
}

lf_status lf__separator_bounds(lf_cost_model *cm, const lf_exact_config *cfg, int32_t max_width,
                               int32_t max_piece_ops, lf_plan *plan, lf__sep_bounds *b)
{
    memset(b, 0, sizeof *b);
    memset(plan, 0, sizeof *plan);
    lf__pieces p;
    lf__pieces_init(&p, cm, cfg);
    int32_t n = p.g->n_ops, last = -1, k = 0, n_pick = 0;
    for (int32_t v = 0; v < n; v++)
        if (p.g->ops[v].type != LF_OP_INPUT)
            last = v;
    lf__sep_cut *cuts = NULL;
    int32_t *below = calloc((size_t)n + 2, sizeof *below), *pick = calloc((size_t)n + 1, sizeof *pick);
    lf__sep s;
    int s_ready = 0;
    lf_status st = below && pick ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory finding separators");
    if (st == LF_OK)
        st = lf__separator_cuts(cm, max_width, &cuts, &k);
    if (st == LF_OK && (st = lf__sep_init(&s, cm)) == LF_OK)
        s_ready = 1;
    if (st == LF_OK && (st = lf_bitset_init(&p.u, n)) == LF_OK && (st = lf_bitset_init(&p.one, n)) == LF_OK &&
        (st = lf__tiles_create_sharp(cm, &p.tiles)) == LF_OK)
        st = lf_plan_init(plan, n);
    if (st == LF_OK) {
        for (int32_t v = 0; v < n; v++)
            below[v + 1] = below[v] + (p.g->ops[v].type != LF_OP_INPUT);
        n_pick = last >= 0 ? lf__choose(cuts, k, below, last, max_piece_ops, pick) : 0;
        if (n_pick < 0)
            st = lf_set_error(LF_ENOMEM, "out of memory finding separators");
    }
    /* Each piece: its share of what is left, half for each bound. The
     * extras of a cut are counted with the readers of the next piece only. */
    int hard_before = 1;
    b->pieces = last >= 0 ? n_pick + 1 : 0;
    for (int32_t i = 0; i < b->pieces && st == LF_OK; i++) {
        int32_t from = i > 0 ? cuts[pick[i - 1]].pos : -1, to = i < n_pick ? cuts[pick[i]].pos : last;
        int32_t next = i + 1 < n_pick ? cuts[pick[i + 1]].pos : last;
        int hard_after = 1;
        if (i < n_pick) {
            int32_t spans = 0;
            b->extra += lf__extra(&s, to, next, &spans);
            if ((st = s.x.status) != LF_OK)
                break;
            hard_after = spans == 0;
            b->cuts_hard += hard_after;
        }
        lf__piece(&p, from, to);
        int64_t up = 0, lo = 0;
        int solved_up = 0, solved_lo = 0;
        int32_t left = b->pieces - i;
        st = lf__piece_upper(&p, lf__left(&p) / (2 * left), plan, &up, &solved_up, &b->states_max);
        /* Between cuts that no valid group spans, every plan's groups in the
         * piece are a plan of it: its optimum is its share of the bound. */
        if (st == LF_OK && solved_up && hard_before && hard_after) {
            lo = up;
            solved_lo = 1;
        } else if (st == LF_OK) {
            st = lf__piece_lower(&p, lf__left(&p) / (2 * left - 1), &lo, &solved_lo);
        }
        b->upper += up;
        b->relaxed += lo;
        b->pieces_exact += solved_up;
        b->pieces_lower += solved_lo;
        hard_before = hard_after;
    }
    if (st == LF_OK) {
        int64_t weights = 0;
        for (int32_t v = 0; v < n && st == LF_OK; v++) {
            lf_group_cost gc;
            if (p.g->ops[v].type == LF_OP_INPUT || !lf_cost_fusable(cm, v))
                continue;
            if ((st = lf__alone(&p, v, &gc)) == LF_OK)
                weights += gc.weights;
        }
        b->lower = b->relaxed - b->extra;
        if (b->lower < weights)
            b->lower = weights;
        b->exact = b->pieces_exact == b->pieces && b->cuts_hard == n_pick;
        if (b->exact)
            b->lower = b->upper;
        lf_plan_canonicalize(plan);
    } else if (plan->group_of) {
        lf_plan_destroy(plan);
    }
    b->wall_s = lf_now_seconds() - p.t0;
    if (s_ready)
        lf__sep_destroy(&s);
    lf_bitset_destroy(&p.u);
    lf_bitset_destroy(&p.one);
    lf_cost_tiles_free(p.tiles);
    free(cuts);
    free(below);
    free(pick);
    return st;
}

lf_status lf__hard_pieces_solve(lf_cost_model *cm, const lf_exact_config *cfg, int32_t max_width,
                                lf__hard_pieces *h)
{
    memset(h, 0, sizeof *h);
    lf__pieces p;
    lf__pieces_init(&p, cm, cfg);
    int32_t n = p.g->n_ops, k = 0, last = -1;
    for (int32_t v = 0; v < n; v++)
        if (p.g->ops[v].type != LF_OP_INPUT)
            last = v;
    lf__sep_cut *cuts = NULL;
    int32_t *ends = h->ends = malloc(((size_t)n + 1) * sizeof *ends);
    int32_t *order = malloc(((size_t)n + 1) * sizeof *order), *size = malloc(((size_t)n + 1) * sizeof *size);
    h->done = calloc((size_t)n + 1, 1);
    lf_status st = ends && order && size && h->done ? LF_OK
                                                    : lf_set_error(LF_ENOMEM, "out of memory finding separators");
    if (st == LF_OK)
        st = lf__separator_cuts(cm, max_width, &cuts, &k);
    if (st == LF_OK && (st = lf_bitset_init(&p.u, n)) == LF_OK)
        st = lf_plan_init(&h->plan, n);
    if (st == LF_OK && last >= 0) {
        for (int32_t i = 0; i < k; i++)
            if (cuts[i].spannable == 0)
                ends[h->cuts++] = cuts[i].pos;
        ends[h->cuts] = last;
        h->pieces = h->cuts + 1;
        for (int32_t i = 0; i < h->pieces; i++) {
            order[i] = i;
            size[i] = ends[i] - (i > 0 ? ends[i - 1] : -1);
        }
        /* The fewest ops first (ties by position): the cheap pieces are
         * certain, the one that may not finish takes what they leave. */
        for (int32_t i = 1; i < h->pieces; i++)
            for (int32_t j = i; j > 0 && size[order[j - 1]] > size[order[j]]; j--) {
                int32_t t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
    }
    /* Without a cut the one piece is the whole graph, which the caller's
     * DP could not finish. */
    for (int32_t r = 0; r < h->pieces && h->cuts > 0 && st == LF_OK; r++) {
        int32_t i = order[r];
        if (p.total.time_limit_s > 0 && lf__left(&p) <= 1e-3)
            break;
        lf__piece(&p, i > 0 ? ends[i - 1] : -1, ends[i]);
        lf_exact_config kc = lf__share(&p, lf__left(&p) / (h->pieces - r));
        lf_plan bp;
        int64_t d = 0;
        lf_status ps = lf__exact_solve(cm, &p.u, &kc, &bp, &d, NULL);
        if (ps == LF_ELIMIT)
            continue; /* this piece stays open */
        if ((st = ps) != LF_OK)
            break;
        int32_t base = h->plan.n_groups;
        for (int32_t w = 0; w < n; w++)
            if (bp.group_of[w] >= 0) {
                h->plan.group_of[w] = base + bp.group_of[w];
                if (h->plan.group_of[w] + 1 > h->plan.n_groups)
                    h->plan.n_groups = h->plan.group_of[w] + 1;
            }
        lf_plan_destroy(&bp);
        h->dram_solved += d;
        h->solved++;
        h->done[i] = 1;
    }
    if (st != LF_OK)
        lf__hard_pieces_free(h);
    h->wall_s = lf_now_seconds() - p.t0;
    lf_bitset_destroy(&p.u);
    free(cuts);
    free(order);
    free(size);
    return st;
}

lf_status lf__hard_pieces_apply(lf_cost_model *cm, const lf__hard_pieces *h, lf_plan *plan, int64_t *dram)
{
    if (h->solved == 0)
        return LF_OK;
    const lf_graph *g = lf_cost_graph(cm);
    lf_plan mixed;
    lf_status st = lf_plan_init(&mixed, g->n_ops);
    if (st != LF_OK)
        return st;
    /* A valid plan's groups never span the cuts, so its groups on the open
     * pieces and the solved pieces' groups together partition the ops. */
    for (int32_t v = 0; v < g->n_ops; v++) {
        int32_t q = h->plan.group_of[v];
        mixed.group_of[v] = q >= 0 ? q : plan->group_of[v] >= 0 ? h->plan.n_groups + plan->group_of[v] : -1;
        if (mixed.group_of[v] + 1 > mixed.n_groups)
            mixed.n_groups = mixed.group_of[v] + 1;
    }
    lf_plan_canonicalize(&mixed);
    lf_plan_metrics m;
    if (lf_plan_check(&mixed, cm) == LF_OK && lf_plan_metrics_compute(&mixed, cm, &m) == LF_OK &&
        m.n_invalid == 0 && m.objective < *dram) {
        lf_plan_destroy(plan);
        *plan = mixed;
        *dram = m.objective;
        return LF_OK;
    }
    lf_plan_destroy(&mixed);
    return LF_OK;
}

void lf__hard_pieces_free(lf__hard_pieces *h)
{
    lf_plan_destroy(&h->plan);
    free(h->ends);
    free(h->done);
    memset(h, 0, sizeof *h);
}

lf_status lf__hard_pieces_lower(lf_cost_model *cm, const lf__hard_pieces *h, const lf_exact_config *cfg,
                                int64_t *lower)
{
    *lower = 0;
    if (h->solved == 0)
        return LF_OK;
    lf__pieces p;
    lf__pieces_init(&p, cm, cfg);
    const lf_graph *g = p.g;
    int64_t sum = h->dram_solved;
    int32_t open = h->pieces - h->solved;
    lf_status st = LF_OK;
    for (int32_t i = 0; i < h->pieces && st == LF_OK; i++) {
        if (h->done[i])
            continue;
        int32_t lo = i > 0 ? h->ends[i - 1] : -1, hi = h->ends[i];
        lf_exact_config k = lf__share(&p, lf__left(&p) / open);
        open--;
        /* Every plan's groups on the piece are a plan of its graph, at the
         * same F_D: a floor of that graph's optimum is one of the piece's. */
        lf_graph *pg = NULL;
        lf_cost_model *pm = NULL;
        lf__window_stats ws;
        if (lf__piece_graph(g, lo, hi, &pg) == LF_OK &&
            lf_cost_model_create(&pm, pg, lf_cost_hw(cm), lf_cost_scheme_name(cm)) == LF_OK &&
            lf__window_lower_bound(pm, &k, 0, &ws) == LF_OK) {
            sum += ws.lower;
        } else {
            for (int32_t v = lo + 1; v <= hi; v++)
                if (g->ops[v].type != LF_OP_INPUT && lf_cost_fusable(cm, v))
                    sum += lf_cost_weight_bytes(cm, v);
        }
        lf_cost_model_free(pm);
        lf_graph_free(pg);
    }
    *lower = sum;
    return st;
}
