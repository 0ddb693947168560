/* The GPU profiler: op times measured with CUDA events and kept in the
 * device-keyed cache, and the latency of a stage of concurrent op groups on
 * CUDA streams (built only with LF_HAVE_CUDA; DESIGN §12). */
#include <stdlib.h>
#include <string.h>

#include "planner/gpu/device.h"
#include "planner/gpu/opcost.h"
#include "planner/gpu/oprun_internal.h"

#define LF__WORKSPACE_MAX ((size_t)256 << 20)

#define LF__CU(call, what)                                                                        \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess)                                                                    \
            return lf_set_error(LF_EIO, "GPU %s failed: %s", what, cudaGetErrorString(e_));       \
    } while (0)

void lf_gpu_profiler_free(lf_gpu_profiler *p)
{
    if (!p)
        return;
    cudaSetDevice(p->device);
    if (p->start)
        cudaEventDestroy(p->start);
    if (p->stop)
        cudaEventDestroy(p->stop);
    if (p->stream)
        cudaStreamDestroy(p->stream);
    if (p->ctx.workspace)
        cudaFree(p->ctx.workspace);
    if (p->ctx.blas)
        p->ctx.cublas.destroy(p->ctx.blas);
    lf__cublas_close(&p->ctx.cublas);
    if (p->ctx.dnn)
        cudnnDestroy(p->ctx.dnn);
    if (p->ctx.conv_algos) {
        for (size_t i = 0; i < p->ctx.conv_algos->cap; i++)
            if (p->ctx.conv_algos->keys[i])
                free(p->ctx.conv_algos->values[i]);
        lf_strmap_destroy(p->ctx.conv_algos);
        free(p->ctx.conv_algos);
    }
    if (p->locked_init)
        lf_mutex_destroy(&p->lock);
    free(p);
}

static lf_status lf__profiler_open(lf_gpu_profiler *p)
{
    LF__CU(cudaSetDevice(p->device), "device selection");
    if (cudnnCreate(&p->ctx.dnn) != CUDNN_STATUS_SUCCESS)
        return lf_set_error(LF_EIO, "cuDNN could not be initialised on GPU %d", (int)p->device);
    lf_status st = lf__cublas_open(&p->ctx.cublas);
    if (st)
        return st;
    if (p->ctx.cublas.create(&p->ctx.blas) != CUBLAS_STATUS_SUCCESS)
        return lf_set_error(LF_EIO, "cuBLAS could not be initialised on GPU %d", (int)p->device);
    LF__CU(cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking), "stream creation");
    LF__CU(cudaEventCreate(&p->start), "event creation");
    LF__CU(cudaEventCreate(&p->stop), "event creation");
    size_t free_b = 0, total_b = 0;
    LF__CU(cudaMemGetInfo(&free_b, &total_b), "memory query");
    p->ctx.ws_bytes = free_b / 4 < LF__WORKSPACE_MAX ? free_b / 4 : LF__WORKSPACE_MAX;
    LF__CU(cudaMalloc(&p->ctx.workspace, p->ctx.ws_bytes ? p->ctx.ws_bytes : 1), "workspace allocation");
    if (!(p->ctx.conv_algos = calloc(1, sizeof *p->ctx.conv_algos)))
        return lf_set_error(LF_ENOMEM, "out of memory for the GPU profiler");
    st = lf_strmap_init(p->ctx.conv_algos, 64);
    if (st) {
        free(p->ctx.conv_algos);
        p->ctx.conv_algos = NULL;
    }
    return st;
}

lf_status lf_gpu_profiler_create(lf_gpu_profiler **out, int32_t device, lf_gpu_cache *cache)
{
    *out = NULL;
    int32_t n = 0;
    lf_status st = lf_gpu_count(&n);
    if (st)
        return st;
    if (n == 0)
        return lf_set_error(LF_ENOTFOUND, "no CUDA device: the CUDA runtime sees no GPU (none installed, "
                                          "or its driver is missing)");
    if (device < 0 || device >= n)
        return lf_set_error(LF_ENOTFOUND, "no CUDA device %d (%d visible)", (int)device, (int)n);
    lf_gpu_info info;
    if ((st = lf_gpu_query(device, &info)))
        return st;
    lf_gpu_profiler *p = calloc(1, sizeof *p);
    if (!p)
        return lf_set_error(LF_ENOMEM, "out of memory for the GPU profiler");
    p->device = device;
    p->cache = cache;
    lf_gpu_device_key_of(&info, &p->key);
    if (!(st = lf_mutex_init(&p->lock, "the GPU profiler")))
        p->locked_init = 1;
    if (!st)
        st = lf__profiler_open(p);
    if (!st && cache)
        st = lf_gpu_cache_use(cache, &p->key);
    if (st) {
        lf_gpu_profiler_free(p);
        return st;
    }
    *out = p;
    return LF_OK;
}

