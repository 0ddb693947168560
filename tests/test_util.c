/* Unit tests for planner/util: rng, hash maps, bitsets, arena, atomic files
 * and the progress bar (the pool and the busy clock: test_pool.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "planner/util/arena.h"
#include "planner/util/bitset.h"
#include "planner/util/fileio.h"
#include "planner/util/hashmap.h"
#include "planner/app/cli/terminal_bar.h"
#include "planner/util/clock.h"
#include "planner/util/rng.h"
#include "tests/testlib.h"

/* ---------------------------------------------------------------- rng */

static void test_rng_reference_vectors(void)
{
    /* xoshiro256** from the state {1, 2, 3, 4}: the first outputs of the
     * authors' reference implementation, checks the core step in isolation. */
    lf_rng r = {{1, 2, 3, 4}};
    CHECK(lf_rng_next(&r) == 11520u);
    CHECK(lf_rng_next(&r) == 0u);
    CHECK(lf_rng_next(&r) == 1509978240u);
    CHECK(lf_rng_next(&r) == 1215971899390074240ull);

    /* Seed 42, stream 0 and 1: pinned from an independent Python model of
     * splitmix64 + xoshiro256** + lf_rng_mix (the model reproduces the
     * published splitmix64(0) and xoshiro {1,2,3,4} vectors). A change here
     * changes every seeded plan, so it must be deliberate. */
    lf_rng_seed(&r, 42, 0);
    CHECK(r.s[0] == 0xca685846b557f0fcull);
    CHECK(r.s[1] == 0x0d5ec61fa641d02eull);
    CHECK(r.s[2] == 0x45d46229cc936c2bull);
    CHECK(r.s[3] == 0x53504dfd2059b835ull);
    CHECK(lf_rng_next(&r) == 0xd469c81cc8cc0c29ull);
    CHECK(lf_rng_next(&r) == 0xf32feba53743e4ffull);
    CHECK(lf_rng_next(&r) == 0x255770afbb65ac54ull);

    lf_rng_seed(&r, 42, 1);
    CHECK(lf_rng_next(&r) == 0xc2c1073d082d7815ull);
    CHECK(lf_rng_next(&r) == 0x17eac6fc8c9b9066ull);
    CHECK(lf_rng_next(&r) == 0x6195e1497fc69099ull);

    CHECK(lf_rng_mix(1, 2) == 0xf2826f98653e9e57ull);
}

static void test_rng_determinism_and_streams(void)
{
    lf_rng a, b, c, d;
    lf_rng_seed(&a, 7, 3);
    lf_rng_seed(&b, 7, 3);
    lf_rng_seed(&c, 7, 4);
    lf_rng_seed(&d, 8, 3);
    int same_ab = 0, same_ac = 0, same_ad = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = lf_rng_next(&a), y = lf_rng_next(&b);
        uint64_t z = lf_rng_next(&c), w = lf_rng_next(&d);
        same_ab += x == y;
        same_ac += x == z;
        same_ad += x == w;
    }
    CHECK_EQ_I64(same_ab, 1000);
    CHECK_EQ_I64(same_ac, 0);
    CHECK_EQ_I64(same_ad, 0);

    /* The mix is not symmetric: (a, b) and (b, a) are different streams. */
    CHECK(lf_rng_mix(3, 5) != lf_rng_mix(5, 3));
    CHECK(lf_rng_mix(0, 0) != lf_rng_mix(0, 1));

    /* Stream 0 of seed 0 must still be a live generator (no all-zero state). */
    lf_rng z;
    lf_rng_seed(&z, 0, 0);
    CHECK(z.s[0] | z.s[1] | z.s[2] | z.s[3]);
    CHECK(lf_rng_next(&z) != lf_rng_next(&z));
}

