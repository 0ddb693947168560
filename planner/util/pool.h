/* A persistent pool of worker threads for batches of independent items
 * (the plans of a search step, the samples of a training batch), built so
 * that T threads are never much slower than one, even when another process
 * keeps a core busy:
 *
 *  - workers sleep on a condition variable between batches and while they
 *    wait (passive waiting: no spinning barrier that burns the core a
 *    co-runner needs, or that a descheduled thread keeps everyone waiting at);
 *  - the calling thread is worker 0 and works too; helpers claim items one
 *    at a time, so a helper that wakes late simply claims fewer;
 *  - a batch runs on the caller alone unless its measured cost (items times
 *    the running mean CPU seconds per item) reaches a threshold: small batches
 *    never pay for waking threads. The first batch is always serial, to
 *    measure;
 *  - with a `keep` callback (items that may be computed twice), an idle
 *    worker recomputes an item whose owner has been descheduled (its thread
 *    got less than 70% of the CPU time since it started the item) and the
 *    first finished attempt wins, so nobody waits for a thread the scheduler
 *    parked behind a co-runner. The late attempt finishes in the background
 *    and is thrown away.
 *
 * Results must be a pure function of the item (any attempt by any worker
 * gives the same), which is what keeps callers deterministic.
 *
 * Callbacks:
 *   claim(ctx, item, w)  under the pool's lock: copy what `item` needs into
 *                        worker w's private space. Keep it short.
 *   run(ctx, w)          no lock: compute w's claimed item using only w's
 *                        private space and thread-safe shared state. With
 *                        `keep`, a thrown-away attempt may still be running
 *                        after lf_pool_run returned, so what it touches must
 *                        stay valid until lf_pool_quiesce (or lf_pool_free).
 *   keep(ctx, item, w)   under the lock, for the first finished attempt of
 *                        each item: move w's result into the item's slot.
 *                        NULL: no item is ever computed twice, and run must
 *                        store its result itself.
 * Without OpenMP-style nesting: lf_pool_run must not be called from inside
 * a callback. One caller at a time. */
#ifndef LF_POOL_H
#define LF_POOL_H

#include <stdint.h>

#include "planner/status.h"

typedef struct lf_pool lf_pool;

typedef struct lf_pool_job {
    void *ctx;
    void (*claim)(void *ctx, int32_t item, int32_t worker);
    void (*run)(void *ctx, int32_t worker);
    void (*keep)(void *ctx, int32_t item, int32_t worker);
} lf_pool_job;

typedef struct lf_pool_stats {
    int64_t batches;          /* lf_pool_run calls with at least one item */
    int64_t parallel_batches; /* of which handed to the helpers too */
    int64_t items;
    int64_t redundant;        /* attempts thrown away (an item recomputed for a parked worker) */
    double item_s;            /* running mean seconds per item */
} lf_pool_stats;

/* Default threshold: a batch goes parallel when items x mean item time
 * reaches this many seconds. */
#define LF_POOL_MIN_PARALLEL_S 0.0005

/* The thread count for a request: `requested` when > 0, else OMP_NUM_THREADS
 * where OpenMP is built in, else the cores online. */
int32_t lf_pool_default_threads(int32_t requested);

/* nthreads >= 1 workers including the caller (nthreads - 1 helper threads). */
lf_status lf_pool_create(lf_pool **out, int32_t nthreads);
void lf_pool_free(lf_pool *p); /* quiesces first; NULL is fine */
int32_t lf_pool_threads(const lf_pool *p);
/* seconds <= 0: always parallel (tests); the default is LF_POOL_MIN_PARALLEL_S. */
void lf_pool_set_min_parallel(lf_pool *p, double seconds);
/* Runs items 0 .. n-1; returns when every item has been kept (or run). */
lf_status lf_pool_run(lf_pool *p, int32_t n, const lf_pool_job *job);
/* Waits until no thrown-away attempt is still running. */
void lf_pool_quiesce(lf_pool *p);
void lf_pool_get_stats(lf_pool *p, lf_pool_stats *out);

#endif
