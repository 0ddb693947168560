/* The windows' memo of candidate sets' values (planner/exact/set_memo.c): a
 * set's value comes back only for that set, a hash that finds another set's
 * entry is a miss, and a clear forgets everything, also past the size at
 * which the map is made anew. The memo's use (window_bound.c, the weight
 * re-reads under BRR) is pinned by test_cut_bounds' BRR figures. */
#include <stdint.h>
#include <stdio.h>

#include "planner/exact/set_memo.h"
#include "planner/util/bitset.h"
#include "testlib.h"

#define NBITS 300
#define SETS 100000

/* Set i: a few bits drawn from i's own generator, plus bit i % NBITS (so
 * most sets differ). Its value: a function of its words. */
static void make_set(lf_bitset *s, uint64_t i)
{
    lf_bitset_clear_all(s);
    uint64_t x = i * 0x9E3779B97F4A7C15ull + 1;
    for (int k = 0; k < 6; k++) {
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 29;
        lf_bitset_set(s, (int32_t)(x % NBITS));
    }
    lf_bitset_set(s, (int32_t)(i % NBITS));
}

static int64_t value_of(const lf_bitset *s)
{
    int64_t v = 0;
    for (int32_t i = 0; i < s->nwords; i++)
        v = v * 31 + (int64_t)(s->words[i] % 1000003);
    return v;
}

static void test_hand(void)
{
    lf__set_memo m;
    lf_bitset a, b;
    CHECK_OK(lf__set_memo_init(&m, NBITS));
    CHECK_OK(lf_bitset_init(&a, NBITS));
    CHECK_OK(lf_bitset_init(&b, NBITS));
    lf_bitset_set(&a, 3);
    lf_bitset_set(&a, 200);
    lf_bitset_set(&b, 3);
    int64_t v = 0;
    CHECK_EQ_I64(lf__set_memo_get(&m, &a, &v), 0);
    lf__set_memo_put(&m, &a, -1); /* -1: no valid group holds it (a value like any) */
    CHECK_EQ_I64(lf__set_memo_get(&m, &a, &v), 1);
    CHECK_EQ_I64(v, -1);
    CHECK_EQ_I64(lf__set_memo_get(&m, &b, &v), 0);
    lf__set_memo_put(&m, &b, 7);
    CHECK_EQ_I64(lf__set_memo_get(&m, &b, &v), 1);
    CHECK_EQ_I64(v, 7);
    /* b's hash made to find a's entry (a collision): a miss, not a's value. */
    lf_bitset_reset(&b, 3);
    lf_bitset_set(&b, 4);
    CHECK_OK(lf_hashmap_put(&m.map, lf_bitset_hash(&b), (void *)(uintptr_t)1));
    CHECK_EQ_I64(lf__set_memo_get(&m, &b, &v), 0);
    lf__set_memo_clear(&m);
    lf_bitset_reset(&b, 4);
    lf_bitset_set(&b, 3);
    CHECK_EQ_I64(lf__set_memo_get(&m, &a, &v), 0);
    CHECK_EQ_I64(lf__set_memo_get(&m, &b, &v), 0);
    lf__set_memo_put(&m, &b, 9);
    CHECK_EQ_I64(lf__set_memo_get(&m, &b, &v), 1);
    CHECK_EQ_I64(v, 9);
    lf_bitset_destroy(&a);
    lf_bitset_destroy(&b);
    lf__set_memo_destroy(&m);
    lf__set_memo_destroy(&m); /* twice: safe */
}

/* Many sets, twice over (the second time after a clear of a map past the
 * size at which it is made anew). */
static void test_many(void)
{
    lf__set_memo m;
    lf_bitset s, t;
    CHECK_OK(lf__set_memo_init(&m, NBITS));
    CHECK_OK(lf_bitset_init(&s, NBITS));
    CHECK_OK(lf_bitset_init(&t, NBITS));
    for (int round = 0; round < 2; round++) {
        for (uint64_t i = 0; i < SETS; i++) {
            make_set(&s, i + (uint64_t)round * SETS);
            lf__set_memo_put(&m, &s, value_of(&s));
        }
        CHECK(m.map.cap > 65536);
        int64_t wrong = 0, missed = 0, found_absent = 0;
        for (uint64_t i = 0; i < SETS; i++) {
            make_set(&s, i + (uint64_t)round * SETS);
            int64_t v = 0;
            if (!lf__set_memo_get(&m, &s, &v))
                missed++;
            else if (v != value_of(&s))
                wrong++;
            /* s with bit 0 flipped: absent, or put as another i with its
             * own value; never s's. */
            lf_bitset_assign(&t, &s);
            if (lf_bitset_test(&t, 0))
                lf_bitset_reset(&t, 0);
            else
                lf_bitset_set(&t, 0);
            if (lf__set_memo_get(&m, &t, &v) && v != value_of(&t))
                found_absent++;
        }
        CHECK_EQ_I64(wrong, 0);
        CHECK_EQ_I64(missed, 0);
        CHECK_EQ_I64(found_absent, 0);
        lf__set_memo_clear(&m);
        CHECK(m.map.cap <= 65536);
        make_set(&s, 5);
        int64_t v = 0;
        CHECK_EQ_I64(lf__set_memo_get(&m, &s, &v), 0);
    }
    lf_bitset_destroy(&s);
    lf_bitset_destroy(&t);
    lf__set_memo_destroy(&m);
}

/* Wide sets: the memo stops remembering at LF__SET_MEMO_BYTES of sets and
 * values (8,191 words and a value per entry: 64 KB, so 1,024 entries), and
 * what it holds stays right past that. */
static void test_bytes_cap(void)
{
    const int32_t nbits = 64 * 8191;
    int64_t entry = (8191 + 1) * 8, most = LF__SET_MEMO_BYTES / entry;
    CHECK_EQ_I64(most, 1024);
    lf__set_memo m;
    lf_bitset s;
    CHECK_OK(lf__set_memo_init(&m, nbits));
    CHECK_OK(lf_bitset_init(&s, nbits));
    for (int64_t i = 0; i < most + 10; i++) {
        lf_bitset_clear_all(&s);
        lf_bitset_set(&s, (int32_t)(i * 509 % nbits));
        lf_bitset_set(&s, nbits - 1 - (int32_t)i);
        lf__set_memo_put(&m, &s, i);
    }
    CHECK_EQ_I64(m.n, most);
    CHECK(m.cap <= most);
    /* A set whose hash another's entry took since is a miss (set_memo.c):
     * most sets put are found, each with its own value, none put past the cap. */
    int found = 0, right = 0, past = 0;
    for (int64_t i = 0; i < most + 10; i++) {
        lf_bitset_clear_all(&s);
        lf_bitset_set(&s, (int32_t)(i * 509 % nbits));
        lf_bitset_set(&s, nbits - 1 - (int32_t)i);
        int64_t v = -1;
        if (lf__set_memo_get(&m, &s, &v)) {
            found++;
            right += v == i;
            past += i >= most;
        }
    }
    CHECK(found >= most * 9 / 10);
    CHECK_EQ_I64(right, found);
    CHECK_EQ_I64(past, 0);
    lf_bitset_destroy(&s);
    lf__set_memo_destroy(&m);
}

int main(void)
{
    test_hand();
    test_many();
    test_bytes_cap();
    return lf_test_result();
}