static void test_rng_below(void)
{
    lf_rng r;
    lf_rng_seed(&r, 42, 0);
    CHECK_EQ_I64(lf_rng_below(&r, 0), 0);
    int bad = 0;
    for (int i = 0; i < 1000; i++) {
        bad += lf_rng_below(&r, 1) != 0;
        bad += lf_rng_below(&r, 7) >= 7;
        bad += lf_rng_below(&r, UINT32_MAX) == UINT32_MAX;
    }
    CHECK_EQ_I64(bad, 0);

    /* Chi-square over 10 buckets: 9 degrees of freedom, so 100000 uniform
     * draws exceed 27.9 with probability 0.001. */
    enum { N = 100000, K = 10 };
    long count[K] = {0};
    for (int i = 0; i < N; i++)
        count[lf_rng_below(&r, K)]++;
    double chi2 = 0.0;
    for (int k = 0; k < K; k++) {
        double dev = (double)count[k] - (double)N / K;
        chi2 += dev * dev / ((double)N / K);
    }
    CHECK(chi2 < 27.9);

    /* n = 3 * 2^30: a plain "x mod n" on 32 bits would give the lowest third
     * of the range twice the probability of the rest (2/3 instead of 1/3). */
    const uint32_t n = 3u << 30;
    int low = 0;
    for (int i = 0; i < 30000; i++)
        low += lf_rng_below(&r, n) < (1u << 30);
    CHECK_NEAR(low / 30000.0, 1.0 / 3.0, 0.02);
}

static void test_rng_float(void)
{
    lf_rng r;
    lf_rng_seed(&r, 1, 2);
    enum { N = 200000 };
    double sum = 0.0, sum2 = 0.0;
    int out_of_range = 0;
    for (int i = 0; i < N; i++) {
        double u = lf_rng_uniform(&r);
        out_of_range += !(u >= 0.0 && u < 1.0);
        sum += u;
    }
    CHECK_EQ_I64(out_of_range, 0);
    CHECK_NEAR(sum / N, 0.5, 0.01);

    sum = 0.0;
    for (int i = 0; i < N; i++) {
        double x = lf_rng_normal(&r);
        sum += x;
        sum2 += x * x;
    }
    CHECK_NEAR(sum / N, 0.0, 0.01);
    CHECK_NEAR(sum2 / N, 1.0, 0.02);

    int ones0 = 0, ones1 = 0, ones3 = 0;
    for (int i = 0; i < 10000; i++) {
        ones0 += lf_rng_bernoulli(&r, 0.0);
        ones1 += lf_rng_bernoulli(&r, 1.0);
        ones3 += lf_rng_bernoulli(&r, 0.3);
    }
    CHECK_EQ_I64(ones0, 0);
    CHECK_EQ_I64(ones1, 10000);
    CHECK_NEAR(ones3 / 10000.0, 0.3, 0.03);

    /* Same seed, same normals: the polar method is deterministic too. */
    lf_rng a, b;
    lf_rng_seed(&a, 5, 5);
    lf_rng_seed(&b, 5, 5);
    int differ = 0;
    for (int i = 0; i < 100; i++)
        differ += lf_rng_normal(&a) != lf_rng_normal(&b);
    CHECK_EQ_I64(differ, 0);
}

static void test_rng_shuffle(void)
{
    lf_rng r;
    lf_rng_seed(&r, 9, 0);
    enum { N = 100 };
    int32_t v[N];
    for (int i = 0; i < N; i++)
        v[i] = i;
    lf_rng_shuffle_i32(&r, v, N);
    int seen[N] = {0};
    int fixed = 0, bad = 0;
    for (int i = 0; i < N; i++) {
        if (v[i] < 0 || v[i] >= N || seen[v[i]]++)
            bad++;
        fixed += v[i] == i;
    }
    CHECK_EQ_I64(bad, 0);
    CHECK(fixed < N / 2); /* expected about one fixed point */

    /* Degenerate sizes must not touch memory or loop forever. */
    int32_t one = 17;
    lf_rng_shuffle_i32(&r, &one, 1);
    CHECK_EQ_I64(one, 17);
    lf_rng_shuffle_i32(&r, NULL, 0);

    /* Same stream, same permutation. */
    int32_t a[N], b[N];
    for (int i = 0; i < N; i++)
        a[i] = b[i] = i;
    lf_rng ra, rb;
    lf_rng_seed(&ra, 11, 1);
    lf_rng_seed(&rb, 11, 1);
    lf_rng_shuffle_i32(&ra, a, N);
    lf_rng_shuffle_i32(&rb, b, N);
    CHECK(memcmp(a, b, sizeof a) == 0);
}

/* ---------------------------------------------------------------- hashing */

