/* Staircases of groups that repeat a block (shift.c), kept by canonical copy.
 *
 * The staircase (planner/exact/curve.c) asks every candidate group for its
 * F_D as a step function of the buffer (lf_cost_steps); an attention group
 * walks every balanced query tile of every way of running it, tens of
 * microseconds each. Copies of a group one block apart have the same steps,
 * so the steps of a group with a copy are kept under its canonical copy
 * and the ask of another copy is answered from there. Only such groups are
 * kept (a group met once would only fill memory); the store stops growing
 * at its limit (LF__STEPS_MEMO_BYTES in a cost model; the staircase's
 * store shared by the range's parts is given one: later groups are
 * computed, not kept), so it changes the time and never the answer. One lock: the staircase asks from
 * one thread at a time, the pool's workers join separable sides instead. */
#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost_internal.h"
#include "planner/util/hashmap.h"
#include "planner/util/mutex.h"

#define LF__STEPS_MEMO_BYTES ((int64_t)256 << 20)

typedef struct lf__steps_entry {
    struct lf__steps_entry *next; /* same 64-bit hash */
    int64_t below;
    int32_t cap, n, nwords;
    lf_cost_step *steps; /* n of them, after the words */
    uint64_t words[];
} lf__steps_entry;

struct lf__steps_memo {
    lf_hashmap map;
    lf_mutex lock;
    int64_t bytes, limit;
};

static lf_status lf__steps_memo_create_limited(lf__steps_memo **out, int64_t limit)
{
    lf__steps_memo *m = calloc(1, sizeof *m);
    *out = NULL;
    if (!m || lf_hashmap_init(&m->map, 64) != LF_OK) {
        free(m);
        return lf_set_error(LF_ENOMEM, "out of memory for the staircase memo");
    }
    lf_status st = lf_mutex_init(&m->lock, "the staircase memo");
    if (st != LF_OK) {
        lf_hashmap_destroy(&m->map);
        free(m);
        return st;
    }
    m->limit = limit;
    *out = m;
    return LF_OK;
}

lf_status lf__steps_memo_create(lf__steps_memo **out)
{
    return lf__steps_memo_create_limited(out, LF__STEPS_MEMO_BYTES);
}

void lf__steps_memo_free(lf__steps_memo *m)
{
    if (!m)
        return;
    size_t it = 0;
    void *head;
    while (lf_hashmap_next(&m->map, &it, NULL, &head))
        for (lf__steps_entry *e = head, *next; e; e = next) {
            next = e->next;
            free(e);
        }
    lf_hashmap_destroy(&m->map);
    lf_mutex_destroy(&m->lock);
    free(m);
}

static lf__steps_entry *lf__find(lf__steps_entry *e, const lf_bitset *key, int64_t below, int32_t cap)
{
    for (; e; e = e->next)
        if (e->below == below && e->cap == cap && e->nwords == key->nwords &&
            memcmp(e->words, key->words, (size_t)key->nwords * sizeof(uint64_t)) == 0)
            return e;
    return NULL;
}

static uint64_t lf__hash(const lf_bitset *key, int64_t below, int32_t cap)
{
    return lf_bitset_hash(key) ^ ((uint64_t)below * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)cap << 17);
}

int lf__steps_memo_get(lf__steps_memo *m, const lf_bitset *key, int64_t below, lf_cost_step *steps,
                       int32_t cap, int32_t *n)
{
    uint64_t h = lf__hash(key, below, cap);
    void *head = NULL;
    lf_mutex_lock(&m->lock);
    lf__steps_entry *e = lf_hashmap_get(&m->map, h, &head) ? lf__find(head, key, below, cap) : NULL;
    if (e) {
        memcpy(steps, e->steps, (size_t)e->n * sizeof *steps);
        *n = e->n;
    }
    lf_mutex_unlock(&m->lock);
    return e != NULL;
}

