/* How many threads a kernel uses, and the loop that shares a kernel's
 * independent pieces among them.
 *
 * The kernels run on the project's worker pool (planner/util/pool.h), not on
 * OpenMP: the pool's helpers sleep on a condition variable, so a thread that
 * waits never burns the core a co-runner needs (libgomp spins at its
 * barriers unless OMP_WAIT_POLICY=passive is set before the program starts,
 * which a library cannot do: `--threads 2` was 4-6x slower than one thread
 * beside a CPU-bound process). Pieces are claimed one at a time, so a helper
 * the scheduler parks simply claims fewer.
 *
 * One pool per thread count, made on first use and kept for the process.
 * A pool serves one caller at a time: a second caller (a search worker that
 * evaluates a graph while another does) runs its loop on its own thread,
 * which changes nothing in the results, since every kernel computes each
 * output element in one fixed order whoever computes it. */
#include <pthread.h>

#include "planner/exec/kernels.h"
#include "planner/util/pool.h"

/* Below this many scalar operations a parallel region costs more than it
 * saves: waking a sleeping helper and handing it a piece takes about 20-50 us
 * here, the time of ~1e5 multiply-adds. The choice only moves work between
 * threads, never changes results. */
#define LF__GRAIN 65536
/* Pieces per thread: small enough that a parked helper holds up little. */
#define LF__PIECES_PER_THREAD 8
#define LF__MAX_POOLS 64

int lf__threads_for(int64_t work, int nt)
{
    if (nt <= 1 || work < 2 * LF__GRAIN)
        return 1;
    int64_t most = work / LF__GRAIN;
    return most < nt ? (int)most : nt;
}

static pthread_mutex_t lf__pools_lock = PTHREAD_MUTEX_INITIALIZER;
static lf_pool *lf__pools[LF__MAX_POOLS + 1];
static int lf__pool_busy[LF__MAX_POOLS + 1];
static int lf__pool_failed[LF__MAX_POOLS + 1];

/* The pool for nt threads, marked busy; NULL when it is in use or cannot be
 * made (then the caller runs alone). */
static lf_pool *lf__take_pool(int nt)
{
    lf_pool *p = NULL;
    pthread_mutex_lock(&lf__pools_lock);
    if (!lf__pool_busy[nt] && !lf__pool_failed[nt]) {
        if (!lf__pools[nt]) {
            if (lf_pool_create(&lf__pools[nt], nt) == LF_OK)
                lf_pool_set_min_parallel(lf__pools[nt], 0.0); /* lf__threads_for decides */
            else {
                lf__pools[nt] = NULL;
                lf__pool_failed[nt] = 1;
            }
        }
        p = lf__pools[nt];
        if (p)
            lf__pool_busy[nt] = 1;
    }
    pthread_mutex_unlock(&lf__pools_lock);
    return p;
}

static void lf__give_pool(int nt)
{
    pthread_mutex_lock(&lf__pools_lock);
    lf__pool_busy[nt] = 0;
    pthread_mutex_unlock(&lf__pools_lock);
}

typedef struct lf__par_ctx {
    int64_t n, pieces;
    lf__range_fn fn;
    void *ctx;
    int64_t piece[LF__MAX_POOLS]; /* per worker: the piece it claimed */
} lf__par_ctx;

static void lf__par_claim(void *ctx, int32_t item, int32_t w)
{
    ((lf__par_ctx *)ctx)->piece[w] = item;
}

static void lf__par_run(void *ctx, int32_t w)
{
    lf__par_ctx *c = ctx;
    int64_t i = c->piece[w];
    c->fn(c->ctx, c->n * i / c->pieces, c->n * (i + 1) / c->pieces);
}

void lf__parallel(int64_t n, int nt, lf__range_fn fn, void *ctx)
{
    if (n <= 0)
        return;
    if (nt > LF__MAX_POOLS)
        nt = LF__MAX_POOLS;
    lf_pool *p = nt > 1 && n > 1 ? lf__take_pool(nt) : NULL;
    if (!p) {
        fn(ctx, 0, n);
        return;
    }
    lf__par_ctx c = {.n = n, .fn = fn, .ctx = ctx};
    c.pieces = (int64_t)nt * LF__PIECES_PER_THREAD;
    if (c.pieces > n)
        c.pieces = n;
    lf_pool_job job = {.ctx = &c, .claim = lf__par_claim, .run = lf__par_run, .keep = NULL};
    if (lf_pool_run(p, (int32_t)c.pieces, &job) != LF_OK)
        fn(ctx, 0, n); /* out of memory for the batch: the same results, alone */
    lf__give_pool(nt);
}