static void test_hash_functions(void)
{
    /* Published FNV-1a 64 test vectors. */
    CHECK(lf_hash_string("") == 0xcbf29ce484222325ull);
    CHECK(lf_hash_string("a") == 0xaf63dc4c8601ec8cull);
    CHECK(lf_hash_string("foobar") == 0x85944171f73967e8ull);

    const char data[] = "conv1/relu";
    uint64_t h0 = lf_hash_bytes(data, sizeof data - 1, 0);
    CHECK(h0 == lf_hash_bytes(data, sizeof data - 1, 0));
    CHECK(h0 != lf_hash_bytes(data, sizeof data - 1, 1));
    CHECK(h0 != lf_hash_bytes(data, sizeof data - 2, 0));
    /* A zero byte still counts: lengths, not terminators, delimit the input. */
    const unsigned char z[2] = {0, 0};
    CHECK(lf_hash_bytes(z, 1, 0) != lf_hash_bytes(z, 2, 0));
}

static void *val(uint64_t k)
{
    return (void *)(uintptr_t)(k * 2 + 1);
}

static void test_hashmap(void)
{
    lf_hashmap m;
    CHECK_OK(lf_hashmap_init(&m, 0));
    CHECK(m.cap > 0 && (m.cap & (m.cap - 1)) == 0);
    void *v = (void *)&m;
    CHECK_EQ_I64(lf_hashmap_get(&m, 0, &v), 0);
    CHECK(v == (void *)&m); /* untouched on a miss */

    /* 100k keys: 0, UINT64_MAX and a spread of others, forcing many grows. */
    enum { N = 100000 };
    CHECK_OK(lf_hashmap_put(&m, 0, val(0)));
    CHECK_OK(lf_hashmap_put(&m, UINT64_MAX, val(UINT64_MAX)));
    for (uint64_t i = 1; i < N - 1; i++)
        CHECK_OK(lf_hashmap_put(&m, i * 0x9e3779b97f4a7c15ull, val(i)));
    CHECK_EQ_I64(m.count, N);
    CHECK((m.cap & (m.cap - 1)) == 0);
    CHECK(m.count * 10 <= m.cap * 7);

    int wrong = 0;
    CHECK_EQ_I64(lf_hashmap_get(&m, 0, &v), 1);
    CHECK(v == val(0));
    CHECK_EQ_I64(lf_hashmap_get(&m, UINT64_MAX, &v), 1);
    CHECK(v == val(UINT64_MAX));
    for (uint64_t i = 1; i < N - 1; i++)
        wrong += !lf_hashmap_get(&m, i * 0x9e3779b97f4a7c15ull, &v) || v != val(i);
    CHECK_EQ_I64(wrong, 0);
    CHECK_EQ_I64(lf_hashmap_get(&m, 12345, NULL), 0);

    /* Replace: the value changes, the count does not. */
    CHECK_OK(lf_hashmap_put(&m, 0, val(77)));
    CHECK_OK(lf_hashmap_put(&m, 5 * 0x9e3779b97f4a7c15ull, NULL));
    CHECK_EQ_I64(m.count, N);
    CHECK(lf_hashmap_get(&m, 0, &v) && v == val(77));
    CHECK(lf_hashmap_get(&m, 5 * 0x9e3779b97f4a7c15ull, &v) && v == NULL);

    /* Iteration sees each entry once, with its value; clear empties the
     * map and keeps its capacity. */
    size_t seen = 0, it = 0, cap_before = m.cap;
    uint64_t key;
    wrong = 0;
    while (lf_hashmap_next(&m, &it, &key, &v)) {
        void *again = NULL;
        wrong += !lf_hashmap_get(&m, key, &again) || again != v;
        seen++;
    }
    CHECK_EQ_I64(seen, N);
    CHECK_EQ_I64(wrong, 0);
    CHECK_EQ_I64(lf_hashmap_next(&m, &it, NULL, NULL), 0);
    lf_hashmap_clear(&m);
    it = 0;
    CHECK_EQ_I64(m.count, 0);
    CHECK_EQ_I64(m.cap, cap_before);
    CHECK_EQ_I64(lf_hashmap_next(&m, &it, NULL, NULL), 0);
    CHECK_EQ_I64(lf_hashmap_get(&m, 0, NULL), 0);
    CHECK_OK(lf_hashmap_put(&m, 3, val(3)));
    CHECK(lf_hashmap_get(&m, 3, &v) && v == val(3));

    lf_hashmap_destroy(&m);
    lf_hashmap_destroy(&m); /* idempotent */
    CHECK(m.slots == NULL && m.used == NULL && m.cap == 0);

    /* Sequential keys (op ids) in a presized map: no grow needed. */
    CHECK_OK(lf_hashmap_init(&m, 1000));
    size_t cap0 = m.cap;
    for (uint64_t i = 0; i < 1000; i++)
        CHECK_OK(lf_hashmap_put(&m, i, val(i)));
    CHECK_EQ_I64(m.cap, cap0);
    wrong = 0;
    for (uint64_t i = 0; i < 1000; i++)
        wrong += !lf_hashmap_get(&m, i, &v) || v != val(i);
    CHECK_EQ_I64(wrong, 0);
    lf_hashmap_destroy(&m);

    /* A failed init leaves a map that destroy accepts. */
    CHECK_EQ_I64(lf_hashmap_init(&m, SIZE_MAX), LF_ERANGE);
    lf_hashmap_destroy(&m);
}

