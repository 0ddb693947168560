/* Thread-safe memo of group costs keyed by the group bitset.
 *
 * Searches evaluate the same groups again and again (the paper caches F_beta
 * and F_D per group for this reason). Keys are hashed to one of many shards,
 * each a hash map behind its own lock, so threads evaluating different groups
 * rarely contend. Full bitsets are stored and compared, so hash collisions
 * never return a wrong cost.
 *
 * The memo is bounded: each shard may hold 1/LF_MEMO_SHARDS of the byte limit
 * (entries, their malloc overhead and the map's slots). A shard about to pass
 * its share is emptied first. Costs are pure functions of the group, so an
 * eviction only costs a recomputation, never a different answer; emptying a
 * whole shard keeps the bookkeeping to one counter and works well for the
 * exact planner, whose working set moves through the graph. */
#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost_internal.h"
#include "planner/util/hashmap.h"
#include "planner/util/mutex.h"

#define LF_MEMO_SHARDS 64

typedef struct lf__memo_entry {
    struct lf__memo_entry *next; /* same 64-bit hash */
    lf_group_cost cost;
    int32_t nwords;
    uint64_t words[];
} lf__memo_entry;

/* Bytes one entry is charged: the entry, malloc's header, and two map slots
 * (the map keeps its load under one half) of key, value and used flag. */
#define LF__MEMO_ENTRY_BYTES(nwords) \
    ((int64_t)sizeof(lf__memo_entry) + (int64_t)(nwords) * 8 + 16 + 2 * 17)

typedef struct lf__memo_shard {
    lf_hashmap map;
    int64_t hits, misses, entries; /* under the shard's lock: no shared counter to contend on */
    int64_t bytes, evictions;      /* bytes charged now; entries dropped by emptying */
    lf_mutex lock;
} lf__memo_shard;

struct lf__memo {
    lf__memo_shard shards[LF_MEMO_SHARDS];
    int64_t limit; /* bytes over all shards; 0: unbounded (set before concurrent use) */
};

static void lf__lock(lf__memo_shard *s) { lf_mutex_lock(&s->lock); }
static void lf__unlock(lf__memo_shard *s) { lf_mutex_unlock(&s->lock); }

lf_status lf__memo_create(lf__memo **out)
{
    lf__memo *m = calloc(1, sizeof *m);
    if (!m)
        return lf_set_error(LF_ENOMEM, "out of memory for the cost memo");
    m->limit = LF_COST_MEMO_DEFAULT_LIMIT;
    for (int i = 0; i < LF_MEMO_SHARDS; i++) {
        lf_status st = lf_hashmap_init(&m->shards[i].map, 64);
        if (st != LF_OK)
            st = lf_set_error(LF_ENOMEM, "out of memory for the cost memo");
        else if ((st = lf_mutex_init(&m->shards[i].lock, "the cost memo")) != LF_OK)
            lf_hashmap_destroy(&m->shards[i].map);
        if (st != LF_OK) {
            for (int j = 0; j < i; j++) {
                lf_hashmap_destroy(&m->shards[j].map);
                lf_mutex_destroy(&m->shards[j].lock);
            }
            free(m);
            return st;
        }
    }
    *out = m;
    return LF_OK;
}

/* Frees every entry of a shard and leaves its map empty (same capacity). */
static void lf__shard_empty(lf__memo_shard *s)
{
    size_t it = 0;
    void *head;
    while (lf_hashmap_next(&s->map, &it, NULL, &head)) {
        lf__memo_entry *e = head;
        while (e) {
            lf__memo_entry *next = e->next;
            free(e);
            e = next;
        }
    }
    lf_hashmap_clear(&s->map);
    s->evictions += s->entries;
    s->entries = 0;
    s->bytes = 0;
}

void lf__memo_free(lf__memo *m)
{
    if (!m)
        return;
    for (int i = 0; i < LF_MEMO_SHARDS; i++) {
        lf__shard_empty(&m->shards[i]);
        lf_hashmap_destroy(&m->shards[i].map);
        lf_mutex_destroy(&m->shards[i].lock);
    }
    free(m);
}

static lf__memo_entry *lf__find(lf__memo_entry *e, const lf_bitset *key)
{
    for (; e; e = e->next)
        if (e->nwords == key->nwords &&
            memcmp(e->words, key->words, (size_t)key->nwords * sizeof(uint64_t)) == 0)
            return e;
    return NULL;
}

int lf__memo_get(lf__memo *m, const lf_bitset *key, lf_group_cost *out)
{
    uint64_t h = lf_bitset_hash(key);
    lf__memo_shard *s = &m->shards[h % LF_MEMO_SHARDS];
    void *head = NULL;
    lf__lock(s);
    lf__memo_entry *e = lf_hashmap_get(&s->map, h, &head) ? lf__find(head, key) : NULL;
    if (e) {
        *out = e->cost;
        s->hits++;
    } else {
        s->misses++;
    }
    lf__unlock(s);
    return e != NULL;
}

lf_status lf__memo_put(lf__memo *m, const lf_bitset *key, const lf_group_cost *cost)
{
    uint64_t h = lf_bitset_hash(key);
    lf__memo_shard *s = &m->shards[h % LF_MEMO_SHARDS];
    lf__memo_entry *e = malloc(sizeof *e + (size_t)key->nwords * sizeof(uint64_t));
    if (!e)
        return lf_set_error(LF_ENOMEM, "out of memory in the cost memo");
    e->cost = *cost;
    e->nwords = key->nwords;
    memcpy(e->words, key->words, (size_t)key->nwords * sizeof(uint64_t));
    lf_status st = LF_OK;
    void *head = NULL;
    int64_t charge = LF__MEMO_ENTRY_BYTES(key->nwords);
    if (m->limit > 0 && charge > m->limit / LF_MEMO_SHARDS) {
        free(e); /* a share too small for even one entry: keep nothing */
        return LF_OK;
    }
    lf__lock(s);
    if (m->limit > 0 && s->bytes + charge > m->limit / LF_MEMO_SHARDS)
        lf__shard_empty(s);
    int found = lf_hashmap_get(&s->map, h, &head);
    if (found && lf__find(head, key)) {
        /* Another thread stored the same group meanwhile; costs are pure
         * functions of the group, so the stored one is identical. */
        free(e);
    } else {
        e->next = found ? head : NULL;
        st = lf_hashmap_put(&s->map, h, e);
        if (st != LF_OK) {
            free(e);
        } else {
            s->entries++;
            s->bytes += charge;
        }
    }
    lf__unlock(s);
    return st;
}

void lf__memo_stats(const lf__memo *m, int64_t *hits, int64_t *misses, int64_t *entries,
                    int64_t *bytes, int64_t *evictions)
{
    *hits = *misses = *entries = *bytes = *evictions = 0;
    for (int i = 0; i < LF_MEMO_SHARDS; i++) {
        lf__memo_shard *s = (lf__memo_shard *)&m->shards[i];
        lf__lock(s);
        *hits += s->hits;
        *misses += s->misses;
        *entries += s->entries;
        *bytes += s->bytes;
        *evictions += s->evictions;
        lf__unlock(s);
    }
}

int64_t lf__memo_limit(lf__memo *m, int64_t bytes)
{
    int64_t old = m->limit;
    m->limit = bytes > 0 ? bytes : 0;
    return old;
}
