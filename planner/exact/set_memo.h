/* Values of candidate sets remembered within one window's DP (window_bound.c:
 * the weight re-reads of a set under BRR). Internal to planner/exact. */
#ifndef LF_EXACT_SET_MEMO_H
#define LF_EXACT_SET_MEMO_H

#include <stdint.h>

#include "planner/util/bitset.h"
#include "planner/util/hashmap.h"

typedef struct lf__set_memo {
    lf_hashmap map;    /* the set's hash -> its entry's index + 1 */
    uint64_t *words;   /* per entry: the set's bitset words, to tell a hash's collision */
    int64_t *values;   /* per entry */
    int32_t nwords;
    int64_t n, cap;    /* entries, and room for them */
} lf__set_memo;

/* An empty memo of sets over nbits op ids. */
lf_status lf__set_memo_init(lf__set_memo *m, int32_t nbits);
void lf__set_memo_destroy(lf__set_memo *m); /* safe after a failed init or none (zeroed) */

/* Forgets every set (the room is kept). */
void lf__set_memo_clear(lf__set_memo *m);

/* 1 and *value when the set s was put since the last clear, else 0. */
int lf__set_memo_get(const lf__set_memo *m, const lf_bitset *s, int64_t *value);

/* Remembers s's value. Past LF__SET_MEMO_MAX entries or LF__SET_MEMO_BYTES
 * of sets and values, or out of memory, it remembers nothing: a memo only
 * saves time, so callers compute again. The bytes keep it small beside the
 * windows' DP whatever the graph's width (a NasNet-A set is 16 words);
 * PP-OCRv4 detection's window 1-189 has 4,743 distinct sets. */
#define LF__SET_MEMO_MAX (1 << 21)
#define LF__SET_MEMO_BYTES ((int64_t)64 << 20)
void lf__set_memo_put(lf__set_memo *m, const lf_bitset *s, int64_t value);

#endif
