/* Local search (LS, paper §IV-B): a population of the K best distinct plans
 * seen, improved by 1-edit mutations.
 *
 * The first K proposals are random-search plans. Each step then mutates
 * every member once, in parallel (member i's child is plan number
 * `proposed + i` with its own random stream), and the population becomes the
 * K best distinct plans among members and children. Keeping distinct plans
 * matters: without it one good plan and its unchanged copies (a mutation
 * that the repair undoes) would take over the population.
 *
 * Mutations act on the member's groups, then go through the same decoding as
 * every genome (components, cycle repair, splits), so a mutation that
 * disconnects a group, closes a cycle or overfills the buffer is repaired
 * rather than thrown away:
 *   merge  two groups joined by an edge become one;
 *   split  a group of two or more ops is cut at a random position of its
 *          topological order (each side then falls into its pieces);
 *   move   one end of an edge between two groups joins the other end's group.
 * The kind is drawn uniformly; when it cannot apply (no edge between groups,
 * no group of two ops) the next kind in that order is tried. With the
 * configuration's `guided`, each mutated child then takes its best merge or
 * best move (guided.c); seed plans come first in the first population. */
#include <stdlib.h>
#include <string.h>

#include "search/partition/search_internal.h"

typedef struct lf__ls {
    lf__cand *pop;     /* population, best first */
    int32_t n_pop;
} lf__ls;

/* The r-th edge between two different groups, or -1 when there is none.
 * Counted from the member's repaired genome: a 0 gene joins two groups. */
static int32_t lf__pick_boundary_edge(const lf__search *s, const uint8_t *genome, lf_rng *r,
                                      int32_t *buf)
{
    int32_t n = 0;
    for (int32_t e = 0; e < s->n_edges; e++)
        if (!genome[e])
            buf[n++] = e;
    return n ? buf[lf_rng_below(r, (uint32_t)n)] : -1;
}

static int lf__mutate_merge(const lf__search *s, const uint8_t *genome, int32_t *gof, lf_rng *r,
                            int32_t *buf)
{
    int32_t e = lf__pick_boundary_edge(s, genome, r, buf);
    if (e < 0)
        return 0;
    int32_t a = gof[s->map.eu[e]], b = gof[s->map.ev[e]];
    for (int32_t v = 0; v < s->n_ops; v++)
        if (gof[v] == b)
            gof[v] = a;
    return 1;
}

static int lf__mutate_move(const lf__search *s, const uint8_t *genome, int32_t *gof, lf_rng *r,
                           int32_t *buf)
{
    int32_t e = lf__pick_boundary_edge(s, genome, r, buf);
    if (e < 0)
        return 0;
    int32_t u = s->map.eu[e], v = s->map.ev[e];
    if (lf_rng_below(r, 2))
        gof[u] = gof[v];
    else
        gof[v] = gof[u];
    return 1;
}

static int lf__mutate_split(const lf__search *s, const lf__cand *m, int32_t *gof, lf_rng *r,
                            int32_t *size)
{
    int32_t ng = m->plan.n_groups, eligible = 0;
    for (int32_t k = 0; k < ng; k++)
        size[k] = 0;
    for (int32_t v = 0; v < s->n_ops; v++)
        if (gof[v] >= 0)
            size[gof[v]]++;
    for (int32_t k = 0; k < ng; k++)
        eligible += size[k] >= 2;
    if (eligible == 0)
        return 0;
    int32_t pick = (int32_t)lf_rng_below(r, (uint32_t)eligible), k = 0;
    for (;; k++)
        if (size[k] >= 2 && pick-- == 0)
            break;
    /* Ops from the cut position on get an id no group uses (ids only need
     * to be equal within a group for the genome). */
    int32_t cut = 1 + (int32_t)lf_rng_below(r, (uint32_t)(size[k] - 1)), seen = 0;
    for (int32_t v = 0; v < s->n_ops; v++)
        if (gof[v] == k && seen++ >= cut)
            gof[v] = ng;
    return 1;
}