static void test_strmap(void)
{
    lf_strmap m;
    CHECK_OK(lf_strmap_init(&m, 4));
    char key[32];
    enum { N = 10000 };
    /* The key buffer is reused, so the map must have copied every key. */
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "op_%d", i);
        CHECK_OK(lf_strmap_put(&m, key, val((uint64_t)i)));
    }
    CHECK_OK(lf_strmap_put(&m, "", val(999999)));
    CHECK_EQ_I64(m.count, N + 1);
    CHECK((m.cap & (m.cap - 1)) == 0);
    CHECK(m.count * 10 <= m.cap * 7);

    int wrong = 0;
    void *v = NULL;
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "op_%d", i);
        wrong += !lf_strmap_get(&m, key, &v) || v != val((uint64_t)i);
    }
    CHECK_EQ_I64(wrong, 0);
    CHECK(lf_strmap_get(&m, "", &v) && v == val(999999));
    CHECK_EQ_I64(lf_strmap_get(&m, "op_", NULL), 0);
    CHECK_EQ_I64(lf_strmap_get(&m, "op_10000", NULL), 0);

    CHECK_OK(lf_strmap_put(&m, "op_42", val(1)));
    CHECK_EQ_I64(m.count, N + 1);
    CHECK(lf_strmap_get(&m, "op_42", &v) && v == val(1));

    CHECK_EQ_I64(lf_strmap_put(&m, NULL, NULL), LF_EINVAL);
    lf_strmap_destroy(&m);
    lf_strmap_destroy(&m);

    CHECK_EQ_I64(lf_strmap_init(&m, SIZE_MAX), LF_ERANGE);
    lf_strmap_destroy(&m);
}

/* ---------------------------------------------------------------- bitset */

static void test_bitset(void)
{
    /* 130 bits: three words, the last one partial. */
    lf_bitset a, b;
    CHECK_OK(lf_bitset_init(&a, 130));
    CHECK_EQ_I64(a.nwords, 3);
    CHECK(lf_bitset_is_empty(&a));
    CHECK_EQ_I64(lf_bitset_next(&a, 0), -1);

    const int32_t bits[] = {0, 1, 63, 64, 65, 127, 128, 129};
    const int nb = (int)(sizeof bits / sizeof bits[0]);
    for (int i = 0; i < nb; i++)
        lf_bitset_set(&a, bits[i]);
    CHECK_EQ_I64(lf_bitset_count(&a), nb);
    CHECK(!lf_bitset_is_empty(&a));
    CHECK(lf_bitset_test(&a, 63) && lf_bitset_test(&a, 64) && lf_bitset_test(&a, 129));
    CHECK(!lf_bitset_test(&a, 2) && !lf_bitset_test(&a, 62) && !lf_bitset_test(&a, 126));

    /* next() walks across word boundaries in ascending order. */
    int32_t walk[16], n = 0;
    for (int32_t i = lf_bitset_next(&a, 0); i >= 0 && n < 16; i = lf_bitset_next(&a, i + 1))
        walk[n++] = i;
    CHECK_EQ_I64(n, nb);
    CHECK(memcmp(walk, bits, sizeof bits) == 0);
    CHECK_EQ_I64(lf_bitset_next(&a, 2), 63);
    CHECK_EQ_I64(lf_bitset_next(&a, 66), 127);
    CHECK_EQ_I64(lf_bitset_next(&a, 130), -1);

    int32_t list[130];
    CHECK_EQ_I64(lf_bitset_to_list(&a, list), nb);
    CHECK(memcmp(list, bits, sizeof bits) == 0);

    CHECK_OK(lf_bitset_copy(&b, &a));
    CHECK(lf_bitset_equal(&a, &b));
    CHECK(lf_bitset_hash(&a) == lf_bitset_hash(&b));
    lf_bitset_reset(&b, 64);
    CHECK(!lf_bitset_test(&b, 64) && lf_bitset_test(&b, 63) && lf_bitset_test(&b, 65));
    CHECK_EQ_I64(lf_bitset_count(&b), nb - 1);
    CHECK(!lf_bitset_equal(&a, &b));
    CHECK(lf_bitset_hash(&a) != lf_bitset_hash(&b));

    lf_bitset_or(&b, &a);
    CHECK(lf_bitset_equal(&a, &b));
    lf_bitset_clear_all(&b);
    CHECK(lf_bitset_is_empty(&b));
    lf_bitset_assign(&b, &a);
    CHECK(lf_bitset_equal(&a, &b));

    /* Same words, different sizes: not equal. */
    lf_bitset c;
    CHECK_OK(lf_bitset_init(&c, 131));
    CHECK(!lf_bitset_equal(&a, &c));
    lf_bitset_destroy(&c);

    lf_bitset_destroy(&a);
    lf_bitset_destroy(&b);
    lf_bitset_destroy(&b); /* safe twice */
}

