/* Canonical graph hash for deduplicating search states: independent of op
 * numbering and names, so two rewrite orders that reach the same graph (or
 * rewrites that only rename ops) hash alike. Each op's hash mixes its type,
 * attributes, output shape and, in operand order, its operands' hashes
 * (constants by shape: values never decide a search state); the graph's hash
 * mixes the sorted list of op hashes with the output flags. */
#include <stdlib.h>
#include <string.h>

#include "planner/util/hashmap.h"
#include "search/subst/subst.h"

static uint64_t lf__mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static uint64_t lf__shape(uint64_t h, lf_shape s)
{
    return lf__mix(lf__mix(lf__mix(lf__mix(h, (uint64_t)s.n), (uint64_t)s.c), (uint64_t)s.h), (uint64_t)s.w);
}

static int lf__cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t lf_subst_canon_hash(const lf_graph *g)
{
    if (g->n_ops == 0)
        return 0;
    uint64_t *h = malloc((size_t)g->n_ops * sizeof *h);
    if (!h)
        return g->hash; /* still a valid (numbering-dependent) key */
    for (int32_t v = 0; v < g->n_ops; v++) {
        const lf_op *op = &g->ops[v];
        /* lf_attrs is all 4-byte fields: its bytes are its value. */
        uint64_t x = lf_hash_bytes(&op->attr, sizeof op->attr, (uint64_t)op->type + 1);
        x = lf__shape(x, op->out);
        for (int32_t p = 0; p < op->n_operands; p++) {
            const lf_operand *o = &op->operands[p];
            x = o->kind == LF_OPND_CONST ? lf__shape(lf__mix(x, 0xc0), g->consts[o->id].shape)
                                         : lf__mix(x, h[o->id]);
        }
        h[v] = x;
    }
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].is_output)
            h[v] = lf__mix(h[v], 0x07u);
    qsort(h, (size_t)g->n_ops, sizeof *h, lf__cmp_u64);
    uint64_t r = 1469598103934665603ull;
    for (int32_t v = 0; v < g->n_ops; v++)
        r = lf__mix(r, h[v]);
    free(h);
    return r;
}
