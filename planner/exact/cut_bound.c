/* A lower bound on the DRAM of every valid plan from the tensors that must
 * cross a group boundary (docs/search.md "Certified bounds"). It needs no
 * search, so it holds where the block DPs run out of time.
 *
 * Every group is convex and holds only fusable ops, so a group holding ops a
 * and b holds their hull (a, b and every op on a path between them). When the
 * hull holds an unfusable op, or the monotone floor of F_beta the enumeration
 * prunes with already reaches beta on it, no valid group holds both: a and b
 * are apart in every valid plan. Summed per tensor t of op p (S_t bytes):
 *
 *   - p fusable: of the set {p} and p's fusable consumers, a clique K of
 *     pairwise apart ops lies in |K| groups, at most one of them p's, so t is
 *     read from DRAM at least |K| - 1 times; it is written once when that is
 *     at least one, or t is a graph output, or an unfusable op reads it;
 *   - p a graph input or unfusable: every group of its fusable consumers
 *     reads t, at least as many as a clique of pairwise apart consumers;
 *   - at least twice when t feeds a squeeze-and-excite wait too large to
 *     keep on chip (lf__wait_forced).
 *
 * Weights are not counted here (the caller adds each fusable op's once). */
#include <stdlib.h>
#include <string.h>

#include "planner/exact/downsets.h"
#include "planner/exact/solve.h"
#include "planner/optable.h"

/* Cliques are searched among at most this many ops of one tensor (a clique
 * of a subset is a clique of the whole, so the bound stays a bound). */
#define LF__CUT_MAX_OPS 24

typedef struct lf__cut {
    lf__exact x;
    const lf_graph *g;
    int64_t *fwd, *bwd; /* generation stamps of the two sweeps (64-bit: never wrap) */
    int64_t gen;
    int32_t *hull;
} lf__cut;

/* 1 when no valid group holds both ops a and b (ids are topological). */
static int lf__apart(lf__cut *c, int32_t a, int32_t b)
{
    if (a > b) {
        int32_t t = a;
        a = b;
        b = t;
    }
    if (!c->x.fusable[a] || !c->x.fusable[b])
        return 1;
    const lf_graph *g = c->g;
    int64_t gen = ++c->gen;
    int32_t n_hull = 0;
    /* Forward from a over ops up to b, then back from b over those. */
    c->fwd[a] = gen;
    for (int32_t v = a; v < b; v++) {
        if (c->fwd[v] != gen)
            continue;
        for (int32_t j = 0; j < g->ops[v].n_consumers; j++) {
            int32_t w = g->ops[v].consumers[j];
            if (w <= b)
                c->fwd[w] = gen;
        }
    }
    if (c->fwd[b] != gen) { /* unordered: the hull is the two ops */
        c->hull[n_hull++] = a;
        c->hull[n_hull++] = b;
    } else {
        c->bwd[b] = gen;
        for (int32_t v = b; v >= a; v--) {
            if (c->bwd[v] != gen || c->fwd[v] != gen)
                continue;
            if (!c->x.fusable[v])
                return 1;
            c->hull[n_hull++] = v;
            for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
                c->bwd[g->ops[v].inputs[j]] = gen;
        }
    }
    return lf__dp_floor_of(&c->x, c->hull, n_hull, c->x.beta) >= c->x.beta;
}

/* 1 when tensor p feeds a squeeze-and-excite wait whose map cannot stay on
 * chip: a fusable reader r of p is a streaming reduction of its map to one pixel,
 * another fusable reader m of p (spatial, not a reduction) descends from r through
 * ops of height one (the vector's ops), and p's map, more than one row and
 * not a zero-copy view, reaches beta alone (one image's map: the rows of a
 * batch are per image). A group holding r and m holds
 * the path between them (convex), so m reads a value only the reduction can
 * produce and waits for it (planner/cost/rows.c, lf__is_phase_boundary),
 * and p is read on both sides of the wait. Kept resident, p spans one hull
 * from row 0 to its last: its whole map is in the buffer (model.c,
 * lf__eval_waits), so F_beta >= beta; read again, the group pays p's bytes
 * once more, twice when p is its own and no output (rows.c,
 * lf__wait_reread_bytes). So p moves at least twice its bytes in every
 * valid plan: its readers in two groups, or in one that is not p's, cost a
 * write and a read (two reads of a graph input); all of them in p's group
 * pay the second read. The rows floor the DP prunes with does not see the
 * wait: PP-OCRv4 detection's SE blocks on 80 x 80 and 160 x 160 maps are
 * 7.4 MB of forced traffic it missed. */