const lf_gpu_device_key *lf_gpu_profiler_device(const lf_gpu_profiler *p) { return p ? &p->key : NULL; }

static int lf__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* LF_GPU_WARMUP runs, then the median of LF_GPU_REPEATS means of LF_GPU_TIMED runs. */
static lf_status lf__time_op(lf_gpu_profiler *p, lf__oprun *r, double *seconds)
{
    lf_status st = LF_OK;
    for (int i = 0; i < LF_GPU_WARMUP && !st; i++)
        st = lf__oprun_enqueue(&p->ctx, r, p->stream);
    double t[LF_GPU_REPEATS];
    for (int rep = 0; rep < LF_GPU_REPEATS && !st; rep++) {
        LF__CU(cudaEventRecord(p->start, p->stream), "event record");
        for (int i = 0; i < LF_GPU_TIMED && !st; i++)
            st = lf__oprun_enqueue(&p->ctx, r, p->stream);
        LF__CU(cudaEventRecord(p->stop, p->stream), "event record");
        LF__CU(cudaEventSynchronize(p->stop), "synchronisation");
        float ms = 0.0f;
        LF__CU(cudaEventElapsedTime(&ms, p->start, p->stop), "event timing");
        t[rep] = (double)ms * 1e-3 / LF_GPU_TIMED;
    }
    if (st)
        return st;
    LF__CU(cudaGetLastError(), "kernel launch");
    qsort(t, LF_GPU_REPEATS, sizeof t[0], lf__cmp_double);
    *seconds = t[LF_GPU_REPEATS / 2];
    return LF_OK;
}

static lf_status lf__measure_locked(lf_gpu_profiler *p, const lf_graph *g, int32_t v, double *seconds, int *cached)
{
    char key[LF_GPU_OP_KEY_MAX];
    lf_status st = lf_gpu_op_key(g, v, key, sizeof key);
    if (st)
        return st;
    if (p->cache && lf_gpu_cache_get(p->cache, key, seconds)) {
        *cached = 1;
        return LF_OK;
    }
    LF__CU(cudaSetDevice(p->device), "device selection");
    lf__oprun r;
    if ((st = lf__oprun_prepare(&p->ctx, g, v, &r)))
        return st;
    st = lf__time_op(p, &r, seconds);
    lf__oprun_release(&r);
    if (!st && !(*seconds > 0))
        *seconds = 1e-9; /* below the events' resolution */
    if (!st && p->cache)
        st = lf_gpu_cache_put(p->cache, key, *seconds);
    return st;
}

lf_status lf_gpu_measure_op(lf_gpu_profiler *p, const lf_graph *g, int32_t v, double *seconds, int *cached)
{
    int c = 0;
    *seconds = 0.0;
    if (!p)
        return lf_set_error(LF_EINVAL, "no GPU profiler");
    lf_mutex_lock(&p->lock);
    lf_status st = lf__measure_locked(p, g, v, seconds, &c);
    lf_mutex_unlock(&p->lock);
    if (cached)
        *cached = c;
    return st;
}

/* One run of a stage: every group on its stream after a fork event on the
 * launching stream, which then waits for all of them. */
static lf_status lf__stage_run(lf_gpu_profiler *p, lf__oprun *runs, const int32_t *group_start, int32_t n_groups,
                               lf__streams *ss, cudaEvent_t fork)
{
    LF__CU(cudaEventRecord(fork, p->stream), "event record");
    for (int32_t gi = 0; gi < n_groups; gi++) {
        LF__CU(cudaStreamWaitEvent(ss->s[gi], fork, 0), "stream wait");
        lf_status st = lf__ops_enqueue(&ss->ctx[gi], runs, group_start[gi], group_start[gi + 1], ss->s[gi]);
        if (st)
            return st;
        LF__CU(cudaEventRecord(ss->done[gi], ss->s[gi]), "event record");
        LF__CU(cudaStreamWaitEvent(p->stream, ss->done[gi], 0), "stream wait");
    }
    return LF_OK;
}

