/* Unit tests for planner/util's threading helpers: the busy clock (wall time
 * inside a region, union over threads), the worker pool (every item once,
 * serial below the batch threshold, a parked worker's item recomputed) and
 * the stash of scratch objects (never one object in two hands). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "planner/util/busy_clock.h"
#include "planner/util/pool.h"
#include "planner/util/clock.h"
#include "planner/util/stash.h"
#include "tests/testlib.h"

/* Overlapping intervals count once: the clock measures the union, so two
 * "threads" inside at the same time add no more than the elapsed time. */
static void lf__sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void test_busy_clock(void)
{
    lf_busy_clock c;
    CHECK_OK(lf_busy_clock_init(&c));
    CHECK(lf_busy_clock_seconds(&c) == 0.0);
    double t0 = lf_now_seconds();
    lf_busy_clock_enter(&c);
    lf_busy_clock_enter(&c);
    lf__sleep_ms(20);
    lf_busy_clock_leave(&c);
    lf__sleep_ms(20);
    lf_busy_clock_leave(&c);
    double outer = lf_now_seconds() - t0, busy = lf_busy_clock_seconds(&c);
    CHECK(busy >= 0.039);   /* both sleeps were inside */
    CHECK(busy <= outer);   /* a sum over the two would be about 0.06 */
    CHECK(busy < 0.06 || outer >= 0.06);
    lf__sleep_ms(5);           /* outside: not counted */
    CHECK(lf_busy_clock_seconds(&c) == busy);
    lf_busy_clock_leave(&c); /* an unmatched leave is ignored */
    CHECK(lf_busy_clock_seconds(&c) == busy);
    lf_busy_clock_reset(&c);
    CHECK(lf_busy_clock_seconds(&c) == 0.0);
    lf_busy_clock_destroy(&c);
}

/* Pool test job: item i's result is a pure function of i, computed into
 * the worker's slot and kept into out[i]. Helpers (never the caller) sleep
 * inside their first item when `park` is set, as a thread descheduled
 * behind a co-runner would sit. */
typedef struct lf__pool_test {
    int64_t mine[8];      /* per worker: the claimed item */
    int64_t result[8];    /* per worker */
    int64_t out[4096];
    int32_t kept[4096];
    int park;
    _Atomic int parked;   /* a helper is asleep inside an item */
} lf__pool_test;

static void lf__pt_claim(void *ctx, int32_t item, int32_t w)
{
    lf__pool_test *t = ctx;
    t->mine[w] = item;
}

