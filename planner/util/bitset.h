/* Fixed-size bitsets over op ids: the representation of a fusion group and the
 * key of the cost memo. */
#ifndef LF_BITSET_H
#define LF_BITSET_H

#include <stdint.h>

#include "planner/status.h"

typedef struct lf_bitset {
    int32_t nbits;
    int32_t nwords;
    uint64_t *words;
} lf_bitset;

#define LF_BITSET_WORDS(nbits) (((nbits) + 63) / 64)

lf_status lf_bitset_init(lf_bitset *b, int32_t nbits);   /* all clear */
void lf_bitset_destroy(lf_bitset *b);                      /* safe after a failed init */
lf_status lf_bitset_copy(lf_bitset *dst, const lf_bitset *src); /* dst uninitialised */
void lf_bitset_assign(lf_bitset *dst, const lf_bitset *src);    /* same size, both initialised */

static inline void lf_bitset_set(lf_bitset *b, int32_t i) { b->words[i >> 6] |= (uint64_t)1 << (i & 63); }
static inline void lf_bitset_reset(lf_bitset *b, int32_t i) { b->words[i >> 6] &= ~((uint64_t)1 << (i & 63)); }
static inline int lf_bitset_test(const lf_bitset *b, int32_t i) { return (int)((b->words[i >> 6] >> (i & 63)) & 1u); }

void lf_bitset_clear_all(lf_bitset *b);
int32_t lf_bitset_count(const lf_bitset *b);
int lf_bitset_equal(const lf_bitset *a, const lf_bitset *b);
int lf_bitset_is_empty(const lf_bitset *b);
void lf_bitset_or(lf_bitset *dst, const lf_bitset *src);
uint64_t lf_bitset_hash(const lf_bitset *b);

/* Smallest set bit >= from, or -1. Iterate: for (i = next(b, 0); i >= 0; i = next(b, i + 1)). */
int32_t lf_bitset_next(const lf_bitset *b, int32_t from);

/* Writes the set bits ascending into out (capacity >= count); returns the count. */
int32_t lf_bitset_to_list(const lf_bitset *b, int32_t *out);

#endif
