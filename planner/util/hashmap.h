/* Open-addressing hash map from 64-bit keys to pointer-sized values, plus a
 * string-keyed wrapper. Keys are hashed by the caller where they are richer
 * than 64 bits (bitsets), and collisions of those hashes are resolved by the
 * caller comparing the stored value. Not thread-safe; the cost memo shards
 * several maps behind locks (planner/util/mutex.h). */
#ifndef LF_HASHMAP_H
#define LF_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

#include "planner/status.h"

/* A key with its value side by side: a lookup that finds its key reads one
 * slot, where keys and values in arrays of their own were two more cache
 * misses on a map larger than the cache (the staircase's memos). */
typedef struct lf_hashmap_slot {
    uint64_t key;
    void *value;
} lf_hashmap_slot;

typedef struct lf_hashmap {
    lf_hashmap_slot *slots;
    uint8_t *used; /* per slot: a byte each, so the probe's flags share a line */
    size_t cap;    /* power of two */
    size_t count;
} lf_hashmap;

lf_status lf_hashmap_init(lf_hashmap *m, size_t initial_capacity);
void lf_hashmap_destroy(lf_hashmap *m); /* safe after a failed init; does not free values */

/* Inserts or replaces. */
lf_status lf_hashmap_put(lf_hashmap *m, uint64_t key, void *value);

/* Returns 1 and sets *value when found, 0 otherwise. */
int lf_hashmap_get(const lf_hashmap *m, uint64_t key, void **value);

/* Iteration over the entries, in slot order (the same order on every run for
 * the same insertions):
 *     size_t it = 0; uint64_t key; void *value;
 *     while (lf_hashmap_next(m, &it, &key, &value)) ...
 * key or value may be NULL. The map must not change during the walk. */
int lf_hashmap_next(const lf_hashmap *m, size_t *it, uint64_t *key, void **value);

/* Removes every entry and keeps the capacity (values are not freed: walk the
 * map first when it owns them). */
void lf_hashmap_clear(lf_hashmap *m);

/* 64-bit hash of a NUL-terminated string (stable across runs and platforms). */
uint64_t lf_hash_string(const char *s);
uint64_t lf_hash_bytes(const void *data, size_t n, uint64_t seed);

/* String-keyed map: keys are copied; values are caller-owned pointers. */
typedef struct lf_strmap {
    char **keys;
    void **values;
    size_t cap;
    size_t count;
} lf_strmap;

lf_status lf_strmap_init(lf_strmap *m, size_t initial_capacity);
void lf_strmap_destroy(lf_strmap *m);
lf_status lf_strmap_put(lf_strmap *m, const char *key, void *value); /* replaces */
int lf_strmap_get(const lf_strmap *m, const char *key, void **value);

#endif