int lf__steps_memo_get_copy(lf__steps_memo *m, const lf_bitset *key, int64_t below, int32_t cap,
                            lf_cost_step **steps, int32_t *n)
{
    uint64_t h = lf__hash(key, below, cap);
    void *head = NULL;
    int found = 0;
    *steps = NULL;
    *n = 0;
    lf_mutex_lock(&m->lock);
    lf__steps_entry *e = lf_hashmap_get(&m->map, h, &head) ? lf__find(head, key, below, cap) : NULL;
    if (e && (*steps = malloc((size_t)(e->n ? e->n : 1) * sizeof **steps))) {
        memcpy(*steps, e->steps, (size_t)e->n * sizeof **steps);
        *n = e->n;
        found = 1;
    }
    lf_mutex_unlock(&m->lock);
    return found; /* no memory for the copy: a miss, the caller prices it */
}

lf_status lf__steps_memo_put(lf__steps_memo *m, const lf_bitset *key, int64_t below,
                             const lf_cost_step *steps, int32_t cap, int32_t n)
{
    uint64_t h = lf__hash(key, below, cap);
    size_t words = (size_t)key->nwords * sizeof(uint64_t), size = sizeof(lf__steps_entry) + words +
                                                                   (size_t)n * sizeof *steps;
    lf_status st = LF_OK;
    lf_mutex_lock(&m->lock);
    void *head = NULL;
    int found = lf_hashmap_get(&m->map, h, &head);
    if (m->bytes + (int64_t)size + 32 <= m->limit && !(found && lf__find(head, key, below, cap))) {
        lf__steps_entry *e = malloc(size);
        if (e) {
            e->next = found ? head : NULL;
            e->below = below;
            e->cap = cap;
            e->n = n;
            e->nwords = key->nwords;
            memcpy(e->words, key->words, words);
            e->steps = (lf_cost_step *)((char *)e->words + words);
            memcpy(e->steps, steps, (size_t)n * sizeof *steps);
            st = lf_hashmap_put(&m->map, h, e);
            if (st != LF_OK)
                free(e);
            else
                m->bytes += (int64_t)size + 32; /* and two map slots */
        }
        /* no memory for an entry: nothing kept, the answer stands */
    }
    lf_mutex_unlock(&m->lock);
    return st;
}

/* The same store for the staircase's parts (cost.h: lf_steps_store). */
lf_status lf_steps_store_create(lf_steps_store **out, int64_t max_bytes)
{
    return lf__steps_memo_create_limited(out, max_bytes);
}

void lf_steps_store_free(lf_steps_store *m) { lf__steps_memo_free(m); }

int lf_steps_store_get(lf_steps_store *m, const lf_bitset *group, int64_t below,
                       lf_cost_step *steps, int32_t cap, int32_t *n)
{
    return lf__steps_memo_get(m, group, below, steps, cap, n);
}

int lf_steps_store_peek(lf_steps_store *m, const lf_bitset *group, int64_t below, int32_t cap,
                        const lf_cost_step **steps, int32_t *n)
{
    uint64_t h = lf__hash(group, below, cap);
    void *head = NULL;
    lf_mutex_lock(&m->lock);
    lf__steps_entry *e = lf_hashmap_get(&m->map, h, &head) ? lf__find(head, group, below, cap) : NULL;
    if (e) {
        *steps = e->steps;
        *n = e->n;
    }
    lf_mutex_unlock(&m->lock);
    return e != NULL;
}

int lf_steps_store_full(lf_steps_store *m)
{
    lf_mutex_lock(&m->lock);
    int full = m->bytes + 4096 > m->limit;
    lf_mutex_unlock(&m->lock);
    return full;
}

lf_status lf_steps_store_put(lf_steps_store *m, const lf_bitset *group, int64_t below,
                             const lf_cost_step *steps, int32_t cap, int32_t n)
{
    return lf__steps_memo_put(m, group, below, steps, cap, n);
}