/* ---------------------------------------------------------------- arena */

static void test_arena(void)
{
    lf_arena a;
    lf_arena_init(&a);
    const size_t sizes[] = {1, 3, 17, 0, 100, 5000, 8, 70000, 24};
    int misaligned = 0, nonzero = 0;
    unsigned char *prev[sizeof sizes / sizeof sizes[0]];
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        unsigned char *p = lf_arena_alloc(&a, sizes[k]);
        CHECK(p != NULL);
        if (!p)
            continue;
        misaligned += ((uintptr_t)p % alignof(max_align_t)) != 0;
        for (size_t i = 0; i < sizes[k]; i++)
            nonzero += p[i] != 0;
        memset(p, 0xab, sizes[k]); /* must not spill into the next allocation */
        prev[k] = p;
    }
    CHECK_EQ_I64(misaligned, 0);
    CHECK_EQ_I64(nonzero, 0);
    CHECK(prev[0] != prev[1]);

    /* Many small allocations cross several blocks and stay distinct. */
    int32_t *ints[2000];
    for (int i = 0; i < 2000; i++) {
        ints[i] = lf_arena_alloc(&a, sizeof(int32_t) * 10);
        if (ints[i])
            ints[i][9] = i;
        else
            misaligned++;
    }
    int wrong = 0;
    for (int i = 0; i < 2000; i++)
        wrong += ints[i] && ints[i][9] != i;
    CHECK_EQ_I64(wrong, 0);

    const char *src = "resnet50/layer3/conv2";
    char *s = lf_arena_strdup(&a, src);
    CHECK_STR(s, src);
    CHECK(s != src);
    CHECK_STR(lf_arena_strdup(&a, ""), "");

    lf_arena_destroy(&a);
    lf_arena_destroy(&a); /* safe twice */
}

/* ---------------------------------------------------------------- files */

