/* Open addressing with linear probing over a power-of-two table, grown at 70%
 * load. Linear probing keeps a lookup in one or two cache lines, which matters
 * for the cost memo, the hottest map in the planner. There is no removal, so
 * no tombstones are needed. */
#include "planner/util/hashmap.h"

#include <stdlib.h>
#include <string.h>

#define LF__MIN_CAP 16u

/* A full-avalanche finaliser (the splitmix64 output function): callers pass
 * sequential op ids or already-hashed bitsets alike, and linear probing needs
 * the low bits to be well spread either way. */
static uint64_t lf__mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Smallest power-of-two capacity that holds `entries` under the 70% load
 * limit; 0 on overflow. */
static size_t lf__capacity_for(size_t entries)
{
    if (entries > SIZE_MAX / 10)
        return 0;
    size_t need = entries * 10 / 7 + 1;
    size_t cap = LF__MIN_CAP;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            return 0;
        cap *= 2;
    }
    return cap;
}

/* True when one more entry would push the load past 70%. */
static int lf__needs_grow(size_t count, size_t cap)
{
    return cap == 0 || (count + 1) * 10 > cap * 7;
}

uint64_t lf_hash_string(const char *s)
{
    /* FNV-1a 64: tiny, stable, and with published test vectors. */
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t lf_hash_bytes(const void *data, size_t n, uint64_t seed)
{
    /* FNV-1a from a seed-dependent basis, then a finaliser: plain FNV-1a
     * leaves the high bits of short inputs poorly mixed, and callers may
     * reduce the hash to any bit range. */
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull ^ lf__mix64(seed);
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return lf__mix64(h ^ (uint64_t)n);
}

/* ---- 64-bit keys ---- */

static lf_status lf__hashmap_alloc(lf_hashmap *m, size_t cap)
{
    if (cap > SIZE_MAX / sizeof(lf_hashmap_slot))
        return lf_set_error(LF_ERANGE, "hash map of %zu slots is too large", cap);
    m->slots = malloc(cap * sizeof *m->slots);
    m->used = calloc(cap, 1);
    if (!m->slots || !m->used) {
        free(m->slots);
        free(m->used);
        m->slots = NULL;
        m->used = NULL;
        return lf_set_error(LF_ENOMEM, "out of memory for a hash map of %zu slots", cap);
    }
    m->cap = cap;
    m->count = 0;
    return LF_OK;
}

/* Slot holding key, or the empty slot where it would go. The load limit
 * guarantees an empty slot exists, so the probe terminates. */
static size_t lf__hashmap_slot(const lf_hashmap *m, uint64_t key)
{
    const size_t mask = m->cap - 1;
    size_t i = (size_t)lf__mix64(key) & mask;
    while (m->used[i] && m->slots[i].key != key)
        i = (i + 1) & mask;
    return i;
}

lf_status lf_hashmap_init(lf_hashmap *m, size_t initial_capacity)
{
    m->slots = NULL;
    m->used = NULL;
    m->cap = 0;
    m->count = 0;
    size_t cap = lf__capacity_for(initial_capacity);
    if (cap == 0)
        return lf_set_error(LF_ERANGE, "hash map capacity %zu is too large", initial_capacity);
    return lf__hashmap_alloc(m, cap);
}

void lf_hashmap_destroy(lf_hashmap *m)
{
    free(m->slots);
    free(m->used);
    m->slots = NULL;
    m->used = NULL;
    m->cap = 0;
    m->count = 0;
}

static lf_status lf__hashmap_grow(lf_hashmap *m)
{
    if (m->cap > SIZE_MAX / 2 / sizeof(lf_hashmap_slot))
        return lf_set_error(LF_ERANGE, "hash map cannot grow beyond %zu slots", m->cap);
    lf_hashmap old = *m;
    lf_status st = lf__hashmap_alloc(m, old.cap ? old.cap * 2 : LF__MIN_CAP);
    if (st != LF_OK) {
        *m = old; /* the map stays usable at its old size */
        return st;
    }
    for (size_t i = 0; i < old.cap; i++) {
        if (!old.used[i])
            continue;
        size_t j = lf__hashmap_slot(m, old.slots[i].key);
        m->used[j] = 1;
        m->slots[j] = old.slots[i];
    }
    m->count = old.count;
    lf_hashmap_destroy(&old);
    return LF_OK;
}

lf_status lf_hashmap_put(lf_hashmap *m, uint64_t key, void *value)
{
    if (m->cap) {
        size_t i = lf__hashmap_slot(m, key);
        if (m->used[i]) {
            m->slots[i].value = value;
            return LF_OK;
        }
    }
    if (lf__needs_grow(m->count, m->cap)) {
        lf_status st = lf__hashmap_grow(m);
        if (st != LF_OK)
            return st;
    }
    size_t i = lf__hashmap_slot(m, key);
    m->used[i] = 1;
    m->slots[i] = (lf_hashmap_slot){key, value};
    m->count++;
    return LF_OK;
}

int lf_hashmap_get(const lf_hashmap *m, uint64_t key, void **value)
{
    if (m->cap == 0)
        return 0;
    size_t i = lf__hashmap_slot(m, key);
    if (!m->used[i])
        return 0;
    if (value)
        *value = m->slots[i].value;
    return 1;
}

int lf_hashmap_next(const lf_hashmap *m, size_t *it, uint64_t *key, void **value)
{
    for (size_t i = *it; i < m->cap; i++) {
        if (!m->used[i])
            continue;
        if (key)
            *key = m->slots[i].key;
        if (value)
            *value = m->slots[i].value;
        *it = i + 1;
        return 1;
    }
    *it = m->cap;
    return 0;
}

void lf_hashmap_clear(lf_hashmap *m)
{
    if (m->cap)
        memset(m->used, 0, m->cap);
    m->count = 0;
}

/* ---- string keys ---- */

/* A NULL key marks an empty slot, so no separate flags are needed. */
static lf_status lf__strmap_alloc(lf_strmap *m, size_t cap)
{
    if (cap > SIZE_MAX / sizeof(char *))
        return lf_set_error(LF_ERANGE, "string map of %zu slots is too large", cap);
    m->keys = calloc(cap, sizeof *m->keys);
    m->values = malloc(cap * sizeof *m->values);
    if (!m->keys || !m->values) {
        free(m->keys);
        free(m->values);
        m->keys = NULL;
        m->values = NULL;
        return lf_set_error(LF_ENOMEM, "out of memory for a string map of %zu slots", cap);
    }
    m->cap = cap;
    m->count = 0;
    return LF_OK;
}

static size_t lf__strmap_slot(const lf_strmap *m, const char *key, uint64_t hash)
{
    const size_t mask = m->cap - 1;
    /* FNV-1a's low bits are weak for short keys; remix before masking. */
    size_t i = (size_t)lf__mix64(hash) & mask;
    while (m->keys[i] && strcmp(m->keys[i], key) != 0)
        i = (i + 1) & mask;
    return i;
}

lf_status lf_strmap_init(lf_strmap *m, size_t initial_capacity)
{
    m->keys = NULL;
    m->values = NULL;
    m->cap = 0;
    m->count = 0;
    size_t cap = lf__capacity_for(initial_capacity);
    if (cap == 0)
        return lf_set_error(LF_ERANGE, "string map capacity %zu is too large", initial_capacity);
    return lf__strmap_alloc(m, cap);
}

void lf_strmap_destroy(lf_strmap *m)
{
    if (m->keys)
        for (size_t i = 0; i < m->cap; i++)
            free(m->keys[i]);
    free(m->keys);
    free(m->values);
    m->keys = NULL;
    m->values = NULL;
    m->cap = 0;
    m->count = 0;
}

static lf_status lf__strmap_grow(lf_strmap *m)
{
    if (m->cap > SIZE_MAX / 2 / sizeof(lf_hashmap_slot))
        return lf_set_error(LF_ERANGE, "string map cannot grow beyond %zu slots", m->cap);
    lf_strmap old = *m;
    lf_status st = lf__strmap_alloc(m, old.cap ? old.cap * 2 : LF__MIN_CAP);
    if (st != LF_OK) {
        *m = old;
        return st;
    }
    /* Key strings move to the new table as they are; only the arrays change. */
    for (size_t i = 0; i < old.cap; i++) {
        if (!old.keys[i])
            continue;
        size_t j = lf__strmap_slot(m, old.keys[i], lf_hash_string(old.keys[i]));
        m->keys[j] = old.keys[i];
        m->values[j] = old.values[i];
    }
    m->count = old.count;
    free(old.keys);
    free(old.values);
    return LF_OK;
}

lf_status lf_strmap_put(lf_strmap *m, const char *key, void *value)
{
    if (!key)
        return lf_set_error(LF_EINVAL, "string map key is NULL");
    const uint64_t h = lf_hash_string(key);
    if (m->cap) {
        size_t i = lf__strmap_slot(m, key, h);
        if (m->keys[i]) {
            m->values[i] = value;
            return LF_OK;
        }
    }
    /* Copy the key before growing so that a failed copy leaves the map as it
     * was, not merely larger. */
    size_t len = strlen(key) + 1;
    char *copy = malloc(len);
    if (!copy)
        return lf_set_error(LF_ENOMEM, "out of memory copying map key \"%.64s\"", key);
    memcpy(copy, key, len);
    if (lf__needs_grow(m->count, m->cap)) {
        lf_status st = lf__strmap_grow(m);
        if (st != LF_OK) {
            free(copy);
            return st;
        }
    }
    size_t i = lf__strmap_slot(m, key, h);
    m->keys[i] = copy;
    m->values[i] = value;
    m->count++;
    return LF_OK;
}

int lf_strmap_get(const lf_strmap *m, const char *key, void **value)
{
    if (m->cap == 0 || !key)
        return 0;
    size_t i = lf__strmap_slot(m, key, lf_hash_string(key));
    if (!m->keys[i])
        return 0;
    if (value)
        *value = m->values[i];
    return 1;
}
