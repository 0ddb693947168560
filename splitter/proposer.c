/* The proposer interface: group edges, ranking, the contract check, the
 * registry of built-in proposers, and the two simplest ones (`all`, the upper
 * bound, and `random`, the no-explanation control). `attrib` lives in
 * proposer_attrib.c. */
#include "splitter/proposer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/rng.h"

int32_t lf_group_edge_count(const lf_graph *g, const lf_bitset *group)
{
    int32_t n = 0;
    for (int32_t u = lf_bitset_next(group, 0); u >= 0; u = lf_bitset_next(group, u + 1))
        for (int32_t c = 0; c < g->ops[u].n_consumers; c++)
            n += lf_bitset_test(group, g->ops[u].consumers[c]);
    return n;
}

int32_t lf_group_edges(const lf_graph *g, const lf_bitset *group, lf_edge_score *out)
{
    /* Consumers are distinct and ascending, so walking producers in id order
     * gives each (u, v) once, already sorted. */
    int32_t n = 0;
    for (int32_t u = lf_bitset_next(group, 0); u >= 0; u = lf_bitset_next(group, u + 1))
        for (int32_t c = 0; c < g->ops[u].n_consumers; c++) {
            int32_t v = g->ops[u].consumers[c];
            if (lf_bitset_test(group, v)) {
                out[n].u = u;
                out[n].v = v;
                out[n].score = 0.0;
                n++;
            }
        }
    return n;
}

static int lf__rank_cmp(const void *pa, const void *pb)
{
    const lf_edge_score *a = pa, *b = pb;
    int na = isnan(a->score), nb = isnan(b->score);
    if (na != nb)
        return na - nb;
    if (!na && a->score != b->score)
        return a->score > b->score ? -1 : 1;
    if (a->u != b->u)
        return a->u < b->u ? -1 : 1;
    return (a->v > b->v) - (a->v < b->v);
}

void lf_proposal_rank(lf_edge_score *e, int32_t n)
{
    if (n > 1)
        qsort(e, (size_t)n, sizeof *e, lf__rank_cmp);
}

void lf_proposer_free(lf_proposer *p)
{
    if (p && p->free)
        p->free(p);
}

lf_status lf_proposer_run(const lf_proposer *p, lf_cost_model *cm, const lf_bitset *group,
                          uint64_t seed, int32_t k, lf_edge_score *out, int32_t *n_out)
{
    const lf_graph *g = lf_cost_graph(cm);
    *n_out = 0;
    if (!p || !p->propose)
        return lf_set_error(LF_EINVAL, "no edge proposer given");
    if (group->nbits != g->n_ops || lf_bitset_is_empty(group))
        return lf_set_error(LF_EINVAL, "proposer '%s': empty group or one of the wrong size",
                            p->name);
    int32_t n = 0;
    lf_status st = p->propose(p, cm, group, seed, k, out, &n);
    if (st != LF_OK)
        return st;
    int32_t total = lf_group_edge_count(g, group);
    int bounded = k > 0 && p != lf_proposer_all(); /* the upper bound ignores k */
    if (n < 0 || n > total || (bounded && n > k))
        return lf_set_error(LF_EINVAL, "proposer '%s' returned %d edges (k = %d, the group has %d)",
                            p->name, (int)n, (int)k, (int)total);
    for (int32_t i = 0; i < n; i++) {
        int32_t u = out[i].u, v = out[i].v, is_edge = 0;
        if (u < 0 || v < 0 || u >= g->n_ops || v >= g->n_ops || !lf_bitset_test(group, u) ||
            !lf_bitset_test(group, v))
            return lf_set_error(LF_EINVAL, "proposer '%s' proposed an edge outside the group",
                                p->name);
        for (int32_t j = 0; j < g->ops[v].n_inputs && !is_edge; j++)
            is_edge = g->ops[v].inputs[j] == u;
        if (!is_edge)
            return lf_set_error(LF_EINVAL, "proposer '%s' proposed '%s' -> '%s', which is no edge",
                                p->name, g->ops[u].name, g->ops[v].name);
        if (i > 0 && lf__rank_cmp(&out[i - 1], &out[i]) >= 0)
            return lf_set_error(LF_EINVAL, "proposer '%s' returned edges that are not ranked "
                                           "or not distinct", p->name);
    }
    *n_out = n;
    return LF_OK;
}

/* ---- all --------------------------------------------------------------- */

static lf_status lf__propose_all(const lf_proposer *p, lf_cost_model *cm, const lf_bitset *group,
                                 uint64_t seed, int32_t k, lf_edge_score *out, int32_t *n_out)
{
    (void)p;
    (void)seed;
    (void)k; /* the upper bound is not held to the budget */
    int32_t n = lf_group_edges(lf_cost_graph(cm), group, out);
    for (int32_t i = 0; i < n; i++)
        out[i].score = 1.0;
    *n_out = n;
    return LF_OK;
}

/* ---- random ------------------------------------------------------------ */

static lf_status lf__propose_random(const lf_proposer *p, lf_cost_model *cm,
                                    const lf_bitset *group, uint64_t seed, int32_t k,
                                    lf_edge_score *out, int32_t *n_out)
{
    (void)p;
    int32_t n = lf_group_edges(lf_cost_graph(cm), group, out);
    /* The stream depends on the group as well as the seed, so sub-groups met
     * inside one recursion (which share the seed) draw independently. */
    lf_rng r;
    lf_rng_seed(&r, seed, lf_bitset_hash(group));
    for (int32_t i = 0; i < n; i++)
        out[i].score = lf_rng_uniform(&r);
    lf_proposal_rank(out, n);
    *n_out = k > 0 && k < n ? k : n;
    return LF_OK;
}

/* ---- registry ---------------------------------------------------------- */

lf_status lf__propose_attrib(const lf_proposer *p, lf_cost_model *cm, const lf_bitset *group,
                             uint64_t seed, int32_t k, lf_edge_score *out, int32_t *n_out);

static const lf_proposer lf__all = {"all", 0, lf__propose_all, NULL, NULL};
static const lf_proposer lf__random = {"random", 1, lf__propose_random, NULL, NULL};
static const lf_proposer lf__attrib = {"attrib", 0, lf__propose_attrib, NULL, NULL};

const lf_proposer *lf_proposer_all(void) { return &lf__all; }
const lf_proposer *lf_proposer_random(void) { return &lf__random; }
const lf_proposer *lf_proposer_attrib(void) { return &lf__attrib; }

lf_status lf_proposer_find(const char *name, const lf_proposer **out)
{
#define LF__ROW(n) &lf__##n,
    static const lf_proposer *const table[] = {LF_PROPOSERS_ANALYTIC(LF__ROW)};
#undef LF__ROW
    size_t n = sizeof table / sizeof table[0], used = 0;
    for (size_t i = 0; i < n; i++)
        if (name && strcmp(name, table[i]->name) == 0) {
            *out = table[i];
            return LF_OK;
        }
    *out = NULL;
    char known[128] = "";
    for (size_t i = 0; i < n && used < sizeof known; i++)
        used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", table[i]->name);
    return lf_set_error(LF_ENOTFOUND, "unknown edge proposer '%s' (known: %s)", name ? name : "(null)", known);
}
