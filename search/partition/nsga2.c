/* NSGA-II (Deb et al., "A fast and elitist multiobjective genetic algorithm:
 * NSGA-II", 2002) on plan genomes, as in paper §IV-B.
 *
 * Population K. Individuals carry their repaired genome (the decoded plan
 * written back), so crossover recombines the edges of valid plans rather
 * than of the raw proposals that produced them. Each generation:
 *   1. K children, child i being plan number `proposed + i` with its own
 *      random stream: two binary tournaments pick the parents (lower front
 *      rank wins, then larger crowding distance, then the lower population
 *      position), uniform crossover takes each gene from either parent with
 *      probability 1/2, and bit-flip mutation flips each gene with the
 *      configured rate (default 1/genome length);
 *   2. the children are decoded in parallel and merged in index order;
 *   3. parents and children are ranked by fast non-dominated sorting on the
 *      selected objectives (DRAM over fusable ops, group count), and the next
 *      population is filled front by front, the last front by decreasing
 *      crowding distance. A plan equal to one already ranked is a duplicate:
 *      duplicates go after every front so they cannot crowd out diversity,
 *      and fill the population only when there are fewer than K distinct
 *      plans.
 * With the configuration's `guided`, each child's groups then take their
 * best merge or best move (guided.c), and seed plans come first in the
 * first population.
 * Ties everywhere fall back to positions, never to pointer values or thread
 * timing, so generations are reproducible. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/clock.h"
#include "search/partition/search_internal.h"

typedef struct lf__nsga {
    lf__cand *pop;
    int32_t n_pop;
    int32_t *rank;      /* per population member */
    double *crowd;
    double rate;        /* bit-flip probability per gene */
} lf__nsga;

/* Binary tournament: two uniform picks, the better one by (rank, crowding,
 * position) wins. */
static int32_t lf__tournament(const lf__nsga *ns, lf_rng *r)
{
    int32_t a = (int32_t)lf_rng_below(r, (uint32_t)ns->n_pop);
    int32_t b = (int32_t)lf_rng_below(r, (uint32_t)ns->n_pop);
    if (ns->rank[a] != ns->rank[b])
        return ns->rank[a] < ns->rank[b] ? a : b;
    if (ns->crowd[a] != ns->crowd[b])
        return ns->crowd[a] > ns->crowd[b] ? a : b;
    return a < b ? a : b;
}

static lf_status lf__propose_child(lf__search *s, void *arg, int32_t slot, lf_rng *r,
                                   lf__scratch *w, uint8_t *genome)
{
    (void)slot;
    const lf__nsga *ns = arg;
    const uint8_t *p1 = ns->pop[lf__tournament(ns, r)].genome;
    const uint8_t *p2 = ns->pop[lf__tournament(ns, r)].genome;
    uint64_t bits = 0;
    for (int32_t e = 0; e < s->n_edges; e++) {
        /* One 64-bit draw serves 64 crossover coins. */
        if ((e & 63) == 0)
            bits = lf_rng_next(r);
        genome[e] = ((bits >> (e & 63)) & 1u) ? p1[e] : p2[e];
    }
    for (int32_t e = 0; e < s->n_edges; e++)
        if (lf_rng_bernoulli(r, ns->rate))
            genome[e] ^= 1u;
    if (s->cfg->guided) {
        /* The child's groups then take their best merge or best move
         * (guided.c), when one saves DRAM. */
        lf_status st = lf_genome_groups(&s->map, s->g, genome, &s->guide_plan);
        int done = 0;
        if (st == LF_OK)
            st = lf_rng_below(r, 2) ? lf__guided_move(s, s->guide_plan.group_of, w->ops, &done)
                                    : lf__guided_merge(s, s->guide_plan.group_of, w->ops, &done);
        if (st != LF_OK)
            return st;
        if (done)
            lf_genome_from_groups(&s->map, w->ops, genome);
    }
    return LF_OK;
}