static int lf__wait_forced(lf__cut *c, int32_t p)
{
    const lf_graph *g = c->g;
    const lf_op *op = &g->ops[p];
    /* The buffer holds one image's map (rows are per image): its bytes
     * must reach beta, the tensor's being batch times that. */
    int64_t batch = op->out.n > 1 ? op->out.n : 1;
    if (op->out.h <= 1 || lf_op_row_kind(g, p) == LF_ROWS_VIEW ||
        lf_cost_tensor_bytes(c->x.cm, p) < batch * c->x.beta)
        return 0;
    for (int32_t j = 0; j < op->n_consumers; j++) {
        int32_t r = op->consumers[j];
        const lf_op *rop = &g->ops[r];
        /* Both readers fusable: an unfusable op's own read is no fusable
         * group's DRAM. */
        if (!c->x.fusable[r] || rop->out.h != 1 || rop->n_inputs != 1 ||
            lf_op_row_kind(g, r) != LF_ROWS_REDUCTION)
            continue;
        /* Forward from r over ops of height one; a spatial reader of p met
         * on the way waits for r. */
        int64_t gen = ++c->gen;
        c->fwd[r] = gen;
        for (int32_t v = r; v < g->n_ops; v++) {
            if (c->fwd[v] != gen)
                continue;
            for (int32_t k = 0; k < g->ops[v].n_consumers; k++) {
                int32_t w = g->ops[v].consumers[k];
                if (g->ops[w].out.h == 1 && lf_op_row_kind(g, w) != LF_ROWS_REDUCTION) {
                    c->fwd[w] = gen;
                    continue;
                }
                if (lf_op_row_kind(g, w) == LF_ROWS_REDUCTION)
                    continue;
                for (int32_t i = 0; i < g->ops[w].n_inputs && c->x.fusable[w]; i++)
                    if (g->ops[w].inputs[i] == p)
                        return 1;
            }
        }
    }
    return 0;
}

/* Size of the largest clique of the graph on k vertices whose neighbours are
 * the bit masks adj[i], among the candidates `cand` (a simple branch and
 * bound: k is small). */
static int32_t lf__max_clique(const uint32_t *adj, uint32_t cand, int32_t size, int32_t best)
{
    if (cand == 0)
        return size > best ? size : best;
    while (cand) {
        if (size + __builtin_popcount(cand) <= best)
            return best;
        int32_t i = __builtin_ctz(cand);
        cand &= cand - 1;
        best = lf__max_clique(adj, cand & adj[i], size + 1, best);
    }
    return best;
}

/* The bytes tensor p moves at least (see the top of the file). */
static int64_t lf__tensor_floor(lf__cut *c, int32_t p)
{
    const lf_graph *g = c->g;
    const lf_op *op = &g->ops[p];
    int32_t ops[LF__CUT_MAX_OPS], k = 0;
    int producer = c->x.fusable[p], unfusable_reader = 0;
    if (producer)
        ops[k++] = p;
    for (int32_t j = 0; j < op->n_consumers; j++) {
        int32_t w = op->consumers[j], dup = 0;
        if (!c->x.fusable[w]) {
            unfusable_reader = 1;
            continue;
        }
        for (int32_t i = 0; i < k; i++)
            dup |= ops[i] == w;
        if (!dup && k < LF__CUT_MAX_OPS)
            ops[k++] = w;
    }
    uint32_t adj[LF__CUT_MAX_OPS] = {0};
    for (int32_t i = 0; i < k; i++)
        for (int32_t j = i + 1; j < k; j++)
            if (lf__apart(c, ops[i], ops[j])) {
                adj[i] |= 1u << j;
                adj[j] |= 1u << i;
            }
    int32_t clique = k > 0 ? lf__max_clique(adj, (1u << k) - 1, 0, 0) : 0;
    int64_t times;
    if (producer)
        times = (clique - 1) + (clique >= 2 || op->is_output || unfusable_reader);
    else
        times = clique;
    if (times < 2 && lf__wait_forced(c, p))
        times = 2;
    return times * lf_cost_tensor_bytes(c->x.cm, p);
}

