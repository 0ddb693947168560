/* The splitter interface: split results, the per-group seed, the contract
 * check, and the strongly-connected-components helper that the splitters and
 * the partition search's cycle repair share. */
#include "splitter/splitter.h"

#include <stdlib.h>
#include <string.h>

#include "planner/util/rng.h"

lf_status lf_split_result_init(lf_split_result *r, int32_t nbits)
{
    memset(r, 0, sizeof *r);
    r->nbits = nbits;
    return LF_OK;
}

void lf_split_result_destroy(lf_split_result *r)
{
    for (int32_t i = 0; i < r->cap_parts; i++)
        lf_bitset_destroy(&r->parts[i]);
    free(r->parts);
    memset(r, 0, sizeof *r);
}

void lf_split_result_reset(lf_split_result *r)
{
    r->n_parts = 0;
    r->rectified = 0;
    r->cost_queries = 0;
}

lf_status lf_split_result_add(lf_split_result *r, lf_bitset **part)
{
    if (r->n_parts == r->cap_parts) {
        int32_t cap = r->cap_parts ? 2 * r->cap_parts : 8;
        lf_bitset *p = realloc(r->parts, (size_t)cap * sizeof *p);
        if (!p)
            return lf_set_error(LF_ENOMEM, "out of memory for %d split parts", (int)cap);
        r->parts = p;
        for (int32_t i = r->cap_parts; i < cap; i++) {
            if (lf_bitset_init(&p[i], r->nbits) != LF_OK) {
                r->cap_parts = i;
                return LF_ENOMEM;
            }
        }
        r->cap_parts = cap;
    }
    *part = &r->parts[r->n_parts++];
    lf_bitset_clear_all(*part);
    return LF_OK;
}

static int lf__part_cmp(const void *a, const void *b)
{
    int32_t x = lf_bitset_next(a, 0), y = lf_bitset_next(b, 0);
    return (x > y) - (x < y);
}

void lf_split_result_sort(lf_split_result *r)
{
    /* Parts are disjoint, so their smallest op ids are distinct: the order is
     * total and qsort's instability does not matter. Swapping lf_bitset
     * structs only moves the word pointers, which the result owns anyway. */
    qsort(r->parts, (size_t)r->n_parts, sizeof *r->parts, lf__part_cmp);
}

uint64_t lf_split_seed(uint64_t search_seed, const lf_bitset *group)
{
    return lf_rng_mix(search_seed, lf_bitset_hash(group));
}

void lf_splitter_free(lf_splitter *s)
{
    if (s && s->free)
        s->free(s);
}

/* Weak connectivity of `part` by a flood fill over graph edges inside it. */
static int lf__connected(const lf_graph *g, const lf_bitset *part, int32_t *stack, uint8_t *seen)
{
    int32_t first = lf_bitset_next(part, 0), top = 0, reached = 0;
    stack[top++] = first;
    seen[first] = 1;
    while (top > 0) {
        const lf_op *op = &g->ops[stack[--top]];
        reached++;
        for (int32_t j = 0; j < op->n_inputs + op->n_consumers; j++) {
            int32_t u = j < op->n_inputs ? op->inputs[j] : op->consumers[j - op->n_inputs];
            if (!seen[u] && lf_bitset_test(part, u)) {
                seen[u] = 1;
                stack[top++] = u;
            }
        }
    }
    for (int32_t v = lf_bitset_next(part, 0); v >= 0; v = lf_bitset_next(part, v + 1))
        seen[v] = 0;
    return reached == lf_bitset_count(part);
}

