/* Exact 0/1 knapsack by branch and bound (Horowitz and Sahni 1974; Martello
 * and Toth 1990, ch. 2): items sorted by value per byte, equal items one
 * class (below), depth first taking as many of a class as fit before fewer,
 * a branch cut when even the fractional
 * relaxation of what is left cannot beat the best subset found. Weight
 * tensors are few (hundreds) and their sizes repeat, so the search is short;
 * a node limit keeps a pathological case from running away. */
#include <stdlib.h>
#include <string.h>

#include "planner/residency.h"

/* Items of equal size and value are one class with a count: weight
 * tensors repeat (every layer's LayerNorm scale, every bias of one width),
 * so the search chooses how many of a class to keep, not which ones, and
 * stays short where a search over single items would try every equal
 * subset. */
typedef struct lf__class {
    int64_t size, value;
    int32_t count, first; /* its items are sorted[first .. first + count) */
} lf__class;

typedef struct lf__ks {
    int32_t n;
    const lf__class *cls;
    int64_t nodes, max_nodes;
    int64_t best;
    int32_t *cur, *best_take; /* count chosen per class */
} lf__ks;

/* Value of the classes from k on that fit in room, the next one taken in
 * part (rounded up, plus one: a bound that floating point cannot push below
 * the true one). */
static int64_t lf__bound(const lf__ks *s, int32_t k, int64_t room)
{
    int64_t v = 0;
    for (; k < s->n; k++) {
        int64_t fit = room / s->cls[k].size;
        if (fit < s->cls[k].count) {
            v += fit * s->cls[k].value;
            room -= fit * s->cls[k].size;
            if (room > 0)
                v += (int64_t)((long double)s->cls[k].value * (long double)room /
                               (long double)s->cls[k].size) + 1;
            return v;
        }
        v += s->cls[k].count * s->cls[k].value;
        room -= s->cls[k].count * s->cls[k].size;
    }
    return v;
}

static int lf__search(lf__ks *s, int32_t k, int64_t room, int64_t value)
{
    if (++s->nodes > s->max_nodes)
        return -1;
    if (value > s->best) {
        s->best = value;
        memcpy(s->best_take, s->cur, (size_t)s->n * sizeof *s->cur);
    }
    if (k == s->n || value + lf__bound(s, k, room) <= s->best)
        return 0;
    int64_t most = room / s->cls[k].size;
    if (most > s->cls[k].count)
        most = s->cls[k].count;
    for (int64_t c = most; c >= 0; c--) {
        s->cur[k] = (int32_t)c;
        if (lf__search(s, k + 1, room - c * s->cls[k].size, value + c * s->cls[k].value) < 0)
            return -1;
    }
    s->cur[k] = 0;
    return 0;
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
    if (a->size != b->size) /* equal items next to each other: one class */
        return a->size > b->size ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

lf_status lf_knapsack_exact(int32_t n, const int64_t *size, const int64_t *value,
                            int64_t capacity, int64_t max_nodes, uint8_t *take, int64_t *best)
{
    *best = 0;
    if (n < 0 || (n > 0 && (!size || !value || !take)))
        return lf_set_error(LF_EINVAL, "knapsack: bad item list");
    if (n > 0)
        memset(take, 0, (size_t)n);
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++) {
        if (size[i] < 1 || value[i] < 0)
            return lf_set_error(LF_EINVAL, "knapsack: item %d has size %lld and value %lld", (int)i,
                                (long long)size[i], (long long)value[i]);
        m += size[i] <= capacity && value[i] > 0;
    }
    lf__item *items = malloc((size_t)(m ? m : 1) * sizeof *items);
    lf__class *cls = malloc((size_t)(m ? m : 1) * sizeof *cls);
    int32_t *cur = calloc((size_t)(m ? m : 1), sizeof *cur);
    int32_t *bt = calloc((size_t)(m ? m : 1), sizeof *bt);
    lf_status st = LF_OK;
    if (!items || !cls || !cur || !bt) {
        st = lf_set_error(LF_ENOMEM, "knapsack: out of memory");
        goto done;
    }
    m = 0;
    for (int32_t i = 0; i < n; i++)
        if (size[i] <= capacity && value[i] > 0)
            items[m++] = (lf__item){size[i], value[i], i};
    qsort(items, (size_t)m, sizeof *items, lf__by_density);
    int32_t nc = 0;
    for (int32_t k = 0; k < m; k++) {
        if (nc > 0 && cls[nc - 1].size == items[k].size && cls[nc - 1].value == items[k].value) {
            cls[nc - 1].count++;
            continue;
        }
        cls[nc++] = (lf__class){items[k].size, items[k].value, 1, k};
    }
    lf__ks s = {nc, cls, 0, max_nodes > 0 ? max_nodes : 100000000, 0, cur, bt};
    if (lf__search(&s, 0, capacity, 0) < 0) {
        st = lf_set_error(LF_ELIMIT, "weight residency: the exact knapsack over %d weights passed "
                                     "%lld search nodes",
                          (int)m, (long long)s.max_nodes);
        goto done;
    }
    /* a class's chosen count goes to its first items in search order */
    for (int32_t c = 0; c < nc; c++)
        for (int32_t j = 0; j < bt[c]; j++)
            take[items[cls[c].first + j].index] = 1;
    *best = s.best;
done:
    free(items);
    free(cls);
    free(cur);
    free(bt);
    return st;
}