/* Which fusable readers of each tensor are pairwise apart (see solve.h). */
static void lf__readers_apart(lf__cut *c, int32_t p, lf__reader_apart *ra)
{
    const lf_op *op = &c->g->ops[p];
    int32_t k = op->n_consumers < 32 ? op->n_consumers : 32;
    uint32_t *m = ra->mask + ra->start[p];
    for (int32_t i = 0; i < k; i++)
        for (int32_t j = i + 1; j < k; j++) {
            int32_t a = op->consumers[i], b = op->consumers[j];
            if (c->x.fusable[a] && c->x.fusable[b] && lf__apart(c, a, b)) {
                m[i] |= 1u << j;
                m[j] |= 1u << i;
                ra->any[p] = 1;
            }
        }
}

int32_t lf__reader_apart_clique(const lf__reader_apart *ra, int32_t p, uint32_t cand)
{
    return lf__max_clique(ra->mask + ra->start[p], cand, 0, 0);
}

void lf__reader_apart_free(lf__reader_apart *ra)
{
    free(ra->start);
    free(ra->mask);
    free(ra->any);
    memset(ra, 0, sizeof *ra);
}

lf_status lf__cut_tensor_floors(lf_cost_model *cm, int64_t *floor)
{
    return lf__cut_tensor_floors_apart(cm, floor, NULL);
}

lf_status lf__cut_tensor_floors_apart(lf_cost_model *cm, int64_t *floor, lf__reader_apart *ra)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf__cut c;
    memset(&c, 0, sizeof c);
    c.g = g;
    lf_status st = lf__dp_setup(&c.x, cm, NULL, NULL);
    c.fwd = calloc((size_t)g->n_ops + 1, sizeof *c.fwd);
    c.bwd = calloc((size_t)g->n_ops + 1, sizeof *c.bwd);
    c.hull = malloc(((size_t)g->n_ops + 1) * sizeof *c.hull);
    if (st == LF_OK && (!c.fwd || !c.bwd || !c.hull))
        st = lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    if (ra) {
        memset(ra, 0, sizeof *ra);
        ra->start = malloc(((size_t)g->n_ops + 1) * sizeof *ra->start);
        ra->any = calloc((size_t)g->n_ops + 1, 1);
        int32_t total = 0;
        for (int32_t p = 0; ra->start && p < g->n_ops; p++) {
            ra->start[p] = total;
            total += g->ops[p].n_consumers < 32 ? g->ops[p].n_consumers : 32;
        }
        ra->mask = calloc((size_t)total + 1, sizeof *ra->mask);
        if (st == LF_OK && (!ra->start || !ra->any || !ra->mask))
            st = lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    }
    for (int32_t p = 0; p < g->n_ops && st == LF_OK; p++) {
        floor[p] = lf__tensor_floor(&c, p);
        if (ra)
            lf__readers_apart(&c, p, ra);
        st = c.x.status;
    }
    free(c.fwd);
    free(c.bwd);
    free(c.hull);
    lf__dp_teardown(&c.x);
    return st;
}

lf_status lf__cut_lower_bound(lf_cost_model *cm, const uint8_t *charged, int64_t *traffic)
{
    const lf_graph *g = lf_cost_graph(cm);
    int64_t *floor = malloc(((size_t)g->n_ops + 1) * sizeof *floor);
    lf_status st = floor ? lf__cut_tensor_floors(cm, floor)
                         : lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    *traffic = 0;
    for (int32_t p = 0; p < g->n_ops && st == LF_OK; p++)
        if (!charged || !charged[p])
            *traffic += floor[p];
    free(floor);
    return st;
}