/* Number of entries in dir other than . and .., or -1. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static void test_atomic_file(void)
{
    char dir[] = "/tmp/lf_test_util_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], path2[256], bad[256];
    snprintf(path, sizeof path, "%s/plan.json", dir);
    snprintf(path2, sizeof path2, "%s/aborted.json", dir);
    snprintf(bad, sizeof bad, "%s/missing/plan.json", dir);

    /* Commit makes the content appear under the final name, and nothing else. */
    lf_atomic_file af;
    CHECK_OK(lf_atomic_open(&af, path));
    CHECK(af.f != NULL);
    fprintf(af.f, "{\"groups\": %d}\n", 3);
    CHECK_EQ_I64(count_entries(dir), 0); /* staged in memory: nothing on disk yet */
    CHECK(access(path, F_OK) != 0);
    CHECK_OK(lf_atomic_commit(&af));
    CHECK(af.f == NULL && af.tmp_path == NULL);
    lf_atomic_abort(&af); /* safe after a commit */

    char *data = NULL;
    long len = -1;
    CHECK_OK(lf_read_file(path, &data, &len));
    CHECK_STR(data, "{\"groups\": 3}\n");
    CHECK_EQ_I64(len, 14);
    free(data);
    CHECK_EQ_I64(count_entries(dir), 1);

    /* Replacing: the old content stays until the commit. */
    CHECK_OK(lf_atomic_open(&af, path));
    fputs("new", af.f);
    CHECK_OK(lf_read_file(path, &data, &len));
    CHECK_STR(data, "{\"groups\": 3}\n");
    free(data);
    CHECK_OK(lf_atomic_commit(&af));
    CHECK_OK(lf_read_file(path, &data, &len));
    CHECK_STR(data, "new");
    CHECK_EQ_I64(len, 3);
    free(data);

    /* Abort leaves neither the file nor a temporary. */
    CHECK_OK(lf_atomic_open(&af, path2));
    fputs("half a plan", af.f);
    lf_atomic_abort(&af);
    lf_atomic_abort(&af); /* safe twice */
    CHECK(access(path2, F_OK) != 0);
    CHECK_EQ_I64(count_entries(dir), 1);

    /* A folder that does not exist: LF_EIO naming the path, nothing created. */
    lf_clear_error();
    CHECK_EQ_I64(lf_atomic_open(&af, bad), LF_EIO);
    CHECK(af.f == NULL && af.tmp_path == NULL && af.final_path == NULL);
    char expect[512];
    snprintf(expect, sizeof expect, "cannot write %s: folder %s/missing does not exist", bad, dir);
    CHECK_STR(lf_last_error(), expect);
    lf_atomic_abort(&af); /* safe after a failed open */
    CHECK_EQ_I64(count_entries(dir), 1);

    /* A folder as the destination is refused at open, before any work. */
    char sub[256];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    CHECK(mkdir(sub, 0700) == 0);
    CHECK_EQ_I64(lf_atomic_open(&af, sub), LF_EIO);
    CHECK(strstr(lf_last_error(), "it is a folder") != NULL);
    CHECK_EQ_I64(lf_output_check(sub), LF_EIO);
    CHECK_EQ_I64(count_entries(dir), 2); /* plan.json and sub, no temporary */
    remove(sub);

    /* lf_read_file: a missing file, an empty file, a file beyond one chunk. */
    lf_clear_error();
    data = (char *)1;
    CHECK_EQ_I64(lf_read_file(bad, &data, &len), LF_EIO);
    CHECK(data == NULL);
    snprintf(expect, sizeof expect, "%s: %s", bad, strerror(ENOENT));
    CHECK_STR(lf_last_error(), expect);

    CHECK_OK(lf_atomic_open(&af, path2));
    CHECK_OK(lf_atomic_commit(&af));
    CHECK_OK(lf_read_file(path2, &data, &len));
    CHECK(data != NULL && data[0] == '\0');
    CHECK_EQ_I64(len, 0);
    free(data);

    enum { BIG = 300007 };
    CHECK_OK(lf_atomic_open(&af, path2));
    for (int i = 0; i < BIG; i++)
        fputc('a' + i % 26, af.f);
    CHECK_OK(lf_atomic_commit(&af));
    CHECK_OK(lf_read_file(path2, &data, &len));
    CHECK_EQ_I64(len, BIG);
    int wrong = 0;
    for (int i = 0; data && i < BIG; i++)
        wrong += data[i] != 'a' + i % 26;
    CHECK_EQ_I64(wrong, 0);
    CHECK(data && data[BIG] == '\0');
    free(data);

    remove(path);
    remove(path2);
    CHECK_EQ_I64(count_entries(dir), 0);
    CHECK(rmdir(dir) == 0);
}


/* Writes text to path through the atomic writer. */
static lf_status write_text(const char *path, const char *text)
{
    lf_atomic_file af;
    lf_status st = lf_atomic_open(&af, path);
    if (st != LF_OK)
        return st;
    fputs(text, af.f);
    return lf_atomic_commit(&af);
}

static char *slurp(const char *path)
{
    char *data = NULL;
    long len;
    return lf_read_file(path, &data, &len) == LF_OK ? data : NULL;
}

/* Issue 18, item 3: special files are written through, links followed,
 * modes kept. */
