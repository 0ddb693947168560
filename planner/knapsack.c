/* Exact 0/1 knapsack by branch and bound (Horowitz and Sahni 1974; Martello
 * and Toth 1990, ch. 2): items sorted by value per byte, depth first taking
 * an item before leaving it, a branch cut when even the fractional
 * relaxation of what is left cannot beat the best subset found. Weight
 * tensors are few (hundreds) and their sizes repeat, so the search is short;
 * a node limit keeps a pathological case from running away. */
#include <stdlib.h>
#include <string.h>

#include "planner/residency.h"

typedef struct lf__ks {
    int32_t n;
    const int64_t *size, *value; /* in search order */
    int64_t nodes, max_nodes;
    int64_t best;
    uint8_t *cur, *best_take;
} lf__ks;

/* Value of the items from k on that fit in room, the next one taken in part
 * (rounded up, plus one: a bound that floating point cannot push below the
 * true one). */
static int64_t lf__bound(const lf__ks *s, int32_t k, int64_t room)
{
    int64_t v = 0;
    for (; k < s->n && s->size[k] <= room; k++) {
        room -= s->size[k];
        v += s->value[k];
    }
    if (k < s->n && room > 0)
        v += (int64_t)((long double)s->value[k] * (long double)room / (long double)s->size[k]) + 1;
    return v;
}

static int lf__search(lf__ks *s, int32_t k, int64_t room, int64_t value)
{
    if (++s->nodes > s->max_nodes)
        return -1;
    if (value > s->best) {
        s->best = value;
        memcpy(s->best_take, s->cur, (size_t)s->n);
    }
    if (k == s->n || value + lf__bound(s, k, room) <= s->best)
        return 0;
    if (s->size[k] <= room) {
        s->cur[k] = 1;
        if (lf__search(s, k + 1, room - s->size[k], value + s->value[k]) < 0)
            return -1;
        s->cur[k] = 0;
    }
    return lf__search(s, k + 1, room, value);
}

typedef struct lf__item {
    int64_t size, value;
    int32_t index;
} lf__item;

static int lf__by_density(const void *pa, const void *pb)
{
    const lf__item *a = pa, *b = pb;
    /* a.value / a.size > b.value / b.size, compared without dividing */
    long double l = (long double)a->value * (long double)b->size;
    long double r = (long double)b->value * (long double)a->size;
    if (l != r)
        return l > r ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

lf_status lf_knapsack_exact(int32_t n, const int64_t *size, const int64_t *value,
                            int64_t capacity, int64_t max_nodes, uint8_t *take, int64_t *best)
{
    *best = 0;
    if (n < 0 || (n > 0 && (!size || !value || !take)))
        return lf_set_error(LF_EINVAL, "knapsack: bad item list");
    memset(take, 0, (size_t)n);
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++) {
        if (size[i] < 1 || value[i] < 0)
            return lf_set_error(LF_EINVAL, "knapsack: item %d has size %lld and value %lld", (int)i,
                                (long long)size[i], (long long)value[i]);
        m += size[i] <= capacity && value[i] > 0;
    }
    lf__item *items = malloc((size_t)(m ? m : 1) * sizeof *items);
    int64_t *sz = malloc((size_t)(m ? m : 1) * sizeof *sz);
    int64_t *val = malloc((size_t)(m ? m : 1) * sizeof *val);
    uint8_t *cur = calloc((size_t)(m ? m : 1), 1), *bt = calloc((size_t)(m ? m : 1), 1);
    lf_status st = LF_OK;
    if (!items || !sz || !val || !cur || !bt) {
        st = lf_set_error(LF_ENOMEM, "knapsack: out of memory");
        goto done;
    }
    m = 0;
    for (int32_t i = 0; i < n; i++)
        if (size[i] <= capacity && value[i] > 0)
            items[m++] = (lf__item){size[i], value[i], i};
    qsort(items, (size_t)m, sizeof *items, lf__by_density);
    for (int32_t k = 0; k < m; k++)
        sz[k] = items[k].size, val[k] = items[k].value;
    lf__ks s = {m, sz, val, 0, max_nodes > 0 ? max_nodes : 100000000, 0, cur, bt};
    if (lf__search(&s, 0, capacity, 0) < 0) {
        st = lf_set_error(LF_ELIMIT, "weight residency: the exact knapsack over %d weights passed "
                                     "%lld search nodes",
                          (int)m, (long long)s.max_nodes);
        goto done;
    }
    for (int32_t k = 0; k < m; k++)
        take[items[k].index] = bt[k];
    *best = s.best;
done:
    free(items);
    free(sz);
    free(val);
    free(cur);
    free(bt);
    return st;
}