static lf_status lf__stage_time(lf_gpu_profiler *p, lf__oprun *runs, const int32_t *group_start, int32_t n_groups,
                                lf__streams *ss, cudaEvent_t fork, double *seconds)
{
    lf_status st = LF_OK;
    for (int i = 0; i < LF_GPU_STAGE_WARMUP && !st; i++)
        st = lf__stage_run(p, runs, group_start, n_groups, ss, fork);
    double total = 0.0;
    for (int rep = 0; rep < LF_GPU_STAGE_REPEATS && !st; rep++) {
        LF__CU(cudaEventRecord(p->start, p->stream), "event record");
        for (int i = 0; i < LF_GPU_STAGE_RUNS && !st; i++)
            st = lf__stage_run(p, runs, group_start, n_groups, ss, fork);
        LF__CU(cudaEventRecord(p->stop, p->stream), "event record");
        LF__CU(cudaEventSynchronize(p->stop), "synchronisation");
        float ms = 0.0f;
        LF__CU(cudaEventElapsedTime(&ms, p->start, p->stop), "event timing");
        total += (double)ms * 1e-3;
    }
    if (st)
        return st;
    *seconds = total / (LF_GPU_STAGE_REPEATS * LF_GPU_STAGE_RUNS);
    return LF_OK;
}

static lf_status lf__stage_locked(lf_gpu_profiler *p, const lf_graph *g, const int32_t *ops,
                                  const int32_t *group_start, int32_t n_groups, double *seconds)
{
    int32_t n_ops = group_start[n_groups];
    for (int32_t gi = 0; gi < n_groups; gi++)
        if (group_start[gi] < 0 || group_start[gi] > group_start[gi + 1])
            return lf_set_error(LF_EINVAL, "stage latency: group %d has a negative size", (int)gi);
    lf_status st = lf__ops_runnable(g, ops, n_ops, "stage latency");
    if (st)
        return st;
    LF__CU(cudaSetDevice(p->device), "device selection");
    lf__oprun *runs = calloc((size_t)(n_ops ? n_ops : 1), sizeof *runs);
    if (!runs)
        return lf_set_error(LF_ENOMEM, "out of memory for a stage of %d ops", (int)n_ops);
    lf__streams ss;
    memset(&ss, 0, sizeof ss);
    cudaEvent_t fork = NULL;
    if (!(st = lf__ops_prepare(&p->ctx, g, ops, n_ops, runs)) &&
        !(st = lf__streams_create(&ss, n_groups, &p->ctx, lf__ops_workspace(runs, n_ops)))) {
        cudaError_t e = cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
        if (e != cudaSuccess) {
            fork = NULL;
            st = lf_set_error(LF_EIO, "GPU event creation failed: %s", cudaGetErrorString(e));
        }
    }
    if (!st)
        st = lf__stage_time(p, runs, group_start, n_groups, &ss, fork, seconds);
    lf__streams_destroy(&ss); /* waits for the device first */
    if (fork)
        cudaEventDestroy(fork);
    lf__ops_release(runs, n_ops);
    free(runs);
    return st;
}

lf_status lf_gpu_stage_latency(lf_gpu_profiler *p, const lf_graph *g, const int32_t *ops,
                               const int32_t *group_start, int32_t n_groups, double *seconds)
{
    *seconds = 0.0;
    if (!p)
        return lf_set_error(LF_EINVAL, "no GPU profiler");
    if (n_groups < 1 || n_groups > LF__MAX_STREAMS || group_start[0] != 0)
        return lf_set_error(LF_EINVAL, "stage latency: %d groups (1 to %d, the first starting at 0)", (int)n_groups,
                            LF__MAX_STREAMS);
    lf_mutex_lock(&p->lock);
    lf_status st = lf__stage_locked(p, g, ops, group_start, n_groups, seconds);
    lf_mutex_unlock(&p->lock);
    return st;
}