static void test_atomic_special(void)
{
    char dir[] = "/tmp/lf_test_special_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[300], link[300], fifo[300];
    struct stat st;

    /* A character device stays a device. */
    CHECK_OK(write_text("/dev/null", "discarded"));
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));

    /* Mode 600 survives a replacement. */
    snprintf(path, sizeof path, "%s/plan.json", dir);
    CHECK_OK(write_text(path, "old"));
    CHECK(chmod(path, 0600) == 0);
    CHECK_OK(write_text(path, "new"));
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    char *t = slurp(path);
    CHECK_STR(t, "new");
    free(t);

    /* A symbolic link stays a link; its target gets the content. */
    snprintf(link, sizeof link, "%s/link.json", dir);
    CHECK(symlink("plan.json", link) == 0);
    CHECK_OK(write_text(link, "via link"));
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    t = slurp(path);
    CHECK_STR(t, "via link");
    free(t);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);

    /* A FIFO is written into, not replaced (a reader drains it). */
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    pid_t child = fork();
    if (child == 0) {
        char buf[64] = {0};
        int fd = open(fifo, O_RDONLY);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        _exit(n == 7 && strcmp(buf, "to pipe") == 0 ? 0 : 1);
    }
    CHECK_OK(write_text(fifo, "to pipe"));
    int status = -1;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));

    /* A full device: the reason is "no space left on device", with the name. */
    CHECK_EQ_I64(write_text("/dev/full", "x"), LF_EIO);
    CHECK_STR(lf_last_error(), "cannot write /dev/full: no space left on device");

    /* A write error on a regular file (here a file-size limit, as a full
     * disk would): the old content stays and no temporary is left. */
    struct rlimit old;
    getrlimit(RLIMIT_FSIZE, &old);
    struct rlimit small = {4, old.rlim_max};
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &small);
    lf_status fst = write_text(path, "far more than four bytes");
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);
    CHECK_EQ_I64(fst, LF_EIO);
    CHECK(strstr(lf_last_error(), path) != NULL && strstr(lf_last_error(), "file too large") != NULL);
    t = slurp(path);
    CHECK_STR(t, "via link");
    free(t);
    CHECK_EQ_I64(count_entries(dir), 3); /* plan.json, link.json, pipe */

    remove(fifo);
    remove(link);
    remove(path);
    CHECK(rmdir(dir) == 0);
}

/* Issue 18, items 4 and 10: output sets all or nothing; leftovers cleaned. */
static void test_output_batch(void)
{
    char dir[] = "/tmp/lf_test_batch_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char a[300], b[300], stale[400], live[400];
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);

    /* The second output fails: neither appears. */
    lf_output_batch_begin();
    CHECK_OK(write_text(a, "A"));
    CHECK(access(a, F_OK) != 0); /* staged, not renamed */
    CHECK_EQ_I64(write_text("/dev/full", "B"), LF_OK); /* staged: fails only at commit */
    CHECK_EQ_I64(lf_output_batch_commit(), LF_EIO);
    CHECK(strstr(lf_last_error(), "no space left on device") != NULL);
    CHECK(access(a, F_OK) != 0);
    CHECK_EQ_I64(count_entries(dir), 0);

    /* Both succeed: both appear; an aborted batch leaves nothing. */
    lf_output_batch_begin();
    CHECK_OK(write_text(a, "A"));
    CHECK_OK(write_text(b, "B"));
    CHECK_OK(lf_output_batch_commit());
    CHECK_EQ_I64(count_entries(dir), 2);
    lf_output_batch_begin();
    CHECK_OK(write_text(a, "changed"));
    lf_output_batch_abort();
    char *t = slurp(a);
    CHECK_STR(t, "A");
    free(t);
    CHECK_EQ_I64(count_entries(dir), 2);

    /* A temporary of a dead process is removed by the next write; one of a
     * live process (ours: the parent's pid) is not. */
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    snprintf(stale, sizeof stale, "%s.tmp.%ld.0", a, (long)child);
    snprintf(live, sizeof live, "%s.tmp.%ld.0", a, (long)getppid());
    FILE *f = fopen(stale, "w");
    if (f)
        fclose(f);
    f = fopen(live, "w");
    if (f)
        fclose(f);
    CHECK_OK(write_text(a, "again"));
    CHECK(access(stale, F_OK) != 0);
    CHECK(access(live, F_OK) == 0);
    remove(live);

    /* Pre-flight checks create nothing. */
    char missing[400];
    snprintf(missing, sizeof missing, "%s/nope/x.json", dir);
    CHECK_EQ_I64(lf_output_check(missing), LF_EIO);
    CHECK_OK(lf_output_check(b));
    CHECK_OK(lf_output_check("-"));
    CHECK_EQ_I64(count_entries(dir), 2);
    remove(a);
    remove(b);
    CHECK(rmdir(dir) == 0);
}

