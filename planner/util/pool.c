/* The persistent worker pool (contract: pool.h). One mutex guards the batch
 * state; workers wait on condition variables with short timeouts only while
 * a batch they could help with is open. */
#include "planner/util/pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "planner/util/clock.h"

/* How often an idle worker of an open batch looks for a parked owner. */
#define LF__POLL_S 0.0001
/* An item is recomputed when its owner got less than this share of the CPU
 * since it started it, after at least LF__STEAL_MIN_S and twice the mean
 * item time. */
#define LF__PARKED_SHARE 0.7
#define LF__STEAL_MIN_S 0.00005

enum { LF__FREE = 0, LF__RUNNING = 1, LF__DONE = 2 };

struct lf_pool {
    int32_t nthreads;
    pthread_t *threads;       /* helpers 1 .. nthreads-1 */
    int32_t started;          /* helper threads created */
    clockid_t *cpu_clock;     /* per worker; [0] is the current caller's */
    int *has_cpu_clock;
    pthread_mutex_t lock;
    pthread_cond_t work_cv;   /* helpers: a batch opened, or quit */
    pthread_cond_t done_cv;   /* an attempt finished */
    int quit;
    uint64_t gen;             /* batch number */
    int active;               /* a parallel batch is open */
    lf_pool_job job;
    int32_t n, next, n_done, cap;
    uint8_t *state, *attempts;
    int32_t *owner;
    double *t_wall, *t_cpu;   /* first attempt's start: wall clock, owner's CPU clock */
    int32_t running;          /* attempts in progress, thrown-away ones included */
    double ema;               /* seconds per item */
    int have_ema;
    double min_parallel;
    lf_pool_stats st;
};

typedef struct lf__helper_arg {
    lf_pool *p;
    int32_t w;
} lf__helper_arg;

