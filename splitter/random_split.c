/* The random split, the paper's baseline for repairing an invalid group:
 * cut uniformly random edges inside parts that are still invalid until every
 * part (a weakly connected component of the uncut edges) is valid. DRAM is
 * ignored on purpose; that is what the tree splitter improves on.
 *
 * Cutting edges can leave the parts in a cycle among themselves (a -> b -> c
 * with a -> c: cutting a -> b and b -> c leaves {a, c} and {b}), which no plan
 * may contain, so parts on such a cycle count as "bad" too and get more
 * random cuts. Splitting everything into single ops is acyclic and valid (the
 * group holds only fusable ops), so the loop always ends.
 *
 * Work per cut is linear in the part being cut (one flood fill, one cost
 * query per new part), so a split costs about O(k log k) for a group of k ops
 * in the typical case, O(k^2) at worst. */
#include <stdlib.h>

#include "planner/util/rng.h"
#include "planner/util/scc.h"
#include "splitter/splitter.h"

typedef struct lf__rs {
    const lf_graph *g;
    lf_cost_model *cm;
    int32_t k, ne;       /* group ops, edges inside the group */
    const int32_t *mem;  /* local index -> op id (ascending) */
    int32_t *loc;        /* op id -> local index (valid for members only) */
    int32_t *eu, *ev;    /* edge endpoints (local) */
    int32_t *adj_start, *adj; /* local node -> incident edge ids */
    uint8_t *cut;
    int32_t *part;       /* local node -> part id */
    uint8_t *bad;        /* part id -> 0 fine, 1 invalid, 2 on a cycle among parts */
    int32_t *list;       /* flood fill output */
    uint8_t *mark;       /* flood fill visited (local) */
    int32_t *elig;
    int32_t n_parts;
    lf_bitset scratch;
    int64_t queries;
} lf__rs;

/* Collects the nodes reachable from `from` over uncut edges into list and
 * returns their number; `mark` is left set for them (the caller clears). */
static int32_t lf__flood(lf__rs *w, int32_t from)
{
    int32_t n = 0, head = 0;
    w->list[n++] = from;
    w->mark[from] = 1;
    while (head < n) {
        int32_t a = w->list[head++];
        for (int32_t i = w->adj_start[a]; i < w->adj_start[a + 1]; i++) {
            int32_t e = w->adj[i];
            if (w->cut[e])
                continue;
            int32_t b = w->eu[e] == a ? w->ev[e] : w->eu[e];
            if (!w->mark[b]) {
                w->mark[b] = 1;
                w->list[n++] = b;
            }
        }
    }
    return n;
}

/* Prices the nodes list[0..n) as one part and sets its bad flag. */
static lf_status lf__price(lf__rs *w, int32_t n, int32_t pid)
{
    lf_group_cost c;
    for (int32_t i = 0; i < n; i++)
        lf_bitset_set(&w->scratch, w->mem[w->list[i]]);
    lf_status st = lf_cost_eval(w->cm, &w->scratch, &c);
    for (int32_t i = 0; i < n; i++)
        lf_bitset_reset(&w->scratch, w->mem[w->list[i]]);
    w->queries++;
    w->bad[pid] = (uint8_t)(st != LF_OK || !c.valid ? 1 : 0);
    return st;
}

/* Marks parts that lie on a cycle among the parts as bad; returns how many. */
static int32_t lf__mark_cycles(lf__rs *w, int32_t *start, int32_t *succ, int32_t *comp,
                               int32_t *work, int32_t *csize)
{
    int32_t np = w->n_parts;
    for (int32_t p = 0; p <= np; p++)
        start[p] = 0;
    for (int32_t e = 0; e < w->ne; e++)
        if (w->part[w->eu[e]] != w->part[w->ev[e]])
            start[w->part[w->eu[e]] + 1]++;
    for (int32_t p = 0; p < np; p++)
        start[p + 1] += start[p];
    for (int32_t e = 0; e < w->ne; e++) {
        int32_t a = w->part[w->eu[e]], b = w->part[w->ev[e]];
        if (a != b)
            succ[start[a]++] = b;
    }
    for (int32_t p = np; p > 0; p--)
        start[p] = start[p - 1];
    start[0] = 0;
    int32_t nc = lf__scc(np, start, succ, comp, work);
    for (int32_t c = 0; c < nc; c++)
        csize[c] = 0;
    for (int32_t p = 0; p < np; p++)
        csize[comp[p]]++;
    int32_t marked = 0;
    for (int32_t p = 0; p < np; p++)
        if (csize[comp[p]] > 1) {
            w->bad[p] = 2;
            marked++;
        }
    return marked;
}