/* Issue 18, item 6: capped reads stop at the cap, even on endless input. */
static void test_capped_read(void)
{
    char *data = NULL;
    long len = 0;
    CHECK_EQ_I64(lf_read_file_capped("/dev/zero", 1 << 20, "test file", &data, &len), LF_ERANGE);
    CHECK(data == NULL);
    CHECK(strstr(lf_last_error(), "larger than the 1 MiB a test file may have") != NULL);
    char path[] = "/tmp/lf_test_cap_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    char block[1024] = {0};
    for (int i = 0; fd >= 0 && i < 1024; i++)
        CHECK(write(fd, block, sizeof block) == (ssize_t)sizeof block);
    if (fd >= 0)
        close(fd);
    CHECK_OK(lf_read_file_capped(path, 1 << 20, "test file", &data, &len)); /* exactly the cap */
    CHECK_EQ_I64(len, 1 << 20);
    free(data);
    CHECK_EQ_I64(lf_read_file_capped(path, (1 << 20) - 1, "test file", &data, &len), LF_ERANGE);
    CHECK(strstr(lf_last_error(), "1048576 bytes") != NULL);
    remove(path);
}

/* ---------------------------------------------------------------- progress */

/* Runs fn with stderr sent to a fresh file and returns what it wrote
 * (malloc'd), so the test can see exactly what a user would. */
static char *capture_stderr(void (*fn)(void))
{
    char tmpl[] = "/tmp/lf_test_util_err_XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return NULL;
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    fn();
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(fd);
    char *data = NULL;
    long len = 0;
    if (lf_read_file(tmpl, &data, &len) != LF_OK)
        data = NULL;
    remove(tmpl);
    return data;
}

static lf_progress g_progress;

static void run_progress_quiet(void)
{
    lf_progress_start(&g_progress, "search", 100, 1);
    for (int i = 0; i <= 100; i++)
        lf_progress_update(&g_progress, i, "best 1.23 ms");
    lf_progress_finish(&g_progress);
}

static void run_progress_not_a_tty(void)
{
    /* quiet = 0, but stderr is a file, so nothing may be drawn either. */
    lf_progress_start(&g_progress, "search", 100, 0);
    for (int i = 0; i <= 100; i++)
        lf_progress_update(&g_progress, i, NULL);
    lf_progress_finish(&g_progress);
}

static void run_progress_forced(void)
{
    /* Enabled by hand to check the drawing itself and the rate limit. */
    lf_progress_start(&g_progress, "search", 10, 0);
    g_progress.enabled = 1;
    lf_progress_update(&g_progress, 5, "best 1.23 ms");
    lf_progress_update(&g_progress, 6, NULL); /* within 100 ms: skipped */
    lf_progress_update(&g_progress, 10, NULL); /* complete: always drawn */
    lf_progress_finish(&g_progress);
    lf_progress_finish(&g_progress); /* second finish is silent */
}

static void test_progress(void)
{
    double t0 = lf_now_seconds();
    double t1 = lf_now_seconds();
    CHECK(t0 > 0.0);
    CHECK(t1 >= t0);

    char *out = capture_stderr(run_progress_quiet);
    CHECK_STR(out, "");
    CHECK_EQ_I64(g_progress.enabled, 0);
    CHECK_EQ_I64(g_progress.done, 100);
    free(out);

    out = capture_stderr(run_progress_not_a_tty);
    CHECK_STR(out, "");
    CHECK_EQ_I64(g_progress.enabled, 0);
    free(out);

    out = capture_stderr(run_progress_forced);
    CHECK(out != NULL);
    if (out) {
        CHECK(strstr(out, "\rsearch [") != NULL);
        CHECK(strstr(out, " 50% 5/10 ") != NULL);
        CHECK(strstr(out, "best 1.23 ms") != NULL);
        CHECK(strstr(out, "6/10") == NULL);
        CHECK(strstr(out, "100% 10/10 ") != NULL);
        CHECK(strstr(out, "[########################]") != NULL);
        size_t n = strlen(out);
        /* Ends with exactly one line-clearing sequence from finish. */
        CHECK(n >= 4 && strcmp(out + n - 4, "\r\033[K") == 0);
        CHECK(n < 8 || strcmp(out + n - 8, "\r\033[K\r\033[K") != 0);
        CHECK(strchr(out, '\n') == NULL);
    }
    free(out);
}

int main(void)
{
    test_rng_reference_vectors();
    test_rng_determinism_and_streams();
    test_rng_below();
    test_rng_float();
    test_rng_shuffle();
    test_hash_functions();
    test_hashmap();
    test_strmap();
    test_bitset();
    test_arena();
    test_atomic_file();
    test_atomic_special();
    test_output_batch();
    test_capped_read();
    test_progress();
    return lf_test_result();
}