static double lf__cpu_now(const lf_pool *p, int32_t w)
{
    struct timespec ts;
    if (!p->has_cpu_clock[w] || clock_gettime(p->cpu_clock[w], &ts) != 0)
        return -1.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds of the calling thread: item costs are measured in CPU time so
 * that a batch the scheduler interrupted does not look expensive. */
static double lf__self_cpu(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return lf_now_seconds();
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void lf__timed_wait(lf_pool *p, double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long ns = ts.tv_nsec + (long)(seconds * 1e9);
    ts.tv_sec += ns / 1000000000L;
    ts.tv_nsec = ns % 1000000000L;
    pthread_cond_timedwait(&p->done_cv, &p->lock, &ts);
}

static void lf__note_time(lf_pool *p, double dt)
{
    p->ema = p->have_ema ? 0.8 * p->ema + 0.2 * dt : dt;
    p->have_ema = 1;
}

/* An item another worker started and the scheduler has parked; -1 if none. */
static int32_t lf__parked_item(lf_pool *p, int32_t w)
{
    double now = lf_now_seconds(), wait = 2.0 * p->ema;
    if (wait < LF__STEAL_MIN_S)
        wait = LF__STEAL_MIN_S;
    for (int32_t i = 0; i < p->n; i++) {
        if (p->state[i] != LF__RUNNING || p->attempts[i] >= 2 || p->owner[i] == w)
            continue;
        double elapsed = now - p->t_wall[i];
        if (elapsed < wait)
            continue;
        double cpu = lf__cpu_now(p, p->owner[i]);
        if (cpu < 0.0 || p->t_cpu[i] < 0.0)
            continue;
        if (cpu - p->t_cpu[i] < LF__PARKED_SHARE * elapsed)
            return i;
    }
    return -1;
}

/* Works on batch `gen` until it is complete. Lock held on entry and exit. */
static void lf__participate(lf_pool *p, int32_t w, uint64_t gen)
{
    while (p->active && p->gen == gen && p->n_done < p->n) {
        int32_t i = -1, first = 0;
        if (p->next < p->n) {
            i = p->next++;
            first = 1;
            p->state[i] = LF__RUNNING;
            p->attempts[i] = 1;
            p->owner[i] = w;
            p->t_wall[i] = lf_now_seconds();
            p->t_cpu[i] = lf__cpu_now(p, w);
        } else if (p->job.keep) {
            i = lf__parked_item(p, w);
            if (i >= 0)
                p->attempts[i]++;
        }
        if (i < 0) {
            lf__timed_wait(p, LF__POLL_S);
            continue;
        }
        lf_pool_job job = p->job;
        job.claim(job.ctx, i, w);
        p->running++;
        pthread_mutex_unlock(&p->lock);
        double t0 = lf__self_cpu();
        job.run(job.ctx, w);
        double dt = lf__self_cpu() - t0;
        pthread_mutex_lock(&p->lock);
        p->running--;
        if (p->active && p->gen == gen && p->state[i] != LF__DONE) {
            p->state[i] = LF__DONE;
            p->n_done++;
            if (job.keep)
                job.keep(job.ctx, i, w);
            if (first)
                lf__note_time(p, dt);
        } else {
            p->st.redundant++;
        }
        pthread_cond_broadcast(&p->done_cv);
    }
}

static void *lf__helper_main(void *arg)
{
    lf__helper_arg a = *(lf__helper_arg *)arg;
    free(arg);
    lf_pool *p = a.p;
    pthread_mutex_lock(&p->lock);
    uint64_t seen = p->gen;
    while (!p->quit) {
        if (p->active && p->gen != seen) {
            seen = p->gen;
            lf__participate(p, a.w, seen);
            continue;
        }
        pthread_cond_wait(&p->work_cv, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int32_t lf_pool_default_threads(int32_t requested)
{
    if (requested > 0)
        return requested;
    int32_t n = 1;
#ifdef _OPENMP
    n = omp_get_max_threads(); /* honours OMP_NUM_THREADS */
#else
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    n = c > 0 ? (int32_t)c : 1;
#endif
    return n < 1 ? 1 : n;
}

lf_status lf_pool_create(lf_pool **out, int32_t nthreads)
{
    *out = NULL;
    if (nthreads < 1)
        nthreads = 1;
    lf_pool *p = calloc(1, sizeof *p);
    if (!p)
        return lf_set_error(LF_ENOMEM, "out of memory for a thread pool");
    p->nthreads = nthreads;
    p->min_parallel = LF_POOL_MIN_PARALLEL_S;
    p->threads = calloc((size_t)nthreads, sizeof *p->threads);
    p->cpu_clock = calloc((size_t)nthreads, sizeof *p->cpu_clock);
    p->has_cpu_clock = calloc((size_t)nthreads, sizeof *p->has_cpu_clock);
    pthread_condattr_t ca;
    int ok = p->threads && p->cpu_clock && p->has_cpu_clock && pthread_condattr_init(&ca) == 0;
    if (ok) {
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        ok = pthread_mutex_init(&p->lock, NULL) == 0;
        if (ok && pthread_cond_init(&p->work_cv, &ca) != 0) {
            pthread_mutex_destroy(&p->lock);
            ok = 0;
        }
        if (ok && pthread_cond_init(&p->done_cv, &ca) != 0) {
            pthread_cond_destroy(&p->work_cv);
            pthread_mutex_destroy(&p->lock);
            ok = 0;
        }
        pthread_condattr_destroy(&ca);
    }
    if (!ok) {
        free(p->threads);
        free(p->cpu_clock);
        free(p->has_cpu_clock);
        free(p);
        return lf_set_error(LF_ENOMEM, "cannot create a thread pool of %d threads", (int)nthreads);
    }
    for (int32_t w = 1; w < nthreads; w++) {
        lf__helper_arg *a = malloc(sizeof *a);
        if (a) {
            a->p = p;
            a->w = w;
        }
        if (!a || pthread_create(&p->threads[w], NULL, lf__helper_main, a) != 0) {
            free(a);
            lf_pool_free(p);
            return lf_set_error(LF_ENOMEM, "cannot start thread %d of a pool of %d", (int)w,
                                (int)nthreads);
        }
        p->started = w;
        p->has_cpu_clock[w] = pthread_getcpuclockid(p->threads[w], &p->cpu_clock[w]) == 0;
    }
    *out = p;
    return LF_OK;
}

void lf_pool_quiesce(lf_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    while (p->running > 0)
        lf__timed_wait(p, 0.01);
    pthread_mutex_unlock(&p->lock);
}

void lf_pool_free(lf_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->lock);
    for (int32_t w = 1; w <= p->started; w++)
        pthread_join(p->threads[w], NULL);
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->done_cv);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p->cpu_clock);
    free(p->has_cpu_clock);
    free(p->state);
    free(p->attempts);
    free(p->owner);
    free(p->t_wall);
    free(p->t_cpu);
    free(p);
}

int32_t lf_pool_threads(const lf_pool *p) { return p ? p->nthreads : 1; }

void lf_pool_set_min_parallel(lf_pool *p, double seconds)
{
    pthread_mutex_lock(&p->lock);
    p->min_parallel = seconds;
    pthread_mutex_unlock(&p->lock);
}

void lf_pool_get_stats(lf_pool *p, lf_pool_stats *out)
{
    pthread_mutex_lock(&p->lock);
    *out = p->st;
    out->item_s = p->ema;
    pthread_mutex_unlock(&p->lock);
}

static lf_status lf__reserve(lf_pool *p, int32_t n)
{
    if (n <= p->cap)
        return LF_OK;
    free(p->state);
    free(p->attempts);
    free(p->owner);
    free(p->t_wall);
    free(p->t_cpu);
    p->state = malloc((size_t)n);
    p->attempts = malloc((size_t)n);
    p->owner = malloc((size_t)n * sizeof *p->owner);
    p->t_wall = malloc((size_t)n * sizeof *p->t_wall);
    p->t_cpu = malloc((size_t)n * sizeof *p->t_cpu);
    if (!p->state || !p->attempts || !p->owner || !p->t_wall || !p->t_cpu) {
        p->cap = 0;
        return lf_set_error(LF_ENOMEM, "out of memory for a batch of %d items", (int)n);
    }
    p->cap = n;
    return LF_OK;
}

lf_status lf_pool_run(lf_pool *p, int32_t n, const lf_pool_job *job)
{
    if (n <= 0)
        return LF_OK;
    pthread_mutex_lock(&p->lock);
    p->st.batches++;
    p->st.items += n;
    int parallel = p->nthreads > 1 && n > 1 && p->have_ema &&
                   (p->min_parallel <= 0.0 || (double)n * p->ema >= p->min_parallel);
    if (!parallel) {
        pthread_mutex_unlock(&p->lock);
        /* On the caller alone, timed to decide about the next batches. */
        double t0 = lf__self_cpu();
        for (int32_t i = 0; i < n; i++) {
            job->claim(job->ctx, i, 0);
            job->run(job->ctx, 0);
            if (job->keep)
                job->keep(job->ctx, i, 0);
        }
        double per_item = (lf__self_cpu() - t0) / (double)n;
        pthread_mutex_lock(&p->lock);
        lf__note_time(p, per_item);
        pthread_mutex_unlock(&p->lock);
        return LF_OK;
    }
    lf_status st = lf__reserve(p, n);
    if (st != LF_OK) {
        pthread_mutex_unlock(&p->lock);
        return st;
    }
    p->st.parallel_batches++;
    memset(p->state, LF__FREE, (size_t)n);
    memset(p->attempts, 0, (size_t)n);
    p->has_cpu_clock[0] = pthread_getcpuclockid(pthread_self(), &p->cpu_clock[0]) == 0;
    p->job = *job;
    p->n = n;
    p->next = 0;
    p->n_done = 0;
    p->gen++;
    p->active = 1;
    pthread_cond_broadcast(&p->work_cv);
    lf__participate(p, 0, p->gen);
    p->active = 0;
    pthread_mutex_unlock(&p->lock);
    return LF_OK;
}