static lf_status lf__random_split(const lf_splitter *s, lf_cost_model *cm, const lf_bitset *group,
                                  uint64_t seed, lf_split_result *res)
{
    (void)s;
    lf__rs w = {0};
    w.g = lf_cost_graph(cm);
    w.cm = cm;
    lf_split_result_reset(res);
    int32_t n_ops = w.g->n_ops;
    if (group->nbits != n_ops || res->nbits != n_ops)
        return lf_set_error(LF_EINVAL, "random split: group of %d bits for a graph of %d ops",
                            (int)group->nbits, (int)n_ops);
    w.k = lf_bitset_count(group);
    if (w.k == 0)
        return lf_set_error(LF_EINVAL, "random split: empty group");
    int32_t max_e = 0;
    for (int32_t v = lf_bitset_next(group, 0); v >= 0; v = lf_bitset_next(group, v + 1))
        max_e += w.g->ops[v].n_inputs;
    int32_t k = w.k, big = k + 1 > max_e + 1 ? k + 1 : max_e + 1;
    int32_t *mem = malloc((size_t)k * sizeof(int32_t));
    w.loc = malloc((size_t)n_ops * sizeof(int32_t));
    w.eu = malloc((size_t)(max_e + 1) * sizeof(int32_t));
    w.ev = malloc((size_t)(max_e + 1) * sizeof(int32_t));
    w.adj_start = calloc((size_t)k + 1, sizeof(int32_t));
    w.adj = malloc((size_t)(2 * max_e + 1) * sizeof(int32_t));
    w.cut = calloc((size_t)max_e + 1, 1);
    w.part = malloc((size_t)k * sizeof(int32_t));
    w.bad = calloc((size_t)k, 1);
    w.list = malloc((size_t)k * sizeof(int32_t));
    w.mark = calloc((size_t)k, 1);
    w.elig = malloc((size_t)(max_e + 1) * sizeof(int32_t));
    /* Cycle check among parts: CSR arrays, SCC output and workspace. */
    int32_t *start = malloc((size_t)big * sizeof(int32_t));
    int32_t *succ = malloc((size_t)big * sizeof(int32_t));
    int32_t *comp = malloc((size_t)k * sizeof(int32_t));
    int32_t *csize = malloc((size_t)k * sizeof(int32_t));
    int32_t *work = malloc((size_t)5 * (size_t)k * sizeof(int32_t));
    lf_status st = LF_OK;
    if (!mem || !w.loc || !w.eu || !w.ev || !w.adj_start || !w.adj || !w.cut || !w.part || !w.bad ||
        !w.list || !w.mark || !w.elig || !start || !succ || !comp || !csize || !work)
        st = lf_set_error(LF_ENOMEM, "out of memory splitting a group of %d ops", (int)k);
    if (st == LF_OK)
        st = lf_bitset_init(&w.scratch, n_ops);
    if (st == LF_OK) {
        lf_bitset_to_list(group, mem);
        w.mem = mem;
        for (int32_t i = 0; i < k; i++)
            w.loc[mem[i]] = i;
        /* Edges inside the group, each producer-consumer pair once. */
        for (int32_t i = 0; i < k; i++) {
            const lf_op *op = &w.g->ops[mem[i]];
            for (int32_t j = 0; j < op->n_inputs; j++) {
                int32_t u = op->inputs[j], dup = 0;
                for (int32_t q = 0; q < j; q++)
                    dup |= op->inputs[q] == u;
                if (dup || !lf_bitset_test(group, u))
                    continue;
                w.eu[w.ne] = w.loc[u];
                w.ev[w.ne] = i;
                w.adj_start[w.loc[u] + 1]++;
                w.adj_start[i + 1]++;
                w.ne++;
            }
        }
        for (int32_t i = 0; i < k; i++)
            w.adj_start[i + 1] += w.adj_start[i];
        for (int32_t e = 0; e < w.ne; e++) {
            w.adj[w.adj_start[w.eu[e]]++] = e;
            w.adj[w.adj_start[w.ev[e]]++] = e;
        }
        for (int32_t i = k; i > 0; i--)
            w.adj_start[i] = w.adj_start[i - 1];
        w.adj_start[0] = 0;
        /* Initial parts: the group's own components. */
        for (int32_t i = 0; i < k; i++)
            w.part[i] = -1;
        for (int32_t i = 0; i < k && st == LF_OK; i++) {
            if (w.part[i] >= 0)
                continue;
            int32_t n = lf__flood(&w, i);
            for (int32_t q = 0; q < n; q++) {
                w.part[w.list[q]] = w.n_parts;
                w.mark[w.list[q]] = 0;
            }
            st = lf__price(&w, n, w.n_parts++);
        }
    }
    lf_rng rng;
    lf_rng_seed(&rng, seed, 0);
    while (st == LF_OK) {
        int32_t n_elig = 0;
        for (int32_t e = 0; e < w.ne; e++)
            if (!w.cut[e] && w.bad[w.part[w.eu[e]]])
                w.elig[n_elig++] = e;
        if (n_elig == 0) {
            int any_invalid = 0;
            for (int32_t p = 0; p < w.n_parts; p++) {
                any_invalid |= w.bad[p] == 1;
                /* A single op left on a cycle is fine once the cycle's
                 * larger parts are cut; the cycles are recomputed below. */
                if (w.bad[p] == 2)
                    w.bad[p] = 0;
            }
            if (any_invalid) {
                /* Only a single op can be invalid without an edge to cut. */
                st = lf_set_error(LF_EINVAL, "random split: the group holds an op that is invalid alone");
                break;
            }
            /* A cycle among parts always runs through a part of two or more
             * ops (single ops alone follow the graph's order), so marking
             * makes an edge eligible and the loop progresses. */
            if (lf__mark_cycles(&w, start, succ, comp, work, csize) == 0)
                break;
            continue;
        }
        int32_t e = w.elig[lf_rng_below(&rng, (uint32_t)n_elig)];
        w.cut[e] = 1;
        int32_t na = lf__flood(&w, w.eu[e]);
        int still = w.mark[w.ev[e]];
        for (int32_t q = 0; q < na; q++)
            w.mark[w.list[q]] = 0;
        if (still)
            continue; /* another path keeps the part connected */
        /* The part falls apart: the side of eu gets a new id, the side of ev
         * keeps the old one. Both are priced afresh. */
        int32_t old = w.part[w.ev[e]], fresh = w.n_parts++;
        for (int32_t q = 0; q < na; q++)
            w.part[w.list[q]] = fresh;
        st = lf__price(&w, na, fresh);
        if (st != LF_OK)
            break;
        int32_t nb = lf__flood(&w, w.ev[e]);
        for (int32_t q = 0; q < nb; q++)
            w.mark[w.list[q]] = 0;
        st = lf__price(&w, nb, old);
    }
    for (int32_t p = 0; st == LF_OK && p < w.n_parts; p++) {
        lf_bitset *b;
        st = lf_split_result_add(res, &b);
    }
    if (st == LF_OK) {
        for (int32_t i = 0; i < k; i++)
            lf_bitset_set(&res->parts[w.part[i]], mem[i]);
        lf_split_result_sort(res);
        res->rectified = 1;
    } else {
        res->n_parts = 0;
    }
    res->cost_queries = w.queries;
    lf_bitset_destroy(&w.scratch);
    free(mem);
    free(w.loc);
    free(w.eu);
    free(w.ev);
    free(w.adj_start);
    free(w.adj);
    free(w.cut);
    free(w.part);
    free(w.bad);
    free(w.list);
    free(w.mark);
    free(w.elig);
    free(start);
    free(succ);
    free(comp);
    free(csize);
    free(work);
    return st;
}

static const lf_splitter lf__random_splitter = {"random", lf__random_split, NULL, NULL};

const lf_splitter *lf_splitter_random(void) { return &lf__random_splitter; }