/* Pool entry for the survivor selection. */
typedef struct lf__ind {
    const lf__cand *c;
    int32_t pos;        /* position in the pool (parents first, then children) */
    int32_t rank;
    double crowd;
    double key;         /* the objective the crowding pass is sorting by */
    int32_t dup;
} lf__ind;

static int32_t lf__obj_count(int32_t objectives) { return (objectives & 1) + ((objectives >> 1) & 1); }

static double lf__obj(const lf__cand *c, int32_t objectives, int32_t m)
{
    /* m-th selected objective: DRAM first when both are selected. */
    if ((objectives & 1) && m == 0)
        return (double)c->key.objective;
    return (double)c->key.n_groups;
}

/* qsort has no context argument, so the objective being sorted by is copied
 * into each entry's key first (no statics: searches may run concurrently). */
static int lf__by_key(const void *pa, const void *pb)
{
    const lf__ind *a = *(const lf__ind *const *)pa, *b = *(const lf__ind *const *)pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static int lf__by_pos(const void *pa, const void *pb)
{
    const lf__ind *a = *(const lf__ind *const *)pa, *b = *(const lf__ind *const *)pb;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static int lf__by_crowd(const void *pa, const void *pb)
{
    const lf__ind *a = *(const lf__ind *const *)pa, *b = *(const lf__ind *const *)pb;
    if (a->crowd != b->crowd)
        return a->crowd > b->crowd ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Crowding distance of the members front[0 .. n). */
static void lf__crowding(lf__ind **front, int32_t n, int32_t objectives)
{
    for (int32_t i = 0; i < n; i++)
        front[i]->crowd = 0.0;
    for (int32_t m = 0; m < lf__obj_count(objectives); m++) {
        for (int32_t i = 0; i < n; i++)
            front[i]->key = lf__obj(front[i]->c, objectives, m);
        qsort(front, (size_t)n, sizeof *front, lf__by_key);
        double lo = front[0]->key, hi = front[n - 1]->key;
        front[0]->crowd = front[n - 1]->crowd = DBL_MAX;
        if (hi <= lo)
            continue;
        for (int32_t i = 1; i + 1 < n; i++)
            if (front[i]->crowd < DBL_MAX)
                front[i]->crowd += (front[i + 1]->key - front[i - 1]->key) / (hi - lo);
    }
}

/* Survivor selection over parents + children into ns->pop (via `next`). */
static lf_status lf__select(lf__search *s, lf__nsga *ns, lf__cand *next, lf__cand *kids,
                            int32_t n_kids)
{
    int32_t n = ns->n_pop + n_kids, K = s->cfg->population, obj = s->objectives;
    lf__ind *ind = calloc((size_t)n, sizeof *ind);
    lf__ind **front = calloc((size_t)n, sizeof *front);
    int32_t *dom_count = calloc((size_t)n, sizeof(int32_t));
    uint8_t *done = calloc((size_t)n, 1);
    if (!ind || !front || !dom_count || !done) {
        free(ind);
        free(front);
        free(dom_count);
        free(done);
        return lf_set_error(LF_ENOMEM, "out of memory in NSGA-II selection");
    }
    for (int32_t i = 0; i < n; i++) {
        ind[i].c = i < ns->n_pop ? &ns->pop[i] : &kids[i - ns->n_pop];
        ind[i].pos = i;
        ind[i].rank = INT32_MAX;
        for (int32_t j = 0; j < i && !ind[i].dup; j++)
            ind[i].dup = !ind[j].dup && lf__cand_same(ind[i].c, ind[j].c);
    }
    /* Fast non-dominated sort: the pool is at most 2K, so the plain
     * O(M N^2) pairwise count is the simplest correct choice. */
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < n; j++)
            if (i != j && !ind[i].dup && !ind[j].dup && lf__dominates(ind[j].c, ind[i].c, obj))
                dom_count[i]++;
    int32_t kept = 0, rank = 0, left = 0;
    for (int32_t i = 0; i < n; i++)
        left += !ind[i].dup;
    while (left > 0) {
        int32_t nf = 0;
        for (int32_t i = 0; i < n; i++)
            if (!ind[i].dup && !done[i] && dom_count[i] == 0)
                front[nf++] = &ind[i];
        for (int32_t f = 0; f < nf; f++) {
            int32_t i = front[f]->pos;
            done[i] = 1;
            ind[i].rank = rank;
            for (int32_t j = 0; j < n; j++)
                if (!ind[j].dup && !done[j] && lf__dominates(ind[i].c, ind[j].c, obj))
                    dom_count[j]--;
        }
        left -= nf;
        lf__crowding(front, nf, obj);
        if (kept < K) {
            if (kept + nf > K)
                qsort(front, (size_t)nf, sizeof *front, lf__by_crowd);
            else
                qsort(front, (size_t)nf, sizeof *front, lf__by_pos);
            for (int32_t f = 0; f < nf && kept < K; f++) {
                lf__cand_assign(&next[kept], front[f]->c, s->n_edges);
                ns->rank[kept] = rank;
                ns->crowd[kept] = front[f]->crowd;
                kept++;
            }
        }
        rank++;
    }
    /* Fewer than K distinct plans: duplicates fill up, worst rank. */
    for (int32_t i = 0; i < n && kept < K; i++)
        if (ind[i].dup) {
            lf__cand_assign(&next[kept], ind[i].c, s->n_edges);
            ns->rank[kept] = rank;
            ns->crowd[kept] = 0.0;
            kept++;
        }
    for (int32_t i = 0; i < K; i++) {
        lf__cand t = ns->pop[i];
        ns->pop[i] = next[i];
        next[i] = t;
    }
    ns->n_pop = kept;
    free(ind);
    free(front);
    free(dom_count);
    free(done);
    return LF_OK;
}

lf_status lf__search_nsga2(lf__search *s)
{
    int32_t K = s->cfg->population;
    lf__nsga ns = {0};
    lf__cand *next = NULL, *kids = NULL;
    ns.rank = malloc((size_t)K * sizeof(int32_t));
    ns.crowd = malloc((size_t)K * sizeof(double));
    ns.rate = s->cfg->mutation_rate > 0 ? s->cfg->mutation_rate
                                        : (s->n_edges > 0 ? 1.0 / s->n_edges : 0.0);
    s->use_archive = 1;
    lf_status st = ns.rank && ns.crowd ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory for NSGA-II");
    if (st == LF_OK)
        st = lf__cands_alloc(&ns.pop, K, s->n_ops, s->n_edges);
    if (st == LF_OK)
        st = lf__cands_alloc(&next, K, s->n_ops, s->n_edges);
    if (st == LF_OK)
        st = lf__cands_alloc(&kids, K, s->n_ops, s->n_edges);
    if (st == LF_OK) {
        int32_t n = s->cfg->budget < K ? (int32_t)s->cfg->budget : K;
        st = lf__search_batch(s, n, lf__propose_initial, NULL, kids);
        if (st == LF_OK)
            st = lf__select(s, &ns, next, kids, n);
    }
    while (st == LF_OK && s->proposed < s->cfg->budget &&
           (s->cfg->deadline <= 0 || lf_now_seconds() < s->cfg->deadline)) {
        int64_t left = s->cfg->budget - s->proposed;
        int32_t n = left < K ? (int32_t)left : K;
        st = lf__search_batch(s, n, lf__propose_child, &ns, kids);
        if (st == LF_OK)
            st = lf__select(s, &ns, next, kids, n);
    }
    lf__cands_free(ns.pop, ns.pop ? K : 0);
    lf__cands_free(next, next ? K : 0);
    lf__cands_free(kids, kids ? K : 0);
    free(ns.rank);
    free(ns.crowd);
    return st;
}
