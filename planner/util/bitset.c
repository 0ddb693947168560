#include "planner/util/bitset.h"

#include <stdlib.h>
#include <string.h>

lf_status lf_bitset_init(lf_bitset *b, int32_t nbits)
{
    b->nbits = nbits;
    b->nwords = LF_BITSET_WORDS(nbits);
    b->words = calloc((size_t)(b->nwords > 0 ? b->nwords : 1), sizeof(uint64_t));
    if (!b->words) {
        b->nwords = 0;
        return lf_set_error(LF_ENOMEM, "out of memory for a bitset of %d bits", (int)nbits);
    }
    return LF_OK;
}

void lf_bitset_destroy(lf_bitset *b)
{
    free(b->words);
    b->words = NULL;
    b->nwords = 0;
    b->nbits = 0;
}

lf_status lf_bitset_copy(lf_bitset *dst, const lf_bitset *src)
{
    lf_status st = lf_bitset_init(dst, src->nbits);
    if (st == LF_OK)
        memcpy(dst->words, src->words, (size_t)src->nwords * sizeof(uint64_t));
    return st;
}

void lf_bitset_assign(lf_bitset *dst, const lf_bitset *src)
{
    memcpy(dst->words, src->words, (size_t)src->nwords * sizeof(uint64_t));
}

void lf_bitset_clear_all(lf_bitset *b)
{
    memset(b->words, 0, (size_t)b->nwords * sizeof(uint64_t));
}

int32_t lf_bitset_count(const lf_bitset *b)
{
    int32_t n = 0;
    for (int32_t i = 0; i < b->nwords; i++)
        n += __builtin_popcountll(b->words[i]);
    return n;
}

int lf_bitset_equal(const lf_bitset *a, const lf_bitset *b)
{
    return a->nbits == b->nbits &&
           memcmp(a->words, b->words, (size_t)a->nwords * sizeof(uint64_t)) == 0;
}

int lf_bitset_is_empty(const lf_bitset *b)
{
    for (int32_t i = 0; i < b->nwords; i++)
        if (b->words[i])
            return 0;
    return 1;
}

void lf_bitset_or(lf_bitset *dst, const lf_bitset *src)
{
    for (int32_t i = 0; i < dst->nwords; i++)
        dst->words[i] |= src->words[i];
}

uint64_t lf_bitset_hash(const lf_bitset *b)
{
    /* FNV-1a over the words, then a final avalanche so that nearby groups
     * spread over the memo's shards. */
    uint64_t h = 1469598103934665603ull;
    for (int32_t i = 0; i < b->nwords; i++) {
        h ^= b->words[i];
        h *= 1099511628211ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

int32_t lf_bitset_next(const lf_bitset *b, int32_t from)
{
    if (from >= b->nbits || from < 0)
        return -1;
    int32_t w = from >> 6;
    uint64_t word = b->words[w] & (~(uint64_t)0 << (from & 63));
    for (;;) {
        if (word)
            return w * 64 + __builtin_ctzll(word);
        if (++w >= b->nwords)
            return -1;
        word = b->words[w];
    }
}

int32_t lf_bitset_to_list(const lf_bitset *b, int32_t *out)
{
    int32_t n = 0;
    for (int32_t w = 0; w < b->nwords; w++) {
        uint64_t word = b->words[w];
        while (word) {
            out[n++] = w * 64 + __builtin_ctzll(word);
            word &= word - 1;
        }
    }
    return n;
}