static lf_status lf__propose_mutation(lf__search *s, void *arg, int32_t slot, lf_rng *r,
                                      lf__scratch *w, uint8_t *genome)
{
    const lf__ls *ls = arg;
    const lf__cand *m = &ls->pop[slot % ls->n_pop];
    int32_t *gof = w->ops;
    memcpy(gof, m->plan.group_of, (size_t)s->n_ops * sizeof(int32_t));
    int32_t kind = (int32_t)lf_rng_below(r, 3);
    int done = 0;
    for (int32_t t = 0; t < 3 && !done; t++) {
        switch ((kind + t) % 3) {
        case 0:
            done = lf__mutate_merge(s, m->genome, gof, r, w->aux);
            break;
        case 1:
            done = lf__mutate_split(s, m, gof, r, w->aux);
            break;
        default:
            done = lf__mutate_move(s, m->genome, gof, r, w->aux);
            break;
        }
    }
    /* With guided edits, the mutated groups then take their best merge or
     * best move (when one saves DRAM). */
    if (s->cfg->guided) {
        lf_status st = lf_rng_below(r, 2) ? lf__guided_move(s, gof, gof, &done)
                                          : lf__guided_merge(s, gof, gof, &done);
        if (st != LF_OK)
            return st;
    }
    lf_genome_from_groups(&s->map, gof, genome);
    return LF_OK;
}

/* Sort key for the merge: plan order, then plan number, so that the order
 * is total and the same on every run. */
static int lf__cand_ptr_cmp(const void *pa, const void *pb)
{
    const lf__cand *a = *(const lf__cand *const *)pa, *b = *(const lf__cand *const *)pb;
    int c = lf__cand_compare(a, b);
    if (c)
        return c;
    return (a->index > b->index) - (a->index < b->index);
}

/* Population := the K best distinct plans of population + children. */
static void lf__select(lf__search *s, lf__ls *ls, lf__cand *next, lf__cand *kids, int32_t n_kids,
                       const lf__cand **order)
{
    int32_t n = 0, k_max = s->cfg->population, kept = 0;
    for (int32_t i = 0; i < ls->n_pop; i++)
        order[n++] = &ls->pop[i];
    for (int32_t i = 0; i < n_kids; i++)
        order[n++] = &kids[i];
    qsort(order, (size_t)n, sizeof *order, lf__cand_ptr_cmp);
    for (int32_t i = 0; i < n && kept < k_max; i++) {
        int dup = 0;
        for (int32_t j = 0; j < kept && !dup; j++)
            dup = lf__cand_same(order[i], &next[j]);
        if (!dup)
            lf__cand_assign(&next[kept++], order[i], s->n_edges);
    }
    /* Swap the storage: next becomes the population. */
    for (int32_t i = 0; i < k_max; i++) {
        lf__cand t = ls->pop[i];
        ls->pop[i] = next[i];
        next[i] = t;
    }
    ls->n_pop = kept;
}

lf_status lf__search_local(lf__search *s)
{
    int32_t K = s->cfg->population;
    lf__ls ls = {NULL, 0};
    lf__cand *next = NULL, *kids = NULL;
    const lf__cand **order = malloc((size_t)(2 * K) * sizeof *order);
    lf_status st = order ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory for local search");
    if (st == LF_OK)
        st = lf__cands_alloc(&ls.pop, K, s->n_ops, s->n_edges);
    if (st == LF_OK)
        st = lf__cands_alloc(&next, K, s->n_ops, s->n_edges);
    if (st == LF_OK)
        st = lf__cands_alloc(&kids, K, s->n_ops, s->n_edges);
    /* Initial population: the seed plans, then random-search plans, K in
     * all (fewer when the budget is). */
    if (st == LF_OK) {
        int32_t n = s->cfg->budget < K ? (int32_t)s->cfg->budget : K;
        st = lf__search_batch(s, n, lf__propose_initial, NULL, kids);
        if (st == LF_OK)
            lf__select(s, &ls, next, kids, n, order);
    }
    while (st == LF_OK && s->proposed < s->cfg->budget) {
        int64_t left = s->cfg->budget - s->proposed;
        int32_t n = left < ls.n_pop ? (int32_t)left : ls.n_pop;
        st = lf__search_batch(s, n, lf__propose_mutation, &ls, kids);
        if (st == LF_OK)
            lf__select(s, &ls, next, kids, n, order);
    }
    lf__cands_free(ls.pop, ls.pop ? K : 0);
    lf__cands_free(next, next ? K : 0);
    lf__cands_free(kids, kids ? K : 0);
    free(order);
    return st;
}