lf_status lf_split_result_check(lf_cost_model *cm, const lf_bitset *group,
                                const lf_split_result *res)
{
    const lf_graph *g = lf_cost_graph(cm);
    int32_t n = g->n_ops, np = res->n_parts;
    int32_t *part_of = malloc((size_t)n * sizeof(int32_t));
    int32_t *stack = malloc((size_t)n * sizeof(int32_t));
    uint8_t *seen = calloc((size_t)n, 1);
    int32_t *indeg = calloc((size_t)np + 1, sizeof(int32_t));
    lf_status st = (part_of && stack && seen && indeg)
                       ? LF_OK
                       : lf_set_error(LF_ENOMEM, "out of memory checking a split");
    if (st == LF_OK && np < 1)
        st = lf_set_error(LF_EPLAN, "the split has no parts");
    for (int32_t v = 0; st == LF_OK && v < n; v++)
        part_of[v] = -1;
    for (int32_t k = 0; st == LF_OK && k < np; k++) {
        const lf_bitset *p = &res->parts[k];
        if (p->nbits != n || lf_bitset_is_empty(p)) {
            st = lf_set_error(LF_EPLAN, "split part %d is empty or has the wrong size", (int)k);
            break;
        }
        for (int32_t v = lf_bitset_next(p, 0); v >= 0 && st == LF_OK; v = lf_bitset_next(p, v + 1)) {
            if (!lf_bitset_test(group, v))
                st = lf_set_error(LF_EPLAN, "split part %d holds op '%s' outside the group", (int)k,
                                  g->ops[v].name);
            else if (part_of[v] >= 0)
                st = lf_set_error(LF_EPLAN, "op '%s' is in split parts %d and %d", g->ops[v].name,
                                  (int)part_of[v], (int)k);
            else
                part_of[v] = k;
        }
        if (st == LF_OK && !lf__connected(g, p, stack, seen))
            st = lf_set_error(LF_EPLAN, "split part %d (with '%s') is not weakly connected", (int)k,
                              g->ops[lf_bitset_next(p, 0)].name);
        if (st == LF_OK) {
            lf_group_cost c;
            st = lf_cost_eval(cm, p, &c);
            if (st == LF_OK && !c.valid)
                st = lf_set_error(LF_EPLAN, "split part %d (with '%s') needs %lld B, beta is %lld B",
                                  (int)k, g->ops[lf_bitset_next(p, 0)].name, (long long)c.f_beta,
                                  (long long)lf_cost_beta(cm));
        }
    }
    for (int32_t v = lf_bitset_next(group, 0); st == LF_OK && v >= 0; v = lf_bitset_next(group, v + 1))
        if (part_of[v] < 0)
            st = lf_set_error(LF_EPLAN, "op '%s' of the group is in no split part", g->ops[v].name);
    /* Acyclic among the parts: Kahn's algorithm, parts as nodes, one arc per
     * graph edge inside the group that crosses parts (duplicates are fine
     * because in-degrees count them too). */
    if (st == LF_OK) {
        int32_t *queue = stack, head = 0, tail = 0, seen_parts = 0;
        for (int32_t v = 0; v < n; v++) {
            if (part_of[v] < 0)
                continue;
            for (int32_t j = 0; j < g->ops[v].n_inputs; j++) {
                int32_t u = g->ops[v].inputs[j];
                if (part_of[u] >= 0 && part_of[u] != part_of[v])
                    indeg[part_of[v]]++;
            }
        }
        for (int32_t k = 0; k < np; k++)
            if (indeg[k] == 0)
                queue[tail++] = k;
        while (head < tail) {
            int32_t k = queue[head++];
            seen_parts++;
            for (int32_t u = lf_bitset_next(&res->parts[k], 0); u >= 0;
                 u = lf_bitset_next(&res->parts[k], u + 1))
                for (int32_t c = 0; c < g->ops[u].n_consumers; c++) {
                    int32_t v = g->ops[u].consumers[c];
                    if (part_of[v] < 0 || part_of[v] == k)
                        continue;
                    /* One decrement per input slot of v reading u, matching
                     * how the in-degrees were counted. */
                    for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
                        if (g->ops[v].inputs[j] == u && --indeg[part_of[v]] == 0)
                            queue[tail++] = part_of[v];
                }
        }
        if (seen_parts != np)
            st = lf_set_error(LF_EPLAN, "the split parts form a cycle among themselves");
    }
    free(part_of);
    free(stack);
    free(seen);
    free(indeg);
    return st;
}