static void lf__pt_run(void *ctx, int32_t w)
{
    lf__pool_test *t = ctx;
    int expected = 0;
    if (t->park && w != 0 && atomic_compare_exchange_strong(&t->parked, &expected, 1))
        lf__sleep_ms(1000);
    uint64_t x = (uint64_t)t->mine[w];
    for (int k = 0; k < 100; k++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    t->result[w] = (int64_t)(x >> 1);
}

static void lf__pt_run_store(void *ctx, int32_t w)
{
    lf__pool_test *t = ctx;
    lf__pt_run(ctx, w);
    t->out[t->mine[w]] = t->result[w];
    t->kept[t->mine[w]]++;
}

static void lf__pt_keep(void *ctx, int32_t item, int32_t w)
{
    lf__pool_test *t = ctx;
    t->out[item] = t->result[w];
    t->kept[item]++;
}

static int64_t lf__pt_expect(int64_t i)
{
    uint64_t x = (uint64_t)i;
    for (int k = 0; k < 100; k++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int64_t)(x >> 1);
}

static void test_pool(void)
{
    static lf__pool_test t;
    for (int32_t threads = 1; threads <= 4; threads++) {
        for (int keep = 0; keep < 2; keep++) {
            lf_pool *p = NULL;
            CHECK_OK(lf_pool_create(&p, threads));
            CHECK(lf_pool_threads(p) == threads);
            lf_pool_set_min_parallel(p, 0.0); /* always parallel after the first batch */
            memset(&t, 0, sizeof t);
            lf_pool_job job = {&t, lf__pt_claim, keep ? lf__pt_run : lf__pt_run_store,
                               keep ? lf__pt_keep : NULL};
            int ok = 1;
            for (int32_t b = 0; b < 50; b++) {
                int32_t n = 1 + (b * 37) % 300;
                memset(t.kept, 0, sizeof t.kept);
                CHECK_OK(lf_pool_run(p, n, &job));
                for (int32_t i = 0; i < n; i++)
                    ok &= t.out[i] == lf__pt_expect(i) && t.kept[i] == 1;
            }
            CHECK(ok); /* every item exactly once, whatever the thread count */
            lf_pool_stats ps;
            lf_pool_get_stats(p, &ps);
            CHECK(ps.batches == 50);
            CHECK(threads > 1 || ps.parallel_batches == 0);
            CHECK(threads == 1 || ps.parallel_batches >= 40); /* n == 1 batches stay serial */
            CHECK(keep || ps.redundant == 0); /* without keep no item runs twice */
            lf_pool_free(p);
        }
    }
    /* Tiny items stay on the caller under the default threshold. */
    {
        lf_pool *p = NULL;
        CHECK_OK(lf_pool_create(&p, 2));
        memset(&t, 0, sizeof t);
        lf_pool_job job = {&t, lf__pt_claim, lf__pt_run, lf__pt_keep};
        for (int32_t b = 0; b < 20; b++)
            CHECK_OK(lf_pool_run(p, 10, &job));
        lf_pool_stats ps;
        lf_pool_get_stats(p, &ps);
        CHECK(ps.parallel_batches == 0);
        CHECK(ps.item_s > 0.0 && ps.item_s < LF_POOL_MIN_PARALLEL_S / 10);
        lf_pool_free(p);
    }
    /* A parked helper holds an item: the caller recomputes it instead of
     * waiting, the late attempt is thrown away, results stay exact. */
    {
        lf_pool *p = NULL;
        CHECK_OK(lf_pool_create(&p, 2));
        lf_pool_set_min_parallel(p, 0.0);
        memset(&t, 0, sizeof t);
        t.park = 1;
        lf_pool_job job = {&t, lf__pt_claim, lf__pt_run, lf__pt_keep};
        CHECK_OK(lf_pool_run(p, 4, &job)); /* serial: measures */
        double longest = 0.0;
        int ok = 1;
        for (int32_t b = 0; b < 200 && !atomic_load(&t.parked); b++) {
            memset(t.kept, 0, sizeof t.kept);
            double t0 = lf_now_seconds();
            CHECK_OK(lf_pool_run(p, 64, &job));
            double dt = lf_now_seconds() - t0;
            longest = dt > longest ? dt : longest;
            for (int32_t i = 0; i < 64; i++)
                ok &= t.out[i] == lf__pt_expect(i) && t.kept[i] == 1;
        }
        CHECK(ok);
        CHECK(atomic_load(&t.parked));
        CHECK(longest < 0.9); /* never waited out the helper's 1 s sleep */
        lf_pool_quiesce(p);
        lf_pool_stats ps;
        lf_pool_get_stats(p, &ps);
        /* How many items were recomputed depends on when the helper parks
         * (inside an item or before claiming one), which the scheduler decides:
         * on an idle machine it was 0 in every run, under load 1. What must hold
         * is above: exact results and no wait for the parked helper. */
        CHECK(ps.redundant >= 0 && ps.redundant <= 200 * 64);
        lf_pool_free(p);
    }
}

/* Stash test: every pool item takes a scratch object (or makes one), marks
 * it busy, works a little and gives it back. */
typedef struct lf__stash_obj {
    _Atomic int busy;
    int64_t uses;
} lf__stash_obj;

typedef struct lf__stash_test {
    lf_stash stash;
    _Atomic int made, clashes;
    int64_t sum[8];
} lf__stash_test;

static _Atomic int lf__stash_destroyed;

static void lf__stash_obj_free(void *item)
{
    atomic_fetch_add(&lf__stash_destroyed, 1);
    free(item);
}

static void lf__st_claim(void *ctx, int32_t item, int32_t worker)
{
    lf__stash_test *t = ctx;
    t->sum[worker] = item;
}

static void lf__st_run(void *ctx, int32_t worker)
{
    lf__stash_test *t = ctx;
    lf__stash_obj *o = lf_stash_take(&t->stash);
    if (!o) {
        o = calloc(1, sizeof *o);
        if (!o)
            return;
        atomic_fetch_add(&t->made, 1);
    }
    if (atomic_exchange(&o->busy, 1))
        atomic_fetch_add(&t->clashes, 1);
    o->uses++;
    if (t->sum[worker] % 7 == 0)
        lf__sleep_ms(1);
    atomic_store(&o->busy, 0);
    lf_stash_give(&t->stash, o);
}

static void lf__st_keep(void *ctx, int32_t item, int32_t worker)
{
    (void)ctx;
    (void)item;
    (void)worker;
}

static void test_stash(void)
{
    lf_stash s;
    CHECK_OK(lf_stash_init(&s, lf__stash_obj_free, "a test stash"));
    CHECK(lf_stash_take(&s) == NULL);
    lf__stash_obj *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    lf_stash_give(&s, a);
    lf_stash_give(&s, b);
    lf_stash_give(&s, NULL);
    CHECK(lf_stash_take(&s) == b); /* last in, first out */
    lf_stash_give(&s, b);
    atomic_store(&lf__stash_destroyed, 0);
    lf_stash_destroy(&s);
    CHECK(atomic_load(&lf__stash_destroyed) == 2);
    for (int threads = 1; threads <= 4; threads *= 2) {
        lf__stash_test t;
        memset(&t, 0, sizeof t);
        CHECK_OK(lf_stash_init(&t.stash, lf__stash_obj_free, "a test stash"));
        lf_pool *p = NULL;
        CHECK_OK(lf_pool_create(&p, threads));
        if (!p)
            continue;
        lf_pool_set_min_parallel(p, 0.0);
        lf_pool_job job = {&t, lf__st_claim, lf__st_run, lf__st_keep};
        for (int batch = 0; batch < 20; batch++)
            CHECK_OK(lf_pool_run(p, 64, &job));
        lf_pool_free(p);
        CHECK(atomic_load(&t.clashes) == 0);
        /* At most one object per thread that ran at once. */
        CHECK(atomic_load(&t.made) >= 1 && atomic_load(&t.made) <= threads);
        atomic_store(&lf__stash_destroyed, 0);
        lf_stash_destroy(&t.stash);
        CHECK(atomic_load(&lf__stash_destroyed) == atomic_load(&t.made));
    }
}

int main(void)
{
    test_busy_clock();
    test_pool();
    test_stash();
    return lf_test_result();
}
